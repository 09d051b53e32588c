// SPDX-License-Identifier: GPL-3.0-or-later
/* The GDB latency benchmark's program (scripts/bench-gdb): a loop that
 * calls step() forever, -O0 -g, static, not PIE.  It is recorded from
 * step()'s entry up to a later call of step(), so that copies of that
 * stream joined end to end are one consistent, longer history.
 */
static volatile int sink;

static int leaf(int x)
{
	int y = x * 3;

	return y + 1;
}

static int step(int i)
{
	int a = leaf(i);
	int b = leaf(a);

	return a + b;
}

int main(void)
{
	int i;

	for (i = 0;; i++)
		sink += step(i);
}
