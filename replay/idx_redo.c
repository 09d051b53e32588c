// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index pass's error recovery (idx_redo.h): what the block pass
 * (index.c) does when libipt's block decoder stops, so that the index
 * still counts what the instruction decoder, which materializes
 * segments, decodes there.  Missing code is a gap and the block decoder's
 * own resync; corrupt trace is decoded again from the last checkpoint
 * with the instruction decoder.  Split from index.c, whose other job is
 * planning and joining the ranges workers index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuts.h"
#include "gaps.h"
#include "idx_redo.h"
#include "psbscan.h"
#include "ptkit.h"

/*
 * libipt 2.0's block decoder, on its block cache's fast path, takes a TIP
 * whose IP is suppressed (IP compression 000: the lone byte 0x0d) as the
 * destination of a return or an indirect jump or call, and goes on without
 * an error from the branch's own address, counting it again
 * (pt_block_decoder.c: ptbq_return, ptbq_ind_call and ptbq_indirect, which
 * leave the block's class ptic_return, ptic_call and ptic_error, do not
 * check pts_ip_suppressed, which pt_blk_proceed_with_trace, the slow path,
 * turns into -pte_noip).  The instruction decoder, which materializes
 * segments, stops there with -pte_noip, so the two part without either
 * seeing anything wrong, and differently with a cold and a warm block
 * cache (fuzz_replay-reindex: 11,985 instructions counted, 8,887 decoded).
 * Whether a block of those classes, which read the packets in [@from,
 * @to) of the decoder's buffer [@begin, @end), took such a TIP: it is then
 * the instruction decoder's -pte_noip.  A packet not known here counts as one
 * (the thread is then indexed with the instruction decoder: slower, never
 * wrong); so does one an event read in that range.  Most blocks end in
 * another class, or read a byte or two and no 0x0d.
 */
bool rp_redo_tip_noip(const uint8_t *begin, const uint8_t *end,
		      uint64_t from, uint64_t to)
{
	const uint8_t *p, *e;
	size_t n;

	if (from >= to || to > (uint64_t)(end - begin))
		return false;
	for (p = begin + from, e = begin + to; p < e && *p != 0x0d; p++)
		;
	if (p == e)
		return false;
	for (p = begin + from; p < e; p += n) {
		if (*p == 0x0d)
			return true;
		n = ptkit_pkt_len(p, (size_t)(end - p));
		if (!n)
			return true;
	}
	return false;
}

/* A gap where code is missing, then the block decoder's own resync. */
int rp_redo_nomap_gap(struct walk *w, uint64_t ip, uint64_t *resync_off)
{
	uint64_t off = 0;
	size_t n = *w->ngaps;
	int ret;

	pt_blk_get_offset(w->bd, &off);
	ret = rp_gap_add_at(w, -pte_nomap, ip, off);
	w->expect_fup = false;
	*resync_off = UINT64_MAX;
	if (!ret && pt_blk_sync_forward(w->bd) >= 0)
		pt_blk_get_sync_offset(w->bd, resync_off);
	if (!ret && *w->ngaps > n)
		(*w->gaps)[n].bytes = (*resync_off == UINT64_MAX ?
				       w->t->pt_size : *resync_off) - off;
	return ret;
}

/* The block decoder after an error: on at @off, a checkpoint there; its
 * libipt status in @status.
 */
int rp_redo_resync(struct walk *w, uint64_t off, int *status)
{
	const struct rp_thread *t = w->t;
	size_t i = rp_psb_at(t, off);
	struct rp_ckpt c = { 0 };
	int ret;

	if (i == SIZE_MAX || t->psbs[i].offset != off)
		return 1;
	if (i >= w->stop_psb) {
		/* The next worker's range starts there. */
		w->stopped = true;
		w->stop_sync = true;
		w->overshot = i > w->stop_psb;
		return 0;
	}
	*status = pt_blk_sync_set(w->bd, off);
	if (*status < 0)
		return 1;
	w->psb_next = i;
	ret = rp_world_advance(&w->world, t->psbs[i].tsc);
	if (!ret && w->world.changed)
		ret = rp_walk_set_image(w);
	if (ret)
		return ret;
	c.offset = off;
	c.insn = w->pos;
	c.tsc = t->psbs[i].tsc;
	c.sb_next = w->world.next;
	w->traced = t->psbs[i].fup != 0;
	ret = rp_walk_add_ckpt(w, &c);
	w->ckpt_sync = true;
	return ret;
}

void rp_redo_point_take(struct rp_redo_point *p, const struct walk *w)
{
	const struct rp_ckpt *c;

	if (!*w->nckpts)
		return;
	c = &(*w->ckpts)[*w->nckpts - 1];
	if ((p->nckpts == *w->nckpts && p->offset == c->offset) ||
	    w->pos != c->insn)
		return;
	p->w = *w;
	p->nckpts = *w->nckpts;
	p->offset = c->offset;
	p->ngaps = *w->ngaps;
	p->nevs = *w->nevs;
}

/*
 * Back to the redo point @p: the walk's counts and state at its
 * checkpoint's first instruction, its decoders, image and caches as they
 * are now.
 */
static void walk_back(struct walk *w, const struct rp_redo_point *p)
{
	struct walk keep = *w;

	*w = p->w;
	w->world = keep.world;
	w->image = keep.image;
	w->last_map = NULL;
	w->cls = keep.cls;
	w->loops = keep.loops;
	w->dec = keep.dec;
	w->ild = keep.ild;
	memcpy(w->ild_buf, keep.ild_buf, sizeof(w->ild_buf));
	memcpy(w->code, keep.code, sizeof(w->code));
	w->code_ip = keep.code_ip;
	w->code_n = keep.code_n;
	w->buf = keep.buf;
	*w->ngaps = p->ngaps;
	*w->nevs = p->nevs;
}

/*
 * Corrupt trace (a bad packet, an IP suppressed where one is needed),
 * where libipt's two decoders part: the block decoder may read on past
 * damage the instruction decoder, which materializes segments, stops at,
 * and the two resync at different PSBs.  So the damaged stretch is
 * decoded again as materializing will: from the last checkpoint (a PSB,
 * its walk in @p) with the instruction decoder, which turns its error into
 * a gap where a plain pt_insn_next loop meets it and resyncs at the next
 * PSB as that loop does; the block pass goes on from there.  The rest of
 * the stream keeps the block decoder's speed.  Returns 0 (*@status the
 * block decoder's after its resync, or w->stopped, or *@done at the end of
 * the stream), 1 where it cannot (no such checkpoint, a cut stream, code
 * mapped since: the thread is indexed with the instruction decoder), or a
 * negated enum rp_error.
 */
int rp_redo_insns(struct walk *w, const struct rp_redo_point *p,
		  const struct pt_config *cfg, int *status, bool *done)
{
	const struct rp_ckpt *c = *w->nckpts ?
				  &(*w->ckpts)[*w->nckpts - 1] : NULL;
	struct pt_block_decoder *bd = w->bd;
	struct pt_image *image;
	int ret, st;
	bool fresh = c && (p->nckpts != *w->nckpts ||
			   p->offset != c->offset);

	if (!c || c->split.len || w->rs || w->ncks || w->seg ||
	    w->off_delta || (fresh && w->pos != c->insn) ||
	    (!fresh && w->world.next != p->w.world.next))
		return 1;
	if (!fresh)
		walk_back(w, p);
	/* Else nothing decoded since the checkpoint: the error came before
	 * its first instruction, the events read up to it are the ones the
	 * instruction decoder reads again (and skips, below).
	 */
	w->bd = NULL;
	w->d = pt_insn_alloc_decoder(cfg);
	if (!w->d) {
		w->bd = bd;
		return -RP_ERR_NOMEM;
	}
	image = w->image;
	pt_insn_set_image(w->d, image);
	w->hand_back = true;
	w->resync_off = UINT64_MAX;
	/* The events up to its first instruction are taken already. */
	w->redo = true;
	w->redo_enable = false;
	st = pt_insn_sync_set(w->d, c->offset);
	ret = st < 0 ? 1 : rp_walk_run(w, st);
	w->hand_back = false;
	pt_insn_free_decoder(w->d);
	w->d = NULL;
	w->bd = bd;
	if (!ret && w->image != image)
		pt_blk_set_image(bd, w->image);
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "index: thread %u: corrupt trace decoded again from the PSB at %llu to %llu with the instruction decoder\n",
			w->t->tid, (unsigned long long)c->offset,
			(unsigned long long)w->resync_off);
	if (ret || w->stopped)
		return ret;
	if (w->resync_off == UINT64_MAX) {
		*done = true;
		return 0;
	}
	return rp_redo_resync(w, w->resync_off, status);
}

enum rp_redo_how rp_redo_choose(const struct walk *w, bool from_split,
				bool to_split, int status)
{
	if (w->ncks && !w->seg)
		return from_split && status == -pte_retstack_empty ?
		       RP_REDO_NONE : RP_REDO_JOINED;
	return from_split || to_split ? RP_REDO_NONE : RP_REDO_PSB;
}

int rp_redo_mark(struct walk *w, const struct rp_redo_point *p)
{
	const struct rp_ckpt *c = *w->nckpts ?
				  &(*w->ckpts)[*w->nckpts - 1] : NULL;
	bool fresh = c && (p->nckpts != *w->nckpts ||
			   p->offset != c->offset);

	if (!c || w->seg || (fresh && w->pos != c->insn) ||
	    (!fresh && w->world.next != p->w.world.next))
		return 1;
	if (!fresh)
		walk_back(w, p);
	/* Else nothing decoded since the checkpoint: the events read up to
	 * the error are the ones the redo skips up to its first instruction.
	 */
	return 0;
}

int rp_redo_corrupt(struct walk *w, const struct rp_redo_point *p,
		    const struct pt_config *cfg, struct range *r,
		    int *status, bool *done)
{
	int ret;

	switch (rp_redo_choose(w, r->split, r->stop_split, *status)) {
	case RP_REDO_PSB:
		ret = rp_redo_insns(w, p, cfg, status, done);
		/* To the end: its last segment is decoded as it materializes
		 * (no check_tail() needed, which would take the error it
		 * meets for a difference).
		 */
		if (!ret && *done)
			r->tail_checked = true;
		return ret;
	case RP_REDO_JOINED:
		ret = rp_redo_mark(w, p);
		r->redo = *done = !ret;
		return ret;
	default:
		return 1;
	}
}

/*
 * Whether the return stack @rets (@n entries) of a cut point's checkpoint
 * is libipt's whole stack at that point as the decode from the stream's
 * start had it: a full one (RP_RETSTACK entries, laid out by the made-up
 * start).  A shorter one is the model's (cuts.h), which after a call or
 * return it could not follow (rp_rs_drop) holds only what came since.
 */
static bool rets_whole(const uint64_t *rets, size_t n)
{
	return n == RP_RETSTACK && rp_cut_shim_place(rets, n);
}

/* Room for @n events as rp_event_take() grows them (doubling from 16),
 * where merge_ranges() made exactly @n.
 */
static int evs_room(struct rp_thread *t)
{
	size_t cap = 16;
	struct rp_event *v;

	while (cap < t->nevs)
		cap *= 2;
	v = realloc(t->evs, cap * sizeof(*v));
	if (!v)
		return -RP_ERR_NOMEM;
	t->evs = v;
	return 0;
}

int rp_redo_joined(struct rp_session *s, struct rp_thread *t,
		   const struct range *last)
{
	size_t k = t->nckpts - 1, i, ngaps = t->ngaps;
	struct rp_ckpt *c = &t->ckpts[k];
	const uint64_t *rets = c->nrets ? t->rets + c->rets_at : NULL;
	const char *empty = pt_errstr(pte_retstack_empty);
	int64_t dmin = c->dmin;
	rp_progress_fn progress = s->progress;
	struct walk w;
	int ret, status = -pte_internal;

	if (k) {
		ret = rp_walk_begin_at(&w, s, t, c, rets, c->nrets,
				       t->pt_size, &status);
	} else {
		ret = rp_walk_begin(&w, s, t, c->sb_next);
		if (!ret)
			status = pt_insn_sync_forward(w.d);
	}
	if (!ret && status < 0)
		ret = 1;	/* not where the block pass synced */
	if (!ret)
		ret = evs_room(t);
	if (ret) {
		rp_walk_end(&w);
		return ret;
	}
	w.indexing = true;
	w.pos = c->insn;
	w.tsc = c->tsc;
	w.depth = c->depth;
	w.seg_min = dmin == RP_DMIN_UNKNOWN ? c->depth : dmin;
	/* No PSB to match after it, no cut point to add: one segment. */
	w.psb_next = t->npsbs;
	w.off_done = t->npsbs ? t->npsbs - 1 : SIZE_MAX;
	/* The events up to its first instruction are taken already; those
	 * after, kept where they change from the state there.
	 */
	w.redo = true;
	w.mode_bits = last->mode_bits;
	w.cr3 = last->cr3;
	w.vmcs = last->vmcs;
	w.cbr = last->cbr;
	/* Its offsets are a copy's: no progress from here (one thread now). */
	s->progress = NULL;
	ret = rp_walk_run(&w, status);
	s->progress = progress;
	c = &t->ckpts[k];
	if (!ret) {
		rp_walk_close_ckpt(&w);
		if (dmin == RP_DMIN_UNKNOWN)
			c->dmin = RP_DMIN_UNKNOWN;
		t->insns = w.pos;
		t->last_tsc = w.tsc;
	}
	for (i = ngaps; !ret && c->split.len && i < t->ngaps; i++)
		if (t->gaps[i].error && !strcmp(t->gaps[i].error, empty) &&
		    !rets_whole(rets, c->nrets))
			ret = 1;	/* maybe for want of an entry */
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "index: thread %u: corrupt trace decoded again from %s at %llu with the instruction decoder%s\n",
			t->tid, c->split.len ? "the cut point" : "the PSB",
			(unsigned long long)c->offset,
			ret > 0 ? ": a return stack not known" : "");
	rp_walk_end(&w);
	return ret;
}
