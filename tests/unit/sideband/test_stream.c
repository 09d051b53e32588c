// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Sideband streams: every record type survives a write/read round trip, and
 * every kind of damaged stream gets -EBADMSG (or -EPROTONOSUPPORT) with a
 * message naming the file and the byte offset, never a crash.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sideband.h"

#define HDR_SIZE sizeof(struct ptrec_sb_file_header)

static char tmpdir[64];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/ptrec-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(stream, .init = setup, .fini = teardown);

static char *tmp_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* One record of every type, each with distinct non-zero field values. */
static union {
	struct ptrec_sb_header hdr;
	struct ptrec_sb_mmap mmap;
	struct ptrec_sb_munmap munmap;
	struct ptrec_sb_mprotect mprotect;
	struct ptrec_sb_exec exec;
	struct ptrec_sb_comm comm;
	struct ptrec_sb_cr3 cr3;
	struct ptrec_sb_switch sw;
	struct ptrec_sb_thread_start ts;
	struct ptrec_sb_thread_exit te;
	struct ptrec_sb_process_exit pe;
	struct ptrec_sb_lost lost;
	struct ptrec_sb_time time;
	struct ptrec_sb_signal sig;
	struct ptrec_sb_exit_futex xf;
	struct ptrec_sb_sigframe sf;
	struct ptrec_sb_regs rg;
	struct ptrec_sb_untraced un;
} recs[PTREC_SB_TYPE_COUNT];

static const char *const key = "buildid-0123456789abcdef";
static const char *const mpath = "/usr/lib/x86_64-linux-gnu/libc.so.6";
static const char *const epath = "/bin/true";

static void make_records(void)
{
	uint16_t t;

	memset(recs, 0, sizeof(recs));
	for (t = 1; t < PTREC_SB_TYPE_COUNT; t++) {
		recs[t].hdr.type = t;
		recs[t].hdr.time = 1000 + t * 10;
		recs[t].hdr.size = sb_type_info(t)->size;
	}
	recs[PTREC_SB_MMAP].hdr.flags = PTREC_SB_F_SNAPSHOT;
	recs[PTREC_SB_MMAP].mmap = (struct ptrec_sb_mmap){
		.hdr = recs[PTREC_SB_MMAP].hdr, .pid = 11, .tid = 12,
		.start = 0x7f0000001000, .len = 0x2000, .pgoff = 0x3000,
		.prot = 5, .mflags = 2 };
	recs[PTREC_SB_MUNMAP].munmap = (struct ptrec_sb_munmap){
		.hdr = recs[PTREC_SB_MUNMAP].hdr, .pid = 21, .tid = 22,
		.start = 0x1000, .len = 0x1000 };
	recs[PTREC_SB_MPROTECT].mprotect = (struct ptrec_sb_mprotect){
		.hdr = recs[PTREC_SB_MPROTECT].hdr, .pid = 31, .tid = 32,
		.start = 0x5000, .len = 0x3000, .prot = 1 };
	recs[PTREC_SB_EXEC].exec = (struct ptrec_sb_exec){
		.hdr = recs[PTREC_SB_EXEC].hdr, .pid = 41, .tid = 42 };
	recs[PTREC_SB_COMM].comm = (struct ptrec_sb_comm){
		.hdr = recs[PTREC_SB_COMM].hdr, .pid = 51, .tid = 52,
		.comm = "worker-1" };
	recs[PTREC_SB_CR3].cr3 = (struct ptrec_sb_cr3){
		.hdr = recs[PTREC_SB_CR3].hdr, .pid = 61, .tid = 62,
		.cr3 = 0x12345000 };
	recs[PTREC_SB_SWITCH_IN].sw = (struct ptrec_sb_switch){
		.hdr = recs[PTREC_SB_SWITCH_IN].hdr, .pid = 71, .tid = 72,
		.cpu = 1 };
	recs[PTREC_SB_SWITCH_OUT].sw = (struct ptrec_sb_switch){
		.hdr = recs[PTREC_SB_SWITCH_OUT].hdr, .pid = 81, .tid = 82,
		.cpu = 3 };
	recs[PTREC_SB_SWITCH_OUT].hdr.flags = PTREC_SB_F_PREEMPT;
	recs[PTREC_SB_THREAD_START].ts = (struct ptrec_sb_thread_start){
		.hdr = recs[PTREC_SB_THREAD_START].hdr, .pid = 91, .tid = 93,
		.parent_pid = 91, .parent_tid = 92, .clone_flags = 0x3d0f00 };
	recs[PTREC_SB_THREAD_EXIT].te = (struct ptrec_sb_thread_exit){
		.hdr = recs[PTREC_SB_THREAD_EXIT].hdr, .pid = 101, .tid = 102,
		.exit_code = -3 };
	recs[PTREC_SB_PROCESS_EXIT].pe = (struct ptrec_sb_process_exit){
		.hdr = recs[PTREC_SB_PROCESS_EXIT].hdr, .pid = 111,
		.kind = PTREC_SB_DUMPED, .status = 11 };
	recs[PTREC_SB_LOST].lost = (struct ptrec_sb_lost){
		.hdr = recs[PTREC_SB_LOST].hdr, .tid = 121,
		.reason = PTREC_SB_LOST_WRAP, .bytes = 4096, .offset = 65536 };
	recs[PTREC_SB_TIME].time = (struct ptrec_sb_time){
		.hdr = recs[PTREC_SB_TIME].hdr, .time_shift = 31,
		.time_mult = 581029125, .time_zero = 18444502336406842448ull,
		.tsc_hz = 2100000000, .realtime_ns = 1790000000000000000ull };
	recs[PTREC_SB_SIGNAL].sig = (struct ptrec_sb_signal){
		.hdr = recs[PTREC_SB_SIGNAL].hdr, .pid = 141, .tid = 142,
		.signo = 11, .code = 1, .addr = 0xdeadbeef,
		.sflags = PTREC_SB_SIG_FATAL };
	recs[PTREC_SB_EXIT_FUTEX].xf = (struct ptrec_sb_exit_futex){
		.hdr = recs[PTREC_SB_EXIT_FUTEX].hdr, .pid = 151, .tid = 152,
		.clear_child_tid = 0x7f00000012d0, .ctid_val = 152,
		.robust_list = 0x7f00000012e0,
		.robust_len = PTREC_SB_ROBUST_HEAD_LEN,
		.robust_next = 0x7f00000012e0, .futex_offset = -32,
		.list_op_pending = 0, .known = PTREC_SB_FUTEX_ALL };
	recs[PTREC_SB_SIGFRAME].sf = (struct ptrec_sb_sigframe){
		.hdr = recs[PTREC_SB_SIGFRAME].hdr, .pid = 161, .tid = 162,
		.signo = 10, .sp = 0x7ffc0000e4f8 };
	recs[PTREC_SB_REGS].rg = (struct ptrec_sb_regs){
		.hdr = recs[PTREC_SB_REGS].hdr, .pid = 171, .tid = 172,
		.where = PTREC_SB_REGS_START,
		.valid = (1ull << PTREC_SB_NREGS) - 1 - (1ull << SB_REG_GS),
		.regs = { [SB_REG_RAX] = 0x11, [SB_REG_RSP] = 0x7ffc0000e000,
			  [SB_REG_RIP] = 0x401000, [SB_REG_EFLAGS] = 0x246,
			  [SB_REG_R15] = 0xf15 } };
	recs[PTREC_SB_UNTRACED].un = (struct ptrec_sb_untraced){
		.hdr = recs[PTREC_SB_UNTRACED].hdr, .pid = 181, .tid = 183,
		.parent_pid = 181, .parent_tid = 182, .clone_flags = 0x250f00,
		.reason = PTREC_SB_UNTRACED_TID_REUSED };
}

static void write_all_types(const char *path)
{
	struct sb_writer *w;
	struct sb_err err;
	uint16_t t;

	make_records();
	cr_assert_eq(sb_writer_open(&w, path, &err), 0, "%s", err.msg);
	for (t = 1; t < PTREC_SB_TYPE_COUNT; t++) {
		int ret;

		if (t == PTREC_SB_MMAP)
			ret = sb_writer_add_mmap(w, &recs[t].mmap, key, mpath,
						 &err);
		else if (t == PTREC_SB_EXEC)
			ret = sb_writer_add_exec(w, &recs[t].exec, epath, &err);
		else
			ret = sb_writer_add(w, &recs[t].hdr, &err);
		cr_assert_eq(ret, 0, "type %u: %s", t, err.msg);
	}
	cr_assert_eq(sb_writer_count(w), PTREC_SB_TYPE_COUNT - 1);
	cr_assert_eq(sb_writer_close(w, &err), 0, "%s", err.msg);
}

static size_t padded(size_t n)
{
	return (n + 7) / 8 * 8;
}

/* Compares a read record with what was written, field by field. */
static void check_record(const struct ptrec_sb_header *h)
{
	uint16_t t = h->type;
	size_t fixed;

	cr_assert(t > 0 && t < PTREC_SB_TYPE_COUNT);
	fixed = sb_type_info(t)->size;
	cr_assert_eq(h->time, recs[t].hdr.time);
	cr_assert_eq(h->flags, recs[t].hdr.flags);
	if (t == PTREC_SB_MMAP) {
		const struct ptrec_sb_mmap *m = (const void *)h;

		cr_assert_eq(h->size, padded(fixed + strlen(key) +
					      strlen(mpath)));
		cr_assert_eq(m->key_len, strlen(key));
		cr_assert_eq(m->path_len, strlen(mpath));
		cr_assert_eq(memcmp(sb_mmap_key(m), key, m->key_len), 0);
		cr_assert_eq(memcmp(sb_mmap_path(m), mpath, m->path_len), 0);
		cr_assert_eq(m->start, recs[t].mmap.start);
		cr_assert_eq(m->len, recs[t].mmap.len);
		cr_assert_eq(m->pgoff, recs[t].mmap.pgoff);
		cr_assert_eq(m->prot, 5);
		cr_assert_eq(m->mflags, 2);
		cr_assert_eq(m->pid, 11);
		cr_assert_eq(m->tid, 12);
		return;
	}
	if (t == PTREC_SB_EXEC) {
		const struct ptrec_sb_exec *e = (const void *)h;

		cr_assert_eq(h->size, padded(fixed + strlen(epath)));
		cr_assert_eq(e->path_len, strlen(epath));
		cr_assert_eq(memcmp(sb_exec_path(e), epath, e->path_len), 0);
		cr_assert_eq(e->pid, 41);
		cr_assert_eq(e->tid, 42);
		return;
	}
	cr_assert_eq(h->size, fixed);
	cr_assert_eq(memcmp(h, &recs[t], fixed), 0, "type %u differs", t);
}

Test(stream, every_type_round_trips_through_a_file)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err;
	uint16_t expect = 1;
	int ret;

	write_all_types(tmp_path("all.sb"));
	cr_assert_eq(sb_reader_open(&r, tmp_path("all.sb"), &err), 0, "%s",
		     err.msg);
	while ((ret = sb_reader_next(r, &h, &err)) > 0) {
		cr_assert_eq(h->type, expect);
		check_record(h);
		expect++;
	}
	cr_assert_eq(ret, 0, "%s", err.msg);
	cr_assert_eq(expect, PTREC_SB_TYPE_COUNT);
	/* The end stays the end. */
	cr_assert_eq(sb_reader_next(r, &h, &err), 0);
	sb_reader_close(r);
}

/* Reads a whole file into memory. */
static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/*
 * Reads @buf both from memory and from a file; both must end with @expect
 * (0 or a negative errno) after @records good records, and the message must
 * contain @needle.
 */
static void expect_stream(const void *buf, size_t len, int expect,
			  int records, const char *needle)
{
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	struct sb_err err = { "" };
	int pass, n, ret;

	for (pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			ret = sb_reader_open_mem(&r, buf, len, "mem.sb", &err);
		} else {
			spit(tmp_path("bad.sb"), buf, len);
			ret = sb_reader_open(&r, tmp_path("bad.sb"), &err);
		}
		n = 0;
		if (!ret) {
			while ((ret = sb_reader_next(r, &h, &err)) > 0)
				n++;
			/* A failure is sticky: the same error again. */
			if (ret < 0)
				cr_assert_eq(sb_reader_next(r, &h, NULL), ret);
			sb_reader_close(r);
		}
		cr_assert_eq(ret, expect, "pass %d: got %d (%s)", pass, ret,
			     err.msg);
		cr_assert_eq(n, records, "pass %d: %d records", pass, n);
		if (needle)
			cr_assert_not_null(strstr(err.msg, needle),
					   "pass %d: '%s' lacks '%s'", pass,
					   err.msg, needle);
		if (expect && pass == 1)
			cr_assert_not_null(strstr(err.msg, "bad.sb"),
					   "message must name the file: %s",
					   err.msg);
	}
}

/* A valid stream with all types, in memory, for damaging. */
static uint8_t *good_stream(size_t *len)
{
	write_all_types(tmp_path("good.sb"));
	return slurp(tmp_path("good.sb"), len);
}

Test(stream, reads_from_memory_like_from_file)
{
	size_t len;
	uint8_t *buf = good_stream(&len);

	expect_stream(buf, len, 0, PTREC_SB_TYPE_COUNT - 1, NULL);
	/* Unaligned input memory must work as well. */
	{
		uint8_t *odd = malloc(len + 1);

		memcpy(odd + 1, buf, len);
		expect_stream(odd + 1, len, 0, PTREC_SB_TYPE_COUNT - 1, NULL);
		free(odd);
	}
	free(buf);
}

Test(stream, empty_and_truncated_file_header)
{
	size_t len;
	uint8_t *buf = good_stream(&len);

	expect_stream(buf, 0, -EBADMSG, 0, "truncated file header");
	expect_stream(buf, 20, -EBADMSG, 0, "offset 0");
	/* Exactly the header: a valid, empty stream. */
	expect_stream(buf, HDR_SIZE, 0, 0, NULL);
	free(buf);
}

Test(stream, bad_magic)
{
	size_t len;
	uint8_t *buf = good_stream(&len);

	buf[0] = 'X';
	expect_stream(buf, len, -EBADMSG, 0, "not a ptrec sideband stream");
	free(buf);
}

Test(stream, newer_and_older_versions_are_refused_with_advice)
{
	struct ptrec_sb_file_header fh;
	size_t len;
	uint8_t *buf = good_stream(&len);

	memcpy(&fh, buf, sizeof(fh));
	fh.version = PTREC_SB_VERSION + 1;
	memcpy(buf, &fh, sizeof(fh));
	expect_stream(buf, len, -EPROTONOSUPPORT, 0, "upgrade ptrec");
	fh.version = 0;
	memcpy(buf, &fh, sizeof(fh));
	expect_stream(buf, len, -EPROTONOSUPPORT, 0, "re-record");
	free(buf);
}

Test(stream, truncated_inside_a_record)
{
	size_t len;
	uint8_t *buf = good_stream(&len);
	size_t first = padded(sizeof(struct ptrec_sb_mmap) + strlen(key) +
			      strlen(mpath));

	/* Cut inside the second record's header. */
	expect_stream(buf, HDR_SIZE + first + 5, -EBADMSG, 1,
		      "truncated record header");
	/* Cut inside the second record's body: names its offset. */
	expect_stream(buf, HDR_SIZE + first + 20, -EBADMSG, 1, "runs past");
	{
		char where[32];

		snprintf(where, sizeof(where), "offset %zu", HDR_SIZE + first);
		expect_stream(buf, HDR_SIZE + first + 20, -EBADMSG, 1, where);
	}
	/* Cut after the last whole record: a clean end. */
	expect_stream(buf, len - sizeof(struct ptrec_sb_untraced), 0,
		      PTREC_SB_TYPE_COUNT - 2, NULL);
	free(buf);
}

/* Overwrites the size of the first record. */
static void set_first_size(uint8_t *buf, uint32_t size)
{
	memcpy(buf + HDR_SIZE + offsetof(struct ptrec_sb_header, size), &size,
	       sizeof(size));
}

Test(stream, zero_small_odd_and_huge_sizes)
{
	size_t len;
	uint8_t *buf = good_stream(&len);

	set_first_size(buf, 0);
	expect_stream(buf, len, -EBADMSG, 0, "below the 16-byte header");
	set_first_size(buf, 8);
	expect_stream(buf, len, -EBADMSG, 0, "below");
	set_first_size(buf, 100);
	expect_stream(buf, len, -EBADMSG, 0, "multiple of 8");
	set_first_size(buf, 0xfffffff8u);
	expect_stream(buf, len, -EBADMSG, 0, "exceeds the maximum");
	set_first_size(buf, PTREC_SB_RECORD_MAX + 8);
	expect_stream(buf, len, -EBADMSG, 0, "exceeds the maximum");
	/* Known type smaller than its fixed part. */
	set_first_size(buf, 24);
	expect_stream(buf, len, -EBADMSG, 0, "MMAP record of 24 bytes");
	free(buf);
}

Test(stream, strings_longer_than_the_record)
{
	struct ptrec_sb_mmap m;
	size_t len;
	uint8_t *buf = good_stream(&len);

	memcpy(&m, buf + HDR_SIZE, sizeof(m));
	m.path_len = 4000;
	memcpy(buf + HDR_SIZE, &m, sizeof(m));
	expect_stream(buf, len, -EBADMSG, 0, "cannot hold");
	free(buf);
}

Test(stream, time_going_backwards_is_corruption)
{
	struct ptrec_sb_header h;
	size_t len, first;
	uint8_t *buf = good_stream(&len);

	first = padded(sizeof(struct ptrec_sb_mmap) + strlen(key) +
		       strlen(mpath));
	memcpy(&h, buf + HDR_SIZE + first, sizeof(h));
	h.time = 1;
	memcpy(buf + HDR_SIZE + first, &h, sizeof(h));
	expect_stream(buf, len, -EBADMSG, 1, "before the previous record");
	free(buf);
}

Test(stream, unknown_types_are_skipped_by_size)
{
	uint64_t raw[64] = { 0 };
	struct ptrec_sb_file_header fh = { .version = PTREC_SB_VERSION,
					   .header_size = HDR_SIZE };
	struct ptrec_sb_header unk = { .type = 999, .flags = 0x8000,
				       .size = 48, .time = 5 };
	struct ptrec_sb_cr3 cr3 = { .hdr = { .type = PTREC_SB_CR3,
					     .size = sizeof(cr3), .time = 6 },
				    .pid = 7, .cr3 = 0xabc000 };
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	uint8_t *p = (uint8_t *)raw;
	struct sb_err err;

	memcpy(fh.magic, PTREC_SB_MAGIC, sizeof(fh.magic));
	memcpy(p, &fh, sizeof(fh));
	memcpy(p + HDR_SIZE, &unk, sizeof(unk));
	memset(p + HDR_SIZE + sizeof(unk), 0xee, 48 - sizeof(unk));
	memcpy(p + HDR_SIZE + 48, &cr3, sizeof(cr3));
	cr_assert_eq(sb_reader_open_mem(&r, raw, HDR_SIZE + 48 + sizeof(cr3),
					"unknown.sb", &err), 0, "%s", err.msg);
	cr_assert_eq(sb_reader_next(r, &h, &err), 1, "%s", err.msg);
	cr_assert_eq(h->type, 999);
	cr_assert_null(sb_type_info(h->type));
	cr_assert_eq(sb_reader_next(r, &h, &err), 1, "%s", err.msg);
	cr_assert_eq(h->type, PTREC_SB_CR3);
	cr_assert_eq(((const struct ptrec_sb_cr3 *)h)->cr3, 0xabc000);
	cr_assert_eq(sb_reader_offset(r), HDR_SIZE + 48);
	cr_assert_eq(sb_reader_next(r, &h, &err), 0);
	sb_reader_close(r);
}

/*
 * Sideband version 1 (before #20's "record both"): a 32-byte CR3 record
 * without kernel_cr3 is still read, as a version-2 record with
 * kernel_cr3 0; a version-2 one carries both.  In version 2 a 32-byte
 * CR3 record is too short.
 */
Test(stream, version_1_cr3_records_are_still_read)
{
	uint64_t raw[16] = { 0 };
	struct ptrec_sb_file_header fh = { .version = 1,
					   .header_size = HDR_SIZE };
	struct ptrec_sb_cr3 cr3 = { .hdr = { .type = PTREC_SB_CR3,
					     .size = PTREC_SB_CR3_V1_SIZE,
					     .time = 6 },
				    .pid = 7, .tid = 8, .cr3 = 0x1abc000 };
	const struct ptrec_sb_header *h;
	struct sb_reader *r;
	uint8_t *p = (uint8_t *)raw;
	struct sb_err err;
	int v;

	for (v = 1; v <= 2; v++) {
		memset(raw, 0, sizeof(raw));
		fh.version = v;
		cr3.hdr.size = v == 1 ? PTREC_SB_CR3_V1_SIZE : sizeof(cr3);
		cr3.kernel_cr3 = 0xabc000;
		memcpy(fh.magic, PTREC_SB_MAGIC, sizeof(fh.magic));
		memcpy(p, &fh, sizeof(fh));
		memcpy(p + HDR_SIZE, &cr3, cr3.hdr.size);
		cr_assert_eq(sb_reader_open_mem(&r, raw,
						HDR_SIZE + cr3.hdr.size,
						"v.sb", &err), 0,
			     "version %d: %s", v, err.msg);
		cr_assert_eq(sb_reader_next(r, &h, &err), 1, "%s", err.msg);
		cr_assert_eq(h->type, PTREC_SB_CR3);
		/* a version-1 record comes back as version 2's */
		cr_assert_eq(h->size, 40);
		cr_assert_eq(((const struct ptrec_sb_cr3 *)h)->pid, 7);
		cr_assert_eq(((const struct ptrec_sb_cr3 *)h)->tid, 8);
		cr_assert_eq(((const struct ptrec_sb_cr3 *)h)->cr3, 0x1abc000);
		cr_assert_eq(((const struct ptrec_sb_cr3 *)h)->kernel_cr3,
			     v == 1 ? 0 : 0xabc000);
		cr_assert_eq(sb_reader_offset(r), HDR_SIZE);
		cr_assert_eq(sb_reader_next(r, &h, &err), 0);
		sb_reader_close(r);
	}
}

Test(stream, many_records_cross_the_read_buffer)
{
	struct ptrec_sb_mmap m = { .hdr = { .type = PTREC_SB_MMAP },
				   .pid = 1, .prot = 5 };
	const struct ptrec_sb_header *h;
	struct sb_writer *w;
	struct sb_reader *r;
	struct sb_err err;
	char path[300];
	uint64_t i, n = 20000;
	int ret;

	cr_assert_eq(sb_writer_open(&w, tmp_path("many.sb"), &err), 0);
	for (i = 0; i < n; i++) {
		/* Varying lengths so records straddle buffer edges. */
		snprintf(path, sizeof(path), "/lib/%0*llu.so", (int)(i % 200),
			 (unsigned long long)i);
		m.hdr.time = i / 3;
		m.start = i << 12;
		ret = sb_writer_add_mmap(w, &m, NULL, path, &err);
		cr_assert_eq(ret, 0, "%s", err.msg);
	}
	cr_assert_eq(sb_writer_close(w, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_reader_open(&r, tmp_path("many.sb"), &err), 0);
	for (i = 0; (ret = sb_reader_next(r, &h, &err)) > 0; i++) {
		const struct ptrec_sb_mmap *rm = (const void *)h;

		snprintf(path, sizeof(path), "/lib/%0*llu.so", (int)(i % 200),
			 (unsigned long long)i);
		cr_assert_eq(rm->start, i << 12);
		cr_assert_eq(rm->key_len, 0);
		cr_assert_eq(rm->path_len, strlen(path));
		cr_assert_eq(memcmp(sb_mmap_path(rm), path, rm->path_len), 0,
			     "record %llu", (unsigned long long)i);
	}
	cr_assert_eq(ret, 0, "%s", err.msg);
	cr_assert_eq(i, n);
	sb_reader_close(r);
}

Test(stream, writer_refuses_what_the_reader_would_reject)
{
	struct ptrec_sb_cr3 cr3 = { .hdr = { .type = PTREC_SB_CR3,
					     .time = 50 } };
	struct ptrec_sb_header unk = { .type = 999, .size = 16 };
	struct ptrec_sb_exec e = { .hdr = { .time = 60 } };
	struct sb_writer *w;
	struct sb_err err;
	char *longpath;

	cr_assert_eq(sb_writer_open(&w, tmp_path("w.sb"), &err), 0);
	cr_assert_eq(sb_writer_add(w, &cr3.hdr, &err), 0, "%s", err.msg);
	cr3.hdr.time = 49;
	cr_assert_eq(sb_writer_add(w, &cr3.hdr, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "before the previous"));
	cr_assert_eq(sb_writer_add(w, &unk, &err), -EINVAL);
	cr_assert_not_null(strstr(err.msg, "unknown record type 999"));
	cr3.hdr.time = 50;
	cr3.hdr.size = 12;
	cr_assert_eq(sb_writer_add(w, &cr3.hdr, &err), -EINVAL);
	longpath = malloc(PTREC_SB_RECORD_MAX + 1);
	memset(longpath, 'a', PTREC_SB_RECORD_MAX);
	longpath[PTREC_SB_RECORD_MAX] = '\0';
	cr_assert_eq(sb_writer_add_exec(w, &e, longpath, &err),
		     -ENAMETOOLONG);
	free(longpath);
	/* Only the one good record was written. */
	cr_assert_eq(sb_writer_count(w), 1);
	cr_assert_eq(sb_writer_close(w, &err), 0);
	cr_assert_eq(sb_writer_close(NULL, &err), 0);
}

Test(stream, disk_full_is_reported_and_sticky)
{
	struct ptrec_sb_cr3 cr3 = { .hdr = { .type = PTREC_SB_CR3 } };
	struct sb_writer *w;
	struct sb_err err;
	int i, ret = 0;

	cr_assert_eq(sb_writer_open(&w, "/dev/full", &err), 0, "%s", err.msg);
	/* More than the write buffer, so a write happens before close. */
	for (i = 0; i < 10000 && !ret; i++)
		ret = sb_writer_add(w, &cr3.hdr, &err);
	cr_assert_eq(ret, -ENOSPC, "got %d", ret);
	cr_assert_not_null(strstr(err.msg, "/dev/full"));
	cr_assert_eq(sb_writer_add(w, &cr3.hdr, &err), -ENOSPC);
	cr_assert_eq(sb_writer_close(w, &err), -ENOSPC);
}

Test(stream, open_errors_name_the_file)
{
	struct sb_reader *r;
	struct sb_writer *w;
	struct sb_err err;

	cr_assert_eq(sb_reader_open(&r, tmp_path("nope.sb"), &err), -ENOENT);
	cr_assert_not_null(strstr(err.msg, "nope.sb"));
	cr_assert_eq(sb_writer_open(&w, tmp_path("no/such/dir.sb"), &err),
		     -ENOENT);
	cr_assert_not_null(strstr(err.msg, "dir.sb"));
	cr_assert_eq(sb_reader_open(&r, NULL, &err), -EINVAL);
}

Test(stream, time_conversion_matches_128_bit_arithmetic)
{
	const struct ptrec_sb_time conv = { .time_shift = 31,
					    .time_mult = 581029125,
					    .time_zero = 18444502336406842448ull };
	const uint64_t tscs[] = { 0, 1, 1ull << 31, 123456789012345ull,
				  (1ull << 40) + 12345, 0x7fffffffffffull };
	size_t i;

	for (i = 0; i < sizeof(tscs) / sizeof(tscs[0]); i++) {
		unsigned __int128 p = (unsigned __int128)tscs[i] *
				      conv.time_mult;
		uint64_t want = conv.time_zero + (uint64_t)(p >> 31);

		cr_assert_eq(sb_time_to_ns(&conv, tscs[i]), want, "tsc %llu",
			     (unsigned long long)tscs[i]);
	}
}

/* One field of a record changed, and what the reader then says. */
struct damage {
	size_t off;		/* the field, in the record */
	uint64_t val;
	unsigned int size;
	const char *needle;	/* NULL: still valid */
};

/*
 * Each of @bad applied alone to the record of @rec_size bytes at @at, the
 * last of @buf's records but @after: the reader stops there (after @ok
 * records) naming the record's offset and @needle, and the writer refuses
 * the same record with the same words (sb_record_check() serves both).
 */
static void expect_damage(const uint8_t *buf, size_t len, size_t at,
			  size_t rec_size, const struct damage *bad, size_t n,
			  unsigned int ok, const char *file)
{
	uint8_t *cp = malloc(len), rec[512];
	struct sb_writer *w;
	struct sb_err err;
	char where[64];
	size_t i;

	cr_assert(rec_size <= sizeof(rec));
	snprintf(where, sizeof(where), "offset %zu", at);
	for (i = 0; i < n; i++) {
		memcpy(cp, buf, len);
		memcpy(cp + at + bad[i].off, &bad[i].val, bad[i].size);
		if (!bad[i].needle) {
			expect_stream(cp, len, 0, PTREC_SB_TYPE_COUNT - 1,
				      NULL);
			continue;
		}
		expect_stream(cp, len, -EBADMSG, ok, bad[i].needle);
		expect_stream(cp, len, -EBADMSG, ok, where);
		memcpy(rec, cp + at, rec_size);
		cr_assert_eq(sb_writer_open(&w, tmp_path(file), &err), 0);
		cr_assert_eq(sb_writer_add(w, (struct ptrec_sb_header *)rec,
					   &err), -EINVAL, "case %zu", i);
		cr_assert_not_null(strstr(err.msg, bad[i].needle), "%s",
				   err.msg);
		cr_assert_eq(sb_writer_close(w, &err), 0);
	}
	free(cp);
}

/*
 * EXIT_FUTEX (version 3): the last record of the all-types stream.  Cut
 * inside it, or with fields the kernel could not hold (known-bits of a
 * newer writer, a robust list of another length, head words or a
 * clear_child_tid value without what they belong to, a field set but
 * said unknown), the reader stops there with a message naming the file,
 * the record's offset and what is wrong; the writer refuses the same
 * records (one check, sb_record_check(), serves both).
 */
Test(stream, exit_futex_damage_names_its_offset)
{
	static const struct damage bad[] = {
		{ offsetof(struct ptrec_sb_exit_futex, known), 0x1f, 4,
		  "unknown known-bits 0x10" },
		{ offsetof(struct ptrec_sb_exit_futex, robust_len), 16, 8,
		  "robust list length 16" },
		{ offsetof(struct ptrec_sb_exit_futex, known),
		  PTREC_SB_FUTEX_ALL & ~PTREC_SB_FUTEX_ROBUST, 4,
		  "robust list set but not known" },
		{ offsetof(struct ptrec_sb_exit_futex, robust_list), 0, 8,
		  "robust list length 24 without a list" },
		{ offsetof(struct ptrec_sb_exit_futex, robust_next), 0, 8,
		  NULL },
		{ offsetof(struct ptrec_sb_exit_futex, known),
		  PTREC_SB_FUTEX_ALL & ~PTREC_SB_FUTEX_CTID, 4,
		  "clear_child_tid 0x7f00000012d0 set but not known" },
		{ offsetof(struct ptrec_sb_exit_futex, clear_child_tid), 0, 8,
		  "a clear_child_tid value without its word" },
	};
	size_t len, at;
	uint8_t *buf = good_stream(&len);
	uint8_t *cp = malloc(len);
	struct ptrec_sb_exit_futex xf;
	struct sb_writer *w;
	struct sb_err err;
	char where[64];

	/* The EXIT_FUTEX record, before the SIGFRAME (40 bytes), REGS
	 * (256) and UNTRACED (48) ones.
	 */
	at = len - sizeof(struct ptrec_sb_exit_futex) -
	     sizeof(struct ptrec_sb_sigframe) - sizeof(struct ptrec_sb_regs) -
	     sizeof(struct ptrec_sb_untraced);
	snprintf(where, sizeof(where), "offset %zu", at);
	/* Truncated in its header, in its body. */
	expect_stream(buf, at + 10, -EBADMSG, PTREC_SB_EXIT_FUTEX - 1,
		      "truncated record header");
	expect_stream(buf, at + 10, -EBADMSG, PTREC_SB_EXIT_FUTEX - 1,
		      where);
	expect_stream(buf, at + sizeof(xf) - 8, -EBADMSG,
		      PTREC_SB_EXIT_FUTEX - 1, "runs past");
	expect_stream(buf, at + sizeof(xf) - 8, -EBADMSG,
		      PTREC_SB_EXIT_FUTEX - 1, where);
	/* Shorter than its fixed part, the size said so. */
	memcpy(cp, buf, len);
	xf.hdr.size = 72;
	memcpy(cp + at + offsetof(struct ptrec_sb_header, size),
	       &xf.hdr.size, 4);
	expect_stream(cp, at + sizeof(xf) - 8, -EBADMSG,
		      PTREC_SB_EXIT_FUTEX - 1,
		      "EXIT_FUTEX record of 72 bytes, needs at least 80");
	/* (robust_next 0: a list whose next is 0, valid.) */
	expect_damage(buf, len, at, sizeof(xf), bad,
		      sizeof(bad) / sizeof(bad[0]), PTREC_SB_EXIT_FUTEX - 1,
		      "xf.sb");
	/* A thread with neither (a fork child that exits at once): valid. */
	memset(&xf, 0, sizeof(xf));
	xf.hdr.type = PTREC_SB_EXIT_FUTEX;
	xf.known = PTREC_SB_FUTEX_CTID | PTREC_SB_FUTEX_ROBUST;
	cr_assert_eq(sb_writer_open(&w, tmp_path("xf.sb"), &err), 0);
	cr_assert_eq(sb_writer_add(w, &xf.hdr, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_writer_close(w, &err), 0);
	free(cp);
	free(buf);
}

Test(stream, regs_damage_names_its_offset)
{
	static const struct damage bad[] = {
		{ offsetof(struct ptrec_sb_regs, where), 3, 4,
		  "REGS of thread 172: unknown place 3" },
		{ offsetof(struct ptrec_sb_regs, where), 0, 4,
		  "unknown place 0" },
		{ offsetof(struct ptrec_sb_regs, valid), 1ull << 27, 8,
		  "valid bits 0x8000000 past its 27 registers" },
		{ offsetof(struct ptrec_sb_regs, regs[SB_REG_GS]), 0x2b, 8,
		  "register 23 set but not valid" },
	};
	size_t len, at;
	uint8_t *buf = good_stream(&len);
	uint8_t *cp = malloc(len);
	struct ptrec_sb_regs rg;

	/* Before the last record, UNTRACED's 48 bytes. */
	at = len - sizeof(struct ptrec_sb_regs) -
	     sizeof(struct ptrec_sb_untraced);
	/* Shorter than its fixed part, the size said so. */
	memcpy(cp, buf, len);
	rg.hdr.size = 248;
	memcpy(cp + at + offsetof(struct ptrec_sb_header, size),
	       &rg.hdr.size, 4);
	expect_stream(cp, at + 248, -EBADMSG, PTREC_SB_REGS - 1,
		      "REGS record of 248 bytes, needs at least 256");
	expect_damage(buf, len, at, sizeof(rg), bad,
		      sizeof(bad) / sizeof(bad[0]), PTREC_SB_REGS - 1,
		      "rg.sb");
	free(cp);
	free(buf);
}
