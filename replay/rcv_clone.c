// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A child's registers at its first instruction from its creator's (issue
 * #17, docs/values.md "A child's registers from its clone"): a task made
 * by clone, clone3, fork or vfork starts with a copy of its creator's
 * registers at the system call (Linux x86-64 copy_thread(): the child's
 * pt_regs are the parent's; ax is 0, sp the new stack when one is given,
 * kernel/fork.c clone3_stack_valid() adds stack_size to clone3's stack;
 * cx and r11 are what the syscall instruction put there, the address
 * after it and rflags), and runs from the instruction after the call.
 * The engine of a thread knew nothing at its history's start; now the
 * creator's registers before the call, from a values engine of the
 * creator's own (a helper: it orders no other task, so it knows less,
 * never more), are facts at the child's first state (rcv_facts.c's
 * merging: a fact that contradicts what the engine derives shows as a
 * conflict).
 *
 * The call is found in the creator's history by the software recorder's
 * order: its THREAD_START record is written at the creator's
 * PTRACE_EVENT_CLONE stop (record/emu_life.c emu_new_child()), inside
 * the call, so after the call's issue (at or after its time, tsc(p)) and
 * before the creator's next instruction's enable (tsc(p + 1)): p is the
 * creator's last instruction whose time is not above the record's, and
 * it must be a `syscall` whose number the code sets (rcv_order.c) to
 * clone, clone3, fork or vfork.  The child's first instruction must be
 * the one after it (a signal handler run first would start elsewhere).
 * One engine of the creator's answers for all its children, once per
 * session (each child's facts kept in its rcv_xtask).
 * Only the software recorder's bundles; not rflags and r11 (the trap flag
 * the stepping sets), not fs_base.  Only where the child's history is
 * short enough that its first state lies in the chain (a fact there
 * flows to the end with the windows; beyond it the ramp's summaries
 * would have to be computed from the start).
 */
#include <string.h>

#include "rcv_win.h"

/* Instructions per window of the creator's engine (the call is one). */
#define CLONE_BLOCK	2048

static const int kept[] = {
	RP_REG_RBX, RP_REG_RDX, RP_REG_RSI, RP_REG_RDI, RP_REG_RBP,
	RP_REG_R8, RP_REG_R9, RP_REG_R10, RP_REG_R12, RP_REG_R13,
	RP_REG_R14, RP_REG_R15,
};

int rcv_clone_regs(int64_t nr, const struct rp_regs *pr,
		   const uint64_t stack[2], bool stack_known, uint64_t next,
		   struct rp_fact *f)
{
	size_t k;
	int n = 0;

	if (nr != 56 && nr != 57 && nr != 58 && nr != 435)
		return 0;
	for (k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
		if (pr->valid >> kept[k] & 1)
			f[n++] = (struct rp_fact){ 0, (unsigned int)kept[k],
						   pr->val[kept[k]] };
	f[n++] = (struct rp_fact){ 0, RP_REG_RAX, 0 };
	f[n++] = (struct rp_fact){ 0, RP_REG_RCX, next };
	/* The stack: clone's rsi, clone3's stack + stack_size, when not
	 * 0; else (and for fork, vfork) the creator's.
	 */
	if (nr == 56 && (pr->valid >> RP_REG_RSI & 1) && pr->val[RP_REG_RSI])
		f[n++] = (struct rp_fact){ 0, RP_REG_RSP,
					   pr->val[RP_REG_RSI] };
	else if (nr == 435 && stack_known && stack[0])
		f[n++] = (struct rp_fact){ 0, RP_REG_RSP,
					   stack[0] + stack[1] };
	else if ((nr == 57 || nr == 58 ||
		  (nr == 56 && (pr->valid >> RP_REG_RSI & 1)) ||
		  (nr == 435 && stack_known)) &&
		 (pr->valid >> RP_REG_RSP & 1))
		f[n++] = (struct rp_fact){ 0, RP_REG_RSP, pr->val[RP_REG_RSP] };
	return n;
}

/* The creator's call @p of history @h, and its number, or -1. */
static int64_t clone_call(struct rp_recover *rc, const struct rcv_hist *h,
			  uint64_t t_rec, uint64_t *p, uint64_t *next)
{
	struct rp_insn in;
	uint64_t q = rcv_order_first_after(h, t_rec);

	if (q == UINT64_MAX || !q || h->peek(h->ctx, q - 1, &in) ||
	    in.iclass != RP_IC_FAR || !rp_insn_is_syscall(&in))
		return -1;
	*p = q - 1;
	*next = in.ip + in.size;
	return rcv_order_arg(rc->dec, h, *p, in.ip, RP_REG_RAX, false);
}

/*
 * The facts of every child of @ptid (each THREAD_START record naming it
 * the creator), kept in each child's session entry: one engine of the
 * creator's answers for all of them.
 */
static void parent_facts(struct rp_recover *rc, uint32_t ptid)
{
	struct rp_session *s = rc->s;
	struct rp_thread_info pi;
	struct rp_cursor *pc = NULL;
	struct rp_recover *u = NULL;
	struct rcv_hist h;
	size_t i;

	if (rp_thread_info(s, ptid, &pi) || rp_cursor_new(s, ptid, &pc))
		return;
	h = (struct rcv_hist){ rcv_order_peek, pc, pi.insns };
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_thread_start *ts =
			(const void *)s->recs[i];
		struct rp_cursor *cc = NULL;
		struct rcv_xtask *t;
		struct rp_fact f[16];
		struct rp_insn first;
		struct rp_regs pr;
		uint64_t p, next, stack[2] = { 0, 0 };
		bool stack_known = false, ok;
		int64_t nr;
		int n = 0;

		if (s->recs[i]->type != PTREC_SB_THREAD_START ||
		    ts->parent_tid != ptid || ts->tid == ptid)
			continue;
		t = rcv_xtask_of(s, ts->tid);
		if (!t || t->clone_done)
			continue;
		t->clone_done = true;
		t->clone_n = 0;
		nr = clone_call(rc, &h, s->recs[i]->time, &p, &next);
		/* Not when a signal reached the child before its first
		 * instruction: its handler's entry may lie at @next too
		 * (review 13's forksig, clonesig).
		 */
		ok = nr >= 0 && !rp_cursor_new(s, ts->tid, &cc) &&
		     !rp_cursor_peek(cc, 0, &first) && first.ip == next &&
		     !rcv_signal_between(s, i, ts->tid, first.tsc);
		rp_cursor_free(cc);
		if (!ok)
			continue;
		if (!u) {
			if (rcv_recover_new_with(s, ptid, rc->sn, &u)) {
				u = NULL;
				break;
			}
			rp_recover_set_block(u, CLONE_BLOCK);
			u->xthr_off = true;
			u->ord_noargs = true;
			u->no_inherit = true;
			u->aio = rc->aio;
		}
		if (rp_recover_regs(u, p, &pr))
			continue;
		/* clone3's struct clone_args: stack at 40, stack_size 48. */
		if (nr == 435 && (pr.valid >> RP_REG_RDI & 1) &&
		    (pr.valid >> RP_REG_RSI & 1) && pr.val[RP_REG_RSI] >= 56 &&
		    pr.val[RP_REG_RDI] <= UINT64_MAX - 56)
			stack_known = rp_recover_mem(u, p,
						     pr.val[RP_REG_RDI] + 40,
						     stack, sizeof(stack)) ==
				      sizeof(stack);
		n = rcv_clone_regs(nr, &pr, stack, stack_known, next, f);
		/* The entry again: the engine may have made others. */
		t = rcv_xtask_of(s, ts->tid);
		if (t && n > 0) {
			memcpy(t->clone_f, f, (size_t)n * sizeof(f[0]));
			t->clone_n = n;
		}
	}
	rp_recover_free(u);
	rp_cursor_free(pc);
}

int rcv_clone_inherit(struct rp_recover *rc)
{
	const struct ptrec_sb_thread_start *ts = NULL;
	struct rcv_xtask *t;
	size_t i;

	if (!rcv_backend_emu(rc->s) || !rc->count ||
	    rc->end / rc->block >= RCV_CHAIN)
		return 0;
	for (i = 0; i < rc->s->nrecs && !ts; i++)
		if (rc->s->recs[i]->type == PTREC_SB_THREAD_START &&
		    ((const struct ptrec_sb_thread_start *)rc->s->recs[i])
		    ->tid == rc->tid)
			ts = (const void *)rc->s->recs[i];
	if (!ts || ts->parent_tid == rc->tid)
		return 0;
	t = rcv_xtask_of(rc->s, rc->tid);
	if (!t)
		return -RP_ERR_NOMEM;
	if (!t->clone_done)
		parent_facts(rc, ts->parent_tid);
	t = rcv_xtask_of(rc->s, rc->tid);
	if (!t)
		return -RP_ERR_NOMEM;
	return t->clone_n > 0 ? rcv_facts_add(rc, t->clone_f, t->clone_n) : 0;
}
