// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A history that ends inside rep movsb (issue #18, replay/watch_rep.c),
 * for tests/unit/replay/test_watch_rep.c: 256 bytes of 0x5a copied to
 * area + 3996, the last 100 bytes of a page followed by one with no
 * access: the copy faults after 100 iterations (SIGSEGV, the end), and
 * those 100 bytes were stored by no instruction the trace shows.  With an
 * argument, backwards: std; rep stosb of 200 bytes of 0x77 from
 * area2 + 4096 + 59 down, the page below area2 + 4096 with no access:
 * 60 bytes stored, [area2 + 4096, area2 + 4156).  With the argument
 * a32, 32-bit addresses (0x67, addr32): rdi's upper half set, so the
 * CPU stores through edi only: first rep stosb of 64 bytes of 0x33 at
 * area3 + 100 whole, then one of 100 bytes from area3 + 4096 - 40 that
 * faults after 40 (the page above with no access).  Not PIE: the test
 * takes the addresses from the symbols (below 4 GiB).
 */
#include <string.h>
#include <sys/mman.h>

char area[2 * 4096] __attribute__((aligned(4096)));
char area2[2 * 4096] __attribute__((aligned(4096)));
char area3[2 * 4096] __attribute__((aligned(4096)));
static char src[256];

/* rdi = @a | 1 << 32: what an a32 instruction must not take whole. */
static void a32_stosb(char *a, unsigned int n)
{
	__asm__ volatile("mov $1, %%rdi\n\t"
			 "shl $32, %%rdi\n\t"
			 "or %0, %%rdi\n\t"
			 "mov $0x33, %%eax\n\t"
			 "mov %1, %%ecx\n\t"
			 "cld\n\t"
			 "addr32 rep stosb"
			 : : "r"(a), "r"(n) : "rax", "rcx", "rdi", "memory");
}

int main(int argc, char **argv)
{
	memset(src, 0x5a, sizeof(src));
	if (argc > 1 && !strcmp(argv[1], "a32")) {
		if (mprotect(area3 + 4096, 4096, PROT_NONE))
			return 2;
		a32_stosb(area3 + 100, 64);
		a32_stosb(area3 + 4096 - 40, 100);
		return 3;
	}
	if (argc > 1) {
		/* backwards: 60 bytes from area2 + 4096 + 59 down to
		 * area2 + 4096, then the page below faults
		 */
		if (mprotect(area2, 4096, PROT_NONE))
			return 2;
		__asm__ volatile("lea area2+4096+59(%%rip), %%rdi\n\t"
				 "mov $0x77, %%eax\n\t"
				 "mov $200, %%ecx\n\t"
				 "std\n\t"
				 "rep stosb"
				 : : : "rax", "rcx", "rdi", "memory");
		return 3;
	}
	if (mprotect(area + 4096, 4096, PROT_NONE))
		return 2;
	__asm__ volatile("lea area+3996(%%rip), %%rdi\n\t"
			 "mov %0, %%rsi\n\t"
			 "mov $256, %%ecx\n\t"
			 "rep movsb"
			 : : "r"(src) : "rcx", "rsi", "rdi", "memory");
	return 3;
}
