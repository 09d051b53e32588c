// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_prot.c: which system calls may change a
 * protection (rcv_prot_changer()), a page the software recorder's maps
 * records show never writable (rcv_prot_page(): the start's SNAPSHOT
 * record without PROT_WRITE and no later record over it), and calls of
 * different tasks apart in time (rcv_prot_apart(): closed intervals; one
 * task's calls may touch, another's may not).
 */
#include <criterion/criterion.h>
#include <sys/mman.h>

#include "rcv_win.h"

static const uint32_t pid = 100;

static struct ptrec_sb_mmap mmap_rec(uint64_t start, uint64_t len,
				     uint32_t prot, bool snap, uint32_t p)
{
	return (struct ptrec_sb_mmap){
		.hdr = { .type = PTREC_SB_MMAP,
			 .flags = snap ? PTREC_SB_F_SNAPSHOT : 0,
			 .size = sizeof(struct ptrec_sb_mmap) },
		.pid = p, .tid = p, .start = start, .len = len,
		.prot = prot, .mflags = MAP_PRIVATE };
}

Test(rcv_prot, changers)
{
	cr_assert(rcv_prot_changer(10));	/* mprotect */
	cr_assert(rcv_prot_changer(329));	/* pkey_mprotect */
	cr_assert(rcv_prot_changer(9));
	cr_assert(rcv_prot_changer(11));
	cr_assert(rcv_prot_changer(12));
	cr_assert(rcv_prot_changer(25));
	cr_assert(rcv_prot_changer(59));
	cr_assert(rcv_prot_changer(-1), "number not known");
	cr_assert(rcv_prot_changer(1ll << 32), "not a number");
	cr_assert_not(rcv_prot_changer(0));	/* read */
	cr_assert_not(rcv_prot_changer(28));	/* madvise: no protection */
	cr_assert_not(rcv_prot_changer(202));	/* futex */
}

Test(rcv_prot, page_seen_read_only)
{
	struct ptrec_sb_mmap ro = mmap_rec(0x10000, 0x3000, PROT_READ, true,
					   pid);
	struct ptrec_sb_mmap rw = mmap_rec(0x20000, 0x1000,
					   PROT_READ | PROT_WRITE, true, pid);
	struct ptrec_sb_mmap other = mmap_rec(0x11000, 0x1000,
					      PROT_READ | PROT_WRITE, false,
					      pid + 1);
	const struct ptrec_sb_header *r[] = { &ro.hdr, &rw.hdr, &other.hdr };

	cr_assert_eq(rcv_prot_page(r, 3, pid, 0x10000), 1);
	cr_assert_eq(rcv_prot_page(r, 3, pid, 0x12000), 1, "last page");
	cr_assert_eq(rcv_prot_page(r, 3, pid, 0x13000), 0, "past it");
	cr_assert_eq(rcv_prot_page(r, 3, pid, 0x20000), 0, "writable");
	cr_assert_eq(rcv_prot_page(r, 3, pid, 0x30000), 0, "not mapped");
	cr_assert_eq(rcv_prot_page(r, 2, pid + 1, 0x11000), 0,
		     "another process's records");
}

Test(rcv_prot, later_records_end_it)
{
	struct ptrec_sb_mmap ro = mmap_rec(0x10000, 0x3000, PROT_READ, true,
					   pid);
	struct ptrec_sb_mprotect mp = {
		.hdr = { .type = PTREC_SB_MPROTECT },
		.pid = pid, .start = 0x11000, .len = 0x1000,
		.prot = PROT_READ };
	struct ptrec_sb_munmap mu = {
		.hdr = { .type = PTREC_SB_MUNMAP },
		.pid = pid, .start = 0x12000, .len = 0x1000 };
	struct ptrec_sb_mmap again = mmap_rec(0x10000, 0x1000, PROT_READ,
					      false, pid);
	struct ptrec_sb_mmap snap2 = mmap_rec(0x10000, 0x1000, PROT_READ,
					      true, pid);
	const struct ptrec_sb_header *r[] = { &ro.hdr, &mp.hdr, &mu.hdr,
					      &again.hdr };
	const struct ptrec_sb_header *r2[] = { &ro.hdr, &snap2.hdr };

	/* Even a change to the same protection was a change. */
	cr_assert_eq(rcv_prot_page(r, 4, pid, 0x11000), 0, "mprotect");
	cr_assert_eq(rcv_prot_page(r, 4, pid, 0x12000), 0, "munmap");
	cr_assert_eq(rcv_prot_page(r, 4, pid, 0x10000), 0, "mapped again");
	cr_assert_eq(rcv_prot_page(r, 3, pid, 0x10000), 1);
	cr_assert_eq(rcv_prot_page(r2, 2, pid, 0x10000), 0,
		     "two start records: not the recorder's start");
}

Test(rcv_prot, calls_apart)
{
	struct rcv_pcall v[] = {
		{ 10, 20, 1 }, { 20, 30, 1 },	/* one task: may touch */
		{ 31, 40, 2 }, { 50, UINT64_MAX, 3 },
	};

	cr_assert(rcv_prot_apart(v, 4));
	v[2].t0 = 30;		/* closed: 30 is in both */
	cr_assert_not(rcv_prot_apart(v, 4));
	v[2].t0 = 31;
	v[1].t1 = 60;		/* in flight beside task 3's */
	cr_assert_not(rcv_prot_apart(v, 4));
	v[1].t1 = 30;
	v[3].t0 = 5;		/* in flight at its end, begun earlier */
	cr_assert_not(rcv_prot_apart(v, 4));
	cr_assert(rcv_prot_apart(v, 0));
}
