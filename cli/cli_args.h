/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to cli/: the one argument parser of every ptrec subcommand.
 *
 * A subcommand describes its options in a table (struct cli_opt); cli_parse()
 * parses argv against it (getopt_long underneath, so GNU conventions hold:
 * --opt=ARG, --opt ARG, -o ARG, options and arguments in any order, "--"),
 * stores each value where the table says, and prints the usage it builds
 * from the same table.  Numbers are parsed whole, so junk such as
 * `--count 10x` or `--thread abc` is refused with a message naming the
 * command and the option, never silently read as 10 or 0.
 */
#ifndef PTREC_CLI_ARGS_H
#define PTREC_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_kind {
	CLI_FLAG,	/* bool *: set when given */
	CLI_STR,	/* const char **: the argument */
	CLI_U64,	/* uint64_t *: a whole unsigned number */
	CLI_TID,	/* long *: a thread or process id, 1 .. INT32_MAX */
	CLI_CALL,	/* @fn(@ctx, option, argument): anything else */
};

/**
 * struct cli_opt - one option of a subcommand
 * @name:	long name without "--".
 * @key:	short option letter, or 0.
 * @kind:	what the argument is and where it goes.
 * @dst:	where it goes (not for CLI_CALL).
 * @arg:	the argument's name in the usage ("TID"); NULL for none (a
 *		CLI_FLAG, or a CLI_CALL without argument).
 * @help:	one line for the usage; NULL leaves the option out of it.
 * @fn:		CLI_CALL: handles the option (@arg NULL when it takes none);
 *		returns 0, or -1 after printing why.
 * @required:	cli_parse() refuses a command line without it ("CMD: -o
 *		FILE is required" and the usage); the usage's first line
 *		names it (in struct cli_cmd's @synopsis) rather than listing
 *		it as [--opt ARG].
 * @seen:	when not NULL, set to @name each time the option is given
 *		(options of one backend note that one was given).
 */
struct cli_opt {
	const char *name;
	int key;
	enum cli_kind kind;
	void *dst;
	const char *arg;
	const char *help;
	int (*fn)(void *ctx, const char *opt, const char *arg);
	bool required;
	const char **seen;
};

/* Table entries: an option with an argument stored by @kind, a flag, an
 * option handled by @fn, the same for options the synopsis names, and the
 * end of the table.
 */
#define CLI_OPT(n, k, kd, d, a, h) \
	{ .name = (n), .key = (k), .kind = (kd), .dst = (d), .arg = (a), \
	  .help = (h) }
#define CLI_FLAG_OPT(n, k, d, h) \
	{ .name = (n), .key = (k), .kind = CLI_FLAG, .dst = (d), .help = (h) }
#define CLI_CALL_OPT(n, k, f, a, h) \
	{ .name = (n), .key = (k), .kind = CLI_CALL, .fn = (f), .arg = (a), \
	  .help = (h) }
#define CLI_REQ_OPT(n, k, kd, d, a, h) \
	{ .name = (n), .key = (k), .kind = (kd), .dst = (d), .arg = (a), \
	  .help = (h), .required = true }
#define CLI_END { .name = NULL }

/**
 * struct cli_cmd - a subcommand's command line
 * @name:	"ptrec insns", for messages and the usage.
 * @synopsis:	the usage's arguments before the optional options
 *		("BUNDLE", "-o DIR PERF.DATA").
 * @opts:	its options, ending with an entry whose @name is NULL.
 * @min_args, @max_args: positional arguments allowed (@max_args -1: any).
 * @in_order:	options end at the first positional argument (`ptrec
 *		record [OPTS] -- PROG ARGS`).
 * @ctx:	passed to every CLI_CALL handler.
 * @more:	text printed after the options by --help (NULL: none).
 */
struct cli_cmd {
	const char *name;
	const char *synopsis;
	const struct cli_opt *opts;
	int min_args, max_args;
	bool in_order;
	void *ctx;
	const char *more;
};

/* cli_parse()'s answers besides the first positional argument's index. */
#define CLI_EXIT_OK	(-1)	/* --help was printed: exit 0 */
#define CLI_EXIT_USAGE	(-2)	/* a message and the usage line: exit 2 */

/**
 * cli_parse() - parse a subcommand's arguments against its table
 * @argv:	argv[0] is the subcommand, as dispatched.
 *
 * Every subcommand also takes -h/--help.  Return: the index in @argv of
 * the first positional argument (@argc when there is none), CLI_EXIT_OK
 * or CLI_EXIT_USAGE.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv);

/* The usage line ("usage: NAME SYNOPSIS [--opt ARG]...") to @f, and with
 * @full one line per option and @cmd->more.
 */
void cli_usage(const struct cli_cmd *cmd, FILE *f, bool full);

/* The exit status of a cli_parse() failure (0 or 2). */
static inline int cli_exit(int parsed)
{
	return parsed == CLI_EXIT_OK ? 0 : 2;
}

/**
 * cli_parse_u64() - parse a whole unsigned number (decimal, 0x hex, 0 octal)
 * @cmd:	the subcommand, for the message ("ptrec insns").
 * @opt:	the option, for the message ("--count").
 * @arg:	the text.
 * @out:	the value.
 *
 * Return: 0, or -1 after printing "CMD: OPT ARG: not a number" (or
 * "out of range") to stderr.
 */
int cli_parse_u64(const char *cmd, const char *opt, const char *arg,
		  uint64_t *out);

/**
 * cli_parse_tid() - parse a thread or process id (1 .. INT32_MAX)
 *
 * Same arguments and messages as cli_parse_u64().
 */
int cli_parse_tid(const char *cmd, const char *opt, const char *arg,
		  long *out);

#endif
