/* Three threads that run until killed (one spins, two sleep) and a main
 * thread that joins them; argv[1], when given, is created once all run:
 * the kmod recorder's snapshot where recording stops early, every thread.
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static volatile unsigned long spins;
static volatile int running;

static void *sleeper(void *arg)
{
	(void)arg;
	__sync_fetch_and_add(&running, 1);
	for (;;)
		usleep(1000);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	__sync_fetch_and_add(&running, 1);
	for (;;)
		spins++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, sleeper, NULL);
	pthread_create(&t[2], NULL, spinner, NULL);
	while (running < 3)
		usleep(1000);
	if (argc > 1)
		close(open(argv[1], O_WRONLY | O_CREAT, 0644));
	pthread_join(t[0], NULL);
	return 0;
}
