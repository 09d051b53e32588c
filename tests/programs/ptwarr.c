// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PTWRITE of a global array's elements, arr[i] in a loop (built with
 * -mptwrite): the compiler reads each through an indexed operand, so the
 * event is named only through the values engine's registers (issue #21).
 * Prints "ptwarr <i> <hex>" for each element written, so tests check the
 * names against what the program did; likewise "ptwpts <i> <hex>" for a
 * member of an array of structs, pts[i].y.  Then one PTWRITE whose index
 * register comes from rdtsc and is cleared right after: its registers are
 * unknown and it must stay unnamed ("ptwunk <hex>", every element of same[]
 * being equal).
 */
#include <stdint.h>
#include <stdio.h>

uint64_t arr[6] = { 0x100, 0x111, 0x122, 0x133, 0x144, 0x155 };
uint64_t same[4] = { 0x77, 0x77, 0x77, 0x77 };
struct pt {
	uint64_t x, y;
} pts[3] = { { 0x200, 0x201 }, { 0x210, 0x211 }, { 0x220, 0x221 } };

/* A call in the loop keeps i in a register: arr[i] is read through
 * 0x0(%r13,%rbx,8) (gcc -O1), not a pointer stepped along the array.
 */
__attribute__((noinline)) void step(int i)
{
	__asm__ volatile("" : : "r"(i));
}

int main(int argc, char **argv)
{
	int i, n = 6;

	(void)argv;
	if (argc > 1)	/* not a constant: the loop stays a loop */
		n = 3;
	for (i = 0; i < n; i++) {
		__builtin_ia32_ptwrite64(arr[i]);
		step(i);
	}
	for (i = 0; i < n / 2; i++) {	/* 3 unless argc > 1 */
		__builtin_ia32_ptwrite64(pts[i].y);
		step(i);
	}
	for (i = 0; i < n; i++)
		printf("ptwarr %d %llx\n", i, (unsigned long long)arr[i]);
	for (i = 0; i < n / 2; i++)
		printf("ptwpts %d %llx\n", i, (unsigned long long)pts[i].y);
	__asm__ volatile("rdtsc\n\t"
			 "and $3, %%eax\n\t"
			 "ptwriteq (%0,%%rax,8)\n\t"
			 "xor %%eax, %%eax\n\t"
			 "xor %%edx, %%edx"
			 : : "r"(same) : "rax", "rdx", "memory");
	printf("ptwunk 77\n");
	return 0;
}
