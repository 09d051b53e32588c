// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_args.h"

int cli_parse_u64(const char *cmd, const char *opt, const char *arg,
		  uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	/* strtoull accepts "-1" as UINT64_MAX and leading blanks: refuse. */
	if (!*arg || *end || *arg == '-' || *arg == '+' || *arg == ' ' ||
	    *arg == '\t') {
		fprintf(stderr, "%s: %s %s: not a number\n", cmd, opt, arg);
		return -1;
	}
	if (errno == ERANGE) {
		fprintf(stderr, "%s: %s %s: out of range\n", cmd, opt, arg);
		return -1;
	}
	return 0;
}

int cli_parse_tid(const char *cmd, const char *opt, const char *arg,
		  long *out)
{
	uint64_t v;

	if (cli_parse_u64(cmd, opt, arg, &v))
		return -1;
	if (!v || v > INT32_MAX) {
		fprintf(stderr, "%s: %s %s: not a thread id (1 to %d)\n", cmd,
			opt, arg, INT32_MAX);
		return -1;
	}
	*out = (long)v;
	return 0;
}
