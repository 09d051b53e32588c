// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_extent.c and rcv_alias.c's stos_refutes(): the
 * range an xsave or a string store may write, from the states, and what a
 * rep stos of unknown destination did not write; above all, where no
 * range holds (direction or count not known, 32-bit addresses, xsaves, no
 * XSAVE size) and where the run may lie over the byte.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_winfix.h"

TestSuite(rcv_extent, .init = setup, .fini = teardown);

#define RDI	0x10100ull

static bool ext(size_t b, uint64_t *lo, uint64_t *len)
{
	return rcv_extent(&w, b, lo, len);
}

static void df(size_t i, bool down)
{
	st[i].r[RCV_FLAGS] = (struct rcv_val){ down ? F_DF : 0, F_DF };
}

/* rep stosq: rcx elements from rdi, up or down; none with rcx 0. */
Test(rcv_extent, rep_stos)
{
	struct rcv_ins in[2] = { INS("\xf3\x48\xab"), INS("\x90") };
	uint64_t lo, len;

	win_fix(in, 2, 0);
	set(0, RP_REG_RDI, RDI);
	set(0, RP_REG_RCX, 4);
	cr_assert_not(ext(0, &lo, &len), "direction not known");
	df(0, false);
	cr_assert(ext(0, &lo, &len));
	cr_assert(lo == RDI && len == 32);
	df(0, true);
	cr_assert(ext(0, &lo, &len));
	cr_assert(lo == RDI - 24 && len == 32, "down: [rdi - 24, rdi + 8)");
	cr_assert(rcv_extent_refuted(&w, 0, RDI + 8));
	cr_assert_not(rcv_extent_refuted(&w, 0, RDI + 7));
	cr_assert_not(rcv_extent_refuted(&w, 0, RDI - 24));
	cr_assert(rcv_extent_refuted(&w, 0, RDI - 25));
	st[0].r[RP_REG_RCX] = unknown;
	cr_assert_not(ext(0, &lo, &len), "count not known");
	/* rcx 0: no iteration, whatever rdi and DF. */
	set(0, RP_REG_RCX, 0);
	st[0].r[RP_REG_RDI] = unknown;
	st[0].r[RCV_FLAGS] = unknown;
	cr_assert(ext(0, &lo, &len));
	cr_assert_eq(len, 0);
	cr_assert(rcv_extent_refuted(&w, 0, RDI));
	set(0, RP_REG_RCX, 1);
	df(0, false);
	cr_assert_not(ext(0, &lo, &len), "rdi not known");
}

/* 32-bit addresses (edi, ecx): no range. */
Test(rcv_extent, a32)
{
	struct rcv_ins in[2] = { INS("\x67\xf3\x48\xab"), INS("\x90") };
	uint64_t lo, len;

	win_fix(in, 2, 0);
	set(0, RP_REG_RDI, RDI);
	set(0, RP_REG_RCX, 4);
	df(0, false);
	cr_assert_not(ext(0, &lo, &len));
}

/* xsavec 0x40(%rsp), fxsave (%rax), xsaves (%rax). */
Test(rcv_extent, xsave)
{
	struct rcv_ins in[4] = { INS("\x0f\xc7\x64\x24\x40"),
				 INS("\x0f\xae\x00"), INS("\x0f\xc7\x28"),
				 INS("\x90") };
	uint64_t lo, len;

	win_fix(in, 4, 0);
	set(0, RP_REG_RSP, 0x20000);
	rc.xsz_done = true;	/* no snapshot: no size */
	cr_assert_not(ext(0, &lo, &len));
	rc.xsz = 2688;
	cr_assert(ext(0, &lo, &len));
	cr_assert(lo == 0x20040 && len == 2688);
	cr_assert(rcv_extent_refuted(&w, 0, 0x20040 + 2688));
	cr_assert_not(rcv_extent_refuted(&w, 0, 0x20040 + 2687));
	cr_assert(rcv_extent_refuted(&w, 0, 0x2003f));
	st[0].r[RP_REG_RSP] = unknown;
	cr_assert_not(ext(0, &lo, &len), "base not known");
	set(1, RP_REG_RAX, 0x30000);
	cr_assert(ext(1, &lo, &len));
	cr_assert(lo == 0x30000 && len == 512);
	set(2, RP_REG_RAX, 0x30000);
	cr_assert_not(ext(2, &lo, &len), "xsaves: not modelled");
}

/* The end's bytes [a, a + n) all @v. */
static void end_fill(uint64_t a, uint8_t v, size_t n)
{
	memset(rc.page_buf + (a - PAGE), v, n);
}

static bool refuted(size_t b, uint64_t a)
{
	rc.mb_gen++;
	cr_assert_eq(rcv_build_index(&w), 0);
	return rcv_alias_refuted(&w, b, a);
}

/* rep stosb of 0xaa, rcx 8, rdi not known. */
Test(rcv_extent, stos_unknown_rdi)
{
	struct rcv_ins in[2] = { INS("\xf3\xaa"), INS("\x90") };
	uint64_t a = PAGE + 0x400;

	win_fix(in, 2, WINFIX_SNAP);
	set(0, RP_REG_RAX, 0xaa);
	set(0, RP_REG_RCX, 8);
	df(0, false);
	end_fill(PAGE, 0, 4096);
	cr_assert(refuted(0, a), "a ends 00: no byte of the run");
	end_fill(a - 3, 0xaa, 7);	/* [a - 3, a + 4): 7 bytes */
	cr_assert(refuted(0, a), "no run of 8 fits in 7");
	end_fill(a - 3, 0xaa, 8);	/* 8 bytes: one run fits */
	cr_assert_not(refuted(0, a));
	set(0, RP_REG_RCX, 9);
	cr_assert(refuted(0, a), "nor a run of 9 in 8");
	st[0].r[RP_REG_RCX] = unknown;
	cr_assert_not(refuted(0, a), "length not known");
	set(0, RP_REG_RCX, 9);
	st[0].r[RP_REG_RAX] = unknown;
	cr_assert_not(refuted(0, a), "value not known");
	set(0, RP_REG_RAX, 0xaa);
	/* The history's last instruction: it may have stopped inside. */
	win_fix(in, 1, WINFIX_SNAP);
	set(0, RP_REG_RAX, 0xaa);
	set(0, RP_REG_RCX, 9);
	df(0, false);
	cr_assert_not(refuted(0, a));
}
