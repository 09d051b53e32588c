// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec calls` (GDB's record function-call-history layout, with its /c,
 * /l, /i modifiers as --tree, --lines, --insn-range) and `ptrec export`
 * (libptrec's exporters: JSON lines, CSV, Chrome trace events), over
 * libptrec's public header only.
 *
 * ptrec export writes FILE whole or not at all: into a temporary file in
 * FILE's directory, renamed over FILE once complete, so a failed export
 * leaves what was there.  An existing regular FILE is replaced only with
 * --force; a FILE that is not a regular file (a FIFO, /dev/stdout, a
 * terminal) is written directly.  FILE may not be inside the bundle.  A
 * FILE that is a symbolic link to a regular file (or to nothing) is
 * refused, even with --force: the rename would replace the link, not the
 * file it names, and writing through it would let a link planted in a
 * shared directory aim the export at any file of the user's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"
#include "replay.h"
#include "replay_cli.h"

int cli_calls(int argc, char **argv)
{
	bool tree = false, lines = false, range = false;
	struct rp_session *s;
	struct rp_call *calls;
	long tid = -1;
	size_t n, i;
	int a, ret;
	const struct cli_opt opts[] = {
		CLI_OPT("thread", 0, CLI_TID, &tid, "TID",
			"the thread (default: the first)"),
		CLI_FLAG_OPT("tree", 0, &tree,
			     "indent by call depth (GDB's /c)"),
		CLI_FLAG_OPT("lines", 0, &lines,
			     "with source lines (GDB's /l)"),
		CLI_FLAG_OPT("insn-range", 0, &range,
			     "with instruction ranges (GDB's /i)"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = "ptrec calls", .synopsis = "BUNDLE", .opts = opts,
		.min_args = 1, .max_args = 1,
	};

	a = cli_parse(&cmd, argc, argv);
	if (a < 0)
		return cli_exit(a);
	s = cli_session_open("calls", argv[a]);
	if (!s)
		return 1;
	if (tid < 0) {
		tid = rp_thread_tid(s, 0);
	} else if (cli_thread_check("ptrec calls", s, argv[a], tid)) {
		rp_session_close(s);
		return 1;
	}
	ret = rp_calls_build(s, (uint32_t)tid, &calls, &n);
	if (ret) {
		fprintf(stderr, "ptrec calls: thread %ld: %s\n", tid,
			rp_errstr(ret));
		rp_session_close(s);
		return 1;
	}
	for (i = 0; i < n; i++) {
		char line[4096];

		rp_format_call(&calls[i], i, tree, lines, range, line,
			       sizeof(line));
		printf("%s\n", line);
	}
	free(calls);
	rp_session_close(s);
	return 0;
}

/* ---- export --------------------------------------------------------------- */

#define EXPORT "ptrec export"

/* Where the output goes: straight to @path, or to @tmp renamed over it. */
struct out_file {
	const char *path;
	char tmp[PATH_MAX];
	bool direct;
	FILE *f;
};

/* Is @path (which may not exist yet) the bundle @dir or inside it? */
static bool inside(const char *dir, const char *path)
{
	char rdir[PATH_MAX], rparent[PATH_MAX], *copy, *slash;
	size_t n;
	bool in;

	if (!realpath(dir, rdir))
		return false;
	copy = strdup(path);
	if (!copy)
		return false;
	slash = strrchr(copy, '/');
	if (slash == copy)
		copy[1] = '\0';
	else if (slash)
		*slash = '\0';
	in = realpath(slash ? copy : ".", rparent) &&
	     (n = strlen(rdir), !strncmp(rparent, rdir, n)) &&
	     (rparent[n] == '\0' || rparent[n] == '/' || n == 1);
	free(copy);
	/* An existing file through a symlink: where it really is. */
	if (!in && realpath(path, rparent)) {
		n = strlen(rdir);
		in = !strncmp(rparent, rdir, n) &&
		     (rparent[n] == '\0' || rparent[n] == '/');
	}
	return in;
}

/* Checks where -o points, before the bundle is decoded.  Returns 0, or -1
 * after a message.
 */
static int out_check(struct out_file *o, const char *bundle, bool force)
{
	struct stat st;

	if (inside(bundle, o->path)) {
		fprintf(stderr, EXPORT ": -o %s: inside the bundle %s; write the export elsewhere\n",
			o->path, bundle);
		return -1;
	}
	if (!lstat(o->path, &st) && S_ISLNK(st.st_mode) &&
	    (stat(o->path, &st) || S_ISREG(st.st_mode))) {
		fprintf(stderr, EXPORT ": -o %s: a symbolic link; ptrec export writes no file through a link: give the file's own path\n",
			o->path);
		return -1;
	}
	if (stat(o->path, &st)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, EXPORT ": -o %s: %s\n", o->path,
			strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, EXPORT ": -o %s: a directory\n", o->path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		o->direct = true;	/* a FIFO, a terminal, /dev/null */
		return 0;
	}
	if (!force) {
		fprintf(stderr, EXPORT ": -o %s: exists; give --force to replace it\n",
			o->path);
		return -1;
	}
	return 0;
}

static int out_open(struct out_file *o)
{
	const char *slash = strrchr(o->path, '/');
	const char *base = slash ? slash + 1 : o->path;
	int dlen = slash ? (int)(slash - o->path + 1) : 0;
	mode_t mask;
	int fd;

	if (o->direct) {
		o->f = fopen(o->path, "w");
		if (!o->f) {
			fprintf(stderr, EXPORT ": -o %s: %s\n", o->path,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	if (snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dlen, o->path,
		     base) >= (int)sizeof(o->tmp)) {
		fprintf(stderr, EXPORT ": -o %s: path too long\n", o->path);
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		fprintf(stderr, EXPORT ": -o %s: %s\n", o->path,
			strerror(errno));
		return -1;
	}
	/* What a plain fopen() would have created, not mkstemp()'s 0600. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
		fprintf(stderr, EXPORT ": -o %s: %s\n", o->tmp,
			strerror(errno));
		close(fd);
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

/* Finishes the output: on success renames the temporary file over the
 * target.  Returns 0, or -1 after a message naming the file.
 */
static int out_close(struct out_file *o, bool ok)
{
	int err = 0;

	if (fflush(o->f) || ferror(o->f))
		err = errno ? errno : EIO;
	if (fclose(o->f) && !err)
		err = errno ? errno : EIO;
	if (ok && err)
		fprintf(stderr, EXPORT ": -o %s: writing failed: %s\n",
			o->path, strerror(err));
	if (o->direct)
		return ok && !err ? 0 : -1;
	if (ok && !err && rename(o->tmp, o->path)) {
		err = errno;
		fprintf(stderr, EXPORT ": -o %s: %s\n", o->path,
			strerror(err));
	}
	if (!ok || err)
		unlink(o->tmp);
	return ok && !err ? 0 : -1;
}

int cli_export(int argc, char **argv)
{
	const char *format = NULL;
	struct out_file out = { 0 };
	struct rp_session *s;
	bool force = false;
	long tid = 0;
	int a, fmt, ret;
	const struct cli_opt opts[] = {
		CLI_REQ_OPT("format", 0, CLI_STR, &format, "jsonl|csv|perfetto",
			    "JSON lines, CSV, or Chrome trace events"),
		CLI_REQ_OPT("output", 'o', CLI_STR, &out.path, "FILE",
			    "the file to write, whole or not at all"),
		CLI_OPT("thread", 0, CLI_TID, &tid, "TID",
			"one thread (default: all)"),
		CLI_FLAG_OPT("force", 'f', &force,
			     "replace FILE if it exists"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = EXPORT,
		.synopsis = "BUNDLE --format=jsonl|csv|perfetto -o FILE",
		.opts = opts, .min_args = 1, .max_args = 1,
		.more = "FILE is written whole or not at all (a temporary file renamed over\n"
			"it). An existing FILE is replaced only with --force; FILE may not be\n"
			"inside the bundle.\n",
	};

	a = cli_parse(&cmd, argc, argv);
	if (a < 0)
		return cli_exit(a);
	fmt = format ? rp_export_format_by_name(format) : -RP_ERR_INVAL;
	if (fmt < 0 || !out.path) {
		cli_usage(&cmd, stderr, false);
		return 2;
	}
	if (out_check(&out, argv[a], force))
		return 1;
	s = cli_session_open("export", argv[a]);
	if (!s)
		return 1;
	if (tid && cli_thread_check(EXPORT, s, argv[a], tid)) {
		rp_session_close(s);
		return 1;
	}
	if (out_open(&out)) {
		rp_session_close(s);
		return 1;
	}
	errno = 0;
	ret = rp_export(s, fmt, (uint32_t)tid, out.f);
	if (ret && ret != -RP_ERR_IO)
		fprintf(stderr, EXPORT ": %s: %s\n", *rp_session_errmsg(s) ?
			rp_session_errmsg(s) : argv[a], rp_errstr(ret));
	/* A write error (-RP_ERR_IO) is reported by out_close(). */
	if (out_close(&out, ret == 0 || ret == -RP_ERR_IO) || ret)
		ret = 1;
	rp_session_close(s);
	return ret ? 1 : 0;
}
