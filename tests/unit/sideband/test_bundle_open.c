// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The rule for files inside a bundle (sb_bundle_open_file,
 * sb_bundle_open_dir, sb_manifest_load, sb_regs_load_bundle): symlinks
 * anywhere on the path, FIFOs, devices, directories, escaping paths and
 * sizes other than the manifest's are refused with the errno the header
 * documents and a message naming the file; regular files open.  Every
 * case runs twice, with openat2() and with the openat() walk the library
 * falls back to on kernels without it.  A FIFO test that hung would be
 * killed by the timeout.
 */
#include <sys/sysmacros.h>

#include "helpers.h"
#include "internal.h"

static void setup(void)
{
	char path[4096];

	test_dir_setup();
	cr_assert_eq(mkdir(tpath(path, sizeof(path), "b"), 0755), 0);
	cr_assert_eq(mkdir(tpath(path, sizeof(path), "b/regs"), 0755), 0);
	write_text(tpath(path, sizeof(path), "b/regs/1.json"), "hello");
	write_text(tpath(path, sizeof(path), "outside"), "secret");
}

TestSuite(bundle_open, .init = setup, .fini = test_dir_teardown,
	  .timeout = 20);

static const char *bdir(void)
{
	static char path[4096];

	return tpath(path, sizeof(path), "b");
}

/* Expects sb_bundle_open_file(b, @rel, @m) to fail with @code (both ways),
 * with a message naming the file.
 */
static void expect_refused(const char *rel, const struct sb_manifest *m,
			   int code)
{
	struct sb_err err = { "" };
	int walk, fd;

	for (walk = 0; walk < 2; walk++) {
		sb_open_force_walk(walk);
		fd = sb_bundle_open_file(bdir(), rel, m, &err);
		cr_assert_eq(fd, code, "%s (walk %d): got %d: %s", rel, walk,
			     fd, err.msg);
		if (*rel)
			assert_msg_has(&err, rel);
	}
	sb_open_force_walk(false);
}

static void expect_reads(const char *rel, const char *want)
{
	struct sb_err err = { "" };
	char buf[64];
	int walk, fd;
	ssize_t n;

	for (walk = 0; walk < 2; walk++) {
		sb_open_force_walk(walk);
		fd = sb_bundle_open_file(bdir(), rel, NULL, &err);
		cr_assert(fd >= 0, "%s (walk %d): %s", rel, walk, err.msg);
		n = read(fd, buf, sizeof(buf) - 1);
		cr_assert(n >= 0);
		buf[n] = '\0';
		cr_assert_str_eq(buf, want);
		/* The descriptor is blocking again. */
		cr_assert_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
		close(fd);
	}
	sb_open_force_walk(false);
}

Test(bundle_open, regular_file_opens)
{
	expect_reads("regs/1.json", "hello");
	expect_reads("./regs/1.json", "hello");
}

Test(bundle_open, symlink_to_outside_is_refused)
{
	char path[4096], target[4096];

	tpath(target, sizeof(target), "outside");
	cr_assert_eq(symlink(target, tpath(path, sizeof(path), "b/regs/2.json")),
		     0);
	expect_refused("regs/2.json", NULL, -ELOOP);
	cr_assert_eq(symlink("../../outside",
			     tpath(path, sizeof(path), "b/regs/3.json")), 0);
	expect_refused("regs/3.json", NULL, -ELOOP);
}

Test(bundle_open, symlink_inside_is_refused_too)
{
	char path[4096];

	cr_assert_eq(symlink("1.json", tpath(path, sizeof(path),
					     "b/regs/2.json")), 0);
	expect_refused("regs/2.json", NULL, -ELOOP);
}

Test(bundle_open, symlinked_directory_is_refused)
{
	char path[4096];

	cr_assert_eq(mkdir(tpath(path, sizeof(path), "elsewhere"), 0755), 0);
	write_text(tpath(path, sizeof(path), "elsewhere/1.pt"), "x");
	cr_assert_eq(symlink(tpath(path, sizeof(path), "elsewhere"),
			     tpath(path + 2048, 2048, "b/pt")), 0);
	expect_refused("pt/1.pt", NULL, -ELOOP);
}

Test(bundle_open, fifo_is_refused_without_blocking)
{
	char path[4096];

	cr_assert_eq(mkfifo(tpath(path, sizeof(path), "b/regs/4.json"), 0644),
		     0);
	expect_refused("regs/4.json", NULL, -EINVAL);
}

Test(bundle_open, device_is_refused)
{
	char path[4096];

	if (mknod(tpath(path, sizeof(path), "b/regs/5.json"), S_IFCHR | 0644,
		  makedev(1, 5)) < 0)
		cr_skip_test("mknod: %s (not root here)", strerror(errno));
	expect_refused("regs/5.json", NULL, -EINVAL);
}

Test(bundle_open, directory_is_refused)
{
	expect_refused("regs", NULL, -EINVAL);
}

Test(bundle_open, escaping_paths_are_refused)
{
	expect_refused("../outside", NULL, -EINVAL);
	expect_refused("regs/../../outside", NULL, -EINVAL);
	expect_refused("/etc/passwd", NULL, -EINVAL);
	expect_refused("", NULL, -EINVAL);
	expect_refused("regs//1.json", NULL, -EINVAL);
}

Test(bundle_open, size_is_checked_against_the_manifest)
{
	struct sb_manifest *m = sb_manifest_new();
	struct sb_file *f;

	cr_assert_not_null(m);
	f = sb_manifest_add_file(m);
	cr_assert_not_null(f);
	f->path = strdup("regs/1.json");
	f->kind = strdup("regs");
	f->size = 4;
	expect_refused("regs/1.json", m, -EBADMSG);
	f->size = 5;
	cr_assert_geq(sb_bundle_open_file(bdir(), "regs/1.json", m, NULL), 0);
	sb_manifest_free(m);
}

Test(bundle_open, open_dir_refuses_a_symlink)
{
	struct sb_err err = { "" };
	char path[4096];
	int fd, walk;

	cr_assert_eq(symlink(tpath(path, sizeof(path), "elsewhere"),
			     tpath(path + 2048, 2048, "b/index")), 0);
	for (walk = 0; walk < 2; walk++) {
		sb_open_force_walk(walk);
		fd = sb_bundle_open_dir(bdir(), "index", &err);
		cr_assert_eq(fd, -ELOOP, "walk %d: %d %s", walk, fd, err.msg);
		fd = sb_bundle_open_dir(bdir(), "regs", &err);
		cr_assert_geq(fd, 0, "walk %d: %s", walk, err.msg);
		close(fd);
	}
	sb_open_force_walk(false);
}

Test(bundle_open, regs_load_bundle_follows_the_rule)
{
	struct sb_err err = { "" };
	struct sb_regs regs;
	char path[4096];

	cr_assert_eq(symlink(tpath(path, sizeof(path), "outside"),
			     tpath(path + 2048, 2048, "b/regs/6.json")), 0);
	cr_assert_eq(sb_regs_load_bundle(&regs, bdir(), "regs/6.json", NULL,
					 &err), -ELOOP, "%s", err.msg);
	cr_assert_eq(mkfifo(tpath(path, sizeof(path), "b/regs/7.json"), 0644),
		     0);
	cr_assert_eq(sb_regs_load_bundle(&regs, bdir(), "regs/7.json", NULL,
					 &err), -EINVAL, "%s", err.msg);
	/* The path-based loader does not block on a FIFO either. */
	cr_assert_eq(sb_regs_load(&regs, path, &err), -EINVAL, "%s", err.msg);
}

Test(bundle_open, manifest_fifo_does_not_hang)
{
	struct sb_manifest *m = NULL;
	struct sb_err err = { "" };
	char path[4096];

	cr_assert_eq(mkfifo(tpath(path, sizeof(path), "b/manifest.json"),
			    0644), 0);
	cr_assert_eq(sb_manifest_load(&m, bdir(), &err), -EINVAL, "%s",
		     err.msg);
	assert_msg_has(&err, "manifest.json");
}

Test(bundle_open, manifest_symlink_is_refused)
{
	struct sb_manifest *m = NULL;
	struct sb_err err = { "" };
	char path[4096];

	cr_assert_eq(symlink(tpath(path, sizeof(path), "outside"),
			     tpath(path + 2048, 2048, "b/manifest.json")), 0);
	cr_assert_eq(sb_manifest_load(&m, bdir(), &err), -ELOOP, "%s",
		     err.msg);
}

Test(bundle_open, sideband_reader_fifo_does_not_hang)
{
	struct sb_reader *r = NULL;
	struct sb_err err = { "" };
	char path[4096];

	cr_assert_eq(mkfifo(tpath(path, sizeof(path), "b/sb"), 0644), 0);
	cr_assert_eq(sb_reader_open(&r, path, &err), -EINVAL, "%s", err.msg);
}
