/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the software recorder (emu*.c): its state (processes,
 * threads, the recording) and the functions its files share.  emu.c
 * schedules and steps threads; emu_step.c turns their stops into trace and
 * sideband, emu_life.c those that begin or end a thread; emu_space.c models processes, threads and address spaces;
 * emu_ptwrite.c emulates PTWRITE;
 * emu_start.c launches or attaches; emu_end.c ends each process's
 * recording with its snapshot and ends the live ones.
 */
#ifndef PTREC_RECORD_EMU_H
#define PTREC_RECORD_EMU_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "images.h"
#include "insn.h"
#include "maps.h"
#include "ptenc.h"
#include "record.h"
#include "skel.h"
#include "snapshot.h"

#define QUANTUM 10000		/* instructions before another thread runs */
#define ICACHE_SIZE (1u << 16)
#define SB_ARRAY_SIZE_EARLY 64

enum tstate {
	T_NEW,		/* announced by a clone event, first stop pending */
	T_READY,	/* in ptrace-stop at an instruction boundary */
	T_STEP,		/* stepping one user instruction */
	T_SYSCALL,	/* stepping a SYSCALL: may block in the kernel */
	T_EXITING,	/* vanished under us (killed): its exit follows */
	T_GSTOP,	/* in a group stop (SIGSTOP...): waits for SIGCONT */
	T_DEAD,
};

struct proc {
	pid_t pid, ppid;
	struct maps maps;
	bool exited;
	bool snapped;			/* its end state is in the snapshot */
	uint32_t gen;			/* images snapshotted at execve */
	struct rec_snap_rseqs rseq;	/* its threads' rseq areas */
	/* a CLONE_VM child (vfork): the process whose memory it shares
	 * until its exec, where its rseq areas are listed too
	 */
	struct proc *mem_of;
	/* its thread stepped into execve last (emu.c's exec_held()) */
	struct thr *execing;
	/* its thread whose exit_group or fatal signal ends it all, or
	 * whose exit event came first: no other is stepped (emu_end.c)
	 */
	pid_t dying_by;
	/* a SIGTRAP sent to it (kill, sigqueue) while the mask of the
	 * thread that took it held SIGTRAP: held for any of its threads,
	 * as the kernel keeps it in the process's queue (emu_trap_held())
	 */
	bool trap_pend;
	siginfo_t trap_si;
	struct proc *next;
};

/* Linux's 64-bit user code segment (__USER_CS); 0x23 is the 32-bit one. */
#define EMU_USER_CS 0x33

struct thr {
	pid_t tid;
	struct proc *proc;
	enum tstate st;
	struct user_regs_struct regs;	/* at the last stop */
	bool have_regs;
	struct user_regs_struct entry;	/* when the step was issued */
	struct insn in;			/* instruction being stepped */
	uint64_t ip;
	int pending_sig;		/* to deliver at the next resume */
	bool delivering;		/* a caught signal is being delivered */
	int deliver_sig;		/* which */
	bool trap_hidden;		/* SIGTRAP taken out of its mask */
	/* SIGTRAP taken out of the mask word its system call reads, at
	 * @trap_set_at (emu_trap_strip()), until the call completes
	 */
	uint64_t trap_set_at;
	bool trap_stripped;		/* ... and that call ran */
	bool trap32;			/* the call: int $0x80's rt_sigprocmask */
	/* a call's temporary mask is the thread's until the signal that
	 * interrupted it is delivered (emu_trap_after_syscall()); at that
	 * delivery SIGTRAP goes back into the frame's saved mask
	 * (@trap_frame), not into the thread's
	 */
	bool trap_tmp;
	bool trap_frame;
	/* a SIGTRAP sent to it (tgkill; kill's and sigqueue's are its
	 * process's: struct proc) while its own mask held SIGTRAP
	 * (@trap_hidden): suppressed at its stop and held pending here,
	 * with its siginfo, until the mask lets it through
	 * (emu_trap_held(), emu_trap_release())
	 */
	bool trap_pend;
	siginfo_t trap_si;
	/* its call that looks at its pending signals runs under
	 * PTRACE_SYSCALL, the held SIGTRAP given back to the kernel for it
	 * (emu_trapq.c): which stop comes next (enum trapq)
	 */
	int trap_sysc;
	/* the program's own trap flag (emu_tf_step()): set by a POPF of a
	 * word with TF, its handler's frame, cleared at a delivery
	 */
	bool tf;
	bool started;			/* PSB+ written */
	/* found running by -p: no REGS record of its start (emu.c) */
	bool attached;
	bool rseq_asked;		/* its registration when first stopped */
	bool opened;
	/* its step (T_STEP) is blocked in the kernel (a page fault another
	 * thread resolves: userfaultfd): others step meanwhile
	 */
	bool blocked;
	/* its step runs code under a cs other than the 64-bit user cs
	 * (compatibility mode, after a far transfer or sigreturn): no
	 * packets, no truth, the trace disabled (emu.c issue_step())
	 */
	bool compat;
	/* CLONE_UNTRACED stripped from its clone (emu_untraced_strip()):
	 * to put back into rdi (or clone3's flags word at @untraced_at)
	 * when the call completes, and into a child's rdi at its first
	 * stop.
	 */
	uint64_t untraced;
	uint64_t untraced_at;
	/*
	 * The kernel's clear_child_tid for it (EXIT_FUTEX, emu_end.c), as
	 * its clone, set_tid_address and exec set it; known for a thread
	 * the recording saw begin.  compat_robust: an i386
	 * set_robust_list, whose list get_robust_list(2) does not show.
	 */
	uint64_t ctid;
	bool ctid_known;
	bool compat_robust;
	/* its PTRACE_EVENT_EXIT came and it went on: it has left (its
	 * exit's writes may be done), in no later snapshot
	 */
	bool exit_seen;
	/* Tests (emu_late.c, PTREC_EMU_TEST_CLONE_ORDER=parent): a new
	 * thread not stepped until its parent's clone has returned
	 */
	bool order_held;
	struct ptenc enc;
	struct sb_truth_writer *truth;
	/* Its SYSCALL (int 0x80) that returned to the instruction after
	 * it: the truth's record, with @held_regs after it, waits until
	 * the thread's next record shows that it went on there
	 * (emu_step.c emu_truth_release()).
	 */
	bool truth_held;
	uint64_t held_ip;
	struct user_regs_struct held_regs;
	struct thr *next;
};

struct icache_ent {
	uint64_t ip;
	pid_t pid;
	uint32_t gen;
	struct insn in;
};

/*
 * Tests only: the recorder's test knobs (emu_late.c), read from the
 * environment once when a recording starts, so that no step asks again.
 */
struct emu_knobs {
	bool late_clone;	/* PTREC_EMU_TEST_LATE_CLONE */
	bool late_reap;		/* PTREC_EMU_TEST_LATE_REAP */
	bool slow_exit;		/* PTREC_EMU_TEST_SLOW_EXIT */
	bool no_regs;		/* PTREC_EMU_TEST_NO_REGS */
	bool no_sysret;		/* PTREC_EMU_TEST_NO_SYSRET */
	bool sysret_result;	/* PTREC_EMU_TEST_SYSRET_RESULT */
	bool compat_trace;	/* PTREC_EMU_COMPAT_TRACE */
	bool keep_untraced;	/* PTREC_EMU_KEEP_UNTRACED */
	char clone_order;	/* PTREC_EMU_TEST_CLONE_ORDER: 'c'hild, 'p'arent */
};

/*
 * A task whose tid is that of a thread recorded before (clone3's set_tid,
 * pid wraparound), let run untraced (emu_life.c): its first stop, which
 * may come before its creator's clone event (@stopped, with @status) or
 * after it (@announced: the event came, and with it the creator's
 * CLONE_UNTRACED to put back and its hidden SIGTRAP).
 */
struct emu_untr {
	pid_t tid;
	int status;
	bool stopped;
	bool announced;
	bool trap_hidden;
	bool tf;			/* the program's own trap flag */
	uint64_t untraced;
};

struct emu {
	const struct rec_options *o;
	struct rec_stats *st;
	struct sb_err *err;
	struct sb_bundle *b;
	struct sb_manifest *m;
	struct sb_writer *sb;
	struct insn_decoder *dec;
	struct icache_ent *icache;
	uint32_t gen;
	struct proc *procs;
	struct thr *threads;
	struct thr *cur;
	uint64_t quantum;
	uint64_t clock;
	int64_t mono_to_real;
	struct rec_images images;
	struct rec_snap snap;
	pid_t main_pid;
	bool launched;
	int error;			/* first fatal error */
	pid_t early[64];		/* stopped before their fork event */
	int early_status[64];		/* that stop, as waitpid() said */
	unsigned int nearly;
	uint64_t last_progress;
	uint64_t last_flush;
	uint64_t steps;			/* steps issued */
	uint64_t tick_steps;		/* at the last watchdog tick */
	unsigned int gstopped;		/* threads in T_GSTOP */
	struct emu_knobs knobs;		/* tests (emu_late.c) */
	/* Tests (emu_late.c): a clone event, a thread's death held back */
	pid_t held;			/* the clone's parent, 0: none */
	int held_event;
	unsigned int held_polls;
	pid_t held_dead;		/* the thread, 0: none */
	int held_status;
	/* Tests (emu_late.c, PTREC_EMU_TEST_CLONE_ORDER): the parent of
	 * a clone event whose return, or whose child's first step, waits
	 */
	pid_t order_parent;
	pid_t order_child;
	bool order_child_first;
	unsigned int order_polls;
	uint64_t order_steps;		/* e->steps at the clone event */
	/* Tasks with a tid recorded before, until their first stop is
	 * handled (emu_life.c emu_untr_stop()): they then run untraced.
	 */
	struct emu_untr *untr;
	unsigned int nuntr;
};

/* emu.c */
/* The first error wins (rec_fail()); returns @code. */
#define emu_fail(e, code, ...) \
	rec_fail(&(e)->error, (e)->err, (code), __VA_ARGS__)
/* The recording's clock: monotonic ns, strictly increasing. */
uint64_t emu_now(struct emu *e);
/* A write error of the bundle (sideband or a stream @what). */
int emu_io_fail(struct emu *e, int ret, const char *what);
/* The scheduler state letter of thread @tid (field 3 of its stat), or 0. */
char emu_thr_state(pid_t pid, pid_t tid);

/* emu_space.c */
void emu_emit_record(struct emu *e, struct ptrec_sb_header *h);

/* SIGTRAP in a signal mask word (emu_trap.c, emu_trapq.c). */
#define TRAP_BIT (1ull << (SIGTRAP - 1))
/* Does system call @nr install a temporary mask (emu_trap.c)? */
bool emu_trap_tmp_mask_call(long nr);
void emu_emit_comm(struct emu *e, struct thr *t);
void emu_emit_switch(struct emu *e, struct thr *t, uint16_t type,
		     uint16_t flags);
void emu_compat_done(struct emu *e, struct thr *t);
void emu_text_check(struct emu *e, struct thr *t);
void emu_update_maps(struct emu *e, struct proc *p, pid_t tid,
		     uint16_t flags);
int emu_maps_copy(struct maps *dst, const struct maps *src);
void emu_proc_set_exe(struct emu *e, struct proc *p);
struct proc *emu_proc_find(struct emu *e, pid_t pid);
struct proc *emu_proc_new(struct emu *e, pid_t pid, pid_t ppid);
/* The live (not T_DEAD) thread @tid, or NULL. */
struct thr *emu_thr_find(struct emu *e, pid_t tid);
/* Did a thread @tid of the recording end (its tid free for another)? */
bool emu_thr_was(struct emu *e, pid_t tid);
struct thr *emu_thr_new(struct emu *e, pid_t tid, struct proc *p,
			enum tstate st);
int emu_get_regs(struct thr *t);
/* emu_trap.c: the program's own signals under single steps. */
int emu_byte_at(const struct thr *t, uint64_t addr);
void emu_trap_hide(struct thr *t);
void emu_trap_show(struct thr *t);
void emu_trap_after_syscall(struct thr *t);
int emu_trap_strip(struct thr *t, int sig);
void emu_trap_restore(struct thr *t, bool ran);
void emu_trap_frame(struct thr *t);
bool emu_tf_step(struct thr *t);
bool emu_program_trap(struct thr *t);
bool emu_trap_held(struct thr *t, const siginfo_t *si);
bool emu_trap_release(struct thr *t);
bool emu_group_stop(struct thr *t, int sig);
void emu_trap_take(struct emu *e, struct thr *t);	/* emu_step.c */

/* The SIGTRAP @t holds, its own or its process's: its siginfo, or NULL. */
static inline siginfo_t *emu_trap_held_si(struct thr *t)
{
	return t->trap_pend ? &t->trap_si :
	       t->proc->trap_pend ? &t->proc->trap_si : NULL;
}

/* ... delivered to @t or given back to the kernel: held no longer. */
static inline void emu_trap_taken(struct thr *t)
{
	if (t->trap_pend)
		t->trap_pend = false;
	else
		t->proc->trap_pend = false;
}

/* emu_trapq.c: the held SIGTRAP back in the kernel, for a call or the
 * detach.  States of t->trap_sysc, then emu_trapq_stop()'s answers.
 */
enum trapq {
	TRAPQ_NONE,	/* not under PTRACE_SYSCALL; a stop to handle as any */
	TRAPQ_ENTRY,	/* resumed to the call's entry */
	TRAPQ_EXIT,	/* resumed to its exit */
	TRAPQ_BACK,	/* to the SIGTRAP it left pending */
	TRAPQ_RESUMED,	/* the stop taken, the thread resumed */
	TRAPQ_DONE,	/* the step is done: step_done() */
};
bool emu_trap_delivery_stop(const struct thr *t);
int emu_trapq_issue(struct thr *t);
int emu_trapq_stop(struct thr *t, int status);
int emu_trapq_detach(struct thr *t);
void emu_trapq_resend(struct thr *t);
/* emu_life.c: CLONE_UNTRACED off a clone the recorder steps. */
/* Is the system call @t entered an int 0x80 (i386's numbers)? */
bool emu_is_int80(const struct thr *t);
/* Is the instruction @t was stepped from a SYSCALL (0f 05)? */
bool emu_is_syscall(const struct thr *t);
void emu_untraced_strip(const struct emu *e, struct thr *t);
void emu_untraced_restore(struct thr *t);

/* emu_step.c */
/* The instruction at @ip of @t's process (cached); len 0: unknown. */
int emu_fetch_insn(struct emu *e, struct thr *t, uint64_t ip,
		   struct insn *in);
void emu_enc_check(struct emu *e, struct thr *t, int ret);
/* Instruction @ip in the ground truth; with @regs, t->regs after it. */
void emu_truth_add_regs(struct emu *e, struct thr *t, uint64_t ip,
			bool regs);
/* The held SYSCALL record into the truth before @t's next, instruction
 * @next (UINT64_MAX: none, or a handler's); registers only when @next
 * is the instruction after it.
 */
void emu_truth_release(struct emu *e, struct thr *t, uint64_t next);
void emu_syscall_entered(struct emu *e, struct thr *t);
void emu_handle_stop(struct emu *e, pid_t tid, int status);

/* emu_life.c: the stops that begin or end a thread or a process. */
void emu_thr_close(struct emu *e, struct thr *t);
bool emu_proc_alive(struct emu *e, struct proc *p);
void emu_thr_exited(struct emu *e, struct thr *t, int status);
/* @parent's PTRACE_EVENT_CLONE, _FORK or _VFORK (@event). */
void emu_new_child(struct emu *e, struct thr *parent, int event);
/* A stop of a task that reuses a recorded tid (let run untraced):
 * handled (true), or not one of those.
 */
bool emu_untr_stop(struct emu *e, pid_t tid, int status);
/* Announced such tasks whose first stop is still to come. */
bool emu_untr_waiting(const struct emu *e);
/* The end (-p's detach): their first stops awaited and handled. */
void emu_untr_finish(struct emu *e);

/* emu_late.c (tests): the knobs; events handled as late as a loaded
 * machine may.
 */
void emu_knobs_read(struct emu_knobs *k);
bool emu_clone_hold(struct emu *e, struct thr *parent, int event);
bool emu_clone_poll(struct emu *e);
bool emu_death_hold(struct emu *e, struct thr *t, int status);
void emu_death_release(struct emu *e, struct thr *t);
void emu_death_reused(struct emu *e, pid_t tid);
void emu_exit_late(const struct emu *e);
bool emu_clone_order(struct emu *e, struct thr *parent);
void emu_clone_order_stop(struct emu *e, struct thr *t);
bool emu_clone_order_poll(struct emu *e, bool stepping);
void emu_clone_order_end(struct emu *e);
void emu_exec_happened(struct emu *e, struct thr *t);

/* emu_ptwrite.c */
/*
 * When @t (stopped at t->ip, t->in fetched) is at a PTWRITE: emulates it
 * (PTW + FUP, ground truth, RIP moved past it; @t stays ready) and
 * returns true.  False: not one, or not emulable (it runs as it would).
 */
bool emu_ptwrite(struct emu *e, struct thr *t);

/* emu_start.c */
int emu_launch(struct emu *e);
int emu_attach(struct emu *e, pid_t pid);

/* emu_end.c */
void emu_snap_proc(struct emu *e, struct proc *p, uint32_t end, int status,
		   const struct thr *sig_t, const siginfo_t *si);
void emu_exit_stop(struct emu *e, struct thr *t);
/* @t's process is ending by @t (its exit_group issued, a fatal signal):
 * no other of its threads is stepped from here (emu_group_exit_held()).
 */
void emu_group_exit_note(struct thr *t);
void emu_exit_group_issued(struct thr *t);
bool emu_group_exit_held(const struct thr *t);
void emu_finish_live(struct emu *e);

#endif
