// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The main thread blocks in read() on a pipe that only a second thread
 * writes.  Regression test: the recorder once stepped a blocking SYSCALL
 * and then waited for it without running the thread that would end it.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];

static void *writer(void *arg)
{
	volatile int i, s = 0;

	for (i = 0; i < 2000; i++)
		s += i;
	if (write(fds[1], "x", 1) != 1)
		return NULL;
	return arg;
}

int main(void)
{
	pthread_t t;
	char c = 0;

	if (pipe(fds))
		return 1;
	pthread_create(&t, NULL, writer, NULL);
	if (read(fds[0], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("pipe %c\n", c);
	return c == 'x' ? 0 : 1;
}
