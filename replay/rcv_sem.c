// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's x86-64 semantics: rcv_decode.c decodes, this says
 * what an instruction does to the general-purpose registers, rflags and
 * memory, forward (emulation when the inputs are known); rcv_back.c says
 * it backward (inversion where it is exact), with what both share in
 * rcv_sem.h.  An instruction not modelled here only makes what capstone
 * says it writes unknown; one capstone cannot decode is a barrier.  Never
 * a guess: a bit is known only when implied.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_sem.h"

/* ---- values ---------------------------------------------------------- */

struct rcv_val rcv_op_get(const struct rcv_ctx *c, uint64_t i,
			  const struct rcv_ins *in, const struct rcv_op *op,
			  const struct rcv_state *s, unsigned int size)
{
	struct rcv_val a;

	switch (op->type) {
	case RCV_OP_REG:
		return reg_get(s, op->reg, size, op->shift);
	case RCV_OP_IMM:
		return known((uint64_t)op->imm & wmask(size));
	case RCV_OP_MEM:
		a = rcv_addr(c, in, op, s);
		if (a.k != ~0ull || !c->mem)
			break;
		a = c->mem(c->mctx, i, a.v, size);
		a.v &= wmask(size);
		a.k &= wmask(size);
		return a;
	default:
		break;
	}
	return (struct rcv_val){ 0, 0 };
}

/* ---- flags ----------------------------------------------------------- */

static uint64_t flags_sub(uint64_t a, uint64_t b, uint64_t cin,
			  unsigned int size)
{
	uint64_t m = wmask(size), r = (a - b - cin) & m, f;
	unsigned int top = 8 * size - 1;

	f = pf_zf_sf(r, size);
	if (a < b || (cin && a == b))
		f |= F_CF;
	if (((a ^ b) & (a ^ r)) >> top & 1)
		f |= F_OF;
	if ((a ^ b ^ r) & 0x10)
		f |= F_AF;
	return f;
}

/* Evaluates condition @cc on @f: 1 true, 0 false, -1 unknown. */
static int cond_eval(int cc, struct rcv_val f)
{
	static const uint64_t need[8] = {
		F_OF, F_CF, F_ZF, F_CF | F_ZF, F_SF, F_PF, F_SF | F_OF,
		F_SF | F_OF | F_ZF,
	};
	bool r;

	if ((f.k & need[cc >> 1]) != need[cc >> 1])
		return -1;
	switch (cc >> 1) {
	case 0: r = f.v & F_OF; break;
	case 1: r = f.v & F_CF; break;
	case 2: r = f.v & F_ZF; break;
	case 3: r = (f.v & F_CF) || (f.v & F_ZF); break;
	case 4: r = f.v & F_SF; break;
	case 5: r = f.v & F_PF; break;
	case 6: r = !!(f.v & F_SF) != !!(f.v & F_OF); break;
	default: r = (f.v & F_ZF) || !!(f.v & F_SF) != !!(f.v & F_OF); break;
	}
	return (cc & 1) ? !r : r;
}

/* ---- one instruction forward ----------------------------------------- */

/* Is the instruction one whose emulation below is exact? */
static bool arith2(unsigned int id)
{
	switch (id) {
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND:
	case X86_INS_OR: case X86_INS_XOR: case X86_INS_CMP:
	case X86_INS_TEST: case X86_INS_ADC: case X86_INS_SBB:
		return true;
	default:
		return false;
	}
}

static struct rcv_val sext(struct rcv_val x, unsigned int from)
{
	unsigned int b = 8 * from;

	if (from >= 8)
		return x;
	if (!(x.k >> (b - 1) & 1)) {
		x.k &= wmask(from);
		return x;
	}
	if (x.v >> (b - 1) & 1)
		x.v |= ~wmask(from);
	x.k |= ~wmask(from);
	return x;
}

/*
 * mul, imul (one operand), div, idiv with known operands: ax or rdx:rax
 * (dx:ax, edx:eax) as the SDM says.  A division whose quotient does not
 * fit, or by zero, faults instead of completing: left unknown.
 */
static void emulate_muldiv(const struct rcv_ctx *c, uint64_t i,
			   const struct rcv_ins *in, const struct rcv_state *s,
			   struct rcv_state *o)
{
	unsigned int sz = in->op[0].size, id = in->id, w = 8 * sz;
	bool sgn = id == X86_INS_IMUL || id == X86_INS_IDIV;
	struct rcv_val b = rcv_op_get(c, i, in, &in->op[0], s, sz), lo, hi;
	unsigned __int128 ua, uq, ur;
	__int128 sa, sb, sq, sr;
	uint64_t m = wmask(sz);

	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		return;
	lo = reg_get(s, RP_REG_RAX, sz == 1 ? 1 : sz, 0);
	hi = sz == 1 ? reg_get(s, RP_REG_RAX, 1, 8) :
		       reg_get(s, RP_REG_RDX, sz, 0);
	if (!full(b, sz) || !full(lo, sz))
		return;
	if (id == X86_INS_MUL || id == X86_INS_IMUL) {
		if (sgn) {
			sa = (__int128)(int64_t)sext(lo, sz).v;
			sb = (__int128)(int64_t)sext(b, sz).v;
			ua = (unsigned __int128)(sa * sb);
		} else {
			ua = (unsigned __int128)lo.v * b.v;
		}
		if (sz == 1) {
			reg_set(o, RP_REG_RAX, 2, 0,
				known((uint64_t)ua & 0xffff));
			return;
		}
		reg_set(o, RP_REG_RAX, sz, 0, known((uint64_t)ua & m));
		reg_set(o, RP_REG_RDX, sz, 0,
			known((uint64_t)(ua >> w) & m));
		return;
	}
	if (!full(hi, sz) || !b.v)
		return;
	ua = ((unsigned __int128)hi.v << w) | lo.v;
	if (!sgn) {
		uq = ua / b.v;
		ur = ua % b.v;
		if (uq >> w)
			return;
	} else {
		/* The dividend is 2*sz bytes, sign-extended from its top. */
		sa = (__int128)(ua << (128 - 2 * w)) >> (128 - 2 * w);
		sb = (__int128)(int64_t)sext(b, sz).v;
		sq = sa / sb;
		sr = sa % sb;
		if (sq > (((__int128)1 << (w - 1)) - 1) ||
		    sq < -((__int128)1 << (w - 1)))
			return;
		uq = (unsigned __int128)sq;
		ur = (unsigned __int128)sr;
	}
	if (sz == 1) {
		reg_set(o, RP_REG_RAX, 1, 0, known((uint64_t)uq & 0xff));
		reg_set(o, RP_REG_RAX, 1, 8, known((uint64_t)ur & 0xff));
		return;
	}
	reg_set(o, RP_REG_RAX, sz, 0, known((uint64_t)uq & m));
	reg_set(o, RP_REG_RDX, sz, 0, known((uint64_t)ur & m));
}

/*
 * add/sub/and/or/xor into a register with an operand known only in part:
 * the result's bits the known ones fix (a sum's low bits below the first
 * unknown bit of either operand; and's zeros, or's ones).  Flags stay
 * unknown.  An index scaled into an address (shl, lea) keeps its low
 * bits known this way, which proves stores of unknown address away by
 * their alignment (rcv_alias.c).
 */
static void arith_partial(struct rcv_state *o, unsigned int id,
			  const struct rcv_op *d, unsigned int sz,
			  struct rcv_val a, struct rcv_val b)
{
	uint64_t m = wmask(sz), k, v;

	a.v &= a.k;
	b.v &= b.k;
	switch (id) {
	case X86_INS_ADD: case X86_INS_SUB:
		k = low_run(a.k) & low_run(b.k) & m;
		v = id == X86_INS_ADD ? a.v + b.v : a.v - b.v;
		break;
	case X86_INS_AND:
		k = ((a.k & b.k) | (a.k & ~a.v) | (b.k & ~b.v)) & m;
		v = a.v & b.v;
		break;
	case X86_INS_OR:
		k = ((a.k & b.k) | (a.k & a.v) | (b.k & b.v)) & m;
		v = a.v | b.v;
		break;
	case X86_INS_XOR:
		k = a.k & b.k & m;
		v = a.v ^ b.v;
		break;
	default:
		return;
	}
	if (k)
		reg_set(o, d->reg, sz, d->shift, (struct rcv_val){ v & k, k });
}

/*
 * cmpxchg [mem], r (SDM: TEMP <- DEST; if accumulator = TEMP, ZF <- 1 and
 * DEST <- SRC, else ZF <- 0, accumulator <- TEMP, DEST <- TEMP; the flags
 * as cmp accumulator, TEMP).  With the accumulator and the memory known:
 * the flags, and the accumulator.  It is not written when they are equal:
 * its low bytes stay (for 4 bytes, what the upper half of rax becomes is
 * not claimed); a failure loads eax zero-extended, as any 32-bit write.
 */
static void cmpxchg_fwd(const struct rcv_ctx *c, uint64_t i,
			const struct rcv_ins *in, const struct rcv_state *s,
			struct rcv_state *o)
{
	unsigned int sz = in->op[0].size;
	struct rcv_val acc, t;

	if (!rcv_cmpxchg_mem(in))
		return;
	acc = reg_get(s, RP_REG_RAX, sz, 0);
	t = rcv_op_get(c, i, in, &in->op[0], s, sz);
	if (!full(acc, sz) || !full(t, sz))
		return;
	set_flags(o, ARITH_FLAGS, flags_sub(acc.v, t.v, 0, sz));
	if (acc.v != t.v)
		reg_set(o, RP_REG_RAX, sz, 0, t);
	else
		learn(o, RP_REG_RAX, sz, 0, acc);
}

/* Forward: fills @o (already passed through) with what @in computes. */
static void emulate(const struct rcv_ctx *c, uint64_t i,
		    const struct rcv_ins *in, const struct rcv_state *s,
		    struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size, id = in->id;
	struct rcv_val a, b, fl = s->r[RCV_FLAGS];
	uint64_t r = 0, f;
	int cc;

	if (in->flags & (RCV_I_BARRIER | RCV_I_REP))
		return;
	switch (id) {
	case X86_INS_STC: case X86_INS_CLC:
		set_flags(o, F_CF, id == X86_INS_STC ? F_CF : 0);
		return;
	case X86_INS_CMC:
		if (fl.k & F_CF)
			set_flags(o, F_CF, ~fl.v & F_CF);
		return;
	case X86_INS_STD: case X86_INS_CLD:
		set_flags(o, F_DF, id == X86_INS_STD ? F_DF : 0);
		return;
	case X86_INS_MOV:
		if (in->nops != 2 || d->type != RCV_OP_REG)
			return;
		a = rcv_op_get(c, i, in, src, s, sz);
		reg_set(o, d->reg, sz, d->shift, a);
		return;
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (in->nops != 2 || d->type != RCV_OP_REG)
			return;
		a = rcv_op_get(c, i, in, src, s, src->size);
		if (id != X86_INS_MOVZX)
			a = sext(a, src->size);
		else
			a.k |= ~wmask(src->size);
		reg_set(o, d->reg, sz, d->shift, a);
		return;
	case X86_INS_LEA:
		if (in->nops != 2 || d->type != RCV_OP_REG || sz < 4)
			return;
		a = rcv_addr(c, in, src, s);
		if (src->seg)
			return;
		reg_set(o, d->reg, sz, 0, a);
		return;
	case X86_INS_CDQE:
		a = sext(reg_get(s, RP_REG_RAX, 4, 0), 4);
		reg_set(o, RP_REG_RAX, 8, 0, a);
		return;
	case X86_INS_CWDE:
		a = sext(reg_get(s, RP_REG_RAX, 2, 0), 2);
		reg_set(o, RP_REG_RAX, 4, 0, a);
		return;
	case X86_INS_CDQ:
	case X86_INS_CQO:
		sz = id == X86_INS_CDQ ? 4 : 8;
		a = reg_get(s, RP_REG_RAX, sz, 0);
		if (a.k >> (8 * sz - 1) & 1)
			reg_set(o, RP_REG_RDX, sz, 0,
				known(a.v >> (8 * sz - 1) & 1 ? ~0ull : 0));
		return;
	case X86_INS_PUSH:
	case X86_INS_CALL:
		a = s->r[RP_REG_RSP];
		if (a.k == ~0ull)
			o->r[RP_REG_RSP] = known(a.v - 8);
		return;
	case X86_INS_POP:
		a = s->r[RP_REG_RSP];
		if (d->type == RCV_OP_OTHER && a.k == ~0ull)	/* pop %fs */
			o->r[RP_REG_RSP] = known(a.v + 8);
		if (d->type != RCV_OP_REG || d->size != 8)
			return;
		if (a.k == ~0ull && d->reg != RP_REG_RSP)
			o->r[RP_REG_RSP] = known(a.v + 8);
		if (a.k == ~0ull && c->mem)
			reg_set(o, d->reg, 8, 0, c->mem(c->mctx, i, a.v, 8));
		return;
	case X86_INS_RET:
		a = s->r[RP_REG_RSP];
		if (a.k == ~0ull)
			o->r[RP_REG_RSP] = known(a.v + 8 +
				(in->nops == 1 ? (uint64_t)d->imm : 0));
		return;
	case X86_INS_LEAVE:
		a = s->r[RP_REG_RBP];
		if (a.k != ~0ull)
			return;
		o->r[RP_REG_RSP] = known(a.v + 8);
		if (c->mem)
			o->r[RP_REG_RBP] = c->mem(c->mctx, i, a.v, 8);
		return;
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_NOT:
		a = rcv_op_get(c, i, in, d, s, sz);
		if (!full(a, sz))
			return;
		if (id == X86_INS_NOT) {
			r = ~a.v & wmask(sz);
		} else if (id == X86_INS_NEG) {
			r = -a.v & wmask(sz);
			f = flags_sub(0, a.v, 0, sz);
			set_flags(o, ARITH_FLAGS, f);
		} else {
			r = (id == X86_INS_INC ? a.v + 1 : a.v - 1) & wmask(sz);
			f = id == X86_INS_INC ? flags_add(a.v, 1, 0, sz) :
						flags_sub(a.v, 1, 0, sz);
			set_flags(o, ARITH_FLAGS & ~F_CF, f);
		}
		if (d->type == RCV_OP_REG)
			reg_set(o, d->reg, sz, d->shift, known(r));
		return;
	case X86_INS_BSWAP:
		/* With a 16-bit operand the result is undefined (SDM
		 * Vol. 2A BSWAP): unknown.
		 */
		a = reg_get(s, d->reg, sz, 0);
		if (sz >= 4 && full(a, sz))
			reg_set(o, d->reg, sz, 0, known(rcv_bswap(a.v, sz)));
		return;
	case X86_INS_CMPXCHG:
		cmpxchg_fwd(c, i, in, s, o);
		return;
	case X86_INS_XCHG:
		if (in->nops == 2 && (d->type == RCV_OP_MEM) !=
		    (src->type == RCV_OP_MEM)) {
			/* xchg [mem], r (either order, locked): r gets
			 * what the memory held (rcv_rw.c: the memory what
			 * r held).
			 */
			const struct rcv_op *rg = d->type == RCV_OP_REG ? d :
						  src;

			if (rg->type != RCV_OP_REG)
				return;
			a = rcv_op_get(c, i, in, d->type == RCV_OP_MEM ? d : src,
				   s, rg->size);
			reg_set(o, rg->reg, rg->size, rg->shift, a);
			return;
		}
		if (in->nops != 2 || d->type != RCV_OP_REG ||
		    src->type != RCV_OP_REG)
			return;
		a = reg_get(s, d->reg, sz, d->shift);
		b = reg_get(s, src->reg, sz, src->shift);
		reg_set(o, src->reg, sz, src->shift, a);
		reg_set(o, d->reg, sz, d->shift, b);
		return;
	case X86_INS_SHL: case X86_INS_SHR: case X86_INS_SAR: {
		unsigned int n;

		a = rcv_op_get(c, i, in, d, s, sz);
		b = in->nops == 2 ? rcv_op_get(c, i, in, src, s, 1) : known(1);
		if (!full(b, 1))
			return;
		n = (unsigned int)b.v & (sz == 8 ? 63 : 31);
		if (!n)
			return;	/* flags pass as unknown: fine */
		if (!full(a, sz)) {
			uint64_t k;

			/* shl of a value known in part: its known bits
			 * move up, and the n bits shifted in are 0.
			 */
			if (id != X86_INS_SHL || d->type != RCV_OP_REG ||
			    n >= 8 * sz)
				return;
			k = ((a.k << n) | ((1ull << n) - 1)) & wmask(sz);
			reg_set(o, d->reg, sz, d->shift,
				(struct rcv_val){ (a.v << n) & k, k });
			return;
		}
		if (id == X86_INS_SHL)
			r = n >= 8 * sz ? 0 : a.v << n;
		else if (id == X86_INS_SHR)
			r = n >= 8 * sz ? 0 : a.v >> n;
		else
			r = (uint64_t)((int64_t)sext(a, sz).v >>
				       (n > 63 ? 63 : n));
		if (d->type == RCV_OP_REG)
			reg_set(o, d->reg, sz, d->shift,
				known(r & wmask(sz)));
		return;
	}
	case X86_INS_ROL: case X86_INS_ROR: {
		unsigned int n, w = 8 * sz;

		a = rcv_op_get(c, i, in, d, s, sz);
		b = in->nops == 2 ? rcv_op_get(c, i, in, src, s, 1) : known(1);
		if (!full(a, sz) || !full(b, 1) || d->type != RCV_OP_REG)
			return;
		n = ((unsigned int)b.v & (sz == 8 ? 63 : 31)) % w;
		if (!((unsigned int)b.v & (sz == 8 ? 63 : 31)))
			return;	/* a zero count: leave it unknown */
		r = a.v & wmask(sz);
		if (n)
			r = id == X86_INS_ROL ? r << n | r >> (w - n) :
						r >> n | r << (w - n);
		reg_set(o, d->reg, sz, d->shift, known(r & wmask(sz)));
		return;
	}
	case X86_INS_MUL:
	case X86_INS_DIV: case X86_INS_IDIV:
		emulate_muldiv(c, i, in, s, o);
		return;
	case X86_INS_IMUL:
		if (in->nops == 1) {
			emulate_muldiv(c, i, in, s, o);
			return;
		}
		if (in->nops < 2 || d->type != RCV_OP_REG)
			return;
		a = rcv_op_get(c, i, in, src, s, sz);
		b = in->nops == 3 ? rcv_op_get(c, i, in, &in->op[2], s, sz) :
				    rcv_op_get(c, i, in, d, s, sz);
		if (full(a, sz) && full(b, sz))
			reg_set(o, d->reg, sz, d->shift,
				known((a.v * b.v) & wmask(sz)));
		return;
	default:
		if (rcv_bits_forward(c, i, in, s, o))
			return;
		break;
	}
	cc = rcv_cond_of(id);
	if (cc >= 0 && in->iclass == RP_IC_OTHER) {
		int t = cond_eval(cc, fl);

		if (t < 0)
			return;
		if (id >= X86_INS_SETAE && id <= X86_INS_SETS &&
		    d->type == RCV_OP_REG) {
			reg_set(o, d->reg, 1, d->shift, known((uint64_t)t));
			return;
		}
		if (d->type != RCV_OP_REG || in->nops != 2)
			return;
		/* cmovcc: a 32-bit form zeroes the upper half either way. */
		a = t ? rcv_op_get(c, i, in, src, s, sz) :
			reg_get(s, d->reg, sz, 0);
		reg_set(o, d->reg, sz, 0, a);
		return;
	}
	if (!arith2(id) || in->nops != 2)
		return;
	a = rcv_op_get(c, i, in, d, s, sz);
	b = rcv_op_get(c, i, in, src, s, sz);
	if (src->type == RCV_OP_IMM)
		b = known((uint64_t)src->imm & wmask(sz));
	/* xor r, r and sub r, r: zero whatever r was. */
	if ((id == X86_INS_XOR || id == X86_INS_SUB) &&
	    d->type == RCV_OP_REG && src->type == RCV_OP_REG &&
	    d->reg == src->reg && d->shift == src->shift) {
		a = known(0);
		b = known(0);
	}
	if (!full(a, sz) || !full(b, sz)) {
		if (d->type == RCV_OP_REG && rcv_rmw_arith(id))
			arith_partial(o, id, d, sz, a, b);
		return;
	}
	switch (id) {
	case X86_INS_ADD:
		r = a.v + b.v;
		f = flags_add(a.v, b.v, 0, sz);
		break;
	case X86_INS_ADC:
	case X86_INS_SBB:
		if (!(fl.k & F_CF))
			return;
		r = id == X86_INS_ADC ? a.v + b.v + (fl.v & 1) :
					a.v - b.v - (fl.v & 1);
		f = id == X86_INS_ADC ? flags_add(a.v, b.v, fl.v & 1, sz) :
					flags_sub(a.v, b.v, fl.v & 1, sz);
		break;
	case X86_INS_SUB:
	case X86_INS_CMP:
		r = a.v - b.v;
		f = flags_sub(a.v, b.v, 0, sz);
		break;
	default:
		r = id == X86_INS_OR ? a.v | b.v :
		    id == X86_INS_XOR ? a.v ^ b.v : a.v & b.v;
		f = pf_zf_sf(r & wmask(sz), sz);
		/* CF and OF cleared, AF undefined. */
		set_flags(o, ARITH_FLAGS & ~F_AF, f);
		break;
	}
	if (id != X86_INS_OR && id != X86_INS_XOR && id != X86_INS_AND &&
	    id != X86_INS_TEST)
		set_flags(o, ARITH_FLAGS, f);
	if (!rcv_rmw_arith(id))
		return;
	if (d->type == RCV_OP_REG)
		reg_set(o, d->reg, sz, d->shift, known(r & wmask(sz)));
	else if (d->type == RCV_OP_MEM && c->wrote) {
		c->wrote(c->mctx, i, 0, known(a.v & wmask(sz)));
		c->wrote(c->mctx, i, 1, known(r & wmask(sz)));
	}
}

/*
 * add/sub/adc/sbb/inc/dec/neg/and/or/xor into a register with ZF set
 * after it (a conditional jump showed it): the result is 0 (the register
 * whole for a 32-bit one, which zeroes the upper half).
 */
static void zf_result(const struct rcv_ins *in, const struct rcv_state *post,
		      struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0];
	struct rcv_val f = post->r[RCV_FLAGS];

	if (!(f.k & F_ZF) || !(f.v & F_ZF) || !in->nops ||
	    d->type != RCV_OP_REG || (in->flags & RCV_I_BARRIER))
		return;
	switch (in->id) {
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
		if (in->nops != 1)
			return;
		break;
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_ADC:
	case X86_INS_SBB: case X86_INS_AND: case X86_INS_OR:
	case X86_INS_XOR:
		if (in->nops != 2)
			return;
		break;
	default:
		return;
	}
	if (d->size == 1 || d->size == 2 || d->size == 4 || d->size == 8)
		reg_set(o, d->reg, d->size, d->shift, known(0));
}

uint32_t rcv_forward_m(const struct rcv_ctx *c, uint64_t i,
		       const struct rcv_ins *in, const struct rcv_state *pre,
		       struct rcv_state *post, uint32_t m, uint64_t *conflicts)
{
	struct rcv_state o;
	uint32_t ch = 0;

	if (in->flags & RCV_I_BARRIER)
		return 0;
	rcv_pass(in, pre, &o);
	/* An instruction that completes clears RF (a fault's saved rflags,
	 * the end of a crash, has it set).
	 */
	o.r[RCV_FLAGS].k &= ~F_RF;
	o.r[RCV_FLAGS].v &= ~F_RF;
	if (in->fw != ~0ull)
		o.r[RCV_FLAGS].k |= F_RF;
	emulate(c, i, in, pre, &o);
	if ((m & RCV_IO_X) && rcv_sse_flow(post, pre, in->xw, conflicts))
		ch = RCV_IO_X;
	if (rcv_sse_forward(c, i, in, pre, &o, post, conflicts))
		ch = RCV_IO_X;
	if (rcv_sys_keeps_flags(in, pre)) {
		o.r[RCV_FLAGS].k = pre->r[RCV_FLAGS].k | F_RF;
		o.r[RCV_FLAGS].v = pre->r[RCV_FLAGS].v & ~F_RF;
		o.r[RP_REG_RCX] = known(in->ip + in->len);
		o.r[RP_REG_R11] = pre->r[RCV_FLAGS];
	}
	zf_result(in, post, &o);
	rcv_cmpxchg_zf(in, pre, post, &o);
	return rcv_merge_state(post, &o, m, conflicts) | ch;
}

bool rcv_forward(const struct rcv_ctx *c, uint64_t i,
		 const struct rcv_ins *in, const struct rcv_state *pre,
		 struct rcv_state *post, uint64_t *conflicts)
{
	return rcv_forward_m(c, i, in, pre, post, RCV_IO_ALL, conflicts) != 0;
}
