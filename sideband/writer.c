// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Sideband stream writer.  Buffers records and writes them with write(2) so
 * that every failure (ENOSPC above all) is seen and reported, never lost in
 * stdio.  Each record goes through sb_record_check(), the reader's own
 * validation, so a writer cannot produce a stream its reader rejects.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define WRITE_BUF (64u << 10)

struct sb_writer {
	char *path;
	int fd;
	uint8_t *buf;
	size_t used;
	uint64_t offset;		/* bytes written to the file */
	uint64_t count;
	uint64_t last_time;
	int error;			/* sticky write error */
	bool no_sync;			/* close without fsync */
};

static int flush(struct sb_writer *w)
{
	int ret;

	if (w->error)
		return w->error;
	ret = sb_write_all(w->fd, w->buf, w->used);
	if (ret)
		return w->error = ret;
	w->offset += w->used;
	w->used = 0;
	return 0;
}

int sb_writer_flush(struct sb_writer *w)
{
	return flush(w);
}

static int put(struct sb_writer *w, const void *p, size_t len)
{
	int ret;

	if (w->used + len > WRITE_BUF) {
		ret = flush(w);
		if (ret)
			return ret;
	}
	memcpy(w->buf + w->used, p, len);
	w->used += len;
	return 0;
}

int sb_writer_open(struct sb_writer **writerp, const char *path,
		   struct sb_err *err)
{
	struct ptrec_sb_file_header fh = { .version = PTREC_SB_VERSION,
					   .header_size = sizeof(fh) };
	struct sb_writer *w;
	int ret;

	if (!writerp || !path)
		return sb_fail(err, -EINVAL, "sb_writer_open: NULL argument");
	w = calloc(1, sizeof(*w));
	if (!w)
		return sb_fail(err, -ENOMEM, "%s: out of memory", path);
	w->fd = -1;
	w->path = strdup(path);
	w->buf = malloc(WRITE_BUF);
	if (!w->path || !w->buf) {
		ret = sb_fail(err, -ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		ret = sb_fail(err, -errno, "%s: %s", path, strerror(errno));
		goto out_free;
	}
	memcpy(fh.magic, PTREC_SB_MAGIC, sizeof(fh.magic));
	put(w, &fh, sizeof(fh));
	*writerp = w;
	return 0;
out_free:
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	free(w->path);
	free(w);
	return ret;
}

int sb_writer_add(struct sb_writer *w, const struct ptrec_sb_header *rec,
		  struct sb_err *err)
{
	uint64_t copy[PTREC_SB_RECORD_MAX / sizeof(uint64_t)];
	struct ptrec_sb_header *hdr = (void *)copy;
	size_t unpadded, padded;
	char why[200];
	int ret;

	if (!w || !rec)
		return sb_fail(err, -EINVAL, "sb_writer_add: NULL argument");
	if (w->error)
		return sb_fail(err, w->error, "%s: %s", w->path,
			       strerror(-w->error));
	if (!sb_type_info(rec->type))
		return sb_fail(err, -EINVAL, "%s: unknown record type %u",
			       w->path, rec->type);
	unpadded = rec->size ? rec->size : sb_type_info(rec->type)->size;
	padded = SB_ALIGN_UP(unpadded, PTREC_SB_ALIGN);
	if (unpadded < sizeof(*rec) || padded > sizeof(copy))
		return sb_fail(err, -EINVAL, "%s: record size %zu out of range",
			       w->path, unpadded);
	memcpy(copy, rec, unpadded);
	memset((uint8_t *)copy + unpadded, 0, padded - unpadded);
	hdr->size = (uint32_t)padded;
	ret = sb_record_check(hdr, padded, why, sizeof(why));
	if (ret)
		return sb_fail(err, -EINVAL, "%s: record %llu: %s", w->path,
			       (unsigned long long)w->count, why);
	if (rec->time < w->last_time)
		return sb_fail(err, -EINVAL,
			       "%s: record %llu: time %llu before the previous record's %llu",
			       w->path, (unsigned long long)w->count,
			       (unsigned long long)rec->time,
			       (unsigned long long)w->last_time);
	ret = put(w, copy, padded);
	if (ret)
		return sb_fail(err, ret, "%s: offset %llu: %s", w->path,
			       (unsigned long long)w->offset, strerror(-ret));
	w->last_time = rec->time;
	w->count++;
	return 0;
}

/* Builds fixed part + strings in one buffer and appends it. */
static int add_var(struct sb_writer *w, const void *fixed, size_t fixed_size,
		   const char *s1, size_t l1, const char *s2, size_t l2,
		   struct sb_err *err)
{
	uint64_t rec[PTREC_SB_RECORD_MAX / sizeof(uint64_t)];
	uint8_t *p = (uint8_t *)rec;
	struct ptrec_sb_header *hdr = (void *)rec;

	if (fixed_size + l1 + l2 > PTREC_SB_RECORD_MAX)
		return sb_fail(err, -ENAMETOOLONG,
			       "%s: record %llu: %zu bytes of strings do not fit",
			       w->path, (unsigned long long)w->count, l1 + l2);
	memcpy(p, fixed, fixed_size);
	if (l1)
		memcpy(p + fixed_size, s1, l1);
	if (l2)
		memcpy(p + fixed_size + l1, s2, l2);
	hdr->size = (uint32_t)(fixed_size + l1 + l2);
	return sb_writer_add(w, hdr, err);
}

int sb_writer_add_mmap(struct sb_writer *w, const struct ptrec_sb_mmap *rec,
		       const char *key, const char *path, struct sb_err *err)
{
	struct ptrec_sb_mmap m;
	size_t kl = key ? strlen(key) : 0, pl = path ? strlen(path) : 0;

	if (!w || !rec)
		return sb_fail(err, -EINVAL, "sb_writer_add_mmap: NULL argument");
	if (kl > UINT16_MAX || pl > UINT16_MAX)
		return sb_fail(err, -ENAMETOOLONG, "%s: MMAP path too long",
			       w->path);
	m = *rec;
	m.hdr.type = PTREC_SB_MMAP;
	m.key_len = (uint16_t)kl;
	m.path_len = (uint16_t)pl;
	return add_var(w, &m, sizeof(m), key, kl, path, pl, err);
}

int sb_writer_add_exec(struct sb_writer *w, const struct ptrec_sb_exec *rec,
		       const char *path, struct sb_err *err)
{
	struct ptrec_sb_exec e;
	size_t pl = path ? strlen(path) : 0;

	if (!w || !rec)
		return sb_fail(err, -EINVAL, "sb_writer_add_exec: NULL argument");
	if (pl > UINT16_MAX)
		return sb_fail(err, -ENAMETOOLONG, "%s: EXEC path too long",
			       w->path);
	e = *rec;
	e.hdr.type = PTREC_SB_EXEC;
	e.path_len = (uint16_t)pl;
	return add_var(w, &e, sizeof(e), path, pl, NULL, 0, err);
}

void sb_writer_no_sync(struct sb_writer *w)
{
	w->no_sync = true;
}

uint64_t sb_writer_count(const struct sb_writer *w)
{
	return w ? w->count : 0;
}

int sb_writer_close(struct sb_writer *w, struct sb_err *err)
{
	int ret;

	if (!w)
		return 0;
	ret = flush(w);
	/* Durable before a manifest can name it (unless the bundle is not
	 * durable, sb_bundle_set_durable()); EINVAL: not a file.
	 */
	if (!ret && !w->no_sync && fsync(w->fd) < 0 && errno != EINVAL)
		ret = -errno;
	if (close(w->fd) < 0 && !ret)
		ret = -errno;
	if (ret)
		sb_fail(err, ret, "%s: %s", w->path, strerror(-ret));
	free(w->buf);
	free(w->path);
	free(w);
	return ret;
}
