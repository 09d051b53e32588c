// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * watchtruth's model of memory accesses (tests/gdb/watchtruth.c): which
 * bytes an instruction writes or reads, from capstone's operands and the
 * true registers the software recorder read before it (never the
 * recovery engine's), so that the truth the engine is checked against
 * owes nothing to it.
 */
#include <capstone/capstone.h>

#include "watchtruth.h"

static int gpr(x86_reg r)
{
	static const x86_reg map[16][4] = {
		{ X86_REG_RAX, X86_REG_EAX }, { X86_REG_RBX, X86_REG_EBX },
		{ X86_REG_RCX, X86_REG_ECX }, { X86_REG_RDX, X86_REG_EDX },
		{ X86_REG_RSI, X86_REG_ESI }, { X86_REG_RDI, X86_REG_EDI },
		{ X86_REG_RBP, X86_REG_EBP }, { X86_REG_RSP, X86_REG_ESP },
		{ X86_REG_R8, X86_REG_R8D }, { X86_REG_R9, X86_REG_R9D },
		{ X86_REG_R10, X86_REG_R10D }, { X86_REG_R11, X86_REG_R11D },
		{ X86_REG_R12, X86_REG_R12D }, { X86_REG_R13, X86_REG_R13D },
		{ X86_REG_R14, X86_REG_R14D }, { X86_REG_R15, X86_REG_R15D },
	};
	int i;

	for (i = 0; i < 16; i++)
		if (map[i][0] == r || map[i][1] == r)
			return i;
	return -1;
}

static bool read_only(unsigned int id)
{
	switch (id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_JMP:
	case X86_INS_NOP: case X86_INS_LEA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHW:
	case X86_INS_UCOMISD: case X86_INS_UCOMISS: case X86_INS_COMISD:
	case X86_INS_COMISS: case X86_INS_PCMPEQB: case X86_INS_VPCMPEQB:
	/* state and x87 loads: their memory operand is a source (SDM) */
	case X86_INS_XRSTOR: case X86_INS_XRSTOR64: case X86_INS_XRSTORS:
	case X86_INS_XRSTORS64: case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
	case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR: case X86_INS_FRSTOR:
	case X86_INS_FLDENV: case X86_INS_FLDCW: case X86_INS_FLD:
	case X86_INS_FILD: case X86_INS_FBLD: case X86_INS_FADD:
	case X86_INS_FIADD: case X86_INS_FMUL: case X86_INS_FIMUL:
	case X86_INS_FSUB: case X86_INS_FISUB: case X86_INS_FSUBR:
	case X86_INS_FISUBR: case X86_INS_FDIV: case X86_INS_FIDIV:
	case X86_INS_FDIVR: case X86_INS_FIDIVR: case X86_INS_FCOM:
	case X86_INS_FCOMP: case X86_INS_FICOM: case X86_INS_FICOMP:
		return true;
	default:
		return false;
	}
}

/* The memory operand @o's address with registers @r; false for fs/gs or
 * a register we do not follow.
 */
static bool op_addr(const cs_insn *ci, const cs_x86_op *o, const uint64_t *r,
		    uint64_t *a)
{
	uint64_t v = (uint64_t)o->mem.disp;
	int b, ix;

	if (o->mem.segment == X86_REG_FS || o->mem.segment == X86_REG_GS)
		return false;
	if (o->mem.base == X86_REG_RIP) {
		v += ci->address + ci->size;
	} else if (o->mem.base != X86_REG_INVALID) {
		if ((b = gpr(o->mem.base)) < 0)
			return false;
		v += r[b];
	}
	if (o->mem.index != X86_REG_INVALID) {
		if ((ix = gpr(o->mem.index)) < 0)
			return false;
		v += r[ix] * (uint64_t)o->mem.scale;
	}
	*a = v;
	return true;
}

/* The write [*a, *a + *n) of instruction @ci with registers @r before it
 * (and @after, after it); false when it writes no memory we name.
 */
bool dest(const cs_insn *ci, const uint64_t *r, const uint64_t *after,
	  uint64_t *a, uint64_t *n)
{
	const cs_x86 *x = &ci->detail->x86;
	unsigned int i, esz = 0;
	uint64_t cnt = 1;

	switch (ci->id) {
	case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_PUSHFQ:
		*a = r[7] - 8;
		*n = 8;
		return true;
	case X86_INS_SYSCALL:
		if (r[0] == 0 || r[0] == 17) {	/* read, pread64 */
			/* The bytes returned: rax after it (the truth
			 * has it where the call returned to the next
			 * instruction, ground-truth version 3), else the
			 * count asked for (the test's reads return all of
			 * it).
			 */
			*a = r[4];
			*n = after ? after[0] : r[3];
			return (int64_t)*n > 0;
		}
		if (r[0] == 22 || r[0] == 293) {	/* pipe, pipe2 */
			*a = r[5];
			*n = 8;
			return true;
		}
		return false;
	case X86_INS_STOSB: esz = 1; break;
	case X86_INS_STOSW: esz = 2; break;
	case X86_INS_STOSD: esz = 4; break;
	case X86_INS_STOSQ: esz = 8; break;
	case X86_INS_MOVSB: esz = 1; break;
	case X86_INS_MOVSW: esz = 2; break;
	case X86_INS_MOVSQ: esz = 8; break;
	default: break;
	}
	if (ci->id == X86_INS_MOVSD && x->op_count == 2 &&
	    x->operands[0].type == X86_OP_MEM &&
	    x->operands[1].type == X86_OP_MEM)
		esz = 4;
	if (esz) {
		if (x->prefix[0] == X86_PREFIX_REP ||
		    x->prefix[0] == X86_PREFIX_REPNE)
			cnt = r[2];
		*n = cnt * esz;
		*a = r[5];
		if (r[16] & 0x400)
			*a -= *n - esz;
		return *n > 0;
	}
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];
		int bo;

		if (o->type != X86_OP_MEM)
			continue;
		/* Capstone 4 marks test's and cmp's operand written too;
		 * an operand 0 of anything else is a destination.
		 */
		if (read_only(ci->id) ||
		    (!(o->access & CS_AC_WRITE) && i != 0))
			continue;
		if (!op_addr(ci, o, r, a))
			return false;
		*n = o->size;
		/* bts/btr/btc with a register bit offset: the word at
		 * size * floor(offset / bits) from the operand (SDM, BT).
		 */
		if ((ci->id == X86_INS_BTS || ci->id == X86_INS_BTR ||
		     ci->id == X86_INS_BTC) && x->op_count == 2 &&
		    x->operands[1].type == X86_OP_REG &&
		    (bo = gpr(x->operands[1].reg)) >= 0) {
			int64_t off = x->operands[1].size == 8 ?
					      (int64_t)r[bo] :
				      x->operands[1].size == 4 ?
					      (int32_t)r[bo] : (int16_t)r[bo];
			int64_t bits = 8 * o->size;

			off = off >= 0 ? off / bits : -((-off + bits - 1) / bits);
			*a += (uint64_t)(off * o->size);
		}
		return true;
	}
	return false;
}

/*
 * WATCHTRUTH_READS=1: does instruction @ci, with registers @r before it,
 * read a byte of [@lo, @hi)?  Explicit memory operands capstone marks
 * read (lea and nop read none), pop and ret at rsp, leave at rbp: the
 * loads tests/gdb/watch.sh's rwatch cases make.
 */
bool reads(const cs_insn *ci, const uint64_t *r, uint64_t lo, uint64_t hi)
{
	const cs_x86 *x = &ci->detail->x86;
	uint64_t a;
	unsigned int i;

	switch (ci->id) {
	case X86_INS_POP: case X86_INS_RET:
		return r[7] < hi && lo < r[7] + 8;
	case X86_INS_LEAVE:
		return r[6] < hi && lo < r[6] + 8;
	case X86_INS_LEA: case X86_INS_NOP:
		return false;
	default:
		break;
	}
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type == X86_OP_MEM && (o->access & CS_AC_READ) &&
		    op_addr(ci, o, r, &a) && a < hi && lo < a + o->size)
			return true;
	}
	return false;
}
