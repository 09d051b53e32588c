// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec import`: the importers' command lines.  Each kind's arguments are
 * parsed here, in the front end, and handed to import/ as values
 * (struct import_raw_opts, import_perf()), so import/ never sees argv
 * beyond what it records in the manifest.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "import.h"

#define RAW "ptrec import raw"
#define MAX_STREAMS 1024

static void raw_usage(FILE *f)
{
	fprintf(f,
		"usage: " RAW " -o DIR --pt FILE[@OFFSET] [--thread TID] [--pt ...]\n"
		"           [--elf FILE[:BASE]]... [--raw FILE:ADDRESS]... [--images LIST]...\n"
		"           [--cpu FAMILY/MODEL[/STEPPING]] [--mtc-freq N] [--nom-freq N]\n"
		"           [--cpuid-0x15 EAX/EBX] [--pid PID]\n"
		"\n"
		"  --pt FILE[@OFFSET]  a raw Intel PT stream; @OFFSET skips a header\n"
		"  --thread TID        thread id of the preceding --pt (default 1, 2, ...)\n"
		"  --elf FILE[:BASE]   an ELF file, loaded at BASE or at its own addresses\n"
		"  --raw FILE:ADDRESS  a memory dump holding code at ADDRESS\n"
		"  --images LIST       a file of lines 'PATH ADDRESS [FILE-OFFSET SIZE]'\n"
		"  --cpu F/M[/S]       the recording CPU (enables libipt's errata workarounds)\n"
		"  --mtc-freq, --nom-freq, --cpuid-0x15 EAX/EBX  timing configuration\n");
}

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

static int raw_parse(int argc, char **argv, struct import_raw_opts *o)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pt", required_argument, NULL, 'p' },
		{ "thread", required_argument, NULL, 't' },
		{ "elf", required_argument, NULL, 'e' },
		{ "raw", required_argument, NULL, 'r' },
		{ "images", required_argument, NULL, 'i' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "mtc-freq", required_argument, NULL, 'm' },
		{ "nom-freq", required_argument, NULL, 'n' },
		{ "cpuid-0x15", required_argument, NULL, 'x' },
		{ "pid", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool tid_given = false;
	struct sb_err err;
	long id;
	int c;

	o->pid = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		struct import_raw_stream *s;
		struct import_raw_image *im;

		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'p':
			if (o->nstreams == MAX_STREAMS) {
				fprintf(stderr, RAW ": more than %d streams\n",
					MAX_STREAMS);
				return -1;
			}
			s = grow(o->streams, o->nstreams, sizeof(*s));
			if (!s)
				return -1;
			o->streams = s;
			s = &s[o->nstreams++];
			memset(s, 0, sizeof(*s));
			s->arg = optarg;
			s->tid = o->nstreams;
			tid_given = false;
			if (split_num("--pt", optarg, '@', &s->path, &s->off,
				      false))
				return -1;
			break;
		case 't':
			if (!o->nstreams || tid_given) {
				fprintf(stderr,
					RAW ": --thread %s: names the thread of the --pt before it; give --pt FILE first\n",
					optarg);
				return -1;
			}
			if (cli_parse_tid(RAW, "--thread", optarg, &id))
				return -1;
			o->streams[o->nstreams - 1].tid = id;
			tid_given = true;
			break;
		case 'e':
		case 'r':
		case 'i':
			im = grow(o->images, o->nimages, sizeof(*im));
			if (!im)
				return -1;
			o->images = im;
			if (raw_image(&im[o->nimages],
				      c == 'e' ? IMPORT_IMG_ELF :
				      c == 'r' ? IMPORT_IMG_RAW : IMPORT_IMG_LIST,
				      optarg))
				return -1;
			o->nimages++;
			break;
		case 'c':
			if (import_parse_cpu(optarg, &o->cpu, &err)) {
				fprintf(stderr, RAW ": %s\n", err.msg);
				return -1;
			}
			o->have_cpu = true;
			break;
		case 'm':
			if (parse_u32("--mtc-freq", optarg, &o->mtc_freq))
				return -1;
			break;
		case 'n':
			if (parse_u32("--nom-freq", optarg, &o->nom_freq))
				return -1;
			break;
		case 'x':
			if (parse_cpuid15(optarg, o))
				return -1;
			break;
		case 'P':
			if (cli_parse_tid(RAW, "--pid", optarg, &id))
				return -1;
			o->pid = id;
			break;
		case 'h':
			raw_usage(stdout);
			exit(0);
		default:
			raw_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, RAW ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->out || !o->nstreams) {
		fprintf(stderr, RAW ": %s is required\n",
			!o->out ? "-o DIR" : "--pt FILE");
		raw_usage(stderr);
		return -1;
	}
	for (size_t i = 0; i < o->nstreams; i++)
		for (size_t j = 0; j < i; j++)
			if (o->streams[i].tid == o->streams[j].tid) {
				fprintf(stderr,
					RAW ": --pt %s and --pt %s are both thread %u; give each its own --thread\n",
					o->streams[j].arg, o->streams[i].arg,
					o->streams[i].tid);
				return -1;
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
	ret = raw_parse(argc, argv, &o) ? 2 : import_raw(&o, argc, argv);
	raw_free(&o);
	return ret;
}

#define PERF "ptrec import perf"

static void perf_usage(FILE *f)
{
	fprintf(f,
		"usage: " PERF " -o DIR [--symfs DIR] PERF.DATA\n"
		"\n"
		"  A perf.data recorded with the intel_pt PMU, per-thread or per-cpu.\n"
		"  Images come from the build-id cache ($PERF_BUILDID_DIR, else\n"
		"  ~/.debug), from under --symfs DIR, or the paths the mmaps recorded.\n");
}

static int perf_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *symfs = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			symfs = optarg;
			break;
		case 'h':
			perf_usage(stdout);
			return 0;
		default:
			perf_usage(stderr);
			return 2;
		}
	}
	if (!out || optind != argc - 1) {
		fprintf(stderr, PERF ": %s\n", !out ? "-o DIR is required" :
			optind >= argc ? "no perf.data file given" :
			"give exactly one perf.data file");
		perf_usage(stderr);
		return 2;
	}
	return import_perf(out, argv[optind], symfs, argc, argv);
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
