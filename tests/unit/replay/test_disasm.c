// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * replay/disasm.c against the real GDB 13.
 *
 * fixtures/disasm_fixture.c is built five ways (PIE with CET and IBT PLT
 * stubs, non-PIE, -O0, -fno-plt with BIND_NOW, AVX-512 vectorization), and
 * every instruction of every executable section, PLT stubs included, is
 * disassembled both by dis_insn() and by GDB's x/Ni; so are libc's AVX-512
 * string functions and its PLT stubs.  The texts must be identical, names
 * included.
 *
 * The names come from a symbolizer that follows GDB's rules for minimal
 * symbols (gdb/elfread.c, minsyms.c, printcmd.c): ELF symbols, "foo@plt"
 * for PLT entries, "foo@got.plt" for GOT slots, and which of several
 * symbols names an address.  The programs are built without debug
 * information, and GDB gets libc's debug file with its DWARF stripped, so
 * GDB too names addresses from minimal symbols alone.
 *
 * Runs gcc, gdb and objcopy, and reads libc's symbols from libc6-dbg
 * (scripts/install-deps installs them all).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "disasm.h"
#include "gdbsyms.h"

#define LIBC_PATH "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define DEBUG_DIR "/usr/lib/debug"
#define FIXTURE "tests/unit/replay/fixtures/disasm_fixture.c"
#define TEXT_MAX 1024

/* ---- GDB ---------------------------------------------------------------- */

struct range {
	const char *what;
	int sec;		/* in the main file */
	uint64_t start, end;
	bool whole;		/* only whole instructions: check exact sizes */
};

struct gdb_insn {
	uint64_t addr;
	char *text;
};

struct gdb_out {
	struct gdb_insn *insn;
	size_t n, cap;
};

/* "   0x1139 <main+4>:\tmov ..." (or "=> 0x..."): the address and text. */
static bool parse_x_line(char *line, uint64_t *addr, char **text)
{
	char *p = line, *end, *t;

	while (*p == ' ')
		p++;
	if (!strncmp(p, "=> ", 3))
		p += 3;
	if (strncmp(p, "0x", 2))
		return false;
	*addr = strtoull(p, &end, 16);
	t = strstr(end, ":\t");
	if (!t)
		return false;
	*text = t + 2;
	return true;
}

/*
 * One GDB session: x/Ni over each range, N its size in bytes (an upper
 * bound on its instructions), an echoed marker after each.
 */
static void run_gdb(const char *file, const char *debugdir,
		    const struct range *r, size_t nr, struct gdb_out *out)
{
	size_t cap = 4096 + nr * 96, len, i, cur = 0;
	char *cmd = malloc(cap), *line = NULL;
	size_t linecap = 0;
	ssize_t got;
	FILE *p;

	cr_assert_not_null(cmd);
	len = (size_t)snprintf(cmd, cap,
		"gdb -batch -nx -iex 'set debuginfod enabled off' "
		"-iex 'set debug-file-directory %s' -ex 'set width 0' "
		"-ex 'set height 0'", debugdir);
	for (i = 0; i < nr; i++)
		len += (size_t)snprintf(cmd + len, cap - len,
			" -ex 'x/%" PRIu64 "i 0x%" PRIx64 "' -ex 'echo @@@\\n'",
			r[i].end - r[i].start, r[i].start);
	snprintf(cmd + len, cap - len, " '%s' 2>&1", file);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "popen gdb: %s", strerror(errno));
	while ((got = getline(&line, &linecap, p)) > 0) {
		struct gdb_out *o = &out[cur];
		uint64_t addr;
		char *text;

		if (line[got - 1] == '\n')
			line[got - 1] = '\0';
		if (!strcmp(line, "@@@")) {
			cr_assert(++cur <= nr);
			continue;
		}
		if (cur >= nr || !parse_x_line(line, &addr, &text))
			continue;
		if (o->n == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 256;
			o->insn = realloc(o->insn, o->cap * sizeof(*o->insn));
			cr_assert_not_null(o->insn);
		}
		o->insn[o->n].addr = addr;
		o->insn[o->n].text = strdup(text);
		cr_assert_not_null(o->insn[o->n].text);
		o->n++;
	}
	free(line);
	cr_assert_eq(pclose(p), 0, "gdb failed: %s", cmd);
	cr_assert_eq(cur, nr, "gdb printed %zu of %zu ranges: %s", cur, nr,
		     cmd);
	free(cmd);
}

static void gdb_out_free(struct gdb_out *out, size_t nr)
{
	size_t i, k;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < out[i].n; k++)
			free(out[i].insn[k].text);
		free(out[i].insn);
	}
}

/*
 * Every instruction GDB printed in the range, disassembled by us with the
 * bytes up to the end of its section (as GDB reads on).  Returns how many.
 */
static size_t compare_range(struct dis *d, const struct elf_file *ef,
			    const struct range *r, const struct gdb_out *g)
{
	size_t avail, i, n = 0, bad = 0;
	char text[TEXT_MAX], exact[TEXT_MAX];
	uint8_t *bytes;

	bytes = read_section(ef, r->sec, r->start, &avail);
	cr_assert(g->n > 0 && g->insn[0].addr == r->start,
		  "%s: GDB printed nothing at 0x%" PRIx64, r->what, r->start);
	for (i = 0; i < g->n && g->insn[i].addr < r->end; i++) {
		uint64_t addr = g->insn[i].addr, off = addr - r->start;
		int len, len2;

		cr_assert(addr >= r->start && off < avail);
		len = dis_insn(d, bytes + off, avail - off, addr, text,
			       sizeof(text));
		cr_assert(len > 0 || len == -EILSEQ,
			  "%s: 0x%" PRIx64 ": dis_insn returned %d", r->what,
			  addr, len);
		n++;
		if (strcmp(text, g->insn[i].text)) {
			if (bad++ < 20)
				fprintf(stderr, "%s: 0x%" PRIx64 ":\n"
					"  gdb:   \"%s\"\n  ptrec: \"%s\"\n",
					r->what, addr, g->insn[i].text, text);
			continue;
		}
		if (len < 0)
			continue;
		cr_assert(i + 1 < g->n, "%s: GDB stopped after 0x%" PRIx64,
			  r->what, addr);
		cr_assert_eq(g->insn[i + 1].addr, addr + (uint64_t)len,
			     "%s: 0x%" PRIx64 " \"%s\": length %d, GDB's %"
			     PRIu64, r->what, addr, text, len,
			     g->insn[i + 1].addr - addr);
		if (!r->whole)
			continue;
		/* The instruction's own bytes are enough. */
		len2 = dis_insn(d, bytes + off, (size_t)len, addr, exact,
				sizeof(exact));
		cr_assert_eq(len2, len, "%s: 0x%" PRIx64 " \"%s\" from its %d "
			     "bytes: %d \"%s\"", r->what, addr, text, len, len2,
			     exact);
		cr_assert_str_eq(exact, text);
	}
	free(bytes);
	cr_assert_eq(bad, 0, "%s: %zu of %zu instructions differ from GDB",
		     r->what, bad, n);
	return n;
}

static size_t compare_with_gdb(const char *file, const char *debugdir,
			       const struct elf_file *ef,
			       const struct gdb_syms *gs,
			       const struct range *r, size_t nr)
{
	struct gdb_out *out = calloc(nr, sizeof(*out));
	size_t i, total = 0;
	struct dis *d;

	cr_assert_not_null(out);
	run_gdb(file, debugdir, r, nr, out);
	cr_assert_eq(dis_new(&d), 0);
	dis_set_symbolizer(d, symbolize, (void *)gs);
	for (i = 0; i < nr; i++)
		total += compare_range(d, ef, &r[i], &out[i]);
	dis_free(d);
	gdb_out_free(out, nr);
	free(out);
	return total;
}

/* ---- scratch directories ------------------------------------------------ */

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (!base || !*base)
		base = "/tmp";
	cr_assert_gt(asprintf(&dir, "%s/ptrec-disasm-XXXXXX", base), 0);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	return dir;
}

static void run(const char *cmd)
{
	int rc = system(cmd);

	cr_assert_eq(rc, 0, "failed (%d): %s", rc, cmd);
}

static void remove_tmpdir(char *dir)
{
	char *cmd;

	cr_assert_gt(asprintf(&cmd, "rm -rf '%s'", dir), 0);
	run(cmd);
	free(cmd);
	free(dir);
}

/* ---- the fixture program against GDB ------------------------------------ */

/*
 * Builds the fixture with @cflags and compares every instruction of its
 * executable sections with GDB.
 */
static void check_fixture(const char *variant, const char *cflags)
{
	const char *srcdir = getenv("PTREC_SRCDIR");
	struct gdb_syms gs = { 0 };
	struct range r[16];
	char *dir, *exe, *src, *cmd;
	struct elf_file ef;
	size_t i, nr = 0, total;

	if (!srcdir || !*srcdir)
		srcdir = ".";
	cr_assert_gt(asprintf(&src, "%s/%s", srcdir, FIXTURE), 0);
	cr_assert_eq(access(src, R_OK), 0,
		     "%s: %s (set PTREC_SRCDIR to the source tree)", src,
		     strerror(errno));
	dir = make_tmpdir();
	cr_assert_gt(asprintf(&exe, "%s/fixture", dir), 0);
	cr_assert_gt(asprintf(&cmd, "gcc %s -o '%s' '%s'", cflags, exe, src),
		     0);
	run(cmd);
	free(cmd);
	free(src);
	elf_file_open(&ef, exe);
	read_main(&gs, &ef);
	for (i = 1; i < ef.nsec && nr < 16; i++) {
		const struct section *s = &ef.sec[i];

		if (!(s->flags & SHF_EXECINSTR) || s->type != SHT_PROGBITS ||
		    !s->size)
			continue;
		r[nr].what = s->name;
		r[nr].sec = (int)i;
		r[nr].start = s->addr;
		r[nr].end = s->addr + s->size;
		r[nr].whole = strcmp(s->name, ".badtext") != 0;
		nr++;
	}
	cr_assert_geq(nr, 5, "%s: too few code sections", variant);
	total = compare_with_gdb(exe, dir, &ef, &gs, r, nr);
	fprintf(stderr, "test_disasm: %s: %zu instructions identical to GDB\n",
		variant, total);
	gdb_syms_free(&gs);
	elf_file_close(&ef);
	free(exe);
	remove_tmpdir(dir);
}

Test(gdb, pie_cet)
{
	check_fixture("PIE, CET, IBT PLT",
		      "-O2 -fPIE -pie -fcf-protection=full -Wl,-z,ibtplt");
}

Test(gdb, no_pie)
{
	check_fixture("non-PIE", "-O1 -fno-pie -no-pie");
}

Test(gdb, unoptimized)
{
	check_fixture("-O0", "-O0");
}

Test(gdb, no_plt_now)
{
	check_fixture("-fno-plt, BIND_NOW", "-O2 -fno-plt -Wl,-z,now");
}

Test(gdb, avx512)
{
	check_fixture("AVX-512", "-O3 -march=icelake-server");
}

/* ---- libc against GDB --------------------------------------------------- */

/* libc's GNU build-id as hex, for its debug file's name. */
static void build_id(const struct elf_file *ef, char *hex, size_t hexsz)
{
	size_t i;

	hex[0] = '\0';
	for (i = 1; i < ef->nsec; i++) {
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (ef->sec[i].type != SHT_NOTE)
			continue;
		data = section_data(ef, i);
		while ((off = gelf_getnote(data, off, &nh, &name_off,
					   &desc_off)) > 0) {
			const uint8_t *desc = (uint8_t *)data->d_buf + desc_off;
			size_t k;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) ||
			    2 * nh.n_descsz >= hexsz)
				continue;
			for (k = 0; k < nh.n_descsz; k++)
				sprintf(hex + 2 * k, "%02x", desc[k]);
			return;
		}
	}
}

/* The function @name in the debug file's .symtab, or false. */
static bool find_function(const struct elf_file *dbg, const char *name,
			  uint64_t *addr, uint64_t *size)
{
	size_t i, k;

	for (i = 1; i < dbg->nsec; i++) {
		const struct section *s = &dbg->sec[i];
		Elf_Data *data;

		if (s->type != SHT_SYMTAB || !s->entsize)
			continue;
		data = section_data(dbg, i);
		for (k = 1; k < s->size / s->entsize; k++) {
			const char *n;
			GElf_Sym sym;

			cr_assert_not_null(gelf_getsym(data, (int)k, &sym));
			n = elf_strptr(dbg->elf, s->link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_size &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
				*addr = sym.st_value;
				*size = sym.st_size;
				return true;
			}
		}
	}
	return false;
}

/*
 * Every instruction of libc's AVX-512 (EVEX) and AVX2 string functions
 * and of its PLT stubs.  GDB gets libc's debug file from libc6-dbg with
 * its DWARF stripped, so it names addresses as our symbolizer does.
 */
Test(gdb, libc)
{
	static const char *const funcs[] = {
		"__strlen_evex", "__memmove_avx_unaligned_erms",
		"__memchr_evex", "__strcmp_evex",
		"__memset_avx512_unaligned_erms",
		"__memcpy_avx512_no_vzeroupper", "__strnlen_evex512",
		"__memcmp_evex_movbe",
	};
	static const char *const plts[] = { ".plt", ".plt.got" };
	struct gdb_syms gs = { 0 };
	struct elf_file libc, dbg;
	char id[128], *dir, *src, *dst, *cmd;
	struct range r[16];
	size_t i, nr = 0, total;
	struct stat st;

	elf_file_open(&libc, LIBC_PATH);
	build_id(&libc, id, sizeof(id));
	cr_assert_gt(strlen(id), 2, "%s has no build-id", LIBC_PATH);
	cr_assert_gt(asprintf(&src, "%s/.build-id/%.2s/%s.debug", DEBUG_DIR,
			      id, id + 2), 0);
	cr_assert_eq(stat(src, &st), 0,
		     "%s: %s: install libc6-dbg (scripts/install-deps)", src,
		     strerror(errno));
	dir = make_tmpdir();
	cr_assert_gt(asprintf(&cmd, "mkdir -p '%s/.build-id/%.2s'", dir, id),
		     0);
	run(cmd);
	free(cmd);
	cr_assert_gt(asprintf(&dst, "%s/.build-id/%.2s/%s.debug", dir, id,
			      id + 2), 0);
	cr_assert_gt(asprintf(&cmd, "objcopy --strip-debug '%s' '%s'", src,
			      dst), 0);
	run(cmd);
	free(cmd);
	elf_file_open(&dbg, dst);
	read_main(&gs, &libc);
	read_debug(&gs, &dbg);

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		uint64_t addr, size;

		if (!find_function(&dbg, funcs[i], &addr, &size)) {
			/* The first two are what this test is about. */
			cr_assert_geq(i, 2, "%s not in %s", funcs[i], dst);
			continue;
		}
		r[nr].what = funcs[i];
		r[nr].sec = section_at(&libc, addr);
		cr_assert_geq(r[nr].sec, 0);
		r[nr].start = addr;
		r[nr].end = addr + size;
		r[nr].whole = true;
		nr++;
	}
	for (i = 0; i < sizeof(plts) / sizeof(plts[0]); i++) {
		int idx = section_by_name(&libc, plts[i]);

		if (idx < 0)
			continue;
		r[nr].what = plts[i];
		r[nr].sec = idx;
		r[nr].start = libc.sec[idx].addr;
		r[nr].end = libc.sec[idx].addr + libc.sec[idx].size;
		r[nr].whole = true;
		nr++;
	}
	total = compare_with_gdb(LIBC_PATH, dir, &libc, &gs, r, nr);
	fprintf(stderr,
		"test_disasm: libc: %zu instructions identical to GDB\n",
		total);
	gdb_syms_free(&gs);
	elf_file_close(&dbg);
	elf_file_close(&libc);
	free(src);
	free(dst);
	remove_tmpdir(dir);
}

/* ---- without GDB -------------------------------------------------------- */

static struct dis *d;

static void setup(void)
{
	cr_assert_eq(dis_new(&d), 0);
}

static void teardown(void)
{
	dis_free(d);
}

TestSuite(disasm, .init = setup, .fini = teardown);

struct fixed_sym {
	const char *name;
	uint64_t addr;
};

/* Names the one address it is given, as its symbol plus an offset. */
static int fixed(void *ctx, uint64_t addr, char *name, size_t namesz,
		 uint64_t *offset)
{
	const struct fixed_sym *f = ctx;

	snprintf(name, namesz, "%s", f->name);
	*offset = addr - f->addr;
	return 0;
}

static int unknown(void *ctx, uint64_t addr, char *name, size_t namesz,
		   uint64_t *offset)
{
	(void)ctx;
	(void)addr;
	(void)name;
	(void)namesz;
	(void)offset;
	return -1;
}

static void expect(const uint8_t *bytes, size_t n, uint64_t ip, int len,
		   const char *text)
{
	char out[TEXT_MAX];
	int got;

	memset(out, 'x', sizeof(out));
	got = dis_insn(d, bytes, n, ip, out, sizeof(out));
	cr_expect_eq(got, len, "\"%s\": returned %d, not %d", text, got, len);
	cr_expect_str_eq(out, text);
}

/* Texts as GDB 13.1 prints them (see the GDB tests above for proof). */
Test(disasm, plain)
{
	static const uint8_t mov[] = { 0x89, 0xf8 };
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t rep[] = { 0xf3, 0x48, 0xab };
	static const uint8_t notrack[] = { 0x3e, 0xff, 0xe0 };
	static const uint8_t nopw[] = { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0,
					0, 0 };

	expect(mov, sizeof(mov), 0x1139, 2, "mov    %edi,%eax");
	expect(ret, sizeof(ret), 0x1139, 1, "ret");
	expect(rep, sizeof(rep), 0x1139, 3, "rep stos %rax,%es:(%rdi)");
	expect(notrack, sizeof(notrack), 0x1139, 3, "notrack jmp *%rax");
	expect(nopw, sizeof(nopw), 0x1139, 10, "cs nopw 0x0(%rax,%rax,1)");
}

Test(disasm, names)
{
	/* call 0x1030 from 0x1139; lea 0xe9c(%rip),%rax at 0x1161 */
	static const uint8_t call[] = { 0xe8, 0xf2, 0xfe, 0xff, 0xff };
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05, 0x9c, 0x0e, 0, 0 };
	struct fixed_sym puts_plt = { "puts@plt", 0x1030 };
	struct fixed_sym buf = { "buf", 0x2000 };
	struct fixed_sym later = { "main", 0x1040 };

	expect(call, sizeof(call), 0x1139, 5, "call   0x1030");
	expect(lea, sizeof(lea), 0x1161, 7,
	       "lea    0xe9c(%rip),%rax        # 0x2004");
	dis_set_symbolizer(d, fixed, &puts_plt);
	expect(call, sizeof(call), 0x1139, 5, "call   0x1030 <puts@plt>");
	dis_set_symbolizer(d, fixed, &buf);
	expect(lea, sizeof(lea), 0x1161, 7,
	       "lea    0xe9c(%rip),%rax        # 0x2004 <buf+4>");
	/* A symbol after the address: GDB's int offset goes negative. */
	dis_set_symbolizer(d, fixed, &later);
	expect(call, sizeof(call), 0x1139, 5, "call   0x1030 <main-16>");
	dis_set_symbolizer(d, unknown, NULL);
	expect(call, sizeof(call), 0x1139, 5, "call   0x1030");
	dis_set_symbolizer(d, NULL, NULL);
	expect(call, sizeof(call), 0x1139, 5, "call   0x1030");
}

static int empty_name(void *ctx, uint64_t addr, char *name, size_t namesz,
		      uint64_t *offset)
{
	(void)ctx;
	(void)namesz;
	name[0] = '\0';
	*offset = addr;
	return 0;
}

/* A name with "(bad)" in it does not make the instruction bad. */
static int odd_name(void *ctx, uint64_t addr, char *name, size_t namesz,
		    uint64_t *offset)
{
	(void)ctx;
	snprintf(name, namesz, "f(bad)");
	*offset = addr - 0x1030;
	return 0;
}

Test(disasm, odd_names)
{
	static const uint8_t call[] = { 0xe8, 0xf2, 0xfe, 0xff, 0xff };

	dis_set_symbolizer(d, empty_name, NULL);
	expect(call, sizeof(call), 0x1139, 5, "call   0x1030");
	dis_set_symbolizer(d, odd_name, NULL);
	expect(call, sizeof(call), 0x1139, 5, "call   0x1030 <f(bad)>");
}

Test(disasm, bad)
{
	static const uint8_t push_es[] = { 0x06 };	/* not in 64-bit mode */
	static const uint8_t vex[] = { 0xc5, 0xfa, 0x90, 0xc0 };

	expect(push_es, sizeof(push_es), 0x1000, -EILSEQ, "(bad)");
	expect(vex, sizeof(vex), 0x1000, -EILSEQ, "(bad)");
}

/*
 * Bytes that end inside an instruction: -EILSEQ, and the text GDB prints
 * where readable memory ends there.
 */
Test(disasm, truncated)
{
	static const uint8_t call[] = { 0xe8, 0x01, 0x02 };
	static const uint8_t pause[] = { 0xf3 };
	static const uint8_t fwait[] = { 0x9b };
	static const uint8_t fstsw[] = { 0x9b, 0xdf, 0xe0 };
	char out[64];

	expect(call, sizeof(call), 0x1000, -EILSEQ, ".byte 0xe8");
	expect(pause, sizeof(pause), 0x1000, -EILSEQ, "repz");
	/* fwait is whole; with an x87 instruction after it, GDB joins them. */
	expect(fwait, sizeof(fwait), 0x1000, 1, "fwait");
	expect(fstsw, 2, 0x1000, 1, "fwait");
	expect(fstsw, sizeof(fstsw), 0x1000, 3, "fstsw  %ax");
	strcpy(out, "x");
	cr_expect_eq(dis_insn(d, call, 0, 0x1000, out, sizeof(out)), -EINVAL);
	cr_expect_str_eq(out, "");
}

Test(disasm, no_space)
{
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05, 0x9c, 0x0e, 0, 0 };
	static const char full[] = "lea    0xe9c(%rip),%rax        # 0x2004 "
				   "<buf+4>";
	struct fixed_sym buf = { "buf", 0x2000 };
	char out[sizeof(full) + 8];
	size_t sz;

	dis_set_symbolizer(d, fixed, &buf);
	cr_expect_eq(dis_insn(d, lea, sizeof(lea), 0x1161, out, 0), -ENOSPC);
	for (sz = 1; sz <= sizeof(full); sz++) {
		int want = sz == sizeof(full) ? 7 : -ENOSPC;

		memset(out, 'x', sizeof(out));
		cr_expect_eq(dis_insn(d, lea, sizeof(lea), 0x1161, out, sz),
			     want, "outsz %zu", sz);
		cr_expect_eq(strlen(out), sz - 1, "outsz %zu", sz);
		cr_expect_eq(strncmp(out, full, sz - 1), 0, "outsz %zu", sz);
		cr_expect_eq(out[sz], 'x', "outsz %zu: wrote past it", sz);
	}
}

/*
 * All of libc's .text, without GDB: each instruction disassembles the same
 * from its own bytes alone, fewer bytes are -EILSEQ, and every text needs
 * exactly its length plus one byte.
 */
Test(disasm, libc_text)
{
	size_t n, pos, count = 0;
	char text[TEXT_MAX], again[TEXT_MAX];
	struct elf_file libc;
	uint8_t *bytes;
	uint64_t start;
	int idx;

	elf_file_open(&libc, LIBC_PATH);
	idx = section_by_name(&libc, ".text");
	cr_assert_geq(idx, 0);
	start = libc.sec[idx].addr;
	bytes = read_section(&libc, idx, start, &n);
	for (pos = 0; pos < n; count++) {
		const uint8_t *b = bytes + pos;
		uint64_t ip = start + pos;
		int len, k;
		size_t tl;

		len = dis_insn(d, b, n - pos, ip, text, sizeof(text));
		cr_assert_gt(len, 0, "0x%" PRIx64 ": %d \"%s\"", ip, len,
			     text);
		cr_assert_eq(dis_insn(d, b, (size_t)len, ip, again,
				      sizeof(again)), len);
		cr_assert_str_eq(again, text, "0x%" PRIx64, ip);
		for (k = 1; k < len; k++) {
			int got = dis_insn(d, b, (size_t)k, ip, again,
					   sizeof(again));

			cr_assert(got == -EILSEQ || (b[0] == 0x9b && got == 1),
				  "0x%" PRIx64 " \"%s\" from %d bytes: %d "
				  "\"%s\"", ip, text, k, got, again);
		}
		tl = strlen(text);
		cr_assert_eq(dis_insn(d, b, n - pos, ip, again, tl), -ENOSPC);
		cr_assert_eq(dis_insn(d, b, n - pos, ip, again, tl + 1), len);
		pos += (size_t)len;
	}
	fprintf(stderr, "test_disasm: libc .text: %zu instructions\n", count);
	free(bytes);
	elf_file_close(&libc);
}
