// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The PSB scan (psbscan.h): ptkit's packet scan over a thread's stream,
 * keeping each PSB's offset and the TSC and FUP of its PSB+, and jumping
 * from each PSBEND straight to the next PSB by its pattern (SDM Vol. 3C
 * 33.4.2.17), as libipt's sync does, instead of decoding every packet in
 * between (3 of the 28 s of a 10^9 open).
 */
#include <errno.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "ptkit.h"
#include "psbscan.h"

struct psb_scan {
	struct rp_thread *t;
	struct rp_psb *cur;	/* inside this PSB's PSB+ */
	size_t cap;
};

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * Where tracing resumes after a PSB+ without FUP: from @off (its PSBEND's
 * end), packet by packet by their headers (SDM Vol. 3C 33.4.2; libipt's
 * packet decoder cost 1.6% of glibc-nolib's index pass on the timing
 * packets before each TIP.PGE), the first TIP.PGE, with its whole IP in
 * *@ip.  0 when anything that needs tracing on, another PSB or a packet
 * not known here comes first, or its IP is compressed.
 */
static uint64_t seek_pge(const uint8_t *b, uint64_t size, uint64_t off,
			 uint64_t *ip)
{
	while (off < size) {
		const uint8_t *p = b + off;
		size_t left = size - off, len = ptkit_pkt_len(p, left);
		uint8_t h = p[0];

		if (!len || len > left)
			return 0;
		if (h == 0x02 && (p[1] == 0x82 || p[1] == 0xf3 ||
				  p[1] == 0xa3))
			return 0;	/* PSB, OVF, long TNT */
		if ((h & 0x1f) == 0x11) {	/* TIP.PGE */
			unsigned int ipc = h >> 5;

			if (ipc != 3 && ipc != 6)
				return 0;
			*ip = le(p + 1, len - 1);
			if (ipc == 3 && (*ip & (1ull << 47)))
				*ip |= 0xffffull << 48;
			return off;
		}
		if (h != 0x00 && h != 0x02 && (h & 0x03) != 0x03 &&
		    h != 0x19 && h != 0x59 && h != 0x99)
			return 0;	/* TNT, TIP, FUP, PGD */
		off += len;
	}
	return 0;
}

static int psb_packet(void *ctx, uint64_t off, const struct pt_packet *pkt)
{
	struct psb_scan *sc = ctx;
	struct rp_thread *t = sc->t;
	struct rp_psb *cur = sc->cur;

	if (!pkt) {
		/* Damage: the next PSB starts afresh. */
		sc->cur = NULL;
		return PTKIT_SCAN_NEXT;
	}
	if (pkt->type == ppt_psb) {
		if (t->npsbs == sc->cap) {
			size_t cap = sc->cap ? 2 * sc->cap : 64;
			struct rp_psb *v = realloc(t->psbs, cap * sizeof(*v));
			struct rp_psb_resume *rv;

			if (!v)
				return -RP_ERR_NOMEM;
			t->psbs = v;
			rv = realloc(t->resume, cap * sizeof(*rv));
			if (!rv)
				return -RP_ERR_NOMEM;
			t->resume = rv;
			sc->cap = cap;
		}
		memset(&t->resume[t->npsbs], 0, sizeof(*t->resume));
		cur = &t->psbs[t->npsbs++];
		memset(cur, 0, sizeof(*cur));
		cur->offset = off;
		sc->cur = cur;
	} else if (cur && pkt->type == ppt_tsc) {
		cur->tsc = pkt->payload.tsc.tsc;
	} else if (cur && pkt->type == ppt_fup) {
		/* Inside PSB+ the FUP IP is never compressed against an
		 * earlier IP: last-IP was reset by the PSB.
		 */
		cur->fup = pkt->payload.ip.ip;
		if (pkt->payload.ip.ipc == pt_ipc_sext_48 &&
		    (cur->fup & (1ull << 47)))
			cur->fup |= 0xffffull << 48;
	} else if (pkt->type == ppt_psbend) {
		/* Only PSB+ matters here, and where tracing resumes after
		 * one without FUP.
		 */
		if (cur && !cur->fup) {
			struct rp_psb_resume *r = &t->resume[cur - t->psbs];

			r->offset = seek_pge(t->pt, t->pt_size, off + pkt->size,
					     &r->ip);
		}
		sc->cur = NULL;
		return PTKIT_SCAN_SKIP;
	}
	return PTKIT_SCAN_NEXT;
}

int rp_scan_psbs(struct rp_thread *t)
{
	struct psb_scan sc = { .t = t };
	int ret;

	/* Again (a reindex): from scratch. */
	free(t->psbs);
	free(t->resume);
	t->psbs = NULL;
	t->resume = NULL;
	t->npsbs = 0;
	ret = ptkit_stream_scan(t->pt, t->pt_size, psb_packet, &sc, NULL);

	if (ret == -ENOMEM)
		return -RP_ERR_NOMEM;
	return ret < 0 ? ret : 0;
}

/* The index of the last PSB at or before trace offset @off, or SIZE_MAX. */
size_t rp_psb_at(const struct rp_thread *t, uint64_t off)
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
 * The packet-level pass for streams with a single PSB (kAFL/Nyx write one
 * per trace): which TIP.PGEs a decoder could start at.  It walks packets
 * by their headers (SDM Vol. 3C 33.4.2, packet formats) instead of with
 * libipt's packet decoder, which cost 16% of the whole index pass on a
 * single-PSB stream of 1.4 MB: it runs on one core before the workers.
 * Only where tracing resumes and IPs matter; it gives up on a packet it
 * does not know (no split, the stream is indexed in one piece).  A wrong
 * split cannot change a history: the worker before it must meet that
 * TIP.PGE in its own decode (decode.c), or the stream is indexed again in
 * one piece.  Last-IP follows 33.4.2.2 (IP compression; a PSB resets it).
 */
struct split_scan {
	struct rp_split *v;
	size_t n, cap;
	uint64_t last_ip;
	bool have_ip;
	bool traced;		/* tracing on, as far as packets tell */
	bool in_psb;
	bool have_mode;
	struct rp_split cur;	/* timing and mode so far */
};

/* An IP packet's payload (@ipc, @n bytes at @p) applied to last-IP. */
static void split_ip(struct split_scan *sc, unsigned int ipc,
		     const uint8_t *p, size_t n)
{
	uint64_t ip = le(p, n);

	switch (ipc) {
	case 0:
		return;
	case 1:
	case 2:
	case 4:
		sc->last_ip = (sc->last_ip & ~((1ull << (8 * n)) - 1)) | ip;
		return;
	case 3:
		sc->last_ip = ip & (1ull << 47) ? ip | 0xffffull << 48 : ip;
		sc->have_ip = true;
		return;
	default:
		sc->last_ip = ip;
		sc->have_ip = true;
		return;
	}
}

static int split_add(struct split_scan *sc, uint64_t off, size_t len)
{
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? 2 * sc->cap : 256;
		struct rp_split *v = realloc(sc->v, cap * sizeof(*v));

		if (!v)
			return -RP_ERR_NOMEM;
		sc->v = v;
		sc->cap = cap;
	}
	sc->cur.offset = off;
	sc->cur.ip = sc->last_ip;
	sc->cur.len = (uint8_t)len;
	sc->v[sc->n++] = sc->cur;
	return 0;
}

int rp_scan_splits(const struct rp_thread *t, uint64_t every,
		   struct rp_split **v, size_t *n, bool *timed)
{
	const uint8_t *b = t->pt;
	struct split_scan sc;
	uint64_t off = t->npsbs ? t->psbs[0].offset : t->pt_size, mark = 0;
	int ret = 0;

	memset(&sc, 0, sizeof(sc));
	if (timed)
		*timed = false;
	if (!every)
		every = 1;
	while (off < t->pt_size && !ret) {
		const uint8_t *p = b + off;
		size_t left = t->pt_size - off, len;
		uint8_t h = p[0];

		/*
		 * Most packets are one byte that says nothing here (PAD,
		 * short TNT, CYC without more bytes) or an MTC: taken
		 * without a call (a 1.4 MB stream, about 10^6 packets: 53 M
		 * Ir with the call for each, in index_blocks() before any
		 * worker starts).
		 */
		if (h == 0x00 || (!(h & 0x01) && h != 0x02)) {
			off++;		/* PAD, short TNT */
			continue;
		}
		if ((h & 0x03) == 0x03 || (h == 0x59 && left >= 2)) {
			if (timed)
				*timed = true;	/* CYC, MTC */
			if (h == 0x59) {
				off += 2;
				continue;
			}
			/* CYC: more bytes while bit 2, then bit 0, is set */
			len = 1;
			if (h & 0x04)
				while (len < left && (p[len++] & 0x01))
					;
			if (len >= left && left > 1 && (p[left - 1] & 0x01))
				break;		/* cut */
			off += len;
			continue;
		}
		len = ptkit_pkt_len(p, left);
		if (!len || len > left)
			break;			/* not known, or cut */
		if (h == 0x02) {
			if (p[1] == 0x82) {
				sc.in_psb = true;
				sc.have_ip = false;
				sc.last_ip = 0;
				sc.traced = false;	/* unless a FUP */
			} else if (p[1] == 0x23) {
				sc.in_psb = false;
			} else if (p[1] == 0xf3) {
				break;	/* overflow: state unknown */
			} else if (p[1] == 0x73) {
				sc.cur.ctc = (uint16_t)le(p + 2, 2);
				sc.cur.fc = (uint16_t)(le(p + 5, 2) & 0x1ff);
				sc.cur.has_tma = true;
			}
		} else if (h != 0x00 && (h & 0x03) != 0x03 && (h & 0x01) &&
			   ((h & 0x1f) == 0x0d || (h & 0x1f) == 0x11 ||
			    (h & 0x1f) == 0x01 || (h & 0x1f) == 0x1d)) {
			unsigned int ipc = h >> 5;
			bool was_off = !sc.traced;

			split_ip(&sc, ipc, p + 1, len - 1);
			if ((h & 0x1f) == 0x11) {	/* TIP.PGE */
				if (was_off && sc.have_ip && ipc &&
				    sc.have_mode && !sc.in_psb && off >= mark) {
					ret = split_add(&sc, off, len);
					mark = (off / every + 1) * every;
				}
				sc.traced = true;
			} else if ((h & 0x1f) == 0x01) {	/* TIP.PGD */
				sc.traced = false;
			} else if ((h & 0x1f) == 0x1d && sc.in_psb) {
				sc.traced = true;	/* FUP in PSB+ */
			}
		} else if (h == 0x59 || (h & 0x03) == 0x03) {	/* MTC, CYC */
			if (timed)
				*timed = true;
		} else if (h == 0x19) {		/* TSC */
			sc.cur.tsc = le(p + 1, 7);
		} else if (h == 0x99 && !(p[1] >> 5)) {	/* MODE.Exec */
			sc.cur.csl = p[1] & 1;
			sc.cur.csd = (p[1] >> 1) & 1;
			sc.have_mode = true;
		}
		off += len;
	}
	if (ret) {
		free(sc.v);
		return ret;
	}
	*v = sc.v;
	*n = sc.n;
	return 0;
}

int rp_split_prefix_rets(const struct rp_split *sp, const uint64_t *rets,
			 size_t n, uint64_t x, uint8_t *buf)
{
	struct pt_packet pkts[10 + RP_RETSTACK];
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t off = 0;
	size_t i, k = 0;
	int ret = 0;

	if (n > RP_RETSTACK)
		return -RP_ERR_DECODE;
	memset(pkts, 0, sizeof(pkts));
	pkts[k++].type = ppt_psb;
	if (sp->tsc) {
		pkts[k].type = ppt_tsc;
		pkts[k++].payload.tsc.tsc = sp->tsc;
	}
	if (sp->has_tma) {
		pkts[k].type = ppt_tma;
		pkts[k].payload.tma.ctc = sp->ctc;
		pkts[k++].payload.tma.fc = sp->fc;
	}
	pkts[k].type = ppt_mode;
	pkts[k].payload.mode.leaf = pt_mol_exec;
	pkts[k].payload.mode.bits.exec.csl = n ? 1 : sp->csl;
	pkts[k++].payload.mode.bits.exec.csd = n ? 0 : sp->csd;
	pkts[k++].type = ppt_psbend;
	if (n) {
		/*
		 * The return stack: 64-bit code that only rp_walk_begin_at()'s
		 * image holds, 'call *%rax' just before each return address
		 * (each pushes its next IP, as libipt does for a call) and
		 * 'jmp *%rax' at @x, where tracing stops; then the mode the
		 * stream had.
		 */
		pkts[k].type = ppt_tip_pge;
		pkts[k].payload.ip.ipc = pt_ipc_full;
		pkts[k++].payload.ip.ip = rets[0] - 2;
		for (i = 1; i <= n; i++) {
			pkts[k].type = ppt_tip;
			pkts[k].payload.ip.ipc = pt_ipc_full;
			pkts[k++].payload.ip.ip = i < n ? rets[i] - 2 : x;
		}
		pkts[k].type = ppt_tip_pgd;
		pkts[k].payload.ip.ipc = pt_ipc_full;
		pkts[k++].payload.ip.ip = x + 2;
		pkts[k].type = ppt_mode;
		pkts[k].payload.mode.leaf = pt_mol_exec;
		pkts[k].payload.mode.bits.exec.csl = sp->csl;
		pkts[k++].payload.mode.bits.exec.csd = sp->csd;
	}
	pkts[k].type = ppt_tip_pge;
	pkts[k].payload.ip.ipc = pt_ipc_full;
	pkts[k++].payload.ip.ip = sp->ip;
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + RP_SPLIT_PREFIX_MAX;
	enc = pt_alloc_encoder(&cfg);
	if (!enc)
		return -RP_ERR_NOMEM;
	for (i = 0; i < k && ret >= 0; i++)
		ret = pt_enc_next(enc, &pkts[i]);
	if (ret >= 0)
		ret = pt_enc_get_offset(enc, &off);
	pt_free_encoder(enc);
	/* An encoder error here is ours (a packet it refuses): a bug. */
	return ret < 0 ? -RP_ERR_DECODE : (int)off;
}

int rp_split_prefix(const struct rp_split *sp, uint8_t *buf)
{
	return rp_split_prefix_rets(sp, NULL, 0, 0, buf);
}

int rp_split_buffer(const struct rp_thread *t, const struct rp_split *sp,
		    const uint64_t *rets, size_t nrets, uint64_t x,
		    uint64_t to, uint8_t **buf, size_t *len, int64_t *delta)
{
	uint64_t from = sp->offset + sp->len;
	size_t n;
	int pre;

	if (to > t->pt_size)
		to = t->pt_size;
	if (from > to)
		return -RP_ERR_DECODE;
	n = (size_t)(to - from);
	*buf = malloc(RP_SPLIT_PREFIX_MAX + n);
	if (!*buf)
		return -RP_ERR_NOMEM;
	pre = rp_split_prefix_rets(sp, rets, nrets, x, *buf);
	if (pre < 0) {
		free(*buf);
		*buf = NULL;
		return pre;
	}
	memcpy(*buf + pre, t->pt + from, n);
	*len = (size_t)pre + n;
	*delta = (int64_t)from - pre;
	return 0;
}
