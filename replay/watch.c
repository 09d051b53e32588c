// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Watchpoints in both directions (issue #18): which instruction last wrote
 * (or read, or will write) some bytes.  Intel PT records no data
 * addresses; the recovery engine (recover.c) implies most of them from
 * the end snapshot and the history, and says which it cannot.  This file
 * keeps the watched ranges and scans a thread's positions, either way,
 * for the nearest access that touches one: a known address that overlaps,
 * or, unless the set skips them, a store or load whose address is unknown
 * ("may have written", "may have read"; by default wherever, or, assuming
 * the stack pointer stays in its stack, only one whose bounds reach the
 * range).  The timeline (timeline.c) orders threads in time and
 * decides where a stop lands.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_win.h"
#include "rp_internal.h"
#include "watch_exit.h"
#include "watch_kern.h"
#include "watch_rep.h"
#include "watch_proof.h"
#include "watch_tsx.h"

struct wp {
	unsigned int type;
	uint32_t pid;
	uint64_t addr, len;
};

struct rp_watch {
	struct wp *v;
	size_t n, cap;
	enum rp_watch_unknown unknown;
	/* The union of the ranges, as one interval, for a first test. */
	uint64_t lo, hi;
	unsigned int types;	/* RP_WATCH_* bits of any watchpoint */
	/* During a scan: the process whose memory the scanned one shares
	 * (a CLONE_VM child, vfork's), whose watchpoints it hits too.
	 */
	uint32_t mem_pid;
	struct wpx_cache *xc;	/* threads' exits (watch_exit.c) */
	struct wpt_cache *tc;	/* aborted transactions (watch_tsx.c) */
	struct wpk_cache *kc;	/* the kernel's writes (watch_kern.c) */
};

int rp_watch_new(struct rp_watch **w)
{
	*w = calloc(1, sizeof(**w));
	if (!*w)
		return -RP_ERR_NOMEM;
	(*w)->unknown = RP_WATCH_UNKNOWN_STOP;
	return 0;
}

void rp_watch_free(struct rp_watch *w)
{
	if (!w)
		return;
	free(w->v);
	wpx_cache_free(w->xc);
	wpt_cache_free(w->tc);
	wpk_cache_free(w->kc);
	free(w);
}

static void bounds(struct rp_watch *w)
{
	size_t i;

	w->lo = UINT64_MAX;
	w->hi = 0;
	w->types = 0;
	for (i = 0; i < w->n; i++) {
		if (w->v[i].addr < w->lo)
			w->lo = w->v[i].addr;
		if (w->v[i].addr + w->v[i].len > w->hi)
			w->hi = w->v[i].addr + w->v[i].len;
		w->types |= w->v[i].type;
	}
}

static long find(const struct rp_watch *w, unsigned int type, uint32_t pid,
		 uint64_t addr, uint64_t len)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->v[i].type == type && w->v[i].pid == pid &&
		    w->v[i].addr == addr && w->v[i].len == len)
			return (long)i;
	return -1;
}

int rp_watch_insert(struct rp_watch *w, unsigned int type, uint32_t pid,
		    uint64_t addr, uint64_t len)
{
	if (!len || addr + len < addr || !type || type > RP_WATCH_ACCESS)
		return -RP_ERR_INVAL;
	if (find(w, type, pid, addr, len) >= 0)
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct wp *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -RP_ERR_NOMEM;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (struct wp){ type, pid, addr, len };
	bounds(w);
	return 0;
}

int rp_watch_remove(struct rp_watch *w, unsigned int type, uint32_t pid,
		    uint64_t addr, uint64_t len)
{
	long k = find(w, type, pid, addr, len);

	if (k < 0)
		return -RP_ERR_NOTFOUND;
	w->v[k] = w->v[--w->n];
	bounds(w);
	return 0;
}

size_t rp_watch_count(const struct rp_watch *w)
{
	return w ? w->n : 0;
}

void rp_watch_clear(struct rp_watch *w)
{
	w->n = 0;
	bounds(w);
}

void rp_watch_set_unknown(struct rp_watch *w, enum rp_watch_unknown mode)
{
	w->unknown = mode;
}

enum rp_watch_unknown rp_watch_get_unknown(const struct rp_watch *w)
{
	return w->unknown;
}

/*
 * Does access @a hit a watchpoint of process @pid?  The definite hit, if
 * any, goes into @hit and returns 2; a possible one (unknown address)
 * returns 1; none 0.
 */
static int match(const struct rp_watch *w, uint32_t pid,
		 const struct rp_access *a, struct rp_watch_hit *hit)
{
	unsigned int need = a->kind == RP_ACC_WRITE ? RP_WATCH_WRITE :
						      RP_WATCH_READ;
	size_t i;

	if (!(w->types & need))
		return 0;
	if (a->addr_known &&
	    (a->addr >= w->hi || a->addr + a->size <= w->lo))
		return 0;
	for (i = 0; i < w->n; i++) {
		const struct wp *p = &w->v[i];

		if (!(p->type & need) ||
		    (p->pid != pid && p->pid != w->mem_pid))
			continue;
		if (a->addr_known) {
			if (a->addr >= p->addr + p->len ||
			    a->addr + a->size <= p->addr)
				continue;
		} else if (w->unknown == RP_WATCH_UNKNOWN_SKIP ||
			   (w->unknown == RP_WATCH_UNKNOWN_STACK &&
			    a->hi > a->lo && (a->lo >= p->addr + p->len ||
					      a->hi <= p->addr))) {
			/* Under the stack assumption, an unknown store or
			 * load bounded away from the range (the stack, fs)
			 * cannot touch it.
			 */
			continue;
		}
		hit->type = p->type;
		hit->addr = p->addr;
		hit->len = p->len;
		hit->kind = a->kind;
		hit->maybe = !a->addr_known || a->cond;
		hit->syscall = a->syscall;
		hit->acc_addr = a->addr;
		hit->acc_size = a->size;
		return a->addr_known && !a->cond ? 2 : 1;
	}
	return 0;
}

struct scan_arg {
	const struct rp_watch *w;
	uint32_t pid;
	struct rp_watch_hit *hit;
	struct rp_recover *rc;
	unsigned int kinds;
};

/* rp_recover_scan()'s question at each instruction: 1 (stop) at a hit,
 * definite or possible, with it in *a->hit.
 */
static int scan_one(void *arg, const struct rp_access *acc, int n)
{
	struct scan_arg *a = arg;
	struct rp_watch_hit h = { 0 }, maybe = { 0 };
	int k, m, best = 0;

	for (k = 0; k < n && best < 2; k++) {
		m = match(a->w, a->pid, &acc[k], &h);
		if (m == 2) {
			*a->hit = h;
			best = 2;
		} else if (m == 1 && !best) {
			maybe = h;
			best = 1;
		}
	}
	if (best == 1)
		*a->hit = maybe;
	return best ? 1 : 0;
}

/* wpf_prove()'s question: may an access of @kind to [lo, hi) hit? */
static bool may_hit(void *arg, unsigned int kind, uint64_t lo, uint64_t hi)
{
	const struct scan_arg *a = arg;
	unsigned int need = kind == RP_ACC_WRITE ? RP_WATCH_WRITE :
						   RP_WATCH_READ;
	size_t i;

	if (lo >= a->w->hi || hi <= a->w->lo)
		return false;
	for (i = 0; i < a->w->n; i++) {
		const struct wp *p = &a->w->v[i];

		if ((p->type & need) &&
		    (p->pid == a->pid || p->pid == a->w->mem_pid) &&
		    lo < p->addr + p->len && p->addr < hi)
			return true;
	}
	return false;
}

/*
 * wpf_scan()'s second question, with stop and stack: a stop at @pos for
 * an access whose address the engine does not know ("may have written")
 * is ruled out where a proof shows that every access of that
 * instruction misses the watched bytes (its true address is in an
 * interval away from them).  Only within the engine's chain, where the
 * proofs do not depend on what was asked before.
 */
static bool refute(void *arg, uint64_t pos)
{
	struct scan_arg *a = arg;

	return a->hit->maybe &&
	       wpf_prove(a->rc, pos, pos + 1, a->kinds, false, may_hit, a) == 1;
}

/* The stop at gap @g: an unknown write, else (rwatch) read, that hits. */
static int gap_hit(const struct rp_watch *w, uint32_t pid, uint64_t g,
		   uint64_t bytes, struct rp_watch_hit *hit)
{
	struct rp_access acc = { 0 };

	acc.kind = RP_ACC_WRITE;
	if (!match(w, pid, &acc, hit)) {
		acc.kind = RP_ACC_READ;
		if (!match(w, pid, &acc, hit))
			return -RP_ERR_NOTFOUND;
	}
	hit->pos = g;
	hit->gap = true;
	hit->gap_bytes = bytes;
	return 0;
}

/*
 * The stop at the lone exit(2) after instruction @g: the kernel's writes
 * there (watch_exit.c), the clear_child_tid word and the robust futex
 * words the thread owns where the sideband and the history show them
 * (definite writes, with their values), a futex word of unknown value (a
 * write that may happen at a known address), else of unknown address
 * ("may have written", reported as before: @gap and @syscall).
 */
static int exit_hit(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		    uint64_t g, struct rp_watch_hit *hit)
{
	struct scan_arg a = { w, pid, hit, rc, 0 };
	const struct rp_access *acc;
	int n;

	n = wpx_exit_accesses(&w->xc, rc, &acc);
	if (n < 0)
		return n;
	if (!scan_one(&a, acc, n))
		return -RP_ERR_NOTFOUND;
	wpx_exit_values(w->xc, rc, hit);
	hit->pos = g;
	if (hit->maybe)
		hit->gap = true;
	return 0;
}

static int scan(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		int dir, uint64_t lo, uint64_t hi, struct rp_watch_hit *hit);

/*
 * The stop after the history's last instruction for the iterations of
 * the string instruction it ends inside (watch_rep.c), when that is in
 * [@lo, @hi) and they touch a watched byte.
 */
static int rep_hit(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		   uint64_t lo, uint64_t hi, struct rp_watch_hit *hit)
{
	struct scan_arg a = { w, pid, hit, rc, 0 };
	struct rp_access acc[3];
	uint64_t g = 0;
	int n;

	n = wpr_end_accesses(rc, acc, &g);
	memset(hit, 0, sizeof(*hit));
	if (n <= 0 || g < lo || g >= hi || !scan_one(&a, acc, n)) {
		memset(hit, 0, sizeof(*hit));
		return -RP_ERR_NOTFOUND;
	}
	hit->pos = g;
	return 0;
}

static int scan_hist(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		     int dir, uint64_t lo, uint64_t hi,
		     struct rp_watch_hit *hit);

/*
 * The kernel's writes between two instructions (watch_kern.c): the
 * nearest that hits, after instruction k, comes after k's own accesses
 * and before k + 1's.  The rseq area's rewrites may happen, and their
 * values are unknown: skip passes them, as stores of unknown address.
 */
static int scan_kern(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		     int dir, uint64_t lo, uint64_t hi,
		     struct rp_watch_hit *hit)
{
	struct rp_watch_hit kh = { 0 };
	struct scan_arg a = { w, pid, &kh, rc, 0 };
	uint8_t why = 0;
	uint64_t k;
	int ret;

	if (!(w->types & RP_WATCH_WRITE))
		return scan_hist(w, rc, pid, dir, lo, hi, hit);
	ret = wpk_near(&w->kc, rc, dir, lo, hi,
		       w->unknown != RP_WATCH_UNKNOWN_SKIP, scan_one, &a, &k,
		       &why);
	if (ret == -RP_ERR_NOTFOUND)
		return scan_hist(w, rc, pid, dir, lo, hi, hit);
	if (ret)
		return ret;
	ret = -RP_ERR_NOTFOUND;
	if (dir < 0 && k + 1 < hi)
		ret = scan_hist(w, rc, pid, dir, k + 1, hi, hit);
	else if (dir >= 0)
		ret = scan_hist(w, rc, pid, dir, lo, k + 1, hit);
	if (ret != -RP_ERR_NOTFOUND)
		return ret;
	*hit = kh;
	hit->pos = k;
	hit->kernel = why;
	return 0;
}

/* The partial string instruction at the end is the history's last
 * access: first backwards, last forwards.
 */
int rp_watch_scan(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		  int dir, uint64_t lo, uint64_t hi,
		  struct rp_watch_hit *hit)
{
	int ret;

	if (!w->n || lo >= hi)
		return -RP_ERR_NOTFOUND;
	w->mem_pid = wpx_mem_owner(rc->s, pid);
	if (!w->mem_pid)
		w->mem_pid = pid;
	if (dir < 0 && !rep_hit(w, rc, pid, lo, hi, hit))
		return 0;
	ret = scan_kern(w, rc, pid, dir, lo, hi, hit);
	if (dir >= 0 && ret == -RP_ERR_NOTFOUND &&
	    !rep_hit(w, rc, pid, lo, hi, hit))
		return 0;
	return ret;
}

static int scan_hist(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		     int dir, uint64_t lo, uint64_t hi,
		     struct rp_watch_hit *hit)
{
	uint64_t g = 0, bytes = 0;
	bool exit = false, found;
	int ret;

	memset(hit, 0, sizeof(*hit));
	if (w->unknown == RP_WATCH_UNKNOWN_SKIP) {
		/* Gaps pass; the exit's known writes do not. */
		found = exit = wpx_exit_near(rc, lo, hi, &g);
	} else {
		found = wpf_gap_near(rc, dir, lo, hi, &g, &bytes, &exit);
	}
	if (!found)
		return scan(w, rc, pid, dir, lo, hi, hit);
	/*
	 * A gap after instruction g: accesses nearer than it first (g's
	 * own, made before the gap, share its stop: the gap's is reported).
	 */
	ret = dir < 0 ? scan(w, rc, pid, dir, g + 1, hi, hit) :
			scan(w, rc, pid, dir, lo, g, hit);
	if (ret != -RP_ERR_NOTFOUND)
		return ret;
	ret = exit ? exit_hit(w, rc, pid, g, hit) :
		     gap_hit(w, pid, g, bytes, hit);
	if (ret == -RP_ERR_NOTFOUND) {	/* nothing it touches is watched */
		memset(hit, 0, sizeof(*hit));
		return dir < 0 ? scan(w, rc, pid, dir, lo, g + 1, hit) :
				 scan(w, rc, pid, dir, g, hi, hit);
	}
	return ret;
}

static int scan_range(struct rp_watch *w, struct rp_recover *rc,
		      uint32_t pid, int dir, uint64_t lo, uint64_t hi,
		      struct rp_watch_hit *hit);

struct live_arg {
	struct rp_watch *w;
	struct rp_recover *rc;
	uint32_t pid;
	int dir;
	struct rp_watch_hit *hit;
};

static int scan_part(void *arg, uint64_t lo, uint64_t hi)
{
	struct live_arg *a = arg;

	return scan_range(a->w, a->rc, a->pid, a->dir, lo, hi, a->hit);
}

/* [@lo, @hi) but the positions of aborted transactions (watch_tsx.c). */
static int scan(struct rp_watch *w, struct rp_recover *rc, uint32_t pid,
		int dir, uint64_t lo, uint64_t hi, struct rp_watch_hit *hit)
{
	struct live_arg a = { w, rc, pid, dir, hit };

	if (lo >= hi)
		return -RP_ERR_NOTFOUND;
	return wpt_scan_live(&w->tc, rc, dir, lo, hi, scan_part, &a);
}

static int scan_range(struct rp_watch *w, struct rp_recover *rc,
		      uint32_t pid, int dir, uint64_t lo, uint64_t hi,
		      struct rp_watch_hit *hit)
{
	struct scan_arg a = { w, pid, hit, rc, 0 };
	unsigned int kinds;
	uint64_t p;
	int ret;

	if (lo >= hi)
		return -RP_ERR_NOTFOUND;
	/* Instructions that cannot access memory of a watched kind, as
	 * their decoding shows, are passed without asking their addresses.
	 */
	kinds = (w->types & RP_WATCH_WRITE ? RP_ACC_WRITE : 0) |
		(w->types & RP_WATCH_READ ? RP_ACC_READ : 0);
	a.kinds = kinds;
	p = dir < 0 ? hi - 1 : lo;
	/*
	 * Windows where watch_proof.c proves that no access touches a
	 * watched byte (each has its true address in an interval away from
	 * them) are passed without the engine, and a stop at an access the
	 * engine does not know is ruled out where a proof shows that it
	 * misses.  With skip the scan stops only at accesses the engine
	 * knows (their true addresses), which a proof rules out wherever
	 * it reaches; with stop and stack, whether the engine knows an
	 * access decides a stop, so proofs count only within the engine's
	 * chain, where every window is proven whatever was asked before.
	 */
	ret = wpf_scan(rc, &p, dir, lo, hi, kinds,
		       w->unknown == RP_WATCH_UNKNOWN_SKIP, scan_one, may_hit,
		       w->unknown == RP_WATCH_UNKNOWN_SKIP ? NULL : refute,
		       &a);
	if (!ret)
		hit->pos = p;
	return ret;
}
