// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqexit LOG [ROUNDS]: ROUNDS times, fork a child of two threads, one on
 * each CPU, that spin until both run and then end together: the main
 * thread calls exit(0) (exit_group) while the other spins, so both threads
 * are in do_exit() at once on two CPUs (the PROCESS_EXIT race; with
 * kqselftest exit_stall=kqexit it happens every time).  LOG gets "child
 * PID" per child; the parent checks each exited with status 0.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int kq_running;

static void kq_pin(int cpu)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
}

static void *kq_spinner(void *arg)
{
	(void)arg;
	kq_pin(1);
	atomic_fetch_add(&kq_running, 1);
	for (;;)
		;
	return NULL;
}

static void kq_child(void)
{
	pthread_t t;

	kq_pin(0);
	if (pthread_create(&t, NULL, kq_spinner, NULL))
		_exit(3);
	while (!atomic_load(&kq_running))
		;
	exit(0);
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 10, i, status, bad = 0;
	FILE *log;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: kqexit LOG [ROUNDS]\n");
		return 2;
	}
	log = fopen(argv[1], "w");
	if (!log) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		kq_pin(i % 2);	/* the parent moves between the CPUs */
		fflush(log);
		pid = fork();
		if (pid < 0) {
			perror("kqexit: fork");
			return 1;
		}
		if (!pid)
			kq_child();
		fprintf(log, "child %ld\n", (long)pid);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "kqexit: child %ld: status 0x%x\n",
				(long)pid, status);
			bad = 1;
		}
	}
	fclose(log);
	return bad;
}
