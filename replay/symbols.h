/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to replay/: symbols, PLT stubs and source lines of one ELF image
 * from the bundle's image store, through libelf and libdw, named the way
 * GDB 13 names them.
 *
 * Addresses are link-time virtual addresses of the image (what `nm` and
 * `objdump -d` print); sym_offset_to_vaddr() gets one from a file offset,
 * which is what the sideband gives: a mapping [start, start + len) shows
 * the file's bytes [pgoff, pgoff + len), so address A is at file offset
 * pgoff + (A - start).
 *
 * Function names are GDB's minimal symbols, so they are what `info symbol`
 * prints: .symtab (else .dynsym), plus "foo@plt" for each PLT stub, and the
 * symbols of a separate debug file found by build-id or .gnu_debuglink.
 * Source lines and inlined functions come from DWARF, from the image or its
 * debug file; without DWARF they are simply unknown.
 *
 * A module is not thread-safe: lookups fill caches (and libdw's).  Use one
 * module from one thread at a time.  Link with -ldw -lelf.
 */
#ifndef PTREC_REPLAY_SYMBOLS_H
#define PTREC_REPLAY_SYMBOLS_H

#include <stdint.h>

struct sym_module;

/**
 * sym_module_open() - open an ELF image and read its symbols
 * @m:		where to store the new module.
 * @path:	the file to read (the copy in the bundle's image store).
 * @display:	its path on the recording machine: names the module when it
 *		has no DT_SONAME, and is where a .gnu_debuglink file is looked
 *		for (its directory, its .debug/ subdirectory, and under
 *		/usr/lib/debug).  NULL means @path.
 *
 * Reads the program headers, the symbol table and the PLT now; DWARF is
 * read on the first line or inline lookup.  A damaged file either fails
 * here or opens with whatever could be read; it never crashes a lookup.
 *
 * Return: 0; -ENOENT when @path does not exist (or another negative errno
 * from open(2), such as -EACCES); -EINVAL when it is not a regular file,
 * not ELF, or so damaged that neither its program headers nor its section
 * headers can be read; -ENOMEM.
 */
int sym_module_open(struct sym_module **m, const char *path,
		    const char *display);

/**
 * sym_module_close() - free a module and every string it handed out
 * @m:	the module, or NULL.
 */
void sym_module_close(struct sym_module *m);

/**
 * sym_module_name() - what the module is called in messages
 * @m:	the module.
 *
 * Return: its DT_SONAME ("libc.so.6"), else the base name of its display
 * path.  Never NULL; lives as long as the module.
 */
const char *sym_module_name(const struct sym_module *m);

/**
 * sym_offset_to_vaddr() - file offset to link-time address
 * @m:		the module.
 * @off:	a file offset (pgoff + (address - mapping start)).
 * @vaddr:	where to store the link-time address.
 *
 * Uses the PT_LOAD headers: @off must lie in some segment's file bytes
 * [p_offset, p_offset + p_filesz); an executable segment wins if two
 * overlap.
 *
 * Return: 0, or -ENOENT when no loadable segment holds @off.
 */
int sym_offset_to_vaddr(const struct sym_module *m, uint64_t off,
			uint64_t *vaddr);

/**
 * struct sym_info - what is at a link-time address
 * @function:	the symbol GDB's `info symbol` names ("main", "puts@plt",
 *		"foo.constprop.0"); NULL if none covers the address.
 * @func_vaddr:	that symbol's link-time address.
 * @offset:	address - @func_vaddr.
 * @file:	source file, as DWARF names it (joined with the compilation
 *		directory, so normally absolute); NULL if unknown.
 * @line:	source line, 0 if unknown.  The line is the one GDB shows:
 *		the last line-table row at or before the address, an is_stmt
 *		row preferred among rows at one address, rows for line 0
 *		ignored.
 * @inlined:	the innermost function inlined at the address (its
 *		DW_TAG_inlined_subroutine's name), NULL if none.
 */
struct sym_info {
	const char *function;
	uint64_t func_vaddr;
	uint64_t offset;
	const char *file;
	int line;
	const char *inlined;
	const char *func_file;	/* the function's own source file */
};

/**
 * sym_lookup() - name a code address
 * @m:		the module.
 * @vaddr:	a link-time address.
 * @out:	filled in; unknown fields are NULL or 0.  Strings live as long
 *		as the module.
 *
 * The function is chosen as GDB 13's lookup_minimal_symbol_by_pc_section()
 * chooses it: only symbols of the section holding @vaddr count; a symbol
 * with a size must contain @vaddr, a size-0 one (and every PLT stub) covers
 * up to the next symbol; among symbols at one address the last by name
 * wins, except that a global or weak function is preferred to the symbol
 * just after it if that one is local or an ifunc of the same size.
 *
 * Return: 0 when a function or a source line is known, -ENOENT when
 * nothing at all is.
 */
int sym_lookup(struct sym_module *m, uint64_t vaddr, struct sym_info *out);

/**
 * sym_name_address() - name any address (code or data) for an operand
 * @m:		the module.
 * @vaddr:	a link-time address.
 * @name:	where to store the symbol's name (lives as long as the module).
 * @offset:	where to store @vaddr minus the symbol's address.
 *
 * As GDB's print_address_symbolic() does with minimal symbols: the symbol
 * sym_lookup() would pick, except that a size-0 data symbol (such as
 * __bss_start) names nothing.
 *
 * Return: 0, or -ENOENT when no symbol names @vaddr.
 */
/**
 * sym_var_at() - the source variable an operand is, at a pc (sym_vars.c)
 * @m:		the module.
 * @vaddr:	the instruction's link-time address.
 * @reg:	a register operand (DWARF number), or -1.
 * @base, @disp: a memory operand @base + @disp (DWARF number), or -1.
 * @name:	where to store the variable's name (lives with the module).
 *
 * Return: 0, or -1 when DWARF names no variable there.
 */
int sym_var_at(struct sym_module *m, uint64_t vaddr, int reg, int base,
	       int64_t disp, const char **name);

/* The call frame rule at link-time address @vaddr (sym_cfi.c): 0, or -1
 * when .eh_frame has none that sym_cfi.c reads.
 */
struct rp_cfi;
int sym_cfi_at(struct sym_module *m, uint64_t vaddr, struct rp_cfi *out);

int sym_name_address(struct sym_module *m, uint64_t vaddr, const char **name,
		     uint64_t *offset);

/**
 * sym_object_at() - the data object (an ELF symbol with a size) @vaddr
 * lies inside, as sym_name_address() names it, with @offset < its size.
 *
 * Return: 0, or -ENOENT.
 */
int sym_object_at(struct sym_module *m, uint64_t vaddr, const char **name,
		  uint64_t *offset);

/**
 * sym_object_path() - what byte @off of the global at link-time address
 * @addr is, by DWARF's type of the variable whose DW_AT_location is that
 * address (sym_vars.c): array elements and struct members, through
 * typedefs and qualifiers ("[3]", ".x", "[2].y").
 * @buf:	receives the path ("" when DWARF says nothing).
 * @rest:	receives the offset the path does not cover (0 when it names
 *		the byte's scalar exactly).
 *
 * Return: 0, or -1 when DWARF has no such variable.
 */
int sym_object_path(struct sym_module *m, uint64_t addr, uint64_t off,
		    char *buf, size_t len, uint64_t *rest);

/**
 * sym_line_range() - the addresses of the source line at an address
 * @m:		the module.
 * @vaddr:	a link-time address.
 * @begin:	where to store the first address of the line.
 * @end:	where to store the address just past it.
 *
 * The line is the statement line @vaddr belongs to, as GDB's step and next
 * see it: the last is_stmt row at or before @vaddr (rows that are not
 * statements, and line-0 rows, do not start lines).  [@begin, @end) is
 * the contiguous run of code around @vaddr in which no is_stmt row of
 * another line or file starts: @begin is the first is_stmt row of that
 * line in the run, @end the next is_stmt row of another line, or the end
 * of the sequence.  So begin <= @vaddr < end, and reverse-step stops at
 * @begin.
 *
 * Return: 0; -ENOENT when there is no line information for @vaddr.
 */
int sym_line_range(struct sym_module *m, uint64_t vaddr, uint64_t *begin,
		   uint64_t *end);

/**
 * sym_find_function() - find a function by name
 * @m:		the module.
 * @name:	its symbol name, e.g. "main", "fix_static", "puts@plt".
 * @vaddr:	where to store its link-time address.
 * @size:	where to store its size (a PLT stub's length for "foo@plt");
 *		0 when the symbol has none.
 *
 * Only code symbols are found.  When several share @name (static
 * functions of different files), a global or weak one wins, then the
 * lowest address.
 *
 * Return: 0, or -ENOENT when no function has that name.
 */
int sym_find_function(const struct sym_module *m, const char *name,
		      uint64_t *vaddr, uint64_t *size);

#endif
