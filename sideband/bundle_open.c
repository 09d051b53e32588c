// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The one rule for opening files inside a bundle.  Bundles travel like core
 * files (users open what colleagues and CI send them), so a bundle is
 * untrusted input and nothing in it may make ptrec touch a file outside it:
 * every file ptrec reads or writes inside a bundle is reached from the
 * bundle directory without following a symbolic link (openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, else
 * openat() with O_NOFOLLOW on every component), opened with O_NONBLOCK so a
 * FIFO or device cannot block the open, refused unless fstat() says it is a
 * regular file, and checked against the size the manifest lists.  The
 * bundle directory itself is followed: the user named it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* Cleared once the kernel (or a seccomp filter) refuses openat2(). */
static bool use_openat2 = true;

void sb_open_force_walk(bool walk)
{
	use_openat2 = !walk;
}

static bool is_symlink(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISLNK(st.st_mode);
}

/* openat() one component at a time, never following a symlink. */
static int open_walk(int dirfd, const char *rel, int flags)
{
	char comp[NAME_MAX + 1];
	const char *p = rel;
	int fd = dirfd, next;

	for (;;) {
		size_t n = strcspn(p, "/");
		bool last = p[n] == '\0';

		if (n == 0 || n > NAME_MAX ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			next = -1;
			errno = n > NAME_MAX ? ENAMETOOLONG : EINVAL;
		} else {
			memcpy(comp, p, n);
			comp[n] = '\0';
			next = openat(fd, comp, last ? flags | O_NOFOLLOW :
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC);
			/* O_DIRECTORY | O_NOFOLLOW on a symlink: ENOTDIR. */
			if (next < 0 && errno == ENOTDIR &&
			    is_symlink(fd, comp))
				errno = ELOOP;
		}
		if (fd != dirfd) {
			int saved = errno;

			close(fd);
			errno = saved;
		}
		if (next < 0 || last)
			return next;
		fd = next;
		p += n + 1;
	}
}

/* Opens @rel beneath @dirfd with @flags; -1 and errno on failure. */
static int open_beneath(int dirfd, const char *rel, int flags)
{
	if (use_openat2) {
		struct open_how how = {
			.flags = (uint64_t)(flags | O_NOFOLLOW),
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				   RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

		if (fd >= 0 || (errno != ENOSYS && errno != EPERM &&
				errno != E2BIG && errno != ENOTDIR))
			return (int)fd;
		/* ENOTDIR: the walk tells a symlink from a file. */
		if (errno != ENOTDIR)
			use_openat2 = false;
	}
	return open_walk(dirfd, rel, flags);
}

static int open_fail(struct sb_err *err, int code, const char *dir,
		     const char *rel)
{
	switch (code) {
	case -ELOOP:
		return sb_fail(err, code,
			       "%s/%s: a symbolic link (or a path through one); a bundle's files must be regular files inside it",
			       dir, rel);
	case -EXDEV:
		return sb_fail(err, -ELOOP, "%s/%s: leads outside the bundle",
			       dir, rel);
	case -ENOTDIR:
		return sb_fail(err, code, "%s/%s: a component is not a directory",
			       dir, rel);
	default:
		return sb_fail(err, code, "%s/%s: %s", dir, rel,
			       strerror(-code));
	}
}

int sb_bundle_open_dir(const char *dir, const char *rel, struct sb_err *err)
{
	int dfd, fd;

	if (!dir || !rel)
		return sb_fail(err, -EINVAL, "sb_bundle_open_dir: NULL argument");
	if (!sb_path_is_safe(rel))
		return sb_fail(err, -EINVAL, "%s/%s: not a path inside the bundle",
			       dir, rel);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return sb_fail(err, -errno, "%s: %s", dir, strerror(errno));
	fd = open_beneath(dfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = open_fail(err, -errno, dir, rel);
	close(dfd);
	return fd;
}

int sb_bundle_open_file(const char *dir, const char *rel,
			const struct sb_manifest *m, struct sb_err *err)
{
	struct stat st;
	size_t i;
	int dfd, fd, ret;

	if (!dir || !rel)
		return sb_fail(err, -EINVAL, "sb_bundle_open_file: NULL argument");
	if (!sb_path_is_safe(rel))
		return sb_fail(err, -EINVAL, "%s/%s: not a path inside the bundle",
			       dir, rel);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return sb_fail(err, -errno, "%s: %s", dir, strerror(errno));
	fd = open_beneath(dfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY |
			  O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	close(dfd);
	if (ret)
		return open_fail(err, ret, dir, rel);
	if (fstat(fd, &st) < 0) {
		ret = sb_fail(err, -errno, "%s/%s: %s", dir, rel,
			      strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = sb_fail(err, -EINVAL,
			      "%s/%s: not a regular file (a FIFO, device, socket or directory); refused",
			      dir, rel);
		goto out_close;
	}
	for (i = 0; m && i < m->nfiles; i++) {
		if (strcmp(m->files[i].path, rel))
			continue;
		if ((uint64_t)st.st_size != m->files[i].size) {
			ret = sb_fail(err, -EBADMSG,
				      "%s/%s: %lld bytes, but the manifest lists %" PRIu64
				      " (truncated or damaged)",
				      dir, rel, (long long)st.st_size,
				      m->files[i].size);
			goto out_close;
		}
		break;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		ret = sb_fail(err, -errno, "%s/%s: %s", dir, rel,
			      strerror(errno));
		goto out_close;
	}
	return fd;
out_close:
	close(fd);
	return ret;
}

int sb_bundle_read_file(const char *dir, const char *rel,
			const struct sb_manifest *m, size_t max, char **buf,
			size_t *len, struct sb_err *err)
{
	char name[4096];
	int fd = sb_bundle_open_file(dir, rel, m, err);

	if (fd < 0)
		return fd;
	snprintf(name, sizeof(name), "%s/%s", dir, rel);
	return sb_read_fd(fd, name, max, buf, len, err);
}
