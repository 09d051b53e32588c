// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for manifest.json and register snapshot parsing.
 *
 * Parses the input with sb_manifest_parse(); a manifest it accepts must
 * survive sb_manifest_save() and a second parse of the saved file with
 * every field unchanged.  sb_manifest_load() then runs on the saved bundle
 * (it usually fails on the listed files, which is fine; it must not crash).
 * The input is also written as a register snapshot for sb_regs_load(); a
 * snapshot it accepts must survive sb_regs_save() and a reload unchanged.
 * Failures must be the documented errors with a message.  Files go to one
 * temporary directory per process.  Everything is freed, for LeakSanitizer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sideband.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char tmpdir[64];

static void remove_tmpdir(void)
{
	static const char *const names[] = {
		"manifest.json", "manifest.json.tmp", "regs.json",
		"regs-saved.json", "regs-saved.json.tmp",
	};
	char path[128];
	size_t i;

	if (!tmpdir[0])
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

/* Leaves no directory behind when an invariant fails. */
#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",\
				__FILE__, __LINE__, #cond);		\
			remove_tmpdir();				\
			abort();					\
		}							\
	} while (0)

static void path_in_tmp(char *buf, size_t bufsz, const char *name)
{
	CHECK(snprintf(buf, bufsz, "%s/%s", tmpdir, name) < (int)bufsz);
}

/*
 * The per-process directory, created on first use: $PTREC_FUZZ_TMP/manifest
 * when set (make fuzz: one name in every run, since libFuzzer's mutations
 * take strings the code compares, random ones included), else a new one.
 */
static void init_tmpdir(void)
{
	const char *fixed = getenv("PTREC_FUZZ_TMP");

	if (tmpdir[0])
		return;
	if (fixed && (size_t)snprintf(tmpdir, sizeof(tmpdir), "%s/manifest",
				      fixed) < sizeof(tmpdir)) {
		CHECK(mkdir(tmpdir, 0700) == 0 || errno == EEXIST);
	} else {
		strcpy(tmpdir, "/tmp/ptrec-fuzz-manifest-XXXXXX");
		CHECK(mkdtemp(tmpdir) != NULL);
	}
	atexit(remove_tmpdir);
}

static void write_whole(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = buf;

	CHECK(fd >= 0);
	while (len) {
		ssize_t n = write(fd, p, len);

		CHECK(n > 0);
		p += n;
		len -= (size_t)n;
	}
	CHECK(close(fd) == 0);
}

/* Reads @path into a heap buffer (not NUL-terminated). */
static char *read_whole(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(buf != NULL && fd >= 0);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			CHECK(buf != NULL);
		}
		n = read(fd, buf + len, cap - len);
		CHECK(n >= 0);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	*lenp = len;
	return buf;
}

static bool same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* A and B must hold the same values in every field. */
static void check_same(const struct sb_manifest *a, const struct sb_manifest *b)
{
	size_t i;

	CHECK(a->format_version == b->format_version);
	CHECK(same_str(a->producer, b->producer));
	CHECK(same_str(a->backend, b->backend));

	CHECK(!strcmp(a->cpu.vendor, b->cpu.vendor));
	CHECK(a->cpu.family == b->cpu.family);
	CHECK(a->cpu.model == b->cpu.model);
	CHECK(a->cpu.stepping == b->cpu.stepping);

	CHECK(a->pt.emulated == b->pt.emulated);
	CHECK(a->pt.features == b->pt.features);
	CHECK(a->pt.psb_period == b->pt.psb_period);
	CHECK(a->pt.mtc_freq == b->pt.mtc_freq);
	CHECK(a->pt.nom_freq == b->pt.nom_freq);
	CHECK(a->pt.cpuid_15_eax == b->pt.cpuid_15_eax);
	CHECK(a->pt.cpuid_15_ebx == b->pt.cpuid_15_ebx);
	CHECK(a->pt.cyc_thresh == b->pt.cyc_thresh);

	CHECK(a->time.time_shift == b->time.time_shift);
	CHECK(a->time.time_mult == b->time.time_mult);
	CHECK(a->time.time_zero == b->time.time_zero);
	CHECK(a->time.tsc_hz == b->time.tsc_hz);

	CHECK(a->argc == b->argc);
	for (i = 0; i < a->argc; i++)
		CHECK(same_str(a->argv[i], b->argv[i]));
	CHECK(same_str(a->cwd, b->cwd));
	CHECK(a->start_ns == b->start_ns);
	CHECK(a->stop_ns == b->stop_ns);
	CHECK(same_str(a->sideband, b->sideband));

	CHECK(a->nprocs == b->nprocs);
	for (i = 0; i < a->nprocs; i++) {
		CHECK(a->procs[i].pid == b->procs[i].pid);
		CHECK(a->procs[i].ppid == b->procs[i].ppid);
		CHECK(same_str(a->procs[i].exe, b->procs[i].exe));
	}
	CHECK(a->nthreads == b->nthreads);
	for (i = 0; i < a->nthreads; i++) {
		CHECK(a->threads[i].pid == b->threads[i].pid);
		CHECK(a->threads[i].tid == b->threads[i].tid);
		CHECK(same_str(a->threads[i].pt, b->threads[i].pt));
		CHECK(same_str(a->threads[i].regs, b->threads[i].regs));
		CHECK(same_str(a->threads[i].truth, b->threads[i].truth));
	}
	CHECK(a->nimages == b->nimages);
	for (i = 0; i < a->nimages; i++) {
		CHECK(same_str(a->images[i].key, b->images[i].key));
		CHECK(same_str(a->images[i].file, b->images[i].file));
		CHECK(same_str(a->images[i].path, b->images[i].path));
		CHECK(a->images[i].size == b->images[i].size);
	}
	CHECK(a->nfiles == b->nfiles);
	for (i = 0; i < a->nfiles; i++) {
		CHECK(same_str(a->files[i].path, b->files[i].path));
		CHECK(same_str(a->files[i].kind, b->files[i].kind));
		CHECK(a->files[i].size == b->files[i].size);
	}
}

/* What sb_manifest_parse() promises about a manifest it returns. */
static void check_parsed(const struct sb_manifest *m)
{
	size_t i;

	CHECK(m->format_version >= SB_BUNDLE_VERSION_MIN &&
	      m->format_version <= SB_BUNDLE_VERSION);
	CHECK(m->producer && m->backend && m->sideband);
	CHECK(memchr(m->cpu.vendor, '\0', sizeof(m->cpu.vendor)) != NULL);
	CHECK(m->time.time_shift < 64);
	CHECK(!m->argc || m->argv);
	for (i = 0; i < m->argc; i++)
		CHECK(m->argv[i] != NULL);
	for (i = 0; i < m->nthreads; i++) {
		CHECK(m->threads[i].pt != NULL);
		CHECK(sb_manifest_thread(m, m->threads[i].tid) ==
		      &m->threads[i]);
	}
	for (i = 0; i < m->nimages; i++) {
		CHECK(m->images[i].key && m->images[i].file);
		CHECK(sb_manifest_image(m, m->images[i].key) ==
		      &m->images[i]);
	}
	for (i = 0; i < m->nfiles; i++)
		CHECK(m->files[i].path && m->files[i].kind);
}

static void fuzz_manifest(const uint8_t *data, size_t size)
{
	struct sb_manifest *m = NULL, *again = NULL, *loaded = NULL;
	struct sb_err err = { "" };
	char path[128], *text;
	size_t len;
	int ret;

	ret = sb_manifest_parse(&m, (const char *)data, size, "fuzz.json",
				&err);
	if (ret) {
		CHECK(ret == -EBADMSG || ret == -EPROTONOSUPPORT);
		CHECK(err.msg[0] != '\0');
		return;
	}
	check_parsed(m);

	ret = sb_manifest_save(m, tmpdir, &err);
	if (ret)
		fprintf(stderr, "sb_manifest_save: %s\n", err.msg);
	CHECK(ret == 0);
	path_in_tmp(path, sizeof(path), "manifest.json");
	text = read_whole(path, &len);
	ret = sb_manifest_parse(&again, text, len, path, &err);
	if (ret)
		fprintf(stderr, "re-parse of the saved manifest: %s\n",
			err.msg);
	CHECK(ret == 0);
	free(text);
	check_same(m, again);

	/* Listed files are mostly missing; only a crash would be wrong. */
	ret = sb_manifest_load(&loaded, tmpdir, &err);
	if (!ret) {
		check_same(m, loaded);
		sb_manifest_free(loaded);
	} else {
		CHECK(err.msg[0] != '\0');
	}
	sb_manifest_free(again);
	sb_manifest_free(m);
}

static void fuzz_regs(const uint8_t *data, size_t size)
{
	struct sb_regs regs, again;
	struct sb_err err = { "" };
	char path[128];
	unsigned int i;
	int ret;

	path_in_tmp(path, sizeof(path), "regs.json");
	write_whole(path, data, size);
	ret = sb_regs_load(&regs, path, &err);
	if (ret) {
		CHECK(ret == -EBADMSG || ret == -EPROTONOSUPPORT);
		CHECK(err.msg[0] != '\0');
		return;
	}
	CHECK(!(regs.valid >> SB_REG_COUNT));
	for (i = 0; i < SB_REG_COUNT; i++)
		CHECK((regs.valid & (1ull << i)) || !regs.val[i]);

	path_in_tmp(path, sizeof(path), "regs-saved.json");
	ret = sb_regs_save(&regs, path, &err);
	CHECK(ret == 0);
	ret = sb_regs_load(&again, path, &err);
	if (ret)
		fprintf(stderr, "reload of the saved snapshot: %s\n", err.msg);
	CHECK(ret == 0);
	CHECK(regs.tid == again.tid);
	CHECK(regs.valid == again.valid);
	CHECK(!memcmp(regs.val, again.val, sizeof(regs.val)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	init_tmpdir();
	fuzz_manifest(data, size);
	fuzz_regs(data, size);
	return 0;
}
