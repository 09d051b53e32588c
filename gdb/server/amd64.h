/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to gdb/server/: GDB's amd64 Linux register layout in its remote
 * numbering and the target description that declares it, apart from
 * where the values come from (target.c).
 */
#ifndef PTREC_GDB_AMD64_H
#define PTREC_GDB_AMD64_H

#include <stdbool.h>
#include <stddef.h>

/* Registers GDB numbers 0..AMD64_NREGS-1; "g" replies hold rax..gs.
 * With the avx512 feature (a snapshot whose XSAVE area has it) they go on
 * to AMD64_NREGS_AVX512 - 1: xmm16-31, ymm16h-31h, k0-7, zmm0h-31h.
 */
#define AMD64_NREGS 76
#define AMD64_YMM0H 60
#define AMD64_XMM16 76
#define AMD64_YMM16H 92
#define AMD64_K0 108
#define AMD64_ZMM0H 116
#define AMD64_NREGS_AVX512 148
#define AMD64_G_REGS 24
#define AMD64_PC 16

/* Size in bytes of register @regno, 0 when there is none. */
int amd64_reg_size(unsigned int regno);

/* The libptrec register (enum rp_reg) of @regno, or -1 for registers no
 * the snapshot holds only in its FXSAVE/XSAVE areas (x87, SSE, AVX).
 */
int amd64_rp_reg(unsigned int regno);

/* The target description XML, with the avx512 feature when @avx512.
 * Returns it (static, NUL-terminated) and its length in *@len.
 */
const char *amd64_target_xml(bool avx512, size_t *len);

#endif
