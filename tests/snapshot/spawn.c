// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * spawn PROG...: posix_spawn()s each PROG in turn (glibc's clone with
 * CLONE_VM | CLONE_VFORK, a PTRACE_EVENT_VFORK to a tracer) and waits for
 * it: the kmod recorder's exec filter is inherited by the child, which
 * must still exec (tests/snapshot/run.sh).
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	int i, st;
	pid_t p;

	for (i = 1; i < argc; i++) {
		char *a[] = { argv[i], NULL };

		if (posix_spawn(&p, argv[i], NULL, NULL, a, environ)) {
			perror(argv[i]);
			return 1;
		}
		if (waitpid(p, &st, 0) != p || st)
			return 1;
		printf("spawned %s\n", argv[i]);
	}
	return 0;
}
