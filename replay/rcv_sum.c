// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The ramp (issue #17): what the history's start teaches reaches the
 * windows near the end without keeping the windows between.  The chain
 * (recover.c) holds RCV_CHAIN windows back from the end, each about 8 MB,
 * and every question computes every chained window after it; a register
 * set at main's start (workload's r12, 270,000 instructions before its
 * end) lay beyond it.  Before the chain, up to RCV_RAMP windows on the
 * same grid are computed forward from the oldest one (the history's start,
 * or the ramp's first window on a longer history), each starting with the
 * last state of the one before, and freed: each leaves a summary, its last
 * state (17 registers and xmm0-15's low halves, 792 bytes).  The chain's oldest window starts with
 * the summary of the window before it; a window beyond the chain that a
 * question asks is computed with the summary of the window before it.
 *
 * A summary depends on the history alone (the oldest window's own
 * knowledge, carried forward), never on which questions came first, so a
 * far window still knows the same whatever was asked before it.  Sound:
 * the last state of window k + 1 and the first of window k are the same
 * position, and each was implied by the history where it was computed.
 * The chain's own forward flow (what a chained window knows at its end
 * carried into the next, rcv_win_forward() and rcv_flow_forward()) is
 * here too: both are what flows between windows.
 *
 * The start ramp: on a history longer than the chain and the ramp, the
 * windows between them and the history's start knew nothing from
 * outside (a window on its own starts from nothing: no stack pointer,
 * so none of its frames' values; a gdbloop of 10^6 instructions knew 5
 * of 17 registers 10,000 instructions after its start, where the
 * recorder wrote every register).  Its first RCV_START windows are
 * computed forward from the history's first, which takes the start's
 * registers (rcv_first.c), each with the summary of the one before, as
 * the ramp's are (rc->ssum).  What one knows depends on the history
 * alone again: a question there computes the start ramp's summaries
 * from its first window down to it (at most RCV_START windows), the
 * prefetch one a call.  The windows between the start ramp and the
 * ramp stay on their own (rcv_win_alone(); watch_chain.c's quiet
 * windows are only those).
 */
#include <stdio.h>
#include <stdlib.h>

#include "rcv_win.h"

/*
 * New knowledge at the start of @w carried forward, one instruction after
 * the other while it adds anything (a full recompute per window would make
 * a walk back through the chain quadratic).  *@end_ch: the window's last
 * state changed.
 */
int rcv_win_forward(struct rp_recover *rc, struct win *w, bool *end_ch)
{
	struct rcv_ctx *c = &rc->ctx;
	size_t i, quiet = 0;
	int ret;

	*end_ch = false;
	c->mctx = w;
	ret = rcv_index_touch(w, 0);	/* the start, which changed */
	if (ret)
		return ret;
	/* The memory index follows each state that changed (as the passes'
	 * live index does), also where the sweep stops early: an address
	 * learnt here (the window's first stores, through a register its
	 * start now has) places an access that was a store of unknown
	 * address, at which a question from the window before, walking on
	 * into this one, stopped (a full rebuild only when the sweep went
	 * through cost 1.2x on gdbloop's chain).
	 */
	for (i = 0; i < w->n; i++) {
		if (rcv_forward(c, i, &w->ins[i], &w->st[i], &w->st[i + 1],
				&rc->stats.conflicts)) {
			quiet = 0;
			ret = rcv_index_touch(w, i + 1);
			if (ret)
				return ret;
		} else if (++quiet > 64) {
			break;
		}
	}
	*end_ch = i == w->n && quiet == 0;
	if (rc->verify)
		rcv_index_verify(w, "the forward flow");
	return 0;
}

/*
 * What window @k of the chain (just computed) knows at its end is what
 * the window after it knows at its start: it flows forward, window after
 * window, as far as it adds anything (loop counters set long before).
 */
int rcv_flow_forward(struct rp_recover *rc, size_t k)
{
	size_t j;
	int g, ret;

	for (j = k; j > 0; j--) {
		struct win *e = rc->chain[j], *l = rc->chain[j - 1];
		bool ch = false;

		for (g = 0; g < RCV_NREG; g++)
			ch |= rcv_merge(&l->st[0].r[g], e->st[e->n].r[g],
					&rc->stats.conflicts);
		ch |= rcv_sse_flow(&l->st[0], &e->st[e->n], 0,
				   &rc->stats.conflicts);
		if (getenv("PTREC_RCV_DEBUG"))
			fprintf(stderr, "recover: forward into window "
				"%zu: %d\n", j - 1, ch);
		if (!ch)
			break;
		ret = rcv_win_forward(rc, l, &ch);
		if (ret)
			return ret;
		if (!ch)
			break;
	}
	return 0;
}

/* States @first..@last of window @k of the grid. */
static void win_span(const struct rp_recover *rc, uint64_t k, uint64_t *first,
		     uint64_t *last)
{
	*last = rc->end - k * rc->block;
	*first = *last > rc->block ? *last - rc->block : 0;
}

/* The ramp's first (oldest) window: the history's start when the ramp
 * and the start ramp together would reach it (one ramp from the start,
 * at most RCV_RAMP + RCV_START windows), else RCV_RAMP windows before the
 * chain.
 */
static uint64_t ramp_start(const struct rp_recover *rc)
{
	uint64_t oldest = rc->end / rc->block;

	return oldest < RCV_CHAIN + RCV_RAMP + RCV_START ? oldest :
							   RCV_CHAIN + RCV_RAMP - 1;
}

uint64_t rcv_ramp_start(const struct rp_recover *rc)
{
	return ramp_start(rc);
}

uint64_t rcv_reach_first(const struct rp_recover *rc)
{
	uint64_t span = (ramp_start(rc) + 1) * rc->block;

	return rc->end > span ? rc->end - span + 1 : 0;
}

/* The history's oldest window on the grid (0 for an empty history). */
static uint64_t oldest_win(const struct rp_recover *rc)
{
	return rc->end ? (rc->end - 1) / rc->block : 0;
}

/*
 * The start ramp's newest window (the windows from the oldest down to it
 * are the start ramp's), or UINT64_MAX when there is none: the ramp
 * reaches the history's start.
 */
static uint64_t start_lo(const struct rp_recover *rc)
{
	uint64_t old = oldest_win(rc), lo = ramp_start(rc) + 1;

	if (old < lo)
		return UINT64_MAX;
	return old - lo + 1 > RCV_START ? old - RCV_START + 1 : lo;
}

static bool in_start(const struct rp_recover *rc, uint64_t k)
{
	return k >= start_lo(rc) && k <= oldest_win(rc);
}

uint64_t rcv_start_reach(const struct rp_recover *rc)
{
	uint64_t lo = start_lo(rc);

	return lo == UINT64_MAX ? UINT64_MAX : rc->end - lo * rc->block;
}

bool rcv_win_alone(struct rp_recover *rc, uint64_t k)
{
	uint64_t first, last;

	if (k <= ramp_start(rc) || in_start(rc, k))
		return false;
	/* A system call record in it gives its registers there
	 * (rcv_win_new_alone()): the engine may know what nothing else in
	 * the window shows.
	 */
	if (rc->alone_memo && rc->alone_k == k && rc->alone_block == rc->block)
		return rc->alone_v;
	win_span(rc, k, &first, &last);
	rc->alone_v = !rcv_sysret_any(rc, first, last);
	rc->alone_k = k;
	rc->alone_block = rc->block;
	rc->alone_memo = true;
	return rc->alone_v;
}

/* The summary of window @k the window after it starts with, or NULL. */
static const struct rcv_sum *seed_sum(struct rp_recover *rc, uint64_t k)
{
	/* A start ramp's window's summary is its newer neighbour's seed
	 * within the start ramp only: the windows after it start from
	 * nothing.
	 */
	if (in_start(rc, k))
		return k > start_lo(rc) && rc->ssum[oldest_win(rc) - k].valid ?
			       &rc->ssum[oldest_win(rc) - k] : NULL;
	if (k < RCV_CHAIN || k > ramp_start(rc) ||
	    !rc->sum[k - RCV_CHAIN].valid)
		return NULL;
	return &rc->sum[k - RCV_CHAIN];
}

const struct rcv_state *rcv_ramp_seed(struct rp_recover *rc, uint64_t k)
{
	const struct rcv_sum *sm = seed_sum(rc, k);

	return sm ? &sm->out : NULL;
}

static const struct rcv_smem *seed_mem(struct rp_recover *rc, uint64_t k)
{
	const struct rcv_sum *sm = seed_sum(rc, k);

	return sm ? &sm->mem : NULL;
}

/*
 * The summary of @w: its last state, and the memory near its stack
 * pointer there that the engine knows (the words from RCV_SUM_BELOW
 * bytes below rsp, the red zone, on), when rsp is known.  A frame's
 * saved rbp pushed before the window's end and popped after it, a local
 * stored before and read after: without them the next window's `leave`
 * lost rsp (gdbloop over 700,000 instructions: rsp unknown from the
 * ramp's second window on).  Each byte is what the engine knows at that
 * state, the same position as the next window's first.
 */
static void sum_take(struct win *w, struct rcv_state *out,
		     struct rcv_smem *m)
{
	const struct rcv_val *sp = &w->st[w->n].r[RP_REG_RSP];
	uint32_t o;

	*out = w->st[w->n];
	m->n = 0;
	if (sp->k != ~0ull || sp->v < RCV_SUM_BELOW ||
	    sp->v > UINT64_MAX - 8 * RCV_SUM_WORDS)
		return;
	m->lo = (sp->v - RCV_SUM_BELOW) >> 3;
	for (o = 0; o < RCV_SUM_WORDS; o++)
		m->known[o] = rcv_mem_word(w, w->n, m->lo + o, m->val[o]);
	m->n = RCV_SUM_WORDS;
}

/*
 * The summary of window @k has just been made: the chain's oldest window,
 * if computed already, starts with it, and what it adds flows on to the
 * end.
 */
static int ramp_into_chain(struct rp_recover *rc, uint64_t k)
{
	struct win *w = rc->chain[RCV_CHAIN - 1];
	const struct rcv_state *s = &rc->sum[k - RCV_CHAIN].out;
	bool ch = false;
	int g, ret;

	if (k != RCV_CHAIN || !w)
		return 0;
	for (g = 0; g < RCV_NREG; g++)
		ch |= rcv_merge(&w->st[0].r[g], s->r[g], &rc->stats.conflicts);
	ch |= rcv_sse_flow(&w->st[0], s, 0, &rc->stats.conflicts);
	if (!ch)
		return 0;
	ret = rcv_win_forward(rc, w, &ch);
	if (!ret && ch)
		ret = rcv_flow_forward(rc, RCV_CHAIN - 1);
	return ret;
}

/* Window @k computed with the summary before it; its own summary kept. */
static int ramp_one(struct rp_recover *rc, uint64_t k, struct win **wp)
{
	uint64_t first, last;
	struct rcv_sum *sm = &rc->sum[k - RCV_CHAIN];
	int ret;

	win_span(rc, k, &first, &last);
	ret = rcv_win_new_mem(rc, first, last, NULL, rcv_ramp_seed(rc, k + 1),
			      seed_mem(rc, k + 1), wp);
	if (ret || sm->valid)
		return ret;
	sum_take(*wp, &sm->out, &sm->mem);
	sm->valid = true;
	return ramp_into_chain(rc, k);
}

/*
 * Did a fact come, since the first @n, at a position of the ramp's
 * windows from its start down to window @k (what window @k's summary
 * depends on: rcv_apply_facts() takes a window's own facts)?  Facts only
 * grow; a contradiction drops every window and rc->pre.
 */
static bool facts_since(const struct rp_recover *rc, size_t n, uint64_t k)
{
	uint64_t lo, hi, x;
	size_t i;

	win_span(rc, ramp_start(rc), &lo, &x);
	win_span(rc, k, &x, &hi);
	for (i = n; i < rc->nfacts; i++)
		if (rc->facts[i].pos >= lo && rc->facts[i].pos <= hi)
			return true;
	return false;
}

/* Is the prefetch's summary of window @k what it would compute now? */
static bool pre_fresh(const struct rp_recover *rc, uint64_t k)
{
	const struct rcv_pre *p = &rc->pre[k - RCV_CHAIN];

	return p->valid && !facts_since(rc, p->nfacts, k);
}

/*
 * May the prefetch's summary of window @k be the ramp's?  It is what it
 * would compute now, and it started from what the ramp's summary above
 * it is: the ramp's first window starts from nothing, the others from a
 * summary of the prefetch's that became the ramp's (one computed again
 * after it makes it stale too: the fact that made the one above stale
 * is in its range as well).
 */
static bool pre_ok(const struct rp_recover *rc, uint64_t k)
{
	return pre_fresh(rc, k) &&
	       (k == ramp_start(rc) || rc->pre[k + 1 - RCV_CHAIN].used);
}

/*
 * The summaries from the ramp's start down to window @lo; window @keep,
 * if the ramp computes it, in *@wp (else NULL).
 */
static int ramp_down(struct rp_recover *rc, uint64_t lo, uint64_t keep,
		     struct win **wp)
{
	uint64_t j;
	struct win *w;
	int ret;

	*wp = NULL;
	for (j = ramp_start(rc); j >= lo && j >= RCV_CHAIN; j--) {
		if (rc->sum[j - RCV_CHAIN].valid)
			continue;
		if (j != keep && pre_ok(rc, j)) {
			/* The prefetch computed it (prefetch_pre()). */
			rc->pre[j - RCV_CHAIN].used = true;
			rc->sum[j - RCV_CHAIN].out = rc->pre[j - RCV_CHAIN].out;
			rc->sum[j - RCV_CHAIN].mem = rc->pre[j - RCV_CHAIN].mem;
			rc->sum[j - RCV_CHAIN].valid = true;
			ret = ramp_into_chain(rc, j);
			if (ret) {
				rcv_win_free(*wp);
				*wp = NULL;
				return ret;
			}
			continue;
		}
		ret = ramp_one(rc, j, &w);
		if (!ret && j == keep) {
			*wp = w;
			continue;
		}
		rcv_win_free(w);
		if (ret) {
			rcv_win_free(*wp);
			*wp = NULL;
			return ret;
		}
	}
	return 0;
}

int rcv_ramp_chain(struct rp_recover *rc, const struct rcv_state **seed)
{
	uint64_t s = ramp_start(rc);
	struct win *w;
	int ret;

	*seed = NULL;
	if (s < RCV_CHAIN || !rc->sum[s - RCV_CHAIN].valid)
		return 0;
	ret = ramp_down(rc, RCV_CHAIN, 0, &w);
	if (!ret)
		*seed = rcv_ramp_seed(rc, RCV_CHAIN);
	return ret;
}

/*
 * Start ramp window @k computed with the summary of the one before it
 * (the oldest: the history's start, whose registers are facts), its own
 * summary kept.
 */
static int start_one(struct rp_recover *rc, uint64_t k, struct win **wp)
{
	struct rcv_sum *sm = &rc->ssum[oldest_win(rc) - k];
	uint64_t first, last;
	int ret;

	/* The oldest has no seed: seed_sum() of a window beyond it is
	 * NULL.
	 */
	win_span(rc, k, &first, &last);
	ret = rcv_win_new_mem(rc, first, last, NULL, rcv_ramp_seed(rc, k + 1),
			      seed_mem(rc, k + 1), wp);
	if (ret || sm->valid)
		return ret;
	sum_take(*wp, &sm->out, &sm->mem);
	sm->valid = true;
	return 0;
}

/*
 * The start ramp's first summary not computed above window @k: 1 when
 * it computed one (@one: at most one), 0 when all are, or an error.
 */
static int start_down(struct rp_recover *rc, uint64_t k, bool one)
{
	uint64_t j;
	struct win *w;
	int ret;

	for (j = oldest_win(rc); j > k; j--) {
		if (rc->ssum[oldest_win(rc) - j].valid)
			continue;
		ret = start_one(rc, j, &w);
		rcv_win_free(w);
		if (ret)
			return ret;
		if (one)
			return 1;
	}
	return 0;
}

int rcv_ramp_win(struct rp_recover *rc, uint64_t k, struct win **wp)
{
	uint64_t first, last;
	int ret;

	*wp = NULL;
	if (in_start(rc, k)) {
		ret = start_down(rc, k, false);
		if (!ret)
			ret = start_one(rc, k, wp);
		if (ret) {
			rcv_win_free(*wp);
			*wp = NULL;
		}
		return ret;
	}
	if (k < RCV_CHAIN || k > ramp_start(rc)) {
		/* Beyond the ramp: on its own, with its system calls'
		 * records as facts.
		 */
		win_span(rc, k, &first, &last);
		return rcv_win_new_alone(rc, first, last, wp);
	}
	/* The summaries from the ramp's start to window @k; window @k as
	 * the ramp computes it is the one asked.
	 */
	ret = ramp_down(rc, k, k, wp);
	if (ret || *wp)
		return ret;
	ret = ramp_one(rc, k, wp);
	if (ret) {
		rcv_win_free(*wp);
		*wp = NULL;
	}
	return ret;
}

/* p99 (the GDB stop's latency, #17): in a front end's idle time, one
 * window a call, so that a packet arriving meanwhile waits for one window
 * at most: the rest of a ramp a question began, summary after summary
 * from its oldest window, then the chain's next window from the end (its
 * oldest with the ramp's last summary).  The same windows, in the same
 * order, as a question computes them at once (win_at(): the ramp's
 * summaries, then the chain down to its oldest once the ramp has begun),
 * so what a window knows does not depend on which computed it.  A ramp
 * no question began is left alone, as without the prefetch.
 */
void rp_recover_stop(struct rp_recover *rc, uint64_t pos)
{
	if (pos > rc->end)
		pos = rc->end;
	if (!rc->stop_set)
		rc->stop_dir = 1;
	else if (pos != rc->stop_pos)
		rc->stop_dir = pos < rc->stop_pos ? 1 : -1;
	rc->stop_pos = pos;
	rc->stop_set = true;
}

/*
 * The next of the summaries of a ramp no question began, from its start
 * down to the one above window @k, computed aside (rc->pre): the step
 * out of the chain's oldest window into the ramp then computes one
 * window, not the whole ramp.  Each starts from the one above it, as
 * ramp_one() does; ramp_down() takes them when a question begins the
 * ramp (pre_ok()).
 */
static int prefetch_pre(struct rp_recover *rc, uint64_t k)
{
	uint64_t j, s = ramp_start(rc), first, last;
	struct rcv_pre *p;
	struct win *w;
	int err;

	for (j = s; j > k; j--) {
		if (pre_fresh(rc, j))
			continue;
		win_span(rc, j, &first, &last);
		err = rcv_win_new_mem(rc, first, last, NULL,
				      j == s ? NULL :
					       &rc->pre[j + 1 - RCV_CHAIN].out,
				      j == s ? NULL :
					       &rc->pre[j + 1 - RCV_CHAIN].mem,
				      &w);
		if (err)
			return err;
		p = &rc->pre[j - RCV_CHAIN];
		sum_take(w, &p->out, &p->mem);
		p->nfacts = rc->nfacts;
		p->used = false;
		p->valid = true;
		rcv_win_free(w);
		return 1;
	}
	return 0;
}

/* Is @w window @k of the grid? */
static bool win_is(const struct win *w, const struct rp_recover *rc,
		   uint64_t k)
{
	uint64_t first, last;

	win_span(rc, k, &first, &last);
	return w && w->first == first && w->last == last;
}

/*
 * The window next to the front end's stop, the way its stops go
 * (rp_recover_stop()), beyond the chain: reverse-step walks into the
 * older one, and at a person's pace it is ready when the walk gets there
 * (the chain's windows are rcv_chain_next()'s, already in that order).
 * In a ramp a question began, the summaries it starts from first, oldest
 * first, one a call, as a question computes them.  Kept in rc->far2, where win_at()
 * finds it.  What it knows is what a question there computes: a window
 * beyond the chain depends on the history and the ramp's summaries
 * alone.  1 when it computed a window, 0 when there is none to compute.
 */
static int prefetch_next(struct rp_recover *rc)
{
	uint64_t k, j, s = ramp_start(rc);
	struct win *w;
	int err;

	if (!rc->stop_set)
		return 0;
	k = (rc->end - rc->stop_pos) / rc->block;
	if (rc->stop_dir < 0) {
		if (!k)
			return 0;
		k--;
	} else {
		k++;
	}
	if (k < RCV_CHAIN || k * rc->block >= rc->end ||
	    win_is(rc->far, rc, k) || win_is(rc->far2, rc, k))
		return 0;
	/* A ramp no question began is not begun here (rp_recover_prefetch()):
	 * begun, the chain learns from it, so what a stop in the chain
	 * would show would depend on the user's pace.  Its summaries above
	 * the window are computed aside, for the question to take.
	 */
	if (k <= s && !rc->sum[s - RCV_CHAIN].valid)
		return prefetch_pre(rc, k);
	/* In the start ramp: its summaries above the window first, one a
	 * call, as a question computes them.
	 */
	if (in_start(rc, k)) {
		err = start_down(rc, k, true);
		if (err)
			return err;
	}
	for (j = s; k <= s && j > k; j--) {
		if (rc->sum[j - RCV_CHAIN].valid)
			continue;
		err = rcv_ramp_win(rc, j, &w);
		rcv_win_free(w);
		return err ? err : 1;
	}
	err = rcv_ramp_win(rc, k, &w);
	if (err)
		return err;
	rcv_win_free(rc->far2);
	rc->far2 = w;
	return 1;
}

int rp_recover_prefetch(struct rp_recover *rc)
{
	uint64_t k = ramp_start(rc);
	struct win *w;
	int err;

	/* The recording's facts first, as a question takes them: a window
	 * the prefetch computed before them never had them (the start's
	 * registers and the system calls' results: valcheck's prefetch
	 * order knew 0.3% of startsys's r14 where every other knew 100%).
	 */
	err = rcv_inherit(rc);
	if (!err)
		err = prefetch_next(rc);
	if (err)
		return err;

	if (k >= RCV_CHAIN && rc->sum[k - RCV_CHAIN].valid)
		for (; k >= RCV_CHAIN; k--) {
			if (rc->sum[k - RCV_CHAIN].valid)
				continue;
			err = rcv_ramp_win(rc, k, &w);
			rcv_win_free(w);
			return err ? err : 1;
		}
	return rcv_chain_next(rc);
}
