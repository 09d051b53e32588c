// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The packet scan behind ptkit_stream_scan(): libipt's packet decoder, its
 * sync search after damage and, on request, from one PSB+ straight to the
 * next PSB; and ptkit_pkt_len(), packet sizes from headers, for walks that
 * only need a few packet kinds.
 */
#include <errno.h>
#include <intel-pt.h>

#include "ptkit.h"

int ptkit_stream_scan(const uint8_t *buf, size_t len, ptkit_scan_fn fn,
		      void *ctx, uint64_t *cut)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t off = 0;
	int ret, act = 0;

	if (cut)
		*cut = UINT64_MAX;
	if (!len)
		return 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return -ENOMEM;
	ret = pt_pkt_sync_forward(d);
	while (ret >= 0) {
		pt_pkt_get_offset(d, &off);
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret == -pte_eos) {
			/*
			 * libipt says end-of-stream both at the end and for a
			 * packet whose bytes run past it (SDM Vol. 3C 33.4:
			 * every packet has a fixed or header-given size).
			 */
			if (cut && off < len)
				*cut = off;
			break;
		}
		act = fn(ctx, off, ret < 0 ? NULL : &pkt);
		if (act < 0)
			break;
		if (ret < 0 || act == PTKIT_SCAN_SKIP)
			ret = pt_pkt_sync_forward(d);
	}
	pt_pkt_free_decoder(d);
	return act < 0 ? act : 0;
}

/* The size of the extended (02 ...) packet at @p, 0: not known here. */
static size_t ext_len(const uint8_t *p, size_t left)
{
	if (left < 2)
		return 2;	/* runs past the end */
	switch (p[1]) {
	case 0x82: return 16;	/* PSB */
	case 0x23: return 2;	/* PSBEND */
	case 0x03: return 4;	/* CBR */
	case 0xa3: return 8;	/* long TNT */
	case 0x43: return 8;	/* PIP */
	case 0xf3: return 2;	/* OVF */
	case 0xc8: return 7;	/* VMCS */
	case 0x73: return 7;	/* TMA */
	case 0x83: return 2;	/* TraceStop */
	case 0xc3: return 11;	/* MNT */
	case 0x62: case 0xe2: return 2;	/* EXSTOP */
	case 0xc2: return 10;	/* MWAIT */
	case 0x22: return 4;	/* PWRE */
	case 0xa2: return 7;	/* PWRX */
	default:
		if ((p[1] & 0x1f) == 0x12)	/* PTWRITE: 4 or 8 bytes */
			return (p[1] & 0x60) == 0 ? 6 :
			       (p[1] & 0x60) == 0x20 ? 10 : 0;
		return 0;
	}
}

size_t ptkit_pkt_len(const uint8_t *p, size_t left)
{
	/* IP payload bytes per IP compression (SDM Table 33-11). */
	static const uint8_t ipc_bytes[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	uint8_t h;
	size_t len;

	if (!left)
		return 1;
	h = p[0];
	if (h == 0x00)				/* PAD */
		return 1;
	if (h == 0x02)
		return ext_len(p, left);
	if ((h & 0x03) == 0x03) {		/* CYC */
		len = 1;
		if (!(h & 0x04))
			return 1;
		for (;;) {
			if (len >= left)
				return left + 1;
			if (!(p[len++] & 0x01))
				return len;
		}
	}
	if (!(h & 0x01))			/* short TNT */
		return 1;
	switch (h & 0x1f) {
	case 0x0d:				/* TIP */
	case 0x11:				/* TIP.PGE */
	case 0x01:				/* TIP.PGD */
	case 0x1d:				/* FUP */
		if ((h >> 5) == 5 || (h >> 5) == 7)
			return 0;		/* reserved IP compression */
		return 1 + (size_t)ipc_bytes[h >> 5];
	default:
		break;
	}
	if (h == 0x19)				/* TSC */
		return 8;
	if (h == 0x59 || h == 0x99)		/* MTC, MODE */
		return 2;
	return 0;
}
