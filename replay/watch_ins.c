// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The instructions a watchpoint scan's proofs follow (watch_chain.c,
 * watch_proof.c, issue #18): a stretch of a thread's history as decoded
 * instructions (capstone, through rcv_decode()), with where a signal or a
 * gap may lie.  They come from libipt's blocks (rp_cursor_blocks()), each
 * address decoded once per scan context and kept in runs by address and
 * image section, so a block costs one lookup; where the blocks cannot say
 * (a gap, a split checkpoint, 16- or 32-bit code, bytes no decoder here
 * reads) from the cursor, decoded once per address and bytes.  The cursor
 * materialized every instruction: 1,000 of the 1,681 callgrind
 * instructions per instruction a cold scan cost.
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
#include "watch_exit.h"
#include "watch_proof.h"

#define IC_MIN	1024	/* decoded instructions kept, at least */
#define SEED	512	/* calls open where a window starts, at most */

/* An instruction decoded once per address and bytes; entries never move
 * (the windows point at them), in chunks of POOL_CHUNK.
 */
struct icache {
	uint64_t ip;
	uint8_t size, iclass, bits;
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


int wpf_ins_init(struct wpf_ins *c, struct rp_recover *rc)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = rcv_dec_new(&c->dec);
	if (!ret)
		ret = rp_cursor_new(rc->s, rc->tid, &c->cur);
	return ret;
}

void wpf_ins_fini(struct wpf_ins *c)
{
	size_t k;

	rcv_dec_free(c->dec);
	rp_cursor_free(c->cur);
	for (k = 0; k < (c->npool + POOL_CHUNK - 1) / POOL_CHUNK; k++)
		free(c->pool[k]);
	free(c->pool);
	free(c->ic);
	free(c->ins);
	free(c->cut);
	free(c->calls);
	for (k = 0; k < c->run_cap; k++)
		free(c->runs[k].in);
	free(c->runs);
	insn_decoder_free(c->idec);
	dis_free(c->dis);
	memset(c, 0, sizeof(*c));
}

static struct icache *pool_at(const struct wpf_ins *c, uint32_t k)
{
	return &c->pool[k / POOL_CHUNK][k % POOL_CHUNK];
}

static size_t ic_slot(const struct wpf_ins *c, const uint32_t *ic,
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

/* A new pool entry: @raw (@size bytes at @ip, class @iclass, @bits-bit
 * code) decoded.
 */
static struct icache *pool_new(struct wpf_ins *c, uint64_t ip,
			       const uint8_t *raw, uint8_t size,
			       uint8_t iclass, uint8_t bits)
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
	e->bits = bits;
	memcpy(e->raw, raw, size);
	if (bits && bits != 64)		/* rcv_decode_insn() */
		rcv_decode_barrier(ip, size, iclass, &e->in);
	else
		rcv_decode(c->dec, ip, raw, size, iclass, &e->in);
	wpf_fix(&e->in, raw, size);
	return e;
}

/* @insn decoded, from the cache when its address and bytes were seen. */
static int decode(struct wpf_ins *c, const struct rp_insn *insn,
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
	    e->bits != insn->bits || memcmp(e->raw, insn->raw, insn->size)) {
		/* A new entry, also for other bytes at a known address
		 * (code written since): the old one may be in use.
		 */
		e = pool_new(c, insn->ip, insn->raw, insn->size,
			     insn->iclass, insn->bits);
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
static struct run *run_get(struct wpf_ins *c, uint64_t ip, int isid)
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
static int run_extend(struct rp_session *s, struct wpf_ins *c,
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
		e = pool_new(c, ip, raw, d.len, (uint8_t)ptk_class(d.cls),
			     64);
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
	struct wpf_ins *c;
	uint64_t first, stop;	/* c->ins[0..stop - first) */
	uint64_t next_pos, next_ip;	/* the instruction at next_pos */
};

/* rp_cursor_blocks()'s call: block @b's instructions into c->ins. */
static int take_block(void *arg, const struct rp_blk *b)
{
	struct blk_arg *a = arg;
	struct wpf_ins *c = a->c;
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

int wpf_ins_load(struct rp_recover *rc, struct wpf_ins *c, uint64_t first,
		 uint64_t last)
{
	size_t n = last - first, i, ncalls = 0;
	struct rp_insn insn;
	struct rp_gap gap;
	struct blk_arg ba;
	uint64_t next_ip = 0, evi;
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
	evi = rp_thread_event_find(rc->s, rc->tid, first + 1);
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
		/* A barrier to the engine (rcv_expected(): 0) that went
		 * straight on: 2, the engine starts again after it
		 * (watch_proof.c).
		 */
		if (!e && in->iclass == RP_IC_OTHER && next &&
		    next == in->ip + in->len &&
		    (in->flags & RCV_I_BARRIER) &&
		    !(in->flags & (RCV_I_SYSCALL | RCV_I_XFER)))
			e = 3;
		if (e && rcv_async_away(rc->s, rc->tid, &evi, first + i, next))
			e = 0;
		c->cut[i] = e == 1 ? 0 : e == 3 ? 2 : 1;
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
	struct wpf_ins x, *c = &x;
	const struct rcv_ins **v;
	struct blk_arg ba;
	struct rp_insn insn;
	const struct icache *e;
	uint64_t p;
	int ret, bad = 0;

	*served = 0;
	if (first >= last || last > rc->count)
		return -RP_ERR_RANGE;
	ret = wpf_ins_init(c, rc);
	v = calloc(last - first, sizeof(*v));
	if (ret || !v) {
		free(v);
		wpf_ins_fini(c);
		return ret ? ret : -RP_ERR_NOMEM;
	}
	/* take_block() fills c->ins: this check's array. */
	c->ins = v;
	ba = (struct blk_arg){ rc->s, c, first, last, UINT64_MAX, 0 };
	ret = rp_cursor_blocks(c->cur, first, last, take_block, &ba);
	if (ret == -RP_ERR_DECODE)
		last = first;	/* the cursor's, as a scan does: none */
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
	wpf_ins_fini(c);	/* frees v */
	return ret == -RP_ERR_DECODE ? 0 : ret ? ret : bad;
}

/*
 * The nearest gap of the thread within [@lo, @hi) in direction @dir, as
 * the position of the instruction before it (the one that went into code
 * the trace does not show: OVF, LOST, JIT code whose bytes are in no
 * image, any decode error).  That code may have stored or loaded
 * anything, so with stop and stack it is an access of unknown, unbounded
 * address of both kinds, which no proof can refute (the proofs see only
 * the decoded instructions).  Returns true with it in *@gp and the gap's
 * lost bytes in *@bytes.
 */
bool wpf_gap_near(struct rp_recover *rc, int dir, uint64_t lo, uint64_t hi,
		  uint64_t *gp, uint64_t *bytes, bool *exit)
{
	struct rp_gap gap;
	bool found = false;
	uint64_t i, g;

	*exit = false;
	for (i = 0; !rp_thread_gap(rc->s, rc->tid, i, &gap); i++) {
		/* One at the very start: code before the history began. */
		if (!gap.before)
			continue;
		g = gap.before - 1;
		if (g < lo || g >= hi)
			continue;
		if (!found || (dir < 0 ? g > *gp : g < *gp)) {
			*gp = g;
			*bytes = gap.bytes;
			found = true;
		}
	}
	g = rc->end - 1;
	if (rc->end && g >= lo && g < hi &&
	    (!found || (dir < 0 ? g > *gp : g < *gp)) && wpx_exit_write(rc)) {
		*gp = g;
		*bytes = 0;
		*exit = true;
		found = true;
	}
	return found;
}
