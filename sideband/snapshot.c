// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The snapshot part (snapshot.ptsnap): the state of every process where
 * its recording ended, so that the end of a history is as rich as a core
 * file.  A 32-byte header, then one zstd frame (with its checksum) of
 * records; docs/bundle-format.md is the specification.  Written through a
 * temporary file renamed into place, so the part is whole or absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"

enum {
	REC_PROC = 1,
	REC_THREAD = 2,
	REC_MAP = 3,
	REC_END = 4,
	REC_FDS = 5,		/* version 3 */
	REC_RSEQ = 6,		/* version 3 */
};

#define REC_HDR 16		/* u32 type, u32 zero, u64 size */
#define PROC_FIXED_V1 24
#define PROC_FIXED_V4 32	/* version 2: + u32 gen, u32 0 */
#define PROC_FIXED 40		/* 5: + u64 start_ns */
#define THREAD_FIXED (16 + 27 * 8 + SB_SNAP_SIGINFO_SIZE)
#define MAP_FIXED_V3 40
#define MAP_FIXED_V4 56		/* 4: + u32 dev_major, dev_minor, u64 ino */
#define MAP_FIXED 80		/* 5: + u64 mtime_ns, ctime_ns, u32 fs_type,
				 * file_flags */
#define FDS_FIXED 8		/* u32 n, u32 0; then n entries: */
#define FD_V3 8			/* u32 fd, u32 kind */
#define FD_SIZE 24		/* 4: + u32 dev_major, dev_minor, u64 ino */
#define RSEQ_FIXED 8		/* u32 n, flags; n x (u64 addr, u32 len, tid) */
#define CHUNK0 (1u << 20)	/* first decompression buffer */

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

const char *sb_snap_end_name(uint32_t end)
{
	static const char *const n[] = { "?", "exit", "signal", "stop",
					 "detach", "exec" };

	return end < SB_ARRAY_SIZE(n) ? n[end] : "?";
}

const char *sb_snap_content_name(uint32_t content)
{
	static const char *const n[] = { "data", "image", "over-limit",
					 "unreadable" };

	return content < SB_ARRAY_SIZE(n) ? n[content] : "?";
}

/* ---- writer ----------------------------------------------------------- */

struct sb_snap_writer {
	char *path, *tmp;
	FILE *f;
	ZSTD_CCtx *cctx;
	uint8_t *out;
	size_t outsz;
	uint64_t raw;
	uint64_t data_bytes;
	uint64_t nprocs;
	int error;
};

static int w_fail(struct sb_snap_writer *w, struct sb_err *err, int code,
		  const char *what)
{
	if (!w->error)
		w->error = code;
	return sb_fail(err, w->error, "%s: %s: %s", w->tmp, what,
		       strerror(-w->error));
}

static int w_push(struct sb_snap_writer *w, const void *buf, size_t len,
		  ZSTD_EndDirective mode, struct sb_err *err)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	size_t left;

	if (w->error)
		return sb_fail(err, w->error, "%s: an earlier write failed: %s",
			       w->tmp, strerror(-w->error));
	do {
		ZSTD_outBuffer out = { w->out, w->outsz, 0 };

		left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return w_fail(w, err, -EIO, ZSTD_getErrorName(left));
		if (out.pos && fwrite(w->out, 1, out.pos, w->f) != out.pos)
			return w_fail(w, err, errno ? -errno : -EIO, "write");
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	w->raw += len;
	return 0;
}

static const uint8_t zeros[8];

static int w_rec(struct sb_snap_writer *w, uint32_t type, const void *fixed,
		 size_t flen, const void *a, size_t alen, const void *b,
		 size_t blen, struct sb_err *err)
{
	uint8_t h[REC_HDR] = { 0 };
	uint64_t body = flen + alen + blen;
	uint64_t size = REC_HDR + SB_ALIGN_UP(body, 8);
	int ret;

	put32(h, type);
	put64(h + 8, size);
	ret = w_push(w, h, sizeof(h), ZSTD_e_continue, err);
	if (!ret && flen)
		ret = w_push(w, fixed, flen, ZSTD_e_continue, err);
	if (!ret && alen)
		ret = w_push(w, a, alen, ZSTD_e_continue, err);
	if (!ret && blen)
		ret = w_push(w, b, blen, ZSTD_e_continue, err);
	if (!ret && size - REC_HDR - body)
		ret = w_push(w, zeros, size - REC_HDR - body, ZSTD_e_continue,
			     err);
	return ret;
}

int sb_snap_writer_open(struct sb_snap_writer **wp, const char *path,
			struct sb_err *err)
{
	struct sb_snap_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[SB_SNAP_HEADER_SIZE] = { 0 };

	if (!w)
		return sb_fail(err, -ENOMEM, "out of memory");
	w->path = strdup(path);
	if (w->path && asprintf(&w->tmp, "%s.tmp", path) < 0)
		w->tmp = NULL;
	w->outsz = ZSTD_CStreamOutSize();
	w->out = malloc(w->outsz);
	w->cctx = ZSTD_createCCtx();
	if (!w->path || !w->tmp || !w->out || !w->cctx) {
		sb_snap_writer_abort(w);
		return sb_fail(err, -ENOMEM, "out of memory");
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	w->f = fopen(w->tmp, "wxe");
	if (!w->f) {
		int e = -errno;

		free(w->tmp);
		w->tmp = NULL;
		sb_snap_writer_abort(w);
		return sb_fail(err, e, "%s.tmp: %s", path, strerror(-e));
	}
	memcpy(hdr, SB_SNAP_MAGIC, 8);
	put32(hdr + 8, SB_SNAP_VERSION);
	if (fwrite(hdr, 1, sizeof(hdr), w->f) != sizeof(hdr)) {
		int e = errno ? -errno : -EIO;

		sb_fail(err, e, "%s: write: %s", w->tmp, strerror(-e));
		sb_snap_writer_abort(w);
		return e;
	}
	*wp = w;
	return 0;
}

/*
 * What one record's own fields must hold, for the writer and the reader
 * alike (the writer once wrote end kinds its reader refused): NULL when
 * they are good, else what is wrong.
 */
static const char *proc_invalid(uint32_t end)
{
	if (end < SB_SNAP_END_EXIT || end > SB_SNAP_END_EXEC)
		return "process record: unknown end kind";
	return NULL;
}

static const char *map_invalid(uint64_t start, uint64_t end,
			       uint32_t content)
{
	if (end <= start || (start | end) & 0xfff)
		return "mapping: not a page-aligned range";
	if (content > SB_SNAP_UNREADABLE)
		return "mapping: unknown content kind";
	return NULL;
}

int sb_snap_writer_proc(struct sb_snap_writer *w,
			const struct sb_snap_proc *p, struct sb_err *err)
{
	uint8_t f[PROC_FIXED] = { 0 };
	const char *exe = p->exe ? p->exe : "";
	size_t elen = strlen(exe) + 1;
	const char *why = proc_invalid(p->end);

	if (why)
		return sb_fail(err, -EINVAL, "%s: process %u: %s (%u)", w->tmp,
			       p->pid, why, p->end);

	put32(f, p->pid);
	put32(f + 4, p->ppid);
	put32(f + 8, p->end);
	put32(f + 12, (uint32_t)p->status);
	put32(f + 16, (uint32_t)elen);
	put32(f + 20, p->auxv ? p->auxv_len : 0);
	put32(f + 24, p->gen);
	put64(f + 32, p->start_ns);
	w->nprocs++;
	return w_rec(w, REC_PROC, f, sizeof(f), exe, elen, p->auxv,
		     p->auxv ? p->auxv_len : 0, err);
}

int sb_snap_writer_thread(struct sb_snap_writer *w,
			  const struct sb_snap_thread *t, struct sb_err *err)
{
	uint8_t f[THREAD_FIXED] = { 0 };
	uint32_t fl = t->fpregs ? t->fpregs_len : 0;
	uint32_t xl = t->xstate ? t->xstate_len : 0;
	unsigned int i;

	if (xl > SB_SNAP_XSTATE_MAX || fl > SB_SNAP_XSTATE_MAX)
		return sb_fail(err, -EINVAL, "%s: thread %u: register set too large",
			       w->tmp, t->tid);
	put32(f, t->tid);
	put32(f + 4, t->has_siginfo ? 1 : 0);
	put32(f + 8, fl);
	put32(f + 12, xl);
	for (i = 0; i < 27; i++)
		put64(f + 16 + 8 * i, t->regs[i]);
	memcpy(f + 16 + 27 * 8, t->siginfo, SB_SNAP_SIGINFO_SIZE);
	return w_rec(w, REC_THREAD, f, sizeof(f), t->fpregs, fl, t->xstate, xl,
		     err);
}

int sb_snap_writer_map(struct sb_snap_writer *w, const struct sb_snap_map *m,
		       struct sb_err *err)
{
	uint8_t f[MAP_FIXED] = { 0 };
	const char *path = m->path ? m->path : "";
	size_t plen = SB_ALIGN_UP(strlen(path) + 1, 8);
	uint64_t dlen = m->content == SB_SNAP_DATA ? m->end - m->start : 0;
	const char *why = map_invalid(m->start, m->end, m->content);
	char *pbuf;
	int ret;

	if (!why && dlen && !m->data)
		why = "mapping: contents missing";
	if (why)
		return sb_fail(err, -EINVAL, "%s: %s: 0x%" PRIx64 "-0x%" PRIx64
			       " (content %u)", w->tmp, why, m->start, m->end,
			       m->content);
	pbuf = calloc(1, plen);
	if (!pbuf)
		return sb_fail(err, -ENOMEM, "out of memory");
	strcpy(pbuf, path);
	put64(f, m->start);
	put64(f + 8, m->end);
	put64(f + 16, m->pgoff);
	put32(f + 24, m->prot);
	put32(f + 28, m->content);
	put32(f + 32, (uint32_t)plen);
	put32(f + 40, m->dev_major);
	put32(f + 44, m->dev_minor);
	put64(f + 48, m->ino);
	put64(f + 56, m->mtime_ns);
	put64(f + 64, m->ctime_ns);
	put32(f + 72, m->fs_type);
	put32(f + 76, m->file_flags);
	ret = w_rec(w, REC_MAP, f, sizeof(f), pbuf, plen, m->data, dlen, err);
	free(pbuf);
	w->data_bytes += dlen;
	return ret;
}

/* Where the FDS and RSEQ lists are wrong, for the writer and the reader. */
static const char *fds_invalid(const struct sb_snap_fd *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].kind > SB_SNAP_FD_KIND_MAX)
			return "fds: unknown descriptor kind";
		/* Every kind but these has a file with an inode. */
		if (f[i].ino && (f[i].kind == SB_SNAP_FD_UNKNOWN ||
				 f[i].kind == SB_SNAP_FD_MEM))
			return "fds: an inode for a descriptor of unknown or memory kind";
		if (i && f[i - 1].fd >= f[i].fd)
			return "fds: descriptors not in increasing order";
	}
	return NULL;
}

static const char *rseq_invalid(uint32_t flags)
{
	return flags & ~SB_SNAP_RSEQ_COMPLETE ? "rseq: unknown flags" : NULL;
}

int sb_snap_writer_fds(struct sb_snap_writer *w, const struct sb_snap_fd *fds,
		       size_t n, struct sb_err *err)
{
	uint8_t f[FDS_FIXED] = { 0 }, *body;
	const char *why = fds_invalid(fds, n);
	size_t i;
	int ret;

	if (why || n > UINT32_MAX / FD_SIZE)
		return sb_fail(err, -EINVAL, "%s: %s", w->tmp,
			       why ? why : "fds: too many");
	body = calloc(n ? n : 1, FD_SIZE);
	if (!body)
		return sb_fail(err, -ENOMEM, "out of memory");
	put32(f, (uint32_t)n);
	for (i = 0; i < n; i++) {
		uint8_t *e = body + FD_SIZE * i;

		put32(e, fds[i].fd);
		put32(e + 4, fds[i].kind);
		put32(e + 8, fds[i].dev_major);
		put32(e + 12, fds[i].dev_minor);
		put64(e + 16, fds[i].ino);
	}
	ret = w_rec(w, REC_FDS, f, sizeof(f), body, FD_SIZE * n, NULL, 0,
		    err);
	free(body);
	return ret;
}

int sb_snap_writer_rseq(struct sb_snap_writer *w,
			const struct sb_snap_rseq *rs, size_t n,
			uint32_t flags, struct sb_err *err)
{
	uint8_t f[RSEQ_FIXED] = { 0 }, *body;
	const char *why = rseq_invalid(flags);
	size_t i;
	int ret;

	if (why || n > UINT32_MAX / 16)
		return sb_fail(err, -EINVAL, "%s: %s", w->tmp,
			       why ? why : "rseq: too many");
	body = calloc(n ? n : 1, 16);
	if (!body)
		return sb_fail(err, -ENOMEM, "out of memory");
	put32(f, (uint32_t)n);
	put32(f + 4, flags);
	for (i = 0; i < n; i++) {
		put64(body + 16 * i, rs[i].addr);
		put32(body + 16 * i + 8, rs[i].len);
		put32(body + 16 * i + 12, rs[i].tid);
	}
	ret = w_rec(w, REC_RSEQ, f, sizeof(f), body, 16 * n, NULL, 0, err);
	free(body);
	return ret;
}

uint64_t sb_snap_writer_data_bytes(const struct sb_snap_writer *w)
{
	return w ? w->data_bytes : 0;
}

void sb_snap_writer_abort(struct sb_snap_writer *w)
{
	if (!w)
		return;
	if (w->f) {
		fclose(w->f);
		unlink(w->tmp);
	}
	ZSTD_freeCCtx(w->cctx);
	free(w->out);
	free(w->path);
	free(w->tmp);
	free(w);
}

int sb_snap_writer_close(struct sb_snap_writer *w, struct sb_err *err)
{
	uint8_t end[8], raw[8];
	int ret;

	if (!w)
		return 0;
	put64(end, w->nprocs);
	ret = w_rec(w, REC_END, end, sizeof(end), NULL, 0, NULL, 0, err);
	if (!ret)
		ret = w_push(w, NULL, 0, ZSTD_e_end, err);
	put64(raw, w->raw);
	if (!ret && (fseek(w->f, 16, SEEK_SET) ||
		     fwrite(raw, 1, 8, w->f) != 8 || fflush(w->f) ||
		     fsync(fileno(w->f))))
		ret = w_fail(w, err, errno ? -errno : -EIO, "write");
	if (!ret) {
		ret = fclose(w->f) ? -errno : 0;
		w->f = NULL;
		if (ret)
			unlink(w->tmp);
		else if (rename(w->tmp, w->path))
			ret = -errno;
		if (ret)
			sb_fail(err, ret, "%s: %s", w->path, strerror(-ret));
		else
			sb_sync_parent(w->path);
	}
	sb_snap_writer_abort(w);
	return ret;
}

/* ---- reader ----------------------------------------------------------- */

struct rd {
	const char *name;
	struct sb_err *err;
	struct sb_snapshot *s;
	uint32_t version;
};

static int bad(struct rd *r, uint64_t off, const char *what)
{
	return sb_fail(r->err, -EBADMSG,
		       "%s: snapshot byte offset %" PRIu64
		       " (decompressed): %s", r->name, off, what);
}

static void *grow(void *v, size_t *n, size_t sz)
{
	void *nv;

	if ((*n & (*n - 1)) == 0 || *n == 0) {
		size_t cap = *n ? *n * 2 : 4;

		nv = realloc(v, cap * sz);
		if (!nv)
			return NULL;
		v = nv;
	}
	memset((char *)v + *n * sz, 0, sz);
	(*n)++;
	return v;
}

/* A NUL-terminated string of exactly @len bytes (NUL inside). */
static bool str_ok(const uint8_t *p, size_t len)
{
	return len && memchr(p, 0, len) != NULL;
}

static int parse_proc(struct rd *r, const uint8_t *b, uint64_t len,
		      uint64_t off)
{
	uint32_t fixed = r->version == 1 ? PROC_FIXED_V1 :
			 r->version < 5 ? PROC_FIXED_V4 : PROC_FIXED;
	const struct sb_snap_proc *prev;
	struct sb_snap_proc *p;
	uint32_t elen, alen, gen;
	void *v;

	if (len < fixed)
		return bad(r, off, "process record too short");
	elen = get32(b + 16);
	alen = get32(b + 20);
	if ((uint64_t)fixed + elen + alen > len || !str_ok(b + fixed, elen))
		return bad(r, off, "process record: lengths exceed the record");
	if (alen % 16)
		return bad(r, off, "process record: auxv is not whole pairs");
	/* Version 1 has one record a process, generation 0. */
	gen = r->version == 1 ? 0 : get32(b + 24);
	prev = sb_snap_proc(r->s, get32(b));
	if (prev && prev->gen >= gen)
		return bad(r, off, "process listed twice (same or earlier exec generation)");
	v = grow(r->s->procs, &r->s->nprocs, sizeof(*p));
	if (!v)
		return sb_fail(r->err, -ENOMEM, "out of memory");
	r->s->procs = v;
	p = &r->s->procs[r->s->nprocs - 1];
	p->pid = get32(b);
	p->ppid = get32(b + 4);
	p->end = get32(b + 8);
	p->status = (int32_t)get32(b + 12);
	p->gen = gen;
	p->has_ids = r->version >= 4;
	p->has_times = r->version >= 5;
	p->start_ns = r->version >= 5 ? get64(b + 32) : 0;
	p->exe = (const char *)b + fixed;
	p->auxv = alen ? b + fixed + elen : NULL;
	p->auxv_len = alen;
	if (proc_invalid(p->end))
		return bad(r, off, proc_invalid(p->end));
	return 0;
}

static int parse_thread(struct rd *r, struct sb_snap_proc *p,
			const uint8_t *b, uint64_t len, uint64_t off)
{
	const struct sb_snap_proc *tp = NULL;
	struct sb_snap_thread *t;
	uint32_t fl, xl;
	unsigned int i;
	void *v;

	if (len < THREAD_FIXED)
		return bad(r, off, "thread record too short");
	fl = get32(b + 8);
	xl = get32(b + 12);
	if (fl > SB_SNAP_XSTATE_MAX || xl > SB_SNAP_XSTATE_MAX ||
	    (uint64_t)THREAD_FIXED + fl + xl > len)
		return bad(r, off, "thread record: lengths exceed the record");
	/* A thread is in each image of its process it lived in. */
	if (sb_snap_thread(r->s, get32(b), &tp) &&
	    (tp == p || tp->pid != p->pid))
		return bad(r, off, "thread listed twice");
	v = grow(p->threads, &p->nthreads, sizeof(*t));
	if (!v)
		return sb_fail(r->err, -ENOMEM, "out of memory");
	p->threads = v;
	t = &p->threads[p->nthreads - 1];
	t->tid = get32(b);
	t->has_siginfo = get32(b + 4) ? 1 : 0;
	for (i = 0; i < 27; i++)
		t->regs[i] = get64(b + 16 + 8 * i);
	memcpy(t->siginfo, b + 16 + 27 * 8, SB_SNAP_SIGINFO_SIZE);
	t->fpregs_len = fl;
	t->fpregs = fl ? b + THREAD_FIXED : NULL;
	t->xstate_len = xl;
	t->xstate = xl ? b + THREAD_FIXED + fl : NULL;
	return 0;
}

static int parse_map(struct rd *r, struct sb_snap_proc *p, const uint8_t *b,
		     uint64_t len, uint64_t off)
{
	uint32_t fixed = r->version < 4 ? MAP_FIXED_V3 :
			 r->version < 5 ? MAP_FIXED_V4 : MAP_FIXED;
	struct sb_snap_map *m;
	uint64_t start, end, dlen;
	uint32_t plen, content;
	void *v;

	if (len < fixed)
		return bad(r, off, "mapping record too short");
	start = get64(b);
	end = get64(b + 8);
	content = get32(b + 28);
	plen = get32(b + 32);
	if (map_invalid(start, end, content))
		return bad(r, off, map_invalid(start, end, content));
	dlen = content == SB_SNAP_DATA ? end - start : 0;
	if (plen > len - fixed || dlen > len - fixed - plen ||
	    !str_ok(b + fixed, plen))
		return bad(r, off, "mapping: contents exceed the record");
	if (p->nmaps && p->maps[p->nmaps - 1].end > start)
		return bad(r, off, "mapping overlaps or precedes the one before");
	v = grow(p->maps, &p->nmaps, sizeof(*m));
	if (!v)
		return sb_fail(r->err, -ENOMEM, "out of memory");
	p->maps = v;
	m = &p->maps[p->nmaps - 1];
	m->start = start;
	m->end = end;
	m->pgoff = get64(b + 16);
	m->prot = get32(b + 24);
	m->content = content;
	m->path = (const char *)b + fixed;
	m->data = dlen ? b + fixed + plen : NULL;
	if (r->version >= 4) {
		m->dev_major = get32(b + 40);
		m->dev_minor = get32(b + 44);
		m->ino = get64(b + 48);
	}
	if (r->version >= 5) {
		m->mtime_ns = get64(b + 56);
		m->ctime_ns = get64(b + 64);
		m->fs_type = get32(b + 72);
		m->file_flags = get32(b + 76);
	}
	return 0;
}

static int parse_fds(struct rd *r, struct sb_snap_proc *p, const uint8_t *b,
		     uint64_t len, uint64_t off)
{
	uint32_t esz = r->version < 4 ? FD_V3 : FD_SIZE;
	uint32_t n, i;

	if (p->has_fds)
		return bad(r, off, "fds: listed twice for one process");
	if (len < FDS_FIXED)
		return bad(r, off, "fds record too short");
	n = get32(b);
	if (n > (len - FDS_FIXED) / esz)
		return bad(r, off, "fds: entries exceed the record");
	p->fds = calloc(n ? n : 1, sizeof(*p->fds));
	if (!p->fds)
		return sb_fail(r->err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const uint8_t *e = b + FDS_FIXED + esz * i;

		p->fds[i].fd = get32(e);
		p->fds[i].kind = get32(e + 4);
		/* Version 3 knew three kinds: any other is damage. */
		if (r->version < 4 && p->fds[i].kind > SB_SNAP_FD_UNKNOWN)
			return bad(r, off, "fds: unknown descriptor kind");
		if (r->version >= 4) {
			p->fds[i].dev_major = get32(e + 8);
			p->fds[i].dev_minor = get32(e + 12);
			p->fds[i].ino = get64(e + 16);
		}
	}
	p->nfds = n;
	p->has_fds = true;
	if (fds_invalid(p->fds, n))
		return bad(r, off, fds_invalid(p->fds, n));
	return 0;
}

static int parse_rseq(struct rd *r, struct sb_snap_proc *p,
		      const uint8_t *b, uint64_t len, uint64_t off)
{
	uint32_t n, i;

	if (p->has_rseq)
		return bad(r, off, "rseq: listed twice for one process");
	if (len < RSEQ_FIXED)
		return bad(r, off, "rseq record too short");
	n = get32(b);
	if (n > (len - RSEQ_FIXED) / 16)
		return bad(r, off, "rseq: entries exceed the record");
	p->rseq_flags = get32(b + 4);
	if (rseq_invalid(p->rseq_flags))
		return bad(r, off, rseq_invalid(p->rseq_flags));
	p->rseq = calloc(n ? n : 1, sizeof(*p->rseq));
	if (!p->rseq)
		return sb_fail(r->err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		p->rseq[i].addr = get64(b + RSEQ_FIXED + 16 * i);
		p->rseq[i].len = get32(b + RSEQ_FIXED + 16 * i + 8);
		p->rseq[i].tid = get32(b + RSEQ_FIXED + 16 * i + 12);
	}
	p->nrseq = n;
	p->has_rseq = true;
	return 0;
}

static int parse(struct rd *r)
{
	struct sb_snapshot *s = r->s;
	uint64_t off = 0;
	struct sb_snap_proc *p = NULL;
	int ret = 0;

	while (!ret) {
		const uint8_t *b = s->raw + off;
		uint64_t size;
		uint32_t type;

		if (s->raw_len - off < REC_HDR)
			return bad(r, off, "truncated: no end record");
		type = get32(b);
		size = get64(b + 8);
		if (size < REC_HDR || size % 8 || size > s->raw_len - off)
			return bad(r, off, "record size out of bounds");
		switch (type) {
		case REC_PROC:
			ret = parse_proc(r, b + REC_HDR, size - REC_HDR, off);
			p = ret ? NULL : &s->procs[s->nprocs - 1];
			break;
		case REC_THREAD:
		case REC_MAP:
			if (!p)
				return bad(r, off, "thread or mapping before any process");
			ret = type == REC_THREAD ?
			      parse_thread(r, p, b + REC_HDR, size - REC_HDR,
					   off) :
			      parse_map(r, p, b + REC_HDR, size - REC_HDR,
					off);
			break;
		case REC_FDS:
		case REC_RSEQ:
			if (r->version < 3)
				return bad(r, off, "unknown record type");
			if (!p)
				return bad(r, off, "fds or rseq before any process");
			ret = type == REC_FDS ?
			      parse_fds(r, p, b + REC_HDR, size - REC_HDR,
					off) :
			      parse_rseq(r, p, b + REC_HDR, size - REC_HDR,
					 off);
			break;
		case REC_END:
			if (size < REC_HDR + 8 ||
			    get64(b + REC_HDR) != s->nprocs)
				return bad(r, off, "end record does not match the processes");
			if (off + size != s->raw_len)
				return bad(r, off + size, "data after the end record");
			return 0;
		default:
			return bad(r, off, "unknown record type");
		}
		/* The process pointer moves when procs grows. */
		if (!ret && type == REC_PROC)
			p = &s->procs[s->nprocs - 1];
		off += size;
	}
	return ret;
}

int sb_snap_load_mem(struct sb_snapshot **sp, const void *buf, size_t len,
		     const char *name, struct sb_err *err)
{
	const uint8_t *h = buf;
	struct rd r = { .name = name ? name : "snapshot", .err = err };
	ZSTD_DCtx *d;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	uint64_t raw;
	size_t zr, cap;
	bool nomem = false;
	int ret;

	*sp = NULL;
	if (len < SB_SNAP_HEADER_SIZE)
		return sb_fail(err, -EBADMSG,
			       "%s: byte offset %zu: truncated header (%d bytes)",
			       r.name, len, SB_SNAP_HEADER_SIZE);
	if (memcmp(h, SB_SNAP_MAGIC, 8))
		return sb_fail(err, -EBADMSG,
			       "%s: byte offset 0: not a ptrec snapshot (bad magic)",
			       r.name);
	/* Versions 1 (no exec generation), 2 (no FDS or RSEQ records) and
	 * 3 (no device and inode, descriptor kinds only memory or not) are
	 * still read.
	 */
	r.version = get32(h + 8);
	if (r.version < 1 || r.version > SB_SNAP_VERSION)
		return sb_fail(err, -EPROTONOSUPPORT,
			       "%s: byte offset 8: snapshot version %u, this ptrec reads versions 1 to %d; %s",
			       r.name, get32(h + 8), SB_SNAP_VERSION,
			       get32(h + 8) > SB_SNAP_VERSION ?
			       "upgrade ptrec to read it" :
			       "re-record it");
	raw = get64(h + 16);
	if (raw > SB_SNAP_RAW_MAX)
		return sb_fail(err, -EFBIG,
			       "%s: byte offset 16: %" PRIu64
			       " bytes decompressed, over the %llu limit",
			       r.name, raw, SB_SNAP_RAW_MAX);
	r.s = calloc(1, sizeof(*r.s));
	if (!r.s)
		return sb_fail(err, -ENOMEM, "out of memory");
	/*
	 * The buffer grows with what really decompresses, so a header that
	 * claims more than the data holds allocates no more than the data.
	 */
	cap = raw < CHUNK0 ? raw : CHUNK0;
	r.s->raw = malloc(cap ? cap : 1);
	d = ZSTD_createDCtx();
	if (!r.s->raw || !d) {
		ZSTD_freeDCtx(d);
		sb_snap_free(r.s);
		return sb_fail(err, -ENOMEM, "out of memory (%" PRIu64
			       " bytes for %s)", raw, r.name);
	}
	in = (ZSTD_inBuffer){ h + SB_SNAP_HEADER_SIZE,
			      len - SB_SNAP_HEADER_SIZE, 0 };
	out = (ZSTD_outBuffer){ r.s->raw, cap, 0 };
	zr = 1;
	while (in.pos < in.size && zr) {
		size_t before_in = in.pos, before_out = out.pos;

		if (out.pos == out.size && out.size < raw) {
			size_t ncap = out.size * 2 < raw ? out.size * 2 : raw;
			uint8_t *nb = realloc(r.s->raw, ncap);

			if (!nb) {
				nomem = true;
				break;
			}
			r.s->raw = nb;
			out.dst = nb;
			out.size = ncap;
		}
		zr = ZSTD_decompressStream(d, &out, &in);
		if (ZSTD_isError(zr))
			break;
		if (in.pos == before_in && out.pos == before_out &&
		    out.pos == out.size && out.size >= raw)
			break;	/* output full, more input: too long */
	}
	ZSTD_freeDCtx(d);
	r.s->raw_len = out.pos;
	if (nomem) {
		ret = sb_fail(err, -ENOMEM, "%s: out of memory", r.name);
	} else if (ZSTD_isError(zr)) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: byte offset %zu: damaged compressed data: %s",
			      r.name, SB_SNAP_HEADER_SIZE + in.pos,
			      ZSTD_getErrorName(zr));
	} else if (zr) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: byte offset %zu: truncated compressed data (%zu of %" PRIu64 " bytes decompressed)",
			      r.name, len, out.pos, raw);
	} else if (out.pos != raw || in.pos != in.size) {
		ret = sb_fail(err, -EBADMSG,
			      "%s: byte offset %zu: decompressed size %zu differs from the header's %" PRIu64,
			      r.name, SB_SNAP_HEADER_SIZE + in.pos, out.pos,
			      raw);
	} else {
		ret = parse(&r);
	}
	if (ret) {
		sb_snap_free(r.s);
		return ret;
	}
	*sp = r.s;
	return 0;
}

int sb_snap_load(struct sb_snapshot **sp, const char *path,
		 struct sb_err *err)
{
	char *buf;
	size_t len;
	int ret;

	*sp = NULL;
	ret = sb_read_file(path, SB_SNAP_RAW_MAX, &buf, &len, err);
	if (ret)
		return ret;
	ret = sb_snap_load_mem(sp, buf, len, path, err);
	free(buf);
	return ret;
}

void sb_snap_free(struct sb_snapshot *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nprocs; i++) {
		free(s->procs[i].threads);
		free(s->procs[i].maps);
		free(s->procs[i].fds);
		free(s->procs[i].rseq);
	}
	free(s->procs);
	free(s->raw);
	free(s);
}

const struct sb_snap_proc *sb_snap_proc(const struct sb_snapshot *s,
					uint32_t pid)
{
	const struct sb_snap_proc *last = NULL;
	size_t i;

	for (i = 0; s && i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			last = &s->procs[i];
	return last;
}

const struct sb_snap_proc *sb_snap_proc_gen(const struct sb_snapshot *s,
					    uint32_t pid, uint32_t gen)
{
	size_t i;

	for (i = 0; s && i < s->nprocs; i++)
		if (s->procs[i].pid == pid && s->procs[i].gen == gen)
			return &s->procs[i];
	return NULL;
}

const struct sb_snap_thread *sb_snap_thread(const struct sb_snapshot *s,
					    uint32_t tid,
					    const struct sb_snap_proc **proc)
{
	const struct sb_snap_thread *last = NULL;
	size_t i, j;

	for (i = 0; s && i < s->nprocs; i++)
		for (j = 0; j < s->procs[i].nthreads; j++)
			if (s->procs[i].threads[j].tid == tid) {
				if (proc)
					*proc = &s->procs[i];
				last = &s->procs[i].threads[j];
			}
	return last;
}

size_t sb_snap_read_mem(const struct sb_snap_proc *p, uint64_t addr,
			void *buf, size_t len)
{
	size_t done = 0, lo = 0, hi;

	if (!p)
		return 0;
	while (done < len) {
		uint64_t a = addr + done;
		const struct sb_snap_map *m = NULL;
		size_t n;

		if (a < addr)
			break;
		/* Binary search: the mappings are sorted. */
		lo = 0;
		hi = p->nmaps;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->maps[mid].end <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->nmaps && p->maps[lo].start <= a)
			m = &p->maps[lo];
		if (!m || m->content != SB_SNAP_DATA)
			break;
		n = m->end - a < len - done ? m->end - a : len - done;
		memcpy((uint8_t *)buf + done, m->data + (a - m->start), n);
		done += n;
	}
	return done;
}
