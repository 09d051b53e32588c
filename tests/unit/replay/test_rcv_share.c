// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Tasks the recorder let run untraced (replay/rcv_share.c rcv_untraced():
 * an UNTRACED record, a tid reused, review 13's tidre): which processes
 * they may write or change the descriptors of.  Each case is the
 * sideband a recorder writes for it, with the near miss that must not
 * count (a plain fork child, another process).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sched.h>

#include "rcv_win.h"
#include "rp_internal.h"

#define MAXRECS 16

static struct sb_manifest m = { .backend = "emu" };
static struct rp_session s;
static struct ptrec_sb_header *recs[MAXRECS];

static void reset(void)
{
	for (size_t i = 0; i < s.nrecs; i++)
		free(recs[i]);
	memset(&s, 0, sizeof(s));
	s.m = &m;
	s.recs = recs;
}

static void add(uint16_t type, uint32_t pid, uint32_t tid, uint32_t ppid,
		uint32_t ptid, uint64_t flags)
{
	struct ptrec_sb_untraced *r = calloc(1, sizeof(*r));

	cr_assert(r && s.nrecs < MAXRECS);
	r->hdr.type = type;
	r->hdr.size = type == PTREC_SB_UNTRACED ? sizeof(*r) :
		      sizeof(struct ptrec_sb_thread_start);
	r->hdr.time = 10 * (s.nrecs + 1);
	r->pid = pid;
	r->tid = tid;
	r->parent_pid = ppid;
	r->parent_tid = ptid;
	r->clone_flags = flags;
	if (type == PTREC_SB_UNTRACED)
		r->reason = PTREC_SB_UNTRACED_TID_REUSED;
	recs[s.nrecs++] = &r->hdr;
}

#define THREAD	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
		 CLONE_THREAD | CLONE_SYSVSEM)

TestSuite(rcv_share, .init = reset, .fini = reset);

Test(rcv_share, none)
{
	add(PTREC_SB_THREAD_START, 100, 101, 100, 100, THREAD);
	cr_assert_not(rcv_untraced(&s, 100));
}

/* tidre: the second life of thread 101, in process 100. */
Test(rcv_share, thread_of_the_process)
{
	add(PTREC_SB_THREAD_START, 100, 101, 100, 100, THREAD);
	add(PTREC_SB_UNTRACED, 100, 101, 100, 100, THREAD);
	cr_assert(rcv_untraced(&s, 100));
	cr_assert_not(rcv_untraced(&s, 200), "another process");
}

/* A process sharing 100's memory through a recorded clone(CLONE_VM). */
Test(rcv_share, through_a_clone_vm)
{
	add(PTREC_SB_THREAD_START, 200, 200, 100, 100, CLONE_VM | SIGCHLD);
	add(PTREC_SB_UNTRACED, 100, 101, 100, 100, THREAD);
	cr_assert(rcv_untraced(&s, 200));
	cr_assert(rcv_untraced(&s, 100));
}

/* An untraced child process: vfork and CLONE_VM write the memory,
 * CLONE_FILES changes the descriptors, unknown flags may do either; a
 * plain fork's copy does neither.
 */
Test(rcv_share, child_process)
{
	static const uint64_t may[] = { CLONE_VM | CLONE_VFORK | SIGCHLD,
					CLONE_VM, CLONE_FILES | SIGCHLD, 0 };

	for (size_t i = 0; i < sizeof(may) / sizeof(may[0]); i++) {
		reset();
		add(PTREC_SB_UNTRACED, 300, 300, 100, 100, may[i]);
		cr_assert(rcv_untraced(&s, 100), "flags %#lx",
			  (unsigned long)may[i]);
		cr_assert(rcv_untraced(&s, 300));
	}
	reset();
	add(PTREC_SB_UNTRACED, 300, 300, 100, 100, SIGCHLD);
	cr_assert_not(rcv_untraced(&s, 100), "fork");
}
