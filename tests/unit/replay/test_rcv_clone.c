// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_clone.c's facts (rcv_clone_regs()): a child's
 * first state from its creator's registers before clone, clone3, fork or
 * vfork: the registers the kernel copies where the creator's are known,
 * rax 0, rcx the address after the call, never r11; rsp the new stack
 * (clone's rsi, clone3's stack + stack_size) or, without one, the
 * creator's; no rsp where the stack is not known; nothing for another
 * call.
 */
#include <criterion/criterion.h>

#include "rcv_win.h"

static struct rp_regs regs(void)
{
	struct rp_regs r = { 0 };
	unsigned int g;

	for (g = 0; g < 16; g++) {
		r.val[g] = 0x1000 + g;
		r.valid |= 1ull << g;
	}
	return r;
}

/* The fact for @reg among @f[0..@n), or NULL. */
static const struct rp_fact *fact(const struct rp_fact *f, int n,
				  unsigned int reg)
{
	int k;

	for (k = 0; k < n; k++)
		if (f[k].reg == reg)
			return &f[k];
	return NULL;
}

Test(rcv_clone, copied_registers)
{
	struct rp_regs r = regs();
	struct rp_fact f[16];
	uint64_t st[2] = { 0, 0 };
	int n = rcv_clone_regs(56, &r, st, false, 0x401002, f);

	cr_assert_eq(fact(f, n, RP_REG_R12)->val, 0x1000 + RP_REG_R12);
	cr_assert_eq(fact(f, n, RP_REG_RBX)->val, 0x1000 + RP_REG_RBX);
	cr_assert_eq(fact(f, n, RP_REG_RAX)->val, 0, "the child's result");
	cr_assert_eq(fact(f, n, RP_REG_RCX)->val, 0x401002);
	cr_assert_null(fact(f, n, RP_REG_R11), "rflags with the trap flag");
	cr_assert_eq(fact(f, n, RP_REG_RSP)->val, 0x1000 + RP_REG_RSI,
		     "clone's new stack");
	for (n--; n >= 0; n--)
		cr_assert_eq(f[n].pos, 0);
	r.valid &= ~(1ull << RP_REG_R12);
	n = rcv_clone_regs(56, &r, st, false, 0x401002, f);
	cr_assert_null(fact(f, n, RP_REG_R12), "not known: no fact");
}

Test(rcv_clone, the_stack)
{
	struct rp_regs r = regs();
	struct rp_fact f[16];
	uint64_t st[2] = { 0x7000, 0x1000 };
	int n;

	r.val[RP_REG_RSI] = 0;		/* clone without a stack */
	n = rcv_clone_regs(56, &r, st, false, 0, f);
	cr_assert_eq(fact(f, n, RP_REG_RSP)->val, 0x1000 + RP_REG_RSP);
	r.valid &= ~(1ull << RP_REG_RSI);	/* not known */
	n = rcv_clone_regs(56, &r, st, false, 0, f);
	cr_assert_null(fact(f, n, RP_REG_RSP));
	n = rcv_clone_regs(435, &r, st, true, 0, f);
	cr_assert_eq(fact(f, n, RP_REG_RSP)->val, 0x8000,
		     "clone3: stack + stack_size");
	n = rcv_clone_regs(435, &r, st, false, 0, f);
	cr_assert_null(fact(f, n, RP_REG_RSP), "clone_args not known");
	st[0] = 0;
	n = rcv_clone_regs(435, &r, st, true, 0, f);
	cr_assert_eq(fact(f, n, RP_REG_RSP)->val, 0x1000 + RP_REG_RSP);
	n = rcv_clone_regs(57, &r, st, false, 0, f);	/* fork */
	cr_assert_eq(fact(f, n, RP_REG_RSP)->val, 0x1000 + RP_REG_RSP);
	n = rcv_clone_regs(58, &r, st, false, 0, f);	/* vfork */
	cr_assert_eq(fact(f, n, RP_REG_RSP)->val, 0x1000 + RP_REG_RSP);
}

Test(rcv_clone, other_calls)
{
	struct rp_regs r = regs();
	struct rp_fact f[16];
	uint64_t st[2] = { 0, 0 };

	cr_assert_eq(rcv_clone_regs(60, &r, st, false, 0, f), 0);
	cr_assert_eq(rcv_clone_regs(-1, &r, st, false, 0, f), 0);
	cr_assert_eq(rcv_clone_regs(9, &r, st, false, 0, f), 0);
}
