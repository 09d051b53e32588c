// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import`: the importers' command lines.  Each kind's arguments are
 * parsed here, in the front end, and handed to import/ as values
 * (struct import_raw_opts, import_perf()), so import/ never sees argv
 * beyond what it records in the manifest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "import.h"

#define RAW "ptrec import raw"
#define MAX_STREAMS 1024

/* Splits "TEXT<sep>NUMBER" at the last @sep; *num stays put without one. */
static int split_num(const char *opt, const char *arg, int sep, char **text,
		     uint64_t *num, bool required)
{
	const char *p = strrchr(arg, sep);

	if (!p) {
		if (required) {
			fprintf(stderr, RAW ": %s %s: expected FILE%cNUMBER\n",
				opt, arg, sep);
			return -1;
		}
		*text = strdup(arg);
		return *text ? 0 : -1;
	}
	if (p == arg) {
		fprintf(stderr, RAW ": %s %s: no file name\n", opt, arg);
		return -1;
	}
	if (cli_parse_u64(RAW, opt, p + 1, num))
		return -1;
	*text = strndup(arg, p - arg);
	return *text ? 0 : -1;
}

static int parse_u32(const char *opt, const char *arg, uint32_t *out)
{
	uint64_t v;

	if (cli_parse_u64(RAW, opt, arg, &v))
		return -1;
	if (v > UINT32_MAX) {
		fprintf(stderr, RAW ": %s %s: out of range\n", opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_cpuid15(const char *arg, struct import_raw_opts *o)
{
	char *slash = strchr(arg, '/'), *a;
	int ret;

	if (!slash) {
		fprintf(stderr, RAW ": --cpuid-0x15 %s: expected EAX/EBX\n", arg);
		return -1;
	}
	a = strndup(arg, slash - arg);
	if (!a)
		return -1;
	ret = parse_u32("--cpuid-0x15", a, &o->cpuid_15_eax) ||
	      parse_u32("--cpuid-0x15", slash + 1, &o->cpuid_15_ebx) ? -1 : 0;
	free(a);
	return ret;
}

/* An --elf FILE[:BASE], --raw FILE:ADDRESS or --images LIST. */
static int raw_image(struct import_raw_image *im, enum import_img_kind kind,
		     const char *arg)
{
	memset(im, 0, sizeof(*im));
	im->kind = kind;
	im->arg = arg;
	im->addr = UINT64_MAX;
	/* A ':' in an ELF path is taken as the start of BASE only when a
	 * number follows it; a list is read by the importer.
	 */
	if (kind == IMPORT_IMG_LIST ||
	    (kind == IMPORT_IMG_ELF && (!strrchr(arg, ':') ||
					!access(arg, F_OK)))) {
		im->path = strdup(arg);
		return im->path ? 0 : -1;
	}
	return split_num(kind == IMPORT_IMG_ELF ? "--elf" : "--raw", arg, ':',
			 &im->path, &im->addr, kind == IMPORT_IMG_RAW);
}

static void *grow(void *v, size_t n, size_t size)
{
	return realloc(v, (n + 1) * size);
}

/* What the raw importer's option handlers share. */
struct raw_ctx {
	struct import_raw_opts *o;
	bool tid_given;		/* the last --pt has its --thread */
};

static int raw_pt(void *ctx, const char *opt, const char *arg)
{
	struct raw_ctx *r = ctx;
	struct import_raw_opts *o = r->o;
	struct import_raw_stream *s;

	if (o->nstreams == MAX_STREAMS) {
		fprintf(stderr, RAW ": more than %d streams\n", MAX_STREAMS);
		return -1;
	}
	s = grow(o->streams, o->nstreams, sizeof(*s));
	if (!s)
		return -1;
	o->streams = s;
	s = &s[o->nstreams++];
	memset(s, 0, sizeof(*s));
	s->arg = arg;
	s->tid = o->nstreams;
	r->tid_given = false;
	return split_num(opt, arg, '@', &s->path, &s->off, false);
}

static int raw_thread(void *ctx, const char *opt, const char *arg)
{
	struct raw_ctx *r = ctx;
	struct import_raw_opts *o = r->o;
	long id;

	if (!o->nstreams || r->tid_given) {
		fprintf(stderr,
			RAW ": %s %s: names the thread of the --pt before it; give --pt FILE first\n",
			opt, arg);
		return -1;
	}
	if (cli_parse_tid(RAW, opt, arg, &id))
		return -1;
	o->streams[o->nstreams - 1].tid = id;
	r->tid_given = true;
	return 0;
}

static int raw_add_image(struct raw_ctx *r, enum import_img_kind kind,
			 const char *arg)
{
	struct import_raw_opts *o = r->o;
	struct import_raw_image *im;

	im = grow(o->images, o->nimages, sizeof(*im));
	if (!im)
		return -1;
	o->images = im;
	if (raw_image(&im[o->nimages], kind, arg))
		return -1;
	o->nimages++;
	return 0;
}

static int raw_elf(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	return raw_add_image(ctx, IMPORT_IMG_ELF, arg);
}

static int raw_blob(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	return raw_add_image(ctx, IMPORT_IMG_RAW, arg);
}

static int raw_list(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	return raw_add_image(ctx, IMPORT_IMG_LIST, arg);
}

static int raw_cpu(void *ctx, const char *opt, const char *arg)
{
	struct raw_ctx *r = ctx;
	struct sb_err err;

	(void)opt;
	if (import_parse_cpu(arg, &r->o->cpu, &err)) {
		fprintf(stderr, RAW ": %s\n", err.msg);
		return -1;
	}
	r->o->have_cpu = true;
	return 0;
}

static int raw_mtc(void *ctx, const char *opt, const char *arg)
{
	return parse_u32(opt, arg, &((struct raw_ctx *)ctx)->o->mtc_freq);
}

static int raw_nom(void *ctx, const char *opt, const char *arg)
{
	return parse_u32(opt, arg, &((struct raw_ctx *)ctx)->o->nom_freq);
}

static int raw_cpuid15(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	return parse_cpuid15(arg, ((struct raw_ctx *)ctx)->o);
}

static int raw_parse(int argc, char **argv, struct import_raw_opts *o)
{
	struct raw_ctx r = { .o = o };
	long pid = 1;
	const struct cli_opt opts[] = {
		CLI_REQ_OPT("output", 'o', CLI_STR, &o->out, "DIR",
			    "the bundle to write"),
		{ .name = "pt", .kind = CLI_CALL, .fn = raw_pt,
		  .arg = "FILE[@OFFSET]", .required = true,
		  .help = "a raw Intel PT stream; @OFFSET skips a header" },
		CLI_CALL_OPT("thread", 0, raw_thread, "TID",
			     "thread id of the preceding --pt (default 1, 2, ...)"),
		CLI_CALL_OPT("elf", 0, raw_elf, "FILE[:BASE]",
			     "an ELF file, loaded at BASE or at its own addresses"),
		CLI_CALL_OPT("raw", 0, raw_blob, "FILE:ADDRESS",
			     "a memory dump holding code at ADDRESS"),
		CLI_CALL_OPT("images", 0, raw_list, "LIST",
			     "a file of lines 'PATH ADDRESS [FILE-OFFSET SIZE]'"),
		CLI_CALL_OPT("cpu", 0, raw_cpu, "F/M[/S]",
			     "the recording CPU (enables libipt's errata workarounds)"),
		CLI_CALL_OPT("mtc-freq", 0, raw_mtc, "N",
			     "timing configuration: MTC frequency"),
		CLI_CALL_OPT("nom-freq", 0, raw_nom, "N",
			     "timing configuration: nominal frequency"),
		CLI_CALL_OPT("cpuid-0x15", 0, raw_cpuid15, "EAX/EBX",
			     "timing configuration: TSC/core crystal ratio"),
		CLI_OPT("pid", 0, CLI_TID, &pid, "PID",
			"the process id the bundle gives the streams (1)"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = RAW, .synopsis = "-o DIR --pt FILE[@OFFSET]",
		.opts = opts, .ctx = &r,
	};
	int a = cli_parse(&cmd, argc, argv);

	if (a < 0)
		return a;
	o->pid = (uint32_t)pid;
	if (!o->out || !o->nstreams) {
		fprintf(stderr, RAW ": %s is required\n",
			!o->out ? "-o DIR" : "--pt FILE");
		cli_usage(&cmd, stderr, false);
		return CLI_EXIT_USAGE;
	}
	for (size_t i = 0; i < o->nstreams; i++)
		for (size_t j = 0; j < i; j++)
			if (o->streams[i].tid == o->streams[j].tid) {
				fprintf(stderr,
					RAW ": --pt %s and --pt %s are both thread %u; give each its own --thread\n",
					o->streams[j].arg, o->streams[i].arg,
					o->streams[i].tid);
				return CLI_EXIT_USAGE;
			}
	return 0;
}

static void raw_free(struct import_raw_opts *o)
{
	size_t i;

	for (i = 0; i < o->nstreams; i++)
		free(o->streams[i].path);
	for (i = 0; i < o->nimages; i++)
		free(o->images[i].path);
	free(o->streams);
	free(o->images);
}

static int raw_main(int argc, char **argv)
{
	struct import_raw_opts o;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = raw_parse(argc, argv, &o);
	ret = ret < 0 ? cli_exit(ret) : import_raw(&o, argc, argv);
	raw_free(&o);
	return ret;
}

#define PERF "ptrec import perf"

static int perf_main(int argc, char **argv)
{
	const char *out = NULL, *symfs = NULL;
	const struct cli_opt opts[] = {
		CLI_REQ_OPT("output", 'o', CLI_STR, &out, "DIR",
			    "the bundle to write"),
		CLI_OPT("symfs", 0, CLI_STR, &symfs, "DIR",
			"look for the recorded images under DIR first"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = PERF, .synopsis = "-o DIR PERF.DATA", .opts = opts,
		.max_args = -1,
		.more = "A perf.data recorded with the intel_pt PMU, per-thread or per-cpu.\n"
			"Images come from the build-id cache ($PERF_BUILDID_DIR, else\n"
			"~/.debug), from under --symfs DIR, or the paths the mmaps recorded.\n",
	};
	int a = cli_parse(&cmd, argc, argv);

	if (a < 0)
		return cli_exit(a);
	if (!out || a != argc - 1) {
		fprintf(stderr, PERF ": %s\n", !out ? "-o DIR is required" :
			a >= argc ? "no perf.data file given" :
			"give exactly one perf.data file");
		cli_usage(&cmd, stderr, false);
		return 2;
	}
	return import_perf(out, argv[a], symfs, argc, argv);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} importers[] = {
	{ "raw", raw_main,
	  "raw -o DIR --pt FILE[@OFFSET] [--thread TID] --elf FILE[:BASE] ...  raw PT streams" },
	{ "perf", perf_main,
	  "perf -o DIR PERF.DATA  a perf.data recorded with the intel_pt PMU" },
};

int cli_import(int argc, char **argv)
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
