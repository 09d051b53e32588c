// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which source variable an operand is, from DWARF (libdw), for naming what
 * a PTWRITE wrote (issue #21): a variable whose location at the pc is the
 * operand's register (DW_OP_regN), or the operand's memory, a base
 * register plus a displacement, where the variable lives at a frame-base
 * offset (DW_OP_fbreg) from a frame base that is the CFA
 * (DW_OP_call_frame_cfa), with the CFA from the call frame information
 * at the pc (a register plus an offset).  The innermost scope's variable
 * wins, as in GDB.  Anything else is not named.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sym_internal.h"
#include "symbols.h"

struct var_walk {
	uint64_t pc;
	int reg;		/* DWARF register of the operand, or -1 */
	int base;		/* memory operand's base register, or -1 */
	int64_t disp;
	bool have_cfa;
	int cfa_reg;		/* CFA = cfa_reg + cfa_off */
	int64_t cfa_off;
	const char *name;
	size_t budget;
};

/* A register plus an offset (DW_OP_bregN, DW_OP_bregx)? */
static bool breg(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = (int)(op->atom - DW_OP_breg0);
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx && op->number < 128) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

/* The variable @die's location at the pc: is it the operand? */
static bool var_matches(struct var_walk *w, Dwarf_Die *die, bool cfa_base)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	int64_t off;
	size_t n;
	int r;

	if (!dwarf_attr_integrate(die, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, w->pc, &ops, &n, 1) != 1 || n != 1)
		return false;
	if (w->reg >= 0) {
		if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
			return (int)(ops[0].atom - DW_OP_reg0) == w->reg;
		return ops[0].atom == DW_OP_regx &&
		       ops[0].number == (Dwarf_Word)w->reg;
	}
	if (ops[0].atom == DW_OP_fbreg && cfa_base && w->have_cfa)
		return w->base == w->cfa_reg &&
		       w->disp == w->cfa_off + (int64_t)ops[0].number;
	return breg(&ops[0], &r, &off) && r == w->base && off == w->disp;
}

/* Is @fn's frame base the CFA? */
static bool frame_base_is_cfa(Dwarf_Die *fn)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	return dwarf_attr_integrate(fn, DW_AT_frame_base, &attr) &&
	       dwarf_getlocation(&attr, &ops, &n) == 0 && n == 1 &&
	       ops[0].atom == DW_OP_call_frame_cfa;
}

/* Descends into the scopes that hold the pc; variables of inner scopes
 * are looked at last, so they win.
 */
static void walk(struct var_walk *w, Dwarf_Die *parent, bool cfa_base,
		 int depth)
{
	Dwarf_Die child;
	int tag;

	if (depth > 64 || dwarf_child(parent, &child))
		return;
	do {
		if (!w->budget--)
			return;
		tag = dwarf_tag(&child);
		if ((tag == DW_TAG_variable ||
		     tag == DW_TAG_formal_parameter) &&
		    var_matches(w, &child, cfa_base) && dwarf_diename(&child))
			w->name = dwarf_diename(&child);
	} while (!dwarf_siblingof(&child, &child));
	if (dwarf_child(parent, &child))
		return;
	do {
		tag = dwarf_tag(&child);
		if ((tag == DW_TAG_subprogram ||
		     tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine) &&
		    dwarf_haspc(&child, w->pc) > 0) {
			walk(w, &child, tag == DW_TAG_subprogram ?
			     frame_base_is_cfa(&child) : cfa_base,
			     depth + 1);
			return;
		}
	} while (!dwarf_siblingof(&child, &child));
}

/* The CFA at the pc as a register plus an offset (.eh_frame, else
 * .debug_frame).
 */
static void cfa_at(struct sym_module *m, struct var_walk *w)
{
	Dwarf_CFI *eh = dwarf_getcfi_elf(m->elf);
	Dwarf_CFI *cfis[2] = { eh, dwarf_getcfi(m->dw) };
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t n, i;

	for (i = 0; i < 2 && !w->have_cfa; i++) {
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], w->pc, &frame))
			continue;
		/* libdw gives a register rule as DW_OP_bregx. */
		if (!dwarf_frame_cfa(frame, &ops, &n) && n == 1)
			w->have_cfa = breg(&ops[0], &w->cfa_reg, &w->cfa_off);
		free(frame);
	}
	if (eh)
		dwarf_cfi_end(eh);	/* the Dwarf's own is freed with it */
}

int sym_var_at(struct sym_module *m, uint64_t vaddr, int reg, int base,
	       int64_t disp, const char **name)
{
	struct var_walk w = { .pc = vaddr, .reg = reg, .base = base,
			      .disp = disp, .budget = 100000 };
	Dwarf_Die cu;

	if ((reg < 0 && base < 0) || !sym_lines_at(m, vaddr, &cu) || !m->dw)
		return -1;
	if (base >= 0)
		cfa_at(m, &w);
	walk(&w, &cu, false, 0);
	if (!w.name)
		return -1;
	*name = w.name;
	return 0;
}

/* @die's type through typedefs and qualifiers. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	int n, tag;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, type))
		return false;
	for (n = 0; n < 16; n++) {
		tag = dwarf_tag(type);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type)
			return true;
		if (!dwarf_attr_integrate(type, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, type))
			return false;
	}
	return false;
}

/* @type through typedefs and qualifiers, in place. */
static bool peel(Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	int n, tag;

	for (n = 0; n < 16; n++) {
		tag = dwarf_tag(type);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type)
			return true;
		if (!dwarf_attr_integrate(type, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, type))
			return false;
	}
	return false;
}

/* The member of struct @type holding byte @off: its DIE, type and
 * offset (a constant DW_AT_data_member_location; bit-fields are not
 * followed).
 */
static bool member_at(Dwarf_Die *type, uint64_t off, Dwarf_Die *mem,
		      Dwarf_Die *mtype, uint64_t *moff)
{
	Dwarf_Attribute attr;
	Dwarf_Word loc, size;

	if (dwarf_child(type, mem))
		return false;
	do {
		if (dwarf_tag(mem) != DW_TAG_member ||
		    dwarf_hasattr(mem, DW_AT_bit_size) ||
		    !dwarf_attr(mem, DW_AT_data_member_location, &attr) ||
		    dwarf_formudata(&attr, &loc) || !type_of(mem, mtype) ||
		    dwarf_aggregate_size(mtype, &size))
			continue;
		if (off >= loc && off - loc < size) {
			*moff = loc;
			return true;
		}
	} while (!dwarf_siblingof(mem, mem));
	return false;
}

/* Appends to @buf the path of byte @off inside an object of @type
 * ("[3]", ".x", "[2].y[1]"); returns the offset it does not describe.
 */
static uint64_t path(Dwarf_Die *type, uint64_t off, char *buf, size_t len)
{
	Dwarf_Die elem, sub, mem;
	Dwarf_Word size;
	uint64_t moff;
	size_t used;
	int depth, nsub;

	for (depth = 0; depth < 16 && peel(type); depth++) {
		used = strlen(buf);
		if (dwarf_tag(type) == DW_TAG_array_type) {
			/* One dimension only: more would need each stride. */
			nsub = 0;
			if (!dwarf_child(type, &sub))
				do
					nsub += dwarf_tag(&sub) ==
						DW_TAG_subrange_type;
				while (!dwarf_siblingof(&sub, &sub));
			if (nsub != 1 || !type_of(type, &elem) ||
			    dwarf_aggregate_size(&elem, &size) || !size)
				return off;
			snprintf(buf + used, len - used, "[%" PRIu64 "]",
				 off / size);
			off %= size;
			*type = elem;
		} else if (dwarf_tag(type) == DW_TAG_structure_type ||
			   dwarf_tag(type) == DW_TAG_class_type) {
			if (!member_at(type, off, &mem, &elem, &moff) ||
			    !dwarf_diename(&mem))
				return off;
			snprintf(buf + used, len - used, ".%s",
				 dwarf_diename(&mem));
			off -= moff;
			*type = elem;
		} else {
			return off;
		}
	}
	return off;
}

/* Does global variable @die live at link-time address @addr? */
static bool var_at_addr(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	return dwarf_attr(die, DW_AT_location, &attr) &&
	       dwarf_getlocation(&attr, &ops, &n) == 0 && n == 1 &&
	       ops[0].atom == DW_OP_addr && ops[0].number == addr;
}

int sym_object_path(struct sym_module *m, uint64_t addr, uint64_t off,
		    char *buf, size_t len, uint64_t *rest)
{
	Dwarf_Off cuoff = 0, next;
	size_t hsize, budget = 100000;
	Dwarf_Die cu, child, type;

	buf[0] = '\0';
	*rest = off;
	if (!m->dw)
		return -1;
	while (!dwarf_nextcu(m->dw, cuoff, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(m->dw, cuoff + hsize, &cu) &&
		    !dwarf_child(&cu, &child)) {
			do {
				if (!budget--)
					return -1;
				if (dwarf_tag(&child) != DW_TAG_variable ||
				    !var_at_addr(&child, addr) ||
				    !type_of(&child, &type))
					continue;
				*rest = path(&type, off, buf, len);
				return 0;
			} while (!dwarf_siblingof(&child, &child));
		}
		cuoff = next;
	}
	return -1;
}
