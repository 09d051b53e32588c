// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/values.sh: a recursion and a loop that print their own
 * arguments and locals, so GDB's `print` in the past can be checked
 * against what the program itself saw.  It ends in a crash.
 */
#include <stdio.h>

static int __attribute__((noinline)) fact(int n)
{
	int r = n <= 1 ? 1 : n * fact(n - 1);

	printf("fact n=%d r=%d\n", n, r);	/* line 12: breakpoint */
	return r;
}

int main(void)
{
	int i, sum = 0;

	/* Unbuffered: the crash would lose buffered lines. */
	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 5; i++) {
		sum += i * i;
		printf("loop i=%d sum=%d\n", i, sum);	/* line 22 */
	}
	/* A crash through a pointer: the history ends here, with no exit
	 * handlers after it.
	 */
	*(volatile int *)(long)(fact(6) - 720) = sum;
	return 0;
}
