// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's SSE semantics: the low 128 bits of xmm0..xmm15
 * through the moves and shuffles compilers and glibc emit (printf keeps
 * its buffer pointers in xmm: movq %rax,%xmm0; punpcklqdq; movaps), forward
 * and backward where exact, and the memory they load and store.  Every
 * other instruction that writes an xmm register makes it unknown whole
 * (struct rcv_ins's xw, rcv_decode.c); ymm's upper halves are never known.
 */
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_val.h"
#include "rcv_win.h"
#include "replay.h"

/* The kinds of instruction modelled here. */
enum { X_NONE, X_MOVQ, X_MOV128, X_MOVH, X_MOVL, X_UNPL, X_UNPH, X_VUNPL,
       X_XOR, X_VXOR, X_SHUF };

static int kind(unsigned int id)
{
	switch (id) {
	case X86_INS_MOVD: case X86_INS_MOVQ: case X86_INS_VMOVD:
	case X86_INS_VMOVQ:
		return X_MOVQ;
	case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVDQA:
	case X86_INS_MOVDQU: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
	case X86_INS_VMOVAPS: case X86_INS_VMOVUPS: case X86_INS_VMOVDQA:
	case X86_INS_VMOVDQU: case X86_INS_VMOVAPD: case X86_INS_VMOVUPD:
	case X86_INS_MOVNTDQ: case X86_INS_MOVNTPS: case X86_INS_MOVNTPD:
	case X86_INS_VMOVNTDQ: case X86_INS_VMOVNTPS: case X86_INS_VMOVNTPD:
		return X_MOV128;
	case X86_INS_MOVHPS: case X86_INS_MOVHPD:
		return X_MOVH;
	case X86_INS_MOVLPS: case X86_INS_MOVLPD:
		return X_MOVL;
	case X86_INS_PUNPCKLQDQ:
		return X_UNPL;
	case X86_INS_PUNPCKHQDQ:
		return X_UNPH;
	case X86_INS_VPUNPCKLQDQ:
		return X_VUNPL;
	case X86_INS_PXOR: case X86_INS_XORPS: case X86_INS_XORPD:
		return X_XOR;
	case X86_INS_VPXOR: case X86_INS_VXORPS: case X86_INS_VXORPD:
		return X_VXOR;
	case X86_INS_PSHUFD: case X86_INS_VPSHUFD:
		return X_SHUF;
	default:
		return X_NONE;
	}
}

static bool is_x(const struct rcv_op *o)
{
	return o->type == RCV_OP_XMM;
}

/*
 * Is @in one of ours, in a form we model (its operands as the SDM gives
 * them)?  Then rcv_decode.c sets its memory operand's size (capstone's is
 * not trusted for these) and drops the F3/F2 "rep" of movdqu and movq.
 */
bool rcv_sse_modelled(const struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1], *o;
	int k = kind(in->id);

	switch (k) {
	case X_MOVQ:
		if (in->nops != 2)
			return false;
		/* xmm <- r/m, r/m <- xmm, xmm <- xmm (movq) */
		if (is_x(d) && is_x(s))
			return in->id == X86_INS_MOVQ ||
			       in->id == X86_INS_VMOVQ;
		/* The other operand's size is the name's (movd 4, movq 8):
		 * a general-purpose register's is what is written.
		 */
		if (!is_x(d) && !is_x(s))
			return false;
		o = is_x(d) ? s : d;
		return (o->type == RCV_OP_REG || o->type == RCV_OP_MEM) &&
		       o->size == rcv_sse_memsize(in);
	case X_MOV128:
		return in->nops == 2 && (is_x(d) || is_x(s)) &&
		       (is_x(d) || d->type == RCV_OP_MEM) &&
		       (is_x(s) || s->type == RCV_OP_MEM) &&
		       (!is_x(d) || !is_x(s) || d->size == s->size);
	case X_MOVH: case X_MOVL:
		return in->nops == 2 &&
		       ((is_x(d) && s->type == RCV_OP_MEM) ||
			(d->type == RCV_OP_MEM && is_x(s)));
	case X_UNPL: case X_UNPH: case X_XOR:
		return in->nops == 2 && is_x(d) && d->size == 16 &&
		       (is_x(s) || s->type == RCV_OP_MEM);
	case X_VUNPL: case X_VXOR:
		return in->nops == 3 && is_x(d) && is_x(s) &&
		       (is_x(&in->op[2]) || in->op[2].type == RCV_OP_MEM);
	case X_SHUF:
		return in->nops == 3 && is_x(d) &&
		       (is_x(s) || s->type == RCV_OP_MEM) &&
		       in->op[2].type == RCV_OP_IMM;
	default:
		return false;
	}
}

/* Bytes the memory operand of a modelled @in covers. */
unsigned int rcv_sse_memsize(const struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];

	switch (kind(in->id)) {
	case X_MOVQ:
		return in->id == X86_INS_MOVD || in->id == X86_INS_VMOVD ?
		       4 : 8;
	case X_MOV128:
		return is_x(d) ? d->size : s->size;
	case X_MOVH: case X_MOVL:
		return 8;
	case X_VUNPL: case X_VXOR:
		return d->size;
	default:
		return 16;
	}
}

/* ---- 128-bit values ---------------------------------------------------- */

struct x128 {
	struct rcv_val q[2];
};

static const struct x128 unk;

static struct x128 xzero(void)
{
	return (struct x128){ { known(0), known(0) } };
}

static struct x128 xreg(const struct rcv_state *s, int n)
{
	return (struct x128){ { s->x[n][0], s->x[n][1] } };
}

/* Merges the known bits of @v into half @h of xmm @n of @s (rcv_merge()
 * inline: every instruction passes the known xmm on).
 */
static inline bool xmerge(struct rcv_state *s, int n, int h,
			  struct rcv_val v, uint64_t *conflicts)
{
	struct rcv_val *t = &s->x[n][h];
	uint64_t add;

	if (!v.k)
		return false;
	v.v &= v.k;
	s->xk |= (uint16_t)(1u << n);
	if ((t->v ^ v.v) & t->k & v.k)
		(*conflicts)++;
	add = v.k & ~t->k;
	if (!add)
		return false;
	t->v = (t->v & ~add) | (v.v & add);
	t->k |= add;
	return true;
}

/* xmerge() where half @h of xmm @n of @s is likely all unknown. */
static inline bool xcopy(struct rcv_state *s, int n, int h,
			 struct rcv_val v, uint64_t *conflicts)
{
	struct rcv_val *t = &s->x[n][h];

	if (t->k || !v.k)
		return xmerge(s, n, h, v, conflicts);
	s->xk |= (uint16_t)(1u << n);
	t->v = (t->v & ~v.k) | (v.v & v.k);
	t->k = v.k;
	return true;
}

/*
 * xcopy() of all 16 xmm into @to, none of whose halves is known (false
 * when one is: then the caller merges them one by one): a loop the
 * compiler makes wide, for the first sweep back, where every state takes
 * every xmm the snapshot shows.  *@ch: a half learned something.
 */
static bool xall(struct rcv_state *to, const struct rcv_state *from,
		 bool *ch)
{
	uint64_t any = 0;
	unsigned int n, xk = 0;

	/* xk clear: every xmm of @to all unknown (struct rcv_state). */
	for (n = 0; to->xk && n < RCV_NXMM; n++)
		any |= to->x[n][0].k | to->x[n][1].k;
	if (any)
		return false;
	/* Nothing known in @to: each half is @from's known bits, and
	 * @from's value bits outside them are 0 (struct rcv_val; every
	 * writer of an xmm half masks them: xmerge(), xcopy(), here), so a
	 * copy (p99: a loop that kept @to's bits outside them was the
	 * first sweep back's largest part at 10^7).
	 */
	memcpy(to->x, from->x, sizeof(to->x));
#pragma GCC unroll 16
	for (n = 0; n < RCV_NXMM; n++)
		xk |= (unsigned int)!!(from->x[n][0].k | from->x[n][1].k) << n;
	to->xk |= (uint16_t)xk;
	*ch |= xk != 0;
	return true;
}

static bool xput(struct rcv_state *s, int n, struct x128 v,
		 uint64_t *conflicts)
{
	bool ch = xmerge(s, n, 0, v.q[0], conflicts);

	return xmerge(s, n, 1, v.q[1], conflicts) | ch;
}

bool rcv_sse_flow(struct rcv_state *to, const struct rcv_state *from,
		  uint16_t xw, uint64_t *conflicts)
{
	unsigned int m = from->xk & ~xw & 0xffffu;
	bool ch = false;
	int n;

	/* Every pass after the first finds them equal (p99: this was a
	 * third of a window's cost): the same values add nothing and
	 * conflict with nothing.
	 */
	if ((to->xk & m) == m && !memcmp(to->x, from->x, sizeof(to->x)))
		return false;
	/* None of them known on @to's side yet (the first sweep back from
	 * the end: every state takes every xmm): xmerge() into all unknown
	 * is a copy of the known bits, with no conflict.
	 */
	if (!(to->xk & m)) {
		if (m == 0xffff && xall(to, from, &ch))
			return ch;
		while (m) {
			n = __builtin_ctz(m);
			m &= m - 1;
			ch |= xcopy(to, n, 0, from->x[n][0], conflicts);
			ch |= xcopy(to, n, 1, from->x[n][1], conflicts);
		}
		return ch;
	}
	while (m) {
		n = __builtin_ctz(m);
		m &= m - 1;
		ch |= xmerge(to, n, 0, from->x[n][0], conflicts);
		ch |= xmerge(to, n, 1, from->x[n][1], conflicts);
	}
	return ch;
}

/* Bytes @addr.. (@size of 4, 8, 16, 32: the low 16) before @i. */
static struct x128 xmem(const struct rcv_ctx *c, uint64_t i, uint64_t addr,
			unsigned int size)
{
	struct x128 r = unk;

	if (!c->mem)
		return r;
	r.q[0] = c->mem(c->mctx, i, addr, size < 8 ? size : 8);
	r.q[0].k &= wmask(size);
	r.q[0].v &= r.q[0].k;
	if (size > 8)
		r.q[1] = c->mem(c->mctx, i, addr + 8, 8);
	return r;
}

/* Is half @h of xmm @n all known in @s (nothing left to learn)? */
static bool xfull(const struct rcv_state *s, int n, int h)
{
	return s->x[n][h].k == ~0ull;
}

/* An operand's value before @in: xmm, GPR (zero-extended) or memory. */
static struct x128 xop(const struct rcv_ctx *c, uint64_t i,
		       const struct rcv_ins *in, const struct rcv_op *o,
		       const struct rcv_state *s, unsigned int size)
{
	struct x128 r = unk;
	struct rcv_val a;

	switch (o->type) {
	case RCV_OP_XMM:
		return xreg(s, o->reg);
	case RCV_OP_REG:
		r.q[0] = reg_get(s, o->reg, size, 0);
		return r;
	case RCV_OP_MEM:
		a = rcv_addr(c, in, o, s);
		if (a.k == ~0ull)
			return xmem(c, i, a.v, size);
		return r;
	default:
		return r;
	}
}

/* Low @size bytes of @v, the rest known zero (movd/movq). */
static struct x128 zext(struct x128 v, unsigned int size)
{
	uint64_t m = wmask(size);

	v.q[0].k = (v.q[0].k & m) | ~m;
	v.q[0].v &= m;
	v.q[1] = known(0);
	return v;
}

/* 32-bit lane @l (0..3) of @v. */
static struct rcv_val lane(struct x128 v, unsigned int l)
{
	unsigned int sh = 32 * (l & 1);

	return (struct rcv_val){ (v.q[l >> 1].v >> sh) & 0xffffffffull,
				 (v.q[l >> 1].k >> sh) & 0xffffffffull };
}

static void set_lane(struct x128 *v, unsigned int l, struct rcv_val x)
{
	unsigned int sh = 32 * (l & 1);
	uint64_t m = 0xffffffffull << sh;
	struct rcv_val *q = &v->q[l >> 1];

	q->k = (q->k & ~m) | ((x.k << sh) & m);
	q->v = ((q->v & ~m) | ((x.v << sh) & m)) & q->k;
}

static struct rcv_val vxor(struct rcv_val a, struct rcv_val b)
{
	uint64_t k = a.k & b.k;

	return (struct rcv_val){ (a.v ^ b.v) & k, k };
}

/* ---- forward and backward --------------------------------------------- */

bool rcv_sse_forward(const struct rcv_ctx *c, uint64_t i,
		     const struct rcv_ins *in, const struct rcv_state *s,
		     struct rcv_state *o, struct rcv_state *post,
		     uint64_t *cf)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int ms = rcv_sse_memsize(in), l;
	struct x128 a, b, r;
	bool ch = false;

	if (!in->xsem)
		return ch;
	/* A load into an xmm already known after it: memory questions
	 * cost (alias proofs), and there is nothing to learn.
	 */
	if (is_x(d) && xfull(post, d->reg, 0) && xfull(post, d->reg, 1))
		return ch;
	switch (kind(in->id)) {
	case X_MOVQ:
		if (is_x(d)) {
			a = xop(c, i, in, src, s, ms);
			ch |= xput(post, d->reg, zext(a, ms), cf);
		} else if (d->type == RCV_OP_REG) {
			reg_set(o, d->reg, ms, 0, s->x[src->reg][0]);
		}
		return ch;
	case X_MOV128:
		if (is_x(d))
			ch |= xput(post, d->reg, xop(c, i, in, src, s, ms), cf);
		return ch;
	case X_MOVH: case X_MOVL:
		if (!is_x(d))
			return ch;
		r = xreg(s, d->reg);
		a = xop(c, i, in, src, s, 8);
		r.q[kind(in->id) == X_MOVH] = a.q[0];
		ch |= xput(post, d->reg, r, cf);
		return ch;
	case X_UNPL: case X_UNPH:
		l = kind(in->id) == X_UNPH;
		a = xreg(s, d->reg);
		b = xop(c, i, in, src, s, 16);
		r.q[0] = a.q[l];
		r.q[1] = b.q[l];
		ch |= xput(post, d->reg, r, cf);
		return ch;
	case X_VUNPL:
		a = xreg(s, src->reg);
		b = xop(c, i, in, &in->op[2], s, 16);
		r.q[0] = a.q[0];
		r.q[1] = b.q[0];
		ch |= xput(post, d->reg, r, cf);
		return ch;
	case X_XOR: case X_VXOR: {
		bool two = kind(in->id) == X_XOR;
		const struct rcv_op *x = two ? d : src,
				    *y = two ? src : &in->op[2];

		if (is_x(y) && y->reg == x->reg) {
			r = xzero();	/* pxor x, x: zero whatever x was */
		} else {
			a = xreg(s, x->reg);
			b = xop(c, i, in, y, s, 16);
			r.q[0] = vxor(a.q[0], b.q[0]);
			r.q[1] = vxor(a.q[1], b.q[1]);
		}
		ch |= xput(post, d->reg, r, cf);
		return ch;
	}
	case X_SHUF:
		a = xop(c, i, in, src, s, 16);
		r = unk;
		for (l = 0; l < 4; l++)
			set_lane(&r, l, lane(a, ((uint64_t)in->op[2].imm >>
						(2 * l)) & 3));
		ch |= xput(post, d->reg, r, cf);
		return ch;
	default:
		return ch;
	}
}

/* What memory holds after @in at its (known, private) store address. */
static bool stored(const struct rcv_ctx *c, uint64_t i,
		   const struct rcv_ins *in, const struct rcv_state *pre,
		   const struct rcv_op *m, unsigned int size, struct x128 *v)
{
	struct rcv_val a;
	int n = in->op[1].reg;

	/* Nothing left to learn of the register stored: no question. */
	if (xfull(pre, n, 0) && xfull(pre, n, 1))
		return false;
	a = rcv_addr(c, in, m, pre);
	if (a.k != ~0ull || !c->mem || !c->own || !c->own(c->mctx, a.v, size))
		return false;
	*v = xmem(c, i + 1, a.v, size);
	return true;
}

bool rcv_sse_backward(const struct rcv_ctx *c, uint64_t i,
		      const struct rcv_ins *in, struct rcv_state *pre,
		      const struct rcv_state *post, struct rcv_state *p,
		      uint64_t *cf)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int ms, l;
	struct x128 a, r;
	bool ch = false;
	int h;

	if (!in->xsem)
		return ch;
	ms = rcv_sse_memsize(in);
	switch (kind(in->id)) {
	case X_MOVQ:
		if (is_x(d) && src->type == RCV_OP_REG) {
			learn(p, src->reg, ms, 0, post->x[d->reg][0]);
		} else if (is_x(d) && is_x(src)) {
			if (d->reg != src->reg)
				ch |= xmerge(pre, src->reg, 0,
					     post->x[d->reg][0], cf);
		} else if (d->type == RCV_OP_REG) {
			a.q[0] = reg_get(post, d->reg, ms, 0);
			ch |= xmerge(pre, src->reg, 0, a.q[0], cf);
		} else if (d->type == RCV_OP_MEM &&
			   stored(c, i, in, pre, d, ms, &a)) {
			ch |= xmerge(pre, src->reg, 0, a.q[0], cf);
		}
		return ch;
	case X_MOV128:
		if (is_x(d) && is_x(src) && d->reg != src->reg) {
			for (h = 0; h < 2; h++)
				ch |= xmerge(pre, src->reg, h,
					     post->x[d->reg][h], cf);
		} else if (d->type == RCV_OP_MEM &&
			   stored(c, i, in, pre, d, ms < 16 ? ms : 16, &a)) {
			for (h = 0; h < 2; h++)
				ch |= xmerge(pre, src->reg, h, a.q[h], cf);
		}
		return ch;
	case X_MOVH: case X_MOVL:
		h = kind(in->id) == X_MOVH;
		if (is_x(d))	/* the half not loaded stays */
			ch |= xmerge(pre, d->reg, !h, post->x[d->reg][!h], cf);
		else if (stored(c, i, in, pre, d, 8, &a))
			ch |= xmerge(pre, src->reg, h, a.q[0], cf);
		return ch;
	case X_UNPL: case X_UNPH:
		h = kind(in->id) == X_UNPH;
		ch |= xmerge(pre, d->reg, h, post->x[d->reg][0], cf);
		if (is_x(src))
			ch |= xmerge(pre, src->reg, h, post->x[d->reg][1], cf);
		return ch;
	case X_VUNPL:
		ch |= xmerge(pre, src->reg, 0, post->x[d->reg][0], cf);
		if (is_x(&in->op[2]))
			ch |= xmerge(pre, in->op[2].reg, 0,
				     post->x[d->reg][1], cf);
		return ch;
	case X_XOR:
		/* d ^ s with s not written (and not d): d before */
		if (!is_x(src) || src->reg == d->reg)
			return ch;
		for (h = 0; h < 2; h++)
			ch |= xmerge(pre, d->reg, h, vxor(post->x[d->reg][h],
						 post->x[src->reg][h]), cf);
		return ch;
	case X_SHUF:
		if (!is_x(src))
			return ch;
		r = xreg(post, d->reg);
		a = unk;
		for (l = 0; l < 4; l++) {
			unsigned int from = ((uint64_t)in->op[2].imm >>
					     (2 * l)) & 3;
			struct rcv_val x = lane(r, l);

			/* Two lanes from one: both tell it (a conflict,
			 * never a guess, if they differ).
			 */
			x.k &= ~lane(a, from).k;
			set_lane(&a, from, (struct rcv_val){
				lane(a, from).v | (x.v & x.k),
				lane(a, from).k | x.k });
		}
		for (h = 0; h < 2; h++)
			ch |= xmerge(pre, src->reg, h, a.q[h], cf);
		return ch;
	default:
		return ch;
	}
}

/* ---- memory ------------------------------------------------------------ */

bool rcv_sse_reads(const struct rcv_ctx *c, const struct rcv_ins *in,
		   const struct rcv_state *pre, const struct rcv_state *post,
		   struct rcv_acc *rd)
{
	const struct rcv_op *d = &in->op[0], *m = NULL;
	unsigned int ms = rcv_sse_memsize(in);
	struct rcv_val a;
	int k = kind(in->id), n;

	if (!in->xsem)
		return false;
	for (n = 1; n < in->nops; n++)
		if (in->op[n].type == RCV_OP_MEM)
			m = &in->op[n];
	if (!m || !is_x(d))
		return false;
	a = rcv_addr(c, in, m, pre);
	rd->valid = true;
	rd->addr_known = a.k == ~0ull;
	rd->addr = a.v;
	rd->size = ms;
	switch (k) {
	case X_MOVQ:
		rd->val = post->x[d->reg][0];
		rd->val.k &= wmask(ms);
		rd->val.v &= rd->val.k;
		break;
	case X_MOV128:
		rd->val = post->x[d->reg][0];
		rd->hi = post->x[d->reg][1];
		break;
	case X_MOVH: case X_MOVL:
		rd->val = post->x[d->reg][k == X_MOVH];
		break;
	case X_UNPL: case X_VUNPL:
		rd->val = post->x[d->reg][1];
		break;
	case X_UNPH:
		rd->hi = post->x[d->reg][1];
		break;
	default:	/* xor, pshufd: the value read is not shown */
		break;
	}
	return true;
}

void rcv_sse_writes(const struct rcv_ins *in, const struct rcv_state *pre,
		    struct rcv_acc *wr)
{
	const struct rcv_op *s = &in->op[1];
	int k = kind(in->id);

	if (!in->xsem || in->op[0].type != RCV_OP_MEM || !is_x(s))
		return;
	switch (k) {
	case X_MOVQ:
		wr->val = pre->x[s->reg][0];
		wr->val.k &= wmask(wr->size);
		wr->val.v &= wr->val.k;
		break;
	case X_MOV128:
		wr->val = pre->x[s->reg][0];
		wr->hi = pre->x[s->reg][1];
		break;
	case X_MOVH: case X_MOVL:
		wr->val = pre->x[s->reg][k == X_MOVH];
		break;
	default:
		break;
	}
}

/* ---- the window's top ---------------------------------------------------- */

/* FXSAVE: xmm0..15 at byte 160, 16 bytes each (SDM, FXSAVE layout). */
#define FX_XMM	160

void rcv_sse_end(struct rp_recover *rc,
		 const struct rp_snap_thread_info *ti)
{
	uint64_t q;
	int g, n, h;

	rc->end_xk = 0;
	if (!ti->fpregs || ti->fpregs_len < FX_XMM + 16 * RCV_NXMM)
		return;
	/* The same stop as the end's registers, or nothing. */
	for (g = 0; g <= RP_REG_RIP; g++)
		if (!(rc->end_regs.valid & (1ull << g)) ||
		    rc->end_regs.val[g] != ti->regs[g])
			return;
	for (n = 0; n < RCV_NXMM; n++)
		for (h = 0; h < 2; h++) {
			memcpy(&q, ti->fpregs + FX_XMM + 16 * n + 8 * h, 8);
			rc->end_x[n][h] = known(q);
		}
	rc->end_xk = 0xffff;
}

void rcv_sse_top(struct rp_recover *rc, struct win *w)
{
	struct rcv_state *t = &w->st[w->n], e;

	if (w->later) {
		rcv_sse_flow(t, &w->later->st[0], 0, &rc->stats.conflicts);
		return;
	}
	if (!w->top_end || !rc->end_xk)
		return;
	memcpy(e.x, rc->end_x, sizeof(e.x));
	e.xk = rc->end_xk;
	rcv_sse_flow(t, &e, 0, &rc->stats.conflicts);
}
