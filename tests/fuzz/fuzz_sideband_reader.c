// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for the sideband stream reader.
 *
 * Reads the input as a stream with sb_reader_open_mem() and touches every
 * field and every string byte of each record it returns, so ASan and UBSan
 * see any access the reader's checks should have prevented.  Aborts when an
 * invariant of sideband.h breaks: returned records are 8-byte multiples of
 * 16..PTREC_SB_RECORD_MAX bytes, known types hold their fixed part and their
 * strings, times never go backwards, a stream of N bytes yields at most N/16
 * records, and an error is sticky (same code, offset and message).  The same
 * bytes are also read through sb_reader_open() on a memfd, and both readers
 * must agree.  sb_record_check() runs on the raw input at offsets 0 and 32,
 * in an exact-size heap copy so an over-read is caught.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sideband.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Everything read goes here, so the reads cannot be optimised away. */
static volatile uint64_t sink;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

static void touch(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = sink;
	size_t i;

	for (i = 0; i < len; i++)
		h = h * 31 + b[i];
	sink = h;
}

static void touch_u64(uint64_t v)
{
	sink = sink * 31 + v;
}

/* Reads every field of a record that passed sb_record_check(). */
static void touch_record(const struct ptrec_sb_header *rec)
{
	const struct sb_type_info *ti = sb_type_info(rec->type);

	touch_u64(rec->type);
	touch_u64(rec->flags);
	touch_u64(rec->size);
	touch_u64(rec->time);
	CHECK(rec->size % PTREC_SB_ALIGN == 0);
	CHECK(rec->size >= sizeof(*rec));
	CHECK(rec->size <= PTREC_SB_RECORD_MAX);
	if (!ti) {
		/* Unknown types are skipped by size: all of it is there. */
		touch(rec, rec->size);
		return;
	}
	CHECK(ti->name != NULL);
	CHECK(ti->size >= sizeof(*rec));
	CHECK(rec->size >= ti->size);

	switch (rec->type) {
	case PTREC_SB_MMAP: {
		const struct ptrec_sb_mmap *m = (const void *)rec;

		CHECK(ti->size + (size_t)m->key_len + m->path_len <= rec->size);
		touch_u64(m->pid);
		touch_u64(m->tid);
		touch_u64(m->start);
		touch_u64(m->len);
		touch_u64(m->pgoff);
		touch_u64(m->prot);
		touch_u64(m->mflags);
		touch_u64(m->reserved);
		CHECK(sb_mmap_key(m) == (const char *)(m + 1));
		CHECK(sb_mmap_path(m) == sb_mmap_key(m) + m->key_len);
		touch(sb_mmap_key(m), m->key_len);
		touch(sb_mmap_path(m), m->path_len);
		break;
	}
	case PTREC_SB_MUNMAP: {
		const struct ptrec_sb_munmap *u = (const void *)rec;

		touch_u64(u->pid);
		touch_u64(u->tid);
		touch_u64(u->start);
		touch_u64(u->len);
		break;
	}
	case PTREC_SB_MPROTECT: {
		const struct ptrec_sb_mprotect *p = (const void *)rec;

		touch_u64(p->pid);
		touch_u64(p->tid);
		touch_u64(p->start);
		touch_u64(p->len);
		touch_u64(p->prot);
		touch_u64(p->reserved);
		break;
	}
	case PTREC_SB_EXEC: {
		const struct ptrec_sb_exec *e = (const void *)rec;

		CHECK(ti->size + (size_t)e->path_len <= rec->size);
		touch_u64(e->pid);
		touch_u64(e->tid);
		touch_u64(e->reserved0);
		touch_u64(e->reserved1);
		CHECK(sb_exec_path(e) == (const char *)(e + 1));
		touch(sb_exec_path(e), e->path_len);
		break;
	}
	case PTREC_SB_COMM: {
		const struct ptrec_sb_comm *c = (const void *)rec;

		touch_u64(c->pid);
		touch_u64(c->tid);
		touch(c->comm, sizeof(c->comm));
		break;
	}
	case PTREC_SB_CR3: {
		const struct ptrec_sb_cr3 *c = (const void *)rec;

		touch_u64(c->pid);
		touch_u64(c->tid);
		touch_u64(c->cr3);
		touch_u64(c->kernel_cr3);
		break;
	}
	case PTREC_SB_SWITCH_IN:
	case PTREC_SB_SWITCH_OUT: {
		const struct ptrec_sb_switch *s = (const void *)rec;

		touch_u64(s->pid);
		touch_u64(s->tid);
		touch_u64(s->cpu);
		touch_u64(s->reserved);
		break;
	}
	case PTREC_SB_THREAD_START: {
		const struct ptrec_sb_thread_start *t = (const void *)rec;

		touch_u64(t->pid);
		touch_u64(t->tid);
		touch_u64(t->parent_pid);
		touch_u64(t->parent_tid);
		touch_u64(t->clone_flags);
		break;
	}
	case PTREC_SB_THREAD_EXIT: {
		const struct ptrec_sb_thread_exit *t = (const void *)rec;

		touch_u64(t->pid);
		touch_u64(t->tid);
		touch_u64((uint64_t)t->exit_code);
		touch_u64(t->reserved);
		break;
	}
	case PTREC_SB_PROCESS_EXIT: {
		const struct ptrec_sb_process_exit *p = (const void *)rec;

		touch_u64(p->pid);
		touch_u64(p->kind);
		touch_u64((uint64_t)p->status);
		touch_u64(p->reserved);
		break;
	}
	case PTREC_SB_LOST: {
		const struct ptrec_sb_lost *l = (const void *)rec;

		touch_u64(l->tid);
		touch_u64(l->reason);
		touch_u64(l->bytes);
		touch_u64(l->offset);
		break;
	}
	case PTREC_SB_TIME: {
		const struct ptrec_sb_time *t = (const void *)rec;

		touch_u64(t->time_shift);
		touch_u64(t->reserved0);
		touch_u64(t->time_mult);
		touch_u64(t->time_zero);
		touch_u64(t->tsc_hz);
		touch_u64(t->realtime_ns);
		touch_u64(sb_time_to_ns(t, t->hdr.time));
		touch_u64(sb_time_to_ns(t, 0));
		touch_u64(sb_time_to_ns(t, UINT64_MAX));
		break;
	}
	case PTREC_SB_SIGNAL: {
		const struct ptrec_sb_signal *s = (const void *)rec;

		touch_u64(s->pid);
		touch_u64(s->tid);
		touch_u64((uint64_t)s->signo);
		touch_u64((uint64_t)s->code);
		touch_u64(s->addr);
		touch_u64(s->sflags);
		touch_u64(s->reserved);
		break;
	}
	case PTREC_SB_EXIT_FUTEX: {
		const struct ptrec_sb_exit_futex *f = (const void *)rec;

		touch_u64(f->pid);
		touch_u64(f->tid);
		touch_u64(f->clear_child_tid);
		touch_u64(f->robust_list);
		touch_u64(f->robust_len);
		touch_u64(f->robust_next);
		touch_u64((uint64_t)f->futex_offset);
		touch_u64(f->list_op_pending);
		touch_u64(f->ctid_val);
		touch_u64(f->known);
		break;
	}
	default:
		/* A type added to the library but not to this harness. */
		break;
	}
	/* Padding and any trailing bytes a newer writer appended. */
	touch(rec, rec->size);
}

/*
 * sb_record_check() on @avail bytes at @rec, which sit at the end of an
 * exact-size heap block: a passing record is read in full, in place.
 */
static void check_raw(const uint8_t *rec, size_t avail, bool with_why)
{
	char why[200];
	int ret;

	ret = sb_record_check((const void *)rec, avail, with_why ? why : NULL,
			      with_why ? sizeof(why) : 0);
	if (ret) {
		CHECK(ret == -EBADMSG);
		if (with_why)
			CHECK(memchr(why, '\0', sizeof(why)) != NULL);
		return;
	}
	CHECK(avail >= sizeof(struct ptrec_sb_header));
	CHECK(((const struct ptrec_sb_header *)rec)->size <= avail);
	touch_record((const void *)rec);
}

/* A memfd holding @data, so the file reader reads the same bytes. */
static int make_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_sideband_reader", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return fd;
}

/* Reads @data through the memory reader, and a file reader alongside. */
static void read_stream(const uint8_t *data, size_t size)
{
	const struct ptrec_sb_header *rec, *frec;
	struct sb_reader *r = NULL, *fr = NULL;
	struct sb_err err, ferr;
	char path[64];
	uint64_t n = 0, last_time = 0, off;
	int ret, fret, fd;

	ret = sb_reader_open_mem(&r, data, size, "fuzz", &err);
	fd = make_memfd(data, size);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fret = sb_reader_open(&fr, path, &ferr);
	close(fd);
	CHECK(ret == fret);
	if (ret) {
		CHECK(ret == -EBADMSG || ret == -EPROTONOSUPPORT);
		return;
	}

	for (;;) {
		ret = sb_reader_next(r, &rec, &err);
		fret = sb_reader_next(fr, &frec, &ferr);
		CHECK(ret == fret);
		CHECK(sb_reader_offset(r) == sb_reader_offset(fr));
		if (ret <= 0)
			break;
		CHECK(ret == 1);
		CHECK(++n <= size / sizeof(struct ptrec_sb_header));
		CHECK(((uintptr_t)rec & 7) == 0);
		touch_record(rec);
		CHECK(frec->size == rec->size);
		CHECK(!memcmp(rec, frec, rec->size));
		CHECK(rec->time >= last_time);
		last_time = rec->time;
		off = sb_reader_offset(r);
		CHECK(off >= sizeof(struct ptrec_sb_file_header));
		CHECK(off % PTREC_SB_ALIGN == 0);
		/* A version-1 CR3 record is shown upgraded (40 bytes) but
		 * takes its 32 in the stream.
		 */
		CHECK(off + rec->size <= size ||
		      (rec->type == PTREC_SB_CR3 &&
		       off + PTREC_SB_CR3_V1_SIZE <= size));
	}

	off = sb_reader_offset(r);
	if (ret == 0) {
		/* The end stays the end. */
		CHECK(sb_reader_next(r, &rec, &err) == 0);
	} else {
		struct sb_err again;
		int i;

		CHECK(ret == -EBADMSG);
		CHECK(off < size);
		/* Sticky: the same failure, at the same place, every time. */
		for (i = 0; i < 2; i++) {
			CHECK(sb_reader_next(r, &rec, &again) == ret);
			CHECK(sb_reader_offset(r) == off);
			CHECK(!strcmp(again.msg, err.msg));
			CHECK(sb_reader_next(fr, &frec, NULL) == ret);
		}
	}
	sb_reader_close(r);
	sb_reader_close(fr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	read_stream(data, size);

	if (!size)
		return 0;
	/* malloc is 16-byte aligned, and so is offset 32 within it. */
	copy = malloc(size);
	CHECK(copy != NULL);
	memcpy(copy, data, size);
	check_raw(copy, size, true);
	if (size >= 32)
		check_raw(copy + 32, size - 32, false);
	free(copy);
	return 0;
}
