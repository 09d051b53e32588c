// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptrec replay BUNDLE [GDB-ARGS...]: GDB on the recorded program, connected
 * to ptrec-server over stdio, with the plugin loaded, at the end of the
 * history (where the program stopped or crashed).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* @dir + @mid + @name, when it fits and is readable.  Returns 0 or -1. */
static int candidate(char *out, size_t size, const char *dir,
		     const char *mid, const char *name)
{
	if (snprintf(out, size, "%s%s%s", dir, mid, name) >= (int)size)
		return -1;
	return access(out, R_OK) ? -1 : 0;
}

/* A file next to the running ptrec: in its directory (installed, or
 * build/ in the tree), the tree's gdb/plugin/, or ../share/ptrec/.
 */
static int find_near_self(const char *name, char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (!candidate(out, size, self, "/", name) ||
	    !candidate(out, size, self, "/../gdb/plugin/", name) ||
	    !candidate(out, size, self, "/../share/ptrec/", name))
		return 0;
	return -1;
}

int cli_replay(int argc, char **argv)
{
	char server[PATH_MAX], plugin[PATH_MAX], target[2 * PATH_MAX];
	char **gargv;
	struct sb_manifest *m;
	struct sb_err err;
	const char *exe = NULL;
	int i, n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ptrec replay BUNDLE [GDB-ARGS...]\n");
		return 2;
	}
	if (sb_manifest_load(&m, argv[1], &err)) {
		fprintf(stderr, "ptrec replay: %s\n", err.msg);
		return 1;
	}
	if (m->nprocs && m->procs[0].exe)
		exe = m->procs[0].exe;
	if (find_near_self("ptrec-server", server, sizeof(server))) {
		fprintf(stderr, "ptrec replay: ptrec-server not found next to ptrec\n");
		goto out_free_manifest;
	}
	if (snprintf(target, sizeof(target), "target remote | %s %s", server,
		     argv[1]) >= (int)sizeof(target)) {
		fprintf(stderr, "ptrec replay: %s: path too long\n", argv[1]);
		goto out_free_manifest;
	}
	gargv = calloc((size_t)argc + 12, sizeof(*gargv));
	if (!gargv)
		goto out_free_manifest;
	gargv[n++] = "gdb";
	gargv[n++] = "-q";
	if (!find_near_self("ptrec.py", plugin, sizeof(plugin))) {
		gargv[n++] = "-x";
		gargv[n++] = plugin;
	}
	gargv[n++] = "-ex";
	gargv[n++] = target;
	for (i = 2; i < argc; i++)
		gargv[n++] = argv[i];
	/* The program file, for symbols; its copy may be gone, which GDB
	 * reports.
	 */
	if (exe && !access(exe, R_OK))
		gargv[n++] = (char *)exe;
	execvp("gdb", gargv);
	perror("ptrec replay: gdb");
	free(gargv);
out_free_manifest:
	sb_manifest_free(m);
	return 1;
}
