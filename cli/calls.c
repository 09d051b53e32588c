// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * `ptrec calls` (GDB's record function-call-history layout, with its /c,
 * /l, /i modifiers as --tree, --lines, --insn-range) and `ptrec export`
 * (JSON lines, CSV, and Chrome trace events that ui.perfetto.dev opens).
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_internal.h"
#include "replay_cli.h"
#include "cli_args.h"

int rp_cli_calls(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "thread", required_argument, NULL, 't' },
		{ "tree", no_argument, NULL, 'c' },
		{ "lines", no_argument, NULL, 'l' },
		{ "insn-range", no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	bool tree = false, lines = false, range = false;
	struct rp_session *s;
	struct rp_call *calls;
	long tid = -1;
	size_t n, i;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (cli_parse_tid("ptrec calls", "--thread", optarg,
					  &tid))
				return 2;
			break;
		case 'c':
			tree = true;
			break;
		case 'l':
			lines = true;
			break;
		case 'i':
			range = true;
			break;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr,
			"usage: ptrec calls BUNDLE [--thread TID] [--tree] [--lines] [--insn-range]\n");
		return 2;
	}
	s = rp_cli_open("calls", argv[optind]);
	if (!s)
		return 1;
	if (tid < 0)
		tid = rp_thread_tid(s, 0);
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

static double tsc_us(const struct sb_manifest *m, uint64_t tsc)
{
	struct ptrec_sb_time conv = { .time_shift = m->time.time_shift,
				      .time_mult = m->time.time_mult,
				      .time_zero = 0 };

	return (double)sb_time_to_ns(&conv, tsc) / 1000.0;
}

static int export_insns(struct rp_session *s, uint32_t tid, FILE *f,
			bool csv)
{
	struct rp_cursor *c;
	struct rp_insn insn;
	struct rp_sym sym;
	uint64_t pos, n;
	int ret;

	ret = rp_cursor_new(s, tid, &c);
	if (ret)
		return ret == -RP_ERR_RANGE ? 0 : ret;
	n = rp_cursor_pos(c) + 1;
	for (pos = 0; pos < n; pos++) {
		ret = rp_cursor_peek(c, pos, &insn);
		if (ret)
			break;
		rp_symbolize(s, &insn, &sym);
		if (csv) {
			fprintf(f, "%u,%" PRIu64 ",0x%" PRIx64 ",%" PRIu64
				",%s,%" PRIu64 ",%s,%d\n", tid, pos + 1,
				insn.ip, insn.tsc,
				sym.function ? sym.function : "",
				sym.offset, sym.file ? sym.file : "", sym.line);
		} else {
			char ip[24], *text;
			json_t *o;

			snprintf(ip, sizeof(ip), "0x%" PRIx64, insn.ip);
			o = json_pack("{s:I, s:I, s:s, s:I}",
				      "tid", (json_int_t)tid,
				      "n", (json_int_t)(pos + 1), "ip", ip,
				      "tsc", (json_int_t)insn.tsc);
			if (sym.function) {
				json_object_set_new(o, "function",
						    json_string(sym.function));
				json_object_set_new(o, "offset",
					json_integer((json_int_t)sym.offset));
			}
			if (sym.file) {
				json_object_set_new(o, "file",
						    json_string(sym.file));
				json_object_set_new(o, "line",
						    json_integer(sym.line));
			}
			text = json_dumps(o, JSON_COMPACT);
			fprintf(f, "%s\n", text);
			free(text);
			json_decref(o);
		}
	}
	rp_cursor_free(c);
	return ret;
}

/* One complete ("X") event for call segment @j's invocation. */
static void slice(struct rp_session *s, struct rp_cursor *c, json_t *events,
		  const struct rp_thread *t, const struct rp_call *call,
		  uint64_t last)
{
	struct rp_insn a, b;

	if (rp_cursor_peek(c, call->first, &a) || rp_cursor_peek(c, last, &b))
		return;
	json_array_append_new(events,
		json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:I}",
			  "name", call->function, "cat", "call", "ph", "X",
			  "ts", tsc_us(s->m, a.tsc),
			  "dur", tsc_us(s->m, b.tsc) - tsc_us(s->m, a.tsc),
			  "pid", (json_int_t)t->pid, "tid", (json_int_t)t->tid));
}

/*
 * Chrome trace events: one complete event per function invocation, nested
 * by call depth, one track per thread.  A call opens an invocation; a
 * return closes the deeper ones and continues the caller's; reaching
 * another function sideways (tail call, longjmp, signal handler) replaces
 * the invocation at that depth.
 */
static int export_perfetto(struct rp_session *s, uint32_t tid, json_t *events)
{
	const struct rp_thread *t = rp_find_thread(s, tid);
	struct rp_call *calls;
	struct rp_cursor *c;
	size_t n, i, *open;
	int ret, top = -1;

	ret = rp_calls_build(s, tid, &calls, &n);
	if (ret || !n)
		return ret;
	ret = rp_cursor_new(s, tid, &c);
	open = calloc(n, sizeof(*open));
	if (ret || !open) {
		free(calls);
		free(open);
		return ret ? ret : -RP_ERR_NOMEM;
	}
	json_array_append_new(events,
		json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "name", "thread_name",
			  "ph", "M", "pid", (json_int_t)t->pid, "tid",
			  (json_int_t)tid, "args", "name",
			  tid == t->pid ? "main thread" : "thread"));
	for (i = 0; i < n; i++) {
		int level = calls[i].level;
		bool deeper = i && level > calls[i - 1].level;
		bool back = i && level < calls[i - 1].level;

		/* Close what ends here: deeper ones on a return, and the
		 * one at this level too when moving sideways.
		 */
		while (top >= 0 &&
		       (calls[open[top]].level > level ||
			(!deeper && !back && calls[open[top]].level == level))) {
			slice(s, c, events, t, &calls[open[top]],
			      calls[i].first - 1);
			top--;
		}
		if (back && top >= 0 && calls[open[top]].level == level)
			continue;	/* the caller's invocation goes on */
		open[++top] = i;
	}
	while (top >= 0)
		slice(s, c, events, t, &calls[open[top--]], calls[n - 1].last);
	rp_cursor_free(c);
	free(open);
	free(calls);
	return 0;
}

int rp_cli_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "thread", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL;
	struct rp_session *s;
	json_t *events = NULL;
	long tid = -1;
	size_t i;
	int opt, ret = 0;
	FILE *f;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (cli_parse_tid("ptrec export", "--thread", optarg,
					  &tid))
				return 2;
			break;
		case 'F':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc || !format || !out ||
	    (strcmp(format, "jsonl") && strcmp(format, "csv") &&
	     strcmp(format, "perfetto"))) {
		fprintf(stderr,
			"usage: ptrec export BUNDLE --format=jsonl|csv|perfetto -o FILE [--thread TID]\n");
		return 2;
	}
	s = rp_cli_open("export", argv[optind]);
	if (!s)
		return 1;
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		rp_session_close(s);
		return 1;
	}
	if (!strcmp(format, "csv"))
		fprintf(f, "tid,n,ip,tsc,function,offset,file,line\n");
	if (!strcmp(format, "perfetto"))
		events = json_array();
	for (i = 0; i < rp_thread_count(s) && !ret; i++) {
		uint32_t t = rp_thread_tid(s, i);

		if (tid >= 0 && t != (uint32_t)tid)
			continue;
		ret = events ? export_perfetto(s, t, events) :
		      export_insns(s, t, f, !strcmp(format, "csv"));
	}
	if (events) {
		json_t *root = json_pack("{s:o, s:s}", "traceEvents", events,
					 "displayTimeUnit", "ns");

		if (json_dumpf(root, f, JSON_COMPACT))
			ret = -RP_ERR_IO;
		json_decref(root);
	}
	if (fclose(f) && !ret)
		ret = -RP_ERR_IO;
	if (ret)
		fprintf(stderr, "ptrec export: %s: %s\n", out, rp_errstr(ret));
	rp_session_close(s);
	return ret ? 1 : 0;
}
