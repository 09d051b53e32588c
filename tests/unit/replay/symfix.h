/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the symbolizer's unit tests share (test_symbols.c, test_sym_elf.c,
 * test_sym_cfi.c): the fixtures tests/unit/replay/fixtures/build.sh wrote
 * into RP_FIXTURES, their source's marked lines, and shell commands'
 * output (binutils, GDB).  Static inline: each test is one source file.
 */
#ifndef PTREC_TESTS_SYMFIX_H
#define PTREC_TESTS_SYMFIX_H

#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "symbols.h"

#ifndef RP_FIXTURES
#error "RP_FIXTURES: the directory build.sh wrote the fixtures to"
#endif
#ifndef RP_SRCDIR
#error "RP_SRCDIR: the source tree"
#endif

#define FIX_SRC RP_SRCDIR "/tests/unit/replay/fixtures/symfix.c"

static inline const char *fix(const char *name)
{
	static char path[4][4096];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", RP_FIXTURES, name);
	return path[k];
}

static inline struct sym_module *open_fix(const char *name)
{
	struct sym_module *m = NULL;
	const char *p = fix(name);
	int ret = sym_module_open(&m, p, p);

	cr_assert_eq(ret, 0, "sym_module_open(%s): %s", p, strerror(-ret));
	return m;
}

/* Runs a shell command; returns its standard output (malloc'd). */
static inline char *run(const char *fmt, ...)
{
	char cmd[65536], *out = NULL;
	size_t len = 0, cap = 0, n;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	cr_assert_not_null(f, "popen %s", cmd);
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			out = realloc(out, cap);
			cr_assert_not_null(out);
		}
		n = fread(out + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	out[len] = '\0';
	pclose(f);
	return out;
}

static inline bool have_gdb(void)
{
	return !system("command -v gdb >/dev/null 2>&1");
}

/* The line of the fixture source marked "MARK:@tag". */
static inline int mark_line(const char *tag)
{
	char want[64], buf[512];
	FILE *f = fopen(FIX_SRC, "r");
	int line = 0;

	cr_assert_not_null(f, "%s: %s", FIX_SRC, strerror(errno));
	snprintf(want, sizeof(want), "MARK:%s ", tag);
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (strstr(buf, want)) {
			fclose(f);
			return line;
		}
	}
	fclose(f);
	cr_assert_fail("no MARK:%s in %s", tag, FIX_SRC);
	return 0;
}

#endif
