// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Taking the end-state snapshot of a ptrace-stopped process, for every
 * recorder: its mappings (the contents of the writable and anonymous ones,
 * within --snapshot-limit), its auxiliary vector and every register of
 * its threads, written into the bundle's snapshot part.  The recorders
 * call rec_snap_take() where a process's recording ends.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "maps.h"
#include "skel.h"
#include "snapshot.h"

#define CHUNK (1u << 20)
#define PAGE 4096u

void rec_snap_regs(uint64_t v[27], const struct user_regs_struct *r)
{
	const uint64_t g[27] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
		r->rip, r->eflags, r->cs, r->ss, r->ds, r->es, r->fs, r->gs,
		r->fs_base, r->gs_base, r->orig_rax,
	};

	memcpy(v, g, sizeof(g));
}

static int open_writer(struct rec_snap *s, struct sb_err *err)
{
	if (s->w)
		return 0;
	return sb_bundle_open_snapshot(s->b, &s->w, err);
}

/* Which bytes of @mp the snapshot holds. */
static uint32_t content_of(const struct map *mp)
{
	if (!(mp->prot & PROT_READ) || !strcmp(mp->path, "[vvar]") ||
	    !strcmp(mp->path, "[vsyscall]"))
		return SB_SNAP_UNREADABLE;
	if (map_is_file(mp) && !(mp->prot & PROT_WRITE) &&
	    mp->mflags == MAP_PRIVATE)
		return SB_SNAP_IMAGE;
	return SB_SNAP_DATA;
}

/* Reads [start, end) through /proc/PID/mem; pages that cannot be read
 * (beyond a file's end) stay zero.
 */
static void read_mem(int fd, uint64_t start, uint64_t end, uint8_t *buf)
{
	uint64_t a = start;

	while (a < end) {
		size_t n = end - a < CHUNK ? end - a : CHUNK;
		ssize_t got = pread(fd, buf + (a - start), n, (off_t)a);

		if (got == (ssize_t)n) {
			a += n;
			continue;
		}
		if (got > 0) {
			a += (uint64_t)got;
			continue;
		}
		memset(buf + (a - start), 0, PAGE);
		a += PAGE;
	}
}

/*
 * Start addresses of the mappings that hold private (copy-on-write)
 * pages, from /proc/PID/smaps: a read-only file mapping that was written
 * before (the RELRO region, with the dynamic linker's DT_DEBUG) is not
 * what the file holds, so its contents are taken, as the kernel dumps them.
 */
static size_t anon_starts(pid_t pid, uint64_t **out)
{
	char path[64], line[512];
	uint64_t start = 0, a, b, *v = NULL;
	size_t n = 0, cap = 0;
	unsigned long kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &a, &b) == 2) {
			start = a;
			continue;
		}
		if (sscanf(line, "Anonymous: %lu kB", &kb) != 1 || !kb)
			continue;
		if (n == cap) {
			uint64_t *nv = realloc(v, (cap = cap ? cap * 2 : 64) *
					       sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = start;
	}
	if (f)
		fclose(f);
	*out = v;
	return n;
}

static bool has_anon(const uint64_t *v, size_t n, uint64_t start)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == start)
			return true;
	return false;
}

static int take_thread(struct rec_snap *s, const struct rec_snap_thr *th,
		       pid_t sig_tid, const siginfo_t *si, struct sb_err *err)
{
	struct sb_snap_thread t = { .tid = (uint32_t)th->tid };
	struct user_regs_struct r;
	static uint8_t fp[SB_SNAP_FPREGS_SIZE], xs[SB_SNAP_XSTATE_MAX];
	struct iovec iov;

	if (th->entered && th->regs) {
		/* Stopped before the SYSCALL: as the kernel shows it entered. */
		rec_snap_regs(t.regs, th->regs);
	} else if (ptrace(PTRACE_GETREGS, th->tid, 0, &r) == 0) {
		/*
		 * Right after a SYSCALL that was single-stepped, R11 holds
		 * RFLAGS with the trap flag the stepping set; the program
		 * untraced has it clear.
		 */
		if (s->stepping && r.rcx == r.rip)
			r.r11 &= ~0x100ull;
		rec_snap_regs(t.regs, &r);
	}
	else if (th->regs)
		rec_snap_regs(t.regs, th->regs);	/* running in a syscall */
	else
		return 0;	/* nothing known: not in the snapshot */
	iov = (struct iovec){ fp, sizeof(fp) };
	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_PRFPREG, &iov) == 0) {
		t.fpregs = fp;
		t.fpregs_len = (uint32_t)iov.iov_len;
	}
	iov = (struct iovec){ xs, sizeof(xs) };
	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_X86_XSTATE,
		   &iov) == 0) {
		t.xstate = xs;
		t.xstate_len = (uint32_t)iov.iov_len;
	}
	if (si && th->tid == sig_tid) {
		t.has_siginfo = 1;
		memcpy(t.siginfo, si, sizeof(t.siginfo) < sizeof(*si) ?
		       sizeof(t.siginfo) : sizeof(*si));
	}
	return sb_snap_writer_thread(s->w, &t, err);
}

static int read_small(const char *path, uint8_t **buf, size_t *len)
{
	size_t cap = 4096;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	*buf = malloc(cap);
	while (*buf && (n = read(fd, *buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap) {
			uint8_t *nb = realloc(*buf, cap * 2);

			if (!nb) {
				free(*buf);
				*buf = NULL;
				break;
			}
			*buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	return *buf ? 0 : -ENOMEM;
}

int rec_snap_take(struct rec_snap *s, const struct rec_snap_proc *rp,
		  struct sb_err *err)
{
	struct sb_snap_proc p = { .pid = (uint32_t)rp->pid,
				  .ppid = (uint32_t)rp->ppid,
				  .end = rp->end, .status = rp->status,
				  .gen = rp->gen };
	char path[64], exe[4096];
	struct maps ms = { 0 };
	uint8_t *auxv = NULL, *buf = NULL;
	uint64_t *anon = NULL;
	size_t auxv_len = 0, i, nanon;
	uint64_t t0 = rec_mono_ns();
	ssize_t n;
	int fd, ret;

	if (s->off)
		return 0;
	ret = open_writer(s, err);
	if (ret)
		return ret;
	ret = maps_read(rp->pid, &ms);
	if (ret) {
		/* Gone already (killed): nothing to take. */
		if (!s->quiet)
			fprintf(stderr,
				"ptrec record: snapshot: process %d: /proc/%d/maps: %s; no snapshot of it\n",
				rp->pid, rp->pid, strerror(-ret));
		return 0;
	}
	nanon = anon_starts(rp->pid, &anon);
	snprintf(path, sizeof(path), "/proc/%d/exe", rp->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	p.exe = exe;
	snprintf(path, sizeof(path), "/proc/%d/auxv", rp->pid);
	if (!read_small(path, &auxv, &auxv_len)) {
		p.auxv = auxv;
		p.auxv_len = (uint32_t)(auxv_len & ~15ul);
	}
	ret = sb_snap_writer_proc(s->w, &p, err);
	for (i = 0; !ret && i < rp->nthreads; i++)
		ret = take_thread(s, &rp->threads[i], rp->sig_tid, rp->si, err);
	snprintf(path, sizeof(path), "/proc/%d/mem", rp->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (i = 0; !ret && i < ms.n; i++) {
		const struct map *mp = &ms.v[i];
		struct sb_snap_map m = {
			.start = mp->start, .end = mp->end, .pgoff = mp->pgoff,
			.path = mp->path, .content = content_of(mp),
			.prot = (mp->prot & PROT_READ ? SB_SNAP_R : 0) |
				(mp->prot & PROT_WRITE ? SB_SNAP_W : 0) |
				(mp->prot & PROT_EXEC ? SB_SNAP_X : 0) |
				(mp->mflags == MAP_SHARED ? SB_SNAP_SHARED : 0),
		};
		uint64_t len = mp->end - mp->start;

		if (m.content == SB_SNAP_IMAGE &&
		    has_anon(anon, nanon, mp->start))
			m.content = SB_SNAP_DATA;
		if (m.content == SB_SNAP_DATA && fd < 0)
			m.content = SB_SNAP_UNREADABLE;
		if (m.content == SB_SNAP_DATA && s->used + len > s->limit) {
			m.content = SB_SNAP_OVER_LIMIT;
			s->left_out += len;
			if (!s->quiet)
				fprintf(stderr,
					"ptrec record: snapshot: process %d: 0x%" PRIx64 "-0x%" PRIx64 " %s (%" PRIu64 " bytes) left out: over --snapshot-limit %" PRIu64 "\n",
					rp->pid, mp->start, mp->end,
					mp->path[0] ? mp->path : "[anon]", len,
					s->limit);
		}
		if (m.content == SB_SNAP_DATA) {
			buf = malloc(len);
			if (!buf) {
				ret = sb_fail(err, -ENOMEM,
					      "snapshot: out of memory for %" PRIu64 " bytes",
					      len);
				break;
			}
			read_mem(fd, mp->start, mp->end, buf);
			m.data = buf;
			s->used += len;
		}
		ret = sb_snap_writer_map(s->w, &m, err);
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	s->procs++;
	s->ns += rec_mono_ns() - t0;
	maps_free(&ms);
	free(auxv);
	free(anon);
	return ret;
}

/* ---- a program traced only for its end (the kmod recorder) ------------- */

/* Whether delivering @sig to @tid ends its process (no handler, not
 * ignored, its default action terminates).
 */
static bool sig_fatal(pid_t tid, int sig)
{
	uint64_t bit = 1ull << (sig - 1);

	if ((rec_sigmask_of(tid, "SigCgt") | rec_sigmask_of(tid, "SigIgn")) & bit)
		return false;
	switch (sig) {
	case SIGCHLD: case SIGURG: case SIGWINCH: case SIGCONT:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	default:
		return true;
	}
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
	unsigned long msg;
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
		} else if (st >> 16 == PTRACE_EVENT_CLONE &&
			   !ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg)) {
			thr_add(tr, (pid_t)msg);
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
				   .sig_tid = si ? cur : 0, .si = si };
	size_t i;

	if (tr->snapped || s->off)
		return;
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

void rec_snap_seize(struct rec_snap_seized *sz, pid_t pid)
{
	char path[64];
	struct dirent *de;
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
	 */
	for (i = 0; i < sz->n; i++) {
		int st;

		while (waitpid(sz->tids[i], &st, __WALL) == sz->tids[i]) {
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

int rec_snap_tracer_start(struct rec_snap_tracer *tr, pid_t pid, pid_t ppid)
{
	memset(tr, 0, sizeof(*tr));
	tr->pid = pid;
	tr->ppid = ppid;
	tr->tids[0] = pid;
	tr->n = 1;
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL |
		   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC) < 0)
		return -errno;
	tr->traced = true;
	return ptrace(PTRACE_CONT, pid, 0, 0) < 0 ? -errno : 0;
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
	} else if (event == PTRACE_EVENT_CLONE) {
		if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
			thr_add(tr, (pid_t)msg);
		sig = 0;
	} else if (event == PTRACE_EVENT_EXEC) {
		/* One thread is left, as the leader. */
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
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			tr->traced = false;
			return 1;
		}
		if (WIFSTOPPED(st) && tr->traced)
			tracer_stop(s, tr, w, st, err);
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
