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
	struct rcv_stack_vals sv = { .a = st, .na = 4 };
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
	struct rcv_stack_vals sv = { .a = st, .na = 5 };
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

/*
 * The tables kept from one build to the next (struct rcv_stack_tmp, p99):
 * 3,000 pushes of one register and their pops (more slots than the
 * tables first hold, so they grow mid-build), split between two windows
 * (ins_b) or not, with stores of known address between, pair each pop
 * with its push as a build with tables of its own does, and again on a
 * second build with the same tables (emptied by generation).
 */
Test(rcv_stack, kept_tables_grow_and_empty_between_builds)
{
	enum { N = 3000, M = 2 * N + 2 };
	struct rcv_ins *in = calloc(M, sizeof(*in));
	struct rcv_state *st = calloc(M + 1, sizeof(*st));
	struct rcv_frame *f = calloc(M + 1, sizeof(*f));
	struct rcv_frame *g = calloc(M + 1, sizeof(*g));
	int64_t *pair = calloc(M, sizeof(*pair));
	int64_t *own = calloc(M, sizeof(*own));
	struct rcv_stack_tmp *t;
	struct rcv_stack_vals sv = { .a = st, .na = M + 1 };
	size_t i, half = N + 1;
	int k, nc;

	cr_assert(in && st && f && g && pair && own);
	cr_assert_eq(rcv_stack_tmp_new(&t), 0);
	for (i = 0; i < N; i++)
		in[i] = INS("\x53");			/* push rbx */
	in[N] = INS("\x48\x89\x08");			/* mov [rax], rcx */
	in[N + 1] = INS("\x48\x89\x08");
	for (i = N + 2; i < M; i++)
		in[i] = INS("\x5b");			/* pop rbx */
	for (i = 0; i <= M; i++) {
		uint64_t sp = 0x800000 - 8 * (i <= N ? i : i >= N + 2 ?
					       2 * N + 2 - i : N);

		st[i].r[RP_REG_RSP] = val(sp);
		st[i].r[RP_REG_RAX] = val(0x601000);
	}
	nc = rcv_stack_build_v(in, M, &sv, g, own);
	cr_assert_gt(nc, 0);
	for (i = N + 2; i < M; i++)
		cr_assert_eq(own[i], (int64_t)(2 * N + 1 - i), "pop %zu", i);
	for (k = 0; k < 2; k++) {
		sv.tmp = t;
		cr_assert_eq(rcv_stack_build_v(in, M, &sv, f, pair), nc);
		cr_assert_eq(memcmp(pair, own, M * sizeof(*pair)), 0);
		cr_assert_eq(memcmp(f, g, (M + 1) * sizeof(*f)), 0);
		/* The same instructions as a window and the one after. */
		sv = (struct rcv_stack_vals){ st, st + half, half, in + half,
					      t };
		cr_assert_eq(rcv_stack_build_v(in, M, &sv, f, pair), nc);
		cr_assert_eq(memcmp(pair, own, M * sizeof(*pair)), 0);
		sv = (struct rcv_stack_vals){ .a = st, .na = M + 1 };
	}
	rcv_stack_tmp_free(t);
	free(in);
	free(st);
	free(f);
	free(g);
	free(pair);
	free(own);
}
