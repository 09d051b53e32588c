// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_fd.c: a write-family system call writes no
 * memory only when its descriptor named another file at the end and no
 * system call from it to the end (in its window and every later one) may
 * have closed or replaced that descriptor; otherwise a pwrite64 writes its
 * range and anything else is a barrier.  And the rseq areas: inside one,
 * or anywhere without a complete list.
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
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
