/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine's semantics (rcv_sem.c, rcv_back.c,
 * rcv_rw.c): a value's helpers, inline because every pass asks them for
 * every instruction.
 */
#ifndef PTREC_RCV_VAL_H
#define PTREC_RCV_VAL_H

#include "rcv_internal.h"

static inline uint64_t wmask(unsigned int size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

static inline struct rcv_val known(uint64_t v)
{
	return (struct rcv_val){ v, ~0ull };
}

static inline bool full(struct rcv_val x, unsigned int size)
{
	return (x.k & wmask(size)) == wmask(size);
}

/*
 * The bits of a value known from bit 0 up with no gap (~0: all): the low
 * bits of a sum or a difference depend on the operands' bits at and
 * below them alone (carries and borrows only go up).
 */
static inline uint64_t low_run(uint64_t k)
{
	return ~k ? (~k & (k + 1)) - 1 : ~0ull;
}

/* Register operand's bits (low @size bytes, shifted down). */
static inline struct rcv_val reg_get(const struct rcv_state *s, int g,
				     unsigned int size, unsigned int shift)
{
	uint64_t m = wmask(size);
	struct rcv_val r = s->r[g];

	return (struct rcv_val){ (r.v >> shift) & m, (r.k >> shift) & m };
}

/* Sets the low @size bytes (at @shift) of GPR @g in @s to @x: 4- and
 * 8-byte writes also set the upper bits (zero for 4).
 */
static inline void reg_set(struct rcv_state *s, int g, unsigned int size,
			   unsigned int shift, struct rcv_val x)
{
	uint64_t m = wmask(size);

	if (size == 4) {
		x.v &= m;
		x.k = (x.k & m) | ~m;
		m = ~0ull;
		size = 8;
	}
	if (size == 8) {
		s->r[g].v = x.v & x.k;
		s->r[g].k = x.k;
		return;
	}
	s->r[g].k = (s->r[g].k & ~(m << shift)) | ((x.k & m) << shift);
	s->r[g].v = ((s->r[g].v & ~(m << shift)) | ((x.v & m) << shift)) &
		    s->r[g].k;
}

/* Sets bits of @x (low @size at @shift, an 8- or 4-byte write sets only the
 * low half for 4) in the partial state @p.
 */
static inline void learn(struct rcv_state *p, int g, unsigned int size,
			 unsigned int shift, struct rcv_val x)
{
	uint64_t m = wmask(size);

	x.k &= m;
	x.v &= x.k;
	p->r[g].k |= x.k << shift;
	p->r[g].v |= x.v << shift;
}

#endif /* PTREC_RCV_VAL_H */
