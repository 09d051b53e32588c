/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * review3: adversarial patterns for watch_dep.c (a far window passed with
 * watch-unknown skip must not hold a store whose address the engine
 * knows).  Each loop sets a base long before the window boundary may
 * fall, then shows it (or a value made from it) through the trace in a
 * way the analysis must follow, then stores through the base.  Checked
 * with WATCHTRUTH_BLOCK=50 watchtruth --check (QUIET WRONG = a hole);
 * with no branch revealing (the deliberate break) 32 of 2,124 secret
 * positions are known to the engine, with none of indirect targets and
 * returns revealing 0: the engine learns nothing from those here.
 */
	.globl _start
	.text
_start:
	mov	$120, %r15d
1:	/* jrcxz on a register made from the base by sub imm */
	lea	g(%rip), %rcx
	.rept 23
	nop
	.endr
	movl	$1, (%rcx)
	sub	$g, %rcx
	jrcxz	2f
2:	/* bswap back: the engine inverts bswap */
	lea	g(%rip), %rbx
	bswap	%rbx
	.rept 17
	nop
	.endr
	bswap	%rbx
	mov	%rbx, %rdx
	bswap	%rdx
	bswap	%rdx
	cmp	$g, %rdx
	jne	3f
	movl	$2, (%rbx)
3:	/* the base through a read-only word compared */
	lea	g(%rip), %rsi
	.rept 19
	nop
	.endr
	cmp	gp(%rip), %rsi
	jne	4f
	movl	$3, (%rsi)
4:	/* the base through the stack: push, a store elsewhere, pop, cmp */
	lea	g(%rip), %rdi
	.rept 13
	nop
	.endr
	push	%rdi
	movl	$0, h(%rip)
	pop	%r8
	cmp	$g, %r8
	jne	5f
	movl	$4, (%rdi)
5:	/* through xmm and memory */
	lea	g(%rip), %r9
	.rept 11
	nop
	.endr
	movq	%r9, %xmm1
	movq	%xmm1, h8(%rip)
	mov	h8(%rip), %r10
	cmp	$g, %r10
	jne	6f
	movl	$5, (%r9)
6:	/* xchg with memory, then the word read back through rbp copy */
	lea	g(%rip), %r11
	.rept 7
	nop
	.endr
	mov	%rsp, %rbp
	mov	%r11, -16(%rsp)
	xchg	-16(%rbp), %r12
	mov	-16(%rbp), %r13
	cmp	$g, %r12
	jne	7f
	movl	$6, (%r11)
7:	/* setcc: the flags of a compare of the base, tested later */
	lea	g(%rip), %r14
	.rept 29
	nop
	.endr
	cmp	$g, %r14
	sete	%al
	movzbl	%al, %eax
	.rept 5
	nop
	.endr
	test	%eax, %eax
	jz	8f
	movl	$7, (%r14)
8:	/* cmov of a known value, branch on the result */
	lea	g(%rip), %rbx
	.rept 9
	nop
	.endr
	xor	%edx, %edx
	mov	%rbx, %rcx
	cmovne	%rdx, %rcx
	cmp	$g, %rcx
	jne	9f
	movl	$8, (%rbx)
9:	/* an indirect call to a target made from the base */
	lea	15f(%rip), %rbx
	.rept 21
	nop
	.endr
	mov	%rbx, %rax
	call	*%rax
15:	add	$8, %rsp
	movl	$13, g-15b(%rbx)
	/* an indirect jump through a word the base made */
	lea	16f(%rip), %rbp
	.rept 3
	nop
	.endr
	lea	1(%rbp), %rax
	mov	%rax, h8(%rip)
	jmp	*h8(%rip)
	nop
16:	nop
	movl	$14, g-16b(%rbp)
	/* loop: rcx made from the base, tested by loop */
	lea	g+1(%rip), %rcx
	.rept 27
	nop
	.endr
	movl	$15, -1(%rcx)
	sub	$g, %rcx
	loop	17f
17:	/* the word the base left on the stack read back through rsp + 8 */
	lea	g(%rip), %r12
	.rept 33
	nop
	.endr
	mov	%r12, -24(%rsp)
	sub	$32, %rsp
	mov	8(%rsp), %r13
	add	$32, %rsp
	cmp	$g, %r13
	jne	18f
	movl	$16, (%r12)
18:	/* bounded (watch_fix.c): a callee pushes a constant, stores
	 * elsewhere (the proof's slots drop), pops the word and reads
	 * through it: the engine keeps the pair across the store (a
	 * callee's own stack, rcv_callee.c) and knows where it reads
	 * (tbl + 8), which the proof bounds to that constant; a deep
	 * rwatch of tbl + 8 must stop there.
	 */
	.rept 15
	nop
	.endr
	call	bnd
	dec	%r15d
	jnz	1b
	/* quiet windows (no branch): what a return pops is all they show */
	mov	$60, %r15d
11:	lea	12f(%rip), %rbx
	lea	g(%rip), %rsi
	.rept 31
	nop
	.endr
	push	%rbx
	movl	$0, h(%rip)		/* drops the proof's slots */
	ret
12:	movl	$9, g-12b(%rbx)
	lea	13f(%rip), %rbx
	.rept 23
	nop
	.endr
	push	%rbx
	movb	$0, 7(%rsp)		/* overlaps the pushed word */
	ret
13:	movl	$10, g-13b(%rbx)
	lea	14f(%rip), %rbx
	.rept 19
	nop
	.endr
	mov	%ebx, -8(%rsp)		/* the return word in two halves */
	movl	$0, -4(%rsp)
	sub	$8, %rsp
	ret
14:	movl	$12, g+8-14b(%rbx)
	movl	$11, (%rsi)
	dec	%r15d
	jnz	11b
	/* a quiet tail: the end's chain and ramp (32 windows of 50) */
	mov	$2000, %ecx
10:	nop
	dec	%ecx
	jnz	10b
	mov	$60, %eax
	xor	%edi, %edi
	syscall

bnd:	lea	tbl(%rip), %rax
	push	%rax
	movl	$0, h(%rip)
	pop	%rcx
	mov	8(%rcx), %rdx
	ret

	.section .rodata
	.balign 8
gp:	.quad	g
tbl:	.quad	0, 0x1234
	.data
	.balign 8
g:	.quad	0
h:	.quad	0
h8:	.quad	0
