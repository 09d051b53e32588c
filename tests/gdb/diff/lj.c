// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/diff: longjmp out of two frames back into main. */
#include <setjmp.h>

static jmp_buf env;
static volatile int sink;

static void __attribute__((noinline)) deep(int n)
{
	sink = n;
	if (n == 3)
		longjmp(env, n);
	sink = n + 1;
}

static void __attribute__((noinline)) mid(int n)
{
	deep(n);
	sink = n;
}

int main(void)
{
	int i, got = 0;

	for (i = 0; i < 5; i++) {
		int v = setjmp(env);

		if (v) {
			got = v;
			break;
		}
		mid(i);
	}
	sink = got;
	return 0;
}
