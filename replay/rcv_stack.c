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
 * (rcv_callee.c).  Whether a pair is kept across what lies between is
 * rcv_stkeep.c.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_internal.h"
#include "rcv_stk.h"
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
	free(t->ownv);
	for (j = 0; j < NWK; j++)
		rcv_callee_free(t->wk[j]);
	rcv_cwc_free(t->cw);
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
int rcv_stk_tmp_reserve(struct rcv_stack_tmp *t, size_t more)
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

/* Slot (@cls, @key), added when absent (rcv_stk_tmp_reserve() made room). */
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
void rcv_stk_abs_write(struct rcv_stack_tmp *t, uint64_t a, unsigned int size,
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
bool rcv_stk_abs_killed(struct rcv_stack_tmp *t, bool known, uint64_t slot,
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

/*
 * The address of write operand @m of instruction @i when the values
 * before it give it whole (no segment: fs/gs bases are not looked at),
 * with a size this table takes; else false.
 */
bool rcv_stk_abs_addr(const struct rcv_stack_vals *sv, size_t i,
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
bool rcv_stk_abs_rsp(const struct rcv_stack_vals *sv, size_t i, uint64_t *v)
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
 * The spill, or the push (the resolver's push %rbx ... mov (%rsp),%rbx;
 * of memory too, the PLT's push of the GOT's link_map word read back as
 * mov 0x8(%rbx),%rdi: rcv_pass.c links it to what the push read), that
 * wrote the 8 bytes at (@cls, @off) last, whole, or -1.
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
	if (rcv_frame_spill(w) || w->id == X86_INS_PUSH)
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
	uint64_t w[2], x;
	int g, h;

	if (all) {
		for (g = 0; g < 16; g++)
			reg_set(r, g, 0, 0, next);
		return;
	}
	/* The registers written, in order, eight code bytes at a time
	 * (p99: a test of each of the 16 was 5% of a stop at 10^7).
	 */
	memcpy(w, in->wcode, sizeof(w));
	for (h = 0; h < 2; h++)
		for (x = w[h]; x;) {
			g = __builtin_ctzll(x) >> 3;
			x &= ~(0xffull << (8 * g));
			reg_set(r, 8 * h + g, 0, 0, next);
		}
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
	/* The walks of the last build kept (tmp_clear()), for this one's
	 * walkers where its instructions are the same windows'.
	 */
	if (t != &own && sv && sv->ida && !t->cw)
		t->cw = rcv_cwc_new();
	if (t->cw)
		rcv_cwc_build(t->cw, sv ? sv->ida : 0, sv ? sv->idb : 0,
			      iv.na, sv && sv->verify);
	rcv_stk_own_begin(t, sv, &iv, n);
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
		ret = 2 * (t->used + 128) > t->cap ||
		      2 * (t->aused + 128) > t->acap ?
		      rcv_stk_tmp_reserve(t, 128) : 0;
		if (ret)
			break;
		pre = cur;
		pair[i] = -1;
		if (sv && sv->local)
			sv->local[i] = 0;
		rcv_stk_track_entry(t, in, i);
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
			 !rcv_stk_sys_placed(t, sv, i, &kl)) {
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
			known = rcv_stk_abs_addr(sv, i, in, m, &a);
			if (known)
				rcv_stk_abs_write(t, a, m->size, (int64_t)i);
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
			if (rcv_stk_abs_rsp(sv, i, &spv))
				rcv_stk_abs_write(t, spv - 8, 8, (int64_t)i);
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
			keep = p >= 0 ? rcv_stk_pair_keep(&kl, t, sv, c, p, &iv,
							  (int64_t)i) : 0;
			if (!keep)
				p = -1;
			if (p >= 0) {
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
			keep = p >= 0 ? rcv_stk_pair_keep(&kl, t, sv, c, p, &iv,
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
				keep = p >= 0 ?
				       rcv_stk_pair_keep(&kl, t, sv, c, p, &iv,
							 (int64_t)i) : 0;
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
		rcv_stk_end_keeps(t, sv, &iv, n);
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
