// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/diff: an inlined function (outer) that calls a function that
 * is not inlined (helper -> leaf), for the unwinder's frame levels: GDB
 * counts inline frames, the recorded call stack does not.
 */
static volatile int sink;

static int __attribute__((noinline)) leaf(int x)
{
	sink = x;
	return x * 3;
}

static int __attribute__((noinline)) helper(int x)
{
	int r = leaf(x + 1);

	return r + 2;
}

static inline __attribute__((always_inline)) int outer(int x)
{
	int r = helper(x);

	sink = r;
	return r - 1;
}

static int __attribute__((noinline)) caller(int x)
{
	int a = outer(x);
	int b = outer(a);

	return a + b;
}

int main(void)
{
	int t = 0;

	for (int i = 0; i < 2; i++)
		t += caller(i);
	sink = t;
	return 0;
}
