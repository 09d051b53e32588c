// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The chain of watch_proof.c's proofs over a thread's history, from the
 * end back, and the watchpoint scan that uses it (issue #18): each window
 * of the recovery engine's grid is followed from 2,048 instructions
 * before it, its bases fixed by the end snapshot (registers and stack)
 * for the last window and by the proof of the window after it for the
 * others; a window whose accesses all miss the watched bytes is passed
 * without the engine, and the distinct accesses of a proven window are
 * kept for the next scan.  Instructions come from the cursor, decoded
 * once per address (capstone is the cost otherwise).
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_proof.h"

#define IC_MIN	1024	/* decoded instructions kept, at least */
#define SEED	512	/* calls open where a window starts, at most */
/* Instructions followed before a window, so that the frames it returns
 * into were opened in the pass (at most a window's).
 */
#define PREFIX	2048

/* An instruction decoded once per address and bytes; entries never move
 * (the windows point at them), in chunks of POOL_CHUNK.
 */
struct icache {
	uint64_t ip;
	uint8_t size, iclass;
	uint8_t raw[15];
	struct rcv_ins in;
};

#define POOL_CHUNK	1024

struct wpf_cache {
	uint64_t end, block;
	struct rcv_dec *dec;
	struct rp_cursor *cur;
	struct icache **pool;	/* chunks */
	size_t npool, pool_cap;	/* entries, chunk pointers */
	uint32_t *ic;		/* by address: pool entry + 1 (0: empty) */
	size_t ic_cap, ic_n;
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
		bool unknown;	/* an access not proven */
	} *sum;
	size_t cap_sum;
	struct wpf_out out;	/* window out_k's accesses (from out_from) */
	uint64_t out_k, out_from;
	bool out_valid;
	const struct rcv_ins **ins;	/* instructions ins_first.. (ins_n) */
	uint8_t *cut;
	uint64_t *calls;
	size_t ins_cap, ins_n;
	uint64_t ins_first;
};

void wpf_cache_free(struct wpf_cache *c)
{
	size_t k;

	if (!c)
		return;
	rcv_dec_free(c->dec);
	rp_cursor_free(c->cur);
	for (k = 0; k < (c->npool + POOL_CHUNK - 1) / POOL_CHUNK; k++)
		free(c->pool[k]);
	free(c->pool);
	free(c->ic);
	free(c->top.w);
	for (k = 0; k < c->nk; k++)
		free(c->edge[k].w);
	free(c->edge);
	for (k = 0; k < c->cap_sum; k++)
		free(c->sum[k].u);
	free(c->sum);
	wpf_out_free(&c->out);
	free(c->ins);
	free(c->cut);
	free(c->calls);
	free(c);
}

static struct icache *pool_at(const struct wpf_cache *c, uint32_t k)
{
	return &c->pool[k / POOL_CHUNK][k % POOL_CHUNK];
}

static size_t ic_slot(const struct wpf_cache *c, const uint32_t *ic,
		      size_t cap, uint64_t ip)
{
	size_t h = (size_t)(ip * 0x9e3779b97f4a7c15ull) & (cap - 1);

	while (ic[h] && pool_at(c, ic[h] - 1)->ip != ip)
		h = (h + 1) & (cap - 1);
	return h;
}

void wpf_fix(struct rcv_ins *in, const uint8_t *raw, size_t size)
{
	size_t j;

	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL:
	case X86_INS_RET: case X86_INS_LEAVE: case X86_INS_ENTER:
	case X86_INS_PUSHF: case X86_INS_PUSHFQ: case X86_INS_POPF:
	case X86_INS_POPFQ:
		break;
	default:
		return;
	}
	for (j = 0; j < size; j++) {
		uint8_t b = raw[j];

		if (b == 0x66) {	/* not followed, memory unknown */
			in->flags |= RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR;
			return;
		}
		if (b != 0x67 && b != 0xf0 && b != 0xf2 && b != 0xf3 &&
		    b != 0x2e && b != 0x36 && b != 0x3e && b != 0x26 &&
		    b != 0x64 && b != 0x65 && (b & 0xf0) != 0x40)
			return;
	}
}

/* @insn decoded, from the cache when its address and bytes were seen. */
static int decode(struct wpf_cache *c, const struct rp_insn *insn,
		  const struct rcv_ins **out)
{
	struct icache *e = NULL;
	size_t h, k;

	if (2 * (c->ic_n + 1) > c->ic_cap) {
		size_t cap = c->ic_cap ? 2 * c->ic_cap : IC_MIN;
		uint32_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -RP_ERR_NOMEM;
		for (k = 0; k < c->ic_cap; k++)
			if (c->ic[k])
				v[ic_slot(c, v, cap,
					  pool_at(c, c->ic[k] - 1)->ip)] =
					c->ic[k];
		free(c->ic);
		c->ic = v;
		c->ic_cap = cap;
	}
	h = ic_slot(c, c->ic, c->ic_cap, insn->ip);
	if (c->ic[h])
		e = pool_at(c, c->ic[h] - 1);
	if (!e || e->size != insn->size || e->iclass != insn->iclass ||
	    memcmp(e->raw, insn->raw, insn->size)) {
		/* A new entry, also for other bytes at a known address
		 * (code written since): the old one may be in use.
		 */
		if (c->npool % POOL_CHUNK == 0) {
			if (!wpf_grow((void **)&c->pool, &c->pool_cap,
				      c->npool / POOL_CHUNK,
				      sizeof(*c->pool), 16))
				return -RP_ERR_NOMEM;
			c->pool[c->npool / POOL_CHUNK] =
				malloc(POOL_CHUNK * sizeof(**c->pool));
			if (!c->pool[c->npool / POOL_CHUNK])
				return -RP_ERR_NOMEM;
		}
		if (!c->ic[h])
			c->ic_n++;
		c->ic[h] = (uint32_t)++c->npool;
		e = pool_at(c, c->ic[h] - 1);
		e->ip = insn->ip;
		e->size = insn->size;
		e->iclass = insn->iclass;
		memcpy(e->raw, insn->raw, insn->size);
		rcv_decode(c->dec, insn->ip, insn->raw, insn->size,
			   insn->iclass, &e->in);
		wpf_fix(&e->in, insn->raw, insn->size);
	}
	*out = &e->in;
	return 0;
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
	ret = rcv_dec_new(&c->dec);
	if (!ret)
		ret = rp_cursor_new(rc->s, rc->tid, &c->cur);
	if (ret) {
		wpf_cache_free(c);
		return ret;
	}
	for (g = 0; g < 16; g++)
		if (rc->end_regs.valid & (1ull << g))
			c->top.r[g] = (struct wpf_reg){ true,
				rc->end_regs.val[g], rc->end_regs.val[g] };
	/* The snapshot's stack above the stack pointer: the words that
	 * the pops of the last window read back.
	 */
	if (c->top.r[RP_REG_RSP].known && rc->snap_ok) {
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

/* Instructions [first, last) of the thread into c->ins, c->cut. */
static int load(struct rp_recover *rc, struct wpf_cache *c, uint64_t first,
		uint64_t last)
{
	size_t n = last - first, i, ncalls = 0;
	struct rp_insn insn;
	struct rp_gap gap;
	int ret, e, ns = 0;

	size_t have = 0;

	if (n > c->ins_cap) {
		free(c->ins);
		free(c->cut);
		free(c->calls);
		c->ins = malloc(n * sizeof(*c->ins));
		c->cut = malloc(n);
		c->calls = malloc((n + SEED) * sizeof(*c->calls));
		c->ins_cap = c->ins && c->cut && c->calls ? n : 0;
		c->ins_n = 0;
		if (!c->ins_cap)
			return -RP_ERR_NOMEM;
	}
	/* The windows go back: the start of the last load is the end of
	 * this one, decoded already.
	 */
	if (c->ins_n && c->ins_first > first && c->ins_first < last &&
	    c->ins_first + c->ins_n >= last) {
		have = last - c->ins_first;
		memmove(c->ins + (c->ins_first - first), c->ins,
			have * sizeof(*c->ins));
	}
	c->ins_first = first;
	c->ins_n = n;
	for (i = 0; i < n - have; i++) {
		ret = rp_cursor_peek(c->cur, first + i, &insn);
		if (!ret)
			ret = decode(c, &insn, &c->ins[i]);
		if (ret) {
			c->ins_n = 0;
			return ret;
		}
	}
	/* Where a signal handler may have run, the returns to calls made
	 * before the window must be matched too (as recover.c does).
	 */
	if (!rc->no_handlers && first)
		ns = rp_cursor_callers(c->cur, first, c->calls, SEED);
	for (i = 0; ns > 0 && i < (size_t)ns / 2; i++) {
		uint64_t t = c->calls[i];

		c->calls[i] = c->calls[ns - 1 - i];
		c->calls[ns - 1 - i] = t;
	}
	for (i = 0; ns > 0 && i < (size_t)ns; i++)
		if (!rp_cursor_peek(c->cur, c->calls[i], &insn))
			c->calls[ncalls++] = insn.ip + insn.size;
	for (i = 0; i < n; i++) {
		const struct rcv_ins *in = c->ins[i];
		uint64_t ret_to = 0, next;

		if (i + 1 < n)
			next = c->ins[i + 1]->ip;
		else if (last < rc->count &&
			 !rp_cursor_peek(c->cur, last, &insn))
			next = insn.ip;
		else if (rc->end_regs.valid & (1ull << RP_REG_RIP))
			next = rc->end_regs.val[RP_REG_RIP];
		else
			next = 0;
		if (in->iclass == RP_IC_CALL)
			c->calls[ncalls++] = in->ip + in->len;
		else if (in->iclass == RP_IC_RETURN && ncalls)
			ret_to = c->calls[--ncalls];
		e = next ? rcv_expected(in, next, ret_to) : 0;
		if (e == 2 && rc->no_handlers)
			e = 1;
		c->cut[i] = e != 1;
		if (e != 1)
			ncalls = 0;
	}
	for (i = 0; !rp_thread_gap(rc->s, rc->tid, i, &gap); i++)
		if (gap.before > first && gap.before <= last)
			c->cut[gap.before - 1 - first] = 1;
	return 0;
}

#define SUM_MAX	1024	/* distinct accesses kept per window, at most */

/* The distinct accesses of window @k (c->out from instruction @skip on). */
static int keep_sum(struct wpf_cache *c, uint64_t k, size_t skip)
{
	struct wpf_acc *u, *x;
	size_t j, n = 0, m = 0, cap = c->cap_sum;
	struct wsum *v;

	if (c->out.contradiction)
		return 0;
	if (k >= cap) {
		cap = 2 * k + 16;
		v = realloc(c->sum, cap * sizeof(*v));
		if (!v)
			return -RP_ERR_NOMEM;
		memset(v + c->cap_sum, 0, (cap - c->cap_sum) * sizeof(*v));
		c->sum = v;
		c->cap_sum = cap;
	}
	if (c->sum[k].kept)
		return 0;
	/* Distinct by a small open hash (a window repeats its slots). */
	u = calloc(2 * SUM_MAX, sizeof(*u));
	if (!u)
		return -RP_ERR_NOMEM;
	for (j = 0; j < c->out.nacc; j++) {
		size_t h;

		x = &c->out.acc[j];
		if (x->i < skip)
			continue;
		if (!x->known) {	/* not proven: the engine decides */
			free(u);
			c->sum[k] = (struct wsum){ true, NULL, 0, true };
			return 0;
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
	c->sum[k] = (struct wsum){ true, u, n, false };
	return 0;
}

/*
 * Window @k's accesses into c->out: followed from PREFIX instructions
 * before it, so that frames opened before the window are known by then,
 * from what
 * is known after it (the end, or the middle of the pass that proved the
 * window after it); and what is known where it starts into c->edge[k].
 */
static int prove_window(struct rp_recover *rc, struct wpf_cache *c,
			uint64_t k)
{
	uint64_t last = c->end - k * c->block;
	uint64_t first = last > c->block ? last - c->block : 0;
	uint64_t pre = c->block < PREFIX ? c->block : PREFIX;
	uint64_t from = first > pre ? first - pre : 0;
	struct wpf_win *w;
	int ret;

	c->out_valid = false;
	wpf_out_free(&c->out);
	ret = load(rc, c, from, last);
	if (!ret)
		ret = wpf_win_run(c->ins, c->cut, last - from, first - from,
				  k ? &c->edge[k - 1] : &c->top, &w);
	if (ret)
		return ret;
	ret = wpf_win_acc(w, first - from, &c->out);
	if (!ret && k == c->nk) {
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
	return keep_sum(c, k, first - from);
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
static int find(struct rp_recover *rc, uint64_t a, uint64_t b, int dir,
		unsigned int kinds, bool far,
		bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
				uint64_t hi),
		void *arg, struct rp_access *acc, int *n, uint64_t *pos)
{
	struct wpf_cache **cp = &rc->wpf, *c = *cp;
	uint64_t k, first;
	size_t j, lo, hi, e;
	int ret;

	if (a >= b || b > rc->end || !rc->block)
		return 0;
	if (c && (c->end != rc->end || c->block != rc->block)) {
		wpf_cache_free(c);
		*cp = c = NULL;
	}
	if (!c) {
		ret = cache_new(rc, cp);
		if (ret)
			return ret;
		c = *cp;
	}
	k = (rc->end - 1 - a) / rc->block;
	if ((rc->end - b) / rc->block != k)
		return 0;	/* not one window */
	if (!far && k >= RCV_CHAIN)
		return 0;
	/* The engine's chain: proofs from the end to it, whatever was
	 * asked before (a scan's stops must not depend on that).
	 */
	while (k < RCV_CHAIN && c->nk < k) {
		ret = prove_window(rc, c, c->nk);
		/* A window the cursor cannot give: the engine's to say. */
		if (ret)
			return ret == -RP_ERR_NOMEM ? ret : 0;
		if (!c->out_valid)
			return 0;
	}
	first = rc->end - k * rc->block;
	first = first > rc->block ? first - rc->block : 0;
	if (k < c->cap_sum && c->sum[k].kept && a == first &&
	    b == rc->end - k * rc->block) {
		if (c->sum[k].unknown)
			return 0;
		for (j = 0; j < c->sum[k].nu; j++) {
			const struct wpf_acc *x = &c->sum[k].u[j];

			if ((kinds & x->kind) &&
			    may_hit(arg, x->kind, x->lo, x->hi))
				break;
		}
		if (j == c->sum[k].nu)
			return 1;
		if (!acc)
			return 0;
	}
	if (!c->out_valid || c->out_k != k) {
		if (k > c->nk)
			return 0;	/* the window after it is not followed */
		ret = prove_window(rc, c, k);
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

			if (!(kinds & x->kind))
				continue;
			if (!x->known)
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

int wpf_prove(struct rp_recover *rc, uint64_t a, uint64_t b,
	      unsigned int kinds, bool far,
	      bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
			      uint64_t hi),
	      void *arg)
{
	return find(rc, a, b, 1, kinds, far, may_hit, arg, NULL, NULL, NULL);
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
		ret = find(rc, x, y, dir, kinds, far, may_hit, arg, acc, &n,
			   &q);
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
