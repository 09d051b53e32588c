// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the own-stack gate of replay/rcv_stkeep.c (review 11's
 * finding 1, docs/values.md "A stack that is a C object"): with the
 * values' question rcv_stack_vals' own (is this address the thread's
 * own stack?), the callee argument keeps a pair and ekeep a push kept
 * to the end only for a slot there; in a process with other threads (mt)
 * no pair elsewhere at all; where rsp is not known at the push, the
 * stack rsp is on at the next state it is known, unless a stack switch
 * lies between.  The whole engine on recorded programs: tests/values/
 * review11.sh (values-review11-stack).
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_stkeep, .init = setup, .fini = teardown);

#define CALL	INS("\xe8\x00\x00\x00\x00")	/* call next */
#define PUSH	INS("\x53")			/* push rbx */
#define POP	INS("\x5b")			/* pop rbx */
#define LOADG	INS("\x48\x8b\x05\x00\x10\x00\x00") /* mov rax, [rip+x] */
#define STORE	INS("\x48\x89\x08")		/* mov [rax], rcx */
#define NOP	INS("\x90")
/* lea rsp, [rip+x]: a switch onto a global array */
#define SWITCH	INS("\x48\x8d\x25\x00\x10\x00\x00")
#define SAVE	INS("\x48\x89\xe3")		/* mov rbx, rsp */
#define BACK	INS("\x48\x89\xdc")		/* mov rsp, rbx */

/* The thread's own stack: [0x6000, 0x8000). */
static int asked;
static bool own_at(void *ctx, uint64_t a)
{
	(void)ctx;
	asked++;
	return a >= 0x6000 && a < 0x8000;
}

/*
 * The frames of @in[0..@n) with rsp from @sp (8 lower at each push and
 * call, 8 higher at each pop and ret), known in the states @known says
 * (bit k: state k; all when ~0), the gate asked (@own) or not, @mt:
 * the pair of the pop at @q, and ekeep in @ek when given.
 */
static int64_t build_at(const struct rcv_ins *in, size_t n, size_t q,
			uint64_t sp, uint32_t known, bool own, bool mt,
			uint32_t *ek)
{
	struct rcv_state st[16];
	struct rcv_stack_tmp *tmp;
	struct rcv_stack_vals sv = { .a = st, .na = n + 1, .ekeep = ek,
				     .own = own ? own_at : NULL, .mt = mt };
	struct rcv_frame f[16];
	int64_t pair[16];
	size_t k;

	cr_assert_lt(n, 16);
	cr_assert_eq(rcv_stack_tmp_new(&tmp), 0);
	sv.tmp = tmp;
	memset(st, 0, sizeof(st));
	for (k = 0; k <= n; k++) {
		if (known >> k & 1)
			st[k].r[RP_REG_RSP] = val(sp);
		if (k == n)
			break;
		if (in[k].id == X86_INS_PUSH || in[k].id == X86_INS_CALL)
			sp -= 8;
		else if (in[k].id == X86_INS_POP || in[k].id == X86_INS_RET)
			sp += 8;
	}
	cr_assert_gt(rcv_stack_build_v(in, n, &sv, f, pair), 0);
	rcv_stack_tmp_free(tmp);
	return pair[q];
}

static int64_t build(const struct rcv_ins *in, size_t n, uint64_t sp,
		     uint32_t known, bool own, bool mt, uint32_t *ek)
{
	return build_at(in, n, n - 1, sp, known, own, mt, ek);
}

Test(rcv_stkeep, callee_argument_on_the_own_stack_only)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, STORE, POP };

	cr_assert_eq(build(in, 5, 0x7000, ~0u, false, false, NULL), 1,
		     "no gate: the argument keeps the pair");
	cr_assert_eq(build(in, 5, 0x7000, ~0u, true, false, NULL), 1,
		     "the thread's own stack: kept");
	asked = 0;
	cr_assert_eq(build(in, 5, 0x9000, ~0u, true, false, NULL), -1,
		     "a stack in a C object: the store may write the slot");
	cr_assert_gt(asked, 0);
}

Test(rcv_stkeep, other_threads_no_pair_off_the_own_stack)
{
	struct rcv_ins in[] = { CALL, PUSH, NOP, POP };

	cr_assert_eq(build(in, 4, 0x9000, ~0u, true, false, NULL), 1,
		     "one thread, no store: kept");
	cr_assert_eq(build(in, 4, 0x9000, ~0u, true, true, NULL), -1,
		     "another thread may write a C object at any time");
	cr_assert_eq(build(in, 4, 0x7000, ~0u, true, true, NULL), 1,
		     "its own stack, no escape: kept");
}

Test(rcv_stkeep, rsp_not_known_at_the_push)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, STORE, POP, NOP };

	/* rsp known at the end only (state 6): the pop at 4 */
	cr_assert_eq(build_at(in, 6, 4, 0x7000, 1u << 6, true, false, NULL),
		     1, "the stack rsp is on at the end: own");
	cr_assert_eq(build_at(in, 6, 4, 0x9000, 1u << 6, true, false, NULL),
		     -1, "the stack rsp is on at the end: a C object");
	cr_assert_eq(build_at(in, 6, 4, 0x7000, 0, true, false, NULL), -1,
		     "rsp known nowhere: not shown");
}

Test(rcv_stkeep, a_switch_cuts_the_walk_back)
{
	struct rcv_ins sw[] = { CALL, PUSH, LOADG, STORE, POP, SWITCH };
	struct rcv_ins back[] = {
		SAVE, CALL, PUSH, LOADG, STORE, POP, BACK,
	};
	struct rcv_ins other[] = {
		SAVE, CALL, PUSH, LOADG, STORE, POP,
		INS("\x48\x89\xcc"),			/* mov rsp, rcx */
	};

	/* The end's rsp is on [0x6000, 0x8000) after a lea to rsp: not
	 * the push's stack.
	 */
	cr_assert_eq(build(sw, 6, 0x7000, 1u << 6, true, false, NULL), -1);
	/* rsp saved in rbx and given back: the same stack. */
	cr_assert_eq(build_at(back, 7, 5, 0x7000, 1u << 7, true, false,
			      NULL), 2);
	/* rsp from rcx, not derived from it: a switch. */
	cr_assert_eq(build_at(other, 7, 5, 0x7000, 1u << 7, true, false,
			      NULL), -1);
}

Test(rcv_stkeep, ekeep_on_the_own_stack_only)
{
	struct rcv_ins in[] = { CALL, PUSH, LOADG, STORE };
	uint32_t ek[16];

	build(in, 4, 0x7000, ~0u, true, false, ek);
	cr_assert_eq(ek[1], 4, "own stack: kept to the end");
	build(in, 4, 0x9000, ~0u, true, false, ek);
	cr_assert_eq(ek[1], 0, "a C object: not");
}

/*
 * rcv_wregs(): bit g set exactly where wcode[g] is not 0 (the stack
 * build's rsp shadow and the escape analysis take the registers an
 * instruction writes from it), whatever the codes, 0 to 4 and others.
 */
Test(rcv_stkeep, written_registers_as_a_mask)
{
	static const uint8_t codes[] = { 0, 1, 2, 3, 4, 0x7f, 0x80, 0xff };
	unsigned int seed = 17, want;
	struct rcv_ins in;
	int round, g;

	memset(&in, 0, sizeof(in));
	cr_assert_eq(rcv_wregs(&in), 0);
	for (g = 0; g < 16; g++) {
		memset(in.wcode, 0, sizeof(in.wcode));
		in.wcode[g] = 4;
		cr_assert_eq(rcv_wregs(&in), 1u << g, "register %d", g);
	}
	for (round = 0; round < 20000; round++) {
		want = 0;
		for (g = 0; g < 16; g++) {
			in.wcode[g] = codes[rand_r(&seed) % 8];
			if (in.wcode[g])
				want |= 1u << g;
		}
		cr_assert_eq(rcv_wregs(&in), want, "round %d", round);
	}
}
