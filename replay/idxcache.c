// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index cache: a thread's index (PSBs, checkpoints, gaps) saved in
 * BUNDLE/index/TID.idx after it was built, so opening the bundle again
 * costs a file read instead of a decode of the whole stream (about 8 s per
 * 10^9 instructions here).  Bundles do not change once finished; the key
 * still checks the stream's size and mtime, a hash of its ends, the
 * sideband's record count and libipt's version, and every value read is
 * checked against the stream, so a stale or damaged cache is rebuilt, never
 * trusted.  PTREC_INDEX_CACHE=0 turns the cache off (benchmarks that time
 * the index build).  A bundle directory that is not writable is simply
 * not cached.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_internal.h"

#define IDX_MAGIC	"PTRECIX"
/* Bump with any change to what the index holds or how walk.c builds it. */
#define IDX_VERSION	2	/* 2: checkpoints carry call depths */
#define IDX_SAMPLE	(64u << 10)

struct idx_header {
	char magic[8];
	uint32_t version;
	uint32_t exact;
	uint64_t key;
	uint64_t pt_size;
	uint64_t pt_mtime_ns;
	uint64_t nrecs;
	uint64_t npsbs, nckpts, ngaps;
	uint64_t insns, first_tsc, last_tsc;
	uint64_t sum;		/* FNV-1a of the file, this field as 0 */
};

struct idx_gap {
	uint64_t before;
	uint64_t ip;
	uint64_t offset;
	uint32_t reason;
	int32_t errcode;	/* libipt error code of @error, -1: none */
};

static uint64_t fnv(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ull

static bool idx_enabled(void)
{
	const char *env = getenv("PTREC_INDEX_CACHE");

	return !env || strcmp(env, "0");
}

/* FNV-1a over the stream's size, first and last IDX_SAMPLE bytes, and the
 * libipt version.
 */
static uint64_t idx_key(const struct rp_thread *t)
{
	struct pt_version v = pt_library_version();
	uint64_t size = t->pt_size, h;
	size_t n = size < IDX_SAMPLE ? size : IDX_SAMPLE;

	h = fnv(FNV_INIT, &size, sizeof(size));
	h = fnv(h, t->pt, n);
	h = fnv(h, t->pt + size - n, n);
	h = fnv(h, &v.major, sizeof(v.major));
	h = fnv(h, &v.minor, sizeof(v.minor));
	return fnv(h, &v.patch, sizeof(v.patch));
}

static int idx_path(const struct rp_session *s, const struct rp_thread *t,
		    char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/index/%u.idx", s->dir, t->tid);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int stream_mtime(const struct rp_session *s, const char *rel,
			uint64_t *ns)
{
	char path[4096];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", s->dir, rel) >=
	    (int)sizeof(path) || stat(path, &st))
		return -1;
	*ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
	      (uint64_t)st.st_mtim.tv_nsec;
	return 0;
}

static void idx_header_fill(const struct rp_session *s,
			    const struct rp_thread *t, uint64_t mtime,
			    struct idx_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IDX_MAGIC, sizeof(IDX_MAGIC));
	h->version = IDX_VERSION;
	h->exact = t->exact;
	h->key = t->pt_size ? idx_key(t) : 0;
	h->pt_size = t->pt_size;
	h->pt_mtime_ns = mtime;
	h->nrecs = s->nrecs;
	h->npsbs = t->npsbs;
	h->nckpts = t->nckpts;
	h->ngaps = t->ngaps;
	h->insns = t->insns;
	h->first_tsc = t->first_tsc;
	h->last_tsc = t->last_tsc;
}

static uint64_t idx_sum(const struct idx_header *h, const struct rp_psb *psbs,
			const struct rp_ckpt *ck, const struct idx_gap *g)
{
	struct idx_header z = *h;
	uint64_t sum;

	z.sum = 0;
	sum = fnv(FNV_INIT, &z, sizeof(z));
	sum = fnv(sum, psbs, h->npsbs * sizeof(*psbs));
	sum = fnv(sum, ck, h->nckpts * sizeof(*ck));
	return fnv(sum, g, h->ngaps * sizeof(*g));
}

/* libipt's error strings are constants: find the code of one. */
static int32_t errcode_of(const char *error)
{
	int code;

	for (code = 0; error && code < 64; code++)
		if (pt_errstr((enum pt_error_code)code) == error)
			return code;
	return -1;
}

static bool idx_valid(const struct rp_session *s, const struct rp_thread *t,
		      const struct rp_psb *psbs, const struct rp_ckpt *ck,
		      const struct idx_gap *g, const struct idx_header *h)
{
	uint64_t i;

	if (!h->nckpts)
		return false;
	for (i = 0; i < h->npsbs; i++)
		if (psbs[i].offset >= t->pt_size ||
		    (i && psbs[i].offset <= psbs[i - 1].offset))
			return false;
	for (i = 0; i < h->nckpts; i++)
		if ((t->pt_size && ck[i].offset >= t->pt_size) ||
		    ck[i].insn > h->insns || ck[i].sb_next > s->nrecs ||
		    ck[i].gap > h->ngaps ||
		    (i && ck[i].insn < ck[i - 1].insn) ||
		    ck[i].dmin > ck[i].depth ||
		    (i + 1 < h->nckpts && ck[i].dmin > ck[i + 1].depth) ||
		    (ck[i].dmin != RP_DMIN_UNKNOWN &&
		     (uint64_t)ck[i].depth - (uint64_t)ck[i].dmin > h->insns))
			return false;
	for (i = 0; i < h->ngaps; i++)
		if (g[i].before > h->insns || g[i].reason > RP_GAP_LOST ||
		    (i && g[i].before < g[i - 1].before))
			return false;
	return true;
}

int rp_idx_load(struct rp_session *s, struct rp_thread *t, const char *rel)
{
	struct rp_psb *psbs = NULL;
	struct rp_ckpt *ck = NULL;
	struct idx_gap *g = NULL;
	struct rp_gap *gaps = NULL;
	struct idx_header h, want;
	char path[4096];
	struct stat st;
	uint64_t mtime, i, need;
	FILE *f;
	int ret = -1;

	if (!idx_enabled() || idx_path(s, t, path, sizeof(path)) ||
	    stream_mtime(s, rel, &mtime))
		return -1;
	f = fopen(path, "rb");
	if (!f)
		return -1;
	if (fstat(fileno(f), &st) || fread(&h, sizeof(h), 1, f) != 1)
		goto out;
	idx_header_fill(s, t, mtime, &want);
	if (memcmp(h.magic, want.magic, sizeof(h.magic)) ||
	    h.version != want.version || h.key != want.key ||
	    h.pt_size != want.pt_size || h.pt_mtime_ns != want.pt_mtime_ns ||
	    h.nrecs != want.nrecs || h.exact > 1)
		goto out;
	/* The counts must add up to the file's size exactly. */
	if (h.npsbs > (uint64_t)st.st_size / sizeof(*psbs) ||
	    h.nckpts > (uint64_t)st.st_size / sizeof(*ck) ||
	    h.ngaps > (uint64_t)st.st_size / sizeof(*g))
		goto out;
	need = sizeof(h) + h.npsbs * sizeof(*psbs) + h.nckpts * sizeof(*ck) +
	       h.ngaps * sizeof(*g);
	if (need != (uint64_t)st.st_size)
		goto out;
	psbs = malloc(h.npsbs * sizeof(*psbs) + 1);
	ck = malloc(h.nckpts * sizeof(*ck) + 1);
	g = malloc(h.ngaps * sizeof(*g) + 1);
	gaps = malloc(h.ngaps * sizeof(*gaps) + 1);
	if (!psbs || !ck || !g || !gaps ||
	    fread(psbs, sizeof(*psbs), h.npsbs, f) != h.npsbs ||
	    fread(ck, sizeof(*ck), h.nckpts, f) != h.nckpts ||
	    fread(g, sizeof(*g), h.ngaps, f) != h.ngaps ||
	    idx_sum(&h, psbs, ck, g) != h.sum ||
	    !idx_valid(s, t, psbs, ck, g, &h))
		goto out;
	for (i = 0; i < h.ngaps; i++) {
		gaps[i].before = g[i].before;
		gaps[i].reason = g[i].reason;
		gaps[i].ip = g[i].ip;
		gaps[i].offset = g[i].offset;
		gaps[i].error = g[i].errcode >= 0 && g[i].errcode < 64 ?
			pt_errstr((enum pt_error_code)g[i].errcode) : NULL;
	}
	free(t->psbs);
	free(t->ckpts);
	free(t->gaps);
	t->psbs = psbs;
	t->npsbs = h.npsbs;
	t->ckpts = ck;
	t->nckpts = h.nckpts;
	t->gaps = gaps;
	t->ngaps = h.ngaps;
	t->insns = h.insns;
	t->first_tsc = h.first_tsc;
	t->last_tsc = h.last_tsc;
	t->exact = h.exact;
	psbs = NULL;
	ck = NULL;
	gaps = NULL;
	ret = 0;
out:
	free(psbs);
	free(ck);
	free(g);
	free(gaps);
	fclose(f);
	return ret;
}

void rp_idx_save(struct rp_session *s, const struct rp_thread *t,
		 const char *rel)
{
	char path[4096], tmp[4200];
	struct idx_header h;
	struct idx_gap *g;
	uint64_t mtime, i;
	bool ok;
	FILE *f;

	if (!idx_enabled() || idx_path(s, t, path, sizeof(path)) ||
	    stream_mtime(s, rel, &mtime))
		return;
	snprintf(tmp, sizeof(tmp), "%s/index", s->dir);
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	g = calloc(t->ngaps + 1, sizeof(*g));
	if (!g)
		return;
	for (i = 0; i < t->ngaps; i++) {
		g[i].before = t->gaps[i].before;
		g[i].ip = t->gaps[i].ip;
		g[i].offset = t->gaps[i].offset;
		g[i].reason = t->gaps[i].reason;
		g[i].errcode = errcode_of(t->gaps[i].error);
	}
	idx_header_fill(s, t, mtime, &h);
	h.sum = idx_sum(&h, t->psbs, t->ckpts, g);
	f = fopen(tmp, "wb");
	ok = f && fwrite(&h, sizeof(h), 1, f) == 1 &&
	     fwrite(t->psbs, sizeof(*t->psbs), t->npsbs, f) == t->npsbs &&
	     fwrite(t->ckpts, sizeof(*t->ckpts), t->nckpts, f) == t->nckpts &&
	     fwrite(g, sizeof(*g), t->ngaps, f) == t->ngaps;
	free(g);
	if ((f && fclose(f)) || !ok || rename(tmp, path))
		unlink(tmp);
}
