// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The target GDB debugs: registers, memory, threads and libraries of the
 * selected thread at its position on libptrec's timeline.  Before the end
 * of a history the registers and data memory are those libptrec's
 * recovery engine finds (docs/values.md), the others are reported
 * unavailable; at the end, the snapshot's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd64.h"
#include "target.h"

int target_open(struct target *tg, const char *dir)
{
	size_t i;
	int ret;

	memset(tg, 0, sizeof(*tg));
	tg->dir = dir;
	tg->stack_pos = UINT64_MAX;
	ret = rp_session_open(&tg->s, dir);
	if (ret) {
		fprintf(stderr, "ptrec-server: %s: %s\n",
			rp_session_errmsg(tg->s), rp_errstr(ret));
		rp_session_close(tg->s);
		tg->s = NULL;
		return -1;
	}
	ret = rp_timeline_new(tg->s, &tg->tl);
	if (ret) {
		fprintf(stderr, "ptrec-server: %s: %s\n", dir,
			ret == -RP_ERR_NOTHREAD ? "no thread has a history" :
			rp_errstr(ret));
		target_close(tg);
		return -1;
	}
	tg->tids = calloc(rp_timeline_count(tg->tl), sizeof(*tg->tids));
	tg->pids = calloc(rp_timeline_count(tg->tl), sizeof(*tg->pids));
	if (!tg->tids || !tg->pids) {
		fprintf(stderr, "ptrec-server: out of memory\n");
		target_close(tg);
		return -1;
	}
	for (i = 0; i < rp_timeline_count(tg->tl); i++) {
		tg->tids[i] = rp_timeline_tid(tg->tl, i);
		tg->pids[i] = rp_timeline_pid(tg->tl, i);
	}
	tg->rcv = calloc(rp_timeline_count(tg->tl), sizeof(*tg->rcv));
	if (!tg->rcv) {
		fprintf(stderr, "ptrec-server: out of memory\n");
		target_close(tg);
		return -1;
	}
	tg->no_values = getenv("PTREC_NO_VALUES") != NULL;
	tg->no_prefetch = getenv("PTREC_NO_PREFETCH") != NULL;
	tg->vals_pos = UINT64_MAX;
	/* The end state: a bundle without one (or a damaged one) still
	 * replays, with what the history holds.
	 */
	ret = rp_snapshot_open(&tg->snap, dir);
	if (ret) {
		if (ret != -RP_ERR_NOTFOUND)
			fprintf(stderr, "ptrec-server: %s; the end of the history has no memory or registers beyond the PC\n",
				rp_snapshot_errmsg(tg->snap));
		rp_snapshot_close(tg->snap);
		tg->snap = NULL;
	}
	return 0;
}

void target_close(struct target *tg)
{
	/* The recovery contexts are the timeline's (shared with its
	 * watchpoints).
	 */
	if (tg->tl)
		target_files_close(tg);
	free(tg->rcv);
	frames_free(tg);
	target_watch_free(tg);
	rp_snapshot_close(tg->snap);
	rp_timeline_free(tg->tl);
	rp_session_close(tg->s);
	free(tg->tids);
	free(tg->pids);
	memset(tg, 0, sizeof(*tg));
}

/*
 * The snapshot's thread @cur, when the thread is at the end of its history
 * (the only place the snapshot is true: before it, memory and registers
 * may have differed).
 */
static bool at_end_snap(struct target *tg, size_t cur,
			struct rp_snap_thread_info *ti)
{
	return tg->snap &&
	       rp_timeline_pos(tg->tl, cur) == rp_timeline_end(tg->tl, cur) &&
	       !rp_snapshot_thread(tg->snap, rp_timeline_tid(tg->tl, cur), ti);
}

static void put_le(struct regval *v, const uint8_t *src, int n)
{
	memcpy(v->bytes, src, (size_t)n);
	v->known = true;
}

/*
 * The upper half of ymm@k from the XSAVE area as PTRACE_GETREGSET gives it
 * (NT_X86_XSTATE, always the standard format; Intel SDM Vol. 1, 13.4):
 * XSTATE_BV, the first word of the header at 512, says whether the AVX
 * component (bit 2) was saved; when clear it is in its initial state
 * (zero).  The component is at offset 576 in the standard format (CPUID
 * leaf 0xD, sub-leaf 2, on every processor with AVX), 16 bytes a register.
 */
static bool snap_ymmh(const struct rp_snap_thread_info *ti, unsigned int k,
		      struct regval *v)
{
	uint64_t xstate_bv;

	if (!ti->xstate || ti->xstate_len < 576 + 16 * 16)
		return false;
	memcpy(&xstate_bv, ti->xstate + 512, 8);
	if (xstate_bv & 4)
		put_le(v, ti->xstate + 576 + 16 * k, 16);
	else
		v->known = true;	/* bytes are zero */
	return true;
}

/*
 * The AVX-512 registers from the XSAVE area in the standard format (Intel
 * SDM Vol. 1, 13.4 and 13.5.7): the opmask component (XSTATE_BV bit 5,
 * k0-k7, 8 bytes each), ZMM_Hi256 (bit 6, bits 511:256 of zmm0-15, 32
 * bytes each) and Hi16_ZMM (bit 7, zmm16-31 whole, 64 bytes each), at the
 * offsets of the processor that saved it (rp_xsave_layout(): 1088, 1152,
 * 1664 on Intel's; 832, 896, 1408 on AMD's Zen 4 and 5, which this
 * server read at Intel's offsets until session 17: k0-k7 and the upper
 * halves were not shown).  A component whose bit is clear is in its
 * initial state: zero.
 */
static bool snap_avx512(const struct rp_snap_thread_info *ti,
			unsigned int regno, struct regval *v)
{
	struct rp_xsave_layout lay;
	unsigned int bit, off, k;
	uint64_t xstate_bv;

	if (!rp_xsave_layout(ti->xstate, ti->xstate_len, &lay) ||
	    !lay.opmask)
		return false;
	if (regno < AMD64_YMM16H) {		/* xmm16..31 */
		k = regno - AMD64_XMM16;
		bit = 7;
		off = lay.hi16_zmm + 64 * k;
	} else if (regno < AMD64_K0) {		/* ymm16h..31h */
		k = regno - AMD64_YMM16H;
		bit = 7;
		off = lay.hi16_zmm + 64 * k + 16;
	} else if (regno < AMD64_ZMM0H) {	/* k0..7 */
		bit = 5;
		off = lay.opmask + 8 * (regno - AMD64_K0);
	} else if (regno < AMD64_ZMM0H + 16) {	/* zmm0h..15h */
		bit = 6;
		off = lay.zmm_hi256 + 32 * (regno - AMD64_ZMM0H);
	} else {				/* zmm16h..31h */
		k = regno - AMD64_ZMM0H - 16;
		bit = 7;
		off = lay.hi16_zmm + 64 * k + 32;
	}
	memcpy(&xstate_bv, ti->xstate + 512, 8);
	if (xstate_bv & (1ull << bit))
		put_le(v, ti->xstate + off, v->size);
	else
		v->known = true;	/* bytes are zero */
	return true;
}

/* XCR0 as the kernel puts it in the software-reserved bytes of the XSAVE
 * area it gives ptrace and core files (their first word, offset 464),
 * where GDB reads it from a core file too.
 */
static uint64_t snap_xcr0(const struct rp_snap_thread_info *ti)
{
	uint64_t xcr0 = 0;

	if (ti->xstate && ti->xstate_len >= 512)
		memcpy(&xcr0, ti->xstate + 464, 8);
	return xcr0;
}

bool target_avx512(struct target *tg)
{
	struct rp_xsave_layout lay;
	struct rp_snap_thread_info ti;
	size_t i;

	for (i = 0; tg->snap && i < rp_timeline_count(tg->tl); i++)
		if (!rp_snapshot_thread(tg->snap, rp_timeline_tid(tg->tl, i),
					&ti) &&
		    (snap_xcr0(&ti) & 0xe0) == 0xe0 &&
		    rp_xsave_layout(ti.xstate, ti.xstate_len, &lay) &&
		    lay.opmask)
			return true;
	return false;
}

/* Register @regno from a snapshot: the general registers, x87/SSE from
 * the FXSAVE area (Intel SDM Vol. 1, 10.5.1), AVX and AVX-512 from the
 * XSAVE area.
 */
static bool snap_reg(const struct rp_snap_thread_info *ti,
		     unsigned int regno, struct regval *v)
{
	static const unsigned char x87_off[8] = { 0, 2, 4, 12, 8, 20, 16, 6 };
	static const unsigned char x87_len[8] = { 2, 2, 1, 2, 4, 2, 4, 2 };
	const uint8_t *fx = ti->fpregs_len >= 512 ? ti->fpregs : NULL;
	int idx = amd64_rp_reg(regno);

	if (idx >= 0) {
		uint64_t val = ti->regs[idx];

		put_le(v, (const uint8_t *)&val, v->size);
		return true;
	}
	if (regno >= AMD64_YMM0H && regno < AMD64_YMM0H + 16)
		return snap_ymmh(ti, regno - AMD64_YMM0H, v);
	if (regno >= AMD64_XMM16 && regno < AMD64_NREGS_AVX512)
		return snap_avx512(ti, regno, v);
	if (!fx)
		return false;
	if (regno >= 24 && regno <= 31) {
		put_le(v, fx + 32 + 16 * (regno - 24), 10);
	} else if (regno >= 32 && regno <= 39) {
		unsigned int k = regno - 32;
		uint32_t val = 0;

		memcpy(&val, fx + x87_off[k], x87_len[k]);
		if (k == 2) {
			/* Abridged tag (one bit per register) to the full
			 * tag word: empty (3) or valid (0).
			 */
			uint32_t full = 0;
			int r;

			for (r = 0; r < 8; r++)
				if (!(val & (1u << r)))
					full |= 3u << (2 * r);
			val = full;
		} else if (k == 7) {
			val &= 0x7ff;
		}
		put_le(v, (const uint8_t *)&val, 4);
	} else if (regno >= 40 && regno <= 55) {
		put_le(v, fx + 160 + 16 * (regno - 40), 16);
	} else if (regno == 56) {
		put_le(v, fx + 24, 4);
	} else {
		return false;
	}
	return true;
}

/* ---- values in the past (#17) ---------------------------------------- */

struct rp_recover *target_recovery(struct target *tg, size_t cur)
{
	if (tg->no_values)
		return NULL;
	if (!tg->rcv[cur])
		tg->rcv[cur] = rp_timeline_recover(tg->tl, cur);
	return tg->rcv[cur];
}

/*
 * Strict values on or off (docs/values.md, "A callee's own stack"): every
 * recovery context, the registers and frames computed from them, made
 * again on use.
 */
void target_values_strict(struct target *tg, bool on)
{
	size_t i;

	if (rp_session_values_strict(tg->s) == on)
		return;		/* (the plugin says so at every stop) */
	rp_timeline_values_strict(tg->tl, on);
	for (i = 0; i < rp_timeline_count(tg->tl); i++)
		tg->rcv[i] = NULL;
	tg->vals_pos = UINT64_MAX;
	tg->stack_pos = UINT64_MAX;
	tg->fregs_done = false;
	frames_free(tg);
}

bool target_prefetch(struct target *tg)
{
	size_t cur = rp_timeline_selected(tg->tl);
	struct rp_recover *rc;

	if (tg->no_values || tg->no_prefetch)
		return false;
	rc = target_recovery(tg, cur);
	if (!rc)
		return false;
	rp_recover_stop(rc, rp_timeline_pos(tg->tl, cur));
	return rp_recover_prefetch(rc) == 1;
}

/* Register @idx (enum rp_reg) of thread @cur before the end, recovered
 * from the history and the snapshot.  False when not known.
 */
static bool past_reg(struct target *tg, size_t cur, int idx, uint64_t *val)
{
	uint32_t tid = rp_timeline_tid(tg->tl, cur);
	uint64_t pos = rp_timeline_pos(tg->tl, cur);
	struct rp_recover *rc;

	if (idx < 0 || pos >= rp_timeline_end(tg->tl, cur))
		return false;
	if (tid != tg->vals_tid || pos != tg->vals_pos) {
		rc = target_recovery(tg, cur);
		memset(&tg->vals, 0, sizeof(tg->vals));
		if (rc && rp_recover_regs(rc, pos, &tg->vals))
			memset(&tg->vals, 0, sizeof(tg->vals));
		tg->vals_tid = tid;
		tg->vals_pos = pos;
	}
	if (!(tg->vals.valid >> idx & 1))
		return false;
	*val = tg->vals.val[idx];
	return true;
}

static bool in_restorer(struct rp_session *s, struct rp_cursor *c,
			uint64_t pos, uint64_t *sigret);

/* Whether the selected thread is inside a signal restorer. */
static bool restorer_pos(struct target *tg, size_t cur)
{
	uint64_t pos = rp_timeline_pos(tg->tl, cur), sigret;

	return pos < rp_timeline_end(tg->tl, cur) &&
	       in_restorer(tg->s, rp_timeline_cursor(tg->tl, cur), pos,
			   &sigret);
}

int target_reg(struct target *tg, unsigned int regno, struct regval *v)
{
	size_t cur = rp_timeline_selected(tg->tl);
	int idx = amd64_rp_reg(regno), i;
	struct rp_snap_thread_info ti;
	uint64_t val = 0;

	memset(v, 0, sizeof(*v));
	v->size = amd64_reg_size(regno);
	if (!v->size)
		return -1;
	/*
	 * The PC stays the timeline's, so GDB and the CLI agree on where a
	 * history ends (a thread that ended in exit(2) has its history end
	 * at the SYSCALL; the snapshot was taken after it entered).
	 */
	if (regno != AMD64_PC && at_end_snap(tg, cur, &ti) &&
	    snap_reg(&ti, regno, v))
		return 0;
	v->known = idx >= 0 &&
		   (!rp_timeline_reg(tg->tl, cur, (unsigned int)idx, &val) ||
		    past_reg(tg, cur, idx, &val));
	/*
	 * Inside a signal restorer GDB's sigtramp unwinder takes frame 0 and
	 * reads the kernel's ucontext at the stack pointer, which the history
	 * does not hold: the stack pointer is not given there, so GDB sees
	 * the signal frame's registers as unavailable, not wrong.
	 */
	if (v->known && idx == RP_REG_RSP && restorer_pos(tg, cur))
		v->known = false;
	for (i = 0; i < v->size && i < 8; i++)
		v->bytes[i] = (uint8_t)(val >> (8 * i));
	return 0;
}

/* ---- the call stack, for the plugin's unwinder ------------------------ */

/* The address a signal handler entered at @entry returns to (its
 * restorer), or 0 when its return is not in the history.
 */
static uint64_t sig_restorer(struct rp_cursor *c, uint64_t entry)
{
	uint64_t after = rp_cursor_frame_exit(c, entry);
	struct rp_insn insn;

	if (after == UINT64_MAX || rp_cursor_peek(c, after, &insn))
		return 0;
	return insn.ip;
}

/* How many instructions a signal restorer runs at most (glibc's
 * __restore_rt: mov $15,%rax; syscall).
 */
#define RESTORER_INSNS 3

/*
 * Whether @pos is inside a signal restorer: after a handler's return,
 * at or before the rt_sigreturn that resumes elsewhere, at most
 * RESTORER_INSNS instructions of straight-line code from the return's
 * target to the system call.  A system call after which a handler runs
 * also resumes elsewhere, but at a function's entry, never where an
 * interrupted frame resumes.  Sets *@sigret to the rt_sigreturn's
 * position.
 */
static bool in_restorer(struct rp_session *s, struct rp_cursor *c,
			uint64_t pos, uint64_t *sigret)
{
	struct rp_insn insn, next;
	struct rp_sym sym;
	uint64_t k, ret;

	for (k = 1; k <= RESTORER_INSNS && k <= pos; k++) {
		if (rp_cursor_peek(c, pos - k, &insn))
			return false;
		if (insn.iclass == RP_IC_RETURN)
			break;
		if (insn.iclass != RP_IC_OTHER)
			return false;
	}
	if (k > RESTORER_INSNS || k > pos)
		return false;
	ret = pos - k;
	for (k = pos; k <= ret + RESTORER_INSNS; k++) {
		if (rp_cursor_peek(c, k, &insn))
			return false;
		if (insn.iclass == RP_IC_FAR)
			break;
		if (insn.iclass != RP_IC_OTHER)
			return false;
	}
	if (k > ret + RESTORER_INSNS || rp_cursor_peek(c, k + 1, &next) ||
	    next.ip == insn.ip + insn.size ||
	    (!rp_symbolize(s, &next, &sym) && sym.function && !sym.offset))
		return false;
	*sigret = k;
	return true;
}

/*
 * Frames from the calls @calls[0..@found) on into @w (3 words each, from
 * frame *@n on): each call's frame, and after a signal handler's frame
 * (one opened by no call) the signal frame.
 */
static void put_frames(struct rp_cursor *c, uint64_t end,
		       const uint64_t *calls, int found, uint64_t *w,
		       size_t *n, size_t max)
{
	struct rp_insn insn;
	int i;

	for (i = 0; i < found && *n + 1 < max; i++) {
		uint64_t resume, restorer;

		if (rp_cursor_peek(c, calls[i], &insn))
			break;
		resume = insn.ip + insn.size;
		w[3 + 3 * *n] = calls[i] + 1;
		w[4 + 3 * *n] = 0;
		w[5 + 3 * *n] = resume;
		if (calls[i] + 1 < end &&
		    !rp_cursor_peek(c, calls[i] + 1, &insn))
			w[4 + 3 * *n] = insn.ip;
		(*n)++;
		/*
		 * A frame opened by no call: a signal handler, entered after
		 * the interrupted instruction calls[i].  Its caller is the
		 * signal frame GDB shows as <signal handler called>, at the
		 * restorer the handler returns to (found where it does),
		 * whose caller resumes at the interrupted instruction's next.
		 */
		if (rp_cursor_peek(c, calls[i], &insn) ||
		    insn.iclass == RP_IC_CALL)
			continue;
		restorer = sig_restorer(c, calls[i] + 1);
		if (!restorer)
			continue;
		w[5 + 3 * (*n - 1)] = restorer;
		w[3 + 3 * *n] = (calls[i] + 1) | SIGTRAMP_BIT;
		w[4 + 3 * *n] = restorer;
		w[5 + 3 * *n] = resume;
		(*n)++;
	}
}

/* How many frames older than the history's first are looked for, and how
 * many returns below a scan's depth are tried for them.
 */
#define PREHISTORY_MAX 64
#define PREHISTORY_SCANS 1024

/*
 * The outermost frames at @pos: the frame no recorded call opened, and the
 * frames it was called from before the history started (a -p recording
 * starts deep in a process).  Each of those returns, if it does, within
 * the history: the return that leaves the history's first frame lands in
 * its caller, the one that leaves that frame in the next, and so on.  The
 * k-th of them (k >= 1, counted from the history's first frame) is live
 * at @pos until its own return; it is named PREHIST_BIT | k, at the
 * address its callee returned to, and its caller resumes where it returns
 * (0, GDB's mark of the outermost frame, once none is recorded).
 */
static void put_outer_frames(struct target *tg, size_t cur, uint64_t pos,
			     uint64_t *w, size_t *n, size_t max)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t land[PREHISTORY_MAX], ip[PREHISTORY_MAX], at = 0;
	uint64_t open[PREHISTORY_MAX];
	size_t m = 0, d = 0, k;
	struct rp_insn insn;

	for (k = 0; m < PREHISTORY_MAX && k < PREHISTORY_SCANS; k++) {
		at = rp_cursor_frame_exit(c, at);
		if (at == UINT64_MAX || rp_cursor_peek(c, at, &insn))
			break;
		/*
		 * Only a return made where no recorded call is open leaves
		 * the bottom frame: a signal handler's return, counted with
		 * no call, ends a call depth scan early too.
		 */
		if (rp_cursor_frames(c, at - 1, open, PREHISTORY_MAX))
			continue;
		land[m] = at;
		ip[m++] = insn.ip;
	}
	while (d < m && land[d] <= pos)
		d++;
	for (k = d; k <= m && *n < max; k++) {
		w[3 + 3 * *n] = k ? PREHIST_BIT | k : 0;
		w[4 + 3 * *n] = k ? ip[k - 1] :
			rp_timeline_first_ip(tg->tl, cur);
		w[5 + 3 * *n] = k < m ? ip[k] : 0;
		(*n)++;
	}
}

/*
 * GDB crashes when a Python unwinder sends packets, but may read memory.
 * So the call stack of the selected thread at its position is served as
 * memory at STACK_ADDR (kernel space, never user): 64-bit words
 * "PTRECSTK" ("PTRECSTR" at the end of a history whose real registers
 * the snapshot holds: the plugin's unwinder then leaves unwinding to GDB's
 * own DWARF CFI), the frame count, the position, then per frame (frame 0
 * innermost) the position and address of its first instruction and the
 * address its caller resumes at (0 for the outermost frame).  A signal
 * frame (<signal handler called>, after a handler's frame, or frame 0
 * inside the restorer) has SIGTRAMP_BIT on a position, the restorer's
 * address and the interrupted frame's resume address (target.h).  The
 * frames the history started in follow the one no recorded call opened,
 * as PREHIST_BIT | k (put_outer_frames()).
 */
size_t target_call_stack(struct target *tg, size_t cur, uint64_t pos,
			 uint64_t *w, size_t maxw)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t end = rp_timeline_end(tg->tl, cur), sigret;
	static uint64_t calls[STACK_MAX_FRAMES];
	struct rp_snap_thread_info ti;
	struct rp_insn insn;
	size_t n = 0, max = (maxw - 3) / 3 - 1;
	int found;

	memcpy(&w[0], pos == end && tg->snap &&
	       !rp_snapshot_thread(tg->snap, rp_timeline_tid(tg->tl, cur),
				   &ti) ? "PTRECSTR" : "PTRECSTK", 8);
	w[2] = pos;
	if (max > STACK_MAX_FRAMES - 1)
		max = STACK_MAX_FRAMES - 1;
	/*
	 * Inside a signal restorer (__restore_rt) frame 0 is the signal
	 * frame, and its callers are the interrupted instruction's: GDB's
	 * sigtramp unwinder takes it, so stepping goes through it as
	 * through any signal trampoline.
	 */
	if (pos < end && in_restorer(tg->s, c, pos, &sigret) &&
	    !rp_cursor_peek(c, sigret + 1, &insn)) {
		w[3] = pos | SIGTRAMP_BIT;
		w[5] = insn.ip;
		w[4] = rp_cursor_peek(c, pos, &insn) ? 0 : insn.ip;
		n = 1;
		pos = sigret + 1;
	}
	/*
	 * Each call not matched by a later return opened one of the frames
	 * we are in; the engine finds them with its index's call depths, so
	 * the cost does not grow with the position.
	 */
	found = rp_cursor_frames(c, pos, calls, max - n);
	put_frames(c, end, calls, found, w, &n, max);
	put_outer_frames(tg, cur, pos, w, &n, max);
	w[1] = n;
	return 3 + 3 * n;
}

/*
 * The ucontext of the signal frame k of the published stack, for GDB's
 * sigtramp unwinder (SIGCTX_ADDR in target.h): the interrupted frame's
 * PC, and as its stack pointer a synthetic address between the handler's
 * frame base and the interrupted frame's (GDB's frame id of the signal
 * frame).  The interrupted frame's other registers are not known there:
 * only the 64 bytes from rsp on are served (the rest of that line, flags
 * and the fault fields, reads as 0), anything else is unreadable.
 */
static size_t sig_context(struct target *tg, uint64_t off, uint8_t *buf,
			  size_t len)
{
	uint64_t k = off / SIGCTX_SIZE, v;
	uint64_t lo = SIGCTX_AT + SIGCTX_RSP, in = off % SIGCTX_SIZE;
	uint8_t line[64];
	const uint64_t *w = tg->stack;

	if (k >= w[1] || !(w[3 + 3 * k] & SIGTRAMP_BIT) || in < lo ||
	    in >= lo + sizeof(line))
		return 0;
	memset(line, 0, sizeof(line));
	v = FRAME_BASE - 16 * (w[3 + 3 * k] & ~SIGTRAMP_BIT) + 8;
	memcpy(line, &v, 8);
	v = w[5 + 3 * k];
	memcpy(line + SIGCTX_RIP - SIGCTX_RSP, &v, 8);
	if (len > lo + sizeof(line) - in)
		len = (size_t)(lo + sizeof(line) - in);
	memcpy(buf, line + (in - lo), len);
	return len;
}

size_t target_read(struct target *tg, uint64_t addr, uint8_t *buf,
		   size_t len)
{
	size_t cur = rp_timeline_selected(tg->tl), done = 0;
	uint32_t tid = rp_timeline_tid(tg->tl, cur);
	uint64_t pos = rp_timeline_pos(tg->tl, cur);
	struct rp_watch_hit wh;
	long got;
	int n;

	if ((addr >= STACK_ADDR && addr - STACK_ADDR < 65536) ||
	    (addr >= SIGCTX_ADDR &&
	     addr - SIGCTX_ADDR < SIGCTX_SIZE * STACK_MAX_FRAMES) ||
	    (addr >= FREGS_ADDR &&
	     addr - FREGS_ADDR < 8ull * FREGS_WORDS * STACK_MAX_FRAMES)) {
		uint64_t off = addr - STACK_ADDR, bytes;

		/* Computed once per position: GDB reads it several times
		 * at every stop.
		 */
		if (tid != tg->stack_tid || pos != tg->stack_pos) {
			tg->stack_words = target_call_stack(tg, cur, pos,
							    tg->stack,
							    sizeof(tg->stack) /
							    sizeof(tg->stack[0]));
			tg->stack_tid = tid;
			tg->stack_pos = pos;
			tg->fregs_done = false;
		}
		if (addr >= FREGS_ADDR)
			return frames_read(tg, cur, addr - FREGS_ADDR, buf,
					   len);
		if (addr >= SIGCTX_ADDR)
			return sig_context(tg, addr - SIGCTX_ADDR, buf, len);
		bytes = 8 * tg->stack_words;
		if (off >= bytes)
			return 0;
		if (len > bytes - off)
			len = (size_t)(bytes - off);
		memcpy(buf, (const uint8_t *)tg->stack + off, len);
		return len;
	}
	/* At a stop shown here, another process's access (shared memory):
	 * the watched bytes as they were just before or after it.
	 */
	got = target_watch_read(tg, cur, addr, buf, &len);
	if (got >= 0)
		return (size_t)got;
	if (!rp_timeline_watch_hit(tg->tl, &wh) && wh.tid == tid && wh.exit &&
	    (pos == wh.pos || pos == wh.pos + 1)) {
		/* At a thread's exit: the word it wrote, before or after
		 * (the end snapshot was taken later).
		 */
		done = target_exit_bytes(&wh, pos == wh.pos + 1, addr, buf,
					 len);
		if (done)
			return done;
	}
	if (tg->snap &&
	    rp_timeline_pos(tg->tl, cur) == rp_timeline_end(tg->tl, cur)) {
		/* At the end: the process's memory, as a core file holds it. */
		done = rp_snapshot_read(tg->snap, rp_timeline_pid(tg->tl, cur),
					addr, buf, len, true);
		if (done)
			return done;
	}
	if (rp_timeline_pos(tg->tl, cur) < rp_timeline_end(tg->tl, cur) &&
	    target_recovery(tg, cur)) {
		struct rp_watch_hit h;

		/* Just after a watched store: what it wrote, even where
		 * other threads share the memory (#18).
		 */
		if (!rp_timeline_watch_hit(tg->tl, &h) && h.tid == tid &&
		    h.pos + 1 == pos) {
			done = target_after_store(tg->rcv[cur], &h, addr, buf,
						  len);
			if (done)
				return done;
		}
		/* Before the end: the bytes the history and the snapshot
		 * imply, up to the first unknown one.
		 */
		done = rp_recover_mem(tg->rcv[cur], pos, addr, buf, len);
		if (done)
			return done;
	}
	while (done < len) {
		n = rp_timeline_read_code(tg->tl, cur, addr + done, buf + done,
					  len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done;
}

/* ---- qXfer objects ---------------------------------------------------- */

void target_threads_xml(struct target *tg, const struct conn *c,
			struct text *out)
{
	char id[32];
	size_t i;

	text_add(out, "<threads>\n");
	for (i = 0; i < rp_timeline_count(tg->tl); i++) {
		conn_thread_id(c, tg->pids[i], tg->tids[i], id, sizeof(id));
		text_add(out, "<thread id=\"%s\" core=\"0\"/>\n", id);
	}
	text_add(out, "</threads>\n");
}

struct libxml {
	struct text *out;
	int lm;
};

static void add_library(void *ctx, const char *path, uint64_t bias,
			uint64_t dynamic, bool main)
{
	struct libxml *x = ctx;

	/* GDB relocates the main program from the auxiliary vector. */
	if (main)
		return;
	text_add(x->out, "<library name=\"");
	text_add_xml(x->out, path);
	text_add(x->out, "\" lm=\"0x%x\" lmid=\"0x0\" l_addr=\"0x%" PRIx64
		 "\" l_ld=\"0x%" PRIx64 "\"/>\n", ++x->lm, bias, dynamic);
}

/* Shared libraries at their recorded addresses as of the selected
 * thread's position, as the dynamic linker's list would show them (GDB
 * manual, "Library List Format for SVR4").
 */
void target_libraries_xml(struct target *tg, struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl);
	struct libxml x = { out, 0 };

	text_add(out, "<library-list-svr4 version=\"1.0\">\n");
	rp_libraries(tg->s, rp_timeline_tid(tg->tl, cur),
		     rp_timeline_pos(tg->tl, cur), add_library, &x);
	text_add(out, "</library-list-svr4>\n");
}

struct interp_base {
	const char *name;	/* basename of the program's PT_INTERP */
	uint64_t bias;
	bool found;
};

static void find_interp(void *ctx, const char *path, uint64_t bias,
			uint64_t dynamic, bool main)
{
	struct interp_base *ib = ctx;
	const char *slash = strrchr(path, '/');

	(void)dynamic;
	if (!main && !ib->found &&
	    !strcmp(slash ? slash + 1 : path, ib->name)) {
		ib->bias = bias;
		ib->found = true;
	}
}

/*
 * An auxiliary vector with the entry point, so GDB relocates a PIE, and
 * the dynamic linker's base (AT_BASE).  Without AT_BASE, and when the
 * library list names the linker by another path than the program's
 * PT_INTERP (/lib64 is a link), GDB guesses the linker's base from the
 * current PC: it then takes the program's own code for the linker's and
 * treats it as resolver code, which made reverse-finish run past callers.
 */
void target_auxv(struct target *tg, struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl);
	uint32_t pid = rp_timeline_pid(tg->tl, cur);
	uint64_t v[10] = { 0 }, entry, phdr, phnum;
	char interp[4096];
	size_t n = 6;

	if (rp_process_entry_at(tg->s, rp_timeline_tid(tg->tl, cur),
				rp_timeline_pos(tg->tl, cur), &entry, &phdr,
				&phnum)) {
		n = 0;		/* AT_NULL only */
	} else {
		v[0] = 3;	/* AT_PHDR */
		v[1] = phdr;
		v[2] = 5;	/* AT_PHNUM */
		v[3] = phnum;
		v[4] = 9;	/* AT_ENTRY */
		v[5] = entry;
	}
	if (n && !rp_process_interp(tg->s, pid, interp, sizeof(interp))) {
		const char *slash = strrchr(interp, '/');
		struct interp_base ib = { slash ? slash + 1 : interp, 0,
					  false };

		rp_libraries(tg->s, rp_timeline_tid(tg->tl, cur),
			     rp_timeline_pos(tg->tl, cur), find_interp, &ib);
		if (ib.found) {
			v[n++] = 7;	/* AT_BASE */
			v[n++] = ib.bias;
		}
	}
	text_add_bytes(out, v, (n + 2) * sizeof(v[0]));
}

int target_exec_file(struct target *tg, uint32_t pid, struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl);
	char exe[4096] = "";

	/* The selected thread's process: its program at the thread's
	 * position (before an execve, the old one); another process: its
	 * last program.
	 */
	if (!pid || pid == rp_timeline_pid(tg->tl, cur))
		rp_process_exe_at(tg->s, rp_timeline_tid(tg->tl, cur),
				  rp_timeline_pos(tg->tl, cur), exe,
				  sizeof(exe));
	else
		rp_process_exe(tg->s, pid, exe, sizeof(exe));
	text_add(out, "%s", exe);
	return 0;
}

int target_siginfo(struct target *tg, struct text *out)
{
	size_t cur = rp_timeline_selected(tg->tl);
	struct rp_signal sig;
	uint8_t si[128] = { 0 };
	int32_t errno_ = 0;

	if (rp_timeline_signal(tg->tl, cur, &sig))
		return -1;
	/* x86-64 siginfo_t: si_signo, si_errno, si_code, then the union
	 * (si_addr for SIGSEGV, SIGBUS, SIGILL, SIGFPE) at 16.
	 */
	memcpy(si, &sig.signo, 4);
	memcpy(si + 4, &errno_, 4);
	memcpy(si + 8, &sig.code, 4);
	memcpy(si + 16, &sig.addr, 8);
	text_add_bytes(out, si, sizeof(si));
	return out->oom ? -1 : 0;
}

int target_signo(struct target *tg)
{
	struct rp_signal sig;

	if (rp_timeline_signal(tg->tl, rp_timeline_selected(tg->tl), &sig) ||
	    sig.signo <= 0 || sig.signo > 64)
		return 5;
	return sig.signo;
}
