// SPDX-License-Identifier: GPL-3.0-or-later
/* The image store as the recorders fill it (images.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"

struct rec_image {
	char *path;
	char key[SB_IMAGE_KEY_MAX];
	struct rec_image *next;
};

const char *rec_image_key(struct rec_images *ims, struct sb_bundle *b,
			  const char *path, int *fatal, struct sb_err *err)
{
	struct rec_image *im;
	int ret;

	*fatal = 0;
	err->msg[0] = '\0';
	for (im = ims->head; im; im = im->next)
		if (!strcmp(im->path, path))
			return im->key;
	im = calloc(1, sizeof(*im));
	if (!im || !(im->path = strdup(path))) {
		free(im);
		*fatal = -ENOMEM;
		strcpy(err->msg, "out of memory");
		return NULL;
	}
	ret = sb_bundle_add_image_file(b, path, im->key, sizeof(im->key), err);
	if (ret == -ENOSPC || ret == -EFBIG || ret == -EDQUOT || ret == -EIO ||
	    ret == -EROFS || ret == -ENOMEM)
		*fatal = ret;
	else if (ret)
		im->key[0] = '\0';
	/* Kept either way, so a file is tried (and warned about) once. */
	im->next = ims->head;
	ims->head = im;
	return *fatal ? NULL : im->key;
}

void rec_images_free(struct rec_images *ims)
{
	while (ims->head) {
		struct rec_image *im = ims->head;

		ims->head = im->next;
		free(im->path);
		free(im);
	}
}
