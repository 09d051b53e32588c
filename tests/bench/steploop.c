// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * steploop PROGRAM [ARGS]: the baseline for the recorder benchmark.  Runs
 * PROGRAM under ptrace and single-steps it from its first instruction to
 * its exit doing nothing else (no registers, no decoding, no output), then
 * prints the number of steps.  PROGRAM should be static, so that this and
 * `ptrec record --start-at <entry>` step exactly the same instructions.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long steps = 0;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: steploop PROGRAM [ARGS]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execv(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	waitpid(pid, &status, 0);	/* the exec SIGTRAP */
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
			break;
		if (waitpid(pid, &status, 0) < 0 || WIFEXITED(status) ||
		    WIFSIGNALED(status))
			break;
		steps++;
	}
	printf("%llu\n", steps);
	return 0;
}
