// SPDX-License-Identifier: GPL-3.0-or-later
/* `ptrec record`: argument parsing, backend choice, summary. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* What the option handlers of ptrec record fill. */
struct rec_ctx {
	struct rec_options *o;
};

#define REC "ptrec record"

static int rec_u64(const char *opt, const char *arg, uint64_t min,
		   uint64_t max, uint64_t *v, const char *range)
{
	if (cli_parse_u64(REC, opt, arg, v))
		return -1;
	if (*v < min || *v > max) {
		fprintf(stderr, REC ": %s %s: %s\n", opt, arg, range);
		return -1;
	}
	return 0;
}

static int rec_psb(void *ctx, const char *opt, const char *arg)
{
	struct rec_ctx *r = ctx;

	return rec_u64(opt, arg, 256, UINT64_MAX, &r->o->psb_period,
		       "at least 256");
}

static int rec_pid(void *ctx, const char *opt, const char *arg)
{
	struct rec_ctx *r = ctx;
	uint64_t pid;

	if (rec_u64(opt, arg, 1, INT32_MAX, &pid, "no such process"))
		return -1;
	r->o->pid = (pid_t)pid;
	return 0;
}

static int rec_regions(void *ctx, const char *opt, const char *arg)
{
	struct rec_ctx *r = ctx;
	uint64_t v;

	if (rec_u64(opt, arg, 1, 256, &v, "a power of two from 1 to 256"))
		return -1;
	if (v & (v - 1)) {
		fprintf(stderr, REC ": %s %s: a power of two from 1 to 256\n",
			opt, arg);
		return -1;
	}
	r->o->kmod.nr_regions = (uint32_t)v;
	return 0;
}

static int rec_ring(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	((struct rec_ctx *)ctx)->o->kmod.stop_on_full = false;
	return 0;
}

static int rec_stop_on_full(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	((struct rec_ctx *)ctx)->o->kmod.stop_on_full = true;
	return 0;
}

static int rec_encoding(const char *opt, const char *arg, int *out)
{
	uint64_t v;

	if (rec_u64(opt, arg, 0, 15, &v, "an encoding from 0 to 15"))
		return -1;
	*out = (int)v;
	return 0;
}

static int rec_mtc(void *ctx, const char *opt, const char *arg)
{
	return rec_encoding(opt, arg, &((struct rec_ctx *)ctx)->o->kmod.mtc);
}

static int rec_cyc(void *ctx, const char *opt, const char *arg)
{
	return rec_encoding(opt, arg, &((struct rec_ctx *)ctx)->o->kmod.cyc);
}

static int rec_sim_rate(void *ctx, const char *opt, const char *arg)
{
	uint64_t v;

	if (rec_u64(opt, arg, 0, 1000000, &v, "at most 1000000"))
		return -1;
	((struct rec_ctx *)ctx)->o->kmod.sim_rate = (uint32_t)v;
	return 0;
}

static int rec_snapshot_limit(void *ctx, const char *opt, const char *arg)
{
	struct rec_options *o = ((struct rec_ctx *)ctx)->o;

	if (cli_parse_u64(REC, opt, arg, &o->snapshot_limit))
		return -1;
	if (!o->snapshot_limit)
		o->no_snapshot = true;
	return 0;
}

/* "--NAME" of an option cli_parse() noted, into @buf; NULL for none. */
static const char *dashed(const char *name, char *buf, size_t size)
{
	if (!name)
		return NULL;
	snprintf(buf, size, "--%s", name);
	return buf;
}

/*
 * What ptrec record exits with once the bundle is written: the recorded
 * program's status, as a shell (and rr record) reports a command's: its
 * exit status, or 128 + the signal that killed it (139 for SIGSEGV).
 * -p: the attached process's, when it ended while recorded.  0 where
 * the recording ended first (--max-insns, SIGINT or SIGTERM to ptrec,
 * -p's detach): ptrec ended it, not the program.  Its own errors are 1
 * and usage errors 2, which a program's status of 1 or 2 also gives.
 */
static int program_status(const struct rec_stats *st)
{
	if (!st->main_ended)
		return 0;
	if (WIFEXITED(st->main_wstatus))
		return WEXITSTATUS(st->main_wstatus);
	if (WIFSIGNALED(st->main_wstatus))
		return 128 + WTERMSIG(st->main_wstatus);
	return 0;
}

int cli_record(int argc, char **argv)
{
	const char *emu_only = NULL, *kmod_only = NULL;
	char emu_buf[32], kmod_buf[32];
	struct rec_options o = { .stop = &stop_requested,
				 .kmod = { .mtc = -1, .cyc = -1 } };
	struct rec_ctx r = { .o = &o };
	const char *backend = "auto";
	struct sigaction sa = { .sa_handler = on_signal };
	struct rec_stats st;
	struct sb_err err;
	char out[4096];
	int a, ret;
#define EMU .seen = &emu_only
#define KMOD .seen = &kmod_only
	const struct cli_opt opts[] = {
		CLI_OPT("backend", 0, CLI_STR, &backend, "auto|emu|kmod",
			"recorder (auto: kmod where /dev/ptrec and Intel PT exist, else emu)"),
		CLI_OPT("output", 'o', CLI_STR, &o.out, "DIR",
			"bundle directory (default PROGRAM.ptrec)"),
		{ .name = "start-at", .kind = CLI_STR, .dst = &o.start_at,
		  .arg = "SYMBOL|0xADDR", EMU,
		  .help = "where recording starts (default main)" },
		{ .name = "max-insns", .kind = CLI_U64, .dst = &o.max_insns,
		  .arg = "N", EMU, .help = "stop after N instructions" },
		{ .name = "ground-truth", .kind = CLI_FLAG,
		  .dst = &o.ground_truth, EMU,
		  .help = "also store every executed address and the registers after it" },
		CLI_CALL_OPT("psb-period", 0, rec_psb, "BYTES",
			     "bytes between PSB packets (default 4096; kmod: a power of two from 2048)"),
		{ .name = "long-tnt", .kind = CLI_FLAG, .dst = &o.long_tnt,
		  EMU, .help = "long TNT packets instead of short" },
		{ .name = "no-ret-compression", .kind = CLI_FLAG,
		  .dst = &o.no_retcomp, EMU,
		  .help = "a TIP for every return, as with DisRETC" },
		{ .name = "counter-clock", .kind = CLI_FLAG,
		  .dst = &o.counter_clock, EMU,
		  .help = "timestamps count events, not time (the same run recorded twice gives the same trace)" },
		CLI_CALL_OPT("pid", 'p', rec_pid, "PID",
			     "attach to a running process"),
		CLI_FLAG_OPT("quiet", 'q', &o.quiet, "no progress or summary"),
		CLI_CALL_OPT("snapshot-limit", 0, rec_snapshot_limit, "BYTES",
			     "end-state snapshot: at most this many bytes of memory (default 1 GiB)"),
		CLI_FLAG_OPT("no-snapshot", 0, &o.no_snapshot,
			     "no end-state snapshot"),
		{ .name = "buffer-size", .kind = CLI_U64,
		  .dst = &o.kmod.buf_size, .arg = "BYTES", KMOD,
		  .help = "kmod: PT buffer per thread, power of two (1 MiB)" },
		{ .name = "regions", .kind = CLI_CALL, .fn = rec_regions,
		  .arg = "N", KMOD, .help = "kmod: ToPA regions per buffer (8)" },
		{ .name = "ring", .kind = CLI_CALL, .fn = rec_ring, KMOD,
		  .help = "kmod: overwrite the oldest data when a buffer is full, recorded as a loss (the default)" },
		{ .name = "stop-on-full", .kind = CLI_CALL,
		  .fn = rec_stop_on_full, KMOD,
		  .help = "kmod: stop the thread's tracing instead" },
		{ .name = "kernel", .kind = CLI_FLAG, .dst = &o.kmod.kernel,
		  KMOD, .help = "kmod: trace kernel code too" },
		{ .name = "no-tsc", .kind = CLI_FLAG, .dst = &o.kmod.no_tsc,
		  KMOD, .help = "kmod: no TSC packets" },
		{ .name = "mtc", .kind = CLI_CALL, .fn = rec_mtc, .arg = "N",
		  KMOD, .help = "kmod: MTC packets, period encoding N" },
		{ .name = "cyc", .kind = CLI_CALL, .fn = rec_cyc, .arg = "N",
		  KMOD, .help = "kmod: cycle-accurate mode, threshold encoding N" },
		{ .name = "ptwrite", .kind = CLI_FLAG, .dst = &o.kmod.ptwrite,
		  KMOD, .help = "kmod: PTWRITE packets" },
		{ .name = "follow-fork", .kind = CLI_FLAG,
		  .dst = &o.kmod.follow_fork, KMOD,
		  .help = "kmod: trace forked children too" },
		{ .name = "no-syscall-regs", .kind = CLI_FLAG,
		  .dst = &o.kmod.no_sysregs, KMOD,
		  .help = "kmod: no REGS records of system calls' results" },
		{ .name = "sim-rate", .kind = CLI_CALL, .fn = rec_sim_rate,
		  .arg = "N", KMOD,
		  .help = "kmod: simulated unit: PTW packets per ms" },
		CLI_END,
	};
#undef EMU
#undef KMOD
	const struct cli_cmd cmd = {
		.name = REC, .synopsis = "[OPTIONS] -- PROGRAM [ARGS...]",
		.opts = opts, .max_args = -1, .in_order = true, .ctx = &r,
		.more = "       ptrec record [OPTIONS] -p PID\n\n"
			"emu only: --start-at, --max-insns, --ground-truth, --long-tnt,\n"
			"--counter-clock (with --backend=auto they choose emu).\n"
			"kmod (ptrec.ko, docs/kmod.md) only: the options marked kmod.\n"
			"Exits with the program's status once the bundle is written\n"
			"(128 + the signal that killed it), 0 where recording stopped\n"
			"first, 1 on its own errors.\n",
	};

	a = cli_parse(&cmd, argc, argv);
	if (a < 0)
		return cli_exit(a);
	emu_only = dashed(emu_only, emu_buf, sizeof(emu_buf));
	kmod_only = dashed(kmod_only, kmod_buf, sizeof(kmod_buf));
	if ((a < argc) == (o.pid != 0)) {
		fprintf(stderr, "ptrec record: give a PROGRAM or -p PID (one of them)\n");
		cli_usage(&cmd, stderr, false);
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
		o.argv = argv + a;
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
	if (!o.quiet && st.main_ended && WIFSIGNALED(st.main_wstatus))
		fprintf(stderr,
			"ptrec record: %s died of signal %d (SIG%s)%s: the history ends there (ptrec replay %s)\n",
			o.pid ? "the process" : "the program",
			WTERMSIG(st.main_wstatus),
			sigabbrev_np(WTERMSIG(st.main_wstatus)) ?
			sigabbrev_np(WTERMSIG(st.main_wstatus)) : "?",
			WCOREDUMP(st.main_wstatus) ? ", core dumped" : "",
			o.out);
	else if (!o.quiet && st.main_ended &&
		 WIFEXITED(st.main_wstatus) && WEXITSTATUS(st.main_wstatus))
		fprintf(stderr, "ptrec record: %s exited with status %d\n",
			o.pid ? "the process" : "the program",
			WEXITSTATUS(st.main_wstatus));
	if (!o.quiet && st.snap_procs)
		fprintf(stderr,
			"ptrec record: snapshot: %u processes, %" PRIu64
			" bytes of memory in %.1f ms%s\n", st.snap_procs,
			st.snap_bytes, (double)st.snap_ns / 1e6,
			st.snap_left_out ? " (some left out, listed above)" :
			"");
	if (st.anomalies)
		fprintf(stderr,
			"ptrec record: warning: %" PRIu64 " control transfers did not match the instruction's class; they are recorded as asynchronous\n",
			st.anomalies);
	return program_status(&st);
}
