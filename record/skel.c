// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What both recorders share around their own loops (issue #14's recorder
 * skeleton): the first error that wins, warnings, image keys, the
 * bundle's and the manifest's beginning and the snapshot's statistics,
 * removing a bundle that a recording failed to start (so that `ptrec
 * record -p 999999` or a program that cannot run leaves nothing behind,
 * and never touches a directory it did not create), launching the program
 * as a tracee, the clocks, the CPU's identity and a thread's signal masks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skel.h"

void rec_bundle_unmake(const char *dir, bool made_dir)
{
	static const char *const sub[] = { "pt", "regs", "truth", "images" };
	static const char *const files[] = { "sideband.sb",
					     "snapshot.ptsnap.tmp" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	/* Only empty directories go: rmdir never removes what is in them. */
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		rmdir(path);
	}
	if (made_dir)
		rmdir(dir);
}

int rec_fail(int *error, struct sb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!*error) {
		*error = code;
		if (err) {
			va_start(ap, fmt);
			vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

void rec_warn(bool quiet, const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	fputs("ptrec record: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *rec_image_file(struct rec_images *ims, struct sb_bundle *b,
			   const char *path, bool quiet, int *error,
			   struct sb_err *err)
{
	const char *key;
	struct sb_err ierr;
	int fatal;

	key = rec_image_key(ims, b, path, &fatal, &ierr);
	if (!key)
		rec_fail(error, err, fatal, "%s", ierr.msg);
	else if (!*key)
		rec_warn(quiet, "%s", ierr.msg);
	return key;
}

int rec_bundle_begin(const struct rec_options *o, const char *backend,
		     bool stepping, struct sb_bundle **b, struct sb_writer **sb,
		     struct rec_snap *snap, int *error, struct sb_err *err)
{
	struct sb_manifest *m;
	struct sb_err serr;
	int ret, argc;

	ret = sb_bundle_create(b, o->out, &serr);
	if (ret)
		return rec_fail(error, err, ret, "%s", serr.msg);
	*snap = (struct rec_snap){ .b = *b, .off = o->no_snapshot,
				   .quiet = o->quiet, .stepping = stepping,
				   .limit = o->snapshot_limit ?
					    o->snapshot_limit :
					    SB_SNAP_DEFAULT_LIMIT,
				   .start_ns = rec_snap_clock() };
	ret = sb_bundle_open_sideband(*b, sb, &serr);
	if (ret)
		return rec_fail(error, err, ret, "%s", serr.msg);
	m = sb_bundle_manifest(*b);
	m->backend = strdup(backend);
	rec_cpu_fill(&m->cpu);
	if (o->argv) {
		for (argc = 0; o->argv[argc]; argc++)
			;
		sb_manifest_set_argv(m, argc, (const char *const *)o->argv);
	}
	m->start_ns = rec_real_ns();
	return 0;
}

void rec_snap_stats(const struct rec_snap *snap, struct rec_stats *st)
{
	st->snap_procs = snap->procs;
	st->snap_bytes = snap->used;
	st->snap_left_out = snap->left_out;
	st->snap_ns = snap->ns;
}

/*
 * In the child before its exec: every execve and execveat (x86-64 system
 * calls) stops in its tracer, SECCOMP_RET_TRACE, at the call's entry, while
 * the old image is whole; so does every rseq (x86-64 and x32 by the number
 * without the x32 bit, as Linux takes it; i386's through int 0x80 too),
 * with its own data (REC_FILTER_RSEQ64/32): the areas the kernel writes
 * at times no trace shows (tracer.c lists them, docs/values.md).  The
 * filter is inherited by every thread and child and survives the exec.
 * Without CAP_SYS_ADMIN the kernel wants no_new_privs first; a traced
 * program gains no privileges from a set-user-ID exec anyway.  Failing
 * leaves the program unfiltered (the parent sees it in /proc/PID/status).
 */
static void exec_filter_install(void)
{
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64,
				 3, 0),
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386,
				 0, 7),
		/* 3: i386 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, REC_I386_RSEQ, 8, 5),
		/* 5: x86-64 and x32 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 4, 0),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 3, 0),
		/* 8 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xbfffffffu),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rseq, 2, 0),
		/* 10 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		/* 12 */ BPF_STMT(BPF_RET | BPF_K,
				  SECCOMP_RET_TRACE | REC_FILTER_RSEQ64),
		/* 13 */ BPF_STMT(BPF_RET | BPF_K,
				  SECCOMP_RET_TRACE | REC_FILTER_RSEQ32),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return;
	if (errno == EACCES && !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * waitpid(2) for the launched child, again when a signal interrupted it
 * (SIGINT or SIGTERM to ptrec record: the caller looks at the stop flag
 * after the launch; "ended before it could be traced" was said).
 */
static pid_t wait_child(pid_t pid, int *status)
{
	pid_t w;

	do
		w = waitpid(pid, status, 0);
	while (w < 0 && errno == EINTR);
	return w;
}

int rec_launch(struct rec_launch *l, int *error, struct sb_err *err)
{
	const char *prog = l->argv[0];
	int pipefd[2], status = 0, child_errno = 0, e;
	pid_t pid;

	l->pid = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return rec_fail(error, err, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return rec_fail(error, err, -e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (l->nofile)
			setrlimit(RLIMIT_NOFILE, l->nofile);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0) {
			if (l->opts)
				raise(SIGSTOP);
			if (l->exec_filter)
				exec_filter_install();
			execvp(prog, l->argv);
		}
		child_errno = errno;
		if (write(pipefd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pipefd[1]);
	l->pid = pid;
	if (l->opts) {
		wait_child(pid, &status);
		ptrace(PTRACE_SETOPTIONS, pid, 0, l->opts);
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
	/*
	 * The exec's stop, or the exit of a child whose exec failed; the
	 * filter's stops at the entries of execvp()'s execve calls on the
	 * way are let through.
	 */
	do {
		if (WIFSTOPPED(status) && status >> 16 == PTRACE_EVENT_SECCOMP)
			ptrace(PTRACE_CONT, pid, 0, 0);
		if (wait_child(pid, &status) != pid)
			status = 0;
	} while (WIFSTOPPED(status) && status >> 16 == PTRACE_EVENT_SECCOMP);
	l->status = status;
	if (read(pipefd[0], &child_errno, sizeof(child_errno)) ==
	    sizeof(child_errno)) {
		close(pipefd[0]);
		/* Should it stop at its exit (PTRACE_O_TRACEEXIT), let it go
		 * until it is gone, or this waits forever.
		 */
		while (WIFSTOPPED(status)) {
			ptrace(PTRACE_CONT, pid, 0, 0);
			if (wait_child(pid, &status) != pid)
				break;
		}
		return rec_fail(error, err, -child_errno,
				"cannot execute %s: %s", prog,
				strerror(child_errno));
	}
	close(pipefd[0]);
	if (!WIFSTOPPED(status))
		return rec_fail(error, err, -ECHILD,
				"%s: ended before it could be traced (status 0x%x)",
				prog, status);
	if ((l->opts & PTRACE_O_TRACEEXEC) &&
	    status >> 16 != PTRACE_EVENT_EXEC)
		return rec_fail(error, err, -ECHILD,
				"%s: unexpected stop 0x%x after exec", prog,
				status);
	/* "Seccomp: 2" (SECCOMP_MODE_FILTER) */
	l->filtered = l->exec_filter && rec_status_of(pid, "Seccomp", 10) == 2;
	return 0;
}

uint64_t rec_status_of(pid_t tid, const char *field, int base)
{
	char path[64], line[256];
	uint64_t v = 0;
	size_t flen = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			v = strtoull(line + flen + 1, NULL, base);
			break;
		}
	fclose(f);
	return v;
}

uint64_t rec_sigmask_of(pid_t tid, const char *field)
{
	return rec_status_of(tid, field, 16);
}

uint64_t rec_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rec_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rec_cpu_fill(struct sb_cpu *cpu)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");
	unsigned int v;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %15s", cpu->vendor) == 1)
			continue;
		if (sscanf(line, "cpu family : %u", &v) == 1)
			cpu->family = v;
		else if (sscanf(line, "model : %u", &v) == 1)
			cpu->model = v;
		else if (sscanf(line, "stepping : %u", &v) == 1)
			cpu->stepping = v;
		else if (line[0] == '\n')
			break;	/* first CPU only */
	}
	if (f)
		fclose(f);
	if (!cpu->vendor[0])
		strcpy(cpu->vendor, "unknown");
}
