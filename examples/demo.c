// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * examples/demo: two worker threads sum their share of a table of counters
 * through a lookup table of pointers.  One entry of the lookup table was
 * never filled in, so one worker dies of SIGSEGV.  Record it and walk back
 * from the crash to where the bad pointer came from:
 *
 *	ptrec record -o demo.ptrec -- examples/demo
 *	ptrec replay demo.ptrec
 *	(gdb) backtrace
 *	(gdb) reverse-finish
 *	(gdb) reverse-step
 */
#include <pthread.h>
#include <stdio.h>

#define SLOTS 8

static int counters[SLOTS];
static int *lookup[SLOTS];

static void setup(void)
{
	int i;

	/* Bug: the last slot is never filled in. */
	for (i = 0; i < SLOTS - 1; i++) {
		counters[i] = i * 10;
		lookup[i] = &counters[i];
	}
}

static int read_slot(int i)
{
	int *p = lookup[i];

	return *p;
}

static void *worker(void *arg)
{
	int first = *(int *)arg, sum = 0, i;

	for (i = first; i < first + SLOTS / 2; i++)
		sum += read_slot(i);
	printf("worker %d: sum %d\n", first, sum);
	return NULL;
}

int main(void)
{
	static int starts[2] = { 0, SLOTS / 2 };
	pthread_t t[2];
	int i;

	setup();
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &starts[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
