// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the recovery engine's stack frames with values
 * (replay/rcv_stack.c, rcv_stack_build_v()): a push/pop pair survives a
 * store through a pointer only when the values known show the store's
 * address and the push's slot, and they are apart.  The whole engine
 * against a recorded store into a saved slot through a pointer it knows
 * is tests/values/run.sh ("unsound.c known").
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_stack, .init = setup, .fini = teardown);

/*
 * push rbx; mov [rax], rcx; pop rbx with rsp = 0x7000 before the push
 * (slot 0x6ff8) when @rsp_known, and rax = @rax when @rax_known: the pop's
 * pair (0: the push, -1: none).
 */
static int64_t pair_with(bool rsp_known, bool rax_known, uint64_t rax)
{
	struct rcv_ins in[3] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x08"),		/* mov [rax], rcx */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_state st[4];
	struct rcv_stack_vals sv = { st, NULL, 4 };
	struct rcv_frame f[4];
	int64_t pair[3];
	int k;

	memset(st, 0, sizeof(st));
	for (k = 0; k < 4; k++) {
		st[k].r[RP_REG_RSP] = rsp_known ?
			val(k == 0 || k == 3 ? 0x7000 : 0x6ff8) : unknown;
		st[k].r[RP_REG_RAX] = rax_known ? val(rax) : unknown;
	}
	cr_assert_gt(rcv_stack_build_v(in, 3, &sv, f, pair), 0);
	return pair[2];
}

Test(rcv_stack, store_of_known_address_apart_keeps_the_pair)
{
	cr_assert_eq(pair_with(true, true, 0x601000), 0);
	cr_assert_eq(pair_with(true, true, 0x7000), 0, "just above the slot");
	cr_assert_eq(pair_with(true, true, 0x6ff0), 0, "just below it");
}

Test(rcv_stack, store_into_the_slot_breaks_the_pair)
{
	cr_assert_eq(pair_with(true, true, 0x6ff8), -1);
	cr_assert_eq(pair_with(true, true, 0x6ffc), -1, "half of it");
	cr_assert_eq(pair_with(true, true, 0x6ff1), -1, "its first byte");
}

Test(rcv_stack, unknown_store_or_slot_breaks_the_pair)
{
	cr_assert_eq(pair_with(true, false, 0), -1, "address unknown");
	cr_assert_eq(pair_with(false, true, 0x601000), -1, "slot unknown");
	cr_assert_eq(pair_with(false, false, 0), -1);
}

/* Without values (rcv_stack_build()), any store through a pointer
 * breaks it, as before.
 */
Test(rcv_stack, without_values_every_pointer_store_breaks)
{
	struct rcv_ins in[3] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x08"),		/* mov [rax], rcx */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_frame f[4];
	int64_t pair[3];

	cr_assert_gt(rcv_stack_build(in, 3, f, pair), 0);
	cr_assert_eq(pair[2], -1);
}

/* A store through rbp, whose frame class is not rsp's, is compared by
 * address when rbp is known, and breaks the pair when it is not.
 */
Test(rcv_stack, a_store_through_another_frame_by_address)
{
	struct rcv_ins in[4] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x08"),		/* mov [rax], rcx */
		INS("\x48\x89\x45\x00"),	/* mov [rbp], rax */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_state st[5];
	struct rcv_stack_vals sv = { st, NULL, 5 };
	struct rcv_frame f[5];
	int64_t pair[4];
	int k;

	/* rbp (another class than rsp) known at 0x9000: its store is apart
	 * from the slot 0x6ff8; unknown, it may be the slot.
	 */
	memset(st, 0, sizeof(st));
	for (k = 0; k < 5; k++) {
		st[k].r[RP_REG_RSP] = val(k == 0 || k == 4 ? 0x7000 : 0x6ff8);
		st[k].r[RP_REG_RAX] = val(0x601000);
		st[k].r[RP_REG_RBP] = val(0x9000);
	}
	cr_assert_gt(rcv_stack_build_v(in, 4, &sv, f, pair), 0);
	cr_assert_eq(pair[3], 0);
	for (k = 0; k < 5; k++)
		st[k].r[RP_REG_RBP] = unknown;
	cr_assert_gt(rcv_stack_build_v(in, 4, &sv, f, pair), 0);
	cr_assert_eq(pair[3], -1);
	for (k = 0; k < 5; k++)
		st[k].r[RP_REG_RBP] = val(0x6ff8);
	cr_assert_gt(rcv_stack_build_v(in, 4, &sv, f, pair), 0);
	cr_assert_eq(pair[3], -1, "rbp at the slot");
}
