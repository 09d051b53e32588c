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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>
#include <intel-pt.h>

#include "disasm.h"
#include "events.h"
#include "insn.h"
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

/*
 * The instructions at consecutive addresses from @ip in image section
 * @isid (the session's section cache), as libipt's blocks start there:
 * decoded once per scan context, so a block costs one lookup
 * (rp_cursor_blocks(); the cursor materialized every instruction).
 * The first @other are no branch (a block goes on past them).
 */
struct run {
	uint64_t ip;
	int isid;		/* 0: an empty slot */
	uint32_t n, cap, other;
	const struct rcv_ins **in;
};

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
	/* [k]: the same for window k proven quiet (find()), apart: what
	 * is not known there is secret, not proven to miss.
	 */
	struct wsum *qsum;
	size_t cap_qsum;
	struct wpf_out out;	/* window out_k's accesses (from out_from) */
	uint64_t out_k, out_from;
	bool out_valid, out_quiet;
	struct run *runs;	/* open hash by (ip, isid) */
	size_t run_cap, run_n;
	struct insn_decoder *idec;	/* lengths and classes (ptkit) */
	struct dis *dis;	/* lengths capstone does not know */
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
	for (k = 0; k < c->cap_qsum; k++)
		free(c->qsum[k].u);
	free(c->qsum);
	wpf_out_free(&c->out);
	free(c->ins);
	free(c->cut);
	free(c->calls);
	for (k = 0; k < c->run_cap; k++)
		free(c->runs[k].in);
	free(c->runs);
	insn_decoder_free(c->idec);
	dis_free(c->dis);
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

/* A new pool entry: @raw (@size bytes at @ip, class @iclass) decoded. */
static struct icache *pool_new(struct wpf_cache *c, uint64_t ip,
			       const uint8_t *raw, uint8_t size,
			       uint8_t iclass)
{
	struct icache *e;

	if (c->npool % POOL_CHUNK == 0) {
		if (!wpf_grow((void **)&c->pool, &c->pool_cap,
			      c->npool / POOL_CHUNK, sizeof(*c->pool), 16))
			return NULL;
		c->pool[c->npool / POOL_CHUNK] =
			malloc(POOL_CHUNK * sizeof(**c->pool));
		if (!c->pool[c->npool / POOL_CHUNK])
			return NULL;
	}
	e = pool_at(c, (uint32_t)c->npool++);
	e->ip = ip;
	e->size = size;
	e->iclass = iclass;
	memcpy(e->raw, raw, size);
	rcv_decode(c->dec, ip, raw, size, iclass, &e->in);
	wpf_fix(&e->in, raw, size);
	return e;
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
		e = pool_new(c, insn->ip, insn->raw, insn->size,
			     insn->iclass);
		if (!e)
			return -RP_ERR_NOMEM;
		if (!c->ic[h])
			c->ic_n++;
		c->ic[h] = (uint32_t)c->npool;
	}
	*out = &e->in;
	return 0;
}

/* The class the cursor gives (rp_walk_store()) for libipt's @cls. */
static int rp_class(int cls)
{
	switch (cls) {
	case ptic_call:
		return RP_IC_CALL;
	case ptic_return:
		return RP_IC_RETURN;
	case ptic_jump:
		return RP_IC_JUMP;
	case ptic_cond_jump:
		return RP_IC_COND;
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		return RP_IC_FAR;
	default:
		return RP_IC_OTHER;
	}
}

/* The same from ptkit's class of the bytes (libipt's ptic_error). */
static int ptk_class(int cls)
{
	switch (cls) {
	case IC_COND:
		return RP_IC_COND;
	case IC_JMP:
	case IC_JMP_IND:
		return RP_IC_JUMP;
	case IC_CALL:
	case IC_CALL_IND:
		return RP_IC_CALL;
	case IC_RET:
		return RP_IC_RETURN;
	case IC_FAR:
		return RP_IC_FAR;
	default:
		return RP_IC_OTHER;
	}
}

/* The run of (@ip, @isid), made empty when new; NULL: out of memory. */
static struct run *run_get(struct wpf_cache *c, uint64_t ip, int isid)
{
	size_t h, k;
	struct run *v;

	if (2 * (c->run_n + 1) > c->run_cap) {
		size_t cap = c->run_cap ? 2 * c->run_cap : 1024;

		v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (k = 0; k < c->run_cap; k++) {
			if (!c->runs[k].isid)
				continue;
			h = (size_t)((c->runs[k].ip ^ (uint64_t)c->runs[k].isid
				      << 48) * 0x9e3779b97f4a7c15ull) &
			    (cap - 1);
			while (v[h].isid)
				h = (h + 1) & (cap - 1);
			v[h] = c->runs[k];
		}
		free(c->runs);
		c->runs = v;
		c->run_cap = cap;
	}
	h = (size_t)((ip ^ (uint64_t)isid << 48) * 0x9e3779b97f4a7c15ull) &
	    (c->run_cap - 1);
	while (c->runs[h].isid &&
	       (c->runs[h].ip != ip || c->runs[h].isid != isid))
		h = (h + 1) & (c->run_cap - 1);
	if (!c->runs[h].isid) {
		c->runs[h] = (struct run){ .ip = ip, .isid = isid };
		c->run_n++;
	}
	return &c->runs[h];
}

/*
 * Run @r decoded up to @b's instructions: the bytes from the session's
 * section cache (@b's last from @b itself when truncated), lengths and
 * classes from ptkit's decoder, as rp_walk_store_block() does.
 */
static int run_extend(struct rp_session *s, struct wpf_cache *c,
		      struct run *r, const struct rp_blk *b)
{
	uint64_t ip = r->n ? r->in[r->n - 1]->ip + r->in[r->n - 1]->len :
			     r->ip;
	uint8_t raw[15];
	struct icache *e;
	struct insn d;
	int n;

	if (!c->idec && insn_decoder_new(&c->idec))
		return -RP_ERR_NOMEM;
	while (r->n < b->ninsn) {
		if (r->n + 1u == b->ninsn && b->truncated) {
			if (b->end_ip != ip)
				return -RP_ERR_DECODE;
			memcpy(raw, b->raw, sizeof(raw));
			n = b->size;
		} else {
			n = pt_iscache_read(s->iscache, raw, sizeof(raw),
					    b->isid, ip);
		}
		if (n <= 0)
			return -RP_ERR_DECODE;
		if (insn_decode(c->idec, raw, (unsigned int)n, ip, &d) ||
		    d.len > n) {
			d.len = (uint8_t)rp_ptwrite_length(raw, (size_t)n);
			d.cls = IC_OTHER;
		}
		if (!d.len && (raw[0] == 0x62 || raw[0] == 0xc4 ||
			       raw[0] == 0xc5)) {
			/* VEX and EVEX (in 64-bit code), no branch, some
			 * of which capstone 4 does not know: libopcodes'
			 * length (rcv_decode.c reads them with it too).
			 */
			char text[256];
			int len;

			if (!c->dis && dis_new(&c->dis))
				return -RP_ERR_NOMEM;
			len = dis_insn(c->dis, raw, (size_t)n, ip, text,
				       sizeof(text));
			d.len = len > 0 && len <= n ? (uint8_t)len : 0;
		}
		if (!d.len)
			return -RP_ERR_DECODE;
		if (r->n == r->cap) {
			size_t cap = r->cap;

			if (!wpf_grow((void **)&r->in, &cap, r->n,
				      sizeof(*r->in), 8))
				return -RP_ERR_NOMEM;
			r->cap = (uint32_t)cap;
		}
		e = pool_new(c, ip, raw, d.len, (uint8_t)ptk_class(d.cls));
		if (!e)
			return -RP_ERR_NOMEM;
		if (r->other == r->n && e->iclass == RP_IC_OTHER)
			r->other++;
		r->in[r->n++] = &e->in;
		ip += d.len;
	}
	return 0;
}

struct blk_arg {
	struct rp_session *s;
	struct wpf_cache *c;
	uint64_t first, stop;	/* c->ins[0..stop - first) */
	uint64_t next_pos, next_ip;	/* the instruction at next_pos */
};

/* rp_cursor_blocks()'s call: block @b's instructions into c->ins. */
static int take_block(void *arg, const struct rp_blk *b)
{
	struct blk_arg *a = arg;
	struct wpf_cache *c = a->c;
	struct run *r = run_get(c, b->ip, b->isid);
	const struct rcv_ins *last;
	uint64_t p, lo, hi;
	int ret;

	if (!r)
		return -RP_ERR_NOMEM;
	if (r->n < b->ninsn) {
		ret = run_extend(a->s, c, r, b);
		if (ret)
			return ret;
	}
	/*
	 * What libipt says of the block must be what the bytes say: its
	 * instructions before the last are no branch, the last is at its
	 * end address and of its class.  Else the cursor's instructions.
	 */
	last = r->in[b->ninsn - 1];
	if (r->other + 1u < b->ninsn || last->ip != b->end_ip ||
	    (b->iclass != ptic_error && rp_class(b->iclass) != last->iclass))
		return -RP_ERR_DECODE;
	lo = b->pos > a->first ? b->pos : a->first;
	hi = b->pos + b->ninsn < a->stop ? b->pos + b->ninsn : a->stop;
	for (p = lo; p < hi; p++)
		c->ins[p - a->first] = r->in[p - b->pos];
	if (a->next_pos >= b->pos && a->next_pos - b->pos < b->ninsn)
		a->next_ip = r->in[a->next_pos - b->pos]->ip;
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
	struct blk_arg ba;
	uint64_t next_ip = 0;
	int ret, e, ns = 0;
	size_t have = 0;
	bool blocks;

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
		if (c->ins_first + c->ins_n > last)
			next_ip = c->ins[last - c->ins_first]->ip;
		memmove(c->ins + (c->ins_first - first), c->ins,
			have * sizeof(*c->ins));
	}
	c->ins_first = first;
	c->ins_n = n;
	/* libipt's blocks, each decoded once per address (the cursor
	 * materialized every instruction: 1,000 of a cold scan's 1,681 Ir
	 * per instruction); the cursor where the blocks cannot say.
	 */
	ba.s = rc->s;
	ba.c = c;
	ba.first = first;
	ba.stop = first + n - have;
	ba.next_pos = next_ip || last >= rc->count ? UINT64_MAX : last;
	ba.next_ip = next_ip;
	ret = rp_cursor_blocks(c->cur, first, ba.next_pos == last ? last + 1 :
				       ba.stop, take_block, &ba);
	if (ret == -RP_ERR_NOMEM) {
		c->ins_n = 0;
		return ret;
	}
	if (!ret)
		next_ip = ba.next_ip;
	for (i = 0, blocks = !ret; !blocks && i < n - have; i++) {
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
		else if (next_ip)
			next = next_ip;
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
		/* Straight on (most instructions): rcv_expected()'s 1. */
		if (in->iclass == RP_IC_OTHER && next &&
		    next == in->ip + in->len && !(in->flags & RCV_I_BARRIER))
			e = 1;
		else
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

int wpf_blocks_check(struct rp_recover *rc, uint64_t first, uint64_t last,
		     uint64_t *served)
{
	struct wpf_cache *c;
	const struct rcv_ins **v;
	struct blk_arg ba;
	struct rp_insn insn;
	const struct icache *e;
	uint64_t p;
	int ret, bad = 0;

	*served = 0;
	if (first >= last || last > rc->count)
		return -RP_ERR_RANGE;
	if (!rc->wpf) {
		ret = cache_new(rc, &rc->wpf);
		if (ret)
			return ret;
	}
	c = rc->wpf;
	v = calloc(last - first, sizeof(*v));
	if (!v)
		return -RP_ERR_NOMEM;
	/* take_block() fills c->ins: this check's array for the while. */
	ba = (struct blk_arg){ rc->s, c, first, last, UINT64_MAX, 0 };
	{
		const struct rcv_ins **keep = c->ins;

		c->ins = v;
		ret = rp_cursor_blocks(c->cur, first, last, take_block, &ba);
		c->ins = keep;
	}
	if (ret == -RP_ERR_DECODE) {
		free(v);
		return 0;	/* the cursor's, as a scan does */
	}
	for (p = first; !ret && p < last; p++) {
		ret = rp_cursor_peek(c->cur, p, &insn);
		if (ret)
			break;
		/* The entry around the decoded instruction. */
		e = (const struct icache *)((const char *)v[p - first] -
					    offsetof(struct icache, in));
		if (e->ip != insn.ip || e->size != insn.size ||
		    e->iclass != insn.iclass ||
		    memcmp(e->raw, insn.raw, insn.size))
			bad++;
		else
			*served += 1;
	}
	free(v);
	return ret ? ret : bad;
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
		if (!x->known) {	/* not proven: the engine decides */
			free(u);
			v[k] = (struct wsum){ true, NULL, 0, true };
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
	v[k] = (struct wsum){ true, u, n, false };
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
			uint64_t k, bool quiet)
{
	static const struct wpf_edge nothing;
	uint64_t last = c->end - k * c->block;
	uint64_t first = last > c->block ? last - c->block : 0;
	uint64_t pre = c->block < PREFIX ? c->block : PREFIX;
	uint64_t from = first > pre ? first - pre : 0;
	struct wpf_win *w;
	int ret;

	c->out_valid = false;
	wpf_out_free(&c->out);
	ret = load(rc, c, from, last);
	/* A quiet window is followed from nothing known after it. */
	if (!ret)
		ret = wpf_win_run(c->ins, c->cut, last - from, first - from,
				  quiet ? &nothing : k ? &c->edge[k - 1] :
				  &c->top, &w);
	if (ret)
		return ret;
	ret = wpf_win_acc(w, first - from, &c->out);
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
	bool q, done;
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
		ret = prove_window(rc, c, c->nk, false);
		/* A window the cursor cannot give: the engine's to say. */
		if (ret)
			return ret == -RP_ERR_NOMEM ? ret : 0;
		if (!c->out_valid)
			return 0;
	}
	/*
	 * A window the chain has not reached: with @quiet (watch-unknown
	 * skip), beyond the ramp (where the engine computes a window from
	 * its instructions alone, rcv_sum.c) and with no assumed facts, a
	 * window whose instructions are all quiet is passed where every
	 * access is either known to miss or secret: relative to a register
	 * at its start, whose value nothing in the window shows, so the
	 * engine cannot know it, and skip stops only where it does.
	 */
	q = false;
	if (k >= RCV_CHAIN && k > c->nk) {
		if (!quiet || rc->nfacts || k <= rcv_ramp_start(rc))
			return 0;	/* the window after it is not followed */
		q = true;
	}
	first = rc->end - k * rc->block;
	first = first > rc->block ? first - rc->block : 0;
	/* The whole window: its distinct accesses, kept (a few dozen in a
	 * loop), before proving it and after.
	 */
	for (done = false;; done = true) {
		sum = q ? c->qsum : c->sum;
		if (k < (q ? c->cap_qsum : c->cap_sum) && sum[k].kept &&
		    a == first && b == rc->end - k * rc->block) {
			if (sum[k].unknown)
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
		if (c->out_valid && c->out_k == k && c->out_quiet == q)
			break;
		ret = prove_window(rc, c, k, q);
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

int wpf_quiet_secret(struct rp_recover *rc, uint64_t pos, unsigned int kinds)
{
	struct wpf_cache *c;
	uint64_t k;
	size_t j;
	int ret, n = 0;

	if (pos >= rc->end || !rc->block)
		return -RP_ERR_RANGE;
	ret = cache_get(rc, &c);
	if (ret)
		return ret;
	k = (rc->end - 1 - pos) / rc->block;
	if (!c || k < RCV_CHAIN || rc->nfacts || k <= rcv_ramp_start(rc))
		return 0;
	if (!c->out_valid || c->out_k != k || !c->out_quiet) {
		ret = prove_window(rc, c, k, true);
		if (ret || !c->out_valid)
			return ret;
	}
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
