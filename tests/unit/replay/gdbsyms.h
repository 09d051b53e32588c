/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_disasm.c's oracle for names: ELF files read through libelf and a
 * symbolizer that follows GDB's rules for minimal symbols (gdb/elfread.c,
 * minsyms.c, printcmd.c): ELF symbols, "foo@plt" for PLT entries,
 * "foo@got.plt" for GOT slots, and which of several symbols names an
 * address.  Only test_disasm.c includes it (one source file a test).
 */
#ifndef PTREC_TESTS_GDBSYMS_H
#define PTREC_TESTS_GDBSYMS_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "disasm.h"

/* ---- ELF files, through libelf ----------------------------------------- */

struct section {
	const char *name;
	uint64_t addr, size, offset, entsize;
	uint32_t type, link, info;
	uint64_t flags;
};

struct elf_file {
	int fd;
	Elf *elf;
	size_t nsec;
	struct section *sec;	/* by section index */
};

static void elf_file_open(struct elf_file *ef, const char *path)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	ef->fd = open(path, O_RDONLY);
	cr_assert(ef->fd >= 0, "%s: %s", path, strerror(errno));
	ef->elf = elf_begin(ef->fd, ELF_C_READ, NULL);
	cr_assert_not_null(ef->elf, "%s: %s", path, elf_errmsg(-1));
	cr_assert_eq(elf_getshdrnum(ef->elf, &ef->nsec), 0, "%s", path);
	cr_assert_eq(elf_getshdrstrndx(ef->elf, &shstrndx), 0, "%s", path);
	ef->sec = calloc(ef->nsec, sizeof(*ef->sec));
	cr_assert_not_null(ef->sec);
	while ((scn = elf_nextscn(ef->elf, scn))) {
		struct section *s = &ef->sec[elf_ndxscn(scn)];
		GElf_Shdr sh;

		cr_assert_not_null(gelf_getshdr(scn, &sh));
		s->name = elf_strptr(ef->elf, shstrndx, sh.sh_name);
		if (!s->name)
			s->name = "";
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->offset = sh.sh_offset;
		s->entsize = sh.sh_entsize;
		s->type = sh.sh_type;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->flags = sh.sh_flags;
	}
	ef->sec[0].name = "";
}

static void elf_file_close(struct elf_file *ef)
{
	elf_end(ef->elf);
	close(ef->fd);
	free(ef->sec);
}

static int section_by_name(const struct elf_file *ef, const char *name)
{
	size_t i;

	for (i = 1; i < ef->nsec; i++)
		if (!strcmp(ef->sec[i].name, name))
			return (int)i;
	return -1;
}

/* The allocated section holding @addr, or -1. */
static int section_at(const struct elf_file *ef, uint64_t addr)
{
	size_t i;

	for (i = 1; i < ef->nsec; i++) {
		const struct section *s = &ef->sec[i];

		if ((s->flags & SHF_ALLOC) && addr >= s->addr &&
		    addr - s->addr < s->size)
			return (int)i;
	}
	return -1;
}

/* The bytes of section @idx from @addr to its end, in *@n. */
static uint8_t *read_section(const struct elf_file *ef, int idx, uint64_t addr,
			     size_t *n)
{
	const struct section *s = &ef->sec[idx];
	uint8_t *buf;

	cr_assert(s->type != SHT_NOBITS && addr >= s->addr &&
		  addr - s->addr < s->size);
	*n = s->addr + s->size - addr;
	buf = malloc(*n);
	cr_assert_not_null(buf);
	cr_assert_eq(pread(ef->fd, buf, *n,
			   (off_t)(s->offset + addr - s->addr)), (ssize_t)*n);
	return buf;
}

static Elf_Data *section_data(const struct elf_file *ef, size_t idx)
{
	Elf_Data *data = elf_getdata(elf_getscn(ef->elf, idx), NULL);

	cr_assert_not_null(data, "%s: %s", ef->sec[idx].name, elf_errmsg(-1));
	return data;
}

/* ---- GDB's minimal symbols --------------------------------------------- */

enum mst {
	MST_UNKNOWN,
	MST_TEXT,
	MST_TEXT_IFUNC,
	MST_FILE_TEXT,
	MST_DATA,
	MST_DATA_IFUNC,
	MST_BSS,
	MST_FILE_DATA,
	MST_FILE_BSS,
	MST_ABS,
	MST_TRAMPOLINE,
	MST_GOT_PLT,
};

#define SEC_NONE	(-1)	/* no section, as absolute symbols */
#define SEC_OTHER	(-2)	/* a debug file's section the file lacks */

struct msym {
	char *name;
	uint64_t addr, size;
	bool has_size;
	enum mst type;
	int sec;	/* section index in the main file, or SEC_* */
};

struct objfile {
	struct msym *sym;
	size_t n, cap;
};

/* What GDB knows of one shared object or program. */
struct gdb_syms {
	const struct elf_file *main;
	struct objfile obj[2];	/* the file, then its separate debug file */
	size_t nobj;
};

static void add_msym(struct objfile *o, const char *name, size_t len,
		     uint64_t addr, enum mst type, int sec, bool has_size,
		     uint64_t size)
{
	struct msym *m;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 256;
		o->sym = realloc(o->sym, o->cap * sizeof(*o->sym));
		cr_assert_not_null(o->sym);
	}
	m = &o->sym[o->n++];
	m->name = strndup(name, len);
	cr_assert_not_null(m->name);
	m->addr = addr;
	m->type = type;
	m->sec = sec;
	m->has_size = has_size;
	m->size = size;
}

/* A symbol's section as a section of the main file (matching_obj_sections). */
static int main_section(const struct gdb_syms *gs, const struct elf_file *ef,
			size_t shndx)
{
	const struct section *s = &ef->sec[shndx];
	size_t i;

	if (ef == gs->main)
		return (int)shndx;
	for (i = 1; i < gs->main->nsec; i++) {
		const struct section *m = &gs->main->sec[i];

		if (m->addr == s->addr && m->size == s->size &&
		    !strcmp(m->name, s->name))
			return (int)i;
	}
	return SEC_OTHER;
}

/*
 * elf_symtab_read(): which ELF symbols become minimal symbols, of which
 * type.  BFD's flags follow the binding: local, global (when defined),
 * weak, unique.
 */
static void read_symtab(struct gdb_syms *gs, struct objfile *o,
			const struct elf_file *ef, size_t symsec, bool dynamic,
			bool stripped)
{
	const struct section *ss = &ef->sec[symsec];
	Elf_Data *data = section_data(ef, symsec);
	size_t i, count = ss->entsize ? ss->size / ss->entsize : 0;

	for (i = 1; i < count; i++) {
		const struct section *s;
		const char *name;
		bool global, local;
		enum mst type;
		GElf_Sym sym;
		int bind, stt;

		cr_assert_not_null(gelf_getsym(data, (int)i, &sym));
		name = elf_strptr(ef->elf, ss->link, sym.st_name);
		if (!name || !*name)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		stt = GELF_ST_TYPE(sym.st_info);
		if (dynamic && sym.st_shndx == SHN_UNDEF &&
		    (stt == STT_FUNC || stt == STT_GNU_IFUNC)) {
			/* A PLT address that a function pointer resolves to. */
			int sec = section_at(gs->main, sym.st_value);

			if (!sym.st_value || sec < 0)
				continue;
			if (strncmp(gs->main->sec[sec].name, ".plt", 4) &&
			    section_by_name(gs->main, ".plt") >= 0)
				continue;
			add_msym(o, name, strlen(name), sym.st_value,
				 MST_TRAMPOLINE, sec, false, 0);
			continue;
		}
		if (dynamic && !stripped)
			continue;
		if (stt == STT_FILE || stt == STT_SECTION)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_COMMON ||
		    (sym.st_shndx >= SHN_LORESERVE &&
		     sym.st_shndx != SHN_ABS) ||
		    (sym.st_shndx != SHN_ABS && sym.st_shndx >= ef->nsec))
			continue;
		local = bind == STB_LOCAL;
		global = bind == STB_GLOBAL || bind == STB_WEAK ||
			 bind == STB_GNU_UNIQUE;
		if (!local && !global)
			continue;
		if (sym.st_shndx == SHN_ABS) {
			add_msym(o, name, strlen(name), sym.st_value, MST_ABS,
				 SEC_NONE, true, sym.st_size);
			continue;
		}
		s = &ef->sec[sym.st_shndx];
		if (s->flags & SHF_EXECINSTR) {
			if (global)
				type = stt == STT_GNU_IFUNC ? MST_TEXT_IFUNC :
							      MST_TEXT;
			else if (name[0] == '.' && name[1] == 'L')
				continue;	/* a compiler's label */
			else
				type = MST_FILE_TEXT;
		} else if (s->flags & SHF_ALLOC) {
			bool load = s->type != SHT_NOBITS;

			if (global && stt == STT_GNU_IFUNC)
				type = MST_DATA_IFUNC;
			else if (global)
				type = load ? MST_DATA : MST_BSS;
			else
				type = load ? MST_FILE_DATA : MST_FILE_BSS;
		} else {
			continue;
		}
		add_msym(o, name, strlen(name), sym.st_value, type,
			 main_section(gs, ef, sym.st_shndx), true,
			 sym.st_size);
	}
}

struct dynreloc {
	uint64_t offset;
	int64_t addend;
	const char *name;	/* the symbol's, or BFD's "*ABS*" */
	size_t sec;		/* the relocation section */
};

/* Every relocation against the dynamic symbol table. */
static struct dynreloc *read_dynrelocs(const struct elf_file *ef,
				       size_t *count)
{
	struct dynreloc *r = NULL;
	size_t i, n = 0;

	for (i = 1; i < ef->nsec; i++) {
		const struct section *s = &ef->sec[i];
		size_t k, nrel;
		Elf_Data *data;

		if (s->type != SHT_RELA || !s->link || s->link >= ef->nsec ||
		    ef->sec[s->link].type != SHT_DYNSYM || !s->entsize)
			continue;
		data = section_data(ef, i);
		nrel = s->size / s->entsize;
		r = realloc(r, (n + nrel) * sizeof(*r));
		cr_assert_not_null(r);
		for (k = 0; k < nrel; k++) {
			const struct section *dynsym = &ef->sec[s->link];
			size_t symi;
			GElf_Rela rela;
			GElf_Sym sym;

			cr_assert_not_null(gelf_getrela(data, (int)k, &rela));
			symi = GELF_R_SYM(rela.r_info);
			r[n].offset = rela.r_offset;
			r[n].addend = rela.r_addend;
			r[n].sec = i;
			r[n].name = "*ABS*";
			if (symi &&
			    gelf_getsym(section_data(ef, s->link), (int)symi,
					&sym))
				r[n].name = elf_strptr(ef->elf, dynsym->link,
						       sym.st_name);
			n++;
		}
	}
	*count = n;
	return r;
}

/*
 * BFD's synthetic symbols (elf_x86_64_get_synthetic_symtab): a PLT entry
 * that jumps through a GOT slot with a dynamic relocation is "sym@plt", or
 * "sym+0xaddend@plt"; GDB adds a trampoline "sym" at the same address.
 */
static void read_plt_entries(struct objfile *o, const struct elf_file *ef,
			     const struct dynreloc *rel, size_t nrel)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	size_t p;

	for (p = 0; p < sizeof(plts) / sizeof(plts[0]); p++) {
		int idx = section_by_name(ef, plts[p]);
		const struct section *s;
		uint64_t entsize, e;
		uint8_t *code;
		size_t n;

		if (idx < 0)
			continue;
		s = &ef->sec[idx];
		entsize = s->entsize ? s->entsize : 16;
		code = read_section(ef, idx, s->addr, &n);
		for (e = 0; e + entsize <= n; e += entsize) {
			const uint8_t *c = code + e;
			uint64_t got;
			int32_t disp;
			char name[512];
			size_t at = 0, k;

			if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e &&
			    c[3] == 0xfa)
				at = 4;			/* endbr64 */
			if (c[at] == 0xf2)
				at++;			/* bnd */
			if (at + 6 > entsize || c[at] != 0xff ||
			    c[at + 1] != 0x25)
				continue;		/* jmp *disp(%rip) */
			memcpy(&disp, c + at + 2, 4);
			got = s->addr + e + at + 6 + (uint64_t)(int64_t)disp;
			for (k = 0; k < nrel && rel[k].offset != got; k++)
				;
			if (k == nrel)
				continue;
			if (rel[k].addend)
				snprintf(name, sizeof(name), "%s+0x%" PRIx64,
					 rel[k].name, (uint64_t)rel[k].addend);
			else
				snprintf(name, sizeof(name), "%s",
					 rel[k].name);
			add_msym(o, name, strlen(name), s->addr + e,
				 MST_TRAMPOLINE, idx, true, 0);
			strcat(name, "@plt");
			add_msym(o, name, strlen(name), s->addr + e, MST_TEXT,
				 idx, false, 0);
		}
		free(code);
	}
}

/*
 * elf_rel_plt_read_minimal_symbols(): "sym@got.plt" for each relocation
 * of the section that relocates .plt or .got.plt.
 */
static void read_got_plt(struct objfile *o, const struct elf_file *ef,
			 const struct dynreloc *rel, size_t nrel)
{
	int got = section_by_name(ef, ".got.plt");
	int plt = section_by_name(ef, ".plt");
	size_t relsec = 0, i, k;

	if (got < 0)
		got = section_by_name(ef, ".got");
	if (got < 0)
		return;
	for (i = 1; i < ef->nsec && !relsec; i++)
		if ((ef->sec[i].type == SHT_RELA ||
		     ef->sec[i].type == SHT_REL) &&
		    ((plt >= 0 && ef->sec[i].info == (uint32_t)plt) ||
		     ef->sec[i].info == (uint32_t)got))
			relsec = i;
	for (k = 0; k < nrel; k++) {
		const struct section *g = &ef->sec[got];
		char name[512];
		int sec;

		if (rel[k].sec != relsec)
			continue;
		if (rel[k].offset >= g->addr &&
		    rel[k].offset - g->addr < g->size)
			sec = got;
		else if (plt >= 0 && rel[k].offset >= ef->sec[plt].addr &&
			 rel[k].offset - ef->sec[plt].addr < ef->sec[plt].size)
			sec = plt;
		else
			continue;
		snprintf(name, sizeof(name), "%s@got.plt", rel[k].name);
		add_msym(o, name, strlen(name), rel[k].offset, MST_GOT_PLT,
			 sec, true, 8);
	}
}

static int msym_cmp(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* minimal_symbol_reader::install(): sorted by address, then name. */
static void install(struct objfile *o)
{
	size_t i, n = 0;

	qsort(o->sym, o->n, sizeof(*o->sym), msym_cmp);
	for (i = 0; i < o->n; i++) {
		struct msym *m = &o->sym[i];

		if (i + 1 < o->n && m->addr == m[1].addr &&
		    m->sec == m[1].sec && !strcmp(m->name, m[1].name)) {
			if (m[1].type == MST_UNKNOWN)
				m[1].type = m->type;
			free(m->name);
			continue;
		}
		o->sym[n++] = *m;
	}
	o->n = n;
}

/* The symbols GDB reads from the file itself (elf_read_minimal_symbols). */
static void read_main(struct gdb_syms *gs, const struct elf_file *ef)
{
	struct objfile *o = &gs->obj[0];
	int symtab = -1, dynsym = -1;
	struct dynreloc *rel;
	bool stripped;
	size_t i, nrel;

	gs->main = ef;
	gs->nobj = 1;
	for (i = 1; i < ef->nsec; i++) {
		if (ef->sec[i].type == SHT_SYMTAB)
			symtab = (int)i;
		if (ef->sec[i].type == SHT_DYNSYM)
			dynsym = (int)i;
	}
	/* BFD's symbol count leaves out the null symbol. */
	stripped = symtab < 0 ||
		   ef->sec[symtab].size <= ef->sec[symtab].entsize;
	if (symtab >= 0)
		read_symtab(gs, o, ef, (size_t)symtab, false, stripped);
	if (dynsym >= 0)
		read_symtab(gs, o, ef, (size_t)dynsym, true, stripped);
	rel = read_dynrelocs(ef, &nrel);
	read_plt_entries(o, ef, rel, nrel);
	read_got_plt(o, ef, rel, nrel);
	free(rel);
	install(o);
}

/* A separate debug file's .symtab, as a second objfile. */
static void read_debug(struct gdb_syms *gs, const struct elf_file *dbg)
{
	struct objfile *o = &gs->obj[1];
	size_t i;

	gs->nobj = 2;
	for (i = 1; i < dbg->nsec; i++)
		if (dbg->sec[i].type == SHT_SYMTAB)
			read_symtab(gs, o, dbg, i, false, false);
	install(o);
}

static void gdb_syms_free(struct gdb_syms *gs)
{
	size_t k, i;

	for (k = 0; k < gs->nobj; k++) {
		for (i = 0; i < gs->obj[k].n; i++)
			free(gs->obj[k].sym[i].name);
		free(gs->obj[k].sym);
	}
}

/* find_pc_section(): TLS sections are not in GDB's section map. */
static int pc_section(const struct elf_file *ef, uint64_t pc)
{
	int idx = section_at(ef, pc);

	if (idx >= 0 && (ef->sec[idx].flags & SHF_TLS))
		return -1;
	return idx;
}

/* lookup_minimal_symbol_by_pc_section() within one objfile. */
static const struct msym *lookup_objfile(const struct objfile *o, uint64_t pc,
					 int sec)
{
	const struct msym *m = o->sym;
	size_t lo = 0, up = o->n;
	long hi, best_zero = -1;

	if (!o->n || pc < m[0].addr)
		return NULL;
	while (lo < up) {
		size_t mid = (lo + up) / 2;

		if (m[mid].addr <= pc)
			lo = mid + 1;
		else
			up = mid;
	}
	hi = (long)lo - 1;	/* the last of the symbols at the address */
	while (hi >= 0) {
		if (m[hi].type == MST_ABS) {
			hi--;
			continue;
		}
		if (m[hi].sec != SEC_NONE && m[hi].sec != sec) {
			hi--;
			continue;
		}
		/* Prefer a text symbol to an otherwise identical other one. */
		if (hi > 0 && m[hi].type != MST_TEXT &&
		    m[hi - 1].type == MST_TEXT &&
		    m[hi].size == m[hi - 1].size &&
		    m[hi].addr == m[hi - 1].addr &&
		    m[hi].sec == m[hi - 1].sec) {
			hi--;
			continue;
		}
		if (m[hi].size == 0) {
			if (best_zero == -1)
				best_zero = hi;
			hi--;
			continue;
		}
		if (hi > 0 && pc >= m[hi].addr + m[hi].size &&
		    pc < m[hi - 1].addr + m[hi - 1].size) {
			hi--;
			continue;
		}
		break;
	}
	if (best_zero != -1 && (hi < 0 || m[hi].size == 0))
		hi = best_zero;
	if (hi >= 0 && m[hi].size != 0 && pc >= m[hi].addr + m[hi].size) {
		if (best_zero == -1)
			return NULL;
		hi = best_zero;
	}
	return hi >= 0 ? &m[hi] : NULL;
}

/* build_address_symbolic() with minimal symbols only. */
static const struct msym *gdb_symbol(const struct gdb_syms *gs, uint64_t pc)
{
	const struct msym *best = NULL;
	int sec = pc_section(gs->main, pc);
	size_t k;

	if (sec < 0)
		return NULL;
	for (k = 0; k < gs->nobj; k++) {
		const struct msym *m = lookup_objfile(&gs->obj[k], pc, sec);

		if (m && (!best || best->addr < m->addr))
			best = m;
	}
	if (best && best->has_size && best->size == 0 &&
	    best->type != MST_TEXT && best->type != MST_TEXT_IFUNC &&
	    best->type != MST_FILE_TEXT)
		return NULL;
	return best;
}

static int symbolize(void *ctx, uint64_t addr, char *name, size_t namesz,
		     uint64_t *offset)
{
	const struct msym *m = gdb_symbol(ctx, addr);

	if (!m)
		return -1;
	snprintf(name, namesz, "%s", m->name);
	*offset = addr - m->addr;
	return 0;
}

#endif
