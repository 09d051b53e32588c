// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-module recorder's message stream (kmod/uapi/ptrec.h) split
 * into the bundle: trace data appended to pt/<tid>.pt of its thread (a
 * jump in a thread's stream offsets that no LOST record explains gets a
 * LOST record of its own), MMAP records given the image key of the mapped
 * file (stored in images/), LOST offsets turned from the module's logical
 * stream offsets into file offsets, everything else copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "kmod.h"

/* ---- threads and files --------------------------------------------------- */

static struct km_thread *km_thread(struct km *k, uint32_t pid, uint32_t tid)
{
	const struct sb_thread *mt;
	struct km_thread *t;
	char path[PATH_MAX];
	int ret;

	for (t = k->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (k->error)
		return NULL;
	ret = sb_bundle_add_thread(k->b, pid, tid, false, &mt);
	if (ret) {
		km_fail(k, ret, "thread %u: %s", tid, strerror(-ret));
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		km_fail(k, -ENOMEM, "out of memory");
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	if (sb_bundle_path(k->b, mt->pt, path, sizeof(path)) < 0 ||
	    !(t->f = fopen(path, "we"))) {
		km_fail(k, errno ? -errno : -ENAMETOOLONG, "%s/%s: %s",
			sb_bundle_dir(k->b), mt->pt, strerror(errno));
		free(t);
		return NULL;
	}
	t->next = k->threads;
	k->threads = t;
	k->st->threads++;
	return t;
}

struct sb_process *km_proc(struct km *k, uint32_t pid, uint32_t ppid)
{
	struct sb_process *p;
	size_t i;

	for (i = 0; i < k->m->nprocs; i++)
		if (k->m->procs[i].pid == pid)
			return &k->m->procs[i];
	p = sb_manifest_add_process(k->m);
	if (!p) {
		km_fail(k, -ENOMEM, "out of memory");
		return NULL;
	}
	p->pid = pid;
	p->ppid = ppid;
	k->st->processes++;
	return p;
}

void km_proc_exe(struct km *k, uint32_t pid, const char *exe)
{
	struct sb_process *p = km_proc(k, pid, 0);

	if (!p)
		return;
	free(p->exe);
	p->exe = strdup(exe);
}

/* ---- image store --------------------------------------------------------- */

static const char *km_image_file(struct km *k, const char *path)
{
	return rec_image_file(&k->images, k->b, path, k->o->quiet, &k->error,
			      k->err);
}

/*
 * The vdso is the same image in every process of one kernel: ptrec's own
 * copy stands for the traced process's, which may be gone by now.
 */
static const char *km_image_vdso(struct km *k, uint64_t len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long lo, hi;
	char line[512];
	uint64_t own = 0;
	struct sb_err err;
	FILE *f;

	if (k->vdso_state)
		return k->vdso_state > 0 ? k->vdso_key : NULL;
	k->vdso_state = -1;
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base)
			own = hi - lo;
	if (f)
		fclose(f);
	if (!base || !own) {
		km_warn(k, "cannot find ptrec's own [vdso] to store for the traced process");
		return NULL;
	}
	if (own != len)
		km_warn(k, "[vdso] of the traced process is %" PRIu64 " bytes, ptrec's %" PRIu64 "; storing ptrec's",
			len, own);
	if (sb_bundle_add_image_mem(k->b, (const void *)base, own, "[vdso]",
				    k->vdso_key, sizeof(k->vdso_key), &err)) {
		km_warn(k, "%s", err.msg);
		return NULL;
	}
	k->vdso_state = 1;
	return k->vdso_key;
}

/* ---- the message stream -------------------------------------------------- */

/* Records must not go back in time; a module that breaks this is noted. */
static void km_stamp(struct km *k, struct ptrec_sb_header *h)
{
	if (h->time < k->last_time) {
		k->clamped++;
		h->time = k->last_time;
	}
	k->last_time = h->time;
}

static void km_sb_add(struct km *k, struct ptrec_sb_header *h)
{
	struct sb_err err;
	int ret;

	if (k->error)
		return;
	km_stamp(k, h);
	ret = sb_writer_add(k->sb, h, &err);
	if (ret)
		km_fail(k, ret, "%s", err.msg);
}

static void km_lost(struct km *k, struct km_thread *t, uint32_t reason,
		    uint64_t bytes)
{
	struct ptrec_sb_lost l = {
		.hdr = { .type = PTREC_SB_LOST, .time = k->last_time },
		.tid = t->tid,
		.reason = reason,
		.bytes = bytes,
		.offset = t->file_bytes,
	};

	km_sb_add(k, &l.hdr);
	k->st->lost_bytes += bytes;
}

/*
 * Writes a module LOST record at the current end of the thread's file (the
 * bundle's LOST offset is a file offset; the module's is its logical
 * stream offset) and moves the expected stream offset past the loss.
 */
static void km_place_lost(struct km *k, struct km_thread *t,
			  struct ptrec_sb_lost *l)
{
	uint64_t off = l->offset;

	if (off + l->bytes > t->next_off)
		t->next_off = off + l->bytes;
	l->offset = t->file_bytes;
	l->hdr.size = 0;
	k->st->lost_bytes += l->bytes;
	km_sb_add(k, &l->hdr);
}

/* Places the pending losses the data has reached (all with @all). */
static void km_flush_lost(struct km *k, struct km_thread *t, uint64_t upto,
			  bool all)
{
	unsigned int i;

	while (t->npend && !k->error &&
	       (all || t->pend[0].offset <= upto)) {
		/* placed late on purpose: not a record going back in time */
		if (t->pend[0].hdr.time < k->last_time)
			t->pend[0].hdr.time = k->last_time;
		km_place_lost(k, t, &t->pend[0]);
		t->npend--;
		for (i = 0; i < t->npend; i++)
			t->pend[i] = t->pend[i + 1];
	}
}

static void km_trace(struct km *k, const struct ptrec_msg_trace *m)
{
	struct km_thread *t = km_thread(k, m->pid, m->tid);

	if (!t)
		return;
	/* losses at or before this data's start */
	km_flush_lost(k, t, m->offset, false);
	if (m->offset != t->next_off) {
		/* a jump the module did not explain with a LOST record */
		k->st->unexplained++;
		km_lost(k, t, k->o->kmod.stop_on_full ? PTREC_SB_LOST_READER :
			PTREC_SB_LOST_WRAP,
			m->offset > t->next_off ? m->offset - t->next_off : 0);
	}
	if (fwrite(m + 1, 1, m->len, t->f) != m->len) {
		km_fail(k, -errno, "%s/pt/%u.pt: %s", sb_bundle_dir(k->b),
			t->tid, strerror(errno));
		return;
	}
	t->file_bytes += m->len;
	t->next_off = m->offset + m->len;
	k->st->trace_bytes += m->len;
	/* a loss right at this data's end (FULL) */
	km_flush_lost(k, t, t->next_off, false);
}

static void km_record(struct km *k, const struct ptrec_sb_header *h)
{
	union {
		struct ptrec_sb_header hdr;
		uint8_t bytes[PTREC_SB_RECORD_MAX];
	} u;
	char why[256];

	if (sb_record_check(h, h->size, why, sizeof(why))) {
		km_fail(k, -EBADMSG, "%s: malformed record from the module: %s",
			PTREC_DEVICE, why);
		return;
	}
	if (!sb_type_info(h->type)) {
		k->unknown++;
		return;
	}
	memcpy(u.bytes, h, h->size);
	switch (h->type) {
	case PTREC_SB_MMAP: {
		struct ptrec_sb_mmap *r = (void *)u.bytes;
		char path[PTREC_SB_RECORD_MAX];
		const char *key = NULL;
		struct sb_err err;
		int ret;

		memcpy(path, sb_mmap_path(r), r->path_len);
		path[r->path_len] = '\0';
		if (r->prot & PROT_EXEC) {
			if (!strcmp(path, "[vdso]"))
				key = km_image_vdso(k, r->len);
			else if (path[0] == '/')
				key = km_image_file(k, path);
		}
		if (k->error)
			return;
		km_stamp(k, &r->hdr);
		r->hdr.size = 0;
		r->key_len = 0;
		r->path_len = 0;
		ret = sb_writer_add_mmap(k->sb, r, key, path, &err);
		if (ret)
			km_fail(k, ret, "%s", err.msg);
		return;
	}
	case PTREC_SB_EXEC: {
		struct ptrec_sb_exec *r = (void *)u.bytes;
		char path[PTREC_SB_RECORD_MAX];

		memcpy(path, sb_exec_path(r), r->path_len);
		path[r->path_len] = '\0';
		km_proc_exe(k, r->pid, path);
		break;
	}
	case PTREC_SB_THREAD_START: {
		const struct ptrec_sb_thread_start *r = (void *)u.bytes;
		struct sb_process *p, *parent;
		size_t i;

		if (r->pid == r->parent_pid)
			break;
		/* a forked child runs its parent's program until it execs */
		p = km_proc(k, r->pid, r->parent_pid);
		if (!p || p->exe)
			break;
		parent = NULL;
		for (i = 0; i < k->m->nprocs; i++)
			if (k->m->procs[i].pid == r->parent_pid)
				parent = &k->m->procs[i];
		if (parent && parent->exe)
			km_proc_exe(k, r->pid, parent->exe);
		break;
	}
	case PTREC_SB_SWITCH_IN: {
		const struct ptrec_sb_switch *r = (void *)u.bytes;

		km_thread(k, r->pid, r->tid);
		break;
	}
	case PTREC_SB_LOST: {
		struct ptrec_sb_lost *r = (void *)u.bytes;
		struct km_thread *t;

		if (r->reason == PTREC_SB_LOST_SIDEBAND) {
			k->st->lost_records += r->bytes;
			break;
		}
		for (t = k->threads; t && t->tid != r->tid; t = t->next)
			;
		if (!t) {
			/* lost before any data of the thread arrived */
			t = km_thread(k, k->pid, r->tid);
			if (!t)
				return;
		}
		if (r->offset > t->next_off && t->npend < KM_PEND_MAX) {
			t->pend[t->npend++] = *r;
		} else {
			km_flush_lost(k, t, 0, true);
			km_place_lost(k, t, r);
		}
		return;
	}
	case PTREC_SB_PROCESS_EXIT: {
		const struct ptrec_sb_process_exit *r = (void *)u.bytes;

		/*
		 * -p: how the attached process ended, for ptrec record's exit
		 * status (a launched one's comes from its wait status).
		 */
		if (k->launched || r->pid != (uint32_t)k->pid ||
		    r->status < 0 || r->status > 0xff)
			break;
		if (r->kind == PTREC_SB_EXITED) {
			k->st->main_ended = true;
			k->st->main_wstatus = (r->status & 0xff) << 8;
		} else if ((r->kind == PTREC_SB_KILLED ||
			    r->kind == PTREC_SB_DUMPED) &&
			   r->status > 0 && r->status < 0x7f) {
			k->st->main_ended = true;
			k->st->main_wstatus = r->status |
				(r->kind == PTREC_SB_DUMPED ? 0x80 : 0);
		}
		break;
	}
	case PTREC_SB_TIME: {
		const struct ptrec_sb_time *r = (void *)u.bytes;

		if (!k->have_time) {
			k->m->time.time_shift = r->time_shift;
			k->m->time.time_mult = r->time_mult;
			k->m->time.time_zero = r->time_zero;
			k->m->time.tsc_hz = r->tsc_hz;
			k->have_time = true;
		}
		break;
	}
	default:
		break;
	}
	km_sb_add(k, &u.hdr);
}

void km_consume(struct km *k, const uint8_t *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len && !k->error) {
		const struct ptrec_sb_header *h = (const void *)(buf + pos);

		if (len - pos < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - pos) {
			km_fail(k, -EBADMSG, "%s: malformed message at byte %zu of a %zu-byte read (size %u)",
				PTREC_DEVICE, pos, len,
				len - pos >= sizeof(*h) ? h->size : 0);
			return;
		}
		if (h->type == PTREC_MSG_TRACE) {
			const struct ptrec_msg_trace *m = (const void *)h;

			if (h->size < sizeof(*m) ||
			    m->len > h->size - sizeof(*m)) {
				km_fail(k, -EBADMSG, "%s: trace message of %u bytes claims %u data bytes",
					PTREC_DEVICE, h->size, m->len);
				return;
			}
			km_trace(k, m);
		} else {
			km_record(k, h);
		}
		pos += h->size;
	}
}

void km_close_streams(struct km *k)
{
	struct km_thread *t;

	for (t = k->threads; t; t = t->next) {
		km_flush_lost(k, t, 0, true);
		if (fclose(t->f) && !k->error)
			km_fail(k, -errno, "%s/pt/%u.pt: %s",
				sb_bundle_dir(k->b), t->tid, strerror(errno));
		t->f = NULL;
	}
}
