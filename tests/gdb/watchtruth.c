// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * watchtruth --check BUNDLE: every write the recovery engine names
 * against the truth's, at every position (check(), watchtruth_check.c).
 * A thread of 0 instructions has no position: named ("BUNDLE thread TID:
 * 0 instructions, nothing to check"), not an error unless its truth has
 * instructions.  Exits 0 when all agree, 1 when some do not, 2 when the
 * bundle cannot be read (said on stderr, with the thread).
 *
 * watchtruth --blocks BUNDLE: a bundle without a truth (the real Intel PT
 * traces' imports): the instructions a watch scan reads from libipt's
 * blocks against the cursor's, the whole history and windows of 1,000
 * from 50 places (blocks() below).
 *
 * watchtruth --scan BUNDLE TID ADDR LEN MODE [fwd] [read]: the stops of
 * a backward (or forward) watch scan of one thread (scan_all() below).
 *
 * watchtruth --last BUNDLE TID: the thread's last instruction by the
 * truth, "last N ip IP" (N instructions; a system call it never returned
 * from is the last: tests/gdb/watchgap.sh, the exit(2) stop's message).
 *
 * watchtruth BUNDLE ADDR LEN [TID POS]: every instruction of every thread that wrote
 * a byte of [ADDR, ADDR + LEN), by the software recorder's ground truth
 * (the registers the recorder read with ptrace before each instruction,
 * never the recovery engine's), for tests/gdb/watch.sh.  Prints one line
 * per write, "tid POS tsc TSC ip IP" (POS 0-based), in each thread's
 * order.  Stores are found by decoding each instruction with capstone and
 * computing its memory destination from the true registers: explicit
 * memory destinations, push and call, rep stos/movs, and the system
 * calls the test programs make that write memory (read, pread64: the
 * bytes returned; pipe, pipe2: two ints).  fs-relative stores are left
 * out (no fs_base in the truth; the test watches none).  First, a line
 * "thread TID index I" per thread (bundle order, which breaks ties in
 * time), and with TID POS "at TID POS tsc TSC" (POS's timestamp).  With
 * WATCHTRUTH_READS=1 in the environment, the loads of those bytes instead
 * (reads(), watchtruth_isa.c).  Exits 2 on bad input.
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

const char *bundle_dir;

/*
 * --blocks: every thread's instructions as the scan reads them from
 * libipt's blocks (replay/watch_chain.c) against the cursor's; prints
 * how many positions the blocks gave.  Returns 1 when any differ.
 */
static int blocks(struct rp_session *s)
{
	uint64_t served, all = 0, from_blocks = 0, p;
	size_t ti;
	int bad = 0, d;

	for (ti = 0; ti < rp_thread_count(s); ti++) {
		uint32_t tid = rp_thread_tid(s, ti);
		struct rp_thread_info info;
		struct rp_recover *rc;

		if (rp_thread_info(s, tid, &info) ||
		    (info.insns && rp_recover_new(s, tid, &rc))) {
			fprintf(stderr, "watchtruth: thread %u: cannot read "
				"its history\n", tid);
			return 2;
		}
		if (!info.insns)
			continue;	/* nothing to compare */
		d = wpf_blocks_check(rc, 0, info.insns, &served);
		bad += d != 0;
		all += info.insns;
		from_blocks += served;
		for (p = 0; p + 1000 <= info.insns;
		     p += info.insns / 50 + 1) {
			d = wpf_blocks_check(rc, p, p + 1000, &served);
			bad += d != 0;
			all += 1000;
			from_blocks += served;
		}
		rp_recover_free(rc);
	}
	printf("%" PRIu64 " positions read, %" PRIu64 " from libipt's "
	       "blocks, %d reads where they differ from the cursor's\n",
	       all, from_blocks, bad);
	return bad != 0;
}

/* One stop of scan_all(), with the values the engine gives it. */
static void scan_print(const struct rp_watch_hit *h)
{
	printf("stop %" PRIu64 " %s %s", h->pos,
	       h->gap ? "gap" : h->maybe ? "maybe" : "known",
	       h->syscall ? "syscall" : "insn");
	if (h->old_known)
		printf(" old %#" PRIx64, h->old_val);
	if (h->new_known)
		printf(" new %#" PRIx64, h->new_val);
	putchar('\n');
}

/*
 * --scan BUNDLE TID ADDR LEN stop|stack|skip [fwd] [read]: every stop of
 * a backward watch scan (write; with read, an rwatch's) of thread TID
 * from its end (with fwd, a forward one from its start), one line each:
 * "stop POS known|maybe|gap syscall|insn", then "old V" and "new V"
 * where the engine knows the bytes' values before and after.  Exits 2
 * on bad input.
 */
static int scan_all(int argc, char **argv)
{
	struct rp_thread_info info;
	struct rp_session *s;
	struct rp_recover *rc;
	struct rp_watch_hit h;
	struct rp_watch *w;
	uint64_t end, hi, lo;
	bool fwd = false, rd = false, bad = argc < 7 || argc > 9;
	uint32_t tid;
	int i;

	for (i = 7; !bad && i < argc; i++) {
		if (!strcmp(argv[i], "fwd") && !fwd)
			fwd = true;
		else if (!strcmp(argv[i], "read") && !rd)
			rd = true;
		else
			bad = true;
	}
	if (bad || rp_session_open(&s, argv[2])) {
		fprintf(stderr, "usage: watchtruth --scan BUNDLE TID ADDR LEN "
			"stop|stack|skip [fwd] [read]\n");
		return 2;
	}
	tid = (uint32_t)strtoul(argv[3], NULL, 0);
	if (rp_thread_info(s, tid, &info) || rp_recover_new(s, tid, &rc) ||
	    rp_thread_end(s, tid, &end, NULL) || rp_watch_new(&w)) {
		fprintf(stderr, "watchtruth: no thread %s in %s\n", argv[3],
			argv[2]);
		return 2;
	}
	rp_watch_set_unknown(w, !strcmp(argv[6], "skip") ?
			     RP_WATCH_UNKNOWN_SKIP :
			     !strcmp(argv[6], "stack") ?
			     RP_WATCH_UNKNOWN_STACK : RP_WATCH_UNKNOWN_STOP);
	if (rp_watch_insert(w, rd ? RP_WATCH_READ : RP_WATCH_WRITE, info.pid,
			    strtoull(argv[4], NULL, 0),
			    strtoull(argv[5], NULL, 0)))
		return 2;
	printf("end %" PRIu64 "\n", end);
	if (fwd) {
		for (lo = 0; lo < end && !rp_watch_scan(w, rc, info.pid, 1, lo,
							end, &h);
		     lo = h.pos + 1)
			scan_print(&h);
	}
	for (hi = end; !fwd && hi &&
	     !rp_watch_scan(w, rc, info.pid, -1, 0, hi, &h); hi = h.pos)
		scan_print(&h);
	rp_watch_free(w);
	rp_recover_free(rc);
	rp_session_close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--scan"))
		return scan_all(argc, argv);
	if (argc == 4 && !strcmp(argv[1], "--last")) {
		struct sb_truth_rec *recs;
		struct sb_err err;
		char path[4096];
		size_t n;

		snprintf(path, sizeof(path), "%s/truth/%s.gt", argv[2],
			 argv[3]);
		if (sb_truth_load_recs(path, &recs, &n, &err) || !n) {
			fprintf(stderr, "watchtruth: %s\n", n ? err.msg :
				"empty truth");
			return 2;
		}
		printf("last %zu ip %#" PRIx64 "\n", n, recs[n - 1].ip);
		free(recs);
		return 0;
	}
	struct rp_session *s;
	uint64_t addr, len;
	csh cs;
	size_t ti;

	if (argc == 3 && !strcmp(argv[1], "--blocks")) {
		if (rp_session_open(&s, argv[2])) {
			fprintf(stderr, "watchtruth: cannot open %s\n",
				argv[2]);
			return 2;
		}
		ti = (size_t)blocks(s);
		rp_session_close(s);
		return (int)ti;
	}

	if (argc == 3 && !strcmp(argv[1], "--check")) {
		if (rp_session_open(&s, argv[2]) ||
		    cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
			fprintf(stderr, "watchtruth: cannot open %s\n",
				argv[2]);
			return 2;
		}
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		bundle_dir = argv[2];
		ti = (size_t)check(s, cs);
		cs_close(&cs);
		rp_session_close(s);
		return (int)ti;
	}
	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: watchtruth BUNDLE ADDR LEN [TID POS]\n");
		return 2;
	}
	addr = strtoull(argv[2], NULL, 0);
	len = strtoull(argv[3], NULL, 0);
	if (rp_session_open(&s, argv[1])) {
		fprintf(stderr, "watchtruth: %s: %s\n", argv[1],
			rp_session_errmsg(s));
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 2;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	for (ti = 0; ti < rp_thread_count(s); ti++)
		printf("thread %u index %zu\n", rp_thread_tid(s, ti), ti);
	if (argc == 6) {
		struct rp_cursor *c;
		struct rp_insn in;
		uint32_t t = (uint32_t)strtoul(argv[4], NULL, 0);
		uint64_t at = strtoull(argv[5], NULL, 0);

		if (rp_cursor_new(s, t, &c) ||
		    (rp_cursor_peek(c, at, &in) &&
		     (!at || rp_cursor_peek(c, at - 1, &in)))) {
			fprintf(stderr, "watchtruth: %s thread %u: no "
				"position %" PRIu64 "\n", argv[1], t, at);
			return 2;
		}
		printf("at %u %" PRIu64 " tsc %" PRIu64 "\n", t, at, in.tsc);
		rp_cursor_free(c);
	}
	for (ti = 0; ti < rp_thread_count(s); ti++) {
		uint32_t tid = rp_thread_tid(s, ti);
		struct sb_truth_rec *recs;
		struct rp_cursor *cur;
		struct rp_insn insn;
		struct sb_err err;
		char path[4096];
		uint64_t end, off = 0, unexplained = 0;
		size_t n, p, *map;

		struct rp_thread_info info;

		snprintf(path, sizeof(path), "%s/truth/%u.gt", argv[1], tid);
		if (sb_truth_load_recs(path, &recs, &n, &err)) {
			fprintf(stderr, "watchtruth: %s\n", err.msg);
			return 2;
		}
		/* No instruction, no write (a thread that never ran
		 * traced); its truth must have none either.
		 */
		if (!rp_thread_info(s, tid, &info) && !info.insns && !n) {
			free(recs);
			continue;
		}
		if (rp_cursor_new(s, tid, &cur) ||
		    rp_thread_end(s, tid, &end, NULL)) {
			fprintf(stderr, "watchtruth: %s thread %u: cannot "
				"read its history (%zu instructions in the "
				"truth)\n", argv[1], tid, n);
			return 2;
		}
		map = align(s, tid, cur, recs, n, end, &off, &unexplained);
		if (!map)
			return 2;
		if (unexplained) {
			fprintf(stderr, "watchtruth: thread %u: %" PRIu64
				" positions differ from the truth where the "
				"replay has no gap\n", tid, unexplained);
			return 2;
		}
		/* Registers before instruction p: the truth after the one
		 * before it (aligned across gaps).
		 */
		for (p = 1; p < end; p++) {
			const struct sb_truth_rec *pre;
			size_t tp = map[p];
			cs_insn *ci;
			uint64_t a, l;

			if (tp == NONE || !tp)
				continue;
			pre = &recs[tp - 1];
			if (!(pre->mask & 0xffff) || rp_cursor_peek(cur, p, &insn))
				continue;
			if (cs_disasm(cs, insn.raw, insn.size, insn.ip, 1,
				      &ci) != 1)
				continue;
			if (getenv("WATCHTRUTH_READS") ?
				    reads(ci, pre->regs, addr, addr + len) :
				    dest(ci, pre->regs, recs[tp].mask & 1 ?
						 recs[tp].regs : NULL, &a, &l) &&
					    a < addr + len && addr < a + l)
				printf("%u %zu tsc %" PRIu64 " ip %#" PRIx64
				       "\n", tid, p, insn.tsc, insn.ip);
			cs_free(ci, 1);
		}
		rp_cursor_free(cur);
		free(recs);
		free(map);
	}
	cs_close(&cs);
	rp_session_close(s);
	return 0;
}
