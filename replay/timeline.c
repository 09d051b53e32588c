// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The timeline: the rules of moving through a multi-threaded history, so
 * that front ends (the GDB server today) only translate requests.  Each
 * thread has a position p in [0, end]: its next instruction is instruction
 * p of its history, and p = end is where its final registers hold
 * (rp_thread_end()).  The present is the position of the thread that moved
 * last; when a search across threads stops in one thread, the others wait
 * at their first instruction after that moment, so all stop together.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rp_internal.h"

struct tl_thread {
	uint32_t tid, pid;
	struct rp_thread *rt;
	struct rp_cursor *c;
	uint64_t pos;		/* next instruction */
	uint64_t end;		/* where the history ends */
	uint64_t first_ip;	/* of instruction 0 (peeking evicts segments) */
	uint64_t first_tsc;
	struct rp_regs regs;	/* at the end */
	/* The address space at the last position code was read at. */
	struct rp_world w;
	bool have_w;
};

struct rp_timeline {
	struct rp_session *s;
	struct tl_thread *t;
	size_t nt;
	size_t cur;		/* selected */
	size_t now;		/* whose position is the present */
	size_t start_cur;	/* selected at the end, for resets */
	uint64_t *bps;		/* sorted, unique */
	size_t nbps;
	struct rp_signal sig;
	bool have_sig;
	int image_fd;		/* open image file for code reads, or -1 */
	int image_idx;		/* its session image index */
	/* Watchpoints (#18): the set, each thread's recovery context (its
	 * addresses), and the access the last continue stopped at.
	 */
	struct rp_watch *watch;
	struct rp_recover **rcv;
	struct rp_watch_hit hit;
	bool have_hit;
};

void rp_timeline_reset(struct rp_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nt; i++)
		tl->t[i].pos = tl->t[i].end;
	tl->cur = tl->now = tl->start_cur;
	tl->nbps = 0;
	if (tl->watch)
		rp_watch_clear(tl->watch);
	tl->have_hit = false;
}

int rp_timeline_new(struct rp_session *s, struct rp_timeline **tlp)
{
	size_t i, n = rp_thread_count(s);
	struct rp_timeline *tl;
	uint64_t latest = 0;

	*tlp = NULL;
	tl = calloc(1, sizeof(*tl));
	if (!tl || !(tl->t = calloc(n + 1, sizeof(*tl->t)))) {
		free(tl);
		return -RP_ERR_NOMEM;
	}
	tl->s = s;
	tl->image_fd = -1;
	tl->rcv = calloc(n + 1, sizeof(*tl->rcv));
	if (!tl->rcv || rp_watch_new(&tl->watch)) {
		free(tl->rcv);
		free(tl->t);
		free(tl);
		return -RP_ERR_NOMEM;
	}
	tl->have_sig = !rp_fatal_signal(s, &tl->sig);
	for (i = 0; i < n; i++) {
		struct tl_thread *t = &tl->t[tl->nt];
		struct rp_insn first;

		t->tid = rp_thread_tid(s, i);
		t->rt = rp_find_thread(s, t->tid);
		if (rp_cursor_new(s, t->tid, &t->c))
			continue;	/* an empty history: not shown */
		if (rp_thread_end(s, t->tid, &t->end, &t->regs)) {
			rp_cursor_free(t->c);
			continue;
		}
		t->pid = t->rt->pid;
		if (!rp_cursor_peek(t->c, 0, &first)) {
			t->first_ip = first.ip;
			t->first_tsc = first.tsc;
		}
		/* Start on the thread that ran last: where the program
		 * stopped or crashed.
		 */
		if (!tl->nt || t->rt->last_tsc > latest) {
			tl->start_cur = tl->nt;
			latest = t->rt->last_tsc;
		}
		tl->nt++;
	}
	if (!tl->nt) {
		rp_timeline_free(tl);
		return -RP_ERR_NOTHREAD;
	}
	/* A crash: start on the thread that got the fatal signal. */
	for (i = 0; tl->have_sig && i < tl->nt; i++)
		if (tl->t[i].tid == tl->sig.tid)
			tl->start_cur = i;
	rp_timeline_reset(tl);
	*tlp = tl;
	return 0;
}

void rp_timeline_free(struct rp_timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nt; i++) {
		rp_cursor_free(tl->t[i].c);
		if (tl->t[i].have_w)
			rp_world_fini(&tl->t[i].w);
	}
	if (tl->image_fd >= 0)
		close(tl->image_fd);
	for (i = 0; tl->rcv && i < tl->nt; i++)
		rp_recover_free(tl->rcv[i]);
	free(tl->rcv);
	rp_watch_free(tl->watch);
	free(tl->t);
	free(tl->bps);
	free(tl);
}

size_t rp_timeline_count(const struct rp_timeline *tl)
{
	return tl->nt;
}

uint32_t rp_timeline_tid(const struct rp_timeline *tl, size_t i)
{
	return tl->t[i].tid;
}

uint32_t rp_timeline_pid(const struct rp_timeline *tl, size_t i)
{
	return tl->t[i].pid;
}

long rp_timeline_find(const struct rp_timeline *tl, uint32_t tid)
{
	size_t i;

	for (i = 0; i < tl->nt; i++)
		if (tl->t[i].tid == tid)
			return (long)i;
	return -1;
}

size_t rp_timeline_selected(const struct rp_timeline *tl)
{
	return tl->cur;
}

void rp_timeline_select(struct rp_timeline *tl, size_t i)
{
	if (i < tl->nt)
		tl->cur = i;
}

uint64_t rp_timeline_pos(const struct rp_timeline *tl, size_t i)
{
	return tl->t[i].pos;
}

uint64_t rp_timeline_end(const struct rp_timeline *tl, size_t i)
{
	return tl->t[i].end;
}

struct rp_cursor *rp_timeline_cursor(const struct rp_timeline *tl, size_t i)
{
	return tl->t[i].c;
}

uint64_t rp_timeline_first_ip(const struct rp_timeline *tl, size_t i)
{
	return tl->t[i].first_ip;
}

uint64_t rp_timeline_pc(const struct rp_timeline *tl, size_t i)
{
	const struct tl_thread *t = &tl->t[i];
	struct rp_insn insn;

	if (t->pos < t->end && !rp_cursor_peek(t->c, t->pos, &insn))
		return insn.ip;
	if (t->regs.valid & (1ull << RP_REG_RIP))
		return t->regs.val[RP_REG_RIP];
	if (t->end && !rp_cursor_peek(t->c, t->end - 1, &insn))
		return insn.ip + insn.size;
	return 0;
}

int rp_timeline_reg(const struct rp_timeline *tl, size_t i, unsigned int reg,
		    uint64_t *val)
{
	const struct tl_thread *t = &tl->t[i];

	if (reg == RP_REG_RIP) {
		*val = rp_timeline_pc(tl, i);
		return 0;
	}
	if (reg >= RP_REG_COUNT || t->pos != t->end ||
	    !(t->regs.valid & (1ull << reg)))
		return -RP_ERR_NOTFOUND;
	*val = t->regs.val[reg];
	return 0;
}

int rp_timeline_goto(struct rp_timeline *tl, size_t i, uint64_t pos)
{
	if (i >= tl->nt || pos > tl->t[i].end)
		return -RP_ERR_RANGE;
	tl->t[i].pos = pos;
	tl->now = i;
	tl->have_hit = false;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int rp_timeline_break_insert(struct rp_timeline *tl, uint64_t addr)
{
	uint64_t *v;
	size_t i;

	if (tl->nbps &&
	    bsearch(&addr, tl->bps, tl->nbps, sizeof(*tl->bps), cmp_u64))
		return 0;
	v = realloc(tl->bps, (tl->nbps + 1) * sizeof(*v));
	if (!v)
		return -RP_ERR_NOMEM;
	tl->bps = v;
	for (i = tl->nbps; i > 0 && v[i - 1] > addr; i--)
		v[i] = v[i - 1];
	v[i] = addr;
	tl->nbps++;
	return 0;
}

void rp_timeline_break_remove(struct rp_timeline *tl, uint64_t addr)
{
	uint64_t *hit;

	if (!tl->nbps)
		return;
	hit = bsearch(&addr, tl->bps, tl->nbps, sizeof(*tl->bps), cmp_u64);
	if (!hit)
		return;
	memmove(hit, hit + 1,
		(size_t)(tl->bps + tl->nbps - hit - 1) * sizeof(*hit));
	tl->nbps--;
}

static bool step_hit(struct rp_timeline *tl, uint64_t insn);

enum rp_stop rp_timeline_step(struct rp_timeline *tl, int dir)
{
	struct tl_thread *t = &tl->t[tl->cur];

	tl->now = tl->cur;
	tl->have_hit = false;
	if (dir < 0) {
		if (!t->pos)
			return RP_STOP_BEGIN;
		t->pos--;
		if (!t->pos)
			return RP_STOP_BEGIN;
		return step_hit(tl, t->pos) ? RP_STOP_WATCH : RP_STOP_STEP;
	}
	if (t->pos >= t->end)
		return RP_STOP_END;
	t->pos++;
	if (t->pos == t->end)
		return RP_STOP_END;
	return step_hit(tl, t->pos - 1) ? RP_STOP_WATCH : RP_STOP_STEP;
}

/* Whether the instruction at @pos of @t is at a breakpoint. */
static bool is_hit(struct rp_timeline *tl, struct tl_thread *t, uint64_t pos)
{
	struct rp_insn insn;

	return tl->nbps && !rp_cursor_peek(t->c, pos, &insn) &&
	       bsearch(&insn.ip, tl->bps, tl->nbps, sizeof(*tl->bps), cmp_u64);
}

/*
 * Moves every thread but @keep to time @tsc: its first instruction after
 * that time (its end when it has none).  Positions are ordered by time
 * within a thread, so a binary search finds it.
 */
static void sync_threads(struct rp_timeline *tl, size_t keep, uint64_t tsc)
{
	struct rp_insn insn;
	size_t i;

	for (i = 0; i < tl->nt; i++) {
		struct tl_thread *t = &tl->t[i];
		uint64_t lo = 0, hi = t->end;

		if (i == keep)
			continue;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (rp_cursor_peek(t->c, mid, &insn))
				break;
			if (insn.tsc > tsc)
				hi = mid;
			else
				lo = mid + 1;
		}
		t->pos = lo;
	}
}

/* The start of the whole history: the thread that started first (ties in
 * bundle order), every other thread before its first instruction after.
 */
static enum rp_stop to_begin(struct rp_timeline *tl)
{
	size_t i, first = tl->cur;

	for (i = 0; i < tl->nt; i++)
		if (tl->t[i].first_tsc < tl->t[first].first_tsc ||
		    (tl->t[i].first_tsc == tl->t[first].first_tsc &&
		     i < first))
			first = i;
	tl->cur = tl->now = first;
	tl->t[first].pos = 0;
	sync_threads(tl, first, tl->t[first].first_tsc);
	return RP_STOP_BEGIN;
}

static enum rp_stop to_end(struct rp_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nt; i++)
		tl->t[i].pos = tl->t[i].end;
	tl->now = tl->cur;
	return RP_STOP_END;
}

/* Continuing in the selected thread only (GDB's "Hc TID"). */
static enum rp_stop continue_one(struct rp_timeline *tl, int dir)
{
	struct tl_thread *t = &tl->t[tl->cur];
	uint64_t pos;

	tl->now = tl->cur;
	if (dir > 0 && t->pos >= t->end)
		return RP_STOP_END;
	if (dir < 0 && !t->pos)
		return RP_STOP_BEGIN;
	pos = t->pos < t->end ? t->pos : t->end - 1;
	if (dir < 0 && t->pos == t->end && is_hit(tl, t, pos)) {
		t->pos = pos;
		return RP_STOP_BREAK;
	}
	if (tl->nbps && !rp_cursor_goto(t->c, pos) &&
	    !rp_cursor_search(t->c, dir, tl->bps, tl->nbps) &&
	    rp_cursor_pos(t->c) <= t->end) {
		t->pos = rp_cursor_pos(t->c);
		return RP_STOP_BREAK;
	}
	t->pos = dir < 0 ? 0 : t->end;
	return dir < 0 ? RP_STOP_BEGIN : RP_STOP_END;
}

static enum rp_stop continue_bp(struct rp_timeline *tl, int dir, bool all)
{
	struct tl_thread *t;
	struct rp_insn insn;
	uint64_t pos;
	uint32_t tid;
	long hit;

	if (!all)
		return continue_one(tl, dir);
	/* The search starts at the present, whichever thread is selected:
	 * a thread waiting after that moment must not move it.
	 */
	t = &tl->t[tl->now];
	tid = t->tid;
	if (dir > 0 && t->pos >= t->end && tl->now == tl->cur)
		return to_end(tl);
	if (!t->end)
		return dir < 0 ? to_begin(tl) : to_end(tl);
	/* From the end, the search starts at the last instruction, which
	 * itself may hit a breakpoint going backward.
	 */
	pos = t->pos < t->end ? t->pos : t->end - 1;
	if (dir < 0 && t->pos == t->end && is_hit(tl, t, pos)) {
		t->pos = pos;
		tl->cur = tl->now;
		return RP_STOP_BREAK;
	}
	if (tl->nbps &&
	    !rp_search_threads(tl->s, dir, &tid, &pos, tl->bps, tl->nbps) &&
	    (hit = rp_timeline_find(tl, tid)) >= 0 &&
	    pos <= tl->t[hit].end) {
		/* (At the end itself when the hit is the instruction a
		 * thread died in: that is where it stays.)
		 */
		tl->cur = tl->now = (size_t)hit;
		tl->t[hit].pos = pos;
		if (!rp_cursor_peek(tl->t[hit].c, pos, &insn))
			sync_threads(tl, (size_t)hit, insn.tsc);
		return RP_STOP_BREAK;
	}
	return dir < 0 ? to_begin(tl) : to_end(tl);
}

/* ---- watchpoints (#18) ---------------------------------------------- */

struct rp_recover *rp_timeline_recover(struct rp_timeline *tl, size_t i)
{
	if (i >= tl->nt)
		return NULL;
	if (!tl->rcv[i] && rp_recover_new(tl->s, tl->t[i].tid, &tl->rcv[i]))
		tl->rcv[i] = NULL;
	return tl->rcv[i];
}

void rp_timeline_values_strict(struct rp_timeline *tl, bool on)
{
	size_t i;

	rp_session_set_values_strict(tl->s, on);
	for (i = 0; tl->rcv && i < tl->nt; i++) {
		rp_recover_free(tl->rcv[i]);
		tl->rcv[i] = NULL;
	}
}

int rp_timeline_watch_insert(struct rp_timeline *tl, unsigned int type,
			     uint64_t addr, uint64_t len)
{
	return rp_watch_insert(tl->watch, type, tl->t[tl->cur].pid, addr,
			       len);
}

int rp_timeline_watch_remove(struct rp_timeline *tl, unsigned int type,
			     uint64_t addr, uint64_t len)
{
	return rp_watch_remove(tl->watch, type, tl->t[tl->cur].pid, addr,
			       len);
}

void rp_timeline_watch_unknown(struct rp_timeline *tl, int mode)
{
	rp_watch_set_unknown(tl->watch, (enum rp_watch_unknown)mode);
}

int rp_timeline_watch_unknown_get(const struct rp_timeline *tl)
{
	return (int)rp_watch_get_unknown(tl->watch);
}

int rp_timeline_watch_hit(const struct rp_timeline *tl,
			  struct rp_watch_hit *hit)
{
	if (!tl->have_hit)
		return -RP_ERR_NOTFOUND;
	*hit = tl->hit;
	return 0;
}

/*
 * Did the selected thread's instruction @insn, just stepped over either
 * way, touch a watched range?  As hardware reports a watchpoint after a
 * single step, so that GDB's stepping stops there too.  Only a known
 * address counts here: a store of unknown address would end every
 * `next` over library code in a plain stop.
 */
static bool step_hit(struct rp_timeline *tl, uint64_t insn)
{
	struct tl_thread *t = &tl->t[tl->cur];
	struct rp_recover *rc;
	struct rp_watch_hit h;

	if (!rp_watch_count(tl->watch) ||
	    !(rc = rp_timeline_recover(tl, tl->cur)) ||
	    rp_watch_scan(tl->watch, rc, t->pid, 1, insn, insn + 1, &h) ||
	    h.maybe)
		return false;
	h.tid = t->tid;
	tl->hit = h;
	tl->have_hit = true;
	return true;
}

/* Moments (struct rp_when): timeline threads keep the bundle's order. */
static struct rp_when moment_of(struct rp_timeline *tl, size_t i,
			       uint64_t pos)
{
	struct tl_thread *t = &tl->t[i];
	struct rp_insn insn;

	if (pos >= t->end && t->end)
		pos = t->end - 1;
	if (rp_cursor_peek(t->c, pos, &insn))
		insn.tsc = 0;
	return (struct rp_when){ insn.tsc, i };
}

/* The first position of thread @i whose moment is after @m. */
static uint64_t first_after(struct rp_timeline *tl, size_t i,
			    struct rp_when m)
{
	struct tl_thread *t = &tl->t[i];
	uint64_t lo = 0, hi = t->end;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (rp_when_cmp(moment_of(tl, i, mid), m) > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct cand {
	bool found;
	size_t thread;
	uint64_t pos;		/* where the thread stops */
	struct rp_when at;	/* of the instruction that decided it */
	uint64_t insn;		/* that instruction */
};

/*
 * The first position of thread @i after candidate @c's instruction: in
 * its own thread by position (timestamps are coarse: many instructions
 * share one), in the others by time.
 */
static uint64_t after_cand(struct rp_timeline *tl, size_t i,
			   const struct cand *c)
{
	return i == c->thread ? c->insn + 1 : first_after(tl, i, c->at);
}

/* Is @a nearer than @b in direction @dir? */
static bool nearer(const struct cand *a, const struct cand *b, int dir)
{
	int c;

	if (!b->found)
		return a->found;
	if (!a->found)
		return false;
	c = rp_when_cmp(a->at, b->at);
	return dir > 0 ? c < 0 : c > 0;
}

/* The nearest watched access in time from the present (@all) or in the
 * selected thread from its position.
 */
static int watch_find(struct rp_timeline *tl, int dir, bool all,
		      struct cand *best, struct rp_watch_hit *hit)
{
	size_t start = all ? tl->now : tl->cur, k, i;
	struct rp_when now = moment_of(tl, start, tl->t[start].pos);
	struct rp_watch_hit h;
	uint64_t lo, hi;
	int ret;

	best->found = false;
	for (k = 0; k < tl->nt; k++) {
		struct tl_thread *t;
		struct rp_recover *rc;

		i = (start + k) % tl->nt;
		if (k && !all)
			break;
		t = &tl->t[i];
		if (!k) {
			lo = dir < 0 ? 0 : t->pos;
			hi = dir < 0 ? t->pos : t->end;
		} else {
			uint64_t b = first_after(tl, i, now);

			lo = dir < 0 ? 0 : b;
			hi = dir < 0 ? b : t->end;
		}
		/* Only as far as the best hit so far. */
		if (best->found) {
			uint64_t lim = after_cand(tl, i, best);

			if (dir < 0 && lo < lim)
				lo = lim;
			else if (dir > 0 && hi > lim)
				hi = lim;
		}
		if (lo >= hi)
			continue;
		rc = rp_timeline_recover(tl, i);
		if (!rc)
			return -RP_ERR_NOMEM;
		ret = rp_watch_scan(tl->watch, rc, t->pid, dir, lo, hi, &h);
		if (ret == -RP_ERR_NOTFOUND)
			continue;
		if (ret)
			return ret;
		{
			struct cand c = { true, i, dir < 0 ? h.pos : h.pos + 1,
					  moment_of(tl, i, h.pos), h.pos };

			if (!nearer(&c, best, dir) && best->found)
				continue;
			*best = c;
			h.tid = t->tid;
			*hit = h;
		}
	}
	return 0;
}

/*
 * The nearest breakpoint hit before the watchpoint hit @wp: only the
 * positions between the present and @wp are looked at (a plain search
 * would go on to the history's edge when there is none, which costs a
 * decode of the whole history per stop).  Ties as in
 * rp_timeline_continue(): a breakpoint at the accessing instruction
 * comes first forward, the access backward.
 */
static void bp_near(struct rp_timeline *tl, int dir, bool all,
		    const struct cand *wp, struct cand *best)
{
	size_t start = all ? tl->now : tl->cur, k, i;
	struct rp_when now = moment_of(tl, start, tl->t[start].pos);
	struct rp_insn insn;
	uint64_t lo, hi, p;

	best->found = false;
	if (!tl->nbps)
		return;
	for (k = 0; k < tl->nt && (all || !k); k++) {
		struct tl_thread *t;

		i = (start + k) % tl->nt;
		t = &tl->t[i];
		if (dir > 0) {
			lo = k ? first_after(tl, i, now) : t->pos + 1;
			hi = after_cand(tl, i, wp);
		} else {
			lo = after_cand(tl, i, wp);
			hi = k ? first_after(tl, i, now) : t->pos;
		}
		if (hi > t->end)
			hi = t->end;
		for (p = dir > 0 ? lo : hi; dir > 0 ? p < hi : p > lo;) {
			uint64_t q = dir > 0 ? p++ : --p;
			struct cand c;

			if (rp_cursor_peek(t->c, q, &insn) ||
			    !bsearch(&insn.ip, tl->bps, tl->nbps,
				     sizeof(*tl->bps), cmp_u64))
				continue;
			c = (struct cand){ true, i, q, moment_of(tl, i, q), q };
			if (nearer(&c, best, dir))
				*best = c;
			break;
		}
	}
}

/* The nearest breakpoint hit, as continue_bp() would stop at, moving
 * nothing but cursors.
 */
static void bp_find(struct rp_timeline *tl, int dir, bool all,
		    struct cand *best)
{
	size_t start = all ? tl->now : tl->cur;
	struct tl_thread *t = &tl->t[start];
	uint64_t pos;
	uint32_t tid = t->tid;
	long hit;

	best->found = false;
	if (!tl->nbps || !t->end)
		return;
	pos = t->pos < t->end ? t->pos : t->end - 1;
	if (dir < 0 && t->pos == t->end && is_hit(tl, t, pos)) {
		*best = (struct cand){ true, start, pos,
				       moment_of(tl, start, pos), pos };
		return;
	}
	if (!all) {
		if (!rp_cursor_goto(t->c, pos) &&
		    !rp_cursor_search(t->c, dir, tl->bps, tl->nbps) &&
		    rp_cursor_pos(t->c) <= t->end) {
			pos = rp_cursor_pos(t->c);
			*best = (struct cand){ true, start, pos,
					       moment_of(tl, start, pos), pos };
		}
		return;
	}
	if (!rp_search_threads(tl->s, dir, &tid, &pos, tl->bps, tl->nbps) &&
	    (hit = rp_timeline_find(tl, tid)) >= 0 &&
	    pos <= tl->t[hit].end)
		*best = (struct cand){ true, (size_t)hit, pos,
				       moment_of(tl, (size_t)hit, pos), pos };
}

enum rp_stop rp_timeline_continue(struct rp_timeline *tl, int dir, bool all)
{
	struct cand bp = { 0 }, wp = { 0 };
	struct tl_thread *t;
	struct rp_watch_hit h;
	struct rp_insn insn;
	size_t start;

	tl->have_hit = false;
	if (!rp_watch_count(tl->watch))
		return continue_bp(tl, dir, all);
	start = all ? tl->now : tl->cur;
	t = &tl->t[start];
	tl->now = start;
	if (dir > 0 && t->pos >= t->end && (!all || start == tl->cur))
		return all ? to_end(tl) : RP_STOP_END;
	if (dir < 0 && !t->pos && !all)
		return RP_STOP_BEGIN;
	if (!t->end)
		return dir < 0 ? to_begin(tl) : to_end(tl);
	if (watch_find(tl, dir, all, &wp, &h))
		wp.found = false;
	if (wp.found)
		bp_near(tl, dir, all, &wp, &bp);
	else
		bp_find(tl, dir, all, &bp);
	/* A breakpoint at the accessing instruction itself comes first
	 * forward (it stops before it), the access backward (it stops
	 * at the same place).
	 */
	if (wp.found && bp.found && wp.thread == bp.thread &&
	    (dir > 0 ? bp.pos <= wp.pos - 1 : bp.pos > wp.pos))
		wp.found = false;
	else if (wp.found && bp.found && wp.thread != bp.thread &&
		 nearer(&bp, &wp, dir))
		wp.found = false;
	if (wp.found) {
		tl->hit = h;
		tl->have_hit = true;
		bp = wp;
	}
	if (!bp.found) {
		if (!all) {
			t->pos = dir < 0 ? 0 : t->end;
			return dir < 0 ? RP_STOP_BEGIN : RP_STOP_END;
		}
		return dir < 0 ? to_begin(tl) : to_end(tl);
	}
	tl->cur = tl->now = bp.thread;
	tl->t[bp.thread].pos = bp.pos;
	if (all && !rp_cursor_peek(tl->t[bp.thread].c,
				   wp.found && dir > 0 ? bp.pos - 1 : bp.pos,
				   &insn))
		sync_threads(tl, bp.thread, insn.tsc);
	return wp.found ? RP_STOP_WATCH : RP_STOP_BREAK;
}

int rp_timeline_signal(const struct rp_timeline *tl, size_t i,
		       struct rp_signal *sig)
{
	const struct tl_thread *t = &tl->t[i];

	if (!tl->have_sig || tl->sig.tid != t->tid || t->pos != t->end)
		return -RP_ERR_NOTFOUND;
	*sig = tl->sig;
	return 0;
}

/*
 * @t's address space as of its position: the sideband up to the
 * position's checkpoint, then to the instruction's time.  Records are in
 * time order, so the state is that of the first max(checkpoint's count,
 * records up to the time) records: the cached one is advanced when it is
 * not past that, rebuilt only when the thread moved back over a change.
 */
static int world_at(struct rp_timeline *tl, struct tl_thread *t)
{
	const struct rp_thread *rt = t->rt;
	uint64_t pos = t->pos, lo = 0, hi = rt->nckpts, k, sb;
	struct rp_session *s = tl->s;
	struct rp_insn insn;
	int ret;

	if (pos >= rt->insns)
		pos = rt->insns - 1;	/* the end: the last one's mappings */
	ret = rp_cursor_peek(t->c, pos, &insn);
	if (ret)
		return ret;
	while (hi - lo > 1) {
		k = lo + (hi - lo) / 2;
		if (rt->ckpts[k].insn <= pos)
			lo = k;
		else
			hi = k;
	}
	sb = rt->ckpts[lo].sb_next;
	if (t->have_w && t->w.next > sb &&
	    s->recs[t->w.next - 1]->time > insn.tsc) {
		rp_world_fini(&t->w);
		t->have_w = false;
	}
	if (!t->have_w) {
		rp_world_init(&t->w, s);
		t->have_w = true;
	}
	ret = rp_world_seek(&t->w, sb);
	if (!ret)
		ret = rp_world_advance(&t->w, insn.tsc);
	if (ret) {
		rp_world_fini(&t->w);
		t->have_w = false;
	}
	return ret;
}

int rp_timeline_read_code(struct rp_timeline *tl, size_t i, uint64_t addr,
			  void *buf, size_t len)
{
	struct tl_thread *t = &tl->t[i];
	const struct rp_map *mp;
	ssize_t n = -1;
	int fd, ret;

	ret = world_at(tl, t);
	if (ret)
		return ret;
	mp = rp_world_lookup(&t->w, t->pid, addr);
	if (!mp || mp->image < 0)
		return -RP_ERR_NOTFOUND;
	if (len > mp->end - addr)
		len = (size_t)(mp->end - addr);
	/* GDB reads code in small pieces, mostly from one image; the image
	 * is opened by the bundle rule (rp_image_open).
	 */
	if (tl->image_fd < 0 || tl->image_idx != mp->image) {
		if (tl->image_fd >= 0)
			close(tl->image_fd);
		tl->image_fd = rp_image_open(tl->s, (size_t)mp->image);
		tl->image_idx = mp->image;
	}
	fd = tl->image_fd;
	if (fd >= 0)
		n = pread(fd, buf, len,
			  (off_t)(mp->pgoff + (addr - mp->start)));
	return n > 0 ? (int)n : -RP_ERR_NOTFOUND;
}
