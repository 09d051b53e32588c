// SPDX-License-Identifier: GPL-3.0-or-later
/* `ptrec record`: argument parsing, backend choice, summary. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"
#include "record.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ptrec record [OPTIONS] -- PROGRAM [ARGS...]\n"
		"       ptrec record [OPTIONS] -p PID\n"
		"\n"
		"  --backend=auto|emu|kmod  recorder (auto: kmod where /dev/ptrec\n"
		"                           and Intel PT exist, else emu)\n"
		"  -o, --output DIR         bundle directory (default PROGRAM.ptrec)\n"
		"  --start-at SYMBOL|0xADDR where recording starts (default main)\n"
		"  --max-insns N            stop after N instructions\n"
		"  --ground-truth           also store every executed address\n"
		"  --psb-period BYTES       bytes between PSB packets (default 4096)\n"
		"  --long-tnt               long TNT packets instead of short\n"
		"  --counter-clock          timestamps count events, not time (the\n"
		"                           same run recorded twice gives the same trace)\n"
		"  -p, --pid PID            attach to a running process\n"
		"  -q, --quiet              no progress or summary\n");
}

/* PROGRAM.ptrec, or PROGRAM.ptrec-2, ... when taken. */
static void default_out(char *buf, size_t size, const char *prog)
{
	const char *base = strrchr(prog, '/');
	struct stat st;
	int i;

	base = base ? base + 1 : prog;
	snprintf(buf, size, "%s.ptrec", base);
	for (i = 2; stat(buf, &st) == 0 && i < 10000; i++)
		snprintf(buf, size, "%s.ptrec-%d", base, i);
}

int rec_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "start-at", required_argument, NULL, 's' },
		{ "max-insns", required_argument, NULL, 'm' },
		{ "ground-truth", no_argument, NULL, 'g' },
		{ "psb-period", required_argument, NULL, 'P' },
		{ "long-tnt", no_argument, NULL, 'L' },
		{ "counter-clock", no_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_options o = { .stop = &stop_requested };
	const char *backend = "auto";
	struct sigaction sa = { .sa_handler = on_signal };
	struct rec_stats st;
	struct sb_err err;
	char out[4096];
	uint64_t pid = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			backend = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 's':
			o.start_at = optarg;
			break;
		case 'm':
			if (cli_parse_u64("ptrec record", "--max-insns", optarg,
					  &o.max_insns))
				return 2;
			break;
		case 'g':
			o.ground_truth = true;
			break;
		case 'P':
			if (cli_parse_u64("ptrec record", "--psb-period", optarg,
					  &o.psb_period))
				return 2;
			if (o.psb_period < 256) {
				fprintf(stderr, "ptrec record: --psb-period %s: at least 256\n",
					optarg);
				return 2;
			}
			break;
		case 'L':
			o.long_tnt = true;
			break;
		case 'C':
			o.counter_clock = true;
			break;
		case 'p':
			if (cli_parse_u64("ptrec record", "--pid", optarg,
					  &pid))
				return 2;
			if (!pid || pid > INT32_MAX) {
				fprintf(stderr, "ptrec record: --pid %s: no such process\n",
					optarg);
				return 2;
			}
			o.pid = (pid_t)pid;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((optind < argc) == (o.pid != 0)) {
		fprintf(stderr, "ptrec record: give a PROGRAM or -p PID (one of them)\n");
		usage(stderr);
		return 2;
	}
	if (strcmp(backend, "auto") && strcmp(backend, "emu") &&
	    strcmp(backend, "kmod")) {
		fprintf(stderr, "ptrec record: --backend=%s: unknown (auto, emu, kmod)\n",
			backend);
		return 2;
	}
	if (!strcmp(backend, "kmod")) {
		fprintf(stderr,
			"ptrec record: --backend=kmod: the kernel-module recorder is not built yet; use --backend=emu\n");
		return 1;
	}
	if (o.pid == 0)
		o.argv = argv + optind;
	if (!o.out) {
		default_out(out, sizeof(out), o.argv ? o.argv[0] : "attach");
		o.out = out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = rec_emu_record(&o, &st, &err);
	if (ret) {
		fprintf(stderr, "ptrec record: %s\n", err.msg);
		if (ret != -EEXIST && access(o.out, F_OK) == 0)
			fprintf(stderr,
				"ptrec record: %s is incomplete (no manifest.json)\n",
				o.out);
		return 1;
	}
	if (!o.quiet)
		fprintf(stderr,
			"ptrec record: wrote %s: %u processes, %u threads, %" PRIu64
			" instructions, %" PRIu64 " bytes of trace (%.2f bits/instruction)%s\n",
			o.out, st.processes, st.threads, st.insns,
			st.trace_bytes,
			st.insns ? 8.0 * (double)st.trace_bytes / (double)st.insns : 0.0,
			stop_requested ? ", stopped by signal" : "");
	if (st.anomalies)
		fprintf(stderr,
			"ptrec record: warning: %" PRIu64 " control transfers did not match the instruction's class; they are recorded as asynchronous\n",
			st.anomalies);
	return 0;
}
