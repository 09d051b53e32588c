// SPDX-License-Identifier: GPL-3.0-or-later
/* `ptrec info` and `ptrec insns`: the replay engine from the shell. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rp_internal.h"
#include "replay_cli.h"
#include "cli_args.h"

static const char *const gap_reasons[] = {
	[RP_GAP_DECODE] = "decode error",
	[RP_GAP_NOMAP] = "no code at this address (missing image)",
	[RP_GAP_OVERFLOW] = "trace overflow",
	[RP_GAP_LOST] = "lost trace data",
};

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

struct rp_session *rp_cli_open(const char *cmd, const char *dir)
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

int rp_cli_info(int argc, char **argv)
{
	struct rp_session *s;
	const struct sb_manifest *m;
	uint64_t insns = 0, gaps = 0;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: ptrec info BUNDLE\n");
		return 2;
	}
	s = rp_cli_open("info", argv[1]);
	if (!s)
		return 1;
	m = s->m;
	printf("bundle:   %s\n", argv[1]);
	printf("backend:  %s (%s PT)\n", m->backend,
	       m->pt.emulated ? "emulated" : "hardware");
	printf("cpu:      %s family %u model %u stepping %u\n", m->cpu.vendor,
	       m->cpu.family, m->cpu.model, m->cpu.stepping);
	printf("command: ");
	for (i = 0; i < m->argc; i++)
		printf(" %s", m->argv[i]);
	printf("\n");
	if (m->stop_ns > m->start_ns)
		printf("duration: %.3f s of recording\n",
		       (double)(m->stop_ns - m->start_ns) / 1e9);
	printf("threads:  %zu\n", s->nthreads);
	for (i = 0; i < s->nthreads; i++) {
		struct rp_thread_info ti;

		rp_thread_info(s, s->threads[i].tid, &ti);
		insns += ti.insns;
		gaps += ti.ngaps;
		printf("  thread %u (pid %u): %" PRIu64 " instructions, %" PRIu64
		       " gaps, %" PRIu64 " bytes of trace, %" PRIu64
		       " checkpoints", ti.tid, ti.pid, ti.insns, ti.ngaps,
		       ti.pt_bytes, ti.checkpoints);
		if (ti.last_tsc > ti.first_tsc && m->time.tsc_hz)
			printf(", %.3f ms", (double)(ti.last_tsc - ti.first_tsc) *
			       1e3 / (double)m->time.tsc_hz);
		printf("\n");
	}
	printf("total:    %" PRIu64 " instructions, %" PRIu64 " gaps\n", insns,
	       gaps);
	rp_session_close(s);
	return 0;
}

static void print_gaps(struct rp_session *s, uint32_t tid, uint64_t before)
{
	struct rp_gap g;
	uint64_t i;

	for (i = 0; !rp_thread_gap(s, tid, i, &g); i++)
		if (g.before == before)
			printf("[%s at 0x%" PRIx64 ", trace offset %" PRIu64
			       ": %s]\n", gap_reasons[g.reason], g.ip, g.offset,
			       g.error ? g.error : "");
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

int rp_cli_insns(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "thread", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'F' },
		{ "raw", no_argument, NULL, 'r' },
		{ "source", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *last_file = NULL;
	char line[1024];
	int last_line = 0;
	bool source = false;
	uint64_t from = 1, count = UINT64_MAX, pos, end;
	bool addr_only = false, raw = false;
	struct rp_cursor *c = NULL;
	struct rp_session *s;
	struct rp_insn insn;
	long tid = -1;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (cli_parse_tid("ptrec insns", "--thread", optarg,
					  &tid))
				return 2;
			break;
		case 'f':
			if (cli_parse_u64("ptrec insns", "--from", optarg,
					  &from))
				return 2;
			break;
		case 'c':
			if (cli_parse_u64("ptrec insns", "--count", optarg,
					  &count))
				return 2;
			break;
		case 'F':
			addr_only = !strcmp(optarg, "addr");
			if (!addr_only && strcmp(optarg, "gdb")) {
				fprintf(stderr, "ptrec insns: --format %s: gdb or addr\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			raw = true;
			break;
		case 's':
			source = true;
			break;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc || !from) {
		fprintf(stderr,
			"usage: ptrec insns BUNDLE [--thread TID] [--from N] [--count K] [--raw] [--format=gdb|addr]\n");
		return 2;
	}
	s = rp_cli_open("insns", argv[optind]);
	if (!s)
		return 1;
	if (tid < 0)
		tid = rp_thread_tid(s, 0);
	ret = rp_cursor_new(s, (uint32_t)tid, &c);
	if (ret == -RP_ERR_RANGE) {
		/* An empty history: only its gaps, if it has any. */
		if (!addr_only)
			print_gaps(s, (uint32_t)tid, 0);
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
		print_gaps(s, (uint32_t)tid, pos);
		if (source)
			print_source(s, &insn, &last_file, &last_line);
		if (rp_format_insn(s, &insn, pos, raw, false, line,
				   sizeof(line)))
			break;
		printf("%s\n", line);
	}
	/* Gaps after the last instruction end the history. */
	if (!ret && !addr_only && pos == end)
		print_gaps(s, (uint32_t)tid, end);
	rp_cursor_free(c);
	rp_session_close(s);
	return ret ? 1 : 0;
}
