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

/*
 * libipt 2.0's block decoder binds a synchronous disable whose TIP.PGD has
 * its IP suppressed to the next branch that would need trace, a near one
 * too (pt_blk_proceed_to_disabled(), pt_blk_proceed_trailing_event(): a
 * conditional jump, a return, an indirect jump or call ends the block, the
 * event pending after it).  Its instruction decoder binds such an event to
 * far branches and CPL or CR3 changes only (pt_insn_at_disabled_event()),
 * so at a near branch it queries the trace past the TIP.PGD, and stops
 * there (-pte_bad_query) or goes on with what follows.  On damaged trace
 * the block pass thus counted one instruction more than materializing
 * decodes (fuzz_replay's disable-bound-to-cond-jump: 979 and 978, the
 * last a jg).  Where this says yes, rp_walk_events() takes such an event
 * for corrupt trace, which the instruction decoder decodes again.
 */
bool rp_redo_blk_trace_end(const struct pt_block *b, int status)
{
	if (status < 0 || !(status & pts_event_pending) || !b->ninsn)
		return false;
	switch (b->iclass) {
	case ptic_cond_jump:
	case ptic_return:
	case ptic_call:
	case ptic_jump:
	case ptic_error:
		return true;
	default:
		return false;
	}
}

/* What events.c keeps of an execution mode (walk.mode_bits). */
static uint64_t blk_mode_bits(enum pt_exec_mode mode)
{
	return mode == ptem_64bit ? 64 : mode == ptem_32bit ? 32 :
	       mode == ptem_16bit ? 16 : 0;
}

/*
 * Block @b of status @status (>= 0) is in another mode than the block
 * before (ptem_unknown after an exec-mode event or at the next range's
 * PSB), which is rare: returns the status to go on with (index.c).
 * A block from libipt's block cache keeps the mode it was decoded in,
 * not the one an exec-mode event set since (damage made a MODE.Exec:
 * Unzip's byte 8,446 corrupted, 75 instructions fewer than the
 * instruction decoder, no error): taken as corrupt trace, decoded again
 * with the instruction decoder.  A range waiting for the enable at the
 * next one's PSB (decode.c, stop_at_enable) that gets instructions has
 * gone past it.
 */
int rp_redo_blk_mode(struct walk *w, const struct pt_block *b, int status)
{
	if (w->stop_at_enable) {
		w->overshot = w->stopped = true;
		return status;
	}
	if (w->mode_bits && blk_mode_bits(b->mode) != w->mode_bits)
		return -pte_bad_context;
	return status;
}

/* A gap where code is missing, then the block decoder's own resync. */
int rp_redo_nomap_gap(struct walk *w, uint64_t ip, uint64_t *resync_off)
{
	uint64_t off = 0;
	size_t n = *w->ngaps;
	int ret;

	rp_bsrc_get_offset(w->bd, &off);
	ret = rp_gap_add_at(w, -pte_nomap, ip, off);
	w->expect_fup = false;
	*resync_off = UINT64_MAX;
	if (!ret && rp_bsrc_sync_forward(w->bd) >= 0)
		rp_bsrc_get_sync_offset(w->bd, resync_off);
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
	*status = rp_bsrc_sync_set(w->bd, off);
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
 * Back to the walk @to, with @ngaps gaps and @nevs events: its counts and
 * state, its decoders, image and caches as they are now.
 */
static void walk_back_to(struct walk *w, const struct walk *to, size_t ngaps,
			 size_t nevs)
{
	struct walk keep = *w;

	*w = *to;
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
	*w->ngaps = ngaps;
	*w->nevs = nevs;
}

/* Back to the redo point @p: the walk at its checkpoint's first
 * instruction.
 */
static void walk_back(struct walk *w, const struct rp_redo_point *p)
{
	walk_back_to(w, &p->w, p->ngaps, p->nevs);
}

/*
 * Where a plain pt_insn_next loop last had an empty return stack before
 * checkpoint @k of walk @w: its first sync (the stream's first PSB), or
 * the PSB it resynced at after its last decode error (the gaps of the
 * walk's range, each ending where that resync is).  The checkpoint there,
 * or SIZE_MAX when that is before the range (another worker's).
 */
static size_t redo_floor(const struct walk *w, size_t k)
{
	const struct rp_ckpt *v = *w->ckpts;
	uint64_t at = UINT64_MAX;
	size_t i;

	for (i = *w->ngaps; i-- > 0;) {
		const struct rp_gap *g = &(*w->gaps)[i];

		if (g->before <= v[k].insn && g->error) {
			at = g->offset + g->bytes;
			break;
		}
	}
	if (at == UINT64_MAX)
		return w->start_psb == SIZE_MAX ? 0 : SIZE_MAX;
	for (i = 0; i <= k; i++)
		if (v[i].offset >= at)
			return v[i].offset == at ? i : SIZE_MAX;
	return SIZE_MAX;
}

/*
 * The instruction decoder @d, synced at a checkpoint, decoded @n
 * instructions on (their events read and dropped), as the plain loop
 * decodes them: through the PSBs between, keeping its return stack.
 * Returns libipt's status then (an error: not as the index pass decoded
 * them).
 */
static int redo_preroll(struct pt_insn_decoder *d, uint64_t n, int status)
{
	struct pt_insn insn;
	struct pt_event ev;

	while (n && status >= 0) {
		while (status >= 0 && (status & pts_event_pending))
			status = pt_insn_event(d, &ev, sizeof(ev));
		if (status < 0)
			break;
		status = pt_insn_next(d, &insn, sizeof(insn));
		n--;
	}
	return status < 0 ? status : n ? -pte_internal : status;
}

/* Whether a gap from @from on in @w says libipt's return stack was empty
 * at a compressed return.
 */
static bool redo_ret_empty(const struct walk *w, size_t from)
{
	const char *empty = pt_errstr(pte_retstack_empty);
	size_t i;

	for (i = from; i < *w->ngaps; i++)
		if ((*w->gaps)[i].error &&
		    !strcmp((*w->gaps)[i].error, empty))
			return true;
	return false;
}

/*
 * The redo decoded checkpoint @k's segment through checkpoints @k0 + 1 ..
 * @k as the plain loop does: they are dropped, so that segment @k0
 * materializes the same way, from its PSB on through theirs (their
 * segments' lowest call depths join its).
 */
static void redo_merge(struct walk *w, size_t k0, size_t k)
{
	struct rp_ckpt *v = *w->ckpts;
	size_t n = *w->nckpts, i;
	int64_t m = v[k0].dmin;

	for (i = k0 + 1; i < k; i++)
		if (v[i].dmin < m)
			m = v[i].dmin;
	if (k + 1 < n) {
		if (v[k].dmin < m)
			m = v[k].dmin;
	} else if (w->seg_min > m) {
		w->seg_min = m;	/* checkpoint @k's segment still open */
	}
	v[k0].dmin = m;
	memmove(v + k0 + 1, v + k + 1, (n - k - 1) * sizeof(*v));
	*w->nckpts = n - (k - k0);
}

/*
 * Whether checkpoint @k of walk @w, which the redo decoded through without
 * decoding again from it, materializes as decoded: from its PSB up to
 * instruction @end without an error before (a return compressed against
 * a call before that PSB fails there).
 */
static bool redo_seg_same(struct walk *w, size_t k, uint64_t end)
{
	const struct rp_ckpt *c = &(*w->ckpts)[k];
	struct walk cw;
	int ret, status;
	bool same;

	ret = rp_walk_begin_at(&cw, w->s, w->t, c, NULL, 0, w->t->pt_size,
			       &status);
	if (ret || status < 0) {
		rp_walk_end(&cw);
		return false;
	}
	cw.pos = c->insn;
	cw.end = end;
	cw.stop_at_error = true;
	ret = rp_walk_run(&cw, status);
	same = !ret && cw.pos == end;
	rp_walk_end(&cw);
	return same;
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
 * the stream keeps the block decoder's speed.
 *
 * The plain loop keeps libipt's return stack across the PSBs it passes
 * (a decoder synced at one starts with an empty stack), so on damage that
 * turns a branch into a compressed return, it pops a return address
 * pushed before that PSB where a decode from it fails
 * (-pte_retstack_empty): Unzip with byte 8,449 corrupted.  That error is
 * the only way the two part, so then the stretch is decoded again from 1,
 * 2, 4, ... checkpoints earlier, through them as the plain loop does
 * (redo_preroll()), until no return finds the stack empty or the decode
 * starts where the plain loop's stack was empty too (redo_floor()); the
 * checkpoints it went through are dropped (redo_merge()), so that the
 * segment materializes as it was decoded.
 *
 * Returns 0 (*@status the block decoder's after its resync, or w->stopped,
 * or *@done at the end of the stream), 1 where it cannot (no such
 * checkpoint, a cut stream, code mapped since, a stack from before the
 * range needed: the thread is indexed in one piece or with the
 * instruction decoder), or a negated enum rp_error.
 */
int rp_redo_insns(struct walk *w, const struct rp_redo_point *p,
		  const struct pt_config *cfg, int *status, bool *done)
{
	const struct rp_ckpt *c = *w->nckpts ?
				  &(*w->ckpts)[*w->nckpts - 1] : NULL;
	struct rp_bsrc *bd = w->bd;
	struct pt_image *image;
	struct walk keep;
	size_t k, floor, k0, back, nckpts, ngaps, nevs, i;
	uint64_t from;
	int ret, st;
	bool fresh = c && (p->nckpts != *w->nckpts ||
			   p->offset != c->offset);

	if (!c || c->split.len || w->rs || w->ncks || w->seg ||
	    w->off_delta || (fresh && w->pos != c->insn) ||
	    (!fresh && w->world.next != p->w.world.next))
		return 1;
	from = c->offset;
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
	k = *w->nckpts - 1;
	floor = redo_floor(w, k);
	keep = *w;
	nckpts = *w->nckpts;
	ngaps = *w->ngaps;
	nevs = *w->nevs;
	for (back = 0, k0 = k;;) {
		const struct rp_ckpt *v = *w->ckpts;

		w->hand_back = true;
		w->resync_off = UINT64_MAX;
		/* The events up to its first instruction are taken already. */
		w->redo = true;
		w->redo_enable = false;
		st = pt_insn_sync_set(w->d, v[k0].offset);
		if (st >= 0 && k0 < k)
			st = redo_preroll(w->d, v[k].insn - v[k0].insn, st);
		/* Through the PSBs after it too, as the plain loop. */
		w->no_restart = true;
		ret = st < 0 ? 1 : rp_walk_run(w, st);
		w->no_restart = false;
		w->hand_back = false;
		if (ret || k0 == floor || !redo_ret_empty(w, ngaps))
			break;
		/* Further back, within the range and its address space. */
		if (floor == SIZE_MAX && !k0) {
			ret = 1;	/* before the range: in one piece */
			break;
		}
		if (w->world.next != keep.world.next || w->image != image)
			break;
		v = *w->ckpts;
		back = back ? 2 * back : 1;
		k0 = k > back ? k - back : 0;
		if (floor != SIZE_MAX && k0 < floor)
			k0 = floor;
		while (k0 < k && v[k0].sb_next != v[k].sb_next)
			k0++;
		if (k0 == k)
			break;
		walk_back_to(w, &keep, ngaps, nevs);
		*w->nckpts = nckpts;
	}
	pt_insn_free_decoder(w->d);
	w->d = NULL;
	w->bd = bd;
	if (!ret && w->image != image)
		rp_bsrc_set_image(bd, w->image);
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "index: thread %u: corrupt trace decoded again from the PSB at %llu to %llu with the instruction decoder%s\n",
			w->t->tid, (unsigned long long)(*w->ckpts)[k].offset,
			(unsigned long long)w->resync_off,
			k0 < k ? ", through the PSBs before it" : "");
	/* The checkpoints it met: each as it materializes, or dropped. */
	for (i = *w->nckpts; !ret && i-- > nckpts;)
		if (!redo_seg_same(w, i, i + 1 < *w->nckpts ?
				   (*w->ckpts)[i + 1].insn : w->pos))
			redo_merge(w, i - 1, i);
	if (!ret && k0 < k)
		redo_merge(w, k0, k);
	if (ret || w->stopped)
		return ret;
	if (w->resync_off == UINT64_MAX) {
		*done = true;
		return 0;
	}
	/* A decode from earlier checkpoints that resynced at the PSB it was
	 * called for would hand the block decoder the same error again, for
	 * ever (fuzz_replay: "from the PSB at 195 to 195"): in one piece.
	 */
	if (w->resync_off <= from)
		return 1;
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
		 * (no rp_redo_check_tail() needed, which would take the error
		 * it meets for a difference).
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

/* The last segment checked (idx_redo.h), from index.c. */
int rp_redo_check_tail(struct walk *bw)
{
	const struct rp_ckpt *c = &(*bw->ckpts)[*bw->nckpts - 1];
	const uint64_t *rets = NULL;
	size_t nrets = 0;
	struct walk cw;
	int ret, status;

	/* Its return stack: the joined index's, or the range's own model's
	 * (a whole stream, whose model starts empty as a join's would).
	 */
	if (bw->rs && c->rets_at && c->split.csl) {
		const struct rp_rsnap *sn = &bw->rs->snaps[c->rets_at - 1];

		rets = bw->rs->pool + sn->at;
		nrets = sn->lsize < RP_RETSTACK ? sn->lsize : RP_RETSTACK;
	} else if (!bw->rs && c->nrets) {
		rets = bw->t->rets + c->rets_at;
		nrets = c->nrets;
	}
	ret = rp_walk_begin_at(&cw, bw->s, bw->t, c, rets, nrets,
			       bw->t->pt_size, &status);
	if (ret) {
		rp_walk_end(&cw);
		return ret;
	}
	cw.pos = c->insn;
	cw.stop_at_error = true;
	ret = status < 0 ? 1 : rp_walk_run(&cw, status);
	rp_walk_end(&cw);
	if (!ret && cw.error) {
		/* Only the missing code the block pass saw there, at the
		 * stream's last PSB, is the same history.
		 */
		const struct rp_gap *g = *bw->ngaps ?
					 &(*bw->gaps)[*bw->ngaps - 1] : NULL;

		if (cw.error != -pte_nomap || cw.resync_off != UINT64_MAX ||
		    !g || g->reason != RP_GAP_NOMAP || g->before != cw.pos)
			ret = 1;
	}
	if (!ret && cw.pos != bw->pos)
		ret = 1;
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "index: thread %u: last segment checked with the instruction decoder\n",
			bw->t->tid);
	return ret;
}

int rp_redo_check_joined_tail(struct rp_session *s,
			      struct rp_thread *t)
{
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.s = s;
	w.t = t;
	w.ckpts = &t->ckpts;
	w.nckpts = &t->nckpts;
	w.gaps = &t->gaps;
	w.ngaps = &t->ngaps;
	w.pos = t->insns;
	return rp_redo_check_tail(&w);
}
