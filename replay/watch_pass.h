/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to watch_proof.c and watch_fix.c: the pass that follows a
 * window's registers as bases plus offsets (watch_proof.c) and what is
 * fixed after it (watch_fix.c).
 */
#ifndef PTREC_WATCH_PASS_H
#define PTREC_WATCH_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "watch_proof.h"

#define MAX_SPAN	(1ll << 20)	/* widest interval kept */
#define MAX_ROOTS	65536

/* A value: base @root (0: the constant 0; -1: unknown) plus an offset in
 * [lo, hi].
 */
struct sv {
	int32_t root;
	int64_t lo, hi;
};

/* The word a push or an 8-byte store left at base + off. */
struct slot {
	int32_t root;
	int64_t off;
	struct sv val;
};

struct root {
	bool anchored;
	int64_t lo, hi;		/* its value, as a signed word */
	int64_t word;		/* a word of the window's entry: its offset
				 * from the entry stack pointer */
	bool is_word;
	/* @lw: the 8 bytes at base @lw_root + @lw_off as they were before
	 * the stretch (no store relative to that base had reached them).
	 */
	bool lw;
	int32_t lw_root;
	int64_t lw_off;
	/* @st: stores relative to it reached [st_lo, st_hi) of it. */
	bool st;
	int64_t st_lo, st_hi;
	bool shown;		/* a return jumped to a value of it */
};

struct pacc {
	uint32_t i;
	uint8_t kind;
	bool fixed;		/* rip-relative or absolute operand */
	int32_t root;
	int64_t lo, hi;		/* bytes [root + lo, root + hi) */
};

struct pass {
	struct sv r[16];
	struct slot *slot;
	size_t nslot, slot_cap;
	struct root *root;
	size_t nroot, root_cap;
	/* Since the window's start, every store was relative to its entry
	 * stack pointer, within [slo, shi) of it (@stored): a word above
	 * that is still the entry's.
	 */
	bool pure, stored;
	int64_t slo, shi;
	struct pacc *acc;
	size_t nacc, acc_cap;
	/* Where returns read their target (base, offset): the trace shows
	 * the word there.
	 */
	struct slot *rets;
	size_t nrets, rets_cap;
	bool nomem;
	/* An instruction whose outcome the trace shows and that may depend
	 * on the registers (quiet() below), a cut, or one not followed.
	 */
	bool loud;
	/* The registers and slots before instruction @mid. */
	size_t mid;
	struct sv mid_r[16];
	struct slot *mid_slot;
	size_t mid_n;
};

#define ENTRY_RSP	(1 + RP_REG_RSP)	/* root of rsp at the start */


static inline bool sv_exact(struct sv x)
{
	return x.root >= 0 && x.lo == x.hi;
}

struct wpf_win {
	struct pass p;
	bool contradiction;
	struct wpf_edge top;	/* a copy of the edge after it */
};


/* The bases that @top, what is known after the window, fixes; false on
 * a contradiction (watch_fix.c).
 */
bool wpf_pass_anchor(struct pass *p, const struct wpf_edge *top);

#endif /* PTREC_WATCH_PASS_H */
