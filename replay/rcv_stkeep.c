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
	bool known, hit, cross, shared = sv && sv->gated && q > sv->until;
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
	if (!k || (sv && sv->noproof))
		return !cross && !hit && kl->ust <= p ? 1 : 0;
	c = walker(ab, ab->ents[k - 1]);
	if (!*c && !rcv_callee_new(c))
		rcv_callee_set_placed(*c, placed_at);
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
		c = walker(t, t->ents[k - 1]);
		if (!*c && !rcv_callee_new(c))
			rcv_callee_set_placed(*c, placed_at);
		if (!*c)
			continue;
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
