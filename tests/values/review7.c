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
 *   msweep   every store of a list (msweep below) into 128 bytes set
 *            by movq, then the 16 words loaded into registers.
 *
 *   bsweep K the sweep's row K backward (BPRE below; the script runs
 *            every row): the registers before the row unknown but by
 *            what the engine infers back from the end (ud2 after it).
 *   xsweep   SSE/AVX moves and shuffles (xsweep below).
 *   bxsweep K  xsweep's row K backward (BXPRE below).
 *   sysw     (GDB) system calls writing a buffer of known address, each
 *            watched (sysw below).
 *   sysr     (GDB) system calls reading a buffer of known address
 *            (write, pwrite64, writev, futex, nanosleep, rt_sigaction,
 *            openat, stat...), each rwatched.
 *   rw       (GDB) each row of review7_rw.tbl: an instruction that reads
 *            or writes a byte of its own slot; from right after it,
 *            reverse-continue with rwatch (r) or watch (w) on that byte
 *            must stop at it, and from right before it, continue too.
 *   a32abs   a store with a 32-bit address size and an absolute
 *            displacement of 2^31 or more (`67 89 04 25 00 00 00 f0`:
 *            mov %eax, 0xf0000000): capstone 4 gives the displacement
 *            sign-extended (0xfffffffff0000000), rcv_rw.c's rcv_addr()
 *            takes it as the address; the CPU zero-extends it.  The word
 *            at 0xf0000000 (0x11 stored through %rbx) then loaded into r12
 *            through %rbx (0x22) and overwritten.
 *   a32lea   `addr32 lea 0xf0000000, %rax` (67 48 8d 04 25 ...): rax is
 *            0xf0000000; rcv_sem.c takes rcv_addr()'s 64-bit sum.
 *   movsxd32 movsxd without REX.W (63 c1: 32-bit operands, a plain
 *            move that zero-extends; 66 63 c1: 16-bit, bits 16..63
 *            kept): capstone 4 decodes both as `movsxd rax, ecx`, which
 *            rcv_sem.c sign-extends to 64 bits.
 *   pushfs   push %fs (and %gs), pop %rax: capstone 4 lists no write of
 *            rsp for push/pop of a segment register.
 *   lretq    far returns (lretq, lretq $16) to the same cs: capstone 4
 *            lists no register written by retf.
 *   lcall    a far call through memory (rex64 lcall *m), returning by
 *            lretq.
 *   pushf64  pushfq; pop; push; popfq, and pushf16 the same with an
 *            operand-size prefix (2 bytes): under the software recorder
 *            pushf sees TF (0x306 where the program untraced sees
 *            0x206: record/emu_step.c clears the single step's TF in r11
 *            after syscall only, not in what pushf stores, as GDB's
 *            displaced stepping does), popf then sets TF in the program,
 *            and the values engine counts 3 conflicts at the next
 *            syscall (r11 against the flags before it).
 *   vforkw   (GDB) a vfork child stores 2 into r7_g[2] and exits; the
 *            parent loads it and stores 3: reverse-continue with a
 *            watchpoint on r7_g[2] in the parent must stop at the
 *            child's store (or at the vfork).
 *   pstack   a pthread whose stack (pthread_attr_setstack) is a local
 *            array of main's: the thread's locals (0x77) over main's
 *            memset (0x11), then main loads one into r12 after the join.
 *   shmalias one SysV segment attached twice (A, B; alias_run): r13 =
 *            *B after *A = 0x11 (kept to the end), *A = 0x22, r12 = *B;
 *            both unmapped before the end.  mfdalias: a memfd mapped
 *            MAP_SHARED twice; remapalias: mremap(A, 0, 4096, MAYMOVE)
 *            of a shared anonymous mapping (a second mapping of it).
 *            mfdaliaskeep, shmaliaskeep: both mappings kept to the end.
 *   scatterend a vpscatterdd whose element 8 faults (PROT_NONE, no
 *            handler): elements 0..7 are stored and the history ends
 *            at it; r12 loaded element 0's first byte (0x5b) before.
 *   calleek  (one thread) a callee pushes rbx (0x11), launders its
 *            slot's address through k1 and stores 0x77 through it, pops
 *            rbx: rbx after the call 0x77.  calleefx: the address
 *            through xmm0, fxsave64 into a global and a load back.
 *   vsys     time(&g) through the legacy vsyscall page (the kernel
 *            emulates it and returns to the call's next instruction).
 *   trapself a SIGTRAP handler counts the program's own int3 and int1
 *            (icebp): 1 and 1 untraced.
 *   sigcont  a forked child raises SIGSTOP; the parent sees it stopped
 *            and sends SIGCONT, whose handler the child counts (1).
 *   altsig   (GDB) a SA_ONSTACK handler notes &si->si_signo (the frame
 *            the kernel wrote on the alternate stack); main rewrites it:
 *            reverse-continue with a watchpoint there must stop at the
 *            delivery.
 *   costack  a word in an mmap region, loaded (0x11, r13) and stored by
 *            a raw-clone thread (0x77), loaded again (r12); then main
 *            moves rsp to the region's top and exits there: the
 *            region is the mapping holding the final rsp ("the thread's
 *            stack mapping"), below the first rsp.
 *   lprocsys main waits in futex(&x, FUTEX_WAIT, 0x11) (futex: listed by
 *            rcv_escsys.c as keeping nothing); a raw-clone thread reads
 *            &x from /proc/self/task/MAIN/syscall, stores 0x77 into x
 *            and wakes it.
 *   xlatfs   (GDB) `xlat %fs:(%rbx)` reads fs_base + rbx + al (a TLS
 *            table's byte 40): rwatch on it must stop at the xlat.
 *   xrel     `xrelease mov %eax, (%rbx)` (f3 89 03) and `f2 mov` (a
 *            prefix the CPU ignores there), then loaded into r12/r13.
 *   repfault `rep movsb` of 8 KiB into two pages, the second PROT_NONE:
 *            the SIGSEGV handler mprotects it writable and the copy
 *            resumes; bytes 10 and 5000 then loaded into r12, r13.
 *   repjmp   the same, the handler siglongjmps out: the faulting rep
 *            movsb wrote bytes 0..4095 and never completes; byte 10
 *            then loaded into r12.
 *   scatter  vpscatterdd of zmm2 (bytes 0x80..0xbf) over 64 bytes of
 *            r7_sc set to 0x5a... by movq (indices 0..15, k1 all ones),
 *            then word 1 loaded into r12 (and overwritten, so that the
 *            snapshot does not give it): capstone 4 decodes it as a
 *            dword store at [base] (the VSIB index dropped).
 *
 * Findings among them (default mode): lfxsave, lfxsavexmm, lxsave, lmaskmovq,
 * lmaskmovdqu, lkmask, lkmaskst, lmxcsr (rcv_escape.c: no escape through an
 * AVX-512 mask register, MXCSR, an fxsave/xsave image or
 * a mask move's implicit store outside the stack), llseek, lrlimit,
 * lpwoff, lofdlk, lwinsz (rcv_escsys.c: values the kernel keeps).
 *
 * The modes live in three files: review7.c (this one: the sweeps, the
 * system-call tables and main), review7_launder.c (the laundering modes
 * l*, R7L, and costack) and review7_cases.c (every other single case);
 * review7.h is what they share.
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
#include <ucontext.h>

#include "review7.h"

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

/*
 * The memory sweep: r7_mb's first 128 bytes set by movq (known), one
 * instruction that stores into them, then the 16 words loaded into
 * registers (a byte the engine takes as not written shows as a wrong
 * register).  ymm2/zmm2 hold r7_y (bytes 0x80..0xbf), ymm3 all ones,
 * zmm4 dword indices 0..15, zmm5 qword indices 0..7, k1 all ones.
 */
unsigned char r7_mb[4096] __attribute__((aligned(64)));
volatile long r7_g[4];
unsigned char r7_sc[64] __attribute__((aligned(64)));
unsigned char r7_y[64] __attribute__((aligned(64)));
unsigned int r7_idx[16] __attribute__((aligned(64))) = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
unsigned long r7_qidx[8] __attribute__((aligned(64))) = {
	0, 1, 2, 3, 4, 5, 6, 7 };
__asm__(".macro PREM\n"
	"\tlea r7_mb(%rip), %rbp\n"
	"\tmovq $0x5a000000, 0(%rbp)\n"
	"\tmovq $0x5a000001, 8(%rbp)\n"
	"\tmovq $0x5a000002, 16(%rbp)\n"
	"\tmovq $0x5a000003, 24(%rbp)\n"
	"\tmovq $0x5a000004, 32(%rbp)\n"
	"\tmovq $0x5a000005, 40(%rbp)\n"
	"\tmovq $0x5a000006, 48(%rbp)\n"
	"\tmovq $0x5a000007, 56(%rbp)\n"
	"\tmovq $0x5a000008, 64(%rbp)\n"
	"\tmovq $0x5a000009, 72(%rbp)\n"
	"\tmovq $0x5a00000a, 80(%rbp)\n"
	"\tmovq $0x5a00000b, 88(%rbp)\n"
	"\tmovq $0x5a00000c, 96(%rbp)\n"
	"\tmovq $0x5a00000d, 104(%rbp)\n"
	"\tmovq $0x5a00000e, 112(%rbp)\n"
	"\tmovq $0x5a00000f, 120(%rbp)\n"
	"\tvmovdqu64 r7_y(%rip), %zmm2\n"
	"\tvmovdqu64 r7_y(%rip), %zmm18\n"
	"\tvpcmpeqd %ymm3, %ymm3, %ymm3\n"
	"\tvmovdqu64 r7_idx(%rip), %zmm4\n"
	"\tvmovdqu64 r7_qidx(%rip), %zmm5\n"
	"\tkxnorq %k1, %k1, %k1\n"
	"\tmovq r7_y(%rip), %mm0\n"
	"\tmovabs $0x0123456789abcdef, %rax\n"
	"\tmovabs $0x1122334455667788, %rbx\n"
	"\tmov $5, %ecx\n"
	"\tmov $3, %edx\n"
	"\tmovabs $0x99aabbccddeeff00, %rcx\n"
	"\tstc\n"
	".endm\n"
	".macro POSTM\n"
	"\tmov 0(%rbp), %rax\n"
	"\tmov 8(%rbp), %rbx\n"
	"\tmov 16(%rbp), %rcx\n"
	"\tmov 24(%rbp), %rdx\n"
	"\tmov 32(%rbp), %rsi\n"
	"\tmov 40(%rbp), %rdi\n"
	"\tmov 48(%rbp), %r8\n"
	"\tmov 56(%rbp), %r9\n"
	"\tmov 64(%rbp), %r10\n"
	"\tmov 72(%rbp), %r11\n"
	"\tmov 80(%rbp), %r12\n"
	"\tmov 88(%rbp), %r13\n"
	"\tmov 96(%rbp), %r14\n"
	"\tmov 104(%rbp), %r15\n"
	"\tmov 112(%rbp), %rax\n"
	"\tmov 120(%rbp), %rbx\n"
	".endm\n"
	".macro TM setup, insn, post\n"
	"\tPREM\n\t\\setup\n\t\\insn\n\t\\post\n\tPOSTM\n"
	".endm\n"
	".text\n"
	".globl r7_msweep\n"
	"r7_msweep:\n"
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
	"\tpush %r14\n\tpush %r15\n"
#include "review7_msweep.inc"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"
	"\tpop %rbp\n\tpop %rbx\n\tret\n");
void r7_msweep(void);

/*
 * rw: one 4096-byte slot of r7_rb per row of review7_rw.tbl (kind r or
 * w, setup, instruction, after, a byte offset in the slot): the
 * instruction, labelled r7_w<row>, reads (r) or writes (w) that byte of
 * its slot, and nothing else in the program touches the slot.  zmm1 and
 * ymm17 hold r7_y, ymm3 all ones, zmm4/zmm5 indices, k1 all ones.
 */
unsigned char r7_rb[4096 * 100] __attribute__((aligned(4096)));
unsigned char r7_src[64] __attribute__((aligned(64)));
unsigned char r7_dst[64] __attribute__((aligned(64)));
__asm__(".text\n"
	".globl r7_rw\n"
	"r7_rw:\n"
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
	"\tpush %r14\n\tpush %r15\n"
	"\tvmovdqu64 r7_y(%rip), %zmm1\n"
	"\tvmovdqu64 r7_y(%rip), %ymm17\n"
	"\tvpcmpeqd %ymm3, %ymm3, %ymm3\n"
	"\tvmovdqu64 r7_idx(%rip), %zmm4\n"
	"\tvmovdqu64 r7_qidx(%rip), %zmm5\n"
	"\tkxnorq %k1, %k1, %k1\n"
#include "review7_rw.inc"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"
	"\tpop %rbp\n\tpop %rbx\n\tret\n");
void r7_rw(void);

/*
 * xsweep: SSE/AVX moves and shuffles (rcv_sse.c's and others): XPRE sets
 * xmm0/1/2 through movq and punpcklqdq from known registers (each half
 * distinct), r7_t's 64 bytes by movq, k1 all ones; after the row, XPOST
 * takes xmm0's halves into rax and rbx (movq; movhps through r7_t+64)
 * and r7_t's first 32 bytes into rcx, rdx, rsi, rdi: a wrong lane or a
 * store's width shows as a wrong register.
 */
unsigned char r7_t[128] __attribute__((aligned(64)));
__asm__(".macro XPRE\n"
	"\tmovabs $0x1010101010101010, %rax\n\tmovq %rax, %xmm0\n"
	"\tmovabs $0x2020202020202020, %rax\n\tmovq %rax, %xmm3\n"
	"\tpunpcklqdq %xmm3, %xmm0\n"
	"\tmovabs $0x3131313131313131, %rax\n\tmovq %rax, %xmm1\n"
	"\tmovabs $0x4141414141414141, %rax\n\tmovq %rax, %xmm3\n"
	"\tpunpcklqdq %xmm3, %xmm1\n"
	"\tmovabs $0x5252525252525252, %rax\n\tmovq %rax, %xmm2\n"
	"\tmovabs $0x6262626262626262, %rax\n\tmovq %rax, %xmm3\n"
	"\tpunpcklqdq %xmm3, %xmm2\n"
	"\tmovq $0x71, r7_t(%rip)\n\tmovq $0x72, r7_t+8(%rip)\n"
	"\tmovq $0x73, r7_t+16(%rip)\n\tmovq $0x74, r7_t+24(%rip)\n"
	"\tmovabs $0x0123456789abcdef, %r9\n"
	"\tkxnorq %k1, %k1, %k1\n"
	".endm\n"
	".macro XPOST\n"
	"\tmovq %xmm0, %rax\n"
	"\tmovhps %xmm0, r7_t+64(%rip)\n\tmov r7_t+64(%rip), %rbx\n"
	"\tmov r7_t(%rip), %rcx\n\tmov r7_t+8(%rip), %rdx\n"
	"\tmov r7_t+16(%rip), %rsi\n\tmov r7_t+24(%rip), %rdi\n"
	".endm\n"
	".text\n"
	".globl r7_xsweep\n"
	"r7_xsweep:\n"
	"\tpush %rbx\n"
#include "review7_xsweep.inc"
	"\tpop %rbx\n\tret\n");
void r7_xsweep(void);

/*
 * bxsweep K: xsweep's row K backward.  BXPRE loads xmm0/1/2 from r7_bu
 * (a pipe's: unknown to the engine), copies their halves into r8..r13
 * (movq; movhps through r7_t), runs the row, clears r8..r13 and ends
 * with XPOST and ud2: the end (registers and the FXSAVE image) knows
 * the row's outputs, and r8..r13 between the copies and their clearing
 * are known only backward through the row.
 */
extern void (*const r7_xtab[])(void);
extern const long r7_xn;
__asm__(".macro BXPRE\n"
	"\tmovdqu r7_bu(%rip), %xmm0\n"
	"\tmovdqu r7_bu+16(%rip), %xmm1\n"
	"\tmovdqu r7_bu+32(%rip), %xmm2\n"
	"\tmovq $0x71, r7_t(%rip)\n\tmovq $0x72, r7_t+8(%rip)\n"
	"\tmovq $0x73, r7_t+16(%rip)\n\tmovq $0x74, r7_t+24(%rip)\n"
	"\tmovabs $0x0123456789abcdef, %r9\n"
	"\tkxnorq %k1, %k1, %k1\n"
	"\tmovq %xmm0, %r8\n\tmovq %xmm1, %r10\n\tmovq %xmm2, %r11\n"
	"\tmovhps %xmm0, r7_t+96(%rip)\n\tmov r7_t+96(%rip), %r12\n"
	"\tmovhps %xmm1, r7_t+104(%rip)\n\tmov r7_t+104(%rip), %r13\n"
	"\tmovhps %xmm2, r7_t+112(%rip)\n\tmov r7_t+112(%rip), %r14\n"
	"\tmovq $0, r7_t+96(%rip)\n\tmovq $0, r7_t+104(%rip)\n"
	"\tmovq $0, r7_t+112(%rip)\n"
	".endm\n"
	".macro BXPOST\n"
	"\txor %r8d, %r8d\n\txor %r10d, %r10d\n\txor %r11d, %r11d\n"
	"\txor %r12d, %r12d\n\txor %r13d, %r13d\n\txor %r14d, %r14d\n"
	"\tXPOST\n"
	"\tud2\n"
	".endm\n"
	".text\n"
#include "review7_bxsweep.inc"
	);

/*
 * sysw (GDB): one system call per row of review7_sys.tbl (number, setup,
 * a byte of its 256-byte slot of r7_sb, 0xff before, that the call
 * writes), each labelled r7_s<row>, its buffer's address known (lea):
 * from right after it, reverse-continue with a watchpoint on that byte
 * must stop at it (the kernel's write), and from right before it,
 * continue too.
 */
unsigned char r7_sb[8192] __attribute__((aligned(4096)));
int r7_pr, r7_mf, r7_pid;
char r7_root[] = "/", r7_lnk[] = "/proc/self/exe";
__asm__(".text\n"
	".globl r7_sysw\n"
	"r7_sysw:\n"
#include "review7_sys.inc"
	"\tret\n");
void r7_sysw(void);

/* sysr (GDB): system calls reading a buffer of known address (r7_sr,
 * review7_sysr.tbl), each labelled r7_q<row>: rwatch on the byte.
 */
unsigned char r7_sr[4096] __attribute__((aligned(4096)));
int r7_nul;
__asm__(".text\n"
	".globl r7_sysr\n"
	"r7_sysr:\n"
#include "review7_sysr.inc"
	"\tret\n");
void r7_sysr(void);

/*
 * bsweep K: the sweep's row K backward.  BPRE loads every register but
 * rsp from r7_bu, which read(2) filled from a pipe (unknown to the
 * engine: the sweep's values, rbp r7_buf), sets the flags from them by a
 * cmp (unknown too), then the row runs and ud2 ends the history: every
 * register after the row is known (the end's), nothing before it but
 * what the engine infers backward through the row.
 */
unsigned long r7_bu[16];
extern void (*const r7_btab[])(void);
extern const long r7_bn;
__asm__(".macro BPRE\n"
	"\tmov r7_bu+0(%rip), %rax\n"
	"\tmov r7_bu+8(%rip), %rbx\n"
	"\tmov r7_bu+16(%rip), %rcx\n"
	"\tmov r7_bu+24(%rip), %rdx\n"
	"\tmov r7_bu+32(%rip), %rsi\n"
	"\tmov r7_bu+40(%rip), %rdi\n"
	"\tmov r7_bu+48(%rip), %rbp\n"
	"\tmov r7_bu+56(%rip), %r8\n"
	"\tmov r7_bu+64(%rip), %r9\n"
	"\tmov r7_bu+72(%rip), %r10\n"
	"\tmov r7_bu+80(%rip), %r11\n"
	"\tmov r7_bu+88(%rip), %r12\n"
	"\tmov r7_bu+96(%rip), %r13\n"
	"\tmov r7_bu+104(%rip), %r14\n"
	"\tmov r7_bu+120(%rip), %r15\n"
	"\tcmp $1, %r15b\n"
	"\tmov r7_bu+112(%rip), %r15\n"
	"\tmovdqu r7_x0(%rip), %xmm0\n"
	"\tmovdqu r7_x1(%rip), %xmm1\n"
	".endm\n"
	".text\n"
#include "review7_bsweep.inc"
	);

bool r7_cpu_has_sweep(void)
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

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int r;

	if (!strcmp(m, "sweep")) {
		if (!r7_cpu_has_sweep())
			return 7;
		r7_sweep();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "msweep")) {
		if (!r7_cpu_has_sweep())
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		for (int k = 0; k < 64; k++)
			r7_mb[512 + k] = (unsigned char)(0xc0 + k);
		r7_msweep();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "rw")) {
		if (!r7_cpu_has_sweep())
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		for (int k = 0; k < 64; k++)
			r7_src[k] = (unsigned char)(0x40 + k);
		r7_rw();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "bsweep") && argc > 2) {
		static const unsigned long v[16] = {
			0x0123456789abcdef, 0x1122334455667788, 5, 3,
			0x8000000000000001, 0xffffffff, 0,
			0xfedcba9876543210, 0xff, 0x7fffffffffffffff,
			0x100000000, ~0ul, 0, 0x0f0f0f0f0f0f0f0f, 0xdeadbeef, 0 };
		unsigned long b[16];
		long k = atol(argv[2]);
		int fd[2];

		if (!r7_cpu_has_sweep())
			return 7;
		if (k < 0 || k >= r7_bn)
			return 2;
		memcpy(b, v, sizeof(b));
		b[6] = (unsigned long)r7_buf;
		if (pipe(fd) || write(fd[1], b, sizeof(b)) != sizeof(b) ||
		    read(fd[0], r7_bu, sizeof(b)) != sizeof(b))
			return 3;
		__asm__ volatile("kxnorq %%k1, %%k1, %%k1\n"
				 "\tkxorq %%k2, %%k2, %%k2\n"
				 "\tvmovdqu64 r7_x0(%%rip), %%xmm16\n"
				 "\tvmovdqu64 r7_x1(%%rip), %%xmm17\n"
				 ::: "memory");
		r7_btab[k]();
	}
	if (!strcmp(m, "bxsweep") && argc > 2) {
		unsigned long b[16];
		long k = atol(argv[2]);
		int fd[2];

		if (!r7_cpu_has_sweep())
			return 7;
		if (k < 0 || k >= r7_xn)
			return 2;
		for (int j = 0; j < 16; j++)
			b[j] = 0x1111111111111111ul * (unsigned long)(j + 1);
		for (int j = 0; j < 64; j++)
			r7_y[j] = (unsigned char)(0x80 + j);
		if (pipe(fd) || write(fd[1], b, sizeof(b)) != sizeof(b) ||
		    read(fd[0], r7_bu, sizeof(b)) != sizeof(b))
			return 3;
		r7_xtab[k]();
	}
	if (!strcmp(m, "xsweep")) {
		if (!r7_cpu_has_sweep())
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		r7_xsweep();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "sysr")) {
		r7_nul = open("/dev/null", O_WRONLY);
		if (r7_nul < 0)
			return 7;
		r7_sysr();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "sysw")) {
		int p[2];

		memset(r7_sb, 0xff, sizeof(r7_sb));
		r7_mf = memfd_create("r7", 0);
		if (pipe(p) || write(p[1], "abcdefgh", 8) != 8 || r7_mf < 0 ||
		    write(r7_mf, "ABCDEFGH", 8) != 8)
			return 7;
		r7_pr = p[0];
		r7_pid = getpid();
		r7_sysw();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	r = r7_cases(m);
	if (r < 0)
		r = r7_launder(m);
	if (r >= 0)
		return r;
	fprintf(stderr, "review7: unknown mode '%s'\n", m);
	return 2;
}
