// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's semantics of the bit instructions compilers and
 * glibc's string functions emit beside the arithmetic rcv_sem.c models:
 * bit scans and counts (bsf, bsr, tzcnt, popcnt), bit tests (bt, bts,
 * btr, btc), BMI1 and BMI2 (andn, blsr, blsi, blsmsk, bzhi, bextr, shlx,
 * shrx, sarx, rorx, pdep, pext), movbe's load, xadd and the double shifts
 * (shld, shrd).  Before this file each was "not modelled": every explicit
 * register operand unknown after it, sources too (issue #17 names xadd).
 *
 * Only what the SDM (Vol. 2A/2B, each instruction's Operation and Flags
 * Affected) defines, and AMD's APM Vol. 3 the same way, is claimed: a
 * flag the SDM calls undefined stays unknown, and so does a result that
 * depends on the processor.  Two such cases matter here.  TZCNT (F3 0F
 * BC) executes as BSF on a processor without BMI1 and LZCNT (F3 0F BD)
 * as BSR without LZCNT (SDM: "the instruction executes as BSF/BSR"); the
 * bundle does not record the processor's features, so tzcnt gives only
 * what BSF gives alike (the count of a nonzero source) and lzcnt
 * nothing.  BSF and BSR leave the destination undefined for a zero
 * source (AMD: unchanged): only ZF then.
 *
 * rcv_bits_writes() gives rcv_decode.c what each writes (capstone 4's
 * lists are not trusted, and "not modelled" took every explicit operand
 * as written); rcv_bits_forward() is called by rcv_sem.c's emulate().
 * tests/unit/replay/test_recover_cpu.c runs each form on this CPU with
 * random and edge operands: every bit the engine claims must be the
 * CPU's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_sem.h"

static bool is_bits(unsigned int id)
{
	switch (id) {
	case X86_INS_BSF: case X86_INS_BSR: case X86_INS_TZCNT:
	case X86_INS_LZCNT: case X86_INS_POPCNT:
	case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR:
	case X86_INS_BTC: case X86_INS_XADD: case X86_INS_SHLD:
	case X86_INS_SHRD: case X86_INS_ANDN: case X86_INS_BLSR:
	case X86_INS_BLSI: case X86_INS_BLSMSK: case X86_INS_BZHI:
	case X86_INS_BEXTR: case X86_INS_SHLX: case X86_INS_SHRX:
	case X86_INS_SARX: case X86_INS_RORX: case X86_INS_PDEP:
	case X86_INS_PEXT: case X86_INS_MOVBE:
		return true;
	default:
		return false;
	}
}

/* Flags Affected: none (SDM Vol. 2B SHLX/SARX/SHRX, RORX, PDEP, PEXT,
 * MOVBE).
 */
static bool no_flags(unsigned int id)
{
	switch (id) {
	case X86_INS_SHLX: case X86_INS_SHRX: case X86_INS_SARX:
	case X86_INS_RORX: case X86_INS_PDEP: case X86_INS_PEXT:
	case X86_INS_MOVBE:
		return true;
	default:
		return false;
	}
}

bool rcv_bits_writes(struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0];

	if (!is_bits(in->id) || !in->nops)
		return false;
	/* The destination alone (a register one); xadd's source too.  bt
	 * writes no register; a bit test of memory none either.
	 */
	memset(in->wcode, 0, sizeof(in->wcode));
	if (d->type == RCV_OP_REG && in->id != X86_INS_BT)
		in->wcode[d->reg] = rcv_wcode_of(d->size, d->shift);
	if (in->id == X86_INS_XADD && in->nops == 2 &&
	    in->op[1].type == RCV_OP_REG) {
		uint8_t w = rcv_wcode_of(in->op[1].size,
					 in->op[1].shift);

		if (in->wcode[in->op[1].reg] && in->wcode[in->op[1].reg] != w)
			w = 4;
		in->wcode[in->op[1].reg] = w;
	}
	/* The arithmetic flags, written or undefined (bt's ZF: the SDM
	 * says unaffected, not taken); none for those that affect none.
	 */
	in->fw = no_flags(in->id) ? 0 : ARITH_FLAGS;
	return true;
}

/* Destination register @d gets @v of its size. */
static void put(struct rcv_state *o, const struct rcv_op *d, uint64_t v)
{
	if (d->type == RCV_OP_REG)
		reg_set(o, d->reg, d->size, d->shift,
			known(v & wmask(d->size)));
}

static unsigned int bits_of(unsigned int size)
{
	return 8 * size;
}

/* bsf, bsr, tzcnt, popcnt: dest, src. */
static void scan(const struct rcv_ctx *c, uint64_t i,
		 const struct rcv_ins *in, const struct rcv_state *s,
		 struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0];
	unsigned int sz = d->size;
	struct rcv_val a;
	uint64_t v;

	if (in->nops != 2 || d->type != RCV_OP_REG)
		return;
	a = rcv_op_get(c, i, in, &in->op[1], s, sz);
	if (!full(a, sz))
		return;
	v = a.v & wmask(sz);
	switch (in->id) {
	case X86_INS_POPCNT:
		/* OF, SF, AF, CF, PF cleared; ZF if the source is 0. */
		set_flags(o, ARITH_FLAGS, v ? 0 : F_ZF);
		put(o, d, (uint64_t)__builtin_popcountll(v));
		return;
	case X86_INS_BSF:
	case X86_INS_BSR:
		/* ZF tells a zero source; the destination is undefined
		 * then, the other flags always.
		 */
		set_flags(o, F_ZF, v ? 0 : F_ZF);
		if (!v)
			return;
		put(o, d, in->id == X86_INS_BSF ?
			  (uint64_t)__builtin_ctzll(v) :
			  (uint64_t)(63 - __builtin_clzll(v)));
		return;
	case X86_INS_TZCNT:
		/* As BSF where tzcnt and BSF agree: a nonzero source. */
		if (v)
			put(o, d, (uint64_t)__builtin_ctzll(v));
		return;
	default:	/* lzcnt: BSR on a processor without it */
		return;
	}
}

/* bt, bts, btr, btc r/m, r or imm: CF the bit; the register's new bit. */
static void bittest(const struct rcv_ctx *c, uint64_t i,
		    const struct rcv_ins *in, const struct rcv_state *s,
		    struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size, n;
	struct rcv_val a, b;
	uint64_t bit;

	if (in->nops != 2 || (d->type != RCV_OP_REG &&
			      (d->type != RCV_OP_MEM ||
			       src->type != RCV_OP_IMM)))
		return;
	/* The offset modulo the operand's width: a register's always, an
	 * immediate's for memory too (SDM Vol. 2A BT: a register offset
	 * into memory may reach beyond it, rcv_bitop_far(): not here).
	 */
	b = src->type == RCV_OP_IMM ? known((uint64_t)src->imm) :
				      rcv_op_get(c, i, in, src, s, sz);
	if ((b.k & (bits_of(sz) - 1)) != bits_of(sz) - 1)
		return;
	n = (unsigned int)b.v & (bits_of(sz) - 1);
	bit = 1ull << n;
	a = rcv_op_get(c, i, in, d, s, sz);
	if (a.k & bit)
		set_flags(o, F_CF, a.v & bit ? F_CF : 0);
	if (d->type != RCV_OP_REG || in->id == X86_INS_BT)
		return;
	/* Every other bit passes; the tested one is set, cleared or
	 * flipped (known if it was).
	 */
	switch (in->id) {
	case X86_INS_BTS:
		a.v |= bit;
		a.k |= bit;
		break;
	case X86_INS_BTR:
		a.v &= ~bit;
		a.k |= bit;
		break;
	default:
		a.v ^= bit;
		break;
	}
	a.v &= a.k;
	reg_set(o, d->reg, sz, d->shift, a);
}

/* xadd r/m, r: r gets the destination's value, the destination the sum
 * (a memory one's through @c->wrote, as rcv_sem.c's add [mem], r).
 */
static void xadd(const struct rcv_ctx *c, uint64_t i, const struct rcv_ins *in,
		 const struct rcv_state *s, struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size;
	struct rcv_val a, b;

	if (in->nops != 2 || src->type != RCV_OP_REG || src->size != sz)
		return;
	a = rcv_op_get(c, i, in, d, s, sz);
	b = reg_get(s, src->reg, sz, src->shift);
	/* xadd r, r of one register: the sum wins (TEMP <- SRC + DEST;
	 * SRC <- DEST; DEST <- TEMP).
	 */
	if (!(d->type == RCV_OP_REG && d->reg == src->reg))
		reg_set(o, src->reg, sz, src->shift, a);
	if (!full(a, sz) || !full(b, sz))
		return;
	set_flags(o, ARITH_FLAGS, flags_add(a.v, b.v, 0, sz));
	/* A memory destination's new value: rcv_rw.c's store value. */
	if (d->type == RCV_OP_MEM && c->wrote)
		c->wrote(c->mctx, i, 1, known((a.v + b.v) & wmask(sz)));
	put(o, d, a.v + b.v);
}

/* shld, shrd r, r, imm or cl: a register destination. */
static void dshift(const struct rcv_ctx *c, uint64_t i,
		   const struct rcv_ins *in, const struct rcv_state *s,
		   struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0];
	unsigned int sz = d->size, w = bits_of(sz), n;
	struct rcv_val a, b, cnt;
	uint64_t r, m = wmask(sz), cf;

	if (in->nops != 3 || d->type != RCV_OP_REG || sz < 4)
		return;
	a = reg_get(s, d->reg, sz, d->shift);
	b = rcv_op_get(c, i, in, &in->op[1], s, sz);
	cnt = rcv_op_get(c, i, in, &in->op[2], s, 1);
	if (!full(a, sz) || !full(b, sz) || !full(cnt, 1))
		return;
	n = (unsigned int)cnt.v & (sz == 8 ? 63 : 31);
	if (!n) {
		/* Nothing changes and no flag (left unknown); a 32-bit
		 * destination's upper half is not claimed either way.
		 */
		if (sz == 8)
			put(o, d, a.v);
		return;
	}
	if (in->id == X86_INS_SHLD) {
		r = (a.v << n | b.v >> (w - n)) & m;
		cf = a.v >> (w - n) & 1;
	} else {
		r = (a.v >> n | b.v << (w - n)) & m;
		cf = a.v >> (n - 1) & 1;
	}
	/* CF the last bit out, SF ZF PF of the result; OF only for a count
	 * of 1, AF undefined.
	 */
	set_flags(o, F_CF | F_ZF | F_SF | F_PF,
		  pf_zf_sf(r, sz) | (cf ? F_CF : 0));
	if (n == 1)
		set_flags(o, F_OF, ((r ^ a.v) >> (w - 1) & 1) ? F_OF : 0);
	put(o, d, r);
}

static uint64_t pdep(uint64_t src, uint64_t mask)
{
	uint64_t r = 0, k = 1;

	for (; mask; mask &= mask - 1, k <<= 1)
		if (src & k)
			r |= mask & -mask;
	return r;
}

static uint64_t pext(uint64_t src, uint64_t mask)
{
	uint64_t r = 0, k = 1;

	for (; mask; mask &= mask - 1, k <<= 1)
		if (src & mask & -mask)
			r |= k;
	return r;
}

/* The VEX-encoded BMI1/BMI2 forms: dest, src1, src2 (Intel order). */
static void bmi(const struct rcv_ctx *c, uint64_t i, const struct rcv_ins *in,
		const struct rcv_state *s, struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0];
	unsigned int sz = d->size, w = bits_of(sz), n, len;
	struct rcv_val a, b = known(0);
	uint64_t m = wmask(sz), r, f;

	if (d->type != RCV_OP_REG || sz < 4 || in->nops < 2)
		return;
	a = rcv_op_get(c, i, in, &in->op[1], s, sz);
	if (in->nops == 3)
		b = rcv_op_get(c, i, in, &in->op[2], s, sz);
	if (!full(a, sz) || !full(b, sz))
		return;
	a.v &= m;
	b.v &= m;
	switch (in->id) {
	case X86_INS_ANDN:	/* ~src1 & src2; SF ZF, OF CF 0 */
		r = ~a.v & b.v & m;
		set_flags(o, F_SF | F_ZF | F_OF | F_CF,
			  pf_zf_sf(r, sz) & (F_SF | F_ZF));
		break;
	case X86_INS_BLSR:	/* src & (src - 1); CF: src 0 */
	case X86_INS_BLSI:	/* src & -src; CF: src not 0 */
	case X86_INS_BLSMSK:	/* src ^ (src - 1); CF: src 0; ZF 0 */
		if (in->nops != 2)
			return;
		r = in->id == X86_INS_BLSR ? a.v & (a.v - 1) :
		    in->id == X86_INS_BLSI ? a.v & -a.v : a.v ^ (a.v - 1);
		r &= m;
		f = pf_zf_sf(r, sz) & (F_SF | F_ZF);
		if (in->id == X86_INS_BLSI ? a.v != 0 : a.v == 0)
			f |= F_CF;
		if (in->id == X86_INS_BLSMSK)
			f &= ~F_ZF;
		set_flags(o, F_SF | F_ZF | F_OF | F_CF, f);
		break;
	case X86_INS_BZHI:	/* bits below index[7:0]; CF: index > top */
		n = (unsigned int)b.v & 0xff;
		r = n < w ? a.v & ((1ull << n) - 1) : a.v;
		set_flags(o, F_SF | F_ZF | F_OF | F_CF,
			  (pf_zf_sf(r, sz) & (F_SF | F_ZF)) |
			  (n > w - 1 ? F_CF : 0));
		break;
	case X86_INS_BEXTR:	/* start [7:0], length [15:8]; ZF; CF OF 0 */
		n = (unsigned int)b.v & 0xff;
		len = (unsigned int)(b.v >> 8) & 0xff;
		r = n < w ? a.v >> n : 0;
		if (len < 64)
			r &= (1ull << len) - 1;
		r &= m;
		set_flags(o, F_ZF | F_OF | F_CF, r ? 0 : F_ZF);
		break;
	case X86_INS_SHLX: case X86_INS_SHRX: case X86_INS_SARX:
		/* count masked to 5 or 6 bits; no flag */
		n = (unsigned int)b.v & (w - 1);
		r = in->id == X86_INS_SHLX ? a.v << n :
		    in->id == X86_INS_SHRX ? a.v >> n :
		    (uint64_t)((int64_t)(sz == 4 ? (uint64_t)(int64_t)
						   (int32_t)a.v : a.v) >> n);
		break;
	case X86_INS_RORX:	/* no flag */
		n = (unsigned int)b.v & (w - 1);
		r = n ? (a.v >> n | a.v << (w - n)) : a.v;
		break;
	case X86_INS_PDEP:
		r = pdep(a.v, b.v);
		break;
	case X86_INS_PEXT:
		r = pext(a.v, b.v);
		break;
	default:
		return;
	}
	put(o, d, r);
}

bool rcv_bits_forward(const struct rcv_ctx *c, uint64_t i,
		      const struct rcv_ins *in, const struct rcv_state *s,
		      struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0];
	struct rcv_val a;

	if (!is_bits(in->id))
		return false;
	switch (in->id) {
	case X86_INS_BSF: case X86_INS_BSR: case X86_INS_TZCNT:
	case X86_INS_LZCNT: case X86_INS_POPCNT:
		scan(c, i, in, s, o);
		break;
	case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR:
	case X86_INS_BTC:
		bittest(c, i, in, s, o);
		break;
	case X86_INS_XADD:
		xadd(c, i, in, s, o);
		break;
	case X86_INS_SHLD: case X86_INS_SHRD:
		dshift(c, i, in, s, o);
		break;
	case X86_INS_MOVBE:
		/* The load (0F 38 F0): the bytes swapped into a register. */
		if (in->nops != 2 || d->type != RCV_OP_REG || d->size < 4 ||
		    in->op[1].type != RCV_OP_MEM)
			break;
		a = rcv_op_get(c, i, in, &in->op[1], s, d->size);
		if (full(a, d->size))
			put(o, d, rcv_bswap(a.v, d->size));
		break;
	default:
		bmi(c, i, in, s, o);
		break;
	}
	return true;
}
