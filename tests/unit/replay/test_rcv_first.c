// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_first.c's facts (rcv_first_facts()): a REGS
 * record of a thread's start gives its first state's rax..r15 and rflags
 * (those valid, rflags at the state's flags index), only when its rip is
 * the first instruction's address and its place the start; never rip,
 * segments or fs_base.
 */
#include <criterion/criterion.h>

#include "rcv_win.h"

static struct ptrec_sb_regs rec(uint64_t rip)
{
	struct ptrec_sb_regs g = { .hdr = { .type = PTREC_SB_REGS },
				   .tid = 7, .where = PTREC_SB_REGS_START };
	unsigned int i;

	for (i = 0; i < PTREC_SB_NREGS; i++) {
		g.regs[i] = 0x1000 + i;
		g.valid |= 1ull << i;
	}
	g.regs[RP_REG_RIP] = rip;
	g.regs[RP_REG_EFLAGS] = 0x246;
	return g;
}

Test(rcv_first, every_register_at_the_first_state)
{
	struct ptrec_sb_regs g = rec(0x401000);
	struct rp_fact f[RCV_NREG];
	int n = rcv_first_facts(&g, 0x401000, f), k;

	cr_assert_eq(n, RCV_NREG);
	for (k = 0; k < n; k++) {
		cr_assert_eq(f[k].pos, 0);
		cr_assert_eq(f[k].reg, (unsigned int)k);
		cr_assert_eq(f[k].val, k == RCV_FLAGS ? 0x246 :
			     0x1000 + (uint64_t)k);
	}
}

Test(rcv_first, only_those_valid)
{
	struct ptrec_sb_regs g = rec(0x401000);
	struct rp_fact f[RCV_NREG];
	int n;

	g.valid &= ~(1ull << RP_REG_R9 | 1ull << RP_REG_EFLAGS);
	g.regs[RP_REG_R9] = 0;
	g.regs[RP_REG_EFLAGS] = 0;
	n = rcv_first_facts(&g, 0x401000, f);
	cr_assert_eq(n, RCV_NREG - 2);
	while (n--)
		cr_assert(f[n].reg != RP_REG_R9 && f[n].reg != RCV_FLAGS);
}

Test(rcv_first, none_elsewhere)
{
	struct ptrec_sb_regs g = rec(0x401000);
	struct rp_fact f[RCV_NREG];

	/* A handler entered first, or a record of another point. */
	cr_assert_eq(rcv_first_facts(&g, 0x401003, f), 0);
	g.valid &= ~(1ull << RP_REG_RIP);
	g.regs[RP_REG_RIP] = 0;
	cr_assert_eq(rcv_first_facts(&g, 0, f), 0);
	g = rec(0x401000);
	g.where = PTREC_SB_REGS_SYSCALL;
	cr_assert_eq(rcv_first_facts(&g, 0x401000, f), 0);
}

/*
 * What the system call records pair with (rcv_sysret_regs()) and what
 * the other rules take for a system call: SYSCALL's two bytes alone, not
 * SYSENTER (0f 34), not int 0x80 (its own test), not a longer
 * instruction that starts with them.
 */
Test(rcv_first, syscall_instruction_bytes)
{
	struct rp_insn in = { .size = 2, .raw = { 0x0f, 0x05 } };

	cr_assert(rp_insn_is_syscall(&in));
	cr_assert(!rp_insn_is_int80(&in));
	in.raw[1] = 0x34;
	cr_assert(!rp_insn_is_syscall(&in));
	in.raw[0] = 0xcd;
	in.raw[1] = 0x80;
	cr_assert(rp_insn_is_int80(&in));
	cr_assert(!rp_insn_is_syscall(&in));
	in.size = 3;
	in.raw[0] = 0x0f;
	in.raw[1] = 0x05;
	cr_assert(!rp_insn_is_syscall(&in));
	in.raw[0] = 0xcd;
	in.raw[1] = 0x80;
	cr_assert(!rp_insn_is_int80(&in));
}
