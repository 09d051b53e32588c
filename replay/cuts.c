// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Cut points as checkpoints (cuts.h): which TIP.PGEs of a single-PSB
 * stream become index checkpoints, the index pass's model of libipt's
 * return-compression stack at each, the join of the ranges' models, and
 * the made-up start that restores the stack when a segment is decoded
 * from one.  Split from decode.c and index.c, which call these.
 */
#include <stdlib.h>
#include <string.h>

#include "cuts.h"
#include "gaps.h"
#include "psbscan.h"

/*
 * Whether @t's address space stays as it is from its first PSB on (no
 * sideband record after that time): a split range, which has no TSC of
 * its own to follow the sideband with, then decodes against the right one.
 */
bool rp_cut_world_static(struct rp_session *s, struct rp_thread *t)
{
	struct rp_world w;
	bool ret;

	rp_world_init(&w, s);
	ret = !rp_world_advance(&w, t->npsbs ? t->psbs[0].tsc : 0) &&
	      w.next == s->nrecs;
	rp_world_fini(&w);
	return ret;
}

/*
 * Whether libipt's time stays the last TSC's between TSCs on @m's
 * streams, MTC and CYC packets notwithstanding: MTC needs CPUID 0x15's
 * ratio to count (pt_time_ctc_fc), CYC a core:bus calibration from it or
 * from the nominal frequency.  A made-up PSB+ then starts at the very
 * time the decode through it has (the last TSC).
 */
static bool time_inert(const struct sb_manifest *m)
{
	return (!m->pt.cpuid_15_eax || !m->pt.cpuid_15_ebx) &&
	       !m->pt.nom_freq;
}

/*
 * The checkpoints of a stream with a single PSB (kAFL/Nyx write one per
 * trace), which otherwise is one segment that a seek decodes from its
 * start: the first TIP.PGE where tracing resumes (psbscan.h) at or after
 * every CUT_BYTES of trace past the PSB.  Each becomes a checkpoint where
 * the index pass's decode meets it, with its IP (off_psb_enable), the
 * same on any number of workers; a segment materializes from it behind a
 * made-up PSB+ (decode.c) that restores libipt's return stack as the
 * index pass modelled it (struct rp_rstk).  The two decodes agree on
 * every instruction but where a return compressed across the cut needs
 * an entry the model did not vouch for, which then fails
 * (-pte_retstack_empty): the segment's count differs and it is decoded
 * from the start instead (rp_walk_materialize).
 * Timestamps agree only where the made-up PSB+ can carry the time
 * (time_inert(), or no MTC and CYC at all); elsewhere no cut point is a
 * checkpoint.  PTREC_INDEX_CUTS=0 turns them off (tests compare).
 */
void rp_cut_points(struct rp_session *s, struct rp_thread *t,
		   struct rp_split **v, size_t *n)
{
	const char *env = getenv("PTREC_INDEX_CUTS");
	size_t i, k;
	bool timed;

	*v = NULL;
	*n = 0;
	if ((env && !strcmp(env, "0")) || t->npsbs != 1 ||
	    t->pt_size < 2 * CUT_BYTES || !rp_cut_world_static(s, t) ||
	    rp_scan_splits(t, CUT_BYTES, v, n, &timed))
		return;
	for (i = k = 0; i < *n; i++)
		if ((*v)[i].offset >= t->psbs[0].offset + CUT_BYTES)
			(*v)[k++] = (*v)[i];
	*n = k;
	if (!k || (timed && !time_inert(s->m))) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
}

static int rs_grow(uint64_t **v, size_t *cap, size_t need)
{
	uint64_t *p;
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, c * sizeof(*p));
	if (!p)
		return -RP_ERR_NOMEM;
	*v = p;
	*cap = c;
	return 0;
}

void rp_rs_drop(struct rp_rstk *rs)
{
	rs->n = 0;
	rs->pending = rs->pending_under = false;
	rs->dropped = true;
	rs->last_call = false;
	rs->busy = false;
}

static void rs_busy(struct rp_rstk *rs)
{
	rs->busy = rs->pending || rs->pending_under || rs->last_call;
}

void rp_rs_free(struct rp_rstk *rs)
{
	if (!rs)
		return;
	free(rs->v);
	free(rs->under);
	free(rs->lens);
	free(rs->snaps);
	free(rs->pool);
	free(rs);
}

/* Its snapshot for a checkpoint: the index of it, or -RP_ERR_NOMEM. */
int rp_rs_snap(struct rp_rstk *rs)
{
	struct rp_rsnap *v;
	size_t k = rs->n < RP_RETSTACK ? rs->n : RP_RETSTACK, cap;

	v = realloc(rs->snaps, (rs->nsnaps + 1) * sizeof(*v));
	if (!v)
		return -RP_ERR_NOMEM;
	rs->snaps = v;
	cap = rs->npool;	/* grown to fit, each time */
	if (rs_grow(&rs->pool, &cap, rs->npool + k + 1))
		return -RP_ERR_NOMEM;
	v[rs->nsnaps].lsize = rs->n;
	v[rs->nsnaps].under = rs->nunder;
	v[rs->nsnaps].dropped = rs->dropped;
	v[rs->nsnaps].at = rs->npool;
	if (k)
		memcpy(rs->pool + rs->npool, rs->v + rs->n - k,
		       k * sizeof(*rs->pool));
	rs->npool += k;
	return (int)rs->nsnaps++;
}

/* A return went to @ip (0: not known): checked against the model. */
static int rs_resolve(struct rp_rstk *rs, uint64_t ip)
{
	size_t cap = rs->capunder;

	if (rs->pending && ip != rs->expect)
		rp_rs_drop(rs);
	if (rs->pending_under) {
		if (rs_grow(&rs->under, &cap, rs->nunder + 1))
			return -RP_ERR_NOMEM;
		rs->capunder = cap;
		rs->under[rs->nunder++] = ip;
	}
	rs->pending = rs->pending_under = false;
	rs_busy(rs);
	return 0;
}

/*
 * The length of the near call at @ip: 0 for a call to the next
 * instruction (which libipt does not push, and which has no return), -1
 * when the bytes are not known or not a near call; from its bytes (SDM
 * Vol. 2: prefixes, REX, E8 rel32 or FF /2 with its ModRM, SIB and
 * displacement), cached by address.
 */
static int call_len(struct walk *w, uint64_t ip)
{
	static const uint8_t prefixes[] = { 0x66, 0x67, 0xf2, 0xf3, 0xf0,
					    0x2e, 0x3e, 0x26, 0x36, 0x64,
					    0x65 };
	struct cls_slot *slot = &w->rs->lens[(ip * 0x9e3779b97f4a7c15ull) >>
					     54];
	uint8_t b[15], mod, rm;
	ssize_t n;
	size_t i = 0;
	int len = -1;

	if (slot->ip1 == ip + 1)
		return slot->cls;
	n = rp_walk_read_code(w, ip, b);
	while (n > 0 && i < (size_t)n &&
	       memchr(prefixes, b[i], sizeof(prefixes)))
		i++;
	if (n > 0 && i < (size_t)n && (b[i] & 0xf0) == 0x40)
		i++;		/* REX (64-bit code only is modelled) */
	if (n > 0 && i + 4 < (size_t)n && b[i] == 0xe8) {
		len = b[i + 1] | b[i + 2] | b[i + 3] | b[i + 4] ?
		      (int)i + 5 : 0;
	} else if (n > 0 && i + 1 < (size_t)n && b[i] == 0xff &&
		   ((b[i + 1] >> 3) & 7) == 2) {
		mod = b[i + 1] >> 6;
		rm = b[i + 1] & 7;
		len = (int)i + 2;
		if (mod != 3 && rm == 4) {
			if (i + 2 >= (size_t)n)
				return -1;
			if (mod == 0 && (b[i + 2] & 7) == 5)
				len += 4;	/* SIB without base: disp32 */
			len++;
		}
		if (mod == 0 && rm == 5)
			len += 4;		/* RIP + disp32 */
		else if (mod == 1)
			len += 1;
		else if (mod == 2)
			len += 4;
		if (len > n)
			len = -1;
	}
	slot->ip1 = ip + 1;
	slot->cls = len;
	return len;
}

int rp_rs_block(struct walk *w, const struct pt_block *b, int cls)
{
	struct rp_rstk *rs = w->rs;
	size_t cap = rs->cap;
	int len, ret;

	if (rs->pending || rs->pending_under) {
		ret = rs_resolve(rs, b->ip);
		if (ret)
			return ret;
	}
	rs->last_call = false;
	rs_busy(rs);
	if (cls < 0 || ((cls == ptic_call || cls == ptic_return) &&
			b->mode != ptem_64bit)) {
		rp_rs_drop(rs);
		return 0;
	}
	if (cls == ptic_call) {
		len = call_len(w, b->end_ip);
		if (len < 0) {
			rp_rs_drop(rs);		/* not known */
			return 0;
		}
		if (!len)
			return 0;		/* to the next instruction */
		if (rs->n == rs->cap) {
			if (rs_grow(&rs->v, &cap, rs->n + 1))
				return -RP_ERR_NOMEM;
			rs->cap = cap;
		}
		rs->v[rs->n++] = b->end_ip + (unsigned int)len;
		rs->last_call = true;
	} else if (cls == ptic_return) {
		if (rs->n) {
			rs->expect = rs->v[--rs->n];
			rs->pending = true;
		} else {
			rs->pending_under = true;
		}
	}
	rs_busy(rs);
	return 0;
}

int rp_rs_enable(struct walk *w, uint64_t ip)
{
	w->rs->last_call = false;
	return rs_resolve(w->rs, ip);	/* and busy */
}

/* A synchronous disable bound to the call just taken: libipt does not
 * push its return address then.
 */
void rp_rs_disabled(struct walk *w)
{
	struct rp_rstk *rs = w->rs;

	if (rs->last_call && rs->n)
		rs->n--;
	rs->last_call = false;
	rs_busy(rs);
}

/*
 * A stream with a single PSB: a cut point (rp_cut_points()) whose
 * TIP.PGE this enable is, by the test a worker that ends there makes (the
 * first enable read past it, with its IP), gets a checkpoint with the
 * instructions decoded so far; cut points passed otherwise get none.
 * @off and @prev: the decoder's offsets at this enable and the last.
 */
int rp_cut_point(struct walk *w, const struct pt_event *ev, uint64_t off,
		 uint64_t prev)
{
	const struct rp_split *sp = &w->cks[w->ck_next];
	uint64_t at = off + (uint64_t)w->off_delta;
	struct rp_ckpt c = { 0 };

	if (at <= sp->offset)
		return 0;	/* not read yet */
	while (w->ck_next < w->ncks && w->cks[w->ck_next].offset < at)
		w->ck_next++;
	if (prev + (uint64_t)w->off_delta > sp->offset ||
	    ev->variant.enabled.ip != sp->ip)
		return 0;
	w->ckpt_sync = false;
	c.offset = sp->offset;
	c.insn = w->pos;
	c.tsc = sp->tsc;
	c.sb_next = w->world.next;
	c.gap = *w->ngaps;
	c.split = *sp;
	if (w->rs) {
		int ret = rp_rs_snap(w->rs);

		if (ret < 0)
			return ret;
		c.rets_at = (uint32_t)ret + 1;
	}
	return rp_walk_add_ckpt(w, &c);
}

/* The code of a made-up start's return stack (rp_split_prefix_rets()). */
struct shim {
	const uint64_t *rets;
	size_t n;
	uint64_t x;
};

static int shim_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		     uint64_t ip, void *ctx)
{
	const struct shim *sh = ctx;
	size_t i;

	(void)asid;
	if (size < 2)
		return -pte_nomap;
	buf[0] = 0xff;
	if (ip == sh->x) {
		buf[1] = 0xe0;		/* jmp *%rax */
		return 2;
	}
	for (i = 0; i < sh->n; i++)
		if (ip == sh->rets[i] - 2) {
			buf[1] = 0xd0;	/* call *%rax */
			return 2;
		}
	return -pte_nomap;
}

/*
 * Where 'jmp *%rax' goes in such code: two bytes clear of every
 * 'call *%rax'; 0 when the calls themselves overlap (return addresses
 * one byte apart) or a return address is below 2.
 */
uint64_t rp_cut_shim_place(const uint64_t *rets, size_t n)
{
	uint64_t x = 0x1000;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (rets[i] < 2)
			return 0;
		for (j = 0; j < n; j++)
			if (rets[j] == rets[i] + 1)
				return 0;
	}
	for (i = 0; i < n; i++)
		if (x + 2 > rets[i] - 2 && x < rets[i]) {
			x += 0x1000;
			i = (size_t)-1;	/* again from the first */
		}
	return x;
}

/*
 * Runs the made-up return-stack code (after a sync at the made-up
 * PSB+) with its own image, to its TIP.PGD: the n calls and the jmp,
 * none of them history.  Returns libipt's status after the disable.
 */
int rp_cut_shim_run(struct walk *w, int status, const uint64_t *rets,
		    size_t n, uint64_t x)
{
	struct shim sh = { rets, n, x };
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_insn insn;
	struct pt_event ev;
	size_t steps = 0;
	bool off = false;

	if (!image)
		return -pte_nomem;
	pt_image_set_callback(image, shim_read, &sh);
	pt_insn_set_image(w->d, image);
	while (status >= 0 && !off && steps <= n + 1) {
		while (status >= 0 && (status & pts_event_pending)) {
			status = pt_insn_event(w->d, &ev, sizeof(ev));
			if (status >= 0 && ev.type == ptev_disabled)
				off = true;
		}
		if (status < 0 || off)
			break;
		status = pt_insn_next(w->d, &insn, sizeof(insn));
		steps++;
	}
	pt_insn_set_image(w->d, w->image);
	pt_image_free(image);
	return status < 0 ? status : off ? status : -pte_internal;
}

/*
 * A range from a split starts with a fresh decoder, whose enable there
 * libipt cannot call "resumed" (it compares with the IP tracing stopped
 * at, which that decoder never saw): the decode through it, the range
 * before's, said whether it was.  The first enable of @n events @e.
 */
void rp_cut_resumed(struct rp_event *e, size_t n, bool resumed)
{
	size_t i;

	for (i = 0; i < n && e[i].kind != RP_EV_ENABLED; i++)
		;
	if (i == n)
		return;
	if (resumed)
		e[i].flags |= RP_EVF_RESUMED;
	else
		e[i].flags &= (uint16_t)~RP_EVF_RESUMED;
}

/*
 * The ranges' return-stack models joined (cuts.h, struct rp_rstk): @m
 * (*@mn entries, *@mcap room) is the model from the stream's start to
 * range @r's start; each of @r's cut-point checkpoints among @v[0..@nv-1]
 * gets its stack in t->rets, then @m moves to the range's end.  A range
 * whose returns past its start do not go where @m says drops @m there,
 * as one decode through both would have.
 */
int rp_cut_join_rets(struct rp_thread *t, const struct range *r,
		     struct rp_ckpt *v, size_t nv, uint64_t **m, size_t *mn,
		     size_t *mcap)
{
	const struct rp_rstk *rs = r->rs;
	size_t i, j, mi = SIZE_MAX, keep;
	uint64_t *p;

	if (!rs)
		return 0;
	for (j = 0; j < rs->nunder && j < *mn; j++)
		if (rs->under[j] != (*m)[*mn - 1 - j]) {
			mi = j;
			break;
		}
	for (i = 0; i < nv; i++) {
		const struct rp_rsnap *sn;
		size_t pre = 0, k, from;

		if (!v[i].rets_at)
			continue;
		sn = &rs->snaps[v[i].rets_at - 1];
		v[i].rets_at = 0;
		v[i].nrets = 0;
		if (!v[i].split.csl)
			continue;	/* 64-bit code only is modelled */
		if (!sn->dropped && (mi == SIZE_MAX || sn->under <= mi) &&
		    sn->under < *mn)
			pre = *mn - sn->under;
		k = sn->lsize < RP_RETSTACK ? sn->lsize : RP_RETSTACK;
		from = k < RP_RETSTACK && pre > RP_RETSTACK - k ?
		       pre - (RP_RETSTACK - k) : k < RP_RETSTACK ? 0 : pre;
		p = realloc(t->rets, (t->nrets + RP_RETSTACK) * sizeof(*p));
		if (!p)
			return -RP_ERR_NOMEM;
		t->rets = p;
		v[i].rets_at = (uint32_t)t->nrets;
		if (pre > from)
			memcpy(p + t->nrets, *m + from,
			       (pre - from) * sizeof(*p));
		if (k)
			memcpy(p + t->nrets + (pre - from), rs->pool + sn->at,
			       k * sizeof(*p));
		v[i].nrets = (uint32_t)(pre - from + k);
		t->nrets += v[i].nrets;
	}
	keep = rs->dropped || mi != SIZE_MAX || rs->nunder >= *mn ? 0 :
	       *mn - rs->nunder;
	if (keep + rs->n > *mcap) {
		p = realloc(*m, (keep + rs->n + 1) * sizeof(*p));
		if (!p)
			return -RP_ERR_NOMEM;
		*m = p;
		*mcap = keep + rs->n + 1;
	}
	if (rs->n)
		memcpy(*m + keep, rs->v, rs->n * sizeof(**m));
	*mn = keep + rs->n;
	return 0;
}

