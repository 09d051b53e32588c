// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb: a callback from libc (qsort -> qsort_r -> msort_with_tmp,
 * partly inlined, -> cmp): the backtrace from cmp must reach main.
 */
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int v[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };

	qsort(v, 8, sizeof(v[0]), cmp);
	return v[0] != 1;
}
