/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The trace's events (events.c), the index pass's side: libipt's events
 * kept in the history at the walk's position.
 */
#ifndef PTREC_REPLAY_EVENTS_H
#define PTREC_REPLAY_EVENTS_H

#include "decode.h"
#include "ptkit.h"

/*
 * Keeps @ev at @w's position, while indexing (the index pass sees every
 * event once).  Status updates (a PSB+ repeating the state) are not
 * events; execution mode, CR3 (PIP), VMCS and the core:bus ratio only
 * where they change from a value seen before (in a PSB+ too; a CBR
 * outside a PSB+ always).  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_event_keep(struct walk *w, const struct pt_event *ev);

/* rp_event_keep(), inline for the status updates most events are: the
 * index pass sees one for every packet of every PSB+.
 */
static inline int rp_event_take(struct walk *w, const struct pt_event *ev)
{
	if (ev->status_update && ev->type != ptev_exec_mode &&
	    ev->type != ptev_paging && ev->type != ptev_async_paging &&
	    ev->type != ptev_vmcs && ev->type != ptev_async_vmcs &&
	    ev->type != ptev_cbr)
		return 0;
	return rp_event_keep(w, ev);
}

/*
 * The @n PEBS block items read at stream offset @off (a callback of
 * libipt's decoder, decode.c), at @w's position, while indexing and once
 * per offset.  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_event_pebs(struct walk *w, uint64_t off,
		  const struct ptkit_pebs_item *it, size_t n);

/* A PTWRITE's operand: RIP-relative (@addr), a register, memory at a
 * base register plus a displacement, or memory at [base] + index * scale
 * + displacement (PTW_INDEX: @reg the base or -1, @index, @scale).  DWARF
 * register numbers.
 */
struct ptw_operand {
	enum { PTW_RIP, PTW_REG, PTW_BASE, PTW_INDEX } kind;
	uint64_t addr;
	int reg;
	int index;
	unsigned int scale;
	int64_t disp;
};

/* The length of the PTWRITE in @b (@n bytes), or 0 when it is none:
 * Capstone 4 knows no PTWRITE.
 */
int rp_ptwrite_length(const uint8_t *b, size_t n);

/* Decodes the PTWRITE in @b (@n bytes at @ip).  Returns 0, or -1 when it
 * is none.
 */
int rp_ptwrite_operand(const uint8_t *b, size_t n, uint64_t ip,
		       struct ptw_operand *op);

#endif
