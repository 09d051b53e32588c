// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The snapshot part (sideband/snapshot.c): what the writer writes the
 * reader gives back, and every kind of bad input is refused with a message
 * naming the file and the byte offset: truncated, damaged, overlapping
 * mappings, wrong magic or version.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <zstd.h>

#include "helpers.h"
#include "sideband.h"

TestSuite(snapshot, .init = test_dir_setup, .fini = test_dir_teardown);

static uint8_t page_a[8192], fx[512], xs[832];

/* One process, two threads, three mappings (data, image, over the limit). */
static void write_snap(const char *path, bool overlap)
{
	struct sb_snap_writer *w;
	struct sb_err err;
	struct sb_snap_proc p = { .pid = 100, .ppid = 1,
				  .end = SB_SNAP_END_SIGNAL, .status = 11,
				  .exe = "/bin/prog" };
	static const uint8_t auxv[32] = { 6, 0, 0, 0, 0, 0, 0, 0,
					  0, 16 };
	struct sb_snap_thread t = { .tid = 100, .has_siginfo = 1,
				    .fpregs = fx, .fpregs_len = sizeof(fx),
				    .xstate = xs, .xstate_len = sizeof(xs) };
	struct sb_snap_map m1 = { .start = 0x10000, .end = 0x12000,
				  .prot = SB_SNAP_R | SB_SNAP_W,
				  .content = SB_SNAP_DATA, .path = "[heap]",
				  .data = page_a };
	struct sb_snap_map m2 = { .start = 0x20000, .end = 0x21000,
				  .pgoff = 0x3000, .prot = SB_SNAP_R | SB_SNAP_X,
				  .content = SB_SNAP_IMAGE, .path = "/bin/prog" };
	struct sb_snap_map m3 = { .start = 0x30000, .end = 0x40000,
				  .prot = SB_SNAP_R | SB_SNAP_W,
				  .content = SB_SNAP_OVER_LIMIT, .path = "" };
	unsigned int i;

	for (i = 0; i < sizeof(page_a); i++)
		page_a[i] = (uint8_t)(i * 7);
	for (i = 0; i < sizeof(fx); i++)
		fx[i] = (uint8_t)i;
	for (i = 0; i < 27; i++)
		t.regs[i] = 0x1000 + i;
	t.siginfo[0] = 11;
	p.auxv = auxv;
	p.auxv_len = sizeof(auxv);
	if (overlap)
		m2.start = 0x11000;
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_thread(w, &t, &err), 0, "%s", err.msg);
	t.tid = 101;
	t.has_siginfo = 0;
	t.xstate = NULL;
	cr_assert_eq(sb_snap_writer_thread(w, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_map(w, &m1, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_map(w, &m2, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_map(w, &m3, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_data_bytes(w), 8192);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
}

Test(snapshot, round_trip)
{
	char path[128], tmp[128];
	struct sb_snapshot *s;
	const struct sb_snap_proc *p;
	const struct sb_snap_thread *t;
	struct sb_err err;
	uint8_t buf[16];

	tpath(path, sizeof(path), "snap");
	write_snap(path, false);
	cr_assert(!file_exists(tpath(tmp, sizeof(tmp), "snap.tmp")),
		  "the temporary file is renamed");
	cr_assert_eq(sb_snap_load(&s, path, &err), 0, "%s", err.msg);
	cr_assert_eq(s->nprocs, 1);
	p = sb_snap_proc(s, 100);
	cr_assert_not_null(p);
	cr_assert_eq(p->end, SB_SNAP_END_SIGNAL);
	cr_assert_eq(p->status, 11);
	cr_assert_str_eq(p->exe, "/bin/prog");
	cr_assert_eq(p->auxv_len, 32);
	cr_assert_eq(p->nthreads, 2);
	cr_assert_eq(p->nmaps, 3);
	t = sb_snap_thread(s, 101, &p);
	cr_assert_not_null(t);
	cr_assert_eq(t->regs[16], 0x1000 + 16);
	cr_assert_eq(t->fpregs_len, 512);
	cr_assert_eq(memcmp(t->fpregs, fx, 512), 0);
	cr_assert_null(t->xstate);
	cr_assert(!t->has_siginfo);
	t = sb_snap_thread(s, 100, NULL);
	cr_assert_eq(t->xstate_len, sizeof(xs));
	cr_assert(t->has_siginfo && t->siginfo[0] == 11);
	cr_assert_str_eq(p->maps[1].path, "/bin/prog");
	cr_assert_eq(p->maps[1].pgoff, 0x3000);
	cr_assert_null(p->maps[2].data);
	/* Memory: only what SB_SNAP_DATA mappings hold. */
	cr_assert_eq(sb_snap_read_mem(p, 0x10ff8, buf, 16), 16);
	cr_assert_eq(memcmp(buf, page_a + 0xff8, 16), 0);
	cr_assert_eq(sb_snap_read_mem(p, 0x11ff8, buf, 16), 8,
		     "stops at the end of the data");
	cr_assert_eq(sb_snap_read_mem(p, 0x20000, buf, 16), 0,
		     "an image mapping is not in the snapshot");
	cr_assert_eq(sb_snap_read_mem(p, 0x5000, buf, 16), 0);
	sb_snap_free(s);
}

static void expect_bad(const void *buf, size_t len, int code, const char *want)
{
	struct sb_snapshot *s = (void *)1;
	struct sb_err err;
	int ret = sb_snap_load_mem(&s, buf, len, "snap.ptsnap", &err);

	cr_assert_eq(ret, code, "got %d: %s", ret, err.msg);
	cr_assert_null(s);
	assert_msg_has(&err, "snap.ptsnap");
	assert_msg_has(&err, want);
}

Test(snapshot, overlapping_mappings)
{
	char path[128];
	size_t len;
	char *b;

	write_snap(tpath(path, sizeof(path), "snap"), true);
	b = read_bytes(path, &len);
	expect_bad(b, len, -EBADMSG, "overlaps");
	free(b);
}

Test(snapshot, truncated_and_damaged)
{
	char path[128];
	size_t len, cut;
	char *b;

	write_snap(tpath(path, sizeof(path), "snap"), false);
	b = read_bytes(path, &len);
	expect_bad(b, 10, -EBADMSG, "truncated header");
	for (cut = SB_SNAP_HEADER_SIZE; cut < len; cut += 97)
		expect_bad(b, cut, -EBADMSG, "byte offset");
	b[len / 2] ^= 0x40;
	expect_bad(b, len, -EBADMSG, "damaged compressed data");
	b[len / 2] ^= 0x40;
	b[0] = 'X';
	expect_bad(b, len, -EBADMSG, "bad magic");
	b[0] = 'P';
	b[8] = SB_SNAP_VERSION + 1;
	expect_bad(b, len, -EPROTONOSUPPORT, "upgrade ptrec");
	b[8] = SB_SNAP_VERSION;
	b[16] ^= 1;	/* the header's decompressed size */
	expect_bad(b, len, -EBADMSG, "byte offset");
	free(b);
}

Test(snapshot, records_checked)
{
	/* Records made by hand, compressed by the writer's format: a
	 * thread before its process, an unknown type, no end record.
	 */
	struct sb_snap_writer *w;
	struct sb_snap_thread t = { .tid = 5 };
	struct sb_err err;
	char path[128];
	size_t len;
	char *b;

	tpath(path, sizeof(path), "snap");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_thread(w, &t, &err), 0);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0);
	b = read_bytes(path, &len);
	expect_bad(b, len, -EBADMSG, "before any process");
	free(b);
}

/*
 * Regression: the writer took an end kind of 0, which its own reader
 * refuses ("unknown end kind"); both now share one check of each record's
 * fields, so what the writer refuses is what the reader would, and a
 * snapshot it writes always reads back.
 */
Test(snapshot, writer_refuses_what_the_reader_would)
{
	struct sb_snap_writer *w;
	struct sb_snap_proc p = { .pid = 7, .end = 0, .exe = "/bin/x" };
	struct sb_snap_map m = { .start = 0x1000, .end = 0x2000,
				 .content = SB_SNAP_IMAGE, .path = "/bin/x" };
	struct sb_snapshot *s;
	struct sb_err err;
	char path[128];

	tpath(path, sizeof(path), "snap");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), -EINVAL);
	cr_assert(strstr(err.msg, "process 7: process record: unknown end kind (0)"),
		  "%s", err.msg);
	p.end = SB_SNAP_END_EXEC + 1;
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), -EINVAL);
	p.end = SB_SNAP_END_EXIT;
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	m.end = 0x1800;
	cr_assert_eq(sb_snap_writer_map(w, &m, &err), -EINVAL);
	cr_assert(strstr(err.msg, "not a page-aligned range"), "%s", err.msg);
	m.end = 0x2000;
	m.content = SB_SNAP_UNREADABLE + 1;
	cr_assert_eq(sb_snap_writer_map(w, &m, &err), -EINVAL);
	cr_assert(strstr(err.msg, "unknown content kind"), "%s", err.msg);
	m.content = SB_SNAP_IMAGE;
	cr_assert_eq(sb_snap_writer_map(w, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	/* what was refused is not in it: it reads back whole */
	cr_assert_eq(sb_snap_load(&s, path, &err), 0, "%s", err.msg);
	cr_assert_eq(s->nprocs, 1);
	cr_assert_eq(s->procs[0].nmaps, 1);
	sb_snap_free(s);
}

Test(snapshot, bundle_lists_it)
{
	struct sb_bundle *bd;
	struct sb_snap_writer *w;
	struct sb_manifest *m;
	struct sb_snap_proc p = { .pid = 7, .end = SB_SNAP_END_EXIT };
	struct sb_err err;
	char dir[128];
	size_t i;
	bool listed = false;

	tpath(dir, sizeof(dir), "b");
	cr_assert_eq(sb_bundle_create(&bd, dir, &err), 0, "%s", err.msg);
	sb_bundle_manifest(bd)->backend = strdup("emu");
	cr_assert_eq(sb_bundle_open_snapshot(bd, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_bundle_open_snapshot(bd, &w, &err), -EBUSY);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0);
	cr_assert_eq(sb_bundle_finish(bd, &err), 0, "%s", err.msg);
	sb_bundle_free(bd);
	cr_assert_eq(sb_manifest_load(&m, dir, &err), 0, "%s", err.msg);
	cr_assert_str_eq(m->snapshot, "snapshot.ptsnap");
	cr_assert_eq(m->format_version, 2);
	for (i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i].path, "snapshot.ptsnap") &&
		    !strcmp(m->files[i].kind, "snapshot"))
			listed = true;
	cr_assert(listed, "the part is listed in files");
	sb_manifest_free(m);
}

/* A process that called execve: one record per image, the same thread in
 * both; lookups give the last image unless a generation is asked for.
 */
Test(snapshot, exec_generations)
{
	struct sb_snap_proc p = { .pid = 100, .ppid = 1,
				  .end = SB_SNAP_END_EXEC, .exe = "/bin/old" };
	struct sb_snap_thread t = { .tid = 100 };
	const struct sb_snap_proc *got;
	struct sb_snap_writer *w;
	struct sb_snapshot *s;
	struct sb_err err;
	char path[128];
	size_t len;
	char *b;

	tpath(path, sizeof(path), "snap");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	t.regs[16] = 0x1111;
	cr_assert_eq(sb_snap_writer_thread(w, &t, &err), 0, "%s", err.msg);
	p.gen = 1;
	p.end = SB_SNAP_END_EXIT;
	p.exe = "/bin/new";
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	t.regs[16] = 0x2222;
	cr_assert_eq(sb_snap_writer_thread(w, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_load(&s, path, &err), 0, "%s", err.msg);
	cr_assert_eq(s->nprocs, 2);
	cr_assert_str_eq(sb_snap_proc(s, 100)->exe, "/bin/new");
	got = sb_snap_proc_gen(s, 100, 0);
	cr_assert_not_null(got);
	cr_assert_str_eq(got->exe, "/bin/old");
	cr_assert_eq(got->end, SB_SNAP_END_EXEC);
	cr_assert_eq(got->threads[0].regs[16], 0x1111);
	cr_assert_null(sb_snap_proc_gen(s, 100, 2));
	cr_assert_eq(sb_snap_thread(s, 100, &got)->regs[16], 0x2222);
	cr_assert_eq(got->gen, 1);
	sb_snap_free(s);

	/* The same generation twice is refused. */
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0, "%s", err.msg);
	p.gen = 0;
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	b = read_bytes(path, &len);
	expect_bad(b, len, -EBADMSG, "process listed twice");
	free(b);
}

static void put32le(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* @raw (records) compressed into a snapshot file of version @ver in @file. */
static size_t make_snap(uint8_t *file, size_t cap, const uint8_t *raw,
			size_t len, uint32_t ver)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint64_t size = len;
	size_t n;

	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(cc, file + 32, cap - 32, raw, len);
	ZSTD_freeCCtx(cc);
	cr_assert(!ZSTD_isError(n));
	memset(file, 0, 32);
	memcpy(file, SB_SNAP_MAGIC, 8);
	put32le(file + 8, ver);
	memcpy(file + 16, &size, 8);
	return 32 + n;
}

/* A PROCESS record of versions 2 to 4 at @raw (16 + 32 + "/p" padded):
 * pid 7, exited, its exe "/p".
 */
static void put_proc(uint8_t *raw)
{
	put32le(raw, 1);
	put32le(raw + 8, 56);
	put32le(raw + 16, 7);		/* pid */
	put32le(raw + 24, SB_SNAP_END_EXIT);
	put32le(raw + 32, 3);		/* exe_len */
	memcpy(raw + 48, "/p", 3);
}

/* The fixed start of a MAPPING record of @size bytes at @raw (version 3
 * or 4): 0x1000-0x2000, readable, from the image store, an 8-byte path.
 */
static void put_map(uint8_t *raw, uint32_t size)
{
	put32le(raw, 3);
	put32le(raw + 8, size);
	put32le(raw + 16, 0x1000);	/* start */
	put32le(raw + 24, 0x2000);	/* end */
	put32le(raw + 40, SB_SNAP_R);
	put32le(raw + 44, SB_SNAP_IMAGE);
	put32le(raw + 48, 8);		/* path_len */
}

/* The END record at @raw: @nproc processes. */
static void put_end(uint8_t *raw, uint8_t nproc)
{
	put32le(raw, 4);
	put32le(raw + 8, 24);
	raw[16] = nproc;
}

/* The snapshot in @file (@n bytes), which must load. */
static struct sb_snapshot *load_ok(const uint8_t *file, size_t n,
				   const char *name)
{
	struct sb_snapshot *s;
	struct sb_err err;

	cr_assert_eq(sb_snap_load_mem(&s, file, n, name, &err), 0, "%s",
		     err.msg);
	return s;
}

/* Version 1 (no exec generation, 24 fixed bytes a PROCESS) is still read. */
Test(snapshot, reads_version_1)
{
	uint8_t raw[72] = { 0 }, file[512];
	const struct sb_snap_proc *p;
	struct sb_snapshot *s;
	size_t n;

	put32le(raw, 1);		/* PROCESS, 16 + 24 + "/p" padded */
	put32le(raw + 8, 48);
	put32le(raw + 16, 7);		/* pid */
	put32le(raw + 20, 1);		/* ppid */
	put32le(raw + 24, SB_SNAP_END_EXIT);
	put32le(raw + 28, 3);		/* status */
	put32le(raw + 32, 3);		/* exe_len */
	memcpy(raw + 40, "/p", 3);
	put_end(raw + 48, 1);
	n = make_snap(file, sizeof(file), raw, sizeof(raw), 1);
	s = load_ok(file, n, "v1.ptsnap");
	p = sb_snap_proc(s, 7);
	cr_assert_not_null(p);
	cr_assert_str_eq(p->exe, "/p");
	cr_assert_eq(p->status, 3);
	cr_assert_eq(p->gen, 0);
	sb_snap_free(s);
}

/*
 * Version 3 (no device and inode, 40 fixed bytes a MAPPING, 8 bytes a
 * descriptor, kinds other, memory, unknown) is still read, without ids
 * (has_ids false: the values engine then compares files by path); a
 * version-4 kind in it is damage.
 */
Test(snapshot, reads_version_3)
{
	uint8_t raw[184] = { 0 }, file[1024];
	const struct sb_snap_proc *p;
	struct sb_snapshot *s;
	size_t n;

	put_proc(raw);
	put_map(raw + 56, 64);		/* 16 + 40 + "/f" padded */
	memcpy(raw + 112, "/f", 3);
	put32le(raw + 120, 5);		/* FDS, 16 + 8 + 2 x 8 */
	put32le(raw + 128, 40);
	put32le(raw + 136, 2);
	put32le(raw + 144, 0);		/* fd 0: other */
	put32le(raw + 152, 3);		/* fd 3: memory */
	put32le(raw + 156, SB_SNAP_FD_MEM);
	put_end(raw + 160, 1);
	n = make_snap(file, sizeof(file), raw, sizeof(raw), 3);
	s = load_ok(file, n, "v3.ptsnap");
	p = sb_snap_proc(s, 7);
	cr_assert(p && !p->has_ids && p->has_fds && p->nmaps == 1);
	cr_assert_str_eq(p->maps[0].path, "/f");
	cr_assert_eq(p->maps[0].ino, 0);
	cr_assert_eq(p->nfds, 2);
	cr_assert_eq(p->fds[1].fd, 3);
	cr_assert_eq(p->fds[1].kind, SB_SNAP_FD_MEM);
	sb_snap_free(s);
	put32le(raw + 156, SB_SNAP_FD_REG);
	n = make_snap(file, sizeof(file), raw, sizeof(raw), 3);
	expect_bad((char *)file, n, -EBADMSG, "unknown descriptor kind");
}

/*
 * Version 4 (56 fixed bytes a MAPPING, 32 a PROCESS: no start time, no
 * file times) is still read, without times (has_times false: the values
 * engine then keeps version 4's rule for files).
 */
Test(snapshot, reads_version_4)
{
	uint8_t raw[160] = { 0 }, file[1024];
	const struct sb_snap_proc *p;
	struct sb_snapshot *s;
	size_t n;

	put_proc(raw);
	put_map(raw + 56, 80);		/* 16 + 56 + "/f" padded */
	put32le(raw + 112, 254);	/* dev_major */
	put32le(raw + 120, 77);		/* ino */
	memcpy(raw + 128, "/f", 3);
	put_end(raw + 136, 1);
	n = make_snap(file, sizeof(file), raw, sizeof(raw), 4);
	s = load_ok(file, n, "v4.ptsnap");
	p = sb_snap_proc(s, 7);
	cr_assert(p && p->has_ids && !p->has_times && p->nmaps == 1);
	cr_assert_eq(p->start_ns, 0);
	cr_assert_str_eq(p->maps[0].path, "/f");
	cr_assert_eq(p->maps[0].ino, 77);
	cr_assert_eq(p->maps[0].dev_major, 254);
	cr_assert_eq(p->maps[0].ctime_ns, 0);
	cr_assert_eq(p->maps[0].mtime_ns, 0);
	sb_snap_free(s);
}

/*
 * Version 4: every mapping's and descriptor's device and inode, and the
 * descriptor's type, read back as written; an inode on a descriptor whose
 * file is not known is refused by the writer and the reader alike.
 */
Test(snapshot, ids_version_4)
{
	static const struct sb_snap_fd fds[] = {
		{ 0, SB_SNAP_FD_TTY, 0, 25, 3 },
		{ 4, SB_SNAP_FD_REG, 254, 0, 10956265 },
		{ 5, SB_SNAP_FD_MEMFD, 0, 1, 1025 },
		{ 6, SB_SNAP_FD_UNKNOWN, 0, 0, 0 },
	};
	struct sb_snap_fd bad_fd = { 3, SB_SNAP_FD_UNKNOWN, 0, 0, 12 };
	struct sb_snap_map m = { .start = 0x20000000, .end = 0x20001000,
				 .prot = SB_SNAP_R, .content = SB_SNAP_IMAGE,
				 .path = "/tmp/f", .dev_major = 254,
				 .ino = 10956265,
				 .mtime_ns = 1764111111123456789ull,
				 .ctime_ns = 1764111112000000001ull,
				 .fs_type = 0x01021994,
				 .file_flags = SB_SNAP_FILE_UNSTAMPED };
	struct sb_snap_proc p = { .pid = 9, .end = SB_SNAP_END_EXIT,
				  .exe = "/p",
				  .start_ns = 1764111110999999999ull };
	const struct sb_snap_proc *q;
	struct sb_snap_writer *w;
	struct sb_snapshot *s;
	struct sb_err err;
	char path[128], *b;
	size_t len, k;

	tpath(path, sizeof(path), "snap");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_fds(w, &bad_fd, 1, &err), -EINVAL);
	cr_assert(strstr(err.msg, "an inode for a descriptor of unknown"),
		  "%s", err.msg);
	bad_fd.ino = 0;
	bad_fd.kind = SB_SNAP_FD_KIND_MAX + 1;
	cr_assert_eq(sb_snap_writer_fds(w, &bad_fd, 1, &err), -EINVAL);
	cr_assert_eq(sb_snap_writer_fds(w, fds, 4, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_map(w, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_load(&s, path, &err), 0, "%s", err.msg);
	q = sb_snap_proc(s, 9);
	cr_assert(q && q->has_ids && q->nfds == 4 && q->nmaps == 1);
	for (k = 0; k < 4; k++) {
		cr_assert_eq(q->fds[k].fd, fds[k].fd);
		cr_assert_eq(q->fds[k].kind, fds[k].kind);
		cr_assert_eq(q->fds[k].dev_major, fds[k].dev_major);
		cr_assert_eq(q->fds[k].dev_minor, fds[k].dev_minor);
		cr_assert_eq(q->fds[k].ino, fds[k].ino);
	}
	cr_assert_eq(q->maps[0].dev_major, 254);
	cr_assert_eq(q->maps[0].ino, 10956265);
	cr_assert_str_eq(q->maps[0].path, "/tmp/f");
	/* version 5: the recording's start, the file's times and type */
	cr_assert(q->has_times);
	cr_assert_eq(q->start_ns, 1764111110999999999ull);
	cr_assert_eq(q->maps[0].mtime_ns, 1764111111123456789ull);
	cr_assert_eq(q->maps[0].ctime_ns, 1764111112000000001ull);
	cr_assert_eq(q->maps[0].fs_type, 0x01021994);
	cr_assert_eq(q->maps[0].file_flags, SB_SNAP_FILE_UNSTAMPED);
	sb_snap_free(s);

	/* the reader refuses what the writer would: an unknown descriptor
	 * with an inode, written by hand (the writer checks first)
	 */
	tpath(path, sizeof(path), "snap2");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_fds(w, &fds[3], 1, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	b = read_bytes(path, &len);
	{
		/* decompress, set the inode (fds entry at 16 + 64 + 16 +
		 * 8 + 16), compress again
		 */
		uint8_t raw[256], file[1024];
		size_t rl = ZSTD_decompress(raw, sizeof(raw), b + 32,
					    len - 32);

		cr_assert(!ZSTD_isError(rl) && rl == 64 + 48 + 24);
		cr_assert_eq(raw[64], 5);	/* the FDS record */
		raw[64 + 16 + 8 + 16] = 12;
		len = make_snap(file, sizeof(file), raw, rl, SB_SNAP_VERSION);
		expect_bad((char *)file, len, -EBADMSG,
			   "an inode for a descriptor of unknown");
	}
	free(b);
}

/*
 * Version 3: a process's descriptors at its end and its threads' rseq
 * areas (the values engine's procmem and rseq rules) read back as
 * written; a second list for one process, an unsorted list, an unknown
 * kind or flag are refused by the writer and the reader alike, and a
 * version-2 snapshot cannot hold them.
 */
Test(snapshot, fds_and_rseq)
{
	static const struct sb_snap_fd fds[] = {
		{ 0, SB_SNAP_FD_OTHER, 0, 0, 0 },
		{ 1, SB_SNAP_FD_OTHER, 0, 0, 0 },
		{ 3, SB_SNAP_FD_MEM, 0, 0, 0 },
		{ 9, SB_SNAP_FD_UNKNOWN, 0, 0, 0 },
	};
	static const struct sb_snap_rseq rs[] = {
		{ 0x7f0000001000, 32, 100 }, { 0x404040, 32, 101 },
	};
	struct sb_snap_fd bad_fds[2] = { { 4, 0, 0, 0, 0 }, { 4, 0, 0, 0, 0 } };
	struct sb_snap_proc p = { .pid = 100, .end = SB_SNAP_END_EXIT,
				  .exe = "/p" };
	const struct sb_snap_proc *q;
	struct sb_snap_writer *w;
	struct sb_snapshot *s;
	struct sb_err err;
	char path[128], *b;
	size_t len;

	tpath(path, sizeof(path), "snap");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_fds(w, bad_fds, 2, &err), -EINVAL);
	cr_assert(strstr(err.msg, "not in increasing order"), "%s", err.msg);
	bad_fds[1].fd = 5;
	bad_fds[1].kind = SB_SNAP_FD_KIND_MAX + 1;
	cr_assert_eq(sb_snap_writer_fds(w, bad_fds, 2, &err), -EINVAL);
	cr_assert(strstr(err.msg, "unknown descriptor kind"), "%s", err.msg);
	cr_assert_eq(sb_snap_writer_rseq(w, rs, 2, 2, &err), -EINVAL);
	cr_assert_eq(sb_snap_writer_fds(w, fds, 4, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_rseq(w, rs, 2, SB_SNAP_RSEQ_COMPLETE,
					 &err), 0, "%s", err.msg);
	p.pid = 200;
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_fds(w, NULL, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_load(&s, path, &err), 0, "%s", err.msg);
	q = sb_snap_proc(s, 100);
	cr_assert(q && q->has_fds && q->has_rseq);
	cr_assert_eq(q->nfds, 4);
	cr_assert_eq(q->fds[2].fd, 3);
	cr_assert_eq(q->fds[2].kind, SB_SNAP_FD_MEM);
	cr_assert_eq(q->fds[3].kind, SB_SNAP_FD_UNKNOWN);
	cr_assert_eq(q->rseq_flags, SB_SNAP_RSEQ_COMPLETE);
	cr_assert_eq(q->nrseq, 2);
	cr_assert_eq(q->rseq[0].addr, 0x7f0000001000);
	cr_assert_eq(q->rseq[1].tid, 101);
	cr_assert_eq(q->rseq[1].len, 32);
	q = sb_snap_proc(s, 200);
	cr_assert(q && q->has_fds && !q->has_rseq && q->nfds == 0);
	sb_snap_free(s);

	/* twice for one process */
	tpath(path, sizeof(path), "snap2");
	p.pid = 100;
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_rseq(w, rs, 1, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_rseq(w, rs, 1, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	b = read_bytes(path, &len);
	expect_bad(b, len, -EBADMSG, "rseq: listed twice for one process");
	free(b);

	/* the same records in a version-2 snapshot: an unknown type */
	tpath(path, sizeof(path), "snap3");
	cr_assert_eq(sb_snap_writer_open(&w, path, &err), 0);
	cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_fds(w, fds, 4, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_close(w, &err), 0, "%s", err.msg);
	b = read_bytes(path, &len);
	b[8] = 2;
	expect_bad(b, len, -EBADMSG, "unknown record type");
	free(b);
}
