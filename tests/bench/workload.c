// SPDX-License-Identifier: GPL-3.0-or-later
/* A static, deterministic workload for the recorder benchmark: calls,
 * returns, conditional and indirect branches, a few system calls.
 */
#include <unistd.h>

static int leaf(int x)
{
	return x & 1 ? x * 3 + 1 : x / 2;
}

static int (*volatile fp)(int) = leaf;

int main(void)
{
	volatile long sum = 0;
	int i, j, n;

	for (i = 1; i < 600; i++) {
		for (n = i, j = 0; n != 1 && j < 40; j++)
			n = fp(n);
		sum += j;
		if (i % 100 == 0 && write(1, "", 0) < 0)
			return 1;
	}
	return sum == 0;
}
