/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmarks' baseline: a plain libipt instruction-decoder loop over a
 * bundle's stream, shared by bench_replay and bench_scale so that both
 * compare with the same thing.
 */
#ifndef PTREC_BENCH_IPTLOOP_H
#define PTREC_BENCH_IPTLOOP_H

#include <stdint.h>

#include "rawpt.h"

/* Monotonic seconds. */
double iptloop_now(void);

/*
 * Calls @add for each code mapping in the sideband of bundle @dir
 * (DIR/images/KEY, its file offset, length and address), wherever in
 * time: for test programs that map nothing twice at one address.  What
 * @add returns is its own business (it says why it failed).  Returns -1
 * when the sideband cannot be read.
 */
int iptloop_images(const char *dir, rawpt_add_fn add, void *ctx);

/*
 * Decodes @pt_path with libipt's instruction decoder against the snapshot
 * code mappings of bundle @dir (a static program: nothing changes), every
 * instruction through pt_insn_next(), events skipped.  Stores the count in
 * *@insns and returns the decode time in seconds (the image is loaded and
 * the stream read before the clock starts), or -1.
 */
double iptloop_run(const char *dir, const char *pt_path, uint64_t *insns);

#endif
