// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's x86-64 semantics: capstone decodes, this table says
 * what an instruction does to the general-purpose registers, rflags and
 * memory, forward (emulation when the inputs are known) and backward
 * (inversion where it is exact).  An instruction not modelled here only
 * makes what capstone says it writes unknown; one capstone cannot decode
 * is a barrier.  Never a guess: a bit is known only when implied.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "disasm.h"
#include "rcv_internal.h"
#include "replay.h"

#define ARITH_FLAGS	0x8d5ull	/* CF PF AF ZF SF OF */
#define F_CF	0x001ull
#define F_PF	0x004ull
#define F_AF	0x010ull
#define F_ZF	0x040ull
#define F_SF	0x080ull
#define F_DF	0x400ull
#define F_OF	0x800ull
#define F_RF	0x10000ull

struct rcv_dec {
	csh cs;
	cs_insn *ci;
	struct dis *dis;	/* libopcodes, for what capstone 4 lacks */
};

int rcv_dec_new(struct rcv_dec **dp)
{
	struct rcv_dec *d = calloc(1, sizeof(*d));

	*dp = NULL;
	if (!d)
		return -RP_ERR_NOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		return -RP_ERR_NOMEM;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->ci = cs_malloc(d->cs);
	if (!d->ci) {
		cs_close(&d->cs);
		free(d);
		return -RP_ERR_NOMEM;
	}
	if (dis_new(&d->dis))
		d->dis = NULL;	/* then those stay barriers */
	*dp = d;
	return 0;
}

void rcv_dec_free(struct rcv_dec *d)
{
	if (!d)
		return;
	cs_free(d->ci, 1);
	cs_close(&d->cs);
	dis_free(d->dis);
	free(d);
}

uint64_t rcv_wmask(uint8_t c)
{
	switch (c) {
	case 1: return 0xffull;
	case 2: return 0xff00ull;
	case 3: return 0xffffull;
	case 4: return ~0ull;
	default: return 0;
	}
}

/* Capstone register -> GPR, size in bytes, shift; false for others. */
static bool gpr(unsigned int r, int *g, int *size, int *shift)
{
	static const unsigned int tab[16][5] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
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

static uint8_t wcode_of(int size, int shift)
{
	if (size >= 4)
		return 4;
	if (size == 2)
		return 3;
	return shift ? 2 : 1;
}

static void add_write(struct rcv_ins *in, int g, uint8_t c)
{
	uint8_t o = in->wcode[g];

	if (!o || o == c)
		in->wcode[g] = c;
	else
		in->wcode[g] = (o == 4 || c == 4) ? 4 : 3;
}

static int8_t mem_reg(unsigned int r)
{
	int g, size, shift;

	if (r == X86_REG_RIP)
		return RCV_RIP;
	if (!r)
		return -1;
	if (gpr(r, &g, &size, &shift) && size == 8)
		return (int8_t)g;
	return -2;		/* a base we do not model: unknown address */
}

/* Instructions that write memory without an explicit operand and that
 * rcv_writes() does not name.
 */
static bool implicit_store(unsigned int id)
{
	switch (id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_MOVSB: case X86_INS_MOVSW:
	case X86_INS_MOVSD: case X86_INS_MOVSQ: case X86_INS_MASKMOVDQU:
	case X86_INS_MASKMOVQ: case X86_INS_PUSHF: case X86_INS_PUSHFQ:
	case X86_INS_ENTER: case X86_INS_XSAVE: case X86_INS_XSAVEC:
	case X86_INS_XSAVEOPT: case X86_INS_FXSAVE: case X86_INS_FXSAVE64:
	case X86_INS_XSAVE64: case X86_INS_XSAVEC64: case X86_INS_XSAVEOPT64:
	case X86_INS_XSAVES: case X86_INS_XSAVES64: case X86_INS_CMPXCHG16B:
	case X86_INS_CMPXCHG8B:
		return true;
	default:
		return false;
	}
}

/* rflags bits capstone's eflags field says an instruction writes. */
static uint64_t flags_written(uint64_t e)
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

/* Conditional jumps (their one operand is a target). */
static bool cond_of_jcc(unsigned int id)
{
	switch (id) {
	case X86_INS_JO: case X86_INS_JNO: case X86_INS_JB: case X86_INS_JAE:
	case X86_INS_JE: case X86_INS_JNE: case X86_INS_JBE: case X86_INS_JA:
	case X86_INS_JS: case X86_INS_JNS: case X86_INS_JP: case X86_INS_JNP:
	case X86_INS_JL: case X86_INS_JGE: case X86_INS_JLE: case X86_INS_JG:
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_LOOP:
	case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return true;
	default:
		return false;
	}
}

/* Is @r (after '%') a vector or mask register? */
static bool vector_reg(const char *r)
{
	return !strncmp(r, "xmm", 3) || !strncmp(r, "ymm", 3) ||
	       !strncmp(r, "zmm", 3) ||
	       (r[0] == 'k' && r[1] >= '0' && r[1] <= '7');
}

/*
 * Capstone 4 does not know AVX-512 (EVEX) instructions and their VEX mask
 * moves, which glibc's string functions use.  libopcodes does: in its AT&T text the
 * destination is the last operand.  An instruction whose operands are all
 * vector or mask registers writes no general-purpose register and no
 * memory (flags: unknown); one whose last operand is a 32- or 64-bit
 * general-purpose register writes that register whole.  Anything else
 * (a memory destination) stays a barrier.
 */
static void vector_only(struct rcv_dec *d, const uint8_t *raw, size_t len,
			uint64_t ip, struct rcv_ins *in)
{
	char text[256], *ops, *last, *p;
	int g, size, shift, n;

	if (!d->dis || (raw[0] != 0x62 && raw[0] != 0xc4 && raw[0] != 0xc5))
		return;	/* EVEX and VEX only */
	n = dis_insn(d->dis, raw, len, ip, text, sizeof(text));
	if (n != (int)len || strchr(text, '('))
		return;	/* a memory operand: barrier */
	ops = strpbrk(text, " \t");
	if (!ops)
		return;
	last = strrchr(ops, ',');
	last = last ? last + 1 : ops;
	while (*last == ' ' || *last == '\t')
		last++;
	p = strchr(last, '{');	/* {%k1}{z}: the mask, not the destination */
	if (p)
		*p = '\0';
	/* Every operand but the last: registers or immediates. */
	for (p = ops; (p = strchr(p, '%')) && p < last; p++)
		if (!vector_reg(p + 1))
			return;
	if (*last != '%')
		return;
	if (!vector_reg(last + 1)) {
		unsigned int r;

		for (r = X86_REG_INVALID + 1; r < X86_REG_ENDING; r++) {
			const char *name = cs_reg_name(d->cs, r);

			if (name && !strcmp(name, last + 1))
				break;
		}
		if (r == X86_REG_ENDING || !gpr(r, &g, &size, &shift) ||
		    size < 4)
			return;
		in->wcode[g] = 4;
	}
	in->flags = RCV_I_BAD;	/* decoded, but not by capstone */
	in->fw = ARITH_FLAGS | F_DF;
}

/*
 * Instructions whose first (Intel order: destination) operand is only
 * read.  For every other instruction the first operand counts as written
 * whatever capstone's access flags say: capstone 4 marks some AVX-512
 * stores' memory destination as read only (vmovdqu64 [rdi], ymm16), and a
 * missed write would give wrong values.
 */
static bool op0_read_only(unsigned int id, unsigned int nops)
{
	switch (id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_JMP:
	case X86_INS_NOP: case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
	case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT: case X86_INS_CLWB:
	case X86_INS_DIV: case X86_INS_IDIV: case X86_INS_MUL:
		return true;
	case X86_INS_IMUL:
		return nops == 1;
	default:
		return cond_of_jcc(id);
	}
}

static int cond_of(unsigned int id);

/* Instructions whose register effects rcv_sem.c models itself (their
 * written registers still come from capstone too).
 */
static bool modelled(unsigned int id)
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
		return true;
	default:
		return cond_of_jcc(id) || cond_of(id) >= 0;
	}
}

void rcv_decode(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		size_t len, uint8_t iclass, struct rcv_ins *in)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;
	size_t size = len;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;
	cs_x86 *x;
	int i, g, sz, sh;

	memset(in, 0, sizeof(*in));
	in->ip = ip;
	in->len = (uint8_t)len;
	in->next = ip + len;
	in->iclass = iclass;
	if (!cs_disasm_iter(d->cs, &code, &size, &addr, d->ci) ||
	    d->ci->size != len) {
		in->flags = RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR;
		if (iclass == RP_IC_OTHER)
			vector_only(d, raw, len, ip, in);
		return;
	}
	in->id = (uint16_t)d->ci->id;
	x = &d->ci->detail->x86;
	if (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE)
		in->flags |= RCV_I_REP;
	for (i = 0; i < x->op_count && i < 3; i++) {
		const cs_x86_op *o = &x->operands[i];
		struct rcv_op *p = &in->op[i];

		p->size = o->size;
		p->access = o->access;
		switch (o->type) {
		case X86_OP_REG:
			if (gpr(o->reg, &g, &sz, &sh)) {
				p->type = RCV_OP_REG;
				p->reg = (int8_t)g;
				p->shift = (uint8_t)sh;
				p->size = (uint8_t)sz;
			} else {
				p->type = RCV_OP_OTHER;
			}
			break;
		case X86_OP_IMM:
			p->type = RCV_OP_IMM;
			p->imm = o->imm;
			break;
		case X86_OP_MEM:
			p->type = RCV_OP_MEM;
			p->base = mem_reg(o->mem.base);
			p->index = mem_reg(o->mem.index);
			p->scale = (uint8_t)o->mem.scale;
			p->imm = o->mem.disp;
			p->seg = o->mem.segment == X86_REG_INVALID ? 0 :
				 o->mem.segment == X86_REG_FS ? 1 :
				 o->mem.segment == X86_REG_GS ? 2 : 3;
			if (o->mem.segment == X86_REG_CS ||
			    o->mem.segment == X86_REG_DS ||
			    o->mem.segment == X86_REG_ES ||
			    o->mem.segment == X86_REG_SS)
				p->seg = 0;	/* base 0 in 64-bit mode */
			break;
		default:
			p->type = RCV_OP_OTHER;
			break;
		}
	}
	in->nops = (uint8_t)(x->op_count < 3 ? x->op_count : 3);
	if (in->nops && !op0_read_only(in->id, in->nops) &&
	    (in->op[0].type == RCV_OP_MEM || in->op[0].type == RCV_OP_REG))
		in->op[0].access |= CS_AC_WRITE;
	for (i = 0; i < in->nops; i++) {
		const struct rcv_op *p = &in->op[i];

		if (p->type == RCV_OP_MEM && (p->access & CS_AC_WRITE) &&
		    (p->base == -2 || p->index == -2 || p->seg == 3 ||
		     !p->size || p->size > 64))
			in->flags |= RCV_I_MEMBAR;
	}
	if (cs_regs_access(d->cs, d->ci, rr, &nr, rw, &nw) != CS_ERR_OK) {
		in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
		return;
	}
	for (i = 0; i < nw; i++) {
		if (rw[i] == X86_REG_EFLAGS && !x->eflags)
			in->fw |= ARITH_FLAGS | F_DF;
		else if (gpr(rw[i], &g, &sz, &sh))
			add_write(in, g, wcode_of(sz, sh));
	}
	/* Explicit register operands written (cs_regs_access has them, but
	 * be sure).
	 */
	for (i = 0; i < in->nops; i++)
		if (in->op[i].type == RCV_OP_REG &&
		    (in->op[i].access & CS_AC_WRITE))
			add_write(in, in->op[i].reg,
				  wcode_of(in->op[i].size, in->op[i].shift));
	/* Flags written, by capstone's table; any but the arithmetic flags
	 * and DF: all of them.
	 */
	in->fw |= flags_written(x->eflags);
	if (x->eflags & (X86_EFLAGS_MODIFY_TF | X86_EFLAGS_MODIFY_IF |
			 X86_EFLAGS_MODIFY_NT | X86_EFLAGS_MODIFY_RF |
			 X86_EFLAGS_RESET_IF | X86_EFLAGS_RESET_TF |
			 X86_EFLAGS_RESET_NT | X86_EFLAGS_SET_IF |
			 X86_EFLAGS_RESET_RF | X86_EFLAGS_RESET_AC |
			 X86_EFLAGS_RESET_0F))
		in->fw = ~0ull;
	if (implicit_store(in->id))
		in->flags |= RCV_I_MEMBAR;
	if (!modelled(in->id)) {
		/* Capstone 4's lists miss some writes (cmpxchg's rax, mulx's
		 * second destination): every explicit general-purpose
		 * register of an instruction we do not model counts as
		 * written, and so do the flags.
		 */
		for (i = 0; i < in->nops; i++)
			if (in->op[i].type == RCV_OP_REG)
				add_write(in, in->op[i].reg, 4);
		in->fw |= ARITH_FLAGS | F_DF;
	}
	switch (in->id) {
	case X86_INS_CMPXCHG:
		in->wcode[RP_REG_RAX] = 4;
		break;
	case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
	case X86_INS_CWD: case X86_INS_CQO: case X86_INS_CDQ:
		in->wcode[RP_REG_RAX] = in->wcode[RP_REG_RDX] = 4;
		break;
	case X86_INS_LAHF: case X86_INS_CBW: case X86_INS_CWDE:
	case X86_INS_CDQE:
		in->wcode[RP_REG_RAX] = 4;
		break;
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD:
	case X86_INS_LODSQ:
		in->wcode[RP_REG_RAX] = in->wcode[RP_REG_RSI] = 4;
		in->wcode[RP_REG_RCX] = 4;
		break;
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_SCASB: case X86_INS_SCASW:
	case X86_INS_SCASD: case X86_INS_SCASQ:
		in->wcode[RP_REG_RDI] = in->wcode[RP_REG_RCX] = 4;
		break;
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
	case X86_INS_MOVSQ: case X86_INS_CMPSB: case X86_INS_CMPSW:
	case X86_INS_CMPSD: case X86_INS_CMPSQ:
		in->wcode[RP_REG_RDI] = in->wcode[RP_REG_RCX] = 4;
		in->wcode[RP_REG_RSI] = 4;
		break;
	default:
		break;
	}
	switch (in->id) {
	case X86_INS_SYSCALL:
		in->flags |= RCV_I_SYSCALL;
		in->wcode[RP_REG_RAX] = in->wcode[RP_REG_RCX] = 4;
		in->wcode[RP_REG_R11] = 4;
		in->fw = ~0ull;
		break;
	case X86_INS_CPUID:
		in->wcode[RP_REG_RAX] = in->wcode[RP_REG_RBX] = 4;
		in->wcode[RP_REG_RCX] = in->wcode[RP_REG_RDX] = 4;
		break;
	case X86_INS_RDTSCP:
		in->wcode[RP_REG_RCX] = 4;
		/* fall through */
	case X86_INS_RDTSC:
	case X86_INS_XGETBV:
	case X86_INS_RDPMC:
		in->wcode[RP_REG_RAX] = in->wcode[RP_REG_RDX] = 4;
		break;
	case X86_INS_POPF: case X86_INS_POPFQ: case X86_INS_SAHF:
		in->fw = ~0ull;
		break;
	case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO:
	case X86_INS_UD2: case X86_INS_SYSENTER: case X86_INS_IRET:
	case X86_INS_IRETQ: case X86_INS_HLT:
		in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
		break;
	default:
		break;
	}
}

/* ---- values ---------------------------------------------------------- */

static inline uint64_t wmask(unsigned int size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

static inline struct rcv_val known(uint64_t v)
{
	return (struct rcv_val){ v, ~0ull };
}

static inline bool full(struct rcv_val x, unsigned int size)
{
	return (x.k & wmask(size)) == wmask(size);
}

bool rcv_merge(struct rcv_val *to, struct rcv_val from, uint64_t *conflicts)
{
	uint64_t both = to->k & from.k, add = from.k & ~to->k;

	if ((to->v ^ from.v) & both)
		(*conflicts)++;
	if (!add)
		return false;
	to->v = (to->v & ~add) | (from.v & add);
	to->k |= add;
	return true;
}

/* Register operand's bits (low @size bytes, shifted down). */
static struct rcv_val reg_get(const struct rcv_state *s, int g,
			      unsigned int size, unsigned int shift)
{
	uint64_t m = wmask(size);
	struct rcv_val r = s->r[g];

	return (struct rcv_val){ (r.v >> shift) & m, (r.k >> shift) & m };
}

/* Sets the low @size bytes (at @shift) of GPR @g in @s to @x: 4- and
 * 8-byte writes also set the upper bits (zero for 4).
 */
static void reg_set(struct rcv_state *s, int g, unsigned int size,
		    unsigned int shift, struct rcv_val x)
{
	uint64_t m = wmask(size);

	if (size == 4) {
		x.v &= m;
		x.k = (x.k & m) | ~m;
		m = ~0ull;
		size = 8;
	}
	if (size == 8) {
		s->r[g].v = x.v & x.k;
		s->r[g].k = x.k;
		return;
	}
	s->r[g].k = (s->r[g].k & ~(m << shift)) | ((x.k & m) << shift);
	s->r[g].v = ((s->r[g].v & ~(m << shift)) | ((x.v & m) << shift)) &
		    s->r[g].k;
}

struct rcv_val rcv_addr(const struct rcv_ctx *c, const struct rcv_ins *in,
			const struct rcv_op *op, const struct rcv_state *s)
{
	uint64_t a = (uint64_t)op->imm;
	struct rcv_val b;

	if (op->base == -2 || op->index == -2 || op->seg == 3)
		return (struct rcv_val){ 0, 0 };
	if (op->base == RCV_RIP) {
		a += in->ip + in->len;
	} else if (op->base >= 0) {
		b = s->r[op->base];
		if (b.k != ~0ull)
			return (struct rcv_val){ 0, 0 };
		a += b.v;
	}
	if (op->index >= 0 && op->index != RCV_RIP) {
		b = s->r[op->index];
		if (b.k != ~0ull)
			return (struct rcv_val){ 0, 0 };
		a += b.v * op->scale;
	}
	if (op->seg) {
		b = op->seg == 1 ? c->fs_base : c->gs_base;
		if (b.k != ~0ull)
			return (struct rcv_val){ 0, 0 };
		a += b.v;
	}
	return known(a);
}

/* Operand value before the instruction, low @size bytes. */
static struct rcv_val op_get(const struct rcv_ctx *c, uint64_t i,
			     const struct rcv_ins *in, const struct rcv_op *op,
			     const struct rcv_state *s, unsigned int size)
{
	struct rcv_val a;

	switch (op->type) {
	case RCV_OP_REG:
		return reg_get(s, op->reg, size, op->shift);
	case RCV_OP_IMM:
		return known((uint64_t)op->imm & wmask(size));
	case RCV_OP_MEM:
		a = rcv_addr(c, in, op, s);
		if (a.k != ~0ull || !c->mem)
			break;
		a = c->mem(c->mctx, i, a.v, size);
		a.v &= wmask(size);
		a.k &= wmask(size);
		return a;
	default:
		break;
	}
	return (struct rcv_val){ 0, 0 };
}

/* ---- flags ----------------------------------------------------------- */

static uint64_t pf_zf_sf(uint64_t r, unsigned int size)
{
	uint64_t f = 0;

	if (!__builtin_parity((unsigned int)(r & 0xff)))
		f |= F_PF;
	if (!(r & wmask(size)))
		f |= F_ZF;
	if (r >> (8 * size - 1) & 1)
		f |= F_SF;
	return f;
}

static uint64_t flags_add(uint64_t a, uint64_t b, uint64_t cin,
			  unsigned int size)
{
	uint64_t m = wmask(size), r = (a + b + cin) & m, f;
	unsigned int top = 8 * size - 1;

	f = pf_zf_sf(r, size);
	if (size == 8 ? (r < a || (cin && r == a)) : ((a + b + cin) >> (8 * size)))
		f |= F_CF;
	if (((a ^ r) & (b ^ r)) >> top & 1)
		f |= F_OF;
	if ((a ^ b ^ r) & 0x10)
		f |= F_AF;
	return f;
}

static uint64_t flags_sub(uint64_t a, uint64_t b, uint64_t cin,
			  unsigned int size)
{
	uint64_t m = wmask(size), r = (a - b - cin) & m, f;
	unsigned int top = 8 * size - 1;

	f = pf_zf_sf(r, size);
	if (a < b || (cin && a == b))
		f |= F_CF;
	if (((a ^ b) & (a ^ r)) >> top & 1)
		f |= F_OF;
	if ((a ^ b ^ r) & 0x10)
		f |= F_AF;
	return f;
}

/* Condition code of jcc/setcc/cmovcc @id: 0..15 as in the opcode, or -1. */
static int cond_of(unsigned int id)
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

/* Evaluates condition @cc on @f: 1 true, 0 false, -1 unknown. */
static int cond_eval(int cc, struct rcv_val f)
{
	static const uint64_t need[8] = {
		F_OF, F_CF, F_ZF, F_CF | F_ZF, F_SF, F_PF, F_SF | F_OF,
		F_SF | F_OF | F_ZF,
	};
	bool r;

	if ((f.k & need[cc >> 1]) != need[cc >> 1])
		return -1;
	switch (cc >> 1) {
	case 0: r = f.v & F_OF; break;
	case 1: r = f.v & F_CF; break;
	case 2: r = f.v & F_ZF; break;
	case 3: r = (f.v & F_CF) || (f.v & F_ZF); break;
	case 4: r = f.v & F_SF; break;
	case 5: r = f.v & F_PF; break;
	case 6: r = !!(f.v & F_SF) != !!(f.v & F_OF); break;
	default: r = (f.v & F_ZF) || !!(f.v & F_SF) != !!(f.v & F_OF); break;
	}
	return (cc & 1) ? !r : r;
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

void rcv_reads(const struct rcv_ctx *c, const struct rcv_ins *in,
	       const struct rcv_state *pre, const struct rcv_state *post,
	       struct rcv_acc *rd)
{
	const struct rcv_val rsp = pre->r[RP_REG_RSP];
	const struct rcv_op *m;

	memset(rd, 0, sizeof(*rd));
	switch (in->id) {
	case X86_INS_POP:
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
	default:
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

	(void)post;
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
	acc_at(wr, rcv_addr(c, in, m, pre), m->size);
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

/* ---- one instruction forward and backward ---------------------------- */

/* The state after @in as far as passing through tells: bits it does not
 * write stay.
 */
static void pass(const struct rcv_ins *in, const struct rcv_state *from,
		 struct rcv_state *to)
{
	int g;

	for (g = 0; g < 16; g++) {
		uint64_t keep = ~rcv_wmask(in->wcode[g]);

		to->r[g].k = from->r[g].k & keep;
		to->r[g].v = from->r[g].v & keep;
	}
	/* RF: before an instruction it tells nothing about after it. */
	to->r[RCV_FLAGS].k = from->r[RCV_FLAGS].k & ~in->fw & ~F_RF;
	to->r[RCV_FLAGS].v = from->r[RCV_FLAGS].v & ~in->fw & ~F_RF;
}

static void set_flags(struct rcv_state *s, uint64_t mask, uint64_t f)
{
	s->r[RCV_FLAGS].k |= mask;
	s->r[RCV_FLAGS].v = (s->r[RCV_FLAGS].v & ~mask) | (f & mask);
}

/* Is the instruction one whose emulation below is exact? */
static bool arith2(unsigned int id)
{
	switch (id) {
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND:
	case X86_INS_OR: case X86_INS_XOR: case X86_INS_CMP:
	case X86_INS_TEST: case X86_INS_ADC: case X86_INS_SBB:
		return true;
	default:
		return false;
	}
}

static struct rcv_val sext(struct rcv_val x, unsigned int from)
{
	unsigned int b = 8 * from;

	if (from >= 8)
		return x;
	if (!(x.k >> (b - 1) & 1)) {
		x.k &= wmask(from);
		return x;
	}
	if (x.v >> (b - 1) & 1)
		x.v |= ~wmask(from);
	x.k |= ~wmask(from);
	return x;
}

static uint64_t bswap(uint64_t v, unsigned int size)
{
	return size == 8 ? __builtin_bswap64(v) :
	       (uint64_t)__builtin_bswap32((uint32_t)v);
}

/* Forward: fills @o (already passed through) with what @in computes. */
static void emulate(const struct rcv_ctx *c, uint64_t i,
		    const struct rcv_ins *in, const struct rcv_state *s,
		    struct rcv_state *o)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size, id = in->id;
	struct rcv_val a, b, fl = s->r[RCV_FLAGS];
	uint64_t r = 0, f;
	int cc;

	if (in->flags & (RCV_I_BARRIER | RCV_I_REP))
		return;
	switch (id) {
	case X86_INS_MOV:
		if (in->nops != 2 || d->type != RCV_OP_REG)
			return;
		a = op_get(c, i, in, src, s, sz);
		reg_set(o, d->reg, sz, d->shift, a);
		return;
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (in->nops != 2 || d->type != RCV_OP_REG)
			return;
		a = op_get(c, i, in, src, s, src->size);
		if (id != X86_INS_MOVZX)
			a = sext(a, src->size);
		else
			a.k |= ~wmask(src->size);
		reg_set(o, d->reg, sz, d->shift, a);
		return;
	case X86_INS_LEA:
		if (in->nops != 2 || d->type != RCV_OP_REG || sz < 4)
			return;
		a = rcv_addr(c, in, src, s);
		if (src->seg)
			return;
		reg_set(o, d->reg, sz, 0, a);
		return;
	case X86_INS_CDQE:
		a = sext(reg_get(s, RP_REG_RAX, 4, 0), 4);
		reg_set(o, RP_REG_RAX, 8, 0, a);
		return;
	case X86_INS_CWDE:
		a = sext(reg_get(s, RP_REG_RAX, 2, 0), 2);
		reg_set(o, RP_REG_RAX, 4, 0, a);
		return;
	case X86_INS_CDQ:
	case X86_INS_CQO:
		sz = id == X86_INS_CDQ ? 4 : 8;
		a = reg_get(s, RP_REG_RAX, sz, 0);
		if (a.k >> (8 * sz - 1) & 1)
			reg_set(o, RP_REG_RDX, sz, 0,
				known(a.v >> (8 * sz - 1) & 1 ? ~0ull : 0));
		return;
	case X86_INS_PUSH:
	case X86_INS_CALL:
		a = s->r[RP_REG_RSP];
		if (a.k == ~0ull)
			o->r[RP_REG_RSP] = known(a.v - 8);
		return;
	case X86_INS_POP:
		a = s->r[RP_REG_RSP];
		if (d->type != RCV_OP_REG || d->size != 8)
			return;
		if (a.k == ~0ull && d->reg != RP_REG_RSP)
			o->r[RP_REG_RSP] = known(a.v + 8);
		if (a.k == ~0ull && c->mem)
			reg_set(o, d->reg, 8, 0, c->mem(c->mctx, i, a.v, 8));
		return;
	case X86_INS_RET:
		a = s->r[RP_REG_RSP];
		if (a.k == ~0ull)
			o->r[RP_REG_RSP] = known(a.v + 8 +
				(in->nops == 1 ? (uint64_t)d->imm : 0));
		return;
	case X86_INS_LEAVE:
		a = s->r[RP_REG_RBP];
		if (a.k != ~0ull)
			return;
		o->r[RP_REG_RSP] = known(a.v + 8);
		if (c->mem)
			o->r[RP_REG_RBP] = c->mem(c->mctx, i, a.v, 8);
		return;
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_NOT:
		a = op_get(c, i, in, d, s, sz);
		if (!full(a, sz))
			return;
		if (id == X86_INS_NOT) {
			r = ~a.v & wmask(sz);
		} else if (id == X86_INS_NEG) {
			r = -a.v & wmask(sz);
			f = flags_sub(0, a.v, 0, sz);
			set_flags(o, ARITH_FLAGS, f);
		} else {
			r = (id == X86_INS_INC ? a.v + 1 : a.v - 1) & wmask(sz);
			f = id == X86_INS_INC ? flags_add(a.v, 1, 0, sz) :
						flags_sub(a.v, 1, 0, sz);
			set_flags(o, ARITH_FLAGS & ~F_CF, f);
		}
		if (d->type == RCV_OP_REG)
			reg_set(o, d->reg, sz, d->shift, known(r));
		return;
	case X86_INS_BSWAP:
		a = reg_get(s, d->reg, sz, 0);
		if (full(a, sz))
			reg_set(o, d->reg, sz, 0, known(bswap(a.v, sz)));
		return;
	case X86_INS_XCHG:
		if (in->nops != 2 || d->type != RCV_OP_REG ||
		    src->type != RCV_OP_REG)
			return;
		a = reg_get(s, d->reg, sz, d->shift);
		b = reg_get(s, src->reg, sz, src->shift);
		reg_set(o, src->reg, sz, src->shift, a);
		reg_set(o, d->reg, sz, d->shift, b);
		return;
	case X86_INS_SHL: case X86_INS_SHR: case X86_INS_SAR: {
		unsigned int n;

		a = op_get(c, i, in, d, s, sz);
		b = in->nops == 2 ? op_get(c, i, in, src, s, 1) : known(1);
		if (!full(a, sz) || !full(b, 1))
			return;
		n = (unsigned int)b.v & (sz == 8 ? 63 : 31);
		if (!n)
			return;	/* flags pass as unknown: fine */
		if (id == X86_INS_SHL)
			r = n >= 8 * sz ? 0 : a.v << n;
		else if (id == X86_INS_SHR)
			r = n >= 8 * sz ? 0 : a.v >> n;
		else
			r = (uint64_t)((int64_t)sext(a, sz).v >>
				       (n > 63 ? 63 : n));
		if (d->type == RCV_OP_REG)
			reg_set(o, d->reg, sz, d->shift,
				known(r & wmask(sz)));
		return;
	}
	case X86_INS_IMUL:
		if (in->nops < 2 || d->type != RCV_OP_REG)
			return;
		a = op_get(c, i, in, src, s, sz);
		b = in->nops == 3 ? op_get(c, i, in, &in->op[2], s, sz) :
				    op_get(c, i, in, d, s, sz);
		if (full(a, sz) && full(b, sz))
			reg_set(o, d->reg, sz, d->shift,
				known((a.v * b.v) & wmask(sz)));
		return;
	default:
		break;
	}
	cc = cond_of(id);
	if (cc >= 0 && in->iclass == RP_IC_OTHER) {
		int t = cond_eval(cc, fl);

		if (t < 0)
			return;
		if (id >= X86_INS_SETAE && id <= X86_INS_SETS &&
		    d->type == RCV_OP_REG) {
			reg_set(o, d->reg, 1, d->shift, known((uint64_t)t));
			return;
		}
		if (d->type != RCV_OP_REG || in->nops != 2)
			return;
		/* cmovcc: a 32-bit form zeroes the upper half either way. */
		a = t ? op_get(c, i, in, src, s, sz) :
			reg_get(s, d->reg, sz, 0);
		reg_set(o, d->reg, sz, 0, a);
		return;
	}
	if (!arith2(id) || in->nops != 2)
		return;
	a = op_get(c, i, in, d, s, sz);
	b = op_get(c, i, in, src, s, sz);
	if (src->type == RCV_OP_IMM)
		b = known((uint64_t)src->imm & wmask(sz));
	/* xor r, r and sub r, r: zero whatever r was. */
	if ((id == X86_INS_XOR || id == X86_INS_SUB) &&
	    d->type == RCV_OP_REG && src->type == RCV_OP_REG &&
	    d->reg == src->reg && d->shift == src->shift) {
		a = known(0);
		b = known(0);
	}
	if (!full(a, sz) || !full(b, sz))
		return;
	switch (id) {
	case X86_INS_ADD:
		r = a.v + b.v;
		f = flags_add(a.v, b.v, 0, sz);
		break;
	case X86_INS_ADC:
	case X86_INS_SBB:
		if (!(fl.k & F_CF))
			return;
		r = id == X86_INS_ADC ? a.v + b.v + (fl.v & 1) :
					a.v - b.v - (fl.v & 1);
		f = id == X86_INS_ADC ? flags_add(a.v, b.v, fl.v & 1, sz) :
					flags_sub(a.v, b.v, fl.v & 1, sz);
		break;
	case X86_INS_SUB:
	case X86_INS_CMP:
		r = a.v - b.v;
		f = flags_sub(a.v, b.v, 0, sz);
		break;
	default:
		r = id == X86_INS_OR ? a.v | b.v :
		    id == X86_INS_XOR ? a.v ^ b.v : a.v & b.v;
		f = pf_zf_sf(r & wmask(sz), sz);
		/* CF and OF cleared, AF undefined. */
		set_flags(o, ARITH_FLAGS & ~F_AF, f);
		if (id != X86_INS_TEST && d->type == RCV_OP_REG)
			reg_set(o, d->reg, sz, d->shift,
				known(r & wmask(sz)));
		return;
	}
	set_flags(o, ARITH_FLAGS, f);
	if (id != X86_INS_CMP && d->type == RCV_OP_REG)
		reg_set(o, d->reg, sz, d->shift, known(r & wmask(sz)));
}

static bool merge_state(struct rcv_state *to, const struct rcv_state *from,
			uint64_t *conflicts)
{
	bool ch = false;
	int g;

	for (g = 0; g < RCV_NREG; g++)
		ch |= rcv_merge(&to->r[g], from->r[g], conflicts);
	return ch;
}

bool rcv_forward(const struct rcv_ctx *c, uint64_t i,
		 const struct rcv_ins *in, const struct rcv_state *pre,
		 struct rcv_state *post, uint64_t *conflicts)
{
	struct rcv_state o;

	if (in->flags & RCV_I_BARRIER)
		return false;
	pass(in, pre, &o);
	/* An instruction that completes clears RF (a fault's saved rflags,
	 * the end of a crash, has it set).
	 */
	o.r[RCV_FLAGS].k &= ~F_RF;
	o.r[RCV_FLAGS].v &= ~F_RF;
	if (in->fw != ~0ull)
		o.r[RCV_FLAGS].k |= F_RF;
	emulate(c, i, in, pre, &o);
	return merge_state(post, &o, conflicts);
}

/* Sets bits of @x (low @size at @shift, an 8- or 4-byte write sets only the
 * low half for 4) in the partial state @p.
 */
static void learn(struct rcv_state *p, int g, unsigned int size,
		  unsigned int shift, struct rcv_val x)
{
	uint64_t m = wmask(size);

	x.k &= m;
	x.v &= x.k;
	p->r[g].k |= x.k << shift;
	p->r[g].v |= x.v << shift;
}

bool rcv_backward(const struct rcv_ctx *c, uint64_t i,
		  const struct rcv_ins *in, struct rcv_state *pre,
		  const struct rcv_state *post, uint64_t *conflicts)
{
	const struct rcv_op *d = &in->op[0], *src = &in->op[1];
	unsigned int sz = d->size, id = in->id;
	struct rcv_state p;
	struct rcv_val a, b;
	struct rcv_acc w;

	if (in->flags & RCV_I_BARRIER)
		return false;
	pass(in, post, &p);
	if (in->flags & RCV_I_REP)
		return merge_state(pre, &p, conflicts);
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
		if (d->type == RCV_OP_REG && d->size == 8 &&
		    d->reg != RP_REG_RSP && a.k == ~0ull)
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
		/* A store: the register holds what memory holds after. */
		if (d->type == RCV_OP_MEM && src->type == RCV_OP_REG &&
		    c->mem) {
			rcv_writes(c, in, pre, post, &w);
			if (w.addr_known)
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
		b = reg_get(post, d->reg, sz, 0);
		if (full(b, sz))
			learn(&p, d->reg, sz, 0, known(bswap(b.v, sz)));
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
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_XOR:
		if (in->nops != 2 || d->type != RCV_OP_REG)
			break;
		if (src->type == RCV_OP_REG && src->reg == d->reg)
			break;
		b = reg_get(post, d->reg, sz, d->shift);
		a = src->type == RCV_OP_IMM ?
		    known((uint64_t)src->imm & wmask(sz)) :
		    src->type == RCV_OP_REG ?
		    reg_get(post, src->reg, sz, src->shift) :
		    op_get(c, i, in, src, pre, sz);
		if (!full(b, sz) || !full(a, sz))
			break;
		b.v = id == X86_INS_ADD ? b.v - a.v : id == X86_INS_SUB ?
		      b.v + a.v : b.v ^ a.v;
		learn(&p, d->reg, sz, d->shift, known(b.v));
		break;
	default:
		break;
	}
	/* A conditional branch's direction (in->next is where the trace
	 * went) tells single-flag conditions.
	 */
	if (in->iclass == RP_IC_COND && cond_of(id) >= 0 &&
	    in->nops == 1 && in->op[0].type == RCV_OP_IMM &&
	    (uint64_t)in->op[0].imm != in->ip + in->len) {
		static const int8_t one[8] = { 11, 0, 6, -1, 7, 2, -1, -1 };
		int cc = cond_of(id);
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
	return merge_state(pre, &p, conflicts);
}
