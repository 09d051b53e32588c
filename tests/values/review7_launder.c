// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 7's laundering modes (tests/values/review7.c says what the
 * review is and what it found; review7.sh runs them), apart from the
 * other cases because they share one raw-clone thread and its decoder.
 *
 * Laundering (R7L, as review6.c's): main's stack address &x reaches a
 * raw-clone thread through the global r7_area, written by an
 * instruction given by the mode (lword: mov, the control; lfnsave,
 * lfxsave, lxsave: the x87 state holding it after fildq; lfstpt, lfbstp,
 * lfstpl, lfistp; lmovntq, lmaskmovq, lmaskmovdqu, lpextrq, lmovdiri,
 * lmovdir64b, lmovbe, lxadd, lcx16b, lpopmem, lscatter; lxlat: byte by
 * byte through xlatb) or through the kernel (llseek: a memfd's file
 * offset; lrlimit: RLIMIT_CORE by prlimit64; lpwoff: a memfd's size
 * after pwrite64 at offset &x; lofdlk: an OFD lock's start, fcntl
 * F_OFD_SETLK; lwinsz: a pty's window size, TIOCSWINSZ, which
 * ioctl_keeps_none() lists; rcv_escsys.c takes lseek, prlimit64, fcntl and
 * pwrite64's offset as keeping nothing); the thread stores 0x77 into x.
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
#include <signal.h>
#include <ucontext.h>

#include "review7.h"

/*
 * Laundering (as review6.c): main stores x = 0x11 on its stack (r13 =
 * x), hands &x to a raw-clone thread in a way given by the mode, sets
 * r7_go, waits for r7_done and loads x into r12 (0x77: the thread stored
 * it through what it decoded).  The thread decodes by r7_kind from
 * r7_area + r7_off (x, 0x11 still, is loaded into r14 before r7_go): 0
 * a word, 1 an 80-bit float (fldt), 2 packed BCD (fbld), 3 a double
 * (fldl), 4 a big-endian word (movbe), 5 the file offset of r7_fd (lseek
 * SEEK_CUR), 6 RLIMIT_CORE's soft limit (getrlimit), 7 r7_fd's size less
 * 1 (fstat), 8 the start of the OFD lock that r7_fd holds, through
 * r7_fd2 (fcntl F_OFD_GETLK), 9 the window size of the pty r7_fd
 * (TIOCGWINSZ), 10 the x87 mantissa of &x | 1 << 62 (shifted left once),
 * 11 the word r7_slot points to.
 */
__asm__(RAWCLONE_SPAWN(r7));
__asm__(".text\n"
	/* procsys: read main's /proc/self/task/TID/syscall while main
	 * waits in futex(&x, FUTEX_WAIT, 0x11): its second field is &x
	 */
	"r7_child_proc:\n"
	"1:\tcmpq $0, r7_go(%rip)\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tsub $256, %rsp\n"
	"5:\tmov $-100, %edi\n\tlea r7_path(%rip), %rsi\n\txor %edx, %edx\n"
	"\tmov $257, %eax\n\tsyscall\n\tmov %eax, %ebx\n"
	"\tmov %ebx, %edi\n\tmov %rsp, %rsi\n\tmov $200, %edx\n"
	"\txor %eax, %eax\n\tsyscall\n\tmov %rax, %r12\n"
	"\tmov %ebx, %edi\n\tmov $3, %eax\n\tsyscall\n"
	/* "202 0x...": main may not be in the futex yet: again */
	"\tcmpl $0x20323032, (%rsp)\n\tjne 5b\n"
	"\tlea 6(%rsp), %rsi\n\txor %eax, %eax\n"
	"3:\tmovzbl (%rsi), %ecx\n\tcmp $0x20, %ecx\n\tje 4f\n"
	"\tsub $0x30, %ecx\n\tcmp $9, %ecx\n\tjbe 6f\n\tsub $0x27, %ecx\n"
	"6:\tshl $4, %rax\n\tor %rcx, %rax\n\tinc %rsi\n\tjmp 3b\n"
	"4:\tmovq $0x77, (%rax)\n"
	"\tmov %rax, %rdi\n\tmov $1, %esi\n\tmov $1, %edx\n"
	"\tmov $202, %eax\n\tsyscall\n"
	"\tmovq $1, r7_done(%rip)\n"
	"\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n"
	"r7_child_dec:\n"
	"1:\tcmpq $0, r7_go(%rip)\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tlea r7_area(%rip), %rbx\n\tadd r7_off(%rip), %rbx\n"
	"\tsub $64, %rsp\n"
	"\tmov r7_kind(%rip), %rcx\n"
	"\tcmp $0, %rcx\n\tjne 3f\n\tmov (%rbx), %rax\n\tjmp 9f\n"
	"3:\tcmp $1, %rcx\n\tjne 3f\n\tfldt (%rbx)\n\tjmp 8f\n"
	"3:\tcmp $2, %rcx\n\tjne 3f\n\tfbld (%rbx)\n\tjmp 8f\n"
	"3:\tcmp $3, %rcx\n\tjne 3f\n\tfldl (%rbx)\n\tjmp 8f\n"
	"3:\tcmp $4, %rcx\n\tjne 3f\n\tmovbe (%rbx), %rax\n\tjmp 9f\n"
	"3:\tcmp $5, %rcx\n\tjne 3f\n"
	"\tmov r7_fd(%rip), %edi\n\txor %esi, %esi\n\tmov $1, %edx\n"
	"\tmov $8, %eax\n\tsyscall\n\tjmp 9f\n"
	"3:\tcmp $6, %rcx\n\tjne 3f\n"
	"\tmov $4, %edi\n\tmov %rsp, %rsi\n\tmov $97, %eax\n"
	"\tsyscall\n\tmov (%rsp), %rax\n\tjmp 9f\n"
	"3:\tcmp $7, %rcx\n\tjne 3f\n"
	"\tsub $192, %rsp\n\tmov r7_fd(%rip), %edi\n\tmov %rsp, %rsi\n"
	"\tmov $5, %eax\n\tsyscall\n\tmov 48(%rsp), %rax\n"
	"\tdec %rax\n\tjmp 9f\n"
	/* 8: F_OFD_GETLK on another open file description of the file */
	"3:\tcmp $8, %rcx\n\tjne 3f\n"
	"\tmovq $1, (%rsp)\n\tmovq $0, 8(%rsp)\n\tmovq $0, 16(%rsp)\n"
	"\tmovq $0, 24(%rsp)\n\tmov r7_fd2(%rip), %edi\n"
	"\tmov $36, %esi\n\tmov %rsp, %rdx\n\tmov $72, %eax\n"
	"\tsyscall\n\tmov 8(%rsp), %rax\n\tjmp 9f\n"
	/* 9: TIOCGWINSZ of r7_fd (a pty) */
	"3:\tcmp $9, %rcx\n\tjne 3f\n"
	"\tmov r7_fd(%rip), %edi\n\tmov $0x5413, %esi\n\tmov %rsp, %rdx\n"
	"\tmov $16, %eax\n\tsyscall\n\tmov (%rsp), %rax\n\tjmp 9f\n"
	/* 10: a mantissa of (x | 1 << 62) << 1 */
	"3:\tcmp $10, %rcx\n\tjne 3f\n"
	"\tmov (%rbx), %rax\n\tshr $1, %rax\n\tbtr $62, %rax\n\tjmp 9f\n"
	/* 11: the word r7_slot points to (the frame's saved r15) */
	"3:\tcmp $11, %rcx\n\tjne 3f\n"
	"\tmov r7_slot(%rip), %rax\n\tmov (%rax), %rax\n\tjmp 9f\n"
	"3:\tud2\n"
	"8:\tfistpq (%rsp)\n\tmov (%rsp), %rax\n"
	"9:\tmovq $0x77, (%rax)\n\tmovq $1, r7_done(%rip)\n"
	"\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n");
extern char r7_child_dec[], r7_child_proc[];
void r7_spawn(void *code);
RAWCLONE_STACK(r7);
volatile long r7_go, r7_done, r7_kind, r7_off;
int r7_fd, r7_fd2;
char r7_path[64];
unsigned char r7_area[4096] __attribute__((aligned(64)));

#define R7L(KIND, OFF, LAUNDER)						\
	do {								\
		volatile long x;					\
		r7_kind = KIND;						\
		r7_off = OFF;						\
		r7_spawn(r7_child_dec);					\
		__asm__ volatile("movq $0x11, %0\n"			\
			 "\tmov %0, %%r13\n"				\
			 "\tlea %0, %%rax\n"				\
			 LAUNDER					\
			 "\tmov %0, %%r14\n"				\
			 "\tnop\n"					\
			 "\txor %%r14d, %%r14d\n"			\
			 "\txor %%eax, %%eax\n"			\
			 "\tmovq $1, r7_go(%%rip)\n"		\
			 "1:\tcmpq $0, r7_done(%%rip)\n\tjnz 2f\n"	\
			 "\tpause\n\tjmp 1b\n"			\
			 "2:\tmov %0, %%r12\n"			\
			 "\tnop\n\tnop\n\tnop\n"			\
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n" \
			 EXIT_NOW					\
			 : "+m"(x) : : "rax", "rbx", "rcx", "rdx", "rsi",	\
			 "rdi", "r8", "r9", "r10", "r11", "r12", "r13",	\
			 "r14", "r15", "memory");			\
	} while (0)

/* laltsig: the handler notes where the kernel saved r15. */
volatile long r7_slot;

static void r7_altr15(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	r7_slot = (long)&((ucontext_t *)uc)->uc_mcontext.gregs[REG_R15];
}

/* Runs laundering mode @m (or costack); -1 if @m is not one. */
int r7_launder(const char *m)
{
	/* Laundering: R7L's modes. */
	if (!strcmp(m, "lword"))	/* the control: a plain store */
		R7L(0, 0, "\tmov %%rax, r7_area(%%rip)\n");
	if (!strcmp(m, "lfnsave"))	/* fildq; fnsave: ST0 at +28 */
		R7L(1, 28, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tfnsave r7_area(%%rip)\n");
	if (!strcmp(m, "lfxsave"))	/* fildq; fxsave64: ST0 at +32 */
		R7L(1, 32, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tfxsave64 r7_area(%%rip)\n"
		    "\tfstp %%st(0)\n");
	if (!strcmp(m, "lxsave"))	/* fildq; xsave64 (x87): ST0 at +32 */
		R7L(1, 32, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tmov $1, %%eax\n\txor %%edx, %%edx\n"
		    "\txsave64 r7_area(%%rip)\n\tfstp %%st(0)\n");
	if (!strcmp(m, "lfstpt"))	/* fildq; fstpt */
		R7L(1, 0, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tfstpt r7_area(%%rip)\n");
	if (!strcmp(m, "lfbstp"))	/* fildq; fbstp (packed BCD) */
		R7L(2, 0, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tfbstp r7_area(%%rip)\n");
	if (!strcmp(m, "lfstpl"))	/* fildq; fstpl (a double: exact) */
		R7L(3, 0, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tfstpl r7_area(%%rip)\n");
	if (!strcmp(m, "lfistp"))	/* fildq; fistpq to the global */
		R7L(0, 0, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tadd $128, %%rsp\n\tfistpq r7_area(%%rip)\n");
	if (!strcmp(m, "lmovntq"))	/* movq to mm0; movntq */
		R7L(0, 0, "\tmovq %%rax, %%mm0\n\tmovntq %%mm0, r7_area(%%rip)\n"
		    "\temms\n");
	if (!strcmp(m, "lmaskmovq"))	/* mm0; maskmovq to [rdi] */
		R7L(0, 0, "\tmovq %%rax, %%mm0\n\tpcmpeqb %%mm1, %%mm1\n"
		    "\tlea r7_area(%%rip), %%rdi\n\tmaskmovq %%mm1, %%mm0\n"
		    "\temms\n");
	if (!strcmp(m, "lmaskmovdqu"))	/* xmm0; maskmovdqu to [rdi] */
		R7L(0, 0, "\tmovq %%rax, %%xmm0\n\tpcmpeqb %%xmm1, %%xmm1\n"
		    "\tlea r7_area(%%rip), %%rdi\n\tmaskmovdqu %%xmm1, %%xmm0\n"
		    "\tpxor %%xmm0, %%xmm0\n");
	if (!strcmp(m, "lpextrq"))	/* xmm0; pextrq to the global */
		R7L(0, 0, "\tmovq %%rax, %%xmm0\n"
		    "\tpextrq $0, %%xmm0, r7_area(%%rip)\n\tpxor %%xmm0, %%xmm0\n");
	if (!strcmp(m, "lmovdiri"))
		R7L(0, 0, "\tmovdiri %%rax, r7_area(%%rip)\n");
	if (!strcmp(m, "lmovdir64b"))	/* 64 bytes from the stack */
		R7L(0, 0, "\tsub $256, %%rsp\n\tmov %%rsp, %%rsi\n"
		    "\tand $-64, %%rsi\n\tmov %%rax, (%%rsi)\n"
		    "\tlea r7_area(%%rip), %%rdi\n\tmovdir64b (%%rsi), %%rdi\n"
		    "\tmovq $0, (%%rsi)\n\tadd $256, %%rsp\n");
	if (!strcmp(m, "lmovbe"))
		R7L(4, 0, "\tmovbe %%rax, r7_area(%%rip)\n");
	if (!strcmp(m, "lxadd"))	/* xadd into the global (0) */
		R7L(0, 0, "\tlock xadd %%rax, r7_area(%%rip)\n");
	if (!strcmp(m, "lcx16b"))	/* cmpxchg16b: rcx:rbx = 0:&x */
		R7L(0, 0, "\tmov %%rax, %%rbx\n\txor %%ecx, %%ecx\n"
		    "\txor %%eax, %%eax\n\txor %%edx, %%edx\n"
		    "\tlock cmpxchg16b r7_area(%%rip)\n\txor %%ebx, %%ebx\n");
	if (!strcmp(m, "lpopmem"))	/* push; pop into the global */
		R7L(0, 0, "\tpush %%rax\n\tpopq r7_area(%%rip)\n");
	if (!strcmp(m, "lscatter")) {	/* EVEX vpscatterqq */
		if (!r7_cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tvmovq %%rax, %%xmm0\n\tvpxorq %%zmm5, %%zmm5, %%zmm5\n"
		    "\tmov $1, %%ecx\n\tkmovw %%ecx, %%k1\n"
		    "\tlea r7_area(%%rip), %%rbx\n"
		    "\tvpscatterqq %%zmm0, (%%rbx,%%zmm5,8)%{%%k1%}\n"
		    "\tvpxor %%xmm0, %%xmm0, %%xmm0\n");
	}
	if (!strcmp(m, "lxlat")) {	/* byte by byte through xlatb */
		for (int k = 0; k < 256; k++)
			r7_area[2048 + k] = (unsigned char)k;
		R7L(0, 0, "\tmov %%rax, %%rsi\n\txor %%edx, %%edx\n"
		    "\tlea r7_area+2048(%%rip), %%rbx\n\tmov $56, %%ecx\n"
		    "3:\tmov %%rsi, %%rax\n\tshr %%cl, %%rax\n\txlatb\n"
		    "\tmovzbl %%al, %%eax\n\tshl $8, %%rdx\n\tor %%rax, %%rdx\n"
		    "\tsub $8, %%ecx\n\tjns 3b\n"
		    "\tmov %%rdx, r7_area(%%rip)\n\txor %%esi, %%esi\n");
	}
	/* x87 state through a save area on the stack and back */
	if (!strcmp(m, "lfrstor"))	/* fnsave on the stack, frstor */
		R7L(0, 0, "\tsub $256, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tfnsave 16(%%rsp)\n\tfrstor 16(%%rsp)\n"
		    "\tfistpq r7_area(%%rip)\n"
		    "\tmovq $0, 44(%%rsp)\n\tmovq $0, 52(%%rsp)\n"
		    "\tadd $256, %%rsp\n");
	if (!strcmp(m, "lfldt"))	/* fnsave on the stack, fldt ST0 */
		R7L(0, 0, "\tsub $256, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tfnsave 16(%%rsp)\n\tfldt 44(%%rsp)\n"
		    "\tfistpq r7_area(%%rip)\n"
		    "\tmovq $0, 44(%%rsp)\n\tmovq $0, 52(%%rsp)\n"
		    "\tadd $256, %%rsp\n");
	if (!strcmp(m, "lfxrstor"))	/* fxsave on the stack, fxrstor */
		R7L(0, 0, "\tsub $1024, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tlea 64(%%rsp), %%rsi\n\tand $-64, %%rsi\n"
		    "\tfxsave64 (%%rsi)\n\tfstp %%st(0)\n"
		    "\tfxrstor64 (%%rsi)\n"
		    "\tfistpq r7_area(%%rip)\n"
		    "\tmovq $0, 32(%%rsi)\n\tmovq $0, 40(%%rsi)\n"
		    "\tadd $1024, %%rsp\n\txor %%esi, %%esi\n");
	if (!strcmp(m, "lxrstor"))	/* xsave (x87) on the stack, xrstor */
		R7L(0, 0, "\tsub $4096, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tfildq (%%rsp)\n\tmovq $0, (%%rsp)\n"
		    "\tlea 64(%%rsp), %%rsi\n\tand $-64, %%rsi\n"
		    "\tmov %%rsi, %%rdi\n\tmov $128, %%ecx\n\txor %%eax, %%eax\n"
		    "\trep stosq\n"
		    "\tmov $1, %%eax\n\txor %%edx, %%edx\n"
		    "\txsave64 (%%rsi)\n\tfstp %%st(0)\n"
		    "\tmov $1, %%eax\n\txor %%edx, %%edx\n"
		    "\txrstor64 (%%rsi)\n"
		    "\tfistpq r7_area(%%rip)\n"
		    "\tmovq $0, 32(%%rsi)\n\tmovq $0, 40(%%rsi)\n"
		    "\tadd $4096, %%rsp\n\txor %%esi, %%esi\n"
		    "\txor %%edi, %%edi\n");
	if (!strcmp(m, "lfxsavexmm"))	/* xmm0; fxsave64 to the global */
		R7L(0, 160, "\tmovq %%rax, %%xmm0\n\tfxsave64 r7_area(%%rip)\n"
		    "\tpxor %%xmm0, %%xmm0\n");
	if (!strcmp(m, "lvmaskmov"))	/* VEX masked store */
		R7L(0, 0, "\tvmovq %%rax, %%xmm0\n\tvpcmpeqd %%xmm1, %%xmm1, %%xmm1\n"
		    "\tvmaskmovpd %%xmm0, %%xmm1, r7_area(%%rip)\n"
		    "\tvpxor %%xmm0, %%xmm0, %%xmm0\n");
	if (!strcmp(m, "lvmovdqu8k")) {	/* EVEX masked store */
		if (!r7_cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tvmovq %%rax, %%xmm0\n\tkxnorq %%k1, %%k1, %%k1\n"
		    "\tvmovdqu8 %%zmm0, r7_area(%%rip)%{%%k1%}\n"
		    "\tvpxor %%xmm0, %%xmm0, %%xmm0\n");
	}
	if (!strcmp(m, "lvpcompress")) {	/* EVEX compress store */
		if (!r7_cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tvmovq %%rax, %%xmm0\n\tmov $1, %%ecx\n"
		    "\tkmovw %%ecx, %%k1\n"
		    "\tvpcompressq %%zmm0, r7_area(%%rip)%{%%k1%}\n"
		    "\tvpxor %%xmm0, %%xmm0, %%xmm0\n");
	}
	if (!strcmp(m, "lmovqmm"))	/* MMX movq store */
		R7L(0, 0, "\tmovq %%rax, %%mm0\n\tmovq %%mm0, r7_area(%%rip)\n"
		    "\temms\n");
	if (!strcmp(m, "lcvtsd"))	/* a double through movsd */
		R7L(3, 0, "\tcvtsi2sdq %%rax, %%xmm0\n\tmovsd %%xmm0, r7_area(%%rip)\n"
		    "\tpxor %%xmm0, %%xmm0\n");
	if (!strcmp(m, "lpushglob"))	/* push with rsp in a global */
		R7L(0, 0, "\tmov %%rsp, %%rbx\n\tlea r7_area+8(%%rip), %%rsp\n"
		    "\tpush %%rax\n\tmov %%rbx, %%rsp\n");
	if (!strcmp(m, "lstglob"))	/* mov through rsp in a global */
		R7L(0, 0, "\tmov %%rsp, %%rbx\n\tlea r7_area(%%rip), %%rsp\n"
		    "\tmov %%rax, (%%rsp)\n\tmov %%rbx, %%rsp\n");
	if (!strcmp(m, "lxchgm"))	/* xchg with the global */
		R7L(0, 0, "\txchg %%rax, r7_area(%%rip)\n");
	if (!strcmp(m, "lcmpxchgm"))	/* cmpxchg into the global (0) */
		R7L(0, 0, "\tmov %%rax, %%rcx\n\txor %%eax, %%eax\n"
		    "\tlock cmpxchg %%rcx, r7_area(%%rip)\n\txor %%ecx, %%ecx\n");
	if (!strcmp(m, "lmovnti"))
		R7L(0, 0, "\tmovnti %%rax, r7_area(%%rip)\n");
	if (!strcmp(m, "lkmask")) {	/* through k1 into a GPR */
		if (!r7_cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tkmovq %%rax, %%k1\n\txor %%eax, %%eax\n"
		    "\tkmovq %%k1, %%rdx\n\tkxorq %%k1, %%k1, %%k1\n"
		    "\tmov %%rdx, r7_area(%%rip)\n\txor %%edx, %%edx\n");
	}
	if (!strcmp(m, "lkmaskst")) {	/* k1 stored to the global */
		if (!r7_cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tkmovq %%rax, %%k1\n"
		    "\tkmovq %%k1, r7_area(%%rip)\n\tkxorq %%k1, %%k1, %%k1\n");
	}
	if (!strcmp(m, "lfldcw"))	/* 16 bits at a time through the FPU
					 * control word (12 bits kept: 4 each) */
		R7L(0, 0, "\tsub $64, %%rsp\n\tfnstcw 8(%%rsp)\n"
		    "\txor %%edx, %%edx\n\tmov $60, %%ecx\n"
		    "3:\tmov %%rax, %%rsi\n\tshr %%cl, %%rsi\n\tand $15, %%esi\n"
		    "\tshl $8, %%esi\n\tor $0x37f & 0xf0ff, %%esi\n"
		    "\tmov %%si, (%%rsp)\n\tfldcw (%%rsp)\n"
		    "\tmovw $0, (%%rsp)\n\tfnstcw 2(%%rsp)\n"
		    "\tmovzwl 2(%%rsp), %%esi\n\tmovw $0, 2(%%rsp)\n"
		    "\tshr $8, %%esi\n\tand $15, %%esi\n"
		    "\tshl $4, %%rdx\n\tor %%rsi, %%rdx\n"
		    "\tsub $4, %%ecx\n\tjns 3b\n"
		    "\tfldcw 8(%%rsp)\n\tadd $64, %%rsp\n"
		    "\tmov %%rdx, r7_area(%%rip)\n\txor %%edx, %%edx\n"
		    "\txor %%esi, %%esi\n");
	if (!strcmp(m, "lmxcsr"))	/* 16 bits at a time through MXCSR */
		R7L(0, 0, "\tsub $64, %%rsp\n\tstmxcsr 8(%%rsp)\n"
		    "\txor %%edx, %%edx\n\tmov $48, %%ecx\n"
		    "3:\tmov %%rax, %%rsi\n\tshr %%cl, %%rsi\n"
		    "\tmovzwl %%si, %%esi\n"
		    "\tmov %%esi, (%%rsp)\n\tldmxcsr (%%rsp)\n"
		    "\tmovl $0, (%%rsp)\n\tstmxcsr 4(%%rsp)\n"
		    "\tmovzwl 4(%%rsp), %%esi\n\tmovl $0, 4(%%rsp)\n"
		    "\tshl $16, %%rdx\n\tor %%rsi, %%rdx\n"
		    "\tsub $16, %%ecx\n\tjns 3b\n"
		    "\tldmxcsr 8(%%rsp)\n\tadd $64, %%rsp\n"
		    "\tmov %%rdx, r7_area(%%rip)\n\txor %%edx, %%edx\n"
		    "\txor %%esi, %%esi\n");
	if (!strcmp(m, "lx87mmx"))	/* fildq, then mm7 (R7's mantissa) */
		R7L(10, 0, "\tsub $64, %%rsp\n\tbts $62, %%rax\n"
		    "\tmov %%rax, (%%rsp)\n\tfninit\n\tfildq (%%rsp)\n"
		    "\tmovq $0, (%%rsp)\n\tadd $64, %%rsp\n"
		    "\tmovq %%mm7, r7_area(%%rip)\n\temms\n\tfninit\n");
	if (!strcmp(m, "lmmx87"))	/* mm0, then fstpt (ST0 is R0) */
		R7L(0, 0, "\tmovq %%rax, %%mm0\n\tfstpt r7_area(%%rip)\n"
		    "\temms\n");
	if (!strcmp(m, "laltsig")) {	/* r15 = &x saved in a frame on a
					 * sigaltstack (a global) */
		if (r7_on_altstack(r7_altr15))
			return 7;
		R7L(11, 0, "\tmov %%rax, %%r15\n"
		    "\tmov $39, %%eax\n\tsyscall\n\tmov %%rax, %%rdi\n"
		    "\tmov $186, %%eax\n\tsyscall\n\tmov %%rax, %%rsi\n"
		    "\tmov $10, %%edx\n\tmov $234, %%eax\n\tsyscall\n"
		    "\txor %%r15d, %%r15d\n");
	}
	if (!strcmp(m, "lprocsys")) {	/* main waits in futex(&x, WAIT) */
		volatile long x;

		/* by hand: snprintf's stack FILE would show the stack */
		char *q = r7_path;
		int tid = (int)gettid(), d = 1;

		memcpy(q, "/proc/self/task/", 16);
		q += 16;
		while (d * 10 <= tid)
			d *= 10;
		for (; d; d /= 10)
			*q++ = (char)('0' + tid / d % 10);
		memcpy(q, "/syscall", 9);
		r7_spawn(r7_child_proc);
		__asm__ volatile("movq $0x11, %0\n"
				 "\tmov %0, %%r13\n"
				 "\tmov $39, %%eax\n\tsyscall\n"	/* getpid */
				 "\tmovq $1, r7_go(%%rip)\n"
				 "\tmov %0, %%r14\n\tnop\n\txor %%r14d, %%r14d\n"
				 "1:\tlea %0, %%rdi\n\txor %%esi, %%esi\n"
				 "\tmov $0x11, %%edx\n\txor %%r10d, %%r10d\n"
				 "\tmov $202, %%eax\n\tsyscall\n"
				 "\tcmpq $0x11, %0\n\tje 1b\n"
				 "\tmov %0, %%r12\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW : "+m"(x) :: "rax", "rcx", "rdx", "rsi",
				 "rdi", "r10", "r11", "r12", "r13", "r14",
				 "memory");
	}
	if (!strcmp(m, "llseek")) {	/* the file offset of a memfd */
		r7_fd = memfd_create("r7", 0);
		if (r7_fd < 0)
			return 7;
		R7L(5, 0, "\tmov r7_fd(%%rip), %%edi\n\tmov %%rax, %%rsi\n"
		    "\txor %%edx, %%edx\n\tmov $8, %%eax\n\tsyscall\n"
		    "\txor %%esi, %%esi\n");
	}
	if (!strcmp(m, "lpwoff")) {	/* pwrite64 of a byte at offset &x */
		r7_fd = memfd_create("r7", 0);
		if (r7_fd < 0)
			return 7;
		R7L(7, 0, "\tmov r7_fd(%%rip), %%edi\n\tmov %%rax, %%r10\n"
		    "\tlea r7_area(%%rip), %%rsi\n\tmov $1, %%edx\n"
		    "\tmov $18, %%eax\n\tsyscall\n"
		    "\txor %%r10d, %%r10d\n");
	}
	if (!strcmp(m, "lofdlk")) {	/* an OFD lock at offset &x */
		/* the path in a global, by hand: snprintf's stack FILE
		 * would show the stack to the engine's escape analysis
		 */
		static char path[32] = "/proc/self/fd/";

		r7_fd = memfd_create("r7", 0);
		if (r7_fd < 0 || r7_fd > 99)
			return 7;
		if (r7_fd > 9) {
			path[14] = (char)('0' + r7_fd / 10);
			path[15] = (char)('0' + r7_fd % 10);
		} else {
			path[14] = (char)('0' + r7_fd);
		}
		r7_fd2 = open(path, O_RDWR);
		if (r7_fd2 < 0)
			return 7;
		R7L(8, 0, "\tsub $128, %%rsp\n\tmovq $1, (%%rsp)\n"
		    "\tmov %%rax, 8(%%rsp)\n\tmovq $1, 16(%%rsp)\n"
		    "\tmovq $0, 24(%%rsp)\n\tmov r7_fd(%%rip), %%edi\n"
		    "\tmov $37, %%esi\n\tmov %%rsp, %%rdx\n"
		    "\tmov $72, %%eax\n\tsyscall\n"
		    "\tmovq $0, 8(%%rsp)\n\tadd $128, %%rsp\n");
	}
	if (!strcmp(m, "lwinsz")) {	/* TIOCSWINSZ of a pty: 8 bytes */
		r7_fd = open("/dev/ptmx", O_RDWR | O_NOCTTY);
		if (r7_fd < 0)
			return 7;
		R7L(9, 0, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tmov r7_fd(%%rip), %%edi\n\tmov $0x5414, %%esi\n"
		    "\tmov %%rsp, %%rdx\n\tmov $16, %%eax\n\tsyscall\n"
		    "\tmovq $0, (%%rsp)\n\tadd $128, %%rsp\n");
	}
	if (!strcmp(m, "lrlimit"))	/* prlimit64(0, RLIMIT_CORE, {&x, inf}) */
		R7L(6, 0, "\tsub $128, %%rsp\n\tmov %%rax, (%%rsp)\n"
		    "\tmovq $-1, 8(%%rsp)\n\txor %%edi, %%edi\n"
		    "\tmov $4, %%esi\n\tmov %%rsp, %%rdx\n\txor %%r10d, %%r10d\n"
		    "\tmov $302, %%eax\n\tsyscall\n"
		    "\tmovq $0, (%%rsp)\n\tadd $128, %%rsp\n");
	if (!strcmp(m, "costack")) {	/* the end on a stack in an mmap region */
		char *reg = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (reg == MAP_FAILED)
			return 7;
		/* the object the thread writes: r7_pub points to it */
		r7_kind = 0;
		r7_off = 0;
		*(long *)(reg + 64) = 0x11;
		((long *)r7_area)[0] = (long)(reg + 64);
		r7_spawn(r7_child_dec);
		__asm__ volatile("mov 64(%0), %%r13\n"
				 "\tmovq $1, r7_go(%%rip)\n"
				 "1:\tcmpq $0, r7_done(%%rip)\n\tjnz 2f\n"
				 "\tpause\n\tjmp 1b\n"
				 "2:\tmov 64(%0), %%r12\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 /* on to a stack at the region's top */
				 "\tlea (1 << 20)(%0), %%rsp\n"
				 "\tpush %%rax\n\tpop %%rax\n"
				 EXIT_NOW :: "r"(reg)
				 : "rax", "r12", "r13", "memory");
	}
	return -1;
}
