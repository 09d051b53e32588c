// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A history that ends inside rep movsb (issue #18, replay/watch_rep.c),
 * for tests/unit/replay/test_watch_rep.c: 256 bytes of 0x5a copied to
 * area + 3996, the last 100 bytes of a page followed by one with no
 * access: the copy faults after 100 iterations (SIGSEGV, the end), and
 * those 100 bytes were stored by no instruction the trace shows.  With an
 * argument, backwards: std; rep stosb of 200 bytes of 0x77 from
 * area2 + 4096 + 59 down, the page below area2 + 4096 with no access:
 * 60 bytes stored, [area2 + 4096, area2 + 4156).  Not PIE: the
 * test takes the addresses from the symbols.
 */
#include <string.h>
#include <sys/mman.h>

char area[2 * 4096] __attribute__((aligned(4096)));
char area2[2 * 4096] __attribute__((aligned(4096)));
static char src[256];

int main(int argc, char **argv)
{
	(void)argv;
	memset(src, 0x5a, sizeof(src));
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
