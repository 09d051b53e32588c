// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The truth's index of each of the replay's positions across gaps
 * (truthalign.h), shared by tests/gdb/watchtruth --check and
 * tests/values/valcheck: after a gap the replay's position p is no longer
 * the truth's record p.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "truthalign.h"

#define ALIGN_RUN 32

static void differ(uint32_t tid, uint64_t p, uint64_t truth, uint64_t ip,
		   uint64_t *unexplained)
{
	if ((*unexplained)++ < 10)
		printf("UNALIGNED thread %u position %" PRIu64 ": the truth %#"
		       PRIx64 ", the replay %#" PRIx64 "\n", tid, p, truth, ip);
}

size_t *align(struct rp_session *s, uint32_t tid,
	      struct rp_cursor *cur, const struct sb_truth_rec *recs,
	      size_t n, uint64_t end, uint64_t *off,
	      uint64_t *unexplained)
{
	size_t *map = malloc((end + 1) * sizeof(*map)), t = 0, t2, j, te;
	uint64_t *ips = malloc((end + 1) * sizeof(*ips)), p, last = 0;
	unsigned char *gap = calloc(end + 1, 1);
	struct rp_insn insn;
	struct rp_gap g;
	bool lost = false;

	if (!map || !ips || !gap) {
		free(map);
		free(ips);
		free(gap);
		return NULL;
	}
	for (p = 0; !rp_thread_gap(s, tid, p, &g); p++)
		if (g.before && g.before <= end) {
			gap[g.before] = 1;
			if (g.before > last)
				last = g.before;
		}
	for (p = 0; p < end; p++)
		ips[p] = rp_cursor_peek(cur, p, &insn) ? 0 : insn.ip;
	for (p = 0; p < (last ? last : end); p++) {
		if (gap[p])
			lost = true;
		if (!gap[p] && t < n && ips[p] && recs[t].ip == ips[p]) {
			map[p] = t++;
			continue;
		}
		if (!lost)
			differ(tid, p, t < n ? recs[t].ip : 0, ips[p],
			       unexplained);
		for (t2 = t; t2 < n; t2++) {
			for (j = 0; j < ALIGN_RUN && p + j < end &&
				    t2 + j < n; j++)
				if (recs[t2 + j].ip != ips[p + j])
					break;
			if (j == ALIGN_RUN || p + j == end || t2 + j == n)
				break;
		}
		if (t2 < n && ips[p]) {
			map[p] = t2;
			t = t2 + 1;
			lost = false;
			continue;
		}
		map[p] = NONE;
		*off += 1;
	}
	if (!last || !end)
		goto out;
	/* After the last gap: the truth's last instruction that ends a run
	 * of the replay's last ones (the truth may have one more, the last
	 * unfinished instruction).
	 */
	for (te = n; te-- > 0 && te + 3 >= n;) {
		for (j = 0; j < ALIGN_RUN && j <= te && j < end - last; j++)
			if (recs[te - j].ip != ips[end - 1 - j])
				break;
		if (j == ALIGN_RUN || j > te || j == end - last)
			break;
	}
	for (p = last; p < end; p++) {
		if (te + 3 < n || te < end - 1 - p ||
		    te - (end - 1 - p) < t) {
			map[p] = NONE;
			*off += 1;
			differ(tid, p, 0, ips[p], unexplained);
			continue;
		}
		map[p] = te - (end - 1 - p);
		if (recs[map[p]].ip != ips[p])
			differ(tid, p, recs[map[p]].ip, ips[p], unexplained);
	}
out:
	free(ips);
	free(gap);
	return map;
}

