// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/watch_chain.c, the proofs chained from the end of
 * a recording and the watchpoint scan that passes windows on them: on
 * recordings of tests/gdb/watchval and of tests/bench/gdbloop, scans
 * with watch-unknown skip stop exactly where the engine's own scan does
 * (rp_recover_scan(), before the proofs) in windows of 50 to 16,384
 * instructions, over stack words, the globals and words nothing touches;
 * with stop, every stop is the engine's and those left out are "may
 * have" stops; a word nothing touches costs no engine window on gdbloop;
 * far windows' secret accesses (watch_dep.c's dependency analysis) are
 * unknown to the engine on gdbloop, watchquiet, watchval and
 * tests/programs/loops, and deep skip scans stop where the engine's do.
 * The proofs against the ground truth: tests/gdb/watchtruth --check.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_proof.h"

static struct rp_session *s;
static struct rp_recover *rc;
static struct rp_watch *wt;
static uint32_t tid, pid;
static uint64_t end;

static void rec_setup(void)
{
	struct rp_thread_info info;

	cr_assert_eq(rp_session_open(&s, WATCH_BUNDLE), 0);
	tid = rp_thread_tid(s, 0);
	cr_assert_eq(rp_thread_info(s, tid, &info), 0);
	pid = info.pid;
	cr_assert_eq(rp_thread_end(s, tid, &end, NULL), 0);
	cr_assert_eq(rp_watch_new(&wt), 0);
	rp_watch_set_unknown(wt, RP_WATCH_UNKNOWN_SKIP);
}

static void rec_teardown(void)
{
	rp_watch_free(wt);
	rp_recover_free(rc);
	rp_session_close(s);
}

TestSuite(watch_chain, .init = rec_setup, .fini = rec_teardown);

struct ref_arg {
	unsigned int type;
	uint64_t lo, len;
};

/* The scan before the proofs: a known access to the range stops it. */
static int ref_one(void *arg, const struct rp_access *acc, int n)
{
	const struct ref_arg *a = arg;
	int k;

	for (k = 0; k < n; k++) {
		unsigned int need = acc[k].kind == RP_ACC_WRITE ?
				    RP_WATCH_WRITE : RP_WATCH_READ;

		if ((a->type & need) && acc[k].addr_known &&
		    acc[k].addr < a->lo + a->len &&
		    a->lo < acc[k].addr + acc[k].size)
			return 1;
	}
	return 0;
}

/* The stop says what the engine's first known access there says. */
static void same_hit(struct rp_recover *ref, const struct ref_arg *a,
		     const struct rp_watch_hit *h)
{
	struct rp_access acc[4];
	int k, n = rp_recover_accesses(ref, h->pos, acc, 4);

	for (k = 0; k < n; k++) {
		unsigned int need = acc[k].kind == RP_ACC_WRITE ?
				    RP_WATCH_WRITE : RP_WATCH_READ;

		if ((a->type & need) && acc[k].addr_known &&
		    acc[k].addr < a->lo + a->len &&
		    a->lo < acc[k].addr + acc[k].size)
			break;
	}
	cr_assert_lt(k, n);
	cr_assert(!h->maybe);
	cr_assert_eq(h->kind, acc[k].kind, "position %lu",
		     (unsigned long)h->pos);
	cr_assert_eq(h->acc_addr, acc[k].addr);
	cr_assert_eq(h->acc_size, acc[k].size);
	cr_assert_eq(h->addr, a->lo);
	cr_assert_eq(h->len, a->len);
}

/*
 * Skip scans of [lo, lo + len) from the end back and from the start on
 * stop exactly where the engine's own scan (rp_recover_scan(), the scan
 * before the proofs, in a context of its own) does, saying what it does
 * (a hit a proof finds at a rip-relative or absolute address, without
 * the engine, too).  Returns the number of stops backward.
 */
static size_t same_as_engine(const char *dir, uint64_t block,
			     unsigned int type, uint64_t lo, uint64_t len)
{
	struct ref_arg ra = { type, lo, len };
	unsigned int kinds = (type & RP_WATCH_WRITE ? RP_ACC_WRITE : 0) |
			     (type & RP_WATCH_READ ? RP_ACC_READ : 0);
	struct rp_session *ss;
	struct rp_recover *ref;
	struct rp_watch_hit h;
	uint64_t hi, q, e;
	size_t n = 0;
	int d;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	rp_watch_clear(wt);
	cr_assert_eq(rp_watch_insert(wt, type, pid, lo, len), 0);
	for (d = -1; d <= 1; d += 2) {
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
		rp_recover_set_block(rc, block);
		rp_recover_set_block(ref, block);
		for (hi = d < 0 ? e : 0;;) {
			int ret = d < 0 ?
				  rp_watch_scan(wt, rc, pid, -1, 0, hi, &h) :
				  rp_watch_scan(wt, rc, pid, 1, hi, e, &h);
			int r2;

			q = d < 0 ? hi - 1 : hi;
			r2 = hi == (d < 0 ? 0 : e) ? -RP_ERR_NOTFOUND :
			     rp_recover_scan(ref, &q, d, d < 0 ? 0 : hi,
					     d < 0 ? hi : e, kinds, ref_one,
					     &ra);
			cr_assert_eq(ret, r2, "%s block %lu [%#lx, +%lu) dir "
				     "%d from %lu: %d, engine %d", dir,
				     (unsigned long)block, (unsigned long)lo,
				     (unsigned long)len, d, (unsigned long)hi,
				     ret, r2);
			if (ret)
				break;
			cr_assert_eq(h.pos, q, "%s block %lu [%#lx, +%lu): "
				     "stop at %lu, engine %lu", dir,
				     (unsigned long)block, (unsigned long)lo,
				     (unsigned long)len, (unsigned long)h.pos,
				     (unsigned long)q);
			same_hit(ref, &ra, &h);
			n += d < 0;
			hi = d < 0 ? h.pos : h.pos + 1;
		}
		rp_recover_free(ref);
		rp_recover_free(rc);
		rc = NULL;
	}
	rp_session_close(ss);
	return n;
}

/* The scan before the proofs with watch-unknown stop: any access the
 * engine does not know stops it too.
 */
static int ref_stop(void *arg, const struct rp_access *acc, int n)
{
	const struct ref_arg *a = arg;
	int k;

	for (k = 0; k < n; k++) {
		unsigned int need = acc[k].kind == RP_ACC_WRITE ?
				    RP_WATCH_WRITE : RP_WATCH_READ;

		if ((a->type & need) && !acc[k].addr_known)
			return 1;
	}
	return ref_one(arg, acc, n);
}

/*
 * With watch-unknown stop, a backward scan of [lo, lo + len) stops where
 * the engine's own scan stops, but for stores (or loads) of unknown
 * address that a proof shows to miss: every stop of the scan is one of
 * the engine's, and those it leaves out are "may have" stops.  Returns
 * how many it left out.
 */
static size_t stop_subset(const char *dir, uint64_t block, unsigned int type,
			  uint64_t lo, uint64_t len, size_t *stops)
{
	struct ref_arg ra = { type, lo, len };
	unsigned int kinds = (type & RP_WATCH_WRITE ? RP_ACC_WRITE : 0) |
			     (type & RP_WATCH_READ ? RP_ACC_READ : 0);
	struct rp_access acc[4];
	struct rp_session *ss;
	struct rp_recover *ref;
	struct rp_watch_hit h;
	uint64_t e, q, hi, *old = NULL, *cur = NULL;
	size_t no = 0, nc = 0, i, j, out = 0;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
	rp_recover_set_block(rc, block);
	rp_recover_set_block(ref, block);
	rp_watch_clear(wt);
	rp_watch_set_unknown(wt, RP_WATCH_UNKNOWN_STOP);
	cr_assert_eq(rp_watch_insert(wt, type, pid, lo, len), 0);
	old = malloc((e + 1) * sizeof(*old));
	cur = malloc((e + 1) * sizeof(*cur));
	cr_assert(old && cur);
	for (hi = e; hi; hi = q) {
		q = hi - 1;
		if (rp_recover_scan(ref, &q, -1, 0, hi, kinds, ref_stop, &ra))
			break;
		old[no++] = q;
	}
	for (hi = e; hi && !rp_watch_scan(wt, rc, pid, -1, 0, hi, &h);
	     hi = h.pos)
		cur[nc++] = h.pos;
	/* Every stop is the engine's; the engine's others are "may have". */
	for (i = j = 0; i < no; i++) {
		if (j < nc && cur[j] == old[i]) {
			j++;
			continue;
		}
		cr_assert(j >= nc || cur[j] < old[i], "%s block %lu [%#lx, "
			  "+%lu): stop at %lu is not the engine's", dir,
			  (unsigned long)block, (unsigned long)lo,
			  (unsigned long)len, (unsigned long)cur[j]);
		ra.type = type;
		cr_assert_eq(ref_one(&ra, acc, rp_recover_accesses(ref, old[i],
							  acc, 4)), 0,
			     "%s block %lu: a known access at %lu left out",
			     dir, (unsigned long)block,
			     (unsigned long)old[i]);
		out++;
	}
	cr_assert_eq(j, nc, "%s block %lu: stops not the engine's", dir,
		     (unsigned long)block);
	*stops = nc;
	free(old);
	free(cur);
	rp_recover_free(ref);
	rp_recover_free(rc);
	rc = NULL;
	rp_watch_set_unknown(wt, RP_WATCH_UNKNOWN_SKIP);
	rp_session_close(ss);
	return out;
}

/*
 * With watch-unknown stop, stores of unknown address that a proof shows
 * to miss no longer stop the scan; all others still do, at the same
 * places, and so do the known ones.
 */
Test(watch_chain, stop_mode)
{
	struct rp_regs regs;
	size_t b, stops, out = 0, all = 0;
	uint64_t a;

	cr_assert_eq(rp_thread_end(s, tid, &end, &regs), 0);
	for (b = 0; b < 5; b++) {
		static const uint64_t bl[] = { 50, 128, 300, 1000, 0 };

		out += stop_subset(WATCH_BUNDLE, bl[b], RP_WATCH_WRITE,
				   WATCH_TOTAL, 8, &stops);
		all += stops;
		for (a = regs.val[RP_REG_RSP] - 64;
		     a < regs.val[RP_REG_RSP] + 64; a += 40) {
			out += stop_subset(WATCH_BUNDLE, bl[b],
					   RP_WATCH_ACCESS, a, 8, &stops);
			all += stops;
		}
	}
	cr_assert_gt(all, 0);
	cr_log_info("stop mode: %zu stops, %zu left out", all, out);
}

static const uint64_t blocks[] = { 50, 128, 300, 1000, 0 };

Test(watch_chain, stack_words)
{
	struct rp_regs regs;
	uint64_t rsp, a, total = 0;
	size_t b;

	cr_assert_eq(rp_thread_end(s, tid, &end, &regs), 0);
	cr_assert(regs.valid & (1ull << RP_REG_RSP));
	rsp = regs.val[RP_REG_RSP];
	/* Words below and above the stack pointer at the end: locals,
	 * saved registers, return addresses, written and read.
	 */
	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
		for (a = rsp - 256; a < rsp + 256; a += 24) {
			total += same_as_engine(WATCH_BUNDLE, blocks[b],
						RP_WATCH_WRITE, a, 8);
			total += same_as_engine(WATCH_BUNDLE, blocks[b],
						RP_WATCH_ACCESS, a, 8);
		}
	cr_assert_gt(total, 50, "stack stores and loads hit: %lu",
		     (unsigned long)total);
}

Test(watch_chain, globals)
{
	size_t b;

	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		cr_assert_eq(same_as_engine(WATCH_BUNDLE, blocks[b], RP_WATCH_WRITE,
					    WATCH_TOTAL, 8), 6);
		same_as_engine(WATCH_BUNDLE, blocks[b], RP_WATCH_READ, WATCH_STEP, 4);
	}
}

/*
 * On a loop of calls (tests/bench/gdbloop, -O0: every access relative to
 * the stack or a constant): scans of stack words and of sink stop where
 * the engine's do, and neither a scan of a word nothing touches nor one
 * to sink's last write computes any of the engine's windows.
 */
Test(watch_chain, loop)
{
	struct rp_session *ss;
	struct rp_thread_info info;
	struct rp_regs regs;
	struct rp_recover_stats st;
	struct rp_watch_hit h;
	uint64_t e, a, total = 0;
	size_t b;

	cr_assert_eq(rp_session_open(&ss, LOOP_BUNDLE), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, &regs), 0);
	cr_assert_eq(rp_thread_info(ss, rp_thread_tid(ss, 0), &info), 0);
	pid = info.pid;
	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		for (a = regs.val[RP_REG_RSP] - 64;
		     a < regs.val[RP_REG_RSP] + 64; a += 12)
			total += same_as_engine(LOOP_BUNDLE, blocks[b],
						RP_WATCH_ACCESS, a, 4);
		cr_assert_gt(same_as_engine(LOOP_BUNDLE, blocks[b],
					    RP_WATCH_WRITE, LOOP_SINK, 4), 100);
		cr_assert_eq(same_as_engine(LOOP_BUNDLE, blocks[b],
					    RP_WATCH_WRITE, LOOP_SINK + 64, 4),
			     0);
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
		rp_recover_set_block(rc, blocks[b]);
		cr_assert_eq(rp_watch_scan(wt, rc, pid, -1, 0, e, &h),
			     -RP_ERR_NOTFOUND);
		rp_recover_stats(rc, &st);
		cr_assert_eq(st.windows, 0, "block %lu: %lu windows computed",
			     (unsigned long)blocks[b],
			     (unsigned long)st.windows);
		/* sink's writes are rip-relative: found on proofs too. */
		rp_watch_clear(wt);
		cr_assert_eq(rp_watch_insert(wt, RP_WATCH_WRITE, pid,
					     LOOP_SINK, 4), 0);
		cr_assert_eq(rp_watch_scan(wt, rc, pid, -1, 0, e, &h), 0);
		cr_assert(!h.maybe && h.acc_addr == LOOP_SINK);
		rp_recover_stats(rc, &st);
		cr_assert_eq(st.windows, 0, "block %lu: %lu windows computed "
			     "for sink", (unsigned long)blocks[b],
			     (unsigned long)st.windows);
		rp_recover_free(rc);
		rc = NULL;
	}
	cr_assert_gt(total, 100, "stack words: %lu stops",
		     (unsigned long)total);
	rp_session_close(ss);
}

/*
 * A scan reads a window's instructions from libipt's blocks, each address
 * decoded once (rp_cursor_blocks()), not from the cursor: at every
 * position of both recordings, the same address, length, class and bytes
 * as the cursor gives, and the blocks give every position (no fallback
 * to the cursor on these undamaged streams), from any starting point.
 */
static void blocks_as_cursor(const char *dir)
{
	struct rp_session *ss;
	struct rp_recover *r;
	uint64_t e, served, from;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &r), 0);
	cr_assert_eq(wpf_blocks_check(r, 0, e, &served), 0);
	cr_assert_eq(served, e, "%s: the blocks gave %lu of %lu", dir,
		     (unsigned long)served, (unsigned long)e);
	/* Windows that start mid-segment and mid-block. */
	for (from = 1; from + 1000 < e; from += e / 7 + 13) {
		cr_assert_eq(wpf_blocks_check(r, from, from + 1000, &served),
			     0);
		cr_assert_eq(served, 1000);
	}
	rp_recover_free(r);
	rp_session_close(ss);
}

Test(watch_chain, blocks)
{
	blocks_as_cursor(WATCH_BUNDLE);
	blocks_as_cursor(LOOP_BUNDLE);
}

/*
 * Quiet windows (watch_chain.c, watch-unknown skip, windows computed on
 * their own beyond the ramp): where the proof says that every access of
 * an instruction is secret (relative to a base nothing in the window
 * shows), the engine, computing that window itself, knows none of them.
 * Returns how many positions were secret.
 */
static uint64_t secret_unknown(const char *dir, uint64_t block)
{
	struct rp_session *ss;
	struct rp_recover *r, *ref, *wr;
	struct rp_access acc[4];
	uint64_t e, p, n = 0;
	int k, na;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &r), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &wr), 0);
	rp_recover_set_block(r, block);
	rp_recover_set_block(ref, block);
	rp_recover_set_block(wr, block);
	for (p = 0; p < e; p++) {
		int q = wpf_quiet_secret(r, p, RP_ACC_READ | RP_ACC_WRITE);
		/* Stores alone: what write watchpoints use (secrets by what
		 * any shown value depends on, wdep_informed_any()).
		 */
		int qw = wpf_quiet_secret(wr, p, RP_ACC_WRITE);

		cr_assert_geq(q, 0);
		cr_assert_geq(qw, 0);
		na = qw == 1 ? rp_recover_accesses(ref, p, acc, 4) : 0;
		for (k = 0; k < na; k++)
			cr_assert(acc[k].kind != RP_ACC_WRITE ||
				  !acc[k].addr_known, "%s block %lu position "
				  "%lu: store secret, the engine knows %#lx",
				  dir, (unsigned long)block, (unsigned long)p,
				  (unsigned long)acc[k].addr);
		if (q != 1)
			continue;
		n++;
		na = rp_recover_accesses(ref, p, acc, 4);
		for (k = 0; k < na; k++)
			cr_assert(!acc[k].addr_known, "%s block %lu position "
				  "%lu: secret, the engine knows %#lx", dir,
				  (unsigned long)block, (unsigned long)p,
				  (unsigned long)acc[k].addr);
	}
	rp_recover_free(wr);
	rp_recover_free(ref);
	rp_recover_free(r);
	rp_session_close(ss);
	return n;
}

/*
 * The most windows one deep_as_engine() scan had the engine compute.  A
 * scan down to the history's start passes the windows beyond the ramp
 * without the engine where they are quiet, but the start ramp's (its
 * first RCV_START windows, rcv_sum.c) are the engine's: it knows their
 * registers from the start's, so their accesses are not secret.  Their
 * summaries and each window asked: at most 2 * RCV_START - 1.
 */
static uint64_t deep_max_win;

/*
 * A skip scan of [lo, lo + len) back from @from (deep: not from the end,
 * so that the chain of proofs does not reach its windows) stops exactly
 * where the engine's own scan does.  Returns the number of stops; *@win:
 * windows the engine computed for the scan.
 */
static size_t deep_as_engine(const char *dir, uint64_t block, uint64_t from,
			     unsigned int type, uint64_t lo, uint64_t len,
			     uint64_t *win)
{
	struct ref_arg ra = { type, lo, len };
	unsigned int kinds = (type & RP_WATCH_WRITE ? RP_ACC_WRITE : 0) |
			     (type & RP_WATCH_READ ? RP_ACC_READ : 0);
	struct rp_recover_stats st;
	struct rp_session *ss;
	struct rp_recover *ref;
	struct rp_watch_hit h;
	uint64_t hi, q;
	size_t n = 0;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	rp_watch_clear(wt);
	cr_assert_eq(rp_watch_insert(wt, type, pid, lo, len), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
	rp_recover_set_block(rc, block);
	rp_recover_set_block(ref, block);
	for (hi = from;;) {
		int ret = rp_watch_scan(wt, rc, pid, -1, 0, hi, &h), r2;

		q = hi - 1;
		r2 = !hi ? -RP_ERR_NOTFOUND :
		     rp_recover_scan(ref, &q, -1, 0, hi, kinds, ref_one, &ra);
		cr_assert_eq(ret, r2, "%s block %lu [%#lx, +%lu) from %lu: "
			     "%d, engine %d", dir, (unsigned long)block,
			     (unsigned long)lo, (unsigned long)len,
			     (unsigned long)hi, ret, r2);
		if (ret)
			break;
		cr_assert_eq(h.pos, q, "%s block %lu [%#lx, +%lu): stop at "
			     "%lu, engine %lu", dir, (unsigned long)block,
			     (unsigned long)lo, (unsigned long)len,
			     (unsigned long)h.pos, (unsigned long)q);
		n++;
		hi = h.pos;
	}
	rp_recover_stats(rc, &st);
	*win = st.windows;
	if (st.windows > deep_max_win)
		deep_max_win = st.windows;
	rp_recover_free(ref);
	rp_recover_free(rc);
	rc = NULL;
	rp_session_close(ss);
	return n;
}

Test(watch_chain, quiet)
{
	static const uint64_t qb[] = { 50, 128, 300 };
	struct rp_session *ss;
	struct rp_thread_info info;
	struct rp_regs regs;
	uint64_t e, a, win, far, n;
	size_t b;

	for (b = 0; b < 3; b++) {
		/* gdbloop and watchquiet: loops of quiet instructions. */
		cr_assert_gt(secret_unknown(LOOP_BUNDLE, qb[b]), 1000);
		cr_assert_gt(secret_unknown(QUIET_BUNDLE, qb[b]), 1000);
		secret_unknown(WATCH_BUNDLE, qb[b]);
	}
	/* Scans from the middle of gdbloop's history: stack words of the
	 * end (locals of step() and leaf(), saved registers, return
	 * addresses) and sink, stops as the engine's; a word nothing
	 * touches passes the windows beyond the ramp without the engine.
	 */
	cr_assert_eq(rp_session_open(&ss, LOOP_BUNDLE), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, &regs), 0);
	cr_assert_eq(rp_thread_info(ss, rp_thread_tid(ss, 0), &info), 0);
	rp_session_close(ss);
	pid = info.pid;
	for (b = 0; b < 3; b++) {
		far = e - (2 * RCV_CHAIN + 8) * qb[b];
		deep_max_win = 0;
		for (a = regs.val[RP_REG_RSP] - 64;
		     a < regs.val[RP_REG_RSP] + 64; a += 12)
			deep_as_engine(LOOP_BUNDLE, qb[b], far,
				       RP_WATCH_ACCESS, a, 4, &win);
		cr_assert_gt(deep_as_engine(LOOP_BUNDLE, qb[b], far,
					    RP_WATCH_WRITE, LOOP_SINK, 4,
					    &win), 50);
		deep_as_engine(LOOP_BUNDLE, qb[b], far, RP_WATCH_WRITE,
			       LOOP_SINK + 64, 4, &win);
		cr_assert_leq(deep_max_win, 2 * RCV_START - 1,
			      "block %lu: %lu engine windows",
			      (unsigned long)qb[b],
			      (unsigned long)deep_max_win);
	}
	/* watchquiet: the store through var's address times 1 is the
	 * engine's to find, at every call of put().
	 */
	cr_assert_eq(rp_session_open(&ss, QUIET_BUNDLE), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_thread_info(ss, rp_thread_tid(ss, 0), &info), 0);
	rp_session_close(ss);
	pid = info.pid;
	for (b = 0; b < 3; b++) {
		far = e - (2 * RCV_CHAIN + 8) * qb[b];
		n = deep_as_engine(QUIET_BUNDLE, qb[b], far, RP_WATCH_WRITE,
				   QUIET_VAR, 4, &win);
		cr_assert_gt(n, 100, "block %lu: %lu stops at var",
			     (unsigned long)qb[b], (unsigned long)n);
		deep_as_engine(QUIET_BUNDLE, qb[b], far, RP_WATCH_WRITE,
			       QUIET_SINK, 4, &win);
	}
}

/*
 * A real program (tests/programs/loops): its windows hold
 * conditional branches, indirect calls, returns and system calls, which
 * show values; watch_dep.c calls an access secret only where nothing
 * shown depends on its base.  At every position, in windows of 50 to
 * 300, the engine knows none of those; and skip scans from the middle
 * of the history stop exactly where the engine's own do, over stack
 * words of the end and of the frames below it, and over addresses the
 * engine knows (taken from the engine itself, so nothing depends on
 * where ASLR put the program).  Returns the secret positions.
 */
static uint64_t real_deep(const char *dir, uint64_t block, uint64_t *win,
			  uint64_t *stops)
{
	struct rp_session *ss;
	struct rp_thread_info info;
	struct rp_regs regs;
	struct rp_recover *ref;
	struct rp_access acc[4];
	uint64_t e, far, a, p, seen[24], w, nsec;
	size_t ns = 0, j;
	int k, na;

	nsec = secret_unknown(dir, block);
	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, &regs), 0);
	cr_assert_eq(rp_thread_info(ss, rp_thread_tid(ss, 0), &info), 0);
	pid = info.pid;
	far = e - (2 * RCV_CHAIN + 8) * block;
	/* Addresses the engine knows: words it finds. */
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
	rp_recover_set_block(ref, block);
	for (p = 0; p < e && ns < 24; p += 3) {
		na = rp_recover_accesses(ref, p, acc, 4);
		for (k = 0; k < na && ns < 24; k++) {
			if (!acc[k].addr_known)
				continue;
			for (j = 0; j < ns && seen[j] != (acc[k].addr & ~7ull);)
				j++;
			if (j == ns)
				seen[ns++] = acc[k].addr & ~7ull;
		}
	}
	rp_recover_free(ref);
	rp_session_close(ss);
	cr_assert_gt(ns, 4, "%s: %lu known addresses", dir, (unsigned long)ns);
	*win = *stops = 0;
	for (j = 0; j < ns; j++) {
		*stops += deep_as_engine(dir, block, far, RP_WATCH_ACCESS,
					 seen[j], 8, &w);
		*win += w;
	}
	/* main's frame and those of fib() and depth() below it */
	for (a = regs.val[RP_REG_RSP] - 1024; a < regs.val[RP_REG_RSP] + 64;
	     a += 40) {
		*stops += deep_as_engine(dir, block, far, RP_WATCH_WRITE, a,
					 8, &w);
		*win += w;
	}
	return nsec;
}

Test(watch_chain, real)
{
	static const uint64_t qb[] = { 50, 128, 300 };
	/* Windows of 300: 2,215 before the start ramp (session 18), whose
	 * windows the engine knows; 774 since.
	 */
	static const uint64_t least[] = { 2000, 2000, 500 };
	uint64_t n, win, stops, all = 0;
	size_t b;

	for (b = 0; b < 3; b++) {
		deep_max_win = 0;
		n = real_deep(REAL_BUNDLE, qb[b], &win, &stops);
		cr_log_info("loops, windows of %lu: %lu secret positions, "
			    "%lu stops as the engine's, %lu engine windows in "
			    "the deep scans", (unsigned long)qb[b],
			    (unsigned long)n, (unsigned long)stops,
			    (unsigned long)win);
		all += stops;
		/* Before watch_dep.c: 152, 128 and 2 (branches were loud). */
		cr_assert_gt(n, least[b], "loops, windows of %lu: %lu secret",
			     (unsigned long)qb[b], (unsigned long)n);
		/* Windows of 300: every far window beyond the start ramp
		 * passes (main's loops and fib(), all conditional branches on
		 * counters and n); the start ramp's are the engine's.
		 */
		if (qb[b] == 300)
			cr_assert_leq(deep_max_win, 2 * RCV_START - 1,
				      "loops, windows of 300: %lu engine "
				      "windows in a scan",
				      (unsigned long)deep_max_win);
	}
	cr_assert_gt(all, 20);
}

/*
 * A library-heavy program (tests/bench/libloop: glibc's EVEX strlen and
 * strchr, snprintf, an inlined rep stos, write(2)): at every position,
 * in windows of 50, 128 and 300, the engine knows no access the proofs
 * call secret, and skip scans from the middle stop exactly where the
 * engine's own do.  (Windows of 16,384, where a write watchpoint's far
 * windows now all pass: bench_watch --agree in make watch-bench.)
 * What is asserted is the agreement, and that some secret positions
 * are found (in the user code and between the library calls).
 */
Test(watch_chain, lib)
{
	static const uint64_t qb[] = { 50, 128, 300 };
	uint64_t n, win, stops, all = 0;
	size_t b;

	for (b = 0; b < 3; b++) {
		n = real_deep(LIB_BUNDLE, qb[b], &win, &stops);
		cr_log_info("libloop, windows of %lu: %lu secret positions, "
			    "%lu stops as the engine's, %lu engine windows in "
			    "the deep scans", (unsigned long)qb[b],
			    (unsigned long)n, (unsigned long)stops,
			    (unsigned long)win);
		all += stops;
		cr_assert_gt(n, 100, "libloop, windows of %lu: %lu secret",
			     (unsigned long)qb[b], (unsigned long)n);
	}
	cr_assert_gt(all, 10);
}

static int count_blk(void *arg, const struct rp_blk *b)
{
	*(uint64_t *)arg += b->ninsn;
	return 0;
}

/*
 * rp_cursor_blocks() decodes on from one checkpoint through later ones:
 * where the index puts fewer instructions before a checkpoint than the
 * blocks decode before reaching its packet, the two disagree and it
 * fails (-RP_ERR_DECODE: the scan uses the cursor), never giving
 * positions shifted from the cursor's.  The recordings here have one
 * checkpoint; a second one, near the stream's end with 10 instructions
 * before it, is one such disagreement.
 */
Test(watch_chain, blocks_check_checkpoints)
{
	struct rp_ckpt *saved, *v;
	struct rp_session *ss;
	struct rp_cursor *c;
	struct rp_thread *t;
	uint64_t n = 0, e;
	size_t nsaved;

	cr_assert_eq(rp_session_open(&ss, LOOP_BUNDLE), 0);
	t = rp_find_thread(ss, rp_thread_tid(ss, 0));
	cr_assert(t && t->nckpts >= 1 && t->pt_size > 64);
	e = t->insns;
	cr_assert_eq(rp_cursor_new(ss, t->tid, &c), 0);
	cr_assert_eq(rp_cursor_blocks(c, 0, e, count_blk, &n), 0);
	cr_assert_eq(n, e);
	saved = t->ckpts;
	nsaved = t->nckpts;
	v = calloc(nsaved + 1, sizeof(*v));
	cr_assert(v);
	memcpy(v, saved, nsaved * sizeof(*v));
	v[nsaved] = v[nsaved - 1];
	v[nsaved].offset = t->pt_size - 1;
	v[nsaved].insn = v[nsaved - 1].insn + 10;
	t->ckpts = v;
	t->nckpts = nsaved + 1;
	cr_assert_eq(rp_cursor_blocks(c, 0, e, count_blk, &n),
		     -RP_ERR_DECODE);
	t->ckpts = saved;
	t->nckpts = nsaved;
	free(v);
	rp_cursor_free(c);
	rp_session_close(ss);
}

struct iv {
	uint64_t lo[8], hi[8];
	int n;
};

static bool rec_read(void *arg, unsigned int kind, uint64_t lo, uint64_t hi)
{
	struct iv *v = arg;

	if (kind == RP_ACC_READ && v->n < 8) {
		v->lo[v->n] = lo;
		v->hi[v->n++] = hi;
	}
	return false;
}

/*
 * The proofs' intervals for loads against the engine's addresses, at
 * every position of libloop's chain windows (from the end, windows of
 * 300): where both know a load, the engine's bytes lie in the proof's
 * interval.  Ranges (watch_proof.c: vfprintf's jump tables indexed by a
 * format character, strchrnul's end from tzcnt) make intervals wider
 * than the load; some must be met, or the check checks nothing.
 */
Test(watch_chain, lib_read_intervals)
{
	struct rp_session *ss;
	struct rp_recover *ref, *pr;
	struct rp_access acc[4];
	uint64_t e, p, wide = 0, both = 0;
	int na, k, j;

	cr_assert_eq(rp_session_open(&ss, LIB_BUNDLE), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &pr), 0);
	rp_recover_set_block(ref, 300);
	rp_recover_set_block(pr, 300);
	for (p = e - 1; p + RCV_CHAIN * 300 > e && p > 0; p--) {
		struct iv v = { .n = 0 };

		if (wpf_prove(pr, p, p + 1, RP_ACC_READ, false, rec_read,
			      &v) < 0)
			cr_assert_fail("wpf_prove at %lu", (unsigned long)p);
		na = rp_recover_accesses(ref, p, acc, 4);
		for (j = 0; j < v.n; j++)
			wide += v.hi[j] - v.lo[j] > 32;
		for (k = 0; k < na && k < 4; k++) {
			if (acc[k].kind != RP_ACC_READ || !acc[k].addr_known ||
			    !v.n)
				continue;
			for (j = 0; j < v.n; j++)
				if (v.lo[j] <= acc[k].addr &&
				    acc[k].addr + acc[k].size <= v.hi[j])
					break;
			/* An instruction with one known load: it is that. */
			if (v.n == 1)
				cr_assert_lt(j, v.n, "libloop at %lu: the "
					     "engine's load [%#lx, +%lu) not in "
					     "the proof's [%#lx, %#lx)",
					     (unsigned long)p,
					     (unsigned long)acc[k].addr,
					     (unsigned long)acc[k].size,
					     (unsigned long)v.lo[0],
					     (unsigned long)v.hi[0]);
			both += j < v.n;
		}
	}
	cr_log_info("libloop: %lu loads known to both, %lu proof intervals "
		    "wider than 32 bytes", (unsigned long)both,
		    (unsigned long)wide);
	cr_assert_gt(both, 100);
	cr_assert_gt(wide, 10);
	rp_recover_free(pr);
	rp_recover_free(ref);
	rp_session_close(ss);
}

/*
 * Bounded loads (watch_fix.c: a word the engine can know only as one of
 * the constants stored there; libloop's vtable pointer in vsnprintf's
 * FILE, here tests/gdb/watchdep's callee, which pushes tbl, stores to a
 * global, pops the word and loads tbl + 8 through it): at every position,
 * in windows of 50 to 300, a load the engine knows lies in the proof's
 * bound, and some are known (the engine keeps the push and pop paired
 * across the store: rcv_callee.c); a deep rwatch of tbl + 8 stops where
 * the engine's own scan does, at each of those loads: the proof sends
 * the window to the engine rather than skipping a load that reads the
 * watched bytes (taking a bounded load as secret skips them all).
 */
Test(watch_chain, bound)
{
	static const uint64_t qb[] = { 50, 128, 300 };
	struct rp_thread_info info;
	struct rp_session *ss;
	struct rp_recover *r, *ref;
	struct rp_access acc[4];
	uint64_t e, p, lo, hi, nb = 0, both = 0, w, stops;
	size_t b;
	int k, na, nr, q;

	cr_assert_eq(rp_session_open(&ss, DEP_BUNDLE), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_thread_info(ss, rp_thread_tid(ss, 0), &info), 0);
	pid = info.pid;
	for (b = 0; b < 3; b++) {
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &r), 0);
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref),
			     0);
		rp_recover_set_block(r, qb[b]);
		/*
		 * The engine's answer in one window to the end: its stack
		 * pointer is known only from there (the quiet windows'
		 * returns are barriers), and only on a stack known to be
		 * the thread's own does it keep bnd's pushed word across
		 * the store (review 11's finding 1, rcv_ownstk.c).
		 */
		rp_recover_set_block(ref, e + 1);
		for (p = 0; p < e; p++) {
			q = wpf_quiet_bound(r, p, &lo, &hi);
			cr_assert_geq(q, 0);
			if (q != 1)
				continue;
			nb++;
			na = rp_recover_accesses(ref, p, acc, 4);
			for (k = nr = 0; k < na; k++)
				nr += acc[k].kind == RP_ACC_READ;
			for (k = 0; k < na && nr == 1; k++) {
				if (acc[k].kind != RP_ACC_READ ||
				    !acc[k].addr_known)
					continue;
				both++;
				cr_assert(lo <= acc[k].addr &&
					  acc[k].addr + acc[k].size <= hi,
					  "watchdep block %lu at %lu: the "
					  "engine's load %#lx not in the bound "
					  "[%#lx, %#lx)", (unsigned long)qb[b],
					  (unsigned long)p,
					  (unsigned long)acc[k].addr,
					  (unsigned long)lo, (unsigned long)hi);
				cr_assert_eq(acc[k].addr, DEP_TBL + 8);
			}
		}
		rp_recover_free(ref);
		rp_recover_free(r);
	}
	rp_session_close(ss);
	cr_log_info("watchdep: %lu bounded loads, %lu known to the engine",
		    (unsigned long)nb, (unsigned long)both);
	cr_assert_gt(both, 100);
	/*
	 * A deep rwatch of tbl + 8 stops where the engine does, window by
	 * window: in the short windows the engine does not know bnd's
	 * load (rsp not known there: no stop in skip mode), in one window
	 * to the end it knows every one (120 stops, one per call).
	 */
	for (b = 0; b < 3; b++)
		deep_as_engine(DEP_BUNDLE, qb[b],
			       e - (2 * RCV_CHAIN + 8) * qb[b],
			       RP_WATCH_READ, DEP_TBL + 8, 8, &w);
	stops = deep_as_engine(DEP_BUNDLE, e + 1, e, RP_WATCH_READ,
			       DEP_TBL + 8, 8, &w);
	cr_log_info("watchdep: %lu stops of a deep rwatch of tbl + 8",
		    (unsigned long)stops);
	cr_assert_gt(stops, 100);
}

/*
 * The start ramp's edge (rcv_first.c sysret_start()): its last state is
 * the first of the window after it, which is computed on its own, with
 * its own system calls' records in (first, last] as facts
 * (rcv_win_new_alone(); rcv_win_alone(), watch_chain.c's quiet windows,
 * looks at those alone).  A system call returning there gave that window
 * every register (rsp among them) from the recording's facts: the engine
 * knew stack accesses the quiet proof calls secret, and a skip scan
 * passed stores the engine finds.  unsound.c @anchor: 3,000 getpid()
 * calls, one every 6 instructions, so many grids of 3 to 600 end the
 * start ramp at the state after one: no recorded fact lies there
 * (before the fix: every register of the call's record), and where that
 * window has no record of its own (quiet), no access it calls secret is
 * the engine's (review: windows of 5, 2 positions; of 50 before windows
 * on their own took their records).
 */
Test(watch_chain, start_ramp_edge)
{
	struct rp_session *ss;
	struct rp_recover *r;
	struct rp_cursor *c;
	struct rp_insn in;
	uint64_t b, hi, e;
	size_t j;
	uint32_t t;
	int found = 0, quiet = 0;

	cr_assert_eq(rp_session_open(&ss, ANCHOR_BUNDLE), 0);
	t = rp_thread_tid(ss, 0);
	cr_assert_eq(rp_thread_end(ss, t, &e, NULL), 0);
	cr_assert_eq(rp_cursor_new(ss, t, &c), 0);
	for (b = 3; b <= 600; b++) {
		cr_assert_eq(rp_recover_new(ss, t, &r), 0);
		rp_recover_set_block(r, b);
		hi = rcv_start_reach(r);
		if (hi == UINT64_MAX || !hi || rp_cursor_peek(c, hi - 1, &in) ||
		    !rp_insn_is_syscall(&in)) {
			rp_recover_free(r);
			continue;
		}
		found++;
		cr_assert_eq(rcv_inherit(r), 0);
		for (j = 0; j < r->nfacts; j++)
			cr_assert_neq(r->facts[j].pos, hi, "block %lu: a "
				      "recorded fact at the start ramp's last "
				      "state %lu", (unsigned long)b,
				      (unsigned long)hi);
		if (rcv_win_alone(r, (e - hi) / b - 1) && quiet < 3) {
			quiet++;
			secret_unknown(ANCHOR_BUNDLE, b);
		}
		rp_recover_free(r);
	}
	rp_cursor_free(c);
	rp_session_close(ss);
	cr_log_info("anchor: %d grids end the start ramp after a call, %d "
		    "with a quiet window after it", found, quiet);
	cr_assert_gt(found, 0, "no grid ends the start ramp after a call");
}
