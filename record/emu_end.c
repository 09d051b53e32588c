// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder, where recordings end: each process's snapshot
 * (at its exit, a fatal signal, or where recording stops or detaches),
 * and the end of the live threads (killed or detached).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"

/* ---- the end-state snapshot ------------------------------------------ */

/*
 * Takes @p's end state once, while its threads are stopped: at its exit
 * (PTRACE_EVENT_EXIT, before the address space goes), at a fatal signal
 * (before the kernel kills it), or where recording stops.  At an execve
 * (SB_SNAP_END_EXEC) the old image's state is taken as one more exec
 * generation, and the process's end is still to come.
 */
void emu_snap_proc(struct emu *e, struct proc *p, uint32_t end,
		      int status, const struct thr *sig_t,
		      const siginfo_t *si)
{
	static struct user_regs_struct adj[256];
	struct rec_snap_thr th[256];
	struct rec_snap_proc rp = { .pid = p->pid, .ppid = p->ppid,
				    .end = end, .status = status,
				    .gen = p->gen, .threads = th, .si = si,
				    .sig_tid = sig_t ? sig_t->tid : 0,
				    .rseq = &p->rseq };
	struct sb_err err;
	struct thr *t;
	int ret;

	if (p->snapped || e->snap.off)
		return;
	if (end == SB_SNAP_END_EXEC)
		p->gen++;
	else
		p->snapped = true;
	for (t = e->threads; t && rp.nthreads < 256; t = t->next) {
		struct user_regs_struct *r = &adj[rp.nthreads];

		/* One that left by its exit event is not there, whether
		 * its death was reaped yet or not (the kernel may have
		 * written its clear_child_tid word: review4.sh exit80reap).
		 */
		if (t->proc != p || t->st == T_DEAD || t->exit_seen)
			continue;
		*r = t->regs;
		if (t->st == T_SYSCALL) {
			/*
			 * Blocked in the system call it was stepped into: as
			 * the kernel shows such a thread, RIP after the
			 * SYSCALL (which set RCX and R11), RAX -ENOSYS.
			 */
			r->rip += 2;
			r->rcx = r->rip;
			r->r11 = r->eflags;
			r->orig_rax = r->rax;
			r->rax = (unsigned long long)-ENOSYS;
		}
		th[rp.nthreads++] = (struct rec_snap_thr){
			t->tid, t->have_regs ? r : NULL,
			end == SB_SNAP_END_EXEC && t->st == T_SYSCALL };
	}
	ret = rec_snap_take(&e->snap, &rp, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
}

static bool others_alive(struct emu *e, struct thr *me)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t != me && t->proc == me->proc && t->st != T_DEAD)
			return true;
	return false;
}

/* @len bytes of @t's memory at @addr; false when not all are readable. */
static bool peek(const struct thr *t, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len };
	struct iovec r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(t->tid, &l, 1, &r, 1, 0) == (ssize_t)len;
}

/*
 * EXIT_FUTEX: at PTRACE_EVENT_EXIT, before exit_mm_release() walks @t's
 * robust list and clears its clear_child_tid word, what the kernel holds
 * (docs/bundle-format.md 6.15): the robust list by get_robust_list(2),
 * the word as followed since the thread began (clone, set_tid_address,
 * exec), and their values now.
 */
static void exit_futex(struct emu *e, struct thr *t)
{
	struct ptrec_sb_exit_futex r = {
		.hdr = { .type = PTREC_SB_EXIT_FUTEX } };
	uint64_t head[3];
	uint32_t v;
	size_t len = 0;
	void *lh = NULL;

	r.pid = (uint32_t)t->proc->pid;
	r.tid = (uint32_t)t->tid;
	if (t->ctid_known) {
		r.known |= PTREC_SB_FUTEX_CTID;
		r.clear_child_tid = t->ctid;
		if (t->ctid && peek(t, t->ctid, &v, sizeof(v))) {
			r.known |= PTREC_SB_FUTEX_CTID_VAL;
			r.ctid_val = v;
		}
	}
	/* A thread older than the recording may hold an i386 list too. */
	if (t->ctid_known && !t->compat_robust &&
	    !syscall(SYS_get_robust_list, t->tid, &lh, &len) &&
	    (!lh || len == PTREC_SB_ROBUST_HEAD_LEN)) {
		r.known |= PTREC_SB_FUTEX_ROBUST;
		r.robust_list = (uint64_t)(uintptr_t)lh;
		r.robust_len = lh ? len : 0;
		if (lh && peek(t, r.robust_list, head, sizeof(head))) {
			r.known |= PTREC_SB_FUTEX_HEAD;
			r.robust_next = head[0];
			r.futex_offset = (int64_t)head[1];
			r.list_op_pending = head[2];
		}
	}
	emu_emit_record(e, &r.hdr);
}

/*
 * Whether another thread of @me's process is in execve/execveat: then
 * @me's exit is de_thread()'s, and the process goes on (in a new image)
 * instead of ending: its end state is still to come.
 */
static bool exec_under_way(struct emu *e, struct thr *me)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t != me && t->proc == me->proc && t->st == T_SYSCALL &&
		    ((long)t->entry.rax == SYS_execve ||
		     (long)t->entry.rax == SYS_execveat))
			return true;
	return false;
}

/*
 * Is @t (stopped at its exit) in exit(2), which ends the thread alone:
 * SYSCALL's 60, or i386's 1 through int 0x80 (tests/values/review4.c
 * exit80: taken for the process's end, its snapshot came at that
 * thread's exit and the process's real end had none)?
 */
static bool lone_exit(const struct thr *t)
{
	long word;

	if (t->st != T_SYSCALL)
		return false;
	if ((long)t->entry.rax == SYS_exit)
		return true;
	if ((uint32_t)t->entry.rax != 1)
		return false;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->ip, 0);
	return !errno && (word & 0xffff) == 0x80cd;	/* cd 80: int 0x80 */
}

/* ---- a group exit ------------------------------------------------------ */

/*
 * A process's group exit (exit_group(2), a fatal signal, the first exit
 * event of a thread not leaving alone) sends SIGKILL to its other threads
 * (Linux zap_other_threads()).  One in a ptrace-stop at an instruction
 * boundary (ready) wakes and stops again at its exit event; stepped by
 * the recorder before that stop was reaped, it would go on out of it,
 * unseen (no EXIT_FUTEX: examples/demo's first worker, tests/values/
 * review4.sh groupsegv).  So from the moment the recorder issues the
 * exit_group or delivers the fatal signal, no other thread of the
 * process is stepped: each comes to its exit event as the kernel kills
 * it.  (A SIGKILL from elsewhere is seen only at the first exit event.)
 */
void emu_group_exit_note(struct thr *t)
{
	if (!t->proc->dying_by)
		t->proc->dying_by = t->tid;
}

/* A SYSCALL step issued (@t->regs as it enters): exit_group's? */
void emu_exit_group_issued(struct thr *t)
{
	uint32_t nr = (uint32_t)t->regs.rax;
	long word;

	if ((nr & 0xbfffffffu) != SYS_exit_group && nr != 252)
		return;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->regs.rip, 0);
	if (errno)
		return;
	/* 231 (x32's too) by SYSCALL (0f 05), i386's 252 by int 0x80 */
	if (((word & 0xffff) == 0x050f && nr != 252) ||
	    ((word & 0xffff) == 0x80cd && nr == 252))
		emu_group_exit_note(t);
}

bool emu_group_exit_held(const struct thr *t)
{
	return t->proc && t->proc->dying_by && t->proc->dying_by != t->tid;
}

/*
 * PTRACE_EVENT_EXIT: the thread is leaving, its process's memory is still
 * there.  A thread that ends alone (exit(2) with others alive) only
 * leaves, and so does one another thread's execve ends; otherwise the
 * process is ending: snapshot it.
 */
void emu_exit_stop(struct emu *e, struct thr *t)
{
	unsigned long msg = 0;

	emu_exit_late(e);
	exit_futex(e, t);
	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	if (!(lone_exit(t) && others_alive(e, t)) && !exec_under_way(e, t)) {
		emu_group_exit_note(t);
		emu_snap_proc(e, t->proc, WIFSIGNALED((int)msg) ?
			  SB_SNAP_END_SIGNAL : SB_SNAP_END_EXIT,
			  WIFSIGNALED((int)msg) ? WTERMSIG((int)msg) :
			  WEXITSTATUS((int)msg), NULL, NULL);
	}
	if (t->st == T_READY && t->enc.enabled)
		emu_enc_check(e, t, ptenc_disable_async(&t->enc, t->regs.rip));
	if (t->st == T_SYSCALL)
		emu_syscall_entered(e, t);	/* exit(2) entered, never returns */
	if (t->st != T_DEAD)
		t->st = T_EXITING;
	t->exit_seen = true;
	ptrace(PTRACE_CONT, t->tid, 0, 0);
}

/* ---- stopping ------------------------------------------------------------ */

/*
 * Detaches a thread in a ptrace-stop.  A thread interrupted inside a
 * system call it was single-stepped into has the step's SIGTRAP pending
 * (raised on the way out of the call): it is taken here, or it would kill
 * the process once detached.
 */
static void detach_thread(struct thr *t)
{
	uint64_t pend = rec_sigmask_of(t->tid, "SigPnd"), m = 0;
	uint64_t trap = 1ull << (SIGTRAP - 1);
	struct user_regs_struct r;
	pid_t tid = t->tid;
	int status, sig;

	/* The step's TF out of RFLAGS: Linux clears it at the detach only
	 * while it knows it set it (not after a stepped POPF, see
	 * emu_get_regs()), and the program would then trap on its own.
	 */
	if (!ptrace(PTRACE_GETREGS, tid, 0, &r) && (r.eflags & 0x100)) {
		r.eflags &= ~0x100ull;
		ptrace(PTRACE_SETREGS, tid, 0, &r);
	}

	/*
	 * A step's trap still pending (a system call's exit report, the call
	 * interrupted by PTRACE_INTERRUPT): taken, with SIGTRAP out of the
	 * mask for it, or a program that blocks SIGTRAP would run on and the
	 * wait never end.  Not the program's SIGTRAP, which its call under
	 * PTRACE_SYSCALL left in the kernel (emu_trapq.c).
	 */
	if ((pend & trap) && !t->trap_sysc &&
	    !ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(m), &m) &&
	    (m & trap)) {
		m &= ~trap;
		if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(m), &m))
			pend = 0;
		m |= trap;
	}
	if ((pend & trap) && !t->trap_sysc &&
	    ptrace(PTRACE_CONT, tid, 0, 0) == 0)
		while (waitpid(tid, &status, __WALL) == tid &&
		       WIFSTOPPED(status) && WSTOPSIG(status) != SIGTRAP)
			ptrace(PTRACE_CONT, tid, 0, WSTOPSIG(status));
	if (m & trap)
		ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(m), &m);
	/* One it holds stays pending for the program (emu_trapq.c). */
	sig = emu_trap_held_si(t) ? emu_trapq_detach(t) : 0;
	ptrace(PTRACE_DETACH, tid, 0, sig);
	emu_trapq_resend(t);
}

/*
 * Ends the recording of live threads: the histories end where each thread
 * is now; a launched program is killed, an attached one detached.
 */
void emu_finish_live(struct emu *e)
{
	struct proc *p;
	struct thr *t;
	int status;
	pid_t tid;

	emu_clone_order_end(e);		/* tests: a parent held (emu_late.c) */
	/*
	 * Let an in-flight step land, so every live thread is stopped.  A
	 * step into a system call that blocks (a restarted pause(), read())
	 * never lands: after 100 ms an attached thread is interrupted, a
	 * launched one is left as blocked in its system call.
	 */
	for (t = e->threads; t; t = t->next) {
		int waited = 0;

		while (t->st == T_STEP) {
			tid = waitpid(t->tid, &status, __WALL | WNOHANG);
			if (tid == t->tid) {
				emu_handle_stop(e, t->tid, status);
				continue;
			}
			if (tid < 0 && errno != EINTR)
				break;
			if (waited++ < 100) {
				usleep(1000);
				continue;
			}
			/* Blocked in a system call it was stepped into (or
			 * in a page fault: emu.c's watchdog).
			 */
			if (!t->blocked)
				t->st = T_SYSCALL;
			break;
		}
	}
	for (p = e->procs; p; p = p->next)
		if (!p->exited && emu_proc_alive(e, p))
			emu_snap_proc(e, p, e->launched ? SB_SNAP_END_STOP :
				  SB_SNAP_END_DETACH, 0, NULL, NULL);
	for (t = e->threads; t; t = t->next) {
		if (t->st == T_DEAD)
			continue;
		emu_thr_close(e, t);
		if (e->launched)
			continue;
		if (t->st == T_SYSCALL || t->blocked) {
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
			waitpid(t->tid, &status, __WALL);
		}
		emu_trap_show(t);
		detach_thread(t);
	}
	/* Let run untraced (a tid reused): detached at their first stop. */
	emu_untr_finish(e);
	/* Stopped before their parent's clone event, never stepped. */
	for (unsigned int i = 0; !e->launched && i < e->nearly; i++)
		ptrace(PTRACE_DETACH, e->early[i], 0, 0);
	e->nearly = 0;
	for (p = e->procs; p; p = p->next) {
		struct ptrec_sb_process_exit pe = {
			.hdr = { .type = PTREC_SB_PROCESS_EXIT } };

		if (p->exited)
			continue;
		p->exited = true;
		pe.pid = (uint32_t)p->pid;
		pe.kind = PTREC_SB_DETACHED;
		emu_emit_record(e, &pe.hdr);
		if (e->launched)
			kill(p->pid, SIGKILL);
	}
	for (t = e->threads; t; t = t->next)
		t->st = T_DEAD;
	/* With PTRACE_O_TRACEEXIT a killed tracee still stops at its exit
	 * event: let it go on, or this waits forever.
	 */
	if (e->launched)
		for (pid_t w; (w = waitpid(-1, &status, __WALL)) > 0;)
			if (WIFSTOPPED(status))
				ptrace(PTRACE_CONT, w, 0, 0);
}
