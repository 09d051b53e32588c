// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqping [ROUNDS]: two threads pinned to CPU 0 pass a byte back and forth
 * through two pipes, so every round trip is two context switches; prints
 * "ns_per_switch N" (best of 3 runs of ROUNDS round trips).  The kmod
 * benchmark runs it untraced and traced.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int kq_ab[2], kq_ba[2];
static long kq_rounds = 20000;

static void kq_pin(void)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
}

static void *kq_echo(void *arg)
{
	char c;
	long i;

	kq_pin();
	for (i = 0; i < 3 * kq_rounds; i++) {
		if (read(kq_ab[0], &c, 1) != 1 || write(kq_ba[1], &c, 1) != 1)
			exit(1);
	}
	return arg;
}

static uint64_t kq_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t best = UINT64_MAX;
	pthread_t t;
	char c = 'p';
	long i;
	int run;

	if (argc > 1)
		kq_rounds = atol(argv[1]);
	if (kq_rounds <= 0 || pipe(kq_ab) || pipe(kq_ba))
		return 2;
	kq_pin();
	pthread_create(&t, NULL, kq_echo, NULL);
	for (run = 0; run < 3; run++) {
		uint64_t t0 = kq_now_ns(), dt;

		for (i = 0; i < kq_rounds; i++) {
			if (write(kq_ab[1], &c, 1) != 1 ||
			    read(kq_ba[0], &c, 1) != 1)
				return 1;
		}
		dt = kq_now_ns() - t0;
		if (dt < best)
			best = dt;
	}
	pthread_join(t, NULL);
	printf("ns_per_switch %llu\n",
	       (unsigned long long)(best / (2 * (uint64_t)kq_rounds)));
	return 0;
}
