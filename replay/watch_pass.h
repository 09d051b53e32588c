/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to watch_proof.c, watch_acc.c and watch_fix.c: the pass that
 * follows a window's registers as bases plus offsets (watch_proof.c,
 * its memory accesses in watch_acc.c) and what is fixed after it
 * (watch_fix.c).
 */
#ifndef PTREC_WATCH_PASS_H
#define PTREC_WATCH_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "watch_proof.h"

#define MAX_SPAN	(1ll << 20)	/* widest interval kept */
#define MAX_ROOTS	(1 << 22)

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
	/* watch_dep.c's knowledge fixpoint: what knowing it tells the
	 * engine of its parents (@inv: WDEP_INV_*), what knowing its
	 * parents tells of it (@fwd: WDEP_FWD_*).
	 */
	uint8_t inv, fwd;
	/* wdep_informed_any(): knowing it tells the engine nothing of what
	 * it was made from (cmovcc's result: rcv_back.c does not invert it).
	 */
	bool noback;
	bool calc;		/* made by watch_dep.c's wdep_fresh(): a value
				 * an instruction computed */
	bool kc;		/* watch_dep.c: a constant stored, in lo
				 * (anchored), a node of its own (8 bytes
				 * relative to a base of the secret kind:
				 * watch_fix.c bounds what the engine may pair
				 * a load of the word with) */
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
	/* @ld: read by an 8-byte load at exactly base @lw_root + @lw_off
	 * (with @lw: before any store relative to that base reached it;
	 * without: what the stores relative to it there left, its parents
	 * in watch_dep.c's graph).
	 */
	bool ld;
	/* watch_dep.c: a node of what stores left in a word (its parents:
	 * the values stored, the store before), not a value.
	 */
	bool chain;
	/* @sk: of the secret kind while the pass runs (a chain node: every
	 * value stored is).  @ldc: an @ld word whose base and every value
	 * stored there are of that kind: itself a base of that kind (its
	 * stores and loads wired by word), informed in wdep_informed()
	 * once one of those values is.
	 */
	bool sk, ldc;
	bool shown;		/* a return jumped to a value of it */
	/* A register where the engine starts from nothing: at the
	 * window's start (roots 1..16) or after an instruction it cannot
	 * follow across (an undecoded EVEX load or store, a barrier to it,
	 * where the flow went straight on).
	 */
	bool start;
	/* watch_dep.c: first edge to a root it depends on (edge + 1; 0:
	 * none); what the stores relative to it left, as far as asked
	 * (root + 1; 0: none).
	 */
	int32_t dhead, mchain;
	int32_t wide;		/* the latest store of an offset interval
				 * too wide for words (root + 1) */
	uint32_t mc_upto;	/* the stores (p->ps) mchain holds */
	uint32_t at;		/* the instruction that made it */
	/* watch_proof.c's ranges and sums: p->ext[ext - 1] (0: none). */
	int32_t ext;
};

/*
 * What the instruction that made root @root allows, whatever it read
 * (watch_proof.c's ranges): @rng, its value lies in [rlo, rhi] (movzx of
 * a byte or word, tzcnt...); @s32, its low 32 bits as a signed int lie
 * in [s32lo, s32hi] (a 32-bit add or sub, which cltq or movsxd extends).
 * wpf_pass_anchor() pins @rng.  A 64-bit sum (add, lea) of roots @ds1
 * and @ds2 (0: a constant or none), neither offset known: watch_fix.c's
 * secret where either addend is (a sum with an unknown addend is
 * unknown).  Apart from struct root, which every instruction makes
 * some of: few roots have one.
 */
struct rext {
	int32_t root;
	bool rng, s32;
	/* watch_proof.c's remainders (x % d by a multiplication), in
	 * place of the ranges (a root has one or the other): @q.qk times
	 * the quotient of root @qx + @q.qoff by @q.qd (0: none), or with
	 * @q.qmul the high 64 bits of (@qx + @q.qoff) * @q.qmul (a mul
	 * before its shift).
	 */
	bool quot;
	union {
		struct {
			int64_t rlo, rhi, s32lo, s32hi;
		};
		struct {
			int64_t qoff;
			uint64_t qd, qk, qmul;
		} q;
	};
	int32_t ds1, ds2, qx;
};

/* watch_dep.c: the latest store to 8-byte word @word (offset / 8) of
 * base @root (root + 1 in @head; 0: an empty entry).
 */
struct wdep_w {
	int32_t root, head;
	int64_t word;
};

/* watch_dep.c's graph: root @child's edge to root @par, then edge
 * @next - 1.
 */
struct wdep_e {
	int32_t par, next, child;
};

/* A load (its value @node) through base @base (0: a base the engine
 * may know), after @t stores, when the chain of stores through other
 * bases was at @mem.
 */
struct wdep_load {
	int32_t node, base, mem;
	uint32_t t;
	int32_t addr;	/* the address's base, whatever its kind (0: a
			 * constant, -1: not followed) */
};

/* A store of a value depending on @val through base @base (secret
 * kind), the @t-th of the window.
 */
struct wdep_store {
	int32_t base, val;
	uint32_t t;
};

#define WDEP_ALL	17	/* root: everything (a value of unknown
				 * origin) */

/* What the engine learns of a node's parents from knowing it (rcv_back.c,
 * rcv_sem.c's zf_result()): each of them (moves, inc/dec/neg/not, and
 * what is not known to be less: an over-approximation), one once every
 * other one is known (add, sub, xor, cmp of 4 or 8 bytes, lea base +
 * index), none (and, or, test of two values, shifts, imul, bt, cmovcc:
 * never inverted).
 */
#define WDEP_INV_ANY	0
#define WDEP_INV_OTHER	1
#define WDEP_INV_NONE	2
/* What it learns of a node from its parents: known once one is (most:
 * an over-approximation), once all are (add, sub, xor, cmp, lea's sum:
 * each bit of the result depends on the same bit of every operand),
 * never (a register it starts from nothing: watch_pass.h's @start),
 * always (the vector state, whose constants are not followed).
 */
#define WDEP_FWD_ANY	0
#define WDEP_FWD_ALL	1
#define WDEP_FWD_YES	2

/* watch_dep.c's summary of an instruction (by its decoded copy). */
struct wdep_ic {
	const struct rcv_ins *in;
	uint16_t vm;		/* registers read as values */
	uint16_t f;		/* D_* */
	int8_t treg;
	uint8_t cls;		/* WDEP_INV_* of what it computes */
};
/* By address: libloop's far windows run about 700 distinct
 * instructions, which 256 entries made info() a fifth of the scan.
 */
#define WDEP_IC		4096
#define WDEP_VIN	32

struct pacc {
	uint32_t i;
	uint8_t kind;
	bool fixed;		/* rip-relative or absolute operand */
	/* The engine never knows its address: an instruction it did not
	 * decode (rcv_access.c: unknown), a string instruction where it
	 * cannot know the direction flag, the kernel's writes of a
	 * write(2)-family call (rcv_fd.c: none or unknown).
	 */
	bool blind;
	bool nosize;		/* relative to @root, extent not known */
	/* An indexed address neither register of which the pass follows
	 * to a constant: the bases of the two (extent not known), the
	 * engine needs both.
	 */
	int32_t root2;
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
	/* watch_dep.c: what each root depends on, what the trace shows. */
	struct wdep_e *de;
	size_t nde, de_cap;
	int32_t *rev;
	size_t nrev, rev_cap;
	struct wdep_load *xl;
	size_t nxl, xl_cap;
	struct wdep_store *ps;
	size_t nps, ps_cap;
	int32_t *ldc;		/* the roots with @ldc */
	size_t nldc, ldc_cap;
	int32_t *yes;		/* the roots with WDEP_FWD_YES */
	size_t nyes, yes_cap;
	struct wdep_w *wm;	/* open hash of words, by (root, word) */
	size_t wm_n, wm_cap;
	uint32_t nst;		/* stores so far */
	int32_t flags, vec;	/* roots: rflags, vector state */
	int32_t df;		/* root: the direction flag (apart from the
				 * arithmetic flags, which do not write it) */
	int32_t mem;		/* chain of stores through other bases */
	int32_t konst;		/* root: a constant stored (known) */
	bool deps;		/* the analysis runs (else none is secret) */
	bool qmode;		/* ... not needed: every instruction is quiet */
	bool all;		/* a value of unknown origin was shown */
	/* The engine may know the direction flag: an instruction in the
	 * window wrote it (cld, std, popf...) since the engine's last
	 * start.  Else it knows no string instruction's addresses
	 * (rcv_access.c's str_range()).
	 */
	bool dfk;
	/* The current instruction's inputs, the root they make (-1: not
	 * yet), its last load.
	 */
	int32_t vin[WDEP_VIN];
	int nvin;
	int32_t onode, last_load;
	uint32_t cur;		/* the instruction followed */
	struct wdep_ic *ic;	/* WDEP_IC of them, with the analysis */
	struct rext *ext;	/* root.ext */
	size_t next, ext_cap;
	const struct wdep_ic *ce;	/* the current instruction's */
	/* watch_proof.c: the instructions and cuts followed (for a bsf's
	 * look back).
	 */
	const struct rcv_ins *const *ins;
	const uint8_t *cut;
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

/* watch_dep.c: the dependency analysis beside the pass. */
void wdep_init(struct pass *p);
void wdep_free(struct pass *p);
/* @next: the address the trace went to after @in (0: not known). */
void wdep_begin(struct pass *p, const struct rcv_ins *in, uint64_t next);
void wdep_end(struct pass *p, const struct rcv_ins *in);
int32_t wdep_node(struct pass *p);
void wdep_edge(struct pass *p, int32_t r, int32_t par);
void wdep_reveal(struct pass *p, int32_t r);
/* Root @r is WDEP_FWD_YES. */
void wdep_yes(struct pass *p, int32_t r);
/* The current instruction reads root @r as a value too (a word its
 * pass took from a slot, which wdep_load() did not see).
 */
void wdep_use(struct pass *p, int32_t r);
/* A root depending on the current instruction's inputs. */
int32_t wdep_fresh(struct pass *p);
int32_t wdep_inputs(struct pass *p);
/* The value a load of @size bytes (0: unknown) at @a reads (@v, or a
 * new root: -1), wired.
 */
int32_t wdep_load(struct pass *p, struct sv a, uint64_t size, int32_t v);
/* After wdep_load() of the 8 bytes at exact @a into root @v: @ldc. */
void wdep_ldc(struct pass *p, struct sv a, int32_t v);
/* A store of @size bytes (0: unknown) at @a of a value depending on @d
 * (0: the constant @val).
 */
void wdep_store(struct pass *p, struct sv a, uint64_t size, int32_t d,
		struct sv val);
/* By root: what a value the trace shows depends on (NULL: no memory). */
bool *wdep_informed_any(const struct pass *p);
/* By root: what the engine may know (watch_know.c; NULL: no memory);
 * with @learned, *@learned by root: what it may learn back from what the
 * trace shows (not only compute forward).
 */
bool *wdep_informed(const struct pass *p, bool **learned);
/* watch_know.c: what knowing what an instruction computes tells of what
 * it read (WDEP_INV_*); cmovcc; xor/sub/cmp of a register with itself;
 * a result whose low 4 or 8 bytes are known whatever it read.
 */
uint8_t wdep_inv_class(const struct rcv_ins *in);
bool wdep_is_cmov(unsigned int id);
bool wdep_self_op(const struct rcv_ins *in);
bool wdep_absorbs(const struct rcv_ins *in);

#endif /* PTREC_WATCH_PASS_H */
