// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libptrec's snapshot reader (replay/snapshot.c): processes, threads and
 * mappings of a bundle's snapshot, memory from the snapshot and, for
 * read-only file mappings, from the image store; a bundle without one
 * and a damaged one give their errors with a message.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"
#include "sideband.h"

static char dir[64];

static void setup(void)
{
	char tmpl[] = "/tmp/ptrec-rpsnap-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/b", tmpl);
}

static void teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'", (int)(strlen(dir) - 2),
		 dir);
	if (system(cmd))
		cr_log_warn("cannot remove %s", dir);
}

TestSuite(rp_snapshot, .init = setup, .fini = teardown);

static uint8_t heap[4096];
/* The image mapping's ctime and file flags (snapshot 5). */
static uint64_t img_ctime = 1764000000223456789ull;
static uint32_t img_flags;

/* A bundle whose snapshot maps /bin/true read-only at 0x400000 (from the
 * image store) and a heap page at 0x600000; @with_snap false: none.
 */
static void make_bundle(bool with_snap)
{
	struct sb_bundle *b;
	struct sb_snap_writer *w;
	struct sb_err err;
	char key[SB_IMAGE_KEY_MAX];
	struct sb_snap_proc p = { .pid = 42, .ppid = 1,
				  .end = SB_SNAP_END_EXIT, .exe = "/bin/true",
				  .start_ns = 1764000000123456789ull };
	struct sb_snap_thread t = { .tid = 43 };
	struct sb_snap_map img = { .start = 0x400000, .end = 0x401000,
				   .pgoff = 0, .prot = SB_SNAP_R,
				   .content = SB_SNAP_IMAGE,
				   .path = "/bin/true", .ino = 5,
				   .mtime_ns = 1700000000000000001ull,
				   .ctime_ns = img_ctime,
				   .fs_type = 0xef53,
				   .file_flags = img_flags };
	struct sb_snap_map hp = { .start = 0x600000, .end = 0x601000,
				  .prot = SB_SNAP_R | SB_SNAP_W,
				  .content = SB_SNAP_DATA, .path = "[heap]",
				  .data = heap };
	unsigned int i;

	for (i = 0; i < sizeof(heap); i++)
		heap[i] = (uint8_t)(i ^ 0x5a);
	t.regs[16] = 0x400123;
	cr_assert_eq(sb_bundle_create(&b, dir, &err), 0, "%s", err.msg);
	sb_bundle_manifest(b)->backend = strdup("emu");
	cr_assert_eq(sb_bundle_add_image_file(b, "/bin/true", key, sizeof(key),
					      &err), 0, "%s", err.msg);
	if (with_snap) {
		cr_assert_eq(sb_bundle_open_snapshot(b, &w, &err), 0);
		cr_assert_eq(sb_snap_writer_proc(w, &p, &err), 0);
		cr_assert_eq(sb_snap_writer_thread(w, &t, &err), 0);
		cr_assert_eq(sb_snap_writer_map(w, &img, &err), 0);
		cr_assert_eq(sb_snap_writer_map(w, &hp, &err), 0);
	}
	cr_assert_eq(sb_bundle_finish(b, &err), 0, "%s", err.msg);
	sb_bundle_free(b);
}

/* make_bundle(true) in a fresh @dir, its snapshot opened. */
static struct rp_snapshot *open_new(void)
{
	struct rp_snapshot *sn;

	teardown();
	setup();
	make_bundle(true);
	cr_assert_eq(rp_snapshot_open(&sn, dir), 0, "%s",
		     rp_snapshot_errmsg(sn));
	return sn;
}

/* open_new()'s image mapping (/bin/true at 0x400000). */
static struct rp_snap_map_info image_map(void)
{
	struct rp_snapshot *sn = open_new();
	struct rp_snap_map_info m;

	cr_assert_eq(rp_snapshot_proc_map(sn, 42, 0, &m), 0);
	rp_snapshot_close(sn);
	return m;
}

Test(rp_snapshot, reads_processes_threads_memory)
{
	struct rp_snapshot *sn;
	struct rp_snap_proc_info p;
	struct rp_snap_thread_info t;
	struct rp_snap_map_info m;
	uint8_t buf[32], file[32];
	int fd;

	sn = open_new();
	cr_assert_eq(rp_snapshot_proc_count(sn), 1);
	cr_assert_eq(rp_snapshot_proc(sn, 0, &p), 0);
	cr_assert_eq(p.pid, 42);
	cr_assert_str_eq(p.end_name, "exit");
	cr_assert_eq(p.data_bytes, 4096);
	cr_assert_eq(rp_snapshot_proc(sn, 1, &p), -RP_ERR_RANGE);
	cr_assert_eq(rp_snapshot_proc_by_pid(sn, 7, &p), -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_snapshot_thread(sn, 43, &t), 0);
	cr_assert_eq(t.pid, 42);
	cr_assert_eq(t.regs[16], 0x400123);
	cr_assert_eq(rp_snapshot_thread(sn, 44, &t), -RP_ERR_NOTFOUND);
	cr_assert_eq(rp_snapshot_proc_map(sn, 42, 1, &m), 0);
	cr_assert_eq(m.content, RP_SNAP_DATA);
	cr_assert_eq(rp_snapshot_read(sn, 42, 0x600010, buf, 32, false), 32);
	cr_assert_eq(memcmp(buf, heap + 16, 32), 0);
	/* The image mapping: only with images, from the store's copy. */
	cr_assert_eq(rp_snapshot_read(sn, 42, 0x400000, buf, 32, false), 0);
	cr_assert_eq(rp_snapshot_read(sn, 42, 0x400000, buf, 32, true), 32);
	fd = open("/bin/true", O_RDONLY);
	cr_assert_eq(read(fd, file, 32), 32);
	close(fd);
	cr_assert_eq(memcmp(buf, file, 32), 0);
	cr_assert_eq(rp_snapshot_read(sn, 42, 0x500000, buf, 32, true), 0);
	rp_snapshot_close(sn);
}

Test(rp_snapshot, none_and_damaged)
{
	struct rp_snapshot *sn;
	char path[128];
	uint8_t b;
	int fd;

	make_bundle(false);
	cr_assert_eq(rp_snapshot_open(&sn, dir), -RP_ERR_NOTFOUND);
	cr_assert(strstr(rp_snapshot_errmsg(sn), "no snapshot"), "%s",
		  rp_snapshot_errmsg(sn));
	rp_snapshot_close(sn);
	teardown();
	setup();
	make_bundle(true);
	snprintf(path, sizeof(path), "%s/snapshot.ptsnap", dir);
	fd = open(path, O_RDWR);
	cr_assert(fd >= 0);
	cr_assert_eq(pread(fd, &b, 1, 40), 1);
	b ^= 0xff;
	cr_assert_eq(pwrite(fd, &b, 1, 40), 1);
	close(fd);
	cr_assert_eq(rp_snapshot_open(&sn, dir), -RP_ERR_BUNDLE);
	cr_assert(strstr(rp_snapshot_errmsg(sn), "snapshot.ptsnap: byte offset"),
		  "%s", rp_snapshot_errmsg(sn));
	rp_snapshot_close(sn);
}

/*
 * rp_snapshot_changed() (snapshot 5, docs/values.md "Files"): a time at
 * or after the recording's start, rounded down to the time's own
 * granularity (the largest power of ten up to 1 s dividing its
 * nanoseconds; 2 s for whole seconds), is a change during it; either
 * time, or nothing known, suffices.
 */
Test(rp_snapshot, file_changed_since)
{
	const uint64_t s = 1764000000123456789ull;	/* the start */

	cr_assert(!rp_snapshot_changed(s, s - 1000, s - 1));
	cr_assert(rp_snapshot_changed(s, s - 1000, s), "equal");
	cr_assert(rp_snapshot_changed(s, s, s - 1), "mtime alone");
	cr_assert(rp_snapshot_changed(0, 1, 1), "start not known");
	cr_assert(rp_snapshot_changed(s, 1, 0), "ctime not known");
	cr_assert(!rp_snapshot_changed(s, 0, s - 1), "mtime 0 is a time");
	/* a ctime in microseconds, tenths, nanoseconds */
	cr_assert(!rp_snapshot_changed(s, s - 1000,
				       1764000000123456000ull - 1000),
		  "microseconds, the one before the start's");
	cr_assert(rp_snapshot_changed(s, s - 1000, 1764000000123456000ull),
		  "microseconds: the start's, rounded down");
	cr_assert(rp_snapshot_changed(s, s - 1000, 1764000000100000000ull),
		  "tenths of a second");
	cr_assert(!rp_snapshot_changed(s, s - 1000, 1764000000000000001ull));
	/* whole seconds: 2 s (FAT) */
	cr_assert(rp_snapshot_changed(s, s - 1000, 1764000000000000000ull),
		  "the start's second");
	cr_assert(!rp_snapshot_changed(s, s - 1000, 1763999998000000000ull),
		  "two seconds before");
	cr_assert(rp_snapshot_changed(1764000001123456789ull, 1,
				      1764000000000000000ull),
		  "whole seconds: 2 s, an odd second after it");
}

/* The times read back through rp_snapshot_proc_map(), and written. */
Test(rp_snapshot, map_times)
{
	struct rp_snap_map_info m;
	struct rp_snapshot *sn = open_new();

	cr_assert_eq(rp_snapshot_proc_map(sn, 42, 0, &m), 0);
	cr_assert(m.times);
	cr_assert_eq(m.mtime_ns, 1700000000000000001ull);
	cr_assert_eq(m.ctime_ns, 1764000000223456789ull);
	cr_assert_eq(m.fs_type, 0xef53);
	cr_assert(m.written, "ctime after the start");
	cr_assert(!m.unstamped);
	cr_assert_eq(rp_snapshot_proc_map(sn, 42, 1, &m), 0);
	cr_assert(m.times && !m.written, "the heap: no file");
	rp_snapshot_close(sn);
}

/* A file on tmpfs mapped shared by some process at the end (the
 * recorder's SB_SNAP_FILE_UNSTAMPED): written, whatever its times say.
 */
Test(rp_snapshot, unstamped_is_written)
{
	struct rp_snap_map_info m;

	img_ctime = 1700000000000000002ull;	/* before the start */
	m = image_map();
	cr_assert(!m.written && !m.unstamped, "old times, no flag");
	img_flags = SB_SNAP_FILE_UNSTAMPED;
	m = image_map();
	cr_assert(m.written && m.unstamped, "old times, unstamped");
}
