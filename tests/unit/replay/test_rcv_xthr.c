// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_xthr.c's order (rcv_xthr_span()): a thread's
 * runs (SWITCH_IN to SWITCH_OUT, each with its first position) and other
 * tasks' writes as intervals of time; the states around a state between
 * any two of which no write falls.  A write within the state's own run
 * (a system call running beside it) orders nothing; one before the state
 * moves the first state past the run it ended in; one after ends the span
 * before the first run that ended after it, short of the end (the
 * snapshot) when it falls after the thread's last run.
 */
#include <criterion/criterion.h>

#include "rcv_win.h"

/* Runs [10, 20] [30, 40] [50, 60] [70, 80] at positions 0, 5, 9, 14 of 20. */
static uint64_t in[] = { 10, 30, 50, 70 }, out[] = { 20, 40, 60, 80 },
		fp[] = { 0, 5, 9, 14 };
static const struct rcv_xruns runs = { in, out, fp, 4, 20, NULL };

static bool span(const struct rcv_xiv *iv, size_t n, uint64_t s,
		 uint64_t *from, uint64_t *until)
{
	return rcv_xthr_span(&runs, iv, n, s, from, until);
}

Test(rcv_xthr, no_writes_whole_history)
{
	uint64_t f, u;

	cr_assert(span(NULL, 0, 7, &f, &u));
	cr_assert_eq(f, 0);
	cr_assert_eq(u, UINT64_MAX);
}

Test(rcv_xthr, write_between_runs_bounds_both_ways)
{
	/* Another thread's store in its run between [30,40] and [50,60]. */
	struct rcv_xiv iv[] = { { 42, 48, 0, 0 } };
	uint64_t f, u;

	cr_assert(span(iv, 1, 6, &f, &u));	/* in run [30, 40] */
	cr_assert_eq(f, 0);
	cr_assert_eq(u, 8);			/* not state 9 (run 3) */
	cr_assert(span(iv, 1, 12, &f, &u));	/* in run [50, 60] */
	cr_assert_eq(f, 9);			/* not state 8 */
	cr_assert_eq(u, UINT64_MAX);
}

Test(rcv_xthr, write_inside_the_run_orders_nothing)
{
	/* A system call from 35 to 52: beside runs 2 and 3. */
	struct rcv_xiv iv[] = { { 35, 52, 0, 0 } };
	uint64_t f, u;

	cr_assert_not(span(iv, 1, 6, &f, &u));
	cr_assert_not(span(iv, 1, 10, &f, &u));
	cr_assert(span(iv, 1, 2, &f, &u));
	cr_assert_eq(u, 4);
	cr_assert(span(iv, 1, 15, &f, &u));
	cr_assert_eq(f, 14);
}

Test(rcv_xthr, write_after_the_last_run_cuts_the_snapshot)
{
	struct rcv_xiv iv[] = { { 90, 95, 0, 0 } };
	uint64_t f, u;

	cr_assert(span(iv, 1, 3, &f, &u));
	cr_assert_eq(u, 19);		/* the last state, not the end */
}

Test(rcv_xthr, nearest_writes_win)
{
	struct rcv_xiv iv[] = { { 1, 5, 0, 0 }, { 22, 28, 0, 0 },
				{ 62, 68, 0, 0 }, { 85, 86, 0, 0 } };
	uint64_t f, u;

	cr_assert(span(iv, 4, 10, &f, &u));	/* run [50, 60] */
	cr_assert_eq(f, 5);			/* after the write at 28 */
	cr_assert_eq(u, 13);			/* before the one at 62 */
}

Test(rcv_xthr, before_the_first_run_not_known)
{
	static uint64_t in1[] = { 10 }, out1[] = { 20 }, fp1[] = { 3 };
	const struct rcv_xruns r = { in1, out1, fp1, 1, 5, NULL };
	uint64_t f, u;

	cr_assert_not(rcv_xthr_span(&r, NULL, 0, 1, &f, &u));
	cr_assert(rcv_xthr_span(&r, NULL, 0, 4, &f, &u));
}
