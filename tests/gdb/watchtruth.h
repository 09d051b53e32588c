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
#include "truthalign.h"

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

/* --check on session @s of bundle_dir: watchtruth's exit status. */
int check(struct rp_session *s, csh cs);

#endif
