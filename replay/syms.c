// SPDX-License-Identifier: GPL-3.0-or-later
/* Symbols of executed instructions: one symbols.c module per image,
 * opened on first use.
 */
#include <stdlib.h>
#include <string.h>

#include "rp_internal.h"
#include "symbols.h"

static struct sym_module *module(struct rp_session *s, uint32_t image)
{
	struct rp_image *im;

	if (!image || image > s->nimages)
		return NULL;
	im = &s->images[image - 1];
	if (!im->sym && !im->sym_failed &&
	    sym_module_open(&im->sym, im->path, im->origin))
		im->sym_failed = true;
	return im->sym;
}

int rp_symbolize(struct rp_session *s, const struct rp_insn *insn,
		 struct rp_sym *out)
{
	struct sym_module *m = module(s, insn->image);
	struct sym_info si;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -RP_ERR_NOTFOUND;
	out->module = sym_module_name(m);
	if (sym_offset_to_vaddr(m, insn->image_off, &vaddr))
		return -RP_ERR_NOTFOUND;
	out->vaddr = vaddr;
	if (sym_lookup(m, vaddr, &si))
		return 0;
	out->function = si.function;
	out->func_vaddr = si.func_vaddr;
	out->offset = si.offset;
	out->file = si.file;
	out->line = si.line;
	out->inlined = si.inlined;
	return 0;
}

void rp_syms_close(struct rp_session *s)
{
	size_t i;

	for (i = 0; i < s->nimages; i++)
		sym_module_close(s->images[i].sym);
}

int rp_name_address(struct rp_session *s, const struct rp_insn *insn,
		    uint64_t addr, const char **name, uint64_t *offset)
{
	struct sym_module *m = module(s, insn->image);
	uint64_t vaddr;

	/* Only addresses in the same image: its layout is what we know. */
	if (!m || sym_offset_to_vaddr(m, insn->image_off, &vaddr))
		return -RP_ERR_NOTFOUND;
	if (sym_name_address(m, vaddr + (addr - insn->ip), name, offset))
		return -RP_ERR_NOTFOUND;
	return 0;
}
