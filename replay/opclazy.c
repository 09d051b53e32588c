// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libopcodes, loaded on first use, as ptkit/cslazy.c loads capstone.
 * libopcodes and the libbfd it needs cost every process start about
 * 0.74 M instructions of relocation and symbol binding and 0.45 ms
 * (callgrind, hyperfine: a program linking them against one that does
 * not), the largest part of what a `ptrec import` or a first `ptrec info`
 * of a small trace spends before its own work (issue #19), and only
 * disassembly (disasm.c: listings, and instruction lengths at some
 * asynchronous events) needs them.  ptrec and ptrec-server link with
 * `-Wl,--wrap=` for the four functions disasm.c calls (Makefile,
 * OPC_LAZY) instead of -lopcodes: the first disassembler() opens the
 * library by its soname, the others need what it returned first.  The
 * tests link libopcodes directly and never pull this file in.
 */
#include <dis-asm.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "ptkit.h"

#ifndef OPCODES_SONAME
#error "OPCODES_SONAME: libopcodes' soname (the Makefile reads it)"
#endif
_Static_assert(sizeof(OPCODES_SONAME) > 1,
	       "OPCODES_SONAME is empty: the Makefile could not read libopcodes.so's soname with objdump");

static const char *const opc_names[] = {
	"disassembler", "init_disassemble_info", "disassemble_init_for_target",
	"disassemble_free_target",
};
static union {
	void *v[4];
	struct {
		disassembler_ftype (*disassembler)(enum bfd_architecture, bool,
						   unsigned long, bfd *);
		void (*init_info)(struct disassemble_info *, void *,
				  fprintf_ftype, fprintf_styled_ftype);
		void (*init_target)(struct disassemble_info *);
		void (*free_target)(struct disassemble_info *);
	} f;
} opc;
_Static_assert(sizeof(opc.v) == sizeof(opc.f), "one pointer per name");
static void *opc_lib;
static pthread_once_t opc_once = PTHREAD_ONCE_INIT;

static void opc_load(void)
{
	opc_lib = ptkit_lib_load(OPCODES_SONAME, RTLD_LAZY, opc_names, opc.v,
				 4);
}

/* The first call disasm.c makes: NULL (no disassembler) when the library
 * cannot be loaded, which dis_new() reports.
 */
disassembler_ftype __wrap_disassembler(enum bfd_architecture arch, bool big,
				       unsigned long mach, bfd *abfd);
disassembler_ftype __wrap_disassembler(enum bfd_architecture arch, bool big,
				       unsigned long mach, bfd *abfd)
{
	pthread_once(&opc_once, opc_load);
	return opc_lib ? opc.f.disassembler(arch, big, mach, abfd) : NULL;
}

void __wrap_init_disassemble_info(struct disassemble_info *info,
				  void *stream, fprintf_ftype fprintf_func,
				  fprintf_styled_ftype fprintf_styled_func);
void __wrap_init_disassemble_info(struct disassemble_info *info,
				  void *stream, fprintf_ftype fprintf_func,
				  fprintf_styled_ftype fprintf_styled_func)
{
	opc.f.init_info(info, stream, fprintf_func, fprintf_styled_func);
}

void __wrap_disassemble_init_for_target(struct disassemble_info *info);
void __wrap_disassemble_init_for_target(struct disassemble_info *info)
{
	opc.f.init_target(info);
}

void __wrap_disassemble_free_target(struct disassemble_info *info);
void __wrap_disassemble_free_target(struct disassemble_info *info)
{
	if (opc.f.free_target)
		opc.f.free_target(info);
}
