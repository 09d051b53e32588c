/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to record/: what both recorders share (skel.c). */
#ifndef PTREC_RECORD_SKEL_H
#define PTREC_RECORD_SKEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "record.h"
#include "images.h"
#include "sideband.h"
#include "snapshot.h"

/*
 * Removes what sb_bundle_create() and the sideband writer made in @dir for
 * a recording that never started; @dir itself only when @made_dir (it did
 * not exist before).  Files a caller wrote elsewhere in it stay.
 */
void rec_bundle_unmake(const char *dir, bool made_dir);

/*
 * The first error wins: sets *@error to @code and @err's message (when
 * @err is not NULL) only if *@error is still 0.  Returns @code, so that
 * `return rec_fail(...)` reads as the failure it is.  Each recorder wraps
 * it in its own emu_fail()/km_fail() macro.
 */
int rec_fail(int *error, struct sb_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "ptrec record: warning: ..." on stderr, unless @quiet. */
void rec_warn(bool quiet, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The image-store key of the file at @path (rec_image_key()): NULL when
 * the recording failed (rec_fail()), "" with a warning (unless @quiet)
 * when the file is gone, which leaves a gap in replay.
 */
const char *rec_image_file(struct rec_images *ims, struct sb_bundle *b,
			   const char *path, bool quiet, int *error,
			   struct sb_err *err);

/**
 * rec_bundle_begin() - what both recorders write first
 * @backend:	the manifest's backend ("emu", "kmod").
 * @stepping:	the recorder single-steps (struct rec_snap).
 *
 * Creates the bundle @o->out (@*b), opens its sideband (@*sb), sets @snap
 * up from @o, and starts the manifest: backend, CPU (/proc/cpuinfo), the
 * command line @o->argv when launching, the start time.  The backend adds
 * its own fields (PT configuration, time conversion, cwd).  Returns 0, or
 * through rec_fail() the error of sb_bundle_create() (@*b stays NULL) or
 * of opening the sideband.
 */
int rec_bundle_begin(const struct rec_options *o, const char *backend,
		     bool stepping, struct sb_bundle **b, struct sb_writer **sb,
		     struct rec_snap *snap, int *error, struct sb_err *err);

/* The snapshot's part of @st, from @snap. */
void rec_snap_stats(const struct rec_snap *snap, struct rec_stats *st);

/**
 * struct rec_launch - how a recorder starts its program (rec_launch())
 * @argv:	program and arguments (NULL-terminated).
 * @opts:	ptrace options to set before the exec: the child stops
 *		(SIGSTOP) after PTRACE_TRACEME so that they can be; 0: none,
 *		no stop.
 * @nofile:	RLIMIT_NOFILE the child gets back before its exec (the
 *		recorder raised its own), or NULL.
 * @exec_filter: install a seccomp filter before the exec that stops every
 *		execve/execveat of the program and of its descendants in
 *		ptrace (SECCOMP_RET_TRACE; @opts must have
 *		PTRACE_O_TRACESECCOMP): where the old image's state can be
 *		taken.  The program's own first exec passes through it.
 *		Every rseq call stops too, with PTRACE_GETEVENTMSG giving
 *		REC_FILTER_RSEQ64 (x86-64, x32) or REC_FILTER_RSEQ32
 *		(int 0x80), where an execve's gives 0.
 * @pid:	out: the child, from its fork on (0: no fork).
 * @status:	out: the child's stop after its exec.
 * @filtered:	out: the filter is in place (the kernel may refuse it).
 */
#define REC_FILTER_RSEQ64	1
#define REC_FILTER_RSEQ32	2
#define REC_I386_RSEQ		386	/* i386's rseq number */

struct rec_launch {
	char *const *argv;
	int opts;
	const struct rlimit *nofile;
	bool exec_filter;
	pid_t pid;
	int status;
	bool filtered;
};

/*
 * rec_launch() - fork and exec @l->argv as a tracee (PTRACE_TRACEME)
 *
 * Returns 0 with the child ptrace-stopped right after its exec (with
 * PTRACE_O_TRACEEXEC in @l->opts, at its exec event), or through
 * rec_fail(): -errno of pipe() or fork(); the child's errno when it
 * cannot be traced or executed ("cannot execute PROG: ..."), the child
 * reaped; -ECHILD when it ended, or stopped otherwise, before that.
 */
int rec_launch(struct rec_launch *l, int *error, struct sb_err *err);

/* The number in @field ("Tgid", "Seccomp", ...) of /proc/@tid/status, in
 * @base; 0 when it cannot be read.
 */
uint64_t rec_status_of(pid_t tid, const char *field, int base);

/* One of the Sig* masks (SigCgt, SigIgn, SigPnd, ...) of /proc/@tid/status;
 * 0 when it cannot be read.
 */
uint64_t rec_sigmask_of(pid_t tid, const char *field);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t rec_mono_ns(void);
uint64_t rec_real_ns(void);

/* Vendor, family, model and stepping of the first CPU (/proc/cpuinfo). */
void rec_cpu_fill(struct sb_cpu *cpu);

#endif
