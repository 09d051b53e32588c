/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to replay/: x86-64 disassembly in GDB's AT&T syntax.  It runs
 * GDB's own disassembler, libopcodes from binutils, set up the way GDB 13
 * sets it up, so the text is what GDB prints after the "<func+off>:\t"
 * column of x/i, disassemble and record instruction-history.
 *
 * Link with -lopcodes -lbfd (Debian 12: binutils-dev; both are shared
 * libraries that pull in libsframe, libz and libzstd themselves).
 */
#ifndef PTREC_REPLAY_DISASM_H
#define PTREC_REPLAY_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct dis;

/* Longest symbol name dis_insn() asks a symbolizer for, with its NUL. */
#define DIS_NAME_MAX 4096

/**
 * typedef dis_sym_fn - names an address for the disassembly
 * @ctx:	the pointer given to dis_set_symbolizer()
 * @addr:	a branch target, or the address of a rip-relative operand
 * @name:	where to store the symbol's name, NUL-terminated
 * @namesz:	size of @name (DIS_NAME_MAX); longer names are cut
 * @offset:	where to store @addr minus the symbol's address
 *
 * GDB prints such an address as "0x401126 <foo+4>", as "0x401126 <foo>"
 * when the offset is 0, and as plain "0x401126" when it knows no symbol.
 * The offset is taken modulo 2^64 and printed as GDB prints it, as a
 * signed 32-bit number: a function whose entry lies after @addr (GDB names
 * a function's cold part after its full symbol) prints as "<foo-16>".
 *
 * Return: 0 when @name and @offset are filled in, nonzero when no symbol
 * is known (an empty @name counts as unknown too).
 */
typedef int (*dis_sym_fn)(void *ctx, uint64_t addr, char *name,
			  size_t namesz, uint64_t *offset);

/**
 * dis_new() - creates an x86-64 disassembler
 * @d:	where to store it; free it with dis_free()
 *
 * It starts without a symbolizer, so addresses print as bare numbers.
 *
 * Return: 0, -ENOMEM, or -EIO when libopcodes has no x86-64 disassembler.
 */
int dis_new(struct dis **d);

/**
 * dis_free() - frees a disassembler
 * @d:	from dis_new(), or NULL
 */
void dis_free(struct dis *d);

/**
 * dis_set_symbolizer() - sets how addresses in operands are named
 * @d:		the disassembler
 * @fn:		the symbolizer, or NULL for bare addresses
 * @ctx:	passed to @fn
 *
 * dis_insn() calls @fn for branch targets ("call   0x401126 <foo>") and for
 * the address of a rip-relative operand, which GDB prints in a comment
 * ("lea    0x2eb4(%rip),%rax        # 0x404010 <buf>").  It can be changed
 * between calls to dis_insn(), for example to name addresses in the image
 * of the instruction being printed.
 */
void dis_set_symbolizer(struct dis *d, dis_sym_fn fn, void *ctx);

/**
 * dis_insn() - disassembles one instruction
 * @d:		the disassembler
 * @buf:	the bytes at @ip
 * @n:		number of bytes at @buf; more than the instruction is fine
 * @ip:		the instruction's address, for branch targets and rip-relative
 *		operands
 * @out:	where to store the text, NUL-terminated: exactly GDB's text
 *		after the "<func+off>:\t" column, e.g. "mov    %edi,%eax",
 *		"call   0x1030 <puts@plt>"; no newline
 * @outsz:	size of @out.  Without names, the longest text in 6.2
 *		million instructions of libc, libcrypto and video codecs is
 *		69 bytes; a name adds its length plus a few bytes
 *
 * GDB reads target memory freely, and libopcodes sometimes reads past an
 * instruction: it prints fwait (9b) and an x87 instruction after it as one
 * ("9b df e0" is "fstsw  %ax", 3 bytes, where the CPU and libipt see fwait
 * and fnstsw), and it looks past a lone prefix.  So pass the bytes that
 * follow the instruction when you have them (libopcodes reads at most 20
 * from @ip) to get GDB's text in those cases too.
 *
 * Not safe to call on the same @d from two threads at once.
 *
 * Return: the instruction's length as libopcodes decoded it (1 to 15; see
 * fwait above for where it differs from the CPU's), or
 * -EILSEQ when the bytes are no instruction; @out then holds what GDB
 * prints for them: libopcodes' text containing "(bad)" (whose length GDB
 * would skip is not returned), or, when the instruction needs more than @n
 * bytes, what GDB prints where readable memory ends inside an instruction
 * (".byte 0xe8" for a truncated call, or the prefix's name, e.g. "repz"),
 * -ENOSPC when the text and its NUL do not fit in @outsz bytes; @out then
 * holds as much of it as fits, NUL-terminated (unless @outsz is 0),
 * -EINVAL when @n is 0.
 */
/**
 * dis_set_bits() - the code size of the instructions that follow
 * @bits:	64 (the default), 32 or 16, as the CPU's CS.L/CS.D say
 *
 * Return: 0, or -EINVAL for another value.
 */
int dis_set_bits(struct dis *d, unsigned int bits);

int dis_insn(struct dis *d, const uint8_t *buf, size_t n, uint64_t ip,
	     char *out, size_t outsz);

#endif
