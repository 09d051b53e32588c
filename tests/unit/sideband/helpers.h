/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Helpers shared by the sideband unit tests: a temporary directory per test,
 * whole-file reads and writes, and message checks.  Static inline only.
 */
#ifndef PTREC_TEST_SIDEBAND_HELPERS_H
#define PTREC_TEST_SIDEBAND_HELPERS_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sideband.h"

/* The temporary directory of the running test (one test per process). */
static char test_dir[64];

static inline void test_dir_setup(void)
{
	snprintf(test_dir, sizeof(test_dir), "/tmp/ptrec-unit-XXXXXX");
	cr_assert_not_null(mkdtemp(test_dir), "mkdtemp: %s", strerror(errno));
}

static inline int rm_one(const char *path, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void test_dir_teardown(void)
{
	if (test_dir[0])
		rm_rf(test_dir);
}

/* test_dir/@fmt... into @buf (PATH_MAX-sized buffers in the tests). */
static inline const char *tpath(char *buf, size_t bufsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline const char *tpath(char *buf, size_t bufsz, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(buf, bufsz, "%s/", test_dir);
	cr_assert(n > 0 && (size_t)n < bufsz);
	va_start(ap, fmt);
	vsnprintf(buf + n, bufsz - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

static inline void write_bytes(const char *path, const void *buf, size_t len)
{
	const char *p = buf;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);

		cr_assert(n > 0, "%s: write: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	cr_assert_eq(close(fd), 0);
}

static inline void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

/* The whole file in a NUL-terminated heap buffer; *@len gets its size. */
static inline char *read_bytes(const char *path, size_t *len)
{
	struct stat st;
	size_t done = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		cr_assert(n > 0, "%s: read: %s", path, strerror(errno));
		done += (size_t)n;
	}
	buf[done] = '\0';
	close(fd);
	if (len)
		*len = done;
	return buf;
}

static inline int file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static inline long long file_size(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return (long long)st.st_size;
}

/* The failure message must contain @want. */
static inline void assert_msg_has(const struct sb_err *err, const char *want)
{
	cr_assert_not_null(strstr(err->msg, want),
			   "message \"%s\" does not contain \"%s\"", err->msg,
			   want);
}

/* Lower-case hex of @n bytes into @out (2 * @n + 1 bytes). */
static inline void to_hex(char *out, const void *buf, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

#endif
