// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Disassembly with libopcodes, the disassembler linked into GDB, set up as
 * GDB 13 sets it up (gdb/disasm.c, i386_print_insn) and printing addresses
 * as GDB's print_address does ("0x1139 <main+4>").
 *
 * Debian's libopcodes (binutils 2.40) and the one in GDB 13.1 agree: the
 * .text of libc, libcrypto, libx265, libSvtAv1Enc and libaom, 6.2 million
 * instructions with much AVX-512, disassemble to GDB's text.
 * tests/unit/replay/test_disasm.c checks programs, PLT stubs and libc
 * functions against GDB itself, names included.
 */
#include <dis-asm.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"

struct dis {
	disassembler_ftype print;
	struct disassemble_info info;
	dis_sym_fn sym;
	void *sym_ctx;

	/* The call in progress: its bytes and its output. */
	const uint8_t *buf;
	size_t n;
	uint64_t ip;
	char *out;
	size_t outsz, used;
	bool overflow;		/* the text did not fit in outsz */
	bool bad;		/* libopcodes printed "(bad)" */
	bool short_read;	/* libopcodes wanted bytes past n */
	bool naming;		/* printing a symbolizer's name */

	char name[DIS_NAME_MAX];
};

/* Appends to the output; on overflow keeps what fits and remembers it. */
static void emit(struct dis *d, const char *fmt, va_list ap)
{
	size_t room = d->outsz - d->used;
	int n;

	if (d->overflow)
		return;
	n = vsnprintf(d->out + d->used, room, fmt, ap);
	if (n < 0 || (size_t)n >= room) {
		d->overflow = true;
		d->used = d->outsz - 1;
		d->out[d->used] = '\0';
		return;
	}
	/* Checked per piece, so a symbol's name cannot fake "(bad)". */
	if (!d->naming && strstr(d->out + d->used, "(bad)"))
		d->bad = true;
	d->used += (size_t)n;
}

static void __attribute__((format(printf, 2, 3)))
put(struct dis *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(d, fmt, ap);
	va_end(ap);
}

/* libopcodes' printf callbacks; like GDB's, they return 0. */
static int print_plain(void *stream, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(stream, fmt, ap);
	va_end(ap);
	return 0;
}

/* GDB styles only a terminal's output; its text is the same. */
static int print_styled(void *stream, enum disassembler_style style,
			const char *fmt, ...)
{
	va_list ap;

	(void)style;
	va_start(ap, fmt);
	emit(stream, fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * Serves the caller's bytes, and fails past them as GDB's memory reads fail
 * where readable memory ends, so libopcodes prints what GDB prints there.
 * It reads all or nothing, as GDB does.
 */
static int read_memory(bfd_vma memaddr, bfd_byte *myaddr, unsigned int len,
		       struct disassemble_info *info)
{
	struct dis *d = info->stream;
	uint64_t off = (uint64_t)memaddr - d->ip;

	if (off > d->n || len > d->n - off) {
		d->short_read = true;
		return EIO;
	}
	memcpy(myaddr, d->buf + off, len);
	return 0;
}

/*
 * libopcodes calls this when it could read no byte at all; its default
 * prints "Address 0x... is out of bounds." into the instruction text.
 */
static void memory_error(int status, bfd_vma memaddr,
			 struct disassemble_info *info)
{
	struct dis *d = info->stream;

	(void)status;
	(void)memaddr;
	d->short_read = true;
}

/* Where GDB keeps the offset: an int, printed with "%+d". */
static int gdb_offset(uint64_t offset)
{
	uint32_t low = (uint32_t)offset;

	if (low <= INT32_MAX)
		return (int)low;
	return -(int)(UINT32_MAX - low) - 1;
}

/* As GDB's print_address: "0x<hex>", then " <sym>" or " <sym+off>". */
static void print_address(bfd_vma addr, struct disassemble_info *info)
{
	struct dis *d = info->stream;
	uint64_t offset = 0;
	int off;

	put(d, "0x%" PRIx64, (uint64_t)addr);
	if (!d->sym)
		return;
	d->name[0] = '\0';
	if (d->sym(d->sym_ctx, addr, d->name, sizeof(d->name), &offset))
		return;
	d->name[sizeof(d->name) - 1] = '\0';
	if (!d->name[0])
		return;
	off = gdb_offset(offset);
	d->naming = true;
	if (off)
		put(d, " <%s%+d>", d->name, off);
	else
		put(d, " <%s>", d->name);
	d->naming = false;
}

int dis_new(struct dis **dp)
{
	struct dis *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->print = disassembler(bfd_arch_i386, false, bfd_mach_x86_64, NULL);
	if (!d->print) {
		free(d);
		return -EIO;
	}
	/* What GDB's gdb_disassemble_info and i386_print_insn set. */
	init_disassemble_info(&d->info, d, print_plain, print_styled);
	d->info.flavour = bfd_target_unknown_flavour;
	d->info.arch = bfd_arch_i386;
	d->info.mach = bfd_mach_x86_64;
	d->info.endian = BFD_ENDIAN_LITTLE;
	d->info.endian_code = BFD_ENDIAN_LITTLE;
	d->info.disassembler_options = "att";
	d->info.read_memory_func = read_memory;
	d->info.memory_error_func = memory_error;
	d->info.print_address_func = print_address;
	disassemble_init_for_target(&d->info);
	*dp = d;
	return 0;
}

void dis_free(struct dis *d)
{
	if (!d)
		return;
	disassemble_free_target(&d->info);
	free(d);
}

void dis_set_symbolizer(struct dis *d, dis_sym_fn fn, void *ctx)
{
	d->sym = fn;
	d->sym_ctx = ctx;
}

int dis_set_bits(struct dis *d, unsigned int bits)
{
	/* libopcodes' i386 printer picks the mode from the machine. */
	switch (bits) {
	case 64:
		d->info.mach = bfd_mach_x86_64;
		return 0;
	case 32:
		d->info.mach = bfd_mach_i386_i386;
		return 0;
	case 16:
		d->info.mach = bfd_mach_i386_i8086;
		return 0;
	default:
		return -EINVAL;
	}
}

int dis_insn(struct dis *d, const uint8_t *buf, size_t n, uint64_t ip,
	     char *out, size_t outsz)
{
	int len;

	if (!outsz)
		return -ENOSPC;
	out[0] = '\0';
	if (!n)
		return -EINVAL;
	d->buf = buf;
	d->n = n;
	d->ip = ip;
	d->out = out;
	d->outsz = outsz;
	d->used = 0;
	d->overflow = false;
	d->bad = false;
	d->short_read = false;
	d->naming = false;
	len = d->print(ip, &d->info);
	if (d->overflow)
		return -ENOSPC;
	/*
	 * A read past @n makes libopcodes print what GDB prints where memory
	 * ends: the first byte as a prefix's name or ".byte 0xe8", length 1.
	 * Of whole instructions only fwait (0x9b) reads past itself, looking
	 * for an x87 instruction to print with it; others were cut off.
	 */
	if (d->short_read && !(len == 1 && buf[0] == 0x9b))
		return -EILSEQ;
	if (len <= 0 || (size_t)len > n || d->bad)
		return -EILSEQ;
	return len;
}
