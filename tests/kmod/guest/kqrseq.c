// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqrseq LOG: its pid ("pid N"), then threads that register rseq areas (glibc does it for every
 * thread it starts) and write each area's address to LOG, as glibc
 * places it (the thread pointer + __rseq_offset, glibc 2.35), one
 * "rseq ADDR cpu N" line per thread.  The kmod recorder's snapshot must
 * list every one of them as a complete list (issue #17: its seccomp
 * filter stops every rseq call), also the area of a thread that ended
 * long before the recording did (on a stack of its own, so no later
 * thread has that area; its line says "early"); cpu N >= 0 shows the
 * registration still succeeds under the filter (-2: glibc's "failed").
 * Then the main thread asks for two more areas by the other ABIs' rseq
 * numbers (i386's through int 0x80, x32's): the kernel refuses both (the
 * thread has an area: EINVAL, or ENOSYS without x32) without reading
 * them, but a filter that let such a call through unseen would miss a
 * registration that succeeds; their addresses come as "abi ADDR" lines,
 * to be listed too.  Last a vfork child, which shares the memory and has
 * no area (CLONE_VM), registers one in it (the kernel writes it there
 * until the child exits: listed, "vfork ADDR ret 0"), and a fork child
 * asks for one in its own copy (the kernel refuses, and another process's
 * memory is none of the list's business: "fork ADDR", not listed).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KQ_LIVE 3

static FILE *kq_log;
static pthread_mutex_t kq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t kq_bar;

static void kq_area(const char *tag)
{
	struct rseq *r = (struct rseq *)((char *)__builtin_thread_pointer() +
					 __rseq_offset);

	pthread_mutex_lock(&kq_lock);
	fprintf(kq_log, "rseq %p cpu %d%s\n", (void *)r,
		(int)__atomic_load_n(&r->cpu_id, __ATOMIC_RELAXED), tag);
	fflush(kq_log);
	pthread_mutex_unlock(&kq_lock);
}

static void *kq_early(void *a)
{
	kq_area(" early");
	return a;
}

/* alive together, so each has its own area */
static void *kq_live(void *a)
{
	kq_area("");
	pthread_barrier_wait(&kq_bar);
	return a;
}

#define KQ_SIG		0x53053053
#define KQ_AREA_I386	0x10000ul
#define KQ_AREA_X32	0x20000ul

static long kq_rseq_i386(unsigned long area)
{
	long ret = 386;	/* i386's rseq */

	__asm__ volatile("int $0x80"
			 : "+a"(ret)
			 : "b"(area), "c"(32), "d"(0), "S"(KQ_SIG)
			 : "r8", "r9", "r10", "r11", "memory", "cc");
	return ret;
}

static long kq_rseq_x32(unsigned long area)
{
	long ret = 0x40000000 | 334;	/* __X32_SYSCALL_BIT | rseq */
	register long r10 __asm__("r10") = KQ_SIG;

	__asm__ volatile("syscall"
			 : "+a"(ret)
			 : "D"(area), "S"(32), "d"(0), "r"(r10)
			 : "rcx", "r11", "memory", "cc");
	return ret;
}

static struct rseq kq_vf_area __attribute__((aligned(32)));
static struct rseq kq_f_area __attribute__((aligned(32)));

/* rseq by a vfork child and by a fork child, each waited for */
static void kq_children(void)
{
	volatile long ret = -1;
	pid_t p;

	p = vfork();
	if (!p) {
		ret = syscall(SYS_rseq, &kq_vf_area, 32, 0, KQ_SIG);
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
	fprintf(kq_log, "vfork %p ret %ld\n", (void *)&kq_vf_area, ret);
	p = fork();
	if (!p) {
		syscall(SYS_rseq, &kq_f_area, 32, 0, KQ_SIG);
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
	fprintf(kq_log, "fork %p\n", (void *)&kq_f_area);
}

int main(int argc, char **argv)
{
	static char stack[256 * 1024] __attribute__((aligned(4096)));
	pthread_t t[KQ_LIVE + 1];
	pthread_attr_t at;
	int i;

	if (argc != 2 || !(kq_log = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: kqrseq LOG\n");
		return 2;
	}
	fprintf(kq_log, "pid %d\n", (int)getpid());
	if (!__rseq_size) {
		fprintf(stderr, "kqrseq: glibc registered no rseq area\n");
		return 1;
	}
	kq_area("");
	/* one that is gone before the others start */
	if (pthread_attr_init(&at) ||
	    pthread_attr_setstack(&at, stack, sizeof(stack)) ||
	    pthread_create(&t[0], &at, kq_early, NULL) ||
	    pthread_join(t[0], NULL))
		return 1;
	pthread_barrier_init(&kq_bar, NULL, KQ_LIVE);
	for (i = 1; i <= KQ_LIVE; i++)
		if (pthread_create(&t[i], NULL, kq_live, NULL))
			return 1;
	for (i = 1; i <= KQ_LIVE; i++)
		pthread_join(t[i], NULL);
	fprintf(kq_log, "abi %#lx ret %ld\n", KQ_AREA_I386,
		kq_rseq_i386(KQ_AREA_I386));
	fprintf(kq_log, "abi %#lx ret %ld\n", KQ_AREA_X32,
		kq_rseq_x32(KQ_AREA_X32));
	fflush(kq_log);
	kq_children();
	fclose(kq_log);
	return 0;
}
