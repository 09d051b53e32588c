// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb: a program for line stepping (built -O0, not PIE): calls nested
 * in one line, a loop, a branch taken and not taken, one line per
 * statement.  Each line is one line-table row (a do-while rather than a for
 * loop): GDB 13's reverse-step skips a line whose code is split in several
 * rows, such as a for header (docs/gdb.md).
 */
static int sq(int x)
{
	int y = x * x;

	return y;
}

static int add(int a, int b)
{
	int r = a + b;

	return r;
}

int main(void)
{
	int i, s;

	s = 0;

	i = 0;
	do {
		s = add(s, sq(i));
		if (s > 2)
			s -= 1;
		i++;
	} while (i < 3);
	s = add(s, 1);
	s = s * 2;
	return s == 99;
}
