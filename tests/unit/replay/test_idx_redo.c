// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index pass's error recovery (replay/idx_redo.c) on its own: which
 * blocks took a TIP with its IP suppressed (read packet by packet, SDM
 * Vol. 3C 33.4.2), where the walk is kept to roll back to, where the
 * block decoder may resync, how corrupt trace is recovered from (in the
 * range from its last PSB, or, with cut points, from the last checkpoint
 * after the join) and the walk rolled back for that, and when a redo
 * refuses (the thread is then indexed with the instruction decoder).
 * The redo's histories against a plain libipt loop: test_index_noip.c,
 * tests/import/onepsb.sh and tests/import/damaged.sh.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idx_redo.h"

/* PAD, TNT.8 (1 bit), TIP with IP suppressed, then TIP with a 6-byte IP
 * whose payload holds 0x0d, then a PAD.
 */
static const uint8_t pkts[] = {
	0x00,				/* 0: PAD */
	0x06,				/* 1: TNT.8, one bit */
	0x0d,				/* 2: TIP, IP suppressed */
	0x6d, 0x0d, 0x0d, 0x40, 0, 0, 0,	/* 3: TIP, IPC 3 */
	0x00,				/* 10: PAD */
};

Test(idx_redo, tip_noip_finds_a_suppressed_tip)
{
	const uint8_t *e = pkts + sizeof(pkts);

	cr_assert(rp_redo_tip_noip(pkts, e, 0, 3));
	cr_assert(rp_redo_tip_noip(pkts, e, 2, 3));
	cr_assert(rp_redo_tip_noip(pkts, e, 1, sizeof(pkts)));
}

Test(idx_redo, tip_noip_skips_payload_bytes)
{
	const uint8_t *e = pkts + sizeof(pkts);

	/* 0x0d inside the full TIP's IP is no packet. */
	cr_assert_not(rp_redo_tip_noip(pkts, e, 3, sizeof(pkts)));
	cr_assert_not(rp_redo_tip_noip(pkts, e, 0, 2));
}

Test(idx_redo, tip_noip_empty_or_outside)
{
	const uint8_t *e = pkts + sizeof(pkts);

	cr_assert_not(rp_redo_tip_noip(pkts, e, 2, 2));
	cr_assert_not(rp_redo_tip_noip(pkts, e, 3, 2));
	cr_assert_not(rp_redo_tip_noip(pkts, e, 0, sizeof(pkts) + 1));
}

Test(idx_redo, tip_noip_unknown_packet_counts_as_one)
{
	/* An extended opcode not defined, then a byte 0x0d: not walked
	 * past, so taken as a suppressed TIP (indexed the slow way).
	 */
	static const uint8_t bad[] = { 0x02, 0xff, 0x0d, 0x00 };

	cr_assert(rp_redo_tip_noip(bad, bad + sizeof(bad), 0, sizeof(bad)));
}

/* A walk over its own checkpoints and gaps. */
struct fix {
	struct walk w;
	struct rp_ckpt *ckpts;
	size_t nckpts;
	struct rp_gap *gaps;
	size_t ngaps;
	struct rp_event *evs;
	size_t nevs;
};

static void fix_init(struct fix *f)
{
	memset(f, 0, sizeof(*f));
	f->w.ckpts = &f->ckpts;
	f->w.nckpts = &f->nckpts;
	f->w.gaps = &f->gaps;
	f->w.ngaps = &f->ngaps;
	f->w.evs = &f->evs;
	f->w.nevs = &f->nevs;
}

static void add_ckpt(struct fix *f, uint64_t offset, uint64_t insn)
{
	struct rp_ckpt c = { .offset = offset, .insn = insn };

	f->w.pos = insn;
	cr_assert_eq(rp_walk_add_ckpt(&f->w, &c), 0);
}

Test(idx_redo, point_taken_at_the_first_instruction_of_each_checkpoint)
{
	struct rp_redo_point p = { 0 };
	struct fix f;

	fix_init(&f);
	rp_redo_point_take(&p, &f.w);
	cr_assert_eq(p.nckpts, 0, "no checkpoint: nothing to take");

	add_ckpt(&f, 100, 0);
	f.nevs = 2;
	rp_redo_point_take(&p, &f.w);
	cr_assert_eq(p.nckpts, 1);
	cr_assert_eq(p.offset, 100);
	cr_assert_eq(p.nevs, 2);
	cr_assert_eq(p.w.pos, 0);

	/* Later in the same segment: kept as it was. */
	f.w.pos = 50;
	f.ngaps = 1;
	rp_redo_point_take(&p, &f.w);
	cr_assert_eq(p.w.pos, 0);
	cr_assert_eq(p.ngaps, 0);

	/* A checkpoint whose first instruction is not reached yet. */
	add_ckpt(&f, 900, 70);
	f.w.pos = 71;
	rp_redo_point_take(&p, &f.w);
	cr_assert_eq(p.nckpts, 1);
	f.w.pos = 70;
	rp_redo_point_take(&p, &f.w);
	cr_assert_eq(p.nckpts, 2);
	cr_assert_eq(p.offset, 900);
	cr_assert_eq(p.ngaps, 1);
	free(f.ckpts);
}

static struct rp_psb psbs[3];

static void three_psbs(struct rp_thread *t)
{
	memset(t, 0, sizeof(*t));
	memset(psbs, 0, sizeof(psbs));
	psbs[0].offset = 0;
	psbs[1].offset = 1000;
	psbs[2].offset = 2000;
	t->psbs = psbs;
	t->npsbs = 3;
	t->pt_size = 3000;
}

Test(idx_redo, resync_only_at_a_psb)
{
	struct rp_thread t;
	struct fix f;
	int status = 0;

	three_psbs(&t);
	fix_init(&f);
	f.w.t = &t;
	f.w.stop_psb = SIZE_MAX;
	cr_assert_eq(rp_redo_resync(&f.w, 1001, &status), 1);
	cr_assert_not(f.w.stopped);
}

Test(idx_redo, resync_at_the_next_range_stops)
{
	struct rp_thread t;
	struct fix f;
	int status = 0;

	three_psbs(&t);
	fix_init(&f);
	f.w.t = &t;
	f.w.stop_psb = 1;
	cr_assert_eq(rp_redo_resync(&f.w, 1000, &status), 0);
	cr_assert(f.w.stopped && f.w.stop_sync && !f.w.overshot);

	/* Past it: the next worker's start was not seen. */
	fix_init(&f);
	f.w.t = &t;
	f.w.stop_psb = 1;
	cr_assert_eq(rp_redo_resync(&f.w, 2000, &status), 0);
	cr_assert(f.w.stopped && f.w.overshot);
}

/* Walks rp_redo_insns() refuses before touching a decoder. */
Test(idx_redo, insns_refuses)
{
	struct rp_redo_point p = { 0 };
	struct rp_split sp = { .offset = 500, .len = 8 };
	struct fix f;
	int status = 0;
	bool done = false;

	fix_init(&f);
	cr_assert_eq(rp_redo_insns(&f.w, &p, NULL, &status, &done), 1,
		     "no checkpoint");

	/* A checkpoint whose first instruction the walk is past, with no
	 * redo point: where the walk was there is not known.
	 */
	add_ckpt(&f, 100, 0);
	f.w.pos = 10;
	cr_assert_eq(rp_redo_insns(&f.w, &p, NULL, &status, &done), 1,
		     "no redo point");

	/* A materializing walk stores, it does not index. */
	f.w.pos = 0;
	f.w.seg = (struct rp_seg *)&sp;
	cr_assert_eq(rp_redo_insns(&f.w, &p, NULL, &status, &done), 1,
		     "a segment being materialized");
	f.w.seg = NULL;

	/* A decoder on a copy of the stream (a split range). */
	f.w.off_delta = 100;
	cr_assert_eq(rp_redo_insns(&f.w, &p, NULL, &status, &done), 1,
		     "a split range");
	f.w.off_delta = 0;

	/* A cut point's checkpoint: not from a PSB. */
	f.ckpts[0].split = sp;
	cr_assert_eq(rp_redo_insns(&f.w, &p, NULL, &status, &done), 1,
		     "a cut point");
	cr_assert_not(done);
	free(f.ckpts);
}

/* What rp_redo_choose() says for each row: a range from a split, to
 * one, libipt's error, the recovery.
 */
struct choice {
	bool from_split, to_split;
	int status;
	enum rp_redo_how how;
};

static void expect_choices(const struct walk *w, const struct choice *c,
			   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cr_expect_eq(rp_redo_choose(w, c[i].from_split, c[i].to_split,
					    c[i].status), c[i].how,
			     "row %zu", i);
}

Test(idx_redo, choose_without_cut_points)
{
	static const struct choice rows[] = {
		{ false, false, -pte_bad_opc, RP_REDO_PSB },
		{ false, false, -pte_retstack_empty, RP_REDO_PSB },
		/* A stream cut at TIP.PGEs whose cut points are no
		 * checkpoints.
		 */
		{ true, false, -pte_bad_opc, RP_REDO_NONE },
		{ false, true, -pte_bad_opc, RP_REDO_NONE },
	};
	struct fix f;

	fix_init(&f);
	expect_choices(&f.w, rows, sizeof(rows) / sizeof(rows[0]));
}

Test(idx_redo, choose_with_cut_points)
{
	static const struct choice rows[] = {
		/* The whole stream, or its first range: after the join. */
		{ false, false, -pte_bad_opc, RP_REDO_JOINED },
		{ false, false, -pte_retstack_empty, RP_REDO_JOINED },
		{ false, true, -pte_retstack_empty, RP_REDO_JOINED },
		/* A range from a cut: a bad packet is the stream's ... */
		{ true, false, -pte_bad_opc, RP_REDO_JOINED },
		{ true, true, -pte_noip, RP_REDO_JOINED },
		/* ... an empty return stack maybe the cut's (one piece). */
		{ true, false, -pte_retstack_empty, RP_REDO_NONE },
	};
	/* Materializing from blocks never redoes. */
	static const struct choice seg[] = {
		{ false, false, -pte_bad_opc, RP_REDO_PSB },
		{ true, false, -pte_bad_opc, RP_REDO_NONE },
	};
	struct rp_split cks[2] = { { .offset = 9000 }, { .offset = 18000 } };
	struct fix f;

	fix_init(&f);
	f.w.cks = cks;
	f.w.ncks = 2;
	expect_choices(&f.w, rows, sizeof(rows) / sizeof(rows[0]));
	f.w.seg = (struct rp_seg *)cks;
	expect_choices(&f.w, seg, sizeof(seg) / sizeof(seg[0]));
}

/*
 * The rollback: a PSB checkpoint, then a cut point's, the redo point
 * taken at the cut's first instruction; the block pass went on (more
 * instructions, a gap, events) before the error.  The walk goes back to
 * the later of the two, the cut point: its position, gaps and events
 * there, its checkpoints kept.
 */
Test(idx_redo, mark_rolls_back_to_the_last_checkpoint)
{
	struct rp_redo_point p = { 0 };
	struct rp_ckpt cut = { .offset = 9000, .insn = 500 };
	struct fix f;

	fix_init(&f);
	add_ckpt(&f, 0, 0);
	cut.split.offset = 9000;
	cut.split.len = 8;
	f.w.pos = 500;
	f.nevs = 3;
	cr_assert_eq(rp_walk_add_ckpt(&f.w, &cut), 0);
	rp_redo_point_take(&p, &f.w);
	f.w.pos = 800;
	f.w.depth = 4;
	f.ngaps = 1;
	f.nevs = 7;
	cr_assert_eq(rp_redo_mark(&f.w, &p), 0);
	cr_assert_eq(f.w.pos, 500);
	cr_assert_eq(f.w.depth, 0);
	cr_assert_eq(f.ngaps, 0);
	cr_assert_eq(f.nevs, 3);
	cr_assert_eq(f.nckpts, 2);
	cr_assert_eq(f.ckpts[1].split.offset, 9000);
	free(f.ckpts);
}

/* Only the PSB's checkpoint before the error: back to it. */
Test(idx_redo, mark_rolls_back_to_the_psb)
{
	struct rp_redo_point p = { 0 };
	struct fix f;

	fix_init(&f);
	add_ckpt(&f, 64, 0);
	f.nevs = 2;
	rp_redo_point_take(&p, &f.w);
	f.w.pos = 300;
	f.nevs = 9;
	cr_assert_eq(rp_redo_mark(&f.w, &p), 0);
	cr_assert_eq(f.w.pos, 0);
	cr_assert_eq(f.nevs, 2);
	free(f.ckpts);
}

/* The error before the checkpoint's first instruction: nothing to undo;
 * past it with no redo point, or with code mapped since, or while
 * materializing: not done.
 */
Test(idx_redo, mark_fresh_and_refused)
{
	struct rp_redo_point p = { 0 };
	struct fix f;

	fix_init(&f);
	cr_assert_eq(rp_redo_mark(&f.w, &p), 1, "no checkpoint");
	add_ckpt(&f, 64, 0);
	rp_redo_point_take(&p, &f.w);
	add_ckpt(&f, 9000, 400);
	f.nevs = 5;
	cr_assert_eq(rp_redo_mark(&f.w, &p), 0);
	cr_assert_eq(f.w.pos, 400);
	cr_assert_eq(f.nevs, 5, "the events up to the error stay");
	f.w.pos = 401;
	cr_assert_eq(rp_redo_mark(&f.w, &p), 1, "no redo point");

	f.w.pos = 400;
	rp_redo_point_take(&p, &f.w);
	f.w.world.next = 3;
	cr_assert_eq(rp_redo_mark(&f.w, &p), 1, "code mapped since");
	f.w.world.next = 0;
	f.w.seg = (struct rp_seg *)&p;
	cr_assert_eq(rp_redo_mark(&f.w, &p), 1, "materializing");
	free(f.ckpts);
}
