// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols through libelf and libdw: function symbols from .symtab (or
 * .dynsym), PLT stubs named "foo@plt" as GDB names them, source lines and
 * inlined functions from DWARF.  Everything is read once into sorted
 * arrays; lookups are binary searches.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

struct sym {
	uint64_t addr, size;
	const char *name;
	size_t shndx;		/* section; SIZE_MAX for PLT stubs */
	bool func;		/* code, not data */
	bool plt;
};

struct scn_range {
	uint64_t addr, size;
	size_t index;
};

struct seg {
	uint64_t off, filesz, vaddr;
};

struct sym_module {
	int fd;
	Elf *elf;
	Dwarf *dw;
	const char *name;
	char *display;
	struct sym *syms;
	size_t nsyms;
	struct seg *segs;
	size_t nsegs;
	struct scn_range *scns;	/* allocated sections, for section checks */
	size_t nscns;
	char *plt_names;	/* storage for "foo@plt" strings */
	size_t plt_used, plt_cap;
};

/* GDB orders minimal symbols by address, then name, and takes the last
 * one at an address: that is the name it prints for aliases.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int add_sym(struct sym_module *m, uint64_t addr, uint64_t size,
		   const char *name, size_t shndx, bool func, bool plt)
{
	struct sym *v;

	if (!(m->nsyms & (m->nsyms + 1)) || !m->syms) {
		v = realloc(m->syms, (2 * m->nsyms + 2) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		m->syms = v;
	}
	m->syms[m->nsyms].addr = addr;
	m->syms[m->nsyms].size = size;
	m->syms[m->nsyms].name = name;
	m->syms[m->nsyms].shndx = shndx;
	m->syms[m->nsyms].func = func;
	m->syms[m->nsyms++].plt = plt;
	return 0;
}

static int read_symtab(struct sym_module *m, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		/* Functions, and data objects for naming operands. */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC &&
		     type != STT_OBJECT) || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE || !s.st_value)
			continue;
		name = elf_strptr(m->elf, sh->sh_link, s.st_name);
		if (name && *name &&
		    add_sym(m, s.st_value, s.st_size, name, s.st_shndx,
			    type != STT_OBJECT, false))
			return -ENOMEM;
	}
	return 0;
}

static const char *plt_name(struct sym_module *m, const char *sym)
{
	size_t len = strlen(sym) + sizeof("@plt");
	char *p;

	/* Offsets, not pointers, until the storage stops growing. */
	if (m->plt_used + len > m->plt_cap) {
		size_t cap = (m->plt_cap + len) * 2;

		p = realloc(m->plt_names, cap);
		if (!p)
			return NULL;
		m->plt_names = p;
		m->plt_cap = cap;
	}
	p = m->plt_names + m->plt_used;
	snprintf(p, len, "%s@plt", sym);
	m->plt_used += len;
	return (const char *)(uintptr_t)(p - m->plt_names + 1);
}

/*
 * PLT stubs: .rela.plt lists the jump slots in stub order.  With IBT
 * (-fcf-protection) the stubs are in .plt.sec, 16 bytes each; otherwise in
 * .plt after the 16-byte PLT0.
 */
static int read_plt(struct sym_module *m, size_t shstrndx)
{
	Elf_Scn *scn = NULL, *rela = NULL, *plt = NULL, *plt_sec = NULL;
	GElf_Shdr sh, rsh, psh, dsh;
	Elf_Data *rd, *dd;
	uint64_t base;
	size_t i, n;

	while ((scn = elf_nextscn(m->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(m->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".rela.plt"))
			rela = scn;
		else if (!strcmp(name, ".plt"))
			plt = scn;
		else if (!strcmp(name, ".plt.sec"))
			plt_sec = scn;
	}
	if (!rela || !(plt || plt_sec) || !gelf_getshdr(rela, &rsh) ||
	    !rsh.sh_entsize)
		return 0;
	gelf_getshdr(plt_sec ? plt_sec : plt, &psh);
	base = psh.sh_addr + (plt_sec ? 0 : 16);
	scn = elf_getscn(m->elf, rsh.sh_link);
	if (!scn || !gelf_getshdr(scn, &dsh))
		return 0;
	rd = elf_getdata(rela, NULL);
	dd = elf_getdata(scn, NULL);
	if (!rd || !dd)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name, *pname;

		if (!gelf_getrela(rd, (int)i, &r) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		name = elf_strptr(m->elf, dsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		pname = plt_name(m, name);
		if (!pname || add_sym(m, base + 16 * i, 16, pname, SIZE_MAX,
				      true, true))
			return -ENOMEM;
	}
	return 0;
}

static void read_soname(struct sym_module *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn))) {
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(d, (int)i, &dyn) &&
			    dyn.d_tag == DT_SONAME)
				m->name = elf_strptr(m->elf, sh.sh_link,
						     dyn.d_un.d_val);
		}
	}
}

static int read_sections(struct sym_module *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0;

	while ((scn = elf_nextscn(m->elf, scn)))
		n++;
	m->scns = calloc(n + 1, sizeof(*m->scns));
	if (!m->scns)
		return -ENOMEM;
	while ((scn = elf_nextscn(m->elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_size) {
			m->scns[m->nscns].addr = sh.sh_addr;
			m->scns[m->nscns].size = sh.sh_size;
			m->scns[m->nscns++].index = elf_ndxscn(scn);
		}
	return 0;
}

/* The allocated section holding @vaddr, SIZE_MAX when none. */
static size_t section_of(const struct sym_module *m, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < m->nscns; i++)
		if (vaddr >= m->scns[i].addr &&
		    vaddr - m->scns[i].addr < m->scns[i].size)
			return m->scns[i].index;
	return SIZE_MAX;
}

static int read_segments(struct sym_module *m)
{
	size_t i, n;

	if (elf_getphdrnum(m->elf, &n))
		return -EINVAL;
	m->segs = calloc(n + 1, sizeof(*m->segs));
	if (!m->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			m->segs[m->nsegs].off = ph.p_offset;
			m->segs[m->nsegs].filesz = ph.p_filesz;
			m->segs[m->nsegs++].vaddr = ph.p_vaddr;
		}
	}
	return 0;
}

int sym_module_open(struct sym_module **mp, const char *path,
		    const char *display)
{
	struct sym_module *m;
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	GElf_Shdr sh;
	bool have_symtab = false;
	int ret;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->display = strdup(display ? display : path);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0) {
		ret = -errno;
		goto out_free;
	}
	elf_version(EV_CURRENT);
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(m->elf, &shstrndx)) {
		ret = -EINVAL;
		goto out_free;
	}
	ret = read_segments(m);
	if (!ret)
		ret = read_sections(m);
	if (ret)
		goto out_free;
	while ((scn = elf_nextscn(m->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			have_symtab = true;
	/* .symtab has everything .dynsym has, and the static functions. */
	while ((scn = elf_nextscn(m->elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    sh.sh_type == (have_symtab ? SHT_SYMTAB : SHT_DYNSYM) &&
		    (ret = read_symtab(m, scn, &sh)))
			goto out_free;
	ret = read_plt(m, shstrndx);
	if (ret)
		goto out_free;
	/* The PLT names are final: turn their offsets into pointers. */
	for (i = 0; i < m->nsyms; i++)
		if (m->syms[i].plt)
			m->syms[i].name = m->plt_names +
					  ((uintptr_t)m->syms[i].name - 1);
	qsort(m->syms, m->nsyms, sizeof(*m->syms), cmp_sym);
	read_soname(m);
	if (!m->name) {
		const char *slash = strrchr(m->display, '/');

		m->name = slash ? slash + 1 : m->display;
	}
	m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	*mp = m;
	return 0;
out_free:
	sym_module_close(m);
	return ret;
}

void sym_module_close(struct sym_module *m)
{
	if (!m)
		return;
	if (m->dw)
		dwarf_end(m->dw);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	free(m->syms);
	free(m->segs);
	free(m->scns);
	free(m->plt_names);
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
	size_t i;

	for (i = 0; i < m->nsegs; i++)
		if (off >= m->segs[i].off &&
		    off < m->segs[i].off + m->segs[i].filesz) {
			*vaddr = m->segs[i].vaddr + (off - m->segs[i].off);
			return 0;
		}
	return -ENOENT;
}

/*
 * The symbol GDB would name @vaddr with: the last (by name) of the closest
 * symbols at or below it in the same section; one with a size must
 * contain it.  @code: only functions (the containing function of code).
 */
static const struct sym *find(const struct sym_module *m, uint64_t vaddr,
			      bool code)
{
	size_t lo = 0, hi = m->nsyms, i, scn = section_of(m, vaddr);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: first symbol above vaddr.  Walk back to one that covers it:
	 * sized symbols must contain it, size-0 ones take what follows.
	 */
	for (i = lo; i-- > 0;) {
		const struct sym *s = &m->syms[i];

		if (lo - i > 256)
			break;	/* far away: nothing covers it */
		if ((code && !s->func) ||
		    (s->plt ? vaddr - s->addr >= s->size : s->shndx != scn))
			continue;
		if (!s->size || vaddr < s->addr + s->size)
			return s;
	}
	return NULL;
}

static void lines(struct sym_module *m, uint64_t vaddr, struct sym_info *out)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *line;
	int i, n, lineno;

	if (!m->dw || !dwarf_addrdie(m->dw, vaddr, &cu))
		return;
	line = dwarf_getsrc_die(&cu, vaddr);
	if (line && !dwarf_lineno(line, &lineno)) {
		out->file = dwarf_linesrc(line, NULL, NULL);
		out->line = lineno;
	}
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute attr;
			Dwarf_Die origin;

			if (dwarf_attr(&scopes[i], DW_AT_abstract_origin,
				       &attr) &&
			    dwarf_formref_die(&attr, &origin))
				out->inlined = dwarf_diename(&origin);
			break;
		}
	free(scopes);
}

int sym_lookup(struct sym_module *m, uint64_t vaddr, struct sym_info *out)
{
	const struct sym *s = find(m, vaddr, true);

	memset(out, 0, sizeof(*out));
	if (s) {
		out->function = s->name;
		out->func_vaddr = s->addr;
		out->offset = vaddr - s->addr;
	}
	lines(m, vaddr, out);
	return out->function || out->file ? 0 : -ENOENT;
}

int sym_name_address(struct sym_module *m, uint64_t vaddr, const char **name,
		     uint64_t *offset)
{
	const struct sym *s = find(m, vaddr, false);

	if (!s)
		return -ENOENT;
	*name = s->name;
	*offset = vaddr - s->addr;
	return 0;
}

int sym_find_function(const struct sym_module *m, const char *name,
		      uint64_t *vaddr, uint64_t *size)
{
	size_t i;

	for (i = 0; i < m->nsyms; i++)
		if (!strcmp(m->syms[i].name, name)) {
			*vaddr = m->syms[i].addr;
			*size = m->syms[i].size;
			return 0;
		}
	return -ENOENT;
}
