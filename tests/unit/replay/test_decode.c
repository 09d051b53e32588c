// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Segment decoding's bookkeeping (replay/decode.c): checkpoints carry the
 * call depth at them and the lowest depth of their segment; a checkpoint
 * dropped (its PSB+ did not match) gives its segment back to the one
 * before, lowest depth included.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

static struct walk w;
static struct rp_ckpt *ckpts;
static size_t nckpts;

static void begin(void)
{
	memset(&w, 0, sizeof(w));
	ckpts = NULL;
	nckpts = 0;
	w.ckpts = &ckpts;
	w.nckpts = &nckpts;
}

static void add(uint64_t insn)
{
	struct rp_ckpt c = { .insn = insn };

	cr_assert_eq(rp_walk_add_ckpt(&w, &c), 0);
}

static void step(enum pt_insn_class c, int n)
{
	while (n--)
		rp_walk_track_depth(&w, c);
}

Test(decode, depth_and_lowest_depth_per_segment)
{
	begin();
	add(0);
	step(ptic_call, 3);	/* depth 3 */
	step(ptic_return, 2);	/* 1 */
	add(100);
	step(ptic_return, 3);	/* -2: returns past the start */
	step(ptic_call, 4);	/* 2 */
	step(ptic_other, 5);
	add(200);
	rp_walk_close_ckpt(&w);
	cr_assert_eq(nckpts, 3);
	cr_assert_eq(ckpts[0].depth, 0);
	cr_assert_eq(ckpts[0].dmin, 0);
	cr_assert_eq(ckpts[1].depth, 1);
	cr_assert_eq(ckpts[1].dmin, -2);
	cr_assert_eq(ckpts[2].depth, 2);
	cr_assert_eq(ckpts[2].dmin, 2);
	free(ckpts);
}

Test(decode, a_dropped_checkpoint_joins_the_segment_before)
{
	begin();
	add(0);
	step(ptic_call, 2);
	step(ptic_return, 1);	/* segment 0: 0..2, lowest 0 */
	add(50);
	rp_walk_drop_ckpt(&w);
	step(ptic_return, 2);	/* -1 */
	add(80);
	rp_walk_close_ckpt(&w);
	cr_assert_eq(nckpts, 2);
	cr_assert_eq(ckpts[0].dmin, -1);
	cr_assert_eq(ckpts[1].insn, 80);
	cr_assert_eq(ckpts[1].depth, -1);
	free(ckpts);
}
