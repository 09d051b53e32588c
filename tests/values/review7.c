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

#include "rawclone.h"

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

/* repfault: the SIGSEGV handler makes the faulting page writable. */
static unsigned char *r7_dpage;
unsigned char r7_src8k[8192];

static void r7_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (mprotect(r7_dpage + 4096, 4096, PROT_READ | PROT_WRITE))
		_exit(4);
}

/* repjmp: the handler jumps out of the faulting rep movsb. */
#include <setjmp.h>
static sigjmp_buf r7_jb;

static void r7_segv_jmp(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	siglongjmp(r7_jb, 1);
}

/*
 * Laundering (as review6.c): main stores x = 0x11 on its stack (r13 =
 * x), hands &x to a raw-clone thread in a way given by the mode, sets
 * r7_go, waits for r7_done and loads x into r12 (0x77: the thread stored
 * it through what it decoded).  The thread decodes by r7_kind from
 * r7_area + r7_off (x, 0x11 still, is loaded into r14 before r7_go): 0 a word, 1 an 80-bit float (fldt), 2 packed BCD
 * (fbld), 3 a double (fldl), 4 a big-endian word (movbe), 5 the file
 * offset of r7_fd (lseek SEEK_CUR), 6 RLIMIT_CORE's soft limit
 * (getrlimit), 7 r7_fd's size less 1 (fstat), 8 the start of the OFD
 * lock that r7_fd holds, through r7_fd2 (fcntl F_OFD_GETLK), 9 the
 * window size of the pty r7_fd (TIOCGWINSZ), 10 the x87 mantissa of
 * &x | 1 << 62 (shifted left once), 11 the word r7_slot points to.
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

/* pstack: a thread on a stack carved from main's own stack. */
#include <pthread.h>
static void *r7_pstack_fn(void *a)
{
	volatile char loc[512];

	for (int k = 0; k < 512; k++)
		loc[k] = 0x77;
	return (void *)(long)loc[7] + (long)a;
}

static __attribute__((noinline)) int pstack(void)
{
	char buf[65536] __attribute__((aligned(64)));
	pthread_attr_t at;
	pthread_t t;
	long k;

	memset(buf, 0x11, sizeof(buf));
	if (pthread_attr_init(&at) ||
	    pthread_attr_setstack(&at, buf, sizeof(buf)) ||
	    pthread_create(&t, &at, r7_pstack_fn, NULL) ||
	    pthread_join(t, NULL))
		return 7;
	/* the first byte from the top that the thread wrote */
	for (k = sizeof(buf) - 1; k > 0 && buf[k] != 0x77; k--)
		;
	__asm__ volatile("movzbl (%0), %%r12d\n"
			 "\tmovb $0, (%0)\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW :: "r"(buf + k) : "r12", "memory");
	return 0;
}

/*
 * shmalias: one SysV segment attached twice (A, B), both detached before
 * the end.  r13 = *B after *A = 0x11 (kept to the end), then *A = 0x22,
 * r12 = *B (0x22).  MAPALIAS: the same with a memfd mapped MAP_SHARED
 * twice, and with mremap(A, 0, 4096, MREMAP_MAYMOVE) (a second mapping
 * of the same shared pages).
 */
#include <sys/ipc.h>
#include <sys/shm.h>
int r7_keep;	/* alias_run: keep both mappings to the end */
char *volatile r7_pa, *volatile r7_pb;
static int alias_run(char *a, char *b)
{
	r7_pa = a;
	r7_pb = b;
	__asm__ volatile("movq $0x11, (%0)\n"
			 "\tmov (%1), %%r13\n"
			 "\tmovq $0x22, (%0)\n"
			 "\tmov (%1), %%r12\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 /* munmap both (shmdt's pages too), then exit */
			 "\tcmpl $0, r7_keep(%%rip)\n\tjne 5f\n"
			 "\tmov %0, %%rdi\n\tmov $4096, %%esi\n"
			 "\tmov $11, %%eax\n\tsyscall\n"
			 "\tmov %1, %%rdi\n\tmov $4096, %%esi\n"
			 "\tmov $11, %%eax\n\tsyscall\n"
			 "5:\n"
			 EXIT_NOW :: "r"(a), "r"(b)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			 "r13", "memory");
	return 0;
}

/*
 * calleek: a callee saves rbx (push), launders its slot's address through
 * k1 (kmovq) and stores 0x77 through it, then pops rbx (0x77).
 * calleefx: the same through fxsave64 of xmm0 into a global and a load.
 */
__asm__(".text\n"
	"r7_cfk:\n"
	"\tpush %rbx\n"
	"\tmov %rsp, %rax\n"
	"\tkmovq %rax, %k1\n"
	"\txor %eax, %eax\n"
	"\tkmovq %k1, %rdx\n"
	"\tkxorq %k1, %k1, %k1\n"
	"\tmovq $0x77, (%rdx)\n"
	"\txor %edx, %edx\n"
	"\tpop %rbx\n"
	"\tret\n"
	"r7_cffx:\n"
	"\tpush %rbx\n"
	"\tmovq %rsp, %xmm0\n"
	"\tfxsave64 r7_area(%rip)\n"
	"\tpxor %xmm0, %xmm0\n"
	"\tmov r7_area+160(%rip), %rdx\n"
	"\tmovq $0, r7_area+160(%rip)\n"
	"\tmovq $0x77, (%rdx)\n"
	"\txor %edx, %edx\n"
	"\tpop %rbx\n"
	"\tret\n");

/* trapself: the program's own SIGTRAPs (int3, int1). */
static volatile int r7_n3, r7_n1;

static void r7_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == 0x80)	/* SI_KERNEL: int3 */
		r7_n3++;
	else
		r7_n1++;
}

/* sigcont: a child stops itself; the parent's SIGCONT runs its handler. */
#include <sys/wait.h>
static volatile int r7_cont;

static void r7_oncont(int sig)
{
	(void)sig;
	r7_cont++;
}

static int sigcont(void)
{
	pid_t p;
	int st;

	signal(SIGCONT, r7_oncont);
	fflush(stdout);
	p = fork();
	if (p < 0)
		return 7;
	if (!p) {
		raise(SIGSTOP);
		printf("child: SIGCONT handled %d\n", r7_cont);
		fflush(stdout);
		_exit(3);
	}
	if (waitpid(p, &st, WUNTRACED) != p || !WIFSTOPPED(st))
		return 4;
	kill(p, SIGCONT);
	if (waitpid(p, &st, 0) != p)
		return 4;
	printf("parent: child exit %d\n", WEXITSTATUS(st));
	return 0;
}

/* laltsig: the handler notes where the kernel saved r15. */
volatile long r7_slot;

static void r7_altr15(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	r7_slot = (long)&((ucontext_t *)uc)->uc_mcontext.gregs[REG_R15];
}

/* altsig: a handler on an alternate stack notes its siginfo's place. */
static char r7_alt[65536] __attribute__((aligned(64)));
int *volatile r7_si;

static void r7_alth(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	r7_si = &si->si_signo;
}

/* xlatfs: xlat through fs (a TLS table). */
static __thread unsigned char r7_tls[256];
unsigned char *volatile r7_tlsp;

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "sweep")) {
		if (!cpu_has_sweep())
			return 7;
		r7_sweep();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "msweep")) {
		if (!cpu_has_sweep())
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		for (int k = 0; k < 64; k++)
			r7_mb[512 + k] = (unsigned char)(0xc0 + k);
		r7_msweep();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "rw")) {
		if (!cpu_has_sweep())
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

		if (!cpu_has_sweep())
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

		if (!cpu_has_sweep())
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
		if (!cpu_has_sweep())
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
	if (!strcmp(m, "a32abs")) {
		if (mmap((void *)0xf0000000ul, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) != (void *)0xf0000000ul)
			return 7;
		__asm__ volatile("mov $0xf0000000, %%ebx\n"
				 "\tmovl $0x11, (%%rbx)\n"
				 "\tmov $0x22, %%eax\n"
				 /* addr32 mov %eax, 0xf0000000 */
				 "\t.byte 0x67, 0x89, 0x04, 0x25, 0, 0, 0, 0xf0\n"
				 "\tmov (%%rbx), %%r12d\n"
				 "\tmovl $0, (%%rbx)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "rbx", "r12", "memory");
	}
	if (!strcmp(m, "scatter")) {
		if (!cpu_has_sweep())
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		__asm__ volatile("lea r7_sc(%%rip), %%rbp\n"
				 "\tmovq $0x5a, (%%rbp)\n"
				 "\tmovq $0x5b, 8(%%rbp)\n"
				 "\tvmovdqu64 r7_y(%%rip), %%zmm2\n"
				 "\tvmovdqu64 r7_idx(%%rip), %%zmm4\n"
				 "\tkxnorw %%k1, %%k1, %%k1\n"
				 "\tvpscatterdd %%zmm2, (%%rbp,%%zmm4,4)%{%%k1%}\n"
				 "\tmov 8(%%rbp), %%r12\n"
				 "\tmovq $0, 8(%%rbp)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rbp", "r12", "memory");
	}
	if (!strcmp(m, "xrel")) {
		__asm__ volatile("lea r7_g(%%rip), %%rbx\n"
				 "\tmovq $0x11, (%%rbx)\n"
				 "\tmov $0x22, %%eax\n"
				 "\t.byte 0xf3, 0x89, 0x03\n" /* xrelease mov */
				 "\tmov (%%rbx), %%r12d\n"
				 "\tmov $0x33, %%eax\n"
				 "\t.byte 0xf2, 0x89, 0x43, 0x08\n" /* f2 mov */
				 "\tmov 8(%%rbx), %%r13d\n"
				 "\tmovl $0, (%%rbx)\n"
				 "\tmovl $0, 8(%%rbx)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "rbx", "r12", "r13", "memory");
	}
	if (!strcmp(m, "a32lea")) {
		__asm__ volatile("xor %%eax, %%eax\n"
				 /* addr32 lea 0xf0000000, %%rax */
				 "\t.byte 0x67, 0x48, 0x8d, 0x04, 0x25, 0, 0, 0, 0xf0\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%eax, %%eax\n"
				 EXIT_NOW ::: "rax", "memory");
	}
	if (!strcmp(m, "repfault")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = r7_segv;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		r7_dpage = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r7_dpage == MAP_FAILED)
			return 3;
		r7_dpage[10] = 0x11;
		r7_dpage[5000] = 0x11;
		if (mprotect(r7_dpage + 4096, 4096, PROT_NONE))
			return 3;
		for (int k = 0; k < 8192; k++)
			r7_src8k[k] = (unsigned char)(k * 7 + 1);
		__asm__ volatile("lea r7_src8k(%%rip), %%rsi\n"
				 "\tmov %0, %%rdi\n"
				 "\tmov $8192, %%ecx\n"
				 "\tcld\n"
				 "\trep movsb\n"
				 "\tmov %0, %%rdi\n"
				 "\tmovzbl 10(%%rdi), %%r12d\n"
				 "\tmovzbl 5000(%%rdi), %%r13d\n"
				 "\tmovb $0, 10(%%rdi)\n"
				 "\tmovb $0, 5000(%%rdi)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW :: "r"(r7_dpage)
				 : "rsi", "rdi", "rcx", "r12", "r13", "memory");
	}
	if (!strcmp(m, "repjmp")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = r7_segv_jmp;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		r7_dpage = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r7_dpage == MAP_FAILED)
			return 3;
		r7_dpage[10] = 0x11;
		if (mprotect(r7_dpage + 4096, 4096, PROT_NONE))
			return 3;
		for (int k = 0; k < 8192; k++)
			r7_src8k[k] = (unsigned char)(k * 7 + 1);
		if (!sigsetjmp(r7_jb, 1))
			__asm__ volatile("lea r7_src8k(%%rip), %%rsi\n"
					 "\tmov %0, %%rdi\n"
					 "\tmov $8192, %%ecx\n"
					 "\tcld\n"
					 "\trep movsb\n"
					 :: "r"(r7_dpage)
					 : "rsi", "rdi", "rcx", "memory");
		__asm__ volatile("mov %0, %%rdi\n"
				 "\tmovzbl 10(%%rdi), %%r12d\n"
				 "\tmovb $0, 10(%%rdi)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW :: "r"(r7_dpage)
				 : "rdi", "r12", "memory");
	}
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
		if (!cpu_has_sweep())
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
		if (!cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tvmovq %%rax, %%xmm0\n\tkxnorq %%k1, %%k1, %%k1\n"
		    "\tvmovdqu8 %%zmm0, r7_area(%%rip)%{%%k1%}\n"
		    "\tvpxor %%xmm0, %%xmm0, %%xmm0\n");
	}
	if (!strcmp(m, "lvpcompress")) {	/* EVEX compress store */
		if (!cpu_has_sweep())
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
		if (!cpu_has_sweep())
			return 7;
		R7L(0, 0, "\tkmovq %%rax, %%k1\n\txor %%eax, %%eax\n"
		    "\tkmovq %%k1, %%rdx\n\tkxorq %%k1, %%k1, %%k1\n"
		    "\tmov %%rdx, r7_area(%%rip)\n\txor %%edx, %%edx\n");
	}
	if (!strcmp(m, "lkmaskst")) {	/* k1 stored to the global */
		if (!cpu_has_sweep())
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
		struct sigaction sa;
		stack_t ss = { .ss_sp = r7_alt, .ss_size = sizeof(r7_alt) };

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = r7_altr15;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
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
	if (!strcmp(m, "movsxd32")) {
		__asm__ volatile("movabs $0x1122334455667788, %%rax\n"
				 "\tmov $0x80000001, %%ecx\n"
				 "\t.byte 0x63, 0xc1\n"	/* movsxd %%ecx, %%eax */
				 "\tmov %%rax, %%r12\n"
				 "\t.byte 0x66, 0x63, 0xc1\n"	/* movsxd %%cx, %%ax */
				 "\tmov %%rax, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "rcx", "r12", "r13",
				 "memory");
	}
	if (!strcmp(m, "pushfs")) {	/* push %fs; pop %rax */
		__asm__ volatile("push %%fs\n"
				 "\tpop %%rax\n"
				 "\tmov %%rsp, %%r12\n"
				 "\tpush %%gs\n"
				 "\tpop %%rax\n"
				 "\tmov %%rsp, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "r12", "r13", "memory");
	}
	if (!strcmp(m, "lretq")) {	/* a far return to the same cs */
		__asm__ volatile("mov %%cs, %%eax\n"
				 "\tpush %%rax\n"
				 "\tlea 1f(%%rip), %%rax\n"
				 "\tpush %%rax\n"
				 "\tlretq\n"
				 "1:\tmov %%rsp, %%r12\n"
				 "\tsub $16, %%rsp\n"
				 "\tmov %%cs, %%eax\n"
				 "\tpush %%rax\n"
				 "\tlea 2f(%%rip), %%rax\n"
				 "\tpush %%rax\n"
				 "\tlretq $16\n"
				 "2:\tmov %%rsp, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "r12", "r13", "memory");
	}
	if (!strcmp(m, "lcall")) {	/* far call through memory, lretq */
		static unsigned long fp[2];

		__asm__ volatile("lea 3f(%%rip), %%rax\n"
				 "\tmov %%rax, %0\n"
				 "\tmov %%cs, %%eax\n"
				 "\tmov %%rax, 8+%0\n"
				 "\trex64 lcall *%0\n"
				 "\tmov %%rsp, %%r12\n"
				 "\tjmp 4f\n"
				 "3:\tmov %%rsp, %%r13\n"
				 "\tlretq\n"
				 "4:\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW : "+m"(fp) :: "rax", "r12", "r13",
				 "memory");
	}
	if (!strcmp(m, "pushf64")) {	/* pushfq; pop %rax; push; popfq */
		__asm__ volatile("pushfq\n"
				 "\tpop %%rax\n"
				 "\tmov %%rax, %%r12\n"
				 "\tpush %%rax\n"
				 "\tpopfq\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "r12", "memory");
	}
	if (!strcmp(m, "pushf16")) {	/* 66 9c / 66 9d: 2 bytes */
		__asm__ volatile(".byte 0x66, 0x9c\n"
				 "\tmov %%rsp, %%r12\n"
				 "\t.byte 0x66, 0x9d\n"
				 "\tmov %%rsp, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "r12", "r13", "memory");
	}
	if (!strcmp(m, "vforkw")) {	/* the vfork child stores r7_g[2] */
		r7_g[2] = 1;
		__asm__ volatile("mov $58, %%eax\n\tsyscall\n"
				 "\ttest %%eax, %%eax\n\tjnz 1f\n"
				 "\tmovq $2, r7_g+16(%%rip)\n"
				 "\tmov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall\n"
				 "1:\tmov r7_g+16(%%rip), %%r12\n"
				 "\tmovq $3, r7_g+16(%%rip)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "rcx", "rdi", "r11", "r12",
				 "memory");
	}
	if (!strcmp(m, "pstack"))
		return pstack();
	if (!strcmp(m, "mfdaliaskeep") || !strcmp(m, "shmaliaskeep")) {
		r7_keep = 1;
		m = m[0] == 'm' ? "mfdalias" : "shmalias";
	}
	if (!strcmp(m, "shmalias")) {
		int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		char *a, *b;

		if (id < 0)
			return 7;
		a = shmat(id, NULL, 0);
		b = shmat(id, NULL, 0);
		shmctl(id, IPC_RMID, NULL);
		if (a == (void *)-1 || b == (void *)-1)
			return 7;
		return alias_run(a, b);
	}
	if (!strcmp(m, "mfdalias")) {
		int fd = memfd_create("r7a", 0);
		char *a, *b;

		if (fd < 0 || ftruncate(fd, 4096))
			return 7;
		a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (a == MAP_FAILED || b == MAP_FAILED)
			return 7;
		return alias_run(a, b);
	}
	if (!strcmp(m, "remapalias")) {
		char *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0), *b;

		if (a == MAP_FAILED)
			return 7;
		b = mremap(a, 0, 4096, MREMAP_MAYMOVE);
		if (b == MAP_FAILED)
			return 7;
		return alias_run(a, b);
	}
	if (!strcmp(m, "scatterend")) {	/* a scatter that faults half way */
		char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (!cpu_has_sweep() || pg == MAP_FAILED ||
		    mprotect(pg + 4096, 4096, PROT_NONE))
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		memset(pg, 0x5b, 4096);
		/* elements 0..7 in the first page, 8.. in the second */
		__asm__ volatile("mov %0, %%rbp\n"
				 "\tmovzbl (%%rbp), %%r12d\n"
				 "\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 "\tvmovdqu64 r7_y(%%rip), %%zmm2\n"
				 "\tvmovdqu64 r7_idx(%%rip), %%zmm4\n"
				 "\tkxnorw %%k1, %%k1, %%k1\n"
				 "\tvpscatterdd %%zmm2, (%%rbp,%%zmm4,4)%{%%k1%}\n"
				 EXIT_NOW :: "r"(pg + 4096 - 32)
				 : "rbp", "r12", "memory");
	}
	if (!strcmp(m, "calleek") || !strcmp(m, "calleefx")) {
		if (!cpu_has_sweep())
			return 7;
		if (m[6] == 'k')
			__asm__ volatile("mov $0x11, %%ebx\n\tcall r7_cfk\n"
					 "\tmov %%rbx, %%r12\n"
					 "\tnop\n\tnop\n\tnop\n"
					 "\txor %%r12d, %%r12d\n\txor %%ebx, %%ebx\n"
					 EXIT_NOW ::: "rax", "rbx", "rdx", "r12",
					 "memory");
		__asm__ volatile("mov $0x11, %%ebx\n\tcall r7_cffx\n"
				 "\tmov %%rbx, %%r12\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%ebx, %%ebx\n"
				 EXIT_NOW ::: "rax", "rbx", "rdx", "r12", "memory");
	}
	if (!strcmp(m, "vsys")) {	/* time(&r7_g[3]) through [vsyscall] */
		r7_g[3] = 0x11;
		__asm__ volatile("mov r7_g+24(%%rip), %%r13\n"
				 "\tlea r7_g+24(%%rip), %%rdi\n"
				 "\tmov $0xffffffffff600400, %%rax\n"
				 "\tcall *%%rax\n"
				 "\tmov r7_g+24(%%rip), %%r12\n"
				 "\tmovq $0, r7_g+24(%%rip)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "rcx", "rdx", "rsi", "rdi",
				 "r8", "r9", "r10", "r11", "r12", "r13", "memory");
	}
	if (!strcmp(m, "sigcont"))
		return sigcont();
	if (!strcmp(m, "trapself")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = r7_trap;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGTRAP, &sa, NULL);
		__asm__ volatile("int3");
		__asm__ volatile(".byte 0xf1");	/* int1 (icebp) */
		printf("int3 %d int1 %d\n", r7_n3, r7_n1);
		return 0;
	}
	if (!strcmp(m, "altsig")) {
		struct sigaction sa;
		stack_t ss = { .ss_sp = r7_alt, .ss_size = sizeof(r7_alt) };

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = r7_alth;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
			return 7;
		raise(SIGUSR1);
		*r7_si = 0;	/* rewrite si_signo after the handler */
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
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
	if (!strcmp(m, "xlatfs")) {	/* xlat %fs:(%rbx): TLS + rbx + al */
		long off = (char *)r7_tls - (char *)__builtin_thread_pointer();

		r7_tls[40] = 0x5a;
		r7_tlsp = &r7_tls[40];
		__asm__ volatile("mov %0, %%rbx\n"
				 "\tmov $40, %%eax\n"
				 "\t.byte 0x64, 0xd7\n"	/* xlat %%fs:(%%rbx) */
				 "\tnop\n\tnop\n\tnop\n"
				 EXIT_NOW :: "r"(off) : "rax", "rbx", "memory");
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
