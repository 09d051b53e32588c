// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A child's registers from its creator's at the clone (issue #17,
 * docs/values.md "A child's registers from its clone", replay/
 * rcv_clone.c), for tests/values/run.sh.  Raw system calls, so that each
 * register is the one the code set:
 *
 *   two:  r12 = 0x1111, clone(2) of a thread on stack A; r12 = 0x2222,
 *         clone(2) of a thread on stack B.  Each child copies r12 to rbx
 *         at once (`mov %r12, %rbx`, three nops), clears both, moves
 *         rsp away (so that nothing is known of them back from its end),
 *         sets its flag and exits.  The children's r12 and rsp are known
 *         from the first state on (0x1111, 0x2222; each its own stack);
 *         a rule that took the creator's call before the right one gives
 *         child B 0x1111, one that took the creator's rsp gives both a
 *         wrong rsp.
 *   fork: r12 = 0x3333, fork(2): the child process copies it to rbx,
 *         clears both, moves rsp away and exit_groups; the parent waits.
 *         Its r12 and rsp are the creator's.
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#define FLAGS	0x50f00ul	/* VM FS FILES SIGHAND THREAD SYSVSEM */

static char stack_a[65536] __attribute__((aligned(16)));
static char stack_b[65536] __attribute__((aligned(16)));
static volatile int flag_a, flag_b;

/* clone(FLAGS, @top) with r12 = @v; the child sets *@flag and exits. */
static long clone_r12(void *top, long v, volatile int *flag)
{
	register long r12 __asm__("r12") = v;
	long ret;

	__asm__ volatile("mov $56, %%eax\n\t"
			 "syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov %%r12, %%rbx\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d\n\txor %%ebx, %%ebx\n\t"
			 "mov %%rdx, %%rsp\n\t"
			 "movl $1, (%%rdx)\n\t"
			 "mov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall\n"
			 "1:"
			 : "=a"(ret)
			 : "D"(FLAGS), "S"(top), "d"(flag), "r"(r12)
			 : "rcx", "r11", "rbx", "memory");
	return ret;
}

static long fork_r12(long v)
{
	register long r12 __asm__("r12") = v;
	long ret;

	__asm__ volatile("mov $57, %%eax\n\t"
			 "syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov %%r12, %%rbx\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d\n\txor %%ebx, %%ebx\n\t"
			 "lea 1f(%%rip), %%rsp\n\t"
			 "mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall\n"
			 "1:"
			 : "=a"(ret)
			 : "r"(r12)
			 : "rcx", "r11", "rbx", "rdi", "memory");
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "two";

	if (!strcmp(mode, "fork")) {
		long pid = fork_r12(0x3333);

		return pid <= 0 || waitpid((int)pid, NULL, 0) != pid;
	}
	if (clone_r12(stack_a + sizeof(stack_a), 0x1111, &flag_a) <= 0 ||
	    clone_r12(stack_b + sizeof(stack_b), 0x2222, &flag_b) <= 0)
		return 1;
	while (!flag_a || !flag_b)
		sched_yield();
	return 0;
}
