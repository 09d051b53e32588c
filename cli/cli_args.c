// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The table-driven argument parser of every ptrec subcommand (cli_args.h):
 * builds getopt_long's option array from the table, stores each value,
 * and prints the usage from the same table, so a subcommand's options and
 * its help cannot disagree.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"

#define MAX_OPTS	64
#define KEY_BASE	256	/* getopt values of long-only options */
#define KEY_HELP	(KEY_BASE + MAX_OPTS)
#define HELP_COL	28

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

static bool takes_arg(const struct cli_opt *o)
{
	return o->kind != CLI_FLAG && (o->kind != CLI_CALL || o->arg);
}

static bool has_help(const struct cli_cmd *cmd)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o->name; o++)
		if (!strcmp(o->name, "help"))
			return true;
	return false;
}

void cli_usage(const struct cli_cmd *cmd, FILE *f, bool full)
{
	const struct cli_opt *o;

	int col, indent;

	col = fprintf(f, "usage: %s%s%s", cmd->name,
		      *cmd->synopsis ? " " : "", cmd->synopsis);
	indent = (int)strlen("usage: ") + (int)strlen(cmd->name) + 1;
	if (!strstr(cmd->synopsis, "OPTIONS"))
		for (o = cmd->opts; o->name; o++) {
			char item[128];
			int n;

			if (!o->help || o->required)
				continue;
			n = snprintf(item, sizeof(item), " [--%s%s%s]", o->name,
				     o->arg ? " " : "", o->arg ? o->arg : "");
			if (col + n > 79)
				col = fprintf(f, "\n%*s", indent - 1, "") - 1;
			col += fprintf(f, "%s", item);
		}
	fputc('\n', f);
	if (!full)
		return;
	for (o = cmd->opts; o->name && !o->help; o++)
		;
	if (o->name)
		fputc('\n', f);
	for (o = cmd->opts; o->name; o++) {
		int n;

		if (!o->help)
			continue;
		if (o->key)
			n = fprintf(f, "  -%c, --%s%s%s", o->key, o->name,
				    o->arg ? " " : "", o->arg ? o->arg : "");
		else
			n = fprintf(f, "  --%s%s%s", o->name,
				    o->arg ? " " : "", o->arg ? o->arg : "");
		if (n >= HELP_COL - 1)
			fprintf(f, "\n%*s", HELP_COL, "");
		else
			fprintf(f, "%*s", HELP_COL - n, "");
		fprintf(f, "%s\n", o->help);
	}
	if (cmd->more)
		fprintf(f, "\n%s", cmd->more);
}

/* The option that getopt_long() answered @c for. */
static const struct cli_opt *find_opt(const struct cli_cmd *cmd, int c)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o->name; o++)
		if ((o->key && o->key == c) ||
		    c == KEY_BASE + (int)(o - cmd->opts))
			return o;
	return NULL;
}

static int store(const struct cli_cmd *cmd, const struct cli_opt *o,
		 const char *arg)
{
	char opt[64];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (o->kind) {
	case CLI_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case CLI_STR:
		*(const char **)o->dst = arg;
		return 0;
	case CLI_U64:
		return cli_parse_u64(cmd->name, opt, arg, o->dst);
	case CLI_TID:
		return cli_parse_tid(cmd->name, opt, arg, o->dst);
	case CLI_CALL:
		return o->fn(cmd->ctx, opt, arg);
	}
	return -1;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct option lopts[MAX_OPTS + 2];
	char shorts[3 * MAX_OPTS + 4], *sp = shorts;
	const struct cli_opt *o;
	bool given[MAX_OPTS] = { 0 };
	size_t n = 0;
	int c, nargs;

	if (cmd->in_order)
		*sp++ = '+';
	*sp++ = ':';
	for (o = cmd->opts; o->name && n < MAX_OPTS; o++, n++) {
		lopts[n].name = o->name;
		lopts[n].has_arg = takes_arg(o) ? required_argument :
				   no_argument;
		lopts[n].flag = NULL;
		lopts[n].val = o->key ? o->key : KEY_BASE + (int)n;
		if (o->key) {
			*sp++ = (char)o->key;
			if (takes_arg(o))
				*sp++ = ':';
		}
	}
	if (!has_help(cmd)) {
		lopts[n++] = (struct option){ "help", no_argument, NULL,
					      KEY_HELP };
		*sp++ = 'h';
	}
	memset(&lopts[n], 0, sizeof(lopts[n]));
	*sp = '\0';

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (c == KEY_HELP || (c == 'h' && !find_opt(cmd, 'h'))) {
			cli_usage(cmd, stdout, true);
			return CLI_EXIT_OK;
		}
		if (c == ':' || c == '?') {
			const char *bad = argv[optind - 1];

			if (c == ':')
				fprintf(stderr, "%s: %s: needs an argument\n",
					cmd->name, bad);
			else if (optopt && !(bad[0] == '-' && bad[1] == '-'))
				fprintf(stderr, "%s: unknown option '-%c'\n",
					cmd->name, optopt);
			else
				fprintf(stderr, "%s: unknown option '%s'\n",
					cmd->name, bad);
			cli_usage(cmd, stderr, false);
			return CLI_EXIT_USAGE;
		}
		o = find_opt(cmd, c);
		if (!o || store(cmd, o, optarg))
			return CLI_EXIT_USAGE;
		if (o->seen)
			*o->seen = o->name;
		if (o - cmd->opts < MAX_OPTS)
			given[o - cmd->opts] = true;
	}
	nargs = argc - optind;
	if (nargs < cmd->min_args) {
		cli_usage(cmd, stderr, false);
		return CLI_EXIT_USAGE;
	}
	if (cmd->max_args >= 0 && nargs > cmd->max_args) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", cmd->name,
			argv[optind + cmd->max_args]);
		cli_usage(cmd, stderr, false);
		return CLI_EXIT_USAGE;
	}
	/* the options the synopsis names must be there */
	for (o = cmd->opts; o->name && o - cmd->opts < MAX_OPTS; o++) {
		if (!o->required || given[o - cmd->opts])
			continue;
		if (o->key)
			fprintf(stderr, "%s: -%c%s%s is required\n", cmd->name,
				o->key, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			fprintf(stderr, "%s: --%s%s%s is required\n",
				cmd->name, o->name, o->arg ? " " : "",
				o->arg ? o->arg : "");
		cli_usage(cmd, stderr, false);
		return CLI_EXIT_USAGE;
	}
	return optind;
}
