/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to cli/: the replay subcommands. */
#ifndef PTREC_REPLAY_CLI_H
#define PTREC_REPLAY_CLI_H

struct rp_session;

/* Opens a bundle for command @cmd, with a progress bar on a terminal;
 * prints the error and returns NULL on failure.
 */
struct rp_session *cli_session_open(const char *cmd, const char *dir);

/* 0 when @tid is a thread of session @s; else -1 after a message naming
 * the option, the bundle @dir and the threads it has.
 */
int cli_thread_check(const char *cmd, struct rp_session *s, const char *dir,
		     long tid);

int cli_info(int argc, char **argv);
int cli_insns(int argc, char **argv);
int cli_calls(int argc, char **argv);
int cli_export(int argc, char **argv);

#endif
