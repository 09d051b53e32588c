// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-module recorder: real (or the module's simulated) Intel PT
 * through /dev/ptrec (kmod/uapi/ptrec.h, docs/kmod.md).
 *
 * The module traces every thread of one process with its own PT buffer and
 * writes the sideband itself; read() returns one stream of messages.  This
 * file launches the program (stopped by ptrace right after its exec, so
 * the trace starts at its first instruction and no ptrec code is in it) or
 * takes a running one, attaches, and splits the stream into the bundle:
 *
 *   PTREC_MSG_TRACE	appended to pt/<tid>.pt of its thread; a jump in a
 *			thread's stream offsets that no LOST record explains
 *			gets a LOST record of its own (and a warning);
 *   MMAP		copied with the image key of the mapped file (the
 *			module sends key_len 0), the file going into images/;
 *   LOST		its offset turned from the module's logical stream
 *			offset into the byte offset of pt/<tid>.pt;
 *   anything else	copied as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "images.h"
#include "record.h"
#include "skel.h"
#include "snapshot.h"
#include "uapi/ptrec.h"

#define KM_READ_SIZE	(4 * PTREC_READ_MIN)
/* After the launched program is gone, how long the module may take to end
 * the session before ptrec detaches by itself, and after a detach, to end
 * the stream (environment PTREC_KMOD_GRACE_MS overrides it, for tests).
 */
#define KM_END_GRACE_MS	10000

#define KM_PEND_MAX	16

struct km_thread {
	uint32_t pid, tid;
	FILE *f;
	uint64_t file_bytes;	/* bytes in pt/<tid>.pt */
	uint64_t next_off;	/* module stream offset expected next */
	/*
	 * LOST records whose stream offset lies beyond the data received so
	 * far: stop-on-full reports FULL at the end of what the unit wrote
	 * before that data is drained.  Placed once the data reaches them.
	 */
	struct ptrec_sb_lost pend[KM_PEND_MAX];
	unsigned int npend;
	struct km_thread *next;
};

struct km {
	const struct rec_options *o;
	struct rec_stats *st;
	struct sb_err *err;
	struct sb_bundle *b;
	struct sb_manifest *m;
	struct sb_writer *sb;
	struct ptrec_info info;
	int fd;
	pid_t pid;
	bool launched;
	struct km_thread *threads;
	struct rec_images images;
	char vdso_key[SB_IMAGE_KEY_MAX];
	int vdso_state;		/* 0 unknown, 1 stored, -1 failed */
	bool have_time;
	uint64_t last_time;
	uint64_t clamped;	/* records whose time went backwards */
	uint64_t unknown;	/* records of types this ptrec does not know */
	struct rlimit nofile;	/* RLIMIT_NOFILE as ptrec found it */
	bool nofile_raised;
	struct rec_snap snap;		/* the end state (record/snapshot.c) */
	struct rec_snap_tracer tr;	/* the launched program, traced for it */
	bool exec_filtered;		/* its execve calls stop (tracer.c) */
	int error;
};

/* ---- errors ----------------------------------------------------------- */

/* The first error wins (rec_fail()); returns @code. */
#define km_fail(k, code, ...) \
	rec_fail(&(k)->error, (k)->err, (code), __VA_ARGS__)

/* A warning on stderr, unless --quiet (rec_warn()). */
#define km_warn(k, ...) rec_warn((k)->o->quiet, __VA_ARGS__)

/* ---- the device ------------------------------------------------------- */

static void set_err(struct sb_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct sb_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Opens /dev/ptrec and checks PTREC_IOC_INFO; returns the fd or -errno. */
static int km_open(struct ptrec_info *info, struct sb_err *err)
{
	int fd, e;

	fd = open(PTREC_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		switch (e) {
		case ENOENT:
			set_err(err, "%s does not exist: the ptrec.ko kernel module is not loaded (modprobe ptrec, or install it: see docs/kmod.md)",
				PTREC_DEVICE);
			break;
		case ENODEV:
		case ENXIO:
			set_err(err, "%s: %s: the device node has no driver behind it (the module was unloaded?); modprobe ptrec, see docs/kmod.md",
				PTREC_DEVICE, strerror(e));
			break;
		case EACCES:
		case EPERM:
			set_err(err, "%s: %s: the module creates it mode 0666 and checks rights when tracing starts; check the node's mode (ls -l %s, udev rules)",
				PTREC_DEVICE, strerror(e), PTREC_DEVICE);
			break;
		default:
			set_err(err, "%s: %s", PTREC_DEVICE, strerror(e));
		}
		return -e;
	}
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->version = PTREC_UAPI_VERSION;
	if (ioctl(fd, PTREC_IOC_INFO, info) < 0) {
		e = errno;
		close(fd);
		if (e == EPROTO || e == EINVAL) {
			set_err(err, "%s: PTREC_IOC_INFO: %s: the loaded ptrec.ko does not speak interface version %d of this ptrec (struct size %zu); the module and ptrec come from different releases: install the module of this release (make kmod, or DKMS: see README, \"Installing the module with DKMS\") and reload it (rmmod ptrec; modprobe ptrec)",
				PTREC_DEVICE, strerror(e), PTREC_UAPI_VERSION,
				sizeof(*info));
			return -EPROTO;
		}
		if (e == ENOTTY) {
			set_err(err, "%s: PTREC_IOC_INFO: %s: this device is not ptrec.ko's /dev/ptrec",
				PTREC_DEVICE, strerror(e));
			return -ENOTTY;
		}
		set_err(err, "%s: PTREC_IOC_INFO: %s", PTREC_DEVICE,
			strerror(e));
		return -e;
	}
	if (info->version != PTREC_UAPI_VERSION) {
		close(fd);
		set_err(err, "%s: the module answers with interface version %u, this ptrec speaks %d: install the module of this release and reload it (see docs/kmod.md)",
			PTREC_DEVICE, info->version, PTREC_UAPI_VERSION);
		return -EPROTO;
	}
	if (!(info->flags & (PTREC_INFO_SIMULATED | PTREC_INFO_TOPA))) {
		close(fd);
		set_err(err, "%s: the module reports no usable Intel PT unit (no ToPA output, not simulated)",
			PTREC_DEVICE);
		return -EOPNOTSUPP;
	}
	return fd;
}

int rec_kmod_probe(struct ptrec_info *info, struct sb_err *err)
{
	int fd = km_open(info, err);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set. */
bool rec_kmod_capable(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "re");
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	if (!found)
		return geteuid() == 0;
	return caps & ((1ull << 38) | (1ull << 21));
}

/* ---- configuration ------------------------------------------------------ */

static int km_config(struct km *k, struct ptrec_config *c)
{
	const struct rec_kmod_options *ko = &k->o->kmod;
	const struct ptrec_info *in = &k->info;
	uint64_t psb = k->o->psb_period;
	unsigned int enc;

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->version = PTREC_UAPI_VERSION;
	c->flags = PTREC_CFG_USER;
	if (ko->kernel)
		c->flags |= PTREC_CFG_KERNEL;
	if (!ko->stop_on_full)
		c->flags |= PTREC_CFG_RING;
	if (ko->follow_fork)
		c->flags |= PTREC_CFG_FOLLOW_FORK;
	if (!ko->no_tsc)
		c->flags |= PTREC_CFG_TSC;
	if (ko->ptwrite) {
		if (!(in->flags & PTREC_INFO_PTWRITE))
			return km_fail(k, -EOPNOTSUPP, "--ptwrite: this PT unit has no PTWRITE (CPUID.14H.0:EBX[4])");
		c->flags |= PTREC_CFG_PTWRITE;
	}
	if (ko->mtc >= 0) {
		if (!(in->flags & PTREC_INFO_MTC))
			return km_fail(k, -EOPNOTSUPP, "--mtc: this PT unit has no MTC packets");
		if (ko->mtc > 15 || !(in->mtc_periods & (1u << ko->mtc)))
			return km_fail(k, -EINVAL, "--mtc %d: not a period this unit offers (bitmap 0x%x)",
				       ko->mtc, in->mtc_periods);
		c->flags |= PTREC_CFG_MTC;
		c->mtc_period = (uint32_t)ko->mtc;
	}
	if (ko->cyc >= 0) {
		if (!(in->flags & PTREC_INFO_PSB_CYC))
			return km_fail(k, -EOPNOTSUPP, "--cyc: this PT unit has no cycle-accurate mode");
		if (ko->cyc > 15 ||
		    (ko->cyc && !(in->cyc_thresholds & (1u << ko->cyc))))
			return km_fail(k, -EINVAL, "--cyc %d: not a threshold this unit offers (bitmap 0x%x)",
				       ko->cyc, in->cyc_thresholds);
		c->flags |= PTREC_CFG_CYC;
		c->cyc_threshold = (uint32_t)ko->cyc;
	}
	/* PSBFreq n: a PSB about every 2^(n + 11) bytes (SDM 33.2.7.2) */
	enc = 0;
	if (psb) {
		if (psb & (psb - 1) || psb < 2048 || psb > (2048ull << 15))
			return km_fail(k, -EINVAL, "--psb-period %" PRIu64 ": with --backend=kmod a power of two from 2048 to 67108864",
				       psb);
		while ((2048ull << enc) < psb)
			enc++;
		if (enc && !(in->psb_periods & (1u << enc)))
			return km_fail(k, -EINVAL, "--psb-period %" PRIu64 ": not a period this unit offers (PSBFreq bitmap 0x%x)",
				       psb, in->psb_periods);
	}
	c->psb_period = enc;
	c->buf_size = ko->buf_size ? ko->buf_size : 1u << 20;
	if (c->buf_size & (c->buf_size - 1) || c->buf_size < 8192)
		return km_fail(k, -EINVAL, "--buffer-size %" PRIu64 ": a power of two of at least 8192 bytes",
			       (uint64_t)c->buf_size);
	c->nr_regions = ko->nr_regions;
	if (!c->nr_regions)
		c->nr_regions = in->flags & PTREC_INFO_TOPA_MULTI ? 8 : 1;
	while (c->nr_regions > 1 && c->buf_size / c->nr_regions < 4096)
		c->nr_regions /= 2;
	if (c->nr_regions & (c->nr_regions - 1))
		return km_fail(k, -EINVAL, "--regions %u: a power of two",
			       c->nr_regions);
	c->sim_rate = ko->sim_rate;
	return 0;
}

static const char *km_attach_errstr(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return "tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) and the right to ptrace the process: run ptrec as root, give it the capability (setcap cap_perfmon+ep), or record with --backend=emu";
	case ESRCH:
		return "no such process, or it is exiting (give the process id, not a thread id)";
	case EBUSY:
		return "the process is already traced by another ptrec session, or another tracer (perf's intel_pt) uses Intel PT now; the kernel log (dmesg) says which";
	case EOPNOTSUPP:
		return "the PT unit lacks a requested feature (--regions > 1 needs multi-entry ToPA; --mtc, --cyc, --ptwrite need the unit's support)";
	case EINVAL:
		return "the module refused the configuration: the buffer must be a power of two, at least 8192 bytes and at most the module's max_buf_size (/sys/module/ptrec/parameters/max_buf_size), each region at least a page";
	case ENOMEM:
		return "the module could not allocate the per-thread buffers: try a smaller --buffer-size";
	case EPROTO:
		return "interface version mismatch: install the module of this ptrec release and reload it";
	default:
		return strerror(e);
	}
}

/* ---- threads and files --------------------------------------------------- */

static struct km_thread *km_thread(struct km *k, uint32_t pid, uint32_t tid)
{
	const struct sb_thread *mt;
	struct km_thread *t;
	char path[PATH_MAX];
	int ret;

	for (t = k->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (k->error)
		return NULL;
	ret = sb_bundle_add_thread(k->b, pid, tid, false, &mt);
	if (ret) {
		km_fail(k, ret, "thread %u: %s", tid, strerror(-ret));
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		km_fail(k, -ENOMEM, "out of memory");
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	if (sb_bundle_path(k->b, mt->pt, path, sizeof(path)) < 0 ||
	    !(t->f = fopen(path, "we"))) {
		km_fail(k, errno ? -errno : -ENAMETOOLONG, "%s/%s: %s",
			sb_bundle_dir(k->b), mt->pt, strerror(errno));
		free(t);
		return NULL;
	}
	t->next = k->threads;
	k->threads = t;
	k->st->threads++;
	return t;
}

static struct sb_process *km_proc(struct km *k, uint32_t pid, uint32_t ppid)
{
	struct sb_process *p;
	size_t i;

	for (i = 0; i < k->m->nprocs; i++)
		if (k->m->procs[i].pid == pid)
			return &k->m->procs[i];
	p = sb_manifest_add_process(k->m);
	if (!p) {
		km_fail(k, -ENOMEM, "out of memory");
		return NULL;
	}
	p->pid = pid;
	p->ppid = ppid;
	k->st->processes++;
	return p;
}

static void km_proc_exe(struct km *k, uint32_t pid, const char *exe)
{
	struct sb_process *p = km_proc(k, pid, 0);

	if (!p)
		return;
	free(p->exe);
	p->exe = strdup(exe);
}

/* ---- image store --------------------------------------------------------- */

static const char *km_image_file(struct km *k, const char *path)
{
	return rec_image_file(&k->images, k->b, path, k->o->quiet, &k->error,
			      k->err);
}

/*
 * The vdso is the same image in every process of one kernel: ptrec's own
 * copy stands for the traced process's, which may be gone by now.
 */
static const char *km_image_vdso(struct km *k, uint64_t len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long lo, hi;
	char line[512];
	uint64_t own = 0;
	struct sb_err err;
	FILE *f;

	if (k->vdso_state)
		return k->vdso_state > 0 ? k->vdso_key : NULL;
	k->vdso_state = -1;
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base)
			own = hi - lo;
	if (f)
		fclose(f);
	if (!base || !own) {
		km_warn(k, "cannot find ptrec's own [vdso] to store for the traced process");
		return NULL;
	}
	if (own != len)
		km_warn(k, "[vdso] of the traced process is %" PRIu64 " bytes, ptrec's %" PRIu64 "; storing ptrec's",
			len, own);
	if (sb_bundle_add_image_mem(k->b, (const void *)base, own, "[vdso]",
				    k->vdso_key, sizeof(k->vdso_key), &err)) {
		km_warn(k, "%s", err.msg);
		return NULL;
	}
	k->vdso_state = 1;
	return k->vdso_key;
}

/* ---- the message stream -------------------------------------------------- */

/* Records must not go back in time; a module that breaks this is noted. */
static void km_stamp(struct km *k, struct ptrec_sb_header *h)
{
	if (h->time < k->last_time) {
		k->clamped++;
		h->time = k->last_time;
	}
	k->last_time = h->time;
}

static void km_sb_add(struct km *k, struct ptrec_sb_header *h)
{
	struct sb_err err;
	int ret;

	if (k->error)
		return;
	km_stamp(k, h);
	ret = sb_writer_add(k->sb, h, &err);
	if (ret)
		km_fail(k, ret, "%s", err.msg);
}

static void km_lost(struct km *k, struct km_thread *t, uint32_t reason,
		    uint64_t bytes)
{
	struct ptrec_sb_lost l = {
		.hdr = { .type = PTREC_SB_LOST, .time = k->last_time },
		.tid = t->tid,
		.reason = reason,
		.bytes = bytes,
		.offset = t->file_bytes,
	};

	km_sb_add(k, &l.hdr);
	k->st->lost_bytes += bytes;
}

/*
 * Writes a module LOST record at the current end of the thread's file (the
 * bundle's LOST offset is a file offset; the module's is its logical
 * stream offset) and moves the expected stream offset past the loss.
 */
static void km_place_lost(struct km *k, struct km_thread *t,
			  struct ptrec_sb_lost *l)
{
	uint64_t off = l->offset;

	if (off + l->bytes > t->next_off)
		t->next_off = off + l->bytes;
	l->offset = t->file_bytes;
	l->hdr.size = 0;
	k->st->lost_bytes += l->bytes;
	km_sb_add(k, &l->hdr);
}

/* Places the pending losses the data has reached (all with @all). */
static void km_flush_lost(struct km *k, struct km_thread *t, uint64_t upto,
			  bool all)
{
	unsigned int i;

	while (t->npend && !k->error &&
	       (all || t->pend[0].offset <= upto)) {
		/* placed late on purpose: not a record going back in time */
		if (t->pend[0].hdr.time < k->last_time)
			t->pend[0].hdr.time = k->last_time;
		km_place_lost(k, t, &t->pend[0]);
		t->npend--;
		for (i = 0; i < t->npend; i++)
			t->pend[i] = t->pend[i + 1];
	}
}

static void km_trace(struct km *k, const struct ptrec_msg_trace *m)
{
	struct km_thread *t = km_thread(k, m->pid, m->tid);

	if (!t)
		return;
	/* losses at or before this data's start */
	km_flush_lost(k, t, m->offset, false);
	if (m->offset != t->next_off) {
		/* a jump the module did not explain with a LOST record */
		k->st->unexplained++;
		km_lost(k, t, k->o->kmod.stop_on_full ? PTREC_SB_LOST_READER :
			PTREC_SB_LOST_WRAP,
			m->offset > t->next_off ? m->offset - t->next_off : 0);
	}
	if (fwrite(m + 1, 1, m->len, t->f) != m->len) {
		km_fail(k, -errno, "%s/pt/%u.pt: %s", sb_bundle_dir(k->b),
			t->tid, strerror(errno));
		return;
	}
	t->file_bytes += m->len;
	t->next_off = m->offset + m->len;
	k->st->trace_bytes += m->len;
	/* a loss right at this data's end (FULL) */
	km_flush_lost(k, t, t->next_off, false);
}

static void km_record(struct km *k, const struct ptrec_sb_header *h)
{
	union {
		struct ptrec_sb_header hdr;
		uint8_t bytes[PTREC_SB_RECORD_MAX];
	} u;
	char why[256];

	if (sb_record_check(h, h->size, why, sizeof(why))) {
		km_fail(k, -EBADMSG, "%s: malformed record from the module: %s",
			PTREC_DEVICE, why);
		return;
	}
	if (!sb_type_info(h->type)) {
		k->unknown++;
		return;
	}
	memcpy(u.bytes, h, h->size);
	switch (h->type) {
	case PTREC_SB_MMAP: {
		struct ptrec_sb_mmap *r = (void *)u.bytes;
		char path[PTREC_SB_RECORD_MAX];
		const char *key = NULL;
		struct sb_err err;
		int ret;

		memcpy(path, sb_mmap_path(r), r->path_len);
		path[r->path_len] = '\0';
		if (r->prot & PROT_EXEC) {
			if (!strcmp(path, "[vdso]"))
				key = km_image_vdso(k, r->len);
			else if (path[0] == '/')
				key = km_image_file(k, path);
		}
		if (k->error)
			return;
		km_stamp(k, &r->hdr);
		r->hdr.size = 0;
		r->key_len = 0;
		r->path_len = 0;
		ret = sb_writer_add_mmap(k->sb, r, key, path, &err);
		if (ret)
			km_fail(k, ret, "%s", err.msg);
		return;
	}
	case PTREC_SB_EXEC: {
		struct ptrec_sb_exec *r = (void *)u.bytes;
		char path[PTREC_SB_RECORD_MAX];

		memcpy(path, sb_exec_path(r), r->path_len);
		path[r->path_len] = '\0';
		km_proc_exe(k, r->pid, path);
		break;
	}
	case PTREC_SB_THREAD_START: {
		const struct ptrec_sb_thread_start *r = (void *)u.bytes;
		struct sb_process *p, *parent;
		size_t i;

		if (r->pid == r->parent_pid)
			break;
		/* a forked child runs its parent's program until it execs */
		p = km_proc(k, r->pid, r->parent_pid);
		if (!p || p->exe)
			break;
		parent = NULL;
		for (i = 0; i < k->m->nprocs; i++)
			if (k->m->procs[i].pid == r->parent_pid)
				parent = &k->m->procs[i];
		if (parent && parent->exe)
			km_proc_exe(k, r->pid, parent->exe);
		break;
	}
	case PTREC_SB_SWITCH_IN: {
		const struct ptrec_sb_switch *r = (void *)u.bytes;

		km_thread(k, r->pid, r->tid);
		break;
	}
	case PTREC_SB_LOST: {
		struct ptrec_sb_lost *r = (void *)u.bytes;
		struct km_thread *t;

		if (r->reason == PTREC_SB_LOST_SIDEBAND) {
			k->st->lost_records += r->bytes;
			break;
		}
		for (t = k->threads; t && t->tid != r->tid; t = t->next)
			;
		if (!t) {
			/* lost before any data of the thread arrived */
			t = km_thread(k, k->pid, r->tid);
			if (!t)
				return;
		}
		if (r->offset > t->next_off && t->npend < KM_PEND_MAX) {
			t->pend[t->npend++] = *r;
		} else {
			km_flush_lost(k, t, 0, true);
			km_place_lost(k, t, r);
		}
		return;
	}
	case PTREC_SB_TIME: {
		const struct ptrec_sb_time *r = (void *)u.bytes;

		if (!k->have_time) {
			k->m->time.time_shift = r->time_shift;
			k->m->time.time_mult = r->time_mult;
			k->m->time.time_zero = r->time_zero;
			k->m->time.tsc_hz = r->tsc_hz;
			k->have_time = true;
		}
		break;
	}
	default:
		break;
	}
	km_sb_add(k, &u.hdr);
}

/* Splits one read() into messages. */
static void km_consume(struct km *k, const uint8_t *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len && !k->error) {
		const struct ptrec_sb_header *h = (const void *)(buf + pos);

		if (len - pos < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - pos) {
			km_fail(k, -EBADMSG, "%s: malformed message at byte %zu of a %zu-byte read (size %u)",
				PTREC_DEVICE, pos, len,
				len - pos >= sizeof(*h) ? h->size : 0);
			return;
		}
		if (h->type == PTREC_MSG_TRACE) {
			const struct ptrec_msg_trace *m = (const void *)h;

			if (h->size < sizeof(*m) ||
			    m->len > h->size - sizeof(*m)) {
				km_fail(k, -EBADMSG, "%s: trace message of %u bytes claims %u data bytes",
					PTREC_DEVICE, h->size, m->len);
				return;
			}
			km_trace(k, m);
		} else {
			km_record(k, h);
		}
		pos += h->size;
	}
}

/* ---- launching and attaching --------------------------------------------- */

/*
 * Starts the program stopped by ptrace right after its exec: attaching
 * then puts the program's first instruction, and nothing of ptrec, at the
 * start of the trace.
 */
static int km_launch(struct km *k)
{
	struct rec_launch l = {
		.argv = k->o->argv,
		.nofile = k->nofile_raised ? &k->nofile : NULL,
	};
	int ret;

	/* the old image's state at each execve (tracer.c) */
	if (!k->o->no_snapshot) {
		l.opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC;
		l.exec_filter = true;
	}
	ret = rec_launch(&l, &k->error, k->err);
	k->pid = l.pid;
	k->launched = !ret;
	k->exec_filtered = l.filtered;
	return ret;
}

static void km_read_link(pid_t pid, const char *what, char *buf, size_t sz)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	n = readlink(path, buf, sz - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* The command line of a running process, for the manifest. */
static void km_cmdline(struct km *k, pid_t pid)
{
	char path[64], buf[8192], *argv[256];
	size_t n, i;
	int argc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (i = 0; i < n && argc < 256; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	sb_manifest_set_argv(k->m, argc, (const char *const *)argv);
}

static int km_attach(struct km *k)
{
	struct ptrec_config cfg;
	char exe[PATH_MAX], cwd[PATH_MAX];
	int ret, e;

	ret = km_config(k, &cfg);
	if (ret)
		return ret;
	cfg.pid = (uint32_t)k->pid;
	if (ioctl(k->fd, PTREC_IOC_ATTACH, &cfg) < 0) {
		e = errno;
		return km_fail(k, -e, "%s: PTREC_IOC_ATTACH to process %d: %s: %s",
			       PTREC_DEVICE, k->pid, strerror(e),
			       km_attach_errstr(e));
	}
	km_read_link(k->pid, "exe", exe, sizeof(exe));
	km_read_link(k->pid, "cwd", cwd, sizeof(cwd));
	if (cwd[0])
		k->m->cwd = strdup(cwd);
	if (!km_proc(k, (uint32_t)k->pid,
		     k->launched ? (uint32_t)getpid() : 0))
		return k->error;
	if (exe[0])
		km_proc_exe(k, (uint32_t)k->pid, exe);
	return 0;
}

/* ---- the manifest -------------------------------------------------------- */

/* The kmod recorder's part of the manifest (rec_bundle_begin()). */
static void km_fill_manifest(struct km *k, const struct ptrec_config *c)
{
	struct sb_manifest *m = k->m;

	m->cpu.family = k->info.family;
	m->cpu.model = k->info.model;
	m->cpu.stepping = k->info.stepping;

	m->pt.emulated = k->info.flags & PTREC_INFO_SIMULATED;
	m->pt.features = SB_PT_BRANCH;
	if (c->flags & PTREC_CFG_USER)
		m->pt.features |= SB_PT_USER;
	if (c->flags & PTREC_CFG_KERNEL)
		m->pt.features |= SB_PT_KERNEL;
	if (c->flags & PTREC_CFG_TSC)
		m->pt.features |= SB_PT_TSC;
	if (c->flags & PTREC_CFG_MTC)
		m->pt.features |= SB_PT_MTC;
	if (c->flags & PTREC_CFG_CYC)
		m->pt.features |= SB_PT_CYC;
	if (c->flags & PTREC_CFG_PTWRITE)
		m->pt.features |= SB_PT_PTWRITE;
	if (!(c->flags & PTREC_CFG_NO_RETCOMP))
		m->pt.features |= SB_PT_RET_COMPRESSION;
	if (c->flags & PTREC_CFG_CR3_FILTER)
		m->pt.features |= SB_PT_CR3_FILTER;
	m->pt.psb_period = 2048ull << c->psb_period;
	m->pt.mtc_freq = c->flags & PTREC_CFG_MTC ? c->mtc_period : 0;
	m->pt.cyc_thresh = c->flags & PTREC_CFG_CYC ? c->cyc_threshold : 0;
	m->pt.nom_freq = k->info.nom_freq;
	m->pt.cpuid_15_eax = k->info.cpuid_15_eax;
	m->pt.cpuid_15_ebx = k->info.cpuid_15_ebx;

	/* until the module's TIME record: from tsc_khz, as the module does */
	m->time.tsc_hz = k->info.tsc_khz * 1000;
	if (k->info.tsc_khz) {
		unsigned int shift = 32;
		uint64_t mult = 0;

		while (shift > 0) {
			mult = (1000000ull << shift) / k->info.tsc_khz;
			if (mult < (1ull << 32))
				break;
			shift--;
		}
		m->time.time_shift = (uint16_t)shift;
		m->time.time_mult = (uint32_t)mult;
	} else {
		m->time.time_mult = 1;
	}
}

/* ---- the loop ---------------------------------------------------------- */

static uint64_t km_mono_ms(void)
{
	return rec_mono_ns() / 1000000;
}

static void km_detach(struct km *k, bool *detached, uint64_t *when)
{
	if (*detached)
		return;
	*detached = true;
	*when = km_mono_ms();
	if (ioctl(k->fd, PTREC_IOC_DETACH) < 0 && errno != EINVAL)
		km_warn(k, "PTREC_IOC_DETACH: %s", strerror(errno));
}

/*
 * Whether the launched program has ended (@block: wait for it).  Traced
 * for its snapshot, its stops are handled here: the snapshot at its exit
 * or fatal signal, every other stop continued at once.
 */
static bool km_reap(struct km *k, int *status, bool block)
{
	struct sb_err serr;

	if (k->tr.traced) {
		if (rec_snap_tracer_poll(&k->snap, &k->tr, block, status,
					 &serr) == 1)
			return true;
		if (k->tr.error)
			km_fail(k, k->tr.error, "%s", serr.msg);
		return !k->tr.traced && block;
	}
	return waitpid(k->pid, status, block ? 0 : WNOHANG) == k->pid;
}

/* Recording stops early: the snapshot of where the program is. */
static void km_snap_end(struct km *k)
{
	struct sb_err serr;

	rec_snap_tracer_end(&k->snap, &k->tr, &serr);
	if (k->tr.error)
		km_fail(k, k->tr.error, "%s", serr.msg);
}

static void km_run(struct km *k, int *status, bool *reaped)
{
	uint8_t *buf = malloc(KM_READ_SIZE);
	bool detached = false;
	uint64_t gone_at = 0, quiet_since = 0, grace = KM_END_GRACE_MS;
	const char *g = getenv("PTREC_KMOD_GRACE_MS");	/* tests */

	if (g && *g)
		grace = strtoull(g, NULL, 10);

	if (!buf) {
		km_fail(k, -ENOMEM, "out of memory");
		return;
	}
	while (!k->error) {
		struct pollfd p = { .fd = k->fd, .events = POLLIN };
		ssize_t n;

		if (k->o->stop && *k->o->stop && !detached) {
			struct rec_snap_seized *sz = NULL;

			/*
			 * -p: the state where the recording ends, its threads
			 * held from before the detach until the snapshot is
			 * taken, so the trace ends where the snapshot is.
			 */
			if (!k->launched && !k->snap.off &&
			    (sz = malloc(sizeof(*sz))))
				rec_snap_seize(sz, k->pid);
			km_detach(k, &detached, &quiet_since);
			if (sz) {
				struct sb_err serr;
				int r = rec_snap_release(&k->snap, sz,
							 SB_SNAP_END_DETACH,
							 &serr);

				if (r)
					km_fail(k, r, "%s", serr.msg);
				free(sz);
			}
			/* a launched program does not outlive its recording */
			if (k->launched && !*reaped) {
				km_snap_end(k);
				kill(k->pid, SIGKILL);
			}
		}
		/* its descendants' stops (the exec filter), after its end */
		if (*reaped && k->tr.execs && k->tr.ndesc) {
			int dst;
			struct sb_err serr;

			rec_snap_tracer_poll(&k->snap, &k->tr, false, &dst,
					     &serr);
		}
		/* the program is gone: the session must end soon */
		if (!gone_at && !detached &&
		    ((k->launched && !*reaped && km_reap(k, status, false) &&
		      (*reaped = true)) ||
		     (!k->launched && kill(k->pid, 0) < 0 && errno == ESRCH)))
			gone_at = km_mono_ms();
		if (gone_at && !detached && km_mono_ms() - gone_at > grace) {
			km_warn(k, "the module did not end the session %.1f s after process %d ended; detaching",
				(double)grace / 1000, k->pid);
			km_detach(k, &detached, &quiet_since);
		}
		/* detached: the stream must end; never wait for it forever */
		if (detached && km_mono_ms() - quiet_since > grace) {
			km_warn(k, "the module did not end the stream %.1f s after the detach; the recording ends here",
				(double)grace / 1000);
			break;
		}
		if (poll(&p, 1, 200) < 0) {
			if (errno == EINTR)
				continue;
			km_fail(k, -errno, "%s: poll: %s", PTREC_DEVICE,
				strerror(errno));
			break;
		}
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(k->fd, buf, KM_READ_SIZE);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			km_fail(k, -errno, "%s: read: %s", PTREC_DEVICE,
				strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (detached)
			quiet_since = km_mono_ms();
		km_consume(k, buf, (size_t)n);
	}
	free(buf);
}

static void km_stats(struct km *k)
{
	struct ptrec_stats s = {
		.size = sizeof(s), .version = PTREC_UAPI_VERSION,
	};

	if (ioctl(k->fd, PTREC_IOC_STATS, &s) < 0) {
		km_warn(k, "PTREC_IOC_STATS: %s", strerror(errno));
		return;
	}
	k->st->switches = s.switches;
	k->st->pmis = s.pmis;
	if (s.trace_bytes != k->st->trace_bytes)
		km_warn(k, "the module counts %llu bytes of trace delivered, ptrec received %" PRIu64,
			(unsigned long long)s.trace_bytes, k->st->trace_bytes);
	if (s.lost_records)
		km_warn(k, "the module dropped %llu sideband records (its read() queue was full; /sys/module/ptrec/parameters/queue_size)",
			(unsigned long long)s.lost_records);
	if (s.stopped)
		km_warn(k, "a thread's buffer filled up and its tracing stopped (--stop-on-full); a larger --buffer-size or the default ring mode avoids that");
}

static void km_free(struct km *k)
{
	while (k->threads) {
		struct km_thread *t = k->threads;

		k->threads = t->next;
		if (t->f)
			fclose(t->f);
		free(t);
	}
	rec_images_free(&k->images);
	if (k->fd >= 0)
		close(k->fd);
	sb_bundle_free(k->b);
}

static void km_close_streams(struct km *k)
{
	struct km_thread *t;

	for (t = k->threads; t; t = t->next) {
		km_flush_lost(k, t, 0, true);
		if (fclose(t->f) && !k->error)
			km_fail(k, -errno, "%s/pt/%u.pt: %s",
				sb_bundle_dir(k->b), t->tid, strerror(errno));
		t->f = NULL;
	}
}

/*
 * Nothing was recorded (the attach failed): remove what sb_bundle_create()
 * made, so no unfinished bundle is left behind.  Context: k->b freed.
 */
/* Creates the bundle, checks the options, starts the manifest. */
static int km_begin(struct km *k, struct ptrec_config *cfg)
{
	const struct rec_options *o = k->o;
	int ret;

	ret = rec_bundle_begin(o, "kmod", false, &k->b, &k->sb, &k->snap,
			       &k->error, k->err);
	if (ret)
		return ret;
	k->m = sb_bundle_manifest(k->b);
	/* check the options before starting anything */
	ret = km_config(k, cfg);
	if (ret)
		return ret;
	km_fill_manifest(k, cfg);
	return 0;
}

/* Closes the streams, warns about the module's oddities, writes the
 * manifest.
 */
static void km_end(struct km *k)
{
	struct sb_err serr;
	int ret;

	km_close_streams(k);
	k->m->stop_ns = rec_real_ns();
	k->st->sideband_records = sb_writer_count(k->sb);
	if (k->clamped)
		km_warn(k, "%" PRIu64 " sideband records from the module went back in time; stored with the previous record's time",
			k->clamped);
	if (k->unknown)
		km_warn(k, "%" PRIu64 " sideband records of types this ptrec does not know were left out",
			k->unknown);
	if (k->st->unexplained)
		km_warn(k, "%" PRIu64 " jumps in the module's trace offsets had no LOST record; ptrec added them",
			k->st->unexplained);
	if (!k->error) {
		ret = sb_bundle_finish(k->b, &serr);
		if (ret)
			km_fail(k, ret, "%s", serr.msg);
	}
}

int rec_kmod_split(const struct rec_options *o, const struct ptrec_info *info,
		   const char *exe, const void *stream, size_t len,
		   struct rec_stats *st, struct sb_err *err)
{
	struct km k = { .o = o, .st = st, .err = err, .fd = -1,
			.info = *info };
	struct ptrec_config cfg;
	int ret;

	memset(st, 0, sizeof(*st));
	k.pid = o->pid;
	if (!km_begin(&k, &cfg)) {
		if (o->pid)
			km_proc(&k, (uint32_t)o->pid, 0);
		if (o->pid && exe)
			km_proc_exe(&k, (uint32_t)o->pid, exe);
		km_consume(&k, stream, len);
		km_end(&k);
	}
	ret = k.error;
	km_free(&k);
	return ret;
}

static void km_on_chld(int sig)
{
	(void)sig;
}

int rec_kmod_record(const struct rec_options *o, struct rec_stats *st,
		    struct sb_err *err)
{
	struct km k = { .o = o, .st = st, .err = err, .fd = -1 };
	struct ptrec_config cfg;
	bool reaped = false, made_dir, attached = false;
	int status = 0, ret;

	memset(st, 0, sizeof(*st));
	/*
	 * One open stream file per traced thread: as many files as allowed
	 * (the launched program gets the limit it would have had).
	 */
	if (!getrlimit(RLIMIT_NOFILE, &k.nofile) &&
	    k.nofile.rlim_cur < k.nofile.rlim_max) {
		struct rlimit rl = { k.nofile.rlim_max, k.nofile.rlim_max };

		k.nofile_raised = !setrlimit(RLIMIT_NOFILE, &rl);
	}
	k.fd = km_open(&k.info, err);
	if (k.fd < 0)
		return k.fd;
	made_dir = access(o->out, F_OK) != 0;
	if (km_begin(&k, &cfg)) {
		ret = k.error;
		if (ret == -EEXIST || !k.b) {
			close(k.fd);
			return ret;
		}
		goto out_free;
	}
	if (o->argv) {
		if (km_launch(&k))
			goto out_free;
	} else {
		k.pid = o->pid;
		if (kill(o->pid, 0) < 0 && errno == ESRCH) {
			km_fail(&k, -ESRCH, "process %d: no such process",
				o->pid);
			goto out_free;
		}
		km_cmdline(&k, o->pid);
	}
	ret = km_attach(&k);
	if (k.launched) {
		if (ret) {
			kill(k.pid, SIGKILL);
			waitpid(k.pid, &status, 0);
			goto out_free;
		}
		/*
		 * Tracing is armed: let the program run, under ptrace only
		 * for the stops where it ends (its snapshot), never stepped.
		 */
		if (o->no_snapshot ||
		    rec_snap_tracer_start(&k.tr, k.pid, getpid(),
					  k.exec_filtered)) {
			k.tr.traced = false;
			ptrace(PTRACE_DETACH, k.pid, 0, 0);
		} else {
			struct sigaction sa = { .sa_handler = km_on_chld };

			/* A stop interrupts the poll at once. */
			sigaction(SIGCHLD, &sa, NULL);
		}
	}
	if (ret)
		goto out_free;
	attached = true;
	km_run(&k, &status, &reaped);
	km_stats(&k);
	if (k.launched && !reaped)
		km_reap(&k, &status, true);
	if (k.tr.execs && rec_snap_tracer_left(&k.tr))
		km_warn(&k, "%zu threads of processes the program started outlive the recording: each execve of theirs now fails with ENOSYS (ptrec's exec filter, docs/recorder.md; --no-snapshot has none)",
			rec_snap_tracer_left(&k.tr));
	rec_snap_stats(&k.snap, st);
	km_end(&k);
out_free:
	ret = k.error;
	km_free(&k);
	if (ret && ret != -EEXIST && !attached)
		rec_bundle_unmake(o->out, made_dir);
	return ret;
}
