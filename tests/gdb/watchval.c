// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/watch.sh: a single-threaded loop whose stores the recovery
 * engine can follow (globals only, addressed from the PC, values computed
 * from the previous one), so GDB shows a watchpoint's old and new values
 * in the past: total goes 1, 4, 13, 40, 121, 364.
 */
long total;
int step;

int main(void)
{
	total = 1;
	for (step = 0; step < 5; step++)
		total = total * 3 + 1;
	return (int)(total & 1);
}
