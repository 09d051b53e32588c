// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the two kinds of own-stack pointer (replay/rcv_escape.c's
 * e->obj, replay/rcv_callee.c's prologue walk; docs/values.md, "Two kinds
 * of own-stack pointer"): from a call's entry, a pointer made at an offset
 * from an own-stack pointer, surely under the entry's prologue pushes and
 * outside any nested call, points into a C object and (C's rule) stays in
 * it, so its escape leaves the pushed slots alone; rsp itself, a copy of
 * it, and a frame address made in a nested call (as setjmp makes one) do
 * not.  Each near miss must keep the pair broken; test_rcv_escape.c and
 * test_rcv_callee.c (over 1,000 and near it) hold the other rules.  The
 * whole engine on a recorded program: tests/values/run.sh ("unsound.c
 * ckind").
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"
#include "rcv_esc.h"

TestSuite(rcv_escape_kind, .init = setup, .fini = teardown);

#define N(a) ((size_t)(sizeof(a) / sizeof((a)[0])))

#define CALL	INS("\xe8\x00\x00\x00\x00")	/* call next */
#define RET	INS("\xc3")
#define PUSH	INS("\x53")			/* push rbx */
#define POP	INS("\x5b")			/* pop rbx */
#define SUB16	INS("\x48\x83\xec\x10")		/* sub rsp, 16 */
#define ADD16	INS("\x48\x83\xc4\x10")		/* add rsp, 16 */
#define LEA8	INS("\x48\x8d\x44\x24\x08")	/* lea rax, [rsp+8] */
#define MOVSP	INS("\x48\x89\xe0")		/* mov rax, rsp */
#define PUBG	INS("\x48\x89\x05\x00\x10\x00\x00") /* mov [rip+x], rax */
#define LOADG	INS("\x48\x8b\x35\x00\x10\x00\x00") /* mov rsi, [rip+x] */
#define STORE	INS("\x48\x89\x0e")		/* mov [rsi], rcx */

/* The pair of the pop at @i of @in[0..@n) (its push's position, or -1). */
static int64_t pair_at(struct rcv_ins *in, size_t n, size_t i)
{
	struct rcv_frame f[24];
	int64_t pair[24];

	cr_assert_leq(n, 23);
	cr_assert_gt(rcv_stack_build(in, n, f, pair), 0);
	return pair[i];
}

/* The analysis in the prologue walk's mode over @in[0..@n). */
static void walk(struct rcv_esc *e, const struct rcv_ins *in, size_t n,
		 bool obj)
{
	size_t i;

	memset(e, 0, sizeof(*e));
	rcv_esc_init_local(e);
	e->obj = obj;
	for (i = 0; i < n; i++)
		rcv_esc_step(e, &in[i], 0);
}

Test(rcv_escape_kind, a_locals_address_given_away_keeps_the_pair)
{
	struct rcv_ins in[] = {
		CALL, PUSH, SUB16, LEA8, PUBG, LOADG, STORE, ADD16, POP,
	};

	cr_assert_eq(pair_at(in, N(in), N(in) - 1), 1);
}

Test(rcv_escape_kind, rsp_itself_given_away_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH, SUB16, MOVSP, PUBG, LOADG, STORE, ADD16, POP,
	};

	cr_assert_eq(pair_at(in, N(in), N(in) - 1), -1);
}

Test(rcv_escape_kind, a_frame_address_made_in_a_nested_call_breaks_it)
{
	/* The nested call's lea rax, [rsp+8] is its caller's rsp. */
	struct rcv_ins in[] = {
		CALL, PUSH, SUB16, CALL, LEA8, PUBG, RET, LOADG, STORE, ADD16,
		POP,
	};

	cr_assert_eq(pair_at(in, N(in), N(in) - 1), -1);
}

Test(rcv_escape_kind, a_push_after_the_prologue_is_not_kept_by_it)
{
	/* The inner push rbx lies under the locals: a pointer into an
	 * object may reach it.
	 */
	struct rcv_ins in[] = {
		CALL, PUSH, SUB16, LEA8, PUBG, PUSH, LOADG, STORE, POP, ADD16,
		POP,
	};

	cr_assert_eq(pair_at(in, N(in), 8), -1);
	cr_assert_eq(pair_at(in, N(in), N(in) - 1), 1);
}

Test(rcv_escape_kind, a_push_again_where_the_prologue_pushed_is_not_kept)
{
	/* The locals freed and rbx pushed again at the prologue's slot:
	 * not a push of the prologue (a pointer into an object freed may
	 * still reach it).
	 */
	struct rcv_ins in[] = {
		CALL, PUSH, SUB16, LEA8, PUBG, ADD16, POP, PUSH, LOADG, STORE,
		POP,
	};

	cr_assert_eq(pair_at(in, N(in), N(in) - 1), -1);
}

Test(rcv_escape_kind, a_vector_only_instruction_does_not_end_the_walk)
{
	struct rcv_ins in[] = {
		CALL, PUSH, INS("\x62\xb2\x66\x20\x26\xc3"), /* vptestnmb */
		LOADG, STORE, POP,
	};

	cr_assert_eq(in[2].flags & (RCV_I_BAD | RCV_I_BARRIER), RCV_I_BAD);
	cr_assert_eq(pair_at(in, N(in), N(in) - 1), 1);
}

Test(rcv_escape_kind, kinds)
{
	struct rcv_ins in[] = {
		PUSH, INS("\x48\x89\xd5"),		/* mov rbp, rdx */
		PUSH, SUB16, LEA8,
		INS("\x48\x89\xe2"),			/* mov rdx, rsp */
		INS("\x48\x8d\x4c\x24\x18"),		/* lea rcx, [rsp+24] */
		INS("\x48\x89\xc7"),			/* mov rdi, rax */
		INS("\x48\x83\xc7\x04"),		/* add rdi, 4 */
	};
	struct rcv_op at8 = { .type = RCV_OP_MEM, .base = RP_REG_RDI,
			      .index = -1, .imm = 8 };
	struct rcv_esc e;
	uint32_t ep;
	int64_t d;

	walk(&e, in, N(in), true);
	/* Two pushes from the entry: the prologue ends at -16. */
	cr_expect(e.pdone);
	cr_expect_eq(e.ptop, -16);
	cr_expect_eq(e.t[RP_REG_RAX], CLEAN, "&local: into an object");
	cr_expect_eq(e.t[RP_REG_RDX], STK, "rsp itself");
	cr_expect_eq(e.t[RP_REG_RCX], STK, "at the pushes: not under them");
	cr_expect_eq(e.t[RP_REG_RDI], CLEAN);
	/* Its place is kept: a store through it writes there. */
	cr_assert(rcv_esc_obj_at(&e, &at8, &ep, &d));
	cr_expect_eq(ep, e.ep0);
	cr_expect_eq(d, -32 + 8 + 4 + 8);
	rcv_esc_fini(&e);
	/* Without the mode, the same pointer is one. */
	walk(&e, in, N(in), false);
	cr_expect_eq(e.t[RP_REG_RAX], STK);
	cr_expect_not(rcv_esc_obj_at(&e, &at8, &ep, &d));
	rcv_esc_fini(&e);
}

Test(rcv_escape_kind, escapes_of_each_kind)
{
	struct rcv_ins obj[] = { PUSH, SUB16, LEA8, PUBG };
	struct rcv_ins sp[] = { PUSH, SUB16, MOVSP, PUBG };
	struct rcv_esc e;

	walk(&e, obj, N(obj), true);
	cr_expect_not(e.escaped, "a pointer into an object");
	rcv_esc_fini(&e);
	walk(&e, obj, N(obj), false);
	cr_expect(e.escaped);
	rcv_esc_fini(&e);
	walk(&e, sp, N(sp), true);
	cr_expect(e.escaped, "the frame address");
	rcv_esc_fini(&e);
}

Test(rcv_escape_kind, a_load_through_a_clean_address_may_read_a_slot)
{
	/* rsp's copy spilled; a load through rbx (clean: maybe a pointer
	 * into an object of this frame) may read it back.
	 */
	struct rcv_ins in[] = {
		PUSH, SUB16, INS("\x48\x89\xe2"),	/* mov rdx, rsp */
		INS("\x48\x89\x14\x24"),		/* mov [rsp], rdx */
		INS("\x48\x8b\x0b"),			/* mov rcx, [rbx] */
	};
	struct rcv_esc e;

	walk(&e, in, N(in), true);
	cr_expect_eq(e.t[RP_REG_RCX], MAYBE);
	rcv_esc_fini(&e);
	/* With no such slot: clean. */
	walk(&e, in, 2, true);
	rcv_esc_step(&e, &in[4], 0);
	cr_expect_eq(e.t[RP_REG_RCX], CLEAN);
	rcv_esc_fini(&e);
}
