// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_scale BUNDLE... : libptrec on ptgen bundles of growing size
 * (issue #7, docs/performance.md).  Each BUNDLE has its ground truth in
 * BUNDLE.truth.  For each, in the same run:
 *   - the baseline: a plain libipt instruction-decoder loop (iptloop.c);
 *   - open to ready: rp_session_open (decode + index build, no saved
 *     index), a cursor, and the instruction at the end of the history;
 *     and opening again with the index a first open saved;
 *   (both best of BENCH_SCALE_REPEAT runs, default 3, taking turns;)
 *   - index memory per instruction;
 *   - latency, p50 and p99, of goto to random positions, one step back
 *     after such a goto, and from the ground truth's sampled positions
 *     (the cursor there first, untimed): reverse-next over a call,
 *     reverse-finish, and reverse-continue to a breakpoint at the sample's
 *     own address, whose previous execution the truth knows.  Moves whose
 *     target the truth puts more than REACH instructions back are left
 *     out, so every size measures the same kind of move; and
 *     reverse-finish from samples at any distance, the outermost function
 *     (whose caller the history does not show) included.
 * Every timed move is checked against the truth.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iptloop.h"
#include "replay.h"
#include "sideband.h"
#include "truth.h"

#define NMOVES 200
#define REACH 100000ull		/* instructions back, at most */

enum { GOTO, BACK, RNEXT, RFINISH, RCONT, RFAR, NKIND };
static const char *const kind_name[NKIND] = {
	"goto", "step back", "reverse-next", "reverse-finish",
	"reverse-continue", "rev-finish (any)",
};

struct result {
	uint64_t insns, pt_bytes;
	double base, ready, reopen, index_bpi;
	double p50[NKIND], p99[NKIND];
	int n[NKIND];
	uint64_t rc_dist50;	/* median reverse-continue distance */
	int outer;		/* RFAR moves from the outermost function */
};

static int wrong;
static int t_repeat = 3;	/* BENCH_SCALE_REPEAT */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void stats(double *v, int n, double *p50, double *p99)
{
	if (!n) {
		*p50 = *p99 = 0;
		return;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	*p50 = v[n / 2];
	*p99 = v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
}

static void check(const char *what, uint64_t at, uint64_t got, uint64_t want)
{
	if (got != want && wrong++ < 10)
		fprintf(stderr, "bench_scale: %s from %" PRIu64 ": at %" PRIu64
			", truth %" PRIu64 "\n", what, at, got, want);
}

static void moves(struct rp_cursor *c, const struct ptgen_truth *t,
		  struct result *r)
{
	static double v[NKIND][NMOVES];
	uint64_t seed = 88172645463325252ull, dist[NMOVES];
	size_t i;
	double t0;
	int k;

	for (i = 0; i < NMOVES; i++) {
		uint64_t pos;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		pos = seed % t->h.insns;
		t0 = iptloop_now();
		rp_cursor_goto(c, pos);
		v[GOTO][r->n[GOTO]++] = iptloop_now() - t0;
		if (!pos)
			continue;
		t0 = iptloop_now();
		rp_cursor_step(c, -1);
		v[BACK][r->n[BACK]++] = iptloop_now() - t0;
		check("step back", pos, rp_cursor_pos(c), pos - 1);
	}
	for (i = 0; i < t->h.nsamples; i++) {
		const struct ptgen_sample *x = &t->samples[i];

		if (x->ret_call != PTGEN_NONE &&
		    x->index - x->ret_call <= REACH && r->n[RNEXT] < NMOVES) {
			rp_cursor_goto(c, x->index);
			t0 = iptloop_now();
			rp_cursor_next(c, -1);
			v[RNEXT][r->n[RNEXT]++] = iptloop_now() - t0;
			check("reverse-next", x->index, rp_cursor_pos(c),
			      x->ret_call);
		}
		if (x->frame_call != PTGEN_NONE &&
		    x->index - x->frame_call <= REACH &&
		    r->n[RFINISH] < NMOVES) {
			rp_cursor_goto(c, x->index);
			t0 = iptloop_now();
			rp_cursor_finish(c, -1);
			v[RFINISH][r->n[RFINISH]++] = iptloop_now() - t0;
			check("reverse-finish", x->index, rp_cursor_pos(c),
			      x->frame_call);
		}
		if (r->n[RFAR] < NMOVES) {
			/* Any distance, the outermost function included
			 * (its caller is not in the history).
			 */
			rp_cursor_goto(c, x->index);
			t0 = iptloop_now();
			rp_cursor_finish(c, -1);
			v[RFAR][r->n[RFAR]++] = iptloop_now() - t0;
			/* Not found: the cursor goes to the start. */
			check("reverse-finish (any)", x->index,
			      rp_cursor_pos(c), x->frame_call == PTGEN_NONE ?
			      0 : x->frame_call);
			if (x->frame_call == PTGEN_NONE)
				r->outer++;
		}
		if (x->prev != PTGEN_NONE && x->index - x->prev <= REACH &&
		    r->n[RCONT] < NMOVES) {
			dist[r->n[RCONT]] = x->index - x->prev;
			rp_cursor_goto(c, x->index);
			t0 = iptloop_now();
			rp_cursor_search(c, -1, &x->ip, 1);
			v[RCONT][r->n[RCONT]++] = iptloop_now() - t0;
			check("reverse-continue", x->index, rp_cursor_pos(c),
			      x->prev);
		}
	}
	for (k = 0; k < NKIND; k++)
		stats(v[k], r->n[k], &r->p50[k], &r->p99[k]);
	qsort(dist, (size_t)r->n[RCONT], sizeof(dist[0]), cmp_u);
	r->rc_dist50 = r->n[RCONT] ? dist[r->n[RCONT] / 2] : 0;
}

static int bench(const char *dir, struct result *r)
{
	struct rp_thread_info ti;
	struct ptgen_truth t;
	struct rp_session *s = NULL;
	struct rp_cursor *c = NULL;
	struct sb_manifest *m;
	struct rp_insn in;
	struct sb_err err;
	char path[4096];
	uint64_t base_insns;
	int rep, repeat = t_repeat;
	double t0;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s.truth", dir);
	if (ptgen_truth_load(path, &t))
		return -1;
	if (sb_manifest_load(&m, dir, &err)) {
		fprintf(stderr, "bench_scale: %s\n", err.msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, m->threads[0].pt);
	sb_manifest_free(m);
	/*
	 * Best of @repeat, the baseline and the engine taking turns, so that
	 * both see the same load on a shared machine.
	 */
	for (rep = 0; rep < repeat; rep++) {
		double b = iptloop_run(dir, path, &base_insns);

		if (b < 0 || base_insns != t.h.insns) {
			fprintf(stderr, "bench_scale: %s: the libipt loop decoded %"
				PRIu64 " instructions, truth %" PRIu64 "\n",
				dir, base_insns, t.h.insns);
			return -1;
		}
		if (!rep || b < r->base)
			r->base = b;
		if (rep) {
			rp_cursor_free(c);
			rp_session_close(s);
		}
		/* The index build itself: no saved index (idxcache.c). */
		setenv("PTREC_INDEX_CACHE", "0", 1);
		t0 = iptloop_now();
		if (rp_session_open(&s, dir)) {
			fprintf(stderr, "bench_scale: %s: %s\n", dir,
				rp_session_errmsg(s));
			return -1;
		}
		if (rp_cursor_new(s, t.h.tid, &c) || rp_cursor_insn(c, &in)) {
			fprintf(stderr, "bench_scale: %s: no history\n", dir);
			return -1;
		}
		b = iptloop_now() - t0;
		if (!rep || b < r->ready)
			r->ready = b;
	}
	/* Opening again, with the index a first open saved. */
	unsetenv("PTREC_INDEX_CACHE");
	{
		struct rp_session *s2;

		if (!rp_session_open(&s2, dir))
			rp_session_close(s2);
		t0 = iptloop_now();
		if (rp_session_open(&s2, dir)) {
			fprintf(stderr, "bench_scale: reopen %s: %s\n", dir,
				rp_session_errmsg(s2));
			return -1;
		}
		r->reopen = iptloop_now() - t0;
		rp_session_close(s2);
	}
	rp_thread_info(s, t.h.tid, &ti);
	if (ti.insns != t.h.insns) {
		fprintf(stderr, "bench_scale: %s: engine %" PRIu64
			" instructions, truth %" PRIu64 "\n", dir, ti.insns,
			t.h.insns);
		return -1;
	}
	r->insns = ti.insns;
	r->pt_bytes = ti.pt_bytes;
	r->index_bpi = (double)ti.index_bytes / (double)ti.insns;
	moves(c, &t, r);
	rp_cursor_free(c);
	rp_session_close(s);
	ptgen_truth_free(&t);
	return 0;
}

static void ms(double s)
{
	if (s < 1e-3)
		printf(" %7.1fus", s * 1e6);
	else
		printf(" %7.2fms", s * 1e3);
}

int main(int argc, char **argv)
{
	struct result *res;
	int i, k, n = argc - 1;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_scale BUNDLE...  (ptgen bundles, truth in BUNDLE.truth)\n");
		return 2;
	}
	if (getenv("BENCH_SCALE_REPEAT"))
		t_repeat = atoi(getenv("BENCH_SCALE_REPEAT"));
	if (t_repeat < 1)
		t_repeat = 1;
	res = calloc((size_t)n, sizeof(*res));
	if (!res)
		return 1;
	for (i = 0; i < n; i++) {
		if (bench(argv[i + 1], &res[i]))
			return 1;
		fprintf(stderr, "bench_scale: %s done\n", argv[i + 1]);
	}
	printf("%13s %9s %10s %10s %6s %9s %10s %10s\n", "instructions",
	       "PT bytes", "libipt/s", "index/s", "ratio", "idx B/ins",
	       "ready", "reopen");
	for (i = 0; i < n; i++) {
		struct result *r = &res[i];

		printf("%13" PRIu64 " %9" PRIu64 " %10.3g %10.3g %6.2f %9.5f",
		       r->insns, r->pt_bytes, (double)r->insns / r->base,
		       (double)r->insns / r->ready, r->base / r->ready,
		       r->index_bpi);
		ms(r->ready);
		ms(r->reopen);
		printf("\n");
	}
	printf("\n%13s", "latency");
	for (k = 0; k < NKIND; k++)
		printf(" %19s", kind_name[k]);
	printf("\n%13s", "instructions");
	for (k = 0; k < NKIND; k++)
		printf(" %9s %9s", "p50", "p99");
	printf("\n");
	for (i = 0; i < n; i++) {
		printf("%13" PRIu64, res[i].insns);
		for (k = 0; k < NKIND; k++) {
			ms(res[i].p50[k]);
			ms(res[i].p99[k]);
		}
		printf("\n");
	}
	printf("\nmoves per size:");
	for (k = 0; k < NKIND; k++)
		printf(" %s %d%s", kind_name[k], res[n - 1].n[k],
		       k + 1 < NKIND ? "," : "");
	printf("; reverse-continue distance p50 %" PRIu64 " instructions;"
	       " rev-finish (any) from the outermost function: %d\n",
	       res[n - 1].rc_dist50, res[n - 1].outer);
	printf("ready: open + decode + index + first instruction, no saved index; reopen: rp_session_open\n"
	       "with the index a first open saved (BUNDLE/index); ratio: ready against the plain libipt loop (goal >= 3);\n"
	       "reverse moves from the truth's samples, targets at most %llu instructions back\n",
	       REACH);
	if (n >= 2) {
		printf("p99 at largest / smallest:");
		for (k = 0; k < NKIND; k++)
			printf(" %s %.2f%s", kind_name[k],
			       res[0].p99[k] > 0 ?
			       res[n - 1].p99[k] / res[0].p99[k] : 0,
			       k + 1 < NKIND ? "," : "");
		printf(" (goal: flat)\n");
	}
	if (wrong) {
		fprintf(stderr, "bench_scale: %d moves disagree with the truth\n",
			wrong);
		return 1;
	}
	return 0;
}
