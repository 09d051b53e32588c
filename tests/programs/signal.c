// SPDX-License-Identifier: GPL-3.0-or-later
/* A signal handler runs and returns through sigreturn. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t got;

static void handler(int sig)
{
	got = sig;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("signal %d\n", (int)got);
	return got == SIGUSR1 ? 0 : 1;
}
