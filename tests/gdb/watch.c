// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * tests/gdb/watch.sh: every kind of write a watchpoint must find in the
 * past (issue #18).  A global changed in a loop, a heap field written
 * through two pointers, a stack variable written by a callee through a
 * pointer, a buffer filled by read(2), a variable another thread writes,
 * a store and a load through a pointer the history does not keep.
 * Each part is a function, so GDB scripts can stop before and after it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
	long key;
	long val;
};

int counter;			/* the loop's */
long shared;			/* the other thread's */
char buf[16];			/* read(2)'s */
long slots[2];			/* the unknown store's */
long sink;
/* Where the heap field and the stack variable were, for GDB at the end
 * (the test watches them by address from there).
 */
long *heap_field;
int *stack_var;

static void __attribute__((noinline)) loop(void)
{
	int i;

	for (i = 1; i <= 4; i++)
		counter += i;
}

static void __attribute__((noinline)) heap(void)
{
	struct node *n = malloc(sizeof(*n));
	struct node *p = n, *q = n;

	heap_field = &n->val;
	p->val = 11;
	q->val = 22;
	sink = n->val;
	free(n);
}

static void __attribute__((noinline)) set_through(int *where, int v)
{
	*where = v;
}

static void __attribute__((noinline)) stack(void)
{
	volatile int local = 5;

	stack_var = (int *)&local;
	set_through((int *)&local, 7);
	sink = local;
}

static void __attribute__((noinline)) reader(void)
{
	int fds[2];

	if (pipe(fds))
		abort();
	if (write(fds[1], "watchpoint!", 11) != 11)
		abort();
	if (read(fds[0], buf, 11) != 11)
		abort();
	close(fds[0]);
	close(fds[1]);
}

static void *worker(void *arg)
{
	(void)arg;
	shared = 42;
	return NULL;
}

static void __attribute__((noinline)) threads(void)
{
	pthread_t t;

	shared = 1;
	if (pthread_create(&t, NULL, worker, NULL))
		abort();
	pthread_join(t, NULL);
}

/*
 * A store and a load through a pointer chosen by a value the history does
 * not keep (rdtsc's top bit, 0, gone from registers and memory before
 * the end; getpid()'s result is recorded): not recoverable.
 */
static void __attribute__((noinline)) unknown(void)
{
	long *volatile p;
	volatile long pick = (long)(__builtin_ia32_rdtsc() >> 63);

	p = &slots[pick];
	*p = 99;
	sink = *p;
	pick = 0;
	p = NULL;
}

int main(void)
{
	loop();
	heap();
	stack();
	reader();
	threads();
	unknown();
	return counter == 10 && shared == 42 ? 0 : 1;
}
