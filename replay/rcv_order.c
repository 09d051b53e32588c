// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Other threads' system calls ordered against this thread's instructions
 * (issue #17, docs/values.md "Other threads' system calls in time"): from
 * which position of thread T no other task sharing T's memory (or its
 * descriptor table) may still change a mapping, a protection or a
 * read-only page (or close or replace a descriptor).  The read-only rule
 * of rcv_mem.c (ro_mem()) and the descriptors of rcv_fd.c then hold in a
 * multi-threaded process from that position on, as they do in a process
 * with one thread.  The read-only rule per page: a call whose arguments
 * (the other task's registers, from a values engine of its own) show it
 * changes only a range of pages (mprotect, munmap, madvise, mmap with
 * MAP_FIXED) or none (mmap without it) orders only the pages it may
 * change (rcv_order_maps_at(): a lazy binding's read of ld.so's read-only
 * data while another thread makes its malloc arena).
 *
 * Only the software recorder's order is used, because only there does the
 * argument hold (docs/values.md): its clock is one strictly increasing
 * counter read by one tracer that issues every instruction; a thread's
 * stream is disabled after each system call and enabled again with a TSC
 * packet read when its next instruction is issued, after the call
 * completed; the decoder's time at an instruction is that of a packet
 * before it.  So, with tsc(x) the decoded time of instruction x:
 *
 *   issue(x) >= tsc(x)                    (a lower bound of x's time)
 *   completion(syscall p) < tsc(p + 1)    (when tsc(p + 1) > tsc(p))
 *   every act of task U < its THREAD_EXIT record's time
 *
 * and a system call p of U with tsc(p + 1) < tsc(N) completed before T's
 * instruction N ran, whatever CPUs they ran on.  Another recorder's
 * timestamps (PT's TSC after a system call comes only with the next PSB
 * or MTC; the module's switch records say when a thread stopped running,
 * not when a system call it sleeps in ends) prove no such order: no rule.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>
#include <linux/sched.h>

#include "rcv_win.h"

/* Instructions of another task looked at, at most (then: no order). */
#define ORD_WALK	(1u << 22)
/* Instructions before a system call searched for its number. */
#define ORD_SCAN	16
/* Instructions per window of another task's values engine. */
#define ORD_BLOCK	2048

/*
 * System calls that change no mapping, no protection and no byte of a
 * read-only page, whatever their arguments: they write user memory, if
 * at all, with the user's permissions (copy_to_user, put_user, futex
 * words: EFAULT on a read-only page), and make threads or processes that
 * are recorded tasks themselves.  Not mmap (MAP_FIXED over a mapping may
 * look the same in /proc/PID/maps), mprotect, munmap, mremap, madvise
 * (MADV_DONTNEED refetches a file page or zeroes an anonymous one), the
 * write family (to /proc/PID/mem: rcv_fd.c), ftruncate, truncate and
 * open, openat, openat2 (O_TRUNC: truncation drops a file's pages from
 * every mapping, even a private mapping's copies, tests/values/review4.c
 * truncro; the number alone does not show the flags), ioctl,
 * process_vm_writev, io_uring, execve or any number not listed.
 */
static bool keeps_maps(uint64_t nr)
{
	switch (nr) {
	case 0: case 17:			/* read, pread64 */
	case 4: case 5: case 6: case 262: case 332:	/* stat family */
	case 21: case 269:			/* access, faccessat */
	case 3: case 8: case 32: case 33: case 292: case 436: /* close, dup */
	case 13: case 14:			/* rt_sigaction, procmask */
	case 24: case 34: case 35: case 37:	/* yield, pause, sleep */
	case 38:				/* setitimer */
	case 39: case 110: case 186:		/* getpid, getppid, gettid */
	case 102: case 104: case 107: case 108:	/* get[e]uid/gid */
	case 62: case 200: case 234:		/* kill, tkill, tgkill */
	case 56: case 57: case 58: case 435:	/* clone, fork, vfork */
	case 60: case 231:			/* exit, exit_group */
	case 63: case 79: case 89: case 97: case 99:	/* uname... */
	case 202:				/* futex */
	case 203: case 204:			/* sched_[gs]etaffinity */
	case 217: case 228: case 229:		/* getdents64, clocks */
	case 218: case 273: case 334:		/* tid address, robust, rseq */
	case 22: case 293:			/* pipe, pipe2 */
	case 302: case 318:			/* prlimit64, getrandom */
	case 74: case 75:			/* fsync, fdatasync */
		return true;
	default:
		return false;
	}
}

/*
 * ... and those that close or replace no descriptor: anything that only
 * makes new ones (open, dup, pipe, F_DUPFD take the lowest free one), so
 * a descriptor open at the end named the same file before them.  Not
 * close, dup2, dup3, close_range, io_uring, ioctl (seccomp's ADDFD may
 * replace one), execve, or any number not listed.
 */
static bool keeps_fds(uint64_t nr)
{
	switch (nr) {
	case 3: case 33: case 292: case 436:
		return false;
	case 1: case 18: case 20: case 296: case 328:	/* write family */
	case 9: case 10: case 11: case 12: case 25: case 28: /* mm */
	case 72:				/* fcntl */
	case 77:				/* ftruncate */
	case 2: case 257: case 437:		/* open, openat, openat2 */
		return true;
	default:
		return keeps_maps(nr);
	}
}

/*
 * The pages [*lo, *hi) of the range a system call's first two arguments
 * name (addr, len), as the kernel rounds them: false when either is not
 * known or the range wraps.
 */
static bool arg_pages(const struct rp_regs *r, uint64_t *lo, uint64_t *hi)
{
	uint64_t m = 1ull << RP_REG_RDI | 1ull << RP_REG_RSI, a, l;

	if ((r->valid & m) != m)
		return false;
	a = r->val[RP_REG_RDI];
	l = r->val[RP_REG_RSI];
	if (a > UINT64_MAX - 8192 || l > UINT64_MAX - 8192 - a)
		return false;
	*lo = a & ~4095ull;
	*hi = (a + l + 4095) & ~4095ull;
	return true;
}

/*
 * Beyond keeps_maps(), by the arguments: mmap without MAP_FIXED (0x10;
 * MAP_FIXED_NOREPLACE is another bit) adds a mapping only where none is
 * (as rcv_sys_keeps_maps() takes it for the thread's own calls); with
 * it, mmap, and mprotect (with neither PROT_GROWSDOWN nor PROT_GROWSUP,
 * which carry the change to the whole mapping), munmap and madvise change
 * the pages of [addr, addr + len) alone (MADV_FREE, whose pages the
 * kernel may drop later, ends every rule: rcv_order_aio()); ioctl TCGETS
 * writes a termios with the user's permissions (rcv_sys.c); brk(0) only
 * asks for the break.  Another brk may shrink the heap, unmapping
 * whatever is mapped from the new break to the old one (a MAP_FIXED
 * mapping too: tests/values/review6.c brkfix), and the old break is not
 * in the registers: any page.  Anything else, or arguments not known,
 * may change any page.
 */
int rcv_order_effect(uint64_t nr, const struct rp_regs *r, uint64_t *lo,
		     uint64_t *hi)
{
	uint64_t m;

	if (keeps_maps(nr))
		return 0;
	if (!r)
		return -1;
	switch (nr) {
	case 9:			/* mmap: flags in r10 */
		if (!(r->valid & 1ull << RP_REG_R10))
			return -1;
		if (!(r->val[RP_REG_R10] & 0x10))
			return 0;
		return arg_pages(r, lo, hi) ? 1 : -1;
	case 10:		/* mprotect: prot in rdx */
		if (!(r->valid & 1ull << RP_REG_RDX) ||
		    (r->val[RP_REG_RDX] & 0x03000000))
			return -1;
		return arg_pages(r, lo, hi) ? 1 : -1;
	case 11: case 28:	/* munmap, madvise */
		return arg_pages(r, lo, hi) ? 1 : -1;
	case 12:		/* brk(0) asks; brk(addr) may shrink */
		m = 1ull << RP_REG_RDI;
		return (r->valid & m) && !r->val[RP_REG_RDI] ? 0 : -1;
	case 16:		/* ioctl(fd, TCGETS, termios *) */
		m = 1ull << RP_REG_RSI;
		return (r->valid & m) && r->val[RP_REG_RSI] == 0x5401 ? 0 : -1;
	default:
		return -1;
	}
}

bool rcv_order_ro_in(struct rp_recover *rc, uint64_t lo, uint64_t hi)
{
	struct rp_snap_map_info mi;
	size_t k;

	if (!rc->sn)
		return true;
	for (k = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++)
		if (!(mi.prot & 10) && (mi.prot & 5) && mi.start < hi &&
		    lo < mi.end)
			return true;
	return false;
}

/*
 * The number in eax at system call @p of the task @c walks, when the
 * history shows it: the last instruction before @p that writes rax is a
 * `mov $imm, %eax` (or rax, or `xor %eax, %eax`), or a register move
 * from one whose last writer is (glibc's exit: `mov $0x3c, %edx` ...
 * `mov %edx, %eax`), and each instruction from it to @p went where its
 * code allows (a signal handler run between them would show as a
 * transfer: its registers are not the code's).  Returns -1 when not
 * known.
 */
static int64_t sys_arg(struct rcv_dec *dec, const struct rcv_hist *h,
		       uint64_t p, uint64_t ip_p, int g, bool ind)
{
	uint64_t next = ip_p, k, mask = ~0ull, v;
	struct rp_insn insn;
	struct rcv_ins in;
	unsigned int n;
	int e;

	for (n = 0, k = p; n < ORD_SCAN && k > 0; n++) {
		k--;
		if (h->peek(h->ctx, k, &insn))
			return -1;
		rcv_decode_insn(dec, &insn, &in);
		e = rcv_expected(&in, next, 0);
		if ((in.flags & (RCV_I_BARRIER | RCV_I_SYSCALL)) ||
		    (e != 1 && !(e == 2 && ind)))
			return -1;
		next = insn.ip;
		if (!in.wcode[g])
			continue;
		if (in.nops != 2 || in.op[0].type != RCV_OP_REG ||
		    in.op[0].reg != g || in.op[0].shift ||
		    (in.op[0].size != 4 && in.op[0].size != 8))
			return -1;
		if (in.op[0].size == 4)
			mask = 0xffffffffull;
		if (in.id == X86_INS_XOR && in.op[1].type == RCV_OP_REG &&
		    in.op[1].reg == g && in.op[1].size == in.op[0].size)
			return 0;
		if (in.id != X86_INS_MOV && in.id != X86_INS_MOVABS)
			return -1;
		if (in.op[1].type == RCV_OP_IMM) {
			v = (uint64_t)in.op[1].imm & mask;
			return v >> 32 ? -1 : (int64_t)v;
		}
		if (in.op[1].type != RCV_OP_REG || in.op[1].shift ||
		    in.op[1].size != in.op[0].size)
			return -1;
		g = in.op[1].reg;	/* a copy: on to its source */
	}
	return -1;
}

static int64_t sys_nr(struct rcv_dec *dec, const struct rcv_hist *h,
		      uint64_t p, uint64_t ip_p)
{
	return sys_arg(dec, h, p, ip_p, RP_REG_RAX, false);
}

/* The time of @tid's THREAD_EXIT record (UINT64_MAX: none), and whether
 * a THREAD_START record shows it made in the recording.
 */
static uint64_t exit_time(const struct rp_session *s, uint32_t tid,
			  bool *started)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	*started = false;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_thread_start *r =
			(const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_THREAD_START && r->tid == tid)
			*started = true;
		if (s->recs[i]->type == PTREC_SB_THREAD_EXIT &&
		    ((const struct ptrec_sb_thread_exit *)s->recs[i])->tid ==
		    tid && s->recs[i]->time < t)
			t = s->recs[i]->time;
	}
	return t;
}

/*
 * Does a gap in @tid's history hide instructions it ran?  A loop the
 * trace cannot count (no conditional branch in it: `for (;;);`) hides
 * none that are not the loop's own, and a system call in it would have
 * left packets: no loop.  Any other gap may hide system calls.
 */
static bool hides_syscalls(struct rp_recover *rc, uint32_t tid)
{
	struct rp_gap gap;
	uint64_t i;

	for (i = 0; !rp_thread_gap(rc->s, tid, i, &gap); i++)
		if (gap.reason != RP_GAP_LOOP)
			return true;
	return false;
}

/*
 * System call @p (number @nr, completed before @b) of the task @h reads
 * changes the pages of a range only, by its arguments: added to @calls;
 * false when it may change any page, or @calls is full.
 */
static bool ranged(const struct rcv_ord_args *args,
		   struct rcv_ord_calls *calls, uint64_t p, int64_t nr,
		   uint64_t b)
{
	struct rp_regs r;
	uint64_t lo = 0, hi = 0;
	int e;

	if (!args || !calls || nr < 0)
		return false;
	e = rcv_order_effect((uint64_t)nr,
			     args->regs(args->ctx, p, &r) ? NULL : &r,
			     &lo, &hi);
	/* The write family writes pages only through a memory file
	 * (/proc/PID/mem), which the task's engine rules out or not.
	 */
	if (e < 0 && (nr == 1 || nr == 18 || nr == 20 || nr == 296 ||
		      nr == 328) && args->quiet && args->quiet(args->ctx, p))
		e = 0;
	/* mprotect asking for PROT_WRITE: no page the snapshot shows not
	 * writable, whatever its range (rcv_sys.c rcv_sys_prot_write()).
	 */
	if (e < 0 && nr == 10 && args->bits) {
		struct rcv_val dx = { 0, 0 };

		if (!args->bits(args->ctx, p, RP_REG_RDX, &dx.v, &dx.k) &&
		    rcv_sys_prot_write((uint64_t)nr, &dx))
			e = 0;
	}
	/* An mprotect of a range or a protection not known: it changes
	 * no byte, and no protection of a page the software recorder saw
	 * never change (rcv_prot.c), which rcv_order_maps_at() asks.
	 */
	if (e < 0 && (nr == 10 || nr == 329) && args->by_page) {
		if (calls->n == calls->cap)
			return false;
		calls->v[calls->n++] = (struct rcv_ord_call){
			b, 0, UINT64_MAX, 0, true };
		return true;
	}
	if (getenv("PTREC_RCV_DEBUG"))
		fprintf(stderr, "order: call %" PRId64 " at %" PRIu64
			" (done before %" PRIu64 "): %s [%#" PRIx64 ", %#"
			PRIx64 ")\n", nr, p, b, e < 0 ? "any page" :
			e ? "pages" : "none", lo, hi);
	if (e <= 0)
		return !e;
	if (calls->n == calls->cap)
		return false;
	calls->v[calls->n++] = (struct rcv_ord_call){ b, lo, hi, 0, false };
	return true;
}

void rcv_order_task(struct rcv_dec *dec, const struct rcv_hist *h,
		    bool started, uint64_t t_exit, uint64_t t_first,
		    uint64_t bound[2])
{
	rcv_order_task_args(dec, h, started, t_exit, t_first, NULL, NULL,
			    bound);
}

void rcv_order_task_args(struct rcv_dec *dec, const struct rcv_hist *h,
			 bool started, uint64_t t_exit, uint64_t t_first,
			 const struct rcv_ord_args *args,
			 struct rcv_ord_calls *calls, uint64_t bound[2])
{
	struct rp_insn insn, nx;
	uint64_t p, walked = 0;
	bool set[2] = { false, false };
	size_t n0 = calls ? calls->n : 0, k;
	int g;

	bound[0] = bound[1] = UINT64_MAX;
	nx.tsc = 0;
	for (p = h->n; p-- > 0; nx = insn) {
		int64_t nr;
		bool keeps[2];
		uint64_t b;

		if (h->peek(h->ctx, p, &insn) || !insn.tsc ||
		    ++walked > ORD_WALK)
			goto out;
		if (insn.iclass == RP_IC_FAR) {
			nr = rp_insn_is_syscall(&insn) ?
			     sys_nr(dec, h, p, insn.ip) : -1;
			keeps[0] = nr >= 0 && keeps_maps((uint64_t)nr);
			keeps[1] = nr >= 0 && keeps_fds((uint64_t)nr);
			b = p + 1 < h->n && nx.tsc > insn.tsc ? nx.tsc :
			    UINT64_MAX;
			if (!set[0] && !keeps[0])
				keeps[0] = ranged(args, calls, p, nr,
						  b < t_exit ? b : t_exit);
			for (g = 0; g < 2; g++)
				if (!set[g] && !keeps[g]) {
					set[g] = true;
					bound[g] = b;
				}
			if (set[0] && set[1])
				goto out;
		}
		/* Each system call q before it completed before tsc(q + 1)
		 * <= tsc(p) <= T's first time: none of them matters.
		 */
		if (insn.tsc <= t_first) {
			for (g = 0; g < 2; g++)
				if (!set[g])
					bound[g] = insn.tsc;
			goto out;
		}
	}
	/* Its first instruction: before it, a task made in the recording
	 * ran none; one there when it began, until its first time packet
	 * (read when the tracer issued it).
	 */
	for (g = 0; g < 2; g++)
		if (!set[g])
			bound[g] = started ? 0 : nx.tsc ? nx.tsc : UINT64_MAX;
out:
	for (g = 0; g < 2; g++)
		if (bound[g] > t_exit)
			bound[g] = t_exit;
	/* A ranged call before every call that may change any page: its
	 * bound is below that one's, which holds for every page.
	 */
	for (k = n0; calls && k < calls->n; k++)
		if (calls->v[k].bound <= bound[0])
			calls->v[k--] = calls->v[--calls->n];
}

static int cursor_peek(void *ctx, uint64_t pos, struct rp_insn *insn)
{
	return rp_cursor_peek(ctx, pos, insn);
}

/*
 * The arguments of another task's system calls: its registers from a
 * values engine of its own, made when first asked.  That engine orders
 * other tasks' calls by their numbers alone (rcv_order_task(): any call
 * that may change a mapping ends its read-only rule for every page),
 * so it knows less, and asks no arguments of an engine of its own.
 * (A first lazy binding's arguments pass through the resolver's frame,
 * whose size is read from ld.so's read-only data.)
 */
struct helper {
	struct rp_recover *parent, *rc;
	uint32_t tid;
	bool failed;
};

static int helper_regs(void *ctx, uint64_t pos, struct rp_regs *r)
{
	struct helper *hp = ctx;

	if (!hp->rc && !hp->failed) {
		if (rcv_recover_new_with(hp->parent->s, hp->tid,
					 hp->parent->sn, &hp->rc)) {
			hp->failed = true;
			return -1;
		}
		/* The calls asked about lie near the task's end (the walk
		 * stops at the first whose effect is not known): windows
		 * of 2,048 instructions, not 16,384, cost an eighth.
		 */
		rp_recover_set_block(hp->rc, ORD_BLOCK);
		hp->rc->ord_noargs = true;
		hp->rc->xthr_off = true;
		hp->rc->aio = hp->parent->aio;
	}
	return hp->rc ? rp_recover_regs(hp->rc, pos, r) : -1;
}

static int helper_bits(void *ctx, uint64_t pos, unsigned int reg,
		       uint64_t *v, uint64_t *k)
{
	struct helper *hp = ctx;
	struct rp_regs r;

	if (helper_regs(ctx, pos, &r))
		return -1;
	return rp_recover_reg_bits(hp->rc, pos, reg, v, k);
}

static bool helper_quiet(void *ctx, uint64_t pos)
{
	struct helper *hp = ctx;
	struct rp_access acc[4];
	struct rp_regs r;
	int n, k;

	if (helper_regs(ctx, pos, &r))
		return false;
	n = rp_recover_accesses(hp->rc, pos, acc, 4);
	if (n < 0)
		return false;
	for (k = 0; k < n; k++)
		if (acc[k].kind == RP_ACC_WRITE)
			return false;
	return true;
}

/* Task @tid's bounds (rcv_order_task()) from its history in the session. */
static void task_bounds(struct rp_recover *rc, uint32_t tid,
			uint64_t t_first, struct rcv_ord_calls *calls,
			uint64_t bound[2])
{
	struct helper hp = { rc, NULL, tid, false };
	struct rcv_ord_args args = { helper_regs, &hp, helper_quiet,
				     helper_bits, true };

	if (rc->ord_noargs)
		calls = NULL;
	struct rp_thread_info info;
	struct rp_cursor *c = NULL;
	struct rcv_hist h;
	uint64_t t_exit;
	bool started;

	t_exit = exit_time(rc->s, tid, &started);
	/* A TSC packet holds 56 bits: a record's time past them is not on
	 * the instructions' scale.
	 */
	if (t_exit >> 56)
		t_exit = UINT64_MAX;
	bound[0] = bound[1] = t_exit;
	if (rp_thread_info(rc->s, tid, &info) || hides_syscalls(rc, tid) ||
	    rp_cursor_new(rc->s, tid, &c))
		return;
	h = (struct rcv_hist){ cursor_peek, c, info.insns };
	rcv_order_task_args(rc->dec, &h, started, t_exit, t_first, &args,
			    calls, bound);
	rp_cursor_free(c);
	if (hp.rc)
		rp_recover_free(hp.rc);
}

/* Ranged calls a task's walk keeps for the session, at most. */
#define ORD_KEEP	256

/*
 * Task @tid's bounds as task_bounds() makes them for an asking thread
 * whose first time is @t_first, from the session's entry: the walk to
 * the task's start, made once per session (its values engine is the
 * costly part), whichever thread asks.  Its ranged calls that completed
 * before @t_first change nothing the asker sees; past @calls' room the
 * rest count as calls that may change any page.
 */
static void task_bounds_kept(struct rp_recover *rc, uint32_t tid,
			     uint64_t t_first, struct rcv_ord_calls *calls,
			     uint64_t bound[2])
{
	struct rcv_xtask *t = rcv_xtask_of(rc->s, tid);
	struct rp_thread_info info;
	size_t k;

	/* A walk to the start of a history longer than a walk may go
	 * ends with no bound: there the asker's own early stop counts.
	 */
	if (!t || rp_thread_info(rc->s, tid, &info) || info.insns > ORD_WALK) {
		task_bounds(rc, tid, t_first, calls, bound);
		return;
	}
	if (!t->ord_done) {
		struct rcv_ord_calls all = { NULL, 0, ORD_KEEP };

		all.v = malloc(ORD_KEEP * sizeof(*all.v));
		if (!all.v)
			all.cap = 0;
		task_bounds(rc, tid, 0, &all, t->ord_bound);
		t->ord_calls = all.v;
		t->ord_n = all.n;
		t->ord_done = true;
	}
	bound[0] = t->ord_bound[0];
	bound[1] = t->ord_bound[1];
	for (k = 0; k < t->ord_n; k++) {
		const struct rcv_ord_call *o = &t->ord_calls[k];

		if (o->bound <= t_first)
			continue;
		if (calls && calls->n < calls->cap)
			calls->v[calls->n++] = *o;
		else if (o->bound > bound[0])
			bound[0] = o->bound;
	}
}

uint64_t rcv_order_first_after(const struct rcv_hist *h, uint64_t t)
{
	uint64_t lo = 0, hi = h->n;
	struct rp_insn insn;

	if (t == UINT64_MAX)
		return UINT64_MAX;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (h->peek(h->ctx, mid, &insn))
			return UINT64_MAX;
		if (insn.tsc > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == h->n)
		return UINT64_MAX;
	return h->peek(h->ctx, lo, &insn) || !insn.tsc ? UINT64_MAX : lo;
}

static void order_compute(struct rp_recover *rc)
{
	uint32_t mm[64], files[64];
	uint64_t lim[2] = { 0, 0 }, b[2];
	struct rp_cursor *c = NULL;
	struct rp_insn first;
	struct rcv_hist h;
	size_t nmm, nfiles, i, k;
	int g;

	struct rcv_ord_calls calls = { rc->ord_calls, 0, RCV_ORD_MAX };

	if (rc->ord_done)
		return;
	rc->ord_done = true;
	rc->ord_pos[0] = rc->ord_pos[1] = UINT64_MAX;
	rc->ord_all = UINT64_MAX;
	rc->nord_calls = 0;
	if (!rcv_backend_emu(rc->s))
		return;
	nmm = rcv_share_set(rc->s, rc->pid, CLONE_VM, 0, mm, 64);
	nfiles = rcv_share_set(rc->s, rc->pid, CLONE_FILES, 0, files, 64);
	if (!nmm || !nfiles || rp_cursor_new(rc->s, rc->tid, &c))
		return;
	if (!rc->count || rp_cursor_peek(c, 0, &first) || !first.tsc)
		goto out;
	for (i = 0; i < rp_thread_count(rc->s); i++) {
		uint32_t tid = rp_thread_tid(rc->s, i);
		struct rp_thread_info o;
		bool vm, fd;

		if (tid == rc->tid || rp_thread_info(rc->s, tid, &o))
			continue;
		for (vm = fd = false, k = 0; k < nmm || k < nfiles; k++) {
			vm |= k < nmm && mm[k] == o.pid;
			fd |= k < nfiles && files[k] == o.pid;
		}
		if (!vm && !fd)
			continue;
		if (rc->ord_noargs)
			task_bounds(rc, tid, first.tsc, vm ? &calls : NULL, b);
		else
			task_bounds_kept(rc, tid, first.tsc,
					 vm ? &calls : NULL, b);
		if (getenv("PTREC_RCV_DEBUG"))
			fprintf(stderr, "order: task %u of %u quiet after %"
				PRIu64 " (maps), %" PRIu64 " (fds)\n", tid,
				rc->tid, b[0], b[1]);
		if (vm && b[0] > lim[0])
			lim[0] = b[0];
		if (fd && b[1] > lim[1])
			lim[1] = b[1];
	}
	h = (struct rcv_hist){ cursor_peek, c, rc->count };
	for (g = 0; g < 2; g++)
		rc->ord_pos[g] = lim[g] ? rcv_order_first_after(&h, lim[g]) : 0;
	/* Every page from ord_all; the pages of a ranged call's range
	 * from its own position, if later.
	 */
	rc->ord_all = rc->ord_pos[0];
	rc->nord_calls = calls.n;
	for (k = 0; k < calls.n; k++) {
		struct rcv_ord_call *o = &rc->ord_calls[k];

		o->pos = rcv_order_first_after(&h, o->bound);
		if (o->pos > rc->ord_pos[0])
			rc->ord_pos[0] = o->pos;
	}
	if (getenv("PTREC_RCV_DEBUG"))
		fprintf(stderr, "order: thread %u from %" PRIu64 " (maps; %"
			PRIu64 " for pages no call of %zu by range changes), %"
			PRIu64 " (fds)\n", rc->tid, rc->ord_pos[0],
			rc->ord_all, calls.n, rc->ord_pos[1]);
out:
	rp_cursor_free(c);
}

uint64_t rcv_order_maps(struct rp_recover *rc)
{
	order_compute(rc);
	return rc->ord_pos[0];
}

uint64_t rcv_order_maps_at(struct rp_recover *rc, uint64_t a)
{
	uint64_t lo = 0, hi = UINT64_MAX, pos;
	size_t k;

	order_compute(rc);
	if (rc->ord_at_valid && rc->ord_lo <= a && a < rc->ord_hi)
		return rc->ord_at;
	pos = rc->ord_all;
	/* The range around @a no call's range begins or ends in: one
	 * answer for all of it.
	 */
	for (k = 0; k < rc->nord_calls; k++) {
		const struct rcv_ord_call *o = &rc->ord_calls[k];

		/* An mprotect of any page: this page's answer alone. */
		if (o->prot) {
			uint64_t pg = a & ~4095ull;

			lo = pg > lo ? pg : lo;
			if (pg + 4096 > pg && pg + 4096 < hi)
				hi = pg + 4096;
			if (o->pos > pos && !rcv_prot_seen(rc, a))
				pos = o->pos;
			continue;
		}
		if (a < o->lo) {
			hi = o->lo < hi ? o->lo : hi;
		} else if (a >= o->hi) {
			lo = o->hi > lo ? o->hi : lo;
		} else {
			lo = o->lo > lo ? o->lo : lo;
			hi = o->hi < hi ? o->hi : hi;
			if (o->pos > pos)
				pos = o->pos;
		}
	}
	rc->ord_lo = lo;
	rc->ord_hi = hi;
	rc->ord_at = pos;
	rc->ord_at_valid = true;
	return pos;
}

/*
 * The time after which task @tid maps no file (rcv_sys_maps_file(): mmap
 * without MAP_ANONYMOUS, by its engine's r10, mremap, shmat,
 * remap_file_pages, exec, a number not known), as rcv_order_task_args()
 * bounds its calls: walked back from its end to the first such call, or
 * to @t_first (the asking thread's first time: what completed before it
 * does not matter); UINT64_MAX when not known.
 */
static uint64_t files_bound(struct rp_recover *rc, uint32_t tid,
			    uint64_t t_first)
{
	struct helper hp = { rc, NULL, tid, false };
	struct rp_thread_info info;
	struct rp_cursor *c = NULL;
	struct rp_insn insn, nx;
	struct rcv_hist h;
	uint64_t t_exit, p, b = UINT64_MAX;
	bool started;

	t_exit = exit_time(rc->s, tid, &started);
	if (t_exit >> 56)
		t_exit = UINT64_MAX;
	if (rp_thread_info(rc->s, tid, &info) || info.insns > ORD_WALK ||
	    hides_syscalls(rc, tid) || rp_cursor_new(rc->s, tid, &c))
		return UINT64_MAX;
	h = (struct rcv_hist){ cursor_peek, c, info.insns };
	nx.tsc = 0;
	for (p = h.n; p-- > 0; nx = insn) {
		if (h.peek(h.ctx, p, &insn) || !insn.tsc)
			goto out;
		if (insn.iclass == RP_IC_FAR) {
			int64_t nr = rp_insn_is_syscall(&insn) ?
				     sys_nr(rc->dec, &h, p, insn.ip) : -1;
			struct rcv_val r10 = { 0, 0 };
			uint64_t v, k;

			if (nr == 9 &&
			    !helper_bits(&hp, p, RP_REG_R10, &v, &k)) {
				r10.v = v & k;
				r10.k = k;
			}
			if (nr < 0 || rcv_sys_maps_file((uint64_t)nr, &r10)) {
				b = p + 1 < h.n && nx.tsc > insn.tsc ? nx.tsc :
				    UINT64_MAX;
				goto out;
			}
		}
		if (insn.tsc <= t_first) {
			b = insn.tsc;
			goto out;
		}
	}
	b = started ? 0 : nx.tsc ? nx.tsc : UINT64_MAX;
out:
	if (b > t_exit)
		b = t_exit;
	rp_cursor_free(c);
	if (hp.rc)
		rp_recover_free(hp.rc);
	return b;
}

/*
 * files_bound() of task @tid for an asker whose first time is @t_first,
 * from a walk of the task's whole history made once per session (its
 * values engine, for mmap's flags, is the costly part: each thread asked
 * it again, 0.96 G of threads' 4.87 G callgrind instructions once the
 * read-only rule reached a brk more often, "Protections the recorder
 * saw").  The whole walk's bound is the last file mapping's completion
 * (or 0, the start): below @t_first it orders what the asker's own walk
 * would, every position.
 */
static uint64_t files_kept(struct rp_recover *rc, uint32_t tid,
			   uint64_t t_first)
{
	struct rcv_xtask *t = rcv_xtask_of(rc->s, tid);
	struct rp_thread_info info;

	if (!t || rp_thread_info(rc->s, tid, &info) || info.insns > ORD_WALK)
		return files_bound(rc, tid, t_first);
	if (!t->files_done) {
		uint64_t b = files_bound(rc, tid, 0);

		/* The entry again: the walk's engine may have made others. */
		t = rcv_xtask_of(rc->s, tid);
		if (!t)
			return b;
		t->files_b = b;
		t->files_done = true;
	}
	return t->files_b;
}

uint64_t rcv_order_files(struct rp_recover *rc)
{
	uint32_t mm[64];
	uint64_t lim = 0, b;
	struct rp_cursor *c = NULL;
	struct rp_insn first;
	struct rcv_hist h;
	size_t nmm, i, k;

	if (rc->ord_files_done)
		return rc->ord_files;
	rc->ord_files_done = true;
	rc->ord_files = UINT64_MAX;
	if (!rcv_backend_emu(rc->s) || rc->ord_noargs)
		return rc->ord_files;
	nmm = rcv_share_set(rc->s, rc->pid, CLONE_VM, 0, mm, 64);
	if (!nmm || rp_cursor_new(rc->s, rc->tid, &c))
		return rc->ord_files;
	if (!rc->count || rp_cursor_peek(c, 0, &first) || !first.tsc)
		goto out;
	for (i = 0; i < rp_thread_count(rc->s); i++) {
		uint32_t tid = rp_thread_tid(rc->s, i);
		struct rp_thread_info o;

		if (tid == rc->tid || rp_thread_info(rc->s, tid, &o))
			continue;
		for (k = 0; k < nmm && mm[k] != o.pid; k++)
			;
		if (k == nmm)
			continue;
		b = files_kept(rc, tid, first.tsc);
		if (getenv("PTREC_RCV_DEBUG"))
			fprintf(stderr, "order: task %u of %u maps no file "
				"after %" PRIu64 "\n", tid, rc->tid, b);
		if (b > lim)
			lim = b;
	}
	h = (struct rcv_hist){ cursor_peek, c, rc->count };
	rc->ord_files = lim ? rcv_order_first_after(&h, lim) : 0;
out:
	rp_cursor_free(c);
	return rc->ord_files;
}

uint64_t rcv_order_fds(struct rp_recover *rc)
{
	order_compute(rc);
	return rc->ord_pos[1];
}

/* For rcv_aio.c: the walk's helpers. */
int64_t rcv_order_arg(struct rcv_dec *dec, const struct rcv_hist *h,
		      uint64_t p, uint64_t ip_p, int g, bool ind)
{
	return sys_arg(dec, h, p, ip_p, g, ind);
}

bool rcv_order_hides(struct rp_recover *rc, uint32_t tid)
{
	return hides_syscalls(rc, tid);
}

int rcv_order_peek(void *ctx, uint64_t pos, struct rp_insn *insn)
{
	return cursor_peek(ctx, pos, insn);
}
