// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Histories that end at a fault (issue #17's conflicts, docs/values.md),
 * for tests/values/run.sh to check against the ground truth and for 0
 * conflicts: the end snapshot's rflags is then the image the processor
 * pushed for the fault (RF set for any fault-class exception), not the
 * rflags after the last instruction that completed (RF clear).  The
 * engine once took the snapshot's RF for the state after the last
 * instruction and counted a conflict with what that instruction's
 * emulation gives.
 *
 * `crash segv`: cmp sets every arithmetic flag the engine can emulate,
 * then a store through a null pointer; `crash div`: a division by zero
 * (#DE) after the same; `crash ud2`: an undefined opcode (#UD, SIGILL);
 * `crash rep`: rep movsb running off the end of a data page into a page
 * with no access, the fault in the middle of its iterations (rcx, rsi
 * and rdi part way, the bytes it copied in memory); `crash thread`: the
 * null store in a second thread while the first waits in join (the
 * thread that faults is not the process's first).  Each dies of its
 * signal: the history ends there.  `crash represume`: rep as above, but
 * the fault's handler gives the page access back and the copy resumes
 * and completes (the history goes on).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* crash_segv(rdi = 0), crash_div(rdi = 0), crash_ud2(): flags from cmp
 * (5 - 7: CF, SF, AF set), then the fault.
 */
__asm__(".text\n"
	".globl crash_segv\n"
	"crash_segv:\n"
	"	mov $5, %eax\n"
	"	cmp $7, %eax\n"
	"	movl $1, (%rdi)\n"
	"	ret\n"
	".globl crash_div\n"
	"crash_div:\n"
	"	mov $5, %eax\n"
	"	cmp $7, %eax\n"
	"	xor %edx, %edx\n"
	"	mov %rdi, %rcx\n"
	"	cmp $7, %eax\n"
	"	div %rcx\n"
	"	ret\n"
	".globl crash_ud2\n"
	"crash_ud2:\n"
	"	mov $5, %eax\n"
	"	cmp $7, %eax\n"
	"	ud2\n"
	"	ret\n"
	/* crash_rep(rdi = dst, rsi = src, rdx = n): r12 holds dst's first
	 * word as it was before the copy (0) until the xor: known only
	 * through memory, where the snapshot shows the copy's bytes.
	 */
	".globl crash_rep\n"
	"crash_rep:\n"
	"	push %r12\n"
	"	mov (%rdi), %r12\n"
	"	xor %r12d, %r12d\n"
	"	mov %rdx, %rcx\n"
	"	cmp $7, %eax\n"
	"	rep movsb\n"
	"	pop %r12\n"
	"	ret\n");

void crash_segv(long *p);
void crash_div(long zero);
void crash_ud2(void);
void crash_rep(void *dst, const void *src, size_t n);

static long *volatile null_ptr;

#define PAGE 4096
static char area[2 * PAGE] __attribute__((aligned(PAGE)));

/* represume: the fault's handler gives the page access back. */
static void unprotect(int sig)
{
	(void)sig;
	mprotect(area + PAGE, PAGE, PROT_READ | PROT_WRITE);
}

static void *second(void *arg)
{
	(void)arg;
	crash_segv(null_ptr);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "segv";

	puts("crash: about to fault");
	fflush(stdout);
	if (!strcmp(mode, "segv")) {
		crash_segv(null_ptr);
	} else if (!strcmp(mode, "div")) {
		crash_div((long)null_ptr);
	} else if (!strcmp(mode, "ud2")) {
		crash_ud2();
	} else if (!strcmp(mode, "rep")) {
		static char src[256];

		/* the data segment (in the snapshot), its last page made
		 * inaccessible
		 */
		if (mprotect(area + PAGE, PAGE, PROT_NONE))
			return 2;
		memset(src, 0x5a, sizeof(src));
		crash_rep(area + PAGE - 100, src, sizeof(src));
	} else if (!strcmp(mode, "represume")) {
		static char src[256];

		signal(SIGSEGV, unprotect);
		if (mprotect(area + PAGE, PAGE, PROT_NONE))
			return 2;
		memset(src, 0x5a, sizeof(src));
		crash_rep(area + PAGE - 100, src, sizeof(src));
		return area[PAGE + 10] == 0x5a ? 0 : 3;
	} else if (!strcmp(mode, "thread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, second, NULL))
			return 2;
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "crash: unknown mode %s\n", mode);
		return 2;
	}
	return 1;
}
