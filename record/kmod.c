// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-module recorder: real (or the module's simulated) Intel PT
 * through /dev/ptrec (kmod/uapi/ptrec.h, docs/kmod.md).
 *
 * The module traces every thread of one process with its own PT buffer and
 * writes the sideband itself; read() returns one stream of messages.  This
 * file launches the program (stopped by ptrace right after its exec, so
 * the trace starts at its first instruction and no ptrec code is in it) or
 * takes a running one, attaches, and splits the stream into the bundle
 * (kmod_stream.c; the device itself is kmod_dev.c):
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod.h"

#define KM_READ_SIZE	(4 * PTREC_READ_MIN)
/* After the launched program is gone, how long the module may take to end
 * the session before ptrec detaches by itself, and after a detach, to end
 * the stream (environment PTREC_KMOD_GRACE_MS overrides it, for tests).
 */
#define KM_END_GRACE_MS	10000

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
				if (sz->left)
					km_warn(k, "%zu threads of process %d did not stop within 1 s (waiting for a vfork child?): the snapshot leaves them out; they run on once ptrec exits",
						sz->left, k->pid);
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
	rec_snap_rseq_free(&k->tr.rseq);
	if (k->fd >= 0)
		close(k->fd);
	sb_bundle_free(k->b);
}
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
			/* (the exec filter is in place only with snapshots) */
			if (!o->no_snapshot && k.exec_filtered)
				km_warn(&k, "cannot trace process %d for its snapshot: %s; there is none, and each execve of the program now fails with ENOSYS, as does its rseq registration (--no-snapshot avoids both)",
					k.pid, strerror(errno));
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
		reaped = km_reap(&k, &status, true);
	if (k.launched && reaped) {
		st->main_ended = true;
		st->main_wstatus = status;
	}
	if (k.tr.execs && rec_snap_tracer_left(&k.tr))
		km_warn(&k, "%zu threads of processes the program started outlive the recording: each execve and rseq call of theirs now fails with ENOSYS (ptrec's exec filter, docs/recorder.md; --no-snapshot has none)",
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
