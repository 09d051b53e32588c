// SPDX-License-Identifier: GPL-3.0-or-later
/* A crash inside code inlined into its caller (tests/gdb/plugin.sh), built
 * -O2 -g.  The store through a bad pointer is, by the argument count:
 * none, the first instruction of the inlined first(); one, the first of
 * after()'s second range, once get() has returned; two, in the middle of
 * middle().  Where an inlined call's code starts at the stop's PC, GDB
 * hides its frame when the program stops there (live or record full): the
 * caller is #0, at the call's line; in the middle the inlined function is.
 */
static volatile int sink;
static int *volatile bad = (int *)16;

static int __attribute__((noinline)) get(int v)
{
	sink = v;
	return v + 1;
}

static inline __attribute__((always_inline)) void first(int *p)
{
	p[0] = 5;
}

static inline __attribute__((always_inline)) void after(int *p, int v)
{
	int w = get(v);

	p[1] = w;
}

static inline __attribute__((always_inline)) void middle(int *p, int v)
{
	sink = v;
	p[2] = v + sink;
}

static void __attribute__((noinline)) outer(int *p, int n, int how)
{
	int v = 0;

	for (int i = 0; i < n; i++)
		v += i * sink;
	sink = v;
	if (how == 0)
		first(p);
	else if (how == 1)
		after(p, v + 1);
	else
		middle(p, v + 1);
	sink = 2;
}

int main(int argc, char **argv)
{
	(void)argv;
	outer(bad, 4, argc - 1);
	return 0;
}
