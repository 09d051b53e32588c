/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the parts of tests/gdb/watchtruth share: the truth's access model
 * (watchtruth_isa.c), the alignment of positions and --check
 * (watchtruth_check.c), and the bundle being checked (watchtruth.c).
 */
#ifndef PTREC_TESTS_WATCHTRUTH_H
#define PTREC_TESTS_WATCHTRUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

#include "replay.h"
#include "sideband.h"

/* The bundle --check reads (its snapshot). */
extern const char *bundle_dir;

/* The write [*a, *a + *n) of instruction @ci with registers @r before it
 * (and @after, after it); false when it writes no memory we name.
 */
bool dest(const cs_insn *ci, const uint64_t *r, const uint64_t *after,
	  uint64_t *a, uint64_t *n);

/*
 * WATCHTRUTH_READS=1: does instruction @ci, with registers @r before it,
 * read a byte of [@lo, @hi)?
 */
bool reads(const cs_insn *ci, const uint64_t *r, uint64_t lo, uint64_t hi);

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

/* --check on session @s of bundle_dir: watchtruth's exit status. */
int check(struct rp_session *s, csh cs);

#endif
