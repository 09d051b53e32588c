// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Gap accounting (gaps.h): a gap where decoding stopped and resumes, a gap of
 * unknown length where an event interrupts a loop that makes no packets,
 * and the trace a recorder lost, placed at checkpoints.
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "gaps.h"

/*
 * The flow walker's code reader (fwalk.h, rp_fwalk_read_fn) for walk
 * @ctx: up to @size bytes at @ip from the section libipt's image holds
 * there (rp_world_image()), never past its end, as pt_image reads.
 */
int rp_walk_read_fw(void *ctx, uint8_t *buf, size_t size, uint64_t ip)
{
	struct walk *w = ctx;
	const struct rp_map *mp = w->fw_map;
	struct pt_image_section_cache *isc;
	int isid = w->fw_isid;

	isc = w->world.iscache ? w->world.iscache : w->s->iscache;
	/* Most reads are in the section read last. */
	if (!mp || ip < mp->start || ip >= mp->end) {
		mp = rp_world_lookup(&w->world, w->t->pid, ip);
		if (!mp || mp->image < 0)
			return -pte_nomap;
		isid = pt_iscache_add_file(isc, w->s->images[mp->image].path,
					   mp->pgoff, mp->end - mp->start,
					   mp->start);
		if (isid < 0)
			return -pte_nomap;
		w->fw_map = mp;
		w->fw_isid = isid;
	}
	if (size > mp->end - ip)
		size = (size_t)(mp->end - ip);
	return pt_iscache_read(isc, buf, size, isid, ip);
}

/* Up to 15 code bytes at @ip from the image file mapped there.  Returns
 * how many, or -1 when no code is known there.
 */
ssize_t rp_walk_read_code(struct walk *w, uint64_t ip, uint8_t *buf)
{
	const struct rp_map *mp;
	struct pt_image_section_cache *isc;
	int isid, n;

	/* Straight-line code: most reads fall in the last window. */
	if (w->code_n && ip >= w->code_ip &&
	    ip + 15 <= w->code_ip + w->code_n) {
		memcpy(buf, w->code + (ip - w->code_ip), 15);
		return 15;
	}
	mp = rp_world_lookup(&w->world, w->t->pid, ip);
	if (!mp || mp->image < 0)
		return -1;
	/* The section the decoder reads too. */
	isc = w->world.iscache ? w->world.iscache : w->s->iscache;
	isid = pt_iscache_add_file(isc, w->s->images[mp->image].path,
				   mp->pgoff, mp->end - mp->start, mp->start);
	if (isid < 0)
		return -1;
	n = pt_iscache_read(isc, w->code, sizeof(w->code), isid, ip);
	if (n <= 0)
		return -1;
	w->code_ip = ip;
	w->code_n = (size_t)n;
	n = n < 15 ? n : 15;
	memcpy(buf, w->code, (size_t)n);
	return n;
}

/*
 * Where an instruction that needs no trace packet goes (SDM Vol. 3C,
 * Table 33-1: only direct jumps and calls, and instructions that do not
 * change the flow), from its bytes and length: the next address, or 0
 * when it needs a packet (conditional, indirect, return, far) or cannot be
 * told.
 */
uint64_t rp_gap_next_ip(const uint8_t *b, size_t len, uint64_t ip)
{
	size_t i = rp_opcode_at(b, len, true);
	int32_t rel;

	if (i >= len)
		return 0;
	switch (b[i]) {
	case 0xeb:	/* JMP rel8 */
		return ip + len + (uint64_t)(int64_t)(int8_t)b[len - 1];
	case 0xe8:	/* CALL rel32 */
	case 0xe9:	/* JMP rel32 */
		if (len < i + 5)
			return 0;
		memcpy(&rel, b + len - 4, 4);
		return ip + len + (uint64_t)(int64_t)rel;
	case 0x70 ... 0x7f:	/* Jcc */
	case 0xe0 ... 0xe3:	/* LOOP*, JCXZ */
	case 0xc2: case 0xc3: case 0xca: case 0xcb: case 0xcf:
	case 0xcc: case 0xcd: case 0xce: case 0xf1:	/* INT* */
	case 0x9a: case 0xea:	/* far CALL, far JMP */
		return 0;
	case 0x0f:
		if (i + 1 >= len)
			return 0;
		/* Jcc rel32, SYSCALL, SYSENTER, SYSEXIT, SYSRET, UD2 */
		if ((b[i + 1] & 0xf0) == 0x80 || b[i + 1] == 0x05 ||
		    b[i + 1] == 0x34 || b[i + 1] == 0x35 || b[i + 1] == 0x07 ||
		    b[i + 1] == 0x0b)
			return 0;
		return ip + len;
	case 0xff:	/* FF /2../5: indirect CALL and JMP */
		if (i + 1 >= len)
			return 0;
		if (((b[i + 1] >> 3) & 7) >= 2 && ((b[i + 1] >> 3) & 7) <= 5)
			return 0;
		return ip + len;
	default:
		return ip + len;
	}
}

#define LOOP_MAX 64	/* instructions followed from an event's IP */

/*
 * A PSB+ that says tracing is on at an address (SDM Vol. 3C 33.4.2):
 * PSB, MODE.Exec 64-bit, a FUP with the full IP (bytes ILD_IP on), PSBEND.
 * libipt's instruction decoder synced there steps through the code from
 * that address, with its lengths, as far as it goes without a packet.
 */
#define ILD_IP	19
static const uint8_t ild_psb[RP_ILD_BYTES] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x99, 0x01,				/* MODE.Exec: 64-bit */
	0xdd, 0, 0, 0, 0, 0, 0, 0, 0,		/* FUP, full IP */
	0x02, 0x23,				/* PSBEND */
};

/*
 * Group 4 (FE) and group 5 (FF) encodings that do not exist (SDM Vol. 2,
 * Table A-6: FE /2../7, FF /7): libipt's decoder gives their length, the
 * CPU raises #UD (and libopcodes, which loop_free() took lengths from
 * before, says "(bad)").
 */
static bool undefined_fe_ff(const uint8_t *b, size_t len)
{
	size_t i = rp_opcode_at(b, len, true);

	if (i + 1 >= len)
		return false;
	return (b[i] == 0xfe && ((b[i + 1] >> 3) & 7) >= 2) ||
	       (b[i] == 0xff && ((b[i + 1] >> 3) & 7) == 7);
}

/*
 * Whether the code at @ip (64-bit) runs in a loop that needs no trace
 * packet: followed instruction by instruction, through direct jumps and
 * calls only, it comes back to @ip.  PT says nothing about how often such
 * a loop ran (issue #15, item 15), so an event that binds there cannot
 * tell which iteration it interrupted.
 */
static bool loop_free(struct walk *w, uint64_t ip)
{
	uint64_t at = ip, seen[LOOP_MAX];
	int i, j, status;

	/*
	 * Instruction lengths from libipt's own decoder, run over a made-up
	 * PSB+ at @ip with the walk's image: no disassembler to load (the
	 * libopcodes this took them from cost a first ptrec info of
	 * libxdc's Unzip 0.83 M instructions to load, in an index worker,
	 * and capstone before it 1.1 M).  Each walk has its own decoder.
	 */
	if (!w->image)
		return false;
	if (!w->ild) {
		struct pt_config cfg;

		memcpy(w->ild_buf, ild_psb, sizeof(ild_psb));
		pt_config_init(&cfg);
		cfg.begin = w->ild_buf;
		cfg.end = w->ild_buf + sizeof(w->ild_buf);
		w->ild = pt_insn_alloc_decoder(&cfg);
		if (!w->ild)
			return false;
	}
	memcpy(w->ild_buf + ILD_IP, &ip, sizeof(ip));	/* little-endian */
	pt_insn_set_image(w->ild, w->image);
	status = pt_insn_sync_set(w->ild, 0);
	for (i = 0; i < LOOP_MAX; i++) {
		struct pt_insn insn;

		/* A packet-free cycle that does not pass @ip. */
		for (j = 0; j < i; j++)
			if (seen[j] == at)
				return false;
		seen[i] = at;
		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_insn_event(w->ild, &ev, sizeof(ev));
		}
		if (status < 0)
			return false;
		/* Needing a packet (no more here) is an error. */
		status = pt_insn_next(w->ild, &insn, sizeof(insn));
		if (status < 0 || insn.ip != at || !insn.size ||
		    undefined_fe_ff(insn.raw, insn.size))
			return false;
		at = rp_gap_next_ip(insn.raw, insn.size, at);
		if (!at)
			return false;
		if (at == ip)
			return true;
	}
	return false;
}

/*
 * loop_free() by address, cached while the address space stays (glibc-nolib:
 * 3,300 asynchronous events at a few dozen addresses cost 4% of the index
 * pass, each decoding up to 64 instructions).
 */
static bool loop_free_cached(struct walk *w, uint64_t ip)
{
	struct cls_slot *slot;

	if (!w->loops)
		return loop_free(w, ip);
	slot = &w->loops[(ip * 0x9e3779b97f4a7c15ull) >> 54];
	if (slot->ip1 != ip + 1) {
		slot->cls = loop_free(w, ip);
		slot->ip1 = ip + 1;
	}
	return slot->cls;
}

int rp_gap_add_at(struct walk *w, int err, uint64_t ip, uint64_t off)
{
	struct rp_gap *v, *g;

	if (!w->indexing)
		return 0;	/* recorded once, by the index pass */
	v = realloc(*w->gaps, (*w->ngaps + 1) * sizeof(*v));
	if (!v)
		return -RP_ERR_NOMEM;
	*w->gaps = v;
	g = &v[(*w->ngaps)++];
	memset(g, 0, sizeof(*g));
	g->before = w->pos;
	g->reason = !err ? RP_GAP_LOOP : err == -pte_nomap ? RP_GAP_NOMAP :
		    RP_GAP_DECODE;
	g->ip = ip;
	g->offset = off + (uint64_t)w->off_delta;
	g->error = err ? pt_errstr(pt_errcode(err)) : NULL;
	return 0;
}

int rp_gap_add(struct walk *w, int err, uint64_t ip)
{
	uint64_t off = 0;

	pt_insn_get_offset(w->d, &off);
	return rp_gap_add_at(w, err, ip, off);
}

/*
 * An event that interrupts a loop the trace cannot count (tracing turned
 * off, or an interrupt, inside a `jmp` loop): the history shows the loop
 * up to the event's first chance to bind, not the iterations that ran, so
 * a gap of unknown length says so there.
 */
int rp_gap_loop(struct walk *w, const struct pt_event *ev)
{
	uint64_t at, off = 0;

	if (ev->type == ptev_async_disabled)
		at = ev->variant.async_disabled.at;
	else if (ev->type == ptev_async_branch)
		at = ev->variant.async_branch.from;
	else
		return 0;
	if (!loop_free_cached(w, at))
		return 0;
	if (w->bd)
		rp_bsrc_get_offset(w->bd, &off);
	else
		pt_insn_get_offset(w->d, &off);
	return rp_gap_add_at(w, 0, at, off);
}

/*
 * An overflow (OVF): the PT unit dropped packets, so what ran between the
 * last instruction and where tracing resumes is not known.
 */
int rp_gap_overflow(struct walk *w, const struct pt_event *ev)
{
	size_t n = *w->ngaps;
	uint64_t off = 0;
	int ret;

	if (w->bd)
		rp_bsrc_get_offset(w->bd, &off);
	else
		pt_insn_get_offset(w->d, &off);
	ret = rp_gap_add_at(w, 0, ev->ip_suppressed ? 0 :
			    ev->variant.overflow.ip, off);
	if (!ret && *w->ngaps > n)
		(*w->gaps)[n].reason = RP_GAP_OVERFLOW;
	return ret;
}

static int gap_cmp(const void *a, const void *b)
{
	const struct rp_gap *x = a, *y = b;

	if (x->before != y->before)
		return x->before < y->before ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Trace the recorder lost (a LOST sideband record of this thread) is a hole
 * the decoder may not notice: the stream resumes at a PSB and decodes
 * cleanly on both sides.  Each such record becomes a gap at the first
 * checkpoint at or after its stream offset, or at the end of the history
 * when the loss is in the stream's tail (a truncated import).
 */
int rp_gaps_add_lost(struct rp_session *s, struct rp_thread *t)
{
	size_t i, k, g;

	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_lost *l = (const void *)s->recs[i];
		struct rp_gap *v, *gap;

		if (l->hdr.type != PTREC_SB_LOST || l->tid != t->tid ||
		    l->reason == PTREC_SB_LOST_SIDEBAND)
			continue;
		v = realloc(t->gaps, (t->ngaps + 1) * sizeof(*v));
		if (!v)
			return -RP_ERR_NOMEM;
		t->gaps = v;
		gap = &t->gaps[t->ngaps++];
		memset(gap, 0, sizeof(*gap));
		gap->reason = RP_GAP_LOST;
		gap->offset = l->offset;
		gap->bytes = l->bytes;
		gap->before = t->insns;
		for (k = 0; k < t->nckpts; k++) {
			if (t->ckpts[k].offset >= l->offset) {
				gap->before = t->ckpts[k].insn;
				break;
			}
		}
	}
	if (t->ngaps > 1)
		qsort(t->gaps, t->ngaps, sizeof(*t->gaps), gap_cmp);
	for (k = 0, g = 0; k < t->nckpts; k++) {
		while (g < t->ngaps && t->gaps[g].before <= t->ckpts[k].insn)
			g++;
		t->ckpts[k].gap = g;
	}
	return 0;
}
