// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Capstone, loaded on first use.  libcapstone.so carries 77,000 relative
 * relocations (its decoder tables are pointers): applying them costs every
 * process start about 1 ms and 300 page faults here, which was most of a
 * `ptrec import` or of a first `ptrec info` on a small trace (issue #19),
 * and neither uses capstone.  ptrec and ptrec-server link with
 * `-Wl,--wrap=cs_...` (Makefile, CS_LAZY) instead of -lcapstone, so their
 * calls to cs_open() and the rest land here: the library is opened by its
 * soname with dlopen() the first time, and each call forwards to the real
 * function.  The tests link capstone directly and never pull this file in.
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "ptkit.h"

#define CS_STR2(x)	#x
#define CS_STR(x)	CS_STR2(x)
#define CS_SONAME	"libcapstone.so." CS_STR(CS_API_MAJOR)

static const char *const cs_names[] = {
	"cs_open", "cs_close", "cs_option", "cs_disasm", "cs_disasm_iter",
	"cs_malloc", "cs_free", "cs_reg_name", "cs_regs_access",
};
static union {
	void *v[9];
	struct {
		cs_err (*open)(cs_arch, cs_mode, csh *);
		cs_err (*close)(csh *);
		cs_err (*option)(csh, cs_opt_type, size_t);
		size_t (*disasm)(csh, const uint8_t *, size_t, uint64_t,
				 size_t, cs_insn **);
		bool (*disasm_iter)(csh, const uint8_t **, size_t *,
				    uint64_t *, cs_insn *);
		cs_insn *(*malloc)(csh);
		void (*free)(cs_insn *, size_t);
		const char *(*reg_name)(csh, unsigned int);
		cs_err (*regs_access)(csh, const cs_insn *, cs_regs,
				      uint8_t *, cs_regs, uint8_t *);
	} f;
} cs;
_Static_assert(sizeof(cs.v) == sizeof(cs.f), "one pointer per name");
static void *cs_lib;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_load(void)
{
	cs_lib = ptkit_lib_load(CS_SONAME, RTLD_NOW, cs_names, cs.v, 9);
}

/* The only entry point without a handle: every other call needs one that
 * cs_open() returned, so the library is loaded by then.
 */
cs_err __wrap_cs_open(cs_arch arch, cs_mode mode, csh *handle);
cs_err __wrap_cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	pthread_once(&cs_once, cs_load);
	if (!cs_lib)
		return CS_ERR_MEM;
	return cs.f.open(arch, mode, handle);
}

cs_err __wrap_cs_close(csh *handle);
cs_err __wrap_cs_close(csh *handle)
{
	return cs.f.close ? cs.f.close(handle) : CS_ERR_HANDLE;
}

cs_err __wrap_cs_option(csh handle, cs_opt_type type, size_t value);
cs_err __wrap_cs_option(csh handle, cs_opt_type type, size_t value)
{
	return cs.f.option(handle, type, value);
}

size_t __wrap_cs_disasm(csh handle, const uint8_t *code, size_t size,
			uint64_t address, size_t count, cs_insn **insn);
size_t __wrap_cs_disasm(csh handle, const uint8_t *code, size_t size,
			uint64_t address, size_t count, cs_insn **insn)
{
	return cs.f.disasm(handle, code, size, address, count, insn);
}

bool __wrap_cs_disasm_iter(csh handle, const uint8_t **code, size_t *size,
			   uint64_t *address, cs_insn *insn);
bool __wrap_cs_disasm_iter(csh handle, const uint8_t **code, size_t *size,
			   uint64_t *address, cs_insn *insn)
{
	return cs.f.disasm_iter(handle, code, size, address, insn);
}

cs_insn *__wrap_cs_malloc(csh handle);
cs_insn *__wrap_cs_malloc(csh handle)
{
	return cs.f.malloc(handle);
}

void __wrap_cs_free(cs_insn *insn, size_t count);
void __wrap_cs_free(cs_insn *insn, size_t count)
{
	if (cs.f.free)
		cs.f.free(insn, count);
}

const char *__wrap_cs_reg_name(csh handle, unsigned int reg_id);
const char *__wrap_cs_reg_name(csh handle, unsigned int reg_id)
{
	return cs.f.reg_name(handle, reg_id);
}

cs_err __wrap_cs_regs_access(csh handle, const cs_insn *insn,
			     cs_regs regs_read, uint8_t *regs_read_count,
			     cs_regs regs_write, uint8_t *regs_write_count);
cs_err __wrap_cs_regs_access(csh handle, const cs_insn *insn,
			     cs_regs regs_read, uint8_t *regs_read_count,
			     cs_regs regs_write, uint8_t *regs_write_count)
{
	return cs.f.regs_access(handle, insn, regs_read, regs_read_count,
			      regs_write, regs_write_count);
}
