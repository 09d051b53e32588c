// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_replay BUNDLE K1 K2 ...: replay-engine benchmark (issue #4).
 *
 * BUNDLE holds one thread recorded from a static program.  For each Ki the
 * benchmark writes a bundle whose stream is the recorded one repeated Ki
 * times (each copy starts at its own PSB, so the result is a valid, longer
 * history) and measures, in the same run:
 *   - the baseline: a plain libipt instruction-decoder loop over the stream;
 *   - libptrec's full decode + index build (rp_session_open);
 *   - index memory per instruction;
 *   - goto N to random positions (each decoding a segment) and stepping
 *     back at the end of the history (per step, in batches of 100):
 *     median and 99th percentile.
 * Ratios, not absolute times, are what to compare across machines.
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "iptloop.h"
#include "replay.h"
#include "sideband.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Copies @src to @dst with its stream repeated @k times. */
static int make_bundle(const char *src, const char *dst, unsigned int k,
		       char *pt_path, size_t pt_size)
{
	struct sb_manifest *m;
	struct sb_err err;
	char cmd[16384], path[4096];
	uint8_t *pt;
	size_t len = 0, i;
	FILE *f;

	if (snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", dst,
		     src, dst) >= (int)sizeof(cmd) ||
	    system(cmd) || sb_manifest_load(&m, dst, &err))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", src, m->threads[0].pt);
	pt = rawpt_slurp(path, &len);
	f = snprintf(pt_path, pt_size, "%s/%s", dst, m->threads[0].pt) <
	    (int)pt_size ? fopen(pt_path, "wb") : NULL;
	for (i = 0; pt && f && i < k; i++)
		fwrite(pt, 1, len, f);
	if (f)
		fclose(f);
	free(pt);
	for (i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i].path, m->threads[0].pt))
			m->files[i].size = (uint64_t)len * k;
	i = sb_manifest_save(m, dst, &err);
	sb_manifest_free(m);
	return i ? -1 : 0;
}

struct result {
	uint64_t insns;
	double base, index, reopen, bytes_per_insn;
	double goto_p50, goto_p99, back_p50, back_p99;
};

static void latencies(struct rp_cursor *c, uint64_t n, struct result *r)
{
	enum { N = 200 };
	double g[N], b[N], t;
	uint64_t seed = 88172645463325252ull;
	int i;

	for (i = 0; i < N; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		t = iptloop_now();
		rp_cursor_goto(c, seed % n);
		g[i] = iptloop_now() - t;
	}
	/* One step back takes well under a microsecond: time batches of 100
	 * steps from the end, so the clock's resolution does not dominate.
	 */
	for (i = 0; i < N; i++) {
		int k;

		rp_cursor_goto(c, n - 1);
		t = iptloop_now();
		for (k = 0; k < 100; k++)
			rp_cursor_step(c, -1);
		b[i] = (iptloop_now() - t) / 100;
	}
	qsort(g, N, sizeof(g[0]), cmp_d);
	qsort(b, N, sizeof(b[0]), cmp_d);
	r->goto_p50 = g[N / 2];
	r->goto_p99 = g[N * 99 / 100];
	r->back_p50 = b[N / 2];
	r->back_p99 = b[N * 99 / 100];
}

int main(int argc, char **argv)
{
	struct result res[8];
	int i, nres = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_replay BUNDLE K...\n");
		return 2;
	}
	for (i = 2; i < argc && nres < 8; i++) {
		struct result *r = &res[nres++];
		struct rp_thread_info ti;
		struct rp_session *s;
		struct rp_cursor *c;
		char dst[4096], pt[4096];
		double t;

		snprintf(dst, sizeof(dst), "%s.x%s", argv[1], argv[i]);
		if (make_bundle(argv[1], dst, (unsigned int)atoi(argv[i]), pt,
				sizeof(pt))) {
			fprintf(stderr, "bench_replay: cannot build %s\n", dst);
			return 1;
		}
		r->base = iptloop_run(dst, pt, &r->insns);
		/* The index build itself: no saved index (replay/idxcache.c). */
		setenv("PTREC_INDEX_CACHE", "0", 1);
		t = iptloop_now();
		if (rp_session_open(&s, dst)) {
			fprintf(stderr, "bench_replay: %s: %s\n", dst,
				rp_session_errmsg(s));
			return 1;
		}
		r->index = iptloop_now() - t;
		rp_thread_info(s, rp_thread_tid(s, 0), &ti);
		if (ti.insns != r->insns)
			fprintf(stderr, "bench_replay: engine %" PRIu64
				" instructions, baseline %" PRIu64 "\n",
				ti.insns, r->insns);
		r->bytes_per_insn = (double)ti.index_bytes / (double)ti.insns;
		rp_cursor_new(s, ti.tid, &c);
		latencies(c, ti.insns, r);
		rp_cursor_free(c);
		rp_session_close(s);
		/* Opening again with the index saved by a first open. */
		unsetenv("PTREC_INDEX_CACHE");
		if (rp_session_open(&s, dst) == 0)
			rp_session_close(s);
		t = iptloop_now();
		if (rp_session_open(&s, dst)) {
			fprintf(stderr, "bench_replay: reopen %s: %s\n", dst,
				rp_session_errmsg(s));
			return 1;
		}
		r->reopen = iptloop_now() - t;
		rp_session_close(s);
		if (snprintf(pt, sizeof(pt), "rm -rf '%s'", dst) >=
		    (int)sizeof(pt) || system(pt))
			return 1;
	}
	printf("%12s %10s %10s %8s %10s %10s %10s %10s %11s %11s\n",
	       "instructions", "libipt/s", "index/s", "ratio", "reopen",
	       "idx B/ins", "goto p50", "goto p99", "back p50", "back p99");
	for (i = 0; i < nres; i++)
		printf("%12" PRIu64 " %10.3g %10.3g %8.2f %8.2fms %10.5f %8.2fms %8.2fms %8.3fus %8.3fus\n",
		       res[i].insns, (double)res[i].insns / res[i].base,
		       (double)res[i].insns / res[i].index,
		       res[i].base / res[i].index, res[i].reopen * 1e3,
		       res[i].bytes_per_insn,
		       res[i].goto_p50 * 1e3, res[i].goto_p99 * 1e3,
		       res[i].back_p50 * 1e6, res[i].back_p99 * 1e6);
	printf("ratio: index throughput / plain libipt loop (goal >= 3, issue #7); "
	       "reopen: rp_session_open with the index a first open saved; "
	       "goto and step-back should not grow with the history\n");
	if (nres >= 2)
		printf("goto p99 at largest / smallest: %.2f; step back p99: %.2f (goal <= 2)\n",
		       res[nres - 1].goto_p99 / res[0].goto_p99,
		       res[nres - 1].back_p99 / res[0].back_p99);
	return 0;
}
