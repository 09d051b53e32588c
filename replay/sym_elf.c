// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols of one ELF image, step 1: its segments and sections, its ELF
 * symbol tables (.symtab, .dynsym) read with libelf and sorted the way
 * GDB's minimal_symbol_reader::install() sorts them, and its soname.
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

/* ---- small helpers ------------------------------------------------------- */

/* Stores @alen bytes of @a followed by @b into the module's strings. */
const char *sym_str_cat(struct sym_module *m, const char *a, size_t alen,
			const char *b)
{
	struct strblock *blk = m->strs;
	size_t blen = strlen(b), len = alen + blen;
	char *p;

	if (!blk || blk->cap - blk->used < len + 1) {
		size_t cap = len + 1 > 4096 ? len + 1 : 4096;

		blk = malloc(sizeof(*blk) + cap);
		if (!blk)
			return NULL;
		blk->next = m->strs;
		blk->used = 0;
		blk->cap = cap;
		m->strs = blk;
	}
	p = blk->buf + blk->used;
	memcpy(p, a, alen);
	memcpy(p + alen, b, blen + 1);
	blk->used += len + 1;
	return p;
}

int sym_add_sym(struct symtab *t, uint64_t addr, uint64_t size,
		const char *name, uint32_t scn, enum sym_kind kind,
		uint8_t plt_size)
{
	struct sym *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		s = realloc(t->v, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->v = s;
		t->cap = cap;
	}
	s = &t->v[t->n++];
	s->addr = addr;
	s->size = size;
	s->name = name;
	s->scn = scn;
	s->kind = (uint8_t)kind;
	s->plt_size = plt_size;
	return 0;
}

const char *sym_scn_name(Elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (!gelf_getshdr(scn, sh) || elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	return elf_strptr(e, shstrndx, sh->sh_name);
}

/* The first section of @e named @name, or NULL. */
Elf_Scn *sym_find_scn(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *n = sym_scn_name(e, scn, sh);

		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The data of a section that has bytes in the file, or NULL. */
Elf_Data *sym_scn_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	d = elf_getdata(scn, NULL);
	return d && d->d_buf ? d : NULL;
}

bool sym_is_elf(Elf *e)
{
	GElf_Ehdr eh;

	return e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh);
}

/* ---- layout: segments and sections --------------------------------------- */

int sym_read_segments(struct sym_module *m)
{
	size_t i, n;

	if (elf_getphdrnum(m->elf, &n) || !n)
		return 0;
	m->segs = calloc(n, sizeof(*m->segs));
	if (!m->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(m->elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD ||
		    ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;
		m->segs[m->nsegs].off = ph.p_offset;
		m->segs[m->nsegs].filesz = ph.p_filesz;
		m->segs[m->nsegs].vaddr = ph.p_vaddr;
		m->segs[m->nsegs++].exec = ph.p_flags & PF_X;
	}
	return 0;
}

static int cmp_scn_range(const void *a, const void *b)
{
	const struct scn_range *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int sym_read_sections(struct sym_module *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n;

	if (elf_getshdrnum(m->elf, &n) || n < 2)
		return 0;
	/* More would be a damaged file; the rest is ignored. */
	if (n > 65536)
		n = 65536;
	m->scns = calloc(n, sizeof(*m->scns));
	m->byaddr = calloc(n, sizeof(*m->byaddr));
	if (!m->scns || !m->byaddr)
		return -ENOMEM;
	m->nscns = n;
	while ((scn = elf_nextscn(m->elf, scn))) {
		size_t i = elf_ndxscn(scn);
		struct scn *s;

		if (i >= n || !gelf_getshdr(scn, &sh))
			continue;
		s = &m->scns[i];
		s->name = sym_scn_name(m->elf, scn, &sh);
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->alloc = sh.sh_flags & SHF_ALLOC;
		s->exec = sh.sh_flags & SHF_EXECINSTR;
		s->tls = sh.sh_flags & SHF_TLS;
		if (sh.sh_type == SHT_SYMTAB)
			m->have_symtab = true;
		if (s->name && (!strcmp(s->name, ".debug_info") ||
				!strcmp(s->name, ".zdebug_info")) &&
		    sh.sh_type != SHT_NOBITS)
			m->have_dwarf = true;
		/* GDB's objfile sections: allocated, not thread-local. */
		if (s->alloc && !s->tls && s->size &&
		    s->addr + s->size > s->addr) {
			m->byaddr[m->nbyaddr].addr = s->addr;
			m->byaddr[m->nbyaddr].end = s->addr + s->size;
			m->byaddr[m->nbyaddr++].index = (uint32_t)i;
		}
	}
	qsort(m->byaddr, m->nbyaddr, sizeof(*m->byaddr), cmp_scn_range);
	return 0;
}

/* The section index holding @vaddr, or NO_SCN. */
uint32_t sym_section_at(const struct sym_module *m, uint64_t vaddr)
{
	size_t lo = 0, hi = m->nbyaddr, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->byaddr[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Overlapping sections are rare; look at a few below. */
	for (k = lo; k-- > 0 && lo - k <= 8;)
		if (vaddr < m->byaddr[k].end)
			return m->byaddr[k].index;
	return NO_SCN;
}

/* ---- symbol tables ------------------------------------------------------- */

/* Skips what GDB's elf_symtab_read() and record_full() skip. */
static bool gdb_skips_local_text(const char *name)
{
	return (name[0] == '.' && name[1] == 'L') ||
	       (name[0] == '$' && name[1] == 'L') ||
	       !strcmp(name, "gcc2_compiled.") ||
	       !strncmp(name, "__gnu_compiled", 14);
}

/*
 * Adds the symbols of table @scn of @e to @t.  @map translates @e's
 * section indices to the image's (NULL: @e is the image); @nmap is its
 * length.
 */
static int read_symtab(struct sym_module *m, struct symtab *t, Elf *e,
		       Elf_Scn *scn, const uint32_t *map, size_t nmap)
{
	Elf_Data *d, *xd = NULL;
	Elf_Scn *x = NULL;
	GElf_Shdr sh, xsh;
	size_t i, n, ndx = elf_ndxscn(scn);

	if (!gelf_getshdr(scn, &sh) ||
	    sh.sh_entsize != gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT))
		return 0;
	d = sym_scn_data(scn, &sh);
	if (!d)
		return 0;
	/* Section indices past 0xff00 live in SHT_SYMTAB_SHNDX. */
	while ((x = elf_nextscn(e, x)))
		if (gelf_getshdr(x, &xsh) && xsh.sh_type == SHT_SYMTAB_SHNDX &&
		    xsh.sh_link == ndx)
			xd = sym_scn_data(x, &xsh);
	n = d->d_size / sh.sh_entsize;
	for (i = 1; i < n && i <= INT_MAX; i++) {
		GElf_Word xndx = 0;
		GElf_Sym s;
		const char *name, *at;
		size_t shndx;
		uint32_t idx;
		const struct scn *sec;
		int type, bind, ret;
		enum sym_kind kind;

		if (!gelf_getsymshndx(d, xd, (int)i, &s, &xndx))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		/* Undefined, absolute (GDB skips mst_abs) and common. */
		if (shndx == SHN_UNDEF ||
		    (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_XINDEX))
			continue;
		if (map)
			idx = shndx < nmap ? map[shndx] : NO_SCN;
		else
			idx = shndx < m->nscns ? (uint32_t)shndx : NO_SCN;
		if (idx == NO_SCN)
			continue;
		sec = &m->scns[idx];
		if (!sec->alloc || sec->tls)
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (sec->exec) {
			if (bind == STB_LOCAL) {
				if (gdb_skips_local_text(name))
					continue;
				kind = SK_FILE_TEXT;
			} else {
				kind = type == STT_GNU_IFUNC ? SK_IFUNC :
							       SK_TEXT;
			}
		} else {
			kind = bind == STB_LOCAL ? SK_FILE_DATA : SK_DATA;
		}
		ret = sym_add_sym(t, s.st_value, s.st_size, name, idx, kind, 0);
		if (ret)
			return ret;
		/* "foo@VER" and "foo@@VER" (.symver) also name "foo", as GDB's
		 * elf_symtab_read() records them.
		 */
		at = strchr(name, '@');
		if (at && at > name && strcmp(at, "@plt")) {
			name = sym_str_cat(m, name, (size_t)(at - name), "");
			if (!name)
				return -ENOMEM;
			ret = sym_add_sym(t, s.st_value, s.st_size, name, idx, kind,
				      0);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Adds every table of type @type (SHT_SYMTAB, SHT_DYNSYM) of @e to @t. */
int sym_read_symtabs(struct sym_module *m, struct symtab *t, Elf *e,
		     GElf_Word type, const uint32_t *map, size_t nmap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type) {
			ret = read_symtab(m, t, e, scn, map, nmap);
			if (ret)
				return ret;
		}
	return 0;
}

/* ---- sorting, as GDB's minimal_symbol_reader::install() ------------------ */

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* Beyond GDB's order (address, name): deterministic ties. */
	if (x->scn != y->scn)
		return x->scn < y->scn ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Sorts, then drops duplicates (same address, section and name) keeping
 * the last, as compact_minimal_symbols() does.
 */
void sym_finish_syms(struct symtab *t)
{
	size_t i, n = 0;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	for (i = 0; i < t->n; i++) {
		const struct sym *s = &t->v[i], *next = s + 1;

		if (i + 1 < t->n && s->addr == next->addr &&
		    s->scn == next->scn && !strcmp(s->name, next->name))
			continue;
		t->v[n++] = *s;
	}
	t->n = n;
}

/* ---- names: soname ------------------------------------------------------- */

void sym_read_soname(struct sym_module *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    sh.sh_entsize != gelf_fsize(m->elf, ELF_T_DYN, 1,
						EV_CURRENT))
			continue;
		d = sym_scn_data(scn, &sh);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n && i <= INT_MAX; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn) ||
			    dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_SONAME)
				continue;
			s = elf_strptr(m->elf, sh.sh_link, dyn.d_un.d_val);
			if (s && *s)
				m->name = s;
			return;
		}
	}
}

