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
 *
 * By the other thread's arguments (rcv_order_effect(): its values
 * engine knows them, constants here), all after the load, the pages
 * around the page made read-only too ([PAGE - 4096, PAGE + 8192)):
 *
 *   miss-after:   it mprotects PAGE + 4096 alone writable, stores, and
 *                 read-only again: r12 is known, 0x66, from the snapshot
 *                 (its range misses the page).
 *   round-after:  mprotect(PAGE - 4096, 4097) covers PAGE's page (the
 *                 kernel rounds the length up); it stores 0x77 at
 *                 PAGE + 16, which the main thread loads (`movzbq
 *                 0x20000010`): unknown (a range not rounded says 0x77).
 *   grows-after:  the pages are one MAP_GROWSDOWN mapping; mprotect of
 *                 PAGE + 4096 with PROT_GROWSDOWN changes it down to its
 *                 start: unknown (the range alone says 0x77).
 *   fixed-after:  mmap(PAGE, MAP_FIXED) of a memfd holding 0x77, read-
 *                 only: unknown (mmap taken as adding mappings only says
 *                 0x77).
 *   unmap-after:  munmap(PAGE), then mmap without MAP_FIXED of that
 *                 memfd at PAGE as a hint (the kernel puts it there):
 *                 unknown (munmap taken as harmless says 0x77).
 *
 * The thread's own calls by their arguments (rcv_sys.c sys_misses_ro()),
 * with no other thread:
 *
 *   own-after:     after the load it mprotects PAGE writable, stores
 *                  0x77 and makes it read-only again: unknown (a known
 *                  range taken as harmless says 0x77).
 *   ownmiss-after: it mprotects a writable page elsewhere, whose range
 *                  holds nothing read-only at the end: r12 known, 0x66.
 *
 * Its own calls whose range the engine does not know (the address read
 * back from a pipe), by their protection alone (rcv_sys.c
 * rcv_sys_prot_write()):
 *
 *   wprot-after:   after the load it mprotects PAGE writable, stores
 *                  0x77 and makes it read-only again: unknown (the
 *                  second call asks no PROT_WRITE; a rule that took any
 *                  mprotect of unknown range as harmless, or a known bit
 *                  for a set one, says 0x77).
 *   wprotok-after: it mprotects a writable page elsewhere writable
 *                  again: r12 known, 0x66 (a page it changed would be
 *                  writable at the end, and PAGE is not).
 *
 * A brk whose break the engine does not know, before which a file's page
 * is read (rcv_sys.c rcv_sys_keeps_file()); the file is the program
 * itself (/proc/self/exe: a memfd written in the recording is a file
 * changed, which no read-only rule takes from the snapshot):
 *
 *   brkfile-after:   its second page mapped read-only inside the heap
 *                    (MAP_FIXED over it, after sbrk grew it); the load
 *                    (`movzbq (%r15), %r12`);
 *                    then brk(the old break) unmaps it, and mmap without
 *                    MAP_FIXED of its first page (0x7f, the ELF magic)
 *                    at that address as a hint maps it there again:
 *                    unknown (a brk taken as harmless for a file's page
 *                    without the later file mappings says 0x7f).
 *   brkfileok-after: its first page mapped at PAGE, loaded (0x7f), then
 *                    sbrk shrinks the heap and no file is mapped after:
 *                    r12 known, 0x7f.
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
/* brkfile-after: the file's page inside the heap (read from the end). */
static unsigned char *heap_page;
static unsigned char *page;
static int remap, memfd = -1, keep_out = -1, sevens = -1;
static const char *how = "";

#define PROT_RW (PROT_READ | PROT_WRITE)
/* The by-argument modes: every address and length a constant. */
static void change_args(void)
{
	if (!strcmp(how, "miss")) {
		mprotect((void *)(PAGE + 4096), 4096, PROT_RW);
		((volatile unsigned char *)PAGE)[4096] = 0x55;
		mprotect((void *)(PAGE + 4096), 4096, PROT_READ);
	} else if (!strcmp(how, "round")) {
		mprotect((void *)(PAGE - 4096), 4097, PROT_RW);
		((volatile unsigned char *)PAGE)[16] = 0x77;
		mprotect((void *)(PAGE - 4096), 4097, PROT_READ);
	} else if (!strcmp(how, "grows")) {
		if (mprotect((void *)(PAGE + 4096), 4096,
			     PROT_RW | PROT_GROWSDOWN))
			abort();
		((volatile unsigned char *)PAGE)[0] = 0x77;
		mprotect((void *)(PAGE + 4096), 4096,
			 PROT_READ | PROT_GROWSDOWN);
	} else if (!strcmp(how, "fixed")) {
		if (mmap((void *)PAGE, 4096, PROT_READ,
			 MAP_PRIVATE | MAP_FIXED, sevens, 0) != (void *)PAGE)
			abort();
	} else if (!strcmp(how, "unmap")) {
		munmap((void *)PAGE, 4096);
		if (mmap((void *)PAGE, 4096, PROT_READ, MAP_PRIVATE, sevens,
			 0) != (void *)PAGE)
			abort();
	}
}

static void change(void)
{
	if (how[0]) {
		change_args();
		return;
	}
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

/*
 * brkfile-after: the byte at heap_page (in r15, which the end's
 * registers show: memory is behind the brk), then brk(@base) and mmap of
 * the file's first page at heap_page as a hint, and exit_group, all
 * without libc (its calls' stores would hide r15's pairs).
 */
static void __attribute__((noreturn)) load_heap(char *base, int exe)
{
	register unsigned char *r15 __asm__("r15") = heap_page;

	__asm__ volatile("movzbq (%%r15), %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d\n\t"
			 "mov $12, %%eax\n\tmov %[b], %%rdi\n\tsyscall\n\t"
			 "mov $9, %%eax\n\tmov %%r15, %%rdi\n\t"
			 "mov $4096, %%esi\n\tmov $1, %%edx\n\t"
			 "mov $2, %%r10d\n\tmovslq %[e], %%r8\n\t"
			 "xor %%r9d, %%r9d\n\tsyscall\n\t"
			 "mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall"
			 : : "r"(r15), [b] "r"(base), [e] "r"(exe)
			 : "rax", "rdi", "rsi", "rdx", "r8", "r9", "r10",
			   "r11", "rcx", "r12", "memory");
	__builtin_unreachable();
}

/* brkfile-after, brkfileok-after (exe: the program's file). */
static int brk_case(const char *mode, int exe)
{
	char *base = sbrk(0), *top;

	if (base == (void *)-1 || sbrk(4 * 4096) == (void *)-1)
		return 1;
	top = (char *)(((uintptr_t)base + 4095) & ~4095ul) + 4096;
	if (!strcmp(mode, "brkfile-after")) {
		heap_page = mmap(top, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
				 exe, 4096);
		if (heap_page != (unsigned char *)top || heap_page[0] == 0x7f)
			return 1;
		/* brk(base) unmaps the file's page; the mmap maps its first
		 * page there again.
		 */
		load_heap(base, exe);
	}
	if (mmap((void *)PAGE, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
		 exe, 0) != (void *)PAGE)
		return 1;
	load();
	return sbrk(-4096) == (void *)-1;
}

/* round-after: the byte at PAGE + 16. */
static void load16(void)
{
	__asm__ volatile("movzbq 0x20000010, %%r12\n\tnop\n\tnop\n\tnop\n\t"
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
	static const char *const by_args[] = {
		"miss", "round", "grows", "fixed", "unmap"
	};
	int after = !!strstr(mode, "-after");
	pthread_t t;
	size_t k;

	remap = !strncmp(mode, "remap", 5);
	for (k = 0; k < sizeof(by_args) / sizeof(by_args[0]); k++)
		if (!strncmp(mode, by_args[k], strlen(by_args[k])) &&
		    !strcmp(mode + strlen(by_args[k]), "-after"))
			how = by_args[k];
	/* A memfd page holding 0x77 (fixed, unmap). */
	sevens = memfd_create("sevens", 0);
	if (sevens < 0 || ftruncate(sevens, 4096) ||
	    pwrite(sevens, "\x77", 1, 0) != 1)
		return 1;
	page = mmap((void *)(PAGE - 4096), 3 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE |
		    (!strcmp(how, "grows") ? MAP_GROWSDOWN : 0), -1, 0);
	if (page != (void *)(PAGE - 4096))
		return 1;
	/* munmap bound now (lazy binding): the other thread's call then
	 * passes its arguments in registers, not through the resolver's
	 * frame (whose size is read from read-only data).
	 */
	munmap((void *)(PAGE + 0x100000), 4096);
	page += 4096;
	page[0] = 0x66;
	page[16] = 0x66;
	mprotect(page - 4096, 3 * 4096, PROT_READ);
	if (!strcmp(mode, "fd-after")) {
		fd_case();
		return 0;
	}
	if (!strncmp(mode, "brkfile", 7)) {
		int exe = open("/proc/self/exe", O_RDONLY);

		return exe < 0 || brk_case(mode, exe);
	}
	if (!strcmp(mode, "wprot-after") || !strcmp(mode, "wprotok-after")) {
		/* The address through a pipe: the engine knows neither
		 * call's range, only its protection (an immediate).
		 */
		unsigned char *rw = (unsigned char *)(PAGE + 0x100000);
		uintptr_t a = mode[5] == 'o' ? (uintptr_t)rw : PAGE;
		int pfd[2];

		if (mmap(rw, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0) != rw || pipe(pfd) ||
		    write(pfd[1], &a, sizeof(a)) != sizeof(a))
			return 1;
		load();
		if (read(pfd[0], &a, sizeof(a)) != sizeof(a))
			return 1;
		mprotect((void *)a, 4096, PROT_RW);
		((volatile unsigned char *)a)[0] = 0x77;
		if (mode[5] != 'o')
			mprotect((void *)a, 4096, PROT_READ);
		return 0;
	}
	if (!strcmp(mode, "own-after") || !strcmp(mode, "ownmiss-after")) {
		/* at a constant address too: its range is known */
		unsigned char *rw = (unsigned char *)(PAGE + 0x100000);

		if (mmap(rw, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0) != rw)
			return 1;
		load();
		if (mode[3] == 'm') {
			mprotect((void *)(PAGE + 0x100000), 4096, PROT_READ);
			mprotect((void *)(PAGE + 0x100000), 4096, PROT_RW);
			rw[0] = 1;
		} else {
			mprotect((void *)PAGE, 4096, PROT_RW);
			((volatile unsigned char *)PAGE)[0] = 0x77;
			mprotect((void *)PAGE, 4096, PROT_READ);
		}
		return 0;
	}
	pthread_create(&t, NULL, other, after ? (void *)1 : NULL);
	if (after) {
		if (!strcmp(how, "round"))
			load16();
		else
			load();
		go = 1;
	}
	while (!done)
		sched_yield();
	if (!after)
		load();
	return 0;
}
