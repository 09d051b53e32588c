// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Sideband stream reader.  Reads through a bounded buffer, copies each
 * record into aligned storage (input may be unaligned memory) and checks it
 * before handing it out, so callers only ever see well-formed records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define READ_CHUNK (64u << 10)

struct sb_reader {
	char *name;
	int fd;				/* -1 for memory */
	const uint8_t *mem;		/* memory stream, or our buffer */
	uint8_t *buf;			/* file buffer (READ_CHUNK) */
	size_t len;			/* valid bytes at mem */
	size_t pos;			/* next unread byte at mem */
	uint64_t base;			/* stream offset of mem[0] */
	bool eof;			/* file fully read */
	uint64_t offset;		/* offset of the last record/failure */
	uint64_t last_time;
	uint32_t version;		/* the stream's format version */
	int error;			/* sticky failure */
	char errmsg[sizeof(((struct sb_err *)0)->msg)];
	uint64_t rec[PTREC_SB_RECORD_MAX / sizeof(uint64_t)];
};

/* Keeps at least @need bytes available at mem + pos, unless at EOF. */
static int fill(struct sb_reader *r, size_t need)
{
	if (r->fd < 0 || r->len - r->pos >= need || r->eof)
		return 0;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->base += r->pos;
	r->len -= r->pos;
	r->pos = 0;
	while (r->len < READ_CHUNK && !r->eof) {
		ssize_t n = read(r->fd, r->buf + r->len, READ_CHUNK - r->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			r->eof = true;
		r->len += (size_t)n;
	}
	return 0;
}

static int reader_fail(struct sb_reader *r, struct sb_err *err, int code,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int reader_fail(struct sb_reader *r, struct sb_err *err, int code,
		       const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r->error = code;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s: offset %llu: %s", r->name,
		 (unsigned long long)r->offset, what);
	return sb_fail(err, code, "%s", r->errmsg);
}

static int check_file_header(struct sb_reader *r, struct sb_err *err)
{
	struct ptrec_sb_file_header fh;
	int ret;

	ret = fill(r, sizeof(fh));
	if (ret)
		return reader_fail(r, err, ret, "%s", strerror(-ret));
	if (r->len - r->pos < sizeof(fh))
		return reader_fail(r, err, -EBADMSG,
				   "truncated file header (%zu of %zu bytes); not a ptrec sideband stream",
				   r->len - r->pos, sizeof(fh));
	memcpy(&fh, r->mem + r->pos, sizeof(fh));
	if (memcmp(fh.magic, PTREC_SB_MAGIC, sizeof(fh.magic)))
		return reader_fail(r, err, -EBADMSG,
				   "bad magic; not a ptrec sideband stream");
	if (fh.version < PTREC_SB_VERSION_MIN || fh.version > PTREC_SB_VERSION)
		return reader_fail(r, err, -EPROTONOSUPPORT,
				   "sideband format version %u, this ptrec reads versions %d to %d; %s",
				   fh.version, PTREC_SB_VERSION_MIN, PTREC_SB_VERSION,
				   fh.version > PTREC_SB_VERSION ?
				   "upgrade ptrec to read it" :
				   "re-record it or use the ptrec release that wrote it");
	if (fh.header_size < sizeof(fh) || fh.header_size % PTREC_SB_ALIGN ||
	    fh.header_size > PTREC_SB_RECORD_MAX)
		return reader_fail(r, err, -EBADMSG, "bad header size %u",
				   fh.header_size);
	ret = fill(r, fh.header_size);
	if (ret)
		return reader_fail(r, err, ret, "%s", strerror(-ret));
	if (r->len - r->pos < fh.header_size)
		return reader_fail(r, err, -EBADMSG, "truncated file header");
	r->pos += fh.header_size;
	r->version = fh.version;
	return 0;
}

/*
 * A version-1 CR3 record (32 bytes, no kernel_cr3) in r->rec becomes the
 * version-2 record it stands for: kernel_cr3 0, unknown.  Callers see
 * version 2 only.
 */
static bool upgrade_v1(struct sb_reader *r, size_t avail)
{
	struct ptrec_sb_cr3 *c = (void *)r->rec;

	if (r->version != 1 || c->hdr.type != PTREC_SB_CR3 ||
	    c->hdr.size != PTREC_SB_CR3_V1_SIZE ||
	    avail < PTREC_SB_CR3_V1_SIZE)
		return false;
	c->hdr.size = sizeof(*c);
	c->kernel_cr3 = 0;
	return true;
}

static int reader_new(struct sb_reader **readerp, const char *name,
		      struct sb_err *err)
{
	struct sb_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->name = strdup(name))) {
		free(r);
		return sb_fail(err, -ENOMEM, "%s: out of memory", name);
	}
	r->fd = -1;
	*readerp = r;
	return 0;
}

int sb_reader_open_fd(struct sb_reader **readerp, int fd, const char *name,
		      struct sb_err *err)
{
	struct sb_reader *r;
	int ret;

	if (!readerp || fd < 0 || !name) {
		if (fd >= 0)
			close(fd);
		return sb_fail(err, -EINVAL, "sb_reader_open_fd: bad argument");
	}
	ret = reader_new(&r, name, err);
	if (ret) {
		close(fd);
		return ret;
	}
	r->fd = fd;
	r->buf = malloc(READ_CHUNK);
	if (!r->buf) {
		ret = sb_fail(err, -ENOMEM, "%s: out of memory", name);
		goto out_free;
	}
	r->mem = r->buf;
	ret = check_file_header(r, err);
	if (ret)
		goto out_free;
	*readerp = r;
	return 0;
out_free:
	sb_reader_close(r);
	return ret;
}

int sb_reader_open(struct sb_reader **readerp, const char *path,
		   struct sb_err *err)
{
	int fd;

	if (!readerp || !path)
		return sb_fail(err, -EINVAL, "sb_reader_open: NULL argument");
	fd = sb_open_regular(path, err);
	if (fd < 0)
		return fd;
	return sb_reader_open_fd(readerp, fd, path, err);
}

int sb_reader_open_mem(struct sb_reader **readerp, const void *buf,
		       size_t len, const char *name, struct sb_err *err)
{
	struct sb_reader *r;
	int ret;

	if (!readerp || (!buf && len))
		return sb_fail(err, -EINVAL, "sb_reader_open_mem: NULL argument");
	ret = reader_new(&r, name ? name : "<memory>", err);
	if (ret)
		return ret;
	r->mem = buf;
	r->len = len;
	r->eof = true;
	ret = check_file_header(r, err);
	if (ret) {
		sb_reader_close(r);
		return ret;
	}
	*readerp = r;
	return 0;
}

int sb_reader_next(struct sb_reader *r, const struct ptrec_sb_header **recp,
		   struct sb_err *err)
{
	struct ptrec_sb_header hdr;
	char why[200];
	size_t avail;
	int ret;

	if (!r || !recp)
		return sb_fail(err, -EINVAL, "sb_reader_next: NULL argument");
	if (r->error)
		return sb_fail(err, r->error, "%s", r->errmsg);
	r->offset = r->base + r->pos;
	ret = fill(r, sizeof(hdr));
	if (ret)
		return reader_fail(r, err, ret, "%s", strerror(-ret));
	avail = r->len - r->pos;
	if (avail == 0)
		return 0;
	if (avail < sizeof(hdr))
		return reader_fail(r, err, -EBADMSG,
				   "truncated record header (%zu of %zu bytes)",
				   avail, sizeof(hdr));
	memcpy(&hdr, r->mem + r->pos, sizeof(hdr));
	/* Check the size before reading on, so a huge size reads nothing. */
	if (hdr.size >= sizeof(hdr) && hdr.size <= PTREC_SB_RECORD_MAX) {
		ret = fill(r, hdr.size);
		if (ret)
			return reader_fail(r, err, ret, "%s", strerror(-ret));
		avail = r->len - r->pos;
	}
	if (avail > sizeof(r->rec))
		avail = sizeof(r->rec);
	memcpy(r->rec, r->mem + r->pos, avail);
	/* an upgraded record is longer than the stream's */
	if (upgrade_v1(r, avail) && avail < sizeof(struct ptrec_sb_cr3))
		avail = sizeof(struct ptrec_sb_cr3);
	ret = sb_record_check((const void *)r->rec, avail, why, sizeof(why));
	if (ret)
		return reader_fail(r, err, ret, "type %u: %s", hdr.type, why);
	if (hdr.time < r->last_time)
		return reader_fail(r, err, -EBADMSG,
				   "type %u: time %llu is before the previous record's %llu",
				   hdr.type, (unsigned long long)hdr.time,
				   (unsigned long long)r->last_time);
	r->last_time = hdr.time;
	r->pos += hdr.size;
	*recp = (const void *)r->rec;
	return 1;
}

uint64_t sb_reader_offset(const struct sb_reader *r)
{
	return r ? r->offset : 0;
}

void sb_reader_close(struct sb_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->name);
	free(r);
}
