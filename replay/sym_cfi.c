// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The call frame information (.eh_frame) rule at a pc, for a front end
 * that unwinds with recovered registers (#17: ptrec-server gives GDB real
 * frame ids where the history shows the canonical frame address).  Only
 * the rules compilers emit for x86-64 are read: the CFA as a register
 * plus an offset, and each register either unchanged, saved at the CFA
 * plus an offset, undefined (DW_CFA_undefined rip marks the outermost
 * frame), or not known; any other rule reads as not known.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sym_internal.h"
#include "symbols.h"

/* DWARF's x86-64 register numbers 0-16 (SysV ABI, figure 3.36). */
static const int dwarf_regs[] = {
	RP_REG_RAX, RP_REG_RDX, RP_REG_RCX, RP_REG_RBX, RP_REG_RSI,
	RP_REG_RDI, RP_REG_RBP, RP_REG_RSP, RP_REG_R8, RP_REG_R9,
	RP_REG_R10, RP_REG_R11, RP_REG_R12, RP_REG_R13, RP_REG_R14,
	RP_REG_R15, RP_REG_RIP,
};

/* The rule of DWARF register @dreg into @how/@off. */
static void reg_rule(Dwarf_Frame *frame, int dreg, uint8_t *how,
		     int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	*how = RP_CFI_UNKNOWN;
	if (dwarf_frame_register(frame, dreg, mem, &ops, &n))
		return;
	if (n == 0) {
		/* libdw: no ops is "same value", ops_mem "undefined"
		 * (DW_CFA_undefined, or no rule where the ABI's default is
		 * undefined: x86-64 CIEs always give rip one).
		 */
		*how = ops ? RP_CFI_UNDEFINED : RP_CFI_SAME;
		return;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return;
	if (n == 1) {
		*off = 0;
	} else if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
	} else if (n == 3 && (ops[1].atom == DW_OP_consts ||
			      ops[1].atom == DW_OP_constu) &&
		   ops[2].atom == DW_OP_plus) {
		*off = (int64_t)ops[1].number;
	} else {
		return;
	}
	*how = RP_CFI_AT;
}

/* A register plus an offset, of the registers dwarf_regs[] names? */
static bool cfa_reg(const Dwarf_Op *op, size_t *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (size_t)op->number;
		*off = (int64_t)op->number2;
	} else {
		return false;
	}
	return *reg < sizeof(dwarf_regs) / sizeof(dwarf_regs[0]);
}

int sym_cfi_at(struct sym_module *m, uint64_t vaddr, struct rp_cfi *out)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(m->elf);
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t n, i, reg;
	int64_t off;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!cfi)
		return -1;
	if (dwarf_cfi_addrframe(cfi, vaddr, &frame))
		goto out;
	/* libdw gives a register rule for the CFA as one DW_OP_bregN or
	 * DW_OP_bregx.
	 */
	if (!dwarf_frame_cfa(frame, &ops, &n) && n == 1 &&
	    cfa_reg(&ops[0], &reg, &off)) {
		out->cfa_reg = (unsigned int)dwarf_regs[reg];
		out->cfa_off = off;
		for (i = 0; i < sizeof(dwarf_regs) / sizeof(dwarf_regs[0]);
		     i++)
			reg_rule(frame, (int)i, &out->how[dwarf_regs[i]],
				 &out->off[dwarf_regs[i]]);
		ret = 0;
	}
	free(frame);
out:
	dwarf_cfi_end(cfi);
	return ret;
}
