// SPDX-License-Identifier: GPL-3.0-or-later
/* fork, and the child execs argv[1]: two processes, the child running
 * another program than the parent (GDB shows them as two inferiors).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int parent_done(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	int st = 0;
	pid_t p;

	if (argc < 2)
		return 2;
	p = fork();
	if (p == 0) {
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	waitpid(p, &st, 0);
	return parent_done(st);
}
