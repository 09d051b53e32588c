/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine (through rcv_win.h): the inline
 * helpers a memory question calls for each access it scans (bytes an
 * access covers and knows, the accesses of an instruction remembered
 * for one question: rcv_mem.c).  Inline because they are the hot path;
 * a header of their own because rcv_win.h grew past 1,000 lines.  The
 * blocks are moved as they were.
 */
#ifndef PTREC_RCV_MEMQ_H
#define PTREC_RCV_MEMQ_H

#include "rcv_recover.h"

/* Byte @a of access @x: -1 it does not cover it, 0 value unknown, 1 in
 * *@out.  Inline, as rcv_acc_of(): a memory question asks both for each
 * byte of each access it scans (p99: 35% of workload's last window were
 * these two calls).
 */
static inline int rcv_acc_byte(const struct rcv_acc *x, uint64_t a,
			       uint8_t *out)
{
	struct rcv_val v;
	unsigned int sh;

	if (!x->valid || !x->addr_known || a - x->addr >= x->size)
		return -1;	/* does not cover */
	if (a - x->addr >= 16)
		return 0;	/* a ymm's upper half: never known */
	v = a - x->addr < 8 ? x->val : x->hi;
	sh = (unsigned int)((a - x->addr) & 7) * 8;
	if ((v.k >> sh & 0xff) != 0xff)
		return 0;	/* covers, value unknown */
	*out = (uint8_t)(v.v >> sh);
	return 1;
}
/* Bit i: byte i of @k is all ones. */
static inline unsigned int rcv_bytes_ff(uint64_t k)
{
	k &= k >> 4;
	k &= k >> 2;
	k &= k >> 1;
	return (unsigned int)(((k & 0x0101010101010101ull) *
			       0x0102040810204080ull) >> 56);
}

/*
 * The bytes of @word access @x covers (*@cov) and, of those, the ones it
 * knows the value of (returned): for each byte a, rcv_acc_byte(@x, a)
 * >= 0 and == 1, without asking it 8 times (rcv_mem.c: a memory question
 * walks a word's accesses for all its bytes at once; test_rcv_mem.c
 * checks the two agree).  Offsets 16 and up (a ymm's upper half) are
 * never known.
 */
static inline uint8_t rcv_acc_word(const struct rcv_acc *x, uint64_t word,
				   uint8_t *cov)
{
	uint64_t w0 = 8 * word, d = x->addr - w0, n;
	unsigned int k16;

	*cov = 0;
	if (!x->valid || !x->addr_known)
		return 0;
	k16 = rcv_bytes_ff(x->val.k) | rcv_bytes_ff(x->hi.k) << 8;
	if (d < 8) {		/* it starts in the word, at byte d */
		n = 8 - d < x->size ? 8 - d : x->size;
		*cov = (uint8_t)(((1u << n) - 1) << d);
		return (uint8_t)(k16 << d) & *cov;
	}
	d = w0 - x->addr;	/* it starts d bytes before the word */
	if (d >= x->size)
		return 0;
	n = x->size - d < 8 ? x->size - d : 8;
	*cov = (uint8_t)((1u << n) - 1);
	return d < 16 ? (uint8_t)(k16 >> d) & *cov : 0;
}

/* First entry of @w's index at or after (@word, @pos). */
size_t rcv_lower(const struct win *w, uint64_t word, uint64_t pos);
/* The loads (@wr false) or stores of instruction @q of @w, remembered for
 * one memory question (rc->mb_gen).
 */
static inline const struct rcv_acc *rcv_acc_of(struct win *w, size_t q,
					       bool wr)
{
	struct rp_recover *rc = w->rc;
	struct rcv_memo *m = &rc->memo[q % RCV_MEMO];

	if (m->w != w || m->q != q) {
		m->w = w;
		m->q = q;
		m->gen[0] = m->gen[1] = 0;
	}
	if (m->gen[wr] != rc->mb_gen) {
		/* With @w's own context: a question that walks on into the
		 * later window (mem_scan()) reads its accesses, and what a
		 * read-modify-write there read and wrote is that window's
		 * (c->written() answers nothing for another's instruction:
		 * gdbloop's loop counter was not known past the last
		 * window's start).
		 */
		struct rcv_ctx c = rc->ctx;

		c.mctx = w;
		m->gen[wr] = rc->mb_gen;
		if (wr)
			rcv_writes(&c, &w->ins[q], &w->st[q], &w->st[q + 1],
				   &m->acc[1]);
		else
			rcv_reads(&c, &w->ins[q], &w->st[q], &w->st[q + 1],
				  &m->acc[0]);
	}
	return &m->acc[wr];
}

#endif /* PTREC_RCV_MEMQ_H */
