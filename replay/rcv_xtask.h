/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine (through rcv_win.h): what other tasks
 * may do to this thread's memory, mappings and descriptors, in the
 * software recorder's order (rcv_order.c), in time (rcv_xthr.c) and
 * kept per task for the whole session (struct rcv_xtask).  It exists
 * because rcv_win.h grew past 1,000 lines; the blocks are moved as they
 * were.
 */
#ifndef PTREC_RCV_XTASK_H
#define PTREC_RCV_XTASK_H

#include "rcv_recover.h"

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
 * Levels of engines that order other tasks' writes (rcv_xthr.c): an
 * engine of level L < RCV_XT_LEVELS lists each other task's writes with
 * an engine of that task of level L + 1, which orders against the writes
 * of level L + 2, and so on; the last level orders none.
 */
#define RCV_XT_LEVELS	2

/*
 * What a session keeps of each task for the other threads' engines, so
 * that each is made once, whichever thread asks (rp_session.xtasks):
 * its writes in time as an engine of level L + 1 lists them, for askers
 * of level L (rcv_xthr.c: @ok[L], @w[L] when @done[L]) and the bounds of
 * its system calls that may change mappings or descriptors
 * (rcv_order.c: @ord_bound, its ranged calls @ord_calls, when @ord_done),
 * walked to its start.
 */
struct rcv_xtask {
	uint32_t tid;
	bool done[RCV_XT_LEVELS], ok[RCV_XT_LEVELS];
	struct rcv_xthr *w[RCV_XT_LEVELS];
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

#endif /* PTREC_RCV_XTASK_H */
