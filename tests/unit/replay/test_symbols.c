// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The symbolizer (replay/symbols.c) against independent readers of the same
 * fixtures: nm and objdump from binutils, libelf read directly, and the real
 * GDB (`info symbol`, `info line`), which is what ptrec must agree with.
 * The fixtures are built by tests/unit/replay/fixtures/build.sh into
 * RP_FIXTURES; tests that need GDB skip without it.
 */
#include "symfix.h"

/* ---- nm: symbol addresses and sizes -------------------------------------- */

struct nm_sym {
	uint64_t addr, size;
	char type;
	char name[128];
};

/* `nm -S --defined-only`, code symbols only (t, T, w, W, i). */
static size_t nm_code(const char *file, struct nm_sym *v, size_t max)
{
	char *out = run("nm -S --defined-only '%s'", file), *save, *l;
	size_t n = 0;

	for (l = strtok_r(out, "\n", &save); l && n < max;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, s;
		char t, name[128];

		if (sscanf(l, "%llx %llx %c %127s", &a, &s, &t, name) != 4) {
			s = 0;
			if (sscanf(l, "%llx %c %127s", &a, &t, name) != 3)
				continue;
		}
		if (!strchr("tTwWi", t))
			continue;
		v[n].addr = a;
		v[n].size = s;
		v[n].type = t;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	free(out);
	return n;
}

static struct nm_sym nm_find(const char *file, const char *name)
{
	static struct nm_sym v[512];
	size_t i, n = nm_code(file, v, 512);

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i];
	cr_assert_fail("nm: no %s in %s", name, file);
	return v[0];
}

/* ---- objdump: PLT stub names --------------------------------------------- */

struct plt_ent {
	uint64_t addr;
	char name[128];
};

/* The "<foo@plt>:" labels objdump -d prints (BFD's synthetic symbols). */
static size_t objdump_plt(const char *file, struct plt_ent *v, size_t max)
{
	char *out = run("objdump -d -j .plt -j .plt.sec -j .plt.got '%s' "
			"2>/dev/null", file);
	char *save, *l;
	size_t n = 0;

	for (l = strtok_r(out, "\n", &save); l && n < max;
	     l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char name[128];

		if (sscanf(l, "%llx <%127[^>]>:", &a, name) != 2 ||
		    !strstr(name, "@plt") || strchr(name, '-'))
			continue;
		v[n].addr = a;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	free(out);
	return n;
}

/* ---- objdump: the decoded line table ------------------------------------- */

struct lrow {
	uint64_t addr;
	int line;
	bool stmt, end;		/* is_stmt, end of sequence */
	size_t order;
};

static int cmp_lrow(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* An end of sequence first, as libdw and GDB order them. */
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* `objdump --dwarf=decodedline`, sorted by address. */
static size_t objdump_lines(const char *file, struct lrow *v, size_t max)
{
	char *out = run("objdump --dwarf=decodedline '%s'", file);
	char *save, *l;
	size_t n = 0;

	for (l = strtok_r(out, "\n", &save); l && n < max;
	     l = strtok_r(NULL, "\n", &save)) {
		char name[256], line[32], addr[32];
		size_t len = strlen(l);

		if (sscanf(l, "%255s %31s %31s", name, line, addr) != 3 ||
		    strncmp(addr, "0x", 2) ||
		    (!isdigit((unsigned char)line[0]) && strcmp(line, "-")))
			continue;
		v[n].addr = strtoull(addr, NULL, 16);
		v[n].end = !strcmp(line, "-");
		v[n].line = atoi(line);
		v[n].stmt = !v[n].end && len && l[len - 1] == 'x';
		v[n].order = n;
		n++;
	}
	free(out);
	qsort(v, n, sizeof(*v), cmp_lrow);
	return n;
}

/* ---- GDB ----------------------------------------------------------------- */

/* Runs GDB on @file with one @cmd_fmt ("info symbol 0x%llx") per address
 * and returns its output split per address (each malloc'd).
 */
static char **gdb_each(const char *file, const char *cmd_fmt,
		       const uint64_t *addrs, size_t n)
{
	static char cmd[65536];
	char **res = calloc(n, sizeof(*res)), *out, *p;
	size_t i, len = 0;

	cr_assert_not_null(res);
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
				"gdb -batch -nx");
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
					" -ex 'echo @@%zu\\n' -ex '", i);
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, cmd_fmt,
					(unsigned long long)addrs[i]);
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "'");
		cr_assert_lt(len, sizeof(cmd) - 256);
	}
	snprintf(cmd + len, sizeof(cmd) - len, " '%s' 2>/dev/null", file);
	out = run("%s", cmd);
	for (p = out; (p = strstr(p, "@@"));) {
		char *end;
		size_t k = strtoul(p + 2, &end, 10);
		char *next = strstr(end, "@@");
		size_t l = next ? (size_t)(next - end) : strlen(end);

		if (k < n) {
			res[k] = strndup(end + 1, l ? l - 1 : 0);
			cr_assert_not_null(res[k]);
		}
		p = end;
	}
	free(out);
	for (i = 0; i < n; i++)
		cr_assert_not_null(res[i], "no GDB output for %#llx",
				   (unsigned long long)addrs[i]);
	return res;
}

static void free_each(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Parses "main + 4 in section .text[ of FILE]" (name, offset) or "No symbol
 * matches" (name "").
 */
static void parse_info_symbol(const char *s, char *name, size_t sz,
			      uint64_t *off)
{
	const char *in = strstr(s, " in section ");
	const char *plus = strstr(s, " + ");
	size_t len;

	*off = 0;
	name[0] = '\0';
	if (!in || strstr(s, "No symbol matches"))
		return;
	if (plus && plus < in) {
		len = (size_t)(plus - s);
		*off = strtoull(plus + 3, NULL, 10);
	} else {
		len = (size_t)(in - s);
	}
	snprintf(name, sz, "%.*s", (int)len, s);
}

/* Compares sym_lookup() with GDB's `info symbol` at every address. */
static void check_info_symbol(const char *fixture, const uint64_t *addrs,
			      size_t n)
{
	struct sym_module *m = open_fix(fixture);
	char **gdb = gdb_each(fix(fixture), "info symbol 0x%llx", addrs, n);
	size_t i, named = 0;

	for (i = 0; i < n; i++) {
		struct sym_info si;
		char name[256];
		uint64_t off;

		parse_info_symbol(gdb[i], name, sizeof(name), &off);
		cr_assert_eq(sym_lookup(m, addrs[i], &si) == 0 || !*name, 1);
		if (!*name) {
			cr_expect_null(si.function,
				       "%s %#llx: GDB: %s, ptrec: %s", fixture,
				       (unsigned long long)addrs[i], gdb[i],
				       si.function);
			continue;
		}
		named++;
		cr_expect_str_eq(si.function ? si.function : "(none)", name,
				 "%s %#llx: GDB: %s", fixture,
				 (unsigned long long)addrs[i], gdb[i]);
		cr_expect_eq(si.offset, off, "%s %#llx: GDB: %s, ptrec +%llu",
			     fixture, (unsigned long long)addrs[i], gdb[i],
			     (unsigned long long)si.offset);
	}
	/* Only a stripped library leaves GDB most addresses unnamed. */
	cr_assert_geq(named, 3, "%s: GDB named %zu addresses", fixture, named);
	cr_log_info("%s: %zu addresses as GDB names them (%zu named)",
		    fixture, n, named);
	free_each(gdb, n);
	sym_module_close(m);
}

/* Addresses worth comparing in an executable fixture: inside functions,
 * at aliases, in PLT stubs, in PLT0 and in padding between functions.
 */
static size_t interesting(const char *fixture, uint64_t *v, size_t max)
{
	static const char *const funcs[] = {
		"main", "fix_static", "fix_outer", "fix_global", "aa_target",
		"_start", "frame_dummy", "register_tm_clones", "symfix_lib",
		"lib_static",
	};
	static struct nm_sym syms[512];
	struct plt_ent plt[32];
	/* A stripped file has the layout of the one it was stripped from. */
	const char *file = !strcmp(fixture, "symfix-stripped") ?
			   fix("symfix") :
			   !strcmp(fixture, "libsymfix-dynsym.so") ?
			   fix("libsymfix.so") : fix(fixture);
	size_t i, j, n = 0, ns = nm_code(file, syms, 512);
	size_t np = objdump_plt(file, plt, 32);

	for (i = 0; i < sizeof(funcs) / sizeof(*funcs); i++)
		for (j = 0; j < ns && n + 3 <= max; j++) {
			if (strcmp(syms[j].name, funcs[i]))
				continue;
			v[n++] = syms[j].addr;
			v[n++] = syms[j].addr + (syms[j].size ? syms[j].size / 2 :
							       3);
			/* Just past a sized function: padding or the next. */
			if (syms[j].size)
				v[n++] = syms[j].addr + syms[j].size;
		}
	for (i = 0; i < np && n + 2 <= max; i++) {
		v[n++] = plt[i].addr;
		v[n++] = plt[i].addr + 4;
	}
	/* PLT0 (or the lazy entries of an IBT PLT). */
	if (np && n < max)
		v[n++] = plt[0].addr - 12;
	return n;
}

/* ---- addresses to file offsets ------------------------------------------- */

/* Every PT_LOAD, read with libelf here, maps back and forth. */
static void check_offsets(const char *fixture)
{
	struct sym_module *m = open_fix(fixture);
	int fd = open(fix(fixture), O_RDONLY);
	size_t i, n, loads = 0;
	uint64_t v, max_end = 0;
	GElf_Phdr ph;
	Elf *e;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_eq(elf_getphdrnum(e, &n), 0);
	for (i = 0; i < n; i++) {
		cr_assert_not_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		loads++;
		cr_assert_eq(sym_offset_to_vaddr(m, ph.p_offset, &v), 0);
		cr_expect_eq(v, ph.p_vaddr, "%s segment %zu start", fixture,
			     i);
		cr_assert_eq(sym_offset_to_vaddr(m, ph.p_offset +
						 ph.p_filesz - 1, &v), 0);
		cr_expect_eq(v, ph.p_vaddr + ph.p_filesz - 1);
		if (ph.p_offset + ph.p_filesz > max_end)
			max_end = ph.p_offset + ph.p_filesz;
	}
	cr_assert_geq(loads, 2);
	cr_assert_eq(sym_offset_to_vaddr(m, max_end + 0x10000, &v), -ENOENT);
	elf_end(e);
	close(fd);
	sym_module_close(m);
}

Test(symbols, offset_to_vaddr_pie)
{
	struct sym_module *m = open_fix("symfix");
	struct nm_sym main_sym = nm_find(fix("symfix"), "main");
	uint64_t v;

	check_offsets("symfix");
	check_offsets("libsymfix.so");
	/* A PIE's data segment sits a page above its file offset. */
	cr_assert_eq(sym_offset_to_vaddr(m, 0x2ff0, &v), 0);
	cr_assert_gt(v, 0x2ff0);
	/* Code: PIE text is mapped at its own offset. */
	cr_assert_eq(sym_offset_to_vaddr(m, main_sym.addr, &v), 0);
	cr_assert_eq(v, main_sym.addr);
	sym_module_close(m);
}

Test(symbols, offset_to_vaddr_nopie)
{
	struct sym_module *m = open_fix("symfix-nopie");
	struct nm_sym main_sym = nm_find(fix("symfix-nopie"), "main");
	uint64_t v;

	check_offsets("symfix-nopie");
	/* Non-PIE: linked at 0x400000, main's offset is 0x400000 less. */
	cr_assert_eq(sym_offset_to_vaddr(m, main_sym.addr - 0x400000, &v), 0);
	cr_assert_eq(v, main_sym.addr);
	sym_module_close(m);
}

/* ---- function names ------------------------------------------------------ */

/* Inside every sized function nm lists, sym_lookup names it (or an alias
 * at the same address) with the right offset.
 */
static void check_against_nm(const char *fixture)
{
	static struct nm_sym v[512];
	struct sym_module *m = open_fix(fixture);
	size_t i, j, n = nm_code(fix(fixture), v, 512), checked = 0;

	for (i = 0; i < n; i++) {
		uint64_t offs[3] = { 0, v[i].size / 2, v[i].size - 1 };

		if (!v[i].size)
			continue;
		for (j = 0; j < 3; j++) {
			struct sym_info si;
			struct nm_sym alias;
			size_t k;
			bool ok = false;

			cr_assert_eq(sym_lookup(m, v[i].addr + offs[j], &si), 0);
			cr_assert_not_null(si.function, "%s: %s+%llu",
					   fixture, v[i].name,
					   (unsigned long long)offs[j]);
			for (k = 0; k < n && !ok; k++) {
				alias = v[k];
				ok = alias.addr == v[i].addr &&
				     !strcmp(alias.name, si.function);
			}
			cr_expect(ok, "%s: %s+%llu named %s", fixture,
				  v[i].name, (unsigned long long)offs[j],
				  si.function);
			cr_expect_eq(si.func_vaddr, v[i].addr);
			cr_expect_eq(si.offset, offs[j]);
			checked++;
		}
	}
	cr_assert_geq(checked, 6, "%s: only %zu addresses", fixture, checked);
	sym_module_close(m);
}

Test(symbols, names_match_nm)
{
	check_against_nm("symfix");
	check_against_nm("symfix-lazy");
	check_against_nm("symfix-nopie");
	check_against_nm("symfix-nodebug");
	check_against_nm("libsymfix.so");
}

Test(symbols, static_function)
{
	struct sym_module *m = open_fix("symfix");
	struct nm_sym s = nm_find(fix("symfix"), "fix_static");
	struct sym_info si;

	cr_assert_eq(s.type, 't');
	cr_assert_eq(sym_lookup(m, s.addr + 2, &si), 0);
	cr_assert_str_eq(si.function, "fix_static");
	cr_assert_eq(si.func_vaddr, s.addr);
	cr_assert_eq(si.offset, 2);
	sym_module_close(m);
}

/* aa_target has a weak alias and a local one that sorts last: GDB prefers
 * the last global-or-weak name, mm_weak_alias (checked against GDB in
 * gdb_info_symbol too).
 */
Test(symbols, aliases_as_gdb)
{
	struct sym_module *m = open_fix("symfix");
	struct nm_sym s = nm_find(fix("symfix"), "aa_target");
	struct nm_sym l = nm_find(fix("symfix"), "zz_local_alias");
	struct sym_info si;

	cr_assert_eq(l.addr, s.addr);
	cr_assert_eq(sym_lookup(m, s.addr + 1, &si), 0);
	cr_assert_str_eq(si.function, "mm_weak_alias");
	cr_assert_eq(si.offset, 1);
	sym_module_close(m);
}

/* objdump's "<foo@plt>:" labels are BFD's synthetic symbols, which GDB
 * uses; every layout must give the same names.
 */
static void check_plt(const char *fixture, const char *const *want,
		      size_t nwant)
{
	struct sym_module *m = open_fix(fixture);
	struct plt_ent plt[32];
	size_t i, j, n = objdump_plt(fix(fixture), plt, 32);
	struct sym_info si;
	uint64_t v, s;

	for (i = 0; i < nwant; i++) {
		for (j = 0; j < n && strcmp(plt[j].name, want[i]); j++)
			;
		cr_assert_lt(j, n, "%s: objdump shows no %s", fixture,
			     want[i]);
	}
	for (i = 0; i < n; i++) {
		cr_assert_eq(sym_lookup(m, plt[i].addr, &si), 0);
		cr_expect_str_eq(si.function ? si.function : "(none)",
				 plt[i].name, "%s: %#llx", fixture,
				 (unsigned long long)plt[i].addr);
		cr_expect_eq(si.offset, 0);
		cr_assert_eq(sym_lookup(m, plt[i].addr + 4, &si), 0);
		cr_expect_str_eq(si.function ? si.function : "(none)",
				 plt[i].name);
		cr_expect_eq(si.offset, 4);
		cr_assert_eq(sym_find_function(m, plt[i].name, &v, &s), 0);
		cr_expect_eq(v, plt[i].addr);
		cr_expect(s == 8 || s == 16, "stub size %llu",
			  (unsigned long long)s);
	}
	sym_module_close(m);
}

Test(symbols, plt_ibt)
{
	static const char *const want[] = {
		"puts@plt", "strlen@plt", "symfix_lib@plt",
		"__cxa_finalize@plt"
	};
	struct sym_module *m = open_fix("symfix");
	struct plt_ent plt[32];
	size_t n = objdump_plt(fix("symfix"), plt, 32);
	struct sym_info si;
	uint64_t v, s;

	check_plt("symfix", want, 4);
	/* The lazy half of an IBT PLT (.plt) has no names, as in GDB. */
	cr_assert_gt(n, 0);
	cr_assert_eq(sym_find_function(m, "puts@plt", &v, &s), 0);
	cr_assert_eq(s, 16);
	sym_lookup(m, 0x1024, &si);
	cr_assert_null(si.function, "%s", si.function);
	sym_module_close(m);
}

Test(symbols, plt_lazy)
{
	static const char *const want[] = {
		"puts@plt", "strlen@plt", "symfix_lib@plt",
		"__cxa_finalize@plt"
	};
	struct sym_module *m = open_fix("symfix-lazy");
	struct sym_info si;
	uint64_t v, s;

	check_plt("symfix-lazy", want, 4);
	check_plt("symfix-now", want, 4);
	check_plt("symfix-nopie", want, 3);
	check_plt("libsymfix.so", want, 1);
	/* PLT0 is nameless; the first stub follows it. */
	cr_assert_eq(sym_find_function(m, "puts@plt", &v, &s), 0);
	sym_lookup(m, v - 16, &si);
	cr_assert_null(si.function);
	sym_module_close(m);
}

Test(symbols, find_function)
{
	static const char *const names[] = {
		"main", "fix_static", "fix_outer", "fix_global", "aa_target"
	};
	struct sym_module *m = open_fix("symfix");
	uint64_t v, s;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct nm_sym n = nm_find(fix("symfix"), names[i]);

		cr_assert_eq(sym_find_function(m, names[i], &v, &s), 0, "%s",
			     names[i]);
		cr_expect_eq(v, n.addr, "%s", names[i]);
		cr_expect_eq(s, n.size, "%s", names[i]);
	}
	cr_assert_eq(sym_find_function(m, "no_such_function", &v, &s),
		     -ENOENT);
	/* A variable is not a function. */
	cr_assert_eq(sym_find_function(m, "sink", &v, &s), -ENOENT);
	sym_module_close(m);
}

Test(symbols, data_names)
{
	struct sym_module *m = open_fix("symfix");
	char *out = run("nm -S '%s' | awk '$4 == \"sink\" {print $1}'",
			fix("symfix"));
	uint64_t addr = strtoull(out, NULL, 16), off;
	const char *name;

	cr_assert_neq(addr, 0);
	cr_assert_eq(sym_name_address(m, addr + 2, &name, &off), 0);
	cr_assert_str_eq(name, "sink");
	cr_assert_eq(off, 2);
	free(out);
	sym_module_close(m);
}

/* ---- source lines and inlined functions ---------------------------------- */

/* The first is_stmt row of @line in @fixture, from objdump. */
static uint64_t first_stmt(const char *fixture, int line)
{
	static struct lrow v[4096];
	size_t i, n = objdump_lines(fix(fixture), v, 4096);

	for (i = 0; i < n; i++)
		if (v[i].line == line && v[i].stmt)
			return v[i].addr;
	cr_assert_fail("%s: no statement for line %d", fixture, line);
	return 0;
}

Test(symbols, marked_lines)
{
	static const char *const tags[] = { "static", "inline", "loop" };
	struct sym_module *m = open_fix("symfix");
	struct sym_info si;
	size_t i;

	for (i = 0; i < 3; i++) {
		int line = mark_line(tags[i]);
		uint64_t a = first_stmt("symfix", line), b, e;

		cr_assert_eq(sym_lookup(m, a, &si), 0);
		cr_expect_eq(si.line, line, "MARK:%s at %#llx: line %d",
			     tags[i], (unsigned long long)a, si.line);
		cr_assert_not_null(si.file);
		cr_expect_str_eq(si.file, FIX_SRC);
		cr_assert_eq(sym_line_range(m, a, &b, &e), 0);
		cr_expect_eq(b, a, "MARK:%s starts at %#llx, not %#llx",
			     tags[i], (unsigned long long)a,
			     (unsigned long long)b);
		cr_expect_gt(e, a);
	}
	sym_module_close(m);
}

Test(symbols, inlined_function)
{
	struct sym_module *m = open_fix("symfix");
	int line = mark_line("inline");
	uint64_t a = first_stmt("symfix", line);
	char *out = run("addr2line -i -f -e '%s' %#llx", fix("symfix"),
			(unsigned long long)a);
	struct nm_sym st = nm_find(fix("symfix"), "fix_static");
	struct sym_info si;

	/* addr2line -i lists the inline chain innermost first. */
	cr_assert(!strncmp(out, "fix_inline\n", 11), "addr2line: %s", out);
	cr_assert_eq(sym_lookup(m, a, &si), 0);
	cr_assert_str_eq(si.function, "fix_outer");
	cr_assert_not_null(si.inlined);
	cr_assert_str_eq(si.inlined, "fix_inline");
	cr_assert_eq(si.line, line);
	/* Not inlined anywhere in fix_static. */
	cr_assert_eq(sym_lookup(m, st.addr + 1, &si), 0);
	cr_assert_null(si.inlined);
	free(out);
	sym_module_close(m);
}

/*
 * The statement line of @a by objdump's rows: the last is_stmt row at or
 * below it in its sequence.  Returns its index; -1 when @a is in no
 * sequence, -2 when its sequence has no statement before it.
 */
static long stmt_row(const struct lrow *v, size_t n, uint64_t a)
{
	long i, best = -2;
	bool lines = false;

	for (i = 0; i < (long)n && v[i].addr <= a; i++) {
		if (v[i].end) {
			best = -2;
			lines = false;
		} else if (v[i].line) {
			lines = true;
			if (v[i].stmt)
				best = i;
		}
	}
	if (!lines)
		return -1;
	return best;
}

/*
 * sym_line_range() at every row address (and one byte on) of a fixture,
 * against its definition checked on objdump's rows: begin is an is_stmt
 * row of the statement line, no statement of another line starts inside,
 * and end is where one does or the sequence ends.
 */
static void check_line_ranges(const char *fixture)
{
	static struct lrow v[4096];
	struct sym_module *m = open_fix(fixture);
	size_t i, k, n = objdump_lines(fix(fixture), v, 4096), checked = 0;

	cr_assert_gt(n, 10);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++) {
			uint64_t a = v[i].addr + k, b, e;
			long s = stmt_row(v, n, a);
			size_t j;
			bool begin_ok = false, end_ok = false;

			if (s == -1)
				cr_expect_eq(sym_line_range(m, a, &b, &e),
					     -ENOENT, "%#llx",
					     (unsigned long long)a);
			if (s < 0)
				continue;
			cr_assert_eq(sym_line_range(m, a, &b, &e), 0,
				     "%s %#llx", fixture,
				     (unsigned long long)a);
			cr_assert(b <= a && a < e, "%s %#llx: [%#llx, %#llx)",
				  fixture, (unsigned long long)a,
				  (unsigned long long)b,
				  (unsigned long long)e);
			for (j = 0; j < n; j++) {
				if (v[j].addr == b && v[j].stmt &&
				    v[j].line == v[s].line)
					begin_ok = true;
				if (v[j].addr == e &&
				    (v[j].end ||
				     (v[j].stmt && v[j].line != v[s].line)))
					end_ok = true;
				cr_expect(!(v[j].addr > b && v[j].addr < e &&
					    v[j].line && v[j].stmt &&
					    v[j].line != v[s].line),
					  "%s %#llx: line %d starts at %#llx "
					  "inside [%#llx, %#llx) of line %d",
					  fixture, (unsigned long long)a,
					  v[j].line,
					  (unsigned long long)v[j].addr,
					  (unsigned long long)b,
					  (unsigned long long)e, v[s].line);
			}
			cr_expect(begin_ok, "%s %#llx: begin %#llx", fixture,
				  (unsigned long long)a,
				  (unsigned long long)b);
			cr_expect(end_ok, "%s %#llx: end %#llx", fixture,
				  (unsigned long long)a,
				  (unsigned long long)e);
			checked++;
		}
	}
	cr_assert_gt(checked, 20);
	sym_module_close(m);
}

Test(symbols, line_ranges)
{
	struct sym_module *m = open_fix("symfix");
	int line = mark_line("loop");
	uint64_t a = first_stmt("symfix", line), b, e, b2, e2;

	check_line_ranges("symfix");
	check_line_ranges("libsymfix.so");
	/* Every address of the range gives the same range. */
	cr_assert_eq(sym_line_range(m, a, &b, &e), 0);
	for (a = b; a < e; a++) {
		cr_assert_eq(sym_line_range(m, a, &b2, &e2), 0);
		cr_assert_eq(b2, b);
		cr_assert_eq(e2, e);
	}
	sym_module_close(m);
}

Test(symbols, no_dwarf)
{
	struct sym_module *m = open_fix("symfix-nodebug");
	struct nm_sym s = nm_find(fix("symfix-nodebug"), "fix_global");
	struct sym_info si;
	uint64_t b, e;

	cr_assert_eq(sym_lookup(m, s.addr + 3, &si), 0);
	cr_assert_str_eq(si.function, "fix_global");
	cr_assert_null(si.file);
	cr_assert_eq(si.line, 0);
	cr_assert_null(si.inlined);
	cr_assert_eq(sym_line_range(m, s.addr + 3, &b, &e), -ENOENT);
	/* Nothing at all known: an address in no section. */
	cr_assert_eq(sym_lookup(m, 0x7fff0000, &si), -ENOENT);
	sym_module_close(m);
}

/* ---- separate debug files ------------------------------------------------ */

/* symfix-stripped has only .dynsym; its .gnu_debuglink names
 * .debug/symfix-stripped.debug, which has .symtab and DWARF.  Everything
 * must come out as from the unstripped symfix.
 */
Test(symbols, debuglink)
{
	struct sym_module *full = open_fix("symfix");
	struct sym_module *m = open_fix("symfix-stripped");
	uint64_t addrs[64], b1, e1, b2, e2;
	size_t i, n = interesting("symfix", addrs, 64);
	char *syms = run("readelf -SW '%s' | grep -c ' .symtab '",
			 fix("symfix-stripped"));

	cr_assert_eq(atoi(syms), 0, "symfix-stripped still has .symtab");
	free(syms);
	for (i = 0; i < n; i++) {
		struct sym_info a, b;

		sym_lookup(full, addrs[i], &a);
		sym_lookup(m, addrs[i], &b);
		cr_expect_str_eq(b.function ? b.function : "(none)",
				 a.function ? a.function : "(none)", "%#llx",
				 (unsigned long long)addrs[i]);
		cr_expect_eq(a.offset, b.offset);
		cr_expect_eq(a.line, b.line, "%#llx",
			     (unsigned long long)addrs[i]);
		cr_expect_str_eq(b.file ? b.file : "(none)",
				 a.file ? a.file : "(none)");
		cr_expect_eq(sym_line_range(full, addrs[i], &b1, &e1),
			     sym_line_range(m, addrs[i], &b2, &e2));
	}
	sym_module_close(full);
	sym_module_close(m);
}

/* libc6-dbg, where installed: libc.so.6 has only .dynsym, and its debug
 * file (found by build-id) brings local symbols and lines.
 */
Test(symbols, libc_build_id)
{
	static const char libc[] = "/lib/x86_64-linux-gnu/libc.so.6";
	char *id = run("readelf -n %s 2>/dev/null | "
		       "awk '/Build ID/ {print $3}'", libc);
	char *addr = run("nm -D %s | awk '$3 == \"puts@@GLIBC_2.2.5\" "
			 "{print $1}'", libc);
	char dbg[256];
	struct sym_module *m;
	struct sym_info si;
	uint64_t a = strtoull(addr, NULL, 16);

	id[strcspn(id, "\n")] = '\0';
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 id, id + 2);
	if (!*id || !a || access(dbg, R_OK)) {
		free(id);
		free(addr);
		cr_skip_test("no libc6-dbg (%s)", dbg);
	}
	cr_assert_eq(sym_module_open(&m, libc, libc), 0);
	cr_assert_str_eq(sym_module_name(m), "libc.so.6");
	cr_assert_eq(sym_lookup(m, a + 4, &si), 0);
	/* GDB: "puts + 4 in section .text of .../libc.so.6". */
	cr_assert_str_eq(si.function, "puts");
	cr_assert_eq(si.offset, 4);
	cr_assert_not_null(si.file, "no lines from %s", dbg);
	cr_assert_gt(si.line, 0);
	sym_module_close(m);
	free(id);
	free(addr);
}

/* ---- against the real GDB ------------------------------------------------ */

Test(symbols, gdb_info_symbol)
{
	static const char *const fixtures[] = {
		"symfix", "symfix-lazy", "symfix-nopie", "symfix-stripped",
		"libsymfix.so", "libsymfix-dynsym.so"
	};
	uint64_t addrs[64];
	size_t i, n;

	if (!have_gdb())
		cr_skip_test("no gdb");
	for (i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		n = interesting(fixtures[i], addrs, 64);
		cr_assert_geq(n, 10, "%s: %zu addresses", fixtures[i], n);
		check_info_symbol(fixtures[i], addrs, n);
	}
}

/* `info line *ADDR` at every row of the line table: GDB's line number and
 * file, and where GDB's entry starts (our line begins at or before it).
 */
static void check_info_line(const char *fixture)
{
	static struct lrow v[4096];
	static uint64_t addrs[8192];
	struct sym_module *m = open_fix(fixture);
	size_t i, n = objdump_lines(fix(fixture), v, 4096), na = 0;
	char **gdb;

	for (i = 0; i < n && na + 2 <= 8192; i++) {
		if (na && addrs[na - 2] == v[i].addr)
			continue;
		addrs[na++] = v[i].addr;
		addrs[na++] = v[i].addr + 1;
	}
	gdb = gdb_each(fix(fixture), "info line *0x%llx", addrs, na);
	for (i = 0; i < na; i++) {
		struct sym_info si;
		char file[512];
		int line;
		unsigned long long start;
		const char *p = strstr(gdb[i], "Line ");
		uint64_t b, e;

		sym_lookup(m, addrs[i], &si);
		if (!p || sscanf(p, "Line %d of \"%511[^\"]\" starts at address "
				 "%llx", &line, file, &start) != 3) {
			cr_expect_eq(si.line, 0, "%s %#llx: GDB: %s", fixture,
				     (unsigned long long)addrs[i], gdb[i]);
			continue;
		}
		cr_expect_eq(si.line, line, "%s %#llx: GDB: %s", fixture,
			     (unsigned long long)addrs[i], gdb[i]);
		cr_expect_str_eq(si.file ? si.file : "(none)", file);
		cr_assert_eq(sym_line_range(m, addrs[i], &b, &e), 0);
		cr_expect_leq(b, start, "%s %#llx: GDB: %s", fixture,
			      (unsigned long long)addrs[i], gdb[i]);
	}
	cr_log_info("%s: %zu addresses, lines as GDB's info line", fixture,
		    na);
	free_each(gdb, na);
	sym_module_close(m);
}

Test(symbols, gdb_info_line)
{
	if (!have_gdb())
		cr_skip_test("no gdb");
	check_info_line("symfix");
	check_info_line("libsymfix.so");
}
