// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/run.sh: the plugin's watch, rwatch and awatch (which create
 * watchpoints through GDB's Python API, and -l as the location GDB itself
 * watches) against GDB's own commands on this program run live: bit-fields
 * through a structure and a pointer, a whole structure, an array element,
 * a condition.  Every stop and value must be the same.
 */
struct s {
	int a : 3;
	int b : 5;
	long n;
};

struct s g, *pg = &g;
long arr[4];
volatile long sink;

int main(void)
{
	int i;

	g.a = 1;
	g.b = 2;
	g.a = 3;
	for (i = 0; i < 4; i++) {
		arr[i] = i * 10;
		g.n += arr[i];
	}
	g.b = 5;
	sink = arr[2];
	g.a = 2;
	return g.a + (int)sink;
}
