// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's x86-64 semantics backward: what the state after
 * an instruction says of the state before it, where the inversion is
 * exact (pops and pushes, moves, lea, xchg, bswap, rotates, inc/dec/
 * neg/not, add/sub/xor with the other operand known, a compare that
 * found equal, a conditional branch's direction).  rcv_sem.c is the same
 * forward.  Never a guess: a bit is known only when implied.
 */
#include <capstone/capstone.h>

#include "rcv_sem.h"

/*
 * add/sub/xor [mem], x with x known: memory after it (the value it
 * wrote) gives memory before it (the value it read), kept with the
 * instruction (struct rcv_ctx's wrote): a counter in memory is known
 * back from the snapshot, iteration by iteration.
 */
static void rmw_back(const struct rcv_ctx *c, uint64_t i,
		     const struct rcv_ins *in, const struct rcv_state *pre,
		     const struct rcv_state *post)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size;
	struct rcv_val x, after;
	struct rcv_acc w;

	if (!c->mem || !c->wrote || (sz != 1 && sz != 2 && sz != 4 &&
				     sz != 8))
		return;
	x = src->type == RCV_OP_IMM ?
	    known((uint64_t)src->imm & wmask(sz)) :
	    src->type == RCV_OP_REG ?
	    reg_get(post, src->reg, sz, src->shift) :
	    (struct rcv_val){ 0, 0 };
	if (!full(x, sz))
		return;
	rcv_writes(c, in, pre, post, &w);
	if (!w.addr_known || !c->own || !c->own(c->mctx, w.addr, sz))
		return;
	after = c->mem(c->mctx, i + 1, w.addr, sz);
	if (!full(after, sz))
		return;
	c->wrote(c->mctx, i, 1, known(after.v & wmask(sz)));
	after.v = in->id == X86_INS_ADD ? after.v - x.v :
		  in->id == X86_INS_SUB ? after.v + x.v : after.v ^ x.v;
	c->wrote(c->mctx, i, 0, known(after.v & wmask(sz)));
}

uint32_t rcv_backward_m(const struct rcv_ctx *c, uint64_t i,
			const struct rcv_ins *in, struct rcv_state *pre,
			const struct rcv_state *post, uint32_t merge,
			uint64_t *conflicts)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size, id = in->id;
	struct rcv_state p;
	struct rcv_val a, b;
	struct rcv_acc w;
	uint32_t xch = 0;

	if (in->flags & RCV_I_BARRIER)
		return 0;
	rcv_pass(in, post, &p);
	if ((merge & RCV_IO_X) && rcv_sse_flow(pre, post, in->xw, conflicts))
		xch = RCV_IO_X;
	if (in->flags & RCV_I_REP)
		return rcv_merge_state(pre, &p, merge, conflicts) | xch;
	/* RF before the syscall is not what sysret leaves (cleared). */
	if (rcv_sys_keeps_flags(in, pre)) {
		p.r[RCV_FLAGS].k = post->r[RCV_FLAGS].k & ~F_RF;
		p.r[RCV_FLAGS].v = post->r[RCV_FLAGS].v & ~F_RF;
		p.r[RCV_FLAGS].k |= post->r[RP_REG_R11].k;
		p.r[RCV_FLAGS].v |= post->r[RP_REG_R11].v;
	}
	if (rcv_sse_backward(c, i, in, pre, post, &p, conflicts))
		xch = RCV_IO_X;
	rcv_cmpxchg_zf(in, post, post, &p);
	a = post->r[RP_REG_RSP];
	switch (id) {
	case X86_INS_PUSH:
	case X86_INS_CALL:
		if (a.k == ~0ull)
			p.r[RP_REG_RSP] = known(a.v + 8);
		if (id == X86_INS_PUSH && d->type == RCV_OP_REG &&
		    d->size == 8 && d->reg != RP_REG_RSP && a.k == ~0ull &&
		    c->mem)
			learn(&p, d->reg, 8, 0, c->mem(c->mctx, i + 1, a.v, 8));
		break;
	case X86_INS_POP:
		if (((d->type == RCV_OP_REG && d->size == 8 &&
		      d->reg != RP_REG_RSP) || d->type == RCV_OP_OTHER) &&
		    a.k == ~0ull)
			p.r[RP_REG_RSP] = known(a.v - 8);
		break;
	case X86_INS_RET:
		if (a.k == ~0ull)
			p.r[RP_REG_RSP] = known(a.v - 8 -
				(in->nops == 1 ? (uint64_t)d->imm : 0));
		break;
	case X86_INS_LEAVE:
		if (a.k == ~0ull)
			p.r[RP_REG_RBP] = known(a.v - 8);
		break;
	case X86_INS_MOV:
		if (in->nops != 2)
			break;
		if (d->type == RCV_OP_REG && src->type == RCV_OP_REG &&
		    d->reg != src->reg)
			learn(&p, src->reg, sz, src->shift,
			      reg_get(post, d->reg, sz, d->shift));
		/* A store: the register holds what memory holds after, in
		 * memory no other thread writes (another could write it
		 * between this store and the next load).
		 */
		if (d->type == RCV_OP_MEM && src->type == RCV_OP_REG &&
		    c->mem) {
			rcv_writes(c, in, pre, post, &w);
			if (w.addr_known && c->own &&
			    c->own(c->mctx, w.addr, sz))
				learn(&p, src->reg, sz, src->shift,
				      c->mem(c->mctx, i + 1, w.addr, sz));
		}
		break;
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (in->nops == 2 && d->type == RCV_OP_REG &&
		    src->type == RCV_OP_REG && d->reg != src->reg)
			learn(&p, src->reg, src->size, src->shift,
			      reg_get(post, d->reg, src->size, 0));
		break;
	case X86_INS_LEA:
		if (in->nops != 2 || d->type != RCV_OP_REG || sz != 8 ||
		    src->seg || src->index >= 0 || src->base < 0 ||
		    src->base == RCV_RIP)
			break;
		b = post->r[d->reg];
		if (b.k == ~0ull)
			learn(&p, src->base, 8, 0,
			      known(b.v - (uint64_t)src->imm));
		break;
	case X86_INS_CDQE:
		learn(&p, RP_REG_RAX, 4, 0, reg_get(post, RP_REG_RAX, 4, 0));
		break;
	case X86_INS_CWDE:
		learn(&p, RP_REG_RAX, 2, 0, reg_get(post, RP_REG_RAX, 2, 0));
		break;
	case X86_INS_XCHG:
		if (in->nops == 2 && d->type == RCV_OP_REG &&
		    src->type == RCV_OP_REG && d->reg != src->reg) {
			learn(&p, d->reg, sz, d->shift,
			      reg_get(post, src->reg, sz, src->shift));
			learn(&p, src->reg, sz, src->shift,
			      reg_get(post, d->reg, sz, d->shift));
		}
		break;
	case X86_INS_BSWAP:
		/* A 16-bit bswap is undefined (SDM Vol. 2A BSWAP): no
		 * inverse (review7 bswap16).
		 */
		b = reg_get(post, d->reg, sz, 0);
		if (sz >= 4 && full(b, sz))
			learn(&p, d->reg, sz, 0, known(rcv_bswap(b.v, sz)));
		break;
	case X86_INS_ROL: case X86_INS_ROR: {
		/* Rotating back is exact when the count register is not
		 * the one rotated, so that its value after is its value
		 * before (`rol %cl, %rcx` rotates rcx by the cl before:
		 * review7 rolcl).
		 */
		unsigned int n, bits = 8 * sz;
		uint64_t r;

		a = in->nops == 2 ? (src->type == RCV_OP_IMM ?
				     known((uint64_t)src->imm & 0xff) :
				     src->type == RCV_OP_REG ?
				     reg_get(post, src->reg, 1, src->shift) :
				     (struct rcv_val){ 0, 0 }) : known(1);
		b = d->type == RCV_OP_REG ?
		    reg_get(post, d->reg, sz, d->shift) :
		    (struct rcv_val){ 0, 0 };
		if (in->nops == 2 && src->type == RCV_OP_REG &&
		    d->type == RCV_OP_REG && src->reg == d->reg)
			break;
		if (!full(a, 1) || !full(b, sz) ||
		    !(a.v & (sz == 8 ? 63 : 31)))
			break;
		n = ((unsigned int)a.v & (sz == 8 ? 63 : 31)) % bits;
		r = b.v & wmask(sz);
		if (n)
			r = id == X86_INS_ROR ? r << n | r >> (bits - n) :
						r >> n | r << (bits - n);
		learn(&p, d->reg, sz, d->shift, known(r & wmask(sz)));
		break;
	}
	case X86_INS_CMC:
		if (post->r[RCV_FLAGS].k & F_CF) {
			p.r[RCV_FLAGS].k |= F_CF;
			p.r[RCV_FLAGS].v = (p.r[RCV_FLAGS].v & ~F_CF) |
					   (~post->r[RCV_FLAGS].v & F_CF);
		}
		break;
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_NOT:
		if (d->type != RCV_OP_REG)
			break;
		b = reg_get(post, d->reg, sz, d->shift);
		if (!full(b, sz))
			break;
		b.v = id == X86_INS_INC ? b.v - 1 : id == X86_INS_DEC ?
		      b.v + 1 : id == X86_INS_NEG ? -b.v : ~b.v;
		learn(&p, d->reg, sz, d->shift, known(b.v));
		break;
	case X86_INS_TEST: case X86_INS_CMP:
		/* ZF set after test r, r: r is 0; after cmp r, x: r is x. */
		if (in->nops != 2 || d->type != RCV_OP_REG ||
		    (post->r[RCV_FLAGS].k & F_ZF) != F_ZF ||
		    !(post->r[RCV_FLAGS].v & F_ZF))
			break;
		if (id == X86_INS_TEST) {
			if (src->type == RCV_OP_REG && src->reg == d->reg &&
			    src->shift == d->shift && src->size == sz)
				learn(&p, d->reg, sz, d->shift, known(0));
			break;
		}
		a = src->type == RCV_OP_IMM ?
		    known((uint64_t)src->imm & wmask(sz)) :
		    src->type == RCV_OP_REG ?
		    reg_get(post, src->reg, sz, src->shift) :
		    (struct rcv_val){ 0, 0 };
		if (full(a, sz))
			learn(&p, d->reg, sz, d->shift, a);
		if (src->type == RCV_OP_REG && src->reg != d->reg) {
			b = reg_get(post, d->reg, sz, d->shift);
			if (full(b, sz))
				learn(&p, src->reg, sz, src->shift, b);
		}
		break;
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_XOR:
		if (in->nops == 2 && d->type == RCV_OP_MEM) {
			rmw_back(c, i, in, pre, post);
			break;
		}
		if (in->nops != 2 || d->type != RCV_OP_REG)
			break;
		if (src->type == RCV_OP_REG && src->reg == d->reg)
			break;
		b = reg_get(post, d->reg, sz, d->shift);
		/* The destination before and after it give a register
		 * source (glibc's alloc_new_heap: `sub %rdi, %r15`, the
		 * munmap's address from the heap's aligned start before
		 * and the length after).
		 */
		a = reg_get(pre, d->reg, sz, d->shift);
		if (src->type == RCV_OP_REG && full(b, sz) && full(a, sz))
			learn(&p, src->reg, sz, src->shift,
			      known(id == X86_INS_ADD ? b.v - a.v :
				    id == X86_INS_SUB ? a.v - b.v :
				    a.v ^ b.v));
		a = src->type == RCV_OP_IMM ?
		    known((uint64_t)src->imm & wmask(sz)) :
		    src->type == RCV_OP_REG ?
		    reg_get(post, src->reg, sz, src->shift) :
		    rcv_op_get(c, i, in, src, pre, sz);
		if (!full(b, sz) || !full(a, sz))
			break;
		b.v = id == X86_INS_ADD ? b.v - a.v : id == X86_INS_SUB ?
		      b.v + a.v : b.v ^ a.v;
		learn(&p, d->reg, sz, d->shift, known(b.v));
		break;
	default:
		break;
	}
	/* An indirect jump or call through a register went where the
	 * trace went: the register held that address (SDM Vol. 2A JMP,
	 * CALL: rip := r64).  Only when the branch is not a barrier
	 * (returned above): a signal delivered right after it, a trace
	 * gap or an asynchronous disable make it one (rcv_expected(),
	 * recover.c), so in->next is the branch's own target here.
	 * Neither rsp (a call pushes before it jumps) nor a register
	 * narrower than 64 bits (not an x86-64 form).
	 */
	if ((id == X86_INS_JMP || id == X86_INS_CALL) && in->nops == 1 &&
	    d->type == RCV_OP_REG && d->size == 8 && d->reg >= 0 &&
	    d->reg < 16 && d->reg != RP_REG_RSP && in->next)
		learn(&p, d->reg, 8, 0, known(in->next));
	/* A conditional branch's direction (in->next is where the trace
	 * went) tells single-flag conditions.
	 */
	if (in->iclass == RP_IC_COND && rcv_cond_of(id) >= 0 &&
	    in->nops == 1 && in->op[0].type == RCV_OP_IMM &&
	    (uint64_t)in->op[0].imm != in->ip + in->len) {
		static const int8_t one[8] = { 11, 0, 6, -1, 7, 2, -1, -1 };
		int cc = rcv_cond_of(id);
		bool taken = in->next == (uint64_t)in->op[0].imm;

		if (one[cc >> 1] >= 0 &&
		    (taken || in->next == in->ip + in->len)) {
			uint64_t m = 1ull << one[cc >> 1];
			bool v = taken ^ (cc & 1);

			p.r[RCV_FLAGS].k |= m;
			p.r[RCV_FLAGS].v = (p.r[RCV_FLAGS].v & ~m) |
					   (v ? m : 0);
		}
	}
	return rcv_merge_state(pre, &p, merge, conflicts) | xch;
}

bool rcv_backward(const struct rcv_ctx *c, uint64_t i,
		  const struct rcv_ins *in, struct rcv_state *pre,
		  const struct rcv_state *post, uint64_t *conflicts)
{
	return rcv_backward_m(c, i, in, pre, post, RCV_IO_ALL,
			      conflicts) != 0;
}
