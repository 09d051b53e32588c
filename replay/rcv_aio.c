// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Asynchronous I/O and tasks the recording does not show (issue #17,
 * docs/values.md "Asynchronous I/O"): rcv_order_aio(), which ends every
 * read-only and ordered rule of rcv_order.c, rcv_mem.c and rcv_xthr.c in
 * a process that may have a request in flight.  Apart from rcv_order.c's
 * walks of other tasks' system calls, whose helpers it uses
 * (rcv_order_arg() and the like), so that each file stays one job.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>
#include <linux/sched.h>

#include "rcv_win.h"

/*
 * Asynchronous I/O (tests/values/review2.c uring), and tasks the
 * recording does not show (a clone without a THREAD_START record): an io_uring request or
 * an AIO one (io_submit) runs after the system call that submitted it
 * returned: a linked timeout then IORING_OP_MADVISE(MADV_DONTNEED) zeroes
 * a read-only page 10 ms later, a read fills a buffer, IORING_OP_CLOSE and
 * OPENAT change descriptors, and with IORING_SETUP_SQPOLL a kernel thread
 * takes requests from the shared ring with no system call at all.  Only
 * io_uring_setup (425) and io_setup (206; i386's 245 through int 0x80)
 * make a context, so a history without them (and without a system call
 * whose number the history does not show, or a gap that may hide one)
 * has none that it made; one made before the recording began still has
 * its ring mapped (anon_inode:[io_uring], /[aio]) at the end, or is
 * gone with its requests.
 */
static bool aio_nr(int64_t nr, bool i386)
{
	if (nr < 0)
		return true;
	return i386 ? nr == 245 || nr == 425 : nr == 206 || nr == 425;
}

/*
 * userfaultfd(2) (323; i386 374), or an ioctl (16; i386 54) whose request
 * (rsi; i386 ecx) is userfaultfd's (type 0xAA: UFFDIO_*, /dev/
 * userfaultfd's USERFAULTFD_IOC_NEW) or not shown, at system call @p: a
 * handler thread may fill or zap pages of a registered range (a stack
 * page: tests/values/review5.c uffdstack) at any later time, learning
 * the addresses from the kernel's fault messages, not from a store.
 */
static bool uffd_call(struct rcv_dec *dec, const struct rcv_hist *h,
		      uint64_t p, uint64_t ip, int64_t nr, bool i386,
		      bool ind)
{
	int64_t req;

	if (nr == (i386 ? 374 : 323))
		return true;
	if (nr != (i386 ? 54 : 16))
		return false;
	req = rcv_order_arg(dec, h, p, ip, i386 ? RP_REG_RCX : RP_REG_RSI, ind);
	return req < 0 || ((uint64_t)req >> 8 & 0xff) == 0xaa;
}

/* The THREAD_START records of the tasks @tid made. */
static uint64_t children(const struct rp_session *s, uint32_t tid)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->nrecs; i++)
		if (s->recs[i]->type == PTREC_SB_THREAD_START &&
		    ((const struct ptrec_sb_thread_start *)s->recs[i])->
		    parent_tid == tid)
			n++;
	return n;
}

/*
 * madvise(addr, len, MADV_FREE) (8), or an advice the history does not
 * show, at system call @p: the kernel may reclaim the range's pages (they
 * then read as zero) at any time after the call returned until each is
 * stored to again (kswapd, another process's process_madvise(
 * MADV_PAGEOUT): tests/values/review4.c madvfree), with no system call of
 * the thread's between.  As for a request of asynchronous I/O, no memory
 * is then known to be the process's own.  Every other advice changes the
 * range at the call (MADV_DONTNEED, MADV_REMOVE zero or refetch it) or
 * not at all (MADV_COLD, MADV_PAGEOUT keep the bytes): a barrier there
 * (madvise writes memory rcv_sys_write() does not know).
 */
static bool lazy_free(struct rp_recover *rc, const struct rcv_hist *h,
		      uint64_t p, uint64_t ip, bool ind)
{
	int64_t adv = rcv_order_arg(rc->dec, h, p, ip, RP_REG_RDX, ind);

	return adv < 0 || adv == 8;
}

static bool aio_task(struct rp_recover *rc, uint32_t tid)
{
	struct rp_thread_info info;
	struct rp_cursor *c = NULL;
	struct rp_insn insn;
	struct rp_event ev;
	struct rcv_hist h;
	uint64_t i, clones = 0;
	bool may = false, ind;
	int64_t nr;

	/* No handler ran in it (the software recorder's records): an
	 * indirect jump went where the trace says (the PLT's to madvise).
	 */
	ind = !rcv_handlers_ran(rc->s, tid);
	if (rp_thread_info(rc->s, tid, &info) || rcv_order_hides(rc, tid) ||
	    rp_cursor_new(rc->s, tid, &c))
		return true;
	h = (struct rcv_hist){ rcv_order_peek, c, info.insns };
	for (i = 0; !may && !rp_thread_event(rc->s, tid, i, &ev); i++) {
		if (ev.kind != RP_EV_DISABLED || !ev.before)
			continue;
		if (rp_cursor_peek(c, ev.before - 1, &insn)) {
			may = true;
			break;
		}
		if (insn.iclass != RP_IC_FAR)
			continue;
		if (rp_insn_is_syscall(&insn)) {
			nr = rcv_order_arg(rc->dec, &h, ev.before - 1, insn.ip,
					   RP_REG_RAX, false);
			may = aio_nr(nr, false) ||
			      (nr == 28 && lazy_free(rc, &h, ev.before - 1,
						     insn.ip, ind)) ||
			      uffd_call(rc->dec, &h, ev.before - 1, insn.ip,
					nr, false, ind);
			clones += nr == 56 || nr == 435;
		} else if (rp_insn_is_int80(&insn)) {
			nr = rcv_order_arg(rc->dec, &h, ev.before - 1, insn.ip,
					   RP_REG_RAX, false);
			may = aio_nr(nr, true) ||
			      (nr == 219 && lazy_free(rc, &h, ev.before - 1,
						      insn.ip, ind)) ||
			      uffd_call(rc->dec, &h, ev.before - 1, insn.ip,
					nr, true, ind);
			clones += nr == 120;
		} else if (insn.raw[0] == 0x0f && insn.raw[1] == 0x34) {
			may = true;	/* sysenter */
		}
	}
	rp_cursor_free(c);
	/*
	 * A clone with no recorded child: one ptrace did not follow
	 * (CLONE_UNTRACED, which the software recorder now takes out;
	 * older bundles), that may share the memory and run beside the
	 * thread; or a clone that failed.  Either way, as for a request of
	 * asynchronous I/O, no memory is known to be the process's own.
	 */
	return may || clones > children(rc->s, tid);
}

/* A ring mapped at the end, from before the recording maybe. */
static bool aio_mapped(struct rp_recover *rc, uint32_t pid)
{
	struct rp_snap_map_info mi;
	size_t i;

	for (i = 0; rc->sn && !rp_snapshot_proc_map(rc->sn, pid, i, &mi); i++)
		if (strstr(mi.path, "io_uring") || strstr(mi.path, "[aio]"))
			return true;
	return false;
}

bool rcv_order_aio(struct rp_recover *rc)
{
	struct rp_thread_info o;
	uint32_t mm[64];
	size_t nmm, i, k;
	bool may = false;

	if (rc->aio)
		return rc->aio == 2;
	if (!rc->s) {		/* no history: a window made by hand */
		rc->aio = 1;
		return false;
	}
	/* Another context of the session walked them (a thread's each, a
	 * scan's, GDB's after values-strict changed): 8 G instructions
	 * at 10^7 under callgrind (scripts/bench-watch's libloop).
	 */
	for (k = 0; k < rc->s->naio_memo; k++)
		if (rc->s->aio_memo[k].pid == rc->pid &&
		    rc->s->aio_memo[k].snap == (rc->sn != NULL)) {
			rc->aio = rc->s->aio_memo[k].aio;
			return rc->aio == 2;
		}
	nmm = rcv_share_set(rc->s, rc->pid, CLONE_VM, 0, mm, 64);
	/* A task let run untraced (a tid reused) may write any of it. */
	if (!nmm || rcv_untraced(rc->s, rc->pid))
		may = true;
	for (k = 0; !may && k < nmm; k++)
		may = aio_mapped(rc, mm[k]);
	for (i = 0; !may && i < rp_thread_count(rc->s); i++) {
		uint32_t tid = rp_thread_tid(rc->s, i);

		if (rp_thread_info(rc->s, tid, &o))
			continue;
		for (k = 0; k < nmm && mm[k] != o.pid; k++)
			;
		if (k < nmm)
			may = aio_task(rc, tid);
	}
	rc->aio = may ? 2 : 1;
	k = rc->s->naio_memo < 8 ? rc->s->naio_memo++ : rc->pid % 8;
	rc->s->aio_memo[k].pid = rc->pid;
	rc->s->aio_memo[k].snap = rc->sn != NULL;
	rc->s->aio_memo[k].aio = rc->aio;
	if (getenv("PTREC_RCV_DEBUG"))
		fprintf(stderr, "order: asynchronous I/O in process %u: %s\n",
			rc->pid, may ? "maybe" : "none");
	return may;
}
