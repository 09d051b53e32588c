// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/diff: a signal handler entered from a system call (raise) and
 * left through rt_sigreturn; the same path in every run.
 */
#include <signal.h>
#include <string.h>

static volatile int sink;

static void __attribute__((noinline)) work(int x)
{
	sink = x;
}

static void on_usr1(int sig)
{
	work(sig);
	sink = sig + 1;
}

static void __attribute__((noinline)) spin(void)
{
	sink = 1;
	raise(SIGUSR1);
	sink = 2;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	spin();
	sink = 3;
	return 0;
}
