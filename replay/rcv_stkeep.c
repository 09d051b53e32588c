// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Whether a pair of the stack frames (rcv_stack.c) is kept: a pop that
 * reads the slot its push wrote, or a reload its spill, gives the pushed
 * value back only when nothing between may have written the slot.  What
 * may: barriers, stores of unknown place or through another frame, system
 * calls (placed by the values when they can be), and other threads; a
 * callee's own stack (rcv_callee.c's walkers, from the innermost call's
 * entry) can still show the slot kept.  Split from rcv_stack.c, which
 * builds the frames and calls these for each pair.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_internal.h"
#include "rcv_stk.h"
#include "replay.h"

/* Did anything since @p write where slot class @cls may be? */
static bool killed_since(const struct kills *k, uint32_t cls, int64_t p,
			 bool ust)
{
	if (k->any > p || (ust && k->ust > p))
		return true;
	return (k->cls1 != cls ? k->pos1 : k->pos2) > p;
}

/*
 * A system call @i whose write the values place (@sv's sys_write: the
 * engine's own rule for memory across it): nothing, or a range of known
 * address, entered as a store there.  False: it may write anywhere.
 */
bool rcv_stk_sys_placed(struct rcv_stack_tmp *t,
			const struct rcv_stack_vals *sv, size_t i,
			struct kills *kl)
{
	uint64_t a, len;
	int e;

	if (!sv || !sv->sys_write)
		return false;
	e = sv->sys_write(sv->sys_ctx, i, &a, &len);
	if (e && (e < 0 || !len || len > 65536 || a + len - 1 < a))
		return false;
	/* rcv_callee.c's walk goes on across it (placed_at()) */
	if (t->placed)
		t->placed[i / 64] |= 1ull << (i % 64);
	if (!e)
		return true;
	if (rcv_stk_tmp_reserve(t, len / 8 + 2)) {
		t->nomem = true;
		return true;
	}
	rcv_stk_abs_write(t, a, (unsigned int)len, (int64_t)i);
	kl->sys = (int64_t)i;
	return true;
}

/*
 * Did anything since the push at @p (class @cls) write where it wrote:
 * an unknown store, one through another class, or one whose address is
 * known and is the slot's (or where the push's rsp is not known)?
 */
/* Did rcv_stk_sys_placed() place system call @i (rcv_callee_set_placed())? */
static bool placed_at(const void *x, size_t i)
{
	const struct insv *v = x;

	return v->placed && (v->placed[i / 64] >> (i % 64) & 1);
}

static const struct rcv_ins *ins_of(const void *x, size_t i)
{
	return ins_at(x, i);
}

/* The walker that walked from entry @e, or the one used longest ago. */
static struct rcv_callee **walker(struct rcv_stack_tmp *t, int64_t e)
{
	int j, old = 0;

	for (j = 0; j < NWK; j++)
		if (t->wk[j] && rcv_callee_entry(t->wk[j]) == e)
			break;
	if (j == NWK) {
		for (j = 1; j < NWK; j++)
			if (t->wkuse[j] < t->wkuse[old])
				old = j;
		j = old;
	}
	t->wkuse[j] = ++t->tick;
	return &t->wk[j];
}

/*
 * Does @in move rsp to another stack (a stack switch: rsp loaded, or
 * made from a register not derived from it, as `mov ..., %rsp`,
 * `xchg`, `lea sym(%rip), %rsp`, `pop %rsp`, or an instruction not
 * decoded)?  @m: the registers that hold a value derived from rsp
 * (bit per GPR; `mov %rsp, %rbx` ... `mov %rbx, %rsp`, as
 * _dl_runtime_resolve does, moves nothing).  Not: pushes, pops, calls,
 * returns, arithmetic on rsp itself, and rsp set from rbp (`leave`,
 * `mov %rbp, %rsp`, `lea d(%rbp), %rsp`: the frame pointer an epilogue
 * gives back) or loaded from the frame (`mov d(%rbp), %rsp`: the rsp
 * saved before a variable-length array, as _dl_fini restores it), both
 * assumed to point into the same stack (docs/values.md, "A stack that
 * is a C object").
 */
static bool rsp_switch(const struct rcv_ins *in, uint16_t m)
{
	const struct rcv_op *s = &in->op[1];
	bool two = in->nops == 2 && in->op[0].type == RCV_OP_REG &&
		   in->op[0].reg == RP_REG_RSP;

	/* Not decoded, but for rcv_decode.c's vector_only() (RCV_I_BAD
	 * alone: a general-purpose destination at most, in wcode).
	 */
	if ((in->flags & RCV_I_BAD) &&
	    (in->flags & (RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR |
			  RCV_I_XFER | RCV_I_REP)) != RCV_I_BAD)
		return true;
	if (!in->wcode[RP_REG_RSP])
		return false;
	m |= 1u << RP_REG_RSP | 1u << RP_REG_RBP;
	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_POP:
		return in->nops >= 1 && in->op[0].type == RCV_OP_REG &&
		       in->op[0].reg == RP_REG_RSP;
	case X86_INS_CALL: case X86_INS_RET: case X86_INS_PUSHFQ:
	case X86_INS_POPFQ: case X86_INS_ENTER: case X86_INS_LEAVE:
	case X86_INS_SYSCALL:
		return false;
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND:
		return !two;
	case X86_INS_LEA:
		return !(two && s->type == RCV_OP_MEM && s->base >= 0 &&
			 s->base < 16 && (m >> s->base & 1) && s->index < 0 &&
			 !s->seg);
	case X86_INS_MOV:
		if (two && s->type == RCV_OP_MEM)
			return !((s->base == RP_REG_RSP ||
				  s->base == RP_REG_RBP) &&
				 s->index < 0 && !s->seg);
		return !(two && s->type == RCV_OP_REG && s->size == 8 &&
			 s->reg >= 0 && (m >> s->reg & 1));
	default:
		return true;
	}
}

/*
 * What rsp_derived() knows of the stack: whether each word pushed (by
 * push, call, sub of rsp) holds a value derived from rsp, last pushed
 * highest; a pop gives it back (`push %rbx; mov %rsp, %rbx` in
 * _dl_runtime_resolve, whose callee pushes and pops rbx).  Emptied
 * where rsp moves otherwise; past OWN_DEPTH words, not known.
 */
#define OWN_DEPTH 4096

struct rsp_shadow {
	uint16_t m;		/* GPRs derived from rsp (bit per GPR) */
	uint32_t depth;
	uint8_t w[OWN_DEPTH / 8];
};

static void sh_push(struct rsp_shadow *h, bool v)
{
	if (h->depth < OWN_DEPTH) {
		h->w[h->depth / 8] &= (uint8_t)~(1u << h->depth % 8);
		h->w[h->depth / 8] |= (uint8_t)(v << h->depth % 8);
	}
	h->depth++;
}

static bool sh_pop(struct rsp_shadow *h)
{
	if (!h->depth)
		return false;
	h->depth--;
	return h->depth < OWN_DEPTH && (h->w[h->depth / 8] >> h->depth % 8 & 1);
}

/* The registers derived from rsp after @in (@h before it). */
static void rsp_derived(const struct rcv_ins *in, struct rsp_shadow *h)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];
	uint16_t m = h->m, keep = 0;
	bool reg = in->nops >= 1 && d->type == RCV_OP_REG && d->size == 8 &&
		   d->reg >= 0 && d->reg < 16;
	int64_t k;

	if (in->flags & (RCV_I_BARRIER | RCV_I_BAD)) {
		h->m = 1u << RP_REG_RSP;
		h->depth = 0;
		return;
	}
	switch (in->id) {
	case X86_INS_PUSH:
		sh_push(h, reg && (m >> d->reg & 1));
		break;
	case X86_INS_POP:
		if (sh_pop(h) && reg)
			keep = 1u << d->reg;
		break;
	case X86_INS_CALL:
		sh_push(h, false);
		break;
	case X86_INS_RET:
		sh_pop(h);
		break;
	case X86_INS_MOV:
		if (in->nops == 2 && reg && s->type == RCV_OP_REG &&
		    s->reg >= 0 && (m >> s->reg & 1))
			keep = 1u << d->reg;
		break;
	case X86_INS_LEA:
		if (in->nops == 2 && reg && s->base >= 0 && s->base < 16 &&
		    (m >> s->base & 1) && s->index < 0 && !s->seg)
			keep = 1u << d->reg;
		break;
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND:
		if (in->nops == 2 && reg && s->type == RCV_OP_IMM)
			keep = m & 1u << d->reg;
		break;
	}
	/* rsp moved by an amount: words pushed or dropped. */
	if ((in->id == X86_INS_ADD || in->id == X86_INS_SUB) && reg &&
	    d->reg == RP_REG_RSP && in->nops == 2 &&
	    s->type == RCV_OP_IMM && s->imm % 8 == 0 &&
	    s->imm > -65536 && s->imm < 65536) {
		for (k = in->id == X86_INS_SUB ? s->imm : -s->imm; k > 0;
		     k -= 8)
			sh_push(h, false);
		for (k = in->id == X86_INS_ADD ? s->imm : -s->imm; k > 0;
		     k -= 8)
			sh_pop(h);
	} else if (in->wcode[RP_REG_RSP] && in->id != X86_INS_PUSH &&
		   in->id != X86_INS_POP && in->id != X86_INS_CALL &&
		   in->id != X86_INS_RET) {
		h->depth = 0;
	}
	m &= (uint16_t)~rcv_wregs(in);
	h->m = (uint16_t)(m | keep | 1u << RP_REG_RSP);
}

/*
 * For own_slot() where rsp is not known at a push: the stack rsp is on
 * at the next state where it is known, when no switch (rsp_switch())
 * lies between.  t->ownv[i] for the states i of the build (0..@n): 1
 * when that stack is the thread's own, 0 not, or not known (a switch,
 * or no later state with rsp known).  Without tables kept between
 * builds (@sv's tmp), none.
 */
static void own_compute(struct rcv_stack_tmp *t)
{
	const struct rcv_stack_vals *sv = t->own_sv;
	const struct insv *iv = t->own_iv;
	size_t n = t->own_n, i;
	struct rsp_shadow *h;
	const struct rcv_ins *in;
	uint8_t v = 0;
	uint64_t sp;

	t->own_done = true;
	if (n + 1 > t->owncap) {
		uint8_t *o = realloc(t->ownv, n + 1);

		if (!o)
			return;
		t->ownv = o;
		t->owncap = n + 1;
	}
	h = malloc(sizeof(*h));
	if (!h)
		return;
	h->m = 1u << RP_REG_RSP;
	h->depth = 0;
	/* Forward: the switches (2), then back from the end. */
	for (i = 0; i < n; i++) {
		in = ins_at(iv, i);
		t->ownv[i] = rsp_switch(in, h->m) ? 2 : 0;
		if (t->ownv[i]) {
			h->m = 1u << RP_REG_RSP;
			h->depth = 0;
		} else {
			rsp_derived(in, h);
		}
	}
	free(h);
	for (i = n + 1; i-- > 0;) {
		if (rcv_stk_abs_rsp(sv, i, &sp))
			v = sv->own(sv->own_ctx, sp - 8);
		else if (i == n && sv->end_sp_ok)
			v = sv->own(sv->own_ctx, sv->end_sp - 8);
		else if (i < n && t->ownv[i] == 2)
			v = 0;
		t->ownv[i] = v;
	}
	t->nown = n + 1;
}

/* A new build of @n instructions: ownv computed when first needed. */
void rcv_stk_own_begin(struct rcv_stack_tmp *t,
		       const struct rcv_stack_vals *sv, const struct insv *iv,
		       size_t n)
{
	t->nown = 0;
	t->own_done = !sv || !sv->own || sv->tmp != t;
	t->own_sv = sv;
	t->own_iv = iv;
	t->own_n = n;
}

/*
 * May the callee argument (and the pushes kept to the end) speak of the
 * slot at @slot (@known: its address is) of the push or spill at @p,
 * under entry @e?  Only where the stack is the thread's own, no C
 * object's (rcv_own_stack(): review 11's finding 1, a global or heap
 * array run as a stack, which pointers not derived from rsp reach).
 * The slot's address not known: the stack rsp is on at the next state
 * it is known (rcv_stk_own_begin()).  Without @sv's
 * question: everywhere.  @e < 0: the slot alone.
 */
static bool own_slot(struct rcv_stack_tmp *t,
		     const struct rcv_stack_vals *sv, bool known,
		     uint64_t slot, int64_t p, int64_t e)
{
	uint64_t esp;

	if (!sv || !sv->own)
		return true;
	if (!known) {
		if (!t->own_done)
			own_compute(t);
		return p >= 0 && (size_t)p < t->nown && t->ownv[p];
	}
	if (!sv->own(sv->own_ctx, slot))
		return false;
	/* The entry's rsp where known: the same stack. */
	return e < 0 || !rcv_stk_abs_rsp(sv, (size_t)e, &esp) ||
	       sv->own(sv->own_ctx, esp);
}

/*
 * The pair of the pop (or leave) at @q whose push is at @p: 0 broken, 1
 * kept, 2 kept and shown by a callee's own stack (rcv_callee.c: it holds
 * where other threads may write the thread's stack too).
 */
int rcv_stk_pair_keep(const struct kills *kl, struct rcv_stack_tmp *ab,
		      const struct rcv_stack_vals *sv, uint32_t cls,
		      int64_t p, const struct insv *iv, int64_t q)
{
	const struct rcv_ins *w = ins_at(iv, (size_t)p);
	struct rcv_callee **c;
	uint64_t sp = 0;
	bool known, hit, cross, own, shared = sv && sv->gated &&
						  q > sv->until;
	size_t k;

	if (kl->any > p)	/* a barrier, a system call */
		return 0;
	/* A store through rsp or rbp of another frame: it may be the slot
	 * (after a VLA, rsp's frame is not rbp's).
	 */
	cross = killed_since(kl, cls, p, false);
	/* The slot: under the push's rsp, or the spill's address. */
	if (w->id == X86_INS_MOV) {
		known = rcv_stk_abs_addr(sv, (size_t)p, w, &w->op[0], &sp);
		sp += 8;
	} else {
		known = rcv_stk_abs_rsp(sv, (size_t)p, &sp);
	}
	/* Other threads may write a stack that is a C object at any time
	 * (no escape shows them its address): no pair there.
	 */
	own = own_slot(ab, sv, known, sp - 8, p, -1);
	if (!own && (sv->gated || sv->mt))
		return 0;
	hit = rcv_stk_abs_killed(ab, known, sp - 8, p);
	if (hit && known)	/* a store of known address wrote the slot */
		return 0;
	/* A system call's write: placed only by the slot's address. */
	if (kl->sys > p && !known)
		return 0;
	if (!cross && !hit && kl->ust <= p && !shared)
		return 1;
	/* Stores of unknown address between (or of known address, the
	 * slot's not known, or through another frame), or other threads:
	 * a callee's own stack from the entry of the innermost call still
	 * running at the push (a stack argument, pushed before a call and
	 * read in the callee: its caller's entry).
	 */
	k = ab->nents;
	while (k > 0 && ab->ents[k - 1] > p)
		k--;
	if (!k || (sv && sv->noproof) || !own ||
	    !own_slot(ab, sv, known, sp - 8, p, ab->ents[k - 1]))
		return !cross && !hit && kl->ust <= p ? 1 : 0;
	c = walker(ab, ab->ents[k - 1]);
	if (!*c && !rcv_callee_new(c))
		rcv_callee_set_placed(*c, placed_at);
	if (*c)
		rcv_callee_set_cache(*c, ab->cw);
	if (!*c || !rcv_callee_keeps(*c, ins_of, iv, ab->ents[k - 1], p, q))
		return !cross && !hit && kl->ust <= p ? 1 : 0;
	return 2;
}

/*
 * The pushes still on the stack at the end (at or above its rsp): how far
 * from each nothing may have written its slot, by a callee's own stack
 * (the innermost call still running: its entry's walk taken towards the
 * end as towards a pop).  exit() never returns, so `__run_exit_handlers`'
 * pushes reach the snapshot only across the exit path's stores of unknown
 * address (FILE and link_map pointers), which this places in bulk.
 */
void rcv_stk_end_keeps(struct rcv_stack_tmp *t,
		       const struct rcv_stack_vals *sv, const struct insv *iv,
		       size_t n)
{
	struct rcv_callee **c;
	size_t k = t->nents, i;
	uint64_t end, sp;
	int64_t r;

	memset(sv->ekeep, 0, n * sizeof(*sv->ekeep));
	if (sv->noproof || !rcv_stk_abs_rsp(sv, n, &end) || n >= UINT32_MAX)
		return;
	for (i = n; i-- > 0 && k > 0;) {
		if (ins_at(iv, i)->id != X86_INS_PUSH ||
		    !rcv_stk_abs_rsp(sv, i, &sp) || sp - 8 < end)
			continue;
		while (k > 0 && t->ents[k - 1] > (int64_t)i)
			k--;
		if (!k)
			break;
		/* Kept to the end by its own stack alone (rcv_mem.c's
		 * end_kept() and end_own() read ekeep).
		 */
		if (!own_slot(t, sv, true, sp - 8, (int64_t)i, t->ents[k - 1]))
			continue;
		c = walker(t, t->ents[k - 1]);
		if (!*c && !rcv_callee_new(c))
			rcv_callee_set_placed(*c, placed_at);
		if (!*c)
			continue;
		rcv_callee_set_cache(*c, t->cw);
		r = rcv_callee_kept_to(*c, ins_of, iv, t->ents[k - 1],
				       (int64_t)i, (int64_t)n);
		if (r > (int64_t)i + 1)
			sv->ekeep[i] = (uint32_t)r;
	}
}

/* The calls' entries: @i is a call (push its entry) or a return. */
void rcv_stk_track_entry(struct rcv_stack_tmp *t, const struct rcv_ins *in,
			 size_t i)
{
	if (in->id == X86_INS_RET) {
		if (t->nents)
			t->nents--;
		return;
	}
	if (in->id != X86_INS_CALL)
		return;
	if (t->nents == t->entcap) {
		size_t cap = t->entcap ? 2 * t->entcap : 64;
		int64_t *n = realloc(t->ents, cap * sizeof(*n));

		if (!n) {	/* no entries: no pair kept by them */
			t->nents = 0;
			return;
		}
		t->ents = n;
		t->entcap = cap;
	}
	t->ents[t->nents++] = (int64_t)i + 1;
}
