// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The exporters (replay/export.c) on a recording of tests/programs/threads
 * made with --ground-truth: JSON lines and CSV must list, thread by thread
 * and in order, exactly the addresses the recorder saw executed (the
 * software recorder's ground truth, read with sideband's own reader), one
 * thread alone with --thread's filter; Chrome trace events must be JSON
 * with one track per thread and properly nested slices.  Errors: a thread
 * not in the bundle writes nothing, a stream that cannot be written is
 * -RP_ERR_IO.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sideband.h"

#ifndef EXP_BUNDLE
#error "EXP_BUNDLE: a recording of tests/programs/threads with ground truth"
#endif

static struct rp_session *s;
static struct sb_manifest *m;

static void setup(void)
{
	struct sb_err err;

	cr_assert_eq(rp_session_open(&s, EXP_BUNDLE), 0, "%s",
		     rp_session_errmsg(s));
	cr_assert_eq(sb_manifest_load(&m, EXP_BUNDLE, &err), 0, "%s",
		     err.msg);
	cr_assert_gt(m->nthreads, 1, "the recording has several threads");
}

static void teardown(void)
{
	sb_manifest_free(m);
	rp_session_close(s);
}

TestSuite(export, .init = setup, .fini = teardown);

/* The ground truth of thread @i of the manifest. */
static uint64_t *truth(size_t i, size_t *n)
{
	char path[4096];
	struct sb_err err;
	uint64_t *ips;

	cr_assert_not_null(m->threads[i].truth);
	snprintf(path, sizeof(path), "%s/%s", EXP_BUNDLE, m->threads[i].truth);
	cr_assert_eq(sb_truth_load(path, &ips, n, &err), 0, "%s", err.msg);
	return ips;
}

/* rp_export() into memory; returns its text (free it) and *@ret. */
static char *export(enum rp_export_format fmt, uint32_t tid, int *ret,
		    size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	cr_assert_not_null(f);
	*ret = rp_export(s, fmt, tid, f);
	fclose(f);
	return text;
}

/* Checks the per-instruction lines of @text, starting at @line, against
 * thread @i's ground truth.  Returns the line after them.
 */
static char *check_rows(char *line, size_t i, bool csv)
{
	size_t n, k;
	uint64_t *ips = truth(i, &n);

	for (k = 0; k < n; k++) {
		char *nl;
		uint64_t tid, num, ip;

		cr_assert(line && *line, "thread %u: %zu of %zu lines",
			  m->threads[i].tid, k, n);
		nl = strchr(line, '\n');
		cr_assert_not_null(nl);
		*nl = '\0';
		if (csv) {
			cr_assert_eq(sscanf(line, "%" SCNu64 ",%" SCNu64
					    ",0x%" SCNx64 ",", &tid, &num,
					    &ip), 3, "%s", line);
		} else {
			json_error_t e;
			json_t *o = json_loads(line, 0, &e);
			const char *ips_text;

			cr_assert_not_null(o, "not JSON: %s", line);
			tid = (uint64_t)json_integer_value(
				json_object_get(o, "tid"));
			num = (uint64_t)json_integer_value(
				json_object_get(o, "n"));
			ips_text = json_string_value(json_object_get(o, "ip"));
			cr_assert_not_null(ips_text);
			ip = strtoull(ips_text, NULL, 16);
			json_decref(o);
		}
		cr_assert_eq(tid, m->threads[i].tid);
		cr_assert_eq(num, k + 1, "instructions numbered from 1");
		cr_assert_eq(ip, ips[k], "thread %u instruction %zu: 0x%" PRIx64
			     ", ground truth 0x%" PRIx64, m->threads[i].tid,
			     k + 1, ip, ips[k]);
		line = nl + 1;
	}
	free(ips);
	return line;
}

Test(export, jsonl_is_the_ground_truth_of_every_thread_in_order)
{
	size_t len, i;
	int ret;
	char *text = export(RP_EXPORT_JSONL, 0, &ret, &len), *line = text;

	cr_assert_eq(ret, 0, "%s", rp_errstr(ret));
	for (i = 0; i < m->nthreads; i++)
		line = check_rows(line, i, false);
	cr_assert_str_empty(line, "nothing after the last thread");
	free(text);
}

Test(export, csv_has_a_header_and_the_ground_truth)
{
	static const char head[] = "tid,n,ip,tsc,function,offset,file,line\n";
	size_t len, i;
	int ret;
	char *text = export(RP_EXPORT_CSV, 0, &ret, &len), *line;

	cr_assert_eq(ret, 0);
	cr_assert(!strncmp(text, head, strlen(head)), "header: %.60s", text);
	line = text + strlen(head);
	for (i = 0; i < m->nthreads; i++)
		line = check_rows(line, i, true);
	cr_assert_str_empty(line);
	free(text);
}

Test(export, one_thread_alone)
{
	size_t len, i = m->nthreads - 1;
	int ret;
	char *text = export(RP_EXPORT_JSONL, m->threads[i].tid, &ret, &len);

	cr_assert_eq(ret, 0);
	cr_assert_str_empty(check_rows(text, i, false));
	free(text);
}

Test(export, a_thread_not_in_the_bundle_writes_nothing)
{
	size_t len;
	int ret;
	char *text = export(RP_EXPORT_CSV, 999999, &ret, &len);

	cr_assert_eq(ret, -RP_ERR_NOTHREAD);
	cr_assert_eq(len, 0, "wrote %zu bytes", len);
	free(text);
}

Test(export, a_write_error_is_an_io_error)
{
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_assert_eq(rp_export(s, RP_EXPORT_JSONL, 0, f), -RP_ERR_IO);
	fclose(f);
}

Test(export, format_names)
{
	cr_assert_eq(rp_export_format_by_name("jsonl"), RP_EXPORT_JSONL);
	cr_assert_eq(rp_export_format_by_name("csv"), RP_EXPORT_CSV);
	cr_assert_eq(rp_export_format_by_name("perfetto"), RP_EXPORT_PERFETTO);
	cr_assert_eq(rp_export_format_by_name("json"), -RP_ERR_INVAL);
	cr_assert_eq(rp_export(s, (enum rp_export_format)7, 0, stdout),
		     -RP_ERR_INVAL);
}

Test(export, perfetto_tracks_and_nested_slices)
{
	size_t len, i, j, k;
	int ret;
	char *text = export(RP_EXPORT_PERFETTO, 0, &ret, &len);
	json_error_t e;
	json_t *root = json_loads(text, 0, &e), *ev;

	cr_assert_eq(ret, 0);
	cr_assert_not_null(root, "not JSON: %s", e.text);
	ev = json_object_get(root, "traceEvents");
	cr_assert(json_is_array(ev));
	for (i = 0; i < m->nthreads; i++) {
		json_int_t tid = m->threads[i].tid;
		size_t meta = 0, slices = 0;
		json_t *a, *b;

		json_array_foreach(ev, j, a) {
			if (json_integer_value(json_object_get(a, "tid")) != tid)
				continue;
			if (!strcmp(json_string_value(
					json_object_get(a, "ph")), "M")) {
				meta++;
				continue;
			}
			slices++;
			cr_assert_geq(json_real_value(json_object_get(a, "dur")),
				      0.0);
			json_array_foreach(ev, k, b) {
				double as, ae, bs, be;

				if (k <= j || json_integer_value(
					json_object_get(b, "tid")) != tid ||
				    strcmp(json_string_value(
					json_object_get(b, "ph")), "X"))
					continue;
				as = json_real_value(json_object_get(a, "ts"));
				ae = as + json_real_value(
					json_object_get(a, "dur"));
				bs = json_real_value(json_object_get(b, "ts"));
				be = bs + json_real_value(
					json_object_get(b, "dur"));
				/* Disjoint, or one inside the other. */
				cr_assert(ae <= bs + 1e-3 || be <= as + 1e-3 ||
					  (as <= bs + 1e-3 && be <= ae + 1e-3) ||
					  (bs <= as + 1e-3 && ae <= be + 1e-3),
					  "thread %lld: slices overlap",
					  (long long)tid);
			}
		}
		cr_assert_eq(meta, 1, "one track name per thread");
		cr_assert_gt(slices, 0, "thread %lld has calls",
			     (long long)tid);
	}
	json_decref(root);
	free(text);
}

/*
 * The software recorder writes no CYC (docs/recorder.md): rp_insn_cycles()
 * must say so (@on stays false, no cycles anywhere), each instruction's
 * stream offset must never go back, and a thread not in the bundle is
 * -RP_ERR_NOTHREAD.  tests/import/cycles.sh checks streams with CYC.
 */
Test(export, no_cycles_without_cyc_packets)
{
	uint32_t tid = rp_thread_tid(s, 0);
	struct rp_cycles cy = { 0 };
	struct rp_insn insn, prev;
	struct rp_cursor *c;
	uint64_t pos, n, cyc = 1;

	cr_assert_eq(rp_cursor_new(s, tid, &c), 0);
	n = rp_cursor_pos(c) + 1;
	for (pos = 0; pos < n; pos++) {
		cr_assert_eq(rp_cursor_peek(c, pos, &insn), 0);
		cr_assert_eq(rp_insn_cycles(s, tid, &cy, pos ? &prev : NULL,
					    &insn, &cyc), 0);
		cr_assert_eq(cyc, 0, "instruction %" PRIu64 ": %" PRIu64
			     " cycles", pos + 1, cyc);
		cr_assert(!pos || insn.pkt_end >= prev.pkt_end,
			  "instruction %" PRIu64 ": offset %" PRIu64
			  " before %" PRIu64, pos + 1, insn.pkt_end,
			  prev.pkt_end);
		prev = insn;
	}
	cr_assert(!cy.on, "no CYC in the stream");
	cr_assert_gt(insn.pkt_end, 0, "the offsets are kept");
	cr_assert_eq(rp_insn_cycles(s, 0xfffffff0u, &cy, NULL, &insn, &cyc),
		     -RP_ERR_NOTHREAD);
	rp_cursor_free(c);
}
