/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to record/: a process's mappings as /proc/PID/maps shows them. */
#ifndef PTREC_RECORD_MAPS_H
#define PTREC_RECORD_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map {
	uint64_t start, end, pgoff;
	uint32_t prot;		/* PROT_* */
	uint32_t mflags;	/* MAP_SHARED or MAP_PRIVATE */
	char *path;		/* "" for anonymous; "[vdso]", ... */
	uint32_t dev_major, dev_minor;	/* the file's device, 0:0 none */
	uint64_t ino;		/* its inode, 0 none */
	/* the software recorder's: pages of a file-backed executable
	 * mapping written (copied on write) when its MMAP was recorded
	 */
	uint64_t cowed;
};

struct maps {
	struct map *v;
	size_t n;
};

/* Reads /proc/@pid/maps.  Returns 0 or a negative errno. */
int maps_read(pid_t pid, struct maps *out);
void maps_free(struct maps *m);

/* Whether two entries describe the same mapping (everything equal). */
bool map_equal(const struct map *a, const struct map *b);

/* Whether the mapping is backed by a file whose code we can store. */
bool map_is_file(const struct map *m);

#endif
