// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel's write at a thread's exit where the history shows its
 * address (tests/gdb/watchgap.sh, replay/watch_exit.c).  Two threads made
 * with raw clone(2), whose arguments are constants the recovery engine
 * knows, each exit(2) alone while main waits:
 *  - A: clone with CLONE_CHILD_CLEARTID and ctid = &ctid_a: its exit
 *    writes 0 to ctid_a (main stored 1 there; no instruction stores 0);
 *  - B: clone without it, then set_tid_address(&ctid_b) in the thread:
 *    its exit writes 0 to ctid_b.
 * Neither calls set_robust_list, so the exits write nothing else: `other`
 * (written by main alone, before) is no exit's.  main waits for each
 * word to become 0 (futex), prints the addresses and exits 0 when both
 * are 0.  No libc in the threads (they share main's TLS).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile int ctid_a, ctid_b, other, work_a, work_b;
static char stack_a[16384] __attribute__((aligned(16)));
static char stack_b[16384] __attribute__((aligned(16)));

void spawn_a(void);
void spawn_b(void);

/* CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM (0x50f00), A also
 * CLONE_CHILD_CLEARTID (0x200000).
 */
__asm__(".text\n"
	".globl spawn_a\n"
	"spawn_a:\n"
	"	mov $0x250f00, %edi\n"
	"	lea stack_a+16384(%rip), %rsi\n"
	"	xor %edx, %edx\n"
	"	lea ctid_a(%rip), %r10\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	movl $5, work_a(%rip)\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"1:	ret\n"
	".globl spawn_b\n"
	"spawn_b:\n"
	"	mov $0x50f00, %edi\n"
	"	lea stack_b+16384(%rip), %rsi\n"
	"	xor %edx, %edx\n"
	"	xor %r10d, %r10d\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 2f\n"
	"	lea ctid_b(%rip), %rdi\n"
	"	mov $218, %eax\n"
	"	syscall\n"
	"	movl $6, work_b(%rip)\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"2:	ret\n");

static void wait_zero(volatile int *w)
{
	while (*w)
		syscall(SYS_futex, w, FUTEX_WAIT, 1, NULL, NULL, 0);
}

int main(void)
{
	other = 7;
	ctid_a = 1;
	ctid_b = 1;
	spawn_a();
	wait_zero(&ctid_a);
	spawn_b();
	wait_zero(&ctid_b);
	printf("ctid_a %p %d ctid_b %p %d other %p %d\n", (void *)&ctid_a,
	       ctid_a, (void *)&ctid_b, ctid_b, (void *)&other, other);
	return ctid_a || ctid_b || work_a != 5 || work_b != 6;
}
