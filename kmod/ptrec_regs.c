// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: a thread's user registers where its trace starts (REGS of
 * place PTREC_SB_REGS_START, docs/bundle-format.md 6.17), which the values
 * engine takes as the thread's first state.  Written only where the
 * point is known to be the first user instruction the trace shows; a
 * thread for which that cannot be shown gets none (never a guess).
 *
 * The point: tracing (user mode only) is enabled for a thread by its
 * first successful ptrec_load().  When that happens in kernel mode (at a
 * switch-in, or in the thread's own context: ATTACH of itself, a followed
 * thread's task work) the first traced instruction is the one its next
 * return to user mode resumes at.  Linux 6.1 kernel/entry/common.c
 * exit_to_user_mode_loop() handles _TIF_SIGPENDING (a handler's frame,
 * a system call's restart: arch_do_signal_or_restart()) before
 * _TIF_NOTIFY_RESUME (resume_user_mode_work(): task_work_run()), so a
 * TWA_RESUME task work, queued before the thread is published, sees
 * task_pt_regs() as that return leaves them.  An enable by IPI
 * (ptrec_kick_fn() on a thread running elsewhere) may have hit user mode:
 * no record.  Task works also run inside get_signal() (before a frame),
 * ptrace_notify() and io_uring (inside a system call: rax is not its
 * result yet), all with TIF_NOTIFY_RESUME still set, which the loop
 * clears first: a task work that finds it set takes nothing, but on a
 * new task's first return (ptrec_regs_birth_ok(): a thread ptrace
 * attaches at its creation starts with a SIGSTOP stop in get_signal()).
 * KVM's xfer_to_guest_mode_work() clears it too, inside the KVM_RUN
 * ioctl: nothing is taken after an ioctl.
 *
 * Two things can still change the registers after the task work, and are
 * refused or watched:
 * - resume_user_mode_work() calls rseq_handle_notify_resume() after
 *   task_work_run(), which moves rip out of an rseq critical section:
 *   a thread with an rseq area registered gets no record (the launched
 *   program's first thread after exec and new threads have none yet);
 * - the loop runs again when work arrived meanwhile (a signal: get_signal()
 *   fires signal_deliver before any frame or restart; a ptrace or job
 *   control stop, where a tracer may set registers: the thread switches
 *   out TASK_TRACED or TASK_STOPPED).  At either, registers still equal
 *   to those taken may not have reached user mode yet: the record is
 *   dropped (but at a stop of a thread ptraced by the session's owner,
 *   ptrec's launcher, which never sets registers); different ones prove
 *   the thread ran in user mode since, and the record stands.  (uprobes:
 *   a thread with a uprobe task, which may be single-stepping out of
 *   line, gets none.)
 *
 * The record is written when the thread is released, after its last
 * drain, and only if its stream lost nothing (no LOST record of any kind:
 * with a hole before it the trace's first instruction would be a later
 * one).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <asm/fsgsbase.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "ptrec_internal.h"

struct ptrec_regs_work {
	struct callback_head cb;
	bool birth;
};

/* Registers set in the record: rax..r15, rip, rflags, cs, ss, fs_base. */
#define PTREC_REGS_VALID	(GENMASK_ULL(19, 0) | BIT_ULL(24))

/*
 * A new task's first return to user mode (@birth: queued by the task
 * work that attached it, ptrec_thread.c's ptrec_pending_fn(), which the
 * fork queued before the task first ran) runs its task works in
 * get_signal() when a signal is pending first: under ptrec record, the
 * SIGSTOP ptrace gives every thread it attaches at birth.  It has made
 * no system call yet, so no io_uring or ptrace_notify() but the system
 * call exit stop, refused by its work bits (the clone's return in the
 * child: syscall_exit_work()).  What get_signal() does after the task
 * works: a handler's frame (signal_deliver drops the record), a stop
 * where a tracer may set registers (dropped unless the tracer is the
 * session's owner: ptrec_regs_stop()); no restart (the child's rax is
 * the clone's 0); and it has no rseq area yet.
 */
static bool ptrec_regs_birth_ok(void)
{
	return !(READ_ONCE(current_thread_info()->syscall_work) &
		 (SYSCALL_WORK_SYSCALL_TRACE | SYSCALL_WORK_SYSCALL_EMU |
		  SYSCALL_WORK_SYSCALL_EXIT_TRAP));
}

/* Whether current's registers must not be taken. */
static bool ptrec_regs_refused(const struct pt_regs *regs, bool birth)
{
	long ax = (long)regs->ax;

	if (current->flags & PF_EXITING)
		return true;
	/*
	 * Not run by the loop's resume_user_mode_work(), which clears the
	 * flag first (our TWA_RESUME set it): by get_signal() before a
	 * frame, ptrace_notify() or io_uring inside a system call, whose
	 * result rax does not hold yet.  KVM's xfer_to_guest_mode_work()
	 * clears it too, inside the KVM_RUN ioctl: none after an ioctl.
	 * A new task's first return: only get_signal() (above).
	 */
	if (test_thread_flag(TIF_NOTIFY_RESUME) &&
	    !(birth && ptrec_regs_birth_ok()))
		return true;
	if ((long)regs->orig_ax == __NR_ioctl)
		return true;
	/* compatibility mode: the replay decodes 64-bit code only */
	if (!user_64bit_mode((struct pt_regs *)regs))
		return true;
#ifdef CONFIG_RSEQ
	if (current->rseq)
		return true;
#endif
#ifdef CONFIG_UPROBES
	if (current->utask)
		return true;
#endif
	/* a restart still to be made (cannot be here: belt and braces) */
	return ax >= -ERESTART_RESTARTBLOCK && ax <= -ERESTARTSYS;
}

/* Context: t->lock held, current is @t's task, on its way to user mode. */
static void ptrec_regs_take(struct ptrec_thread *t, struct pt_regs *regs)
{
	t->start_regs = *regs;
	t->start_forced_tf = test_thread_flag(TIF_FORCED_TF);
	t->start_fsbase = x86_fsbase_read_cpu();
	t->start_tid = t->tid;
	t->start = PTREC_START_TAKEN;
}

/* Task work: current returns to user mode once the loop is done. */
static void ptrec_regs_fn(struct callback_head *cb)
{
	struct ptrec_regs_work *w = container_of(cb, struct ptrec_regs_work,
						 cb);
	struct pt_regs *regs = task_pt_regs(current);
	struct ptrec_thread *t;
	unsigned long flags;

	rcu_read_lock();
	t = ptrec_thread_find(current);
	if (t) {
		raw_spin_lock_irqsave(&t->lock, flags);
		if (t->start != PTREC_START_TIED) {
			if (t->start == PTREC_START_NONE)
				t->start = PTREC_START_DROPPED;
		} else if (ptrec_regs_refused(regs, w->birth)) {
			t->start = PTREC_START_DROPPED;
		} else {
			ptrec_regs_take(t, regs);
		}
		raw_spin_unlock_irqrestore(&t->lock, flags);
	}
	rcu_read_unlock();
	ptrec_kfree(w);
	module_put(THIS_MODULE);
}

/**
 * ptrec_regs_arm() - take @task's registers at its next return to user mode
 * @s:		the session.
 * @task:	the thread, not yet published.
 * @notify:	TWA_RESUME; TWA_NONE for current inside task_work_run(),
 *		which runs it in the same pass (with TIF_NOTIFY_RESUME
 *		still clear on the loop's return): a new task's first
 *		return to user mode (ptrec_regs_birth_ok()).
 *
 * Best effort: without it the thread has no REGS record.
 * Context: process context.
 */
void ptrec_regs_arm(struct ptrec_session *s, struct task_struct *task,
		    enum task_work_notify_mode notify)
{
	struct ptrec_regs_work *w;

	if (s->cfg.flags & PTREC_CFG_KERNEL)	/* trace starts in the kernel */
		return;
	if (!try_module_get(THIS_MODULE))
		return;
	w = ptrec_kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		goto err_module_put;
	w->birth = notify == TWA_NONE;
	init_task_work(&w->cb, ptrec_regs_fn);
	if (task_work_add(task, &w->cb, notify))
		goto err_free;
	return;

err_free:
	ptrec_kfree(w);
err_module_put:
	module_put(THIS_MODULE);
}

/**
 * ptrec_regs_loaded() - @t was loaded
 * @t:		the thread.
 * @tied:	in kernel mode, in @t's own context (not an IPI's).
 *
 * Context: t->lock held.
 */
void ptrec_regs_loaded(struct ptrec_thread *t, bool tied)
{
	if (t->start == PTREC_START_NONE)
		t->start = tied ? PTREC_START_TIED : PTREC_START_DROPPED;
}

/*
 * Registers taken, not yet seen left: may the loop have changed them?
 * @stop: at a ptrace or job control stop, where only a tracer can change
 * them: a thread ptraced by the session's owner keeps them (a thread
 * not ptraced may be attached while it stands stopped).
 */
static void ptrec_regs_check(struct ptrec_thread *t, bool stop)
{
	bool owner = stop && current->ptrace && ptrec_traced_by_owner(t);
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	if (t->start == PTREC_START_TAKEN) {
		if (memcmp(task_pt_regs(current), &t->start_regs,
			   sizeof(t->start_regs)))
			t->start = PTREC_START_PROVEN;
		else if (!owner)
			t->start = PTREC_START_DROPPED;
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * ptrec_regs_stop() - current, @t, switches out in @state
 * @t:		the thread.
 * @state:	its state (sched_switch's prev_state).
 *
 * Context: sched_switch, preemption disabled.
 */
void ptrec_regs_stop(struct ptrec_thread *t, unsigned int state)
{
	if (state & (__TASK_TRACED | __TASK_STOPPED))
		ptrec_regs_check(t, true);
}

static void ptrec_probe_deliver(void *data, int sig,
				struct kernel_siginfo *info,
				struct k_sigaction *ka)
{
	struct ptrec_thread *t;

	rcu_read_lock();
	t = ptrec_thread_find(current);
	if (t) {
		ptrec_regs_check(t, false);
		ptrec_sysregs_deliver(t, sig, info, ka);
	}
	rcu_read_unlock();
}

/**
 * ptrec_regs_emit() - @t's REGS start record, if it has a sound one
 * @t:	the thread, released: its stream is complete.
 *
 * Context: process context.
 */
void ptrec_regs_emit(struct ptrec_thread *t)
{
	const struct pt_regs *r = &t->start_regs;
	struct ptrec_sb_regs g = {
		.hdr.type = PTREC_SB_REGS,
		.pid = t->pid,
		.tid = t->tid,
		.where = PTREC_SB_REGS_START,
		.valid = PTREC_REGS_VALID,
		.regs = { r->ax, r->bx, r->cx, r->dx, r->si, r->di, r->bp,
			  r->sp, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
			  r->r14, r->r15, r->ip, r->flags, r->cs, r->ss },
	};
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&t->lock, flags);
	/* (a thread that exec'd from another thread changed its tid) */
	ok = (t->start == PTREC_START_TAKEN ||
	      t->start == PTREC_START_PROVEN) && t->start_tid == t->tid;
	raw_spin_unlock_irqrestore(&t->lock, flags);
	spin_lock_irqsave(&t->s->q_lock, flags);
	ok = ok && !t->nr_losses;
	spin_unlock_irqrestore(&t->s->q_lock, flags);
	if (!ok)
		return;
	/*
	 * The program's rflags: bit 1 is always 1 (the kernel's frame for a
	 * new image holds X86_EFLAGS_IF alone, start_thread_common()), and
	 * no trap flag a ptracer's step set (as ptrace's get_flags()).
	 */
	g.regs[17] |= X86_EFLAGS_FIXED;
	if (t->start_forced_tf)
		g.regs[17] &= ~X86_EFLAGS_TF;
	g.regs[24] = t->start_fsbase;
	ptrec_q_record(t->s, &g, sizeof(g), NULL, 0);
}

static struct tracepoint *ptrec_tp_deliver;

static void ptrec_find_deliver(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "signal_deliver"))
		ptrec_tp_deliver = tp;
}

/**
 * ptrec_regs_init() - watch signal deliveries
 *
 * Return: 0 or a negative errno.
 */
int ptrec_regs_init(void)
{
	for_each_kernel_tracepoint(ptrec_find_deliver, NULL);
	if (!ptrec_tp_deliver) {
		pr_err("tracepoint signal_deliver not found\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(ptrec_tp_deliver,
					 ptrec_probe_deliver, NULL);
}

/**
 * ptrec_regs_exit() - stop watching them
 */
void ptrec_regs_exit(void)
{
	tracepoint_probe_unregister(ptrec_tp_deliver, ptrec_probe_deliver,
				    NULL);
	tracepoint_synchronize_unregister();
}
