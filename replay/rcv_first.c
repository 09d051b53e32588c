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
 * another point, would leave it elsewhere).  Where the first state lies
 * in the chain or the ramp before it, the fact flows to the end with the
 * windows, from the ramp through its summaries once they are computed
 * (before session 17 the chain alone, so a history longer than 16
 * windows, workload's 273,185 instructions, never had its start's
 * registers); on a longer history it lies in the start ramp's first
 * window and flows through its summaries (rcv_sum.c; before session 18
 * it was not taken there, and a history of 10^6 instructions knew 5 of
 * 17 registers 10,000 instructions after its start).  No assumption
 * about the program: also in strict mode.
 *
 * The same record at a system call's completion (PTREC_SB_REGS_SYSCALL)
 * gives the kernel's result, rax, which no engine derives, and rcx and r11
 * as the call left them (r11 is RFLAGS at the call, which the engine may
 * not know): facts at the state after the call, found by the recorder's
 * order (the record is written after the call's issue, tsc(p), and
 * before the thread's next instruction's enable, tsc(p + 1), as
 * rcv_clone.c finds a clone), where
 * p is a SYSCALL (0f 05), the next instruction is at the record's rip,
 * the address after it, and no SIGNAL record of the thread lies between
 * the record and that instruction (a handler's first instruction there
 * starts with the kernel's registers, not the call's result).
 */
#include <stdlib.h>

#include "rcv_win.h"

/* The record's registers are enum rp_reg's, in its order. */
_Static_assert(PTREC_SB_NREGS == RP_REG_COUNT && RP_REG_RIP == 16 &&
	       RP_REG_EFLAGS == 17 && RCV_FLAGS == 16, "REGS order");

/* Most system call results taken per engine (the chain's last ones). */
#define SYSRET_MAX	4096

/* Whether a SIGNAL record of @tid lies after record @i of @s, at a time
 * not above @t.
 */
bool rcv_signal_between(const struct rp_session *s, size_t i, uint32_t tid,
			uint64_t t)
{
	for (i++; i < s->nrecs && s->recs[i]->time <= t; i++)
		if (s->recs[i]->type == PTREC_SB_SIGNAL &&
		    ((const struct ptrec_sb_signal *)s->recs[i])->tid == tid)
			return true;
	return false;
}

/* The REGS record of @tid's start in @s (its index at @at), or NULL. */
static const struct ptrec_sb_regs *start_rec(const struct rp_session *s,
					      uint32_t tid, size_t *at)
{
	size_t i;

	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_regs *g = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_REGS &&
		    g->where == PTREC_SB_REGS_START && g->tid == tid) {
			*at = i;
			return g;
		}
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
	int n = 0, ret;
	size_t at;

	if (!rc->count)
		return 0;
	g = start_rec(rc->s, rc->tid, &at);
	if (!g)
		return 0;
	/* A signal delivered before the first instruction (the record is
	 * written as the recorder resumes the thread, before the kernel
	 * picks the signal): the history starts with its handler, whose
	 * entry may lie at the record's rip (review 13's forksig).
	 */
	if (!rp_cursor_new(rc->s, rc->tid, &c) &&
	    !rp_cursor_peek(c, 0, &first) &&
	    !rcv_signal_between(rc->s, at, rc->tid, first.tsc))
		n = rcv_first_facts(g, first.ip, f);
	rp_cursor_free(c);
	if (!n)
		return 0;
	ret = rcv_facts_add(rc, f, n);
	return ret ? ret : n;
}

/*
 * Times: an instruction's is its last timing packet's, which is not
 * above the time the instruction ran (a TSC packet's value is when it
 * was made; every instruction before it ran before, every one after it
 * after: SDM Vol. 3C, "TSC packet").  The software recorder's trace has
 * a TSC packet at each enable after the record, so p + 1 is the first
 * instruction timed above the record, q, and q - 1 is its call.
 *
 * ptrec.ko's (@coarse): a record at a call's sys_exit lies after a
 * switch-in's PSB+ and TSC packet during the call, and Intel PT writes
 * TSC packets at PSB+ and enables only, not at a system call's return;
 * the instructions after the call keep the packet's time, not above the
 * record's, and q is the first after the next timing packet, which may
 * follow a later call from the same SYSCALL (a read in a loop: the
 * earlier call's result at the later call's return).  What is sure: a,
 * the first instruction timed as q - 1, follows the packet of that time,
 * which was made not after the record; every instruction before a ran
 * before it, so the record's call is one of a - 1 .. q - 1, and it is
 * q - 1 only when that is their only SYSCALL.  A run from the history's
 * first instruction: a - 1 may be a call before the trace (a thread
 * attached inside a system call), not sure.  With MTC or CYC packets
 * the runs are short; with TSC packets only few calls pass.
 */
#define SYSRET_RUN_MAX	4096

static bool sysret_alone(const struct rcv_hist *h, uint64_t q,
			 uint64_t tsc)
{
	struct rp_insn x;
	uint64_t i;

	for (i = q - 1; i-- > 0;) {
		if (q - i > SYSRET_RUN_MAX || h->peek(h->ctx, i, &x) ||
		    rp_insn_is_syscall(&x))
			return false;
		if (x.tsc != tsc)	/* a - 1 */
			return true;
	}
	return false;
}

uint64_t rcv_sysret_at(const struct rcv_hist *h, uint64_t t, uint64_t rip,
		       bool coarse)
{
	struct rp_insn in, next;
	uint64_t q = rcv_order_first_after(h, t);

	if (q == UINT64_MAX || !q || h->peek(h->ctx, q - 1, &in) ||
	    h->peek(h->ctx, q, &next) || !rp_insn_is_syscall(&in) ||
	    in.ip + 2 != rip || next.ip != rip ||
	    (coarse && !sysret_alone(h, q, in.tsc)))
		return UINT64_MAX;
	return q;
}

/* Is record @i of @s a system call's REGS record of thread @tid? */
static bool is_sysret(const struct rp_session *s, size_t i, uint32_t tid)
{
	const struct ptrec_sb_regs *g = (const void *)s->recs[i];

	return s->recs[i]->type == PTREC_SB_REGS && g->tid == tid &&
	       g->where == PTREC_SB_REGS_SYSCALL;
}

/*
 * Does the trace lose instructions right before @q (a gap: after an
 * overflow the SYSCALL before it and the instruction at its return
 * address after it need not be one call's)?  Defensive: no recording
 * here has shown it (session 18's review).
 */
static bool gap_before(struct rp_recover *rc, uint64_t q)
{
	struct rp_gap gap;
	size_t k;

	for (k = 0; !rp_thread_gap(rc->s, rc->tid, k, &gap); k++)
		if (gap.before == q)
			return true;
	return false;
}

/*
 * Record @i of the session, if a system call's completion of the thread
 * found at a state in (@lo, @hi]: its facts in @f (every register the
 * record has: rax..r15 and rflags, in the engine's order as
 * rcv_first_facts() takes them; rax, rcx and r11 as the call left them,
 * the others as they were before it), their number, 0 when not taken.
 */
static int sysret_facts(struct rp_recover *rc, const struct rcv_hist *h,
			struct rp_cursor *c, size_t i, uint64_t lo,
			uint64_t hi, bool coarse, struct rp_fact *f)
{
	const struct rp_session *s = rc->s;
	const struct ptrec_sb_regs *g = (const void *)s->recs[i];
	struct rp_insn next;
	unsigned int k;
	uint64_t q;
	int nf;

	if (!is_sysret(s, i, rc->tid) ||
	    (~g->valid & (1ull << RP_REG_RAX | 1ull << RP_REG_RIP)))
		return 0;
	q = rcv_sysret_at(h, s->recs[i]->time, g->regs[RP_REG_RIP], coarse);
	if (q == UINT64_MAX || q <= lo || q > hi || q >= rc->count ||
	    rp_cursor_peek(c, q, &next) ||
	    rcv_signal_between(s, i, rc->tid, next.tsc) || gap_before(rc, q))
		return 0;
	for (k = 0, nf = 0; k < RCV_NREG; k++) {
		unsigned int r = k < RCV_FLAGS ? k : RP_REG_EFLAGS;

		if (g->valid >> r & 1)
			f[nf++] = (struct rp_fact){ q, k, g->regs[r] };
	}
	return nf;
}

/* sysret_facts()'s facts added to rc->facts: 1, 0 or an error. */
static int sysret_take(struct rp_recover *rc, const struct rcv_hist *h,
		       struct rp_cursor *c, size_t i, uint64_t lo,
		       uint64_t hi, bool coarse)
{
	struct rp_fact f[RCV_NREG];
	int nf = sysret_facts(rc, h, c, i, lo, hi, coarse, f), ret;

	if (nf <= 0)
		return 0;
	ret = rcv_facts_add(rc, f, nf);
	return ret ? ret : 1;
}

/* The first of the session's records at a time not below @t. */
static size_t rec_at_time(const struct rp_session *s, uint64_t t)
{
	size_t lo = 0, hi = s->nrecs;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (s->recs[m]->time < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/*
 * The session's records in the times of states @first..@last (a call
 * there ran after the first one's timing packet; the last's, or the end):
 * the first record's index in *@i0, the last time in *@t_hi.  false when
 * the cursor cannot read @first.
 */
static bool span_recs(struct rp_recover *rc, struct rp_cursor *c,
		      uint64_t first, uint64_t last, size_t *i0,
		      uint64_t *t_hi)
{
	struct rp_insn a, b;

	if (rp_cursor_peek(c, first, &a))
		return false;
	if (last >= rc->count || rp_cursor_peek(c, last, &b))
		b.tsc = UINT64_MAX;
	*i0 = rec_at_time(rc->s, a.tsc);
	*t_hi = b.tsc;
	return true;
}

bool rcv_sysret_any(struct rp_recover *rc, uint64_t first, uint64_t last)
{
	const struct rp_session *s = rc->s;
	struct rp_cursor *c = NULL;
	uint64_t t_hi;
	size_t i;
	bool any = true;	/* unless shown otherwise */

	if (!rc->count || rp_cursor_new(rc->s, rc->tid, &c))
		return true;
	if (span_recs(rc, c, first, last, &i, &t_hi))
		for (any = false; !any && i < s->nrecs &&
		     s->recs[i]->time <= t_hi; i++)
			any = is_sysret(s, i, rc->tid);
	rp_cursor_free(c);
	return any;
}

int rcv_sysret_local(struct rp_recover *rc, uint64_t first, uint64_t last,
		     struct rcv_fact **out, size_t *nout)
{
	const struct rp_session *s = rc->s;
	bool coarse = !rcv_backend_emu(s);
	struct rp_cursor *c = NULL;
	struct rcv_fact *lf = NULL, *t;
	struct rp_fact f[RCV_NREG];
	struct rcv_hist h;
	size_t i, n = 0, cap = 0;
	uint64_t t_hi;
	int nf, k;

	*out = NULL;
	*nout = 0;
	if (!rc->count || rp_cursor_new(rc->s, rc->tid, &c))
		return 0;
	if (!span_recs(rc, c, first, last, &i, &t_hi)) {
		rp_cursor_free(c);
		return 0;
	}
	h = (struct rcv_hist){ rcv_order_peek, c, rc->count };
	for (; i < s->nrecs && s->recs[i]->time <= t_hi &&
	     n < SYSRET_MAX * RCV_NREG; i++) {
		nf = sysret_facts(rc, &h, c, i, first, last, coarse, f);
		if (nf <= 0)
			continue;
		if (n + (size_t)nf > cap) {
			cap = cap ? 2 * cap : 64;
			t = realloc(lf, cap * sizeof(*lf));
			if (!t) {
				free(lf);
				rp_cursor_free(c);
				return -RP_ERR_NOMEM;
			}
			lf = t;
		}
		for (k = 0; k < nf; k++)
			lf[n++] = (struct rcv_fact){ f[k].pos, f[k].val,
						     f[k].reg };
	}
	rp_cursor_free(c);
	*out = lf;
	*nout = n;
	return 0;
}

/*
 * The start ramp's (rcv_sum.c): the first SYSRET_MAX of the thread's
 * records up to its last state @hi's time, at states before @hi.  Not
 * at @hi: it is also the first state of the window after the start
 * ramp, which is computed on its own (rcv_win_alone(): watch_chain.c's
 * quiet windows take it to know nothing from outside), and the start
 * ramp's last summary seeds no window.  (A getpid() whose return fell
 * there gave that window rsp, and the engine knew the stack accesses
 * the quiet proof calls secret: test_watch_chain.c start_ramp_edge.)
 */
static int sysret_start(struct rp_recover *rc, const struct rcv_hist *h,
			struct rp_cursor *c, uint64_t hi, bool coarse)
{
	const struct rp_session *s = rc->s;
	struct rp_insn in;
	uint64_t t_hi;
	size_t i;
	int n = 0, ret;

	if (hi == UINT64_MAX || rp_cursor_peek(c, hi, &in))
		return 0;
	t_hi = in.tsc;
	for (i = 0; i < s->nrecs && s->recs[i]->time <= t_hi &&
		    n < SYSRET_MAX; i++) {
		ret = sysret_take(rc, h, c, i, 0, hi - 1, coarse);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

int rcv_sysret_regs(struct rp_recover *rc)
{
	const struct rp_session *s = rc->s;
	uint64_t lo, t_lo = 0;
	struct rp_cursor *c = NULL;
	struct rp_insn in;
	bool coarse = !rcv_backend_emu(s), got_lo = false;
	struct rcv_hist h;
	size_t i, from = 0;
	int n = 0, ret = 0, m;

	if (!rc->count)
		return 0;
	/* The first position the chain and the ramp reach, and its time. */
	lo = rcv_reach_first(rc);
	if (rp_cursor_new(rc->s, rc->tid, &c))
		return 0;
	h = (struct rcv_hist){ rcv_order_peek, c, rc->count };
	/* The last SYSRET_MAX of the thread's records in that reach.  Its
	 * first time is asked (a segment's decode, 13.7 M Ir at 10^7) only
	 * at the first such record: records are in time order, so one
	 * later than it before that time would put it before the time too.
	 */
	for (i = s->nrecs; i-- > 0 && n < SYSRET_MAX;) {
		if (got_lo && s->recs[i]->time < t_lo)
			break;
		if (is_sysret(s, i, rc->tid)) {
			if (!got_lo) {
				got_lo = true;
				if (lo && !rp_cursor_peek(c, lo, &in))
					t_lo = in.tsc;
				if (s->recs[i]->time < t_lo)
					break;
			}
			from = i;
			n++;
		}
	}
	/* From the earliest of them on (records are in time order). */
	for (i = from, m = n, n = 0; m && i < s->nrecs; i++) {
		ret = sysret_take(rc, &h, c, i, lo, UINT64_MAX, coarse);
		if (ret < 0)
			break;
		n += ret;
	}
	if (ret >= 0) {
		ret = sysret_start(rc, &h, c, rcv_start_reach(rc), coarse);
		if (ret > 0)
			n += ret;
	}
	rp_cursor_free(c);
	return ret < 0 ? ret : n;
}
