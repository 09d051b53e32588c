// SPDX-License-Identifier: GPL-3.0-or-later
/* setjmp and longjmp out of a three-deep call chain. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

__attribute__((noinline)) static void c3(int x)
{
	if (x > 2)
		longjmp(env, x);
}

__attribute__((noinline)) static void c2(int x) { c3(x + 1); }
__attribute__((noinline)) static void c1(int x) { c2(x + 1); }

int main(void)
{
	int r = setjmp(env);

	if (!r)
		c1(1);
	printf("jmp %d\n", r);
	return r == 3 ? 0 : 1;
}
