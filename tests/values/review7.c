// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 7 (adversarial) of the values engine's promise "never a wrong
 * value" (issue #17) and of watchpoints (issue #18): one case per mode,
 * for valcheck and GDB (tests/values/review7.sh, `make values-review7`).
 * Correct programs only.  Findings: tests/values/review7.sh's opening
 * comment and /work/notes/review7.md.
 *
 *   sweep    every instruction of a list (sweep below), each run four
 *            times with all 15 general-purpose registers but rsp set by
 *            mov and the six arithmetic flags set by a cmp to one of four
 *            patterns (every flag 1 in at least one): what capstone's
 *            lists or the engine's overrides miss shows as a wrong
 *            register or rflags right after the instruction.
 *   rolcl    rcx = 0x101 from a pipe (unknown), `rol %cl, %rcx` (0x202),
 *            `cmp $0x202, %rcx; jne`: rcv_back.c rotates back by the
 *            count in cl AFTER the rotate (2, not 1).
 *   bswap16  rbx = 0x1234 from a pipe, `bswap %bx` (66 0f cb: the low 16
 *            bits become 0 on this CPU; the SDM: undefined), `test %bx,
 *            %bx; jnz`: rcv_back.c inverts it as if it were a swap.
 *
 * Exit 7: the case cannot be made here (skip).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/auxv.h>
#include <cpuid.h>
#include <signal.h>

#define EXIT_NOW "\txor %%edi, %%edi\n\tmov $231, %%eax\n\tsyscall\n"

unsigned char r7_buf[256] __attribute__((aligned(64))) = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x10,
};
unsigned char r7_x0[16] = "abcdefghijklmnop";
unsigned char r7_x1[16] = "QRSTUVWXYZ012345";

/*
 * PRE: every register but rsp known (rbp: r7_buf), xmm0/1, xmm16/17 and
 * k1/k2 loaded.  FL_A..FL_D: the flags by a cmp on r15b (A: CF PF AF SF;
 * B: OF AF; C: OF SF CF; D: ZF PF), r15 then set again by mov.
 */
__asm__(".macro PRE\n"
	"\tmovabs $0x0123456789abcdef, %rax\n"
	"\tmovabs $0x1122334455667788, %rbx\n"
	"\tmov $5, %ecx\n"
	"\tmov $3, %edx\n"
	"\tmovabs $0x8000000000000001, %rsi\n"
	"\tmov $0xffffffff, %edi\n"
	"\tlea r7_buf(%rip), %rbp\n"
	"\tmovabs $0xfedcba9876543210, %r8\n"
	"\tmov $0xff, %r9d\n"
	"\tmovabs $0x7fffffffffffffff, %r10\n"
	"\tmovabs $0x100000000, %r11\n"
	"\tmov $-1, %r12\n"
	"\tmov $0, %r13d\n"
	"\tmovabs $0x0f0f0f0f0f0f0f0f, %r14\n"
	"\tmovdqu r7_x0(%rip), %xmm0\n"
	"\tmovdqu r7_x1(%rip), %xmm1\n"
	".endm\n"
	".macro FL p, v, x\n"
	"\tmov $\\v, %r15d\n"
	"\tcmp $\\x, %r15b\n"
	"\tmov $0xdeadbeef, %r15d\n"
	".endm\n"
	".macro T setup, insn, post\n"
	"\tPRE\n\t\\setup\n\tFL A, 0, 1\n\t\\insn\n\t\\post\n"
	"\tPRE\n\t\\setup\n\tFL B, 0x80, 1\n\t\\insn\n\t\\post\n"
	"\tPRE\n\t\\setup\n\tFL C, 0x7f, 0xff\n\t\\insn\n\t\\post\n"
	"\tPRE\n\t\\setup\n\tFL D, 5, 5\n\t\\insn\n\t\\post\n"
	".endm\n"
	".text\n"
	".globl r7_sweep\n"
	"r7_sweep:\n"
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
	"\tpush %r14\n\tpush %r15\n"
	"\tvmovdqu64 r7_x0(%rip), %xmm16\n"
	"\tvmovdqu64 r7_x1(%rip), %xmm17\n"
	"\tkxnorq %k1, %k1, %k1\n"
	"\tkxorq %k2, %k2, %k2\n"
#include "review7_sweep.inc"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"
	"\tpop %rbp\n\tpop %rbx\n\tret\n");
void r7_sweep(void);

static bool cpu_has_sweep(void)
{
	unsigned int a, b, c, d;

	/* AVX-512 F/BW/DQ/FP16, BMI1/2, ADX, RDSEED, RDPID, MOVDIRI,
	 * SERIALIZE, RTM, SHA, GFNI, VPOPCNTDQ, VBMI2.
	 */
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b & (1u << 16)) && (b & (1u << 30)) && (b & (1u << 17)) &&
	       (b & (1u << 3)) && (b & (1u << 8)) && (b & (1u << 19)) &&
	       (b & (1u << 18)) && (c & (1u << 22)) && (c & (1u << 27)) &&
	       (d & (1u << 14)) && (b & (1u << 11)) && (b & (1u << 29)) &&
	       (c & (1u << 8)) && (c & (1u << 14)) && (c & (1u << 6)) &&
	       (d & (1u << 23));
}

/* @v through a pipe: memory the engine cannot know (read(2)'s buffer). */
volatile long r7_u;

static void via_pipe(long v)
{
	int fd[2];
	long t = v;

	if (pipe(fd) || write(fd[1], &t, 8) != 8 ||
	    read(fd[0], (void *)&r7_u, 8) != 8)
		exit(3);
	close(fd[0]);
	close(fd[1]);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "sweep")) {
		if (!cpu_has_sweep())
			return 7;
		r7_sweep();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "rolcl")) {
		via_pipe(0x101);
		__asm__ volatile("mov r7_u(%%rip), %%rcx\n"
				 "\trol %%cl, %%rcx\n"
				 "\tcmp $0x202, %%rcx\n\tjne 1f\n"
				 "\tnop\n\tnop\n"
				 "1:\txor %%ecx, %%ecx\n"
				 EXIT_NOW ::: "rcx", "memory");
	}
	if (!strcmp(m, "bswap16")) {
		via_pipe(0x1234);
		__asm__ volatile("mov r7_u(%%rip), %%rbx\n"
				 "\t.byte 0x66, 0x0f, 0xcb\n"	/* bswap %%bx */
				 "\ttest %%bx, %%bx\n\tjnz 1f\n"
				 "\tnop\n\tnop\n"
				 "1:\txor %%ebx, %%ebx\n"
				 EXIT_NOW ::: "rbx", "memory");
	}
	fprintf(stderr, "review7: unknown mode '%s'\n", m);
	return 2;
}
