// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Decoding a thread with libipt's instruction decoder: one pass builds the
 * index (a checkpoint at every PSB that carries a FUP), and the same loop,
 * restarted at a checkpoint, materializes one segment on demand.  Sharing
 * the loop means a segment decodes exactly as it did during indexing,
 * gaps included.
 *
 * libipt 2.0 reports each in-stream PSB+ only as status-update events;
 * they are matched, in order, with the PSBs a packet scan found, and each
 * match is checked against the PSB's FUP (the next instruction's IP).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disasm.h"
#include "rp_internal.h"

/* ---- PSB scan ------------------------------------------------------------ */

int rp_scan_psbs(struct rp_thread *t)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	struct rp_psb *cur = NULL;
	size_t cap = 0;
	uint64_t off;
	int ret;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)t->pt;
	cfg.end = (uint8_t *)t->pt + t->pt_size;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return -RP_ERR_NOMEM;
	ret = pt_pkt_sync_forward(d);
	while (ret >= 0) {
		pt_pkt_get_offset(d, &off);
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret < 0) {
			/* Skip damage: the next PSB starts afresh. */
			if (ret == -pte_eos)
				break;
			cur = NULL;
			ret = pt_pkt_sync_forward(d);
			continue;
		}
		if (pkt.type == ppt_psb) {
			if (t->npsbs == cap) {
				struct rp_psb *v;

				cap = cap ? 2 * cap : 64;
				v = realloc(t->psbs, cap * sizeof(*v));
				if (!v) {
					pt_pkt_free_decoder(d);
					return -RP_ERR_NOMEM;
				}
				t->psbs = v;
			}
			cur = &t->psbs[t->npsbs++];
			memset(cur, 0, sizeof(*cur));
			cur->offset = off;
		} else if (cur && pkt.type == ppt_tsc) {
			cur->tsc = pkt.payload.tsc.tsc;
		} else if (cur && pkt.type == ppt_fup) {
			/* Inside PSB+ the FUP IP is never compressed against
			 * an earlier IP: last-IP was reset by the PSB.
			 */
			cur->fup = pkt.payload.ip.ip;
			if (pkt.payload.ip.ipc == pt_ipc_sext_48 &&
			    (cur->fup & (1ull << 47)))
				cur->fup |= 0xffffull << 48;
		} else if (pkt.type == ppt_psbend) {
			/*
			 * Only PSB+ matters here: go straight to the next PSB,
			 * found by its pattern (SDM Vol. 3C 33.4.2.17), as
			 * libipt's sync does, instead of decoding every packet
			 * in between (3 of the 28 s of a 10^9 open).
			 */
			cur = NULL;
			ret = pt_pkt_sync_forward(d);
		}
	}
	pt_pkt_free_decoder(d);
	return 0;
}

/* ---- the decoding loop ----------------------------------------------------- */

/*
 * Instructions decoded without consuming any trace: direct jumps need no
 * packets, so on damaged input the decoder can loop in code forever.  In a
 * real trace an event at that address ends even a `jmp .` spin, so this
 * many means the trace no longer matches the code.
 */
#define STALL_LIMIT (1u << 20)

struct walk {
	struct rp_session *s;
	struct rp_thread *t;
	struct rp_world world;
	struct pt_insn_decoder *d;
	struct pt_block_decoder *bd;	/* fast indexing, when set */
	struct pt_image *image;
	uint64_t pos;
	uint64_t tsc;
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
	struct rp_gap **gaps;	/* where gaps go: the thread's, or */
	size_t *ngaps;		/* a parallel indexing worker's own */
	bool stop_at_error;	/* counting: stop at the first error */
	bool count_depth;	/* counting: track the call depth */
	int error;		/* counting: the error stopped at (libipt) */
	uint64_t error_ip, error_off;
	uint64_t resync_off;	/* counting: where it resynced (or ~0) */
	bool stopped;
	int64_t depth;		/* call depth, from the start of decoding */
	int64_t seg_min;	/* lowest depth since the last checkpoint */
	struct cls_slot *cls;	/* indexing: classes of block ends */
	/* materializing */
	struct rp_seg *seg;
	uint64_t end;
	int err;		/* our own failure (negated enum rp_error) */
	const struct rp_map *last_map;	/* lookup cache for store() */
	struct dis *dis;	/* instruction lengths for loop_free() */
};

/* The class of the instruction at an address, from its bytes. */
struct cls_slot {
	uint64_t ip1;		/* address + 1; 0: empty */
	int cls;		/* enum pt_insn_class, -1: unknown */
};

#define CLS_SLOTS 1024

static int set_image(struct walk *w)
{
	struct pt_image *image = rp_world_image(&w->world, w->t->pid);

	if (!image)
		return -RP_ERR_NOMEM;
	if (w->bd)
		pt_blk_set_image(w->bd, image);
	else
		pt_insn_set_image(w->d, image);
	pt_image_free(w->image);
	w->image = image;
	w->last_map = NULL;	/* the maps may have moved */
	if (w->cls)
		memset(w->cls, 0, CLS_SLOTS * sizeof(*w->cls));
	return 0;
}

/* Near call, near return or neither, from an instruction's bytes (SDM Vol.
 * 2: legacy prefixes, REX in 64-bit mode, then the opcode).
 */
static int classify(const uint8_t *b, size_t n, bool rex)
{
	static const uint8_t prefixes[] = { 0x66, 0x67, 0xf2, 0xf3, 0xf0,
					    0x2e, 0x3e, 0x26, 0x36, 0x64,
					    0x65 };
	size_t i = 0;

	while (i < n && memchr(prefixes, b[i], sizeof(prefixes)))
		i++;
	if (rex && i < n && (b[i] & 0xf0) == 0x40)
		i++;
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
static int block_class(struct walk *w, const struct pt_block *b)
{
	struct cls_slot *slot;
	const struct rp_map *mp;
	uint8_t buf[15];
	ssize_t n = -1;
	int fd;

	if (b->iclass != ptic_error)
		return b->iclass;
	if (!w->cls)
		return -1;
	slot = &w->cls[(b->end_ip * 0x9e3779b97f4a7c15ull) >> 54];
	if (slot->ip1 == b->end_ip + 1)
		return slot->cls;
	mp = rp_world_lookup(&w->world, w->t->pid, b->end_ip);
	if (mp && mp->image >= 0) {
		fd = open(w->s->images[mp->image].path, O_RDONLY | O_CLOEXEC);
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

/* Up to 15 code bytes at @ip from the image file mapped there.  Returns
 * how many, or -1 when no code is known there.
 */
static ssize_t read_code(struct walk *w, uint64_t ip, uint8_t *buf)
{
	const struct rp_map *mp = rp_world_lookup(&w->world, w->t->pid, ip);
	ssize_t n = -1;
	size_t len;
	int fd;

	if (!mp || mp->image < 0)
		return -1;
	len = mp->end - ip < 15 ? (size_t)(mp->end - ip) : 15;
	fd = open(w->s->images[mp->image].path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, buf, len, (off_t)(mp->pgoff + ip - mp->start));
		close(fd);
	}
	return n;
}

/*
 * Where an instruction that needs no trace packet goes (SDM Vol. 3C,
 * Table 33-1: only direct jumps and calls, and instructions that do not
 * change the flow), from its bytes and length: the next address, or 0
 * when it needs a packet (conditional, indirect, return, far) or cannot be
 * told.
 */
static uint64_t packet_free_next(const uint8_t *b, size_t len, uint64_t ip)
{
	static const uint8_t prefixes[] = { 0x66, 0x67, 0xf2, 0xf3, 0xf0,
					    0x2e, 0x3e, 0x26, 0x36, 0x64,
					    0x65 };
	size_t i = 0;
	int32_t rel;

	while (i < len && memchr(prefixes, b[i], sizeof(prefixes)))
		i++;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++;	/* REX (64-bit code only reaches here) */
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

#define LOOP_MAX 256	/* instructions followed from an event's IP */

/*
 * Whether the code at @ip (64-bit) runs in a loop that needs no trace
 * packet: followed instruction by instruction, through direct jumps and
 * calls only, it comes back to @ip.  PT says nothing about how often such
 * a loop ran (issue #15, item 15), so an event that binds there cannot
 * tell which iteration it interrupted.
 */
static bool loop_free(struct walk *w, uint64_t ip)
{
	uint64_t at = ip;
	uint8_t buf[15];
	char text[256];
	ssize_t n;
	int len, i;

	if (!w->dis && dis_new(&w->dis))
		return false;
	for (i = 0; i < LOOP_MAX; i++) {
		n = read_code(w, at, buf);
		if (n <= 0)
			return false;
		len = dis_insn(w->dis, buf, (size_t)n, at, text,
			       sizeof(text));
		if (len <= 0 || len > n)
			return false;
		at = packet_free_next(buf, (size_t)len, at);
		if (!at)
			return false;
		if (at == ip)
			return true;
	}
	return false;
}

static void decoder_config(struct rp_session *s, struct rp_thread *t,
			   struct pt_config *cfg)
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
}

/* Closes the last checkpoint's segment: its lowest call depth. */
static void close_ckpt(struct walk *w)
{
	if (*w->nckpts)
		(*w->ckpts)[*w->nckpts - 1].dmin = w->seg_min;
}

static int add_ckpt(struct walk *w, const struct rp_ckpt *c)
{
	struct rp_ckpt *v = realloc(*w->ckpts, (*w->nckpts + 1) * sizeof(*v));

	if (!v)
		return -RP_ERR_NOMEM;
	*w->ckpts = v;
	close_ckpt(w);
	v[*w->nckpts] = *c;
	v[*w->nckpts].depth = w->depth;
	v[(*w->nckpts)++].dmin = w->depth;
	w->seg_min = w->depth;
	return 0;
}

/* Drops the checkpoint just added: its segment joins the one before. */
static void drop_ckpt(struct walk *w)
{
	(*w->nckpts)--;
	if (*w->nckpts && (*w->ckpts)[*w->nckpts - 1].dmin < w->seg_min)
		w->seg_min = (*w->ckpts)[*w->nckpts - 1].dmin;
}

/* The call depth after an instruction of class @iclass. */
static void track_depth(struct walk *w, enum pt_insn_class iclass)
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

static int add_gap_at(struct walk *w, int err, uint64_t ip, uint64_t off)
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
	g->offset = off;
	g->error = err ? pt_errstr(pt_errcode(err)) : NULL;
	return 0;
}

static int add_gap(struct walk *w, int err, uint64_t ip)
{
	uint64_t off = 0;

	pt_insn_get_offset(w->d, &off);
	return add_gap_at(w, err, ip, off);
}

/* The index of the last PSB at or before trace offset @off, or SIZE_MAX. */
static size_t psb_at(const struct rp_thread *t, uint64_t off)
{
	size_t lo = 0, hi = t->npsbs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->psbs[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
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
	struct rp_ckpt c;
	uint64_t off = 0;
	size_t i;

	if (!w->indexing)
		return 0;
	if (w->bd)
		pt_blk_get_offset(w->bd, &off);
	else
		pt_insn_get_offset(w->d, &off);
	i = psb_at(t, off);
	/* Before the first PSB, or one matched already (its other status
	 * updates).
	 */
	if (i == SIZE_MAX || i < w->psb_next)
		return 0;
	w->psb_next = i + 1;
	if (i > w->stop_psb) {
		/* Passed the next worker's start without seeing it. */
		w->overshot = true;
		w->stopped = true;
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
	return w->ckpt_added ? add_ckpt(w, &c) : 0;
}

/*
 * An event that interrupts a loop the trace cannot count (tracing turned
 * off, or an interrupt, inside a `jmp` loop): the history shows the loop
 * up to the event's first chance to bind, not the iterations that ran, so
 * a gap of unknown length says so there.
 */
static int loop_gap(struct walk *w, const struct pt_event *ev)
{
	uint64_t at, off = 0;

	if (ev->type == ptev_async_disabled)
		at = ev->variant.async_disabled.at;
	else if (ev->type == ptev_async_branch)
		at = ev->variant.async_branch.from;
	else
		return 0;
	if (!loop_free(w, at))
		return 0;
	if (w->bd)
		pt_blk_get_offset(w->bd, &off);
	else
		pt_insn_get_offset(w->d, &off);
	return add_gap_at(w, 0, at, off);
}

/* Handles pending events.  Returns libipt's status; our own failures go to
 * w->err (and stop decoding with -pte_internal).
 */
static int events(struct walk *w, int status)
{
	struct pt_event ev;
	int ret;

	while (status & pts_event_pending) {
		status = w->bd ? pt_blk_event(w->bd, &ev, sizeof(ev)) :
				 pt_insn_event(w->d, &ev, sizeof(ev));
		if (status < 0)
			return status;
		if (ev.has_tsc)
			w->tsc = ev.tsc;
		ret = ev.status_update ? psb_passed(w) : 0;
		if (!ret && w->indexing)
			ret = loop_gap(w, &ev);
		if (!ret && ev.type == ptev_enabled && ev.has_tsc) {
			ret = rp_world_advance(&w->world, ev.tsc);
			if (!ret && w->world.changed)
				ret = set_image(w);
		}
		if (ret) {
			w->err = ret;
			return -pte_internal;
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
				ret = set_image(w);
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
	struct rp_seg *seg = w->seg;
	struct rp_insn *ri;
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;

	if (!seg || w->pos < seg->first)
		return 0;
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
	ri->tsc = pt_insn_time(w->d, &tsc, &lost_mtc, &lost_cyc) >= 0 ? tsc :
		  w->tsc;
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
	return 0;
}

/*
 * Decodes from the decoder's current sync point until @w->end instructions
 * (UINT64_MAX: the end of the stream), turning errors into gaps.
 */
static int run(struct walk *w, int status)
{
	/* Each resync moves past a PSB, so this many gaps end any stream. */
	size_t resyncs = w->t->npsbs + 2;
	uint64_t trace_off, last_off = UINT64_MAX, stall = 0;
	struct pt_insn insn;
	int ret;

	while (w->pos < w->end) {
		if (status >= 0)
			status = events(w, status);
		if (w->err)
			return w->err;
		if (status >= 0 && (status & pts_eos))
			break;
		if (status >= 0) {
			memset(&insn, 0, sizeof(insn));
			status = pt_insn_next(w->d, &insn, sizeof(insn));
			pt_insn_get_offset(w->d, &trace_off);
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
				w->error_ip = insn.ip;
				pt_insn_get_offset(w->d, &w->error_off);
				w->resync_off = UINT64_MAX;
				if (pt_insn_sync_forward(w->d) >= 0)
					pt_insn_get_sync_offset(w->d,
								&w->resync_off);
				break;
			}
			ret = add_gap(w, status, insn.ip);
			if (ret)
				return ret;
			status = resync(w);
			if (w->err)
				return w->err;
			if (status == -pte_eos)
				break;
			continue;	/* a failed resync is another gap */
		}
		if (w->expect_fup) {
			/* The PSB+ we matched must resume where we are. */
			w->expect_fup = false;
			if (insn.ip != w->fup_ip && w->indexing &&
			    w->ckpt_added)
				drop_ckpt(w);
		}
		ret = store(w, &insn);
		if (ret)
			return ret;
		w->pos++;
		if (w->indexing || w->count_depth)
			track_depth(w, insn.iclass);
		if (w->indexing && w->s->progress && !(w->pos & 0xffff)) {
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
		      struct rp_thread *t, uint64_t sb_next)
{
	struct pt_config cfg;
	int ret;

	memset(w, 0, sizeof(*w));
	w->s = s;
	w->t = t;
	w->end = UINT64_MAX;
	w->ckpts = &t->ckpts;
	w->nckpts = &t->nckpts;
	w->gaps = &t->gaps;
	w->ngaps = &t->ngaps;
	w->stop_psb = SIZE_MAX;
	w->start_psb = SIZE_MAX;
	rp_world_init(&w->world, s);
	ret = rp_world_seek(&w->world, sb_next);
	if (ret)
		return ret;
	decoder_config(s, t, &cfg);
	w->d = pt_insn_alloc_decoder(&cfg);
	if (!w->d)
		return -RP_ERR_NOMEM;
	return set_image(w);
}

static void walk_end(struct walk *w)
{
	dis_free(w->dis);
	pt_blk_free_decoder(w->bd);
	pt_insn_free_decoder(w->d);
	pt_image_free(w->image);
	rp_world_fini(&w->world);
}

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
	bool own_iscache;	/* one of several workers */
	struct rp_ckpt *ckpts;
	size_t nckpts;
	struct rp_gap *gaps;
	size_t ngaps;
	uint64_t insns, tsc;
	int64_t depth;		/* call depth at its end, from its start */
	bool nodepth;		/* a block without instruction class */
	bool stopped;
	int ret;
};

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

/*
 * The block decoder failed in the segment that starts at the last
 * checkpoint.  libipt's two decoders may stop at different instructions
 * on damaged input, and segments are materialized with the instruction
 * decoder, so that one decodes this segment again, to its first error, and
 * resyncs as it will when materializing: the index then counts what the
 * segment will hold, by construction, and the block decoder goes on from
 * the same PSB.  Only damaged segments are decoded twice.  Returns 1 when
 * the decoders disagree beyond repair (index in one piece with pt_insn).
 */
static int count_to_error(struct walk *bw, uint64_t *resync_off)
{
	const struct rp_thread *t = bw->t;
	const struct rp_ckpt *c = &(*bw->ckpts)[*bw->nckpts - 1];
	struct walk cw;
	int ret, status;

	ret = walk_begin(&cw, bw->s, bw->t, c->sb_next);
	if (ret) {
		walk_end(&cw);
		return ret;
	}
	cw.pos = c->insn;
	cw.depth = c->depth;
	cw.seg_min = c->depth;
	cw.stop_at_error = true;
	cw.count_depth = true;
	status = pt_insn_sync_set(cw.d, c->offset);
	ret = status < 0 ? 1 : run(&cw, status);
	walk_end(&cw);
	if (ret)
		return ret;
	/* No error (the decoders disagree), or one past the worker's end. */
	if (!cw.error || (bw->stop_psb < t->npsbs &&
			  cw.resync_off > t->psbs[bw->stop_psb].offset))
		return 1;
	bw->pos = cw.pos;
	bw->depth = cw.depth;
	bw->seg_min = cw.seg_min;
	bw->expect_fup = false;
	*resync_off = cw.resync_off;
	return add_gap_at(bw, cw.error, cw.error_ip, cw.error_off);
}

/* A gap where code is missing, then the block decoder's own resync. */
static int nomap_gap(struct walk *w, uint64_t ip, uint64_t *resync_off)
{
	uint64_t off = 0;
	int ret;

	pt_blk_get_offset(w->bd, &off);
	ret = add_gap_at(w, -pte_nomap, ip, off);
	w->expect_fup = false;
	*resync_off = UINT64_MAX;
	if (!ret && pt_blk_sync_forward(w->bd) >= 0)
		pt_blk_get_sync_offset(w->bd, resync_off);
	return ret;
}

/* The block decoder after an error: on at @off, a checkpoint there; its
 * libipt status in @status.
 */
static int resync_blocks(struct walk *w, uint64_t off, int *status)
{
	const struct rp_thread *t = w->t;
	size_t i = psb_at(t, off);
	struct rp_ckpt c = { 0 };
	int ret;

	if (i == SIZE_MAX || t->psbs[i].offset != off)
		return 1;
	if (i >= w->stop_psb) {
		/* The next worker's range starts there. */
		w->stopped = true;
		w->overshot = i > w->stop_psb;
		return 0;
	}
	*status = pt_blk_sync_set(w->bd, off);
	if (*status < 0)
		return 1;
	w->psb_next = i;
	ret = rp_world_advance(&w->world, t->psbs[i].tsc);
	if (!ret && w->world.changed)
		ret = set_image(w);
	if (ret)
		return ret;
	c.offset = off;
	c.insn = w->pos;
	c.tsc = t->psbs[i].tsc;
	c.sb_next = w->world.next;
	return add_ckpt(w, &c);
}

static int index_range(struct range *r)
{
	struct rp_session *s = r->s;
	struct rp_thread *t = r->t;
	struct rp_ckpt c0 = { 0 };
	uint64_t trace_off, last_off = UINT64_MAX, stall = 0;
	struct pt_config cfg;
	struct pt_image_section_cache *isc;
	struct pt_block block;
	struct walk w;
	int ret, status;

	memset(&w, 0, sizeof(w));
	w.s = s;
	w.t = t;
	w.end = UINT64_MAX;
	w.indexing = true;
	w.ckpts = &r->ckpts;
	w.nckpts = &r->nckpts;
	w.gaps = &r->gaps;
	w.ngaps = &r->ngaps;
	w.stop_psb = r->stop_psb;
	w.start_psb = r->first_psb;
	rp_world_init(&w.world, s);
	if (r->own_iscache) {
		w.world.iscache = pt_iscache_alloc(NULL);
		if (!w.world.iscache) {
			rp_world_fini(&w.world);
			return -RP_ERR_NOMEM;
		}
	}
	ret = rp_world_advance(&w.world, start_tsc(t, r->first_psb));
	if (ret) {
		pt_iscache_free(w.world.iscache);
		rp_world_fini(&w.world);
		return ret;
	}
	decoder_config(s, t, &cfg);
	/*
	 * libipt 2.0's block cache follows direct jumps and calls by
	 * recursion: on damaged input that loops in code ('jmp .') without
	 * consuming trace, it recurses until the stack overflows.  Ending a
	 * block at every jump and call hands control back to the stall check
	 * below on each turn of such a loop.
	 */
	cfg.flags.variant.block.end_on_jump = 1;
	cfg.flags.variant.block.end_on_call = 1;
	w.bd = pt_blk_alloc_decoder(&cfg);
	w.cls = calloc(CLS_SLOTS, sizeof(*w.cls));
	ret = w.bd && w.cls ? set_image(&w) : -RP_ERR_NOMEM;
	if (ret)
		goto out;
	if (r->first_psb == SIZE_MAX) {
		status = pt_blk_sync_forward(w.bd);
		if (status >= 0)
			pt_blk_get_sync_offset(w.bd, &c0.offset);
		if (t->npsbs)
			c0.tsc = t->psbs[0].tsc;
		c0.sb_next = w.world.next;
	} else {
		c0.offset = t->psbs[r->first_psb].offset;
		c0.tsc = t->psbs[r->first_psb].tsc;
		c0.sb_next = w.world.next;
		w.psb_next = r->first_psb;
		status = pt_blk_sync_set(w.bd, c0.offset);
	}
	if (status < 0) {
		ret = 1;
		goto out;
	}
	ret = add_ckpt(&w, &c0);
	while (!ret) {
		if (status >= 0)
			status = events(&w, status);
		if (w.err) {
			ret = w.err;
			break;
		}
		if (w.stopped)
			break;
		if (status >= 0 && (status & pts_eos))
			break;
		if (status >= 0) {
			memset(&block, 0, sizeof(block));
			status = pt_blk_next(w.bd, &block, sizeof(block));
		}
		if (status == -pte_eos)
			break;
		if (status < 0) {
			uint64_t off = UINT64_MAX;

			stall = 0;
			last_off = UINT64_MAX;
			/*
			 * Code missing where decoding goes next: both decoders
			 * stop before that instruction, having read the same
			 * packets (checked on real traces, tests/import; a
			 * segment that disagrees is refused when it
			 * materializes).  Any other error: count_to_error().
			 */
			if (status == -pte_nomap && !block.ninsn)
				ret = nomap_gap(&w, block.ip, &off);
			else
				ret = count_to_error(&w, &off);
			if (!ret && off == UINT64_MAX)
				break;	/* the end of the stream */
			if (!ret)
				ret = resync_blocks(&w, off, &status);
			if (w.stopped)
				break;
			continue;
		}
		if (w.expect_fup && block.ninsn) {
			/*
			 * As run() does: a PSB+ whose FUP is not where decoding
			 * resumes (tracing was off at the PSB, as in kAFL's
			 * traces) is no checkpoint.  A worker's own first PSB
			 * cannot be dropped: index in one piece then.
			 */
			w.expect_fup = false;
			if (block.ip != w.fup_ip && w.ckpt_added) {
				drop_ckpt(&w);
			} else if (block.ip != w.fup_ip &&
				   w.match_psb == w.start_psb) {
				ret = 1;
				break;
			}
		}
		if (block.ninsn) {
			/* Calls and returns end blocks (end_on_call). */
			int cls = block_class(&w, &block);

			if (cls < 0)
				r->nodepth = true;
			else
				track_depth(&w, (enum pt_insn_class)cls);
		}
		w.pos += block.ninsn;
		/* Looping in code without consuming trace: damaged input. */
		pt_blk_get_offset(w.bd, &trace_off);
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

			pt_blk_get_offset(w.bd, &off);
			s->progress(s->progress_ctx, s->progress_base + off,
				    s->progress_total);
		}
	}
	close_ckpt(&w);
	r->insns = w.pos;
	r->tsc = w.tsc;
	r->depth = w.depth;
	r->stopped = w.stopped;
	/* A range that should end at the next one's PSB but did not. */
	if (!ret && r->stop_psb != SIZE_MAX && (!w.stopped || w.overshot))
		ret = 1;
out:
	free(w.cls);
	isc = w.world.iscache;
	walk_end(&w);
	pt_iscache_free(isc);	/* after the image that uses it */
	return ret;
}

static void *range_main(void *arg)
{
	struct range *r = arg;

	r->ret = index_range(r);
	return NULL;
}

#define RANGE_MIN_BYTES	(32u << 10)	/* smaller streams: one range */
#define RANGE_MAX	8

/* Workers for @t: one per online CPU, PTREC_INDEX_THREADS to override. */
static size_t range_count(const struct rp_thread *t)
{
	const char *env = getenv("PTREC_INDEX_THREADS");
	long n = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);

	if (!env && t->pt_size < 2 * RANGE_MIN_BYTES)
		return 1;
	if (n < 1)
		n = 1;
	return n > RANGE_MAX ? RANGE_MAX : (size_t)n;
}

/* Cuts the stream into up to @n ranges of about equal size at PSBs that
 * carry a FUP (where checkpoints are).  Returns the number of ranges.
 */
static size_t plan_ranges(struct rp_session *s, struct rp_thread *t,
			  struct range *r, size_t n)
{
	size_t i, k = 1, p = 0;

	memset(r, 0, n * sizeof(*r));
	r[0].first_psb = SIZE_MAX;
	for (i = 1; i < n; i++) {
		uint64_t target = t->pt_size / n * i;

		while (p < t->npsbs &&
		       (!t->psbs[p].fup || t->psbs[p].offset < target ||
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
		r[i].own_iscache = k > 1;
	}
	r[0].progress = true;
	return k;
}

/* Joins the ranges' checkpoints into the thread's index. */
static int merge_ranges(struct rp_thread *t, struct range *r, size_t n)
{
	size_t i, j, total = 0;
	uint64_t base = 0;
	int64_t dbase = 0;
	bool nodepth = false;
	struct rp_ckpt *v;
	struct rp_gap *g;
	size_t ngaps = 0;

	for (i = 0; i < n; i++) {
		total += r[i].nckpts;
		ngaps += r[i].ngaps;
	}
	v = malloc(total * sizeof(*v));
	g = malloc((ngaps ? ngaps : 1) * sizeof(*g));
	if (!v || !g) {
		free(v);
		free(g);
		return -RP_ERR_NOMEM;
	}
	free(t->gaps);
	t->gaps = g;
	t->ngaps = 0;
	free(t->ckpts);
	t->ckpts = v;
	t->nckpts = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < r[i].nckpts; j++) {
			v[t->nckpts] = r[i].ckpts[j];
			v[t->nckpts].depth += dbase;
			v[t->nckpts].dmin += dbase;
			v[t->nckpts++].insn += base;
		}
		for (j = 0; j < r[i].ngaps; j++) {
			g[t->ngaps] = r[i].gaps[j];
			g[t->ngaps++].before += base;
		}
		base += r[i].insns;
		dbase += r[i].depth;
		nodepth |= r[i].nodepth;
	}
	if (nodepth)
		for (j = 0; j < t->nckpts; j++)
			v[j].dmin = RP_DMIN_UNKNOWN;
	t->insns = base;
	t->first_tsc = t->npsbs ? t->psbs[0].tsc : 0;
	t->last_tsc = r[n - 1].tsc;
	return 0;
}

static int index_blocks(struct rp_session *s, struct rp_thread *t)
{
	struct range r[RANGE_MAX];
	pthread_t tid[RANGE_MAX];
	bool started[RANGE_MAX] = { false };
	size_t i, n = plan_ranges(s, t, r, range_count(t));
	int ret = 0;

	for (i = 1; i < n; i++)
		started[i] = !pthread_create(&tid[i], NULL, range_main, &r[i]);
	for (i = 1; i < n; i++)
		if (!started[i])
			r[i].ret = index_range(&r[i]);
	r[0].ret = index_range(&r[0]);
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		if (r[i].ret < 0 || (r[i].ret > 0 && !ret))
			ret = r[i].ret;
	}
	if (!ret)
		ret = merge_ranges(t, r, n);
	for (i = 0; i < n; i++) {
		free(r[i].ckpts);
		free(r[i].gaps);
	}
	/* Ranges that do not join up: index it in one piece. */
	if (ret > 0 && n > 1) {
		struct range one = { .s = s, .t = t, .first_psb = SIZE_MAX,
				     .stop_psb = SIZE_MAX, .progress = true };

		ret = index_range(&one);
		if (!ret)
			ret = merge_ranges(t, &one, 1);
		free(one.ckpts);
		free(one.gaps);
	}
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
	t->ckpts = NULL;
	t->gaps = NULL;
	t->nckpts = t->ngaps = 0;
	t->insns = 0;
	t->exact = true;
	for (k = 0; k < RP_SEG_CACHE; k++)
		t->cache[k].ckpt = UINT64_MAX;
	ret = walk_begin(&w, s, t, 0);
	if (!ret)
		ret = rp_world_advance(&w.world, start_tsc(t, SIZE_MAX));
	if (!ret && w.world.changed)
		ret = set_image(&w);
	if (ret) {
		walk_end(&w);
		return ret;
	}
	c0.sb_next = w.world.next;
	w.indexing = true;
	status = pt_insn_sync_forward(w.d);
	if (status < 0) {
		/* Not a single PSB: an empty history with one gap. */
		if (t->pt_size)
			add_gap(&w, status, 0);
		ret = add_ckpt(&w, &c0);
		walk_end(&w);
		return ret;
	}
	pt_insn_get_sync_offset(w.d, &c0.offset);
	if (t->npsbs)
		c0.tsc = t->psbs[0].tsc;
	ret = add_ckpt(&w, &c0);
	if (!ret)
		ret = run(&w, status);
	close_ckpt(&w);
	t->insns = w.pos;
	t->first_tsc = t->npsbs ? t->psbs[0].tsc : 0;
	t->last_tsc = w.tsc;
	walk_end(&w);
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
static int add_lost_gaps(struct rp_session *s, struct rp_thread *t)
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

int rp_index_thread(struct rp_session *s, struct rp_thread *t)
{
	int ret = rp_scan_psbs(t);

	if (ret)
		return ret;
	ret = index_blocks(s, t);
	if (ret > 0)
		ret = index_insns(s, t);
	return ret ? ret : add_lost_gaps(s, t);
}

int rp_reindex_exact(struct rp_session *s, struct rp_thread *t)
{
	int ret = t->exact ? -RP_ERR_DECODE : index_insns(s, t);

	return ret ? ret : add_lost_gaps(s, t);
}

int rp_materialize(struct rp_session *s, struct rp_thread *t, uint64_t k,
		   struct rp_seg *seg)
{
	const struct rp_ckpt *c = &t->ckpts[k];
	uint64_t end = k + 1 < t->nckpts ? t->ckpts[k + 1].insn : t->insns;
	struct walk w;
	int ret, status;

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
	ret = walk_begin(&w, s, t, c->sb_next);
	if (ret)
		return ret;
	w.seg = seg;
	w.pos = c->insn;
	w.end = end;
	status = k ? pt_insn_sync_set(w.d, c->offset) :
		     pt_insn_sync_forward(w.d);
	if (status >= 0)
		ret = run(&w, status);
	walk_end(&w);
	if (!ret && seg->first + seg->n != end && k) {
		/*
		 * A damaged stream can decode differently from a PSB than
		 * through it.  The continuous decode from the start is the
		 * index pass itself, so it reproduces the segment exactly.
		 */
		seg->n = 0;
		ret = walk_begin(&w, s, t, 0);
		if (ret)
			return ret;
		w.seg = seg;
		w.end = end;
		status = pt_insn_sync_forward(w.d);
		if (status >= 0)
			ret = run(&w, status);
		walk_end(&w);
	}
	if (!ret && seg->first + seg->n != end)
		ret = rp_fail(s, RP_ERR_DECODE,
			      "thread %u: segment %llu decoded %llu of %llu instructions",
			      t->tid, (unsigned long long)k,
			      (unsigned long long)seg->n,
			      (unsigned long long)(end - c->insn));
	return ret;
}
