/* Several threads; one crashes through a bad pointer while the others wait
 * in a system call (pthread_join, a condition variable). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int shared_total = 0;
static int ready;

struct job { int id; int *target; };

static void *waiter(void *arg)
{
	struct job *j = arg;

	pthread_mutex_lock(&mu);
	shared_total += j->id;
	ready++;
	while (1)
		pthread_cond_wait(&cv, &mu);
	return NULL;
}

static int crunch(struct job *j)
{
	int local_id = j->id * 10;

	*j->target = local_id;	/* target is NULL: crash */
	return local_id;
}

static void *crasher(void *arg)
{
	struct job *j = arg;

	for (;;) {
		pthread_mutex_lock(&mu);
		if (ready == 2) {
			pthread_mutex_unlock(&mu);
			break;
		}
		pthread_mutex_unlock(&mu);
		usleep(1000);
	}
	/*
	 * A last system call, so its registers at the crash (r10, r11) are
	 * the same whether or not the waiters were ready at its first look
	 * (then its first pthread_mutex_unlock, bound lazily, left them).
	 */
	usleep(1000);
	return (void *)(long)crunch(j);
}

int main(void)
{
	static struct job jobs[3] = { { 1, NULL }, { 2, NULL }, { 3, NULL } };
	pthread_t t[3];

	pthread_create(&t[0], NULL, waiter, &jobs[0]);
	pthread_create(&t[1], NULL, waiter, &jobs[1]);
	pthread_create(&t[2], NULL, crasher, &jobs[2]);
	pthread_join(t[2], NULL);
	return 0;
}
