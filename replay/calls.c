// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The function-call history, segmented the way GDB's btrace does: a new
 * segment after every call and return, at every gap, and wherever control
 * reaches another function without a call or return (tail calls, longjmp
 * back into a caller, signal handlers).  Function changes are only looked
 * for after control-flow changes: straight-line code stays in its function.
 */
#include <stdlib.h>
#include <string.h>

#include "rp_internal.h"

struct fkey {
	uint32_t image;
	uint64_t func;		/* function start; 0: unknown */
};

struct frame {
	struct fkey key;
	int level;
};

struct builder {
	struct rp_call *v;
	size_t n, cap;
	struct frame *stack;
	size_t depth, stack_cap;
};

/*
 * GDB prints a segment's lines as "at FILE:MIN,MAX" with FILE the source
 * file of its function's symbol and only the lines in that file
 * (record-btrace.c, btrace_compute_src_line_range(): code inlined from a
 * header is not the function's).  The function's file: its
 * DW_AT_decl_file, else that of the line at its entry (its opening
 * brace).  NULL when unknown.
 */
static const char *own_file(struct rp_session *s, const struct rp_insn *insn,
			    const struct rp_sym *sym)
{
	struct rp_insn entry = *insn;
	struct rp_sym es;

	if (sym->func_file)
		return sym->func_file;
	if (!sym->function || sym->offset > insn->image_off)
		return NULL;
	entry.ip -= sym->offset;
	entry.image_off -= sym->offset;
	if (rp_symbolize(s, &entry, &es) || !es.line || !es.file ||
	    es.func_vaddr != sym->func_vaddr)
		return NULL;
	return es.file;
}

static bool in_file(const struct rp_call *c, const struct rp_sym *sym)
{
	return sym->line && sym->file && c->file && !strcmp(sym->file, c->file);
}

static int push_call(struct builder *b, uint64_t first, int level,
		     const struct rp_sym *sym, const char *own)
{
	struct rp_call *c;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct rp_call *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -RP_ERR_NOMEM;
		b->v = v;
		b->cap = cap;
	}
	c = &b->v[b->n++];
	memset(c, 0, sizeof(*c));
	c->first = c->last = first;
	c->level = level;
	c->function = sym->function ? sym->function : "??";
	c->file = own ? own : sym->file;
	if (in_file(c, sym))
		c->line_min = c->line_max = sym->line;
	return 0;
}

static int push_frame(struct builder *b, struct fkey key, int level)
{
	if (b->depth == b->stack_cap) {
		size_t cap = b->stack_cap ? 2 * b->stack_cap : 64;
		struct frame *v = realloc(b->stack, cap * sizeof(*v));

		if (!v)
			return -RP_ERR_NOMEM;
		b->stack = v;
		b->stack_cap = cap;
	}
	b->stack[b->depth].key = key;
	b->stack[b->depth++].level = level;
	return 0;
}

static bool same(struct fkey a, struct fkey b)
{
	return a.image == b.image && a.func == b.func;
}

static struct fkey key_of(const struct rp_insn *insn, const struct rp_sym *s)
{
	struct fkey k = { insn->image, s->function ? s->func_vaddr : 0 };

	return k;
}

static void add_line(struct rp_call *c, const struct rp_sym *sym)
{
	if (!sym->line)
		return;
	if (!c->file)
		c->file = sym->file;
	if (!in_file(c, sym))
		return;		/* inlined from another file */
	if (!c->line_min || sym->line < c->line_min)
		c->line_min = sym->line;
	if (sym->line > c->line_max)
		c->line_max = sym->line;
}

int rp_calls_build(struct rp_session *s, uint32_t tid, struct rp_call **calls,
		   size_t *n)
{
	struct builder b = { 0 };
	struct rp_insn prev = { 0 }, insn;
	struct rp_cursor *c;
	struct rp_sym sym;
	struct rp_thread *t = rp_find_thread(s, tid);
	struct fkey key = { 0, 0 };
	uint64_t pos, gap = 0;
	int level = 0, min_level = 0, ret;
	size_t i;

	*calls = NULL;
	*n = 0;
	if (!t)
		return -RP_ERR_NOTHREAD;
	ret = rp_cursor_new(s, tid, &c);
	if (ret == -RP_ERR_RANGE)
		return 0;	/* empty history, empty call history */
	if (ret)
		return ret;
	for (pos = 0; pos < t->insns && !ret; pos++) {
		bool boundary = false, lookup, at_gap = false;

		ret = rp_cursor_peek(c, pos, &insn);
		if (ret)
			break;
		while (gap < t->ngaps && t->gaps[gap].before <= pos)
			at_gap |= t->gaps[gap++].before == pos;
		lookup = !pos || at_gap || prev.iclass != RP_IC_OTHER ||
			 insn.ip != prev.ip + prev.size;
		/* Every instruction, for its line (TODO for 10^9-instruction
		 * histories: a line-table walk per function instead).
		 */
		rp_symbolize(s, &insn, &sym);
		if (!pos || at_gap) {
			boundary = true;
		} else if (prev.iclass == RP_IC_CALL) {
			ret = push_frame(&b, key, level);
			level++;
			boundary = true;
		} else if (prev.iclass == RP_IC_RETURN) {
			if (b.depth)
				b.depth--;
			level--;
			boundary = true;
		} else if (lookup && !same(key_of(&insn, &sym), key)) {
			/* Reached another function without call or return:
			 * back into a caller (longjmp) or sideways (tail
			 * call, signal handler).
			 */
			struct fkey k = key_of(&insn, &sym);

			/* Only a landing inside a known caller can be a
			 * return to it (longjmp); a tail call enters at the
			 * start, and unknown functions all look alike.
			 */
			for (i = b.depth; k.func && sym.offset && i-- > 0;)
				if (same(b.stack[i].key, k)) {
					level = b.stack[i].level;
					b.depth = i;
					break;
				}
			boundary = true;
		}
		if (boundary) {
			if (b.n)
				b.v[b.n - 1].last = pos - 1;
			key = key_of(&insn, &sym);
			ret = ret ? ret : push_call(&b, pos, level, &sym,
						    own_file(s, &insn, &sym));
			if (level < min_level)
				min_level = level;
		} else {
			add_line(&b.v[b.n - 1], &sym);
		}
		prev = insn;
	}
	rp_cursor_free(c);
	free(b.stack);
	if (ret) {
		free(b.v);
		return ret;
	}
	if (b.n)
		b.v[b.n - 1].last = t->insns - 1;
	for (i = 0; i < b.n; i++)
		b.v[i].level -= min_level;
	*calls = b.v;
	*n = b.n;
	return 0;
}
