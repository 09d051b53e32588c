// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Core cycles per instruction from a stream's CYC packets (issue #21).
 * libipt 2.0 folds CYC into its time estimate and reports no count per
 * instruction, so this walks the packets by their headers (ptkit's
 * ptkit_pkt_len(), far cheaper than decoding them) between the decoder
 * offsets the instruction decoder had after each instruction (struct
 * rp_insn's pkt_end).  Only for the instructions a front end shows: the
 * index pass does none of it.
 */
#include <stdbool.h>
#include <stdint.h>
#include "ptkit.h"
#include "rp_internal.h"

/*
 * CYC (SDM Vol. 3C 33.4.2.14): header bits 1:0 = 11, bit 2 = Exp, bits
 * 7:3 the counter's low 5 bits; while Exp, each next byte gives 7 more
 * (bits 7:1) and its bit 0 says whether another follows.  No other
 * packet's first byte ends in 11.
 */
static uint64_t cyc_value(const uint8_t *p, size_t len)
{
	uint64_t v = p[0] >> 3;
	unsigned int shift = 5;
	size_t i;

	for (i = 1; i < len && shift < 64; i++, shift += 7)
		v |= (uint64_t)(p[i] >> 1) << shift;
	return v;
}

/* How many of @t's PSBs lie at or before @off. */
static size_t psbs_upto(const struct rp_thread *t, uint64_t off)
{
	size_t lo = 0, hi = t->npsbs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->psbs[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last PSB at or before @off (0 when none is). */
static uint64_t psb_before(const struct rp_thread *t, uint64_t off)
{
	size_t n = psbs_upto(t, off);

	return n ? t->psbs[n - 1].offset : 0;
}

/* The first PSB after @off (the stream's end when none is). */
static uint64_t psb_after(const struct rp_thread *t, uint64_t off)
{
	size_t n = psbs_upto(t, off);

	return n < t->npsbs ? t->psbs[n].offset : t->pt_size;
}

int rp_insn_cycles(const struct rp_session *s, uint32_t tid,
		   struct rp_cycles *cy, const struct rp_insn *prev,
		   const struct rp_insn *insn, uint64_t *cycles)
{
	const struct rp_thread *t = rp_find_thread(s, tid);
	uint64_t from, to, sum = 0, psb;

	*cycles = 0;
	if (!t)
		return -RP_ERR_NOTHREAD;
	/* CYC was on: every instruction has a count, 0 included. */
	if (s->m && (s->m->pt.features & SB_PT_CYC))
		cy->on = true;
	from = prev ? prev->pkt_end : 0;
	to = insn->pkt_end;
	if (to > t->pt_size)
		to = t->pt_size;
	if (!to || from >= to)
		return 0;
	psb = psb_before(t, from);
	if (!cy->started || cy->tid != tid || from < cy->last_to ||
	    psb > cy->off) {
		/* A PSB gives out what came before it: start clean there. */
		cy->started = true;
		cy->tid = tid;
		cy->off = psb;
		cy->acc = 0;
	}
	cy->last_to = to;
	while (cy->off < to) {
		const uint8_t *p = t->pt + cy->off;
		size_t len = ptkit_pkt_len(p, t->pt_size - cy->off);

		if (!len || len > t->pt_size - cy->off) {
			/* Bytes no header explains: on at the next PSB. */
			cy->off = psb_after(t, cy->off);
			cy->acc = 0;
			continue;
		}
		if ((p[0] & 3) == 3) {
			cy->acc += cyc_value(p, len);
			cy->on = true;
		} else if (p[0]) {	/* not PAD: the packet CYC went with */
			if (cy->off >= from)
				sum += cy->acc;
			cy->acc = 0;
		}
		cy->off += len;
	}
	*cycles = sum;
	return 0;
}
