/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Two threads with the same tid one after the other (clone3's set_tid,
 * which needs CAP_SYS_ADMIN; pid wraparound does the same): the first
 * exits before the second is made.  The bundle names a thread's streams
 * by its tid, so the software recorder lets the second run untraced
 * (docs/recorder.md).  The tid is one below pid_max that is not this
 * process's, the next when it is in use; the second clone waits until the
 * first's tid is free again (reaped by the recorder or the kernel).
 * tidre_run() prints "tids equal, ran 2" where it ran, else why not.  One
 * copy for tests/programs/tidre.c (e2e) and review13.c's tidre mode.
 */
#ifndef PTREC_TESTS_TIDRE_H
#define PTREC_TESTS_TIDRE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct tidre_cargs {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		 stack_size, tls, set_tid, set_tid_size;
};

volatile uint32_t tidre_ctid;
volatile int tidre_done;
static char tidre_stack[1 << 16] __attribute__((aligned(16)));

int64_t tidre_clone(struct tidre_cargs *a, uint64_t size);
/* The child touches no stack: it counts itself and exits. */
__asm__(".text\ntidre_clone:\n"
	"\tmov $435, %eax\n"
	"\tsyscall\n"
	"\ttest %rax, %rax\n"
	"\tjnz 1f\n"
	"\tlock incl tidre_done(%rip)\n"
	"\tmov $60, %eax\n\txor %edi, %edi\n\tsyscall\n"
	"1:\tret\n");

/* One clone3 with set_tid *@want; waits for the child's exit. */
static int64_t tidre_once(int64_t *want)
{
	struct tidre_cargs a;
	int64_t r;

	memset(&a, 0, sizeof(a));
	/* CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM,
	 * CLONE_CHILD_CLEARTID
	 */
	a.flags = 0x50f00 | 0x00200000;
	a.child_tid = (uint64_t)(uintptr_t)&tidre_ctid;
	a.stack = (uint64_t)(uintptr_t)tidre_stack;
	a.stack_size = sizeof(tidre_stack);
	a.set_tid = (uint64_t)(uintptr_t)want;
	a.set_tid_size = 1;
	tidre_ctid = 1;
	r = tidre_clone(&a, sizeof(a));
	if (r > 0)
		for (int i = 0; i < 500 && tidre_ctid; i++)
			usleep(2000);
	return r;
}

static int tidre_run(void)
{
	long pid_max = 32768;
	int64_t want, got[2];
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	int k;

	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1 || pid_max < 1000)
			pid_max = 32768;
		fclose(f);
	}
	want = 300 + (getpid() * 7919L) % (pid_max - 300);
	for (k = 0; k < 100; k++) {
		if (want == getpid())
			want = want + 1 < pid_max ? want + 1 : 300;
		got[0] = tidre_once(&want);
		if (got[0] != -EEXIST)
			break;
		want = want + 1 < pid_max ? want + 1 : 300;
	}
	/* Free again once the recorder (or the kernel) reaped it. */
	for (k = 0; k < 500; k++) {
		got[1] = got[0] < 0 ? got[0] : tidre_once(&want);
		if (got[1] != -EEXIST)
			break;
		usleep(2000);
	}
	if (got[0] < 0 || got[1] < 0) {
		printf("clone3 set_tid %ld: %ld %ld\n", (long)want,
		       (long)got[0], (long)got[1]);
		return 0;
	}
	/* The main thread reads what the second (untraced) one wrote. */
	printf("tids %s, ran %d\n", got[0] == got[1] ? "equal" : "differ",
	       tidre_done);
	return 0;
}

#endif
