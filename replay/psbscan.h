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

/*
 * A place to start decoding a stream that has no PSB there: a TIP.PGE
 * (tracing resumes) while tracing was off, with its full IP recovered
 * from the packets before it (last-IP compression), and the execution
 * mode and timing then.  A decoder cannot start there by itself (libipt
 * syncs at PSBs only), so index.c gives it a made-up PSB+ and this
 * TIP.PGE in full ahead of the bytes that follow (rp_split_prefix).
 */
struct rp_split {
	uint64_t offset;	/* of the TIP.PGE */
	uint64_t ip;
	uint64_t tsc;		/* the last TSC before it (0: none) */
	uint16_t ctc, fc;	/* the last TMA before it */
	uint8_t len;		/* the TIP.PGE's bytes */
	uint8_t csl, csd;	/* MODE.Exec then */
	bool has_tma;
};

/*
 * Such places in @t's stream, after its first PSB, in order, into *@v
 * (malloc'd) and *@n: the first at or after each multiple of @every bytes
 * (1: all of them).  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_scan_splits(const struct rp_thread *t, uint64_t every,
		   struct rp_split **v, size_t *n);

/*
 * Writes the made-up start for @sp into @buf (at least RP_SPLIT_PREFIX
 * bytes): PSB, TSC, TMA, MODE.Exec, PSBEND and @sp's TIP.PGE with the
 * whole IP.  Returns its length, -RP_ERR_NOMEM, or -RP_ERR_DECODE when
 * libipt's encoder refuses a packet (a bug: the packets are ours).
 */
#define RP_SPLIT_PREFIX 64
int rp_split_prefix(const struct rp_split *sp, uint8_t *buf);

#endif
