// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A robust list the kernel walks at a thread's exit whose words the
 * history shows (tests/gdb/watchgap.sh, replay/watch_exit.c).  Thread C,
 * made with raw clone(2) (CLONE_CHILD_CLEARTID, ctid = &ctid_c), builds a
 * list of three entries with constant stores and its gettid(2), registers
 * it with set_robust_list(2) and exits alone:
 *  - e1's futex word holds 0x3fffffff, a TID no thread has (pid_max is
 *    at most 2^22): the kernel's handle_futex_death() leaves it alone;
 *  - e3's holds C's TID: the kernel makes it FUTEX_OWNER_DIED (the
 *    TID bits cleared, FUTEX_WAITERS kept: there are none);
 *  - e2 is also list_op_pending, its word 0, not PI: only woken.
 * (e3's store is not the instruction after gettid's SYSCALL, whose
 * registers the ground truth does not hold: tests/gdb/watchtruth.c would
 * not name it.)  So the exit reads the head, the entries and their
 * words, and writes e3's alone: a watch on e1 or e2 must not stop there
 * where the engine knows them, an rwatch must; a watch on e3 must stop
 * there.  Whether the engine knows them depends on main's schedule:
 * still inside its clone when C has exited (a parent preempted in the
 * call, PTREC_EMU_TEST_CLONE_ORDER=child), main finds ctid_c 0 and never
 * calls futex; run on into its futex wait (=parent), it makes a call
 * whose number the engine does not see (libc's syscall()), which may
 * have set up asynchronous I/O (replay/rcv_aio.c): shared memory is not
 * known then.  main waits for ctid_c to become 0 (futex), prints the
 * words' addresses and values and C's TID (clone's result) and exits 0
 * when e1 and e2 are unchanged and e3 was marked.  No libc in the thread
 * (it shares main's TLS).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ent {
	void *next;
	int word;		/* futex_offset 8 */
	int pad;
};

struct head {
	void *next;
	long futex_offset;
	void *pending;
};

volatile int ctid_c, work_c;
struct ent e1, e2, e3;
struct head rhead;
static char stack_c[16384] __attribute__((aligned(16)));

long spawn_c(void);

/* CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|CHILD_CLEARTID (0x250f00). */
__asm__(".text\n"
	".globl spawn_c\n"
	"spawn_c:\n"
	"	mov $0x250f00, %edi\n"
	"	lea stack_c+16384(%rip), %rsi\n"
	"	xor %edx, %edx\n"
	"	lea ctid_c(%rip), %r10\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	mov $186, %eax\n"
	"	syscall\n"
	"	mov %eax, %edx\n"
	"	mov %edx, e3+8(%rip)\n"
	"	lea e1(%rip), %rax\n"
	"	mov %rax, rhead(%rip)\n"
	"	movq $8, rhead+8(%rip)\n"
	"	lea e2(%rip), %rax\n"
	"	mov %rax, rhead+16(%rip)\n"
	"	lea e3(%rip), %rax\n"
	"	mov %rax, e1(%rip)\n"
	"	lea e2(%rip), %rax\n"
	"	mov %rax, e3(%rip)\n"
	"	lea rhead(%rip), %rax\n"
	"	mov %rax, e2(%rip)\n"
	"	movl $0x3fffffff, e1+8(%rip)\n"
	"	movl $0, e2+8(%rip)\n"
	"	lea rhead(%rip), %rdi\n"
	"	mov $24, %esi\n"
	"	mov $273, %eax\n"
	"	syscall\n"
	"	movl $7, work_c(%rip)\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"1:	ret\n");

int main(void)
{
	long tid;

	ctid_c = 1;
	e2.word = 9;
	tid = spawn_c();
	while (ctid_c)
		syscall(SYS_futex, &ctid_c, FUTEX_WAIT, 1, NULL, NULL, 0);
	printf("e1 %p %#x e2 %p %#x ctid %p %d e3 %p %#x tid %ld\n",
	       (void *)&e1.word, (unsigned int)e1.word, (void *)&e2.word,
	       (unsigned int)e2.word, (void *)&ctid_c, ctid_c,
	       (void *)&e3.word, (unsigned int)e3.word, tid);
	return e1.word != 0x3fffffff || e2.word || work_c != 7 ||
	       e3.word != FUTEX_OWNER_DIED;
}
