/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to replay/: x86-64 disassembly in GDB's AT&T syntax, with GDB's
 * own disassembler (libopcodes from binutils), so the text is what GDB
 * prints.
 */
#ifndef PTREC_REPLAY_DISASM_H
#define PTREC_REPLAY_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct dis;

/* Names @addr for branch targets and rip-relative operands.  Fills @name
 * and @offset and returns 0, or nonzero when unknown.
 */
typedef int (*dis_sym_fn)(void *ctx, uint64_t addr, char *name, size_t namesz,
			  uint64_t *offset);

/* Returns 0, -ENOMEM, or -EIO when libopcodes has no x86-64 support. */
int dis_new(struct dis **d);
void dis_free(struct dis *d);
void dis_set_symbolizer(struct dis *d, dis_sym_fn fn, void *ctx);

/*
 * Disassembles the instruction in @buf (@n bytes) at @ip into @out.
 * Returns its length, -EILSEQ for bytes that are no instruction (the text
 * is then GDB's "(bad)"), or -ENOSPC when @outsz is too small.
 */
int dis_insn(struct dis *d, const uint8_t *buf, size_t n, uint64_t ip,
	     char *out, size_t outsz);

#endif
