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
 * or a migration.  And a rep stosb that faults on the second page of
 * rep_dst after filling the first, whose SIGSEGV handler (on another
 * alternate stack) siglongjmps out: the instruction never completes and
 * the trace shows no instruction for its stores (review 7 repjmp).
 * Prints both signal numbers.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

static char alt2[65536] __attribute__((aligned(64)));
unsigned char *volatile rep_dst;
static sigjmp_buf jb;

static void h_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	siglongjmp(jb, 1);
}

/* rep stosb over rep_dst's two pages, the second inaccessible. */
static void rep_fault(void)
{
	stack_t ss = { .ss_sp = alt2, .ss_size = sizeof(alt2) };
	struct sigaction sa;
	unsigned char *d;

	d = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d == MAP_FAILED || mprotect(d + 4096, 4096, PROT_NONE))
		return;
	rep_dst = d;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(jb, 1))
		__asm__ volatile("cld\n\trep stosb"
				 : "+D"(d)
				 : "c"(8192ul), "a"(0x5a)
				 : "memory");
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
	/* last: its system calls (an mmap whose flags the engine does not
	 * know may write anything) come after every other case's stops
	 */
	rep_fault();
	return 0;
}
