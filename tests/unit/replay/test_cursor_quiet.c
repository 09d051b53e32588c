// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit test of replay/cursor.c's memory of stretches that hold no signal
 * handler's return (resync_after_signal()), by the work it saves, not by
 * time: on tests/bench/gdbloop's trace from step()'s entry repeated 6
 * times (~600,000 instructions, scripts/bench-values' 10^7 history in
 * small), a stop at the end and then one in the middle each scan 2^18
 * instructions back once, and the stops after them near the middle
 * (reverse steps) scan a handful.  Before, one stretch was kept and the
 * middle's, as long as the end's, never replaced it: every step there
 * scanned 2^18 again (tests/bench/gdb_steps.py from deep).  The frames
 * are the same as a fresh cursor's (no memory) at the stops checked.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "replay.h"
#include "rp_internal.h"

#define MAXF 64

static struct rp_session *s;
static uint32_t tid;
static uint64_t end;

static void setup(void)
{
	cr_assert_eq(rp_session_open(&s, CQUIET_BUNDLE), 0);
	tid = rp_thread_tid(s, 0);
	cr_assert_eq(rp_thread_end(s, tid, &end, NULL), 0);
	cr_assert_gt(end, 2 * (1u << 18), "history %lu too short",
		     (unsigned long)end);
}

static void teardown(void)
{
	rp_session_close(s);
}

TestSuite(cursor_quiet, .init = setup, .fini = teardown);

/*
 * rp_cursor_frames() at @pos with @c: the positions its scans examined;
 * with @check, the frames are those of a fresh cursor.
 */
static uint64_t frames(struct rp_cursor *c, uint64_t pos, bool check)
{
	uint64_t a[MAXF], b[MAXF], before = rp_cursor_resync_peeks(c);
	struct rp_cursor *fresh;
	int na, nb, i;

	na = rp_cursor_frames(c, pos, a, MAXF);
	cr_assert_geq(na, 0);
	if (!check)
		return rp_cursor_resync_peeks(c) - before;
	cr_assert_eq(rp_cursor_new(s, tid, &fresh), 0);
	nb = rp_cursor_frames(fresh, pos, b, MAXF);
	rp_cursor_free(fresh);
	cr_assert_eq(na, nb, "at %lu: %d frames, fresh %d",
		     (unsigned long)pos, na, nb);
	for (i = 0; i < na; i++)
		cr_assert_eq(a[i], b[i], "at %lu frame %d",
			     (unsigned long)pos, i);
	return rp_cursor_resync_peeks(c) - before;
}

Test(cursor_quiet, middle_after_end)
{
	struct rp_cursor *c;
	uint64_t mid = end / 2, w, most = 0;
	int i;

	cr_assert_eq(rp_cursor_new(s, tid, &c), 0);
	/* The first stops scan: the test would pass vacuously otherwise. */
	w = frames(c, end, true);
	cr_assert_gt(w, 100000, "end: %lu examined", (unsigned long)w);
	w = frames(c, mid, true);
	cr_assert_gt(w, 100000, "middle: %lu examined", (unsigned long)w);
	/* Reverse steps from the middle, and back at the end. */
	for (i = 1; i <= 300; i++) {
		w = frames(c, mid - (uint64_t)i * 7, i % 100 == 0);
		most = w > most ? w : most;
	}
	cr_assert_lt(most, 5000, "a step in the middle examined %lu",
		     (unsigned long)most);
	w = frames(c, end - 3, true);
	cr_assert_lt(w, 5000, "back at the end: %lu examined",
		     (unsigned long)w);
	rp_cursor_free(c);
}
