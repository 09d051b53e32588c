// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What the recovery engine's decoder (rcv_decode.c) knows about capstone
 * 4's instruction ids and registers: the register each capstone register
 * is, the instructions that store without an operand, read-only
 * destinations, the x87 and state loads whose access flags capstone gets
 * wrong, the flags capstone says an instruction reads and writes, the
 * conditional jumps and condition codes, and the instructions rcv_sem.c
 * models.  Tables, no decoder state: split from rcv_decode.c, which
 * turns one instruction into struct rcv_ins.
 */
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_dclass.h"
#include "rcv_internal.h"
#include "replay.h"

/* Capstone register -> GPR, size in bytes, shift; false for others. */
bool rcv_cs_gpr(unsigned int r, int *g, int *size, int *shift)
{
	static const unsigned int tab[16][5] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL,
		  X86_REG_AH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL,
		  X86_REG_BH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL,
		  X86_REG_CH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL,
		  X86_REG_DH },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0 },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0 },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0 },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0 },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0 },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0 },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0 },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0 },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0 },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0 },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0 },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0 },
	};
	static const int sizes[5] = { 8, 4, 2, 1, 1 };
	int i, j;

	if (!r)
		return false;
	for (i = 0; i < 16; i++)
		for (j = 0; j < 5; j++)
			if (tab[i][j] == r) {
				*g = i;
				*size = sizes[j];
				*shift = j == 4 ? 8 : 0;
				return true;
			}
	return false;
}

/* Instructions that write memory without an explicit operand and that
 * rcv_writes() does not name.
 */
bool rcv_cs_implicit_store(unsigned int id)
{
	switch (id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_MOVSB: case X86_INS_MOVSW:
	case X86_INS_MOVSD: case X86_INS_MOVSQ: case X86_INS_MASKMOVDQU:
	case X86_INS_MASKMOVQ: case X86_INS_VMASKMOVDQU:
	case X86_INS_PUSHF: case X86_INS_PUSHFQ:
	case X86_INS_ENTER: case X86_INS_XSAVE: case X86_INS_XSAVEC:
	case X86_INS_XSAVEOPT: case X86_INS_FXSAVE: case X86_INS_FXSAVE64:
	case X86_INS_XSAVE64: case X86_INS_XSAVEC64: case X86_INS_XSAVEOPT64:
	case X86_INS_XSAVES: case X86_INS_XSAVES64: case X86_INS_CMPXCHG16B:
	case X86_INS_CMPXCHG8B: case X86_INS_FNSTENV: case X86_INS_FNSAVE:
	case X86_INS_FBSTP: case X86_INS_SGDT: case X86_INS_SIDT:
	case X86_INS_LCALL:	/* pushes cs and the return address */
		return true;
	default:
		return false;
	}
}

/* rflags bits capstone's eflags field says an instruction writes. */
uint64_t rcv_cs_flags_written(uint64_t e)
{
	static const struct { uint64_t cs, bit; } map[] = {
		{ X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF |
		  X86_EFLAGS_SET_CF | X86_EFLAGS_UNDEFINED_CF, F_CF },
		{ X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_PF |
		  X86_EFLAGS_SET_PF | X86_EFLAGS_UNDEFINED_PF, F_PF },
		{ X86_EFLAGS_MODIFY_AF | X86_EFLAGS_RESET_AF |
		  X86_EFLAGS_SET_AF | X86_EFLAGS_UNDEFINED_AF, F_AF },
		{ X86_EFLAGS_MODIFY_ZF | X86_EFLAGS_RESET_ZF |
		  X86_EFLAGS_SET_ZF | X86_EFLAGS_UNDEFINED_ZF, F_ZF },
		{ X86_EFLAGS_MODIFY_SF | X86_EFLAGS_RESET_SF |
		  X86_EFLAGS_SET_SF | X86_EFLAGS_UNDEFINED_SF, F_SF },
		{ X86_EFLAGS_MODIFY_OF | X86_EFLAGS_RESET_OF |
		  X86_EFLAGS_SET_OF | X86_EFLAGS_UNDEFINED_OF, F_OF },
		{ X86_EFLAGS_MODIFY_DF | X86_EFLAGS_RESET_DF |
		  X86_EFLAGS_SET_DF, F_DF },
	};
	uint64_t fw = 0;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (e & map[i].cs)
			fw |= map[i].bit;
	return fw;
}

/* rflags bits capstone's eflags field says an instruction reads. */
uint64_t rcv_cs_flags_read(uint64_t e)
{
	static const struct { uint64_t cs, bit; } map[] = {
		{ X86_EFLAGS_TEST_CF, F_CF }, { X86_EFLAGS_TEST_PF, F_PF },
		{ X86_EFLAGS_TEST_AF, F_AF }, { X86_EFLAGS_TEST_ZF, F_ZF },
		{ X86_EFLAGS_TEST_SF, F_SF }, { X86_EFLAGS_TEST_OF, F_OF },
		{ X86_EFLAGS_TEST_DF, F_DF },
	};
	uint64_t fr = 0;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (e & map[i].cs)
			fr |= map[i].bit;
	return fr;
}

/*
 * Conditional jumps (their one operand is a target): the one list, also
 * watch_dep.c's (what the trace shows of the values they test).  jcxz
 * does not exist in 64-bit code (0x67 0xe3 is jecxz); listed for
 * completeness.
 */
bool rcv_cond_jump(unsigned int id)
{
	switch (id) {
	case X86_INS_JO: case X86_INS_JNO: case X86_INS_JB: case X86_INS_JAE:
	case X86_INS_JE: case X86_INS_JNE: case X86_INS_JBE: case X86_INS_JA:
	case X86_INS_JS: case X86_INS_JNS: case X86_INS_JP: case X86_INS_JNP:
	case X86_INS_JL: case X86_INS_JGE: case X86_INS_JLE: case X86_INS_JG:
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return true;
	default:
		return false;
	}
}

/*
 * Capstone register -> xmm number (0..15; xmm16..31 and their ymm and zmm
 * alias 0..15, which only makes more unknown) and size; false for others.
 */
bool rcv_cs_xmm(unsigned int r, int *n, int *size)
{
	if (r >= X86_REG_XMM0 && r <= X86_REG_XMM31) {
		*n = (int)(r - X86_REG_XMM0) & 15;
		*size = 16;
	} else if (r >= X86_REG_YMM0 && r <= X86_REG_YMM31) {
		*n = (int)(r - X86_REG_YMM0) & 15;
		*size = 32;
	} else if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31) {
		*n = (int)(r - X86_REG_ZMM0) & 15;
		*size = 64;
	} else {
		return false;
	}
	return true;
}

/*
 * Instructions whose first (Intel order: destination) operand is only
 * read.  For every other instruction the first operand counts as written
 * whatever capstone's access flags say: capstone 4 marks some AVX-512
 * stores' memory destination as read only (vmovdqu64 [rdi], ymm16), and a
 * missed write would give wrong values.
 */
bool rcv_bitop_far(const struct rcv_ins *in)
{
	switch (in->id) {
	case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC:
		return in->nops == 2 && in->op[0].type == RCV_OP_MEM &&
		       in->op[1].type == RCV_OP_REG;
	default:
		return false;
	}
}

bool rcv_cs_op0_read_only(unsigned int id, unsigned int nops)
{
	switch (id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_JMP:
	case X86_INS_LCALL: case X86_INS_LJMP:
	case X86_INS_NOP: case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
	case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT: case X86_INS_CLWB:
	case X86_INS_DIV: case X86_INS_IDIV: case X86_INS_MUL:
		return true;
	case X86_INS_IMUL:
		return nops == 1;
	default:
		return rcv_cond_jump(id);
	}
}

/*
 * The x87 and SSE state loads (review7 rw): capstone 4 gives fxrstor's
 * and xrstor's area as 8 bytes.  FXRSTOR reads 512 bytes (SDM Vol. 1
 * 10.5.1), XRSTOR and XRSTORS as many as XCR0 and the mask select (13.8):
 * size 0, an extent not known.  Each only reads it; true for these.
 */
bool rcv_cs_state_load(struct rcv_ins *in)
{
	struct rcv_op *m = &in->op[0];

	if (in->nops != 1 || m->type != RCV_OP_MEM)
		return false;
	switch (in->id) {
	case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
		m->size = 0;	/* 512: more than an operand holds */
		m->access = CS_AC_READ;
		return true;
	case X86_INS_XRSTOR: case X86_INS_XRSTOR64: case X86_INS_XRSTORS:
	case X86_INS_XRSTORS64:
		m->size = 0;
		m->access = CS_AC_READ;
		return true;
	case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
		return true;
	default:
		return false;
	}
}

/*
 * An x87 instruction's memory operand (opcodes D8-DF): capstone 4's
 * access flags are not trusted (frstor's 108-byte area is "4 bytes
 * written").  These store (SDM Vol. 1 8.x and Vol. 2 for each), every
 * other one only reads: false for a store, true (and the access set)
 * for a load.  frstor reads 108 bytes in 64-bit mode (8.1.10): size 0.
 */
bool rcv_cs_x87_mem(struct rcv_ins *in)
{
	struct rcv_op *m = &in->op[0];

	if (!in->nops || m->type != RCV_OP_MEM)
		return false;
	switch (in->id) {
	case X86_INS_FST: case X86_INS_FSTP: case X86_INS_FSTPNCE:
	case X86_INS_FIST: case X86_INS_FISTP: case X86_INS_FISTTP:
	case X86_INS_FBSTP: case X86_INS_FNSTCW: case X86_INS_FNSTSW:
	case X86_INS_FNSTENV: case X86_INS_FNSAVE:
		m->access = CS_AC_WRITE;
		return false;
	case X86_INS_FRSTOR:
		m->size = 0;
		/* fall through */
	default:
		m->access = CS_AC_READ;
		return true;
	}
}

/* Instructions whose register effects rcv_sem.c models itself (their
 * written registers still come from capstone too).
 */
bool rcv_cs_modelled(unsigned int id)
{
	switch (id) {
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX:
	case X86_INS_MOVSXD: case X86_INS_LEA: case X86_INS_ADD:
	case X86_INS_SUB: case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR:
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_ADC:
	case X86_INS_SBB: case X86_INS_INC: case X86_INS_DEC:
	case X86_INS_NEG: case X86_INS_NOT: case X86_INS_PUSH:
	case X86_INS_POP: case X86_INS_CALL: case X86_INS_RET:
	case X86_INS_LEAVE: case X86_INS_CDQE: case X86_INS_CWDE:
	case X86_INS_CDQ: case X86_INS_CQO: case X86_INS_BSWAP:
	case X86_INS_SHL: case X86_INS_SHR: case X86_INS_SAR:
	case X86_INS_IMUL: case X86_INS_JMP: case X86_INS_NOP:
	case X86_INS_ENDBR64: case X86_INS_SYSCALL: case X86_INS_CPUID:
	case X86_INS_RDTSC: case X86_INS_RDTSCP: case X86_INS_XGETBV:
	case X86_INS_ROL: case X86_INS_ROR: case X86_INS_MUL:
	case X86_INS_DIV: case X86_INS_IDIV: case X86_INS_STC:
	case X86_INS_CLC: case X86_INS_CMC: case X86_INS_STD:
	case X86_INS_CLD: case X86_INS_XCHG:
		return true;
	default:
		return rcv_cond_jump(id) || rcv_cond_of(id) >= 0;
	}
}

bool rcv_vsib(const uint8_t *raw, size_t len)
{
	size_t i = 0;

	/* Legacy prefixes may precede VEX and EVEX (REX may not). */
	while (i < len && (raw[i] == 0x66 || raw[i] == 0x67 ||
			   raw[i] == 0xf2 || raw[i] == 0xf3 ||
			   raw[i] == 0xf0 || raw[i] == 0x2e ||
			   raw[i] == 0x36 || raw[i] == 0x3e ||
			   raw[i] == 0x26 || raw[i] == 0x64 || raw[i] == 0x65))
		i++;
	/* VEX3: C4, RXBmmmmm, WvvvvLpp, opcode (SDM Vol. 2A 2.3.5) */
	if (i + 3 < len && raw[i] == 0xc4)
		return (raw[i + 1] & 0x1f) == 2 &&
		       raw[i + 3] >= 0x90 && raw[i + 3] <= 0x93;
	/* EVEX: 62, P0 (mmm in bits 0-2), P1, P2, opcode (2.7.1) */
	if (i + 4 < len && raw[i] == 0x62) {
		uint8_t op = raw[i + 4];

		return (raw[i + 1] & 0x07) == 2 &&
		       ((op >= 0x90 && op <= 0x93) ||
			(op >= 0xa0 && op <= 0xa3) || op == 0xc6 ||
			op == 0xc7);
	}
	return false;
}

/* Condition code of jcc/setcc/cmovcc @id: 0..15 as in the opcode, or -1. */
int rcv_cond_of(unsigned int id)
{
	switch (id) {
	case X86_INS_JO: case X86_INS_SETO: case X86_INS_CMOVO: return 0;
	case X86_INS_JNO: case X86_INS_SETNO: case X86_INS_CMOVNO: return 1;
	case X86_INS_JB: case X86_INS_SETB: case X86_INS_CMOVB: return 2;
	case X86_INS_JAE: case X86_INS_SETAE: case X86_INS_CMOVAE: return 3;
	case X86_INS_JE: case X86_INS_SETE: case X86_INS_CMOVE: return 4;
	case X86_INS_JNE: case X86_INS_SETNE: case X86_INS_CMOVNE: return 5;
	case X86_INS_JBE: case X86_INS_SETBE: case X86_INS_CMOVBE: return 6;
	case X86_INS_JA: case X86_INS_SETA: case X86_INS_CMOVA: return 7;
	case X86_INS_JS: case X86_INS_SETS: case X86_INS_CMOVS: return 8;
	case X86_INS_JNS: case X86_INS_SETNS: case X86_INS_CMOVNS: return 9;
	case X86_INS_JP: case X86_INS_SETP: case X86_INS_CMOVP: return 10;
	case X86_INS_JNP: case X86_INS_SETNP: case X86_INS_CMOVNP: return 11;
	case X86_INS_JL: case X86_INS_SETL: case X86_INS_CMOVL: return 12;
	case X86_INS_JGE: case X86_INS_SETGE: case X86_INS_CMOVGE: return 13;
	case X86_INS_JLE: case X86_INS_SETLE: case X86_INS_CMOVLE: return 14;
	case X86_INS_JG: case X86_INS_SETG: case X86_INS_CMOVG: return 15;
	default: return -1;
	}
}
