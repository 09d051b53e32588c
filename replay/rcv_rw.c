// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The memory one instruction reads and writes, for the recovery engine
 * (rcv_sem.c's semantics, rcv_mem.c's index, rcv_access.c's lists for
 * watchpoints): addresses from the values known before it, and the
 * values loaded or stored where the states (or, for read-modify-write
 * instructions, the window's record of them) show them.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_val.h"
#include "replay.h"

struct rcv_val rcv_addr(const struct rcv_ctx *c, const struct rcv_ins *in,
			const struct rcv_op *op, const struct rcv_state *s)
{
	uint64_t a = (uint64_t)op->imm, run = ~0ull;
	struct rcv_val b;

	if (op->base == -2 || op->index == -2 || op->seg == 3)
		return (struct rcv_val){ 0, 0 };
	if (op->base == RCV_RIP) {
		a += in->ip + in->len;
	} else if (op->base >= 0) {
		b = s->r[op->base];
		run &= low_run(b.k);
		a += b.v & b.k;
	}
	if (op->index >= 0 && op->index != RCV_RIP) {
		unsigned int sh = (unsigned int)__builtin_ctz(op->scale ?
							       op->scale : 1);
		uint64_t r = low_run(s->r[op->index].k);

		b = s->r[op->index];
		run &= ~r ? (r << sh) | ((1ull << sh) - 1) : ~0ull;
		a += (b.v & b.k) * op->scale;
	}
	if (op->seg) {
		b = op->seg == 1 ? c->fs_base : c->gs_base;
		run &= low_run(b.k);
		a += b.v & b.k;
	}
	/* Partly known: the low bits below the first unknown bit of any
	 * term (an index's scale adds known zeros), which alias proofs by
	 * alignment use (rcv_alias.c); callers that need the address test
	 * k == ~0.
	 */
	return (struct rcv_val){ a & run, run };
}

/* Two-operand arithmetic that writes its first operand (not cmp/test). */
bool rcv_rmw_arith(unsigned int id)
{
	switch (id) {
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_ADC:
	case X86_INS_SBB: case X86_INS_AND: case X86_INS_OR:
	case X86_INS_XOR:
		return true;
	default:
		return false;
	}
}

/* ---- memory accesses ------------------------------------------------- */

static const struct rcv_op *mem_op(const struct rcv_ins *in, uint8_t acc)
{
	int i;

	for (i = 0; i < in->nops; i++)
		if (in->op[i].type == RCV_OP_MEM && (in->op[i].access & acc))
			return &in->op[i];
	return NULL;
}

static void acc_at(struct rcv_acc *a, struct rcv_val addr, unsigned int size)
{
	a->valid = true;
	a->addr_known = addr.k == ~0ull;
	a->addr = addr.v;
	a->size = size;
}

/*
 * What xchg [mem], r (the register after it) and cmpxchg [mem], r read (the
 * accumulator after a failure, before a success: ZF after tells which)
 * from memory operand @m.
 */
static struct rcv_val locked_read(const struct rcv_ins *in,
				  const struct rcv_op *m,
				  const struct rcv_state *pre,
				  const struct rcv_state *post)
{
	const struct rcv_op *r = m == &in->op[0] ? &in->op[1] : &in->op[0];
	struct rcv_val f = post->r[RCV_FLAGS], x = { 0, 0 };

	if (r->type != RCV_OP_REG || r->size != m->size)
		return x;
	if (in->id == X86_INS_XCHG)
		return reg_get(post, r->reg, r->size, r->shift);
	if (m != &in->op[0] || (m->size != 4 && m->size != 8) ||
	    !(f.k & F_ZF))
		return x;
	return reg_get(f.v & F_ZF ? pre : post, RP_REG_RAX, m->size, 0);
}

/* And what they write: r before it; cmpxchg's source after a success, the
 * memory's own value back after a failure.
 */
static struct rcv_val locked_write(const struct rcv_ins *in,
				   const struct rcv_op *m,
				   const struct rcv_state *pre,
				   const struct rcv_state *post)
{
	const struct rcv_op *r = m == &in->op[0] ? &in->op[1] : &in->op[0];
	struct rcv_val f = post->r[RCV_FLAGS];

	if (in->id == X86_INS_CMPXCHG && !(f.k & F_ZF && f.v & F_ZF))
		return locked_read(in, m, pre, post);
	if (r->type != RCV_OP_REG || r->size != m->size ||
	    (in->id == X86_INS_CMPXCHG && m != &in->op[0]))
		return (struct rcv_val){ 0, 0 };
	return reg_get(pre, r->reg, r->size, r->shift);
}

void rcv_reads(const struct rcv_ctx *c, const struct rcv_ins *in,
	       const struct rcv_state *pre, const struct rcv_state *post,
	       struct rcv_acc *rd)
{
	const struct rcv_val rsp = pre->r[RP_REG_RSP];
	const struct rcv_op *m;

	memset(rd, 0, sizeof(*rd));
	if (rcv_sse_reads(c, in, pre, post, rd))
		return;
	switch (in->id) {
	case X86_INS_POP:
		if (in->op[0].type == RCV_OP_OTHER) {	/* pop %fs: 8 bytes */
			acc_at(rd, rsp, 8);
			return;
		}
		if (in->op[0].type != RCV_OP_REG || in->op[0].size != 8)
			return;
		acc_at(rd, rsp, 8);
		if (in->op[0].reg != RP_REG_RSP)
			rd->val = post->r[in->op[0].reg];
		return;
	case X86_INS_RET:
		acc_at(rd, rsp, 8);
		if (in->iclass == RP_IC_RETURN)
			rd->val = known(in->next);
		return;
	case X86_INS_JMP:
	case X86_INS_CALL:
		/* jmp/call through memory (a PLT's `jmp *GOT(%rip)`):
		 * the word read is where the trace went, as a return's,
		 * but not after a barrier (an unproven branch, a signal
		 * or a gap after it: rcv_expected()), whose next
		 * instruction may be a handler's entry; users take no
		 * value from a barrier's load either, nor from one whose
		 * own proof is asked (rcv_branches_prove(): the word
		 * before the branch).
		 */
		m = &in->op[0];
		if (in->nops != 1 || m->type != RCV_OP_MEM || m->size != 8 ||
		    (in->iclass != RP_IC_JUMP && in->iclass != RP_IC_CALL))
			return;
		acc_at(rd, rcv_addr(c, in, m, pre), 8);
		if (in->next && !(in->flags & RCV_I_BARRIER))
			rd->val = known(in->next);
		return;
	case X86_INS_LEAVE:
		acc_at(rd, pre->r[RP_REG_RBP], 8);
		rd->val = post->r[RP_REG_RBP];
		return;
	case X86_INS_MOV:
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (in->nops != 2 || in->op[0].type != RCV_OP_REG ||
		    in->op[1].type != RCV_OP_MEM)
			return;
		m = &in->op[1];
		acc_at(rd, rcv_addr(c, in, m, pre), m->size);
		/* What the register holds after it is what was loaded. */
		rd->val = reg_get(post, in->op[0].reg, m->size,
				  in->op[0].shift);
		return;
	case X86_INS_XADD:
		/* xadd [mem], r: r after it is what the memory held. */
		m = &in->op[0];
		if (in->nops != 2 || m->type != RCV_OP_MEM ||
		    in->op[1].type != RCV_OP_REG || in->op[1].size != m->size)
			return;
		acc_at(rd, rcv_addr(c, in, m, pre), m->size);
		rd->val = reg_get(post, in->op[1].reg, m->size,
				  in->op[1].shift);
		return;
	case X86_INS_XCHG:
	case X86_INS_CMPXCHG:
		m = mem_op(in, CS_AC_READ | CS_AC_WRITE);
		if (!m || in->nops != 2)
			return;
		acc_at(rd, rcv_addr(c, in, m, pre), m->size);
		rd->val = locked_read(in, m, pre, post);
		return;
	default:
		/* add [mem], x: what the engine found it read. */
		if (!c->written || !rcv_rmw_arith(in->id) || in->nops != 2 ||
		    in->op[0].type != RCV_OP_MEM)
			return;
		m = &in->op[0];
		acc_at(rd, rcv_addr(c, in, m, pre), m->size);
		rd->val = c->written(c->mctx, in, 0);
		return;
	}
}

void rcv_writes(const struct rcv_ctx *c, const struct rcv_ins *in,
		const struct rcv_state *pre, const struct rcv_state *post,
		struct rcv_acc *wr)
{
	struct rcv_val rsp = pre->r[RP_REG_RSP];
	const struct rcv_op *m;
	struct rcv_val v;

	memset(wr, 0, sizeof(*wr));
	switch (in->id) {
	case X86_INS_PUSH:
		if (rsp.k == ~0ull)
			rsp.v -= 8;
		acc_at(wr, rsp, 8);
		if (in->op[0].type == RCV_OP_IMM)
			wr->val = known((uint64_t)in->op[0].imm);
		else if (in->op[0].type == RCV_OP_REG && in->op[0].size == 8)
			wr->val = pre->r[in->op[0].reg];
		else if (in->op[0].type != RCV_OP_MEM || in->op[0].size != 8)
			wr->addr_known = false;	/* 16-bit push: rare */
		return;
	case X86_INS_CALL:
		if (rsp.k == ~0ull)
			rsp.v -= 8;
		acc_at(wr, rsp, 8);
		wr->val = known(in->ip + in->len);
		return;
	default:
		break;
	}
	m = mem_op(in, CS_AC_WRITE);
	if (!m)
		return;
	if (rcv_bitop_far(in)) {
		/* The byte written is not at the operand's address. */
		wr->valid = true;
		wr->size = m->size;
		return;
	}
	acc_at(wr, rcv_addr(c, in, m, pre), m->size);
	rcv_sse_writes(in, pre, wr);
	if (m == &in->op[0] && c->written &&
	    (rcv_rmw_arith(in->id) || in->id == X86_INS_XADD))
		wr->val = c->written(c->mctx, in, 1);
	if ((in->id == X86_INS_XCHG || in->id == X86_INS_CMPXCHG) &&
	    in->nops == 2)
		wr->val = locked_write(in, m, pre, post);
	if (in->id == X86_INS_MOV && in->nops == 2) {
		if (in->op[1].type == RCV_OP_REG) {
			v = reg_get(pre, in->op[1].reg, in->op[1].size,
				    in->op[1].shift);
			wr->val = v;
		} else if (in->op[1].type == RCV_OP_IMM) {
			wr->val = known((uint64_t)in->op[1].imm &
					wmask(m->size));
		}
	}
}
