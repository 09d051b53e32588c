// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/watch.sh's store check: bts with a register bit offset of 64
 * sets a bit in the quadword after its operand (Intel SDM, BT), which a
 * watchpoint on buf[1] must see (regression: the engine named the
 * operand's own address).  The offset comes from getpid() so the
 * compiler cannot fold it.
 */
#include <unistd.h>
static unsigned long buf[4];
int main(void)
{
	unsigned long r;
	long off = 64 + (getpid() >> 31);	/* 64 */
	__asm__ volatile(
		"lea %[b], %%rax\n"
		"movq $0, 8(%%rax)\n"
		"mov %[o], %%rcx\n"
		"btsq %%rcx, (%%rax)\n"
		"mov 8(%%rax), %%rdx\n"
		"mov %%rdx, %[r]\n"
		"xor %%edx, %%edx\n"
		"movq $0, 8(%%rax)\n"
		: [r] "=m"(r) : [b] "m"(buf), [o] "r"(off) : "rax", "rcx", "rdx", "memory");
	return (int)r - 1;
}
