// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Pages whose protection the software recorder saw never change (issue
 * #17, docs/values.md "Protections the recorder saw"): the read-only rule
 * (rcv_mem.c ro_mem(), rcv_order.c for other tasks) needs every system
 * call after a load that may change a read-only page to miss it, and an
 * mprotect whose range and protection the engine does not know may not:
 * pthread_create's mprotect of each new stack (its range is mmap's
 * result, its protection reloaded from a slot of the creator's stack
 * that another thread may write) ended the rule for ld.so's RELRO, whose
 * `_rtld_global_ro+432` sizes the lazy-binding resolver's frame.
 *
 * An mprotect changes no byte: a read-only page's contents change only
 * through a store while it is writable, or a mapping or a write the
 * read-only rule already counts (mmap, munmap, mremap, madvise, brk, the
 * write family to /proc/PID/mem, ...).  The software recorder re-reads
 * /proc/PID/maps after every call that may change a protection or a
 * mapping (mmap, munmap, mprotect, mremap, brk, shmat, shmdt,
 * pkey_mprotect: record/emu_step.c after_syscall()) at the call's exit
 * stop, before the thread's next step is issued (before the TSC of the
 * enable after it, tsc(p + 1)), and records every difference from the
 * last read (MUNMAP, MPROTECT, MMAP: docs/recorder.md "Sideband"); at
 * the start it records every mapping (MMAP records flagged SNAPSHOT).
 * So a page that the first read shows not writable, and that no later
 * record covers, was made writable by no call whose effect a read saw
 * before another call undid it.  Two calls of one task are sequential
 * (the read after the first comes before the second is issued); a call
 * of another task can undo one unseen only while both are in flight:
 * between the first's issue (at or after tsc(p)) and the read after it
 * (before tsc(p + 1)).  When no two calls of different tasks that may
 * change a protection or a mapping (by number; a number not known, a
 * far transfer other than `syscall`, and a call still in flight at the
 * thread's end, whose read may never come, may) overlap in time, every
 * change of such a page would have been seen: it was never writable
 * during the recording, and no mprotect of any task changed its bytes.
 *
 * A statement about the recorder and the kernel, not about the program:
 * it holds with strict values too.  Only the software recorder's bundles
 * (the kernel module's MPROTECT records come from a kprobe, with another
 * order), and only a process whose memory no other process shares
 * (CLONE_VM children have maps records of their own).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sched.h>
#include <sys/mman.h>

#include "rcv_win.h"

/* Instructions of a task walked, at most (else: no rule). */
#define PROT_WALK	(1u << 22)
/* Calls that may change a protection, over all tasks, at most. */
#define PROT_CALLS	4096

bool rcv_prot_changer(int64_t nr)
{
	switch (nr) {
	case 9: case 10: case 11: case 12:	/* mmap .. brk */
	case 25: case 30: case 67:		/* mremap, shmat, shmdt */
	case 59: case 322:			/* execve, execveat */
	case 216: case 329:		/* remap_file_pages, pkey_mprotect */
		return true;
	default:
		return nr < 0 || nr >> 32;
	}
}

static bool covers(uint64_t start, uint64_t len, uint64_t page)
{
	return start <= page && page - start < len;
}

int rcv_prot_page(const struct ptrec_sb_header *const *recs, size_t n,
		  uint32_t pid, uint64_t page)
{
	bool first = false;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ptrec_sb_header *h = recs[i];

		if (h->type == PTREC_SB_MMAP) {
			const struct ptrec_sb_mmap *m = (const void *)h;

			if (m->pid != pid || !covers(m->start, m->len, page))
				continue;
			if (!(h->flags & PTREC_SB_F_SNAPSHOT) ||
			    (m->prot & PROT_WRITE) || first)
				return 0;
			first = true;
		} else if (h->type == PTREC_SB_MUNMAP) {
			const struct ptrec_sb_munmap *m = (const void *)h;

			if (m->pid == pid && covers(m->start, m->len, page))
				return 0;
		} else if (h->type == PTREC_SB_MPROTECT) {
			const struct ptrec_sb_mprotect *m = (const void *)h;

			if (m->pid == pid && covers(m->start, m->len, page))
				return 0;
		}
	}
	return first;
}

bool rcv_prot_apart(const struct rcv_pcall *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (v[i].tid != v[j].tid && v[i].t0 <= v[j].t1 &&
			    v[j].t0 <= v[i].t1)
				return false;
	return true;
}

static bool push(struct rcv_pcall **v, size_t *n, struct rcv_pcall c)
{
	struct rcv_pcall *t;

	if (*n >= PROT_CALLS)
		return false;
	if (!(*n & (*n - 1)) || !*n) {
		t = realloc(*v, (*n ? 2 * *n : 16) * sizeof(*t));
		if (!t)
			return false;
		*v = t;
	}
	(*v)[(*n)++] = c;
	return true;
}

/*
 * Task @tid's calls that may change a protection or a mapping, each from
 * its issue to the read after it ([tsc(p), tsc(p + 1)], to the end of
 * time for one in flight at its end), and for a task there before the
 * recording began its time before its first instruction.  False when its
 * history may hide calls (a gap) or is too long.
 */
static bool task_calls(struct rp_recover *rc, uint32_t tid,
		       struct rcv_pcall **v, size_t *n)
{
	struct rp_thread_info info;
	struct rp_cursor *c = NULL;
	struct rp_insn in, nx;
	struct rcv_hist h;
	bool started = false, ok = false;
	uint64_t p;
	size_t i;

	for (i = 0; i < rc->s->nrecs; i++)
		if (rc->s->recs[i]->type == PTREC_SB_THREAD_START &&
		    ((const struct ptrec_sb_thread_start *)rc->s->recs[i])
		    ->tid == tid)
			started = true;
	if (rp_thread_info(rc->s, tid, &info) || info.insns > PROT_WALK ||
	    rcv_order_hides(rc, tid) || rp_cursor_new(rc->s, tid, &c))
		goto out;
	h = (struct rcv_hist){ rcv_order_peek, c, info.insns };
	if (info.insns && !started &&
	    (rp_cursor_peek(c, 0, &in) || !in.tsc ||
	     !push(v, n, (struct rcv_pcall){ 0, in.tsc, tid })))
		goto out;
	for (p = 0; p < info.insns; p++) {
		int64_t nr;
		uint64_t t1 = UINT64_MAX;

		if (rp_cursor_peek(c, p, &in) || !in.tsc)
			goto out;
		if (in.iclass != RP_IC_FAR)
			continue;
		nr = rp_insn_is_syscall(&in) ?
		     rcv_order_arg(rc->dec, &h, p, in.ip, RP_REG_RAX, false) :
		     -1;
		if (!rcv_prot_changer(nr))
			continue;
		if (p + 1 < info.insns) {
			if (rp_cursor_peek(c, p + 1, &nx))
				goto out;
			if (nx.tsc > in.tsc)
				t1 = nx.tsc;
		}
		if (!push(v, n, (struct rcv_pcall){ in.tsc, t1, tid }))
			goto out;
	}
	ok = true;
out:
	rp_cursor_free(c);
	return ok;
}

/* The process's calls apart (made once per session and process). */
static bool calls_apart(struct rp_recover *rc)
{
	struct rp_session *s = rc->s;
	struct rcv_pcall *v = NULL;
	uint32_t mm[2];
	size_t n = 0, i;
	bool ok = false;

	for (i = 0; i < s->nprot_memo; i++)
		if (s->prot_memo[i].pid == rc->pid)
			return s->prot_memo[i].ok;
	if (!rcv_backend_emu(s) || rcv_untraced(s, rc->pid) ||
	    rcv_share_set(s, rc->pid, CLONE_VM, 0, mm, 2) != 1)
		goto out;
	for (i = 0; i < rp_thread_count(s); i++) {
		uint32_t tid = rp_thread_tid(s, i);
		struct rp_thread_info o;

		if (rp_thread_info(s, tid, &o))
			goto out;
		if (o.pid == rc->pid && !task_calls(rc, tid, &v, &n))
			goto out;
	}
	ok = rcv_prot_apart(v, n);
out:
	free(v);
	if (s->nprot_memo < sizeof(s->prot_memo) / sizeof(s->prot_memo[0]))
		s->prot_memo[s->nprot_memo++] =
			(typeof(s->prot_memo[0])){ rc->pid, ok };
	return ok;
}

bool rcv_prot_seen(struct rp_recover *rc, uint64_t a)
{
	uint64_t page = a & ~4095ull;

	if (rc->prot_valid && rc->prot_page == page)
		return rc->prot_ok;
	rc->prot_page = page;
	rc->prot_valid = true;
	rc->prot_ok = rcv_prot_page((const struct ptrec_sb_header *const *)
				    rc->s->recs, rc->s->nrecs, rc->pid,
				    page) == 1 &&
		      calls_apart(rc);
	return rc->prot_ok;
}

/* mprotect or pkey_mprotect (brk: @nr 12), its number known at @i? */
static bool is_call(const struct win *w, size_t i, bool brk)
{
	const struct rcv_val *ax = &w->st[i].r[RP_REG_RAX];

	return ax->k == ~0ull &&
	       (brk ? ax->v == 12 : ax->v == 10 || ax->v == 329);
}

/*
 * The last instruction of @l at or before its protf that is a barrier
 * and not a system call (a barrier's flags are set when the window is
 * loaded; protf moves as its calls' states are learnt), -1 for none.
 */
static int64_t last_bar(struct win *l)
{
	int64_t p;

	if (l->prot_bar_ok && l->prot_bar_f == l->protf)
		return l->prot_bar;
	for (p = l->protf < (int64_t)l->n ? l->protf : (int64_t)l->n - 1;
	     p >= 0; p--)
		if (!(l->ins[p].flags & RCV_I_SYSCALL) &&
		    (l->ins[p].flags & RCV_I_BARRIER))
			break;
	l->prot_bar = p;
	l->prot_bar_f = l->protf;
	l->prot_bar_ok = true;
	return p;
}

bool rcv_prot_keeps(struct win *w, uint64_t i, uint64_t a)
{
	struct win *l;
	size_t j, k, p;

	if (!rcv_prot_seen(w->rc, a))
		return false;
	for (l = w, j = (size_t)i; l; l = l->later, j = 0) {
		if ((!l->later && !l->top_end) || !l->sys_listed)
			return false;
		if (l->protc < (int64_t)j)
			continue;
		/* An instruction that is not a system call may change a
		 * mapping only as a barrier (not decoded): not known.  None
		 * lies after protf, the last that may and is not a brk.
		 */
		if (last_bar(l) >= (int64_t)j)
			return false;
		for (k = 0; k < l->nsys; k++) {
			p = l->sys_at[k];
			if (p < j || !l->sys_part[k].prot ||
			    is_call(l, p, false))
				continue;
			/* A brk: kept for a file's page as
			 * rcv_sys_keeps_file() keeps it; any other call
			 * (madvise may drop a file page's changes) not.
			 */
			if (!is_call(l, p, true) || !l->rc->map.file ||
			    !rcv_sys_brk_keeps_file(l, p))
				return false;
		}
	}
	return true;
}
