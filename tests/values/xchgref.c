// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * An xchg of an address the values engine does not know (read back from
 * a pipe), right after a store of 3 into a global, followed by `cmp $1,
 * %eax; jg` (replay/rcv_xchg.c, docs/values.md "Stores of unknown
 * address: an exchange's old value"), for tests/values/run.sh.  The
 * global's low byte is then loaded into r12 (`movzbq`), kept for three
 * nops, and the global is overwritten by read(2) (so that nothing after
 * the load shows its value):
 *
 *   miss: the xchg swaps 0 with another global (0): the jump is not
 *         taken, so the old word was at most 1, and no placement over
 *         the byte that held 3 gives that: r12 is known, 3.
 *   hit:  the xchg swaps 0 with the global itself: old word 3, the jump
 *         is taken, and r12 is 0.  A refutation that ignored the jump's
 *         direction (or the bytes around the one asked about) takes the
 *         exchange away and says 3 (wrong).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static volatile uint32_t slot, lockw;

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "miss";
	uint32_t junk = 0x12345678;
	uintptr_t a;
	int pfd[2];

	if (pipe(pfd))
		return 1;
	a = !strcmp(mode, "hit") ? (uintptr_t)&slot : (uintptr_t)&lockw;
	if (write(pfd[1], &a, sizeof(a)) != sizeof(a) ||
	    read(pfd[0], &a, sizeof(a)) != sizeof(a) ||
	    write(pfd[1], &junk, sizeof(junk)) != sizeof(junk))
		return 1;
	__asm__ volatile("mov $3, %%ecx\n\t"
			 "movl %%ecx, %[slot]\n\t"
			 "xor %%eax, %%eax\n\t"
			 "xchg %%eax, (%[a])\n\t"
			 "cmp $1, %%eax\n\t"
			 "jg 1f\n\t"
			 "nop\n"
			 "1:\tmovzbq %[slot], %%r12\n\t"
			 "nop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d"
			 : [slot] "+m"(slot)
			 : [a] "r"(a)
			 : "rax", "rcx", "r12", "memory", "cc");
	if (read(pfd[0], (void *)&slot, sizeof(junk)) != sizeof(junk))
		return 1;
	return 0;
}
