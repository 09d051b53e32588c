// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Saved registers overwritten after they were saved, for
 * tests/gdb/values.sh (docs/gdb.md, "Values in outer frames"): the frames
 * of GDB's backtrace must not be unwound through a slot whose saved
 * register a store replaced since.  Each function keeps a `mark` local
 * that it prints ("mark FUNC VALUE") and never changes, so GDB's `print
 * mark` in any of its frames is checked against the program's own
 * output (tests/gdb/valwalk.py, VALWALK_PRINTED); frame ids and the
 * registers GDB unwinds are checked against the ground truth.  main's
 * stack pointer is not known from the end (alloca of a size only the
 * return of getpid() gives), so
 * only the frames' chain can give main's frame; the forged rbp points
 * into that alloca buffer (0x41 bytes), where main's mark read from a
 * frame based at the forged rbp is 0x4141414141414141.  argv[1] picks:
 *
 *   ptr  mid() passes the slot where it saved main's rbp to evil(),
 *        which overwrites it; mid() then crashes (main's rbp is read
 *        from a slot a callee rewrote after the save).
 *   ret  as ptr, but mid() returns: main's rbp is now the forged one,
 *        and main calls crash() (main's rbp, saved by crash(), is the
 *        register main really has: its frame is not where rbp says).
 *   sig  a signal handler rewrites the slot where mid() saved main's
 *        rbp (through a global pointer), then mid() crashes.
 *   jmp  mid() calls deep(), which longjmps back into mid() past the
 *        frames between; then evil() rewrites mid()'s slot and mid()
 *        crashes.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <alloca.h>
#include <unistd.h>

static long forged;		/* the rbp evil() writes */
static long *volatile target;	/* the slot the handler rewrites */
static jmp_buf env;

static __attribute__((noinline)) void evil(long *slot)
{
	volatile long mark = 0x6576696c;

	printf("mark evil %ld\n", (long)mark);
	*slot = forged;
}

/* No call in it: the slot where it saved main's rbp is the snapshot's. */
static __attribute__((noinline)) void crash(void)
{
	*(volatile int *)0 = 0;
}

static void handler(int sig)
{
	volatile long mark = 0x68616e64;

	(void)sig;
	*target = forged;
	(void)mark;
}

static __attribute__((noinline)) void deep(int n)
{
	volatile long mark = 0x64656570;

	if (n)
		deep(n - 1);
	longjmp(env, (int)mark);
}

/* Its saved rbp (main's) sits at __builtin_frame_address(0). */
static __attribute__((noinline)) void mid(char mode)
{
	volatile long mark = 0x6d6964;
	long *slot = __builtin_frame_address(0);

	printf("mark mid %ld\n", (long)mark);
	if (mode == 'p' || mode == 'r') {
		evil(slot);
	} else if (mode == 's') {
		target = slot;
		signal(SIGUSR1, handler);
		raise(SIGUSR1);
	} else if (mode == 'j') {
		if (!setjmp(env))
			deep(3);
		evil(slot);
	}
	if (mode != 'r')
		*(volatile int *)0 = (int)mark;
}

int main(int argc, char **argv)
{
	volatile long mark = 0x6d61696e;
	char *p = alloca(256 + (getpid() & 0x70));
	char mode = argc > 1 ? argv[1][0] : 'p';

	memset(p, 0x41, 256);
	forged = (long)(p + 128);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("mark main %ld\n", (long)mark);
	mid(mode);
	crash();
	return 0;
}
