// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index cache: a thread's index (PSBs, checkpoints, gaps, events) saved in
 * BUNDLE/index/TID.idx after it was built, so opening the bundle again
 * costs a file read instead of a decode of the whole stream (about 8 s per
 * 10^9 instructions here).  Bundles do not change once finished; the key
 * still checks the stream's size and mtime, a hash of its ends, the
 * sideband's record count, the image set (each image's key, file, size
 * and mtime: an image added, removed or replaced changes the decode, and
 * a copied bundle can keep the stream's mtime) and libipt's version, and
 * every value read is checked against the stream, so a stale or damaged
 * cache is rebuilt.  A saved index that passes all that and still parts
 * from the stream when a segment is decoded (a key that missed a change)
 * is deleted and built again there (rp_idx_rebuild, cursor.c).
 *
 * A bundle is untrusted input (docs/security.md), and an index that came
 * with it was written by someone else: each file ends with an HMAC-SHA256
 * (Nettle) under a key only this user can read
 * (~/.cache/ptrec/index-key, made on first use), so an index this user
 * did not write is rebuilt, never trusted.  The file is read and written
 * by the bundle rule (sb_bundle_open_file): no symlinks, regular files
 * only; it is written through a temporary file created with O_EXCL |
 * O_NOFOLLOW in the index directory opened without following links, then
 * renamed, and only in a bundle directory this user owns.
 * PTREC_INDEX_CACHE=0 turns the cache off (benchmarks that time the index
 * build).
 */
#include <errno.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_internal.h"

#define IDX_MAGIC	"PTRECIX"
/* Bump with any change to what the index holds or how index.c builds it. */
#define IDX_VERSION	10	/* 2: checkpoints carry call depths, 3: MAC,
				 * 4: loop gaps (RP_GAP_LOOP), 5: events,
				 * overflow gaps, gap byte counts, 6: calls
				 * inside blocks that end in a PTWRITE,
				 * 7: the key covers the image set, 8:
				 * checkpoints at a single-PSB stream's
				 * TIP.PGEs (struct rp_split in each) with
				 * return stacks (the header's nrets, after
				 * the events), 9: a return's TIP with its IP
				 * suppressed is a gap (the block pass took
				 * it as a jump back to the return), 10:
				 * corrupt trace redone through earlier
				 * checkpoints with the plain loop's return
				 * stack, blocks off the exec mode corrupt,
				 * enables' resumed flag and first states the
				 * same on any worker count (index.c,
				 * idx_redo.c) */
#define IDX_SAMPLE	(64u << 10)
#define SEG_MIN		(1ull << 16)
#define SEG_PER_BYTE	1024ull

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
	uint64_t nrets;		/* format 8; was reserved (0) */
	uint64_t nevs;
};

/* struct rp_event and struct rp_ckpt have no padding: saved as they are. */
_Static_assert(sizeof(struct rp_ckpt) == 96, "struct rp_ckpt is packed");
_Static_assert(sizeof(struct rp_event) == 48, "struct rp_event is packed");

#define IDX_MAC_SIZE	32	/* HMAC-SHA256 of all bytes before it */

struct idx_gap {
	uint64_t before;
	uint64_t ip;
	uint64_t offset;
	uint32_t reason;
	int32_t errcode;	/* libipt error code of @error, -1: none */
	uint64_t bytes;
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

/* FNV-1a over the session's images: the code the decoder reads.  A file
 * that cannot be stat'ed counts as size and mtime ~0 (missing).
 */
static uint64_t idx_images_key(struct rp_session *s)
{
	uint64_t h = fnv(FNV_INIT, &s->nimages, sizeof(s->nimages));
	struct stat st;
	uint64_t v[2];
	size_t i;

	if (s->images_key_set)
		return s->images_key;
	for (i = 0; i < s->nimages; i++) {
		const struct rp_image *im = &s->images[i];
		const char *file = s->m->images[i].file;

		/* The file's name in the bundle, not its absolute path: a
		 * moved bundle keeps its index.
		 */
		h = fnv(h, im->key, strlen(im->key) + 1);
		h = fnv(h, file, strlen(file) + 1);
		if (stat(im->path, &st)) {
			v[0] = v[1] = ~0ull;
		} else {
			v[0] = (uint64_t)st.st_size;
			v[1] = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
			       (uint64_t)st.st_mtim.tv_nsec;
		}
		h = fnv(h, v, sizeof(v));
	}
	s->images_key = h;
	s->images_key_set = true;
	return h;
}

/* FNV-1a over the stream's size, first and last IDX_SAMPLE bytes, the
 * image set and the libipt version.
 */
static uint64_t idx_key(struct rp_session *s, const struct rp_thread *t)
{
	struct pt_version v = pt_library_version();
	uint64_t size = t->pt_size, h, im = idx_images_key(s);
	size_t n = size < IDX_SAMPLE ? size : IDX_SAMPLE;

	h = fnv(FNV_INIT, &size, sizeof(size));
	h = fnv(h, &im, sizeof(im));
	h = fnv(h, t->pt, n);
	h = fnv(h, t->pt + size - n, n);
	h = fnv(h, &v.major, sizeof(v.major));
	h = fnv(h, &v.minor, sizeof(v.minor));
	return fnv(h, &v.patch, sizeof(v.patch));
}

/* ---- the key and the MAC ------------------------------------------------ */

static uint8_t idx_key_bytes[32];
static int idx_key_state;	/* 0: not read yet, 1: have it, -1: none */

/* $XDG_CACHE_HOME/ptrec or $HOME/.cache/ptrec into @buf. */
static int key_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(buf, size, "%s/ptrec", xdg);
	else if (home && *home == '/')
		n = snprintf(buf, size, "%s/.cache/ptrec", home);
	else
		return -1;
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Reads the user's key: a 32-byte regular file, this user's, mode 0600. */
static int key_read(int fd)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) ||
	    st.st_size != (off_t)sizeof(idx_key_bytes))
		return -1;
	n = pread(fd, idx_key_bytes, sizeof(idx_key_bytes), 0);
	return n == (ssize_t)sizeof(idx_key_bytes) ? 0 : -1;
}

/*
 * Written whole under a temporary name, then linked into place: a process
 * that opens the key while another makes it (suites under make -j, GDB
 * and the CLI at once) never reads it empty, which left that process
 * without a cache.  link() does not replace a key another process made.
 */
static int key_make(const char *path)
{
	char tmp[4300];
	uint8_t k[32];
	int fd, ret = -1;

	if (getrandom(k, sizeof(k), 0) != (ssize_t)sizeof(k))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -1;
	if (write(fd, k, sizeof(k)) == (ssize_t)sizeof(k) && !fsync(fd))
		ret = 0;
	close(fd);
	if (!ret && link(tmp, path) && errno != EEXIST)
		ret = -1;
	unlink(tmp);
	return ret;
}

/* The user's index key, made on first use; -1 when there is none. */
static int idx_key_get(void)
{
	char dir[4096], path[4200], *slash;
	int fd, tries;

	if (idx_key_state)
		return idx_key_state > 0 ? 0 : -1;
	idx_key_state = -1;
	if (key_dir(dir, sizeof(dir)))
		return -1;
	snprintf(path, sizeof(path), "%s/index-key", dir);
	for (tries = 0; tries < 2; tries++) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			if (!key_read(fd))
				idx_key_state = 1;
			close(fd);
			break;
		}
		if (errno != ENOENT)
			break;
		/* mkdir -p, private; then create (a racing open wins). */
		slash = strrchr(dir, '/');
		*slash = '\0';
		mkdir(dir, 0700);
		*slash = '/';
		mkdir(dir, 0700);
		key_make(path);
	}
	return idx_key_state > 0 ? 0 : -1;
}

/* HMAC-SHA256 of @len bytes under the user's key.  Nettle, not libcrypto:
 * the same hash (SHA instructions where the CPU has them, 4 MiB in 4.2 ms
 * against libcrypto's 3.7 ms here) without libcrypto's cost to a short
 * process: loading it (3,400 symbol bindings at every start) and its first
 * HMAC (provider fetch and config: 1.9 ms), which dominated a first open
 * of a small trace (docs/performance.md).  Returns 0, or -1 without a key.
 */
/*
 * ptrec links nettle without its constructor (Makefile, NETTLE_LAZY: it
 * ran CPUID at every start); its first SHA-256 picks the implementation
 * instead, here, once, before any other thread can.
 */
static pthread_once_t idx_nettle_once = PTHREAD_ONCE_INIT;

static void idx_nettle_init(void)
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_digest(&ctx, sizeof(digest), digest);
}

static int idx_mac(const uint8_t *buf, size_t len, uint8_t mac[IDX_MAC_SIZE])
{
	struct hmac_sha256_ctx ctx;

	if (idx_key_get())
		return -1;
	pthread_once(&idx_nettle_once, idx_nettle_init);
	hmac_sha256_set_key(&ctx, sizeof(idx_key_bytes), idx_key_bytes);
	if (len)
		hmac_sha256_update(&ctx, len, buf);
	hmac_sha256_digest(&ctx, IDX_MAC_SIZE, mac);
	return 0;
}

void rp_idx_warm(void)
{
	static const uint8_t zero[32];
	struct hmac_sha256_ctx ctx;

	if (!idx_enabled())
		return;
	pthread_once(&idx_nettle_once, idx_nettle_init);
	hmac_sha256_set_key(&ctx, sizeof(zero), zero);
}

int rp_idx_sign(const uint8_t *buf, size_t len, uint8_t mac[32])
{
	return idx_mac(buf, len, mac);
}

static void idx_header_fill(struct rp_session *s,
			    const struct rp_thread *t, struct idx_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IDX_MAGIC, sizeof(IDX_MAGIC));
	h->version = IDX_VERSION;
	h->exact = t->exact;
	h->key = t->pt_size ? idx_key(s, t) : 0;
	h->pt_size = t->pt_size;
	h->pt_mtime_ns = t->pt_mtime_ns;
	h->nrecs = s->nrecs;
	h->npsbs = t->npsbs;
	h->nckpts = t->nckpts;
	h->ngaps = t->ngaps;
	h->nevs = t->nevs;
	h->nrets = t->nrets;
	h->insns = t->insns;
	h->first_tsc = t->first_tsc;
	h->last_tsc = t->last_tsc;
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

/* A checkpoint's split (none, or a TIP.PGE inside the stream, after its
 * first checkpoint).
 */
static bool split_valid(const struct rp_thread *t, const struct rp_ckpt *c,
			uint64_t i, uint64_t nrets)
{
	const struct rp_split *sp = &c->split;

	if (c->nrets > RP_RETSTACK || c->rets_at > nrets ||
	    c->nrets > nrets - c->rets_at || (c->nrets && !sp->len))
		return false;
	if (!sp->len)
		return !sp->offset && !sp->ip && !sp->tsc && !sp->ctc &&
		       !sp->fc && !sp->csl && !sp->csd && !sp->has_tma &&
		       !c->rets_at;
	return i && sp->offset == c->offset && sp->len <= 9 &&
	       sp->offset + sp->len <= t->pt_size && sp->csl <= 1 &&
	       sp->csd <= 1 && sp->has_tma <= 1 && sp->tsc == c->tsc;
}

static bool idx_valid(const struct rp_session *s, const struct rp_thread *t,
		      const struct rp_psb *psbs, const struct rp_ckpt *ck,
		      const struct idx_gap *g, const struct rp_event *ev,
		      const struct idx_header *h)
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
		     (uint64_t)ck[i].depth - (uint64_t)ck[i].dmin > h->insns) ||
		    !split_valid(t, &ck[i], i, h->nrets))
			return false;
	/*
	 * The engine allocates a segment's instructions by the count the
	 * index claims (walk.c), so a claim must fit the trace bytes it
	 * covers: at most SEG_PER_BYTE instructions a byte (a tight loop
	 * under long TNT packets gives tens).  A real index past the bound
	 * is only rebuilt: slower, never wrong.
	 */
	for (i = 0; i < h->nckpts; i++) {
		uint64_t end = i + 1 < h->nckpts ? ck[i + 1].insn : h->insns;
		uint64_t to = i + 1 < h->nckpts ? ck[i + 1].offset : t->pt_size;
		uint64_t bytes = to > ck[i].offset ? to - ck[i].offset :
				 t->pt_size;

		if (end < ck[i].insn ||
		    end - ck[i].insn > SEG_MIN + SEG_PER_BYTE * bytes)
			return false;
	}
	for (i = 0; i < h->ngaps; i++)
		if (g[i].before > h->insns || g[i].reason > RP_GAP_LOOP ||
		    (i && g[i].before < g[i - 1].before))
			return false;
	for (i = 0; i < h->nevs; i++)
		if (ev[i].before > h->insns || ev[i].kind >= RP_EV_KINDS ||
		    (i && ev[i].before < ev[i - 1].before))
			return false;
	return true;
}

/* An index of more than this is not ours: the stream's size bounds it. */
static uint64_t idx_max(const struct rp_thread *t)
{
	return (64ull << 20) + 64 * (uint64_t)t->pt_size;
}

int rp_idx_parse(struct rp_session *s, struct rp_thread *t,
		 const uint8_t *data, size_t len)
{
	struct rp_psb *psbs = NULL;
	struct rp_ckpt *ck = NULL;
	struct idx_gap *g = NULL;
	struct rp_gap *gaps = NULL;
	struct rp_event *evs = NULL;
	uint64_t *rets = NULL;
	struct idx_header h, want;
	const uint8_t *p = data + sizeof(h);
	uint64_t i, need;
	int ret = -1;

	if (len < sizeof(h))
		return -1;
	memcpy(&h, data, sizeof(h));
	idx_header_fill(s, t, &want);
	if (memcmp(h.magic, want.magic, sizeof(h.magic)) ||
	    h.version != want.version || h.key != want.key ||
	    h.pt_size != want.pt_size || h.pt_mtime_ns != want.pt_mtime_ns ||
	    h.nrecs != want.nrecs || h.exact > 1)
		return -1;
	/* The counts must add up to the size exactly. */
	if (h.npsbs > len / sizeof(*psbs) || h.nckpts > len / sizeof(*ck) ||
	    h.ngaps > len / sizeof(*g) || h.nevs > len / sizeof(*evs) ||
	    h.nrets > len / sizeof(*rets))
		return -1;
	need = sizeof(h) + h.npsbs * sizeof(*psbs) + h.nckpts * sizeof(*ck) +
	       h.ngaps * sizeof(*g) + h.nevs * sizeof(*evs) +
	       h.nrets * sizeof(*rets);
	if (need != len)
		return -1;
	psbs = malloc(h.npsbs * sizeof(*psbs) + 1);
	ck = malloc(h.nckpts * sizeof(*ck) + 1);
	g = malloc(h.ngaps * sizeof(*g) + 1);
	gaps = malloc(h.ngaps * sizeof(*gaps) + 1);
	evs = malloc(h.nevs * sizeof(*evs) + 1);
	rets = malloc(h.nrets * sizeof(*rets) + 1);
	if (!psbs || !ck || !g || !gaps || !evs || !rets)
		goto out;
	memcpy(psbs, p, h.npsbs * sizeof(*psbs));
	p += h.npsbs * sizeof(*psbs);
	memcpy(ck, p, h.nckpts * sizeof(*ck));
	p += h.nckpts * sizeof(*ck);
	memcpy(g, p, h.ngaps * sizeof(*g));
	p += h.ngaps * sizeof(*g);
	memcpy(evs, p, h.nevs * sizeof(*evs));
	p += h.nevs * sizeof(*evs);
	memcpy(rets, p, h.nrets * sizeof(*rets));
	if (!idx_valid(s, t, psbs, ck, g, evs, &h))
		goto out;
	for (i = 0; i < h.ngaps; i++) {
		gaps[i].before = g[i].before;
		gaps[i].reason = g[i].reason;
		gaps[i].ip = g[i].ip;
		gaps[i].offset = g[i].offset;
		gaps[i].bytes = g[i].bytes;
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
	free(t->evs);
	t->evs = evs;
	t->nevs = h.nevs;
	free(t->rets);
	t->rets = rets;
	t->nrets = h.nrets;
	t->insns = h.insns;
	t->first_tsc = h.first_tsc;
	t->last_tsc = h.last_tsc;
	t->exact = h.exact;
	psbs = NULL;
	ck = NULL;
	gaps = NULL;
	evs = NULL;
	rets = NULL;
	ret = 0;
out:
	free(rets);
	free(psbs);
	free(ck);
	free(g);
	free(gaps);
	free(evs);
	return ret;
}

/*
 * The last segment decoded against what the index says of it, before any
 * front end reads a count: a cursor starts there (rp_cursor_new), so the
 * decode is one a session makes anyway and stays in the segment cache.  A
 * key that missed a change (format 6's: a copied bundle that kept its
 * stream's mtime, an image gone) shows here and the index is rebuilt.
 */
static int idx_spot_check(struct rp_session *s, struct rp_thread *t)
{
	struct rp_seg *seg = &t->cache[0];

	if (!t->insns || !t->nckpts)
		return 0;
	t->cached = true;	/* rp_materialize: no slow path, it trusts */
	if (!rp_materialize(s, t, t->nckpts - 1, seg))
		return 0;
	t->cached = false;
	seg->ckpt = UINT64_MAX;
	s->errmsg[0] = '\0';
	return -1;
}

int rp_idx_load(struct rp_session *s, struct rp_thread *t)
{
	uint8_t mac[IDX_MAC_SIZE], *buf = NULL;
	char rel[64];
	struct stat st;
	size_t len, done = 0;
	int fd, ret = -1;

	if (!idx_enabled() || idx_key_get())
		return -1;
	snprintf(rel, sizeof(rel), "index/%u.idx", t->tid);
	fd = sb_bundle_open_file(s->dir, rel, NULL, NULL);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (uint64_t)st.st_size > idx_max(t) ||
	    (size_t)st.st_size < sizeof(struct idx_header) + IDX_MAC_SIZE)
		goto out;
	len = (size_t)st.st_size - IDX_MAC_SIZE;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		goto out;
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		done += (size_t)n;
	}
	if (idx_mac(buf, len, mac) ||
	    !memeql_sec(mac, buf + len, sizeof(mac)))
		goto out;
	ret = rp_idx_parse(s, t, buf, len);
	if (!ret)
		ret = idx_spot_check(s, t);
out:
	free(buf);
	close(fd);
	return ret;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Appends @len bytes (none when @len is 0: @src may then be NULL). */
static uint8_t *put(uint8_t *p, const void *src, size_t len)
{
	if (len)
		memcpy(p, src, len);
	return p + len;
}

/*
 * The directory to write in: BUNDLE/index, reached without a symlink, in a
 * bundle directory this user owns and an index directory this user owns.
 */
static int index_dir(const struct rp_session *s)
{
	struct stat st;
	int dfd, ifd;

	dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) || st.st_uid != geteuid() ||
	    (mkdirat(dfd, "index", 0755) && errno != EEXIST)) {
		close(dfd);
		return -1;
	}
	close(dfd);
	ifd = sb_bundle_open_dir(s->dir, "index", NULL);
	if (ifd >= 0 && (fstat(ifd, &st) || st.st_uid != geteuid())) {
		close(ifd);
		return -1;
	}
	return ifd;
}

void rp_idx_save(struct rp_session *s, const struct rp_thread *t)
{
	char name[64], tmp[96];
	struct idx_header h;
	struct idx_gap gap;
	uint8_t *buf, *p;
	size_t len;
	uint64_t i;
	int ifd, fd, ok;

	if (!idx_enabled() || idx_key_get())
		return;
	len = sizeof(h) + t->npsbs * sizeof(*t->psbs) +
	      t->nckpts * sizeof(*t->ckpts) + t->ngaps * sizeof(gap) +
	      t->nevs * sizeof(*t->evs) + t->nrets * sizeof(*t->rets);
	buf = malloc(len + IDX_MAC_SIZE);
	if (!buf)
		return;
	idx_header_fill(s, t, &h);
	p = put(buf, &h, sizeof(h));
	p = put(p, t->psbs, t->npsbs * sizeof(*t->psbs));
	p = put(p, t->ckpts, t->nckpts * sizeof(*t->ckpts));
	for (i = 0; i < t->ngaps; i++) {
		memset(&gap, 0, sizeof(gap));
		gap.before = t->gaps[i].before;
		gap.ip = t->gaps[i].ip;
		gap.offset = t->gaps[i].offset;
		gap.reason = t->gaps[i].reason;
		gap.errcode = errcode_of(t->gaps[i].error);
		gap.bytes = t->gaps[i].bytes;
		p = put(p, &gap, sizeof(gap));
	}
	p = put(p, t->evs, t->nevs * sizeof(*t->evs));
	p = put(p, t->rets, t->nrets * sizeof(*t->rets));
	ifd = idx_mac(buf, len, p) ? -1 : index_dir(s);
	if (ifd < 0) {
		free(buf);
		return;
	}
	snprintf(name, sizeof(name), "%u.idx", t->tid);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", name, (int)getpid());
	fd = openat(ifd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && !unlinkat(ifd, tmp, 0))
		fd = openat(ifd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ok = !write_all(fd, buf, len + IDX_MAC_SIZE);
		if (close(fd) || !ok || renameat(ifd, tmp, ifd, name))
			unlinkat(ifd, tmp, 0);
	}
	close(ifd);
	free(buf);
}

/*
 * The second line of defence: a saved index whose key matched and whose
 * values fit the stream, and which still disagrees with it once a segment
 * is decoded (a key that missed a change, as format 6's missed the image
 * set of a copied bundle that kept its stream's mtime).  The file goes,
 * the index is built from the stream again and saved.  A freshly built
 * index that disagrees is a decoder bug, reported by the caller.
 */
int rp_idx_rebuild(struct rp_session *s, struct rp_thread *t)
{
	char name[64];
	size_t k;
	int ifd, ret;

	if (!t->cached)
		return -RP_ERR_DECODE;
	t->cached = false;
	snprintf(name, sizeof(name), "%u.idx", t->tid);
	ifd = sb_bundle_open_dir(s->dir, "index", NULL);
	if (ifd >= 0) {
		unlinkat(ifd, name, 0);
		close(ifd);
	}
	for (k = 0; k < RP_SEG_CACHE; k++)
		t->cache[k].ckpt = UINT64_MAX;
	t->exact = false;
	ret = rp_index_thread(s, t);
	if (!ret)
		rp_idx_save(s, t);
	return ret;
}
