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

/* Did @rc's thread end in exit(2) before the end snapshot (the kernel
 * writes there after its last instruction, rc->end - 1)?
 */
bool wpx_exit_write(struct rp_recover *rc);
/* The same, when its place (rc->end - 1, into *@g) is in [@lo, @hi). */
bool wpx_exit_near(struct rp_recover *rc, uint64_t lo, uint64_t hi,
		   uint64_t *g);

/*
 * The accesses of that exit (call only when wpx_exit_write()): the
 * clear_child_tid word (4 bytes, written) where its address is known,
 * else a write of unknown address; a write and a read of unknown address
 * when the thread may hold a robust list.  Into *@acc (owned by the
 * cache *@xcp, created on first use, which computes each thread once);
 * returns how many (0: the exit touches no user memory) or -RP_ERR_NOMEM.
 */
int wpx_exit_accesses(struct wpx_cache **xcp, struct rp_recover *rc,
		      const struct rp_access **acc);
void wpx_cache_free(struct wpx_cache *xc);

#endif /* PTREC_WATCH_EXIT_H */
