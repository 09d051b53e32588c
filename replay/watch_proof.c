// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A cheap proof that a window of a thread's history cannot touch the
 * watched bytes, so that a watchpoint scan passes the window without the
 * recovery engine (issue #18: a cold reverse scan ran the engine's
 * fixpoint over every window, 14,584 Ir per instruction against the
 * libipt loop's 501).
 *
 * Every general-purpose register is followed through a window as a base
 * plus an interval of offsets.  The bases are the registers where the
 * window starts, the words a pop or load reads, and constants; the
 * registers after the window's last instruction, which the end snapshot
 * gives for the last window and each window's proof for the one before
 * it, fix them.  push, pop, call, ret, leave, mov, lea, add/sub/inc/dec of
 * a constant and `and` with an alignment mask keep a base; a pop (or an
 * 8-byte load) gives back what its push (or an 8-byte store) left in the
 * slot when no store may have reached the slot since; anything else makes
 * the register a new base, unknown until the registers after the window
 * fix it (mov rsp from memory, a stack switch); a system call that may be
 * rt_sigreturn, a transfer the instruction does not allow (a signal), or
 * a gap makes every register a new base and forgets the slots.  So each
 * stack access has its true address in a known interval, and so has each
 * access through a register derived from the stack pointer or a
 * constant; any other access is "not proven" and the engine decides.
 * watch_chain.c chains the windows and scans.
 *
 * Soundness rests on the instructions' semantics, the snapshot's
 * registers and stack, and the engine's assumption that no other thread
 * writes this thread's stack slots (docs/values.md): not on the engine.
 * What the registers after a window fix, and the accesses and edges that
 * come out of it: watch_fix.c.  The accesses each instruction makes and
 * the stack slots they leave: watch_acc.c.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_acc.h"
#include "watch_pass.h"
#include "watch_proof.h"

bool wpf_grow(void **v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c;
	void *x;

	if (n < *cap)
		return true;
	c = *cap ? 2 * *cap : first;
	x = realloc(*v, c * size);
	if (!x)
		return false;
	*v = x;
	*cap = c;
	return true;
}

static int32_t new_root(struct pass *p)
{
	if (p->nroot >= MAX_ROOTS)
		return -1;
	if (!wpf_grow((void **)&p->root, &p->root_cap, p->nroot,
		  sizeof(*p->root), 256)) {
		p->nomem = true;
		return -1;
	}
	p->root[p->nroot] = (struct root){ .at = p->cur };
	return (int32_t)p->nroot++;
}

struct sv wpf_fresh_val(struct pass *p)
{
	int32_t k = new_root(p);

	return k < 0 ? none : (struct sv){ k, 0, 0 };
}

/* Some value the instruction computes: a new base, depending on what
 * it reads (watch_dep.c).
 */
static struct sv fresh_dep(struct pass *p)
{
	int32_t k;

	if (!p->deps)
		return wpf_fresh_val(p);
	k = wdep_fresh(p);

	return k < 0 ? none : (struct sv){ k, 0, 0 };
}

/* Nothing known: every register a new base, no slot (a cut). */
static void cut_all(struct pass *p)
{
	int g;

	for (g = 0; g < 16; g++)
		p->r[g] = wpf_fresh_val(p);
	p->nslot = 0;
	p->pure = false;
}

/*
 * After an instruction the engine does not follow across (a barrier to
 * it: an EVEX load or store it did not decode), where the flow went
 * straight on: it knows nothing there, as at the window's start, so the
 * registers are bases of the secret kind (watch_fix.c), and it knows
 * the direction flag only once an instruction writes it again.
 */
static void restart_all(struct pass *p)
{
	int g;

	cut_all(p);
	for (g = 0; g < 16; g++)
		if (p->r[g].root > 0)
			p->root[p->r[g].root].start = true;
	p->dfk = false;
	/* Nor the flags or the vector state (rcv_sem.c: nothing flows
	 * across a barrier), nor what stores of other bases left (its
	 * memory questions stop at a barrier: rcv_mem.c); the words of
	 * the bases before it stay as followed, though none of the new
	 * bases reaches them.
	 */
	if (p->deps) {
		int32_t f = wdep_node(p), v = wdep_node(p), m = wdep_node(p);
		int32_t d = wdep_node(p);

		if (f > 0 && v > 0 && m > 0 && d > 0) {
			p->flags = f;
			wdep_yes(p, v);	/* as always */
			p->vec = v;
			p->mem = m;
			p->df = d;
		}
	}
}

/* Bit g: @in writes general-purpose register g (wcode[g] != 0), from
 * the 16 codes at once (every instruction asks).
 */
static unsigned int written(const struct rcv_ins *in)
{
	unsigned int m = 0;
	uint64_t x;
	int h;

	for (h = 0; h < 2; h++) {
		memcpy(&x, in->wcode + 8 * h, 8);
		if (!x)
			continue;
		/* A byte's bits into its lowest, then the 8 low bits
		 * gathered into the top byte.
		 */
		x |= x >> 4;
		x |= x >> 2;
		x |= x >> 1;
		x &= 0x0101010101010101ull;
		m |= (unsigned int)((x * 0x0102040810204080ull) >> 56) << 8 * h;
	}
	return m;
}

/*
 * Is @in quiet: an instruction whose execution the trace shows nothing
 * of that depends on register or memory values?  The trace shows the
 * direction of conditional branches (flags), the targets of indirect
 * calls and jumps, and what a system call or a signal did; a return's
 * target is the word it pops (a value, not where it lies).  Only
 * instructions known to read no flag and to change no flow but directly
 * are quiet; any other is not (an unknown instruction is never quiet).
 */
static bool quiet(const struct rcv_ins *in)
{
	if (in->flags & (RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR |
			 RCV_I_REP | RCV_I_SYSCALL))
		return false;
	switch (in->id) {
	case X86_INS_CALL:
	case X86_INS_JMP:
		/* direct only: the target is in the instruction */
		return in->nops == 1 && in->op[0].type == RCV_OP_IMM;
	case X86_INS_RET:
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX:
	case X86_INS_MOVSXD: case X86_INS_LEA: case X86_INS_PUSH:
	case X86_INS_POP: case X86_INS_LEAVE: case X86_INS_ADD:
	case X86_INS_SUB: case X86_INS_IMUL: case X86_INS_AND:
	case X86_INS_OR: case X86_INS_XOR: case X86_INS_NOT:
	case X86_INS_NEG: case X86_INS_INC: case X86_INS_DEC:
	case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHR:
	case X86_INS_SAR: case X86_INS_CMP: case X86_INS_TEST:
	case X86_INS_NOP: case X86_INS_ENDBR64: case X86_INS_CDQE:
	case X86_INS_CDQ: case X86_INS_CQO: case X86_INS_CWDE:
		return true;
	default:
		return false;
	}
}

/*
 * Is @in opaque to watch_dep.c's analysis: what it reads, writes or
 * shows is not followed (capstone could not read it, a barrier, memory
 * it cannot name, a rep string instruction)?  Such a window keeps no
 * secret.  Everything else the trace shows (conditional branches,
 * indirect targets, returns, system calls) is followed there: what it
 * depends on is not secret.
 */
static bool opaque(const struct rcv_ins *in, uint8_t cut)
{
	bool src, dread, dst;

	/* A barrier to the engine where the flow went straight on (@cut
	 * 2): it starts again after it (restart_all()).
	 */
	if ((in->flags & RCV_I_BARRIER) && cut != 2)
		return true;
	/* What capstone could not decode and libopcodes reads: vector
	 * and mask registers, a general-purpose destination (rcv_decode.c
	 * vector_only(), watch_dep.c), or memory the engine never names
	 * (accesses()).
	 */
	if (in->flags & RCV_I_BAD)
		return false;
	if (!(in->flags & (RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_REP)))
		return false;
	return !rcv_str_op(in, &src, &dread, &dst);	/* str_acc() */
}

/* Has @x a range or a low half's (a cheap test before s32_of())? */
static inline bool may_range(const struct pass *p, struct sv x)
{
	return x.root == 0 || (x.root > 0 && p->root[x.root].ext);
}

/* The low 32 bits of @x as a signed int: in [*lo, *hi]? */
static bool s32_of(const struct pass *p, struct sv x, int64_t *lo,
		   int64_t *hi)
{
	const struct rext *r = rext_of(p, x.root);

	if (r && r->s32 && x.lo == 0 && x.hi == 0) {
		*lo = r->s32lo;
		*hi = r->s32hi;
		return true;
	}
	return sv_range(p, x, lo, hi) && *lo >= INT32_MIN && *hi <= INT32_MAX;
}

/*
 * Ranges (issue #18: tables indexed by a byte, a count): what an
 * instruction allows its result to be whatever it read, kept on the new
 * root it makes (watch_pass.h).  A value in a range is not known: only
 * an address made from it and a known base is known to lie in an
 * interval (watch_acc.c's addr_of()), and the root keeps what it was
 * made from for watch_dep.c.
 */
struct rng {
	bool rng, s32;
	int64_t rlo, rhi, s32lo, s32hi;
	/* a quotient's multiple or a mul's high half (struct rext) */
	int32_t qx;
	int64_t qoff;
	uint64_t qd, qk, qmul;
};

/* A 32-bit result whose low 32 bits, signed, lie in [@lo, @hi]: the
 * register holds them zero-extended.
 */
static void rng_32(struct rng *q, int64_t lo, int64_t hi)
{
	if (lo < INT32_MIN || hi > INT32_MAX || lo > hi)
		return;
	q->s32 = true;
	q->s32lo = lo;
	q->s32hi = hi;
	if (lo >= 0 || hi < 0) {
		q->rng = true;
		q->rlo = lo >= 0 ? lo : lo + (1ll << 32);
		q->rhi = lo >= 0 ? hi : hi + (1ll << 32);
	}
}

/* What @in (2 operands, @d a register) allows its destination to be. */
static struct rng rng_of(const struct pass *p, const struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];
	struct rng q = { 0 };
	int64_t lo, hi, c;

	switch (in->id) {
	case X86_INS_MOVZX:
		/* a byte or a word, zero-extended into 32 or 64 bits (a
		 * 16-bit destination keeps the register's upper bits)
		 */
		if (d->size >= 4 && (s->size == 1 || s->size == 2)) {
			q.rng = true;
			q.rhi = s->size == 1 ? 0xff : 0xffff;
			q.s32 = true;
			q.s32hi = q.rhi;
		}
		break;
	case X86_INS_TZCNT:
	case X86_INS_LZCNT:
	case X86_INS_POPCNT:
		/* a count of the source's bits: 0 to its width (bsf and
		 * bsr leave the destination undefined for 0: not these;
		 * tzcnt and lzcnt run as them without BMI1 and LZCNT,
		 * which every processor with Intel PT has: Haswell on)
		 */
		if (d->size >= 4) {
			q.rng = true;
			q.rhi = 8 * d->size;
			q.s32 = true;
			q.s32hi = q.rhi;
		}
		break;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (d->size != 4 || d->shift || s->type != RCV_OP_IMM ||
		    !s32_of(p, p->r[d->reg], &lo, &hi))
			break;
		c = (int32_t)s->imm;
		if (in->id == X86_INS_SUB)
			c = -c;
		rng_32(&q, lo + c, hi + c);
		break;
	case X86_INS_MOV:
		if (d->size == 4 && is_reg(s, 4) &&
		    s32_of(p, p->r[s->reg], &lo, &hi))
			rng_32(&q, lo, hi);
		break;
	case X86_INS_MOVSXD:
		/* sign-extends the low 32 bits */
		if (d->size == 8 && is_reg(s, 4) &&
		    s32_of(p, p->r[s->reg], &lo, &hi)) {
			q.rng = q.s32 = true;
			q.rlo = q.s32lo = lo;
			q.rhi = q.s32hi = hi;
		}
		break;
	default:
		break;
	}
	return q;
}

/*
 * Remainders (issue #18: _itoa_word's digit, value % base, indexes its
 * table): a compiler computes x % d for a constant d as x - d * q, the
 * quotient q = (x * M) >> (64 + s) (a mul's high half, shr), which is
 * floor(x / d) for every 64-bit x where 2^(64+s) <= M * d <= 2^(64+s) +
 * 2^s (Granlund and Montgomery, "Division by Invariant Integers using
 * Multiplication", PLDI 1994, theorem 4.2 with N = 64, l = s).  The pass
 * follows the high half, the shift, q's multiples (lea q + k * q, add q,
 * q) and the subtraction of d * q from the same x (a root and offset: one
 * value): the result lies in [0, d - 1], and d * q <= x does not wrap.
 * The divisor of @m and @s, 0 where the theorem does not give one (or
 * one too large for an interval).
 */
static uint64_t magic_div(uint64_t m, unsigned int s)
{
	unsigned __int128 t, d, md;

	if (m < 2 || s > 63)
		return 0;
	t = (unsigned __int128)1 << (64 + s);
	d = (t + m - 1) / m;
	if (d < 2 || d > MAX_SPAN)
		return 0;
	md = (unsigned __int128)m * d;
	return md >= t && md - t <= (unsigned __int128)1 << s ? (uint64_t)d : 0;
}

/* @x is @k times a quotient (offset 0): its rext, else NULL. */
static const struct rext *quot_of(const struct pass *p, struct sv x)
{
	const struct rext *e = x.lo == 0 && x.hi == 0 ? rext_of(p, x.root) :
			       NULL;

	return e && e->quot && e->q.qd ? e : NULL;
}

/* @q: @e's quotient times @k more (none past its divisor). */
static bool quot_times(struct rng *q, const struct rext *e, uint64_t k)
{
	if (!e || __builtin_mul_overflow(e->q.qk, k, &q->qk) ||
	    q->qk > e->q.qd)
		return false;
	q->qx = e->qx;
	q->qoff = e->q.qoff;
	q->qd = e->q.qd;
	return true;
}

/* Root @k's ranges (@q, NULL: none) and sum of roots @s1 and @s2. */
static void set_ext(struct pass *p, int32_t k, const struct rng *q,
		    int32_t s1, int32_t s2)
{
	static const struct rng no;
	struct rext *e;

	if (!q)
		q = &no;
	if (!q->rng && !q->s32 && !q->qd && !q->qmul && s1 <= 0 && s2 <= 0)
		return;
	if (!wpf_grow((void **)&p->ext, &p->ext_cap, p->next,
		      sizeof(*p->ext), 256)) {
		p->nomem = true;
		return;
	}
	e = &p->ext[p->next++];
	*e = (struct rext){ .root = k, .ds1 = s1 > 0 ? s1 : 0,
			    .ds2 = s2 > 0 ? s2 : 0 };
	if (q->qd || q->qmul) {
		e->quot = true;
		e->qx = q->qx;
		e->q.qoff = q->qoff;
		e->q.qd = q->qd;
		e->q.qk = q->qk;
		e->q.qmul = q->qmul;
	} else {
		e->rng = q->rng;
		e->s32 = q->s32;
		e->rlo = q->rlo;
		e->rhi = q->rhi;
		e->s32lo = q->s32lo;
		e->s32hi = q->s32hi;
	}
	p->root[k].ext = (int32_t)p->next;
}

/*
 * Before bsf or bsr @i (@reg, @size bytes): is its source not 0?  Where
 * the instruction before it, or before the few between that do not write
 * the register, is a je or jne on a `test reg, reg` of that size just
 * before it, and the trace shows ZF clear (jne taken, je not taken).  A
 * test of all 8 bytes says nothing of the low 4.  Nothing between may be
 * a system call, a barrier or an instruction not decoded.  Looked back
 * only at a bsf (every instruction of a window pays for a state kept).
 */
static bool nonzero(const struct rcv_ins *const *ins, const uint8_t *cut,
		    size_t i, int reg, unsigned int size)
{
	const struct rcv_ins *j, *t;
	size_t k;
	int cc;

	for (k = i; k >= 2 && k + 8 > i; k--) {
		j = ins[k - 1];
		t = ins[k - 2];
		if (cut[k - 1] || cut[k - 2])
			return false;
		/* A system call (rt_sigreturn sets every register: review
		 * 12's bsrd), a barrier or an instruction not decoded may
		 * write more than its decoded list says: no proof across.
		 */
		if (j->flags & (RCV_I_SYSCALL | RCV_I_BARRIER | RCV_I_BAD))
			return false;
		cc = rcv_cond_of(j->id);
		if (cc != 4 && cc != 5) {
			if (j->wcode[reg])
				return false;
			continue;
		}
		if (j->nops != 1 || j->op[0].type != RCV_OP_IMM ||
		    t->id != X86_INS_TEST || t->nops != 2 ||
		    !is_reg(&t->op[0], t->op[0].size) ||
		    !is_reg(&t->op[1], t->op[0].size) ||
		    t->op[0].reg != reg || t->op[1].reg != reg ||
		    (t->op[0].size != 4 && t->op[0].size != 8) ||
		    (size == 4 && t->op[0].size != 4))
			return false;
		/* ZF clear */
		return (cc == 5) == (ins[k]->ip == (uint64_t)j->op[0].imm &&
				     (uint64_t)j->op[0].imm != j->ip + j->len);
	}
	return false;
}

/* The registers after instruction @in (its accesses are done). */
static void step(struct pass *p, const struct rcv_ins *in)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];
	struct sv *rsp = &p->r[RP_REG_RSP], v = none;
	/* What the instruction allows its result to be (@q where @qv),
	 * or the roots of a 64-bit sum, neither offset known (ds1, ds2):
	 * @hq, either.
	 */
	struct rng q;
	const struct rext *e;
	uint64_t dq;
	bool hq = false, qv = false;
	int32_t s1 = 0, s2 = 0;
	struct sv x;
	unsigned int m;
	int g, dst = -1;
	/* after: a mul's high half (below) */
	bool mulq = false;
	bool two = in->nops == 2 && d->type == RCV_OP_REG;
	int64_t lo, hi;

	if ((in->flags & RCV_I_BARRIER) ||
	    ((in->flags & RCV_I_BAD) && (in->flags & RCV_I_MEMBAR)) ||
	    ((in->flags & RCV_I_SYSCALL) && in->id != X86_INS_SYSCALL)) {
		cut_all(p);	/* what it writes is not known */
		return;
	}
	switch (in->id) {
	case X86_INS_PUSH:
		if (d->type == RCV_OP_IMM || d->size == 8)
			*rsp = sv_add(*rsp, -8);
		else
			*rsp = none;
		return;
	case X86_INS_CALL:
		*rsp = sv_add(*rsp, -8);
		return;
	case X86_INS_POP:
		v = wpf_load8(p, *rsp);
		*rsp = sv_add(*rsp, 8);
		if (in->nops == 1 && is_reg(d, 8))
			p->r[d->reg] = v;
		else if (in->nops == 1 && d->type == RCV_OP_REG)
			p->r[d->reg] = none;
		return;
	case X86_INS_RET:
		*rsp = sv_add(*rsp, 8 + (in->nops == 1 &&
					 d->type == RCV_OP_IMM ? d->imm : 0));
		return;
	case X86_INS_LEAVE:
		v = p->r[RP_REG_RBP];
		*rsp = sv_add(v, 8);
		p->r[RP_REG_RBP] = wpf_load8(p, v);
		return;
	case X86_INS_XCHG:
		/* Each register gets the other's value: a new base made
		 * from both (as below) would take the one it does not
		 * depend on for its base, and an access through it would be
		 * called secret where the engine knows it (review 7's
		 * costack, strcmp's `xchg %rsi,%rdi`; session 18's review).
		 */
		if (two && is_reg(d, 8) && is_reg(s, 8)) {
			x = p->r[d->reg];
			p->r[d->reg] = p->r[s->reg];
			p->r[s->reg] = x;
			return;
		}
		break;
	case X86_INS_XLATB:
		/* al from [rbx + al]: capstone 4 lists no operand */
		p->r[RP_REG_RAX] = fresh_dep(p);
		return;
	case X86_INS_ENTER:
		/* push rbp; mov rbp, rsp; sub rsp, N (capstone 4 lists
		 * neither register written).
		 */
		p->r[RP_REG_RSP] = fresh_dep(p);
		p->r[RP_REG_RBP] = fresh_dep(p);
		return;
	case X86_INS_SYSCALL:
		if (sv_is_const(p->r[RP_REG_RAX]) &&
		    !rcv_sys_resets((uint64_t)p->r[RP_REG_RAX].lo)) {
			p->r[RP_REG_RAX] = fresh_dep(p);
			p->r[RP_REG_RCX] = fresh_dep(p);
			p->r[RP_REG_R11] = fresh_dep(p);
			return;
		}
		cut_all(p);
		return;
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (!two)
			break;
		dst = d->reg;
		if (d->size == 8 && !d->shift)
			v = wpf_src_of(p, in, s);
		else if (d->size == 4 && s->type == RCV_OP_IMM)
			v = sv_const((uint32_t)s->imm);
		else if (d->size == 4 && is_reg(s, 4) &&
			 sv_is_const(p->r[s->reg]))
			v = sv_const((uint32_t)p->r[s->reg].lo);
		else if (d->size == 4 && is_reg(s, 4) &&
			 may_range(p, p->r[s->reg]))
			hq = qv = (q = rng_of(p, in)).rng || q.s32;
		break;
	case X86_INS_LEA:
		if (!two || s->type != RCV_OP_MEM)
			break;
		dst = d->reg;
		v = wpf_lea_of(p, in, s);
		if (d->size == 4)
			v = sv_is_const(v) ? sv_const((uint32_t)v.lo) : none;
		else if (d->size != 8)
			v = none;
		/* base + scale * index, neither followed: a sum */
		if (v.root < 0 && d->size == 8 && !s->seg &&
		    s->base >= 0 && s->base < 16 && s->index >= 0 &&
		    s->index < 16) {
			s1 = p->r[s->base].root;
			s2 = p->r[s->index].root;
			hq = true;
			/* q + k * q: a quotient's multiple */
			q = (struct rng){ 0 };
			if (s->base == s->index && !s->imm &&
			    quot_times(&q, quot_of(p, p->r[s->base]),
				       1 + (s->scale ? s->scale : 1)))
				qv = true;
		}
		break;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (!two)
			break;
		dst = d->reg;
		if (d->size != 8 || d->shift) {
			if (d->size == 4 && may_range(p, p->r[dst]))
				hq = qv = (q = rng_of(p, in)).rng || q.s32;
			break;
		}
		if (add_load8(in)) {
			/* the word through the pass's slots (a slot's value:
			 * a root the analysis did not see loaded)
			 */
			x = wpf_src_of(p, in, s);
			if (x.root > 0)
				wdep_use(p, x.root);
			if (sv_is_const(x))
				v = sv_add(p->r[dst], x.lo);
			else if (sv_is_const(p->r[dst]))
				v = sv_add(x, p->r[dst].lo);
			else
				s1 = x.root;
			hq = s1 > 0;
		} else if (s->type == RCV_OP_IMM && s->imm != INT64_MIN) {
			v = sv_add(p->r[dst], in->id == X86_INS_ADD ?
					      s->imm : -s->imm);
		} else if (is_reg(s, 8) && sv_is_const(p->r[s->reg])) {
			int64_t c = p->r[s->reg].lo;

			if (c != INT64_MIN)
				v = sv_add(p->r[dst],
					   in->id == X86_INS_SUB ? -c : c);
		} else if (is_reg(s, 8) && s->reg == dst &&
			   in->id == X86_INS_SUB) {
			v = sv_const(0);
		} else if (is_reg(s, 8) && in->id == X86_INS_SUB &&
			   sv_exact(p->r[dst]) && sv_exact(p->r[s->reg]) &&
			   p->r[dst].root == p->r[s->reg].root &&
			   !__builtin_sub_overflow(p->r[dst].lo,
						   p->r[s->reg].lo, &v.lo)) {
			/* Two pointers of one base: their distance. */
			v = sv_const((uint64_t)v.lo);
		} else if (is_reg(s, 8) && in->id == X86_INS_ADD &&
			   sv_is_const(p->r[dst])) {
			v = sv_add(p->r[s->reg], p->r[dst].lo);
		} else if (is_reg(s, 8) && in->id == X86_INS_ADD) {
			s1 = p->r[s->reg].root;
			/* q + q: a quotient's multiple */
			q = (struct rng){ 0 };
			if (s->reg == dst &&
			    quot_times(&q, quot_of(p, p->r[dst]), 2))
				qv = true;
		} else if (is_reg(s, 8) && in->id == X86_INS_SUB &&
			   (e = quot_of(p, p->r[s->reg])) &&
			   e->q.qk == e->q.qd && sv_exact(p->r[dst]) &&
			   p->r[dst].root == e->qx &&
			   p->r[dst].lo == e->q.qoff) {
			/* x - d * floor(x / d): the remainder */
			q = (struct rng){ 0 };
			hq = qv = q.rng = true;
			q.rhi = (int64_t)e->q.qd - 1;
			q.s32 = q.rhi <= INT32_MAX;
			q.s32hi = q.s32 ? q.rhi : 0;
		}
		if (s1 > 0) {
			s2 = p->r[dst].root;
			hq = true;
		}
		break;
	case X86_INS_INC:
	case X86_INS_DEC:
		if (in->nops != 1 || d->type != RCV_OP_REG)
			break;
		dst = d->reg;
		if (is_reg(d, 8))
			v = sv_add(p->r[dst], in->id == X86_INS_INC ? 1 : -1);
		break;
	case X86_INS_AND:
		if (!two)
			break;
		dst = d->reg;
		if (!is_reg(d, 8) || s->type != RCV_OP_IMM)
			break;
		v = p->r[dst];
		if (sv_is_const(v)) {
			v = sv_const((uint64_t)v.lo & (uint64_t)s->imm);
		} else if (s->imm < 0 && -s->imm <= MAX_SPAN &&
			   !(-s->imm & (-s->imm - 1))) {
			/* x & -2^k lies in [x - (2^k - 1), x] */
			if (__builtin_add_overflow(v.lo, s->imm + 1, &v.lo))
				v = none;
		} else {
			v = none;
		}
		break;
	case X86_INS_XOR:
		if (!two)
			break;
		dst = d->reg;
		if ((is_reg(d, 8) || is_reg(d, 4)) && is_reg(s, d->size) &&
		    s->reg == dst)
			v = sv_const(0);
		break;
	default:
		/* Apart from the cases above: their ids lie close. */
		if (in->id == X86_INS_CDQE) {
			/* rax from eax, sign-extended (no operand listed) */
			if (s32_of(p, p->r[RP_REG_RAX], &lo, &hi)) {
				dst = RP_REG_RAX;
				hq = qv = q.rng = q.s32 = true;
				q.rlo = q.s32lo = lo;
				q.rhi = q.s32hi = hi;
			}
		} else if (in->id == X86_INS_MUL && in->nops == 1 &&
			   is_reg(d, 8) && sv_is_const(p->r[d->reg]) &&
			   sv_exact(p->r[RP_REG_RAX])) {
			/* rdx: the high half of x * M (remainders above) */
			q = (struct rng){ 0 };
			q.qmul = (uint64_t)p->r[d->reg].lo;
			q.qx = p->r[RP_REG_RAX].root;
			q.qoff = p->r[RP_REG_RAX].lo;
			mulq = true;
		} else if (in->id == X86_INS_SHR && two && is_reg(d, 8) &&
			   s->type == RCV_OP_IMM &&
			   (e = rext_of(p, p->r[d->reg].root)) && e->quot &&
			   e->q.qmul && p->r[d->reg].lo == 0 &&
			   p->r[d->reg].hi == 0 &&
			   (dq = magic_div(e->q.qmul,
					   (unsigned int)s->imm & 63))) {
			/* the quotient */
			dst = d->reg;
			hq = qv = true;
			q = (struct rng){ 0 };
			q.qd = dq;
			q.qk = 1;
			q.qx = e->qx;
			q.qoff = e->q.qoff;
		} else if (two && is_reg(d, 8) && is_reg(s, 8) &&
			   sv_is_const(p->r[d->reg]) &&
			   sv_is_const(p->r[s->reg]) &&
			   wdep_is_cmov(in->id)) {
			/* one of two constants, whichever the flags chose
			 * (_itoa_word's digits, lower or upper case)
			 */
			dst = d->reg;
			v = p->r[d->reg];
			x = p->r[s->reg];
			if (x.lo < v.lo)
				v.lo = x.lo;
			else
				v.hi = x.hi;
		} else if ((in->id == X86_INS_BSF || in->id == X86_INS_BSR) &&
			   two && d->size >= 4 && is_reg(s, d->size) &&
			   nonzero(p->ins, p->cut, p->cur, s->reg, d->size)) {
			/* the index of a bit of a source that is not 0
			 * (Intel SDM vol. 2A, BSF, BSR: undefined for 0
			 * alone), zero-extended by a 32-bit destination
			 */
			dst = d->reg;
			q = (struct rng){ 0 };
			hq = qv = q.rng = q.s32 = true;
			q.rhi = q.s32hi = 8 * d->size - 1;
		} else if (two && (in->id == X86_INS_MOVZX ||
				   in->id == X86_INS_MOVSXD ||
				   in->id == X86_INS_TZCNT ||
				   in->id == X86_INS_LZCNT ||
				   in->id == X86_INS_POPCNT)) {
			dst = d->reg;
			hq = qv = (q = rng_of(p, in)).rng || q.s32;
		}
		break;
	}
	if (v.root >= 0 && v.hi - v.lo > MAX_SPAN)
		v = none;
	/* What the instruction writes but the cases above do not follow
	 * is some value after it: a new base (the registers after the
	 * window may fix it; rsp after `sub rsp, rax` comes back to its
	 * frame's base through rbp).  What the engine never computes
	 * (rcv_sem.c models none of it: registers an undecoded VEX or
	 * EVEX writes, watch_dep.c's D_KILL) is unknown to it as a
	 * register at the window's start: it knows them only where what
	 * the trace shows depends on them.  bsf's and bsr's result was
	 * such until rcv_bits.c computed it (a known source not 0): now
	 * a value computed, as any other.
	 */
	for (m = written(in); m; m &= m - 1) {
		g = __builtin_ctz(m);
		if (g == dst)
			continue;
		p->r[g] = fresh_dep(p);
		if (p->r[g].root > 0 && (in->flags & RCV_I_BAD))
			p->root[p->r[g].root].start = true;
	}
	if (dst >= 0)
		p->r[dst] = v.root >= 0 ? v : fresh_dep(p);
	/* Two registers written, each from one of the instruction's
	 * sources (xchg not of two whole registers, xadd, cmpxchg): a new
	 * base made from all its reads could be called secret for a read
	 * it does not depend on.  Known to the engine, as far as this
	 * analysis can say (the safe side: the window is computed).
	 */
	if (p->deps && (in->id == X86_INS_XCHG || in->id == X86_INS_XADD ||
			in->id == X86_INS_CMPXCHG))
		for (m = written(in); m; m &= m - 1) {
			g = __builtin_ctz(m);
			if (p->r[g].root > 0)
				wdep_edge(p, p->r[g].root, p->konst);
		}
	/* A new root: what the instruction allows it to be, or a sum. */
	if (hq && dst >= 0 && v.root < 0 && p->r[dst].root > 0)
		set_ext(p, p->r[dst].root, qv ? &q : NULL, s1, s2);
	if (mulq && p->r[RP_REG_RDX].root > 0)
		set_ext(p, p->r[RP_REG_RDX].root, &q, 0, 0);
}

/* The state before instruction p->mid, for wpf_win_edge(). */
static bool keep_mid(struct pass *p)
{
	memcpy(p->mid_r, p->r, sizeof(p->r));
	p->mid_n = 0;
	if (!p->nslot)
		return true;
	p->mid_slot = malloc(p->nslot * sizeof(*p->mid_slot));
	if (!p->mid_slot) {
		p->nomem = true;
		return false;
	}
	memcpy(p->mid_slot, p->slot, p->nslot * sizeof(*p->slot));
	p->mid_n = p->nslot;
	return true;
}

void wpf_win_free(struct wpf_win *w)
{
	if (!w)
		return;
	free(w->p.slot);
	free(w->p.mid_slot);
	free(w->p.root);
	free(w->p.acc);
	free(w->p.rets);
	free(w->p.ext);
	wdep_free(&w->p);
	free(w->top.w);
	free(w);
}

static void unanchor(struct wpf_win *w)
{
	size_t i;

	w->contradiction = true;
	for (i = 0; i < w->p.nroot; i++)
		w->p.root[i].anchored = false;
}

int wpf_win_run(const struct rcv_ins *const *ins, const uint8_t *cut,
		size_t n, size_t mid, const struct wpf_edge *top, bool deps,
		struct wpf_win **wp)
{
	struct wpf_win *w = calloc(1, sizeof(*w));
	struct pass *p;
	size_t i;

	*wp = NULL;
	if (!w)
		return -RP_ERR_NOMEM;
	p = &w->p;
	w->top = *top;
	w->top.w = NULL;
	if (top->nw) {
		w->top.w = malloc(top->nw * sizeof(*top->w));
		if (!w->top.w) {
			wpf_win_free(w);
			return -RP_ERR_NOMEM;
		}
		memcpy(w->top.w, top->w, top->nw * sizeof(*top->w));
	}
	/* Sized for the window at once: growing by doubling was a
	 * twentieth of a scan.
	 */
	p->acc = malloc((2 * n + 16) * sizeof(*p->acc));
	p->root = malloc(((deps ? 4 : 1) * n + 64) * sizeof(*p->root));
	if (p->acc)
		p->acc_cap = 2 * n + 16;
	if (p->root)
		p->root_cap = (deps ? 4 : 1) * n + 64;
	if (new_root(p) == 0) {	/* the constants' */
		p->pure = true;
		for (i = 0; i < 16; i++) {
			p->r[i] = wpf_fresh_val(p);
			if (p->r[i].root > 0)
				p->root[p->r[i].root].start = true;
		}
		/* A stretch of quiet instructions shows nothing: no
		 * dependency to follow (gdbloop's windows).
		 */
		for (i = 0; deps && i < n && quiet(ins[i]) && !cut[i];)
			i++;
		p->deps = deps && i < n;
		p->qmode = deps && i == n;
		deps = p->deps;
		wdep_init(p);
		p->mid = mid;
		p->ins = ins;
		p->cut = cut;
		for (i = 0; i < n && !p->nomem; i++) {
			if (i == mid && !keep_mid(p))
				break;
			if (opaque(ins[i], cut[i]) || cut[i] == 1)
				p->loud = true;
			p->cur = (uint32_t)i;
			if (deps)
				wdep_begin(p, ins[i], i + 1 < n && !cut[i] ?
						      ins[i + 1]->ip : 0);
			wpf_accesses(p, i, ins[i]);
			step(p, ins[i]);
			if (deps)
				wdep_end(p, ins[i]);
			/* A system call gives back the flags it was made
			 * with, or the engine knows none after it.
			 */
			if ((ins[i]->fw & F_DF) &&
			    !(ins[i]->flags & RCV_I_SYSCALL))
				p->dfk = true;
			if (cut[i] == 1)
				cut_all(p);
			else if (cut[i] == 2)
				restart_all(p);
		}
	}
	if (p->nomem || p->nroot < 17) {
		wpf_win_free(w);
		return -RP_ERR_NOMEM;
	}
	if (!wpf_pass_anchor(p, &w->top))
		unanchor(w);
	*wp = w;
	return 0;
}
