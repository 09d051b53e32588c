// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * watchtruth --check (tests/gdb/watchtruth.c): the recovery engine's
 * writes against the truth's at every position of every thread, with the
 * alignment of the replay's positions to the truth's across gaps that
 * the default mode shares.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "sideband.h"
#include "watch_proof.h"
#include "watchtruth.h"

/*
 * --check: at every position of every thread, the recovery engine's
 * writes (rp_recover_accesses(), what watchpoints see) against the
 * truth's: a write the truth shows must be one the engine names (a known
 * range that covers it, or an unknown address whose bounds hold it):
 * else "missed"; a write the engine names with a known address must be
 * the truth's: else "wrong".  Both must be 0.  An unknown address whose
 * bounds (the stack assumption, watch-unknown stack) do not hold the
 * write is counted apart ("outside"): the assumption broken, not a miss
 * of the default mode.  System calls are checked
 * for missed writes only (the truth models read, pread64, pipe), and
 * fs-relative stores not at all (no fs_base in the truth).
 */
struct tstore {
	uint64_t p, a, l;
};

/*
 * libopcodes' text of @insn (rp_format_insn(), AT&T: the destination
 * last) writes no memory: its last operand is not a memory one.
 */
static bool no_store(struct rp_session *s, const struct rp_insn *insn,
		     uint64_t pos)
{
	char buf[512], *ops, *last, *q;
	int depth = 0;

	if (rp_format_insn(s, insn, pos, false, false, buf, sizeof(buf)))
		return false;
	ops = strstr(buf, ":\t");
	if (!ops)
		return false;
	ops = strchr(ops + 2, ' ');	/* past the mnemonic */
	if (!ops)
		return true;		/* no operands */
	last = ops;
	for (q = ops; *q && *q != '#' && *q != '<'; q++) {
		depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
		if (*q == ',' && !depth)
			last = q + 1;
	}
	*q = 0;
	return !strchr(last, '(') && !strstr(last, "0x");
}

/* wpf_prove()'s question, asked to see the intervals it proves. */
struct cover {
	uint64_t a, l;
	bool in;
};

static bool cover_one(void *arg, unsigned int kind, uint64_t lo, uint64_t hi)
{
	struct cover *c = arg;

	if (kind == RP_ACC_WRITE && lo <= c->a && c->a + c->l <= hi)
		c->in = true;
	return false;
}

static int by_addr_pos(const void *x, const void *y)
{
	const struct tstore *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->p < b->p ? -1 : a->p > b->p;
}

/*
 * The end: the last true store to some bytes put the value the end
 * snapshot holds, unless something after it wrote them, so a stop-mode
 * watch scan back from the thread's end over those bytes must stop at
 * that store or after it (a later write the engine names, or one it says
 * may have written), never before.  Checked for up to 64 of the last
 * stores of each address, evenly spread.  *@ends counts them.  Returns
 * how many failed.
 */
#define END_CHECKS 64

static uint64_t check_end(struct rp_session *s, uint32_t tid,
			  struct tstore *v, size_t n, uint64_t end,
			  uint64_t *ends)
{
	struct rp_thread_info info;
	struct rp_recover *rc;
	struct rp_watch *w;
	uint64_t bad = 0;
	size_t i, m = 0, step, k;

	if (!n || !end)
		return 0;
	if (rp_thread_info(s, tid, &info) || rp_recover_new(s, tid, &rc) ||
	    rp_watch_new(&w))
		return 1;
	qsort(v, n, sizeof(*v), by_addr_pos);
	/* The last store of each address (the next one starts elsewhere). */
	for (i = 0; i < n; i++)
		if (i + 1 == n || v[i + 1].a != v[i].a)
			v[m++] = v[i];
	step = m > END_CHECKS ? m / END_CHECKS : 1;
	for (k = 0; k < m; k += step) {
		struct rp_watch_hit h;

		*ends += 1;
		rp_watch_clear(w);
		rp_watch_insert(w, RP_WATCH_WRITE, info.pid, v[k].a, v[k].l);
		if ((rp_watch_scan(w, rc, info.pid, -1, 0, end, &h) ||
		     h.pos < v[k].p) && bad++ < 10)
			printf("END thread %u: the last store to %#" PRIx64
			       "+%" PRIu64 " is at position %" PRIu64 ", a scan "
			       "from the end passed it\n", tid, v[k].a, v[k].l,
			       v[k].p);
	}
	rp_watch_free(w);
	rp_recover_free(rc);
	return bad;
}

/*
 * Code the truth ran where the replay has a gap (JIT code in no image,
 * lost trace) may have written anything: a scan with watch-unknown stop
 * or stack (of all memory, for writes and, separately, reads) must stop
 * there, after the instruction before the gap, and one with skip must
 * not.
 * *@ngaps counts the gaps, *@hidden the truth's instructions in them.
 * Returns how many failed.
 */
static uint64_t check_gaps(struct rp_session *s, uint32_t tid,
			   const size_t *map, uint64_t end, uint64_t *ngaps,
			   uint64_t *hidden)
{
	struct rp_thread_info info;
	struct rp_recover *rc;
	struct rp_watch *w;
	struct rp_gap g;
	uint64_t bad = 0, i;
	unsigned int type;

	if (rp_thread_info(s, tid, &info) || rp_recover_new(s, tid, &rc) ||
	    rp_watch_new(&w))
		return 1;
	for (i = 0; !rp_thread_gap(s, tid, i, &g); i++) {
		struct rp_watch_hit h;
		int dir;

		if (!g.before || g.before > end)
			continue;
		*ngaps += 1;
		if (g.before < end && map[g.before] != NONE &&
		    map[g.before - 1] != NONE)
			*hidden += map[g.before] - map[g.before - 1] - 1;
		for (type = RP_WATCH_WRITE; type <= RP_WATCH_READ; type++)
			for (dir = -1; dir <= 1; dir += 2) {
				rp_watch_clear(w);
				rp_watch_insert(w, type, info.pid, 0,
						UINT64_MAX);
				rp_watch_set_unknown(w,
						     RP_WATCH_UNKNOWN_STOP);
				if ((rp_watch_scan(w, rc, info.pid, dir,
						   g.before - 1, g.before,
						   &h) ||
				     !h.gap || h.pos != g.before - 1) &&
				    bad++ < 10)
					printf("GAP PASSED thread %u after "
					       "position %" PRIu64 "\n", tid,
					       g.before - 1);
				rp_watch_set_unknown(w,
						     RP_WATCH_UNKNOWN_STACK);
				if ((rp_watch_scan(w, rc, info.pid, dir,
						   g.before - 1, g.before,
						   &h) || !h.gap) && bad++ < 10)
					printf("GAP PASSED (stack) thread %u "
					       "after position %" PRIu64 "\n",
					       tid, g.before - 1);
				rp_watch_set_unknown(w,
						     RP_WATCH_UNKNOWN_SKIP);
				if (!rp_watch_scan(w, rc, info.pid, dir,
						   g.before - 1, g.before,
						   &h) && h.gap && bad++ < 10)
					printf("GAP STOP with skip thread %u "
					       "after position %" PRIu64 "\n",
					       tid, g.before - 1);
			}
	}
	rp_watch_free(w);
	rp_recover_free(rc);
	return bad;
}

/*
 * The watch scan with watch-unknown skip passes windows on proofs alone
 * (replay/watch_proof.c): at each of @n true stores (last first, so that
 * the proofs go back from the end as a scan does), the proof's interval
 * for the instruction's write, where it proves one, holds the bytes the
 * truth says it wrote (*@proven counts those); and a scan of that one
 * position watching those bytes must stop there whenever the engine,
 * asked next, knows the store's address.  Returns how many failed.
 */
static uint64_t check_proofs(struct rp_session *s, uint32_t tid,
			     const struct tstore *v, size_t n,
			     uint64_t *proven)
{
	struct rp_thread_info info;
	struct rp_recover *rc;
	struct rp_watch *w;
	uint64_t bad = 0;
	size_t j;

	if (rp_thread_info(s, tid, &info) || rp_recover_new(s, tid, &rc) ||
	    rp_watch_new(&w))
		return 1;
	if (getenv("WATCHTRUTH_BLOCK"))
		rp_recover_set_block(rc, strtoull(getenv("WATCHTRUTH_BLOCK"),
						  NULL, 0));
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	for (j = n; j-- > 0;) {
		struct rp_access acc[4];
		struct rp_watch_hit h;
		int k, na;

		/* The proof itself: the store's bytes lie in what it says
		 * the instruction writes, whenever it says.
		 */
		struct cover cv = { v[j].a, v[j].l, false };

		if (wpf_prove(rc, v[j].p, v[j].p + 1, RP_ACC_WRITE, true,
			      cover_one, &cv) == 1)
			*proven += 1;
		if (wpf_prove(rc, v[j].p, v[j].p + 1, RP_ACC_WRITE, true,
			      cover_one, &cv) == 1 && !cv.in && bad++ < 10)
			printf("PROOF WRONG thread %u position %" PRIu64 ": the "
			       "truth writes %#" PRIx64 "+%" PRIu64 "\n", tid,
			       v[j].p, v[j].a, v[j].l);
		rp_watch_clear(w);
		rp_watch_insert(w, RP_WATCH_WRITE, info.pid, v[j].a, v[j].l);
		if (!rp_watch_scan(w, rc, info.pid, -1, v[j].p, v[j].p + 1,
				   &h))
			continue;
		na = rp_recover_accesses(rc, v[j].p, acc, 4);
		for (k = 0; k < na; k++)
			if (acc[k].kind == RP_ACC_WRITE && acc[k].addr_known &&
			    acc[k].addr < v[j].a + v[j].l &&
			    v[j].a < acc[k].addr + acc[k].size)
				break;
		if (k < na && bad++ < 10)
			printf("PASSED thread %u position %" PRIu64 ": the "
			       "truth and the engine write %#" PRIx64 "+%"
			       PRIu64 ", the skip scan did not stop\n", tid,
			       v[j].p, v[j].a, v[j].l);
	}
	rp_watch_free(w);
	rp_recover_free(rc);
	return bad;
}

/* The snapshot holds @insn's bytes at its address, and they differ. */
static bool code_differs(struct rp_snapshot *sn, uint32_t pid,
			 const struct rp_insn *insn)
{
	uint8_t buf[16];

	return sn && insn->size <= sizeof(buf) &&
	       rp_snapshot_read(sn, pid, insn->ip, buf, insn->size, false) ==
		       insn->size &&
	       memcmp(buf, insn->raw, insn->size);
}

int check(struct rp_session *s, csh cs)
{
	uint64_t positions = 0, writes = 0, known = 0, maybe = 0, missed = 0,
		 wrong = 0, bounded = 0, outside = 0, passed = 0, tried = 0,
		 proven = 0, bserved = 0, bdiff = 0, quiet = 0, qwrong = 0,
		 off = 0, unexplained = 0, noregs = 0, ngaps = 0, hidden = 0,
		 gapbad = 0, vector = 0, ends = 0, endbad = 0, nbound = 0,
		 bknown = 0, bwrong = 0;
	struct rp_snapshot *sn = NULL;
	size_t ti;

	if (rp_snapshot_open(&sn, bundle_dir)) {
		rp_snapshot_close(sn);
		sn = NULL;
	}
	for (ti = 0; ti < rp_thread_count(s); ti++) {
		uint32_t tid = rp_thread_tid(s, ti);
		struct sb_truth_rec *recs;
		struct rp_recover *rc;
		struct rp_cursor *cur;
		struct rp_insn insn;
		struct sb_err err;
		char path[4096];
		struct tstore *ts = NULL;
		struct rp_thread_info tinfo;
		size_t nts = 0, *map;
		uint64_t end;
		uint32_t pid;
		size_t n, p;
		int ret;

		snprintf(path, sizeof(path), "%s/truth/%u.gt",
			 bundle_dir, tid);
		if (sb_truth_load_recs(path, &recs, &n, &err)) {
			fprintf(stderr, "watchtruth: %s\n", err.msg);
			return 2;
		}
		ret = rp_thread_info(s, tid, &tinfo);
		/*
		 * A thread that never ran traced (made before the start,
		 * the recording stopped first): no position to check, not
		 * an error, as long as the truth has none either.
		 */
		if (!ret && !tinfo.insns) {
			printf("%s thread %u: 0 instructions, nothing to "
			       "check\n", bundle_dir, tid);
			if (n && unexplained++ < 10)
				printf("NOT COMPARED thread %u: the replay has "
				       "no instruction, the truth %zu\n", tid,
				       n);
			free(recs);
			continue;
		}
		if (ret || (ret = rp_cursor_new(s, tid, &cur)) ||
		    (ret = rp_recover_new(s, tid, &rc)) ||
		    (ret = rp_thread_end(s, tid, &end, NULL))) {
			fprintf(stderr, "watchtruth: %s thread %u: %s\n",
				bundle_dir, tid, rp_errstr(ret));
			return 2;
		}
		pid = tinfo.pid;
		/* WATCHTRUTH_BLOCK=N: windows of N instructions (the
		 * chain's and the far ones' boundaries on a short history).
		 */
		if (getenv("WATCHTRUTH_BLOCK"))
			rp_recover_set_block(rc, strtoull(
				getenv("WATCHTRUTH_BLOCK"), NULL, 0));
		/* The scan's instructions from libipt's blocks are the
		 * cursor's (watch_chain.c).
		 */
		if (end) {
			uint64_t served = 0;
			int d = wpf_blocks_check(rc, 0, end, &served);

			if (d && bdiff++ < 10)
				printf("BLOCKS thread %u: %d positions differ "
				       "from the cursor's\n", tid, d);
			bserved += served;
		}
		map = align(s, tid, cur, recs, n, end, &off, &unexplained);
		if (!map) {
			fprintf(stderr, "watchtruth: %s thread %u: out of "
				"memory\n", bundle_dir, tid);
			return 2;
		}
		for (p = 1; p < end; p++) {
			const struct sb_truth_rec *pre;
			struct rp_access acc[4];
			bool tw, sys, fs = false;
			uint64_t a = 0, l = 0, blo, bhi;
			cs_insn *ci;
			size_t tp = map[p];
			int k, na, nr;

			if (tp == NONE)
				continue;	/* counted by align() */
			if (rp_cursor_peek(cur, p, &insn)) {
				if (unexplained++ < 10)
					printf("NOT COMPARED thread %u position"
					       " %zu: no instruction\n", tid,
					       p);
				continue;
			}
			/* Its bytes are the replay's (the image store's):
			 * where the snapshot holds that code (a writable
			 * mapping) and it differs, the code was rewritten
			 * and the replay may decode old instructions.
			 */
			if (code_differs(sn, pid, &insn)) {
				if (unexplained++ < 10)
					printf("CODE thread %u position %zu ip %#"
					       PRIx64 ": the replay's bytes are "
					       "not the end snapshot's\n", tid,
					       p, insn.ip);
			}
			pre = tp ? &recs[tp - 1] : NULL;
			if (!pre || !(pre->mask & 0xffff)) {
				/* No registers before it in the truth (the
				 * first, or after a system call that did
				 * not return to it, or in a version-2
				 * truth): counted.
				 */
				noregs++;
				continue;
			}
			if (cs_disasm(cs, insn.raw, insn.size, insn.ip, 1,
				      &ci) != 1) {
				/* Capstone cannot decode some EVEX forms:
				 * counted when libopcodes shows no memory
				 * destination, else not compared and said.
				 */
				if (!no_store(s, &insn, p)) {
					if (unexplained++ < 10)
						printf("NOT COMPARED thread %u "
						       "position %zu: capstone "
						       "cannot decode it\n",
						       tid, p);
				} else {
					vector++;
				}
				continue;
			}
			for (k = 0; k < ci->detail->x86.op_count; k++)
				fs |= ci->detail->x86.operands[k].type ==
					      X86_OP_MEM &&
				      (ci->detail->x86.operands[k].mem.segment ==
					       X86_REG_FS ||
				       ci->detail->x86.operands[k].mem.segment ==
					       X86_REG_GS);
			sys = ci->id == X86_INS_SYSCALL;
			tw = dest(ci, pre->regs, recs[tp].mask & 1 ?
				  recs[tp].regs : NULL, &a, &l);
			cs_free(ci, 1);
			if (fs)
				continue;
			na = rp_recover_accesses(rc, p, acc, 4);
			if (na < 0) {
				if (missed++ < 10)
					printf("ERROR thread %u position %zu: "
					       "%s\n", tid, p, rp_errstr(na));
				continue;
			}
			positions++;
			writes += tw;
			/* A quiet window's secret accesses (watch_chain.c,
			 * watch-unknown skip): the engine knows none.
			 */
			if (wpf_quiet_secret(rc, p, RP_ACC_READ |
					     RP_ACC_WRITE) == 1) {
				quiet++;
				for (k = 0; k < na; k++)
					if (acc[k].addr_known && qwrong++ < 10)
						printf("QUIET WRONG thread %u "
						       "position %zu ip %#"
						       PRIx64 ": secret, the "
						       "engine knows %#" PRIx64
						       "\n", tid, p, insn.ip,
						       acc[k].addr);
			}
			/* A quiet window's bounded loads (watch_fix.c): where
			 * the engine knows the load, it lies in the bound (an
			 * instruction with one load: it is that one).
			 */
			if (wpf_quiet_bound(rc, p, &blo, &bhi) == 1) {
				nbound++;
				for (k = nr = 0; k < na; k++)
					nr += acc[k].kind == RP_ACC_READ;
				for (k = 0; k < na && nr == 1; k++) {
					const struct rp_access *x = &acc[k];

					if (x->kind != RP_ACC_READ ||
					    !x->addr_known)
						continue;
					bknown++;
					if ((x->addr < blo ||
					     x->addr + x->size > bhi) &&
					    bwrong++ < 10)
						printf("BOUND WRONG thread %u "
						       "position %zu ip %#"
						       PRIx64 ": the engine "
						       "reads %#" PRIx64 ", the "
						       "bound [%#" PRIx64 ", %#"
						       PRIx64 ")\n", tid, p,
						       insn.ip, x->addr, blo,
						       bhi);
				}
			}
			for (k = 0; k < na; k++) {
				const struct rp_access *x = &acc[k];

				if (x->kind != RP_ACC_WRITE)
					continue;
				if (x->addr_known) {
					known++;
					if (!sys && (!tw || x->addr != a ||
						     x->size < l)) {
						if (wrong++ < 10)
							printf("WRONG thread %u "
							       "position %zu ip %#"
							       PRIx64 ": the engine"
							       " writes %#" PRIx64
							       "+%" PRIu64 ", the "
							       "truth %s%#" PRIx64
							       "+%" PRIu64 "\n",
							       tid, p, insn.ip,
							       x->addr, x->size,
							       tw ? "" : "none ",
							       a, l);
					}
				} else {
					maybe++;
					bounded += x->hi > x->lo;
				}
			}
			if (!tw)
				continue;
			for (k = 0; k < na; k++) {
				const struct rp_access *x = &acc[k];

				if (x->kind != RP_ACC_WRITE)
					continue;
				if (x->addr_known ? x->addr <= a &&
						    a + l <= x->addr + x->size :
				    true) {
					/* The stack assumption's bounds
					 * (watch-unknown stack) broken.
					 */
					if (!x->addr_known && x->hi > x->lo &&
					    !(x->lo <= a && a + l <= x->hi) &&
					    outside++ < 10)
						printf("OUTSIDE its bounds: "
						       "thread %u position %zu"
						       " ip %#" PRIx64 " writes"
						       " %#" PRIx64 "\n", tid,
						       p, insn.ip, a);
					break;
				}
			}
			if (k == na && missed++ < 10)
				printf("MISSED thread %u position %zu ip %#"
				       PRIx64 ": the truth writes %#" PRIx64 "+%"
				       PRIu64 "\n", tid, p, insn.ip, a, l);
			if (!sys && l) {
				struct tstore *t = realloc(ts, (nts + 1) *
							   sizeof(*ts));

				if (!t)
					return 2;
				ts = t;
				ts[nts++] = (struct tstore){ p, a, l };
			}
		}
		passed += check_proofs(s, tid, ts, nts, &proven);
		gapbad += check_gaps(s, tid, map, end, &ngaps, &hidden);
		endbad += check_end(s, tid, ts, nts, end, &ends);
		tried += nts;
		free(ts);
		rp_recover_free(rc);
		rp_cursor_free(cur);
		free(recs);
		free(map);
	}
	printf("%" PRIu64 " gaps (%" PRIu64 " instructions of the truth in "
	       "them), %" PRIu64 " where a watch scan did not stop as it "
	       "should\n", ngaps, hidden, gapbad);
	rp_snapshot_close(sn);
	printf("the end: %" PRIu64 " last stores, %" PRIu64 " that a scan "
	       "from the end passed\n", ends, endbad);
	printf("not compared: %" PRIu64 " positions in gaps' shadows with no "
	       "truth, %" PRIu64 " with no registers in the truth, %" PRIu64
	       " that capstone cannot decode and write no memory, %"
	       PRIu64 " unexplained (the replay and the truth differ with no "
	       "gap, no instruction, code bytes not the end snapshot's, or a "
	       "store capstone cannot decode)\n",
	       off, noregs, vector, unexplained);
	printf("%" PRIu64 " positions, %" PRIu64 " writes in the truth; the "
	       "engine: %" PRIu64 " with a known address, %" PRIu64
	       " unknown (%" PRIu64 " of them bounded to the stack or fs, %"
	       PRIu64 " outside those bounds); missed %" PRIu64 ", wrong %"
	       PRIu64 "; proofs (watch_proof.c) at %" PRIu64 " true writes: "
	       "%" PRIu64 " proven, %" PRIu64 " wrong or passed by a skip "
	       "scan; %" PRIu64 " positions read from libipt's blocks, "
	       "%" PRIu64 " threads where they differ from the cursor's; %"
	       PRIu64 " positions secret in quiet windows, %" PRIu64
	       " of them known to the engine; %" PRIu64 " loads bounded in "
	       "quiet windows, %" PRIu64 " known to the engine, %" PRIu64
	       " outside the bound\n",
	       positions, writes, known, maybe, bounded, outside, missed,
	       wrong, tried, proven, passed, bserved, bdiff, quiet, qwrong,
	       nbound, bknown, bwrong);
	return missed || wrong || passed || bdiff || qwrong || unexplained ||
	       gapbad || endbad || bwrong;
}
