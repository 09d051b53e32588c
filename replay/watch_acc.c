// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The memory side of watch_proof.c's pass: the accesses an instruction
 * makes and the stack slots they leave, each access's address as a base
 * plus an interval where the pass follows it.  System calls (the
 * kernel's writes), the string instructions (rep or not, extent and
 * direction), the EVEX loads and stores capstone does not decode, and
 * every other memory operand are modelled here, apart from how the
 * registers move (watch_proof.c's step()), because that modelling is a
 * job of its own and watch_proof.c had grown past 1,000 lines.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_acc.h"
#include "watch_pass.h"
#include "watch_proof.h"

static void add_acc(struct pass *p, size_t i, uint8_t kind, struct sv a,
		    uint64_t size)
{
	struct pacc *v;

	if (!wpf_grow((void **)&p->acc, &p->acc_cap, p->nacc, sizeof(*p->acc),
		  1024)) {
		p->nomem = true;
		return;
	}
	v = &p->acc[p->nacc++];
	v->i = (uint32_t)i;
	v->kind = kind;
	v->fixed = false;
	v->blind = false;
	v->nosize = false;
	v->root2 = -1;
	v->root = -1;
	if (size && size <= MAX_SPAN && a.root >= 0 &&
	    !__builtin_add_overflow(a.hi, (int64_t)size, &v->hi)) {
		v->root = a.root;
		v->lo = a.lo;
	}
}

/*
 * The last access added, through memory operand @op whose address the
 * pass does not follow (base plus an index of unknown value): the bases
 * of its two registers, for its secret (watch_fix.c).
 */
static void last_indexed(struct pass *p, const struct rcv_op *op)
{
	struct pacc *v = p->nacc ? &p->acc[p->nacc - 1] : NULL;

	if (!v || v->root >= 0 || op->seg || op->base < 0 ||
	    op->base >= 16 || op->index < 0 || op->index >= 16)
		return;
	v->root = p->r[op->base].root;
	v->root2 = p->r[op->index].root;
	v->lo = v->hi = 0;
	v->nosize = true;
}

/* The last access added: one the engine never knows the address of. */
static void last_blind(struct pass *p)
{
	if (p->nacc)
		p->acc[p->nacc - 1].blind = true;
}

/*
 * The first slot at offset @off or below: slots are sorted by offset,
 * highest first, so that a push (the lowest yet) goes at the end.
 */
static size_t slot_at(const struct pass *p, int64_t off)
{
	size_t lo = 0, hi = p->nslot;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->slot[mid].off > off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Slot @s in its place (no slot of its offset is there). */
static void add_slot(struct pass *p, struct slot s)
{
	size_t k;

	if (!wpf_grow((void **)&p->slot, &p->slot_cap, p->nslot,
		      sizeof(*p->slot), 64)) {
		p->nomem = true;
		return;
	}
	k = slot_at(p, s.off);
	memmove(p->slot + k + 1, p->slot + k,
		(p->nslot - k) * sizeof(*p->slot));
	p->slot[k] = s;
	p->nslot++;
}

/*
 * A store of @size bytes (0: unknown) at @a, of value @val (a slot when
 * it is 8 bytes at one place of the stack).  Slots it may reach go: those
 * of its base that it overlaps, and those of any other base (two bases'
 * distance is not known while the window is followed).
 */
static void store(struct pass *p, struct sv a, uint64_t size, struct sv val,
		  int32_t d)
{
	int64_t end;
	size_t k, j;

	if (p->deps)
		wdep_store(p, a, size, d, val);
	if (a.root < 0 || !size || size > MAX_SPAN ||
	    __builtin_add_overflow(a.hi, (int64_t)size, &end)) {
		p->nslot = 0;
		p->pure = false;
		/* Relative to a base, extent not known (a string
		 * instruction): any word of the base may hold what it left,
		 * none is the entry's any more (load8()'s lw).
		 */
		if (a.root > 0) {
			p->root[a.root].st = true;
			p->root[a.root].st_lo = INT64_MIN;
			p->root[a.root].st_hi = INT64_MAX;
		}
		return;
	}
	/* The slots share one base (a store through another drops them),
	 * sorted by offset: those it overlaps go.
	 */
	if (p->nslot && p->slot[0].root != a.root) {
		p->nslot = 0;
	} else if (p->nslot) {
		k = slot_at(p, end - 1);
		j = slot_at(p, a.lo > INT64_MIN + 8 ? a.lo - 8 : INT64_MIN);
		if (j > k) {
			memmove(p->slot + k, p->slot + j,
				(p->nslot - j) * sizeof(*p->slot));
			p->nslot -= j - k;
		}
	}
	if (a.root > 0) {
		struct root *r = &p->root[a.root];

		if (!r->st || a.lo < r->st_lo)
			r->st_lo = a.lo;
		if (!r->st || end > r->st_hi)
			r->st_hi = end;
		r->st = true;
	}
	if (a.root != ENTRY_RSP) {
		p->pure = false;
	} else {
		if (!p->stored || a.lo < p->slo)
			p->slo = a.lo;
		if (!p->stored || end > p->shi)
			p->shi = end;
		p->stored = true;
	}
	/* Only the stack's words are slots: relative to the stack pointer's
	 * base (a frame pointer made from it too).  Other memory may be
	 * shared with another thread or process, which may write it between
	 * the store and the load; the stack is assumed not to be, as the
	 * engine does (docs/values.md).
	 */
	if (size != 8 || a.lo != a.hi || a.root != p->r[RP_REG_RSP].root)
		return;
	add_slot(p, (struct slot){ a.root, a.lo, val });
}

/*
 * The 8 bytes at @a that a pop, leave or load reads: what a store left
 * there; a word of the window's entry (above its entry stack pointer,
 * where no store has been yet); else some value (a new base).
 */
struct sv wpf_load8(struct pass *p, struct sv a)
{
	struct sv v;
	size_t j;

	if (!sv_exact(a)) {
		v = wpf_fresh_val(p);
		if (p->deps)
			wdep_load(p, a, 8, v.root);
		return v;
	}
	j = slot_at(p, a.lo);
	if (j < p->nslot && p->slot[j].root == a.root && p->slot[j].off == a.lo)
		return p->slot[j].val;
	v = wpf_fresh_val(p);
	if (v.root > 0 && a.root > 0) {
		p->root[v.root].ld = true;
		p->root[v.root].lw_root = a.root;
		p->root[v.root].lw_off = a.lo;
	}
	if (v.root > 0 && a.root > 0 &&
	    (!p->root[a.root].st || a.lo >= p->root[a.root].st_hi ||
	     a.lo + 8 <= p->root[a.root].st_lo))
		p->root[v.root].lw = true;
	if (p->deps) {
		wdep_load(p, a, 8, v.root);
		wdep_ldc(p, a, v.root);
	}
	if (v.root > 0 && a.root == ENTRY_RSP && p->pure &&
	    (!p->stored || a.lo >= p->shi || a.lo + 8 <= p->slo)) {
		p->root[v.root].is_word = true;
		p->root[v.root].word = a.lo;
		/* Read again: the same word (a slot of it). */
		if (!p->nslot || p->slot[0].root == a.root)
			add_slot(p, (struct slot){ a.root, a.lo, v });
	}
	return v;
}

/*
 * base + scale * index where the index's values lie in [@xl, @xh]: the
 * base's root, its offsets widened (none past MAX_SPAN).
 */
static struct sv add_scaled(struct sv b, int64_t xl, int64_t xh,
			    unsigned int scale)
{
	int64_t l, h;

	if (b.root < 0 || __builtin_mul_overflow(xl, (int64_t)scale, &l) ||
	    __builtin_mul_overflow(xh, (int64_t)scale, &h) ||
	    __builtin_add_overflow(b.lo, l, &b.lo) ||
	    __builtin_add_overflow(b.hi, h, &b.hi) || b.hi - b.lo > MAX_SPAN)
		return none;
	return b;
}

/*
 * The address of memory operand @op (before @in); with @value, as a
 * register's value (lea), where an index's range is taken only from a
 * constant interval: a ranged root's dependencies (watch_dep.c) would be
 * lost in the base's root, which an address does not need (the engine
 * learns nothing of where a value lay from the value).
 */
static struct sv addr_of(const struct pass *p, const struct rcv_ins *in,
			 const struct rcv_op *op, bool value)
{
	struct sv b, x;
	int64_t xl, xh;

	if (op->seg || op->base == -2 || op->index == -2)
		return none;
	if (op->base == RCV_RIP)
		b = op->index < 0 ? sv_const(in->ip + in->len) : none;
	else if (op->base >= 0)
		b = p->r[op->base];
	else
		b = sv_const(0);
	if (op->index >= 0) {
		x = p->r[op->index];
		if (sv_is_const(x) && b.root >= 0)
			b = sv_add(b, x.lo * (int64_t)op->scale);
		else if (sv_is_const(b) && op->scale == 1)
			b = sv_add(x, b.lo);
		else if ((!value || x.root == 0) && sv_range(p, x, &xl, &xh))
			/* a table indexed by a byte (movzx), a count */
			b = add_scaled(b, xl, xh, op->scale ? op->scale : 1);
		else
			b = none;
	}
	return sv_add(b, op->imm);
}

struct sv wpf_addr_of(const struct pass *p, const struct rcv_ins *in,
		      const struct rcv_op *op)
{
	return addr_of(p, in, op, false);
}

struct sv wpf_lea_of(const struct pass *p, const struct rcv_ins *in,
		     const struct rcv_op *op)
{
	return addr_of(p, in, op, true);
}

/* The value of operand @op as a source (8 bytes; else unknown). */
struct sv wpf_src_of(struct pass *p, const struct rcv_ins *in,
		     const struct rcv_op *op)
{
	if (op->type == RCV_OP_IMM)
		return sv_const((uint64_t)op->imm);
	if (op->type == RCV_OP_REG && op->size == 8 && !op->shift)
		return p->r[op->reg];
	if (op->type == RCV_OP_MEM && op->size == 8)
		return wpf_load8(p, wpf_addr_of(p, in, op));
	return none;
}

/*
 * Operand @op's address is the instruction's own (rip-relative, or an
 * absolute one): the engine knows it whatever it knows of the registers.
 */
static bool fixed_op(const struct rcv_op *op)
{
	return !op->seg && op->index == -1 &&
	       (op->base == RCV_RIP || op->base == -1);
}

static void mark_fixed(struct pass *p, const struct rcv_op *op)
{
	if (p->nacc && fixed_op(op))
		p->acc[p->nacc - 1].fixed = p->acc[p->nacc - 1].root == 0;
	/*
	 * fs- and gs-relative (the stack protector's canary at %fs:0x28,
	 * errno, the locale, tcache): the engine adds fs_base only where
	 * it knows that nothing from the window to the thread's end
	 * changes it (rcv_mem.c's rcv_fs_absolute(): a window of its chain
	 * from the end), gs_base never, so in a far window, computed on
	 * its own, it never knows such an address.  Blind counts only
	 * there (watch_fix.c: where secrets count).
	 */
	if (p->nacc && op->seg)
		p->acc[p->nacc - 1].blind = true;
}

/* A string instruction's access from @a (rsi or rdi): relative to its
 * base, extent not known; one the engine cannot know without the
 * direction flag, nor ever with 32-bit addresses (@a32: esi or edi).
 */
static void str_one(struct pass *p, size_t i, uint8_t kind, struct sv a,
		    bool a32)
{
	struct pacc *v;

	add_acc(p, i, kind, none, 0);
	if (!p->nacc || p->nomem)
		return;
	v = &p->acc[p->nacc - 1];
	v->root = a.root;
	v->lo = a.lo;
	v->hi = a.hi;
	v->nosize = true;
	v->blind = !p->dfk || a32;
}

/*
 * stos, movs, lods, scas and cmps, rep or not: reads from rsi, reads or
 * writes from rdi, rcx times with rep, up or down by the direction
 * flag (rcv_access.c: the engine knows them when it knows rdi or rsi,
 * rcx and the flag, and the addresses are 64-bit).  False for any other
 * instruction.
 */
static bool str_acc(struct pass *p, size_t i, const struct rcv_ins *in)
{
	struct sv si = p->r[RP_REG_RSI], di = p->r[RP_REG_RDI];
	bool src, dread, dst;
	/* What it stores: rax's bits (stos), what it loaded (movs). */
	int32_t d = p->r[RP_REG_RAX].root;

	if (!rcv_str_op(in, &src, &dread, &dst))
		return false;
	if (in->a32)	/* through esi and edi: no base the pass follows */
		si = di = none;
	if (src) {
		str_one(p, i, RP_ACC_READ, si, in->a32);
		if (p->deps)
			d = wdep_load(p, si, 0, -1);
	}
	if (dread) {
		str_one(p, i, RP_ACC_READ, di, in->a32);
		if (p->deps)
			wdep_load(p, di, 0, -1);
	}
	if (dst) {
		str_one(p, i, RP_ACC_WRITE, di, in->a32);
		store(p, di, 0, none, d);
	}
	return true;
}

/* Memory instruction @i (@in) reads and writes. */
void wpf_accesses(struct pass *p, size_t i, const struct rcv_ins *in)
{
	struct sv rsp = p->r[RP_REG_RSP], a, v;
	bool found = false;
	unsigned int k;

	if (in->flags & RCV_I_SYSCALL) {
		uint64_t nr = (uint64_t)p->r[RP_REG_RAX].lo;
		bool kn = sv_is_const(p->r[RP_REG_RAX]);

		/* The kernel's writes, unless the call writes no memory.
		 * Those of write, writev, pwritev and pwritev2 the engine
		 * calls none (a descriptor it knows names no memory file)
		 * or unknown, never known (rcv_fd_write(): only pwrite64
		 * has an address, its offset).
		 */
		if (!kn || !rcv_sys_quiet(nr)) {
			add_acc(p, i, RP_ACC_WRITE, none, 0);
			if (kn && in->id == X86_INS_SYSCALL &&
			    rcv_fd_family(nr) && nr != 18)
				last_blind(p);
			store(p, none, 0, none, dep_in(p));
		}
		return;
	}
	/* What capstone could not decode and libopcodes shows to be on
	 * vector, mask and general-purpose registers only: no memory.
	 */
	if ((in->flags & RCV_I_BAD) && !(in->flags & RCV_I_MEMBAR))
		return;
	/* One it did not decode, with memory (an EVEX load or store):
	 * the engine's accesses there are of unknown address, always.
	 */
	if (in->flags & RCV_I_BAD) {
		add_acc(p, i, RP_ACC_READ, none, 0);
		last_blind(p);
		add_acc(p, i, RP_ACC_WRITE, none, 0);
		last_blind(p);
		store(p, none, 0, none, dep_in(p));
		return;
	}
	/* Without rep only stos and movs are not plain loads
	 * (rcv_decode.c: MEMBAR); the others' operands name them.
	 */
	if ((in->flags & (RCV_I_MEMBAR | RCV_I_REP)) && str_acc(p, i, in))
		return;
	if (in->flags & (RCV_I_MEMBAR | RCV_I_REP | RCV_I_BAD) ||
	    ((in->id == X86_INS_BT || in->id == X86_INS_BTS ||
	      in->id == X86_INS_BTR || in->id == X86_INS_BTC) &&
	     rcv_bitop_far(in))) {
		add_acc(p, i, RP_ACC_READ, none, 0);
		add_acc(p, i, RP_ACC_WRITE, none, 0);
		store(p, none, 0, none, dep_in(p));
		return;
	}
	switch (in->id) {
	case X86_INS_LEA:
	case X86_INS_NOP:
		return;
	case X86_INS_XLATB:	/* [rbx + al], no operand listed */
		add_acc(p, i, RP_ACC_READ, none, 0);
		return;
	case X86_INS_PUSH:
	case X86_INS_CALL:
		if (in->nops >= 1 && in->op[0].type == RCV_OP_MEM) {
			a = wpf_addr_of(p, in, &in->op[0]);
			add_acc(p, i, RP_ACC_READ, a, in->op[0].size);
			mark_fixed(p, &in->op[0]);
			if (in->id == X86_INS_CALL && p->deps)
				wdep_load(p, a, in->op[0].size, -1);
		}
		if (in->id == X86_INS_PUSH && in->op[0].type != RCV_OP_IMM &&
		    in->op[0].size != 8) {
			add_acc(p, i, RP_ACC_WRITE, none, 0);
			store(p, none, 0, none, dep_in(p));
			return;
		}
		a = sv_add(rsp, -8);
		add_acc(p, i, RP_ACC_WRITE, a, 8);
		v = in->id == X86_INS_CALL ? sv_const(in->ip + in->len) :
					     wpf_src_of(p, in, &in->op[0]);
		store(p, a, 8, v, v.root >= 0 ? v.root : dep_in(p));
		return;
	case X86_INS_RET:
		/* The trace shows the word it pops: a value a push or a
		 * store left there (push %rax; ret) is told.
		 */
		k = sv_exact(rsp) ? (unsigned int)slot_at(p, rsp.lo) : p->nslot;
		if (k < p->nslot && p->slot[k].root == rsp.root &&
		    p->slot[k].off == rsp.lo) {
			int32_t r = p->slot[k].val.root;

			/* A register's or a word's value: not secret;
			 * anything made from them: what it depends on is
			 * shown (watch_dep.c).
			 */
			if (r > 0 && (p->root[r].start || p->root[r].lw))
				p->root[r].shown = true;
			else if (r && p->qmode)
				p->loud = true;	/* not followed there */
			wdep_reveal(p, r);
			found = true;
		}
		/* Else what stores left there, as a load would read it. */
		if (sv_exact(rsp) && !found && p->deps)
			wdep_reveal(p, wdep_load(p, rsp, 8, -1));
		if (sv_exact(rsp)) {
			if (wpf_grow((void **)&p->rets, &p->rets_cap,
				     p->nrets, sizeof(*p->rets), 64))
				p->rets[p->nrets++] = (struct slot){
					rsp.root, rsp.lo, none };
			else
				p->nomem = true;
		} else {
			p->loud = true;	/* a word the engine may know */
		}
		add_acc(p, i, RP_ACC_READ, rsp, 8);
		return;
	case X86_INS_POP:
		add_acc(p, i, RP_ACC_READ, rsp, 8);
		return;
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
	case X86_INS_IRETD: case X86_INS_IRETQ:
		/* the frame at rsp (review8 rw 136, 137) */
		add_acc(p, i, RP_ACC_READ, rsp, rcv_far_pop(in));
		return;
	case X86_INS_LEAVE:
		add_acc(p, i, RP_ACC_READ, p->r[RP_REG_RBP], 8);
		return;
	default:
		break;
	}
	for (k = 0; k < in->nops; k++) {
		const struct rcv_op *op = &in->op[k];
		unsigned int acc = op->access & (CS_AC_READ | CS_AC_WRITE);
		bool mov = in->nops == 2 && (in->id == X86_INS_MOV ||
					     in->id == X86_INS_MOVABS);
		int32_t d;

		if (op->type != RCV_OP_MEM)
			continue;
		a = wpf_addr_of(p, in, op);
		if (!acc)	/* not said: either */
			acc = CS_AC_READ | CS_AC_WRITE;
		if (acc & CS_AC_READ) {
			add_acc(p, i, RP_ACC_READ, a, op->size);
			mark_fixed(p, op);
			last_indexed(p, op);
			/* A mov of 8 bytes into a register: step()'s load8,
			 * and an add of 8 bytes to one
			 */
			if (p->deps &&
			    (!mov || k != 1 || !is_reg(&in->op[0], 8)) &&
			    (k != 1 || !add_load8(in)))
				wdep_load(p, a, op->size, -1);
		}
		if (acc & CS_AC_WRITE) {
			add_acc(p, i, RP_ACC_WRITE, a, op->size);
			mark_fixed(p, op);
			last_indexed(p, op);
			v = none;
			if (in->id == X86_INS_MOV && k == 0 && in->nops == 2 &&
			    op->size == 8)
				v = wpf_src_of(p, in, &in->op[1]);
			if (mov && k == 0 && in->op[1].type == RCV_OP_REG)
				d = p->r[in->op[1].reg].root;
			else if (mov && k == 0 && in->op[1].type == RCV_OP_IMM)
				d = 0;
			else
				d = v.root >= 0 ? v.root : dep_in(p);
			store(p, a, op->size, v, d);
		}
	}
}
