// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqinsmod FILE [PARAMS...]: load a module with one finit_module() call and
 * print the errno name on failure.  busybox insmod retries a failed
 * finit_module() with init_module(), so a module whose init fails would
 * run (and log) twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char params[1024] = "";
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: kqinsmod FILE [PARAMS...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (strlen(params) + strlen(argv[i]) + 2 > sizeof(params))
			return 2;
		if (i > 2)
			strcat(params, " ");
		strcat(params, argv[i]);
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (syscall(SYS_finit_module, fd, params, 0)) {
		int e = errno;

		printf("kqinsmod: %s: errno %d (%s)\n", argv[1], e,
		       e == ENODEV ? "ENODEV" : strerror(e));
		return 1;
	}
	return 0;
}
