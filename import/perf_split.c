// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import perf`, step 2: perf_split() turns the AUX buffers into one
 * PT stream per thread.  A per-thread recording already has one; a per-cpu
 * buffer is cut at its PSB packets (and at trace re-enables after a
 * TIP.PGD) and each piece goes to the thread that ran on that CPU at the
 * piece's TSC (docs/import.md says what that can and cannot do).
 */
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_internal.h"
#include "ptkit.h"

/* ---- splitting AUX buffers into thread streams ------------------------ */

/*
 * A place a piece of a per-cpu buffer can start: a PSB, or (@enable) the
 * first packet after a TIP.PGD, where tracing was off and comes back on
 * with TIP.PGE (Linux stops and starts a per-task trace at every context
 * switch, SDM Vol. 3C 33.2.7.3: no PSB unless the byte count was 0).  A
 * decoder cannot start at the latter: the importer gives it a PSB+ there
 * and the IPs that follow in full, from @last_ip (the IP compression
 * state of the CPU's stream at that point).
 */
struct psb {
	uint64_t off, tsc, last_ip;
	bool have_tsc, enable;
	bool off_before;	/* the packet before it was a TIP.PGD */
};

static uint64_t ip_update(uint64_t last, const struct pt_packet_ip *ip)
{
	/* SDM Vol. 3C 33.4.2.2: which bytes of the last IP are replaced. */
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffull) | (ip->ip & 0xffff);
	case pt_ipc_update_32:
		return (last & ~0xffffffffull) | (ip->ip & 0xffffffff);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffull) |
		       (ip->ip & 0xffffffffffffull);
	case pt_ipc_sext_48:
		return (ip->ip & 0x800000000000ull) ?
		       ip->ip | 0xffff000000000000ull :
		       ip->ip & 0xffffffffffffull;
	case pt_ipc_full:
		return ip->ip;
	default:
		return last;
	}
}

static bool is_ip_packet(enum pt_packet_type t)
{
	return t == ppt_fup || t == ppt_tip || t == ppt_tip_pge ||
	       t == ppt_tip_pgd;
}

static int add_cand(struct psb **out, size_t *n, size_t *cap, uint64_t off,
		    uint64_t tsc, bool have, uint64_t last_ip, bool enable)
{
	if (perf_grow(out, *n, cap, sizeof(**out)))
		return -1;
	(*out)[*n].off = off;
	(*out)[*n].tsc = tsc;
	(*out)[*n].have_tsc = have;
	(*out)[*n].last_ip = last_ip;
	(*out)[*n].off_before = enable;
	(*out)[(*n)++].enable = enable;
	return 0;
}

/*
 * The places a buffer can be cut (struct psb), each with the TSC of its
 * PSB+ or of the re-enable (lacking one, the last TSC before it); @tscs
 * receives every TSC packet.
 */
struct psb_scan {
	struct psb **out, **tscs;
	size_t *n, *ntscs, cap, capt;
	uint64_t last, ip;
	bool have, in_psb, synced, after_pgd, want_tsc;
};

static int psb_packet(void *ctx, uint64_t off, const struct pt_packet *pkt)
{
	struct psb_scan *sc = ctx;

	if (!pkt) {
		/* Lost the packet boundaries: wait for a PSB. */
		sc->in_psb = sc->synced = sc->after_pgd = sc->want_tsc = false;
		return PTKIT_SCAN_NEXT;
	}
	if (pkt->type == ppt_psb) {
		if (add_cand(sc->out, sc->n, &sc->cap, off, sc->last, sc->have,
			     0, false))
			return -1;
		(*sc->out)[*sc->n - 1].off_before = sc->after_pgd;
		sc->in_psb = sc->synced = sc->want_tsc = true;
		sc->after_pgd = false;
		sc->ip = 0;
		return PTKIT_SCAN_NEXT;
	}
	if (sc->after_pgd && !sc->in_psb && pkt->type != ppt_pad) {
		if (add_cand(sc->out, sc->n, &sc->cap, off, sc->last, sc->have,
			     sc->ip, true))
			return -1;
		sc->after_pgd = false;
		sc->want_tsc = true;
	}
	if (pkt->type == ppt_psbend) {
		sc->in_psb = false;
	} else if (pkt->type == ppt_tsc) {
		sc->last = pkt->payload.tsc.tsc;
		sc->have = true;
		if (sc->want_tsc && *sc->n) {
			(*sc->out)[*sc->n - 1].tsc = sc->last;
			(*sc->out)[*sc->n - 1].have_tsc = true;
			sc->want_tsc = false;
		}
		if (perf_grow(sc->tscs, *sc->ntscs, &sc->capt,
			      sizeof(**sc->tscs)))
			return -1;
		(*sc->tscs)[*sc->ntscs].off = off;
		(*sc->tscs)[(*sc->ntscs)++].tsc = sc->last;
	} else if (is_ip_packet(pkt->type)) {
		sc->ip = ip_update(sc->ip, &pkt->payload.ip);
		if (pkt->type == ppt_tip_pgd && sc->synced && !sc->in_psb)
			sc->after_pgd = true;
		if (pkt->type == ppt_tip_pge)
			sc->want_tsc = false;
	}
	return PTKIT_SCAN_NEXT;
}

static int scan_psbs(const uint8_t *buf, size_t len, struct psb **out,
		     size_t *n, struct psb **tscs, size_t *ntscs)
{
	struct psb_scan sc = { .out = out, .tscs = tscs, .n = n,
			       .ntscs = ntscs };

	*out = *tscs = NULL;
	*n = *ntscs = 0;
	return ptkit_stream_scan(buf, len, psb_packet, &sc, NULL) ? -1 : 0;
}

static int sw_cmp(const void *x, const void *y)
{
	const struct sw *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Index of the first switch on @cpu with TSC above @tsc (binary search). */
static size_t sw_after(const struct perf *p, uint32_t cpu, uint64_t tsc)
{
	size_t lo = 0, hi = p->nsw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sw *w = &p->sw[mid];

		if (w->cpu < cpu || (w->cpu == cpu && w->tsc <= tsc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The thread running on @cpu at @tsc: the last switch at or before it. */
static uint32_t owner_at(const struct perf *p, uint32_t cpu, uint64_t tsc)
{
	size_t i = sw_after(p, cpu, tsc);

	return i && p->sw[i - 1].cpu == cpu ? p->sw[i - 1].tid : NONE;
}

/*
 * The thread a piece starting at @tsc belongs to: the one switched in
 * last; when the last switch took the CPU away from every traced thread,
 * the next one switched in (Linux enables a per-task trace before it
 * writes the SWITCH record of the switch-in).
 */
static uint32_t owner_of_piece(const struct perf *p, uint32_t cpu,
			       uint64_t tsc)
{
	size_t i = sw_after(p, cpu, tsc);

	if (i && p->sw[i - 1].cpu == cpu && p->sw[i - 1].tid != NONE)
		return p->sw[i - 1].tid;
	if (i < p->nsw && p->sw[i].cpu == cpu)
		return p->sw[i].tid;
	return NONE;
}

/* First switch on @cpu after @from and before @to, or NULL. */
static const struct sw *switch_within(const struct perf *p, uint32_t cpu,
				      uint64_t from, uint64_t to)
{
	size_t i = sw_after(p, cpu, from);

	return i < p->nsw && p->sw[i].cpu == cpu && p->sw[i].tsc < to ?
	       &p->sw[i] : NULL;
}

static int add_piece(struct piece **v, size_t *n, size_t *cap, uint32_t buf,
		     uint32_t tid, uint64_t start, uint64_t end, uint64_t tsc,
		     bool lost)
{
	struct piece *pc;

	if (start >= end)
		return 0;
	if (perf_grow(v, *n, cap, sizeof(**v)))
		return -1;
	pc = &(*v)[(*n)++];
	pc->buf = buf;
	pc->tid = tid;
	pc->start = start;
	pc->end = end;
	pc->tsc = tsc;
	pc->seq = *n;
	pc->lost = lost;
	pc->resync = false;
	pc->last_ip = 0;
	pc->off_end = false;
	return 0;
}

/* The value of the TSC packet at @off (one exists: cuts are made there). */
static uint64_t ts_at(const struct psb *ts, size_t nt, uint64_t off)
{
	size_t i;

	for (i = 0; i < nt; i++)
		if (ts[i].off == off)
			return ts[i].tsc;
	return 0;
}

/*
 * A per-cpu buffer: PSB to PSB pieces, each given to the thread running at
 * the PSB's TSC.  A switch to another thread inside a piece cuts it at the
 * first TSC packet at or after the switch; the rest, up to the next PSB,
 * has no sync point for the new thread and is lost to it.
 */
static int split_cpu(struct perf *p, uint32_t bi, struct piece **v,
		     size_t *n, size_t *cap, uint64_t *dropped)
{
	const struct auxbuf *b = &p->ab[bi];
	struct psb *ps, *ts;
	size_t np, nt, i, k = 0;
	int ret = -1;

	if (scan_psbs(b->data, b->len, &ps, &np, &ts, &nt))
		return -1;
	if (!np) {
		perf_warn(p, "CPU %u: %zu bytes of trace without a PSB packet: dropped",
		     b->cpu, b->len);
		*dropped += b->len;
		ret = 0;
		goto out;
	}
	if (!nt)
		perf_warn(p, "CPU %u: the trace has no TSC packets, so it cannot be split by time; it goes to the first thread switched in",
		     b->cpu);
	*dropped += ps[0].off;
	for (i = 0; i < np; i++) {
		if (!ps[i].have_tsc && i)
			ps[i].tsc = ps[i - 1].tsc;
		uint64_t start = ps[i].off;
		uint64_t end = i + 1 < np ? ps[i + 1].off : b->len;
		uint64_t t0 = ps[i].tsc, t1 = UINT64_MAX, cut = end;
		uint32_t tid = nt ? owner_of_piece(p, b->cpu, t0) :
			       (p->nsw ? owner_at(p, b->cpu, UINT64_MAX) : b->tid);
		const struct sw *w;

		if (!nt && p->nsw) {
			/* No time: the first thread switched in. */
			size_t j;

			for (j = 0; j < p->nsw; j++)
				if (p->sw[j].cpu == b->cpu &&
				    p->sw[j].tid != NONE) {
					tid = p->sw[j].tid;
					break;
				}
		}
		if (i + 1 < np && ps[i + 1].have_tsc)
			t1 = ps[i + 1].tsc;
		w = nt ? switch_within(p, b->cpu, t0, t1) : NULL;
		if (w) {
			/* The first TSC packet of this piece at or after it. */
			while (k < nt && ts[k].off < start)
				k++;
			for (size_t j = k; j < nt && ts[j].off < end; j++)
				if (ts[j].tsc >= w->tsc) {
					cut = ts[j].off;
					break;
				}
		}
		if (tid == NONE) {
			*dropped += cut - start;
		} else if (*n && (*v)[*n - 1].buf == bi &&
			   (*v)[*n - 1].tid == tid && (*v)[*n - 1].end == start &&
			   !(*v)[*n - 1].lost) {
			/* The same thread goes on: one piece. */
			(*v)[*n - 1].end = cut;
			(*v)[*n - 1].off_end = cut == end && i + 1 < np &&
					       ps[i + 1].off_before;
		} else {
			if (add_piece(v, n, cap, bi, tid, start, cut, t0, false))
				goto out;
			(*v)[*n - 1].resync = ps[i].enable;
			(*v)[*n - 1].last_ip = ps[i].last_ip;
			/* The next cut follows a TIP.PGD: tracing is off. */
			(*v)[*n - 1].off_end = cut == end && i + 1 < np &&
					       ps[i + 1].off_before;
		}
		if (cut < end) {
			uint32_t who = owner_at(p, b->cpu, ts_at(ts, nt, cut));

			if (who != NONE && who != tid) {
				if (add_piece(v, n, cap, bi, who, cut, end,
					      w->tsc, true))
					goto out;
			} else {
				*dropped += end - cut;
			}
		}
	}
	ret = 0;
out:
	free(ps);
	free(ts);
	return ret;
}

static int piece_cmp(const void *x, const void *y)
{
	const struct piece *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	if (a->buf != b->buf)
		return a->buf < b->buf ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static struct thr *get_thr(struct perf *p, size_t *cap, uint32_t tid)
{
	bool fresh;
	struct thr *t = u32map_find_or_add(&p->th, &p->nth, cap, sizeof(*p->th),
				    p->thmap, tid, &fresh);

	if (t && fresh)
		t->tid = t->pid = tid;
	return t;
}

static int lost_ev(struct perf *p, uint32_t tid, uint64_t off, uint64_t bytes,
		   uint64_t tsc, uint32_t reason)
{
	struct ev *e = perf_new_ev(p, PTREC_SB_LOST, NULL);

	if (!e)
		return -1;
	e->tsc = tsc;
	e->tid = tid;
	e->a = reason;
	e->bytes = bytes;
	e->offset = off;
	return 0;
}

static int thr_put(struct thr *t, const uint8_t *d, size_t n)
{
	if (!n)
		return 0;
	if (t->len + n > t->cap) {
		size_t nc = t->cap ? t->cap : 4096;
		uint8_t *nd;

		while (nc < t->len + n)
			nc *= 2;
		nd = realloc(t->data, nc);
		if (!nd)
			return -1;
		t->data = nd;
		t->cap = nc;
	}
	memcpy(t->data + t->len, d, n);
	t->len += n;
	return 0;
}

/*
 * Appends a piece to its thread's stream.  Where the kernel says data was
 * lost inside it, an OVF packet (SDM Vol. 3C 33.4.2.16: packets were
 * lost) goes in first, so the decoder does not join the packets on either
 * side of the hole, and a LOST record names the OVF's stream offset.
 */
static int put_packet(struct thr *t, const struct pt_packet *pkt)
{
	uint8_t tmp[32];
	struct pt_encoder *e;
	struct pt_config cfg;
	int n;

	pt_config_init(&cfg);
	cfg.begin = tmp;
	cfg.end = tmp + sizeof(tmp);
	e = pt_alloc_encoder(&cfg);
	if (!e)
		return -1;
	n = pt_enc_next(e, pkt);
	pt_free_encoder(e);
	return n < 0 ? -1 : thr_put(t, tmp, n);
}

static const uint8_t ovf_bytes[2] = { 0x02, 0xf3 };

/*
 * A piece that starts where tracing was re-enabled.  Every IP packet is
 * re-encoded in full (sign-extended 48 bits or 64): the CPU compressed
 * them against whatever ran before on that CPU.  Where the thread's
 * stream so far ends with its own trace switched off (a TIP.PGD at its
 * last switch-out), the piece simply goes on from there, as in a
 * per-thread trace: a PSB there would make the decoder forget the
 * thread's return-compression stack (SDM Vol. 3C 33.4.2.2: a CPU only
 * compresses a RET whose CALL came after the last PSB), and a RET the
 * CPU compressed across the switch could not be decoded.  Otherwise
 * (the thread's first piece, or after a loss) a PSB+ (PSB, TSC, PSBEND,
 * SDM Vol. 3C 33.3.7) gives the decoder a place to start.  Marks inside
 * it get their OVF at the packet boundary at or after them.
 */
static int copy_resync(struct perf *p, struct thr *t, const struct piece *pc,
		       const struct auxbuf *b)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t off, ip = pc->last_ip;
	size_t j = 0;
	int ret = -1;

	memset(&pkt, 0, sizeof(pkt));
	if (!t->len || !t->off_end) {
		pkt.type = ppt_psb;
		if (put_packet(t, &pkt))
			return -1;
		pkt.type = ppt_tsc;
		pkt.payload.tsc.tsc = pc->tsc & ((1ull << 56) - 1);
		if (put_packet(t, &pkt))
			return -1;
		pkt.type = ppt_psbend;
		if (put_packet(t, &pkt))
			return -1;
	}
	pt_config_init(&cfg);
	cfg.begin = b->data;
	cfg.end = b->data + pc->end;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d || pt_pkt_sync_set(d, pc->start) < 0)
		goto out;
	for (off = pc->start; off < pc->end; ) {
		for (; j < p->nmk; j++) {
			const struct mark *m = &p->mk[j];

			if (m->buf != pc->buf || m->pos < pc->start)
				continue;
			if (m->pos > off)
				break;
			if (lost_ev(p, t->tid, t->len, m->bytes, m->tsc,
				    m->reason) ||
			    thr_put(t, ovf_bytes, sizeof(ovf_bytes)))
				goto out;
		}
		if (pt_pkt_next(d, &pkt, sizeof(pkt)) < 0) {
			/* Not a packet: the bytes as they are. */
			if (thr_put(t, b->data + off, pc->end - off))
				goto out;
			break;
		}
		if (pkt.type == ppt_psb)
			ip = 0;
		if (is_ip_packet(pkt.type) &&
		    pkt.payload.ip.ipc != pt_ipc_suppressed) {
			ip = ip_update(ip, &pkt.payload.ip);
			pkt.payload.ip.ip = ip;
			pkt.payload.ip.ipc =
				((int64_t)(ip << 16) >> 16) == (int64_t)ip ?
				pt_ipc_sext_48 : pt_ipc_full;
		}
		if (put_packet(t, &pkt))
			goto out;
		pt_pkt_get_offset(d, &off);
	}
	/* A loss at the very end of the buffer: the end of the history. */
	for (; j < p->nmk && pc->end == b->len; j++) {
		const struct mark *m = &p->mk[j];

		if (m->buf == pc->buf && m->pos == b->len &&
		    lost_ev(p, t->tid, t->len, m->bytes, m->tsc, m->reason))
			goto out;
	}
	ret = 0;
out:
	if (d)
		pt_pkt_free_decoder(d);
	return ret;
}

static int copy_piece(struct perf *p, struct thr *t, const struct piece *pc,
		      const struct auxbuf *b)
{
	uint64_t at = pc->start;
	size_t j;

	if (pc->resync)
		return copy_resync(p, t, pc, b);

	for (j = 0; j < p->nmk; j++) {
		const struct mark *m = &p->mk[j];

		if (m->buf != pc->buf || m->pos < at || m->pos > pc->end ||
		    (m->pos == pc->end && pc->end != b->len))
			continue;
		if (thr_put(t, b->data + at, m->pos - at))
			return -1;
		at = m->pos;
		if (lost_ev(p, t->tid, t->len, m->bytes, m->tsc, m->reason))
			return -1;
		if (m->pos < b->len &&
		    thr_put(t, ovf_bytes, sizeof(ovf_bytes)))
			return -1;
	}
	return thr_put(t, b->data + at, pc->end - at);
}

/* Whether data was lost inside @pc (its stream then has an OVF there). */
static bool piece_has_mark(const struct perf *p, const struct piece *pc)
{
	size_t j;

	for (j = 0; j < p->nmk; j++)
		if (p->mk[j].buf == pc->buf && p->mk[j].pos >= pc->start &&
		    p->mk[j].pos <= pc->end)
			return true;
	return false;
}

static int mark_cmp(const void *x, const void *y)
{
	const struct mark *a = x, *b = y;

	if (a->buf != b->buf)
		return a->buf < b->buf ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Builds p->th: one stream per thread, and LOST events. */
int perf_split(struct perf *p)
{
	struct piece *v = NULL;
	size_t n = 0, cap = 0, capth = 0, i, j;
	uint64_t dropped = 0;
	int ret = -1;

	perf_sort(p->sw, p->nsw, sizeof(*p->sw), sw_cmp);
	perf_sort(p->mk, p->nmk, sizeof(*p->mk), mark_cmp);
	for (i = 0; i < p->nab; i++) {
		const struct auxbuf *b = &p->ab[i];

		if (!b->len)
			continue;
		if (p->per_cpu && b->cpu != NONE) {
			if (split_cpu(p, i, &v, &n, &cap, &dropped))
				goto out;
		} else if (b->tid == NONE) {
			perf_warn(p, "AUX buffer %u names neither a thread nor a CPU: its %zu bytes are dropped",
			     b->idx, b->len);
			dropped += b->len;
		} else if (add_piece(&v, &n, &cap, i, b->tid, 0, b->len, 0,
				     false)) {
			goto out;
		}
	}
	if (dropped)
		perf_warn(p, "%llu bytes of AUX data belong to no traced thread (before the first PSB, or while another task ran): dropped",
		     (unsigned long long)dropped);
	perf_sort(v, n, sizeof(*v), piece_cmp);
	for (i = 0; i < n; i++) {
		const struct piece *pc = &v[i];
		const struct auxbuf *b = &p->ab[pc->buf];
		struct thr *t = get_thr(p, &capth, pc->tid);
		uint64_t sz = pc->end - pc->start;

		if (!t)
			goto out;
		if (pc->lost) {
			if (lost_ev(p, t->tid, t->len, sz, pc->tsc,
				    PTREC_SB_LOST_TRUNCATED))
				goto out;
			t->off_end = false;
			continue;
		}
		if (copy_piece(p, t, pc, b))
			goto out;
		t->off_end = pc->off_end && !piece_has_mark(p, pc);
	}
	/* Each thread's process, from any record naming both. */
	for (i = 0; i < p->nth; i++)
		for (j = 0; j < p->nev; j++)
			if (p->ev[j].tid == p->th[i].tid && p->ev[j].pid &&
			    p->ev[j].pid != NONE &&
			    p->ev[j].type != PTREC_SB_LOST) {
				p->th[i].pid = p->ev[j].pid;
				break;
			}
	ret = 0;
out:
	free(v);
	return ret;
}

