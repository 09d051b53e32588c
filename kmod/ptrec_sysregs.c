// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: a traced thread's registers as a 64-bit SYSCALL instruction
 * completes (REGS of place PTREC_SB_REGS_SYSCALL, docs/bundle-format.md
 * 6.17): rax (the result), rcx and r11 (as SYSRET loads them: the return
 * address and the flags) and rip.  The values engine takes them at the
 * state after the SYSCALL the record's time finds.  No engine can know
 * a system call's result from the trace; the kernel has it in hand.
 *
 * Where: the sys_exit tracepoint, in syscall_exit_work() (Linux 6.1
 * kernel/entry/common.c), before exit_to_user_mode_loop().  The record's
 * time (the queue's TSC) lies after the SYSCALL retired and before the
 * thread's next user instruction.  What the loop or a tracer can still
 * do, and why each case is refused, kept or made visible (not emitting
 * what is not true), is at ptrec_sysregs_shape() and ptrec_sysregs_ok().
 *
 * Cost: registering a probe on sys_exit sets SYSCALL_WORK_SYSCALL_TRACEPOINT
 * on every task of the system (syscall_regfunc()), which then takes the
 * slow exit path; so the probe is registered only while a session wants
 * the records (PTREC_CFG_NO_SYSREGS turns them off) and the probe's first
 * tests need no lookup.  A record is left out when the queue is three
 * quarters full (ptrec_q_record_spare()): it must not crowd out records
 * whose loss would cost the replay.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/entry-common.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "ptrec_internal.h"

/*
 * The 16 general-purpose registers and rip, in enum sb_reg order (the
 * record's regs[]): rax, rcx and r11 as the call left them, the others
 * as the user had them, unchanged by the return (since session 18: the
 * values engine's anchors far from the end).  Not rflags: the user gets
 * r11 through SYSRET's mask (SDM Vol. 2B, SYSRET), which is the kernel's
 * choice of exit, not a value here.
 */
#define SR_RIP	16
#define PTREC_SYSREGS_VALID	GENMASK_ULL(SR_RIP, 0)

/* A ptrace stop follows the tracepoint in syscall_exit_work(). */
#define PTREC_SYSREGS_TRACED	(SYSCALL_WORK_SYSCALL_TRACE | \
				 SYSCALL_WORK_SYSCALL_EMU | \
				 SYSCALL_WORK_SYSCALL_EXIT_TRAP)

static struct tracepoint *ptrec_tp_sys_exit;
static DEFINE_MUTEX(ptrec_sysregs_lock);
static unsigned int ptrec_sysregs_users;

/*
 * Does current return to user mode as the SYSCALL instruction that
 * entered left it, with these registers?  Only what the kernel's own
 * state says; the thread's tracer is ptrec_sysregs_ok()'s.
 */
static bool ptrec_sysregs_shape(const struct pt_regs *regs)
{
	long nr = syscall_get_nr(current, (struct pt_regs *)regs);
	long ax = (long)regs->ax;

	/*
	 * int $0x80, SYSENTER and SYSCALL from compatibility mode enter
	 * through the compat entries (arch/x86/entry/common.c), which set
	 * TS_COMPAT; arch_exit_to_user_mode_prepare() clears it after this
	 * tracepoint.  Clear: entry_SYSCALL_64, a 64-bit SYSCALL.
	 */
	if (in_ia32_syscall())
		return false;
	/*
	 * These do not return to the instruction after the SYSCALL:
	 * rt_sigreturn loads a signal frame's registers, orig_ax -1 among
	 * them (restore_sigcontext(): "disable syscall checks"), as does a
	 * tracer that skips a call; a successful execve returns to a new
	 * image's entry (a failed one returns normally: not worth telling
	 * apart).  x32 (__X32_SYSCALL_BIT) has numbers of its own: none.
	 */
	if (nr < 0 || nr & __X32_SYSCALL_BIT || nr == __NR_rt_sigreturn ||
	    nr == __NR_execve || nr == __NR_execveat)
		return false;
	/* only a return to 64-bit code, which the replay decodes */
	if (!user_64bit_mode((struct pt_regs *)regs))
		return false;
	/*
	 * What SYSCALL saved: rcx = the return address, which
	 * entry_SYSCALL_64 pushes as both ip and cx, and r11 = RFLAGS, as
	 * both flags and r11.  No 64-bit system call but the two above
	 * changes them; a tracer may (and any mismatch is refused here).
	 * SYSRET needs this too; where it is taken, the user sees rip = rcx
	 * and RFLAGS = r11, and on the IRET path rcx and r11 as here too.
	 */
	if (regs->cx != regs->ip || regs->r11 != regs->flags)
		return false;
	/*
	 * A result of -ERESTART*: arch_do_signal_or_restart() and
	 * handle_signal() (arch/x86/kernel/signal.c) act only on these,
	 * making them -EINTR or rewinding ip by 2 to restart the call (with
	 * rax = orig_ax or restart_syscall's number).  Any other result
	 * reaches the user, or a signal frame, as it is.
	 */
	return ax < -ERESTART_RESTARTBLOCK || ax > -ERESTARTSYS;
}

/*
 * What may change current's registers between this tracepoint and its
 * return, and is not the kernel's own exit path:
 * - a ptrace stop right after the tracepoint (PTRACE_SYSCALL, SYSEMU, a
 *   single step: syscall_exit_work() -> ptrace_report_syscall_exit()):
 *   refused by its work bits;
 * - a tracer's PTRACE_SETREGS at a stop in exit_to_user_mode_loop()
 *   (signal delivery, group stop, PTRACE_INTERRUPT) or at the call's
 *   entry (seccomp's RET_TRACE, PTRACE_SYSCALL's entry stop: a moved
 *   ip and cx together pass the shape test): a thread traced by anyone
 *   but the session's owner gets none.  ptrec's kmod launcher
 *   (record/kmod.c) is that owner and never writes registers.
 * Not refused, and why true:
 * - a signal delivered in the loop: the frame holds these registers and
 *   the thread's next instruction is the handler's, whose entry the
 *   engine finds is not at rip; where it is (a handler at the return
 *   address), ptrec_sysregs_deliver() writes a SIGNAL record, which
 *   makes the engine take none;
 * - the loop's rseq fix-up (resume_user_mode_work()): it moves ip only
 *   (to an abort handler; rax, rcx, r11 stay), and never to rip: the 4
 *   bytes before an abort handler are RSEQ_SIG (0x53053053: ends 05 53),
 *   the 2 before rip the SYSCALL (0f 05);
 * - task works and uprobes (a SYSCALL cannot be probed: arch/x86/kernel/
 *   uprobes.c refuses 0f 05) change no user registers.
 */
static bool ptrec_sysregs_ok(struct ptrec_thread *t)
{
	if (READ_ONCE(current_thread_info()->syscall_work) &
	    PTREC_SYSREGS_TRACED)
		return false;
	if (!t->s->sysregs || READ_ONCE(t->dead) || READ_ONCE(t->stopped) ||
	    t->tid != current->pid)
		return false;
	return ptrec_traced_by_owner(t);
}

/**
 * ptrec_traced_by_owner() - may only @t's session owner set its registers?
 * @t:	the thread, current.
 *
 * Context: any; takes the RCU read lock.
 * Return: true when it is not ptraced, or ptraced by the thread group
 * that attached the session: ptrec's kmod launcher (record/kmod.c),
 * which never writes registers.
 */
bool ptrec_traced_by_owner(struct ptrec_thread *t)
{
	struct task_struct *tracer;
	bool ok;

	if (!current->ptrace)
		return true;
	rcu_read_lock();
	tracer = ptrace_parent(current);
	ok = tracer && t->s->owner && task_tgid(tracer) == t->s->owner;
	rcu_read_unlock();
	return ok;
}

static void ptrec_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ptrec_sb_regs g = {
		.hdr.type = PTREC_SB_REGS,
		.where = PTREC_SB_REGS_SYSCALL,
		.valid = PTREC_SYSREGS_VALID,
	};
	struct ptrec_thread *t;

	if (!ptrec_sysregs_shape(regs))
		return;
	rcu_read_lock();
	t = ptrec_thread_find(current);
	if (t && ptrec_sysregs_ok(t)) {
		g.pid = t->pid;
		g.tid = t->tid;
		g.regs[0] = regs->ax;
		g.regs[1] = regs->bx;
		g.regs[2] = regs->cx;
		g.regs[3] = regs->dx;
		g.regs[4] = regs->si;
		g.regs[5] = regs->di;
		g.regs[6] = regs->bp;
		g.regs[7] = regs->sp;
		g.regs[8] = regs->r8;
		g.regs[9] = regs->r9;
		g.regs[10] = regs->r10;
		g.regs[11] = regs->r11;
		g.regs[12] = regs->r12;
		g.regs[13] = regs->r13;
		g.regs[14] = regs->r14;
		g.regs[15] = regs->r15;
		g.regs[SR_RIP] = regs->ip;
		if (!ptrec_q_record_spare(t->s, &g, sizeof(g)))
			WRITE_ONCE(t->sys_rip, regs->ip);
	}
	rcu_read_unlock();
}

/**
 * ptrec_sysregs_deliver() - current, @t, gets signal @sig (signal_deliver)
 * @t:		the thread.
 * @sig:	the signal.
 * @info:	its information, or NULL.
 * @ka:		its action, or NULL.
 *
 * A handler whose entry is the return address of @t's last system call
 * record, entered while the thread still stands there (the frame goes
 * to it next): the trace's next instruction after the SYSCALL is then
 * the handler's, at the record's rip, with rax 0 (the kernel's handler
 * entry), not the call's result.  A SIGNAL record, which is true (this
 * signal is delivered, a handler runs next), tells the engine (no
 * system call record is used across a SIGNAL of the thread).
 *
 * Context: get_signal(), siglock held.
 */
void ptrec_sysregs_deliver(struct ptrec_thread *t, int sig,
			   struct kernel_siginfo *info, struct k_sigaction *ka)
{
	unsigned long rip = READ_ONCE(t->sys_rip);
	struct ptrec_sb_signal r = {
		.hdr.type = PTREC_SB_SIGNAL,
		.signo = sig,
		.sflags = PTREC_SB_SIG_HANDLED,
	};

	/* (a group exit's SIGKILL comes without either: get_signal()) */
	if (!rip || !ka || (unsigned long)ka->sa.sa_handler != rip ||
	    task_pt_regs(current)->ip != rip)
		return;
	if (info)
		r.code = info->si_code;
	r.pid = t->pid;
	r.tid = t->tid;
	ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
}

static void ptrec_find_sys_exit(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_exit"))
		ptrec_tp_sys_exit = tp;
}

/**
 * ptrec_sysregs_get() - @s wants system call records
 * @s:	the session, being attached.
 *
 * The first user registers the sys_exit probe.
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int ptrec_sysregs_get(struct ptrec_session *s)
{
	int ret = 0;

	if (!ptrec_tp_sys_exit)
		return -ENOENT;
	mutex_lock(&ptrec_sysregs_lock);
	if (!ptrec_sysregs_users)
		ret = tracepoint_probe_register(ptrec_tp_sys_exit,
						ptrec_probe_sys_exit, NULL);
	if (!ret) {
		ptrec_sysregs_users++;
		s->sysregs = true;
	}
	mutex_unlock(&ptrec_sysregs_lock);
	return ret;
}

/**
 * ptrec_sysregs_put() - @s is done with them
 * @s:	the session.
 *
 * The last user unregisters the probe (the tasks' slow exit path ends;
 * at unload, ptrec_regs_exit()'s tracepoint_synchronize_unregister()
 * waits for a probe still running).
 * Context: process context.
 */
void ptrec_sysregs_put(struct ptrec_session *s)
{
	if (!s->sysregs)
		return;
	mutex_lock(&ptrec_sysregs_lock);
	s->sysregs = false;
	if (!--ptrec_sysregs_users)
		tracepoint_probe_unregister(ptrec_tp_sys_exit,
					    ptrec_probe_sys_exit, NULL);
	mutex_unlock(&ptrec_sysregs_lock);
}

/**
 * ptrec_sysregs_init() - find the sys_exit tracepoint
 *
 * Without it (CONFIG_HAVE_SYSCALL_TRACEPOINTS off) sessions get no system
 * call records.
 */
void ptrec_sysregs_init(void)
{
	for_each_kernel_tracepoint(ptrec_find_sys_exit, NULL);
	if (!ptrec_tp_sys_exit)
		pr_info("no sys_exit tracepoint: no system call records\n");
}
