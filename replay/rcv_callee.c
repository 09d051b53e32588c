// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A callee's own stack (issue #17; docs/values.md, "A callee's own
 * stack" and "A callee's own frame"): may a store of unknown address
 * between a push and its pop (or a spill into the callee's frame and its
 * reload) have written the pushed slot?  rcv_stack.c breaks every pair such a
 * store spans, which cuts rsp at the lazy-binding resolver (`_dl_fixup`
 * pushes rbx, the resolver's saved rsp, and stores through link_map
 * pointers before popping it) and rbp in `_dl_fini`'s callees.
 *
 * The argument: right after a call, the memory under the callee's entry
 * rsp E is dead (the caller uses no red zone across a call, the call's
 * push just wrote E's word), so no value that exists then points under
 * E (pointers into frames that returned, and uninitialised stack words
 * used as pointers, are not followed: the assumption of rcv_escape.c).
 * From the entry on, the escape analysis (rcv_escape.c, in its local
 * mode) follows which registers and slots may hold an rsp-derived value;
 * until one is stored anywhere but surely under E (a global, the heap, a
 * caller's frame), or given to a system call, loads from anywhere else
 * give values not derived from the callee's stack.  A store whose
 * address registers are all such values writes no byte under E (in C,
 * a pointer to an object above E stays in that object), so not the
 * pushed slot, when that slot lies under E; a store through a pointer
 * into the callee's stack at a known offset writes it only where they
 * overlap.  Anything else (an address that may be rsp-derived at an
 * unknown offset, an escape, an instruction not decoded, a barrier: a
 * signal's handler, a gap) ends the argument.  Other threads learn an
 * address under E only through an escape, so the same holds for them.
 *
 * A push never popped (the history ends inside its function: exit) is
 * asked the same from the push towards the end (rcv_callee_kept_to());
 * there the walk goes on past the escape of an own-stack pointer at a
 * known offset under the slot (a local object's address: glibc's
 * cleanup buffers in the thread's control block), which cannot reach it
 * (docs/values.md, "Pushes never popped").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_internal.h"
#include "replay.h"

/* The longest call (entry to pop) walked, and the instructions walked
 * in all for one build of the frames (rcv_callee_reset()): past it, no
 * pair is kept by this argument (a deep recursion in a thread whose stack
 * escaped would walk each level's callee again; the bound is a count,
 * so the values do not depend on the machine).
 */
#define CALLEE_MAX 65536
#define CALLEE_BUDGET (1 << 22)
/* The instructions checked in all for stores into a slot (written()),
 * per build: past it, no pair is kept by this argument.
 */
#define CHECK_BUDGET (1 << 24)
#define NKC 16
/* Escapes of own-stack pointers at known offsets walked past (bounded()). */
#define NBE 8
/* Walks kept across builds (struct rcv_cwc): at most, and their records
 * in all.
 */
#define CW_N 256
#define CW_RECS (1 << 18)

/* What a step did to the walk (crec's ev), gone over again by replay(). */
#define EV_FAIL 1		/* fail(): the argument ends, every slot */
#define EV_STOP 2		/* an escape: stop */
#define EV_BESC 4		/* an escape under a slot, the next besc[] */
#define EV_PEND 8		/* the prologue had ended */

/* What the walk saw before one instruction. */
struct crec {
	uint32_t rsp_ep;	/* rsp (before it), when rsp_ok */
	int64_t rsp_d;
	uint32_t w_ep;		/* its store's slot, when w == 2 */
	int64_t w_d;
	uint32_t w_n;
	uint32_t w_bot;		/* w == 4: from offset 0 of this epoch up
				 * (UINT32_MAX: not known) */
	uint8_t rsp_ok;
	uint8_t push;		/* it writes under rsp: push, call, pushfq,
				 * enter (written() asks it of every one) */
	uint8_t w;		/* 0 no store or clean address, 2 a slot at
				 * w_ep/w_d, 3 maybe the callee's stack, 4
				 * in an allocation, under offset w_d of
				 * epoch w_ep, 5 xsave from w_ep/w_d up */
	/* What the step read that a later build may find changed (the
	 * instruction's flags, its fs operands: rcv_fs_absolute(); the
	 * caller's placed() answer, 1 false, 2 true, 0 not asked), and
	 * what it did (EV_*, es.ptop after it).
	 */
	uint8_t fl, segs, pl, ev;
	int64_t ptop;
};

struct cbesc {
	int64_t pos;
	uint32_t ep;
	int64_t d;
};

/* A walk kept: the analysis stepped over [e, real), its records. */
struct cw_ent {
	uint64_t ida, idb, use;
	size_t na;
	int64_t e, real;
	bool obj;
	struct rcv_esc es;
	struct crec *r;
	size_t cap;
	struct cbesc besc[NBE];
};

struct rcv_cwc {
	uint64_t ida, idb, tick;	/* the build's windows (0: none) */
	size_t na, recs;
	bool verify;
	int n;
	struct cw_ent ent[CW_N];
};

struct rcv_callee {
	/* Is system call i one the caller placed (rcv_stack.c)? */
	bool (*placed)(const void *ctx, size_t i);
	int64_t e;		/* entry walked from, -1 none */
	int64_t at;		/* positions [e, at) walked */
	int64_t stop;		/* first position the argument fails at */
	/* First position it fails at for every slot: stop, or a later one
	 * when stop is the escape of an own-stack pointer at a known offset
	 * (besc[]), which leaves the slots above it to the argument.
	 */
	int64_t hard;
	struct cbesc besc[NBE];
	int nbe;
	/* The analysis (es) has stepped over [e, real), r[] recorded it:
	 * at <= real, what lies between taken from a walk kept from an
	 * earlier build (replay()).
	 */
	int64_t real;
	struct rcv_esc es;
	struct crec *r;
	size_t cap;
	struct rcv_cwc *cw;	/* where walks are kept, NULL nowhere */
	bool kvalid;		/* its walk is of the build's windows: */
	uint64_t kida, kidb;
	size_t kna;
	bool vused;		/* records gone over since the entry */
	int64_t budget;		/* instructions left to walk */
	int64_t checks;		/* instructions left to check */
	/* Slots of pushes and spills at p: checked up to next (exclusive),
	 * first written at kill (-1: not up to next).  The reloads of one
	 * spill (a loop's) check each instruction once.
	 */
	struct {
		int64_t p, next, kill;
	} kc[NKC];
	/* The prologue's pushes alone (docs/values.md, "Two kinds of
	 * own-stack pointer"): the same walk with pointers into C objects
	 * under them taken as clean (es.obj), asked for those pushes when
	 * the whole argument fails.
	 */
	bool obj;
	int64_t pend;		/* the prologue ended at this position */
	struct rcv_callee *pro;
};

int rcv_callee_new(struct rcv_callee **c)
{
	*c = calloc(1, sizeof(**c));
	if (!*c)
		return -RP_ERR_NOMEM;
	(*c)->e = -1;
	(*c)->budget = CALLEE_BUDGET;
	(*c)->checks = CHECK_BUDGET;
	return 0;
}

void rcv_callee_free(struct rcv_callee *c)
{
	if (!c)
		return;
	rcv_callee_free(c->pro);
	rcv_esc_fini(&c->es);
	free(c->r);
	free(c);
}

void rcv_callee_set_placed(struct rcv_callee *c,
			   bool (*placed)(const void *ctx, size_t i))
{
	c->placed = placed;
}

struct rcv_cwc *rcv_cwc_new(void)
{
	return calloc(1, sizeof(struct rcv_cwc));
}

static void cw_drop(struct rcv_cwc *k, int i)
{
	struct cw_ent *x = &k->ent[i];

	rcv_esc_fini(&x->es);
	free(x->r);
	k->recs -= (size_t)(x->real - x->e);
	*x = k->ent[--k->n];
}

void rcv_cwc_free(struct rcv_cwc *k)
{
	if (!k)
		return;
	while (k->n)
		cw_drop(k, k->n - 1);
	free(k);
}

void rcv_cwc_build(struct rcv_cwc *k, uint64_t ida, uint64_t idb, size_t na,
		   bool verify)
{
	k->ida = ida;
	k->idb = idb;
	k->na = na;
	k->verify = verify;
}

void rcv_callee_set_cache(struct rcv_callee *c, struct rcv_cwc *k)
{
	c->cw = k;
	if (c->pro)
		c->pro->cw = k;
}

/*
 * @c's walk kept for a later build of the same windows (its analysis and
 * records move there; the walker starts with none).  One per entry: the
 * one stepped furthest.  The least recently kept make room.
 */
static void cw_keep(struct rcv_callee *c)
{
	struct rcv_cwc *k = c->cw;
	struct cw_ent *x;
	size_t nr;
	int i, old;

	if (!k || !c->kvalid || c->e < 0 || c->real <= c->e)
		return;
	c->kvalid = false;
	nr = (size_t)(c->real - c->e);
	if (nr > CW_RECS / 4)
		return;
	for (i = 0; i < k->n; i++) {
		x = &k->ent[i];
		if (x->e == c->e && x->obj == c->obj && x->ida == c->kida &&
		    x->idb == c->kidb && x->na == c->kna) {
			if (x->real >= c->real)
				return;
			cw_drop(k, i);
			break;
		}
	}
	while (k->n && (k->n == CW_N || k->recs + nr > CW_RECS)) {
		for (old = 0, i = 1; i < k->n; i++)
			if (k->ent[i].use < k->ent[old].use)
				old = i;
		cw_drop(k, old);
	}
	x = &k->ent[k->n++];
	x->ida = c->kida;
	x->idb = c->kidb;
	x->na = c->kna;
	x->use = ++k->tick;
	x->e = c->e;
	x->real = c->real;
	x->obj = c->obj;
	x->es = c->es;
	x->r = c->r;
	x->cap = c->cap;
	memcpy(x->besc, c->besc, sizeof(x->besc));
	k->recs += nr;
	memset(&c->es, 0, sizeof(c->es));
	c->r = NULL;
	c->cap = 0;
}

/* The walk from @e kept for this build's windows, taken into @c. */
static bool cw_take(struct rcv_callee *c, int64_t e)
{
	struct rcv_cwc *k = c->cw;
	struct cw_ent *x = NULL;
	int i;

	if (!k || !k->ida)
		return false;
	for (i = 0; i < k->n && !x; i++)
		if (k->ent[i].e == e && k->ent[i].obj == c->obj &&
		    k->ent[i].ida == k->ida && k->ent[i].idb == k->idb &&
		    k->ent[i].na == k->na)
			x = &k->ent[i];
	if (!x)
		return false;
	rcv_esc_fini(&c->es);
	free(c->r);
	c->es = x->es;
	c->r = x->r;
	c->cap = x->cap;
	c->real = x->real;
	memcpy(c->besc, x->besc, sizeof(c->besc));
	k->recs -= (size_t)(x->real - x->e);
	*x = k->ent[--k->n];
	return true;
}

void rcv_callee_reset(struct rcv_callee *c)
{
	if (c) {
		cw_keep(c);
		c->e = -1;
		c->budget = CALLEE_BUDGET;
		c->checks = CHECK_BUDGET;
		rcv_callee_reset(c->pro);
	}
}

int64_t rcv_callee_entry(const struct rcv_callee *c)
{
	return c->e;
}

/* Starts over from entry @e (the instruction after a call). */
static void restart(struct rcv_callee *c, int64_t e)
{
	int k;

	cw_keep(c);
	if (!cw_take(c, e)) {
		rcv_esc_init_local(&c->es);
		c->es.obj = c->obj;
		c->real = e;
	}
	c->kvalid = c->cw && c->cw->ida;
	if (c->kvalid) {
		c->kida = c->cw->ida;
		c->kidb = c->cw->idb;
		c->kna = c->cw->na;
	}
	c->vused = false;
	c->pend = INT64_MAX;
	c->e = e;
	c->at = e;
	c->stop = INT64_MAX;
	c->hard = INT64_MAX;
	c->nbe = 0;
	for (k = 0; k < NKC; k++)
		c->kc[k].p = -1;
}

/*
 * A system call the walk goes on across (rax and rsi set to constants
 * before it, as the escape analysis tracks them): the user memory it
 * writes is the buffer argument *@ptr names alone (*@len bytes, -1 not
 * known; *@ptr -1: none), and it keeps no pointer past its return.  brk
 * only moves the heap's end: it adds pages where none were, or drops
 * pages past the end that no object in use lies in (not the stack under
 * the entry, by the argument's own rule for pointers).  Any other call
 * (clone, vfork, mmap, rt_sigreturn, a number not known...) ends the
 * argument, as it did when every system call did.
 */
static bool sys_known(const struct rcv_esc *e, int *ptr, int64_t *len)
{
	*ptr = -1;
	*len = -1;
	if (!e->rax_k)
		return false;
	switch (e->rax) {
	case 4: case 5: case 6:		/* stat, fstat, lstat */
		*ptr = RP_REG_RSI;
		*len = 144;
		return true;
	case 262:			/* newfstatat */
		*ptr = RP_REG_RDX;
		*len = 144;
		return true;
	case 16:			/* ioctl(fd, TCGETS, termios *) */
		*ptr = RP_REG_RDX;
		*len = 64;
		return e->rsi_k && e->rsi == 0x5401;
	case 318:			/* getrandom(buf, len, flags) */
		*ptr = RP_REG_RDI;
		if (e->rsi_k && e->rsi <= 65536)
			*len = (int64_t)e->rsi;
		return true;
	case 12:			/* brk */
		return true;
	default:
		return rcv_sys_quiet(e->rax);
	}
}

bool rcv_rep_stos(const struct rcv_ins *in)
{
	switch (in->id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ:
		return (in->flags & RCV_I_REP) && !in->a32 &&
		       !(in->flags & (RCV_I_BARRIER | RCV_I_XFER |
				      RCV_I_BAD));
	default:
		return false;
	}
}

/* The argument fails at @i, for every slot. */
static void fail(struct rcv_callee *c, int64_t i)
{
	if (c->stop > i)
		c->stop = i;
	if (c->hard > i)
		c->hard = i;
}

/*
 * @in a store of a register's value, an own-stack pointer at a known
 * offset (*@ep, *@d), through an address that is not a stack pointer of
 * unknown offset: its escape, if it is one, publishes a pointer into a C
 * object at that offset.  In C a pointer stays in its object, and no
 * object holds a pushed register's slot, so whatever is done through it
 * later (by this thread, by another, after the walk forgets it) stays
 * under the slots above it (not a system call's argument, not a branch
 * on it: those still end the argument).
 */
static bool esc_bounded(const struct rcv_callee *c, const struct rcv_ins *in,
			uint32_t *ep, int64_t *d)
{
	const struct rcv_op *v = &in->op[1];
	uint32_t aep;
	int64_t ad;

	if (in->id != X86_INS_MOV || in->nops != 2 ||
	    in->op[0].type != RCV_OP_MEM || v->type != RCV_OP_REG ||
	    v->size != 8 || v->reg < 0 || v->reg >= 16 ||
	    c->es.t[v->reg] != 1)	/* STK */
		return false;
	/* Not through an address that may be a stack pointer at an
	 * unknown offset: where it lands shows that pointer's bits.
	 */
	if (rcv_esc_where(&c->es, &in->op[0], &aep, &ad) == 1)
		return false;
	*ep = c->es.ep[v->reg];
	*d = c->es.d[v->reg];
	return true;
}

/* Bit k: operand k of @in has a segment (rcv_fs_absolute() clears it). */
static uint8_t segs_of(const struct rcv_ins *in)
{
	return (uint8_t)((in->op[0].seg != 0) | (in->op[1].seg != 0) << 1 |
			 (in->op[2].seg != 0) << 2);
}

/* fail() at step @i, recorded in @r. */
static void fail_rec(struct rcv_callee *c, struct crec *r, int64_t i)
{
	r->ev |= EV_FAIL;
	fail(c, i);
}

/* Records instruction @i (@in) and steps the analysis over it. */
static void walk_one(struct rcv_callee *c, const struct rcv_ins *in,
		     int64_t i, const void *ctx)
{
	struct crec *r = &c->r[i - c->e];
	int64_t d = 0, sl = -1, vd = 0;
	uint32_t ep = 0, vep = 0;
	bool xs, rs, vo, sys = false, bnd, pl = false;
	int k, w, sp = -1;

	memset(r, 0, sizeof(*r));
	r->fl = in->flags;
	r->segs = segs_of(in);
	r->push = in->id == X86_INS_PUSH || in->id == X86_INS_CALL ||
		  in->id == X86_INS_PUSHFQ || in->id == X86_INS_ENTER;
	if (c->es.t[RP_REG_RSP] == 1) {	/* STK */
		r->rsp_ok = 1;
		r->rsp_ep = c->es.ep[RP_REG_RSP];
		r->rsp_d = c->es.d[RP_REG_RSP];
	}
	/* rsp above the entry's: the callee returned, or rsp left it. */
	if (!r->rsp_ok ||
	    !rcv_esc_below_origin(&c->es, r->rsp_ep, r->rsp_d - 8, 8)) {
		fail_rec(c, r, i);
	}
	xs = rcv_xsave_like(in->id) && in->nops == 1 &&
	     !(in->flags & (RCV_I_BARRIER | RCV_I_XFER | RCV_I_BAD |
			    RCV_I_REP));
	rs = rcv_rep_stos(in);
	/* Decoded by rcv_decode.c's vector_only() (RCV_I_BAD alone): no
	 * memory, vector operands, a general-purpose destination at most
	 * (__strchrnul_evex's vptestnmb).
	 */
	vo = (in->flags & (RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR |
			   RCV_I_XFER | RCV_I_REP)) == RCV_I_BAD;
	if ((in->flags & (RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_XFER |
			  RCV_I_BAD | RCV_I_REP)) && !xs && !rs && !vo) {
		fail_rec(c, r, i);
	}
	/* A system call: by its number (before the escape step, which
	 * forgets rax), else the end of the argument.
	 */
	if (in->flags & RCV_I_SYSCALL) {
		sys = sys_known(&c->es, &sp, &sl);
		/* One whose write the caller placed by the values (a range
		 * of known address, or none): its pairs are decided there.
		 */
		if (!sys && c->placed) {
			pl = c->placed(ctx, (size_t)i);
			r->pl = pl ? 2 : 1;
		}
		if (!sys && !pl)
			fail_rec(c, r, i);
	}
	/* xsave: from its operand up, at most to its allocation's top. */
	if (xs) {
		if (rcv_esc_where(&c->es, &in->op[0], &ep, &d) == 2) {
			r->w = 5;
			r->w_ep = ep;
			r->w_d = d;
		} else {
			r->w = 3;
		}
	}
	for (k = 0; k < in->nops && !xs && !rs; k++) {
		const struct rcv_op *m = &in->op[k];

		if (m->type != RCV_OP_MEM || !(m->access & CS_AC_WRITE))
			continue;
		w = rcv_esc_where(&c->es, m, &ep, &d);
		/* Through a pointer into an object at a known place: there,
		 * whatever C's rule says.
		 */
		if (!w && rcv_esc_obj_at(&c->es, m, &ep, &d))
			w = 2;
		if (w == 2 && !r->w) {
			r->w = 2;
			r->w_ep = ep;
			r->w_d = d;
			r->w_n = m->size ? m->size : 8;
		} else if (w == 1 && !r->w &&
			   rcv_esc_in_alloc(&c->es, m, &ep, &d, &r->w_bot)) {
			/* memmove into a VLA: (%rdi,%rdx,1) */
			r->w = 4;
			r->w_ep = ep;
			r->w_d = d;
		} else if (w) {
			r->w = 3;
		}
	}
	/* The kernel writes its buffer: a slot of the callee's stack at a
	 * known offset (of known length), or through a pointer not
	 * derived from it (into an object above the entry).  rep stos:
	 * from rdi, rcx elements up or down, in rdi's object when neither
	 * is derived from the callee's stack.
	 */
	if (sys && sp >= 0) {
		struct rcv_op o = { .type = RCV_OP_MEM, .base = (int8_t)sp,
				    .index = -1 };

		w = rcv_esc_where(&c->es, &o, &ep, &d);
		if (!w && rcv_esc_obj_at(&c->es, &o, &ep, &d))
			w = sl > 0 ? 2 : 3;
		if (w == 2 && sl > 0) {
			r->w = 2;
			r->w_ep = ep;
			r->w_d = d;
			r->w_n = (uint32_t)sl;
		} else if (w) {
			r->w = 3;
		}
	}
	if (rs) {
		struct rcv_op o = { .type = RCV_OP_MEM, .base = RP_REG_RDI,
				    .index = RP_REG_RCX, .scale = 1 };

		if (rcv_esc_where(&c->es, &o, &ep, &d))
			r->w = 3;
	}
	/* Escaped: another thread may write under the entry's rsp at any
	 * time from this instruction on (before the pop right after it).
	 * An own-stack pointer at a known offset: under it only (the walk
	 * goes on, for the slots above it: rcv_callee_kept_to()).
	 */
	bnd = esc_bounded(c, in, &vep, &vd);
	if (rcv_esc_step(&c->es, in, 0)) {
		r->ev |= EV_STOP;
		if (c->stop > i)
			c->stop = i;
		if (!bnd || c->nbe == NBE) {
			fail_rec(c, r, i);
		} else {
			r->ev |= EV_BESC;
			c->besc[c->nbe].pos = i;
			c->besc[c->nbe].ep = vep;
			c->besc[c->nbe++].d = vd;
			c->es.escaped = false;
		}
	}
	if (c->es.pdone) {
		r->ev |= EV_PEND;
		if (c->pend > i)
			c->pend = i;
	}
	r->ptop = c->es.ptop;
}

/*
 * Step @c->at gone over again from the walk kept (the analysis has
 * stepped past it): what it did to the walk, when what it read is the
 * same now.  False when not: the walk must be made again.
 */
static bool replay(struct rcv_callee *c, const struct rcv_ins *(*at)(
			   const void *, size_t), const void *ctx)
{
	int64_t i = c->at;
	const struct crec *r = &c->r[i - c->e];
	const struct rcv_ins *in = at(ctx, (size_t)i);

	if (r->fl != in->flags || r->segs != segs_of(in) ||
	    (r->pl && (r->pl == 2) != c->placed(ctx, (size_t)i)))
		return false;
	if (r->ev & EV_FAIL)
		fail(c, i);
	if ((r->ev & EV_STOP) && c->stop > i)
		c->stop = i;
	if (r->ev & EV_BESC)
		c->nbe++;
	if ((r->ev & EV_PEND) && c->pend > i)
		c->pend = i;
	c->vused = true;
	return true;
}

/*
 * The walk kept does not hold at @c->at: the analysis made again from the
 * entry up to it (the steps before were the same, so are their records
 * and what they did; the budget counted them already).
 */
static void rewalk(struct rcv_callee *c, const struct rcv_ins *(*at)(
			   const void *, size_t), const void *ctx)
{
	int64_t i;

	rcv_esc_init_local(&c->es);
	c->es.obj = c->obj;
	c->stop = c->hard = c->pend = INT64_MAX;
	c->nbe = 0;
	for (i = c->e; i < c->at; i++)
		walk_one(c, at(ctx, (size_t)i), i, ctx);
	c->real = c->at;
}

/*
 * PTREC_RCV_VERIFY: the walk @c went over from a kept one, made again
 * from its entry to where it is; abort unless every record and what the
 * walk holds are the same.
 */
static void verify_walk(const struct rcv_callee *c, const struct rcv_ins *(
				*at)(const void *, size_t), const void *ctx)
{
	struct rcv_callee *v;
	int64_t i, n = c->at - c->e;

	if (rcv_callee_new(&v))
		return;
	v->obj = c->obj;
	v->placed = c->placed;
	restart(v, c->e);
	v->r = malloc((size_t)(n + 1) * sizeof(*v->r));
	if (v->r) {
		v->cap = (size_t)n + 1;
		for (i = c->e; i < c->at; i++)
			walk_one(v, at(ctx, (size_t)i), i, ctx);
		if (memcmp(v->r, c->r, (size_t)n * sizeof(*v->r)) ||
		    v->stop != c->stop || v->hard != c->hard ||
		    v->pend != c->pend || v->nbe != c->nbe ||
		    memcmp(v->besc, c->besc, (size_t)v->nbe *
			   sizeof(*v->besc))) {
			fprintf(stderr, "recover: PTREC_RCV_VERIFY: the callee "
				"walk from %" PRId64 " to %" PRId64 " kept "
				"from an earlier build differs\n", c->e,
				c->at);
			abort();
		}
	}
	rcv_callee_free(v);
}

/* May what @r stores (or its push or call) write [@ep/@d, +8)? */
static bool may_write(const struct rcv_callee *c, const struct crec *r,
		      uint32_t ep, int64_t d)
{
	if (r->push &&
	    (!r->rsp_ok || rcv_esc_overlap(&c->es, r->rsp_ep, r->rsp_d - 8,
					    8, ep, d, 8)))
		return true;
	if (r->w == 3)
		return true;
	/* In an allocation: not at or above its top, nor under its
	 * bottom when known.
	 */
	/* xsave: not under its start, nor at or above the top of the
	 * allocation it starts in.
	 */
	if (r->w == 5) {
		uint32_t tup;
		int64_t tupd;

		return !rcv_esc_under(&c->es, ep, d, 8, r->w_ep, r->w_d) &&
		       !(rcv_esc_top(&c->es, r->w_ep, r->w_d, &tup, &tupd) &&
			 rcv_esc_under(&c->es, tup, tupd, 0, ep, d));
	}
	if (r->w == 4)
		return !rcv_esc_under(&c->es, r->w_ep, r->w_d, 0, ep, d) &&
		       (r->w_bot == UINT32_MAX ||
			!rcv_esc_under(&c->es, ep, d, 8, r->w_bot, 0));
	return r->w == 2 &&
	       rcv_esc_overlap(&c->es, r->w_ep, r->w_d, r->w_n, ep, d, 8);
}

/*
 * May an instruction after the push or spill at @p, before @q, write the
 * 8 bytes at @ep/@d?  (When out of checks: yes.)
 */
static bool written(struct rcv_callee *c, int64_t p, int64_t q, uint32_t ep,
		    int64_t d)
{
	typeof(c->kc[0]) *k = &c->kc[p % NKC];

	if (k->p != p) {
		k->p = p;
		k->next = p + 1;
		k->kill = -1;
	}
	if (k->kill >= 0)
		return k->kill < q;
	for (; k->next < q; k->next++) {
		if (c->checks-- <= 0)
			return true;
		if (may_write(c, &c->r[k->next - c->e], ep, d)) {
			k->kill = k->next;
			return true;
		}
	}
	return false;
}

/*
 * The walk from entry @e up to @q (with @past, not ended by an escape
 * of pointers under the slot: besc[]) and the slot of the push or spill
 * at @p (*@ep, *@d): false when the argument ends at or before @p, else
 * true with *@lim the position it holds to (at most @q).
 */
static bool walk_to(struct rcv_callee *c, const struct rcv_ins *(*at)(
			    const void *, size_t), const void *ctx,
		    int64_t e, int64_t p, int64_t q, bool past, int64_t *lim,
		    uint32_t *ep, int64_t *d)
{
	const struct crec *rp;
	const struct rcv_ins *in;
	int64_t l;

	if (e < 1 || p < e || q <= p)
		return false;
	if (q - e > CALLEE_MAX)
		q = e + CALLEE_MAX;
	in = at(ctx, (size_t)(e - 1));
	if (in->id != X86_INS_CALL || (in->flags & RCV_I_BARRIER))
		return false;
	if (c->e != e)
		restart(c, e);
	if ((size_t)(q - e + 1) > c->cap) {
		size_t cap = (size_t)(q - e + 1) * 2;
		struct crec *n = realloc(c->r, cap * sizeof(*n));

		if (!n)
			return false;
		c->r = n;
		c->cap = cap;
	}
	/* Past an escape only when asked (pairs end there).  Where the
	 * analysis stepped already (a walk kept), its records.
	 */
	for (; c->at < q && c->at < (past ? c->hard : c->stop) &&
	       c->budget > 0; c->at++) {
		if (c->at < c->real && !replay(c, at, ctx))
			rewalk(c, at, ctx);
		if (c->at == c->real) {
			walk_one(c, at(ctx, (size_t)c->at), c->at, ctx);
			c->real++;
		}
		c->budget--;
	}
	if (c->vused && c->cw && c->cw->verify)
		verify_walk(c, at, ctx);
	/* Walked, and the argument holding, from the entry to lim. */
	l = past ? c->hard : c->stop;
	if (l > c->at)
		l = c->at;
	if (l > q)
		l = q;
	if (l <= p)
		return false;
	rp = &c->r[p - e];
	/* The slot the push (or the spill) writes, under the entry's
	 * rsp.
	 */
	if (at(ctx, (size_t)p)->id == X86_INS_MOV) {
		if (rp->w != 2 || rp->w_n != 8)
			return false;
		*ep = rp->w_ep;
		*d = rp->w_d;
	} else {
		if (!rp->rsp_ok)
			return false;
		*ep = rp->rsp_ep;
		*d = rp->rsp_d - 8;
	}
	if (!rcv_esc_below_origin(&c->es, *ep, *d, 8))
		return false;
	*lim = l;
	return true;
}

/*
 * The argument from @e for the slot of the push (or spill) at @p up to
 * @q: the first position r in (@p, @q] such that nothing in (@p, r) wrote
 * it, @p when nothing is shown.  With @past, not ended by an escape of
 * pointers under the slot (besc[]).
 */
static int64_t kept_to(struct rcv_callee *c, const struct rcv_ins *(*at)(
			       const void *, size_t), const void *ctx,
		       int64_t e, int64_t p, int64_t q, bool past)
{
	int64_t d, lim;
	uint32_t ep;
	int k;

	if (!walk_to(c, at, ctx, e, p, q, past, &lim, &ep, &d))
		return p;
	/* Up to the first escape of a pointer not under the slot. */
	for (k = 0; past && k < c->nbe && c->besc[k].pos < lim; k++)
		if (!rcv_esc_under(&c->es, c->besc[k].ep, c->besc[k].d, 1,
				   ep, d))
			lim = c->besc[k].pos;
	if (lim <= p)
		return p;
	/* Up to the first instruction that may write it. */
	if (written(c, p, lim, ep, d)) {
		d = c->kc[p % NKC].kill;
		return d > p && d < lim ? d : p;
	}
	return lim;
}

bool rcv_callee_keeps(struct rcv_callee *c, const struct rcv_ins *(*at)(
			      const void *, size_t), const void *ctx,
		      int64_t e, int64_t p, int64_t q)
{
	struct rcv_callee *k;
	int64_t d, lim;
	uint32_t ep;

	if (q - e > CALLEE_MAX)
		return false;
	if (kept_to(c, at, ctx, e, p, q, false) == q)
		return true;
	/* A push of the entry's prologue: the walk that takes pointers
	 * into C objects under it as clean, which reach no pushed slot.
	 */
	if (e < 1 || p < e || q <= p ||
	    at(ctx, (size_t)p)->id != X86_INS_PUSH || c->obj)
		return false;
	if (!c->pro) {
		if (rcv_callee_new(&c->pro))
			return false;
		c->pro->obj = true;
		c->pro->placed = c->placed;
	}
	k = c->pro;
	k->cw = c->cw;
	/* es.ptop where the walk is (the analysis may be further on). */
	if (!walk_to(k, at, ctx, e, p, q, false, &lim, &ep, &d) || lim < q ||
	    p >= k->pend || ep != k->es.ep0 ||
	    d < k->r[k->at - 1 - k->e].ptop || d + 8 > 0)
		return false;
	return !written(k, p, q, ep, d);
}

int64_t rcv_callee_kept_to(struct rcv_callee *c, const struct rcv_ins *(*at)(
				   const void *, size_t), const void *ctx,
			   int64_t e, int64_t p, int64_t q)
{
	return kept_to(c, at, ctx, e, p, q, true);
}
