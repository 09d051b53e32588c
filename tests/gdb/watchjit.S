/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A watchpoint at a gap in the trace (tests/gdb/watchgap.sh): code
 * written at run time into an anonymous RWX mapping stores 42 to `g`.
 * The recorder keeps no bytes of such a mapping, so the replay has a gap
 * where that code ran (the ground truth has its instructions); before it
 * a known store of 1, after it loops and a system call, where the trace
 * resumes.
 */
	.globl _start
	.text
_start:
	mov	$9, %eax		/* mmap(0, 4096, RWX, PRIVATE|ANON) */
	xor	%edi, %edi
	mov	$4096, %esi
	mov	$7, %edx
	mov	$0x22, %r10d
	mov	$-1, %r8
	xor	%r9d, %r9d
	syscall
	mov	%rax, %rbx
	/* movabs $g, %rax; movl $42, (%rax); movabs $back, %rax; jmp *%rax */
	movw	$0xb848, (%rbx)
	lea	g(%rip), %rcx
	mov	%rcx, 2(%rbx)
	movl	$0x2a00c7, 10(%rbx)
	movw	$0, 14(%rbx)
	movw	$0xb848, 16(%rbx)
	lea	back(%rip), %rcx
	mov	%rcx, 18(%rbx)
	movw	$0xe0ff, 26(%rbx)
	.globl before
before:
	movl	$1, g(%rip)		/* the last store the replay shows */
	jmp	*%rbx			/* the generated code: g = 42 */
back:
	mov	$20000, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$39, %eax		/* getpid: the trace resumes after it */
	syscall
	mov	$20000, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$60, %eax		/* exit(0) */
	xor	%edi, %edi
	syscall

	.data
	.globl g
	.p2align 3
g:	.long 0
	.section .note.GNU-stack, "", @progbits
