// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols of one ELF image, named the way GDB 13 names them.
 *
 * GDB's `info symbol`, backtraces of code without debug info and the
 * function-call history all come from its "minimal symbols": the ELF
 * symbol table plus synthetic "foo@plt" symbols that BFD makes for PLT
 * stubs.  This module rebuilds that table with libelf, sorted once, and
 * looks addresses up with GDB's own rules (lookup_minimal_symbol_by_pc_
 * section in gdb/minsyms.c), so the names agree with GDB's even for
 * aliases, size-0 symbols and padding between functions.  Source lines and
 * inlined functions come from DWARF through libdw, read on first use.
 *
 * Everything read from the file is bounds-checked by libelf (the file is
 * mapped, and section data outside it is refused); what is malformed is
 * skipped, so a damaged image gives fewer names, never a crash.
 *
 * This file opens a module and answers the lookups of symbols.h; reading
 * the tables is in sym_elf.c, sym_plt.c, sym_debug.c and sym_dwarf.c
 * (sym_internal.h).
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

/* ---- opening ------------------------------------------------------------- */

static int read_symbols(struct sym_module *m, const char *path)
{
	uint32_t *map;
	size_t nmap = 0;
	int ret;

	/* .symtab has all .dynsym has and the local symbols; GDB reads
	 * .dynsym only from a stripped file.
	 */
	ret = sym_read_symtabs(m, &m->own, m->elf,
			   m->have_symtab ? SHT_SYMTAB : SHT_DYNSYM, NULL, 0);
	if (ret)
		return ret;
	if (!m->have_symtab || !m->have_dwarf) {
		sym_get_build_id(m->elf, &m->build_id, &m->build_id_len);
		if (!sym_try_build_id(m))
			sym_try_debuglink(m, path);
	}
	if (m->dbg && !m->have_symtab) {
		map = sym_map_sections(m, &nmap);
		ret = map ? sym_read_symtabs(m, &m->dbg_syms, m->dbg, SHT_SYMTAB,
					 map, nmap) : 0;
		free(map);
		if (ret)
			return ret;
	}
	ret = sym_read_plt(m);
	if (ret)
		return ret;
	sym_finish_syms(&m->own);
	sym_finish_syms(&m->dbg_syms);
	return 0;
}

int sym_module_open(struct sym_module **mp, const char *path,
		    const char *display)
{
	struct sym_module *m;
	struct stat st;
	int ret;

	*mp = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fd = -1;
	m->dbg_fd = -1;
	m->display = strdup(display ? display : path);
	if (!m->display) {
		ret = -ENOMEM;
		goto fail;
	}
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = -EINVAL;
	if (fstat(m->fd, &st) || !S_ISREG(st.st_mode))
		goto fail;
	elf_version(EV_CURRENT);
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!sym_is_elf(m->elf))
		goto fail;
	ret = sym_read_segments(m);
	if (!ret)
		ret = sym_read_sections(m);
	if (ret)
		goto fail;
	/* Nothing to go by: a truncated header table, or not an image. */
	if (!m->nsegs && !m->nbyaddr) {
		ret = -EINVAL;
		goto fail;
	}
	ret = read_symbols(m, path);
	if (ret)
		goto fail;
	sym_read_soname(m);
	if (!m->name) {
		const char *slash = strrchr(m->display, '/');

		m->name = slash ? slash + 1 : m->display;
	}
	*mp = m;
	return 0;
fail:
	sym_module_close(m);
	return ret;
}

void sym_module_close(struct sym_module *m)
{
	struct strblock *b, *next;
	size_t i;

	if (!m)
		return;
	if (m->dw)
		dwarf_end(m->dw);
	if (m->dbg)
		elf_end(m->dbg);
	if (m->dbg_fd >= 0)
		close(m->dbg_fd);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	for (b = m->strs; b; b = next) {
		next = b->next;
		free(b);
	}
	for (i = 0; m->cu_lines && i < m->ncus; i++) {
		free(m->cu_lines[i].rows);
		free(m->cu_lines[i].fns);
	}
	free(m->cu_lines);
	free(m->cache);
	free(m->cus);
	free(m->cur);
	free(m->own.v);
	free(m->dbg_syms.v);
	free(m->segs);
	free(m->scns);
	free(m->byaddr);
	free(m->display);
	free(m);
}

const char *sym_module_name(const struct sym_module *m)
{
	return m->name;
}

int sym_offset_to_vaddr(const struct sym_module *m, uint64_t off,
			uint64_t *vaddr)
{
	const struct seg *best = NULL;
	size_t i;

	for (i = 0; i < m->nsegs; i++) {
		const struct seg *s = &m->segs[i];

		if (off - s->off < s->filesz && (!best || (s->exec &&
							    !best->exec)))
			best = s;
	}
	if (!best)
		return -ENOENT;
	*vaddr = best->vaddr + (off - best->off);
	return 0;
}

/* ---- lookups ------------------------------------------------------------- */

static uint64_t sym_end(const struct sym *s)
{
	return s->addr + s->size;
}

/*
 * The search of GDB 13's lookup_minimal_symbol_by_pc_section() in one
 * objfile's table, with lookup_msym_prefer::TEXT and @scn, the section that
 * holds @vaddr.
 */
static const struct sym *find_in(const struct symtab *t,
				 const struct sym_module *m, uint32_t scn,
				 uint64_t vaddr)
{
	const struct sym *s = t->v;
	size_t lo = 0, hi = t->n, steps = 0;
	ptrdiff_t h, best_zero = -1;
	uint64_t scn_start = m->scns[scn].addr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* h: the last symbol at or below vaddr (the last of its address). */
	for (h = (ptrdiff_t)lo - 1; h >= 0; h--) {
		/* Below the section nothing of it can follow. */
		if (s[h].addr < scn_start || ++steps > SCAN_MAX) {
			h = -1;
			break;
		}
		if (s[h].scn != scn)
			continue;
		/* A global function beats the local or ifunc symbol that
		 * sorts just after it at the same address and size.
		 */
		if (h > 0 && s[h].kind != SK_TEXT && s[h - 1].kind == SK_TEXT &&
		    s[h].size == s[h - 1].size && s[h].addr == s[h - 1].addr &&
		    s[h].scn == s[h - 1].scn)
			continue;
		/* Size 0: keep the first seen, look for one with a size. */
		if (!s[h].size) {
			if (best_zero < 0)
				best_zero = h;
			continue;
		}
		/* Past its end: an earlier, larger symbol may hold it. */
		if (h > 0 && vaddr >= sym_end(&s[h]) &&
		    vaddr < sym_end(&s[h - 1]))
			continue;
		break;
	}
	if (best_zero >= 0 && (h < 0 || !s[h].size))
		h = best_zero;
	if (h >= 0 && s[h].size && vaddr >= sym_end(&s[h]))
		h = best_zero;
	return h >= 0 ? &s[h] : NULL;
}

/* Across the objfiles, the image first: another wins only when closer. */
static const struct sym *find_sym(const struct sym_module *m, uint64_t vaddr)
{
	uint32_t scn = sym_section_at(m, vaddr);
	const struct sym *a, *b;

	if (scn == NO_SCN)
		return NULL;
	a = find_in(&m->own, m, scn, vaddr);
	b = find_in(&m->dbg_syms, m, scn, vaddr);
	return b && (!a || b->addr > a->addr) ? b : a;
}

static struct cache_ent *cache_slot(struct sym_module *m, uint64_t vaddr)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ull;

	if (!m->cache) {
		m->cache = calloc(1u << CACHE_BITS, sizeof(*m->cache));
		if (!m->cache)
			return NULL;
	}
	return &m->cache[h >> (64 - CACHE_BITS)];
}

int sym_lookup(struct sym_module *m, uint64_t vaddr, struct sym_info *out)
{
	struct cache_ent *c = cache_slot(m, vaddr);
	const struct sym *s;
	int ret;

	if (c && c->valid && c->vaddr == vaddr) {
		*out = c->info;
		return c->ret;
	}
	memset(out, 0, sizeof(*out));
	s = find_sym(m, vaddr);
	if (s) {
		out->function = s->name;
		out->func_vaddr = s->addr;
		out->offset = vaddr - s->addr;
	}
	sym_source_at(m, vaddr, out);
	ret = out->function || out->file || out->inlined ? 0 : -ENOENT;
	if (c) {
		c->vaddr = vaddr;
		c->valid = true;
		c->ret = ret;
		c->info = *out;
	}
	return ret;
}

int sym_name_address(struct sym_module *m, uint64_t vaddr, const char **name,
		     uint64_t *offset)
{
	const struct sym *s = find_sym(m, vaddr);

	/* build_address_symbolic() drops size-0 data symbols. */
	if (!s || (!s->size && !s->plt_size &&
		   (s->kind == SK_DATA || s->kind == SK_FILE_DATA)))
		return -ENOENT;
	*name = s->name;
	*offset = vaddr - s->addr;
	return 0;
}

int sym_object_at(struct sym_module *m, uint64_t vaddr, const char **name,
		  uint64_t *offset)
{
	const struct sym *s = find_sym(m, vaddr);

	if (!s || (s->kind != SK_DATA && s->kind != SK_FILE_DATA) ||
	    vaddr - s->addr >= s->size)
		return -ENOENT;
	*name = s->name;
	*offset = vaddr - s->addr;
	return 0;
}

int sym_line_range(struct sym_module *m, uint64_t vaddr, uint64_t *begin,
		   uint64_t *end)
{
	const struct cu_lines *cl;
	const struct lrow *v, *s;
	Dwarf_Die cu;
	ptrdiff_t r;
	size_t i, k, last;

	cl = sym_lines_at(m, vaddr, &cu);
	if (!cl)
		return -ENOENT;
	r = sym_pc_row(cl, vaddr, &last);
	if (r < 0)
		return -ENOENT;
	v = cl->rows;
	/* The statement @vaddr belongs to: the last is_stmt row before. */
	for (i = (size_t)r; !v[i].stmt && i > 0 && !v[i - 1].end; i--)
		;
	if (!v[i].stmt)
		i = (size_t)r;
	s = &v[i];
	/* Back over statement rows of the same line and what lies between. */
	*begin = s->addr;
	for (k = i; k > 0 && !v[k - 1].end; k--) {
		if (!v[k - 1].stmt)
			continue;
		if (!sym_same_line(&v[k - 1], s))
			break;
		*begin = v[k - 1].addr;
	}
	/* Forward to the next statement of another line. */
	*end = vaddr + 1;
	for (k = last + 1; k < cl->nrows; k++)
		if (v[k].end || (v[k].stmt && !sym_same_line(&v[k], s))) {
			*end = v[k].addr;
			break;
		}
	return 0;
}

/* The global function named @name in @t, else a local one, or NULL. */
static const struct sym *find_name(const struct symtab *t, const char *name)
{
	const struct sym *best = NULL;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct sym *s = &t->v[i];
		bool global = s->kind == SK_TEXT || s->kind == SK_IFUNC;

		if ((s->kind == SK_DATA || s->kind == SK_FILE_DATA) ||
		    strcmp(s->name, name))
			continue;
		/* Sorted by address: the first of each binding is lowest. */
		if (!best || (global && best->kind == SK_FILE_TEXT))
			best = s;
	}
	return best;
}

int sym_find_function(const struct sym_module *m, const char *name,
		      uint64_t *vaddr, uint64_t *size)
{
	const struct sym *best = find_name(&m->own, name);
	const struct sym *other = find_name(&m->dbg_syms, name);

	if (!best || (other && best->kind == SK_FILE_TEXT &&
		      other->kind != SK_FILE_TEXT))
		best = other ? other : best;
	if (!best)
		return -ENOENT;
	*vaddr = best->addr;
	*size = best->plt_size ? best->plt_size : best->size;
	return 0;
}
