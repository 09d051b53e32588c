/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Writes the kernel makes between two instructions of a thread, with no
 * instruction or system call of its own, for the watch scan
 * (watch_kern.c): signal frames at deliveries, rseq area rewrites.
 */
#ifndef PTREC_WATCH_KERN_H
#define PTREC_WATCH_KERN_H

#include <stdbool.h>

#include "replay.h"

struct wpk_cache;

/* Does this set of accesses hit a watched range?  (watch.c's scan_one():
 * nonzero with the hit noted in its argument.)
 */
typedef int (*wpk_hits_fn)(void *arg, const struct rp_access *acc, int n);

/*
 * The nearest position g of @rc's thread in [@lo, @hi), in direction @dir
 * (< 0: backwards), after which the kernel wrote or may have written
 * memory that @hits says is watched, into *@g, and why into *@why (enum
 * rp_watch_kernel): a signal's delivery (its frame: siginfo, ucontext
 * and FPU state at the handler's stack pointer, a write of unknown
 * address where that is not known; and what the instruction it
 * interrupted, a rep string store or a scatter, may have stored before:
 * RP_WATCH_KERNEL_PARTIAL), or, with @rseq, a rewrite of the
 * thread's rseq area (struct rseq: cpu_id_start, cpu_id, rseq_cs,
 * node_id, mm_cid; a write that may happen).  Per-thread facts are
 * computed once into the cache *@kcp (made on first use).  Returns 0,
 * -RP_ERR_NOTFOUND or -RP_ERR_NOMEM.
 */
int wpk_near(struct wpk_cache **kcp, struct rp_recover *rc, int dir,
	     uint64_t lo, uint64_t hi, bool rseq, wpk_hits_fn hits, void *arg,
	     uint64_t *g, uint8_t *why);
void wpk_cache_free(struct wpk_cache *kc);

/* Bytes the kernel writes at a delivery on x86-64: the frame (return
 * address, struct ucontext, siginfo) at the handler's stack pointer, then,
 * after up to 23 bytes of alignment, the FPU state (xsave area and its
 * 4-byte end marker).
 */
#define WPK_SIGFRAME		440u
#define WPK_SIGFRAME_PAD	24u
/* The xsave area where the snapshot does not give its size: above the
 * largest user state of x86-64 CPUs today (AMX: 11,008 bytes).
 */
#define WPK_XSTATE_MAX		12288u

#endif /* PTREC_WATCH_KERN_H */
