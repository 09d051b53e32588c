// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Ground-truth files: exact round trips of address lists, the on-disk
 * header, rejection of damaged files with the exact errno and offset, and
 * write errors reported by sb_truth_add/sb_truth_close.
 */
#include <inttypes.h>
#include <sys/resource.h>

#include "helpers.h"

TestSuite(truth, .init = test_dir_setup, .fini = test_dir_teardown);

#define HEADER_SIZE 16

/* Address @i of a test list: mixes 0, all ones and ordinary addresses. */
static uint64_t addr(size_t i)
{
	switch (i % 5) {
	case 0:
		return 0x401000 + 4 * i;
	case 1:
		return UINT64_MAX - i;
	case 2:
		return 0;
	case 3:
		return 0x8000000000000000ull | i;
	default:
		return 0x00007f0123456789ull * (i + 1);
	}
}

static void write_truth(const char *path, size_t n)
{
	struct sb_truth_writer *tw = NULL;
	struct sb_err err = { "" };
	size_t i;
	int ret;

	ret = sb_truth_open(&tw, path, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_not_null(tw);
	for (i = 0; i < n; i++)
		cr_assert_eq(sb_truth_add(tw, addr(i)), 0, "add %zu", i);
	ret = sb_truth_close(tw, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
}

static void round_trip(size_t n)
{
	struct sb_err err = { "" };
	uint64_t *ips = NULL;
	size_t count = 12345, i;
	char path[4096];
	int ret;

	tpath(path, sizeof(path), "%zu.gt", n);
	write_truth(path, n);
	cr_assert_eq(file_size(path),
		     HEADER_SIZE + 8 * SB_TRUTH_WORDS * (long long)n);
	ret = sb_truth_load(path, &ips, &count, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_eq(count, n);
	cr_assert_not_null(ips);
	for (i = 0; i < n; i++)
		cr_assert_eq(ips[i], addr(i), "[%zu] %#" PRIx64 " vs %#" PRIx64,
			     i, ips[i], addr(i));
	free(ips);
}

/* A header with the given magic and version, then @extra bytes of zeros. */
static void write_raw(const char *path, const char *magic, uint32_t version,
		      size_t extra)
{
	unsigned char *buf = calloc(1, HEADER_SIZE + extra);

	cr_assert_not_null(buf);
	memcpy(buf, magic, 8);
	memcpy(buf + 8, &version, 4);
	write_bytes(path, buf, HEADER_SIZE + extra);
	free(buf);
}

static void expect_load(const char *path, int code, const char *want)
{
	struct sb_err err = { "" };
	uint64_t *ips = NULL;
	size_t count = 0;
	int ret;

	ret = sb_truth_load(path, &ips, &count, &err);
	cr_assert_eq(ret, code, "got %d (%s)", ret, err.msg);
	cr_assert_null(ips);
	assert_msg_has(&err, path);
	if (want)
		assert_msg_has(&err, want);
}

/* ---- round trips -------------------------------------------------------- */

/* An empty list, one address and 10,000 addresses come back exactly. */
Test(truth, round_trip)
{
	round_trip(0);
	round_trip(1);
	round_trip(10000);
}

/* Counts around likely buffer sizes come back exactly. */
Test(truth, round_trip_buffer_edges)
{
	static const size_t counts[] = {
		511, 512, 513, 4095, 4096, 4097, 8192, 8193, 65537,
	};
	size_t i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		round_trip(counts[i]);
}

/* The file is the 16-byte header ("PTRECGT\0", version 3 little-endian,
 * zero) followed by records of SB_TRUTH_WORDS little-endian 64-bit words:
 * the address, the register mask (0 from sb_truth_add) and the registers.
 */
Test(truth, on_disk_layout)
{
	static const unsigned char head[HEADER_SIZE] = {
		'P', 'T', 'R', 'E', 'C', 'G', 'T', 0, 3, 0, 0, 0, 0, 0, 0, 0,
	};
	unsigned char *data;
	char path[4096];
	size_t len, i;

	write_truth(tpath(path, sizeof(path), "t.gt"), 3);
	data = (unsigned char *)read_bytes(path, &len);
	cr_assert_eq(len, HEADER_SIZE + 3 * 8 * SB_TRUTH_WORDS);
	cr_assert_arr_eq(data, head, HEADER_SIZE);
	cr_assert_eq(memcmp(data, SB_TRUTH_MAGIC, sizeof(SB_TRUTH_MAGIC)), 0);
	for (i = 0; i < 3; i++) {
		uint64_t v = 0;
		int b;

		for (b = 7; b >= 0; b--)
			v = v << 8 | data[HEADER_SIZE +
					  8 * SB_TRUTH_WORDS * i + (size_t)b];
		cr_assert_eq(v, addr(i));
	}
	free(data);
}

/* Opening an existing file truncates it. */
Test(truth, open_truncates)
{
	char path[4096];

	tpath(path, sizeof(path), "t.gt");
	write_truth(path, 100);
	write_truth(path, 2);
	cr_assert_eq(file_size(path), HEADER_SIZE + 2 * 8 * SB_TRUTH_WORDS);
}

/* ---- damaged files ------------------------------------------------------ */

/* A wrong magic fails with -EBADMSG at offset 0. */
Test(truth, bad_magic)
{
	char path[4096];

	tpath(path, sizeof(path), "t.gt");
	write_raw(path, "PTRECSB", SB_TRUTH_VERSION, 8);
	expect_load(path, -EBADMSG, "magic");
	write_raw(path, "ptrecgt", SB_TRUTH_VERSION, 0);
	expect_load(path, -EBADMSG, "offset 0");
	/* the NUL after the name is part of the magic */
	write_raw(path, "PTRECGTX", SB_TRUTH_VERSION, 0);
	expect_load(path, -EBADMSG, "magic");
}

/* Files shorter than the header fail with -EBADMSG. */
Test(truth, truncated_header)
{
	char path[4096];
	size_t len;

	tpath(path, sizeof(path), "t.gt");
	for (len = 0; len < HEADER_SIZE; len++) {
		write_bytes(path, "PTRECGT\0\2\0\0\0\0\0\0\0", len);
		expect_load(path, -EBADMSG, "offset 0");
	}
}

/* A size that is not header + record size * n fails with the offset of the
 * partial record: 8 bytes in version 1, 8 * SB_TRUTH_WORDS in versions 2
 * and 3.
 */
Test(truth, partial_address)
{
	char path[4096], want[64];
	size_t n, extra, rec;
	uint32_t v;

	tpath(path, sizeof(path), "t.gt");
	for (v = 1; v <= 3; v++) {
		rec = v == 1 ? 8 : 8 * SB_TRUTH_WORDS;
		for (n = 0; n < 3; n++) {
			for (extra = 1; extra < rec; extra += 7) {
				write_raw(path, SB_TRUTH_MAGIC, v,
					  rec * n + extra);
				snprintf(want, sizeof(want), "offset %zu",
					 HEADER_SIZE + rec * n);
				expect_load(path, -EBADMSG, want);
			}
		}
	}
}

/* Version 1 files (addresses only) still read, with no registers. */
Test(truth, version_1_reads)
{
	struct sb_truth_rec *recs;
	struct sb_err err;
	char path[4096];
	size_t n;

	tpath(path, sizeof(path), "t.gt");
	write_raw(path, SB_TRUTH_MAGIC, 1, 16);
	cr_assert_eq(sb_truth_load_recs(path, &recs, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 2);
	cr_assert_eq(recs[0].mask, 0);
	free(recs);
}

/* Version 2 files (no registers after a system call instruction) still
 * read, records as written: the layout is version 3's.
 */
Test(truth, version_2_reads)
{
	struct sb_truth_rec *recs;
	struct sb_err err;
	char path[4096];
	size_t n;

	uint64_t buf[2 + 2 * SB_TRUTH_WORDS] = { 0 };
	uint32_t version = 2;

	memcpy(buf, SB_TRUTH_MAGIC, 8);
	memcpy((char *)buf + 8, &version, 4);
	buf[2] = 0x401000;			/* record 0: rax known */
	buf[3] = 1;
	buf[4] = 42;
	buf[2 + SB_TRUTH_WORDS] = 0x401002;	/* record 1: none */
	tpath(path, sizeof(path), "t.gt");
	write_bytes(path, buf, sizeof(buf));
	cr_assert_eq(sb_truth_load_recs(path, &recs, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 2);
	cr_assert_eq(recs[0].ip, 0x401000);
	cr_assert_eq(recs[0].mask, 1);
	cr_assert_eq(recs[0].regs[0], 42);
	cr_assert_eq(recs[1].ip, 0x401002);
	cr_assert_eq(recs[1].mask, 0);
	free(recs);
}

/* VmSize of this process in bytes (/proc/self/status), or 0. */
static uint64_t vm_size(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/*
 * Regression: sb_truth_load() went through full records, one of
 * SB_TRUTH_WORDS words per 8-byte address of a version-1 file (19x the
 * file).  A 16 MB version-1 file now loads within 96 MB of address space
 * more than the process has (the file and its addresses; 19x would need
 * 304 MB), every address in place.
 */
Test(truth, version_1_loads_in_twice_its_size)
{
	const size_t n = 2u << 20;
	unsigned char *buf = calloc(1, HEADER_SIZE + n * 8);
	struct rlimit rl;
	struct sb_err err;
	char path[4096];
	uint64_t *ips, base;
	uint32_t v = 1;
	size_t i, count;

	cr_assert_not_null(buf);
	memcpy(buf, SB_TRUTH_MAGIC, 8);
	memcpy(buf + 8, &v, 4);
	for (i = 0; i < n; i++) {
		uint64_t a = addr(i);

		memcpy(buf + HEADER_SIZE + i * 8, &a, 8);
	}
	tpath(path, sizeof(path), "v1big.gt");
	write_bytes(path, buf, HEADER_SIZE + n * 8);
	free(buf);
	base = vm_size();
	cr_assert_gt(base, 0);
	rl.rlim_cur = rl.rlim_max = base + (96ull << 20);
#ifndef __SANITIZE_ADDRESS__
	/* (ASan's allocator maps memory its own way: not under it) */
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
#else
	(void)rl;
#endif
	cr_assert_eq(sb_truth_load(path, &ips, &count, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(count, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(ips[i], addr(i), "address %zu", i);
	free(ips);
}

/* Registers written with sb_truth_add_regs come back with their mask; the
 * registers outside the mask read as 0.
 */
Test(truth, registers_round_trip)
{
	struct sb_truth_writer *tw;
	struct sb_truth_rec *recs;
	uint64_t regs[SB_TRUTH_NREGS];
	struct sb_err err;
	char path[4096];
	size_t n, i, j;

	tpath(path, sizeof(path), "t.gt");
	cr_assert_eq(sb_truth_open(&tw, path, &err), 0, "%s", err.msg);
	for (i = 0; i < 1000; i++) {
		for (j = 0; j < SB_TRUTH_NREGS; j++)
			regs[j] = i * 100 + j + 1;
		if (i % 3)
			cr_assert_eq(sb_truth_add_regs(tw, addr(i),
				     (1ull << SB_TRUTH_NREGS) - 1 - (i & 1),
				     regs), 0);
		else
			cr_assert_eq(sb_truth_add(tw, addr(i)), 0);
	}
	cr_assert_eq(sb_truth_close(tw, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_truth_load_recs(path, &recs, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 1000);
	for (i = 0; i < n; i++) {
		cr_assert_eq(recs[i].ip, addr(i));
		if (!(i % 3)) {
			cr_assert_eq(recs[i].mask, 0);
			continue;
		}
		cr_assert_eq(recs[i].mask,
			     (1ull << SB_TRUTH_NREGS) - 1 - (i & 1));
		for (j = 0; j < SB_TRUTH_NREGS; j++)
			cr_assert_eq(recs[i].regs[j],
				     (i & 1) && !j ? 0 : i * 100 + j + 1);
	}
	free(recs);
}

/* Any other version fails with -EPROTONOSUPPORT. */
Test(truth, other_version)
{
	char path[4096];

	tpath(path, sizeof(path), "t.gt");
	write_raw(path, SB_TRUTH_MAGIC, 4, 16);
	expect_load(path, -EPROTONOSUPPORT,
		    "version 4, this ptrec reads versions 1 to 3; upgrade");
	write_raw(path, SB_TRUTH_MAGIC, 0, 0);
	expect_load(path, -EPROTONOSUPPORT, "version 0");
}

/* A missing file fails with -ENOENT naming it. */
Test(truth, missing_file)
{
	char path[4096];

	expect_load(tpath(path, sizeof(path), "none.gt"), -ENOENT, NULL);
}

/* ---- write errors ------------------------------------------------------- */

/* /dev/full: the failed write is reported, by sb_truth_open (the header
 * write) or else by sb_truth_add/sb_truth_close, and never lost.
 */
Test(truth, dev_full)
{
	struct sb_truth_writer *tw = NULL;
	struct sb_err err = { "" };
	int ret, first = 0;
	size_t i;

	ret = sb_truth_open(&tw, "/dev/full", &err);
	if (ret) {
		cr_assert_eq(ret, -ENOSPC, "%d %s", ret, err.msg);
		assert_msg_has(&err, "/dev/full");
		return;
	}
	for (i = 0; i < 100000; i++) {
		ret = sb_truth_add(tw, i);
		if (ret && !first)
			first = ret;
		if (first)
			cr_assert_eq(ret, -ENOSPC, "add %zu after a failure",
				     i);
	}
	ret = sb_truth_close(tw, &err);
	cr_assert_eq(ret, -ENOSPC, "%d %s", ret, err.msg);
	assert_msg_has(&err, "/dev/full");
}

/*
 * Open a truth writer on t.gt and point its descriptor at /dev/full, so
 * every later write fails with ENOSPC.  sb_truth_open's descriptor is the
 * lowest free one; skip the test if that guess is wrong.
 */
static struct sb_truth_writer *open_onto_full(char *path, size_t len)
{
	struct sb_truth_writer *tw = NULL;
	struct sb_err err = { "" };
	struct stat st_fd, st_file;
	int ret, fd, full;

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	close(fd);
	ret = sb_truth_open(&tw, tpath(path, len, "t.gt"), &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_eq(fstat(fd, &st_fd), 0);
	cr_assert_eq(stat(path, &st_file), 0);
	if (st_fd.st_ino != st_file.st_ino || st_fd.st_dev != st_file.st_dev)
		cr_skip_test("cannot find the writer's descriptor");
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	cr_assert(full >= 0);
	cr_assert_eq(dup2(full, fd), fd);
	close(full);
	return tw;
}

/*
 * A writer whose file descriptor becomes /dev/full after a good header:
 * sb_truth_add fails with -ENOSPC once it must write, keeps failing, and
 * sb_truth_close reports -ENOSPC naming the file.
 */
Test(truth, enospc_after_open)
{
	struct sb_truth_writer *tw;
	struct sb_err err = { "" };
	int ret, failed = 0;
	char path[4096];
	size_t i;

	tw = open_onto_full(path, sizeof(path));

	for (i = 0; i < 100000; i++) {
		ret = sb_truth_add(tw, addr(i));
		if (ret) {
			cr_assert_eq(ret, -ENOSPC, "add %zu: %d", i, ret);
			failed++;
		} else {
			cr_assert_eq(failed, 0,
				     "add %zu succeeded after a failure", i);
		}
	}
	cr_assert_gt(failed, 0, "no add reported the write error");
	ret = sb_truth_close(tw, &err);
	cr_assert_eq(ret, -ENOSPC, "%d %s", ret, err.msg);
	assert_msg_has(&err, path);
	/* only the header reached the file */
	cr_assert_eq(file_size(path), HEADER_SIZE);
}

/* A few addresses that stay buffered still fail at close. */
Test(truth, enospc_at_close)
{
	struct sb_truth_writer *tw;
	struct sb_err err = { "" };
	char path[4096];
	int ret;

	tw = open_onto_full(path, sizeof(path));
	cr_assert_eq(sb_truth_add(tw, 1), 0);
	cr_assert_eq(sb_truth_add(tw, 2), 0);
	ret = sb_truth_close(tw, &err);
	cr_assert_eq(ret, -ENOSPC, "%d %s", ret, err.msg);
	assert_msg_has(&err, path);
}

/* Creating a file in a missing directory reports open's errno. */
Test(truth, open_error)
{
	struct sb_truth_writer *tw = NULL;
	struct sb_err err = { "" };
	char path[4096];
	int ret;

	ret = sb_truth_open(&tw, tpath(path, sizeof(path), "no/t.gt"), &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	cr_assert_null(tw);
	assert_msg_has(&err, path);
	cr_assert_eq(sb_truth_close(NULL, &err), 0);
}
