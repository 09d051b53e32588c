// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The symbolizer (replay/symbols.c) opening ELF files: sonames and base
 * names, the errors of what is not ELF, and 600 truncated or corrupted
 * copies of the fixtures, which must open or fail cleanly, never crash.
 */
#include "symfix.h"

/* ---- opening and names --------------------------------------------------- */

Test(symbols, soname_or_basename)
{
	struct sym_module *m = open_fix("libsymfix.so");
	const char *p = fix("symfix");

	cr_assert_str_eq(sym_module_name(m), "libsymfix.so.1");
	sym_module_close(m);

	cr_assert_eq(sym_module_open(&m, p, "/usr/local/bin/renamed"), 0);
	cr_assert_str_eq(sym_module_name(m), "renamed");
	sym_module_close(m);

	cr_assert_eq(sym_module_open(&m, p, NULL), 0);
	cr_assert_str_eq(sym_module_name(m), "symfix");
	sym_module_close(m);
	sym_module_close(NULL);
}

Test(symbols, errors)
{
	struct sym_module *m = (void *)1;
	char tmp[] = "/tmp/ptrec-sym-XXXXXX";
	int fd;

	cr_assert_eq(sym_module_open(&m, fix("no-such-file"), NULL), -ENOENT);
	cr_assert_null(m);
	/* A C source, a directory, an empty file: not ELF. */
	cr_assert_eq(sym_module_open(&m, FIX_SRC, NULL), -EINVAL);
	cr_assert_eq(sym_module_open(&m, RP_FIXTURES, NULL), -EINVAL);
	fd = mkstemp(tmp);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(sym_module_open(&m, tmp, NULL), -EINVAL);
	unlink(tmp);
}

static uint64_t next_rand(uint64_t *rng)
{
	uint64_t x = *rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	return x;
}

/* Writes the first @len bytes of @src to @dst, with @nflip random bytes
 * of [@from, @from + @span) changed.
 */
static void write_damaged(const char *dst, const unsigned char *src,
			  size_t len, size_t from, size_t span,
			  unsigned int nflip, uint64_t *rng)
{
	unsigned char *buf = malloc(len ? len : 1);
	unsigned int i;
	FILE *f;

	cr_assert_not_null(buf);
	memcpy(buf, src, len);
	for (i = 0; span && i < nflip; i++) {
		uint64_t x = next_rand(rng);
		size_t pos = from + (x >> 8) % span;

		if (pos < len)
			buf[pos] = (unsigned char)(x >> 32);
	}
	f = fopen(dst, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
}

struct region {
	size_t off, len;
};

/* The parts of an ELF file worth damaging: its headers, the section
 * header table and every section with bytes (symbols, relocations, PLT,
 * each DWARF section), read here with libelf.
 */
static size_t regions_of(const char *path, struct region *v, size_t max)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t n = 0;
	Elf *e;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(gelf_getehdr(e, &eh));
	v[n++] = (struct region){ 0, 64 };
	v[n++] = (struct region){ eh.e_phoff, (size_t)eh.e_phnum * 56 };
	v[n++] = (struct region){ eh.e_shoff, (size_t)eh.e_shnum * 64 };
	while ((scn = elf_nextscn(e, scn)) && n < max)
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    sh.sh_size)
			v[n++] = (struct region){ sh.sh_offset, sh.sh_size };
	elf_end(e);
	close(fd);
	return n;
}

/* Everything a caller can ask, over a range of addresses; must not crash. */
static void poke(struct sym_module *m)
{
	uint64_t a, v, s, b, e;
	struct sym_info si;
	const char *name;

	sym_module_name(m);
	for (a = 0; a < 0x5000; a += 3) {
		sym_lookup(m, a, &si);
		sym_name_address(m, a, &name, &v);
		sym_line_range(m, a, &b, &e);
		sym_offset_to_vaddr(m, a, &v);
	}
	sym_find_function(m, "main", &v, &s);
	sym_find_function(m, "puts@plt", &v, &s);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	FILE *f = fopen(path, "rb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fstat(fileno(f), &st), 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

Test(symbols, truncated_elf)
{
	char tmp[] = "/tmp/ptrec-sym-XXXXXX";
	struct sym_module *m;
	unsigned char *elf;
	size_t len, cut[] = { 1, 16, 63, 64, 100, 512, 4096, 8192, 0, 0 };
	size_t i;
	uint64_t rng = 1;
	int fd = mkstemp(tmp);

	cr_assert_geq(fd, 0);
	close(fd);
	elf = slurp(fix("symfix"), &len);
	cut[8] = len / 2;
	cut[9] = len - 1;
	/* The first 100 bytes: an ELF header and nothing it points to. */
	write_damaged(tmp, elf, 100, 0, 0, 0, &rng);
	cr_assert_eq(sym_module_open(&m, tmp, NULL), -EINVAL);
	for (i = 0; i < sizeof(cut) / sizeof(*cut); i++) {
		write_damaged(tmp, elf, cut[i], 0, 0, 0, &rng);
		if (!sym_module_open(&m, tmp, NULL)) {
			poke(m);
			sym_module_close(m);
		}
	}
	unlink(tmp);
	free(elf);
}

/* Random damage to each part of three fixtures, 600 times. */
Test(symbols, corrupt_elf)
{
	static const char *const files[] = { "symfix", "libsymfix.so",
					     "symfix-stripped" };
	char tmp[] = "/tmp/ptrec-sym-XXXXXX";
	struct region regions[3][64];
	size_t nregions[3], i;
	struct sym_module *m;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned int opened = 0;
	int fd = mkstemp(tmp);

	cr_assert_geq(fd, 0);
	close(fd);
	for (i = 0; i < 3; i++)
		nregions[i] = regions_of(fix(files[i]), regions[i], 64);
	for (i = 0; i < 600; i++) {
		size_t len, f = i % 3;
		unsigned char *elf = slurp(fix(files[f]), &len);
		const struct region *r;

		r = &regions[f][next_rand(&rng) % nregions[f]];
		write_damaged(tmp, elf, len, r->off, r->len,
			      1 + (unsigned int)(i % 16), &rng);
		free(elf);
		if (!sym_module_open(&m, tmp, NULL)) {
			opened++;
			poke(m);
			sym_module_close(m);
		}
	}
	cr_assert_gt(opened, 0);
	cr_log_info("%u of 600 damaged files opened", opened);
	unlink(tmp);
}
