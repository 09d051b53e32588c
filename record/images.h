/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to record/: the image store as both recorders fill it, one
 * copy per executed file, looked up by path.
 */
#ifndef PTREC_RECORD_IMAGES_H
#define PTREC_RECORD_IMAGES_H

#include "sideband.h"

struct rec_image;

struct rec_images {
	struct rec_image *head;
};

/**
 * rec_image_key() - the image-store key of the file at @path
 *
 * Stores the file in @b's image store the first time a path is seen.
 * Returns the key, "" when the file is gone or unreadable (a gap in
 * replay, not a failed recording: @err says why, for a warning), or NULL
 * when the bundle could not take it (ENOSPC, EFBIG, EDQUOT, EIO, EROFS,
 * ENOMEM): *@fatal is then the negative errno and @err says why.
 */
const char *rec_image_key(struct rec_images *ims, struct sb_bundle *b,
			  const char *path, int *fatal, struct sb_err *err);

void rec_images_free(struct rec_images *ims);

#endif
