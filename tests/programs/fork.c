// SPDX-License-Identifier: GPL-3.0-or-later
/* fork: both processes are recorded. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int st = 0;
	pid_t p = fork();

	if (p == 0) {
		puts("fork child");
		fflush(stdout);
		_exit(3);
	}
	waitpid(p, &st, 0);
	printf("fork parent: child exited %d\n", WEXITSTATUS(st));
	return WEXITSTATUS(st) == 3 ? 0 : 1;
}
