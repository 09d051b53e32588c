// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Memory the kernel writes without a store or a buffer argument (issue
 * #17, docs/values.md "What it does not model"): a write(2), pwrite64,
 * writev, pwritev or pwritev2 to a descriptor that names /proc/PID/mem
 * writes the process's memory at the file offset, and the kernel rewrites
 * a registered rseq area whenever the thread is scheduled.
 *
 * Descriptors: the snapshot lists every descriptor of the process at its
 * end and whether it names a memory file (FDS record).  A write at state
 * i to descriptor d writes no memory when d names another file at the end
 * (or none) and nothing from i to the end may have closed d (close, dup2,
 * dup3 onto it, close_range, io_uring, execve, an unknown system call,
 * int or sysenter, a gap in the trace):
 * then d named that same file at i, or nothing.  When d is not known (a
 * FILE's descriptor, loaded from memory): when no descriptor at the end
 * names a memory file and nothing from i to the end may have closed any.
 * With other tasks sharing its descriptors (another thread may close and
 * reopen d at any time), only from where none may still close or replace
 * one (rcv_order.c); in windows chained to the end.
 * Otherwise a pwrite64 with known offset and length to a descriptor
 * known to be a memory file at the end writes that range, and every other
 * write is a barrier.
 *
 * Files (snapshot 4, docs/values.md "Files"): the pages of a file
 * mapping that the process never wrote follow the file, so a write to a
 * descriptor whose file (its inode, from the snapshot's FDS record) is
 * mapped (the MAPPING's inode) writes those mappings: where the call's
 * file offset and length are known (pwrite64), the bytes that show that
 * part of the file, else every byte of every such mapping (values
 * unknown after; a range past 64 KiB is a barrier).  A descriptor not
 * known (loaded from memory) may be any of those at the end that name a
 * mapped file.  Files are the same by inode, not path (a hard link,
 * another mount, /proc/self/fd/N); devices are not compared (overlayfs
 * and btrfs show a mapping's device and fstat's differently): two files
 * of one inode number on two devices cost knowledge, never soundness.  A
 * version-3 snapshot keeps version 3's rule: such a write writes no
 * memory.
 *
 * rseq: every area the snapshot's complete RSEQ record lists is never this
 * thread's alone (rcv_private_until()); without a complete list, no
 * memory is.  One in the thread's stack mapping ends push/pop pairs
 * (rcv_stack_until()): the kernel may rewrite a pushed slot.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <capstone/capstone.h>
#include <linux/sched.h>

#include "rcv_win.h"

#define FD_ANY	RCV_FD_TRACKED	/* fdcl[]: a closer of any descriptor */

/* Does another thread (or a process by CLONE_FILES) share @pid's
 * descriptor table?
 */
static bool files_shared(struct rp_recover *rc, const struct rp_session *s)
{
	bool kmod = rcv_backend_kmod(s);
	struct rp_thread_info o;
	size_t i;

	if (rcv_untraced(s, rc->pid))
		return true;
	for (i = 0; i < rp_thread_count(s); i++)
		if (rp_thread_tid(s, i) != rc->tid &&
		    !rp_thread_info(s, rp_thread_tid(s, i), &o) &&
		    o.pid == rc->pid)
			return true;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_thread_start *t =
			(const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_THREAD_START &&
		    (rcv_clone_flags(t, kmod) & CLONE_FILES) &&
		    (t->pid == rc->pid || t->parent_pid == rc->pid))
			return true;
	}
	return false;
}

/*
 * Did the process map a file shared that it no longer maps at the end
 * (holes.c fshgone)?  A store through such a mapping changed the pages
 * of every private mapping of the file that the process never wrote,
 * and the snapshot no longer shows which file it was (by inode): then
 * no private file mapping is the process's own (rcv_mem.c
 * file_shared()).  Known for the software recorder, which re-reads the
 * process's maps after every mmap-family call and writes an MMAP record
 * for every new mapping (shared ones too); the kernel module's and the
 * importers' records list executable mappings alone: there it is assumed
 * not to happen (docs/values.md "Files").
 */
static bool shared_gone(struct rp_recover *rc, bool files)
{
	const struct rp_session *s = rc->s;
	struct rp_snap_map_info mi;
	size_t i, k;

	if (!s)
		return false;
	if (!rcv_backend_emu(s))
		return false;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_mmap *m = (const void *)s->recs[i];
		const char *path;
		bool kept = false;

		if (s->recs[i]->type != PTREC_SB_MMAP || m->pid != rc->pid ||
		    !(m->mflags & MAP_SHARED) || (files && !m->path_len))
			continue;
		path = sb_mmap_path(m);
		if (files && path[0] == '[')
			continue;
		for (k = 0; !kept &&
		     !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++)
			kept = mi.start == m->start && (mi.prot & 8) &&
			       strlen(mi.path) == m->path_len &&
			       !memcmp(mi.path, path, m->path_len);
		if (!kept)
			return true;
	}
	return false;
}

/*
 * Snapshot 4: the file mappings, and which descriptors at the end name
 * one of their files (by inode).
 */
static void fd_files(struct rp_recover *rc)
{
	struct rp_snap_map_info mi;
	struct rp_snap_fd_info fi;
	size_t k, n = 0, j;

	for (k = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++) {
		if (!mi.ids)
			return;
		n += mi.ino != 0;
	}
	rc->fmap = calloc(n ? n : 1, sizeof(*rc->fmap));
	if (!rc->fmap)
		return;
	for (k = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++) {
		if (!mi.ino)
			continue;
		rc->fmap[rc->nfmap][0] = mi.start;
		rc->fmap[rc->nfmap][1] = mi.end;
		rc->fmap[rc->nfmap][2] = mi.pgoff;
		rc->fmap[rc->nfmap][3] = mi.ino;
		rc->nfmap++;
	}
	rc->fd_ids = true;
	for (k = 0; !rp_snapshot_proc_fd_info(rc->sn, rc->pid, k, &fi); k++) {
		if (!fi.ino)
			continue;
		for (j = 0; j < rc->nfmap && rc->fmap[j][3] != fi.ino; j++)
			;
		if (j == rc->nfmap)
			continue;
		rc->fd_any_file = true;
		for (j = 0; j < rc->nfmap; j++)
			rc->fmap[j][4] |= rc->fmap[j][3] == fi.ino;
		if (fi.fd < RCV_FD_TRACKED) {
			rc->fd_file |= 1ull << fi.fd;
			rc->fd_ino[fi.fd] = fi.ino;
		}
	}
}

static int range_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

void rcv_fd_init(struct rp_recover *rc)
{
	uint64_t addr, (*v)[2] = NULL;
	uint32_t len, fd;
	size_t i, n = 0;
	bool complete = false;

	rc->rseq_any = true;
	if (!rc->sn)
		return;
	if (rc->snap_ok) {
		rc->fd_known = true;
		rc->fd_shared = files_shared(rc, rc->s);
		rc->fd_all_safe = !rp_snapshot_proc_fd_mem(rc->sn, rc->pid);
		for (fd = 0; fd < RCV_FD_TRACKED; fd++) {
			enum rp_snap_fd k = rp_snapshot_proc_fd(rc->sn, rc->pid,
								 fd);

			if (k == RP_SNAP_FD_OTHER || k == RP_SNAP_FD_CLOSED)
				rc->fd_safe |= 1ull << fd;
		}
		fd_files(rc);
		rc->fsh_gone = shared_gone(rc, true);
	}
	/* Any shared mapping gone by the end (SysV, a memfd, shared
	 * anonymous memory, mremap's second view of one): memory the end
	 * does not map may have been two views of one page (review7
	 * shmalias, mfdalias, remapalias).
	 */
	rc->ush_gone = shared_gone(rc, false);
	for (i = 0; !rp_snapshot_proc_rseq(rc->sn, rc->pid, i, &addr, &len,
					   &complete); i++) {
		void *nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv) {
			free(v);
			return;
		}
		v = nv;
		/* The kernel writes 32 bytes (cpu_id_start ... mm_cid);
		 * a longer registration may have it write more.
		 */
		v[n][0] = addr;
		v[n][1] = addr + (len > 32 && len <= 4096 ? len : 32);
		if (v[n][1] < addr)
			v[n][1] = UINT64_MAX;
		n++;
	}
	if (!complete) {
		free(v);
		return;
	}
	/* Every area the kernel updates is in the list, glibc's in the
	 * thread's control block too: the 32 KiB around the thread pointer
	 * ruled out for it (rp_recover_new()) need not be (workload's `mov
	 * %fs:0x10,%rdx`, the thread's own pointer, 1.8% of its registers
	 * within 10^4: rp_recover_why()).
	 */
	rc->tls_lo = rc->tls_hi = 0;
	/* Sorted and merged, for a binary search per byte (none: a process
	 * that registered no area, v NULL, which qsort() must not get).
	 */
	if (n)
		qsort(v, n, sizeof(*v), range_cmp);
	rc->nrseq = 0;
	for (i = 0; i < n; i++) {
		if (rc->nrseq && v[i][0] <= v[rc->nrseq - 1][1]) {
			if (v[i][1] > v[rc->nrseq - 1][1])
				v[rc->nrseq - 1][1] = v[i][1];
			continue;
		}
		v[rc->nrseq][0] = v[i][0];
		v[rc->nrseq][1] = v[i][1];
		rc->nrseq++;
	}
	rc->rseq = v;
	rc->rseq_any = false;
	/* One on its stack: the kernel may rewrite a pushed slot. */
	for (i = 0; i < rc->nrseq; i++)
		rc->rseq_stack |= v[i][0] < rc->stack_hi &&
				  v[i][1] > rc->stack_lo;
}

bool rcv_fd_rseq(const struct rp_recover *rc, uint64_t a)
{
	size_t lo = 0, hi = rc->nrseq;

	if (rc->rseq_any)
		return true;
	if (!hi)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rc->rseq[mid][1] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rc->nrseq && rc->rseq[lo][0] <= a;
}

/* The low 32 bits of @v (an int argument), if known. */
static bool arg32(const struct rcv_val *v, uint32_t *out)
{
	if ((v->k & 0xffffffffull) != 0xffffffffull)
		return false;
	*out = (uint32_t)v->v;
	return true;
}

static void closes(struct win *w, size_t i, uint32_t fd)
{
	if (fd < RCV_FD_TRACKED)
		w->fdcl[fd] = (int64_t)i;
	w->fdcl_all = (int64_t)i;
}

static void closes_any(struct win *w, size_t i)
{
	w->fdcl[FD_ANY] = (int64_t)i;
	w->fdcl_all = (int64_t)i;
}

/* Which descriptors system call @i of @w may close or replace. */
static void closer(struct win *w, size_t i)
{
	const struct rcv_state *s = &w->st[i];
	uint32_t a, b;

	if (s->r[RP_REG_RAX].k != ~0ull || rcv_sys_resets(s->r[RP_REG_RAX].v)) {
		closes_any(w, i);
		return;
	}
	switch (s->r[RP_REG_RAX].v) {
	case 3:		/* close */
		if (!arg32(&s->r[RP_REG_RDI], &a))
			closes_any(w, i);
		else
			closes(w, i, a);
		break;
	case 33: case 292:	/* dup2, dup3: onto rsi */
		if (!arg32(&s->r[RP_REG_RSI], &a))
			closes_any(w, i);
		else
			closes(w, i, a);
		break;
	case 436:	/* close_range(first, last, flags) */
		if (!arg32(&s->r[RP_REG_RDI], &a) ||
		    !arg32(&s->r[RP_REG_RSI], &b)) {
			closes_any(w, i);
			break;
		}
		for (; a <= b && a < RCV_FD_TRACKED; a++)
			closes(w, i, a);
		break;
	case 425: case 426: case 427:	/* io_uring: closes by request */
		closes_any(w, i);
		break;
	default:
		break;
	}
}

/* Lists @w's int and sysenter instructions once; false without memory. */
static bool int_list(struct win *w)
{
	size_t i, k = 0;

	if (w->fd_int_listed)
		return true;
	for (i = 0; i < w->n; i++)
		k += w->ins[i].id == X86_INS_INT ||
		     w->ins[i].id == X86_INS_SYSENTER;
	w->fd_int = malloc((k + 1) * sizeof(*w->fd_int));
	if (!w->fd_int)
		return false;
	for (i = k = 0; i < w->n; i++)
		if (w->ins[i].id == X86_INS_INT ||
		    w->ins[i].id == X86_INS_SYSENTER)
			w->fd_int[k++] = i;
	w->nfd_int = k;
	w->fd_int_listed = true;
	return true;
}

/*
 * Also what may hide one: int and sysenter (a system call of another
 * table: int 0x80's close is 6), and a gap in the trace.
 */
void rcv_fd_closers(struct win *w)
{
	const struct rp_recover *rc = w->rc;
	struct rp_gap gap;
	size_t i;

	for (i = 0; i <= RCV_FD_TRACKED; i++)
		w->fdcl[i] = -1;
	w->fdcl_all = -1;
	/* In the order of the instructions (the last one counts): the
	 * system calls rcv_index.c listed and the int and sysenter listed
	 * here, once per window (every index build asks: a scan of every
	 * instruction each time was 2.5% of a threaded program's values).
	 */
	if (w->sys_listed && int_list(w)) {
		size_t k = 0, j = 0;

		while (k < w->nsys || j < w->nfd_int) {
			if (j == w->nfd_int ||
			    (k < w->nsys && w->sys_at[k] < w->fd_int[j]))
				closer(w, w->sys_at[k++]);
			else
				closes_any(w, w->fd_int[j++]);
		}
	} else {
		for (i = 0; i < w->n; i++) {
			if (w->ins[i].flags & RCV_I_SYSCALL)
				closer(w, i);
			else if (w->ins[i].id == X86_INS_INT ||
				 w->ins[i].id == X86_INS_SYSENTER)
				closes_any(w, i);
		}
	}
	for (i = 0; rc->s && !rp_thread_gap(rc->s, rc->tid, i, &gap); i++)
		if (gap.before > w->first && gap.before <= w->last &&
		    (int64_t)(gap.before - 1 - w->first) > w->fdcl[FD_ANY])
			closes_any(w, (size_t)(gap.before - 1 - w->first));
	w->fd_done = true;
}

bool rcv_fd_family(uint64_t nr)
{
	/* write, pwrite64, writev, pwritev, pwritev2 */
	return nr == 1 || nr == 18 || nr == 20 || nr == 296 || nr == 328;
}

/*
 * Is the descriptor of write-family call @i of @w known to name no
 * memory file (see the top)?  Descriptor @d's closers (fdcl[d], or any:
 * fdcl[RCV_FD_TRACKED]), or with @d -1 every closer, must be none from
 * @i to the end.
 */
static bool no_closer(const struct win *w, size_t i, int d)
{
	const struct win *x = w;

	if (!w->fd_done)
		return false;
	for (;;) {
		if (d < 0 ? x->fdcl_all >= (int64_t)i :
		    x->fdcl[FD_ANY] >= (int64_t)i || x->fdcl[d] >= (int64_t)i)
			return false;
		if (x->top_end)
			return true;
		x = x->later;
		if (!x || !x->fd_done)
			return false;
		i = 0;
	}
}

/* What write-family call @i of @w may write through its descriptor. */
enum fd_what {
	FDW_NONE,	/* no memory (another file, or a closed one) */
	FDW_FILE,	/* the pages of mapped files (*ino, 0 any of them) */
	FDW_MEMFILE,	/* a memory file known at the end */
	FDW_ANY,		/* not known */
};

static enum fd_what fd_what(struct win *w, size_t i, uint64_t *ino)
{
	const struct rp_recover *rc = w->rc;
	uint32_t fd;

	*ino = 0;
	if (!rc->fd_known || rcv_order_aio(w->rc) ||
	    (rc->fd_shared && w->first + i < rcv_order_fds(w->rc)))
		return FDW_ANY;
	if (arg32(&w->st[i].r[RP_REG_RDI], &fd) && fd < RCV_FD_TRACKED) {
		if (!no_closer(w, i, (int)fd))
			return FDW_ANY;
		if (rc->fd_file >> fd & 1) {
			*ino = rc->fd_ino[fd];
			return FDW_FILE;
		}
		if (rc->fd_safe >> fd & 1)
			return FDW_NONE;
		return rp_snapshot_proc_fd(rc->sn, rc->pid, fd) ==
		       RP_SNAP_FD_MEM ? FDW_MEMFILE : FDW_ANY;
	}
	if (!rc->fd_all_safe || !no_closer(w, i, -1))
		return FDW_ANY;
	return rc->fd_any_file ? FDW_FILE : FDW_NONE;
}

/*
 * The bytes of the file mappings of inode @ino (0: any a descriptor at
 * the end names) that a write of [@off, +@cnt) of the file shows (@cnt 0:
 * not known, every byte): their hull in *@addr, *@len; 0 none, 1 that,
 * -1 past 64 KiB.
 */
static int file_bytes(const struct rp_recover *rc, uint64_t ino,
		      uint64_t off, uint64_t cnt, uint64_t *addr,
		      uint64_t *len)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t k;

	for (k = 0; k < rc->nfmap; k++) {
		const uint64_t *m = rc->fmap[k];
		uint64_t a = m[0], b = m[1];

		if (ino ? m[3] != ino : !m[4])
			continue;
		if (cnt) {
			/* the file's [pgoff, pgoff + b - a) shows here */
			uint64_t fo = m[2], fe = m[2] + (b - a);
			uint64_t s0 = off > fo ? off : fo;
			uint64_t e0 = off + cnt < fe ? off + cnt : fe;

			if (off + cnt < off)
				e0 = fe;
			if (s0 >= e0)
				continue;
			a = m[0] + (s0 - fo);
			b = m[0] + (e0 - fo);
		}
		if (a < lo)
			lo = a;
		if (b > hi)
			hi = b;
	}
	if (lo >= hi)
		return 0;
	if (hi - lo > 65536)
		return -1;
	*addr = lo;
	*len = hi - lo;
	return 1;
}

int rcv_fd_write(struct win *w, size_t i, uint64_t *addr, uint64_t *len)
{
	const struct rcv_state *s = &w->st[i];
	bool pw = s->r[RP_REG_RAX].v == 18 && s->r[RP_REG_RDX].k == ~0ull &&
		  s->r[RP_REG_R10].k == ~0ull;
	uint64_t ino;

	switch (fd_what(w, i, &ino)) {
	case FDW_NONE:
		return 0;
	case FDW_FILE:
		/* pwrite64(fd, buf, count, offset); a count of 0 writes
		 * nothing (file_bytes() takes 0 as not known)
		 */
		if (pw && !s->r[RP_REG_RDX].v)
			return 0;
		return file_bytes(w->rc, ino, pw ? s->r[RP_REG_R10].v : 0,
				  pw ? s->r[RP_REG_RDX].v : 0, addr, len);
	case FDW_MEMFILE:
		break;
	case FDW_ANY:
		/* Snapshot 4: it may be a file mapped here (opened and
		 * closed in the history): not the range at the offset.
		 */
		if (w->rc->fd_ids)
			return -1;
		break;
	}
	/* pwrite64(fd, buf, count, offset): at most [offset, +count) */
	if (pw && s->r[RP_REG_RDX].v <= 65536) {
		*addr = s->r[RP_REG_R10].v;
		*len = s->r[RP_REG_RDX].v;
		return *len ? 1 : 0;
	}
	return -1;
}
