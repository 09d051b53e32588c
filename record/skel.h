/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to record/: what both recorders share (skel.c). */
#ifndef PTREC_RECORD_SKEL_H
#define PTREC_RECORD_SKEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "sideband.h"

/*
 * Removes what sb_bundle_create() and the sideband writer made in @dir for
 * a recording that never started; @dir itself only when @made_dir (it did
 * not exist before).  Files a caller wrote elsewhere in it stay.
 */
void rec_bundle_unmake(const char *dir, bool made_dir);

/*
 * The first error wins: sets *@error to @code and @err's message (when
 * @err is not NULL) only if *@error is still 0.  Returns @code, so that
 * `return rec_fail(...)` reads as the failure it is.  Each recorder wraps
 * it in its own emu_fail()/km_fail() macro.
 */
int rec_fail(int *error, struct sb_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t rec_mono_ns(void);
uint64_t rec_real_ns(void);

/* Vendor, family, model and stepping of the first CPU (/proc/cpuinfo). */
void rec_cpu_fill(struct sb_cpu *cpu);

#endif
