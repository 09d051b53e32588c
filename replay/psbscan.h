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

/* struct rp_split (rp_internal.h): where a single-PSB stream can be cut. */

/*
 * Such places in @t's stream, after its first PSB, in order, into *@v
 * (malloc'd) and *@n: the first at or after each multiple of @every bytes
 * (1: all of them).  *@timed (when not NULL): whether the walk met an MTC
 * or CYC packet, which move libipt's time between TSCs (a made-up PSB+
 * carries the last TSC only).  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_scan_splits(const struct rp_thread *t, uint64_t every,
		   struct rp_split **v, size_t *n, bool *timed);

/*
 * Writes the made-up start for @sp into @buf (at least RP_SPLIT_PREFIX
 * bytes): PSB, TSC, TMA, MODE.Exec, PSBEND and @sp's TIP.PGE with the
 * whole IP.  Returns its length, -RP_ERR_NOMEM, or -RP_ERR_DECODE when
 * libipt's encoder refuses a packet (a bug: the packets are ours).
 */
#define RP_SPLIT_PREFIX 64
int rp_split_prefix(const struct rp_split *sp, uint8_t *buf);

/*
 * The same with libipt's return stack made to hold @rets[0..@n-1] (the
 * innermost last; 64-bit code): after the PSB+, a TIP.PGE to 'call *%rax'
 * at @rets[0] - 2, TIPs to the others' and then to 'jmp *%rax' at @x, a
 * TIP.PGD, MODE.Exec and @sp's TIP.PGE.  The decoder must read that code
 * from an image of its own (decode.c) until the disable.  At least
 * RP_SPLIT_PREFIX_MAX bytes.
 */
#define RP_SPLIT_PREFIX_MAX (RP_SPLIT_PREFIX + 9 * (RP_RETSTACK + 3))
int rp_split_prefix_rets(const struct rp_split *sp, const uint64_t *rets,
			 size_t n, uint64_t x, uint8_t *buf);

/*
 * A decoder's input starting at @sp: the made-up start (with @nrets
 * return addresses, rp_split_prefix_rets()), then a copy of
 * @t's stream after the TIP.PGE up to stream offset @to (at most the
 * end), in *@buf (malloc'd), @*len bytes; a stream offset is a buffer
 * offset + *@delta.  Returns 0, -RP_ERR_NOMEM or -RP_ERR_DECODE.
 */
int rp_split_buffer(const struct rp_thread *t, const struct rp_split *sp,
		    const uint64_t *rets, size_t nrets, uint64_t x,
		    uint64_t to, uint8_t **buf, size_t *len, int64_t *delta);

#endif
