/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The alignment of a replay's positions to the ground truth's records
 * (tests/tools/truthalign.c), for the checkers that compare them
 * (tests/gdb/watchtruth --check, tests/values/valcheck).
 */
#ifndef PTREC_TESTS_TRUTHALIGN_H
#define PTREC_TESTS_TRUTHALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "sideband.h"

/*
 * The truth's index of each of the replay's positions.  Up to the first
 * gap they are equal; after the last, the two end together (aligned from
 * the end, which loops cannot confuse); between two gaps (code the trace
 * does not show and the truth has: JIT code in no image, lost trace),
 * the truth's instructions are passed up to the first run of ALIGN_RUN
 * whose addresses are the replay's next ones.  Positions with no truth
 * are NONE: *@off counts them, *@unexplained those not after a gap and
 * those whose address is not the truth's (a check must fail then, never
 * skip them silently).
 */
#define NONE SIZE_MAX

size_t *align(struct rp_session *s, uint32_t tid, struct rp_cursor *cur,
	      const struct sb_truth_rec *recs, size_t n, uint64_t end,
	      uint64_t *off, uint64_t *unexplained);

#endif
