// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Register values a front end knows from outside the history
 * (rp_recover_assume(), docs/values.md "Assumed facts"): the GDB server's
 * unwinder knows each decided frame's stack pointer from its CFA and the
 * .eh_frame rules where the history alone lost it.  They are merged into
 * the states of the windows that hold them at every pass (rcv_pass.c's
 * rcv_win_compute()), and a new batch computes those windows again, refused
 * when it leads to a contradiction.
 */
#include <stdlib.h>

#include "rcv_win.h"
#include "replay.h"

/* The facts a front end assumed (rp_recover_assume()) in @w's states. */
bool rcv_apply_facts(struct rp_recover *rc, struct win *w)
{
	bool ch = false;
	size_t j;

	for (j = 0; j < rc->nfacts; j++) {
		const struct rcv_fact *f = &rc->facts[j];

		if (f->pos >= w->first && f->pos <= w->last)
			ch |= rcv_merge(&w->st[f->pos - w->first].r[f->reg],
					(struct rcv_val){ f->val, ~0ull },
					&rc->stats.conflicts);
	}
	for (j = 0; j < w->nlf; j++) {
		const struct rcv_fact *f = &w->lf[j];

		ch |= rcv_merge(&w->st[f->pos - w->first].r[f->reg],
				(struct rcv_val){ f->val, ~0ull },
				&rc->stats.conflicts);
	}
	return ch;
}

/* Room in rc->facts for @n more: 0 or -RP_ERR_NOMEM. */
int rcv_facts_reserve(struct rp_recover *rc, size_t n)
{
	size_t cap = rc->facts_cap ? 2 * rc->facts_cap : 64;
	struct rcv_fact *nf;

	if (rc->nfacts + n <= rc->facts_cap)
		return 0;
	while (cap < rc->nfacts + n)
		cap *= 2;
	nf = realloc(rc->facts, cap * sizeof(*nf));
	if (!nf)
		return -RP_ERR_NOMEM;
	rc->facts = nf;
	rc->facts_cap = cap;
	return 0;
}

/* @n facts @f added to rc->facts: 0 or -RP_ERR_NOMEM. */
int rcv_facts_add(struct rp_recover *rc, const struct rp_fact *f, int n)
{
	int k, ret;

	ret = rcv_facts_reserve(rc, (size_t)n);
	if (ret)
		return ret;
	for (k = 0; k < n; k++)
		rc->facts[rc->nfacts++] = (struct rcv_fact){ f[k].pos,
							     f[k].val,
							     f[k].reg };
	return 0;
}

/* The computed windows holding position @pos (at most two: a chained
 * window's last state is the next one's first).
 */
static size_t wins_at(struct rp_recover *rc, uint64_t pos, struct win **out,
		      size_t *chain)
{
	size_t j, n = 0;

	for (j = RCV_CHAIN; j-- > 0 && n < 2;) {
		struct win *w = rc->chain[j];

		if (w && w->first <= pos && pos <= w->last) {
			chain[n] = j;
			out[n++] = w;
		}
	}
	if (n < 2 && rc->far && rc->far->first <= pos && pos <= rc->far->last) {
		chain[n] = RCV_CHAIN;
		out[n++] = rc->far;
	}
	if (n < 2 && rc->far2 && rc->far2->first <= pos &&
	    pos <= rc->far2->last) {
		chain[n] = RCV_CHAIN;
		out[n++] = rc->far2;
	}
	return n;
}

/*
 * Facts @f[0..@n) merged into the windows that hold them, which are
 * computed again from their states (knowledge only grows) and carry what
 * they learn into the later windows.  Each window's last, settled pass
 * counts the conflicts its states hold (0 unless the engine has a bug,
 * which is not the facts'): more than before are the facts'.  Returns 0,
 * 1 (a contradiction: the facts are dropped, and every window, to be
 * computed again without them) or an error.
 */
static int take_facts(struct rp_recover *rc, const struct rp_fact *f,
		      size_t n)
{
	struct win *w[2 * RCV_CHAIN + 2];
	uint64_t before[2 * RCV_CHAIN + 2];
	size_t chain[2 * RCV_CHAIN + 2], nw = 0, i, j, k;
	size_t old = rc->nfacts;
	int ret = 0;

	ret = rcv_facts_reserve(rc, n);
	if (ret)
		return ret;
	/* Their windows computed first (without them). */
	for (i = 0; i < n; i++) {
		uint64_t v, known;

		ret = rp_recover_reg_bits(rc, f[i].pos, f[i].reg, &v, &known);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		struct win *h[2];
		size_t c[2], m = wins_at(rc, f[i].pos, h, c);

		rc->facts[rc->nfacts++] = (struct rcv_fact){ f[i].pos,
							     f[i].val,
							     f[i].reg };
		for (k = 0; k < m; k++) {
			for (j = 0; j < nw && w[j] != h[k]; j++)
				;
			if (j == nw && nw < sizeof(w) / sizeof(w[0])) {
				w[nw] = h[k];
				chain[nw++] = c[k];
			}
		}
	}
	/* Later windows first (the chain's lower index): what an earlier
	 * one learns then flows into them.
	 */
	for (j = 0; j < nw && !ret; j++) {
		if (!w[j]->settled)
			ret = rcv_win_compute(rc, w[j]);
		before[j] = w[j]->settled_conflicts;
	}
	for (j = 0; j < nw && !ret; j++) {
		ret = rcv_win_compute(rc, w[j]);
		if (!ret && (!w[j]->settled ||
			     w[j]->settled_conflicts > before[j]))
			ret = 1;
		if (!ret && chain[j] < RCV_CHAIN)
			ret = rcv_flow_forward(rc, chain[j]);
	}
	if (ret) {
		rc->nfacts = old;
		rcv_drop_windows(rc);
	}
	return ret;
}

int rp_recover_assume(struct rp_recover *rc, const struct rp_fact *f,
		      size_t n)
{
	struct rp_fact *keep = malloc((n ? n : 1) * sizeof(*keep));
	size_t i, m = 0, taken = 0;
	uint64_t v, k;
	int ret = 0;

	if (!keep)
		return -RP_ERR_NOMEM;
	for (i = 0; i < n && !ret; i++) {
		if (f[i].reg >= 16 || f[i].pos >= rc->end)
			continue;
		ret = rp_recover_reg_bits(rc, f[i].pos, f[i].reg, &v, &k);
		if (ret || ((v ^ f[i].val) & k))
			continue;
		if (k == ~0ull)
			taken++;
		else
			keep[m++] = f[i];
	}
	if (ret || !m) {
		free(keep);
		return ret ? ret : (int)taken;
	}
	ret = take_facts(rc, keep, m);
	if (ret == 1 && m > 1 && m <= 8) {
		/* One of them contradicts: each on its own (a small batch:
		 * each computes its windows again).
		 */
		for (i = 0, ret = 0; i < m && ret >= 0; i++) {
			ret = take_facts(rc, &keep[i], 1);
			if (!ret)
				taken++;
		}
	} else if (!ret) {
		taken += m;
	}
	free(keep);
	return ret < 0 ? ret : (int)taken;
}
