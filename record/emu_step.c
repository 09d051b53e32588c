// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder's stops (emu.h): what a ptrace stop of a thread
 * means for its history.  A step that completed retires its instruction
 * into the PT stream and the ground truth; a signal, a system call, a new
 * thread or process, an exec or an exit become trace and sideband.  Split
 * from emu.c, which keeps the scheduling loop and the entry point.
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
		in->trap = false;
		return 0;
	}
	icache_put(e, t, ip, in);
	return 0;
}

/* Records instruction @ip in the ground truth; with @regs, the registers
 * after it (t->regs, read at the step's stop) too.
 */
void emu_truth_add_regs(struct emu *e, struct thr *t, uint64_t ip,
			bool regs)
{
	const struct user_regs_struct *r = &t->regs;
	const uint64_t v[SB_TRUTH_NREGS] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp,
		r->rsp, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
		r->r14, r->r15, r->eflags,
	};
	int ret;

	e->st->insns++;
	if (!t->truth)
		return;
	ret = sb_truth_add_regs(t->truth, ip,
				regs ? (1ull << SB_TRUTH_NREGS) - 1 : 0, v);
	if (ret)
		emu_io_fail(e, ret, "truth");
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

/* ---- thread end ------------------------------------------------------- */

static void save_regs(struct emu *e, struct thr *t)
{
	const struct sb_thread *mt = sb_manifest_thread(e->m,
							(uint32_t)t->tid);
	const struct user_regs_struct *r = &t->regs;
	struct sb_regs sr = { .tid = (uint32_t)t->tid };
	char path[4096];
	struct sb_err err;
	unsigned int i;
	const uint64_t v[SB_REG_COUNT] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
		r->rip, r->eflags, r->cs, r->ss, r->ds, r->es, r->fs, r->gs,
		r->fs_base, r->gs_base, r->orig_rax,
	};

	if (!t->have_regs || !mt || !mt->regs)
		return;
	for (i = 0; i < SB_REG_COUNT; i++)
		sr.val[i] = v[i];
	sr.valid = (1ull << SB_REG_COUNT) - 1;
	sb_bundle_path(e->b, mt->regs, path, sizeof(path));
	if (sb_regs_save(&sr, path, &err))
		emu_fail(e, -EIO, "%s", err.msg);
}

/* Closes the thread's stream: its history ends here. */
void emu_thr_close(struct emu *e, struct thr *t)
{
	struct sb_err err;
	int ret;

	if (!t->opened)
		return;
	/*
	 * A stopped thread is before t->regs.rip (t->ip may have retired);
	 * one whose step is in flight is still before t->ip.
	 */
	if (t->st == T_SYSCALL)
		emu_syscall_entered(e, t);	/* entered, never returned */
	else if (t->enc.enabled)
		emu_enc_check(e, t, ptenc_disable_async(&t->enc,
			  t->st == T_READY && t->have_regs ? t->regs.rip :
			  t->ip));
	e->st->trace_bytes += ptenc_bytes(&t->enc);
	ret = ptenc_close(&t->enc);
	if (ret)
		emu_io_fail(e, ret, "pt stream");
	ret = sb_truth_close(t->truth, &err);
	t->truth = NULL;
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	save_regs(e, t);
	t->opened = false;
}

bool emu_proc_alive(struct emu *e, struct proc *p)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->proc == p && t->st != T_DEAD)
			return true;
	return false;
}

static void thr_exited(struct emu *e, struct thr *t, int status)
{
	struct ptrec_sb_thread_exit te = {
		.hdr = { .type = PTREC_SB_THREAD_EXIT } };
	struct proc *p = t->proc;

	emu_thr_close(e, t);
	t->st = T_DEAD;
	if (e->cur == t)
		e->cur = NULL;
	te.pid = (uint32_t)p->pid;
	te.tid = (uint32_t)t->tid;
	te.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) :
		       128 + WTERMSIG(status);
	emu_emit_record(e, &te.hdr);
	if (!emu_proc_alive(e, p) && !p->exited) {
		struct ptrec_sb_process_exit pe = {
			.hdr = { .type = PTREC_SB_PROCESS_EXIT } };

		p->exited = true;
		if (p->pid == e->main_pid) {
			e->st->main_ended = true;
			e->st->main_wstatus = status;
		}
		pe.pid = (uint32_t)p->pid;
		if (WIFEXITED(status)) {
			pe.kind = PTREC_SB_EXITED;
			pe.status = WEXITSTATUS(status);
		} else {
			pe.kind = WCOREDUMP(status) ? PTREC_SB_DUMPED :
				  PTREC_SB_KILLED;
			pe.status = WTERMSIG(status);
		}
		emu_emit_record(e, &pe.hdr);
	}
}

/* ---- CLONE_UNTRACED --------------------------------------------------- */

/*
 * clone(CLONE_UNTRACED) and clone3 with it make a task ptrace's
 * TRACECLONE does not follow: it would run unrecorded, sharing the
 * memory with CLONE_VM, and the recording would show a process with one
 * thread (the values engine's single-thread rules would then give wrong
 * values: tests/values/review2.c untraced).  So the flag is taken out
 * when the call is issued, as rr does, and put back into rdi (clone) or
 * the flags word (clone3) when the call completes; the child's rdi gets
 * it back at its first stop.  The program sees the flag nowhere but in
 * the kernel's choice to let the recorder follow the child.
 */
void emu_untraced_strip(struct thr *t)
{
	uint64_t flags = 0;
	long word;

	t->untraced = 0;
	if ((long)t->regs.rax != SYS_clone && (long)t->regs.rax != SYS_clone3)
		return;
	/* Tests: a bundle as an older recorder made it (values-test's
	 * untraced-kept: the engine must then not trust the one thread).
	 */
	if (getenv("PTREC_EMU_KEEP_UNTRACED"))
		return;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->regs.rip, 0);
	if (errno || (word & 0xffff) != 0x050f)	/* 0f 05: SYSCALL */
		return;
	if ((long)t->regs.rax == SYS_clone) {
		if (!(t->regs.rdi & CLONE_UNTRACED))
			return;
		t->untraced = CLONE_UNTRACED;
		t->untraced_at = 0;
		t->regs.rdi &= ~(uint64_t)CLONE_UNTRACED;
		if (ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs) < 0) {
			t->regs.rdi |= CLONE_UNTRACED;
			t->untraced = 0;
		}
	} else if ((long)t->regs.rax == SYS_clone3 && t->regs.rsi >= 8) {
		errno = 0;
		flags = (uint64_t)ptrace(PTRACE_PEEKDATA, t->tid,
					 (void *)(uintptr_t)t->regs.rdi, 0);
		if (errno || !(flags & CLONE_UNTRACED))
			return;
		if (ptrace(PTRACE_POKEDATA, t->tid,
			   (void *)(uintptr_t)t->regs.rdi,
			   (void *)(uintptr_t)(flags & ~(uint64_t)
					       CLONE_UNTRACED)) < 0)
			return;
		t->untraced = CLONE_UNTRACED;
		t->untraced_at = t->regs.rdi;
	}
}

/* The flag back where emu_untraced_strip() took it from (@t stopped, its
 * registers read).
 */
void emu_untraced_restore(struct thr *t)
{
	uint64_t flags;

	if (!t->untraced)
		return;
	if (t->untraced_at) {
		errno = 0;
		flags = (uint64_t)ptrace(PTRACE_PEEKDATA, t->tid,
					 (void *)(uintptr_t)t->untraced_at, 0);
		if (!errno)
			ptrace(PTRACE_POKEDATA, t->tid,
			       (void *)(uintptr_t)t->untraced_at,
			       (void *)(uintptr_t)(flags | t->untraced));
	} else {
		t->regs.rdi |= t->untraced;
		ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
	}
	t->untraced = 0;
}

/* ---- stops ------------------------------------------------------------ */

/*
 * The clear_child_tid the kernel gave child @t: clone's ctid (r10) or
 * clone3's child_tid (struct clone_args, at 16) with
 * CLONE_CHILD_CLEARTID, else none (fork and vfork too).  A vfork event
 * may come from clone(CLONE_VFORK | CLONE_CHILD_CLEARTID, ...): its
 * ctid too (tests/gdb/watchvm.c vfork, tests/values/review4.c
 * vforkctid: the child's exit writes 0 to the parent's word).
 */
static void child_ctid(struct thr *t, struct thr *parent)
{
	long nr = (long)parent->entry.rax;
	uint64_t args[3];

	t->ctid = 0;
	t->ctid_known = true;
	if (nr != SYS_clone && nr != SYS_clone3)
		return;
	if (nr == SYS_clone) {
		if (parent->entry.rdi & CLONE_CHILD_CLEARTID)
			t->ctid = parent->entry.r10;
		return;
	}
	{
		struct iovec l = { args, sizeof(args) };
		struct iovec r = { (void *)(uintptr_t)parent->entry.rdi,
				   sizeof(args) };

		if (parent->entry.rsi < sizeof(args) ||
		    process_vm_readv(parent->tid, &l, 1, &r, 1, 0) !=
		    (ssize_t)sizeof(args)) {
			t->ctid_known = false;
			return;
		}
	}
	/* The flags as the program passed them (CLONE_UNTRACED aside). */
	if (args[0] & CLONE_CHILD_CLEARTID)
		t->ctid = args[2];
}

/* Is the system call @t entered an int 0x80 (i386's numbers)? */
static bool is_int80(const struct thr *t)
{
	uint8_t b[2] = { 0, 0 };
	struct iovec l = { b, 2 };
	struct iovec r = { (void *)(uintptr_t)t->entry.rip, 2 };

	return process_vm_readv(t->tid, &l, 1, &r, 1, 0) == 2 &&
	       b[0] == 0xcd && b[1] == 0x80;
}

static void new_child(struct emu *e, struct thr *parent, int event)
{
	struct ptrec_sb_thread_start ts = {
		.hdr = { .type = PTREC_SB_THREAD_START } };
	unsigned long msg = 0;
	struct proc *p = parent->proc;
	uint64_t arg;
	struct thr *t;
	bool i386;
	pid_t tid;
	long nr;

	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0, &msg) < 0)
		return;
	tid = (pid_t)msg;
	if (event != PTRACE_EVENT_CLONE) {
		p = emu_proc_new(e, tid, parent->proc->pid);
		if (!p || emu_maps_copy(&p->maps, &parent->proc->maps)) {
			emu_fail(e, -ENOMEM, "out of memory");
			return;
		}
		emu_proc_set_exe(e, p);
	}
	t = emu_thr_find(e, tid);
	if (!t)
		t = emu_thr_new(e, tid, p, T_NEW);
	else
		t->proc = p;	/* its first stop came before this event */
	for (unsigned int i = 0; t && i < e->nearly; i++)
		if (e->early[i] == tid) {
			e->early[i] = e->early[--e->nearly];
			emu_get_regs(t);
			t->ip = t->regs.rip;
			t->st = T_READY;
			break;
		}
	ts.pid = (uint32_t)p->pid;
	ts.tid = (uint32_t)tid;
	ts.parent_pid = (uint32_t)parent->proc->pid;
	ts.parent_tid = (uint32_t)parent->tid;
	ts.clone_flags = event == PTRACE_EVENT_VFORK ? CLONE_VFORK | CLONE_VM :
			 0;
	/* i386's numbers through int 0x80 (clone 120, fork 2, clone3 435),
	 * arguments in ebx: 64-bit 120 and 2 (getresgid, open) make no
	 * child, and the instruction tells clone3's ABI.
	 */
	i386 = is_int80(parent);
	nr = (long)parent->entry.rax;
	arg = i386 ? (uint32_t)parent->entry.rbx : parent->entry.rdi;
	if (event != PTRACE_EVENT_VFORK &&
	    ((!i386 && nr == SYS_clone) || (i386 && nr == 120) ||
	     nr == SYS_clone3)) {
		/* clone(2) passes flags in RDI (i386: EBX); clone3(2) in
		 * its struct clone_args, whose first member is the flags.
		 * Also for a fork event: clone(CLONE_VM | SIGCHLD) is one,
		 * and the values engine must know the child shares the
		 * memory (tests/values/review4.c clone80).
		 */
		ts.clone_flags = arg;
		if (nr == SYS_clone3) {
			struct iovec l = { &ts.clone_flags, 8 };
			struct iovec r = { (void *)(uintptr_t)arg, 8 };

			if (process_vm_readv(parent->tid, &l, 1, &r, 1, 0) != 8)
				ts.clone_flags = 0;
		}
	} else if (event == PTRACE_EVENT_FORK &&
		   ((!i386 && nr == SYS_fork) || (i386 && nr == 2))) {
		/* fork is clone(SIGCHLD): no flags at all would be "not
		 * known" to the values engine (rcv_clone_flags()).
		 */
		ts.clone_flags = SIGCHLD;
	}
	if (t) {
		child_ctid(t, parent);
		/* The child starts with its creator's blocked mask (fork(2),
		 * clone(2)), SIGTRAP hidden as the creator's is: the old mask
		 * its rt_sigprocmask returns shows it, and its detach or signal
		 * frame puts it back (emu_trap.c).
		 */
		t->trap_hidden = parent->trap_hidden;
	}
	/* A child of a clone whose CLONE_UNTRACED was taken out: its rdi
	 * gets it back at its first stop (now, if that came already).
	 */
	if (t && parent->untraced && !parent->untraced_at) {
		t->untraced = parent->untraced;
		t->untraced_at = 0;
		if (t->st == T_READY && !emu_get_regs(t))
			emu_untraced_restore(t);
	}
	if (p != parent->proc && (ts.clone_flags & CLONE_VM))
		p->mem_of = parent->proc->mem_of ? parent->proc->mem_of :
			    parent->proc;
	emu_emit_record(e, &ts.hdr);
	if (t)
		emu_emit_comm(e, t);
}

/*
 * An execve by a thread other than the leader: de_thread() killed the
 * leader @t (its PTRACE_EVENT_EXIT came, never its death) and the exec'ing
 * thread, @former_tid until now, goes on with the leader's tid.  The
 * leader's history ends where it was killed (an asynchronous disable: the
 * instruction of a step in flight did not retire), so that the new image's
 * first instruction is an enable, not a jump from the leader's last one
 * (tests/values/review4.c execmt: "trace stream does not match query");
 * the exec'ing thread's history ends with its SYSCALL, and it leaves as
 * the kernel says (no death of its former tid is ever reported).
 */
static void exec_by_other(struct emu *e, struct thr *t, pid_t former_tid)
{
	struct thr *o = emu_thr_find(e, former_tid);

	if (t->enc.enabled)
		emu_enc_check(e, t, ptenc_disable_async(&t->enc,
			  t->st == T_READY && t->have_regs ? t->regs.rip :
			  t->ip));
	if (!o || o == t || o->st == T_DEAD)
		return;
	if (o->st == T_SYSCALL)
		emu_syscall_entered(e, o);
	o->st = T_EXITING;
	thr_exited(e, o, 0);
}

static void exec_happened(struct emu *e, struct thr *t)
{
	struct ptrec_sb_exec ex = { .hdr = { .type = PTREC_SB_EXEC } };
	struct proc *p = t->proc;
	char link[64], path[4096];
	unsigned long former = 0;
	struct sb_err err;
	ssize_t n;
	int ret;

	/* The SYSCALL that ran execve is in the history. */
	if (!ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &former) &&
	    (pid_t)former != t->tid && former)
		exec_by_other(e, t, (pid_t)former);
	else if (t->st == T_SYSCALL)
		emu_syscall_entered(e, t);
	snprintf(link, sizeof(link), "/proc/%d/exe", p->pid);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	ex.hdr.time = emu_now(e);
	ex.pid = (uint32_t)p->pid;
	ex.tid = (uint32_t)t->tid;
	ret = sb_writer_add_exec(e->sb, &ex, path, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	emu_proc_set_exe(e, p);
	p->mem_of = NULL;	/* a vfork child's exec: its own memory now */
	t->ctid = 0;		/* exec_mm_release() cleared both */
	t->ctid_known = true;
	t->compat_robust = false;
	maps_free(&p->maps);
	emu_update_maps(e, p, t->tid, 0);
	emu_emit_comm(e, t);
	emu_get_regs(t);
	t->st = T_READY;
}

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
	t->regs.r11 &= ~0x100ull;
	ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
}

/* The SYSCALL stepped into returned: in the history, its effects noted. */
__attribute__((noinline))
static void syscall_done(struct emu *e, struct thr *t)
{
	emu_untraced_restore(t);
	emu_trap_restore(t, true);
	emu_syscall_entered(e, t);
	after_syscall(e, t);
	emu_trap_after_syscall(t);
	emu_trap_hide(t);
	t->st = T_READY;
}

/* A SIGTRAP stop after a step: the instruction completed. */
static void step_done(struct emu *e, struct thr *t)
{
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
		emu_trap_hide(t);	/* the handler's mask may block it */
		return;
	}
	if (__builtin_expect(t->regs.rcx == next, 0))
		syscall_r11(t);
	if (t->st == T_SYSCALL) {
		syscall_done(e, t);
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
	 */
	if (next == t->ip && (t->in.rep || t->in.cls == IC_OTHER))
		return;
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
	if (__builtin_expect(t->in.pushf, 0) && next == t->ip + t->in.len)
		pushf_untrap(t);
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
	if (s.sflags == PTREC_SB_SIG_FATAL)
		emu_snap_proc(e, t->proc, SB_SNAP_END_SIGNAL, sig, t, &si);
}

void emu_handle_stop(struct emu *e, pid_t tid, int status)
{
	struct thr *t = emu_thr_find(e, tid);
	int event = status >> 16;
	int sig;


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
		if (!emu_proc_find(e, tgid)) {
			/* A fork child: its parent's event creates it. */
			if (e->nearly < SB_ARRAY_SIZE_EARLY)
				e->early[e->nearly++] = tid;
			return;
		}
		t = emu_thr_new(e, tid, emu_proc_find(e, tgid), T_NEW);
		if (!t)
			return;
	}
	if (t->st == T_GSTOP) {
		t->st = T_READY;	/* woken by SIGKILL: it dies next */
		e->gstopped--;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thr_exited(e, t, status);
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
	if (t->st == T_NEW) {
		/* The SIGSTOP every new tracee starts with. */
		emu_get_regs(t);
		emu_untraced_restore(t);
		t->ip = t->regs.rip;
		t->st = T_READY;
		return;
	}
	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		new_child(e, t, event);
		/* Still inside the syscall: let it finish. */
		ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0);
		return;
	case PTRACE_EVENT_EXEC:
		exec_happened(e, t);
		return;
	case PTRACE_EVENT_STOP:
		emu_get_regs(t);
		t->st = T_READY;
		return;
	case PTRACE_EVENT_EXIT:
		emu_exit_stop(e, t);
		return;
	default:
		break;
	}
	if (sig == SIGTRAP &&
	    ((!t->in.trap && t->st != T_SYSCALL) || !emu_program_trap(t)))
		step_done(e, t);
	else if (sig == SIGTRAP)
		program_sigtrap(e, t);
	else if (emu_group_stop(t, sig)) {
		t->st = T_GSTOP;
		e->gstopped++;
	} else
		signal_stop(e, t, sig);
}

