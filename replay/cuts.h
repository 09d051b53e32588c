/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cut points as checkpoints (issue #19): a stream with a single PSB
 * (kAFL/Nyx traces) has its index checkpoints at TIP.PGEs where tracing
 * resumes (psbscan.h finds them), each with what libipt needs to decode
 * from there behind a made-up PSB+: the IP, mode and timing (struct
 * rp_split) and the return-compression stack, which the index pass
 * models (struct rp_rstk) and the made-up start restores by running code
 * of its own (rp_cut_shim_run).  Used by the index pass (index.c) and
 * segment decoding (decode.c).
 */
#ifndef PTREC_REPLAY_CUTS_H
#define PTREC_REPLAY_CUTS_H

#include "decode.h"
#include "index.h"

#define CUT_BYTES	(8u << 10)	/* a cut-point checkpoint per this */

/*
 * Indexing a stream with cut points: a model of libipt's return stack at
 * each cut-point checkpoint, so that its segment decodes from there with
 * the returns compressed across the cut (a CPU clears its stack at a PSB
 * only, not where tracing stops and resumes).  The return addresses of
 * the calls still open since the range began (a return pops, whether
 * compressed or not: a CPU compresses one only when it goes to the top of
 * the stack, and then the model's top is the same), each return checked
 * against where it went (elsewhere: longjmp, a signal handler's return,
 * a class not known: the model is dropped, and the checkpoints after it
 * get what came after only).  Where a range began with an empty model,
 * the returns past its start are kept for index.c to check against the
 * range before it.
 */
struct rp_rsnap {			/* what checkpoint k saw */
	size_t lsize;		/* the model's size */
	size_t under;		/* returns past the range's start before */
	bool dropped;		/* what came before the range: not known */
	size_t at;		/* its top min(lsize, RP_RETSTACK) in pool */
};

struct rp_rstk {
	uint64_t *v;		/* open calls' return addresses */
	size_t n, cap;
	uint64_t *under;	/* where returns past the start went */
	size_t nunder, capunder;
	uint64_t expect;	/* a return's target, checked next */
	bool pending, pending_under;
	bool dropped;
	bool last_call;		/* the last block's call was pushed */
	bool busy;		/* any of pending, pending_under, last_call */
	struct cls_slot *lens;	/* call lengths by address */
	struct rp_rsnap *snaps;
	size_t nsnaps;
	uint64_t *pool;
	size_t npool;
};

/* The return-stack model (struct rp_rstk): block @b of class @cls (-1:
 * not known) was decoded; tracing resumed at @ip; a synchronous disable.
 * Return 0 or -RP_ERR_NOMEM.
 */
int rp_rs_block(struct walk *w, const struct pt_block *b, int cls);

/* rp_rs_block() for the blocks that change or check the model (calls,
 * returns, a class not known, the block after a call or return): inline,
 * as the index pass calls it for every block.
 */
static inline int rp_rs_step(struct walk *w, const struct pt_block *b,
			     int cls)
{
	if ((cls == ptic_call || cls == ptic_return || cls < 0 ||
	     w->rs->busy))
		return rp_rs_block(w, b, cls);
	return 0;
}
int rp_rs_enable(struct walk *w, uint64_t ip);
void rp_rs_disabled(struct walk *w);
void rp_rs_drop(struct rp_rstk *rs);
/* A snapshot for the checkpoint about to be added (rets_at = it + 1):
 * its index, or -RP_ERR_NOMEM.
 */
int rp_rs_snap(struct rp_rstk *rs);
void rp_rs_free(struct rp_rstk *rs);

/*
 * The cut points of @t that become checkpoints, in order, into *@v
 * (malloc'd) and *@n (none: NULL, 0): see cuts.c.
 */
void rp_cut_points(struct rp_session *s, struct rp_thread *t,
		   struct rp_split **v, size_t *n);

/* Whether @t's address space stays as it is from its first PSB on. */
bool rp_cut_world_static(struct rp_session *s, struct rp_thread *t);

/*
 * Indexing: enable @ev, with the decoder at @off (at the last enable:
 * @prev), may be the next cut point's: a checkpoint there.  Returns 0 or
 * a negated enum rp_error.
 */
int rp_cut_point(struct walk *w, const struct pt_event *ev, uint64_t off,
		 uint64_t prev);

/*
 * Joining ranges: range @r's cut-point checkpoints @v[0..@nv-1] get their
 * return stacks (t->rets) from the model so far, @m (*@mn of *@mcap),
 * which then moves to the range's end.  Returns 0 or -RP_ERR_NOMEM.
 */
int rp_cut_join_rets(struct rp_thread *t, const struct range *r,
		     struct rp_ckpt *v, size_t nv, uint64_t **m, size_t *mn,
		     size_t *mcap);

/* The first enable of @n events @e (a range from a split) gets libipt's
 * "resumed" flag @resumed from the decode through it.
 */
void rp_cut_resumed(struct rp_event *e, size_t n, bool resumed);

/*
 * Where the made-up start's 'jmp *%rax' goes for return stack @rets
 * (0: the stack cannot be laid out), and the run of that code after the
 * sync, to its disable (libipt's status then).
 */
uint64_t rp_cut_shim_place(const uint64_t *rets, size_t n);
int rp_cut_shim_run(struct walk *w, int status, const uint64_t *rets,
		    size_t n, uint64_t x);

#endif
