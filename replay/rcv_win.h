/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine's window code (recover.c, rcv_pass.c,
 * rcv_mem.c, rcv_proof.c): a window of a thread's history, its states and memory
 * index, and the recovery context that owns the windows.
 */
#ifndef PTREC_RCV_WIN_H
#define PTREC_RCV_WIN_H

#include "rcv_internal.h"
#include "rp_internal.h"

#define RCV_BLOCK	16384	/* instructions per window */
#define RCV_CHAIN	16	/* windows chained back from the end */
#define RCV_RAMP	16	/* windows before the chain summarised */
#define RCV_ORD_MAX	32	/* calls of other tasks by range (rcv_order.c) */
#define RCV_FD_TRACKED	64	/* descriptors below it followed (rcv_fd.c) */

struct ent {
	uint64_t word;		/* address >> 3 */
	uint32_t pos;		/* instruction in the window */
};

/* One instruction's part of the access index (rcv_index.c). */
struct rcv_part {
	bool fbar;		/* its RCV_I_BARRIER (a system call's) */
	bool bar;		/* w->mbar */
	bool prot;		/* it may change the mappings (protc) */
	uint8_t ix;		/* w->ixs */
	int e;			/* a call's write: rcv_sys_write() */
	uint64_t sa, sl;
	bool rd, wr;		/* a load (store) of known address */
	uint64_t ra, wa;
	unsigned int rs, ws;
};

struct win {
	uint64_t first, last;	/* states first..last */
	size_t n;		/* instructions: last - first */
	struct rcv_ins *ins;
	struct rcv_state *st;
	bool top_end;		/* last is the thread's end (snapshot) */
	struct win *later;	/* the window after it, or NULL */
	struct win *earlier;	/* the window before it, once computed */
	bool counted;		/* in the stats */
	bool settled;		/* its last pass changed nothing */
	uint64_t settled_conflicts;	/* conflicts that pass counted */
	bool fs_clean;		/* no instruction in it may change fs_base */
	bool fs_tail;		/* fs_base at its top is the thread's end */
	/* rcv_fd.c: the last system call in it that may close descriptor
	 * d (fdcl[d]) or any (fdcl[RCV_FD_TRACKED]), -1 none; valid once
	 * fd_done.
	 */
	bool fd_done;
	int64_t fdcl[RCV_FD_TRACKED + 1];
	int64_t fdcl_all;	/* the last that may close any at all */
	uint8_t *mbar;		/* i may write memory we cannot name */
	uint8_t *ixs;		/* i's accesses in the index (RCV_IX_*) */
	uint32_t *nb;		/* first barrier >= i (n: none) */
	int64_t *pb;		/* last barrier < i (-1: none) */
	int64_t protc;		/* last syscall changing mappings, -1 */
	int64_t protf;		/* ... not a brk (rcv_sys_keeps_file()) */
	/* rcv_prot.c: the last instruction at or before prot_bar_f (the
	 * protf it was found for) that is a barrier and not a system call
	 * (-1: none), when prot_bar_ok.
	 */
	int64_t prot_bar, prot_bar_f;
	bool prot_bar_ok;
	struct ent *idx;
	size_t nidx, idx_cap;
	/* The system calls (sys_at[k]) and their parts of the index now. */
	bool sys_listed;
	size_t nsys, *sys_at;
	struct rcv_part *sys_part;
	struct ent *tmp;	/* the index's sort buffer */
	size_t tmp_cap;
	struct rcv_frame *fr;	/* rsp/rbp as class + offset */
	int64_t *pair;		/* pop -> its push */
	uint8_t *plocal;	/* pop i: its pair holds with the stack
				 * shared (rcv_callee.c) */
	struct rcv_val *base;	/* per class: its base, when known */
	struct rcv_val *base0;	/* bases the later window shows */
	struct rcv_val *xpair;	/* push i: the value its later pop read */
	/* The pushes whose slot nothing wrote for a while, in order
	 * (rcv_stack_vals' ekeep: the window that ends at the snapshot
	 * only): no instruction in (ek[k].p, ek[k].to) wrote the 8 bytes
	 * under rsp before ek[k].p (rcv_mem.c places the stores of unknown
	 * address there so).
	 */
	struct rcv_ekeep {
		uint32_t p, to;
	} *ek;
	size_t nek;
	struct rcv_val *rmw;	/* 2i, 2i+1: what i read from memory and
				 * wrote back, where no register shows it
				 * (add [mem], imm) */
	size_t nclass;
	struct rp_recover *rc;
};

/* What instruction @q of window @w reads and writes, remembered for the
 * bytes of one memory question (rcv_mem.c): valid while @gen is the
 * context's.
 */
struct rcv_memo {
	const struct win *w;
	size_t q;
	unsigned int gen[2];	/* of rd, of wr */
	struct rcv_acc acc[2];	/* reads, writes */
};

#define RCV_PMEMO	512	/* words of rcv_private_until() answers kept */
#define RCV_MEMO	1024	/* direct-mapped by instruction (> 2 * MB_SCAN) */

/*
 * What a window before the chain is known to end with (rcv_sum.c): its
 * last state, computed from the history's start (or the ramp's) forward,
 * window by window, each starting with the summary of the one before.
 */
struct rcv_sum {
	bool valid;
	struct rcv_state out;
};

/*
 * A summary the prefetch computed before any question began the ramp
 * (rcv_sum.c): the same window, seed and facts as the question would
 * use, so taken as it is when the question comes (@nfacts: the facts it
 * saw; @used: it became the summary, so the one below may follow).
 */
struct rcv_pre {
	bool valid, used;
	size_t nfacts;
	struct rcv_state out;
};

/* rcv_why.c's last walk back for one register: from state @hi of the
 * window (@w, @first, @last) the writer of bits @u is instruction @lo
 * (-1: none in the window).
 */
struct rcv_why_memo {
	const struct win *w;
	uint64_t first, last, u;
	int64_t lo;
	size_t hi;
};

/* A snapshot mapping (or the gap between two) around an address. */
struct rcv_map {
	uint64_t lo, hi;
	bool valid, found;
	bool ro;		/* anonymous (or vdso), not writable */
	bool priv;		/* not shared, not vvar */
	bool file;		/* a file's (its path absolute) */
};

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
	struct rcv_sum *sum;		/* [k - RCV_CHAIN]: RCV_RAMP */
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
	/* Register values a front end assumed (rp_recover_assume()). */
	struct rcv_fact {
		uint64_t pos, val;
		unsigned int reg;
	} *facts;
	size_t nfacts, facts_cap;
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
	 * orders none.
	 */
	struct rcv_xthr *xthr;
	bool xthr_off;
	/* rcv_clone.c: the creator's registers taken at the first state
	 * (inherit_done: tried; no_inherit: a helper, which does not).
	 */
	bool inherit_done, no_inherit;
};

/*
 * A window of states @first..@last (recover.c), computed: @later is the
 * chained window after it, or NULL; @seed, or NULL, what its first state
 * is known to be (the window before it ends with it).
 */
int rcv_win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		struct win *later, const struct rcv_state *seed,
		struct win **wp);
void rcv_win_free(struct win *w);
/* @rc's ctx callbacks as the windows' passes use them (recover.c: each
 * notes that it was asked, for rcv_pass.c's struct redo).
 */
void rcv_ctx_windows(struct rp_recover *rc);
/*
 * New knowledge at @w's start carried forward while it adds anything;
 * *@end_ch: its last state changed.
 */
int rcv_win_forward(struct rp_recover *rc, struct win *w, bool *end_ch);
/* Chain window @k's end flows into the later ones (recover.c). */
int rcv_flow_forward(struct rp_recover *rc, size_t k);

/*
 * Window @k of the grid (k >= RCV_CHAIN), computed on its own but for its
 * first state, which is the ramp's summary of window @k + 1 where there
 * is one (rcv_sum.c); *@wp NULL on error.
 */
int rcv_ramp_win(struct rp_recover *rc, uint64_t k, struct win **wp);
struct win *rcv_win_at(struct rp_recover *rc, uint64_t pos, int *err);
/* The chain's next window not computed, from the end, alone (the oldest
 * with the ramp's summary, rcv_ramp_chain()): 1 when it computed one, 0
 * when the chain is complete, else a negated enum rp_err (recover.c, for
 * rp_recover_prefetch()).
 */
int rcv_chain_next(struct rp_recover *rc);
/* The ramp's oldest window: windows beyond it are computed on their own,
 * from nothing but their instructions (watch_chain.c's quiet windows).
 */
uint64_t rcv_ramp_start(const struct rp_recover *rc);
/* The summary of window @k (its last state), if computed; else NULL. */
const struct rcv_state *rcv_ramp_seed(struct rp_recover *rc, uint64_t k);
/*
 * Once the ramp has begun (a question before the chain), the summaries
 * down to the chain's, and in *@seed the one the chain's oldest window
 * starts with; NULL when the ramp has not begun.
 */
int rcv_ramp_chain(struct rp_recover *rc, const struct rcv_state **seed);

/*
 * The window whose instructions include the one at @pos (first <= @pos <
 * last: a chained window's last state is the next one's first), as
 * rp_recover_accesses() asks it; NULL with *@err set.
 */
struct win *rcv_insn_win(struct rp_recover *rc, uint64_t pos, int *err);

/*
 * Did the trace go where instruction @in allows (recover.c)?  @ret is the
 * address the matching call returns to, or 0.  1: yes; 0: no (a signal,
 * a restarted syscall...); 2: not known (an indirect branch, a return
 * with no matching call).
 */
int rcv_expected(const struct rcv_ins *in, uint64_t next, uint64_t ret);
/* May a signal handler have run in thread @tid (recover.c)? */
bool rcv_handlers_ran(struct rp_session *s, uint32_t tid);
/*
 * The positions after which the software recorder's records show a
 * signal handler entered (sig_after()'s, ascending), into *@pos (owned by
 * @rc); 0 when none ran, SIZE_MAX when out of memory.  The watch scan's
 * signal frames (watch_kern.c).
 */
size_t rcv_sig_entries(struct rp_recover *rc, const uint64_t **pos);

/* rcv_sig.c: the software recorder's SIGFRAME records of the thread. */
struct rcv_sigframe {
	uint64_t g;		/* after instruction g (UINT64_MAX: nowhere) */
	uint64_t sp;		/* the handler's entry rsp: the frame */
	int32_t signo;
};
/*
 * The place of each of the @n times @tm (ascending) of records about the
 * thread made while it was in the kernel: after the instruction before
 * the last entry into the kernel at or before the time (as
 * sig_compute()), into @g (UINT64_MAX: none; @g may be @tm).
 */
void rcv_sig_place(struct rp_recover *rc, const uint64_t *tm, size_t n,
		   uint64_t *g);
/* The SIGFRAME records, placed, sorted by place, into *@out (owned by
 * @rc); SIZE_MAX when out of memory.
 */
size_t rcv_sig_frames(struct rp_recover *rc,
		      const struct rcv_sigframe **out);
/* The handler's entry rsp (its frame) after the delivery after
 * instruction @g, from the records that rcv_sig_seed() takes; false when
 * they give none.
 */
bool rcv_sig_entry_sp(struct rp_recover *rc, uint64_t g, uint64_t *sp);
/* What the deliveries give the handlers' entry states in @w (rsp, rdi,
 * rsi, rdx, rax, rflags' DF RF TF), merged; true when it added any.
 */
bool rcv_sig_seed(struct rp_recover *rc, struct win *w);
/*
 * Is system call @nr (rax before it, known) an rt_sigreturn whose only
 * writes would be a later delivery's frame, which the recorder's records
 * give (the software recorder's SIGNAL records: watch_kern.c)?  Then it
 * writes no user memory.  Elsewhere a delivery right at its return is not
 * told from the return itself (watch_kern.c transfers()): it may write.
 */
bool rcv_sig_return_quiet(struct rp_recover *rc, uint64_t nr);
/*
 * Did thread @tid's trace stop between position @pos and the next one
 * with the thread somewhere other than @next, the next instruction's
 * address (an asynchronous disable or branch: a signal delivered, a
 * fault)?  Then control reached @next as a handler's entry, even where
 * @next is the target of a direct branch at @pos (tests/values/review2.c
 * sigjcc).  *@evi: an event index at or before @pos + 1's events
 * (rp_thread_event_find()), advanced past them; positions in increasing
 * order (recover.c).
 */
bool rcv_async_away(const struct rp_session *s, uint32_t tid, uint64_t *evi,
		    uint64_t pos, uint64_t next);

/*
 * The first position of the thread from which no other task sharing its
 * memory may change a mapping, a protection or a read-only page
 * (rcv_order_maps), or sharing its descriptors close or replace one
 * (rcv_order_fds): UINT64_MAX when none is known (rcv_order.c).
 */
uint64_t rcv_order_maps(struct rp_recover *rc);
uint64_t rcv_order_fds(struct rp_recover *rc);
/*
 * May the kernel have written the memory of @rc's process, or changed
 * its mappings or descriptors, with no system call to show when: an
 * io_uring or AIO context (io_uring_setup, io_setup) in the history of a
 * task sharing its memory, a system call there whose number is not known,
 * a gap that may hide one, a ring mapped at the end (rcv_order.c)?  Then
 * no memory is its own and no read-only or descriptor rule holds.
 */
bool rcv_order_aio(struct rp_recover *rc);
/*
 * rp_recover_new() with the snapshot @sn already open (NULL: opens it),
 * which must outlive the context (rcv_order.c's engines of other tasks
 * use their maker's: opening one decompresses its memory).
 */
int rcv_recover_new_with(struct rp_session *s, uint32_t tid,
			 struct rp_snapshot *sn, struct rp_recover **rcp);
/* A task's history as rcv_order.c reads it (a cursor; an array in tests). */
struct rcv_hist {
	int (*peek)(void *ctx, uint64_t pos, struct rp_insn *insn);
	void *ctx;
	uint64_t n;
};
/*
 * The read-only rule per page (rcv_order.c): a system call of another
 * task that may change mappings, protections or read-only bytes only in
 * [lo, hi) (whole pages), which completed before time @bound (@pos: the
 * asking thread's first position after it, rcv_order_maps_at()), is a
 * struct rcv_ord_call (in struct rp_recover); @cap of them at @v, then
 * such a call counts as one that may change any page.
 */
struct rcv_ord_calls {
	struct rcv_ord_call *v;
	size_t n, cap;
};
/* The registers known before instruction @pos of the task (its values
 * engine: the system call's arguments); 0 or an error.
 */
struct rcv_ord_args {
	int (*regs)(void *ctx, uint64_t pos, struct rp_regs *r);
	void *ctx;
	/* Does the system call at @pos write no memory, by the task's
	 * engine (a write(2) to a descriptor proven not to name a memory
	 * file: rcv_fd.c)?  NULL: not known.
	 */
	bool (*quiet)(void *ctx, uint64_t pos);
	/* Register @reg's bits before @pos (*@k: those known), as
	 * rp_recover_reg_bits(); 0 or an error.  NULL: not known.
	 */
	int (*bits)(void *ctx, uint64_t pos, unsigned int reg, uint64_t *v,
		    uint64_t *k);
	/* An mprotect (pkey_mprotect) of a range or protection not
	 * known is kept as a call of every page that counts only for
	 * pages the recorder saw change (rcv_prot.c), not the walk's end.
	 */
	bool by_page;
};
/*
 * What system call @nr with the registers @r before it (NULL: none known)
 * may change of the mappings, protections and read-only bytes of the
 * tasks sharing the memory: 0 nothing, 1 only [*lo, *hi), -1 anything.
 */
int rcv_order_effect(uint64_t nr, const struct rp_regs *r, uint64_t *lo,
		     uint64_t *hi);
/*
 * The first position of the thread from which no other task sharing its
 * memory may change the mapping, protection or bytes of address @a's
 * read-only page (UINT64_MAX: none): rcv_order_maps() but for the calls
 * whose arguments show they miss it.
 */
uint64_t rcv_order_maps_at(struct rp_recover *rc, uint64_t a);
/*
 * Does the snapshot map anything neither writable nor shared (what the
 * read-only rule may answer for) in [@lo, @hi)?  True without one.
 */
bool rcv_order_ro_in(struct rp_recover *rc, uint64_t lo, uint64_t hi);
/*
 * The task of history @h's bounds: after time bound[0] it changes no
 * mapping, protection or read-only byte, after bound[1] closes or
 * replaces no descriptor (UINT64_MAX: not known), no later than @t_exit;
 * @started: made in the recording; @t_first: the asking thread's first
 * time (what lies before it is not looked at).
 */
void rcv_order_task(struct rcv_dec *dec, const struct rcv_hist *h,
		    bool started, uint64_t t_exit, uint64_t t_first,
		    uint64_t bound[2]);
/*
 * The same, but for the maps a system call whose arguments (from @args)
 * show it changes at most a range of pages does not end bound[0]: it is
 * added to @calls, with its own bound, and the walk goes on.
 */
void rcv_order_task_args(struct rcv_dec *dec, const struct rcv_hist *h,
			 bool started, uint64_t t_exit, uint64_t t_first,
			 const struct rcv_ord_args *args,
			 struct rcv_ord_calls *calls, uint64_t bound[2]);
/* The first position of @h whose time is above @t (UINT64_MAX: none). */
uint64_t rcv_order_first_after(const struct rcv_hist *h, uint64_t t);

/*
 * Other threads' stores in time (rcv_xthr.c).  A thread's runs: the
 * software recorder's SWITCH_IN times @in, the next SWITCH_OUT (or
 * THREAD_EXIT) @out, the first position of each @fp, of @n; @count
 * instructions.  A write of another task: between times @t0 and @t1
 * (closed), to [@lo, @hi) (@hi 0: anywhere; not used by the span).
 */
struct rcv_xruns {
	uint64_t *in, *out, *fp;
	size_t n;
	uint64_t count;
	/* NULL, or per run: set when its SWITCH_OUT was a preemption
	 * (the thread was ready: no system call of it in flight).
	 */
	bool *pre;
};
struct rcv_xiv {
	uint64_t t0, t1, lo, hi;
};
/*
 * The states [*@from, *@until] of the thread around state @s between
 * any two of which none of the @n writes @iv falls (*@until UINT64_MAX:
 * to its end and the snapshot); false when one may fall within @s's run.
 */
bool rcv_xthr_span(const struct rcv_xruns *r, const struct rcv_xiv *iv,
		   size_t n, uint64_t s, uint64_t *from, uint64_t *until);
/*
 * The same for byte @a and the writes of every other task sharing the
 * memory that may write it: false when not known (not the software
 * recorder's order, a task that may write anything, a byte the kernel
 * may write whenever it likes).
 */
bool rcv_xthr_quiet(struct rp_recover *rc, uint64_t a, uint64_t s,
		    uint64_t *from, uint64_t *until);
void rcv_xthr_free(struct rp_recover *rc);
/*
 * What a session keeps of each task for the other threads' engines, so
 * that each is made once, whichever thread asks (rp_session.xtasks):
 * its writes in time (rcv_xthr.c: @ok, @w when @done) and the bounds of
 * its system calls that may change mappings or descriptors
 * (rcv_order.c: @ord_bound, its ranged calls @ord_calls, when @ord_done),
 * walked to its start.
 */
struct rcv_xtask {
	uint32_t tid;
	bool done, ok;
	struct rcv_xthr *w;
	bool ord_done;
	uint64_t ord_bound[2];
	struct rcv_ord_call *ord_calls;
	size_t ord_n;
	/* rcv_clone.c: its facts from its creator's registers (clone_n
	 * of them), made with its creator's other children's.
	 */
	bool clone_done;
	int clone_n;
	struct rp_fact clone_f[16];
	/* rcv_order_files(): the time after which it maps no file, from
	 * a walk of its whole history (files_b), once per session.
	 */
	bool files_done;
	uint64_t files_b;
};
/* The session's entry of task @tid, made empty when new (NULL: no memory). */
struct rcv_xtask *rcv_xtask_of(struct rp_session *s, uint32_t tid);
/* Is @a in a private mapping of the snapshot (not [vvar], no file
 * mapped shared too)?  (rcv_mem.c)
 */
bool rcv_map_private(struct rp_recover *rc, uint64_t a);

/* rp_recover_accesses() of instruction @i of @w (rcv_access.c). */
int rcv_win_accesses(struct rp_recover *rc, struct win *w, size_t i,
		     struct rp_access *acc, size_t max);

/* Byte @a of the snapshot, where it shows this thread's end. */
bool rcv_snap_byte(struct rp_recover *rc, uint64_t a, uint8_t *b);

/* Rebuilds @w's access index and barriers from what its states know. */
int rcv_build_index(struct win *w);

/* rcv_build_index() where only the system calls' parts of @w's index may
 * be out of date (the rest kept exact): theirs made again.
 */
int rcv_index_sys(struct win *w);

/* What instruction i's accesses put in the index (w->ixs[i]). */
#define RCV_IX_RD	1	/* its load's entries */
#define RCV_IX_WR	2	/* its store's entries */
#define RCV_IX_OPEN	4	/* an address of it not known yet */

/* State @s of @w changed: its index made what a rebuild would make now
 * (the instructions before and after it, incrementally).
 */
int rcv_index_touch(struct win *w, size_t s);

/* PTREC_RCV_VERIFY: aborts unless @w's index is what a rebuild makes. */
void rcv_index_verify(struct win *w, const char *where);

/* Byte @a of memory before instruction @i of @w (state i), if known. */
bool rcv_mem_byte(struct win *w, uint64_t i, uint64_t a, uint8_t *out);
/* Bytes @addr..@addr+@len of memory at state @i of @w into @buf, as
 * rcv_mem_byte() each, a word at a time: how many are known from the
 * first on.
 */
size_t rcv_mem_range(struct win *w, uint64_t i, uint64_t addr, void *buf,
		     size_t len);

/*
 * The user memory system call @i of @w writes, by its number and
 * arguments (rcv_mem.c's table): 1 when it writes [*@addr, *@addr +
 * *@len) alone, 0 when none, -1 when not known.  Also for watchpoints
 * (rp_recover_accesses()).
 */
int rcv_sys_write(struct win *w, size_t i, uint64_t *addr, uint64_t *len);
/*
 * For watchpoints: every range system call @i writes (several buffers,
 * and readv's, preadv's, preadv2's and process_vm_readv's iovecs where
 * the values know the array), at most @max into @addr/@len: their
 * number, -1 when not known.  A length may carry RCV_SYS_MAYBE or be
 * RCV_SYS_ANY (rcv_internal.h).
 */
#define RCV_SYS_OUTS	4
/* Those of clone, clone3, capget, getsockopt and recvmsg (@nr), which
 * read the memory they are given (rcv_sysmem.c): the same answer.
 */
int rcv_sys_mem_args(struct win *w, size_t i, uint64_t nr, uint64_t *addr,
		     uint64_t *len, size_t max);
int rcv_sys_writes(struct win *w, size_t i, uint64_t *addr, uint64_t *len,
		   size_t max);
/*
 * Is a call @nr with @rdx an mprotect known to ask for PROT_WRITE, which
 * no page the snapshot shows not writable can have met after a state
 * from which every other call keeps protections (rcv_sys.c)?
 */
bool rcv_sys_prot_write(uint64_t nr, const struct rcv_val *rdx);

/* Does system call @i of @w leave every mapping as it was (rcv_mem.c)? */
bool rcv_sys_keeps_maps(struct win *w, size_t i);

/*
 * For a page of a file the snapshot shows not writable: does every system
 * call of @w after state @i (and of the windows after it) that may change
 * a mapping keep it (rcv_sys.c: a brk, after which no task maps a file)?
 */
bool rcv_sys_keeps_file(struct win *w, uint64_t i);

/*
 * A child's registers from its creator's at its clone (rcv_clone.c).
 * rcv_clone_regs(): the facts at the child's first state for call @nr
 * (clone 56, fork 57, vfork 58, clone3 435; else none) with the
 * creator's registers @pr before it, clone3's stack and stack_size
 * (@stack, when @stack_known) and the address after the call @next;
 * returns how many (at most 15).  rcv_clone_inherit(): adds them to
 * @rc's facts, where the software recorder's order finds the call; 0 or
 * -RP_ERR_NOMEM.
 */
int rcv_clone_regs(int64_t nr, const struct rp_regs *pr,
		   const uint64_t stack[2], bool stack_known, uint64_t next,
		   struct rp_fact *f);
int rcv_clone_inherit(struct rp_recover *rc);

/*
 * A thread's registers where its history starts (rcv_first.c).
 * rcv_first_facts(): the facts at the first state a REGS record @g gives
 * (rax..r15 and rflags, those valid; index RCV_FLAGS for rflags) when
 * its place is the start and its rip @first_ip, the first instruction's
 * address; how many (at most RCV_NREG), else 0.  rcv_first_regs(): adds
 * the thread's to @rc's facts: how many, 0 when there is none to take,
 * or -RP_ERR_NOMEM.
 */
int rcv_first_facts(const struct ptrec_sb_regs *g, uint64_t first_ip,
		    struct rp_fact *f);
int rcv_first_regs(struct rp_recover *rc);
/* rcv_sysret_regs(): the results REGS records give of the thread's
 * system calls in the chain, added to @rc's facts (rax at the state after
 * each): how many, or -RP_ERR_NOMEM.
 */
int rcv_sysret_regs(struct rp_recover *rc);

/* Brk @p of @l keeps a file's page (rcv_sys_keeps_file()'s test of one). */
bool rcv_sys_brk_keeps_file(const struct win *l, size_t p);

/*
 * Pages whose protection the software recorder saw never change
 * (rcv_prot.c).  rcv_prot_changer(): may system call @nr (-1: not known)
 * change a protection or a mapping?  rcv_prot_page(): 1 when the first
 * MMAP record of @pid over @page is the start's (SNAPSHOT), not
 * writable, and no later record covers it; else 0.  rcv_prot_apart():
 * no two of the @n calls of different tasks overlap in time.
 * rcv_prot_seen(): byte @a's page was never writable during the
 * recording, so no mprotect of any task changed it.  rcv_prot_keeps():
 * every system call of @w after state @i (and of the windows after it)
 * that may change a mapping is an mprotect (or a brk
 * rcv_sys_keeps_file() keeps), and @a's page was seen never writable.
 */
struct rcv_pcall {
	uint64_t t0, t1;	/* its issue, the maps read after it */
	uint32_t tid;
};
bool rcv_prot_changer(int64_t nr);
int rcv_prot_page(const struct ptrec_sb_header *const *recs, size_t n,
		  uint32_t pid, uint64_t page);
bool rcv_prot_apart(const struct rcv_pcall *v, size_t n);
bool rcv_prot_seen(struct rp_recover *rc, uint64_t a);
bool rcv_prot_keeps(struct win *w, uint64_t i, uint64_t a);

/*
 * May system call @nr, flags (mmap's r10) @r10, make a mapping of a file
 * (rcv_sys.c)?
 */
bool rcv_sys_maps_file(uint64_t nr, const struct rcv_val *r10);

/*
 * The first position of the thread after every other task sharing its
 * memory last may have mapped a file (UINT64_MAX: never), by the software
 * recorder's order (rcv_order.c).
 */
uint64_t rcv_order_files(struct rp_recover *rc);

/*
 * rcv_order.c's walk helpers for rcv_aio.c: argument register @g of the
 * system call at @p of history @h where the code shows it (-1 not), a
 * task whose gaps may hide system calls, a cursor's peek as rcv_hist's.
 */
int64_t rcv_order_arg(struct rcv_dec *dec, const struct rcv_hist *h,
		      uint64_t p, uint64_t ip_p, int g, bool ind);
bool rcv_order_hides(struct rp_recover *rc, uint32_t tid);
int rcv_order_peek(void *ctx, uint64_t pos, struct rp_insn *insn);

/*
 * Descriptors and rseq areas (rcv_fd.c).  rcv_fd_init(): from the
 * snapshot, once rc->sn, rc->snap_ok, rc->pid and rc->tid are set.
 * rcv_fd_closers(): @w's system calls that may close descriptors, from
 * what its states know now.  rcv_fd_family(): write, pwrite64, writev,
 * pwritev, pwritev2.  rcv_fd_write(): for such a call @i of @w, as
 * rcv_sys_write(): 0 when its descriptor is proven to name no memory
 * file and no mapped file, 1 with the bytes of the mapped file it names
 * (snapshot 4; the part a pwrite64 writes where its offset and length
 * are known) or with the range of a pwrite64 to a memory file, else
 * -1.  rcv_fd_rseq(): is @a in an rseq area (or may be)?
 */
void rcv_fd_init(struct rp_recover *rc);
void rcv_fd_closers(struct win *w);
bool rcv_fd_family(uint64_t nr);
int rcv_fd_write(struct win *w, size_t i, uint64_t *addr, uint64_t *len);
bool rcv_fd_rseq(const struct rp_recover *rc, uint64_t a);

/* struct rcv_ctx's own: @ctx is a win (private memory, rcv_mem.c). */
bool rcv_mem_own(void *ctx, uint64_t addr, unsigned int size);

/*
 * Makes @w's fs-relative operands absolute (the end's fs_base) after the
 * last instruction that may change fs_base, where no later window has
 * one (rcv_mem.c); sets w->fs_clean and w->fs_tail.  True when it changed
 * an operand.
 */
bool rcv_fs_absolute(struct rp_recover *rc, struct win *w);
/* The instruction before each TSX abort in @w is a barrier (rcv_tsx.c). */
void rcv_tsx_barriers(struct rp_recover *rc, struct win *w);
/* Whether system call @nr may change fs_base (rcv_mem.c). */
bool rcv_fs_syscall_nr(uint64_t nr);

/* Is @a memory this thread alone writes, as far as the snapshot tells? */
bool rcv_private(struct rp_recover *rc, uint64_t a);
/* Is @a written by this thread alone in some states?  Then *@until is
 * the last such state (its own stack until the first escape), UINT64_MAX
 * all through.
 */
bool rcv_private_until(struct rp_recover *rc, uint64_t a, uint64_t *until);
/* Is @a in a mapping that is the thread's own stack, no C object's
 * (the kernel's [stack] of the first thread, an anonymous one of
 * another)?  rcv_ownstk.c.
 */
bool rcv_own_stack(struct rp_recover *rc, uint64_t a);
/* The last state its stack is its own alone until (rcv_mem.c). */
uint64_t rcv_stack_until(struct rp_recover *rc);
/* Computes rc->esc_pos and rc->priv_hi (rcv_escape.c). */
void rcv_esc_compute(struct rp_recover *rc);
/* Does a recorded thread of another process share process @pid's memory
 * (clone with CLONE_VM but not CLONE_THREAD or CLONE_VFORK, also one made
 * by a vfork child)?  rcv_mem.c.
 */
bool rcv_vm_shared(const struct rp_session *s, uint32_t pid);
/*
 * The processes linked to @pid by THREAD_START records whose clone flags
 * have a bit of @want and none of @skip (CLONE_VM: they share its memory;
 * CLONE_FILES: its descriptors), through children of children, into
 * @set (@pid first); their number, 0 when more than @cap.
 */
size_t rcv_share_set(const struct rp_session *s, uint32_t pid,
		     uint64_t want, uint64_t skip, uint32_t *set, size_t cap);
/* The clone flags of THREAD_START record @t as far as they are known
 * (a process's with none recorded: any sharing but, from the kernel
 * module (@kmod), the memory's; rcv_mem.c).
 */
uint64_t rcv_clone_flags(const struct ptrec_sb_thread_start *t, bool kmod);
/* Is @s a recording of the kernel module (its manifest's backend)? */
bool rcv_backend_kmod(const struct rp_session *s);
/* The software recorder's bundle (it reads every mapping again after
 * each call that may change one, and records system call arguments). */
bool rcv_backend_emu(const struct rp_session *s);
/* Byte @a of access @x: -1 it does not cover it, 0 value unknown, 1 in
 * *@out.  Inline, as rcv_acc_of(): a memory question asks both for each
 * byte of each access it scans (p99: 35% of workload's last window were
 * these two calls).
 */
static inline int rcv_acc_byte(const struct rcv_acc *x, uint64_t a,
			       uint8_t *out)
{
	struct rcv_val v;
	unsigned int sh;

	if (!x->valid || !x->addr_known || a - x->addr >= x->size)
		return -1;	/* does not cover */
	if (a - x->addr >= 16)
		return 0;	/* a ymm's upper half: never known */
	v = a - x->addr < 8 ? x->val : x->hi;
	sh = (unsigned int)((a - x->addr) & 7) * 8;
	if ((v.k >> sh & 0xff) != 0xff)
		return 0;	/* covers, value unknown */
	*out = (uint8_t)(v.v >> sh);
	return 1;
}
/* Bit i: byte i of @k is all ones. */
static inline unsigned int rcv_bytes_ff(uint64_t k)
{
	k &= k >> 4;
	k &= k >> 2;
	k &= k >> 1;
	return (unsigned int)(((k & 0x0101010101010101ull) *
			       0x0102040810204080ull) >> 56);
}

/*
 * The bytes of @word access @x covers (*@cov) and, of those, the ones it
 * knows the value of (returned): for each byte a, rcv_acc_byte(@x, a)
 * >= 0 and == 1, without asking it 8 times (rcv_mem.c: a memory question
 * walks a word's accesses for all its bytes at once; test_rcv_mem.c
 * checks the two agree).  Offsets 16 and up (a ymm's upper half) are
 * never known.
 */
static inline uint8_t rcv_acc_word(const struct rcv_acc *x, uint64_t word,
				   uint8_t *cov)
{
	uint64_t w0 = 8 * word, d = x->addr - w0, n;
	unsigned int k16;

	*cov = 0;
	if (!x->valid || !x->addr_known)
		return 0;
	k16 = rcv_bytes_ff(x->val.k) | rcv_bytes_ff(x->hi.k) << 8;
	if (d < 8) {		/* it starts in the word, at byte d */
		n = 8 - d < x->size ? 8 - d : x->size;
		*cov = (uint8_t)(((1u << n) - 1) << d);
		return (uint8_t)(k16 << d) & *cov;
	}
	d = w0 - x->addr;	/* it starts d bytes before the word */
	if (d >= x->size)
		return 0;
	n = x->size - d < 8 ? x->size - d : 8;
	*cov = (uint8_t)((1u << n) - 1);
	return d < 16 ? (uint8_t)(k16 >> d) & *cov : 0;
}

/* First entry of @w's index at or after (@word, @pos). */
size_t rcv_lower(const struct win *w, uint64_t word, uint64_t pos);
/* The loads (@wr false) or stores of instruction @q of @w, remembered for
 * one memory question (rc->mb_gen).
 */
static inline const struct rcv_acc *rcv_acc_of(struct win *w, size_t q,
					       bool wr)
{
	struct rp_recover *rc = w->rc;
	struct rcv_memo *m = &rc->memo[q % RCV_MEMO];

	if (m->w != w || m->q != q) {
		m->w = w;
		m->q = q;
		m->gen[0] = m->gen[1] = 0;
	}
	if (m->gen[wr] != rc->mb_gen) {
		m->gen[wr] = rc->mb_gen;
		if (wr)
			rcv_writes(&rc->ctx, &w->ins[q], &w->st[q],
				   &w->st[q + 1], &m->acc[1]);
		else
			rcv_reads(&rc->ctx, &w->ins[q], &w->st[q],
				  &w->st[q + 1], &m->acc[0]);
	}
	return &m->acc[wr];
}

/*
 * Is it proven that store @b of @w, whose address is not known, did not
 * write byte @a (rcv_alias.c)?  By what a later load shows and by the
 * address's known low bits in any window, by the snapshot in the one
 * that ends there; false when not proven.
 */
bool rcv_alias_refuted(struct win *w, size_t b, uint64_t a);

/*
 * Did store @b of @w, whose address is not known, write byte @a, by the
 * oracle of rp_recover_set_oracle() (rcv_oracle.c)?  1 yes, 0 no, -1 no
 * oracle or none for it.
 */
int rcv_oracle_wrote(struct win *w, size_t b, uint64_t a);

/*
 * Did xchg @b of @w, of unknown address, not write byte @a?  True when
 * the old value it read, as the code after it shows it, cannot have held
 * the bytes memory held there at any placement over @a (rcv_xchg.c).
 */
bool rcv_xchg_refuted(struct win *w, size_t b, uint64_t a);

/*
 * The loads of @w again, from the last to the first (rcv_mem.c): where a
 * memory question gave up at its 64 accesses of a word.  True when it
 * added anything.
 */
bool rcv_loads_back(struct rp_recover *rc, struct win *w);

/* struct rcv_ctx's mem: up to 8 bytes at @addr before @i; @ctx is a win. */
struct rcv_val rcv_mem_cb(void *ctx, uint64_t i, uint64_t addr,
			  unsigned int size);

/*
 * xmm at the thread's end from the snapshot's FXSAVE area of thread
 * @ti, when its general-purpose registers are the end's (rcv_sse.c).
 */
struct rp_snap_thread_info;
void rcv_sse_end(struct rp_recover *rc,
		 const struct rp_snap_thread_info *ti);
/* rcv_end.c: end_drop, end_fdrop and end_wild, from the instruction at
 * the end's rip.
 */
void rcv_end_partial(struct rp_recover *rc);
/* xmm into @w's top state: the later window's first, or the end's. */
void rcv_sse_top(struct rp_recover *rc, struct win *w);

/* Facts (rcv_facts.c): merged into @w's states; true when they added
 * something.
 */
bool rcv_apply_facts(struct rp_recover *rc, struct win *w);
/* Room in rc->facts for @n more (rcv_facts.c): 0 or -RP_ERR_NOMEM. */
int rcv_facts_reserve(struct rp_recover *rc, size_t n);
/* The passes over @w (rcv_pass.c): computed again by rcv_facts.c after
 * new facts.
 */
int rcv_win_compute(struct rp_recover *rc, struct win *w);
/* (Re)builds @w's stack frames from its instructions' barriers now
 * (rcv_frames.c, for recover.c's window load).
 */
int rcv_win_frames(struct win *w);
/* Frames built again with the values known now; *@ch: one changed. */
int rcv_frames_refine(struct win *w, bool *ch);
/* Lifts the barriers of the branches the values prove (rcv_frames.c). */
bool rcv_branches_prove(struct rp_recover *rc, struct win *w);
void rcv_drop_windows(struct rp_recover *rc);

/* Where rcv_why.c's retrace of the memory search for a byte stopped. */
struct rcv_why_stop {
	unsigned int kind;	/* enum rp_why_mem, RP_WHYM_NONE: a store */
	struct win *w;
	size_t q;
	bool at;		/* @w and @q name an instruction */
	/* The search went on past a store of unknown address (or took
	 * memory others may write as the thread's own) by the exit-save
	 * rule: the push at @ek_at whose slot nothing wrote up to @ek_to
	 * (w->ek).
	 */
	bool ek;
	uint64_t ek_at, ek_to;
};

/* rcv_why.c: where the search for byte @a before instruction @q of @w
 * stops, as rcv_mem.c's goes (rp_recover_why_mem()).
 */
void rcv_why_mem_stop(struct rp_recover *rc, struct win *w, size_t q,
		      uint64_t a, struct rcv_why_stop *s);

#endif /* PTREC_RCV_WIN_H */
