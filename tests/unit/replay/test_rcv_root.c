// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of what brk(2) writes (replay/rcv_root.c's range of the
 * heap's pages, replay/rcv_sys.c's brk row): the pages between the old
 * and the new break, page-aligned (a grow, a shrink, inside one page),
 * brk(0) nothing, a failed shrink what it asked for, and no bound when a
 * break or the heap's mappings are not known (man 2 brk; Linux
 * mm/mmap.c's brk).
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_root.h"
#include "rcv_win.h"

static struct rcv_root_map maps[4];

static void map(size_t k, uint64_t start, uint64_t end, const char *path,
		bool initial)
{
	maps[k] = (struct rcv_root_map){ start, end, path, strlen(path),
					 initial };
}

Test(rcv_root, range_hull)
{
	uint64_t lo = 0, hi = 0;

	map(0, 0x555000, 0x576000, "[heap]", false);
	map(1, 0x555000, 0x560000, "[heap]", false);
	map(2, 0x7f0000, 0x7f1000, "/lib/libc.so", false);
	map(3, 0x555000, 0x558000, "[heap]", false);
	cr_assert(rcv_root_brk_range(maps, 4, &lo, &hi));
	cr_assert(lo == 0x555000 && hi == 0x576000, "%#lx-%#lx",
		  (unsigned long)lo, (unsigned long)hi);
}

Test(rcv_root, range_none)
{
	uint64_t lo, hi;

	/* No heap seen; one there at the start (its past not known); a
	 * mapping not on pages.
	 */
	map(0, 0x7f0000, 0x7f1000, "/lib/libc.so", false);
	cr_assert(!rcv_root_brk_range(maps, 1, &lo, &hi));
	map(1, 0x555000, 0x576000, "[heap]", true);
	cr_assert(!rcv_root_brk_range(maps, 2, &lo, &hi));
	map(1, 0x555000, 0x576010, "[heap]", false);
	cr_assert(!rcv_root_brk_range(maps, 2, &lo, &hi));
	cr_assert(!rcv_root_brk_range(maps, 0, &lo, &hi));
}

/* A window of two brk calls: the first's result @old (known or not),
 * the second's argument @arg and result @res.
 */
static struct rcv_state st[4];
static struct rcv_ins ins[3];
static struct rp_recover rc;
static struct win w;

static void two_brks(uint64_t old, bool old_k, uint64_t arg, uint64_t res)
{
	memset(st, 0, sizeof(st));
	memset(ins, 0, sizeof(ins));
	memset(&rc, 0, sizeof(rc));
	w = (struct win){ .st = st, .ins = ins, .n = 3, .rc = &rc,
			  .top_end = true };
	ins[0].flags = RCV_I_SYSCALL;
	ins[0].id = X86_INS_SYSCALL;
	ins[2] = ins[0];
	ins[1].id = X86_INS_NOP;
	st[0].r[RP_REG_RAX] = (struct rcv_val){ 12, ~0ull };
	st[0].r[RP_REG_RDI] = (struct rcv_val){ 0, ~0ull };
	st[1].r[RP_REG_RAX] = (struct rcv_val){ old, old_k ? ~0ull : 0 };
	st[2].r[RP_REG_RAX] = (struct rcv_val){ 12, ~0ull };
	st[2].r[RP_REG_RDI] = (struct rcv_val){ arg, ~0ull };
	st[3].r[RP_REG_RAX] = (struct rcv_val){ res, ~0ull };
}

static void brk_writes(uint64_t lo, uint64_t len, const char *what)
{
	uint64_t a = 0, l = 0;
	int e = rcv_sys_write(&w, 2, &a, &l);

	if (!len) {
		cr_assert_eq(e, 0, "%s: nothing (%d)", what, e);
		return;
	}
	cr_assert_eq(e, 1, "%s: one range (%d)", what, e);
	cr_assert(a == lo && l == len, "%s: %#lx +%#lx", what,
		  (unsigned long)a, (unsigned long)l);
}

Test(rcv_root, brk_exact)
{
	uint64_t a, l;

	/* brk(0) asks: nothing, whatever else is known. */
	two_brks(0, false, 0, 0x555000);
	cr_assert_eq(rcv_sys_write(&w, 0, &a, &l), 0);
	/* A grow from inside a page: the fresh pages, not the old
	 * break's page (kept: the kernel zeroes nothing of it).
	 */
	two_brks(0x555010, true, 0x578100, 0x578100);
	brk_writes(0x556000, 0x23000, "grow");
	/* A shrink: the pages above the new break's. */
	two_brks(0x578100, true, 0x555010, 0x555010);
	brk_writes(0x556000, 0x23000, "shrink");
	/* Inside one page, either way: nothing. */
	two_brks(0x555010, true, 0x555ff0, 0x555ff0);
	brk_writes(0, 0, "grow in a page");
	two_brks(0x555ff0, true, 0x555008, 0x555008);
	brk_writes(0, 0, "shrink in a page");
	/* A failed grow returns the old break: nothing. */
	two_brks(0x555010, true, 0x90000000, 0x555010);
	brk_writes(0, 0, "failed grow");
	/* A failed shrink may have unmapped what it asked for. */
	two_brks(0x578100, true, 0x555010, 0x578100);
	brk_writes(0x556000, 0x23000, "failed shrink");
}

Test(rcv_root, brk_unknown)
{
	uint64_t a, l;

	/* The old break not known, no heap mappings to bound it (no
	 * session): not known.
	 */
	two_brks(0, false, 0x578100, 0x578100);
	cr_assert_eq(rcv_sys_write(&w, 2, &a, &l), -1);
	/* Its argument not known, the result the old break: a failure
	 * of either direction.
	 */
	two_brks(0x578100, true, 0, 0x578100);
	st[2].r[RP_REG_RDI].k = 0;
	cr_assert_eq(rcv_sys_write(&w, 2, &a, &l), -1);
	/* Its argument not known, a result that moved: the range. */
	two_brks(0x555010, true, 0, 0x578100);
	st[2].r[RP_REG_RDI].k = 0;
	brk_writes(0x556000, 0x23000, "argument not known");
	/* Another task shares the break. */
	two_brks(0x555010, true, 0x578100, 0x578100);
	rc.mt = true;
	cr_assert_eq(rcv_sys_write(&w, 2, &a, &l), -1);
	/* int 0x80: number 12 is another call. */
	two_brks(0x555010, true, 0x578100, 0x578100);
	ins[2].id = X86_INS_INT;
	cr_assert_eq(rcv_sys_write(&w, 2, &a, &l), -1);
	/* Past 1 MiB: not known (the index's words). */
	two_brks(0x555010, true, 0x1000000, 0x1000000);
	cr_assert_eq(rcv_sys_write(&w, 2, &a, &l), -1);
	/* Strict mode: the same. */
	two_brks(0x555010, true, 0x578100, 0x578100);
	rc.strict = true;
	brk_writes(0x556000, 0x23000, "strict");
}
