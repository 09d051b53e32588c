// SPDX-License-Identifier: GPL-3.0-or-later
/* Loops and recursion, including calls nested deeper than the 64-entry
 * return-compression stack.
 */
#include <stdio.h>

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Not a tail call: every level returns through its caller. */
__attribute__((noinline)) static int depth(volatile int n)
{
	return n ? depth(n - 1) + 1 : 0;
}

int main(void)
{
	int i, j, s = 0;

	for (i = 0; i < 20; i++)
		for (j = 0; j < i; j++)
			s += (i ^ j) & 3;
	printf("loops %d fib %d depth %d\n", s, fib(12), depth(100));
	return 0;
}
