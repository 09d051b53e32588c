// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Another process that shares main's memory writes main's watched word
 * (tests/gdb/watchvm.sh, gdb/server/target_watch.c): clone(CLONE_VM |
 * CLONE_CHILD_CLEARTID | SIGCHLD) with ctid = &word makes a process, not
 * a thread (ptrace reports it as a fork).  main stores 0x1234 to word,
 * makes the child and sets go; the child stores 0x77 to word (an
 * instruction of known address), sets done, waits for main's ack and
 * exits: the kernel writes 0 to word (its clear_child_tid).  main waits
 * for done, acks, waits for word to be 0, and prints its address.  No
 * libc in the child (it shares main's TLS).
 *
 * With the argument "vfork", the child is made with CLONE_VFORK too
 * (ptrace reports a vfork): main waits in the clone while the child
 * stores 0x77 to word and exits (0 there).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

volatile int word, go, done, ack;
char vm_stack[16384] __attribute__((aligned(16)));

void spawn(void);
void spawn_vfork(void);

/* CLONE_VM (0x100) | CLONE_CHILD_CLEARTID (0x200000) | SIGCHLD (17). */
__asm__(".text\n"
	".globl spawn\n"
	"spawn:\n"
	"	mov $0x200111, %edi\n"
	"	lea vm_stack+16384(%rip), %rsi\n"
	"	xor %edx, %edx\n"
	"	lea word(%rip), %r10\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"2:	cmpl $0, go(%rip)\n"
	"	je 2b\n"
	"	movl $0x77, word(%rip)\n"
	"	movl $1, done(%rip)\n"
	"3:	cmpl $0, ack(%rip)\n"
	"	je 3b\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"1:	ret\n"
	/* CLONE_VFORK (0x4000) too: the child stores and exits at once. */
	".globl spawn_vfork\n"
	"spawn_vfork:\n"
	"	mov $0x204111, %edi\n"
	"	lea vm_stack+16384(%rip), %rsi\n"
	"	xor %edx, %edx\n"
	"	lea word(%rip), %r10\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 4f\n"
	"	movl $0x77, word(%rip)\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"4:	ret\n");

int main(int argc, char **argv)
{
	int st;

	word = 0x1234;
	if (argc > 1 && !strcmp(argv[1], "vfork")) {
		spawn_vfork();
		if (word || wait(&st) < 0 || !WIFEXITED(st))
			return 3;
		printf("word %p\n", (void *)&word);
		return 0;
	}
	spawn();
	go = 1;
	while (!done)
		;
	ack = 1;
	while (word)
		;
	if (wait(&st) < 0 || !WIFEXITED(st))
		return 2;
	printf("word %p\n", (void *)&word);
	return 0;
}
