// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Stack frames for the recovery engine, where the stack pointer's value
 * is not known: rsp (and rbp) as an unknown base plus a known offset.
 * Between two instructions whose rsp has the same base, rsp differs by
 * the difference of offsets (so one known value gives them all), and a
 * pop that reads the slot a push wrote (same base and offset, no store
 * through rsp or rbp to it since) restores the pushed value: callee-saved
 * registers come back across calls whose own memory is unknown.  The
 * assumption (docs/values.md): a function writes its callers' saved
 * register slots only with push and call, never through another pointer.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_internal.h"
#include "replay.h"

struct slot {
	uint32_t cls;
	int64_t key;		/* offset / 8, rounded down */
	int64_t writer;		/* position of the last write, -1 none */
	int64_t first;		/* push: the slot's exact offset */
};

struct slots {
	struct slot *v;
	size_t cap;
};

static struct slot *slot_at(struct slots *t, uint32_t cls, int64_t key)
{
	size_t h = ((size_t)cls * 0x9e3779b97f4a7c15ull ^
		    (size_t)key * 0xc2b2ae3d27d4eb4full) & (t->cap - 1);

	while (t->v[h].cls && (t->v[h].cls != cls || t->v[h].key != key))
		h = (h + 1) & (t->cap - 1);
	if (!t->v[h].cls) {
		t->v[h].cls = cls;
		t->v[h].key = key;
		t->v[h].writer = -1;
	}
	return &t->v[h];
}

static int64_t floor8(int64_t o)
{
	return o >= 0 ? o / 8 : -((-o + 7) / 8);
}

/*
 * Stores whose address the recovered values give (rcv_stack_build_v()):
 * the last one to each 8-byte word, and the last one of all.
 */
struct absw {
	uint64_t *word;		/* address >> 3, +1 (0: empty) */
	int64_t *pos;
	size_t cap;
	int64_t last;
};

static int64_t *abs_at(struct absw *t, uint64_t word, bool add)
{
	size_t h = (size_t)(word * 0x9e3779b97f4a7c15ull) & (t->cap - 1);

	while (t->word[h] && t->word[h] != word + 1)
		h = (h + 1) & (t->cap - 1);
	if (!t->word[h]) {
		if (!add)
			return NULL;
		t->word[h] = word + 1;
		t->pos[h] = -1;
	}
	return &t->pos[h];
}

/* Instruction @pos wrote [@a, @a + @size). */
static void abs_write(struct absw *t, uint64_t a, unsigned int size,
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
static bool abs_killed(struct absw *t, bool known, uint64_t slot, int64_t p)
{
	int64_t *a, *b;

	if (!t->cap || t->last <= p)
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

/* A write of @size bytes at (@cls, @off) by instruction @pos. */
static void slot_write(struct slots *t, uint32_t cls, int64_t off,
		       unsigned int size, int64_t pos)
{
	int64_t k;

	if (!cls || !size)
		return;
	for (k = floor8(off); k <= floor8(off + size - 1); k++) {
		struct slot *s = slot_at(t, cls, k);

		s->writer = pos;
		s->first = off;
	}
}

/* The push that wrote the 8 bytes at (@cls, @off) last, or -1. */
static int64_t slot_pusher(struct slots *t, uint32_t cls, int64_t off,
			   const struct rcv_ins *ins)
{
	struct slot *a, *b;

	if (!cls)
		return -1;
	a = slot_at(t, cls, floor8(off));
	b = slot_at(t, cls, floor8(off + 7));
	if (a->writer < 0 || a->writer != b->writer || a->first != off ||
	    ins[a->writer].id != X86_INS_PUSH)
		return -1;
	return a->writer;
}

/*
 * Does the syscall at @i keep rsp and rbp?  Only when the instruction
 * before it set its number to a constant other than rt_sigreturn (which
 * loads them from the signal frame) and execve/execveat; the engine
 * decides the rest from rax when it knows it, but frames are built
 * before any value is known.
 */
static bool plain_syscall(const struct rcv_ins *ins, size_t i)
{
	const struct rcv_ins *p = i ? &ins[i - 1] : NULL;
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
	int64_t any;		/* last write of unknown place */
	int64_t pos1, pos2;	/* last class write; last of another class */
	uint32_t cls1, cls2;
};

static void kill_class(struct kills *k, uint32_t cls, int64_t pos)
{
	if (!cls) {
		k->any = pos;
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
static bool killed_since(const struct kills *k, uint32_t cls, int64_t p)
{
	if (k->any > p)
		return true;
	return (k->cls1 != cls ? k->pos1 : k->pos2) > p;
}

/* Does the syscall at @i write no memory, by the number set before it?
 * (Not a write to a descriptor: it may name /proc/PID/mem, rcv_fd.c.)
 */
static bool quiet_syscall(const struct rcv_ins *ins, size_t i)
{
	const struct rcv_ins *p = i ? &ins[i - 1] : NULL;

	return p && p->id == X86_INS_MOV && p->nops == 2 &&
	       p->op[0].type == RCV_OP_REG && p->op[0].reg == RP_REG_RAX &&
	       p->op[0].size >= 4 && p->op[1].type == RCV_OP_IMM &&
	       !(p->flags & RCV_I_BARRIER) &&
	       rcv_sys_quiet((uint64_t)p->op[1].imm);
}

/*
 * Did anything since the push at @p (class @cls) write where it wrote:
 * an unknown store, one through another class, or one whose address is
 * known and is the slot's (or where the push's rsp is not known)?
 */
static bool pair_killed(const struct kills *kl, struct absw *ab,
			const struct rcv_stack_vals *sv, uint32_t cls,
			int64_t p)
{
	uint64_t sp = 0;
	bool known;

	if (killed_since(kl, cls, p))
		return true;
	known = abs_rsp(sv, (size_t)p, &sp);
	return abs_killed(ab, known, sp - 8, p);
}

/* Words the stores of @ins[0..@n) may cover, for struct absw. */
static size_t abs_words(const struct rcv_ins *ins, size_t n)
{
	size_t i, w = 0;
	int k;

	for (i = 0; i < n; i++) {
		if (ins[i].id == X86_INS_PUSH || ins[i].id == X86_INS_CALL)
			w += 2;
		for (k = 0; k < ins[i].nops; k++)
			if (ins[i].op[k].type == RCV_OP_MEM &&
			    (ins[i].op[k].access & CS_AC_WRITE))
				w += ins[i].op[k].size / 8u + 2;
	}
	return w;
}

int rcv_stack_build(const struct rcv_ins *ins, size_t n,
		    struct rcv_frame *f, int64_t *pair)
{
	return rcv_stack_build_v(ins, n, NULL, f, pair);
}

int rcv_stack_build_v(const struct rcv_ins *ins, size_t n,
		      const struct rcv_stack_vals *sv, struct rcv_frame *f,
		      int64_t *pair)
{
	struct kills kl = { -1, -1, -1, 0, 0 };
	struct absw ab = { NULL, NULL, 0, -1 };
	struct slots t;
	uint32_t next = 1;
	uint64_t a, spv = 0;
	size_t i;

	t.cap = 16;
	while (t.cap < 4 * n + 16)
		t.cap *= 2;
	t.v = calloc(t.cap, sizeof(*t.v));
	if (sv) {
		size_t w = abs_words(ins, n);

		ab.cap = 16;
		while (ab.cap < 2 * w + 16)
			ab.cap *= 2;
		ab.word = calloc(ab.cap, sizeof(*ab.word));
		ab.pos = malloc(ab.cap * sizeof(*ab.pos));
	}
	if (!t.v || (sv && (!ab.word || !ab.pos))) {
		free(t.v);
		free(ab.word);
		free(ab.pos);
		return -RP_ERR_NOMEM;
	}
	f[0] = (struct rcv_frame){ next++, 0, 0, 0 };
	for (i = 0; i < n; i++) {
		const struct rcv_ins *in = &ins[i];
		const struct rcv_op *d = &in->op[0], *s = &in->op[1];
		struct rcv_frame o = f[i];
		int64_t p;
		int k;

		pair[i] = -1;
		if ((in->flags & (RCV_I_BARRIER | RCV_I_MEMBAR | RCV_I_REP)) ||
		    ((in->flags & RCV_I_SYSCALL) && !quiet_syscall(ins, i)))
			kl.any = (int64_t)i;
		if (((in->flags & RCV_I_SYSCALL) && !plain_syscall(ins, i)) ||
		    (in->flags & RCV_I_BARRIER)) {
			f[i + 1] = (struct rcv_frame){ next++, 0, 0, 0 };
			continue;
		}
		/* rsp- and rbp-relative stores, by base and offset; any
		 * other store may write anywhere.
		 */
		for (k = 0; k < in->nops; k++) {
			const struct rcv_op *m = &in->op[k];
			bool known;

			if (m->type != RCV_OP_MEM ||
			    !(m->access & CS_AC_WRITE))
				continue;
			known = abs_addr(sv, i, in, m, &a);
			if (known)
				abs_write(&ab, a, m->size, (int64_t)i);
			if (m->index >= 0 || m->seg ||
			    (m->base != RP_REG_RSP && m->base != RP_REG_RBP)) {
				if (!known)
					kl.any = (int64_t)i;
			} else if (m->base == RP_REG_RSP) {
				slot_write(&t, o.rsp_c, o.rsp_o + m->imm,
					   m->size, (int64_t)i);
				if (!known)
					kill_class(&kl, o.rsp_c, (int64_t)i);
			} else {
				slot_write(&t, o.rbp_c, o.rbp_o + m->imm,
					   m->size, (int64_t)i);
				if (!known)
					kill_class(&kl, o.rbp_c, (int64_t)i);
			}
		}
		if (in->id == X86_INS_PUSH || in->id == X86_INS_CALL) {
			if (abs_rsp(sv, i, &spv))
				abs_write(&ab, spv - 8, 8, (int64_t)i);
			else
				kill_class(&kl, o.rsp_c, (int64_t)i);
		}
		switch (in->id) {
		case X86_INS_PUSH:
			if (d->size != 8 && d->type != RCV_OP_IMM) {
				o.rsp_c = next++;
				break;
			}
			o.rsp_o -= 8;
			slot_write(&t, o.rsp_c, o.rsp_o, 8, (int64_t)i);
			break;
		case X86_INS_CALL:
			o.rsp_o -= 8;
			slot_write(&t, o.rsp_c, o.rsp_o, 8, (int64_t)i);
			break;
		case X86_INS_POP:
			if (d->type != RCV_OP_REG || d->size != 8 ||
			    d->reg == RP_REG_RSP) {
				o.rsp_c = next++;
				break;
			}
			p = slot_pusher(&t, o.rsp_c, o.rsp_o, ins);
			if (p >= 0 && pair_killed(&kl, &ab, sv, o.rsp_c, p))
				p = -1;
			if (p >= 0 && ins[p].op[0].type != RCV_OP_MEM)
				pair[i] = p;
			o.rsp_o += 8;
			if (d->reg == RP_REG_RBP) {
				if (pair[i] >= 0 &&
				    ins[p].op[0].type == RCV_OP_REG &&
				    ins[p].op[0].reg == RP_REG_RBP) {
					o.rbp_c = f[p].rbp_c;
					o.rbp_o = f[p].rbp_o;
				} else {
					o.rbp_c = 0;
				}
			}
			break;
		case X86_INS_RET:
			o.rsp_o += 8 + (in->nops == 1 ? d->imm : 0);
			break;
		case X86_INS_LEAVE:
			if (!o.rbp_c) {
				o.rsp_c = next++;
				o.rsp_o = 0;
				break;
			}
			o.rsp_c = o.rbp_c;
			o.rsp_o = o.rbp_o;
			p = slot_pusher(&t, o.rsp_c, o.rsp_o, ins);
			if (p >= 0 && pair_killed(&kl, &ab, sv, o.rsp_c, p))
				p = -1;
			if (p >= 0 && ins[p].op[0].type == RCV_OP_REG &&
			    ins[p].op[0].reg == RP_REG_RBP) {
				pair[i] = p;
				o.rbp_c = f[p].rbp_c;
				o.rbp_o = f[p].rbp_o;
			} else {
				o.rbp_c = 0;
			}
			o.rsp_o += 8;
			break;
		case X86_INS_ADD:
		case X86_INS_SUB:
			if (d->type == RCV_OP_REG && d->reg == RP_REG_RSP &&
			    d->size == 8 && s->type == RCV_OP_IMM) {
				o.rsp_o += in->id == X86_INS_ADD ? s->imm :
								   -s->imm;
				break;
			}
			goto other;
		case X86_INS_LEA:
			if (d->type == RCV_OP_REG && d->size == 8 &&
			    (d->reg == RP_REG_RSP || d->reg == RP_REG_RBP) &&
			    s->index < 0 && !s->seg &&
			    (s->base == RP_REG_RSP || s->base == RP_REG_RBP)) {
				bool sp = s->base == RP_REG_RSP;
				uint32_t c = sp ? f[i].rsp_c : f[i].rbp_c;
				int64_t b = sp ? f[i].rsp_o : f[i].rbp_o;

				if (d->reg == RP_REG_RSP) {
					o.rsp_c = c ? c : next++;
					o.rsp_o = c ? b + s->imm : 0;
				} else {
					o.rbp_c = c;
					o.rbp_o = b + s->imm;
				}
				break;
			}
			goto other;
		case X86_INS_MOV:
			if (d->type == RCV_OP_REG && s->type == RCV_OP_REG &&
			    d->size == 8 &&
			    (d->reg == RP_REG_RSP || d->reg == RP_REG_RBP) &&
			    (s->reg == RP_REG_RSP || s->reg == RP_REG_RBP)) {
				uint32_t c = s->reg == RP_REG_RSP ? f[i].rsp_c :
								    f[i].rbp_c;
				int64_t b = s->reg == RP_REG_RSP ? f[i].rsp_o :
								   f[i].rbp_o;

				if (d->reg == RP_REG_RSP) {
					o.rsp_c = c ? c : next++;
					o.rsp_o = c ? b : 0;
				} else {
					o.rbp_c = c;
					o.rbp_o = b;
				}
				break;
			}
			goto other;
		default:
other:
			if (in->wcode[RP_REG_RSP]) {
				o.rsp_c = next++;
				o.rsp_o = 0;
			}
			if (in->wcode[RP_REG_RBP])
				o.rbp_c = 0;
			break;
		}
		f[i + 1] = o;
	}
	free(t.v);
	free(ab.word);
	free(ab.pos);
	return (int)next;
}
