// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * valwin BUNDLE digest K [fwd] | stop POS...: the recovery engine's windows
 * (#17's p99 work, docs/values.md "Latency") measured and pinned down.
 *
 * digest K: every register's known bits and value (rp_recover_reg_bits)
 * and the 8 bytes at rsp where rsp is known (rp_recover_mem), at every
 * position of the last K windows of every thread, asked from the end
 * backward (fwd: from the oldest forward), hashed into one digest, with
 * the number of bits known.  A change that only makes the engine faster
 * must leave the digest as it was: the same values known, not one more,
 * not one less.
 *
 * stop POS...: rp_recover_regs() at each position (the end minus POS)
 * of the first thread, for callgrind (--toggle-collect=rp_recover_regs):
 * the instructions a GDB stop with values spends in the windows.
 *
 * ramp BLOCK POS once|steps: in windows of BLOCK instructions, a question
 * at position POS (in the ramp: it begins it), then either one at the
 * end's (which computes the rest of the ramp and the whole chain at once)
 * or rp_recover_prefetch() until it has nothing left, printing the steps
 * and the most windows one step computed; then the digest of every
 * position of the first thread.  The two must know the same (the
 * prefetch computes what a question would, one window a step).
 *
 * near BLOCK POS [fresh-]back|fwd|back-all|back-none: in windows of BLOCK instructions, a stop at
 * POS (its registers asked) after one just after it (back: a walk back,
 * rp_recover_stop()) or just before it (fwd); one rp_recover_prefetch()
 * step; then the registers at every position of the window next to POS
 * that way, asked: "near prefetch windows A asked windows B" (B must be
 * 0: the prefetch had computed it), and their digest, which must be the
 * one a fresh engine asking them alone prints (`near BLOCK POS
 * fresh-back|fresh-fwd`: no stop, no prefetch).  back-all: the prefetch
 * until it has nothing left, "near prefetch steps N most windows a step
 * M asked windows B", then the digest of every position, which must be
 * back-none's (the same questions, no prefetch); -fact after either:
 * a fact at POS assumed after the prefetch.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static uint64_t fnv(uint64_t h, uint64_t x)
{
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (x >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int digest(struct rp_session *s, uint64_t k, bool fwd)
{
	uint64_t h = 0xcbf29ce484222325ull, bits = 0, pos, end, lo, v, m;
	struct rp_recover *rc;
	unsigned int g, t;
	uint8_t word[8];
	size_t got;
	/* VALWIN_DUMP: every known value too, one line each, to compare
	 * two engines position by position where the digests differ.
	 */
	bool dump = getenv("VALWIN_DUMP") != NULL;
	/* VALWIN_BLOCK=N: windows of N instructions (chains and ramps on
	 * short histories); VALWIN_MEM=N: N more bytes above the word at
	 * rsp, 8 at a time (tests/values/samecheck.sh).
	 */
	uint64_t block = getenv("VALWIN_BLOCK") ?
		strtoull(getenv("VALWIN_BLOCK"), NULL, 0) : 0;
	uint64_t extra = getenv("VALWIN_MEM") ?
		strtoull(getenv("VALWIN_MEM"), NULL, 0) / 8 : 0, w;

	for (t = 0; t < rp_thread_count(s); t++) {
		uint32_t tid = rp_thread_tid(s, t);

		if (rp_thread_end(s, tid, &end, NULL) || !end)
			continue;
		if (rp_recover_new(s, tid, &rc)) {
			fprintf(stderr, "valwin: thread %u: no recovery\n",
				tid);
			return 2;
		}
		if (block)
			rp_recover_set_block(rc, block);
		lo = end > k * (block ? block : 16384) ?
			end - k * (block ? block : 16384) : 0;
		for (pos = fwd ? lo : end - 1; pos >= lo && pos < end;
		     pos += fwd ? 1 : -1) {
			for (g = 0; g <= RP_REG_EFLAGS; g++) {
				if (g == RP_REG_RIP)
					continue;
				if (rp_recover_reg_bits(rc, pos, g, &v, &m))
					m = v = 0;
				h = fnv(fnv(h, v), m);
				bits += (uint64_t)__builtin_popcountll(m);
				if (dump && m)
					printf("%u %" PRIu64 " r%u %" PRIx64
					       " %" PRIx64 "\n", tid, pos, g,
					       v & m, m);
			}
			if (!rp_recover_reg_bits(rc, pos, RP_REG_RSP, &v, &m) &&
			    m == ~0ull) {
				memset(word, 0, sizeof(word));
				got = rp_recover_mem(rc, pos, v, word, 8);
				/* The bytes after the known ones are not
				 * the engine's answer: not hashed.
				 */
				memset(word + got, 0, 8 - got);
				memcpy(&v, word, 8);
				h = fnv(fnv(h, got), v);
				bits += 8 * got;
				if (dump && got)
					printf("%u %" PRIu64 " m %zu %" PRIx64
					       "\n", tid, pos, got, v);
			}
			for (w = 1; w <= extra; w++) {
				if (rp_recover_reg_bits(rc, pos, RP_REG_RSP,
							&v, &m) || m != ~0ull)
					break;
				memset(word, 0, sizeof(word));
				got = rp_recover_mem(rc, pos, v + 8 * w, word,
						     8);
				memset(word + got, 0, 8 - got);
				memcpy(&v, word, 8);
				h = fnv(fnv(h, got), v);
				bits += 8 * got;
				if (dump && got)
					printf("%u %" PRIu64 " m+%" PRIu64
					       " %zu %" PRIx64 "\n", tid, pos,
					       8 * w, got, v);
			}
		}
		rp_recover_free(rc);
	}
	printf("digest %016" PRIx64 " known bits %" PRIu64 "\n", h, bits);
	return 0;
}

/* The digest of the registers at every position @rc knows, as digest(). */
static void digest_all(struct rp_recover *rc, uint64_t end)
{
	uint64_t h = 0xcbf29ce484222325ull, bits = 0, pos, v, m;
	unsigned int g;

	for (pos = 0; pos < end; pos++)
		for (g = 0; g <= RP_REG_EFLAGS; g++) {
			if (g == RP_REG_RIP)
				continue;
			if (rp_recover_reg_bits(rc, pos, g, &v, &m))
				m = v = 0;
			h = fnv(fnv(h, v), m);
			bits += (uint64_t)__builtin_popcountll(m);
		}
	printf("digest %016" PRIx64 " known bits %" PRIu64 "\n", h, bits);
}

static int ramp(struct rp_session *s, uint64_t block, uint64_t pos,
		bool steps)
{
	uint32_t tid = rp_thread_tid(s, 0);
	struct rp_recover_stats st;
	uint64_t end, before, most = 0, n = 0;
	struct rp_recover *rc;
	struct rp_regs r;
	int pf;

	if (rp_thread_end(s, tid, &end, NULL) || end < 2 || pos >= end ||
	    rp_recover_new(s, tid, &rc)) {
		fprintf(stderr, "valwin: no history\n");
		return 2;
	}
	rp_recover_set_block(rc, block);
	rp_recover_regs(rc, pos, &r);
	if (!steps)
		rp_recover_regs(rc, end - 1, &r);
	for (;;) {
		rp_recover_stats(rc, &st);
		before = st.windows;
		pf = rp_recover_prefetch(rc);
		if (pf != 1)
			break;
		rp_recover_stats(rc, &st);
		n++;
		if (st.windows - before > most)
			most = st.windows - before;
	}
	if (pf < 0) {
		fprintf(stderr, "valwin: prefetch: %s\n", rp_errstr(pf));
		rp_recover_free(rc);
		return 1;
	}
	printf("prefetch steps %" PRIu64 " most windows a step %" PRIu64
	       "\n", n, most);
	digest_all(rc, end);
	rp_recover_free(rc);
	return 0;
}

/* The digest of the registers at positions [@lo, @hi) of @rc. */
static void digest_span(struct rp_recover *rc, uint64_t lo, uint64_t hi)
{
	uint64_t h = 0xcbf29ce484222325ull, bits = 0, pos, v, m;
	unsigned int g;

	for (pos = lo; pos < hi; pos++)
		for (g = 0; g <= RP_REG_EFLAGS; g++) {
			if (g == RP_REG_RIP)
				continue;
			if (rp_recover_reg_bits(rc, pos, g, &v, &m))
				m = v = 0;
			h = fnv(fnv(h, v), m);
			bits += (uint64_t)__builtin_popcountll(m);
		}
	printf("digest %016" PRIx64 " known bits %" PRIu64 "\n", h, bits);
}

static int near(struct rp_session *s, uint64_t block, uint64_t pos,
		const char *how)
{
	uint32_t tid = rp_thread_tid(s, 0);
	struct rp_recover_stats st;
	uint64_t end, k, lo, hi, w0 = 0, w1 = 0, w2;
	struct rp_recover *rc;
	struct rp_regs r;
	bool fresh = !strncmp(how, "fresh-", 6);
	bool back = !strncmp(how + (fresh ? 6 : 0), "back", 4);
	bool all = strstr(how, "-all") != NULL;
	bool none = strstr(how, "-none") != NULL;
	bool fact = strstr(how, "-fact") != NULL;
	uint64_t steps = 0, most = 0, b;
	int pf = 0;

	if (rp_thread_end(s, tid, &end, NULL) || end < 2 || pos >= end ||
	    rp_recover_new(s, tid, &rc)) {
		fprintf(stderr, "valwin: no history\n");
		return 2;
	}
	rp_recover_set_block(rc, block);
	/* The window next to @pos's on the grid counted from the end. */
	k = (end - pos) / block;
	k = back ? k + 1 : k - 1;
	hi = end - k * block;
	lo = hi > block ? hi - block : 0;
	if (!fresh) {
		rp_recover_stop(rc, back ? pos + 1 : pos - 1);
		rp_recover_regs(rc, pos, &r);
		rp_recover_stop(rc, pos);
		rp_recover_stats(rc, &st);
		w0 = st.windows;
		do {
			if (none)
				break;
			b = st.windows;
			pf = rp_recover_prefetch(rc);
			rp_recover_stats(rc, &st);
			steps += pf == 1;
			if (st.windows - b > most)
				most = st.windows - b;
		} while (all && pf == 1);
		w1 = st.windows;
	}
	/* -fact: a fact at the stop (a register not known there, a value
	 * of ours: the two runs compared assume the same), after the
	 * prefetch: outside the ramp, it leaves what was computed aside.
	 */
	for (b = 0; fact && b < 16; b++) {
		struct rp_fact f = { pos, (unsigned int)b, 0x5eed };
		uint64_t v, m;

		if (b == RP_REG_RSP || rp_recover_reg_bits(rc, pos, b, &v, &m) ||
		    m)
			continue;
		printf("near fact r%u: %d\n", (unsigned int)b,
		       rp_recover_assume(rc, &f, 1));
		rp_recover_stats(rc, &st);
		w1 = st.windows;
		break;
	}
	/* Its first position is the window before's last: not asked. */
	digest_span(rc, lo + 1, hi);
	rp_recover_stats(rc, &st);
	w2 = st.windows;
	if (all)
		printf("near prefetch steps %" PRIu64 " most windows a step %"
		       PRIu64 " asked windows %" PRIu64 "\n", steps, most,
		       w2 - w1);
	else
		printf("near prefetch %d windows %" PRIu64 " asked windows %"
		       PRIu64 "\n", pf, w1 - w0, fresh ? w2 : w2 - w1);
	/* And every position: what the windows asked teach the chain. */
	if (all || none)
		digest_all(rc, end);
	rp_recover_free(rc);
	return pf < 0;
}

int main(int argc, char **argv)
{
	struct rp_session *s;
	struct rp_recover *rc;
	struct rp_recover_stats st;
	struct rp_regs r;
	uint64_t end;
	uint32_t tid;
	int i, ret = 0;

	if (argc < 4 ||
	    (strcmp(argv[2], "digest") && strcmp(argv[2], "stop") &&
	     strcmp(argv[2], "ramp") && strcmp(argv[2], "near")) ||
	    (!strcmp(argv[2], "ramp") && argc != 6) ||
	    (!strcmp(argv[2], "near") && argc != 6)) {
		fprintf(stderr, "usage: valwin BUNDLE digest K [fwd] | "
			"stop POS... | ramp BLOCK POS once|steps | "
			"near BLOCK POS [fresh-]back|fwd|back-all|back-none\n");
		return 2;
	}
	if (rp_session_open(&s, argv[1]) || !rp_thread_count(s)) {
		fprintf(stderr, "valwin: %s: cannot open\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[2], "digest")) {
		ret = digest(s, strtoull(argv[3], NULL, 0),
			     argc > 4 && !strcmp(argv[4], "fwd"));
		rp_session_close(s);
		return ret;
	}
	if (!strcmp(argv[2], "ramp")) {
		ret = ramp(s, strtoull(argv[3], NULL, 0),
			   strtoull(argv[4], NULL, 0),
			   !strcmp(argv[5], "steps"));
		rp_session_close(s);
		return ret;
	}
	if (!strcmp(argv[2], "near")) {
		ret = near(s, strtoull(argv[3], NULL, 0),
			   strtoull(argv[4], NULL, 0), argv[5]);
		rp_session_close(s);
		return ret;
	}
	tid = rp_thread_tid(s, 0);
	if (rp_thread_end(s, tid, &end, NULL) || rp_recover_new(s, tid, &rc)) {
		fprintf(stderr, "valwin: %s: no history\n", argv[1]);
		return 2;
	}
	for (i = 3; i < argc; i++) {
		uint64_t back = strtoull(argv[i], NULL, 0);

		if (back > end || rp_recover_regs(rc, end - back, &r)) {
			fprintf(stderr, "valwin: %s: no registers\n", argv[i]);
			ret = 1;
		}
	}
	rp_recover_stats(rc, &st);
	fprintf(stderr, "valwin: %" PRIu64 " windows, %" PRIu64
		" instructions, %" PRIu64 " passes, %" PRIu64 " conflicts\n",
		st.windows, st.insns, st.passes, st.conflicts);
	rp_recover_free(rc);
	rp_session_close(s);
	return ret;
}
