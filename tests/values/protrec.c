// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mprotect of a range and protection the engine does not know, against a
 * page of the program's read-only data (issue #17, docs/values.md
 * "Protections the recorder saw", replay/rcv_prot.c), for
 * tests/values/run.sh.  The page holds 0x66 and is read-only from the
 * recording's start (the program's .rodata); the main thread loads its
 * byte into r12 (`movzbq ro(%rip), %r12`), keeps it for three nops and
 * clears it.  Every mprotect below takes its address and its protection
 * from a pipe, so neither is known to any values engine:
 *
 *   own-after:     after the load the main thread makes the page
 *                  writable, stores 0x77 and makes it read-only again:
 *                  r12 unknown (the recorder's MPROTECT records cover the
 *                  page; a rule blind to them takes the end's 0x77).
 *   thr-after:     the same by another thread, after the load: unknown.
 *   ownsame-after: after the load the main thread mprotects the page
 *                  PROT_READ (what it is): no record covers it, r12 is
 *                  known, 0x66, from the snapshot.
 *   thrsame-after: the same by another thread: known, 0x66.
 *   memw-after:    after the load the main thread writes 0x77 into the
 *                  page through /proc/self/mem (pwrite, the offset
 *                  through the pipe: the kernel writes a read-only page),
 *                  which changes no mapping: no record covers the page,
 *                  but the call is no mprotect: r12 unknown (a rule that
 *                  let every call after the load pass as it lets a brk
 *                  gives 0x77).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char ro[4096] __attribute__((aligned(4096))) = {
	0x66
};

static volatile int go, done;
static int pfd[2];
static int same;

/* The byte the test asks about, in r12 for three nops. */
static void load(void)
{
	__asm__ volatile("movzbq %[b], %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d"
			 : : [b] "m"(ro[0]) : "r12", "memory");
}

/* Address and protection of each call through the pipe. */
static void put(uintptr_t a, int prot)
{
	if (write(pfd[1], &a, sizeof(a)) != sizeof(a) ||
	    write(pfd[1], &prot, sizeof(prot)) != sizeof(prot))
		_exit(2);
}

static void call(void)
{
	uintptr_t a;
	int prot;

	if (read(pfd[0], &a, sizeof(a)) != sizeof(a) ||
	    read(pfd[0], &prot, sizeof(prot)) != sizeof(prot) ||
	    mprotect((void *)a, 4096, prot))
		_exit(3);
}

static void change(void)
{
	if (same) {
		put((uintptr_t)ro, PROT_READ);
		call();
		return;
	}
	put((uintptr_t)ro, PROT_READ | PROT_WRITE);
	put((uintptr_t)ro, PROT_READ);
	call();
	((volatile unsigned char *)ro)[0] = 0x77;
	call();
}

/* The other thread ends in pause(): exit_group ends it. */
static void *other(void *arg)
{
	(void)arg;
	while (!go)
		sched_yield();
	change();
	done = 1;
	for (;;)
		pause();
	return NULL;
}

/* memw-after: the byte, then 0x77 written through the memory file. */
static int memw_case(void)
{
	int fd = open("/proc/self/mem", O_RDWR);
	uintptr_t a = (uintptr_t)ro;

	if (fd < 0 || write(pfd[1], &a, sizeof(a)) != sizeof(a))
		return 1;
	load();
	if (read(pfd[0], &a, sizeof(a)) != sizeof(a) ||
	    pwrite(fd, "\x77", 1, (off_t)a) != 1)
		return 1;
	return *(volatile const unsigned char *)ro != 0x77;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "own-after";
	pthread_t t;

	same = !!strstr(mode, "same");
	if (pipe(pfd))
		return 1;
	if (!strcmp(mode, "memw-after"))
		return memw_case();
	if (!strncmp(mode, "own", 3)) {
		load();
		change();
		return 0;
	}
	if (pthread_create(&t, NULL, other, NULL))
		return 1;
	load();
	go = 1;
	while (!done)
		sched_yield();
	return 0;
}
