// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for the replay engine's decoder entry point: the input
 * becomes thread 0's PT stream of a real recorded bundle
 * ($PTREC_FUZZ_BUNDLE, code and sideband intact), which is then indexed,
 * materialized segment by segment and walked with cursors.  Whatever the
 * bytes, the result must be instructions and gaps: no crash, no hang, no
 * leak, and every position of the history must be readable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rp_session *session;

static void reset(struct rp_thread *t)
{
	size_t k;

	free(t->psbs);
	free(t->ckpts);
	free(t->gaps);
	t->psbs = NULL;
	t->ckpts = NULL;
	t->gaps = NULL;
	t->npsbs = t->nckpts = t->ngaps = 0;
	t->insns = 0;
	t->exact = false;
	for (k = 0; k < RP_SEG_CACHE; k++) {
		free(t->cache[k].insns);
		t->cache[k].insns = NULL;
		t->cache[k].ckpt = UINT64_MAX;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *orig_pt;
	size_t orig_size;
	struct rp_thread *t;
	struct rp_cursor *c;
	struct rp_insn insn;
	uint64_t pos, bp;
	uint8_t *copy;

	if (!session) {
		const char *dir = getenv("PTREC_FUZZ_BUNDLE");

		/*
		 * Index the bundle afresh every run: a saved index would
		 * leave libipt's block cache empty, and inputs decode
		 * differently against a filled one, so a crash found in one
		 * run would not replay in the next.
		 */
		setenv("PTREC_INDEX_CACHE", "0", 1);
		if (!dir || rp_session_open(&session, dir)) {
			fprintf(stderr, "fuzz_replay: set PTREC_FUZZ_BUNDLE to a recorded bundle\n");
			abort();
		}
	}
	t = &session->threads[0];
	orig_pt = t->pt;
	orig_size = t->pt_size;
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	reset(t);
	t->pt = copy;
	t->pt_size = size;
	if (rp_index_thread(session, t) == 0 &&
	    rp_cursor_new(session, t->tid, &c) == 0) {
		/*
		 * Every position the index counts must materialize, with no
		 * re-index on the way: what ptrec info counts is what every
		 * other command reads (issue #15, item 9).
		 */
		uint64_t counted = t->insns;

		bp = 0;
		for (pos = 0; pos < counted && pos < 200000; pos++) {
			int ret = rp_cursor_peek(c, pos, &insn);

			if (ret || t->insns != counted) {
				fprintf(stderr, "position %llu of %llu (now %llu): %s\n",
					(unsigned long long)pos,
					(unsigned long long)counted,
					(unsigned long long)t->insns,
					ret ? rp_session_errmsg(session) :
					      "the history was re-indexed");
				abort();
			}
			bp = insn.ip;
		}
		rp_cursor_goto(c, t->insns / 2);
		rp_cursor_finish(c, -1);
		rp_cursor_goto(c, t->insns / 2);
		rp_cursor_finish(c, 1);
		rp_cursor_next(c, -1);
		rp_cursor_search(c, -1, &bp, 1);
		rp_cursor_free(c);
	}
	reset(t);
	free(copy);
	t->pt = orig_pt;
	t->pt_size = orig_size;
	return 0;
}
