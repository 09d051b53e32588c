/* Takes N signals (argv[1], default 10000) through a handler and writes
 * the nanoseconds that took to argv[2]: the cost of ptrace stops at
 * signals (the kmod recorder traces its program for its snapshot).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, i;
	struct timespec a, b;
	FILE *f;

	signal(SIGUSR1, on_usr1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		raise(SIGUSR1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (argc > 2 && (f = fopen(argv[2], "w"))) {
		fprintf(f, "%lld\n", (long long)(b.tv_sec - a.tv_sec) *
			1000000000ll + (b.tv_nsec - a.tv_nsec));
		fclose(f);
	}
	return got == n ? 0 : 1;
}
