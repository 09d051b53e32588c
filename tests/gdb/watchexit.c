// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel's write at a thread's exit (tests/gdb/watchgap.sh): glibc's
 * pthread_create passes CLONE_CHILD_CLEARTID with struct pthread's tid
 * word, which the kernel sets to 0 when the thread exits (exit(2), after
 * its last instruction) and pthread_join waits on.  No instruction of the
 * program writes that word after the thread starts, yet it changes.  The
 * word is found by looking for the thread's tid in struct pthread (the
 * pthread_t); main prints its address and the worker's tid, which the
 * word held until the exit (pthread_join then stores -1 there, a store
 * the history shows), and exits 0 when it found it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile pid_t worker_tid;
static volatile int release;

static void *worker(void *arg)
{
	worker_tid = (pid_t)syscall(SYS_gettid);
	while (!release)
		;
	return arg;
}

int main(void)
{
	volatile int *tidw = NULL;
	pthread_t t;
	int *q;

	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	while (!worker_tid)
		;
	for (q = (int *)t; q < (int *)t + 512; q++)
		if (*q == worker_tid) {
			tidw = q;
			break;
		}
	release = 1;
	pthread_join(t, NULL);
	printf("tidw %p %d tid %d\n", (void *)tidw, tidw ? *tidw : -1,
	       (int)worker_tid);
	return tidw ? 0 : 1;
}
