// SPDX-License-Identifier: GPL-3.0-or-later
/* Calls through function pointers and a switch compiled to a jump table. */
#include <stdio.h>

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

static int (*const ops[])(int, int) = { add, sub, mul };

__attribute__((noinline)) static int sw(int k)
{
	switch (k) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 35;
	case 3: return 47;
	case 4: return 59;
	case 5: return 61;
	case 6: return 73;
	case 7: return 85;
	case 8: return 97;
	default: return -1;
	}
}

int main(void)
{
	int i, s = 0;

	for (i = 0; i < 30; i++)
		s += ops[i % 3](s, i) + sw(i % 10);
	printf("indirect %d\n", s);
	return 0;
}
