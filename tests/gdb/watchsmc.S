/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Self-modifying code in the executable's own text (tests/gdb/watchgap.sh,
 * a known limit, docs/recorder.md): mprotect the page RWX, write
 * `movl $42, g(%rip)` over a 10-byte nop, run it.  The image store keeps
 * the file's bytes, so the replay decodes the nop there; the end snapshot
 * holds the page as written, which is how watchtruth --check finds it.
 */
	.globl _start
	.text
_start:
	lea	patch(%rip), %rdi
	and	$-4096, %rdi
	mov	$8192, %esi
	mov	$7, %edx
	mov	$10, %eax		/* mprotect(page, 8192, RWX) */
	syscall
	lea	patch(%rip), %rbx
	/* c7 05 rel32 imm32: movl $42, g(%rip); rel32 = g - (patch + 10) */
	movw	$0x05c7, (%rbx)
	lea	g(%rip), %rcx
	sub	%rbx, %rcx
	sub	$10, %rcx
	movl	%ecx, 2(%rbx)
	movl	$42, 6(%rbx)
	movl	$1, g(%rip)
	.globl patch
patch:
	.byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0	/* nopw */
	mov	$60, %eax		/* exit(0) */
	xor	%edi, %edi
	syscall

	.data
	.globl g
	.p2align 3
g:	.long 0
	.section .note.GNU-stack, "", @progbits
