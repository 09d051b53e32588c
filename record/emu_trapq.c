// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The SIGTRAP the software recorder holds for the program (emu_trap.c
 * emu_trap_held(): sent while its mask holds SIGTRAP, which the kernel's
 * does not while the thread is stepped) handed back to the kernel where
 * the program asks the kernel, not its mask, for its pending signals:
 * rt_sigtimedwait (sigwaitinfo, sigtimedwait) and a signalfd (its read,
 * and poll, select or epoll_wait on it), which natively dequeue or see a
 * pending signal of their set, blocked or not; and where `-p` detaches,
 * where the program keeps it pending.  Split from emu_trap.c, which holds
 * it and delivers it where the mask lets it through.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"
#include "skel.h"

/*
 * Is @t stopped at a SIGTRAP's signal-delivery-stop (a step's trap, the
 * program's own), where a signal the tracer resumes it with is the one
 * the kernel goes on with (kernel/signal.c ptrace_signal())?  Not an
 * event or a system call's stop (si_code SIGTRAP | event << 8).
 */
bool emu_trap_delivery_stop(const struct thr *t)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    si.si_signo != SIGTRAP)
		return false;
	return si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT ||
	       si.si_code == SI_KERNEL || si.si_code == SI_USER ||
	       si.si_code == SI_TKILL || si.si_code == SI_QUEUE;
}

/* The set of signalfd @fd of @t (its fdinfo's sigmask), 0 if none. */
static uint64_t sfd_set(const struct thr *t, int fd)
{
	char path[64], line[128];
	unsigned long long m = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->tid, fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "sigmask: %llx", &m) == 1)
			break;
	fclose(f);
	return m;
}

/*
 * The signals whose pending state the SYSCALL @t is about to run
 * (registers t->regs) looks at, when SIGTRAP is one; else 0.
 * rt_sigtimedwait (set, info, timeout, sigsetsize): its set; read or
 * readv of a signalfd: its set; poll, select and epoll_wait, any of
 * whose files may be a signalfd (not asked: the call ends when one is
 * ready, as natively): SIGTRAP alone.  So too the calls with a
 * temporary mask (ppoll, pselect6, epoll_pwait, epoll_pwait2) without
 * one, or with one that blocks SIGTRAP, which emu_trap_strip() took
 * out of its word for the call (@t->trap_set_at; one that lets it
 * through has it delivered: emu_trap.c trap_requeue()).
 */
static uint64_t pending_set(const struct thr *t)
{
	const struct user_regs_struct *r = &t->regs;
	uint64_t set = 0;
	struct iovec l = { &set, 8 };
	struct iovec rm = { (void *)(uintptr_t)r->rdi, 8 };

	if (emu_byte_at(t, r->rip) != 0x0f ||
	    emu_byte_at(t, r->rip + 1) != 0x05)
		return 0;	/* int $0x80: 32-bit numbers */
	switch ((long)r->rax) {
	case SYS_rt_sigtimedwait:
		if (r->r10 != 8 ||
		    process_vm_readv(t->tid, &l, 1, &rm, 1, 0) != 8)
			return 0;
		break;
	case SYS_read:
	case SYS_readv:
		set = sfd_set(t, (int)r->rdi);
		break;
	case SYS_poll:
	case SYS_select:
	case SYS_epoll_wait:
		return TRAP_BIT;
	case SYS_ppoll:
	case SYS_epoll_pwait:
	case 441:	/* epoll_pwait2 */
		return !r->r8 || t->trap_set_at ? TRAP_BIT : 0;
	case SYS_pselect6:
		return !r->r9 || t->trap_set_at ? TRAP_BIT : 0;
	default:
		return 0;
	}
	return set & TRAP_BIT ? set : 0;
}

/*
 * At the issue of a SYSCALL step while @t holds a SIGTRAP (@t->trap_pend,
 * its mask holding SIGTRAP: @t->trap_hidden) and the call looks at its
 * pending signals (pending_set()): the held signal goes back to the
 * kernel for the call, as trap_requeue() in emu_trap.c does for a
 * temporary mask that lets it through.  SIGTRAP is put back into the
 * thread's mask, and the step resumed with it and its siginfo; finding
 * it blocked, the kernel queues it again (ptrace_signal()), and the call
 * sees it pending as natively: rt_sigtimedwait dequeues it with its
 * siginfo (in the kernel's order among the set's pending signals), a
 * signalfd is ready and its read dequeues it.
 *
 * With SIGTRAP blocked, the step's forced trap at the call's exit would
 * reset the program's handler (emu_trap.c); so the call is not stepped
 * but run under PTRACE_SYSCALL, whose stops at its entry and exit are
 * reports, not signals (emu_trapq_stop()).  Returns the signal to resume
 * with (SIGTRAP, @t->trap_sysc set: resumed with PTRACE_SYSCALL), or 0.
 */
int emu_trapq_issue(struct thr *t)
{
	siginfo_t *held = emu_trap_held_si(t);
	uint64_t m, set;

	if (!held || !t->trap_hidden || t->trap_tmp || t->trap32 || t->tf)
		return 0;
	set = pending_set(t);
	if (!set)
		return 0;
	/* Process-directed (kill, sigqueue: the process's queue), it comes
	 * after the thread's own pending signals of the set; given back it
	 * is the thread's, so it waits for them.
	 */
	if (held->si_code != SI_TKILL &&
	    (rec_sigmask_of(t->tid, "SigPnd") & set & ~TRAP_BIT))
		return 0;
	if (!emu_trap_delivery_stop(t) ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(m), &m) < 0 ||
	    ptrace(PTRACE_SETSIGINFO, t->tid, 0, held) < 0)
		return 0;
	m |= TRAP_BIT;
	if (ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m) < 0)
		return 0;	/* the stop's siginfo: the step's, unused */
	t->trap_hidden = false;
	emu_trap_taken(t);
	t->trap_sysc = TRAPQ_ENTRY;
	/* Not stepped: its temporary mask blocks SIGTRAP as the program's. */
	emu_trap_restore(t, false);
	return SIGTRAP;
}

/*
 * Is a SIGTRAP pending for @t alone (its queue, where the held one went
 * back)?  Only @t can take it, so resumed it stops for it before any
 * instruction; one in its process's queue another thread may take first.
 */
static bool trap_pending(const struct thr *t)
{
	return rec_sigmask_of(t->tid, "SigPnd") & TRAP_BIT;
}

/*
 * A stop (@status) of @t while its call runs under PTRACE_SYSCALL
 * (emu_trapq_issue()).  The call's entry: resumed.  Its exit: SIGTRAP
 * out of the thread's mask again (emu_trap_hide()), and the step is done
 * (TRAPQ_DONE: the caller takes the stop as the step's end, the
 * registers the call's result).  The call left the signal pending (poll
 * on a signalfd, rt_sigtimedwait that dequeued a signal before it): the
 * kernel, seeing it unblocked now, reports it on the way out; resumed
 * to that stop (TRAPQ_BACK), it is held again with its siginfo, and that
 * stop ends the step.  Anything else (another signal before the SYSCALL
 * ran, an exit): SIGTRAP out of the mask, the stop handled as any
 * (TRAPQ_NONE; a signal left pending is reported later, and held).
 */
int emu_trapq_stop(struct thr *t, int status)
{
	siginfo_t si;
	bool call;

	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP ||
	    status >> 16 || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    si.si_signo != SIGTRAP)
		goto other;
	call = si.si_code == SIGTRAP || si.si_code == (SIGTRAP | 0x80);
	if (call && t->trap_sysc == TRAPQ_ENTRY) {
		t->trap_sysc = TRAPQ_EXIT;
		if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0)
			t->st = T_EXITING;
		return TRAPQ_RESUMED;
	}
	if (call && t->trap_sysc == TRAPQ_EXIT) {
		bool left = trap_pending(t);
		long ret;

		/* A temporary mask's call interrupted: its mask stays until
		 * the delivery (emu_trap.c, trap_tmp), untouched; one left
		 * pending comes after it.
		 */
		errno = 0;
		ret = ptrace(PTRACE_PEEKUSER, t->tid,
			     (void *)offsetof(struct user_regs_struct, rax), 0);
		if (emu_trap_tmp_mask_call((long)t->entry.rax) && !errno &&
		    (ret == -EINTR || ret == -514)) {	/* ERESTARTNOHAND */
			t->trap_sysc = TRAPQ_NONE;
			return TRAPQ_DONE;
		}
		emu_trap_hide(t);
		if (!left) {
			t->trap_sysc = TRAPQ_NONE;
			return TRAPQ_DONE;
		}
		t->trap_sysc = TRAPQ_BACK;
		if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0)
			t->st = T_EXITING;
		return TRAPQ_RESUMED;
	}
	if (t->trap_sysc == TRAPQ_BACK && emu_trap_held(t, &si)) {
		t->trap_sysc = TRAPQ_NONE;
		return TRAPQ_DONE;	/* resumed without it: held */
	}
other:
	t->trap_sysc = TRAPQ_NONE;
	emu_trap_hide(t);
	return TRAPQ_NONE;
}

/*
 * Where `-p` detaches @t (its mask as the program has it, emu_trap_show()
 * done) while it holds a SIGTRAP: natively pending, the program takes it
 * once its mask lets it through, so it goes back to the kernel.  The
 * detach resumes it with the held signal and its siginfo, which the
 * kernel, finding it blocked, queues (ptrace_signal()): at a SIGTRAP's
 * delivery stop with no signal of its own to deliver.  At
 * PTRACE_INTERRUPT's stop (in a system call) one is made: SIGTRAP out of its
 * mask, the recorder's tgkill reported before it runs on (a pending
 * signal is dequeued before the return to user space; the call, not
 * interrupted by a delivery, restarts after the detach), the mask back.
 * Returns the signal to detach with (SIGTRAP), or 0.
 */
int emu_trapq_detach(struct thr *t)
{
	siginfo_t si, *held = emu_trap_held_si(t);
	uint64_t m;
	int status;

	if (!held || t->pending_sig)
		return 0;
	if (!emu_trap_delivery_stop(t)) {
		if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) ||
		    si.si_code != (SIGTRAP | PTRACE_EVENT_STOP << 8) ||
		    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(m), &m) ||
		    !(m & TRAP_BIT))
			return 0;
		m &= ~TRAP_BIT;
		if (ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m) ||
		    syscall(SYS_tgkill, t->proc->pid, t->tid, SIGTRAP) ||
		    ptrace(PTRACE_CONT, t->tid, 0, 0))
			return 0;
		while (waitpid(t->tid, &status, __WALL) == t->tid &&
		       WIFSTOPPED(status) && WSTOPSIG(status) != SIGTRAP)
			ptrace(PTRACE_CONT, t->tid, 0, WSTOPSIG(status));
		m |= TRAP_BIT;
		if (!WIFSTOPPED(status) ||
		    ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m))
			return 0;
	}
	if (ptrace(PTRACE_SETSIGINFO, t->tid, 0, held) < 0)
		return 0;
	emu_trap_taken(t);
	return SIGTRAP;
}

/*
 * The held SIGTRAP @t's detach could not hand on (emu_trapq_detach()):
 * sent to it anew, by sigqueue's (its value kept) or as tgkill (the
 * sender then the recorder, not the one it came from).
 */
void emu_trapq_resend(struct thr *t)
{
	siginfo_t si, *held = emu_trap_held_si(t);

	if (!held)
		return;
	si = *held;
	emu_trap_taken(t);
	if (si.si_code == SI_QUEUE &&
	    !syscall(SYS_rt_tgsigqueueinfo, t->proc->pid, t->tid, SIGTRAP,
		     &si))
		return;
	syscall(SYS_tgkill, t->proc->pid, t->tid, SIGTRAP);
}
