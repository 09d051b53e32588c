/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to replay/: symbols, PLT stubs and source lines of one ELF image
 * from the bundle's image store, through libelf and libdw.
 */
#ifndef PTREC_REPLAY_SYMBOLS_H
#define PTREC_REPLAY_SYMBOLS_H

#include <stdint.h>

struct sym_module;

/**
 * sym_module_open() - open an image
 * @path:	the copy in the image store.
 * @display:	its path on the recording machine (names it without soname).
 *
 * Returns 0, -ENOENT (no such file), -EINVAL (not an ELF file or damaged),
 * -ENOMEM.
 */
int sym_module_open(struct sym_module **m, const char *path,
		    const char *display);
void sym_module_close(struct sym_module *m);

/* DT_SONAME, or the base name of the display path. */
const char *sym_module_name(const struct sym_module *m);

/* File offset to link-time address through the PT_LOAD headers.  Returns 0
 * or -ENOENT when no loadable segment holds @off.
 */
int sym_offset_to_vaddr(const struct sym_module *m, uint64_t off,
			uint64_t *vaddr);

/**
 * struct sym_info - what is at a link-time address
 * @function:	"main", "puts@plt"; NULL if unknown.
 * @func_vaddr:	the function's start; @offset = address - @func_vaddr.
 * @file, @line: source position (NULL, 0 without DWARF line info).
 * @inlined:	innermost inlined function there, or NULL.
 */
struct sym_info {
	const char *function;
	uint64_t func_vaddr;
	uint64_t offset;
	const char *file;
	int line;
	const char *inlined;
};

/* Returns 0 (fields may be unknown) or -ENOENT when nothing is known.
 * Strings live as long as the module.
 */
int sym_lookup(struct sym_module *m, uint64_t vaddr, struct sym_info *out);

/* Names any address (code or data) as GDB's print_address does: the
 * nearest symbol of its section.  Returns 0 or -ENOENT.
 */
int sym_name_address(struct sym_module *m, uint64_t vaddr, const char **name,
		     uint64_t *offset);

/* Link-time address and size of function @name.  Returns 0 or -ENOENT. */
int sym_find_function(const struct sym_module *m, const char *name,
		      uint64_t *vaddr, uint64_t *size);

#endif
