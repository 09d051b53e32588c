// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb: a recursion with two recursive calls in one frame, for
 * reverse-finish (GDB 13's own stops at the entry of the latest recursive
 * call, not at the call of the selected frame).
 */
static int __attribute__((noinline)) depth(int n)
{
	int a, b;

	if (n == 0)
		return 0;
	a = depth(n - 1);
	b = n > 2 ? depth(n - 3) : 0;
	return a + b + 1;
}

int main(void)
{
	return depth(5) == 1000;
}
