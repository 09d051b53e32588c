// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/watch.sh (watchtruth --check): stores where the stack pointer
 * moves to other memory, which the watch proofs (replay/watch_proof.c)
 * must not follow as if it had stayed: a stretch run on a heap stack
 * (mov %rsp: a push, a call and its locals there, as coroutines do), and
 * alloca of a size the history does not show.  Each writes locals on its
 * stack and a global.  Nothing else separates the stacks: no signal
 * handler, no context switch through a return (swapcontext and longjmp
 * return where no call was made, which the proofs treat as a signal:
 * everything unknown), no lazy binding (-z now), no call that stores
 * through pointers, and the history ends in exit_group right after, so
 * that the proofs from the end reach the switch: a proof that kept the
 * stack pointer's base across `mov %reg, %rsp` gives the other stack's
 * stores wrong intervals, which watchtruth reports.  Every store is
 * checked against the ground truth.
 */
#include <alloca.h>
#include <unistd.h>

static volatile long shared;

static long frame(size_t n)
{
	volatile char *p = alloca(n);
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)i;
	return p[n - 1];
}

/* Called on the heap stack: a frame and locals there. */
long on_heap(long x);
long on_heap(long x)
{
	volatile long local[2];

	local[0] = x;
	local[1] = local[0] + 5;
	shared += local[1];
	return local[1];
}

static char heap[8192] __attribute__((aligned(16)));

int main(void)
{
	unsigned long top;
	long r;

	/* The stack pointer moved into other memory (where depends on
	 * getpid()), a push, a call and its frame there, and back.
	 */
	top = (unsigned long)(heap + 4096) + 16 * (getpid() & 7);
	__asm__ volatile(
		"mov %%rsp, %%rbx\n"
		"mov %1, %%rsp\n"
		"pushq $42\n"
		"mov $7, %%edi\n"
		"call on_heap\n"
		"mov %%rbx, %%rsp\n"
		"mov %%rax, %0\n"
		: "=r"(r) : "r"(top)
		: "rbx", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11",
		  "rax", "memory");
	shared += frame(16 + (size_t)(getpid() & 1)) + r;
	/* The end, right here: exit's handlers store through pointers
	 * that would hide the stack's frames from the proofs.
	 */
	__asm__ volatile("mov $231, %%eax\n"
			 "xor %%edi, %%edi\n"
			 "syscall\n" ::: "rax", "rdi", "memory");
	return 0;
}
