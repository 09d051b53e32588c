// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * scalecheck BUNDLE TRUTH: decodes a bundle ptgen wrote with libptrec and
 * compares it with ptgen's ground truth (tools/ptgen/truth.h):
 *   - the instruction count, no gaps, one checkpoint per PSB;
 *   - every segment's address hash (every instruction is read);
 *   - each sample's address, and where reverse-continue to a breakpoint at
 *     it (rp_cursor_search), reverse-finish and reverse-next from it go;
 *   - forward finish from each sample against a plain scan of the
 *     instructions;
 *   - (white box) each checkpoint's call depth and lowest depth, which
 *     let finish and next skip segments, against the decoded instructions,
 *     and the same from the instruction decoder's index;
 *   - a packet census of the stream (printed; the test script checks that
 *     each packet kind the recorders write is there).
 * Prints the first difference, naming segment or sample and position, and
 * exits 1 on any.  The index is built afresh (PTREC_INDEX_CACHE=0) unless
 * SCALECHECK_CACHE is set.
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "rp_internal.h"
#include "sideband.h"
#include "truth.h"

static int errors;

#define FAIL(...) do { \
	if (errors++ < 20) \
		fprintf(stderr, "scalecheck: " __VA_ARGS__); \
} while (0)

static int census(const char *dir, const char *rel)
{
	static const struct {
		enum pt_packet_type type;
		const char *name;
	} kinds[] = {
		{ ppt_psb, "psb" }, { ppt_psbend, "psbend" },
		{ ppt_fup, "fup" }, { ppt_tsc, "tsc" }, { ppt_mode, "mode" },
		{ ppt_tnt_8, "tnt8" }, { ppt_tnt_64, "tnt64" },
		{ ppt_tip, "tip" }, { ppt_tip_pge, "tip_pge" },
		{ ppt_tip_pgd, "tip_pgd" },
	};
	uint64_t count[sizeof(kinds) / sizeof(kinds[0])] = { 0 };
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	char path[4096];
	uint8_t *buf;
	size_t len, i;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	if (!buf || fread(buf, 1, len, f) != len) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	ret = d ? pt_pkt_sync_forward(d) : -1;
	while (ret >= 0) {
		ret = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (ret < 0)
			break;
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (kinds[i].type == pkt.type)
				count[i]++;
	}
	if (ret != -pte_eos)
		FAIL("%s: packet decoder: %s\n", path,
		     pt_errstr(pt_errcode(ret)));
	printf("packets:");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		printf(" %s=%" PRIu64, kinds[i].name, count[i]);
	printf("\n");
	pt_pkt_free_decoder(d);
	free(buf);
	return 0;
}

/* Forward finish from @from by a plain scan; PTGEN_NONE past @limit. */
static uint64_t scan_finish(struct rp_cursor *c, uint64_t from, uint64_t n,
			    uint64_t limit)
{
	struct rp_insn in;
	int64_t depth = 0;
	uint64_t p;

	for (p = from; p < n && p - from < limit; p++) {
		if (rp_cursor_peek(c, p, &in))
			return PTGEN_NONE;
		if (in.iclass == RP_IC_CALL)
			depth++;
		else if (in.iclass == RP_IC_RETURN && depth-- == 0)
			return p + 1 < n ? p + 1 : UINT64_MAX;
	}
	return p == n ? UINT64_MAX : PTGEN_NONE;
}

/* Each checkpoint's depth summary against the decoded instructions. */
static void check_depths(struct rp_session *s, struct rp_cursor *c,
			 uint32_t tid, const char *what)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	struct rp_insn in;
	int64_t depth = 0, lo = 0;
	uint64_t k, p = 0;

	for (k = 0; k < t->nckpts && errors < 20; k++) {
		uint64_t end = k + 1 < t->nckpts ? t->ckpts[k + 1].insn :
			       t->insns;

		if (t->ckpts[k].depth != depth)
			FAIL("%s: checkpoint %" PRIu64 ": depth %" PRId64
			     ", instructions say %" PRId64 "\n", what, k,
			     t->ckpts[k].depth, depth);
		lo = depth;
		for (p = t->ckpts[k].insn; p < end; p++) {
			if (rp_cursor_peek(c, p, &in))
				break;
			depth += in.iclass == RP_IC_CALL ? 1 :
				 in.iclass == RP_IC_RETURN ? -1 : 0;
			if (depth < lo)
				lo = depth;
		}
		if (t->ckpts[k].dmin != lo)
			FAIL("%s: checkpoint %" PRIu64 ": lowest depth %" PRId64
			     ", instructions say %" PRId64 "\n", what, k,
			     t->ckpts[k].dmin, lo);
	}
}

int main(int argc, char **argv)
{
	struct ptgen_truth t;
	struct rp_thread_info ti;
	struct rp_session *s;
	struct rp_cursor *c;
	struct rp_insn in;
	struct sb_manifest *m;
	struct sb_err err;
	uint64_t i, p, want, nsearch = 0, nfinish = 0, nnext = 0;
	uint64_t nforward = 0;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: scalecheck BUNDLE TRUTH\n");
		return 2;
	}
	if (ptgen_truth_load(argv[2], &t))
		return 2;
	/* Check the index build, not a saved index, unless asked to. */
	if (!getenv("SCALECHECK_CACHE"))
		setenv("PTREC_INDEX_CACHE", "0", 1);
	if (sb_manifest_load(&m, argv[1], &err)) {
		fprintf(stderr, "scalecheck: %s\n", err.msg);
		return 2;
	}
	census(argv[1], m->threads[0].pt);
	sb_manifest_free(m);
	ret = rp_session_open(&s, argv[1]);
	if (ret) {
		fprintf(stderr, "scalecheck: %s: %s\n", argv[1],
			rp_session_errmsg(s));
		return 1;
	}
	if (rp_thread_info(s, t.h.tid, &ti)) {
		fprintf(stderr, "scalecheck: no thread %u\n", t.h.tid);
		return 1;
	}
	if (ti.insns != t.h.insns)
		FAIL("engine has %" PRIu64 " instructions, truth %" PRIu64 "\n",
		     ti.insns, t.h.insns);
	if (ti.ngaps)
		FAIL("engine reports %" PRIu64 " gaps\n", ti.ngaps);
	if (ti.checkpoints != t.h.nsegs)
		FAIL("engine has %" PRIu64 " checkpoints, truth %" PRIu64
		     " PSB segments\n", ti.checkpoints, t.h.nsegs);
	if (rp_cursor_new(s, t.h.tid, &c)) {
		fprintf(stderr, "scalecheck: empty history\n");
		return 1;
	}
	/* Every instruction, segment by segment. */
	for (i = 0; i < t.h.nsegs && errors < 20; i++) {
		const struct ptgen_seg *g = &t.segs[i];
		uint64_t h = 0;

		for (p = g->first; p < g->first + g->n; p++) {
			if (rp_cursor_peek(c, p, &in)) {
				FAIL("segment %" PRIu64 ": no instruction %" PRIu64
				     "\n", i, p);
				break;
			}
			h = h * PTGEN_HASH_MUL + in.ip;
		}
		if (h != g->hash)
			FAIL("segment %" PRIu64 " (instructions %" PRIu64
			     "..%" PRIu64 "): address hash %016" PRIx64
			     ", truth %016" PRIx64 "\n", i, g->first,
			     g->first + g->n - 1, h, g->hash);
	}
	for (i = 0; i < t.h.nsamples && errors < 20; i++) {
		const struct ptgen_sample *x = &t.samples[i];

		if (rp_cursor_peek(c, x->index, &in) || in.ip != x->ip) {
			FAIL("sample %" PRIu64 ": instruction %" PRIu64
			     " at %#" PRIx64 ", truth %#" PRIx64 "\n", i,
			     x->index, in.ip, x->ip);
			continue;
		}
		rp_cursor_goto(c, x->index);
		ret = rp_cursor_search(c, -1, &x->ip, 1);
		p = ret ? PTGEN_NONE : rp_cursor_pos(c);
		if (p != x->prev)
			FAIL("sample %" PRIu64 ": reverse-continue to %#" PRIx64
			     " from %" PRIu64 " stops at %" PRId64 ", truth %"
			     PRId64 "\n", i, x->ip, x->index, (int64_t)p,
			     (int64_t)x->prev);
		nsearch += x->prev != PTGEN_NONE;
		rp_cursor_goto(c, x->index);
		ret = rp_cursor_finish(c, -1);
		p = ret ? PTGEN_NONE : rp_cursor_pos(c);
		if (p != x->frame_call)
			FAIL("sample %" PRIu64 ": reverse-finish from %" PRIu64
			     " stops at %" PRId64 ", truth %" PRId64 "\n", i,
			     x->index, (int64_t)p, (int64_t)x->frame_call);
		nfinish += x->frame_call != PTGEN_NONE;
		/* Forward: where a plain scan finds the return, if near. */
		want = scan_finish(c, x->index, t.h.insns, 300000);
		if (want != PTGEN_NONE) {
			rp_cursor_goto(c, x->index);
			ret = rp_cursor_finish(c, 1);
			p = ret ? UINT64_MAX : rp_cursor_pos(c);
			if (p != want)
				FAIL("sample %" PRIu64 ": finish from %" PRIu64
				     " stops at %" PRId64 ", a scan at %"
				     PRId64 "\n", i, x->index, (int64_t)p,
				     (int64_t)want);
			nforward++;
		}
		if (x->ret_call != PTGEN_NONE) {
			rp_cursor_goto(c, x->index);
			ret = rp_cursor_next(c, -1);
			p = ret ? PTGEN_NONE : rp_cursor_pos(c);
			if (p != x->ret_call)
				FAIL("sample %" PRIu64 ": reverse-next from %"
				     PRIu64 " stops at %" PRId64 ", truth %"
				     PRId64 "\n", i, x->index, (int64_t)p,
				     (int64_t)x->ret_call);
			nnext++;
		}
	}
	check_depths(s, c, t.h.tid, "block index");
	/* The instruction decoder's index must carry the same depths. */
	if (rp_reindex_exact(s, rp_find_thread(s, t.h.tid)))
		FAIL("reindexing with the instruction decoder failed\n");
	else
		check_depths(s, c, t.h.tid, "instruction index");
	printf("checked: insns=%" PRIu64 " segments=%" PRIu64 " samples=%"
	       PRIu64 " reverse_continue=%" PRIu64 " reverse_finish=%" PRIu64
	       " reverse_next=%" PRIu64 " finish=%" PRIu64 " errors=%d\n",
	       t.h.insns, t.h.nsegs, t.h.nsamples, nsearch, nfinish, nnext,
	       nforward, errors);
	rp_cursor_free(c);
	rp_session_close(s);
	ptgen_truth_free(&t);
	return errors ? 1 : 0;
}
