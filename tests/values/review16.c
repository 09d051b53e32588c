// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 16's cases: attacks on the software recorder's start (session
 * 16, record/emu_start.c): tasks a constructor makes before main run
 * untraced until main, where they are stopped by a SIGSTOP the recorder
 * sends and then suppresses.  Each mode's constructor (the mode is
 * argv[1], which glibc passes to constructors) sets up what main then
 * looks at; the output must be the same recorded as untraced
 * (tests/values/review16.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *mode = "";
static volatile int go;
static volatile long res[64];
static pthread_t thr[64];
static int pfd[2];
static int efd;

static int is(const char *m)
{
	return !strcmp(mode, m);
}

/* epoll: a thread waiting in epoll_wait (no timeout) for the pipe. */
static void *t_epoll(void *arg)
{
	struct epoll_event ev;
	int n;

	(void)arg;
	n = epoll_wait(efd, &ev, 1, -1);
	res[0] = n < 0 ? -errno : n;
	return NULL;
}

/* sigwait: a thread waiting in sigwaitinfo for SIGUSR1. */
static void *t_sigwait(void *arg)
{
	sigset_t s;
	int n;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	n = sigwaitinfo(&s, NULL);
	res[0] = n < 0 ? -errno : n;
	return NULL;
}

/* read: a thread reading the pipe. */
static void *t_read(void *arg)
{
	char c = 0;
	ssize_t n;

	(void)arg;
	n = read(pfd[0], &c, 1);
	res[0] = n < 0 ? -errno : c;
	return NULL;
}

/* nsleep: a thread in nanosleep of 300 ms. */
static void *t_sleep(void *arg)
{
	struct timespec ts = { 0, 300000000 };
	int n;

	(void)arg;
	n = nanosleep(&ts, NULL);
	res[0] = n < 0 ? -errno : n;
	return NULL;
}

/* spawn: a thread making short threads until main says stop. */
static void *t_quick(void *arg)
{
	return arg;
}

static volatile long made[64];	/* by spawner: threads or children made */

static void *t_spawn(void *arg)
{
	pthread_t q;
	long n = 0;

	while (!go) {
		if (pthread_create(&q, NULL, t_quick, NULL) == 0) {
			pthread_join(q, NULL);
			made[(long)arg] = ++n;
		}
	}
	res[0] = n > 0;
	return NULL;
}

/* forker: a thread forking children that exit at once until main stops it. */
static void *t_forker(void *arg)
{
	long n = 0;
	int st;

	while (!go) {
		pid_t c = fork();

		if (c == 0)
			_exit(3);
		if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 3)
			made[(long)arg] = ++n;
	}
	res[0] = n > 0;
	return NULL;
}

/* many: 50 threads each waiting for main's word, then a sum. */
static void *t_many(void *arg)
{
	long i = (long)arg, x = 0;

	while (!go)
		sched_yield();
	for (long k = 0; k < 200; k++)
		x += k * i;
	res[i] = x;
	return NULL;
}

/* spin: a thread spinning with no system call until main's word. */
static void *t_spin(void *arg)
{
	unsigned long x = 1;

	(void)arg;
	while (!go)
		x = x * 6364136223846793005ul + 1;
	res[0] = 1 + (x & 0);
	return NULL;
}

/*
 * exit: a thread that exits at about the time main starts.  Either may
 * come first; stopped at the start inside the loop, the rest of it is
 * stepped, so it is short (200,000 rounds were 700,000 steps, a minute:
 * the row's 60 s limit killed it when the thread lost the race).
 */
static void *t_exit(void *arg)
{
	for (volatile int i = 0; i < 2000; i++)
		;
	return arg;
}

/* threxec: a constructor thread that execs while main waits. */
static void *t_exec(void *arg)
{
	char *av[] = { "/bin/echo", "threxec", "ran", NULL };

	usleep(20000);
	execve(av[0], av, environ);
	return arg;
}

/*
 * vforkwait: a constructor thread in vfork at main, its child reading
 * the pipe main writes (the parent waits for the child uninterruptibly:
 * a SIGSTOP does not stop it until the child exits).
 */
static void *t_vfork(void *arg)
{
	int st;
	pid_t c;
	char ch = 0;

	c = vfork();
	if (c == 0) {
		if (read(pfd[0], &ch, 1) != 1)
			_exit(1);
		_exit(ch == 'x' ? 6 : 2);
	}
	if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st))
		res[0] = WEXITSTATUS(st);
	return arg;
}

/* ctorsig: a thread alive until the constructor's word. */
static void *t_wait(void *arg)
{
	while (!go)
		sched_yield();
	return arg;
}

static volatile int handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

/* kill: a thread sending SIGUSR1 to the process until main's word. */
static void *t_kill(void *arg)
{
	(void)arg;
	while (!go) {
		kill(getpid(), SIGUSR1);
		sched_yield();
	}
	return NULL;
}

/*
 * restart (main, no constructor): a process-directed SIGUSR1 wakes main
 * in nanosleep (its call returns ERESTART_RESTARTBLOCK inside the
 * kernel), and this thread, unblocking it at once, may take it first:
 * main's call is then restarted, not interrupted.
 */
static void *t_restart(void *arg)
{
	sigset_t s;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	for (int i = 0; i < 30; i++) {
		pthread_sigmask(SIG_BLOCK, &s, NULL);
		kill(getpid(), SIGUSR1);
		pthread_sigmask(SIG_UNBLOCK, &s, NULL);
		usleep(1000);
	}
	go = 1;
	return arg;
}

/* ctorbusy: threads made and joined, one after the other, for ever. */
static void *t_nop(void *arg)
{
	return arg;
}

static void *t_churn(void *arg)
{
	pthread_t t;

	for (;;)
		if (!pthread_create(&t, NULL, t_nop, NULL))
			pthread_join(t, NULL);
	return arg;
}

static void __attribute__((constructor)) r16_ctor(int argc, char **argv)
{
	void *(*fn)(void *) = NULL;
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t s;

	if (argc < 2)
		return;
	mode = argv[1];
	if (pipe(pfd))
		exit(99);
	if (is("epoll")) {
		efd = epoll_create1(0);
		epoll_ctl(efd, EPOLL_CTL_ADD, pfd[0], &ev);
		fn = t_epoll;
	} else if (is("sigwait")) {
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigprocmask(SIG_BLOCK, &s, NULL);
		fn = t_sigwait;
	} else if (is("read")) {
		fn = t_read;
	} else if (is("nsleep")) {
		fn = t_sleep;
	} else if (is("spawn")) {
		fn = t_spawn;
	} else if (is("forker")) {
		fn = t_forker;
	} else if (is("spin")) {
		fn = t_spin;
	} else if (is("exit")) {
		fn = t_exit;
	} else if (is("kill")) {
		signal(SIGUSR1, on_usr1);
		fn = t_kill;
	} else if (is("spawn8") || is("fork8")) {
		for (long i = 0; i < 8; i++)
			pthread_create(&thr[i], NULL,
				       is("spawn8") ? t_spawn : t_forker,
				       (void *)i);
	} else if (is("many")) {
		for (long i = 0; i < 50; i++)
			pthread_create(&thr[i], NULL, t_many, (void *)i);
	} else if (is("cont")) {
		/* A SIGCONT pending (blocked) at main. */
		sigemptyset(&s);
		sigaddset(&s, SIGCONT);
		sigprocmask(SIG_BLOCK, &s, NULL);
		raise(SIGCONT);
		fn = t_sleep;
	} else if (is("spawnp")) {
		char *av[] = { "/bin/true", NULL };
		pid_t c;
		int st;

		if (posix_spawn(&c, "/bin/true", NULL, NULL, av, environ) == 0 &&
		    waitpid(c, &st, 0) == c)
			res[1] = 100 + WEXITSTATUS(st);
	} else if (is("exec")) {
		char *av[] = { "/bin/echo", "exec", "ran", NULL };

		execve(av[0], av, environ);
	} else if (is("ctorsig")) {
		/* A signal to a new thread before its first instruction. */
		signal(SIGUSR1, on_usr1);
		for (int i = 0; i < 20; i++) {
			pthread_create(&thr[i], NULL, t_wait, NULL);
			pthread_kill(thr[i], SIGUSR1);
		}
		go = 1;
		for (int i = 0; i < 20; i++)
			pthread_join(thr[i], NULL);
	} else if (is("threxec")) {
		fn = t_exec;
	} else if (is("vforkwait")) {
		fn = t_vfork;
	} else if (is("vfork")) {
		pid_t c = vfork();
		int st;

		if (c == 0)
			_exit(5);
		if (waitpid(c, &st, 0) == c)
			res[1] = 100 + WEXITSTATUS(st);
	}
	if (fn)
		pthread_create(&thr[0], NULL, fn, NULL);
	/*
	 * ctorsleep, ctorbusy: main is reached after 30 s, the
	 * constructor asleep meanwhile (ctorbusy: with a thread making
	 * threads, each a ptrace event for the recorder, all that time).
	 * SIGTERM to ptrec record before then must end it at once.
	 */
	if (is("ctorbusy"))
		pthread_create(&thr[0], NULL, t_churn, NULL);
	if (is("ctorsleep") || is("ctorbusy"))
		sleep(30);
}

/* A function called after the threads exist (--start-at r16_later). */
__attribute__((noinline)) void r16_later(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	sigset_t s;
	long sum = 0;

	(void)argc;
	(void)argv;
	r16_later();
	if (is("epoll") || is("read") || is("vforkwait")) {
		usleep(100000);
		if (write(pfd[1], "x", 1) != 1)
			return 98;
		pthread_join(thr[0], NULL);
		printf("%s %ld\n", mode, res[0]);
	} else if (is("sigwait")) {
		usleep(100000);
		pthread_kill(thr[0], SIGUSR1);
		pthread_join(thr[0], NULL);
		printf("%s %ld\n", mode, res[0]);
	} else if (is("nsleep") || is("exit")) {
		pthread_join(thr[0], NULL);
		printf("%s %ld\n", mode, res[0]);
	} else if (is("spawn") || is("forker") || is("spin") ||
		   is("kill")) {
		usleep(50000);
		while ((is("spawn") || is("forker")) && !made[0])
			usleep(1000);
		go = 1;
		pthread_join(thr[0], NULL);
		printf("%s %ld\n", mode, res[0]);
	} else if (is("spawn8") || is("fork8")) {
		usleep(50000);
		/* Each has made one (slow under the recorder and load). */
		for (int i = 0; i < 8; i++)
			while (!made[i])
				usleep(1000);
		go = 1;
		for (int i = 0; i < 8; i++)
			pthread_join(thr[i], NULL);
		printf("%s %ld\n", mode, res[0]);
	} else if (is("restart")) {
		signal(SIGUSR1, on_usr1);
		pthread_create(&thr[0], NULL, t_restart, NULL);
		while (!go)
			usleep(3000);
		pthread_join(thr[0], NULL);
		printf("restart %d\n", handled > 0);
	} else if (is("many")) {
		go = 1;
		for (int i = 0; i < 50; i++) {
			pthread_join(thr[i], NULL);
			sum += res[i];
		}
		printf("many %ld\n", sum);
	} else if (is("cont")) {
		sigpending(&s);
		printf("cont pending %d\n", sigismember(&s, SIGCONT));
		pthread_join(thr[0], NULL);
	} else if (is("threxec")) {
		for (;;)
			pause();
	} else if (is("ctorsig")) {
		printf("ctorsig handled %d\n", handled);
	} else if (is("ctorsleep") || is("ctorbusy")) {
		printf("%s main\n", mode);
	} else if (is("spawnp") || is("vfork")) {
		printf("%s %ld\n", mode, res[1]);
	} else {
		return 2;
	}
	return 0;
}
