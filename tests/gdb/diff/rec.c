// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/diff: recursion with two recursive calls in one frame. */
static volatile int sink;

static int __attribute__((noinline)) fib(int n)
{
	int a, b;

	if (n < 2)
		return n;
	a = fib(n - 1);
	b = fib(n - 2);
	sink = a;
	return a + b;
}

int main(void)
{
	int r = fib(5);

	sink = r;
	return 0;
}
