// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fixbundle DIR: makes a recorded bundle the same in every clone, run and
 * checkout directory, so that the fuzz campaigns built on it (make fuzz)
 * are too.  A recording carries the traced process's pid and tid (in the
 * manifest, the file names, the sideband, the snapshot, the register
 * file), wall-clock times (start and stop, the TSC conversion's zero, the
 * TIME record), the checkout's path (cwd, the program's path in the
 * manifest, the sideband's mappings, the snapshot) and every file's mtime
 * (the index cache's key): each clone's seeds, and so its campaign,
 * differed.  Rewritten in place, through the library's own readers and
 * writers: ids numbered from 1000 in order of appearance, fixed times, the
 * working directory's prefix replaced by /ptrec, every mtime the same.
 *
 * What stays: the PT streams and the code (the same with the same
 * toolchain, libc and recorder, under setarch -R and the counter clock),
 * and the bytes the kernel randomizes on every exec (AT_RANDOM, and the
 * stack guard and pointer guard made from them) in the snapshot's memory,
 * which no harness reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sideband.h"

#define FIX_NS		1700000000000000000ull	/* 2023-11-14, any fixed */
#define FIX_PREFIX	"/ptrec"
#define FIX_MTIME	1000000000		/* seconds */

static const char *dir, *cwd;
static uint32_t ids[256][2];
static size_t nids;

static int die(const char *what, int ret, const struct sb_err *err)
{
	fprintf(stderr, "fixbundle: %s: %s\n", what,
		err && err->msg[0] ? err->msg : strerror(ret < 0 ? -ret : ret));
	exit(1);
}

/* The fixed id for recorded pid or tid @v (0 stays 0). */
static uint32_t id(uint32_t v)
{
	size_t i;

	if (!v)
		return 0;
	for (i = 0; i < nids; i++)
		if (ids[i][0] == v)
			return ids[i][1];
	if (nids == sizeof(ids) / sizeof(ids[0]))
		die("ids", -E2BIG, NULL);
	ids[nids][0] = v;
	ids[nids][1] = 1000 + (uint32_t)nids;
	return ids[nids++][1];
}

/* @p with the working directory's prefix replaced (malloc'd; NULL: NULL). */
static char *fix_path(const char *p)
{
	size_t n = cwd ? strlen(cwd) : 0;
	char *r;

	if (!p)
		return NULL;
	if (n > 1 && !strncmp(p, cwd, n) && (p[n] == '/' || !p[n])) {
		if (asprintf(&r, "%s%s", FIX_PREFIX, p + n) < 0)
			die("path", -ENOMEM, NULL);
		return r;
	}
	r = strdup(p);
	if (!r)
		die("path", -ENOMEM, NULL);
	return r;
}

static void fix_str(char **p)
{
	char *r = fix_path(*p);

	free(*p);
	*p = r;
}

static void bundle_path(char *buf, size_t n, const char *rel)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, rel) >= n)
		die(rel, -ENAMETOOLONG, NULL);
}

/* The sideband, record by record, into a new file renamed over it. */
static void fix_sideband(const struct sb_manifest *m)
{
	char path[4096], tmp[4200];
	const struct ptrec_sb_header *rec;
	struct sb_reader *r;
	struct sb_writer *w;
	struct sb_err err = { "" };
	union {
		struct ptrec_sb_header hdr;
		uint8_t b[PTREC_SB_RECORD_MAX];
	} u;
	int ret;

	bundle_path(path, sizeof(path), m->sideband);
	snprintf(tmp, sizeof(tmp), "%s.fix", path);
	if ((ret = sb_reader_open(&r, path, &err)))
		die(path, ret, &err);
	if ((ret = sb_writer_open(&w, tmp, &err)))
		die(tmp, ret, &err);
	while ((ret = sb_reader_next(r, &rec, &err)) == 1) {
		uint32_t *ids32 = (uint32_t *)(u.b + sizeof(u.hdr));

		memcpy(u.b, rec, rec->size);
		switch (rec->type) {
		case PTREC_SB_MMAP: {
			struct ptrec_sb_mmap *mm = (void *)u.b;
			const char *key = (const char *)(mm + 1);
			char *k = strndup(key, mm->key_len);
			char *p = strndup(key + mm->key_len, mm->path_len);
			char *fp = fix_path(p);

			mm->pid = id(mm->pid);
			mm->tid = id(mm->tid);
			mm->hdr.size = 0;
			ret = sb_writer_add_mmap(w, mm, k, fp, &err);
			free(k);
			free(p);
			free(fp);
			if (ret)
				die(tmp, ret, &err);
			continue;
		}
		case PTREC_SB_EXEC: {
			struct ptrec_sb_exec *ex = (void *)u.b;
			char *p = strndup((const char *)(ex + 1),
					  ex->path_len);
			char *fp = fix_path(p);

			ex->pid = id(ex->pid);
			ex->tid = id(ex->tid);
			ex->hdr.size = 0;
			ret = sb_writer_add_exec(w, ex, fp, &err);
			free(p);
			free(fp);
			if (ret)
				die(tmp, ret, &err);
			continue;
		}
		case PTREC_SB_THREAD_START:
			ids32[2] = id(ids32[2]);
			ids32[3] = id(ids32[3]);
			/* fall through */
		case PTREC_SB_MUNMAP:
		case PTREC_SB_MPROTECT:
		case PTREC_SB_COMM:
		case PTREC_SB_CR3:
		case PTREC_SB_SWITCH_IN:
		case PTREC_SB_SWITCH_OUT:
		case PTREC_SB_THREAD_EXIT:
		case PTREC_SB_SIGNAL:
		case PTREC_SB_EXIT_FUTEX:
			ids32[1] = id(ids32[1]);
			/* fall through */
		case PTREC_SB_PROCESS_EXIT:
		case PTREC_SB_LOST:
			ids32[0] = id(ids32[0]);
			break;
		case PTREC_SB_TIME: {
			struct ptrec_sb_time *ti = (void *)u.b;

			ti->time_zero = FIX_NS;
			ti->realtime_ns = ti->realtime_ns ? FIX_NS : 0;
			break;
		}
		default:
			break;
		}
		if ((ret = sb_writer_add(w, &u.hdr, &err)))
			die(tmp, ret, &err);
	}
	if (ret < 0)
		die(path, ret, &err);
	sb_reader_close(r);
	if ((ret = sb_writer_close(w, &err)))
		die(tmp, ret, &err);
	if (rename(tmp, path))
		die(path, -errno, NULL);
}

/* The snapshot part, process by process, into a new part over it. */
static void fix_snapshot(const struct sb_manifest *m)
{
	struct sb_snapshot *snap;
	struct sb_snap_writer *w;
	struct sb_err err = { "" };
	char path[4096];
	size_t i, j;
	int ret;

	if (!m->snapshot)
		return;
	bundle_path(path, sizeof(path), m->snapshot);
	if ((ret = sb_snap_load(&snap, path, &err)))
		die(path, ret, &err);
	if ((ret = sb_snap_writer_open(&w, path, &err)))
		die(path, ret, &err);
	for (i = 0; i < snap->nprocs; i++) {
		struct sb_snap_proc p = snap->procs[i];
		char *exe = fix_path(p.exe);

		p.pid = id(p.pid);
		p.ppid = id(p.ppid);
		p.exe = exe;
		if ((ret = sb_snap_writer_proc(w, &p, &err)))
			die(path, ret, &err);
		free(exe);
		for (j = 0; j < p.nthreads; j++) {
			struct sb_snap_thread t = p.threads[j];

			t.tid = id(t.tid);
			if ((ret = sb_snap_writer_thread(w, &t, &err)))
				die(path, ret, &err);
		}
		for (j = 0; j < p.nmaps; j++) {
			struct sb_snap_map mp = p.maps[j];
			char *mpath = fix_path(mp.path);

			mp.path = mpath;
			/* the machine's device and inode: not fixed */
			mp.dev_major = mp.dev_minor = 0;
			mp.ino = 0;
			if ((ret = sb_snap_writer_map(w, &mp, &err)))
				die(path, ret, &err);
			free(mpath);
		}
	}
	if ((ret = sb_snap_writer_close(w, &err)))
		die(path, ret, &err);
	sb_snap_free(snap);
}

/* A thread's stream and register files, under its new tid's names. */
static void fix_thread(struct sb_manifest *m, struct sb_thread *t)
{
	char from[4096], to[4096], *rel;
	struct sb_err err = { "" };
	struct sb_regs regs;
	size_t i;
	int ret;

	t->pid = id(t->pid);
	if (t->regs) {
		bundle_path(from, sizeof(from), t->regs);
		if ((ret = sb_regs_load(&regs, from, &err)))
			die(from, ret, &err);
		regs.tid = id(regs.tid);
		if ((ret = sb_regs_save(&regs, from, &err)))
			die(from, ret, &err);
	}
	t->tid = id(t->tid);
	for (i = 0; i < 3; i++) {
		char **f = i == 0 ? &t->pt : i == 1 ? &t->regs : &t->truth;
		const char *ext = strrchr(*f ? *f : "", '.');
		const char *slash = strrchr(*f ? *f : "", '/');
		size_t k;

		if (!*f || !ext || !slash || ext < slash)
			continue;
		if (asprintf(&rel, "%.*s/%u%s", (int)(slash - *f), *f, t->tid,
			     ext) < 0)
			die("path", -ENOMEM, NULL);
		bundle_path(from, sizeof(from), *f);
		bundle_path(to, sizeof(to), rel);
		if (strcmp(from, to) && rename(from, to))
			die(from, -errno, NULL);
		for (k = 0; k < m->nfiles; k++)
			if (!strcmp(m->files[k].path, *f)) {
				free(m->files[k].path);
				m->files[k].path = strdup(rel);
			}
		free(*f);
		*f = rel;
	}
}

static int touch(const char *path, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	struct timespec ts[2] = { { FIX_MTIME, 0 }, { FIX_MTIME, 0 } };

	(void)st;
	(void)flag;
	(void)ftw;
	return utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

int main(int argc, char **argv)
{
	struct sb_manifest *m;
	struct sb_err err = { "" };
	struct stat st;
	char path[4096];
	size_t i;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: fixbundle BUNDLE-DIR\n");
		return 2;
	}
	dir = argv[1];
	if ((ret = sb_manifest_load(&m, dir, &err)))
		die(dir, ret, &err);
	cwd = m->cwd ? strdup(m->cwd) : NULL;
	for (i = 0; i < m->nprocs; i++) {
		m->procs[i].pid = id(m->procs[i].pid);
		m->procs[i].ppid = id(m->procs[i].ppid);
		fix_str(&m->procs[i].exe);
	}
	for (i = 0; i < m->nthreads; i++)
		fix_thread(m, &m->threads[i]);
	fix_sideband(m);
	fix_snapshot(m);
	for (i = 0; i < m->argc; i++)
		fix_str(&m->argv[i]);
	for (i = 0; i < m->nimages; i++)
		fix_str(&m->images[i].path);
	fix_str(&m->cwd);
	m->start_ns = FIX_NS;
	m->stop_ns = FIX_NS + 1000000000ull;
	m->time.time_zero = FIX_NS;
	for (i = 0; i < m->nfiles; i++) {
		bundle_path(path, sizeof(path), m->files[i].path);
		if (stat(path, &st))
			die(path, -errno, NULL);
		m->files[i].size = (uint64_t)st.st_size;
	}
	if ((ret = sb_manifest_save(m, dir, &err)))
		die(dir, ret, &err);
	sb_manifest_free(m);
	if (nftw(dir, touch, 16, FTW_PHYS))
		die(dir, -errno, NULL);
	return 0;
}
