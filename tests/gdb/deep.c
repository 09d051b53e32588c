// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/values.sh: a recursion 1,000 calls deep that prints at its
 * bottom, so a stop there publishes hundreds of frames whose CFAs the
 * server decides at once (docs/gdb.md, "Values in outer frames").
 */
#include <stdio.h>

static int __attribute__((noinline)) down(int n)
{
	int r;

	if (n == 0) {
		printf("bottom\n");	/* line 13: breakpoint */
		return 0;
	}
	r = down(n - 1) + 1;
	if (n % 100 == 0)
		printf("n=%d r=%d\n", n, r);
	return r;
}

int main(void)
{
	return down(1000) != 1000;
}
