// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's decoder: capstone 4 in detail mode turned into
 * struct rcv_ins (operands, the registers and flags each instruction
 * writes, barriers), with the corrections capstone 4 needs (memory
 * destinations it marks read-only, register writes its lists miss,
 * AVX-512 it cannot decode, read through libopcodes' text).  What the
 * instructions do is rcv_sem.c; what capstone's ids and registers are
 * (its tables) is rcv_dclass.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "disasm.h"
#include "rcv_dclass.h"
#include "rcv_internal.h"
#include "replay.h"
#include "rp_internal.h"

/*
 * Decoded instructions by address and bytes: a loop's instructions are
 * decoded once, not once per iteration (capstone was 42% of a window's
 * cost, callgrind).  A decode depends on nothing but (ip, bytes, class).
 */
#define RCV_DCACHE	4096	/* entries, a power of two */

struct dcache {
	uint64_t ip;
	uint8_t len, iclass;
	bool used;
	uint8_t raw[15];
	struct rcv_ins in;
};

struct rcv_dec {
	csh cs;
	cs_insn *ci;
	struct dis *dis;	/* libopcodes, for what capstone 4 lacks */
	struct dcache *cache;	/* RCV_DCACHE entries, or NULL */
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
	d->cache = calloc(RCV_DCACHE, sizeof(*d->cache));	/* optional */
	*dp = d;
	return 0;
}

int rcv_dec_shared(struct rp_session *s, struct rcv_dec **dp)
{
	int ret = s->rcv_dec ? 0 : rcv_dec_new(&s->rcv_dec);

	*dp = s->rcv_dec;
	return ret;
}

void rcv_dec_session_free(struct rp_session *s)
{
	rcv_dec_free(s->rcv_dec);
	s->rcv_dec = NULL;
}

void rcv_dec_free(struct rcv_dec *d)
{
	if (!d)
		return;
	cs_free(d->ci, 1);
	cs_close(&d->cs);
	dis_free(d->dis);
	free(d->cache);
	free(d);
}

uint8_t rcv_wcode_of(int size, int shift)
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
	if (rcv_cs_gpr(r, &g, &size, &shift) && size == 8)
		return (int8_t)g;
	return -2;		/* a base we do not model: unknown address */
}

/* Is @r (after '%') a vector or mask register? */
static bool vector_reg(const char *r)
{
	return !strncmp(r, "xmm", 3) || !strncmp(r, "ymm", 3) ||
	       !strncmp(r, "zmm", 3) ||
	       (r[0] == 'k' && r[1] >= '0' && r[1] <= '7');
}

/*
 * Capstone 4 does not know AVX-512 (EVEX) instructions and their VEX
 * mask moves, which glibc's string functions use.  libopcodes does: in
 * its AT&T text the destination is the last operand.  An instruction
 * whose operands are all vector or mask registers writes no
 * general-purpose register and no memory (flags: unknown); one whose last operand is a 32- or 64-bit
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
	/* {%k1}{z}: the mask, not the destination */
	p = strchr(last, '{');
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
		if (r == X86_REG_ENDING || !rcv_cs_gpr(r, &g, &size, &shift) ||
		    size < 4)
			return;
		in->wcode[g] = 4;
	}
	in->flags = RCV_I_BAD;	/* decoded, but not by capstone */
	/* No VEX or EVEX instruction writes DF (only std, cld, popf and
	 * iret do); the arithmetic flags: vptest, vcomiss, kortest...
	 */
	in->fw = ARITH_FLAGS;
}

/*
 * The general-purpose registers @in may read: capstone's list (@rr, @nr:
 * implicit ones too), its register operands read and its memory operands'
 * base and index, and a system call's number and six arguments; not the
 * register of a zeroing idiom (xor r, r; sub r, r), whose result does not
 * depend on it.
 */
static void regs_read(struct rcv_ins *in, const uint16_t *rr, uint8_t nr)
{
	const struct rcv_op *a = &in->op[0], *b = &in->op[1];
	int i, g, sz, sh;

	for (i = 0; i < nr; i++)
		if (rcv_cs_gpr(rr[i], &g, &sz, &sh))
			in->gr |= (uint16_t)(1u << g);
	for (i = 0; i < in->nops; i++) {
		const struct rcv_op *p = &in->op[i];

		if (p->type == RCV_OP_REG && (p->access & CS_AC_READ))
			in->gr |= (uint16_t)(1u << p->reg);
		if (p->type == RCV_OP_MEM && p->base >= 0 && p->base < 16)
			in->gr |= (uint16_t)(1u << p->base);
		if (p->type == RCV_OP_MEM && p->index >= 0 && p->index < 16)
			in->gr |= (uint16_t)(1u << p->index);
	}
	if (in->id == X86_INS_SYSCALL)
		in->gr |= 1u << RP_REG_RAX | 1u << RP_REG_RDI |
			  1u << RP_REG_RSI | 1u << RP_REG_RDX |
			  1u << RP_REG_R10 | 1u << RP_REG_R8 | 1u << RP_REG_R9;
	if ((in->id == X86_INS_XOR || in->id == X86_INS_SUB) &&
	    in->nops == 2 && a->type == RCV_OP_REG && b->type == RCV_OP_REG &&
	    a->reg == b->reg && a->shift == b->shift && a->size >= 4)
		in->gr &= (uint16_t)~(1u << a->reg);
}

static void decode(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		   size_t len, uint8_t iclass, struct rcv_ins *in);

void rcv_decode(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		size_t len, uint8_t iclass, struct rcv_ins *in)
{
	struct dcache *e;

	if (!d->cache || len > sizeof(e->raw)) {
		decode(d, ip, raw, len, iclass, in);
		return;
	}
	e = &d->cache[(ip ^ ip >> 12) & (RCV_DCACHE - 1)];
	if (e->used && e->ip == ip && e->len == len && e->iclass == iclass &&
	    !memcmp(e->raw, raw, len)) {
		*in = e->in;
		return;
	}
	decode(d, ip, raw, len, iclass, in);
	e->used = true;
	e->ip = ip;
	e->len = (uint8_t)len;
	e->iclass = iclass;
	memcpy(e->raw, raw, len);
	e->in = *in;
}

void rcv_decode_barrier(uint64_t ip, size_t len, uint8_t iclass,
			struct rcv_ins *in)
{
	memset(in, 0, sizeof(*in));
	in->xw = 0xffff;
	in->ip = ip;
	in->len = (uint8_t)len;
	in->next = ip + len;
	in->iclass = iclass;
	in->flags = RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR;
	in->gr = 0xffff;
}

/*
 * Compatibility-mode code (a hardware trace's MODE.Exec with CS.L clear,
 * SDM Vol. 3C 33.4.2.8) has other operand and stack sizes than capstone's
 * 64-bit decode gives it (push %ecx is 4 bytes there, not 8): a barrier,
 * never a 64-bit reading of it.  The software recorder leaves such code
 * out (a gap, docs/recorder.md).
 */
void rcv_decode_insn(struct rcv_dec *d, const struct rp_insn *insn,
		     struct rcv_ins *in)
{
	if (insn->bits && insn->bits != 64)
		rcv_decode_barrier(insn->ip, insn->size, insn->iclass, in);
	else
		rcv_decode(d, insn->ip, insn->raw, insn->size, insn->iclass,
			   in);
}

/* The operand capstone gives as @o, in the engine's terms. */
static void op_of(const cs_x86_op *o, struct rcv_op *p)
{
	int g, sz, sh;

	p->size = o->size;
	p->access = o->access;
	switch (o->type) {
	case X86_OP_REG:
		if (rcv_cs_gpr(o->reg, &g, &sz, &sh)) {
			p->type = RCV_OP_REG;
			p->reg = (int8_t)g;
			p->shift = (uint8_t)sh;
			p->size = (uint8_t)sz;
		} else if (rcv_cs_xmm(o->reg, &g, &sz)) {
			p->type = RCV_OP_XMM;
			p->reg = (int8_t)g;
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

static void decode(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		   size_t len, uint8_t iclass, struct rcv_ins *in)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;
	size_t size = len;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;
	cs_x86 *x;
	int i, g, sz, sh;
	bool ro;

	memset(in, 0, sizeof(*in));
	in->xw = 0xffff;	/* not decoded by capstone: every xmm */
	in->ip = ip;
	in->len = (uint8_t)len;
	in->next = ip + len;
	in->iclass = iclass;
	if (rcv_vsib(raw, len) ||
	    !cs_disasm_iter(d->cs, &code, &size, &addr, d->ci) ||
	    d->ci->size != len) {
		in->flags = RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR;
		in->gr = 0xffff;
		if (iclass == RP_IC_OTHER)
			vector_only(d, raw, len, ip, in);
		return;
	}
	in->id = (uint16_t)d->ci->id;
	in->xw = 0;
	/* movabs is mov with a 64-bit immediate or absolute address. */
	if (in->id == X86_INS_MOVABS)
		in->id = X86_INS_MOV;
	x = &d->ci->detail->x86;
	if (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE)
		in->flags |= RCV_I_REP;
	in->a32 = x->prefix[3] == X86_PREFIX_ADDRSIZE;
	for (i = 0; i < x->op_count && i < 3; i++)
		op_of(&x->operands[i], &in->op[i]);
	/* EVEX with a mask: capstone 4 lists the mask register as an
	 * operand, which puts a memory source fourth (vpaddd (%rbp),
	 * %zmm1, %zmm0{%k1}): it takes the third place (review7 rw rows
	 * 92-100), whose register capstone's lists still name.
	 */
	for (i = 3; i < x->op_count && i < 8; i++)
		if (x->operands[i].type == X86_OP_MEM &&
		    in->op[2].type != RCV_OP_MEM) {
			memset(&in->op[2], 0, sizeof(in->op[2]));
			op_of(&x->operands[i], &in->op[2]);
			break;
		}
	/* xlat names no operand: its segment (%fs:(%rbx)) in op[0].seg. */
	if (in->id == X86_INS_XLATB)
		in->op[0].seg = x->prefix[1] == X86_PREFIX_FS ? 1 :
				x->prefix[1] == X86_PREFIX_GS ? 2 : 0;
	in->nops = (uint8_t)(x->op_count < 3 ? x->op_count : 3);
	/* lea computes the offset alone: "the segment register is
	 * ignored" (SDM Vol. 2A LEA), an fs or gs override too (review9
	 * leaseg: the end's fs_base was added, 27 wrong values).
	 */
	if (in->id == X86_INS_LEA)
		for (i = 0; i < in->nops; i++)
			if (in->op[i].type == RCV_OP_MEM)
				in->op[i].seg = 0;
	/* 0x67 with an absolute address: capstone 4 gives the disp
	 * sign-extended, the CPU truncates the effective address to 32
	 * bits (SDM Vol. 1 3.3.7: zero-extended to 64).  A 32-bit base or
	 * index is already an unknown address (mem_reg()); review7 a32abs
	 * and a32lea.
	 */
	for (i = 0; in->a32 && i < in->nops; i++)
		if (in->op[i].type == RCV_OP_MEM && in->op[i].base == -1 &&
		    in->op[i].index == -1)
			in->op[i].imm = (int64_t)(uint32_t)in->op[i].imm;
	/* movsxd without REX.W is a 32-bit move (63 /r: its result
	 * zero-extended like any 32-bit write) or with 0x66 a 16-bit one
	 * (SDM Vol. 2B MOVSX/MOVSXD); capstone 4 decodes both as
	 * `movsxd rax, ecx`, which would sign-extend (review7 movsxd32).
	 */
	if (in->id == X86_INS_MOVSXD && !(x->rex & 0x08) && in->nops == 2) {
		uint8_t w = x->prefix[2] == X86_PREFIX_OPSIZE ? 2 : 4;

		in->id = X86_INS_MOV;
		in->op[0].size = w;
		in->op[1].size = w;
	}
	ro = rcv_cs_op0_read_only(in->id, in->nops) || rcv_cs_state_load(in);
	if (x->opcode[0] >= 0xd8 && x->opcode[0] <= 0xdf)
		ro = rcv_cs_x87_mem(in) || ro;
	/* fs as an operand (mov fs, r; pop fs, which capstone 4 does not
	 * list as writing it): fs_base may change.
	 */
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG &&
		    x->operands[i].reg == X86_REG_FS)
			in->flags |= RCV_I_FSW;
	if (in->nops && !ro &&
	    (in->op[0].type == RCV_OP_MEM || in->op[0].type == RCV_OP_REG ||
	     in->op[0].type == RCV_OP_XMM))
		in->op[0].access |= CS_AC_WRITE;
	/* And the other way: capstone 4 marks the memory operand of
	 * `test [rbx], imm` as written; the SDM says these only read it.
	 */
	if (in->nops && ro)
		in->op[0].access &= (uint8_t)~CS_AC_WRITE;
	/* pop [mem] computes its address with rsp after the pop. */
	if (in->id == X86_INS_POP && in->nops == 1 &&
	    in->op[0].type == RCV_OP_MEM)
		in->flags |= RCV_I_MEMBAR;
	/* bts/btr/btc [mem], reg write a byte we cannot name. */
	if (rcv_bitop_far(in) && in->id != X86_INS_BT)
		in->flags |= RCV_I_MEMBAR;
	for (i = 0; i < in->nops; i++) {
		const struct rcv_op *p = &in->op[i];

		if (p->type == RCV_OP_MEM && (p->access & CS_AC_WRITE) &&
		    (p->base == -2 || p->index == -2 || p->seg == 3 ||
		     !p->size || p->size > 64))
			in->flags |= RCV_I_MEMBAR;
	}
	if (cs_regs_access(d->cs, d->ci, rr, &nr, rw, &nw) != CS_ERR_OK) {
		in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
		in->xw = 0xffff;
		in->gr = 0xffff;
		return;
	}
	regs_read(in, rr, nr);
	/* Flags read: capstone's table, or all of them when it lists
	 * rflags as read with no table (pushf, lahf in capstone 4).
	 */
	in->fr = rcv_cs_flags_read(x->eflags);
	for (i = 0; i < nr; i++)
		if (rr[i] == X86_REG_EFLAGS && !in->fr)
			in->fr = ARITH_FLAGS | F_DF;
	in->xsem = rcv_sse_modelled(in);
	if (in->xsem) {
		/* Capstone's memory operand sizes are not trusted for
		 * these; movdqu's and movq's F3 is not a rep.
		 */
		for (i = 0; i < in->nops; i++)
			if (in->op[i].type == RCV_OP_MEM)
				in->op[i].size = (uint8_t)rcv_sse_memsize(in);
		in->flags &= (uint8_t)~RCV_I_REP;
	}
	for (i = 0; i < nw; i++) {
		if (rcv_cs_xmm(rw[i], &g, &sz))
			in->xw |= (uint16_t)(1u << g);
		if (rw[i] == X86_REG_FS)
			in->flags |= RCV_I_FSW;
		if (rw[i] == X86_REG_EFLAGS && !x->eflags)
			in->fw |= ARITH_FLAGS | F_DF;
		else if (rcv_cs_gpr(rw[i], &g, &sz, &sh))
			add_write(in, g, rcv_wcode_of(sz, sh));
	}
	/* Explicit register operands written (cs_regs_access has them, but
	 * be sure).
	 */
	for (i = 0; i < in->nops; i++)
		if (in->op[i].type == RCV_OP_REG &&
		    (in->op[i].access & CS_AC_WRITE))
			add_write(in, in->op[i].reg,
				  rcv_wcode_of(in->op[i].size,
					       in->op[i].shift));
	/* Flags written, by capstone's table; any but the arithmetic flags
	 * and DF: all of them.
	 */
	in->fw |= rcv_cs_flags_written(x->eflags);
	if (x->eflags & (X86_EFLAGS_MODIFY_TF | X86_EFLAGS_MODIFY_IF |
			 X86_EFLAGS_MODIFY_NT | X86_EFLAGS_MODIFY_RF |
			 X86_EFLAGS_RESET_IF | X86_EFLAGS_RESET_TF |
			 X86_EFLAGS_RESET_NT | X86_EFLAGS_SET_IF |
			 X86_EFLAGS_RESET_RF | X86_EFLAGS_RESET_AC |
			 X86_EFLAGS_RESET_0F))
		in->fw = ~0ull;
	if (rcv_cs_implicit_store(in->id))
		in->flags |= RCV_I_MEMBAR;
	/* With an operand-size prefix, push, pop and leave move rsp by 2
	 * and store or load 2 bytes (pushw $imm, push %ax, leavew), where
	 * the semantics, the frames and the index take 8 (capstone 4 even
	 * gives `66 68`'s immediate size 8).  Never emitted by compilers:
	 * barriers (tests/values/holes.c push16, leave16).
	 */
	if (x->prefix[2] == X86_PREFIX_OPSIZE &&
	    (in->id == X86_INS_PUSH || in->id == X86_INS_POP ||
	     in->id == X86_INS_LEAVE))
		in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
	/* push/pop of fs or gs (0f a0/a1, 0f a8/a9): capstone 4 lists no
	 * register read or written, not even rsp, so rsp kept its value
	 * across them (review9.c popfs: 45 wrong).  They move rsp by 8
	 * (SDM Vol. 2B PUSH, POP: 64-bit operand size); the push stores 8
	 * unknown bytes (some processors write only the selector's 16
	 * bits), the pop reads its slot and reloads the segment's base
	 * (RCV_I_FSW above for fs; gs-relative addresses are never known).
	 */
	if ((in->id == X86_INS_PUSH || in->id == X86_INS_POP) &&
	    in->nops == 1 && in->op[0].type == RCV_OP_OTHER) {
		in->gr |= 1u << RP_REG_RSP;
		add_write(in, RP_REG_RSP, 4);
	}
	/* xmm: the destination of one modelled (rcv_sse.c), every
	 * explicit one of any other (as for general-purpose registers
	 * below), and the implicit ones capstone's lists may miss.  A
	 * system call keeps them as it keeps rbx (Linux restores the
	 * user's vector state; rt_sigreturn and execve, which do not,
	 * and unknown numbers are barriers: rcv_build_index()).
	 */
	for (i = 0; i < in->nops; i++)
		if (in->op[i].type == RCV_OP_XMM &&
		    (!in->xsem || i == 0))
			in->xw |= (uint16_t)(1u << in->op[i].reg);
	switch (in->id) {
	case X86_INS_PCMPESTRM: case X86_INS_PCMPISTRM:
	case X86_INS_VPCMPESTRM: case X86_INS_VPCMPISTRM:
		in->xw |= 1;
		break;
	case X86_INS_XRSTOR: case X86_INS_XRSTOR64: case X86_INS_XRSTORS:
	case X86_INS_XRSTORS64: case X86_INS_FXRSTOR:
	case X86_INS_FXRSTOR64: case X86_INS_VZEROALL:
	case X86_INS_VZEROUPPER:
		in->xw = 0xffff;
		break;
	default:
		break;
	}
	if (!rcv_cs_modelled(in->id) && !in->xsem) {
		/* Capstone 4's lists miss some writes (cmpxchg's rax, mulx's
		 * second destination): every explicit general-purpose
		 * register of an instruction we do not model counts as
		 * written, and so do the arithmetic flags.  DF only as
		 * capstone's table says: std and cld are modelled, popf
		 * writes every flag (below), iret is a barrier, and no
		 * other instruction writes DF (SDM, EFLAGS cross-reference),
		 * so DF known at the end reaches back across lock cmpxchg
		 * and the like.
		 */
		for (i = 0; i < in->nops; i++)
			if (in->op[i].type == RCV_OP_REG)
				add_write(in, in->op[i].reg, 4);
		in->fw |= ARITH_FLAGS;
	}
	switch (in->id) {
	case X86_INS_XCHG:
		/* Its register operands (both, or the one with memory);
		 * no flag (modelled: rcv_sem.c).
		 */
		for (i = 0; i < in->nops; i++)
			if (in->op[i].type == RCV_OP_REG)
				add_write(in, in->op[i].reg,
					  rcv_wcode_of(in->op[i].size,
						       in->op[i].shift));
		break;
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
		/* The flags alone (SDM); capstone 4 lists al as written by
		 * `test al, imm8` (a8 ib), and bt is not modelled (the rule
		 * above): rax was cut at every such test (glibc's mutex
		 * unlock, stdio's cleanup: rp_recover_why() named them).
		 */
		memset(in->wcode, 0, sizeof(in->wcode));
		break;
	case X86_INS_CMPXCHG:
		/* The accumulator, the destination and the flags (SDM:
		 * DEST <- SRC or accumulator <- DEST); never the source,
		 * which capstone and the rule above count as written.
		 */
		in->wcode[RP_REG_RAX] = 4;
		if (in->nops == 2 && in->op[1].type == RCV_OP_REG &&
		    in->op[1].reg != RP_REG_RAX &&
		    !(in->op[0].type == RCV_OP_REG &&
		      in->op[0].reg == in->op[1].reg))
			in->wcode[in->op[1].reg] = 0;
		break;
	case X86_INS_IMUL:
		if (in->nops != 1)	/* rdx:rax = rax * op: as mul */
			break;
		/* fall through */
	case X86_INS_MUL: case X86_INS_DIV: case X86_INS_IDIV:
		/* ax for a byte operand, else rax and rdx (the low 16 bits
		 * of each for a word one), whatever capstone lists.
		 */
		if (in->nops != 1 || !in->op[0].size)
			break;
		if (in->op[0].size == 1) {
			if (in->wcode[RP_REG_RAX] < 3)
				in->wcode[RP_REG_RAX] = 3;
			break;
		}
		in->wcode[RP_REG_RAX] = in->op[0].size == 2 &&
			in->wcode[RP_REG_RAX] <= 3 ? 3 : 4;
		in->wcode[RP_REG_RDX] = in->op[0].size == 2 &&
			in->wcode[RP_REG_RDX] <= 3 ? 3 : 4;
		in->fw |= ARITH_FLAGS;
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
	rcv_bits_writes(in);
	switch (in->id) {
	case X86_INS_WRFSBASE:
	case X86_INS_LFS:
		in->flags |= RCV_I_FSW;
		break;
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
	/* Capstone 4 lists neither enter's writes of rsp and rbp
	 * (coldscan's enter-repro: 6 wrong rbp) nor xlat's of al.
	 */
	case X86_INS_ENTER:
		in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
		break;
	case X86_INS_XLATB:
		in->flags |= RCV_I_BARRIER;
		break;
	default:
		break;
	}
}

/*
 * The mnemonic of the instruction at @ip (@raw, @len) into @buf (rcv_why.c
 * names what it blames); "(bad)" when capstone cannot read it.
 */
size_t rcv_dec_len(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		   size_t len)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;
	size_t size = len;

	return cs_disasm_iter(d->cs, &code, &size, &addr, d->ci) ?
	       d->ci->size : 0;
}

void rcv_dec_mnemonic(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		      size_t len, char *buf, size_t n)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;
	size_t size = len;

	if (!n)
		return;
	if (cs_disasm_iter(d->cs, &code, &size, &addr, d->ci))
		snprintf(buf, n, "%s", d->ci->mnemonic);
	else
		snprintf(buf, n, "(bad)");
}
