// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The passes of the recovery engine over one window (issue #17, moved out
 * of recover.c, which loads windows and answers the rp_recover_* questions):
 * knowledge flows backward and forward through the window's instructions,
 * push/pop pairs and stack frames link positions, branches are proven
 * (rcv_frames.c builds the frames and proves the branches), until a pass
 * changes nothing (or RCV_PASSES).  struct redo keeps a pass
 * from evaluating again what cannot have changed.  docs/values.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"

#define RCV_PASSES	40	/* backward+forward passes at most */

/*
 * Which instructions a pass of rcv_win_compute() evaluates again (p99).  A
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
 *
 * Which registers changed, too (iomap): each state keeps, for each of the
 * four evaluations that read it (forward and backward of the instruction
 * before it and after it), the mask of registers changed since that one
 * last ran.  An instruction due only because registers it does not touch
 * changed (rcv_io_touch()) merges them across (rcv_io_carry()) instead of
 * being evaluated; one due only because the state it writes changed in
 * registers its evaluation merely merges into skips (knowledge only grows:
 * what it derived is there, and the bits added are ones it did not know).
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
	/* Per state: registers changed since the last forward (0) and
	 * backward (1) evaluation of the instruction after it, and the
	 * last forward (2) and backward (3) of the one before it.
	 */
	uint32_t (*chg)[4];
	struct rcv_io *io;	/* per instruction: rcv_io_map(), touch
				 * UINT32_MAX until first needed */
	struct rcv_io_memo *iomemo;
	uint32_t tick, all;	/* all: every state changed then */
	size_t n;
	bool verify;
	/* Every instruction evaluated in every pass, and the first pass
	 * like the others (rc->all_passes, PTREC_RCV_ALLPASS=1): the
	 * fixpoint the shortcuts must reach (test_rcv_pass.c).
	 */
	bool full;
	/* During the sweeps, every state change keeps the access index
	 * what a rebuild would make (rcv_index_touch()): memory learned at
	 * one instruction answers the next ones in the same sweep, not
	 * one loop iteration per pass.  err: its first error.
	 */
	struct win *live;
	int err;
	struct rp_recover *rc;	/* rc->mb_world: bumped at every change */
	/* The index is what a rebuild would make now (no rebuild needed):
	 * after a build, and while every change is kept in it, in a window
	 * with no system call (whose part of a kept index may lag behind a
	 * rebuild's, rcv_index_verify()).
	 */
	bool exact, has_sys;
	bool built;		/* rebuilt in this pass */
	bool lifted;		/* the last pass's proof lifted barriers */
};

/* Ticks about to wrap (a very long window): every instruction is
 * evaluated again once, from tick 1.
 */
static void redo_rewind(struct redo *d)
{
	memset(d->stamp, 0, (d->n + 1) * sizeof(*d->stamp));
	memset(d->tb, 0, (d->n + 1) * sizeof(*d->tb));
	memset(d->tf, 0, (d->n + 1) * sizeof(*d->tf));
	memset(d->chg, 0, (d->n + 1) * sizeof(*d->chg));
	d->all = 0;
	d->tick = 1;
}

/* State @i changed, in the registers of @m (RCV_IO_ALL: any). */
static void redo_mark(struct redo *d, size_t i, uint32_t m)
{
	int ret;

	if (!d)
		return;
	d->chg[i][0] |= m;
	d->chg[i][1] |= m;
	d->chg[i][2] |= m;
	d->chg[i][3] |= m;
	d->stamp[i] = ++d->tick;
	d->rc->mb_world++;
	if (!d->live)
		d->exact = false;
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
	if (d) {
		d->all = ++d->tick;
		d->exact = false;
		d->rc->mb_world++;
	}
}

/* The index at a pass's start (or the end): rebuilt unless kept exact
 * (struct redo; PTREC_RCV_VERIFY=1 checks it against a rebuild).
 */
static int redo_index(struct redo *d, struct win *w, const char *where)
{
	int ret;

	if (d->exact && !d->has_sys) {
		if (d->verify)
			rcv_index_verify(w, where);
		return 0;
	}
	/* Kept exact but for the system calls' parts: those made again
	 * (rcv_index_sys(), the rest as a rebuild would make it).
	 */
	ret = d->exact ? rcv_index_sys(w) : rcv_build_index(w);
	d->exact = !ret;
	d->built = true;
	return ret;
}

/* Must instruction @i be evaluated again (last evaluated at tick @t,
 * when its flags were @fl)?
 */
static bool redo_needed(const struct redo *d, const struct win *w, size_t i,
			uint32_t t, bool asked, uint8_t fl)
{
	return d->full || !t || asked || w->ins[i].flags != fl || d->all > t ||
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
	free(d->chg);
	free(d->io);
	rcv_io_memo_free(d->iomemo);
}

static int redo_init(struct redo *d, const struct win *w)
{
	size_t n = w->n, i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++)
		if (w->ins[i].flags & RCV_I_SYSCALL)
			d->has_sys = true;
	d->stamp = calloc(n + 1, sizeof(*d->stamp));
	d->tb = calloc(n + 1, sizeof(*d->tb));
	d->tf = calloc(n + 1, sizeof(*d->tf));
	d->cb = calloc(n + 1, sizeof(*d->cb));
	d->cf = calloc(n + 1, sizeof(*d->cf));
	d->asked = calloc(n + 1, 1);
	d->fb = calloc(n + 1, 1);
	d->ff = calloc(n + 1, 1);
	d->chg = calloc(n + 1, sizeof(*d->chg));
	d->io = malloc((n + 1) * sizeof(*d->io));
	if (!d->stamp || !d->tb || !d->tf || !d->cb || !d->cf ||
	    !d->asked || !d->fb || !d->ff || !d->chg || !d->io) {
		redo_free(d);
		return -RP_ERR_NOMEM;
	}
	/* Mapped when first evaluated again (redo_mask()): most of a
	 * window settling in two passes never is.
	 */
	for (i = 0; i < n; i++)
		d->io[i].touch = UINT32_MAX;
	d->iomemo = rcv_io_memo_new();
	d->verify = w->rc->verify;
	d->full = w->rc->all_passes || getenv("PTREC_RCV_ALLPASS") != NULL;
	d->n = n;
	d->rc = w->rc;
	return 0;
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
	/* Not those a string instruction the end is inside of may have
	 * changed (rcv_end.c).
	 */
	for (g = 0; g < 16; g++)
		if ((rc->end_regs.valid & ~(uint64_t)rc->end_drop) &
		    (1ull << g))
			t->r[g] = (struct rcv_val){ rc->end_regs.val[g],
						    ~0ull };
	/* Not RF: where the history ends at a fault, the snapshot's rflags
	 * is the image the processor pushed for it, RF set (SDM vol. 3,
	 * "Debug exceptions": 1 for any fault-class exception), while
	 * after the last instruction, which completed, RF is clear (what
	 * rcv_forward() derives, and the ground truth holds).
	 */
	if (rc->end_regs.valid & (1ull << RP_REG_EFLAGS))
		t->r[RCV_FLAGS] = (struct rcv_val){
			rc->end_regs.val[RP_REG_EFLAGS] &
			~(F_RF | rc->end_fdrop), ~(F_RF | rc->end_fdrop) };
}

/*
 * The pop (or leave, or reload) at @i reads back what its push (or
 * spill: w->pair[i]) wrote: the pushed value after the pop, the popped
 * one before the push.
 */
static bool pair_link(struct rp_recover *rc, struct win *w, size_t i,
		      struct redo *d)
{
	uint64_t *conf = &rc->stats.conflicts;
	const struct rcv_ins *q = &w->ins[i];
	const struct rcv_op *src = rcv_pair_src(&w->ins[w->pair[i]]);
	struct rcv_val pushed;
	bool ch = false;
	int dst = q->id == X86_INS_LEAVE ? RP_REG_RBP : q->op[0].reg;

	if (src->type == RCV_OP_IMM) {
		pushed = (struct rcv_val){ (uint64_t)src->imm, ~0ull };
	} else if (src->type == RCV_OP_REG) {
		pushed = w->st[w->pair[i]].r[src->reg];
		if (src->reg != RP_REG_RSP &&
		    rcv_merge(&w->st[w->pair[i]].r[src->reg],
			      w->st[i + 1].r[dst], conf)) {
			redo_mark(d, (size_t)w->pair[i], 1u << src->reg);
			ch = true;
		}
	} else if (src->type == RCV_OP_MEM) {
		/* A push of memory (the PLT's push of the GOT's link_map
		 * word): the slot holds what the push read there.
		 */
		const struct rcv_ins *p = &w->ins[w->pair[i]];
		struct rcv_val a = rcv_addr(&rc->ctx, p, src,
					    &w->st[w->pair[i]]);

		if (a.k != ~0ull || src->size != 8)
			return false;
		pushed = rc->ctx.mem(rc->ctx.mctx, (uint64_t)w->pair[i], a.v,
				     8);
	} else {
		return false;
	}
	if (rcv_merge(&w->st[i + 1].r[dst], pushed, conf)) {
		redo_mark(d, i + 1, 1u << dst);
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
			redo_mark(d, i, 1u << RP_REG_RSP | 1u << RP_REG_RBP);
		ch |= m;
	}
	for (i = 0; w->xpair && i < w->n; i++) {
		const struct rcv_op *src;

		/* A push (or spill) here whose pop (reload) is in the later
		 * window.
		 */
		if (!w->xpair[i].k)
			continue;
		src = rcv_pair_src(&w->ins[i]);
		if (src->type == RCV_OP_REG && src->reg != RP_REG_RSP &&
		    rcv_merge(&w->st[i].r[src->reg], w->xpair[i], conf)) {
			redo_mark(d, i, 1u << src->reg);
			ch = true;
		}
	}
	for (i = 0; i < w->n; i++)
		if (w->pair[i] >= 0 &&
		    (w->first + i <= rcv_stack_until(rc) || w->plocal[i]))
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

/*
 * What instruction @i, due (redo_needed()), must merge into the state it
 * writes (RCV_IO_ALL: evaluated in full), given @mp and @mq, the
 * registers changed in the states before and after it since its last
 * evaluation that way; *@sem: its semantics must run (else the registers
 * returned are merely carried across, rcv_io_carry()).  Registers it does
 * not touch (rcv_io_touch()) and that did not change in the state it
 * reads are left out: it would merge into them what it merged before.
 * Only where that evaluation counted no conflict (those left out would
 * count theirs again), with the instruction's flags as then.
 */
static uint32_t redo_mask(struct redo *d, const struct win *w,
			  size_t i, bool fwd, uint32_t mp, uint32_t mq,
			  bool *sem)
{
	uint32_t t = fwd ? d->tf[i] : d->tb[i];
	uint8_t fl = fwd ? d->ff[i] : d->fb[i];
	bool asked = d->asked[i] & (fwd ? 2 : 1);

	*sem = true;
	if (d->full || !t || d->all > t || w->ins[i].flags != fl ||
	    (fwd ? d->cf[i] : d->cb[i]) ||
	    (fl & (RCV_I_BARRIER | RCV_I_UNPROVEN | RCV_I_BAD |
		   RCV_I_SYSCALL | RCV_I_REP | RCV_I_XFER)))
		return RCV_IO_ALL;
	if (d->io[i].touch == UINT32_MAX)
		rcv_io_map_memo(d->iomemo, &w->ins[i], &d->io[i]);
	return rcv_io_due(&d->io[i], fwd, asked, mp, mq, sem);
}

/* PTREC_RCV_VERIFY: @a and @b, copies of the states around @i evaluated
 * in full just before it was evaluated in part (redo_mask(); memory
 * questions read the window's states: before, they see what the full
 * evaluation would), must equal the states it left, with the conflicts
 * it counted (@conf; the full evaluation's: @n).
 */
static void redo_verify_part(const struct win *w, size_t i, bool fwd,
			     const struct rcv_state *a,
			     const struct rcv_state *b, uint64_t n,
			     uint64_t conf)
{
	if (memcmp(a, &w->st[i], sizeof(*a)) ||
	    memcmp(b, &w->st[i + 1], sizeof(*b)) || n != conf) {
		fprintf(stderr, "recover: PTREC_RCV_VERIFY: %s of %" PRIu64
			" evaluated in part but not as in full\n",
			fwd ? "forward" : "backward", w->first + i);
		abort();
	}
}

/* PTREC_RCV_VERIFY: the registers an evaluation of @i changed (the states
 * were @a and @b before it) are in the mask it returned (@ch).
 */
static void redo_verify_mask(const struct win *w, size_t i, bool fwd,
			     const struct rcv_state *a,
			     const struct rcv_state *b, uint32_t ch)
{
	const struct rcv_state *s = fwd ? &w->st[i + 1] : &w->st[i];
	const struct rcv_state *o = fwd ? b : a;
	uint32_t m = 0;
	int g;

	for (g = 0; g < RCV_NREG; g++)
		if (s->r[g].k != o->r[g].k || s->r[g].v != o->r[g].v)
			m |= 1u << g;
	if (memcmp(s->x, o->x, sizeof(s->x)) || s->xk != o->xk)
		m |= RCV_IO_X;
	if (memcmp(fwd ? a : b, fwd ? &w->st[i] : &w->st[i + 1],
		   sizeof(*a)) || (m & ~ch)) {
		fprintf(stderr, "recover: PTREC_RCV_VERIFY: %s of %" PRIu64
			" changed %#x, said %#x\n", fwd ? "forward" :
			"backward", w->first + i, m, ch);
		abort();
	}
}

/* Evaluation @m, @sem of redo_mask() of @i: the registers it changed. */
static inline uint32_t redo_run(struct rp_recover *rc, struct win *w,
				size_t i, bool fwd, uint32_t m, bool sem)
{
	struct rcv_state *pre = &w->st[i], *post = &w->st[i + 1];
	const struct rcv_ins *in = &w->ins[i];
	uint64_t *conf = &rc->stats.conflicts;

	if (!sem && !m)
		return 0;
	if (!sem)
		return fwd ? rcv_io_carry(in, post, pre, m, true, conf) :
			     rcv_io_carry(in, pre, post, m, false, conf);
	return fwd ? rcv_forward_m(&rc->ctx, i, in, pre, post, m, conf) :
		     rcv_backward_m(&rc->ctx, i, in, pre, post, m, conf);
}

/*
 * redo_run() under PTREC_RCV_VERIFY: the full evaluation first, on
 * copies (redo_verify_part()), and the change mask checked
 * (redo_verify_mask()).  Apart, to keep redo_eval()'s frame small.
 */
static __attribute__((noinline)) uint32_t
redo_run_verified(struct rp_recover *rc, struct win *w, size_t i, bool fwd,
		  uint32_t m, bool sem)
{
	struct rcv_state a, b, fa, fb;
	uint64_t nf = 0, before = rc->stats.conflicts;
	uint32_t ch;

	memcpy(&a, &w->st[i], sizeof(a));
	memcpy(&b, &w->st[i + 1], sizeof(b));
	if (m != RCV_IO_ALL) {
		memcpy(&fa, &a, sizeof(fa));
		memcpy(&fb, &b, sizeof(fb));
		if (fwd)
			rcv_forward(&rc->ctx, i, &w->ins[i], &fa, &fb, &nf);
		else
			rcv_backward(&rc->ctx, i, &w->ins[i], &fa, &fb, &nf);
		rc->asked = false;
	}
	ch = redo_run(rc, w, i, fwd, m, sem);
	redo_verify_mask(w, i, fwd, &a, &b, ch);
	if (m != RCV_IO_ALL)
		redo_verify_part(w, i, fwd, &fa, &fb, nf,
				 rc->stats.conflicts - before);
	return ch;
}

/* Instruction @i backward (@fwd false) or forward, unless idle (struct
 * redo), or only in part (redo_mask()).  True when it changed a state.
 */
static bool redo_eval(struct rp_recover *rc, struct win *w, struct redo *d,
		      size_t i, bool fwd)
{
	uint32_t *t = fwd ? d->tf : d->tb, *cc = fwd ? d->cf : d->cb;
	uint8_t bit = fwd ? 2 : 1, *fl = fwd ? d->ff : d->fb;
	uint32_t *cp = &d->chg[i][fwd ? 0 : 1];
	uint32_t *cq = &d->chg[i + 1][fwd ? 2 : 3];
	uint64_t before = rc->stats.conflicts;
	uint32_t m, ch;
	bool sem;

	if (d->tick > UINT32_MAX / 2)
		redo_rewind(d);
	if (!redo_needed(d, w, i, t[i], d->asked[i] & bit, fl[i])) {
		if (d->verify)
			redo_verify(rc, w, i, fwd, cc[i]);
		rc->stats.conflicts += cc[i];
		return false;
	}
	m = redo_mask(d, w, i, fwd, *cp, *cq, &sem);
	*cp = *cq = 0;
	t[i] = ++d->tick;
	fl[i] = w->ins[i].flags;
	rc->asked = false;
	ch = d->verify ? redo_run_verified(rc, w, i, fwd, m, sem) :
			 redo_run(rc, w, i, fwd, m, sem);
	cc[i] = (uint32_t)(rc->stats.conflicts - before);
	d->asked[i] = (uint8_t)((d->asked[i] & ~bit) | (rc->asked ? bit : 0));
	if (ch)
		redo_mark(d, fwd ? i + 1 : i, ch);
	return ch != 0;
}

/*
 * A sweep begins (@on) or ends.  Within one, every change of what a
 * memory question looks at (states, the index kept with them, a
 * read-modify-write's values) bumps rc->mb_world (redo_mark(),
 * redo_all(), rmw_wrote()), so questions between two changes keep what
 * the last one remembered of the window's accesses (rcv_mem.c
 * memo_new(): workload's window recomputed 1.7 M instructions' accesses,
 * 17% of it).  Outside, every question starts afresh (a proof of a
 * branch, the loads taken back, changes no state marks).
 */
static void sweep_keep(struct rp_recover *rc, bool on)
{
	rc->mb_world++;
	rc->mb_keep = on;
}

static int win_passes(struct rp_recover *rc, struct win *w, struct redo *d)
{
	int pass, ret;
	uint64_t su;
	size_t i;

	for (pass = 0; pass < RCV_PASSES; pass++) {
		uint64_t conflicts = rc->stats.conflicts;
		bool ch = rcv_apply_facts(rc, w);
		bool capped = rc->scan_capped;

		if (rcv_sig_seed(rc, w))	/* both run, whatever the first */
			ch = true;
		if (ch)
			redo_all(d);
		d->built = false;
		/* Also in the first pass, which asks no memory (mem_off,
		 * below): a build sets the barrier flag of the system calls
		 * whose number is not known or that set every register
		 * (rt_sigreturn), which the sweeps must not cross (holes.c
		 * sigret: 8 wrong registers without it).
		 */
		ret = redo_index(d, w, "a pass's start");
		if (ret)
			return ret;
		/* Not in the first pass: nearly every address is learned
		 * then, and entries sorted in one by one cost more than the
		 * next pass's rebuild (10^7 bench: 4 windows 1.36 -> G Ir).
		 */
		d->live = pass ? w : NULL;
		rc->scan_capped = false;
		/* Nor memory questions in the first pass: the index was built
		 * before anything was learnt, every address but the top's
		 * unknown, so that nearly all of them ended at the barrier
		 * next to them, after the proofs of rcv_alias.c there; the
		 * second pass asks them all again (each asked: struct redo)
		 * with the index rebuilt.  What the window knows in the end
		 * is the same (knowledge only grows, and a pass evaluates
		 * again every instruction whose inputs changed): 10^7 bench,
		 * the 4 windows of a stop, 856 -> 823 M Ir.
		 */
		rc->mem_off = !pass && !d->full;
		/* And a push takes its pop's value as this sweep reaches the
		 * pop, before the push: a register saved and restored by a
		 * callee (main's rbp round gdbloop's step()) goes back round
		 * a loop in one sweep, not one iteration per pass.
		 */
		su = rcv_stack_until(rc);
		sweep_keep(rc, true);
		for (i = w->n; i-- > 0;) {
			ch |= redo_eval(rc, w, d, i, false);
			if (w->pair[i] >= 0 &&
			    (w->first + i <= su || w->plocal[i]))
				ch |= pair_link(rc, w, i, d);
		}
		sweep_keep(rc, false);
		if (d->verify && d->live)
			rcv_index_verify(w, "backward sweep");
		/* Only where a memory question gave up at its 64 accesses
		 * (in the last forward sweep or this backward one).
		 */
		if ((capped || rc->scan_capped) && rcv_loads_back(rc, w)) {
			redo_all(d);
			ch = true;
			ret = d->live ? redo_index(d, w, "loads back") : 0;
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
		sweep_keep(rc, true);
		for (i = 0; i < w->n; i++) {
			ch |= redo_eval(rc, w, d, i, true);
			if (w->pair[i] >= 0 &&
			    (w->first + i <= su || w->plocal[i]))
				ch |= pair_link(rc, w, i, d);
		}
		sweep_keep(rc, false);
		rc->mem_off = false;
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
		/* A pass that changed nothing (the last) and rebuilt no
		 * index, after a proof that lifted nothing, leaves the
		 * states, the flags and the index as the last refinement and
		 * proof saw them, which would give what they gave: not
		 * again.  With no system call (a rebuild sets their
		 * barriers).
		 */
		/* Not after the first pass either: it asked no memory (above),
		 * and the second's index build makes it refine anyway (a
		 * stack build over two windows, 13 M Ir a window at 10^7).
		 * The first pass is never the last: it asked no memory.
		 */
		if (ch || !pass || d->built || d->lifted || d->has_sys) {
			ret = pass || d->full ? rcv_frames_refine(w, &ch) : 0;
			if (ret)
				return ret;
			if (!pass && !d->full)
				ch = true;
			d->lifted = rcv_branches_prove(rc, w);
			if (d->lifted) {
				d->exact = false;
				ret = rcv_win_frames(w);
				if (ret)
					return ret;
				ch = true;
			}
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

int rcv_win_compute(struct rp_recover *rc, struct win *w)
{
	struct redo d;
	size_t i;
	int ret;

	top_state(rc, w);
	rc->ctx.mctx = w;
	rc->scan_capped = false;
	w->settled = false;
	ret = redo_init(&d, w);
	if (ret)
		return ret;
	ret = win_passes(rc, w, &d);
	rc->mem_off = false;
	/* The index the queries use must match the final states. */
	if (!ret)
		ret = redo_index(&d, w, "the end");
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
	count_stops(rc, w);
	return 0;
}
