/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to watch_proof.c and watch_acc.c: what crosses between the
 * pass that follows a window's registers (watch_proof.c) and its memory
 * accesses and stack slots (watch_acc.c), and the small value helpers
 * both use.
 */
#ifndef PTREC_WATCH_ACC_H
#define PTREC_WATCH_ACC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "watch_pass.h"
#include "watch_proof.h"

static const struct sv none = { -1, 0, 0 };

static inline struct sv sv_const(uint64_t v)
{
	return (struct sv){ 0, (int64_t)v, (int64_t)v };
}

static inline struct sv sv_add(struct sv x, int64_t d)
{
	if (x.root < 0 || __builtin_add_overflow(x.lo, d, &x.lo) ||
	    __builtin_add_overflow(x.hi, d, &x.hi))
		return none;
	return x;
}

static inline bool sv_is_const(struct sv x)
{
	return x.root == 0 && x.lo == x.hi;
}

/* The values @x may hold, as signed words, where a range is known: a
 * constant interval (root 0) or a ranged root's (watch_pass.h @rng) plus
 * @x's offsets.
 */
/* Root @r's ranges and sums (NULL: none). */
static inline const struct rext *rext_of(const struct pass *p, int32_t r)
{
	return r > 0 && p->root[r].ext ? &p->ext[p->root[r].ext - 1] : NULL;
}

static inline bool sv_range(const struct pass *p, struct sv x, int64_t *lo,
			    int64_t *hi)
{
	const struct rext *r;

	if (x.root == 0) {
		*lo = x.lo;
		*hi = x.hi;
		return true;
	}
	r = rext_of(p, x.root);
	if (!r || !r->rng)
		return false;
	return !__builtin_add_overflow(r->rlo, x.lo, lo) &&
	       !__builtin_add_overflow(r->rhi, x.hi, hi);
}

/* What the current instruction's results depend on (watch_dep.c). */
static inline int32_t dep_in(struct pass *p)
{
	return p->deps ? wdep_inputs(p) : 0;
}

static inline bool is_reg(const struct rcv_op *op, unsigned int size)
{
	return op->type == RCV_OP_REG && op->size == size && !op->shift;
}

/* add r64, m64: step() reads the word (wpf_load8(), its slot or the
 * entry's word), not wpf_accesses().
 */
static inline bool add_load8(const struct rcv_ins *in)
{
	return in->id == X86_INS_ADD && in->nops == 2 &&
	       is_reg(&in->op[0], 8) && in->op[1].type == RCV_OP_MEM &&
	       in->op[1].size == 8;
}

/* watch_proof.c: some value (a new base). */
struct sv wpf_fresh_val(struct pass *p);

/* watch_acc.c: the 8 bytes a pop, leave or load reads at @a; the
 * address of memory operand @op; the value of operand @op as a source;
 * the accesses of instruction @i (@in).
 */
struct sv wpf_load8(struct pass *p, struct sv a);
struct sv wpf_addr_of(const struct pass *p, const struct rcv_ins *in,
		      const struct rcv_op *op);
/* The same as lea's value (watch_acc.c: an index's range only from a
 * constant interval).
 */
struct sv wpf_lea_of(const struct pass *p, const struct rcv_ins *in,
		     const struct rcv_op *op);
struct sv wpf_src_of(struct pass *p, const struct rcv_ins *in,
		     const struct rcv_op *op);
void wpf_accesses(struct pass *p, size_t i, const struct rcv_ins *in);

#endif /* PTREC_WATCH_ACC_H */
