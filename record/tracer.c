// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A program traced only for its end (the kmod recorder, which never
 * single-steps): the launched program under ptrace for the stops where its
 * state is taken (its exit, a fatal signal, an execve's entry, recording
 * stopped early), and a running process (-p) seized only where recording
 * detaches.  Every other stop just continues.  The snapshot itself is
 * snapshot.c's rec_snap_take().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skel.h"
#include "snapshot.h"


/* Whether delivering @sig to @tid ends its process (no handler, not
 * ignored, its default action terminates).
 */
static bool sig_fatal(pid_t tid, int sig)
{
	uint64_t bit = 1ull << (sig - 1), cgt = 0, ign = 0;
	char path[64], buf[4096], *p;
	ssize_t n;
	int fd;

	switch (sig) {
	case SIGCHLD: case SIGURG: case SIGWINCH: case SIGCONT:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;	/* not by default, so not at all */
	}
	/*
	 * Every signal the program takes stops here: one read of
	 * /proc/TID/status for both masks (two with stdio cost a few us
	 * more a signal, scripts/bench-sigcost).
	 */
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strstr(buf, "\nSigIgn:");
	if (p)
		ign = strtoull(p + 8, NULL, 16);
	p = strstr(buf, "\nSigCgt:");
	if (p)
		cgt = strtoull(p + 8, NULL, 16);
	return !((cgt | ign) & bit);
}

/* The index of @tid among the tracer's threads, or -1. */
static int thr_find(const struct rec_snap_tracer *tr, pid_t tid)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->tids[i] == tid)
			return (int)i;
	return -1;
}

/* A thread new to the tracer: it starts with a SIGSTOP (auto-attached). */
static int thr_add(struct rec_snap_tracer *tr, pid_t tid)
{
	int i = thr_find(tr, tid);

	if (i >= 0 || tr->n == REC_SNAP_TRACER_MAX)
		return i;
	tr->tids[tr->n] = tid;
	tr->stop_due[tr->n] = true;
	tr->held_sig[tr->n] = 0;
	return (int)tr->n++;
}

static void thr_del(struct rec_snap_tracer *tr, pid_t tid)
{
	int i = thr_find(tr, tid);

	if (i <= 0)	/* the leader stays */
		return;
	tr->n--;
	tr->tids[i] = tr->tids[tr->n];
	tr->stop_due[i] = tr->stop_due[tr->n];
	tr->held_sig[i] = tr->held_sig[tr->n];
}

/* The thread group of @tid (Tgid: of /proc/TID/status), or 0. */
static pid_t tgid_of(pid_t tid)
{
	return (pid_t)rec_status_of(tid, "Tgid", 10);
}

static int desc_find(const struct rec_snap_tracer *tr, pid_t tid)
{
	size_t i;

	for (i = 0; i < tr->ndesc; i++)
		if (tr->desc[i] == tid)
			return (int)i;
	return -1;
}

/* A descendant's thread new to the tracer (its SIGSTOP to come). */
static int desc_add(struct rec_snap_tracer *tr, pid_t tid)
{
	int i = desc_find(tr, tid);

	if (i >= 0 || tr->ndesc == REC_SNAP_DESC_MAX)
		return i;
	tr->desc[tr->ndesc] = tid;
	tr->desc_due[tr->ndesc] = true;
	return (int)tr->ndesc++;
}

static void desc_del(struct rec_snap_tracer *tr, pid_t tid)
{
	int i = desc_find(tr, tid);

	if (i < 0)
		return;
	tr->ndesc--;
	tr->desc[i] = tr->desc[tr->ndesc];
	tr->desc_due[i] = tr->desc_due[tr->ndesc];
}

/*
 * At an rseq call's entry (the filter's stop): the area it registers (or
 * unregisters: the kernel writes it then too), for the snapshot's RSEQ
 * list, noted whether the call then succeeds or not (an area too many
 * only costs knowledge).  @i386: int 0x80's, arguments in EBX and ECX.
 */
static void rseq_stop(struct rec_snap_tracer *tr, pid_t tid, bool i386)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r)) {
		tr->rseq.lost = true;
		return;
	}
	if (i386)
		rec_snap_rseq_note(&tr->rseq, r.rbx & 0xffffffffu,
				   (uint32_t)r.rcx, tid);
	else
		rec_snap_rseq_note(&tr->rseq, r.rdi, (uint32_t)r.rsi, tid);
}

/*
 * Whether stop @st of @tid is the filter's at an rseq call; if so, noted
 * when @tid shares the traced process's memory (@member: one of its
 * threads; else a descendant, noted when it is one of them or a
 * CLONE_VM child such as vfork's, whose area the kernel writes in that
 * memory too; kcmp(2) KCMP_VM tells, and when it cannot the area is noted
 * all the same).
 */
static bool rseq_event(struct rec_snap_tracer *tr, pid_t tid, int st,
		       bool member)
{
	unsigned long msg = 0;
	long same;

	if (st >> 16 != PTRACE_EVENT_SECCOMP ||
	    ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) ||
	    (msg != REC_FILTER_RSEQ64 && msg != REC_FILTER_RSEQ32))
		return false;
	/* 0 the same, 1 or 2 an order of two others, -1 unknown */
	same = member || tgid_of(tid) == tr->pid ? 0 :
	       syscall(SYS_kcmp, tr->pid, tid, KCMP_VM, 0, 0);
	if (same != 1 && same != 2)
		rseq_stop(tr, tid, msg == REC_FILTER_RSEQ32);
	return true;
}

/* A new thread or process, from a fork, vfork or clone event's message. */
static void new_child(struct rec_snap_tracer *tr, pid_t tid, int event,
		      bool member)
{
	unsigned long msg = 0;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
		return;
	if (member && event == PTRACE_EVENT_CLONE && tgid_of((pid_t)msg) ==
	    tr->pid)
		thr_add(tr, (pid_t)msg);
	else
		desc_add(tr, (pid_t)msg);
}

/*
 * Stops thread @i (not in a stop) for the snapshot: a SIGSTOP of its own
 * (tgkill), waited for at most ~1 s.  Any stop will do: a signal that
 * arrived first is kept for its resumption (and our SIGSTOP is dropped
 * when it comes); an event stop (its exit, a clone) as well.  Returns
 * whether it is stopped.
 */
static bool thr_hold(struct rec_snap_tracer *tr, size_t i)
{
	pid_t tid = tr->tids[i];
	int st, n;

	if (syscall(SYS_tgkill, tr->pid, tid, SIGSTOP) < 0)
		return false;
	for (n = 0; n < 1000; n++) {
		pid_t w = waitpid(tid, &st, __WALL | WNOHANG);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return false;
		if (w == 0) {
			usleep(1000);
			continue;
		}
		if (!WIFSTOPPED(st)) {
			tr->tids[i] = 0;	/* gone: dropped after */
			return false;
		}
		if (!(st >> 16) && WSTOPSIG(st) == SIGSTOP) {
			tr->stop_due[i] = false;	/* one pending at most */
			return true;
		}
		tr->stop_due[i] = true;
		if (!(st >> 16)) {
			tr->held_sig[i] = WSTOPSIG(st);
		} else if (rseq_event(tr, tid, st, true)) {
			/* an area to be (noted as if registered now) */
		} else if (st >> 16 == PTRACE_EVENT_CLONE ||
			   st >> 16 == PTRACE_EVENT_FORK ||
			   st >> 16 == PTRACE_EVENT_VFORK) {
			new_child(tr, tid, st >> 16, true);
		}
		return true;
	}
	tr->stop_due[i] = true;	/* still due; not in the snapshot */
	return false;
}

/*
 * Whether another thread of the tracer's process is in execve/execveat:
 * then the leader's exit is the exec's (de_thread() ends every other
 * thread), not the process's.
 */
static bool exec_under_way(const struct rec_snap_tracer *tr)
{
	char path[96], line[32];
	size_t i;
	long nr;

	for (i = 1; i < tr->n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall",
			 tr->pid, tr->tids[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		nr = -1;
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
		if (nr == SYS_execve || nr == SYS_execveat)
			return true;
	}
	return false;
}

/*
 * The snapshot, @cur being the thread in its stop: every other thread is
 * stopped for it, then resumed (the thread in its stop is the caller's).
 */
static void tracer_snap(struct rec_snap *s, struct rec_snap_tracer *tr,
			pid_t cur, uint32_t end, int status,
			const siginfo_t *si, struct sb_err *err)
{
	static struct rec_snap_thr th[REC_SNAP_TRACER_MAX + 1];
	bool held[REC_SNAP_TRACER_MAX] = { 0 };
	struct rec_snap_proc p = { .pid = tr->pid, .ppid = tr->ppid,
				   .end = end, .status = status,
				   .threads = th,
				   /* the filter saw every rseq call */
				   .rseq = tr->execs ? &tr->rseq : NULL,
				   .sig_tid = si ? cur : 0, .si = si };
	size_t i;

	if (tr->snapped || s->off)
		return;
	/* an execve's entry: one more generation; the end is still to come */
	p.gen = tr->gen;
	if (end == SB_SNAP_END_EXEC)
		tr->gen++;
	else
		tr->snapped = true;
	for (i = 0; i < tr->n; i++)
		if (tr->tids[i] != cur)
			held[i] = thr_hold(tr, i);
	for (i = 0; i < tr->n; i++)
		if (tr->tids[i] == cur || held[i])
			th[p.nthreads++] = (struct rec_snap_thr){
				.tid = tr->tids[i] };
	if (thr_find(tr, cur) < 0)
		th[p.nthreads++] = (struct rec_snap_thr){ .tid = cur };
	if (rec_snap_take(s, &p, err) && !tr->error)
		tr->error = -EIO;
	for (i = 0; i < tr->n; i++)
		if (held[i]) {
			ptrace(PTRACE_CONT, tr->tids[i], 0, tr->held_sig[i]);
			tr->held_sig[i] = 0;
		}
	while (thr_find(tr, 0) > 0)
		thr_del(tr, 0);
}

/* The parent of @pid (field 4 of /proc/PID/stat, after the command's
 * closing parenthesis), or 0.
 */
static pid_t ppid_of(pid_t pid)
{
	char path[64], line[1024], *p;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		p = strrchr(line, ')');
		if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
			ppid = 0;
	}
	fclose(f);
	return ppid;
}

/* How long rec_snap_seize() waits for the threads' stops: 1 s. */
#define SEIZE_WAIT_NS 1000000000ull

void rec_snap_seize(struct rec_snap_seized *sz, pid_t pid)
{
	char path[64];
	struct dirent *de;
	uint64_t deadline;
	size_t i;
	DIR *d;

	memset(sz, 0, sizeof(*sz));
	sz->pid = pid;
	sz->ppid = ppid_of(pid);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	while (d && (de = readdir(d)) && sz->n < REC_SNAP_SEIZE_MAX) {
		pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);

		if (tid <= 0 || ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
			continue;
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			continue;
		}
		sz->tids[sz->n++] = tid;
	}
	if (d)
		closedir(d);
	/*
	 * Each stops at PTRACE_EVENT_STOP, or first at a signal's delivery
	 * (the signal is kept for the detach); one that exits is dropped.
	 * So is one that has not stopped within SEIZE_WAIT_NS of the first
	 * wait (a thread waiting for its vfork child stops only when the
	 * child has exec'd or exited): it is in no snapshot, and stays
	 * seized until ptrec exits (PTRACE_DETACH needs a stopped tracee),
	 * when the kernel lets it go.  Before session 18 the wait blocked:
	 * SIGINT to a kmod `ptrec record -p` of such a process hung until
	 * the child ended.
	 */
	deadline = rec_mono_ns() + SEIZE_WAIT_NS;
	for (i = 0; i < sz->n; i++) {
		int st;
		pid_t w;

		for (;;) {
			w = waitpid(sz->tids[i], &st, __WALL | WNOHANG);
			if (w == 0 && rec_mono_ns() < deadline) {
				usleep(200);
				continue;
			}
			if (w < 0 && errno == EINTR)
				continue;
			if (w != sz->tids[i]) {
				if (!w)
					sz->left++;
				sz->tids[i] = 0;
				break;
			}
			if (!WIFSTOPPED(st)) {
				sz->tids[i] = 0;
				break;
			}
			if (st >> 16 == PTRACE_EVENT_STOP)
				break;
			if (!(st >> 16)) {
				sz->sigs[i] = WSTOPSIG(st);
				break;
			}
			ptrace(PTRACE_CONT, sz->tids[i], 0, 0);
		}
	}
}

int rec_snap_release(struct rec_snap *s, struct rec_snap_seized *sz,
		     uint32_t end, struct sb_err *err)
{
	struct rec_snap_thr th[REC_SNAP_SEIZE_MAX];
	struct rec_snap_proc p = { .pid = sz->pid, .ppid = sz->ppid,
				   .end = end, .threads = th };
	size_t i;
	int ret = 0;

	for (i = 0; i < sz->n; i++)
		if (sz->tids[i] > 0)
			th[p.nthreads++] = (struct rec_snap_thr){ .tid =
								  sz->tids[i] };
	if (p.nthreads && !s->off)
		ret = rec_snap_take(s, &p, err);
	for (i = 0; i < sz->n; i++)
		if (sz->tids[i] > 0)
			ptrace(PTRACE_DETACH, sz->tids[i], 0, sz->sigs[i]);
	sz->n = 0;
	return ret;
}

/* What a descendant is traced for: its execve let through, its children
 * followed.  Not PTRACE_O_EXITKILL: it may outlive the recording.
 */
#define DESC_OPTS (PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | \
		   PTRACE_O_TRACECLONE | \
		   PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)

int rec_snap_tracer_start(struct rec_snap_tracer *tr, pid_t pid, pid_t ppid,
			  bool execs)
{
	long opts = PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL |
		    PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;

	memset(tr, 0, sizeof(*tr));
	tr->pid = pid;
	tr->ppid = ppid;
	tr->tids[0] = pid;
	tr->n = 1;
	tr->execs = execs;
	if (execs)
		opts |= DESC_OPTS;
	if (ptrace(PTRACE_SETOPTIONS, pid, 0, opts) < 0)
		return -errno;
	tr->traced = true;
	return ptrace(PTRACE_CONT, pid, 0, 0) < 0 ? -errno : 0;
}

/*
 * A stop of a descendant (traced only so that its execve passes the
 * filter): its first SIGSTOP (auto-attached) is dropped and its options
 * set, every other stop continues with its signal.
 */
static void desc_stop(struct rec_snap_tracer *tr, pid_t tid, int st)
{
	int sig = WSTOPSIG(st), event = st >> 16, i = desc_find(tr, tid);

	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE)
		new_child(tr, tid, event, false);
	rseq_event(tr, tid, st, false);
	if (event) {
		sig = 0;
	} else if (sig == SIGSTOP && (i < 0 || tr->desc_due[i])) {
		if (i < 0)
			i = desc_add(tr, tid);
		if (i >= 0)
			tr->desc_due[i] = false;
		ptrace(PTRACE_SETOPTIONS, tid, 0, DESC_OPTS);
		sig = 0;
	}
	ptrace(PTRACE_CONT, tid, 0, sig);
}

/* One stop of thread @tid: take the snapshot where the process ends,
 * then let it go on (with its signal).
 */
static void tracer_stop(struct rec_snap *s, struct rec_snap_tracer *tr,
			pid_t tid, int st, struct sb_err *err)
{
	int sig = WSTOPSIG(st), event = st >> 16, i = thr_find(tr, tid);
	unsigned long msg = 0;
	siginfo_t si;

	tr->stops++;
	if (i < 0 && tr->execs &&
	    (desc_find(tr, tid) >= 0 || tgid_of(tid) != tr->pid)) {
		desc_stop(tr, tid, st);
		return;
	}
	if (i < 0)
		i = thr_add(tr, tid);	/* before its parent's clone event */
	if (event == PTRACE_EVENT_EXIT && tid == tr->pid &&
	    !exec_under_way(tr)) {
		ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
		tracer_snap(s, tr, tid, WIFSIGNALED((int)msg) ?
			    SB_SNAP_END_SIGNAL : SB_SNAP_END_EXIT,
			    WIFSIGNALED((int)msg) ? WTERMSIG((int)msg) :
			    WEXITSTATUS((int)msg), NULL, err);
		sig = 0;
	} else if (event == PTRACE_EVENT_CLONE && !tr->execs) {
		if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
			thr_add(tr, (pid_t)msg);
		sig = 0;
	} else if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
		   event == PTRACE_EVENT_VFORK) {
		new_child(tr, tid, event, true);
		sig = 0;
	} else if (rseq_event(tr, tid, st, true)) {
		sig = 0;
	} else if (event == PTRACE_EVENT_SECCOMP) {
		/*
		 * At an execve's entry, the old image whole: its state, as
		 * the kernel shows a thread that entered the call (RAX
		 * -ENOSYS, ORIG_RAX the call, RIP after the SYSCALL).  An
		 * execve that then fails leaves this state too, as the
		 * software recorder's.
		 */
		tracer_snap(s, tr, tid, SB_SNAP_END_EXEC, 0, NULL, err);
		sig = 0;
	} else if (event == PTRACE_EVENT_EXEC) {
		/* One thread is left, as the leader; the new image has no
		 * rseq area yet (execve unregisters it).
		 */
		rec_snap_rseq_free(&tr->rseq);
		tr->n = 1;
		tr->stop_due[0] = false;
		tr->held_sig[0] = 0;
		sig = 0;
	} else if (event) {
		sig = 0;
	} else if (sig == SIGSTOP && (i < 0 || tr->stop_due[i])) {
		/* ours, or a new thread's (also one past the table's end) */
		if (i >= 0)
			tr->stop_due[i] = false;
		sig = 0;
	} else if (sig_fatal(tid, sig)) {
		memset(&si, 0, sizeof(si));
		ptrace(PTRACE_GETSIGINFO, tid, 0, &si);
		tracer_snap(s, tr, tid, SB_SNAP_END_SIGNAL, sig, &si, err);
	}
	ptrace(PTRACE_CONT, tid, 0, sig);
}

int rec_snap_tracer_poll(struct rec_snap *s, struct rec_snap_tracer *tr,
			 bool block, int *status, struct sb_err *err)
{
	int st;
	pid_t w;

	for (;;) {
		/* its threads are the recorder's only tracees */
		w = waitpid(-1, &st, __WALL | (block ? 0 : WNOHANG));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : 0;
		if ((WIFEXITED(st) || WIFSIGNALED(st)) && w != tr->pid) {
			thr_del(tr, w);
			desc_del(tr, w);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			tr->traced = false;
			return 1;
		}
		if (WIFSTOPPED(st) && tr->traced)
			tracer_stop(s, tr, w, st, err);
		else if (WIFSTOPPED(st))	/* a descendant, after the end */
			desc_stop(tr, w, st);
	}
}

void rec_snap_tracer_end(struct rec_snap *s, struct rec_snap_tracer *tr,
			 struct sb_err *err)
{
	int st;

	if (!tr->traced || tr->snapped || s->off)
		return;
	/*
	 * Stop its leader where it is (a signal-delivery stop of a SIGSTOP
	 * sent to it alone); the snapshot stops the other threads.
	 */
	tr->stop_due[0] = false;
	syscall(SYS_tgkill, tr->pid, tr->pid, SIGSTOP);
	while (waitpid(tr->pid, &st, __WALL) == tr->pid) {
		if (!WIFSTOPPED(st))
			return;
		if (!(st >> 16) && WSTOPSIG(st) == SIGSTOP) {
			tracer_snap(s, tr, tr->pid, SB_SNAP_END_STOP, 0, NULL,
				    err);
			return;	/* left stopped: the caller kills it */
		}
		tracer_stop(s, tr, tr->pid, st, err);
	}
}

size_t rec_snap_tracer_left(struct rec_snap_tracer *tr)
{
	size_t i, n = 0;

	for (i = 0; i < tr->ndesc; i++)
		if (!kill(tr->desc[i], 0))
			n++;
	return n;
}
