/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to sideband/: helpers shared by its files. */
#ifndef PTREC_SIDEBAND_INTERNAL_H
#define PTREC_SIDEBAND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sideband.h"

#define SB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SB_ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/*
 * Reads a whole regular file of at most @max bytes into a NUL-terminated
 * heap buffer.  Returns 0, -EFBIG, -ENOMEM or -errno, with a message.
 */
int sb_read_file(const char *path, size_t max, char **buf, size_t *len,
		 struct sb_err *err);

/*
 * Opens @path read-only without blocking on a FIFO or device and refuses
 * anything but a regular file (-EINVAL).  Returns a blocking descriptor or
 * -errno, with a message.  For files outside a bundle; inside one,
 * sb_bundle_open_file().
 */
int sb_open_regular(const char *path, struct sb_err *err);

/* sb_read_file() on an open descriptor, which it closes; @path names it. */
int sb_read_fd(int fd, const char *path, size_t max, char **buf, size_t *len,
	       struct sb_err *err);

/* Tests: take the openat() walk even where the kernel has openat2(). */
void sb_open_force_walk(bool walk);

/* write(2) all of @buf, retrying short writes; returns 0 or -errno. */
int sb_write_all(int fd, const void *buf, size_t len);

/*
 * How much of a file written through a temporary name is synced: always
 * the rename (a reader sees the old name or the whole new file, even after
 * the writer dies), plus the file's bytes before it (SB_SYNC_FILE: the
 * file is complete under its name after a power loss too), plus its
 * directory after it (SB_SYNC_DURABLE: the name survives a power loss).
 */
enum sb_sync { SB_SYNC_NONE, SB_SYNC_FILE, SB_SYNC_DURABLE };

/* Writes @len bytes to @path atomically: @path.tmp, synced as @how says,
 * renamed over @path.
 */
int sb_write_file_sync(const char *path, const void *buf, size_t len,
		       enum sb_sync how, struct sb_err *err);

/* sb_write_file_sync(), SB_SYNC_DURABLE. */
int sb_write_file_atomic(const char *path, const void *buf, size_t len,
			 struct sb_err *err);

/* sb_manifest_save() with the manifest synced as @how says. */
int sb_manifest_save_sync(const struct sb_manifest *m, const char *dir,
			  enum sb_sync how, struct sb_err *err);

/* A sideband writer whose close does not fsync its file (a bundle that
 * is not durable, sb_bundle_set_durable()).
 */
void sb_writer_no_sync(struct sb_writer *w);

/* fsync the directory that holds @path.  Returns 0 or -errno. */
int sb_sync_parent(const char *path);


/* Checks a manifest-relative path: not empty, not absolute, no "..". */
int sb_path_is_safe(const char *rel);

#endif
