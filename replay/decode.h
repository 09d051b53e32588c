/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Segment decoding, the layer above the PSB scan: one walk through a
 * thread's stream with libipt's instruction decoder (or, for the index,
 * its block decoder), the address space following the sideband.  The index
 * pass (index.h) and segment materialization (rp_materialize) share it, so
 * a segment decodes exactly as it was counted.
 */
#ifndef PTREC_REPLAY_DECODE_H
#define PTREC_REPLAY_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "blksrc.h"
#include "rp_internal.h"

/*
 * Instructions decoded without consuming any trace: direct jumps need no
 * packets, so on damaged input the decoder can loop in code forever.  In a
 * real trace an event at that address ends even a `jmp .` spin, so this
 * many means the trace no longer matches the code.
 */
#define STALL_LIMIT (1u << 20)
#define RP_ILD_BYTES 29	/* loop_free()'s made-up PSB+ (gaps.c) */

/* Bytes past its end a copy of the stream from a split holds (a range's,
 * a segment's): enough for libipt to read past the next split's TIP.PGE
 * (off_psb_enable).
 */
#define SPLIT_SLACK	(64u << 10)

/* The class of the instruction at an address, from its bytes. */
struct cls_slot {
	uint64_t ip1;		/* address + 1; 0: empty */
	int cls;		/* enum pt_insn_class, -1: unknown */
};

#define CLS_SLOTS 1024

struct rp_rstk;

/* The states struct walk's first_ev follows. */
enum {
	RP_FIRST_MODE,		/* execution mode */
	RP_FIRST_CR3,
	RP_FIRST_VMCS,
	RP_FIRST_CBR,		/* a core:bus ratio in a PSB+, */
	RP_FIRST_CBR_OUT,	/* or outside one */
	RP_FIRST_N
};

struct walk {
	struct rp_session *s;
	struct rp_thread *t;
	struct rp_world world;
	struct pt_insn_decoder *d;
	struct rp_bsrc *bd;	/* fast indexing, when set (blksrc.h) */
	struct pt_image *image;
	uint64_t pos;
	uint64_t tsc;
	uint64_t pkt_end;	/* stream offset after the last insn */
	bool indexing;
	/* indexing: PSB matching */
	size_t psb_next;	/* PSBs before this one are matched */
	bool overshot;		/* a worker passed its end unseen */
	bool expect_fup;
	uint64_t fup_ip;
	bool ckpt_added;	/* the pending match added a checkpoint */
	struct rp_ckpt **ckpts;	/* where checkpoints go: the thread's, or */
	size_t *nckpts;		/* a parallel indexing worker's own */
	size_t stop_psb;	/* a worker ends on reaching this PSB */
	size_t start_psb;	/* a worker's first PSB (SIZE_MAX: none) */
	size_t match_psb;	/* the PSB of the pending FUP check */
	/*
	 * PSBs without a FUP (tracing off there, as in kAFL's and
	 * DynamoRIO's traces): a checkpoint goes at the last such PSB
	 * before tracing resumes, and a worker whose range ends at one stops
	 * at that enable (decode.c, off_psb_enable).
	 */
	bool traced;		/* tracing on: instructions may come */
	size_t off_done;	/* the last PSB without FUP given a checkpoint */
	bool ckpt_sync;		/* the last checkpoint is where decoding
				 * (re)started: it moves to such a PSB */
	bool first_en;		/* first_en_ip is set */
	uint64_t first_en_ip;	/* a worker's first enable */
	uint64_t stop_en_ip;	/* the enable a worker stopped at, */
	bool stop_en_resumed;	/* libipt's "resumed" there (a split) */
	uint64_t en_off;	/* the decoder's offset at the last enable */
	bool stop_sync;		/* a worker stopped by resyncing at its end */
	bool stop_at_enable;	/* ... at the enable its last PSB+ makes */
	/*
	 * Indexing a range after the first: the first value of each state
	 * events.c keeps where it changes is kept too, its event's index +
	 * 1 in @first_ev (index.c keeps it where it differs from the range
	 * before's last, as one pass through both would).
	 */
	bool first_obs;
	size_t first_ev[RP_FIRST_N];
	/*
	 * Indexing: decoding restarts at the checkpoint just added at a PSB
	 * without FUP, as materializing will, so that state libipt keeps
	 * across an in-stream PSB (its return-compression stack) cannot
	 * make the two disagree (decode.c, rp_walk_ckpt_resync).
	 */
	bool resync_ckpt;
	bool no_restart;	/* ... except in index.c's redo (idx_redo.c),
				 * which checks those segments instead */
	bool redo;		/* events read again after it: skip */
	bool redo_enable;	/* ... up to an enable (else an insn) */
	/*
	 * The block pass: its last block may end at a near branch a disable
	 * with its IP suppressed binds to in the block decoder only
	 * (rp_redo_blk_trace_end()): rp_walk_events() takes such an event
	 * read next for the instruction decoder's -pte_bad_query there (and
	 * clears this).
	 */
	bool blk_trace_end;
	int64_t off_delta;	/* stream offset - decoder offset (a split) */
	const struct rp_split *stop_split;	/* a worker ends at it */
	/*
	 * Indexing a stream with a single PSB: the TIP.PGEs (psbscan.h)
	 * that become checkpoints where the decode meets them with their
	 * IP (off_psb_enable), and the next one to meet; a checkpoint's
	 * rets_at is then its snapshot in @rs + 1 (index.c resolves it).
	 */
	const struct rp_split *cks;
	size_t ncks, ck_next;
	struct rp_rstk *rs;	/* their return stacks */
	uint8_t *buf;		/* the decoder's input when it is a copy */
	struct rp_gap **gaps;	/* where gaps go: the thread's, or */
	size_t *ngaps;		/* a parallel indexing worker's own */
	struct rp_event **evs;	/* where events go (events.h), as gaps */
	size_t *nevs;
	uint64_t mode_bits;	/* the last execution mode (0: none yet), */
	uint64_t cr3, vmcs;	/* CR3 and VMCS base (events.c), */
	uint64_t cbr;		/* core:bus ratio + 1 */
	uint64_t pebs_off;	/* past the last PEBS block kept (+1) */
	bool stop_at_error;	/* counting: stop at the first error */
	int error;		/* counting: the error stopped at (libipt) */
	uint64_t resync_off;	/* counting: where it resynced (or ~0) */
	bool ckpt_new;		/* a checkpoint added (index.c's redo point) */
	bool hand_back;		/* indexing: stop at the first resync, */
				/* its offset in resync_off (index.c) */
	bool stopped;
	int64_t depth;		/* call depth, from the start of decoding */
	int64_t seg_min;	/* lowest depth since the last checkpoint */
	struct cls_slot *cls;	/* indexing: classes of block ends, */
	struct cls_slot *loops;	/* and loop_free() (gaps.c) by address */
	/* materializing */
	struct rp_seg *seg;
	uint64_t end;
	int err;		/* our own failure (negated enum rp_error) */
	const struct rp_map *last_map;	/* lookup cache for store() */
	const struct rp_map *fw_map;	/* ... and the flow walker's reads, */
	int fw_isid;			/* its section */
	struct insn_decoder *dec;	/* instruction classes (capstone) */
	struct pt_insn_decoder *ild;	/* loop_free() (gaps.c) over */
	uint8_t ild_buf[RP_ILD_BYTES];	/* this made-up PSB+ */
	uint8_t code[128];	/* gaps.c: code read last, at code_ip */
	uint64_t code_ip;
	size_t code_n;
};


/* Stores @insn, at @tsc, when the walk's position is in its segment. */
void rp_walk_store(struct walk *w, const struct pt_insn *insn, uint64_t tsc);

/*
 * Stores the instructions of block @b (the last of class @cls, -1: not
 * known) from the walk's position on, up to @w->end: their lengths from
 * the code (ptkit's decoder), checked against the block's end.  Returns 0
 * or a negated enum rp_error.
 */
int rp_walk_store_block(struct walk *w, const struct pt_block *b, int cls);

/*
 * The calls and returns among block @b's instructions before its last,
 * for a block that ends in no branch (libipt's block decoder went on to
 * an event's address past them): the walk's depth follows them.  Returns
 * 0, or -1 when the code is not known.
 */
int rp_walk_block_inner_depth(struct walk *w, const struct pt_block *b);

/* Decodes against @w's address space of now (after it changed). */
int rp_walk_set_image(struct walk *w);

/*
 * The class of a block's last instruction when libipt's block cache did
 * not say (it leaves ptic_error, for indirect jumps at least), read from
 * the code, cached by address.  Returns -1 when the code is not known.
 */
int rp_walk_block_class_slow(struct walk *w, const struct pt_block *b);

/* Inline, as the index pass calls these for every block. */
static inline int rp_walk_block_class(struct walk *w,
				      const struct pt_block *b)
{
	return b->iclass != ptic_error ? (int)b->iclass :
					 rp_walk_block_class_slow(w, b);
}

/* libipt's configuration for @t's stream (CPU, errata, timing, the
 * reader of packets libipt does not know), for walk @w.
 */
void rp_walk_config(struct rp_session *s, struct rp_thread *t,
		    struct pt_config *cfg, struct walk *w);

/* Closes the last checkpoint's segment: its lowest call depth. */
void rp_walk_close_ckpt(struct walk *w);

/* Adds checkpoint @c at the walk's position and depth. */
int rp_walk_add_ckpt(struct walk *w, const struct rp_ckpt *c);

/* Drops the checkpoint just added: its segment joins the one before. */
void rp_walk_drop_ckpt(struct walk *w);
int rp_walk_ckpt_resync(struct walk *w);

/* The call depth after an instruction of class @iclass. */
static inline void rp_walk_track_depth(struct walk *w,
				       enum pt_insn_class iclass)
{
	if (iclass == ptic_call)
		w->depth++;
	else if (iclass == ptic_return)
		w->depth--;
	else
		return;
	if (w->depth < w->seg_min)
		w->seg_min = w->depth;
}

/* Handles pending events.  Returns libipt's status; our own failures go to
 * w->err (and stop decoding with -pte_internal).
 */
int rp_walk_events(struct walk *w, int status);

/*
 * Decodes from the decoder's current sync point until @w->end instructions
 * (UINT64_MAX: the end of the stream), turning errors into gaps.
 */
int rp_walk_run(struct walk *w, int status);

/* An instruction-decoder walk of @t, the sideband applied up to @sb_next. */
int rp_walk_begin(struct walk *w, struct rp_session *s,
		  struct rp_thread *t, uint64_t sb_next);

/*
 * An instruction-decoder walk of @t from checkpoint @c (not the first),
 * synced there: at its PSB, or at its split's TIP.PGE behind a made-up
 * PSB+, on a copy of the stream up to offset @to (+ SPLIT_SLACK).
 * Returns libipt's status (below 0: not synced) in *@status, and 0 or a
 * negated enum rp_error.
 */
int rp_walk_begin_at(struct walk *w, struct rp_session *s,
		     struct rp_thread *t, const struct rp_ckpt *c,
		     const uint64_t *rets, size_t nrets, uint64_t to,
		     int *status);

/*
 * Segment @k of @t into @seg with the instruction decoder: from its
 * checkpoint, or, when that decodes another count than the index's, from
 * the start of the stream.  Returns 0 (@seg may still hold another count:
 * the caller decides) or a negated enum rp_error.
 */
int rp_walk_materialize(struct rp_session *s, struct rp_thread *t,
			uint64_t k, struct rp_seg *seg);

/*
 * A block-decoder walk of @t from checkpoint @c, synced there (a PSB, or
 * the stream's first sync for checkpoint 0), configured as the index
 * pass (blocks end at calls and jumps): cursor.c's rp_cursor_blocks().
 * A split's checkpoint is not started (-RP_ERR_DECODE): it needs the
 * instruction decoder's shim.  libipt's status in *@status.
 */
int rp_walk_begin_blocks(struct walk *w, struct rp_session *s,
			 struct rp_thread *t, const struct rp_ckpt *c,
			 int *status);

/* Frees what a walk holds (either decoder, image, world). */
void rp_walk_end(struct walk *w);

#endif
