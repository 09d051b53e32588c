/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The kernel's accesses at a thread's lone exit(2) for the watch scan
 * (watch_exit.c): the clear_child_tid word where the history shows it.
 */
#ifndef PTREC_WATCH_EXIT_H
#define PTREC_WATCH_EXIT_H

#include <stdbool.h>

#include "replay.h"

struct wpx_cache;

/*
 * The process whose memory process @pid of @s shares (a CLONE_VM child
 * that never exec'd, through such parents), or 0: its writes are in that
 * memory, and that process's watchpoints watch them.
 */
uint32_t wpx_mem_owner(const struct rp_session *s, uint32_t pid);

/* Did @rc's thread end in exit(2) before the end snapshot (the kernel
 * writes there after its last instruction, rc->end - 1)?
 */
bool wpx_exit_write(struct rp_recover *rc);
/* The same, when its place (rc->end - 1, into *@g) is in [@lo, @hi). */
bool wpx_exit_near(struct rp_recover *rc, uint64_t lo, uint64_t hi,
		   uint64_t *g);

/*
 * The accesses of that exit (call only when wpx_exit_write()): the
 * robust list walk where the sideband's EXIT_FUTEX record names the list
 * (reads of the head and of each entry, each futex word the exiting
 * thread owns written, one whose value is not known a write that may
 * happen: struct rp_access's cond), the clear_child_tid word (4 bytes,
 * written) where its address is known, else a write of unknown address;
 * a write and a read of unknown address for what cannot be followed
 * (a list the sideband does not name that the thread may hold, a word of
 * the walk not known).  Into *@acc (owned by the
 * cache *@xcp, created on first use, which computes each thread once);
 * returns how many (0: the exit touches no user memory) or -RP_ERR_NOMEM.
 */
int wpx_exit_accesses(struct wpx_cache **xcp, struct rp_recover *rc,
		      const struct rp_access **acc);
void wpx_cache_free(struct wpx_cache *xc);

/* Marks @hit, found among wpx_exit_accesses()' accesses of @rc's thread,
 * as the exit's, with the values before and after of the bytes a known
 * write changed (struct rp_watch_hit's old_val, new_val) where known.
 */
void wpx_exit_values(const struct wpx_cache *xc, const struct rp_recover *rc,
		     struct rp_watch_hit *hit);

#endif /* PTREC_WATCH_EXIT_H */
