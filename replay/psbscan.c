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
	size_t seek;		/* PSB without FUP whose resume is sought,
				 * SIZE_MAX: none */
};

/* The IP of a TIP.PGE right after a PSB+ (last-IP reset: only the forms
 * that carry the whole address), or 0.
 */
static uint64_t pge_ip(const struct pt_packet *pkt)
{
	uint64_t ip = pkt->payload.ip.ip;

	switch (pkt->payload.ip.ipc) {
	case pt_ipc_sext_48:
		ip &= 0xffffffffffffull;
		return ip & (1ull << 47) ? ip | 0xffffull << 48 : ip;
	case pt_ipc_full:
		return ip;
	default:
		return 0;
	}
}

/*
 * After a PSB+ without FUP (tracing off), the packets up to the TIP.PGE
 * that resumes tracing: where a decoder started at that PSB resumes, so
 * that the index pass can tell which enable event that is (decode.c).
 * Anything that needs tracing on first (a branch, a FUP, an overflow)
 * leaves it unknown.
 */
static int seek_resume(struct psb_scan *sc, uint64_t off,
		       const struct pt_packet *pkt)
{
	struct rp_psb_resume *r = &sc->t->resume[sc->seek];

	switch (pkt->type) {
	case ppt_tip_pge:
		r->ip = pge_ip(pkt);
		r->offset = r->ip ? off : 0;
		break;
	case ppt_tip:
	case ppt_tip_pgd:
	case ppt_fup:
	case ppt_tnt_8:
	case ppt_tnt_64:
	case ppt_ovf:
	case ppt_stop:
		break;
	default:
		return PTKIT_SCAN_NEXT;
	}
	sc->seek = SIZE_MAX;
	return PTKIT_SCAN_SKIP;
}

static int psb_packet(void *ctx, uint64_t off, const struct pt_packet *pkt)
{
	struct psb_scan *sc = ctx;
	struct rp_thread *t = sc->t;
	struct rp_psb *cur = sc->cur;

	if (!pkt) {
		/* Damage: the next PSB starts afresh. */
		sc->cur = NULL;
		sc->seek = SIZE_MAX;
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
		sc->seek = SIZE_MAX;
	} else if (sc->seek != SIZE_MAX) {
		return seek_resume(sc, off, pkt);
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
			sc->seek = (size_t)(cur - t->psbs);
			sc->cur = NULL;
			return PTKIT_SCAN_NEXT;
		}
		sc->cur = NULL;
		return PTKIT_SCAN_SKIP;
	}
	return PTKIT_SCAN_NEXT;
}

int rp_scan_psbs(struct rp_thread *t)
{
	struct psb_scan sc = { .t = t, .seek = SIZE_MAX };
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
