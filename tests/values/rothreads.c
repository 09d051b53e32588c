// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Read-only memory with another thread (issue #17, docs/values.md "Other
 * threads' system calls in time"), for tests/values/run.sh: a page made
 * read-only holds 0x66; another thread makes it writable, stores 0x77 and
 * makes it read-only again (`mprotect-*`), or unmaps it and maps a new
 * page there (`remap-*`), so that the end's snapshot shows a read-only
 * page holding 0x77.  The main thread loads the byte into r12 (`movzbq
 * (%reg), %r12`), keeps it for three nops and clears it:
 *
 *   *-after:  the load comes first, then the main thread lets the other
 *             change the page and waits for it (sched_yield, which
 *             changes no mapping: the main thread's own system calls do
 *             not end the read-only rule).  r12 is 0x66: a rule that
 *             took the page from the snapshot without ordering the other
 *             thread's mprotect/munmap/mmap after the load says 0x77
 *             (wrong).
 *   *-before: the other thread changes the page and ends, then the load:
 *             r12 is 0x77, known from the snapshot once the engine has
 *             ordered every system call of the other thread before it.
 *
 * `fd-after`: the other thread makes descriptor 1 name /proc/self/mem
 * (dup2); the main thread loads the page's byte (0x66), then writes 0x77
 * into the read-only page through descriptor 1 (the kernel's FOLL_FORCE
 * writes it), and the other thread puts stdout back (dup2) before the
 * end: the snapshot's descriptor 1 is not the memory file and the main
 * thread closes none, but its write did write the page.  rcv_fd.c must
 * not take the write as harmless (the other thread's dup2 comes after
 * it), or the read-only rule crosses it and r12 is 0x77 (wrong).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* At a constant address, so that the load's address is known. */
#define PAGE 0x20000000ul

static volatile int go, done, stage;
static unsigned char *page;
static int remap, memfd = -1, keep_out = -1;

static void change(void)
{
	if (remap) {
		munmap(page, 4096);
		if (mmap(page, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    page)
			abort();
	} else {
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
	}
	page[0] = 0x77;
	mprotect(page, 4096, PROT_READ);
}

/* The other thread ends in pause(): its exit would come at any time. */
static void *other(void *arg)
{
	if (arg)
		while (!go)
			sched_yield();
	change();
	done = 1;
	for (;;)
		pause();
	return NULL;
}

/* The load the test asks about: r12 holds the byte for three nops. */
static void load(void)
{
	__asm__ volatile("movzbq 0x20000000, %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : : "r12", "memory");
}

/* fd-after: dup2 /proc/self/mem onto 1, wait, put stdout back, and
 * pause until exit_group ends it (an exit would madvise its stack, which
 * orders the maps after the load anyway).
 */
static void *fd_other(void *arg)
{
	(void)arg;
	dup2(memfd, 1);
	stage = 1;
	while (stage != 2)
		sched_yield();
	dup2(keep_out, 1);
	stage = 3;
	for (;;)
		pause();
	return NULL;
}

static void fd_case(void)
{
	unsigned char v = 0x77;
	pthread_t t;

	memfd = open("/proc/self/mem", O_RDWR);
	keep_out = dup(1);
	if (memfd < 0 || keep_out < 0)
		abort();
	pthread_create(&t, NULL, fd_other, NULL);
	while (stage != 1)
		sched_yield();
	load();
	/* Through descriptor 1, now the memory file: the kernel writes
	 * the read-only page (as a debugger's breakpoint does).
	 */
	lseek(1, (off_t)(uintptr_t)page, SEEK_SET);
	/* write(1, &v, 1) with its descriptor in the code (libc's wrapper
	 * reloads it from the stack, where the engine does not know it).
	 */
	__asm__ volatile("mov $1, %%eax\n\tmov $1, %%edi\n\tsyscall"
			 : : "S"(&v), "d"(1ul)
			 : "rax", "rdi", "rcx", "r11", "memory");
	stage = 2;
	while (stage != 3)
		sched_yield();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "mprotect-after";
	int after = !!strstr(mode, "-after");
	pthread_t t;

	remap = !strncmp(mode, "remap", 5);
	page = mmap((void *)PAGE, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page != (void *)PAGE)
		return 1;
	page[0] = 0x66;
	mprotect(page, 4096, PROT_READ);
	if (!strcmp(mode, "fd-after")) {
		fd_case();
		return 0;
	}
	pthread_create(&t, NULL, other, after ? (void *)1 : NULL);
	if (after) {
		load();
		go = 1;
	}
	while (!done)
		sched_yield();
	if (!after)
		load();
	return 0;
}
