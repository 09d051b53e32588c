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
	struct walk keep;
	int ret, st;
	bool fresh = c && (p->nckpts != *w->nckpts ||
			   p->offset != c->offset);

	if (!c || c->split.len || w->rs || w->ncks || w->seg ||
	    w->off_delta || (fresh && w->pos != c->insn) ||
	    (!fresh && w->world.next != p->w.world.next))
		return 1;
	if (!fresh) {
		/* Back to that checkpoint: the walk's counts and state there,
		 * its decoders, image and caches as they are now.
		 */
		keep = *w;
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
