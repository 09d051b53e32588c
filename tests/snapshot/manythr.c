/* argv[1] threads (default 300) that sleep, more than the kmod recorder's
 * tracer keeps (REC_SNAP_TRACER_MAX); then the last one created crashes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int *nowhere;

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *crasher(void *arg)
{
	(void)arg;
	usleep(100000);
	return (void *)(long)*nowhere;	/* SIGSEGV */
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 300;
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 65536);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, &a, sleeper, NULL))
			return 1;
	pthread_create(&t, &a, crasher, NULL);
	pthread_join(t, NULL);
	return 0;
}
