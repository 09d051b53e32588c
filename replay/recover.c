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
 * the end.  Anything not implied stays unknown: docs/values.md.
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
#define RCV_PASSES	40	/* backward+forward passes at most */

/* ---- windows ----------------------------------------------------------- */

/*
 * Which instructions a pass of win_compute() evaluates again (p99).  A
 * pass used to evaluate every instruction backward and forward; most of
 * them, after the first, with the very states they had the pass before.
 * An evaluation is a function of the instruction, the states before and
 * after it, and what the context's callbacks (memory, its own stack, a
 * read-modify-write's values) answer.  One that asked no callback, of an
 * instruction and states unchanged since, gives what it gave, which the
 * states hold already (knowledge only grows): it is skipped, and the
 * conflicts it counted are counted again, so that a pass counts what a
 * full one would (rcv_facts.c compares them).  Every change of a state is
 * stamped with a tick; an evaluation remembers the tick before it.
 * PTREC_RCV_VERIFY=1 evaluates the skipped ones anyway, on copies, and
 * aborts when one would have changed anything.
 */
struct redo {
	uint32_t *stamp;	/* per state: tick of its last change */
	uint32_t *tb, *tf;	/* per instruction: tick before its last
				 * backward (forward) evaluation, 0 none */
	uint32_t *cb, *cf;	/* the conflicts that one counted */
	uint8_t *asked;		/* bit 0 (1): it asked a callback */
	uint8_t *fb, *ff;	/* the instruction's flags then (a barrier
				 * lifted by rcv_build_index(), a branch
				 * proven) */
	uint32_t tick, all;	/* all: every state changed then */
	size_t n;
	bool verify;
	/* During the sweeps, every state change keeps the access index
	 * what a rebuild would make (rcv_index_touch()): memory learned at
	 * one instruction answers the next ones in the same sweep, not
	 * one loop iteration per pass.  err: its first error.
	 */
	struct win *live;
	int err;
};

/* Ticks about to wrap (a very long window): every instruction is
 * evaluated again once, from tick 1.
 */
static void redo_rewind(struct redo *d)
{
	memset(d->stamp, 0, (d->n + 1) * sizeof(*d->stamp));
	memset(d->tb, 0, (d->n + 1) * sizeof(*d->tb));
	memset(d->tf, 0, (d->n + 1) * sizeof(*d->tf));
	d->all = 0;
	d->tick = 1;
}

static void redo_mark(struct redo *d, size_t i)
{
	int ret;

	if (!d)
		return;
	d->stamp[i] = ++d->tick;
	if (d->live && !d->err) {
		size_t nidx = d->live->nidx;

		ret = rcv_index_touch(d->live, i);
		if (ret)
			d->err = ret;
		else if (d->verify && d->live->nidx != nidx)
			rcv_index_verify(d->live, "an entry added");
	}
}

static void redo_all(struct redo *d)
{
	if (d)
		d->all = ++d->tick;
}

/* Must instruction @i be evaluated again (last evaluated at tick @t,
 * when its flags were @fl)?
 */
static bool redo_needed(const struct redo *d, const struct win *w, size_t i,
			uint32_t t, bool asked, uint8_t fl)
{
	return !t || asked || w->ins[i].flags != fl || d->all > t ||
	       d->stamp[i] > t || d->stamp[i + 1] > t;
}

static void redo_free(struct redo *d)
{
	free(d->stamp);
	free(d->tb);
	free(d->tf);
	free(d->cb);
	free(d->cf);
	free(d->asked);
	free(d->fb);
	free(d->ff);
}

static int redo_init(struct redo *d, size_t n)
{
	memset(d, 0, sizeof(*d));
	d->stamp = calloc(n + 1, sizeof(*d->stamp));
	d->tb = calloc(n + 1, sizeof(*d->tb));
	d->tf = calloc(n + 1, sizeof(*d->tf));
	d->cb = calloc(n + 1, sizeof(*d->cb));
	d->cf = calloc(n + 1, sizeof(*d->cf));
	d->asked = calloc(n + 1, 1);
	d->fb = calloc(n + 1, 1);
	d->ff = calloc(n + 1, 1);
	if (!d->stamp || !d->tb || !d->tf || !d->cb || !d->cf ||
	    !d->asked || !d->fb || !d->ff) {
		redo_free(d);
		return -RP_ERR_NOMEM;
	}
	d->verify = getenv("PTREC_RCV_VERIFY") != NULL;
	d->n = n;
	return 0;
}

/* struct rcv_ctx's callbacks as recover.c sets them: each notes that it
 * was asked (struct redo).
 */
static struct rcv_val ask_mem(void *ctx, uint64_t i, uint64_t addr,
			      unsigned int size)
{
	((struct win *)ctx)->rc->asked = true;
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
	free(w->fr);
	free(w->pair);
	free(w->base);
	free(w->base0);
	free(w->xpair);
	free(w->rmw);
	free(w);
}

/* struct rcv_ctx's wrote and written: @ctx is the window. */
static void rmw_wrote(void *ctx, uint64_t i, int rw, struct rcv_val v)
{
	struct win *w = ctx;

	w->rc->asked = true;
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

/*
 * Where branch @i of @w goes by the values known before it: its register
 * operand, or the word its memory operand (or a return's [rsp]) holds.
 * Memory after the branch counts only where a signal delivered right after
 * it could not have written: the slot a return read lies in the red zone
 * of the interrupted code's stack, which the kernel skips (or the frame is
 * on the alternate stack).  Other memory operands: only what is known
 * from before the branch.
 */
static struct rcv_val branch_target(struct rp_recover *rc, struct win *w,
				    size_t i)
{
	const struct rcv_ins *in = &w->ins[i];
	const struct rcv_state *s = &w->st[i];
	struct rcv_val a, t = { 0, 0 };
	uint32_t nb = w->nb[i];

	if (in->iclass == RP_IC_RETURN) {
		a = s->r[RP_REG_RSP];
		w->nb[i] = w->nb[i + 1];
	} else if (in->op[0].type == RCV_OP_REG && in->op[0].size == 8) {
		return s->r[in->op[0].reg];
	} else if (in->op[0].type == RCV_OP_MEM && in->op[0].size == 8) {
		a = rcv_addr(&rc->ctx, in, &in->op[0], s);
	} else {
		return t;
	}
	if (a.k == ~0ull)
		t = rcv_mem_cb(w, i, a.v, 8);
	w->nb[i] = nb;
	return t;
}

/*
 * Lifts the barrier of each branch whose target the values now show to be
 * where the trace went, and makes those that went elsewhere transfers for
 * good (a signal).  From the last to the first, so that memory known past
 * a lifted return reaches the branches before it.  True when it lifted any.
 */
static bool prove_branches(struct rp_recover *rc, struct win *w)
{
	bool lifted = false;
	size_t i;

	for (i = w->n; i-- > 0;) {
		struct rcv_ins *in = &w->ins[i];
		struct rcv_val t;

		if (in->flags & RCV_I_UNPROVEN) {
			t = branch_target(rc, w, i);
			if (t.k == ~0ull && t.v == in->next) {
				in->flags &= ~(RCV_I_UNPROVEN | RCV_I_BARRIER |
					       RCV_I_MEMBAR);
				/* A call's push is not in the index yet. */
				w->mbar[i] = in->iclass == RP_IC_CALL;
				lifted = true;
			} else if (t.k == ~0ull) {
				in->flags &= ~RCV_I_UNPROVEN;
				rc->stats.async++;
			}
		}
		w->nb[i] = w->mbar[i] ? (uint32_t)i : w->nb[i + 1];
	}
	return lifted;
}

/*
 * Stack frames of @w built over its instructions and the later window's,
 * so that a push here and its pop there, and rsp and rbp known there,
 * count here: the later window's values are final.  Fills w->fr, w->pair
 * (pairs within @w), w->xpair (pushes here whose pop is there, with the
 * popped value) and w->base0 (class bases the later window shows).
 * Returns the number of classes or -RP_ERR_NOMEM.
 */
static int frames_across(struct win *w)
{
	const struct win *l = w->later;
	size_t m = w->n + l->n, i;
	struct rcv_frame *f = malloc((m + 1) * sizeof(*f));
	int64_t *pair = malloc((m + 1) * sizeof(*pair));
	struct rcv_stack_vals sv;
	int nc = -RP_ERR_NOMEM;

	if (!f || !pair)
		goto out;
	/* Both windows' instructions where they are (not copied). */
	sv = (struct rcv_stack_vals){ w->st, l->st, w->n, l->ins,
				      w->rc->stk };
	nc = rcv_stack_build_v(w->ins, m, &sv, f, pair);
	if (nc <= 0)
		goto out;
	memcpy(w->fr, f, (w->n + 1) * sizeof(*f));
	if (w->n)
		memcpy(w->pair, pair, w->n * sizeof(*pair));
	w->base0 = calloc((size_t)nc, sizeof(*w->base0));
	w->xpair = calloc(w->n + 1, sizeof(*w->xpair));
	if (!w->base0 || !w->xpair) {
		nc = -RP_ERR_NOMEM;
		goto out;
	}
	for (i = w->n; i <= m; i++) {
		const struct rcv_state *s = &l->st[i - w->n];

		if (s->r[RP_REG_RSP].k == ~0ull && !w->base0[f[i].rsp_c].k)
			w->base0[f[i].rsp_c] = (struct rcv_val){
				s->r[RP_REG_RSP].v - (uint64_t)f[i].rsp_o,
				~0ull };
		if (f[i].rbp_c && s->r[RP_REG_RBP].k == ~0ull &&
		    !w->base0[f[i].rbp_c].k)
			w->base0[f[i].rbp_c] = (struct rcv_val){
				s->r[RP_REG_RBP].v - (uint64_t)f[i].rbp_o,
				~0ull };
		/* A pop there of a push here: the pushed register's value. */
		if (i < m && pair[i] >= 0 && (size_t)pair[i] < w->n &&
		    l->first + (i - w->n) <= rcv_stack_until(w->rc)) {
			const struct rcv_ins *q = &l->ins[i - w->n];
			int dst = q->id == X86_INS_LEAVE ? RP_REG_RBP :
							   q->op[0].reg;

			w->xpair[pair[i]] = l->st[i - w->n + 1].r[dst];
		}
	}
out:
	free(f);
	free(pair);
	return nc;
}

/* (Re)builds @w's stack frames from its instructions' barriers now. */
static int win_frames(struct win *w)
{
	struct rcv_stack_vals sv;
	int ret;

	free(w->base);
	free(w->base0);
	free(w->xpair);
	w->base = w->base0 = w->xpair = NULL;
	w->nclass = 0;
	sv = (struct rcv_stack_vals){ w->st, NULL, w->n + 1, NULL,
				      w->rc->stk };
	ret = w->later ? frames_across(w) :
			 rcv_stack_build_v(w->ins, w->n, &sv, w->fr, w->pair);
	if (ret > 0) {
		w->nclass = (size_t)ret;
		w->base = calloc(w->nclass, sizeof(*w->base));
		if (!w->base0)
			w->base0 = calloc(w->nclass, sizeof(*w->base0));
		ret = w->base && w->base0 ? 0 : -RP_ERR_NOMEM;
	}
	return ret;
}

static int win_load(struct rp_recover *rc, struct win *w)
{
	struct rp_cursor *c = NULL;
	struct rp_insn insn;
	uint64_t *calls = NULL, ncalls = 0, p;
	struct rp_gap gap;
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
	/* The calls still open where the window starts (outermost first),
	 * so that its returns to them are matched.
	 */
	ns = w->first ? rp_cursor_callers(c, w->first, calls, RCV_SEED) : 0;
	for (k = 0; ns > 0 && k < (size_t)ns / 2; k++) {
		p = calls[k];
		calls[k] = calls[ns - 1 - k];
		calls[ns - 1 - k] = p;
	}
	for (k = 0; ns > 0 && k < (size_t)ns; k++)
		if (!rp_cursor_peek(c, calls[k], &insn))
			calls[ncalls++] = insn.ip + insn.size;
	for (i = 0; i < w->n; i++) {
		struct rcv_ins *in = &w->ins[i];

		ret = rp_cursor_peek(c, w->first + i, &insn);
		if (ret)
			goto out;
		rcv_decode(rc->dec, insn.ip, insn.raw, insn.size, insn.iclass,
			   in);
	}
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
		if (e == 2) {
			in->flags |= RCV_I_UNPROVEN | RCV_I_BARRIER |
				     RCV_I_MEMBAR;
		} else if (!e) {
			in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
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
				RCV_I_BARRIER | RCV_I_MEMBAR;
	rcv_fs_absolute(rc, w);
	ret = win_frames(w);
out:
	free(calls);
	rp_cursor_free(c);
	return ret;
}

static void top_state(struct rp_recover *rc, struct win *w)
{
	struct rcv_state *t = &w->st[w->n];
	int g;

	rcv_sse_top(rc, w);
	if (w->later) {
		for (g = 0; g < RCV_NREG; g++)
			rcv_merge(&t->r[g], w->later->st[0].r[g],
				  &rc->stats.conflicts);
		return;
	}
	if (!w->top_end)
		return;
	for (g = 0; g < 16; g++)
		if (rc->end_regs.valid & (1ull << g))
			t->r[g] = (struct rcv_val){ rc->end_regs.val[g],
						    ~0ull };
	if (rc->end_regs.valid & (1ull << RP_REG_EFLAGS))
		t->r[RCV_FLAGS] = (struct rcv_val){
			rc->end_regs.val[RP_REG_EFLAGS], ~0ull };
}

/*
 * The pop (or leave) at @i reads back what its push (w->pair[i]) wrote:
 * the pushed value after the pop, the popped one before the push.
 */
static bool pair_link(struct rp_recover *rc, struct win *w, size_t i,
		      struct redo *d)
{
	uint64_t *conf = &rc->stats.conflicts;
	const struct rcv_ins *q = &w->ins[i], *p = &w->ins[w->pair[i]];
	struct rcv_val pushed;
	bool ch = false;
	int dst = q->id == X86_INS_LEAVE ? RP_REG_RBP : q->op[0].reg;

	if (p->op[0].type == RCV_OP_IMM) {
		pushed = (struct rcv_val){ (uint64_t)p->op[0].imm, ~0ull };
	} else if (p->op[0].type == RCV_OP_REG) {
		pushed = w->st[w->pair[i]].r[p->op[0].reg];
		if (p->op[0].reg != RP_REG_RSP &&
		    rcv_merge(&w->st[w->pair[i]].r[p->op[0].reg],
			      w->st[i + 1].r[dst], conf)) {
			redo_mark(d, (size_t)w->pair[i]);
			ch = true;
		}
	} else {
		return false;
	}
	if (rcv_merge(&w->st[i + 1].r[dst], pushed, conf)) {
		redo_mark(d, i + 1);
		ch = true;
	}
	return ch;
}

/*
 * Knowledge across positions (rcv_stack.c): rsp and rbp of one class
 * differ by their offsets; a pop reads back what its push wrote.
 */
static bool link_frames(struct rp_recover *rc, struct win *w,
			struct redo *d)
{
	uint64_t *conf = &rc->stats.conflicts;
	bool ch = false;
	size_t i;

	if (w->nclass)
		memcpy(w->base, w->base0, w->nclass * sizeof(*w->base));
	for (i = 0; i <= w->n; i++) {
		const struct rcv_frame *f = &w->fr[i];
		const struct rcv_state *s = &w->st[i];

		if (s->r[RP_REG_RSP].k == ~0ull && !w->base[f->rsp_c].k)
			w->base[f->rsp_c] = (struct rcv_val){
				s->r[RP_REG_RSP].v - (uint64_t)f->rsp_o,
				~0ull };
		if (f->rbp_c && s->r[RP_REG_RBP].k == ~0ull &&
		    !w->base[f->rbp_c].k)
			w->base[f->rbp_c] = (struct rcv_val){
				s->r[RP_REG_RBP].v - (uint64_t)f->rbp_o,
				~0ull };
	}
	for (i = 0; i <= w->n; i++) {
		const struct rcv_frame *f = &w->fr[i];
		struct rcv_state *s = &w->st[i];
		struct rcv_val b = w->base[f->rsp_c], x;

		bool m = false;

		x = (struct rcv_val){ b.v + (uint64_t)f->rsp_o, ~0ull };
		if (b.k)
			m |= rcv_merge(&s->r[RP_REG_RSP], x, conf);
		b = f->rbp_c ? w->base[f->rbp_c] : (struct rcv_val){ 0, 0 };
		x = (struct rcv_val){ b.v + (uint64_t)f->rbp_o, ~0ull };
		if (b.k)
			m |= rcv_merge(&s->r[RP_REG_RBP], x, conf);
		if (m)
			redo_mark(d, i);
		ch |= m;
	}
	for (i = 0; w->xpair && i < w->n; i++) {
		const struct rcv_ins *p = &w->ins[i];

		/* A push here whose pop is in the later window. */
		if (w->xpair[i].k && p->op[0].type == RCV_OP_REG &&
		    p->op[0].reg != RP_REG_RSP &&
		    rcv_merge(&w->st[i].r[p->op[0].reg], w->xpair[i], conf)) {
			redo_mark(d, i);
			ch = true;
		}
	}
	for (i = 0; i < w->n; i++)
		if (w->pair[i] >= 0 && w->first + i <= rcv_stack_until(rc))
			ch |= pair_link(rc, w, i, d);
	return ch;
}

/* Where knowledge stops in @w (rp_recover_stats), once it is computed. */
static void count_stops(struct rp_recover *rc, struct win *w)
{
	struct rcv_acc wr;
	size_t i;

	if (w->counted)
		return;
	w->counted = true;
	for (i = 0; i < w->n; i++) {
		const struct rcv_ins *in = &w->ins[i];

		if (in->flags & RCV_I_UNPROVEN)
			rc->stats.unproven++;
		else if (in->flags & RCV_I_BAD)
			rc->stats.undecoded++;
		else if ((in->flags & RCV_I_SYSCALL) && w->mbar[i])
			rc->stats.sys_barrier++;
		else if (!(in->flags & RCV_I_BARRIER) && w->mbar[i]) {
			rcv_writes(&rc->ctx, in, &w->st[i], &w->st[i + 1], &wr);
			if ((wr.valid && !wr.addr_known) ||
			    (in->flags & (RCV_I_MEMBAR | RCV_I_REP)))
				rc->stats.st_unknown++;
		}
	}
}

/*
 * Frames built again with the values known now (rcv_stack_build_v()):
 * stores whose addresses are now known no longer break the push/pop
 * pairs whose slots they miss.  *@ch: a pair or frame changed.
 */
static int refine_frames(struct win *w, bool *ch)
{
	size_t n = w->n;
	int64_t *pair = malloc((n + 1) * sizeof(*pair));
	struct rcv_frame *fr = malloc((n + 1) * sizeof(*fr));
	struct rcv_val *xp = NULL;
	int ret = -RP_ERR_NOMEM;

	if (!pair || !fr)
		goto out;
	memcpy(pair, w->pair, n * sizeof(*pair));
	memcpy(fr, w->fr, (n + 1) * sizeof(*fr));
	if (w->xpair) {
		xp = malloc((n + 1) * sizeof(*xp));
		if (!xp)
			goto out;
		memcpy(xp, w->xpair, (n + 1) * sizeof(*xp));
	}
	ret = win_frames(w);
	if (ret)
		goto out;
	if (memcmp(pair, w->pair, n * sizeof(*pair)) ||
	    memcmp(fr, w->fr, (n + 1) * sizeof(*fr)) ||
	    (xp && w->xpair &&
	     memcmp(xp, w->xpair, (n + 1) * sizeof(*xp))))
		*ch = true;
out:
	free(pair);
	free(fr);
	free(xp);
	return ret;
}

/*
 * PTREC_RCV_VERIFY: instruction @i, skipped, evaluated on copies of its
 * states (@fwd: forward) must change nothing, ask nothing and count the
 * conflicts it counted.
 */
static void redo_verify(struct rp_recover *rc, struct win *w, size_t i,
			bool fwd, uint32_t conf)
{
	struct rcv_state a, b;
	uint64_t n = 0;

	memcpy(&a, &w->st[i], sizeof(a));
	memcpy(&b, &w->st[i + 1], sizeof(b));
	rc->asked = false;
	if (fwd)
		rcv_forward(&rc->ctx, i, &w->ins[i], &a, &b, &n);
	else
		rcv_backward(&rc->ctx, i, &w->ins[i], &a, &b, &n);
	if (memcmp(&a, &w->st[i], sizeof(a)) ||
	    memcmp(&b, &w->st[i + 1], sizeof(b)) || rc->asked || n != conf) {
		fprintf(stderr, "recover: PTREC_RCV_VERIFY: %s of %" PRIu64
			" skipped but not idle\n", fwd ? "forward" : "backward",
			w->first + i);
		abort();
	}
}

/* Instruction @i backward (@fwd false) or forward, unless idle (struct
 * redo).  True when it changed a state.
 */
static bool redo_eval(struct rp_recover *rc, struct win *w, struct redo *d,
		      size_t i, bool fwd)
{
	uint32_t *t = fwd ? d->tf : d->tb, *cc = fwd ? d->cf : d->cb;
	uint8_t bit = fwd ? 2 : 1, *fl = fwd ? d->ff : d->fb;
	uint64_t before = rc->stats.conflicts;
	bool ch;

	if (d->tick > UINT32_MAX / 2)
		redo_rewind(d);
	if (!redo_needed(d, w, i, t[i], d->asked[i] & bit, fl[i])) {
		if (d->verify)
			redo_verify(rc, w, i, fwd, cc[i]);
		rc->stats.conflicts += cc[i];
		return false;
	}
	t[i] = ++d->tick;
	fl[i] = w->ins[i].flags;
	rc->asked = false;
	if (fwd)
		ch = rcv_forward(&rc->ctx, i, &w->ins[i], &w->st[i],
				 &w->st[i + 1], &rc->stats.conflicts);
	else
		ch = rcv_backward(&rc->ctx, i, &w->ins[i], &w->st[i],
				  &w->st[i + 1], &rc->stats.conflicts);
	if (ch)
		redo_mark(d, fwd ? i + 1 : i);
	cc[i] = (uint32_t)(rc->stats.conflicts - before);
	d->asked[i] = (uint8_t)((d->asked[i] & ~bit) | (rc->asked ? bit : 0));
	return ch;
}

static int win_passes(struct rp_recover *rc, struct win *w, struct redo *d)
{
	int pass, ret;
	uint64_t su;
	size_t i;

	for (pass = 0; pass < RCV_PASSES; pass++) {
		uint64_t conflicts = rc->stats.conflicts;
		bool ch = rcv_apply_facts(rc, w), capped = rc->scan_capped;

		if (ch)
			redo_all(d);
		ret = rcv_build_index(w);
		if (ret)
			return ret;
		/* Not in the first pass: nearly every address is learned
		 * then, and entries sorted in one by one cost more than the
		 * next pass's rebuild (10^7 bench: 4 windows 1.36 -> G Ir).
		 */
		d->live = pass ? w : NULL;
		rc->scan_capped = false;
		/* And a push takes its pop's value as this sweep reaches the
		 * pop, before the push: a register saved and restored by a
		 * callee (main's rbp round gdbloop's step()) goes back round
		 * a loop in one sweep, not one iteration per pass.
		 */
		su = rcv_stack_until(rc);
		for (i = w->n; i-- > 0;) {
			ch |= redo_eval(rc, w, d, i, false);
			if (w->pair[i] >= 0 && w->first + i <= su)
				ch |= pair_link(rc, w, i, d);
		}
		if (d->verify && d->live)
			rcv_index_verify(w, "backward sweep");
		/* Only where a memory question gave up at its 64 accesses
		 * (in the last forward sweep or this backward one).
		 */
		if ((capped || rc->scan_capped) && rcv_loads_back(rc, w)) {
			redo_all(d);
			ch = true;
			ret = d->live ? rcv_build_index(w) : 0;
			if (ret)
				return ret;
		}
		/* A pop takes its push's value as the sweep reaches it, so
		 * a value carried through a callee's saved registers goes
		 * round a loop in one sweep, not one iteration per pass.
		 */
		/* Only where the stack is the thread's alone, as in
		 * link_frames() (rcv_stack_until()).
		 */
		su = rcv_stack_until(rc);
		for (i = 0; i < w->n; i++) {
			ch |= redo_eval(rc, w, d, i, true);
			if (w->pair[i] >= 0 && w->first + i <= su)
				ch |= pair_link(rc, w, i, d);
		}
		ch |= link_frames(rc, w, d);
		if (d->verify && d->live)
			rcv_index_verify(w, "forward sweep");
		d->live = NULL;
		if (d->err)
			return d->err;
		if (rcv_fs_absolute(rc, w)) {
			redo_all(d);
			ch = true;
		}
		ret = refine_frames(w, &ch);
		if (ret)
			return ret;
		if (prove_branches(rc, w)) {
			ret = win_frames(w);
			if (ret)
				return ret;
			ch = true;
		}
		rc->stats.passes++;
		if (!ch) {
			w->settled = true;
			w->settled_conflicts = rc->stats.conflicts - conflicts;
			break;
		}
	}
	return 0;
}

static int win_compute(struct rp_recover *rc, struct win *w)
{
	struct redo d;
	size_t i;
	int ret;

	top_state(rc, w);
	rc->ctx.mctx = w;
	rc->scan_capped = false;
	w->settled = false;
	ret = redo_init(&d, w->n);
	if (ret)
		return ret;
	ret = win_passes(rc, w, &d);
	redo_free(&d);
	if (ret)
		return ret;
	if (getenv("PTREC_RCV_DEBUG"))
		for (i = 0; i < w->n; i++)
			if (w->ins[i].flags & RCV_I_UNPROVEN)
				fprintf(stderr, "recover: unproven at %" PRIu64
					" %#" PRIx64 " class %u -> %#" PRIx64
					"\n", w->first + i, w->ins[i].ip,
					w->ins[i].iclass, w->ins[i].next);
	/* The index the queries use must match the final states. */
	ret = rcv_build_index(w);
	if (!ret)
		count_stops(rc, w);
	return ret;
}

int rcv_win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		struct win *later, const struct rcv_state *seed,
		struct win **wp)
{
	struct win *w = calloc(1, sizeof(*w));
	size_t n = last - first;
	int ret;

	*wp = NULL;
	if (!w)
		return -RP_ERR_NOMEM;
	w->first = first;
	w->last = last;
	w->n = n;
	w->rc = rc;
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
	w->rmw = calloc(2 * (n + 1), sizeof(*w->rmw));
	if (!w->ins || !w->st || !w->mbar || !w->ixs || !w->nb || !w->pb || !w->fr ||
	    !w->pair || !w->rmw) {
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
		ret = win_compute(rc, w);
	if (ret) {
		rcv_win_free(w);
		return ret;
	}
	rc->stats.windows++;
	rc->stats.insns += n;
	*wp = w;
	return 0;
}

/* The window that holds position @pos (computing it and those after it
 * up to the end), or NULL with *@err set.
 */
static struct win *win_at(struct rp_recover *rc, uint64_t pos, int *err)
{
	uint64_t k = (rc->end - pos) / rc->block, first, last, kc = k;
	const struct rcv_state *seed = NULL;
	size_t j;

	*err = 0;
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
			if (rc->chain[j])
				continue;
			last = rc->end - j * rc->block;
			first = last > rc->block ? last - rc->block : 0;
			/* The chain's oldest window starts with what the
			 * ramp before it ends with, once summarised.
			 */
			*err = rcv_win_new(rc, first, last,
					   j ? rc->chain[j - 1] : NULL,
					   j == RCV_CHAIN - 1 ? seed : NULL,
					   &rc->chain[j]);
			if (*err)
				return NULL;
			if (j)
				rc->chain[j - 1]->earlier = rc->chain[j];
			*err = rcv_flow_forward(rc, j);
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
	rcv_win_free(rc->far);
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
static bool handlers_ran(struct rp_session *s, uint32_t tid)
{
	struct rp_session_info si;
	size_t i;

	rp_session_info(s, &si);
	if (!si.backend || strcmp(si.backend, "emu"))
		return true;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_signal *g = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_SIGNAL && g->tid == tid &&
		    (g->sflags & PTREC_SB_SIG_HANDLED))
			return true;
	}
	return false;
}

int rp_recover_new(struct rp_session *s, uint32_t tid,
		   struct rp_recover **rcp)
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
	rc->block = RCV_BLOCK;
	rc->sum = calloc(RCV_RAMP, sizeof(*rc->sum));
	ret = rc->sum ? rp_thread_info(s, tid, &info) : -RP_ERR_NOMEM;
	if (!ret)
		ret = rp_thread_end(s, tid, &rc->end, &rc->end_regs);
	if (!ret)
		ret = rcv_dec_new(&rc->dec);
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
	rc->mt |= rcv_vm_shared(s, info.pid);
	if (rp_snapshot_open(&rc->sn, s->dir)) {
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
	rcv_fd_init(rc);
	rc->no_handlers = !handlers_ran(s, tid);
	rc->ctx.mem = ask_mem;
	rc->ctx.wrote = rmw_wrote;
	rc->ctx.written = rmw_written;
	rc->ctx.own = ask_own;
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
	wpf_cache_free(rc->wpf);
	free(rc->sum);
	rp_snapshot_close(rc->sn);
	rcv_dec_free(rc->dec);
	rcv_stack_tmp_free(rc->stk);
	free(rc->facts);
	free(rc->rseq);
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
	memset(rc->sum, 0, RCV_RAMP * sizeof(*rc->sum));
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
	for (i = 0; i < len; i++)
		if (!rcv_mem_byte(w, pos - w->first, addr + i, (uint8_t *)buf + i))
			break;
	return i;
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

/* The window code rcv_facts.c runs again after new facts. */
int rcv_win_compute(struct rp_recover *rc, struct win *w)
{
	return win_compute(rc, w);
}

