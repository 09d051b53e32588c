// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where an instruction that writes a range the decoder cannot name whole
 * may write (issue #17, docs/values.md "Write extents: xsave and string
 * stores").  xsave's area and a string store's run are barriers to every
 * memory question (rcv_index.c: RCV_I_MEMBAR), yet each writes only
 * within a range the states bound:
 *
 * - fxsave writes 512 bytes from its operand; xsave, xsavec and xsaveopt
 *   (and their 64-bit forms) at most the standard-format size for the
 *   process's XCR0 from it (Intel SDM Vol. 1, 13.4 to 13.11: the
 *   compacted form is no larger).  That size is the kernel's user xstate
 *   size, which the recorder read as the length of each thread's
 *   NT_X86_XSTATE (the regset's size, the buffer being larger); XCR0 is
 *   the same for every thread of the machine.  Never a guess: no
 *   snapshot thread with it, or two that disagree, and xsave stays a
 *   barrier.  (xsaves faults in user mode: left alone.)
 * - stos and movs (with rep or not) write rcx elements from rdi, up or
 *   down as DF says; nothing when rcx is 0, whatever rdi.
 *
 * A byte outside the range was not written by it: rcv_mem.c walks past it
 * for that byte, rcv_alias.c does not count it as a last writer.
 */
#include <capstone/capstone.h>

#include "rcv_win.h"

#define XSAVE_LEGACY	576	/* legacy region and header: any XSAVE area */

/*
 * The bound of an XSAVE area for the recorded process's XCR0: every
 * thread's NT_X86_XSTATE length in the snapshot, when they agree and
 * none was cut by the recorder's buffer (SB_SNAP_XSTATE_MAX, 64 KiB).
 */
static uint32_t xsave_size(struct rp_recover *rc)
{
	struct rp_snap_thread_info ti;
	uint32_t sz = 0;
	size_t k;

	if (rc->xsz_done)
		return rc->xsz;
	rc->xsz_done = true;
	if (!rc->sn)
		return 0;
	for (k = 0; !rp_snapshot_proc_thread(rc->sn, rc->pid, k, &ti); k++) {
		if (!ti.xstate || !ti.xstate_len)
			continue;
		if (ti.xstate_len < XSAVE_LEGACY ||
		    ti.xstate_len >= (64u << 10) ||
		    (sz && ti.xstate_len != sz))
			return 0;
		sz = ti.xstate_len;
	}
	rc->xsz = sz;
	return sz;
}

/* The bytes an xsave-family instruction may write from its operand. */
static uint64_t xsave_len(struct rp_recover *rc, unsigned int id)
{
	switch (id) {
	case X86_INS_FXSAVE: case X86_INS_FXSAVE64:
		return 512;
	case X86_INS_XSAVE: case X86_INS_XSAVEC: case X86_INS_XSAVEOPT:
	case X86_INS_XSAVE64: case X86_INS_XSAVEC64: case X86_INS_XSAVEOPT64:
		return xsave_size(rc);
	default:
		return 0;
	}
}

/*
 * Does instruction @b of @w write only within [*@lo, *@lo + *@len)?
 * (*@len 0: it writes nothing.)  False when it is not one of the above
 * or the states do not bound it.
 */
bool rcv_extent(struct win *w, size_t b, uint64_t *lo, uint64_t *len)
{
	const struct rcv_ins *in;
	const struct rcv_state *s;
	const struct rcv_op *m = NULL;
	bool src, dread, dst;
	struct rcv_val ad, df;
	uint64_t cnt = 1;
	unsigned int es;
	int k;

	if (b >= w->n)
		return false;
	in = &w->ins[b];
	s = &w->st[b];
	/* Every one of them is (rcv_cs_implicit_store()). */
	if (!(in->flags & RCV_I_MEMBAR) || in->a32 ||
	    (in->flags & (RCV_I_BARRIER | RCV_I_BAD | RCV_I_SYSCALL |
			  RCV_I_XFER | RCV_I_UNPROVEN)))
		return false;
	es = rcv_str_op(in, &src, &dread, &dst);
	if (es) {
		if (!dst)
			return false;
		df = s->r[RCV_FLAGS];
		if (in->flags & RCV_I_REP) {
			if (s->r[RP_REG_RCX].k != ~0ull ||
			    s->r[RP_REG_RCX].v > (1ull << 32))
				return false;
			cnt = s->r[RP_REG_RCX].v;
		}
		*len = cnt * es;
		*lo = 0;
		if (!cnt)
			return true;	/* rep with rcx 0: no iteration */
		if (!(df.k & F_DF) || s->r[RP_REG_RDI].k != ~0ull)
			return false;
		*lo = s->r[RP_REG_RDI].v;
		if (df.v & F_DF)	/* downward: the last element lowest */
			*lo -= *len - es;
		return true;
	}
	if (!rcv_xsave_like(in->id))
		return false;
	*len = xsave_len(w->rc, in->id);
	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM)
			m = &in->op[k];
	if (!*len || !m || m->seg)
		return false;
	ad = rcv_addr(&w->rc->ctx, in, m, s);
	if (ad.k != ~0ull)
		return false;
	*lo = ad.v;
	return true;
}

uint8_t rcv_extent_kept(struct win *w, size_t b, uint64_t word)
{
	uint64_t lo, len;
	uint8_t m = 0;
	unsigned int t;

	if (!w->mbar[b] || !rcv_extent(w, b, &lo, &len))
		return 0;
	for (t = 0; t < 8; t++)
		if (8 * word + t - lo >= len)
			m |= (uint8_t)(1u << t);
	return m;
}

bool rcv_extent_refuted(struct win *w, size_t b, uint64_t a)
{
	uint64_t lo, len;

	return rcv_extent(w, b, &lo, &len) && a - lo >= len;
}
