// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Other threads' stores in time (issue #17, docs/values.md "Other
 * threads' stores in time", replay/rcv_xthr.c), for tests/values/run.sh.
 * A private page at a constant address holds byte G; the main thread
 * stores 0x66 there, loads it into r12 (`movzbq 0x30000000, %r12`),
 * keeps it for three nops and clears it; another thread stores into G
 * around that, in turn (each waits for the other's flag):
 *
 *   after:    it stores 0x77 right after the load (the snapshot's
 *             value): r12 is 0x66, known from the main thread's own
 *             store just before the load (no other store falls between
 *             them); a rule that took the snapshot across the other
 *             thread's store says 0x77 (wrong).
 *   between:  it stores 0x77 between the main thread's store and its
 *             load, and 0x88 after the load: r12 (0x77) is not known
 *             from either side; a rule that walked back to the main
 *             thread's own store says 0x66, one that went forward to
 *             the snapshot 0x88 (both wrong).
 *   before:   it stores 0x77 and ends, the main thread joins it and
 *             loads: r12 is 0x77, from the snapshot (nothing writes G
 *             after the load).
 *   kernel:   its read(2) from a pipe into G races with the main
 *             thread's load (the main thread writes the pipe, then loads
 *             G while the kernel may be copying 0x77 in): whatever the
 *             load read, no wrong value (a system call's writes run
 *             beside the other thread's instructions until it returns).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define G 0x30000000ul

static volatile int stage;
/* The mode, parsed before anything runs (strcmp's EVEX loads, which the
 * engine cannot read, would stop every walk).
 */
enum { AFTER, BETWEEN, BEFORE, KERNEL };
static int how;
static int pfd[2];

static void wait_for(int s)
{
	while (stage != s)
		sched_yield();
}

static void store(unsigned char v)
{
	switch (v) {
	case 0x66:
		__asm__ volatile("movb $0x66, 0x30000000" ::: "memory");
		break;
	case 0x77:
		__asm__ volatile("movb $0x77, 0x30000000" ::: "memory");
		break;
	default:
		__asm__ volatile("movb $0x88, 0x30000000" ::: "memory");
		break;
	}
}

static void load(void)
{
	__asm__ volatile("movzbq 0x30000000, %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" ::: "r12", "memory");
}

static void *other(void *arg)
{
	(void)arg;
	if (how == KERNEL) {
		char c;

		stage = 1;
		if (read(pfd[0], (void *)G, 1) != 1 ||
		    read(pfd[0], &c, 1) != 1)
			abort();
		return NULL;
	}
	if (how == BEFORE) {
		store(0x77);
		return NULL;
	}
	stage = 1;
	if (how == BETWEEN) {
		wait_for(2);
		store(0x77);
		stage = 3;
	}
	wait_for(4);
	store(how == AFTER ? 0x77 : 0x88);
	stage = 5;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	static const char *const names[] = { "after", "between", "before",
					     "kernel" };

	for (how = 0; argc > 1 && how < 4 && strcmp(argv[1], names[how]);
	     how++)
		;
	if (how == 4)
		return 2;
	if (mmap((void *)G, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (void *)G || pipe(pfd))
		return 2;
	if (pthread_create(&t, NULL, other, NULL))
		return 2;
	if (how == KERNEL) {
		wait_for(1);
		if (write(pfd[1], "w", 1) != 1)	/* 0x77 */
			return 2;
		load();
		if (write(pfd[1], "x", 1) != 1)
			return 2;
	} else if (how == BEFORE) {
		pthread_join(t, NULL);
		load();
		return 0;
	} else {
		wait_for(1);
		store(0x66);
		if (how == BETWEEN) {
			stage = 2;
			wait_for(3);
		}
		load();
		stage = 4;
		wait_for(5);
	}
	pthread_join(t, NULL);
	return 0;
}
