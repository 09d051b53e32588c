/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the unit tests of watch_proof.c's pass share (test_watch_proof.c,
 * its registers and intervals; test_watch_dep.c, quiet stretches): run a
 * few decoded instructions through the pass and take their accesses.  It
 * exists because those tests were one file past 1,000 lines.
 */
#ifndef WPFFIX_H
#define WPFFIX_H

#include <criterion/criterion.h>

#include "rcv_internal.h"
#include "watch_proof.h"

/* Runs @n instructions with no cut, @top after them; their accesses. */
static struct wpf_win *run(const struct rcv_ins *in, size_t n,
			   const struct wpf_edge *top, const uint8_t *cut,
			   struct wpf_out *out)
{
	static const uint8_t none[64];
	const struct rcv_ins *v[64];
	struct wpf_win *w;
	size_t i;

	cr_assert_lt(n, sizeof(none));
	for (i = 0; i < n; i++)
		v[i] = &in[i];
	cr_assert_eq(wpf_win_run(v, cut ? cut : none, n, 0, top, true, &w),
		     0);
	cr_assert_eq(wpf_win_acc(w, 0, out), 0);
	return w;
}

#endif
