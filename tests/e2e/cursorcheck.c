// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * cursorcheck BUNDLE: checks libptrec's cursors against the ground truth.
 *
 * For every thread: every position holds the recorded address; stepping
 * back from the end visits the history in exact reverse; and finish, next
 * and breakpoint search, in both directions and from sampled positions,
 * land where a brute-force scan over the ground truth says.  Calls and
 * returns for the reference come from Capstone (the recorder's classifier),
 * not from libipt, so the two classifications check each other.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "replay.h"
#include "sideband.h"

#define SAMPLES 300

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("  FAIL: " __VA_ARGS__);			\
			printf("\n");					\
			if (++failures > 20)				\
				exit(1);				\
		}							\
	} while (0)

enum { K_OTHER, K_CALL, K_RET };

struct ref {
	const uint64_t *ip;
	uint8_t *kind;
	uint64_t n;
};

/* Reference: where the depth relative to @from drops below zero. */
static uint64_t ref_exit(const struct ref *r, uint64_t from, int dir)
{
	int64_t depth = 0;
	uint64_t p = from;

	for (;;) {
		if (dir > 0) {
			if (r->kind[p] == K_CALL)
				depth++;
			else if (r->kind[p] == K_RET && depth-- == 0)
				return p + 1 < r->n ? p + 1 : UINT64_MAX;
			if (++p >= r->n)
				return UINT64_MAX;
		} else {
			if (r->kind[p] == K_RET)
				depth++;
			else if (r->kind[p] == K_CALL && depth-- == 0)
				return p;
			if (!p)
				return UINT64_MAX;
			p--;
		}
	}
}

static uint64_t ref_finish(const struct ref *r, uint64_t pos, int dir)
{
	uint64_t to;

	if (dir < 0 && !pos)
		return 0;
	to = ref_exit(r, dir < 0 ? pos - 1 : pos, dir);
	return to != UINT64_MAX ? to : dir < 0 ? 0 : r->n - 1;
}

static uint64_t ref_next(const struct ref *r, uint64_t pos, int dir)
{
	uint64_t to;

	if (dir > 0) {
		if (r->kind[pos] != K_CALL)
			return pos + 1 < r->n ? pos + 1 : pos;
		to = pos + 1 < r->n ? ref_exit(r, pos + 1, 1) : UINT64_MAX;
		return to != UINT64_MAX ? to : r->n - 1;
	}
	if (!pos)
		return 0;
	if (r->kind[pos - 1] != K_RET)
		return pos - 1;
	to = pos >= 2 ? ref_exit(r, pos - 2, -1) : UINT64_MAX;
	return to != UINT64_MAX ? to : 0;
}

static uint64_t ref_search(const struct ref *r, uint64_t pos, int dir,
			   uint64_t ip)
{
	uint64_t p = pos;

	for (;;) {
		if (dir < 0 ? p == 0 : p + 1 >= r->n)
			return p;
		p = dir < 0 ? p - 1 : p + 1;
		if (r->ip[p] == ip)
			return p;
	}
}

static uint64_t rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void check_thread(struct rp_session *s, struct insn_decoder *dec,
			 uint32_t tid, const char *truth_path)
{
	struct rp_cursor *c;
	struct rp_insn insn;
	struct ref r = { 0 };
	struct sb_err err;
	uint64_t *ips, i, seed = 0x9e3779b97f4a7c15ull ^ tid;
	size_t n;
	int dir;

	if (sb_truth_load(truth_path, &ips, &n, &err)) {
		printf("thread %u: %s\n", tid, err.msg);
		failures++;
		return;
	}
	r.ip = ips;
	r.n = n;
	r.kind = calloc(n + 1, 1);
	if (rp_cursor_new(s, tid, &c)) {
		CHECK(n == 0, "thread %u: no cursor but %zu instructions", tid,
		      n);
		goto out;
	}
	CHECK(rp_cursor_pos(c) == n - 1, "thread %u: cursor starts at %" PRIu64
	      ", history has %zu", tid, rp_cursor_pos(c), n);
	/* Every position, and the reference's call/return classes. */
	for (i = 0; i < n; i++) {
		struct insn in;

		if (rp_cursor_peek(c, i, &insn)) {
			CHECK(0, "thread %u: no instruction at %" PRIu64, tid, i);
			goto out;
		}
		CHECK(insn.ip == ips[i], "thread %u: position %" PRIu64
		      " is 0x%" PRIx64 ", recorded 0x%" PRIx64, tid, i,
		      insn.ip, ips[i]);
		if (!insn_decode(dec, insn.raw, insn.size, insn.ip, &in))
			r.kind[i] = in.cls == IC_CALL || in.cls == IC_CALL_IND ?
				    K_CALL : in.cls == IC_RET ? K_RET : K_OTHER;
	}
	/* Stepping back from the end visits the history in reverse. */
	for (i = n; i-- > 0;) {
		CHECK(rp_cursor_insn(c, &insn) == 0 && insn.ip == ips[i] &&
		      rp_cursor_pos(c) == i, "thread %u: reverse step at %"
		      PRIu64, tid, i);
		if (i)
			CHECK(rp_cursor_step(c, -1) == 0,
			      "thread %u: step back from %" PRIu64, tid, i);
	}
	CHECK(rp_cursor_step(c, -1) == -RP_ERR_RANGE && rp_cursor_pos(c) == 0,
	      "thread %u: stepping before the beginning", tid);
	CHECK(rp_cursor_goto(c, n) == -RP_ERR_RANGE,
	      "thread %u: goto past the end", tid);
	/* Sampled moves against the reference. */
	for (i = 0; i < SAMPLES; i++) {
		uint64_t pos = rnd(&seed) % (n + 1), want, bp, at;
		uint64_t calls[64];
		int nc, k;

		/* The frames around pos (n: the end): the reference's
		 * backward exits, one after the other.
		 */
		nc = rp_cursor_callers(c, pos, calls, 64);
		for (k = 0, at = pos; at && k < 64; k++, at = want) {
			want = ref_exit(&r, at - 1, -1);
			if (want == UINT64_MAX)
				break;
			CHECK(k < nc && calls[k] == want, "thread %u: frame %d "
			      "around %" PRIu64 ": call at %" PRIu64
			      ", expected %" PRIu64, tid, k, pos,
			      k < nc ? calls[k] : UINT64_MAX, want);
		}
		CHECK(nc == k, "thread %u: %d frames around %" PRIu64
		      ", expected %d", tid, nc, pos, k);
		if (pos == n)
			continue;

		for (dir = -1; dir <= 1; dir += 2) {
			rp_cursor_goto(c, pos);
			rp_cursor_finish(c, dir);
			want = ref_finish(&r, pos, dir);
			CHECK(rp_cursor_pos(c) == want, "thread %u: finish %+d from %"
			      PRIu64 " went to %" PRIu64 ", expected %" PRIu64,
			      tid, dir, pos, rp_cursor_pos(c), want);
			rp_cursor_goto(c, pos);
			rp_cursor_next(c, dir);
			want = ref_next(&r, pos, dir);
			CHECK(rp_cursor_pos(c) == want, "thread %u: next %+d from %"
			      PRIu64 " went to %" PRIu64 ", expected %" PRIu64,
			      tid, dir, pos, rp_cursor_pos(c), want);
			bp = ips[rnd(&seed) % n];
			rp_cursor_goto(c, pos);
			rp_cursor_search(c, dir, &bp, 1);
			want = ref_search(&r, pos, dir, bp);
			CHECK(rp_cursor_pos(c) == want, "thread %u: search %+d for 0x%"
			      PRIx64 " from %" PRIu64 " went to %" PRIu64
			      ", expected %" PRIu64, tid, dir, bp, pos,
			      rp_cursor_pos(c), want);
		}
	}
	printf("thread %u: %zu positions, reverse walk, %d sampled finish/next/search moves and call stacks: %s\n",
	       tid, n, SAMPLES * 6, failures ? "FAILED" : "ok");
out:
	rp_cursor_free(c);
	free(r.kind);
	free(ips);
}

/*
 * rp_search_threads() against brute force: every instruction of every
 * thread, ordered by (timestamp, thread) and, in the starting thread, by
 * position.
 */
static void check_threads_search(struct rp_session *s)
{
	size_t nt = rp_thread_count(s), i, j;
	uint64_t seed = 0x2545f4914f6cdd1dull, *len;
	struct rp_cursor **c;
	int k, dir;

	c = calloc(nt, sizeof(*c));
	len = calloc(nt, sizeof(*len));
	for (i = 0; i < nt; i++)
		if (!rp_cursor_new(s, rp_thread_tid(s, i), &c[i]))
			len[i] = rp_cursor_pos(c[i]) + 1;
	for (k = 0; k < 40; k++) {
		size_t ti = rnd(&seed) % nt, bt = SIZE_MAX;
		uint64_t pos, bp, bpos = 0, btsc = 0;
		struct rp_insn now, x;

		if (!len[ti])
			continue;
		pos = rnd(&seed) % len[ti];
		rp_cursor_peek(c[ti], pos, &now);
		/* A breakpoint at an address some thread executes. */
		j = rnd(&seed) % nt;
		if (!len[j])
			continue;
		rp_cursor_peek(c[j], rnd(&seed) % len[j], &x);
		bp = x.ip;
		for (dir = -1; dir <= 1; dir += 2) {
			uint32_t tid = rp_thread_tid(s, ti);
			uint64_t p = pos;
			int ret;

			bt = SIZE_MAX;
			for (i = 0; i < nt; i++) {
				uint64_t q;

				for (q = 0; q < len[i]; q++) {
					bool later, better;

					rp_cursor_peek(c[i], q, &x);
					if (x.ip != bp)
						continue;
					later = i == ti ? (dir > 0 ? q > pos : q < pos) :
						dir > 0 ? x.tsc > now.tsc ||
							  (x.tsc == now.tsc && i > ti) :
						x.tsc < now.tsc ||
						(x.tsc == now.tsc && i < ti);
					if (!later)
						continue;
					better = bt == SIZE_MAX ||
						 (dir > 0 ? x.tsc < btsc ||
						  (x.tsc == btsc && i < bt) :
						  x.tsc > btsc ||
						  (x.tsc == btsc && i >= bt));
					if (better) {
						bt = i;
						bpos = q;
						btsc = x.tsc;
					}
				}
			}
			ret = rp_search_threads(s, dir, &tid, &p, &bp, 1);
			if (bt == SIZE_MAX)
				CHECK(ret == -RP_ERR_NOTFOUND,
				      "search all threads %+d: found %u/%" PRIu64
				      ", expected nothing", dir, tid, p);
			else
				CHECK(!ret && tid == rp_thread_tid(s, bt) &&
				      p == bpos, "search all threads %+d from %u/%"
				      PRIu64 " for 0x%" PRIx64 ": got %u/%" PRIu64
				      ", expected %u/%" PRIu64, dir,
				      rp_thread_tid(s, ti), pos, bp, tid, p,
				      rp_thread_tid(s, bt), bpos);
		}
	}
	for (i = 0; i < nt; i++)
		rp_cursor_free(c[i]);
	free(c);
	free(len);
	printf("search across %zu threads in time order: %s\n", nt,
	       failures ? "FAILED" : "ok");
}

int main(int argc, char **argv)
{
	struct insn_decoder *dec;
	struct rp_session *s;
	char path[4096];
	size_t i;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: cursorcheck BUNDLE\n");
		return 2;
	}
	ret = rp_session_open(&s, argv[1]);
	if (ret) {
		printf("cursorcheck: %s: %s\n", rp_session_errmsg(s),
		       rp_errstr(ret));
		return 1;
	}
	if (insn_decoder_new(&dec))
		return 1;
	for (i = 0; i < rp_thread_count(s); i++) {
		uint32_t tid = rp_thread_tid(s, i);

		snprintf(path, sizeof(path), "%s/truth/%u.gt", argv[1], tid);
		check_thread(s, dec, tid, path);
	}
	check_threads_search(s);
	insn_decoder_free(dec);
	rp_session_close(s);
	return failures ? 1 : 0;
}
