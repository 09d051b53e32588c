// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The packet scan behind ptkit_stream_scan(): libipt's packet decoder, its
 * sync search after damage and, on request, from one PSB+ straight to the
 * next PSB.
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
