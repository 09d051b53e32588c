// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of a callee's own stack (replay/rcv_callee.c, through
 * rcv_stack_build()): a push and its pop in a callee survive a store of
 * unknown address between them only when no address the store may use
 * can be derived from the stack under the callee's entry.  Each near miss
 * (the callee's rsp in a global, in its caller's frame, returned by a
 * nested callee, added to the address; no call's entry; a barrier) keeps
 * the pair broken.  The whole engine on recorded programs:
 * tests/values/run.sh ("unsound.c callee").
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_callee, .init = setup, .fini = teardown);

#define CALL	INS("\xe8\x00\x00\x00\x00")	/* call next */
#define PUSH	INS("\x53")			/* push rbx */
#define POP	INS("\x5b")			/* pop rbx */
#define LOADG	INS("\x48\x8b\x05\x00\x10\x00\x00") /* mov rax, [rip+x] */
#define STORE	INS("\x48\x89\x08")		/* mov [rax], rcx */
#define RET	INS("\xc3")

/* The pair of the pop at @n - 1 (its push's position, or -1). */
static int64_t pop_pair(struct rcv_ins *in, size_t n)
{
	struct rcv_frame f[16];
	int64_t pair[16];

	cr_assert_leq(n, 15);
	cr_assert_gt(rcv_stack_build(in, n, f, pair), 0);
	return pair[n - 1];
}

Test(rcv_callee, store_through_a_global_pointer_keeps_the_pair)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, STORE, POP };

	cr_assert_eq(pop_pair(in, 5), 1);
}

Test(rcv_callee, no_call_entry_breaks_it)
{
	struct rcv_ins in[] = { PUSH, LOADG, STORE, POP };

	cr_assert_eq(pop_pair(in, 4), -1);
}

Test(rcv_callee, rsp_in_a_global_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH,
		INS("\x48\x89\x25\x00\x10\x00\x00"),	/* mov [rip+x], rsp */
		LOADG, STORE, POP,
	};

	cr_assert_eq(pop_pair(in, 6), -1);
}

Test(rcv_callee, rsp_in_the_callers_frame_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH,
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x8b\x02"),			/* mov rax, [rdx] */
		STORE, POP,
	};
	/* The same store 16 bytes lower: in the callee's own frame. */
	struct rcv_ins own[] = {
		CALL, PUSH,
		INS("\x48\x83\xec\x10"),		/* sub rsp, 16 */
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		INS("\x48\x89\x04\x24"),		/* mov [rsp], rax */
		INS("\x48\x8b\x02"),			/* mov rax, [rdx] */
		STORE,
		INS("\x48\x83\xc4\x10"),		/* add rsp, 16 */
		POP,
	};

	cr_assert_eq(pop_pair(in, 7), -1);
	cr_assert_eq(pop_pair(own, 9), 1, "a pointer kept in its own frame");
}

Test(rcv_callee, rsp_derived_address_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH,
		INS("\x48\x8d\x04\x3c"),		/* lea rax, [rsp+rdi] */
		STORE, POP,
	};

	cr_assert_eq(pop_pair(in, 5), -1);
}

Test(rcv_callee, rsp_returned_by_a_nested_callee_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH, CALL,
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		RET,
		INS("\x48\x01\xf8"),			/* add rax, rdi */
		STORE, POP,
	};
	struct rcv_ins clean[] = {
		CALL, PUSH, CALL, LOADG, RET, STORE, POP,
	};

	cr_assert_eq(pop_pair(in, 8), -1);
	cr_assert_eq(pop_pair(clean, 7), 1, "a global's pointer returned");
}

Test(rcv_callee, barrier_breaks_it)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, STORE, POP };

	in[2].flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
	cr_assert_eq(pop_pair(in, 5), -1, "a barrier between");
	in[2].flags = LOADG.flags;
	in[0].flags |= RCV_I_BARRIER;
	cr_assert_eq(pop_pair(in, 5), -1, "an unproven call");
}

/*
 * With the stack shared from the start (another thread may know an
 * address in it: rcv_stack_vals' gated, until -1), a pop keeps its push
 * only where the callee's own stack shows it (local[] 1), and rbp's frame
 * across a pop of rbp only then.
 */
static int64_t shared_pair(struct rcv_ins *in, size_t n, uint8_t *local,
			   struct rcv_frame *f)
{
	struct rcv_state st[16];
	struct rcv_stack_vals sv = { .a = st, .na = 16, .gated = true,
				     .until = -1, .local = local };
	int64_t pair[16];
	int k;

	cr_assert_leq(n, 15);
	memset(st, 0, sizeof(st));
	/* rax and rsp known: a store through rax is placed away from the
	 * pushed slot, not unknown.
	 */
	for (k = 0; k < 16; k++) {
		st[k].r[RP_REG_RAX] = val(0x601000);
		st[k].r[RP_REG_RSP] = val(0x7000);
	}
	cr_assert_gt(rcv_stack_build_v(in, n, &sv, f, pair), 0);
	return pair[n - 1];
}

Test(rcv_callee, shared_stack_needs_the_callee_argument)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, POP };
	struct rcv_ins esc[] = {
		CALL, PUSH,
		INS("\x48\x89\x25\x00\x10\x00\x00"),	/* mov [rip+x], rsp */
		POP,
	};
	struct rcv_ins nocall[] = { PUSH, LOADG, POP };
	struct rcv_frame f[16];
	uint8_t local[16];

	cr_assert_eq(shared_pair(in, 4, local, f), 1);
	cr_assert_eq(local[3], 1, "shown by the callee's own stack");
	cr_assert_eq(shared_pair(esc, 4, local, f), 1, "kept (gated later)");
	cr_assert_eq(local[3], 0, "its rsp in a global: another thread's");
	cr_assert_eq(shared_pair(nocall, 3, local, f), 0, "kept (gated later)");
	cr_assert_eq(local[2], 0, "no call's entry");
}

Test(rcv_callee, shared_stack_keeps_rbps_frame_only_by_the_argument)
{
	struct rcv_ins in[] = {
		INS("\x48\x89\xe5"),			/* mov rbp, rsp */
		CALL,
		INS("\x55"),				/* push rbp */
		INS("\x48\x89\xe5"),			/* mov rbp, rsp */
		INS("\x5d"),				/* pop rbp */
	};
	struct rcv_ins esc[] = {
		INS("\x48\x89\xe5"),			/* mov rbp, rsp */
		CALL,
		INS("\x55"),				/* push rbp */
		INS("\x48\x89\xe5"),			/* mov rbp, rsp */
		INS("\x48\x89\x20"),			/* mov [rax], rsp */
		INS("\x5d"),				/* pop rbp */
	};
	struct rcv_frame f[16];
	uint8_t local[16];

	(void)shared_pair(in, 5, local, f);
	cr_assert_eq(local[4], 1);
	cr_assert_neq(f[2].rbp_c, 0);
	cr_assert_eq(f[5].rbp_c, f[2].rbp_c, "rbp's frame back");
	cr_assert_eq(f[5].rbp_o, f[2].rbp_o);
	cr_assert_eq(shared_pair(esc, 6, local, f), 2, "no store between");
	cr_assert_eq(local[5], 0, "rsp stored through rax: escaped");
	cr_assert_eq(f[6].rbp_c, 0, "rbp's frame not linked after an escape");
}

/* The pop's pair with rax = @rax and rsp = 0x7000 (@rsp_known) in every
 * state but after the push (0x6ff8): call; push rbx (slot 0x6ff8 when
 * known); mov [rax], rcx; pop.
 */
static int64_t known_store_pair(uint64_t rax, bool rsp_known)
{
	const struct rcv_ins in[] = { CALL, PUSH, STORE, POP };

	return last_pair(in, 4, 1u << 2, rsp_known, true, rax);
}

Test(rcv_callee, store_of_known_address_and_slot_not_known)
{
	/* The slot's address not known: before, any store of known
	 * address broke the pair; rax not derived from the stack now
	 * keeps it.
	 */
	cr_assert_eq(known_store_pair(0x601000, false), 1);
	/* Slot and store known and the same: written, whatever the
	 * callee's stack says of rax (a stale pointer, say).
	 */
	cr_assert_eq(known_store_pair(0x6ff8, true), -1);
	cr_assert_eq(known_store_pair(0x601000, true), 1);
}

/*
 * A VLA (sub rsp, rax: its size not known) under the pushed slot: a store
 * through rsp + 8 * rdi lies in it (rcv_escape.c bounded(): C's rule
 * for pointers), one through rbp + rdi + 8 (rbp is not the allocation's)
 * may be the slot.
 */
Test(rcv_callee, store_into_a_vla_keeps_the_pair)
{
	struct rcv_ins in[] = {
		CALL, PUSH,
		INS("\x48\x89\xe5"),			/* mov rbp, rsp */
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x48\x8d\x34\xfc"),		/* lea rsi, [rsp+rdi*8] */
		INS("\x48\x89\x0e"),			/* mov [rsi], rcx */
		INS("\x48\x89\xec"),			/* mov rsp, rbp */
		POP,
	};
	struct rcv_ins above[] = {
		CALL, PUSH,
		INS("\x48\x89\xe5"),			/* mov rbp, rsp */
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x48\x8d\x74\x3d\x08"),		/* lea rsi, [rbp+rdi+8] */
		INS("\x48\x89\x0e"),			/* mov [rsi], rcx */
		INS("\x48\x89\xec"),			/* mov rsp, rbp */
		POP,
	};

	cr_assert_eq(pop_pair(in, 8), 1);
	cr_assert_eq(pop_pair(above, 8), -1, "not through the VLA's base");
}

/*
 * A callee's own frame (docs/values.md): a reload (mov reg, [rbp - 8])
 * reads back its spill (mov [rbp - 8], reg) across stores of unknown
 * address under the same argument as a push and its pop.
 */
#define PUSHBP	INS("\x55")				/* push rbp */
#define MOVBP	INS("\x48\x89\xe5")			/* mov rbp, rsp */
#define SUB16	INS("\x48\x83\xec\x10")			/* sub rsp, 16 */
#define SPILL	INS("\x48\x89\x5d\xf8")			/* mov [rbp-8], rbx */
#define RELOAD	INS("\x48\x8b\x5d\xf8")			/* mov rbx, [rbp-8] */

Test(rcv_callee, reload_reads_its_spill)
{
	struct rcv_ins in[] = { CALL, PUSHBP, MOVBP, SUB16, SPILL, RELOAD };
	struct rcv_ins st[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL, LOADG, STORE, RELOAD,
	};
	struct rcv_ins nocall[] = {
		PUSHBP, MOVBP, SUB16, SPILL, LOADG, STORE, RELOAD,
	};
	struct rcv_ins other[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x89\x4d\xf8"),		/* mov [rbp-8], rcx */
		RELOAD,
	};

	cr_assert_eq(pop_pair(in, 6), 4, "no store between");
	cr_assert_eq(pop_pair(st, 8), 4,
		     "a store through a global's pointer: the argument");
	cr_assert_eq(pop_pair(nocall, 7), -1, "no call's entry");
	cr_assert_eq(pop_pair(other, 7), 5, "the last spill's");
}

Test(rcv_callee, slot_address_given_to_a_callee_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x8d\x7d\xf8"),		/* lea rdi, [rbp-8] */
		CALL,
		INS("\x48\x89\x0f"),			/* mov [rdi], rcx */
		RET, RELOAD,
	};
	struct rcv_ins idx[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x8d\x74\x3d\xf8"),		/* lea rsi, [rbp+rdi-8] */
		INS("\x48\x89\x0e"),			/* mov [rsi], rcx */
		RELOAD,
	};

	struct rcv_ins half[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x8d\x7d\xf8"),		/* lea rdi, [rbp-8] */
		CALL,
		INS("\x89\x0f"),			/* mov [rdi], ecx */
		RET, RELOAD,
	};

	/* rdi is rbp's frame at -8 (rcv_stack.c follows every register):
	 * the reload reads what the store through it wrote, not the spill.
	 */
	cr_assert_eq(pop_pair(in, 10), 7, "stored through at its offset");
	cr_assert_eq(pop_pair(half, 10), -1, "half of it stored through");
	cr_assert_eq(pop_pair(idx, 8), -1, "an own-stack pointer + index");
}

/* rsp saved in the frame and restored from it across a VLA (_dl_fini's
 * mov [rbp-0x48], rsp ... mov rsp, [rbp-0x48]): the frame comes back.
 */
Test(rcv_callee, rsp_reloaded_from_its_spill_keeps_its_frame)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16,
		INS("\x48\x89\x65\xf8"),		/* mov [rbp-8], rsp */
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		LOADG, STORE,
		INS("\x48\x8b\x65\xf8"),		/* mov rsp, [rbp-8] */
	};
	struct rcv_frame f[16];
	int64_t pair[16];

	cr_assert_gt(rcv_stack_build(in, 9, f, pair), 0);
	cr_assert_eq(pair[8], 4);
	cr_assert_neq(f[6].rsp_c, f[4].rsp_c, "the VLA: rsp's frame lost");
	cr_assert_eq(f[9].rsp_c, f[4].rsp_c, "and back by the reload");
	cr_assert_eq(f[9].rsp_o, f[4].rsp_o);
	/* Another value in the slot (a store through rdi + rbp - 8): a
	 * frame of its own.
	 */
	in[7] = INS("\x48\x89\x4c\x3d\xf8");	/* mov [rbp+rdi-8], rcx */
	cr_assert_gt(rcv_stack_build(in, 9, f, pair), 0);
	cr_assert_eq(pair[8], -1);
	cr_assert_neq(f[9].rsp_c, f[4].rsp_c);
}

Test(rcv_callee, shared_stack_reload_needs_the_argument)
{
	struct rcv_ins in[] = { CALL, PUSHBP, MOVBP, SUB16, SPILL, LOADG,
				RELOAD };
	struct rcv_ins esc[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x89\x25\x00\x10\x00\x00"),	/* mov [rip+x], rsp */
		RELOAD,
	};
	struct rcv_frame f[16];
	uint8_t local[16];

	cr_assert_eq(shared_pair(in, 7, local, f), 4);
	cr_assert_eq(local[6], 1, "shown by the callee's own stack");
	/* The store's address known, the slot's not: only the argument
	 * would keep it.
	 */
	cr_assert_eq(shared_pair(esc, 7, local, f), -1);
	cr_assert_eq(local[6], 0, "its rsp in a global: another thread's");
}

/* Strict values (rcv_stack_vals' noproof): no pair by the argument. */
Test(rcv_callee, strict_turns_the_argument_off)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL, LOADG, STORE, RELOAD,
	};
	struct rcv_state st[16];
	struct rcv_stack_vals sv = { .a = st, .na = 16, .noproof = true };
	struct rcv_frame f[16];
	int64_t pair[16];

	memset(st, 0, sizeof(st));
	cr_assert_gt(rcv_stack_build_v(in, 8, &sv, f, pair), 0);
	cr_assert_eq(pair[7], -1);
	sv.noproof = false;
	cr_assert_gt(rcv_stack_build_v(in, 8, &sv, f, pair), 0);
	cr_assert_eq(pair[7], 4);
}

/*
 * A load through a VLA's bottom plus an index (rcv_escape.c in_alloc():
 * C's rule for pointers) reads only the VLA, not the slot above it that
 * holds rsp: what it loads is no stack pointer, and a store through it
 * keeps the spill.  Through rbp plus an index it may read that slot.
 */
Test(rcv_callee, load_from_a_vla_is_not_a_stack_pointer)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16,
		INS("\x48\x89\x65\xf8"),		/* mov [rbp-8], rsp */
		INS("\x48\x89\x5d\xf0"),		/* mov [rbp-16], rbx */
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x48\x8b\x0c\xfc"),		/* mov rcx, [rsp+rdi*8] */
		INS("\x48\x89\x11"),			/* mov [rcx], rdx */
		INS("\x48\x8b\x5d\xf0"),		/* mov rbx, [rbp-16] */
	};

	cr_assert_eq(pop_pair(in, 10), 5);
	in[7] = INS("\x48\x8b\x4c\xfd\x00");	/* mov rcx, [rbp+rdi*8] */
	cr_assert_eq(pop_pair(in, 10), -1, "not through the VLA's base");
}

/*
 * Stores through a VLA's bottom plus an index (rcv_escape.c
 * rcv_esc_in_alloc()) lie from its bottom to its top: a spill under it
 * (in the frame allocated after it) is kept; through rsp plus an index
 * (rsp is not the VLA's bottom there) it may be written.
 */
Test(rcv_callee, store_from_a_vla_bottom_keeps_a_spill_under_it)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16,
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		SUB16,
		INS("\x48\x89\x1c\x24"),		/* mov [rsp], rbx */
		INS("\x48\x89\x0c\xf8"),		/* mov [rax+rdi*8], rcx */
		INS("\x48\x8b\x1c\x24"),		/* mov rbx, [rsp] */
	};

	cr_assert_eq(pop_pair(in, 10), 7);
	in[8] = INS("\x48\x89\x0c\xfc");	/* mov [rsp+rdi*8], rcx */
	cr_assert_eq(pop_pair(in, 10), -1, "rsp is not the VLA's bottom");
}

/*
 * A store through rsp after a VLA is of another frame than rbp's spill:
 * only the argument (the store lies in the VLA, under the spill) keeps
 * the pair; strict values do not.
 */
Test(rcv_callee, store_of_another_frame_needs_the_argument)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x48\x89\x0c\x24"),		/* mov [rsp], rcx */
		RELOAD,
	};
	struct rcv_state st[16];
	struct rcv_stack_vals sv = { .a = st, .na = 16, .noproof = true };
	struct rcv_frame f[16];
	int64_t pair[16];

	cr_assert_eq(pop_pair(in, 8), 4);
	memset(st, 0, sizeof(st));
	cr_assert_gt(rcv_stack_build_v(in, 8, &sv, f, pair), 0);
	cr_assert_eq(pair[7], -1, "strict");
}

/*
 * A pointer made by lea from a VLA's bottom plus an index (bounded())
 * starts at the bottom (C's rule for pointers): a store through it keeps
 * a spill under the VLA; made from rsp 16 bytes under the bottom, it may
 * write that spill.
 */
Test(rcv_callee, lea_from_a_vla_bottom_keeps_a_spill_under_it)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16,
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		SUB16,
		INS("\x48\x89\x1c\x24"),		/* mov [rsp], rbx */
		INS("\x48\x8d\x34\xf8"),		/* lea rsi, [rax+rdi*8] */
		INS("\x48\x89\x0e"),			/* mov [rsi], rcx */
		INS("\x48\x8b\x1c\x24"),		/* mov rbx, [rsp] */
	};

	cr_assert_eq(pop_pair(in, 11), 7);
	in[8] = INS("\x48\x8d\x34\xfc");	/* lea rsi, [rsp+rdi*8] */
	cr_assert_eq(pop_pair(in, 11), -1, "rsp is not the VLA's bottom");
}

/*
 * xsavec (the resolver's, into an area it allocated): a store from its
 * operand up to the allocation's top, not to the spill above it; in the
 * frame itself (no allocation) it may write anything above rsp.
 */
Test(rcv_callee, xsave_into_an_allocation_keeps_the_spill_above)
{
	struct rcv_ins in[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x48\x29\xc4"),			/* sub rsp, rax */
		INS("\x0f\xc7\x24\x24"),		/* xsavec [rsp] */
		RELOAD,
	};
	struct rcv_ins nalloc[] = {
		CALL, PUSHBP, MOVBP, SUB16, SPILL,
		INS("\x0f\xc7\x24\x24"),		/* xsavec [rsp] */
		RELOAD,
	};

	cr_assert_eq(pop_pair(in, 8), 4);
	cr_assert_eq(pop_pair(nalloc, 7), -1, "no allocation: no top");
}

/*
 * An address rebuilt from rsp's bits other than by a copy (review 5,
 * tests/values/review5.c): through a table indexed by a byte of it,
 * through CF (bt; setc), through the way a branch took.  Each may point
 * under the entry's rsp: the pair is broken.
 */
Test(rcv_callee, rsp_rebuilt_without_a_copy_breaks_it)
{
	struct rcv_ins table[] = {
		CALL, PUSH,
		INS("\x48\x89\xe2"),			/* mov rdx, rsp */
		INS("\x0f\xb6\xc2"),			/* movzx eax, dl */
		INS("\x41\x0f\xb6\x04\x00"),		/* movzx eax, [r8+rax] */
		STORE, POP,
	};
	struct rcv_ins setc[] = {
		CALL, PUSH,
		INS("\x48\x89\xe2"),			/* mov rdx, rsp */
		INS("\x48\x0f\xa3\xca"),		/* bt rdx, rcx */
		INS("\x0f\x92\xc0"),			/* setc al */
		STORE, POP,
	};
	struct rcv_ins branch[] = {
		CALL, PUSH,
		INS("\x48\x89\xe2"),			/* mov rdx, rsp */
		INS("\x48\x85\xf2"),			/* test rdx, rsi */
		INS("\x74\x00"),			/* jz next */
		LOADG, STORE, POP,
	};
	/* Near miss: the branch on a clean value. */
	struct rcv_ins clean[] = {
		CALL, PUSH,
		INS("\x48\x89\xe2"),
		INS("\x48\x85\xf1"),			/* test rcx, rsi */
		INS("\x74\x00"),
		LOADG, STORE, POP,
	};

	cr_assert_eq(pop_pair(table, 7), -1);
	cr_assert_eq(pop_pair(setc, 7), -1);
	cr_assert_eq(pop_pair(branch, 8), -1);
	cr_assert_eq(pop_pair(clean, 8), 1);
}

/*
 * A stack argument, pushed before a call and read in the callee (the
 * dynamic linker's _dl_lookup_symbol_x and check_match): the argument
 * runs from the entry of the call still running at the push, the
 * caller's, not the innermost one.
 */
Test(rcv_callee, a_stack_argument_by_its_callers_entry)
{
	struct rcv_ins in[] = {
		CALL, PUSH, CALL, LOADG, STORE,
		INS("\x48\x8b\x4c\x24\x08"),		/* mov rcx, [rsp+8] */
	};
	struct rcv_ins esc[] = {
		CALL, PUSH, CALL,
		INS("\x48\x89\x25\x00\x10\x00\x00"),	/* mov [rip+x], rsp */
		LOADG, STORE,
		INS("\x48\x8b\x4c\x24\x08"),		/* mov rcx, [rsp+8] */
	};
	struct rcv_ins nocall[] = {
		PUSH, CALL, LOADG, STORE,
		INS("\x48\x8b\x4c\x24\x08"),		/* mov rcx, [rsp+8] */
	};

	cr_assert_eq(pop_pair(in, 6), 1, "the caller's entry");
	cr_assert_eq(pop_pair(esc, 7), -1, "the callee's rsp in a global");
	cr_assert_eq(pop_pair(nocall, 5), -1, "no call running at the push");
}

/*
 * System calls and rep stos (rcv_callee.c sys_known(), rcv_rep_stos()):
 * the argument goes on across fstat into a buffer that misses the slot,
 * brk and rep stos through a global's pointer; not across fstat whose
 * buffer covers it, rep stos through rsp, nor a call it does not know.
 */
#define SYS	INS("\x0f\x05")				/* syscall */
#define FSTAT	INS("\xb8\x05\x00\x00\x00")		/* mov eax, 5 */
#define BRK	INS("\xb8\x0c\x00\x00\x00")		/* mov eax, 12 */
#define CLONE	INS("\xb8\x38\x00\x00\x00")		/* mov eax, 56 */
#define SUBRSP	INS("\x48\x81\xec\x98\x00\x00\x00")	/* sub rsp, 152 */
#define ADDRSP	INS("\x48\x81\xc4\x98\x00\x00\x00")	/* add rsp, 152 */
#define BUFLOW	INS("\x48\x89\xe6")			/* mov rsi, rsp */
#define BUFHI	INS("\x48\x8d\x74\x24\x10")		/* lea rsi, [rsp+16] */
#define STOS	INS("\xf3\x48\xab")			/* rep stosq */
#define DIG	INS("\x48\x8b\x3d\x00\x10\x00\x00")	/* mov rdi, [rip+x] */
#define DISP	INS("\x48\x89\xe7")			/* mov rdi, rsp */

Test(rcv_callee, system_call_buffer_under_the_slot_keeps_the_pair)
{
	struct rcv_ins in[] = {
		CALL, PUSH, SUBRSP, BUFLOW, FSTAT, SYS, BRK, SYS, LOADG,
		STORE, ADDRSP, POP,
	};

	cr_assert_eq(pop_pair(in, 12), 1);
}

Test(rcv_callee, system_call_buffer_over_the_slot_breaks_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH, SUBRSP, BUFHI, FSTAT, SYS, LOADG, STORE, ADDRSP,
		POP,
	};

	cr_assert_eq(pop_pair(in, 10), -1, "fstat's 144 bytes end on it");
}

Test(rcv_callee, unknown_system_call_breaks_it)
{
	struct rcv_ins in[] = { CALL, PUSH, CLONE, SYS, LOADG, STORE, POP };

	cr_assert_eq(pop_pair(in, 7), -1, "clone");
}

Test(rcv_callee, rep_stos_through_a_global_pointer_keeps_the_pair)
{
	struct rcv_ins in[] = { CALL, PUSH, DIG, STOS, POP };

	cr_assert_eq(pop_pair(in, 5), 1);
}

Test(rcv_callee, rep_stos_through_rsp_breaks_it)
{
	struct rcv_ins in[] = { CALL, PUSH, DISP, STOS, POP };

	cr_assert_eq(pop_pair(in, 5), -1);
}

/*
 * Pushes never popped (rcv_callee_kept_to(), the end taken as the pop):
 * rcv_stack_vals' ekeep for @in[0..@n), rsp known in every state from
 * 0x7000 (8 lower at each push and call, 8 higher at each pop and ret,
 * lower by the immediate at sub rsp).
 */
static void end_keeps(const struct rcv_ins *in, size_t n, uint32_t *ek,
		      bool noproof)
{
	struct rcv_state st[16];
	struct rcv_stack_vals sv = { .a = st, .na = n + 1, .ekeep = ek,
				     .noproof = noproof };
	struct rcv_frame f[16];
	int64_t pair[16];
	uint64_t sp = 0x7000;
	size_t k;

	cr_assert_lt(n, 16);
	memset(st, 0, sizeof(st));
	for (k = 0; k <= n; k++) {
		st[k].r[RP_REG_RSP] = val(sp);
		if (k == n)
			break;
		if (in[k].id == X86_INS_PUSH || in[k].id == X86_INS_CALL)
			sp -= 8;
		else if (in[k].id == X86_INS_POP || in[k].id == X86_INS_RET)
			sp += 8;
		else if (in[k].id == X86_INS_SUB &&
			 in[k].op[0].type == RCV_OP_REG &&
			 in[k].op[0].reg == RP_REG_RSP)
			sp -= (uint64_t)in[k].op[1].imm;
	}
	cr_assert_gt(rcv_stack_build_v(in, n, &sv, f, pair), 0);
}

#define PUBRSP	INS("\x48\x89\x25\x00\x10\x00\x00")	/* mov [rip+x], rsp */
#define SUB16	INS("\x48\x83\xec\x10")			/* sub rsp, 16 */

Test(rcv_callee, push_never_popped_kept_to_the_end)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, STORE };
	uint32_t ek[16];

	end_keeps(in, 4, ek, false);
	cr_assert_eq(ek[1], 4, "no store may write it up to the end");
	end_keeps(in, 4, ek, true);
	cr_assert_eq(ek[1], 0, "strict: not by the argument");
}

Test(rcv_callee, push_never_popped_up_to_a_store_that_may_write_it)
{
	struct rcv_ins in[] = {
		CALL, PUSH, LOADG,
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		STORE,					/* at 4 */
		LOADG,
	};
	uint32_t ek[16];

	end_keeps(in, 6, ek, false);
	cr_assert_eq(ek[1], 4, "kept up to the store through rsp, not past");
}

Test(rcv_callee, push_popped_or_without_an_entry_is_not_kept)
{
	struct rcv_ins popped[] = { CALL, PUSH, POP, LOADG, STORE };
	struct rcv_ins nocall[] = { PUSH, LOADG, STORE };
	uint32_t ek[16];

	end_keeps(popped, 5, ek, false);
	cr_assert_eq(ek[1], 0, "popped: under rsp at the end");
	end_keeps(nocall, 3, ek, false);
	cr_assert_eq(ek[0], 0, "no call's entry");
}

/*
 * rsp published: at the slot itself (its pointer may reach it: the
 * argument ends there), or 16 bytes under it (a local object's address,
 * which in C stays in its object: the slot above it stays kept, even
 * through pointers read back from anywhere).  Pairs still end at any
 * escape.
 */
Test(rcv_callee, rsp_published_under_the_slot_keeps_it)
{
	struct rcv_ins at[] = { CALL, PUSH, PUBRSP, LOADG, STORE };
	struct rcv_ins under[] = { CALL, PUSH, SUB16, PUBRSP, LOADG, STORE };
	struct rcv_ins pair[] = {
		CALL, PUSH, SUB16, PUBRSP, LOADG, STORE,
		INS("\x48\x83\xc4\x10"),		/* add rsp, 16 */
		POP,
	};
	uint32_t ek[16];

	end_keeps(at, 5, ek, false);
	cr_assert_eq(ek[1], 0, "rsp at the slot published");
	end_keeps(under, 6, ek, false);
	cr_assert_eq(ek[1], 6, "a pointer under the slot published");
	cr_assert_eq(pop_pair(pair, 8), -1, "a pair ends at the escape");
}

/*
 * Walks kept across builds (struct rcv_cwc): builds of the same windows
 * (sv.ida) through one rcv_stack_tmp take the callee walks of the build
 * before.  Random instruction sequences, built again after what a later
 * build may find changed (an instruction's barrier flags set or lifted,
 * an fs operand converted as rcv_fs_absolute() does, a system call the
 * values place or stop placing), give the pairs, the frames and the
 * callee argument's pairs (local) of a build from nothing, every time.
 */
static bool kc_placed;

static int kc_sys(void *ctx, size_t i, uint64_t *a, uint64_t *len)
{
	(void)ctx;
	(void)i;
	*a = 0;
	*len = 0;
	return kc_placed ? 0 : -1;	/* writes nothing, or not known */
}

static uint32_t kc_rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

#define KC_N 48

static int kc_build(const struct rcv_ins *in, size_t n,
		    struct rcv_stack_tmp *t, uint64_t id, bool gated,
		    struct rcv_frame *f, int64_t *pair, uint8_t *local)
{
	struct rcv_state st[KC_N + 1];
	struct rcv_stack_vals sv = { .a = st, .na = n + 1, .tmp = t,
				     .ida = id, .gated = gated, .until = -1,
				     .local = local, .sys_write = kc_sys };

	memset(st, 0, sizeof(st));
	memset(local, 0, n + 1);
	return rcv_stack_build_v(in, n, &sv, f, pair);
}

Test(rcv_callee, walks_kept_across_builds_are_the_walks)
{
	const struct rcv_ins pool[] = {
		CALL, CALL, CALL, PUSH, PUSH, PUSH, POP, POP, POP, LOADG,
		STORE, STORE, RET, RET,
		INS("\x48\x89\xe0"),			/* mov rax, rsp */
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x8d\x04\x3c"),		/* lea rax, [rsp+rdi] */
		INS("\x0f\x05"),			/* syscall */
		INS("\x64\x48\x8b\x04\x25\x10\x00\x00\x00"), /* rax, fs:16 */
		INS("\x64\x48\x89\x24\x25\x10\x00\x00\x00"), /* fs:16, rsp */
		INS("\x64\x48\x89\x4c\x24\xf0"),	/* fs:-16(%rsp), rcx */
		INS("\x48\x83\xec\x10"),		/* sub rsp, 16 */
		INS("\x48\x83\xc4\x10"),		/* add rsp, 16 */
		INS("\x48\x89\x04\x24"),		/* mov [rsp], rax */
		INS("\x48\x8b\x04\x24"),		/* mov rax, [rsp] */
	};
	const struct rcv_ins sysnr = INS("\xb8\x00\x00\x00\x00");
	size_t np = sizeof(pool) / sizeof(pool[0]), n, i;
	struct rcv_frame f1[KC_N + 1], f2[KC_N + 1];
	int64_t p1[KC_N + 1], p2[KC_N + 1];
	uint8_t l1[KC_N + 1], l2[KC_N + 1];
	struct rcv_ins in[KC_N];
	struct rcv_stack_tmp *t;
	uint32_t s = 17, round;
	int b, k, r1, r2;

	cr_assert_eq(rcv_stack_tmp_new(&t), 0);
	for (round = 0; round < 400; round++) {
		bool gated = round & 1;

		n = 8 + kc_rnd(&s) % (KC_N - 8);
		in[0] = CALL;
		for (i = 1; i < n; i++) {
			in[i] = pool[kc_rnd(&s) % np];
			/* read(2): a buffer the walk takes only placed */
			if (in[i].id == X86_INS_SYSCALL && kc_rnd(&s) % 2)
				in[i - 1] = sysnr;
		}
		kc_placed = true;
		for (b = 0; b < 6; b++) {
			/* What a later build of the window may see changed. */
			i = kc_rnd(&s) % n;
			switch (b ? kc_rnd(&s) % 4 : 4) {
			case 0:
				in[i].flags ^= RCV_I_BARRIER | RCV_I_MEMBAR;
				break;
			case 1:
				for (k = 0; k < in[i].nops; k++)
					if (in[i].op[k].seg) {
						in[i].op[k].seg = 0;
						in[i].op[k].imm += 0x1000;
					}
				break;
			case 2:
				kc_placed = !kc_placed;
				break;
			default:
				break;
			}
			r1 = kc_build(in, n, t, round + 1, gated, f1, p1, l1);
			r2 = kc_build(in, n, NULL, 0, gated, f2, p2, l2);
			cr_assert_gt(r1, 0);
			cr_assert_eq(r1, r2, "round %u build %d", round, b);
			cr_assert_arr_eq(p1, p2, n * sizeof(*p1),
					 "round %u build %d: pairs", round, b);
			cr_assert_arr_eq(l1, l2, n, "round %u build %d: local",
					 round, b);
			cr_assert_arr_eq(f1, f2, (n + 1) * sizeof(*f1),
					 "round %u build %d: frames", round, b);
		}
	}
	rcv_stack_tmp_free(t);
}
