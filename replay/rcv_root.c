// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where brk(2) may write (issue #17, docs/values.md "What brk writes").
 * A brk whose result the engine does not know (glibc's sbrk: brk(0), then
 * brk(__curbrk + n)) was a barrier for every memory question, which with
 * a malloc early in a history ends most of them.  What it changes is
 * bounded by the machine: brk maps new anonymous pages over
 * [PAGE_ALIGN(old break), PAGE_ALIGN(new)) or unmaps
 * [PAGE_ALIGN(new), PAGE_ALIGN(old)), nothing else (man 2 brk; Linux
 * mm/mmap.c's brk and do_brk_flags()).  Every break lies at or above
 * start_brk, whose page the heap's mapping starts at, and every page a
 * grow maps is the heap's until a shrink unmaps it; the software recorder
 * reads the mappings again after each brk, mmap, munmap and mremap, so
 * the pages any brk changed lie in the hull of the heap mappings the
 * sideband and the snapshot show.  (From heaproot's range, which bounded
 * the break's value itself.)
 *
 * Stores through one root (rcv_root_sym()): two stores whose addresses
 * are the same value plus different known offsets are placed relative to
 * each other, whatever that value is: under the hypothesis that one wrote
 * a byte at some placement, the other's bytes are known exactly
 * (rcv_alias.c).  Addresses from different roots are compared only when
 * both roots are the same word read from memory (rcv_root_word()) and
 * rcv_alias.c shows that nothing between the two reads wrote it.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_root.h"
#include "rcv_win.h"
#include "sideband.h"

bool rcv_root_brk_range(const struct rcv_root_map *m, size_t n,
			uint64_t *lo, uint64_t *hi)
{
	uint64_t l = UINT64_MAX, h = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (m[i].path_len != 6 || memcmp(m[i].path, "[heap]", 6))
			continue;
		/* There at the start: the break may lie past pages unmapped
		 * before the recording, which nothing here shows.
		 */
		if (m[i].initial || m[i].end <= m[i].start)
			return false;
		if (m[i].start < l)
			l = m[i].start;
		if (m[i].end > h)
			h = m[i].end;
	}
	/* The heap's mapping starts at PAGE_ALIGN(start_brk), or lower when
	 * merged with the mapping under it; every page a grow maps is in
	 * it when the recorder reads the mappings after the call.  Taken
	 * as given: code before the recording did not munmap all of a heap
	 * it grew (nothing here could show it), nor the heap's first page
	 * (its mapping would no longer be named [heap]).
	 */
	if (!h || (l & 4095) || (h & 4095))
		return false;
	*lo = l;
	*hi = h;
	return true;
}

static bool range_of(struct rp_recover *rc, uint64_t *lo, uint64_t *hi)
{
	const struct rp_session *s = rc->s;
	struct rp_snap_map_info mi;
	struct rcv_root_map *m;
	size_t i, n = 0, k;
	bool ok;

	if (!s || !rc->sn)
		return false;
	/* Only the software recorder reads every mapping again after each
	 * brk, mmap, munmap and mremap (record/emu_step.c).
	 */
	if (!rcv_backend_emu(s))
		return false;
	m = calloc(s->nrecs + 64, sizeof(*m));
	if (!m)
		return false;
	for (i = 0; i < s->nrecs; i++) {
		const struct ptrec_sb_mmap *r = (const void *)s->recs[i];

		if (s->recs[i]->type == PTREC_SB_LOST) {
			free(m);
			return false;
		}
		if (s->recs[i]->type != PTREC_SB_MMAP)
			continue;
		/* Any process's: a CLONE_VM task's brk moves the same break
		 * and shows in its own records; more only widens the hull.
		 */
		m[n].start = r->start;
		m[n].end = r->start + r->len;
		m[n].path = sb_mmap_path(r);
		m[n].path_len = r->path_len;
		m[n].initial = !!(r->hdr.flags & PTREC_SB_F_SNAPSHOT);
		n++;
	}
	for (k = 0; n < s->nrecs + 64 &&
	     !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++) {
		m[n].start = mi.start;
		m[n].end = mi.end;
		m[n].path = mi.path;
		m[n].path_len = strlen(mi.path);
		m[n].initial = false;
		n++;
	}
	ok = rcv_root_brk_range(m, n, lo, hi);
	free(m);
	return ok;
}

bool rcv_root_range(struct rp_recover *rc, uint64_t *lo, uint64_t *hi)
{
	if (!rc->root_done) {
		rc->root_ok = range_of(rc, &rc->root_lo, &rc->root_hi);
		rc->root_done = true;
	}
	*lo = rc->root_lo;
	*hi = rc->root_hi;
	return rc->root_ok;
}

#define RT_BACK		64	/* instructions back to a root */

/* The memory operand @in writes, none when not one (or several). */
static const struct rcv_op *store_op(const struct rcv_ins *in)
{
	const struct rcv_op *m = NULL;
	int k;

	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM &&
		    (in->op[k].access & CS_AC_WRITE)) {
			if (m)
				return NULL;
			m = &in->op[k];
		}
	return m;
}

/* @o's address as register *@g plus *@off, with the state @s before it. */
static bool op_of(const struct rcv_ins *in, const struct rcv_state *s,
		  const struct rcv_op *o, int *g, uint64_t *off)
{
	if (!o || o->seg || in->a32 || o->base < 0 || o->base >= 16)
		return false;
	*off = (uint64_t)o->imm;
	if (o->index >= 0) {
		if (o->index >= 16 || s->r[o->index].k != ~0ull)
			return false;
		*off += s->r[o->index].v * o->scale;
	}
	*g = o->base;
	return true;
}

static bool root_sym(struct win *w, size_t b, struct rcv_root_sym *out)
{
	const struct rcv_ins *in = &w->ins[b];
	const struct rcv_op *o0, *o1;
	size_t p, lo = b > RT_BACK ? b - RT_BACK : 0;
	uint64_t off, d;
	int g, h;

	if (b >= w->n || !op_of(in, &w->st[b], store_op(in), &g, &off))
		return false;
	for (p = b; p-- > lo;) {
		in = &w->ins[p];
		/* A handler between, a call's registers, a gap. */
		if (in->flags & (RCV_I_BARRIER | RCV_I_BAD | RCV_I_XFER |
				 RCV_I_SYSCALL))
			return false;
		if (!in->wcode[g])
			continue;
		o0 = &in->op[0];
		o1 = &in->op[1];
		if (in->nops == 2 && o0->type == RCV_OP_REG &&
		    o0->reg == g && o0->size == 8 && in->wcode[g] == 4) {
			if (in->id == X86_INS_MOV && o1->type == RCV_OP_REG &&
			    o1->size == 8 && o1->reg >= 0 && o1->reg < 16) {
				g = o1->reg;
				continue;
			}
			if (in->id == X86_INS_LEA &&
			    op_of(in, &w->st[p], o1, &h, &d)) {
				off += d;
				g = h;
				continue;
			}
			if ((in->id == X86_INS_ADD || in->id == X86_INS_SUB) &&
			    o1->type == RCV_OP_IMM) {
				off += in->id == X86_INS_ADD ?
				       (uint64_t)o1->imm : -(uint64_t)o1->imm;
				continue;
			}
		}
		out->pos = p;
		out->reg = g;
		out->off = off;
		return true;
	}
	return false;
}

bool rcv_root_word(struct win *w, size_t pos, int reg, uint64_t *addr)
{
	const struct rcv_ins *in;
	const struct rcv_acc *ld;

	if (pos >= w->n || reg < 0 || reg >= 16)
		return false;
	in = &w->ins[pos];
	if (in->id != X86_INS_MOV || in->nops != 2 || w->mbar[pos] ||
	    (in->flags & (RCV_I_BARRIER | RCV_I_BAD | RCV_I_XFER |
			  RCV_I_SYSCALL)) ||
	    in->op[0].type != RCV_OP_REG || in->op[0].reg != reg ||
	    in->op[0].size != 8 || in->wcode[reg] != 4 ||
	    in->op[1].type != RCV_OP_MEM || in->op[1].size != 8 ||
	    in->op[1].seg)
		return false;
	ld = rcv_acc_of(w, pos, false);
	if (!ld->valid || !ld->addr_known || ld->size != 8)
		return false;
	*addr = ld->addr;
	return true;
}

/*
 * Remembered by position (a memory question asks it for each barrier
 * after a store, for every byte: 20% of loops' `--at 100` otherwise).
 * The answer only grows more certain as passes know more (an index
 * known, a branch proven), so a remembered one holds; a root before the
 * window asking is found again.
 */
#define RT_MEMO		1024

struct rcv_root_memo {
	uint64_t at;		/* position + 1; 0 empty */
	uint64_t root;		/* the root's position */
	uint64_t off;
	int8_t reg;		/* -1: no root */
};

bool rcv_root_sym(struct win *w, size_t b, struct rcv_root_sym *out)
{
	struct rp_recover *rc = w->rc;
	struct rcv_root_memo *m;
	uint64_t at = w->first + b + 1;
	bool ok;

	if (!rc->root_memo)
		rc->root_memo = calloc(RT_MEMO, sizeof(*rc->root_memo));
	if (!rc->root_memo)
		return root_sym(w, b, out);
	m = &rc->root_memo[at % RT_MEMO];
	if (m->at == at && (m->reg < 0 || m->root >= w->first)) {
		if (m->reg < 0)
			return false;
		out->pos = (size_t)(m->root - w->first);
		out->reg = m->reg;
		out->off = m->off;
		return true;
	}
	ok = root_sym(w, b, out);
	m->at = at;
	m->reg = ok ? (int8_t)out->reg : -1;
	m->root = ok ? w->first + out->pos : 0;
	m->off = ok ? out->off : 0;
	return ok;
}
