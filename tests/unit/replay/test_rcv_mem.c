// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the recovery engine's system-call table (replay/rcv_mem.c,
 * rcv_sys_write): what user memory a system call writes, by its number
 * and arguments as the Linux x86-64 ABI defines them; unknown numbers or
 * arguments are a barrier (-1), never a guess.  And which memory is the
 * thread's own: not a private mapping of a file changed during the
 * recording.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>

#include "rcv_win.h"

static struct rcv_state st[2];
static struct rp_recover rc;	/* no descriptor known (rcv_fd.c) */
static struct win w = { .st = st, .n = 1, .rc = &rc };

static void set(int g, uint64_t v)
{
	st[0].r[g] = (struct rcv_val){ v, ~0ull };
}

static int sys(uint64_t nr, uint64_t *addr, uint64_t *len)
{
	set(RP_REG_RAX, nr);
	return rcv_sys_write(&w, 0, addr, len);
}

Test(rcv_mem, syscall_writes)
{
	uint64_t a = 0, l = 0;

	memset(st, 0, sizeof(st));
	set(RP_REG_RDI, 0x1000);
	set(RP_REG_RSI, 0x2000);
	set(RP_REG_RDX, 100);
	set(RP_REG_R10, 0x3000);
	set(RP_REG_R8, 0x4000);
	cr_assert_eq(sys(0, &a, &l), 1, "read");
	cr_assert(a == 0x2000 && l == 100);
	/* write: its descriptor may name /proc/PID/mem (test_rcv_fd.c) */
	cr_assert_eq(sys(1, &a, &l), -1, "write, descriptor not known");
	cr_assert_eq(sys(18, &a, &l), 1, "pwrite64: at most its range");
	cr_assert(a == 0x3000 && l == 100);
	cr_assert_eq(sys(33, &a, &l), 0, "dup2");
	cr_assert_eq(sys(302, &a, &l), 1, "prlimit64: old limit at r10");
	cr_assert(a == 0x3000 && l == 16);
	cr_assert_eq(sys(332, &a, &l), 1, "statx at r8");
	cr_assert(a == 0x4000 && l == 256);
	cr_assert_eq(sys(293, &a, &l), 1, "pipe2");
	cr_assert(a == 0x1000 && l == 8);
	cr_assert_eq(sys(217, &a, &l), 1, "getdents64: rsi, rdx bytes");
	cr_assert(a == 0x2000 && l == 100);
	/* optional buffers: NULL writes nothing */
	set(RP_REG_R10, 0);
	cr_assert_eq(sys(302, &a, &l), 0);
	/* by operation */
	set(RP_REG_RSI, 128);			/* FUTEX_WAIT_PRIVATE */
	cr_assert_eq(sys(202, &a, &l), 0);
	set(RP_REG_RSI, 129);			/* FUTEX_WAKE_PRIVATE */
	cr_assert_eq(sys(202, &a, &l), 0);
	set(RP_REG_RSI, 5);		/* FUTEX_WAKE_OP writes *uaddr2 */
	cr_assert_eq(sys(202, &a, &l), 1);
	cr_assert(a == 0x4000 && l == 4);
	set(RP_REG_RSI, 6);			/* FUTEX_LOCK_PI: not known */
	cr_assert_eq(sys(202, &a, &l), -1);
	set(RP_REG_RSI, 3);			/* F_GETFL */
	cr_assert_eq(sys(72, &a, &l), 0);
	set(RP_REG_RSI, 5);		/* F_GETLK writes a flock at rdx */
	cr_assert_eq(sys(72, &a, &l), 1);
	cr_assert(a == 100 && l == 32);
	set(RP_REG_RSI, 7);			/* F_SETLKW: not known */
	cr_assert_eq(sys(72, &a, &l), -1);
	set(RP_REG_RDI, 0x1002);		/* ARCH_SET_FS */
	set(RP_REG_RSI, 0x7000);
	cr_assert_eq(sys(158, &a, &l), 0);
	set(RP_REG_RDI, 0x1003);		/* ARCH_GET_FS: 8 at rsi */
	cr_assert_eq(sys(158, &a, &l), 1);
	cr_assert(a == 0x7000 && l == 8);
	/* mmap without MAP_FIXED (r10 0 here) maps only where nothing is:
	 * no write; with it, a barrier
	 */
	cr_assert_eq(sys(9, &a, &l), 0, "mmap, not MAP_FIXED");
	set(RP_REG_R10, 0x12);
	cr_assert_eq(sys(9, &a, &l), -1, "mmap with MAP_FIXED");
	/* unknown: a barrier */
	cr_assert_eq(sys(28, &a, &l), -1, "madvise may zero pages");
	cr_assert_eq(sys(999, &a, &l), -1);
	st[0].r[RP_REG_RSI].k = 0;		/* futex op unknown */
	cr_assert_eq(sys(202, &a, &l), -1);
	st[0].r[RP_REG_RAX].k = 0;
	cr_assert_eq(rcv_sys_write(&w, 0, &a, &l), -1, "number unknown");
}

/* The system calls that may change fs_base, so that fs-relative operands
 * before them are not given the end's fs_base: the 64-bit ones, the TLS
 * and LDT ones that reload fs, every x32 call (x32 arch_prctl is
 * 0x40000000 + 158), and numbers with upper bits set.
 */
Test(rcv_mem, fs_syscalls)
{
	static const uint64_t may[] = {
		158, 59, 322, 15, 205, 154, 0x40000000ull + 158,
		0x40000000ull + 513, 0x40000000ull + 520, 0x100000000ull + 1,
	};
	static const uint64_t not[] = { 0, 1, 9, 11, 56, 60, 231, 435 };
	size_t i;

	for (i = 0; i < sizeof(may) / sizeof(may[0]); i++)
		cr_assert(rcv_fs_syscall_nr(may[i]), "%#llx",
			  (unsigned long long)may[i]);
	for (i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		cr_assert_not(rcv_fs_syscall_nr(not[i]), "%llu",
			      (unsigned long long)not[i]);
}

/* rcv_acc_word(), the masks a memory question walks a word's accesses
 * with, against rcv_acc_byte() byte by byte: random accesses (a fixed
 * seed) of 0 to 40 bytes, partly known values, around and across a word,
 * and next to the top of the address space.
 */
Test(rcv_mem, acc_word_is_acc_byte)
{
	uint64_t seed = 17, word, base;
	unsigned int n, b, i;
	struct rcv_acc x;
	uint8_t cov, kn, t;
	int r;

	for (n = 0; n < 200000; n++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		base = n & 1 ? 0x7ffd0000ull : UINT64_MAX - 63;
		memset(&x, 0, sizeof(x));
		x.valid = (seed >> 60) != 0;
		x.addr_known = (seed >> 59 & 7) != 0;
		x.addr = base + (seed >> 8 & 31);
		x.size = (unsigned int)(seed >> 16 & 63) % 41;
		for (i = 0; i < 8; i++) {
			if (seed >> (20 + i) & 1)
				x.val.k |= 0xffull << (8 * i);
			if (seed >> (28 + i) & 1)
				x.hi.k |= 0xffull << (8 * i);
		}
		if (seed >> 36 & 1)
			x.val.k |= 0x10;	/* a byte partly known */
		x.val.v = seed * 31;
		x.hi.v = seed * 37;
		word = (base >> 3) + (seed >> 40 & 7);
		kn = rcv_acc_word(&x, word, &cov);
		for (b = 0; b < 8; b++) {
			r = rcv_acc_byte(&x, 8 * word + b, &t);
			cr_assert_eq(cov >> b & 1, r >= 0, "covers: case %u byte %u",
				     n, b);
			cr_assert_eq(kn >> b & 1, r == 1, "known: case %u byte %u",
				     n, b);
		}
	}
}

/*
 * Review 4 (tests/values/review4.c): truncation drops even a private
 * mapping's copies (ftruncate, truncate, O_TRUNC opens: barriers);
 * munmap lets a MAP_GROWSDOWN mapping grow over its pages (a write of
 * them, values unknown); open and openat pass only with O_TRUNC known
 * clear, openat2 never (its flags are in memory).
 */
Test(rcv_mem, truncation_and_munmap)
{
	uint64_t a = 0, l = 0;

	memset(st, 0, sizeof(st));
	set(RP_REG_RDI, 3);
	set(RP_REG_RSI, 0);
	set(RP_REG_RDX, 0);
	cr_assert_eq(sys(77, &a, &l), -1, "ftruncate");
	cr_assert_eq(sys(76, &a, &l), -1, "truncate");
	cr_assert_eq(sys(437, &a, &l), -1, "openat2");
	set(RP_REG_RSI, 02);			/* open(path, O_RDWR) */
	cr_assert_eq(sys(2, &a, &l), 0, "open without O_TRUNC");
	set(RP_REG_RSI, 01002);			/* O_RDWR | O_TRUNC */
	cr_assert_eq(sys(2, &a, &l), -1, "open with O_TRUNC");
	st[0].r[RP_REG_RSI].k = ~01000ull;	/* all but O_TRUNC known */
	st[0].r[RP_REG_RSI].v = 02;
	cr_assert_eq(sys(2, &a, &l), -1, "open, O_TRUNC unknown");
	set(RP_REG_RDX, 0101);			/* O_WRONLY | O_CREAT */
	cr_assert_eq(sys(257, &a, &l), 0, "openat without O_TRUNC");
	set(RP_REG_RDX, 01101);
	cr_assert_eq(sys(257, &a, &l), -1, "openat with O_TRUNC");
	set(RP_REG_RDI, 0x20000000);
	set(RP_REG_RSI, 100);
	cr_assert_eq(sys(11, &a, &l), 1, "munmap: its whole pages");
	cr_assert(a == 0x20000000 && l == 4096);
	set(RP_REG_RSI, 1 << 20);
	cr_assert_eq(sys(11, &a, &l), -1, "munmap of 1 MiB: a barrier");
	set(RP_REG_RSI, 0);
	cr_assert_eq(sys(11, &a, &l), 0, "munmap of nothing");
	st[0].r[RP_REG_RDI].k = 0;
	set(RP_REG_RSI, 4096);
	cr_assert_eq(sys(11, &a, &l), -1, "munmap, address unknown");
}

/* A child process's record with no clone flags (imports, i386's clone
 * before the recorder read its flags) may share the memory and the
 * descriptors; the kernel module's (it sets CLONE_VM from the mm) only
 * the descriptors; a thread's, and a record with flags, say what they
 * say.
 */
Test(rcv_mem, clone_flags_unknown)
{
	struct ptrec_sb_thread_start t = { .pid = 20, .tid = 20,
					   .parent_pid = 10, .parent_tid = 10 };

	cr_assert_eq(rcv_clone_flags(&t, false), CLONE_VM | CLONE_FILES);
	cr_assert_eq(rcv_clone_flags(&t, true), CLONE_FILES);
	t.clone_flags = 17;			/* fork: SIGCHLD */
	cr_assert_eq(rcv_clone_flags(&t, false), 17);
	t.clone_flags = 0x111;			/* CLONE_VM | SIGCHLD */
	cr_assert_eq(rcv_clone_flags(&t, false), 0x111);
	t.pid = 10;				/* a thread */
	t.clone_flags = 0;
	cr_assert_eq(rcv_clone_flags(&t, false), 0);
}

/*
 * brk (rcv_sys_keeps_maps(), review6.c brkfix): a query or a grow keeps
 * every mapping; a shrink unmaps [PAGE_ALIGN(addr), PAGE_ALIGN(old
 * break)), the old break the last brk's result.  With no snapshot every
 * range may hold a read-only page.  Near misses: a shrink inside the
 * break's page unmaps nothing; an unknown or shrinking brk with no call
 * after it that maps again keeps them, not with a later mmap, a call of
 * unknown number, another task sharing the memory or windows after it.
 */
static struct rcv_ins bins[6];
static struct rcv_state bst[7];
static struct rp_recover brc;
static struct win bw = { .ins = bins, .st = bst, .n = 6, .top_end = true,
			 .rc = &brc };

static void bset(size_t i, int g, uint64_t v)
{
	bst[i].r[g] = (struct rcv_val){ v, ~0ull };
}

static bool brk_keeps(uint64_t addr, uint64_t later)
{
	bset(2, RP_REG_RAX, 12);
	bset(2, RP_REG_RDI, addr);
	bset(4, RP_REG_RAX, later);
	return rcv_sys_keeps_maps(&bw, 2);
}

Test(rcv_mem, brk_shrink)
{
	const uint64_t old = 0x555555559000ull;

	memset(bins, 0, sizeof(bins));
	memset(bst, 0, sizeof(bst));
	bins[0].flags = bins[2].flags = bins[4].flags = RCV_I_SYSCALL;
	bset(0, RP_REG_RAX, 12);	/* brk(0): the break, old */
	bset(0, RP_REG_RDI, 0);
	bset(1, RP_REG_RAX, old);
	cr_assert(brk_keeps(0, 9), "brk(0) asks");
	cr_assert(brk_keeps(old + 0x21000, 9), "a grow");
	cr_assert(brk_keeps(old, 9), "the same break");
	cr_assert_not(brk_keeps(old - 0x1000, 9), "a shrink, then mmap");
	cr_assert_not(brk_keeps(old - 0x1001, 9), "two pages, rounded");
	cr_assert(brk_keeps(old - 0xfff, 9),
		  "inside the last page: nothing unmapped");
	cr_assert(brk_keeps(old - 0x1000, 1), "nothing maps after it");
	cr_assert_not(brk_keeps(old - 0x1000, 10), "mprotect after it");
	cr_assert_not(brk_keeps(old - 0x1000, 25), "mremap after it");
	bst[4].r[RP_REG_RAX].k = 0;
	cr_assert_not(rcv_sys_keeps_maps(&bw, 2), "a later call unknown");
	bw.top_end = false;
	cr_assert_not(brk_keeps(old - 0x1000, 1), "windows after it");
	bw.top_end = true;
	brc.mt = true;
	cr_assert_not(brk_keeps(old - 0x1000, 1), "other threads");
	cr_assert_not(brk_keeps(old + 0x1000, 9), "old break not known");
	brc.mt = false;
	bins[1].flags = RCV_I_SYSCALL;		/* prctl(PR_SET_MM, ...) */
	bset(1, RP_REG_RAX, 157);
	cr_assert_not(brk_keeps(old + 0x1000, 9), "prctl between");
	bins[1].flags = 0;
	bset(1, RP_REG_RAX, old);
	cr_assert(brk_keeps(old + 0x1000, 9), "a grow again");
	/* the old break not known (glibc's sbrk): by what follows */
	bst[1].r[RP_REG_RAX].k = 0;
	cr_assert_not(brk_keeps(old + 0x1000, 9), "old break not known");
	cr_assert(brk_keeps(old + 0x1000, 1), "... nothing maps after it");
	cr_assert(brk_keeps(0, 9), "brk(0) still asks");
	bst[1].r[RP_REG_RAX].k = ~0ull;
	bst[2].r[RP_REG_RDI].k = 0;
	bset(2, RP_REG_RAX, 12);
	bset(4, RP_REG_RAX, 9);
	cr_assert_not(rcv_sys_keeps_maps(&bw, 2), "addr not known");
	bset(4, RP_REG_RAX, 1);
	cr_assert(rcv_sys_keeps_maps(&bw, 2), "... nothing maps after it");
}

/*
 * A file changed during the recording (snapshot 5's times, review6.c
 * forkwrite): its private mapping's pages the process never wrote
 * followed the file, which another process may have written, so the
 * mapping is not memory this thread alone writes (rcv_private()) nor
 * read-only memory.  A file last changed before the recording began is;
 * (A version-4 snapshot has no times, has_times false: test_snapshot.c.)
 * @ctime the file's status change.
 */
static bool mapped_private(uint64_t ctime)
{
	static const uint8_t page[4096];
	struct sb_snap_proc p = { .pid = 42, .ppid = 1,
				  .end = SB_SNAP_END_EXIT, .exe = "/p",
				  .start_ns = 1764000000123456789ull };
	struct sb_snap_thread t = { .tid = 42 };
	struct sb_snap_map m = { .start = 0x20000000, .end = 0x20001000,
				 .prot = SB_SNAP_R | SB_SNAP_W,
				 .content = SB_SNAP_DATA, .path = "/tmp/f",
				 .data = page, .dev_major = 254, .ino = 77,
				 .mtime_ns = 1763000000000000001ull,
				 .ctime_ns = ctime, .fs_type = 0xef53 };
	char tmpl[] = "/tmp/ptrec-rcvmem-XXXXXX", dir[64], cmd[96];
	struct rp_recover r = { .pid = 42, .snap_ok = true };
	struct sb_snap_writer *wr;
	struct rp_snapshot *sn;
	struct sb_bundle *b;
	struct sb_err err;
	bool priv;

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/b", tmpl);
	cr_assert_eq(sb_bundle_create(&b, dir, &err), 0, "%s", err.msg);
	sb_bundle_manifest(b)->backend = strdup("emu");
	cr_assert_eq(sb_bundle_open_snapshot(b, &wr, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_proc(wr, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_thread(wr, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_map(wr, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_bundle_finish(b, &err), 0, "%s", err.msg);
	sb_bundle_free(b);
	cr_assert_eq(rp_snapshot_open(&sn, dir), 0, "%s",
		     rp_snapshot_errmsg(sn));
	r.sn = sn;
	priv = rcv_private(&r, 0x20000800);
	rp_snapshot_close(sn);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	cr_assert_eq(system(cmd), 0);
	return priv;
}

Test(rcv_mem, file_changed_during_recording)
{
	cr_assert(mapped_private(1763999999000000000ull),
		  "changed a second before the start: the process's own");
	cr_assert(mapped_private(1764000000122999999ull),
		  "changed a few ns before the start");
	cr_assert(!mapped_private(1764000000123456789ull),
		  "changed at the start (equal): another may have written");
	cr_assert(!mapped_private(1764000001000000007ull),
		  "changed after the start");
	cr_assert(!mapped_private(1764000000123000000ull),
		  "a time in milliseconds: the start rounded down to them");
	cr_assert(mapped_private(1764000000122000000ull),
		  "in milliseconds, the one before the start's");
	cr_assert(!mapped_private(0), "times not known");
}

/*
 * rcv_private_until()'s memo keeps a word's bytes together (rcv_mem.c),
 * each byte's answer its own: a word the thread's control block starts
 * or ends inside of (tls_lo, tls_hi: never private) is private in some
 * bytes only.  rcv_mem_own() over every range near both edges, asked in
 * both orders (bytes first, the memo full; ranges first, filled as it
 * goes; after words of the same slot replaced it), against the rule.
 */
static bool tls_byte(const struct rp_recover *r, uint64_t a)
{
	return r->tls_lo <= a && a < r->tls_hi;
}

static void own_ranges(struct win *pw, uint64_t lo, uint64_t hi)
{
	uint64_t a, k;
	unsigned int n;

	for (a = lo; a < hi; a++)
		for (n = 1; n <= 17; n++) {
			bool want = true;

			for (k = a; k < a + n; k++)
				want &= !tls_byte(pw->rc, k);
			cr_assert_eq(rcv_mem_own(pw, a, n), want,
				     "%#" PRIx64 " + %u", a, n);
		}
}

Test(rcv_mem, private_memo_by_byte)
{
	struct rp_recover *r = calloc(1, sizeof(*r));
	struct win pw = { .rc = r };
	uint64_t a, u, lo = 0x7f0000001000ull - 24, hi = lo + 80;
	int round;

	cr_assert_not_null(r);
	r->tls_lo = 0x7f0000001003ull;	/* inside a word */
	r->tls_hi = 0x7f000000102dull;	/* likewise */
	for (round = 0; round < 3; round++) {
		if (round == 1)		/* bytes asked first */
			for (a = lo; a < hi; a++)
				cr_assert_eq(rcv_private_until(r, a, &u),
					     !tls_byte(r, a), "%#" PRIx64, a);
		if (round == 2)		/* the same slots, other words */
			for (a = lo; a < hi; a++)
				cr_assert(rcv_private(r, a + 8 * RCV_PMEMO *
						      (uint64_t)(1 << 6)));
		own_ranges(&pw, lo, hi);
		for (a = lo; a < hi; a++) {
			cr_assert_eq(rcv_private(r, a), !tls_byte(r, a),
				     "%#" PRIx64, a);
			cr_assert_eq(rcv_private_until(r, a, &u),
				     !tls_byte(r, a));
			cr_assert_eq(u, UINT64_MAX, "one thread: all through");
		}
	}
	free(r);
}

/*
 * The read-only rule (rcv_mem.c ro_mem()) asked once for a word that lies
 * in one mapping (ro_word_maybe()), each byte on its own otherwise: the
 * same bytes as asking each byte.  An empty window at the end of a
 * snapshot of read-only anonymous pages beside a writable one, a gap and
 * another read-only one; every byte of every range across the edges,
 * against the rule: with the snapshot of the thread (snap_ok) every mapped
 * byte is its end's; with only the read-only pages of a thread that ended
 * before it (snap_ro) those alone.
 */
#define RO_BASE	0x20000000ull

static uint8_t ro_kind(uint64_t a)	/* 1 read-only, 2 writable, 0 none */
{
	uint64_t pg = (a - RO_BASE) >> 12;

	if (a < RO_BASE || pg > 3)
		return 0;
	return (uint8_t)(pg == 0 || pg == 3 ? 1 : pg == 1 ? 2 : 0);
}

static uint8_t ro_byte(uint64_t a)
{
	return (uint8_t)(a * 7 + (a >> 12));
}

static void ro_ranges(bool snap_ok)
{
	static uint8_t data[4][4096];
	struct sb_snap_proc p = { .pid = 42, .ppid = 1,
				  .end = SB_SNAP_END_EXIT, .exe = "/p" };
	struct sb_snap_thread t = { .tid = 42 };
	char tmpl[] = "/tmp/ptrec-rcvmem-XXXXXX", dir[64], cmd[96];
	static const uint64_t edge[] = { RO_BASE, RO_BASE + 0x1000,
					 RO_BASE + 0x2000, RO_BASE + 0x3000,
					 RO_BASE + 0x4000 };
	struct rp_recover *r = calloc(1, sizeof(*r));
	uint32_t nb1[1] = { 0 };
	int64_t pb1[1] = { -1 };
	struct win pw = { .rc = r, .nb = nb1, .pb = pb1, .protc = -1,
			  .top_end = true };
	struct sb_snap_writer *wr;
	struct rp_snapshot *sn;
	struct sb_bundle *b;
	struct sb_err err;
	uint8_t buf[24], v;
	uint64_t a, e, k;
	unsigned int n;
	size_t pg, got;

	cr_assert_not_null(r);
	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/b", tmpl);
	cr_assert_eq(sb_bundle_create(&b, dir, &err), 0, "%s", err.msg);
	sb_bundle_manifest(b)->backend = strdup("emu");
	cr_assert_eq(sb_bundle_open_snapshot(b, &wr, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_proc(wr, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(sb_snap_writer_thread(wr, &t, &err), 0, "%s", err.msg);
	for (pg = 0; pg < 4; pg++) {
		uint64_t s = RO_BASE + 0x1000 * pg;
		struct sb_snap_map m = { .start = s, .end = s + 0x1000,
					 .content = SB_SNAP_DATA,
					 .path = "", .data = data[pg] };

		if (!ro_kind(s))
			continue;
		m.prot = ro_kind(s) == 1 ? SB_SNAP_R : SB_SNAP_R | SB_SNAP_W;
		for (k = 0; k < 4096; k++)
			data[pg][k] = ro_byte(s + k);
		cr_assert_eq(sb_snap_writer_map(wr, &m, &err), 0, "%s",
			     err.msg);
	}
	cr_assert_eq(sb_bundle_finish(b, &err), 0, "%s", err.msg);
	sb_bundle_free(b);
	cr_assert_eq(rp_snapshot_open(&sn, dir), 0, "%s",
		     rp_snapshot_errmsg(sn));
	r->pid = 42;
	r->sn = sn;
	r->snap_ok = snap_ok;
	r->snap_ro = !snap_ok;
	r->mb_gen = 1;
	for (k = 0; k < sizeof(edge) / sizeof(edge[0]); k++)
		for (a = edge[k] - 12; a < edge[k] + 12; a++) {
			bool want = snap_ok ? ro_kind(a) != 0 : ro_kind(a) == 1;

			cr_assert_eq(rcv_mem_byte(&pw, 0, a, &v), want,
				     "%#" PRIx64, a);
			cr_assert(!want || v == ro_byte(a), "%#" PRIx64, a);
			for (n = 1; n <= 17; n++) {
				got = rcv_mem_range(&pw, 0, a, buf, n);
				for (e = a; e < a + n; e++) {
					want = snap_ok ? ro_kind(e) != 0 :
							 ro_kind(e) == 1;
					if (!want)
						break;
				}
				cr_assert_eq(got, e - a, "%#" PRIx64 " + %u",
					     a, n);
				for (e = 0; e < got; e++)
					cr_assert_eq(buf[e], ro_byte(a + e));
			}
		}
	rp_snapshot_close(sn);
	free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	cr_assert_eq(system(cmd), 0);
}

Test(rcv_mem, read_only_by_word)
{
	ro_ranges(false);
	ro_ranges(true);
}

/*
 * rcv_fs_absolute(): fs-relative operands after the last instruction
 * that may change fs_base take the end's fs_base, once; a barrier lifted
 * later (a proven branch) lets those before it be converted at the next
 * pass, each exactly once, and a pass with nothing new changes nothing.
 */
Test(rcv_mem, fs_operands_converted_once)
{
	enum { M = 6 };
	static struct rcv_ins fi[M];
	static struct rcv_state fst[M + 1];
	struct rp_recover frc;
	struct win fw;
	size_t i;

	memset(fi, 0, sizeof(fi));
	memset(&frc, 0, sizeof(frc));
	frc.end_regs.valid = 1ull << RP_REG_FS_BASE;
	frc.end_regs.val[RP_REG_FS_BASE] = 0x7000;
	fw = (struct win){ .st = fst, .ins = fi, .n = M, .rc = &frc,
			   .top_end = true };
	for (i = 0; i < M; i++) {
		fi[i].nops = 1;
		fi[i].op[0] = (struct rcv_op){ .type = RCV_OP_MEM,
					      .base = -1, .index = -1,
					      .seg = 1, .imm = 0x28 };
	}
	fi[2].flags = RCV_I_BARRIER;	/* a branch not proven yet */
	cr_assert(rcv_fs_absolute(&frc, &fw));
	for (i = 0; i < M; i++)
		cr_assert_eq(fi[i].op[0].seg, i > 2 ? 0 : 1, "%zu", i);
	cr_assert_eq(fi[3].op[0].imm, 0x7028);
	cr_assert_not(rcv_fs_absolute(&frc, &fw), "nothing new");
	fi[2].flags = 0;		/* proven */
	cr_assert(rcv_fs_absolute(&frc, &fw));
	for (i = 0; i < M; i++) {
		cr_assert_eq(fi[i].op[0].seg, 0, "%zu", i);
		cr_assert_eq(fi[i].op[0].imm, 0x7028, "%zu: once", i);
	}
	cr_assert_not(rcv_fs_absolute(&frc, &fw));
	cr_assert(fw.fs_tail && fw.fs_clean);
}
