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

#include "cli.h"
#include "cli_args.h"
#include "record.h"
#include "uapi/ptrec.h"

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
		"  -q, --quiet              no progress or summary\n"
		"  --snapshot-limit BYTES   end-state snapshot: at most this many\n"
		"                           bytes of memory (default 1 GiB)\n"
		"  --no-snapshot            no end-state snapshot\n"
		"\n"
		"  emu only: --start-at, --max-insns, --ground-truth, --long-tnt,\n"
		"  --counter-clock (with --backend=auto they choose emu)\n"
		"\n"
		"  kmod (ptrec.ko, docs/kmod.md) only:\n"
		"  --buffer-size BYTES      PT buffer per thread, power of two (1 MiB)\n"
		"  --regions N              ToPA regions per buffer (8)\n"
		"  --ring                   overwrite the oldest data when a buffer is\n"
		"                           full, recorded as a loss (the default)\n"
		"  --stop-on-full           stop the thread's tracing instead\n"
		"  --kernel                 trace kernel code too\n"
		"  --no-tsc                 no TSC packets\n"
		"  --mtc N                  MTC packets, period encoding N\n"
		"  --cyc N                  cycle-accurate mode, threshold encoding N\n"
		"  --ptwrite                PTWRITE packets\n"
		"  --follow-fork            trace forked children too\n"
		"  --sim-rate N             simulated unit: PTW packets per ms\n"
		"  (--psb-period: a power of two from 2048 with kmod)\n");
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

/*
 * --backend=auto: kmod where /dev/ptrec reports a PT unit (real or
 * simulated) and ptrec may use it, else emu.  Says which on stderr.
 * Returns 0 with *@backend set to "kmod" or "emu", or an exit status.
 */
static int choose_backend(const char **backend, const char *emu_only,
			  const char *kmod_only, bool quiet)
{
	struct ptrec_info info;
	struct sb_err err = { "" };
	char why[600];
	int ret;

	if (!strcmp(*backend, "emu")) {
		if (kmod_only) {
			fprintf(stderr, "ptrec record: %s is an option of --backend=kmod\n",
				kmod_only);
			return 2;
		}
		if (!quiet)
			fprintf(stderr, "ptrec record: backend emu (software recorder, --backend=emu)\n");
		return 0;
	}
	if (emu_only) {
		if (!strcmp(*backend, "kmod") || kmod_only) {
			fprintf(stderr, "ptrec record: %s is an option of the software recorder (--backend=emu), not of %s\n",
				emu_only, kmod_only ? kmod_only : "--backend=kmod");
			return 2;
		}
		*backend = "emu";
		if (!quiet)
			fprintf(stderr, "ptrec record: backend emu (software recorder): %s needs it\n",
				emu_only);
		return 0;
	}
	ret = rec_kmod_probe(&info, &err);
	if (!ret && strcmp(*backend, "kmod") && !rec_kmod_capable()) {
		snprintf(err.msg, sizeof(err.msg), "ptrec.ko is loaded, but tracing with it needs CAP_PERFMON or root");
		ret = -EPERM;
	}
	if (ret) {
		if (!strcmp(*backend, "kmod") || kmod_only) {
			fprintf(stderr, "ptrec record: %s: %s\n",
				kmod_only ? kmod_only : "--backend=kmod",
				err.msg);
			return 1;
		}
		if (ret == -ENOENT)
			snprintf(why, sizeof(why), "no %s, ptrec.ko is not loaded",
				 PTREC_DEVICE);
		else
			snprintf(why, sizeof(why), "%s", err.msg);
		*backend = "emu";
		if (!quiet)
			fprintf(stderr, "ptrec record: backend emu (software recorder): %s\n",
				why);
		return 0;
	}
	*backend = "kmod";
	if (!quiet)
		fprintf(stderr, "ptrec record: backend kmod (%s: %s)\n",
			PTREC_DEVICE, info.flags & PTREC_INFO_SIMULATED ?
			"the module's simulated PT unit, not real Intel PT" :
			"Intel PT");
	return 0;
}

int cli_record(int argc, char **argv)
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
		{ "buffer-size", required_argument, NULL, 1000 },
		{ "regions", required_argument, NULL, 1001 },
		{ "ring", no_argument, NULL, 1002 },
		{ "stop-on-full", no_argument, NULL, 1003 },
		{ "kernel", no_argument, NULL, 1004 },
		{ "no-tsc", no_argument, NULL, 1005 },
		{ "mtc", required_argument, NULL, 1006 },
		{ "cyc", required_argument, NULL, 1007 },
		{ "ptwrite", no_argument, NULL, 1008 },
		{ "follow-fork", no_argument, NULL, 1009 },
		{ "sim-rate", required_argument, NULL, 1010 },
		{ "snapshot-limit", required_argument, NULL, 1011 },
		{ "no-snapshot", no_argument, NULL, 1012 },
		{ NULL, 0, NULL, 0 },
	};
	const char *emu_only = NULL, *kmod_only = NULL;
	uint64_t v;
	struct rec_options o = { .stop = &stop_requested,
				 .kmod = { .mtc = -1, .cyc = -1 } };
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
			emu_only = "--start-at";
			o.start_at = optarg;
			break;
		case 'm':
			emu_only = "--max-insns";
			if (cli_parse_u64("ptrec record", "--max-insns", optarg,
					  &o.max_insns))
				return 2;
			break;
		case 'g':
			emu_only = "--ground-truth";
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
			emu_only = "--long-tnt";
			o.long_tnt = true;
			break;
		case 'C':
			emu_only = "--counter-clock";
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
		case 1000:
			kmod_only = "--buffer-size";
			if (cli_parse_u64("ptrec record", "--buffer-size",
					  optarg, &o.kmod.buf_size))
				return 2;
			break;
		case 1001:
			kmod_only = "--regions";
			if (cli_parse_u64("ptrec record", "--regions", optarg,
					  &v))
				return 2;
			if (!v || v > 256 || (v & (v - 1))) {
				fprintf(stderr, "ptrec record: --regions %s: a power of two from 1 to 256\n",
					optarg);
				return 2;
			}
			o.kmod.nr_regions = (uint32_t)v;
			break;
		case 1002:
			kmod_only = "--ring";
			o.kmod.stop_on_full = false;
			break;
		case 1003:
			kmod_only = "--stop-on-full";
			o.kmod.stop_on_full = true;
			break;
		case 1004:
			kmod_only = "--kernel";
			o.kmod.kernel = true;
			break;
		case 1005:
			kmod_only = "--no-tsc";
			o.kmod.no_tsc = true;
			break;
		case 1006:
		case 1007:
			kmod_only = c == 1006 ? "--mtc" : "--cyc";
			if (cli_parse_u64("ptrec record", kmod_only, optarg, &v))
				return 2;
			if (v > 15) {
				fprintf(stderr, "ptrec record: %s %s: an encoding from 0 to 15\n",
					kmod_only, optarg);
				return 2;
			}
			if (c == 1006)
				o.kmod.mtc = (int)v;
			else
				o.kmod.cyc = (int)v;
			break;
		case 1008:
			kmod_only = "--ptwrite";
			o.kmod.ptwrite = true;
			break;
		case 1009:
			kmod_only = "--follow-fork";
			o.kmod.follow_fork = true;
			break;
		case 1010:
			kmod_only = "--sim-rate";
			if (cli_parse_u64("ptrec record", "--sim-rate", optarg,
					  &v))
				return 2;
			if (v > 1000000) {
				fprintf(stderr, "ptrec record: --sim-rate %s: at most 1000000\n",
					optarg);
				return 2;
			}
			o.kmod.sim_rate = (uint32_t)v;
			break;
		case 1011:
			if (cli_parse_u64("ptrec record", "--snapshot-limit",
					  optarg, &o.snapshot_limit))
				return 2;
			if (!o.snapshot_limit)
				o.no_snapshot = true;
			break;
		case 1012:
			o.no_snapshot = true;
			break;
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
	ret = choose_backend(&backend, emu_only, kmod_only, o.quiet);
	if (ret)
		return ret;
	if (o.pid == 0)
		o.argv = argv + optind;
	if (!o.out) {
		default_out(out, sizeof(out), o.argv ? o.argv[0] : "attach");
		o.out = out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!strcmp(backend, "kmod"))
		ret = rec_kmod_record(&o, &st, &err);
	else
		ret = rec_emu_record(&o, &st, &err);
	if (ret) {
		fprintf(stderr, "ptrec record: %s\n", err.msg);
		if (ret != -EEXIST && access(o.out, F_OK) == 0)
			fprintf(stderr,
				"ptrec record: %s is incomplete (no manifest.json)\n",
				o.out);
		return 1;
	}
	if (!o.quiet && !strcmp(backend, "kmod"))
		fprintf(stderr,
			"ptrec record: wrote %s: %u processes, %u threads, %" PRIu64
			" bytes of trace, %" PRIu64 " sideband records, %" PRIu64
			" context switches, %" PRIu64 " bytes of trace lost%s\n",
			o.out, st.processes, st.threads, st.trace_bytes,
			st.sideband_records, st.switches, st.lost_bytes,
			stop_requested ? ", stopped by signal" : "");
	else if (!o.quiet)
		fprintf(stderr,
			"ptrec record: wrote %s: %u processes, %u threads, %" PRIu64
			" instructions, %" PRIu64 " bytes of trace (%.2f bits/instruction)%s\n",
			o.out, st.processes, st.threads, st.insns,
			st.trace_bytes,
			st.insns ? 8.0 * (double)st.trace_bytes / (double)st.insns : 0.0,
			stop_requested ? ", stopped by signal" : "");
	if (!o.quiet && st.snap_procs)
		fprintf(stderr,
			"ptrec record: snapshot: %u processes, %" PRIu64
			" bytes of memory%s\n", st.snap_procs, st.snap_bytes,
			st.snap_left_out ? " (some left out, listed above)" :
			"");
	if (st.anomalies)
		fprintf(stderr,
			"ptrec record: warning: %" PRIu64 " control transfers did not match the instruction's class; they are recorded as asynchronous\n",
			st.anomalies);
	return 0;
}
