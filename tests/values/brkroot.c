// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What brk(2) writes (replay/rcv_sys.c sys_brk_writes(), docs/values.md
 * "What brk writes"), for tests/values/run.sh to check against the ground
 * truth.  Each case gives a wrong value if the engine took brk to write
 * less than the kernel does, or to zero what it keeps:
 *
 * - regrow: a word stored above the break in the heap's second page, a
 *   shrink to the first page (the second unmapped), a grow back to a
 *   break still under the word: the word reads 0 (a fresh page).  Taking
 *   brk to write nothing, or only [old break, new break) unaligned,
 *   gives the stored word in r12;
 * - keep: a word stored above the break in its page, a shrink and a
 *   grow both inside that page (no page mapped or unmapped): the word
 *   reads what was stored (the kernel zeroes nothing), in r13: known
 *   across both calls only if their write is bounded;
 * - sbrk: glibc's sbrk(-16) then sbrk(+64) (brk(__curbrk + n)) over a
 *   word stored past the break in its page: kept, in r14;
 * - redirty: a store into the pages a grow mapped, read back in r15;
 * - beyond: a word stored in the heap's fifth page, a shrink to three
 *   pages and a grow back to five: it reads 0, in r9; the snapshot's
 *   heap is three pages long, so a bound on brk's pages taken from it
 *   alone gives the stored word;
 * - sbeyond: the same through glibc's sbrk (neither break known to the
 *   engine: the pages any brk may change), in r10;
 * - across: a word on the stack stored before a grow and read after
 *   it, in r8: known only if the grow's write is bounded (it misses the
 *   stack).
 *
 * The program leaves by exit_group with the heap's address in rbx, which
 * lets the engine know it (from the end's registers) where the heap's
 * words are loaded.
 */
#include <stdint.h>
#include <unistd.h>

static long brk_call(unsigned long a)
{
	long r;

	/* The number set right before the call: rcv_aio.c's scan of
	 * every call's number reads it there.
	 */
	__asm__ volatile("mov $12, %%eax; syscall" : "=a"(r) : "D"(a)
			 : "rcx", "r11", "memory");
	return r;
}

/* brk to @a, which must succeed; its result kept in main's frame, which
 * the end shows (main never returns): the engine knows each break.
 */
static int brk_to(unsigned long a, volatile unsigned long *keep)
{
	unsigned long r = (unsigned long)brk_call(a);

	*keep = r;
	return r != a;
}

static void put(unsigned long a, uint64_t v)
{
	__asm__ volatile("movq %1, (%0)" : : "r"(a), "r"(v) : "memory");
}

int main(void)
{
	unsigned long b = ((unsigned long)brk_call(0) + 4095) & ~4095ul;
	volatile unsigned long res[16];
	volatile uint64_t loc;
	uint64_t r;


	/* regrow */
	if (brk_to(b + 4096 + 100, &res[0]))
		return 1;
	put(b + 4096 + 200, 0x5555555555555555ull);
	if (brk_to(b + 50, &res[1]) || brk_to(b + 4096 + 150, &res[2]))
		return 1;
	__asm__ volatile("movq (%%rdi), %%r12; xor %%r12d, %%r12d"
			 : : "D"(b + 4096 + 200) : "r12", "memory");
	/* keep */
	put(b + 4096 + 400, 0x7777777777777777ull);
	if (brk_to(b + 4096 + 8, &res[3]) || brk_to(b + 4096 + 600, &res[4]))
		return 1;
	__asm__ volatile("movq (%%rsi), %%r13; nop; nop; xor %%r13d, %%r13d"
			 : : "S"(b + 4096 + 400) : "r13", "memory");
	/* sbrk (glibc's brk() first: sbrk starts from the break it keeps) */
	if (brk((void *)(b + 4096 + 600)))
		return 1;
	r = (unsigned long)sbrk(0);
	put(r + 16, 0x3333333333333333ull);
	sbrk(-16);
	sbrk(64);
	__asm__ volatile("movq (%%rdx), %%r14; xor %%r14d, %%r14d"
			 : : "d"(r + 16) : "r14", "memory");
	/* across */
	loc = 0x4242424242424242ull;
	if (brk_to(b + 5 * 4096, &res[5]))
		return 1;
	__asm__ volatile("movq %0, %%r8; nop; nop; xor %%r8d, %%r8d"
			 : : "m"(loc) : "r8", "memory");
	/* redirty */
	put(b + 4 * 4096 + 8, 0x6666666666666666ull);
	if (brk_to(b + 3 * 4096, &res[6]))
		return 1;
	put(b + 2 * 4096 + 8, 0x9999999999999999ull);
	__asm__ volatile("movq (%%rcx), %%r15; xor %%r15d, %%r15d"
			 : : "c"(b + 2 * 4096 + 8) : "r15", "memory");
	/* beyond */
	if (brk_to(b + 5 * 4096, &res[7]))
		return 1;
	__asm__ volatile("movq (%%rsi), %%r9; nop; xor %%r9d, %%r9d"
			 : : "S"(b + 4 * 4096 + 8) : "r9", "memory");
	if (brk_to(b + 3 * 4096, &res[8]))
		return 1;
	/* sbeyond */
	if (brk((void *)(b + 3 * 4096)))
		return 1;
	sbrk(2 * 4096);
	put(b + 4 * 4096 + 16, 0x1111111111111111ull);
	sbrk(-2 * 4096);
	sbrk(2 * 4096);
	__asm__ volatile("movq (%%rdi), %%r10; nop; xor %%r10d, %%r10d"
			 : : "D"(b + 4 * 4096 + 16) : "r10", "memory");
	sbrk(-2 * 4096);
	/* Out with the heap's address in rbx: the end's registers make it
	 * known all through (no exit handler runs).
	 */
	__asm__ volatile("mov $231, %%eax; xor %%edi, %%edi; syscall"
			 : : "b"(b) : "rax", "rdi", "memory");
	return 0;
}
