/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine (through rcv_win.h): struct
 * rp_recover, the recovery context of one thread that owns its windows
 * and what every rule computes once asked.  It exists because rcv_win.h
 * grew past 1,000 lines; the struct is moved as it was.
 */
#ifndef PTREC_RCV_RECOVER_H
#define PTREC_RCV_RECOVER_H

#include "rcv_window.h"

struct rp_recover {
	struct rp_session *s;
	struct rp_snapshot *sn;
	uint32_t tid, pid;
	uint64_t end, count;
	struct rp_regs end_regs;
	/* rcv_end.c: where the thread ends inside a repeated string
	 * instruction, the registers (bit g) and rflags bits its iterations
	 * so far may have changed: the snapshot shows them after those,
	 * not after the history's last instruction; end_wild: it stores,
	 * so the snapshot's memory is not the memory after it either.
	 */
	uint32_t end_drop;
	uint64_t end_fdrop;
	bool end_wild;
	bool snap_ok;		/* the snapshot shows this thread's end */
	/* It ended before the snapshot, its process did not: the
	 * snapshot's read-only pages hold for it where rcv_order.c orders
	 * every other task's calls that may change them before (ro_mem()).
	 */
	bool snap_ro;
	bool mt;		/* other threads share its memory */
	bool strict;		/* no rule that rests on an assumption about
				 * the program (rp_session_set_values_strict) */
	bool verify;		/* PTREC_RCV_VERIFY, read once per context:
				 * shortcuts checked against the full work */
	bool no_handlers;	/* no signal handler ran in it (the recorder
				 * saw every signal it got) */
	rp_oracle_fn oracle;	/* rcv_oracle.c: measurements only */
	void *oracle_ctx;
	/* Positions of system calls a handler was entered after (recover.c
	 * sig_after()), computed once asked.
	 */
	uint64_t *sig_pos;
	size_t nsig_pos;
	bool sig_done;
	struct rcv_sigframe *sigf;	/* rcv_sig.c, computed once asked */
	size_t nsigf;
	bool sigf_done;
	uint8_t sig_rec;	/* rcv_sig_return_quiet(): 0 not asked */
	uint64_t stack_lo, stack_hi;	/* its stack mapping (mt) */
	/* rcv_ownstk.c: the last mapping asked, and whether it is one no C
	 * object lies in (the callee argument's and exit-save's rules).
	 */
	bool own_valid, own_ok;
	uint64_t own_lo, own_hi;
	/* rcv_extent.c: the XSAVE area's bound (0: not known), once. */
	uint32_t xsz;
	bool xsz_done;
	/* rcv_escape.c, with mt: [priv_lo, priv_hi) is its own stack until
	 * state esc_pos (UINT64_MAX: the end), computed once asked.
	 */
	bool esc_done;
	uint64_t esc_pos, priv_lo, priv_hi;
	uint64_t tls_lo, tls_hi;	/* around fs_base: never private */
	/* rcv_root.c: the pages any brk may change, [root_lo, root_hi)
	 * (root_ok), computed once asked.
	 */
	bool root_done, root_ok;
	uint64_t root_lo, root_hi;
	struct rcv_root_memo *root_memo;	/* rcv_root_sym()'s answers */
	/* rcv_fd.c: descriptors that named no memory file at the end
	 * (bit d), when the snapshot lists them and no other thread shares
	 * them (fd_known); the rseq areas, sorted and disjoint, unless
	 * rseq_any (no complete list: no memory is private).
	 */
	bool fd_known, rseq_any;
	bool fd_shared;		/* other tasks share them (rcv_order.c) */
	bool fd_all_safe;	/* none names a memory file at the end */
	bool rseq_stack;	/* an rseq area in its stack mapping */
	uint64_t fd_safe;
	/* rcv_fd.c, snapshot 4: the file mappings at the end (fmap: start,
	 * end, file offset, inode, 1 when a descriptor at the end names its
	 * file) and the descriptors that named one of their files there:
	 * bit d of fd_file (d < RCV_FD_TRACKED, its inode fd_ino[d]), any
	 * at all (fd_any_file).  A write to one may change those mappings'
	 * pages that follow the file.
	 */
	bool fd_ids, fd_any_file;
	bool fsh_gone;		/* a shared file mapping gone by the end */
	bool ush_gone;		/* any shared mapping gone by the end */
	uint64_t fd_file;
	uint64_t fd_ino[RCV_FD_TRACKED];
	uint64_t (*fmap)[5];
	size_t nfmap;
	uint64_t (*rseq)[2];
	size_t nrseq;
	struct rcv_dec *dec;
	struct rcv_stack_tmp *stk;	/* the frames' tables (rcv_stack.c) */
	uint64_t win_serial;	/* windows made (struct win's serial) */
	struct rcv_ctx ctx;
	struct win *chain[RCV_CHAIN];	/* [0] ends at the end */
	struct win *far;		/* one window beyond the chain */
	/* The one before it, or the one the prefetch computed next to the
	 * front end's stop (rcv_sum.c): a walk across a window's edge
	 * finds it ready, either way.
	 */
	struct win *far2;
	/* rp_recover_stop(): the front end's last stop, and the way the
	 * stops went (1: back, to older windows; -1: forward).
	 */
	uint64_t stop_pos;
	int stop_dir;
	bool stop_set;
	/* [k - RCV_CHAIN]: RCV_RAMP + RCV_START (rcv_sum.c ramp_start()) */
	struct rcv_sum *sum;
	struct rcv_sum *ssum;		/* [oldest - k]: RCV_START */
	/* rcv_win_alone()'s last answer (window alone_k in windows of
	 * alone_block)
	 */
	bool alone_memo, alone_v;
	uint64_t alone_k, alone_block;
	struct rcv_pre *pre;		/* likewise, ahead of a question */
	uint64_t block;
	/* a page of snapshot memory */
	uint64_t page;
	size_t page_len;
	bool page_valid;
	uint8_t page_buf[4096];
	/* the snapshot's mappings (or gaps) last looked up: rcv_mem.c */
	struct rcv_map map, map2;
	/* rcv_private_until()'s answers, by word: bit b of have says
	 * byte b's is computed, of ok its answer, of own that it is
	 * private all through (rcv_private(): rcv_mem.c)
	 */
	struct rcv_pmemo {
		uint64_t word, until[8];
		uint8_t have, ok, own;
		bool valid;
	} pmemo[RCV_PMEMO];
	struct rp_recover_stats stats;
	/* One memory question (up to 8 bytes of a word) looks at the same
	 * index entries and accesses for each byte: remembered while
	 * mb_gen stays (rcv_mem.c).
	 */
	unsigned int mb_gen;
	struct rcv_memo memo[RCV_MEMO];
	/* During the pass loop's sweeps (rcv_pass.c, mb_keep), nothing a
	 * question looks at changes but through a change of a state, which
	 * bumps mb_world (struct redo): the questions asked in between keep
	 * what the last one remembered (mb_seen: its mb_world).
	 */
	bool mb_keep;
	uint64_t mb_world, mb_seen;
	/* rcv_alias.c: what the proofs for the store at @b of the window of
	 * serial @serial found that does not depend on the byte asked,
	 * while mb_gen and mb_world stay (nothing a question looks at
	 * changes: rcv_acc_of()'s memo), for the next byte (a question
	 * asks up to 8, each of them the same store): base_from_load()'s
	 * bytes of the base (bl_k, bl_v), word_refutes()' per byte of the
	 * root's word (ws, wfx, wdep), revealed()'s per byte shown (rv,
	 * by address, 0 not asked, 1 nothing shows it, 2 rfx does).
	 */
	struct rcv_almemo {
		uint64_t serial, world;
		unsigned int gen;
		size_t b;
		bool bl_done;
		uint64_t bl_v, bl_k;
		uint8_t ws[8], wfx[8], wdep[8];
		struct {
			uint64_t x;
			uint8_t r, fx;
		} rv[64];
	} alm;
	bool asked;		/* a callback of ctx was asked (rcv_pass.c's
				 * struct redo) */
	bool mem_off;		/* ctx's memory answers nothing
				 * (rcv_pass.c: the first pass's sweeps) */
	bool all_passes;	/* rcv_pass.c: no shortcut (the reference) */
	/* recover.c win_callers(): the calls open at position cl_pos
	 * (rp_cursor_callers(), innermost first, cl_n of them), the last
	 * window loaded's, whose outer part the window before it shares.
	 */
	bool cl_valid;
	uint64_t cl_pos;
	uint64_t *cl;
	int cl_n;
	bool scan_capped;	/* a forward memory question gave up at
				 * MB_SCAN accesses (rcv_loads_back) */
	const struct win *low_w;
	uint64_t low_word, low_i;
	size_t low_k;
	unsigned int low_gen;
	/* xmm at the thread's end, from the snapshot (rcv_sse_end()). */
	struct rcv_val end_x[RCV_NXMM][2];
	uint16_t end_xk;
	/* Register values a front end assumed (rp_recover_assume()), after
	 * the @nfacts_rec the recording gives (rcv_first.c, rcv_clone.c: in
	 * the chain only, added before its first window).
	 */
	struct rcv_fact {
		uint64_t pos, val;
		unsigned int reg;
	} *facts;
	size_t nfacts, facts_cap, nfacts_rec;
	struct wpf_cache *wpf;	/* watchpoints' proofs (watch_chain.c) */
	struct rcv_why_memo why[RCV_NREG];	/* rp_recover_why() */
	uint64_t why_read[16];	/* first position that reads each GPR */
	bool why_read_done;
	/* rcv_order.c: from position ord_pos[0] no other task may change
	 * a mapping or a read-only page, from ord_pos[1] close or replace
	 * a descriptor (UINT64_MAX: never); computed once asked.
	 */
	bool ord_done;
	uint64_t ord_pos[2];
	/* ... and the other tasks' calls after ord_all (the position
	 * after every call that may change any page) that may change
	 * only the pages of a range their arguments name, each with the
	 * position after it (rcv_order_maps_at()); the last answer's
	 * range of addresses.
	 */
	uint64_t ord_all;
	struct rcv_ord_call {
		uint64_t bound, lo, hi, pos;
		bool prot;	/* an mprotect of every page (by_page) */
	} ord_calls[RCV_ORD_MAX];
	size_t nord_calls;
	uint64_t ord_lo, ord_hi, ord_at;
	bool ord_at_valid;
	bool ord_noargs;	/* a helper's: other tasks' calls by number */
	/* rcv_prot_seen()'s last answer, by page */
	uint64_t prot_page;
	bool prot_valid, prot_ok;
	/* rcv_order_files(): from ord_files on, no other task may map a
	 * file (UINT64_MAX: never); computed once asked.
	 */
	bool ord_files_done;
	uint64_t ord_files;
	bool sn_borrowed;	/* sn is its maker's (rcv_recover_new_with) */
	/* rcv_order_aio(): 0 not computed, 1 no asynchronous I/O, 2 may */
	uint8_t aio;
	/* rcv_xthr.c: other tasks' writes in time, made when first
	 * asked; xthr_off: a helper's (an engine of another task), which
	 * orders none.  xthr_lvl: 0 for an engine asked from outside, L + 1
	 * for the engine an engine of level L makes of another task to
	 * list its writes (off from RCV_XT_LEVELS on: levels below order
	 * against the writes of the level above, never their own).
	 */
	struct rcv_xthr *xthr;
	bool xthr_off;
	unsigned char xthr_lvl;
	/* rcv_clone.c: the creator's registers taken at the first state
	 * (inherit_done: tried; no_inherit: a helper, which does not).
	 */
	bool inherit_done, no_inherit;
};

#endif /* PTREC_RCV_RECOVER_H */
