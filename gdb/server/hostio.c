// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The target's files for GDB's Host I/O (GDB manual, "Host I/O Packets"),
 * so GDB's default sysroot "target:" reads the program and its libraries
 * from the bundle: the bytes that ran, even after the machine's libc was
 * upgraded or on another machine.  A path the recording mapped is served
 * from the bundle's image copy (by the bundle rule, docs/security.md);
 * any other path (separate debug info, build-id links) from the local
 * filesystem, read-only, never under /proc, /sys or /dev.  No write,
 * ever.  Answers in values and File-I/O errno numbers (conn.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"

/* A host errno as GDB's File-I/O number (GDB manual, "Errno Values"). */
static int fileio_errno(int e)
{
	switch (e) {
	case EPERM:
		return FILEIO_EPERM;
	case ENOENT:
	case ENOTDIR:
	case ELOOP:
		return FILEIO_ENOENT;
	case EBADF:
		return FILEIO_EBADF;
	case EACCES:
		return FILEIO_EACCES;
	case EINVAL:
		return FILEIO_EINVAL;
	case EMFILE:
	case ENFILE:
		return FILEIO_EMFILE;
	case ENAMETOOLONG:
		return FILEIO_ENAMETOOLONG;
	default:
		return FILEIO_EUNKNOWN;
	}
}

/* Whether @path is under one of the kernel's pseudo filesystems. */
static bool pseudo_path(const char *path)
{
	static const char *const dirs[] = { "/proc", "/sys", "/dev" };
	size_t i, n;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		n = strlen(dirs[i]);
		if (!strncmp(path, dirs[i], n) &&
		    (path[n] == '/' || !path[n]))
			return true;
	}
	return false;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The bundle image recorded at @path (1 + index), or 0.  The program's
 * PT_INTERP names the dynamic linker by a path the recording may have
 * mapped by another (/lib64 is a link): that path is the image of the
 * same name.
 */
static uint32_t find_image(struct target *tg, const char *path)
{
	char interp[FILE_PATH_MAX];
	const char *o;
	uint32_t i;
	uint32_t pid = rp_timeline_pid(tg->tl, rp_timeline_selected(tg->tl));

	if (tg->file_pid)
		pid = tg->file_pid;
	for (i = 1; (o = rp_image_origin(tg->s, i)); i++)
		if (!strcmp(o, path))
			return i;
	if (rp_process_interp(tg->s, pid, interp, sizeof(interp)) ||
	    strcmp(interp, path))
		return 0;
	for (i = 1; (o = rp_image_origin(tg->s, i)); i++)
		if (o[0] == '/' && !strcmp(base_name(o), base_name(path)))
			return i;
	return 0;
}

/*
 * @path on the local filesystem, read-only: its links resolved (build-id
 * links are), the result refused under /proc, /sys and /dev, then opened
 * without following a link swapped in meanwhile, and refused unless a
 * regular file (a FIFO would hang GDB).  Returns an fd or -errno.
 */
static int open_local(const char *path)
{
	char *real;
	struct stat st;
	int fd;

	if (path[0] != '/' || pseudo_path(path))
		return -EACCES;
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	if (pseudo_path(real)) {
		free(real);
		return -EACCES;
	}
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	free(real);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

int target_file_setfs(struct target *tg, long long pid, int *err)
{
	size_t i;

	/* 0: the server's own filesystem view, which is the selected
	 * process's; a recorded process's, which share it.
	 */
	for (i = 0; pid && i < rp_timeline_count(tg->tl); i++)
		if (rp_timeline_pid(tg->tl, i) == pid)
			break;
	if (pid && i == rp_timeline_count(tg->tl)) {
		*err = FILEIO_EINVAL;
		return -1;
	}
	tg->file_pid = (uint32_t)pid;
	return 0;
}

int target_file_open(struct target *tg, const char *path, uint64_t flags,
		     int *err)
{
	uint32_t image;
	int k, fd;

	if (flags) {
		/* Only FILEIO_O_RDONLY (0): no write, create or truncate. */
		*err = FILEIO_EACCES;
		return -1;
	}
	for (k = 0; k < TARGET_MAX_FILES && tg->files[k].open; k++)
		;
	if (k == TARGET_MAX_FILES) {
		*err = FILEIO_EMFILE;
		return -1;
	}
	image = find_image(tg, path);
	fd = image ? rp_image_fd(tg->s, image) : open_local(path);
	if (fd < 0) {
		*err = fileio_errno(-fd);
		return -1;
	}
	tg->files[k].fd = fd;
	tg->files[k].open = true;
	return k;
}

/* The descriptor behind GDB's @k, or -1 (*@err EBADF). */
static int file_fd(struct target *tg, int k, int *err)
{
	if (k < 0 || k >= TARGET_MAX_FILES || !tg->files[k].open) {
		*err = FILEIO_EBADF;
		return -1;
	}
	return tg->files[k].fd;
}

long long target_file_pread(struct target *tg, int k, void *buf,
			    size_t len, uint64_t off, int *err)
{
	int fd = file_fd(tg, k, err);
	ssize_t n;

	if (fd < 0)
		return -1;
	if (off > INT64_MAX) {
		*err = FILEIO_EINVAL;
		return -1;
	}
	n = pread(fd, buf, len, (off_t)off);
	if (n < 0) {
		*err = fileio_errno(errno);
		return -1;
	}
	return n;
}

int target_file_fstat(struct target *tg, int k, struct stat *st, int *err)
{
	int fd = file_fd(tg, k, err);

	if (fd < 0)
		return -1;
	if (fstat(fd, st)) {
		*err = fileio_errno(errno);
		return -1;
	}
	return 0;
}

int target_file_close(struct target *tg, int k, int *err)
{
	int fd = file_fd(tg, k, err);

	if (fd < 0)
		return -1;
	close(fd);
	tg->files[k].open = false;
	return 0;
}

void target_files_close(struct target *tg)
{
	int k;

	for (k = 0; k < TARGET_MAX_FILES; k++)
		if (tg->files[k].open) {
			close(tg->files[k].fd);
			tg->files[k].open = false;
		}
	tg->file_pid = 0;
}

long long target_file_readlink(struct target *tg, const char *path,
			       char *buf, size_t size, int *err)
{
	ssize_t n;

	/* An image is served as the file it was, not as a link. */
	if (find_image(tg, path)) {
		*err = FILEIO_EINVAL;
		return -1;
	}
	if (path[0] != '/' || pseudo_path(path)) {
		*err = FILEIO_EACCES;
		return -1;
	}
	n = readlink(path, buf, size);
	if (n < 0) {
		*err = fileio_errno(errno);
		return -1;
	}
	return n;
}
