// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's rules for system calls (issue #17,
 * docs/values.md): which write no user memory and which keep the
 * mappings, by number and arguments, and the user memory each one
 * writes.  They are a table of Linux x86-64 facts that grows with every
 * call the test programs make, apart from the memory questions that use
 * them (rcv_mem.c), which is why they have a file of their own (rcv_mem.c
 * had grown past 1,000 lines).  What crosses is declared in rcv_win.h
 * and rcv_internal.h; descriptor-dependent writes are rcv_fd.c's, those
 * the memory a call is given decides rcv_sysmem.c's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

#include "rcv_root.h"
#include "rcv_win.h"

/*
 * Syscalls that write no user memory and leave all but rax/rcx/r11,
 * whatever their arguments.  Not ftruncate, truncate, nor open, openat,
 * openat2 with O_TRUNC: truncation unmaps a file's pages past the new
 * size from every mapping, even a private mapping's copies the process
 * wrote (truncate_pagecache, even_cows), and the next load reads the
 * file's new page (tests/values/review4.c trunc, truncro, truncu,
 * otruncu); sys_open_quiet() lets open and openat without it pass.  Not
 * munmap: a fault may later grow a MAP_GROWSDOWN mapping over the range
 * with zero pages, no system call (review4.c grow): rcv_sys_write()
 * gives it as a write of its pages, values unknown.
 */
bool rcv_sys_quiet(uint64_t nr)
{
	switch (nr) {
	/* not write, pwrite64, writev: to /proc/PID/mem they write memory
	 * (rcv_fd.c decides by the descriptor)
	 */
	case 3: case 8: case 10: case 24: case 39:
	case 60: case 62: case 186: case 200: case 231: case 234:
	case 110:	/* getppid */
	case 102: case 104: case 107: case 108:	/* get[e]uid/gid */
	case 21: case 269:	/* access, faccessat */
	case 218: case 273:	/* set_tid_address, set_robust_list */
	case 32: case 33: case 292:	/* dup, dup2, dup3 */
	case 74: case 75:	/* fsync, fdatasync */
	case 80: case 81: case 82: case 83: case 84: case 87:
		/* chdir, fchdir, rename, mkdir, rmdir, unlink */
	case 95: case 109: case 111: case 112:	/* umask, setpgid... */
	case 34: case 37: case 140:	/* pause, alarm, getpriority */
	case 203:	/* sched_setaffinity: reads its mask */
	case 436:		/* close_range */
		return true;
	default:
		return false;
	}
}

/*
 * Syscalls after which no register is known (the kernel sets them all):
 * rt_sigreturn, execve, execveat.  Linux takes the number from eax alone
 * (rax's upper half is ignored: 0x10000000f is rt_sigreturn,
 * tests/values/holes.c sigret), and an x32 call (0x40000000) may be x32's
 * rt_sigreturn or execve: with either, any.
 */
bool rcv_sys_resets(uint64_t nr)
{
	return (nr >> 32) || (nr & 0x40000000) || nr == 15 || nr == 59 ||
	       nr == 322;
}

/*
 * Does system call @i of @w leave every existing mapping, its protection
 * and its contents alone (other than through the buffers it writes,
 * which fail on read-only pages)?  An allow-list: those the table of
 * rcv_sys_write() knows, but mprotect and munmap (a later mmap may reuse
 * the range); brk that does not shrink the heap (sys_brk_keeps()) and
 * mmap without MAP_FIXED (it only adds mappings where none are).
 * Anything else may (madvise(MADV_DONTNEED) zeroes or refetches pages,
 * remap_file_pages, process_madvise, mremap, execve...).
 */
static bool sys_user_buffer(const struct rcv_state *s, uint64_t nr);

/*
 * The program break before brk @i of @w: the result (rax after it) of
 * the last brk before it in the window, whose number and result are
 * known, with no system call of unknown number, execve or prctl
 * (PR_SET_MM_BRK sets the break) between them and no other task sharing
 * the memory (its brk moves the same break).
 */
static bool sys_brk_before(struct win *w, size_t i, uint64_t *old)
{
	const struct rcv_state *s;
	size_t j;

	if (w->rc->mt)
		return false;
	for (j = i; j-- > 0;) {
		if (!(w->ins[j].flags & RCV_I_SYSCALL))
			continue;
		s = &w->st[j];
		if (s->r[RP_REG_RAX].k != ~0ull ||
		    rcv_sys_resets(s->r[RP_REG_RAX].v) ||
		    s->r[RP_REG_RAX].v == 157)	/* PR_SET_MM_BRK */
			return false;
		if (s->r[RP_REG_RAX].v != 12)
			continue;
		s = &w->st[j + 1];
		if (s->r[RP_REG_RAX].k != ~0ull)
			return false;
		*old = s->r[RP_REG_RAX].v;
		return true;
	}
	return false;
}

/*
 * Does no call after system call @i of @w, to the thread's end, make a
 * mapping (or move one, or change a protection)?  Then a range @i
 * unmapped stays unmapped, or is anonymous and writable (a brk grow), at
 * the end, and no page the snapshot shows read-only was in it.  Each
 * call's number must be known and none may be mmap, mprotect, brk,
 * mremap, shmat, remap_file_pages, pkey_mprotect, arch_prctl (it maps
 * the vDSO), clone, vfork, clone3 or reset the registers (execve), and
 * no other task may share the memory (its calls are not here).
 */
static bool sys_maps_none_after(struct win *w, size_t i)
{
	const struct rcv_state *s;
	size_t j;

	if (w->rc->mt || !w->top_end)
		return false;
	for (j = i + 1; j < w->n; j++) {
		if (!(w->ins[j].flags & RCV_I_SYSCALL))
			continue;
		s = &w->st[j];
		if (s->r[RP_REG_RAX].k != ~0ull ||
		    rcv_sys_resets(s->r[RP_REG_RAX].v))
			return false;
		switch (s->r[RP_REG_RAX].v) {
		case 9: case 10: case 12: case 25: case 30: case 216:
		case 329: case 158: case 56: case 58: case 435:
			return false;
		default:
			break;
		}
	}
	return true;
}

/*
 * brk(addr) @i: a query (addr 0) or a move up (a grow, or a failure)
 * keeps every mapping; a shrink unmaps [PAGE_ALIGN(addr),
 * PAGE_ALIGN(old break)), whatever is mapped there (a MAP_FIXED mapping
 * over the heap too: tests/values/review6.c brkfix), so it keeps the
 * mappings the read-only rule answers for when none of the snapshot's
 * read-only ones is in that range.  addr or the old break not known (as
 * in glibc's sbrk): it may change any page, unless nothing after it maps
 * anything again (sys_maps_none_after()).
 */
static bool sys_brk_keeps(struct win *w, size_t i)
{
	const struct rcv_state *s = &w->st[i];
	uint64_t a = s->r[RP_REG_RDI].v, old, lo, hi;

	if (s->r[RP_REG_RDI].k == ~0ull && !a)
		return true;
	if (s->r[RP_REG_RDI].k != ~0ull || !sys_brk_before(w, i, &old) ||
	    old > UINT64_MAX - 4095)
		return sys_maps_none_after(w, i);
	if (a >= old)
		return true;
	lo = (a + 4095) & ~4095ull;
	hi = (old + 4095) & ~4095ull;
	return lo >= hi || !rcv_order_ro_in(w->rc, lo, hi) ||
	       sys_maps_none_after(w, i);
}

/*
 * A brk whose breaks are not known changes only pages the heap's
 * mappings covered (rcv_root.c); not in strict mode, where what ran
 * before the recording is not taken as given.
 */
static int sys_brk_hull(struct win *w, uint64_t *addr, uint64_t *len)
{
	uint64_t lo, hi;

	if (w->rc->strict || !rcv_root_range(w->rc, &lo, &hi) ||
	    hi - lo > (1u << 20))
		return -1;
	*addr = lo;
	*len = hi - lo;
	return 1;
}

/*
 * What brk @i writes (Linux mm/mmap.c's brk; man 2 brk): it returns the
 * break after it (the one asked for, or the old on failure); a grow maps
 * new anonymous pages over [PAGE_ALIGN(old), PAGE_ALIGN(new)) (the bytes
 * of the old break's page past it keep theirs: no zeroing), a shrink
 * unmaps [PAGE_ALIGN(new), PAGE_ALIGN(old)).  No other byte changes.
 * brk(0) asks (0 is under every break's minimum: nothing changes).  With
 * the break before it (sys_brk_before()) and its result known: that
 * range, 0 when empty; a result equal to the old break after a shrink
 * asked for (or an argument not known) is a failure that may have
 * unmapped part of it first: the range asked for, or not known.  A range
 * past 1 MiB is not known (the index holds a word per 8 bytes).  Either
 * break not known: the hull of the heap's pages (sys_brk_hull()).
 */
static int sys_brk_writes(struct win *w, size_t i, uint64_t *addr,
			  uint64_t *len)
{
	const struct rcv_state *s = &w->st[i];
	const struct rcv_val *res = &w->st[i + 1].r[RP_REG_RAX];
	uint64_t old, nw, lo, hi;

	if (s->r[RP_REG_RDI].k == ~0ull && !s->r[RP_REG_RDI].v)
		return 0;
	if (w->ins[i].id != X86_INS_SYSCALL)
		return -1;
	if (res->k != ~0ull || !sys_brk_before(w, i, &old))
		return sys_brk_hull(w, addr, len);
	nw = res->v;
	if (nw == old) {
		if (s->r[RP_REG_RDI].k != ~0ull)
			return -1;
		if (s->r[RP_REG_RDI].v >= old)
			return 0;	/* a grow that failed, or none */
		nw = s->r[RP_REG_RDI].v;
	}
	if (old > UINT64_MAX - 4095 || nw > UINT64_MAX - 4095)
		return -1;
	lo = ((old < nw ? old : nw) + 4095) & ~4095ull;
	hi = ((old < nw ? nw : old) + 4095) & ~4095ull;
	if (hi - lo > (1u << 20))
		return -1;
	*addr = lo;
	*len = hi - lo;
	return *len ? 1 : 0;
}

/*
 * mmap with MAP_FIXED, mprotect, munmap, madvise whose arguments name a
 * range (rcv_order_effect()) in which the snapshot maps nothing read-
 * only: the pages the read-only rule answers for (rcv_mem.c ro_mem()) are
 * outside it (glibc's malloc trimming a new arena with munmap after a
 * lazy binding read ld.so's read-only data: tests/values/rothreads.c
 * own-after).
 */
static bool sys_misses_ro(struct win *w, size_t i, uint64_t nr)
{
	static const int g[] = { RP_REG_RDI, RP_REG_RSI, RP_REG_RDX,
				 RP_REG_R10 };
	const struct rcv_state *s = &w->st[i];
	struct rp_regs r = { 0 };
	uint64_t lo, hi;
	size_t k;
	int e;

	for (k = 0; k < sizeof(g) / sizeof(g[0]); k++)
		if (s->r[g[k]].k == ~0ull) {
			r.val[g[k]] = s->r[g[k]].v;
			r.valid |= 1ull << g[k];
		}
	e = rcv_order_effect(nr, &r, &lo, &hi);
	return !e || (e > 0 && !rcv_order_ro_in(w->rc, lo, hi));
}

/*
 * mprotect whose protection is known to ask for PROT_WRITE (rdx bit 1),
 * whatever its range: it changes no contents and no mapping, and any
 * page it did change is writable after it.  A page the snapshot shows
 * not writable was then changed by no such call after a state s when
 * every other call after s leaves protections alone (or misses the page
 * by its range): nothing after it could have taken PROT_WRITE away again.
 * So it was not writable from s on, and no store, no buffer a call wrote
 * nor a mapping changed it (the read-only rule, rcv_mem.c ro_mem(); a
 * protection without PROT_WRITE may end a writable window opened before:
 * tests/values/rothreads.c wprot-after).  pthread_create's mprotect of a
 * new stack, whose range comes from its mmap's result.
 */
bool rcv_sys_prot_write(uint64_t nr, const struct rcv_val *rdx)
{
	return nr == 10 && (rdx->k & 2) && (rdx->v & 2);
}

bool rcv_sys_keeps_maps(struct win *w, size_t i)
{
	const struct rcv_state *s = &w->st[i];
	uint64_t nr = s->r[RP_REG_RAX].v, a, l;

	if (s->r[RP_REG_RAX].k != ~0ull)
		return false;
	if (rcv_fd_family(nr))	/* to a memory file: read-only pages too */
		return rcv_fd_write(w, i, &a, &l) == 0;
	switch (nr) {
	case 12:	/* brk */
		return sys_brk_keeps(w, i);
	case 9:		/* mmap: flags in r10; MAP_FIXED 0x10 */
		return ((s->r[RP_REG_R10].k & 0x10) &&
			!(s->r[RP_REG_R10].v & 0x10)) ||
		       sys_misses_ro(w, i, nr);
	case 10:
		return rcv_sys_prot_write(nr, &s->r[RP_REG_RDX]) ||
		       sys_misses_ro(w, i, nr);
	case 11: case 28:
		return sys_misses_ro(w, i, nr);
	default:
		return rcv_sys_write(w, i, &a, &l) >= 0 ||
		       sys_user_buffer(s, nr) ||
		       !rcv_order_effect(nr, NULL, &a, &l);
	}
}

bool rcv_sys_maps_file(uint64_t nr, const struct rcv_val *r10)
{
	if (rcv_sys_resets(nr))
		return true;
	switch (nr) {
	case 9:		/* mmap, but MAP_ANONYMOUS (0x20) */
		return !((r10->k & 0x20) && (r10->v & 0x20));
	case 25: case 30: case 216:	/* mremap, shmat, remap_file_pages */
		return true;
	default:
		return false;
	}
}

/*
 * Does no system call of @w from instruction @j on, nor of the windows
 * after it, to the thread's end, map a file (each one's number known)?
 */
static bool sys_no_file_after(const struct win *w, size_t j)
{
	const struct rcv_state *s;
	size_t k;

	for (; w; w = w->later, j = 0) {
		if ((!w->later && !w->top_end) || !w->sys_listed)
			return false;
		for (k = 0; k < w->nsys; k++) {
			if (w->sys_at[k] < j)
				continue;
			s = &w->st[w->sys_at[k]];
			if (s->r[RP_REG_RAX].k != ~0ull ||
			    rcv_sys_maps_file(s->r[RP_REG_RAX].v,
					      &s->r[RP_REG_R10]))
				return false;
		}
	}
	return true;
}

bool rcv_sys_brk_keeps_file(const struct win *l, size_t p)
{
	return sys_no_file_after(l, p + 1) &&
	       (!l->rc->mt || l->first + p >= rcv_order_files(l->rc));
}

/*
 * A brk (any arguments) changes no contents and no protection: it unmaps
 * the pages between a new break and the old (a shrink), or maps new
 * anonymous ones where nothing was (a grow), or nothing.  A page the
 * snapshot shows mapped from a file (and not writable: the read-only
 * rule's) that one unmapped could only be there at the end if a later
 * call mapped a file there again; with none after it, of this thread or
 * of any other task (rcv_order_files()), it did not touch the page
 * (glibc's sbrk: `brk(__curbrk + n)`, the break loaded from memory, which
 * cut the read-only rule for ld.so's data before the demo's first
 * malloc; tests/values/rothreads.c brkfile-after).  Every other call
 * after state @i of @w that may change a mapping must be such a brk
 * (w->protf: the last that is not).
 */
bool rcv_sys_keeps_file(struct win *w, uint64_t i)
{
	const struct win *l;
	size_t j, k, p;

	for (l = w, j = (size_t)i; l; l = l->later, j = 0) {
		if ((!l->later && !l->top_end) || l->protf >= (int64_t)j)
			return false;
		if (l->protc < (int64_t)j)
			continue;
		if (!l->sys_listed)
			return false;
		for (k = 0; k < l->nsys; k++) {
			p = l->sys_at[k];
			if (p < j || !l->sys_part[k].prot)
				continue;
			if (!rcv_sys_brk_keeps_file(l, p))
				return false;
		}
	}
	return true;
}

/*
 * The user memory system call @i writes, by its number and arguments
 * (Linux x86-64): 1 when it writes [*addr, *addr + *len) alone, 0 when it
 * writes none, -1 when not known (a barrier).
 */
static const struct {
	uint16_t nr;
	int8_t ptr, lenreg;	/* argument registers (enum rp_reg), -1 */
	uint16_t len;		/* fixed size when lenreg < 0 */
	bool optional;		/* a NULL pointer writes nothing */
} sys_out[] = {
	{ 0, RP_REG_RSI, RP_REG_RDX, 0, false },	/* read */
	{ 17, RP_REG_RSI, RP_REG_RDX, 0, false },	/* pread64 */
	{ 4, RP_REG_RSI, -1, 144, false },		/* stat */
	{ 5, RP_REG_RSI, -1, 144, false },		/* fstat */
	{ 6, RP_REG_RSI, -1, 144, false },		/* lstat */
	{ 262, RP_REG_RDX, -1, 144, false },		/* newfstatat */
	{ 228, RP_REG_RSI, -1, 16, false },		/* clock_gettime */
	{ 318, RP_REG_RDI, RP_REG_RSI, 0, false },	/* getrandom */
	{ 14, RP_REG_RDX, -1, 128, true },		/* rt_sigprocmask */
	{ 13, RP_REG_RDX, -1, 160, true },		/* rt_sigaction */
	{ 35, RP_REG_RSI, -1, 16, true },		/* nanosleep */
	{ 97, RP_REG_RSI, -1, 16, false },		/* getrlimit */
	{ 89, RP_REG_RSI, RP_REG_RDX, 0, false },	/* readlink */
	{ 79, RP_REG_RDI, RP_REG_RSI, 0, false },	/* getcwd */
	{ 302, RP_REG_R10, -1, 16, true },		/* prlimit64 */
	{ 63, RP_REG_RDI, -1, 390, false },		/* uname */
	{ 22, RP_REG_RDI, -1, 8, false },		/* pipe */
	{ 293, RP_REG_RDI, -1, 8, false },		/* pipe2 */
	{ 204, RP_REG_RDX, RP_REG_RSI, 0, false },	/* sched_getaff. */
	{ 229, RP_REG_RSI, -1, 16, true },		/* clock_getres */
	{ 99, RP_REG_RDI, -1, 112, false },		/* sysinfo */
	{ 217, RP_REG_RSI, RP_REG_RDX, 0, false },	/* getdents64 */
	{ 332, RP_REG_R8, -1, 256, false },		/* statx */
	{ 38, RP_REG_RDX, -1, 32, true },		/* setitimer */
	/* Review 7 (sysw), sizes from the x86-64 UAPI structs; a call
	 * with several output buffers has a row for each.
	 */
	{ 118, RP_REG_RDI, -1, 4, true },		/* getresuid */
	{ 118, RP_REG_RSI, -1, 4, true },
	{ 118, RP_REG_RDX, -1, 4, true },
	{ 120, RP_REG_RDI, -1, 4, true },		/* getresgid */
	{ 120, RP_REG_RSI, -1, 4, true },
	{ 120, RP_REG_RDX, -1, 4, true },
	{ 201, RP_REG_RDI, -1, 8, true },		/* time */
	{ 36, RP_REG_RSI, -1, 32, true },		/* getitimer */
	{ 127, RP_REG_RDI, RP_REG_RSI, 0, false },	/* rt_sigpending */
	{ 309, RP_REG_RDI, -1, 4, true },		/* getcpu: cpu */
	{ 309, RP_REG_RSI, -1, 4, true },		/* node */
	{ 53, RP_REG_R10, -1, 8, false },		/* socketpair */
	{ 98, RP_REG_RSI, -1, 144, false },		/* getrusage */
	{ 100, RP_REG_RDI, -1, 32, true },		/* times */
	{ 143, RP_REG_RSI, -1, 4, false },		/* sched_getparam */
	{ 96, RP_REG_RDI, -1, 16, true },		/* gettimeofday */
	{ 96, RP_REG_RSI, -1, 8, true },		/* its timezone */
	{ 137, RP_REG_RSI, -1, 120, false },		/* statfs */
	{ 138, RP_REG_RSI, -1, 120, false },		/* fstatfs */
	{ 131, RP_REG_RSI, -1, 24, true },		/* sigaltstack: old */
	{ 274, RP_REG_RSI, -1, 8, true },		/* get_robust_list */
	{ 274, RP_REG_RDX, -1, 8, true },		/* its length */
	{ 148, RP_REG_RSI, -1, 16, false },		/* sched_rr_get_int. */
	{ 239, RP_REG_RDI, -1, 4, true },		/* get_mempolicy */
	/* Review 9 (sysw).  timer_create: the kernel's timer_t is an int
	 * (include/uapi/asm-generic/posix_types.h __kernel_timer_t).
	 */
	{ 222, RP_REG_RDX, -1, 4, false },		/* timer_create */
	{ 267, RP_REG_RDX, RP_REG_R10, 0, false },	/* readlinkat */
	/* sched_getattr(pid, attr, size, flags): min(size, the kernel's
	 * struct sched_attr) bytes (sched_attr_copy_to_user()): at most
	 * size.
	 */
	{ 315, RP_REG_RSI, RP_REG_RDX, 0, false },
	{ 128, RP_REG_RSI, -1, 128, true },		/* rt_sigtimedwait */
	{ 61, RP_REG_RSI, -1, 4, true },		/* wait4: status */
	{ 61, RP_REG_R10, -1, 144, true },		/* its rusage */
	/* waitid(idtype, id, infop, options, ru): si_signo, si_errno,
	 * si_code (0-11) and si_pid, si_uid, si_status (16-27) of infop
	 * (kernel/exit.c unsafe_put_user()s; the row's 12 bytes twice, by
	 * sys_writes()), the rusage.
	 */
	{ 247, RP_REG_RDX, -1, 12, true },
	{ 247, RP_REG_R8, -1, 144, true },
	/* Session 14 (kw2).  clock_nanosleep(clock, flags, req, rem): the
	 * time left at rem, only when a signal interrupts it without
	 * TIMER_ABSTIME (kernel/time/hrtimer.c nanosleep_copyout()).
	 */
	{ 230, RP_REG_R10, -1, 16, true },	/* RCV_SYS_MAYBE */
	/* timer_gettime(id, cur), timer_settime(id, flags, new, old),
	 * timerfd_gettime(fd, cur), timerfd_settime(fd, flags, new, old):
	 * struct __kernel_itimerspec (32 bytes)
	 */
	{ 224, RP_REG_RSI, -1, 32, false },
	{ 223, RP_REG_R10, -1, 32, true },
	{ 287, RP_REG_RSI, -1, 32, false },
	{ 286, RP_REG_R10, -1, 32, true },
	/* adjtimex(tx), clock_adjtime(clock, tx): struct __kernel_timex
	 * (208 bytes) copied back whole (kernel/time/time.c)
	 */
	{ 159, RP_REG_RDI, -1, 208, false },
	{ 305, RP_REG_RSI, -1, 208, false },
};

#define SYS_NOUT	(sizeof(sys_out) / sizeof(sys_out[0]))

/* The bytes prctl operation @op writes at its second argument, 0 when
 * not one of these.
 */
static uint64_t sys_prctl_len(uint64_t op)
{
	switch (op) {
	case 16:	/* PR_GET_NAME: TASK_COMM_LEN */
		return 16;
	case 2:		/* PR_GET_PDEATHSIG: an int */
		return 4;
	case 40:	/* PR_GET_TID_ADDRESS: a pointer */
		return 8;
	default:
		return 0;
	}
}

/* The bytes ioctl @s writes at its third argument, 0 when not one of
 * TCGETS (struct termios), FIONREAD (an int), TIOCGWINSZ.
 */
static uint64_t sys_ioctl_len(const struct rcv_state *s)
{
	if (s->r[RP_REG_RSI].k != ~0ull)
		return 0;
	switch (s->r[RP_REG_RSI].v) {
	case 0x5401:
		return 64;
	case 0x541b:
		return 4;
	case 0x5413:
		return 8;
	default:
		return 0;
	}
}

/*
 * Does system call @nr write user memory only through the buffer its
 * arguments name (sys_out, ioctl TCGETS), whatever they are?  The kernel
 * writes it with the user's permissions (copy_to_user): a buffer in a
 * read-only page fails with EFAULT, so even with the buffer's address not
 * known such a call neither writes read-only memory nor changes mappings
 * (sys_keeps_maps(): loops' newfstatat and TCGETS with their stack
 * buffers' addresses unknown cut the read-only rule before them).
 */
static bool sys_user_buffer(const struct rcv_state *s, uint64_t nr)
{
	size_t k;

	if (nr == 16)	/* ioctl TCGETS, FIONREAD, TIOCGWINSZ */
		return sys_ioctl_len(s);
	if (nr == 157)	/* prctl PR_GET_NAME, ... */
		return s->r[RP_REG_RDI].k == ~0ull &&
		       sys_prctl_len(s->r[RP_REG_RDI].v);
	/* mincore, readv, preadv, process_vm_readv, preadv2, poll, select,
	 * capget
	 */
	if (nr == 27 || nr == 19 || nr == 295 || nr == 310 || nr == 327 ||
	    nr == 7 || nr == 23 || nr == 125)
		return true;
	/* ppoll, pselect6, the address-returning socket calls, recvfrom,
	 * getsockopt, epoll_wait, epoll_pwait, epoll_pwait2, recvmsg
	 */
	if (nr == 271 || nr == 270 || nr == 43 || nr == 288 || nr == 51 ||
	    nr == 52 || nr == 45 || nr == 55 || nr == 232 || nr == 281 ||
	    nr == 441 || nr == 47)
		return true;
	for (k = 0; k < SYS_NOUT; k++)
		if (sys_out[k].nr == nr)
			return true;
	return false;
}

/* [register @g, + @l) when @g is known: 1, else -1. */
static int sys_at(const struct rcv_state *s, int g, uint64_t l,
		  uint64_t *addr, uint64_t *len)
{
	if (s->r[g].k != ~0ull)
		return -1;
	*addr = s->r[g].v;
	*len = l;
	return 1;
}

/*
 * System calls whose writes depend on an operation argument: 0 none, 1
 * [*addr, +*len), -1 not known.
 */
static int sys_by_op(const struct rcv_state *s, uint64_t nr, uint64_t *addr,
		     uint64_t *len)
{
	/* the operation: futex(uaddr, op), fcntl(fd, cmd),
	 * arch_prctl(code, addr)
	 */
	int g = nr == 158 ? RP_REG_RDI : RP_REG_RSI;
	uint64_t op = s->r[g].v;

	if (s->r[g].k != ~0ull)
		return -1;
	switch (nr) {
	case 202:	/* futex: wait and wake write no memory */
		switch (op & ~(uint64_t)(128 | 256)) {
		case 0: case 1: case 9: case 10:
			return 0;
		case 5:	/* FUTEX_WAKE_OP: its atomic op on *uaddr2 (r8) */
			return sys_at(s, RP_REG_R8, 4, addr, len);
		default:
			return -1;
		}
	case 158:
		if (op == 0x1001 || op == 0x1002)	/* ARCH_SET_GS/FS */
			return 0;
		/* ARCH_GET_FS/GS */
		if ((op == 0x1003 || op == 0x1004) &&
		    s->r[RP_REG_RSI].k == ~0ull) {
			*addr = s->r[RP_REG_RSI].v;
			*len = 8;
			return 1;
		}
		return -1;
	case 72:	/* F_DUPFD..F_SETFL, F_DUPFD_CLOEXEC */
		if (op <= 4 || op == 1030)
			return 0;
		/* F_GETLK, F_OFD_GETLK: struct flock (32 bytes, the x86-64
		 * UAPI's asm-generic/fcntl.h); F_GETOWN_EX: struct
		 * f_owner_ex (8)
		 */
		if (op == 5 || op == 36)
			return sys_at(s, RP_REG_RDX, 32, addr, len);
		return op == 16 ? sys_at(s, RP_REG_RDX, 8, addr, len) : -1;
	default:
		return -1;
	}
}

/*
 * poll(fds, nfds, timeout): the 2-byte revents (offset 6) of each 8-byte
 * struct pollfd, no other byte (fs/select.c do_sys_poll()); ppoll(fds,
 * nfds, tsp, sigmask, size) the same, and the time left at tsp (struct
 * __kernel_timespec, 16 bytes) where not NULL, unless the timeout was
 * zero or the personality has STICKY_TIMEOUTS (poll_select_finish():
 * RCV_SYS_MAYBE; the mask is only read).  For watchpoints (@wide), more
 * pollfds than @max or nfds not known: from the first revents to the
 * end of the last pollfd nfds may reach, a write that may happen (the
 * bytes between are not written, but are at known addresses: a possible
 * stop, never a write of unknown address).
 * select(n, inp, outp, exp, tvp): each fd set given, FDS_BYTES(n) (n
 * rounded up to 64 bits, as longs; the kernel caps n at its table's
 * size), and the remaining time at tvp (struct __kernel_old_timeval, 16
 * bytes, as ppoll's).  pselect6(n, inp, outp, exp, tsp, sig) the same
 * with a struct __kernel_timespec at tsp (sig's mask is only read).
 * With n not known: each set's first long (n may be 0) and, where n may
 * pass 64, a write of unknown address; for watchpoints (@wide), each
 * set from its base as far as n may reach (n is an int: at most
 * INT_MAX; what the kernel may write), never a write of unknown
 * address.  Into @addr/@len, at most @max: their number, -1 when not
 * known.
 */
static int sys_poll(const struct rcv_state *s, uint64_t nr, uint64_t *addr,
		    uint64_t *len, size_t max, bool wide)
{
	static const int sets[] = { RP_REG_RSI, RP_REG_RDX, RP_REG_R10,
				    RP_REG_R8 };
	uint64_t k, b, n = s->r[RP_REG_RDI].v | ~s->r[RP_REG_RDI].k;
	bool exact = s->r[RP_REG_RDI].k == ~0ull, any = false;
	size_t m = 0;

	if (nr == 7 || nr == 271) {
		/* nfds, an unsigned int, at most */
		n = (s->r[RP_REG_RSI].v | ~s->r[RP_REG_RSI].k) & 0xffffffffu;
		if (s->r[RP_REG_RDI].k != ~0ull ||
		    (nr == 271 && s->r[RP_REG_RDX].k != ~0ull))
			return -1;
		if (s->r[RP_REG_RSI].k == ~0ull && n <= max) {
			for (k = 0; k < n; k++) {
				addr[k] = s->r[RP_REG_RDI].v + 8 * k + 6;
				len[k] = 2;
			}
		} else if (!wide) {
			return -1;
		} else {
			/* more pollfds than ranges, or nfds not known: from
			 * the first revents to the last one's end, may
			 */
			k = 0;
			if (n) {
				addr[k] = s->r[RP_REG_RDI].v + 6;
				len[k++] = (8 * n - 6) | RCV_SYS_MAYBE;
			}
		}
		if (nr == 7 || !s->r[RP_REG_RDX].v)
			return (int)k;
		if (k == max)
			return -1;
		addr[k] = s->r[RP_REG_RDX].v;
		len[k++] = 16 | RCV_SYS_MAYBE;
		return (int)k;
	}
	/* n at most (its bits not known set); a set past 64 KiB as one
	 * not known (the values engine's index: a word per 8 bytes)
	 */
	if (n > 1u << 19)
		exact = false;
	if (wide && !exact && (s->r[RP_REG_RDI].k & 0x80000000u) &&
	    (s->r[RP_REG_RDI].v & 0x80000000u))
		return 0;	/* a negative int: EINVAL */
	if (wide && !exact)
		n = (n & 0xffffffffu) > 0x7fffffffu ? 0x7fffffffu :
						       n & 0xffffffffu;
	for (k = 0; k < 4; k++) {
		if (s->r[sets[k]].k != ~0ull)
			return -1;
		b = k == 3 ? 16 | RCV_SYS_MAYBE :
		    exact ? (n + 63) / 64 * 8 :
		    wide ? (n + 63) / 64 * 8 | RCV_SYS_MAYBE :
			   8 | RCV_SYS_MAYBE;
		if (!s->r[sets[k]].v || !(b & ~RCV_SYS_MAYBE))
			continue;
		if (m == max)
			return -1;
		addr[m] = s->r[sets[k]].v;
		len[m++] = b;
		any |= k < 3 && !exact && !wide && n > 64;
	}
	if (any && m == max)
		return -1;
	if (any) {
		addr[m] = 0;
		len[m++] = RCV_SYS_ANY;
	}
	return (int)m;
}

/*
 * Socket calls that return an address: getsockname(fd, addr, alen),
 * getpeername, accept(fd, addr, alen), accept4: at most a struct
 * sockaddr_storage (128 bytes: move_addr_to_user() copies
 * min(*alen, the address's length)) at addr, and the length (an int) at
 * alen, when addr is not NULL; recvfrom(fd, buf, len, flags, addr,
 * alen): the bytes at buf (as read) and the same at r8, r9.
 * epoll_wait(fd, events, max, ...), epoll_pwait, epoll_pwait2: up to max
 * 12-byte struct epoll_event (packed on x86-64), as many as it returns.
 * Into @addr/@len, at most @max: their number, -1 when not known.
 */
static int sys_sock(const struct rcv_state *s, uint64_t nr, uint64_t *addr,
		    uint64_t *len, size_t max)
{
	int a = nr == 45 ? RP_REG_R8 : RP_REG_RSI;
	int l = nr == 45 ? RP_REG_R9 : RP_REG_RDX;
	size_t n = 0;
	int64_t m;

	if (nr == 232 || nr == 281 || nr == 441) {
		if (s->r[RP_REG_RSI].k != ~0ull || s->r[RP_REG_RDX].k != ~0ull)
			return -1;
		m = (int32_t)s->r[RP_REG_RDX].v;
		if (m <= 0)
			return 0;	/* EINVAL */
		if (m > 65536 / 12)
			return -1;
		*addr = s->r[RP_REG_RSI].v;
		*len = (uint64_t)m * 12 | RCV_SYS_MAYBE;
		return 1;
	}
	if (nr == 45) {
		if (s->r[RP_REG_RSI].k != ~0ull ||
		    s->r[RP_REG_RDX].k != ~0ull || s->r[RP_REG_RDX].v > 65536)
			return -1;
		addr[n] = s->r[RP_REG_RSI].v;
		len[n++] = s->r[RP_REG_RDX].v;
	}
	if (s->r[a].k != ~0ull)
		return -1;
	if (!s->r[a].v)
		return (int)n;
	if (s->r[l].k != ~0ull || n + 2 > max)
		return -1;
	addr[n] = s->r[a].v;
	len[n++] = 128 | RCV_SYS_MAYBE;
	addr[n] = s->r[l].v;
	len[n++] = 4 | RCV_SYS_MAYBE;
	return (int)n;
}

/*
 * open(path, flags) and openat(dirfd, path, flags) with O_TRUNC (01000)
 * known clear: they change no file's bytes (rcv_sys_quiet()).  openat2
 * keeps its flags in memory (struct open_how): never.
 */
static bool sys_open_quiet(const struct rcv_state *s, uint64_t nr)
{
	int g = nr == 2 ? RP_REG_RSI : RP_REG_RDX;

	return (nr == 2 || nr == 257) && (s->r[g].k & 01000) &&
	       !(s->r[g].v & 01000);
}

/*
 * The ranges system call @i writes into @addr/@len (at most @max):
 * their number, -1 when not known.  @iov: read readv's, preadv's and
 * process_vm_readv's iovec arrays where the values know them (only for
 * watchpoints: the values engine's index asks rcv_sys_write() while it
 * builds what rcv_mem_range() reads).
 */
static int sys_writes(struct win *w, size_t i, uint64_t *addr, uint64_t *len,
		      size_t max, bool iov)
{
	const struct rcv_state *s = &w->st[i];
	uint64_t nr = s->r[RP_REG_RAX].v, a, l, v[2 * RCV_SYS_OUTS];
	size_t k, n = 0;
	int e;

	if (s->r[RP_REG_RAX].k != ~0ull || !max)
		return -1;
	if (rcv_fd_family(nr))
		return rcv_fd_write(w, i, addr, len);
	if (rcv_sys_quiet(nr) || sys_open_quiet(s, nr) ||
	    rcv_sig_return_quiet(w->rc, nr))
		return 0;
	/* munmap(addr, len): its whole pages, values unknown after (a
	 * MAP_GROWSDOWN mapping may grow over them); a long range is a
	 * barrier (the index holds a word per 8 bytes).
	 */
	if (nr == 11) {
		if (s->r[RP_REG_RDI].k != ~0ull ||
		    s->r[RP_REG_RSI].k != ~0ull || s->r[RP_REG_RSI].v > 65536)
			return -1;
		*addr = s->r[RP_REG_RDI].v;
		*len = (s->r[RP_REG_RSI].v + 4095) & ~4095ull;
		return *len ? 1 : 0;
	}
	if (nr == 12)
		return sys_brk_writes(w, i, addr, len);
	/* mmap without MAP_FIXED (0x10, flags in r10) maps only where no
	 * page is mapped: it writes no byte the process could access
	 * before it (MAP_FIXED_NOREPLACE fails where one is).
	 */
	if (nr == 9 && (s->r[RP_REG_R10].k & 0x10) &&
	    !(s->r[RP_REG_R10].v & 0x10))
		return 0;
	/* ioctl(fd, TCGETS, termios *), ioctl(fd, FIONREAD, int *),
	 * ioctl(fd, TIOCGWINSZ, struct winsize *) (8 bytes)
	 */
	if (nr == 16 && sys_ioctl_len(s) && s->r[RP_REG_RDX].k == ~0ull) {
		*addr = s->r[RP_REG_RDX].v;
		*len = sys_ioctl_len(s);
		return 1;
	}
	/* prctl(PR_GET_NAME, char[16]), PR_GET_PDEATHSIG (int *),
	 * PR_GET_TID_ADDRESS (int **): kernel/sys.c's put_user()s
	 */
	if (nr == 157 && s->r[RP_REG_RDI].k == ~0ull) {
		l = sys_prctl_len(s->r[RP_REG_RDI].v);
		if (l)
			return sys_at(s, RP_REG_RSI, l, addr, len);
	}
	if (nr == 7 || nr == 23 || nr == 270 || nr == 271)
		return sys_poll(s, nr, addr, len, max, iov);
	if (nr == 43 || nr == 45 || nr == 51 || nr == 52 || nr == 288 ||
	    nr == 232 || nr == 281 || nr == 441)
		return sys_sock(s, nr, addr, len, max);
	if (nr == 56 || nr == 435 || nr == 125 || nr == 55 || nr == 47)
		return iov ? rcv_sys_mem_args(w, i, nr, addr, len, max) : -1;
	/* mincore(start, len, vec): a byte per page of [start, +len) */
	if (nr == 27) {
		if (s->r[RP_REG_RSI].k != ~0ull ||
		    s->r[RP_REG_RDX].k != ~0ull ||
		    s->r[RP_REG_RSI].v > 65536ull * 4096)
			return -1;
		*addr = s->r[RP_REG_RDX].v;
		*len = (s->r[RP_REG_RSI].v + 4095) / 4096;
		return *len ? 1 : 0;
	}
	/* get_mempolicy(int *mode, nodemask, maxnode, ...): the mask is
	 * ALIGN(maxnode - 1, 64) bits; only without one here.
	 */
	if (nr == 239 && (s->r[RP_REG_RSI].k != ~0ull || s->r[RP_REG_RSI].v))
		return -1;
	/* readv, preadv, process_vm_readv, preadv2: each iovec's buffer */
	if (nr == 19 || nr == 295 || nr == 310 || nr == 327) {
		if (!iov || s->r[RP_REG_RSI].k != ~0ull ||
		    s->r[RP_REG_RDX].k != ~0ull ||
		    s->r[RP_REG_RDX].v > RCV_SYS_OUTS ||
		    s->r[RP_REG_RDX].v > max)
			return -1;
		l = s->r[RP_REG_RDX].v;
		if (rcv_mem_range(w, i, s->r[RP_REG_RSI].v, v, 16 * l) !=
		    16 * l)
			return -1;
		for (k = 0; k < l; k++) {
			if (!v[2 * k + 1])
				continue;
			addr[n] = v[2 * k];
			len[n++] = v[2 * k + 1];
		}
		return (int)n;
	}
	if (nr == 202 || nr == 158 || nr == 72)
		return sys_by_op(s, nr, addr, len);
	e = -1;
	for (k = 0; k < SYS_NOUT; k++) {
		if (sys_out[k].nr != nr)
			continue;
		e = 0;
		if (s->r[sys_out[k].ptr].k != ~0ull)
			return -1;
		a = s->r[sys_out[k].ptr].v;
		if (!a && sys_out[k].optional)
			continue;
		if (sys_out[k].lenreg < 0) {
			l = sys_out[k].len;
		} else {
			if (s->r[sys_out[k].lenreg].k != ~0ull ||
			    s->r[sys_out[k].lenreg].v > 65536)
				return -1;
			l = s->r[sys_out[k].lenreg].v;
		}
		if (n == max)
			return -1;
		addr[n] = a;
		len[n++] = l | (nr == 230 ? RCV_SYS_MAYBE : 0);
		if (nr != 247 || sys_out[k].ptr != RP_REG_RDX)
			continue;
		if (n == max)	/* waitid: si_pid, si_uid, si_status */
			return -1;
		addr[n] = a + 16;
		len[n++] = 12;
	}
	return e < 0 ? -1 : (int)n;
}

/*
 * One range: a call that writes several buffers is a barrier to the
 * values engine (its index holds one range per call), which makes every
 * byte unknown after it, as before the table had it.
 */
int rcv_sys_write(struct win *w, size_t i, uint64_t *addr, uint64_t *len)
{
	uint64_t a[RCV_SYS_OUTS], l[RCV_SYS_OUTS];
	int n = sys_writes(w, i, a, l, RCV_SYS_OUTS, false);

	if (n != 1 || l[0] == RCV_SYS_ANY)
		return n >= 1 ? -1 : n;
	*addr = a[0];
	*len = l[0] & ~RCV_SYS_MAYBE;	/* may be left: unknown after too */
	return 1;
}

int rcv_sys_writes(struct win *w, size_t i, uint64_t *addr, uint64_t *len,
		   size_t max)
{
	return sys_writes(w, i, addr, len, max, true);
}
