// SPDX-License-Identifier: GPL-3.0-or-later
/* Library B of dl.c: same size as A, different code. */
int dl_value(int x);
int dl_value(int x)
{
	return x * 3 - 1;
}
