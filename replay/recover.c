// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Values in the past (issue #17): registers and memory of a thread at any
 * position, recovered from its executed instructions and the end snapshot
 * as REPT does.  Work is lazy and bounded: a thread's history is cut into
 * windows of a fixed number of instructions aligned on its end, computed
 * from the end backward only as far as a question reaches.  In a window,
 * knowledge flows backward (inversion, from the snapshot or the later
 * window's first state) and forward (emulation, loads of known memory)
 * until nothing changes.  Memory at a position is what the nearest access
 * of that byte shows (a load's value, a store's value) with no possible
 * write between, else the snapshot when nothing may have written it up to
 * the end.  Anything not implied stays unknown: docs/values.md.  This
 * file loads windows and answers questions; the passes over a window are
 * rcv_pass.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "sideband.h"
#include "watch_proof.h"

#define RCV_SEED	512	/* calls open at a window's start, at most */

/* ---- windows ----------------------------------------------------------- */

/* struct rcv_ctx's callbacks as recover.c sets them: each notes that it
 * was asked (struct redo, rcv_pass.c).
 */
static struct rcv_val ask_mem(void *ctx, uint64_t i, uint64_t addr,
			      unsigned int size)
{
	struct rp_recover *rc = ((struct win *)ctx)->rc;

	rc->asked = true;
	/* Not while the index is the one built before anything was
	 * learnt (rcv_pass.c, mem_off): the question is asked again.
	 */
	if (rc->mem_off)
		return (struct rcv_val){ 0, 0 };
	return rcv_mem_cb(ctx, i, addr, size);
}

static bool ask_own(void *ctx, uint64_t addr, unsigned int size)
{
	((struct win *)ctx)->rc->asked = true;
	return rcv_mem_own(ctx, addr, size);
}

void rcv_win_free(struct win *w)
{
	if (!w)
		return;
	free(w->ins);
	free(w->st);
	free(w->mbar);
	free(w->ixs);
	free(w->nb);
	free(w->pb);
	free(w->idx);
	free(w->tmp);
	free(w->sys_at);
	free(w->fd_int);
	free(w->sys_part);
	free(w->fr);
	free(w->pair);
	free(w->plocal);
	free(w->base);
	free(w->base0);
	free(w->xpair);
	free(w->ek);
	free(w->rmw);
	free(w->smem);
	free(w->lf);
	free(w);
}

/* struct rcv_ctx's wrote and written: @ctx is the window. */
static void rmw_wrote(void *ctx, uint64_t i, int rw, struct rcv_val v)
{
	struct win *w = ctx;

	w->rc->asked = true;
	w->rc->mb_world++;	/* what rcv_reads() gives may change */
	if (i < w->n)
		rcv_merge(&w->rmw[2 * i + !!rw], v, &w->rc->stats.conflicts);
}

static struct rcv_val rmw_written(void *ctx, const struct rcv_ins *in,
				  int rw)
{
	const struct win *w = ctx;

	w->rc->asked = true;
	if (in < w->ins || in >= w->ins + w->n)
		return (struct rcv_val){ 0, 0 };
	return w->rmw[2 * (size_t)(in - w->ins) + !!rw];
}

void rcv_ctx_windows(struct rp_recover *rc)
{
	rc->ctx.mem = ask_mem;
	rc->ctx.wrote = rmw_wrote;
	rc->ctx.written = rmw_written;
	rc->ctx.own = ask_own;
}

/* Did the trace go where instruction @in allows?  @ret is the address the
 * matching call returns to, or 0.  1: yes; 0: no (a signal, a restarted
 * syscall...); 2: not known yet (an indirect branch, a return with no
 * matching call: a signal delivered right after it would look the same).
 */
int rcv_expected(const struct rcv_ins *in, uint64_t next, uint64_t ret)
{
	uint64_t fall = in->ip + in->len;

	if (in->flags & RCV_I_BARRIER)
		return 0;	/* undecodable */
	switch (in->iclass) {
	case RP_IC_OTHER:
		return next == fall;
	case RP_IC_FAR:
		return (in->flags & RCV_I_SYSCALL) && next == fall;
	case RP_IC_COND:
		return in->op[0].type == RCV_OP_IMM &&
		       (next == fall || next == (uint64_t)in->op[0].imm);
	case RP_IC_JUMP:
	case RP_IC_CALL:
		if (in->nops == 1 && in->op[0].type == RCV_OP_IMM)
			return next == (uint64_t)in->op[0].imm;
		return 2;
	case RP_IC_RETURN:
		return !ret ? 2 : next == ret;
	default:
		return 0;
	}
}

bool rcv_async_away(const struct rp_session *s, uint32_t tid, uint64_t *evi,
		    uint64_t pos, uint64_t next)
{
	struct rp_event ev;
	bool away = false;

	for (; !rp_thread_event(s, tid, *evi, &ev) && ev.before <= pos + 1;
	     (*evi)++)
		if (ev.before == pos + 1 &&
		    (ev.kind == RP_EV_ASYNC_DISABLED ||
		     ev.kind == RP_EV_INTERRUPT) &&
		    ev.ip != next)	/* the FUP's: always there */
			away = true;
	return away;
}

/*
 * Was a signal handler entered right after instruction @pos?  The
 * software recorder records each signal a handler runs for
 * (PTREC_SB_SIGNAL, handled) while the thread is stopped in the kernel,
 * after the trace went off for it (a system call's TIP.PGD, or the
 * asynchronous disable of the stop, whose FUP is the next instruction's
 * address) and before it resumes in the handler: the last of those
 * before the record's time is the delivery's.  A handler whose entry is
 * the instruction's fall-through looks like going on (a system call's
 * return: tests/values/review4.c fallsig; rcv_async_away() passes an
 * asynchronous disable that resumes where it stopped).  Other recorders
 * have no records: rcv_handlers_ran() says "maybe" and such a handler is not
 * seen there (docs/values.md, limits).
 */
static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* rc->sig_pos: one walk of the events for all the records, in time
 * order.  False when out of memory.
 */
static bool sig_compute(struct rp_recover *rc)
{
	const struct rp_session *s = rc->s;
	uint64_t *t = NULL, *v, at = UINT64_MAX, i = 0;
	size_t k, nt = 0, j;
	struct rp_event ev;
	bool more;

	for (k = 0; k < s->nrecs; k++) {
		const struct ptrec_sb_signal *g = (const void *)s->recs[k];

		if (s->recs[k]->type != PTREC_SB_SIGNAL || g->tid != rc->tid ||
		    !(g->sflags & PTREC_SB_SIG_HANDLED))
			continue;
		v = realloc(t, (nt + 1) * sizeof(*t));
		if (!v) {
			free(t);
			return false;
		}
		t = v;
		t[nt++] = s->recs[k]->time;
	}
	if (!nt)
		return true;
	qsort(t, nt, sizeof(*t), u64_cmp);
	rc->sig_pos = malloc(nt * sizeof(*rc->sig_pos));
	if (!rc->sig_pos) {
		free(t);
		return false;
	}
	more = !rp_thread_event(s, rc->tid, i, &ev);
	for (j = 0; j < nt; j++) {
		for (; more && ev.tsc && ev.tsc <= t[j];
		     more = !rp_thread_event(s, rc->tid, ++i, &ev))
			if (ev.kind == RP_EV_DISABLED ||
			    ev.kind == RP_EV_ASYNC_DISABLED ||
			    ev.kind == RP_EV_INTERRUPT)
				at = ev.before;
		if (at != UINT64_MAX && at)
			rc->sig_pos[rc->nsig_pos++] = at - 1;
	}
	free(t);
	return true;
}

static bool sig_after(struct rp_recover *rc, uint64_t pos)
{
	if (rc->no_handlers)
		return false;
	if (!rc->sig_done) {
		if (!sig_compute(rc))
			return true;	/* then every call may be one */
		rc->sig_done = true;
	}
	/* Ascending: the records' times sorted, the events in order. */
	return rc->nsig_pos &&
	       bsearch(&pos, rc->sig_pos, rc->nsig_pos, sizeof(pos), u64_cmp);
}

size_t rcv_sig_entries(struct rp_recover *rc, const uint64_t **pos)
{
	*pos = NULL;
	if (rc->no_handlers)
		return 0;
	if (!rc->sig_done) {
		if (!sig_compute(rc))
			return SIZE_MAX;
		rc->sig_done = true;
	}
	*pos = rc->sig_pos;
	return rc->nsig_pos;
}

/*
 * The calls open where window @w starts (rp_cursor_callers(@c, w->first,
 * @calls, RCV_SEED)), innermost first, given @dmin and @dend: the lowest
 * and the last call depth its instructions reach, relative to its start
 * (after each instruction: calls +1, returns -1, as the cursor counts).
 *
 * Each window used to ask the cursor for all of them: a scan of the
 * checkpoints back to main's call for each window (16 M Ir a window at
 * 10^7, most of it the decode of the window's first segments, which its
 * own decode then finds done: 8 M of a 4-window stop saved).  The
 * chain's windows are loaded from the end back, and the
 * calls open at a window's start that none of its instructions returns
 * from, the outer ones (all but the -@dmin innermost), are still open
 * where the window after it starts, below the @dend - @dmin its
 * instructions opened and left open: the k-th call open at w->first,
 * counted from 0 and k >= -@dmin, is the (k + @dend)-th open at
 * w->last, by the definition of rp_cursor_callers() (the last call
 * before a position that no return matches, again from there).  So only
 * the -@dmin innermost are asked, the rest taken from the later window's
 * (kept in rc->cl), unless that list was cut at RCV_SEED where this one
 * needs more of it.  PTREC_RCV_VERIFY=1 asks for all of them too and
 * aborts unless the two lists are the same.
 */
static int win_callers(struct rp_recover *rc, struct rp_cursor *c,
		       const struct win *w, int64_t dmin, int64_t dend,
		       uint64_t *calls)
{
	int64_t inner = -dmin, k;
	int ns, full;

	if (!w->first)
		return 0;
	if (!rc->cl_valid || rc->cl_pos != w->last || inner >= RCV_SEED ||
	    (rc->cl_n == RCV_SEED && dend > 0) || dend - dmin > rc->cl_n)
		ns = rp_cursor_callers(c, w->first, calls, RCV_SEED);
	else {
		ns = inner ? rp_cursor_callers(c, w->first, calls,
					       (size_t)inner) : 0;
		/* Fewer than asked: the history's outermost level (or an
		 * error, kept as the cursor gives it).
		 */
		if (ns == inner)
			for (k = dend - dmin; k < rc->cl_n && ns < RCV_SEED;
			     k++)
				calls[ns++] = rc->cl[k];
		if (rc->verify) {
			uint64_t *v = malloc(RCV_SEED * sizeof(*v));

			full = v ? rp_cursor_callers(c, w->first, v,
						     RCV_SEED) : ns;
			if (v && (full != ns || (ns > 0 &&
			    memcmp(v, calls, (size_t)ns * sizeof(*v))))) {
				fprintf(stderr, "recover: PTREC_RCV_VERIFY: "
					"the calls open at %" PRIu64 " are "
					"not the later window's\n", w->first);
				abort();
			}
			free(v);
		}
	}
	rc->cl_valid = false;
	if (ns >= 0 && (rc->cl || (rc->cl = malloc(RCV_SEED *
						    sizeof(*rc->cl))))) {
		if (ns)
			memcpy(rc->cl, calls, (size_t)ns * sizeof(*calls));
		rc->cl_n = ns;
		rc->cl_pos = w->first;
		rc->cl_valid = true;
	}
	return ns;
}

static int win_load(struct rp_recover *rc, struct win *w)
{
	struct rp_cursor *c = NULL;
	struct rp_insn insn;
	uint64_t *calls = NULL, ncalls = 0, p, evi, evnext;
	struct rp_event ev;
	struct rp_gap gap;
	int64_t depth = 0, dmin = 0;
	size_t i, k;
	int ret, ns, e;

	ret = rp_cursor_new(rc->s, rc->tid, &c);
	if (ret)
		return ret;
	calls = malloc((w->n + 1 + RCV_SEED) * sizeof(*calls));
	if (!calls) {
		rp_cursor_free(c);
		return -RP_ERR_NOMEM;
	}
	for (i = 0; i < w->n; i++) {
		struct rcv_ins *in = &w->ins[i];

		ret = rp_cursor_peek(c, w->first + i, &insn);
		if (ret)
			goto out;
		rcv_decode_insn(rc->dec, &insn, in);
		if (insn.iclass == RP_IC_CALL)
			depth++;
		else if (insn.iclass == RP_IC_RETURN && --depth < dmin)
			dmin = depth;
	}
	/* The calls still open where the window starts (outermost first),
	 * so that its returns to them are matched.
	 */
	ns = win_callers(rc, c, w, dmin, depth, calls);
	for (k = 0; ns > 0 && k < (size_t)ns / 2; k++) {
		p = calls[k];
		calls[k] = calls[ns - 1 - k];
		calls[ns - 1 - k] = p;
	}
	for (k = 0; ns > 0 && k < (size_t)ns; k++)
		if (!rp_cursor_peek(c, calls[k], &insn))
			calls[ncalls++] = insn.ip + insn.size;
	evi = rp_thread_event_find(rc->s, rc->tid, w->first + 1);
	/* rcv_async_away() looks at events before p + 1 <= the next's */
	evnext = rp_thread_event(rc->s, rc->tid, evi, &ev) ? UINT64_MAX :
							     ev.before;
	for (i = 0; i < w->n; i++) {
		struct rcv_ins *in = &w->ins[i];
		uint64_t ret_to = 0;

		p = w->first + i + 1;
		if (i + 1 < w->n)
			in->next = w->ins[i + 1].ip;
		else if (p < rc->count && !rp_cursor_peek(c, p, &insn))
			in->next = insn.ip;
		else if (rc->end_regs.valid & (1ull << RP_REG_RIP))
			in->next = rc->end_regs.val[RP_REG_RIP];
		else
			in->next = 0;
		if (in->iclass == RP_IC_CALL)
			calls[ncalls++] = in->ip + in->len;
		else if (in->iclass == RP_IC_RETURN && ncalls)
			ret_to = calls[--ncalls];
		e = in->next ? rcv_expected(in, in->next, ret_to) : 0;
		if (e == 2 && rc->no_handlers)
			e = 1;
		/* Only where an event is due (p99: a lookup an instruction
		 * was 0.7% of a stop at 10^7).
		 */
		if (e && p >= evnext) {
			if (rcv_async_away(rc->s, rc->tid, &evi, p - 1,
					   in->next))
				e = 0;
			evnext = rp_thread_event(rc->s, rc->tid, evi, &ev) ?
				 UINT64_MAX : ev.before;
		}
		if (e && sig_after(rc, p - 1))
			e = 0;
		if (e == 2) {
			in->flags |= RCV_I_UNPROVEN | RCV_I_BARRIER |
				     RCV_I_MEMBAR;
		} else if (!e) {
			in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_XFER;
			ncalls = 0;
			rc->stats.async++;
			if (getenv("PTREC_RCV_DEBUG"))
				fprintf(stderr, "recover: transfer at %"
					PRIu64 " %#" PRIx64 " class %u -> %#"
					PRIx64 "\n", w->first + i, in->ip,
					in->iclass, in->next);
		}
	}
	for (i = 0; !rp_thread_gap(rc->s, rc->tid, i, &gap); i++)
		if (gap.before > w->first && gap.before <= w->last)
			w->ins[gap.before - 1 - w->first].flags |=
				RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_XFER;
	rcv_tsx_barriers(rc, w);
	rcv_fs_absolute(rc, w);
	ret = rcv_win_frames(w);
out:
	free(calls);
	rp_cursor_free(c);
	return ret;
}

static int win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		   struct win *later, const struct rcv_state *seed,
		   const struct rcv_smem *smem, struct rcv_fact *lf,
		   size_t nlf, struct win **wp);

int rcv_win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		struct win *later, const struct rcv_state *seed,
		struct win **wp)
{
	return win_new(rc, first, last, later, seed, NULL, NULL, 0, wp);
}

int rcv_win_new_mem(struct rp_recover *rc, uint64_t first, uint64_t last,
		    struct win *later, const struct rcv_state *seed,
		    const struct rcv_smem *smem, struct win **wp)
{
	return win_new(rc, first, last, later, seed, smem, NULL, 0, wp);
}

int rcv_win_new_alone(struct rp_recover *rc, uint64_t first, uint64_t last,
		      struct win **wp)
{
	struct rcv_fact *lf;
	size_t nlf;
	int ret = rcv_sysret_local(rc, first, last, &lf, &nlf);

	if (ret) {
		*wp = NULL;
		return ret;
	}
	return win_new(rc, first, last, NULL, NULL, NULL, lf, nlf, wp);
}

/* @lf (@nlf facts) becomes the window's, or is freed. */
static int win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		   struct win *later, const struct rcv_state *seed,
		   const struct rcv_smem *smem, struct rcv_fact *lf,
		   size_t nlf, struct win **wp)
{
	struct win *w = calloc(1, sizeof(*w));
	size_t n = last - first;
	int ret;

	*wp = NULL;
	if (!w) {
		free(lf);
		return -RP_ERR_NOMEM;
	}
	w->lf = lf;
	w->nlf = nlf;
	if (smem && smem->n) {
		w->smem = malloc(sizeof(*w->smem));
		if (!w->smem) {
			free(w);
			return -RP_ERR_NOMEM;
		}
		*w->smem = *smem;
	}
	w->first = first;
	w->last = last;
	w->n = n;
	w->rc = rc;
	w->serial = ++rc->win_serial;
	w->later = later;
	w->top_end = !later && last == rc->end;
	w->ins = calloc(n + 1, sizeof(*w->ins));
	w->st = calloc(n + 1, sizeof(*w->st));
	w->mbar = calloc(n + 1, 1);
	w->ixs = calloc(n + 1, 1);
	w->nb = calloc(n + 1, sizeof(*w->nb));
	w->pb = calloc(n + 1, sizeof(*w->pb));
	w->fr = calloc(n + 1, sizeof(*w->fr));
	w->pair = calloc(n + 1, sizeof(*w->pair));
	w->plocal = calloc(n + 1, 1);
	w->rmw = calloc(2 * (n + 1), sizeof(*w->rmw));
	if (!w->ins || !w->st || !w->mbar || !w->ixs || !w->nb || !w->pb || !w->fr ||
	    !w->pair || !w->plocal || !w->rmw) {
		rcv_win_free(w);
		return -RP_ERR_NOMEM;
	}
	/* What the window before it is known to end with (rcv_sum.c): the
	 * same position, so the same state.
	 */
	if (seed) {
		for (ret = 0; ret < RCV_NREG; ret++)
			rcv_merge(&w->st[0].r[ret], seed->r[ret],
				  &rc->stats.conflicts);
		rcv_sse_flow(&w->st[0], seed, 0, &rc->stats.conflicts);
	}
	ret = win_load(rc, w);
	if (!ret)
		ret = rcv_win_compute(rc, w);
	if (ret) {
		rcv_win_free(w);
		return ret;
	}
	rc->stats.windows++;
	rc->stats.insns += n;
	*wp = w;
	return 0;
}

/* Chain window @j (the chain's oldest starting with @seed, what the ramp
 * before it ends with), unless computed, and what it adds at its end
 * carried into the later ones.
 */
static int chain_win(struct rp_recover *rc, size_t j,
		     const struct rcv_state *seed)
{
	uint64_t first, last;
	int err;

	if (rc->chain[j])
		return 0;
	last = rc->end - j * rc->block;
	first = last > rc->block ? last - rc->block : 0;
	err = rcv_win_new(rc, first, last, j ? rc->chain[j - 1] : NULL,
			  j == RCV_CHAIN - 1 ? seed : NULL, &rc->chain[j]);
	if (err)
		return err;
	if (j)
		rc->chain[j - 1]->earlier = rc->chain[j];
	return rcv_flow_forward(rc, j);
}

int rcv_chain_next(struct rp_recover *rc)
{
	const struct rcv_state *seed = NULL;
	size_t j;
	int err;

	for (j = 0; j < RCV_CHAIN && rc->chain[j]; j++)
		;
	if (j == RCV_CHAIN || j * rc->block >= rc->end)
		return 0;
	if (j == RCV_CHAIN - 1) {
		err = rcv_ramp_chain(rc, &seed);
		if (err)
			return err;
	}
	err = chain_win(rc, j, seed);
	return err ? err : 1;
}

/*
 * The recording's facts, before any window is computed (a window computed
 * before them never takes them: rcv_apply_facts() runs in its passes): a
 * thread's first state, the registers its recorder took there
 * (rcv_first.c), else a child's from its creator's (rcv_clone.c, not in a
 * helper engine), and its system calls' results.  Once; 0 or an error.
 */
int rcv_inherit(struct rp_recover *rc)
{
	int err;

	if (rc->inherit_done)
		return 0;
	rc->inherit_done = true;
	err = rcv_first_regs(rc);
	if (!err && !rc->xthr_off && !rc->ord_noargs && !rc->no_inherit)
		err = rcv_clone_inherit(rc);
	if (err >= 0)
		err = rcv_sysret_regs(rc);
	if (err < 0)
		return err;
	rc->nfacts_rec = rc->nfacts;
	return 0;
}

/* The window that holds position @pos (computing it and those after it
 * up to the end), or NULL with *@err set.
 */
static struct win *win_at(struct rp_recover *rc, uint64_t pos, int *err)
{
	uint64_t k = (rc->end - pos) / rc->block, kc = k;
	const struct rcv_state *seed = NULL;
	size_t j;

	*err = rcv_inherit(rc);
	if (*err)
		return NULL;
	/* Once the ramp has begun (a question went before the chain), the
	 * chain is computed down to its oldest window, which starts with
	 * the summary of the window before it: what the history's start
	 * teaches then reaches the end.
	 */
	if (k < RCV_CHAIN) {
		*err = rcv_ramp_chain(rc, &seed);
		if (*err)
			return NULL;
		if (seed)
			kc = RCV_CHAIN - 1;
	}
	if (k < RCV_CHAIN) {
		for (j = 0; j <= kc; j++) {
			*err = chain_win(rc, j, seed);
			if (*err)
				return NULL;
		}
		return rc->chain[k];
	}
	/* Too far from the end to chain: a window on its own, on the
	 * chain's grid, so that each serves a whole block of a scan and
	 * what a position's window knows does not depend on the questions
	 * asked before (a window's boundaries are any: nothing flows into
	 * it from outside but the ramp's summaries, which depend on the
	 * history alone, docs/values.md).
	 */
	if (rc->far && rc->far->first <= pos && pos <= rc->far->last)
		return rc->far;
	/* The other one kept (the one before, or the prefetch's): a walk
	 * back and forth across a window's edge computes nothing again.
	 */
	if (rc->far2 && rc->far2->first <= pos && pos <= rc->far2->last) {
		struct win *t = rc->far;

		rc->far = rc->far2;
		rc->far2 = t;
		return rc->far;
	}
	rcv_win_free(rc->far2);
	rc->far2 = rc->far;
	rc->far = NULL;
	*err = rcv_ramp_win(rc, k, &rc->far);
	return rc->far;
}

/* win_at() for rcv_sum.c's prefetch. */
struct win *rcv_win_at(struct rp_recover *rc, uint64_t pos, int *err)
{
	return win_at(rc, pos, err);
}

/* ---- the public interface ---------------------------------------------- */

/*
 * May a signal handler have run in thread @tid?  The software recorder
 * stops the thread at every signal it is sent and records each
 * (PTREC_SB_SIGNAL, "handled" when a handler runs next), so its bundles
 * answer; other recorders do not record signals: maybe.
 */
bool rcv_handlers_ran(struct rp_session *s, uint32_t tid)
{
	size_t i;

	if (!rcv_backend_emu(s))
		return true;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_signal *g = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_SIGNAL && g->tid == tid &&
		    (g->sflags & PTREC_SB_SIG_HANDLED))
			return true;
	}
	return false;
}

/*
 * Strict values (docs/values.md, "A callee's own stack"): no rule that
 * holds only for programs without a certain bug (a pointer into a frame
 * that returned, pointer arithmetic out of its object).  The one place
 * PTREC_VALUES_STRICT is read; rp_session_set_values_strict() overrides
 * it (GDB's `set ptrec values-strict`).
 */
bool rp_session_values_strict(const struct rp_session *s)
{
	const char *v;

	if (s->values_strict)
		return s->values_strict == 2;
	v = getenv("PTREC_VALUES_STRICT");
	return v && *v && strcmp(v, "0");
}

void rp_session_set_values_strict(struct rp_session *s, bool on)
{
	s->values_strict = on ? 2 : 1;
	/* What the unwinder's context knew was under the other rules. */
	rp_recover_free(s->ev_rc);
	s->ev_rc = NULL;
}

int rp_recover_new(struct rp_session *s, uint32_t tid,
		   struct rp_recover **rcp)
{
	return rcv_recover_new_with(s, tid, NULL, rcp);
}

int rcv_recover_new_with(struct rp_session *s, uint32_t tid,
			 struct rp_snapshot *sn, struct rp_recover **rcp)
{
	struct rp_recover *rc = calloc(1, sizeof(*rc));
	struct rp_snap_thread_info ti;
	struct rp_snap_map_info mi;
	struct rp_thread_info info, o;
	size_t i;
	int ret;

	*rcp = NULL;
	if (!rc)
		return -RP_ERR_NOMEM;
	rc->s = s;
	rc->tid = tid;
	rc->strict = rp_session_values_strict(s);
	rc->verify = getenv("PTREC_RCV_VERIFY") != NULL;
	rc->block = RCV_BLOCK;
	rc->sum = calloc(RCV_RAMP + RCV_START, sizeof(*rc->sum));
	rc->pre = calloc(RCV_RAMP + RCV_START, sizeof(*rc->pre));
	rc->ssum = calloc(RCV_START, sizeof(*rc->ssum));
	ret = rc->sum && rc->pre && rc->ssum ? rp_thread_info(s, tid, &info) :
				   -RP_ERR_NOMEM;
	if (!ret)
		ret = rp_thread_end(s, tid, &rc->end, &rc->end_regs);
	if (!ret)
		ret = rcv_dec_shared(s, &rc->dec);
	if (!ret)
		ret = rcv_stack_tmp_new(&rc->stk);
	if (ret) {
		rp_recover_free(rc);
		return ret;
	}
	rc->pid = info.pid;
	rc->count = info.insns;
	/* Around the thread pointer (struct pthread, its rseq area): when
	 * fs_base is not known, a guess far from any data.
	 */
	if (rc->end_regs.valid & (1ull << RP_REG_FS_BASE)) {
		uint64_t fs = rc->end_regs.val[RP_REG_FS_BASE];

		rc->tls_lo = fs > 16384 ? fs - 16384 : 0;
		rc->tls_hi = fs + 16384;
	}
	for (i = 0; i < rp_thread_count(s); i++)
		if (rp_thread_tid(s, i) != tid &&
		    !rp_thread_info(s, rp_thread_tid(s, i), &o) &&
		    o.pid == info.pid)
			rc->mt = true;
	rc->mt |= rcv_vm_shared(s, info.pid) || rcv_untraced(s, info.pid);
	/* The session's, which rp_thread_end() above opened: the same
	 * file's, read only, and decompressed once (a second copy was 10%
	 * of `ptrec values` on a threaded program).  It outlives every
	 * context of the session.
	 */
	if (!sn)
		sn = s->snap;
	rc->sn_borrowed = sn != NULL;
	rc->sn = sn;
	if (!sn && rp_snapshot_open(&rc->sn, s->dir)) {
		rp_snapshot_close(rc->sn);
		rc->sn = NULL;
	} else if (!rp_snapshot_thread(rc->sn, tid, &ti) &&
		   ti.pid == info.pid) {
		/* The snapshot was taken at this thread's end (it is in
		 * it); its stack is the mapping its stack pointer is in.
		 */
		rc->snap_ok = true;
		rcv_sse_end(rc, &ti);
		for (i = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, i, &mi);
		     i++)
			if (mi.start <= ti.regs[RP_REG_RSP] &&
			    ti.regs[RP_REG_RSP] < mi.end) {
				rc->stack_lo = mi.start;
				rc->stack_hi = mi.end;
			}
	}
	/* A thread that ended before the snapshot, of a process in it:
	 * its read-only pages, where the other tasks' calls are ordered
	 * before (rcv_mem.c ro_mem(), rcv_order.c).
	 */
	if (rc->sn && !rc->snap_ok && rc->mt &&
	    !rp_snapshot_proc_map(rc->sn, rc->pid, 0, &mi))
		rc->snap_ro = true;
	rcv_fd_init(rc);
	rcv_end_partial(rc);
	rc->no_handlers = !rcv_handlers_ran(s, tid);
	rcv_ctx_windows(rc);
	*rcp = rc;
	return 0;
}

void rp_recover_free(struct rp_recover *rc)
{
	size_t i;

	if (!rc)
		return;
	for (i = 0; i < RCV_CHAIN; i++)
		rcv_win_free(rc->chain[i]);
	rcv_win_free(rc->far);
	rcv_win_free(rc->far2);
	free(rc->sig_pos);
	free(rc->sigf);
	free(rc->root_memo);
	free(rc->cl);
	wpf_cache_free(rc->wpf);
	free(rc->sum);
	free(rc->pre);
	free(rc->ssum);
	rcv_xthr_free(rc);
	if (!rc->sn_borrowed)
		rp_snapshot_close(rc->sn);
	rcv_stack_tmp_free(rc->stk);
	free(rc->facts);
	free(rc->rseq);
	free(rc->fmap);
	free(rc);
}

/* Every window dropped: computed again when asked. */
void rcv_drop_windows(struct rp_recover *rc)
{
	size_t i;

	for (i = 0; i < RCV_CHAIN; i++) {
		rcv_win_free(rc->chain[i]);
		rc->chain[i] = NULL;
	}
	rcv_win_free(rc->far);
	rc->far = NULL;
	rcv_win_free(rc->far2);
	rc->far2 = NULL;
	memset(rc->sum, 0, (RCV_RAMP + RCV_START) * sizeof(*rc->sum));
	memset(rc->pre, 0, (RCV_RAMP + RCV_START) * sizeof(*rc->pre));
	memset(rc->ssum, 0, RCV_START * sizeof(*rc->ssum));
}

void rp_recover_set_block(struct rp_recover *rc, uint64_t block)
{
	if (!block)
		block = RCV_BLOCK;
	if (block == rc->block)
		return;
	rcv_drop_windows(rc);
	wpf_cache_free(rc->wpf);
	rc->wpf = NULL;
	rc->block = block;
}

int rp_recover_regs(struct rp_recover *rc, uint64_t pos, struct rp_regs *regs)
{
	struct rcv_state *s;
	struct rp_insn insn;
	struct rp_cursor *c;
	struct win *w;
	int g, ret;

	memset(regs, 0, sizeof(*regs));
	if (pos > rc->end)
		return -RP_ERR_RANGE;
	if (pos == rc->end) {
		*regs = rc->end_regs;
		return 0;
	}
	w = win_at(rc, pos, &ret);
	if (!w)
		return ret;
	s = &w->st[pos - w->first];
	for (g = 0; g < 16; g++)
		if (s->r[g].k == ~0ull) {
			regs->valid |= 1ull << g;
			regs->val[g] = s->r[g].v;
		}
	if (s->r[RCV_FLAGS].k == ~0ull) {
		regs->valid |= 1ull << RP_REG_EFLAGS;
		regs->val[RP_REG_EFLAGS] = s->r[RCV_FLAGS].v;
	}
	ret = rp_cursor_new(rc->s, rc->tid, &c);
	if (ret)
		return ret;
	if (!rp_cursor_peek(c, pos, &insn)) {
		regs->valid |= 1ull << RP_REG_RIP;
		regs->val[RP_REG_RIP] = insn.ip;
	}
	rp_cursor_free(c);
	return 0;
}

int rp_recover_reg_bits(struct rp_recover *rc, uint64_t pos, unsigned int reg,
			uint64_t *val, uint64_t *known)
{
	struct win *w;
	int ret;

	*val = *known = 0;
	if (reg > RP_REG_EFLAGS || reg == RP_REG_RIP)
		return -RP_ERR_INVAL;
	if (pos > rc->end)
		return -RP_ERR_RANGE;
	w = win_at(rc, pos == rc->end && pos ? pos - 1 : pos, &ret);
	if (!w)
		return ret;
	if (pos > w->last)
		return -RP_ERR_RANGE;
	ret = reg == RP_REG_EFLAGS ? RCV_FLAGS : (int)reg;
	*val = w->st[pos - w->first].r[ret].v;
	*known = w->st[pos - w->first].r[ret].k;
	return 0;
}

size_t rp_recover_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		      void *buf, size_t len)
{
	struct win *w;
	size_t i;
	int err;

	if (pos > rc->end)
		return 0;
	if (pos == rc->end) {
		/* At the end, the snapshot itself (where this thread's end
		 * is the snapshot's).
		 */
		for (i = 0; i < len; i++)
			if (!rcv_snap_byte(rc, addr + i, (uint8_t *)buf + i))
				break;
		return i;
	}
	w = win_at(rc, pos, &err);
	if (!w)
		return 0;
	rc->ctx.mctx = w;
	return rcv_mem_range(w, pos - w->first, addr, buf, len);
}

void rp_recover_stats(const struct rp_recover *rc,
		      struct rp_recover_stats *st)
{
	*st = rc->stats;
}

/* ---- the memory an instruction touches (watchpoints, #18) -------------- */

struct win *rcv_insn_win(struct rp_recover *rc, uint64_t pos, int *err)
{
	struct win *w;

	*err = -RP_ERR_RANGE;
	if (pos >= rc->end)
		return NULL;
	w = win_at(rc, pos, err);
	if (!w)
		return NULL;
	/* A chained window's last state is the next one's first: its
	 * instruction is the next window's.
	 */
	if (pos == w->last && w->later)
		w = w->later;
	/* A window on its own that ends at @pos: the one after it. */
	if (pos == w->last && w == rc->far) {
		w = win_at(rc, pos + 1, err);
		if (!w)
			return NULL;
	}
	if (pos < w->first || pos >= w->last) {
		*err = -RP_ERR_RANGE;
		return NULL;
	}
	return w;
}

int rp_recover_accesses(struct rp_recover *rc, uint64_t pos,
			struct rp_access *acc, size_t max)
{
	struct win *w;
	int err;

	w = rcv_insn_win(rc, pos, &err);
	if (!w)
		return err;
	return rcv_win_accesses(rc, w, pos - w->first, acc, max);
}
