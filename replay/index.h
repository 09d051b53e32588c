/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The index planner and builder, the layer above segment decoding: how a
 * thread's stream is cut into ranges for parallel workers, and the index
 * (checkpoints, gaps) built from them.  rp_index_thread() and
 * rp_reindex_exact() (rp_internal.h) are its entry points.
 */
#ifndef PTREC_REPLAY_INDEX_H
#define PTREC_REPLAY_INDEX_H

#include "decode.h"
#include "rp_internal.h"

#define WORKERS_MAX	8	/* index workers at most */
#define RANGES_PER_WORKER 4
#define RANGE_MAX	(WORKERS_MAX * RANGES_PER_WORKER)

/*
 * The index needs instruction counts only, which libipt's block decoder
 * gives far faster than stepping every instruction.  Any decode error or
 * checkpoint mismatch returns 1: on damaged streams the two decoders may
 * disagree about where errors fall, and segments are materialized with the
 * instruction decoder, so the index must then come from that one too.
 *
 * A long stream is cut at PSBs into ranges that workers index in parallel
 * (a PSB is a sync point: decoding can start there, SDM Vol. 3C 33.4.2.17).
 * Each worker starts with the address space as of its PSB's time, as
 * resync() does, and records that in its first checkpoint, so a segment
 * materializes with the world it was indexed with.
 */
struct range {
	struct rp_session *s;
	struct rp_thread *t;
	size_t first_psb;	/* SIZE_MAX: from the stream's first sync */
	size_t stop_psb;	/* SIZE_MAX: to the stream's end */
	bool progress;
	struct rp_seg *seg;	/* set: materialize it from blocks */
	struct pt_image_section_cache *isc;	/* its worker's, or NULL */
	struct rp_ckpt *ckpts;
	size_t nckpts;
	struct rp_gap *gaps;
	size_t ngaps;
	struct rp_event *evs;
	size_t nevs;
	uint64_t insns, tsc;
	int64_t depth;		/* call depth at its end, from its start */
	bool nodepth;		/* a block without instruction class */
	bool stopped;
	bool first_en;		/* the IP where tracing first resumed, */
	uint64_t first_en_ip;	/* and where it resumed at the end (a */
	uint64_t stop_en_ip;	/* next range at a PSB without FUP) */
	bool stop_sync;		/* stopped resyncing at the next range */
	bool stop_en_resumed;	/* the enable it stopped at "resumed" */
	/* A stream with a single PSB, cut at TIP.PGEs (psbscan.h): */
	const struct rp_split *split;	/* set: it starts there, */
	const struct rp_split *stop_split;	/* and ends there */
	bool split_ckpt;	/* its split is a checkpoint, as are */
	const struct rp_split *cks;	/* these cut points where its */
	size_t ncks;		/* decode meets them (rp_cut_points()), */
	struct rp_rstk *rs;	/* with its return-stack model */
	int64_t lead_min;	/* lowest depth before its first checkpoint */
	bool ended;		/* a cut stream's end: missing code */
	bool tail_checked;	/* rp_redo_check_tail() ran on its last
				 * segment, or the instruction decoder
				 * decoded it */
	bool redo;		/* corrupt trace: back at its last checkpoint,
				 * decoded from there after the join
				 * (idx_redo.h, rp_redo_joined()) */
	uint64_t mode_bits, cr3, vmcs, cbr;	/* its walk's at its end */
	size_t first_ev[RP_FIRST_N];	/* its walk's (decode.h) */
	/* The index pass's: the last block's mode, the walk's mode bits
	 * then (in memory, not registers: the block loop's are taken).
	 */
	enum pt_exec_mode blk_mode;
	uint64_t blk_bits;
	bool no_fwalk;		/* libipt's block decoder only, */
	bool fwalk;		/* else the flow walker, */
	bool refused;		/* which met code it does not follow */
	int ret;
};

/* Cuts the stream into up to @n ranges of about equal size at PSBs with a
 * FUP, or without one where tracing resumes is known (psbscan.c).
 * Returns the number of ranges.
 */
size_t rp_index_plan(struct rp_session *s, struct rp_thread *t,
		     struct range *r, size_t n);

#endif
