/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Option-argument parsing shared by every ptrec subcommand, so that junk
 * such as `--count 10x` or `--thread abc` is refused with a message naming
 * the command and the option, never silently read as 10 or 0.
 */
#ifndef PTREC_CLI_ARGS_H
#define PTREC_CLI_ARGS_H

#include <stdint.h>

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
