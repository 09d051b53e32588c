// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * LD_PRELOAD for the GDB that tests/gdb/diff runs as its oracle (GDB's
 * own `record full`): GDB 13 reads and writes the inferior's XSAVE area
 * through PTRACE_GETREGSET/SETREGSET NT_X86_XSTATE with a buffer of its
 * own fixed size (2,696 bytes: x87 to AVX-512 and PKRU), while Linux
 * takes a write only of the whole user XSAVE size (xstateregs_set() in
 * arch/x86/kernel/fpu/regset.c: "A whole standard-format XSAVE buffer
 * is needed", else -EFAULT), which with AMX's tile data (XTILEDATA, 8 KiB)
 * is 11,008 bytes.  On such a machine every register write record full
 * makes in reverse fails ("Couldn't write extended state status: Bad
 * address") and the oracle has nothing to compare.  This completes GDB's
 * write: the inferior's current whole area, GDB's bytes over its start
 * (its header's XSTATE_BV included), written at the size the kernel asks.
 * Reads are the kernel's own (it copies the first bytes GDB asks for).
 * Nothing else changes; the inferior itself never loads this library
 * (run.py unsets LD_PRELOAD in its environment).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#define XSTATE_MAX (64 * 1024)

long ptrace(enum __ptrace_request req, ...)
{
	static long (*real)(enum __ptrace_request, pid_t, void *, void *);
	struct iovec *iov, full;
	va_list ap;
	pid_t pid;
	void *addr, *data;
	long ret;

	va_start(ap, req);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (long (*)(enum __ptrace_request, pid_t, void *,
				 void *))dlsym(RTLD_NEXT, "ptrace");
	iov = data;
	if (req != PTRACE_SETREGSET || (long)addr != NT_X86_XSTATE || !iov)
		return real(req, pid, addr, data);
	full.iov_base = malloc(XSTATE_MAX);
	full.iov_len = XSTATE_MAX;
	if (!full.iov_base)
		return real(req, pid, addr, data);
	if (real(PTRACE_GETREGSET, pid, addr, &full) < 0 ||
	    full.iov_len <= iov->iov_len) {
		free(full.iov_base);
		return real(req, pid, addr, data);
	}
	memcpy(full.iov_base, iov->iov_base, iov->iov_len);
	ret = real(req, pid, addr, &full);
	free(full.iov_base);
	return ret;
}
