// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of what brk(2) writes (replay/rcv_root.c's range of the
 * heap's pages, replay/rcv_sys.c's brk row): the pages between the old
 * and the new break, page-aligned (a grow, a shrink, inside one page),
 * brk(0) nothing, a failed shrink what it asked for, and no bound when a
 * break or the heap's mappings are not known (man 2 brk; Linux
 * mm/mmap.c's brk); a store's address as a root plus an offset
 * (rcv_root_sym()), and a root that is a word loaded from a known
 * address (rcv_root_word()).
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <stdlib.h>
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

/* ---- stores through one root (rcv_root_sym()) ---------------------- */

static struct rcv_state sst[9];
static struct rcv_ins sins[8];
static uint8_t smbar[9];
static struct win sw;

static struct rcv_op reg(int g, unsigned int size)
{
	return (struct rcv_op){ .type = RCV_OP_REG, .size = size,
				.reg = (int8_t)g, .base = -1, .index = -1 };
}

static struct rcv_op mem(int base, int64_t disp, unsigned int size,
			 uint8_t access)
{
	return (struct rcv_op){ .type = RCV_OP_MEM, .size = size,
				.access = access, .base = (int8_t)base,
				.index = -1, .scale = 1, .imm = disp };
}

static struct rcv_op imm(int64_t v)
{
	return (struct rcv_op){ .type = RCV_OP_IMM, .size = 4, .imm = v,
				.base = -1, .index = -1 };
}

static void put2(size_t i, uint16_t id, struct rcv_op a, struct rcv_op b,
		 int wr)
{
	sins[i] = (struct rcv_ins){ .id = id, .nops = 2 };
	sins[i].op[0] = a;
	sins[i].op[1] = b;
	if (wr >= 0)
		sins[i].wcode[wr] = 4;
}

/*
 * 0 mov (%rbx),%rax      the root
 * 1 lea 8(%rax),%rdi
 * 2 add $0x20,%rdi
 * 3 movl $-1,0x10(%rdi)  root 0 rax + 0x38
 * 4 movl $0,0x40(%rdi)   root 0 rax + 0x68
 * 5 mov (%rcx),%rdi      another root
 * 6 movl $0,0x10(%rdi)   root 5 rdi + 0x10
 * 7 sub $8,%rdi; (then a store at 8 would be root 5 - 8)
 */
static void sym_setup(void)
{
	/* rcv_root_sym() remembers answers by position: none kept. */
	free(rc.root_memo);
	memset(&rc, 0, sizeof(rc));
	memset(sst, 0, sizeof(sst));
	memset(sins, 0, sizeof(sins));
	memset(smbar, 0, sizeof(smbar));
	rc.mb_gen = 1;		/* rcv_acc_of(): nothing remembered */
	sw = (struct win){ .st = sst, .ins = sins, .n = 8, .rc = &rc,
			   .mbar = smbar, .top_end = true };
	put2(0, X86_INS_MOV, reg(RP_REG_RAX, 8),
	     mem(RP_REG_RBX, 0, 8, CS_AC_READ), RP_REG_RAX);
	put2(1, X86_INS_LEA, reg(RP_REG_RDI, 8),
	     mem(RP_REG_RAX, 8, 8, 0), RP_REG_RDI);
	put2(2, X86_INS_ADD, reg(RP_REG_RDI, 8), imm(0x20), RP_REG_RDI);
	put2(3, X86_INS_MOV, mem(RP_REG_RDI, 0x10, 4, CS_AC_WRITE), imm(-1),
	     -1);
	put2(4, X86_INS_MOV, mem(RP_REG_RDI, 0x40, 4, CS_AC_WRITE), imm(0),
	     -1);
	put2(5, X86_INS_MOV, reg(RP_REG_RDI, 8),
	     mem(RP_REG_RCX, 0, 8, CS_AC_READ), RP_REG_RDI);
	put2(6, X86_INS_MOV, mem(RP_REG_RDI, 0x10, 4, CS_AC_WRITE), imm(0),
	     -1);
	put2(7, X86_INS_SUB, reg(RP_REG_RDI, 8), imm(8), RP_REG_RDI);
}

Test(rcv_root, sym_chain)
{
	struct rcv_root_sym s3, s4, s6;

	sym_setup();
	cr_assert(rcv_root_sym(&sw, 3, &s3));
	cr_assert(s3.pos == 0 && s3.reg == RP_REG_RAX && s3.off == 0x38,
		  "root %zu r%d +%#lx", s3.pos, s3.reg,
		  (unsigned long)s3.off);
	cr_assert(rcv_root_sym(&sw, 4, &s4));
	cr_assert(s4.pos == 0 && s4.reg == RP_REG_RAX && s4.off == 0x68);
	/* rdi loaded again: another root, never compared with the first. */
	cr_assert(rcv_root_sym(&sw, 6, &s6));
	cr_assert(s6.pos == 5 && s6.reg == RP_REG_RDI && s6.off == 0x10);
	/* Not a store; the root's own load has no store operand. */
	cr_assert(!rcv_root_sym(&sw, 2, &s3));
}

Test(rcv_root, sym_index_and_stops)
{
	struct rcv_root_sym s;

	sym_setup();
	/* A known index scales into the offset; an unknown one stops. */
	sins[4].op[0].index = RP_REG_RSI;
	sins[4].op[0].scale = 4;
	sst[4].r[RP_REG_RSI] = (struct rcv_val){ 3, ~0ull };
	cr_assert(rcv_root_sym(&sw, 4, &s));
	cr_assert(s.pos == 0 && s.off == 0x68 + 12);
	sym_setup();
	sins[4].op[0].index = RP_REG_RSI;
	cr_assert(!rcv_root_sym(&sw, 4, &s));
	/* A segment: not the register's value. */
	sym_setup();
	sins[3].op[0].seg = 1;
	cr_assert(!rcv_root_sym(&sw, 3, &s));
	/* A system call, a barrier or a transfer between. */
	sym_setup();
	sins[2].flags = RCV_I_SYSCALL;
	cr_assert(!rcv_root_sym(&sw, 3, &s));
	sins[2].flags = RCV_I_XFER;
	cr_assert(!rcv_root_sym(&sw, 3, &s));
	sins[2].flags = RCV_I_BARRIER;
	cr_assert(!rcv_root_sym(&sw, 3, &s));
	/* A 32-bit add writes the register otherwise: the root is there. */
	sym_setup();
	sins[2].op[0].size = 4;
	cr_assert(rcv_root_sym(&sw, 3, &s));
	cr_assert(s.pos == 2 && s.reg == RP_REG_RDI && s.off == 0x10);
	/* No writer in the window: none. */
	sym_setup();
	sins[0].wcode[RP_REG_RAX] = 0;
	cr_assert(!rcv_root_sym(&sw, 3, &s));
}

/* ---- a root loaded from a word (rcv_root_word()) ------------------- */

Test(rcv_root, word_load)
{
	uint64_t a = 0;

	/* mov (%rbx),%rax with rbx known: the word at rbx. */
	sym_setup();
	sst[0].r[RP_REG_RBX] = (struct rcv_val){ 0x7000, ~0ull };
	cr_assert(rcv_root_word(&sw, 0, RP_REG_RAX, &a));
	cr_assert_eq(a, 0x7000);
	/* Another register than the one it writes; past the window. */
	cr_assert(!rcv_root_word(&sw, 0, RP_REG_RDI, &a));
	cr_assert(!rcv_root_word(&sw, 8, RP_REG_RAX, &a));
	/* Its address not known. */
	sym_setup();
	cr_assert(!rcv_root_word(&sw, 0, RP_REG_RAX, &a));
	/* lea computes, it loads nothing; add $imm neither. */
	sst[1].r[RP_REG_RAX] = (struct rcv_val){ 0x7000, ~0ull };
	cr_assert(!rcv_root_word(&sw, 1, RP_REG_RDI, &a));
	cr_assert(!rcv_root_word(&sw, 2, RP_REG_RDI, &a));
	/* Four bytes (mov (%rbx),%eax), a segment, a barrier: none. */
	sym_setup();
	sst[0].r[RP_REG_RBX] = (struct rcv_val){ 0x7000, ~0ull };
	sins[0].op[0].size = 4;
	sins[0].op[1].size = 4;
	cr_assert(!rcv_root_word(&sw, 0, RP_REG_RAX, &a));
	sym_setup();
	sst[0].r[RP_REG_RBX] = (struct rcv_val){ 0x7000, ~0ull };
	sins[0].op[1].seg = 1;
	cr_assert(!rcv_root_word(&sw, 0, RP_REG_RAX, &a));
	sym_setup();
	sst[0].r[RP_REG_RBX] = (struct rcv_val){ 0x7000, ~0ull };
	smbar[0] = 1;
	cr_assert(!rcv_root_word(&sw, 0, RP_REG_RAX, &a));
	smbar[0] = 0;
	sins[0].flags = RCV_I_BARRIER;
	cr_assert(!rcv_root_word(&sw, 0, RP_REG_RAX, &a));
}
