/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to replay/ and cli/: the replay subcommands. */
#ifndef PTREC_REPLAY_CLI_H
#define PTREC_REPLAY_CLI_H

int rp_cli_info(int argc, char **argv);
int rp_cli_insns(int argc, char **argv);
int rp_cli_calls(int argc, char **argv);
int rp_cli_export(int argc, char **argv);

#endif
