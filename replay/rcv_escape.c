// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * When does a thread's stack stop being its own (issue #17, "never a
 * wrong value"; docs/values.md, "Threads and the stack")?  In a process
 * with several threads, the engine takes a thread's stack as memory only
 * that thread writes, so what it stored there is what it reads back.
 * That holds until another thread learns an address in it: a local whose
 * address goes to pthread_create, into a global or a heap struct, or sits
 * in a register at clone (tests/values/holes.c stackflag, escape*).
 *
 * An escape analysis over the thread's own history, in order, that needs
 * no values (values need it): which registers and stack slots may hold a
 * value derived from the stack pointer.  A register is clean, a pointer
 * surely into the own stack (with its offset from the history's first rsp
 * when known), or maybe stack-derived.  Slots are 8-byte words by that
 * offset; a slot of unknown offset that may hold one makes every stack
 * load maybe stack-derived.  The first instruction that may make such a
 * value visible to another thread is the escape: a store of one to memory
 * not surely the own stack, a system call outside a short list with one
 * in an argument register, clone with one in any register, a write(2) of
 * a buffer that may hold one, anything not decoded.  Loads from memory not
 * the own stack give clean values: before the first escape, no other
 * thread holds such an address to put there (the analysis stops at it).
 * A pointer can also be rebuilt without a copy (tests/values/review5.c):
 * through the flags (bt; setc), so they carry a taint too; through the
 * ways branches take, so a branch on a stack-derived value is an escape;
 * through a table indexed by its bytes, so a load through a maybe-derived
 * address is maybe-derived (docs/values.md, "Pointers rebuilt without a
 * copy").  This file holds the per-instruction rules; the epochs, slots,
 * loads and stores they change are rcv_escmem.c's.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_esc.h"

bool rcv_xsave_like(unsigned int id)
{
	switch (id) {
	case X86_INS_XSAVE: case X86_INS_XSAVEC: case X86_INS_XSAVEOPT:
	case X86_INS_XSAVE64: case X86_INS_XSAVEC64:
	case X86_INS_XSAVEOPT64: case X86_INS_FXSAVE: case X86_INS_FXSAVE64:
		return true;
	default:
		return false;
	}
}

static bool xrstor_like(unsigned int id)
{
	switch (id) {
	case X86_INS_XRSTOR: case X86_INS_XRSTOR64: case X86_INS_FXRSTOR:
	case X86_INS_FXRSTOR64:
		return true;
	default:
		return false;
	}
}

static uint8_t join(uint8_t a, uint8_t b)
{
	return a || b ? MAYBE : CLEAN;
}

/* Does @id move a value without reading its destination? */
static bool pure_move(unsigned int id)
{
	switch (id) {
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX:
	case X86_INS_MOVSXD: case X86_INS_LEA: case X86_INS_MOVQ:
	case X86_INS_MOVD: case X86_INS_MOVUPS: case X86_INS_MOVAPS:
	case X86_INS_MOVDQU: case X86_INS_MOVDQA:
		return true;
	default:
		return false;
	}
}

static bool leave(struct rcv_esc *e)
{
	struct rcv_op o = { .type = RCV_OP_MEM, .base = RP_REG_RBP,
			    .index = -1 };
	uint32_t vep = 0;
	int64_t vd = 0;
	uint8_t v = rcv_esc_load_v(e, &o, 8, &vep, &vd);

	rcv_esc_set_reg(e, RP_REG_RSP, e->t[RP_REG_RBP], RP_REG_RBP,
		e->d[RP_REG_RBP] + 8);
	if (e->t[RP_REG_RSP] != STK)
		rcv_esc_set_reg(e, RP_REG_RSP, STK, -1, 0);
	rcv_esc_set_val(e, RP_REG_RBP, v, vep, vd);
	rcv_esc_slots_dead(e, 128);
	return false;
}

/* rsp moves by @delta (push, pop, call, ret). */
static void rsp_add(struct rcv_esc *e, int64_t delta)
{
	e->d[RP_REG_RSP] += delta;
}

static struct rcv_op rsp_slot(void)
{
	return (struct rcv_op){ .type = RCV_OP_MEM, .base = RP_REG_RSP,
				.index = -1 };
}

static bool push_pop(struct rcv_esc *e, const struct rcv_ins *in)
{
	const struct rcv_op *o = &in->op[0];
	struct rcv_op sl = rsp_slot();
	unsigned int sz = o->size ? o->size : 8;
	uint8_t v = CLEAN;

	uint32_t vep = 0;
	int64_t vd = 0;

	if (in->id == X86_INS_PUSH && o->type == RCV_OP_REG && sz == 8) {
		int g = o->reg;

		vep = e->ep[g];
		vd = e->d[g];
		v = e->t[g];
		rsp_add(e, -8);
		return rcv_esc_store_v(e, &sl, 8, v, vep, vd);
	}
	if (in->id == X86_INS_PUSH || in->id == X86_INS_PUSHFQ) {
		if (in->id == X86_INS_PUSH && o->type == RCV_OP_REG)
			v = e->t[o->reg] ? MAYBE : CLEAN;
		else if (in->id == X86_INS_PUSH && o->type == RCV_OP_MEM)
			v = rcv_esc_load(e, o, sz);
		if (in->id == X86_INS_PUSHFQ) {
			sz = 8;
			v = join(e->ft, e->dft);
		}
		rsp_add(e, -(int64_t)sz);
		return rcv_esc_store(e, &sl, sz, v);
	}
	/* pop, popfq */
	if (in->id == X86_INS_POPFQ)
		sz = 8;
	v = rcv_esc_load_v(e, &sl, sz, &vep, &vd);
	rsp_add(e, (int64_t)sz);
	if (in->id == X86_INS_POPFQ)
		e->ft = e->dft = v ? MAYBE : CLEAN;
	if (in->id == X86_INS_POP && o->type == RCV_OP_REG) {
		rcv_esc_set_val(e, o->reg, v, vep, vd);
	} else if (in->id == X86_INS_POP && o->type == RCV_OP_MEM) {
		return rcv_esc_store_v(e, o, sz, v, vep, vd);
	}
	rcv_esc_slots_dead(e, 128);
	return false;
}

/*
 * Own-stack pointer register @b plus a clean index (lea, add): an epoch of
 * its own, unrelated (UINT32_MAX), but in rcv_callee.c's local mode when
 * @b lies at or under the bottom of an allocation (sub rsp, n: a VLA,
 * alloca): then the result points into an object that lies wholly under
 * the allocation's top, or just past its end (C's rule for pointer
 * arithmetic; the engine does not know the object's size), so accesses
 * through it end at that top (rcv_esc_overlap()).
 */
static uint32_t bounded(struct rcv_esc *e, int b)
{
	const struct rcv_esc_ep *x = &e->eps[e->ep[b]];
	int64_t top = x->hi, tupd = x->upd;
	uint32_t root = x->root, tup = x->up;
	size_t had = e->nep;
	uint32_t n;

	if (!e->local || !x->alloc || e->d[b] > 0)
		return rcv_esc_ep_new(e, UINT32_MAX, 0, 0);
	n = rcv_esc_ep_new(e, root, INT64_MIN / 4, top);
	if (e->nep == had + 1) {
		e->eps[n].lim = top;
		e->eps[n].tup = tup;
		e->eps[n].tupd = tupd;
		/* From the bottom itself: not under it either. */
		e->eps[n].bot = e->d[b] ? UINT32_MAX : e->ep[b];
	}
	return n;
}

/* Register destination @g of a general instruction, taint @v. */
static void arith(struct rcv_esc *e, const struct rcv_ins *in, int g,
		  uint8_t v)
{
	const struct rcv_op *s = in->nops > 1 ? &in->op[1] : NULL;
	uint8_t old = e->t[g];

	/* mov al, 5 keeps the other 56 bits (a 32-bit write clears them). */
	if (in->wcode[g] && in->wcode[g] != 4)
		v = join(v, old);
	if (in->op[0].size != 8 && g == RP_REG_RSP) {
		rcv_esc_set_reg(e, g, v ? MAYBE : CLEAN, -1, 0);
		return;
	}
	switch (in->id) {
	case X86_INS_ADD: case X86_INS_SUB:
		if (!s || in->op[0].size != 8)
			break;
		if (s->type == RCV_OP_IMM && old == CLEAN &&
		    (e->kk >> g & 1)) {
			rcv_esc_obj_set(e, g, e->kep[g], e->kd[g] +
				(in->id == X86_INS_ADD ? s->imm : -s->imm));
			return;
		}
		if (s->type == RCV_OP_IMM && old == STK) {
			int64_t by = in->id == X86_INS_ADD ? s->imm : -s->imm;

			if (by &&
			    rcv_esc_obj_ptr(e, g, e->ep[g], e->d[g] + by)) {
				rcv_esc_obj_set(e, g, e->ep[g], e->d[g] + by);
				return;
			}
			rcv_esc_set_reg(e, g, STK, g, e->d[g] + by);
			if (g == RP_REG_RSP && by > 0)
				rcv_esc_slots_dead(e, 128);
			return;
		}
		if (s->type == RCV_OP_REG && s->reg == g &&
		    in->id == X86_INS_SUB) {
			rcv_esc_set_reg(e, g, CLEAN, -1, 0);
			return;
		}
		/* A stack pointer plus or minus a clean offset (sub rsp,
		 * [mem]: _dl_runtime_resolve's xsave area).
		 */
		if (old == STK && ((s->type == RCV_OP_REG &&
				    e->t[s->reg] == CLEAN) ||
				   (s->type == RCV_OP_MEM &&
				    rcv_esc_load(e, s, 8) == CLEAN))) {
			/* sub rsp, n allocates (n >= 0: an assumption,
			 * docs/values.md): anywhere under where rsp was.
			 */
			if (g == RP_REG_RSP && in->id == X86_INS_SUB) {
				size_t had = e->nep;
				uint32_t n = rcv_esc_ep_new(e,
					e->eps[e->ep[g]].root, INT64_MIN / 4,
					e->eps[e->ep[g]].hi + e->d[g]);

				/* (Not when out of memory: n is old.) */
				if (e->nep == had + 1) {
					e->eps[n].alloc = true;
					e->eps[n].up = e->ep[g];
					e->eps[n].upd = e->d[g];
					e->eps[n].tup = e->ep[g];
					e->eps[n].tupd = e->d[g];
				}
				rcv_esc_set_val(e, g, STK, n, 0);
			} else if (in->id == X86_INS_ADD &&
				   s->type == RCV_OP_REG) {
				rcv_esc_set_val(e, g, STK, bounded(e, g), 0);
			} else {
				rcv_esc_set_reg(e, g, STK, -1, 0);
			}
			return;
		}
		if (s->type == RCV_OP_REG && in->id == X86_INS_ADD &&
		    old == CLEAN && e->t[s->reg] == STK) {
			rcv_esc_set_reg(e, g, STK, -1, 0);
			return;
		}
		break;
	case X86_INS_AND:
		/* Alignment: and rsp, -16. */
		if (s && s->type == RCV_OP_IMM && old == STK &&
		    in->op[0].size == 8 && s->imm < 0 && s->imm > -65536) {
			const struct rcv_esc_ep *p = &e->eps[e->ep[g]];

			/* At most -imm - 1 under where it pointed. */
			size_t had = e->nep;
			uint32_t n = rcv_esc_ep_new(e, p->root,
					    p->lo + e->d[g] + s->imm + 1,
					    p->hi + e->d[g]);

			if (e->nep == had + 1) {
				e->eps[n].up = e->ep[g];
				e->eps[n].upd = e->d[g];
			}
			rcv_esc_set_val(e, g, STK, n, 0);
			return;
		}
		break;
	case X86_INS_XOR:
		if (s && s->type == RCV_OP_REG && s->reg == g) {
			rcv_esc_set_reg(e, g, CLEAN, -1, 0);
			return;
		}
		break;
	default:
		break;
	}
	rcv_esc_set_reg(e, g, v, -1, 0);
}

/*
 * Does @in read the arithmetic flags: capstone's table, and by name those
 * it may not list (a bit of a pointer moved into CF by bt, then into a
 * register by setc, cmovc, sbb or adc: tests/values/review5.c lsetc,
 * lsbb, lcmov)?
 */
static bool reads_flags(const struct rcv_ins *in)
{
	if (in->fr & ARITH_FLAGS)
		return true;
	switch (in->id) {
	case X86_INS_ADC: case X86_INS_SBB: case X86_INS_RCL:
	case X86_INS_RCR: case X86_INS_PUSHF: case X86_INS_PUSHFQ:
	case X86_INS_LAHF: case X86_INS_ADCX: case X86_INS_ADOX:
	case X86_INS_CMC: case X86_INS_SALC: case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
		return true;
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
	case X86_INS_LOOP:
		return false;
	default:
		return rcv_cond_of(in->id) >= 0 || rcv_cond_jump(in->id);
	}
}

/* Does @in read DF (string instructions)? */
static bool reads_df(const struct rcv_ins *in)
{
	bool src, dread, dst;

	return (in->fr & F_DF) || in->id == X86_INS_PUSHF ||
	       in->id == X86_INS_PUSHFQ || rcv_str_op(in, &src, &dread, &dst);
}

/* Is operand @o surely a whole own-stack pointer? */
static bool stk_op(const struct rcv_esc *e, const struct rcv_op *o)
{
	uint32_t vep;
	int64_t vd;

	if (o->size != 8)
		return false;
	if (o->type == RCV_OP_REG)
		return o->reg >= 0 && o->reg < 16 && e->t[o->reg] == STK;
	return o->type == RCV_OP_MEM &&
	       rcv_esc_load_v(e, o, 8, &vep, &vd) == STK;
}

/* Is operand @o surely a whole own-stack pointer, or WHOLE? */
static bool whole_op(const struct rcv_esc *e, const struct rcv_op *o)
{
	uint32_t vep;
	int64_t vd;
	uint8_t v;

	if (o->size != 8)
		return false;
	if (o->type == RCV_OP_REG)
		return o->reg >= 0 && o->reg < 16 &&
		       (e->t[o->reg] == STK || e->t[o->reg] == WHOLE);
	if (o->type != RCV_OP_MEM)
		return false;
	v = rcv_esc_load_v(e, o, 8, &vep, &vd);
	return v == STK || v == WHOLE;
}

/*
 * The taint of the arithmetic flags @in computes from inputs of taint @v.
 * Clean where they do not depend on where the stack lies: the difference
 * of two own-stack pointers (both the stack's place plus clean offsets;
 * or an alignment of it, and r, -N: at most its low 16 bits show),
 * an own-stack pointer tested for zero or sign (never zero, never
 * negative: a user-space address), a zeroing idiom.
 */
static uint8_t flags_of(const struct rcv_esc *e, const struct rcv_ins *in,
			uint8_t v)
{
	const struct rcv_op *a = &in->op[0], *b = &in->op[1];
	bool same;

	if (!v || in->nops != 2)
		return v;
	same = a->type == RCV_OP_REG && b->type == RCV_OP_REG &&
	       a->reg == b->reg && a->shift == b->shift && a->size == b->size;
	if ((in->id == X86_INS_XOR || in->id == X86_INS_SUB) && same)
		return CLEAN;
	if ((in->id == X86_INS_CMP || in->id == X86_INS_SUB) &&
	    stk_op(e, a) && stk_op(e, b))
		return CLEAN;
	if ((in->id == X86_INS_TEST || in->id == X86_INS_AND ||
	     in->id == X86_INS_OR) && same && whole_op(e, a))
		return CLEAN;
	if (in->id == X86_INS_CMP && b->type == RCV_OP_IMM && !b->imm &&
	    whole_op(e, a))
		return CLEAN;
	return v;
}

/* @in, whose inputs have taint @v, writes its flags. */
static void flags_set(struct rcv_esc *e, const struct rcv_ins *in,
		      uint8_t v)
{
	uint8_t f;

	/* iret: rflags from the frame on the stack. */
	if (in->id == X86_INS_IRET || in->id == X86_INS_IRETD ||
	    in->id == X86_INS_IRETQ) {
		e->ft = e->dft = MAYBE;
		return;
	}
	/* Every flag, as far as the decoder knows (cli, sti: IF alone
	 * maybe): the arithmetic ones may keep what they held.
	 */
	if (in->fw == ~0ull) {
		e->ft = join(e->ft, v);
		e->dft = join(e->dft, v);
		return;
	}
	if (in->fw & ARITH_FLAGS) {
		f = flags_of(e, in, v);
		/* Some of them only (bt: CF; inc: all but CF): the others
		 * keep what they held.
		 */
		e->ft = (in->fw & ARITH_FLAGS) == ARITH_FLAGS ? f :
			join(e->ft, f);
	}
	if (in->fw & F_DF)
		e->dft = in->id == X86_INS_CLD || in->id == X86_INS_STD ?
			 CLEAN : join(e->dft, v);
}

/*
 * A branch whose way depends on a stack-derived value: what follows may
 * rebuild the pointer from the ways taken (bit by bit, `test; jz`:
 * tests/values/review5.c lbranch), so it counts as the escape.  Not
 * the flags of a comparison of two own-stack pointers (flags_of()).
 */
static bool branch_tainted(struct rcv_esc *e, const struct rcv_ins *in)
{
	struct rcv_op sl = rsp_slot();
	const struct rcv_op *o = &in->op[0];

	if (rcv_cond_jump(in->id))
		return (reads_flags(in) && e->ft) ||
		       (in->id == X86_INS_JRCXZ || in->id == X86_INS_JECXZ ||
			in->id == X86_INS_JCXZ || in->id == X86_INS_LOOP ||
			in->id == X86_INS_LOOPE || in->id == X86_INS_LOOPNE ?
			e->t[RP_REG_RCX] != CLEAN : false);
	if (in->id == X86_INS_RET)
		return rcv_esc_load(e, &sl, 8) != CLEAN;
	if ((in->id != X86_INS_JMP && in->id != X86_INS_CALL) || !in->nops)
		return false;
	if (o->type == RCV_OP_REG)
		return o->reg < 0 || o->reg >= 16 || e->t[o->reg] != CLEAN;
	return o->type == RCV_OP_MEM && rcv_esc_load(e, o, 8) != CLEAN;
}

/*
 * cmov of 8 bytes with clean flags between values each clean, a whole
 * own-stack pointer or WHOLE: WHOLE (or clean).
 */
static bool cmov_whole(const struct rcv_esc *e, const struct rcv_ins *in)
{
	const struct rcv_op *a = &in->op[0], *b = &in->op[1];
	uint32_t vep;
	int64_t vd;

	if (rcv_cond_of(in->id) < 0 || rcv_cond_jump(in->id) ||
	    in->nops != 2 || e->ft || a->type != RCV_OP_REG || a->size != 8 ||
	    a->reg < 0 || a->reg >= 16 || b->size != 8 ||
	    (e->t[a->reg] == MAYBE))
		return false;
	if (b->type == RCV_OP_REG)
		return b->reg >= 0 && b->reg < 16 && e->t[b->reg] != MAYBE;
	return b->type == RCV_OP_MEM &&
	       rcv_esc_load_v(e, b, 8, &vep, &vd) != MAYBE;
}

/* The general case: every destination gets what every source may hold. */
/*
 * The general-purpose registers @in's operands name: as registers
 * (*@rn), in memory operands' addresses (*@an).
 */
static void ops_named(const struct rcv_ins *in, uint16_t *rn, uint16_t *an)
{
	const struct rcv_op *o;
	int k;

	*rn = *an = 0;
	for (k = 0; k < in->nops; k++) {
		o = &in->op[k];
		if (o->type == RCV_OP_REG && o->reg >= 0 && o->reg < 16) {
			*rn |= (uint16_t)(1u << o->reg);
		} else if (o->type == RCV_OP_MEM) {
			if (o->base >= 0 && o->base < 16)
				*an |= (uint16_t)(1u << o->base);
			if (o->index >= 0 && o->index < 16)
				*an |= (uint16_t)(1u << o->index);
		}
	}
}

static bool general(struct rcv_esc *e, const struct rcv_ins *in)
{
	uint8_t v = CLEAN;
	bool esc = false, dst_reg[16] = { false };
	uint32_t aep = 0;
	int64_t ad = 0;
	uint16_t rn, an;
	unsigned int m;
	bool at;
	int k, g;

	/* The vector state saved (the resolver's xsavec 0x40(%rsp)): a
	 * stack address in it lands at an offset not followed; restored:
	 * what the area may hold.
	 */
	if (rcv_xsave_like(in->id) && e->vec)
		e->dirty = true;
	/* And written into the image wherever it lies: a global's is the
	 * escape (tests/values/review7.c lfxsave, lxsave, lfxsavexmm).
	 */
	if (rcv_xsave_like(in->id))
		v = join(v, e->vec);
	if (xrstor_like(in->id) && in->nops &&
	    (rcv_esc_at(e, &in->op[0], &aep, &ad, &at) != 2 ||
	     rcv_esc_area_tainted(e, aep, ad)))
		e->vec = true;

	for (k = 0; k < in->nops; k++) {
		const struct rcv_op *o = &in->op[k];
		bool rd = (o->access & CS_AC_READ) ||
			  ((o->access & CS_AC_WRITE) && !pure_move(in->id));

		if (!rd)
			continue;
		if (o->type == RCV_OP_REG)
			v = join(v, e->t[o->reg]);
		else if (o->type == RCV_OP_MEM && in->id != X86_INS_LEA &&
			 in->id != X86_INS_NOP)
			v = join(v, rcv_esc_load(e, o, o->size ? o->size : 8));
		else if (o->type == RCV_OP_OTHER || o->type == RCV_OP_XMM)
			v = join(v, e->vec);
	}
	/* Registers read but not named (cqo's rax, sahf's ah): capstone's
	 * list, less the operands' and the addresses' registers (as masks:
	 * a test of each of 16 against each operand was a fifth of a
	 * threaded program's values).
	 */
	ops_named(in, &rn, &an);
	for (m = in->gr & ~(rn | an) & ~(1u << RP_REG_RSP); m; m &= m - 1)
		v = join(v, e->t[__builtin_ctz(m)]);
	if (reads_flags(in))
		v = join(v, e->ft);
	if (reads_df(in))
		v = join(v, e->dft);
	/* Registers written but not named (mul's rdx:rax, cmpxchg's rax,
	 * rep movs's rsi/rdi/rcx) may carry any of what they held.
	 */
	for (m = rcv_wregs(in) & ~rn & ~(1u << RP_REG_RSP); m; m &= m - 1)
		v = join(v, e->t[__builtin_ctz(m)]);
	flags_set(e, in, v);
	/* An 8-byte mov keeps what it moves: an own-stack pointer stays
	 * one through a slot.
	 */
	if (in->id == X86_INS_MOV && in->nops == 2 && in->op[0].size == 8 &&
	    in->op[1].type == RCV_OP_MEM && in->op[0].type == RCV_OP_REG)
		v = rcv_esc_load(e, &in->op[1], 8);
	else if (in->id == X86_INS_MOV && in->nops == 2 &&
		 in->op[0].size == 8 && in->op[1].type == RCV_OP_REG)
		v = e->t[in->op[1].reg];
	if (in->id == X86_INS_MOV && in->nops == 2 && in->op[0].size == 8 &&
	    in->op[1].type == RCV_OP_MEM && in->op[0].type == RCV_OP_REG) {
		uint32_t vep = 0;
		int64_t vd = 0;

		g = in->op[0].reg;
		v = rcv_esc_load_v(e, &in->op[1], 8, &vep, &vd);
		rcv_esc_set_val(e, g, v, vep, vd);
		dst_reg[g] = true;
	} else if (in->id == X86_INS_MOV && in->nops == 2 &&
		   in->op[0].type == RCV_OP_MEM &&
		   in->op[1].type == RCV_OP_REG && in->op[1].size == 8) {
		return rcv_esc_store_reg(e, &in->op[0], in->op[1].reg);
	} else if (in->id == X86_INS_MOV && in->nops == 2 &&
	    in->op[0].type == RCV_OP_REG && in->op[1].type == RCV_OP_REG &&
	    in->op[0].size == 8) {
		int src = in->op[1].reg;

		g = in->op[0].reg;
		if (e->kk >> src & 1)
			rcv_esc_obj_set(e, g, e->kep[src], e->kd[src]);
		else
			rcv_esc_set_reg(e, g, e->t[src], src, e->d[src]);
		dst_reg[g] = true;
	} else if (cmov_whole(e, in)) {
		g = in->op[0].reg;
		rcv_esc_set_reg(e, g, e->t[g] || whole_op(e, &in->op[1]) ?
				WHOLE : CLEAN, -1, 0);
		dst_reg[g] = true;
	} else if (in->id == X86_INS_LEA && in->nops == 2 &&
		   in->op[0].type == RCV_OP_REG) {
		int64_t d = 0;
		bool t;
		uint32_t ep = 0;
		int w = rcv_esc_at(e, &in->op[1], &ep, &d, &t);

		g = in->op[0].reg;
		if (in->op[0].size != 8)
			rcv_esc_set_reg(e, g, t ? MAYBE : CLEAN, -1, 0);
		else if (w == 1 && in->op[1].base >= 0 &&
			 in->op[1].base < 16 &&
			 e->t[in->op[1].base] == STK)
			rcv_esc_set_val(e, g, STK,
					bounded(e, in->op[1].base), 0);
		else if (w == 2 && in->op[1].imm &&
			 rcv_esc_obj_ptr(e, g, e->ep[in->op[1].base], d))
			rcv_esc_obj_set(e, g, e->ep[in->op[1].base], d);
		else if (!w && rcv_esc_obj_at(e, &in->op[1], &ep, &d))
			rcv_esc_obj_set(e, g, ep, d);
		else
			rcv_esc_set_reg(e, g, w ? STK : t ? MAYBE : CLEAN,
				w == 2 ? in->op[1].base : -1, d);
		dst_reg[g] = true;
	}
	for (k = 0; k < in->nops; k++) {
		const struct rcv_op *o = &in->op[k];

		if (!(o->access & CS_AC_WRITE))
			continue;
		if (o->type == RCV_OP_REG && !dst_reg[o->reg]) {
			arith(e, in, o->reg, v);
			dst_reg[o->reg] = true;
		} else if (o->type == RCV_OP_MEM) {
			esc |= rcv_esc_store(e, o, o->size, v);
		} else if ((o->type == RCV_OP_OTHER ||
			    o->type == RCV_OP_XMM) && v) {
			e->vec = true;
		}
	}
	for (m = rcv_wregs(in); m; m &= m - 1) {
		g = __builtin_ctz(m);
		if (!dst_reg[g])
			rcv_esc_set_reg(e, g, g == RP_REG_RSP ? STK :
					in->wcode[g] == 4 ? v :
					join(v, e->t[g]), -1, 0);
	}
	return esc;
}

/*
 * The x87 state (its stack, control, status and tag words; the MMX
 * registers alias it) is one taint, e->vec's, shared with the vector
 * registers: a pointer loaded into it comes back out whole (fild/fistp,
 * fld/fstp of its bits as a double: tests/values/review6.c lx87, lfld).
 * Its registers are not operands capstone names (fld's st0), so the
 * general rule misses them.  Stores of it: the store, fnstsw, fnstcw, the
 * environment and the whole state (the others' memory operand is read).
 */
static bool x87_store(unsigned int id)
{
	switch (id) {
	case X86_INS_FST: case X86_INS_FSTP: case X86_INS_FSTPNCE:
	case X86_INS_FIST: case X86_INS_FISTP: case X86_INS_FISTTP:
	case X86_INS_FBSTP: case X86_INS_FNSTCW: case X86_INS_FNSTSW:
	case X86_INS_FNSTENV: case X86_INS_FNSAVE:
		return true;
	default:
		return false;
	}
}

static bool x87(unsigned int id)
{
	switch (id) {
	case X86_INS_FABS: case X86_INS_FADD: case X86_INS_FIADD:
	case X86_INS_FADDP: case X86_INS_FCHS: case X86_INS_FCMOVBE:
	case X86_INS_FCMOVB: case X86_INS_FCMOVE: case X86_INS_FCMOVNBE:
	case X86_INS_FCMOVNB: case X86_INS_FCMOVNE: case X86_INS_FCMOVNU:
	case X86_INS_FCMOVU: case X86_INS_FCOMP: case X86_INS_FCOMIP:
	case X86_INS_FCOMI: case X86_INS_FCOM: case X86_INS_FCOS:
	case X86_INS_FDIVR: case X86_INS_FIDIVR: case X86_INS_FDIVRP:
	case X86_INS_FDIV: case X86_INS_FIDIV: case X86_INS_FDIVP:
	case X86_INS_F2XM1: case X86_INS_FBLD: case X86_INS_FCOMPP:
	case X86_INS_FDECSTP: case X86_INS_FFREE: case X86_INS_FICOM:
	case X86_INS_FICOMP: case X86_INS_FINCSTP: case X86_INS_FLDCW:
	case X86_INS_FLDENV: case X86_INS_FLDL2E: case X86_INS_FLDL2T:
	case X86_INS_FLDLG2: case X86_INS_FLDLN2: case X86_INS_FLDPI:
	case X86_INS_FNCLEX: case X86_INS_FNINIT: case X86_INS_FNOP:
	case X86_INS_FPATAN: case X86_INS_FPREM: case X86_INS_FPREM1:
	case X86_INS_FPTAN: case X86_INS_FFREEP: case X86_INS_FRNDINT:
	case X86_INS_FRSTOR: case X86_INS_FSCALE: case X86_INS_FSETPM:
	case X86_INS_FSINCOS: case X86_INS_FXAM: case X86_INS_FXTRACT:
	case X86_INS_FYL2X: case X86_INS_FYL2XP1: case X86_INS_FILD:
	case X86_INS_FLDZ: case X86_INS_FLD1: case X86_INS_FLD:
	case X86_INS_FMUL: case X86_INS_FIMUL: case X86_INS_FMULP:
	case X86_INS_FSIN: case X86_INS_FSQRT: case X86_INS_FXCH:
	case X86_INS_FSUBR: case X86_INS_FISUBR: case X86_INS_FSUBRP:
	case X86_INS_FSUB: case X86_INS_FISUB: case X86_INS_FSUBP:
	case X86_INS_FTST: case X86_INS_FUCOMIP: case X86_INS_FUCOMI:
	case X86_INS_FUCOMPP: case X86_INS_FUCOMP: case X86_INS_FUCOM:
	case X86_INS_FDISI8087_NOP: case X86_INS_FENI8087_NOP:
		return true;
	default:
		return x87_store(id);
	}
}

/* The bytes an x87 memory operand covers (capstone's size, or none). */
static unsigned int x87_size(unsigned int id, const struct rcv_op *o)
{
	switch (id) {
	case X86_INS_FNSAVE: case X86_INS_FRSTOR:
		return 108;
	case X86_INS_FNSTENV: case X86_INS_FLDENV:
		return 28;
	case X86_INS_FNSTCW: case X86_INS_FLDCW: case X86_INS_FNSTSW:
		return 2;
	default:
		return o->size ? o->size : 10;
	}
}

/*
 * An x87 instruction: what it reads (the state, a memory operand but a
 * store's, the flags for fcmov) goes to the state and to what it writes
 * (a store's memory, fnstsw's ax, fcomi's flags).
 */
static bool x87_step(struct rcv_esc *e, const struct rcv_ins *in)
{
	bool st = x87_store(in->id), esc = false;
	uint8_t v = e->vec ? MAYBE : CLEAN;
	int k, g;

	if (reads_flags(in))
		v = join(v, e->ft);
	for (k = 0; k < in->nops; k++) {
		const struct rcv_op *o = &in->op[k];

		if (o->type == RCV_OP_MEM && !st)
			v = join(v, rcv_esc_load(e, o, x87_size(in->id, o)));
		else if (o->type == RCV_OP_REG && (o->access & CS_AC_READ))
			v = join(v, e->t[o->reg]);
	}
	for (k = 0; k < in->nops; k++) {
		const struct rcv_op *o = &in->op[k];

		if (o->type == RCV_OP_MEM && st)
			esc |= rcv_esc_store(e, o, x87_size(in->id, o), v);
	}
	flags_set(e, in, v);
	/* fnstsw ax: the rest of rax keeps what it held. */
	for (g = 0; g < 16; g++)
		if (in->wcode[g] && g != RP_REG_RSP)
			rcv_esc_set_reg(e, g, in->wcode[g] == 4 ? v :
					join(v, e->t[g]), -1, 0);
	if (v)
		e->vec = true;
	return esc;
}

/*
 * State the vector taint stands for that capstone names no register of:
 * a mask move's implicit store of a vector register at [rdi]
 * (maskmovq, maskmovdqu: review7.c lmaskmovq, lmaskmovdqu), MXCSR loaded
 * from and stored to memory (ldmxcsr, stmxcsr: lmxcsr; capstone gives
 * stmxcsr's operand as read).  True when it is an escape; false with
 * *@done false: not one of them.
 */
static bool vec_implicit(struct rcv_esc *e, const struct rcv_ins *in,
			 bool *done)
{
	struct rcv_op o = { .type = RCV_OP_MEM, .base = RP_REG_RDI,
			    .index = -1 };

	*done = true;
	switch (in->id) {
	case X86_INS_MASKMOVQ: case X86_INS_MASKMOVDQU:
	case X86_INS_VMASKMOVDQU:
		o.size = in->id == X86_INS_MASKMOVQ ? 8 : 16;
		return rcv_esc_store(e, &o, o.size, e->vec ||
				     e->t[RP_REG_RDI] == MAYBE ? MAYBE : CLEAN);
	case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
		if (in->nops && in->op[0].type == RCV_OP_MEM &&
		    rcv_esc_load(e, &in->op[0], 4))
			e->vec = true;
		else if (!in->nops || in->op[0].type != RCV_OP_MEM)
			e->vec = true;
		return false;
	case X86_INS_STMXCSR: case X86_INS_VSTMXCSR:
		if (!in->nops || in->op[0].type != RCV_OP_MEM)
			return true;
		return rcv_esc_store(e, &in->op[0], 4, e->vec);
	default:
		*done = false;
		return false;
	}
}

/* Keeps rsi's value when an instruction sets it to a constant. */
static void track_rsi(struct rcv_esc *e, const struct rcv_ins *in)
{
	if (!in->wcode[RP_REG_RSI])
		return;
	e->rsi_k = in->id == X86_INS_MOV && in->nops == 2 &&
		   in->op[0].type == RCV_OP_REG &&
		   in->op[0].reg == RP_REG_RSI && in->op[0].size >= 4 &&
		   in->op[1].type == RCV_OP_IMM;
	if (e->rsi_k)
		e->rsi = (uint64_t)in->op[1].imm &
			 (in->op[0].size == 4 ? 0xffffffffull : ~0ull);
}

/* Keeps rax's value when an instruction sets it to a constant. */
static void track_rax(struct rcv_esc *e, const struct rcv_ins *in)
{
	if (!in->wcode[RP_REG_RAX])
		return;
	e->rax_k = false;
	if (in->id == X86_INS_MOV && in->nops == 2 &&
	    in->op[0].type == RCV_OP_REG && in->op[0].reg == RP_REG_RAX &&
	    in->op[0].size >= 4 && in->op[1].type == RCV_OP_IMM) {
		e->rax_k = true;
		e->rax = (uint64_t)in->op[1].imm &
			 (in->op[0].size == 4 ? 0xffffffffull : ~0ull);
	} else if (in->id == X86_INS_XOR && in->nops == 2 &&
		   in->op[0].type == RCV_OP_REG &&
		   in->op[1].type == RCV_OP_REG &&
		   in->op[0].reg == RP_REG_RAX && in->op[1].reg == RP_REG_RAX &&
		   in->op[0].size >= 4) {
		e->rax_k = true;
		e->rax = 0;
	}
}

/*
 * Entered asynchronously (a signal handler, or a gap: anything may have
 * run): the kernel's frame on the stack holds every register, rsp's
 * offset is lost, every register may be stack-derived.
 */
void rcv_esc_async(struct rcv_esc *e)
{
	int g;

	for (g = 0; g < 16; g++)
		rcv_esc_set_reg(e, g, MAYBE, -1, 0);
	rcv_esc_set_reg(e, RP_REG_RSP, STK, -1, 0);
	e->vec = true;
	e->dirty = true;
	e->rax_k = false;
	e->rsi_k = false;
	e->ft = e->dft = MAYBE;
}

/*
 * An instruction capstone does not decode.  glibc's string functions use
 * AVX-512 (EVEX) and mask moves: their data is in vector and mask
 * registers (a general-purpose register only as an address, or as the
 * destination rcv_decode.c names), so a store of theirs escapes only
 * when a vector register may hold a stack-derived value, and a load
 * makes one hold it when a stack slot may.  Anything else escapes.
 */
static bool undecoded(struct rcv_esc *e, const struct rcv_ins *in,
		      uint8_t raw0)
{
	int g;

	/* Not a barrier: rcv_decode.c's vector_only() decoded it (VEX or
	 * EVEX, vector and mask operands, a general-purpose destination at
	 * most), whatever @raw0 says (rcv_callee.c passes none).
	 */
	if (raw0 != 0x62 && raw0 != 0xc4 && raw0 != 0xc5 &&
	    (in->flags & RCV_I_BARRIER))
		return true;
	if (in->flags & RCV_I_BARRIER) {
		/* A memory operand, load or store. */
		if (e->vec)
			return true;
		e->vec = rcv_esc_any_slot(e);
		return false;
	}
	for (g = 0; g < 16; g++)
		if (in->wcode[g])
			rcv_esc_set_reg(e, g, e->vec ? MAYBE : CLEAN, -1, 0);
	return false;
}

bool rcv_esc_step(struct rcv_esc *e, const struct rcv_ins *in, uint8_t raw0)
{
	bool esc = false, ppush = false;

	if (e->escaped)
		return true;
	if (e->obj && !e->pdone)
		ppush = rcv_esc_prologue(e, in);
	if (in->flags & RCV_I_BAD) {
		e->escaped = undecoded(e, in, raw0);
		e->rax_k = e->rax_k && !in->wcode[RP_REG_RAX];
		e->rsi_k = e->rsi_k && !in->wcode[RP_REG_RSI];
		/* Vector compares (kortest, ptest) set flags from vectors. */
		if (in->fw & (ARITH_FLAGS | F_DF))
			e->ft = e->dft = join(join(e->ft, e->dft), e->vec);
		return e->escaped;
	}
	if (branch_tainted(e, in)) {
		e->escaped = true;
		return true;
	}
	switch (in->id) {
	case X86_INS_SYSCALL: {
		/* r11 gets rflags */
		uint8_t fl = join(e->ft, e->dft);

		esc = rcv_esc_syscall(e);
		/* rt_sigreturn: every register from the frame. */
		if (!e->rax_k || e->rax == 15)
			rcv_esc_async(e);
		rcv_esc_set_reg(e, RP_REG_RAX, CLEAN, -1, 0);
		rcv_esc_set_reg(e, RP_REG_RCX, CLEAN, -1, 0);
		rcv_esc_set_reg(e, RP_REG_R11, fl, -1, 0);
		e->rax_k = false;
		break;
	}
	case X86_INS_PUSH: case X86_INS_POP:
	case X86_INS_PUSHFQ: case X86_INS_POPFQ:
		esc = push_pop(e, in);
		break;
	case X86_INS_CALL: {
		struct rcv_op sl = rsp_slot();

		if (in->nops && in->op[0].type == RCV_OP_MEM)
			(void)rcv_esc_load(e, &in->op[0], 8);
		rsp_add(e, -8);
		esc = rcv_esc_store(e, &sl, 8, CLEAN);
		e->depth++;
		break;
	}
	case X86_INS_RET:
		e->depth--;
		rsp_add(e, 8 + (in->nops && in->op[0].type == RCV_OP_IMM ?
				in->op[0].imm : 0));
		/* Nothing under the caller's rsp outlives a call. */
		rcv_esc_slots_dead(e, 0);
		break;
	case X86_INS_LEAVE:
		esc = leave(e);
		break;
	case X86_INS_WRFSBASE: case X86_INS_WRGSBASE:
		/* A base the thread's fs or gs accesses go through, read
		 * back whole by rdfsbase/rdgsbase (tests/values/review6.c
		 * lfsbase, lgsbase): a stack-derived one is the escape.
		 */
		esc = !in->nops || in->op[0].type != RCV_OP_REG ||
		      e->t[in->op[0].reg] != CLEAN || general(e, in);
		break;
	case X86_INS_ENTER:
		esc = rcv_esc_store(e, &(struct rcv_op){ .type = RCV_OP_MEM,
			    .base = RP_REG_RSP, .index = -1, .imm = -8 }, 8,
			    e->t[RP_REG_RBP]);
		rcv_esc_set_reg(e, RP_REG_RBP, STK, -1, 0);
		rcv_esc_set_reg(e, RP_REG_RSP, STK, -1, 0);
		break;
	default: {
		bool done;

		esc = vec_implicit(e, in, &done);
		if (!done)
			esc = x87(in->id) ? x87_step(e, in) : general(e, in);
		break;
	}
	}
	track_rax(e, in);
	track_rsi(e, in);
	if (ppush && e->t[RP_REG_RSP] == STK &&
	    e->ep[RP_REG_RSP] == e->ep0 && e->d[RP_REG_RSP] < e->ptop)
		e->ptop = e->d[RP_REG_RSP];
	else if (ppush)
		e->pdone = true;
	if (esc)
		e->escaped = true;
	return esc;
}

