// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * blksrc: the index pass's blocks from libipt's block decoder or from the
 * flow walker, one interface for both (blksrc.h), so that index.c,
 * idx_redo.c and decode.c call one set of functions wherever they drove
 * pt_blk_* before.
 */
#include <stdlib.h>
#include <string.h>

#include "blksrc.h"

struct rp_bsrc {
	struct pt_block_decoder *bd;	/* either this, */
	struct rp_fwalk *fw;		/* or this */
	int err;		/* the walker's error after a unit, */
	uint64_t err_ip;	/* where it stopped */
	bool refused;
};

struct rp_bsrc *rp_bsrc_new(const struct pt_config *cfg, bool walker,
			    rp_fwalk_read_fn read, void *read_ctx)
{
	struct rp_bsrc *bs = calloc(1, sizeof(*bs));
	struct pt_config icfg = *cfg;

	if (!bs)
		return NULL;
	/* The walker follows the instruction decoder, whose flags share
	 * bits with the block decoder's (insn.enable_tick_events is
	 * block.end_on_call); NULL also for what it does not follow
	 * (address filters).
	 */
	memset(&icfg.flags, 0, sizeof(icfg.flags));
	if (walker && read)
		bs->fw = rp_fwalk_new(&icfg, read, read_ctx);
	if (bs->fw)
		rp_fwalk_set_units(bs->fw, true);
	else
		bs->bd = pt_blk_alloc_decoder(cfg);
	if (!bs->fw && !bs->bd) {
		free(bs);
		return NULL;
	}
	return bs;
}

void rp_bsrc_free(struct rp_bsrc *bs)
{
	if (!bs)
		return;
	pt_blk_free_decoder(bs->bd);
	rp_fwalk_free(bs->fw);
	free(bs);
}

bool rp_bsrc_is_walker(const struct rp_bsrc *bs)
{
	return bs->fw != NULL;
}

bool rp_bsrc_refused(const struct rp_bsrc *bs)
{
	return bs->refused;
}

/* Every status the walker returns passes here. */
static int seen(struct rp_bsrc *bs, int status)
{
	if (status == -pte_not_supported)
		bs->refused = true;
	return status;
}

int rp_bsrc_set_image(struct rp_bsrc *bs, struct pt_image *image)
{
	if (bs->bd)
		return pt_blk_set_image(bs->bd, image);
	rp_fwalk_flush(bs->fw);
	return 0;
}

int rp_bsrc_sync_set(struct rp_bsrc *bs, uint64_t off)
{
	if (bs->bd)
		return pt_blk_sync_set(bs->bd, off);
	bs->err = 0;
	return seen(bs, rp_fwalk_sync_set(bs->fw, off));
}

int rp_bsrc_sync_forward(struct rp_bsrc *bs)
{
	if (bs->bd)
		return pt_blk_sync_forward(bs->bd);
	bs->err = 0;
	return seen(bs, rp_fwalk_sync_forward(bs->fw));
}

int rp_bsrc_get_offset(const struct rp_bsrc *bs, uint64_t *off)
{
	return bs->bd ? pt_blk_get_offset(bs->bd, off) :
			rp_fwalk_get_offset(bs->fw, off);
}

int rp_bsrc_get_sync_offset(const struct rp_bsrc *bs, uint64_t *off)
{
	return bs->bd ? pt_blk_get_sync_offset(bs->bd, off) :
			rp_fwalk_get_sync_offset(bs->fw, off);
}

int rp_bsrc_next(struct rp_bsrc *bs, struct pt_block *b)
{
	enum pt_insn_class iclass;
	uint64_t n = 0;
	int status;

	if (bs->bd)
		return pt_blk_next(bs->bd, b, sizeof(*b));
	b->mode = ptem_64bit;	/* the only mode the walker follows */
	b->isid = 0;
	b->speculative = 0;
	b->truncated = 0;
	b->iclass = ptic_other;
	if (bs->err) {
		/* The error after the last unit, on its own. */
		status = bs->err;
		bs->err = 0;
		b->ip = b->end_ip = bs->err_ip;
		b->ninsn = 0;
		return status;
	}
	b->ip = rp_fwalk_ip(bs->fw);
	status = seen(bs, rp_fwalk_next(bs->fw, &n, NULL, NULL));
	b->ninsn = (uint16_t)n;
	if (status < 0 && n) {
		/* What pt_insn_next() delivered before the error is the
		 * unit (its last instruction neither a call nor a return:
		 * those end units), the error comes next.
		 */
		bs->err = status;
		bs->err_ip = rp_fwalk_ip(bs->fw);
		b->end_ip = b->ip;
		return 0;
	}
	if (status < 0) {
		b->end_ip = b->ip;
		return status;
	}
	rp_fwalk_last(bs->fw, &b->end_ip, &iclass);
	b->iclass = iclass;
	return status;
}

int rp_bsrc_event(struct rp_bsrc *bs, struct pt_event *ev)
{
	if (bs->bd)
		return pt_blk_event(bs->bd, ev, sizeof(*ev));
	return seen(bs, rp_fwalk_event(bs->fw, ev));
}
