// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The watch scan's quiet windows (replay/watch_proof.c, watch_chain.c):
 * a loop with no conditional branch, system call or indirect jump.  put()
 * stores to `var` through an address the instruction does not give: it
 * is var's address multiplied by 1, which the recovery engine computes
 * (a constant) and the proofs do not follow (a new base).  So, far from
 * the end too, a scan with watch-unknown skip must stop at that store as
 * the engine's own scan does: a quiet window's secret bases are only the
 * registers at its start and the words read through them, never a value
 * made by an operation the proof does not follow
 * (tests/unit/replay/test_watch_chain.c).  -O0, static, not PIE: `var`
 * and `sink` at fixed addresses; recorded with --max-insns (the loop
 * never ends).
 */
static volatile int var;
static volatile int sink;

static __attribute__((noinline)) void put(int i)
{
	__asm__ volatile("lea %1, %%rax\n\t"
			 "imul $1, %%rax, %%rax\n\t"
			 "movl %0, (%%rax)"
			 : : "r"(i), "m"(var) : "rax", "memory");
	sink = i + 1;
}

int main(void)
{
	int i;

	for (i = 0;; i++)
		put(i);
}
