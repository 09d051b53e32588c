// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_first.c's facts (rcv_first_facts()): a REGS
 * record of a thread's start gives its first state's rax..r15 and rflags
 * (those valid, rflags at the state's flags index), only when its rip is
 * the first instruction's address and its place the start; never rip,
 * segments or fs_base.  And rcv_sysret_at(): which SYSCALL a system call
 * record names by its time, in a history whose times are the software
 * recorder's exact order and in one whose times are only its timing
 * packets' (ptrec.ko on Intel PT: none at a system call's return).
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

/* A history: each instruction's address, whether a SYSCALL, its time. */
struct hinsn {
	uint64_t ip;
	bool sys;
	uint64_t tsc;
};

static int hpeek(void *ctx, uint64_t pos, struct rp_insn *insn)
{
	const struct hinsn *v = ctx;

	memset(insn, 0, sizeof(*insn));
	insn->ip = v[pos].ip;
	insn->size = v[pos].sys ? 2 : 1;
	if (v[pos].sys) {
		insn->raw[0] = 0x0f;
		insn->raw[1] = 0x05;
	}
	insn->tsc = v[pos].tsc;
	return 0;
}

Test(rcv_first, sysret_exact_times)
{
	/* the call at 1; the record (150) before the enable's TSC (200) */
	static const struct hinsn v[] = {
		{ 0x1ff0, false, 100 }, { 0x2000, true, 100 },
		{ 0x2002, false, 200 }, { 0x2003, false, 200 },
	};
	struct rcv_hist h = { hpeek, (void *)v, 4 };

	cr_assert_eq(rcv_sysret_at(&h, 150, 0x2002, false), 2);
	/* coarse: the call's run starts the history, not sure */
	cr_assert_eq(rcv_sysret_at(&h, 150, 0x2002, true), UINT64_MAX);
	/* another rip, or a time that finds no SYSCALL before it */
	cr_assert_eq(rcv_sysret_at(&h, 150, 0x2004, false), UINT64_MAX);
	cr_assert_eq(rcv_sysret_at(&h, 50, 0x2002, false), UINT64_MAX);
}

/*
 * ptrec.ko on Intel PT, a read in a loop: each call blocks; the switch-in
 * during it writes PSB+ with a TSC packet (300, 500), and the record at
 * its sys_exit comes after (350, 550).  No packet at the returns: the
 * first instruction timed above 350 is the one after the second call.
 * The exact-time rule takes call 1's result there (wrong); the coarse
 * rule sees two SYSCALLs where call 1's record may lie, and takes none.
 */
Test(rcv_first, sysret_coarse_times)
{
	static const struct hinsn v[] = {
		{ 0x1ff0, false, 100 }, { 0x2000, true, 100 },
		{ 0x2002, false, 300 }, { 0x2003, false, 300 },
		{ 0x2000, true, 300 },
		{ 0x2002, false, 500 }, { 0x2003, false, 500 },
	};
	struct rcv_hist h = { hpeek, (void *)v, 7 };

	cr_assert_eq(rcv_sysret_at(&h, 350, 0x2002, false), 5,
		     "the careless rule: the second call's return");
	cr_assert_eq(rcv_sysret_at(&h, 350, 0x2002, true), UINT64_MAX);
}

/* With MTC packets: one SYSCALL in the run before q: that call's. */
Test(rcv_first, sysret_coarse_one_call)
{
	static const struct hinsn v[] = {
		{ 0x2000, true, 90 }, { 0x2002, false, 95 },
		{ 0x1ff0, false, 100 }, { 0x1ff1, false, 110 },
		{ 0x2000, true, 110 }, { 0x2002, false, 160 },
	};
	struct rcv_hist h = { hpeek, (void *)v, 6 };

	cr_assert_eq(rcv_sysret_at(&h, 150, 0x2002, true), 5);
	/* the run reaches the history's start: a call before it? */
	cr_assert_eq(rcv_sysret_at(&h, 92, 0x2002, false), 1);
	cr_assert_eq(rcv_sysret_at(&h, 92, 0x2002, true), UINT64_MAX);
}

/*
 * A thread attached inside a blocking read: its trace starts at the
 * read's return (0), timed by the load's PSB+ (300), before the read's
 * record (350); the next timing packet follows the next read from the
 * same SYSCALL.  The record is the first read's, whose SYSCALL is not in
 * the history.
 */
Test(rcv_first, sysret_coarse_call_before_the_trace)
{
	static const struct hinsn v[] = {
		{ 0x2002, false, 300 }, { 0x2003, false, 300 },
		{ 0x2000, true, 300 }, { 0x2002, false, 500 },
	};
	struct rcv_hist h = { hpeek, (void *)v, 4 };

	cr_assert_eq(rcv_sysret_at(&h, 350, 0x2002, false), 3,
		     "the careless rule: the second read's return");
	cr_assert_eq(rcv_sysret_at(&h, 350, 0x2002, true), UINT64_MAX);
}

/* The run before q reaches back to the call before (a - 1): not sure. */
Test(rcv_first, sysret_coarse_call_before)
{
	static const struct hinsn v[] = {
		{ 0x2000, true, 90 }, { 0x2002, false, 110 },
		{ 0x1ff0, false, 110 }, { 0x2000, true, 110 },
		{ 0x2002, false, 160 },
	};
	struct rcv_hist h = { hpeek, (void *)v, 5 };

	cr_assert_eq(rcv_sysret_at(&h, 150, 0x2002, false), 4);
	cr_assert_eq(rcv_sysret_at(&h, 150, 0x2002, true), UINT64_MAX);
}
