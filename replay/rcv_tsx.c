// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * RTM transactions that abort (issue #18; Intel SDM Vol. 1 ch. 16, "Intel
 * TSX"): the instructions between XBEGIN and the abort ran and are in the
 * trace (PT reports them, then MODE.TSX with TXAbort and an asynchronous
 * branch to the XBEGIN's fallback), but nothing they wrote happened: the
 * processor discards their stores and resumes at the fallback with the
 * registers of the XBEGIN, except EAX, the abort status.
 *
 * The recovery engine does not restore that state; it makes what the
 * transaction wrote unknown instead of wrong: the instruction before an
 * abort is a barrier for registers and memory, as an unexplained transfer
 * is (recover.c makes one of most aborts already, as their branch to the
 * fallback is not the instruction's; not of an abort whose fallback is
 * where that instruction would have gone next, as gcc's _xbegin() puts it
 * right after the XBEGIN).  The events say where aborts are, not the
 * control flow.
 */
#include "rcv_win.h"
#include "replay.h"

void rcv_tsx_barriers(struct rp_recover *rc, struct win *w)
{
	struct rp_event ev;
	uint64_t i;

	for (i = rp_thread_event_find(rc->s, rc->tid, w->first + 1);
	     !rp_thread_event(rc->s, rc->tid, i, &ev) && ev.before <= w->last;
	     i++)
		if (ev.kind == RP_EV_TSX && (ev.flags & RP_EVF_TSX_ABORT) &&
		    ev.before > w->first)
			w->ins[ev.before - 1 - w->first].flags |=
				RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_XFER;
}
