/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine (through rcv_win.h): struct win, a
 * window of a thread's history with its states and memory index, the
 * grid's sizes, and the small records the context keeps about windows
 * (memos, summaries, the mappings last looked up).  It exists because
 * rcv_win.h grew past 1,000 lines; the blocks are moved as they were.
 */
#ifndef PTREC_RCV_WINDOW_H
#define PTREC_RCV_WINDOW_H

#include "rcv_internal.h"
#include "rp_internal.h"

#define RCV_BLOCK	16384	/* instructions per window */
#define RCV_CHAIN	16	/* windows chained back from the end */
#define RCV_RAMP	16	/* windows before the chain summarised */
#define RCV_START	16	/* windows from the history's start summarised */
#define RCV_ORD_MAX	32	/* other tasks' calls by range (rcv_order.c) */
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
	/* Its context's count of windows made when it was (never 0): the
	 * callee walks kept across stack builds are keyed by it
	 * (rcv_callee.c).
	 */
	uint64_t serial;
	bool top_end;		/* last is the thread's end (snapshot) */
	struct win *later;	/* the window after it, or NULL */
	struct win *earlier;	/* the window before it, once computed */
	/* A ramp's window: the memory the one before it ends with (its
	 * summary's, rcv_sum.c), or NULL.
	 */
	struct rcv_smem *smem;
	/* A window on its own: the facts of its system calls' records
	 * (rcv_first.c rcv_sysret_local()), which rcv_apply_facts() takes
	 * with the engine's.
	 */
	struct rcv_fact *lf;
	size_t nlf;
	bool counted;		/* in the stats */
	bool settled;		/* its last pass changed nothing */
	uint64_t settled_conflicts;	/* conflicts that pass counted */
	bool fs_clean;		/* no instruction in it may change fs_base */
	bool fs_tail;		/* fs_base at its top is the thread's end */
	bool fs_conv;		/* rcv_fs_absolute() converted from fs_lo on:
				 * no fs operand left in [fs_lo, n) */
	size_t fs_lo;
	/* rcv_fd.c: the last system call in it that may close descriptor
	 * d (fdcl[d]) or any (fdcl[RCV_FD_TRACKED]), -1 none; valid once
	 * fd_done.
	 */
	bool fd_done;
	/* Its int and sysenter instructions (fd_int[k], once listed). */
	bool fd_int_listed;
	size_t nfd_int, *fd_int;
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
#define RCV_MEMO	1024	/* direct-mapped by insn (> 2 * MB_SCAN) */

/*
 * The memory a window before the chain is known to end with, near its
 * stack pointer (rcv_sum.c): RCV_SUM_BELOW bytes below rsp (the red
 * zone) to RCV_SUM_WORDS words on, each word's known bytes.
 */
#define RCV_SUM_WORDS	160
#define RCV_SUM_BELOW	128
struct rcv_smem {
	uint64_t lo;		/* the first word (address >> 3) */
	uint32_t n;		/* words from it (0: none) */
	uint8_t known[RCV_SUM_WORDS];
	uint8_t val[RCV_SUM_WORDS][8];
};

/*
 * What a window before the chain is known to end with (rcv_sum.c): its
 * last state, computed from the history's start (or the ramp's) forward,
 * window by window, each starting with the summary of the one before.
 */
struct rcv_sum {
	bool valid;
	struct rcv_state out;
	struct rcv_smem mem;
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
	struct rcv_smem mem;
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

#endif /* PTREC_RCV_WINDOW_H */
