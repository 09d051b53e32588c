// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Ground truth (truth/<tid>.gt): a 16-byte header, then one record per
 * instruction the thread executed.  Version 1 records are its address;
 * version 2 and 3 records (SB_TRUTH_WORDS little-endian 64-bit words) are
 * its address, a mask of the registers recorded, and the general-purpose
 * registers and rflags after it ran, so that values recovered in the past
 * (replay/recover.c) can be checked.  Version 3 has them after a system
 * call instruction too (where the call returned to the next one); a
 * version-2 file reads as one, with those masks 0.
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

int sb_truth_add_regs(struct sb_truth_writer *tw, uint64_t ip,
		      uint64_t mask, const uint64_t *regs)
{
	unsigned int i;

	if (tw->used + SB_TRUTH_WORDS > TRUTH_BUF) {
		int ret = truth_flush(tw);

		if (ret)
			return ret;
	}
	tw->buf[tw->used++] = ip;
	tw->buf[tw->used++] = regs ? mask : 0;
	for (i = 0; i < SB_TRUTH_NREGS; i++)
		tw->buf[tw->used++] = regs && (mask >> i & 1) ? regs[i] : 0;
	return tw->error;
}

int sb_truth_add(struct sb_truth_writer *tw, uint64_t ip)
{
	return sb_truth_add_regs(tw, ip, 0, NULL);
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

/*
 * Reads @path whole and checks its header and size: *@data (to free), its
 * *@len bytes, *@words per record and their number *@n.  Returns 0 or an
 * error naming the file and offset.
 */
static int truth_read(const char *path, char **data, size_t *len,
		      size_t *words, size_t *n, struct sb_err *err)
{
	struct truth_header h;
	int ret;

	/* Ground truth is for tests: 1 GiB is plenty. */
	ret = sb_read_file(path, 1u << 30, data, len, err);
	if (ret)
		return ret;
	if (*len < sizeof(h)) {
		ret = sb_fail(err, -EBADMSG, "%s: offset 0: truncated header",
			      path);
		goto out_free;
	}
	memcpy(&h, *data, sizeof(h));
	if (memcmp(h.magic, SB_TRUTH_MAGIC, sizeof(h.magic))) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: offset 0: bad magic; not a ptrec ground-truth file",
			      path);
		goto out_free;
	}
	if (h.version < 1 || h.version > SB_TRUTH_VERSION) {
		ret = sb_fail(err, -EPROTONOSUPPORT,
			      "%s: ground-truth version %u, this ptrec reads versions 1 to %d; %s",
			      path, h.version, SB_TRUTH_VERSION,
			      h.version > SB_TRUTH_VERSION ?
			      "upgrade ptrec to read it" :
			      "re-record it or use the ptrec release that wrote it");
		goto out_free;
	}
	*words = h.version == 1 ? 1 : SB_TRUTH_WORDS;
	if ((*len - sizeof(h)) % (*words * 8)) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: offset %zu: truncated record (file size %zu)",
			      path, *len - (*len - sizeof(h)) % (*words * 8),
			      *len);
		goto out_free;
	}
	*n = (*len - sizeof(h)) / (*words * 8);
	return 0;
out_free:
	free(*data);
	*data = NULL;
	return ret;
}

int sb_truth_load_recs(const char *path, struct sb_truth_rec **recsp,
		       size_t *countp, struct sb_err *err)
{
	struct sb_truth_rec *recs;
	char *data;
	size_t len, n, i, words;
	int ret;

	if (!path || !recsp || !countp)
		return sb_fail(err, -EINVAL, "sb_truth_load: NULL argument");
	ret = truth_read(path, &data, &len, &words, &n, err);
	if (ret)
		return ret;
	recs = calloc(n ? n : 1, sizeof(*recs));
	if (!recs) {
		ret = sb_fail(err, -ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		const char *r = data + sizeof(struct truth_header) +
				i * words * 8;

		memcpy(&recs[i].ip, r, 8);
		if (words == 1)
			continue;
		memcpy(&recs[i].mask, r + 8, 8);
		memcpy(recs[i].regs, r + 16, sizeof(recs[i].regs));
	}
	*recsp = recs;
	*countp = n;
out_free:
	free(data);
	return ret;
}

/*
 * Addresses only, taken straight from the file: going through
 * sb_truth_load_recs() allocated a full record (SB_TRUTH_WORDS words) per
 * 8-byte address of a version-1 file, 19 times the file's size.
 */
int sb_truth_load(const char *path, uint64_t **ipsp, size_t *countp,
		  struct sb_err *err)
{
	uint64_t *ips;
	char *data;
	size_t len, n, i, words;
	int ret;

	if (!path || !ipsp || !countp)
		return sb_fail(err, -EINVAL, "sb_truth_load: NULL argument");
	ret = truth_read(path, &data, &len, &words, &n, err);
	if (ret)
		return ret;
	ips = malloc(n ? n * sizeof(*ips) : 1);
	if (!ips) {
		free(data);
		return sb_fail(err, -ENOMEM, "%s: out of memory", path);
	}
	for (i = 0; i < n; i++)
		memcpy(&ips[i], data + sizeof(struct truth_header) +
		       i * words * 8, 8);
	free(data);
	*ipsp = ips;
	*countp = n;
	return 0;
}
