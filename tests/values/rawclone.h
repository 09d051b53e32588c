/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the reviewers' programs (holes.c, review5.c to review8.c and
 * their parts) share: a thread started by a raw clone(2) that touches no
 * libc, and the exit_group that ends a case where it stands.  One
 * copy, so that every program's thread starts from the same clean
 * registers (an escape the engine must see comes from the case, never
 * from a register the spawn left set).
 */
#ifndef RAWCLONE_H
#define RAWCLONE_H

/* exit_group(0) in an asm statement: the history ends right there. */
#define EXIT_NOW "\txor %%edi, %%edi\n\tmov $231, %%eax\n\tsyscall\n"

/*
 * The text of P_spawn(code, ...): clone(CLONE_VM | CLONE_FS |
 * CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD) onto the top of
 * P_cstack (RAWCLONE_STACK), with every register cleared but r9 (the
 * child's code, from rdi) and rbx, which RBX sets ("\txor %ebx, %ebx\n",
 * or holes.c's "\tmov %rsi, %rbx\n": the second argument, for the
 * child); the child jumps to its code (which ends with exit), the
 * parent returns the new thread's id.  For a top-level __asm__.
 */
#define RAWCLONE_SPAWN_ASM(P, RBX)					\
	".text\n"							\
	#P "_spawn:\n"							\
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"		\
	"\tpush %r14\n\tpush %r15\n"					\
	"\tmov %rdi, %r9\n"						\
	RBX								\
	"\txor %ebp, %ebp\n\txor %r12d, %r12d\n\txor %r13d, %r13d\n"	\
	"\txor %r14d, %r14d\n\txor %r15d, %r15d\n\txor %edx, %edx\n"	\
	"\txor %r10d, %r10d\n\txor %r8d, %r8d\n\txor %esi, %esi\n"	\
	"\txor %edi, %edi\n\txor %ecx, %ecx\n\txor %r11d, %r11d\n"	\
	"\tlea " #P "_cstack+65536(%rip), %rsi\n"			\
	"\tmov $0x10f00, %edi\n"	/* VM FS FILES SIGHAND THREAD */ \
	"\tmov $56, %eax\n"						\
	"\tsyscall\n"							\
	"\ttest %rax, %rax\n"						\
	"\tjnz 1f\n"							\
	"\tjmp *%r9\n"							\
	"1:\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"		\
	"\tpop %rbp\n\tpop %rbx\n\tret\n"

/* P_spawn(code) with rbx cleared too. */
#define RAWCLONE_SPAWN(P) RAWCLONE_SPAWN_ASM(P, "\txor %ebx, %ebx\n")

/* The child's stack (64 KiB) that P_spawn() runs it on. */
#define RAWCLONE_STACK(P)						\
	char P##_cstack[65536] __attribute__((aligned(16)))

/*
 * The text of P_child_pub: once P_pub holds an address, store 0x77
 * there, set P_done, exit (review5.c and review6.c).
 */
#define RAWCLONE_CHILD_PUB(P)						\
	".text\n"							\
	#P "_child_pub:\n"						\
	"1:\tmov " #P "_pub(%rip), %rax\n\ttest %rax, %rax\n\tjnz 2f\n" \
	"\tpause\n\tjmp 1b\n"						\
	"2:\tmovq $0x77, (%rax)\n\tmovq $1, " #P "_done(%rip)\n"	\
	"\txor %edi, %edi\n\tmov $60, %eax\n"				\
	"\tsyscall\n"

#endif
