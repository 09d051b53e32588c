// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Other threads' stores in time (issue #17, docs/values.md "Other
 * threads' stores in time"): in a process with other threads, memory
 * they may write was known only at the instruction that loads it.  Here,
 * for a byte A and a state s of thread T, the states of T around s
 * between any two of which no other task sharing T's memory may write A
 * (rcv_xthr_span()): rcv_mem.c then walks T's own accesses of A within
 * them as it does for memory T alone writes (the next load, the last
 * store, the snapshot when they reach T's end).
 *
 * The order is the software recorder's alone (record/emu.c): one tracer
 * issues every user-mode step, and only one is in flight at a time, so
 * a thread's user-mode instructions run between its SWITCH_IN record and
 * its next SWITCH_OUT (or its THREAD_EXIT) record, and no other thread's
 * user-mode instruction runs in that run.  Every instruction's decoded
 * time (the TSC packet before its last query, read when an instruction
 * at or before it was issued) lies inside its run: the run's first
 * instruction follows an enable whose TSC was read at its issue, after
 * the SWITCH_IN record, and nothing of the run is issued after the
 * SWITCH_OUT.  A step blocked in the kernel (record/emu.c's watchdog:
 * userfaultfd) retires outside its runs: its time then lies outside
 * them, and the rule is off for the process.  System calls run in the
 * kernel beside everything: a call p of task U writes between its run's
 * SWITCH_IN and tsc(p + 1) (the enable after it, read once the tracer saw
 * it return), or its exit.  So each possible write of another task is a
 * closed interval of time and a range of bytes (or all of them):
 *
 *   a user-mode store of U         its run [in, out], its address (or
 *                                  the range the engine bounds it to)
 *   a system call p of U           [tsc(p), tsc(p + 1)], what it
 *                                  writes by the table, and the pages
 *                                  whose mapping it may change
 *   U's exit (clear_child_tid,     [tsc(its last instruction),
 *   robust futexes; its exit(2)    THREAD_EXIT]: its clear_child_tid
 *   or exit_group(2) writes        word when its EXIT_FUTEX record shows
 *   nothing else)                  an empty robust list, else any byte
 *   a call in flight at the end    [its issue, forever]: any byte
 *   U before its history (a task   [0, its first time]: any byte
 *   there when the recording began)
 *
 * and U's addresses come from a values engine of U's own (which uses no
 * such rule itself).  A task with a gap, a signal handler run, a system
 * call through int 0x80 or sysenter, one whose number its engine does
 * not know, rseq(2) or arch_prctl(2) (an area the kernel writes away
 * from the thread pointer at the end), too long a history, or no
 * engine: any byte at any time (no rule).  Hardware traces (the kernel module,
 * the importers) give no such order: there a TSC arrives with PSB+ and
 * switch-ins only, MTC and CYC place instructions between them only by
 * estimate, and two CPUs run threads at once: every interval overlaps,
 * so the rule is not used.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/sched.h>

#include "rcv_win.h"

/* Instructions of another task read, at most (else: any byte, always). */
#define XT_MAX		(1u << 18)
/* Stores up to this size are kept per word; larger ones as ranges. */
#define XT_WORDS	64

struct xt_word {
	uint64_t word, t0, t1;
};

/* rcv_xthr_quiet()'s answers, by byte and run (rcv_alias.c asks it for
 * every byte of every placement it tries): a pure function of both.
 */
#define XT_MEMO		1024

struct xt_memo {
	uint64_t a, from, until;
	size_t ri;
	bool valid, ok;
};

struct rcv_xthr {
	bool ok;
	struct xt_memo memo[XT_MEMO];
	struct rcv_xruns runs;		/* T's */
	struct rcv_xiv *any;		/* may write any byte */
	size_t nany, cany;
	struct rcv_xiv *rng;		/* may write [lo, hi) */
	size_t nrng, crng;
	struct xt_word *w;		/* may write word (sorted) */
	size_t nw, cw;
	uint64_t (*tls)[2];		/* a task's thread pointer's (rseq_near()) */
	size_t ntls;
	/* rcv_xthr_quiet()'s walk of any[] for run any_ri, a function of
	 * the run alone (asked again for every byte a memo misses).
	 */
	bool any_done, any_within, any_have[2];
	size_t any_ri;
	struct rcv_xiv any_nb[2];
};

/* ---- the order of one query (pure: test_rcv_xthr.c) -------------------- */

/* The run holding state @s: the last whose first position is <= @s. */
static size_t run_of(const struct rcv_xruns *r, uint64_t s)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->fp[mid] <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

bool rcv_xthr_span(const struct rcv_xruns *r, const struct rcv_xiv *iv,
		   size_t n, uint64_t s, uint64_t *from, uint64_t *until)
{
	uint64_t tin, tout, h = 0, lo = UINT64_MAX;
	bool any_h = false;
	size_t k, ri;

	if (!r->n || s < r->fp[0])
		return false;
	ri = run_of(r, s);
	tin = r->in[ri];
	tout = r->out[ri];
	for (k = 0; k < n; k++) {
		if (iv[k].t1 < tin) {
			if (!any_h || iv[k].t1 > h)
				h = iv[k].t1;
			any_h = true;
		} else if (iv[k].t0 > tout) {
			if (iv[k].t0 < lo)
				lo = iv[k].t0;
		} else {
			return false;	/* while s's run ran */
		}
	}
	/* From the first run that began after every earlier write. */
	*from = 0;
	if (any_h)
		for (k = 0; k <= ri; k++)
			if (r->in[k] > h) {
				*from = r->fp[k];
				break;
			}
	/* Up to the last state of the last run that ended before the
	 * next write; past T's last run, not its end (the snapshot is
	 * taken after that write).
	 */
	*until = UINT64_MAX;
	if (lo != UINT64_MAX) {
		*until = r->count ? r->count - 1 : 0;
		for (k = ri + 1; k < r->n; k++)
			if (r->out[k] >= lo) {
				*until = r->fp[k] - 1;
				break;
			}
	}
	return true;
}

/* ---- collecting the other tasks' writes --------------------------------- */

static bool push_iv(struct rcv_xiv **v, size_t *n, size_t *cap,
		    struct rcv_xiv x)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct rcv_xiv *t = realloc(*v, c * sizeof(*t));

		if (!t)
			return false;
		*v = t;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return true;
}

static bool add_write(struct rcv_xthr *x, uint64_t t0, uint64_t t1,
		      uint64_t lo, uint64_t hi)
{
	uint64_t a;

	if (hi <= lo)
		return push_iv(&x->any, &x->nany, &x->cany,
			       (struct rcv_xiv){ t0, t1, 0, 0 });
	if (hi - lo > XT_WORDS)
		return push_iv(&x->rng, &x->nrng, &x->crng,
			       (struct rcv_xiv){ t0, t1, lo, hi });
	for (a = lo & ~7ull; a < hi; a += 8) {
		if (x->nw == x->cw) {
			size_t c = x->cw ? 2 * x->cw : 256;
			struct xt_word *t = realloc(x->w, c * sizeof(*t));

			if (!t)
				return false;
			x->w = t;
			x->cw = c;
		}
		x->w[x->nw++] = (struct xt_word){ a >> 3, t0, t1 };
	}
	return true;
}

/* A task's runs from the sideband: SWITCH_IN to the next SWITCH_OUT or
 * THREAD_EXIT record of @tid (UINT64_MAX: none).
 */
static bool task_runs(const struct rp_session *s, uint32_t tid,
		      struct rcv_xruns *r, uint64_t *t_exit, bool *started)
{
	size_t i, cap = 0;
	bool open = false;

	memset(r, 0, sizeof(*r));
	*t_exit = UINT64_MAX;
	*started = false;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_header *h = s->recs[i];
		const struct ptrec_sb_switch *sw = (const void *)h;

		if (h->type == PTREC_SB_THREAD_START &&
		    ((const struct ptrec_sb_thread_start *)h)->tid == tid)
			*started = true;
		if (h->type == PTREC_SB_THREAD_EXIT &&
		    ((const struct ptrec_sb_thread_exit *)h)->tid == tid &&
		    *t_exit == UINT64_MAX)
			*t_exit = h->time;
		if ((h->type != PTREC_SB_SWITCH_IN &&
		     h->type != PTREC_SB_SWITCH_OUT) || sw->tid != tid)
			continue;
		if (h->type == PTREC_SB_SWITCH_OUT) {
			if (open) {
				r->out[r->n - 1] = h->time;
				r->pre[r->n - 1] =
					h->flags & PTREC_SB_F_PREEMPT;
			}
			open = false;
			continue;
		}
		if (open)	/* two SWITCH_INs: not the order we know */
			return false;
		if (r->n == cap) {
			uint64_t *a, *b, *c;
			bool *d;

			cap = cap ? 2 * cap : 16;
			a = realloc(r->in, cap * sizeof(*a));
			if (a)
				r->in = a;
			b = realloc(r->out, cap * sizeof(*b));
			if (b)
				r->out = b;
			c = realloc(r->fp, cap * sizeof(*c));
			if (c)
				r->fp = c;
			d = realloc(r->pre, cap * sizeof(*d));
			if (d)
				r->pre = d;
			if (!a || !b || !c || !d)
				return false;
		}
		r->in[r->n] = h->time;
		r->out[r->n] = UINT64_MAX;
		r->pre[r->n] = false;
		r->fp[r->n++] = 0;
		open = true;
	}
	if (open)
		r->out[r->n - 1] = *t_exit;
	return r->n > 0;
}

static void runs_free(struct rcv_xruns *r)
{
	free(r->in);
	free(r->out);
	free(r->fp);
	free(r->pre);
	memset(r, 0, sizeof(*r));
}

static int peek(void *ctx, uint64_t pos, struct rp_insn *insn)
{
	return rp_cursor_peek(ctx, pos, insn);
}

/*
 * The first position of each run (the first whose time is above its
 * SWITCH_IN), checked: every instruction's time inside its run (times do
 * not decrease along a history, so the first and the last of each run
 * tell).  False when one is not (a blocked step) or has no time.
 */
static bool runs_place(struct rcv_xruns *r, struct rp_cursor *c,
		       uint64_t count)
{
	struct rcv_hist h = { peek, c, count };
	struct rp_insn in;
	size_t k;

	r->count = count;
	if (!count)
		return false;
	for (k = 0; k < r->n; k++) {
		uint64_t p = rcv_order_first_after(&h, r->in[k]);

		r->fp[k] = p == UINT64_MAX ? count : p;
		if (k && r->fp[k] < r->fp[k - 1])
			return false;
	}
	if (r->fp[0] != 0)	/* instructions before its first run */
		return false;
	for (k = 0; k < r->n; k++) {
		uint64_t e = k + 1 < r->n ? r->fp[k + 1] : count;

		if (r->fp[k] == e)
			continue;
		if (rp_cursor_peek(c, r->fp[k], &in) || !in.tsc ||
		    in.tsc <= r->in[k] || in.tsc >= r->out[k])
			return false;
		if (rp_cursor_peek(c, e - 1, &in) || in.tsc >= r->out[k])
			return false;
	}
	return true;
}

/*
 * The kernel's writes at task @tid's exit, from its EXIT_FUTEX record:
 * its clear_child_tid word, when its robust list is empty and no futex
 * is pending; else (or without the record, for a task that exits) any
 * byte.  None for a task alive at the end.
 */
static bool exit_writes(const struct rp_session *s, struct rcv_xthr *x,
			uint32_t tid, uint64_t t0, uint64_t t_exit)
{
	const uint32_t need = PTREC_SB_FUTEX_CTID | PTREC_SB_FUTEX_ROBUST |
			      PTREC_SB_FUTEX_HEAD;
	size_t i;

	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_exit_futex *f = (const void *)s->recs[i];

		if (s->recs[i]->type != PTREC_SB_EXIT_FUTEX || f->tid != tid)
			continue;
		if ((f->known & need) != need || f->list_op_pending ||
		    (f->robust_list &&
		     (f->robust_next & ~1ull) != f->robust_list))
			break;
		return !f->clear_child_tid ||
		       add_write(x, t0, t_exit, f->clear_child_tid,
				 f->clear_child_tid + 4);
	}
	return t_exit == UINT64_MAX || add_write(x, t0, t_exit, 0, 0);
}

/*
 * System call @p of @u still in flight when its history ended: a futex
 * wait writes nothing (FUTEX_WAIT, FUTEX_WAIT_BITSET, private or not, on
 * either clock), nor do pause and sched_yield; exit(2) and exit_group(2)
 * of a task with a THREAD_EXIT record write what its exit writes
 * (do_exit(): mm_release()'s clear_child_tid word and robust futexes,
 * added by exit_writes() from its EXIT_FUTEX record, any byte without
 * one), nothing else of user memory; anything else may write any byte
 * until the end.
 */
static bool in_flight(struct rp_recover *u, struct rcv_xthr *x, uint64_t p,
		      uint64_t t0, uint64_t t_exit)
{
	const uint64_t m = 1ull << RP_REG_RAX | 1ull << RP_REG_RSI;
	struct rp_regs r;
	uint64_t nr;

	if (!rp_recover_regs(u, p, &r) && (r.valid & m) == m) {
		nr = r.val[RP_REG_RAX];
		if (nr == 34 || nr == 24)
			return true;
		/* exit, exit_group of a task that exited: its writes are
		 * its exit's (exit_writes()), nothing else of the call.
		 */
		if ((nr == 60 || nr == 231) && t_exit != UINT64_MAX)
			return true;
		if (nr == 202 && ((r.val[RP_REG_RSI] & ~0x180ull) == 0 ||
				  (r.val[RP_REG_RSI] & ~0x180ull) == 9))
			return true;
	}
	return add_write(x, t0, t_exit, 0, 0);
}

/*
 * The time of the enable after system call @p of task @tid, when the
 * trace has one before its next instruction (one whose step never
 * retired), if sooner than @t1: the tracer enables a thread's trace only
 * when it issues its next step, once the call returned.
 */
static uint64_t enabled_after(const struct rp_session *s, uint32_t tid,
			      uint64_t p, uint64_t t1)
{
	struct rp_event ev;
	uint64_t i;

	for (i = rp_thread_event_find(s, tid, p + 1);
	     !rp_thread_event(s, tid, i, &ev) && ev.before == p + 1; i++)
		if (ev.kind == RP_EV_ENABLED && (ev.flags & RP_EVF_TSC)) {
			if (ev.tsc < t1)
				t1 = ev.tsc;
			break;
		}
	return t1;
}

/* arch_prctl(2) at @p of @u: a code that does not set fs_base? */
static bool fs_kept(struct rp_recover *u, uint64_t p)
{
	struct rp_regs r;

	return !rp_recover_regs(u, p, &r) &&
	       (r.valid & 1ull << RP_REG_RDI) &&
	       r.val[RP_REG_RDI] != 0x1002;
}

/*
 * Does rseq(2) at @p of @u register an area within the last thread
 * pointer window @x holds (its task's), or unregister one (flags bit 0),
 * or not show where (the assumption: glibc's)?
 */
static bool rseq_near(struct rp_recover *u, uint64_t p,
		      const struct rcv_xthr *x)
{
	const uint64_t m = 1ull << RP_REG_RDI | 1ull << RP_REG_RDX;
	struct rp_regs r;
	uint64_t a;

	if (rp_recover_regs(u, p, &r) || !x->ntls)
		return false;
	if ((r.valid & m) != m)		/* not known: assumed */
		return true;
	if (r.val[RP_REG_RDX] & 1)
		return true;
	a = r.val[RP_REG_RDI];
	return a >= x->tls[x->ntls - 1][0] && a < x->tls[x->ntls - 1][1] &&
	       x->tls[x->ntls - 1][1] - a >= 32;
}

struct scan_arg {
	struct rp_access acc[4];
	int n;
};

static int scan_fn(void *arg, const struct rp_access *acc, int n)
{
	struct scan_arg *a = arg;

	a->n = n;
	if (n > 0)
		memcpy(a->acc, acc, (size_t)n * sizeof(*acc));
	return 1;
}

/*
 * Task @tid's writes into @x.  False when it may write any byte at any
 * time (then nothing is ordered).
 */
static bool task_make(struct rp_recover *rc, struct rcv_xthr *x,
		      uint32_t tid)
{
	struct rp_thread_info info;
	struct rcv_xruns r = { 0 };
	struct rp_recover *u = NULL;
	struct rp_cursor *c = NULL;
	struct rp_gap gap;
	struct rp_regs regs;
	struct rp_insn in, nx;
	struct rp_snap_thread_info sti;
	struct scan_arg sa;
	uint64_t t_exit, pos, lo, hi;
	bool started, ok = false;
	int k, e;

	if (rp_thread_info(rc->s, tid, &info) || info.insns > XT_MAX ||
	    !rp_thread_gap(rc->s, tid, 0, &gap) ||
	    rcv_handlers_ran(rc->s, tid) ||
	    !task_runs(rc->s, tid, &r, &t_exit, &started) ||
	    rp_thread_end(rc->s, tid, &pos, &regs) ||
	    !(regs.valid & 1ull << RP_REG_FS_BASE) ||
	    rp_cursor_new(rc->s, tid, &c) || !runs_place(&r, c, info.insns))
		goto out;
	/* Its thread pointer's 32 KiB (struct pthread), where its rseq(2)
	 * registrations are taken to lie (rseq_near()).
	 */
	{
		uint64_t (*t)[2] = realloc(x->tls, (x->ntls + 1) *
					   sizeof(*t));
		uint64_t fs = regs.val[RP_REG_FS_BASE];

		if (!t)
			goto out;
		x->tls = t;
		t[x->ntls][0] = fs > 16384 ? fs - 16384 : 0;
		t[x->ntls++][1] = fs + 16384;
	}
	/* A task there before the recording began registered its rseq
	 * area where the history does not show: the snapshot lists it,
	 * unless the task ended.
	 */
	if (!started && (rp_snapshot_thread(rc->sn, tid, &sti) ||
			 !add_write(x, 0, r.in[0], 0, 0)))
		goto out;
	/* Its exit (clear_child_tid, robust futexes), or a system call
	 * still in flight at the end: after its last instruction was
	 * issued, at or after that one's time.
	 */
	if (rp_cursor_peek(c, info.insns - 1, &in) ||
	    !exit_writes(rc->s, x, tid, in.tsc, t_exit))
		goto out;
	if (rcv_recover_new_with(rc->s, tid, rc->sn, &u))
		goto out;
	if (pos < info.insns &&		/* rp_thread_end(): in flight */
	    !in_flight(u, x, info.insns - 1, in.tsc, t_exit))
		goto out;
	/* The level below: it orders against the writes of the level
	 * below it (the asking task's among them), never against these.
	 */
	u->xthr_lvl = (unsigned char)(rc->xthr_lvl + 1);
	u->xthr_off = u->xthr_lvl >= RCV_XT_LEVELS;
	u->ord_noargs = true;
	u->aio = rc->aio;
	for (pos = 0; pos < info.insns; pos++) {
		uint64_t t0, t1, p = pos;
		bool by_range = false;
		size_t ri;

		e = rp_recover_scan(u, &p, 1, pos, info.insns,
				    RP_ACC_WRITE, scan_fn, &sa);
		if (e == -RP_ERR_NOTFOUND)
			break;
		if (e || rp_cursor_peek(c, p, &in))
			goto out;
		pos = p;
		ri = run_of(&r, p);
		t0 = r.in[ri];
		t1 = r.out[ri];
		if (in.iclass == RP_IC_FAR) {
			int64_t nr = -1;

			if (!rp_insn_is_syscall(&in))
				goto out;	/* int 0x80, sysenter */
			/* The kernel's part: from its issue on. */
			t0 = in.tsc;
			t1 = t_exit;
			if (p + 1 < info.insns &&
			    !rp_cursor_peek(c, p + 1, &nx) && nx.tsc > in.tsc)
				t1 = nx.tsc;
			/* Its next run began after it returned (only a
			 * thread whose call returned is picked again), and
			 * a preemption came after (only a ready thread is
			 * preempted: record/emu.c issue_step()).
			 */
			if (ri + 1 < r.n && r.in[ri + 1] < t1)
				t1 = r.in[ri + 1];
			if (r.pre[ri] && r.out[ri] < t1)
				t1 = r.out[ri];
			t1 = enabled_after(rc->s, tid, p, t1);
			/* The pages whose mapping it may change. */
			if (!rp_recover_regs(u, p, &regs) &&
			    (regs.valid & 1ull << RP_REG_RAX))
				nr = (int64_t)regs.val[RP_REG_RAX];
			/* rseq(2) registers an area the kernel writes
			 * whenever it likes: taken to lie in the thread
			 * pointer's 32 KiB at the end (glibc's, in struct
			 * pthread), but where the engine shows it does
			 * not; arch_prctl(ARCH_SET_FS) moves that pointer.
			 */
			if (nr < 0 || (nr == 334 && !rseq_near(u, p, x)) ||
			    (nr == 158 && !fs_kept(u, p)))
				goto out;
			e = nr >> 32 ? -1 :
			    rcv_order_effect((uint64_t)nr, &regs, &lo, &hi);
			/* mprotect and pkey_mprotect change protections,
			 * never a byte: no write, whatever their range
			 * (the read-only rule, rcv_order.c, counts them).
			 * The demo's main thread mprotects each new stack
			 * at an address its engines do not know while a
			 * worker runs.
			 */
			if (nr == 10 || nr == 329)
				e = 0;
			if (e && !add_write(x, t0, t1, e > 0 ? lo : 0,
					    e > 0 ? hi : 0))
				goto out;
			/* mprotect, munmap and madvise of a known range
			 * change bytes of that range alone (a mapping that
			 * grows down over unmapped pages too), however long
			 * (the table takes a long one as a barrier).
			 */
			by_range = e >= 0 && (nr == 10 || nr == 11 || nr == 28);
			/* rseq(2) writes the area it registers, which the
			 * snapshot's complete list of rseq areas holds (the
			 * recorder notes every registration), and no span
			 * holds a byte of (rcv_xthr_quiet()): nothing
			 * else.  Its registration cut every byte of the
			 * creator's while the new thread waited to run
			 * again (the demo's second pthread_create).
			 */
			if (nr == 334)
				by_range = true;
		}
		for (k = 0; k < sa.n; k++) {
			const struct rp_access *a = &sa.acc[k];

			if (a->kind != RP_ACC_WRITE ||
			    (a->syscall && by_range))
				continue;
			if (a->addr_known)
				lo = a->addr, hi = a->addr + a->size;
			else
				lo = a->lo, hi = a->hi;
			if (hi < lo)
				lo = hi = 0;
			if (!add_write(x, t0, t1, lo, hi))
				goto out;
		}
		if (sa.n < 0)
			goto out;
	}
	ok = true;
out:
	if (getenv("PTREC_RCV_DEBUG"))
		fprintf(stderr, "xthr: task %u of %u: %s\n", tid, rc->tid,
			ok ? "writes ordered" : "any byte, any time");
	rp_recover_free(u);
	rp_cursor_free(c);
	runs_free(&r);
	return ok;
}

static void lists_free(struct rcv_xthr *x)
{
	runs_free(&x->runs);
	free(x->any);
	free(x->rng);
	free(x->w);
	free(x->tls);
	memset(x, 0, sizeof(*x));
}

static bool append(void **dst, size_t *n, size_t *cap, const void *src,
		   size_t k, size_t sz)
{
	if (*n + k > *cap) {
		size_t c = *cap ? *cap : 64;
		void *t;

		while (c < *n + k)
			c *= 2;
		t = realloc(*dst, c * sz);
		if (!t)
			return false;
		*dst = t;
		*cap = c;
	}
	if (k)
		memcpy((char *)*dst + *n * sz, src, k * sz);
	*n += k;
	return true;
}

/*
 * Task @tid's writes added to @x: made once per session (a values engine
 * of the task: the costly part), whichever thread asks.  False when it
 * may write any byte at any time.
 */
static bool task_writes(struct rp_recover *rc, struct rcv_xthr *x,
			uint32_t tid)
{
	struct rp_session *s = rc->s;
	struct rcv_xtask *t = NULL;
	struct rcv_xthr *w;
	size_t l = rc->xthr_lvl;

	t = rcv_xtask_of(s, tid);
	if (!t)
		return false;
	if (!t->done[l]) {
		bool ok;

		w = calloc(1, sizeof(*w));
		ok = w && task_make(rc, w, tid);
		/* The entry again: task_make()'s engine, ordering writes
		 * of its own, may have added tasks to the list.
		 */
		t = rcv_xtask_of(s, tid);
		if (!t) {
			if (w)
				lists_free(w);
			free(w);
			return false;
		}
		t->w[l] = w;
		t->ok[l] = ok;
		t->done[l] = true;
	}
	w = t->w[l];
	return t->ok[l] &&
	       append((void **)&x->any, &x->nany, &x->cany, w->any,
		      w->nany, sizeof(*x->any)) &&
	       append((void **)&x->rng, &x->nrng, &x->crng, w->rng,
		      w->nrng, sizeof(*x->rng)) &&
	       append((void **)&x->w, &x->nw, &x->cw, w->w, w->nw,
		      sizeof(*x->w));
}

struct rcv_xtask *rcv_xtask_of(struct rp_session *s, uint32_t tid)
{
	struct rcv_xtask *t;
	size_t i;

	for (i = 0; i < s->nxtasks; i++)
		if (s->xtasks[i].tid == tid)
			return &s->xtasks[i];
	t = realloc(s->xtasks, (s->nxtasks + 1) * sizeof(*t));
	if (!t)
		return NULL;
	s->xtasks = t;
	t = &s->xtasks[s->nxtasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

void rcv_xthr_session_free(struct rp_session *s)
{
	size_t i, l;

	for (i = 0; i < s->nxtasks; i++) {
		for (l = 0; l < RCV_XT_LEVELS; l++) {
			if (s->xtasks[i].w[l])
				lists_free(s->xtasks[i].w[l]);
			free(s->xtasks[i].w[l]);
		}
		free(s->xtasks[i].ord_calls);
	}
	free(s->xtasks);
	s->xtasks = NULL;
	s->nxtasks = 0;
}

static int word_cmp(const void *a, const void *b)
{
	const struct xt_word *x = a, *y = b;

	if (x->word != y->word)
		return x->word < y->word ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

static void xthr_compute(struct rp_recover *rc)
{
	struct rcv_xthr *x;
	struct rp_cursor *c = NULL;
	uint32_t mm[64];
	uint64_t t_exit;
	size_t nmm, i, k, j;
	bool started;

	x = rc->xthr = calloc(1, sizeof(*x));
	if (!x || rc->xthr_lvl >= RCV_XT_LEVELS)
		return;
	/* Strict values: other tasks' rseq areas are taken to be near
	 * their thread pointers (glibc's), an assumption about the program.
	 */
	if (!rcv_backend_emu(rc->s) || !rc->sn ||
	    rc->rseq_any || rc->strict || rcv_order_aio(rc))
		return;
	nmm = rcv_share_set(rc->s, rc->pid, CLONE_VM, 0, mm, 64);
	if (!nmm || !task_runs(rc->s, rc->tid, &x->runs, &t_exit, &started) ||
	    rp_cursor_new(rc->s, rc->tid, &c) ||
	    !runs_place(&x->runs, c, rc->count))
		goto out;
	for (i = 0; i < rp_thread_count(rc->s); i++) {
		uint32_t tid = rp_thread_tid(rc->s, i);
		struct rp_thread_info o;

		if (tid == rc->tid || rp_thread_info(rc->s, tid, &o))
			continue;
		for (k = 0; k < nmm && mm[k] != o.pid; k++)
			;
		if (k < nmm && !task_writes(rc, x, tid))
			goto out;
	}
	if (x->nw)
		qsort(x->w, x->nw, sizeof(*x->w), word_cmp);
	for (i = j = 0; i < x->nw; i++)
		if (!j || word_cmp(&x->w[i], &x->w[j - 1]))
			x->w[j++] = x->w[i];
	x->nw = j;
	x->ok = true;
out:
	rp_cursor_free(c);
	if (getenv("PTREC_RCV_DEBUG"))
		fprintf(stderr, "xthr: thread %u: %s, %zu runs, %zu any, "
			"%zu ranges, %zu words\n", rc->tid,
			x->ok ? "ordered" : "off", x->runs.n, x->nany,
			x->nrng, x->nw);
}

void rcv_xthr_free(struct rp_recover *rc)
{
	struct rcv_xthr *x = rc->xthr;

	if (!x)
		return;
	lists_free(x);
	free(x);
	rc->xthr = NULL;
}

/*
 * Of the writes that may write byte @a, those that decide the span of a
 * state in the run [@tin, @tout] (rcv_xthr_span()): the last to end
 * before it and the first to begin after it; false when one falls within
 * it.
 */
static void near(const struct rcv_xiv *v, uint64_t tin, uint64_t tout,
		 struct rcv_xiv near2[2], bool have[2], bool *within)
{
	if (v->t1 < tin) {
		if (!have[0] || v->t1 > near2[0].t1)
			near2[0] = *v;
		have[0] = true;
	} else if (v->t0 > tout) {
		if (!have[1] || v->t0 < near2[1].t0)
			near2[1] = *v;
		have[1] = true;
	} else {
		*within = true;
	}
}

bool rcv_xthr_quiet(struct rp_recover *rc, uint64_t a, uint64_t s,
		    uint64_t *from, uint64_t *until)
{
	struct rcv_xiv iv[2], nb[2];
	bool have[2] = { false, false }, within = false;
	uint64_t tin, tout;
	struct rcv_xthr *x;
	struct xt_memo *m;
	size_t n = 0, k, lo, hi, ri;

	if (rc->xthr_off || !rc->mt)
		return false;
	if (!rc->xthr)
		xthr_compute(rc);
	x = rc->xthr;
	/* The rseq areas the kernel writes whenever it likes: every one
	 * of the process, in the snapshot's complete list (xthr_compute()
	 * orders nothing without it), not the 32 KiB around each other
	 * task's thread pointer (x->tls), as rcv_fd.c drops the thread's
	 * own: a worker's stack top lies next to the main thread's static
	 * TLS block (the demo's read_slot() frame).
	 */
	if (!x || !x->ok || (rc->tls_lo <= a && a < rc->tls_hi) ||
	    rc->rseq_any || rcv_fd_rseq(rc, a) || !rcv_map_private(rc, a))
		return false;
	if (!x->runs.n || s < x->runs.fp[0])
		return false;
	ri = run_of(&x->runs, s);
	m = &x->memo[(a ^ a >> 10 ^ ri * 0x9e37) % XT_MEMO];
	if (m->valid && m->a == a && m->ri == ri)
		goto answer;
	m->valid = true;
	m->a = a;
	m->ri = ri;
	m->ok = false;
	tin = x->runs.in[ri];
	tout = x->runs.out[ri];
	if (!x->any_done || x->any_ri != ri) {
		for (k = 0; k < x->nany && !within; k++)
			near(&x->any[k], tin, tout, nb, have, &within);
		x->any_done = true;
		x->any_ri = ri;
		x->any_within = within;
		memcpy(x->any_have, have, sizeof(x->any_have));
		memcpy(x->any_nb, nb, sizeof(x->any_nb));
	} else {
		within = x->any_within;
		memcpy(have, x->any_have, sizeof(x->any_have));
		memcpy(nb, x->any_nb, sizeof(x->any_nb));
	}
	for (k = 0; k < x->nrng && !within; k++)
		if (x->rng[k].lo <= a && a < x->rng[k].hi)
			near(&x->rng[k], tin, tout, nb, have, &within);
	lo = 0;
	hi = x->nw;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->w[mid].word < a >> 3)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < x->nw && x->w[k].word == a >> 3 && !within; k++) {
		struct rcv_xiv v = { x->w[k].t0, x->w[k].t1, 0, 0 };

		near(&v, tin, tout, nb, have, &within);
	}
	if (within)
		return false;
	for (k = 0; k < 2; k++)
		if (have[k])
			iv[n++] = nb[k];
	/* The span is the run's, whichever of its states @s is. */
	m->ok = rcv_xthr_span(&x->runs, iv, n, x->runs.fp[ri], &m->from,
			      &m->until);
answer:
	*from = m->from;
	*until = m->until;
	return m->ok;
}

