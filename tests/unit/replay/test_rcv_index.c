// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the access index kept during a pass (replay/rcv_index.c,
 * rcv_index_touch): when a state changes, the index must be exactly what
 * rcv_build_index() would make from the states then (entries, barriers,
 * nb/pb), so that a store whose address becomes known answers the loads
 * after it in the same sweep (#17, gdbloop's 40-pass window), and never
 * anything a rebuild would not.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_winfix.h"

TestSuite(rcv_index, .init = setup, .fini = teardown);

/* A window of @n instructions, no snapshot, states unknown. */
static void win_of(const struct rcv_ins *in, size_t n)
{
	win_fix(in, n, WINFIX_IXS);
}

/* The index kept by rcv_index_touch() after state @s changed equals a
 * rebuild's from the same flags (a build clears a system call's barrier
 * flag once its number is known, and its barrier follows the flag the
 * build found: one build behind, as main's whole rebuilds were).
 */
static void touch_equals_rebuild(size_t s)
{
	struct ent idx[64];
	uint8_t mb[MAXI + 1], ix[MAXI + 1];
	uint32_t n1[MAXI + 1];
	int64_t p1[MAXI + 1];
	uint8_t fl[MAXI + 1], kfl[MAXI + 1];
	size_t ni, k;

	for (k = 0; k < w.n; k++)
		fl[k] = code[k].flags;
	cr_assert_eq(rcv_index_touch(&w, s), 0);
	for (k = 0; k < w.n; k++) {
		kfl[k] = code[k].flags;
		code[k].flags = fl[k];
	}
	ni = w.nidx;
	cr_assert_leq(ni, 64);
	if (ni)	/* no entries: w.idx may be NULL */
		memcpy(idx, w.idx, ni * sizeof(*idx));
	memcpy(mb, mbar, sizeof(mb));
	memcpy(ix, ixs, sizeof(ix));
	memcpy(n1, nb, sizeof(n1));
	memcpy(p1, pb, sizeof(p1));
	cr_assert_eq(rcv_build_index(&w), 0);
	cr_assert_eq(ni, w.nidx, "entries %zu kept, %zu rebuilt", ni, w.nidx);
	/* Field by field: an entry's padding is no part of it. */
	for (k = 0; k < ni; k++)
		cr_assert(idx[k].word == w.idx[k].word &&
			  idx[k].pos == w.idx[k].pos, "entry %zu", k);
	cr_assert_eq(memcmp(mb, mbar, w.n), 0, "barriers");
	for (k = 0; k < w.n; k++)
		cr_assert_eq(kfl[k], code[k].flags, "flags of %zu", k);
	cr_assert_eq(memcmp(ix, ixs, w.n), 0);
	cr_assert_eq(memcmp(n1, nb, (w.n + 1) * sizeof(*nb)), 0, "nb");
	cr_assert_eq(memcmp(p1, pb, (w.n + 1) * sizeof(*pb)), 0, "pb");
}

static bool byte_at(size_t i, uint64_t a, uint8_t *out)
{
	return rcv_mem_byte(&w, i, a, out);
}

/*
 * mov %rax,(%rcx); mov %rdi,(%r8); nop; mov (%rdx),%rsi: the first
 * store's address becomes known (a barrier lifted, its entry sorted in),
 * then the second's; the load after them is answered by the first store
 * only once nothing between may have written its bytes.
 */
Test(rcv_index, store_learned_in_pass)
{
	struct rcv_ins in[4] = { INS("\x48\x89\x01"), INS("\x49\x89\x38"),
				 INS("\x90"), INS("\x48\x8b\x32") };
	uint64_t a = 0x7000, b = 0x9000;
	uint8_t v;

	win_of(in, 4);
	set(0, RP_REG_RAX, 0x1122334455667788ull);
	set(1, RP_REG_RDI, 0xaabbccddeeff0011ull);
	set(3, RP_REG_RDX, a);
	set(1, RP_REG_R8, b);
	cr_assert_eq(rcv_build_index(&w), 0);
	cr_assert(mbar[0] && !mbar[1], "the first store a barrier");
	cr_assert(ixs[0] & RCV_IX_OPEN);
	cr_assert_not(byte_at(3, a, &v), "a barrier between");
	/* Its address learned during the sweep. */
	set(0, RP_REG_RCX, a);
	touch_equals_rebuild(0);
	cr_assert_not(mbar[0]);
	cr_assert_not(ixs[0] & RCV_IX_OPEN);
	cr_assert(byte_at(3, a, &v) && v == 0x88, "the store answers");
	cr_assert(byte_at(3, a + 7, &v) && v == 0x11);
	/* The second store elsewhere: no effect on a. */
	cr_assert(byte_at(3, b + 1, &v) && v == 0x00);
	/* Unknown address in between: a barrier again for a rebuild too. */
	st[1].r[RP_REG_R8] = unknown;
	cr_assert_eq(rcv_build_index(&w), 0);
	cr_assert(mbar[1]);
	cr_assert_not(byte_at(3, a, &v));
	set(1, RP_REG_R8, a);	/* it wrote a itself */
	touch_equals_rebuild(1);
	touch_equals_rebuild(2);
	cr_assert(byte_at(3, a, &v) && v == 0x11, "the later store");
}

/* A state whose instructions know all their addresses already, and one
 * at the window's end: nothing changes.
 */
Test(rcv_index, nothing_open)
{
	struct rcv_ins in[2] = { INS("\x48\x89\x01"), INS("\x90") };

	win_of(in, 2);
	set(0, RP_REG_RCX, 0x7000);
	cr_assert_eq(rcv_build_index(&w), 0);
	touch_equals_rebuild(0);
	touch_equals_rebuild(1);
	touch_equals_rebuild(2);
	cr_assert_eq(w.nidx, 1);
}

/*
 * rcv_index_touch() looks at the instruction a changed state comes
 * before, not the one it comes after: an address is the state before's
 * (rcv_rw.c).  mov %rax,(%rcx) with rcx known only after it stays a
 * barrier, for the kept index and a rebuild alike.
 */
Test(rcv_index, post_only)
{
	struct rcv_ins in[2] = { INS("\x48\x89\x01"), INS("\x90") };

	win_of(in, 2);
	cr_assert_eq(rcv_build_index(&w), 0);
	cr_assert(mbar[0] && (ixs[0] & RCV_IX_OPEN));
	set(1, RP_REG_RCX, 0x7000);
	touch_equals_rebuild(1);
	cr_assert(mbar[0], "the address is not known before it");
	set(0, RP_REG_RCX, 0x7000);
	touch_equals_rebuild(0);
	cr_assert_not(mbar[0]);
	cr_assert_eq(w.nidx, 1);
}

/*
 * A system call's part of the index (its barrier, what it writes, protc)
 * depends on the calls' states: a change next to one makes the calls'
 * parts again (rebuild_sys()), and the index kept must be a rebuild's,
 * whether the call's part changed (its number and buffer learned:
 * read(2)'s 16 bytes put in, its barrier flag cleared, its barrier one
 * build later) or not (a state after it that changes nothing of it: the
 * index left as it was).  mov %rax,(%rcx); syscall; mov (%rdx),%rsi.
 */
Test(rcv_index, syscall_part)
{
	struct rcv_ins in[3] = { INS("\x48\x89\x01"), INS("\x0f\x05"),
				 INS("\x48\x8b\x32") };
	uint8_t v;

	win_of(in, 3);
	cr_assert(code[1].flags & RCV_I_SYSCALL);
	set(0, RP_REG_RCX, 0x7000);
	set(2, RP_REG_RDX, 0x5000);
	cr_assert_eq(rcv_build_index(&w), 0);
	cr_assert(mbar[1], "a call of unknown number is a barrier");
	cr_assert_eq(w.protc, 1);
	cr_assert_eq(w.nidx, 2);
	/* read(0, 0x5000, 16) learned in a sweep. */
	set(1, RP_REG_RAX, 0);
	set(1, RP_REG_RDI, 0);
	set(1, RP_REG_RSI, 0x5000);
	set(1, RP_REG_RDX, 16);
	touch_equals_rebuild(1);
	cr_assert_not(code[1].flags & RCV_I_BARRIER);
	cr_assert_eq(w.protc, -1, "read(2) keeps the mappings");
	cr_assert_eq(w.nidx, 4, "the store, the call's 2 words, the load");
	cr_assert(mbar[1], "its barrier follows the flag found");
	/* A state after it: the barrier follows the cleared flag now. */
	set(2, RP_REG_RCX, 0x1234);
	touch_equals_rebuild(2);
	cr_assert_not(mbar[1]);
	cr_assert_eq(w.nidx, 4);
	cr_assert_not(byte_at(2, 0x5000, &v), "the kernel wrote it");
	cr_assert(byte_at(2, 0x7003, &v) == false, "rax not known");
	/* Another that changes nothing of its part: the index as it was. */
	set(2, RP_REG_RBX, 1);
	touch_equals_rebuild(2);
	cr_assert_not(mbar[1]);
	cr_assert_eq(w.protc, -1);
	cr_assert_eq(w.nidx, 4);
	free(w.sys_at);
	free(w.sys_part);
}
