// SPDX-License-Identifier: GPL-3.0-or-later
/* Error messages and file helpers shared by the sideband library. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int sb_fail(struct sb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

int sb_open_regular(const char *path, struct sb_err *err)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: opening a FIFO without a writer would block forever. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return sb_fail(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 ||
	    (S_ISREG(st.st_mode) &&
	     fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)) {
		int ret = -errno;

		close(fd);
		return sb_fail(err, ret, "%s: %s", path, strerror(-ret));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sb_fail(err, -EINVAL, "%s: not a regular file", path);
	}
	return fd;
}

int sb_read_fd(int fd, const char *path, size_t max, char **bufp,
	       size_t *lenp, struct sb_err *err)
{
	struct stat st;
	size_t done = 0;
	char *buf;
	int ret;

	if (fstat(fd, &st) < 0) {
		ret = sb_fail(err, -errno, "%s: %s", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = sb_fail(err, -EINVAL, "%s: not a regular file", path);
		goto out_close;
	}
	if ((uint64_t)st.st_size > max) {
		ret = sb_fail(err, -EFBIG, "%s: %lld bytes, more than the %zu allowed",
			      path, (long long)st.st_size, max);
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = sb_fail(err, -ENOMEM, "%s: out of memory", path);
		goto out_close;
	}
	/* The size can change under us; read what is there up to st_size. */
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = sb_fail(err, -errno, "%s: offset %zu: %s", path,
				      done, strerror(errno));
			free(buf);
			goto out_close;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	buf[done] = '\0';
	*bufp = buf;
	*lenp = done;
	ret = 0;
out_close:
	close(fd);
	return ret;
}

int sb_read_file(const char *path, size_t max, char **bufp, size_t *lenp,
		 struct sb_err *err)
{
	int fd = sb_open_regular(path, err);

	if (fd < 0)
		return fd;
	return sb_read_fd(fd, path, max, bufp, lenp, err);
}

int sb_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* fsync the directory holding @path, so a rename into it is durable. */
int sb_sync_parent(const char *path)
{
	char dir[4096];
	char *slash;
	int fd, ret = 0;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* best effort: the data itself is synced */
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
	return ret;
}

int sb_write_file_atomic(const char *path, const void *buf, size_t len,
			 struct sb_err *err)
{
	return sb_write_file_sync(path, buf, len, SB_SYNC_DURABLE, err);
}

int sb_write_file_sync(const char *path, const void *buf, size_t len,
		       enum sb_sync how, struct sb_err *err)
{
	char tmp[4096];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return sb_fail(err, -ENAMETOOLONG, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return sb_fail(err, -errno, "%s: %s", tmp, strerror(errno));
	ret = sb_write_all(fd, buf, len);
	if (!ret && how != SB_SYNC_NONE && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return sb_fail(err, ret, "%s: %s", tmp, strerror(-ret));
	}
	if (rename(tmp, path) < 0) {
		ret = -errno;
		unlink(tmp);
		return sb_fail(err, ret, "%s: %s", path, strerror(-ret));
	}
	return how == SB_SYNC_DURABLE ? sb_sync_parent(path) : 0;
}

int sb_path_is_safe(const char *rel)
{
	const char *p = rel;

	if (!rel || !*rel || rel[0] == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");

		if ((n == 2 && p[0] == '.' && p[1] == '.') || n == 0)
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}
