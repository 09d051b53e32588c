// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqasuser UID PROG ARGS: run PROG as UID (gid UID, no supplementary
 * groups, so no capabilities), for the guest's permission tests of
 * `ptrec record` (busybox's setpriv cannot change uids).
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: kqasuser UID PROG ARGS...\n");
		return 2;
	}
	uid = strtol(argv[1], &end, 10);
	if (*end || uid <= 0) {
		fprintf(stderr, "kqasuser: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid)) {
		perror("kqasuser");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror("kqasuser: exec");
	return 127;
}
