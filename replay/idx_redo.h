/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The index pass's error recovery (issue #19): where libipt's block
 * decoder, which counts the index (index.c), stops or could part from the
 * instruction decoder, which materializes segments (decode.c).  Missing
 * code becomes a gap and the block decoder resyncs at the next PSB as the
 * instruction decoder would; corrupt trace rolls the walk back to its
 * last checkpoint and decodes that stretch again with the instruction
 * decoder, so that the gap lands where a plain pt_insn_next loop puts it.
 * Its own module so that index.c plans and joins ranges only.
 */
#ifndef PTREC_REPLAY_IDX_REDO_H
#define PTREC_REPLAY_IDX_REDO_H

#include "decode.h"

/*
 * The walk at the first instruction after its last checkpoint: where
 * corrupt trace is decoded again from (rp_redo_insns()).
 */
struct rp_redo_point {
	struct walk w;
	size_t nckpts;		/* 0: none taken yet */
	uint64_t offset;	/* the checkpoint's */
	size_t ngaps, nevs;
};

/*
 * Whether a block of class return, call or "error" that read the packets
 * in [@from, @to) of the decoder's buffer [@begin, @end) took a TIP with
 * its IP suppressed, which libipt 2.0's block decoder passes on its fast
 * path and the instruction decoder stops at (-pte_noip); a packet not
 * known here counts as one.
 */
bool rp_redo_tip_noip(const uint8_t *begin, const uint8_t *end,
		      uint64_t from, uint64_t to);

/*
 * Code missing at @ip (the block decoder's -pte_nomap): a gap there, then
 * the block decoder's resync; where it resynced in *@resync_off
 * (UINT64_MAX: the end of the stream).  Returns 0 or a negated enum
 * rp_error.
 */
int rp_redo_nomap_gap(struct walk *w, uint64_t ip, uint64_t *resync_off);

/*
 * The block decoder on again at the PSB at @off after an error, a
 * checkpoint there (or the walk stopped: the next worker's range starts
 * there); libipt's status in *@status.  Returns 0, 1 when @off is no PSB
 * or the decoder cannot sync there, or a negated enum rp_error.
 */
int rp_redo_resync(struct walk *w, uint64_t off, int *status);

/* Takes the walk's state into @p at the first instruction after its last
 * checkpoint (once per checkpoint).
 */
void rp_redo_point_take(struct rp_redo_point *p, const struct walk *w);

/*
 * Corrupt trace: the walk back at its last checkpoint (a PSB, @p), that
 * stretch decoded again with the instruction decoder (configured as
 * @cfg) to its first resync, the block decoder on from there.  Returns 0
 * (*@status the block decoder's, or w->stopped, or *@done at the end of
 * the stream), 1 where it cannot (the thread is then indexed with the
 * instruction decoder), or a negated enum rp_error.
 */
int rp_redo_insns(struct walk *w, const struct rp_redo_point *p,
		  const struct pt_config *cfg, int *status, bool *done);

#endif
