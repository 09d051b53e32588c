/* A parent and a forked child, each ending differently: the child crashes,
 * the parent waits for it and exits; both are in the snapshot. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int who;

int main(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		volatile int *p = NULL;

		who = 2;
		*p = who;
		return 0;
	}
	who = 1;
	waitpid(pid, &st, 0);
	return 7;
}
