/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine's semantics (rcv_sem.c, rcv_rw.c): a
 * value's helpers, inline because every pass asks them for every
 * instruction.
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

/* Register operand's bits (low @size bytes, shifted down). */
static inline struct rcv_val reg_get(const struct rcv_state *s, int g,
				     unsigned int size, unsigned int shift)
{
	uint64_t m = wmask(size);
	struct rcv_val r = s->r[g];

	return (struct rcv_val){ (r.v >> shift) & m, (r.k >> shift) & m };
}

#endif /* PTREC_RCV_VAL_H */
