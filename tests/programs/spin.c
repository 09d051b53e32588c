// SPDX-License-Identifier: GPL-3.0-or-later
/* Runs until killed, mostly in user space: for attach and interrupt tests.
 * Prints "ready" once started so tests know when to attach.
 */
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long counter;

int main(void)
{
	unsigned long i;

	puts("ready");
	fflush(stdout);
	for (;;) {
		for (i = 0; i < 100000; i++)
			counter += i & 7;
		usleep(1000);
	}
	return 0;
}
