// SPDX-License-Identifier: GPL-3.0-or-later
/* Sessions: opening a bundle, its threads, errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disasm.h"
#include "rp_internal.h"

static const char *const errstrs[RP_ERR_COUNT] = {
	[RP_OK] = "success",
	[RP_ERR_INVAL] = "invalid argument",
	[RP_ERR_NOMEM] = "out of memory",
	[RP_ERR_BUNDLE] = "bundle missing, incomplete or damaged",
	[RP_ERR_VERSION] = "bundle format version not supported",
	[RP_ERR_NOTHREAD] = "no such thread",
	[RP_ERR_RANGE] = "position outside the history",
	[RP_ERR_NOTFOUND] = "not found in the history",
	[RP_ERR_DECODE] = "internal decode error",
	[RP_ERR_IO] = "I/O error reading the bundle",
};

const char *rp_errstr(int err)
{
	if (err < 0)
		err = -err;
	return err < RP_ERR_COUNT ? errstrs[err] : "unknown error";
}

int rp_fail(struct rp_session *s, enum rp_error err, const char *fmt, ...)
{
	va_list ap;

	if (s) {
		va_start(ap, fmt);
		vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
		va_end(ap);
	}
	return -(int)err;
}

void rp_session_info(const struct rp_session *s, struct rp_session_info *info)
{
	const struct sb_manifest *m = s->m;

	info->backend = m->backend;
	info->emulated = m->pt.emulated;
	info->cpu_vendor = m->cpu.vendor;
	info->cpu_family = m->cpu.family;
	info->cpu_model = m->cpu.model;
	info->cpu_stepping = m->cpu.stepping;
	info->argc = m->argc;
	info->argv = (const char *const *)m->argv;
	info->start_ns = m->start_ns;
	info->stop_ns = m->stop_ns;
	info->tsc_hz = m->time.tsc_hz;
	info->snapshot = m->snapshot != NULL;
}

const char *rp_session_errmsg(const struct rp_session *s)
{
	return s ? s->errmsg : "out of memory";
}

struct rp_thread *rp_find_thread(const struct rp_session *s, uint32_t tid)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}

static int load_sideband(struct rp_session *s)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err;
	char path[4096];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", s->dir, s->m->sideband);
	fd = sb_bundle_open_file(s->dir, s->m->sideband, s->m, &err);
	ret = fd < 0 ? fd : sb_reader_open_fd(&r, fd, path, &err);
	if (ret)
		return rp_fail(s, ret == -EPROTONOSUPPORT ? RP_ERR_VERSION :
			       RP_ERR_BUNDLE, "%s", err.msg);
	while ((ret = sb_reader_next(r, &h, &err)) > 0) {
		struct ptrec_sb_header **v, *copy;

		copy = malloc(h->size);
		v = realloc(s->recs, (s->nrecs + 1) * sizeof(*v));
		if (!copy || !v) {
			free(copy);
			if (v)
				s->recs = v;
			sb_reader_close(r);
			return rp_fail(s, RP_ERR_NOMEM, "out of memory");
		}
		s->recs = v;
		memcpy(copy, h, h->size);
		s->recs[s->nrecs++] = copy;
	}
	sb_reader_close(r);
	if (ret < 0)
		return rp_fail(s, RP_ERR_BUNDLE, "%s", err.msg);
	return 0;
}

/* Stands in for an empty stream: libipt wants a non-NULL begin. */
static const uint8_t empty_stream[1];

static int map_stream(struct rp_session *s, struct rp_thread *t,
		      const char *rel)
{
	struct sb_err err;
	struct stat st;
	int fd;

	fd = sb_bundle_open_file(s->dir, rel, s->m, &err);
	if (fd < 0)
		return rp_fail(s, fd == -ENOMEM ? RP_ERR_NOMEM : RP_ERR_BUNDLE,
			       "%s", err.msg);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return rp_fail(s, RP_ERR_IO, "%s/%s: %s", s->dir, rel,
			       strerror(errno));
	}
	t->pt_size = (size_t)st.st_size;
	t->pt_mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
			 (uint64_t)st.st_mtim.tv_nsec;
	t->pt = empty_stream;
	if (t->pt_size) {
		t->pt = mmap(NULL, t->pt_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (t->pt == MAP_FAILED) {
			t->pt = NULL;
			close(fd);
			return rp_fail(s, RP_ERR_IO, "%s/%s: %s", s->dir, rel,
				       strerror(errno));
		}
	}
	close(fd);
	return 0;
}

int rp_session_open(struct rp_session **sp, const char *dir)
{
	return rp_session_open_progress(sp, dir, NULL, NULL);
}

int rp_session_open_progress(struct rp_session **sp, const char *dir,
			     rp_progress_fn fn, void *ctx)
{
	struct rp_session *s;
	struct sb_err err;
	size_t i, k;
	int ret;

	if (!sp || !dir)
		return -RP_ERR_INVAL;
	s = calloc(1, sizeof(*s));
	*sp = s;
	if (!s || !(s->dir = strdup(dir)))
		return -RP_ERR_NOMEM;
	s->progress = fn;
	s->progress_ctx = ctx;
	ret = sb_manifest_load(&s->m, dir, &err);
	if (ret)
		return rp_fail(s, ret == -EPROTONOSUPPORT ? RP_ERR_VERSION :
			       RP_ERR_BUNDLE, "%s", err.msg);
	ret = load_sideband(s);
	if (ret)
		return ret;
	s->iscache = pt_iscache_alloc(NULL);
	s->images = calloc(s->m->nimages + 1, sizeof(*s->images));
	s->threads = calloc(s->m->nthreads + 1, sizeof(*s->threads));
	if (!s->iscache || !s->images || !s->threads)
		return rp_fail(s, RP_ERR_NOMEM, "out of memory");
	for (i = 0; i < s->m->nimages; i++) {
		struct rp_image *im = &s->images[s->nimages++];

		if (asprintf(&im->path, "%s/%s", dir, s->m->images[i].file) < 0)
			im->path = NULL;
		im->key = strdup(s->m->images[i].key);
		im->origin = strdup(s->m->images[i].path ?
				    s->m->images[i].path : im->key);
		if (!im->path || !im->key || !im->origin)
			return rp_fail(s, RP_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < s->m->nfiles; i++)
		if (!strcmp(s->m->files[i].kind, "pt"))
			s->progress_total += s->m->files[i].size;
	for (i = 0; i < s->m->nthreads; i++) {
		struct rp_thread *t = &s->threads[s->nthreads++];

		t->tid = s->m->threads[i].tid;
		t->pid = s->m->threads[i].pid;
		for (k = 0; k < RP_SEG_CACHE; k++)
			t->cache[k].ckpt = UINT64_MAX;
		ret = map_stream(s, t, s->m->threads[i].pt);
		if (!ret && rp_idx_load(s, t)) {
			ret = rp_index_thread(s, t);
			if (!ret)
				rp_idx_save(s, t);
		} else if (!ret) {
			t->cached = true;	/* cursor.c: rp_idx_rebuild */
		}
		s->progress_base += t->pt_size;
		if (s->progress)
			s->progress(ctx, s->progress_base, s->progress_total);
		if (ret)
			return ret == -RP_ERR_NOMEM ?
			       rp_fail(s, RP_ERR_NOMEM, "out of memory") : ret;
	}
	return 0;
}

void rp_session_close(struct rp_session *s)
{
	size_t i, k;

	if (!s)
		return;
	rp_recover_free(s->ev_rc);
	rcv_xthr_session_free(s);
	rcv_dec_session_free(s);
	rp_snapshot_close(s->snap);
	for (i = 0; i < s->nthreads; i++) {
		struct rp_thread *t = &s->threads[i];

		if (t->pt && t->pt_size)
			munmap((void *)t->pt, t->pt_size);
		free(t->psbs);
		free(t->resume);
		free(t->ckpts);
		free(t->gaps);
		free(t->evs);
		free(t->rets);
		for (k = 0; k < RP_SEG_CACHE; k++)
			free(t->cache[k].insns);
	}
	free(s->threads);
	rp_syms_close(s);
	dis_free(s->dis);
	for (i = 0; i < s->nimages; i++) {
		free(s->images[i].path);
		free(s->images[i].key);
		free(s->images[i].origin);
	}
	free(s->images);
	pt_iscache_free(s->iscache);
	for (i = 0; i < s->nrecs; i++)
		free(s->recs[i]);
	free(s->recs);
	sb_manifest_free(s->m);
	free(s->dir);
	free(s);
}

size_t rp_thread_count(const struct rp_session *s)
{
	return s->nthreads;
}

uint32_t rp_thread_tid(const struct rp_session *s, size_t i)
{
	return i < s->nthreads ? s->threads[i].tid : 0;
}

size_t rp_untraced_count(const struct rp_session *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrecs; i++)
		n += s->recs[i]->type == PTREC_SB_UNTRACED;
	return n;
}

int rp_untraced_info(const struct rp_session *s, size_t i,
		     struct rp_untraced *u)
{
	size_t r;

	for (r = 0; r < s->nrecs; r++) {
		const struct ptrec_sb_untraced *rec = (const void *)s->recs[r];

		if (rec->hdr.type != PTREC_SB_UNTRACED || i--)
			continue;
		*u = (struct rp_untraced){
			.tid = rec->tid, .pid = rec->pid,
			.parent_tid = rec->parent_tid,
			.parent_pid = rec->parent_pid,
			.clone_flags = rec->clone_flags,
			.reason = rec->reason, .tsc = rec->hdr.time,
		};
		return 0;
	}
	return -RP_ERR_RANGE;
}

int rp_thread_info(const struct rp_session *s, uint32_t tid,
		   struct rp_thread_info *info)
{
	const struct rp_thread *t = rp_find_thread(s, tid);

	if (!t)
		return -RP_ERR_NOTHREAD;
	memset(info, 0, sizeof(*info));
	info->tid = t->tid;
	info->pid = t->pid;
	info->insns = t->insns;
	info->ngaps = t->ngaps;
	info->first_tsc = t->first_tsc;
	info->last_tsc = t->last_tsc;
	info->pt_bytes = t->pt_size;
	info->checkpoints = t->nckpts;
	info->index_bytes = t->nckpts * sizeof(*t->ckpts) +
			    t->npsbs * sizeof(*t->psbs) +
			    t->ngaps * sizeof(*t->gaps) +
			    t->nevs * sizeof(*t->evs);
	info->nevents = t->nevs;
	return 0;
}

int rp_thread_gap(const struct rp_session *s, uint32_t tid, uint64_t i,
		  struct rp_gap *gap)
{
	const struct rp_thread *t = rp_find_thread(s, tid);

	if (!t)
		return -RP_ERR_NOTHREAD;
	if (i >= t->ngaps)
		return -RP_ERR_RANGE;
	*gap = t->gaps[i];
	return 0;
}

int rp_image_open(const struct rp_session *s, size_t i)
{
	if (i >= s->nimages || i >= s->m->nimages)
		return -1;
	return sb_bundle_open_file(s->dir, s->m->images[i].file, s->m, NULL);
}

const char *rp_image_path(const struct rp_session *s, uint32_t image)
{
	return image && image <= s->nimages ? s->images[image - 1].path :
	       NULL;
}

int rp_image_fd(const struct rp_session *s, uint32_t image)
{
	if (!image || image > s->nimages)
		return -ENOENT;
	return rp_image_open(s, image - 1);
}

const char *rp_image_origin(const struct rp_session *s, uint32_t image)
{
	return image && image <= s->nimages ? s->images[image - 1].origin :
	       NULL;
}

int rp_process_exe(const struct rp_session *s, uint32_t pid, char *buf,
		   size_t size)
{
	size_t i;

	for (i = 0; i < s->m->nprocs; i++)
		if (s->m->procs[i].pid == pid && s->m->procs[i].exe &&
		    (size_t)snprintf(buf, size, "%s", s->m->procs[i].exe) <
		    size)
			return 0;
	return -RP_ERR_NOTFOUND;
}

int rp_fatal_thread(const struct rp_session *s, uint32_t *tid)
{
	size_t i;

	for (i = s->nrecs; i-- > 0;) {
		const struct ptrec_sb_signal *sig = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_SIGNAL &&
		    (sig->sflags & PTREC_SB_SIG_FATAL)) {
			*tid = sig->tid;
			return 0;
		}
	}
	return -RP_ERR_NOTFOUND;
}

int rp_fatal_signal(const struct rp_session *s, struct rp_signal *out)
{
	size_t i;

	for (i = s->nrecs; i-- > 0;) {
		const struct ptrec_sb_signal *sig = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_SIGNAL &&
		    (sig->sflags & PTREC_SB_SIG_FATAL)) {
			out->tid = sig->tid;
			out->pid = sig->pid;
			out->signo = sig->signo;
			out->code = sig->code;
			out->addr = sig->addr;
			return 0;
		}
	}
	return -RP_ERR_NOTFOUND;
}

_Static_assert((int)RP_REG_COUNT == (int)SB_REG_COUNT &&
	       (int)RP_REG_RIP == (int)SB_REG_RIP &&
	       (int)RP_REG_ORIG_RAX == (int)SB_REG_ORIG_RAX,
	       "enum rp_reg follows enum sb_reg");

/*
 * The end of a history, one rule for every front end: a thread whose
 * final registers show it still at its last instruction (it died in a
 * system call such as exit, or at a faulting instruction) ends at that
 * instruction, which ran but never completed; any other ends after its
 * last instruction.
 */
int rp_thread_end(struct rp_session *s, uint32_t tid, uint64_t *end,
		  struct rp_regs *regs)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	struct rp_regs r = { 0 };
	struct rp_cursor *c = NULL;
	struct rp_snap_thread_info st;
	struct rp_insn last;
	struct sb_regs sr;
	struct sb_err err;
	size_t i = 0;
	int ret;

	_Static_assert(sizeof(st.regs) == sizeof(r.val),
		       "snapshot registers in enum rp_reg order");
	if (!t)
		return -RP_ERR_NOTHREAD;
	i = (size_t)(t - s->threads);
	*end = t->insns;
	/* By the bundle rule: no symlink, no FIFO, the listed size. */
	if (i < s->m->nthreads && s->m->threads[i].regs &&
	    !sb_regs_load_bundle(&sr, s->dir, s->m->threads[i].regs, s->m,
				 &err)) {
		r.valid = sr.valid;
		memcpy(r.val, sr.val, sizeof(r.val));
	}
	/*
	 * The end-state snapshot, where the bundle has one and it holds the
	 * thread, is what GDB shows at the end (as a core file would): its
	 * registers decide.  A thread inside a system call is there after
	 * the syscall instruction, as the kernel reports it.
	 */
	if (!s->snap_tried) {
		s->snap_tried = true;
		if (rp_snapshot_open(&s->snap, s->dir)) {
			rp_snapshot_close(s->snap);
			s->snap = NULL;
		}
	}
	if (s->snap && !rp_snapshot_thread(s->snap, tid, &st)) {
		r.valid = (1ull << RP_REG_COUNT) - 1;
		memcpy(r.val, st.regs, sizeof(r.val));
	}
	if (regs)
		*regs = r;
	if (!t->insns || !(r.valid & (1ull << RP_REG_RIP)))
		return 0;
	ret = rp_cursor_new(s, tid, &c);
	if (!ret)
		ret = rp_cursor_peek(c, t->insns - 1, &last);
	rp_cursor_free(c);
	if (ret)
		return ret;
	if (last.ip == r.val[RP_REG_RIP])
		*end = t->insns - 1;
	return 0;
}
