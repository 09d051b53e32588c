// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols of one ELF image: source lines and inlined functions from DWARF
 * through libdw, read per compilation unit on first use and bounded
 * (ROWS_MAX) so damaged or hostile DWARF costs time, never a hang.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_internal.h"

/* ---- DWARF --------------------------------------------------------------- */

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int add_cu_range(struct sym_module *m, size_t *cap, uint64_t lo,
			uint64_t hi, size_t cu)
{
	if (m->ncur == *cap) {
		size_t n = *cap ? 2 * *cap : 64;
		struct cu_range *v = realloc(m->cur, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->cur = v;
		*cap = n;
	}
	m->cur[m->ncur].lo = lo;
	m->cur[m->ncur].hi = hi;
	m->cur[m->ncur++].cu = cu;
	return 0;
}

/*
 * Opens the DWARF (image, else debug file) and lists every compilation
 * unit's address ranges, so finding an address's unit needs no
 * .debug_aranges (GCC 12 still writes it, others may not).
 */
static void load_dwarf(struct sym_module *m)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t ccap = 0, rcap = 0, total = 0;
	uint8_t unit_type;

	m->dw_tried = true;
	if (m->have_dwarf)
		m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	if (!m->dw && m->dbg)
		m->dw = dwarf_begin_elf(m->dbg, DWARF_C_READ, NULL);
	if (!m->dw)
		return;
	while (!dwarf_get_units(m->dw, cu, &cu, NULL, &unit_type, &cudie,
				NULL)) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if ((unit_type != DW_UT_compile && unit_type != DW_UT_skeleton) ||
		    (dwarf_tag(&cudie) != DW_TAG_compile_unit &&
		     dwarf_tag(&cudie) != DW_TAG_skeleton_unit))
			continue;
		if (m->ncus == ccap) {
			size_t n = ccap ? 2 * ccap : 64;
			Dwarf_Die *v = realloc(m->cus, n * sizeof(*v));

			if (!v)
				break;
			m->cus = v;
			ccap = n;
		}
		m->cus[m->ncus] = cudie;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0 &&
		       ++total < ROWS_MAX)
			if (hi > lo && add_cu_range(m, &rcap, lo, hi, m->ncus))
				break;
		m->ncus++;
	}
	if (m->ncur)
		qsort(m->cur, m->ncur, sizeof(*m->cur), cmp_cu_range);
	m->cu_lines = calloc(m->ncus ? m->ncus : 1, sizeof(*m->cu_lines));
	if (!m->cu_lines) {
		/* No line tables without it: forget the units. */
		m->ncus = 0;
		m->ncur = 0;
	}
}

/* The compilation unit holding @vaddr, as an index into @m->cus; -1. */
static ptrdiff_t cu_at(struct sym_module *m, uint64_t vaddr)
{
	size_t lo = 0, hi, k;
	Dwarf_Die die;
	Dwarf_Off off;

	if (!m->dw_tried)
		load_dwarf(m);
	if (!m->dw)
		return -1;
	hi = m->ncur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cur[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges do not nest in practice; allow a few overlaps. */
	for (k = lo; k-- > 0 && lo - k <= 16;)
		if (vaddr < m->cur[k].hi)
			return (ptrdiff_t)m->cur[k].cu;
	/* A unit without ranges: ask libdw (.debug_aranges). */
	if (!dwarf_addrdie(m->dw, vaddr, &die))
		return -1;
	off = dwarf_dieoffset(&die);
	for (k = 0; k < m->ncus; k++)
		if (dwarf_dieoffset(&m->cus[k]) == off)
			return (ptrdiff_t)k;
	return -1;
}

static bool same_file(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The line table GDB 13 builds from a unit's rows (lnp_state_machine::
 * record_line and dwarf_record_line_p in gdb/dwarf2/read.c), in address
 * order, one table for all its files:
 *  - line-0 rows are dropped, so the row before them covers their code;
 *  - a row that repeats the line and file of the last recorded one is
 *    dropped once that line has had a non-zero discriminator;
 *  - a non-statement row that switches files at an address where a
 *    statement row was just recorded is dropped;
 *  - sequences that start at address 0 (code the linker discarded) are
 *    dropped.
 * libdw keeps each sequence's rows in order, sequences sorted by address.
 */
static int build_lines(struct sym_module *m, struct cu_lines *cl,
		       Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n, i, k = 0;
	const char *last_file = NULL;
	int last_line = 0, line_reg = 1;
	uint64_t last_addr = 0;
	bool start = true, skip = false, disc_seen = false;
	bool stmt_at_addr = false, have_addr = false;

	cl->built = true;
	if (dwarf_getsrclines(cu, &lines, &n) || !n)
		return 0;
	if (n > ROWS_MAX)
		n = ROWS_MAX;
	cl->rows = malloc(n * sizeof(*cl->rows));
	if (!cl->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct lrow r = { 0 };
		unsigned int disc = 0;
		bool file_changed, ignore;

		if (!l || dwarf_lineaddr(l, &r.addr) ||
		    dwarf_lineno(l, &r.line) ||
		    dwarf_linebeginstatement(l, &r.stmt) ||
		    dwarf_lineendsequence(l, &r.end))
			continue;
		dwarf_linediscriminator(l, &disc);
		r.file = dwarf_linesrc(l, NULL, NULL);
		if (start) {
			/* check_line_address(): nothing is linked at 0. */
			skip = !r.addr && sym_section_at(m, 0) == NO_SCN;
			start = false;
			last_file = NULL;
			last_line = 0;
			line_reg = 1;
			disc_seen = false;
			have_addr = false;
		}
		if (r.end) {
			start = true;
			if (!skip)
				cl->rows[k++] = r;
			continue;
		}
		if (skip)
			continue;
		/* DW_LNS_advance_line restarts the discriminator history. */
		if (r.line != line_reg)
			disc_seen = disc;
		else
			disc_seen |= disc != 0;
		line_reg = r.line;
		file_changed = !same_file(r.file, last_file);
		ignore = !r.line ||
			 (file_changed && have_addr && last_addr == r.addr &&
			  !r.stmt && stmt_at_addr);
		if (!ignore) {
			if (file_changed || r.line != last_line || !disc_seen)
				cl->rows[k++] = r;
			last_file = r.file;
			last_line = r.line;
		}
		if (!have_addr || last_addr != r.addr) {
			stmt_at_addr = false;
			last_addr = r.addr;
			have_addr = true;
		}
		stmt_at_addr |= r.stmt;
	}
	cl->nrows = k;
	return 0;
}

/* The unit's GDB line table, or NULL; @cu gets its DIE. */
struct cu_lines *sym_lines_at(struct sym_module *m, uint64_t vaddr,
			      Dwarf_Die *cu)
{
	ptrdiff_t i = cu_at(m, vaddr);
	struct cu_lines *cl;

	if (i < 0)
		return NULL;
	*cu = m->cus[i];
	cl = &m->cu_lines[i];
	if (!cl->built && build_lines(m, cl, cu))
		return NULL;
	return cl;
}

/*
 * The row GDB's find_pc_sect_line() takes for @vaddr: the last one at or
 * below it, none if that ends a sequence, and among rows at its address
 * an is_stmt one.  @last gets the last row at or below @vaddr (where the
 * following rows start).  Returns the row's index, or -1.
 */
ptrdiff_t sym_pc_row(const struct cu_lines *cl, uint64_t vaddr,
		     size_t *last)
{
	const struct lrow *v = cl->rows;
	size_t lo = 0, hi = cl->nrows, i, j;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || v[lo - 1].end)
		return -1;
	i = lo - 1;
	*last = i;
	for (j = i; !v[i].stmt && j > 0 && v[j - 1].addr == v[j].addr &&
		    !v[j - 1].end; j--)
		if (v[j - 1].stmt)
			i = j - 1;
	return (ptrdiff_t)i;
}

bool sym_same_line(const struct lrow *a, const struct lrow *b)
{
	return a->line == b->line && same_file(a->file, b->file);
}

struct scope_walk {
	uint64_t pc;
	const char *inlined;	/* innermost so far */
	size_t budget;		/* DIEs left to look at */
};

/* A function's name as GDB shows it for C: DW_AT_linkage_name (such as
 * glibc's "__GI_memcpy") when there is one, else DW_AT_name, through
 * DW_AT_abstract_origin and DW_AT_specification.
 */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						     &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(
				die, DW_AT_MIPS_linkage_name, &attr));
	return name ? name : dwarf_diename(die);
}

static bool is_code_scope(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_entry_point:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_module:
		return true;
	default:
		return false;
	}
}

/*
 * Descends from @parent into the scopes that hold the pc, as libdw's
 * dwarf_getscopes() does (which leaks its result on some damaged DWARF):
 * code scopes only where their ranges hold the pc, namespaces and classes
 * always (they hold member functions), imported units through their
 * import.  Returns 1 once a scope holding the pc was found, else 0.
 */
static int walk_scopes(struct scope_walk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, unit;
	int tag;

	if (depth > 64 || dwarf_child(parent, &child))
		return 0;
	do {
		if (!w->budget--)
			return 0;
		tag = dwarf_tag(&child);
		if (is_code_scope(tag)) {
			if (dwarf_haspc(&child, w->pc) <= 0)
				continue;
			if (tag == DW_TAG_inlined_subroutine)
				w->inlined = die_name(&child);
			/* Scopes at one level do not overlap. */
			walk_scopes(w, &child, depth + 1);
			return 1;
		}
		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type) {
			if (walk_scopes(w, &child, depth + 1))
				return 1;
		} else if (tag == DW_TAG_imported_unit &&
			   dwarf_attr(&child, DW_AT_import, &attr) &&
			   dwarf_formref_die(&attr, &unit) &&
			   walk_scopes(w, &unit, depth + 1)) {
			return 1;
		}
	} while (!dwarf_siblingof(&child, &child));
	return 0;
}

struct fn_list {
	struct cu_lines *cl;
	size_t cap, budget;
	bool oom;
};

/* Lists the outermost code scopes under @parent with their ranges. */
static void collect_fns(struct fn_list *f, Dwarf_Die *parent, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, unit;

	if (depth > 64 || dwarf_child(parent, &child))
		return;
	do {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		int tag = dwarf_tag(&child);

		if (!f->budget-- || f->oom)
			return;
		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type) {
			collect_fns(f, &child, depth + 1);
		} else if (tag == DW_TAG_imported_unit) {
			if (dwarf_attr(&child, DW_AT_import, &attr) &&
			    dwarf_formref_die(&attr, &unit))
				collect_fns(f, &unit, depth + 1);
		} else if (is_code_scope(tag)) {
			while ((off = dwarf_ranges(&child, off, &base, &lo,
						   &hi)) > 0 &&
			       f->budget-- && !f->oom) {
				struct cu_lines *cl = f->cl;

				if (hi <= lo)
					continue;
				if (cl->nfns == f->cap) {
					size_t n = f->cap ? 2 * f->cap : 64;
					struct fn_range *v;

					v = realloc(cl->fns, n * sizeof(*v));
					if (!v) {
						f->oom = true;
						break;
					}
					cl->fns = v;
					f->cap = n;
				}
				cl->fns[cl->nfns].lo = lo;
				cl->fns[cl->nfns].hi = hi;
				cl->fns[cl->nfns++].die = child;
			}
		}
	} while (!dwarf_siblingof(&child, &child));
}

static int cmp_fn_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The innermost DW_TAG_inlined_subroutine at @vaddr, by name: the unit's
 * functions are indexed by address once, then only the one holding
 * @vaddr is walked.
 */
static const char *inlined_at(struct cu_lines *cl, Dwarf_Die *cu,
			      uint64_t vaddr, const char **func_file)
{
	struct scope_walk w = { .pc = vaddr, .budget = ROWS_MAX };
	size_t lo = 0, hi, k;

	if (!cl->fns_built) {
		struct fn_list f = { .cl = cl, .budget = ROWS_MAX };

		cl->fns_built = true;
		collect_fns(&f, cu, 0);
		if (cl->nfns)
			qsort(cl->fns, cl->nfns, sizeof(*cl->fns),
			      cmp_fn_range);
	}
	hi = cl->nfns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cl->fns[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k-- > 0 && lo - k <= 16;) {
		Dwarf_Die die = cl->fns[k].die;

		if (vaddr >= cl->fns[k].hi)
			continue;
		if (dwarf_tag(&die) == DW_TAG_inlined_subroutine)
			w.inlined = die_name(&die);
		else
			*func_file = dwarf_decl_file(&die);
		walk_scopes(&w, &die, 1);
		break;
	}
	return w.inlined;
}

void sym_source_at(struct sym_module *m, uint64_t vaddr,
		   struct sym_info *out)
{
	struct cu_lines *cl;
	Dwarf_Die cu;
	ptrdiff_t i;
	size_t last;

	cl = sym_lines_at(m, vaddr, &cu);
	if (!cl)
		return;
	i = sym_pc_row(cl, vaddr, &last);
	if (i >= 0 && cl->rows[i].file) {
		out->file = cl->rows[i].file;
		out->line = cl->rows[i].line;
	}
	out->inlined = inlined_at(cl, &cu, vaddr, &out->func_file);
}

