// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqexec PROG [ARGS]: execs PROG from three calls deep (main ->
 * kq_exec_outer -> kq_exec_mid -> kq_exec_inner -> execv), so that the old
 * image's state the kmod recorder takes at the execve's entry (`ptrec core
 * --exec 0`, issue #16) has frames of its own for GDB on the host to show.
 * The calls are kept (noinline, work after each return: no tail calls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int kq_sink;

static __attribute__((noinline)) void kq_exec_inner(char **argv)
{
	execv(argv[0], argv);
	perror(argv[0]);
	exit(127);
}

static __attribute__((noinline)) void kq_exec_mid(char **argv)
{
	kq_exec_inner(argv);
	kq_sink++;
}

static __attribute__((noinline)) void kq_exec_outer(char **argv)
{
	kq_exec_mid(argv);
	kq_sink++;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: kqexec PROG [ARGS]\n");
		return 2;
	}
	kq_exec_outer(argv + 1);
	return kq_sink;
}
