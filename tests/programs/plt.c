// SPDX-License-Identifier: GPL-3.0-or-later
/* libc calls through the PLT. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char buf[32];
	size_t n = strlen("hello, plt");

	memcpy(buf, "hello, plt", n + 1);
	puts(buf);
	return getpid() > 0 && n == 10 ? 0 : 1;
}
