// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PTWRITE in every operand form (built with -mptwrite): a 64-bit and a
 * 32-bit register, a RIP-relative global, a base+displacement local, a
 * base+index*scale array element, a parameter in its register, through
 * the compiler's builtins and inline assembly.  Prints "ptw <hex>" for each value written, in order,
 * so tests compare the decoded PTWRITE events with what the program wrote.
 */
#include <stdint.h>
#include <stdio.h>

uint64_t ptw_counter = 0x1122334455667788ull;
static uint64_t table[4] = { 0xa0, 0xa1, 0xa2, 0xa3 };

static void out(uint64_t v)
{
	printf("ptw %llx\n", (unsigned long long)v);
}

/* At -O1 the PTWRITE reads the parameter in %rdi, where DWARF has it. */
__attribute__((noinline)) void ptw_param(uint64_t value)
{
	__builtin_ia32_ptwrite64(value);
}

int main(void)
{
	volatile uint64_t local = 0xfeedfacecafebeefull;
	uint64_t i;

	for (i = 0; i < 3; i++) {
		__builtin_ia32_ptwrite64(i * 7 + 1);		/* register */
		out(i * 7 + 1);
	}
	__builtin_ia32_ptwrite32(0xdeadbeefu);
	out(0xdeadbeefu);
	__asm__ volatile("ptwriteq %0" : : "m"(ptw_counter));	/* rip */
	out(ptw_counter);
	__asm__ volatile("ptwriteq %0" : : "m"(local));	/* rbp/rsp + d */
	out(local);
	for (i = 0; i < 4; i++) {
		__asm__ volatile("ptwriteq (%0,%1,8)" : :	/* SIB */
				 "r"(table), "r"(i) : "memory");
		out(table[i]);
	}
	__asm__ volatile("ptwritel %0" : : "m"(ptw_counter));	/* 32 bits */
	out((uint32_t)ptw_counter);
	ptw_param(0x5eed);
	out(0x5eed);
	return 0;
}
