// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Cursors: a position in one thread's history.  Instructions come from
 * materialized segments (checkpoint to checkpoint), cached per thread, so
 * moving near the cursor costs at most one segment's decode.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "rp_internal.h"

/* Stretches known to hold no signal handler return, per cursor. */
#define RP_CURSOR_QUIET 4

struct rp_cursor {
	struct rp_session *s;
	struct rp_thread *t;
	uint64_t pos;
	/* Stretches [lo, hi) that hold no signal handler's return
	 * (resync_after_signal()'s scan, whatever the position it starts
	 * from): the history does not change, and a stop's call stack
	 * scans the same stretch at every position near it (#17's stop
	 * latency).  Several, the least recently used replaced: a session
	 * stops near the end and in the middle (a `ptrec goto`), and one
	 * stretch kept the first found, so every step in the middle scanned
	 * 2^18 instructions again (tests/bench/gdb_steps.py, from deep).
	 */
	struct {
		uint64_t lo, hi, used;
	} quiet[RP_CURSOR_QUIET];
	uint64_t quiet_clock;
	/* Scans resync_after_signal() made (a work count for the tests). */
	uint64_t resync_peeks;
};

/* The segment holding @pos: the last checkpoint at or before it. */
static uint64_t ckpt_of(const struct rp_thread *t, uint64_t pos)
{
	uint64_t lo = 0, hi = t->nckpts;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (t->ckpts[mid].insn <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The instruction at @pos, decoding its segment when not cached. */
static int fetch(struct rp_session *s, struct rp_thread *t, uint64_t pos,
		 const struct rp_insn **insn)
{
	struct rp_seg *seg = NULL;
	size_t i;
	uint64_t k;
	int ret;

	if (pos >= t->insns)
		return -RP_ERR_RANGE;
	/* A cached segment that holds @pos is the one ckpt_of() names
	 * (checkpoint k's segment is [ckpts[k], ckpts[k + 1])): no search
	 * for a walk through a segment (the values engine's windows peek
	 * every instruction: p99, 2% of a stop at 10^7).
	 */
	for (i = 0; i < RP_SEG_CACHE; i++) {
		struct rp_seg *c = &t->cache[i];

		k = c->ckpt;
		if (k < t->nckpts && pos - c->first < c->n &&
		    t->ckpts[k].insn <= pos &&
		    (k + 1 == t->nckpts || t->ckpts[k + 1].insn > pos)) {
			seg = c;
			goto found;
		}
	}
	k = ckpt_of(t, pos);
	for (i = 0; i < RP_SEG_CACHE; i++)
		if (t->cache[i].ckpt == k) {
			seg = &t->cache[i];
			break;
		}
	if (!seg) {
		/* Evict the least recently used segment. */
		seg = &t->cache[0];
		for (i = 1; i < RP_SEG_CACHE; i++)
			if (t->cache[i].stamp < seg->stamp)
				seg = &t->cache[i];
		ret = rp_materialize(s, t, k, seg);
		if (ret == -RP_ERR_DECODE && !rp_idx_rebuild(s, t)) {
			/*
			 * A saved index that parts from the stream is stale:
			 * built again from the stream, positions follow it.
			 */
			if (pos >= t->insns)
				return -RP_ERR_RANGE;
			k = ckpt_of(t, pos);
			seg = &t->cache[0];
			ret = rp_materialize(s, t, k, seg);
		}
		if (ret == -RP_ERR_DECODE && !rp_reindex_exact(s, t)) {
			/*
			 * The block decoder's index disagreed with the
			 * instruction decoder on a damaged stream: the thread
			 * is now indexed by the latter, and positions follow.
			 */
			if (pos >= t->insns)
				return -RP_ERR_RANGE;
			k = ckpt_of(t, pos);
			seg = &t->cache[0];
			ret = rp_materialize(s, t, k, seg);
		}
		if (ret) {
			seg->ckpt = UINT64_MAX;
			return ret;
		}
	}
found:
	seg->stamp = ++t->clock;
	if (pos - seg->first >= seg->n)
		return rp_fail(s, RP_ERR_DECODE,
			       "thread %u: position %llu not in its segment",
			       t->tid, (unsigned long long)pos);
	*insn = &seg->insns[pos - seg->first];
	return 0;
}

int rp_cursor_new(struct rp_session *s, uint32_t tid, struct rp_cursor **cp)
{
	struct rp_thread *t = rp_find_thread(s, tid);
	struct rp_cursor *c;

	if (!t)
		return -RP_ERR_NOTHREAD;
	if (!t->insns)
		return -RP_ERR_RANGE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -RP_ERR_NOMEM;
	c->s = s;
	c->t = t;
	c->pos = t->insns - 1;
	*cp = c;
	return 0;
}

void rp_cursor_free(struct rp_cursor *c)
{
	free(c);
}

uint64_t rp_cursor_pos(const struct rp_cursor *c)
{
	return c->pos;
}

int rp_cursor_peek(struct rp_cursor *c, uint64_t pos, struct rp_insn *insn)
{
	const struct rp_insn *ri;
	int ret = fetch(c->s, c->t, pos, &ri);

	if (!ret)
		*insn = *ri;
	return ret;
}

int rp_cursor_insn(struct rp_cursor *c, struct rp_insn *insn)
{
	return rp_cursor_peek(c, c->pos, insn);
}

int rp_cursor_goto(struct rp_cursor *c, uint64_t pos)
{
	const struct rp_insn *ri;
	int ret = fetch(c->s, c->t, pos, &ri);

	if (!ret)
		c->pos = pos;
	return ret;
}

int rp_cursor_step(struct rp_cursor *c, int dir)
{
	if (dir < 0)
		return c->pos ? rp_cursor_goto(c, c->pos - 1) : -RP_ERR_RANGE;
	return rp_cursor_goto(c, c->pos + 1);
}

/* Class of the instruction at @pos, or -1 past the edges. */
static int cls(struct rp_cursor *c, uint64_t pos)
{
	const struct rp_insn *ri;

	return fetch(c->s, c->t, pos, &ri) ? -1 : ri->iclass;
}

/*
 * Where a depth scan entering a new segment goes on: the nearest segment
 * in direction @dir, starting with segment @k, whose lowest call depth is
 * below @target (the frame's depth), since no other can hold the frame's
 * call or return.  Sets *@p to the scan's next position there (its first
 * instruction forward, its last backward) and *@depth to the scan's count
 * at it.  Returns false when no segment qualifies.
 */
static bool skip_segments(const struct rp_thread *t, uint64_t k, int dir,
			  int64_t target, uint64_t *p, int64_t *depth)
{
	if (dir > 0) {
		while (k < t->nckpts && t->ckpts[k].dmin >= target)
			k++;
		if (k == t->nckpts)
			return false;
		*p = t->ckpts[k].insn;
		*depth = t->ckpts[k].depth - target;
	} else {
		/* k is the segment the scan leaves; k - 1 is next. */
		while (k && t->ckpts[k - 1].dmin >= target)
			k--;
		if (!k)
			return false;
		*p = t->ckpts[k].insn - 1;
		*depth = t->ckpts[k].depth - target;
	}
	return true;
}

/*
 * Scans from @from in direction @dir for the point where the call depth,
 * relative to @from, drops below zero: forward, the instruction after the
 * return that leaves the current function; backward, the call that entered
 * it.  Returns the position, or UINT64_MAX when the history ends first.
 *
 * Between segments, the checkpoints' call depths skip the segments that
 * cannot hold the answer, so a frame opened or closed far away costs a
 * scan of the index, not of the history.  The scan's count is D - D0
 * forward (D the depth before the instruction, D0 at @from) and D' - D0'
 * backward (D' after it, D0' after @from).
 */
static uint64_t depth_exit(struct rp_cursor *c, uint64_t from, int dir)
{
	const struct rp_thread *t = c->t;
	uint64_t p = from, seg = ckpt_of(t, from), lo, hi;
	int64_t depth = 0;
	int k;

	lo = t->ckpts[seg].insn;
	hi = seg + 1 < t->nckpts ? t->ckpts[seg + 1].insn : UINT64_MAX;
	for (;;) {
		k = cls(c, p);
		if (k < 0)
			return UINT64_MAX;
		if (dir > 0) {
			if (k == RP_IC_CALL)
				depth++;
			else if (k == RP_IC_RETURN && depth-- == 0)
				return p + 1 < c->t->insns ? p + 1 : UINT64_MAX;
			p++;
			if (p < hi || p >= t->insns)
				continue;
			/* Into the segment starting at p. */
			seg = ckpt_of(t, p);
			if (!skip_segments(t, seg, 1, t->ckpts[seg].depth - depth,
					   &p, &depth))
				return UINT64_MAX;
		} else {
			if (k == RP_IC_RETURN)
				depth++;
			else if (k == RP_IC_CALL && depth-- == 0)
				return p;
			if (!p)
				return UINT64_MAX;
			p--;
			if (p >= lo)
				continue;
			/* Out of the segment starting at p + 1. */
			seg = ckpt_of(t, p + 1);
			if (!skip_segments(t, seg, -1,
					   t->ckpts[seg].depth - depth, &p, &depth))
				return UINT64_MAX;
		}
		seg = ckpt_of(t, p);
		lo = t->ckpts[seg].insn;
		hi = seg + 1 < t->nckpts ? t->ckpts[seg + 1].insn : UINT64_MAX;
	}
}

int rp_cursor_finish(struct rp_cursor *c, int dir)
{
	uint64_t to;

	if (dir < 0 && !c->pos)
		return -RP_ERR_NOTFOUND;
	to = depth_exit(c, dir < 0 ? c->pos - 1 : c->pos, dir);
	if (to == UINT64_MAX) {
		c->pos = dir < 0 ? 0 : c->t->insns - 1;
		return -RP_ERR_NOTFOUND;
	}
	c->pos = to;
	return 0;
}

uint64_t rp_cursor_frame_exit(struct rp_cursor *c, uint64_t entry)
{
	if (entry >= c->t->insns)
		return UINT64_MAX;
	return depth_exit(c, entry, 1);
}

int rp_cursor_callers(struct rp_cursor *c, uint64_t pos, uint64_t *calls,
		      size_t max)
{
	size_t n = 0;
	uint64_t at;

	if (pos > c->t->insns)
		return -RP_ERR_RANGE;
	for (at = pos; at && n < max; at = calls[n++]) {
		uint64_t call = depth_exit(c, at - 1, -1);

		if (call == UINT64_MAX)
			break;
		calls[n] = call;
	}
	return (int)n;
}

int rp_cursor_blocks(struct rp_cursor *c, uint64_t first, uint64_t last,
		     int (*fn)(void *arg, const struct rp_blk *b), void *arg)
{
	struct rp_thread *t = c->t;
	uint64_t k, pos, j;
	struct pt_block block;
	struct rp_blk b;
	struct walk w;
	size_t i;
	int ret, status;

	if (first >= last)
		return 0;
	if (last > t->insns)
		return -RP_ERR_RANGE;
	if (t->exact || !t->nckpts)
		return -RP_ERR_DECODE;
	k = ckpt_of(t, first);
	/* Where the index's pass resynced after an error, its positions
	 * are not the continuous decode's.
	 */
	for (i = 0; i < t->ngaps; i++)
		if (t->gaps[i].before > t->ckpts[k].insn &&
		    t->gaps[i].before <= last)
			return -RP_ERR_DECODE;
	memset(&w, 0, sizeof(w));
	ret = rp_walk_begin_blocks(&w, c->s, t, &t->ckpts[k], &status);
	pos = t->ckpts[k].insn;
	j = k + 1;
	while (!ret && pos < last) {
		if (status >= 0 && (status & pts_event_pending))
			status = rp_walk_events(&w, status);
		if (w.err) {
			ret = w.err;
			break;
		}
		if (status < 0 || (status & pts_eos)) {
			ret = -RP_ERR_DECODE;
			break;
		}
		memset(&block, 0, sizeof(block));
		status = rp_bsrc_next(w.bd, &block);
		if (status < 0 || !block.ninsn)
			continue;
		if (block.mode != ptem_64bit || block.isid <= 0) {
			ret = -RP_ERR_DECODE;
			break;
		}
		if (pos + block.ninsn > first) {
			b.pos = pos;
			b.ip = block.ip;
			b.end_ip = block.end_ip;
			b.isid = block.isid;
			b.ninsn = block.ninsn;
			b.iclass = block.iclass;
			b.truncated = block.truncated;
			b.size = block.size;
			memcpy(b.raw, block.raw, sizeof(b.raw));
			ret = fn(arg, &b);
		}
		pos += block.ninsn;
		/*
		 * Decoding goes on through later checkpoints: the positions
		 * must still be the index's.  Every instruction decoded
		 * before the decoder reached checkpoint j's packet comes
		 * before it, so more than its count of instructions
		 * before it means the two decodes differ (a decode error
		 * the index resynced at, or libipt's block and instruction
		 * decoders disagreeing): the caller uses the cursor.
		 */
		if (j < t->nckpts && pos > t->ckpts[j].insn) {
			uint64_t off = 0;

			rp_bsrc_get_offset(w.bd, &off);
			off += (uint64_t)w.off_delta;
			if (off < t->ckpts[j].offset) {
				ret = -RP_ERR_DECODE;
				break;
			}
		}
		while (j < t->nckpts && t->ckpts[j].insn < pos)
			j++;
	}
	rp_walk_end(&w);
	return ret;
}

int rp_cursor_next(struct rp_cursor *c, int dir)
{
	uint64_t to;
	int k;

	if (dir > 0) {
		k = cls(c, c->pos);
		if (k != RP_IC_CALL)
			return rp_cursor_step(c, 1);
		/* Past the call: to the instruction after its return. */
		to = depth_exit(c, c->pos + 1, 1);
	} else {
		if (!c->pos)
			return -RP_ERR_RANGE;
		k = cls(c, c->pos - 1);
		if (k != RP_IC_RETURN)
			return rp_cursor_step(c, -1);
		/* Before a return: back to the call it returns from. */
		to = c->pos >= 2 ? depth_exit(c, c->pos - 2, -1) : UINT64_MAX;
	}
	if (to == UINT64_MAX) {
		c->pos = dir < 0 ? 0 : c->t->insns - 1;
		return -RP_ERR_RANGE;
	}
	c->pos = to;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int rp_cursor_search(struct rp_cursor *c, int dir, const uint64_t *ips,
		     size_t n)
{
	const struct rp_insn *ri;
	uint64_t *set, p = c->pos;
	int ret = -RP_ERR_NOTFOUND;

	if (!n)
		return -RP_ERR_NOTFOUND;
	set = malloc(n * sizeof(*set));
	if (!set)
		return -RP_ERR_NOMEM;
	memcpy(set, ips, n * sizeof(*set));
	qsort(set, n, sizeof(*set), cmp_u64);
	for (;;) {
		if (dir < 0 ? p == 0 : p + 1 >= c->t->insns)
			break;
		p = dir < 0 ? p - 1 : p + 1;
		if (fetch(c->s, c->t, p, &ri))
			break;
		if (bsearch(&ri->ip, set, n, sizeof(*set), cmp_u64)) {
			ret = 0;
			break;
		}
	}
	free(set);
	c->pos = p;
	return ret;
}

/*
 * The hit of thread @t nearest to @now in direction @dir, strictly beyond
 * it; UINT64_MAX when none.  Scans from the checkpoint nearest to @now.
 */
static uint64_t thread_hit(struct rp_session *s, struct rp_thread *t,
			   size_t ti, struct rp_when now, int dir,
			   const uint64_t *set, size_t n, struct rp_when *at)
{
	const struct rp_insn *ri;
	uint64_t p, k = 0, lo = 0, hi = t->nckpts;

	if (!t->insns)
		return UINT64_MAX;
	/* Last checkpoint not after @now: the scan starts there. */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (t->ckpts[mid].tsc <= now.tsc)
			lo = mid;
		else
			hi = mid;
	}
	k = lo;
	p = dir > 0 ? t->ckpts[k].insn : t->insns - 1;
	if (dir < 0 && k + 1 < t->nckpts && t->ckpts[k + 1].insn)
		p = t->ckpts[k + 1].insn - 1;
	for (;;) {
		struct rp_when w;

		if (fetch(s, t, p, &ri))
			return UINT64_MAX;
		w.tsc = ri->tsc;
		w.thread = ti;
		if (bsearch(&ri->ip, set, n, sizeof(*set), cmp_u64) &&
		    (dir > 0 ? rp_when_cmp(w, now) > 0 : rp_when_cmp(w, now) < 0)) {
			*at = w;
			return p;
		}
		if (dir > 0 ? p + 1 >= t->insns : p == 0)
			return UINT64_MAX;
		p = dir > 0 ? p + 1 : p - 1;
	}
}

int rp_search_threads(struct rp_session *s, int dir, uint32_t *tid,
		      uint64_t *pos, const uint64_t *ips, size_t n)
{
	struct rp_thread *start = rp_find_thread(s, *tid);
	const struct rp_insn *ri;
	struct rp_when now, best = { 0, 0 }, w;
	uint64_t *set, p, best_pos = UINT64_MAX;
	size_t i, best_thread = 0;
	int ret;

	if (!start)
		return -RP_ERR_NOTHREAD;
	ret = fetch(s, start, *pos, &ri);
	if (ret)
		return ret;
	now.tsc = ri->tsc;
	now.thread = (size_t)(start - s->threads);
	set = malloc((n ? n : 1) * sizeof(*set));
	if (!set)
		return -RP_ERR_NOMEM;
	memcpy(set, ips, n * sizeof(*set));
	qsort(set, n, sizeof(*set), cmp_u64);
	for (i = 0; i < s->nthreads && n; i++) {
		struct rp_thread *t = &s->threads[i];
		struct rp_cursor c = { .s = s, .t = t, .pos = *pos };

		if (t == start) {
			/* Our own thread: strictly past the cursor. */
			if (rp_cursor_search(&c, dir, set, n))
				continue;
			p = c.pos;
			if (fetch(s, t, p, &ri))
				continue;
			w.tsc = ri->tsc;
			w.thread = i;
		} else {
			p = thread_hit(s, t, i, now, dir, set, n, &w);
			if (p == UINT64_MAX)
				continue;
		}
		if (best_pos == UINT64_MAX ||
		    (dir > 0 ? rp_when_cmp(w, best) < 0 : rp_when_cmp(w, best) > 0)) {
			best = w;
			best_pos = p;
			best_thread = i;
		}
	}
	free(set);
	if (best_pos == UINT64_MAX)
		return -RP_ERR_NOTFOUND;
	*tid = s->threads[best_thread].tid;
	*pos = best_pos;
	return 0;
}

/* The function the instruction at @pos belongs to. */
struct fn {
	bool known, plt;	/* plt: a PLT stub (name@plt) */
	uint32_t image;
	uint64_t start;
	const char *name;	/* lives as long as the session */
	size_t len;		/* of the name without a .cold suffix */
	uint64_t entry;		/* run-time address of the function start */
};

static struct fn fn_at(struct rp_cursor *c, uint64_t pos)
{
	struct fn f = { 0 };
	struct rp_insn insn;
	struct rp_sym sym;
	size_t len;

	if (pos >= c->t->insns || rp_cursor_peek(c, pos, &insn) ||
	    rp_symbolize(c->s, &insn, &sym) || !sym.function)
		return f;
	len = strlen(sym.function);
	f.known = true;
	f.plt = len > 4 && !strcmp(sym.function + len - 4, "@plt");
	f.image = insn.image;
	f.start = sym.func_vaddr;
	f.entry = insn.ip - sym.offset;
	f.name = sym.function;
	/* GCC moves a function's cold paths, landing pads too, to a
	 * part of their own, "name.cold": the same frame.
	 */
	f.len = len > 5 && !strcmp(sym.function + len - 5, ".cold") ?
		len - 5 : len;
	return f;
}

static bool same_fn(struct fn a, struct fn b)
{
	return a.known && b.known && a.image == b.image &&
	       (a.start == b.start ||
		(a.len == b.len && !strncmp(a.name, b.name, a.len)));
}

/* How far back a frame's code is searched for a signal delivery. */
#define FRAMES_SIGNAL_SCAN (1u << 18)

/*
 * Where the kernel entered @f's frame to run a signal handler, between the
 * call @from and the position @at inside the frame: the nearest execution
 * of @f's entry that follows neither a branch nor its predecessor's next
 * address (the instruction before it was interrupted: a system call, or
 * any instruction for an asynchronous signal).  Returns its position, or
 * 0 when there is none within FRAMES_SIGNAL_SCAN instructions.
 */
static uint64_t signal_entry(struct rp_cursor *c, struct fn f, uint64_t from,
			     uint64_t at)
{
	struct rp_insn insn, prev;
	uint64_t p, stop = at > FRAMES_SIGNAL_SCAN ? at - FRAMES_SIGNAL_SCAN : 0;

	if (!f.known || stop < from + 1)
		stop = from + 1;
	for (p = at; p > stop; p--) {
		if (rp_cursor_peek(c, p, &insn) || insn.ip != f.entry)
			continue;
		if (rp_cursor_peek(c, p - 1, &prev))
			return 0;
		if ((prev.iclass == RP_IC_OTHER || prev.iclass == RP_IC_FAR) &&
		    prev.ip + prev.size != insn.ip)
			return p;
	}
	return 0;
}

/* How far back a landing looks for the frame it lands in. */
#define FRAMES_LANDING_WINDOW 64

/* How deep signal-return resynchronizations may nest. */
#define FRAMES_RESYNC_DEPTH 8

static int frames_at(struct rp_cursor *c, uint64_t pos, uint64_t *calls,
		     size_t max, int depth);

/*
 * After a signal handler has returned, calls and returns no longer match:
 * the handler's return counts, its entry did not, so the frames around the
 * interrupted point lose their oldest call.  The frames of @f at @at are
 * then those at the interrupted instruction: finds the latest handler
 * return before @at (a return followed, within three instructions, by a
 * system call that resumes elsewhere: rt_sigreturn), the delivery it ends
 * (the instruction whose next address is where rt_sigreturn resumed,
 * followed by something else), and takes the frames there from @f's on.
 * Returns how many it put in @calls, or -1 when it finds none.
 */
/*
 * Positions [@lo, @at) just scanned by resync_after_signal() hold no
 * handler return; those whose three instructions after them are before
 * @at (the scan does not look past it) are remembered.
 */
static void quiet_add(struct rp_cursor *c, uint64_t lo, uint64_t at)
{
	uint64_t hi = at > 4 ? at - 4 : 0;
	size_t i, into = RP_CURSOR_QUIET, old = 0;

	if (lo >= hi)
		return;
	c->quiet_clock++;
	/* Merge every stretch it meets into one. */
	for (i = 0; i < RP_CURSOR_QUIET; i++) {
		if (c->quiet[i].lo >= c->quiet[i].hi ||
		    lo > c->quiet[i].hi || hi < c->quiet[i].lo)
			continue;
		lo = lo < c->quiet[i].lo ? lo : c->quiet[i].lo;
		hi = hi > c->quiet[i].hi ? hi : c->quiet[i].hi;
		if (into < RP_CURSOR_QUIET)
			c->quiet[i].lo = c->quiet[i].hi = 0;
		else
			into = i;
	}
	if (into >= RP_CURSOR_QUIET) {
		/* An empty slot, or the least recently used. */
		for (i = 0; i < RP_CURSOR_QUIET; i++) {
			if (c->quiet[i].lo >= c->quiet[i].hi) {
				old = i;
				break;
			}
			if (c->quiet[i].used < c->quiet[old].used)
				old = i;
		}
		into = old;
	}
	c->quiet[into].lo = lo;
	c->quiet[into].hi = hi;
	c->quiet[into].used = c->quiet_clock;
}

/* The stretch known to hold no handler return that holds @p, or NULL. */
static uint64_t *quiet_at(struct rp_cursor *c, uint64_t p)
{
	size_t i;

	for (i = 0; i < RP_CURSOR_QUIET; i++)
		if (p >= c->quiet[i].lo && p < c->quiet[i].hi) {
			c->quiet[i].used = ++c->quiet_clock;
			return &c->quiet[i].lo;
		}
	return NULL;
}

uint64_t rp_cursor_resync_peeks(const struct rp_cursor *c)
{
	return c->resync_peeks;
}

static int resync_after_signal(struct rp_cursor *c, struct fn f, uint64_t at,
			       uint64_t *calls, size_t max, int depth)
{
	uint64_t stop = at > FRAMES_SIGNAL_SCAN ? at - FRAMES_SIGNAL_SCAN : 0;
	uint64_t p, d, resume = 0, *sub, *q;
	struct rp_insn insn, next;
	struct fn g;
	int k, nsub, m;

	if (depth >= FRAMES_RESYNC_DEPTH || !f.known)
		return -1;
	for (p = at; p-- > stop && !resume;) {
		q = quiet_at(c, p);
		if (q) {
			p = *q;	/* known: none in there */
			continue;
		}
		c->resync_peeks++;
		if (rp_cursor_peek(c, p, &insn) || insn.iclass != RP_IC_RETURN)
			continue;
		for (k = 1; k <= 3 && p + k + 1 <= at; k++) {
			if (rp_cursor_peek(c, p + k, &insn) ||
			    rp_cursor_peek(c, p + k + 1, &next))
				break;
			if (insn.iclass == RP_IC_FAR) {
				if (insn.ip + insn.size != next.ip)
					resume = next.ip;
				break;
			}
		}
	}
	quiet_add(c, resume ? p + 2 : stop, at);
	if (!resume)
		return -1;
	/* p is now one before the handler's return: its delivery. */
	for (d = p + 1; d-- > stop + 1;) {
		if (rp_cursor_peek(c, d - 1, &insn) ||
		    rp_cursor_peek(c, d, &next))
			continue;
		if (insn.ip + insn.size == resume && next.ip != resume)
			break;
	}
	if (d <= stop + 1)
		return -1;
	sub = malloc(max * sizeof(*sub));
	if (!sub)
		return -1;
	nsub = frames_at(c, d - 1, sub, max, depth + 1);
	g = fn_at(c, d - 1);
	for (m = 0; m < nsub && !same_fn(g, f); m++)
		g = fn_at(c, sub[m]);
	if (m >= nsub && !same_fn(g, f)) {
		free(sub);
		return -1;
	}
	memcpy(calls, sub + m, (size_t)(nsub - m) * sizeof(*calls));
	free(sub);
	return nsub - m;
}

/* How far back the call matching a return into a frame is searched. */
#define FRAMES_CALL_SCAN (1u << 20)

/*
 * A frame @f whose code at @at is not the callee of its raw opener @opener
 * and lands in none of the callers: either a tail call, or a frame whose
 * own opener is not in the history, with the frames a longjmp or an
 * exception abandoned left on the raw count (after main returned, main's
 * return matched their oldest call).  The latest return into this frame
 * (between @opener and @at, at the frame's own level) names the call it
 * returns to by address: found before @opener, that call is in this frame
 * and its frames are this frame's; not found in the history at all, the
 * frame is the outermost recorded one.  Puts the frames in @calls and
 * returns how many (0: the outermost), or -1 for a tail call (or when the
 * history is too long to tell).
 */
static int returned_into(struct rp_cursor *c, struct fn f, uint64_t opener,
			 uint64_t at, uint64_t *calls, size_t max, int depth)
{
	uint64_t p, stop, target = 0;
	struct rp_insn insn;
	int64_t d = 0;
	int k;

	if (depth >= FRAMES_RESYNC_DEPTH || !f.known)
		return -1;
	stop = at > opener + FRAMES_SIGNAL_SCAN ? at - FRAMES_SIGNAL_SCAN :
		opener + 1;
	for (p = at; p-- > stop;) {
		k = cls(c, p);
		if (k == RP_IC_RETURN && d == 0) {
			if (rp_cursor_peek(c, p + 1, &insn) ||
			    !same_fn(fn_at(c, p + 1), f))
				return -1;
			target = insn.ip;
			break;
		} else if (k == RP_IC_RETURN) {
			d++;
		} else if (k == RP_IC_CALL && d-- == 0) {
			return -1;
		}
	}
	if (!target)
		return -1;
	/* p is the return; the call it returns to. */
	stop = p > FRAMES_CALL_SCAN ? p - FRAMES_CALL_SCAN : 0;
	while (p-- > stop) {
		if (cls(c, p) != RP_IC_CALL || rp_cursor_peek(c, p, &insn) ||
		    insn.ip + insn.size != target)
			continue;
		if (p >= opener)
			return -1;	/* a call of this very frame */
		return frames_at(c, p, calls, max, depth + 1);
	}
	return stop ? -1 : 0;
}

/* How far ahead a non-local exit's last jump is looked for. */
#define FRAMES_LANDING_AHEAD 16

/*
 * The last instructions of a non-local exit (libgcc's context install at
 * the end of _Unwind_RaiseException, __longjmp) run on the stack of the
 * frame they land in: the stack pointer and the frame's registers are
 * already restored.  So there, as GDB's unwinding of the real registers
 * shows (and record full's stepping goes by), the frame's caller is the
 * landing frame, not the frames the exit abandons.  When straight-line
 * code from @at on ends, within FRAMES_LANDING_AHEAD instructions, in a
 * jump into the middle of a function (not its entry: that is a tail call)
 * whose frame is an older caller, the frames at @at are the frame's own
 * call @raw[0] and then the landing frame's.  Returns how many it put in
 * @calls, or -1 when @at is not there.
 */
static int landing_ahead(struct rp_cursor *c, struct fn f, uint64_t at,
			 const uint64_t *raw, size_t nraw, uint64_t *calls,
			 size_t max, int depth)
{
	uint64_t p, end = at + FRAMES_LANDING_AHEAD;
	struct rp_insn insn;
	struct fn g;
	size_t j;
	int k, got;

	if (!f.known || nraw < 2 || max < 2 || depth >= FRAMES_RESYNC_DEPTH)
		return -1;
	for (p = at; p < end && p + 1 < c->t->insns; p++) {
		k = cls(c, p);
		if (k == RP_IC_OTHER)
			continue;
		if (k != RP_IC_JUMP)
			return -1;
		if (rp_cursor_peek(c, p + 1, &insn))
			return -1;
		g = fn_at(c, p + 1);
		if (!g.known || same_fn(g, f) || insn.ip == g.entry)
			return -1;
		for (j = 1; j < nraw && j < FRAMES_LANDING_WINDOW; j++)
			if (same_fn(fn_at(c, raw[j]), g))
				break;
		if (j >= nraw || j >= FRAMES_LANDING_WINDOW)
			return -1;
		got = frames_at(c, p + 1, calls + 1, max - 1, depth + 1);
		if (got < 0)
			return -1;
		calls[0] = raw[0];
		return got + 1;
	}
	return -1;
}

int rp_cursor_frames(struct rp_cursor *c, uint64_t pos, uint64_t *calls,
		     size_t max)
{
	return frames_at(c, pos, calls, max, 0);
}

static int frames_at(struct rp_cursor *c, uint64_t pos, uint64_t *calls,
		     size_t max, int depth)
{
	size_t want = max + FRAMES_LANDING_WINDOW, i = 0, j, n = 0;
	uint64_t *raw, at, sig;
	struct fn f, target;
	int nraw, got;

	if (pos > c->t->insns)
		return -RP_ERR_RANGE;
	raw = malloc(want * sizeof(*raw));
	if (!raw)
		return -RP_ERR_NOMEM;
	nraw = rp_cursor_callers(c, pos, raw, want);
	if (nraw < 0) {
		free(raw);
		return nraw;
	}
	at = pos < c->t->insns ? pos : c->t->insns - 1;
	f = fn_at(c, at);
	got = landing_ahead(c, f, at, raw, (size_t)nraw, calls, max, depth);
	if (got >= 0) {
		free(raw);
		return got;
	}
	while (i < (size_t)nraw && n < max) {
		target = fn_at(c, raw[i] + 1);
		if (target.plt)	/* where the stub's jump went */
			target = fn_at(c, raw[i] + 2);
		if (f.known && !same_fn(target, f)) {
			/*
			 * The frame's code is not the callee's: a tail call,
			 * or a landing (longjmp, an exception's landing pad)
			 * in the frame that made an older call.  Only the
			 * landing finds that frame among the callers.
			 */
			for (j = i; j < (size_t)nraw &&
			     j < i + FRAMES_LANDING_WINDOW; j++)
				if (same_fn(fn_at(c, raw[j]), f))
					break;
			if (j < (size_t)nraw && j < i + FRAMES_LANDING_WINDOW) {
				i = j + 1;
				continue;
			}
			/*
			 * A signal handler: entered by the kernel, not by a
			 * call.  Its frame opens at the interrupted
			 * instruction, whose next address is where the
			 * interrupted frame resumes; that frame's own call
			 * is still raw[i].
			 */
			sig = signal_entry(c, f, raw[i], at);
			if (sig) {
				calls[n++] = sig - 1;
				f = fn_at(c, sig - 1);
				at = sig - 1;
				continue;
			}
			got = resync_after_signal(c, f, at, calls + n, max - n,
						  depth);
			if (got < 0)
				got = returned_into(c, f, raw[i], at, calls + n,
						    max - n, depth);
			if (got >= 0) {
				n += got;
				break;
			}
		}
		calls[n++] = raw[i];
		f = fn_at(c, raw[i]);
		at = raw[i];
		i++;
	}
	/* Out of calls below a frame that is not the history's first. */
	if (i >= (size_t)nraw && n < max && f.known &&
	    !same_fn(f, fn_at(c, 0))) {
		got = resync_after_signal(c, f, at, calls + n, max - n, depth);
		if (got > 0)
			n += got;
	}
	free(raw);
	return (int)n;
}
