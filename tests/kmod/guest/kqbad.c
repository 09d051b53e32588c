// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqbad: every malformed or forbidden request to /dev/ptrec gets the error
 * kmod/uapi/ptrec.h documents, and a well-formed one succeeds (so the
 * errors are not the module refusing everything).  Prints TAP lines without
 * numbers; run as root in the guest, with the module loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/ptrec.h"

static int kq_fails;

static const char *kq_ename(int e)
{
	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case EPROTO: return "EPROTO";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ESRCH: return "ESRCH";
	case EBUSY: return "EBUSY";
	case ENOTTY: return "ENOTTY";
	case E2BIG: return "E2BIG";
	case EFAULT: return "EFAULT";
	case ENODEV: return "ENODEV";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default: return strerror(e);
	}
}

/* kq_expect(GOT, WANT1, WANT2, DESC...): GOT is 0 or an errno value. */
static void __attribute__((format(printf, 4, 5)))
kq_expect(int got, int want1, int want2, const char *fmt, ...)
{
	char desc[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	if (got == want1 || got == want2) {
		printf("ok - bad ioctl: %s: %s\n", desc, kq_ename(got));
	} else {
		kq_fails++;
		printf("not ok - bad ioctl: %s: got %s, want %s%s%s\n", desc,
		       kq_ename(got), kq_ename(want1), want2 ? " or " : "",
		       want2 ? kq_ename(want2) : "");
	}
	fflush(stdout);
}

static int kq_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static int kq_open(void)
{
	int fd = open(PTREC_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("not ok - bad ioctl: open %s: %s\n", PTREC_DEVICE,
		       strerror(errno));
		_exit(1);
	}
	return fd;
}

static struct ptrec_config kq_good(pid_t pid)
{
	struct ptrec_config c = {
		.size = sizeof(c), .version = PTREC_UAPI_VERSION,
		.pid = (uint32_t)pid, .flags = PTREC_CFG_USER,
		.buf_size = 16384, .nr_regions = 2,
	};
	return c;
}

/* A fresh session attaching @c; the session is closed again. */
static int kq_attach(struct ptrec_config c)
{
	int fd = kq_open(), rc = kq_ioctl(fd, PTREC_IOC_ATTACH, &c);

	close(fd);
	return rc;
}

/* A process that waits to be killed, running as @uid. */
static pid_t kq_sleeper(uid_t uid)
{
	pid_t p = fork();

	if (p == 0) {
		if (uid && setresuid(uid, uid, uid))
			_exit(1);
		/*
		 * Changing uid made it non-dumpable, which ptrace (and so
		 * ptrec) refuses; a user's own program is dumpable.
		 */
		prctl(PR_SET_DUMPABLE, 1);
		for (;;)
			pause();
	}
	return p;
}

static void kq_reap(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

/*
 * In a child: become @uid keeping only the capabilities in @caps (bits
 * 32..63 in the high word), attach @target, return the errno to the parent
 * as the exit code.
 */
static int kq_attach_as(uid_t uid, uint64_t caps, pid_t target)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int st;
	pid_t p = fork();

	if (p == 0) {
		if (prctl(PR_SET_KEEPCAPS, 1) || setresuid(uid, uid, uid))
			_exit(100);
		memset(d, 0, sizeof(d));
		d[0].effective = d[0].permitted = (uint32_t)caps;
		d[1].effective = d[1].permitted = (uint32_t)(caps >> 32);
		if (syscall(SYS_capset, &h, d))
			_exit(101);
		_exit(kq_attach(kq_good(target)));
	}
	if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void *kq_park(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* The tid of a second thread of this process (not a thread group id). */
static pid_t kq_thread_tid(void)
{
	static pid_t tid;
	pthread_t t;
	char path[64];
	int i;

	if (tid)
		return tid;
	if (pthread_create(&t, NULL, kq_park, NULL))
		return 0;
	/* the newest entry of /proc/self/task other than ourselves */
	for (i = getpid() + 1; i < getpid() + 1000; i++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d", i);
		if (access(path, F_OK) == 0) {
			tid = i;
			break;
		}
	}
	return tid;
}

int main(void)
{
	struct ptrec_info info = {
		.size = sizeof(info), .version = PTREC_UAPI_VERSION,
	};
	struct ptrec_stats st = {
		.size = sizeof(st), .version = PTREC_UAPI_VERSION,
	};
	struct ptrec_config c;
	char small[64];
	pid_t self_target, other;
	int fd, rc, i;
	uint32_t max_ranges;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = kq_open();
	rc = kq_ioctl(fd, PTREC_IOC_INFO, &info);
	kq_expect(rc, 0, 0, "INFO, well-formed");
	max_ranges = info.nr_addr_ranges;

	info.size = sizeof(info) - 8;
	kq_expect(kq_ioctl(fd, PTREC_IOC_INFO, &info), EINVAL, 0,
		  "INFO, size %u", info.size);
	info.size = 0;
	kq_expect(kq_ioctl(fd, PTREC_IOC_INFO, &info), EINVAL, 0,
		  "INFO, size 0");
	info.size = sizeof(info);
	info.version = PTREC_UAPI_VERSION + 1;
	kq_expect(kq_ioctl(fd, PTREC_IOC_INFO, &info), EPROTO, 0,
		  "INFO, version %u", info.version);
	info.version = 0;
	kq_expect(kq_ioctl(fd, PTREC_IOC_INFO, &info), EPROTO, 0,
		  "INFO, version 0");
	kq_expect(kq_ioctl(fd, _IO(PTREC_IOC_MAGIC, 0x7f), NULL), ENOTTY,
		  0, "unknown ioctl number");
	kq_expect(kq_ioctl(fd, PTREC_IOC_INFO, (void *)8), EFAULT, 0,
		  "INFO, bad pointer");
	kq_expect(read(fd, small, sizeof(small)) < 0 ? errno : 0, EINVAL, 0,
		  "read() with %zu bytes < PTREC_READ_MIN", sizeof(small));
	close(fd);

	self_target = kq_sleeper(0);
	c = kq_good(self_target);
	kq_expect(kq_attach(c), 0, 0, "ATTACH, well-formed (control)");

	c = kq_good(self_target);
	c.size = sizeof(c) + 8;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, size %u", c.size);
	c.size = 8;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, size 8");
	c = kq_good(self_target);
	c.version = 2;
	kq_expect(kq_attach(c), EPROTO, 0, "ATTACH, version 2");

	c = kq_good(self_target);
	c.pid = 0x3fffff00;
	kq_expect(kq_attach(c), ESRCH, 0, "ATTACH, pid that does not exist");
	c.pid = 0;
	kq_expect(kq_attach(c), ESRCH, EINVAL, "ATTACH, pid 0");
	c.pid = (uint32_t)-5;
	kq_expect(kq_attach(c), ESRCH, EINVAL, "ATTACH, pid -5");
	c.pid = 2;	/* kthreadd */
	kq_expect(kq_attach(c), ESRCH, EPERM, "ATTACH, a kernel thread");
	c.pid = (uint32_t)kq_thread_tid();
	kq_expect(c.pid ? kq_attach(c) : -1, ESRCH, EINVAL,
		  "ATTACH, a thread id that is not a process id (%u)", c.pid);

	c = kq_good(self_target);
	c.buf_size = 0;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, buf_size 0");
	c.buf_size = 3 * 4096;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, buf_size 3 pages");
	c.buf_size = 4096;
	c.nr_regions = 1;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, buf_size one page");
	c.buf_size = 1ull << 40;
	kq_expect(kq_attach(c), EINVAL, E2BIG,
		  "ATTACH, buf_size 1 TiB (> max_buf_size)");
	c = kq_good(self_target);
	c.nr_regions = 0;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, nr_regions 0");
	c.nr_regions = 3;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, nr_regions 3");
	c.nr_regions = 8;	/* 2 KiB regions */
	kq_expect(kq_attach(c), EINVAL, 0,
		  "ATTACH, regions smaller than a page");

	c = kq_good(self_target);
	c.flags = PTREC_CFG_TSC;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, neither USER nor KERNEL");
	c.flags = PTREC_CFG_USER | (1u << 30);
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, unknown flag bit 30");
	c = kq_good(self_target);
	c.psb_period = 16;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, psb_period 16");

	c = kq_good(self_target);
	c.nr_addr_ranges = max_ranges + 1;
	for (i = 0; i < PTREC_MAX_ADDR_RANGES; i++) {
		c.addr_ranges[i].start = 0x400000;
		c.addr_ranges[i].end = 0x500000;
		c.addr_ranges[i].mode = 1;
	}
	kq_expect(kq_attach(c), EINVAL, 0,
		  "ATTACH, %u ranges where the unit has %u",
		  c.nr_addr_ranges, max_ranges);
	c.nr_addr_ranges = PTREC_MAX_ADDR_RANGES + 1;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, %u ranges",
		  c.nr_addr_ranges);

	c = kq_good(self_target);
	c.reserved[7] = 1;
	kq_expect(kq_attach(c), EINVAL, 0, "ATTACH, reserved[7] non-zero");
	c = kq_good(self_target);
	c.addr_ranges[0].reserved = 1;
	kq_expect(kq_attach(c), EINVAL, 0,
		  "ATTACH, addr_ranges[0].reserved non-zero");

	/* Twice on one file: one session per open file. */
	fd = kq_open();
	c = kq_good(self_target);
	kq_expect(kq_ioctl(fd, PTREC_IOC_ATTACH, &c), 0, 0,
		  "ATTACH on a fresh file");
	kq_expect(kq_ioctl(fd, PTREC_IOC_ATTACH, &c), EBUSY, EINVAL,
		  "second ATTACH on the same file");
	st.size = 4;
	kq_expect(kq_ioctl(fd, PTREC_IOC_STATS, &st), EINVAL, 0,
		  "STATS, size 4");
	st.size = sizeof(st);
	st.version = 9;
	kq_expect(kq_ioctl(fd, PTREC_IOC_STATS, &st), EPROTO, 0,
		  "STATS, version 9");
	st.version = PTREC_UAPI_VERSION;
	kq_expect(kq_ioctl(fd, PTREC_IOC_STATS, &st), 0, 0,
		  "STATS, well-formed");
	close(fd);

	/* Permission: CAP_PERFMON, and only processes the caller may trace. */
	kq_expect(kq_attach_as(1000, 0, self_target), EPERM, EACCES,
		  "uid 1000 without capabilities attaches root's process");
	other = kq_sleeper(1000);
	kq_expect(kq_attach_as(1000, 0, other), EPERM, EACCES,
		  "uid 1000 without CAP_PERFMON attaches its own process");
	kq_expect(kq_attach_as(1000, 1ull << CAP_PERFMON, other), 0, 0,
		  "uid 1000 with CAP_PERFMON attaches its own process");
	kq_expect(kq_attach_as(1000, 1ull << CAP_PERFMON, self_target),
		  EPERM, EACCES,
		  "uid 1000 with CAP_PERFMON attaches another user's process");
	kq_expect(kq_attach_as(1000, (1ull << CAP_PERFMON) |
			       (1ull << CAP_SYS_PTRACE), self_target), 0, 0,
		  "uid 1000 with CAP_PERFMON and CAP_SYS_PTRACE attaches "
		  "another user's process");
	kq_reap(other);
	kq_reap(self_target);
	return kq_fails ? 1 : 0;
}
