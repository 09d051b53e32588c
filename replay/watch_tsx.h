/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Transactions that abort, for the watch scan (watch_tsx.c): positions
 * whose accesses never happened.
 */
#ifndef PTREC_WATCH_TSX_H
#define PTREC_WATCH_TSX_H

#include <stdint.h>

#include "replay.h"

/* Positions [lo, hi) of a transaction that aborted. */
struct wpt_range {
	uint64_t lo, hi;
};

struct wpt_cache;

/*
 * The aborted transactions of thread @tid of @s, in order, into *@r
 * (owned by the cache *@tcp, created on first use).  Returns how many or
 * -RP_ERR_NOMEM.
 */
int wpt_aborted(struct wpt_cache **tcp, const struct rp_session *s,
		uint32_t tid, const struct wpt_range **r);
void wpt_cache_free(struct wpt_cache *tc);

/*
 * Calls @fn on the parts of [@lo, @hi) of @rc's thread outside those
 * transactions, nearest first in direction @dir, until one returns other
 * than -RP_ERR_NOTFOUND; returns that, or -RP_ERR_NOTFOUND (or
 * -RP_ERR_NOMEM).
 */
int wpt_scan_live(struct wpt_cache **tcp, struct rp_recover *rc, int dir,
		  uint64_t lo, uint64_t hi,
		  int (*fn)(void *arg, uint64_t lo, uint64_t hi), void *arg);

#endif /* PTREC_WATCH_TSX_H */
