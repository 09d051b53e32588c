/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to cli/: subcommand entry points.  Return the exit status. */
#ifndef PTREC_CLI_H
#define PTREC_CLI_H

#include <stdbool.h>

#include "sideband.h"

int cli_dump(int argc, char **argv);
int cli_version(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_record(int argc, char **argv);
/* `ptrec selftest`: ptrec.ko bring-up checks (selftest.c). */
int cli_selftest(int argc, char **argv);
/* `ptrec core BUNDLE [--pid PID] -o FILE` (core.c). */
int cli_core(int argc, char **argv);
/* The snapshot of bundle @dir for info (@maps false) and dump (true). */
void cli_snapshot_print(const char *dir, bool maps);
/* `ptrec values BUNDLE --at N` (values.c). */
int cli_values(int argc, char **argv);

#endif
