// SPDX-License-Identifier: GPL-3.0-or-later
/* Dies of SIGSEGV: the fault must be the last event of the recording. */
#include <stdio.h>

/* volatile: the compiler must not drop or fold the faulting store. */
static int *volatile target;

__attribute__((noinline)) static void crash(int *p)
{
	*(volatile int *)p = 42;
}

int main(void)
{
	puts("segv: about to crash");
	fflush(stdout);
	crash(target);
	return 0;
}
