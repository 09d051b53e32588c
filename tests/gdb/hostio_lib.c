// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The shared library of tests/gdb/hostio.sh, in two builds: the one the
 * program runs with when recorded, and (-DREPLACED) another layout, with
 * no hio_crash at all, that replaces it on disk afterwards.  GDB must
 * still name hio_crash at the recorded crash: it reads the library from
 * the bundle (Host I/O), not the replaced file, where other functions sit
 * at those addresses whatever order the compiler puts them in.
 */
#ifdef REPLACED
int hio_replaced_pad(int x);
int hio_replaced(int *p);

int hio_replaced_pad(int x)
{
	__asm__ volatile(".skip 8192, 0x90");
	return x + 1;
}

int hio_replaced(int *p)
{
	return *p + 2;
}
#else
int hio_crash(int *p);

int hio_crash(int *p)
{
	return *p + 1;		/* p is NULL: the recording ends here */
}
#endif
