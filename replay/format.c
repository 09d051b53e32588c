// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Instruction and call-history lines in GDB's layouts, shared by the CLI
 * (ptrec insns, ptrec calls) and the GDB server's monitor commands.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "rp_internal.h"

/* Names branch targets inside the image of the instruction being printed
 * (calls to local functions and to PLT stubs), as GDB does.
 */
struct target_ctx {
	struct rp_session *s;
	const struct rp_insn *insn;
};

static int name_target(void *ctx, uint64_t addr, char *name, size_t namesz,
		       uint64_t *offset)
{
	struct target_ctx *tc = ctx;
	const char *sym;

	if (rp_name_address(tc->s, tc->insn, addr, &sym, offset))
		return -1;
	snprintf(name, namesz, "%s", sym);
	return 0;
}

#define PUT(...)							\
	do {								\
		if (n < size)						\
			n += (size_t)snprintf(buf + n, size - n,	\
					      __VA_ARGS__);		\
	} while (0)

/*
 * Number, PC prefix ("=> " for the current instruction), the address as 16
 * hex digits, <function+offset>, raw bytes padded to the 7-byte field x86
 * uses, and the disassembly: GDB 13's gdb_pretty_print_insn layout.
 */
int rp_format_insn(struct rp_session *s, const struct rp_insn *insn,
		   uint64_t pos, bool raw, bool current, char *buf, size_t size)
{
	struct target_ctx tc = { s, insn };
	struct rp_sym sym;
	char text[256];
	size_t n = 0;
	int i, len;

	if (!s->dis && dis_new(&s->dis))
		return -RP_ERR_NOMEM;
	PUT("%" PRIu64 "\t%s0x%016" PRIx64, pos + 1, current ? "=> " : "   ",
	    insn->ip);
	if (!rp_symbolize(s, insn, &sym) && sym.function)
		PUT(" <%s+%" PRIu64 ">", sym.function, sym.offset);
	PUT(":\t");
	if (raw) {
		for (i = 0; i < insn->size; i++)
			PUT("%s%02x", i ? " " : "", insn->raw[i]);
		for (i = insn->size; i < 7; i++)
			PUT("%s  ", i > insn->size ? " " : "");
		PUT("\t");
	}
	dis_set_symbolizer(s->dis, name_target, &tc);
	dis_set_bits(s->dis, insn->bits ? insn->bits : 64);
	len = dis_insn(s->dis, insn->raw, insn->size, insn->ip, text,
		       sizeof(text));
	PUT("%s", len > 0 || len == -EILSEQ ? text : "(bad)");
	return 0;
}

/* GDB prints a source range as "at FILE:MIN,MAX" (one line: "at FILE:N"). */
void rp_format_call(const struct rp_call *c, size_t index, bool tree,
		    bool lines, bool range, char *buf, size_t size)
{
	size_t n = 0;
	int k;

	PUT("%zu\t", index + 1);
	for (k = 0; tree && k < c->level; k++)
		PUT("  ");
	PUT("%s", c->function);
	if (range)
		PUT("\tinst %" PRIu64 ",%" PRIu64, c->first + 1, c->last + 1);
	if (lines && c->file && c->line_min) {
		if (c->line_min == c->line_max)
			PUT("\tat %s:%d", c->file, c->line_min);
		else
			PUT("\tat %s:%d,%d", c->file, c->line_min,
			    c->line_max);
	}
}


static const char *const gap_reasons[] = {
	[RP_GAP_DECODE] = "decode error",
	[RP_GAP_NOMAP] = "no code at this address (missing image)",
	[RP_GAP_OVERFLOW] = "trace overflow",
	[RP_GAP_LOST] = "lost trace data",
	[RP_GAP_LOOP] = "loop without conditional branches, iterations unknown",
};

void rp_format_gap(const struct rp_gap *gap, char *buf, size_t size)
{
	const char *why = gap->reason < sizeof(gap_reasons) /
		sizeof(gap_reasons[0]) && gap_reasons[gap->reason] ?
		gap_reasons[gap->reason] : "gap";

	char bytes[40] = "";

	if (gap->bytes)
		snprintf(bytes, sizeof(bytes), ", %" PRIu64 " bytes",
			 gap->bytes);
	snprintf(buf, size, "[%s at 0x%" PRIx64 ", trace offset %" PRIu64
		 "%s%s%s]", why, gap->ip, gap->offset, bytes,
		 gap->error ? ": " : "", gap->error ? gap->error : "");
}
