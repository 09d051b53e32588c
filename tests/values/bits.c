// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The bit instructions (replay/rcv_bits.c) end to end, for
 * tests/values/run.sh: a word the snapshot shows (nothing writes it) is
 * loaded and put through bsf, bsr, popcnt, tzcnt, bts, xadd, shld,
 * andn, blsr, bzhi, bextr, pdep and pext into r8-r15, rax, rdx, rsi and
 * rdi; then VALTEST_OUT overwrites every register, so that what the
 * engine knows before it comes from the history.  run.sh checks those
 * registers known at the rdtsc (main's build: none of them), and
 * valcheck that no value is wrong.  Exit status 3: no BMI1/BMI2 here.
 */
#include <stdint.h>

#include "unknown.h"

uint64_t bits_src = 0x00f0000000001200ull;

int main(void)
{
	if (!__builtin_cpu_supports("bmi") || !__builtin_cpu_supports("bmi2") ||
	    !__builtin_cpu_supports("popcnt"))
		return 3;
	__asm__ volatile("mov bits_src(%%rip), %%rbx\n\t"
			 "bsf %%rbx, %%r8\n\t"		/* 9 */
			 "bsr %%rbx, %%r9\n\t"		/* 55 */
			 "popcnt %%rbx, %%r10\n\t"	/* 6 */
			 "tzcnt %%rbx, %%r11\n\t"	/* 9 */
			 "mov $37, %%ecx\n\t"
			 "mov %%rbx, %%r12\n\t"
			 "bts %%rcx, %%r12\n\t"
			 "mov $7, %%r14\n\t"
			 "mov %%rbx, %%r15\n\t"
			 "xadd %%r15, %%r14\n\t"	/* r14 sum, r15 7 */
			 "mov %%rcx, %%rdx\n\t"
			 "shld $8, %%rbx, %%rdx\n\t"
			 "andn %%rbx, %%rcx, %%r13\n\t"
			 "blsr %%r13, %%r13\n\t"
			 "mov $0x0c04, %%eax\n\t"	/* start 4, len 12 */
			 "bextr %%rax, %%rbx, %%rax\n\t"
			 "mov $0xff00ff, %%esi\n\t"
			 "pdep %%rsi, %%rbx, %%rsi\n\t"
			 "mov $0xfff0, %%edi\n\t"
			 "pext %%rdi, %%rbx, %%rdi\n\t"
			 VALTEST_OUT
			 : : : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8",
			 "r9", "r10", "r11", "r12", "r13", "r14", "r15",
			 "memory", "cc");
	return 0;
}
