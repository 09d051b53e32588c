// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * manifest.json: sb_manifest_save/parse round trips, what save refuses,
 * and sb_manifest_load's checks of the bundle's files.  The parser's
 * rejections of bad text are test_manifest_parse.c.
 */
#include <inttypes.h>
#include <jansson.h>

#include "helpers.h"

#define NAME "bundle-7/manifest.json"

TestSuite(manifest, .init = test_dir_setup, .fini = test_dir_teardown);

/* ---- helpers ------------------------------------------------------------ */

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	cr_assert_not_null(p);
	return p;
}

static void add_file(struct sb_manifest *m, const char *path,
		     const char *kind, uint64_t size)
{
	struct sb_file *f = sb_manifest_add_file(m);

	cr_assert_not_null(f);
	f->path = xstrdup(path);
	f->kind = xstrdup(kind);
	f->size = size;
}

static void add_thread(struct sb_manifest *m, uint32_t pid, uint32_t tid,
		       const char *pt, const char *regs, const char *truth)
{
	struct sb_thread *t = sb_manifest_add_thread(m);

	cr_assert_not_null(t);
	t->pid = pid;
	t->tid = tid;
	t->pt = xstrdup(pt);
	t->regs = regs ? xstrdup(regs) : NULL;
	t->truth = truth ? xstrdup(truth) : NULL;
}

static void add_image(struct sb_manifest *m, const char *key,
		      const char *file, const char *path, uint64_t size)
{
	struct sb_image *im = sb_manifest_add_image(m);

	cr_assert_not_null(im);
	im->key = xstrdup(key);
	im->file = xstrdup(file);
	im->path = path ? xstrdup(path) : NULL;
	im->size = size;
}

static void add_process(struct sb_manifest *m, uint32_t pid, uint32_t ppid,
			const char *exe)
{
	struct sb_process *p = sb_manifest_add_process(m);

	cr_assert_not_null(p);
	p->pid = pid;
	p->ppid = ppid;
	p->exe = exe ? xstrdup(exe) : NULL;
}

static const char *const full_argv[] = {
	"/usr/bin/prog",
	"an argument with  spaces",
	"ünïcødé ✓ 日本語 🎉",
	"",
	"quote\" backslash\\ tab\t newline\n",
};

#define SHA_KEY "sha256-ba7816bf8f01cfea414140de5dae2223" \
		"b00361a396177a9cb410ff61f20015ad"

/* A manifest with every field set to a distinctive value. */
static struct sb_manifest *full_manifest(void)
{
	struct sb_manifest *m = sb_manifest_new();

	cr_assert_not_null(m);
	cr_assert_eq(m->format_version, SB_BUNDLE_VERSION);
	m->producer = xstrdup("ptrec 0.1.0 (unit test)");
	m->backend = xstrdup("emu");
	snprintf(m->cpu.vendor, sizeof(m->cpu.vendor), "GenuineIntel");
	m->cpu.family = 6;
	m->cpu.model = 0x8c;
	m->cpu.stepping = 1;
	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC | SB_PT_MTC |
			 SB_PT_CYC | SB_PT_RET_COMPRESSION | SB_PT_IP_FILTER;
	m->pt.psb_period = 4096;
	m->pt.mtc_freq = 3;
	m->pt.nom_freq = 28;
	m->pt.cpuid_15_eax = 2;
	m->pt.cpuid_15_ebx = 168;
	m->pt.cyc_thresh = 5;
	m->time.time_shift = 31;
	m->time.time_mult = 1431655765;
	m->time.time_zero = 18444502336406842448ull;
	m->time.tsc_hz = 2400000000ull;
	cr_assert_eq(sb_manifest_set_argv(m, 5, full_argv), 0);
	m->cwd = xstrdup("/home/user/a dir/ü");
	m->start_ns = 1700000000123456789ull;
	m->stop_ns = 1700000042987654321ull;
	m->sideband = xstrdup("sideband.sb");
	add_process(m, 100, 1, "/usr/bin/prog");
	add_process(m, 105, 100, NULL);
	add_thread(m, 100, 100, "pt/100.pt", "regs/100.json", "truth/100.gt");
	add_thread(m, 100, 101, "pt/101.pt", NULL, NULL);
	add_thread(m, 105, 105, "pt/105.pt", "regs/105.json", NULL);
	add_image(m, "buildid-0123456789abcdef0123456789abcdef01234567",
		  "images/buildid-0123456789abcdef0123456789abcdef01234567",
		  "/usr/bin/prog", 123456);
	add_image(m, SHA_KEY, "images/" SHA_KEY, "[vdso]", 8192);
	add_image(m, "sha256-00", "images/sha256-00", NULL, 0);
	add_file(m, "sideband.sb", "sideband", 4096);
	add_file(m, "pt/100.pt", "pt", 1ull << 40);
	add_file(m, "pt/101.pt", "pt", 0);
	add_file(m, "pt/105.pt", "pt", 17);
	add_file(m, "regs/100.json", "regs", 1000);
	add_file(m, "regs/105.json", "regs", 1001);
	add_file(m, "truth/100.gt", "truth", 16 + 8 * 1000);
	return m;
}

static void assert_str_same(const char *a, const char *b, const char *what)
{
	if (!a || !b) {
		cr_assert(a == b, "%s: \"%s\" vs \"%s\"", what,
			  a ? a : "(null)", b ? b : "(null)");
		return;
	}
	cr_assert_str_eq(a, b, "%s: \"%s\" vs \"%s\"", what, a, b);
}

static void assert_manifests_equal(const struct sb_manifest *a,
				   const struct sb_manifest *b)
{
	size_t i;

	cr_assert_eq(a->format_version, b->format_version);
	assert_str_same(a->producer, b->producer, "producer");
	assert_str_same(a->backend, b->backend, "backend");
	cr_assert_str_eq(a->cpu.vendor, b->cpu.vendor);
	cr_assert_eq(a->cpu.family, b->cpu.family);
	cr_assert_eq(a->cpu.model, b->cpu.model);
	cr_assert_eq(a->cpu.stepping, b->cpu.stepping);
	cr_assert_eq(a->pt.emulated, b->pt.emulated);
	cr_assert_eq(a->pt.features, b->pt.features, "features %#x vs %#x",
		     a->pt.features, b->pt.features);
	cr_assert_eq(a->pt.psb_period, b->pt.psb_period);
	cr_assert_eq(a->pt.mtc_freq, b->pt.mtc_freq);
	cr_assert_eq(a->pt.nom_freq, b->pt.nom_freq);
	cr_assert_eq(a->pt.cpuid_15_eax, b->pt.cpuid_15_eax);
	cr_assert_eq(a->pt.cpuid_15_ebx, b->pt.cpuid_15_ebx);
	cr_assert_eq(a->pt.cyc_thresh, b->pt.cyc_thresh);
	cr_assert_eq(a->time.time_shift, b->time.time_shift);
	cr_assert_eq(a->time.time_mult, b->time.time_mult);
	cr_assert_eq(a->time.time_zero, b->time.time_zero,
		     "time_zero %" PRIu64 " vs %" PRIu64, a->time.time_zero,
		     b->time.time_zero);
	cr_assert_eq(a->time.tsc_hz, b->time.tsc_hz);
	cr_assert_eq(a->argc, b->argc);
	for (i = 0; i < a->argc; i++)
		assert_str_same(a->argv[i], b->argv[i], "argv");
	assert_str_same(a->cwd, b->cwd, "cwd");
	cr_assert_eq(a->start_ns, b->start_ns);
	cr_assert_eq(a->stop_ns, b->stop_ns);
	assert_str_same(a->sideband, b->sideband, "sideband");
	cr_assert_eq(a->nprocs, b->nprocs);
	for (i = 0; i < a->nprocs; i++) {
		cr_assert_eq(a->procs[i].pid, b->procs[i].pid);
		cr_assert_eq(a->procs[i].ppid, b->procs[i].ppid);
		assert_str_same(a->procs[i].exe, b->procs[i].exe, "exe");
	}
	cr_assert_eq(a->nthreads, b->nthreads);
	for (i = 0; i < a->nthreads; i++) {
		cr_assert_eq(a->threads[i].pid, b->threads[i].pid);
		cr_assert_eq(a->threads[i].tid, b->threads[i].tid);
		assert_str_same(a->threads[i].pt, b->threads[i].pt, "pt");
		assert_str_same(a->threads[i].regs, b->threads[i].regs, "regs");
		assert_str_same(a->threads[i].truth, b->threads[i].truth,
				"truth");
	}
	cr_assert_eq(a->nimages, b->nimages);
	for (i = 0; i < a->nimages; i++) {
		assert_str_same(a->images[i].key, b->images[i].key, "key");
		assert_str_same(a->images[i].file, b->images[i].file, "file");
		assert_str_same(a->images[i].path, b->images[i].path, "path");
		cr_assert_eq(a->images[i].size, b->images[i].size);
	}
	cr_assert_eq(a->nfiles, b->nfiles);
	for (i = 0; i < a->nfiles; i++) {
		assert_str_same(a->files[i].path, b->files[i].path, "path");
		assert_str_same(a->files[i].kind, b->files[i].kind, "kind");
		cr_assert_eq(a->files[i].size, b->files[i].size);
	}
}

/* Saves @m into test_dir and parses the written text back. */
static struct sb_manifest *save_and_parse(const struct sb_manifest *m)
{
	struct sb_manifest *back = NULL;
	struct sb_err err = { "" };
	char path[4096];
	size_t len;
	char *text;
	int ret;

	ret = sb_manifest_save(m, test_dir, &err);
	cr_assert_eq(ret, 0, "save: %d %s", ret, err.msg);
	text = read_bytes(tpath(path, sizeof(path), "manifest.json"), &len);
	ret = sb_manifest_parse(&back, text, len, NAME, &err);
	cr_assert_eq(ret, 0, "parse: %d %s\n%s", ret, err.msg, text);
	free(text);
	return back;
}

/* ---- round trips -------------------------------------------------------- */

/* Every field, including u64s above 2^63 and unicode argv, survives
 * save + parse unchanged, and save leaves no temporary file behind.
 */
Test(manifest, round_trip_every_field)
{
	struct sb_manifest *m = full_manifest(), *back;
	char path[4096];

	back = save_and_parse(m);
	assert_manifests_equal(m, back);
	cr_assert_eq(back->time.time_zero, 18444502336406842448ull);
	cr_assert_eq(back->pt.features,
		     SB_PT_USER | SB_PT_BRANCH | SB_PT_TSC | SB_PT_MTC |
		     SB_PT_CYC | SB_PT_RET_COMPRESSION | SB_PT_IP_FILTER);
	cr_assert_str_eq(back->argv[2], "ünïcødé ✓ 日本語 🎉");
	cr_assert_null(back->threads[1].regs);
	cr_assert_null(back->threads[1].truth);
	cr_assert_null(back->procs[1].exe);
	cr_assert_null(back->images[2].path);
	cr_assert_eq(sb_manifest_thread(back, 105), &back->threads[2]);
	cr_assert_null(sb_manifest_thread(back, 7));
	cr_assert_eq(sb_manifest_image(back, SHA_KEY), &back->images[1]);
	cr_assert_null(sb_manifest_image(back, "sha256-11"));
	cr_assert_not(file_exists(tpath(path, sizeof(path),
					"manifest.json.tmp")));
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/* An empty manifest (no threads, images, argv) round-trips too. */
Test(manifest, round_trip_minimal)
{
	struct sb_manifest *m = sb_manifest_new(), *back;

	cr_assert_not_null(m);
	m->producer = xstrdup("p");
	m->backend = xstrdup("kmod");
	m->sideband = xstrdup("sideband.sb");
	back = save_and_parse(m);
	assert_manifests_equal(m, back);
	cr_assert_eq(back->argc, 0);
	cr_assert_null(back->cwd);
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/* Each feature bit alone round-trips and has its own name. */
Test(manifest, round_trip_each_feature)
{
	uint32_t bit;

	for (bit = 1; bit <= SB_PT_IP_FILTER; bit <<= 1) {
		struct sb_manifest *m = full_manifest(), *back;

		cr_assert_not_null(sb_pt_feature_name(bit), "bit %#x", bit);
		m->pt.features = bit;
		back = save_and_parse(m);
		cr_assert_eq(back->pt.features, bit, "bit %#x", bit);
		sb_manifest_free(back);
		sb_manifest_free(m);
	}
	cr_assert_str_eq(sb_pt_feature_name(SB_PT_TSC), "tsc");
	cr_assert_null(sb_pt_feature_name(SB_PT_IP_FILTER << 1));
	cr_assert_null(sb_pt_feature_name(SB_PT_USER | SB_PT_KERNEL));
	cr_assert_null(sb_pt_feature_name(0));
}

/* u64 fields at their maximum survive save + parse. */
Test(manifest, round_trip_u64_max)
{
	struct sb_manifest *m = full_manifest(), *back;

	m->time.time_zero = UINT64_MAX;
	m->time.tsc_hz = UINT64_MAX;
	m->start_ns = UINT64_MAX;
	m->stop_ns = UINT64_MAX;
	m->time.time_shift = 63;
	back = save_and_parse(m);
	assert_manifests_equal(m, back);
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/*
 * Regression (fixed): sb_manifest_save() wrote pt.psb_period (a uint64_t) through
 * json_int_t, so a value above INT64_MAX is written as a negative number
 * that sb_manifest_parse() then rejects ("must not be negative").
 */
Test(manifest, round_trip_psb_period_max)
{
	struct sb_manifest *m = full_manifest(), *back;

	m->pt.psb_period = UINT64_MAX;
	back = save_and_parse(m);
	assert_manifests_equal(m, back);
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/* u32 fields other than cpu.* at UINT32_MAX survive save + parse. */
Test(manifest, round_trip_u32_max)
{
	struct sb_manifest *m = full_manifest(), *back;

	m->pt.mtc_freq = UINT32_MAX;
	m->pt.nom_freq = UINT32_MAX;
	m->pt.cpuid_15_eax = UINT32_MAX;
	m->pt.cpuid_15_ebx = UINT32_MAX;
	m->pt.cyc_thresh = UINT32_MAX;
	m->time.time_mult = UINT32_MAX;
	m->procs[0].pid = UINT32_MAX;
	m->procs[0].ppid = UINT32_MAX;
	m->threads[0].pid = UINT32_MAX;
	m->threads[0].tid = UINT32_MAX;
	back = save_and_parse(m);
	assert_manifests_equal(m, back);
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/*
 * Regression (fixed): sb_manifest_save() wrote cpu.family, cpu.model and cpu.stepping
 * (uint32_t) with json_pack "i" through an (int) cast, so values above
 * INT32_MAX are written negative and sb_manifest_parse() rejects its own
 * output with -EBADMSG "field 'cpu.family': must not be negative".
 */
Test(manifest, round_trip_cpu_u32_max)
{
	struct sb_manifest *m = full_manifest(), *back;

	m->cpu.family = UINT32_MAX;
	m->cpu.model = 0x80000000u;
	m->cpu.stepping = UINT32_MAX;
	back = save_and_parse(m);
	assert_manifests_equal(m, back);
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/* ---- sb_manifest_save -------------------------------------------------- */

/* sb_manifest_save refuses a manifest without its required strings. */
Test(manifest, save_requires_fields)
{
	struct sb_manifest *m = full_manifest();
	struct sb_err err = { "" };
	char path[4096];

	free(m->backend);
	m->backend = NULL;
	cr_assert_eq(sb_manifest_save(m, test_dir, &err), -EINVAL);
	cr_assert_not(file_exists(tpath(path, sizeof(path), "manifest.json")));
	m->backend = xstrdup("emu");
	free(m->threads[1].pt);
	m->threads[1].pt = NULL;
	cr_assert_eq(sb_manifest_save(m, test_dir, &err), -EINVAL);
	assert_msg_has(&err, "threads[1]");
	cr_assert_not(file_exists(path));
	sb_manifest_free(m);
}

/* sb_manifest_save reports a missing directory with its errno. */
Test(manifest, save_into_missing_dir)
{
	struct sb_manifest *m = full_manifest();
	struct sb_err err = { "" };
	char path[4096];

	tpath(path, sizeof(path), "no/such/dir");
	cr_assert_eq(sb_manifest_save(m, path, &err), -ENOENT);
	assert_msg_has(&err, path);
	sb_manifest_free(m);
}

/* ---- sb_manifest_load --------------------------------------------------- */

/* Writes the files of a small bundle into test_dir/b and its manifest. */
static struct sb_manifest *disk_bundle(char *dir, size_t dirsz)
{
	static const char *const sub[] = { "pt", "regs", "truth", "images" };
	struct sb_manifest *m = sb_manifest_new();
	char path[4096], zeros[300] = { 0 };
	struct sb_err err = { "" };
	size_t i;
	int ret;

	cr_assert_not_null(m);
	tpath(dir, dirsz, "b");
	cr_assert_eq(mkdir(dir, 0755), 0);
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
		cr_assert_eq(mkdir(tpath(path, sizeof(path), "b/%s", sub[i]),
				   0755), 0);
	write_bytes(tpath(path, sizeof(path), "b/sideband.sb"), zeros, 32);
	write_bytes(tpath(path, sizeof(path), "b/pt/100.pt"), zeros, 300);
	write_bytes(tpath(path, sizeof(path), "b/pt/101.pt"), zeros, 0);
	write_bytes(tpath(path, sizeof(path), "b/regs/100.json"), "{}", 2);
	write_bytes(tpath(path, sizeof(path), "b/images/sha256-00"), "abc", 3);
	m->producer = xstrdup("test");
	m->backend = xstrdup("emu");
	m->sideband = xstrdup("sideband.sb");
	add_thread(m, 100, 100, "pt/100.pt", "regs/100.json", NULL);
	add_thread(m, 100, 101, "pt/101.pt", NULL, NULL);
	add_image(m, "sha256-00", "images/sha256-00", "/bin/x", 3);
	add_file(m, "sideband.sb", "sideband", 32);
	add_file(m, "pt/100.pt", "pt", 300);
	add_file(m, "pt/101.pt", "pt", 0);
	add_file(m, "regs/100.json", "regs", 2);
	add_file(m, "images/sha256-00", "image", 3);
	ret = sb_manifest_save(m, dir, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	return m;
}

static void expect_load(const char *dir, int code, const char *want1,
			const char *want2)
{
	struct sb_manifest *m = NULL;
	struct sb_err err = { "" };
	int ret;

	ret = sb_manifest_load(&m, dir, &err);
	cr_assert_eq(ret, code, "load %s: got %d (%s)", dir, ret, err.msg);
	cr_assert_null(m);
	if (want1)
		assert_msg_has(&err, want1);
	if (want2)
		assert_msg_has(&err, want2);
}

/* A consistent bundle loads and reads back what was saved. */
Test(manifest, load_ok)
{
	struct sb_manifest *m, *back = NULL;
	struct sb_err err = { "" };
	char dir[4096];
	int ret;

	m = disk_bundle(dir, sizeof(dir));
	ret = sb_manifest_load(&back, dir, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	assert_manifests_equal(m, back);
	sb_manifest_free(back);
	sb_manifest_free(m);
}

/* A directory without manifest.json is an unfinished recording. */
Test(manifest, load_without_manifest)
{
	char dir[4096];

	cr_assert_eq(mkdir(tpath(dir, sizeof(dir), "b"), 0755), 0);
	expect_load(dir, -ENOENT, "manifest.json", "incomplete");
}

/*
 * A directory with other files and none a recording writes (a user's
 * `ptrec replay build`) is not a bundle: it was reported as a recording
 * that did not finish.  With sideband.sb or pt/ it is one again.
 */
Test(manifest, load_not_a_bundle)
{
	char dir[4096], path[4200];
	FILE *f;

	cr_assert_eq(mkdir(tpath(dir, sizeof(dir), "b"), 0755), 0);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	expect_load(dir, -ENOENT, "not a ptrec bundle", dir);
	snprintf(path, sizeof(path), "%s/pt", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	expect_load(dir, -ENOENT, "manifest.json", "incomplete");
}

/* A directory that does not exist is reported as such. */
Test(manifest, load_missing_dir)
{
	char dir[4096];

	expect_load(tpath(dir, sizeof(dir), "nope"), -ENOENT, dir, NULL);
}

/* A listed file that is missing fails with -ENOENT naming it. */
Test(manifest, load_listed_file_missing)
{
	struct sb_manifest *m;
	char dir[4096], path[4096];

	m = disk_bundle(dir, sizeof(dir));
	cr_assert_eq(unlink(tpath(path, sizeof(path), "b/pt/101.pt")), 0);
	expect_load(dir, -ENOENT, "pt/101.pt", "missing");
	sb_manifest_free(m);
}

/* A listed file of another size fails with -EBADMSG "truncated". */
Test(manifest, load_listed_file_wrong_size)
{
	struct sb_manifest *m;
	char dir[4096], path[4096];

	m = disk_bundle(dir, sizeof(dir));
	cr_assert_eq(truncate(tpath(path, sizeof(path), "b/pt/100.pt"), 299),
		     0);
	expect_load(dir, -EBADMSG, "pt/100.pt", "truncated");
	cr_assert_eq(truncate(path, 301), 0);
	expect_load(dir, -EBADMSG, "pt/100.pt", "301");
	sb_manifest_free(m);
}

/* Thread streams, regs and images must all be listed in "files". */
Test(manifest, load_unlisted_stream)
{
	static const struct {
		const char *drop;
		const char *field;
	} cases[] = {
		{ "pt/101.pt", "threads[1].pt" },
		{ "regs/100.json", "threads[0].regs" },
		{ "images/sha256-00", "images[0].file" },
		{ "sideband.sb", "'sideband'" },
	};
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_manifest *m;
		struct sb_err err = { "" };
		char dir[4096];

		m = disk_bundle(dir, sizeof(dir));
		for (j = 0; j < m->nfiles; j++)
			if (!strcmp(m->files[j].path, cases[i].drop))
				break;
		cr_assert_lt(j, m->nfiles);
		free(m->files[j].path);
		free(m->files[j].kind);
		m->files[j] = m->files[--m->nfiles];
		cr_assert_eq(sb_manifest_save(m, dir, &err), 0, "%s", err.msg);
		expect_load(dir, -EBADMSG, cases[i].field, "manifest.json");
		sb_manifest_free(m);
		rm_rf(dir);
	}
}

/* A parse error from disk names the manifest's path. */
Test(manifest, load_bad_json)
{
	struct sb_manifest *m;
	char dir[4096], path[4096];

	m = disk_bundle(dir, sizeof(dir));
	write_text(tpath(path, sizeof(path), "b/manifest.json"), "{\"x\": ");
	expect_load(dir, -EBADMSG, path, "byte offset");
	write_text(path,
		   "{\"format\": \"ptrec-bundle\", \"format_version\": 9}");
	expect_load(dir, -EPROTONOSUPPORT, path, "upgrade ptrec");
	sb_manifest_free(m);
}

/* A manifest above SB_MANIFEST_MAX is refused before it is read. */
Test(manifest, load_too_big)
{
	char dir[4096], path[4096];
	int fd;

	cr_assert_eq(mkdir(tpath(dir, sizeof(dir), "b"), 0755), 0);
	fd = open(tpath(path, sizeof(path), "b/manifest.json"),
		  O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)SB_MANIFEST_MAX + 1), 0);
	close(fd);
	expect_load(dir, -EFBIG, "manifest.json", NULL);

	/* a huge sparse file too: the size is checked, not read */
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)1 << 40), 0);
	close(fd);
	expect_load(dir, -EFBIG, "manifest.json", NULL);

	/* exactly the limit is read (and then fails as JSON) */
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)SB_MANIFEST_MAX), 0);
	close(fd);
	expect_load(dir, -EBADMSG, "manifest.json", NULL);
}
