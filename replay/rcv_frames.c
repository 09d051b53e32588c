// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A window's stack frames and branch proofs (issue #17, split out of
 * rcv_pass.c, whose passes call them between the evaluations): the
 * push/pop pairs and frames built over the window's instructions (and the
 * later window's), built again as the values sharpen, and the indirect
 * branches whose targets the values show.  docs/values.md.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"

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
bool rcv_branches_prove(struct rp_recover *rc, struct win *w)
{
	bool lifted = false;
	size_t i;

	for (i = w->n; i-- > 0;) {
		struct rcv_ins *in = &w->ins[i];
		struct rcv_val t;

		if (in->flags & RCV_I_UNPROVEN) {
			t = branch_target(rc, w, i);
			if (t.k == ~0ull && t.v == in->next &&
			    !(in->flags & RCV_I_XFER)) {
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
 * Where the thread's stack stops being its own alone (rcv_stack_until()),
 * for rcv_stack_build_v() over @w's instructions: pops after it keep
 * their pushes' values only where a callee's own stack shows them
 * (rcv_callee.c), and not at all where the kernel may write the stack.
 */
static int stack_sys(void *ctx, size_t i, uint64_t *a, uint64_t *len)
{
	struct win *w = ctx;

	return i < w->n ? rcv_sys_write(w, i, a, len) :
			  rcv_sys_write(w->later, i - w->n, a, len);
}

static bool stack_own(void *ctx, uint64_t a)
{
	return rcv_own_stack(ctx, a);
}

static void stack_gate(struct win *w, struct rcv_stack_vals *sv,
		       uint8_t *local)
{
	struct rp_recover *rc = w->rc;
	uint64_t su = rcv_stack_until(rc);

	sv->local = local;
	sv->sys_write = stack_sys;	/* a system call's write, placed */
	sv->sys_ctx = w;
	sv->own = stack_own;	/* the callee argument's slots */
	sv->own_ctx = rc;
	sv->mt = rc->mt;
	sv->verify = rc->verify;
	if (!w->later && w->top_end &&
	    (rc->end_regs.valid & (1ull << RP_REG_RSP))) {
		sv->end_sp_ok = true;
		sv->end_sp = rc->end_regs.val[RP_REG_RSP];
	}
	sv->gated = su != UINT64_MAX;
	sv->noproof = rc->strict;
	if (!sv->gated)
		return;
	sv->until = su < w->first ? -1 : (int64_t)(su - w->first);
	sv->noproof |= rc->rseq_stack || rcv_order_aio(rc);
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
	uint8_t *local = calloc(m + 1, 1);
	struct rcv_stack_vals sv;
	int nc = -RP_ERR_NOMEM;

	if (!f || !pair || !local)
		goto out;
	/* Both windows' instructions where they are (not copied). */
	sv = (struct rcv_stack_vals){ .a = w->st, .b = l->st, .na = w->n,
				      .ins_b = l->ins, .tmp = w->rc->stk,
				      .ida = w->serial, .idb = l->serial };
	stack_gate(w, &sv, local);
	nc = rcv_stack_build_v(w->ins, m, &sv, f, pair);
	if (nc <= 0)
		goto out;
	memcpy(w->fr, f, (w->n + 1) * sizeof(*f));
	if (w->n) {
		memcpy(w->pair, pair, w->n * sizeof(*pair));
		memcpy(w->plocal, local, w->n);
	}
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
		    (l->first + (i - w->n) <= rcv_stack_until(w->rc) ||
		     local[i])) {
			const struct rcv_ins *q = &l->ins[i - w->n];
			int dst = q->id == X86_INS_LEAVE ? RP_REG_RBP :
							   q->op[0].reg;

			w->xpair[pair[i]] = l->st[i - w->n + 1].r[dst];
		}
	}
out:
	free(f);
	free(pair);
	free(local);
	return nc;
}

/*
 * @w->ek from @ek (rcv_stack_vals' ekeep); a change is a new world for
 * the memory questions (their memo).  -RP_ERR_NOMEM or 0.
 */
static int end_kept(struct win *w, const uint32_t *ek)
{
	struct rcv_ekeep *l;
	size_t i, n = 0;

	for (i = 0; ek && i < w->n; i++)
		n += ek[i] != 0;
	l = n ? malloc(n * sizeof(*l)) : NULL;
	if (n && !l)
		return -RP_ERR_NOMEM;
	for (i = 0, n = 0; ek && i < w->n; i++)
		if (ek[i])
			l[n++] = (struct rcv_ekeep){ (uint32_t)i, ek[i] };
	if (n != w->nek || (n && memcmp(l, w->ek, n * sizeof(*l))))
		w->rc->mb_world++;
	free(w->ek);
	w->ek = l;
	w->nek = n;
	return 0;
}

/* (Re)builds @w's stack frames from its instructions' barriers now. */
int rcv_win_frames(struct win *w)
{
	struct rcv_stack_vals sv;
	uint32_t *ek = NULL;
	int ret;

	free(w->base);
	free(w->base0);
	free(w->xpair);
	w->base = w->base0 = w->xpair = NULL;
	w->nclass = 0;
	sv = (struct rcv_stack_vals){ .a = w->st, .na = w->n + 1,
				      .tmp = w->rc->stk, .ida = w->serial };
	stack_gate(w, &sv, w->plocal);
	/* The window that ends at the snapshot: pushes kept to the end. */
	if (!w->later && w->top_end && !w->rc->end_wild && w->n) {
		ek = calloc(w->n, sizeof(*ek));
		if (!ek)
			return -RP_ERR_NOMEM;
		sv.ekeep = ek;
	}
	ret = w->later ? frames_across(w) :
			 rcv_stack_build_v(w->ins, w->n, &sv, w->fr, w->pair);
	if (ret > 0 && end_kept(w, ek))
		ret = -RP_ERR_NOMEM;
	free(ek);
	if (ret > 0) {
		w->nclass = (size_t)ret;
		w->base = calloc(w->nclass, sizeof(*w->base));
		if (!w->base0)
			w->base0 = calloc(w->nclass, sizeof(*w->base0));
		ret = w->base && w->base0 ? 0 : -RP_ERR_NOMEM;
	}
	return ret;
}

/*
 * Frames built again with the values known now (rcv_stack_build_v()):
 * stores whose addresses are now known no longer break the push/pop
 * pairs whose slots they miss.  *@ch: a pair or frame changed.
 */
int rcv_frames_refine(struct win *w, bool *ch)
{
	size_t n = w->n;
	int64_t *pair = malloc((n + 1) * sizeof(*pair));
	uint8_t *loc = malloc(n + 1);
	struct rcv_frame *fr = malloc((n + 1) * sizeof(*fr));
	struct rcv_val *xp = NULL;
	uint64_t world = w->rc->mb_world;	/* w->ek changed */
	int ret = -RP_ERR_NOMEM;

	if (!pair || !loc || !fr)
		goto out;
	memcpy(pair, w->pair, n * sizeof(*pair));
	memcpy(loc, w->plocal, n);
	memcpy(fr, w->fr, (n + 1) * sizeof(*fr));
	if (w->xpair) {
		xp = malloc((n + 1) * sizeof(*xp));
		if (!xp)
			goto out;
		memcpy(xp, w->xpair, (n + 1) * sizeof(*xp));
	}
	ret = rcv_win_frames(w);
	if (ret)
		goto out;
	if (memcmp(pair, w->pair, n * sizeof(*pair)) ||
	    memcmp(loc, w->plocal, n) ||
	    memcmp(fr, w->fr, (n + 1) * sizeof(*fr)) ||
	    (xp && w->xpair &&
	     memcmp(xp, w->xpair, (n + 1) * sizeof(*xp))) ||
	    w->rc->mb_world != world)
		*ch = true;
out:
	free(pair);
	free(loc);
	free(fr);
	free(xp);
	return ret;
}
