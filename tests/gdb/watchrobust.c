// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel's write at a thread's exit into its robust list
 * (tests/gdb/watchgap.sh, replay/watch_exit.c): the worker locks a robust
 * mutex and exits holding it; the kernel's exit_robust_list() finds the
 * mutex on the list glibc registered (set_robust_list) and sets
 * FUTEX_OWNER_DIED in its lock word, which no instruction writes.  main
 * joins the worker, prints the lock word's address, its value then and
 * the worker's tid, and exits 0 when the next lock says EOWNERDEAD.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m;
static volatile pid_t worker_tid;

static void *worker(void *arg)
{
	worker_tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&m);
	return arg;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_t t;
	int after;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&m, &a);
	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	pthread_join(t, NULL);
	after = *(volatile int *)&m.__data.__lock;
	printf("lock %p %#x tid %d\n", (void *)&m.__data.__lock,
	       (unsigned int)after, (int)worker_tid);
	return pthread_mutex_lock(&m) == EOWNERDEAD ? 0 : 1;
}
