// SPDX-License-Identifier: GPL-3.0-or-later
/* `ptrec import`: dispatch to one importer per input kind. */
#include <stdio.h>
#include <string.h>

#include "import.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} importers[] = {
	{ "raw", import_raw_main,
	  "raw -o DIR --pt FILE[@OFFSET] [--thread TID] --elf FILE[:BASE] ...  raw PT streams" },
	{ "perf", import_perf_main,
	  "perf -o DIR PERF.DATA  a perf.data recorded with the intel_pt PMU" },
};

int import_cli_main(int argc, char **argv)
{
	size_t i, n = sizeof(importers) / sizeof(importers[0]);

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: ptrec import KIND ...\n\nkinds:\n");
		for (i = 0; i < n; i++)
			fprintf(argc < 2 ? stderr : stdout, "  %s\n",
				importers[i].help);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], importers[i].name))
			return importers[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ptrec import: unknown kind '%s' (try ptrec import --help)\n",
		argv[1]);
	return 2;
}
