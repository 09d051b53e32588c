// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/watch_proof.c, the proof that lets a watchpoint
 * scan pass a window without the recovery engine: the registers followed
 * through decoded instructions (frames, alignment, a stack switch, system
 * calls, signals, a store that may reach a pushed slot), each access's
 * interval against the addresses the instructions really use; and on a
 * recording of tests/gdb/watchval, scans with watch-unknown skip (which
 * use the proofs) against the engine's accesses position by position, in
 * windows of several sizes, over the stack, the globals and words no
 * instruction touches.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_win.h"
#include "watch_proof.h"

TestSuite(watch_proof, .init = setup, .fini = teardown);

#define TOP_RSP	0x7ffe0000ull

static struct wpf_edge top_rsp(uint64_t rsp)
{
	struct wpf_edge e = { 0 };

	e.r[RP_REG_RSP] = (struct wpf_reg){ true, rsp, rsp };
	return e;
}

/* Runs @n instructions with no cut, @top after them; their accesses. */
static struct wpf_win *run(const struct rcv_ins *in, size_t n,
			   const struct wpf_edge *top, const uint8_t *cut,
			   struct wpf_out *out)
{
	static const uint8_t none[64];
	struct wpf_win *w;

	cr_assert_lt(n, sizeof(none));
	cr_assert_eq(wpf_win_run(in, cut ? cut : none, n, 0, top, &w), 0);
	cr_assert_eq(wpf_win_acc(w, out), 0);
	return w;
}

static void is_acc(const struct wpf_out *o, size_t j, uint32_t i,
		   uint8_t kind, uint64_t lo, uint64_t hi)
{
	cr_assert_lt(j, o->nacc);
	cr_assert_eq(o->acc[j].i, i, "access %zu", j);
	cr_assert_eq(o->acc[j].kind, kind, "access %zu", j);
	cr_assert(o->acc[j].known, "access %zu not known", j);
	cr_assert_eq(o->acc[j].lo, lo, "access %zu: %#lx", j,
		     (unsigned long)o->acc[j].lo);
	cr_assert_eq(o->acc[j].hi, hi, "access %zu: %#lx", j,
		     (unsigned long)o->acc[j].hi);
}

Test(watch_proof, frame)
{
	/* push rbp; mov rbp,rsp; mov [rbp-4],edi; pop rbp */
	struct rcv_ins in[] = {
		INS("\x55"), INS("\x48\x89\xe5"), INS("\x89\x7d\xfc"),
		INS("\x5d"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 4, &top, NULL, &o);

	cr_assert(!o.contradiction);
	cr_assert_eq(o.nacc, 3);
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP - 8, TOP_RSP);
	is_acc(&o, 1, 2, RP_ACC_WRITE, TOP_RSP - 12, TOP_RSP - 8);
	is_acc(&o, 2, 3, RP_ACC_READ, TOP_RSP - 8, TOP_RSP);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, align)
{
	/* mov [rsp],edi; and rsp,-16; push rax */
	struct rcv_ins in[] = {
		INS("\x89\x3c\x24"), INS("\x48\x83\xe4\xf0"), INS("\x50"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP - 8);
	struct wpf_out o;
	struct wpf_win *w = run(in, 3, &top, NULL, &o);

	/* rsp was in [TOP_RSP, TOP_RSP + 15] before the and; the push's
	 * slot, exact after it, is known through that interval: wider,
	 * never missing the true bytes.
	 */
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 15 + 4);
	is_acc(&o, 1, 2, RP_ACC_WRITE, TOP_RSP - 8 - 15, TOP_RSP + 15);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, stack_switch)
{
	/* mov rsp,rax; mov qword [rsp-16],42; mov rsp,rbx; push rcx */
	struct rcv_ins in[] = {
		INS("\x48\x89\xc4"),
		INS("\x48\xc7\x44\x24\xf0\x2a\x00\x00\x00"),
		INS("\x48\x89\xdc"), INS("\x51"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 4, &top, NULL, &o);

	/* The store went where rax was: nothing after the window says. */
	cr_assert_eq(o.nacc, 2);
	cr_assert(!o.acc[0].known);
	is_acc(&o, 1, 3, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* With rax known after it, the store is known: rax - 16. */
	top.r[RP_REG_RAX] = (struct wpf_reg){ true, 0x5000, 0x5000 };
	w = run(in, 4, &top, NULL, &o);
	is_acc(&o, 0, 1, RP_ACC_WRITE, 0x5000 - 16, 0x5000 - 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, syscalls)
{
	/* push rbp; mov eax,N; syscall; pop rcx; push rcx */
	struct rcv_ins getpid[] = {
		INS("\x55"), INS("\xb8\x27\x00\x00\x00"), INS("\x0f\x05"),
		INS("\x59"), INS("\x51"),
	};
	struct rcv_ins sigreturn[] = {
		INS("\x55"), INS("\xb8\x0f\x00\x00\x00"), INS("\x0f\x05"),
		INS("\x59"), INS("\x51"),
	};
	struct rcv_ins unknown_nr[] = {
		INS("\x55"), INS("\x89\xf8"), INS("\x0f\x05"), INS("\x59"),
		INS("\x51"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	/* getpid writes no memory and keeps rsp. */
	w = run(getpid, 5, &top, NULL, &o);
	cr_assert_eq(o.nacc, 3);
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* rt_sigreturn sets rsp from the frame: before it, unknown. */
	w = run(sigreturn, 5, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	cr_assert(!o.acc[1].known);	/* the kernel's writes */
	is_acc(&o, o.nacc - 1, 4, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* A number not known may be rt_sigreturn. */
	w = run(unknown_nr, 5, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, cut)
{
	/* push rbp; (a signal) pop rcx; push rcx */
	struct rcv_ins in[] = { INS("\x55"), INS("\x59"), INS("\x51") };
	const uint8_t cut[3] = { 1, 0, 0 };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 3, &top, cut, &o);

	cr_assert(!o.acc[0].known);
	is_acc(&o, 1, 1, RP_ACC_READ, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/*
 * A pop gives back its push's word only when no store may have reached
 * the slot: rbp after the window then fixes rbp before it, and so the
 * store through rbp before the push.
 */
Test(watch_proof, slot)
{
	/* mov [rbp-8],eax; push rbp; STORE; pop rbp */
	struct rcv_ins safe[] = {
		INS("\x89\x45\xf8"), INS("\x55"),
		INS("\x48\x89\x44\x24\x08"),	/* mov [rsp+8],rax */
		INS("\x5d"),
	};
	struct rcv_ins unsafe[] = {
		INS("\x89\x45\xf8"), INS("\x55"),
		INS("\x89\x07"),		/* mov [rdi],eax */
		INS("\x5d"),
	};
	struct rcv_ins hit[] = {
		INS("\x89\x45\xf8"), INS("\x55"),
		INS("\x48\x89\x04\x24"),	/* mov [rsp],rax */
		INS("\x5d"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	top.r[RP_REG_RBP] = (struct wpf_reg){ true, 0x6000, 0x6000 };
	w = run(safe, 4, &top, NULL, &o);
	is_acc(&o, 0, 0, RP_ACC_WRITE, 0x6000 - 8, 0x6000 - 4);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(unsafe, 4, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	cr_assert(!o.acc[2].known);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(hit, 4, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* A 16-bit push or pop moves rsp by 2, whatever capstone says. */
Test(watch_proof, operand_size)
{
	/* push imm16; push rbp */
	struct rcv_ins in[] = { INS("\x66\x6a\x10"), INS("\x55") };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	wpf_fix(&in[0], (const uint8_t *)"\x66\x6a\x10", 3);
	w = run(in, 2, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	is_acc(&o, o.nacc - 1, 1, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* What the registers after a window say against the instructions. */
Test(watch_proof, contradiction)
{
	/* xor eax,eax; (rax is 5 after it) */
	struct rcv_ins in[] = { INS("\x31\xc0"), INS("\x55") };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	top.r[RP_REG_RAX] = (struct wpf_reg){ true, 5, 5 };
	w = run(in, 2, &top, NULL, &o);
	cr_assert(o.contradiction);
	cr_assert(!o.acc[0].known);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* ---- scans on a recording --------------------------------------------- */

static struct rp_session *s;
static struct rp_recover *rc;
static struct rp_watch *wt;
static uint32_t tid, pid;
static uint64_t end;

static void rec_setup(void)
{
	struct rp_thread_info info;

	setup();
	cr_assert_eq(rp_session_open(&s, WATCH_BUNDLE), 0);
	tid = rp_thread_tid(s, 0);
	cr_assert_eq(rp_thread_info(s, tid, &info), 0);
	pid = info.pid;
	cr_assert_eq(rp_thread_end(s, tid, &end, NULL), 0);
	cr_assert_eq(rp_watch_new(&wt), 0);
	rp_watch_set_unknown(wt, RP_WATCH_UNKNOWN_SKIP);
}

static void rec_teardown(void)
{
	rp_watch_free(wt);
	rp_recover_free(rc);
	rp_session_close(s);
	teardown();
}

TestSuite(watch_proof_rec, .init = rec_setup, .fini = rec_teardown);

struct ref_arg {
	unsigned int type;
	uint64_t lo, len;
};

/* The scan before the proofs: a known access to the range stops it. */
static int ref_one(void *arg, const struct rp_access *acc, int n)
{
	const struct ref_arg *a = arg;
	int k;

	for (k = 0; k < n; k++) {
		unsigned int need = acc[k].kind == RP_ACC_WRITE ?
				    RP_WATCH_WRITE : RP_WATCH_READ;

		if ((a->type & need) && acc[k].addr_known &&
		    acc[k].addr < a->lo + a->len &&
		    a->lo < acc[k].addr + acc[k].size)
			return 1;
	}
	return 0;
}

/*
 * Skip scans of [lo, lo + len) from the end back and from the start on
 * stop exactly where the engine's own scan (rp_recover_scan(), the scan
 * before the proofs, in a context of its own) does.  Returns the number
 * of stops backward.
 */
static size_t same_as_engine(const char *dir, uint64_t block,
			     unsigned int type, uint64_t lo, uint64_t len)
{
	struct ref_arg ra = { type, lo, len };
	unsigned int kinds = (type & RP_WATCH_WRITE ? RP_ACC_WRITE : 0) |
			     (type & RP_WATCH_READ ? RP_ACC_READ : 0);
	struct rp_session *ss;
	struct rp_recover *ref;
	struct rp_watch_hit h;
	uint64_t hi, q, e;
	size_t n = 0;
	int d;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	rp_watch_clear(wt);
	cr_assert_eq(rp_watch_insert(wt, type, pid, lo, len), 0);
	for (d = -1; d <= 1; d += 2) {
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
		rp_recover_set_block(rc, block);
		rp_recover_set_block(ref, block);
		for (hi = d < 0 ? e : 0;;) {
			int ret = d < 0 ?
				  rp_watch_scan(wt, rc, pid, -1, 0, hi, &h) :
				  rp_watch_scan(wt, rc, pid, 1, hi, e, &h);
			int r2;

			q = d < 0 ? hi - 1 : hi;
			r2 = hi == (d < 0 ? 0 : e) ? -RP_ERR_NOTFOUND :
			     rp_recover_scan(ref, &q, d, d < 0 ? 0 : hi,
					     d < 0 ? hi : e, kinds, ref_one,
					     &ra);
			cr_assert_eq(ret, r2, "%s block %lu [%#lx, +%lu) dir "
				     "%d from %lu: %d, engine %d", dir,
				     (unsigned long)block, (unsigned long)lo,
				     (unsigned long)len, d, (unsigned long)hi,
				     ret, r2);
			if (ret)
				break;
			cr_assert_eq(h.pos, q, "%s block %lu [%#lx, +%lu): "
				     "stop at %lu, engine %lu", dir,
				     (unsigned long)block, (unsigned long)lo,
				     (unsigned long)len, (unsigned long)h.pos,
				     (unsigned long)q);
			n += d < 0;
			hi = d < 0 ? h.pos : h.pos + 1;
		}
		rp_recover_free(ref);
		rp_recover_free(rc);
		rc = NULL;
	}
	rp_session_close(ss);
	return n;
}

/* The scan before the proofs with watch-unknown stop: any access the
 * engine does not know stops it too.
 */
static int ref_stop(void *arg, const struct rp_access *acc, int n)
{
	const struct ref_arg *a = arg;
	int k;

	for (k = 0; k < n; k++) {
		unsigned int need = acc[k].kind == RP_ACC_WRITE ?
				    RP_WATCH_WRITE : RP_WATCH_READ;

		if ((a->type & need) && !acc[k].addr_known)
			return 1;
	}
	return ref_one(arg, acc, n);
}

/*
 * With watch-unknown stop, a backward scan of [lo, lo + len) stops where
 * the engine's own scan stops, but for stores (or loads) of unknown
 * address that a proof shows to miss: every stop of the scan is one of
 * the engine's, and those it leaves out are "may have" stops.  Returns
 * how many it left out.
 */
static size_t stop_subset(const char *dir, uint64_t block, unsigned int type,
			  uint64_t lo, uint64_t len, size_t *stops)
{
	struct ref_arg ra = { type, lo, len };
	unsigned int kinds = (type & RP_WATCH_WRITE ? RP_ACC_WRITE : 0) |
			     (type & RP_WATCH_READ ? RP_ACC_READ : 0);
	struct rp_access acc[4];
	struct rp_session *ss;
	struct rp_recover *ref;
	struct rp_watch_hit h;
	uint64_t e, q, hi, *old = NULL, *cur = NULL;
	size_t no = 0, nc = 0, i, j, out = 0;

	cr_assert_eq(rp_session_open(&ss, dir), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, NULL), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
	cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &ref), 0);
	rp_recover_set_block(rc, block);
	rp_recover_set_block(ref, block);
	rp_watch_clear(wt);
	rp_watch_set_unknown(wt, RP_WATCH_UNKNOWN_STOP);
	cr_assert_eq(rp_watch_insert(wt, type, pid, lo, len), 0);
	old = malloc((e + 1) * sizeof(*old));
	cur = malloc((e + 1) * sizeof(*cur));
	cr_assert(old && cur);
	for (hi = e; hi; hi = q) {
		q = hi - 1;
		if (rp_recover_scan(ref, &q, -1, 0, hi, kinds, ref_stop, &ra))
			break;
		old[no++] = q;
	}
	for (hi = e; hi && !rp_watch_scan(wt, rc, pid, -1, 0, hi, &h);
	     hi = h.pos)
		cur[nc++] = h.pos;
	/* Every stop is the engine's; the engine's others are "may have". */
	for (i = j = 0; i < no; i++) {
		if (j < nc && cur[j] == old[i]) {
			j++;
			continue;
		}
		cr_assert(j >= nc || cur[j] < old[i], "%s block %lu [%#lx, "
			  "+%lu): stop at %lu is not the engine's", dir,
			  (unsigned long)block, (unsigned long)lo,
			  (unsigned long)len, (unsigned long)cur[j]);
		ra.type = type;
		cr_assert_eq(ref_one(&ra, acc, rp_recover_accesses(ref, old[i],
							  acc, 4)), 0,
			     "%s block %lu: a known access at %lu left out",
			     dir, (unsigned long)block,
			     (unsigned long)old[i]);
		out++;
	}
	cr_assert_eq(j, nc, "%s block %lu: stops not the engine's", dir,
		     (unsigned long)block);
	*stops = nc;
	free(old);
	free(cur);
	rp_recover_free(ref);
	rp_recover_free(rc);
	rc = NULL;
	rp_watch_set_unknown(wt, RP_WATCH_UNKNOWN_SKIP);
	rp_session_close(ss);
	return out;
}

/*
 * With watch-unknown stop, stores of unknown address that a proof shows
 * to miss no longer stop the scan; all others still do, at the same
 * places, and so do the known ones.
 */
Test(watch_proof_rec, stop_mode)
{
	struct rp_regs regs;
	size_t b, stops, out = 0, all = 0;
	uint64_t a;

	cr_assert_eq(rp_thread_end(s, tid, &end, &regs), 0);
	for (b = 0; b < 5; b++) {
		static const uint64_t bl[] = { 50, 128, 300, 1000, 0 };

		out += stop_subset(WATCH_BUNDLE, bl[b], RP_WATCH_WRITE,
				   WATCH_TOTAL, 8, &stops);
		all += stops;
		for (a = regs.val[RP_REG_RSP] - 64;
		     a < regs.val[RP_REG_RSP] + 64; a += 40) {
			out += stop_subset(WATCH_BUNDLE, bl[b],
					   RP_WATCH_ACCESS, a, 8, &stops);
			all += stops;
		}
	}
	cr_assert_gt(all, 0);
	cr_log_info("stop mode: %zu stops, %zu left out", all, out);
}

static const uint64_t blocks[] = { 50, 128, 300, 1000, 0 };

Test(watch_proof_rec, stack_words)
{
	struct rp_regs regs;
	uint64_t rsp, a, total = 0;
	size_t b;

	cr_assert_eq(rp_thread_end(s, tid, &end, &regs), 0);
	cr_assert(regs.valid & (1ull << RP_REG_RSP));
	rsp = regs.val[RP_REG_RSP];
	/* Words below and above the stack pointer at the end: locals,
	 * saved registers, return addresses, written and read.
	 */
	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
		for (a = rsp - 256; a < rsp + 256; a += 24) {
			total += same_as_engine(WATCH_BUNDLE, blocks[b],
						RP_WATCH_WRITE, a, 8);
			total += same_as_engine(WATCH_BUNDLE, blocks[b],
						RP_WATCH_ACCESS, a, 8);
		}
	cr_assert_gt(total, 50, "stack stores and loads hit: %lu",
		     (unsigned long)total);
}

Test(watch_proof_rec, globals)
{
	size_t b;

	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		cr_assert_eq(same_as_engine(WATCH_BUNDLE, blocks[b], RP_WATCH_WRITE,
					    WATCH_TOTAL, 8), 6);
		same_as_engine(WATCH_BUNDLE, blocks[b], RP_WATCH_READ, WATCH_STEP, 4);
	}
}

/*
 * On a loop of calls (tests/bench/gdbloop, -O0: every access relative to
 * the stack or a constant): scans of stack words and of sink stop where
 * the engine's do, and a scan of a word nothing touches computes none of
 * the engine's windows (each is passed on a proof).
 */
Test(watch_proof_rec, loop)
{
	struct rp_session *ss;
	struct rp_thread_info info;
	struct rp_regs regs;
	struct rp_recover_stats st;
	struct rp_watch_hit h;
	uint64_t e, a, total = 0;
	size_t b;

	cr_assert_eq(rp_session_open(&ss, LOOP_BUNDLE), 0);
	cr_assert_eq(rp_thread_end(ss, rp_thread_tid(ss, 0), &e, &regs), 0);
	cr_assert_eq(rp_thread_info(ss, rp_thread_tid(ss, 0), &info), 0);
	pid = info.pid;
	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		for (a = regs.val[RP_REG_RSP] - 64;
		     a < regs.val[RP_REG_RSP] + 64; a += 12)
			total += same_as_engine(LOOP_BUNDLE, blocks[b],
						RP_WATCH_ACCESS, a, 4);
		cr_assert_gt(same_as_engine(LOOP_BUNDLE, blocks[b],
					    RP_WATCH_WRITE, LOOP_SINK, 4), 100);
		cr_assert_eq(same_as_engine(LOOP_BUNDLE, blocks[b],
					    RP_WATCH_WRITE, LOOP_SINK + 64, 4),
			     0);
		cr_assert_eq(rp_recover_new(ss, rp_thread_tid(ss, 0), &rc), 0);
		rp_recover_set_block(rc, blocks[b]);
		cr_assert_eq(rp_watch_scan(wt, rc, pid, -1, 0, e, &h),
			     -RP_ERR_NOTFOUND);
		rp_recover_stats(rc, &st);
		cr_assert_eq(st.windows, 0, "block %lu: %lu windows computed",
			     (unsigned long)blocks[b],
			     (unsigned long)st.windows);
		rp_recover_free(rc);
		rc = NULL;
	}
	cr_assert_gt(total, 100, "stack words: %lu stops",
		     (unsigned long)total);
	rp_session_close(ss);
}
