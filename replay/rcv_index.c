// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recovery engine's memory index (issue #17, docs/values.md): every
 * load and store of a window whose address is known, as (8-byte word,
 * position) entries sorted for binary search, and the barriers where
 * memory may change in ways the history does not name.  Built whole at
 * the start of a pass (rcv_build_index()) and kept current during the
 * sweeps as a rebuild would make it (rcv_index_touch(); PTREC_RCV_VERIFY=1
 * compares the two, rcv_index_verify()).  rcv_mem.c answers questions
 * from it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_win.h"

static inline bool ent_lt(const struct ent *a, const struct ent *b)
{
	return a->word < b->word || (a->word == b->word && a->pos < b->pos);
}

/*
 * Sorts @w's index by (word, pos): a bottom-up merge sort with the order
 * inline (qsort's calls of a comparison were a twentieth of a window).
 * Entries equal in both are the same, so the result is qsort's.
 */
static int ent_sort(struct win *w)
{
	struct ent *a = w->idx, *b, *t;
	size_t n = w->nidx, run, lo, i, j, k, mid, hi;

	if (w->tmp_cap < n) {
		t = realloc(w->tmp, n * sizeof(*t));
		if (!t)
			return -RP_ERR_NOMEM;
		w->tmp = t;
		w->tmp_cap = n;
	}
	b = w->tmp;
	/* Runs of 16 by insertion. */
	for (lo = 0; lo < n; lo += 16) {
		hi = lo + 16 < n ? lo + 16 : n;
		for (i = lo + 1; i < hi; i++) {
			struct ent e = a[i];

			for (j = i; j > lo && ent_lt(&e, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = e;
		}
	}
	for (run = 16; run < n; run *= 2) {
		for (lo = 0; lo < n; lo += 2 * run) {
			mid = lo + run < n ? lo + run : n;
			hi = lo + 2 * run < n ? lo + 2 * run : n;
			i = lo;
			j = mid;
			k = lo;
			while (i < mid && j < hi)
				b[k++] = ent_lt(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		t = a;
		a = b;
		b = t;
	}
	if (a != w->idx) {
		/* The sorted entries ended in the other buffer: swap. */
		w->tmp = w->idx;
		w->idx = a;
		k = w->tmp_cap;
		w->tmp_cap = w->idx_cap;
		w->idx_cap = k;
	}
	return 0;
}

static int add_ent(struct win *w, uint64_t addr, uint64_t len, size_t pos)
{
	uint64_t a;

	if (!len)
		return 0;
	for (a = addr >> 3; a <= (addr + len - 1) >> 3; a++) {
		if (w->nidx == w->idx_cap) {
			size_t cap = w->idx_cap ? 2 * w->idx_cap : 4096;
			struct ent *e = realloc(w->idx, cap * sizeof(*e));

			if (!e)
				return -RP_ERR_NOMEM;
			w->idx = e;
			w->idx_cap = cap;
		}
		w->idx[w->nidx++] = (struct ent){ a, (uint32_t)pos };
	}
	return 0;
}

/*
 * Instruction @i's part of the index from what the states know now
 * (struct rcv_part): its barrier flag (a system call's), its barrier, the
 * entries it makes, what it puts in, whether it may change the mappings
 * (w->protc).  Computed without changing anything; part_apply() puts it
 * in.
 */
static inline __attribute__((always_inline)) void
part_of(struct win *w, size_t i, struct rcv_part *p)
{
	struct rcv_ctx *c = &w->rc->ctx;
	const struct rcv_ins *in = &w->ins[i];
	uint8_t fl = in->flags;
	struct rcv_acc rd, wr;

	p->e = 0;
	p->sa = p->sl = 0;
	p->rd = p->wr = false;
	p->ra = p->wa = 0;
	p->rs = p->ws = 0;
	p->bar = fl & (RCV_I_BARRIER | RCV_I_MEMBAR);
	if (fl & RCV_I_SYSCALL) {
		uint64_t nr = w->st[i].r[RP_REG_RAX].v;
		bool known = w->st[i].r[RP_REG_RAX].k == ~0ull;

		/* Registers: only a known, ordinary syscall lets
		 * knowledge pass.  Once known, always known; but
		 * never across a transfer or trace gap after it
		 * (a signal delivered on its return: RCV_I_XFER).
		 */
		if (known && !rcv_sys_resets(nr) && !(fl & RCV_I_XFER))
			fl &= (uint8_t)~RCV_I_BARRIER;
		else
			fl |= RCV_I_BARRIER;
		if (fl & RCV_I_BARRIER) {
			p->bar = true;
		} else {
			p->e = rcv_sys_write(w, i, &p->sa, &p->sl);
			if (p->e < 0)
				p->bar = true;
		}
	}
	p->fbar = fl & RCV_I_BARRIER;
	p->ix = 0;
	if (!p->bar) {
		rcv_reads(c, in, &w->st[i], &w->st[i + 1], &rd);
		rcv_writes(c, in, &w->st[i], &w->st[i + 1], &wr);
		if (wr.valid && !wr.addr_known)
			p->bar = true;
		if (rd.valid && rd.addr_known) {
			p->rd = true;
			p->ra = rd.addr;
			p->rs = rd.size;
			p->ix |= RCV_IX_RD;
		}
		if (wr.valid && wr.addr_known) {
			p->wr = true;
			p->wa = wr.addr;
			p->ws = wr.size;
			p->ix |= RCV_IX_WR;
		}
		if (!(fl & RCV_I_SYSCALL) &&
		    ((rd.valid && !rd.addr_known) ||
		     (wr.valid && !wr.addr_known)))
			p->ix |= RCV_IX_OPEN;
	}
	p->prot = (fl & RCV_I_BARRIER) ||
		  ((fl & RCV_I_SYSCALL) && !rcv_sys_keeps_maps(w, i));
}

/* Part @p of instruction @i put in @w's index (entries appended). */
static inline __attribute__((always_inline)) int
part_apply(struct win *w, size_t i, const struct rcv_part *p)
{
	int ret;

	if (w->ins[i].flags & RCV_I_SYSCALL)
		w->ins[i].flags = (uint8_t)((w->ins[i].flags &
					     ~RCV_I_BARRIER) | p->fbar);
	if (p->e > 0 && (ret = add_ent(w, p->sa, p->sl, i)))
		return ret;
	if (p->rd && (ret = add_ent(w, p->ra, p->rs, i)))
		return ret;
	if (p->wr && (ret = add_ent(w, p->wa, p->ws, i)))
		return ret;
	if (w->ixs)
		w->ixs[i] = p->ix;
	w->mbar[i] = p->bar;
	return 0;
}

static bool part_eq(const struct rcv_part *a, const struct rcv_part *b)
{
	return a->fbar == b->fbar && a->bar == b->bar &&
	       a->prot == b->prot && a->ix == b->ix && a->e == b->e &&
	       a->sa == b->sa && a->sl == b->sl && a->rd == b->rd &&
	       a->wr == b->wr && a->ra == b->ra && a->wa == b->wa &&
	       a->rs == b->rs && a->ws == b->ws;
}

/* The window's system calls, once (their flag never changes). */
static int sys_list(struct win *w)
{
	size_t i, k = 0;

	if (w->sys_listed)
		return 0;
	for (i = 0; i < w->n; i++)
		k += !!(w->ins[i].flags & RCV_I_SYSCALL);
	w->sys_at = malloc((k + 1) * sizeof(*w->sys_at));
	w->sys_part = calloc(k + 1, sizeof(*w->sys_part));
	if (!w->sys_at || !w->sys_part) {
		free(w->sys_at);
		free(w->sys_part);
		w->sys_at = NULL;
		w->sys_part = NULL;
		return -RP_ERR_NOMEM;
	}
	for (i = k = 0; i < w->n; i++)
		if (w->ins[i].flags & RCV_I_SYSCALL)
			w->sys_at[k++] = i;
	w->nsys = k;
	w->sys_listed = true;
	return 0;
}

/* nb and pb from the barriers (mbar). */
static void ix_bounds(struct win *w)
{
	size_t i;

	w->pb[0] = -1;
	for (i = 0; i < w->n; i++)
		w->pb[i + 1] = w->mbar[i] ? (int64_t)i : w->pb[i];
	w->nb[w->n] = (uint32_t)w->n;
	for (i = w->n; i-- > 0;)
		w->nb[i] = w->mbar[i] ? (uint32_t)i : w->nb[i + 1];
}

/* Is instruction @i of @w a brk (rcv_sys_keeps_file() may keep it)? */
static bool is_brk(const struct win *w, size_t i)
{
	return (w->ins[i].flags & RCV_I_SYSCALL) &&
	       w->st[i].r[RP_REG_RAX].k == ~0ull &&
	       w->st[i].r[RP_REG_RAX].v == 12;
}

/* Rebuilds the access index and barriers from what the states know now. */
int rcv_build_index(struct win *w)
{
	struct rcv_part p;
	size_t i, k = 0;
	int ret;

	ret = sys_list(w);
	if (ret)
		return ret;
	w->nidx = 0;
	w->protc = w->protf = -1;
	rcv_fd_closers(w);
	for (i = 0; i < w->n; i++) {
		part_of(w, i, &p);
		ret = part_apply(w, i, &p);
		if (ret)
			return ret;
		if (p.prot)
			w->protc = (int64_t)i;
		if (p.prot && !is_brk(w, i))
			w->protf = (int64_t)i;
		if (w->ins[i].flags & RCV_I_SYSCALL)
			w->sys_part[k++] = p;
	}
	ret = ent_sort(w);
	if (ret)
		return ret;
	ix_bounds(w);
	return 0;
}

/*
 * What rcv_build_index() makes, where only the system calls' parts may
 * differ from the index kept (every other instruction's part is kept as a
 * rebuild makes it, rcv_index_touch()): a system call's writes and
 * barrier depend on its own state and on every call's of the window
 * (rcv_fd.c's closers), never on memory or another instruction's state.
 * Each call's part is made again and compared with the one in the index
 * (w->sys_part); only when one differs are the calls' entries taken out,
 * made again and merged in, the rest of the index as it is (a whole
 * rebuild was 58% of a window of tests/programs/threads: one per state
 * of a call that changed; mostly the call's part had not).
 */
static int rebuild_sys(struct win *w)
{
	size_t i, k, nk, a, b, o;
	struct rcv_part p;
	bool same = w->sys_listed;
	struct ent *t;
	int ret;

	ret = sys_list(w);
	if (ret)
		return ret;
	rcv_fd_closers(w);
	for (k = 0; k < w->nsys && same; k++) {
		part_of(w, w->sys_at[k], &p);
		same = part_eq(&p, &w->sys_part[k]);
	}
	if (same)
		return 0;
	for (i = k = 0; i < w->nidx; i++)
		if (!(w->ins[w->idx[i].pos].flags & RCV_I_SYSCALL))
			w->idx[k++] = w->idx[i];
	w->nidx = nk = k;
	for (k = 0; k < w->nsys; k++) {
		part_of(w, w->sys_at[k], &w->sys_part[k]);
		ret = part_apply(w, w->sys_at[k], &w->sys_part[k]);
		if (ret)
			return ret;
	}
	w->protc = w->protf = -1;
	for (i = w->n; i-- > 0;) {
		if (!(w->ins[i].flags & RCV_I_SYSCALL)) {
			if (w->ins[i].flags & RCV_I_BARRIER) {
				if (w->protc < 0)
					w->protc = (int64_t)i;
				w->protf = (int64_t)i;
				break;
			}
			continue;
		}
		for (k = 0; w->sys_at[k] != i; k++)
			;
		if (w->sys_part[k].prot) {
			if (w->protc < 0)
				w->protc = (int64_t)i;
			if (!is_brk(w, i)) {
				w->protf = (int64_t)i;
				break;
			}
		}
	}
	if (w->nidx > nk) {
		/* The calls' few entries sorted, then merged in. */
		for (a = nk + 1; a < w->nidx; a++) {
			struct ent e = w->idx[a];

			for (b = a; b > nk && ent_lt(&e, &w->idx[b - 1]); b--)
				w->idx[b] = w->idx[b - 1];
			w->idx[b] = e;
		}
		if (w->tmp_cap < w->nidx) {
			t = realloc(w->tmp, w->nidx * sizeof(*t));
			if (!t)
				return -RP_ERR_NOMEM;
			w->tmp = t;
			w->tmp_cap = w->nidx;
		}
		t = w->tmp;
		a = 0;
		b = nk;
		o = 0;
		while (a < nk && b < w->nidx)
			t[o++] = ent_lt(&w->idx[b], &w->idx[a]) ?
				 w->idx[b++] : w->idx[a++];
		while (a < nk)
			t[o++] = w->idx[a++];
		while (b < w->nidx)
			t[o++] = w->idx[b++];
		w->tmp = w->idx;
		w->idx = t;
		k = w->tmp_cap;
		w->tmp_cap = w->idx_cap;
		w->idx_cap = k;
	}
	ix_bounds(w);
	return 0;
}

/*
 * The index as a rebuild makes it, from one kept exact for every
 * instruction but the system calls (the pass loop's struct redo):
 * rebuild_sys() where the window has them.
 */
int rcv_index_sys(struct win *w)
{
	if (!w->ixs)
		return rcv_build_index(w);
	return rebuild_sys(w);
}

/* Entries of [addr, addr + len) at @pos put in the sorted index. */
static int ins_ent(struct win *w, uint64_t addr, uint64_t len, size_t pos)
{
	uint64_t a;
	size_t k;

	for (a = addr >> 3; len && a <= (addr + len - 1) >> 3; a++) {
		if (w->nidx == w->idx_cap) {
			size_t cap = w->idx_cap ? 2 * w->idx_cap : 4096;
			struct ent *e = realloc(w->idx, cap * sizeof(*e));

			if (!e)
				return -RP_ERR_NOMEM;
			w->idx = e;
			w->idx_cap = cap;
		}
		k = rcv_lower(w, a, pos);
		memmove(&w->idx[k + 1], &w->idx[k],
			(w->nidx - k) * sizeof(*w->idx));
		w->idx[k] = (struct ent){ a, (uint32_t)pos };
		w->nidx++;
	}
	return 0;
}

/* @n copies of @v from @p: four a step (p99: the fill below, one a step,
 * was 3% of a stop at 10^7, lifting barriers one by one over long runs).
 */
static void fill64(int64_t *p, size_t n, int64_t v)
{
	typedef int64_t v4 __attribute__((vector_size(32), aligned(8),
					     may_alias));
	v4 q = { v, v, v, v };
	size_t j = 0;

	for (; j + 4 <= n; j += 4)
		*(v4 *)&p[j] = q;
	for (; j < n; j++)
		p[j] = v;
}

/*
 * Instruction @q (not a system call, not a barrier by its flags), an
 * address of which was not known at the last build: what a build would
 * add now.  A known address stays known, so entries are only added and
 * a barrier only lifted (nb/pb around it follow).
 */
static int ix_open(struct win *w, size_t q)
{
	struct rcv_ctx *c = &w->rc->ctx;
	struct rcv_acc rd, wr;
	size_t j, e;
	int64_t pq;
	int ret;

	rcv_reads(c, &w->ins[q], &w->st[q], &w->st[q + 1], &rd);
	rcv_writes(c, &w->ins[q], &w->st[q], &w->st[q + 1], &wr);
	if (rd.valid && rd.addr_known && !(w->ixs[q] & RCV_IX_RD)) {
		ret = ins_ent(w, rd.addr, rd.size, q);
		if (ret)
			return ret;
		w->ixs[q] |= RCV_IX_RD;
	}
	if (wr.valid && wr.addr_known && !(w->ixs[q] & RCV_IX_WR)) {
		ret = ins_ent(w, wr.addr, wr.size, q);
		if (ret)
			return ret;
		w->ixs[q] |= RCV_IX_WR;
	}
	if ((rd.valid && !rd.addr_known) || (wr.valid && !wr.addr_known))
		return 0;
	w->ixs[q] &= (uint8_t)~RCV_IX_OPEN;
	if (!w->mbar[q])
		return 0;
	w->mbar[q] = 0;
	for (j = q + 1; j-- > 0 && w->nb[j] == q;)
		w->nb[j] = w->nb[q + 1];
	/* pb is q from q + 1 up to the next barrier, nb[q + 1] (n at the
	 * end): a fill, not a search (a sweep backward lifting barriers
	 * one by one made this a tenth of the index's cost).
	 */
	e = w->nb[q + 1];
	pq = w->pb[q];
	fill64(&w->pb[q + 1], e - q, pq);
	return 0;
}

int rcv_index_touch(struct win *w, size_t s)
{
	bool sys = false;
	size_t q;
	int ret;

	if (!w->ixs)	/* not kept: a window of the unit tests */
		return rcv_build_index(w);
	for (q = s ? s - 1 : 0; q <= s && q < w->n; q++) {
		/* A system call's writes and barrier depend on the other
		 * calls' states too (rcv_fd.c): made again, all of them.
		 */
		if (w->ins[q].flags & RCV_I_SYSCALL) {
			if (!sys) {
				ret = rebuild_sys(w);
				if (ret)
					return ret;
			}
			sys = true;
			continue;
		}
		/* Addresses are the state before's (rcv_rw.c): state s is
		 * only the values of instruction s - 1.
		 */
		if (q < s)
			continue;
		if (w->ixs[q] & RCV_IX_OPEN) {
			ret = ix_open(w, q);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Is there an entry (word, pos) in @e[0..n), sorted? */
static bool has_ent(const struct ent *e, size_t n, const struct ent *x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ent_lt(&e[mid], x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].word == x->word && e[lo].pos == x->pos;
}

/*
 * The index kept during a pass against a rebuild from the states now: the
 * same for every instruction but the system calls, whose writes and
 * barriers depend on other calls' states and on memory (rcv_fd.c) and
 * are rebuilt whole only when their own states change: theirs may only
 * be as at an earlier build (fewer entries, a barrier kept, protc
 * later).  The kept index is put back, so that a verified run computes
 * what an unverified one does.
 */
void rcv_index_verify(struct win *w, const char *where)
{
	size_t n = w->n, ni = w->nidx, i, k;
	struct ent *idx = malloc((ni + 1) * sizeof(*idx));
	uint8_t *mb = malloc(n + 1), *fl = malloc(n + 1);
	uint8_t *ix = malloc(n + 1);
	uint32_t *nb = malloc((n + 1) * sizeof(*nb));
	int64_t *pb = malloc((n + 1) * sizeof(*pb)), protc = w->protc;
	int64_t protf = w->protf;
	int64_t fdcl[RCV_FD_TRACKED + 1], fdcl_all = w->fdcl_all;
	size_t nsp = w->sys_listed ? w->nsys : 0;
	struct rcv_part *sp = malloc((nsp + 1) * sizeof(*sp));
	const char *what = NULL;
	bool sys;

	if (!idx || !mb || !fl || !ix || !nb || !pb || !sp)
		goto out;
	if (nsp)
		memcpy(sp, w->sys_part, nsp * sizeof(*sp));
	memcpy(idx, w->idx, ni * sizeof(*idx));
	memcpy(mb, w->mbar, n);
	memcpy(ix, w->ixs, n);
	memcpy(nb, w->nb, (n + 1) * sizeof(*nb));
	memcpy(pb, w->pb, (n + 1) * sizeof(*pb));
	memcpy(fdcl, w->fdcl, sizeof(fdcl));
	for (i = 0; i < n; i++)
		fl[i] = w->ins[i].flags & RCV_I_BARRIER;
	if (rcv_build_index(w))
		goto restore;
	for (k = 0; k < ni && !what; k++)
		if (!has_ent(w->idx, w->nidx, &idx[k]))
			what = "an entry a rebuild does not make";
	for (k = 0; k < w->nidx && !what; k++)
		if (!(w->ins[w->idx[k].pos].flags & RCV_I_SYSCALL) &&
		    !has_ent(idx, ni, &w->idx[k]))
			what = "an entry a rebuild makes missing";
	for (i = 0; i < n && !what; i++) {
		sys = w->ins[i].flags & RCV_I_SYSCALL;
		if (sys ? mb[i] < w->mbar[i] : mb[i] != w->mbar[i])
			what = "a barrier";
		else if (sys ? fl[i] < (w->ins[i].flags & RCV_I_BARRIER) :
			 fl[i] != (w->ins[i].flags & RCV_I_BARRIER))
			what = "a barrier flag";
		else if (!sys && ix[i] != w->ixs[i])
			what = "what an instruction put in";
		else if (nb[i] != (mb[i] ? i : nb[i + 1]) ||
			 pb[i + 1] != (mb[i] ? (int64_t)i : pb[i]))
			what = "nb/pb";
	}
	if (!what && protc < w->protc)
		what = "protc";
	if (!what && protf < w->protf)
		what = "protf";
	if (what) {
		fprintf(stderr, "recover: PTREC_RCV_VERIFY: window at %"
			PRIu64 ": the index kept during the pass (%s) is "
			"not what a rebuild makes: %s (position %zu)\n",
			w->first, where, what, i);
		abort();
	}
restore:
	/* The kept index back (entries, barriers, flags, closers). */
	if (w->idx_cap < ni) {
		struct ent *e = realloc(w->idx, (ni + 1) * sizeof(*e));

		if (!e)
			abort();
		w->idx = e;
		w->idx_cap = ni + 1;
	}
	memcpy(w->idx, idx, ni * sizeof(*idx));
	w->nidx = ni;
	memcpy(w->mbar, mb, n);
	memcpy(w->ixs, ix, n);
	memcpy(w->nb, nb, (n + 1) * sizeof(*nb));
	memcpy(w->pb, pb, (n + 1) * sizeof(*pb));
	memcpy(w->fdcl, fdcl, sizeof(fdcl));
	w->fdcl_all = fdcl_all;
	w->protc = protc;
	w->protf = protf;
	if (nsp)
		memcpy(w->sys_part, sp, nsp * sizeof(*sp));
	for (i = 0; i < n; i++)
		w->ins[i].flags = (w->ins[i].flags & ~RCV_I_BARRIER) | fl[i];
out:
	free(sp);
	free(idx);
	free(mb);
	free(fl);
	free(ix);
	free(nb);
	free(pb);
}

/* First index entry at or after (word, pos). */
size_t rcv_lower(const struct win *w, uint64_t word, uint64_t pos)
{
	size_t lo = 0, hi = w->nidx;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ent *e = &w->idx[mid];

		if (e->word < word || (e->word == word && e->pos < pos))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
