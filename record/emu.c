// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder: single-steps every thread of the target with
 * ptrace and encodes what really executed as the PT packets a CPU with
 * user-only tracing would produce (ptenc.c), with the sideband a kernel
 * would record.
 *
 * One thread steps in user space at a time, so a single clock orders every
 * instruction, packet and sideband record of all threads.  Threads inside
 * a system call run concurrently (they may block), and their completion is
 * just another stop.  Everything about an instruction is decided at the
 * stop that shows its outcome: an instruction that did not execute (a
 * signal arrived first, it faulted) is never put into the trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"
#include "skel.h"

/* ---- time ------------------------------------------------------------ */

/* The recording's clock: monotonic nanoseconds, strictly increasing, so
 * it totally orders every stamped event.
 */
uint64_t emu_now(struct emu *e)
{
	uint64_t t = e->o->counter_clock ? 0 : rec_mono_ns();

	e->clock = t > e->clock ? t : e->clock + 1;
	return e->clock;
}

/* ---- errors ----------------------------------------------------------- */

/* Records a write error of the bundle (sideband or a stream). */
int emu_io_fail(struct emu *e, int ret, const char *what)
{
	return emu_fail(e, ret, "%s/%s: %s", sb_bundle_dir(e->b), what,
		    strerror(-ret));
}

/* ---- scheduling --------------------------------------------------------- */

static bool any_stepping(struct emu *e)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->st == T_STEP && !t->blocked)
			return true;
	return false;
}

/* The scheduler state letter of thread @tid (field 3 of its stat), or 0. */
char emu_thr_state(pid_t pid, pid_t tid)
{
	char path[64], line[512], *p, c = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		p = strrchr(line, ')');
		if (!p || sscanf(p + 1, " %c", &c) != 1)
			c = 0;
	}
	fclose(f);
	return c;
}

/*
 * The watchdog's tick (every 100 ms, while run() waits): a step that
 * has not landed for a whole tick and whose thread sleeps in the kernel
 * (S or D: a page fault that waits for another thread, userfaultfd's
 * UFFDIO_COPY, tests/values/review4.c uffd) would wait forever for a
 * thread that only steps after it.  It is set aside as blocked (as a
 * SYSCALL's step is): the trace leaves user space at its instruction,
 * which has not retired, and the others step until its stop comes.
 */
static void watchdog(struct emu *e)
{
	struct thr *t;
	char c;

	if (e->steps != e->tick_steps) {
		e->tick_steps = e->steps;
		return;
	}
	for (t = e->threads; t; t = t->next) {
		if (t->st != T_STEP || t->blocked)
			continue;
		c = emu_thr_state(t->proc->pid, t->tid);
		if (c != 'S' && c != 'D')
			continue;
		t->blocked = true;
		if (t->enc.enabled)
			emu_enc_check(e, t, ptenc_disable_async(&t->enc,
								 t->ip));
	}
}

/*
 * Threads in a group stop go on when a SIGCONT is pending for them (a
 * traced thread is not woken by it; its handler, if any, runs at the
 * next step's signal stop).  Asked at the watchdog's ticks.
 */
static void gstop_poll(struct emu *e)
{
	uint64_t cont = 1ull << (SIGCONT - 1);
	struct thr *t;

	for (t = e->threads; t && e->gstopped; t = t->next) {
		if (t->st != T_GSTOP ||
		    !((rec_sigmask_of(t->tid, "ShdPnd") |
		       rec_sigmask_of(t->tid, "SigPnd")) & cont))
			continue;
		t->st = T_READY;
		e->gstopped--;
	}
}

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/*
 * Is another thread of @t's process in execve (stepped into it, its stop
 * not seen yet)?  Then @t is not stepped until it is: the old image's
 * end state was taken when the execve was issued (issue_step()), and if
 * the execve succeeds de_thread() kills @t where it stands.  Stepped on,
 * its history would go past that state, and a step in flight when the
 * kill comes ends with a trap the kernel never reports, the instruction
 * retired or not (tests/values/review4.c execmt, execmt3).  An execve
 * that fails returns, and @t goes on.
 */
static bool exec_held(const struct thr *t)
{
	const struct thr *x = t->proc ? t->proc->execing : NULL;

	return x && x != t && x->st == T_SYSCALL &&
	       ((long)x->entry.rax == SYS_execve ||
		(long)x->entry.rax == SYS_execveat);
}

static bool ready(const struct thr *t)
{
	return t->st == T_READY && !exec_held(t) && !emu_group_exit_held(t) &&
	       !t->order_held;
}

static struct thr *pick(struct emu *e)
{
	struct thr *t, *start;

	if (e->cur && ready(e->cur) && e->quantum)
		return e->cur;
	start = e->cur && e->cur->next ? e->cur->next : e->threads;
	t = start;
	do {
		if (!t)
			t = e->threads;
		if (ready(t))
			return t;
		t = t->next ? t->next : e->threads;
	} while (t != start);
	return NULL;
}

/* Is @t, stopped at a far transfer, at a SYSCALL running execve or
 * execveat (x86-64 numbers 59 and 322)?
 */
static bool is_execve(const struct thr *t)
{
	long word;

	if (t->regs.rax != SYS_execve && t->regs.rax != SYS_execveat)
		return false;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->regs.rip, 0);
	return !errno && (word & 0xffff) == 0x050f;	/* 0f 05: SYSCALL */
}

/*
 * REGS (PTREC_SB_REGS_START): @t's registers before the first instruction
 * its trace shows, which this step runs (64-bit code, no signal delivered
 * first).  Not for a thread the recording attached to (-p): it may stand
 * inside a system call the kernel restarts, rax not yet the call's.
 */
static void emit_start_regs(struct emu *e, const struct thr *t)
{
	const struct user_regs_struct *r = &t->regs;
	struct ptrec_sb_regs g = {
		.hdr = { .type = PTREC_SB_REGS },
		.pid = (uint32_t)t->proc->pid,
		.tid = (uint32_t)t->tid,
		.where = PTREC_SB_REGS_START,
		.valid = (1ull << PTREC_SB_NREGS) - 1,
		.regs = { r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi,
			  r->rbp, r->rsp, r->r8, r->r9, r->r10, r->r11,
			  r->r12, r->r13, r->r14, r->r15, r->rip, r->eflags,
			  r->cs, r->ss, r->ds, r->es, r->fs, r->gs,
			  r->fs_base, r->gs_base, r->orig_rax },
	};

	emu_emit_record(e, &g.hdr);
}

static void issue_step(struct emu *e, struct thr *t)
{
	bool was_compat;
	int ret, sig;

	if (t != e->cur) {
		struct thr *old = e->cur;

		if (old && old->st != T_DEAD) {
			if (old->st == T_READY && old->enc.enabled)
				emu_enc_check(e, old, ptenc_disable_async(
						  &old->enc, old->regs.rip));
			emu_emit_switch(e, old, PTREC_SB_SWITCH_OUT,
				  old->st == T_READY ? PTREC_SB_F_PREEMPT : 0);
		}
		e->cur = t;
		e->quantum = QUANTUM;
		emu_emit_switch(e, t, PTREC_SB_SWITCH_IN, 0);
	}
	/* Its process's held SIGTRAP, if its mask lets it through. */
	if (__builtin_expect(t->proc->trap_pend, 0) && !t->pending_sig)
		emu_trap_take(e, t);
	sig = t->pending_sig;
	t->ip = t->regs.rip;
	t->entry = t->regs;
	/*
	 * Code under another cs than the 64-bit user cs runs in
	 * compatibility mode (a far transfer or a sigreturn to cs 0x23):
	 * our decoder, the encoder's MODE.Exec and the replay's engines
	 * are 64-bit, so it is left out: the trace stays disabled there (a
	 * gap: TIP.PGD at the far transfer, OVF and TIP.PGE back in 64-bit
	 * code; docs/recorder.md).  Its instructions are stepped as opaque
	 * ones (emu_space.c emu_compat_done()).
	 */
	was_compat = t->compat;
	t->compat = t->regs.cs != EMU_USER_CS;
	t->enc.mode32 = false;
	if (__builtin_expect(t->compat, 0) && e->knobs.compat_trace) {
		/* Tests: traced as a CPU traces it, under MODE.Exec
		 * 32-bit (its classes from our 64-bit decoder, so some
		 * steps are anomalies), which the replay must take as
		 * barriers (review9.sh c32hw).
		 */
		t->compat = false;
		t->enc.mode32 = true;
	}
	if (__builtin_expect(t->compat, 0))
		t->in = (struct insn){ .cls = IC_OTHER };
	else
		emu_fetch_insn(e, t, t->ip, &t->in);
	if (!t->started) {
		emu_enc_check(e, t, ptenc_start(&t->enc, emu_now(e)));
		t->started = true;
		if (!t->compat && !sig && !t->attached && !e->knobs.no_regs)
			emit_start_regs(e, t);
		emu_trap_hide(t);
	}
	if (__builtin_expect(t->compat, 0)) {
		emu_enc_check(e, t, ptenc_disable_async(&t->enc, t->ip));
	} else if (!t->enc.enabled) {
		/* Back from compatibility-mode code: an OVF before the
		 * TIP.PGE, so that the replay has a gap there (code ran
		 * that it does not see: values unknown, a watchpoint
		 * stops), not a far transfer's return.
		 */
		if (__builtin_expect(was_compat, 0))
			emu_enc_check(e, t, ptenc_overflow(&t->enc));
		emu_enc_check(e, t, ptenc_enable(&t->enc, t->ip, emu_now(e)));
	} else {
		emu_enc_check(e, t, ptenc_boundary(&t->enc, t->ip, emu_now(e)));
	}
	t->pending_sig = 0;
	t->delivering = false;
	t->blocked = false;
	e->steps++;
	if (sig) {
		uint64_t caught = rec_sigmask_of(t->tid, "SigCgt");

		t->delivering = caught & (1ull << (sig - 1));
		t->deliver_sig = sig;
		/* The frame saves the mask as the program has it. */
		if (t->delivering)
			emu_trap_show(t);
	}
	/* Never run: emulated, with its packets (emu_ptwrite.c). */
	if (!sig && !t->compat && emu_ptwrite(e, t)) {
		if (e->quantum)
			e->quantum--;
		return;
	}
	t->st = t->in.cls == IC_FAR && !t->delivering ? T_SYSCALL : T_STEP;
	if (t->st == T_SYSCALL) {
		emu_untraced_strip(e, t);
		emu_exit_group_issued(t);
		sig = emu_trap_strip(t, sig);	/* SIGTRAP: one it held */
		if (__builtin_expect(t->trap_pend || t->proc->trap_pend, 0) &&
		    !sig)
			sig = emu_trapq_issue(t);	/* and for this call */
	}
	/*
	 * The old image's last state: at PTRACE_EVENT_EXEC it is gone, so
	 * it is taken before the execve runs, as the kernel would show it
	 * entered (an execve that then fails leaves this state too).
	 */
	if (t->st == T_SYSCALL && is_execve(t)) {
		t->proc->execing = t;
		emu_snap_proc(e, t->proc, SB_SNAP_END_EXEC, 0, NULL, NULL);
	}
	if (e->quantum)
		e->quantum--;
	ret = (int)ptrace(t->trap_sysc ? PTRACE_SYSCALL : PTRACE_SINGLESTEP,
			  t->tid, 0, sig);
	if (ret < 0 && errno == ESRCH)
		t->st = T_EXITING;	/* killed meanwhile: its exit follows */
}

static void progress(struct emu *e)
{
	uint64_t t;

	if (e->o->quiet)
		return;
	t = rec_mono_ns();
	if (t - e->last_progress < 1000000000ull)
		return;
	e->last_progress = t;
	fprintf(stderr, "\rptrec record: %" PRIu64 " instructions, %u threads",
		e->st->insns, e->st->threads);
	if (!isatty(2))
		fputc('\n', stderr);
}

/*
 * Every second, writes what the streams buffered: a full disk (ENOSPC)
 * then stops the recording at once instead of when the buffers fill or
 * the recording ends, seconds or minutes of lost work later.
 */
static void flush_all(struct emu *e)
{
	uint64_t t = rec_mono_ns();
	struct thr *th;
	int ret;

	if (t - e->last_flush < 1000000000ull)
		return;
	e->last_flush = t;
	ret = sb_writer_flush(e->sb);
	if (ret) {
		emu_io_fail(e, ret, "sideband.sb");
		return;
	}
	for (th = e->threads; th && !e->error; th = th->next) {
		if (!th->opened)
			continue;
		emu_enc_check(e, th, ptenc_flush(&th->enc));
		ret = sb_truth_flush(th->truth);
		if (ret)
			emu_io_fail(e, ret, "truth");
	}
}

static bool all_dead(struct emu *e)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->st != T_DEAD)
			return false;
	/* A task let run untraced, its first stop still to detach it. */
	return !emu_untr_waiting(e);
}

static void run(struct emu *e)
{
	/* the watchdog: SIGALRM without SA_RESTART ends waitpid(2) */
	struct sigaction sa = { .sa_handler = on_tick }, old_sa;
	struct itimerval tick = { { 0, 100000 }, { 0, 100000 } }, old_tick;
	sig_atomic_t seen;
	int status;
	pid_t tid;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old_sa);
	setitimer(ITIMER_REAL, &tick, &old_tick);
	seen = ticks;

	while (!e->error && !all_dead(e)) {
		if (e->gstopped && ticks != seen) {
			seen = ticks;
			gstop_poll(e);
		}
		if ((e->o->stop && *e->o->stop) ||
		    (e->o->max_insns && e->st->insns >= e->o->max_insns))
			break;
		/*
		 * A SYSCALL step may block (wait4, futex): keep issuing until
		 * a user-mode step is in flight or nobody is ready, or the
		 * thread that would unblock it never runs.
		 */
		while (!any_stepping(e) && !e->error) {
			struct thr *t = pick(e);

			if (!t)
				break;
			issue_step(e, t);
		}
		if (e->held && !any_stepping(e) && emu_clone_poll(e))
			continue;
		if (e->order_parent &&
		    emu_clone_order_poll(e, any_stepping(e)))
			continue;
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR) {
				watchdog(e);
				continue;
			}
			if (errno == ECHILD)
				break;
			emu_fail(e, -errno, "waitpid: %s", strerror(errno));
			break;
		}
		emu_handle_stop(e, tid, status);
		progress(e);
		flush_all(e);
	}
	setitimer(ITIMER_REAL, &old_tick, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
}

/* ---- manifest --------------------------------------------------------- */

/* The software recorder's part of the manifest (rec_bundle_begin()). */
static void fill_manifest(struct emu *e)
{
	struct sb_manifest *m = e->m;
	char cwd[4096];

	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC;
	if (!e->o->no_retcomp)
		m->pt.features |= SB_PT_RET_COMPRESSION;
	m->pt.psb_period = e->o->psb_period ? e->o->psb_period : 4096;
	/* The "TSC" is CLOCK_MONOTONIC in ns; time_zero makes it realtime. */
	m->time.time_shift = 0;
	m->time.time_mult = 1;
	m->time.time_zero = (uint64_t)e->mono_to_real;
	m->time.tsc_hz = 1000000000ull;
	if (getcwd(cwd, sizeof(cwd)))
		m->cwd = strdup(cwd);
}

static void write_snapshot(struct emu *e)
{
	struct ptrec_sb_time tm = { .hdr = { .type = PTREC_SB_TIME } };
	struct thr *t;
	struct proc *p;

	tm.time_shift = 0;
	tm.time_mult = 1;
	tm.time_zero = (uint64_t)e->mono_to_real;
	tm.tsc_hz = 1000000000ull;
	tm.realtime_ns = rec_real_ns();
	emu_emit_record(e, &tm.hdr);
	for (p = e->procs; p; p = p->next) {
		emu_proc_set_exe(e, p);
		emu_update_maps(e, p, p->pid, PTREC_SB_F_SNAPSHOT);
	}
	for (t = e->threads; t; t = t->next)
		emu_emit_comm(e, t);
}

/* ---- entry point ----------------------------------------------------- */

static void emu_free(struct emu *e)
{
	while (e->threads) {
		struct thr *t = e->threads;

		e->threads = t->next;
		if (t->opened) {
			ptenc_close(&t->enc);
			emu_truth_release(e, t, UINT64_MAX);
			sb_truth_close(t->truth, NULL);
		}
		free(t);
	}
	while (e->procs) {
		struct proc *p = e->procs;

		e->procs = p->next;
		maps_free(&p->maps);
		rec_snap_rseq_free(&p->rseq);
		free(p);
	}
	rec_images_free(&e->images);
	insn_decoder_free(e->dec);
	free(e->icache);
	free(e->untr);
	sb_bundle_free(e->b);
}

int rec_emu_record(const struct rec_options *o, struct rec_stats *st,
		   struct sb_err *err)
{
	struct emu e = { .o = o, .st = st, .err = err };
	bool made_dir = access(o->out, F_OK) != 0, started = false;
	struct sb_err serr;
	int ret;

	memset(st, 0, sizeof(*st));
	emu_knobs_read(&e.knobs);
	e.last_progress = rec_mono_ns();
	e.mono_to_real = (int64_t)(rec_real_ns() - rec_mono_ns());
	ret = rec_bundle_begin(o, "emu", true, &e.b, &e.sb, &e.snap, &e.error,
			       err);
	if (!e.b)
		return ret;
	if (ret)
		goto out_free;
	e.m = sb_bundle_manifest(e.b);
	e.icache = calloc(ICACHE_SIZE, sizeof(*e.icache));
	e.gen = 1;
	if (!e.icache || insn_decoder_new(&e.dec)) {
		emu_fail(&e, -ENOMEM, "cannot start the instruction decoder");
		goto out_free;
	}
	fill_manifest(&e);
	if (o->argv) {
		ret = emu_launch(&e);
		if (!ret && !emu_thr_new(&e, e.main_pid, e.procs, T_READY))
			ret = e.error;
		/* Past its execve, which cleared its clear_child_tid. */
		if (!ret)
			emu_thr_find(&e, e.main_pid)->ctid_known = true;
		if (!ret)
			emu_get_regs(emu_thr_find(&e, e.main_pid));
	} else {
		ret = emu_attach(&e, o->pid);
	}
	if (ret)
		goto out_kill;
	started = true;
	write_snapshot(&e);
	run(&e);
out_kill:
	emu_finish_live(&e);
	e.m->stop_ns = rec_real_ns();
	if (!e.error) {
		ret = sb_bundle_finish(e.b, &serr);
		if (ret)
			emu_fail(&e, ret, "%s", serr.msg);
	}
out_free:
	ret = e.error;
	rec_snap_stats(&e.snap, st);
	if (!o->quiet && st->insns)
		fputc('\n', stderr);
	emu_free(&e);
	/* Nothing was recorded (no such process, no permission, a program
	 * that cannot run): leave nothing behind.
	 */
	if (ret && !started)
		rec_bundle_unmake(o->out, made_dir);
	return ret;
}
