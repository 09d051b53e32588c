// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The timeline (replay/timeline.c) on a real recording of
 * tests/programs/threads (four workers and main).  Its indexed searches
 * are checked against a brute-force scan of every instruction of every
 * thread, its cached code reads against rp_read_code(), and its ends
 * against the register snapshots the recorder wrote.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sideband.h"

#ifndef TL_BUNDLE
#error "TL_BUNDLE: the recorded bundle of tests/programs/threads"
#endif

static struct rp_session *s;
static struct rp_timeline *tl;

static void setup(void)
{
	cr_assert_eq(rp_session_open(&s, TL_BUNDLE), 0, "%s",
		     rp_session_errmsg(s));
	cr_assert_eq(rp_timeline_new(s, &tl), 0);
}

static void teardown(void)
{
	rp_timeline_free(tl);
	rp_session_close(s);
}

/* The address of function @name's first instruction, from the history. */
static uint64_t entry_of(const char *name)
{
	size_t i;

	for (i = 0; i < rp_timeline_count(tl); i++) {
		struct rp_cursor *c = rp_timeline_cursor(tl, i);
		uint64_t p;

		for (p = 0; p < rp_timeline_end(tl, i); p++) {
			struct rp_insn insn;
			struct rp_sym sym;

			cr_assert_eq(rp_cursor_peek(c, p, &insn), 0);
			if (!rp_symbolize(s, &insn, &sym) && sym.function &&
			    !strcmp(sym.function, name) && !sym.offset)
				return insn.ip;
		}
	}
	cr_assert_fail("no %s in the history", name);
	return 0;
}

struct hit {
	uint64_t tsc;
	size_t thread;
	uint64_t pos;
};

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Every execution of @ip in every thread, in time order: by brute force. */
static struct hit *all_hits(uint64_t ip, size_t *n)
{
	struct hit *v = NULL;
	size_t i;

	*n = 0;
	for (i = 0; i < rp_timeline_count(tl); i++) {
		struct rp_cursor *c = rp_timeline_cursor(tl, i);
		uint64_t p;

		for (p = 0; p < rp_timeline_end(tl, i); p++) {
			struct rp_insn insn;

			cr_assert_eq(rp_cursor_peek(c, p, &insn), 0);
			if (insn.ip != ip)
				continue;
			v = realloc(v, (*n + 1) * sizeof(*v));
			cr_assert(v);
			v[(*n)++] = (struct hit){ insn.tsc, i, p };
		}
	}
	qsort(v, *n, sizeof(*v), hit_cmp);
	return v;
}

TestSuite(timeline, .init = setup, .fini = teardown);

Test(timeline, threads_start_at_their_end)
{
	size_t i;

	cr_assert_eq(rp_timeline_count(tl), 5);
	for (i = 0; i < rp_timeline_count(tl); i++)
		cr_assert_eq(rp_timeline_pos(tl, i), rp_timeline_end(tl, i));
}

/*
 * The end is where the recorder says the thread is: the end-state snapshot
 * (what a core file would hold) for the threads alive at the end, else
 * the thread's register file.  Every thread of this program ended in a
 * system call: main in exit_group, which the snapshot shows it inside
 * (RIP after the 2-byte syscall, so its history ends after it), the
 * workers in exit, which their register files show them at (so theirs
 * ends at it).
 */
Test(timeline, ends_agree_with_register_snapshots)
{
	struct rp_snapshot *sn = NULL;
	struct sb_manifest *m;
	struct sb_err err;
	size_t i, k, in_snap = 0;

	cr_assert_eq(sb_manifest_load(&m, TL_BUNDLE, &err), 0);
	cr_assert_eq(rp_snapshot_open(&sn, TL_BUNDLE), 0);
	for (i = 0; i < rp_timeline_count(tl); i++) {
		uint32_t tid = rp_timeline_tid(tl, i);
		struct rp_snap_thread_info st;
		struct rp_thread_info ti;
		struct rp_insn last;
		struct sb_regs regs;
		char path[4096];
		uint64_t pc, rip, rsp;

		for (k = 0; k < m->nthreads && m->threads[k].tid != tid; k++)
			;
		cr_assert_lt(k, m->nthreads);
		cr_assert(m->threads[k].regs, "thread %u has no snapshot", tid);
		snprintf(path, sizeof(path), "%s/%s", TL_BUNDLE,
			 m->threads[k].regs);
		cr_assert_eq(sb_regs_load(&regs, path, &err), 0, "%s",
			     err.msg);
		rip = regs.val[SB_REG_RIP];
		rsp = regs.val[SB_REG_RSP];
		cr_assert_eq(rp_thread_info(s, tid, &ti), 0);
		cr_assert_eq(rp_cursor_peek(rp_timeline_cursor(tl, i),
					    ti.insns - 1, &last), 0);
		if (!rp_snapshot_thread(sn, tid, &st)) {
			in_snap++;
			rip = st.regs[SB_REG_RIP];
			rsp = st.regs[SB_REG_RSP];
			cr_assert_eq(rp_timeline_end(tl, i), ti.insns,
				     "thread %u", tid);
			cr_assert_eq(rip, last.ip + last.size);
		} else {
			cr_assert_eq(rp_timeline_end(tl, i), ti.insns - 1,
				     "thread %u", tid);
			cr_assert_eq(rip, last.ip);
		}
		pc = rp_timeline_pc(tl, i);
		cr_assert_eq(pc, rip, "thread %u", tid);
		cr_assert_eq(rp_timeline_reg(tl, i, RP_REG_RSP, &pc), 0);
		cr_assert_eq(pc, rsp);
	}
	cr_assert_eq(in_snap, 1, "only main is alive at the end");
	rp_snapshot_close(sn);
	sb_manifest_free(m);
}

Test(timeline, registers_other_than_pc_only_at_the_end)
{
	size_t cur = rp_timeline_selected(tl);
	uint64_t v;

	cr_assert_eq(rp_timeline_step(tl, -1), RP_STOP_STEP);
	cr_assert_eq(rp_timeline_reg(tl, cur, RP_REG_RSP, &v),
		     -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_timeline_reg(tl, cur, RP_REG_RIP, &v), 0);
	cr_assert_eq(rp_timeline_step(tl, 1), RP_STOP_END);
	cr_assert_eq(rp_timeline_reg(tl, cur, RP_REG_RSP, &v), 0);
}

/*
 * reverse-continue over every thread visits every execution of worker's
 * entry, newest first, in time order; no thread ever moves forward; then
 * the start of the whole history, in the thread that started first.
 */
Test(timeline, reverse_continue_visits_hits_in_time_order)
{
	uint64_t ip = entry_of("worker"), prev[8];
	size_t n, k, i, first = 0;
	struct hit *hits = all_hits(ip, &n);

	cr_assert_eq(n, 4, "worker entered %zu times", n);
	cr_assert_eq(rp_timeline_break_insert(tl, ip), 0);
	for (i = 0; i < rp_timeline_count(tl); i++)
		prev[i] = rp_timeline_pos(tl, i);
	for (k = n; k-- > 0;) {
		cr_assert_eq(rp_timeline_continue(tl, -1, true),
			     RP_STOP_BREAK);
		i = rp_timeline_selected(tl);
		cr_assert_eq(i, hits[k].thread, "hit %zu", k);
		cr_assert_eq(rp_timeline_pos(tl, i), hits[k].pos);
		cr_assert_eq(rp_timeline_pc(tl, i), ip);
		for (i = 0; i < rp_timeline_count(tl); i++) {
			cr_assert_leq(rp_timeline_pos(tl, i), prev[i],
				      "thread %zu moved forward", i);
			prev[i] = rp_timeline_pos(tl, i);
		}
		/* Selecting another thread does not move the present. */
		rp_timeline_select(tl, (hits[k].thread + 1) %
				   rp_timeline_count(tl));
	}
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_BEGIN);
	for (i = 1; i < rp_timeline_count(tl); i++) {
		struct rp_thread_info a, b;

		rp_thread_info(s, rp_timeline_tid(tl, i), &a);
		rp_thread_info(s, rp_timeline_tid(tl, first), &b);
		if (a.first_tsc < b.first_tsc)
			first = i;
	}
	cr_assert_eq(rp_timeline_selected(tl), first);
	cr_assert_eq(rp_timeline_pos(tl, first), 0);
	/* And forward again: oldest first, then the end of every thread. */
	for (k = 0; k < n; k++) {
		cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_BREAK);
		cr_assert_eq(rp_timeline_selected(tl), hits[k].thread);
		cr_assert_eq(rp_timeline_pos(tl, hits[k].thread), hits[k].pos);
	}
	cr_assert_eq(rp_timeline_continue(tl, 1, true), RP_STOP_END);
	for (i = 0; i < rp_timeline_count(tl); i++)
		cr_assert_eq(rp_timeline_pos(tl, i), rp_timeline_end(tl, i));
	free(hits);
}

Test(timeline, one_thread_continue_stays_in_it)
{
	uint64_t ip = entry_of("worker");
	size_t n, k, last = 0;
	struct hit *hits = all_hits(ip, &n);

	for (k = 0; k < n; k++)
		if (hits[k].thread != 0)
			last = k;
	rp_timeline_break_insert(tl, ip);
	rp_timeline_select(tl, hits[last].thread);
	cr_assert_eq(rp_timeline_continue(tl, -1, false), RP_STOP_BREAK);
	cr_assert_eq(rp_timeline_selected(tl), hits[last].thread);
	cr_assert_eq(rp_timeline_pos(tl, hits[last].thread), hits[last].pos);
	cr_assert_eq(rp_timeline_continue(tl, -1, false), RP_STOP_BEGIN);
	cr_assert_eq(rp_timeline_pos(tl, hits[last].thread), 0);
	free(hits);
}

Test(timeline, breakpoints_insert_and_remove)
{
	uint64_t ip = entry_of("worker");

	cr_assert_eq(rp_timeline_break_insert(tl, ip), 0);
	cr_assert_eq(rp_timeline_break_insert(tl, ip), 0);
	rp_timeline_break_remove(tl, ip);
	rp_timeline_break_remove(tl, ip);
	/* None left: straight to the start. */
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_BEGIN);
}

Test(timeline, steps_stop_at_the_edges)
{
	size_t cur = rp_timeline_selected(tl);
	uint64_t end = rp_timeline_end(tl, cur);

	cr_assert_eq(rp_timeline_step(tl, 1), RP_STOP_END);
	cr_assert_eq(rp_timeline_pos(tl, cur), end);
	cr_assert_eq(rp_timeline_step(tl, -1), RP_STOP_STEP);
	cr_assert_eq(rp_timeline_pos(tl, cur), end - 1);
	cr_assert_eq(rp_timeline_goto(tl, cur, 1), 0);
	cr_assert_eq(rp_timeline_step(tl, -1), RP_STOP_BEGIN);
	cr_assert_eq(rp_timeline_step(tl, -1), RP_STOP_BEGIN);
	cr_assert_eq(rp_timeline_pos(tl, cur), 0);
	cr_assert_eq(rp_timeline_goto(tl, cur, end + 1), -RP_ERR_RANGE);
}

/* Code read through the cached address space, moving back and forth,
 * equals the uncached read and the decoder's instruction bytes.
 */
Test(timeline, cached_code_reads_match)
{
	size_t i;

	for (i = 0; i < rp_timeline_count(tl); i++) {
		struct rp_cursor *c = rp_timeline_cursor(tl, i);
		uint64_t end = rp_timeline_end(tl, i), p;
		uint32_t tid = rp_timeline_tid(tl, i);

		for (p = 0; p < end; p += 97) {
			uint64_t at = (p * 7919) % end;
			struct rp_insn insn;
			uint8_t a[64], b[64];
			int na, nb;

			cr_assert_eq(rp_cursor_peek(c, at, &insn), 0);
			cr_assert_eq(rp_timeline_goto(tl, i, at), 0);
			na = rp_timeline_read_code(tl, i, insn.ip, a,
						   sizeof(a));
			nb = rp_read_code(s, tid, at, insn.ip, b, sizeof(b));
			cr_assert_gt(na, 0);
			cr_assert_eq(na, nb);
			cr_assert_arr_eq(a, b, (size_t)na);
			cr_assert_arr_eq(a, insn.raw, insn.size);
		}
	}
}

Test(timeline, crash_free_program_has_no_signal)
{
	struct rp_signal sig;

	cr_assert_eq(rp_timeline_signal(tl, rp_timeline_selected(tl), &sig),
		     -RP_ERR_NOTFOUND);
}

/*
 * A breakpoint on the instruction the workers died in (their exit system
 * call, where their histories end): reverse-continue stops at each, in
 * time order, at the end of that thread, the position GDB shows there.
 */
Test(timeline, hits_at_the_instruction_a_thread_died_in)
{
	struct hit *v = NULL;
	struct rp_insn insn;
	size_t i, n = 0, w = SIZE_MAX, k;

	for (i = 0; i < rp_timeline_count(tl) && w == SIZE_MAX; i++) {
		struct rp_thread_info ti;

		rp_thread_info(s, rp_timeline_tid(tl, i), &ti);
		if (rp_timeline_end(tl, i) < ti.insns)
			w = i;
	}
	cr_assert_neq(w, SIZE_MAX, "no thread died inside an instruction");
	cr_assert_eq(rp_cursor_peek(rp_timeline_cursor(tl, w),
				    rp_timeline_end(tl, w), &insn), 0);
	/* Every execution of it, the unfinished ones too, by brute force. */
	for (i = 0; i < rp_timeline_count(tl); i++) {
		struct rp_thread_info ti;
		struct rp_insn at;
		uint64_t p;

		rp_thread_info(s, rp_timeline_tid(tl, i), &ti);
		for (p = 0; p < ti.insns; p++) {
			cr_assert_eq(rp_cursor_peek(rp_timeline_cursor(tl, i),
						    p, &at), 0);
			if (at.ip != insn.ip)
				continue;
			v = realloc(v, (n + 1) * sizeof(*v));
			v[n++] = (struct hit){ at.tsc, i, p };
		}
	}
	qsort(v, n, sizeof(*v), hit_cmp);
	cr_assert_geq(n, 4, "%zu executions", n);
	rp_timeline_break_insert(tl, insn.ip);
	for (k = n; k-- > 0;) {
		cr_assert_eq(rp_timeline_continue(tl, -1, true),
			     RP_STOP_BREAK, "hit %zu", k);
		cr_assert_eq(rp_timeline_selected(tl), v[k].thread);
		cr_assert_eq(rp_timeline_pos(tl, v[k].thread), v[k].pos);
		cr_assert_eq(rp_timeline_pc(tl, v[k].thread), insn.ip);
	}
	cr_assert_eq(rp_timeline_continue(tl, -1, true), RP_STOP_BEGIN);
	free(v);
}
