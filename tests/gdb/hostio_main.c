// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/hostio.sh: crashes in its shared library's hio_crash.  The
 * -DREPLACED build, which replaces it on disk after recording, has another
 * layout: code of another function where main was.
 */
#include <stddef.h>

int hio_crash(int *p);

#ifdef REPLACED
static int hio_main_pad(int x)
{
	__asm__ volatile(".skip 4096, 0x90");
	return x;
}
#endif

int main(void)
{
#ifdef REPLACED
	return hio_main_pad(1) + hio_crash(NULL);
#else
	return hio_crash(NULL);
#endif
}
