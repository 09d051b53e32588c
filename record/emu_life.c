// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder's stops that begin or end a thread or a process
 * (emu.h): a clone, fork or vfork event (the child's thread, its
 * clear_child_tid, CLONE_UNTRACED taken off its clone), an exec (by the
 * thread or by another of its process) and an exit, each closing or
 * opening streams and sideband.  Split from emu_step.c, which decides
 * what every other stop means for the history.
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
	emu_truth_release(e, t, UINT64_MAX);	/* it never went on */
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

void emu_thr_exited(struct emu *e, struct thr *t, int status)
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
void emu_untraced_strip(const struct emu *e, struct thr *t)
{
	uint64_t flags = 0;
	long word;

	t->untraced = 0;
	if ((long)t->regs.rax != SYS_clone && (long)t->regs.rax != SYS_clone3)
		return;
	/* Tests: a bundle as an older recorder made it (values-test's
	 * untraced-kept: the engine must then not trust the one thread).
	 */
	if (e->knobs.keep_untraced)
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

/* The two bytes at the instruction @t was stepped from, or 0. */
static unsigned int entry_bytes(const struct thr *t)
{
	uint8_t b[2] = { 0, 0 };
	struct iovec l = { b, 2 };
	struct iovec r = { (void *)(uintptr_t)t->entry.rip, 2 };

	if (process_vm_readv(t->tid, &l, 1, &r, 1, 0) != 2)
		return 0;
	return (unsigned int)b[0] << 8 | b[1];
}

/* Is the system call @t entered an int 0x80 (i386's numbers)? */
bool emu_is_int80(const struct thr *t)
{
	return entry_bytes(t) == 0xcd80;
}

/*
 * Is the instruction @t was stepped from a SYSCALL (0f 05)?  Not int
 * 0x80, nor any other of the 2-byte instructions that leave user mode
 * or change cs (IC_FAR: lcall/ljmp through memory, lretq, int n).
 */
bool emu_is_syscall(const struct thr *t)
{
	return entry_bytes(t) == 0x0f05;
}

/*
 * The clone flags of @parent's call that made a child (@event): clone's
 * rdi (i386's ebx), clone3's first word of its struct clone_args, fork's
 * SIGCHLD, vfork's CLONE_VFORK | CLONE_VM.
 */
static uint64_t child_flags(struct thr *parent, int event)
{
	uint64_t flags = event == PTRACE_EVENT_VFORK ? CLONE_VFORK | CLONE_VM :
			 0;
	bool i386;
	uint64_t arg;
	long nr;

	/* i386's numbers through int 0x80 (clone 120, fork 2, clone3 435),
	 * arguments in ebx: 64-bit 120 and 2 (getresgid, open) make no
	 * child, and the instruction tells clone3's ABI.
	 */
	i386 = emu_is_int80(parent);
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
		flags = arg;
		if (nr == SYS_clone3) {
			struct iovec l = { &flags, 8 };
			struct iovec r = { (void *)(uintptr_t)arg, 8 };

			if (process_vm_readv(parent->tid, &l, 1, &r, 1, 0) != 8)
				flags = 0;
		}
	} else if (event == PTRACE_EVENT_FORK &&
		   ((!i386 && nr == SYS_fork) || (i386 && nr == 2))) {
		/* fork is clone(SIGCHLD): no flags at all would be "not
		 * known" to the values engine (rcv_clone_flags()).
		 */
		flags = SIGCHLD;
	}
	return flags;
}

/* ---- a tid used again ------------------------------------------------- */

/*
 * A task whose tid is that of a thread the recording saw end (clone3's
 * set_tid, pid wraparound: review 13's tidre).  The bundle names a
 * thread's stream, ground truth, registers and every record by its tid,
 * so a second life cannot be recorded beside the first (its stops were
 * taken for the first life's, whose encoder was closed: "pt stream:
 * Protocol error", the recording lost).
 * It runs untraced instead: an UNTRACED record (sideband version 6) says
 * so, with its creator and clone flags, and the values engine then takes
 * nothing as ordered or private in the memory it may share
 * (docs/values.md "Tasks the recording does not show").  Detached at its
 * first stop, as untraced as it would run natively: CLONE_UNTRACED back
 * in its rdi, the stepping's trap flag out of its r11 and rflags, SIGTRAP
 * back in its mask where its creator's was hidden.  Its own children,
 * no longer followed by ptrace, are not recorded either.
 */
static struct emu_untr *untr_find(struct emu *e, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < e->nuntr; i++)
		if (e->untr[i].tid == tid)
			return &e->untr[i];
	return NULL;
}

static struct emu_untr *untr_add(struct emu *e, pid_t tid)
{
	struct emu_untr *v = realloc(e->untr, (e->nuntr + 1) * sizeof(*v));

	if (!v) {
		emu_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	e->untr = v;
	v[e->nuntr] = (struct emu_untr){ .tid = tid };
	return &v[e->nuntr++];
}

static void untr_del(struct emu *e, struct emu_untr *u)
{
	*u = e->untr[--e->nuntr];
}

bool emu_untr_waiting(const struct emu *e)
{
	unsigned int i;

	for (i = 0; i < e->nuntr; i++)
		if (e->untr[i].announced)
			return true;
	return false;
}

/* Its first stop (@status), its creator's event known: done (true), or
 * the SIGSTOP still to come.
 */
static bool untr_first(struct emu_untr *u, int status)
{
	int event = status >> 16, sig;
	struct user_regs_struct r;
	uint8_t b[2] = { 0, 0 };
	uint64_t m;

	if (!WIFSTOPPED(status))
		return true;	/* dead before it ran */
	sig = WSTOPSIG(status);
	if (!event && sig != SIGSTOP) {
		/* A signal sent before the SIGSTOP every new tracee starts
		 * with: delivered as natively, the SIGSTOP stops it next.
		 */
		return ptrace(PTRACE_CONT, u->tid, 0, sig) < 0;
	}
	if (event != PTRACE_EVENT_EXIT &&
	    !ptrace(PTRACE_GETREGS, u->tid, 0, &r)) {
		struct iovec l = { b, 2 };
		struct iovec rm = { (void *)(uintptr_t)(r.rip - 2), 2 };
		struct user_regs_struct o = r;

		r.rdi |= u->untraced;
		r.eflags &= ~0x100ull;
		if (u->tf)	/* the program's own (emu_tf_step()) */
			r.eflags |= 0x100;
		/* Its creator's r11 at the SYSCALL, with the step's TF. */
		if (r.rcx == r.rip &&
		    process_vm_readv(u->tid, &l, 1, &rm, 1, 0) == 2 &&
		    b[0] == 0x0f && b[1] == 0x05)
			r.r11 &= ~0x100ull;
		if (memcmp(&o, &r, sizeof(r)))
			ptrace(PTRACE_SETREGS, u->tid, 0, &r);
		if (u->trap_hidden &&
		    !ptrace(PTRACE_GETSIGMASK, u->tid, (void *)sizeof(m),
			    &m)) {
			m |= TRAP_BIT;
			ptrace(PTRACE_SETSIGMASK, u->tid, (void *)sizeof(m),
			       &m);
		}
	}
	ptrace(PTRACE_DETACH, u->tid, 0, 0);	/* the SIGSTOP dropped */
	return true;
}

bool emu_untr_stop(struct emu *e, pid_t tid, int status)
{
	struct emu_untr *u = untr_find(e, tid);

	if (!u) {
		/* A stop of a tid whose thread ended: a new task's first
		 * stop before its creator's event, kept until then.
		 */
		if (emu_thr_find(e, tid) || !emu_thr_was(e, tid))
			return false;
		u = untr_add(e, tid);
		if (u) {
			u->stopped = true;
			u->status = status;
		}
		return true;
	}
	if (!u->announced) {
		u->status = status;	/* (its death: killed meanwhile) */
		return true;
	}
	if (untr_first(u, status))
		untr_del(e, u);
	return true;
}

void emu_untr_finish(struct emu *e)
{
	unsigned int i;
	int status;

	for (i = 0; i < e->nuntr; i++) {
		struct emu_untr *u = &e->untr[i];

		/* Stopped before an event that never came: let go too. */
		if (!u->announced) {
			if (!untr_first(u, u->status))
				u->announced = true;
			else
				continue;
		}
		while (waitpid(u->tid, &status, __WALL) == u->tid &&
		       !untr_first(u, status))
			;
	}
	e->nuntr = 0;
}

/* @parent's clone, fork or vfork made @tid, a recorded thread's tid. */
static void untr_child(struct emu *e, struct thr *parent, int event,
		       pid_t tid)
{
	struct ptrec_sb_untraced r = {
		.hdr = { .type = PTREC_SB_UNTRACED } };
	struct emu_untr *u = untr_find(e, tid);

	r.pid = event == PTRACE_EVENT_CLONE ? (uint32_t)parent->proc->pid :
		(uint32_t)tid;
	r.tid = (uint32_t)tid;
	r.parent_pid = (uint32_t)parent->proc->pid;
	r.parent_tid = (uint32_t)parent->tid;
	r.clone_flags = child_flags(parent, event);
	r.reason = PTREC_SB_UNTRACED_TID_REUSED;
	emu_emit_record(e, &r.hdr);
	rec_warn(false,
		 "%s %d (made by thread %d) has the tid of a thread recorded before: it runs untraced, its history is not recorded",
		 event == PTRACE_EVENT_CLONE ? "thread" : "process", tid,
		 parent->tid);
	if (!u)
		u = untr_add(e, tid);
	if (!u)
		return;
	u->announced = true;
	u->trap_hidden = parent->trap_hidden;
	u->tf = parent->tf;
	u->untraced = parent->untraced_at ? 0 : parent->untraced;
	if (u->stopped && untr_first(u, u->status))
		untr_del(e, u);
}

void emu_new_child(struct emu *e, struct thr *parent, int event)
{
	struct ptrec_sb_thread_start ts = {
		.hdr = { .type = PTREC_SB_THREAD_START } };
	unsigned long msg = 0;
	struct proc *p = parent->proc;
	bool early = false;
	struct thr *t;
	int first = 0;
	pid_t tid;

	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0, &msg) < 0)
		return;
	tid = (pid_t)msg;
	emu_death_reused(e, tid);	/* tests */
	if (!emu_thr_find(e, tid) && emu_thr_was(e, tid)) {
		untr_child(e, parent, event, tid);
		return;
	}
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
	/*
	 * Its first stop came before this event (emu_handle_stop() kept
	 * it): handled below as if it came now, once the thread is known,
	 * so that it is what a first stop after the event is (a SIGSTOP:
	 * its registers, r11's trap flag, CLONE_UNTRACED; a handled signal
	 * dequeued before that SIGSTOP: kept for its first step, with its
	 * SIGNAL record).  Taken for the SIGSTOP, such a signal was lost
	 * and r11 kept the stepping's TF (review 13's clonesig, untr under
	 * PTREC_EMU_TEST_LATE_CLONE).
	 */
	for (unsigned int i = 0; t && i < e->nearly; i++)
		if (e->early[i] == tid) {
			first = e->early_status[i];
			early = true;
			e->early[i] = e->early[--e->nearly];
			e->early_status[i] = e->early_status[e->nearly];
			break;
		}
	ts.pid = (uint32_t)p->pid;
	ts.tid = (uint32_t)tid;
	ts.parent_pid = (uint32_t)parent->proc->pid;
	ts.parent_tid = (uint32_t)parent->tid;
	ts.clone_flags = child_flags(parent, event);
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
	if (early)
		emu_handle_stop(e, tid, first);
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
	emu_thr_exited(e, o, 0);
}

void emu_exec_happened(struct emu *e, struct thr *t)
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
	/* Under the old leader's tid, whose exit event de_thread() gave:
	 * the exec'ing thread, alive (in the snapshot at its end).
	 */
	t->exit_seen = false;
	maps_free(&p->maps);
	emu_update_maps(e, p, t->tid, 0);
	emu_emit_comm(e, t);
	emu_get_regs(t);
	t->st = T_READY;
}
