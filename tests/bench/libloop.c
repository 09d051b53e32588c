// SPDX-License-Identifier: GPL-3.0-or-later
/* The library-heavy program of the watchpoint benchmark (#18,
 * scripts/bench-watch): a loop whose body is mostly glibc (strlen,
 * memcpy, memset, strchr, snprintf, write), dynamic and PIE as most
 * programs are.  It is recorded from work()'s entry to a later call of
 * work(); each call takes the same path (the same inputs), so copies of
 * that stream joined end to end are one consistent, longer history.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char text[] =
	"a reverse watchpoint search scans the whole history backward, "
	"window by window, and most of a real program's time is in libc";
static char buf[512];
static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	size_t n = strlen(text);
	char line[64];
	int k;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, text, n);
	memcpy(buf + n, text, n);
	sink += (unsigned long)(strchr(buf, 'y') - buf);
	k = snprintf(line, sizeof(line), "%s %d\n", "line", 42);
	sink += strlen(buf) + (unsigned long)k;
	if (write(1, line, (size_t)k) < 0)
		sink++;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 4;

	for (i = 0; i < n; i++)
		work();
	return 0;
}
