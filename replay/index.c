// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index planner and builder: the stream cut at PSBs into ranges that
 * workers index in parallel with libipt's block decoder, the ranges'
 * checkpoints and gaps joined, and the instruction decoder (which
 * materializes segments, decode.h) wherever the two could disagree.
 * Before the split, the PSB scan, segment decoding, gap accounting and
 * this were one file (walk.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuts.h"
#include "decode.h"
#include "gaps.h"
#include "idx_redo.h"
#include "index.h"
#include "psbscan.h"

/*
 * The address space decoding starts with: everything up to the time of
 * the first PSB (for range 0, the stream's first), so that a stream
 * without timing packets still sees the snapshot (time 0) mappings.
 */
static uint64_t start_tsc(const struct rp_thread *t, size_t psb)
{
	if (psb == SIZE_MAX)
		psb = 0;
	return psb < t->npsbs ? t->psbs[psb].tsc : 0;
}

static int index_range_once(struct range *r)
{
	struct rp_session *s = r->s;
	struct rp_thread *t = r->t;
	struct rp_ckpt c0 = { 0 };
	uint64_t trace_off = 0, last_off = UINT64_MAX, stall = 0;
	uint64_t blk_from = UINT64_MAX;	/* the offset before a block */
	struct pt_config cfg;
	struct pt_image_section_cache *isc;
	struct pt_block block;
	struct walk w;
	struct rp_redo_point *rp = calloc(1, sizeof(*rp));
	uint8_t *buf = NULL;
	int ret, status;
	bool done = false;
	size_t i;

	if (!rp)
		return -RP_ERR_NOMEM;
	memset(&w, 0, sizeof(w));
	w.s = s;
	w.t = t;
	w.end = UINT64_MAX;
	w.indexing = true;
	w.ckpts = &r->ckpts;
	w.nckpts = &r->nckpts;
	w.gaps = &r->gaps;
	w.ngaps = &r->ngaps;
	w.evs = &r->evs;
	w.nevs = &r->nevs;
	w.stop_psb = r->stop_psb;
	w.start_psb = r->first_psb;
	w.cks = r->cks;
	w.ncks = r->ncks;
	/* After another range: its first states decided at the join. */
	w.first_obs = !r->seg && (r->first_psb != SIZE_MAX || r->split);
	if (r->ncks && !r->seg) {
		w.rs = r->rs = calloc(1, sizeof(*w.rs));
		if (w.rs)
			w.rs->lens = calloc(CLS_SLOTS, sizeof(*w.rs->lens));
		if (!w.rs || !w.rs->lens) {
			free(rp);
			return -RP_ERR_NOMEM;
		}
	}
	/* Its own cut points are after its start. */
	while (r->split && w.ck_next < w.ncks &&
	       w.cks[w.ck_next].offset <= r->split->offset)
		w.ck_next++;
	w.off_done = SIZE_MAX;
	if (r->seg) {
		w.seg = r->seg;
		w.end = r->seg->first + r->seg->n;	/* its length, here */
		r->seg->n = 0;
	}
	rp_world_init(&w.world, s);
	/*
	 * The pass's own section cache (or its worker's, kept across the
	 * worker's ranges of this stream, which a single pass would decode
	 * in turn): workers do not contend for the sections' locks, and
	 * libipt's block cache holds only what this stream's index pass
	 * decoded (one filled by other threads' or earlier decodes made the
	 * block decoder disagree with the instruction decoder on damaged
	 * input: fuzz_replay's bcache-mode-shorter-history).
	 */
	w.world.iscache = r->isc ? r->isc : pt_iscache_alloc(NULL);
	if (!w.world.iscache) {
		rp_world_fini(&w.world);
		free(rp);
		return -RP_ERR_NOMEM;
	}
	ret = rp_world_advance(&w.world, start_tsc(t, r->first_psb));
	if (ret)
		goto out_world;
	rp_walk_config(s, t, &cfg, &w);
	w.stop_split = r->stop_split;
	if (r->split) {
		/* A made-up PSB+ and the TIP.PGE, then the bytes after it,
		 * up to a little past the next split; offsets in it map back
		 * by @off_delta.
		 */
		uint64_t to = r->stop_split ? r->stop_split->offset +
					      SPLIT_SLACK : t->pt_size;
		size_t len;

		ret = rp_split_buffer(t, r->split, NULL, 0, 0, to, &buf, &len,
				      &w.off_delta);
		if (ret) {
			/* Out of memory fails; anything else: in one piece. */
			if (ret != -RP_ERR_NOMEM)
				ret = 1;
			goto out_world;
		}
		cfg.begin = buf;
		cfg.end = buf + len;
	}
	/*
	 * libipt 2.0's block cache follows direct jumps and calls by
	 * recursion: on damaged input that loops in code ('jmp .') without
	 * consuming trace, it recurses until the stack overflows.  Ending a
	 * block at every jump and call hands control back to the stall check
	 * below on each turn of such a loop.
	 */
	cfg.flags.variant.block.end_on_jump = 1;
	cfg.flags.variant.block.end_on_call = 1;
	/* The flow walker where it follows the code (blksrc.h); a range
	 * it refuses is indexed again with libipt's block decoder.
	 */
	w.bd = rp_bsrc_new(&cfg, !r->seg && !r->no_fwalk, rp_walk_read_fw,
			   &w);
	w.cls = calloc(CLS_SLOTS, sizeof(*w.cls));
	w.loops = calloc(CLS_SLOTS, sizeof(*w.loops));
	ret = w.bd && w.cls && w.loops ? rp_walk_set_image(&w) :
					 -RP_ERR_NOMEM;
	r->fwalk = w.bd && rp_bsrc_is_walker(w.bd);
	if (ret)
		goto out;
	if (r->split) {
		/* No PSB of the stream's in it: none to match. */
		w.psb_next = t->npsbs;
		w.off_done = t->npsbs - 1;
		status = rp_bsrc_sync_set(w.bd, 0);
		if (status < 0) {
			ret = 1;
			goto out;
		}
		if (r->split_ckpt) {
			/* Where materializing will start too (decode.c),
			 * with the return stack the range before leaves.
			 */
			c0.offset = r->split->offset;
			c0.tsc = r->split->tsc;
			c0.sb_next = w.world.next;
			c0.split = *r->split;
			ret = w.rs ? rp_rs_snap(w.rs) : 0;
			if (ret >= 0) {
				c0.rets_at = w.rs ? (uint32_t)ret + 1 : 0;
				ret = rp_walk_add_ckpt(&w, &c0);
			}
		}
		goto run;
	}
	if (r->first_psb == SIZE_MAX) {
		status = rp_bsrc_sync_forward(w.bd);
		if (status >= 0)
			rp_bsrc_get_sync_offset(w.bd, &c0.offset);
		if (t->npsbs)
			c0.tsc = t->psbs[0].tsc;
		c0.sb_next = w.world.next;
	} else {
		c0.offset = t->psbs[r->first_psb].offset;
		c0.tsc = t->psbs[r->first_psb].tsc;
		c0.sb_next = w.world.next;
		w.psb_next = r->first_psb;
		status = rp_bsrc_sync_set(w.bd, c0.offset);
	}
	if (status < 0) {
		ret = 1;
		goto out;
	}
	i = rp_psb_at(t, c0.offset);
	w.traced = i != SIZE_MAX && t->psbs[i].fup;
	ret = rp_walk_add_ckpt(&w, &c0);
	w.ckpt_sync = true;
run:
	while (!ret) {
		/* Most blocks end with no event: no call. */
		if (status >= 0 && (status & pts_event_pending)) {
			status = rp_walk_events(&w, status);
			if (w.mode_bits != r->blk_bits || w.stop_at_enable) {
				r->blk_bits = w.mode_bits;
				r->blk_mode = ptem_unknown;
			}
		}
		if (w.err) {
			ret = w.err;
			break;
		}
		if (w.stopped)
			break;
		if (status >= 0 && (status & pts_eos))
			break;
		if (status >= 0) {
			/* What an error leaves is read below: clear it. */
			block.ip = 0;
			block.ninsn = 0;
			/* Where the last block ended, unless the decoder
			 * synced since (events read on only widen it).
			 */
			if (blk_from == UINT64_MAX || w.redo)
				rp_bsrc_get_offset(w.bd, &blk_from);
			status = rp_bsrc_next(w.bd, &block);
			/* Events read again end (rp_walk_ckpt_resync()). */
			w.redo = w.redo_enable = false;
			rp_bsrc_get_offset(w.bd, &trace_off);
			if (status >= 0 && block.ninsn && !r->fwalk &&
			    (block.iclass == ptic_return ||
			     block.iclass == ptic_call ||
			     block.iclass == ptic_error) &&
			    rp_redo_tip_noip(cfg.begin, cfg.end, blk_from,
					     trace_off))
				status = -pte_noip;
			blk_from = trace_off;
			/* Only with events to read: no call on most. */
			w.blk_trace_end = status >= 0 &&
					  (status & pts_event_pending) &&
					  rp_redo_blk_trace_end(&block, status);
			/* One compare per block: a mode not the last one's
			 * (blk_mode, reset by the events that matter here).
			 */
			if (status >= 0 && block.ninsn &&
			    block.mode != r->blk_mode) {
				status = rp_redo_blk_mode(&w, &block, status);
				if (w.stopped)
					break;
				r->blk_mode = block.mode;
			}
		}
		if (status == -pte_eos ||
		    (status == -pte_not_supported && r->fwalk))
			break;	/* (the walker refused: again, index_range()) */
		if (status < 0) {
			uint64_t off = UINT64_MAX;
			/* status's own address never taken: a register on
			 * every block (+2.6% Ir of glibc-nolib's info when
			 * it was, blkerr's insn_redo(&status)).
			 */
			int st = status;

			r->blk_mode = ptem_unknown;	/* checked after it */
			stall = 0;
			last_off = UINT64_MAX;
			/*
			 * Code missing where decoding goes next (a library not
			 * given, the usual damage in real traces): both
			 * decoders stop before that instruction, having read
			 * the same packets.  Any other error means corrupt
			 * trace, on which libipt's two decoders part ways even
			 * where the block decoder sees nothing wrong (fuzz_replay
			 * found a PSB one decoder could not start at and the
			 * other passed): the stretch from the last checkpoint
			 * is decoded again with the instruction decoder, which
			 * materializes segments, up to the next PSB, or, in a
			 * stream with cut points, to the end after the join
			 * (idx_redo.h).
			 */
			if (status != -pte_nomap || block.ninsn) {
				ret = rp_redo_corrupt(&w, rp, &cfg, r, &st,
						      &done);
				status = st;
				blk_from = UINT64_MAX;
				if (ret || w.stopped || done)
					break;
				continue;
			}
			ret = rp_redo_nomap_gap(&w, block.ip, &off);
			if (!ret && off == UINT64_MAX) {
				/* The end of the stream, a cut one's too: one
				 * pass would find no PSB to go on at.
				 */
				r->ended = r->split || r->stop_split;
				break;
			}
			if (!ret)
				ret = rp_redo_resync(&w, off, &st);
			status = st;
			blk_from = UINT64_MAX;
			if (w.stopped)
				break;
			continue;
		}
		if (w.expect_fup && block.ninsn) {
			/*
			 * As rp_walk_run() does: a PSB+ whose FUP is not where decoding
			 * resumes (tracing was off at the PSB, as in kAFL's
			 * traces) is no checkpoint.  A worker's own first PSB
			 * cannot be dropped: index in one piece then.
			 */
			w.expect_fup = false;
			if (block.ip != w.fup_ip && w.ckpt_added) {
				rp_walk_drop_ckpt(&w);
			} else if (block.ip != w.fup_ip &&
				   w.match_psb == w.start_psb) {
				ret = 1;
				break;
			} else if (block.ip == w.fup_ip && w.ckpt_added) {
				/* Decoded again from there (decode.c). */
				status = rp_walk_ckpt_resync(&w);
				continue;
			}
		}
		if (block.ninsn && w.ckpt_new) {
			/* Its first instruction: once per checkpoint. */
			w.ckpt_new = false;
			rp_redo_point_take(rp, &w);
		}
		if (block.ninsn) {
			/* Calls and returns end blocks (end_on_call). */
			int cls = rp_walk_block_class(&w, &block);

			if (w.seg) {
				ret = rp_walk_store_block(&w, &block, cls);
				if (ret || w.pos + block.ninsn >= w.end)
					break;
			}

			/* A block that went on to a PTWRITE may hold calls
			 * before its end (not blocks ending in any other
			 * class: bench-replay measured +22% on mruby).
			 */
			if (block.ninsn > 1 && cls == ptic_ptwrite &&
			    rp_walk_block_inner_depth(&w, &block))
				r->nodepth = true;
			if (w.rs) {
				/* Calls inside such a block: not modelled. */
				ret = rp_rs_step(&w, &block, cls);
				if (block.ninsn > 1 && cls == ptic_ptwrite)
					rp_rs_drop(w.rs);
				if (ret)
					break;
			}
			if (cls < 0)
				r->nodepth = true;
			else
				rp_walk_track_depth(&w, (enum pt_insn_class)cls);
		}
		w.pos += block.ninsn;
		/* Looping in code without consuming trace: damaged input. */
		stall = trace_off == last_off ? stall + block.ninsn : 0;
		last_off = trace_off;
		if (stall > STALL_LIMIT) {
			/* A gap, as the instruction decoder's stall check. */
			status = -pte_bad_insn;
			continue;
		}
		if (r->progress && s->progress &&
		    (w.pos >> 16) != ((w.pos - block.ninsn) >> 16)) {
			uint64_t off = 0;

			rp_bsrc_get_offset(w.bd, &off);
			s->progress(s->progress_ctx, s->progress_base + off,
				    s->progress_total);
		}
	}
	/*
	 * The last segment, as it will materialize (damaged or short).  A
	 * range's own count says "short" only when it is the whole stream;
	 * the last of several ranges checks here only if it has gaps of its
	 * own, and otherwise index_blocks() decides on the joined index (a
	 * last range under RP_TAIL_CHECK was decoded twice: libxdc's Unzip).
	 */
	if (!ret && !w.seg && r->stop_psb == SIZE_MAX && !r->stop_split &&
	    !r->split && *w.nckpts && !r->redo && !r->tail_checked &&
	    (*w.ngaps ||
	     (r->first_psb == SIZE_MAX && w.pos <= RP_TAIL_CHECK))) {
		ret = rp_redo_check_tail(&w);
		r->tail_checked = true;
	}
	rp_walk_close_ckpt(&w);
	r->lead_min = w.seg_min;	/* a range without checkpoints: all */
	r->insns = w.pos;
	r->tsc = w.tsc;
	r->depth = w.depth;
	r->stopped = w.stopped;
	r->first_en = w.first_en;
	r->first_en_ip = w.first_en_ip;
	r->stop_en_ip = w.stop_en_ip;
	r->stop_en_resumed = w.stop_en_resumed;
	r->stop_sync = w.stop_sync;
	r->mode_bits = w.mode_bits;
	memcpy(r->first_ev, w.first_ev, sizeof(r->first_ev));
	r->cr3 = w.cr3;
	r->vmcs = w.vmcs;
	r->cbr = w.cbr;
	/* A range that should end at the next one's PSB but did not. */
	if (!ret && (r->stop_psb != SIZE_MAX || r->stop_split) &&
	    !r->ended && !r->redo && (!w.stopped || w.overshot))
		ret = 1;
out:
	r->refused = w.bd && rp_bsrc_refused(w.bd);
	free(w.cls);
	free(w.loops);
	isc = w.world.iscache;
	rp_walk_end(&w);
	if (isc != r->isc)
		pt_iscache_free(isc);	/* after the image that uses it */
	free(buf);
	free(rp);
	return ret;
out_world:
	if (w.world.iscache != r->isc)
		pt_iscache_free(w.world.iscache);
	rp_world_fini(&w.world);
	free(rp);
	return ret;
}

/* What indexing range @r allocated. */
static void range_free(struct range *r)
{
	free(r->ckpts);
	free(r->gaps);
	free(r->evs);
	rp_rs_free(r->rs);
}

/*
 * A range with the flow walker (blksrc.h), unless PTREC_INDEX_FWALK=0 (for
 * comparisons); one with code the walker does not follow (16- or 32-bit,
 * BDM64) again from its start with libipt's block decoder.
 */
static int index_range(struct range *r)
{
	const char *env = getenv("PTREC_INDEX_FWALK");
	struct range fresh = *r;
	int ret;

	r->no_fwalk = env && !strcmp(env, "0");
	ret = index_range_once(r);
	if (!r->refused)
		return ret;
	range_free(r);
	*r = fresh;
	r->no_fwalk = true;
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "index: thread %u: code the flow walker does not follow: the range again with libipt's block decoder\n",
			r->t->tid);
	return index_range_once(r);
}

/*
 * Workers take the next range not yet taken: ranges hold about equal
 * bytes, not equal instructions (libxdc's mruby: 4.6 M of its 6.3 M in
 * the first half), so a stream is cut into a few ranges per worker and a
 * worker that finishes early takes another.
 */
struct pool {
	struct range *r;
	size_t n;
	size_t next;		/* under lock */
	bool warmed;		/* under lock: rp_idx_warm() called */
	pthread_t owner;	/* the thread that saves the index */
	pthread_mutex_t lock;
};

static void *range_main(void *arg)
{
	struct pool *p = arg;
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	size_t i;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			break;
		p->r[i].isc = isc;	/* NULL: the range allocates one */
		p->r[i].ret = index_range(&p->r[i]);
		p->r[i].isc = NULL;
	}
	pt_iscache_free(isc);
	/* Out of ranges while others may still decode: what saving the index
	 * needs, off the saving thread's path.
	 */
	if (!pthread_equal(pthread_self(), p->owner)) {
		bool warm;

		pthread_mutex_lock(&p->lock);
		warm = !p->warmed;
		p->warmed = true;
		pthread_mutex_unlock(&p->lock);
		if (warm)
			rp_idx_warm();
	}
	return NULL;
}

#define RANGE_MIN_BYTES	(32u << 10)	/* smaller streams: one range */

/* Workers for @t: one per online CPU, PTREC_INDEX_THREADS to override. */
static size_t range_count(const struct rp_thread *t)
{
	const char *env = getenv("PTREC_INDEX_THREADS");
	long n = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);

	if (!env && t->pt_size < 2 * RANGE_MIN_BYTES)
		return 1;
	if (n < 1)
		n = 1;
	return n > WORKERS_MAX ? WORKERS_MAX : (size_t)n;
}

/* Cuts the stream into up to @n ranges of about equal size at PSBs with a
 * FUP, or without one where tracing resumes is known (psbscan.c).
 * Returns the number of ranges.
 */
size_t rp_index_plan(struct rp_session *s, struct rp_thread *t,
		     struct range *r, size_t n)
{
	size_t i, k = 1, p = 0;

	memset(r, 0, n * sizeof(*r));
	r[0].first_psb = SIZE_MAX;
	for (i = 1; i < n; i++) {
		uint64_t target = t->pt_size / n * i;

		while (p < t->npsbs &&
		       ((!t->psbs[p].fup &&
			 (!t->resume || !t->resume[p].offset)) ||
			t->psbs[p].offset < target ||
			(k > 1 && p <= r[k - 1].first_psb)))
			p++;
		/* The first PSB is range 0's own start. */
		if (p >= t->npsbs || !p)
			break;
		r[k++].first_psb = p;
	}
	for (i = 0; i < k; i++) {
		r[i].s = s;
		r[i].t = t;
		r[i].stop_psb = i + 1 < k ? r[i + 1].first_psb : SIZE_MAX;
	}
	r[0].progress = true;
	return k;
}

/* The state a single pass has at a range's end (0: not seen yet). */
struct join_state {
	uint64_t v[RP_FIRST_CBR + 1];
};

/*
 * Whether range @r's event @j is a first value (walk.first_obs) that a
 * single pass through the ranges before, which left state @st, drops:
 * the same value as before, or the first of all.
 */
static bool join_drops(const struct range *r, size_t j,
		       const struct join_state *st)
{
	const struct rp_event *e = &r->evs[j];
	size_t k;

	for (k = 0; k < RP_FIRST_N; k++)
		if (r->first_ev[k] == j + 1)
			break;
	if (k == RP_FIRST_N)
		return false;
	if (k == RP_FIRST_CBR_OUT)
		return !st->v[RP_FIRST_CBR];	/* kept once one is known */
	if (k == RP_FIRST_CBR)
		return !st->v[k] || st->v[k] == e->payload + 1;
	return !st->v[k] || st->v[k] == e->payload;
}

/* @st moves past range @r: its last states, where it saw any. */
static void join_state_end(struct join_state *st, const struct range *r)
{
	if (r->mode_bits)
		st->v[RP_FIRST_MODE] = r->mode_bits;
	if (r->cr3)
		st->v[RP_FIRST_CR3] = r->cr3;
	if (r->vmcs)
		st->v[RP_FIRST_VMCS] = r->vmcs;
	if (r->cbr)
		st->v[RP_FIRST_CBR] = r->cbr;
}

/* Joins the ranges' checkpoints into the thread's index. */
static int merge_ranges(struct rp_thread *t, struct range *r, size_t n)
{
	struct join_state st = { { 0 } };
	size_t i, j, total = 0;
	uint64_t base = 0;
	int64_t dbase = 0;
	bool nodepth = false;
	struct rp_ckpt *v;
	struct rp_gap *g;
	struct rp_event *e;
	size_t ngaps = 0, nevs = 0, mn = 0, mcap = 0;
	uint64_t *m = NULL;
	int ret;

	for (i = 0; i < n; i++) {
		total += r[i].nckpts;
		ngaps += r[i].ngaps;
		nevs += r[i].nevs;
	}
	v = malloc(total * sizeof(*v));
	g = malloc((ngaps ? ngaps : 1) * sizeof(*g));
	e = malloc((nevs ? nevs : 1) * sizeof(*e));
	if (!v || !g || !e) {
		free(v);
		free(g);
		free(e);
		return -RP_ERR_NOMEM;
	}
	free(t->evs);
	t->evs = e;
	t->nevs = 0;
	free(t->gaps);
	t->gaps = g;
	t->ngaps = 0;
	free(t->ckpts);
	t->ckpts = v;
	t->nckpts = 0;
	free(t->rets);
	t->rets = NULL;
	t->nrets = 0;
	for (i = 0; i < n; i++) {
		size_t first = t->nckpts, ev0;

		/* A split range's instructions are the last segment's. */
		if (!r[i].nckpts && t->nckpts &&
		    v[t->nckpts - 1].dmin > dbase + r[i].lead_min)
			v[t->nckpts - 1].dmin = dbase + r[i].lead_min;
		for (j = 0; j < r[i].nckpts; j++) {
			v[t->nckpts] = r[i].ckpts[j];
			v[t->nckpts].depth += dbase;
			v[t->nckpts].dmin += dbase;
			v[t->nckpts++].insn += base;
		}
		ret = rp_cut_join_rets(t, &r[i], v + first, t->nckpts - first,
				       &m, &mn, &mcap);
		if (ret) {
			free(m);
			return ret;
		}
		for (j = 0; j < r[i].ngaps; j++) {
			g[t->ngaps] = r[i].gaps[j];
			g[t->ngaps++].before += base;
		}
		ev0 = t->nevs;
		for (j = 0; j < r[i].nevs; j++) {
			if (i && join_drops(&r[i], j, &st))
				continue;
			e[t->nevs] = r[i].evs[j];
			e[t->nevs++].before += base;
		}
		join_state_end(&st, &r[i]);
		/* A range from a split, or from a PSB that the range before
		 * decoded through to its enable (tracing off before it),
		 * starts with a fresh decoder: its first enable says
		 * "resumed" as the decode through it did (the index is the
		 * same on any number of workers: libxdc's Unzip differed in
		 * 4 events).
		 */
		if (i && (r[i].split ||
			  (!t->psbs[r[i].first_psb].fup &&
			   !r[i - 1].stop_sync) ||
			  (t->psbs[r[i].first_psb].fup &&
			   r[i - 1].stop_en_ip == t->psbs[r[i].first_psb].fup)))
			rp_cut_resumed(&e[ev0], t->nevs - ev0,
				      r[i - 1].stop_en_resumed);
		base += r[i].insns;
		dbase += r[i].depth;
		nodepth |= r[i].nodepth;
	}
	if (nodepth)
		for (j = 0; j < t->nckpts; j++)
			v[j].dmin = RP_DMIN_UNKNOWN;
	free(m);
	t->insns = base;
	t->first_tsc = t->npsbs ? t->psbs[0].tsc : 0;
	t->last_tsc = r[n - 1].tsc;
	return 0;
}

#define SPLIT_MIN_BYTES	(256u << 10)	/* smaller: not cut for workers */

/*
 * A stream with a single PSB has no other place a decoder can start by
 * itself: cut it into up to @n ranges of about equal size at TIP.PGEs
 * where tracing resumes (psbscan.h): its cut-point checkpoints @cks, or
 * when it has none, in *@splits.  Returns the number of ranges (1: not
 * cut).
 */
static size_t plan_splits(struct rp_session *s, struct rp_thread *t,
			  struct range *r, size_t n,
			  const struct rp_split *cks, size_t ncks,
			  struct rp_split **splits)
{
	size_t i, k = 1, p = 0, nsp = ncks;
	const struct rp_split *v = cks;

	*splits = NULL;
	if (n < 2 || t->npsbs != 1 || t->pt_size < SPLIT_MIN_BYTES ||
	    !rp_cut_world_static(s, t))
		return 1;
	if (!ncks) {
		if (rp_scan_splits(t, t->pt_size / n, splits, &nsp, NULL) ||
		    !nsp) {
			free(*splits);
			*splits = NULL;
			return 1;
		}
		v = *splits;
	}
	for (i = 1; i < n; i++) {
		uint64_t target = t->pt_size / n * i;

		while (p < nsp && v[p].offset < target)
			p++;
		if (p >= nsp)
			break;
		r[k].s = s;
		r[k].t = t;
		r[k].first_psb = SIZE_MAX;
		r[k].stop_psb = SIZE_MAX;
		r[k].split = &v[p++];
		r[k].split_ckpt = ncks != 0;
		r[k - 1].stop_split = r[k].split;
		k++;
	}
	return k;
}

static int index_blocks(struct rp_session *s, struct rp_thread *t)
{
	struct range r[RANGE_MAX];
	pthread_t tid[WORKERS_MAX];
	bool started[WORKERS_MAX] = { false };
	size_t i, j, workers = range_count(t);
	size_t n = rp_index_plan(s, t, r, workers > 1 ?
				 workers * RANGES_PER_WORKER : 1);
	struct rp_split *splits = NULL, *cks = NULL;
	struct pool pool = { .r = r, .n = n, .next = 0,
			     .owner = pthread_self(),
			     .lock = PTHREAD_MUTEX_INITIALIZER };
	size_t ncks = 0;
	bool cut;
	int ret = 0;

	if (n == 1)
		rp_cut_points(s, t, &cks, &ncks);
	if (n == 1 && workers > 1) {
		n = plan_splits(s, t, r, workers * RANGES_PER_WORKER, cks,
				ncks, &splits);
		pool.n = n;
	}
	cut = n > 1 && r[1].split;
	for (i = 0; i < n; i++) {
		r[i].cks = cks;
		r[i].ncks = ncks;
	}

	if (workers > n)
		workers = n;
	for (i = 1; i < workers; i++)
		started[i] = !pthread_create(&tid[i], NULL, range_main, &pool);
	range_main(&pool);	/* this thread is a worker too */
	for (i = 1; i < workers; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	/* A cut stream ends at its first missing code, as a single pass
	 * would (no PSB after it to resync at), and at its first corrupt
	 * trace, decoded again after the join: later ranges are dropped.
	 */
	for (i = 0; i < n; i++)
		if ((r[i].ended || r[i].redo) && !r[i].ret) {
			for (j = i + 1; j < n; j++) {
				free(r[j].ckpts);
				free(r[j].gaps);
				free(r[j].evs);
				rp_rs_free(r[j].rs);
				r[j].rs = NULL;
				r[j].ckpts = NULL;
				r[j].gaps = NULL;
				r[j].evs = NULL;
				r[j].nckpts = r[j].ngaps = r[j].nevs = 0;
			}
			n = i + 1;
			break;
		}
	for (i = 0; i < n; i++)
		if (r[i].ret < 0 || (r[i].ret > 0 && !ret))
			ret = r[i].ret;
	/* A range from a PSB without FUP resumes where the one before it
	 * stopped: at the same enable.
	 */
	for (i = 1; i < n && !ret; i++)
		if (r[i].split ? !r[i].first_en ||
				 r[i].first_en_ip != r[i].split->ip :
		    !t->psbs[r[i].first_psb].fup && !r[i - 1].stop_sync &&
		    (!r[i].first_en || r[i].first_en_ip != r[i - 1].stop_en_ip))
			ret = 1;
	if (!ret)
		ret = merge_ranges(t, r, n);
	if (!ret && r[n - 1].redo)
		ret = rp_redo_joined(s, t, &r[n - 1]);
	for (i = 0; i < n; i++)
		range_free(&r[i]);
	free(splits);
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "index: thread %u: %zu range(s) at %s, %s\n",
			t->tid, n, cut ? "TIP.PGEs (one PSB)" : "PSBs",
			ret > 0 && n > 1 ? "not joined: again in one piece" :
			ret ? "failed" : "joined");
	/* The whole stream's tail check, as one range would have made it
	 * (gaps only before the last range, or a short stream; a cut
	 * single-PSB stream's gap ends it, so that tail is short).
	 */
	if (!ret && pool.n > 1 && !r[n - 1].tail_checked && !r[n - 1].redo &&
	    t->nckpts && (t->ngaps || t->insns <= RP_TAIL_CHECK)) {
		ret = rp_redo_check_joined_tail(s, t);
	} else if (ret > 0 && n > 1) {
		/* Ranges that do not join up: index it in one piece. */
		struct range one = { .s = s, .t = t, .first_psb = SIZE_MAX,
				     .stop_psb = SIZE_MAX, .progress = true,
				     .cks = cks, .ncks = ncks };

		ret = index_range(&one);
		if (!ret)
			ret = merge_ranges(t, &one, 1);
		if (!ret && one.redo)
			ret = rp_redo_joined(s, t, &one);
		range_free(&one);
	}
	if (getenv("PTREC_INDEX_DEBUG") && ncks && !ret) {
		for (i = j = 0; i < t->nckpts; i++)
			j += t->ckpts[i].split.len != 0;
		fprintf(stderr, "index: thread %u: %zu of %zu cut points are checkpoints\n",
			t->tid, j, ncks);
	}
	free(cks);
	return ret;
}

/* The index from the instruction decoder, which also materializes
 * segments, so the two always agree.
 */
static int index_insns(struct rp_session *s, struct rp_thread *t)
{
	struct rp_ckpt c0 = { 0 };
	struct walk w;
	int ret, status;
	size_t k;

	free(t->ckpts);
	free(t->gaps);
	free(t->evs);
	free(t->rets);
	t->ckpts = NULL;
	t->gaps = NULL;
	t->evs = NULL;
	t->rets = NULL;
	t->nrets = 0;
	t->nckpts = t->ngaps = t->nevs = 0;
	t->insns = 0;
	t->exact = true;
	for (k = 0; k < RP_SEG_CACHE; k++)
		t->cache[k].ckpt = UINT64_MAX;
	ret = rp_walk_begin(&w, s, t, 0);
	if (!ret)
		ret = rp_world_advance(&w.world, start_tsc(t, SIZE_MAX));
	if (!ret && w.world.changed)
		ret = rp_walk_set_image(&w);
	if (ret) {
		rp_walk_end(&w);
		return ret;
	}
	c0.sb_next = w.world.next;
	w.indexing = true;
	status = pt_insn_sync_forward(w.d);
	if (status < 0) {
		/* Not a single PSB: an empty history with one gap. */
		if (t->pt_size)
			rp_gap_add(&w, status, 0);
		ret = rp_walk_add_ckpt(&w, &c0);
		rp_walk_end(&w);
		return ret;
	}
	pt_insn_get_sync_offset(w.d, &c0.offset);
	if (t->npsbs)
		c0.tsc = t->psbs[0].tsc;
	k = rp_psb_at(t, c0.offset);
	w.traced = k != SIZE_MAX && t->psbs[k].fup;
	ret = rp_walk_add_ckpt(&w, &c0);
	w.ckpt_sync = true;
	if (!ret)
		ret = rp_walk_run(&w, status);
	rp_walk_close_ckpt(&w);
	t->insns = w.pos;
	t->first_tsc = t->npsbs ? t->psbs[0].tsc : 0;
	t->last_tsc = w.tsc;
	rp_walk_end(&w);
	return ret;
}

int rp_index_thread(struct rp_session *s, struct rp_thread *t)
{
	int ret = rp_scan_psbs(t);

	if (ret)
		return ret;
	ret = index_blocks(s, t);
	if (ret > 0)
		ret = index_insns(s, t);
	return ret ? ret : rp_gaps_add_lost(s, t);
}

int rp_reindex_exact(struct rp_session *s, struct rp_thread *t)
{
	int ret = t->exact ? -RP_ERR_DECODE : index_insns(s, t);

	return ret ? ret : rp_gaps_add_lost(s, t);
}

/*
 * A segment as the index counted it.  The instruction decoder is the fast
 * way; on a corrupt stream it can part from the block decoder that built
 * the index even where that one saw nothing wrong (fuzz_replay), and then
 * the block pass itself is run again, from the stream's start, storing
 * the segment's instructions from its blocks: what ptrec info counts is
 * what every command reads (issue #15, item 9).  Slow, and only for
 * segments that need it.
 */
int rp_materialize(struct rp_session *s, struct rp_thread *t, uint64_t k,
		   struct rp_seg *seg)
{
	uint64_t end = k + 1 < t->nckpts ? t->ckpts[k + 1].insn : t->insns;
	struct range one = { .s = s, .t = t, .first_psb = SIZE_MAX,
			     .stop_psb = SIZE_MAX, .seg = seg };
	int ret = rp_walk_materialize(s, t, k, seg);

	/* A saved index is rebuilt instead (rp_idx_rebuild): it may be stale. */
	if (!ret && seg->first + seg->n != end && !t->exact && !t->cached) {
		seg->n = end - seg->first;	/* how many to store */
		ret = index_range(&one);
		range_free(&one);
		if (ret > 0 || ret == -RP_ERR_DECODE)
			ret = 0;	/* a count that differs, below */
	}
	if (!ret && seg->first + seg->n != end)
		ret = rp_fail(s, RP_ERR_DECODE,
			      "thread %u: segment %llu decoded %llu of %llu instructions",
			      t->tid, (unsigned long long)k,
			      (unsigned long long)seg->n,
			      (unsigned long long)(end - seg->first));
	return ret;
}
