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
 */
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"

void emu_knobs_read(struct emu_knobs *k)
{
	k->late_clone = getenv("PTREC_EMU_TEST_LATE_CLONE") != NULL;
	k->late_reap = getenv("PTREC_EMU_TEST_LATE_REAP") != NULL;
	k->slow_exit = getenv("PTREC_EMU_TEST_SLOW_EXIT") != NULL;
	k->no_regs = getenv("PTREC_EMU_TEST_NO_REGS") != NULL;
	k->no_sysret = getenv("PTREC_EMU_TEST_NO_SYSRET") != NULL;
	k->compat_trace = getenv("PTREC_EMU_COMPAT_TRACE") != NULL;
	k->keep_untraced = getenv("PTREC_EMU_KEEP_UNTRACED") != NULL;
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

void emu_exit_late(const struct emu *e)
{
	if (e->knobs.slow_exit)
		usleep(20000);
}
