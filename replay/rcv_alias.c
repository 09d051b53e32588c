// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Did a store of unknown address write byte A?  (issue #17,
 * docs/values.md, "Stores of unknown address".)  Such a store ends memory
 * knowledge for every byte (rcv_mem.c's barriers), which in a history
 * that ends in exit() is most of them: the exit path stores through
 * FILE and link_map pointers loaded from memory that is itself behind
 * such stores.  This file proves, for one byte at a time, that a store
 * did not write it, by case analysis on what it would imply:
 *
 * - its value (known in part at least): had it written A (at any
 *   placement over A), each byte it wrote stays until the next write of
 *   it, so whatever first shows that byte afterwards shows it unless an
 *   instruction between may have been that byte's last writer: a later
 *   load of known value (in any window), or, with no access left in the
 *   window that ends at the snapshot, the end; a byte shown otherwise
 *   with no writer between to explain it refutes the placement;
 * - its address: base + disp with the base loaded from a known address B
 *   a few instructions before; the bytes of B that no writer between
 *   that load and the end can have changed (the store itself excepted,
 *   which under the hypothesis writes around A, far from B) are the
 *   snapshot's, so the base's low bits are known and may put every
 *   placement over A out of reach (in the window that ends at the
 *   snapshot); so may the low bits the states know (an index scaled
 *   into an aligned array), in any window.
 *
 * Under the hypothesis, the later stores through the same root are placed
 * too (rcv_root.c), and so are those whose base is the root's word read
 * again from memory while nothing between may have written it.
 *
 * "May be a byte's last writer" is over-approximated: a store of known
 * address that covers it, a store of unknown address with a byte of its
 * value that may be that byte (in the bits known), a system call that
 * may write it, any other barrier.  Nothing is assumed about where
 * pointers point.
 */
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_root.h"
#include "rcv_val.h"
#include "rcv_win.h"

#define AL_BARS		32	/* barriers after a store looked at */
#define AL_LOAD		64	/* instructions back to the base's load */
#define AL_SCAN		64	/* accesses of a word looked at after a store */

/*
 * Is instruction @b of @w a barrier only because it stores to an address
 * not known (no system call, string, undecodable or unproven branch)?
 * Its store into *@wr.
 */
static bool ustore(struct win *w, size_t b, struct rcv_acc *wr)
{
	const struct rcv_ins *in = &w->ins[b];

	if (!w->mbar[b] || (in->flags & (RCV_I_BARRIER | RCV_I_MEMBAR |
					 RCV_I_REP | RCV_I_SYSCALL |
					 RCV_I_BAD)))
		return false;
	*wr = *rcv_acc_of(w, b, true);
	return wr->valid && !wr->addr_known && wr->size;
}

/*
 * Byte @t (< 16) of what access @x holds: its value in *@v, the bits of
 * it known returned.
 */
static uint8_t acc_bits(const struct rcv_acc *x, unsigned int t, uint8_t *v)
{
	struct rcv_val h = t < 8 ? x->val : x->hi;
	unsigned int sh = (t & 7) * 8;

	*v = (uint8_t)(h.v >> sh);
	return (uint8_t)(h.k >> sh);
}

/*
 * May store @u, wherever it wrote, have left byte @f?  Only when no byte
 * of its value can be @f (in the bits known of each) is it not.
 */
static bool may_leave(const struct rcv_acc *u, uint8_t f)
{
	unsigned int t;
	uint8_t v, m;

	if (u->size > 16)
		return true;
	for (t = 0; t < u->size; t++) {
		m = acc_bits(u, t, &v);
		if (!((v ^ f) & m))
			return true;
	}
	return false;
}

/*
 * A placement of store @skip taken as given (value_refutes()): its root
 * (@s) and the root's value @root then; the stores through the same root
 * are placed too.
 */
struct al_hyp {
	struct rcv_root_sym s;
	uint64_t root;
	size_t b;		/* the store placed */
	unsigned int size;	/* its size */
	bool hit;		/* a store through the root was placed */
};

/*
 * The proofs' memo for store @b of @w (rc->alm), emptied unless it is
 * @b's while nothing a question looks at changed; NULL for a window
 * without a serial (unit tests' hand-made ones).
 */
static struct rcv_almemo *al_memo(struct win *w, size_t b)
{
	struct rp_recover *rc = w->rc;
	struct rcv_almemo *m = &rc->alm;

	if (!w->serial)
		return NULL;
	if (m->serial != w->serial || m->b != b || m->gen != rc->mb_gen ||
	    m->world != rc->mb_world) {
		memset(m, 0, sizeof(*m));
		m->serial = w->serial;
		m->b = b;
		m->gen = rc->mb_gen;
		m->world = rc->mb_world;
	}
	return m;
}

/* Do [@a, @a + @n) and [@c, @c + @m) miss each other (modulo 2^64)? */
static bool apart(uint64_t a, uint64_t n, uint64_t c, uint64_t m)
{
	return c - a >= n && a - c >= m;
}

/*
 * Under @h, did the 8-byte word at @wa keep its value from instruction
 * @p1 to @p2 of @w (both loads of it)?  Only when no instruction between
 * may have written a byte of it: no barrier but stores of unknown address
 * that @h places away from it (its own store, stores through its root),
 * no store of known address or system call's buffer over it, and no
 * other thread that may write it then.
 */
static bool word_kept(struct win *w, size_t p1, size_t p2, uint64_t wa,
		      struct al_hyp *h)
{
	struct rcv_root_sym t;
	struct rcv_acc u;
	uint64_t until, word, sa, sl, at;
	size_t q, j, n = 0;
	unsigned int k, m;
	uint8_t v;

	for (k = 0; k < 8; k++)
		if (!rcv_private_until(w->rc, wa + k, &until) ||
		    until < w->first + p2)
			return false;
	for (q = w->nb[p1 + 1]; q < p2; q = w->nb[q + 1]) {
		if (++n > AL_BARS || !ustore(w, q, &u))
			return false;
		if (q == h->b) {
			at = h->root + h->s.off;
			m = h->size;
		} else if (rcv_root_sym(w, q, &t) && t.pos == h->s.pos &&
			   t.reg == h->s.reg) {
			at = h->root + t.off;
			m = u.size;
		} else {
			return false;
		}
		if (!apart(at, m, wa, 8))
			return false;
	}
	for (word = wa >> 3; word <= (wa + 7) >> 3; word++)
		for (j = rcv_lower(w, word, p1 + 1); j < w->nidx &&
		     w->idx[j].word == word && w->idx[j].pos < p2; j++) {
			q = w->idx[j].pos;
			if ((w->ins[q].flags & RCV_I_SYSCALL) &&
			    rcv_sys_write(w, q, &sa, &sl) > 0 &&
			    !apart(sa, sl, wa, 8))
				return false;
			for (k = 0; k < 8; k++)
				if (rcv_acc_byte(rcv_acc_of(w, q, true),
						 wa + k, &v) >= 0)
					return false;
		}
	return true;
}

/*
 * Under @h, does store @q (@u) through @h's root miss byte @x?  Its root
 * is @h's, or a load of the word @h's root was loaded from, kept between
 * the two loads (the same value: FILE's _lock read again after the
 * cmpxchg that takes the lock through it).
 */
static bool hyp_misses(struct win *w, size_t q, const struct rcv_acc *u,
		       struct al_hyp *h, uint64_t x)
{
	struct rcv_root_sym t;
	uint64_t wa, wb;

	if (!u->valid || u->addr_known || !u->size ||
	    !rcv_root_sym(w, q, &t))
		return false;
	if (t.pos != h->s.pos || t.reg != h->s.reg) {
		if (!rcv_root_word(w, t.pos, t.reg, &wa) ||
		    !rcv_root_word(w, h->s.pos, h->s.reg, &wb) || wa != wb)
			return false;
		/* Kept or not depends on the placement: asked again. */
		h->hit = true;
		if (!word_kept(w, t.pos < h->s.pos ? t.pos : h->s.pos,
			       t.pos < h->s.pos ? h->s.pos : t.pos, wa, h))
			return false;
	}
	h->hit = true;
	return x - (h->root + t.off) >= u->size;
}

/*
 * May an instruction of @w after @p and before @lim (other than @skip)
 * have been the last to write @x, whose value at @lim (the end when @lim
 * is w->n) is @fx?  True when not sure.  With @h (@p is @skip): the
 * stores through @skip's root are placed by it.
 */
static bool late_writer(struct win *w, size_t p, size_t lim, size_t skip,
			uint64_t x, uint8_t fx, struct al_hyp *h)
{
	uint64_t word = x >> 3, sa, sl;
	struct rcv_acc u;
	size_t j, q, n = 0;
	uint8_t t;

	/* Barriers after @p: stores of unknown address, or anything. */
	for (q = w->nb[p + 1]; q < lim; q = w->nb[q + 1]) {
		if (++n > AL_BARS)
			return true;
		if (q == skip || ((w->ins[q].flags & RCV_I_MEMBAR) &&
				  rcv_extent_refuted(w, q, x)))
			continue;
		if (!ustore(w, q, &u) ||
		    (may_leave(&u, fx) && !(h && hyp_misses(w, q, &u, h, x))))
			return true;	/* not through the same root, placed
					 * away from @x */
	}
	/* Stores of known address (and system calls' buffers). */
	for (j = rcv_lower(w, word, p + 1); j < w->nidx &&
	     w->idx[j].word == word && w->idx[j].pos < lim; j++) {
		q = w->idx[j].pos;
		if ((w->ins[q].flags & RCV_I_SYSCALL) &&
		    rcv_sys_write(w, q, &sa, &sl) > 0 && x - sa < sl)
			return true;
		if (rcv_acc_byte(rcv_acc_of(w, q, true), x, &t) >= 0)
			return true;
	}
	return false;
}

/* The end's byte @x, where only this thread writes it. */
static bool final_byte(struct win *w, uint64_t x, uint8_t *fx)
{
	return !w->rc->end_wild && rcv_private(w->rc, x) &&
	       rcv_snap_byte(w->rc, x, fx);
}

/*
 * The last state up to which nothing but this thread may write byte @x
 * after store @b (UINT64_MAX: to the end and the snapshot): the thread's
 * own, or, where other tasks may write it, the span between their
 * writes around the state after @b (rcv_xthr.c), as rcv_mem.c walks
 * it.  False when neither holds.
 */
static bool own_until(struct win *w, size_t b, uint64_t x, uint64_t *until)
{
	uint64_t s = w->first + b + 1, from;

	if (rcv_private_until(w->rc, x, until) && s <= *until)
		return true;
	return rcv_xthr_quiet(w->rc, x, s, &from, until);
}

/*
 * What byte @x held right after store @b, as the first thing after it
 * that shows it tells: the first access of @x after @b, when it is a load
 * of known value (not a barrier, before @x may be another thread's), or,
 * with no access left in the window that ends at the snapshot, the end.
 * Either way no instruction between @b and it may have been @x's last
 * writer.  In *@f; false when nothing shows it.
 */
/* The first index entry of each word after a store, for the bytes of one
 * value_refutes() (at most 31 bytes: 4 words).
 */
struct lower_memo {
	uint64_t word[4];
	size_t j[4];
	unsigned int n;
};

static size_t lower_after(struct win *w, struct lower_memo *lm,
			  uint64_t word, size_t b)
{
	unsigned int i;

	for (i = 0; i < lm->n; i++)
		if (lm->word[i] == word)
			return lm->j[i];
	if (lm->n == 4)
		return rcv_lower(w, word, b + 1);
	lm->word[lm->n] = word;
	return lm->j[lm->n++] = rcv_lower(w, word, b + 1);
}

static bool revealed_(struct win *w, size_t b, uint64_t x, uint8_t *f,
		      struct lower_memo *lm, struct al_hyp *h);

/*
 * revealed(), remembered for the next byte asked of store @b where the
 * answer looked at no store through @h's root (h->hit stays false, as it
 * does without @h): the same then for every placement.
 */
static bool revealed(struct win *w, size_t b, uint64_t x, uint8_t *f,
		     struct lower_memo *lm, struct al_hyp *h)
{
	struct rcv_almemo *m = al_memo(w, b);
	bool r, hit = h && h->hit;

	if (m && m->rv[x & 63].r && m->rv[x & 63].x == x) {
		*f = m->rv[x & 63].fx;
		return m->rv[x & 63].r == 2;
	}
	if (h)
		h->hit = false;
	r = revealed_(w, b, x, f, lm, h);
	if (m && !(h && h->hit)) {
		m->rv[x & 63].x = x;
		m->rv[x & 63].r = r ? 2 : 1;
		m->rv[x & 63].fx = r ? *f : 0;
	}
	if (h)
		h->hit |= hit;
	return r;
}

static bool revealed_(struct win *w, size_t b, uint64_t x, uint8_t *f,
		      struct lower_memo *lm, struct al_hyp *h)
{
	uint64_t word = x >> 3, until, sa, sl;
	size_t j, q, k = 0;
	uint8_t t;
	int r;

	if (!own_until(w, b, x, &until))
		return false;
	for (j = lower_after(w, lm, word, b);
	     j < w->nidx && w->idx[j].word == word; j++) {
		q = w->idx[j].pos;
		if (++k > AL_SCAN || w->first + q > until)
			return false;
		if ((w->ins[q].flags & RCV_I_SYSCALL) &&
		    rcv_sys_write(w, q, &sa, &sl) > 0 && x - sa < sl)
			return false;
		r = rcv_acc_byte(rcv_acc_of(w, q, false), x, &t);
		if (r == 0)
			return false;
		if (r == 1) {
			/* An unproven branch's load is not known. */
			if (w->mbar[q] || (w->ins[q].flags & RCV_I_BARRIER) ||
			    late_writer(w, b, q, b, x, t, h))
				return false;
			*f = t;
			return true;
		}
		/* Written again before anything shows it. */
		if (rcv_acc_byte(rcv_acc_of(w, q, true), x, &t) >= 0)
			return false;
	}
	/* The snapshot, where nothing but this thread writes @x from @b
	 * on (another thread's store after it would be what it shows).
	 */
	if (!w->top_end || until != UINT64_MAX || w->rc->end_wild ||
	    !rcv_snap_byte(w->rc, x, &t) ||
	    late_writer(w, b, w->n, b, x, t, h))
		return false;
	*f = t;
	return true;
}

/*
 * Had store @b (@wr, its value known in part at least) written @a, at any
 * placement, would what shows its bytes afterwards (a later load, the
 * end) show it?  True when every placement is refuted.  A placement of
 * @b places the later stores through its root too (rcv_root_sym()): what
 * shows a byte is asked again for each placement when such a store was
 * in the way.
 */
static bool value_refutes(struct win *w, size_t b, const struct rcv_acc *wr,
			  uint64_t a)
{
	unsigned int j, t, n = wr->size;
	uint8_t seen[31], fx[31], dep[31], v, m;
	uint64_t lo = a - n + 1;
	struct lower_memo lm = { .n = 0 };
	struct al_hyp h, *hp = NULL;

	if (n > 16 || !n || (!wr->val.k && !wr->hi.k))
		return false;
	if (rcv_root_sym(w, b, &h.s)) {
		h.b = b;
		h.size = n;
		hp = &h;
	}
	memset(seen, 0, sizeof(seen));
	memset(dep, 0, sizeof(dep));
	for (j = 0; j < n; j++) {
		uint64_t q = a - j;
		bool ok = true;

		if (hp) {
			h.root = q - h.s.off;
			for (t = 0; t < 2 * n - 1; t++)
				if (dep[t])
					seen[t] = 0;	/* placed otherwise */
		}
		for (t = 0; t < n && ok; t++) {
			size_t x = (size_t)(q + t - lo);

			m = acc_bits(wr, t, &v);
			if (!m)
				continue;
			if (!seen[x]) {
				h.hit = false;
				seen[x] = revealed(w, b, q + t, &fx[x], &lm,
						   hp) ? 1 : 2;
				dep[x] = hp && h.hit;
			}
			if (seen[x] == 1 && ((v ^ fx[x]) & m))
				ok = false;	/* not what it shows */
		}
		if (ok)
			return false;	/* a placement nothing refutes */
	}
	return true;
}

/*
 * Store @b's base register: the value loaded into it from a known address
 * before @b, in the bytes no writer up to the end can have changed (store
 * @b excepted: the caller makes sure it cannot reach them).  Merged into
 * *@base.
 */
static void base_from_load(struct win *w, size_t b, int g, uint64_t a,
			   unsigned int n, struct rcv_val *base)
{
	struct rcv_almemo *m;
	const struct rcv_ins *in;
	struct rcv_acc rd;
	size_t p, lo = b > AL_LOAD ? b - AL_LOAD : 0;
	unsigned int k;
	uint8_t fx;

	for (p = b; p-- > lo;) {
		in = &w->ins[p];
		if (in->flags & RCV_I_BARRIER)
			return;
		if (in->wcode[g])
			break;
	}
	if (p + 1 <= lo || p >= b)
		return;
	in = &w->ins[p];
	if (in->id != X86_INS_MOV || in->nops != 2 ||
	    in->op[0].type != RCV_OP_REG || in->op[0].reg != g ||
	    in->op[0].size != 8 || in->op[1].type != RCV_OP_MEM)
		return;
	rd = *rcv_acc_of(w, p, false);
	if (!rd.valid || !rd.addr_known || rd.size != 8)
		return;
	/* Under the hypothesis the store writes [a - n + 1, a + n): not
	 * these bytes, if they are far enough.
	 */
	if (!(rd.addr + 8 + n <= a + 1 || rd.addr >= a + n))
		return;
	/* The same for every byte a question asks (nothing it looks at
	 * changes while mb_gen and mb_world stay: rcv_acc_of()'s memo).
	 */
	m = al_memo(w, b);
	if (!m || !m->bl_done) {
		uint64_t v = 0, kn = 0;

		for (k = 0; k < 8; k++) {
			uint64_t x = rd.addr + k;

			if (!final_byte(w, x, &fx) ||
			    late_writer(w, p, w->n, b, x, fx, NULL))
				continue;
			v |= (uint64_t)fx << (8 * k);
			kn |= 0xffull << (8 * k);
		}
		if (!m) {
			base->v = (base->v & ~kn) | v;
			base->k |= kn;
			return;
		}
		m->bl_v = v;
		m->bl_k = kn;
		m->bl_done = true;
	}
	base->v = (base->v & ~m->bl_k) | m->bl_v;
	base->k |= m->bl_k;
}

/*
 * Can store @b (@wr) reach @a with the bits known of its address (its
 * base's, and those of its base's load)?  True when no placement can.
 */
static bool addr_refutes(struct win *w, size_t b, const struct rcv_acc *wr,
			 uint64_t a, bool snap)
{
	const struct rcv_ins *in = &w->ins[b];
	const struct rcv_state *s = &w->st[b];
	const struct rcv_op *m = NULL;
	struct rcv_val base;
	uint64_t off, mask;
	unsigned int j, low;
	int k;

	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM &&
		    (in->op[k].access & CS_AC_WRITE))
			m = &in->op[k];
	if (!m || m->seg || m->base < 0 || m->base >= 16 ||
	    m->size != wr->size)
		return false;
	off = (uint64_t)m->imm;
	if (m->index >= 0) {
		if (m->index >= 16 || s->r[m->index].k != ~0ull)
			return false;
		off += s->r[m->index].v * m->scale;
	}
	base = s->r[m->base];
	base.v &= base.k;
	if (snap)
		base_from_load(w, b, m->base, a, wr->size, &base);
	/* The low bits of base + off follow from the low bits of each:
	 * a base of known alignment (an index shifted, added to a known
	 * pointer: __run_exit_handlers' `movq $0, 0x10(%rax)` with rax
	 * = r15 + 32 * i) reaches only one residue of each 2^low bytes.
	 */
	low = (unsigned int)__builtin_ctzll(~base.k | (1ull << 63));
	if (base.k == ~0ull)
		low = 64;
	if (!low)
		return false;
	mask = low >= 64 ? ~0ull : (1ull << low) - 1;
	for (j = 0; j < wr->size; j++)
		if (((a - j - off) & mask) == (base.v & mask))
			return false;
	return true;
}

/*
 * By the root's own word: store @b (@wr) writes R + c (rcv_root_sym():
 * through copies, lea, add and sub), with R read by `mov r64, m64` from
 * a known word W at p.  Had @b written @a at placement q, R = q - c
 * exactly; each byte of W that no instruction after p may have been the
 * last to write (under that placement: @b at [q, q + n), the stores
 * through R placed by it) holds at the end what it held at p, so the
 * snapshot shows R's byte there.  A byte that differs refutes q; true
 * when every q is refuted.  Unlike base_from_load(), @b may reach W
 * itself (those bytes are then its own, not R's) and the stores through
 * R after p are placed.
 */
static bool word_refutes(struct win *w, size_t b, const struct rcv_acc *wr,
			 uint64_t a)
{
	unsigned int j, k, n = wr->size;
	struct rcv_almemo *m = al_memo(w, b), own;
	struct al_hyp h;
	uint64_t wa, x, q;
	bool ok;

	if (!n || n > 16 || !rcv_root_sym(w, b, &h.s) ||
	    !rcv_root_word(w, h.s.pos, h.s.reg, &wa))
		return false;
	/* Per byte of W: 1 nothing shows it, 2 the snapshot's wfx does;
	 * asked again for each placement (and question) only when the
	 * answer looked at a store through R (wdep: h.hit), as
	 * value_refutes() does.
	 */
	if (!m) {
		m = &own;
		memset(own.ws, 0, sizeof(own.ws));
	}
	h.b = b;
	h.size = n;
	for (j = 0; j < n; j++) {
		q = a - j;
		h.root = q - h.s.off;
		ok = true;
		for (k = 0; k < 8 && ok; k++) {
			x = wa + k;
			/* @b itself, placed over it, may be its last writer. */
			if (!apart(q, n, x, 1))
				continue;
			if (!m->ws[k] || m->wdep[k]) {
				h.hit = false;
				m->ws[k] = final_byte(w, x, &m->wfx[k]) &&
					   !late_writer(w, h.s.pos, w->n, b,
							x, m->wfx[k], &h) ?
					   2 : 1;
				m->wdep[k] = h.hit;
			}
			if (m->ws[k] == 2 &&
			    (uint8_t)(h.root >> (8 * k)) != m->wfx[k])
				ok = false;	/* not q - c at p */
		}
		if (ok)
			return false;	/* a placement nothing refutes */
	}
	return true;
}

/*
 * Does what shows byte @x after store @b show a value no byte of @v
 * (its bits known) can be?  Then @b did not write @x.
 */
static bool shows_other(struct win *w, size_t b, uint64_t x,
			const struct rcv_acc *v, struct lower_memo *lm)
{
	uint8_t f;

	return revealed(w, b, x, &f, lm, NULL) && !may_leave(v, f);
}

/*
 * rep stos with rcx known (L = rcx * size bytes, at most STOS_MAX) and
 * rdi not: had it written @a, it wrote [q, q + L) for one q in
 * [a - L + 1, a], each byte a byte of its value (al, ax, eax, rax; the
 * direction flag moves the elements, not the run's contiguity).  A byte
 * that what shows it after @b shows as no byte of the value is outside
 * the run: so is @a, when @a is one; else with the nearest such bytes
 * below and above @a at a - d1 and a + d2, every run of L bytes over @a
 * meets one when d1 + d2 <= L.  Not the history's last instruction (it
 * may have stopped inside the run: rcv_end.c), nor one a signal
 * interrupted (RCV_I_XFER: it resumes with what is left).
 */
#define STOS_MAX	1024

static bool stos_refutes(struct win *w, size_t b, uint64_t a)
{
	const struct rcv_ins *in = &w->ins[b];
	const struct rcv_state *s = &w->st[b];
	struct lower_memo lm = { .n = 0 };
	struct rcv_acc v;
	bool src, dread, dst;
	uint64_t len, d1, d2;
	unsigned int es;

	if (!rcv_rep_stos(in) || (in->flags & RCV_I_UNPROVEN) ||
	    (w->top_end && b + 1 >= w->n) ||
	    s->r[RP_REG_RCX].k != ~0ull || s->r[RP_REG_RCX].v > STOS_MAX)
		return false;
	es = rcv_str_op(in, &src, &dread, &dst);
	len = s->r[RP_REG_RCX].v * es;
	if (!es || !dst || !len || len > STOS_MAX)
		return false;
	memset(&v, 0, sizeof(v));
	v.valid = true;
	v.size = es;
	v.val = s->r[RP_REG_RAX];
	if (es < 8)
		v.val.k &= (1ull << (8 * es)) - 1;
	if (!v.val.k)
		return false;
	if (shows_other(w, b, a, &v, &lm))
		return true;
	for (d1 = 1; d1 < len; d1++)
		if (shows_other(w, b, a - d1, &v, &lm))
			break;
	for (d2 = 1; d1 + d2 <= len; d2++)
		if (shows_other(w, b, a + d2, &v, &lm))
			return true;
	return false;
}

bool rcv_alias_refuted(struct win *w, size_t b, uint64_t a)
{
	struct rcv_acc wr;
	uint64_t until;
	int o = rcv_oracle_wrote(w, b, a);

	if (o >= 0)
		return !o;	/* measurements only (rcv_oracle.c) */
	/* Out of an xsave area's or a string store's bound. */
	if (rcv_extent_refuted(w, b, a))
		return true;
	if (b < w->n && stos_refutes(w, b, a))
		return true;

	if (b < w->n && rcv_xchg_refuted(w, b, a))
		return true;
	if (b >= w->n || !ustore(w, b, &wr) || !own_until(w, b, a, &until))
		return false;
	/* Away from the snapshot, what later loads show and what the
	 * states know of the address.
	 */
	return value_refutes(w, b, &wr, a) ||
	       addr_refutes(w, b, &wr, a, w->top_end && !w->rc->end_wild) ||
	       (w->top_end && word_refutes(w, b, &wr, a));
}
