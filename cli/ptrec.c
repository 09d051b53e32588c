// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec: command-line front end.  Dispatches subcommands; each parses its
 * arguments and prints in its own cli/ file, over the public headers of
 * libptrec (replay/), record/ and import/.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "replay_cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", cli_record, "record [OPTS] -- PROG ARGS  record a program (see ptrec record --help)" },
	{ "info", cli_info, "info BUNDLE            threads, instructions, gaps, sizes" },
	{ "insns", cli_insns, "insns BUNDLE [--thread TID] [--from N] [--count K] [--raw]  instruction history" },
	{ "calls", cli_calls, "calls BUNDLE [--thread TID] [--tree] [--lines] [--insn-range]  function-call history" },
	{ "values", cli_values, "values BUNDLE --at N [--thread TID] [--mem ADDR]  registers and memory known in the past" },
	{ "export", cli_export, "export BUNDLE --format=jsonl|csv|perfetto -o FILE [--thread TID]" },
	{ "replay", cli_replay, "replay BUNDLE [GDB-ARGS]  GDB on the recording, at its end (reverse-step, ...)" },
	{ "import", cli_import, "import raw|... -o DIR ...  bundle from traces recorded elsewhere (ptrec import --help)" },
	{ "core", cli_core, "core BUNDLE [--pid PID] -o FILE  ELF core file of the state at the end" },
	{ "selftest", cli_selftest, "selftest              check ptrec.ko on this machine, print a report (docs/kmod.md)" },
	{ "dump", cli_dump, "dump BUNDLE|SIDEBAND  print manifest and sideband records" },
	{ "version", cli_version, "version               print the version and formats" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ptrec COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n", commands[i].help);

}

int cli_version(int argc, char **argv)
{
	static const struct cli_opt opts[] = { CLI_END };
	static const struct cli_cmd cmd = {
		.name = "ptrec version", .synopsis = "", .opts = opts,
	};
	int a = argc ? cli_parse(&cmd, argc, argv) : 1;

	if (a < 0)
		return cli_exit(a);
	printf("ptrec %s (bundle format %d, sideband format %d)\n",
	       PTREC_VERSION, SB_BUNDLE_VERSION, PTREC_SB_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version"))
		return cli_version(0, NULL);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ptrec: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
