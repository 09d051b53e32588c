// SPDX-License-Identifier: GPL-3.0-or-later
/* execve of a small static program (argv[1]). */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("exec %s\n", argv[1]);
	fflush(stdout);
	execl(argv[1], argv[1], (char *)NULL);
	perror(argv[1]);
	return 1;
}
