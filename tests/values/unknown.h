/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the values engine cannot know, for the test programs of
 * tests/values/run.sh that need it (symroot.c, symword.c, extent.c):
 * words the kernel writes (read from /dev/zero: no history shows their
 * value), and VALTEST_OUT, an exit that first overwrites every
 * general-purpose register with rdtsc's result, so that the end's
 * registers tell the engine nothing about what came before.
 */
#ifndef PTREC_TESTS_VALUES_UNKNOWN_H
#define PTREC_TESTS_VALUES_UNKNOWN_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define VALTEST_OUT	"rdtsc\n\t" \
		"mov %%rax, %%rbx\n\tmov %%rax, %%rbp\n\t" \
		"mov %%rax, %%rcx\n\tmov %%rax, %%rdx\n\t" \
		"mov %%rax, %%rsi\n\tmov %%rax, %%r8\n\t" \
		"mov %%rax, %%r9\n\tmov %%rax, %%r10\n\t" \
		"mov %%rax, %%r11\n\tmov %%rax, %%r12\n\t" \
		"mov %%rax, %%r13\n\t" \
		"mov %%rax, %%r14\n\tmov %%rax, %%r15\n\t" \
		"mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall"

/* g = 0 by read(2): its value before the load not known to the engine. */
static inline void zero_at(uint32_t *g)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd >= 0 && read(fd, g, sizeof(*g)) != sizeof(*g))
		*g = 0;
	if (fd >= 0)
		close(fd);
}

/* 0, from the kernel: a word the engine does not know. */
static inline uint64_t zero(void)
{
	uint64_t v = 1;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		v = 1;
	if (fd >= 0)
		close(fd);
	return v;
}

#endif
