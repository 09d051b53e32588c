// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Stores through one unknown root plus different offsets (replay/
 * rcv_root.c rcv_root_sym(), rcv_alias.c value_refutes(); docs/values.md
 * "Stores through one root"), for tests/values/run.sh to check against
 * the ground truth.  The pointers are an array's address plus a word
 * read(2) from /dev/zero: 0 at run time, not known to the engine.  g
 * (the array's word 16, address known) is 0, read(2) too (its value not
 * known before).  Each case loads g into r12, stores -1 through a
 * pointer (b), stores through a pointer again (q) and leaves by
 * exit_group, every register overwritten first: r12 is known only if
 * the end's g (0) is what the load read, across b and q:
 *
 * - same: b writes word 0, q 0x00112233 into word 32 through the same
 *   root.  q is refuted for g by its value (no placement of 33 22 11 00
 *   matches the zeros around g), but its byte 00 may be g's, so without
 *   a placement it may have been the last writer of what b left; placed
 *   by b's root, had b written g, q stored 128 bytes past it: the end's
 *   g (no 0xff) refutes b, and r12 is known (0);
 * - alias: b writes g itself, then q through another root in the same
 *   register (rdi reloaded) stores 0 over it: r12 (0) is not known (b
 *   may have written g: q, not placed, may have left the end's 0);
 * - overlap: b writes g, q the same root 2 bytes on: g ends ff ff 33 22,
 *   b's 0xff shows: not refuted, r12 not known.
 *
 * Roots loaded again from their word (rcv_root_word(), rcv_alias.c
 * word_kept(); docs/values.md "a root read again from its word"): the
 * pointer is kept in p (arr's word 128, address known, value a + z or
 * a + 64 + z: not known to the engine), read into rdi for b and again
 * into rdx for q (in reload, b's base moved by an add: its low bits not
 * those of p's end value, rcv_alias.c's by-address argument):
 *
 * - reload: b writes word 0, q 0x00112233 into word 32 through the
 *   pointer read again, nothing between but b (which, had it written g,
 *   wrote far from p): q is placed by b's root, r12 known (0), also
 *   strict (p rewritten with rdtsc after q, so that its end value does
 *   not tell the pointer);
 * - rewrite: b writes -1 over g and the word after it, then p is
 *   rewritten (a store of known address) to point 60 bytes before g, so
 *   that q's 0 lands on g's second word: b's -1 in g shows at the end.
 *   Taken as read from the same word, q would be placed 128 bytes past
 *   b and not on g's second word, whose 0 would then refute b: g's end
 *   (-1) taken for what the load read (r12 0xffffffff, not 0);
 * - rewrite2: the same with p rewritten through a pointer the engine
 *   does not know (a store of unknown address, not through b's root),
 *   between p's first read and g's (so that the question about g does
 *   not meet it).
 *
 * valcheck finds no wrong value in any of them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "unknown.h"

/* Out, every register the pointers' word may be in overwritten by the
 * time-stamp counter first (the end's registers would tell it).
 */
#define OUT	VALTEST_OUT

int main(int argc, char **argv)
{
	uint32_t arr[256];
	uint64_t z = zero(), z2 = zero();
	char *a = (char *)arr;
	uint64_t *p = (uint64_t *)(a + 512);

	memset(arr, 0, sizeof(arr));
	zero_at(&arr[16]);
	if (argc < 2)
		return 2;
	*p = (uint64_t)(a + (strcmp(argv[1], "reload") ? 64 : 0) + z);
	if (!strcmp(argv[1], "same"))
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "movl $-1, (%%rdi)\n\t"
				 "movl $0x00112233, 128(%%rdi)\n\t"
				 OUT
				 : : "S"(a), "D"(a + z) : "r12", "memory");
	if (!strcmp(argv[1], "alias"))
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "movl $-1, (%%rdi)\n\t"
				 "mov %%rdx, %%rdi\n\t"
				 "movl $0, 64(%%rdi)\n\t"
				 OUT
				 : : "S"(a), "D"(a + 64 + z), "d"(a + z2)
				 : "r12", "memory");
	if (!strcmp(argv[1], "overlap"))
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "movl $-1, (%%rdi)\n\t"
				 "movl $0x00112233, 2(%%rdi)\n\t"
				 OUT
				 : : "S"(a), "D"(a + 64 + z) : "r12", "memory");
	if (!strcmp(argv[1], "reload"))
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rdi\n\t"
				 "add $8, %%rdi\n\t"
				 "movl $-1, -8(%%rdi)\n\t"
				 "mov 512(%%rsi), %%rdx\n\t"
				 "movl $0x00112233, 128(%%rdx)\n\t"
				 "rdtsc\n\t"
				 "mov %%rax, 512(%%rsi)\n\t"
				 OUT
				 : : "S"(a) : "r12", "rdi", "rdx", "memory");
	if (!strcmp(argv[1], "rewrite"))
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rdi\n\t"
				 "movq $-1, (%%rdi)\n\t"
				 "mov %%rcx, 512(%%rsi)\n\t"
				 "mov 512(%%rsi), %%rdx\n\t"
				 "movl $0, 128(%%rdx)\n\t"
				 OUT
				 : : "S"(a), "c"(a + 68 - 128 + z2)
				 : "r12", "rdi", "rdx", "memory");
	if (!strcmp(argv[1], "rewrite2"))
		__asm__ volatile("mov 512(%%rsi), %%rdi\n\t"
				 "mov %%rcx, (%2)\n\t"
				 "movl 64(%%rsi), %%r12d\n\t"
				 "movq $-1, (%%rdi)\n\t"
				 "mov 512(%%rsi), %%rdx\n\t"
				 "movl $0, 128(%%rdx)\n\t"
				 OUT
				 : : "S"(a), "c"(a + 68 - 128 + z2),
				   "r"(a + 512 + z)
				 : "r12", "rdi", "rdx", "memory");
	return 1;
}
