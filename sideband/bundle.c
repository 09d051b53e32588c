// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Writing a bundle directory: layout, image store, and the manifest written
 * last so that a bundle without manifest.json is recognisably unfinished.
 */
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define SIDEBAND_FILE "sideband.sb"
#define SNAPSHOT_FILE "snapshot.ptsnap"
#define PRODUCER "ptrec " PTREC_VERSION
#define IMAGE_MAX (1ull << 30)

#ifndef PTREC_VERSION
#define PTREC_VERSION "0.0"
#endif

struct sb_bundle {
	char *dir;
	struct sb_manifest *m;
	struct sb_writer *sideband;
	bool sideband_opened;
	struct sb_snap_writer *snap;
	bool not_durable;	/* sb_bundle_set_durable(b, false) */
};

/* The last two only for a bundle that can have them (SB_BUNDLE_NO_STATE). */
static const char *const subdirs[] = { "pt", "images", "regs", "truth" };

static int dir_is_empty(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int empty = 1;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

int sb_bundle_create(struct sb_bundle **bp, const char *dir,
		     struct sb_err *err)
{
	return sb_bundle_create_flags(bp, dir, 0, err);
}

int sb_bundle_create_flags(struct sb_bundle **bp, const char *dir,
			   unsigned int flags, struct sb_err *err)
{
	unsigned int i, ndirs = SB_ARRAY_SIZE(subdirs);
	struct sb_bundle *b;
	char path[4096];
	int ret;

	if (!bp || !dir || !*dir)
		return sb_fail(err, -EINVAL, "sb_bundle_create: no directory");
	if (mkdir(dir, 0755) < 0) {
		if (errno != EEXIST)
			return sb_fail(err, -errno, "%s: %s", dir,
				       strerror(errno));
		ret = dir_is_empty(dir);
		if (ret < 0)
			return sb_fail(err, ret, "%s: %s", dir, strerror(-ret));
		if (!ret)
			return sb_fail(err, -EEXIST,
				       "%s: exists and is not empty; choose another output directory",
				       dir);
	}
	if (flags & SB_BUNDLE_NO_STATE)
		ndirs -= 2;	/* no regs/, no truth/ */
	for (i = 0; i < ndirs; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]) >=
		    (int)sizeof(path))
			return sb_fail(err, -ENAMETOOLONG, "%s: path too long",
				       dir);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return sb_fail(err, -errno, "%s: %s", path,
				       strerror(errno));
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return sb_fail(err, -ENOMEM, "out of memory");
	b->dir = strdup(dir);
	b->m = sb_manifest_new();
	if (!b->dir || !b->m)
		goto out_nomem;
	b->m->producer = strdup(PRODUCER);
	b->m->sideband = strdup(SIDEBAND_FILE);
	if (!b->m->producer || !b->m->sideband)
		goto out_nomem;
	*bp = b;
	return 0;
out_nomem:
	sb_bundle_free(b);
	return sb_fail(err, -ENOMEM, "out of memory");
}

struct sb_manifest *sb_bundle_manifest(struct sb_bundle *b)
{
	return b->m;
}

const char *sb_bundle_dir(const struct sb_bundle *b)
{
	return b->dir;
}

int sb_bundle_path(const struct sb_bundle *b, const char *rel, char *buf,
		   size_t bufsz)
{
	int n = snprintf(buf, bufsz, "%s/%s", b->dir, rel);

	return n < 0 || (size_t)n >= bufsz ? -ENAMETOOLONG : n;
}

int sb_bundle_open_sideband(struct sb_bundle *b, struct sb_writer **w,
			    struct sb_err *err)
{
	char path[4096];
	int ret;

	if (b->sideband_opened)
		return sb_fail(err, -EBUSY, "%s: sideband already opened",
			       b->dir);
	if (sb_bundle_path(b, b->m->sideband, path, sizeof(path)) < 0)
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", b->dir);
	ret = sb_writer_open(&b->sideband, path, err);
	if (ret)
		return ret;
	if (b->not_durable)
		sb_writer_no_sync(b->sideband);
	b->sideband_opened = true;
	*w = b->sideband;
	return 0;
}

static char *fmt_path(const char *fmt, uint32_t tid)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, tid);
	return strdup(buf);
}

int sb_bundle_add_thread(struct sb_bundle *b, uint32_t pid, uint32_t tid,
			 bool with_truth, const struct sb_thread **threadp)
{
	struct sb_thread *t;

	if (sb_manifest_thread(b->m, tid))
		return -EEXIST;
	t = sb_manifest_add_thread(b->m);
	if (!t)
		return -ENOMEM;
	t->pid = pid;
	t->tid = tid;
	t->pt = fmt_path("pt/%" PRIu32 ".pt", tid);
	t->regs = fmt_path("regs/%" PRIu32 ".json", tid);
	if (with_truth)
		t->truth = fmt_path("truth/%" PRIu32 ".gt", tid);
	if (!t->pt || !t->regs || (with_truth && !t->truth)) {
		/* Take the half-built entry back out. */
		free(t->pt);
		free(t->regs);
		free(t->truth);
		b->m->nthreads--;
		return -ENOMEM;
	}
	if (threadp)
		*threadp = t;
	return 0;
}

/* ---- image store ------------------------------------------------------- */

static void hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int sb_image_key(const void *buf, size_t len, char *key, size_t keysz)
{
	const void *id = NULL;
	ssize_t idlen = -1;
	uint8_t digest[32];
	Elf *elf;

	if (keysz < SB_IMAGE_KEY_MAX)
		return -ENAMETOOLONG;
	elf_version(EV_CURRENT);
	/* libelf only reads the image in ELF_C_READ mode. */
	elf = elf_memory((char *)buf, len);
	if (elf) {
		if (elf_kind(elf) == ELF_K_ELF)
			idlen = dwelf_elf_gnu_build_id(elf, &id);
		if (idlen > 0 && idlen <= 32) {
			memcpy(key, "buildid-", 8);
			hex(key + 8, id, (size_t)idlen);
			elf_end(elf);
			return 0;
		}
		elf_end(elf);
	}
	sb_sha256(buf, len, digest);
	memcpy(key, "sha256-", 7);
	hex(key + 7, digest, sizeof(digest));
	return 0;
}

int sb_bundle_add_image_mem(struct sb_bundle *b, const void *buf, size_t len,
			    const char *path, char *key, size_t keysz,
			    struct sb_err *err)
{
	char k[SB_IMAGE_KEY_MAX], rel[SB_IMAGE_KEY_MAX + 16], full[4096];
	struct sb_image *im;
	int ret;

	if (!b || (!buf && len) || !key)
		return sb_fail(err, -EINVAL, "sb_bundle_add_image: NULL argument");
	ret = sb_image_key(buf, len, k, sizeof(k));
	if (ret || strlen(k) >= keysz)
		return sb_fail(err, -ENAMETOOLONG, "image key buffer too small");
	strcpy(key, k);
	if (sb_manifest_image(b->m, k))
		return 0;	/* same content already stored */
	snprintf(rel, sizeof(rel), "images/%s", k);
	if (sb_bundle_path(b, rel, full, sizeof(full)) < 0)
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", b->dir);
	ret = sb_write_file_sync(full, buf, len, b->not_durable ?
				 SB_SYNC_NONE : SB_SYNC_DURABLE, err);
	if (ret)
		return ret;
	im = sb_manifest_add_image(b->m);
	if (!im)
		return sb_fail(err, -ENOMEM, "out of memory");
	im->key = strdup(k);
	im->file = strdup(rel);
	im->path = path ? strdup(path) : NULL;
	im->size = len;
	if (!im->key || !im->file || (path && !im->path))
		return sb_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int sb_bundle_add_image_file(struct sb_bundle *b, const char *path,
			     char *key, size_t keysz, struct sb_err *err)
{
	struct stat st;
	char *data;
	size_t len;
	void *map;
	int fd, ret;

	if (!b || !path)
		return sb_fail(err, -EINVAL, "sb_bundle_add_image: NULL argument");
	fd = sb_open_regular(path, err);
	if (fd < 0)
		return fd;
	/*
	 * Mapped, not read: the page cache's pages, a few faults for the
	 * whole file, where a read() zero-fills and faults in a buffer page
	 * by page (libxdc's Unzip: 40 pages, about 0.1 ms of the import's
	 * CPU; issue #19).  Like the PT stream `ptrec import raw` maps, the
	 * file must not shrink while it is copied.  Writable and private:
	 * libelf may convert headers in place, never in the file.
	 */
	if (!fstat(fd, &st) && st.st_size > 0 &&
	    (unsigned long long)st.st_size <= IMAGE_MAX) {
		len = (size_t)st.st_size;
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			   fd, 0);
		if (map != MAP_FAILED) {
			close(fd);
			ret = sb_bundle_add_image_mem(b, map, len, path, key,
						      keysz, err);
			munmap(map, len);
			return ret;
		}
	}
	ret = sb_read_fd(fd, path, IMAGE_MAX, &data, &len, err);
	if (ret)
		return ret;
	ret = sb_bundle_add_image_mem(b, data, len, path, key, keysz, err);
	free(data);
	return ret;
}

/* ---- finishing ------------------------------------------------------- */

/* Lists @rel with its size; -ENOENT when it does not exist. */
static int list_file(struct sb_bundle *b, const char *rel, const char *kind,
		     struct sb_err *err)
{
	char full[4096];
	struct sb_file *f;
	struct stat st;

	if (sb_bundle_path(b, rel, full, sizeof(full)) < 0)
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", b->dir);
	if (stat(full, &st) < 0)
		return sb_fail(err, -errno, "%s: %s", full, strerror(errno));
	f = sb_manifest_add_file(b->m);
	if (!f || !(f->path = strdup(rel)) || !(f->kind = strdup(kind)))
		return sb_fail(err, -ENOMEM, "out of memory");
	f->size = (uint64_t)st.st_size;
	return 0;
}

int sb_bundle_open_snapshot(struct sb_bundle *b, struct sb_snap_writer **w,
			    struct sb_err *err)
{
	char path[4096];
	int ret;

	if (b->snap || b->m->snapshot)
		return sb_fail(err, -EBUSY, "%s: snapshot already opened",
			       b->dir);
	if (sb_bundle_path(b, SNAPSHOT_FILE, path, sizeof(path)) < 0)
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", b->dir);
	ret = sb_snap_writer_open(&b->snap, path, err);
	if (ret)
		return ret;
	b->m->snapshot = strdup(SNAPSHOT_FILE);
	if (!b->m->snapshot) {
		sb_snap_writer_abort(b->snap);
		b->snap = NULL;
		return sb_fail(err, -ENOMEM, "out of memory");
	}
	*w = b->snap;
	return 0;
}

/* Optional per-thread files that were never written are dropped. */
static int list_optional(struct sb_bundle *b, char **rel, const char *kind,
			 struct sb_err *err)
{
	char full[4096];

	if (!*rel)
		return 0;
	if (sb_bundle_path(b, *rel, full, sizeof(full)) < 0)
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", b->dir);
	if (access(full, F_OK) < 0) {
		free(*rel);
		*rel = NULL;
		return 0;
	}
	return list_file(b, *rel, kind, err);
}

int sb_bundle_finish(struct sb_bundle *b, struct sb_err *err)
{
	struct sb_manifest *m;
	size_t i;
	int ret;

	if (!b)
		return sb_fail(err, -EINVAL, "sb_bundle_finish: NULL argument");
	m = b->m;
	if (!b->sideband_opened) {
		struct sb_writer *w;

		ret = sb_bundle_open_sideband(b, &w, err);
		if (ret)
			return ret;
	}
	ret = sb_writer_close(b->sideband, err);
	b->sideband = NULL;
	if (ret)
		return ret;
	if (b->snap) {
		ret = sb_snap_writer_close(b->snap, err);
		b->snap = NULL;
		if (ret)
			return ret;
	}
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].kind);
	}
	m->nfiles = 0;
	ret = list_file(b, m->sideband, "sideband", err);
	if (!ret && m->snapshot)
		ret = list_file(b, m->snapshot, "snapshot", err);
	for (i = 0; !ret && i < m->nthreads; i++) {
		ret = list_file(b, m->threads[i].pt, "pt", err);
		if (ret == -ENOENT)
			return sb_fail(err, ret,
				       "%s/%s: thread %" PRIu32 " has no PT stream",
				       b->dir, m->threads[i].pt,
				       m->threads[i].tid);
		if (!ret)
			ret = list_optional(b, &m->threads[i].regs, "regs",
					    err);
		if (!ret)
			ret = list_optional(b, &m->threads[i].truth, "truth",
					    err);
	}
	for (i = 0; !ret && i < m->nimages; i++)
		ret = list_file(b, m->images[i].file, "image", err);
	if (ret)
		return ret;
	/* Not durable: the manifest is still complete or absent after a
	 * power loss (SB_SYNC_FILE), only its name may be lost.
	 */
	return sb_manifest_save_sync(m, b->dir, b->not_durable ?
				     SB_SYNC_FILE : SB_SYNC_DURABLE, err);
}

void sb_bundle_set_durable(struct sb_bundle *b, bool durable)
{
	b->not_durable = !durable;
	if (!durable && b->sideband)
		sb_writer_no_sync(b->sideband);
}

void sb_bundle_free(struct sb_bundle *b)
{
	if (!b)
		return;
	sb_writer_close(b->sideband, NULL);
	sb_snap_writer_abort(b->snap);
	sb_manifest_free(b->m);
	free(b->dir);
	free(b);
}
