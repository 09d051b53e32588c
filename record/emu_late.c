// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Tests only: the software recorder's test knobs, each off unless its
 * environment variable is set, read once when a recording starts
 * (emu_knobs_read()).
 *
 * Bundles as other recorders make them:
 *
 * PTREC_EMU_TEST_NO_REGS: no REGS records at all (an older ptrec).
 * PTREC_EMU_TEST_NO_SYSRET: no system call REGS records (ptrec.ko, the
 *	importers), for programs that take getpid()'s result as a value
 *	the engine does not know.
 * PTREC_EMU_TEST_SYSRET_RESULT: system call REGS records with rax, rcx,
 *	r11 and rip only (ptrec before session 18).
 * PTREC_EMU_KEEP_UNTRACED: CLONE_UNTRACED left in a clone (an older
 *	ptrec: the child runs unrecorded; values-test's untraced-kept).
 * PTREC_EMU_COMPAT_TRACE: 32-bit code traced as a CPU traces it, under
 *	MODE.Exec 32-bit, instead of untraced (review9.sh c32hw).
 *
 * Stops handled later than they come, as a loaded machine may order
 * them, so that a test sees the schedule every time
 * (tests/values/review4.sh exit80late, exit80reap):
 *
 * PTREC_EMU_TEST_LATE_CLONE: a clone event waits until every other
 *	thread has stopped or blocked and no stop came for 100 ms.  The
 *	kernel wakes the child before its parent reports the event (Linux
 *	kernel/fork.c kernel_clone(): wake_up_new_task(), then
 *	ptrace_event_pid()), so the child's first stop, even its whole
 *	life, may come first.
 * PTREC_EMU_TEST_LATE_REAP: the death of a thread that left by exit(2)
 *	while others live waits for another thread's exit event or death:
 *	after its exit event the thread writes its clear_child_tid word
 *	(mm_release()) and is reaped later, and a thread its write let go
 *	may reach its own exit event first.
 * PTREC_EMU_TEST_SLOW_EXIT: each exit event handled 20 ms late, so that
 *	the other threads of a group exit reach theirs before the
 *	recorder would step them again (review4.sh groupsegv).
 * PTREC_EMU_TEST_CLONE_ORDER: who runs first after a clone (fork,
 *	vfork) event.  "child": the parent's return from its call waits
 *	until the child has died, a quantum of steps went by, or it did
 *	not run for 100 ms (a child that waits for its parent): the kernel
 *	may preempt the parent inside the call that long, and the
 *	child's whole life then lies inside the parent's clone (CI's
 *	watchrlist flake, tests/gdb/watchgap.sh: the engine then knows
 *	the child's robust list words at its exit).  "parent": the
 *	child's first step waits for the parent's next stop, its call
 *	returned (the parent runs on until it blocks).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"

void emu_knobs_read(struct emu_knobs *k)
{
	const char *o;

	k->late_clone = getenv("PTREC_EMU_TEST_LATE_CLONE") != NULL;
	k->late_reap = getenv("PTREC_EMU_TEST_LATE_REAP") != NULL;
	k->slow_exit = getenv("PTREC_EMU_TEST_SLOW_EXIT") != NULL;
	k->no_regs = getenv("PTREC_EMU_TEST_NO_REGS") != NULL;
	k->no_sysret = getenv("PTREC_EMU_TEST_NO_SYSRET") != NULL;
	k->sysret_result = getenv("PTREC_EMU_TEST_SYSRET_RESULT") != NULL;
	k->compat_trace = getenv("PTREC_EMU_COMPAT_TRACE") != NULL;
	k->keep_untraced = getenv("PTREC_EMU_KEEP_UNTRACED") != NULL;
	o = getenv("PTREC_EMU_TEST_CLONE_ORDER");
	k->clone_order = !o ? 0 : !strcmp(o, "child") ? 'c' :
			 !strcmp(o, "parent") ? 'p' : 0;
}

bool emu_clone_hold(struct emu *e, struct thr *parent, int event)
{
	if (e->held || event != PTRACE_EVENT_CLONE ||
	    !e->knobs.late_clone)
		return false;
	e->held = parent->tid;
	e->held_event = event;
	e->held_polls = 0;
	return true;
}

/*
 * Called by run() while a clone event is held and no step is in flight:
 * one more stop, or a wait of 1 ms, or (after 100 without a stop) the
 * held event handled.  Returns true: run() goes round again.
 */
bool emu_clone_poll(struct emu *e)
{
	struct thr *parent;
	int status;
	pid_t tid;

	tid = waitpid(-1, &status, __WALL | WNOHANG);
	if (tid > 0) {
		e->held_polls = 0;
		emu_handle_stop(e, tid, status);
		return true;
	}
	if (tid == 0 && e->held_polls++ < 100) {
		usleep(1000);
		return true;
	}
	parent = emu_thr_find(e, e->held);
	e->held = 0;
	if (!parent)
		return true;
	emu_new_child(e, parent, e->held_event);
	ptrace(PTRACE_SINGLESTEP, parent->tid, 0, 0);
	return true;
}

/* Whether another thread of @t's process has not left. */
static bool others_left(struct emu *e, struct thr *t)
{
	struct thr *o;

	for (o = e->threads; o; o = o->next)
		if (o != t && o->proc == t->proc && o->st != T_DEAD &&
		    !o->exit_seen)
			return true;
	return false;
}

bool emu_death_hold(struct emu *e, struct thr *t, int status)
{
	if (e->held_dead || !t->exit_seen || t->tid == t->proc->pid ||
	    !others_left(e, t) || !e->knobs.late_reap)
		return false;
	e->held_dead = t->tid;
	e->held_status = status;
	return true;
}

/* After @t's exit event or death: the held death, if another's. */
void emu_death_release(struct emu *e, struct thr *t)
{
	struct thr *d;

	if (!e->held_dead || t->tid == e->held_dead)
		return;
	d = emu_thr_find(e, e->held_dead);
	e->held_dead = 0;
	if (d && d->st != T_DEAD)
		emu_thr_exited(e, d, e->held_status);
}

/*
 * The tid of the held death is a new task's (its clone event or first
 * stop came: a tid used again, docs/recorder.md "A tid used twice"): the
 * kernel freed it at that death, which is handled first.
 */
void emu_death_reused(struct emu *e, pid_t tid)
{
	struct thr *d;

	if (!e->held_dead || e->held_dead != tid)
		return;
	d = emu_thr_find(e, tid);
	e->held_dead = 0;
	if (d)
		emu_thr_exited(e, d, e->held_status);
}

void emu_exit_late(const struct emu *e)
{
	if (e->knobs.slow_exit)
		usleep(20000);
}

/*
 * At @parent's clone event, once its child is made (emu_new_child()):
 * returns true when the parent's return is held ("child"); with
 * "parent", the child waits.  One clone at a time.
 */
bool emu_clone_order(struct emu *e, struct thr *parent)
{
	unsigned long msg = 0;
	char o = e->knobs.clone_order;
	struct thr *c;

	if (!o || e->order_parent ||
	    ptrace(PTRACE_GETEVENTMSG, parent->tid, 0, &msg) < 0)
		return false;
	c = emu_thr_find(e, (pid_t)msg);
	if (!c)
		return false;
	e->order_parent = parent->tid;
	e->order_child = c->tid;
	e->order_child_first = o == 'c';
	e->order_polls = 0;
	e->order_steps = e->steps;
	c->order_held = o == 'p';
	return o == 'c';
}

/* Any stop of @t: the parent's next stop lets a held child go. */
void emu_clone_order_stop(struct emu *e, struct thr *t)
{
	struct thr *c;

	if (e->order_child_first || t->tid != e->order_parent)
		return;
	c = emu_thr_find(e, e->order_child);
	if (c)
		c->order_held = false;
	e->order_parent = 0;
}

/*
 * Called by run() while a parent's return is held: with no step in
 * flight (!@stepping), one more stop or a wait of 1 ms; the parent
 * resumed once the child is dead, a quantum of steps went by (a child
 * that spins until its parent runs) or for 100 waits without a stop the
 * child was not running (one that blocks until then; a child only slow
 * to come back from a call, runnable on a loaded machine, is waited
 * for).  Returns true: run() goes round again.
 */
bool emu_clone_order_poll(struct emu *e, bool stepping)
{
	struct thr *c;
	int status;
	pid_t tid;
	char st;

	if (!e->order_child_first)
		return false;
	c = emu_thr_find(e, e->order_child);
	if (c && c->st != T_DEAD && e->steps - e->order_steps < QUANTUM) {
		if (stepping)
			return false;
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid > 0) {
			e->order_polls = 0;
			emu_handle_stop(e, tid, status);
			return true;
		}
		st = tid ? 0 : emu_thr_state(c->proc->pid, c->tid);
		if (tid == 0 && (e->order_polls < 100 || st == 'R')) {
			if (st != 'R')
				e->order_polls++;
			usleep(1000);
			return true;
		}
	}
	emu_clone_order_end(e);
	return true;
}

/* A held parent resumed (also where the recording ends). */
void emu_clone_order_end(struct emu *e)
{
	pid_t p = e->order_parent;

	if (!p || !e->order_child_first)
		return;
	e->order_parent = 0;
	ptrace(PTRACE_SINGLESTEP, p, 0, 0);
}
