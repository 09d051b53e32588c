// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the partial string instruction at a history's end for
 * the watch scan (replay/watch_rep.c), on recordings of tests/gdb/
 * watchrep: rep movsb that faults after 100 of 256 iterations, and std;
 * rep stosb that faults after 60 of 200.  The bytes those iterations
 * stored are a known write after the history's last instruction, found
 * either way in every mode, with exactly their extent: not one byte
 * before or after (the program stores nothing else there).  And with
 * 32-bit addresses (watchrep a32: addr32 rep stosb, rdi's upper half
 * set, the CPU stores through edi): an access of unknown extent, never
 * one at rdi, a possible hit where the watched bytes were stored.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay/watchfix.h"

TestSuite(watch_rep, .fini = watch_close);

static const enum rp_watch_unknown modes[] = {
	RP_WATCH_UNKNOWN_STOP, RP_WATCH_UNKNOWN_STACK, RP_WATCH_UNKNOWN_SKIP,
};

/* Watching @len bytes at @a: the rep's write, [@lo, @lo + @n), either
 * way in every mode.
 */
static void expect_rep(uint64_t a, uint64_t len, uint64_t lo, uint64_t n)
{
	struct rp_watch_hit hit;
	size_t m;
	int dir;

	rp_watch_clear(w);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, a, len), 0);
	for (m = 0; m < 3; m++) {
		rp_watch_set_unknown(w, modes[m]);
		for (dir = -1; dir <= 1; dir += 2) {
			if (dir > 0 && modes[m] != RP_WATCH_UNKNOWN_SKIP)
				continue;	/* older unknown stores first */
			cr_assert_eq(rp_watch_scan(w, rc, pid, dir, 0, end,
						   &hit), 0,
				     "0x%lx mode %zu dir %d",
				     (unsigned long)a, m, dir);
			cr_assert_eq(hit.pos, end - 1, "pos %lu of %lu",
				     (unsigned long)hit.pos,
				     (unsigned long)end);
			cr_assert(!hit.maybe);
			cr_assert_eq(hit.kind, RP_ACC_WRITE);
			cr_assert_eq(hit.acc_addr, lo, "at 0x%lx, want 0x%lx",
				     (unsigned long)hit.acc_addr,
				     (unsigned long)lo);
			cr_assert_eq(hit.acc_size, n, "%lu bytes, want %lu",
				     (unsigned long)hit.acc_size,
				     (unsigned long)n);
		}
	}
}

/* Watching the byte at @a, which the rep did not store: no stop at the
 * end with skip (the program never stores it).
 */
static void expect_none(uint64_t a)
{
	struct rp_watch_hit hit;
	int ret;

	rp_watch_clear(w);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, a, 1), 0);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	ret = rp_watch_scan(w, rc, pid, -1, 0, end, &hit);
	cr_assert(ret == -RP_ERR_NOTFOUND || hit.pos != end - 1,
		  "0x%lx: a stop at the end", (unsigned long)a);
}

Test(watch_rep, forward_movsb_after_100_of_256)
{
	watch_open(REP_BUNDLE);
	expect_rep(REP_AREA + 3996, 8, REP_AREA + 3996, 100);
	expect_rep(REP_AREA + 4095, 1, REP_AREA + 3996, 100);
	expect_rep(REP_AREA + 3990, 8, REP_AREA + 3996, 100);
	expect_none(REP_AREA + 3995);
	expect_none(REP_AREA + 4096);
}

Test(watch_rep, backward_stosb_after_60_of_200)
{
	watch_open(REPB_BUNDLE);
	expect_rep(REP_AREA2 + 4096, 1, REP_AREA2 + 4096, 60);
	expect_rep(REP_AREA2 + 4155, 4, REP_AREA2 + 4096, 60);
	expect_none(REP_AREA2 + 4156);
	expect_none(REP_AREA2 + 4095);
}

/* The position of the last addr32 rep stosb (67 f3 aa) before @hi. */
static uint64_t a32_pos(uint64_t hi)
{
	static const uint8_t op[3] = { 0x67, 0xf3, 0xaa };
	struct rp_cursor *c;
	struct rp_insn insn;
	uint64_t p;

	cr_assert_eq(rp_cursor_new(s, tid, &c), 0);
	for (p = hi; p-- > 0;) {
		cr_assert_eq(rp_cursor_peek(c, p, &insn), 0);
		if (insn.size == 3 && !memcmp(insn.raw, op, 3))
			break;
	}
	rp_cursor_free(c);
	cr_assert_lt(p, hi, "no addr32 rep stosb before %lu",
		     (unsigned long)hi);
	return p;
}

/* Watching @len bytes at @a, backwards over [0, @hi) in stop and stack
 * mode: a possible write at @pos, or a known one over them.
 */
static void expect_a32(uint64_t a, uint64_t len, uint64_t hi, uint64_t pos)
{
	struct rp_watch_hit hit;
	size_t m;

	rp_watch_clear(w);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, a, len), 0);
	for (m = 0; m < 2; m++) {
		rp_watch_set_unknown(w, modes[m]);
		cr_assert_eq(rp_watch_scan(w, rc, pid, -1, 0, hi, &hit), 0,
			     "0x%lx mode %zu", (unsigned long)a, m);
		cr_assert_eq(hit.pos, pos, "0x%lx mode %zu: pos %lu, want %lu",
			     (unsigned long)a, m, (unsigned long)hit.pos,
			     (unsigned long)pos);
		cr_assert_eq(hit.kind, RP_ACC_WRITE);
		cr_assert(hit.maybe || (hit.acc_addr <= a &&
					hit.acc_addr + hit.acc_size >= a + len),
			  "0x%lx mode %zu: a known write at 0x%lx, %lu bytes",
			  (unsigned long)a, m, (unsigned long)hit.acc_addr,
			  (unsigned long)hit.acc_size);
	}
}

Test(watch_rep, a32_stosb_whole_and_partial)
{
	uint64_t first;

	watch_open(REPA_BUNDLE);
	/* the partial one retires no instruction: the first is the last */
	first = a32_pos(end);
	cr_assert_lt(first, end - 1);
	/* the one that ran whole: area3 + 100, 64 bytes, not at rdi */
	expect_a32(REP_AREA3 + 100, 8, end - 1, first);
	expect_a32(REP_AREA3 + 163, 1, end - 1, first);
	/* the one the history ends inside: unknown extent */
	expect_a32(REP_AREA3 + 4096 - 40, 8, end, end - 1);
	expect_none(REP_AREA3 + 4096 - 40);
}
