// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_why.c's retrace of the memory search
 * (rcv_why_mem_stop(), what `ptrec values --why` names for a load): it
 * must stop where the engine's own search (rcv_mem.c, rcv_mem_byte())
 * stops, or it blames the wrong instruction.  Here the exit-save rule
 * (w->ek, rcv_callee.c's kept_to(): the slot of a push never popped that
 * nothing wrote up to a position), which takes the stores of unknown
 * address between the push and that position as not writing the slot.
 * A window of a few decoded instructions over a fake snapshot page
 * (rcv_winfix.h); the engine's answer is asked beside each retrace.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_winfix.h"

TestSuite(rcv_why, .init = setup, .fini = teardown);

#define SLOT	(PAGE + 0x200)	/* the 8 bytes push %rbx writes */

static struct rcv_ekeep ek[1];

/*
 * A window of @n instructions ending at the snapshot, whose first is
 * push %rbx with rsp SLOT + 8 (SLOT after it); rbx and every other
 * register unknown; SLOT's 8 bytes at the end 0x1122334455667788.
 */
static void win_of(const struct rcv_ins *in, size_t n)
{
	uint64_t v = 0x1122334455667788ull;
	size_t k;

	win_fix(in, n, WINFIX_SNAP);
	memcpy(rc.page_buf + (SLOT - PAGE), &v, 8);
	for (k = 0; k <= n; k++)
		st[k].r[RP_REG_RSP] = val(k ? SLOT : SLOT + 8);
}

/* The exit-save rule's slot of the push at 0, kept up to @to (0: none,
 * as in strict mode, or where rcv_callee.c shows nothing).
 */
static void kept_to(uint32_t to)
{
	ek[0] = (struct rcv_ekeep){ 0, to };
	w.ek = to ? ek : NULL;
	w.nek = to ? 1 : 0;
	rc.mb_gen++;	/* the engine's memos: a new world */
	cr_assert_eq(rcv_build_index(&w), 0);
}

/* The engine's answer for SLOT's first byte before @i, and the retrace. */
static bool known(size_t i, struct rcv_why_stop *s)
{
	uint8_t b = 0;
	bool k = rcv_mem_byte(&w, i, SLOT, &b);

	rcv_why_mem_stop(&rc, &w, i, SLOT, s);
	cr_assert(!k || b == 0x88);
	return k;
}

/*
 * push %rbx; mov %rax,(%rcx); mov %rax,(%rdx); nop: the slot asked for
 * after the push, forward to the snapshot.  Kept up to the second store:
 * the engine goes past the first (the rule) and stops at the second,
 * which the retrace must name, not the first.
 */
Test(rcv_why, exitsave_forward)
{
	struct rcv_ins in[4] = { INS("\x53"), INS("\x48\x89\x01"),
				 INS("\x48\x89\x02"), INS("\x90") };
	struct rcv_why_stop s;

	win_of(in, 4);
	kept_to(0);
	cr_assert_not(known(1, &s));
	cr_assert(s.kind == RP_WHYM_STORE_ADDR && s.at && s.q == 1,
		  "no rule: the first store (%u at %zu)", s.kind, s.q);
	cr_assert_not(s.ek);
	cr_assert(known(3, &s), "after the last store: the snapshot's");

	kept_to(2);
	cr_assert_not(known(1, &s));
	cr_assert(s.kind == RP_WHYM_STORE_ADDR && s.at && s.q == 2,
		  "past the first store by the rule (%u at %zu)", s.kind,
		  s.q);
	cr_assert(s.ek && s.ek_at == 0 && s.ek_to == 2);

	/* Kept to the end: the engine reads the snapshot, and the retrace
	 * reaches it too (no instruction named).
	 */
	kept_to(4);
	cr_assert(known(1, &s));
	cr_assert(!s.at && s.ek && s.ek_to == 4);
	cr_assert(known(3, &s));
	cr_assert(!s.at && !s.ek, "after the stores: no rule needed");
}

/*
 * push %rbx; mov %rax,(%rcx); mov %rax,(%rdx); mov %rsi,(%r8) with r8 the
 * slot: asked between the two stores of unknown address, the forward
 * search ends at the second (no rule) or, past it by the rule, at the
 * store into the slot, and the backward one goes past the first store by
 * the rule to the push of rbx, whose value is not
 * known: store-unknown-value at the push (then rbx is followed), not the
 * store of unknown address before.
 */
Test(rcv_why, exitsave_backward)
{
	struct rcv_ins in[4] = { INS("\x53"), INS("\x48\x89\x01"),
				 INS("\x48\x89\x02"), INS("\x49\x89\x30") };
	struct rcv_why_stop s;

	win_of(in, 4);
	st[3].r[RP_REG_R8] = val(SLOT);
	kept_to(0);
	cr_assert_not(known(2, &s));
	cr_assert(s.kind == RP_WHYM_STORE_ADDR && s.at && s.q == 2,
		  "no rule: forward to the second store (%u at %zu)",
		  s.kind, s.q);

	kept_to(3);
	cr_assert_not(known(2, &s));
	cr_assert(s.kind == RP_WHYM_STORE_VAL && s.at && s.q == 0,
		  "by the rule: the push (%u at %zu)", s.kind, s.q);
	cr_assert(s.ek && s.ek_at == 0 && s.ek_to == 3);

	/* rbx known at the push: the engine knows the slot from it (the
	 * store the retrace names is the one that shows it).
	 */
	st[0].r[RP_REG_RBX] = val(0x0102030405060788ull);
	kept_to(3);
	cr_assert(known(2, &s));
	kept_to(0);
	cr_assert_not(known(2, &s));
}

/*
 * Memory other threads may write (the process has threads and the slot
 * is not its stack's): the engine knows it only at the load, unless the
 * rule keeps the slot to the end, the thread's own from the push (no
 * address that may reach it escaped).
 */
Test(rcv_why, exitsave_shared)
{
	struct rcv_ins in[3] = { INS("\x53"), INS("\x48\x89\x01"),
				 INS("\x90") };
	struct rcv_why_stop s;

	win_of(in, 3);
	rc.mt = true;
	rc.xthr_off = true;	/* no other thread's stores placed */
	kept_to(0);
	cr_assert_not(known(2, &s));
	cr_assert(s.kind == RP_WHYM_SHARED && s.at && s.q == 2 && !s.ek,
		  "shared: the load itself (%u at %zu)", s.kind, s.q);

	kept_to(2);	/* not to the end: still another thread's */
	cr_assert_not(known(2, &s));
	cr_assert(s.kind == RP_WHYM_SHARED && !s.ek);

	kept_to(3);
	cr_assert(known(2, &s));
	cr_assert(!s.at && s.ek && s.ek_to == 3);
	cr_assert(known(1, &s), "past the store of unknown address");
	cr_assert(!s.at && s.ek);
}
