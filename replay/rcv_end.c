// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where a thread's history ends inside an instruction.  The end snapshot
 * is where the thread stopped: right after the history's last
 * instruction, since an instruction that faults changes nothing (faults
 * are precise), except a repeated string instruction: each of its
 * iterations done before the fault (or before an interrupt between
 * iterations) changed rcx, rsi, rdi, rax (lods), the flags (cmps, scas)
 * and the memory it stores to, and the trace shows no instruction for
 * them (the rep completes only with its last iteration).  What the
 * snapshot says of those is then not the state after the history's last
 * instruction (tests/values/crash.c rep: 17 wrong registers before).
 * The engine takes them from the snapshot only where the instruction at
 * the end's rip cannot have changed them; one it cannot read or decode
 * may be such a string instruction: none of those, nor memory.  So are
 * gathers and scatters (AVX2, AVX-512).
 */
#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"

/* What a string instruction may write: rax (lods), rcx, rsi, rdi. */
#define STRING_REGS ((1u << RP_REG_RAX) | (1u << RP_REG_RCX) | \
		     (1u << RP_REG_RSI) | (1u << RP_REG_RDI))

static bool stores(unsigned int id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
	case X86_INS_MOVSQ: case X86_INS_STOSB: case X86_INS_STOSW:
	case X86_INS_STOSD: case X86_INS_STOSQ: case X86_INS_INSB:
	case X86_INS_INSW: case X86_INS_INSD:
		return true;
	default:
		return false;
	}
}

void rcv_end_partial(struct rp_recover *rc)
{
	uint64_t ip = rc->end_regs.val[RP_REG_RIP];
	uint8_t raw[16];
	struct rcv_ins in;
	size_t len = 0;
	int n, g;

	if (!(rc->end_regs.valid & (1ull << RP_REG_RIP)))
		return;	/* no end state: nothing seeded from it */
	n = rp_read_code(rc->s, rc->tid, rc->count, ip, raw, 15);
	if (n > 0)
		len = rcv_dec_len(rc->dec, ip, raw, (size_t)n);
	if (!len) {
		rc->end_drop = STRING_REGS;
		rc->end_fdrop = ARITH_FLAGS;
		rc->end_wild = true;
		rc->end_xk = 0;	/* it may be a gather */
		return;
	}
	rcv_decode(rc->dec, ip, raw, len, RP_IC_OTHER, &in);
	/* A gather or scatter faults after the elements before the
	 * faulting one (SDM Vol. 2C VPSCATTERDD: the mask records the
	 * progress): a scatter's stores are in the snapshot, not in the
	 * history (review7 scatterend); a gather's destination and mask
	 * registers hold the elements done.
	 */
	if (rcv_vsib(raw, len)) {
		rc->end_wild = true;
		rc->end_xk = 0;	/* a gather's destination and mask */
		return;
	}
	if (!(in.flags & RCV_I_REP))
		return;
	rc->end_drop = STRING_REGS;
	for (g = 0; g < 16; g++)
		if (in.wcode[g])
			rc->end_drop |= 1u << g;
	rc->end_fdrop = in.fw;
	rc->end_wild = stores(in.id) || (in.flags & RCV_I_MEMBAR);
}
