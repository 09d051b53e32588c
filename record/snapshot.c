// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Taking the end-state snapshot of a ptrace-stopped process, for every
 * recorder: its mappings (the contents of the writable and anonymous ones,
 * within --snapshot-limit), its auxiliary vector and every register of
 * its threads, written into the bundle's snapshot part.  The recorders
 * call rec_snap_take() where a process's recording ends; tracer.c holds
 * the kmod recorder's program for it.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "maps.h"
#include "skel.h"
#include "snapshot.h"

#define CHUNK (1u << 20)
#define PAGE 4096u

void rec_snap_regs(uint64_t v[27], const struct user_regs_struct *r)
{
	const uint64_t g[27] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
		r->rip, r->eflags, r->cs, r->ss, r->ds, r->es, r->fs, r->gs,
		r->fs_base, r->gs_base, r->orig_rax,
	};

	memcpy(v, g, sizeof(g));
}

static int open_writer(struct rec_snap *s, struct sb_err *err)
{
	if (s->w)
		return 0;
	return sb_bundle_open_snapshot(s->b, &s->w, err);
}

/* Which bytes of @mp the snapshot holds. */
static uint32_t content_of(const struct map *mp)
{
	if (!(mp->prot & PROT_READ) || !strcmp(mp->path, "[vvar]") ||
	    !strcmp(mp->path, "[vsyscall]"))
		return SB_SNAP_UNREADABLE;
	if (map_is_file(mp) && !(mp->prot & PROT_WRITE) &&
	    mp->mflags == MAP_PRIVATE)
		return SB_SNAP_IMAGE;
	return SB_SNAP_DATA;
}

/* Reads [start, end) through /proc/PID/mem; pages that cannot be read
 * (beyond a file's end) stay zero.
 */
static void read_mem(int fd, uint64_t start, uint64_t end, uint8_t *buf)
{
	uint64_t a = start;

	while (a < end) {
		size_t n = end - a < CHUNK ? end - a : CHUNK;
		ssize_t got = pread(fd, buf + (a - start), n, (off_t)a);

		if (got == (ssize_t)n) {
			a += n;
			continue;
		}
		if (got > 0) {
			a += (uint64_t)got;
			continue;
		}
		memset(buf + (a - start), 0, PAGE);
		a += PAGE;
	}
}

/*
 * Start addresses of the mappings that hold private (copy-on-write)
 * pages, from /proc/PID/smaps: a read-only file mapping that was written
 * before (the RELRO region, with the dynamic linker's DT_DEBUG) is not
 * what the file holds, so its contents are taken, as the kernel dumps them.
 */
static size_t anon_starts(pid_t pid, uint64_t **out)
{
	char path[64], line[512];
	uint64_t start = 0, a, b, *v = NULL;
	size_t n = 0, cap = 0;
	unsigned long kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &a, &b) == 2) {
			start = a;
			continue;
		}
		if (sscanf(line, "Anonymous: %lu kB", &kb) != 1 || !kb)
			continue;
		if (n == cap) {
			uint64_t *nv = realloc(v, (cap = cap ? cap * 2 : 64) *
					       sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = start;
	}
	if (f)
		fclose(f);
	*out = v;
	return n;
}

static bool has_anon(const uint64_t *v, size_t n, uint64_t start)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == start)
			return true;
	return false;
}

static int take_thread(struct rec_snap *s, const struct rec_snap_thr *th,
		       pid_t sig_tid, const siginfo_t *si, struct sb_err *err)
{
	struct sb_snap_thread t = { .tid = (uint32_t)th->tid };
	struct user_regs_struct r;
	static uint8_t fp[SB_SNAP_FPREGS_SIZE], xs[SB_SNAP_XSTATE_MAX];
	struct iovec iov;

	if (th->entered && th->regs) {
		/* Stopped before the SYSCALL: as the kernel shows it entered. */
		rec_snap_regs(t.regs, th->regs);
	} else if (ptrace(PTRACE_GETREGS, th->tid, 0, &r) == 0) {
		/*
		 * Right after a SYSCALL that was single-stepped, R11 holds
		 * RFLAGS with the trap flag the stepping set; the program
		 * untraced has it clear.
		 */
		if (s->stepping && r.rcx == r.rip)
			r.r11 &= ~0x100ull;
		/* Nor RFLAGS (record/emu_space.c emu_get_regs()). */
		if (s->stepping)
			r.eflags &= ~0x100ull;
		rec_snap_regs(t.regs, &r);
	}
	else if (th->regs)
		rec_snap_regs(t.regs, th->regs);	/* running in a syscall */
	else
		return 0;	/* nothing known: not in the snapshot */
	iov = (struct iovec){ fp, sizeof(fp) };
	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_PRFPREG, &iov) == 0) {
		t.fpregs = fp;
		t.fpregs_len = (uint32_t)iov.iov_len;
	}
	iov = (struct iovec){ xs, sizeof(xs) };
	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_X86_XSTATE,
		   &iov) == 0) {
		t.xstate = xs;
		t.xstate_len = (uint32_t)iov.iov_len;
	}
	if (si && th->tid == sig_tid) {
		t.has_siginfo = 1;
		memcpy(t.siginfo, si, sizeof(t.siginfo) < sizeof(*si) ?
		       sizeof(t.siginfo) : sizeof(*si));
	}
	return sb_snap_writer_thread(s->w, &t, err);
}

static int read_small(const char *path, uint8_t **buf, size_t *len)
{
	size_t cap = 4096;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	*buf = malloc(cap);
	while (*buf && (n = read(fd, *buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap) {
			uint8_t *nb = realloc(*buf, cap * 2);

			if (!nb) {
				free(*buf);
				*buf = NULL;
				break;
			}
			*buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	return *buf ? 0 : -ENOMEM;
}

void rec_snap_rseq_note(struct rec_snap_rseqs *l, uint64_t addr,
			uint32_t len, pid_t tid)
{
	size_t i;

	if (!addr)
		return;
	/*
	 * Repeats are dropped among the last few only (a thread's
	 * register/unregister calls), so that one entry per thread of a
	 * program that starts 10^5 threads costs no quadratic scan;
	 * take_rseq() sorts and drops the rest.
	 */
	for (i = l->n > 8 ? l->n - 8 : 0; i < l->n; i++)
		if (l->v[i].addr == addr && l->v[i].len == len &&
		    l->v[i].tid == (uint32_t)tid)
			return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct sb_snap_rseq *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->lost = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct sb_snap_rseq){ addr, len, (uint32_t)tid };
}

void rec_snap_rseq_query(struct rec_snap_rseqs *l, pid_t tid)
{
	struct {
		uint64_t ptr;
		uint32_t size, sig, flags, pad;
	} c = { 0 };

	/* PTRACE_GET_RSEQ_CONFIGURATION (Linux 5.13) */
	if (ptrace((enum __ptrace_request)0x420f, tid,
		   (void *)sizeof(c), &c) < 0) {
		if (errno != ESRCH)
			l->lost = true;
		return;
	}
	rec_snap_rseq_note(l, c.ptr, c.size, tid);
}

void rec_snap_rseq_free(struct rec_snap_rseqs *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * Does descriptor link @target (of a file on a file system of type
 * @fstype, 0 unknown) name a process's memory file?  Any link whose last
 * component begins with "mem" on procfs or under /proc/ is taken for one.
 */
static bool is_mem_file(const char *target, long fstype)
{
	const char *b = strrchr(target, '/');

	b = b ? b + 1 : target;
	return !strncmp(b, "mem", 3) &&
	       (fstype == 0x9fa0 /* PROC_SUPER_MAGIC */ ||
		!strncmp(target, "/proc/", 6));
}

static int fd_cmp(const void *a, const void *b)
{
	const struct sb_snap_fd *x = a, *y = b;

	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/*
 * Descriptor @f's type, device and inode: its file's, through
 * /proc/PID/fd/N (@path, stat follows the link to the open file, which
 * holds for a deleted file or a pipe too), @link its target.  The values
 * engine compares them with the mappings' (a write to a file mapped
 * private changes the pages the process never wrote).
 */
static void fd_file(struct sb_snap_fd *f, const char *path, const char *link)
{
	struct stat st;

	if (stat(path, &st)) {
		f->kind = SB_SNAP_FD_UNKNOWN;
		return;
	}
	f->dev_major = major(st.st_dev);
	f->dev_minor = minor(st.st_dev);
	f->ino = st.st_ino;
	if (!strncmp(link, "anon_inode:", 11))
		f->kind = SB_SNAP_FD_ANON;
	else if (S_ISREG(st.st_mode))
		f->kind = !strncmp(link, "/memfd:", 7) ? SB_SNAP_FD_MEMFD :
			  SB_SNAP_FD_REG;
	else if (S_ISFIFO(st.st_mode))
		f->kind = SB_SNAP_FD_PIPE;
	else if (S_ISSOCK(st.st_mode))
		f->kind = SB_SNAP_FD_SOCKET;
	else if (S_ISCHR(st.st_mode))
		/* majors 4, 5 (tty, console, ptmx), 136-143 (pts):
		 * opening the device to ask could have effects
		 */
		f->kind = major(st.st_rdev) == 4 || major(st.st_rdev) == 5 ||
			  (major(st.st_rdev) >= 136 &&
			   major(st.st_rdev) <= 143) ?
			  SB_SNAP_FD_TTY : SB_SNAP_FD_CHR;
	else if (S_ISBLK(st.st_mode))
		f->kind = SB_SNAP_FD_BLK;
	else if (S_ISDIR(st.st_mode))
		f->kind = SB_SNAP_FD_DIR;
	else
		f->kind = SB_SNAP_FD_OTHER;
}

/*
 * Does the image store's copy of @mp's file (the first stored under its
 * path, as readers look it up) hold the bytes the process sees there
 * now?  A content-IMAGE mapping's bytes are the file's, but the copy was
 * taken when the file was first mapped: a write to the file since (by
 * this process or another) changes the pages the process never wrote
 * (tests/values/holes.c fpwrite).  No copy: true (readers then know
 * nothing of it).  Compared through /proc/PID/mem (@memfd) a chunk at a
 * time; past the copy's end a mapping reads zeros.
 */
static bool image_current(struct rec_snap *s, int memfd, const struct map *mp)
{
	struct sb_manifest *m = sb_bundle_manifest(s->b);
	uint8_t *live, *img;
	char full[4096];
	uint64_t a;
	size_t i;
	bool same = true;
	int fd;

	for (i = 0; m && i < m->nimages; i++)
		if (m->images[i].path && !strcmp(m->images[i].path, mp->path))
			break;
	if (!m || i == m->nimages)
		return true;
	if (memfd < 0 ||
	    sb_bundle_path(s->b, m->images[i].file, full, sizeof(full)) < 0)
		return false;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	live = malloc(CHUNK);
	img = malloc(CHUNK);
	same = fd >= 0 && live && img;
	for (a = mp->start; same && a < mp->end; a += CHUNK) {
		size_t n = mp->end - a < CHUNK ? mp->end - a : CHUNK;
		ssize_t got = pread(fd, img, n,
				    (off_t)(mp->pgoff + (a - mp->start)));

		if (got < 0)
			got = 0;
		memset(img + got, 0, n - (size_t)got);
		read_mem(memfd, a, a + n, live);
		same = !memcmp(live, img, n);
	}
	if (fd >= 0)
		close(fd);
	free(live);
	free(img);
	return same;
}

uint64_t rec_snap_clock(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) || ts.tv_sec < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ts_ns(const struct timespec *t)
{
	if (t->tv_sec < 0)
		return 0;
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

/*
 * The times and file system of mapping @mp's file (snapshot 5), for the
 * values engine: a file changed during the recording may have been
 * written by another process, which changes the pages of a private
 * mapping that this one never wrote (tests/values/review6.c forkwrite,
 * forkshm).  Through /proc/PID/map_files/START-END, the file mapped
 * itself (a deleted or renamed one too; it needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE), else by the mapping's path when it still
 * names that inode (on the same device, or on overlayfs or btrfs, whose
 * devices differ between a mapping and stat).  Not found: left 0, not
 * known (the engine then takes the file as written).
 */
static void file_times(pid_t pid, const struct map *mp, struct sb_snap_map *m)
{
	char path[96];
	struct statfs sf;
	struct stat st;
	const char *at = path;

	if (!mp->ino)
		return;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, mp->start, mp->end);
	if (stat(path, &st) || st.st_ino != mp->ino) {
		if (mp->path[0] != '/' || stat(mp->path, &st) ||
		    st.st_ino != mp->ino)
			return;
		at = mp->path;
		if (statfs(at, &sf))
			return;
		if ((major(st.st_dev) != mp->dev_major ||
		     minor(st.st_dev) != mp->dev_minor) &&
		    (uint32_t)sf.f_type != 0x794c7630u &&	/* overlayfs */
		    (uint32_t)sf.f_type != 0x9123683eu)		/* btrfs */
			return;
	} else if (statfs(at, &sf)) {
		sf.f_type = 0;
	}
	m->mtime_ns = ts_ns(&st.st_mtim);
	m->ctime_ns = ts_ns(&st.st_ctim);
	m->fs_type = (uint32_t)sf.f_type;
}

/* File systems whose files take stores through a shared mapping with no
 * new time (no page_mkwrite that stamps them): tmpfs (shmem: memfd,
 * /dev/shm), hugetlbfs.
 */
static bool unstamped_fs(uint32_t type)
{
	return type == 0x01021994u || type == 0x958458f6u;
}

/*
 * Marks SB_SNAP_FILE_UNSTAMPED in @tm[i] (the times of mapping i of
 * @ms) where mapping i's file is on such a file system and some process
 * maps it shared at the end (any shared mapping: one read-only now may
 * have been writable): stores through it change the pages a private
 * mapping never wrote and no time shows them (tests/values/holes.c
 * fshmchild).  One pass over every /proc/PID/maps the recorder may
 * read, and only when such a file is mapped.
 */
static void mark_unstamped(const struct maps *ms, struct sb_snap_map *tm)
{
	struct dirent *de;
	bool any = false;
	size_t i, k;
	DIR *d;

	for (i = 0; i < ms->n; i++)
		any |= ms->v[i].ino && unstamped_fs(tm[i].fs_type);
	if (!any)
		return;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct maps o;

		if (*end || end == de->d_name || pid <= 0 ||
		    maps_read((pid_t)pid, &o))
			continue;
		for (k = 0; k < o.n; k++) {
			const struct map *x = &o.v[k];

			if (x->mflags != MAP_SHARED || !x->ino)
				continue;
			for (i = 0; i < ms->n; i++)
				if (ms->v[i].ino == x->ino &&
				    ms->v[i].dev_major == x->dev_major &&
				    ms->v[i].dev_minor == x->dev_minor &&
				    unstamped_fs(tm[i].fs_type))
					tm[i].file_flags |=
						SB_SNAP_FILE_UNSTAMPED;
		}
		maps_free(&o);
	}
	if (d)
		closedir(d);
}

/* The FDS record of process @pid: every descriptor it has open. */
static int take_fds(struct rec_snap *s, pid_t pid, struct sb_err *err)
{
	struct sb_snap_fd *v = NULL;
	size_t n = 0, cap = 0;
	char path[64], link[4096];
	struct dirent *de;
	DIR *d;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return 0;	/* unknown descriptors: no FDS record */
	while ((de = readdir(d))) {
		char *end;
		unsigned long fd = strtoul(de->d_name, &end, 10);
		struct statfs sf;
		ssize_t ln;

		if (*end || end == de->d_name || fd > UINT32_MAX)
			continue;
		if (n == cap) {
			struct sb_snap_fd *nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return sb_fail(err, -ENOMEM, "out of memory");
			}
			v = nv;
		}
		snprintf(path, sizeof(path), "/proc/%d/fd/%lu", pid, fd);
		ln = readlink(path, link, sizeof(link) - 1);
		memset(&v[n], 0, sizeof(v[n]));
		v[n].fd = (uint32_t)fd;
		if (ln <= 0) {
			v[n++].kind = SB_SNAP_FD_UNKNOWN;
			continue;
		}
		link[ln] = '\0';
		if (statfs(path, &sf))
			sf.f_type = 0;
		if (is_mem_file(link, (long)sf.f_type)) {
			v[n++].kind = SB_SNAP_FD_MEM;
			continue;
		}
		fd_file(&v[n++], path, link);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), fd_cmp);
	ret = sb_snap_writer_fds(s->w, v, n, err);
	free(v);
	return ret;
}

static int rseq_cmp(const void *a, const void *b)
{
	const struct sb_snap_rseq *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The RSEQ record: the recording's areas and those of the end, sorted by
 * address, each (address, length, thread) once.
 */
static int take_rseq(struct rec_snap *s, const struct rec_snap_proc *rp,
		     struct sb_err *err)
{
	struct rec_snap_rseqs l = { 0 };
	size_t i, n;
	int ret;

	for (i = 0; rp->rseq && i < rp->rseq->n; i++)
		rec_snap_rseq_note(&l, rp->rseq->v[i].addr,
				   rp->rseq->v[i].len,
				   (pid_t)rp->rseq->v[i].tid);
	for (i = 0; i < rp->nthreads; i++)
		rec_snap_rseq_query(&l, rp->threads[i].tid);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), rseq_cmp);
	for (i = 1, n = l.n ? 1 : 0; i < l.n; i++)
		if (rseq_cmp(&l.v[i], &l.v[n - 1]))
			l.v[n++] = l.v[i];
	l.n = n;
	ret = sb_snap_writer_rseq(s->w, l.v, l.n,
				  rp->rseq && !rp->rseq->lost && !l.lost ?
				  SB_SNAP_RSEQ_COMPLETE : 0, err);
	rec_snap_rseq_free(&l);
	return ret;
}

int rec_snap_take(struct rec_snap *s, const struct rec_snap_proc *rp,
		  struct sb_err *err)
{
	struct sb_snap_proc p = { .pid = (uint32_t)rp->pid,
				  .ppid = (uint32_t)rp->ppid,
				  .end = rp->end, .status = rp->status,
				  .gen = rp->gen, .start_ns = s->start_ns };
	char path[64], exe[4096];
	struct maps ms = { 0 };
	uint8_t *auxv = NULL, *buf = NULL;
	struct sb_snap_map *tm = NULL;
	uint64_t *anon = NULL;
	size_t auxv_len = 0, i, nanon;
	uint64_t t0 = rec_mono_ns();
	ssize_t n;
	int fd, ret;

	if (s->off)
		return 0;
	ret = open_writer(s, err);
	if (ret)
		return ret;
	ret = maps_read(rp->pid, &ms);
	if (ret) {
		/* Gone already (killed): nothing to take. */
		if (!s->quiet)
			fprintf(stderr,
				"ptrec record: snapshot: process %d: /proc/%d/maps: %s; no snapshot of it\n",
				rp->pid, rp->pid, strerror(-ret));
		return 0;
	}
	nanon = anon_starts(rp->pid, &anon);
	snprintf(path, sizeof(path), "/proc/%d/exe", rp->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	p.exe = exe;
	snprintf(path, sizeof(path), "/proc/%d/auxv", rp->pid);
	if (!read_small(path, &auxv, &auxv_len)) {
		p.auxv = auxv;
		p.auxv_len = (uint32_t)(auxv_len & ~15ul);
	}
	ret = sb_snap_writer_proc(s->w, &p, err);
	for (i = 0; !ret && i < rp->nthreads; i++)
		ret = take_thread(s, &rp->threads[i], rp->sig_tid, rp->si, err);
	if (!ret)
		ret = take_fds(s, rp->pid, err);
	if (!ret)
		ret = take_rseq(s, rp, err);
	/* The files' times (snapshot 5), before any mapping is written:
	 * the scan for shared mappings marks them all at once.
	 */
	tm = calloc(ms.n ? ms.n : 1, sizeof(*tm));
	if (!ret && !tm)
		ret = sb_fail(err, -ENOMEM, "snapshot: out of memory");
	for (i = 0; !ret && i < ms.n; i++)
		file_times(rp->pid, &ms.v[i], &tm[i]);
	if (!ret)
		mark_unstamped(&ms, tm);
	snprintf(path, sizeof(path), "/proc/%d/mem", rp->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (i = 0; !ret && i < ms.n; i++) {
		const struct map *mp = &ms.v[i];
		struct sb_snap_map m = {
			.start = mp->start, .end = mp->end, .pgoff = mp->pgoff,
			.path = mp->path, .content = content_of(mp),
			.dev_major = mp->dev_major, .dev_minor = mp->dev_minor,
			.ino = mp->ino,
			.prot = (mp->prot & PROT_READ ? SB_SNAP_R : 0) |
				(mp->prot & PROT_WRITE ? SB_SNAP_W : 0) |
				(mp->prot & PROT_EXEC ? SB_SNAP_X : 0) |
				(mp->mflags == MAP_SHARED ? SB_SNAP_SHARED : 0),
		};
		uint64_t len = mp->end - mp->start;

		m.mtime_ns = tm[i].mtime_ns;
		m.ctime_ns = tm[i].ctime_ns;
		m.fs_type = tm[i].fs_type;
		m.file_flags = tm[i].file_flags;
		if (m.content == SB_SNAP_IMAGE &&
		    (has_anon(anon, nanon, mp->start) ||
		     !image_current(s, fd, mp)))
			m.content = SB_SNAP_DATA;
		if (m.content == SB_SNAP_DATA && fd < 0)
			m.content = SB_SNAP_UNREADABLE;
		if (m.content == SB_SNAP_DATA && s->used + len > s->limit) {
			m.content = SB_SNAP_OVER_LIMIT;
			s->left_out += len;
			if (!s->quiet)
				fprintf(stderr,
					"ptrec record: snapshot: process %d: 0x%" PRIx64 "-0x%" PRIx64 " %s (%" PRIu64 " bytes) left out: over --snapshot-limit %" PRIu64 "\n",
					rp->pid, mp->start, mp->end,
					mp->path[0] ? mp->path : "[anon]", len,
					s->limit);
		}
		if (m.content == SB_SNAP_DATA) {
			buf = malloc(len);
			if (!buf) {
				ret = sb_fail(err, -ENOMEM,
					      "snapshot: out of memory for %" PRIu64 " bytes",
					      len);
				break;
			}
			read_mem(fd, mp->start, mp->end, buf);
			m.data = buf;
			s->used += len;
		}
		ret = sb_snap_writer_map(s->w, &m, err);
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	s->procs++;
	s->ns += rec_mono_ns() - t0;
	maps_free(&ms);
	free(tm);
	free(auxv);
	free(anon);
	return ret;
}
