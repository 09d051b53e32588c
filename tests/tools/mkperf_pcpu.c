// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkperf --per-cpu (tests/tools/mkperf.c): the threads' recorded streams
 * cut at their switches and re-encoded as one CPU writes its buffer, every
 * IP compressed against the CPU's last, whichever thread it came from.
 */
#include "mkperf.h"

/* ---- PT re-encoding for the per-cpu buffer ------------------------------ */

struct seg *segs;
size_t nsegs;
bool psb_at_switch;

static uint64_t ip_update(uint64_t last, const struct pt_packet_ip *ip)
{
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffull) | (ip->ip & 0xffff);
	case pt_ipc_update_32:
		return (last & ~0xffffffffull) | (ip->ip & 0xffffffff);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffull) | (ip->ip & 0xffffffffffffull);
	case pt_ipc_sext_48:
		return (uint64_t)((int64_t)(ip->ip << 16) >> 16);
	case pt_ipc_full:
		return ip->ip;
	default:
		return last;
	}
}

static void enc(struct buf *b, struct pt_packet *pkt)
{
	uint8_t tmp[64];
	struct pt_encoder *e;
	struct pt_config cfg;
	int n;

	pt_config_init(&cfg);
	cfg.begin = tmp;
	cfg.end = tmp + sizeof(tmp);
	e = pt_alloc_encoder(&cfg);
	if (!e)
		die("pt_alloc_encoder");
	n = pt_enc_next(e, pkt);
	pt_free_encoder(e);
	if (n < 0)
		die("pt_enc_next failed");
	put(b, tmp, n);
}

static struct seg *new_seg(uint32_t tid, uint64_t tsc, bool synth)
{
	struct pt_packet pkt;
	struct seg *s;

	segs = realloc(segs, (nsegs + 1) * sizeof(*segs));
	if (!segs)
		die("out of memory");
	s = &segs[nsegs++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->tsc = tsc;
	if (!synth || !psb_at_switch)
		return s;
	/* PSB, TSC, PSBEND: a sync point (SDM Vol. 3C 33.3.7). */
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_psb;
	enc(&s->b, &pkt);
	pkt.type = ppt_tsc;
	pkt.payload.tsc.tsc = tsc;
	enc(&s->b, &pkt);
	pkt.type = ppt_psbend;
	enc(&s->b, &pkt);
	return s;
}

/*
 * Cuts @tid's stream where tracing is re-enabled (a TSC packet while
 * PacketEn is clear, outside PSB+) and re-encodes each stretch with full
 * IPs after its own PSB+.
 */
void segment(uint32_t tid, const uint8_t *data, size_t len)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	struct seg *s = NULL;
	bool enabled = false, in_psb = false, need_tsc = false;
	uint64_t last = 0, tsc = 0;
	size_t cur = 0;
	int ret;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)data;
	cfg.end = (uint8_t *)data + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d || pt_pkt_sync_forward(d) < 0)
		die("a thread's stream has no PSB");
	for (;;) {
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret < 0)
			die("undecodable packet in a thread's stream");
		if (pkt.type == ppt_tsc)
			tsc = pkt.payload.tsc.tsc;
		if (!s || (pkt.type == ppt_tsc && !enabled && !in_psb) ||
		    (pkt.type == ppt_psb && !enabled)) {
			need_tsc = pkt.type == ppt_psb;
			s = new_seg(tid, tsc, pkt.type != ppt_psb);
			cur = nsegs - 1;
		}
		s = &segs[cur];
		if (need_tsc && pkt.type == ppt_tsc) {
			s->tsc = tsc;
			need_tsc = false;
		}
		switch (pkt.type) {
		case ppt_psb:
			in_psb = true;
			last = 0;
			break;
		case ppt_psbend:
			in_psb = false;
			break;
		case ppt_fup:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			if (pkt.payload.ip.ipc != pt_ipc_suppressed) {
				last = ip_update(last, &pkt.payload.ip);
				pkt.payload.ip.ipc = pt_ipc_sext_48;
				pkt.payload.ip.ip = last;
			}
			if (pkt.type == ppt_tip_pge)
				enabled = true;
			if (pkt.type == ppt_tip_pgd)
				enabled = false;
			break;
		default:
			break;
		}
		enc(&s->b, &pkt);
	}
	pt_pkt_free_decoder(d);
}

/*
 * The joined CPU stream: every IP packet compressed against the last IP of
 * this stream (SDM Vol. 3C 33.4.2.2), as the CPU does, so a thread's first
 * TIP.PGE after a switch may depend on the other thread's last IP.
 */
void recompress(struct buf *out_b, const uint8_t *data, size_t len)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t last = 0, ip;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)data;
	cfg.end = (uint8_t *)data + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d || pt_pkt_sync_forward(d) < 0)
		die("recompress: no PSB");
	while (pt_pkt_next(d, &pkt, sizeof(pkt)) >= 0) {
		if (pkt.type == ppt_psb)
			last = 0;
		if ((pkt.type == ppt_fup || pkt.type == ppt_tip ||
		     pkt.type == ppt_tip_pge || pkt.type == ppt_tip_pgd) &&
		    pkt.payload.ip.ipc != pt_ipc_suppressed) {
			ip = ip_update(last, &pkt.payload.ip);
			if ((ip >> 16) == (last >> 16)) {
				pkt.payload.ip.ipc = pt_ipc_update_16;
				pkt.payload.ip.ip = ip & 0xffff;
			} else if ((ip >> 32) == (last >> 32)) {
				pkt.payload.ip.ipc = pt_ipc_update_32;
				pkt.payload.ip.ip = ip & 0xffffffff;
			} else {
				pkt.payload.ip.ipc = pt_ipc_sext_48;
				pkt.payload.ip.ip = ip & 0xffffffffffffull;
			}
			last = ip;
		}
		enc(out_b, &pkt);
	}
	pt_pkt_free_decoder(d);
}

int seg_cmp(const void *x, const void *y)
{
	const struct seg *a = x, *b = y;

	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}
