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
#include "index.h"

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
 * Block @b (status @status >= 0) in another mode than the block before:
 * a block from libipt's block cache keeps the mode it was decoded in, not
 * the one an exec-mode event set since, so a mode not the walk's is
 * corrupt trace (-pte_bad_context).  Returns the status to go on with.
 */
int rp_redo_blk_mode(struct walk *w, const struct pt_block *b, int status);

/*
 * Whether block @b, which the block decoder returned with @status, may end
 * at a branch a synchronous disable with its IP suppressed was bound to
 * (a near branch that needs trace): the instruction decoder binds such an
 * event to far branches only and stops there (walk.blk_trace_end).
 */
bool rp_redo_blk_trace_end(const struct pt_block *b, int status);

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

/*
 * Corrupt trace where a stream has cut points (a single PSB: kAFL/Nyx
 * traces, cuts.h) cannot be decoded again up to the next PSB, as
 * rp_redo_insns() does: there is none after the error.  The range's walk
 * goes back to its last checkpoint (a cut point, or the PSB when none is
 * later: the one before the error), the ranges after it are dropped, and
 * once the ranges are joined and that checkpoint has its return stack,
 * rp_redo_joined() decodes from it to the end as materializing will.
 */
enum rp_redo_how {
	RP_REDO_NONE,	/* none: 1, indexed in one piece or with pt_insn */
	RP_REDO_PSB,	/* rp_redo_insns(), in the range */
	RP_REDO_JOINED,	/* rp_redo_mark(), then rp_redo_joined() */
};

/*
 * How walk @w (a range from a split, @from_split, or to one, @to_split)
 * recovers from the block decoder's error @status there: with cut points
 * after the join, except a return that found libipt's stack empty in a
 * range from a split (maybe compressed against a call before the cut: the
 * stream is indexed in one piece, where it has that call); without, from
 * the last PSB in the range, except in a range of a cut stream.
 */
enum rp_redo_how rp_redo_choose(const struct walk *w, bool from_split,
				bool to_split, int status);

/*
 * The walk back at its redo point @p (its last checkpoint's first
 * instruction, or that checkpoint when nothing was decoded since): its
 * gaps and events from there dropped.  Returns 0, or 1 when it cannot (no
 * checkpoint, a materializing walk, no redo point, code mapped since).
 */
int rp_redo_mark(struct walk *w, const struct rp_redo_point *p);

/*
 * The index pass's corrupt trace, as rp_redo_choose() says for range @r:
 * rp_redo_insns() (returns as it does; @r->tail_checked set when it
 * decoded to the end), or rp_redo_mark() (@r->redo and *@done set), or 1.
 */
int rp_redo_corrupt(struct walk *w, const struct rp_redo_point *p,
		    const struct pt_config *cfg, struct range *r,
		    int *status, bool *done);

/*
 * After the join of a thread whose last range @last was marked (redo):
 * from the thread's last checkpoint to the end with the instruction
 * decoder, started as rp_walk_materialize() starts that segment, so the
 * two agree by construction; its error a gap where a plain pt_insn_next
 * loop puts it.  Returns 0, 1 where that decode may not be the plain
 * loop's (the cut point's return stack not whole and a return that found
 * it empty: the thread is indexed with the instruction decoder), or a
 * negated enum rp_error.
 */
int rp_redo_joined(struct rp_session *s, struct rp_thread *t,
		   const struct range *last);

/*
 * On a damaged stream the two decoders can also part without the block
 * decoder seeing an error: where the stream ends inside damage, the block
 * decoder took one more instruction before a disable event than the
 * instruction decoder decodes (fuzz_replay).  So the last segment is
 * decoded again, as it will materialize, when the stream had gaps or is
 * short (not on a clean long stream, where bench-replay measured 1.3% at
 * 10^6 instructions, nor one with one PSB, where it would double the
 * cost): any difference, or an error only the instruction decoder sees,
 * returns 1, and the thread is indexed with the instruction decoder.
 * @bw: the range's walk at its end.  Returns 0, 1, or a negated enum
 * rp_error.
 */
#define RP_TAIL_CHECK	(64u << 10)	/* instructions: a short stream */
int rp_redo_check_tail(struct walk *bw);

/* rp_redo_check_tail() on the thread's joined index (index_blocks()). */
int rp_redo_check_joined_tail(struct rp_session *s, struct rp_thread *t);

#endif
