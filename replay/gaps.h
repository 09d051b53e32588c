/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Gap accounting: the holes in a history (decode errors, missing code,
 * lost trace, loops PT cannot count), recorded by the index pass where the
 * history resumes.
 */
#ifndef PTREC_REPLAY_GAPS_H
#define PTREC_REPLAY_GAPS_H

#include <string.h>

#include "decode.h"

/* Where an instruction's opcode is (SDM Vol. 2: legacy prefixes, then
 * REX in 64-bit code when @rex): @len when there is none.  Inline: the
 * index pass classifies every block's last instruction with it.
 */
static inline size_t rp_opcode_at(const uint8_t *b, size_t len, bool rex)
{
	static const uint8_t prefixes[] = { 0x66, 0x67, 0xf2, 0xf3, 0xf0,
					    0x2e, 0x3e, 0x26, 0x36, 0x64,
					    0x65 };
	size_t i = 0;

	while (i < len && memchr(prefixes, b[i], sizeof(prefixes)))
		i++;
	if (rex && i < len && (b[i] & 0xf0) == 0x40)
		i++;
	return i;
}

/*
 * Where an instruction that needs no trace packet goes (SDM Vol. 3C,
 * Table 33-1: only direct jumps and calls, and instructions that do not
 * change the flow), from its bytes and length: the next address, or 0
 * when it needs a packet (conditional, indirect, return, far) or cannot be
 * told.
 */
uint64_t rp_gap_next_ip(const uint8_t *b, size_t len, uint64_t ip);

/* Up to 15 code bytes at @ip, as the decoder sees them.  Returns how many,
 * or -1 when no code is known there.
 */
ssize_t rp_walk_read_code(struct walk *w, uint64_t ip, uint8_t *buf);

/* The flow walker's code reader for walk @ctx (fwalk.h's rp_fwalk_read_fn):
 * the bytes libipt's image for the walk holds at @ip.
 */
int rp_walk_read_fw(void *ctx, uint8_t *buf, size_t size, uint64_t ip);

/*
 * A gap before the walk's position, for libipt error @err (0: a loop PT
 * cannot count) at @ip and stream offset @off; only while indexing.
 */
int rp_gap_add_at(struct walk *w, int err, uint64_t ip, uint64_t off);

/* The same, at the instruction decoder's offset. */
int rp_gap_add(struct walk *w, int err, uint64_t ip);

/*
 * An event that interrupts a loop the trace cannot count (tracing turned
 * off, or an interrupt, inside a `jmp` loop): the history shows the loop
 * up to the event's first chance to bind, not the iterations that ran, so
 * a gap of unknown length says so there.
 */
int rp_gap_loop(struct walk *w, const struct pt_event *ev);

/* An overflow event (OVF): a gap of RP_GAP_OVERFLOW where tracing resumes. */
int rp_gap_overflow(struct walk *w, const struct pt_event *ev);

/*
 * Trace the recorder lost (a LOST sideband record of this thread) is a hole
 * the decoder may not notice: the stream resumes at a PSB and decodes
 * cleanly on both sides.  Each such record becomes a gap at the first
 * checkpoint at or after its stream offset, or at the end of the history
 * when the loss is in the stream's tail (a truncated import).
 */
int rp_gaps_add_lost(struct rp_session *s, struct rp_thread *t);

#endif
