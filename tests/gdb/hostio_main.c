// SPDX-License-Identifier: GPL-3.0-or-later
/* tests/gdb/hostio.sh: crashes in its shared library's hio_crash. */
#include <stddef.h>

int hio_crash(int *p);

int main(void)
{
	return hio_crash(NULL);
}
