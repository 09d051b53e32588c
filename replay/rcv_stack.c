// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Stack frames for the recovery engine, where the stack pointer's value
 * is not known: rsp, and every register that holds a copy of it plus a
 * constant (rbp, the lazy-binding resolver's rbx), as an unknown base
 * plus a known offset.  Between two instructions whose rsp has the same
 * base, rsp differs by the difference of offsets (so one known value
 * gives them all), and a pop that reads the slot a push wrote (same base
 * and offset, no store to it since) restores the pushed value:
 * callee-saved registers come back across calls whose own memory is
 * unknown.  So does a reload (mov reg, [base + d]) of its spill (mov
 * [base + d], reg), and the spilled register's frame with it
 * (docs/values.md, "A callee's own frame", "Every register's frame").
 * Stores of unknown place, through another frame, or other threads
 * between: only where a callee's own stack shows the slot kept
 * (rcv_callee.c).
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_internal.h"
#include "replay.h"

struct slot {
	uint32_t gen;		/* the table's: in use */
	uint32_t cls;
	int64_t key;		/* offset / 8, rounded down */
	int64_t writer;		/* position of the last write, -1 none */
	int64_t first;		/* push: the slot's exact offset */
	uint32_t vc;		/* what the writer stored: a register of
				 * frame class vc (0: none) ... */
	int64_t vo;		/* ... at offset vo */
};

/*
 * Stores whose address the recovered values give (rcv_stack_build_v()):
 * the last one to each 8-byte word, and the last one of all.
 */
struct aword {
	uint32_t gen;		/* the table's: in use */
	uint64_t word;		/* address >> 3 */
	int64_t pos;
};

/*
 * The tables of rcv_stack_build_v(), kept from one build to the next
 * (struct rcv_stack_vals' tmp): a build empties them by moving to the
 * next generation, not by clearing them (p99: a table for 4 slots per
 * instruction, 8 MB for a window and the next, was allocated and cleared
 * on every pass), and they grow when half full.
 */
/* Walkers of callees (the innermost call's and callers' entries: a pair
 * in a callee and a stack argument read there alternate; with two, the
 * demo's walks were 1.15x main's callgrind instructions, with four
 * 1.00x).
 */
#define NWK 4

struct rcv_stack_tmp {
	struct slot *v;
	size_t cap, used;
	unsigned int shift;	/* 64 - log2(cap) */
	uint32_t gen;
	struct aword *a;
	size_t acap, aused;
	unsigned int ashift;
	uint32_t agen;
	int64_t last;		/* the last store of known address, -1 */
	bool nomem;		/* a reservation failed */
	uint64_t *placed;	/* bit i: system call i placed */
	size_t pcap;		/* its words */
	int64_t *ents;		/* the calls' entries, innermost last */
	size_t nents, entcap;
	/* rcv_callee.c's walkers, each keeping one entry's walk; the one
	 * used longest ago walks a new entry.
	 */
	struct rcv_callee *wk[NWK];
	uint64_t wkuse[NWK], tick;
};

int rcv_stack_tmp_new(struct rcv_stack_tmp **t)
{
	*t = calloc(1, sizeof(**t));
	return *t ? 0 : -RP_ERR_NOMEM;
}

void rcv_stack_tmp_free(struct rcv_stack_tmp *t)
{
	int j;

	if (!t)
		return;
	free(t->v);
	free(t->a);
	free(t->ents);
	free(t->placed);
	for (j = 0; j < NWK; j++)
		rcv_callee_free(t->wk[j]);
	free(t);
}

/* The high bits of a multiplicative hash (the low bits of pairs of class
 * and offset, and of word addresses, cluster).
 */
static size_t hash_hi(uint64_t x, unsigned int shift)
{
	return (size_t)((x * 0x9e3779b97f4a7c15ull) >> shift);
}

static size_t slot_hash(uint32_t cls, int64_t key, unsigned int shift)
{
	return hash_hi(((uint64_t)cls << 32) ^ (uint64_t)key, shift);
}

/* Room for @more slots and words at least, half full at most. */
static int tmp_reserve(struct rcv_stack_tmp *t, size_t more)
{
	size_t cap, i, h;
	unsigned int shift;

	if (2 * (t->used + more) > t->cap) {
		struct slot *v;

		for (cap = t->cap ? t->cap : 1024;
		     cap < 2 * (t->used + more); cap *= 2)
			;
		shift = 64 - (unsigned int)__builtin_ctzll(cap);
		v = calloc(cap, sizeof(*v));
		if (!v)
			return -RP_ERR_NOMEM;
		for (i = 0; i < t->cap; i++) {
			if (t->v[i].gen != t->gen)
				continue;
			h = slot_hash(t->v[i].cls, t->v[i].key, shift);
			while (v[h].gen)
				h = (h + 1) & (cap - 1);
			v[h] = t->v[i];
		}
		free(t->v);
		t->v = v;
		t->cap = cap;
		t->shift = shift;
	}
	if (2 * (t->aused + more) > t->acap) {
		struct aword *a;

		for (cap = t->acap ? t->acap : 1024;
		     cap < 2 * (t->aused + more); cap *= 2)
			;
		shift = 64 - (unsigned int)__builtin_ctzll(cap);
		a = calloc(cap, sizeof(*a));
		if (!a)
			return -RP_ERR_NOMEM;
		for (i = 0; i < t->acap; i++) {
			if (t->a[i].gen != t->agen)
				continue;
			h = hash_hi(t->a[i].word, shift);
			while (a[h].gen)
				h = (h + 1) & (cap - 1);
			a[h] = t->a[i];
		}
		free(t->a);
		t->a = a;
		t->acap = cap;
		t->ashift = shift;
	}
	return 0;
}

/* Both tables empty, for a new build. */
static void tmp_clear(struct rcv_stack_tmp *t)
{
	int j;

	if (!++t->gen) {
		memset(t->v, 0, t->cap * sizeof(*t->v));
		t->gen = 1;
	}
	if (!++t->agen) {
		memset(t->a, 0, t->acap * sizeof(*t->a));
		t->agen = 1;
	}
	t->used = t->aused = 0;
	t->last = -1;
	t->nomem = false;
	t->nents = 0;
	for (j = 0; j < NWK; j++)
		rcv_callee_reset(t->wk[j]);
}

/* Slot (@cls, @key), added when absent (tmp_reserve() made room). */
static struct slot *slot_at(struct rcv_stack_tmp *t, uint32_t cls,
			    int64_t key)
{
	size_t h = slot_hash(cls, key, t->shift);

	while (t->v[h].gen == t->gen &&
	       (t->v[h].cls != cls || t->v[h].key != key))
		h = (h + 1) & (t->cap - 1);
	if (t->v[h].gen != t->gen) {
		t->v[h].gen = t->gen;
		t->v[h].cls = cls;
		t->v[h].key = key;
		t->v[h].writer = -1;
		t->used++;
	}
	return &t->v[h];
}

static int64_t floor8(int64_t o)
{
	return o >= 0 ? o / 8 : -((-o + 7) / 8);
}

static int64_t *abs_at(struct rcv_stack_tmp *t, uint64_t word, bool add)
{
	size_t h = hash_hi(word, t->ashift);

	while (t->a[h].gen == t->agen && t->a[h].word != word)
		h = (h + 1) & (t->acap - 1);
	if (t->a[h].gen != t->agen) {
		if (!add)
			return NULL;
		t->a[h].gen = t->agen;
		t->a[h].word = word;
		t->a[h].pos = -1;
		t->aused++;
	}
	return &t->a[h].pos;
}

/* Instruction @pos wrote [@a, @a + @size). */
static void abs_write(struct rcv_stack_tmp *t, uint64_t a, unsigned int size,
		      int64_t pos)
{
	uint64_t w;

	for (w = a >> 3; w <= (a + size - 1) >> 3; w++)
		*abs_at(t, w, true) = pos;
	t->last = pos;
}

/*
 * Did a store of known address since the push at @p write the 8 bytes
 * at @slot?  Without the slot's address (@known false), any did.
 */
static bool abs_killed(struct rcv_stack_tmp *t, bool known, uint64_t slot,
		       int64_t p)
{
	int64_t *a, *b;

	if (t->last <= p)
		return false;
	if (!known)
		return true;
	a = abs_at(t, slot >> 3, false);
	b = abs_at(t, (slot + 7) >> 3, false);
	return (a && *a > p) || (b && *b > p);
}

static const struct rcv_state *sv_at(const struct rcv_stack_vals *sv,
				     size_t i)
{
	return i < sv->na ? &sv->a[i] : &sv->b[i - sv->na];
}

/* The instructions: @a[0..@na) then @b[0..] (rcv_stack_vals' ins_b). */
struct insv {
	const struct rcv_ins *a, *b;
	size_t na;
	const uint64_t *placed;	/* system calls sys_placed() placed */
};

static const struct rcv_ins *ins_at(const struct insv *x, size_t i)
{
	return i < x->na ? &x->a[i] : &x->b[i - x->na];
}

/*
 * The address of write operand @m of instruction @i when the values
 * before it give it whole (no segment: fs/gs bases are not looked at),
 * with a size this table takes; else false.
 */
static bool abs_addr(const struct rcv_stack_vals *sv, size_t i,
		     const struct rcv_ins *in, const struct rcv_op *m,
		     uint64_t *a)
{
	const struct rcv_state *s;
	struct rcv_val v;

	if (!sv || m->seg || !m->size || m->size > 64)
		return false;
	s = sv_at(sv, i);
	v = rcv_addr(NULL, in, m, s);
	if (v.k != ~0ull || v.v + m->size - 1 < v.v)
		return false;
	*a = v.v;
	return true;
}

/* rsp before instruction @i, when known whole. */
static bool abs_rsp(const struct rcv_stack_vals *sv, size_t i, uint64_t *v)
{
	const struct rcv_state *s;

	if (!sv)
		return false;
	s = sv_at(sv, i);
	if (s->r[RP_REG_RSP].k != ~0ull)
		return false;
	*v = s->r[RP_REG_RSP].v;
	return true;
}

/*
 * A write of @size bytes at (@cls, @off) by instruction @pos, of a value
 * of frame class @vc at offset @vo (@vc 0: not one).
 */
static void slot_write(struct rcv_stack_tmp *t, uint32_t cls, int64_t off,
		       unsigned int size, int64_t pos, uint32_t vc,
		       int64_t vo)
{
	int64_t k;

	if (!cls || !size)
		return;
	for (k = floor8(off); k <= floor8(off + size - 1); k++) {
		struct slot *s = slot_at(t, cls, k);

		s->writer = pos;
		s->first = off;
		s->vc = vc;
		s->vo = vo;
	}
}

/* The push that wrote the 8 bytes at (@cls, @off) last, or -1. */
static int64_t slot_pusher(struct rcv_stack_tmp *t, uint32_t cls,
			   int64_t off, const struct insv *ins)
{
	struct slot *a, *b;

	if (!cls)
		return -1;
	a = slot_at(t, cls, floor8(off));
	b = slot_at(t, cls, floor8(off + 7));
	if (a->writer < 0 || a->writer != b->writer || a->first != off ||
	    ins_at(ins, (size_t)a->writer)->id != X86_INS_PUSH)
		return -1;
	return a->writer;
}

static bool frame_mem(const struct rcv_op *m)
{
	return m->type == RCV_OP_MEM && m->size == 8 && m->index < 0 &&
	       !m->seg && m->base >= 0 && m->base < 16;
}

bool rcv_frame_spill(const struct rcv_ins *in)
{
	return in->id == X86_INS_MOV && in->nops == 2 &&
	       frame_mem(&in->op[0]) &&
	       ((in->op[1].type == RCV_OP_REG && in->op[1].size == 8) ||
		in->op[1].type == RCV_OP_IMM);
}

bool rcv_frame_reload(const struct rcv_ins *in)
{
	return in->id == X86_INS_MOV && in->nops == 2 &&
	       in->op[0].type == RCV_OP_REG && in->op[0].size == 8 &&
	       frame_mem(&in->op[1]);
}

const struct rcv_op *rcv_pair_src(const struct rcv_ins *p)
{
	return p->id == X86_INS_MOV ? &p->op[1] : &p->op[0];
}

/*
 * The spill, or the push of a register or an immediate (the resolver's
 * push %rbx ... mov (%rsp),%rbx), that wrote the 8 bytes at (@cls, @off)
 * last, whole, or -1.
 */
static int64_t slot_spiller(struct rcv_stack_tmp *t, uint32_t cls,
			    int64_t off, const struct insv *ins)
{
	const struct rcv_ins *w;
	struct slot *a, *b;

	if (!cls)
		return -1;
	a = slot_at(t, cls, floor8(off));
	b = slot_at(t, cls, floor8(off + 7));
	if (a->writer < 0 || a->writer != b->writer || a->first != off)
		return -1;
	w = ins_at(ins, (size_t)a->writer);
	if (rcv_frame_spill(w) ||
	    (w->id == X86_INS_PUSH && w->op[0].type != RCV_OP_MEM))
		return a->writer;
	return -1;
}

/*
 * Does the syscall at @i keep rsp and rbp?  Only when the instruction
 * before it set its number to a constant other than rt_sigreturn (which
 * loads them from the signal frame) and execve/execveat; the engine
 * decides the rest from rax when it knows it, but frames are built
 * before any value is known.
 */
static bool plain_syscall(const struct insv *ins, size_t i)
{
	const struct rcv_ins *p = i ? ins_at(ins, i - 1) : NULL;
	int64_t nr;

	if (!p || p->id != X86_INS_MOV || p->nops != 2 ||
	    p->op[0].type != RCV_OP_REG || p->op[0].reg != RP_REG_RAX ||
	    p->op[0].size < 4 || p->op[1].type != RCV_OP_IMM ||
	    (p->flags & RCV_I_BARRIER))
		return false;
	nr = p->op[1].imm;
	return !rcv_sys_resets((uint64_t)nr);
}

/*
 * Writes that a pair of push and pop must not span: every write to memory
 * other than through rsp or rbp of a known class (its address may be the
 * slot), and writes through another class (two classes may overlap).
 */
struct kills {
	int64_t any;		/* last barrier (may write anywhere) */
	int64_t ust;		/* last store of unknown place */
	int64_t sys;		/* last system call that writes a known
				 * range (the callee argument does not
				 * see it) */
	int64_t pos1, pos2;	/* last class write; last of another class */
	uint32_t cls1, cls2;
};

static void kill_class(struct kills *k, uint32_t cls, int64_t pos)
{
	if (!cls) {
		k->ust = pos;
		return;
	}
	if (cls != k->cls1) {
		k->pos2 = k->pos1;
		k->cls2 = k->cls1;
	}
	k->pos1 = pos;
	k->cls1 = cls;
}

/* Did anything since @p write where slot class @cls may be? */
static bool killed_since(const struct kills *k, uint32_t cls, int64_t p,
			 bool ust)
{
	if (k->any > p || (ust && k->ust > p))
		return true;
	return (k->cls1 != cls ? k->pos1 : k->pos2) > p;
}

/* Does the syscall at @i write no memory, by the number set before it?
 * (Not a write to a descriptor: it may name /proc/PID/mem, rcv_fd.c.)
 */
static bool quiet_syscall(const struct insv *ins, size_t i)
{
	const struct rcv_ins *p = i ? ins_at(ins, i - 1) : NULL;

	return p && p->id == X86_INS_MOV && p->nops == 2 &&
	       p->op[0].type == RCV_OP_REG && p->op[0].reg == RP_REG_RAX &&
	       p->op[0].size >= 4 && p->op[1].type == RCV_OP_IMM &&
	       !(p->flags & RCV_I_BARRIER) &&
	       rcv_sys_quiet((uint64_t)p->op[1].imm);
}

/*
 * A system call @i whose write the values place (@sv's sys_write: the
 * engine's own rule for memory across it): nothing, or a range of known
 * address, entered as a store there.  False: it may write anywhere.
 */
static bool sys_placed(struct rcv_stack_tmp *t,
		       const struct rcv_stack_vals *sv, size_t i,
		       struct kills *kl)
{
	uint64_t a, len;
	int e;

	if (!sv || !sv->sys_write)
		return false;
	e = sv->sys_write(sv->sys_ctx, i, &a, &len);
	if (e && (e < 0 || !len || len > 65536 || a + len - 1 < a))
		return false;
	/* rcv_callee.c's walk goes on across it (placed_at()) */
	if (t->placed)
		t->placed[i / 64] |= 1ull << (i % 64);
	if (!e)
		return true;
	if (tmp_reserve(t, len / 8 + 2)) {
		t->nomem = true;
		return true;
	}
	abs_write(t, a, (unsigned int)len, (int64_t)i);
	kl->sys = (int64_t)i;
	return true;
}

/*
 * Did anything since the push at @p (class @cls) write where it wrote:
 * an unknown store, one through another class, or one whose address is
 * known and is the slot's (or where the push's rsp is not known)?
 */
/* Did sys_placed() place system call @i (rcv_callee_set_placed())? */
static bool placed_at(const void *x, size_t i)
{
	const struct insv *v = x;

	return v->placed && (v->placed[i / 64] >> (i % 64) & 1);
}

static const struct rcv_ins *ins_of(const void *x, size_t i)
{
	return ins_at(x, i);
}

/* The walker that walked from entry @e, or the one used longest ago. */
static struct rcv_callee **walker(struct rcv_stack_tmp *t, int64_t e)
{
	int j, old = 0;

	for (j = 0; j < NWK; j++)
		if (t->wk[j] && rcv_callee_entry(t->wk[j]) == e)
			break;
	if (j == NWK) {
		for (j = 1; j < NWK; j++)
			if (t->wkuse[j] < t->wkuse[old])
				old = j;
		j = old;
	}
	t->wkuse[j] = ++t->tick;
	return &t->wk[j];
}

/*
 * The pair of the pop (or leave) at @q whose push is at @p: 0 broken, 1
 * kept, 2 kept and shown by a callee's own stack (rcv_callee.c: it holds
 * where other threads may write the thread's stack too).
 */
static int pair_keep(const struct kills *kl, struct rcv_stack_tmp *ab,
		     const struct rcv_stack_vals *sv, uint32_t cls,
		     int64_t p, const struct insv *iv, int64_t q)
{
	const struct rcv_ins *w = ins_at(iv, (size_t)p);
	struct rcv_callee **c;
	uint64_t sp = 0;
	bool known, hit, cross, shared = sv && sv->gated && q > sv->until;
	size_t k;

	if (kl->any > p)	/* a barrier, a system call */
		return 0;
	/* A store through rsp or rbp of another frame: it may be the slot
	 * (after a VLA, rsp's frame is not rbp's).
	 */
	cross = killed_since(kl, cls, p, false);
	/* The slot: under the push's rsp, or the spill's address. */
	if (w->id == X86_INS_MOV) {
		known = abs_addr(sv, (size_t)p, w, &w->op[0], &sp);
		sp += 8;
	} else {
		known = abs_rsp(sv, (size_t)p, &sp);
	}
	hit = abs_killed(ab, known, sp - 8, p);
	if (hit && known)	/* a store of known address wrote the slot */
		return 0;
	/* A system call's write: placed only by the slot's address. */
	if (kl->sys > p && !known)
		return 0;
	if (!cross && !hit && kl->ust <= p && !shared)
		return 1;
	/* Stores of unknown address between (or of known address, the
	 * slot's not known, or through another frame), or other threads:
	 * a callee's own stack from the entry of the innermost call still
	 * running at the push (a stack argument, pushed before a call and
	 * read in the callee: its caller's entry).
	 */
	k = ab->nents;
	while (k > 0 && ab->ents[k - 1] > p)
		k--;
	if (!k || (sv && sv->noproof))
		return !cross && !hit && kl->ust <= p ? 1 : 0;
	c = walker(ab, ab->ents[k - 1]);
	if (!*c && !rcv_callee_new(c))
		rcv_callee_set_placed(*c, placed_at);
	if (!*c || !rcv_callee_keeps(*c, ins_of, iv, ab->ents[k - 1], p, q))
		return !cross && !hit && kl->ust <= p ? 1 : 0;
	return 2;
}

/*
 * The pushes still on the stack at the end (at or above its rsp): how far
 * from each nothing may have written its slot, by a callee's own stack
 * (the innermost call still running: its entry's walk taken towards the
 * end as towards a pop).  exit() never returns, so `__run_exit_handlers`'
 * pushes reach the snapshot only across the exit path's stores of unknown
 * address (FILE and link_map pointers), which this places in bulk.
 */
static void end_keeps(struct rcv_stack_tmp *t,
		      const struct rcv_stack_vals *sv, const struct insv *iv,
		      size_t n)
{
	struct rcv_callee **c;
	size_t k = t->nents, i;
	uint64_t end, sp;
	int64_t r;

	memset(sv->ekeep, 0, n * sizeof(*sv->ekeep));
	if (sv->noproof || !abs_rsp(sv, n, &end) || n >= UINT32_MAX)
		return;
	for (i = n; i-- > 0 && k > 0;) {
		if (ins_at(iv, i)->id != X86_INS_PUSH ||
		    !abs_rsp(sv, i, &sp) || sp - 8 < end)
			continue;
		while (k > 0 && t->ents[k - 1] > (int64_t)i)
			k--;
		if (!k)
			break;
		c = walker(t, t->ents[k - 1]);
		if (!*c && !rcv_callee_new(c))
			rcv_callee_set_placed(*c, placed_at);
		if (!*c)
			continue;
		r = rcv_callee_kept_to(*c, ins_of, iv, t->ents[k - 1],
				       (int64_t)i, (int64_t)n);
		if (r > (int64_t)i + 1)
			sv->ekeep[i] = (uint32_t)r;
	}
}

/* The calls' entries: @i is a call (push its entry) or a return. */
static void track_entry(struct rcv_stack_tmp *t, const struct rcv_ins *in,
			size_t i)
{
	if (in->id == X86_INS_RET) {
		if (t->nents)
			t->nents--;
		return;
	}
	if (in->id != X86_INS_CALL)
		return;
	if (t->nents == t->entcap) {
		size_t cap = t->entcap ? 2 * t->entcap : 64;
		int64_t *n = realloc(t->ents, cap * sizeof(*n));

		if (!n) {	/* no entries: no pair kept by them */
			t->nents = 0;
			return;
		}
		t->ents = n;
		t->entcap = cap;
	}
	t->ents[t->nents++] = (int64_t)i + 1;
}

int rcv_stack_build(const struct rcv_ins *ins, size_t n,
		    struct rcv_frame *f, int64_t *pair)
{
	return rcv_stack_build_v(ins, n, NULL, f, pair);
}

/*
 * Every general-purpose register as a frame class and an offset (class
 * 0: not known to be one; rsp always has a class, a new one when it is
 * not known): rbx after `mov %rsp,%rbx` is rsp's class at rsp's offset,
 * so that stores and loads through it are slots of rsp's frame, and
 * `mov %rbx,%rsp` gives rsp its class back.
 */
struct regs {
	uint32_t c[16];
	int64_t o[16];
};

/* Register @g is class @c at @o (rsp: a new class for 0). */
static void reg_set(struct regs *r, int g, uint32_t c, int64_t o,
		    uint32_t *next)
{
	if (g == RP_REG_RSP && !c) {
		c = (*next)++;
		o = 0;
	}
	r->c[g] = c;
	r->o[g] = c ? o : 0;
}

/* Every register @in writes, and with @all every one, not known. */
static void reg_clobber(struct regs *r, const struct rcv_ins *in, bool all,
			uint32_t *next)
{
	int g;

	for (g = 0; g < 16; g++)
		if (all || in->wcode[g])
			reg_set(r, g, 0, 0, next);
}

/* An 8-byte register operand (not ah..bh). */
static bool reg64(const struct rcv_op *d)
{
	return d->type == RCV_OP_REG && d->size == 8 && d->reg >= 0 &&
	       d->reg < 16;
}

/*
 * The value of general register @g before instruction @i where the bits
 * @need of it are known (the others taken as 0).
 */
static bool val_bits(const struct rcv_stack_vals *sv, size_t i, int g,
		     uint64_t need, uint64_t *v)
{
	const struct rcv_state *s;

	if (!sv || g < 0 || g >= 16)
		return false;
	s = sv_at(sv, i);
	if ((s->r[g].k & need) != need)
		return false;
	*v = s->r[g].v & need;
	return true;
}

/*
 * add, sub or and of an 8-byte register @d of a known class with a
 * constant: an immediate, or a register whose value is known (and: the
 * bits the mask clears known).  Returns false when the result is not
 * the class plus a known offset.
 */
static bool reg_arith(const struct rcv_stack_vals *sv, size_t i,
		      const struct rcv_ins *in, const struct regs *pre,
		      int64_t *o)
{
	const struct rcv_op *d = &in->op[0], *s = &in->op[1];
	uint64_t c, v;

	if (in->nops != 2 || !reg64(d) || !pre->c[d->reg])
		return false;
	if (s->type == RCV_OP_IMM)
		c = (uint64_t)s->imm;
	else if (reg64(s) && s->reg != d->reg &&
		 val_bits(sv, i, s->reg, ~0ull, &c))
		;
	else
		return false;
	switch (in->id) {
	case X86_INS_ADD:
		*o = pre->o[d->reg] + (int64_t)c;
		return true;
	case X86_INS_SUB:
		*o = pre->o[d->reg] - (int64_t)c;
		return true;
	case X86_INS_AND:
		/* v & c = v - (v & ~c): the bits cleared must be known. */
		if (!val_bits(sv, i, d->reg, ~c, &v))
			return false;
		*o = pre->o[d->reg] - (int64_t)v;
		return true;
	default:
		return false;
	}
}

/* The class of what a pop or reload at @i (its pair @p, @keep) reads. */
static void pop_class(struct rcv_stack_tmp *t, const struct insv *iv,
		      uint32_t cls, int64_t at, int64_t p, int keep,
		      bool shared, uint32_t *vc, int64_t *vo)
{
	const struct rcv_op *q;
	struct slot *a;

	*vc = 0;
	*vo = 0;
	if (p < 0 || !keep || (shared && keep != 2))
		return;
	q = rcv_pair_src(ins_at(iv, (size_t)p));
	if (q->type != RCV_OP_REG)
		return;
	a = slot_at(t, cls, floor8(at));
	*vc = a->vc;
	*vo = a->vo;
}

int rcv_stack_build_v(const struct rcv_ins *ins, size_t n,
		      const struct rcv_stack_vals *sv, struct rcv_frame *f,
		      int64_t *pair)
{
	struct kills kl = { -1, -1, -1, -1, -1, 0, 0 };
	struct rcv_stack_tmp own = { 0 }, *t = sv && sv->tmp ? sv->tmp : &own;
	struct insv iv = { ins, NULL, n, NULL };
	struct regs cur, pre;
	uint32_t next = 1;
	uint64_t a, spv = 0;
	size_t i;
	int ret = 0;

	if (sv && sv->ins_b) {
		iv.b = sv->ins_b;
		iv.na = sv->na;
	}
	tmp_clear(t);
	if ((n + 63) / 64 > t->pcap) {
		uint64_t *pl = realloc(t->placed, (n + 63) / 64 * 8);

		if (!pl)
			return -RP_ERR_NOMEM;
		t->placed = pl;
		t->pcap = (n + 63) / 64;
	}
	if (t->placed)
		memset(t->placed, 0, (n + 63) / 64 * 8);
	iv.placed = t->placed;
	memset(&cur, 0, sizeof(cur));
	reg_set(&cur, RP_REG_RSP, 0, 0, &next);
	f[0] = (struct rcv_frame){ cur.c[RP_REG_RSP], 0, 0, 0 };
	for (i = 0; i < n; i++) {
		const struct rcv_ins *in = ins_at(&iv, i);
		const struct rcv_op *d = &in->op[0], *s = &in->op[1], *q;
		bool shared = sv && sv->gated && (int64_t)i > sv->until;
		uint32_t c, vc;
		int64_t p, at, vo;
		int k, keep;

		/* What one instruction may add: 3 operands of up to 33
		 * slots (255 bytes) and 10 words each, and a push's.
		 */
		ret = tmp_reserve(t, 128);
		if (ret)
			break;
		pre = cur;
		pair[i] = -1;
		if (sv && sv->local)
			sv->local[i] = 0;
		track_entry(t, in, i);
		/* xsave: a store of a length not known, through rsp
		 * (the resolver's): only the callee argument places it.
		 */
		if (rcv_xsave_like(in->id) &&
		    !(in->flags & (RCV_I_BARRIER | RCV_I_REP)))
			kl.ust = (int64_t)i;
		/* So is rep stos (rcv_callee.c places it). */
		else if (rcv_rep_stos(in))
			kl.ust = (int64_t)i;
		else if (in->flags & (RCV_I_BARRIER | RCV_I_MEMBAR |
				      RCV_I_REP))
			kl.any = (int64_t)i;
		/* A system call the values do not place, whose number the
		 * code sets: rcv_callee.c knows which write what (the
		 * others end its argument).
		 */
		else if ((in->flags & RCV_I_SYSCALL) &&
			 !quiet_syscall(&iv, i) &&
			 !sys_placed(t, sv, i, &kl)) {
			if (plain_syscall(&iv, i))
				kl.ust = (int64_t)i;
			else
				kl.any = (int64_t)i;
		} else if (t->nomem)
			ret = -RP_ERR_NOMEM;
		if (ret)
			break;
		if (((in->flags & RCV_I_SYSCALL) && !plain_syscall(&iv, i)) ||
		    (in->flags & RCV_I_BARRIER)) {
			reg_clobber(&cur, in, true, &next);
			goto done;
		}
		/* Stores through a register of a known class, by class and
		 * offset; any other store may write anywhere.
		 */
		for (k = 0; k < in->nops; k++) {
			const struct rcv_op *m = &in->op[k];
			bool known;

			if (m->type != RCV_OP_MEM ||
			    !(m->access & CS_AC_WRITE))
				continue;
			known = abs_addr(sv, i, in, m, &a);
			if (known)
				abs_write(t, a, m->size, (int64_t)i);
			if (m->index >= 0 || m->seg || m->base < 0 ||
			    m->base >= 16 || !pre.c[m->base]) {
				if (!known)
					kl.ust = (int64_t)i;
				continue;
			}
			c = pre.c[m->base];
			vc = 0;
			vo = 0;
			/* A spill of a register of a known class. */
			if (rcv_frame_spill(in) && k == 0 && reg64(s)) {
				vc = pre.c[s->reg];
				vo = pre.o[s->reg];
			}
			slot_write(t, c, pre.o[m->base] + m->imm, m->size,
				   (int64_t)i, vc, vo);
			if (!known)
				kill_class(&kl, c, (int64_t)i);
		}
		if (in->id == X86_INS_PUSH || in->id == X86_INS_CALL) {
			if (abs_rsp(sv, i, &spv))
				abs_write(t, spv - 8, 8, (int64_t)i);
			else
				kill_class(&kl, pre.c[RP_REG_RSP], (int64_t)i);
		}
		if (in->flags & RCV_I_BAD) {
			/* Not capstone's: its writes as far as known, and
			 * no register but rsp and rbp kept.
			 */
			reg_clobber(&cur, in, false, &next);
			for (k = 0; k < 16; k++)
				if (k != RP_REG_RSP && k != RP_REG_RBP)
					reg_set(&cur, k, 0, 0, &next);
			goto done;
		}
		switch (in->id) {
		case X86_INS_PUSH:
			if (d->size != 8 && d->type != RCV_OP_IMM) {
				reg_set(&cur, RP_REG_RSP, 0, 0, &next);
				break;
			}
			cur.o[RP_REG_RSP] -= 8;
			vc = reg64(d) ? pre.c[d->reg] : 0;
			vo = reg64(d) ? pre.o[d->reg] : 0;
			slot_write(t, cur.c[RP_REG_RSP], cur.o[RP_REG_RSP], 8,
				   (int64_t)i, vc, vo);
			break;
		case X86_INS_CALL:
			cur.o[RP_REG_RSP] -= 8;
			slot_write(t, cur.c[RP_REG_RSP], cur.o[RP_REG_RSP], 8,
				   (int64_t)i, 0, 0);
			break;
		case X86_INS_POP:
			if (!reg64(d) || d->reg == RP_REG_RSP) {
				reg_clobber(&cur, in, false, &next);
				reg_set(&cur, RP_REG_RSP, 0, 0, &next);
				break;
			}
			c = pre.c[RP_REG_RSP];
			at = pre.o[RP_REG_RSP];
			p = slot_pusher(t, c, at, &iv);
			keep = p >= 0 ? pair_keep(&kl, t, sv, c, p, &iv,
						  (int64_t)i) : 0;
			if (!keep)
				p = -1;
			if (p >= 0 &&
			    ins_at(&iv, (size_t)p)->op[0].type != RCV_OP_MEM) {
				pair[i] = p;
				if (sv && sv->local)
					sv->local[i] = keep == 2;
			}
			cur.o[RP_REG_RSP] += 8;
			pop_class(t, &iv, c, at, pair[i], keep, shared, &vc,
				  &vo);
			reg_set(&cur, d->reg, vc, vo, &next);
			break;
		case X86_INS_RET:
			cur.o[RP_REG_RSP] += 8 + (in->nops == 1 ? d->imm : 0);
			break;
		case X86_INS_LEAVE:
			if (!pre.c[RP_REG_RBP]) {
				reg_set(&cur, RP_REG_RSP, 0, 0, &next);
				cur.c[RP_REG_RBP] = 0;
				cur.o[RP_REG_RBP] = 0;
				break;
			}
			c = pre.c[RP_REG_RBP];
			at = pre.o[RP_REG_RBP];
			p = slot_pusher(t, c, at, &iv);
			keep = p >= 0 ? pair_keep(&kl, t, sv, c, p, &iv,
						  (int64_t)i) : 0;
			if (!keep)
				p = -1;
			/* Only a push of rbp itself links here. */
			q = p >= 0 ? &ins_at(&iv, (size_t)p)->op[0] : NULL;
			if (!q || q->type != RCV_OP_REG ||
			    q->reg != RP_REG_RBP || (shared && keep != 2))
				p = -1;
			if (p >= 0) {
				pair[i] = p;
				if (sv && sv->local)
					sv->local[i] = keep == 2;
			}
			pop_class(t, &iv, c, at, p, keep, shared, &vc, &vo);
			cur.c[RP_REG_RSP] = c;
			cur.o[RP_REG_RSP] = at + 8;
			reg_set(&cur, RP_REG_RBP, vc, vo, &next);
			break;
		case X86_INS_ADD:
		case X86_INS_SUB:
		case X86_INS_AND:
			if (reg_arith(sv, i, in, &pre, &at)) {
				cur.o[d->reg] = at;
				break;
			}
			goto other;
		case X86_INS_LEA:
			if (reg64(d) && s->index < 0 && !s->seg &&
			    !in->a32 && s->base >= 0 && s->base < 16) {
				reg_set(&cur, d->reg, pre.c[s->base],
					pre.o[s->base] + s->imm, &next);
				break;
			}
			goto other;
		case X86_INS_MOV:
			/* A reload of a spill: the spilled value back, and
			 * its frame class where it had one.
			 */
			if (rcv_frame_reload(in) && pre.c[s->base]) {
				c = pre.c[s->base];
				at = pre.o[s->base] + s->imm;
				p = slot_spiller(t, c, at, &iv);
				keep = p >= 0 ? pair_keep(&kl, t, sv, c, p,
							  &iv, (int64_t)i) : 0;
				if (keep) {
					pair[i] = p;
					if (sv && sv->local)
						sv->local[i] = keep == 2;
				}
				pop_class(t, &iv, c, at, pair[i], keep, shared,
					  &vc, &vo);
				reg_set(&cur, d->reg, vc, vo, &next);
				break;
			}
			if (reg64(d) && reg64(s)) {
				reg_set(&cur, d->reg, pre.c[s->reg],
					pre.o[s->reg], &next);
				break;
			}
			goto other;
		default:
other:
			reg_clobber(&cur, in, false, &next);
			break;
		}
done:
		f[i + 1] = (struct rcv_frame){
			cur.c[RP_REG_RSP], cur.c[RP_REG_RBP],
			cur.o[RP_REG_RSP], cur.o[RP_REG_RBP]
		};
	}
	if (!ret && sv && sv->ekeep)
		end_keeps(t, sv, &iv, n);
	if (t == &own) {
		free(own.v);
		free(own.a);
		free(own.ents);
		free(own.placed);
		for (i = 0; i < NWK; i++)
			rcv_callee_free(own.wk[i]);
	}
	return ret ? ret : (int)next;
}
