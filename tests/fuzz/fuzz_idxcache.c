// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for the index cache file (replay/idxcache.c).  The
 * input is a saved index of thread 0 of a real recorded bundle
 * ($PTREC_FUZZ_BUNDLE, copied to a scratch directory) without its MAC, as
 * mkseeds takes them from ptrec's own writer.  Each input is
 *   1. written as BUNDLE/index/TID.idx and opened with rp_idx_load(): the
 *      MAC under this user's key must reject it (the bytes cannot carry
 *      it), leaving the thread's real index in place;
 *   2. given to rp_idx_parse() directly, as if an attacker had the key:
 *      whatever it accepts, the engine must then read every position (up
 *      to a bound) and move cursors with errors at worst, no crash, hang,
 *      leak or huge allocation;
 *   3. signed with the key and loaded again: the same verdict as 2, where
 *      the load also decodes the last segment against the index.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rp_session *session;
static struct rp_thread saved;	/* thread 0's real index */
static char idx_path[4096];

static void *dup_mem(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	if (!q)
		abort();
	if (n)
		memcpy(q, p, n);
	return q;
}

/* Thread 0 back to its real index, with no cached segments. */
static void restore(struct rp_thread *t)
{
	size_t k;

	free(t->psbs);
	free(t->ckpts);
	free(t->gaps);
	free(t->evs);
	free(t->rets);
	t->psbs = dup_mem(saved.psbs, saved.npsbs * sizeof(*t->psbs));
	t->ckpts = dup_mem(saved.ckpts, saved.nckpts * sizeof(*t->ckpts));
	t->gaps = dup_mem(saved.gaps, saved.ngaps * sizeof(*t->gaps));
	t->evs = dup_mem(saved.evs, saved.nevs * sizeof(*t->evs));
	t->nevs = saved.nevs;
	t->rets = dup_mem(saved.rets, saved.nrets * sizeof(*t->rets));
	t->nrets = saved.nrets;
	t->npsbs = saved.npsbs;
	t->nckpts = saved.nckpts;
	t->ngaps = saved.ngaps;
	t->insns = saved.insns;
	t->first_tsc = saved.first_tsc;
	t->last_tsc = saved.last_tsc;
	t->exact = saved.exact;
	for (k = 0; k < RP_SEG_CACHE; k++) {
		free(t->cache[k].insns);
		t->cache[k].insns = NULL;
		t->cache[k].ckpt = UINT64_MAX;
	}
}

static void setup(void)
{
	const char *dir = getenv("PTREC_FUZZ_BUNDLE");
	const char *fixed = getenv("PTREC_FUZZ_TMP");
	char tmpl[4096] = "/tmp/ptrec-fuzz-idx-XXXXXX", cmd[8192], path[4200];
	struct rp_thread *t;

	/* $PTREC_FUZZ_TMP/idxcache when set (make fuzz): the same paths in
	 * every run, as libFuzzer's mutations take strings the code compares.
	 */
	if (fixed)
		snprintf(tmpl, sizeof(tmpl), "%s/idxcache", fixed);
	if (!dir || (fixed ? mkdir(tmpl, 0700) && errno != EEXIST :
			     !mkdtemp(tmpl))) {
		fprintf(stderr, "fuzz_idxcache: set PTREC_FUZZ_BUNDLE to a recorded bundle\n");
		abort();
	}
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s/b' && cp -a '%s' '%s/b' && rm -rf '%s/b/index'",
		 tmpl, dir, tmpl, tmpl);
	if (system(cmd))
		abort();
	/* A key of our own, in the scratch directory (XDG_CACHE_HOME must
	 * be absolute, and make fuzz gives a relative PTREC_FUZZ_TMP).
	 */
	if (!realpath(tmpl, path))
		abort();
	if (strlen(path) + sizeof("/cache") > sizeof(path))
		abort();
	strcat(path, "/cache");
	setenv("XDG_CACHE_HOME", path, 1);
	setenv("PTREC_INDEX_CACHE", "0", 1);
	snprintf(path, sizeof(path), "%s/b", tmpl);
	if (rp_session_open(&session, path)) {
		fprintf(stderr, "fuzz_idxcache: %s\n",
			rp_session_errmsg(session));
		abort();
	}
	setenv("PTREC_INDEX_CACHE", "1", 1);
	t = &session->threads[0];
	saved = *t;
	saved.psbs = dup_mem(t->psbs, t->npsbs * sizeof(*t->psbs));
	saved.ckpts = dup_mem(t->ckpts, t->nckpts * sizeof(*t->ckpts));
	saved.gaps = dup_mem(t->gaps, t->ngaps * sizeof(*t->gaps));
	saved.evs = dup_mem(t->evs, t->nevs * sizeof(*t->evs));
	saved.rets = dup_mem(t->rets, t->nrets * sizeof(*t->rets));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/b/index'", tmpl);
	if (system(cmd))
		abort();
	snprintf(idx_path, sizeof(idx_path), "%s/b/index/%u.idx", tmpl,
		 t->tid);
}

static void write_file(const void *buf, size_t len)
{
	FILE *f = fopen(idx_path, "wb");

	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f))
		abort();
}

/* Reads the history as far as the bound; errors are fine, crashes not. */
static void exercise(struct rp_thread *t)
{
	struct rp_cursor *c;
	struct rp_insn insn;
	uint64_t pos, bp = 0;

	if (rp_cursor_new(session, t->tid, &c))
		return;
	for (pos = 0; pos < t->insns && pos < 20000; pos++) {
		if (rp_cursor_peek(c, pos, &insn))
			break;
		bp = insn.ip;
	}
	rp_cursor_goto(c, t->insns / 2);
	rp_cursor_finish(c, -1);
	rp_cursor_goto(c, t->insns - (t->insns > 0));
	rp_cursor_next(c, -1);
	rp_cursor_search(c, -1, &bp, 1);
	rp_cursor_free(c);
}

/*
 * What rp_idx_load() does after the parse (idx_spot_check): the last
 * segment decoded against the index, whose count the decode must confirm.
 * Whether it does.
 */
static bool last_segment_confirmed(struct rp_thread *t)
{
	struct rp_seg *seg = &t->cache[0];
	bool ok;

	if (!t->insns || !t->nckpts)
		return true;
	t->cached = true;
	ok = !rp_materialize(session, t, t->nckpts - 1, seg);
	t->cached = false;
	seg->ckpt = UINT64_MAX;
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_thread *t;
	uint8_t *buf;
	int parsed, signed_ok;

	if (!session)
		setup();
	t = &session->threads[0];

	/* 1. As found in a bundle: no valid MAC, never loaded. */
	write_file(data, size);
	if (!rp_idx_load(session, t)) {
		fprintf(stderr, "an index without this user's MAC was loaded\n");
		abort();
	}
	if (t->insns != saved.insns || t->nckpts != saved.nckpts)
		abort();

	/* 2. The checks behind the MAC; a load also refuses an index whose
	 * last segment the decode contradicts (fuzz_idxcache-spotcheck).
	 */
	parsed = rp_idx_parse(session, t, data, size);
	if (!parsed && !last_segment_confirmed(t))
		parsed = -1;
	else if (!parsed)
		exercise(t);
	restore(t);

	/* 3. Signed: the same verdict through the file. */
	buf = malloc(size + 32);
	if (!buf)
		abort();
	if (size)
		memcpy(buf, data, size);
	if (rp_idx_sign(buf, size, buf + size))
		abort();
	write_file(buf, size + 32);
	free(buf);
	signed_ok = rp_idx_load(session, t);
	if ((signed_ok == 0) != (parsed == 0)) {
		fprintf(stderr, "signed file and parse disagree: %d %d\n",
			signed_ok, parsed);
		abort();
	}
	restore(t);
	return 0;
}
