// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The escape analysis over a thread's history (rcv_escape.c does one
 * instruction): rcv_esc_compute() walks the thread from its first
 * position, in order, to the first instruction that may show another
 * thread an address in its stack, and says which part of the stack is
 * its own until then (docs/values.md, "Threads and the stack").  Apart
 * from the per-instruction rules so that each file does one job.
 */
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_esc.h"

/*
 * An undecoded VEX or EVEX instruction (@raw, @len) with no memory
 * operand that is not all vector registers (rcv_decode.c's
 * vector_only()) has a general-purpose register in ModRM's r/m: a
 * source (kmov k, r: review7.c lkmask, lkmaskst; vpbroadcastd from a
 * register, vmovq, vpinsrq, vcvtsi2sd).  A stack-derived one taints the
 * vector state (the mask registers share its taint).  The walk below
 * calls this after rcv_esc_step(), which sees the first byte only and
 * takes the instruction as one with a memory operand (a barrier: the
 * state before it counts there).  Here since only this walk has the
 * instruction's bytes.
 */
void rcv_esc_vex_gpr(struct rcv_esc *e, const struct rcv_ins *in,
		     const uint8_t *raw, size_t len)
{
	size_t at;
	bool b;
	int g;

	if (!(in->flags & RCV_I_BAD) || !(in->flags & RCV_I_BARRIER) ||
	    !len)
		return;
	switch (raw[0]) {
	case 0xc5:
		at = 3;
		b = false;
		break;
	case 0xc4:
		at = 4;
		b = len > 1 && !(raw[1] & 0x20);
		break;
	case 0x62:
		at = 5;
		b = len > 1 && !(raw[1] & 0x20);
		break;
	default:
		return;
	}
	if (at >= len) {
		e->vec = true;
		return;
	}
	if ((raw[at] >> 6) != 3)
		return;	/* a memory operand: rcv_esc_step's barrier rule */
	g = (raw[at] & 7) | (b ? 8 : 0);
	if (e->t[g])
		e->vec = true;
}

static bool started_in(const struct rp_session *s, uint32_t tid)
{
	size_t i;

	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_thread_start *t =
			(const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_THREAD_START && t->tid == tid)
			return true;
	}
	return false;
}

/*
 * Is nothing known to have seen thread @tid's stack where its history
 * starts?  It started in the recording (THREAD_START: its stack is new),
 * or every other thread of its process did (it was alone: what the
 * others learn, they learn from memory the history shows it write).
 * Otherwise (attached to running threads), what it did before is not
 * known.
 */
static bool fresh_start(const struct rp_session *s, uint32_t tid,
			uint32_t pid)
{
	struct rp_thread_info o;
	size_t i;

	if (started_in(s, tid))
		return true;
	for (i = 0; i < rp_thread_count(s); i++)
		if (rp_thread_tid(s, i) != tid &&
		    !rp_thread_info(s, rp_thread_tid(s, i), &o) &&
		    o.pid == pid && !started_in(s, o.tid))
			return false;
	return true;
}

/*
 * The lowest offset from the first rsp that rsp may have reached so far
 * (*@low; INT64_MIN: not known, rsp moved by an amount not known, as
 * `sub rsp, reg`, a handler's frame, or left the first rsp's frame).
 */
static void lowest_rsp(const struct rcv_esc *e, int64_t *low)
{
	const struct rcv_esc_ep *p;

	if (*low == INT64_MIN)
		return;
	if (e->t[RP_REG_RSP] != 1 || e->ep[RP_REG_RSP] >= e->nep ||
	    e->dirty) {		/* not STK; out of memory */
		*low = INT64_MIN;
		return;
	}
	p = &e->eps[e->ep[RP_REG_RSP]];
	if (p->root != e->eps[e->ep0].root || p->lo <= INT64_MIN / 8) {
		*low = INT64_MIN;
		return;
	}
	if (p->lo + e->d[RP_REG_RSP] < *low)
		*low = p->lo + e->d[RP_REG_RSP];
}

/* Is thread @rc's stack mapping the process's [stack]? */
static bool main_stack(struct rp_recover *rc)
{
	struct rp_snap_map_info mi;
	size_t i;

	for (i = 0; rc->sn && !rp_snapshot_proc_map(rc->sn, rc->pid, i, &mi);
	     i++)
		if (mi.start == rc->stack_lo && mi.end == rc->stack_hi)
			return !strcmp(mi.path, "[stack]");
	return false;
}

/* Did control arrive at @ip other than as @prev says (a handler)? */
static bool unexpected(const struct rcv_ins *prev, uint8_t iclass,
		       uint64_t ip)
{
	switch (iclass) {
	case RP_IC_OTHER:
		return ip != prev->ip + prev->len;
	case RP_IC_COND:
		return ip != prev->ip + prev->len &&
		       !(prev->nops && prev->op[0].type == RCV_OP_IMM &&
			 (uint64_t)prev->op[0].imm == ip);
	case RP_IC_JUMP: case RP_IC_CALL:
		return prev->nops && prev->op[0].type == RCV_OP_IMM &&
		       (uint64_t)prev->op[0].imm != ip;
	default:
		/* Returns, indirect branches, syscalls: not checked. */
		return prev->id == X86_INS_SYSCALL &&
		       ip != prev->ip + prev->len;
	}
}

void rcv_esc_compute(struct rp_recover *rc)
{
	struct rcv_esc e = { 0 };
	struct rcv_ins in, prev = { 0 };
	struct rp_cursor *c = NULL;
	struct rp_insn insn;
	struct rp_gap gap;
	uint64_t p, next_gap = UINT64_MAX, rsp, esc = UINT64_MAX, evi = 0;
	uint8_t piclass = RP_IC_OTHER;
	int64_t d, low = 0;

	if (rc->esc_done)
		return;
	rc->esc_done = true;
	rc->esc_pos = 0;
	rc->priv_lo = rc->priv_hi = rc->stack_lo; /* none until shown */
	/* Strict: the thread's stack is private nowhere (what was published
	 * before the history, or into a frame that returned, may be used).
	 */
	if (!rc->mt || rc->strict)
		return;
	if (!fresh_start(rc->s, rc->tid, rc->pid) ||
	    rp_cursor_new(rc->s, rc->tid, &c))
		return;
	if (!rp_thread_gap(rc->s, rc->tid, 0, &gap))
		next_gap = gap.before;
	rcv_esc_init(&e);
	for (p = 0; p < rc->end; p++) {
		/* Code the trace does not show ran before it, or the
		 * instruction is not known: states up to the one before.
		 */
		if (p == next_gap || rp_cursor_peek(c, p, &insn)) {
			esc = p ? p - 1 : 0;
			break;
		}
		rcv_decode(rc->dec, insn.ip, insn.raw, insn.size, insn.iclass,
			   &in);
		if (p && !rc->no_handlers &&
		    (unexpected(&prev, piclass, insn.ip) ||
		     rcv_async_away(rc->s, rc->tid, &evi, p - 1, insn.ip)))
			rcv_esc_async(&e);
		if (rcv_esc_step(&e, &in, insn.size ? insn.raw[0] : 0)) {
			esc = p;
			break;
		}
		rcv_esc_vex_gpr(&e, &in, insn.raw, insn.size);
		lowest_rsp(&e, &low);
		prev = in;
		piclass = insn.iclass;
	}
	rp_cursor_free(c);
	rc->esc_pos = esc;
	/*
	 * What lies above the first rsp (argv, envp and auxv under the main
	 * thread, which libc points to; struct pthread and what the creator
	 * put there under a thread) is not the thread's own: the region
	 * from the stack mapping's start to it is, when the end's rsp and
	 * its offset from the first are known (the walk reached the end).
	 */
	if (p == rc->end && rcv_esc_rsp_offset(&e, &d) &&
	    (rc->end_regs.valid & (1ull << RP_REG_RSP))) {
		rsp = rc->end_regs.val[RP_REG_RSP] - (uint64_t)d;
		if (rc->stack_lo <= rsp && rsp <= rc->stack_hi)
			rc->priv_hi = rsp;
		/*
		 * And only down to where rsp went, but for the red zone: the
		 * mapping may hold more than this stack below it (a raw
		 * clone's stack in a global array, whose neighbours other
		 * threads write knowing no stack address: review5.c's child,
		 * when it is still alive at the snapshot).  Where that is not
		 * known, the process's [stack] alone is taken whole.
		 */
		if (low != INT64_MIN && rsp + (uint64_t)low - 128 > rsp)
			low = INT64_MIN;	/* wrapped */
		if (low != INT64_MIN) {
			rsp += (uint64_t)low - 128;
			if (rsp > rc->priv_lo)
				rc->priv_lo = rsp < rc->priv_hi ? rsp :
					      rc->priv_hi;
		} else if (!main_stack(rc)) {
			rc->priv_lo = rc->priv_hi;
		}
	} else {
		/* The first rsp not known: no stack byte is private. */
		rc->esc_pos = 0;
	}
	rcv_esc_fini(&e);
}
