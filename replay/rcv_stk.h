/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the stack frames (rcv_stack.c, the frame classes, slots and
 * the build, and rcv_stkeep.c, whether a pair of push and pop, or spill
 * and reload, is kept across what lies between): the tables both use and
 * the functions each calls in the other.  It exists because the frames
 * were split in two files; nothing else includes it (the rest of
 * libptrec sees rcv_stack_* through rcv_internal.h).
 */
#ifndef PTREC_RCV_STK_H
#define PTREC_RCV_STK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcv_internal.h"

struct slot;
struct aword;
struct rcv_callee;

/*
 * The tables of rcv_stack_build_v(), kept from one build to the next
 * (struct rcv_stack_vals' tmp): a build empties them by moving to the
 * next generation, not by clearing them (p99: a table for 4 slots per
 * instruction, 8 MB for a window and the next, was allocated and cleared
 * on every pass), and they grow when half full.
 */
/* Walkers of callees (the innermost call's and callers' entries: a pair
 * in a callee and a stack argument read there alternate; with two, the
 * demo's walks were 1.15x main's callgrind instructions, with four
 * 1.00x).
 */
#define NWK 4

struct rcv_stack_tmp {
	struct slot *v;
	size_t cap, used;
	unsigned int shift;	/* 64 - log2(cap) */
	uint32_t gen;
	struct aword *a;
	size_t acap, aused;
	unsigned int ashift;
	uint32_t agen;
	int64_t last;		/* the last store of known address, -1 */
	bool nomem;		/* a reservation failed */
	uint64_t *placed;	/* bit i: system call i placed */
	size_t pcap;		/* its words */
	int64_t *ents;		/* the calls' entries, innermost last */
	size_t nents, entcap;
	/* rcv_callee.c's walkers, each keeping one entry's walk; the one
	 * used longest ago walks a new entry.
	 */
	struct rcv_callee *wk[NWK];
	uint64_t wkuse[NWK], tick;
	struct rcv_cwc *cw;	/* their walks kept across builds */
	/* rcv_stk_own_begin(): per state of the build, is rsp's stack
	 * the thread's own (1)?  Computed the first time a push's rsp is
	 * not known (own_done), from the build's values and instructions.
	 */
	uint8_t *ownv;
	size_t nown, owncap, own_n;
	bool own_done;
	const struct rcv_stack_vals *own_sv;
	const struct insv *own_iv;
};

/* The instructions: @a[0..@na) then @b[0..] (rcv_stack_vals' ins_b). */
struct insv {
	const struct rcv_ins *a, *b;
	size_t na;
	const uint64_t *placed;	/* system calls sys_placed() placed */
};

static inline const struct rcv_ins *ins_at(const struct insv *x, size_t i)
{
	return i < x->na ? &x->a[i] : &x->b[i - x->na];
}

/*
 * Writes that a pair of push and pop must not span: every write to memory
 * other than through rsp or rbp of a known class (its address may be the
 * slot), and writes through another class (two classes may overlap).
 */
struct kills {
	int64_t any;		/* last barrier (may write anywhere) */
	int64_t ust;		/* last store of unknown place */
	int64_t sys;		/* last system call that writes a known
				 * range (the callee argument does not
				 * see it) */
	int64_t pos1, pos2;	/* last class write; last of another class */
	uint32_t cls1, cls2;
};

/* rcv_stack.c: the tables. */
int rcv_stk_tmp_reserve(struct rcv_stack_tmp *t, size_t more);
void rcv_stk_abs_write(struct rcv_stack_tmp *t, uint64_t a,
		       unsigned int size, int64_t pos);
bool rcv_stk_abs_killed(struct rcv_stack_tmp *t, bool known, uint64_t slot,
			int64_t p);
bool rcv_stk_abs_addr(const struct rcv_stack_vals *sv, size_t i,
		      const struct rcv_ins *in, const struct rcv_op *m,
		      uint64_t *a);
bool rcv_stk_abs_rsp(const struct rcv_stack_vals *sv, size_t i, uint64_t *v);

/* rcv_stkeep.c: pairs kept. */
bool rcv_stk_sys_placed(struct rcv_stack_tmp *t,
			const struct rcv_stack_vals *sv, size_t i,
			struct kills *kl);
int rcv_stk_pair_keep(const struct kills *kl, struct rcv_stack_tmp *ab,
		      const struct rcv_stack_vals *sv, uint32_t cls,
		      int64_t p, const struct insv *iv, int64_t q);
void rcv_stk_own_begin(struct rcv_stack_tmp *t,
		       const struct rcv_stack_vals *sv, const struct insv *iv,
		       size_t n);
void rcv_stk_end_keeps(struct rcv_stack_tmp *t,
		       const struct rcv_stack_vals *sv, const struct insv *iv,
		       size_t n);
void rcv_stk_track_entry(struct rcv_stack_tmp *t, const struct rcv_ins *in,
			 size_t i);

#endif /* PTREC_RCV_STK_H */
