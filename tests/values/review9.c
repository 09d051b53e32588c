// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 9 (adversarial) of the values engine's promise "never a wrong
 * value" (issue #17) and of watchpoints (issue #18).  One case per mode,
 * for valcheck and GDB (tests/values/review9.sh, `make values-review9`).
 * Correct programs only; exit 7 where a case cannot be made here.  Each
 * case ends the process with a raw exit right after its code, so the
 * snapshot is close.
 *
 * Findings (wrong values or missed stops on main c32fad5):
 *   popfs    push/pop of fs and gs: capstone 4 lists no register written
 *            by `pop %fs`/`pop %gs`, rsp taken as unchanged.
 *   popfsw   (GDB) a push before `push %fs; pop %fs`: watch on its slot.
 *   settid   (GDB) clone(CLONE_VM | CLONE_PARENT_SETTID |
 *            CLONE_CHILD_SETTID): the kernel's tid writes at known
 *            addresses pass a watch with watch-unknown skip.
 *   c32      a far jump to 32-bit code (cs 0x23): decoded as 64-bit.
 *   leaseg   lea with an fs override: the engine adds fs_base.
 *   vsystime (GDB) time() through the vsyscall page: the kernel's write
 *            at rdi passes a watch with watch-unknown skip (vsysgtod:
 *            gettimeofday and getcpu there, added with the fix).
 *   sysw     (GDB) review9_sys.tbl: 14 system calls outside the
 *            kernel-write table, each writing a buffer of known address:
 *            with watch-unknown skip a watch passes them.
 *   rw       (GDB) review9_rw.tbl: string instructions with DF set,
 *            overlaps, fs overrides (every access stops; a regression
 *            table, not a finding).
 * Tried and right on main (kept for the record, not in the script):
 * smc (code in an anonymous mapping: a gap), smctext (code patched in a
 * file-backed text page: documented in docs/recorder.md, 13 wrong),
 * vforkw, lssrsp, swapctx, ljmp, verzf, zext, hibyte, stackops, ssebat,
 * partial, popfbits, rtm, memrmw, movss, vsystime's values, sysv
 * (review9_sys.tbl's calls with a store before and a load after each),
 * bindmem (/proc/self/mem bind-mounted over a file and written: the
 * engine takes it as memory), retpop (GDB: rsp after a callee's `ret
 * $16` behind a barrier, as GDB shows it: right).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define EXIT_NOW "\txor %%edi, %%edi\n\tmov $231, %%eax\n\tsyscall\n"

uint64_t r9_g[16];
uint64_t r9_fsb;

/* push/pop of fs and gs: capstone 4 lists neither rsp nor the segment
 * register as written.
 */
static void popfs(void)
{
	__asm__ volatile("rdfsbase %%r13\n"
			 "mov %%r13, r9_fsb(%%rip)\n"
			 "mov $0x1111, %%r12\n"
			 "mov %%rsp, %%rbx\n"
			 "push %%fs\n"
			 "pop %%fs\n"
			 "wrfsbase %%r13\n"
			 "push %%gs\n"
			 "pop %%gs\n"
			 "mov %%rsp, %%r14\n"
			 "push $0x55\n"
			 "pop %%r15\n"
			 "mov %%rsp, %%rbp\n"
			 EXIT_NOW ::: "memory");
}

/* Self-modifying code: the same instruction executed with two
 * immediates (the first copy's bytes are rewritten before the second
 * run); the snapshot holds the second.
 */
static void smc(void)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const unsigned char code[] = {
		0x41, 0xbc, 0x11, 0x11, 0x00, 0x00,	/* mov $0x1111, %r12d */
		0x4c, 0x89, 0xe3,			/* mov %r12, %rbx */
		0xc3					/* ret */
	};

	if (p == MAP_FAILED)
		exit(7);
	memcpy(p, code, sizeof(code));
	__asm__ volatile("call *%0\n"
			 "mov %%rbx, r9_g(%%rip)\n"
			 "movw $0x2222, 2(%0)\n"
			 "call *%0\n"
			 "mov %%rbx, r9_g+8(%%rip)\n"
			 "mov r9_g(%%rip), %%r13\n"
			 EXIT_NOW :: "r"(p) : "memory", "rbx", "r12", "r13");
}

/* vfork: the child stores into the parent's globals before _exit. */
static void vforkw(void)
{
	r9_g[0] = 0x1111;
	__asm__ volatile("" ::: "memory");
	if (vfork() == 0) {
		r9_g[0] = 0x2222;
		_exit(0);
	}
	__asm__ volatile("mov r9_g(%%rip), %%r12\n"
			 "mov %%r12, %%rbx\n"
			 EXIT_NOW ::: "memory");
}

/* lss with REX.W: rsp from a 10-byte far pointer (offset, ss). */
unsigned char r9_stk[65536] __attribute__((aligned(64)));
struct __attribute__((packed)) farp { uint64_t off; uint16_t sel; };
struct farp r9_fp;

static void lssrsp(void)
{
	uint16_t ss;

	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
	r9_fp.off = (uint64_t)(uintptr_t)(r9_stk + 32768);
	r9_fp.sel = ss;
	__asm__ volatile("mov %%rsp, %%rbx\n"
			 "lea r9_fp(%%rip), %%rax\n"
			 ".byte 0x48, 0x0f, 0xb2, 0x20\n"	/* lss (%%rax), %%rsp */
			 "push $0x33\n"
			 "pop %%r12\n"
			 "mov %%rsp, %%r13\n"
			 "mov %%rbx, %%rsp\n"
			 EXIT_NOW ::: "memory", "rax");
}

/* swapcontext to a context on its own stack and back. */
static ucontext_t r9_uc[2];
static unsigned char r9_cstk[65536] __attribute__((aligned(64)));

static void ctxfn(void)
{
	r9_g[1] = 0x4444;
	swapcontext(&r9_uc[1], &r9_uc[0]);
}

static void swapctx(void)
{
	getcontext(&r9_uc[1]);
	r9_uc[1].uc_stack.ss_sp = r9_cstk;
	r9_uc[1].uc_stack.ss_size = sizeof(r9_cstk);
	r9_uc[1].uc_link = NULL;
	makecontext(&r9_uc[1], ctxfn, 0);
	swapcontext(&r9_uc[0], &r9_uc[1]);
	__asm__ volatile("mov r9_g+8(%%rip), %%r12\n"
			 "mov %%rsp, %%rbx\n"
			 EXIT_NOW ::: "memory");
}

/* longjmp out of two frames. */
static jmp_buf r9_jb;

#pragma GCC diagnostic ignored "-Winfinite-recursion"
static volatile int r9_depth;

static __attribute__((noinline)) void ljdeep(void)
{
	volatile char buf[64];

	buf[0] = (char)r9_depth;
	if (r9_depth-- > 0)
		ljdeep();
	else
		longjmp(r9_jb, 5 + buf[0]);
	r9_g[3] = (uint64_t)buf[0];
}

static void ljmp(void)
{
	int r;

	r9_depth = 3;
	r = setjmp(r9_jb);

	if (!r)
		ljdeep();
	r9_g[2] = (uint64_t)r;
	__asm__ volatile("mov r9_g+16(%%rip), %%r12\n"
			 "mov %%rsp, %%rbx\n"
			 EXIT_NOW ::: "memory");
}

/* verr, verw, lar and lsl set ZF (SDM); capstone 4 lists no flag
 * written by verr/verw, and only the destination for lar/lsl.
 */
static void verzf(void)
{
	__asm__ volatile("mov %%cs, %%ecx\n"
			 "mov $1, %%eax\n"
			 "test %%eax, %%eax\n"		/* ZF 0 */
			 "verr %%cx\n"			/* ZF 1: readable */
			 "setz %%r12b\n"
			 "test %%eax, %%eax\n"
			 "verw %%cx\n"			/* ZF 0: cs not writable */
			 "mov %%ss, %%edx\n"
			 "test %%eax, %%eax\n"
			 "verw %%dx\n"			/* ZF 1 */
			 "setz %%r13b\n"
			 "test %%eax, %%eax\n"
			 "lar %%ecx, %%ebx\n"		/* ZF 1 */
			 "setz %%r14b\n"
			 "test %%eax, %%eax\n"
			 "lsl %%ecx, %%ebp\n"		/* ZF 1 */
			 "setz %%r15b\n"
			 EXIT_NOW ::: "memory");
}

/* 32-bit register forms whose upper half is cleared (SDM 3.4.1.1):
 * xchg %eax, %eax (87 c0), cmovne not taken, shifts by 0, 32, 33.
 */
static void zext(void)
{
	__asm__ volatile("mov $-1, %%rax\n"
			 ".byte 0x87, 0xc0\n"		/* xchg %eax, %eax */
			 "mov %%rax, %%r12\n"
			 "mov $-1, %%rbx\n"
			 "mov $5, %%ecx\n"
			 "cmp %%ecx, %%ecx\n"
			 "cmovne %%ecx, %%ebx\n"
			 "mov %%rbx, %%r13\n"
			 "mov $-1, %%rdx\n"
			 "mov $32, %%ecx\n"
			 "test %%edx, %%edx\n"
			 "shl %%cl, %%edx\n"
			 "mov %%rdx, %%r14\n"
			 "mov $33, %%ecx\n"
			 "mov $-1, %%rsi\n"
			 "shr %%cl, %%esi\n"
			 "mov $0, %%ecx\n"
			 "mov $-1, %%rdi\n"
			 "sar %%cl, %%edi\n"
			 "mov $64, %%ecx\n"
			 "mov $0x1234, %%r8\n"
			 "shl %%cl, %%r8\n"
			 "mov $9, %%ecx\n"
			 "mov $0x1ff, %%r9\n"
			 "shl %%cl, %%r9b\n"
			 "mov $0x8001, %%r10\n"
			 "rol %%cl, %%r10w\n"
			 "mov $17, %%ecx\n"
			 "mov $0x8001, %%r11\n"
			 "shl %%cl, %%r11w\n"
			 "mov %%r11, %%r15\n"
			 EXIT_NOW ::: "memory");
}

/* High-byte registers and 16-bit lea. */
static void hibyte(void)
{
	__asm__ volatile("mov $0x1234, %%eax\n"
			 "mov $0x5678, %%ebx\n"
			 "xchg %%ah, %%al\n"
			 "add %%bh, %%al\n"
			 "movzbl %%bh, %%ecx\n"
			 "movsbl %%ah, %%edx\n"
			 "mov %%ah, %%bl\n"
			 "mov $0xffffffffffffffff, %%rsi\n"
			 "lea 0x10(%%rax,%%rbx), %%si\n"
			 "mov $0xffffffffffffffff, %%rdi\n"
			 "lea 0x10(%%rax,%%rbx), %%edi\n"
			 "inc %%ah\n"
			 "neg %%bh\n"
			 "mov %%rax, %%r12\n"
			 "mov %%rbx, %%r13\n"
			 EXIT_NOW ::: "memory");
}

/* Instructions that read or write rsp itself: push %rsp (the old
 * value), push (%rsp), pop %rsp (the loaded value), call *(%rsp),
 * ret $imm16.
 */
__asm__(".text\n"
	"r9_ret16:\n"
	"\tmov $0x5151, %r15\n"
	"\tret $16\n"
	"r9_tgt:\n"
	"\tmov $0x6161, %r14\n"
	"\tret\n");

static void stackops(void)
{
	__asm__ volatile("mov %%rsp, %%rbx\n"
			 "push %%rsp\n"
			 "pop %%r12\n"
			 "push $0x77\n"
			 "push (%%rsp)\n"
			 "pop %%r13\n"
			 "pushq 8(%%rsp)\n"
			 "pop %%rbp\n"
			 "pop %%rbp\n"
			 "lea -64(%%rsp), %%rax\n"
			 "push %%rax\n"
			 "pop %%rsp\n"
			 "mov %%rsp, %%r8\n"
			 "lea r9_tgt(%%rip), %%rax\n"
			 "push %%rax\n"
			 "call *(%%rsp)\n"
			 "pop %%rdx\n"
			 "push $1\n"
			 "push $2\n"
			 "call r9_ret16\n"
			 "mov %%rsp, %%r9\n"
			 "mov %%rbx, %%rsp\n"
			 EXIT_NOW ::: "memory");
}

/* SSE/AVX forms the engine models (rcv_sse.c), their 3-operand VEX
 * forms, and movbe: results carried to general-purpose registers
 * through memory.
 */
uint64_t r9_m[8] __attribute__((aligned(64)));

static void ssebat(void)
{
	__asm__ volatile("mov $0x1111111111111111, %%rax\n"
			 "mov $0x2222222222222222, %%rbx\n"
			 "mov $0x3333333333333333, %%rcx\n"
			 "movq %%rax, %%xmm0\n"
			 "movq %%rbx, %%xmm1\n"
			 "movq %%rcx, %%xmm2\n"
			 "punpcklqdq %%xmm1, %%xmm0\n"	/* 2222:1111 */
			 "punpcklqdq %%xmm2, %%xmm1\n"	/* 3333:2222 */
			 "vpunpckhqdq %%xmm0, %%xmm1, %%xmm3\n"	/* 2222:3333 */
			 "vpunpcklqdq %%xmm1, %%xmm0, %%xmm4\n"	/* 2222:1111 */
			 "vpxor %%xmm0, %%xmm1, %%xmm0\n"
			 "movups %%xmm0, r9_m(%%rip)\n"
			 "movups %%xmm3, r9_m+16(%%rip)\n"
			 "movups %%xmm4, r9_m+32(%%rip)\n"
			 "mov r9_m(%%rip), %%r8\n"
			 "mov r9_m+8(%%rip), %%r9\n"
			 "mov r9_m+16(%%rip), %%r10\n"
			 "mov r9_m+24(%%rip), %%r11\n"
			 "mov r9_m+32(%%rip), %%r12\n"
			 "mov r9_m+40(%%rip), %%r13\n"
			 "vmovhps r9_m+16(%%rip), %%xmm1, %%xmm5\n"
			 "movups %%xmm5, r9_m(%%rip)\n"
			 "mov r9_m+8(%%rip), %%r14\n"
			 "mov r9_m(%%rip), %%r15\n"
			 "vpshufd $0x4e, %%xmm1, %%xmm6\n"
			 "movhps %%xmm6, r9_m+48(%%rip)\n"
			 "mov r9_m+48(%%rip), %%rsi\n"
			 "movbe %%rax, r9_m+56(%%rip)\n"
			 "mov r9_m+56(%%rip), %%rdi\n"
			 "mov $0x0102030405060708, %%rdx\n"
			 "mov %%rdx, r9_m+56(%%rip)\n"
			 "movbe r9_m+56(%%rip), %%rbp\n"
			 "movq %%rdx, %%xmm7\n"
			 "movss %%xmm7, %%xmm1\n"
			 "movups %%xmm1, r9_m(%%rip)\n"
			 "mov r9_m(%%rip), %%rax\n"
			 "mov r9_m+8(%%rip), %%rbx\n"
			 EXIT_NOW ::: "memory");
}

/* popfsw (GDB): push $0x66 into slot A = rsp0 - 8, then push %fs and
 * pop %fs, pop A: A's address is rsp0 - 8 = r9_g[5] - 8 (stored last).
 */
static void popfsw(void)
{
	__asm__ volatile("rdfsbase %%r13\n"
			 "mov %%rsp, %%rbx\n"
			 ".globl r9_pfw0\n"
			 "r9_pfw0:\n"
			 "push $0x66\n"
			 "push %%fs\n"
			 "pop %%fs\n"
			 "wrfsbase %%r13\n"
			 ".globl r9_pfw1\n"
			 "r9_pfw1:\n"
			 "pop %%r15\n"
			 "mov %%rbx, r9_g+40(%%rip)\n"
			 EXIT_NOW ::: "memory");
}

/* Self-modifying code in the executable's own text: a page of its own
 * made writable (mprotect) and an immediate patched between two runs.
 */
__asm__(".section .text.r9smc,\"ax\"\n"
	".p2align 12\n"
	".globl r9_smcfn\n"
	"r9_smcfn:\n"
	"\tmov $0x1111, %r12d\n"
	"\tmov %r12, %rbx\n"
	"\tret\n"
	".p2align 12\n"
	".text\n");
void r9_smcfn(void);

static void smctext(void)
{
	uintptr_t pg = (uintptr_t)r9_smcfn & ~(uintptr_t)4095;

	if (mprotect((void *)pg, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
		exit(7);
	__asm__ volatile("call r9_smcfn\n"
			 "mov %%rbx, r9_g(%%rip)\n"
			 "movw $0x2222, r9_smcfn+2(%%rip)\n"
			 "call r9_smcfn\n"
			 "mov %%rbx, r9_g+8(%%rip)\n"
			 "mov r9_g(%%rip), %%r13\n"
			 EXIT_NOW ::: "memory", "rbx", "r12", "r13");
}

/* smcmem: the same patch written through /proc/self/mem (which writes
 * a read-only private page: no mprotect), and smcrw: the page made
 * writable without PROT_EXEC, patched, then executable again.
 */
static void smc_run(void)
{
	__asm__ volatile("call r9_smcfn\n"
			 "mov %%rbx, r9_g+8(%%rip)\n"
			 "mov r9_g(%%rip), %%r13\n"
			 EXIT_NOW ::: "memory", "rbx", "r12", "r13");
}

static void smcmem(void)
{
	uint16_t v = 0x2222;
	int fd = open("/proc/self/mem", O_RDWR);

	__asm__ volatile("call r9_smcfn\n"
			 "mov %%rbx, r9_g(%%rip)\n" ::: "memory", "rbx", "r12");
	if (fd < 0 || pwrite(fd, &v, 2, (off_t)(uintptr_t)r9_smcfn + 2) != 2)
		exit(7);
	smc_run();
}

static void smcrw(void)
{
	uintptr_t pg = (uintptr_t)r9_smcfn & ~(uintptr_t)4095;

	__asm__ volatile("call r9_smcfn\n"
			 "mov %%rbx, r9_g(%%rip)\n" ::: "memory", "rbx", "r12");
	if (mprotect((void *)pg, 4096, PROT_READ | PROT_WRITE))
		exit(7);
	*(volatile uint16_t *)((uintptr_t)r9_smcfn + 2) = 0x2222;
	if (mprotect((void *)pg, 4096, PROT_READ | PROT_EXEC))
		exit(7);
	smc_run();
}

/* Partial-register writes: zero idioms, mul/div by size, sign and zero
 * extension into 8/16-bit destinations; each starts from known values.
 */
#define PRE9 "movabs $0x0123456789abcdef, %%rax\n" \
	"movabs $0x1122334455667788, %%rbx\n" \
	"movabs $0x99aabbccddeeff07, %%rcx\n" \
	"movabs $0xfedcba9876543210, %%rdx\n"

static void partial(void)
{
	__asm__ volatile(PRE9 "xor %%al, %%al\n" "xor %%bh, %%bh\n"
			 "sub %%cx, %%cx\n" "sub %%dl, %%dl\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n" "mov %%rdx, %%r11\n"
			 PRE9 "stc\n" "sbb %%al, %%al\n" "clc\n"
			 "sbb %%bx, %%bx\n" "stc\n" "sbb %%ecx, %%ecx\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n"
			 PRE9 "mulb %%bl\n" "mov %%rax, %%r8\n"
			 PRE9 "mulw %%bx\n" "mov %%rax, %%r8\n"
			 "mov %%rdx, %%r9\n"
			 PRE9 "imulb %%cl\n" "mov %%rax, %%r8\n"
			 PRE9 "imulw %%cx\n" "mov %%rax, %%r8\n"
			 "mov %%rdx, %%r9\n"
			 PRE9 "mov $0x0107, %%ax\n" "divb %%cl\n"
			 "mov %%rax, %%r8\n"
			 PRE9 "mov $0x0001, %%dx\n" "divw %%bx\n"
			 "mov %%rax, %%r8\n" "mov %%rdx, %%r9\n"
			 PRE9 "mov $0xff80, %%ax\n" "idivb %%cl\n"
			 "mov %%rax, %%r8\n"
			 PRE9 "movsbw %%cl, %%ax\n" "movzbw %%cl, %%bx\n"
			 "movsbw %%dh, %%dx\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rdx, %%r10\n"
			 PRE9 "cbw\n" "mov %%rax, %%r8\n" "cwd\n"
			 "mov %%rdx, %%r9\n"
			 PRE9 "cmovew %%cx, %%ax\n" "cmp %%eax, %%eax\n"
			 "cmovew %%cx, %%bx\n" "cmovnew %%dx, %%dx\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rdx, %%r10\n"
			 PRE9 "xadd %%al, %%bl\n" "xadd %%cx, %%dx\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n" "mov %%rdx, %%r11\n"
			 PRE9 "cmpxchg %%bl, %%cl\n" "cmpxchg %%dx, %%ax\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n" "mov %%rdx, %%r11\n"
			 PRE9 "rol $8, %%ax\n" "neg %%bh\n" "not %%cx\n"
			 "inc %%dl\n" "adc %%al, %%ah\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n" "mov %%rdx, %%r11\n"
			 PRE9 "shld $4, %%bx, %%ax\n" "shrd %%cl, %%dx, %%bx\n"
			 "sar $1, %%ch\n" "rcr $1, %%dl\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n" "mov %%rdx, %%r11\n"
			 PRE9 "imul $3, %%bx, %%ax\n" "imul %%cx, %%dx\n"
			 "popcnt %%bx, %%cx\n" "bsr %%ax, %%bx\n"
			 "mov %%rax, %%r8\n" "mov %%rbx, %%r9\n"
			 "mov %%rcx, %%r10\n" "mov %%rdx, %%r11\n"
			 EXIT_NOW ::: "memory");
}

/* popf of words with bits user mode cannot change (IF, IOPL, VM, RF,
 * VIF, VIP) or reserved, then pushf: what popf really loads.
 */
static void popfbits(void)
{
	__asm__ volatile("push $0\n" "popfq\n" "pushfq\n" "pop %%r8\n"
			 "push $0x3000\n" "popfq\n" "pushfq\n" "pop %%r9\n"
			 "pushq $0x1a4000\n" "popfq\n" "pushfq\n" "pop %%r10\n"
			 "pushq $0x2000d5\n" "popfq\n" "pushfq\n" "pop %%r11\n"
			 "push $0x202\n" "popfq\n"
			 "mov %%r8, %%r12\n" "mov %%r9, %%r13\n"
			 "mov %%r10, %%r14\n" "mov %%r11, %%r15\n"
			 EXIT_NOW ::: "memory", "cc");
}

/* An RTM transaction (it aborts under single steps, commits untraced):
 * registers and a store inside it, then a fallback.
 */
static void rtm(void)
{
	__asm__ volatile("mov $0x1111, %%r12\n"
			 "mov $0x2222, %%r13\n"
			 "movq $0x3333, r9_g(%%rip)\n"
			 "mov $-1, %%rax\n"
			 "xbegin 1f\n"
			 "mov $0x4444, %%r12\n"
			 "inc %%r13\n"
			 "movq $0x5555, r9_g(%%rip)\n"
			 "xend\n"
			 "1:\n"
			 "mov r9_g(%%rip), %%r14\n"
			 "mov %%rax, %%r15\n"
			 "mov %%r12, %%rbx\n"
			 "mov %%r13, %%rbp\n"
			 EXIT_NOW ::: "memory");
}

/* rw (GDB): each row k of review9_rw.tbl (kind|setup|instruction|after|
 * byte) is an instruction at r9_w<k> that reads (r) or writes (w) byte
 * `byte` of its own 4096-byte slot of r9_rb: string instructions with
 * DF set, several iterations, overlapping copies.
 */
unsigned char r9_rb[4096 * 32] __attribute__((aligned(4096)));

__asm__(".text\n"
	".globl r9_rw\n"
	"r9_rw:\n"
	"\tpush %rbp\n"
#include "review9_rw.inc"
	"\tpop %rbp\n"
	"\tret\n");
void r9_rw(void);

/* settid (GDB): clone(CLONE_VM | CLONE_PARENT_SETTID |
 * CLONE_CHILD_SETTID | SIGCHLD): the kernel writes the child's tid into
 * r9_ptidw in the parent's clone(2) and into r9_tidw in the child, before
 * its first instruction; the parent waits and loads both.
 */
int r9_tidw, r9_ptidw;
static unsigned char r9_cstk2[65536] __attribute__((aligned(64)));

static int settid_child(void *arg)
{
	(void)arg;
	syscall(SYS_exit, 0);
	return 0;
}

static void settid(void)
{
	int pid = clone(settid_child, r9_cstk2 + sizeof(r9_cstk2),
			CLONE_VM | CLONE_PARENT_SETTID | CLONE_CHILD_SETTID |
			SIGCHLD, NULL, &r9_ptidw, NULL, &r9_tidw);

	if (pid < 0)
		exit(7);
	waitpid(pid, NULL, 0);
	__asm__ volatile("movslq r9_tidw(%%rip), %%r12\n"
			 "movslq r9_ptidw(%%rip), %%r13\n"
			 EXIT_NOW ::: "memory");
}

/* c32 (values): a far jump to 32-bit code (cs 0x23) in a file-backed
 * mapping of this executable at 0x30000000 (MAP_FIXED_NOREPLACE), which
 * runs `inc %eax; dec %ecx` (40, 49: REX prefixes in 64-bit code) and
 * two 4-byte pushes (8 bytes each in 64-bit code), then
 * far-jumps to 64-bit code (cs 0x33) there that jumps back.  The
 * software recorder's encoder wrote MODE.Exec 64-bit only; it now leaves
 * such code out (a gap).  c32hw: the same, recorded with
 * PTREC_EMU_COMPAT_TRACE=1 (traced under MODE.Exec 32-bit, as a CPU
 * traces it), which the replay must take as barriers.
 */
__asm__(".section .text.r9c32,\"ax\"\n"
	".p2align 12\n"
	".globl r9_c32\n"
	"r9_c32:\n"
	".code32\n"
	"\tmov $5, %eax\n"
	"\tinc %eax\n"
	"\tmov $7, %ecx\n"
	"\tdec %ecx\n"
	"\tmov %eax, %edx\n"
	"\tmov $0x20000f00, %esp\n"
	"\tpush %ecx\n"
	"\tpush %edx\n"
	"\tmov %esp, %ebx\n"
	"\tmov $0x20000f00, %esp\n"
	"\tljmp *0x20000fe0\n"
	".code64\n"
	".globl r9_c64\n"
	"r9_c64:\n"
	"\tjmp *0x20000ff0\n"
	".p2align 12\n"
	".text\n");
void r9_c32(void);
void r9_c64(void);

struct __attribute__((packed)) far32 { uint32_t off; uint16_t sel; };
struct far32 r9_f32;

static void c32(void)
{
	unsigned long st = 0, off = 0, lo = 0x30000000;
	char line[512], path[256] = "";
	unsigned char *rw;
	FILE *f = fopen("/proc/self/maps", "r");
	int fd;

	if (!f)
		exit(7);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, o;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &a, &b, &o,
			   path) == 4 &&
		    a <= (unsigned long)r9_c32 && (unsigned long)r9_c32 < b) {
			st = a;
			off = o;
			break;
		}
	}
	fclose(f);
	fd = open(path, O_RDONLY);
	rw = mmap((void *)0x20000000, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!st || fd < 0 || rw != (void *)0x20000000 ||
	    mmap((void *)lo, 8192, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd,
		 (off_t)((unsigned long)r9_c32 - st + off)) != (void *)lo)
		exit(7);
	r9_f32.off = (uint32_t)lo;
	r9_f32.sel = 0x23;
	/* back to 64-bit code at lo + (r9_c64 - r9_c32) */
	*(uint32_t *)(rw + 0xfe0) =
		(uint32_t)(lo + ((unsigned long)r9_c64 - (unsigned long)r9_c32));
	*(uint16_t *)(rw + 0xfe4) = 0x33;
	__asm__ volatile("lea 1f(%%rip), %%rax\n"
			 "mov %%rax, 0x20000ff0\n"
			 "mov %%rsp, %%rbp\n"
			 "mov $0x20000f00, %%esp\n"
			 "mov %%ss, %%eax\n"
			 "mov %%eax, %%ds\n"		/* data in 32-bit code */
			 "mov $0x1000, %%eax\n"
			 "mov $0x2000, %%ecx\n"
			 "mov $0x3000, %%edx\n"
			 "ljmp *r9_f32(%%rip)\n"
			 "1:\n"
			 "mov %%rbx, %%r15\n"
			 "mov %%rbp, %%rsp\n"
			 "mov %%rax, %%r12\n"
			 "mov %%rcx, %%r13\n"
			 "mov %%rdx, %%r14\n"
			 EXIT_NOW ::: "memory");
}

/* Read-modify-write and exchange forms on memory, every size, then
 * loads of the words into registers.
 */
uint64_t r9_mm[4] __attribute__((aligned(64)));

#define MPRE "movabs $0x0123456789abcdef, %%r8\n" \
	"mov %%r8, r9_mm(%%rip)\n" \
	"movabs $0xfedcba9876543210, %%r9\n" \
	"mov %%r9, r9_mm+8(%%rip)\n" \
	"movabs $0x8000000000000001, %%rax\n" \
	"movabs $0x1122334455667788, %%rbx\n"
#define MPOST "mov r9_mm(%%rip), %%r10\n" \
	"mov r9_mm+8(%%rip), %%r11\n"

static void memrmw(void)
{
	__asm__ volatile(MPRE "xchg %%ax, r9_mm(%%rip)\n"
			 "xchg %%bl, r9_mm+9(%%rip)\n" MPOST
			 MPRE "xchg %%eax, r9_mm+2(%%rip)\n" MPOST
			 MPRE "addw $0x7fff, r9_mm+1(%%rip)\n"
			 "adcb %%bl, r9_mm+8(%%rip)\n"
			 "sbbl $3, r9_mm+4(%%rip)\n" MPOST
			 MPRE "stc\n" "adcq %%rax, r9_mm(%%rip)\n"
			 "sbbw %%bx, r9_mm+14(%%rip)\n" MPOST
			 MPRE "andb $0x0f, r9_mm+3(%%rip)\n"
			 "orw %%bx, r9_mm+5(%%rip)\n"
			 "xorl $-1, r9_mm+9(%%rip)\n" MPOST
			 MPRE "incw r9_mm+1(%%rip)\n" "decb r9_mm+15(%%rip)\n"
			 "notl r9_mm+2(%%rip)\n" "negq r9_mm+8(%%rip)\n" MPOST
			 MPRE "shlw $3, r9_mm+1(%%rip)\n"
			 "rorq $8, r9_mm+8(%%rip)\n" MPOST
			 MPRE "cmp %%eax, %%eax\n" "setne r9_mm+1(%%rip)\n"
			 "sete r9_mm+9(%%rip)\n" MPOST
			 MPRE "btsq $63, r9_mm(%%rip)\n" "btcw $3, r9_mm+8(%%rip)\n"
			 "btrl $1, r9_mm+12(%%rip)\n" MPOST
			 MPRE "lock xaddl %%eax, r9_mm+4(%%rip)\n"
			 "xaddw %%bx, r9_mm+8(%%rip)\n" MPOST
			 MPRE "mov r9_mm(%%rip), %%rax\n"
			 "lock cmpxchgq %%rbx, r9_mm(%%rip)\n"
			 "lock cmpxchgl %%ebx, r9_mm+8(%%rip)\n"
			 "lock cmpxchgw %%bx, r9_mm+10(%%rip)\n"
			 "lock cmpxchgb %%bl, r9_mm+12(%%rip)\n" MPOST
			 MPRE "movbe %%bx, r9_mm+3(%%rip)\n"
			 "movbel %%ebx, r9_mm+9(%%rip)\n" MPOST
			 EXIT_NOW ::: "memory", "rax", "rbx", "r8", "r9", "r10",
			 "r11", "cc");
}

/* lea ignores segments (fs, gs); addr32 rip-relative lea truncates. */
static void leaseg(void)
{
	__asm__ volatile("mov $0x1234, %%ebx\n"
			 /* lea %%fs:0x10, %%rax */
			 ".byte 0x64, 0x48, 0x8d, 0x04, 0x25, 0x10, 0, 0, 0\n"
			 /* lea %%gs:8(%%rbx), %%rcx */
			 ".byte 0x65, 0x48, 0x8d, 0x4b, 0x08\n"
			 /* lea %%fs:(%%rbx,%%rbx,2), %%rdx */
			 ".byte 0x64, 0x48, 0x8d, 0x14, 0x5b\n"
			 /* addr32 lea 0x10(%%eip), %%rsi */
			 ".byte 0x67, 0x48, 0x8d, 0x35, 0x10, 0, 0, 0\n"
			 "mov %%rax, %%r12\n"
			 "mov %%rcx, %%r13\n"
			 "mov %%rdx, %%r14\n"
			 "mov %%rsi, %%r15\n"
			 EXIT_NOW ::: "memory");
}

/* movss: `mov %eax, %ss` inhibits the single-step trap of the next
 * instruction (SDM MOV: "blocks debug exceptions"), here a call whose
 * push of the return address lands in r9_stk.
 */
static void movss(void)
{
	__asm__ volatile("mov %%rsp, %%rbx\n"
			 "lea r9_stk+32768(%%rip), %%rsp\n"
			 "mov %%ss, %%eax\n"
			 "mov %%eax, %%ss\n"
			 "call r9_tgt\n"
			 "mov -8(%%rsp), %%r12\n"
			 "mov %%rbx, %%rsp\n"
			 EXIT_NOW ::: "memory");
}

/* bindmem: /proc/self/mem bind-mounted (a private mount namespace, as
 * root) over a file of /tmp and written through that path: write(2) at
 * the offset of r9_bm stores 0x2222 over the 0x1111 the program stored.
 */
uint64_t r9_bm;

static void bindmem(void)
{
	char path[] = "/tmp/r9bindmemXXXXXX";
	static const uint64_t two = 0x2222;
	int fd = mkstemp(path);

	if (fd < 0)
		exit(7);
	close(fd);
	if (unshare(CLONE_NEWNS) ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("/proc/self/mem", path, NULL, MS_BIND, NULL)) {
		unlink(path);
		exit(7);
	}
	fd = open(path, O_RDWR);
	if (fd < 0 || lseek(fd, (off_t)(uintptr_t)&r9_bm, SEEK_SET) < 0)
		exit(7);
	__asm__ volatile("movq $0x1111, r9_bm(%%rip)\n"
			 "mov %0, %%edi\n"
			 "mov %1, %%rsi\n"
			 "mov $8, %%edx\n"
			 "mov $1, %%eax\n"		/* write */
			 "syscall\n"
			 "mov r9_bm(%%rip), %%r12\n"
			 "mov %%r12, %%rbx\n"
			 EXIT_NOW :: "r"(fd), "r"(&two) : "memory");
}

/* vsystime: time(&r9_vt) through the vsyscall page (emulated by the
 * kernel: it writes r9_vt and returns): r9_vt held 0x1111 before.
 */
uint64_t r9_vt;

static void vsystime(void)
{
	__asm__ volatile("movq $0x1111, r9_vt(%%rip)\n"
			 "mov $0x2222, %%r13\n"
			 "lea r9_vt(%%rip), %%rdi\n"
			 "mov $0xffffffffff600400, %%rax\n"
			 "call *%%rax\n"
			 "mov r9_vt(%%rip), %%r12\n"
			 "mov %%r13, %%r14\n"
			 EXIT_NOW ::: "memory");
}

/* vsysgtod (GDB, after the fix): gettimeofday(&r9_vtv, &r9_vtz) and
 * getcpu(&r9_vcpu, &r9_vnode, NULL) through the vsyscall page (0x...600000
 * and 0x...600800): the kernel writes 16 and 8 bytes, 4 and 4.
 */
uint64_t r9_vtv[2], r9_vtz;
uint32_t r9_vcpu, r9_vnode;

static void vsysgtod(void)
{
	__asm__ volatile("lea r9_vtv(%%rip), %%rdi\n"
			 "lea r9_vtz(%%rip), %%rsi\n"
			 "mov $0xffffffffff600000, %%rax\n"
			 "call *%%rax\n"
			 "lea r9_vcpu(%%rip), %%rdi\n"
			 "lea r9_vnode(%%rip), %%rsi\n"
			 "xor %%edx, %%edx\n"
			 "mov $0xffffffffff600800, %%rax\n"
			 "call *%%rax\n"
			 "mov r9_vtz(%%rip), %%r12\n"
			 EXIT_NOW ::: "memory");
}

/* sysw (GDB): each row k of review9_sys.tbl (number|setup|byte) is a
 * system call at r9_s<k> outside the kernel-write table that writes
 * byte `byte` of its 256-byte slot of r9_sb (0xff before), the buffer's
 * address in a register (as review 7's sysw).
 */
unsigned char r9_sb[256 * 16] __attribute__((aligned(64)));
int r9_pfd[2], r9_mfd;
const char r9_exe[] = "/proc/self/exe";

__asm__(".text\n"
	".globl r9_sysw\n"
	"r9_sysw:\n"
	"\tpush %rbx\n"
#include "review9_sys.inc"
	"\tpop %rbx\n"
	"\tret\n");
void r9_sysw(void);
void r9_sysv(void);

static void sysw(int v)
{
	sigset_t ss;

	if (pipe(r9_pfd))
		exit(7);
	r9_mfd = memfd_create("r9", 0);
	if (r9_mfd < 0 || write(r9_mfd, "abcdefgh", 8) != 8)
		exit(7);
	/* two children for wait4 and waitid (WEXITED 4) */
	for (int k = 0; k < 2; k++)
		if (fork() == 0)
			_exit(3);
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR2);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	raise(SIGUSR2);
	memset(r9_sb, 0xff, sizeof(r9_sb));
	if (v)
		r9_sysv();
	else
		r9_sysw();
	__asm__ volatile(EXIT_NOW ::: "memory");
}

/* sysv (values): review9_sys.tbl's calls again, each with a store to its
 * byte before and a load of it after.
 */
__asm__(".text\n"
	".globl r9_sysv\n"
	"r9_sysv:\n"
	"\tpush %rbx\n\tpush %r12\n\tpush %r13\n"
#include "review9_sysv.inc"
	"\tpop %r13\n\tpop %r12\n\tpop %rbx\n"
	"\tret\n");

/* retpop (GDB): a callee that pops its stack arguments (`ret $16`, with
 * right CFI) after a system call whose number the engine cannot know
 * (a barrier: rsp unknown after it); the server's unwinder assumes a
 * call leaves rsp as it found it.  rsp after the return goes to
 * r9_g[6], the caller's rsp before the pushes to r9_g[7].
 */
__asm__(".text\n"
	".globl r9_cpop\n"
	".type r9_cpop, @function\n"
	"r9_cpop:\n"
	".cfi_startproc\n"
	"\tnop\n"
	".globl r9_cpop_in\n"
	"r9_cpop_in:\n"
	"\trdtsc\n"
	"\tmov $39, %ecx\n"
	"\ttest %eax, %eax\n"
	"\tcmovne %ecx, %eax\n"
	"\tcmove %ecx, %eax\n"
	"\tsyscall\n"			/* getpid */
	"\tret $16\n"
	".cfi_endproc\n"
	".size r9_cpop, .-r9_cpop\n");

static void retpop(void)
{
	__asm__ volatile("mov %%rsp, %%rbx\n"
			 "mov %%rsp, r9_g+56(%%rip)\n"
			 "push $1\n"
			 "push $2\n"
			 "call r9_cpop\n"
			 ".globl r9_cpop_ret\n"
			 "r9_cpop_ret:\n"
			 "nop\n"
			 "mov %%rsp, r9_g+48(%%rip)\n"
			 "mov %%rbx, %%rsp\n"
			 EXIT_NOW ::: "memory", "rax", "rcx", "rdx", "r11");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "popfs"))
		popfs();
	if (!strcmp(m, "smc"))
		smc();
	if (!strcmp(m, "vforkw"))
		vforkw();
	if (!strcmp(m, "lssrsp"))
		lssrsp();
	if (!strcmp(m, "swapctx"))
		swapctx();
	if (!strcmp(m, "ljmp"))
		ljmp();
	if (!strcmp(m, "verzf"))
		verzf();
	if (!strcmp(m, "zext"))
		zext();
	if (!strcmp(m, "hibyte"))
		hibyte();
	if (!strcmp(m, "stackops"))
		stackops();
	if (!strcmp(m, "ssebat"))
		ssebat();
	if (!strcmp(m, "popfsw"))
		popfsw();
	if (!strcmp(m, "smctext"))
		smctext();
	if (!strcmp(m, "smcmem"))
		smcmem();
	if (!strcmp(m, "smcrw"))
		smcrw();
	if (!strcmp(m, "partial"))
		partial();
	if (!strcmp(m, "popfbits"))
		popfbits();
	if (!strcmp(m, "rtm"))
		rtm();
	if (!strcmp(m, "settid"))
		settid();
	if (!strcmp(m, "c32") || !strcmp(m, "c32hw"))
		c32();
	if (!strcmp(m, "memrmw"))
		memrmw();
	if (!strcmp(m, "leaseg"))
		leaseg();
	if (!strcmp(m, "movss"))
		movss();
	if (!strcmp(m, "bindmem"))
		bindmem();
	if (!strcmp(m, "vsystime"))
		vsystime();
	if (!strcmp(m, "vsysgtod"))
		vsysgtod();
	if (!strcmp(m, "sysw"))
		sysw(0);
	if (!strcmp(m, "sysv"))
		sysw(1);
	if (!strcmp(m, "retpop"))
		retpop();
	if (!strcmp(m, "rw")) {
		r9_rw();
		return 0;
	}
	return 2;
}
