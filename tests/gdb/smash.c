// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A stack smash for tests/gdb/values.sh: victim() overflows its buffer over
 * the rbp it saved (main's), not its return address, then crashes; main's
 * stack pointer before the call is not known from the end (alloca).  GDB's
 * unwinder reads main's rbp from the smashed slot, so main's CFA is
 * 0x4141414141414151: a debugger's view of a corrupted stack, which must
 * not become a value of rbp or rsp at a position in main's history.
 */
#include <alloca.h>
#include <string.h>

/* buf[8] at -8(%rbp): 16 bytes overwrite the saved rbp, not the return
 * address; then a crash.
 */
__attribute__((noinline)) void victim(const char *src)
{
	char buf[8];

	memcpy(buf, src, 16);
	*(volatile int *)0 = buf[0];
}

int main(int argc, char **argv)
{
	char *p = alloca(argc * 32);

	(void)argv;
	memset(p, 0x41, argc * 32);
	victim(p);
	return 0;
}
