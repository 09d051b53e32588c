// SPDX-License-Identifier: GPL-3.0-or-later
/* Four threads increment a counter under a mutex. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < 50; i++) {
		pthread_mutex_lock(&mu);
		counter++;
		pthread_mutex_unlock(&mu);
	}
	return arg;
}

int main(void)
{
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("threads %d\n", counter);
	return counter == 200 ? 0 : 1;
}
