// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Did an xchg of unknown address write byte A?  (issue #17,
 * docs/values.md "Stores of unknown address: an exchange's old value".)
 * glibc's lock words are exchanged through pointers loaded from memory:
 * pthread_create's `xchg %eax,0x10e8(%r15)` (the stack cache's lock,
 * r15 from libc's GOT) lies between its store of the new stack's
 * protection (`or $0x3,%esi; mov %esi,0x54(%rsp)`) and the reload that
 * mprotect takes, so the protection was not known, and with it nothing
 * of the read-only rule before that mprotect (rcv_sys.c).  rcv_alias.c's
 * rules look at the value an unknown store wrote; an exchange also reads,
 * and what it read is shown by the code that follows: here `cmp $0x1,
 * %eax; jg` not taken, so the old word was at most 1, and a word that
 * held the byte 3 the thread stored there is not.
 *
 * For each placement of the exchange over A (the operand's size, every
 * offset), the bytes it would have read are memory before it (the
 * engine's, each known or free), constrained by the register's known
 * bits after it and by a compare of that register with an immediate
 * followed by a conditional jump whose direction the trace shows.  When
 * no value of the free bytes fits at any placement, the exchange did not
 * write A.  Nothing is assumed about where pointers point; the bytes
 * before it are asked of the engine once (no refutation inside that
 * question), and only the instructions right after it are looked at.
 */
#include <capstone/capstone.h>

#include "rcv_win.h"

/* Bits @n wide: unsigned min/max and signed min/max of the values whose
 * bits in @m are those of @f (the rest free).
 */
struct xc_range {
	uint64_t umin, umax;
	int64_t smin, smax;
};

static uint64_t width_mask(unsigned int n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static int64_t sext(uint64_t v, unsigned int n)
{
	if (n >= 64)
		return (int64_t)v;
	if (v >> (n - 1) & 1)
		return (int64_t)(v | ~width_mask(n));
	return (int64_t)v;
}

static void xc_bounds(uint64_t f, uint64_t m, unsigned int n,
		      struct xc_range *r)
{
	uint64_t all = width_mask(n), sign = 1ull << (n - 1), fr = ~m & all;

	f &= m & all;
	r->umin = f;
	r->umax = f | fr;
	if (m & sign) {
		r->smin = sext(f, n);
		r->smax = sext(f | fr, n);
	} else {
		r->smin = sext(f | sign, n);
		r->smax = sext(f | (fr & ~sign), n);
	}
}

/*
 * May `cmp v, imm` followed by condition @cc (as in the opcode) have
 * given @taken, for some v of @r (bits @m known as @f)?  True when not
 * sure (conditions on SF, OF, PF alone are not looked at).
 */
static bool xc_fits(const struct xc_range *r, uint64_t f, uint64_t m,
		    unsigned int n, uint64_t imm, int cc, bool taken)
{
	uint64_t all = width_mask(n), u = imm & all;
	int64_t s = sext(u, n);
	bool eq_may = ((f ^ u) & m & all) == 0;
	bool ne_may = (m & all) != all || ((f ^ u) & all) != 0;
	bool want;

	/* Conditions in pairs: cc even holds when cc + 1 does not. */
	want = (cc & 1) ? !taken : taken;
	switch (cc & ~1) {
	case 2:		/* b: v < imm unsigned */
		return want ? r->umin < u : r->umax >= u;
	case 4:		/* e: v == imm */
		return want ? eq_may : ne_may;
	case 6:		/* be: v <= imm unsigned */
		return want ? r->umin <= u : r->umax > u;
	case 12:	/* l: v < imm signed */
		return want ? r->smin < s : r->smax >= s;
	case 14:	/* le: v <= imm signed */
		return want ? r->smin <= s : r->smax > s;
	default:
		return true;
	}
}

/* Is operand @op GPR @reg whole at @size bytes (no high-byte register)? */
static bool same_reg(const struct rcv_op *op, int reg, unsigned int size)
{
	return op->type == RCV_OP_REG && op->reg == reg && op->size == size &&
	       !op->shift;
}

/*
 * The compare and jump after exchange @b of @w: *@imm, *@cc and whether
 * the jump was taken; false when the code after it is not that.
 */
static bool xc_branch(struct win *w, size_t b, int reg, unsigned int size,
		      uint64_t *imm, int *cc, bool *taken)
{
	const struct rcv_ins *c, *j, *nx;
	uint64_t fall, tgt;
	int t;

	if (b + 3 >= w->n)
		return false;
	c = &w->ins[b + 1];
	j = &w->ins[b + 2];
	nx = &w->ins[b + 3];
	if ((c->flags | j->flags) & (RCV_I_XFER | RCV_I_BAD) ||
	    c->id != X86_INS_CMP || c->nops != 2 || !rcv_cond_jump(j->id) ||
	    j->nops != 1 || j->op[0].type != RCV_OP_IMM)
		return false;
	if (same_reg(&c->op[0], reg, size) && c->op[1].type == RCV_OP_IMM)
		*imm = (uint64_t)c->op[1].imm;
	else
		return false;
	t = rcv_cond_of(j->id);
	if (t < 0 || c->ip + c->len != j->ip)
		return false;
	*cc = t;
	/* Where it went: its target, or the instruction after it (a jump
	 * to the next instruction shows nothing).
	 */
	fall = j->ip + j->len;
	tgt = (uint64_t)j->op[0].imm;
	if (tgt == fall)
		return false;
	if (nx->ip == tgt)
		*taken = true;
	else if (nx->ip == fall)
		*taken = false;
	else
		return false;
	return true;
}

/* Inside an exchange's own question of memory: no second one. */
static _Thread_local bool xc_busy;

bool rcv_xchg_refuted(struct win *w, size_t b, uint64_t a)
{
	const struct rcv_ins *in;
	const struct rcv_op *mo, *ro;
	const struct rcv_val *rv;
	struct xc_range r;
	uint64_t imm = 0, f, m, rm;
	unsigned int size, n, o, t;
	bool taken = false, br, ok = false;
	int cc = -1;
	uint8_t v;

	if (xc_busy || b >= w->n)
		return false;
	in = &w->ins[b];
	if (in->id != X86_INS_XCHG || in->nops != 2 ||
	    (in->flags & (RCV_I_XFER | RCV_I_BAD | RCV_I_SYSCALL)))
		return false;
	mo = &in->op[0];
	ro = &in->op[1];
	if (mo->type != RCV_OP_MEM) {
		mo = &in->op[1];
		ro = &in->op[0];
	}
	size = mo->size;
	if (mo->type != RCV_OP_MEM || (size != 1 && size != 2 && size != 4 &&
				       size != 8) ||
	    !same_reg(ro, ro->reg, size) || ro->reg < 0 || ro->reg >= 16)
		return false;
	n = 8 * size;
	/* What the register shows of the old value after it. */
	rv = &w->st[b + 1].r[ro->reg];
	rm = rv->k & width_mask(n);
	br = xc_branch(w, b, ro->reg, size, &imm, &cc, &taken);
	if (!rm && !br)
		return false;
	xc_busy = true;
	for (o = 0; o < size; o++) {
		uint64_t x = a - o;

		/* The bytes it would have read at x: memory before it. */
		f = m = 0;
		for (t = 0; t < size; t++)
			if (rcv_mem_byte(w, b, x + t, &v)) {
				f |= (uint64_t)v << (8 * t);
				m |= 0xffull << (8 * t);
			}
		if (!(m >> (8 * o) & 0xff))
			goto out;	/* A itself not known: no proof */
		/* Against the register's known bits. */
		if ((f ^ rv->v) & m & rm)
			continue;	/* this placement is refuted */
		f = (f & m) | (rv->v & rm & ~m);
		m |= rm;
		if (!br)
			goto out;	/* it fits */
		xc_bounds(f, m, n, &r);
		if (xc_fits(&r, f, m, n, imm, cc, taken))
			goto out;
	}
	ok = true;
out:
	xc_busy = false;
	return ok;
}
