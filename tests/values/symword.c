// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A store through a pointer read from a known word, refuted by that
 * word's end value (replay/rcv_alias.c word_refutes(); docs/values.md
 * "A root pinned by its own word"), for tests/values/run.sh to check
 * against the ground truth.  arr is on main's stack; g (its word 16,
 * address known) is 0 from read(2) (its value not known before); W (its
 * word 128, address known) holds a pointer into arr plus a word read from
 * /dev/zero (0 at run time, not known to the engine).  Each case loads g
 * into r12, reads W into rax, copies it into rdi (so that rcv_alias.c's
 * by-address argument, which wants the base loaded directly, does not
 * apply), stores the time-stamp counter (a value not known: no by-value
 * argument) through rdi, and leaves by exit_group with every register
 * overwritten first:
 *
 * - copy: W points at arr's word 0; the store writes words 0 and 1.
 *   Had it written g, rdi would have been g's address less 0..7, and W,
 *   which nothing after its read writes, would show that at the end; it
 *   shows arr: refuted, r12 known (0), also strict (a fact of the
 *   machine);
 * - self: W points 8 bytes before itself: the store writes W.  Those of
 *   W's bytes the store may have written are not the pointer's: taken
 *   for it, the store's junk is what rax read (wrong);
 * - late: W points at g, the store writes g, and W is then rewritten
 *   through a pointer the engine does not know to point at arr's word 0.
 *   Without the later writers looked for, W's end value would refute the
 *   store and g's end (the junk) would be r12 (wrong: 0);
 * - known: the same with W rewritten by a store of known address;
 * - pinned: W points at g and V (word 132) at W; the store through W's
 *   pointer writes g, one through V's rewrites W (with arr's address),
 *   and one more through V's rewrites V itself (with a pointer the engine
 *   does not know, 256 bytes into arr).  Each pointer's end value says
 *   where the stores through it went only if nothing after its read
 *   wrote its word, V's own store included: taken for V's pointer
 *   without that (a fixed point of the end values: docs/values.md "A
 *   root pinned by its own word", "What remains"), both stores through
 *   V miss W, W's end refutes the first store, and g's end (the junk)
 *   is r12 (wrong: 0).
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
	if (!strcmp(argv[1], "copy")) {
		*p = (uint64_t)(a + z);
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rax\n\t"
				 "mov %%rax, %%rdi\n\t"
				 "rdtsc\n\t"
				 "mov %%rax, (%%rdi)\n\t"
				 OUT
				 : : "S"(a)
				 : "r12", "rax", "rdx", "rdi", "memory");
	}
	if (!strcmp(argv[1], "self")) {
		*p = (uint64_t)(a + 504 + z);
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rax\n\t"
				 "mov %%rax, %%rdi\n\t"
				 "rdtsc\n\t"
				 "mov %%rax, 8(%%rdi)\n\t"
				 OUT
				 : : "S"(a)
				 : "r12", "rax", "rdx", "rdi", "memory");
	}
	if (!strcmp(argv[1], "late")) {
		*p = (uint64_t)(a + 64 + z);
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rax\n\t"
				 "mov %%rax, %%rdi\n\t"
				 "rdtsc\n\t"
				 "mov %%rax, (%%rdi)\n\t"
				 "mov %%rsi, (%%rcx)\n\t"
				 OUT
				 : : "S"(a), "c"(a + 512 + z2)
				 : "r12", "rax", "rdx", "rdi", "memory");
	}
	if (!strcmp(argv[1], "known")) {
		*p = (uint64_t)(a + 64 + z);
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rax\n\t"
				 "mov %%rax, %%rdi\n\t"
				 "rdtsc\n\t"
				 "mov %%rax, (%%rdi)\n\t"
				 "mov %%rsi, 512(%%rsi)\n\t"
				 OUT
				 : : "S"(a)
				 : "r12", "rax", "rdx", "rdi", "memory");
	}
	if (!strcmp(argv[1], "pinned")) {
		p[0] = (uint64_t)(a + 64 + z);
		p[2] = (uint64_t)(a + 512 + z2);
		__asm__ volatile("movl 64(%%rsi), %%r12d\n\t"
				 "mov 512(%%rsi), %%rax\n\t"
				 "mov %%rax, %%rdi\n\t"
				 "mov 528(%%rsi), %%rcx\n\t"
				 "rdtsc\n\t"
				 "mov %%rax, (%%rdi)\n\t"
				 "mov %%rsi, (%%rcx)\n\t"
				 "mov %%rbx, 16(%%rcx)\n\t"
				 OUT
				 : : "S"(a), "b"(a + 256 + z2)
				 : "r12", "rax", "rcx", "rdx", "rdi", "memory");
	}
	return 1;
}
