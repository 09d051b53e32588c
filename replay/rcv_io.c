// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Per-instruction input/output maps of the recovery engine's semantics
 * (issue #17's latency, docs/values.md "Latency", iomap): which registers,
 * flags and xmm an instruction's forward and backward evaluations read or
 * write, so that a pass evaluates again only an instruction whose own
 * inputs changed, and merely carries across the registers it does not
 * touch (struct redo, rcv_pass.c).
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_sem.h"

/*
 * The registers, flags and xmm @in's semantics read or write, the
 * instruction's own and the implicit ones (docs/values.md "Latency",
 * iomap): what capstone lists as read (in->gr, with the memory operands'
 * base and index), what it writes (in->wcode), the stack pointer of the
 * stack instructions and leave's rbp, rflags when it reads or writes a
 * flag, and the xmm when rcv_sse.c models it or it writes one.  Only for
 * the instructions whose semantics rcv_sem.c and rcv_back.c keep to
 * those (every register outside is passed across as it is, both ways):
 * any other is RCV_IO_ALL.  tests/unit/replay/test_rcv_io.c checks each
 * form against the semantics themselves.
 */
static uint32_t touch(const struct rcv_ins *in, bool *cmov)
{
	uint32_t m = in->gr;
	uint64_t w[2], x;
	int h, b = 0, k;

	switch (in->id) {
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX:
	case X86_INS_MOVSXD: case X86_INS_LEA: case X86_INS_ADD:
	case X86_INS_SUB: case X86_INS_AND: case X86_INS_OR:
	case X86_INS_XOR: case X86_INS_CMP: case X86_INS_TEST:
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_NOT: case X86_INS_SHL: case X86_INS_SHR:
	case X86_INS_SAR: case X86_INS_IMUL: case X86_INS_CDQE:
	case X86_INS_CWDE: case X86_INS_CDQ: case X86_INS_CQO:
	case X86_INS_JMP: case X86_INS_NOP: case X86_INS_ENDBR64:
		break;
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL:
	case X86_INS_RET:
		m |= 1u << RP_REG_RSP;
		break;
	case X86_INS_LEAVE:
		m |= 1u << RP_REG_RSP | 1u << RP_REG_RBP;
		break;
	default:
		if (rcv_cond_jump(in->id))
			break;
		/* cmov and set: the destination is read too (kept when
		 * the condition fails).
		 */
		*cmov = rcv_cond_of(in->id) >= 0;
		if (*cmov)
			break;
		return RCV_IO_ALL;
	}
	if (in->flags & (RCV_I_BAD | RCV_I_SYSCALL | RCV_I_REP |
			 RCV_I_FSW | RCV_I_XFER))
		return RCV_IO_ALL;
	for (k = 0; k < in->nops; k++) {
		const struct rcv_op *o = &in->op[k];

		if (o->type == RCV_OP_OTHER || o->type == RCV_OP_XMM)
			return RCV_IO_ALL;
		if (o->type == RCV_OP_REG)
			m |= 1u << o->reg;
		if (o->type == RCV_OP_MEM && o->base >= 0 && o->base < 16)
			m |= 1u << o->base;
		if (o->type == RCV_OP_MEM && o->index >= 0 && o->index < 16)
			m |= 1u << o->index;
	}
	memcpy(w, in->wcode, sizeof(w));
	for (h = 0; h < 2; h++)
		for (x = w[h]; x; x &= ~(0xffull << (8 * b))) {
			b = __builtin_ctzll(x) >> 3;
			m |= 1u << (8 * h + b);
		}
	if (in->fr || in->fw)
		m |= RCV_IO_FLAGS;
	if (in->xsem || in->xw)
		m |= RCV_IO_X;
	return m;
}

uint32_t rcv_io_touch(const struct rcv_ins *in)
{
	bool cmov = false;

	return touch(in, &cmov);
}

/*
 * The registers in @m carried across @in as its evaluation carries them:
 * forward (@fwd) from the state before it into @to, the state after,
 * else back; the bits it writes (rcv_pass()) are not carried.  Returns
 * the mask of those it changed; *@conflicts counts as rcv_merge().
 */
uint32_t rcv_io_carry(const struct rcv_ins *in, struct rcv_state *to,
		      const struct rcv_state *from, uint32_t m, bool fwd,
		      uint64_t *conflicts)
{
	uint32_t gm = m & 0xffffu, ch = 0;
	struct rcv_val f;
	uint64_t keep;
	int g;

	while (gm) {
		g = __builtin_ctz(gm);
		gm &= gm - 1;
		keep = ~rcv_wmask(in->wcode[g]);
		if (!keep)
			continue;
		f.k = from->r[g].k & keep;
		f.v = from->r[g].v & keep;
		if (rcv_merge(&to->r[g], f, conflicts))
			ch |= 1u << g;
	}
	if (m & RCV_IO_FLAGS) {
		/* As rcv_pass() and rcv_forward(): RF before it tells
		 * nothing of after it; one that completes clears it.
		 */
		f.k = from->r[RCV_FLAGS].k & ~in->fw & ~F_RF;
		f.v = from->r[RCV_FLAGS].v & ~in->fw & ~F_RF;
		if (fwd && in->fw != ~0ull)
			f.k |= F_RF;
		if (rcv_merge(&to->r[RCV_FLAGS], f, conflicts))
			ch |= RCV_IO_FLAGS;
	}
	if ((m & RCV_IO_X) && rcv_sse_flow(to, from, in->xw, conflicts))
		ch |= RCV_IO_X;
	return ch;
}

/* The base and index registers of memory operand @o. */
static uint32_t addr_regs(const struct rcv_op *o)
{
	uint32_t m = 0;

	if (o->type != RCV_OP_MEM)
		return 0;
	if (o->base >= 0 && o->base < 16)
		m |= 1u << o->base;
	if (o->index >= 0 && o->index < 16)
		m |= 1u << o->index;
	return m;
}

/* The registers of @in's operands (not their addresses'). */
static uint32_t op_regs(const struct rcv_ins *in)
{
	uint32_t m = 0;
	int k;

	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_REG)
			m |= 1u << in->op[k].reg;
	return m;
}

/*
 * What rcv_backward() reads of the states after (@post) and before
 * (@pre) @in, touching @t, beyond carrying registers back and merging
 * into @pre: as its cases.
 */
static void back_reads(const struct rcv_ins *in, uint32_t t, uint32_t *post,
		       uint32_t *pre)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];
	uint32_t x = t & RCV_IO_X;

	*post = *pre = x;
	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_POP:
	case X86_INS_RET: case X86_INS_LEAVE:
		*post |= 1u << RP_REG_RSP;
		break;
	case X86_INS_MOV:
		/* A store: its address before it, the register stored
		 * from memory after it.
		 */
		if (d->type == RCV_OP_MEM) {
			*post = t;
			*pre |= addr_regs(d);
		} else if (in->nops == 2 && d->type == RCV_OP_REG &&
			   s->type == RCV_OP_REG) {
			*post |= 1u << d->reg;
		}
		break;
	case X86_INS_MOVZX: case X86_INS_MOVSX: case X86_INS_MOVSXD:
	case X86_INS_LEA: case X86_INS_INC: case X86_INS_DEC:
	case X86_INS_NEG: case X86_INS_NOT:
		if (d->type == RCV_OP_REG)
			*post |= 1u << d->reg;
		break;
	case X86_INS_CDQE: case X86_INS_CWDE:
		*post |= 1u << RP_REG_RAX;
		break;
	case X86_INS_TEST: case X86_INS_CMP:
		/* ZF after a compare of a register. */
		if (d->type == RCV_OP_REG)
			*post |= RCV_IO_FLAGS | op_regs(in);
		break;
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_XOR:
		/* The destination before it, a memory source's or
		 * destination's address.
		 */
		*post |= op_regs(in);
		*pre |= in->gr;
		break;
	default:
		break;
	}
}

/* Does rcv_forward() read the flags after @in (zf_result())? */
static bool zf_reads(const struct rcv_ins *in)
{
	switch (in->id) {
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_ADC:
	case X86_INS_SBB: case X86_INS_AND: case X86_INS_OR:
	case X86_INS_XOR:
		return in->op[0].type == RCV_OP_REG;
	default:
		return false;
	}
}

void rcv_io_map(const struct rcv_ins *in, struct rcv_io *io)
{
	bool cmov = false;
	uint32_t t = touch(in, &cmov);

	io->touch = io->fwd_pre = io->fwd_post = io->back_pre =
		io->back_post = t;
	if (t == RCV_IO_ALL)
		return;
	/* Forward: what it reads, and the stack pointer and rbp of the
	 * stack instructions; the bits it writes in part, and the flags
	 * it does not write, it carries (rcv_io_carry()).
	 */
	io->fwd_pre = in->gr | (t & ((1u << RP_REG_RSP) | (1u << RP_REG_RBP) |
				     RCV_IO_X)) |
		      (in->fr ? RCV_IO_FLAGS : 0);
	if (cmov)
		io->fwd_pre = t;
	/* After it: the flags of a result known zero (zf_result()). */
	io->fwd_post = (t & RCV_IO_X) | (zf_reads(in) ? RCV_IO_FLAGS : 0);
	back_reads(in, t, &io->back_post, &io->back_pre);
}

/*
 * The memo of rcv_io_map() (p99: 1.6% of a 4-window stop at 10^7, every
 * instruction of a window mapped in its second pass).  A map is a
 * function of the instruction alone, as it is when mapped (its flags
 * change during the passes): an entry keeps that copy and serves only
 * an instruction equal to it, byte for byte.
 */
#define RCV_IOMEMO	1024	/* entries, a power of two */

struct rcv_io_memo {
	struct {
		struct rcv_ins in;
		struct rcv_io io;
		bool used;
	} e[RCV_IOMEMO];
};

struct rcv_io_memo *rcv_io_memo_new(void)
{
	return calloc(1, sizeof(struct rcv_io_memo));
}

void rcv_io_memo_free(struct rcv_io_memo *m)
{
	free(m);
}

void rcv_io_map_memo(struct rcv_io_memo *m, const struct rcv_ins *in,
		     struct rcv_io *io)
{
	size_t h;

	if (!m) {
		rcv_io_map(in, io);
		return;
	}
	h = (in->ip ^ in->ip >> 10) & (RCV_IOMEMO - 1);
	if (m->e[h].used && !memcmp(&m->e[h].in, in, sizeof(*in))) {
		*io = m->e[h].io;
		return;
	}
	rcv_io_map(in, io);
	m->e[h].in = *in;
	m->e[h].io = *io;
	m->e[h].used = true;
}
