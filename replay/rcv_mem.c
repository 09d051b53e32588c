// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Memory knowledge of the recovery engine (issue #17, docs/values.md):
 * the answer to "byte A before instruction N" from the window's access
 * index (rcv_index.c): the nearest access of A with no possible write
 * between, else the snapshot.  What memory system calls write and which
 * keep the mappings (by number and arguments): rcv_sys.c.
 * Also where fs-relative operands have known addresses (fs_base).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"

/*
 * Is @a in memory no one wrote from before instruction @i of @w to the
 * end?  An anonymous mapping (or the vDSO, or a file mapping no other
 * mapping of the process shows shared) the snapshot shows private and
 * not writable, with no barrier and no system call between that may have
 * changed mappings, protections or contents (rcv_sys_keeps_maps), and,
 * with other threads, none of theirs after state i that may change its
 * page (rcv_order_maps_at()):
 * a store to it faults, and the kernel's own writes (syscall buffers,
 * signal frames) fail.
 */
/*
 * The snapshot's mapping of @a, cached in @rc: the range around @a that one
 * answer covers (a mapping, or the gap between two), whether one maps it,
 * and its class.  The memory questions ask this for every byte, and a
 * linear walk of the maps each time was a fifth of a window's cost.
 */
/*
 * Is the file of mapping @f also mapped shared in the process?  A private
 * mapping's pages that were never written follow the file, so a store
 * through the shared mapping changes them (a memfd mapped twice:
 * tests/values/holes.c memfd).  The same file by inode (snapshot 4: a
 * hard link's name, another mount, /proc/self/fd/N: holes.c fshlink) or
 * by path (devices are not compared: rcv_fd.c); any file when a shared
 * file mapping is gone by the end (rcv_fd.c shared_gone(): fshgone), or
 * one that changed during the recording (snapshot 5's times: another
 * process may have written it, tests/values/review6.c forkwrite).
 */
static bool file_shared(struct rp_recover *rc,
			const struct rp_snap_map_info *f)
{
	struct rp_snap_map_info mi;
	size_t k;

	if ((!f->path[0] || f->path[0] == '[') && !(f->ids && f->ino))
		return false;
	/* Snapshot 5: the file may have been written during the
	 * recording, by another process too (its times, rcv_fd.c "Files
	 * written by anyone"): as if someone stored through a shared
	 * mapping of it at any time.
	 */
	if (f->written)
		return true;
	/* one that is gone by the end may have been of this file */
	if (rc->fsh_gone)
		return true;
	for (k = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++)
		if ((mi.prot & 8) &&
		    ((f->path[0] && f->path[0] != '[' &&
		      !strcmp(mi.path, f->path)) ||
		     (f->ids && f->ino && mi.ino == f->ino)))
			return true;
	return false;
}

static void map_miss(struct rp_recover *rc, uint64_t a)
{
	struct rp_snap_map_info mi;
	struct rcv_map *m = &rc->map, t;
	uint64_t lo = 0, hi = UINT64_MAX;
	size_t k;

	/* Two kept: questions alternate between the stack and data. */
	t = rc->map2;
	rc->map2 = *m;
	if (t.valid && t.lo <= a && a < t.hi) {
		*m = t;
		return;
	}
	m->valid = true;
	m->found = false;
	m->ro = false;
	m->priv = false;
	m->file = false;
	for (k = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, k, &mi); k++) {
		if (mi.start <= a && a < mi.end) {
			m->lo = mi.start;
			m->hi = mi.end;
			m->found = true;
			/* Anonymous, the vDSO, or a file mapped private
			 * and read-only here and shared nowhere in the
			 * process: no store of the process reaches it
			 * (a shared mapping of the file would, through
			 * the pages never copied; so would write(2) to
			 * the file or another process: docs/values.md,
			 * limits).  The snapshot holds a copied page
			 * (relocated RELRO) or the image's bytes.
			 */
			m->ro = !(mi.prot & 10) && (mi.prot & 5) &&
				(!mi.path[0] || !strcmp(mi.path, "[vdso]") ||
				 (mi.path[0] != '[' &&
				  !file_shared(rc, &mi)));
			m->file = mi.path[0] == '/';
			m->priv = !(mi.prot & 8) &&
				  strncmp(mi.path, "[vvar", 5) &&
				  !file_shared(rc, &mi);
			return;
		}
		if (mi.end <= a && mi.end > lo)
			lo = mi.end;
		if (mi.start > a && mi.start < hi)
			hi = mi.start;
	}
	m->lo = lo;
	m->hi = hi;
}

/* The hit looked up inline: nearly every question is one (a call for
 * each of 340,000 bytes was 8.4 M of a 4-window stop at 10^7).
 */
static inline void map_of(struct rp_recover *rc, uint64_t a)
{
	const struct rcv_map *m = &rc->map;

	if (!(m->valid && m->lo <= a && a < m->hi))
		map_miss(rc, a);
}

static bool ro_mem(struct win *w, uint64_t i, uint64_t a)
{
	struct rp_recover *rc = w->rc;
	const struct win *l;
	bool need;

	if (!(rc->snap_ok || rc->snap_ro) || (!w->top_end && !w->later))
		return false;
	map_of(rc, a);
	if (!rc->map.found || !rc->map.ro)
		return false;
	/* A file's page: a brk after which no task maps a file keeps it
	 * (rcv_sys_keeps_file()); any page, an mprotect where the recorder
	 * saw its protection never change (rcv_prot.c).
	 */
	need = (int64_t)i <= w->protc;
	for (l = w->later; l && !need; l = l->later)
		need = l->protc >= 0;
	if (need && (!rc->map.file || !rcv_sys_keeps_file(w, i)) &&
	    !rcv_prot_keeps(w, i, a))
		return false;
	/* Other threads: none may change its page after state i
	 * (rcv_order.c); nor a request of asynchronous I/O.
	 */
	if (rcv_order_aio(rc))
		return false;
	return !rc->mt || w->first + i >= rcv_order_maps_at(rc, a);
}

/*
 * May ro_mem() say yes for any of the bytes @want of @word?  No when they
 * all lie in the answer map_of() gives for the first of them (the one
 * ro_mem() asks first, a hit for the others) and it is no read-only
 * memory, or no mapping: ro_mem() is then false for each by its first
 * tests, asked once here rather than for every byte.  Otherwise each byte
 * is asked on its own.
 */
static bool ro_word_maybe(struct win *w, uint64_t word, uint8_t want)
{
	struct rp_recover *rc = w->rc;

	if (!want || !(rc->snap_ok || rc->snap_ro) ||
	    (!w->top_end && !w->later))
		return false;
	map_of(rc, 8 * word + (unsigned int)__builtin_ctz(want));
	return 8 * word + (31u - (unsigned int)__builtin_clz(want)) >=
		       rc->map.hi ||
	       (rc->map.found && rc->map.ro);
}

/*
 * Is @a memory this thread alone writes, and until which state?  In a
 * process with other threads, only its own stack below the first rsp
 * (rcv_escape.c), until the first instruction that may have shown
 * another thread an address in it.
 */
static bool private_until(struct rp_recover *rc, uint64_t a, uint64_t *until)
{
	*until = UINT64_MAX;
	if (rcv_order_aio(rc))	/* a request may write any of it */
		return false;
	if (rc->mt) {
		/* Its own stack, not a C object's (rcv_ownstk.c): other
		 * threads write an array run as a stack knowing no stack
		 * address.
		 */
		if (!(rc->stack_lo <= a && a < rc->stack_hi) ||
		    !rcv_own_stack(rc, a))
			return false;
		rcv_esc_compute(rc);
		if (a < rc->priv_lo || a >= rc->priv_hi || rc->esc_pos == 0)
			return false;
		*until = rc->esc_pos;
	}
	/* The thread's control block: the kernel writes its rseq area (the
	 * CPU it runs on) whenever it likes; and any other registered
	 * rseq area (rcv_fd.c).
	 */
	if ((rc->tls_lo <= a && a < rc->tls_hi) ||
	    ((rc->rseq_any || rc->nrseq) && rcv_fd_rseq(rc, a)))
		return false;
	if (!rc->sn)
		return !rc->mt;
	map_of(rc, a);
	/* Not mapped at the end: private if the process had no other
	 * thread and no shared mapping that is gone (two views of one
	 * page, both unmapped: rcv_fd.c ush_gone).
	 */
	return rc->map.found ? rc->map.priv : !rc->mt && !rc->ush_gone;
}

/*
 * The answer for each byte depends on the context alone (its snapshot,
 * threads, rseq areas, its stack's first escape, computed once), never on
 * a window: remembered (a memory question asks it for every byte of every
 * access it looks at: 7% of a GDB stop's windows on gdbloop).  Kept by
 * word, each byte's answer computed the first time it is asked (as by
 * byte: the same calls of private_until(), in the same order), and
 * looked up inline: a memory question asks it 340,000 times in a stop of
 * 4 windows at 10^7, nearly always answered here (docs/performance.md).
 */
static void pmemo_fill(struct rp_recover *rc, struct rcv_pmemo *m,
		       uint64_t a)
{
	unsigned int b = (unsigned int)(a & 7);

	if (!m->valid || m->word != a >> 3) {
		m->word = a >> 3;
		m->valid = true;
		m->have = 0;
		m->ok = 0;
		m->own = 0;
	}
	m->own &= (uint8_t)~(1u << b);
	if (private_until(rc, a, &m->until[b])) {
		m->ok |= (uint8_t)(1u << b);
		if (m->until[b] == UINT64_MAX)
			m->own |= (uint8_t)(1u << b);
	}
	m->have |= (uint8_t)(1u << b);
}

static inline struct rcv_pmemo *pmemo_slot(struct rp_recover *rc,
					   uint64_t word)
{
	return &rc->pmemo[(word ^ word >> 6) % RCV_PMEMO];
}

static inline bool pmemo_until(struct rp_recover *rc, uint64_t a,
			       uint64_t *until)
{
	uint64_t word = a >> 3;
	unsigned int b = (unsigned int)(a & 7);
	struct rcv_pmemo *m = pmemo_slot(rc, word);

	if (!m->valid || m->word != word || !(m->have >> b & 1))
		pmemo_fill(rc, m, a);
	*until = m->until[b];
	return m->ok >> b & 1;
}

bool rcv_private_until(struct rp_recover *rc, uint64_t a, uint64_t *until)
{
	return pmemo_until(rc, a, until);
}

/* The last state up to which the thread's stack is its own alone
 * (UINT64_MAX: all through; 0 with an rseq area in it): push/pop pairs
 * across it are not kept.
 */
uint64_t rcv_stack_until(struct rp_recover *rc)
{
	if (rc->rseq_stack)	/* the kernel rewrites it (rcv_fd.c) */
		return 0;
	if (!rc->mt)
		return UINT64_MAX;
	rcv_esc_compute(rc);
	return rc->esc_pos;
}

bool rcv_map_private(struct rp_recover *rc, uint64_t a)
{
	if (!rc->sn)
		return false;
	map_of(rc, a);
	return rc->map.found && rc->map.priv;
}

/* Is @a memory this thread alone writes all through its history? */
bool rcv_private(struct rp_recover *rc, uint64_t a)
{
	uint64_t until;

	return pmemo_until(rc, a, &until) && until == UINT64_MAX;
}

/* Byte @a of the snapshot's memory of the process, whoever asks. */
static bool snap_read(struct rp_recover *rc, uint64_t a, uint8_t *b);

bool rcv_snap_byte(struct rp_recover *rc, uint64_t a, uint8_t *b)
{
	return rc->snap_ok && snap_read(rc, a, b);
}

static bool snap_read(struct rp_recover *rc, uint64_t a, uint8_t *b)
{
	uint64_t page = a & ~4095ull;

	if (!rc->page_valid || rc->page != page) {
		rc->page = page;
		rc->page_valid = true;
		rc->page_len = rp_snapshot_read(rc->sn, rc->pid, page,
						rc->page_buf, 4096, true);
	}
	if (a - page >= rc->page_len)
		return false;
	*b = rc->page_buf[a - page];
	return true;
}

/* lower() for @w's entries of @word from @i, remembered for the other
 * bytes of the same question (the index does not change during one).
 */
static size_t lower_memo(const struct win *w, uint64_t word, uint64_t i)
{
	struct rp_recover *rc = w->rc;

	if (rc->low_gen != rc->mb_gen || rc->low_w != w ||
	    rc->low_word != word || rc->low_i != i) {
		rc->low_gen = rc->mb_gen;
		rc->low_w = w;
		rc->low_word = word;
		rc->low_i = i;
		rc->low_k = rcv_lower(w, word, i);
	}
	return rc->low_k;
}

/* A new memory question: nothing remembered holds (states change
 * between questions), unless none changed since the last (mb_keep).
 * Generation 0 is never current.
 */
static void memo_new(struct rp_recover *rc)
{
	if (rc->mb_keep && rc->mb_seen == rc->mb_world)
		return;		/* nothing changed since the last one */
	rc->mb_seen = rc->mb_keep ? rc->mb_world : UINT64_MAX;
	if (!++rc->mb_gen) {
		memset(rc->memo, 0, sizeof(rc->memo));
		rc->low_gen = 0;
		rc->mb_gen = 1;
	}
}

/*
 * Byte @a of memory before instruction @i of @w (state i).  Forward: the
 * first access at or after i, if a load with a known value; reaching the
 * end of the window with no possible write, the snapshot or the later
 * window.  Backward: the last access before i, a store or load with a
 * known value.  Any barrier between stops it.
 */
#define MB_FWD	1	/* may look into the later windows */
#define MB_BACK	2	/* may look into the earlier windows */
#define MB_SCAN	64	/* accesses of one word looked at each way */

#define MB_ALIAS 16	/* stores of unknown address tried each way */

/*
 * Bytes @want (bit b: byte 8 * @word + b) of memory before instruction @i
 * of @w (state i), each as below, in *@val; returns the bytes known.
 *
 * One byte: a read-only mapping's is the snapshot's.  Memory other
 * threads may write: only what instruction i itself loads (not a branch
 * still unproven: what it loaded is not known).  Else forward, the first
 * access at or after i, if a load with a known value; reaching the end
 * of the window with no possible write, the snapshot or the later
 * window.  Backward: the last access before i, a store or load with a
 * known value.  Any barrier between stops it.
 *
 * The bytes of a word that share their owner (the same last state of
 * being this thread's alone) walk the word's accesses together (p99: a
 * question of 8 bytes walked the same accesses 8 times, 220 M of the
 * 850 M of workload's last window): at each access, the bytes still
 * looking learn or stop exactly as each would alone, so every answer is
 * the one byte by byte gave (docs/values.md, "Latency").
 */
static uint8_t mem_bytes(struct win *w, uint64_t i, uint64_t word,
			 uint8_t want, uint8_t *val, int dirs);

/* Bytes @m of @word from @x (known there) into @val: for each, what
 * rcv_acc_byte() writes, taking only the bytes asked (a loop over all 8
 * with a call for each was 10 M of a 4-window stop at 10^7).
 */
static void acc_vals(const struct rcv_acc *x, uint64_t word, uint8_t m,
		     uint8_t *val)
{
	unsigned int b, sh;
	uint64_t off;
	struct rcv_val v;

	if (!x->valid || !x->addr_known)
		return;
	for (; m; m &= (uint8_t)(m - 1)) {
		b = (unsigned int)__builtin_ctz(m);
		off = 8 * word + b - x->addr;
		if (off >= x->size || off >= 16)
			continue;
		v = off < 8 ? x->val : x->hi;
		sh = (unsigned int)(off & 7) * 8;
		if ((v.k >> sh & 0xff) == 0xff)
			val[b] = (uint8_t)(v.v >> sh);
	}
}

/*
 * The bytes of @word in the slot of a push that nothing wrote from it to
 * past @b (w->ek: a callee's own stack, rcv_callee.c): barrier @b did not
 * write them.  Proven in bulk, so not counted against MB_ALIAS.
 */
static uint8_t end_kept(const struct win *w, size_t b, uint64_t word)
{
	const struct rcv_val *sp;
	uint8_t m = 0;
	unsigned int t;
	size_t k;

	for (k = 0; k < w->nek && w->ek[k].p < b; k++) {
		sp = &w->st[w->ek[k].p].r[RP_REG_RSP];
		if (b >= w->ek[k].to || sp->k != ~0ull)
			continue;
		for (t = 0; t < 8; t++)
			if (8 * word + t - (sp->v - 8) < 8)
				m |= (uint8_t)(1u << t);
	}
	return m;
}

/*
 * Is byte @a, at state @i, in the slot of a push before @i that nothing,
 * this thread or another, wrote from the push to the end (w->ek, kept up
 * to the end: no escape of an address that may reach it, so no other
 * thread's store either)?  The push's position in *@from.
 */
static bool end_own(const struct win *w, uint64_t i, uint64_t a,
		    uint64_t *from)
{
	const struct rcv_val *sp;
	size_t k;

	for (k = 0; k < w->nek && w->ek[k].p < i; k++) {
		sp = &w->st[w->ek[k].p].r[RP_REG_RSP];
		if (w->ek[k].to >= w->n && sp->k == ~0ull &&
		    a - (sp->v - 8) < 8) {
			*from = w->first + w->ek[k].p;
			return true;
		}
	}
	return false;
}

/* The walk of mem_bytes() for the bytes @p of @word, all this thread's
 * alone from state @from up to state @until.
 */
static uint8_t mem_scan(struct win *w, uint64_t i, uint64_t word, uint8_t p,
			uint64_t from, uint64_t until, uint8_t *val, int dirs)
{
	size_t flo = from > w->first ? (size_t)(from - w->first) : 0;
	uint64_t sa, sl;
	size_t k, j, lim, stop;
	uint8_t got = 0, back = 0, r_ok, t, kn, cov;
	const struct rcv_acc *x;
	unsigned int tries = 0, b;
	bool cut = false;
	int64_t plim;

	k = lower_memo(w, word, i);
	/* Forward to the first access, up to the next barrier; past a
	 * store of unknown address proven not to have written a byte
	 * (rcv_alias.c), on to the next.  Not past the instruction where
	 * the bytes stop being this thread's alone (its stack escaped):
	 * its own loads, not those after it, nor the end.
	 */
	stop = w->n;
	if (until < w->first + w->n) {
		stop = (size_t)(until - w->first) + 1;
		cut = true;
	}
	lim = w->nb[i] < stop ? w->nb[i] : stop;
	j = k;
	for (;;) {
		for (; p && j < w->nidx && w->idx[j].word == word &&
		     w->idx[j].pos < lim; j++) {
			size_t q = w->idx[j].pos;

			/* A word accessed in every iteration of a loop,
			 * values unknown: do not walk all of them for each
			 * question.
			 */
			if (j - k >= MB_SCAN) {
				w->rc->scan_capped = true;
				back |= p;
				p = 0;
				break;
			}
			x = rcv_acc_of(w, q, false);
			kn = rcv_acc_word(x, word, &cov) & p;
			if (kn) {
				acc_vals(x, word, kn, val);
				got |= kn;
				p &= (uint8_t)~kn;
				if (!p)
					break;
			}
			/* A store: the value before it is not this one. */
			rcv_acc_word(rcv_acc_of(w, q, true), word, &cov);
			back |= p & cov;
			p &= (uint8_t)~cov;
			if (p && (w->ins[q].flags & RCV_I_SYSCALL) &&
			    rcv_sys_write(w, q, &sa, &sl) > 0)
				for (b = 0; b < 8; b++)
					if ((p >> b & 1) &&
					    8 * word + b - sa < sl) {
						back |= 1u << b;
						p &= (uint8_t)~(1u << b);
					}
		}
		if (!p)
			break;
		if (lim < stop) {
			r_ok = (end_kept(w, lim, word) |
				rcv_extent_kept(w, lim, word)) & p;
			if (r_ok != p && tries < MB_ALIAS) {
				for (b = 0; b < 8; b++)
					if ((p >> b & 1) && !(r_ok >> b & 1) &&
					    rcv_alias_refuted(w, lim,
							      8 * word + b))
						r_ok |= 1u << b;
				tries++;
			}
			/* Not refuted: this store may have written them. */
			back |= p & (uint8_t)~r_ok;
			p = r_ok;
			if (!p)
				break;
			lim = w->nb[lim + 1] < stop ? w->nb[lim + 1] : stop;
			continue;
		}
		break;
	}
	if (p && lim == w->n && !cut && (dirs & MB_FWD)) {
		if (w->top_end) {
			/* Not where the end is inside a string store
			 * (rcv_end.c).
			 */
			for (b = 0; b < 8 && !w->rc->end_wild; b++)
				if ((p >> b & 1) &&
				    rcv_snap_byte(w->rc, 8 * word + b, &t)) {
					val[b] = t;
					got |= 1u << b;
					p &= (uint8_t)~(1u << b);
				}
		} else if (w->later) {
			t = mem_bytes(w->later, 0, word, p, val, MB_FWD);
			got |= t;
			p &= (uint8_t)~t;
		}
	}
	back |= p;
	/* Backward to the last access, likewise, for the bytes the forward
	 * walk did not answer: each from the question's own entry k.
	 */
	plim = w->pb[i];
	j = k;
	tries = 0;
	p = back;
	for (;;) {
		for (; p && j > 0 && w->idx[j - 1].word == word &&
		     (int64_t)w->idx[j - 1].pos > plim &&
		     w->idx[j - 1].pos >= flo; j--) {
			size_t q = w->idx[j - 1].pos;

			if (k - j >= MB_SCAN)
				return got;
			if ((w->ins[q].flags & RCV_I_SYSCALL) &&
			    rcv_sys_write(w, q, &sa, &sl) > 0)
				for (b = 0; b < 8; b++)
					if (8 * word + b - sa < sl)
						p &= (uint8_t)~(1u << b);
			/* A store: what it wrote, or not known. */
			x = rcv_acc_of(w, q, true);
			kn = rcv_acc_word(x, word, &cov) & p;
			acc_vals(x, word, kn, val);
			got |= kn;
			p &= (uint8_t)~cov;
			if (!p)
				break;
			x = rcv_acc_of(w, q, false);
			kn = rcv_acc_word(x, word, &cov) & p;
			acc_vals(x, word, kn, val);
			got |= kn;
			p &= (uint8_t)~kn;
		}
		if (!p)
			break;
		if (plim >= (int64_t)flo &&
		    !(j > 0 && w->idx[j - 1].word == word &&
		      w->idx[j - 1].pos < flo)) {
			r_ok = (end_kept(w, (size_t)plim, word) |
				rcv_extent_kept(w, (size_t)plim, word)) & p;
			if (r_ok != p && tries < MB_ALIAS) {
				for (b = 0; b < 8; b++)
					if ((p >> b & 1) && !(r_ok >> b & 1) &&
					    rcv_alias_refuted(w, (size_t)plim,
							      8 * word + b))
						r_ok |= 1u << b;
				tries++;
			}
			/* Not refuted: not known. */
			p = r_ok;
			if (!p)
				break;
			plim = w->pb[plim];
			continue;
		}
		break;
	}
	/* Nothing may have written them since the window began: what the
	 * window before it shows at its end.
	 */
	if (p && plim < 0 && !flo && w->earlier && (dirs & MB_BACK) &&
	    !(j > 0 && w->idx[j - 1].word == word && w->idx[j - 1].pos < flo))
		got |= mem_bytes(w->earlier, w->earlier->n, word, p, val,
				 MB_BACK);
	/* A ramp's window: what the summary before it tells (rcv_sum.c). */
	else if (p && plim < 0 && !flo && w->smem && (dirs & MB_BACK) &&
		 word - w->smem->lo < w->smem->n &&
		 !(j > 0 && w->idx[j - 1].word == word &&
		   w->idx[j - 1].pos < flo)) {
		size_t o = word - w->smem->lo;

		kn = w->smem->known[o] & p;
		for (b = 0; b < 8; b++)
			if (kn >> b & 1)
				val[b] = w->smem->val[o][b];
		got |= kn;
	}
	return got;
}

static uint8_t mem_bytes(struct win *w, uint64_t i, uint64_t word,
			 uint8_t want, uint8_t *val, int dirs)
{
	uint64_t until, g_until = 0, g_from, p_until[8];
	uint8_t got = 0, grp = 0, t, p_ok = 0;
	unsigned int b;
	bool shared, p_all, ro_maybe = ro_word_maybe(w, word, want);
	const struct rcv_pmemo *pm = pmemo_slot(w->rc, word);

	/* Every wanted byte's answer already known (the usual case): taken
	 * once for the word, as mem_scan() below may replace the entry.
	 */
	p_all = pm->valid && pm->word == word && (pm->have & want) == want;
	if (p_all) {
		p_ok = pm->ok;
		memcpy(p_until, pm->until, sizeof(p_until));
	}
	/* The usual case at once: no byte read-only, every one this
	 * thread's alone past @i up to the same state, so one group (what
	 * the loop below makes of it, without a test per byte).
	 */
	if (want && p_all && !ro_maybe && (p_ok & want) == want) {
		uint64_t u = p_until[__builtin_ctz(want)];

		for (b = 0; b < 8; b++)
			if ((want >> b & 1) && p_until[b] != u)
				break;
		if (b == 8 && w->first + i <= u)
			return mem_scan(w, i, word, want, 0, u, val, dirs);
	}
	for (b = 0; b < 8; b++) {
		uint64_t a = 8 * word + b;

		if (!(want >> b & 1))
			continue;
		if (ro_maybe && ro_mem(w, i, a)) {
			if (snap_read(w->rc, a, &t)) {
				val[b] = t;
				got |= 1u << b;
			}
			continue;
		}
		if (p_all) {
			until = p_until[b];
			shared = !(p_ok >> b & 1);
		} else {
			shared = !pmemo_until(w->rc, a, &until);
		}
		shared = shared || w->first + i > until;
		/* Shared, but a pushed slot nothing wrote since its push
		 * up to the end: this thread's alone from the push.
		 */
		if (shared && w->nek && end_own(w, i, a, &g_from)) {
			got |= mem_scan(w, i, word, 1u << b, g_from,
					UINT64_MAX, val, dirs);
			continue;
		}
		if (shared) {
			/* Shared: what instruction i itself loads; else
			 * between the other tasks' writes (rcv_xthr.c).
			 */
			uint64_t fr, un;

			if (i < w->n && !(w->ins[i].flags & RCV_I_BARRIER) &&
			    rcv_acc_byte(rcv_acc_of(w, i, false), a, &t) == 1) {
				val[b] = t;
				got |= 1u << b;
			} else if (rcv_xthr_quiet(w->rc, a, w->first + i,
						  &fr, &un)) {
				got |= mem_scan(w, i, word, 1u << b, fr, un,
						val, dirs);
			}
			continue;
		}
		if (!grp)
			g_until = until;
		if (until == g_until)
			grp |= 1u << b;
		else
			got |= mem_scan(w, i, word, 1u << b, 0, until, val,
					dirs);
	}
	if (grp)
		got |= mem_scan(w, i, word, grp, 0, g_until, val, dirs);
	return got;
}

/*
 * The loads of @w from the last to the first, as the forward sweep does
 * them (rcv_forward()): a load takes the value of the next access of its
 * bytes, which in this order is already known when it is a load too.  A
 * global read in every iteration of a loop (a volatile function pointer)
 * is then known back from the snapshot in one pass, where the forward
 * sweep alone gains 64 loads a pass (mem_byte() looks at 64 accesses of
 * a word each way).
 */
bool rcv_loads_back(struct rp_recover *rc, struct win *w)
{
	struct rcv_ctx *c = &rc->ctx;
	bool ch = false;
	size_t i;

	for (i = w->n; i-- > 0;) {
		const struct rcv_ins *in = &w->ins[i];

		if (in->nops == 2 && in->op[0].type == RCV_OP_REG &&
		    in->op[1].type == RCV_OP_MEM &&
		    (in->id == X86_INS_MOV || in->id == X86_INS_MOVZX ||
		     in->id == X86_INS_MOVSX || in->id == X86_INS_MOVSXD) &&
		    w->st[i + 1].r[in->op[0].reg].k != ~0ull)
			ch |= rcv_forward(c, i, in, &w->st[i], &w->st[i + 1],
					  &rc->stats.conflicts);
	}
	return ch;
}

uint8_t rcv_mem_word(struct win *w, uint64_t i, uint64_t word, uint8_t *val)
{
	memo_new(w->rc);
	return mem_bytes(w, i, word, 0xff, val, MB_FWD | MB_BACK);
}

bool rcv_mem_byte(struct win *w, uint64_t i, uint64_t a, uint8_t *out)
{
	uint8_t val[8];

	memo_new(w->rc);
	if (!mem_bytes(w, i, a >> 3, 1u << (a & 7), val, MB_FWD | MB_BACK))
		return false;
	*out = val[a & 7];
	return true;
}

size_t rcv_mem_range(struct win *w, uint64_t i, uint64_t addr, void *buf,
		     size_t len)
{
	uint8_t val[8], got, want;
	uint64_t a = addr, e = addr + len;
	unsigned int b;

	memo_new(w->rc);
	while (a < e) {
		uint64_t word = a >> 3, we = (word + 1) * 8;

		if (we > e || we < a)	/* the range ends in it, or wraps */
			we = e;
		want = (uint8_t)(((1u << (we - a)) - 1) << (a & 7));
		got = mem_bytes(w, i, word, want, val, MB_FWD | MB_BACK);
		for (b = (unsigned int)(a & 7); a < we; b++, a++) {
			if (!(got >> b & 1))
				return (size_t)(a - addr);
			((uint8_t *)buf)[a - addr] = val[b];
		}
	}
	return len;
}

struct rcv_val rcv_mem_cb(void *ctx, uint64_t i, uint64_t addr,
			     unsigned int size)
{
	struct win *w = ctx;
	struct rcv_val r = { 0, 0 };
	uint8_t val[8], got;
	unsigned int b, n = size < 8 ? size : 8, o = (unsigned int)(addr & 7);
	uint64_t word = addr >> 3;

	memo_new(w->rc);
	/* Bytes 0..n-1 of the question: those in @word, then the rest in
	 * the next word.
	 */
	got = mem_bytes(w, i, word, (uint8_t)(((1u << (o + n > 8 ? 8 - o : n)) -
				     1) << o), val, MB_FWD | MB_BACK);
	for (b = 0; b < n && o + b < 8; b++)
		if (got >> (o + b) & 1) {
			r.v |= (uint64_t)val[o + b] << (8 * b);
			r.k |= 0xffull << (8 * b);
		}
	if (o + n > 8) {
		got = mem_bytes(w, i, (word + 1) & (UINT64_MAX >> 3),
				(uint8_t)((1u << (o + n - 8)) - 1), val,
				MB_FWD | MB_BACK);
		for (; b < n; b++)
			if (got >> (o + b - 8) & 1) {
				r.v |= (uint64_t)val[o + b - 8] << (8 * b);
				r.k |= 0xffull << (8 * b);
			}
	}
	return r;
}

/*
 * System call numbers that may change fs_base: arch_prctl (158), execve
 * (59), execveat (322), rt_sigreturn (15), and set_thread_area (205) and
 * modify_ldt (154), which reload fs when its selector names the TLS or
 * LDT entry they change; any x32 call (__X32_SYSCALL_BIT, 0x40000000: a
 * 64-bit process may make them where the kernel has x32, and x32's
 * arch_prctl, execve and rt_sigreturn are among them); any number with
 * upper bits set.
 */
bool rcv_fs_syscall_nr(uint64_t nr)
{
	uint32_t lo = (uint32_t)nr;

	return lo == 158 || lo == 59 || lo == 322 || lo == 15 || lo == 205 ||
	       lo == 154 || (lo & 0x40000000u) || nr != lo;
}

/*
 * May the system call at @i of @w change fs_base?  Not when its number,
 * known in the state before it or set to a constant by the instruction
 * before it, is not one rcv_fs_syscall_nr() names.
 */
static bool fs_syscall(const struct win *w, size_t i)
{
	const struct rcv_ins *p = i ? &w->ins[i - 1] : NULL;
	struct rcv_val rax = w->st[i].r[RP_REG_RAX];

	if (rax.k == ~0ull)
		return rcv_fs_syscall_nr(rax.v);
	if (!p || p->id != X86_INS_MOV || p->nops != 2 ||
	    p->op[0].type != RCV_OP_REG || p->op[0].reg != RP_REG_RAX ||
	    p->op[0].size < 4 || p->op[1].type != RCV_OP_IMM ||
	    (p->flags & RCV_I_BARRIER))
		return true;
	return rcv_fs_syscall_nr((uint64_t)p->op[1].imm & 0xffffffffull);
}

/*
 * fs-relative operands after the last instruction of @w that may change
 * fs_base (wrfsbase, a write of fs, arch_prctl or an unknown system
 * call, a barrier: a gap or a handler may hide one), where no later one
 * does up to the thread's end, become absolute with the end's fs_base:
 * the thread pointer's data (the stack protector's canary, errno, the
 * cleanup and rseq fields) get known addresses.  Again as system call
 * numbers become known.  Returns true when it changed an operand.
 */
bool rcv_fs_absolute(struct rp_recover *rc, struct win *w)
{
	int64_t last = -1;
	bool ch = false;
	uint64_t fs;
	size_t i, end;
	int k;

	for (i = 0; i < w->n; i++) {
		const struct rcv_ins *in = &w->ins[i];

		if ((in->flags & (RCV_I_BARRIER | RCV_I_FSW)) ||
		    ((in->flags & RCV_I_SYSCALL) && fs_syscall(w, i)))
			last = (int64_t)i;
	}
	w->fs_clean = last < 0;
	w->fs_tail = w->later ? w->later->fs_tail && w->later->fs_clean :
		     w->top_end &&
		     (rc->end_regs.valid & (1ull << RP_REG_FS_BASE));
	if (!w->fs_tail)
		return false;
	fs = rc->end_regs.val[RP_REG_FS_BASE];
	/* Operands converted stay so (every pass asks again): only those
	 * before the last conversion's start.
	 */
	end = w->fs_conv ? w->fs_lo : w->n;
	if (!w->fs_conv || (size_t)(last + 1) < w->fs_lo)
		w->fs_lo = (size_t)(last + 1);
	w->fs_conv = true;
	for (i = (size_t)(last + 1); i < end; i++)
		for (k = 0; k < w->ins[i].nops ||
			    (!k && w->ins[i].id == X86_INS_XLATB); k++) {
			struct rcv_op *o = &w->ins[i].op[k];

			/* xlat's segment is in op[0] (rcv_decode.c) */
			if ((o->type == RCV_OP_MEM ||
			     w->ins[i].id == X86_INS_XLATB) && o->seg == 1) {
				o->imm = (int64_t)((uint64_t)o->imm + fs);
				o->seg = 0;
				ch = true;
			}
		}
	return ch;
}

bool rcv_mem_own(void *ctx, uint64_t addr, unsigned int size)
{
	struct win *w = ctx;
	unsigned int k = 0, n;

	/* A word at a time where the memo knows all its bytes asked. */
	while (k < size) {
		uint64_t a = addr + k, word = a >> 3;
		const struct rcv_pmemo *m = pmemo_slot(w->rc, word);
		uint8_t mask;

		n = 8 - (unsigned int)(a & 7);
		if (n > size - k)
			n = size - k;
		mask = (uint8_t)(((1u << n) - 1) << (a & 7));
		if (m->valid && m->word == word && (m->have & mask) == mask) {
			if ((m->own & mask) != mask)
				return false;
			k += n;
			continue;
		}
		for (; n; n--, k++)
			if (!rcv_private(w->rc, addr + k))
				return false;
	}
	return true;
}
