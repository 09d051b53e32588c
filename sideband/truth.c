// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Ground truth (truth/<tid>.gt): a 16-byte header, then the address of every
 * instruction the thread executed, as little-endian 64-bit values.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct truth_header {
	char magic[8];
	uint32_t version;
	uint32_t reserved;
};

#define TRUTH_BUF 4096

struct sb_truth_writer {
	char *path;
	int fd;
	int error;
	size_t used;
	uint64_t buf[TRUTH_BUF];
};

int sb_truth_open(struct sb_truth_writer **twp, const char *path,
		  struct sb_err *err)
{
	struct truth_header h = { .version = SB_TRUTH_VERSION };
	struct sb_truth_writer *tw;
	int ret;

	if (!twp || !path)
		return sb_fail(err, -EINVAL, "sb_truth_open: NULL argument");
	tw = calloc(1, sizeof(*tw));
	if (!tw || !(tw->path = strdup(path))) {
		free(tw);
		return sb_fail(err, -ENOMEM, "%s: out of memory", path);
	}
	tw->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (tw->fd < 0) {
		ret = sb_fail(err, -errno, "%s: %s", path, strerror(errno));
		goto out_free;
	}
	memcpy(h.magic, SB_TRUTH_MAGIC, sizeof(h.magic));
	ret = sb_write_all(tw->fd, &h, sizeof(h));
	if (ret) {
		sb_fail(err, ret, "%s: %s", path, strerror(-ret));
		close(tw->fd);
		goto out_free;
	}
	*twp = tw;
	return 0;
out_free:
	free(tw->path);
	free(tw);
	return ret;
}

static int truth_flush(struct sb_truth_writer *tw)
{
	int ret;

	if (tw->error)
		return tw->error;
	ret = sb_write_all(tw->fd, tw->buf, tw->used * sizeof(tw->buf[0]));
	tw->used = 0;
	return tw->error = ret;
}

int sb_truth_flush(struct sb_truth_writer *tw)
{
	return tw ? truth_flush(tw) : 0;
}

int sb_truth_add(struct sb_truth_writer *tw, uint64_t ip)
{
	if (tw->used == TRUTH_BUF) {
		int ret = truth_flush(tw);

		if (ret)
			return ret;
	}
	tw->buf[tw->used++] = ip;
	return tw->error;
}

int sb_truth_close(struct sb_truth_writer *tw, struct sb_err *err)
{
	int ret;

	if (!tw)
		return 0;
	ret = truth_flush(tw);
	if (!ret && fsync(tw->fd) < 0 && errno != EINVAL)
		ret = -errno;
	if (close(tw->fd) < 0 && !ret)
		ret = -errno;
	if (ret)
		sb_fail(err, ret, "%s: %s", tw->path, strerror(-ret));
	free(tw->path);
	free(tw);
	return ret;
}

int sb_truth_load(const char *path, uint64_t **ipsp, size_t *countp,
		  struct sb_err *err)
{
	struct truth_header h;
	char *data;
	size_t len, n;
	uint64_t *ips;
	int ret;

	if (!path || !ipsp || !countp)
		return sb_fail(err, -EINVAL, "sb_truth_load: NULL argument");
	/* Ground truth is for tests: 1 GiB (2^27 instructions) is plenty. */
	ret = sb_read_file(path, 1u << 30, &data, &len, err);
	if (ret)
		return ret;
	if (len < sizeof(h)) {
		ret = sb_fail(err, -EBADMSG, "%s: offset 0: truncated header",
			      path);
		goto out_free;
	}
	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, SB_TRUTH_MAGIC, sizeof(h.magic))) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: offset 0: bad magic; not a ptrec ground-truth file",
			      path);
		goto out_free;
	}
	if (h.version != SB_TRUTH_VERSION) {
		ret = sb_fail(err, -EPROTONOSUPPORT,
			      "%s: ground-truth version %u, this ptrec reads version %d; %s",
			      path, h.version, SB_TRUTH_VERSION,
			      h.version > SB_TRUTH_VERSION ?
			      "upgrade ptrec to read it" :
			      "re-record it or use the ptrec release that wrote it");
		goto out_free;
	}
	if ((len - sizeof(h)) % sizeof(uint64_t)) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: offset %zu: truncated address (file size %zu)",
			      path, len - (len - sizeof(h)) % sizeof(uint64_t),
			      len);
		goto out_free;
	}
	n = (len - sizeof(h)) / sizeof(uint64_t);
	ips = malloc(n ? n * sizeof(*ips) : 1);
	if (!ips) {
		ret = sb_fail(err, -ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	memcpy(ips, data + sizeof(h), n * sizeof(*ips));
	*ipsp = ips;
	*countp = n;
out_free:
	free(data);
	return ret;
}
