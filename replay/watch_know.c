// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What the engine can learn of a far window's values (issue #18): the
 * knowledge fixpoint over watch_dep.c's graph, for load watchpoints.
 *
 * watch_dep.c's wdep_informed_any() calls a base informed when any value
 * the trace shows depends on it.  The engine learns a value only by
 * inverting an operation whose other operands it knows (rcv_back.c,
 * rcv_sem.c's zf_result()): a shown result of add, sub, xor or cmp
 * tells an operand only where the other one is known, one of and, or,
 * test, a shift, imul or cmovcc tells none.  So here a node is known
 * when the engine may learn it back from a shown value through such
 * inversions (each node's WDEP_INV_*), or compute it forward from what
 * it knows (WDEP_FWD_*: constants, a load of an address it may know,
 * the vector state), to a fixpoint with the memory flows.  Where in
 * doubt a node counts as known (a base known is never secret): what is
 * not listed inverts to each parent and computes from any.
 *
 * Write watchpoints keep the cheaper wdep_informed_any() (every far
 * window of the benches passes them with it); watch_chain.c asks this
 * one where a window is proven for loads.
 */
#include <stdlib.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_pass.h"

/* cmovcc: rcv_sem.c computes it forward where the flags are known,
 * rcv_back.c never backward.
 */
bool wdep_is_cmov(unsigned int id)
{
	switch (id) {
	case X86_INS_CMOVA: case X86_INS_CMOVAE: case X86_INS_CMOVB:
	case X86_INS_CMOVBE: case X86_INS_CMOVE: case X86_INS_CMOVG:
	case X86_INS_CMOVGE: case X86_INS_CMOVL: case X86_INS_CMOVLE:
	case X86_INS_CMOVNE: case X86_INS_CMOVNO: case X86_INS_CMOVNP:
	case X86_INS_CMOVNS: case X86_INS_CMOVO: case X86_INS_CMOVP:
	case X86_INS_CMOVS:
		return true;
	default:
		return false;
	}
}

/*
 * What knowing what @in computes (its result, or its flags where a
 * branch shows ZF set) tells the engine of what it read (WDEP_INV_*).
 * rcv_back.c inverts add, sub and xor into a register only with the
 * other operand known (the source from the destination before and
 * after, or the destination from the source), cmp r, x with ZF set
 * gives r from x or x from r, and zf_result() (rcv_sem.c) gives the
 * result of add/sub/xor/and/or... as 0, not their operands; it never
 * inverts and, or, test of two values (test r, r gives r), shifts,
 * imul, bt or cmovcc.  Operands of 1 or 2 bytes are learned in part
 * (the register's low bytes): as before, each parent.  Anything else
 * (xchg, a move, inc, neg, ...): each parent.
 */
uint8_t wdep_inv_class(const struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];

	switch (in->id) {
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_XOR:
	case X86_INS_CMP:
		return in->nops == 2 && (d->size == 4 || d->size == 8) ?
		       WDEP_INV_OTHER : WDEP_INV_ANY;
	case X86_INS_LEA:
		return in->nops == 2 && s->type == RCV_OP_MEM &&
		       s->index >= 0 ? WDEP_INV_OTHER : WDEP_INV_ANY;
	case X86_INS_TEST:
		if (in->nops == 2 && d->type == RCV_OP_REG &&
		    s->type == RCV_OP_REG && s->reg == d->reg &&
		    s->size == d->size && s->shift == d->shift)
			return WDEP_INV_ANY;
		return WDEP_INV_NONE;
	case X86_INS_AND: case X86_INS_OR: case X86_INS_SHL:
	case X86_INS_SAL: case X86_INS_SHR: case X86_INS_SAR:
	case X86_INS_IMUL: case X86_INS_BT:
		return WDEP_INV_NONE;
	default:
		return wdep_is_cmov(in->id) ? WDEP_INV_NONE : WDEP_INV_ANY;
	}
}

/* xor, sub or cmp of a register with itself: a constant result and
 * flags, whatever the register held.
 */
bool wdep_self_op(const struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];

	return (in->id == X86_INS_XOR || in->id == X86_INS_SUB ||
		in->id == X86_INS_CMP) && in->nops == 2 &&
	       d->type == RCV_OP_REG && s->type == RCV_OP_REG &&
	       d->reg == s->reg && d->size == s->size &&
	       d->shift == s->shift;
}

/*
 * Does @in leave its result's low 4 or 8 bytes known whatever it read
 * (and the engine computes them forward)?  and with an immediate whose
 * low 32 bits are 0, or with one whose low 32 bits are all ones, a shift
 * left by 32 or more, imul by 0, xor or sub of a register with itself.
 * WDEP_INV_OTHER needs the other operand known: here it is, though
 * none of what the instruction read is.
 */
bool wdep_absorbs(const struct rcv_ins *in)
{
	const struct rcv_op *s = &in->op[1];
	uint64_t c;

	if (wdep_self_op(in))
		return true;
	if (in->nops < 2 || in->op[in->nops - 1].type != RCV_OP_IMM)
		return false;
	c = (uint64_t)in->op[in->nops - 1].imm;
	switch (in->id) {
	case X86_INS_AND:
		return !(c & 0xffffffffull);
	case X86_INS_OR:
		return (c & 0xffffffffull) == 0xffffffffull;
	case X86_INS_SHL: case X86_INS_SAL:
		return in->nops == 2 && s->type == RCV_OP_IMM &&
		       in->op[0].size == 8 && (c & 63) >= 32;
	case X86_INS_IMUL:
		return !c;
	default:
		return false;
	}
}

/*
 * The knowledge fixpoint: K_LEARN, the engine may learn the node back
 * from what the trace shows; K_CALC, it may compute it forward (from
 * constants, a load of an address it may know, the vector state...).
 * Known is either.  Only learned nodes inform their parents (a node
 * computed forward tells nothing its parents did not).
 */
#define K_LEARN	1
#define K_CALC	2

#define ROUNDS	64

static inline bool kn(const uint8_t *k, int32_t q)
{
	/* A value of unknown origin may be known. */
	return q == WDEP_ALL || k[q];
}

/* The fixpoint's state: what is known, the nodes whose knowledge changed
 * and not yet followed (node << 2 | KF_NEW: known just now | KF_LEARN:
 * learned just now), each node's children (child << 1 | 1: a load whose
 * address it is the base of).
 */
#define KF_NEW		1
#define KF_LEARN	2

struct kfix {
	const struct pass *p;
	uint8_t *k;
	int32_t *st;
	size_t n, cap;
	int32_t *coff, *cl;
	bool nomem;
};

static inline void kpush(struct kfix *f, int32_t q, int32_t bits)
{
	if (f->n >= f->cap &&
	    !wpf_grow((void **)&f->st, &f->cap, f->n, sizeof(*f->st), 256)) {
		f->nomem = true;
		return;
	}
	f->st[f->n++] = q << 2 | bits;
}

/* Learned @q: 1 when it changed. */
static int klearn(struct kfix *f, int32_t q)
{
	if (q <= 0 || (f->k[q] & K_LEARN))
		return 0;
	kpush(f, q, KF_LEARN | (f->k[q] ? 0 : KF_NEW));
	f->k[q] |= K_LEARN;
	return 1;
}

/* Computed @q forward (it is not a register the engine starts from
 * nothing).
 */
static void kcalc(struct kfix *f, int32_t q)
{
	if (f->k[q] || f->p->root[q].start)
		return;
	f->k[q] = K_CALC;
	kpush(f, q, KF_NEW);
}

/* Computed forward from its parents (WDEP_FWD_ALL: all known)? */
static bool calc_all(const struct pass *p, const uint8_t *k, int32_t r)
{
	int32_t e;

	for (e = p->root[r].dhead; e; e = p->de[e - 1].next)
		if (!kn(k, p->de[e - 1].par))
			return false;
	return true;
}

/* Learned @r: what it tells of its parents. */
static void kback(struct kfix *f, int32_t r)
{
	const struct pass *p = f->p;
	const struct root *x = &p->root[r];
	int32_t e, q = -1;

	if (x->inv == WDEP_INV_NONE)
		return;
	if (x->inv == WDEP_INV_ANY) {
		for (e = x->dhead; e; e = p->de[e - 1].next)
			klearn(f, p->de[e - 1].par);
		return;
	}
	/* One operand once every other one is known. */
	for (e = x->dhead; e; e = p->de[e - 1].next) {
		int32_t par = p->de[e - 1].par;

		if (kn(f->k, par) || par == q)
			continue;
		if (q >= 0)
			return;	/* two unknown */
		q = par;
	}
	if (q > 0)
		klearn(f, q);
}

/* Follows what changed until nothing does. */
static void kdrain(struct kfix *f)
{
	const struct pass *p = f->p;
	int32_t q, c, j;
	int bits;

	while (f->n && !f->nomem) {
		q = f->st[--f->n];
		bits = q & 3;
		q >>= 2;
		if (bits & KF_LEARN)
			kback(f, q);
		if (!(bits & KF_NEW))
			continue;
		for (j = f->coff[q]; j < f->coff[q + 1]; j++) {
			c = f->cl[j] >> 1;
			if (f->cl[j] & 1) {
				kcalc(f, c);
				continue;
			}
			if (!f->k[c] && (p->root[c].fwd != WDEP_FWD_ALL ||
					 calc_all(p, f->k, c)))
				kcalc(f, c);
			if ((f->k[c] & K_LEARN) &&
			    p->root[c].inv == WDEP_INV_OTHER)
				kback(f, c);
		}
	}
}

/* Each node's children, and the first knowledge: what is known
 * whatever the trace shows.  False when out of memory.
 */
static bool kinit(struct kfix *f)
{
	const struct pass *p = f->p;
	size_t n = p->nroot, r, j;
	int32_t c, par;

	f->coff = calloc(n + 2, sizeof(*f->coff));
	f->cl = malloc((p->nde + p->nxl + 1) * sizeof(*f->cl));
	if (!f->coff || !f->cl)
		return false;
	for (j = 0; j < p->nde; j++)
		f->coff[p->de[j].par + 2]++;
	for (j = 0; j < p->nxl; j++)
		if (p->xl[j].addr > 0)
			f->coff[p->xl[j].addr + 2]++;
	for (r = 2; r <= n + 1; r++)
		f->coff[r] += f->coff[r - 1];
	for (j = 0; j < p->nde; j++) {
		par = p->de[j].par;
		c = p->de[j].child;
		f->cl[f->coff[par + 1]++] = c << 1;
		/* A value of unknown origin may be known. */
		if (par == WDEP_ALL && p->root[c].fwd != WDEP_FWD_ALL)
			kcalc(f, c);
	}
	for (j = 0; j < p->nxl; j++) {
		const struct wdep_load *x = &p->xl[j];

		if (x->addr > 0)
			f->cl[f->coff[x->addr + 1]++] = x->node << 1 | 1;
		else
			kcalc(f, x->node);
	}
	for (j = 0; j < p->nyes; j++)
		kcalc(f, p->yes[j]);
	return !f->nomem;
}

/*
 * The memory flows (one round): a word loaded where the engine may know
 * the address gives what earlier stores left there, when the engine may
 * know theirs: the latest such load (the stores before it include those
 * before any other) informs the stores of unknown kind's chain and each
 * store relative to a known base.  Changes.
 */
static int mem_round(struct kfix *f)
{
	const struct pass *p = f->p;
	const uint8_t *k = f->k;
	uint32_t t = 0;
	int32_t mem = -1;
	int ch = 0;
	size_t j;

	for (j = 0; j < p->nxl; j++) {
		const struct wdep_load *x = &p->xl[j];

		if ((k[x->node] & K_LEARN) && (!x->base || kn(k, x->base)) &&
		    (mem < 0 || x->t >= t)) {
			t = x->t;
			mem = x->mem;
		}
	}
	if (mem < 0)
		return 0;
	ch += klearn(f, mem);
	for (j = 0; j < p->nps; j++) {
		const struct wdep_store *s = &p->ps[j];

		if (s->t < t && kn(k, s->base))
			ch += klearn(f, s->val);
	}
	return ch;
}

/*
 * By root: may the engine know it (what the trace shows, inverted
 * through what it inverts exactly, and what it computes forward from
 * that and from constants)?  [WDEP_ALL]: everything (a value of unknown
 * origin was learned).  A worklist over the graph both ways (a value
 * loaded from an address the engine may know may be known: the image's
 * read-only bytes, a store there), then the memory flows, until nothing
 * changes.
 */
bool *wdep_informed(const struct pass *p, bool **learned)
{
	struct kfix f = { .p = p };
	bool *inf = calloc(p->nroot + 1, sizeof(*inf)), *lr = NULL;
	int round;
	size_t j, r;

	f.k = calloc(p->nroot + 1, 1);
	if (learned) {
		lr = calloc(p->nroot + 1, sizeof(*lr));
		*learned = lr;
	}
	if (!f.k || !inf || (learned && !lr))
		goto fail;
	if (p->all) {
		inf[WDEP_ALL] = true;
		goto done;
	}
	if (!kinit(&f))
		goto fail;
	for (j = 0; j < p->nrev; j++)
		klearn(&f, p->rev[j]);
	for (round = 0; !(f.k[WDEP_ALL] & K_LEARN); round++) {
		/* Past a few dozen rounds (not seen), everything counts
		 * as informed.
		 */
		if (round == ROUNDS) {
			f.k[WDEP_ALL] |= K_LEARN;
			break;
		}
		kdrain(&f);
		if (f.nomem)
			goto fail;
		if (!mem_round(&f))
			break;
	}
	for (r = 1; r < p->nroot; r++)
		inf[r] = f.k[r] != 0;
	for (r = 1; lr && r < p->nroot; r++)
		lr[r] = f.k[r] & K_LEARN;
	inf[WDEP_ALL] = f.k[WDEP_ALL] & K_LEARN;
done:
	free(f.k);
	free(f.st);
	free(f.coff);
	free(f.cl);
	return inf;
fail:
	free(f.k);
	free(f.st);
	free(f.coff);
	free(f.cl);
	free(inf);
	free(lr);
	if (learned)
		*learned = NULL;
	return NULL;
}
