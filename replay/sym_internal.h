/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to replay/sym*.c and symbols.c: one ELF image's symbol module
 * (struct sym_module) and the steps that fill it, each in its own file:
 * sym_elf.c (segments, sections, ELF symbol tables, GDB's sort, soname),
 * sym_plt.c (the synthetic foo@plt symbols), sym_debug.c (separate debug
 * files by build id and debuglink), sym_dwarf.c (DWARF units, line tables
 * and inlined functions, read on first use).  symbols.c opens a module and
 * answers the lookups of symbols.h.
 */
#ifndef PTREC_REPLAY_SYM_INTERNAL_H
#define PTREC_REPLAY_SYM_INTERNAL_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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


/* sym_elf.c */
int sym_add_sym(struct symtab *t, uint64_t addr, uint64_t size,
		const char *name, uint32_t scn, enum sym_kind kind,
		uint8_t plt_size);
Elf_Scn *sym_find_scn(Elf *e, const char *name, GElf_Shdr *sh);
void sym_finish_syms(struct symtab *t);
bool sym_is_elf(Elf *e);
int sym_read_sections(struct sym_module *m);
int sym_read_segments(struct sym_module *m);
void sym_read_soname(struct sym_module *m);
int sym_read_symtabs(struct sym_module *m, struct symtab *t, Elf *e,
		     GElf_Word type, const uint32_t *map, size_t nmap);
Elf_Data *sym_scn_data(Elf_Scn *scn, const GElf_Shdr *sh);
const char *sym_scn_name(Elf *e, Elf_Scn *scn, GElf_Shdr *sh);
uint32_t sym_section_at(const struct sym_module *m, uint64_t vaddr);
const char *sym_str_cat(struct sym_module *m, const char *a, size_t alen,
			const char *b);

/* sym_plt.c */
int sym_read_plt(struct sym_module *m);

/* sym_debug.c */
bool sym_get_build_id(Elf *e, const void **id, size_t *len);
uint32_t *sym_map_sections(struct sym_module *m, size_t *nmap);
bool sym_try_build_id(struct sym_module *m);
bool sym_try_debuglink(struct sym_module *m, const char *path);

/* sym_dwarf.c */
struct cu_lines *sym_lines_at(struct sym_module *m, uint64_t vaddr,
			      Dwarf_Die *cu);
ptrdiff_t sym_pc_row(const struct cu_lines *cl, uint64_t vaddr,
		     size_t *last);
bool sym_same_line(const struct lrow *a, const struct lrow *b);
void sym_source_at(struct sym_module *m, uint64_t vaddr,
		   struct sym_info *out);

#endif
