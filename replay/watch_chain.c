// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The chain of watch_proof.c's proofs over a thread's history, from the
 * end back, and the watchpoint scan that uses it (issue #18): each window
 * of the recovery engine's grid is followed from 2,048 instructions
 * before it, its bases fixed by the end snapshot (registers and stack)
 * for the last window and by the proof of the window after it for the
 * others; a window whose accesses all miss the watched bytes is passed
 * without the engine, and the distinct accesses of a proven window are
 * kept for the next scan; far windows that are quiet pass with skip
 * (watch_proof.c).  Instructions: watch_ins.c.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_proof.h"

/* Instructions followed before a window, so that the frames it returns
 * into were opened in the pass (at most a window's).
 */
#define PREFIX	2048

struct wpf_cache {
	uint64_t end, block;
	struct wpf_ins in;	/* a window's instructions (watch_ins.c) */
	struct wpf_edge top;	/* the end: snapshot registers and stack */
	struct wpf_edge *edge;	/* [k]: where window k starts */
	size_t nk, cap_k;
	/* [k]: the distinct accesses of window k proven whole, for scans
	 * that pass it again (NULL: none kept).
	 */
	struct wsum {
		bool kept;
		struct wpf_acc *u;
		size_t nu;
		/* the kinds (RP_ACC_*) of an access not proven: a write
		 * watchpoint passes a window whose loads alone are not
		 */
		uint8_t unknown;
		/* secrets by what the engine may learn (wpf_win_acc()),
		 * not what any shown value depends on: for loads
		 */
		bool full;
	} *sum;
	size_t cap_sum;
	/* [k]: the same for window k proven quiet (find()), apart: what
	 * is not known there is secret, not proven to miss.
	 */
	struct wsum *qsum;
	size_t cap_qsum;
	struct wpf_out out;	/* window out_k's accesses (from out_from) */
	uint64_t out_k, out_from;
	bool out_valid, out_quiet, out_full;
};

void wpf_cache_free(struct wpf_cache *c)
{
	size_t k;

	if (!c)
		return;
	wpf_ins_fini(&c->in);
	free(c->top.w);
	for (k = 0; k < c->nk; k++)
		free(c->edge[k].w);
	free(c->edge);
	for (k = 0; k < c->cap_sum; k++)
		free(c->sum[k].u);
	free(c->sum);
	for (k = 0; k < c->cap_qsum; k++)
		free(c->qsum[k].u);
	free(c->qsum);
	wpf_out_free(&c->out);
	free(c);
}

static int cache_new(struct rp_recover *rc, struct wpf_cache **cp)
{
	struct wpf_cache *c = calloc(1, sizeof(*c));
	uint64_t rsp, a;
	size_t n = 0;
	int g, ret;

	*cp = NULL;
	if (!c)
		return -RP_ERR_NOMEM;
	c->end = rc->end;
	c->block = rc->block;
	ret = wpf_ins_init(&c->in, rc);
	if (ret) {
		wpf_cache_free(c);
		return ret;
	}
	for (g = 0; g < 16; g++)
		if ((rc->end_regs.valid & ~(uint64_t)rc->end_drop) &
		    (1ull << g))
			c->top.r[g] = (struct wpf_reg){ true,
				rc->end_regs.val[g], rc->end_regs.val[g] };
	/* The snapshot's stack above the stack pointer: the words that
	 * the pops of the last window read back.
	 */
	if (c->top.r[RP_REG_RSP].known && rc->snap_ok && !rc->end_wild) {
		rsp = c->top.r[RP_REG_RSP].lo;
		c->top.w = calloc(1024, sizeof(*c->top.w));
		if (!c->top.w) {
			wpf_cache_free(c);
			return -RP_ERR_NOMEM;
		}
		for (a = rsp; n < 1024 && a >= rsp; a += 8) {
			uint8_t b[8];
			uint64_t v = 0;
			int k;

			for (k = 0; k < 8; k++)
				if (!rcv_snap_byte(rc, a + k, &b[k]))
					break;
			if (k < 8)
				break;
			for (k = 7; k >= 0; k--)
				v = v << 8 | b[k];
			c->top.w[n++] = (struct wpf_word){
				(int64_t)(a - rsp), { true, v, v } };
		}
		c->top.nw = n;
	}
	*cp = c;
	return 0;
}

/* @x is known where the scan asks (@q: a far window with skip, where a
 * bounded access counts as known: watch_proof.h).
 */
static inline bool acc_known(const struct wpf_acc *x, bool q)
{
	return x->known || (q && x->bound);
}

#define SUM_MAX	1024	/* distinct accesses kept per window, at most */

/*
 * The distinct accesses of window @k (c->out from instruction @skip on)
 * into c->sum, or c->qsum for a quiet window (@quiet: its secret
 * accesses left out).
 */
static int keep_sum(struct wpf_cache *c, uint64_t k, size_t skip,
		    bool quiet)
{
	struct wsum **sp = quiet ? &c->qsum : &c->sum, *v;
	size_t *capp = quiet ? &c->cap_qsum : &c->cap_sum;
	struct wpf_acc *u, *x;
	size_t j, n = 0, m = 0, cap = *capp;
	uint8_t unk = 0;

	if (c->out.contradiction)
		return 0;
	if (k >= cap) {
		cap = 2 * k + 16;
		v = realloc(*sp, cap * sizeof(*v));
		if (!v)
			return -RP_ERR_NOMEM;
		memset(v + *capp, 0, (cap - *capp) * sizeof(*v));
		*sp = v;
		*capp = cap;
	}
	v = *sp;
	if (v[k].kept)
		return 0;
	/* Distinct by a small open hash (a window repeats its slots). */
	u = calloc(2 * SUM_MAX, sizeof(*u));
	if (!u)
		return -RP_ERR_NOMEM;
	for (j = 0; j < c->out.nacc; j++) {
		size_t h;

		x = &c->out.acc[j];
		if (x->i < skip || (quiet && x->secret && !x->known))
			continue;
		if (!acc_known(x, quiet)) {	/* not proven: the engine decides */
			unk |= x->kind;
			continue;
		}
		h = (size_t)((x->lo * 0x9e3779b97f4a7c15ull) ^ x->hi ^
			     x->kind) & (2 * SUM_MAX - 1);
		while (u[h].kind && (u[h].kind != x->kind ||
				     u[h].lo != x->lo || u[h].hi != x->hi))
			h = (h + 1) & (2 * SUM_MAX - 1);
		if (u[h].kind)
			continue;
		if (++n > SUM_MAX) {
			free(u);
			return 0;
		}
		u[h] = *x;
	}
	for (j = 0; j < 2 * SUM_MAX; j++)
		if (u[j].kind)
			u[m++] = u[j];
	n = m;
	x = realloc(u, (n + 1) * sizeof(*u));
	if (x)
		u = x;
	v[k] = (struct wsum){ true, u, n, unk, c->out_full };
	return 0;
}

/* Has @o an access neither known nor secret? */
static bool unproven(const struct wpf_out *o)
{
	size_t j;

	for (j = 0; j < o->nacc; j++)
		if (!o->acc[j].known && !o->acc[j].secret)
			return true;
	return false;
}

/*
 * Window @k's accesses into c->out: followed from PREFIX instructions
 * before it, so that frames opened before the window are known by then,
 * from what
 * is known after it (the end, or the middle of the pass that proved the
 * window after it); and what is known where it starts into c->edge[k].
 */
static int prove_window(struct rp_recover *rc, struct wpf_cache *c,
			uint64_t k, bool quiet, bool full)
{
	static const struct wpf_edge nothing;
	uint64_t last = c->end - k * c->block;
	uint64_t first = last > c->block ? last - c->block : 0;
	/* A far window is the engine's from its first instruction on:
	 * what came before is nothing to it (and its secrets are the
	 * registers there).
	 */
	uint64_t pre = quiet ? 0 : c->block < PREFIX ? c->block : PREFIX;
	uint64_t from = first > pre ? first - pre : 0;
	struct wpf_win *w;
	int ret;

	c->out_valid = false;
	wpf_out_free(&c->out);
	ret = wpf_ins_load(rc, &c->in, from, last);
	/* A quiet window is followed from nothing known after it. */
	if (!ret)
		ret = wpf_win_run(c->in.ins, c->in.cut, last - from,
				  first - from,
				  quiet ? &nothing : k ? &c->edge[k - 1] :
				  &c->top, quiet, &w);
	if (ret)
		return ret;
	/* The cheaper secrets first; for loads, those of what the engine
	 * may learn where they leave an access neither known nor secret.
	 */
	ret = wpf_win_acc_any(w, first - from, &c->out);
	if (!ret && full && quiet && unproven(&c->out)) {
		wpf_out_free(&c->out);
		ret = wpf_win_acc(w, first - from, &c->out);
	}
	if (!ret && !quiet && k == c->nk) {
		if (wpf_grow((void **)&c->edge, &c->cap_k, c->nk,
			 sizeof(*c->edge), 16))
			ret = wpf_win_edge(w, &c->edge[c->nk]);
		else
			ret = -RP_ERR_NOMEM;
		if (!ret)
			c->nk++;
	}
	wpf_win_free(w);
	if (ret)
		return ret;
	c->out_k = k;
	c->out_from = from;
	c->out_valid = true;
	c->out_quiet = quiet;
	c->out_full = full;
	return keep_sum(c, k, first - from, quiet);
}

/*
 * wpf_prove(), and with @acc (room for 4) the nearest access toward @dir
 * in [@a, @b) that the proof shows to touch a watched byte, when every
 * access before it is proven to miss and the one that touches is at the
 * instruction's own address (rip-relative or absolute: the engine knows
 * it too): 2, with its position in *@pos and the instruction's accesses
 * in @acc, *@n (those the proof knows from the instruction alone as
 * known, the others unknown).
 */
/* @rc's proofs, made or made again for its end and grid. */
static int cache_get(struct rp_recover *rc, struct wpf_cache **cp)
{
	int ret;

	if (rc->wpf && (rc->wpf->end != rc->end ||
			rc->wpf->block != rc->block)) {
		wpf_cache_free(rc->wpf);
		rc->wpf = NULL;
	}
	*cp = rc->wpf;
	if (rc->wpf)
		return 0;
	ret = cache_new(rc, cp);
	if (!ret)
		rc->wpf = *cp;
	return ret;
}

static int find(struct rp_recover *rc, uint64_t a, uint64_t b, int dir,
		unsigned int kinds, bool far, bool quiet,
		bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
				uint64_t hi),
		void *arg, struct rp_access *acc, int *n, uint64_t *pos)
{
	struct wpf_cache *c;
	const struct wsum *sum;
	uint64_t k, first;
	size_t j, lo, hi, e;
	bool q, done, need;
	int ret;

	if (a >= b || b > rc->end || !rc->block)
		return 0;
	ret = cache_get(rc, &c);
	if (ret)
		return ret;
	k = (rc->end - 1 - a) / rc->block;
	if ((rc->end - b) / rc->block != k)
		return 0;	/* not one window */
	if (!far && k >= RCV_CHAIN)
		return 0;
	/* The engine's chain: proofs from the end to it, whatever was
	 * asked before (a scan's stops must not depend on that).
	 */
	while (k < RCV_CHAIN && c->nk < k) {
		ret = prove_window(rc, c, c->nk, false, false);
		/* A window the cursor cannot give: the engine's to say. */
		if (ret)
			return ret == -RP_ERR_NOMEM ? ret : 0;
		if (!c->out_valid)
			return 0;
	}
	/*
	 * A window the chain has not reached: with @quiet (watch-unknown
	 * skip), beyond the ramp (where the engine computes a window from
	 * its instructions alone, rcv_sum.c) and with no assumed facts
	 * (the recording's lie in the chain, the ramp and the start ramp:
	 * rcv_first.c), a
	 * window whose instructions are all quiet is passed where every
	 * access is either known to miss or secret: relative to a register
	 * at its start, whose value nothing in the window shows, so the
	 * engine cannot know it, and skip stops only where it does.
	 */
	q = false;
	if (k >= RCV_CHAIN && k > c->nk) {
		if (!quiet || rc->nfacts > rc->nfacts_rec ||
		    !rcv_win_alone(rc, k))
			return 0;	/* the window after it: not followed */
		q = true;
	}
	/* Loads watched in a far window: secrets by what the engine may
	 * learn (watch_know.c), which costs more than what any shown value
	 * depends on (all a write watchpoint needs in the benches).
	 */
	need = q && (kinds & RP_ACC_READ);
	first = rc->end - k * rc->block;
	first = first > rc->block ? first - rc->block : 0;
	/* The whole window: its distinct accesses, kept (a few dozen in a
	 * loop), before proving it and after.
	 */
	for (done = false;; done = true) {
		sum = q ? c->qsum : c->sum;
		/* kept by a write watchpoint's scan: proven again */
		if (need && k < c->cap_qsum && c->qsum[k].kept &&
		    !c->qsum[k].full) {
			free(c->qsum[k].u);
			c->qsum[k] = (struct wsum){ 0 };
		}
		if (k < (q ? c->cap_qsum : c->cap_sum) && sum[k].kept &&
		    a == first && b == rc->end - k * rc->block) {
			if (sum[k].unknown & kinds)
				return 0;
			for (j = 0; j < sum[k].nu; j++) {
				const struct wpf_acc *x = &sum[k].u[j];

				if ((kinds & x->kind) &&
				    may_hit(arg, x->kind, x->lo, x->hi))
					break;
			}
			if (j == sum[k].nu)
				return 1;
			if (!acc)
				return 0;
		}
		if (done)
			break;
		if (c->out_valid && c->out_k == k && c->out_quiet == q &&
		    (c->out_full || !need))
			break;
		ret = prove_window(rc, c, k, q, need);
		if (ret)
			return ret == -RP_ERR_NOMEM ? ret : 0;
		if (!c->out_valid)
			return 0;
	}
	first = c->out_from;
	if (c->out.contradiction)
		return 0;
	/* The accesses are in instruction order: [lo, hi) those in [a, b). */
	for (lo = 0, hi = c->out.nacc; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (first + c->out.acc[mid].i < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < c->out.nacc && first + c->out.acc[hi].i < b;)
		hi++;
	/* One instruction's accesses after the other, toward @dir. */
	while (lo < hi) {
		size_t s0 = dir < 0 ? hi - 1 : lo, s, m;
		bool hit = false, plain = true;

		while (dir < 0 ? s0 > lo && c->out.acc[s0 - 1].i ==
						c->out.acc[hi - 1].i :
				 false)
			s0--;
		for (e = s0; e < hi && c->out.acc[e].i == c->out.acc[s0].i;)
			e++;
		for (s = s0; s < e; s++) {
			const struct wpf_acc *x = &c->out.acc[s];

			if (!(kinds & x->kind) || (q && x->secret && !x->known))
				continue;
			if (!acc_known(x, q))
				return 0;
			if (may_hit(arg, x->kind, x->lo, x->hi)) {
				hit = true;
				plain &= x->fixed;
			}
		}
		if (hit) {
			if (!acc || !plain || e - s0 > 4)
				return 0;
			for (s = s0, m = 0; s < e; s++, m++) {
				const struct wpf_acc *x = &c->out.acc[s];

				acc[m] = (struct rp_access){ .kind = x->kind };
				if (x->known && x->fixed) {
					acc[m].addr_known = true;
					acc[m].addr = x->lo;
					acc[m].size = x->hi - x->lo;
				}
			}
			*n = (int)m;
			*pos = first + c->out.acc[s0].i;
			return 2;
		}
		if (dir < 0)
			hi = s0;
		else
			lo = e;
	}
	return 1;
}

/*
 * @pos's far window proved quiet (full: with the loads' secrets too) in
 * c->out, *@cp the cache: 1; 0 where no quiet proof stands there (a near
 * window, facts, the ramp) or the proof failed; a negated enum on error.
 */
static int quiet_window(struct rp_recover *rc, uint64_t pos, bool full,
			struct wpf_cache **cp)
{
	struct wpf_cache *c;
	uint64_t k;
	int ret;

	if (pos >= rc->end || !rc->block)
		return -RP_ERR_RANGE;
	ret = cache_get(rc, &c);
	if (ret)
		return ret;
	k = (rc->end - 1 - pos) / rc->block;
	if (!c || k < RCV_CHAIN || rc->nfacts > rc->nfacts_rec ||
	    !rcv_win_alone(rc, k))
		return 0;
	if (!c->out_valid || c->out_k != k || !c->out_quiet ||
	    (!c->out_full && full)) {
		ret = prove_window(rc, c, k, true, full);
		if (ret || !c->out_valid)
			return ret;
	}
	*cp = c;
	return 1;
}

int wpf_quiet_secret(struct rp_recover *rc, uint64_t pos, unsigned int kinds)
{
	struct wpf_cache *c;
	size_t j;
	int ret, n = 0;

	ret = quiet_window(rc, pos, kinds & RP_ACC_READ, &c);
	if (ret <= 0)
		return ret;
	for (j = 0; j < c->out.nacc; j++) {
		const struct wpf_acc *x = &c->out.acc[j];

		if (c->out_from + x->i != pos || !(kinds & x->kind))
			continue;
		if (x->known || !x->secret)
			return 0;
		n++;
	}
	return n > 0;
}

int wpf_quiet_bound(struct rp_recover *rc, uint64_t pos, uint64_t *lo,
		    uint64_t *hi)
{
	struct wpf_cache *c;
	size_t j;
	int ret;

	ret = quiet_window(rc, pos, true, &c);
	if (ret <= 0)
		return ret;
	for (j = 0; j < c->out.nacc; j++) {
		const struct wpf_acc *x = &c->out.acc[j];

		if (c->out_from + x->i == pos && x->kind == RP_ACC_READ &&
		    x->bound) {
			*lo = x->lo;
			*hi = x->hi;
			return 1;
		}
	}
	return 0;
}

int wpf_prove(struct rp_recover *rc, uint64_t a, uint64_t b,
	      unsigned int kinds, bool far,
	      bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
			      uint64_t hi),
	      void *arg)
{
	return find(rc, a, b, 1, kinds, far, false, may_hit, arg, NULL, NULL,
		    NULL);
}

int wpf_scan(struct rp_recover *rc, uint64_t *pos, int dir, uint64_t lo,
	     uint64_t hi, unsigned int kinds, bool far,
	     int (*fn)(void *arg, const struct rp_access *acc, int n),
	     bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
			     uint64_t hi),
	     bool (*refute)(void *arg, uint64_t pos), void *arg)
{
	uint64_t p = *pos, end = rc->end, block = rc->block, k, wl, wf, x, y;
	struct rp_access acc[4];
	uint64_t q;
	int ret, n;

	while (p >= lo && p < hi) {
		if (p >= end) {	/* the last, unfinished instruction */
			if (dir > 0 || !end)
				return -RP_ERR_NOTFOUND;
			p = end - 1;
			continue;
		}
		k = (end - 1 - p) / block;
		wl = end - k * block;
		wf = wl > block ? wl - block : 0;
		/* The part of the window still to scan: [x, y). */
		x = dir < 0 ? (wf > lo ? wf : lo) : p;
		y = dir < 0 ? p + 1 : (wl < hi ? wl : hi);
		/* Quiet windows with skip alone (far, no refutation). */
		ret = find(rc, x, y, dir, kinds, far, far && !refute, may_hit,
			   arg, acc, &n, &q);
		if (ret < 0)
			return ret;
		if (ret == 2) {
			/* A hit the proof shows, at the instruction's own
			 * address: the engine's answer there too.
			 */
			ret = fn(arg, acc, n);
			if (ret) {
				*pos = q;
				return ret < 0 ? ret : 0;
			}
			ret = 0;
		}
		while (!ret) {
			ret = rp_recover_scan(rc, &p, dir, x, y, kinds, fn,
					      arg);
			if (ret == -RP_ERR_NOTFOUND)
				break;
			if (ret || !refute || !refute(arg, p)) {
				*pos = p;
				return ret;
			}
			/* A stop the proof rules out: on past it. */
			if (dir < 0 ? p == x : p + 1 == y)
				break;
			if (dir < 0)
				y = p;
			else
				x = p + 1;
			p = dir < 0 ? p - 1 : p + 1;
		}
		if (dir < 0 && !x)
			break;
		p = dir < 0 ? x - 1 : y;
	}
	return -RP_ERR_NOTFOUND;
}
