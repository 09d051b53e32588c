// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fwalk: libipt's instruction-decoder semantics (pt_insn_next and
 * pt_insn_event of libipt 2.0, which the plain loop ptrec must match
 * uses), with each basic block decoded once into a cache (fwalk.h).
 *
 * Why it can be faster than libipt's own decoders: pt_insn_next decodes
 * every instruction each time it runs (550-580 Ir an instruction on the
 * real traces), pt_blk_next walks its block cache and checks each block
 * (75-250; docs/performance.md "A block-cache flow walker").  Here a block with
 * no event pending is one hash lookup and one query of the packet
 * decoder at its end: the instructions before its last one cannot change
 * the flow, bind no event, and read no trace.  The block's last
 * instruction, and every instruction while an event is pending, take the
 * slow path, which follows libipt's decoder step by step (the same
 * queries in the same order, so the same packets are read and the same
 * errors seen).
 *
 * What it does not do (caller's fallback): 16- and 32-bit code
 * (-pte_not_supported), libipt's erratum BDM64 on TSX aborts after a
 * branch (-pte_not_supported), address-filter configurations (SKL014:
 * rp_fwalk_new() refuses) and tick events.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fwalk.h"

/* libipt's return-compression stack: 64 entries. */
#define FW_RETSTACK	64
/* Instructions in one cached block at most (sizes fit a byte each). */
#define FW_MAXBLK	256


/*
 * A basic block: @ninsn instructions from @ip, every one but the last a
 * plain ptic_other one (@sizes in the pool); the last is @last.  A block
 * with no instruction holds the decode error at @ip (@err).  @succ: the
 * blocks (index + 1, 0 until first followed) after it when its last
 * instruction falls through ([0]) or branches to its direct target ([1]),
 * so that following a TNT bit or a direct jump needs no lookup (libxdc's
 * trick).
 */
struct fw_block {
	uint64_t ip;
	struct rp_fwalk_insn last;
	uint32_t ninsn;
	uint32_t sizes;		/* index in the pool */
	uint32_t succ[2];
	int32_t err;
};

struct rp_fwalk {
	struct pt_query_decoder *qry;
	struct pt_config cfg;
	rp_fwalk_read_fn read;
	void *read_ctx;
	rp_fwalk_ild_fn ild;

	/* The decoder's state (libipt's struct pt_insn_decoder's). */
	uint64_t ip;
	enum pt_exec_mode mode;
	int status;
	bool enabled, process_event, process_insn, speculative;
	bool bound_paging, bound_vmcs, bound_ptwrite;
	struct pt_event event;
	struct rp_fwalk_insn insn;		/* the postponed one */
	uint64_t rs[FW_RETSTACK + 1];
	uint8_t rs_top, rs_bottom;

	/* The block cache: blocks, and a hash table of their start
	 * addresses (open addressing; index + 1, 0 free).
	 */
	struct fw_block *blocks;
	size_t nblocks, capblocks;
	uint32_t *tab;
	size_t cap;
	/* Code bytes read ahead for decoding blocks. */
	uint8_t code[512];
	uint64_t code_ip;
	size_t code_len;
	uint8_t *pool;
	size_t npool, cappool;
	uint64_t decoded;
	/* The index pass's units (rp_fwalk_set_units()): the last
	 * instruction delivered, its address and class.
	 */
	bool units;
	uint8_t last_class;
	uint64_t last_ip;
};

/* The return stack (as libipt's: a ring that forgets its oldest entry). */
static void rs_push(struct rp_fwalk *fw, uint64_t ip)
{
	fw->rs[fw->rs_top] = ip;
	fw->rs_top = (uint8_t)((fw->rs_top + 1) % (FW_RETSTACK + 1));
	if (fw->rs_top == fw->rs_bottom)
		fw->rs_bottom = (uint8_t)((fw->rs_bottom + 1) %
					  (FW_RETSTACK + 1));
}

static int rs_pop(struct rp_fwalk *fw, uint64_t *ip)
{
	if (fw->rs_top == fw->rs_bottom)
		return -pte_retstack_empty;
	fw->rs_top = (uint8_t)(fw->rs_top ? fw->rs_top - 1 : FW_RETSTACK);
	*ip = fw->rs[fw->rs_top];
	return 0;
}

/* ---- The block cache */

static size_t slot_of(const struct rp_fwalk *fw, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (fw->cap - 1);
}

static int grow(struct rp_fwalk *fw)
{
	size_t cap = fw->cap ? fw->cap * 2 : 4096, i, j;
	uint32_t *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -pte_nomem;
	free(fw->tab);
	fw->tab = tab;
	fw->cap = cap;
	for (i = 0; i < fw->nblocks; i++) {
		for (j = slot_of(fw, fw->blocks[i].ip); fw->tab[j];
		     j = (j + 1) & (fw->cap - 1))
			;
		fw->tab[j] = (uint32_t)i + 1;
	}
	return 0;
}

static int pool_add(struct rp_fwalk *fw, uint8_t size)
{
	if (fw->npool == fw->cappool) {
		size_t cap = fw->cappool ? fw->cappool * 2 : 65536;
		uint8_t *p = realloc(fw->pool, cap);

		if (!p)
			return -pte_nomem;
		fw->pool = p;
		fw->cappool = cap;
	}
	fw->pool[fw->npool++] = size;
	return 0;
}

/*
 * The instruction at @in->ip, as pt_insn_decode() finds it: -pte_nomap
 * when no byte of it is mapped, -pte_bad_insn when the bytes are no
 * instruction (or end early).  Reads code ahead (fw->code).
 */
static int decode_insn(struct rp_fwalk *fw, struct rp_fwalk_insn *in)
{
	uint64_t off = in->ip - fw->code_ip;
	int got;

	/*
	 * Nothing read ahead (a new walker, or rp_fwalk_flush() after the
	 * caller's image changed) is read now, also at the very address the
	 * bytes read last began at: there @off is 0, code_len's 0, and the
	 * instruction was taken for unmapped (the index pass's world moves
	 * at an enable at the IP tracing was disabled at: review4.c execmt,
	 * a decode gap in 2 of 3 recordings).
	 */
	if (!fw->code_len || in->ip < fw->code_ip || off > fw->code_len ||
	    (fw->code_len - off < pt_max_insn_size &&
	     fw->code_len == sizeof(fw->code))) {
		fw->code_ip = in->ip;
		fw->code_len = 0;
		off = 0;
		while (fw->code_len < sizeof(fw->code)) {
			got = fw->read(fw->read_ctx, fw->code + fw->code_len,
				       sizeof(fw->code) - fw->code_len,
				       in->ip + fw->code_len);
			if (got <= 0) {
				if (!fw->code_len)
					return got < 0 ? got : -pte_nomap;
				break;
			}
			fw->code_len += (size_t)got;
		}
	}
	if (off == fw->code_len)
		return -pte_nomap;
	return fw->ild(fw->code + off, fw->code_len - off, in);
}

/* Decodes the block at @ip into @b. */
static int fill(struct rp_fwalk *fw, uint64_t ip, struct fw_block *b)
{
	struct rp_fwalk_insn in;
	int ret;

	memset(b, 0, sizeof(*b));
	b->ip = ip;
	b->sizes = (uint32_t)fw->npool;
	fw->decoded++;
	for (;;) {
		in.ip = ip;
		ret = decode_insn(fw, &in);
		if (ret < 0) {
			/* Past its first: the next block holds the error. */
			if (!b->ninsn)
				b->err = ret;
			return 0;
		}
		b->last = in;
		b->ninsn++;
		if (in.iclass != ptic_other || in.flags ||
		    b->ninsn == FW_MAXBLK)
			return 0;
		ret = pool_add(fw, in.size);
		if (ret < 0)
			return ret;
		ip += in.size;
	}
}

/* The block at @ip (decoded on first use): its index + 1, 0 out of memory. */
static uint32_t block_find(struct rp_fwalk *fw, uint64_t ip)
{
	size_t i;
	uint32_t k;

	if (fw->cap) {
		for (i = slot_of(fw, ip); (k = fw->tab[i]) != 0;
		     i = (i + 1) & (fw->cap - 1))
			if (fw->blocks[k - 1].ip == ip)
				return k;
	}
	if ((fw->nblocks + 1) * 2 > fw->cap && grow(fw) < 0)
		return 0;
	if (fw->nblocks == fw->capblocks) {
		size_t cap = fw->capblocks ? fw->capblocks * 2 : 1024;
		struct fw_block *p = realloc(fw->blocks, cap * sizeof(*p));

		if (!p)
			return 0;
		fw->blocks = p;
		fw->capblocks = cap;
	}
	if (fill(fw, ip, &fw->blocks[fw->nblocks]) < 0)
		return 0;
	for (i = slot_of(fw, ip); fw->tab[i]; i = (i + 1) & (fw->cap - 1))
		;
	fw->tab[i] = (uint32_t)++fw->nblocks;
	return fw->tab[i];
}

static const struct fw_block *block_at(struct rp_fwalk *fw, uint64_t ip)
{
	uint32_t k = block_find(fw, ip);

	return k ? &fw->blocks[k - 1] : NULL;
}

/* The instruction at @ip, as pt_insn_next() decodes it. */
static int insn_at(struct rp_fwalk *fw, uint64_t ip, struct rp_fwalk_insn *in)
{
	const struct fw_block *b;

	if (fw->mode != ptem_64bit)
		return fw->mode == ptem_unknown ? -pte_bad_insn :
						  -pte_not_supported;
	b = block_at(fw, ip);
	if (!b)
		return -pte_nomem;
	if (!b->ninsn)
		return b->err;
	if (b->ninsn == 1) {
		*in = b->last;
		return 0;
	}
	in->ip = ip;
	in->size = fw->pool[b->sizes];
	in->iclass = ptic_other;
	in->flags = 0;
	in->disp = 0;
	return 0;
}

/* ---- libipt's instruction-decoder steps */

static bool is_far(const struct rp_fwalk_insn *in)
{
	return in->iclass == ptic_far_call || in->iclass == ptic_far_return ||
	       in->iclass == ptic_far_jump;
}

static bool is_branch(const struct rp_fwalk_insn *in)
{
	return in->iclass != ptic_other && in->iclass != ptic_ptwrite &&
	       in->iclass != ptic_error;
}

static int status_of(const struct rp_fwalk *fw, int flags)
{
	if (!fw->enabled)
		flags |= pts_ip_suppressed;
	if ((fw->status & pts_eos) && !fw->process_event)
		flags |= pts_eos;
	return flags;
}

static int event_pending(struct rp_fwalk *fw)
{
	int status;

	if (fw->process_event)
		return 1;
	if (!(fw->status & pts_event_pending))
		return 0;
	status = pt_qry_event(fw->qry, &fw->event, sizeof(fw->event));
	if (status < 0)
		return status;
	fw->process_event = true;
	fw->status = status;
	return 1;
}

static int proceed(struct rp_fwalk *fw, const struct rp_fwalk_insn *in)
{
	int status, taken;

	fw->ip += in->size;
	switch (in->iclass) {
	case ptic_ptwrite:
	case ptic_other:
		return 0;
	case ptic_cond_jump:
		status = pt_qry_cond_branch(fw->qry, &taken);
		if (status < 0)
			return status;
		fw->status = status;
		if (!taken)
			return 0;
		break;
	case ptic_call:
		/* Not a call to the next instruction (PIC's get-IP). */
		if (in->disp || !(in->flags & RP_FWF_DIRECT))
			rs_push(fw, fw->ip);
		break;
	case ptic_return:
		/* A compressed return is a taken TNT bit. */
		status = pt_qry_cond_branch(fw->qry, &taken);
		if (status >= 0) {
			fw->status = status;
			if (!taken)
				return -pte_bad_retcomp;
			return rs_pop(fw, &fw->ip);
		}
		break;
	case ptic_jump:
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		break;
	default:
		return -pte_bad_insn;
	}
	if (in->flags & RP_FWF_DIRECT) {
		fw->ip += (uint64_t)(int64_t)in->disp;
		return 0;
	}
	status = pt_qry_indirect_branch(fw->qry, &fw->ip);
	if (status < 0)
		return status;
	fw->status = status;
	if (status & pts_ip_suppressed)
		return -pte_noip;
	return 0;
}

static int at_disabled_event(const struct pt_event *ev,
			     const struct rp_fwalk_insn *in)
{
	if (ev->ip_suppressed)
		return is_far(in) || (in->flags & (RP_FWF_CPL | RP_FWF_CR3));
	switch (in->iclass) {
	case ptic_ptwrite:
	case ptic_other:
		return 0;
	case ptic_call:
	case ptic_jump:
		/* A direct one elsewhere than the event's IP: not it. */
		if ((in->flags & RP_FWF_DIRECT) &&
		    in->ip + in->size + (uint64_t)(int64_t)in->disp !=
		    ev->variant.disabled.ip)
			return 0;
		return 1;
	case ptic_error:
		return -pte_bad_insn;
	default:
		return 1;
	}
}

static int postpone(struct rp_fwalk *fw, const struct rp_fwalk_insn *in)
{
	if (!fw->process_insn) {
		fw->process_insn = true;
		fw->insn = *in;
	}
	return status_of(fw, pts_event_pending);
}

static void clear_postponed(struct rp_fwalk *fw)
{
	fw->process_insn = false;
	fw->bound_paging = fw->bound_vmcs = fw->bound_ptwrite = false;
}

static int check_insn_event(struct rp_fwalk *fw, const struct rp_fwalk_insn *in)
{
	struct pt_event *ev = &fw->event;
	int status = event_pending(fw);

	if (status <= 0)
		return status;
	switch (ev->type) {
	case ptev_disabled:
		status = at_disabled_event(ev, in);
		if (status <= 0)
			return status;
		/* Where tracing is expected to resume. */
		fw->ip = in->ip + in->size;
		switch (in->iclass) {
		case ptic_ptwrite:
		case ptic_other:
			break;
		case ptic_call:
		case ptic_jump:
			if (in->flags & RP_FWF_DIRECT) {
				fw->ip += (uint64_t)(int64_t)in->disp;
				break;
			}
			/* fall through */
		default:
			/* Unknown; an indirect call returns after itself. */
			if (in->iclass != ptic_call &&
			    in->iclass != ptic_far_call)
				fw->ip = 0;
			break;
		}
		break;
	case ptev_paging:
		if (fw->bound_paging ||
		    !(is_far(in) || (in->flags & (RP_FWF_CR3 | RP_FWF_VMLR))))
			return 0;
		fw->bound_paging = true;
		return postpone(fw, in);
	case ptev_vmcs:
		if (fw->bound_vmcs ||
		    !(is_far(in) || (in->flags & (RP_FWF_VMPTRLD | RP_FWF_VMLR))))
			return 0;
		fw->bound_vmcs = true;
		return postpone(fw, in);
	case ptev_ptwrite:
		if (fw->bound_ptwrite)
			return 0;
		if (ev->ip_suppressed) {
			if (in->iclass != ptic_ptwrite)
				return 0;
			ev->variant.ptwrite.ip = fw->ip;
			ev->ip_suppressed = 0;
		} else if (fw->ip != ev->variant.ptwrite.ip) {
			return 0;
		}
		fw->bound_ptwrite = true;
		return postpone(fw, in);
	default:
		/* Only the above bind to instructions. */
		return 0;
	}
	return status_of(fw, pts_event_pending);
}

/* libipt's erratum SKD022: an async disable at VMLAUNCH/VMRESUME. */
static int skd022(struct rp_fwalk *fw)
{
	struct rp_fwalk_insn in;

	if (insn_at(fw, fw->ip, &in) < 0 || !(in.flags & RP_FWF_VMLR))
		return 0;
	fw->event.type = ptev_disabled;
	fw->event.variant.disabled.ip = fw->event.variant.async_disabled.ip;
	return 1;
}

static int check_ip_event(struct rp_fwalk *fw, const struct rp_fwalk_insn *in)
{
	const struct pt_event *ev = &fw->event;
	int status = event_pending(fw);

	if (status <= 0)
		return status < 0 ? status : status_of(fw, 0);
	switch (ev->type) {
	case ptev_disabled:
		break;
	case ptev_async_disabled:
		if (ev->variant.async_disabled.at != fw->ip)
			break;
		if (fw->cfg.errata.skd022 && skd022(fw))
			break;
		return status_of(fw, pts_event_pending);
	case ptev_tsx:
		if (ev->ip_suppressed)
			return status_of(fw, pts_event_pending);
		if (in && fw->cfg.errata.bdm64 && ev->variant.tsx.aborted &&
		    is_branch(in))
			return -pte_not_supported;
		if (fw->ip != ev->variant.tsx.ip)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_async_branch:
		if (ev->variant.async_branch.from != fw->ip)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_exec_mode:
		if (!ev->ip_suppressed && ev->variant.exec_mode.ip != fw->ip)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_paging:
	case ptev_vmcs:
	case ptev_ptwrite:
		if (fw->enabled)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_async_paging:
		if (!ev->ip_suppressed && ev->variant.async_paging.ip != fw->ip)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_async_vmcs:
		if (!ev->ip_suppressed && ev->variant.async_vmcs.ip != fw->ip)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_exstop:
		if (!ev->ip_suppressed && fw->enabled &&
		    fw->ip != ev->variant.exstop.ip)
			break;
		return status_of(fw, pts_event_pending);
	case ptev_mwait:
		if (!ev->ip_suppressed && fw->enabled &&
		    fw->ip != ev->variant.mwait.ip)
			break;
		return status_of(fw, pts_event_pending);
	default:
		/* enabled, overflow, stop, pwre, pwrx, tick, cbr, mnt */
		return status_of(fw, pts_event_pending);
	}
	return status_of(fw, 0);
}

/* One instruction, as pt_insn_next() after its decode: 1 if delivered. */
static int step(struct rp_fwalk *fw, const struct rp_fwalk_insn *in,
		int *status)
{
	int st = check_insn_event(fw, in);

	if (st != 0) {
		*status = st;
		if (st < 0)
			return 0;
		if (st & pts_event_pending)
			return 1;
	}
	st = proceed(fw, in);
	if (st < 0) {
		*status = st;
		return 0;
	}
	*status = check_ip_event(fw, in);
	return *status >= 0;
}

/* The block's instructions before its last, to @insn_fn. */
static void each_inner(const struct rp_fwalk *fw, const struct fw_block *b,
		       rp_fwalk_insn_fn insn_fn, void *ctx)
{
	const uint8_t *sz = fw->pool + b->sizes;
	uint64_t ip = b->ip;
	uint32_t i;

	for (i = 0; i + 1 < b->ninsn; i++) {
		insn_fn(ctx, ip);
		ip += sz[i];
	}
}

/*
 * Blocks, while no event is pending and the stream is not at its end:
 * the instructions before a block's last are delivered as pt_insn_next()
 * would, one by one, with nothing to query and no event to bind; the
 * last one binds no event either (none pending), so it only proceeds.
 * Returns what pt_insn_next() returns after the last instruction, at the
 * latest after FW_RUN blocks: on damaged input code can loop without
 * trace ('jmp .'), and the caller decides when that is a stall.
 */
#define FW_RUN	4096

static int run_blocks(struct rp_fwalk *fw, uint64_t *ninsn,
		      rp_fwalk_insn_fn insn_fn, void *ctx)
{
	uint32_t k = block_find(fw, fw->ip), next, run;
	const struct rp_fwalk_insn *in;
	const struct fw_block *b;
	uint64_t n = *ninsn, last_ip;
	int status, slot, taken;

	for (run = 0;; run++) {
		if (!k) {
			status = -pte_nomem;
			break;
		}
		b = &fw->blocks[k - 1];
		if (!b->ninsn) {
			status = b->err;
			break;
		}
		if (insn_fn)
			each_inner(fw, b, insn_fn, ctx);
		n += b->ninsn - 1;
		in = &b->last;
		/*
		 * Its last instruction proceeds; the next block is known
		 * from last time when it is the fall-through ([0]) or the
		 * direct target ([1]).  A conditional jump is the common
		 * case: its TNT bit here, everything else in proceed().
		 */
		last_ip = in->ip;
		if (in->iclass == ptic_cond_jump) {
			fw->ip = in->ip + in->size;
			status = pt_qry_cond_branch(fw->qry, &taken);
			if (status < 0)
				break;
			fw->status = status;
			if (taken)
				fw->ip += (uint64_t)(int64_t)in->disp;
			slot = taken;
		} else {
			fw->ip = in->ip;
			status = proceed(fw, in);
			if (status < 0)
				break;
			slot = in->iclass == ptic_other ? 0 :
			       in->flags & RP_FWF_DIRECT ? 1 : -1;
		}
		if (fw->status & (pts_event_pending | pts_eos)) {
			fw->last_ip = last_ip;
			fw->last_class = in->iclass;
			/* (SKD022 may decode a block: @in may move.) */
			status = check_ip_event(fw, in);
			if (status >= 0) {
				if (insn_fn)
					insn_fn(ctx, last_ip);
				n++;
			}
			break;
		}
		if (insn_fn)
			insn_fn(ctx, last_ip);
		n++;
		fw->last_ip = last_ip;
		fw->last_class = in->iclass;
		/* A unit fits pt_block's 16-bit count. */
		if (fw->units && ((in->iclass != ptic_cond_jump &&
				   in->iclass != ptic_other) ||
				  n - *ninsn > UINT16_MAX - FW_MAXBLK)) {
			status = status_of(fw, 0);
			break;
		}
		if (run == FW_RUN) {
			status = status_of(fw, 0);
			break;
		}
		if (slot < 0) {
			next = block_find(fw, fw->ip);
		} else if (!(next = b->succ[slot])) {
			next = block_find(fw, fw->ip);
			fw->blocks[k - 1].succ[slot] = next;
		}
		k = next;
	}
	*ninsn = n;
	return status;
}

int rp_fwalk_next(struct rp_fwalk *fw, uint64_t *ninsn,
		  rp_fwalk_insn_fn insn_fn, void *ctx)
{
	struct rp_fwalk_insn in;
	int status;

	if (!fw->enabled)
		return fw->status & pts_eos ? -pte_eos : -pte_no_enable;
	if (!fw->process_event &&
	    !(fw->status & (pts_event_pending | pts_eos)) &&
	    fw->mode == ptem_64bit)
		return run_blocks(fw, ninsn, insn_fn, ctx);
	status = insn_at(fw, fw->ip, &in);
	if (status < 0)
		return status;
	if (step(fw, &in, &status)) {
		if (insn_fn)
			insn_fn(ctx, in.ip);
		++*ninsn;
		fw->last_ip = in.ip;
		fw->last_class = in.iclass;
	}
	return status;
}

int rp_fwalk_event(struct rp_fwalk *fw, struct pt_event *uev)
{
	struct pt_event *ev = &fw->event;
	int status;

	if (!fw->process_event)
		return -pte_bad_query;
	switch (ev->type) {
	case ptev_enabled:
		if (fw->ip == ev->variant.enabled.ip)
			ev->variant.enabled.resumed = 1;
		if (ev->status_update)
			return -pte_bad_context;
		if (ev->ip_suppressed)
			return -pte_noip;
		if (fw->enabled)
			return -pte_bad_context;
		fw->ip = ev->variant.enabled.ip;
		fw->enabled = true;
		break;
	case ptev_async_disabled:
		if (!ev->ip_suppressed &&
		    fw->ip != ev->variant.async_disabled.at)
			return -pte_bad_query;
		/* fall through */
	case ptev_disabled:
		if (ev->status_update || !fw->enabled)
			return -pte_bad_context;
		fw->enabled = false;
		break;
	case ptev_async_branch:
		if (fw->ip != ev->variant.async_branch.from)
			return -pte_bad_query;
		if (ev->status_update || !fw->enabled)
			return -pte_bad_context;
		fw->ip = ev->variant.async_branch.to;
		break;
	case ptev_async_paging:
		if (!ev->ip_suppressed && fw->ip != ev->variant.async_paging.ip)
			return -pte_bad_query;
		break;
	case ptev_async_vmcs:
		if (!ev->ip_suppressed && fw->ip != ev->variant.async_vmcs.ip)
			return -pte_bad_query;
		break;
	case ptev_overflow:
		if (ev->status_update)
			return -pte_bad_context;
		if (ev->ip_suppressed) {
			fw->enabled = false;
			fw->ip = 0;
		} else {
			fw->ip = ev->variant.overflow.ip;
			fw->enabled = true;
		}
		fw->speculative = false;
		break;
	case ptev_exec_mode:
		if (ev->status_update && fw->enabled &&
		    fw->mode != ptem_unknown &&
		    fw->mode != ev->variant.exec_mode.mode)
			return -pte_bad_status_update;
		fw->mode = ev->variant.exec_mode.mode;
		break;
	case ptev_tsx:
		fw->speculative = ev->variant.tsx.speculative;
		break;
	case ptev_stop:
		if (ev->status_update || fw->enabled)
			return -pte_bad_context;
		break;
	case ptev_exstop:
		if (!ev->ip_suppressed && fw->enabled &&
		    fw->ip != ev->variant.exstop.ip)
			return -pte_bad_query;
		break;
	case ptev_mwait:
		if (!ev->ip_suppressed && fw->enabled &&
		    fw->ip != ev->variant.mwait.ip)
			return -pte_bad_query;
		break;
	case ptev_paging:
	case ptev_vmcs:
	case ptev_pwre:
	case ptev_pwrx:
	case ptev_ptwrite:
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		break;
	default:
		return -pte_bad_query;
	}
	if (uev)
		*uev = *ev;
	fw->process_event = false;
	if (fw->process_insn) {
		status = check_insn_event(fw, &fw->insn);
		if (status != 0) {
			if (status < 0)
				return status;
			if (status & pts_event_pending)
				return status;
		}
		if (fw->enabled) {
			status = proceed(fw, &fw->insn);
			if (status < 0)
				return status;
		}
		clear_postponed(fw);
	}
	return check_ip_event(fw, NULL);
}

/* As pt_insn_reset(), then pt_insn_start() on what a sync returned. */
static void reset(struct rp_fwalk *fw)
{
	fw->mode = ptem_unknown;
	fw->ip = 0;
	fw->status = 0;
	fw->enabled = fw->process_event = fw->speculative = false;
	clear_postponed(fw);
	fw->rs_top = fw->rs_bottom = 0;
}

static int start(struct rp_fwalk *fw, int status)
{
	if (status < 0)
		return status;
	fw->status = status;
	if (!(status & pts_ip_suppressed))
		fw->enabled = true;
	return check_ip_event(fw, NULL);
}

int rp_fwalk_sync_forward(struct rp_fwalk *fw)
{
	reset(fw);
	return start(fw, pt_qry_sync_forward(fw->qry, &fw->ip));
}

int rp_fwalk_sync_set(struct rp_fwalk *fw, uint64_t off)
{
	reset(fw);
	return start(fw, pt_qry_sync_set(fw->qry, &fw->ip, off));
}

int rp_fwalk_get_offset(const struct rp_fwalk *fw, uint64_t *off)
{
	return pt_qry_get_offset(fw->qry, off);
}

int rp_fwalk_get_sync_offset(const struct rp_fwalk *fw, uint64_t *off)
{
	return pt_qry_get_sync_offset(fw->qry, off);
}

void rp_fwalk_set_units(struct rp_fwalk *fw, bool on)
{
	fw->units = on;
}

uint64_t rp_fwalk_ip(const struct rp_fwalk *fw)
{
	return fw->ip;
}

enum pt_exec_mode rp_fwalk_mode(const struct rp_fwalk *fw)
{
	return fw->mode;
}

void rp_fwalk_last(const struct rp_fwalk *fw, uint64_t *ip,
		   enum pt_insn_class *iclass)
{
	*ip = fw->last_ip;
	*iclass = (enum pt_insn_class)fw->last_class;
}

int rp_fwalk_run(struct rp_fwalk *fw, uint64_t *insns, uint64_t *errors,
		 rp_fwalk_insn_fn insn_fn, rp_fwalk_event_fn ev_fn, void *ctx)
{
	struct pt_event ev;
	int status = rp_fwalk_sync_forward(fw);

	*insns = *errors = 0;
	while (status != -pte_eos) {
		if (status < 0) {
			if (status == -pte_nomem || status == -pte_not_supported)
				return status;
			++*errors;
			status = rp_fwalk_sync_forward(fw);
			continue;
		}
		while (status & pts_event_pending) {
			status = rp_fwalk_event(fw, &ev);
			if (status < 0)
				break;
			if (ev_fn)
				ev_fn(ctx, &ev);
		}
		if (status < 0)
			continue;
		if (status & pts_eos)
			break;
		status = rp_fwalk_next(fw, insns, insn_fn, ctx);
	}
	return 0;
}

struct rp_fwalk *rp_fwalk_new(const struct pt_config *cfg,
			      rp_fwalk_read_fn read, void *read_ctx)
{
	struct rp_fwalk *fw;

	/* SKL014's filter check and tick events: not followed here. */
	if (cfg->addr_filter.config.addr_cfg ||
	    cfg->flags.variant.insn.enable_tick_events)
		return NULL;
	fw = calloc(1, sizeof(*fw));
	if (!fw)
		return NULL;
	fw->cfg = *cfg;
	fw->read = read;
	fw->read_ctx = read_ctx;
	fw->ild = rp_fwalk_ild;
	fw->qry = pt_qry_alloc_decoder(cfg);
	if (!fw->qry) {
		free(fw);
		return NULL;
	}
	return fw;
}

void rp_fwalk_set_ild(struct rp_fwalk *fw, rp_fwalk_ild_fn ild)
{
	fw->ild = ild;
}

void rp_fwalk_flush(struct rp_fwalk *fw)
{
	if (fw->tab)
		memset(fw->tab, 0, fw->cap * sizeof(*fw->tab));
	fw->nblocks = 0;
	fw->npool = 0;
	fw->code_len = 0;
}

void rp_fwalk_free(struct rp_fwalk *fw)
{
	if (!fw)
		return;
	pt_qry_free_decoder(fw->qry);
	free(fw->tab);
	free(fw->blocks);
	free(fw->pool);
	free(fw);
}

uint64_t rp_fwalk_blocks_decoded(const struct rp_fwalk *fw)
{
	return fw->decoded;
}
