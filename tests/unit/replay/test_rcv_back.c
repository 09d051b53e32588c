// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the recovery engine's backward semantics for branches
 * (replay/rcv_back.c) and the word an indirect branch reads
 * (replay/rcv_rw.c): an indirect jump or call through a register that is
 * not a barrier teaches the register (the target is where the trace
 * went), one through memory names the word it read with that value; a
 * barrier (an unproven branch: a signal may follow it), rsp, a narrower
 * register, a direct branch and a branch with no next instruction teach
 * nothing.  The adversarial program is tests/values/unsound.c "jmptgt".
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "rcv_win.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_back, .init = setup, .fini = teardown);

static struct rcv_ctx ctx;	/* no memory */

/* @in's state before it from an unknown state after it. */
static struct rcv_state back(const struct rcv_ins *in)
{
	struct rcv_state pre, post;
	uint64_t conf = 0;

	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	rcv_backward(&ctx, 0, in, &pre, &post, &conf);
	cr_assert_eq(conf, 0);
	return pre;
}

/* Decoded with the branch class a trace gives it. */
static struct rcv_ins branch(const char *b, size_t n, uint8_t iclass,
			     uint64_t next)
{
	struct rcv_ins in;

	rcv_decode(dec, 0x401000, (const uint8_t *)b, n, iclass, &in);
	in.next = next;
	return in;
}

#define BR(b, c, next) branch(b, sizeof(b) - 1, c, next)

Test(rcv_back, indirect_jump_teaches_register)
{
	/* jmp *%r11 to 0x7f0000001000 */
	struct rcv_ins in = BR("\x41\xff\xe3", RP_IC_JUMP, 0x7f0000001000);
	struct rcv_state s;
	int g;

	cr_assert_eq(in.op[0].type, RCV_OP_REG);
	s = back(&in);
	cr_assert_eq(s.r[RP_REG_R11].k, ~0ull);
	cr_assert_eq(s.r[RP_REG_R11].v, 0x7f0000001000);
	for (g = 0; g < 16; g++)
		if (g != RP_REG_R11)
			cr_assert_eq(s.r[g].k, 0, "reg %d learned", g);
}

Test(rcv_back, indirect_call_teaches_register)
{
	/* call *%rax to 0x402000: rax before it, and rsp not */
	struct rcv_ins in = BR("\xff\xd0", RP_IC_CALL, 0x402000);
	struct rcv_state s = back(&in);

	cr_assert_eq(s.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(s.r[RP_REG_RAX].v, 0x402000);
	cr_assert_eq(s.r[RP_REG_RSP].k, 0);
}

Test(rcv_back, barrier_teaches_nothing)
{
	/* An unproven jmp *%rax (a signal handler may run right after
	 * it, its entry taken for the target): nothing.
	 */
	struct rcv_ins in = BR("\xff\xe0", RP_IC_JUMP, 0x402000);
	struct rcv_state s;

	in.flags |= RCV_I_UNPROVEN | RCV_I_BARRIER | RCV_I_MEMBAR;
	s = back(&in);
	cr_assert_eq(s.r[RP_REG_RAX].k, 0);
	/* A transfer for good (the trace went elsewhere): nothing. */
	in.flags = RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_XFER;
	s = back(&in);
	cr_assert_eq(s.r[RP_REG_RAX].k, 0);
}

Test(rcv_back, other_forms_teach_nothing)
{
	struct rcv_ins in;
	struct rcv_state s;
	int g;

	/* call *%rsp: the push comes first (rsp is not the target). */
	in = BR("\xff\xd4", RP_IC_CALL, 0x402000);
	s = back(&in);
	cr_assert(s.r[RP_REG_RSP].k == 0 ||
		  s.r[RP_REG_RSP].v != 0x402000);
	/* jmp 0x401100 (direct): no register. */
	in = BR("\xe9\xfb\x00\x00\x00", RP_IC_JUMP, 0x401100);
	s = back(&in);
	for (g = 0; g < 16; g++)
		cr_assert_eq(s.r[g].k, 0, "reg %d learned", g);
	/* No next instruction known (the history's end, no end state). */
	in = BR("\xff\xe0", RP_IC_JUMP, 0);
	s = back(&in);
	cr_assert_eq(s.r[RP_REG_RAX].k, 0);
	/* jmp *(%rax): the register is the address, not the target. */
	in = BR("\xff\x20", RP_IC_JUMP, 0x402000);
	s = back(&in);
	cr_assert_eq(s.r[RP_REG_RAX].k, 0);
}

Test(rcv_back, indirect_jump_names_the_word_read)
{
	/* jmp *0x10(%rax), rax 0x5000, to 0x402000: 8 bytes read at
	 * 0x5010 that held 0x402000.
	 */
	struct rcv_ins in = BR("\xff\x60\x10", RP_IC_JUMP, 0x402000);
	struct rcv_state pre, post;
	struct rcv_acc rd;

	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	pre.r[RP_REG_RAX] = val(0x5000);
	rcv_reads(&ctx, &in, &pre, &post, &rd);
	cr_assert(rd.valid);
	cr_assert(rd.addr_known);
	cr_assert_eq(rd.addr, 0x5010);
	cr_assert_eq(rd.size, 8);
	cr_assert_eq(rd.val.k, ~0ull);
	cr_assert_eq(rd.val.v, 0x402000);
	/* With no next instruction: the word, its value not known. */
	in.next = 0;
	rcv_reads(&ctx, &in, &pre, &post, &rd);
	cr_assert(rd.valid);
	cr_assert_eq(rd.val.k, 0);
	/* call *0x8(%rsp): the address from rsp before the push. */
	in = BR("\xff\x54\x24\x08", RP_IC_CALL, 0x403000);
	pre.r[RP_REG_RSP] = val(0x7000);
	rcv_reads(&ctx, &in, &pre, &post, &rd);
	cr_assert(rd.valid && rd.addr_known);
	cr_assert_eq(rd.addr, 0x7008);
	cr_assert_eq(rd.val.v, 0x403000);
}
