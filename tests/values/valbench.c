// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * valbench BUNDLE [N]: latency of a value question (#17) against a
 * baseline measured in the same run.  N positions (default 200) of the
 * first thread, drawn at random (fixed seed) from the last 262,144
 * instructions (the engine's chained windows) and asked in that order,
 * as a user jumping around in GDB would: each asks the registers and the
 * 8 bytes at rsp (rp_recover_regs + rp_recover_mem, a GDB stop with values
 * on), and the baseline asks the instruction there (rp_cursor_peek, what
 * a stop with values off needs).  Prints p50 / p99 of both in
 * microseconds and their ratio; the first question pays for the windows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "replay.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t k = (size_t)(p * (double)(n - 1) + 0.5);

	qsort(v, n, sizeof(*v), cmp_d);
	return v[k];
}

int main(int argc, char **argv)
{
	struct rp_session *s;
	struct rp_recover *rc;
	struct rp_cursor *c;
	struct rp_insn insn;
	struct rp_regs r;
	uint64_t end, span, *pos, word, seed = 0x9e3779b97f4a7c15ull;
	double *on, *off, t;
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 200, i;
	uint32_t tid;

	if (argc < 2 || !n) {
		fprintf(stderr, "usage: valbench BUNDLE [N]\n");
		return 2;
	}
	if (rp_session_open(&s, argv[1]) || !rp_thread_count(s)) {
		fprintf(stderr, "valbench: %s: cannot open\n", argv[1]);
		return 2;
	}
	tid = rp_thread_tid(s, 0);
	if (rp_thread_end(s, tid, &end, NULL) || end < 2 ||
	    rp_recover_new(s, tid, &rc) || rp_cursor_new(s, tid, &c)) {
		fprintf(stderr, "valbench: %s: no history\n", argv[1]);
		return 2;
	}
	pos = calloc(n, sizeof(*pos));
	on = calloc(n, sizeof(*on));
	off = calloc(n, sizeof(*off));
	if (!pos || !on || !off)
		return 2;
	span = end - 1 < 262144 ? end - 1 : 262144;
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		pos[i] = end - 1 - (seed >> 11) % span;
	}
	for (i = 0; i < n; i++) {
		t = now_us();
		rp_cursor_peek(c, pos[i], &insn);
		off[i] = now_us() - t;
	}
	for (i = 0; i < n; i++) {
		t = now_us();
		if (!rp_recover_regs(rc, pos[i], &r) &&
		    (r.valid >> RP_REG_RSP & 1))
			rp_recover_mem(rc, pos[i], r.val[RP_REG_RSP], &word, 8);
		rp_cursor_peek(c, pos[i], &insn);
		on[i] = now_us() - t;
	}
	printf("%" PRIu64 " instructions, %zu questions in the last %" PRIu64
	       ": values on p50 %.1f us p99 %.1f us, off (the instruction "
	       "alone) p50 %.1f us p99 %.1f us, p99 ratio %.1f\n", end, n,
	       span, pct(on, n, 0.5), pct(on, n, 0.99), pct(off, n, 0.5),
	       pct(off, n, 0.99), pct(on, n, 0.99) / pct(off, n, 0.99));
	rp_cursor_free(c);
	rp_recover_free(rc);
	rp_session_close(s);
	free(pos);
	free(on);
	free(off);
	return 0;
}
