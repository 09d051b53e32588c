// SPDX-License-Identifier: GPL-3.0-or-later
/* Loops and recursion. */
#include <stdio.h>

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	int i, j, s = 0;

	for (i = 0; i < 20; i++)
		for (j = 0; j < i; j++)
			s += (i ^ j) & 3;
	printf("loops %d fib %d\n", s, fib(12));
	return 0;
}
