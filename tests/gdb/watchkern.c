// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel's writes between two instructions (replay/watch_kern.c,
 * tests/gdb/watchkern.sh, tests/unit/replay/test_watch_kern.c): two
 * SA_SIGINFO handlers entered through kill(2) to the process itself, one
 * on an alternate stack (a global array), one on the normal stack; the
 * kernel writes each one's siginfo, which the handler's second argument
 * points to (kept in si_alt, si_norm), at the delivery.  And the thread's
 * rseq area (glibc registers it; cpu_id's address kept in rseq_cpu),
 * which the kernel rewrites when the thread resumes after a preemption
 * or a migration.  Prints both signal numbers.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <unistd.h>

static char alt[65536] __attribute__((aligned(64)));
siginfo_t *volatile si_alt, *volatile si_norm;
volatile unsigned long rseq_cpu;

static void h_alt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	si_alt = si;
}

static void h_norm(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	si_norm = si;
}

int main(void)
{
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction sa;
	unsigned long tp;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h_alt;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = h_norm;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	if (__rseq_size >= 8)
		rseq_cpu = tp + (unsigned long)__rseq_offset + 4;
	printf("signo %d %d rseq %d\n", si_alt->si_signo, si_norm->si_signo,
	       rseq_cpu != 0);
	return 0;
}
