// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder, where recordings begin: launching the program to
 * its start address (a breakpoint, so the loader runs at full speed), or
 * attaching to every thread of a running process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"

/* ---- start ----------------------------------------------------------- */

/* Address of @sym in the main executable of @pid, load bias applied. */
static int resolve_start(struct emu *e, pid_t pid, const char *spec,
			 uint64_t *addr)
{
	char exe[64], *end;
	uint64_t bias = 0, lowest = UINT64_MAX;
	struct proc *p = emu_proc_find(e, pid);
	int fd, ret = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *elf;

	if (!strncmp(spec, "0x", 2)) {
		errno = 0;
		*addr = strtoull(spec, &end, 16);
		if (errno || *end || end == spec + 2)
			return emu_fail(e, -EINVAL,
				    "--start-at %s: not a hex address", spec);
		return 0;
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return emu_fail(e, -errno, "%s: %s", exe, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		ret = emu_fail(e, -EINVAL, "%s: not an ELF file", exe);
		goto out_close;
	}
	if (eh.e_type == ET_DYN && p) {
		GElf_Phdr ph;
		char real[4096];
		ssize_t n = readlink(exe, real, sizeof(real) - 1);

		real[n > 0 ? n : 0] = '\0';
		elf_getphdrnum(elf, &nph);
		for (i = 0; i < nph; i++)
			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
				lowest = ph.p_vaddr & ~0xfffull;
		for (i = 0; i < p->maps.n; i++)
			if (!strcmp(p->maps.v[i].path, real) &&
			    p->maps.v[i].pgoff == 0) {
				bias = p->maps.v[i].start - lowest;
				break;
			}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, spec)) {
				*addr = sym.st_value + bias;
				ret = 0;
				goto out_end;
			}
		}
	}
out_end:
	if (ret)
		ret = -ENOENT;	/* the caller decides whether that is fatal */
out_close:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/*
 * SIGINT or SIGTERM to ptrec record (rec_options.stop) before the start:
 * nothing was recorded.  The error makes rec_emu_record() kill the
 * program (emu_finish_live()) and take the bundle's directory away, as
 * for a program that ends before the start; processes it forked before
 * then were let go and run on.  Before session 17 the flag was not
 * looked at here: a program whose main came late (a constructor that
 * sleeps, or whose threads keep the recorder busy) kept ptrec record
 * until it came (review 16's ctorbusy), or one asleep made waitpid fail
 * with EINTR ("waitpid: Interrupted system call", ctorsleep).
 */
static bool start_stop_asked(const struct emu *e)
{
	return e->o->stop && *e->o->stop;
}

static int start_stopped(struct emu *e, uint64_t addr)
{
	return emu_fail(e, -EINTR, "stopped by a signal before %s reached "
			"the start address 0x%" PRIx64 ": nothing recorded "
			"(the program is killed)", e->o->argv[0], addr);
}

/* A tick ends a waitpid(2) that a stop signal just before it missed. */
static void start_tick(int sig)
{
	(void)sig;
}

/*
 * Tasks the program makes before the start address (a constructor's
 * thread or fork; review 13's ctor).  Its threads run untraced until the
 * start, are stopped there and recorded from then on as -p records the
 * threads it finds (emu_attach(): no start registers); another process
 * is let go unrecorded, the start's breakpoint first taken out of its
 * copy of the memory.  Left stopped, a thread never ran, and a program
 * that waited for it before main hung.
 */
enum pre_state {
	PRE_RUN,		/* running untraced */
	PRE_SENT,		/* a SIGSTOP sent to stop it at the start */
	PRE_SIGNALLED,		/* that, and since then a signal delivered */
	PRE_HELD,		/* at its first stop, taken and left there */
	PRE_LATE,		/* sent, but waiting for its vfork child */
};

struct prestart {
	pid_t *tid;
	unsigned char *st;	/* enum pre_state */
	size_t n, cap;
};

static int pre_add(struct emu *e, struct prestart *ps, pid_t tid)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->tid[i] == tid)
			return 0;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 8;
		pid_t *t = realloc(ps->tid, cap * sizeof(*t));
		unsigned char *s;

		if (!t)
			return emu_fail(e, -ENOMEM, "out of memory");
		ps->tid = t;
		s = realloc(ps->st, cap * sizeof(*s));
		if (!s)
			return emu_fail(e, -ENOMEM, "out of memory");
		ps->st = s;
		ps->cap = cap;
	}
	ps->tid[ps->n] = tid;
	ps->st[ps->n++] = PRE_RUN;
	return 0;
}

static void pre_drop(struct prestart *ps, size_t i)
{
	ps->tid[i] = ps->tid[--ps->n];
	ps->st[i] = ps->st[ps->n];
}

static ssize_t pre_find(const struct prestart *ps, pid_t tid)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->tid[i] == tid)
			return (ssize_t)i;
	return -1;
}

/*
 * The first stop of @tid, a task the program made before the start: a
 * thread of @pid's process joins @ps; another process, with
 * its own copy of the memory, gets @orig back at @addr and is let go; one
 * that shares the memory (vfork, CLONE_VM) is let go as it is.  A thread
 * runs on when @run, else stays at this stop.
 */
static int pre_new(struct emu *e, struct prestart *ps, pid_t pid, pid_t tid,
		   uint64_t addr, long orig, bool run)
{
	char task[64];

	snprintf(task, sizeof(task), "/proc/%d/task/%d", pid, tid);
	if (access(task, F_OK) == 0) {
		if (run)
			ptrace(PTRACE_CONT, tid, 0, 0);
		return pre_add(e, ps, tid);
	}
	if (syscall(SYS_kcmp, pid, tid, KCMP_VM, 0, 0) != 0)
		ptrace(PTRACE_POKETEXT, tid, (void *)(uintptr_t)addr,
		       (void *)orig);
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return 0;
}

/*
 * The task @parent's clone, fork or vfork event (@status) made, before
 * the start: waited for at its first stop unless that came already (then
 * it is in @ps, or was let go), then as pre_new() says; a thread is left
 * stopped at its first stop (its SIGSTOP) when @stop.
 */
static int pre_child(struct emu *e, struct prestart *ps, pid_t pid,
		     pid_t parent, int status, uint64_t addr, long orig,
		     bool stop)
{
	unsigned long msg = 0;
	pid_t tid, w;
	int st, ret;

	if (status >> 16 != PTRACE_EVENT_CLONE &&
	    status >> 16 != PTRACE_EVENT_FORK &&
	    status >> 16 != PTRACE_EVENT_VFORK)
		return 0;
	if (ptrace(PTRACE_GETEVENTMSG, parent, 0, &msg) < 0 || !msg)
		return 0;
	tid = (pid_t)msg;
	if (pre_find(ps, tid) >= 0)
		return 0;
	/* Again after run_to()'s tick: the first stop comes. */
	while ((w = waitpid(tid, &st, __WALL)) < 0 && errno == EINTR)
		;
	if (w != tid || !WIFSTOPPED(st))
		return 0;	/* let go already, or gone */
	ret = pre_new(e, ps, pid, tid, addr, orig, !stop);
	if (!ret && stop && pre_find(ps, tid) >= 0)
		ps->st[pre_find(ps, tid)] = PRE_HELD;
	return ret;
}

/*
 * A stop of @tid, one of @ps's threads or a task not seen yet, before the
 * start: events and signals go on as they would untraced.
 */
static int pre_stop(struct emu *e, struct prestart *ps, pid_t pid, pid_t tid,
		    int status, uint64_t addr, long orig)
{
	ssize_t i = pre_find(ps, tid);
	int ret;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (i >= 0)
			pre_drop(ps, (size_t)i);
		return 0;
	}
	if (i < 0)
		return pre_new(e, ps, pid, tid, addr, orig, true);
	ret = pre_child(e, ps, pid, tid, status, addr, orig, false);
	if (ret)
		return ret;
	ptrace(PTRACE_CONT, tid, 0,
	       status >> 16 || WSTOPSIG(status) == SIGTRAP ? 0 :
	       WSTOPSIG(status));
	return 0;
}

/*
 * @tid at the stop of our SIGSTOP, in a system call that it interrupted
 * with EINTR (epoll_wait, sigtimedwait, semop, a socket's call with a
 * time limit: the calls the kernel fails on a stop signal, signal(7)):
 * the call is made again when the thread runs on, as untraced it is not
 * interrupted at all (review 16's epoll and sigwait said -4).  Not when
 * another signal may have interrupted it: one pending and not blocked,
 * or one delivered since our SIGSTOP (its handler's frame is set up,
 * the call's EINTR is the program's), or rip not after a SYSCALL.
 */
static void pre_eintr(pid_t tid)
{
	struct user_regs_struct r;
	unsigned long long v, pend = 0, blk = 0;
	char path[64], line[128];
	long word;
	FILE *f;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0 ||
	    (long long)r.orig_rax < 0 || r.rax != (unsigned long long)-EINTR)
		return;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, tid, (void *)(uintptr_t)(r.rip - 2), 0);
	if (errno || (word & 0xffff) != 0x050f)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SigPnd: %llx", &v) == 1 ||
		    sscanf(line, "ShdPnd: %llx", &v) == 1)
			pend |= v;
		else if (sscanf(line, "SigBlk: %llx", &v) == 1)
			blk = v;
	}
	fclose(f);
	if (pend & ~blk)
		return;
	r.rax = r.orig_rax;
	r.rip -= 2;
	ptrace(PTRACE_SETREGS, tid, 0, &r);
}

/*
 * Is @tid waiting for its vfork child?  In uninterruptible sleep (the
 * wait is killable only: no stop for us) inside vfork, clone or clone3
 * (CLONE_VFORK: posix_spawn()), where only that wait sleeps.
 */
static bool pre_in_vfork(pid_t tid)
{
	char path[64], buf[512], *p;
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || p[1] != ' ' || p[2] != 'D')
		return false;
	snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_vfork || nr == SYS_clone || nr == SYS_clone3;
}

/*
 * @tid's next stop, or 0 when it waits for its vfork child (the stop our
 * SIGSTOP makes comes when the child has exec'd or exited, which may
 * wait for main: review 16's vforkwait hung here); -1 when recording is
 * to stop.
 */
static pid_t pre_wait(const struct emu *e, pid_t tid, int *status)
{
	pid_t w;

	for (;;) {
		w = waitpid(tid, status, __WALL | WNOHANG);
		if (w)
			return w;
		if (pre_in_vfork(tid))
			return 0;
		if (start_stop_asked(e))
			return -1;
		usleep(200);
	}
}

/*
 * At the start: every thread of @ps stopped, by a SIGSTOP it then does
 * not get (a tracee's signal-delivery stop, left unresumed), and its
 * clones' first stops taken as they come.  Returns the threads stopped.
 */
static int pre_halt(struct emu *e, struct prestart *ps, pid_t pid,
		    uint64_t addr, long orig)
{
	size_t i, done = 0;
	int status, ret, sig;
	pid_t w;

	while (done < ps->n) {
		if (start_stop_asked(e))
			return start_stopped(e, addr);
		for (i = done; i < ps->n; i++)
			if (ps->st[i] == PRE_RUN) {
				ps->st[i] = PRE_SENT;
				syscall(SYS_tgkill, pid, ps->tid[i], SIGSTOP);
			}
		/*
		 * A clone a thread made on its way to our SIGSTOP: its child's
		 * first stop was taken (pre_child()); waited for again, it
		 * never came (review 16's spawn8 hung here).
		 */
		if (ps->st[done] == PRE_HELD) {
			done++;
			continue;
		}
		w = pre_wait(e, ps->tid[done], &status);
		if (w < 0 && start_stop_asked(e))
			return start_stopped(e, addr);
		if (!w) {
			/* Recorded from its stop on (emu_launch()). */
			ps->st[done++] = PRE_LATE;
			continue;
		}
		if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
			pre_drop(ps, done);
			continue;
		}
		ret = pre_child(e, ps, pid, w, status, addr, orig, true);
		if (ret)
			return ret;
		if (!(status >> 16) && WSTOPSIG(status) == SIGSTOP) {
			if (ps->st[done] == PRE_SENT)
				pre_eintr(w);
			done++;
			continue;
		}
		sig = status >> 16 || WSTOPSIG(status) == SIGTRAP ? 0 :
		      WSTOPSIG(status);
		if (sig)
			ps->st[done] = PRE_SIGNALLED;
		ptrace(PTRACE_CONT, w, 0, sig);
	}
	return 0;
}

/*
 * Runs the launched program to @addr with a breakpoint, under start_tick()
 * (run_to() below): a stop asked ends it.
 */
static int run_to_start(struct emu *e, pid_t pid, uint64_t addr,
			struct prestart *ps)
{
	struct user_regs_struct regs;
	long orig;
	int status, ret;
	pid_t w;

	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)addr, 0);
	if (errno)
		return emu_fail(e, -EINVAL, "start address 0x%" PRIx64
			    " is not mapped in the program", addr);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)addr,
		   (void *)((orig & ~0xffL) | 0xcc)) < 0)
		return emu_fail(e, -errno, "cannot set a breakpoint at 0x%" PRIx64
			    ": %s", addr, strerror(errno));
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		if (start_stop_asked(e))
			return start_stopped(e, addr);
		w = waitpid(-1, &status, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return emu_fail(e, -ECHILD, "waitpid: %s", strerror(errno));
		if (w != pid) {
			ret = pre_stop(e, ps, pid, w, status, addr, orig);
			if (ret)
				return ret;
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return emu_fail(e, -ECHILD,
				    "%s ended before reaching the start address 0x%"
				    PRIx64, e->o->argv[0], addr);
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16)) {
			ptrace(PTRACE_GETREGS, pid, 0, &regs);
			if (regs.rip == addr + 1)
				break;
		}
		if (status >> 16) {
			ret = pre_child(e, ps, pid, pid, status, addr, orig,
					false);
			if (ret)
				return ret;
			ptrace(PTRACE_CONT, pid, 0, 0);
			continue;
		}
		/* Signals before the start are delivered untraced. */
		ptrace(PTRACE_CONT, pid, 0,
		       WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status));
	}
	ret = pre_halt(e, ps, pid, addr, orig);
	if (ret)
		return ret;
	ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)addr, (void *)orig);
	regs.rip = addr;
	ptrace(PTRACE_SETREGS, pid, 0, &regs);
	return 0;
}

/*
 * run_to_start() with a tick every 100 ms (SIGALRM without SA_RESTART,
 * as emu.c's run() has), so that a SIGINT or SIGTERM that came just
 * before a waitpid(2) blocked is seen within a tick, not at the
 * program's next stop (none while a constructor sleeps).
 */
static int run_to(struct emu *e, pid_t pid, uint64_t addr,
		  struct prestart *ps)
{
	struct sigaction sa = { .sa_handler = start_tick }, old_sa;
	struct itimerval tick = { { 0, 100000 }, { 0, 100000 } }, old_tick;
	int ret;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old_sa);
	setitimer(ITIMER_REAL, &tick, &old_tick);
	ret = run_to_start(e, pid, addr, ps);
	setitimer(ITIMER_REAL, &old_tick, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	return ret;
}

#define TRACE_OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | \
		    PTRACE_O_TRACEEXIT)

int emu_launch(struct emu *e)
{
	const char *prog = e->o->argv[0];
	/* No exit stop yet: a failed exec just exits. */
	struct rec_launch l = {
		.argv = e->o->argv,
		.opts = (TRACE_OPTS & ~PTRACE_O_TRACEEXIT) | PTRACE_O_EXITKILL,
	};
	struct prestart ps = { 0 };
	uint64_t start = 0;
	struct thr *t;
	pid_t pid;
	size_t i;
	int ret;

	ret = rec_launch(&l, &e->error, e->err);
	pid = l.pid;
	if (pid) {
		e->launched = true;
		e->main_pid = pid;
	}
	if (ret)
		return ret;
	ptrace(PTRACE_SETOPTIONS, pid, 0, TRACE_OPTS | PTRACE_O_EXITKILL);
	if (!emu_proc_new(e, pid, getpid()))
		return e->error;
	ret = maps_read(pid, &e->procs->maps);
	if (ret)
		return emu_fail(e, ret, "/proc/%d/maps: %s", pid, strerror(-ret));
	ret = resolve_start(e, pid, e->o->start_at ? e->o->start_at : "main",
			    &start);
	if (ret == -ENOENT && e->o->start_at)
		return emu_fail(e, -EINVAL,
			    "--start-at %s: no such function in %s",
			    e->o->start_at, prog);
	if (!ret)
		ret = run_to(e, pid, start, &ps);
	else if (ret == -ENOENT)
		ret = 0;	/* no main: record from the entry point */
	/* The threads made before the start, as -p finds them. */
	for (i = 0; !ret && i < ps.n; i++) {
		bool late = ps.st[i] == PRE_LATE;

		/*
		 * One waiting for its vfork child stops at our SIGSTOP when
		 * the wait ends: taken then as a new thread's first stop.
		 */
		t = emu_thr_new(e, ps.tid[i], e->procs, late ? T_NEW : T_READY);
		if (!t) {
			ret = e->error;
			break;
		}
		t->attached = true;
		if (!late)
			emu_get_regs(t);
	}
	free(ps.tid);
	free(ps.st);
	maps_free(&e->procs->maps);
	return ret;
}

/*
 * -p: @tid's stop after its PTRACE_INTERRUPT, in @status; -1 when
 * recording is to stop first (SIGINT or SIGTERM to ptrec record).  A
 * thread waiting for its vfork child does not stop until the child has
 * exec'd or exited (a killable wait, which the interrupt does not end),
 * so this polls where a blocking waitpid(2) cannot see the stop flag:
 * before session 18 a signal just before it blocked was never seen
 * (ptrec record hung as long as the child ran), and one that ended it
 * (EINTR) was not looked at: the thread was taken as stopped, its
 * registers and its snapshot read while it ran, and the recording went
 * on to write a history of 0 instructions.
 */
static pid_t attach_wait(struct emu *e, pid_t tid, int *status)
{
	pid_t w;

	for (;;) {
		w = waitpid(tid, status, __WALL | WNOHANG);
		if (w == tid || (w < 0 && errno != EINTR))
			return w;
		if (start_stop_asked(e))
			return -1;
		usleep(200);
	}
}

/*
 * The stop asked while attaching: nothing recorded.  The error makes
 * rec_emu_record() detach the threads attached so far and leave no
 * bundle; @tid, seized but not stopped, is let go by the kernel when
 * ptrec exits (PTRACE_DETACH needs a stopped tracee).
 */
static int attach_stopped(struct emu *e, pid_t pid, pid_t tid)
{
	return emu_fail(e, -EINTR, "stopped by a signal while attaching to "
			"process %d: nothing recorded, the process runs on "
			"(thread %d had not stopped%s)", pid, tid,
			pre_in_vfork(tid) ? ": it waits for its vfork child, "
			"which no stop interrupts" : "");
}

int emu_attach(struct emu *e, pid_t pid)
{
	char dir[64];
	bool added;
	int status;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	if (access(dir, F_OK) < 0)
		return emu_fail(e, -ESRCH, "process %d: no such process", pid);
	if (!emu_proc_new(e, pid, 0))
		return e->error;
	e->main_pid = pid;
	/* Threads may appear while we attach: repeat until none is new. */
	do {
		struct dirent *de;
		DIR *d = opendir(dir);

		added = false;
		while (d && (de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			struct thr *t;

			if (tid <= 0 || emu_thr_find(e, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, TRACE_OPTS) < 0) {
				int err = errno;

				closedir(d);
				return emu_fail(e, -err,
					    "cannot attach to process %d: %s%s",
					    pid, strerror(err),
					    err == EPERM ?
					    " (needs CAP_SYS_PTRACE or the same user; see /proc/sys/kernel/yama/ptrace_scope)" :
					    "");
			}
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
			if (attach_wait(e, tid, &status) != tid) {
				if (!start_stop_asked(e))
					continue;	/* gone */
				closedir(d);
				return attach_stopped(e, pid, tid);
			}
			t = emu_thr_new(e, tid, e->procs, T_READY);
			if (!t)
				break;
			t->attached = true;
			emu_get_regs(t);
			added = true;
		}
		if (d)
			closedir(d);
	} while (added && !e->error);
	return e->error;
}
