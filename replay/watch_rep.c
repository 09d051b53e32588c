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
 * Decoded from the raw bytes: the string instructions are one-byte
 * opcodes after legacy prefixes and REX, and their operand size is all
 * this needs.
 */
#include <string.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_rep.h"

/* Larger than any string a history can have run part of: a wrong count. */
#define WPR_MAX (1ull << 40)

enum { S_NONE, S_MOVS, S_STOS, S_LODS, S_CMPS, S_SCAS, S_INS, S_OUTS };

struct str_ins {
	int op;
	unsigned int size;	/* bytes per iteration */
	bool rep;
	bool a32;		/* 32-bit addresses (0x67): not modelled */
};

/* The string instruction in @raw (@n bytes), or op S_NONE. */
static struct str_ins str_decode(const uint8_t *raw, int n)
{
	struct str_ins s = { S_NONE, 0, false, false };
	bool w = false, o16 = false;
	int i;

	for (i = 0; i < n; i++) {
		uint8_t b = raw[i];

		if (b == 0xf2 || b == 0xf3)
			s.rep = true;
		else if (b == 0x66)
			o16 = true;
		else if (b == 0x67)
			s.a32 = true;
		else if (b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
			 b == 0x64 || b == 0x65 || b == 0xf0)
			;	/* segment overrides, lock */
		else
			break;
	}
	if (i < n && (raw[i] & 0xf0) == 0x40) {
		w = raw[i] & 8;
		i++;
	}
	if (i >= n)
		return s;
	switch (raw[i] & 0xfe) {
	case 0xa4: s.op = S_MOVS; break;
	case 0xaa: s.op = S_STOS; break;
	case 0xac: s.op = S_LODS; break;
	case 0xa6: s.op = S_CMPS; break;
	case 0xae: s.op = S_SCAS; break;
	case 0x6c: s.op = S_INS; break;
	case 0x6e: s.op = S_OUTS; break;
	default: return s;
	}
	s.size = !(raw[i] & 1) ? 1 : w ? 8 : o16 ? 2 : 4;
	return s;
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
	struct str_ins s;
	uint8_t raw[15];
	int n = 0, len;

	if (!rc->end || !(r->valid & (1ull << RP_REG_RIP)))
		return 0;
	*g = rc->end - 1;
	len = rp_read_code(rc->s, rc->tid, rc->end, ip, raw, sizeof(raw));
	if (len <= 0)
		return 0;
	s = str_decode(raw, len);
	if (s.op == S_NONE || !s.rep)
		return 0;	/* one iteration: it faulted whole */
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
	if (s.op == S_MOVS || s.op == S_STOS || s.op == S_INS)
		acc[n++] = part(RP_ACC_WRITE, &s, back, have_di, di0,
				rdi_end, r->val[RP_REG_RDI], iters);
	if (s.op == S_MOVS || s.op == S_LODS || s.op == S_OUTS ||
	    s.op == S_CMPS)
		acc[n++] = part(RP_ACC_READ, &s, back, have_si, si0,
				rsi_end, r->val[RP_REG_RSI], iters);
	if (s.op == S_SCAS || s.op == S_CMPS)
		acc[n++] = part(RP_ACC_READ, &s, back, have_di, di0,
				rdi_end, r->val[RP_REG_RDI], iters);
	/* none done: nothing accessed */
	for (int i = 0; i < n; i++)
		if (acc[i].addr_known && !acc[i].size)
			acc[i--] = acc[--n];
	return n;
}
