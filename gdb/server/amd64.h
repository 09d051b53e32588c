/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: GDB's amd64 Linux register layout in its remote
 * numbering and the target description that declares it, apart from
 * where the values come from (target.c).
 */
#ifndef PTREC_GDB_AMD64_H
#define PTREC_GDB_AMD64_H

#include <stddef.h>

/* Registers GDB numbers 0..AMD64_NREGS-1; "g" replies hold rax..gs. */
#define AMD64_NREGS 76
#define AMD64_YMM0H 60
#define AMD64_G_REGS 24
#define AMD64_PC 16

/* Size in bytes of register @regno, 0 when there is none. */
int amd64_reg_size(unsigned int regno);

/* The libptrec register (enum rp_reg) of @regno, or -1 for registers no
 * the snapshot holds only in its FXSAVE/XSAVE areas (x87, SSE, AVX).
 */
int amd64_rp_reg(unsigned int regno);

/* The target description XML.  Returns it (static, NUL-terminated) and
 * its length in *@len.
 */
const char *amd64_target_xml(size_t *len);

#endif
