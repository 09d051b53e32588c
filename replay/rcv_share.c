// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which processes of a recording share a thread's memory or descriptors
 * (issue #17, docs/values.md): by the clone flags of their THREAD_START
 * records, followed through children of children.  The memory questions
 * (rcv_mem.c), the other tasks' order (rcv_order.c, rcv_xthr.c, rcv_aio.c)
 * and the descriptors (rcv_fd.c) ask it.  Moved out of rcv_mem.c, which
 * had grown past 1,000 lines.
 */
#include <string.h>

#include <linux/sched.h>

#include "rcv_win.h"

/* Is @pid one of the @n of @set? */
static bool in_set(const uint32_t *set, size_t n, uint32_t pid)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (set[k] == pid)
			return true;
	return false;
}

/*
 * A child process (its own pid) whose record has no clone flags at all:
 * the importers' (perf's FORK record has none), a software recorder's
 * older than the flags of i386's clone through int 0x80
 * (tests/values/review4.c clone80, made with CLONE_VM, recorded as 0).
 * Every real clone of a process has its exit signal in the low byte
 * (fork is clone(SIGCHLD)) and the recorder now says so: 0 is not known,
 * so it may share the memory and the descriptors (never a vfork: that
 * would only keep more).  The kernel module (@kmod) sets CLONE_VM where
 * the child has its parent's mm and nothing else for a process: the
 * memory is known, the descriptors are not.
 */
uint64_t rcv_clone_flags(const struct ptrec_sb_thread_start *t, bool kmod)
{
	if (t->pid != t->parent_pid && !t->clone_flags)
		return kmod ? CLONE_FILES : CLONE_VM | CLONE_FILES;
	return t->clone_flags;
}

bool rcv_backend_kmod(const struct rp_session *s)
{
	struct rp_session_info si;

	rp_session_info(s, &si);
	return si.backend && !strcmp(si.backend, "kmod");
}

bool rcv_backend_emu(const struct rp_session *s)
{
	struct rp_session_info si;

	rp_session_info(s, &si);
	return si.backend && !strcmp(si.backend, "emu");
}

size_t rcv_share_set(const struct rp_session *s, uint32_t pid,
		     uint64_t want, uint64_t skip, uint32_t *set, size_t cap)
{
	size_t n = 1, i;
	bool grew = true, kmod = rcv_backend_kmod(s);
	uint64_t f;

	set[0] = pid;
	while (grew) {
		grew = false;
		for (i = 0; i < s->nrecs; i++) {
			const struct ptrec_sb_thread_start *t =
				(const void *)s->recs[i];
			bool in_p, in_c;

			if (s->recs[i]->type != PTREC_SB_THREAD_START ||
			    t->pid == t->parent_pid)
				continue;
			f = rcv_clone_flags(t, kmod);
			if (!(f & want) || (f & skip))
				continue;
			in_p = in_set(set, n, t->parent_pid);
			in_c = in_set(set, n, t->pid);
			if (in_p == in_c)
				continue;
			if (n == cap)
				return 0;
			set[n++] = in_p ? t->pid : t->parent_pid;
			grew = true;
		}
	}
	return n;
}

/*
 * A child made by clone(CLONE_VM) without CLONE_THREAD is another process
 * (its own pid) that shares every byte of its parent's memory and runs
 * alongside it (tests/values/holes.c clonevm); with CLONE_VFORK the
 * parent waits in the system call (a barrier) until the child execs or
 * exits.  Followed through children of children, vfork children too: a
 * vfork child's own clone(CLONE_VM) child outlives it and runs alongside
 * the parent (tests/values/review2.c vforkvm).  The memory is shared
 * unless every link of the set is a vfork (each waits for the next).
 */
bool rcv_vm_shared(const struct rp_session *s, uint32_t pid)
{
	uint32_t set[64];
	size_t n = rcv_share_set(s, pid, CLONE_VM, 0, set, 64), i;
	bool kmod = rcv_backend_kmod(s);

	if (!n)
		return true;
	for (i = 0; n > 1 && i < s->nrecs; i++) {
		const struct ptrec_sb_thread_start *t =
			(const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_THREAD_START &&
		    t->pid != t->parent_pid &&
		    (rcv_clone_flags(t, kmod) & CLONE_VM) &&
		    !(rcv_clone_flags(t, kmod) & CLONE_VFORK) &&
		    in_set(set, n, t->parent_pid))
			return true;
	}
	return false;
}

/*
 * A task the recorder let run untraced (an UNTRACED record, sideband
 * version 6: a tid that a recorded thread had before, clone3's set_tid
 * or pid wraparound, review 13's tidre): it has no history, so it may
 * write any memory it shares and change any descriptor at any time,
 * beside every recorded thread.  In @pid's process or one that shares
 * its memory or descriptors (a thread of it, or a CLONE_VM or
 * CLONE_FILES child of it; flags not known: either), no memory is the
 * process's own nor ordered, as with a request of asynchronous I/O
 * (rcv_order_aio()), and the process has other threads (rc->mt) even
 * where it has one recorded thread.
 */
bool rcv_untraced(const struct rp_session *s, uint32_t pid)
{
	uint32_t set[64];
	size_t n, i;

	for (i = 0; i < s->nrecs; i++)
		if (s->recs[i]->type == PTREC_SB_UNTRACED)
			break;
	if (i == s->nrecs)
		return false;
	n = rcv_share_set(s, pid, CLONE_VM | CLONE_FILES, 0, set, 64);
	if (!n)
		return true;
	for (; i < s->nrecs; i++) {
		const struct ptrec_sb_untraced *u = (const void *)s->recs[i];
		uint64_t f = u->clone_flags;

		if (s->recs[i]->type != PTREC_SB_UNTRACED)
			continue;
		if (in_set(set, n, u->pid))
			return true;
		if (in_set(set, n, u->parent_pid) &&
		    (!f || (f & (CLONE_VM | CLONE_FILES | CLONE_THREAD))))
			return true;
	}
	return false;
}
