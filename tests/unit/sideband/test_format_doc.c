// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * docs/bundle-format.md against the code: the machine-checked table of
 * record types between the record-types markers must list exactly the types
 * the library knows, with their values, names, fixed sizes (as the library
 * and the uapi structs see them) and whether a variable part follows; and
 * the document must state the format versions of the headers.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sideband.h"

#define DOC_PATH	"docs/bundle-format.md"
#define DOC_MAX		(1u << 20)
#define MARK_BEGIN	"<!-- record-types:begin -->"
#define MARK_END	"<!-- record-types:end -->"
#define MAX_ROWS	64

/* What the test itself knows of every record type: one line per type. */
struct expect {
	const char *name;
	uint16_t type;
	size_t size;
	bool variable;
};

static const struct expect expected[] = {
	{ "MMAP", PTREC_SB_MMAP, sizeof(struct ptrec_sb_mmap), true },
	{ "MUNMAP", PTREC_SB_MUNMAP, sizeof(struct ptrec_sb_munmap), false },
	{ "MPROTECT", PTREC_SB_MPROTECT, sizeof(struct ptrec_sb_mprotect),
	  false },
	{ "EXEC", PTREC_SB_EXEC, sizeof(struct ptrec_sb_exec), true },
	{ "COMM", PTREC_SB_COMM, sizeof(struct ptrec_sb_comm), false },
	{ "CR3", PTREC_SB_CR3, sizeof(struct ptrec_sb_cr3), false },
	{ "SWITCH_IN", PTREC_SB_SWITCH_IN, sizeof(struct ptrec_sb_switch),
	  false },
	{ "SWITCH_OUT", PTREC_SB_SWITCH_OUT, sizeof(struct ptrec_sb_switch),
	  false },
	{ "THREAD_START", PTREC_SB_THREAD_START,
	  sizeof(struct ptrec_sb_thread_start), false },
	{ "THREAD_EXIT", PTREC_SB_THREAD_EXIT,
	  sizeof(struct ptrec_sb_thread_exit), false },
	{ "PROCESS_EXIT", PTREC_SB_PROCESS_EXIT,
	  sizeof(struct ptrec_sb_process_exit), false },
	{ "LOST", PTREC_SB_LOST, sizeof(struct ptrec_sb_lost), false },
	{ "TIME", PTREC_SB_TIME, sizeof(struct ptrec_sb_time), false },
	{ "SIGNAL", PTREC_SB_SIGNAL, sizeof(struct ptrec_sb_signal), false },
	{ "EXIT_FUTEX", PTREC_SB_EXIT_FUTEX,
	  sizeof(struct ptrec_sb_exit_futex), false },
	{ "SIGFRAME", PTREC_SB_SIGFRAME, sizeof(struct ptrec_sb_sigframe),
	  false },
	{ "REGS", PTREC_SB_REGS, sizeof(struct ptrec_sb_regs), false },
	{ "UNTRACED", PTREC_SB_UNTRACED, sizeof(struct ptrec_sb_untraced),
	  false },
};

#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

/* One row of the documented table. */
struct row {
	int line;
	char name[32];
	unsigned long value;
	unsigned long size;
	bool variable;
};

/* Reads the whole document; the test fails when it cannot. */
static char *load_doc(char *path, size_t pathsz)
{
	const char *srcdir = getenv("PTREC_SRCDIR");
	size_t len;
	char *text;
	FILE *f;

	if (!srcdir || !*srcdir)
		srcdir = ".";
	snprintf(path, pathsz, "%s/%s", srcdir, DOC_PATH);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s (set PTREC_SRCDIR to the source tree)",
			   path, strerror(errno));
	text = malloc(DOC_MAX + 1);
	cr_assert_not_null(text, "out of memory");
	len = fread(text, 1, DOC_MAX, f);
	cr_assert(!ferror(f), "%s: read error", path);
	cr_assert(feof(f) || len < DOC_MAX, "%s: larger than %u bytes", path,
		  DOC_MAX);
	fclose(f);
	text[len] = '\0';
	return text;
}

/* Start of the line holding exactly @mark (surrounding blanks allowed). */
static const char *find_marker(const char *text, const char *mark)
{
	const char *p = text;
	size_t n = strlen(mark);

	while ((p = strstr(p, mark))) {
		const char *b = p, *e = p + n;

		while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		while (*e == ' ' || *e == '\t' || *e == '\r')
			e++;
		if ((b == text || b[-1] == '\n') && (*e == '\n' || !*e))
			return b;
		p += n;
	}
	return NULL;
}

static int line_of(const char *text, const char *p)
{
	int line = 1;

	for (; text < p; text++)
		if (*text == '\n')
			line++;
	return line;
}

/* Copies cell @s..@e without surrounding blanks into @out. */
static void cell(const char *s, const char *e, char *out, size_t outsz)
{
	size_t n;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	n = (size_t)(e - s);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static unsigned long number(const char *path, int line, const char *what,
			    const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	cr_assert(*s >= '0' && *s <= '9' && !*end && !errno,
		  "%s:%d: %s '%s' is not a decimal number", path, line, what,
		  s);
	return v;
}

/*
 * Parses the table between the markers into @rows; returns the row count.
 * The header row ("Type") and the separator row ("|---") are skipped; every
 * other line must be a row of four cells.
 */
static size_t parse_table(const char *path, const char *text,
			  struct row *rows, size_t maxrows)
{
	const char *begin, *end, *p;
	size_t n = 0;

	begin = find_marker(text, MARK_BEGIN);
	cr_assert_not_null(begin,
			   "%s: marker line '%s' not found (the table sits between it and '%s')",
			   path, MARK_BEGIN, MARK_END);
	end = find_marker(begin, MARK_END);
	cr_assert_not_null(end, "%s: marker line '%s' not found after '%s'",
			   path, MARK_END, MARK_BEGIN);
	p = strchr(begin, '\n');
	cr_assert_not_null(p, "%s: nothing after '%s'", path, MARK_BEGIN);
	for (p++; p < end; ) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char cells[4][64];
		const char *c;
		int line = line_of(text, p), ncells = 0;

		if (!eol)
			eol = end;
		c = p;
		while (c < eol && (*c == ' ' || *c == '\t'))
			c++;
		if (c == eol || *c == '\r') {
			p = eol + 1;
			continue;	/* blank line */
		}
		cr_assert(*c == '|', "%s:%d: not a table row: '%.*s'", path,
			  line, (int)(eol - p), p);
		for (c++; c < eol; ) {
			const char *bar = memchr(c, '|', (size_t)(eol - c));

			if (!bar)
				break;	/* trailing blanks after the last '|' */
			cr_assert(ncells < 4, "%s:%d: more than 4 cells", path,
				  line);
			cell(c, bar, cells[ncells], sizeof(cells[0]));
			ncells++;
			c = bar + 1;
		}
		cr_assert_eq(ncells, 4, "%s:%d: %d cells, expected 4", path,
			     line, ncells);
		p = eol + 1;
		if (!strcmp(cells[0], "Type") || cells[0][0] == '-')
			continue;	/* header and separator rows */
		cr_assert(n < maxrows, "%s:%d: more than %zu rows", path, line,
			  maxrows);
		cr_assert(strlen(cells[0]) < sizeof(rows[n].name),
			  "%s:%d: type name too long", path, line);
		rows[n].line = line;
		strcpy(rows[n].name, cells[0]);
		rows[n].value = number(path, line, "value", cells[1]);
		rows[n].size = number(path, line, "fixed size", cells[2]);
		cr_assert(cells[3][0], "%s:%d: empty 'Variable part' cell",
			  path, line);
		rows[n].variable = strcmp(cells[3], "none") != 0;
		n++;
	}
	cr_assert(n > 0, "%s: no rows between the record-types markers", path);
	return n;
}

static const struct expect *expected_for(uint16_t type)
{
	size_t i;

	for (i = 0; i < NEXPECTED; i++)
		if (expected[i].type == type)
			return &expected[i];
	return NULL;
}

Test(format_doc, markers_and_table_present)
{
	struct row rows[MAX_ROWS];
	char path[4096];
	char *text = load_doc(path, sizeof(path));

	parse_table(path, text, rows, MAX_ROWS);
	free(text);
}

/* The test's own table covers exactly the types the library knows. */
Test(format_doc, expected_table_matches_library)
{
	unsigned int t, known = 0;
	size_t i;

	for (t = 1; t < PTREC_SB_TYPE_COUNT; t++) {
		const struct sb_type_info *ti = sb_type_info((uint16_t)t);
		const struct expect *ex = expected_for((uint16_t)t);

		if (!ti)
			continue;
		known++;
		cr_assert_not_null(ex,
				   "library type %u (%s) is missing from this test's table",
				   t, ti->name);
		cr_assert_str_eq(ex->name, ti->name, "type %u", t);
		cr_assert_eq(ex->size, ti->size,
			     "type %u (%s): sizeof %zu, library %u", t,
			     ti->name, ex->size, ti->size);
		cr_assert_eq(ex->variable, ti->variable, "type %u (%s)", t,
			     ti->name);
	}
	for (i = 0; i < NEXPECTED; i++)
		cr_assert_not_null(sb_type_info(expected[i].type),
				   "%s (%u) is unknown to the library",
				   expected[i].name, expected[i].type);
	cr_assert_eq(known, NEXPECTED);
	cr_assert_null(sb_type_info(0), "type 0 must stay unused");
	cr_assert_null(sb_type_info(PTREC_SB_TYPE_COUNT));
}

Test(format_doc, documented_types_match_library)
{
	bool seen[PTREC_SB_TYPE_COUNT] = { false };
	struct row rows[MAX_ROWS];
	unsigned int t, known = 0;
	char path[4096];
	char *text = load_doc(path, sizeof(path));
	size_t i, n;

	n = parse_table(path, text, rows, MAX_ROWS);
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct sb_type_info *ti;
		const struct expect *ex;

		cr_assert(r->value > 0 && r->value < PTREC_SB_TYPE_COUNT,
			  "%s:%d: %s: value %lu is not a type the library knows",
			  path, r->line, r->name, r->value);
		ti = sb_type_info((uint16_t)r->value);
		cr_assert_not_null(ti,
				   "%s:%d: %s: value %lu is not a type the library knows",
				   path, r->line, r->name, r->value);
		cr_assert(!seen[r->value], "%s:%d: value %lu documented twice",
			  path, r->line, r->value);
		seen[r->value] = true;
		cr_assert(i == 0 || rows[i - 1].value < r->value,
			  "%s:%d: rows must be in enum ptrec_sb_type order",
			  path, r->line);
		cr_assert_str_eq(r->name, ti->name,
				 "%s:%d: type %lu is named %s in the library",
				 path, r->line, r->value, ti->name);
		cr_assert_eq(r->size, ti->size,
			     "%s:%d: %s: documented fixed size %lu, library says %u",
			     path, r->line, r->name, r->size, ti->size);
		ex = expected_for((uint16_t)r->value);
		cr_assert_not_null(ex, "%s:%d: %s is missing from this test",
				   path, r->line, r->name);
		cr_assert_eq(r->size, ex->size,
			     "%s:%d: %s: documented fixed size %lu, sizeof is %zu",
			     path, r->line, r->name, r->size, ex->size);
		cr_assert_eq(r->variable, ti->variable,
			     "%s:%d: %s: 'Variable part' %s", path, r->line,
			     r->name, ti->variable ?
			     "is 'none', but the library says one follows" :
			     "must be 'none' for a fixed-size type");
	}
	for (t = 1; t < PTREC_SB_TYPE_COUNT; t++) {
		const struct sb_type_info *ti = sb_type_info((uint16_t)t);

		if (!ti)
			continue;
		known++;
		cr_assert(seen[t],
			  "%s: type %u (%s) is missing from the record-types table",
			  path, t, ti->name);
	}
	cr_assert_eq(n, known, "%s: %zu rows for %u known types", path, n,
		     known);
	free(text);
}

/* @phrase occurs in @text, not followed by another digit. */
static bool has_phrase(const char *text, const char *phrase)
{
	const char *p = text;

	while ((p = strstr(p, phrase))) {
		p += strlen(phrase);
		if (*p < '0' || *p > '9')
			return true;
	}
	return false;
}

/* The document states the versions in exact phrases. */
Test(format_doc, versions_documented)
{
	static const struct {
		const char *what;
		int version;
	} versions[] = {
		{ "Bundle format version", SB_BUNDLE_VERSION },
		{ "Sideband format version", PTREC_SB_VERSION },
		{ "Ground-truth format version", SB_TRUTH_VERSION },
		{ "Snapshot format version", SB_SNAP_VERSION },
	};
	char path[4096], phrase[64];
	char *text = load_doc(path, sizeof(path));
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		snprintf(phrase, sizeof(phrase), "%s: %d", versions[i].what,
			 versions[i].version);
		cr_assert(has_phrase(text, phrase),
			  "%s: the phrase '%s' is missing (the header says %d)",
			  path, phrase, versions[i].version);
	}
	free(text);
}
