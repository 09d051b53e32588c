// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Stores of a transaction that aborts never happen (issue #18; Intel SDM
 * Vol. 1 ch. 16, "Intel TSX"): PT shows the instructions between XBEGIN
 * and the abort (libipt's ptev_tsx events: a begin, then one with the
 * aborted flag), and the processor discards what they wrote, resuming
 * at the fallback with the XBEGIN's state but EAX.  So the watch scan
 * passes those positions: none of their accesses is reported, known or
 * "may have".  (Loads there did read memory, but what a watchpoint
 * reports is a write that happened or a read whose value the program
 * used; an aborted read's value is gone with the transaction.)
 *
 * A range is taken only from a begin the trace shows to its abort with
 * no gap between (a gap may hide a commit and a new transaction): where
 * the start is not known, the positions are scanned as any others (stops
 * too many, never too few).
 */
#include <stdlib.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_tsx.h"

struct wpt_thr {
	const struct rp_session *s;
	uint32_t tid;
	struct wpt_range *r;
	size_t n;
};

struct wpt_cache {
	struct wpt_thr *v;
	size_t n, cap;
};

void wpt_cache_free(struct wpt_cache *tc)
{
	size_t i;

	if (!tc)
		return;
	for (i = 0; i < tc->n; i++)
		free(tc->v[i].r);
	free(tc->v);
	free(tc);
}

/* Does a gap of @tid's history lie in [@lo, @hi]?  One at @lo too: it
 * may come after the begin bound there (their order is not kept).
 */
static bool gap_in(const struct rp_session *s, uint32_t tid, uint64_t lo,
		   uint64_t hi)
{
	struct rp_gap gap;
	uint64_t i;

	for (i = 0; !rp_thread_gap(s, tid, i, &gap); i++)
		if (gap.before >= lo && gap.before <= hi)
			return true;
	return false;
}

static int ranges(const struct rp_session *s, uint32_t tid,
		  struct wpt_thr *x)
{
	struct rp_event ev;
	uint64_t i, start = 0;
	size_t cap = 0;
	bool in = false;

	for (i = 0; !rp_thread_event(s, tid, i, &ev); i++) {
		if (ev.kind != RP_EV_TSX)
			continue;
		if (ev.flags & RP_EVF_TSX_SPEC) {
			if (!in)
				start = ev.before;
			in = true;
			continue;
		}
		if ((ev.flags & RP_EVF_TSX_ABORT) && in &&
		    ev.before > start && !gap_in(s, tid, start, ev.before)) {
			if (x->n == cap) {
				struct wpt_range *r;

				cap = cap ? 2 * cap : 4;
				r = realloc(x->r, cap * sizeof(*r));
				if (!r)
					return -RP_ERR_NOMEM;
				x->r = r;
			}
			x->r[x->n++] = (struct wpt_range){ start, ev.before };
		}
		in = false;	/* a commit or an abort */
	}
	return 0;
}

int wpt_aborted(struct wpt_cache **tcp, const struct rp_session *s,
		uint32_t tid, const struct wpt_range **r)
{
	struct wpt_cache *tc = *tcp;
	struct wpt_thr *x;
	size_t i;
	int ret;

	if (!tc) {
		tc = calloc(1, sizeof(*tc));
		if (!tc)
			return -RP_ERR_NOMEM;
		*tcp = tc;
	}
	for (i = 0; i < tc->n; i++)
		if (tc->v[i].s == s && tc->v[i].tid == tid) {
			*r = tc->v[i].r;
			return (int)tc->v[i].n;
		}
	if (tc->n == tc->cap) {
		size_t cap = tc->cap ? 2 * tc->cap : 4;

		x = realloc(tc->v, cap * sizeof(*x));
		if (!x)
			return -RP_ERR_NOMEM;
		tc->v = x;
		tc->cap = cap;
	}
	x = &tc->v[tc->n];
	*x = (struct wpt_thr){ s, tid, NULL, 0 };
	ret = ranges(s, tid, x);
	if (ret) {
		free(x->r);
		return ret;
	}
	tc->n++;
	*r = x->r;
	return (int)x->n;
}

int wpt_scan_live(struct wpt_cache **tcp, struct rp_recover *rc, int dir,
		  uint64_t lo, uint64_t hi,
		  int (*fn)(void *arg, uint64_t lo, uint64_t hi), void *arg)
{
	const struct wpt_range *r;
	int n, ret;
	long k;

	n = wpt_aborted(tcp, rc->s, rc->tid, &r);
	if (n < 0)
		return n;
	if (dir > 0) {
		for (k = 0; k < n && lo < hi; k++) {
			if (r[k].hi <= lo)
				continue;
			if (r[k].lo >= hi)
				break;
			if (r[k].lo > lo) {
				ret = fn(arg, lo, r[k].lo);
				if (ret != -RP_ERR_NOTFOUND)
					return ret;
			}
			lo = r[k].hi;
		}
	} else {
		for (k = n - 1; k >= 0 && lo < hi; k--) {
			if (r[k].lo >= hi)
				continue;
			if (r[k].hi <= lo)
				break;
			if (r[k].hi < hi) {
				ret = fn(arg, r[k].hi, hi);
				if (ret != -RP_ERR_NOTFOUND)
					return ret;
			}
			hi = r[k].lo;
		}
	}
	return lo < hi ? fn(arg, lo, hi) : -RP_ERR_NOTFOUND;
}
