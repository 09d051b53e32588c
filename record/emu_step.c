// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder's stops (emu.h): what a ptrace stop of a thread
 * means for its history.  A step that completed retires its instruction
 * into the PT stream and the ground truth; a signal, a system call, a new
 * thread or process, an exec or an exit become trace and sideband (the
 * last three in emu_life.c).  Split from emu.c, which keeps the
 * scheduling loop and the entry point.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"
#include "skel.h"

/* ---- instructions ------------------------------------------------------ */

static struct icache_ent *icache_slot(struct emu *e, uint64_t ip)
{
	return &e->icache[(ip ^ (ip >> 16)) & (ICACHE_SIZE - 1)];
}

static void icache_put(struct emu *e, struct thr *t, uint64_t ip,
		       const struct insn *in)
{
	struct icache_ent *c = icache_slot(e, ip);

	c->ip = ip;
	c->pid = t->proc->pid;
	c->gen = e->gen;
	c->in = *in;
}

int emu_fetch_insn(struct emu *e, struct thr *t, uint64_t ip,
		   struct insn *in)
{
	struct icache_ent *c = icache_slot(e, ip);
	uint8_t buf[16];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { (void *)(uintptr_t)ip, sizeof(buf) };
	ssize_t n;

	if (c->gen == e->gen && c->ip == ip && c->pid == t->proc->pid) {
		*in = c->in;
		return 0;
	}
	n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
	if (n < (ssize_t)sizeof(buf)) {
		/* The instruction may end just before an unmapped page. */
		remote.iov_len = local.iov_len = 4096 - (ip & 4095);
		if (remote.iov_len > sizeof(buf))
			remote.iov_len = local.iov_len = sizeof(buf);
		n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
	}
	if (n <= 0 || insn_decode(e->dec, buf, (unsigned int)n, ip, in)) {
		/* Unreadable or invalid: it will fault; no flow change. */
		in->len = 0;
		in->cls = IC_OTHER;
		in->rep = false;
		in->pushf = false;
		in->popf = false;
		in->trap = false;
		return 0;
	}
	icache_put(e, t, ip, in);
	return 0;
}

/* Instruction @ip into @t's truth; with @regs, registers @r after it. */
static void truth_write(struct emu *e, struct thr *t, uint64_t ip,
			const struct user_regs_struct *r, bool regs)
{
	const uint64_t v[SB_TRUTH_NREGS] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp,
		r->rsp, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
		r->r14, r->r15, r->eflags,
	};
	int ret;

	ret = sb_truth_add_regs(t->truth, ip,
				regs ? (1ull << SB_TRUTH_NREGS) - 1 : 0, v);
	if (ret)
		emu_io_fail(e, ret, "truth");
}

/*
 * A SYSCALL's registers are read where the step over it stops, but they
 * are the state after it only if the thread goes on from there, at the
 * instruction after it: not where a handler runs first (the kernel
 * builds its frame after that stop), the call restarts (rip moved back
 * after the stop), or the thread never runs again.  So its record waits
 * (syscall_retired()) for the thread's next one, or for the delivery,
 * the exit or the end of the recording (@next UINT64_MAX).
 */
void emu_truth_release(struct emu *e, struct thr *t, uint64_t next)
{
	if (!t->truth_held)
		return;
	t->truth_held = false;
	if (t->truth)
		truth_write(e, t, t->held_ip, &t->held_regs,
			    next == t->held_ip + 2);
}

/* Records instruction @ip in the ground truth; with @regs, the registers
 * after it (t->regs, read at the step's stop) too.  A record held before
 * it goes first: the truth's order is the thread's.
 */
void emu_truth_add_regs(struct emu *e, struct thr *t, uint64_t ip,
			bool regs)
{
	e->st->insns++;
	if (__builtin_expect(t->truth_held, 0))
		emu_truth_release(e, t, ip);
	if (t->truth)
		truth_write(e, t, ip, &t->regs, regs);
}

static void truth_add(struct emu *e, struct thr *t, uint64_t ip)
{
	emu_truth_add_regs(e, t, ip, false);
}

void emu_enc_check(struct emu *e, struct thr *t, int ret)
{
	if (ret < 0)
		emu_io_fail(e, ret, t->enc.path ? t->enc.path : "pt stream");
}

/* ---- signals ------------------------------------------------------------ */

static bool sig_default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH ||
	       sig == SIGCONT;
}

/* ---- the syscall effects we record --------------------------------------- */

/*
 * set_tid_address(2) sets the word the kernel clears at the thread's exit
 * (EXIT_FUTEX): 218 (x32's too) by SYSCALL, 258 by int 0x80 (a 32-bit
 * pointer); i386's set_robust_list (311) registers a list that
 * get_robust_list(2) does not show.
 */
static void clear_tid_note(struct thr *t)
{
	bool i386 = false;
	long word;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->ip, 0);
	if (!errno && (word & 0xffff) == 0x80cd)	/* cd 80: int 0x80 */
		i386 = true;
	if (i386 && (uint32_t)t->entry.rax == 258) {
		t->ctid = t->entry.rbx & 0xffffffffu;
		t->ctid_known = true;
	} else if (i386 && (uint32_t)t->entry.rax == 311) {
		t->compat_robust = true;
	} else if (!i386 &&
		   (t->entry.rax & 0xbfffffffull) == SYS_set_tid_address) {
		t->ctid = t->entry.rdi;
		t->ctid_known = true;
	}
}

static void after_syscall(struct emu *e, struct thr *t)
{
	long nr = (long)(t->entry.rax & 0xbfffffffull);	/* x32's too */

	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_brk:
	case SYS_shmat:
	case SYS_shmdt:
	case SYS_pkey_mprotect:
		emu_update_maps(e, t->proc, t->tid, 0);
		break;
	case SYS_prctl:
		emu_emit_comm(e, t);		/* PR_SET_NAME */
		break;
	default:
		emu_text_check(e, t);
		break;
	}
	clear_tid_note(t);
	/* rseq, by eax alone as Linux takes it (x32's too), and i386's
	 * (386, EBX and ECX: int 0x80; any other 386 fails, an area too
	 * many): every area registered or unregistered, for the
	 * snapshot's RSEQ record, also of the process whose memory a
	 * vfork child shares.
	 */
	if ((t->entry.rax & 0xbfffffffull) == SYS_rseq ||
	    (uint32_t)t->entry.rax == 386) {
		bool i386 = (uint32_t)t->entry.rax == 386;
		uint64_t a = i386 ? t->entry.rbx & 0xffffffffu : t->entry.rdi;
		uint32_t len = (uint32_t)(i386 ? t->entry.rcx : t->entry.rsi);

		rec_snap_rseq_note(&t->proc->rseq, a, len, t->tid);
		if (t->proc->mem_of)
			rec_snap_rseq_note(&t->proc->mem_of->rseq, a, len,
					   t->tid);
	}
}

/* The SYSCALL at t->ip executed: it is in the history, and PacketEn
 * dropped when it entered the kernel.
 */
void emu_syscall_entered(struct emu *e, struct thr *t)
{
	truth_add(e, t, t->ip);
	emu_enc_check(e, t, ptenc_disable_sync(&t->enc));
}

/* ---- stops ------------------------------------------------------------ */

/*
 * Under a hypervisor the trap after an emulated instruction (CPUID) comes
 * one instruction late: a single step retired more than one instruction.
 * Explain the step as straight-line instructions from @pc, the last of
 * which may branch to @next, and put them all in the history.  Returns
 * false (nothing written) when no such path of at most 4 instructions
 * exists.
 */
static bool explain_skip(struct emu *e, struct thr *t, uint64_t pc,
			 uint64_t next)
{
	struct insn path[4];
	uint64_t at[4], p = pc;
	unsigned int n, i;

	for (n = 0; n < 4 && p != next; n++) {
		emu_fetch_insn(e, t, p, &path[n]);
		at[n] = p;
		if (!path[n].len)
			return false;
		if (path[n].cls != IC_OTHER) {
			n++;
			break;	/* a branch ends the path wherever it goes */
		}
		p += path[n].len;
	}
	if (!n || (path[n - 1].cls == IC_OTHER && p != next) ||
	    path[n - 1].cls == IC_FAR)
		return false;
	for (i = 0; i < n; i++) {
		uint64_t to = i + 1 < n ? at[i + 1] : next;

		truth_add(e, t, at[i]);
		emu_enc_check(e, t, ptenc_retire(&t->enc, &path[i], at[i], to));
	}
	e->st->skips++;
	return true;
}

/*
 * An XBEGIN whose step lands at its fallback, or one instruction past it:
 * the transaction began and aborted before the instruction after the
 * XBEGIN ran (with RTM, the single step's debug trap inside the
 * transaction aborts it at once, status 0x10 in EAX, and the trap comes
 * after the fallback's first instruction; tests/values/review4.c
 * tsxabort).  In the trace as a CPU writes it (SDM Vol. 3C 33.4.2.8):
 * MODE.TSX (InTX) and FUP at the XBEGIN, which retires, then MODE.TSX
 * (TXAbort) and FUP at the next instruction, which never ran, a TIP to
 * the fallback, and the fallback's instruction that ran; in the truth the
 * XBEGIN and that one.  Not explain_skip()'s straight line through the
 * transaction's body: those instructions (a store among them) never
 * happened.
 */
static bool xbegin_aborted(struct emu *e, struct thr *t, uint64_t next)
{
	uint8_t b[6];
	struct iovec l = { b, sizeof(b) };
	struct iovec r = { (void *)(uintptr_t)t->ip, sizeof(b) };
	uint64_t after = t->ip + t->in.len, fb;
	struct insn fin = { 0 };
	int32_t rel;
	int ret;

	if (t->in.len != 6 || next == after ||
	    process_vm_readv(t->tid, &l, 1, &r, 1, 0) != sizeof(b) ||
	    b[0] != 0xc7 || b[1] != 0xf8)
		return false;
	memcpy(&rel, b + 2, sizeof(rel));
	fb = after + (uint64_t)(int64_t)rel;
	if (next != fb) {
		/* the fallback's first instruction ran: it went to @next */
		emu_fetch_insn(e, t, fb, &fin);
		if (!fin.len || fin.cls == IC_FAR ||
		    (fin.cls == IC_OTHER && fb + fin.len != next))
			return false;
	}
	emu_enc_check(e, t, ptenc_tsx(&t->enc, t->ip, true, false));
	emu_enc_check(e, t, ptenc_retire(&t->enc, &t->in, t->ip, after));
	emu_truth_add_regs(e, t, t->ip, next == fb);
	emu_enc_check(e, t, ptenc_tsx_abort(&t->enc, after, fb));
	if (next == fb)
		return true;
	ret = ptenc_retire(&t->enc, &fin, fb, next);
	emu_truth_add_regs(e, t, fb, ret == 0);
	if (ret == 1) {
		e->st->anomalies++;
		ret = ptenc_disable_async(&t->enc, fb + fin.len);
	}
	emu_enc_check(e, t, ret);
	return true;
}

/*
 * A single-stepped PUSHF stored RFLAGS with the trap flag the stepping
 * set (0x306 where the program untraced stores 0x206): a POPF of that
 * word would set TF in the program itself.  The recorder takes the
 * program's own TF as clear (emu_get_regs()), so bit 8 of the stored
 * word, bit 0 of its second byte (PUSHF and PUSHFQ alike), is cleared,
 * as GDB's displaced stepping fixes up a PUSHF.
 */
__attribute__((cold, noinline))
static void pushf_untrap(struct thr *t)
{
	uint8_t b;
	struct iovec l = { &b, 1 };
	struct iovec r = { (void *)(uintptr_t)(t->regs.rsp + 1), 1 };

	if (process_vm_readv(t->tid, &l, 1, &r, 1, 0) != 1 || !(b & 1))
		return;
	b &= (uint8_t)~1u;
	process_vm_writev(t->tid, &l, 1, &r, 1, 0);
}

/*
 * A call into the legacy vsyscall page (time() at 0xffffffffff600400):
 * the fetch faults and the kernel emulates the call (vsyscall=xonly or
 * emulate), returning to the caller with RSP past the return address,
 * and the step's trap comes only after the caller's next instruction
 * (tests/values/review7.c vsys).  As PT would show it: the trace leaves
 * at the vsyscall entry (the fault), comes back at the return address,
 * and the instructions from there to @next ran.  False (nothing
 * written) when that is no straight line; the step is then an anomaly.
 */
#define VSYSCALL_PAGE 0xffffffffff600000ull

__attribute__((cold, noinline))
static bool vsyscall_done(struct emu *e, struct thr *t, uint64_t next)
{
	uint64_t back;
	struct iovec l = { &back, 8 };
	struct iovec r = { (void *)(uintptr_t)t->entry.rsp, 8 };
	struct insn in;
	int ret;

	if (next == t->ip ||
	    process_vm_readv(t->tid, &l, 1, &r, 1, 0) != 8 ||
	    (back != next && (emu_fetch_insn(e, t, back, &in), !in.len ||
			      in.cls != IC_OTHER || back + in.len != next)))
		return false;
	/* The entry itself never retired (no instruction in the truth). */
	ret = ptenc_disable_async(&t->enc, t->ip);
	if (!ret)
		ret = ptenc_enable(&t->enc, back, emu_now(e));
	if (!ret && back != next) {
		emu_truth_add_regs(e, t, back, true);
		ret = ptenc_retire(&t->enc, &in, back, next);
	}
	emu_enc_check(e, t, ret < 0 ? ret : 0);
	return true;
}

/*
 * A single-stepped SYSCALL saved RFLAGS with the trap flag the stepping
 * set into R11; untraced, the program has it clear there (and a core
 * file taken later shows R11 as the untraced program would have it).
 * Also when the call returns into a signal, and after a step that ran
 * a restarted call again (RIP back at the SYSCALL after an ignored
 * signal, the step landing after it: tests/values/review7.c sigcont's
 * wait4): wherever RCX is RIP, the address after a SYSCALL.
 */
__attribute__((cold, noinline))
static void syscall_r11(struct thr *t)
{
	uint64_t at = t->regs.rcx - 2;

	if (!(t->regs.r11 & 0x100) || t->regs.rcx != t->regs.rip ||
	    emu_byte_at(t, at) != 0x0f || emu_byte_at(t, at + 1) != 0x05)
		return;
	/* rt_sigreturn (15) put the frame's r11 there, the program's own
	 * (review 13's sret); not for a clone child's first stop, whose
	 * entry registers are none of its own.
	 */
	if (t->st != T_NEW && t->entry.rip == at && t->entry.rax == 15)
		return;
	t->regs.r11 &= ~0x100ull;
	ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
}

/*
 * REGS (PTREC_SB_REGS_SYSCALL): the registers after a system call
 * instruction: what it returned in rax, rcx and r11 (SYSCALL's return
 * address and RFLAGS, r11 with the stepping's TF cleared: syscall_r11()
 * ran), the others as the call left them (since session 18: an anchor
 * for the values engine, whose windows far from the end know no stack
 * pointer otherwise), rflags, and rip, where it returned to: only one
 * that completed at the instruction after it (not a restarted call, rip
 * back at it, nor an rt_sigreturn or an exec).
 */
static void emit_sysret(struct emu *e, const struct thr *t)
{
	const struct user_regs_struct *r = &t->regs;
	struct ptrec_sb_regs g = {
		.hdr = { .type = PTREC_SB_REGS },
		.pid = (uint32_t)t->proc->pid,
		.tid = (uint32_t)t->tid,
		.where = PTREC_SB_REGS_SYSCALL,
		.valid = (1ull << (SB_REG_EFLAGS + 1)) - 1,
		.regs = { r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi,
			  r->rbp, r->rsp, r->r8, r->r9, r->r10, r->r11,
			  r->r12, r->r13, r->r14, r->r15, r->rip, r->eflags },
	};

	/* cs: an rt_sigreturn into compatibility mode at its own return
	 * address (review 13's compat) runs 32-bit code untraced next.
	 */
	if (t->in.len != 2 || t->regs.rip != t->ip + 2 || t->compat ||
	    t->regs.cs != EMU_USER_CS)
		return;
	/* The record is SYSCALL's (docs/bundle-format.md 6.17): not int
	 * 0x80's, whose rcx and r11 are the program's, nor another 2-byte
	 * instruction the trace shows leaving user mode that went on at
	 * the next one (lcall or ljmp through memory, lretq: review 13's
	 * far had a record after each, a call that never happened); and
	 * not a result the program never sees: -ERESTARTSYS, -ERESTARTNOINTR,
	 * -ERESTARTNOHAND and -ERESTART_RESTARTBLOCK (include/linux/
	 * errno.h), read at the step's report before the kernel rewinds
	 * the call or turns it into -EINTR (arch/x86/kernel/signal.c
	 * arch_do_signal_or_restart()).  With the waking signal taken by
	 * another thread the call is restarted with no SIGNAL record of
	 * this one that would make the replay drop the record: rax -516
	 * was taken for the call's (review 16's kill: 5 wrong, restart).
	 */
	if (t->regs.rax >= (uint64_t)-516 && t->regs.rax <= (uint64_t)-512)
		return;
	if (!emu_is_syscall(t))
		return;
	/* Tests: a recorder that writes no results (ptrec.ko, the
	 * importers), for programs that take getpid()'s as a value the
	 * engine does not know; or no REGS records at all (an older ptrec).
	 */
	if (__builtin_expect(e->knobs.no_sysret || e->knobs.no_regs, 0))
		return;
	if (__builtin_expect(e->knobs.sysret_result, 0)) {
		g.valid = 1ull << SB_REG_RAX | 1ull << SB_REG_RCX |
			  1ull << SB_REG_R11 | 1ull << SB_REG_RIP;
		for (unsigned int k = 0; k < SB_REG_RIP; k++)
			if (!(g.valid >> k & 1))
				g.regs[k] = 0;
		g.regs[SB_REG_EFLAGS] = 0;
	}
	emu_emit_record(e, &g.hdr);
}

/*
 * The SYSCALL (0f 05) or int 0x80 (cd 80) at t->ip returned: in the
 * history, as emu_syscall_entered() puts it, but with the registers after
 * it (t->regs: syscall_r11() ran, the recorder's changes undone) where
 * it came back at the instruction after it, in 64-bit code, with no
 * result that the kernel turns into a restart or EINTR at the delivery
 * that follows (ERESTARTSYS to ERESTART_RESTARTBLOCK, -512 to -516: a
 * program never sees them), and not an rt_sigreturn (15, x32's
 * 0x40000201; i386's 119 and 173), whose registers are its frame's.
 * That record waits for the thread's next (emu_truth_release()).
 */
/*
 * Is the IC_FAR instruction at t->ip a far transfer (lcall, ljmp, lret,
 * iret: ff /3, ff /5, ca, cb, cf after its prefixes), not a call into the
 * kernel (SYSCALL, SYSENTER, INT n, INT3, INT1, INTO)?
 */
static bool far_transfer(struct thr *t)
{
	uint64_t at = t->ip, end = t->ip + t->in.len;
	int b;

	for (; at < end; at++) {
		b = emu_byte_at(t, at);
		if (b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 ||
		    b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
		    b == 0x64 || b == 0x65 || (b >= 0x40 && b <= 0x4f))
			continue;
		return b == 0xff || b == 0xca || b == 0xcb || b == 0xcf;
	}
	return false;
}

/*
 * A far transfer (lcall, ljmp, lret, iret) completed: the step's stop
 * (SIGTRAP, no signal delivered first: the delivery is step_done()'s
 * case before this, a fault never reaches it) is at its target, with the
 * registers it left, which t->regs holds, as after any other step.
 * Before session 18 its truth record had none (mask 0, as a system call
 * that does not go on at its next instruction).  Not one into
 * compatibility mode (cs 0x23, review 9's c32): its code is left out of
 * the history (emu.c issue_step()), so the truth's next record is no
 * instruction that ran from this state (valcheck took the 32-bit code's
 * work for the engine's error: 4 wrong).  The trace leaves user mode
 * there (TIP.PGD), as for SYSCALL.
 */
static void far_retired(struct emu *e, struct thr *t)
{
	emu_truth_add_regs(e, t, t->ip, t->regs.cs == EMU_USER_CS);
	emu_enc_check(e, t, ptenc_disable_sync(&t->enc));
}

static void syscall_retired(struct emu *e, struct thr *t)
{
	long rv = (long)t->regs.rax;
	uint32_t nr = (uint32_t)t->entry.rax;
	int b0, b1;
	bool sc, i80;

	if (!t->compat && far_transfer(t)) {
		far_retired(e, t);
		return;
	}
	if (t->in.len != 2 || t->regs.rip != t->ip + 2 || t->compat ||
	    t->regs.cs != EMU_USER_CS || (rv >= -516 && rv <= -512) ||
	    !t->truth) {
		emu_syscall_entered(e, t);
		return;
	}
	b0 = emu_byte_at(t, t->ip);
	b1 = emu_byte_at(t, t->ip + 1);
	sc = b0 == 0x0f && b1 == 0x05;
	i80 = b0 == 0xcd && b1 == 0x80;
	if ((!sc && !i80) || (sc && (nr == SYS_rt_sigreturn || nr == 0x40000201)) ||
	    (i80 && (nr == 119 || nr == 173))) {
		emu_syscall_entered(e, t);
		return;
	}
	e->st->insns++;
	emu_truth_release(e, t, t->ip);	/* a SYSCALL right before it */
	t->truth_held = true;
	t->held_ip = t->ip;
	t->held_regs = t->regs;
	emu_enc_check(e, t, ptenc_disable_sync(&t->enc));
}

/* The SYSCALL stepped into returned: in the history, its effects noted. */
__attribute__((noinline))
static void syscall_done(struct emu *e, struct thr *t)
{
	emu_untraced_restore(t);
	emu_trap_restore(t, true);
	syscall_retired(e, t);
	after_syscall(e, t);
	emu_trap_after_syscall(t);
	emu_trap_hide(t);
	t->st = T_READY;
	emit_sysret(e, t);
}

/* A SIGTRAP stop after a step: the instruction completed. */
static void signal_stop(struct emu *e, struct thr *t, int sig);

static void step_done(struct emu *e, struct thr *t)
{
	bool tf_trap = false;
	uint64_t next;
	int ret;

	if (emu_get_regs(t))
		return;
	next = t->regs.rip;
	if (t->delivering) {
		struct ptrec_sb_sigframe f = {
			.hdr = { .type = PTREC_SB_SIGFRAME } };

		/* A caught signal was delivered before t->ip executed. */
		t->delivering = false;
		emu_truth_release(e, t, UINT64_MAX);	/* not after it */
		emu_enc_check(e, t, ptenc_disable_async(&t->enc, t->ip));
		/* Where the kernel built its frame: the watch scan's write
		 * at the delivery (replay/watch_kern.c).
		 */
		f.pid = (uint32_t)t->proc->pid;
		f.tid = (uint32_t)t->tid;
		f.signo = t->deliver_sig;
		f.sp = t->regs.rsp;
		emu_emit_record(e, &f.hdr);
		t->st = T_READY;
		emu_trap_frame(t);
		emu_trap_hide(t);	/* the handler's mask may block it */
		return;
	}
	t->trap_tmp = false;	/* it ran: the kernel restored the mask */
	if (__builtin_expect(t->regs.rcx == next, 0))
		syscall_r11(t);
	if (t->st == T_SYSCALL) {
		syscall_done(e, t);
		/* It unblocked a SIGTRAP the recorder held (emu_trap.c). */
		if (__builtin_expect(t->trap_pend || t->proc->trap_pend, 0) &&
		    emu_trap_release(t))
			signal_stop(e, t, SIGTRAP);
		return;
	}
	t->st = T_READY;
	if (__builtin_expect(t->compat, 0)) {
		emu_compat_done(e, t);
		return;
	}
	/*
	 * Nothing retired: REP string instructions trap after each
	 * iteration, and the first step after an exec traps on the way back
	 * to user space.  A non-branch that retired would have moved RIP.
	 * Nothing ran, and a SIGTRAP stop: one sent to it (kill(2) from
	 * another process, SI_USER) that came while it was stopped is
	 * reported before the next instruction runs, with RIP where it
	 * was.  The program's (as a signal at any other stop).  A REP
	 * string instruction's iteration moved RCX: not asked.
	 */
	if (__builtin_expect(next == t->ip, 0)) {
		if ((!t->in.rep || t->regs.rcx == t->entry.rcx) &&
		    emu_program_trap(t)) {
			signal_stop(e, t, SIGTRAP);
			return;
		}
		if (t->in.rep || t->in.cls == IC_OTHER)
			return;
	}
	if (__builtin_expect((int64_t)t->ip < 0, 0) &&
	    (t->ip & ~0xfffull) == VSYSCALL_PAGE && vsyscall_done(e, t, next))
		return;
	if (!t->in.len && next > t->ip && next - t->ip <= 15) {
		/*
		 * Capstone did not know it (some AVX-512 forms), but it cannot
		 * be a branch: every branch opcode is known.  The CPU just told
		 * us its length.
		 */
		t->in.len = (uint8_t)(next - t->ip);
		t->in.cls = IC_OTHER;
		icache_put(e, t, t->ip, &t->in);
		e->st->learned++;
	}
	if (__builtin_expect(t->tf | t->in.popf | t->in.pushf, 0)) {
		if (t->in.pushf && next == t->ip + t->in.len && !t->tf)
			pushf_untrap(t);
		tf_trap = emu_tf_step(t);
	}
	if (xbegin_aborted(e, t, next))
		return;
	ret = ptenc_retire(&t->enc, &t->in, t->ip, next);
	/* The registers are those after t->ip only when the step retired
	 * just it, where its class allows.  Not after a call into the
	 * vsyscall page: the truth's next record is the caller's
	 * instruction after the kernel's emulated return (vsyscall_done()),
	 * and its state before is not this one's after.  (A step from user
	 * space lands in the kernel's half only there.)
	 */
	emu_truth_add_regs(e, t, t->ip, ret == 0 && (int64_t)next >= 0);
	if (ret == 1 && t->in.cls == IC_OTHER &&
	    explain_skip(e, t, t->ip + t->in.len, next))
		ret = 0;
	if (ret == 1) {
		/* Not what the class allows: go there asynchronously. */
		e->st->anomalies++;
		if (getenv("PTREC_DEBUG"))
			fprintf(stderr, "anomaly at 0x%" PRIx64 " len %u class %u -> 0x%" PRIx64 "\n", t->ip, t->in.len, t->in.cls, next);
		ret = ptenc_disable_async(&t->enc, t->ip + t->in.len);
	}
	emu_enc_check(e, t, ret);
	if (__builtin_expect(tf_trap, 0))
		signal_stop(e, t, SIGTRAP);	/* its own TF's trap */
}

static void signal_stop(struct emu *e, struct thr *t, int sig);

/*
 * The program's own SIGTRAP (emu_program_trap()) at the end of a step into
 * a trap instruction or a system call: the instruction is in the
 * history, and the signal is handed on as any other.
 */
__attribute__((cold, noinline))
static void program_sigtrap(struct emu *e, struct thr *t)
{
	if (emu_get_regs(t))
		return;
	if (t->in.trap) {
		/* INT3, INT1, INT n: it trapped after it, raising SIGTRAP. */
		t->st = T_READY;
		emu_syscall_entered(e, t);
	} else {
		/* A SIGTRAP sent to it (raise(SIGTRAP)) during the call. */
		if (t->regs.rcx == t->regs.rip)
			syscall_r11(t);
		syscall_done(e, t);
	}
	signal_stop(e, t, SIGTRAP);
}

static void signal_stop(struct emu *e, struct thr *t, int sig)
{
	struct ptrec_sb_signal s = { .hdr = { .type = PTREC_SB_SIGNAL } };
	uint64_t caught, ignored;
	siginfo_t si;

	emu_get_regs(t);
	/* A syscall interrupted by (or returning into) a signal executed. */
	if (t->st == T_SYSCALL) {
		emu_untraced_restore(t);
		emu_trap_restore(t, (long)t->regs.orig_rax != -1 ||
				    t->regs.rip != t->ip);
		if ((long)t->regs.orig_rax != -1 || t->regs.rip != t->ip) {
			syscall_r11(t);
			emu_syscall_entered(e, t);
			after_syscall(e, t);
			emu_trap_after_syscall(t);
			emu_trap_hide(t);
		}
	}
	t->st = T_READY;
	t->delivering = false;
	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
	/* One its mask holds: kept pending (emu_trap_held()). */
	if (__builtin_expect(sig == SIGTRAP, 0) && emu_trap_held(t, &si))
		return;
	caught = rec_sigmask_of(t->tid, "SigCgt");
	ignored = rec_sigmask_of(t->tid, "SigIgn");
	s.pid = (uint32_t)t->proc->pid;
	s.tid = (uint32_t)t->tid;
	s.signo = sig;
	s.code = si.si_code;
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
		s.addr = (uint64_t)(uintptr_t)si.si_addr;
	if (caught & (1ull << (sig - 1)))
		s.sflags = PTREC_SB_SIG_HANDLED;
	else if (!(ignored & (1ull << (sig - 1))) &&
		 !sig_default_ignored(sig) && sig != SIGSTOP &&
		 sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		s.sflags = PTREC_SB_SIG_FATAL;
	emu_emit_record(e, &s.hdr);
	t->pending_sig = sig;
	if (s.sflags == PTREC_SB_SIG_FATAL) {
		emu_snap_proc(e, t->proc, SB_SNAP_END_SIGNAL, sig, t, &si);
		emu_group_exit_note(t);
	}
}

/*
 * Its process's held SIGTRAP (emu_trap.c emu_trap_held()) to @t, whose
 * mask lets it through, at its next resume: natively a thread that does
 * not block it takes it from the process's queue.  Not before its first
 * step, where its mask is not yet known (emu_trap_hide()).
 */
void emu_trap_take(struct emu *e, struct thr *t)
{
	if (t->started && emu_trap_release(t))
		signal_stop(e, t, SIGTRAP);
}

void emu_handle_stop(struct emu *e, pid_t tid, int status)
{
	struct thr *t = emu_thr_find(e, tid);
	int event = status >> 16;
	int sig, trapq = TRAPQ_NONE;

	/* Tests: a stop of the tid whose death is held is a new task's. */
	if (__builtin_expect(e->held_dead == tid, 0) && WIFSTOPPED(status)) {
		emu_death_reused(e, tid);
		t = NULL;
	}
	/* A task with a recorded thread's tid, let run untraced. */
	if (__builtin_expect(!t, 0) && emu_untr_stop(e, tid, status))
		return;
	if (!t) {
		/* A new thread's first stop, before its parent's event. */
		char path[64], line[128];
		pid_t tgid = tid;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", tid);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Tgid: %d", &tgid) == 1)
				break;
		if (f)
			fclose(f);
		/*
		 * Its parent's event creates it (emu_new_child()), and only
		 * then is it stepped: a fork child's process is not known
		 * before, nor a thread's clear_child_tid, its EXIT_FUTEX's
		 * word (tests/values/review4.sh exit80late: stepped to its
		 * exit first, the record had none, and a watchpoint on the
		 * word missed the kernel's write in skip mode), its mask and
		 * its THREAD_START.  A thread killed before the event (its
		 * parent killed too) leaves as one of its process.
		 */
		if (!emu_proc_find(e, tgid) ||
		    (WIFSTOPPED(status) && event != PTRACE_EVENT_EXIT &&
		     e->nearly < SB_ARRAY_SIZE_EARLY)) {
			if (e->nearly < SB_ARRAY_SIZE_EARLY) {
				e->early_status[e->nearly] = status;
				e->early[e->nearly++] = tid;
			}
			return;
		}
		for (unsigned int i = 0; i < e->nearly; i++)
			if (e->early[i] == tid) {
				e->early[i] = e->early[--e->nearly];
				e->early_status[i--] =
					e->early_status[e->nearly];
			}
		t = emu_thr_new(e, tid, emu_proc_find(e, tgid), T_NEW);
		if (!t)
			return;
	}
	if (__builtin_expect(e->order_parent != 0, 0))
		emu_clone_order_stop(e, t);	/* tests (emu_late.c) */
	if (t->st == T_GSTOP) {
		t->st = T_READY;	/* woken by SIGKILL: it dies next */
		e->gstopped--;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (emu_death_hold(e, t, status))
			return;
		emu_thr_exited(e, t, status);
		emu_death_release(e, t);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	sig = WSTOPSIG(status);
	if (t->blocked) {
		/* Back from the kernel (emu.c's watchdog): in user space
		 * again at the instruction, which then retired or not.
		 */
		t->blocked = false;
		if (t->started && !t->enc.enabled && !t->compat)
			emu_enc_check(e, t, ptenc_enable(&t->enc, t->ip,
							 emu_now(e)));
	}
	/* Its call under PTRACE_SYSCALL, a held SIGTRAP in the kernel
	 * (emu_trapq.c): the step's end, or not one (step_done() called
	 * once below, where it is inlined).
	 */
	if (__builtin_expect(t->trap_sysc, 0)) {
		trapq = emu_trapq_stop(t, status);
		if (trapq == TRAPQ_RESUMED)
			return;
	}
	if (t->st == T_NEW && event != PTRACE_EVENT_EXIT) {
		/* A signal another task sent it before the SIGSTOP every
		 * new tracee starts with is dequeued first (the lower
		 * number): one it handles is kept for its first step, and
		 * the thread resumed to the SIGSTOP, which stops it before
		 * any instruction (review 13's clonesig: taken for that
		 * SIGSTOP, the signal was lost and the SIGSTOP, later,
		 * stopped the program).  Not one whose default action
		 * ends the process: held here, the recorder would wait for
		 * a group exit the kernel never began.
		 */
		if (!event && sig != SIGSTOP && sig != SIGTRAP &&
		    !t->pending_sig &&
		    (rec_sigmask_of(t->tid, "SigCgt") >> (sig - 1) & 1)) {
			signal_stop(e, t, sig);	/* its SIGNAL record */
			t->st = T_NEW;
			if (ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
				t->st = T_EXITING;
			return;
		}
		/* The SIGSTOP (killed before it, the exit event comes
		 * first: an exit stop).
		 */
		emu_get_regs(t);
		emu_untraced_restore(t);
		/* Its r11 is its creator's at the SYSCALL, with the trap
		 * flag the stepping set there (review 13's untr).
		 */
		if (t->regs.rcx == t->regs.rip)
			syscall_r11(t);
		t->ip = t->regs.rip;
		t->st = T_READY;
		return;
	}
	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (emu_clone_hold(e, t, event))
			return;
		emu_new_child(e, t, event);
		/* Still inside the syscall: let it finish (tests: later). */
		if (!emu_clone_order(e, t))
			ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0);
		return;
	case PTRACE_EVENT_EXEC:
		emu_exec_happened(e, t);
		return;
	case PTRACE_EVENT_STOP:
		emu_get_regs(t);
		t->st = T_READY;
		return;
	case PTRACE_EVENT_EXIT:
		emu_exit_stop(e, t);
		emu_death_release(e, t);
		return;
	default:
		break;
	}
	if (__builtin_expect(trapq == TRAPQ_DONE, 0) ||
	    (sig == SIGTRAP &&
	     ((!t->in.trap && t->st != T_SYSCALL) || !emu_program_trap(t))))
		step_done(e, t);
	else if (sig == SIGTRAP)
		program_sigtrap(e, t);
	else if (emu_group_stop(t, sig)) {
		t->st = T_GSTOP;
		e->gstopped++;
	} else
		signal_stop(e, t, sig);
}

