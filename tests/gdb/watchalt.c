// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/watch.sh: a store through the stack pointer moved into the
 * heap (as coroutines and alternate signal stacks do), at a place the
 * history does not show (it depends on getpid()).  A watchpoint on the
 * heap word must stop there with the default watch-unknown stop; the
 * stack assumption (watch-unknown stack) would skip it.  From a review's
 * reproducer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

unsigned long *heap;

int main(void)
{
	unsigned long top;

	heap = malloc(4096);
	top = (unsigned long)(heap + 256) + (getpid() >> 31);
	__asm__ volatile(
		"mov %%rsp, %%rbx\n"
		"mov %0, %%rsp\n"
		".globl altstore\naltstore:\n"
		"movq $42, -16(%%rsp)\n"
		"mov %%rbx, %%rsp\n"
		:: "r"(top) : "rbx", "memory");
	printf("%lu\n", heap[254]);	/* line 29 */
	return 0;
}
