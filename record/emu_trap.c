// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The program's own signals under the software recorder's single steps
 * (emu.h): its SIGTRAPs told from the steps' traps, SIGTRAP kept out of
 * its blocked mask while it is stepped (or the steps' traps would reset
 * its handler), and its group stops.  Split from emu_step.c, which
 * decides what each stop means for the history.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "emu.h"

/* The byte of @t's memory at @addr, or -1. */
int emu_byte_at(const struct thr *t, uint64_t addr)
{
	uint8_t b;
	struct iovec l = { &b, 1 };
	struct iovec r = { (void *)(uintptr_t)addr, 1 };

	return process_vm_readv(t->tid, &l, 1, &r, 1, 0) == 1 ? b : -1;
}

/*
 * SIGTRAP blocked while the program is stepped: every step's trap
 * (force_sig_fault()) then finds it blocked, and Linux resets its
 * disposition to SIG_DFL and unblocks it (kernel/signal.c
 * force_sig_info_to_task()): inside a SIGTRAP handler, which blocks it,
 * the handler is gone at the first step, and the program's next INT3
 * kills it (tests/values/review7.c trapself).  So the recorder takes
 * SIGTRAP out of the thread's mask while it steps (PTRACE_SETSIGMASK)
 * and puts it back where the mask is seen: before a signal's frame is
 * built (its saved mask), in the old mask rt_sigprocmask returns, and
 * where recording detaches.
 */

void emu_trap_hide(struct thr *t)
{
	uint64_t m;

	/* A temporary mask waits for its delivery (emu_trap_show()). */
	if (t->trap_tmp ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(m), &m) < 0 ||
	    !(m & TRAP_BIT))
		return;
	m &= ~TRAP_BIT;
	if (!ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m))
		t->trap_hidden = true;
}

void emu_trap_show(struct thr *t)
{
	uint64_t m;

	if (t->trap_tmp) {
		/* PTRACE_SETSIGMASK would clear TIF_RESTORE_SIGMASK: the
		 * frame would save the temporary mask, the program keep it.
		 */
		t->trap_tmp = false;
		t->trap_frame = t->trap_hidden;
		return;
	}
	if (!t->trap_hidden ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(m), &m) < 0)
		return;
	m |= TRAP_BIT;
	if (!ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m))
		t->trap_hidden = false;
}

/*
 * A system call that blocks SIGTRAP: rt_sigprocmask's SIG_BLOCK or
 * SIG_SETMASK, rt_sigreturn's saved mask (uc_sigmask, at the stack
 * pointer + 296 when it runs: the rt_sigframe's ucontext after its
 * pretcode, arch/x86/kernel/signal_64.c).  The step's report at its exit
 * is a forced SIGTRAP (user_single_step_report()), which finds it blocked
 * and so resets the program's SIGTRAP handler to SIG_DFL and unblocks it
 * (force_sig_info_to_task()): the program would see SIGTRAP unblocked
 * and its next INT3 would kill it.  So the bit leaves the word the call
 * reads, for the call alone (emu_trap_restore() puts it back), and the
 * mask is then hidden.
 *
 * The calls that install a temporary mask until they return or a signal
 * is delivered (set_user_sigmask(), TIF_RESTORE_SIGMASK): rt_sigsuspend
 * (rdi, rsi the size), ppoll (r10, r8), epoll_pwait and epoll_pwait2
 * (r8, r9), pselect6 (r9 points to { sigset_t *, size_t }).  Interrupted
 * by a signal, the temporary mask is still the thread's at the step's
 * report, which resets the handler the same way; and a PTRACE_SETSIGMASK
 * while it is (emu_trap_hide()) would clear TIF_RESTORE_SIGMASK and keep
 * the temporary mask for good.  Their word loses the bit for the call
 * alone too; the mask after them is the one before (not hidden anew).
 */
#define UC_SIGMASK 296

/* Does system call @nr install a temporary mask (epoll_pwait2: 441)? */
bool emu_trap_tmp_mask_call(long nr)
{
	return nr == SYS_rt_sigsuspend || nr == SYS_ppoll ||
	       nr == SYS_pselect6 || nr == SYS_epoll_pwait || nr == 441;
}

/*
 * The set rt_sigprocmask's arguments @a (how, set, oldset, sigsetsize)
 * make the mask from, where SIGTRAP in it would be blocked; 0 when none.
 */
static uint64_t spm_word(const uint64_t a[4])
{
	return a[1] && a[3] == 8 &&
	       (a[0] == SIG_BLOCK || a[0] == SIG_SETMASK) ? a[1] : 0;
}

/* The mask word system call @nr reads (registers @r), 0 when none. */
static uint64_t trap_word(const struct thr *t, long nr,
			  const struct user_regs_struct *r)
{
	uint64_t a[2];
	struct iovec l = { a, sizeof(a) };
	struct iovec rm = { (void *)(uintptr_t)r->r9, sizeof(a) };

	switch (nr) {
	case SYS_rt_sigprocmask: {
		const uint64_t s[4] = { r->rdi, r->rsi, r->rdx, r->r10 };

		return spm_word(s);
	}
	case SYS_rt_sigreturn:
		return r->rsp + UC_SIGMASK;
	case SYS_rt_sigsuspend:
		return r->rsi == 8 ? r->rdi : 0;
	case SYS_ppoll:
		return r->r8 == 8 ? r->r10 : 0;
	case SYS_epoll_pwait:
	case 441:	/* epoll_pwait2 */
		return r->r9 == 8 ? r->r8 : 0;
	case SYS_pselect6:
		if (!r->r9 ||
		    process_vm_readv(t->tid, &l, 1, &rm, 1, 0) != sizeof(a))
			return 0;
		return a[1] == 8 ? a[0] : 0;
	default:
		return 0;
	}
}

/*
 * rt_sigprocmask's arguments (how, set, oldset, sigsetsize) for the call
 * @t made (t->entry): the 64-bit call's rdi, rsi, rdx, r10, or, behind
 * int $0x80 (32-bit number 175, t->trap32), ebx, ecx, edx, esi (a
 * compat_sigset_t: the same 64 bits).  False for any other call.
 */
static bool spm_args(const struct thr *t, uint64_t a[4])
{
	const struct user_regs_struct *r = &t->entry;

	if (t->trap32) {
		a[0] = (uint32_t)r->rbx;
		a[1] = (uint32_t)r->rcx;
		a[2] = (uint32_t)r->rdx;
		a[3] = (uint32_t)r->rsi;
		return true;
	}
	a[0] = r->rdi;
	a[1] = r->rsi;
	a[2] = r->rdx;
	a[3] = r->r10;
	return (long)r->rax == SYS_rt_sigprocmask;
}

/*
 * A call's temporary mask that lets through the SIGTRAP the recorder
 * holds (emu_trap_held()): natively it returns at once (EINTR) into its
 * handler.  The recorder holds it where the kernel does not know it, so
 * the call would wait for good: it goes back to the kernel first, blocked
 * in the thread's mask as the program has it (the kernel keeps it pending
 * with its siginfo: a signal the tracer injects at a signal stop that is
 * blocked is queued again, kernel/signal.c ptrace_signal()), and the
 * call's temporary mask then takes it as natively.  Returns the signal to
 * resume with (SIGTRAP), 0 when not; @t is stopped at a step's SIGTRAP
 * (or another signal stop), not at an event.
 */
static int trap_requeue(struct thr *t)
{
	siginfo_t si, *held = emu_trap_held_si(t);
	uint64_t m;

	if (!held || !t->trap_hidden || t->trap_tmp ||
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 ||
	    si.si_signo != SIGTRAP ||
	    (si.si_code != TRAP_TRACE && si.si_code != TRAP_BRKPT &&
	     si.si_code != SI_KERNEL && si.si_code != SI_USER &&
	     si.si_code != SI_TKILL && si.si_code != SI_QUEUE) ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(m), &m) < 0 ||
	    ptrace(PTRACE_SETSIGINFO, t->tid, 0, held) < 0)
		return 0;
	m |= TRAP_BIT;
	if (ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(m), &m) < 0) {
		ptrace(PTRACE_SETSIGINFO, t->tid, 0, &si);
		return 0;
	}
	t->trap_hidden = false;
	emu_trap_taken(t);
	return SIGTRAP;
}

int emu_trap_strip(struct thr *t, int sig)
{
	long nr = (long)t->regs.rax;
	uint64_t at, w, a[4];

	t->trap_set_at = 0;
	t->trap_stripped = false;
	t->trap32 = false;
	if (nr != SYS_rt_sigprocmask && nr != SYS_rt_sigreturn &&
	    !emu_trap_tmp_mask_call(nr) && (uint32_t)nr != 175)
		return sig;
	/* The 64-bit numbers only behind SYSCALL (0f 05); behind int $0x80
	 * (cd 80) the 32-bit rt_sigprocmask (175) alone.
	 */
	errno = 0;
	w = (uint64_t)ptrace(PTRACE_PEEKTEXT, t->tid,
			     (void *)(uintptr_t)t->regs.rip, 0);
	if (errno)
		return sig;
	if ((w & 0xffff) == 0x80cd && (uint32_t)nr == 175) {
		t->trap32 = true;
		spm_args(t, a);	/* t->entry: the registers now */
		at = spm_word(a);
	} else if ((w & 0xffff) == 0x050f && (uint32_t)nr != 175) {
		at = trap_word(t, nr, &t->regs);
	} else {
		return sig;
	}
	if (!at)
		return sig;
	w = (uint64_t)ptrace(PTRACE_PEEKDATA, t->tid, (void *)(uintptr_t)at, 0);
	if (errno)
		return sig;
	if (!(w & TRAP_BIT))
		return !sig && !t->trap32 && emu_trap_tmp_mask_call(nr) ?
		       trap_requeue(t) : sig;
	if (ptrace(PTRACE_POKEDATA, t->tid, (void *)(uintptr_t)at,
		   (void *)(uintptr_t)(w & ~TRAP_BIT)) < 0)
		return sig;
	t->trap_set_at = at;
	return sig;
}

/* SIGTRAP's bit set in the mask word of @t's memory at @at, where it
 * can be read (emu_trap_restore(), emu_trap_frame()).
 */
static void trap_bit_set(const struct thr *t, uint64_t at)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKDATA, t->tid, (void *)(uintptr_t)at, 0);
	if (!errno)
		ptrace(PTRACE_POKEDATA, t->tid, (void *)(uintptr_t)at,
		       (void *)(uintptr_t)((uint64_t)w | TRAP_BIT));
}

/* The bit back into the word emu_trap_strip() took it from (@t stopped
 * after its call, registers read); @ran: the call ran.  Where the call's
 * old mask went to the same word the kernel wrote it there: left alone.
 */
void emu_trap_restore(struct thr *t, bool ran)
{
	uint64_t at = t->trap_set_at, a[4];

	if (!at)
		return;
	t->trap_set_at = 0;
	/* A temporary mask's call: the mask after it is the one before. */
	t->trap_stripped = ran && (spm_args(t, a) ||
				   (long)t->entry.rax == SYS_rt_sigreturn);
	if (ran && spm_args(t, a) && a[2] + 8 > at && at + 8 > a[2])
		return;
	trap_bit_set(t, at);
}

/*
 * At the first stop in the handler of a delivery: the frame's saved
 * RFLAGS (uc_mcontext.eflags, the handler's entry rsp + 8 + 176) holds
 * the TF the stepping set; it gets the program's own (@t->tf), which the
 * handler starts without (the kernel clears TF for it) and its
 * rt_sigreturn restores (emu_trap_after_syscall()).  After a delivery
 * that restored a temporary mask (emu_trap_show()): the frame saved the
 * thread's mask, SIGTRAP hidden from it, so the bit goes into its
 * uc_sigmask (the entry rsp + 8 + 296) as the program has it; its
 * rt_sigreturn then strips it again.
 */
#define UC_EFLAGS 176

void emu_trap_frame(struct thr *t)
{
	uint64_t at = t->regs.rsp + 8 + UC_SIGMASK;
	uint64_t fl = t->regs.rsp + 8 + UC_EFLAGS;
	uint64_t tf = t->tf ? 0x100 : 0;
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKDATA, t->tid, (void *)(uintptr_t)fl, 0);
	if (!errno && ((uint64_t)w & 0x100) != tf)
		ptrace(PTRACE_POKEDATA, t->tid, (void *)(uintptr_t)fl,
		       (void *)(uintptr_t)(((uint64_t)w & ~0x100ull) | tf));
	t->tf = false;
	if (!t->trap_frame)
		return;
	t->trap_frame = false;
	trap_bit_set(t, at);
}

/*
 * The program's own trap flag, after a step that retired t->ip (not a
 * system call, not a delivery; emu_step.c): the CPU raises a single-step
 * trap after every instruction that starts with TF set (a POPF that
 * clears it too, not one that sets it: SDM vol. 3 17.3.1.4), which Linux
 * hands to the program as SIGTRAP with TRAP_TRACE.  Under the stepping
 * that trap is the step's own stop, so the recorder tells it: true when
 * the program's TF was set as t->ip started (its SIGTRAP is then
 * delivered, emu_step.c).  A POPF sets TF from bit 8 of the word it
 * popped (still below the stack pointer: the byte at the old rsp + 1).
 * The registers' RFLAGS get the program's TF.  Not followed: IRET and
 * system calls with TF set.
 */
bool emu_tf_step(struct thr *t)
{
	bool was = t->tf;
	int b;

	if (t->in.popf) {
		b = emu_byte_at(t, t->entry.rsp + 1);
		if (b >= 0)
			t->tf = b & 1;
	}
	t->regs.eflags = (t->regs.eflags & ~0x100ull) | (t->tf ? 0x100 : 0);
	return was && !t->in.trap;
}

static void trap_pending_set(struct thr *t);

/* After a system call @t made, SIGTRAP hidden or stripped: what it
 * meant.
 */
void emu_trap_after_syscall(struct thr *t)
{
	long nr = (long)t->entry.rax;
	bool was = t->trap_hidden, stripped = t->trap_stripped;
	uint64_t set = 0, old, a[4];
	bool spm = spm_args(t, a);
	struct iovec l = { &set, 8 };
	struct iovec r = { (void *)(uintptr_t)a[1], 8 };

	t->trap_stripped = false;
	if (nr == SYS_rt_sigpending)
		trap_pending_set(t);
	/* Interrupted (the kernel restarts or fails it with EINTR at the
	 * delivery), its temporary mask stays until the delivery.
	 */
	t->trap_tmp = !t->trap32 && emu_trap_tmp_mask_call(nr) &&
		      ((long)t->regs.rax == -EINTR ||
		       (long)t->regs.rax == -514);	/* ERESTARTNOHAND */
	if (nr == SYS_rt_sigreturn && !t->trap32) {
		int b = emu_byte_at(t, t->entry.rsp + UC_EFLAGS + 1);

		t->trap_hidden = stripped;	/* the frame's mask, as saved */
		t->tf = b > 0 && (b & 1);	/* its RFLAGS, as saved */
		return;
	}
	if (!spm || t->regs.rax || a[3] != 8)
		return;
	if (was && a[2]) {	/* the old mask as the program has it */
		l.iov_base = &old;
		r.iov_base = (void *)(uintptr_t)a[2];
		if (process_vm_readv(t->tid, &l, 1, &r, 1, 0) == 8) {
			old |= TRAP_BIT;
			process_vm_writev(t->tid, &l, 1, &r, 1, 0);
		}
		l.iov_base = &set;
		r.iov_base = (void *)(uintptr_t)a[1];
	}
	if (stripped) {
		t->trap_hidden = true;	/* blocked as the program asked */
		return;
	}
	if (!was || !a[1] || process_vm_readv(t->tid, &l, 1, &r, 1, 0) != 8)
		return;
	if ((a[0] == SIG_UNBLOCK && (set & TRAP_BIT)) ||
	    (a[0] == SIG_SETMASK && !(set & TRAP_BIT)))
		t->trap_hidden = false;
}

/*
 * Is this SIGTRAP stop the program's own signal rather than the single
 * step's trap?  A step traps with TRAP_TRACE, or TRAP_BRKPT after a
 * stepped system call (the kernel's syscall-exit step report); INT3 and
 * INT $3 raise SI_KERNEL, INT1 (ICEBP) TRAP_BRKPT, kill/tgkill/sigqueue
 * SI_USER, SI_TKILL, SI_QUEUE.  Only a step that may have raised one is
 * asked (a trap instruction, a system call: emu_handle_stop() checks),
 * and a plain step that did not move RIP (a SIGTRAP another process
 * sent while the thread was stopped, reported before the next
 * instruction: emu_step.c step_done()): one ptrace call saved on every
 * other step.  One sent in the moment the stepped instruction runs merges
 * with the step's trap (docs/recorder.md).
 */
bool emu_program_trap(struct thr *t)
{
	siginfo_t si;

	if (t->delivering || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return false;
	if (si.si_code == SI_KERNEL || si.si_code <= 0)
		return true;
	/* INT1 traps like the syscall-exit report: the instruction says. */
	return si.si_code == TRAP_BRKPT && t->in.trap && t->in.len == 1 &&
	       emu_byte_at(t, t->ip) == 0xf1;
}

/*
 * A SIGTRAP sent to the program (kill, tgkill, sigqueue: SI_USER,
 * SI_TKILL, SI_QUEUE) while its own mask holds SIGTRAP, which the
 * recorder hides from the kernel's (emu_trap_hide()): the kernel, seeing
 * it unblocked, reports it at once, where the program would keep it
 * pending (sigpending shows it) and run its handler only when its mask
 * lets it through (review11.c trappend: it was handed on at once and
 * lost).  So the recorder takes it at its stop and holds it (@si, its
 * siginfo): true when it does, and the stop then delivers nothing.  A
 * standard signal is pending once: a second one merges with the first.
 * Not while a call's temporary mask is the thread's (@t->trap_tmp: the
 * program's mask is not known there).  One sent to the process (kill,
 * sigqueue: SI_USER, SI_QUEUE), which the kernel keeps in the process's
 * queue, is held for the process (@t->proc): any of its threads whose
 * mask lets it through takes it (emu_trap_take()), any that asks sees it
 * (docs/recorder.md); tgkill's (SI_TKILL) for @t.
 */
bool emu_trap_held(struct thr *t, const siginfo_t *si)
{
	bool proc = si->si_code != SI_TKILL;

	if (si->si_signo != SIGTRAP || !t->trap_hidden || t->trap_tmp ||
	    (si->si_code != SI_USER && si->si_code != SI_TKILL &&
	     si->si_code != SI_QUEUE))
		return false;
	if (proc && !t->proc->trap_pend)
		t->proc->trap_si = *si;
	else if (!proc && !t->trap_pend)
		t->trap_si = *si;
	if (proc)
		t->proc->trap_pend = true;
	else
		t->trap_pend = true;
	return true;
}

/*
 * The held SIGTRAP (emu_trap_held()) once the program's mask lets it
 * through (@t stopped at a system call's exit: rt_sigprocmask's
 * SIG_UNBLOCK or SIG_SETMASK without it, rt_sigreturn to a mask without
 * it): true when it is to be delivered at the next resume, its siginfo
 * made this stop's (PTRACE_SETSIGINFO, which the resume's signal takes
 * when their numbers agree: kernel/signal.c ptrace_signal()), as the
 * kernel delivers a pending signal the call unblocked before the next
 * instruction.  The process's (@t->proc) also at the next resume of any
 * of its threads whose mask lets it through, stopped at a SIGTRAP's
 * delivery stop (emu_trap_take()).
 */
bool emu_trap_release(struct thr *t)
{
	siginfo_t *held = emu_trap_held_si(t);

	if (!held || t->trap_hidden || t->trap_tmp ||
	    (!t->trap_pend && !emu_trap_delivery_stop(t)) ||
	    ptrace(PTRACE_SETSIGINFO, t->tid, 0, held) < 0)
		return false;
	emu_trap_taken(t);
	return true;
}

/*
 * rt_sigpending (127: rdi the set, rsi its size) of a thread that holds
 * a SIGTRAP, or whose process does (emu_trap_held()): the set the
 * kernel wrote lacks it (for the kernel nothing is pending), the
 * program's holds it.  Patched at the call's exit, before any
 * instruction reads it; the ground truth takes the memory as the call
 * left it, as for the old mask of rt_sigprocmask.
 */
static void trap_pending_set(struct thr *t)
{
	uint64_t set;
	struct iovec l = { &set, 8 };
	struct iovec r = { (void *)(uintptr_t)t->entry.rdi, 8 };

	if (!emu_trap_held_si(t) || t->trap32 || t->regs.rax ||
	    t->entry.rsi != 8 ||
	    process_vm_readv(t->tid, &l, 1, &r, 1, 0) != 8)
		return;
	set |= TRAP_BIT;
	process_vm_writev(t->tid, &l, 1, &r, 1, 0);
}

/*
 * A stop signal's group stop (after its delivery, which signal_stop()
 * saw): PTRACE_GETSIGINFO fails there.  Resumed, a thread traced
 * without PTRACE_SEIZE would run on as if continued (man 2 ptrace,
 * "group-stop"): the recorder leaves it stopped until a SIGCONT comes
 * (emu.c emu_gstop_poll()), as the program untraced stays stopped
 * (tests/values/review7.c sigcont: the child ran past its raise(SIGSTOP)
 * before its parent's SIGCONT).
 */
bool emu_group_stop(struct thr *t, int sig)
{
	siginfo_t si;

	if (sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN &&
	    sig != SIGTTOU)
		return false;
	return ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 &&
	       errno == EINVAL;
}
