// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec info` and `ptrec insns`: the replay engine from the shell, over
 * libptrec's public header (replay.h) only.  Both show the trace's events
 * (replay.h, "events"): info counts them per kind, insns prints each
 * between the instructions it lies between, as GDB's instruction history
 * does ("[ptwrite: 0x2a]", "[interrupt: 0x... -> 0x...]", "[disabled]").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "replay.h"
#include "replay_cli.h"


/* Redrawn at most ten times a second, only on a terminal. */
static void progress_bar(void *ctx, uint64_t done, uint64_t total)
{
	static struct timespec last;
	struct timespec now;
	int pct = total ? (int)(done * 100 / total) : 100;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (done < total && (now.tv_sec - last.tv_sec) * 1000000000L +
	    (now.tv_nsec - last.tv_nsec) < 100000000L)
		return;
	last = now;
	fprintf(stderr, "\rptrec %s: decoding [%-40.*s] %3d%%",
		(const char *)ctx, pct * 40 / 100,
		"########################################", pct);
	if (done >= total)
		fprintf(stderr, "\r%*s\r", 70, "");
}

struct rp_session *cli_session_open(const char *cmd, const char *dir)
{
	struct rp_session *s;
	int ret;

	ret = rp_session_open_progress(&s, dir, isatty(2) ? progress_bar :
				       NULL, (void *)cmd);
	if (ret) {
		fprintf(stderr, "ptrec %s: %s: %s\n", cmd,
			*rp_session_errmsg(s) ? rp_session_errmsg(s) : dir,
			rp_errstr(ret));
		rp_session_close(s);
		return NULL;
	}
	return s;
}

int cli_thread_check(const char *cmd, struct rp_session *s, const char *dir,
		     long tid)
{
	struct rp_thread_info ti;
	size_t i, n = rp_thread_count(s);

	if (!rp_thread_info(s, (uint32_t)tid, &ti))
		return 0;
	fprintf(stderr, "%s: --thread %ld: no such thread in %s (", cmd, tid,
		dir);
	if (!n)
		fprintf(stderr, "it has none");
	for (i = 0; i < n && i < 16; i++)
		fprintf(stderr, "%s%u", i ? ", " : "threads: ",
			rp_thread_tid(s, i));
	fprintf(stderr, "%s)\n", i < n ? ", ..." : "");
	return -1;
}

/*
 * The tasks the recorder let run untraced (UNTRACED records, sideband
 * format 6): tid, process, creator, and when, in ms from the history's
 * start (@t0: the earliest thread's first time; 0: none).  Nothing when
 * there are none.
 */
static void print_untraced(struct rp_session *s, uint64_t t0)
{
	size_t i, n = rp_untraced_count(s);
	uint64_t ns, ns0;

	if (!n)
		return;
	printf("untraced: %zu task%s, no history (%s may have written any memory it shares)\n",
	       n, n > 1 ? "s" : "", n > 1 ? "each" : "it");
	for (i = 0; i < n; i++) {
		struct rp_untraced u;

		if (rp_untraced_info(s, i, &u))
			break;
		printf("  task %u (pid %u): made by thread %u (pid %u)", u.tid,
		       u.pid, u.parent_tid, u.parent_pid);
		if (t0 && !rp_tsc_to_ns(s, u.tsc, &ns) &&
		    !rp_tsc_to_ns(s, t0, &ns0))
			printf(" %.3f ms %s the history's start",
			       (double)(ns < ns0 ? ns0 - ns : ns - ns0) / 1e6,
			       ns < ns0 ? "before" : "after");
		else
			printf(" at time %" PRIu64, u.tsc);
		if (u.reason == RP_UNTRACED_TID_REUSED)
			printf(": the tid of a thread recorded before\n");
		else
			printf(": reason %u\n", u.reason);
	}
}

int cli_info(int argc, char **argv)
{
	static const struct cli_opt opts[] = { CLI_END };
	static const struct cli_cmd cmd = {
		.name = "ptrec info", .synopsis = "BUNDLE", .opts = opts,
		.min_args = 1, .max_args = 1,
	};
	struct rp_session_info m;
	struct rp_session *s;
	uint64_t insns = 0, gaps = 0, events = 0, t0 = 0;
	size_t i, n;
	int a = cli_parse(&cmd, argc, argv);

	if (a < 0)
		return cli_exit(a);
	s = cli_session_open("info", argv[a]);
	if (!s)
		return 1;
	rp_session_info(s, &m);
	n = rp_thread_count(s);
	printf("bundle:   %s\n", argv[a]);
	printf("backend:  %s (%s PT)\n", m.backend,
	       m.emulated ? "emulated" : "hardware");
	printf("cpu:      %s family %u model %u stepping %u\n", m.cpu_vendor,
	       m.cpu_family, m.cpu_model, m.cpu_stepping);
	printf("command: ");
	for (i = 0; i < m.argc; i++)
		printf(" %s", m.argv[i]);
	printf("\n");
	if (m.stop_ns > m.start_ns)
		printf("duration: %.3f s of recording\n",
		       (double)(m.stop_ns - m.start_ns) / 1e9);
	printf("threads:  %zu\n", n);
	for (i = 0; i < n; i++) {
		uint64_t counts[RP_EV_KINDS];
		struct rp_thread_info ti;
		unsigned int k;
		bool first = true;

		rp_thread_info(s, rp_thread_tid(s, i), &ti);
		if (ti.first_tsc && (!t0 || ti.first_tsc < t0))
			t0 = ti.first_tsc;
		insns += ti.insns;
		gaps += ti.ngaps;
		printf("  thread %u (pid %u): %" PRIu64 " instructions, %" PRIu64
		       " gaps, %" PRIu64 " bytes of trace, %" PRIu64
		       " checkpoints", ti.tid, ti.pid, ti.insns, ti.ngaps,
		       ti.pt_bytes, ti.checkpoints);
		if (ti.last_tsc > ti.first_tsc && m.tsc_hz)
			printf(", %.3f ms", (double)(ti.last_tsc - ti.first_tsc) *
			       1e3 / (double)m.tsc_hz);
		printf("\n");
		rp_thread_event_counts(s, ti.tid, counts);
		for (k = 0; k < RP_EV_KINDS; k++) {
			if (!counts[k])
				continue;
			printf("%s%s %" PRIu64, first ? "    events: " : ", ",
			       rp_event_name(k), counts[k]);
			first = false;
			events += counts[k];
		}
		if (!first)
			printf("\n");
	}
	printf("total:    %" PRIu64 " instructions, %" PRIu64 " gaps, %" PRIu64
	       " events\n", insns, gaps, events);
	print_untraced(s, t0);
	/* The snapshot's own read parses the manifest again: only when
	 * there is one (an import has none).
	 */
	if (m.snapshot)
		cli_snapshot_print(argv[a], false);
	else
		printf("snapshot: none\n");
	rp_session_close(s);
	return 0;
}

static void print_gaps(struct rp_session *s, uint32_t tid, uint64_t before)
{
	char line[1024];
	struct rp_gap g;
	uint64_t i;

	for (i = 0; !rp_thread_gap(s, tid, i, &g); i++)
		if (g.before == before) {
			rp_format_gap(&g, line, sizeof(line));
			printf("%s\n", line);
		}
}

/*
 * The events between instructions @before - 1 (@prev, NULL when not
 * shown) and @before, from event *@next on; *@next moves past them.  An
 * overflow shows as its gap.
 */
static void print_events(struct rp_session *s, uint32_t tid, uint64_t before,
			 const struct rp_insn *prev, uint64_t *next)
{
	struct rp_event ev;
	char text[256];

	for (; !rp_thread_event(s, tid, *next, &ev) && ev.before <= before;
	     ++*next) {
		if (ev.before < before || ev.kind == RP_EV_OVERFLOW)
			continue;
		if (!rp_format_event(s, tid, &ev, prev, text, sizeof(text)))
			printf("[%s]\n", text);
	}
}

/* Source files are named by the bundle's DWARF and are read from this
 * machine: regular files only (a FIFO or device never blocks or streams
 * forever), and no further than SOURCE_MAX bytes.
 */
#define SOURCE_MAX (64l << 20)

static FILE *source_open(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

/* With --source: the source line, when it changes, before its code. */
static void print_source(struct rp_session *s, const struct rp_insn *insn,
			 const char **last_file, int *last_line)
{
	struct rp_sym sym;
	char buf[1024];
	FILE *f;
	int n = 0;

	if (rp_symbolize(s, insn, &sym) || !sym.file || !sym.line ||
	    (*last_file && !strcmp(*last_file, sym.file) &&
	     *last_line == sym.line))
		return;
	*last_file = sym.file;
	*last_line = sym.line;
	f = source_open(sym.file);
	while (f && fgets(buf, sizeof(buf), f) && ++n < sym.line &&
	       ftell(f) < SOURCE_MAX)
		;
	if (f && n == sym.line)
		printf("%s:%d\t%s", sym.file, sym.line, buf);
	else
		printf("%s:%d\n", sym.file, sym.line);
	if (f)
		fclose(f);
}

/* --format=gdb|addr */
static int insns_format(void *ctx, const char *opt, const char *arg)
{
	bool *addr_only = ctx;

	*addr_only = !strcmp(arg, "addr");
	if (!*addr_only && strcmp(arg, "gdb")) {
		fprintf(stderr, "ptrec insns: %s %s: gdb or addr\n", opt, arg);
		return -1;
	}
	return 0;
}

int cli_insns(int argc, char **argv)
{
	const char *last_file = NULL;
	char line[1024];
	int last_line = 0;
	bool source = false;
	uint64_t from = 1, count = UINT64_MAX, pos, end, ev = 0, t0 = 0;
	bool addr_only = false, raw = false, with_time = false;
	bool have_prev = false;
	struct rp_cursor *c = NULL;
	struct rp_session *s;
	struct rp_insn insn, prev;
	struct rp_cycles cy = { 0 };
	struct rp_thread_info ti;
	long tid = -1;
	int a, ret;
	const struct cli_opt opts[] = {
		CLI_OPT("thread", 0, CLI_TID, &tid, "TID",
			"the thread (default: the first)"),
		CLI_OPT("from", 0, CLI_U64, &from, "N",
			"start at instruction N (1-based)"),
		CLI_OPT("count", 0, CLI_U64, &count, "K",
			"print K instructions"),
		CLI_FLAG_OPT("raw", 0, &raw,
			     "with the instruction bytes (GDB's /r)"),
		CLI_FLAG_OPT("source", 0, &source,
			     "the source line before its code"),
		CLI_FLAG_OPT("time", 0, &with_time,
			     "each instruction's time (ns from the first) and "
			     "its core cycles where the trace has CYC"),
		CLI_CALL_OPT("format", 0, insns_format, "gdb|addr",
			     "GDB's layout, or addresses only"),
		CLI_END,
	};
	const struct cli_cmd cmd = {
		.name = "ptrec insns", .synopsis = "BUNDLE", .opts = opts,
		.min_args = 1, .max_args = 1, .ctx = &addr_only,
	};

	a = cli_parse(&cmd, argc, argv);
	if (a < 0)
		return cli_exit(a);
	if (!from) {
		fprintf(stderr, "ptrec insns: --from 0: instructions count from 1\n");
		return 2;
	}
	s = cli_session_open("insns", argv[a]);
	if (!s)
		return 1;
	if (tid < 0)
		tid = rp_thread_tid(s, 0);
	else if (cli_thread_check("ptrec insns", s, argv[a], tid)) {
		rp_session_close(s);
		return 1;
	}
	ret = rp_cursor_new(s, (uint32_t)tid, &c);
	if (ret == -RP_ERR_RANGE) {
		/* An empty history: only its gaps, if it has any. */
		if (!addr_only) {
			print_events(s, (uint32_t)tid, 0, NULL, &ev);
			print_gaps(s, (uint32_t)tid, 0);
		}
		rp_session_close(s);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "ptrec insns: thread %ld: %s\n", tid,
			rp_errstr(ret));
		rp_session_close(s);
		return 1;
	}
	end = rp_cursor_pos(c) + 1;
	rp_thread_info(s, (uint32_t)tid, &ti);
	if (rp_tsc_to_ns(s, ti.first_tsc, &t0))
		t0 = UINT64_MAX;	/* TSC ticks: no conversion */
	ev = rp_thread_event_find(s, (uint32_t)tid, from - 1);
	if (from > 1 && from - 2 < end)
		have_prev = !rp_cursor_peek(c, from - 2, &prev);

	for (pos = from - 1; pos < end && count; pos++, count--) {
		ret = rp_cursor_peek(c, pos, &insn);
		if (ret) {
			fprintf(stderr, "ptrec insns: %s: %s\n",
				rp_session_errmsg(s), rp_errstr(ret));
			break;
		}
		if (addr_only) {
			printf("0x%" PRIx64 "\n", insn.ip);
			continue;
		}
		print_events(s, (uint32_t)tid, pos, have_prev ? &prev : NULL,
			     &ev);
		print_gaps(s, (uint32_t)tid, pos);
		if (source)
			print_source(s, &insn, &last_file, &last_line);
		if (rp_format_insn(s, &insn, pos, raw, false, line,
				   sizeof(line)))
			break;
		if (with_time && insn.tsc && t0 != UINT64_MAX) {
			uint64_t ns = 0;

			rp_tsc_to_ns(s, insn.tsc, &ns);
			printf("[%+" PRId64 " ns] ", (int64_t)(ns - t0));
		} else if (with_time && insn.tsc) {
			printf("[tsc %" PRIu64 "] ", insn.tsc);
		} else if (with_time) {
			printf("[no time] ");
		}
		if (with_time) {
			/* Core cycles where the stream has CYC packets. */
			uint64_t cyc = 0;

			if (!rp_insn_cycles(s, (uint32_t)tid, &cy,
					    have_prev ? &prev : NULL, &insn,
					    &cyc) && cy.on)
				printf("[cyc %" PRIu64 "] ", cyc);
		}
		printf("%s\n", line);
		prev = insn;
		have_prev = true;
	}
	/* Events and gaps after the last instruction end the history. */
	if (!ret && !addr_only && pos == end) {
		print_events(s, (uint32_t)tid, end, have_prev ? &prev : NULL,
			     &ev);
		print_gaps(s, (uint32_t)tid, end);
	}
	rp_cursor_free(c);
	rp_session_close(s);
	return ret ? 1 : 0;
}
