// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Segment decoding (decode.h): libipt's instruction decoder from a
 * checkpoint to the next, turning errors into gaps and resyncing at the
 * next PSB, with the address space of the moment; the same loop, with
 * indexing on, matches in-stream PSB+ to checkpoints.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuts.h"
#include "decode.h"
#include "events.h"
#include "gaps.h"
#include "insn.h"
#include "psbscan.h"

int rp_walk_set_image(struct walk *w)
{
	struct pt_image *image = rp_world_image(&w->world, w->t->pid);

	if (!image)
		return -RP_ERR_NOMEM;
	if (w->bd)
		rp_bsrc_set_image(w->bd, image);
	else
		pt_insn_set_image(w->d, image);
	pt_image_free(w->image);
	w->image = image;
	w->last_map = w->fw_map = NULL;	/* the maps may have moved */
	if (w->cls)
		memset(w->cls, 0, CLS_SLOTS * sizeof(*w->cls));
	if (w->loops)
		memset(w->loops, 0, CLS_SLOTS * sizeof(*w->loops));
	return 0;
}

/* Near call, near return or neither, from an instruction's bytes (SDM Vol.
 * 2: legacy prefixes, REX in 64-bit mode, then the opcode).
 */
static int classify(const uint8_t *b, size_t n, bool rex)
{
	size_t i = rp_opcode_at(b, n, rex);

	if (i >= n)
		return -1;
	switch (b[i]) {
	case 0xc2:
	case 0xc3:
		return ptic_return;
	case 0xe8:
		return ptic_call;
	case 0xff:	/* FF /2: near indirect call */
		if (i + 1 >= n)
			return -1;
		return ((b[i + 1] >> 3) & 7) == 2 ? ptic_call : ptic_other;
	default:
		return ptic_other;
	}
}

/*
 * The class of a block's last instruction when libipt's block cache did
 * not say (it leaves ptic_error, for indirect jumps at least), read from
 * the code, cached by address.  Returns -1 when the code is not known.
 */
int rp_walk_block_class_slow(struct walk *w, const struct pt_block *b)
{
	struct cls_slot *slot;
	const struct rp_map *mp;
	uint8_t buf[15];
	ssize_t n = -1;
	int fd;

	if (!w->cls)
		return -1;
	slot = &w->cls[(b->end_ip * 0x9e3779b97f4a7c15ull) >> 54];
	if (slot->ip1 == b->end_ip + 1)
		return slot->cls;
	mp = rp_world_lookup(&w->world, w->t->pid, b->end_ip);
	if (mp && mp->image >= 0) {
		fd = rp_image_open(w->s, (size_t)mp->image);
		if (fd >= 0) {
			n = pread(fd, buf, sizeof(buf), (off_t)(mp->pgoff +
				  b->end_ip - mp->start));
			close(fd);
		}
	}
	slot->ip1 = b->end_ip + 1;
	slot->cls = n > 0 ? classify(buf, (size_t)n,
				     b->mode == ptem_64bit) : -1;
	return slot->cls;
}

/*
 * Packets libipt 2.0 does not know: PEBS blocks (BBP, BIP, BEP), read by
 * ptkit and kept as raw records where the decoder read them.
 */
static int unknown_packet(struct pt_packet_unknown *u,
			  const struct pt_config *cfg, const uint8_t *pos,
			  void *ctx)
{
	struct ptkit_pebs_item it[64];
	struct walk *w = ctx;
	size_t n = 0;
	int size = ptkit_pebs_block(pos, cfg->end, it, 64, &n);

	(void)u;
	if (size < 0)
		return -pte_bad_opc;
	if (w && n && !w->err)
		w->err = rp_event_pebs(w, (uint64_t)(pos - cfg->begin), it, n);
	return size;
}

void rp_walk_config(struct rp_session *s, struct rp_thread *t,
		    struct pt_config *cfg, struct walk *w)
{
	const struct sb_manifest *m = s->m;

	pt_config_init(cfg);
	cfg->begin = (uint8_t *)t->pt;
	cfg->end = (uint8_t *)t->pt + t->pt_size;
	/* Errata apply to real Intel CPUs only, not to emulated streams. */
	if (!m->pt.emulated && !strcmp(m->cpu.vendor, "GenuineIntel")) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)m->cpu.family;
		cfg->cpu.model = (uint8_t)m->cpu.model;
		cfg->cpu.stepping = (uint8_t)m->cpu.stepping;
		pt_cpu_errata(&cfg->errata, &cfg->cpu);
	}
	cfg->mtc_freq = (uint8_t)m->pt.mtc_freq;
	cfg->nom_freq = (uint8_t)m->pt.nom_freq;
	cfg->cpuid_0x15_eax = m->pt.cpuid_15_eax;
	cfg->cpuid_0x15_ebx = m->pt.cpuid_15_ebx;
	cfg->decode.callback = unknown_packet;
	cfg->decode.context = w;
}

/* Closes the last checkpoint's segment: its lowest call depth. */
void rp_walk_close_ckpt(struct walk *w)
{
	if (*w->nckpts)
		(*w->ckpts)[*w->nckpts - 1].dmin = w->seg_min;
}

int rp_walk_add_ckpt(struct walk *w, const struct rp_ckpt *c)
{
	struct rp_ckpt *v = realloc(*w->ckpts, (*w->nckpts + 1) * sizeof(*v));

	if (!v)
		return -RP_ERR_NOMEM;
	*w->ckpts = v;
	rp_walk_close_ckpt(w);
	v[*w->nckpts] = *c;
	v[*w->nckpts].depth = w->depth;
	v[(*w->nckpts)++].dmin = w->depth;
	w->seg_min = w->depth;
	w->ckpt_new = true;
	return 0;
}

/* Drops the checkpoint just added: its segment joins the one before. */
void rp_walk_drop_ckpt(struct walk *w)
{
	(*w->nckpts)--;
	if (*w->nckpts && (*w->ckpts)[*w->nckpts - 1].dmin < w->seg_min)
		w->seg_min = (*w->ckpts)[*w->nckpts - 1].dmin;
}

/*
 * A status update: the decoder passed an in-stream PSB+.  Which one is
 * found by the decoder's trace offset, not by counting: libipt reports
 * some PSB+ (those without a FUP, tracing off) with status updates too and
 * others not at all, so counting them drifts (kAFL traces, issue #19).
 */
static int psb_passed(struct walk *w)
{
	struct rp_thread *t = w->t;
	struct rp_ckpt c = { 0 };
	uint64_t off = 0;
	size_t i;

	if (!w->indexing)
		return 0;
	if (w->bd)
		rp_bsrc_get_offset(w->bd, &off);
	else
		pt_insn_get_offset(w->d, &off);
	i = rp_psb_at(t, off);
	/* Before the first PSB, or one matched already (its other status
	 * updates).
	 */
	if (i == SIZE_MAX || i < w->psb_next)
		return 0;
	w->psb_next = i + 1;
	if (i >= w->stop_psb && w->stop_psb < t->npsbs &&
	    !t->psbs[w->stop_psb].fup) {
		/* The next worker starts at a PSB without FUP: this one ends
		 * where tracing resumes after it (off_psb_enable), and must
		 * not pass it traced.
		 */
		w->overshot = w->stopped = w->traced;
		return 0;
	}
	if (i > w->stop_psb) {
		/* Passed the next worker's start without seeing it. */
		w->overshot = true;
		w->stopped = true;
		return 0;
	}
	if (i == w->stop_psb && !w->traced) {
		/* The next worker's range starts here, with tracing off
		 * before it: it stops at the enable its FUP makes, whose
		 * "resumed" the next worker's fresh decoder cannot know
		 * (off_psb_enable; index.c).
		 */
		w->stop_at_enable = true;
		return 0;
	}
	if (i == w->stop_psb) {
		/* The next worker's range starts here. */
		w->stopped = true;
		return 0;
	}
	if (!t->psbs[i].fup)
		return 0;
	c.offset = t->psbs[i].offset;
	c.insn = w->pos;
	c.tsc = t->psbs[i].tsc;
	c.sb_next = w->world.next;
	c.gap = *w->ngaps;
	w->expect_fup = true;
	w->match_psb = i;
	w->fup_ip = t->psbs[i].fup;
	/* The stream's first PSB is checkpoint 0 already. */
	w->ckpt_added = !(*w->nckpts &&
			  (*w->ckpts)[*w->nckpts - 1].offset == c.offset);
	if (!w->ckpt_added)
		return 0;
	w->ckpt_sync = false;
	return rp_walk_add_ckpt(w, &c);
}

/*
 * Which PSB without FUP, if any, enable @ev resumes tracing after: the
 * last one whose TIP.PGE (psbscan.c) the decoder has read, at @off, and
 * had not read at the enable before, at @prev.  libipt reads past an
 * event's packet before reporting it, but not past the next TIP-family
 * packet's successor, so that TIP.PGE is this enable's.  SIZE_MAX: none.
 */
static size_t resumed_psb(const struct walk *w, const struct pt_event *ev,
			  uint64_t off, uint64_t prev)
{
	const struct rp_thread *t = w->t;
	size_t i = rp_psb_at(t, off), n;

	/* Back over the PSBs read past, and over some whose resume is not
	 * known (it is their successor's).
	 */
	for (n = 0; i != SIZE_MAX && n < 64; i--, n++) {
		const struct rp_psb_resume *r = &t->resume[i];

		if (t->psbs[i].fup ||
		    (w->off_done != SIZE_MAX && i <= w->off_done))
			return SIZE_MAX;
		if (r->offset && r->offset < off)
			return r->offset >= prev &&
			       r->ip == ev->variant.enabled.ip ? i : SIZE_MAX;
		if (!i)
			break;
	}
	return SIZE_MAX;
}

/*
 * Tracing resumes after PSBs without a FUP (tracing off there, as in
 * kAFL's and DynamoRIO's traces).  They are sync points like the others:
 * the last one before the enable gets a checkpoint with the instructions
 * decoded so far, whether libipt reported its PSB+ or not; or, when it is
 * where the next worker starts, this worker stops there, and records the
 * enable's IP for the join check.  Returns 0 or a negated enum rp_error.
 */
static int off_psb_enable(struct walk *w, const struct pt_event *ev)
{
	struct rp_thread *t = w->t;
	struct rp_ckpt c = { 0 }, *last;
	uint64_t off = 0, prev = w->en_off;
	size_t i;

	w->traced = true;
	if (!w->indexing)
		return 0;
	if (w->stop_at_enable) {
		w->stopped = true;
		w->stop_en_ip = ev->variant.enabled.ip;
		w->stop_en_resumed = ev->variant.enabled.resumed;
		w->overshot = w->stop_en_ip != t->psbs[w->stop_psb].fup;
		return 0;
	}
	if (w->rs) {
		int ret = rp_rs_enable(w, ev->variant.enabled.ip);

		if (ret)
			return ret;
	}
	if (!w->first_en) {
		w->first_en = true;
		w->first_en_ip = ev->variant.enabled.ip;
	}
	if (w->bd)
		rp_bsrc_get_offset(w->bd, &off);
	else
		pt_insn_get_offset(w->d, &off);
	w->en_off = off;
	if (w->stop_split &&
	    off + (uint64_t)w->off_delta > w->stop_split->offset) {
		/* The next worker starts at this TIP.PGE (psbscan.h): the
		 * first enable read past it must be that one, or the cut was
		 * wrong (overshot: the stream is indexed in one piece).
		 */
		const struct rp_split *sp = w->stop_split;

		w->stopped = true;
		w->stop_en_ip = ev->variant.enabled.ip;
		w->stop_en_resumed = ev->variant.enabled.resumed;
		w->overshot = prev + (uint64_t)w->off_delta > sp->offset ||
			      ev->variant.enabled.ip != sp->ip;
		return 0;
	}
	if (w->ck_next < w->ncks)
		return rp_cut_point(w, ev, off, prev);
	if (w->stop_split)
		return 0;
	if (!t->resume)
		return 0;
	i = resumed_psb(w, ev, off, prev);
	if (i == SIZE_MAX)
		return 0;
	if (i >= w->stop_psb) {
		w->stopped = true;
		w->stop_en_ip = ev->variant.enabled.ip;
		w->stop_en_resumed = ev->variant.enabled.resumed;
		return 0;
	}
	w->off_done = i;
	last = *w->nckpts ? &(*w->ckpts)[*w->nckpts - 1] : NULL;
	if (w->ckpt_sync && last && last->insn == w->pos) {
		/* Nothing decoded since decoding started at an earlier PSB
		 * (a worker's first, or a resync) while tracing was off: the
		 * checkpoint moves here, where a single pass puts it.
		 */
		last->offset = t->psbs[i].offset;
		last->tsc = t->psbs[i].tsc;
		return 0;
	}
	w->ckpt_sync = false;
	c.offset = t->psbs[i].offset;
	c.insn = w->pos;
	c.tsc = t->psbs[i].tsc;
	c.sb_next = w->world.next;
	c.gap = *w->ngaps;
	w->resync_ckpt = true;
	w->redo_enable = true;
	return rp_walk_add_ckpt(w, &c);
}

/*
 * Decoding from a checkpoint (materializing a segment) starts with a
 * fresh decoder: libipt clears its return-compression stack at a sync,
 * but not at a PSB+ it reads in-stream, so a RET compressed (one TNT bit)
 * against a CALL before the PSB decodes in one pass and fails
 * (-pte_retstack_empty) from the checkpoint.  A CPU clears its stack at a
 * PSB, so such a stream is inconsistent (a PSB+ an importer put in): the
 * index pass restarts at each checkpoint it adds, decodes what
 * materializing will, and sees the error as a gap where it is, rather
 * than a history that differs from the index's counts and is silently
 * misplaced (pc-fail).  A PSB+ with a FUP: once the first instruction or
 * block after it is at the FUP (the checkpoint is kept), which is then
 * decoded again.  A PSB without FUP: at the enable after it
 * (off_psb_enable).  The events read again up to there are not taken
 * twice (w->redo).
 * Returns libipt's status.
 */
int rp_walk_ckpt_resync(struct walk *w)
{
	uint64_t off = (*w->ckpts)[*w->nckpts - 1].offset -
		       (uint64_t)w->off_delta;

	w->resync_ckpt = false;
	w->redo = true;
	return w->bd ? rp_bsrc_sync_set(w->bd, off) :
		       pt_insn_sync_set(w->d, off);
}

/* Handles pending events.  Returns libipt's status; our own failures go to
 * w->err (and stop decoding with -pte_internal).
 */
int rp_walk_events(struct walk *w, int status)
{
	/* For the events the block just returned only (not a redo's). */
	bool trace_end = w->bd && w->blk_trace_end;
	struct pt_event ev;
	int ret;

	w->blk_trace_end = false;
	while (status & pts_event_pending) {
		status = w->bd ? rp_bsrc_event(w->bd, &ev) :
				 pt_insn_event(w->d, &ev, sizeof(ev));
		if (status < 0)
			return status;
		if (trace_end && ev.type == ptev_disabled &&
		    ev.ip_suppressed)
			return -pte_bad_query;
		if (ev.has_tsc)
			w->tsc = ev.tsc;
		if (ev.type == ptev_disabled || ev.type == ptev_async_disabled)
			w->traced = false;
		if (ev.type == ptev_disabled && w->rs && !w->redo)
			rp_rs_disabled(w);
		if (w->redo) {
			/* Read again after rp_walk_ckpt_resync(): taken
			 * already, up to the enable or the instruction it
			 * restarted at.
			 */
			if (ev.type == ptev_enabled && w->redo_enable) {
				w->traced = true;
				w->redo = w->redo_enable = false;
			}
			continue;
		}
		ret = ev.status_update ? psb_passed(w) :
		      ev.type == ptev_enabled ? off_psb_enable(w, &ev) : 0;
		if (!ret && w->stopped)
			return status;	/* the rest: the next worker's */
		if (!ret && w->stop_at_enable)
			continue;	/* the next worker's too */
		if (!ret && w->indexing)
			ret = rp_gap_loop(w, &ev);
		if (!ret && w->indexing)
			ret = rp_event_take(w, &ev);
		if (!ret && w->indexing && ev.type == ptev_overflow)
			ret = rp_gap_overflow(w, &ev);
		if (!ret && ev.type == ptev_enabled && ev.has_tsc) {
			ret = rp_world_advance(&w->world, ev.tsc);
			if (!ret && w->world.changed)
				ret = rp_walk_set_image(w);
		}
		if (ret) {
			w->err = ret;
			return -pte_internal;
		}
		if (w->resync_ckpt && w->no_restart) {
			w->resync_ckpt = false;
		} else if (w->resync_ckpt) {
			status = rp_walk_ckpt_resync(w);
			if (status < 0)
				return status;
		}
	}
	return status;
}

/* After an error: resync at the next PSB, with the address space of then. */
static int resync(struct walk *w)
{
	struct rp_thread *t = w->t;
	uint64_t off = 0;
	size_t i;
	int ret, status;

	status = pt_insn_sync_forward(w->d);
	if (status < 0)
		return status;
	pt_insn_get_sync_offset(w->d, &off);
	for (i = 0; i < t->npsbs; i++)
		if (t->psbs[i].offset == off) {
			/* Its status updates belong to this PSB, not to one
			 * the error skipped.
			 */
			w->psb_next = i;
			ret = rp_world_advance(&w->world, t->psbs[i].tsc);
			if (!ret && w->world.changed)
				ret = rp_walk_set_image(w);
			if (ret) {
				w->err = ret;
				return -pte_internal;
			}
			break;
		}
	return status;
}

static int store(struct walk *w, const struct pt_insn *insn)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;

	if (!w->seg || w->pos < w->seg->first)
		return 0;
	if (pt_insn_time(w->d, &tsc, &lost_mtc, &lost_cyc) < 0)
		tsc = w->tsc;
	/* For rp_insn_cycles(): where the decoder is after @insn. */
	if (pt_insn_get_offset(w->d, &w->pkt_end) >= 0)
		w->pkt_end += (uint64_t)w->off_delta;
	rp_walk_store(w, insn, tsc);
	return 0;
}

void rp_walk_store(struct walk *w, const struct pt_insn *insn, uint64_t tsc)
{
	struct rp_seg *seg = w->seg;
	struct rp_insn *ri;

	ri = &seg->insns[seg->n++];
	ri->ip = insn->ip;
	ri->size = insn->size;
	ri->bits = insn->mode == ptem_32bit ? 32 :
		   insn->mode == ptem_16bit ? 16 : 64;
	memcpy(ri->raw, insn->raw, sizeof(ri->raw));
	switch (insn->iclass) {
	case ptic_call:
		ri->iclass = RP_IC_CALL;
		break;
	case ptic_return:
		ri->iclass = RP_IC_RETURN;
		break;
	case ptic_jump:
		ri->iclass = RP_IC_JUMP;
		break;
	case ptic_cond_jump:
		ri->iclass = RP_IC_COND;
		break;
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		ri->iclass = RP_IC_FAR;
		break;
	default:
		ri->iclass = RP_IC_OTHER;
		break;
	}
	ri->tsc = tsc;
	ri->pkt_end = w->pkt_end;
	/* Most instructions run in the mapping of the previous one. */
	if (!w->last_map || w->world.changed || insn->ip < w->last_map->start ||
	    insn->ip >= w->last_map->end)
		w->last_map = rp_world_lookup(&w->world, w->t->pid, insn->ip);
	ri->image = 0;
	ri->image_off = 0;
	if (w->last_map && w->last_map->image >= 0) {
		ri->image = (uint32_t)w->last_map->image + 1;
		ri->image_off = w->last_map->pgoff + insn->ip -
				w->last_map->start;
	}
}

/*
 * Calls and returns end the index pass's blocks (end_on_call), except
 * where libipt's block decoder proceeds to an event's address (a PTWRITE,
 * an asynchronous event): it then follows direct calls and jumps inside
 * the block (ptgen --events found it), so the block is not contiguous and
 * ends in no branch.  Its instructions before the last are followed from
 * the code where they need no packet.  Returns 0, or -1 when the path is
 * not known (code missing, a branch that took a packet).
 */
int rp_walk_block_inner_depth(struct walk *w, const struct pt_block *b)
{
	uint8_t raw[15];
	uint64_t ip = b->ip, next;
	struct insn d;
	ssize_t n;
	uint16_t i;

	if (w->dec == NULL && insn_decoder_new(&w->dec))
		return -1;
	for (i = 0; i + 1 < b->ninsn; i++) {
		n = rp_walk_read_code(w, ip, raw);
		if (n <= 0)
			return -1;
		if (insn_decode(w->dec, raw, (unsigned int)n, ip, &d) ||
		    d.len > n) {
			d.len = (uint8_t)rp_ptwrite_length(raw, (size_t)n);
			d.cls = IC_OTHER;
			if (!d.len)
				return -1;
		}
		next = rp_gap_next_ip(raw, d.len, ip);
		if (!next)
			return -1;	/* it took a packet: not followed */
		if (d.cls == IC_CALL)
			rp_walk_track_depth(w, ptic_call);
		ip = next;
	}
	return ip == b->end_ip ? 0 : -1;
}

int rp_walk_store_block(struct walk *w, const struct pt_block *b, int cls)
{
	uint64_t ip = b->ip, pos = w->pos, last = 0, end = w->pkt_end;
	struct pt_insn in;
	struct insn d;
	ssize_t n;
	uint16_t i;

	if (w->dec == NULL && insn_decoder_new(&w->dec))
		return -RP_ERR_NOMEM;
	for (i = 0; i < b->ninsn && pos < w->end; i++, pos++) {
		memset(&in, 0, sizeof(in));
		in.ip = ip;
		in.mode = b->mode;
		in.iclass = ptic_other;
		if (i + 1 == b->ninsn) {
			in.iclass = cls >= 0 ? (enum pt_insn_class)cls :
				    ptic_other;
		}
		if (i + 1 == b->ninsn && b->truncated) {
			in.size = b->size;
			memcpy(in.raw, b->raw, sizeof(in.raw));
		} else {
			n = rp_walk_read_code(w, ip, in.raw);
			if (n > 0 && (insn_decode(w->dec, in.raw,
						  (unsigned int)n, ip, &d) ||
				      d.len > n))
				d.len = (uint8_t)rp_ptwrite_length(in.raw,
								   (size_t)n);
			if (n <= 0 || !d.len)
				return -RP_ERR_DECODE;
			in.size = d.len;
		}
		last = ip;
		/* Packets are read at the block's end only: its last
		 * instruction gets them (rp_insn_cycles()).
		 */
		if (i + 1 == b->ninsn && w->bd &&
		    rp_bsrc_get_offset(w->bd, &end) >= 0)
			w->pkt_end = end + (uint64_t)w->off_delta;
		if (pos >= w->seg->first)
			rp_walk_store(w, &in, w->tsc);
		ip += in.size;
	}
	/* The lengths must lead to the block's last instruction. */
	if (i == b->ninsn && last != b->end_ip)
		return -RP_ERR_DECODE;
	return 0;
}

/* The trace bytes gap @i (just added, if it was) skipped: to the PSB
 * decoding resynced at, or to the end of the stream.
 */
static void gap_bytes(struct walk *w, size_t i, int status)
{
	struct rp_gap *g;
	uint64_t off = w->t->pt_size;

	if (*w->ngaps <= i)
		return;
	g = &(*w->gaps)[i];
	if (status >= 0)
		pt_insn_get_sync_offset(w->d, &off);
	if (off > g->offset)
		g->bytes = off - g->offset;
}

/*
 * Decodes from the decoder's current sync point until @w->end instructions
 * (UINT64_MAX: the end of the stream), turning errors into gaps.
 */
int rp_walk_run(struct walk *w, int status)
{
	/* Each resync moves past a PSB, so this many gaps end any stream. */
	size_t resyncs = w->t->npsbs + 2;
	uint64_t trace_off, last_off = UINT64_MAX, stall = 0;
	struct pt_insn insn;
	size_t ngaps;
	int ret;

	while (w->pos < w->end) {
		if (status >= 0)
			status = rp_walk_events(w, status);
		if (w->err)
			return w->err;
		if (w->stopped)
			break;	/* an index worker at its end */
		if (status >= 0 && (status & pts_eos))
			break;
		if (status >= 0) {
			memset(&insn, 0, sizeof(insn));
			status = pt_insn_next(w->d, &insn, sizeof(insn));
			if (status >= 0 && w->stop_at_enable) {
				/* Traced past the next worker's start. */
				w->overshot = w->stopped = true;
				break;
			}
			pt_insn_get_offset(w->d, &trace_off);
			w->redo = w->redo_enable = false;
			stall = trace_off == last_off ? stall + 1 : 0;
			last_off = trace_off;
			if (stall > STALL_LIMIT)
				status = -pte_bad_insn;	/* a gap: resync */
		}
		if (status < 0) {
			stall = 0;
			if (status == -pte_eos || !resyncs--)
				break;
			if (w->stop_at_error) {
				w->error = status;
				w->resync_off = UINT64_MAX;
				if (pt_insn_sync_forward(w->d) >= 0)
					pt_insn_get_sync_offset(w->d,
								&w->resync_off);
				break;
			}
			ngaps = *w->ngaps;
			ret = rp_gap_add(w, status, insn.ip);
			if (ret)
				return ret;
			status = resync(w);
			if (w->err)
				return w->err;
			gap_bytes(w, ngaps, status);
			if (status == -pte_eos)
				break;
			if (status >= 0 && w->hand_back) {
				/* The block pass goes on from this PSB. */
				pt_insn_get_sync_offset(w->d, &w->resync_off);
				break;
			}
			continue;	/* a failed resync is another gap */
		}
		if (w->expect_fup) {
			/* The PSB+ we matched must resume where we are. */
			w->expect_fup = false;
			if (insn.ip != w->fup_ip && w->indexing &&
			    w->ckpt_added) {
				rp_walk_drop_ckpt(w);
			} else if (w->indexing && w->ckpt_added &&
				   !w->no_restart) {
				/* Decoded again from there. */
				status = rp_walk_ckpt_resync(w);
				continue;
			}
		}
		ret = store(w, &insn);
		if (ret)
			return ret;
		w->pos++;
		if (w->indexing)
			rp_walk_track_depth(w, insn.iclass);
		/* Not from an index worker's redo (index.c): the bar is
		 * range 0's, drawn from one thread.
		 */
		if (w->indexing && !w->hand_back && w->s->progress &&
		    !(w->pos & 0xffff)) {
			uint64_t off = 0;

			pt_insn_get_offset(w->d, &off);
			w->s->progress(w->s->progress_ctx,
				       w->s->progress_base + off,
				       w->s->progress_total);
		}
	}
	return 0;
}

static int walk_begin(struct walk *w, struct rp_session *s,
		      struct rp_thread *t, uint64_t sb_next,
		      const struct rp_split *sp, const uint64_t *rets,
		      size_t nrets, uint64_t x, uint64_t to, bool blk)
{
	struct pt_config cfg;
	size_t len;
	int ret;

	memset(w, 0, sizeof(*w));
	w->s = s;
	w->t = t;
	w->end = UINT64_MAX;
	w->ckpts = &t->ckpts;
	w->nckpts = &t->nckpts;
	w->gaps = &t->gaps;
	w->ngaps = &t->ngaps;
	w->evs = &t->evs;
	w->nevs = &t->nevs;
	w->stop_psb = SIZE_MAX;
	w->start_psb = SIZE_MAX;
	w->off_done = SIZE_MAX;
	rp_world_init(&w->world, s);
	ret = rp_world_seek(&w->world, sb_next);
	if (ret)
		return ret;
	rp_walk_config(s, t, &cfg, w);
	if (sp) {
		if (to < t->pt_size - SPLIT_SLACK)
			to += SPLIT_SLACK;
		else
			to = t->pt_size;
		ret = rp_split_buffer(t, sp, rets, nrets, x, to, &w->buf, &len,
				      &w->off_delta);
		if (ret)
			return ret;
		cfg.begin = w->buf;
		cfg.end = w->buf + len;
	}
	if (blk) {
		/* As the index pass: blocks end at every call and jump. */
		cfg.flags.variant.block.end_on_jump = 1;
		cfg.flags.variant.block.end_on_call = 1;
		w->bd = rp_bsrc_new(&cfg, false, NULL, NULL);
	} else {
		w->d = pt_insn_alloc_decoder(&cfg);
	}
	if (!w->d && !w->bd)
		return -RP_ERR_NOMEM;
	return rp_walk_set_image(w);
}

int rp_walk_begin(struct walk *w, struct rp_session *s,
		  struct rp_thread *t, uint64_t sb_next)
{
	return walk_begin(w, s, t, sb_next, NULL, NULL, 0, 0, 0, false);
}

int rp_walk_begin_at(struct walk *w, struct rp_session *s,
		     struct rp_thread *t, const struct rp_ckpt *c,
		     const uint64_t *rets, size_t nrets, uint64_t to,
		     int *status)
{
	const struct rp_split *sp = c->split.len ? &c->split : NULL;
	uint64_t x = sp && nrets ? rp_cut_shim_place(rets, nrets) : 0;
	int ret;

	/* Return addresses that cannot be laid out: an empty stack (a
	 * return compressed across the cut then fails, rp_walk_materialize).
	 */
	if (!x)
		nrets = 0;
	ret = walk_begin(w, s, t, c->sb_next, sp, rets, nrets, x, to,
			 false);
	*status = -pte_internal;
	if (!ret)
		*status = pt_insn_sync_set(w->d, sp ? 0 : c->offset);
	if (!ret && *status >= 0 && nrets)
		*status = rp_cut_shim_run(w, *status, rets, nrets, x);
	return ret;
}

int rp_walk_begin_blocks(struct walk *w, struct rp_session *s,
			 struct rp_thread *t, const struct rp_ckpt *c,
			 int *status)
{
	int ret;

	*status = -pte_internal;
	if (c->split.len)
		return -RP_ERR_DECODE;
	ret = walk_begin(w, s, t, c->sb_next, NULL, NULL, 0, 0, 0, true);
	if (!ret)
		*status = c == t->ckpts ? rp_bsrc_sync_forward(w->bd) :
					  rp_bsrc_sync_set(w->bd, c->offset);
	return ret;
}

void rp_walk_end(struct walk *w)
{
	insn_decoder_free(w->dec);
	pt_insn_free_decoder(w->ild);
	rp_bsrc_free(w->bd);
	pt_insn_free_decoder(w->d);
	pt_image_free(w->image);
	rp_world_fini(&w->world);
	free(w->buf);
}

int rp_walk_materialize(struct rp_session *s, struct rp_thread *t,
			uint64_t k, struct rp_seg *seg)
{
	const struct rp_ckpt *c = &t->ckpts[k];
	uint64_t end = k + 1 < t->nckpts ? t->ckpts[k + 1].insn : t->insns;
	const char *from = !k ? "the start" : c->split.len ?
			   "its TIP.PGE" : "its PSB";
	uint64_t decoded;
	struct walk w;
	int ret, status = -pte_internal;

	seg->n = 0;
	seg->first = c->insn;
	seg->ckpt = k;
	free(seg->insns);
	seg->insns = NULL;
	/* A damaged saved index must not make the size wrap (review). */
	if (end < c->insn || end - c->insn >= SIZE_MAX / sizeof(*seg->insns))
		return rp_fail(s, RP_ERR_DECODE,
			       "thread %u: segment %llu: %llu instructions",
			       t->tid, (unsigned long long)k,
			       (unsigned long long)(end - c->insn));
	seg->insns = malloc((end - c->insn + 1) * sizeof(*seg->insns));
	if (!seg->insns)
		return -RP_ERR_NOMEM;
	if (k) {
		uint64_t to = k + 1 < t->nckpts ? t->ckpts[k + 1].offset :
						  t->pt_size;

		ret = rp_walk_begin_at(&w, s, t, c,
				       c->nrets ? t->rets + c->rets_at : NULL,
				       c->nrets, to, &status);
	} else {
		ret = rp_walk_begin(&w, s, t, c->sb_next);
		if (!ret)
			status = pt_insn_sync_forward(w.d);
	}
	if (ret) {
		rp_walk_end(&w);
		return ret;
	}
	w.seg = seg;
	w.pos = c->insn;
	w.end = end;
	if (status >= 0)
		ret = rp_walk_run(&w, status);
	rp_walk_end(&w);
	decoded = w.pos - c->insn;
	if (!ret && seg->first + seg->n != end && k) {
		/*
		 * A damaged stream can decode differently from a PSB than
		 * through it, and a split's made-up start differently from
		 * the decode that met it when a return compressed across it
		 * needs libipt's return stack (-pte_retstack_empty: the only
		 * way the two part, and then the count differs).  The
		 * continuous decode from the start is the index pass
		 * itself, so it reproduces the segment exactly.
		 */
		seg->n = 0;
		/* The index pass's world at its start, not an empty one. */
		ret = rp_walk_begin(&w, s, t, t->ckpts[0].sb_next);
		if (ret) {
			rp_walk_end(&w);
			return ret;
		}
		w.seg = seg;
		w.end = end;
		status = pt_insn_sync_forward(w.d);
		if (status >= 0)
			ret = rp_walk_run(&w, status);
		rp_walk_end(&w);
		decoded += w.pos;
		from = "the start";
	}
	/* How much a move cost (tests/import/real.sh: one segment). */
	if (getenv("PTREC_INDEX_DEBUG"))
		fprintf(stderr, "decode: thread %u: segment %llu (%llu instructions): %llu decoded from %s\n",
			t->tid, (unsigned long long)k,
			(unsigned long long)(end - c->insn),
			(unsigned long long)decoded, from);
	return ret;
}
