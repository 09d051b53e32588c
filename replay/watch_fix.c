// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What fixes watch_proof.c's bases, and what comes out of a window
 * followed (issue #18): the registers and stack words known after the
 * window pin its bases; then each access's interval, whether an access
 * is secret in a quiet stretch (the engine cannot know it), and what is
 * known where the window starts, for the window before it.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_pass.h"
#include "watch_proof.h"

/* Clamps base @k to [lo, hi] (signed); false on a contradiction. */
static bool pin(struct pass *p, int32_t k, __int128 lo, __int128 hi)
{
	struct root *r = &p->root[k];

	if (lo < INT64_MIN)
		lo = INT64_MIN;
	if (hi > INT64_MAX)
		hi = INT64_MAX;
	if (lo > hi)
		return false;
	if (hi - lo > MAX_SPAN)
		return true;	/* too wide to be of use */
	if (!r->anchored) {
		r->anchored = true;
		r->lo = (int64_t)lo;
		r->hi = (int64_t)hi;
		return true;
	}
	if (lo > r->hi || hi < r->lo)
		return false;
	if (lo > r->lo)
		r->lo = (int64_t)lo;
	if (hi < r->hi)
		r->hi = (int64_t)hi;
	return true;
}

/*
 * Value @v is known to lie in @t: its base lies in t - v's offsets.
 * *@ch when it anchored something.  False on a contradiction.
 */
static bool learn(struct pass *p, struct sv v, const struct wpf_reg *t,
		  bool *ch)
{
	struct root before;
	__int128 lo = (int64_t)t->lo, hi = (int64_t)t->hi;

	if (!t->known || v.root < 0 || (int64_t)t->lo > (int64_t)t->hi)
		return true;
	if (v.root == 0)	/* a constant: only a check */
		return !(v.hi < lo || v.lo > hi);
	before = p->root[v.root];
	if (!pin(p, v.root, lo - v.hi, hi - v.lo))
		return false;
	*ch |= before.anchored != p->root[v.root].anchored ||
	       before.lo != p->root[v.root].lo ||
	       before.hi != p->root[v.root].hi;
	return true;
}

static const struct wpf_word *word_at(const struct wpf_edge *e, int64_t off)
{
	size_t lo = 0, hi = e->nw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->w[mid].off == off)
			return &e->w[mid];
		if (e->w[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The bases that @top, what is known after the window, fixes. */
bool wpf_pass_anchor(struct pass *p, const struct wpf_edge *top)
{
	struct sv t = p->r[RP_REG_RSP];
	const struct root *tb;
	bool ch = true;
	size_t k;
	int g;

	p->root[0] = (struct root){ .anchored = true };
	/* What the instructions allow (watch_proof.c's ranges). */
	for (k = 0; k < p->next; k++)
		if (p->ext[k].rng && !pin(p, p->ext[k].root, p->ext[k].rlo,
					  p->ext[k].rhi))
			return false;
	while (ch) {
		ch = false;
		for (g = 0; g < 16; g++) {
			if (!learn(p, p->r[g], &top->r[g], &ch))
				return false;
		}
		/* A slot still there holds the word the later window saw
		 * at that distance from the stack pointer.
		 */
		tb = t.root >= 0 ? &p->root[t.root] : NULL;
		for (k = 0; k < p->nslot && top->nw && tb; k++) {
			const struct slot *s = &p->slot[k];
			const struct root *b = &p->root[s->root];
			const struct wpf_word *w;
			int64_t rel;

			if (s->root == t.root && t.lo == t.hi)
				rel = s->off - t.lo;
			else if (b->anchored && b->lo == b->hi &&
				 tb->anchored && tb->lo == tb->hi &&
				 t.lo == t.hi)
				rel = (b->lo + s->off) - (tb->lo + t.lo);
			else
				continue;
			w = word_at(top, rel);
			if (w && !learn(p, s->val, &w->val, &ch))
				return false;
		}
	}
	return true;
}

static int cmp_word(const void *x, const void *y)
{
	const struct wpf_word *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

static struct wpf_reg resolve(const struct pass *p, struct sv v)
{
	const struct root *r;
	__int128 lo, hi;

	if (v.root < 0 || !p->root[v.root].anchored)
		return (struct wpf_reg){ 0 };
	r = &p->root[v.root];
	lo = (__int128)r->lo + v.lo;
	hi = (__int128)r->hi + v.hi;
	if (lo < INT64_MIN || hi > INT64_MAX || lo > hi)
		return (struct wpf_reg){ 0 };
	return (struct wpf_reg){ true, (uint64_t)(int64_t)lo,
				 (uint64_t)(int64_t)hi };
}

int wpf_win_edge(const struct wpf_win *w, struct wpf_edge *e)
{
	const struct pass *p = &w->p;
	struct sv t = p->mid_r[RP_REG_RSP];
	size_t k, n = 0;
	int g;

	memset(e, 0, sizeof(*e));
	if (w->contradiction)
		return 0;
	for (g = 0; g < 16; g++)
		e->r[g] = resolve(p, p->mid_r[g]);
	/* The slots there (all relative to one base: the stack pointer's)
	 * whose values are fixed.
	 */
	if (!sv_exact(t))
		return 0;
	e->w = calloc(p->mid_n + 1, sizeof(*e->w));
	if (!e->w)
		return -RP_ERR_NOMEM;
	for (k = 0; k < p->mid_n; k++) {
		const struct slot *s = &p->mid_slot[k];
		struct wpf_reg v = resolve(p, s->val);
		size_t j;

		if (s->root != t.root || !v.known)
			continue;
		for (j = 0; j < n && e->w[j].off != s->off - t.lo; j++)
			;
		if (j == n)	/* the latest store: the slot is last */
			n++;
		e->w[j] = (struct wpf_word){ s->off - t.lo, v };
	}
	e->nw = n;
	qsort(e->w, e->nw, sizeof(*e->w), cmp_word);
	return 0;
}

/* Every parent of node @r in watch_dep.c's graph is secret (older
 * nodes: @sec holds them).
 */
static bool all_secret(const struct pass *p, const bool *sec, int32_t r)
{
	int32_t e;

	for (e = p->root[r].dhead; e; e = p->de[e - 1].next) {
		int32_t q = p->de[e - 1].par;

		if (q <= 0 || q >= r || !sec[q])
			return false;
	}
	return true;
}

/*
 * The words returns read (p->rets), by base and word: an open hash of the
 * distinct ones (a loop's returns read the same few words; a window has
 * up to a few thousand returns, which the roots' questions walked one by
 * one: 6% of a deep scan of libloop).  @h: index + 1 into p->rets (0:
 * empty); NULL (no memory): the walk.
 */
struct rix {
	int32_t *h;
	size_t mask;
};

static size_t rhash(int32_t b, int64_t w, size_t mask)
{
	return (size_t)(((uint64_t)w * 0x9e3779b97f4a7c15ull) ^
			((uint64_t)(uint32_t)b * 0xc2b2ae3d27d4eb4full)) & mask;
}

static void rix_build(const struct pass *p, struct rix *x)
{
	size_t cap = 16, j, i;

	x->h = NULL;
	while (cap < 2 * p->nrets)
		cap *= 2;
	if (p->nrets < 8 || !(x->h = calloc(cap, sizeof(*x->h))))
		return;
	x->mask = cap - 1;
	for (j = 0; j < p->nrets; j++) {
		const struct slot *r = &p->rets[j];

		for (i = rhash(r->root, r->off >> 3, x->mask); x->h[i];
		     i = (i + 1) & x->mask)
			if (p->rets[x->h[i] - 1].root == r->root &&
			    p->rets[x->h[i] - 1].off == r->off)
				break;
		if (!x->h[i])
			x->h[i] = (int32_t)j + 1;
	}
}

/* No return read the word at @off of base @b (the trace shows it). */
static bool unread(const struct pass *p, const struct rix *x, int32_t b,
		   int64_t off)
{
	const struct slot *r;
	size_t j, i;
	int64_t w;

	if (!x->h) {
		for (j = 0; j < p->nrets; j++)
			if (p->rets[j].root == b && p->rets[j].off < off + 8 &&
			    off < p->rets[j].off + 8)
				return false;
		return true;
	}
	/* a word that overlaps it starts in the word before, its, or the
	 * one after
	 */
	for (w = (off >> 3) - 1; w <= (off >> 3) + 1; w++)
		for (i = rhash(b, w, x->mask); x->h[i]; i = (i + 1) & x->mask) {
			r = &p->rets[x->h[i] - 1];
			if (r->root == b && r->off < off + 8 &&
			    off < r->off + 8)
				return false;
		}
	return true;
}

/*
 * Which bases nothing the trace shows tells the value of (*@sec, by
 * base): the registers at the start of the stretch, and the words read
 * through them that no store relative to the same base had reached and
 * no return read, when no value the trace shows depends on them
 * (watch_dep.c: conditional branches, indirect targets, returns and
 * system calls; a window with what the analysis does not follow keeps
 * none).  Bases made by anything else (an operation the pass does not
 * follow, a word read where a store may have been, through an address
 * known or not relative to such a base) are not: the engine may know
 * them.
 */
static bool *secret_roots(const struct pass *p, struct rix *rx,
			  bool full, bool *any, bool **lr)
{
	bool *sec = calloc(p->nroot + 1, sizeof(*sec)), *inf;
	size_t r;

	*any = false;
	*lr = NULL;
	if (!sec || p->loud || (!p->deps && !p->qmode))
		return sec;
	rix_build(p, rx);
	/* A quiet stretch shows no value but those returns pop. */
	inf = !p->deps ? calloc(p->nroot + 1, sizeof(*inf)) :
	      full ? wdep_informed(p, lr) : wdep_informed_any(p);
	if (!inf) {
		free(sec);
		return NULL;
	}
	if (inf[WDEP_ALL] && p->deps) {
		free(inf);
		return sec;
	}
	*any = true;
	for (r = 1; r < p->nroot; r++) {
		const struct root *x = &p->root[r];
		const struct root *b;
		const struct rext *e;

		/* What stores left in a word: secret where every value
		 * stored is (a constant is not: p->konst).
		 */
		if (x->chain && p->deps) {
			sec[r] = all_secret(p, sec, (int32_t)r);
			continue;
		}
		if (x->shown || inf[r])
			continue;
		if (x->start) {
			sec[r] = true;
			continue;
		}
		/*
		 * A value computed (not a word loaded): secret where it is
		 * a 64-bit sum with an addend the engine cannot know (the
		 * root's ext): it knows none of the sum's bits from that
		 * addend's lowest unknown one up (its known bits are a low
		 * run: rcv_rw.c), and nothing shown depends on the sum.
		 * (It knows no bit of a secret value from bit 20 up: the
		 * pass keeps a root only through an alignment within
		 * MAX_SPAN; a scale of 8 moves them to bit 23.)
		 */
		/* With what the engine may know (watch_know.c): a value an
		 * instruction computed that it may neither learn back nor
		 * compute forward (_itoa_word's digit, an index into its
		 * table).
		 */
		if (!x->ld && full && x->calc) {
			sec[r] = true;
			continue;
		}
		if (!x->ld) {
			e = x->ext ? &p->ext[x->ext - 1] : NULL;
			if (e)
				sec[r] = (e->ds1 > 0 && (size_t)e->ds1 < r &&
					  sec[e->ds1]) ||
					 (e->ds2 > 0 && (size_t)e->ds2 < r &&
					  sec[e->ds2]);
			continue;
		}
		/* Bases are made in order: the address's base is older. */
		if (x->lw_root <= 0 || (size_t)x->lw_root >= r ||
		    !sec[x->lw_root])
			continue;
		/*
		 * A word read through a secret base where stores relative
		 * to it had been (a pop of what a push left, where another
		 * store dropped the pass's slot): the engine cannot know
		 * the address, so it knows the value only by pairing the
		 * load with those stores (rcv_stack.c's push and pop) and
		 * knowing what they stored.  Their values are its parents
		 * (watch_dep.c wires them where the base is of the secret
		 * kind, and only there): secret when each is.
		 */
		b = &p->root[x->lw_root];
		if (!x->lw && (!p->deps || !(b->start || b->lw || b->ldc) ||
			       !all_secret(p, sec, (int32_t)r)))
			continue;
		sec[r] = unread(p, rx, x->lw_root, x->lw_off);
	}
	free(inf);
	return sec;
}

#define KC_MAX	4	/* constants a bounded word may hold */
#define KC_WALK	4096	/* nodes followed for one, at most */

/*
 * Bounded words (issue #18: vfprintf's `call *0x38(%r15)`, the vtable
 * pointer vsnprintf stored as a constant into its FILE on the stack,
 * which the pass's slots dropped at the first store through the output
 * pointer).  Root @r is a word read through a secret base (secret_roots()
 * below: the engine cannot know the address) where stores relative to
 * that base had been, that nothing the trace shows teaches the engine
 * (@lr: not learned back, watch_know.c): it knows the word only by
 * pairing the load with those stores (rcv_stack.c), and so only where it
 * knows what one stored.  Where every value stored there (watch_dep.c's
 * chain of the word, its parents) is secret or a constant, the word the
 * engine knows is one of those constants: their hull in [*@lo, *@hi].
 * False otherwise, or when every value is secret (secret_roots()).
 */
static bool bounded(const struct pass *p, const struct rix *rx,
		    const bool *sec, const bool *lr, int32_t r, int64_t *lo,
		    int64_t *hi)
{
	const struct root *x = &p->root[r], *b;
	int32_t st[256], q, par, e;
	int64_t kv[KC_MAX];
	int n = 0, nk = 0, walked = 0, j;

	if (!p->deps || !lr || !x->ld || x->lw || x->shown || lr[r] ||
	    x->lw_root <= 0 || x->lw_root >= r || !sec[x->lw_root])
		return false;
	b = &p->root[x->lw_root];
	if (!(b->start || b->lw || b->ldc) ||
	    !unread(p, rx, x->lw_root, x->lw_off))
		return false;
	st[n++] = r;
	while (n) {
		q = st[--n];
		for (e = p->root[q].dhead; e; e = p->de[e - 1].next) {
			const struct root *c;

			par = p->de[e - 1].par;
			if (++walked > KC_WALK || par <= 0 || par >= q)
				return false;
			if (sec[par])
				continue;
			c = &p->root[par];
			if (c->kc && c->anchored) {
				for (j = 0; j < nk && kv[j] != c->lo;)
					j++;
				if (j == KC_MAX)
					return false;
				if (j == nk)
					kv[nk++] = c->lo;
				continue;
			}
			if (!p->root[par].chain || n == 256)
				return false;
			st[n++] = par;
		}
	}
	if (!nk)
		return false;
	*lo = *hi = kv[0];
	for (j = 1; j < nk; j++) {
		*lo = kv[j] < *lo ? kv[j] : *lo;
		*hi = kv[j] > *hi ? kv[j] : *hi;
	}
	return true;
}

static int win_acc(const struct wpf_win *w, size_t from, bool full,
		   struct wpf_out *out)
{
	const struct pass *p = &w->p;
	bool *sec, *lr, any;
	struct rix rx;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->contradiction = w->contradiction;
	out->acc = malloc((p->nacc + 1) * sizeof(*out->acc));
	rx.h = NULL;
	sec = secret_roots(p, &rx, full, &any, &lr);
	if (!out->acc || !sec) {
		free(rx.h);
		free(lr);
		free(sec);
		free(out->acc);
		out->acc = NULL;
		return -RP_ERR_NOMEM;
	}
	for (i = 0; i < p->nacc && p->acc[i].i < from;)
		i++;
	for (; i < p->nacc; i++) {
		const struct pacc *a = &p->acc[i];
		struct wpf_acc *o = &out->acc[out->nacc++];
		const struct root *r;
		__int128 lo, hi;
		int64_t klo, khi;

		*o = (struct wpf_acc){ .i = a->i, .kind = a->kind };
		/* Relative to a register at the start, in a quiet stretch:
		 * nothing shows the register's value (wpf_win_quiet()).
		 */
		o->secret = a->root > 0 && sec[a->root] &&
			    !p->root[a->root].anchored;
		/* base + index: the engine needs both */
		o->secret |= a->root2 > 0 && sec[a->root2] &&
			     !p->root[a->root2].anchored;
		/* An address the engine never knows (watch_pass.h): as
		 * secret where secrets count (a far window followed
		 * whole).
		 */
		o->secret |= a->blind && any;
		if (a->root < 0 || a->nosize || !p->root[a->root].anchored) {
			/* Secret unless the engine knows it, then in the
			 * hull.
			 */
			if (lr && !o->secret && a->root > 0 && a->root2 <= 0 &&
			    !a->blind && !a->nosize &&
			    bounded(p, &rx, sec, lr, a->root, &klo, &khi)) {
				lo = (__int128)klo + a->lo;
				hi = (__int128)khi + a->hi;
				if (lo >= 0 && hi <= (__int128)UINT64_MAX &&
				    lo < hi && hi - lo <= MAX_SPAN) {
					o->bound = true;
					o->lo = (uint64_t)lo;
					o->hi = (uint64_t)hi;
				}
			}
			continue;
		}
		r = &p->root[a->root];
		lo = (__int128)r->lo + a->lo;
		hi = (__int128)r->hi + a->hi;
		if (lo < 0 || hi > (__int128)UINT64_MAX || lo >= hi)
			continue;
		o->known = true;
		o->fixed = a->fixed;
		o->lo = (uint64_t)lo;
		o->hi = (uint64_t)hi;
	}
	free(rx.h);
	free(lr);
	free(sec);
	return 0;
}

int wpf_win_acc(const struct wpf_win *w, size_t from, struct wpf_out *out)
{
	return win_acc(w, from, true, out);
}

int wpf_win_acc_any(const struct wpf_win *w, size_t from,
		    struct wpf_out *out)
{
	return win_acc(w, from, false, out);
}

void wpf_out_free(struct wpf_out *out)
{
	free(out->acc);
	memset(out, 0, sizeof(*out));
}
