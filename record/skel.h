/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to record/: what both recorders share (skel.c). */
#ifndef PTREC_RECORD_SKEL_H
#define PTREC_RECORD_SKEL_H

#include <stdbool.h>

/*
 * Removes what sb_bundle_create() and the sideband writer made in @dir for
 * a recording that never started; @dir itself only when @made_dir (it did
 * not exist before).  Files a caller wrote elsewhere in it stay.
 */
void rec_bundle_unmake(const char *dir, bool made_dir);

#endif
