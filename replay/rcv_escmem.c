// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The escape analysis's stack model (rcv_escape.c): frames of reference
 * (epochs), the stack slots that may hold a stack-derived value, and what
 * loads and stores through an operand read and write there, with the
 * queries rcv_callee.c and the walk ask of it.  It lives apart from the
 * per-instruction rules in rcv_escape.c because the two are separate
 * jobs and together passed 1,300 lines; the rules change the model only
 * through the functions rcv_esc.h declares.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_esc.h"

/*
 * Frames of reference (epochs): an own-stack pointer is an offset in
 * one.  Each lies at [lo, hi] from its root's origin (one that came from
 * another by and rsp, -64 lies up to 63 bytes under where that was); two
 * roots are not related.
 */
uint32_t rcv_esc_ep_new(struct rcv_esc *e, uint32_t root, int64_t lo,
			int64_t hi)
{
	struct rcv_esc_ep *n;

	if (e->nep == e->epcap) {
		size_t cap = e->epcap ? 2 * e->epcap : 64;

		n = realloc(e->eps, cap * sizeof(*n));
		if (!n) {
			/* Out of memory: one root for all, all related. */
			e->dirty = true;
			return e->nep ? e->nep - 1 : 0;
		}
		e->eps = n;
		e->epcap = cap;
	}
	e->eps[e->nep] = (struct rcv_esc_ep){
		root == UINT32_MAX ? (uint32_t)e->nep : root, lo, hi, false,
		INT64_MAX, UINT32_MAX, 0, UINT32_MAX, 0, UINT32_MAX };
	return (uint32_t)e->nep++;
}

/*
 * Register @g gets taint @t; an own-stack pointer at offset @d in epoch
 * @ep (UINT32_MAX: a new root, its relation to the others not known).
 */
void rcv_esc_set_val(struct rcv_esc *e, int g, uint8_t t, uint32_t ep,
		     int64_t d)
{
	e->t[g] = t;
	e->kk &= (uint16_t)~(1u << g);
	if (t != STK)
		return;
	if (ep == UINT32_MAX) {
		e->ep[g] = rcv_esc_ep_new(e, UINT32_MAX, 0, 0);
		e->d[g] = 0;
	} else {
		e->ep[g] = ep;
		e->d[g] = d;
	}
}

/* As rcv_esc_set_val() with the epoch of register @src (-1: a new root). */
void rcv_esc_set_reg(struct rcv_esc *e, int g, uint8_t t, int src, int64_t d)
{
	rcv_esc_set_val(e, g, t,
			src < 0 || src >= 16 ? UINT32_MAX : e->ep[src], d);
}

/*
 * Does [@d, @d + @n) of epoch @a end at or under offset @x of epoch @b,
 * by the epochs @a came from (sub rsp, n and and rsp, -N make an epoch
 * whose origin lies under where rsp was)?
 */
static bool under_epoch(const struct rcv_esc *e, uint32_t a, int64_t d,
			int64_t n, uint32_t b, int64_t x)
{
	int64_t end = d + n;
	int k;

	for (k = 0; k < 64 && a != b; k++) {
		if (a >= e->nep || e->eps[a].up == UINT32_MAX)
			return false;
		end += e->eps[a].upd;
		a = e->eps[a].up;
	}
	return a == b && end <= x;
}

static bool below_top(const struct rcv_esc *e, uint32_t a, int64_t d);

/* May [d, d + n) of epoch @a and [x, x + m) of epoch @b overlap? */
static bool may_alias(const struct rcv_esc *e, uint32_t a, int64_t d,
		      int64_t n, uint32_t b, int64_t x, int64_t m)
{
	const struct rcv_esc_ep *p = &e->eps[a], *q = &e->eps[b];

	if (a == b)
		return d < x + m && x < d + n;
	if (p->root != q->root)
		return true;
	if (under_epoch(e, a, d, n, b, x) || under_epoch(e, b, x, m, a, d))
		return false;
	return p->lo + d < q->hi + x + m && q->lo + x < p->hi + d + n;
}

/*
 * What [d, d + n) of epoch @ep may hold: CLEAN, STK (an own-stack
 * pointer, @vep, @vd where it points) or MAYBE.
 */
static uint8_t slot_get(const struct rcv_esc *e, uint32_t ep, int64_t d,
			int64_t n, uint32_t *vep, int64_t *vd)
{
	const struct rcv_esc_slot *hit = NULL;
	size_t k;

	if (e->dirty)
		return MAYBE;
	for (k = 0; k < e->nslots; k++) {
		const struct rcv_esc_slot *sl = &e->slots[k];

		if (!rcv_esc_overlap(e, ep, d, n, sl->ep, sl->d, sl->n))
			continue;
		if (hit || sl->ep != ep || sl->d != d || sl->n != n)
			return MAYBE;
		hit = sl;
	}
	if (!hit)
		return CLEAN;
	*vep = hit->vep;
	*vd = hit->vd;
	return hit->kind;
}

/* [d, d + n) of epoch @ep now holds @v (at @vep/@vd when STK). */
static void slot_set(struct rcv_esc *e, uint32_t ep, int64_t d, int64_t n,
		     uint8_t v, uint32_t vep, int64_t vd)
{
	struct rcv_esc_slot *sl;
	size_t k;

	/* Those it overwrites whole are gone. */
	for (k = 0; k < e->nslots;) {
		sl = &e->slots[k];
		if (sl->ep == ep && d <= sl->d && sl->d + sl->n <= d + n)
			*sl = e->slots[--e->nslots];
		else
			k++;
	}
	if (v == CLEAN || e->dirty)
		return;
	if (e->nslots == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 64;

		sl = e->cap >= 4096 ? NULL :
		     realloc(e->slots, cap * sizeof(*sl));
		if (!sl) {
			/* Too many to follow: any slot may hold one. */
			e->dirty = true;
			return;
		}
		e->slots = sl;
		e->cap = cap;
	}
	e->slots[e->nslots++] = (struct rcv_esc_slot){ d, vd, ep, vep,
						       (uint8_t)n, v };
}

/*
 * rsp rose to offset @d of its epoch: what lies under it, but for @margin
 * bytes (the red zone), is dead.
 */
void rcv_esc_slots_dead(struct rcv_esc *e, int64_t margin)
{
	const struct rcv_esc_ep *g;
	size_t k;

	if (e->t[RP_REG_RSP] != STK)
		return;
	g = &e->eps[e->ep[RP_REG_RSP]];
	for (k = 0; k < e->nslots;) {
		const struct rcv_esc_slot *sl = &e->slots[k];
		const struct rcv_esc_ep *p = &e->eps[sl->ep];

		/* In rsp's own epoch the offsets compare exactly (a slot
		 * pushed under an allocation, sub rsp, reg, whose epoch's
		 * low bound is not known).
		 */
		if ((sl->ep == e->ep[RP_REG_RSP] &&
		     sl->d + sl->n <= e->d[RP_REG_RSP] - margin) ||
		    (p->root == g->root &&
		     p->hi + sl->d + sl->n <=
		     g->lo + e->d[RP_REG_RSP] - margin))
			e->slots[k] = e->slots[--e->nslots];
		else
			k++;
	}
}

bool rcv_esc_any_slot(const struct rcv_esc *e)
{
	return e->dirty || e->nslots;
}

void rcv_esc_init(struct rcv_esc *e)
{
	free(e->slots);
	free(e->eps);
	memset(e, 0, sizeof(*e));
	rcv_esc_set_reg(e, RP_REG_RSP, STK, -1, 0);
	e->ep0 = e->ep[RP_REG_RSP];
}

void rcv_esc_fini(struct rcv_esc *e)
{
	free(e->slots);
	free(e->eps);
	e->slots = NULL;
	e->eps = NULL;
	e->nslots = e->cap = e->nep = e->epcap = 0;
}

/* Where memory operand @o points: 2 surely the own stack at *@d (known
 * offset), 1 surely the own stack (offset unknown), 0 maybe elsewhere.
 * *@tainted: an address register may be stack-derived.
 */
int rcv_esc_at(const struct rcv_esc *e, const struct rcv_op *o,
	       uint32_t *ep, int64_t *d, bool *tainted)
{
	bool bt = o->base >= 0 && o->base < 16 && e->t[o->base];
	bool it = o->index >= 0 && o->index < 16 && e->t[o->index];

	*tainted = bt || it;
	if (o->seg)
		return 0;
	if (bt && e->t[o->base] == STK && !it) {
		if (o->index < 0) {
			*ep = e->ep[o->base];
			*d = e->d[o->base] + o->imm;
			return 2;
		}
		return 1;
	}
	if (it && e->t[o->index] == STK && o->scale == 1 && !bt)
		return 1;
	return 0;
}

/*
 * May a slot hold a stack-derived value where @o (surely the own stack,
 * offset not known) reads?  Any slot may, but through a pointer into an
 * allocation in rcv_callee.c's local mode (bounded()), which reads under
 * its top only (C's rule, the callee argument's assumption): slots that
 * lie wholly above it do not count (memmove from a VLA in ld.so's
 * _dl_sort_maps, whose frame above holds pointers).
 */
static bool below_lim_slot(const struct rcv_esc *e, const struct rcv_op *o)
{
	const struct rcv_esc_ep *b;
	size_t k;

	if (!rcv_esc_any_slot(e))
		return false;
	if (e->dirty || o->base < 0 || o->base >= 16 ||
	    e->t[o->base] != STK || e->ep[o->base] >= e->nep)
		return true;
	b = &e->eps[e->ep[o->base]];
	if (b->lim == INT64_MAX)
		return true;
	for (k = 0; k < e->nslots; k++) {
		const struct rcv_esc_slot *sl = &e->slots[k];
		const struct rcv_esc_ep *p = &e->eps[sl->ep];

		if (p->root != b->root || p->lo + sl->d < b->lim)
			return true;
	}
	return false;
}

/*
 * In rcv_callee.c's local mode, is @o an own-stack pointer from an
 * allocation's bottom (sub rsp, n) or one bounded() made, plus a clean
 * index?  Then it reads only under the allocation's top, *@top in root
 * *@root's offsets (C's rule for pointers, as bounded()), and from the
 * bottom itself (offset 0 of epoch *@ep) not under it (*@ep UINT32_MAX:
 * no such bound).
 */
static bool in_alloc(const struct rcv_esc *e, const struct rcv_op *o,
		     uint32_t *root, int64_t *top, uint32_t *ep,
		     uint32_t *tup, int64_t *tupd)
{
	const struct rcv_esc_ep *x;

	if (!e->local || o->seg || o->base < 0 || o->base >= 16 ||
	    e->t[o->base] != STK || o->index < 0 || o->index >= 16 ||
	    e->t[o->index] != CLEAN)
		return false;
	x = &e->eps[e->ep[o->base]];
	*root = x->root;
	*ep = x->alloc && !e->d[o->base] ? e->ep[o->base] : UINT32_MAX;
	if (x->alloc && e->d[o->base] + o->imm <= 0) {
		*top = x->hi;
		*tup = x->up;
		*tupd = x->upd;
	} else if (x->lim != INT64_MAX) {
		*top = x->lim;
		*tup = x->tup;
		*tupd = x->tupd;
		*ep = x->bot;
	} else {
		return false;
	}
	return true;
}

/*
 * May a slot that holds a stack-derived value lie in the save area at
 * offset @d of epoch @ep and up (to the allocation's top when it lies in
 * one)?
 */
bool rcv_esc_area_tainted(const struct rcv_esc *e, uint32_t ep, int64_t d)
{
	const struct rcv_esc_ep *p = &e->eps[ep];
	size_t k;

	if (e->dirty)
		return true;
	for (k = 0; k < e->nslots; k++) {
		const struct rcv_esc_slot *sl = &e->slots[k];

		if (under_epoch(e, sl->ep, sl->d, sl->n, ep, d))
			continue;
		if (below_top(e, ep, d) &&
		    under_epoch(e, p->tup, p->tupd, 0, sl->ep, sl->d))
			continue;
		return true;
	}
	return false;
}

/*
 * May a slot that holds a stack-derived value lie under @top of @root,
 * and not under offset 0 of epoch @ep (UINT32_MAX: none)?
 */
static bool slot_under(const struct rcv_esc *e, uint32_t root, int64_t top,
		       uint32_t ep, uint32_t tup, int64_t tupd)
{
	size_t k;

	if (e->dirty)
		return true;
	for (k = 0; k < e->nslots; k++) {
		const struct rcv_esc_slot *sl = &e->slots[k];
		const struct rcv_esc_ep *p = &e->eps[sl->ep];

		if (ep != UINT32_MAX &&
		    under_epoch(e, sl->ep, sl->d, sl->n, ep, 0))
			continue;
		/* At or above the top (offset @tupd of epoch @tup). */
		if (tup != UINT32_MAX &&
		    under_epoch(e, tup, tupd, 0, sl->ep, sl->d))
			continue;
		if (p->root != root || p->lo + sl->d < top)
			return true;
	}
	return false;
}

/* The taint of @size bytes loaded through @o (STK: at @vep, @vd). */
uint8_t rcv_esc_load_v(const struct rcv_esc *e, const struct rcv_op *o,
		       unsigned int size, uint32_t *vep, int64_t *vd)
{
	int64_t d = 0;
	bool tainted;
	uint32_t ep = 0;
	int w = rcv_esc_at(e, o, &ep, &d, &tainted);
	uint32_t root, aep, tup;
	int64_t top, tupd;
	uint8_t v;

	if (w == 2) {
		v = slot_get(e, ep, d, size ? size : 8, vep, vd);
		/* Part of a pointer is not one. */
		return (v == STK || v == WHOLE) && size != 8 ? MAYBE : v;
	}
	/* Into an allocation through an index from its bottom: what lies
	 * in it, not under it either (in_alloc()).
	 */
	if (w == 1 && in_alloc(e, o, &root, &top, &aep, &tup, &tupd))
		return slot_under(e, root, top, aep, tup, tupd) ? MAYBE :
								  CLEAN;
	/* Surely the own stack, where no slot holds one: clean. */
	if (w == 1)
		return below_lim_slot(e, o) ? MAYBE : CLEAN;
	/* Through a whole own-stack pointer or a clean one: the own stack
	 * as above, or memory that holds no stack-derived value before
	 * the first escape.
	 */
	if (o->base >= 0 && o->base < 16 && e->t[o->base] == WHOLE &&
	    !o->seg && (o->index < 0 || o->index >= 16 || !e->t[o->index]))
		return rcv_esc_any_slot(e) ? MAYBE : CLEAN;
	/* Through an address that may be derived from a stack pointer but
	 * is not surely one: what it loads may be a function of the
	 * pointer's bits (a table indexed by them, tests/values/review5.c
	 * ltable), or the own stack.  With the prologue's pushes alone
	 * (e->obj), a clean address may be a pointer into an object of the
	 * own stack: what a slot may hold.
	 */
	if (!tainted && e->obj)
		return rcv_esc_any_slot(e) ? MAYBE : CLEAN;
	return tainted ? MAYBE : CLEAN;
}

uint8_t rcv_esc_load(const struct rcv_esc *e, const struct rcv_op *o,
		     unsigned int size)
{
	uint32_t ep;
	int64_t d;
	uint8_t v = rcv_esc_load_v(e, o, size, &ep, &d);

	return v == STK ? MAYBE : v;
}

/* A store of @size bytes of taint @vt (STK: at @vep/@vd) through @o: true
 * when it escapes.
 */
bool rcv_esc_store_v(struct rcv_esc *e, const struct rcv_op *o,
		     unsigned int size, uint8_t vt, uint32_t vep, int64_t vd)
{
	int64_t d = 0;
	bool tainted;
	uint32_t ep = 0;
	int w = rcv_esc_at(e, o, &ep, &d, &tainted);

	if (!size)
		size = 8;
	/* From a call's entry (rcv_callee.c): only what lies under the
	 * entry's rsp is the callee's own; a pointer under it stored above
	 * (where pointers made before the call point) escapes.
	 */
	if (e->local && vt != CLEAN &&
	    (w == 1 || (w == 2 && !rcv_esc_below_origin(e, ep, d, size))))
		return true;
	if (w == 2) {
		slot_set(e, ep, d, size, size == 8 ? vt : vt ? MAYBE : CLEAN,
			 vep, vd);
		return false;
	}
	if (w == 1) {
		if (vt)
			e->dirty = true;
		return false;
	}
	/* Through an address that may be derived from a stack pointer but
	 * is not surely one, even a clean value: where it lands shows the
	 * pointer's bits (a table written at an index of them, the stores'
	 * side of review5.c ltable).
	 */
	return vt != CLEAN || tainted;
}

bool rcv_esc_store(struct rcv_esc *e, const struct rcv_op *o,
		   unsigned int size, uint8_t vt)
{
	return rcv_esc_store_v(e, o, size, vt ? MAYBE : CLEAN, 0, 0);
}

/* A store of register @g's whole value. */
bool rcv_esc_store_reg(struct rcv_esc *e, const struct rcv_op *o, int g)
{
	return rcv_esc_store_v(e, o, 8, e->t[g], e->ep[g], e->d[g]);
}

void rcv_esc_init_local(struct rcv_esc *e)
{
	rcv_esc_init(e);
	e->local = true;
}

/*
 * Does an access at offset @d of epoch @a end at its allocation's top
 * (offset tupd of epoch tup)?  Through bounded()'s pointers, and at or
 * above an allocation's bottom (C's rule for pointers: only in local
 * mode, as bounded()).
 */
static bool below_top(const struct rcv_esc *e, uint32_t a, int64_t d)
{
	const struct rcv_esc_ep *p = &e->eps[a];

	return e->local && p->tup != UINT32_MAX &&
	       (p->lim != INT64_MAX || (p->alloc && d >= 0));
}

bool rcv_esc_below_origin(const struct rcv_esc *e, uint32_t ep, int64_t d,
			  int64_t n)
{
	const struct rcv_esc_ep *p;

	if (ep >= e->nep)
		return false;
	p = &e->eps[ep];
	if (p->root != e->eps[e->ep0].root)
		return false;
	/* In an allocation (the resolver's xsave area: 0x28(%rsp) after
	 * sub size, %rsp), under its top.
	 */
	return p->hi + d + n <= 0 ||
	       (below_top(e, ep, d) &&
		under_epoch(e, p->tup, p->tupd, 0, e->ep0, 0));
}

/*
 * Does an access at offset @d of epoch @a start at or above its
 * allocation's bottom (bounded()'s pointers from the bottom itself, and
 * offsets >= 0 of the allocation's epoch), with [@x, @x + @m) of epoch @b
 * under that bottom?  Local mode only (C's rule for pointers).
 */
static bool above_bottom(const struct rcv_esc *e, uint32_t a, int64_t d,
			 uint32_t b, int64_t x, int64_t m)
{
	const struct rcv_esc_ep *p = &e->eps[a];
	uint32_t bot = p->lim != INT64_MAX ? p->bot :
		       p->alloc && d >= 0 ? a : UINT32_MAX;

	return e->local && bot != UINT32_MAX && under_epoch(e, b, x, m, bot, 0);
}

bool rcv_esc_overlap(const struct rcv_esc *e, uint32_t a, int64_t d,
		     int64_t n, uint32_t b, int64_t x, int64_t m)
{
	const struct rcv_esc_ep *p = &e->eps[a], *q = &e->eps[b];

	/* Accesses through an allocation's pointers end at its top. */
	if (p->root == q->root && a != b &&
	    ((p->lim <= q->lo + x) || (q->lim <= p->lo + d)))
		return false;
	if (p->root == q->root && a != b &&
	    ((below_top(e, a, d) &&
	      under_epoch(e, p->tup, p->tupd, 0, b, x)) ||
	     (below_top(e, b, x) &&
	      under_epoch(e, q->tup, q->tupd, 0, a, d)) ||
	     above_bottom(e, a, d, b, x, m) || above_bottom(e, b, x, a, d, n)))
		return false;
	return may_alias(e, a, d, n, b, x, m);
}

bool rcv_esc_in_alloc(const struct rcv_esc *e, const struct rcv_op *o,
		      uint32_t *tup, int64_t *tupd, uint32_t *bottom)
{
	uint32_t root;
	int64_t top;

	return in_alloc(e, o, &root, &top, bottom, tup, tupd) &&
	       *tup != UINT32_MAX;
}

bool rcv_esc_top(const struct rcv_esc *e, uint32_t ep, int64_t d,
		 uint32_t *tup, int64_t *tupd)
{
	if (ep >= e->nep || !below_top(e, ep, d))
		return false;
	*tup = e->eps[ep].tup;
	*tupd = e->eps[ep].tupd;
	return true;
}

bool rcv_esc_under(const struct rcv_esc *e, uint32_t a, int64_t d,
		   int64_t n, uint32_t b, int64_t x)
{
	return under_epoch(e, a, d, n, b, x);
}

int rcv_esc_where(const struct rcv_esc *e, const struct rcv_op *o,
		  uint32_t *ep, int64_t *d)
{
	bool tainted;
	int w = rcv_esc_at(e, o, ep, d, &tainted);

	return w ? w : tainted ? 1 : 0;
}

bool rcv_esc_rsp_offset(const struct rcv_esc *e, int64_t *d)
{
	*d = e->d[RP_REG_RSP];
	return e->t[RP_REG_RSP] == STK && e->ep[RP_REG_RSP] == e->ep0;
}

/*
 * The prologue's pushes alone (e->obj, rcv_callee.c): does a pointer made
 * into register @g at offset @d of epoch @ep, by an offset from an
 * own-stack pointer, point into a C object?  It does when it lies surely
 * under the entry's lowest prologue push: no object of the function lies
 * above its locals, and (C's rule) a pointer stays in its object, so
 * nothing reached through it is a pushed slot.  Never rsp (nor a copy of
 * rsp or rbp: moves keep their kind, the frame address).
 */
bool rcv_esc_obj_ptr(const struct rcv_esc *e, int g, uint32_t ep, int64_t d)
{
	return e->obj && e->pdone && !e->depth && g != RP_REG_RSP &&
	       rcv_esc_under(e, ep, d, 1, e->ep0, e->ptop);
}

/*
 * Register @g gets such a pointer, at offset @d of epoch @ep: clean for
 * the analysis, its place kept for rcv_esc_obj_at().
 */
void rcv_esc_obj_set(struct rcv_esc *e, int g, uint32_t ep, int64_t d)
{
	rcv_esc_set_reg(e, g, CLEAN, -1, 0);
	e->kk |= (uint16_t)(1u << g);
	e->kep[g] = ep;
	e->kd[g] = d;
}

bool rcv_esc_obj_at(const struct rcv_esc *e, const struct rcv_op *o,
		    uint32_t *ep, int64_t *d)
{
	if (!e->obj || o->type != RCV_OP_MEM || o->seg || o->index >= 0 ||
	    o->base < 0 || o->base >= 16 || !(e->kk >> o->base & 1))
		return false;
	*ep = e->kep[o->base];
	*d = e->kd[o->base] + o->imm;
	return true;
}

/*
 * The prologue (e->obj): pushes of registers from the entry, and the
 * instructions between them that touch no memory, branch nowhere and
 * leave rsp alone (mov %rdx,%r12; mov %rsp,%rbp).  True for a push of
 * one; anything else ends it.
 */
bool rcv_esc_prologue(struct rcv_esc *e, const struct rcv_ins *in)
{
	int k;

	if (in->id == X86_INS_PUSH && in->nops == 1 &&
	    in->op[0].type == RCV_OP_REG && in->op[0].size == 8 &&
	    !(in->flags & (RCV_I_BAD | RCV_I_BARRIER | RCV_I_XFER)))
		return true;
	if ((in->flags & (RCV_I_BAD | RCV_I_BARRIER | RCV_I_SYSCALL |
			  RCV_I_XFER | RCV_I_REP | RCV_I_MEMBAR)) ||
	    in->iclass != RP_IC_OTHER || rcv_cond_jump(in->id) ||
	    in->id == X86_INS_JMP || in->wcode[RP_REG_RSP] ||
	    in->id == X86_INS_PUSH || in->id == X86_INS_POP ||
	    in->id == X86_INS_PUSHFQ || in->id == X86_INS_POPFQ)
		e->pdone = true;
	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM)
			e->pdone = true;
	return false;
}
