// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What both recorders share around their own loops (issue #14's recorder
 * skeleton, started here): removing a bundle that a recording failed to
 * start, so that `ptrec record -p 999999` or a program that cannot run
 * leaves nothing behind, and never touches a directory it did not create.
 */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "skel.h"

void rec_bundle_unmake(const char *dir, bool made_dir)
{
	static const char *const sub[] = { "pt", "regs", "truth", "images" };
	static const char *const files[] = { "sideband.sb",
					     "snapshot.ptsnap.tmp" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	/* Only empty directories go: rmdir never removes what is in them. */
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		rmdir(path);
	}
	if (made_dir)
		rmdir(dir);
}
