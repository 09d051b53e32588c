// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqwork LOG [ROUNDS [SPIN_US]]: the traced workload of the kmod suite.
 * Four threads each, ROUNDS times, spin SPIN_US microseconds, sleep 1 ms
 * and move to the other CPU (sched_setaffinity), so the module sees
 * sleeps, preemption and migration.  The main thread maps known regions
 * (anonymous, a file at an offset, its own executable) and unmaps one; LOG
 * gets one line per thread ("tid TID") and per mapping ("mmap START LEN
 * PROT FLAGS PGOFF PATH", "munmap START LEN") for the host to compare with
 * the sideband, and what the thread knows of its first registers:
 * "start ENTRY RSP" (the ELF entry from AT_ENTRY and the stack pointer
 * there, argv - 8, at argc) and per worker "stack TID LO HI" (its stack,
 * pthread_getattr_np()), against which the host checks the REGS start
 * records (kqcheck_log.c kq_check_start_regs()).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define KQ_THREADS 4

static FILE *kq_log;
static pthread_mutex_t kq_mu = PTHREAD_MUTEX_INITIALIZER;
static int kq_rounds = 20;
static long kq_spin_us = 2000;
static volatile uint64_t kq_sink;

static uint64_t kq_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void __attribute__((format(printf, 1, 2)))
kq_logf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&kq_mu);
	vfprintf(kq_log, fmt, ap);
	va_end(ap);
	fflush(kq_log);
	pthread_mutex_unlock(&kq_mu);
}

static void *kq_worker(void *arg)
{
	long id = (long)arg;
	pthread_attr_t a;
	size_t size;
	void *lo;
	int r;

	kq_logf("tid %ld\n", (long)syscall(SYS_gettid));
	if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &size))
			kq_logf("stack %ld 0x%lx 0x%lx\n",
				(long)syscall(SYS_gettid), (unsigned long)lo,
				(unsigned long)lo + size);
		pthread_attr_destroy(&a);
	}
	for (r = 0; r < kq_rounds; r++) {
		uint64_t end = kq_now_us() + (uint64_t)kq_spin_us;
		struct timespec ms = { 0, 1000000 };
		cpu_set_t cpus;

		while (kq_now_us() < end)
			kq_sink++;
		nanosleep(&ms, NULL);
		CPU_ZERO(&cpus);
		CPU_SET((int)((id + r) % 2), &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	return NULL;
}

static void *kq_map(size_t len, int prot, int flags, int fd, off_t off,
		    const char *path)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED) {
		perror("kqwork: mmap");
		exit(1);
	}
	kq_logf("mmap 0x%lx %zu %d 0x%x %ld %s\n", (unsigned long)p, len,
		prot, flags, (long)off, path);
	return p;
}

int main(int argc, char **argv)
{
	pthread_t t[KQ_THREADS];
	char self[4096], buf[8192];
	const char *dat = "/tmp/kqwork.dat";
	ssize_t n;
	void *anon;
	long i;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: kqwork LOG [ROUNDS [SPIN_US]]\n");
		return 2;
	}
	kq_log = fopen(argv[1], "w");
	if (!kq_log) {
		perror(argv[1]);
		return 1;
	}
	if (argc > 2)
		kq_rounds = atoi(argv[2]);
	if (argc > 3)
		kq_spin_us = atol(argv[3]);
	kq_logf("pid %ld\n", (long)getpid());
	kq_logf("start 0x%lx 0x%lx\n", getauxval(AT_ENTRY),
		(unsigned long)argv - 8);

	anon = kq_map(65536, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, "");
	memset(anon, 1, 65536);
	memset(buf, 'k', sizeof(buf));
	fd = open(dat, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
		perror(dat);
		return 1;
	}
	kq_map(4096, PROT_READ, MAP_SHARED, fd, 4096, dat);
	close(fd);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[n] = 0;
	fd = open(self, O_RDONLY);
	if (fd < 0) {
		perror(self);
		return 1;
	}
	kq_map(4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0, self);
	close(fd);

	for (i = 0; i < KQ_THREADS; i++)
		pthread_create(&t[i], NULL, kq_worker, (void *)i);
	for (i = 0; i < KQ_THREADS; i++)
		pthread_join(t[i], NULL);

	munmap(anon, 65536);
	kq_logf("munmap 0x%lx %d\n", (unsigned long)anon, 65536);
	fclose(kq_log);
	return 0;
}
