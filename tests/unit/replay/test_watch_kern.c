// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the kernel's writes between two instructions in the
 * watch scan (replay/watch_kern.c through rp_watch_scan()), on a
 * recording of tests/gdb/watchkern: two signal deliveries (a handler on
 * an alternate stack, one on the normal stack) whose siginfo the kernel
 * writes, the handler's second argument (kept in si_alt, si_norm: the
 * program's own truth); the thread's rseq area (cpu_id's address kept in
 * rseq_cpu).  GDB on the same program: tests/gdb/watchkern.sh.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay/watchfix.h"

static void setup(void)
{
	watch_open(KERN_BUNDLE);
}

TestSuite(watch_kern, .init = setup, .fini = watch_close);

/* The first position at @ip (a handler's first instruction). */
static uint64_t entry_of(uint64_t ip)
{
	struct rp_cursor *c;
	struct rp_insn in;
	uint64_t p;

	cr_assert_eq(rp_cursor_new(s, tid, &c), 0);
	for (p = 0; p < end; p++) {
		cr_assert_eq(rp_cursor_peek(c, p, &in), 0);
		if (in.ip == ip)
			break;
	}
	rp_cursor_free(c);
	cr_assert_lt(p, end, "no instruction at %#llx", (unsigned long long)ip);
	return p;
}

/* A word of the program's globals at the end (the snapshot). */
static uint64_t word_at_end(uint64_t addr)
{
	uint64_t v = 0;

	cr_assert_eq(rp_recover_mem(rc, end, addr, (uint8_t *)&v, 8), 8);
	return v;
}

/*
 * The frame of the delivery to the handler at @h, whose siginfo pointer
 * the program kept at @keep: either way and in every mode, the watched
 * si_signo stops right after the instruction before the handler's first
 * (kill's system call), a known write of the frame's 440 bytes with the
 * siginfo at 312 (after the return address and struct ucontext).
 */
static void frame_case(uint64_t h, uint64_t keep)
{
	static const enum rp_watch_unknown mode[] = {
		RP_WATCH_UNKNOWN_STOP, RP_WATCH_UNKNOWN_STACK,
		RP_WATCH_UNKNOWN_SKIP };
	uint64_t si = word_at_end(keep), p = entry_of(h);
	struct rp_watch_hit hit;
	size_t m;

	cr_assert_neq(si, 0);
	cr_assert_gt(p, 0);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, si, 4), 0);
	for (m = 0; m < 3; m++) {
		rp_watch_set_unknown(w, mode[m]);
		/* backwards from inside the handler */
		cr_assert_eq(rp_watch_scan(w, rc, pid, -1, 0, p + 1, &hit), 0);
		cr_assert_eq(hit.pos, p - 1, "mode %zu: at %llu", m,
			     (unsigned long long)hit.pos);
		cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_SIGFRAME);
		cr_assert(!hit.maybe);
		cr_assert_eq(hit.kind, RP_ACC_WRITE);
		cr_assert_eq(hit.acc_size, 440);
		cr_assert_eq(si - hit.acc_addr, 312);
		/* forwards from kill's system call */
		cr_assert_eq(rp_watch_scan(w, rc, pid, 1, p - 1, end, &hit), 0);
		cr_assert_eq(hit.pos, p - 1);
		cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_SIGFRAME);
	}
	/* The 8 bytes below the frame: never the delivery's. */
	rp_watch_clear(w);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, si - 312 - 8, 8),
		     0);
	if (!rp_watch_scan(w, rc, pid, -1, 0, p + 1, &hit))
		cr_assert(hit.pos != p - 1 || !hit.kernel);
	/* Nor for a read watchpoint. */
	rp_watch_clear(w);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_READ, pid, si, 4), 0);
	if (!rp_watch_scan(w, rc, pid, -1, 0, p + 1, &hit))
		cr_assert(!hit.kernel);
}

Test(watch_kern, alternate_stack_frame)
{
	frame_case(KERN_H_ALT, KERN_SI_ALT);
}

Test(watch_kern, normal_stack_frame)
{
	frame_case(KERN_H_NORM, KERN_SI_NORM);
}

/*
 * The rep stosb that faulted on rep_dst's second page after filling the
 * first, left by siglongjmp (no instruction for its stores): in every
 * mode, a watchpoint on byte 10 stops backwards from the handler's entry
 * (with skip: from the end) at the delivery (right before the handler's first instruction), a write that
 * may have happened whose known range holds the byte; one on the second
 * page's bytes past the range does not.
 */
Test(watch_kern, faulting_rep_stos)
{
	static const enum rp_watch_unknown mode[] = {
		RP_WATCH_UNKNOWN_STOP, RP_WATCH_UNKNOWN_STACK,
		RP_WATCH_UNKNOWN_SKIP };
	uint64_t d = word_at_end(KERN_REP_DST), p = entry_of(KERN_H_SEGV);
	struct rp_watch_hit hit;
	size_t m;

	cr_assert_neq(d, 0);
	cr_assert_gt(p, 0);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, d + 10, 1), 0);
	for (m = 0; m < 3; m++) {
		rp_watch_set_unknown(w, mode[m]);
		/* backwards from the handler's entry (and, with skip,
		 * from the end: nothing after it is known to hit)
		 */
		cr_assert_eq(rp_watch_scan(w, rc, pid, -1, 0,
					   m == 2 ? end : p, &hit), 0);
		cr_assert_eq(hit.pos, p - 1, "mode %zu: at %llu, not %llu", m,
			     (unsigned long long)hit.pos,
			     (unsigned long long)p - 1);
		cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_PARTIAL);
		cr_assert(hit.maybe);
		cr_assert_eq(hit.kind, RP_ACC_WRITE);
		cr_assert(hit.acc_size && d + 10 - hit.acc_addr < hit.acc_size,
			  "mode %zu: %#llx +%llu", m,
			  (unsigned long long)hit.acc_addr,
			  (unsigned long long)hit.acc_size);
		/* forwards from before the delivery */
		cr_assert_eq(rp_watch_scan(w, rc, pid, 1, p - 1, end, &hit), 0);
		cr_assert_eq(hit.pos, p - 1);
	}
	/* Past the 8191 bytes the iterations before the fault can cover
	 * (the fault is at d + 4096: the range ends there)
	 */
	rp_watch_clear(w);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, d + 4096, 8), 0);
	if (!rp_watch_scan(w, rc, pid, -1, p - 1, p, &hit))
		cr_assert(!hit.kernel, "at %llu", (unsigned long long)hit.pos);
}

/*
 * The handler's first state (replay/rcv_sig.c, from the SIGFRAME record
 * and x64_setup_rt_frame()): rsp the frame, rdx &uc (8 above it), rsi
 * &info (312 above it: the pointer the program kept, its own truth), rdi
 * the signal's number, rax 0, and DF clear.
 */
static void entry_case(uint64_t h, uint64_t keep, uint64_t signo)
{
	uint64_t si = word_at_end(keep), p = entry_of(h), v, k;
	struct rp_regs r;

	cr_assert_eq(rp_recover_regs(rc, p, &r), 0);
	cr_assert(r.valid & (1ull << RP_REG_RSP));
	cr_assert_eq(r.val[RP_REG_RSP], si - 312);
	cr_assert(r.valid & (1ull << RP_REG_RDX));
	cr_assert_eq(r.val[RP_REG_RDX], si - 304);
	cr_assert(r.valid & (1ull << RP_REG_RSI));
	cr_assert_eq(r.val[RP_REG_RSI], si);
	cr_assert(r.valid & (1ull << RP_REG_RDI));
	cr_assert_eq(r.val[RP_REG_RDI], signo);
	cr_assert(r.valid & (1ull << RP_REG_RAX));
	cr_assert_eq(r.val[RP_REG_RAX], 0);
	cr_assert_eq(rp_recover_reg_bits(rc, p, RP_REG_EFLAGS, &v, &k), 0);
	cr_assert(k & 0x400);
	cr_assert_eq(v & 0x400, 0);
}

Test(watch_kern, alternate_stack_entry)
{
	entry_case(KERN_H_ALT, KERN_SI_ALT, 10);
}

Test(watch_kern, normal_stack_entry)
{
	entry_case(KERN_H_NORM, KERN_SI_NORM, 12);
}

/* The first system call at or after @p. */
static uint64_t syscall_from(uint64_t p)
{
	struct rp_cursor *c;
	struct rp_insn in;

	cr_assert_eq(rp_cursor_new(s, tid, &c), 0);
	for (; p < end; p++) {
		cr_assert_eq(rp_cursor_peek(c, p, &in), 0);
		if (in.size == 2 && in.raw[0] == 0x0f && in.raw[1] == 0x05)
			break;
	}
	rp_cursor_free(c);
	cr_assert_lt(p, end);
	return p;
}

/*
 * rt_sigreturn writes no user memory (it reads the frame): with stop and
 * stack, an 8-byte watchpoint on the siginfo stops backwards from after
 * the handler's rt_sigreturn at the delivery, and forwards from the
 * handler's entry not at rt_sigreturn ("may have written" there before).
 */
static void sigreturn_case(uint64_t h, uint64_t keep)
{
	static const enum rp_watch_unknown mode[] = {
		RP_WATCH_UNKNOWN_STOP, RP_WATCH_UNKNOWN_STACK };
	uint64_t si = word_at_end(keep), p = entry_of(h), sr;
	struct rp_watch_hit hit;
	size_t m;

	sr = syscall_from(p);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, si, 8), 0);
	for (m = 0; m < 2; m++) {
		rp_watch_set_unknown(w, mode[m]);
		cr_assert_eq(rp_watch_scan(w, rc, pid, -1, 0, sr + 2, &hit),
			     0);
		cr_assert_eq(hit.pos, p - 1, "mode %zu: at %llu (sigreturn "
			     "%llu)", m, (unsigned long long)hit.pos,
			     (unsigned long long)sr);
		cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_SIGFRAME);
		if (!rp_watch_scan(w, rc, pid, 1, p, end, &hit))
			cr_assert_gt(hit.pos, sr, "mode %zu: at %llu", m,
				     (unsigned long long)hit.pos);
	}
	rp_watch_clear(w);
}

Test(watch_kern, alternate_stack_sigreturn)
{
	sigreturn_case(KERN_H_ALT, KERN_SI_ALT);
}

Test(watch_kern, normal_stack_sigreturn)
{
	sigreturn_case(KERN_H_NORM, KERN_SI_NORM);
}

/*
 * The rseq area: a software recording may see the kernel rewrite it after
 * any instruction (each single step switches the thread out and back):
 * cpu_id stops at the nearest position either way with "may have
 * written", stop and stack modes; skip passes it; the flags word (the
 * kernel reads it only) never stops for it.
 */
Test(watch_kern, rseq_area)
{
	uint64_t a = word_at_end(KERN_RSEQ_CPU);
	struct rp_watch_hit hit;
	int ret;

	if (!a)
		cr_skip_test("glibc registers no rseq area here");
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, a, 4), 0);
	cr_assert_eq(rp_watch_scan(w, rc, pid, -1, 0, end, &hit), 0);
	cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_RSEQ);
	cr_assert(hit.maybe);
	cr_assert_eq(hit.pos, end - 1);
	cr_assert_eq(rp_watch_scan(w, rc, pid, 1, 10, end, &hit), 0);
	cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_RSEQ);
	cr_assert_eq(hit.pos, 10);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_STACK);
	cr_assert_eq(rp_watch_scan(w, rc, pid, -1, 0, end, &hit), 0);
	cr_assert_eq(hit.kernel, RP_WATCH_KERNEL_RSEQ);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_SKIP);
	ret = rp_watch_scan(w, rc, pid, -1, 0, end, &hit);
	cr_assert(ret == -RP_ERR_NOTFOUND ||
		  (!ret && hit.kernel != RP_WATCH_KERNEL_RSEQ));
	rp_watch_clear(w);
	rp_watch_set_unknown(w, RP_WATCH_UNKNOWN_STOP);
	cr_assert_eq(rp_watch_insert(w, RP_WATCH_WRITE, pid, a + 12, 4), 0);
	ret = rp_watch_scan(w, rc, pid, -1, 0, end, &hit);
	cr_assert(ret == -RP_ERR_NOTFOUND ||
		  (!ret && hit.kernel != RP_WATCH_KERNEL_RSEQ));
}

/*
 * A hardware trace with no record of signals (tests/tools/mksig.c,
 * imported raw): kill's system call at 3 returns into a handler at 4
 * (the kernel's return elsewhere than after the syscall: a delivery),
 * whose rt_sigreturn at 5 (rax 15) returns to 6 (not one).  The engine
 * does not know the handler's rsp (no snapshot): the frame is a write of
 * unknown address after 3: "may have written" with stop, none with skip.
 * No rseq area (no snapshot): nothing else of the kernel's.
 */
static struct rp_session *hs;
static struct rp_recover *hrc;
static struct rp_watch *hw;
static uint32_t htid, hpid;

static void hw_open(void)
{
	struct rp_thread_info info;

	cr_assert_eq(rp_session_open(&hs, SIG_BUNDLE), 0, "%s", SIG_BUNDLE);
	htid = rp_thread_tid(hs, 0);
	cr_assert_eq(rp_thread_info(hs, htid, &info), 0);
	hpid = info.pid;
	cr_assert_eq(rp_recover_new(hs, htid, &hrc), 0);
	cr_assert_eq(rp_watch_new(&hw), 0);
}

static void hw_close(void)
{
	rp_watch_free(hw);
	rp_recover_free(hrc);
	rp_session_close(hs);
}

TestSuite(watch_kern_hw, .init = hw_open, .fini = hw_close);

Test(watch_kern_hw, delivery_without_records)
{
	struct rp_watch_hit h;

	/* g: the stores at 6 and 1 are known; the frame between. */
	cr_assert_eq(rp_watch_insert(hw, RP_WATCH_WRITE, hpid, 0x400100, 4),
		     0);
	cr_assert_eq(rp_watch_scan(hw, hrc, hpid, -1, 0, 6, &h), 0);
	if (h.pos == 5) {	/* rt_sigreturn: a system call, may write */
		cr_assert(h.maybe && !h.kernel);
		cr_assert_eq(rp_watch_scan(hw, hrc, hpid, -1, 0, 5, &h), 0);
	}
	cr_assert_eq(h.pos, 3);
	cr_assert_eq(h.kernel, RP_WATCH_KERNEL_SIGFRAME);
	cr_assert(h.maybe);
	cr_assert_eq(rp_watch_scan(hw, hrc, hpid, 1, 4, 8, &h), 0);
	cr_assert_neq(h.kernel, RP_WATCH_KERNEL_SIGFRAME, "after 5 at %llu",
		      (unsigned long long)h.pos);
	cr_assert_eq(rp_watch_scan(hw, hrc, hpid, 1, 2, 8, &h), 0);
	cr_assert_eq(h.pos, 3);
	cr_assert_eq(h.kernel, RP_WATCH_KERNEL_SIGFRAME);
	/* skip: the known stores alone */
	rp_watch_set_unknown(hw, RP_WATCH_UNKNOWN_SKIP);
	cr_assert_eq(rp_watch_scan(hw, hrc, hpid, -1, 0, 6, &h), 0);
	cr_assert_eq(h.pos, 1);
	cr_assert(!h.maybe && !h.kernel);
}
