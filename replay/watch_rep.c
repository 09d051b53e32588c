// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A thread's history that ends inside a repeated string instruction
 * (issue #18): a fault between its iterations (rep movsb into a page with
 * no access), or another thread's exit_group killing it there.  Each
 * iteration done stored (and loaded) memory, but the trace has no
 * instruction for the rep (it retires with its last iteration), so the
 * scan of the history's instructions never sees those accesses and a
 * watchpoint on the bytes they wrote would go back to an older store, or
 * with unknown accesses skipped to the history's start
 * (tests/values/review4.c repfault).  rcv_end.c keeps the values engine
 * from trusting the snapshot there; this file names the accesses, made
 * after the history's last instruction:
 *
 *  - the end snapshot shows rdi, rsi and rcx after the iterations done;
 *    the engine knows them before the first (from the history: the end
 *    snapshot does not seed them there), so the bytes are [start, end)
 *    (backwards with DF set);
 *  - knowing only the count before (rcx), the same range from the end;
 *  - knowing neither, an access of unknown address, bounded on the side
 *    the string grew from ("may have written": never a silent skip).
 *
 * Decoded as the engine decodes it (rcv_decode(), rcv_str_op()): with
 * 32-bit addresses (0x67) the iterations went through esi and edi, which
 * this does not model: unknown extent.
 */
#include <capstone/capstone.h>
#include <string.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_rep.h"

/* Larger than any string a history can have run part of: a wrong count. */
#define WPR_MAX (1ull << 40)

struct str_ins {
	unsigned int size;	/* bytes per iteration */
	bool src, dread, dst;	/* reads [rsi], reads [rdi], writes [rdi] */
	bool a32;		/* 32-bit addresses (0x67): not modelled */
};

/*
 * The repeated string instruction @in into @s: rcv_str_op()'s, and ins
 * and outs, which it leaves out (rcv_access.c takes their one element
 * from their memory operand).  False for any other instruction.
 */
static bool str_of(const struct rcv_ins *in, struct str_ins *s)
{
	if (!(in->flags & RCV_I_REP))
		return false;
	s->a32 = in->a32;
	s->size = rcv_str_op(in, &s->src, &s->dread, &s->dst);
	if (s->size)
		return true;
	switch (in->id) {
	case X86_INS_INSB: s->size = 1; s->dst = true; break;
	case X86_INS_INSW: s->size = 2; s->dst = true; break;
	case X86_INS_INSD: s->size = 4; s->dst = true; break;
	case X86_INS_OUTSB: s->size = 1; s->src = true; break;
	case X86_INS_OUTSW: s->size = 2; s->src = true; break;
	case X86_INS_OUTSD: s->size = 4; s->src = true; break;
	default: return false;
	}
	return true;
}

/* A register before @pos when the engine knows it whole. */
static bool known(struct rp_recover *rc, uint64_t pos, unsigned int reg,
		  uint64_t *v)
{
	uint64_t k;

	return !rp_recover_reg_bits(rc, pos, reg, v, &k) && k == ~0ull;
}

/*
 * The access of @kind through index register @reg (rdi or rsi) over the
 * @iters iterations (UINT64_MAX: unknown) done before the end, where
 * the register was @start before them (@have_start) and is @end after.
 */
static struct rp_access part(uint8_t kind, const struct str_ins *s,
			     bool back, bool have_start, uint64_t start,
			     bool have_end, uint64_t end, uint64_t iters)
{
	struct rp_access a = { .kind = kind };
	uint64_t len;

	if (have_end && !s->a32) {
		if (have_start)
			len = back ? start - end : end - start;
		else if (iters != UINT64_MAX)
			len = iters * s->size;
		else
			len = WPR_MAX;
		if (len < WPR_MAX && !(len % s->size)) {
			a.addr_known = true;
			a.addr = back ? end + s->size : end - len;
			a.size = len;
			return a;
		}
		/* unknown extent, on the side it came from */
		a.lo = back ? end + s->size : 0;
		a.hi = back ? UINT64_MAX : end;
	}
	return a;
}

int wpr_end_accesses(struct rp_recover *rc, struct rp_access acc[3],
		     uint64_t *g)
{
	const struct rp_regs *r = &rc->end_regs;
	uint64_t ip = r->val[RP_REG_RIP], rcx0, di0, si0, iters = UINT64_MAX;
	bool back, have_di, have_si, rdi_end, rsi_end;
	struct str_ins s = { 0 };
	struct rcv_ins in;
	uint8_t raw[15];
	size_t len = 0;
	int n = 0, got;

	if (!rc->end || !(r->valid & (1ull << RP_REG_RIP)))
		return 0;
	*g = rc->end - 1;
	got = rp_read_code(rc->s, rc->tid, rc->end, ip, raw, sizeof(raw));
	if (got > 0)
		len = rcv_dec_len(rc->dec, ip, raw, (size_t)got);
	if (!len)
		return 0;
	rcv_decode(rc->dec, ip, raw, len, RP_IC_OTHER, &in);
	if (!str_of(&in, &s))
		return 0;	/* none, or one iteration: it faulted whole */
	back = (r->valid & (1ull << RP_REG_EFLAGS)) &&
	       (r->val[RP_REG_EFLAGS] & 0x400);
	if (!(r->valid & (1ull << RP_REG_EFLAGS))) {
		/* direction unknown: either side */
		acc[n++] = (struct rp_access){ .kind = RP_ACC_WRITE };
		acc[n++] = (struct rp_access){ .kind = RP_ACC_READ };
		return n;
	}
	if ((r->valid & (1ull << RP_REG_RCX)) &&
	    known(rc, rc->end, RP_REG_RCX, &rcx0)) {
		if (rcx0 < r->val[RP_REG_RCX])
			return 0;	/* not this instruction's count */
		iters = rcx0 - r->val[RP_REG_RCX];
		if (!iters)
			return 0;	/* the first iteration faulted */
	}
	have_di = known(rc, rc->end, RP_REG_RDI, &di0);
	have_si = known(rc, rc->end, RP_REG_RSI, &si0);
	rdi_end = r->valid & (1ull << RP_REG_RDI);
	rsi_end = r->valid & (1ull << RP_REG_RSI);
	if (s.dst)
		acc[n++] = part(RP_ACC_WRITE, &s, back, have_di, di0,
				rdi_end, r->val[RP_REG_RDI], iters);
	if (s.src)
		acc[n++] = part(RP_ACC_READ, &s, back, have_si, si0,
				rsi_end, r->val[RP_REG_RSI], iters);
	if (s.dread)
		acc[n++] = part(RP_ACC_READ, &s, back, have_di, di0,
				rdi_end, r->val[RP_REG_RDI], iters);
	/* none done: nothing accessed */
	for (int i = 0; i < n; i++)
		if (acc[i].addr_known && !acc[i].size)
			acc[i--] = acc[--n];
	return n;
}
