// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The software recorder's model of the target (emu.h): its processes and
 * threads, their address spaces as re-read from /proc after each system
 * call that may change them, the images those map (into the bundle's
 * store), and the sideband records that describe all of it.  Split from
 * emu.c, which keeps the stepping loop.
 */
#include <elf.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu.h"
#include "skel.h"

/* ---- sideband --------------------------------------------------------- */

void emu_emit_record(struct emu *e, struct ptrec_sb_header *h)
{
	struct sb_err err;
	int ret;

	if (e->error)
		return;
	h->time = emu_now(e);
	ret = sb_writer_add(e->sb, h, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	else
		e->st->sideband_records++;
}

void emu_emit_comm(struct emu *e, struct thr *t)
{
	struct ptrec_sb_comm c = { .hdr = { .type = PTREC_SB_COMM } };
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", t->proc->pid,
		 t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, c.comm, sizeof(c.comm) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (c.comm[n - 1] == '\n')
		c.comm[n - 1] = '\0';
	c.pid = (uint32_t)t->proc->pid;
	c.tid = (uint32_t)t->tid;
	emu_emit_record(e, &c.hdr);
}

void emu_emit_switch(struct emu *e, struct thr *t, uint16_t type,
		     uint16_t flags)
{
	struct ptrec_sb_switch s = { .hdr = { .type = type, .flags = flags } };

	s.pid = (uint32_t)t->proc->pid;
	s.tid = (uint32_t)t->tid;
	emu_emit_record(e, &s.hdr);
}

/* ---- image store ------------------------------------------------------ */

static const char *image_key_file(struct emu *e, const char *path)
{
	return rec_image_file(&e->images, e->b, path, e->o->quiet, &e->error,
			      e->err);
}

/* The vdso exists only in memory: copy it from the process. */
static const char *image_key_vdso(struct emu *e, pid_t pid,
				  const struct map *mp)
{
	static char key[SB_IMAGE_KEY_MAX];
	size_t len = (size_t)(mp->end - mp->start);
	struct iovec local, remote;
	struct sb_err err;
	void *buf;

	buf = malloc(len);
	if (!buf)
		return NULL;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)mp->start;
	remote.iov_len = len;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)len ||
	    sb_bundle_add_image_mem(e->b, buf, len, "[vdso]", key, sizeof(key),
				    &err)) {
		free(buf);
		return NULL;
	}
	free(buf);
	return key;
}

/* ---- address space ------------------------------------------------------ */

static void emit_piece(struct emu *e, struct proc *p, pid_t tid,
		       const struct map *mp, uint64_t start, uint64_t end,
		       const char *key, uint16_t flags)
{
	struct ptrec_sb_mmap m = { .hdr = { .type = PTREC_SB_MMAP,
					    .flags = flags } };
	struct sb_err err;
	int ret;

	m.hdr.time = emu_now(e);
	m.pid = (uint32_t)p->pid;
	m.tid = (uint32_t)tid;
	m.start = start;
	m.len = end - start;
	m.pgoff = mp->pgoff + (start - mp->start);
	m.prot = mp->prot;
	m.mflags = mp->mflags;
	ret = sb_writer_add_mmap(e->sb, &m, key, mp->path, &err);
	if (ret)
		emu_fail(e, ret, "%s", err.msg);
	else
		e->st->sideband_records++;
}

/* Whether page @i of @mp, copied on write, holds other bytes than the
 * file there (a breakpoint the recorder wrote and took back does not);
 * true when either cannot be read.
 */
static bool page_differs(pid_t pid, const struct map *mp, size_t i)
{
	uint8_t live[4096], file[4096];
	uint64_t at = mp->start + ((uint64_t)i << 12);
	struct iovec l = { live, sizeof(live) };
	struct iovec r = { (void *)(uintptr_t)at, sizeof(live) };
	ssize_t n;
	int fd;

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) != sizeof(live))
		return true;
	fd = open(mp->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = pread(fd, file, sizeof(file),
		  (off_t)(mp->pgoff + ((uint64_t)i << 12)));
	close(fd);
	if (n < 0)
		return true;
	memset(file + n, 0, sizeof(file) - (size_t)n);	/* past the end */
	return memcmp(live, file, sizeof(live)) != 0;
}

/*
 * Which pages of @mp hold other bytes than its file's: of those copied
 * on write (a private mapping's page that was written: present and not a
 * file page, or swapped out; Documentation/admin-guide/mm/pagemap.rst,
 * bits 63, 62, 61), the ones whose bytes differ.  Sets bit i of @cow
 * (64 pages a word) for page i; returns how many.  Where
 * /proc/PID/pagemap cannot be read, every page is compared.
 */
#define PM_PRESENT (1ull << 63)
#define PM_SWAP (1ull << 62)
#define PM_FILE (1ull << 61)

static int64_t pages_cowed(pid_t pid, const struct map *mp, uint64_t *cow,
			   size_t npages)
{
	char path[64];
	uint64_t buf[512];
	int64_t n = 0;
	size_t i, k;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (i = 0; i < npages; i += k) {
		size_t want = npages - i < 512 ? npages - i : 512;
		ssize_t got = fd < 0 ? -1 :
			pread(fd, buf, want * 8,
			      (off_t)((mp->start >> 12) + i) * 8);

		/* Unreadable: every page is compared. */
		if (got < (ssize_t)(want * 8))
			for (k = 0; k < want; k++)
				buf[k] = PM_SWAP;
		for (k = 0; k < want; k++)
			if ((((buf[k] & PM_PRESENT) && !(buf[k] & PM_FILE)) ||
			     (buf[k] & PM_SWAP)) &&
			    page_differs(pid, mp, i + k)) {
				cow[(i + k) / 64] |= 1ull << ((i + k) % 64);
				n++;
			}
	}
	if (fd >= 0)
		close(fd);
	return n;
}

/*
 * The pages of file-backed text @mp that differ from the file
 * (pages_cowed()): a bitmap, their number in *@n; NULL when out of
 * memory (the recording failed).
 */
static uint64_t *text_cowed(struct emu *e, pid_t pid, const struct map *mp,
			    int64_t *n)
{
	size_t npages = (size_t)((mp->end - mp->start) >> 12);
	uint64_t *cow = calloc(npages / 64 + 1, sizeof(*cow));

	if (!cow) {
		emu_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	*n = pages_cowed(pid, mp, cow, npages);
	return cow;
}

/*
 * Records @mp with image key @key but for the @ncow pages of @cow (bit i
 * page i), which are recorded without it; whole when @ncow is 0 or there
 * is no key.
 */
static void emit_pieces(struct emu *e, struct proc *p, pid_t tid,
			struct map *mp, const char *key, const uint64_t *cow,
			int64_t ncow, uint16_t flags)
{
	size_t npages = (size_t)((mp->end - mp->start) >> 12), i, j;

	mp->cowed = 0;
	if (e->error)
		return;
	if (ncow <= 0 || !key) {
		emit_piece(e, p, tid, mp, mp->start, mp->end, key, flags);
		return;
	}
	mp->cowed = (uint64_t)ncow;
	for (i = 0; i < npages; i = j) {
		bool w = cow[i / 64] >> (i % 64) & 1;

		for (j = i + 1; j < npages &&
		     (bool)(cow[j / 64] >> (j % 64) & 1) == w; j++)
			;
		emit_piece(e, p, tid, mp, mp->start + (i << 12),
			   mp->start + (j << 12), w ? NULL : key, flags);
	}
}

/*
 * Records @mp.  A file-backed executable mapping's code comes from the
 * image store (the file's bytes), except where the program may have
 * written it: the whole mapping while it is writable, and its pages
 * copied on write (code patched through an mprotect that made it
 * writable, text relocations, /proc/PID/mem): those are recorded without
 * image key, as anonymous executable memory is, so the replay has a gap
 * there instead of decoding the file's old instructions
 * (tests/values/review9.c smctext).
 */
static void emit_mmap(struct emu *e, struct proc *p, pid_t tid,
		      struct map *mp, uint16_t flags)
{
	const char *key = NULL;
	uint64_t *cow = NULL;
	int64_t ncow = 0;

	mp->cowed = 0;
	if (mp->prot & PROT_EXEC) {
		if (map_is_file(mp) && !(mp->prot & PROT_WRITE)) {
			key = image_key_file(e, mp->path);
			cow = text_cowed(e, p->pid, mp, &ncow);
			if (!cow)
				return;
		} else if (!strcmp(mp->path, "[vdso]")) {
			key = image_key_vdso(e, p->pid, mp);
		}
	}
	emit_pieces(e, p, tid, mp, key, cow, ncow, flags);
	free(cow);
}

static const struct map *maps_find(const struct maps *ms,
				   const struct map *mp)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		if (map_equal(&ms->v[i], mp))
			return &ms->v[i];
	return NULL;
}

static bool maps_has(const struct maps *ms, const struct map *mp)
{
	return maps_find(ms, mp) != NULL;
}

/*
 * A protection change that keeps the same mapping and its executability,
 * other than one that makes a file-backed executable mapping writable:
 * its code is no longer the file's from then on (emit_mmap()).  @ms
 * holds the old mappings when @old, else the new ones.
 */
static const struct map *same_but_prot(const struct maps *ms,
				       const struct map *mp, bool old)
{
	size_t i;

	for (i = 0; i < ms->n; i++) {
		const struct map *o = &ms->v[i];
		const struct map *n = old ? mp : o;

		if (o->start == mp->start && o->end == mp->end &&
		    o->pgoff == mp->pgoff && !strcmp(o->path, mp->path) &&
		    o->prot != mp->prot &&
		    !((o->prot ^ mp->prot) & PROT_EXEC) &&
		    !((n->prot & PROT_EXEC) && map_is_file(n) &&
		      ((o->prot ^ mp->prot) & PROT_WRITE) &&
		      (n->prot & PROT_WRITE)))
			return o;
	}
	return NULL;
}

/*
 * Re-reads the process's mappings and records the difference from the
 * model: MUNMAP and MPROTECT first, then MMAP, so that applying them in
 * order yields the new address space.
 */
void emu_update_maps(struct emu *e, struct proc *p, pid_t tid,
		     uint16_t flags)
{
	struct maps nm;
	size_t i;
	int ret;

	ret = maps_read(p->pid, &nm);
	if (ret) {
		if (ret != -ENOENT && ret != -ESRCH)
			emu_fail(e, ret, "/proc/%d/maps: %s", p->pid,
			     strerror(-ret));
		return;
	}
	for (i = 0; i < p->maps.n; i++) {
		const struct map *o = &p->maps.v[i], *np;

		if (maps_has(&nm, o))
			continue;
		np = same_but_prot(&nm, o, false);
		if (np) {
			struct ptrec_sb_mprotect r = {
				.hdr = { .type = PTREC_SB_MPROTECT } };

			r.pid = (uint32_t)p->pid;
			r.tid = (uint32_t)tid;
			r.start = o->start;
			r.len = o->end - o->start;
			r.prot = np->prot;
			emu_emit_record(e, &r.hdr);
		} else {
			struct ptrec_sb_munmap r = {
				.hdr = { .type = PTREC_SB_MUNMAP } };

			r.pid = (uint32_t)p->pid;
			r.tid = (uint32_t)tid;
			r.start = o->start;
			r.len = o->end - o->start;
			emu_emit_record(e, &r.hdr);
		}
	}
	for (i = 0; i < nm.n; i++) {
		const struct map *o = maps_find(&p->maps, &nm.v[i]);

		if (!o)
			o = same_but_prot(&p->maps, &nm.v[i], true);
		if (o)
			nm.v[i].cowed = o->cowed;
		else
			emit_mmap(e, p, tid, &nm.v[i], flags);
	}
	maps_free(&p->maps);
	p->maps = nm;
	e->gen++;	/* code may have changed under cached decodes */
}

/*
 * A step of compatibility-mode code (t->compat: no packets, no truth)
 * ended.  A system call there (int 0x80, SYSENTER, SYSCALL, with
 * i386's numbers) may have changed the mappings: they are re-read after
 * any instruction that may be one.
 */
void emu_compat_done(struct emu *e, struct thr *t)
{
	uint8_t b[16];
	struct iovec l = { b, sizeof(b) };
	struct iovec r = { (void *)(uintptr_t)t->ip, sizeof(b) };
	ssize_t n = process_vm_readv(t->tid, &l, 1, &r, 1, 0);
	ssize_t i = 0;

	while (i < n && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 ||
			 b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x26 ||
			 b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
			 b[i] == 0x64 || b[i] == 0x65))
		i++;
	if (n <= 0 || (long)t->regs.orig_rax != -1 ||
	    (i < n && b[i] == 0xcd) ||
	    (i + 1 < n && b[i] == 0x0f && (b[i + 1] == 0x05 ||
					  b[i + 1] == 0x34)))
		emu_update_maps(e, t->proc, t->tid, 0);
}

/*
 * Re-records @p's file-backed executable mappings whose pages, copied on
 * write, now differ from the file in more pages than when they were
 * recorded: written through /proc/PID/mem, which writes read-only
 * private pages too (FOLL_FORCE; process_vm_writev(2) cannot).
 */
static void text_recheck(struct emu *e, struct proc *p, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->maps.n; i++) {
		struct map *mp = &p->maps.v[i];
		uint64_t *cow;
		int64_t n = 0;

		if (!(mp->prot & PROT_EXEC) || (mp->prot & PROT_WRITE) ||
		    !map_is_file(mp))
			continue;
		cow = text_cowed(e, p->pid, mp, &n);
		if (!cow)
			return;
		/* Recorded again as emit_mmap() would, from these pages
		 * (compared once).
		 */
		if (n > 0 && (uint64_t)n != mp->cowed) {
			emit_pieces(e, p, tid, mp,
				    image_key_file(e, mp->path), cow, n, 0);
			e->gen++;	/* our cached decodes there too */
		}
		free(cow);
	}
}

/* The process whose memory /proc/PID/mem file @fd of @t writes, or NULL. */
static struct proc *mem_file_of(struct emu *e, struct thr *t, uint64_t fd)
{
	char link[64], path[64];
	ssize_t n;
	int pid;
	char c;

	if (fd > 0x7fffffff)
		return NULL;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->proc->pid, (int)fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	if (sscanf(path, "/proc/%d/mem%c", &pid, &c) != 1)
		return NULL;
	return emu_proc_find(e, (pid_t)pid);
}

/*
 * After a system call the switch of emu_step.c after_syscall() did not
 * take: the mapping changes of int 0x80 (i386's numbers: mmap 90,
 * munmap 91, brk 45, ipc 117 (shmat, shmdt), mprotect 125, mremap 163,
 * mmap2 192, pkey_mprotect 380), and writes to a /proc/PID/mem file
 * (write, pwrite64, writev, pwritev, pwritev2; x32's too) that may have
 * patched code (text_recheck()).
 */
void emu_text_check(struct emu *e, struct thr *t)
{
	uint64_t nr = t->entry.rax;
	struct proc *p;
	long word;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->ip, 0);
	if (!errno && (word & 0xffff) == 0x80cd) {	/* cd 80: int 0x80 */
		nr &= 0xffffffffu;
		if (nr == 90 || nr == 91 || nr == 45 || nr == 117 ||
		    nr == 125 || nr == 163 || nr == 192 || nr == 380)
			emu_update_maps(e, t->proc, t->tid, 0);
		return;
	}
	nr &= 0xbfffffffull;
	if (nr != SYS_write && nr != SYS_pwrite64 && nr != SYS_writev &&
	    nr != SYS_pwritev && nr != SYS_pwritev2 && nr != 516 &&
	    nr != 535 && nr != 547)	/* x32's writev, pwritev(2) */
		return;
	if ((int64_t)t->regs.rax <= 0)
		return;
	p = mem_file_of(e, t, t->entry.rdi);
	if (p)
		text_recheck(e, p, t->tid);
}

int emu_maps_copy(struct maps *dst, const struct maps *src)
{
	size_t i;

	dst->v = calloc(src->n ? src->n : 1, sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	for (i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].path = strdup(src->v[i].path);
		if (!dst->v[i].path) {
			dst->n = i;
			maps_free(dst);
			return -ENOMEM;
		}
	}
	dst->n = src->n;
	return 0;
}

/* ---- processes and threads ------------------------------------------- */

struct proc *emu_proc_find(struct emu *e, pid_t pid)
{
	struct proc *p;

	for (p = e->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

struct proc *emu_proc_new(struct emu *e, pid_t pid, pid_t ppid)
{
	struct proc *p = calloc(1, sizeof(*p));
	struct sb_process *mp = sb_manifest_add_process(e->m);

	if (!p || !mp) {
		free(p);
		emu_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	p->pid = pid;
	p->ppid = ppid;
	p->next = e->procs;
	e->procs = p;
	mp->pid = (uint32_t)pid;
	mp->ppid = (uint32_t)ppid;
	e->st->processes++;
	return p;
}

void emu_proc_set_exe(struct emu *e, struct proc *p)
{
	char link[64], path[4096];
	ssize_t n;
	size_t i;

	snprintf(link, sizeof(link), "/proc/%d/exe", p->pid);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	for (i = 0; i < e->m->nprocs; i++)
		if (e->m->procs[i].pid == (uint32_t)p->pid) {
			free(e->m->procs[i].exe);
			e->m->procs[i].exe = strdup(path);
		}
}

struct thr *emu_thr_find(struct emu *e, pid_t tid)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->tid == tid && t->st != T_DEAD)
			return t;
	return NULL;
}

bool emu_thr_was(struct emu *e, pid_t tid)
{
	struct thr *t;

	for (t = e->threads; t; t = t->next)
		if (t->tid == tid && t->st == T_DEAD)
			return true;
	return false;
}

struct thr *emu_thr_new(struct emu *e, pid_t tid, struct proc *p,
			   enum tstate st)
{
	const struct sb_thread *mt;
	char path[4096];
	struct thr *t;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t) {
		emu_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	t->tid = tid;
	t->proc = p;
	t->st = st;
	t->enc.fd = -1;
	t->next = e->threads;
	e->threads = t;
	ret = sb_bundle_add_thread(e->b, (uint32_t)p->pid, (uint32_t)tid,
				   e->o->ground_truth, &mt);
	if (ret) {
		emu_fail(e, ret, "thread %d: cannot add to the bundle: %s", tid,
		     strerror(-ret));
		return t;
	}
	sb_bundle_path(e->b, mt->pt, path, sizeof(path));
	ret = ptenc_open(&t->enc, path, e->o->psb_period, e->o->long_tnt);
	if (ret) {
		emu_io_fail(e, ret, mt->pt);
		return t;
	}
	t->enc.no_retcomp = e->o->no_retcomp;
	t->opened = true;
	if (mt->truth) {
		struct sb_err err;

		sb_bundle_path(e->b, mt->truth, path, sizeof(path));
		ret = sb_truth_open(&t->truth, path, &err);
		if (ret)
			emu_fail(e, ret, "%s", err.msg);
	}
	e->st->threads++;
	return t;
}

int emu_get_regs(struct thr *t)
{
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0)
		return -errno;
	/*
	 * TF is the single step's: the program's own is taken as clear.
	 * Linux hides the TF it set (TIF_FORCED_TF) only until a stepped
	 * POPF or IRET (arch/x86/kernel/step.c is_setting_trap_flag()
	 * then takes TF as the program's and never hides it again): from
	 * there GETREGS shows 0x346 where the program untraced has 0x246.
	 */
	t->regs.eflags &= ~0x100ull;
	if (__builtin_expect(t->tf, 0))	/* its own (emu_tf_step()) */
		t->regs.eflags |= 0x100;
	t->have_regs = true;
	/* The rseq area it had before we saw it (registered before the
	 * recording, or a fork child's, inherited): the kernel writes it.
	 */
	if (!t->rseq_asked && t->proc) {
		t->rseq_asked = true;
		rec_snap_rseq_query(&t->proc->rseq, t->tid);
	}
	return 0;
}

