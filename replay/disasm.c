// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Disassembly with libopcodes, the disassembler GDB itself uses, printing
 * addresses the way GDB's print_address does ("0x1139 <main+4>").
 */
#include <dis-asm.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"

struct dis {
	disassembler_ftype print;
	struct disassemble_info info;
	dis_sym_fn sym;
	void *sym_ctx;
	char *out;
	size_t outsz, used;
	bool overflow;
};

static int emit(struct dis *d, const char *fmt, va_list ap)
{
	int n = vsnprintf(d->out + d->used, d->outsz - d->used, fmt, ap);

	if (n < 0 || (size_t)n >= d->outsz - d->used) {
		d->overflow = true;
		d->used = d->outsz - 1;
		return 0;
	}
	d->used += (size_t)n;
	return n;
}

static int print_plain(void *stream, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = emit(stream, fmt, ap);
	va_end(ap);
	return n;
}

static int print_styled(void *stream, enum disassembler_style style,
			const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)style;	/* GDB styles only on a terminal */
	va_start(ap, fmt);
	n = emit(stream, fmt, ap);
	va_end(ap);
	return n;
}

/* As GDB's print_address: "0x<hex>", then " <sym+off>" when known. */
static void print_address(bfd_vma addr, struct disassemble_info *info)
{
	struct dis *d = info->stream;
	uint64_t off = 0;
	char name[256];

	print_plain(d, "0x%" PRIx64, (uint64_t)addr);
	if (d->sym && !d->sym(d->sym_ctx, addr, name, sizeof(name), &off)) {
		if (off)
			print_plain(d, " <%s+%" PRIu64 ">", name, off);
		else
			print_plain(d, " <%s>", name);
	}
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
	init_disassemble_info(&d->info, d, print_plain, print_styled);
	d->info.arch = bfd_arch_i386;
	d->info.mach = bfd_mach_x86_64;
	d->info.endian = BFD_ENDIAN_LITTLE;
	d->info.read_memory_func = buffer_read_memory;
	d->info.print_address_func = print_address;
	disassemble_init_for_target(&d->info);
	*dp = d;
	return 0;
}

void dis_free(struct dis *d)
{
	free(d);
}

void dis_set_symbolizer(struct dis *d, dis_sym_fn fn, void *ctx)
{
	d->sym = fn;
	d->sym_ctx = ctx;
}

int dis_insn(struct dis *d, const uint8_t *buf, size_t n, uint64_t ip,
	     char *out, size_t outsz)
{
	int len;

	if (!outsz)
		return -ENOSPC;
	d->out = out;
	d->outsz = outsz;
	d->used = 0;
	d->overflow = false;
	out[0] = '\0';
	d->info.buffer = (bfd_byte *)buf;
	d->info.buffer_vma = ip;
	d->info.buffer_length = n;
	len = d->print(ip, &d->info);
	/* libopcodes pads some mnemonics with trailing blanks. */
	while (d->used && out[d->used - 1] == ' ')
		out[--d->used] = '\0';
	if (d->overflow)
		return -ENOSPC;
	if (len <= 0 || (size_t)len > n || strstr(out, "(bad)"))
		return -EILSEQ;
	return len;
}
