/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine's window code (recover.c, rcv_pass.c,
 * rcv_mem.c, rcv_proof.c and the rules beside them): the functions over
 * windows and the recovery context.  The types and the inline helpers
 * are in the headers it includes (rcv_window.h: struct win;
 * rcv_recover.h: struct rp_recover; rcv_xtask.h: other tasks;
 * rcv_memq.h: a memory question's inlines), so that a file includes
 * this one alone.
 */
#ifndef PTREC_RCV_WIN_H
#define PTREC_RCV_WIN_H

#include "rcv_internal.h"
#include "rp_internal.h"
#include "rcv_window.h"
#include "rcv_recover.h"
#include "rcv_xtask.h"
#include "rcv_memq.h"

/*
 * A window of states @first..@last (recover.c), computed: @later is the
 * chained window after it, or NULL; @seed, or NULL, what its first state
 * is known to be (the window before it ends with it).
 */
int rcv_win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		struct win *later, const struct rcv_state *seed,
		struct win **wp);
/*
 * The same, for a window of a ramp: also @smem, or NULL, the memory near
 * the stack pointer the window before it ends with (rcv_sum.c), which a
 * memory question that reaches its start with no possible write takes
 * (rcv_mem.c).  Not the chain's: its oldest window may be computed before
 * the ramp and would then know less memory than after it.
 */
int rcv_win_new_mem(struct rp_recover *rc, uint64_t first, uint64_t last,
		    struct win *later, const struct rcv_state *seed,
		    const struct rcv_smem *smem, struct win **wp);
/*
 * The same, for a window on its own (beyond the ramp, not in the start
 * ramp): its facts are those of its system calls' records
 * (rcv_sysret_local()).
 */
int rcv_win_new_alone(struct rp_recover *rc, uint64_t first, uint64_t last,
		      struct win **wp);
/*
 * The facts of the thread's system call records placed at states in
 * (@first, @last] (rcv_first.c, as rcv_sysret_regs() places them), in
 * *@out (malloc'd, NULL when none), their number in *@nout: 0 or an
 * error.
 */
int rcv_sysret_local(struct rp_recover *rc, uint64_t first, uint64_t last,
		     struct rcv_fact **out, size_t *nout);
/*
 * May a system call record of the thread lie in (@first, @last] (one at
 * a time within the span's instructions' times; true when that cannot
 * be read)?
 */
bool rcv_sysret_any(struct rp_recover *rc, uint64_t first, uint64_t last);
/*
 * The bytes of @word the engine knows at state @i of @w (a mask; their
 * values in @val): rcv_mem.c.
 */
uint8_t rcv_mem_word(struct win *w, uint64_t i, uint64_t word, uint8_t *val);
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
/*
 * The recording's facts (the start's registers, a child's from its
 * creator, the system calls' results) taken, once, before any window is
 * computed: 0 or an error (recover.c).
 */
int rcv_inherit(struct rp_recover *rc);
/* The ramp's oldest window (rcv_sum.c). */
uint64_t rcv_ramp_start(const struct rp_recover *rc);
/*
 * Is window @k computed on its own, from nothing but its instructions
 * (beyond the ramp, not in the start ramp, and without a system call
 * record: watch_chain.c's quiet windows)?
 */
bool rcv_win_alone(struct rp_recover *rc, uint64_t k);
/*
 * The start ramp's last state (a fact the recording gives at or before it
 * flows through its summaries), or UINT64_MAX when there is none.
 */
uint64_t rcv_start_reach(const struct rp_recover *rc);
/*
 * The first position the chain and the ramp reach (0: the history's
 * start): a fact the recording gives there flows to the end with the
 * windows, through the ramp's summaries once a question or the prefetch
 * computed them; a fact before it would lie in a far window, which
 * watch_chain.c takes to start from nothing.
 */
uint64_t rcv_reach_first(const struct rp_recover *rc);
/*
 * The summary of window @k (its last state), if computed and the window
 * after it starts with it; else NULL.
 */
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
/* rcv_sysret_at(): the position after the SYSCALL of history @h that a
 * system call record of time @t and rip @rip names, or UINT64_MAX (none
 * sure).  @coarse: instructions' times are their last timing packet's,
 * not the recorder's exact order (ptrec.ko: rcv_first.c).
 */
struct rcv_hist;
uint64_t rcv_sysret_at(const struct rcv_hist *h, uint64_t t, uint64_t rip,
		       bool coarse);
/* Whether a SIGNAL record of @tid lies after record @i of @s at a time
 * not above @t (rcv_first.c): a handler entered before the instruction
 * of that time.
 */
bool rcv_signal_between(const struct rp_session *s, size_t i, uint32_t tid,
			uint64_t t);

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
/* Is a task the recorder let run untraced (an UNTRACED record: a tid
 * reused) in process @pid, or sharing its memory or descriptors?
 * rcv_share.c.
 */
bool rcv_untraced(const struct rp_session *s, uint32_t pid);
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

/*
 * Is it proven that store @b of @w, whose address is not known, did not
 * write byte @a (rcv_alias.c)?  By what a later load shows and by the
 * address's known low bits in any window, by the snapshot in the one
 * that ends there; false when not proven.
 */
bool rcv_alias_refuted(struct win *w, size_t b, uint64_t a);

/*
 * Write extents (rcv_extent.c): does instruction @b of @w (xsave's family,
 * a string store) write only within [*@lo, *@lo + *@len)?  False when it
 * is not one or the states do not bound it.  rcv_extent_kept(): the bytes
 * of @word barrier @b did not write by it; rcv_extent_refuted(): did it
 * not write @a?
 */
bool rcv_extent(struct win *w, size_t b, uint64_t *lo, uint64_t *len);
uint8_t rcv_extent_kept(struct win *w, size_t b, uint64_t word);
bool rcv_extent_refuted(struct win *w, size_t b, uint64_t a);

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
/* Room in rc->facts for @n more (rcv_facts.c): 0 or -RP_ERR_NOMEM;
 * rcv_facts_add(): @n facts @f added.
 */
int rcv_facts_reserve(struct rp_recover *rc, size_t n);
int rcv_facts_add(struct rp_recover *rc, const struct rp_fact *f, int n);
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
