/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A history that ends inside a repeated string instruction, for the
 * watch scan (watch_rep.c): the accesses of its iterations done before
 * the end, which the trace shows no instruction for.
 */
#ifndef PTREC_WATCH_REP_H
#define PTREC_WATCH_REP_H

#include <stdint.h>

#include "replay.h"

/*
 * The accesses of the partial string instruction where @rc's thread
 * ends, into @acc (at most 3: a store, loads), made after the history's
 * last instruction, whose position goes into *@g.  Returns how many (0:
 * the history does not end inside one, or none of its iterations ran).
 */
int wpr_end_accesses(struct rp_recover *rc, struct rp_access acc[3],
		     uint64_t *g);

#endif /* PTREC_WATCH_REP_H */
