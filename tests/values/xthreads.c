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
 *
 * And a store of unknown address between a load and the end (rcv_alias.c's
 * value argument where other threads write, "Stores of unknown address
 * where other threads write"): the other thread stores 0x22 into byte
 * A = 0x30000107 (the last of its word) and the main thread loads A into
 * r12, then stores eight 0xff bytes through a pointer made of a word
 * read from /dev/zero (not known to the engine), then clears r12:
 *
 *   alias:    the other thread has ended before the load and the store
 *             goes to 0x30000800: A stays 0x22 to the end, which no
 *             placement of eight 0xff over A shows, so r12 is 0x22,
 *             from the snapshot (not known without the rule).
 *   aliasw:   the store goes to A itself (A..A+7 are 0xff), then the
 *             other thread stores 0 into the next word (A+1..A+8): the
 *             end shows 0xff at A and 0 after it.  r12 is not known; a
 *             rule that took the end's bytes across the other thread's
 *             store refutes every placement (0 at A+1, the untouched
 *             bytes before A) and says 0xff (wrong).
 *
 * And the other thread's stores as its own engine places them when that
 * engine orders the main thread's writes in turn (rcv_xthr.c's levels,
 * docs/values.md "Engines of other tasks that order writes too"), and
 * its mprotect(2) and madvise(2) of G's page: the other thread stores
 * 0x55 into A, the main thread loads A into r12, then the other thread
 * acts and pauses, and the main thread ends by exit_group(2) (both wait
 * by raw sched_yield(2): no lazy binding after the load):
 *
 *   level:    the other thread stores 0x30000800 into pointer P, reads
 *             P back in a later run, stores 0x77 through it and
 *             overwrites P with a word read from /dev/zero: its engine
 *             knows the address only from its own store of P, in the
 *             span in which the main thread does not write P.  A
 *             stays 0x55 to the end: r12 0x55, from the snapshot (not
 *             known when the other thread's engine orders nothing).
 *   levelw:   the same, but the main thread stores A's address into P
 *             between the other thread's store and its reload: 0x77
 *             goes to A.  r12 is not known; an engine of the other
 *             thread that ignored the main thread's writes would place
 *             the store at 0x30000800 and say 0x77 (wrong).
 *   mprot:    mprotect(G, 4096, PROT_READ | PROT_WRITE): no byte
 *             changes, r12 0x55 from the snapshot (not known when a
 *             change of protection counts as a write of its range).
 *   madv:     madvise(G, 4096, MADV_DONTNEED): the page reads zero after;
 *             r12 is not known (a rule that took every mapping call as
 *             writing no byte would say 0).
 *   near:     the main thread loads, through a pointer, a local of the
 *             other thread (0x55), within 16 KiB of its thread pointer:
 *             r12 0x55 from the snapshot (those 32 KiB were never
 *             ordered; the snapshot's rseq areas are what the kernel
 *             writes there).
 *   rseq:     the other thread, on CPU 0, publishes its rseq area's
 *             cpu_id; the main thread loads it, then the other thread
 *             moves itself to CPU 1 (sched_setaffinity(2)), and the
 *             kernel rewrites cpu_id: r12 (0) is not known (with the
 *             rseq areas not excluded either, the snapshot's 1).  Needs
 *             two CPUs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#define G 0x30000000ul

static volatile int stage;
/* The mode, parsed before anything runs (strcmp's EVEX loads, which the
 * engine cannot read, would stop every walk).
 */
enum { AFTER, BETWEEN, BEFORE, KERNEL, ALIAS, ALIASW, LEVEL, LEVELW,
       MPROT, MADV, NEAR, RSEQ, NMODES };
static int how;
static int pfd[2];
static volatile long off;	/* read from /dev/zero: not known */
static volatile unsigned long ptr;	/* level's P */
/* near: a byte of the other thread's stack; rseq: its rseq cpu_id */
static volatile unsigned char *volatile other_byte;

/* The other thread onto CPU @cpu alone; by a raw call in @raw. */
static void pin(int cpu, int raw)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(cpu, &m);
	if (!raw) {
		sched_setaffinity(0, sizeof(m), &m);
		return;
	}
	__asm__ volatile("mov $203, %%eax\n\tsyscall"
			 :: "D"(0), "S"(sizeof(m)), "d"(&m)
			 : "rax", "rcx", "r11", "memory");
}

static void wait_for(int s)
{
	while (stage != s)
		sched_yield();
}

/* wait_for() by raw system calls: no lazy binding in it. */
static void raw_wait(int s)
{
	/* The number by a move just before each call: the engine's walk
	 * of another task's calls reads it there (rcv_order.c sys_arg()).
	 */
	while (stage != s)
		__asm__ volatile("mov $24, %%eax\n\tsyscall" ::: "rax", "rcx",
				 "r11", "memory");	/* sched_yield */
}

static void __attribute__((noreturn)) raw_pause(void)
{
	for (;;)
		__asm__ volatile("mov $34, %%eax\n\tsyscall" ::: "rax", "rcx",
				 "r11", "memory");	/* pause */
}

/* The other thread of level, levelw, mprot and madv. */
static void other_late(void)
{
	volatile unsigned char mine = 0x55;

	if (how == RSEQ) {
		pin(0, 0);
		other_byte = (unsigned char *)__builtin_thread_pointer() +
			     __rseq_offset + 4;
	} else if (how == NEAR) {
		other_byte = &mine;
	}
	__asm__ volatile("movb $0x55, 0x30000107" ::: "memory");
	stage = 1;
	raw_wait(2);
	if (how == RSEQ)
		pin(1, 1);
	if (how == NEAR || how == RSEQ) {
		stage = 3;
		raw_pause();
	}
	if (how == MPROT || how == MADV) {
		if (how == MPROT)
			__asm__ volatile("mov $10, %%eax\n\tsyscall"
					 :: "D"(G), "S"(4096ul),
					    "d"(PROT_READ | PROT_WRITE)
					 : "rax", "rcx", "r11", "memory");
		else
			__asm__ volatile("mov $28, %%eax\n\tsyscall"
					 :: "D"(G), "S"(4096ul),
					    "d"(MADV_DONTNEED)
					 : "rax", "rcx", "r11", "memory");
		stage = 3;
		raw_pause();
	}
	__asm__ volatile("movq $0x30000800, %0" : "=m"(ptr) :: "memory");
	stage = 3;
	raw_wait(4);
	/* P overwritten then by a value not known (from /dev/zero): what
	 * the reload read is shown by the stores before it alone.
	 */
	__asm__ volatile("mov %0, %%rax\n\tmovb $0x77, (%%rax)\n\t"
			 "mov %1, %%rax\n\tmov %%rax, %0"
			 : "+m"(ptr) : "m"(off) : "rax", "memory");
	stage = 5;
	raw_pause();
}

/* The main thread of level, levelw, mprot and madv. */
static void __attribute__((noreturn)) main_late(void)
{
	raw_wait(1);
	if (how == NEAR || how == RSEQ)
		__asm__ volatile("mov %0, %%rax\n\tmovzbq (%%rax), %%r12\n\t"
				 "nop\n\tnop\n\txor %%r12d, %%r12d"
				 :: "m"(other_byte) : "rax", "r12", "memory");
	else
		__asm__ volatile("movzbq 0x30000107, %%r12\n\tnop\n\tnop\n\t"
				 "xor %%r12d, %%r12d" ::: "r12", "memory");
	stage = 2;
	raw_wait(3);
	if (how == LEVEL || how == LEVELW) {
		if (how == LEVELW)
			__asm__ volatile("movq $0x30000107, %0" : "=m"(ptr)
					 :: "memory");
		stage = 4;
		raw_wait(5);
	}
	for (;;)
		__asm__ volatile("mov $231, %%eax\n\tsyscall" :: "D"(0)
				 : "rax", "rcx", "r11", "memory");
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

/* Load A into r12, store eight 0xff bytes at @to + off, clear r12. */
static void load_store(unsigned long to)
{
	__asm__ volatile("movzbq 0x30000107, %%r12\n\tnop\n\tnop\n\t"
			 "mov %0, %%rax\n\tadd %1, %%rax\n\t"
			 "movq $-1, (%%rax)\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d\n\txor %%eax, %%eax"
			 :: "m"(off), "r"(to) : "rax", "r12", "memory");
}

static void *other(void *arg)
{
	(void)arg;
	if (how >= LEVEL)
		other_late();
	if (how == ALIAS || how == ALIASW) {
		__asm__ volatile("movb $0x22, 0x30000107" ::: "memory");
		stage = 1;
		if (how == ALIASW) {
			wait_for(2);
			__asm__ volatile("movq $0, 0x30000108" ::: "memory");
			stage = 3;
			/* pause(2) until the exit_group: no thread exit's
			 * stores of unknown address after its store.
			 */
			for (;;)
				__asm__ volatile("syscall" :: "a"(SYS_pause)
						 : "rcx", "r11", "memory");
		}
		return NULL;
	}
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
					     "kernel", "alias", "aliasw",
					     "level", "levelw", "mprot",
					     "madv", "near", "rseq" };
	int zfd;

	for (how = 0; argc > 1 && how < NMODES &&
	     strcmp(argv[1], names[how]); how++)
		;
	if (how == NMODES)
		return 2;
	zfd = open("/dev/zero", O_RDONLY);
	if (zfd < 0 || read(zfd, (void *)&off, sizeof(off)) != sizeof(off))
		return 2;
	if (mmap((void *)G, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (void *)G || pipe(pfd))
		return 2;
	if (pthread_create(&t, NULL, other, NULL))
		return 2;
	if (how >= LEVEL)
		main_late();
	if (how == ALIAS || how == ALIASW) {
		if (how == ALIAS)
			pthread_join(t, NULL);
		else
			wait_for(1);
		load_store(how == ALIAS ? 0x30000800ul : 0x30000107ul);
		stage = 2;
		if (how == ALIASW)
			wait_for(3);
		/* The word read again, so that the end does not show it,
		 * and exit_group(2), by hand: read(2)'s cancellation point
		 * (a store through the thread pointer from its TLS), a lazy
		 * binding's and the exit path's stores through link maps are
		 * stores of unknown address between the load and the end.
		 */
		__asm__ volatile("syscall\n\tmov $231, %%eax\n\t"
				 "xor %%edi, %%edi\n\tsyscall"
				 :: "a"(SYS_read), "D"(zfd), "S"(&off),
				    "d"(sizeof(off)) : "rcx", "r11", "memory");
	} else if (how == KERNEL) {
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
