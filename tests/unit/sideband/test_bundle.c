// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Writing bundles: sb_bundle_create's directory rules, a complete bundle
 * that sb_manifest_load accepts with every file listed at its size, the
 * content-addressed image store, unfinished bundles, durable and not
 * durable bundles (what each fsyncs), and the SHA-256 of sb_image_key
 * against the FIPS 180-4 vectors and sha256sum.
 */
#include <dirent.h>
#include <elf.h>
#include <inttypes.h>
#include <sys/syscall.h>

#include "helpers.h"

TestSuite(bundle, .init = test_dir_setup, .fini = test_dir_teardown);

#define ABC_SHA256 "ba7816bf8f01cfea414140de5dae2223" \
		   "b00361a396177a9cb410ff61f20015ad"

/* ---- helpers ------------------------------------------------------------ */

/* Every fsync() the bundle writer makes (it is linked into this program,
 * so its calls come here), then the real one.
 */
static int fsyncs;

int fsync(int fd)
{
	fsyncs++;
	return (int)syscall(SYS_fsync, fd);
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	cr_assert_not_null(p);
	return p;
}

static struct sb_bundle *create(const char *dir)
{
	struct sb_err err = { "" };
	struct sb_bundle *b = NULL;
	int ret;

	ret = sb_bundle_create(&b, dir, &err);
	cr_assert_eq(ret, 0, "create %s: %d %s", dir, ret, err.msg);
	cr_assert_not_null(b);
	return b;
}

/* Writes @len bytes of a pattern to the bundle-relative file @rel. */
static void write_rel(struct sb_bundle *b, const char *rel, size_t len)
{
	char path[4096];
	unsigned char *buf = malloc(len + 1);
	size_t i;
	int n;

	cr_assert_not_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	n = sb_bundle_path(b, rel, path, sizeof(path));
	cr_assert_gt(n, 0);
	cr_assert_eq((size_t)n, strlen(path));
	write_bytes(path, buf, len);
	free(buf);
}

/* Number of directory entries other than . and .. */
static int count_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * Finds the GNU build-id note of an ELF64 image by walking its program
 * headers, independently of libelf.  Returns 1 and its hex in @out.
 */
static int elf_build_id_hex(const unsigned char *buf, size_t len, char *out,
			    size_t outsz)
{
	const Elf64_Ehdr *eh = (const void *)buf;
	size_t i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	for (i = 0; i < eh->e_phnum; i++) {
		size_t phoff = eh->e_phoff + i * eh->e_phentsize;
		const Elf64_Phdr *ph;
		size_t off, end, a;

		if (phoff + sizeof(*ph) > len)
			return 0;
		ph = (const void *)(buf + phoff);
		if (ph->p_type != PT_NOTE)
			continue;
		off = ph->p_offset;
		end = off + ph->p_filesz;
		a = ph->p_align == 8 ? 8 : 4;
		while (off + sizeof(Elf64_Nhdr) <= end && end <= len) {
			const Elf64_Nhdr *nh = (const void *)(buf + off);
			size_t name = off + sizeof(*nh);
			size_t desc = name + align_up(nh->n_namesz, a);

			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 &&
			    !memcmp(buf + name, "GNU", 4) &&
			    desc + nh->n_descsz <= end &&
			    2 * nh->n_descsz < outsz) {
				to_hex(out, buf + desc, nh->n_descsz);
				return 1;
			}
			off = desc + align_up(nh->n_descsz, a);
		}
	}
	return 0;
}

static void assert_key(const void *buf, size_t len, const char *want_hex)
{
	char key[SB_IMAGE_KEY_MAX], want[SB_IMAGE_KEY_MAX];
	int ret;

	memset(key, 'X', sizeof(key));
	ret = sb_image_key(buf, len, key, sizeof(key));
	cr_assert_eq(ret, 0, "len %zu: %d", len, ret);
	snprintf(want, sizeof(want), "sha256-%s", want_hex);
	cr_assert_str_eq(key, want, "len %zu", len);
}

/* Byte @i of the padding-edge inputs: 'A' + i % 26. */
static unsigned char *pattern(size_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	size_t i;

	cr_assert_not_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)('A' + i % 26);
	return buf;
}

/* A 64-bit little-endian ELF header with no program or section headers
 * (so no build-id note), followed by @extra bytes of payload.
 */
static unsigned char *elf_without_build_id(size_t extra, size_t *len)
{
	unsigned char *buf = calloc(1, sizeof(Elf64_Ehdr) + extra);
	Elf64_Ehdr eh;

	cr_assert_not_null(buf);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	memcpy(buf, &eh, sizeof(eh));
	memset(buf + sizeof(eh), 0x5a, extra);
	*len = sizeof(eh) + extra;
	return buf;
}

/* ---- sb_bundle_create --------------------------------------------------- */

/* A new directory and an existing empty one are both accepted. */
Test(bundle, create_new_and_empty_dir)
{
	char dir[4096], path[4096];
	struct sb_bundle *b;

	b = create(tpath(dir, sizeof(dir), "new"));
	cr_assert_str_eq(sb_bundle_dir(b), dir);
	cr_assert_not_null(sb_bundle_manifest(b));
	sb_bundle_free(b);
	cr_assert(file_exists(dir));
	/* unfinished: no manifest */
	tpath(path, sizeof(path), "new/manifest.json");
	cr_assert_not(file_exists(path));

	cr_assert_eq(mkdir(tpath(dir, sizeof(dir), "empty"), 0755), 0);
	b = create(dir);
	sb_bundle_free(b);
}

/* A directory with anything in it is refused with -EEXIST. */
Test(bundle, create_non_empty_dir)
{
	char dir[4096], path[4096];
	struct sb_err err = { "" };
	struct sb_bundle *b = NULL;
	int ret;

	cr_assert_eq(mkdir(tpath(dir, sizeof(dir), "full"), 0755), 0);
	write_text(tpath(path, sizeof(path), "full/.hidden"), "x");
	ret = sb_bundle_create(&b, dir, &err);
	cr_assert_eq(ret, -EEXIST, "%d %s", ret, err.msg);
	cr_assert_null(b);
	assert_msg_has(&err, dir);
	/* untouched */
	cr_assert_eq(count_entries(dir), 1);

	/* a finished bundle is not empty either */
	b = create(tpath(dir, sizeof(dir), "done"));
	sb_bundle_manifest(b)->backend = xstrdup("emu");
	cr_assert_eq(sb_bundle_finish(b, &err), 0, "%s", err.msg);
	sb_bundle_free(b);
	b = NULL;
	ret = sb_bundle_create(&b, dir, &err);
	cr_assert_eq(ret, -EEXIST, "%d %s", ret, err.msg);
	cr_assert_null(b);
}

/* mkdir's errno comes back when the directory cannot be made. */
Test(bundle, create_errors)
{
	char dir[4096], path[4096];
	struct sb_err err = { "" };
	struct sb_bundle *b = NULL;
	int ret;

	ret = sb_bundle_create(&b, tpath(dir, sizeof(dir), "a/b/c"), &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	assert_msg_has(&err, dir);
	write_text(tpath(path, sizeof(path), "file"), "x");
	ret = sb_bundle_create(&b, path, &err);
	cr_assert(ret == -ENOTDIR || ret == -EEXIST, "%d %s", ret, err.msg);
	cr_assert_null(b);
}

/* ---- a complete bundle -------------------------------------------------- */

static void add_records(struct sb_writer *w)
{
	struct ptrec_sb_time tm = { .hdr = { .type = PTREC_SB_TIME,
					     .time = 100 },
				    .time_shift = 10, .time_mult = 427,
				    .time_zero = 18444502336406842448ull,
				    .tsc_hz = 2400000000ull };
	struct ptrec_sb_comm comm = { .hdr = { .type = PTREC_SB_COMM,
					       .time = 100 },
				      .pid = 100, .tid = 100,
				      .comm = "prog" };
	struct ptrec_sb_mmap mm = { .hdr = { .time = 150 }, .pid = 100,
				    .tid = 100, .start = 0x400000,
				    .len = 0x1000, .prot = 5, .mflags = 2 };
	struct ptrec_sb_exec ex = { .hdr = { .time = 150 }, .pid = 100,
				    .tid = 100 };
	struct ptrec_sb_switch sw = { .hdr = { .type = PTREC_SB_SWITCH_IN,
					       .time = 200 },
				      .pid = 100, .tid = 101, .cpu = 3 };
	struct sb_err err = { "" };

	cr_assert_eq(sb_writer_add(w, &tm.hdr, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_writer_add(w, &comm.hdr, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_writer_add_exec(w, &ex, "/usr/bin/prog", &err), 0,
		     "%s", err.msg);
	cr_assert_eq(sb_writer_add_mmap(w, &mm, "sha256-" ABC_SHA256,
					"/usr/bin/prog", &err), 0, "%s",
		     err.msg);
	cr_assert_eq(sb_writer_add(w, &sw.hdr, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_writer_count(w), 5);
}

static const uint16_t record_types[] = {
	PTREC_SB_TIME, PTREC_SB_COMM, PTREC_SB_EXEC, PTREC_SB_MMAP,
	PTREC_SB_SWITCH_IN,
};

/* Everything written through the bundle API loads back: files listed with
 * their sizes, images stored once under their keys with the source bytes,
 * and the thread without a register snapshot has regs == NULL.
 */
Test(bundle, complete_bundle)
{
	static const char *const argv[] = { "/usr/bin/prog", "a b", "ü" };
	char dir[4096], path[4096], pt1[64], pt2[64], regs1[64], truth1[64];
	char exe_key[SB_IMAGE_KEY_MAX], key[SB_IMAGE_KEY_MAX];
	char abc_key[SB_IMAGE_KEY_MAX], id_hex[80], want[96];
	const struct ptrec_sb_header *rec;
	struct sb_manifest *m, *back = NULL;
	const struct sb_thread *t;
	const struct sb_image *im;
	struct sb_writer *w, *w2 = NULL;
	struct sb_regs regs, regs_back;
	struct sb_truth_writer *tw;
	struct sb_err err = { "" };
	struct sb_reader *r;
	unsigned char *exe;
	uint64_t *ips;
	size_t exe_len, n, i, j;
	struct sb_bundle *b;
	char *data;
	int ret;

	b = create(tpath(dir, sizeof(dir), "rec"));
	m = sb_bundle_manifest(b);
	m->backend = xstrdup("emu");
	snprintf(m->cpu.vendor, sizeof(m->cpu.vendor), "AuthenticAMD");
	m->cpu.family = 25;
	m->pt.emulated = true;
	m->pt.features = SB_PT_USER | SB_PT_BRANCH;
	m->time.time_zero = 18444502336406842448ull;
	cr_assert_eq(sb_manifest_set_argv(m, 3, argv), 0);
	m->cwd = xstrdup("/tmp");

	ret = sb_bundle_open_sideband(b, &w, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	ret = sb_bundle_open_sideband(b, &w2, &err);
	cr_assert_eq(ret, -EBUSY, "%d %s", ret, err.msg);
	add_records(w);

	/* the thread pointer is copied at once: the array may move later */
	cr_assert_eq(sb_bundle_add_thread(b, 100, 100, true, &t), 0);
	cr_assert_eq(t->pid, 100);
	cr_assert_eq(t->tid, 100);
	cr_assert_not_null(t->pt);
	cr_assert_not_null(t->regs);
	cr_assert_not_null(t->truth);
	snprintf(pt1, sizeof(pt1), "%s", t->pt);
	snprintf(regs1, sizeof(regs1), "%s", t->regs);
	snprintf(truth1, sizeof(truth1), "%s", t->truth);
	cr_assert_eq(sb_bundle_add_thread(b, 100, 101, false, &t), 0);
	cr_assert_null(t->truth);
	snprintf(pt2, sizeof(pt2), "%s", t->pt);
	cr_assert_str_neq(pt1, pt2);
	cr_assert_eq(sb_bundle_add_thread(b, 100, 100, false, NULL), -EEXIST);
	cr_assert_eq(sb_bundle_add_thread(b, 200, 101, true, NULL), -EEXIST);

	write_rel(b, pt1, 1000);
	write_rel(b, pt2, 37);
	memset(&regs, 0, sizeof(regs));
	regs.tid = 100;
	regs.valid = 1ull << SB_REG_RIP | 1ull << SB_REG_RSP;
	regs.val[SB_REG_RIP] = 0x401000;
	regs.val[SB_REG_RSP] = 0x7ffffffde000;
	cr_assert_gt(sb_bundle_path(b, regs1, path, sizeof(path)), 0);
	cr_assert_eq(sb_regs_save(&regs, path, &err), 0, "%s", err.msg);
	cr_assert_gt(sb_bundle_path(b, truth1, path, sizeof(path)), 0);
	cr_assert_eq(sb_truth_open(&tw, path, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_truth_add(tw, 0x401000), 0);
	cr_assert_eq(sb_truth_add(tw, 0x401004), 0);
	cr_assert_eq(sb_truth_add(tw, 0x401010), 0);
	cr_assert_eq(sb_truth_close(tw, &err), 0, "%s", err.msg);

	/* the test binary, twice: stored once under one key */
	exe = (unsigned char *)read_bytes("/proc/self/exe", &exe_len);
	ret = sb_bundle_add_image_file(b, "/proc/self/exe", exe_key,
				       sizeof(exe_key), &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	ret = sb_bundle_add_image_file(b, "/proc/self/exe", key, sizeof(key),
				       &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_str_eq(key, exe_key);
	cr_assert_eq(m->nimages, 1);
	cr_assert_eq(sb_image_key(exe, exe_len, key, sizeof(key)), 0);
	cr_assert_str_eq(key, exe_key);
	if (elf_build_id_hex(exe, exe_len, id_hex, sizeof(id_hex))) {
		snprintf(want, sizeof(want), "buildid-%s", id_hex);
		cr_assert_str_eq(exe_key, want);
	} else {
		cr_assert_eq(strncmp(exe_key, "sha256-", 7), 0, "%s", exe_key);
	}

	/* bytes in memory without a build-id: SHA-256 of the bytes */
	ret = sb_bundle_add_image_mem(b, "abc", 3, "[vdso]", abc_key,
				      sizeof(abc_key), &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_str_eq(abc_key, "sha256-" ABC_SHA256);
	ret = sb_bundle_add_image_mem(b, "abc", 3, "[vdso] again", key,
				      sizeof(key), &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_str_eq(key, abc_key);
	cr_assert_eq(m->nimages, 2);
	cr_assert_eq(count_entries(tpath(path, sizeof(path), "rec/images")),
		     2);

	ret = sb_bundle_finish(b, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	sb_bundle_free(b);

	ret = sb_manifest_load(&back, dir, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_str_eq(back->backend, "emu");
	cr_assert_eq(strncmp(back->producer, "ptrec ", 6), 0, "%s",
		     back->producer);
	cr_assert_str_eq(back->cpu.vendor, "AuthenticAMD");
	cr_assert_eq(back->cpu.family, 25);
	cr_assert_eq(back->pt.features, SB_PT_USER | SB_PT_BRANCH);
	cr_assert_eq(back->time.time_zero, 18444502336406842448ull);
	cr_assert_eq(back->argc, 3);
	cr_assert_str_eq(back->argv[2], "ü");

	/* sideband, 2 PT streams, 1 register snapshot, 1 truth, 2 images */
	cr_assert_eq(back->nfiles, 7);
	for (i = 0; i < back->nfiles; i++) {
		const struct sb_file *f = &back->files[i];

		tpath(path, sizeof(path), "rec/%s", f->path);
		cr_assert_eq((long long)f->size, file_size(path), "%s",
			     f->path);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(f->path, back->files[j].path);
		if (!strcmp(f->path, pt1))
			cr_assert_eq(f->size, 1000);
		if (!strcmp(f->path, pt2))
			cr_assert_eq(f->size, 37);
		if (!strcmp(f->path, truth1))
			cr_assert_eq(f->size, 16 + 3 * 8 * SB_TRUTH_WORDS);
	}

	cr_assert_eq(back->nthreads, 2);
	t = sb_manifest_thread(back, 100);
	cr_assert_not_null(t);
	cr_assert_str_eq(t->pt, pt1);
	cr_assert_str_eq(t->regs, regs1);
	cr_assert_str_eq(t->truth, truth1);
	tpath(path, sizeof(path), "rec/%s", t->regs);
	cr_assert_eq(sb_regs_load(&regs_back, path, &err), 0, "%s", err.msg);
	cr_assert_eq(regs_back.valid, regs.valid);
	cr_assert_eq(regs_back.val[SB_REG_RSP], regs.val[SB_REG_RSP]);
	tpath(path, sizeof(path), "rec/%s", t->truth);
	cr_assert_eq(sb_truth_load(path, &ips, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 3);
	cr_assert_eq(ips[2], 0x401010);
	free(ips);
	t = sb_manifest_thread(back, 101);
	cr_assert_not_null(t);
	cr_assert_eq(t->pid, 100);
	cr_assert_str_eq(t->pt, pt2);
	cr_assert_null(t->regs);
	cr_assert_null(t->truth);

	cr_assert_eq(back->nimages, 2);
	im = sb_manifest_image(back, exe_key);
	cr_assert_not_null(im);
	cr_assert_eq(im->size, exe_len);
	cr_assert_str_eq(im->path, "/proc/self/exe");
	tpath(path, sizeof(path), "rec/%s", im->file);
	data = read_bytes(path, &n);
	cr_assert_eq(n, exe_len);
	cr_assert_arr_eq(data, exe, exe_len);
	free(data);
	im = sb_manifest_image(back, abc_key);
	cr_assert_not_null(im);
	cr_assert_eq(im->size, 3);
	cr_assert_str_eq(im->path, "[vdso]");
	tpath(path, sizeof(path), "rec/%s", im->file);
	data = read_bytes(path, &n);
	cr_assert_eq(n, 3);
	cr_assert_arr_eq(data, "abc", 3);
	free(data);

	/* the sideband stream holds the records in order */
	tpath(path, sizeof(path), "rec/%s", back->sideband);
	cr_assert_eq(sb_reader_open(&r, path, &err), 0, "%s", err.msg);
	for (i = 0; (ret = sb_reader_next(r, &rec, &err)) == 1; i++) {
		cr_assert_lt(i, 5);
		cr_assert_eq(rec->type, record_types[i]);
	}
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_eq(i, 5);
	sb_reader_close(r);

	sb_manifest_free(back);
	free(exe);
}

/* A bundle with no thread and an unopened sideband still finishes. */
Test(bundle, finish_empty)
{
	struct sb_manifest *back = NULL;
	struct sb_err err = { "" };
	struct sb_bundle *b;
	char dir[4096];
	int ret;

	b = create(tpath(dir, sizeof(dir), "empty"));
	sb_bundle_manifest(b)->backend = xstrdup("kmod");
	ret = sb_bundle_finish(b, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	sb_bundle_free(b);
	ret = sb_manifest_load(&back, dir, &err);
	cr_assert_eq(ret, 0, "%d %s", ret, err.msg);
	cr_assert_eq(back->nthreads, 0);
	cr_assert_eq(back->nfiles, 1);
	cr_assert_str_eq(back->files[0].path, back->sideband);
	cr_assert_str_eq(back->files[0].kind, "sideband");
	cr_assert_eq(back->files[0].size,
		     sizeof(struct ptrec_sb_file_header));
	sb_manifest_free(back);
}

/* A declared thread whose PT stream was never written fails the finish
 * with -ENOENT naming the file, and no manifest is written.
 */
Test(bundle, finish_missing_pt)
{
	struct sb_manifest *back = NULL;
	const struct sb_thread *t;
	struct sb_err err = { "" };
	char dir[4096], path[4096], pt[64];
	struct sb_bundle *b;
	int ret;

	b = create(tpath(dir, sizeof(dir), "rec"));
	sb_bundle_manifest(b)->backend = xstrdup("emu");
	cr_assert_eq(sb_bundle_add_thread(b, 1, 1, false, &t), 0);
	write_rel(b, t->pt, 10);
	cr_assert_eq(sb_bundle_add_thread(b, 1, 77, true, &t), 0);
	snprintf(pt, sizeof(pt), "%s", t->pt);
	ret = sb_bundle_finish(b, &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	assert_msg_has(&err, pt);
	cr_assert_not(file_exists(tpath(path, sizeof(path),
					"rec/manifest.json")));
	sb_bundle_free(b);
	ret = sb_manifest_load(&back, dir, &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	assert_msg_has(&err, "incomplete");
}

/* sb_bundle_free without finish leaves a recognisably unfinished bundle. */
Test(bundle, free_without_finish)
{
	struct sb_manifest *back = NULL;
	const struct sb_thread *t;
	struct sb_err err = { "" };
	struct sb_writer *w;
	char dir[4096], path[4096];
	struct sb_bundle *b;
	int ret;

	b = create(tpath(dir, sizeof(dir), "rec"));
	sb_bundle_manifest(b)->backend = xstrdup("emu");
	cr_assert_eq(sb_bundle_open_sideband(b, &w, &err), 0, "%s", err.msg);
	add_records(w);
	cr_assert_eq(sb_bundle_add_thread(b, 5, 5, true, &t), 0);
	write_rel(b, t->pt, 100);
	sb_bundle_free(b);
	cr_assert_not(file_exists(tpath(path, sizeof(path),
					"rec/manifest.json")));
	ret = sb_manifest_load(&back, dir, &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	assert_msg_has(&err, "manifest.json");
	assert_msg_has(&err, "incomplete");
	cr_assert_null(back);
	/* the sideband written so far was flushed by the free */
	cr_assert_gt(file_size(tpath(path, sizeof(path), "rec/sideband.sb")),
		     (long long)sizeof(struct ptrec_sb_file_header));
}

/* ---- image keys --------------------------------------------------------- */

/* A key buffer below SB_IMAGE_KEY_MAX is refused with -ENAMETOOLONG. */
Test(bundle, image_key_buffer_too_small)
{
	char key[SB_IMAGE_KEY_MAX + 8], dir[4096];
	struct sb_err err = { "" };
	struct sb_bundle *b;
	int ret;

	cr_assert_eq(sb_image_key("abc", 3, key, SB_IMAGE_KEY_MAX - 1),
		     -ENAMETOOLONG);
	cr_assert_eq(sb_image_key("abc", 3, key, 0), -ENAMETOOLONG);
	cr_assert_eq(sb_image_key("abc", 3, key, SB_IMAGE_KEY_MAX), 0);
	cr_assert_eq(strlen(key), 7 + 64);
	cr_assert_lt(strlen(key), SB_IMAGE_KEY_MAX);

	b = create(tpath(dir, sizeof(dir), "rec"));
	ret = sb_bundle_add_image_mem(b, "abc", 3, "x", key, 16, &err);
	cr_assert_eq(ret, -ENAMETOOLONG, "%d %s", ret, err.msg);
	cr_assert_eq(sb_bundle_manifest(b)->nimages, 0);
	ret = sb_bundle_add_image_file(b, "/proc/self/exe", key, 8, &err);
	cr_assert_eq(ret, -ENAMETOOLONG, "%d %s", ret, err.msg);
	cr_assert_eq(sb_bundle_manifest(b)->nimages, 0);
	sb_bundle_free(b);
}

/* A missing source file is reported with its errno and name. */
Test(bundle, image_file_missing)
{
	char key[SB_IMAGE_KEY_MAX], dir[4096], path[4096];
	struct sb_err err = { "" };
	struct sb_bundle *b;
	int ret;

	b = create(tpath(dir, sizeof(dir), "rec"));
	ret = sb_bundle_add_image_file(b, tpath(path, sizeof(path), "nope"),
				       key, sizeof(key), &err);
	cr_assert_eq(ret, -ENOENT, "%d %s", ret, err.msg);
	assert_msg_has(&err, path);
	cr_assert_eq(sb_bundle_manifest(b)->nimages, 0);
	sb_bundle_free(b);
}

/* An ELF image with a build-id note is keyed "buildid-<note hex>". */
Test(bundle, image_key_build_id)
{
	char key[SB_IMAGE_KEY_MAX], id_hex[80], want[96];
	unsigned char *exe;
	size_t len;

	exe = (unsigned char *)read_bytes("/proc/self/exe", &len);
	cr_assert_eq(sb_image_key(exe, len, key, sizeof(key)), 0);
	if (!elf_build_id_hex(exe, len, id_hex, sizeof(id_hex))) {
		free(exe);
		cr_skip_test("the test binary has no build-id note");
	}
	snprintf(want, sizeof(want), "buildid-%s", id_hex);
	cr_assert_str_eq(key, want);
	free(exe);
}

/* An ELF image without a build-id falls back to the SHA-256 of its bytes. */
Test(bundle, image_key_elf_without_build_id)
{
	char key[SB_IMAGE_KEY_MAX], path[4096], cmd[4200], hex[65];
	unsigned char *elf;
	size_t len;
	FILE *p;

	elf = elf_without_build_id(100, &len);
	cr_assert_eq(sb_image_key(elf, len, key, sizeof(key)), 0);
	write_bytes(tpath(path, sizeof(path), "elf"), elf, len);
	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%64s", hex), 1);
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(strncmp(key, "sha256-", 7), 0, "%s", key);
	cr_assert_str_eq(key + 7, hex);
	free(elf);
}

/* FIPS 180-4 example vectors. */
Test(bundle, sha256_fips_vectors)
{
	char *million;

	assert_key("", 0, "e3b0c44298fc1c149afbf4c8996fb924"
			  "27ae41e4649b934ca495991b7852b855");
	assert_key("abc", 3, ABC_SHA256);
	assert_key("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		   56, "248d6a61d20638b8e5c026930c3e6039"
		       "a33ce45964ff2167f6ecedd419db06c1");
	million = malloc(1000000);
	cr_assert_not_null(million);
	memset(million, 'a', 1000000);
	assert_key(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67"
				     "f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

/* Padding edge cases: one or two final blocks ('A' + i % 26 inputs,
 * digests from sha256sum).
 */
Test(bundle, sha256_padding_edges)
{
	static const struct {
		size_t len;
		const char *hex;
	} cases[] = {
		{ 55, "5be2d480ff0ea4094fb05e7adb2c1dbf"
		      "1d7bd99dec429827ea4b9c1ddc7d3bf1" },
		{ 56, "f257b5e23c5cb81d044c7a9074ceeac9"
		      "235ff5c1b377048c7c368ef1038462a2" },
		{ 57, "195b9143b61dc4a08bf5599518ea2d70"
		      "4e1346af8624139143a6d4feffa76f1e" },
		{ 63, "8abf253c52140a4203ed43a606808e34"
		      "2ec84856c5c32bb8e4e3869885f83534" },
		{ 64, "9b0c3567683f6d5198d714b00c40df30"
		      "39f7717ba5ca65c2b6617688b63b42fa" },
		{ 65, "19811f1e6f2c8ef24d605283ec0fe0d3"
		      "5122b3d4a7a65d593797b8e2cf8e8865" },
		{ 119, "774836b19af4f3015a8dff4e9cb353b1"
		       "1899645ade4626c677a21c84cdb00050" },
		{ 120, "a26af5006eb83a2fc03fcd4a54ff5ab7"
		       "269b4732bb84dc76c41ec097ce17be3f" },
		{ 128, "b470b0f27ccf983862f868fdc64b4be3"
		       "ce096ae3a79191dc2de42e325f9d5c72" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char *buf = pattern(cases[i].len);

		assert_key(buf, cases[i].len, cases[i].hex);
		free(buf);
	}
}

/* Every length from 0 to 200 agrees with sha256sum run now. */
Test(bundle, sha256_all_short_lengths)
{
	char path[4096], cmd[4200], hex[65], name[64];
	unsigned char *buf = pattern(200);
	size_t len, seen = 0;
	FILE *p;

	cr_assert_eq(mkdir(tpath(path, sizeof(path), "sha"), 0755), 0);
	for (len = 0; len <= 200; len++)
		write_bytes(tpath(path, sizeof(path), "sha/%03zu", len), buf,
			    len);
	snprintf(cmd, sizeof(cmd), "cd '%s/sha' && sha256sum [0-9]*",
		 test_dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fscanf(p, "%64s %63s", hex, name) == 2) {
		len = strtoul(name, NULL, 10);
		cr_assert_leq(len, 200);
		assert_key(buf, len, hex);
		seen++;
	}
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(seen, 201);
	free(buf);
}

/* ---- durability (issue #19) -------------------------------------------- */

/* A bundle with a sideband stream, one thread's PT stream and one image,
 * durable or not; returns the fsync() calls its writing made.
 */
static int write_small(const char *dir, bool durable)
{
	static const unsigned char img[] = "\x7f" "ELF not really";
	char key[SB_IMAGE_KEY_MAX];
	struct sb_err err = { "" };
	const struct sb_thread *t;
	struct sb_manifest *m;
	struct sb_writer *w;
	struct sb_bundle *b;

	b = create(dir);
	m = sb_bundle_manifest(b);
	m->backend = xstrdup("import-raw");
	m->cpu.family = 6;
	sb_bundle_set_durable(b, durable);
	fsyncs = 0;
	cr_assert_eq(sb_bundle_open_sideband(b, &w, &err), 0, "%s", err.msg);
	add_records(w);
	cr_assert_eq(sb_bundle_add_thread(b, 100, 100, false, &t), 0);
	write_rel(b, t->pt, 4096);
	cr_assert_eq(sb_bundle_add_image_mem(b, img, sizeof(img), "/bin/x",
					     key, sizeof(key), &err), 0,
		     "%s", err.msg);
	cr_assert_eq(sb_bundle_finish(b, &err), 0, "%s", err.msg);
	sb_bundle_free(b);
	return fsyncs;
}

static void assert_same_file(const char *rel)
{
	char pa[4096], pb[4096];
	size_t la, lb;
	char *da, *db;

	tpath(pa, sizeof(pa), "durable/%s", rel);
	tpath(pb, sizeof(pb), "import/%s", rel);
	da = read_bytes(pa, &la);
	db = read_bytes(pb, &lb);
	cr_assert_eq(la, lb, "%s: %zu and %zu bytes", rel, la, lb);
	cr_assert_eq(memcmp(da, db, la), 0, "%s differs", rel);
	free(da);
	free(db);
}

/* A durable bundle syncs every file and directory a manifest names; one
 * that is not (an import) syncs only the manifest's bytes before their
 * rename.  Both hold the same files, listed at the same sizes, and no
 * temporary file is left.
 */
Test(bundle, durable_or_not)
{
	char d1[4096], d0[4096], tmp[4096];
	struct sb_manifest *m1 = NULL, *m0 = NULL;
	struct sb_err err = { "" };
	size_t i;

	tpath(d1, sizeof(d1), "durable");
	tpath(d0, sizeof(d0), "import");
	/* sideband.sb, the image, images/, manifest.json, the bundle */
	cr_assert_eq(write_small(d1, true), 5);
	cr_assert_eq(write_small(d0, false), 1);
	cr_assert_eq(sb_manifest_load(&m1, d1, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_manifest_load(&m0, d0, &err), 0, "%s", err.msg);
	cr_assert_eq(m0->nfiles, m1->nfiles);
	cr_assert_eq(m0->nfiles, 3);
	for (i = 0; i < m0->nfiles; i++) {
		cr_assert_str_eq(m0->files[i].path, m1->files[i].path);
		cr_assert_eq(m0->files[i].size, m1->files[i].size);
		assert_same_file(m0->files[i].path);
	}
	cr_assert_not(file_exists(tpath(tmp, sizeof(tmp),
					"import/manifest.json.tmp")));
	cr_assert_eq(count_entries(tpath(tmp, sizeof(tmp), "import/images")),
		     1);
	sb_manifest_free(m1);
	sb_manifest_free(m0);
}
