// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The end-state snapshot for front ends (ptrec core, the GDB server, ptrec
 * info): the bundle's snapshot part through libptrec's types, and the
 * memory of a process at its end, read-only file mappings filled from the
 * image store.  Separate from the session: reading it needs no index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rp_internal.h"

struct rp_snapshot {
	char *dir;
	struct sb_manifest *m;
	struct sb_snapshot *snap;
	char errmsg[512];
	bool picked;			/* rp_snapshot_pick_exec() was called */
	uint32_t pick_pid, pick_gen;
};

static int sn_fail(struct rp_snapshot *sn, int code, const char *msg)
{
	snprintf(sn->errmsg, sizeof(sn->errmsg), "%s", msg);
	return -code;
}

int rp_snapshot_open(struct rp_snapshot **snp, const char *dir)
{
	struct rp_snapshot *sn = calloc(1, sizeof(*sn));
	char path[4096], *buf;
	size_t len;
	struct sb_err err;
	int ret;

	*snp = sn;
	if (!sn)
		return -RP_ERR_NOMEM;
	sn->dir = strdup(dir);
	if (!sn->dir)
		return sn_fail(sn, RP_ERR_NOMEM, "out of memory");
	ret = sb_manifest_load(&sn->m, dir, &err);
	if (ret)
		return sn_fail(sn, ret == -EPROTONOSUPPORT ? RP_ERR_VERSION :
			       RP_ERR_BUNDLE, err.msg);
	if (!sn->m->snapshot) {
		snprintf(sn->errmsg, sizeof(sn->errmsg),
			 "%s: no snapshot in this bundle (bundle format version %u%s)",
			 dir, sn->m->format_version,
			 sn->m->format_version < 2 ?
			 ", written before snapshots existed; re-record it" :
			 "; recorded with --no-snapshot, or the program ended before recording began");
		return -RP_ERR_NOTFOUND;
	}
	if (snprintf(path, sizeof(path), "%s/%s", dir, sn->m->snapshot) >=
	    (int)sizeof(path))
		return sn_fail(sn, RP_ERR_BUNDLE, "snapshot path too long");
	/* By the bundle rule (docs/security.md): no symlink, no FIFO. */
	ret = sb_bundle_read_file(dir, sn->m->snapshot, sn->m, SB_SNAP_RAW_MAX,
				  &buf, &len, &err);
	if (!ret) {
		ret = sb_snap_load_mem(&sn->snap, buf, len, path, &err);
		free(buf);
	}
	if (ret)
		return sn_fail(sn, ret == -EPROTONOSUPPORT ? RP_ERR_VERSION :
			       ret == -ENOMEM ? RP_ERR_NOMEM : RP_ERR_BUNDLE,
			       err.msg);
	return 0;
}

void rp_snapshot_close(struct rp_snapshot *sn)
{
	if (!sn)
		return;
	sb_snap_free(sn->snap);
	sb_manifest_free(sn->m);
	free(sn->dir);
	free(sn);
}

const char *rp_snapshot_errmsg(const struct rp_snapshot *sn)
{
	return sn ? sn->errmsg : "out of memory";
}

size_t rp_snapshot_proc_count(const struct rp_snapshot *sn)
{
	return sn && sn->snap ? sn->snap->nprocs : 0;
}

/* Process @pid's record: the picked exec generation, or its last. */
static const struct sb_snap_proc *proc_of(const struct rp_snapshot *sn,
					  uint32_t pid)
{
	if (!sn)
		return NULL;
	if (sn->picked && sn->pick_pid == pid)
		return sb_snap_proc_gen(sn->snap, pid, sn->pick_gen);
	return sb_snap_proc(sn->snap, pid);
}

int rp_snapshot_pick_exec(struct rp_snapshot *sn, uint32_t pid, uint32_t gen)
{
	if (!sn || !sb_snap_proc_gen(sn->snap, pid, gen))
		return -RP_ERR_NOTFOUND;
	sn->picked = true;
	sn->pick_pid = pid;
	sn->pick_gen = gen;
	return 0;
}

static void proc_info(const struct sb_snap_proc *p,
		      struct rp_snap_proc_info *info)
{
	size_t i;

	memset(info, 0, sizeof(*info));
	info->pid = p->pid;
	info->ppid = p->ppid;
	info->gen = p->gen;
	info->end = p->end;
	info->status = p->status;
	info->end_name = sb_snap_end_name(p->end);
	info->exe = p->exe;
	info->auxv = p->auxv;
	info->auxv_len = p->auxv_len;
	info->nthreads = p->nthreads;
	info->nmaps = p->nmaps;
	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].content == SB_SNAP_DATA)
			info->data_bytes += p->maps[i].end - p->maps[i].start;
}

int rp_snapshot_proc(const struct rp_snapshot *sn, size_t i,
		     struct rp_snap_proc_info *info)
{
	if (i >= rp_snapshot_proc_count(sn))
		return -RP_ERR_RANGE;
	proc_info(&sn->snap->procs[i], info);
	return 0;
}

int rp_snapshot_proc_by_pid(const struct rp_snapshot *sn, uint32_t pid,
			    struct rp_snap_proc_info *info)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);

	if (!p)
		return -RP_ERR_NOTFOUND;
	proc_info(p, info);
	return 0;
}

static void thread_info(const struct sb_snap_proc *p,
			const struct sb_snap_thread *t,
			struct rp_snap_thread_info *info)
{
	memset(info, 0, sizeof(*info));
	info->tid = t->tid;
	info->pid = p->pid;
	memcpy(info->regs, t->regs, sizeof(info->regs));
	info->fpregs = t->fpregs;
	info->fpregs_len = t->fpregs_len;
	info->xstate = t->xstate;
	info->xstate_len = t->xstate_len;
	info->siginfo = t->has_siginfo ? t->siginfo : NULL;
}

int rp_snapshot_proc_thread(const struct rp_snapshot *sn, uint32_t pid,
			    size_t i, struct rp_snap_thread_info *info)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);

	if (!p)
		return -RP_ERR_NOTFOUND;
	if (i >= p->nthreads)
		return -RP_ERR_RANGE;
	thread_info(p, &p->threads[i], info);
	return 0;
}

int rp_snapshot_proc_map(const struct rp_snapshot *sn, uint32_t pid,
			 size_t i, struct rp_snap_map_info *info)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);
	const struct sb_snap_map *m;

	if (!p)
		return -RP_ERR_NOTFOUND;
	if (i >= p->nmaps)
		return -RP_ERR_RANGE;
	m = &p->maps[i];
	info->start = m->start;
	info->end = m->end;
	info->pgoff = m->pgoff;
	info->prot = m->prot;
	info->content = m->content;
	info->path = m->path;
	info->ids = p->has_ids;
	info->dev_major = m->dev_major;
	info->dev_minor = m->dev_minor;
	info->ino = m->ino;
	info->times = p->has_times;
	info->mtime_ns = m->mtime_ns;
	info->ctime_ns = m->ctime_ns;
	info->fs_type = m->fs_type;
	info->unstamped = m->file_flags & SB_SNAP_FILE_UNSTAMPED;
	info->written = p->has_times && m->ino &&
			(info->unstamped ||
			 rp_snapshot_changed(p->start_ns, m->mtime_ns,
					     m->ctime_ns));
	return 0;
}

/* @t rounded down to its own granularity (rp_snapshot_changed()). */
static uint64_t floor_gran(uint64_t t, uint64_t by)
{
	uint64_t ns = by % 1000000000ull, g = 1;

	if (!ns) {
		g = 2000000000ull;
	} else {
		while (g < 1000000000ull && ns % (g * 10) == 0)
			g *= 10;
	}
	return t - t % g;
}

bool rp_snapshot_changed(uint64_t start_ns, uint64_t mtime_ns,
			 uint64_t ctime_ns)
{
	if (!start_ns || !ctime_ns)
		return true;
	return ctime_ns >= floor_gran(start_ns, ctime_ns) ||
	       mtime_ns >= floor_gran(start_ns, mtime_ns);
}

int rp_snapshot_thread(const struct rp_snapshot *sn, uint32_t tid,
		       struct rp_snap_thread_info *info)
{
	const struct sb_snap_proc *p = NULL;
	const struct sb_snap_thread *t;

	t = sn ? sb_snap_thread(sn->snap, tid, &p) : NULL;
	if (!t)
		return -RP_ERR_NOTFOUND;
	thread_info(p, t, info);
	return 0;
}

enum rp_snap_fd rp_snapshot_proc_fd(const struct rp_snapshot *sn,
				    uint32_t pid, uint32_t fd)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);
	size_t lo = 0, hi;

	if (!p || !p->has_fds)
		return RP_SNAP_FD_UNKNOWN;
	hi = p->nfds;
	while (lo < hi) {	/* in increasing fd order (the reader checks) */
		size_t mid = lo + (hi - lo) / 2;

		if (p->fds[mid].fd < fd)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->nfds || p->fds[lo].fd != fd)
		return RP_SNAP_FD_CLOSED;
	switch (p->fds[lo].kind) {
	case SB_SNAP_FD_MEM:
		return RP_SNAP_FD_MEM;
	case SB_SNAP_FD_UNKNOWN:
		return RP_SNAP_FD_UNKNOWN;
	default:	/* version 4's types are files other than memory */
		return RP_SNAP_FD_OTHER;
	}
}

int rp_snapshot_proc_fd_info(const struct rp_snapshot *sn, uint32_t pid,
			     size_t i, struct rp_snap_fd_info *info)
{
	static const char *const type[] = {
		[SB_SNAP_FD_OTHER] = "other", [SB_SNAP_FD_MEM] = "mem",
		[SB_SNAP_FD_UNKNOWN] = "unknown", [SB_SNAP_FD_REG] = "regular",
		[SB_SNAP_FD_MEMFD] = "memfd", [SB_SNAP_FD_PIPE] = "pipe",
		[SB_SNAP_FD_SOCKET] = "socket", [SB_SNAP_FD_TTY] = "tty",
		[SB_SNAP_FD_CHR] = "chr", [SB_SNAP_FD_BLK] = "blk",
		[SB_SNAP_FD_DIR] = "dir", [SB_SNAP_FD_ANON] = "anon",
	};
	const struct sb_snap_proc *p = proc_of(sn, pid);
	const struct sb_snap_fd *f;

	memset(info, 0, sizeof(*info));
	if (!p || !p->has_fds)
		return -RP_ERR_NOTFOUND;
	if (i >= p->nfds)
		return -RP_ERR_RANGE;
	f = &p->fds[i];
	info->fd = f->fd;
	info->kind = f->kind == SB_SNAP_FD_MEM ? RP_SNAP_FD_MEM :
		     f->kind == SB_SNAP_FD_UNKNOWN ? RP_SNAP_FD_UNKNOWN :
		     RP_SNAP_FD_OTHER;
	info->type = f->kind <= SB_SNAP_FD_KIND_MAX ? type[f->kind] : "?";
	info->ids = p->has_ids;
	info->dev_major = f->dev_major;
	info->dev_minor = f->dev_minor;
	info->ino = f->ino;
	return 0;
}

int rp_snapshot_proc_fd_mem(const struct rp_snapshot *sn, uint32_t pid)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);
	size_t i;
	int n = 0;

	if (!p || !p->has_fds)
		return -1;
	for (i = 0; i < p->nfds; i++)
		n += p->fds[i].kind == SB_SNAP_FD_MEM ||
		     p->fds[i].kind == SB_SNAP_FD_UNKNOWN;
	return n;
}

int rp_snapshot_proc_rseq(const struct rp_snapshot *sn, uint32_t pid,
			  size_t i, uint64_t *addr, uint32_t *len,
			  bool *complete)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);

	*complete = false;
	if (!p || !p->has_rseq)
		return -RP_ERR_NOTFOUND;
	*complete = p->rseq_flags & SB_SNAP_RSEQ_COMPLETE;
	if (i >= p->nrseq)
		return -RP_ERR_RANGE;
	*addr = p->rseq[i].addr;
	*len = p->rseq[i].len;
	return 0;
}

uint32_t rp_snapshot_proc_rseq_tid(const struct rp_snapshot *sn,
				   uint32_t pid, size_t i)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);

	if (!p || !p->has_rseq || i >= p->nrseq)
		return 0;
	return p->rseq[i].tid;
}

/* Bytes of a read-only file mapping from the image store's copy. */
static size_t read_image(struct rp_snapshot *sn, const struct sb_snap_map *m,
			 uint64_t addr, void *buf, size_t len)
{
	size_t i, n;
	ssize_t got;
	int fd;

	for (i = 0; i < sn->m->nimages; i++)
		if (sn->m->images[i].path &&
		    !strcmp(sn->m->images[i].path, m->path))
			break;
	if (i == sn->m->nimages)
		return 0;
	fd = sb_bundle_open_file(sn->dir, sn->m->images[i].file, sn->m, NULL);
	if (fd < 0)
		return 0;
	n = m->end - addr < len ? m->end - addr : len;
	got = pread(fd, buf, n, (off_t)(m->pgoff + (addr - m->start)));
	close(fd);
	if (got < 0)
		return 0;
	/* Past the file's end, a mapping reads zeros (up to its page). */
	if ((size_t)got < n)
		memset((char *)buf + got, 0, n - (size_t)got);
	return n;
}

size_t rp_snapshot_read(struct rp_snapshot *sn, uint32_t pid, uint64_t addr,
			void *buf, size_t len, bool images)
{
	const struct sb_snap_proc *p = proc_of(sn, pid);
	size_t done = 0;

	while (p && done < len) {
		uint64_t a = addr + done;
		size_t n = sb_snap_read_mem(p, a, (char *)buf + done,
					    len - done);
		size_t i;

		done += n;
		if (n)
			continue;
		if (!images)
			break;
		for (i = 0; i < p->nmaps; i++)
			if (p->maps[i].start <= a && a < p->maps[i].end)
				break;
		if (i == p->nmaps || p->maps[i].content != SB_SNAP_IMAGE)
			break;
		n = read_image(sn, &p->maps[i], a, (char *)buf + done,
			       len - done);
		if (!n)
			break;
		done += n;
	}
	return done;
}
