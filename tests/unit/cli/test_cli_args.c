// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The table-driven argument parser of every ptrec subcommand
 * (cli/cli_args.c): values land where the table says, GNU forms (--opt=ARG,
 * --opt ARG, -o ARG, options after arguments, "--") all work, junk
 * numbers and unknown options are refused with the command and option
 * named and exit status 2, --help prints the usage built from the table,
 * in-order commands leave what follows their first argument alone.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"

static bool flag;
static const char *str;
static uint64_t num;
static long tid;
static const char *seen;
static int calls;
static char last[64];

static int handler(void *ctx, const char *opt, const char *arg)
{
	(void)ctx;
	calls++;
	snprintf(last, sizeof(last), "%s=%s", opt, arg ? arg : "");
	return strcmp(arg, "bad") ? 0 : -1;
}

static const struct cli_opt opts[] = {
	CLI_FLAG_OPT("flag", 'f', &flag, "a flag"),
	CLI_REQ_OPT("output", 'o', CLI_STR, &str, "FILE", "where"),
	CLI_OPT("count", 0, CLI_U64, &num, "N", "how many"),
	{ .name = "thread", .kind = CLI_TID, .dst = &tid, .arg = "TID",
	  .help = "which thread", .seen = &seen },
	CLI_CALL_OPT("call", 0, handler, "X", "a handler"),
	CLI_OPT("hidden", 0, CLI_STR, &str, "S", NULL),
	CLI_END,
};

static const struct cli_cmd cmd = {
	.name = "ptrec test", .synopsis = "BUNDLE -o FILE", .opts = opts,
	.min_args = 1, .max_args = 1,
	.more = "More text.\n",
};

static void reset(void)
{
	flag = false;
	str = NULL;
	num = 0;
	tid = 0;
	seen = NULL;
	calls = 0;
	last[0] = '\0';
}

static int parse(const struct cli_cmd *c, int argc, const char **argv)
{
	return cli_parse(c, argc, (char **)argv);
}

TestSuite(cli_args, .init = reset);

Test(cli_args, values_land_where_the_table_says)
{
	const char *argv[] = { "test", "--count=0x10", "B", "-f", "-o", "out",
			       "--thread", "42", "--call", "x", NULL };

	cr_assert_eq(parse(&cmd, 10, argv), 9, "options after the argument");
	cr_assert(flag);
	cr_assert_str_eq(str, "out");
	cr_assert_eq(num, 16);
	cr_assert_eq(tid, 42);
	cr_assert_str_eq(seen, "thread");
	cr_assert_eq(calls, 1);
	cr_assert_str_eq(last, "--call=x");
	cr_assert_str_eq(argv[9], "B", "getopt moved the argument last");
}

Test(cli_args, double_dash_ends_options)
{
	const char *argv[] = { "test", "-o", "o", "--", "--flag", NULL };

	cr_assert_eq(parse(&cmd, 5, argv), 4);
	cr_assert(!flag);
}

Test(cli_args, junk_numbers_are_refused_by_name, .init = cr_redirect_stderr)
{
	const char *a1[] = { "test", "B", "--count", "10x", NULL };
	const char *a2[] = { "test", "B", "--thread", "0", NULL };

	reset();
	cr_assert_eq(parse(&cmd, 4, a1), CLI_EXIT_USAGE);
	cr_assert_eq(parse(&cmd, 4, a2), CLI_EXIT_USAGE);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"ptrec test: --count 10x: not a number\n"
		"ptrec test: --thread 0: not a thread id (1 to 2147483647)\n");
}

Test(cli_args, unknown_and_missing_are_refused_with_the_usage,
     .init = cr_redirect_stderr)
{
	const char *a1[] = { "test", "B", "--frob", NULL };
	const char *a2[] = { "test", "B", "--count", NULL };
	const char *a3[] = { "test", NULL };
	const char *a4[] = { "test", "B", "C", NULL };
	const char *a5[] = { "test", "B", "--call", "bad", NULL };

	reset();
	cr_assert_eq(parse(&cmd, 3, a1), CLI_EXIT_USAGE);
	cr_assert_eq(parse(&cmd, 3, a2), CLI_EXIT_USAGE);
	cr_assert_eq(parse(&cmd, 1, a3), CLI_EXIT_USAGE);
	cr_assert_eq(parse(&cmd, 3, a4), CLI_EXIT_USAGE);
	cr_assert_eq(parse(&cmd, 4, a5), CLI_EXIT_USAGE, "a handler refuses");
	cr_assert_eq(cli_exit(CLI_EXIT_USAGE), 2);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"ptrec test: unknown option '--frob'\n"
		"usage: ptrec test BUNDLE -o FILE [--flag] [--count N] [--thread TID] [--call X]\n"
		"ptrec test: --count: needs an argument\n"
		"usage: ptrec test BUNDLE -o FILE [--flag] [--count N] [--thread TID] [--call X]\n"
		"usage: ptrec test BUNDLE -o FILE [--flag] [--count N] [--thread TID] [--call X]\n"
		"ptrec test: unexpected argument 'C'\n"
		"usage: ptrec test BUNDLE -o FILE [--flag] [--count N] [--thread TID] [--call X]\n");
}

/* Regression: a required option (CLI_REQ_OPT) left out was not noticed. */
Test(cli_args, required_options_are_enforced, .init = cr_redirect_stderr)
{
	static const struct cli_opt o[] = {
		CLI_REQ_OPT("format", 0, CLI_STR, &str, "F", "which"),
		CLI_FLAG_OPT("flag", 'f', &flag, "a flag"),
		CLI_END,
	};
	static const struct cli_cmd c = {
		.name = "ptrec req", .synopsis = "--format F", .opts = o,
	};
	const char *a1[] = { "test", "B", "-f", NULL };
	const char *a2[] = { "test", "-f", NULL };
	const char *a3[] = { "test", "B", "-o", "x", NULL };
	const char *a4[] = { "test", "--format", "csv", NULL };
	const char *a5[] = { "test", "--help", NULL };

	reset();
	cr_assert_eq(parse(&cmd, 3, a1), CLI_EXIT_USAGE, "no -o FILE");
	cr_assert(flag, "the options given are still parsed");
	cr_assert_eq(parse(&c, 2, a2), CLI_EXIT_USAGE, "no --format F");
	cr_assert_eq(parse(&cmd, 4, a3), 3, "-o given (B after it)");
	cr_assert_eq(parse(&c, 3, a4), 3, "--format given");
	cr_assert_str_eq(str, "csv");
	cr_assert_eq(parse(&c, 2, a5), CLI_EXIT_OK, "--help needs none");
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"ptrec test: -o FILE is required\n"
		"usage: ptrec test BUNDLE -o FILE [--flag] [--count N] [--thread TID] [--call X]\n"
		"ptrec req: --format F is required\n"
		"usage: ptrec req --format F [--flag]\n");
}

Test(cli_args, help_prints_the_table, .init = cr_redirect_stdout)
{
	const char *argv[] = { "test", "--help", NULL };

	reset();
	cr_assert_eq(parse(&cmd, 2, argv), CLI_EXIT_OK);
	cr_assert_eq(cli_exit(CLI_EXIT_OK), 0);
	fflush(stdout);
	cr_assert_stdout_eq_str(
		"usage: ptrec test BUNDLE -o FILE [--flag] [--count N] [--thread TID] [--call X]\n"
		"\n"
		"  -f, --flag                a flag\n"
		"  -o, --output FILE         where\n"
		"  --count N                 how many\n"
		"  --thread TID              which thread\n"
		"  --call X                  a handler\n"
		"\n"
		"More text.\n");
}

Test(cli_args, in_order_leaves_the_rest_alone)
{
	static const struct cli_opt o[] = {
		CLI_FLAG_OPT("flag", 'f', &flag, "a flag"),
		CLI_END,
	};
	static const struct cli_cmd c = {
		.name = "ptrec run", .synopsis = "PROG [ARGS...]", .opts = o,
		.min_args = 1, .max_args = -1, .in_order = true,
	};
	const char *argv[] = { "run", "-f", "prog", "-f", "--x", NULL };

	cr_assert_eq(parse(&c, 5, argv), 2);
	cr_assert(flag);
	cr_assert_str_eq(argv[3], "-f");
	cr_assert_str_eq(argv[4], "--x");
}
