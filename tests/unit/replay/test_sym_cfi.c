// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The symbolizer's call frame rules (replay/sym_cfi.c) on the fixtures,
 * against readelf's decoding of the same .eh_frame.
 */
#include "symfix.h"

/* ---- call frame rules (sym_cfi.c) ---------------------------------------- */

/* readelf's register column names, as RP_REG_ indexes. */
static int cfi_reg(const char *name)
{
	static const char *const names[] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra",
	};
	int i;

	for (i = 0; i < 17; i++)
		if (!strcmp(name, names[i]))
			return i == 16 ? RP_REG_RIP : i;
	return -1;
}

/*
 * Every row of the fixture's .eh_frame as binutils' readelf interprets it
 * (--debug-dump=frames-interp, the independent reading): at the row's
 * first address, the CFA register and offset, and each register readelf
 * shows saved at CFA-N, are what sym_cfi_at() reads.
 */
Test(symbols, cfi_rules_match_readelf)
{
	struct sym_module *m = open_fix("symfix");
	char *out = run("readelf --debug-dump=frames-interp %s",
			fix("symfix"));
	char *save = NULL, *line;
	int cols[32], ncols = 0, rows = 0, saved = 0;
	bool fde = false;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char word[32][32], *p = line;
		unsigned long long loc;
		struct rp_cfi rule;
		int n = 0, k, used;

		if (strstr(line, " FDE ")) {
			fde = true;
			continue;
		}
		if (strstr(line, " CIE ")) {
			fde = false;
			continue;
		}
		while (n < 32 && sscanf(p, "%31s%n", word[n], &used) == 1) {
			p += used;
			n++;
		}
		if (n >= 2 && !strcmp(word[0], "LOC")) {
			ncols = 0;
			for (k = 2; k < n && ncols < 32; k++)
				cols[ncols++] = cfi_reg(word[k]);
			continue;
		}
		/* Rows with a register-plus-offset CFA ("exp" is not read). */
		if (!fde || n < 2 || sscanf(word[0], "%llx", &loc) != 1 ||
		    (strncmp(word[1], "rsp+", 4) && strncmp(word[1], "rbp+", 4)))
			continue;
		cr_assert_eq(sym_cfi_at(m, loc, &rule), 0, "no rule at %llx",
			     loc);
		cr_assert_eq(rule.cfa_reg, (unsigned int)(word[1][1] == 's' ?
					RP_REG_RSP : RP_REG_RBP),
			     "CFA register at %llx: %s", loc, word[1]);
		cr_assert_eq(rule.cfa_off, strtoll(word[1] + 4, NULL, 10),
			     "CFA offset at %llx: %s", loc, word[1]);
		for (k = 2; k < n && k - 2 < ncols; k++) {
			int reg = cols[k - 2];

			if (reg < 0 || strncmp(word[k], "c-", 2))
				continue;
			cr_assert_eq(rule.how[reg], RP_CFI_AT,
				     "register %d at %llx: %s", reg, loc,
				     word[k]);
			cr_assert_eq(rule.off[reg], strtoll(word[k] + 1, NULL, 10),
				     "register %d at %llx: %s", reg, loc,
				     word[k]);
			saved++;
		}
		rows++;
	}
	cr_assert_gt(rows, 5, "readelf showed %d rows", rows);
	cr_assert_gt(saved, 5);
	free(out);
	sym_module_close(m);
}

/* The return address column of readelf's first row of the entry being
 * read: its own, or its CIE's where an FDE adds no rows.
 */
struct ra_row {
	unsigned long long off, cie, pc;
	bool fde, rows;
	char ra[32];
};

static void check_ra(struct sym_module *m, const struct ra_row *e,
		     const struct ra_row *cies, int ncies, int *undef,
		     int *at)
{
	const char *ra = e->ra;
	struct rp_cfi rule;
	int i;

	if (!e->fde)
		return;
	if (!e->rows)
		for (i = 0, ra = ""; i < ncies; i++)
			if (cies[i].off == e->cie)
				ra = cies[i].ra;
	if (!*ra || sym_cfi_at(m, e->pc, &rule))
		return;		/* no rule readelf shows, or an "exp" CFA */
	if (!strcmp(ra, "u")) {
		cr_assert_eq(rule.how[RP_REG_RIP], RP_CFI_UNDEFINED,
			     "ra at %llx: readelf says undefined", e->pc);
		(*undef)++;
	} else {
		cr_assert_neq(rule.how[RP_REG_RIP], RP_CFI_UNDEFINED,
			      "ra at %llx: readelf says %s", e->pc, ra);
		(*at)++;
	}
}

/*
 * The return address undefined (DW_CFA_undefined rip, the outermost
 * frame's mark: _start's in crt1.o) exactly where readelf shows its
 * column "u", at each FDE's first address.
 */
Test(symbols, cfi_undefined_ra_matches_readelf)
{
	struct sym_module *m = open_fix("symfix");
	char *out = run("readelf --debug-dump=frames-interp %s",
			fix("symfix"));
	char *save = NULL, *line;
	struct ra_row e = { 0 }, cies[64];
	int ncies = 0, racol = -1, undef = 0, at = 0;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char word[32][32], *p = line;
		unsigned long long b, c;
		int n = 0, used, k;

		while (n < 32 && sscanf(p, "%31s%n", word[n], &used) == 1) {
			p += used;
			n++;
		}
		if (n >= 4 && (!strcmp(word[3], "FDE") ||
			       !strcmp(word[3], "CIE"))) {
			check_ra(m, &e, cies, ncies, &undef, &at);
			memset(&e, 0, sizeof(e));
			sscanf(word[0], "%llx", &e.off);
			e.fde = !strcmp(word[3], "FDE");
			if (e.fde)
				cr_assert(n >= 6 && sscanf(word[4], "cie=%llx",
							   &e.cie) == 1 &&
					  sscanf(word[5], "pc=%llx..%llx",
						 &e.pc, &b) == 2, "%s", line);
			continue;
		}
		if (n >= 2 && !strcmp(word[0], "LOC")) {
			for (k = 2, racol = -1; k < n; k++)
				if (!strcmp(word[k], "ra"))
					racol = k;
			continue;
		}
		if (n < 2 || sscanf(word[0], "%llx", &c) != 1 || e.rows ||
		    racol < 0 || racol >= n)
			continue;
		/* The entry's first row. */
		e.rows = true;
		snprintf(e.ra, sizeof(e.ra), "%s", word[racol]);
		if (!e.fde && ncies < 64)
			cies[ncies++] = e;
	}
	check_ra(m, &e, cies, ncies, &undef, &at);
	cr_assert_geq(undef, 1, "no undefined return address (_start's)");
	cr_assert_gt(at, 5);
	free(out);
	sym_module_close(m);
}
