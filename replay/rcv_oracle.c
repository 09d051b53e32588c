// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * An oracle for where stores of unknown address wrote (issue #17,
 * docs/values.md "The roots rcv_why names"): for measurements only.
 * rcv_why.c names, for a register not known, the first store its memory
 * search met; past it the search may stop again, so placing that store
 * may give nothing.  With the ground truth's registers before each such
 * store (valcheck's VALCHECK_ORACLE), rcv_alias.c takes the store to
 * have written exactly where they put its memory operand, for every
 * store or all but one, and valcheck measures what each would give.
 * Off unless a test sets it: the engine never consults it otherwise.
 */
#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"

void rp_recover_set_oracle(struct rp_recover *rc, rp_oracle_fn fn,
			   void *ctx)
{
	rc->oracle = fn;
	rc->oracle_ctx = ctx;
}

int rcv_oracle_wrote(struct win *w, size_t b, uint64_t a)
{
	struct rp_recover *rc = w->rc;
	const struct rcv_ins *in;
	const struct rcv_op *m = NULL;
	const struct rcv_acc *wr;
	uint64_t regs[16], addr;
	int k;

	if (!rc->oracle || b >= w->n)
		return -1;
	in = &w->ins[b];
	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM &&
		    (in->op[k].access & CS_AC_WRITE))
			m = &in->op[k];
	/* fs/gs: the base is not a register; bt's far byte; no size; a
	 * write the decoder could not name whole (xsave's area: its
	 * operand's size is not what it writes, rcv_access.c).
	 */
	if (!m || m->seg || rcv_bitop_far(in) ||
	    ((in->flags & RCV_I_MEMBAR) && in->id != X86_INS_PUSH &&
	     in->id != X86_INS_CALL && in->id != X86_INS_MOVSD))
		return -1;
	wr = rcv_acc_of(w, b, true);
	if (!wr->valid || !wr->size ||
	    rc->oracle(rc->oracle_ctx, w->first + b, in->ip, regs))
		return -1;
	addr = (uint64_t)m->imm;
	if (m->base == RCV_RIP)
		addr += in->ip + in->len;
	else if (m->base >= 0 && m->base < 16)
		addr += regs[m->base];
	if (m->index >= 0 && m->index < 16)
		addr += regs[m->index] * m->scale;
	if (in->a32)
		addr &= 0xffffffffull;
	return a - addr < wr->size;
}
