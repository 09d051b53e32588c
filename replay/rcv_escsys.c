// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The escape analysis's system calls (rcv_escape.c): may a system call
 * show another thread an address in the caller's stack?  The kernel
 * keeps some of what a call hands it and gives it back to any thread:
 * a pointer (a futex's waiter aside, which the waker must know first),
 * but also a plain value (lseek's offset, pwrite64's offset as the
 * file's size, prlimit64's limits, an OFD lock's range, a window size:
 * tests/values/review7.c llseek, lpwoff, lrlimit, lofdlk, lwinsz).  So
 * each call known here says, argument by argument, what it does with
 * it (docs/values.md, "Threads and the stack"); anything not listed
 * keeps its arguments; clone gives the child every register.  A taint
 * here is rcv_esc.t[]: 0 clean, 1 surely an own-stack pointer, else
 * maybe.
 */
#include <string.h>

#include "rcv_esc.h"

/*
 * One character per argument (rdi, rsi, rdx, r10, r8, r9; past the
 * string: not read by the call):
 *   'c'  a value the kernel keeps, or that selects what it changes or
 *        whom it tells (a descriptor, a count, an offset, flags, a
 *        pid): must be clean;
 *   'v'  a value that only bounds what the call copies to the caller
 *        or reads (pread64's count and offset): any taint;
 *   'r'  a pointer the kernel reads at the call and keeps nothing of
 *        (a path looked up, a timeout): any taint;
 *   'w'  a pointer the kernel writes at the call: not through an
 *        address that may be derived from a stack pointer but is not
 *        surely one (where it writes would show its bits: as a store);
 *   'K'  a pointer to @size bytes the kernel copies in and keeps
 *        (limits, a lock, a mask, a handler): they must hold no
 *        stack-derived value, nor may the pointer be a maybe-pointer;
 *   'k'  the same, of a length not known here (write's buffer, a path
 *        kept as a file name): a stack buffer may hold one when any
 *        slot may.
 */
struct esc_sys {
	uint16_t nr;
	uint8_t size;
	const char *use;
};

static const struct esc_sys sys_use[] = {
	{ 0, 0, "cwc" },	/* read: the count moves the offset */
	{ 1, 0, "ckc" },	/* write: the bytes, the count */
	{ 2, 0, "kcc" },	/* open: the path may become a name */
	{ 3, 0, "c" },		/* close */
	{ 4, 0, "rw" },		/* stat */
	{ 5, 0, "cw" },		/* fstat */
	{ 6, 0, "rw" },		/* lstat */
	{ 8, 0, "ccc" },	/* lseek: the offset is kept */
	{ 10, 0, "ccc" },	/* mprotect: the range, in /proc/self/maps */
	{ 12, 0, "c" },		/* brk */
	{ 13, 32, "cKwc" },	/* rt_sigaction: the handler, flags, mask */
	{ 14, 8, "cKwc" },	/* rt_sigprocmask: the mask, in /proc */
	{ 17, 0, "cwvv" },	/* pread64: the offset is not the file's */
	{ 18, 0, "ckcc" },	/* pwrite64: the offset, as the size */
	{ 21, 0, "rc" },	/* access */
	{ 22, 0, "w" },		/* pipe */
	{ 24, 0, "" },		/* sched_yield */
	{ 28, 0, "ccc" },	/* madvise: in /proc/self/maps */
	{ 35, 0, "rw" },	/* nanosleep */
	{ 39, 0, "" },		/* getpid */
	{ 60, 0, "c" },		/* exit: the status */
	{ 62, 0, "cc" },	/* kill */
	{ 63, 0, "w" },		/* uname */
	{ 79, 0, "wv" },	/* getcwd */
	{ 89, 0, "rwv" },	/* readlink */
	{ 97, 0, "cw" },	/* getrlimit */
	{ 99, 0, "w" },		/* sysinfo */
	{ 110, 0, "" },		/* getppid */
	{ 186, 0, "" },		/* gettid */
	{ 200, 0, "cc" },	/* tkill */
	/* futex: the word (a waiter keeps it, but the waker must know it
	 * first; PI operations write it), the operation, val (compared,
	 * or a number of waiters), the timeout (or a number of waiters),
	 * the second word (written by FUTEX_WAKE_OP), val3 (a bitset a
	 * waiter keeps, FUTEX_WAKE_OP's operand).
	 */
	{ 202, 0, "wcvrwc" },
	{ 204, 0, "cvw" },	/* sched_getaffinity */
	{ 217, 0, "cwc" },	/* getdents64: the count moves the offset */
	{ 228, 0, "cw" },	/* clock_gettime */
	{ 229, 0, "cw" },	/* clock_getres */
	{ 230, 0, "ccrw" },	/* clock_nanosleep */
	{ 231, 0, "c" },	/* exit_group: the status */
	{ 234, 0, "ccc" },	/* tgkill */
	{ 257, 0, "ckcc" },	/* openat */
	{ 262, 0, "crwc" },	/* newfstatat */
	{ 269, 0, "crc" },	/* faccessat */
	{ 293, 0, "wc" },	/* pipe2 */
	{ 302, 16, "ccKw" },	/* prlimit64: the new limits are kept */
	{ 318, 0, "wvc" },	/* getrandom */
	{ 332, 0, "crccw" },	/* statx */
};

/*
 * ioctl by its request (rsi, when the code shows it): the terminal's and
 * FIONREAD/FIONBIO/FIOCLEX; any other may keep its argument
 * (userfaultfd's UFFDIO_REGISTER keeps a range whose faults another
 * thread then handles: tests/values/review5.c uffdstack).  The TCSETS*
 * and TIOCS* requests keep the struct they copy in.
 */
static const struct esc_sys ioctl_use[] = {
	{ 0x5401, 0, "ccw" },	/* TCGETS */
	{ 0x5402, 36, "ccK" }, { 0x5403, 36, "ccK" },
	{ 0x5404, 36, "ccK" },	/* TCSETS, TCSETSW, TCSETSF */
	{ 0x540f, 0, "ccw" },	/* TIOCGPGRP */
	{ 0x5410, 4, "ccK" },	/* TIOCSPGRP */
	{ 0x5413, 0, "ccw" },	/* TIOCGWINSZ */
	{ 0x5414, 8, "ccK" },	/* TIOCSWINSZ */
	{ 0x541b, 0, "ccw" },	/* FIONREAD */
	{ 0x5421, 4, "ccK" },	/* FIONBIO: kept as a flag */
	{ 0x5450, 0, "cc" }, { 0x5451, 0, "cc" },	/* FIONCLEX, FIOCLEX */
};

/* fcntl by its command (rsi, when shown): locks take a struct flock. */
static const struct esc_sys fcntl_use[] = {
	{ 1, 0, "cc" }, { 3, 0, "cc" },	/* F_GETFD, F_GETFL */
	{ 5, 0, "ccw" }, { 36, 0, "ccw" },	/* F_GETLK, F_OFD_GETLK */
	{ 6, 32, "ccK" }, { 7, 32, "ccK" },	/* F_SETLK, F_SETLKW */
	{ 37, 32, "ccK" }, { 38, 32, "ccK" },	/* F_OFD_SETLK(W) */
};

static const struct esc_sys *find(const struct esc_sys *t, size_t n,
				  uint64_t key)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (t[k].nr == key)
			return &t[k];
	return NULL;
}

/* The call's use of its arguments, NULL: it may keep any of them. */
static const struct esc_sys *sys_use_of(const struct rcv_esc *e)
{
	static const struct esc_sys fcntl_any = { 72, 0, "ccc" };
	uint64_t nr = e->rax;

	if (nr == 16)
		return e->rsi_k ? find(ioctl_use, sizeof(ioctl_use) /
				       sizeof(ioctl_use[0]), e->rsi) : NULL;
	if (nr == 72) {
		const struct esc_sys *f = e->rsi_k ?
			find(fcntl_use, sizeof(fcntl_use) /
			     sizeof(fcntl_use[0]), e->rsi) : NULL;

		return f ? f : &fcntl_any;
	}
	return find(sys_use, sizeof(sys_use) / sizeof(sys_use[0]), nr);
}

/* May the bytes at register @g hold a stack-derived value (@size 0: a
 * length not known)?
 */
static bool buf_tainted(const struct rcv_esc *e, int g, unsigned int size)
{
	struct rcv_op o = { .type = RCV_OP_MEM, .base = g, .index = -1 };

	if (e->t[g] == CLEAN)
		return false;	/* not the stack: none before the escape */
	if (size)
		return rcv_esc_load(e, &o, size) != CLEAN;
	return e->t[g] == STK || e->t[g] == WHOLE ? rcv_esc_any_slot(e) :
						    true;
}

/* Does the call, using its arguments as @u says, keep a stack-derived one? */
static bool args_kept(const struct rcv_esc *e, const struct esc_sys *u)
{
	static const int args[] = { RP_REG_RDI, RP_REG_RSI, RP_REG_RDX,
				    RP_REG_R10, RP_REG_R8, RP_REG_R9 };
	size_t k, n = strlen(u->use);

	for (k = 0; k < n && k < 6; k++) {
		int g = args[k];

		switch (u->use[k]) {
		case 'c':
			if (e->t[g] != CLEAN)
				return true;
			break;
		case 'w':
			if (e->t[g] == MAYBE)
				return true;
			break;
		case 'K':
			if (buf_tainted(e, g, u->size))
				return true;
			break;
		case 'k':
			if (buf_tainted(e, g, 0))
				return true;
			break;
		default:	/* 'r', 'v' */
			break;
		}
	}
	return false;
}

bool rcv_esc_syscall(const struct rcv_esc *e)
{
	static const struct esc_sys keeps_all = { 0, 0, "cccccc" };
	const struct esc_sys *u;
	bool any = false;
	uint64_t nr = e->rax;
	int g;

	for (g = 0; g < 16; g++)
		if (g != RP_REG_RSP && g != RP_REG_RAX && g != RP_REG_RCX &&
		    g != RP_REG_R11)
			any |= e->t[g] != 0;
	/* clone, clone3, vfork, or a number not known: the child starts
	 * with every general-purpose register (and maybe this stack; its
	 * vector registers are taken as not used as pointers, docs).
	 */
	if (!e->rax_k || nr == 56 || nr == 435 || nr == 58)
		return any || e->t[RP_REG_RSP] != 1;	/* not STK */
	if (nr == 57)	/* fork: memory of its own */
		return false;
	/* Any other call not listed (mmap and munmap among them: a
	 * MAP_FIXED file page, maybe shared, in a stack page's place;
	 * another thread's mmap may get an unmapped one) may keep any
	 * argument: every one must be clean.
	 */
	u = sys_use_of(e);
	if (!u)
		u = &keeps_all;
	return args_kept(e, u);
}
