// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Symbols of one ELF image, named the way GDB 13 names them.
 *
 * GDB's `info symbol`, backtraces of code without debug info and the
 * function-call history all come from its "minimal symbols": the ELF
 * symbol table plus synthetic "foo@plt" symbols that BFD makes for PLT
 * stubs.  This file rebuilds that table with libelf, sorted once, and
 * looks addresses up with GDB's own rules (lookup_minimal_symbol_by_pc_
 * section in gdb/minsyms.c), so the names agree with GDB's even for
 * aliases, size-0 symbols and padding between functions.  Source lines and
 * inlined functions come from DWARF through libdw, read on first use.
 *
 * Everything read from the file is bounds-checked by libelf (the file is
 * mapped, and section data outside it is refused); what is malformed is
 * skipped, so a damaged image gives fewer names, never a crash.
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

#include "symbols.h"

/* GDB's debug-file-directory on Debian (-D to test without one). */
#ifndef DEBUG_ROOT
#define DEBUG_ROOT		"/usr/lib/debug"
#endif
/* Symbols one lookup walks back over (GDB has no bound; zero-size labels
 * are the only way to get near it).
 */
#define SCAN_MAX		4096
/* Lookups remembered per module: traces revisit loop bodies. */
#define CACHE_BITS		9
/* Line-table rows, ranges and DIEs read per unit, at most (damaged or
 * hostile DWARF costs time, not a hang).
 */
#define ROWS_MAX		(1u << 20)
#define NO_SCN			UINT32_MAX

/* GDB's minimal symbol types, as far as lookups tell them apart. */
enum sym_kind {
	SK_TEXT,		/* mst_text: global or weak code */
	SK_FILE_TEXT,		/* mst_file_text: local code */
	SK_IFUNC,		/* mst_text_gnu_ifunc */
	SK_DATA,		/* mst_data, mst_bss */
	SK_FILE_DATA,		/* mst_file_data, mst_file_bss */
};

struct sym {
	uint64_t addr;
	uint64_t size;		/* 0 also for PLT stubs, as in GDB */
	const char *name;
	uint32_t scn;		/* section index in the image */
	uint8_t kind;
	uint8_t plt_size;	/* stub length of "foo@plt", else 0 */
};

struct scn {
	uint64_t addr, size;
	const char *name;
	bool alloc, exec, tls;
};

struct scn_range {
	uint64_t addr, end;
	uint32_t index;
};

struct seg {
	uint64_t off, filesz, vaddr;
	bool exec;
};

struct cu_range {
	uint64_t lo, hi;
	size_t cu;
};

/* A row of the line table as GDB records it (see build_lines()). */
struct lrow {
	Dwarf_Addr addr;
	const char *file;
	int line;
	bool stmt, end;
};

/* A code scope at the top of a unit (a function), by address. */
struct fn_range {
	uint64_t lo, hi;
	Dwarf_Die die;
};

/* What is built per compilation unit on first use. */
struct cu_lines {
	struct lrow *rows;
	size_t nrows;
	bool built;
	struct fn_range *fns;
	size_t nfns;
	bool fns_built;
};

struct cache_ent {
	uint64_t vaddr;
	bool valid;
	int ret;
	struct sym_info info;
};

struct strblock {
	struct strblock *next;
	size_t used, cap;
	char buf[];
};

/* One objfile's minimal symbols, sorted by address, then name. */
struct symtab {
	struct sym *v;
	size_t n, cap;
};

struct sym_module {
	int fd, dbg_fd;
	Elf *elf;
	Elf *dbg;		/* separate debug file, or NULL */
	char *display;
	const char *name;

	struct scn *scns;	/* by section index */
	size_t nscns;
	struct scn_range *byaddr; /* allocated sections by address */
	size_t nbyaddr;
	struct seg *segs;
	size_t nsegs;

	/*
	 * GDB keeps the image's symbols and those of its separate debug file
	 * apart and prefers the image's at equal addresses: @own holds the
	 * image's (.symtab, else .dynsym, and the PLT stubs), @dbg_syms the
	 * debug file's .symtab when the image has none.
	 */
	struct symtab own, dbg_syms;
	struct strblock *strs;	/* "foo@plt" and version-less names */

	bool have_symtab, have_dwarf;
	const void *build_id;	/* points into the mapped image */
	size_t build_id_len;

	bool dw_tried;
	Dwarf *dw;
	Dwarf_Die *cus;
	struct cu_lines *cu_lines;	/* per unit, built on first use */
	size_t ncus;
	struct cu_range *cur;
	size_t ncur;

	struct cache_ent *cache;
};

/* ---- small helpers ------------------------------------------------------- */

/* Stores @alen bytes of @a followed by @b into the module's strings. */
static const char *str_cat(struct sym_module *m, const char *a, size_t alen,
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

static int add_sym(struct symtab *t, uint64_t addr, uint64_t size,
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

static const char *scn_name(Elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (!gelf_getshdr(scn, sh) || elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	return elf_strptr(e, shstrndx, sh->sh_name);
}

/* The first section of @e named @name, or NULL. */
static Elf_Scn *find_scn(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *n = scn_name(e, scn, sh);

		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The data of a section that has bytes in the file, or NULL. */
static Elf_Data *scn_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	d = elf_getdata(scn, NULL);
	return d && d->d_buf ? d : NULL;
}

static bool is_elf(Elf *e)
{
	GElf_Ehdr eh;

	return e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh);
}

/* ---- layout: segments and sections --------------------------------------- */

static int read_segments(struct sym_module *m)
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

static int read_sections(struct sym_module *m)
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
		s->name = scn_name(m->elf, scn, &sh);
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
static uint32_t section_at(const struct sym_module *m, uint64_t vaddr)
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
	d = scn_data(scn, &sh);
	if (!d)
		return 0;
	/* Section indices past 0xff00 live in SHT_SYMTAB_SHNDX. */
	while ((x = elf_nextscn(e, x)))
		if (gelf_getshdr(x, &xsh) && xsh.sh_type == SHT_SYMTAB_SHNDX &&
		    xsh.sh_link == ndx)
			xd = scn_data(x, &xsh);
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
		ret = add_sym(t, s.st_value, s.st_size, name, idx, kind, 0);
		if (ret)
			return ret;
		/* "foo@VER" and "foo@@VER" (.symver) also name "foo", as GDB's
		 * elf_symtab_read() records them.
		 */
		at = strchr(name, '@');
		if (at && at > name && strcmp(at, "@plt")) {
			name = str_cat(m, name, (size_t)(at - name), "");
			if (!name)
				return -ENOMEM;
			ret = add_sym(t, s.st_value, s.st_size, name, idx, kind,
				      0);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Adds every table of type @type (SHT_SYMTAB, SHT_DYNSYM) of @e to @t. */
static int read_symtabs(struct sym_module *m, struct symtab *t, Elf *e,
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

/* ---- PLT stubs ----------------------------------------------------------- */

struct slot {
	uint64_t got;
	uint64_t addend;
	const char *name;
	bool used;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static struct slot *find_slot(struct slot *v, size_t n, uint64_t got)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].got == got ? &v[lo] : NULL;
}

/* The GOT slots that dynamic relocations fill, with their symbols' names. */
static int read_slots(struct sym_module *m, Elf_Scn *dynsym,
		      struct slot **out, size_t *nout)
{
	size_t dynndx = elf_ndxscn(dynsym), n = 0, cap = 0;
	Elf_Data *symd;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, dsh;
	struct slot *v = NULL;

	if (!gelf_getshdr(dynsym, &dsh))
		return 0;
	symd = scn_data(dynsym, &dsh);
	while ((scn = elf_nextscn(m->elf, scn))) {
		Elf_Data *d;
		size_t i, nrel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_link != dynndx ||
		    sh.sh_entsize != gelf_fsize(m->elf, ELF_T_RELA, 1,
						EV_CURRENT))
			continue;
		d = scn_data(scn, &sh);
		nrel = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < nrel && i <= INT_MAX; i++) {
			const char *name = "*ABS*";
			unsigned long type;
			GElf_Rela r;
			GElf_Sym s;

			if (!gelf_getrela(d, (int)i, &r))
				continue;
			type = GELF_R_TYPE(r.r_info);
			if (type != R_X86_64_JUMP_SLOT &&
			    type != R_X86_64_GLOB_DAT &&
			    type != R_X86_64_IRELATIVE)
				continue;
			if (GELF_R_SYM(r.r_info)) {
				if (!symd || GELF_R_SYM(r.r_info) > INT_MAX ||
				    !gelf_getsym(symd, (int)GELF_R_SYM(r.r_info),
						 &s))
					continue;
				name = elf_strptr(m->elf, dsh.sh_link,
						  s.st_name);
				if (!name || !*name)
					continue;
			}
			if (n == cap) {
				struct slot *t;

				cap = cap ? 2 * cap : 64;
				t = realloc(v, cap * sizeof(*v));
				if (!t) {
					free(v);
					return -ENOMEM;
				}
				v = t;
			}
			v[n].got = r.r_offset;
			v[n].addend = (uint64_t)r.r_addend;
			v[n].name = name;
			v[n++].used = false;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_slot);
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Names the stubs of one PLT section.  Every x86-64 PLT entry that can be
 * called jumps through its GOT slot with "[endbr64] [bnd] jmp
 * *disp32(%rip)" at its start; the slot's relocation names the symbol.
 * PLT0 and the lazy entries of an IBT PLT (endbr64; push; jmp) start
 * otherwise and stay nameless, as in BFD.
 */
static int name_plt(struct sym_module *m, Elf_Scn *scn, const GElf_Shdr *sh,
		    const char *secname, struct slot *slots, size_t nslots)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const unsigned char *p;
	Elf_Data *d = scn_data(scn, sh);
	size_t size, ent, off;
	uint32_t idx = (uint32_t)elf_ndxscn(scn);

	if (!d || !(sh->sh_flags & SHF_EXECINSTR) || idx >= m->nscns)
		return 0;
	p = d->d_buf;
	size = d->d_size < sh->sh_size ? d->d_size : sh->sh_size;
	/* .plt and .plt.sec entries are 16 bytes; .plt.got and .plt.bnd
	 * ones 8, or 16 with IBT.
	 */
	if (!strcmp(secname, ".plt") || !strcmp(secname, ".plt.sec") ||
	    (size >= 4 && !memcmp(p, endbr64, 4)))
		ent = 16;
	else
		ent = 8;
	for (off = 0; off + ent <= size; off += ent) {
		const unsigned char *e = p + off;
		size_t i = 0;
		int32_t disp;
		uint64_t got;
		struct slot *sl;
		char buf[40];
		const char *name;
		int ret;

		if (!memcmp(e, endbr64, 4))
			i = 4;
		if (e[i] == 0xf2)	/* bnd */
			i++;
		if (i + 6 > ent || e[i] != 0xff || e[i + 1] != 0x25)
			continue;
		disp = (int32_t)((uint32_t)e[i + 2] | (uint32_t)e[i + 3] << 8 |
				 (uint32_t)e[i + 4] << 16 |
				 (uint32_t)e[i + 5] << 24);
		got = sh->sh_addr + off + i + 6 + (uint64_t)(int64_t)disp;
		sl = find_slot(slots, nslots, got);
		/* One stub per slot, as BFD guards against corrupt PLTs. */
		if (!sl || sl->used)
			continue;
		sl->used = true;
		/* BFD's name: symbol, "+0x<addend>" if any, "@plt". */
		if (sl->addend)
			snprintf(buf, sizeof(buf), "+0x%llx@plt",
				 (unsigned long long)sl->addend);
		else
			snprintf(buf, sizeof(buf), "@plt");
		name = str_cat(m, sl->name, strlen(sl->name), buf);
		if (!name)
			return -ENOMEM;
		ret = add_sym(&m->own, sh->sh_addr + off, 0, name, idx, SK_TEXT,
			      (uint8_t)ent);
		if (ret)
			return ret;
	}
	return 0;
}

/* BFD's synthetic "foo@plt" symbols (elf_x86_64_get_synthetic_symtab). */
static int read_plt(struct sym_module *m)
{
	static const char *const names[] = {
		".plt", ".plt.sec", ".plt.bnd", ".plt.got"
	};
	struct slot *slots = NULL;
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t nslots = 0, i;
	int ret;

	if (!gelf_getehdr(m->elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	while ((scn = elf_nextscn(m->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			break;
		}
	/* Like BFD: no dynamic symbols (a static program), no stubs. */
	if (!dynsym)
		return 0;
	ret = read_slots(m, dynsym, &slots, &nslots);
	for (i = 0; !ret && nslots && i < sizeof(names) / sizeof(*names);
	     i++) {
		scn = find_scn(m->elf, names[i], &sh);
		if (scn && sh.sh_type == SHT_PROGBITS)
			ret = name_plt(m, scn, &sh, names[i], slots, nslots);
	}
	free(slots);
	return ret;
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
static void finish_syms(struct symtab *t)
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

static void read_soname(struct sym_module *m)
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
		d = scn_data(scn, &sh);
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

/* ---- separate debug files ------------------------------------------------ */

/* The GNU build-id note of @e, pointing into its mapping. */
static bool get_build_id(Elf *e, const void **id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Nhdr nh;
		size_t off = 0, next, name_off, desc_off;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = scn_data(scn, &sh);
		while (d && off < d->d_size &&
		       (next = gelf_getnote(d, off, &nh, &name_off,
					    &desc_off)) > off) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU",
				    4) &&
			    nh.n_descsz >= 2 && nh.n_descsz <= 64) {
				*id = (const char *)d->d_buf + desc_off;
				*len = nh.n_descsz;
				return true;
			}
			off = next;
		}
	}
	return false;
}

/* The CRC-32 that .gnu_debuglink carries (GDB's gnu_debuglink_crc32). */
static bool file_crc32(int fd, uint32_t *crc)
{
	uint32_t table[256], c = 0xffffffff;
	unsigned char buf[16384];
	off_t pos = 0;
	ssize_t n;
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint32_t v = i;

		for (k = 0; k < 8; k++)
			v = v & 1 ? 0xedb88320 ^ (v >> 1) : v >> 1;
		table[i] = v;
	}
	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		for (i = 0; i < (size_t)n; i++)
			c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
		pos += n;
	}
	*crc = ~c;
	return n == 0;
}

/*
 * Takes @file as the debug file if it is an ELF file of the same machine
 * that is not the image itself, and matches: the same build-id when both
 * have one, else (for .gnu_debuglink, @crc non-NULL) the CRC.
 */
static bool try_debug(struct sym_module *m, const char *file,
		      const uint32_t *crc)
{
	struct stat st, mine;
	GElf_Ehdr a, b;
	const void *id;
	size_t len;
	uint32_t c;
	bool ok = false, have_id;
	Elf *e;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fstat(m->fd, &mine) ||
	    (st.st_dev == mine.st_dev && st.st_ino == mine.st_ino)) {
		close(fd);
		return false;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (is_elf(e) && gelf_getehdr(e, &a) && gelf_getehdr(m->elf, &b) &&
	    a.e_machine == b.e_machine &&
	    gelf_getclass(e) == gelf_getclass(m->elf)) {
		have_id = m->build_id && get_build_id(e, &id, &len);
		if (have_id)
			ok = len == m->build_id_len &&
			     !memcmp(id, m->build_id, len);
		else if (crc)
			ok = file_crc32(fd, &c) && c == *crc;
		else
			ok = true;
	}
	if (!ok) {
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	m->dbg = e;
	m->dbg_fd = fd;
	return true;
}

static bool try_build_id(struct sym_module *m)
{
	const unsigned char *id = m->build_id;
	char file[PATH_MAX];
	size_t i, n;

	if (!id)
		return false;
	n = (size_t)snprintf(file, sizeof(file), "%s/.build-id/%02x/",
			     DEBUG_ROOT, id[0]);
	for (i = 1; i < m->build_id_len; i++)
		n += (size_t)snprintf(file + n, sizeof(file) - n, "%02x",
				      id[i]);
	snprintf(file + n, sizeof(file) - n, ".debug");
	return try_debug(m, file, NULL);
}

/*
 * GDB's places for a debuglink @name next to @path: its directory, that
 * directory's .debug/, and the directory under DEBUG_ROOT.  A path without
 * a directory (such as "[vdso]") has none.
 */
static bool try_debuglink_near(struct sym_module *m, const char *path,
			       const char *name, uint32_t crc)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	char file[PATH_MAX];

	if (!slash)
		return false;
	if (snprintf(file, sizeof(file), "%.*s/%s", dirlen, path, name) <
		    (int)sizeof(file) && try_debug(m, file, &crc))
		return true;
	if (snprintf(file, sizeof(file), "%.*s/.debug/%s", dirlen, path,
		     name) < (int)sizeof(file) && try_debug(m, file, &crc))
		return true;
	return path[0] == '/' &&
	       snprintf(file, sizeof(file), "%s%.*s/%s", DEBUG_ROOT, dirlen,
			path, name) < (int)sizeof(file) &&
	       try_debug(m, file, &crc);
}

static bool try_debuglink(struct sym_module *m, const char *path)
{
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	const char *name;
	size_t len;
	uint32_t crc;
	unsigned char *c;
	char *ident = elf_getident(m->elf, NULL);

	scn = find_scn(m->elf, ".gnu_debuglink", &sh);
	d = scn ? scn_data(scn, &sh) : NULL;
	if (!d || !ident)
		return false;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	/* A name, NUL, padding to 4, then the CRC in file byte order. */
	if (!len || len == d->d_size || strchr(name, '/') ||
	    ((len + 4) & ~(size_t)3) + 4 > d->d_size)
		return false;
	c = (unsigned char *)d->d_buf + ((len + 4) & ~(size_t)3);
	if (ident[EI_DATA] == ELFDATA2MSB)
		crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
		      (uint32_t)c[2] << 8 | c[3];
	else
		crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
		      (uint32_t)c[1] << 8 | c[0];
	return try_debuglink_near(m, m->display, name, crc) ||
	       (strcmp(path, m->display) &&
		try_debuglink_near(m, path, name, crc));
}

/* The debug file's section indices in the image: same name and address. */
static uint32_t *map_sections(struct sym_module *m, size_t *nmap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint32_t *map;
	size_t n, j;

	if (elf_getshdrnum(m->dbg, &n) || !n || n > 65536)
		return NULL;
	map = malloc(n * sizeof(*map));
	if (!map)
		return NULL;
	for (j = 0; j < n; j++)
		map[j] = NO_SCN;
	while ((scn = elf_nextscn(m->dbg, scn))) {
		size_t i = elf_ndxscn(scn), k;
		const char *name = scn_name(m->dbg, scn, &sh);

		if (!name || i >= n || !m->nscns)
			continue;
		/* Usually the same index: look there first, and search the
		 * others only in files of ordinary size.
		 */
		for (j = 0; j < (m->nscns <= 1024 ? m->nscns : 1); j++) {
			k = (i + j) % m->nscns;
			if (m->scns[k].name && m->scns[k].addr == sh.sh_addr &&
			    !strcmp(m->scns[k].name, name)) {
				map[i] = (uint32_t)k;
				break;
			}
		}
	}
	*nmap = n;
	return map;
}

/* ---- opening ------------------------------------------------------------- */

static int read_symbols(struct sym_module *m, const char *path)
{
	uint32_t *map;
	size_t nmap = 0;
	int ret;

	/* .symtab has all .dynsym has and the local symbols; GDB reads
	 * .dynsym only from a stripped file.
	 */
	ret = read_symtabs(m, &m->own, m->elf,
			   m->have_symtab ? SHT_SYMTAB : SHT_DYNSYM, NULL, 0);
	if (ret)
		return ret;
	if (!m->have_symtab || !m->have_dwarf) {
		get_build_id(m->elf, &m->build_id, &m->build_id_len);
		if (!try_build_id(m))
			try_debuglink(m, path);
	}
	if (m->dbg && !m->have_symtab) {
		map = map_sections(m, &nmap);
		ret = map ? read_symtabs(m, &m->dbg_syms, m->dbg, SHT_SYMTAB,
					 map, nmap) : 0;
		free(map);
		if (ret)
			return ret;
	}
	ret = read_plt(m);
	if (ret)
		return ret;
	finish_syms(&m->own);
	finish_syms(&m->dbg_syms);
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
	if (!is_elf(m->elf))
		goto fail;
	ret = read_segments(m);
	if (!ret)
		ret = read_sections(m);
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
	read_soname(m);
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
	uint32_t scn = section_at(m, vaddr);
	const struct sym *a, *b;

	if (scn == NO_SCN)
		return NULL;
	a = find_in(&m->own, m, scn, vaddr);
	b = find_in(&m->dbg_syms, m, scn, vaddr);
	return b && (!a || b->addr > a->addr) ? b : a;
}

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
			skip = !r.addr && section_at(m, 0) == NO_SCN;
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
static struct cu_lines *lines_at(struct sym_module *m, uint64_t vaddr,
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
static ptrdiff_t pc_row(const struct cu_lines *cl, uint64_t vaddr,
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

static bool same_line(const struct lrow *a, const struct lrow *b)
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
			      uint64_t vaddr)
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
		walk_scopes(&w, &die, 1);
		break;
	}
	return w.inlined;
}

static void source_at(struct sym_module *m, uint64_t vaddr,
		      struct sym_info *out)
{
	struct cu_lines *cl;
	Dwarf_Die cu;
	ptrdiff_t i;
	size_t last;

	cl = lines_at(m, vaddr, &cu);
	if (!cl)
		return;
	i = pc_row(cl, vaddr, &last);
	if (i >= 0 && cl->rows[i].file) {
		out->file = cl->rows[i].file;
		out->line = cl->rows[i].line;
	}
	out->inlined = inlined_at(cl, &cu, vaddr);
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
	source_at(m, vaddr, out);
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

int sym_line_range(struct sym_module *m, uint64_t vaddr, uint64_t *begin,
		   uint64_t *end)
{
	const struct cu_lines *cl;
	const struct lrow *v, *s;
	Dwarf_Die cu;
	ptrdiff_t r;
	size_t i, k, last;

	cl = lines_at(m, vaddr, &cu);
	if (!cl)
		return -ENOENT;
	r = pc_row(cl, vaddr, &last);
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
		if (!same_line(&v[k - 1], s))
			break;
		*begin = v[k - 1].addr;
	}
	/* Forward to the next statement of another line. */
	*end = vaddr + 1;
	for (k = last + 1; k < cl->nrows; k++)
		if (v[k].end || (v[k].stmt && !same_line(&v[k], s))) {
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
