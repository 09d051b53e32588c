// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Walks over a frame's own instructions for gdb/server/frames.c (#17):
 * where its saves were just made, and what it did to rsp.  Private to
 * the server.
 */
#ifndef PTREC_FRAMES_WALK_H
#define PTREC_FRAMES_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

/* Instructions followed by fw_anchor() and fw_depth_walk() at most. */
#define FW_DEPTH_WALK 4096

/* What an instruction does to rsp (fw_sp_text()). */
enum fw_sp {
	FW_SP_UNKNOWN,	/* anything else */
	FW_SP_ADD,	/* adds *d (0: does not write rsp) */
	FW_SP_ADD_REG,	/* adds *d (1 or -1) times register *reg */
};

enum fw_sp fw_sp_text(const char *text, int64_t *d, unsigned int *reg);
bool fw_led_to(const struct rp_insn *a, const struct rp_insn *b);
void fw_save_points(struct rp_session *s, struct rp_cursor *c, uint64_t entry,
		    uint64_t to, const struct rp_insn *at,
		    const struct rp_cfi *rule, const unsigned int *regs,
		    size_t nregs, uint64_t *q);
uint64_t fw_returned_at(struct rp_cursor *c, uint64_t entry, uint64_t resume);
bool fw_anchor(struct rp_session *s, struct rp_cursor *c, uint64_t to,
	       const struct rp_insn *at, bool calls, uint64_t *from);
bool fw_depth_walk(struct rp_session *s, struct rp_cursor *c,
		   struct rp_recover *rc, uint64_t from, uint64_t to,
		   const struct rp_insn *at, int64_t *sum, int64_t *off);

#endif
