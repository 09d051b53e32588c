// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fakeptrec.so: LD_PRELOAD stand-in for /dev/ptrec, so the CLI tests can
 * show ptrec record's answer to each failure of the device on a machine
 * without the module.  FAKE_PTREC says what the device does:
 *
 *   enoent, enodev, eacces   open() fails with that errno
 *   eproto, einval, enotty   PTREC_IOC_INFO fails with that errno
 *   oldversion               INFO answers with interface version 0
 *   nopt                     INFO reports no PT unit
 *   eperm, ebusy, esrch      INFO reports a unit, ATTACH fails so
 *   empty                    ATTACH works, the stream ends at once
 *   hang                     ATTACH works, the stream never ends (poll()
 *                            reports nothing, even after DETACH)
 *
 * Only the path /dev/ptrec is touched; every other call goes through.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/ptrec.h"

static int fake_fd = -1;

static int fake_errno(const char *mode, const char *const *names,
		      const int *errs)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(mode, names[i]))
			return errs[i];
	return 0;
}

static int fake_open(const char *path, int flags, mode_t m, bool is64)
{
	static const char *const names[] = { "enoent", "enodev", "eacces",
					     NULL };
	static const int errs[] = { ENOENT, ENODEV, EACCES };
	int (*real)(const char *, int, ...) =
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT,
						       is64 ? "open64" : "open");
	const char *mode = getenv("FAKE_PTREC");
	int e;

	if (!mode || strcmp(path, PTREC_DEVICE))
		return real(path, flags, m);
	e = fake_errno(mode, names, errs);
	if (e) {
		errno = e;
		return -1;
	}
	fake_fd = real("/dev/null", O_RDWR | O_CLOEXEC, 0);
	return fake_fd;
}

int open(const char *path, int flags, ...);
int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	return fake_open(path, flags, m, false);
}

int open64(const char *path, int flags, ...);
int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	return fake_open(path, flags, m, true);
}

int ioctl(int fd, unsigned long req, ...);
int ioctl(int fd, unsigned long req, ...)
{
	static const char *const info_names[] = { "eproto", "einval",
						  "enotty", NULL };
	static const int info_errs[] = { EPROTO, EINVAL, ENOTTY };
	static const char *const att_names[] = { "eperm", "ebusy", "esrch",
						 NULL };
	static const int att_errs[] = { EPERM, EBUSY, ESRCH };
	int (*real)(int, unsigned long, ...) =
		(int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	const char *mode = getenv("FAKE_PTREC");
	va_list ap;
	void *arg;
	int e;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!mode || fd != fake_fd || fd < 0)
		return real(fd, req, arg);
	if (req == PTREC_IOC_INFO) {
		struct ptrec_info *in = arg;

		e = fake_errno(mode, info_names, info_errs);
		if (e) {
			errno = e;
			return -1;
		}
		memset(in, 0, sizeof(*in));
		in->size = sizeof(*in);
		in->version = strcmp(mode, "oldversion") ? PTREC_UAPI_VERSION
							 : 0;
		if (strcmp(mode, "nopt"))
			in->flags = PTREC_INFO_TOPA | PTREC_INFO_TOPA_MULTI |
				    PTREC_INFO_XSAVES;
		in->psb_periods = 0x3f;
		in->family = 6;
		in->model = 85;
		in->tsc_khz = 2000000;
		return 0;
	}
	if (req == PTREC_IOC_ATTACH) {
		if (!strcmp(mode, "empty") || !strcmp(mode, "hang"))
			return 0;
		e = fake_errno(mode, att_names, att_errs);
		errno = e ? e : EIO;
		return -1;
	}
	if (req == PTREC_IOC_DETACH)
		return 0;
	if (req == PTREC_IOC_STATS) {
		struct ptrec_stats *st = arg;

		memset(st, 0, sizeof(*st));
		st->size = sizeof(*st);
		st->version = PTREC_UAPI_VERSION;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

/* "hang": nothing ever arrives on the fake device. */
int poll(struct pollfd *fds, nfds_t n, int timeout);
int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int (*real)(struct pollfd *, nfds_t, int) =
		(int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	const char *mode = getenv("FAKE_PTREC");

	if (mode && !strcmp(mode, "hang") && n == 1 && fds[0].fd == fake_fd &&
	    fake_fd >= 0) {
		fds[0].revents = 0;
		usleep(timeout > 0 ? (useconds_t)timeout * 1000 : 0);
		return 0;
	}
	return real(fds, n, timeout);
}
