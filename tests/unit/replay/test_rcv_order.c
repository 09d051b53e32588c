// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_order.c: another task's history, read back from
 * its end, bounds when it last may have changed a mapping or a read-only
 * page (bound[0]) or closed or replaced a descriptor (bound[1]): the time
 * packet after its last system call that may, when its number is not one
 * known to do neither (found from `mov $nr, %eax` before it, through
 * register copies, with no transfer between); its exit when sooner; 0 for
 * a task made in the recording that made none.  And the first position
 * of the asking thread after a time.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_win.h"

#define MAXI 16

struct hist {
	struct rp_insn in[MAXI];
	uint64_t n;
};

static struct rcv_dec *dec;
static struct hist h;

static int peek(void *ctx, uint64_t pos, struct rp_insn *insn)
{
	const struct hist *x = ctx;

	if (pos >= x->n)
		return -RP_ERR_RANGE;
	*insn = x->in[pos];
	return 0;
}

/* Appends instruction @b (@len bytes) at @ip (0: after the last). */
static void add_at(uint64_t ip, const char *b, size_t len, uint8_t iclass,
		   uint64_t tsc)
{
	struct rp_insn *p = &h.in[h.n];

	cr_assert_lt(h.n, MAXI);
	memset(p, 0, sizeof(*p));
	p->ip = ip ? ip : h.n ? h.in[h.n - 1].ip + h.in[h.n - 1].size :
		0x401000;
	p->size = (uint8_t)len;
	memcpy(p->raw, b, len);
	p->iclass = iclass;
	p->tsc = tsc;
	h.n++;
}

#define ADD(b, t) add_at(0, b, sizeof(b) - 1, RP_IC_OTHER, t)
#define SYSCALL(t) add_at(0, "\x0f\x05", 2, RP_IC_FAR, t)

static void bounds(bool started, uint64_t t_exit, uint64_t t_first,
		   uint64_t b[2])
{
	struct rcv_hist rh = { peek, &h, h.n };

	rcv_order_task(dec, &rh, started, t_exit, t_first, b);
}

static void setup(void)
{
	memset(&h, 0, sizeof(h));
	cr_assert_eq(rcv_dec_new(&dec), 0);
}

static void teardown(void)
{
	rcv_dec_free(dec);
}

TestSuite(rcv_order, .init = setup, .fini = teardown);

/* mov $nr, %eax; syscall; then nops, each system call's next with a new
 * time (the recorder enables the stream again with a TSC after it).
 */
static void one_call(const char *mov, size_t len)
{
	add_at(0, mov, len, RP_IC_OTHER, 10);
	SYSCALL(10);
	ADD("\x90", 20);
	ADD("\x90", 20);
}

#define ONE(mov) one_call(mov, sizeof(mov) - 1)

Test(rcv_order, futex_keeps_both)
{
	uint64_t b[2];

	ONE("\xb8\xca\x00\x00\x00");	/* mov $0xca, %eax: futex */
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(b[1], 0);
	/* there when the recording began: until its first instruction */
	bounds(false, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 10);
	cr_assert_eq(b[1], 10);
}

Test(rcv_order, mprotect_orders_maps_only)
{
	uint64_t b[2];

	ONE("\xb8\x0a\x00\x00\x00");	/* mprotect */
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 20, "after the time packet that follows it");
	cr_assert_eq(b[1], 0);
	/* its exit, when sooner */
	bounds(true, 15, 0, b);
	cr_assert_eq(b[0], 15);
}

Test(rcv_order, dup2_orders_descriptors_only)
{
	uint64_t b[2];

	ONE("\xb8\x21\x00\x00\x00");	/* dup2 */
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(b[1], 20);
}

Test(rcv_order, madvise_mmap_write_order_maps)
{
	static const char *const movs[] = {
		"\xb8\x1c\x00\x00\x00",	/* madvise */
		"\xb8\x09\x00\x00\x00",	/* mmap: MAP_FIXED not known */
		"\xb8\x01\x00\x00\x00",	/* write: to /proc/PID/mem? */
		"\xb8\x4d\x00\x00\x00",	/* ftruncate */
	};
	uint64_t b[2];
	size_t k;

	for (k = 0; k < 4; k++) {
		h.n = 0;
		one_call(movs[k], 5);
		bounds(true, UINT64_MAX, 0, b);
		cr_assert_eq(b[0], 20, "number %zu", k);
		cr_assert_eq(b[1], 0, "number %zu", k);
	}
}

/* glibc's exit: mov $0x3c, %edx ... mov %edx, %eax; syscall */
Test(rcv_order, number_through_a_copy)
{
	uint64_t b[2];

	ADD("\xba\x3c\x00\x00\x00", 10);	/* mov $0x3c, %edx */
	ADD("\x31\xff", 10);			/* xor %edi, %edi */
	ADD("\x89\xd0", 10);			/* mov %edx, %eax */
	SYSCALL(10);
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(b[1], 0);
}

/* xor %eax, %eax: read(2) */
Test(rcv_order, xor_is_read)
{
	uint64_t b[2];

	ONE("\x31\xc0");
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(b[1], 0);
}

/* Unknown numbers: any system call. */
static void unknown_number(void)
{
	uint64_t b[2];

	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 20);
	cr_assert_eq(b[1], 20);
}

Test(rcv_order, number_from_memory)
{
	ONE("\x8b\x07");		/* mov (%rdi), %eax */
	unknown_number();
}

Test(rcv_order, number_in_ax_only)
{
	ONE("\x66\xb8\xca\x00");	/* mov $0xca, %ax: rax's top unknown */
	unknown_number();
}

/* A signal handler between the mov and the syscall: its instructions,
 * not the mov's fall-through (the kernel set the registers).
 */
Test(rcv_order, transfer_between)
{
	ADD("\xb8\xca\x00\x00\x00", 10);
	add_at(0x405000, "\x90", 1, RP_IC_OTHER, 10);
	SYSCALL(10);
	ADD("\x90", 20);
	unknown_number();
}

/* An indirect jump between: a signal right after it looks the same. */
Test(rcv_order, indirect_jump_between)
{
	ADD("\xb8\xca\x00\x00\x00", 10);
	add_at(0, "\x41\xff\xe3", 3, RP_IC_JUMP, 10);	/* jmp *%r11 */
	add_at(0x405000, "\x0f\x05", 2, RP_IC_FAR, 10);
	ADD("\x90", 20);
	unknown_number();
}

/* int $0x80: the 32-bit table, not looked into. */
Test(rcv_order, int80)
{
	ADD("\xb8\x06\x00\x00\x00", 10);
	add_at(0, "\xcd\x80", 2, RP_IC_FAR, 10);
	ADD("\x90", 20);
	unknown_number();
}

/* No new time after the call: its end is not bounded, but by the exit. */
Test(rcv_order, no_time_after)
{
	uint64_t b[2];

	ADD("\xb8\x0a\x00\x00\x00", 10);
	SYSCALL(10);
	ADD("\x90", 10);
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], UINT64_MAX);
	bounds(true, 99, 0, b);
	cr_assert_eq(b[0], 99);
	cr_assert_eq(b[1], 0);
}

/* The history ends in it (still in the call at the end). */
Test(rcv_order, last_call)
{
	uint64_t b[2];

	ADD("\xb8\x0a\x00\x00\x00", 10);
	SYSCALL(10);
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], UINT64_MAX);
	bounds(true, 50, 0, b);
	cr_assert_eq(b[0], 50);
}

/* Only the last one matters, and what lies before the asking thread's
 * first time is not looked at.
 */
Test(rcv_order, last_and_early)
{
	uint64_t b[2];

	ADD("\xb8\x0a\x00\x00\x00", 5);
	SYSCALL(5);
	ADD("\x90", 8);
	ADD("\xb8\x21\x00\x00\x00", 8);	/* dup2 */
	SYSCALL(8);
	ADD("\xb8\x0a\x00\x00\x00", 30);	/* mprotect */
	SYSCALL(30);
	ADD("\x90", 40);
	bounds(true, UINT64_MAX, 0, b);
	cr_assert_eq(b[0], 40);
	cr_assert_eq(b[1], 30);
	/* the asking thread began at 35: the dup2 is before it */
	bounds(true, UINT64_MAX, 35, b);
	cr_assert_eq(b[0], 40);
	cr_assert_leq(b[1], 35);
	/* at 50: all of it is */
	h.n = 3;
	bounds(true, UINT64_MAX, 50, b);
	cr_assert_leq(b[0], 50);
	cr_assert_leq(b[1], 50);
	cr_assert_eq(b[0], 8);
}

Test(rcv_order, first_after)
{
	struct rcv_hist rh = { peek, &h, 0 };
	static const uint64_t t[] = { 5, 5, 10, 10, 20 };
	size_t k;

	for (k = 0; k < 5; k++)
		ADD("\x90", t[k]);
	rh.n = h.n;
	cr_assert_eq(rcv_order_first_after(&rh, 10), 4);
	cr_assert_eq(rcv_order_first_after(&rh, 4), 0);
	cr_assert_eq(rcv_order_first_after(&rh, 5), 2);
	cr_assert_eq(rcv_order_first_after(&rh, 20), UINT64_MAX);
	cr_assert_eq(rcv_order_first_after(&rh, UINT64_MAX), UINT64_MAX);
}

/* ---- by the arguments (rcv_order_effect(), rcv_order_task_args()) ---- */

static struct rp_regs regs_of(uint64_t rdi, uint64_t rsi, uint64_t rdx,
			      uint64_t r10)
{
	struct rp_regs r = { 0 };

	r.val[RP_REG_RDI] = rdi;
	r.val[RP_REG_RSI] = rsi;
	r.val[RP_REG_RDX] = rdx;
	r.val[RP_REG_R10] = r10;
	r.valid = 1ull << RP_REG_RDI | 1ull << RP_REG_RSI |
		  1ull << RP_REG_RDX | 1ull << RP_REG_R10;
	return r;
}

/* Another task's brk: brk(0) asks for the break; brk(addr) may shrink
 * the heap over any mapping (review6.c brkfix), and the old break is not
 * in its registers: any page.
 */
Test(rcv_order, effect_brk)
{
	struct rp_regs r = regs_of(0, 0, 0, 0);
	uint64_t lo = 0, hi = 0;

	cr_assert_eq(rcv_order_effect(12, &r, &lo, &hi), 0);
	r = regs_of(0x555555558000ull, 0, 0, 0);
	cr_assert_eq(rcv_order_effect(12, &r, &lo, &hi), -1);
	r = regs_of(0, 0, 0, 0);
	r.valid &= ~(1ull << RP_REG_RDI);
	cr_assert_eq(rcv_order_effect(12, &r, &lo, &hi), -1);
	cr_assert_eq(rcv_order_effect(12, NULL, &lo, &hi), -1);
}

Test(rcv_order, effect_by_arguments)
{
	struct rp_regs r;
	uint64_t lo = 0, hi = 0;

	/* futex: nothing, arguments or not */
	cr_assert_eq(rcv_order_effect(202, NULL, &lo, &hi), 0);
	/* mprotect, munmap, madvise: their pages, rounded out */
	r = regs_of(0x7f0000001000ull, 0x1001, 1, 0);
	cr_assert_eq(rcv_order_effect(10, &r, &lo, &hi), 1);
	cr_assert_eq(lo, 0x7f0000001000ull);
	cr_assert_eq(hi, 0x7f0000003000ull);
	r = regs_of(0x7f0000001234ull, 1, 4, 0);
	cr_assert_eq(rcv_order_effect(11, &r, &lo, &hi), 1);
	cr_assert_eq(lo, 0x7f0000001000ull);
	cr_assert_eq(hi, 0x7f0000002000ull);
	cr_assert_eq(rcv_order_effect(28, &r, &lo, &hi), 1);
	/* PROT_GROWSDOWN / PROT_GROWSUP: the whole mapping */
	r = regs_of(0x7f0000001000ull, 0x1000, 0x01000001, 0);
	cr_assert_eq(rcv_order_effect(10, &r, &lo, &hi), -1);
	r = regs_of(0x7f0000001000ull, 0x1000, 0x02000001, 0);
	cr_assert_eq(rcv_order_effect(10, &r, &lo, &hi), -1);
	/* the address, the length or prot not known */
	r = regs_of(0x7f0000001000ull, 0x1000, 1, 0);
	r.valid &= ~(1ull << RP_REG_RDI);
	cr_assert_eq(rcv_order_effect(11, &r, &lo, &hi), -1);
	r.valid |= 1ull << RP_REG_RDI;
	r.valid &= ~(1ull << RP_REG_RSI);
	cr_assert_eq(rcv_order_effect(28, &r, &lo, &hi), -1);
	r = regs_of(0x7f0000001000ull, 0x1000, 1, 0);
	r.valid &= ~(1ull << RP_REG_RDX);
	cr_assert_eq(rcv_order_effect(10, &r, &lo, &hi), -1);
	cr_assert_eq(rcv_order_effect(10, NULL, &lo, &hi), -1);
	/* a range that wraps */
	r = regs_of(0xfffffffffffff000ull, 0x2000, 0, 0);
	cr_assert_eq(rcv_order_effect(11, &r, &lo, &hi), -1);
	/* mmap: without MAP_FIXED nothing (only where no mapping is),
	 * with it its pages, flags not known anything
	 */
	r = regs_of(0, 0x8000000, 0, 0x4022);
	cr_assert_eq(rcv_order_effect(9, &r, &lo, &hi), 0);
	r = regs_of(0x20000000, 0x1000, 3, 0x32);
	cr_assert_eq(rcv_order_effect(9, &r, &lo, &hi), 1);
	cr_assert_eq(lo, 0x20000000);
	cr_assert_eq(hi, 0x20001000);
	r.valid &= ~(1ull << RP_REG_R10);
	cr_assert_eq(rcv_order_effect(9, &r, &lo, &hi), -1);
	r = regs_of(0, 0x1000, 3, 0x32);
	r.valid &= ~(1ull << RP_REG_RDI);
	cr_assert_eq(rcv_order_effect(9, &r, &lo, &hi), -1);
	/* ioctl: TCGETS only */
	r = regs_of(1, 0x5401, 0x7ffc0000, 0);
	cr_assert_eq(rcv_order_effect(16, &r, &lo, &hi), 0);
	r = regs_of(1, 0x5402, 0x7ffc0000, 0);
	cr_assert_eq(rcv_order_effect(16, &r, &lo, &hi), -1);
	/* mremap, brk, pkey_mprotect, write: anything */
	r = regs_of(0x20000000, 0x1000, 0, 0);
	cr_assert_eq(rcv_order_effect(25, &r, &lo, &hi), -1);
	cr_assert_eq(rcv_order_effect(12, &r, &lo, &hi), -1);
	cr_assert_eq(rcv_order_effect(329, &r, &lo, &hi), -1);
	cr_assert_eq(rcv_order_effect(1, &r, &lo, &hi), -1);
}

/* The registers before each position: a table in the tests. */
static struct rp_regs at_regs[MAXI];

static int fake_regs(void *ctx, uint64_t pos, struct rp_regs *r)
{
	(void)ctx;
	if (pos >= MAXI || !at_regs[pos].valid)
		return -RP_ERR_RANGE;
	*r = at_regs[pos];
	return 0;
}

/*
 * mmap (no MAP_FIXED) at 10, munmap of a known range at 20, mprotect of
 * one not known at 30 (timed 5 each, the next time after each 10 more):
 * from the end back, the munmap is a range with its own bound, the mmap
 * nothing, and the mprotect ends the walk (every page).
 */
Test(rcv_order, ranges_walked_back)
{
	struct rcv_ord_call v[4];
	struct rcv_ord_calls calls = { v, 0, 4 };
	struct rcv_ord_args args = { fake_regs, NULL, NULL, NULL, false };
	struct rcv_hist rh = { peek, &h, 0 };
	uint64_t b[2];

	memset(at_regs, 0, sizeof(at_regs));
	ADD("\xb8\x0a\x00\x00\x00", 5);		/* 0: mprotect */
	SYSCALL(5);				/* 1 */
	ADD("\xb8\x09\x00\x00\x00", 15);	/* 2: mmap */
	SYSCALL(15);				/* 3 */
	ADD("\xb8\x0b\x00\x00\x00", 25);	/* 4: munmap */
	SYSCALL(25);				/* 5 */
	ADD("\x90", 35);			/* 6 */
	at_regs[1] = regs_of(0x1000, 0x1000, 1, 0);
	at_regs[1].valid &= ~(1ull << RP_REG_RDI);
	at_regs[3] = regs_of(0, 0x8000000, 0, 0x4022);
	at_regs[5] = regs_of(0x7f0000000000ull, 0x2000, 0, 0);
	rh.n = h.n;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15, "every page: after the mprotect");
	cr_assert_eq(b[1], 0);
	cr_assert_eq(calls.n, 1);
	cr_assert_eq(v[0].bound, 35);
	cr_assert_eq(v[0].lo, 0x7f0000000000ull);
	cr_assert_eq(v[0].hi, 0x7f0000002000ull);
	/* The mprotect's address known, another range: walked to the
	 * start (a task made in the recording: 0 for every other page).
	 */
	at_regs[1].valid |= 1ull << RP_REG_RDI;
	calls.n = 0;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(calls.n, 2);
	cr_assert_eq(v[1].bound, 15);
	cr_assert_eq(v[1].lo, 0x1000);
	/* Its exit bounds each call too. */
	calls.n = 0;
	rcv_order_task_args(dec, &rh, true, 30, 0, &args, &calls, b);
	cr_assert_eq(v[0].bound, 30);
	/* No room for a range: that call is taken as any page's. */
	calls.n = 0;
	calls.cap = 0;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 35);
	cr_assert_eq(calls.n, 0);
	/* The registers not known: as before, the last call ends it. */
	calls.cap = 4;
	memset(at_regs, 0, sizeof(at_regs));
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 35);
	cr_assert_eq(calls.n, 0);
}

/* The engine's verdict on a write(2) at a position: it writes no memory. */
static bool quiet_at[MAXI];

static bool fake_quiet(void *ctx, uint64_t pos)
{
	(void)ctx;
	return pos < MAXI && quiet_at[pos];
}

/*
 * A write(2) at 1 (timed 5, done before 15): it may write read-only pages
 * through /proc/PID/mem, so it ends the walk; where the task's engine
 * shows it writes no memory (a descriptor proven not to name a memory
 * file), it changes nothing and the walk goes on to the start.
 */
Test(rcv_order, write_by_the_engine)
{
	struct rcv_ord_call v[4];
	struct rcv_ord_calls calls = { v, 0, 4 };
	struct rcv_ord_args args = { fake_regs, NULL, fake_quiet, NULL,
				     false };
	struct rcv_hist rh = { peek, &h, 0 };
	uint64_t b[2];

	memset(at_regs, 0, sizeof(at_regs));
	memset(quiet_at, 0, sizeof(quiet_at));
	ADD("\xb8\x01\x00\x00\x00", 5);		/* 0: write */
	SYSCALL(5);				/* 1 */
	ADD("\x90", 15);			/* 2 */
	at_regs[1] = regs_of(1, 0x1000, 1, 0);
	rh.n = h.n;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15, "may write a read-only page");
	quiet_at[1] = true;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 0, "writes no memory");
	cr_assert_eq(calls.n, 0);
}

/* Register bits before a position: rdx at 1 (the tests set it). */
static struct rcv_val dx_at1;

static int fake_bits(void *ctx, uint64_t pos, unsigned int reg, uint64_t *v,
		     uint64_t *k)
{
	(void)ctx;
	if (pos != 1 || reg != RP_REG_RDX)
		return -RP_ERR_RANGE;
	*v = dx_at1.v;
	*k = dx_at1.k;
	return 0;
}

/*
 * An mprotect at 1 (timed 5, done before 15) whose range is not known:
 * it ends the walk, unless the task's engine shows it asks for
 * PROT_WRITE (rdx bit 1 known set: no page the snapshot shows not
 * writable, rcv_sys_prot_write()); bit 1 known clear, or not known, or
 * no bits at all: it still ends it.
 */
Test(rcv_order, mprotect_asking_write)
{
	struct rcv_ord_call v[4];
	struct rcv_ord_calls calls = { v, 0, 4 };
	struct rcv_ord_args args = { fake_regs, NULL, NULL, fake_bits,
				     false };
	struct rcv_hist rh = { peek, &h, 0 };
	uint64_t b[2];

	memset(at_regs, 0, sizeof(at_regs));
	ADD("\xb8\x0a\x00\x00\x00", 5);		/* 0: mprotect */
	SYSCALL(5);				/* 1 */
	ADD("\x90", 15);			/* 2 */
	at_regs[1] = regs_of(0x1000, 0x1000, 3, 0);
	at_regs[1].valid &= ~(1ull << RP_REG_RDI | 1ull << RP_REG_RDX);
	rh.n = h.n;
	dx_at1 = (struct rcv_val){ 0x3, 0xff };
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 0, "PROT_READ | PROT_WRITE: no read-only page");
	cr_assert_eq(calls.n, 0);
	dx_at1 = (struct rcv_val){ 0x1, 0xff };
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15, "PROT_READ alone may end a writable window");
	dx_at1 = (struct rcv_val){ 0x1, 0xfd };
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15, "PROT_WRITE not known");
	args.bits = NULL;
	dx_at1 = (struct rcv_val){ 0x3, 0xff };
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15, "no bits: as before");
}

/*
 * by_page (rcv_prot.c): the mprotect at 1 whose range and protection are
 * not known no longer ends the walk: it is kept as a call of every page
 * (prot), bounded by the time after it, which rcv_order_maps_at() counts
 * only for pages the recorder saw change; the munmap's range and the
 * start (0) as before.  Without room for it, it ends the walk as before.
 */
Test(rcv_order, mprotect_by_page)
{
	struct rcv_ord_call v[4];
	struct rcv_ord_calls calls = { v, 0, 4 };
	struct rcv_ord_args args = { fake_regs, NULL, NULL, NULL, true };
	struct rcv_hist rh = { peek, &h, 0 };
	uint64_t b[2];

	memset(at_regs, 0, sizeof(at_regs));
	ADD("\xb8\x0a\x00\x00\x00", 5);		/* 0: mprotect */
	SYSCALL(5);				/* 1 */
	ADD("\xb8\x0b\x00\x00\x00", 15);	/* 2: munmap */
	SYSCALL(15);				/* 3 */
	ADD("\x90", 25);			/* 4 */
	at_regs[1] = regs_of(0x1000, 0x1000, 1, 0);
	at_regs[1].valid &= ~(1ull << RP_REG_RDI | 1ull << RP_REG_RDX);
	at_regs[3] = regs_of(0x7f0000000000ull, 0x2000, 0, 0);
	rh.n = h.n;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 0, "walked to the start");
	cr_assert_eq(calls.n, 2);
	cr_assert_not(v[0].prot);
	cr_assert_eq(v[0].lo, 0x7f0000000000ull);
	cr_assert(v[1].prot);
	cr_assert_eq(v[1].bound, 15);
	cr_assert_eq(v[1].lo, 0);
	cr_assert_eq(v[1].hi, UINT64_MAX);
	/* Not by page: the mprotect ends the walk (every page). */
	args.by_page = false;
	calls.n = 0;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15);
	cr_assert_eq(calls.n, 1);
	/* By page, no room: as a call of any page. */
	args.by_page = true;
	calls.n = 0;
	calls.cap = 1;
	rcv_order_task_args(dec, &rh, true, UINT64_MAX, 0, &args, &calls, b);
	cr_assert_eq(b[0], 15);
	cr_assert_eq(calls.n, 1);
	cr_assert_not(v[0].prot);
}
