// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the watchpoint scan (replay/watch.c) and of the
 * timeline's continue with watchpoints, on a recording of tests/gdb/
 * watchval (total = 1, then five times total = total * 3 + 1, with the
 * loop variable step a global too): the set's rules, every write of
 * total found either way and nothing else, reads of step for rwatch,
 * ranges, processes, and where the timeline stops (after an access going
 * forward, before it going back, a breakpoint at the accessing
 * instruction first).  GDB on real programs against the ground truth is
 * tests/gdb/watch.sh.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay/watchfix.h"

static void setup(void)
{
	watch_open(WATCH_BUNDLE);
}

TestSuite(watch, .init = setup, .fini = watch_close);

Test(watch, set_rules)
{
	cr_assert_eq(rp_watch_count(w), 0);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, 0x1000, 0),
		     -RP_ERR_INVAL);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, ~0ull, 2),
		     -RP_ERR_INVAL);
	cr_assert_eq(rp_watch_insert(w, 0, pid, 0x1000, 4), -RP_ERR_INVAL);
	cr_assert_eq(rp_watch_insert(w, 4, pid, 0x1000, 4), -RP_ERR_INVAL);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, 0x1000, 4), 0);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, 0x1000, 4), 0);
	cr_assert_eq(rp_watch_count(w), 1);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_READ, pid, 0x1000, 4), 0);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, 0x1000, 1 << 20),
		     0);
	cr_assert_eq(rp_watch_count(w), 3);
	cr_assert_eq(rp_watch_remove(w, RP_WATCH_ACCESS, pid, 0x1000, 4),
		     -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_watch_remove(w, RP_WATCH_READ, pid, 0x1000, 4), 0);
	cr_assert_eq(rp_watch_count(w), 2);
	cr_assert(rp_watch_get_unknown(w));
	rp_watch_set_unknown(w, false);
	cr_assert(!rp_watch_get_unknown(w));
	rp_watch_clear(w);
	cr_assert_eq(rp_watch_count(w), 0);
}

/* Every hit of a scan over the whole history, either way. */
static size_t all_hits(int dir, uint64_t *pos, size_t max)
{
	struct rp_watch_hit h;
	uint64_t lo = 0, hi = end;
	size_t n = 0;

	while (!rp_watch_scan(w, rc, pid, dir, lo, hi, &h)) {
		cr_assert(n < max, "more hits than writes");
		pos[n++] = h.pos;
		cr_assert(!h.maybe);
		if (dir < 0)
			hi = h.pos;
		else
			lo = h.pos + 1;
	}
	return n;
}

Test(watch, every_write_either_way)
{
	uint64_t back[16], fwd[16];
	struct rp_cursor *c;
	int32_t disp;
	struct rp_insn insn;
	size_t n, i;

	rp_watch_set_unknown(w, false);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL, 8),
		     0);
	n = all_hits(-1, back, 16);
	cr_assert_eq(n, 6, "total is written 6 times, found %zu", n);
	cr_assert_eq(all_hits(1, fwd, 16), 6);
	cr_assert_eq(rp_cursor_new(s, tid, &c), 0);
	for (i = 0; i < n; i++) {
		cr_assert_eq(fwd[i], back[n - 1 - i]);
		cr_assert(i == 0 || fwd[i] > fwd[i - 1]);
		/* A store to total: rip-relative with total's address. */
		cr_assert_eq(rp_cursor_peek(c, fwd[i], &insn), 0);
		memcpy(&disp, &insn.raw[3], 4);
		cr_assert_eq(insn.ip + insn.size + (uint64_t)(int64_t)disp,
			     WATCH_TOTAL, "position %lu", (unsigned long)fwd[i]);
	}
	rp_cursor_free(c);
	/* Its last byte alone, and a range around it: the same writes. */
	rp_watch_clear(w);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL + 7, 1);
	cr_assert_eq(all_hits(-1, back, 16), 6);
	rp_watch_clear(w);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL - 64, 72);
	cr_assert_geq(all_hits(-1, back, 16), 6);
	/* Just past it, another process: nothing. */
	rp_watch_clear(w);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL + 8, 0);
	rp_watch_insert(w, RP_WATCH_WRITE, pid + 1, WATCH_TOTAL, 8);
	cr_assert_eq(all_hits(-1, back, 16), 0);
}

/*
 * Windows of a few instructions (chained from the end, then windows on
 * their own): every position has its accesses, and the writes of total
 * are all found.  Regression: the instruction at a window's boundary
 * (its last state) was -RP_ERR_RANGE, and the scan skipped it.
 */
Test(watch, small_windows)
{
	static const uint64_t blocks[] = { 7, 100, 300 };
	struct rp_access acc[4];
	uint64_t pos[16], p;
	size_t b;

	rp_watch_set_unknown(w, false);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL, 8);
	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		rp_recover_set_block(rc, blocks[b]);
		for (p = 0; p < end; p++)
			cr_assert_geq(rp_recover_accesses(rc, p, acc, 4), 0,
				      "block %lu position %lu",
				      (unsigned long)blocks[b],
				      (unsigned long)p);
		for (p = end; p-- > 0;)
			cr_assert_geq(rp_recover_accesses(rc, p, acc, 4), 0,
				      "block %lu position %lu backward",
				      (unsigned long)blocks[b],
				      (unsigned long)p);
		cr_assert_eq(all_hits(-1, pos, 16), 6, "block %lu",
			     (unsigned long)blocks[b]);
		cr_assert_eq(all_hits(1, pos, 16), 6, "block %lu",
			     (unsigned long)blocks[b]);
	}
}

/*
 * The whole address space but the thread's rseq areas, which the kernel
 * may rewrite after any instruction of a software recording
 * (watch_kern.c, test_watch_kern.c): ranges of @type.
 */
static void watch_all(unsigned int type)
{
	struct rp_snapshot *sn = NULL;
	uint64_t a[8], lo = 1, addr;
	uint32_t len;
	size_t n = 0, i, j;
	bool complete;

	if (!rp_snapshot_open(&sn, WATCH_BUNDLE))
		for (i = 0; n < 8 && !rp_snapshot_proc_rseq(sn, pid, i, &addr,
							    &len, &complete);
		     i++)
			a[n++] = addr;
	rp_snapshot_close(sn);
	for (i = 1; i < n; i++)		/* sorted */
		for (j = i; j > 0 && a[j - 1] > a[j]; j--) {
			addr = a[j];
			a[j] = a[j - 1];
			a[j - 1] = addr;
		}
	for (i = 0; i < n; i++) {
		if (a[i] > lo)
			cr_assert_eq(rp_watch_insert(w, type, pid, lo,
						     a[i] - lo), 0);
		if (a[i] + 32 > lo)	/* what the kernel writes */
			lo = a[i] + 32;
	}
	cr_assert_eq(rp_watch_insert(w, type, pid, lo, ~0ull - lo), 0);
}

/*
 * The scan passes instructions whose decoding shows no access of a
 * watched kind without asking their addresses (rcv_access.c): with the
 * whole address space watched (but the rseq areas), it stops at exactly the positions where
 * rp_recover_accesses() names a write or, for rwatch, a read of any
 * address (unknown ones stop by default), either way, in the
 * windows chained from the end and in windows on their own.
 */
static void every_access(unsigned int type, uint64_t block)
{
	struct rp_access acc[4];
	struct rp_watch_hit h;
	uint64_t p, lo, hi, n = 0, ref = 0;
	int k, na;
	bool want;

	rp_recover_set_block(rc, block);
	rp_watch_clear(w);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_STOP);
	watch_all(type);
	for (lo = 0, hi = end; !rp_watch_scan(w, rc, pid, -1, lo, hi, &h);
	     hi = h.pos) {
		for (p = h.pos + 1; p < hi; p++) {
			na = rp_recover_accesses(rc, p, acc, 4);
			for (k = 0; k < na; k++)
				cr_assert(!(acc[k].kind == RP_ACC_WRITE &&
					    (type & RP_WATCH_WRITE)) &&
					  !(acc[k].kind == RP_ACC_READ &&
					    (type & RP_WATCH_READ)),
					  "type %u block %lu: position %lu "
					  "passed", type, (unsigned long)block,
					  (unsigned long)p);
		}
		n++;
	}
	for (p = 0; p < end; p++) {
		na = rp_recover_accesses(rc, p, acc, 4);
		for (k = 0, want = false; k < na; k++)
			want |= (acc[k].kind == RP_ACC_WRITE &&
				 (type & RP_WATCH_WRITE)) ||
				(acc[k].kind == RP_ACC_READ &&
				 (type & RP_WATCH_READ));
		if (want)
			ref++;
		if (!want)
			continue;
		cr_assert_eq(rp_watch_scan(w, rc, pid, 1, p, end, &h), 0);
		cr_assert_eq(h.pos, p, "type %u block %lu: forward from %lu "
			     "stops at %lu", type, (unsigned long)block,
			     (unsigned long)p, (unsigned long)h.pos);
	}
	cr_assert_eq(n, ref, "type %u block %lu: %lu stops backward, %lu "
		     "accesses", type, (unsigned long)block,
		     (unsigned long)n, (unsigned long)ref);
	cr_assert_gt(n, 10);
}

Test(watch, passes_only_what_cannot_access)
{
	every_access(RP_WATCH_WRITE, 0);
	every_access(RP_WATCH_READ, 0);
	every_access(RP_WATCH_ACCESS, 0);
	/* Windows of a 40th of the history: most of them far. */
	every_access(RP_WATCH_WRITE, end / 40 > 2 ? end / 40 : 2);
	every_access(RP_WATCH_ACCESS, end / 40 > 2 ? end / 40 : 2);
}

/*
 * Windows far from the end lie on a grid (recover.c): what a position's
 * accesses are does not depend on the questions asked before.  With
 * windows of a 40th of the history, every position of the far ones (past
 * the 16 chained from the end, which learn more as more are computed)
 * has the same accesses asked forward, backward and in a scattered order
 * from fresh contexts.  Centred windows failed this.
 */
static uint64_t blk;	/* the windows' size */

static void accesses_in_order(uint64_t p0, uint64_t step,
			      struct rp_access *out)
{
	struct rp_recover *r;
	uint64_t k, p;

	cr_assert_eq(rp_recover_new(s, tid, &r), 0);
	rp_recover_set_block(r, blk);
	for (k = 0; k < end; k++) {
		p = (p0 + k * step) % end;
		memset(&out[4 * p], 0, 4 * sizeof(*out));
		cr_assert_geq(rp_recover_accesses(r, p, &out[4 * p], 4), 0);
	}
	rp_recover_free(r);
}

static bool same(const struct rp_access *x, const struct rp_access *y)
{
	return x->kind == y->kind && x->addr_known == y->addr_known &&
	       x->syscall == y->syscall && x->addr == y->addr &&
	       x->size == y->size && x->lo == y->lo && x->hi == y->hi;
}

static uint64_t gcd(uint64_t x, uint64_t y)
{
	return y ? gcd(y, x % y) : x;
}

Test(watch, far_windows_do_not_depend_on_order)
{
	struct rp_access *a = calloc(4 * end, sizeof(*a));
	struct rp_access *b = calloc(4 * end, sizeof(*b));
	struct rp_access *c = calloc(4 * end, sizeof(*c));
	uint64_t p, step = 7919;

	cr_assert(a && b && c);
	blk = end / 40 > 2 ? end / 40 : 2;
	cr_assert_gt(end, 17 * blk + 1, "the history spans far windows");
	while (gcd(end, step) != 1)	/* visits every position */
		step++;
	accesses_in_order(0, 1, a);
	accesses_in_order(end - 1, end - 1, b);	/* backward */
	accesses_in_order(end / 3, step, c);
	for (p = 0; p < 4 * (end - 16 * blk - 1); p++) {
		cr_assert(same(&a[p], &b[p]),
			  "position %lu: forward and backward differ",
			  (unsigned long)(p / 4));
		cr_assert(same(&a[p], &c[p]),
			  "position %lu: forward and scattered differ",
			  (unsigned long)(p / 4));
	}
	free(a);
	free(b);
	free(c);
}

Test(watch, bounds_and_reads)
{
	struct rp_watch_hit h;
	uint64_t pos[16];

	rp_watch_set_unknown(w, false);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL, 8);
	cr_assert_eq(all_hits(1, pos, 16), 6);
	/* Strictly inside [lo, hi): the first write is not in (p, p]. */
	cr_assert_eq(rp_watch_scan(w, rc, pid, -1, pos[0] + 1, pos[1], &h),
		     -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_watch_scan(w, rc, pid, -1, pos[0], pos[1], &h), 0);
	cr_assert_eq(h.pos, pos[0]);
	cr_assert_eq(h.kind, RP_ACC_WRITE);
	cr_assert_eq(h.acc_addr, WATCH_TOTAL);
	cr_assert_eq(h.acc_size, 8);
	cr_assert_eq(rp_watch_scan(w, rc, pid, 1, pos[0], pos[0], &h),
		     -RP_ERR_NOTFOUND);
	/* rwatch on step: the loop's compare and increment read it. */
	rp_watch_clear(w);
	rp_watch_insert(w, RP_WATCH_READ, pid, WATCH_STEP, 4);
	cr_assert_eq(rp_watch_scan(w, rc, pid, 1, 0, end, &h), 0);
	cr_assert_eq(h.kind, RP_ACC_READ);
	cr_assert_eq(h.type, RP_WATCH_READ);
	cr_assert_eq(h.acc_addr, WATCH_STEP);
	/* A write watchpoint is not hit by the reads. */
	rp_watch_clear(w);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_STEP, 4);
	cr_assert_eq(rp_watch_scan(w, rc, pid, 1, 0, end, &h), 0);
	cr_assert_eq(h.kind, RP_ACC_WRITE);
}

/*
 * Loads of unknown address (issue #18) stop rwatch and awatch as stores
 * of unknown address stop watch: with watch-unknown stop, a forward scan
 * for reads of step stops exactly at each read rp_recover_accesses()
 * names that covers step or whose address is unknown; with stack, not at
 * an unknown one whose bounds (the stack, fs) keep it away from step;
 * with skip, only at known ones.  Each stop says what it was.
 */
static bool read_may_hit(const struct rp_access *a, enum rp_watch_unknown m)
{
	if (a->kind != RP_ACC_READ)
		return false;
	if (a->addr_known)
		return a->addr < WATCH_STEP + 4 && WATCH_STEP < a->addr + a->size;
	if (m == RP_WATCH_UNKNOWN_SKIP)
		return false;
	return m == RP_WATCH_UNKNOWN_STOP || a->hi <= a->lo ||
	       (a->lo < WATCH_STEP + 4 && WATCH_STEP < a->hi);
}

static uint64_t read_stops(unsigned int type, enum rp_watch_unknown m,
			   uint64_t *maybes, uint64_t *bounded_away)
{
	struct rp_access acc[4];
	struct rp_watch_hit h;
	uint64_t p, n = 0;
	int k, na, want;

	rp_watch_clear(w);
	rp_watch_set_unknown(w, m);
	cr_assert_eq(rp_watch_insert(w, type, pid, WATCH_STEP, 4), 0);
	*maybes = *bounded_away = 0;
	for (p = 0; p < end; p++) {
		na = rp_recover_accesses(rc, p, acc, 4);
		for (k = 0, want = 0; k < na; k++) {
			if (read_may_hit(&acc[k], m))
				want = want == 2 || acc[k].addr_known ? 2 : 1;
			else if (acc[k].kind == RP_ACC_READ &&
				 !acc[k].addr_known && acc[k].hi > acc[k].lo)
				(*bounded_away)++;
			/* awatch: writes too, unknown ones as above */
			if (type == RP_WATCH_ACCESS &&
			    acc[k].kind == RP_ACC_WRITE &&
			    (acc[k].addr_known ?
			     acc[k].addr < WATCH_STEP + 4 &&
			     WATCH_STEP < acc[k].addr + acc[k].size :
			     m == RP_WATCH_UNKNOWN_STOP ||
			     (m == RP_WATCH_UNKNOWN_STACK &&
			      (acc[k].hi <= acc[k].lo ||
			       (acc[k].lo < WATCH_STEP + 4 &&
				WATCH_STEP < acc[k].hi)))))
				want = want == 2 || acc[k].addr_known ? 2 : 1;
		}
		if (rp_watch_scan(w, rc, pid, 1, p, p + 1, &h) == 0) {
			cr_assert(want, "mode %d: stopped at %lu, no access",
				  (int)m, (unsigned long)p);
			cr_assert_eq(h.pos, p);
			cr_assert_eq(h.maybe, want == 1, "mode %d position %lu",
				     (int)m, (unsigned long)p);
			if (h.maybe && h.kind == RP_ACC_READ)
				(*maybes)++;
			n++;
		} else {
			cr_assert(!want, "mode %d: passed %lu", (int)m,
				  (unsigned long)p);
		}
	}
	return n;
}

Test(watch, unknown_loads)
{
	uint64_t stop, stack, skip, ms, mk, mp, b, b2;

	/* Strict values: "A callee's own stack" (docs/values.md) places
	 * every load of this history that the stack bounds.
	 */
	rp_recover_free(rc);
	rp_session_set_values_strict(s, true);
	cr_assert_eq(rp_recover_new(s, tid, &rc), 0);
	stop = read_stops(RP_WATCH_READ, RP_WATCH_UNKNOWN_STOP, &ms, &b);
	stack = read_stops(RP_WATCH_READ, RP_WATCH_UNKNOWN_STACK, &mk, &b2);
	skip = read_stops(RP_WATCH_READ, RP_WATCH_UNKNOWN_SKIP, &mp, &b);
	/* The loop's reads of step are known; a history has loads of
	 * unknown address, most of them bounded to the stack.
	 */
	cr_assert_geq(skip, 6);
	cr_assert_eq(mp, 0);
	cr_assert_gt(ms, 0, "no load of unknown address");
	cr_assert_gt(b2, 0, "no load bounded to the stack");
	cr_assert_lt(mk, ms);
	cr_assert(skip < stack && stack < stop, "%lu %lu %lu",
		  (unsigned long)skip, (unsigned long)stack,
		  (unsigned long)stop);
	read_stops(RP_WATCH_ACCESS, RP_WATCH_UNKNOWN_STACK, &mk, &b2);
	cr_assert_gt(mk, 0);
}

/*
 * What a store wrote (rp_recover_stored(), GDB's new value across
 * threads): at each of watchval's writes of total, the program's values
 * 1, 4, 13, 40, 121, 364, byte by byte from the middle too, the same as
 * the memory the engine implies after it; nothing for bytes it did not
 * store or for an instruction that stores nothing.
 */
Test(watch, stored_values)
{
	static const long want[] = { 1, 4, 13, 40, 121, 364 };
	uint64_t pos[16];
	uint8_t b[16], m[8];
	long v;
	size_t n, k;

	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL, 8);
	n = all_hits(1, pos, 16);
	cr_assert_eq(n, 6);
	for (k = 0; k < n; k++) {
		cr_assert_eq(rp_recover_stored(rc, pos[k], WATCH_TOTAL, &v, 8),
			     8, "write %zu", k);
		cr_assert_eq(v, want[k], "write %zu: %ld", k, v);
		cr_assert_eq(rp_recover_stored(rc, pos[k], WATCH_TOTAL + 3, b,
					       16), 5);
		cr_assert_eq(memcmp(b, (uint8_t *)&v + 3, 5), 0);
		cr_assert_eq(rp_recover_stored(rc, pos[k], WATCH_TOTAL + 8, b,
					       8), 0);
		cr_assert_eq(rp_recover_stored(rc, pos[k], WATCH_TOTAL - 1, b,
					       8), 0);
		if (rp_recover_mem(rc, pos[k] + 1, WATCH_TOTAL, m, 8) == 8)
			cr_assert_eq(memcmp(m, &v, 8), 0);
		/* Past the history: nothing. */
		cr_assert_eq(rp_recover_stored(rc, end, WATCH_TOTAL, b, 8), 0);
		/* The instruction before the store stores nothing there. */
		cr_assert_eq(rp_recover_stored(rc, pos[k] - 1, WATCH_TOTAL, b,
					       8), 0);
	}
}

Test(watch, timeline_stops)
{
	struct rp_timeline *tl;
	struct rp_watch_hit h;
	uint64_t pos[16];
	struct rp_insn insn;
	size_t n;

	rp_watch_set_unknown(w, false);
	rp_watch_insert(w, RP_WATCH_WRITE, pid, WATCH_TOTAL, 8);
	n = all_hits(1, pos, 16);
	cr_assert_eq(rp_timeline_new(s, &tl), 0);
	rp_timeline_watch_unknown(tl, false);
	cr_assert(!rp_timeline_watch_unknown_get(tl));
	cr_assert_eq(rp_timeline_watch_insert(tl, RP_WATCH_WRITE, WATCH_TOTAL,
					      8), 0);
	/* Back from the end: before the last write, then the one before. */
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[n - 1]);
	cr_assert_eq(rp_timeline_watch_hit(tl, &h), 0);
	cr_assert_eq(h.pos, pos[n - 1]);
	cr_assert_eq(h.tid, tid);
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[n - 2]);
	/* Forward: after the write it stood before. */
	cr_assert_eq(rp_timeline_continue(tl, 1, false), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[n - 2] + 1);
	/* A step back over the write reports it, as hardware does after
	 * a single step; the next step forgets it.
	 */
	cr_assert_eq(rp_timeline_step(tl, -1), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_watch_hit(tl, &h), 0);
	cr_assert_eq(h.pos, pos[n - 2]);
	cr_assert_eq(rp_timeline_step(tl, -1), RP_STOP_STEP);
	cr_assert_eq(rp_timeline_watch_hit(tl, &h), -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_timeline_step(tl, 1), RP_STOP_STEP);
	cr_assert_eq(rp_timeline_step(tl, 1), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[n - 2] + 1);
	/* A breakpoint at the writing instruction (the loop's store, one
	 * address for writes 1 to 5) stops first going forward (before
	 * it), then the watchpoint (after it); backward, the watchpoint.
	 */
	cr_assert_eq(rp_timeline_goto(tl, 0, pos[1] - 1), 0);
	cr_assert_eq(rp_cursor_peek(rp_timeline_cursor(tl, 0), pos[2], &insn),
		     0);
	cr_assert_eq(rp_timeline_break_insert(tl, insn.ip), 0);
	cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_BREAK);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[1]);
	cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[1] + 1);
	cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_BREAK);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[2]);
	cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[2] + 1);
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[2]);
	/* Removed: to the edges. */
	rp_timeline_break_remove(tl, insn.ip);
	cr_assert_eq(rp_timeline_watch_remove(tl, RP_WATCH_WRITE, WATCH_TOTAL,
					      8), 0);
	cr_assert_eq(rp_timeline_watch_remove(tl, RP_WATCH_WRITE, WATCH_TOTAL,
					      8), -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_BEGIN);
	/* Before the first write, forward: the first write. */
	rp_timeline_watch_insert(tl, RP_WATCH_WRITE, WATCH_TOTAL, 8);
	cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_WATCH);
	cr_assert_eq(rp_timeline_pos(tl, 0), pos[0] + 1);
	rp_timeline_free(tl);
}
