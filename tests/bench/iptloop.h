/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmarks' baseline: a plain libipt instruction-decoder loop over a
 * bundle's stream, shared by bench_replay and bench_scale so that both
 * compare with the same thing.
 */
#ifndef PTREC_BENCH_IPTLOOP_H
#define PTREC_BENCH_IPTLOOP_H

#include <stdint.h>

/* Monotonic seconds. */
double iptloop_now(void);

/*
 * Decodes @pt_path with libipt's instruction decoder against the snapshot
 * code mappings of bundle @dir (a static program: nothing changes), every
 * instruction through pt_insn_next(), events skipped.  Stores the count in
 * *@insns and returns the decode time in seconds (the image is loaded and
 * the stream read before the clock starts), or -1.
 */
double iptloop_run(const char *dir, const char *pt_path, uint64_t *insns);

#endif
