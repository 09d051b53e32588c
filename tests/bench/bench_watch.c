// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_watch BUNDLE ADDR: the reverse watchpoint search (#18, replay/
 * watch.c) against a plain libipt instruction loop over the same stream,
 * in one run, as ratios (each time the best of 3).  BUNDLE is scripts/bench-watch's 10^7-instruction
 * history of tests/bench/gdbloop (one static thread); ADDR is a variable
 * the loop writes (sink).
 *
 *   scan        instructions per second a backward search covers when
 *               nothing matches (a code address: never written), cold
 *               (the recovery engine computes each window of addresses on
 *               the way) and warm (the windows near the end are kept);
 *   nearby hit  the time to the nearest write of ADDR before a position
 *               10^5 instructions from the end and 5*10^6 and 9.9*10^6
 *               deep, as a ratio: flat means no decoding from the end.
 *
 * bench_watch --real BUNDLE: deep in a real program's history
 * (scripts/bench-watch: tests/programs/loops from fib()'s entry to a later
 * call of it, repeated to 10^7 instructions, where conditional branches,
 * calls and returns fill every window; and tests/bench/libloop, a loop
 * of glibc calls, a rep stos and a write(2), repeated the same way): a
 * backward scan of 2*10^5
 * instructions from the middle, watching a word nothing writes, against
 * the libipt loop over the same stream, both the best of 3.
 *
 * bench_watch --agree BUNDLE: not a measure, a check at the engine's own
 * window size (16,384 instructions; the unit tests use 50 to 300): deep
 * skip scans of 2*10^5 instructions from the middle, the proofs' and the
 * far windows passed without the engine, stop where the engine's own
 * scan (rp_recover_scan()) stops, with watch, rwatch and awatch, for the
 * first 3 words the engine knows written there, the first 3 it knows
 * read, and a word nothing touches; status 1 and the first difference
 * otherwise.
 *
 * bench_watch --count ipt|cold|warm|deep|rdeep|adeep|stop BUNDLE: one of
 * those runs alone (stop: cold from the end with watch-unknown stop, the
 * others use skip; rdeep and adeep: deep with rwatch and awatch, where
 * loads count too)
 * for valgrind --tool=callgrind --instr-atstart=no (scripts/bench-watch):
 * instrumentation is on only around it (the libipt loop: run with
 * --toggle-collect=pt_insn_next instead); prints the instructions it
 * covered.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include "iptloop.h"
#include "replay.h"
#include "rp_internal.h"
#include "sideband.h"

static struct rp_session *s;
static uint32_t tid, pid;
static uint64_t end;

#define REPEAT 3	/* each time is the best of 3: the machine is shared */

/* Seconds for one backward scan of [hi - span, hi) for @addr. */
static double scan(struct rp_recover *rc, struct rp_watch *w, uint64_t hi,
		   uint64_t span, uint64_t *covered)
{
	struct rp_watch_hit h;
	double t = iptloop_now();
	int ret = rp_watch_scan(w, rc, pid, -1, hi - span, hi, &h);

	t = iptloop_now() - t;
	*covered = ret ? span : hi - h.pos;
	return t;
}

/* bench_watch --count WHAT BUNDLE (above). */
static int count(const char *what, const char *dir)
{
	struct sb_manifest *m;
	struct rp_thread_info info;
	struct rp_recover *rc;
	struct rp_watch *w;
	uint64_t n = 200000, hi, covered = 0;
	char pt[4096];
	int type;

	if (rp_session_open(&s, dir) || sb_manifest_load(&m, dir, NULL)) {
		fprintf(stderr, "bench_watch: cannot open %s\n", dir);
		return 2;
	}
	if (!strcmp(what, "ipt")) {
		snprintf(pt, sizeof(pt), "%s/%s", dir, m->threads[0].pt);
		if (iptloop_run(dir, pt, &covered) <= 0)
			return 2;
		printf("%" PRIu64 "\n", covered);
		return 0;
	}
	tid = rp_thread_tid(s, 0);
	if (rp_thread_info(s, tid, &info) || rp_thread_end(s, tid, &end, NULL) ||
	    end < 2 * n || rp_watch_new(&w) || rp_recover_new(s, tid, &rc))
		return 2;
	pid = info.pid;
	/* stop: GDB's default, where a store the engine does not know
	 * stops the scan unless a proof shows it misses.
	 */
	rp_watch_set_unknown(w, !strcmp(what, "stop") ?
			     RP_WATCH_UNKNOWN_STOP : RP_WATCH_UNKNOWN_SKIP);
	/* rdeep, adeep: deep with rwatch, awatch (loads count too). */
	type = !strcmp(what, "rdeep") ? RP_WATCH_READ :
	       !strcmp(what, "adeep") ? RP_WATCH_ACCESS : RP_WATCH_WRITE;
	if (type != RP_WATCH_WRITE)
		what = "deep";
	rp_watch_insert(w, type, pid, 0x401000, 8);
	hi = !strcmp(what, "deep") ? end / 2 : end;
	if (!strcmp(what, "warm"))
		scan(rc, w, hi, n, &covered);
	else if (strcmp(what, "cold") && strcmp(what, "deep") &&
		 strcmp(what, "stop"))
		return 2;
	CALLGRIND_START_INSTRUMENTATION;
	scan(rc, w, hi, n, &covered);
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("%" PRIu64 "\n", covered);
	return 0;
}

static int real(const char *dir)
{
	struct sb_manifest *m;
	struct rp_thread_info info;
	struct rp_recover *rc;
	struct rp_watch *w;
	uint64_t n = 200000, ipt_n, covered = 0;
	double ipt, t, x;
	char pt[4096];
	int k;

	if (rp_session_open(&s, dir) || sb_manifest_load(&m, dir, NULL)) {
		fprintf(stderr, "bench_watch: cannot open %s\n", dir);
		return 2;
	}
	snprintf(pt, sizeof(pt), "%s/%s", dir, m->threads[0].pt);
	for (k = 0, ipt = 1e9; k < REPEAT; k++) {
		x = iptloop_run(dir, pt, &ipt_n);
		if (x <= 0) {
			fprintf(stderr,
				"bench_watch: the libipt loop failed\n");
			return 2;
		}
		ipt = x < ipt ? x : ipt;
	}
	tid = rp_thread_tid(s, 0);
	if (rp_thread_info(s, tid, &info) ||
	    rp_thread_end(s, tid, &end, NULL) || end < 4 * n ||
	    rp_watch_new(&w))
		return 2;
	pid = info.pid;
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, 0x401000, 8);
	for (k = 0, t = 1e9; k < REPEAT; k++) {
		if (rp_recover_new(s, tid, &rc))
			return 2;
		x = scan(rc, w, end / 2, n, &covered);
		t = x < t ? x : t;
		rp_recover_free(rc);
	}
	printf("watch-bench: deep in a real program (%" PRIu64 " instructions):"
	       " backward scan from the middle: cold %.0f insns/s (%.4f of "
	       "libipt's %.0f insns/s; goal 10^7 insns/s)\n", end,
	       (double)covered / t, (double)covered / t / ((double)ipt_n / ipt),
	       (double)ipt_n / ipt);
	rp_watch_free(w);
	sb_manifest_free(m);
	rp_session_close(s);
	return 0;
}

struct agree_arg {
	uint64_t lo;
	unsigned int kinds;	/* RP_ACC_* bits */
};

static int agree_one(void *arg, const struct rp_access *acc, int n)
{
	const struct agree_arg *a = arg;
	int k;

	for (k = 0; k < n; k++)
		if ((acc[k].kind & a->kinds) && acc[k].addr_known &&
		    acc[k].addr < a->lo + 8 &&
		    a->lo < acc[k].addr + acc[k].size)
			return 1;
	return 0;
}

/* The first 3 words the engine knows accessed by kind @kind near
 * @from, into @seen (*@ns of them so far, room for 8).
 */
static void agree_words(struct rp_recover *ref, uint64_t from,
			uint8_t kind, uint64_t *seen, size_t *ns)
{
	struct rp_access acc[4];
	size_t j, n0 = *ns;
	uint64_t p;
	int k, na;

	for (p = from; p < from + 3000 && *ns < n0 + 3; p++) {
		na = rp_recover_accesses(ref, p, acc, 4);
		for (k = 0; k < na && *ns < n0 + 3; k++) {
			if (!acc[k].addr_known || acc[k].kind != kind)
				continue;
			for (j = 0; j < *ns && seen[j] != (acc[k].addr & ~7ull);)
				j++;
			if (j == *ns)
				seen[(*ns)++] = acc[k].addr & ~7ull;
		}
	}
}

/* bench_watch --agree BUNDLE (above). */
static int agree(const char *dir)
{
	static const struct {
		unsigned int type, kinds;
		const char *name;
	} ty[] = {
		{ RP_WATCH_WRITE, RP_ACC_WRITE, "watch" },
		{ RP_WATCH_READ, RP_ACC_READ, "rwatch" },
		{ RP_WATCH_ACCESS, RP_ACC_READ | RP_ACC_WRITE, "awatch" },
	};
	struct rp_thread_info info;
	struct rp_recover *ref, *rc;
	struct rp_watch *w;
	uint64_t hi, lo, seen[8];
	size_t ns = 0, j, t;

	if (rp_session_open(&s, dir)) {
		fprintf(stderr, "bench_watch: cannot open %s\n", dir);
		return 2;
	}
	tid = rp_thread_tid(s, 0);
	if (rp_thread_info(s, tid, &info) ||
	    rp_thread_end(s, tid, &end, NULL) || end < 1000000 ||
	    rp_recover_new(s, tid, &ref) || rp_watch_new(&w))
		return 2;
	hi = end / 2;
	lo = hi - 200000;
	/* Words the engine knows written, then words it knows read only
	 * (a load of a constant string, a table), and one nothing touches.
	 */
	agree_words(ref, hi - 20000, RP_ACC_WRITE, seen, &ns);
	agree_words(ref, hi - 20000, RP_ACC_READ, seen, &ns);
	seen[ns++] = 0x401000;	/* in no mapping of a PIE */
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	for (t = 0; t < sizeof(ty) / sizeof(ty[0]); t++)
	for (j = 0; j < ns; j++) {
		struct agree_arg ra = { seen[j], ty[t].kinds };
		uint64_t h2 = hi, q;
		int nstop = 0, r1, r2;

		rp_watch_clear(w);
		if (rp_watch_insert(w, ty[t].type, info.pid, seen[j], 8) ||
		    rp_recover_new(s, tid, &rc))
			return 2;
		for (;;) {
			struct rp_watch_hit h;

			r1 = rp_watch_scan(w, rc, info.pid, -1, lo, h2, &h);
			q = h2 - 1;
			r2 = rp_recover_scan(ref, &q, -1, lo, h2, ty[t].kinds,
					     agree_one, &ra);
			if (r1 != r2 || (!r1 && h.pos != q)) {
				printf("watch-bench: DIFFERENT: %s: %s "
				       "%#" PRIx64 " before %" PRIu64
				       ": the scan %d at %" PRIu64 ", the "
				       "engine %d at %" PRIu64 "\n", dir,
				       ty[t].name, seen[j], h2, r1,
				       r1 ? 0 : h.pos, r2, q);
				return 1;
			}
			if (r1)
				break;
			nstop++;
			h2 = h.pos;
		}
		printf("watch-bench: %s: %s %#" PRIx64 " 8 back from "
		       "%" PRIu64 ": %d stops, each the engine's\n", dir,
		       ty[t].name, seen[j], hi, nstop);
		rp_recover_free(rc);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sb_manifest *m;
	struct rp_thread_info info;
	struct rp_watch *code, *var;
	struct rp_recover *rc;
	uint64_t addr, n, ipt_n, covered;
	double ipt, cold, warm, t[3];
	const uint64_t at[3] = { 100000, 5000000, 9900000 };
	char pt[4096];
	int k;

	if (argc == 4 && !strcmp(argv[1], "--count"))
		return count(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "--real"))
		return real(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--agree"))
		return agree(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: bench_watch BUNDLE ADDR\n");
		return 2;
	}
	addr = strtoull(argv[2], NULL, 0);
	if (rp_session_open(&s, argv[1]) || sb_manifest_load(&m, argv[1], NULL)) {
		fprintf(stderr, "bench_watch: cannot open %s\n", argv[1]);
		return 2;
	}
	snprintf(pt, sizeof(pt), "%s/%s", argv[1], m->threads[0].pt);
	for (k = 0, ipt = 1e9; k < REPEAT; k++) {
		double x = iptloop_run(argv[1], pt, &ipt_n);

		if (x <= 0) {
			fprintf(stderr, "bench_watch: the libipt loop failed\n");
			return 2;
		}
		ipt = x < ipt ? x : ipt;
	}
	tid = rp_thread_tid(s, 0);
	if (rp_thread_info(s, tid, &info) || rp_thread_end(s, tid, &end, NULL) ||
	    end < 10000000 - 100000 || rp_watch_new(&code) ||
	    rp_watch_new(&var)) {
		fprintf(stderr, "bench_watch: %s is not the 10^7 history\n",
			argv[1]);
		return 2;
	}
	pid = info.pid;
	/* Code is never written; stores of unknown address are skipped. */
	rp_watch_set_unknown(code, false);
	rp_watch_set_unknown(var, false);
	rp_watch_insert(code, RP_WATCH_WRITE, pid, 0x401000, 8);
	rp_watch_insert(var, RP_WATCH_WRITE, pid, addr, 4);
	printf("watch-bench: plain libipt loop %.0f insns/s (%" PRIu64
	       " instructions)\n", (double)ipt_n / ipt, ipt_n);

	n = 200000;
	for (k = 0, cold = warm = 1e9; k < REPEAT; k++) {
		double c, x;

		if (rp_recover_new(s, tid, &rc))
			return 2;
		c = scan(rc, code, end, n, &covered);
		x = scan(rc, code, end, n, &covered);
		cold = c < cold ? c : cold;
		warm = x < warm ? x : warm;
		rp_recover_free(rc);
	}
	printf("watch-bench: backward scan, %" PRIu64 " instructions from "
	       "the end: cold %.0f insns/s (%.4f of libipt), warm %.0f "
	       "insns/s (%.3f of libipt; goal 10^7 insns/s)\n", covered,
	       (double)covered / cold, (double)covered / cold /
	       ((double)ipt_n / ipt), (double)covered / warm,
	       (double)covered / warm / ((double)ipt_n / ipt));
	for (k = 0, cold = 1e9; k < REPEAT; k++) {
		double c;

		if (rp_recover_new(s, tid, &rc))
			return 2;
		c = scan(rc, code, end / 2, n, &covered);
		cold = c < cold ? c : cold;
		rp_recover_free(rc);
	}
	printf("watch-bench: backward scan deep in the history: cold %.0f "
	       "insns/s (%.4f of libipt)\n", (double)covered / cold,
	       (double)covered / cold / ((double)ipt_n / ipt));
	for (k = 0; k < 3; k++) {
		int r;

		t[k] = 1e9;
		for (r = 0; r < REPEAT; r++) {
			double x;

			/* A fresh context each time: nothing computed
			 * before.
			 */
			if (rp_recover_new(s, tid, &rc))
				return 2;
			x = scan(rc, var, end - at[k], end - at[k], &covered);
			t[k] = x < t[k] ? x : t[k];
			rp_recover_free(rc);
		}
	}
	printf("watch-bench: nearest write before a position, cold: %.1f ms "
	       "at 10^5 from the end, %.1f ms at 5*10^6, %.1f ms at 9.9*10^6:"
	       " deep / near %.2f (flat: about 1)\n", t[0] * 1e3, t[1] * 1e3,
	       t[2] * 1e3, t[2] / t[0]);
	rp_watch_free(code);
	rp_watch_free(var);
	sb_manifest_free(m);
	rp_session_close(s);
	return 0;
}
