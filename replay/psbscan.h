/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PSB scan, the bottom layer of decoding: where a thread's stream can be
 * entered (each PSB's offset, the TSC and FUP of its PSB+).  The index and
 * segment decoding above it start only at these points.
 */
#ifndef PTREC_REPLAY_PSBSCAN_H
#define PTREC_REPLAY_PSBSCAN_H

#include "rp_internal.h"

/* Scans a thread's stream for PSBs.  Returns 0 or -RP_ERR_NOMEM. */
int rp_scan_psbs(struct rp_thread *t);

/* The index of the last PSB at or before trace offset @off, or SIZE_MAX. */
size_t rp_psb_at(const struct rp_thread *t, uint64_t off);

#endif
