/* A thread other than main execs argv[1]: the kernel ends every other
 * thread, main's exit being part of the exec, not the program's end.
 */
#include <pthread.h>
#include <unistd.h>

static void *run(void *arg)
{
	char *prog = arg;

	execl(prog, prog, (char *)NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		return 2;
	pthread_create(&t, NULL, run, argv[1]);
	pthread_join(t, NULL);
	return 1;
}
