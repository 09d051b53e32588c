// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_fd.c: a write-family system call writes no
 * memory only when its descriptor named another file at the end and no
 * system call from it to the end (in its window and every later one) may
 * have closed or replaced that descriptor; otherwise a pwrite64 writes its
 * range and anything else is a barrier.  With snapshot 4's inodes, a
 * write to a descriptor whose file is mapped writes that mapping's bytes.
 * And the rseq areas: inside one, or anywhere without a complete list.
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_win.h"

#define N 6
static struct rcv_state st[N + 1], st2[N + 1];
static struct rcv_ins ins[N], ins2[N];
static struct rp_recover rc;
static struct win w, later;

static void set(struct rcv_state *s, int g, uint64_t v)
{
	s->r[g] = (struct rcv_val){ v, ~0ull };
}

/* Instruction @i of @x is a system call @nr with @rdi, @rsi. */
static void sc(struct win *x, size_t i, uint64_t nr, uint64_t rdi,
	       uint64_t rsi)
{
	x->ins[i].flags |= RCV_I_SYSCALL;
	set(&x->st[i], RP_REG_RAX, nr);
	set(&x->st[i], RP_REG_RDI, rdi);
	set(&x->st[i], RP_REG_RSI, rsi);
}

static void setup(void)
{
	memset(st, 0, sizeof(st));
	memset(st2, 0, sizeof(st2));
	memset(ins, 0, sizeof(ins));
	memset(ins2, 0, sizeof(ins2));
	memset(&rc, 0, sizeof(rc));
	w = (struct win){ .st = st, .ins = ins, .n = N, .rc = &rc,
			  .top_end = true };
	later = (struct win){ .st = st2, .ins = ins2, .n = N, .rc = &rc,
			      .top_end = true };
	/* the snapshot: 0-2 other files (or closed), 3 the memory file */
	rc.fd_known = true;
	rc.fd_safe = 7;
}

TestSuite(rcv_fd, .init = setup);

static int wr(size_t i)
{
	uint64_t a, l;

	rcv_fd_closers(&w);
	return rcv_sys_write(&w, i, &a, &l);
}

Test(rcv_fd, stdout_write_is_harmless)
{
	sc(&w, 0, 1, 1, 0x1000);
	cr_assert_eq(wr(0), 0, "write(1): a pipe at the end, never closed");
	sc(&w, 0, 20, 2, 0x1000);
	cr_assert_eq(wr(0), 0, "writev(2)");
	/* an int: the upper half of rdi is not the kernel's */
	w.st[0].r[RP_REG_RDI] = (struct rcv_val){ 0xdead00000001ull,
						  0xffffffffull };
	cr_assert_eq(wr(0), 0, "fd from edi alone");
	w.st[0].r[RP_REG_RDI].k = 0xffff;
	cr_assert_eq(wr(0), -1, "fd not known");
}

Test(rcv_fd, memory_file)
{
	uint64_t a = 0, l = 0;

	sc(&w, 0, 1, 3, 0x1000);
	cr_assert_eq(wr(0), -1, "write to the memory file: offset unknown");
	sc(&w, 0, 18, 3, 0x1000);
	set(&w.st[0], RP_REG_RDX, 8);
	set(&w.st[0], RP_REG_R10, 0x404040);
	rcv_fd_closers(&w);
	cr_assert_eq(rcv_sys_write(&w, 0, &a, &l), 1, "pwrite64: its range");
	cr_assert(a == 0x404040 && l == 8);
	set(&w.st[0], RP_REG_RDX, 0);
	cr_assert_eq(rcv_sys_write(&w, 0, &a, &l), 0, "no bytes");
	set(&w.st[0], RP_REG_RDX, 1 << 20);
	cr_assert_eq(rcv_sys_write(&w, 0, &a, &l), -1, "too long: a barrier");
	sc(&w, 0, 1, 64, 0x1000);
	cr_assert_eq(wr(0), -1, "descriptors from 64 on are not followed");
	rc.fd_known = false;
	sc(&w, 0, 1, 1, 0x1000);
	cr_assert_eq(wr(0), -1, "no list, or another thread shares them");
}

Test(rcv_fd, closed_or_replaced_after)
{
	sc(&w, 0, 1, 1, 0x1000);
	sc(&w, 2, 33, 4, 1);		/* dup2(4, 1) */
	sc(&w, 4, 1, 1, 0x1000);
	cr_assert_eq(wr(0), -1, "dup2 onto it later: it may have been mem");
	cr_assert_eq(wr(4), 0, "after the dup2: the end's file");
	sc(&w, 2, 33, 1, 2);		/* dup2(1, 2): 2 replaced, not 1 */
	cr_assert_eq(wr(0), 0);
	sc(&w, 2, 3, 1, 0);		/* close(1) */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 292, 5, 1);		/* dup3(5, 1, 0) */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 436, 0, ~0u);		/* close_range(0, ~0U) */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 436, 2, 9);		/* close_range(2, 9) */
	cr_assert_eq(wr(0), 0);
	sc(&w, 2, 3, 1, 0);
	w.st[2].r[RP_REG_RDI].k = 0;	/* close(?) */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 426, 0, 0);		/* io_uring_enter */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 59, 0, 0);		/* execve */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 0x100000003ull, 1, 0);	/* close by eax */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 3, 1, 0);
	w.st[2].r[RP_REG_RAX].k = 0;	/* a number not known */
	cr_assert_eq(wr(0), -1);
	sc(&w, 2, 0, 1, 0x1000);	/* read(1): closes nothing */
	cr_assert_eq(wr(0), 0);
}

Test(rcv_fd, later_windows)
{
	sc(&w, 0, 1, 1, 0x1000);
	w.top_end = false;
	cr_assert_eq(wr(0), -1, "no window after it: not known to the end");
	w.later = &later;
	cr_assert_eq(wr(0), -1, "its closers not computed yet");
	rcv_fd_closers(&later);
	cr_assert_eq(wr(0), 0);
	sc(&later, 5, 3, 1, 0);		/* close(1) in the later window */
	rcv_fd_closers(&later);
	cr_assert_eq(wr(0), -1);
	sc(&later, 5, 3, 2, 0);
	rcv_fd_closers(&later);
	cr_assert_eq(wr(0), 0);
	later.top_end = false;
	cr_assert_eq(wr(0), -1, "the chain does not reach the end");
}

Test(rcv_fd, rseq_areas)
{
	uint64_t v[2][2] = { { 0x1000, 0x1020 }, { 0x5000, 0x5040 } };

	rc.rseq = v;
	rc.nrseq = 2;
	cr_assert(!rcv_fd_rseq(&rc, 0xfff));
	cr_assert(rcv_fd_rseq(&rc, 0x1000));
	cr_assert(rcv_fd_rseq(&rc, 0x101f));
	cr_assert(!rcv_fd_rseq(&rc, 0x1020));
	cr_assert(rcv_fd_rseq(&rc, 0x503f));
	cr_assert(!rcv_fd_rseq(&rc, 0x6000));
	rc.rseq_any = true;
	cr_assert(rcv_fd_rseq(&rc, 0x6000), "no complete list: anywhere");
	rc.rseq = NULL;
}

/*
 * A descriptor not known (a FILE's, loaded from memory), or one from 64
 * on: harmless only when no descriptor at the end names a memory file
 * and nothing from the call to the end may have closed any.
 */
Test(rcv_fd, descriptor_not_known)
{
	sc(&w, 0, 1, 1, 0x1000);
	w.st[0].r[RP_REG_RDI].k = 0;
	cr_assert_eq(wr(0), -1, "descriptor 3 names the memory file");
	rc.fd_all_safe = true;
	cr_assert_eq(wr(0), 0, "no memory file open, nothing closed");
	sc(&w, 0, 1, 100, 0x1000);
	cr_assert_eq(wr(0), 0, "descriptor 100, nothing closed");
	sc(&w, 3, 3, 100, 0);		/* close(100) */
	cr_assert_eq(wr(0), -1, "descriptor 100 closed after it");
	sc(&w, 3, 3, 7, 0);		/* close(7) */
	cr_assert_eq(wr(0), -1, "any descriptor closed after it");
	w.st[0].r[RP_REG_RDI].k = 0;
	cr_assert_eq(wr(0), -1);
	sc(&w, 3, 39, 7, 0);		/* getpid */
	cr_assert_eq(wr(0), 0);
	w.top_end = false;
	w.later = &later;
	rcv_fd_closers(&later);
	cr_assert_eq(wr(0), 0);
	sc(&later, 0, 33, 9, 70);	/* dup2(9, 70) in the later window */
	rcv_fd_closers(&later);
	cr_assert_eq(wr(0), -1);
}

/* int 0x80 and sysenter are system calls of another table (int 0x80's
 * close is 6): either after the write may have closed its descriptor.
 */
Test(rcv_fd, int80_may_close)
{
	sc(&w, 0, 1, 1, 0x1000);
	w.ins[3].id = X86_INS_INT;
	cr_assert_eq(wr(0), -1, "int after it");
	w.ins[3].id = X86_INS_SYSENTER;
	cr_assert_eq(wr(0), -1, "sysenter after it");
	w.ins[3].id = X86_INS_NOP;
	cr_assert_eq(wr(0), 0);
}

/*
 * Snapshot 4 (docs/values.md "Files"): descriptor 4 names the file of
 * inode 77, mapped at [0x20000000, 0x20002000) from file offset 0x1000
 * and again at [0x30000000, 0x30001000) from 0; inode 88 is mapped but
 * named by no descriptor.  A write to 4 writes those mappings' bytes:
 * a pwrite64's range where it shows in them, else all of them (their
 * hull, a barrier past 64 KiB); to a file mapped nowhere, none.
 */
static uint64_t fmap[3][5] = {
	{ 0x20000000, 0x20002000, 0x1000, 77, 1 },
	{ 0x30000000, 0x30001000, 0, 77, 1 },
	{ 0x40000000, 0x40001000, 0, 88, 0 },
};

static void files(void)
{
	rc.fd_ids = true;
	rc.fmap = fmap;
	rc.nfmap = 2;
	rc.fd_file = 1u << 4;
	rc.fd_ino[4] = 77;
	rc.fd_any_file = true;
}

static int pw(uint64_t fd, uint64_t off, uint64_t cnt, uint64_t *a,
	      uint64_t *l)
{
	sc(&w, 0, 18, fd, 0x1000);
	set(&w.st[0], RP_REG_RDX, cnt);
	set(&w.st[0], RP_REG_R10, off);
	rcv_fd_closers(&w);
	return rcv_sys_write(&w, 0, a, l);
}

Test(rcv_fd, mapped_file_written)
{
	uint64_t a = 0, l = 0;

	files();
	cr_assert_eq(pw(4, 0x1800, 8, &a, &l), 1, "pwrite64 into the first");
	cr_assert(a == 0x20000800 && l == 8, "0x%lx +%lu", a, l);
	/* [0x1000 - 8, +16): 8 bytes at the end of the second mapping
	 * (0x30000ff8) and 8 at the start of the first; their hull is 256
	 * MiB: a barrier
	 */
	cr_assert_eq(pw(4, 0xff8, 16, &a, &l), -1, "across both");
	rc.nfmap = 1;
	cr_assert_eq(pw(4, 0xff8, 16, &a, &l), 1, "the first alone");
	cr_assert(a == 0x20000000 && l == 8, "0x%lx +%lu", a, l);
	cr_assert_eq(pw(4, 0x3000, 8, &a, &l), 0, "past the mapping");
	cr_assert_eq(pw(4, 0x800, 8, &a, &l), 0, "before it");
	cr_assert_eq(pw(4, 0x1000, 0, &a, &l), 0, "no bytes");
	sc(&w, 0, 1, 4, 0x1000);	/* write(4): offset not known */
	cr_assert_eq(wr(0), 1);
	rcv_sys_write(&w, 0, &a, &l);
	cr_assert(a == 0x20000000 && l == 0x2000, "0x%lx +%lx", a, l);
	rc.nfmap = 2;
	cr_assert_eq(wr(0), -1, "both mappings: 256 MiB apart, a barrier");
	sc(&w, 0, 1, 1, 0x1000);
	cr_assert_eq(wr(0), 0, "stdout: no mapped file");
	sc(&w, 0, 1, 4, 0x1000);
	sc(&w, 2, 3, 4, 0);		/* close(4) after it */
	cr_assert_eq(wr(0), -1, "closed since: not known");
}

Test(rcv_fd, mapped_file_descriptor_not_known)
{
	uint64_t a = 0, l = 0;

	files();
	rc.nfmap = 1;
	rc.fd_all_safe = true;
	sc(&w, 0, 1, 1, 0x1000);
	w.st[0].r[RP_REG_RDI].k = 0;
	cr_assert_eq(wr(0), 1, "any descriptor at the end: 4's file");
	rcv_sys_write(&w, 0, &a, &l);
	cr_assert(a == 0x20000000 && l == 0x2000, "0x%lx +%lx", a, l);
	rc.nfmap = 3;
	fmap[1][4] = 0;			/* the second not named */
	cr_assert_eq(wr(0), 1, "88's mapping is named by none");
	rcv_sys_write(&w, 0, &a, &l);
	cr_assert(a == 0x20000000 && l == 0x2000, "0x%lx +%lx", a, l);
	fmap[1][4] = 1;
	rc.fd_any_file = false;
	cr_assert_eq(wr(0), 0, "no descriptor names a mapped file");
}

/* A descriptor not known to the end (closed since) may be a mapped file:
 * with inodes known, a pwrite64 on it is a barrier, not the range at
 * its offset (only a memory file's offset is an address).
 */
Test(rcv_fd, pwrite_descriptor_closed_since)
{
	uint64_t a = 0, l = 0;

	files();
	sc(&w, 2, 3, 1, 0);		/* close(1) after it */
	cr_assert_eq(pw(1, 0x404040, 8, &a, &l), -1);
	rc.fd_ids = false;		/* snapshot 3: as before */
	cr_assert_eq(pw(1, 0x404040, 8, &a, &l), 1);
	cr_assert(a == 0x404040 && l == 8);
}

/*
 * The closers from the system calls the index lists (sys_at) and the int
 * and sysenter listed once (rcv_fd_closers() without a scan of every
 * instruction): the last closer of each descriptor, of any, and of any
 * at all, in the instructions' order, as the scan of every instruction
 * finds them.
 */
static size_t sys_at[N];

static void list_sys(struct win *x)
{
	size_t i;

	x->nsys = 0;
	for (i = 0; i < x->n; i++)
		if (x->ins[i].flags & RCV_I_SYSCALL)
			sys_at[x->nsys++] = i;
	x->sys_at = sys_at;
	x->sys_listed = true;
}

Test(rcv_fd, listed_closers_in_order)
{
	sc(&w, 1, 3, 3, 0);		/* close(3) */
	w.ins[2].id = X86_INS_INT;	/* may close any */
	sc(&w, 4, 3, 4, 0);		/* close(4), after the int */
	list_sys(&w);
	rcv_fd_closers(&w);
	cr_assert_eq(w.fdcl[3], 1);
	cr_assert_eq(w.fdcl[4], 4);
	cr_assert_eq(w.fdcl[RCV_FD_TRACKED], 2, "the int closes any");
	cr_assert_eq(w.fdcl_all, 4, "the last closer is the close(4)");
	free(w.fd_int);
}

Test(rcv_fd, listed_closers_as_a_scan)
{
	static const uint64_t nrs[] = { 3, 33, 436, 1, 0, 60 };
	int64_t fdcl[RCV_FD_TRACKED + 1], all;
	unsigned int seed = 7;
	int round;
	size_t i;

	for (round = 0; round < 500; round++) {
		setup();
		for (i = 0; i < N; i++) {
			unsigned int r = rand_r(&seed);

			switch (r % 5) {
			case 0: case 1:
				sc(&w, i, nrs[r / 5 % 6], r / 31 % 6,
				   r / 181 % 6);
				if (r / 1087 % 4 == 0)	/* number not known */
					w.st[i].r[RP_REG_RAX].k = 0;
				break;
			case 2:
				w.ins[i].id = r / 5 % 2 ? X86_INS_INT :
							   X86_INS_SYSENTER;
				break;
			default:
				w.ins[i].id = X86_INS_NOP;
			}
		}
		rcv_fd_closers(&w);		/* not listed: the scan */
		memcpy(fdcl, w.fdcl, sizeof(fdcl));
		all = w.fdcl_all;
		list_sys(&w);
		rcv_fd_closers(&w);
		cr_assert(w.fd_int_listed);
		cr_assert_arr_eq(w.fdcl, fdcl, sizeof(fdcl), "round %d",
				 round);
		cr_assert_eq(w.fdcl_all, all, "round %d", round);
		/* Listed once: asked again, the same. */
		rcv_fd_closers(&w);
		cr_assert_arr_eq(w.fdcl, fdcl, sizeof(fdcl));
		free(w.fd_int);
	}
}
