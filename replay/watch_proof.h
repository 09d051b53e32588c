/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to watch.c, watch_proof.c and watch_chain.c: proving, without
 * the recovery engine, that no access of a window of a thread's history
 * touches the watched bytes (issue #18, docs/gdb.md "Watchpoints").
 */
#ifndef PTREC_WATCH_PROOF_H
#define PTREC_WATCH_PROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcv_internal.h"

/* A register's (or a stack word's) value: in [lo, hi] when @known. */
struct wpf_reg {
	bool known;
	uint64_t lo, hi;
};

/* A word of the stack at an edge of a window: @off bytes from the stack
 * pointer there, of value @val.
 */
struct wpf_word {
	int64_t off;
	struct wpf_reg val;
};

/*
 * One memory access of a window (struct rp_access's kind): the bytes it
 * may touch lie in [lo, hi) when @known, anywhere when not.
 */
struct wpf_acc {
	uint32_t i;		/* instruction in the window */
	uint8_t kind;		/* RP_ACC_READ or RP_ACC_WRITE */
	bool known;
	bool fixed;		/* known from the instruction alone (rip-
				 * relative, absolute): the engine's too */
	uint64_t lo, hi;
	/*
	 * Not known, and the recovery engine cannot know it in a window
	 * computed on its own: relative to a register at the start of a
	 * stretch whose instructions are all quiet (watch_proof.c: none
	 * shows in the trace anything that depends on a value), so nothing
	 * in the window tells that register's value (watch_chain.c's far
	 * windows with watch-unknown skip).
	 */
	bool secret;
	/*
	 * Not known, nor secret: in a far window followed whole, secret
	 * unless the engine knows it, and then in [lo, hi) (watch_fix.c's
	 * bounded loads: a word that can only hold constants to the
	 * engine).  Skip (watch_chain.c) treats it as known there; any
	 * other use as not known.
	 */
	bool bound;
};

/* What is known at one edge of a window. */
struct wpf_edge {
	struct wpf_reg r[16];	/* enum rp_reg order */
	struct wpf_word *w;	/* by offset; words above the stack pointer */
	size_t nw;
};

struct wpf_out {
	struct wpf_acc *acc;	/* in instruction order */
	size_t nacc;
	bool contradiction;	/* the edges disagree with the instructions:
				 * nothing is proven */
};
void wpf_out_free(struct wpf_out *out);

/*
 * What the decoder's operands do not show, for wpf_win_run(): a push, pop,
 * call or return with an operand-size prefix moves the stack pointer by 2
 * (capstone 4 says 8 for push imm16): not followed (as an instruction
 * capstone cannot read: RCV_I_BAD, BARRIER, MEMBAR).
 */
void wpf_fix(struct rcv_ins *in, const uint8_t *raw, size_t size);

/* One window followed from unknown bases. */
struct wpf_win;

/*
 * Follows instructions *@ins[0..@n) from unknown bases, which @top (what
 * is known after the last instruction) fixes as far as it can; keeps the
 * state before instruction @mid for wpf_win_edge().  @cut[i]
 * nonzero: nothing is known after instruction @i (1: a signal or a gap
 * may lie there; 2: a barrier to the engine, the flow straight on: the
 * engine starts again after it).  @deps: also which bases the trace informs
 * (watch_dep.c), for the accesses' secret (else none is).  Returns 0 or
 * -RP_ERR_NOMEM.
 */
int wpf_win_run(const struct rcv_ins *const *ins, const uint8_t *cut,
		size_t n, size_t mid, const struct wpf_edge *top, bool deps,
		struct wpf_win **wp);
void wpf_win_free(struct wpf_win *w);
/* What is known before instruction @mid of wpf_win_run(): registers and
 * the words pushes or stores left there.
 */
int wpf_win_edge(const struct wpf_win *w, struct wpf_edge *e);
/* Its accesses from instruction @from on, as far as fixed (free with
 * wpf_out_free()); secret by what the engine may learn (watch_know.c),
 * or with wpf_win_acc_any() by what any shown value depends on (cheaper,
 * fewer secrets: enough for write watchpoints).
 */
int wpf_win_acc(const struct wpf_win *w, size_t from, struct wpf_out *out);
int wpf_win_acc_any(const struct wpf_win *w, size_t from,
		    struct wpf_out *out);

/* Grows *@v (of *@cap elements of @size bytes, @first at first) to hold
 * more than @n; false when out of memory.
 */
bool wpf_grow(void **v, size_t *cap, size_t n, size_t size, size_t first);

struct rp_recover;

/* The proofs kept for one thread's recovery context (watch_chain.c). */
struct wpf_cache;
void wpf_cache_free(struct wpf_cache *c);

/*
 * Is it proven that no access of kinds @kinds (RP_ACC_* bits) by the
 * instructions at positions [@a, @b) may touch a watched byte, which
 * @may_hit(@arg, kind, lo, hi) says of bytes [lo, hi)?  [@a, @b) lies in
 * one window of the engine's grid (rc->block).  Proofs start at the end
 * and go back window after window: within the engine's chain (RCV_CHAIN
 * windows) every window is proven as far as it can be, whatever was
 * asked before; further back only with @far, and only as far as earlier
 * questions took the proofs.  1: proven; 0: not (ask the engine); or a
 * negative error.
 */
int wpf_prove(struct rp_recover *rc, uint64_t a, uint64_t b,
	      unsigned int kinds, bool far,
	      bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
			      uint64_t hi),
	      void *arg);

/*
 * rp_recover_scan() (rcv_access.c) window by window of the engine's grid,
 * passing each part of a window that wpf_prove() (with @far) shows
 * @may_hit never holds for, and going on past a stop at @pos where
 * @refute(@arg, pos) says so (a store the engine does not know that a
 * proof shows to miss).
 */
struct rp_access;
int wpf_scan(struct rp_recover *rc, uint64_t *pos, int dir, uint64_t lo,
	     uint64_t hi, unsigned int kinds, bool far,
	     int (*fn)(void *arg, const struct rp_access *acc, int n),
	     bool (*may_hit)(void *arg, unsigned int kind, uint64_t lo,
			     uint64_t hi),
	     bool (*refute)(void *arg, uint64_t pos), void *arg);

/*
 * A stretch of a thread's history as the proofs follow it (watch_ins.c):
 * the decoded instructions ins_first.. (ins_n of them) in @ins, and in
 * @cut[i] whether a signal or a gap may lie after instruction i (1), or
 * it is a barrier to the engine that went straight on (2).  Kept
 * per scan context: decoded instructions by address, the cursor.
 */
struct icache;
struct run;
struct insn_decoder;
struct dis;
struct wpf_ins {
	struct rcv_dec *dec;
	struct rp_cursor *cur;
	struct icache **pool;	/* chunks */
	size_t npool, pool_cap;	/* entries, chunk pointers */
	uint32_t *ic;		/* by address: pool entry + 1 (0: empty) */
	size_t ic_cap, ic_n;
	struct run *runs;	/* open hash by (ip, isid) */
	size_t run_cap, run_n;
	struct insn_decoder *idec;	/* lengths and classes (ptkit) */
	struct dis *dis;	/* lengths capstone does not know */
	const struct rcv_ins **ins;	/* ins_first.. (ins_n of them) */
	uint8_t *cut;
	uint64_t *calls;
	size_t ins_cap, ins_n;
	uint64_t ins_first;
};
int wpf_ins_init(struct wpf_ins *c, struct rp_recover *rc);
void wpf_ins_fini(struct wpf_ins *c);
/* Positions [@first, @last) of @rc's thread into @c (the last load's
 * instructions reused where the windows overlap).  0 or a negated enum
 * rp_error.
 */
int wpf_ins_load(struct rp_recover *rc, struct wpf_ins *c, uint64_t first,
		 uint64_t last);

/*
 * For tests: the instructions at positions [@first, @last) as a scan reads
 * them from libipt's blocks (rp_cursor_blocks(), decoded once per address)
 * against the cursor's, one by one (address, length, class, bytes).
 * Returns how many differ (0 also when the blocks cannot say: the scan
 * uses the cursor then) or a negative error; *@served: positions the
 * blocks gave.
 */
int wpf_blocks_check(struct rp_recover *rc, uint64_t first, uint64_t last,
		     uint64_t *served);

/*
 * For tests: 1 when the scan with watch-unknown skip takes every access
 * of kinds @kinds of the instruction at @pos as secret (a quiet window
 * beyond the ramp: the engine cannot know its address), else 0 (or a
 * negative error).
 */
int wpf_quiet_secret(struct rp_recover *rc, uint64_t pos, unsigned int kinds);

/*
 * For tests: 1 when a load of the instruction at @pos is bounded in the
 * scan with watch-unknown skip (struct wpf_acc's @bound: secret unless
 * the engine knows it, then in [*@lo, *@hi)), else 0 (or a negative
 * error).
 */
int wpf_quiet_bound(struct rp_recover *rc, uint64_t pos, uint64_t *lo,
		    uint64_t *hi);

/*
 * The nearest gap of @rc's thread in [@lo, @hi) in direction @dir, as the
 * position of the instruction before it, in *@gp; its lost trace bytes
 * (0 unknown) in *@bytes.  *@exit: not a gap but the system call the
 * thread ended in before the end snapshot (exit(2): the kernel's writes
 * after its last instruction).  Returns true when there is one.
 */
bool wpf_gap_near(struct rp_recover *rc, int dir, uint64_t lo, uint64_t hi,
		  uint64_t *gp, uint64_t *bytes, bool *exit);

#endif /* PTREC_WATCH_PROOF_H */
