// SPDX-License-Identifier: GPL-3.0-or-later
/* Library A of dl.c. */
int dl_value(int x);
int dl_value(int x)
{
	return x * 2 + 1;
}
