/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * blksrc: where the index pass (index.c, idx_redo.c, decode.c) gets its
 * blocks from, behind one interface: libipt's block decoder (pt_blk_*),
 * or the block-cache flow walker (fwalk.h), which follows libipt's
 * instruction decoder 2.5-3.9x faster than pt_blk (issue #19,
 * docs/performance.md "The flow walker in the index pass").
 *
 * The walker hands out units shaped as pt_blk's blocks with end_on_call
 * and end_on_jump: every call, return, jump and far transfer ends one (the
 * index's call depth and return-stack model see each), conditional jumps
 * do not.  Where pt_blk returns a partial block with an error, the walker
 * returns the instructions decoded before it as a unit and the error on
 * the next call, with no instruction, as pt_insn_next() would.  Code the
 * walker does not follow (16- and 32-bit, BDM64, see fwalk.h) makes it
 * refuse: rp_bsrc_refused() says so, and the caller decodes the range
 * again with libipt's block decoder (rp_bsrc_new() with @walker false).
 */
#ifndef PTREC_REPLAY_BLKSRC_H
#define PTREC_REPLAY_BLKSRC_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stdint.h>

#include "fwalk.h"

struct rp_bsrc;

/*
 * A block source for @cfg (its block flags set by the caller): the walker
 * when @walker and it can follow @cfg (code read through @read), else
 * libipt's block decoder.  NULL when out of memory.
 */
struct rp_bsrc *rp_bsrc_new(const struct pt_config *cfg, bool walker,
			    rp_fwalk_read_fn read, void *read_ctx);
void rp_bsrc_free(struct rp_bsrc *bs);

/* Whether it is the walker (for tests and PTREC_INDEX_DEBUG). */
bool rp_bsrc_is_walker(const struct rp_bsrc *bs);

/* The walker met code it does not follow (-pte_not_supported). */
bool rp_bsrc_refused(const struct rp_bsrc *bs);

/* The code changed: @image for pt_blk, the walker's cache dropped. */
int rp_bsrc_set_image(struct rp_bsrc *bs, struct pt_image *image);

/* As pt_blk_sync_set(), pt_blk_sync_forward(), pt_blk_get_offset(),
 * pt_blk_get_sync_offset(), pt_blk_next() and pt_blk_event().
 */
int rp_bsrc_sync_set(struct rp_bsrc *bs, uint64_t off);
int rp_bsrc_sync_forward(struct rp_bsrc *bs);
int rp_bsrc_get_offset(const struct rp_bsrc *bs, uint64_t *off);
int rp_bsrc_get_sync_offset(const struct rp_bsrc *bs, uint64_t *off);
int rp_bsrc_next(struct rp_bsrc *bs, struct pt_block *b);
int rp_bsrc_event(struct rp_bsrc *bs, struct pt_event *ev);

#endif
