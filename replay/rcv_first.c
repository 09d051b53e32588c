// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A thread's registers where its history starts (issue #17,
 * docs/values.md "Registers where a history starts"): a recorder that
 * knows them writes a REGS record (PTREC_SB_REGS_START, sideband version
 * 5) with the state before the first instruction the thread's trace
 * shows.  Without it, a register set before the history and read in it
 * (main's r8 and r9 from __libc_start_main, a resolver's saved argument
 * registers) is known only if the history or the end shows it again, and
 * one never read before it is overwritten never is.  The record's general-
 * purpose registers and rflags become facts at the first state, merged
 * into it as rcv_clone.c's are (a fact that contradicts what the engine
 * derives shows as a conflict).
 *
 * The record is taken only when its rip is the first instruction's
 * address (a signal delivered before it, or a recorder that wrote it at
 * another point, would leave it elsewhere) and only where the first
 * state lies in the chain (as rcv_clone.c: a fact there flows to the end
 * with the windows).  No assumption about the program: also in strict
 * mode.
 */
#include "rcv_win.h"

/* The record's registers are enum rp_reg's, in its order. */
_Static_assert(PTREC_SB_NREGS == RP_REG_COUNT && RP_REG_RIP == 16 &&
	       RP_REG_EFLAGS == 17 && RCV_FLAGS == 16, "REGS order");

/* The REGS record of @tid's start in @s, or NULL. */
static const struct ptrec_sb_regs *start_rec(const struct rp_session *s,
					      uint32_t tid)
{
	size_t i;

	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_regs *g = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_REGS &&
		    g->where == PTREC_SB_REGS_START && g->tid == tid)
			return g;
	}
	return NULL;
}

int rcv_first_facts(const struct ptrec_sb_regs *g, uint64_t first_ip,
		    struct rp_fact *f)
{
	unsigned int k;
	int n = 0;

	if (g->where != PTREC_SB_REGS_START ||
	    !(g->valid >> RP_REG_RIP & 1) || g->regs[RP_REG_RIP] != first_ip)
		return 0;
	/* rax..r15 are enum rp_reg's first 16, rflags the record's 17. */
	for (k = 0; k < RCV_NREG; k++) {
		unsigned int r = k < RCV_FLAGS ? k : RP_REG_EFLAGS;

		if (g->valid >> r & 1)
			f[n++] = (struct rp_fact){ 0, k, g->regs[r] };
	}
	return n;
}

int rcv_first_regs(struct rp_recover *rc)
{
	const struct ptrec_sb_regs *g;
	struct rp_cursor *c = NULL;
	struct rp_fact f[RCV_NREG];
	struct rp_insn first;
	int n = 0, k, ret;

	if (!rc->count || rc->end / rc->block >= RCV_CHAIN)
		return 0;
	g = start_rec(rc->s, rc->tid);
	if (!g)
		return 0;
	if (!rp_cursor_new(rc->s, rc->tid, &c) &&
	    !rp_cursor_peek(c, 0, &first))
		n = rcv_first_facts(g, first.ip, f);
	rp_cursor_free(c);
	if (!n)
		return 0;
	ret = rcv_facts_reserve(rc, (size_t)n);
	if (ret)
		return ret;
	for (k = 0; k < n; k++)
		rc->facts[rc->nfacts++] = (struct rcv_fact){ f[k].pos,
							     f[k].val,
							     f[k].reg };
	return n;
}
