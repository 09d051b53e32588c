// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The memory one executed instruction reads and writes, with the
 * addresses the recovery engine implies (rp_recover_accesses(), for
 * watchpoints, issue #18): explicit operands and the stack's implicit
 * ones (rcv_sem.c's rcv_reads/rcv_writes), every memory operand a load
 * the semantics do not name reads, string instructions over their whole
 * range, the kernel's writes at a system call (recover.c's table), and
 * an unknown address wherever the engine cannot name one, bounded where
 * the access is relative to the stack or to fs; and what one store wrote
 * (rp_recover_stored(): a watchpoint's new value across threads).
 */
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"

static size_t acc_add(struct rp_access *acc, size_t n, size_t max,
		      uint8_t kind, bool known, uint64_t addr, uint64_t size)
{
	if (n < max)
		acc[n] = (struct rp_access){ .kind = kind,
					     .addr_known = known,
					     .addr = known ? addr : 0,
					     .size = known ? size : 0 };
	return n + 1;
}

/*
 * Where an access through memory operand @op (NULL: the stack pointer,
 * push and call) of instruction @at may lie when its address is not
 * known: the thread's stack for rsp, or rbp derived from rsp
 * (rcv_stack.c); fs_base at the end plus a known offset for fs.
 */
static void acc_bounds(const struct rcv_ctx *c, const struct rcv_where *at,
		       const struct rcv_op *op, struct rp_access *a)
{
	struct rcv_op o;
	struct rcv_val ad;
	bool stack;

	if (a->addr_known)
		return;
	if (!op) {
		stack = true;
	} else if (op->seg == 1) {
		if (at->fs_end.k != ~0ull)
			return;
		o = *op;
		o.seg = 0;
		ad = rcv_addr(c, at->in, &o, at->pre);
		if (ad.k != ~0ull || !op->size)
			return;
		a->lo = ad.v + at->fs_end.v;
		a->hi = a->lo + op->size;
		return;
	} else {
		stack = op->seg == 0 && op->index < 0 &&
			(op->base == RP_REG_RSP ||
			 (op->base == RP_REG_RBP && at->fr->rbp_c));
	}
	if (stack && at->stack_hi > at->stack_lo) {
		a->lo = at->stack_lo;
		a->hi = at->stack_hi;
	}
}

/* The memory operand rcv_writes() names for @in, NULL for push/call. */
static const struct rcv_op *write_op(const struct rcv_ins *in)
{
	int k;

	if (in->id == X86_INS_PUSH || in->id == X86_INS_CALL)
		return NULL;
	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM &&
		    (in->op[k].access & CS_AC_WRITE))
			return &in->op[k];
	return NULL;
}

/* The memory operand rcv_reads() names for @in ([rbp] for leave), NULL
 * for none (pop and ret read at the stack pointer).
 */
static const struct rcv_op *read_op(const struct rcv_ins *in)
{
	static const struct rcv_op rbp = {
		.type = RCV_OP_MEM, .size = 8, .access = 1,
		.base = RP_REG_RBP, .index = -1,
	};
	int k;

	if (in->id == X86_INS_LEAVE)
		return &rbp;
	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM && (in->op[k].access & 1))
			return &in->op[k];
	return NULL;
}

/* Element size of string instruction @id (0: not one), and whether it
 * reads [rsi] (@src), reads [rdi] (@dread) or writes [rdi] (@dst).
 */
static unsigned int str_op(unsigned int id, bool *src, bool *dread,
			   bool *dst)
{
	*src = *dread = *dst = false;
	switch (id) {
	case X86_INS_STOSB: *dst = true; return 1;
	case X86_INS_STOSW: *dst = true; return 2;
	case X86_INS_STOSD: *dst = true; return 4;
	case X86_INS_STOSQ: *dst = true; return 8;
	case X86_INS_MOVSB: *src = *dst = true; return 1;
	case X86_INS_MOVSW: *src = *dst = true; return 2;
	case X86_INS_MOVSQ: *src = *dst = true; return 8;
	case X86_INS_LODSB: *src = true; return 1;
	case X86_INS_LODSW: *src = true; return 2;
	case X86_INS_LODSD: *src = true; return 4;
	case X86_INS_LODSQ: *src = true; return 8;
	case X86_INS_SCASB: *dread = true; return 1;
	case X86_INS_SCASW: *dread = true; return 2;
	case X86_INS_SCASD: *dread = true; return 4;
	case X86_INS_SCASQ: *dread = true; return 8;
	case X86_INS_CMPSB: *src = *dread = true; return 1;
	case X86_INS_CMPSW: *src = *dread = true; return 2;
	case X86_INS_CMPSQ: *src = *dread = true; return 8;
	default: return 0;
	}
}

/* movsd and cmpsd are also SSE's (scalar doubles): the string forms have
 * two memory operands.
 */
unsigned int rcv_str_op(const struct rcv_ins *in, bool *src, bool *dread,
			bool *dst)
{
	bool two = in->nops == 2 && in->op[0].type == RCV_OP_MEM &&
		   in->op[1].type == RCV_OP_MEM;

	if (in->id == X86_INS_MOVSD && two) {
		*src = *dst = true;
		*dread = false;
		return 4;
	}
	if (in->id == X86_INS_CMPSD && two) {
		*src = *dread = true;
		*dst = false;
		return 4;
	}
	return str_op(in->id, src, dread, dst);
}

/* The bytes a string instruction covers from register @reg: all its
 * iterations (rcx of them with a rep prefix; a repe/repne scan may stop
 * early, so that is a bound, which is what a watchpoint needs).  With
 * 32-bit addresses (0x67) it goes through esi or edi, wrapping at 4 GiB,
 * never at rsi or rdi: unknown (tests/gdb/watchrep.c a32).
 */
static bool str_range(const struct rcv_ins *in, const struct rcv_state *s,
		      int reg, unsigned int esize, uint64_t *addr,
		      uint64_t *size)
{
	uint64_t cnt = 1;

	if (in->a32 || s->r[reg].k != ~0ull || !(s->r[RCV_FLAGS].k & F_DF))
		return false;
	if (in->flags & RCV_I_REP) {
		if (s->r[RP_REG_RCX].k != ~0ull ||
		    s->r[RP_REG_RCX].v > (1ull << 32))
			return false;
		cnt = s->r[RP_REG_RCX].v;
	}
	*size = cnt * esize;
	*addr = s->r[reg].v;
	if (s->r[RCV_FLAGS].v & F_DF)	/* downward */
		*addr -= *size - esize;
	return true;
}

/*
 * bt, bts, btr and btc with a memory operand and a register bit offset
 * reach past the operand: the word of the operand's size at ea + size *
 * floor(offset / (8 * size)), the offset signed (Intel SDM, BT).  Returns
 * the number of accesses, or -1 when @in is not one.
 */
static int bit_access(const struct rcv_ctx *c, const struct rcv_where *at,
		      struct rp_access *acc, size_t max)
{
	const struct rcv_ins *in = at->in;
	const struct rcv_op *m = &in->op[0], *r = &in->op[1];
	struct rcv_val ea, off;
	unsigned int bits;
	uint64_t mask;
	int64_t o;
	bool known;
	size_t n = 0;

	if ((in->id != X86_INS_BT && in->id != X86_INS_BTS &&
	     in->id != X86_INS_BTR && in->id != X86_INS_BTC) ||
	    in->nops != 2 || m->type != RCV_OP_MEM || r->type != RCV_OP_REG)
		return -1;
	ea = rcv_addr(c, in, m, at->pre);
	off = at->pre->r[r->reg];
	bits = 8u * m->size;
	mask = r->size >= 8 ? ~0ull : (1ull << (8 * r->size)) - 1;
	known = ea.k == ~0ull && m->size && r->size >= 2 && !r->shift &&
		(off.k & mask) == mask;
	o = 0;
	if (known) {
		if (r->size == 8)
			o = (int64_t)off.v;
		else if (r->size == 4)
			o = (int32_t)off.v;
		else
			o = (int16_t)off.v;
		/* floor division: a negative offset reaches below */
		o = (o >= 0 ? o / bits : -((-o + bits - 1) / bits)) * m->size;
	}
	n = acc_add(acc, n, max, RP_ACC_READ, known, ea.v + (uint64_t)o,
		    m->size);
	if (in->id != X86_INS_BT)
		n = acc_add(acc, n, max, RP_ACC_WRITE, known,
			    ea.v + (uint64_t)o, m->size);
	return (int)(n < max ? n : max);
}

/*
 * The bytes memory operand @op of @in covers: its size, or for the state
 * loads rcv_decode.c gives size 0, fxrstor's 512 (SDM Vol. 1 10.5.1) and
 * frstor's 108 (8.1.10); 0 (not known) for xrstor's.
 */
static uint64_t op_extent(const struct rcv_ins *in, const struct rcv_op *op)
{
	if (op->size)
		return op->size;
	switch (in->id) {
	case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
		return 512;
	case X86_INS_FRSTOR:
		return 108;
	default:
		return 0;
	}
}

/*
 * The bytes a far return or iret pops at rsp (review8 rw 136, 137; SDM
 * RET far and IRET in 64-bit mode): cs and the return address of the
 * operand size each (and its immediate), iret rip, cs, rflags, rsp and
 * ss; 0 for any other instruction.
 */
unsigned int rcv_far_pop(const struct rcv_ins *in)
{
	unsigned int imm = in->nops == 1 && in->op[0].type == RCV_OP_IMM ?
			   (unsigned int)in->op[0].imm & 0xffff : 0;

	switch (in->id) {
	case X86_INS_RETFQ: return 16 + imm;
	case X86_INS_RETF: return 8 + imm;
	case X86_INS_IRETQ: return 40;
	case X86_INS_IRETD: return 20;
	case X86_INS_IRET: return 10;
	default: return 0;
	}
}

/*
 * Reads no operand names (review7 rw): xlat reads [rbx + al] (ebx with
 * 0x67; fs or gs added with their prefix: review7 xlatfs); enter with nesting level L > 1 copies L - 1 frame pointers from
 * [rbp - 8] down (SDM Vol. 2A ENTER, 64-bit operand size).
 */
static size_t implicit_reads(const struct rcv_ctx *c,
			     const struct rcv_where *at, struct rp_access *acc,
			     size_t n, size_t max)
{
	const struct rcv_ins *in = at->in;
	struct rcv_val b, x;
	unsigned int lvl;

	if (in->id == X86_INS_XLATB) {
		/* [rbx + al], with the segment rcv_decode() kept */
		struct rcv_op m = { .type = RCV_OP_MEM, .size = 1,
				    .base = RP_REG_RBX, .index = -1,
				    .seg = in->op[0].seg };

		x = at->pre->r[RP_REG_RAX];
		m.imm = in->op[0].imm + (int64_t)(x.v & 0xff);
		b = rcv_addr(c, in, &m, at->pre);
		n = acc_add(acc, n, max, RP_ACC_READ,
			    b.k == ~0ull && (x.k & 0xff) == 0xff && !in->a32,
			    b.v, 1);
		if (n <= max)
			acc_bounds(c, at, &m, &acc[n - 1]);
		return n;
	}
	lvl = rcv_far_pop(in);
	if (lvl) {
		b = at->pre->r[RP_REG_RSP];
		n = acc_add(acc, n, max, RP_ACC_READ, b.k == ~0ull, b.v, lvl);
		if (n <= max)
			acc_bounds(c, at, NULL, &acc[n - 1]);
		return n;
	}
	if (in->id != X86_INS_ENTER || in->nops != 2 ||
	    in->op[1].type != RCV_OP_IMM)
		return n;
	lvl = (unsigned int)in->op[1].imm & 31;
	if (lvl < 2)
		return n;
	b = at->pre->r[RP_REG_RBP];
	n = acc_add(acc, n, max, RP_ACC_READ, b.k == ~0ull,
		    b.v - 8ull * (lvl - 1), 8ull * (lvl - 1));
	if (n <= max)
		acc_bounds(c, at, NULL, &acc[n - 1]);
	return n;
}

int rcv_accesses(const struct rcv_ctx *c, const struct rcv_where *at,
		 struct rp_access *acc, size_t max)
{
	const struct rcv_state *pre = at->pre, *post = at->post;
	const struct rcv_ins *in = at->in;
	struct rcv_acc rd, wr;
	bool src, dread, dst;
	uint64_t a = 0, l = 0;
	unsigned int es;
	size_t n = 0;
	int k;

	if (in->flags & RCV_I_SYSCALL) {
		if (at->sys < 0)
			n = acc_add(acc, n, max, RP_ACC_WRITE, false, 0, 0);
		for (k = 0; k < at->sys && k < 4; k++) {
			l = at->sys_len[k];
			n = acc_add(acc, n, max, RP_ACC_WRITE, l != RCV_SYS_ANY,
				    at->sys_addr[k], l & ~RCV_SYS_MAYBE);
			if (n <= max && l != RCV_SYS_ANY &&
			    (l & RCV_SYS_MAYBE))
				acc[n - 1].cond = true;
		}
		for (k = 0; k < (int)n && k < (int)max; k++)
			acc[k].syscall = true;
		return (int)(n < max ? n : max);
	}
	if (in->flags & RCV_I_BAD) {
		/* rcv_decode.c's libopcodes fallback found only vector,
		 * mask and general-purpose registers: no memory.
		 */
		if (!(in->flags & RCV_I_MEMBAR))
			return 0;
		n = acc_add(acc, n, max, RP_ACC_READ, false, 0, 0);
		n = acc_add(acc, n, max, RP_ACC_WRITE, false, 0, 0);
		return (int)(n < max ? n : max);
	}
	k = bit_access(c, at, acc, max);
	if (k >= 0)
		return k;
	es = rcv_str_op(in, &src, &dread, &dst);
	if (es) {
		bool kn;

		if (src) {
			kn = str_range(in, pre, RP_REG_RSI, es, &a, &l);
			if (!kn || l)
				n = acc_add(acc, n, max, RP_ACC_READ, kn, a,
					    l);
		}
		if (dread || dst) {
			kn = str_range(in, pre, RP_REG_RDI, es, &a, &l);
			if (dread && (!kn || l))
				n = acc_add(acc, n, max, RP_ACC_READ, kn, a,
					    l);
			if (dst && (!kn || l))
				n = acc_add(acc, n, max, RP_ACC_WRITE, kn, a,
					    l);
		}
		return (int)(n < max ? n : max);
	}
	rcv_reads(c, in, pre, post, &rd);
	if (rd.valid) {
		n = acc_add(acc, n, max, RP_ACC_READ, rd.addr_known, rd.addr,
			    rd.size);
		/* Bounded as stores are (watch-unknown stack); add [mem], x
		 * by its memory operand, which it reads.
		 */
		if (n <= max && (in->id == X86_INS_POP ||
				 in->id == X86_INS_RET))
			acc_bounds(c, at, NULL, &acc[n - 1]);
		else if (n <= max && read_op(in))
			acc_bounds(c, at, read_op(in), &acc[n - 1]);
	} else if (in->id != X86_INS_LEA && in->id != X86_INS_NOP) {
		unsigned int o;

		/* Loads the semantics do not name: every memory operand
		 * read.
		 */
		for (o = 0; o < in->nops; o++) {
			const struct rcv_op *op = &in->op[o];
			uint64_t ext = op_extent(in, op);
			struct rcv_val ad;

			/* Capstone 4 gives an EVEX masked load's memory
			 * operand no access (vmovdqu8 (%rbp),%zmm0{%k1},
			 * vpexpandd: review7 rw): a read.
			 */
			if (op->type != RCV_OP_MEM ||
			    (op->access && !(op->access & 1)))
				continue;
			if (rcv_bitop_far(in)) {
				/* base + (bit offset >> 3): anywhere */
				n = acc_add(acc, n, max, RP_ACC_READ, false,
					    0, 0);
				continue;
			}
			ad = rcv_addr(c, in, op, pre);
			n = acc_add(acc, n, max, RP_ACC_READ,
				    ad.k == ~0ull && ext, ad.v, ext);
			if (n <= max)
				acc_bounds(c, at, op, &acc[n - 1]);
		}
	}
	n = implicit_reads(c, at, acc, n, max);
	/* Capstone 4 marks some compares' memory operand written. */
	if (in->id == X86_INS_CMP || in->id == X86_INS_TEST ||
	    in->id == X86_INS_BT)
		return (int)(n < max ? n : max);
	rcv_writes(c, in, pre, post, &wr);
	if (wr.valid) {
		const struct rcv_op *op = write_op(in);

		/* A write the decoder could not name whole (xsave's
		 * area, an odd operand): its address is not enough.
		 */
		bool whole = !(in->flags & RCV_I_MEMBAR) ||
			     in->id == X86_INS_PUSH || in->id == X86_INS_CALL ||
			     in->id == X86_INS_MOVSD;	/* SSE's (string:
							 * above) */

		n = acc_add(acc, n, max, RP_ACC_WRITE,
			    whole && wr.addr_known && wr.size, wr.addr,
			    wr.size);
		if (n <= max && !rcv_bitop_far(in) &&
		    (op || in->id == X86_INS_PUSH || in->id == X86_INS_CALL))
			acc_bounds(c, at, op, &acc[n - 1]);
	} else if (in->flags & RCV_I_MEMBAR) {
		n = acc_add(acc, n, max, RP_ACC_WRITE, false, 0, 0);
		/* pushf and enter write below the stack pointer. */
		if (n <= max && (in->id == X86_INS_PUSHF ||
				 in->id == X86_INS_PUSHFQ ||
				 in->id == X86_INS_ENTER ||
				 in->id == X86_INS_LCALL))
			acc_bounds(c, at, NULL, &acc[n - 1]);
	}
	return (int)(n < max ? n : max);
}

/*
 * Can @in access memory of kinds @kinds (RP_ACC_* bits) in any state?
 * Only what the instruction is decides: false only where rcv_accesses()
 * above returns no access of those kinds whatever the registers (no
 * memory operand, no stack or string operation, no system call, nothing
 * the decoder could not read), so a scan may pass it without a window's
 * states.
 */
static bool may_access(const struct rcv_ins *in, unsigned int kinds)
{
	bool src, dread, dst;
	int k;

	if (in->flags & (RCV_I_SYSCALL | RCV_I_BAD | RCV_I_MEMBAR) ||
	    rcv_str_op(in, &src, &dread, &dst))
		return true;
	switch (in->id) {
	case X86_INS_PUSH:
	case X86_INS_CALL:
		if (kinds & RP_ACC_WRITE)
			return true;
		break;
	case X86_INS_POP:
	case X86_INS_RET:
	case X86_INS_LEAVE:
	case X86_INS_XLATB:
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
	case X86_INS_IRETD: case X86_INS_IRETQ:
		if (kinds & RP_ACC_READ)
			return true;
		break;
	case X86_INS_BT:
	case X86_INS_BTS:
	case X86_INS_BTR:
	case X86_INS_BTC:
		for (k = 0; k < in->nops; k++)
			if (in->op[k].type == RCV_OP_MEM)
				return true;
		break;
	default:
		break;
	}
	for (k = 0; k < in->nops; k++)
		if (in->op[k].type == RCV_OP_MEM &&
		    ((kinds & RP_ACC_READ) ||
		     (in->op[k].access & CS_AC_WRITE)))
			return true;
	return false;
}

int rcv_win_accesses(struct rp_recover *rc, struct win *w, size_t i,
		     struct rp_access *acc, size_t max)
{
	struct rcv_where at = { 0 };

	rc->ctx.mctx = w;
	at.in = &w->ins[i];
	at.pre = &w->st[i];
	at.post = &w->st[i + 1];
	at.fr = &w->fr[i];
	at.stack_lo = rc->stack_lo;
	at.stack_hi = rc->stack_hi;
	if (rc->end_regs.valid & (1ull << RP_REG_FS_BASE))
		at.fs_end = (struct rcv_val){
			rc->end_regs.val[RP_REG_FS_BASE], ~0ull };
	if (at.in->flags & RCV_I_SYSCALL)
		at.sys = rcv_sys_writes(w, i, at.sys_addr, at.sys_len, 4);
	/* brk(2)'s pages (rcv_sys.c sys_brk_writes()): a grow maps new
	 * zeroed pages, a shrink unmaps them; no byte the program could
	 * read before changes, so no write a watchpoint sees (GDB's own
	 * stop at no brk), yet a watched word's value may differ across a
	 * shrink and a grow: "may have written", as where its breaks are
	 * not known (tests/gdb/watch.sh heap: once both breaks were known
	 * from the system calls' records, the exact range was a write the
	 * truth does not have).
	 */
	if (at.sys > 0 && (at.in->flags & RCV_I_SYSCALL) &&
	    at.pre->r[RP_REG_RAX].k == ~0ull && at.pre->r[RP_REG_RAX].v == 12)
		at.sys = -1;
	return rcv_accesses(&rc->ctx, &at, acc, max);
}

int rp_recover_scan(struct rp_recover *rc, uint64_t *pos, int dir,
		    uint64_t lo, uint64_t hi, unsigned int kinds,
		    int (*fn)(void *arg, const struct rp_access *acc, int n),
		    void *arg)
{
	struct rp_access acc[4];
	uint64_t p = *pos, a, b;
	struct win *w;
	int n, ret;

	while (p >= lo && p < hi) {
		if (p >= rc->end) {	/* the last, unfinished instruction */
			if (dir > 0 || !rc->end)
				return -RP_ERR_NOTFOUND;
			p = rc->end - 1;
			continue;
		}
		w = rcv_insn_win(rc, p, &n);
		if (!w && n != -RP_ERR_RANGE)
			return n;
		/* The window's instructions within [lo, hi). */
		a = w && w->first > lo ? w->first : lo;
		b = w && w->last < hi ? w->last : hi;
		if (!w)	/* no instruction: no access */
			a = b = p;
		for (;;) {
			if (w && may_access(&w->ins[p - w->first], kinds)) {
				n = rcv_win_accesses(rc, w, p - w->first, acc,
						     4);
				ret = fn(arg, acc, n);
				if (ret) {
					*pos = p;
					return ret < 0 ? ret : 0;
				}
			}
			if (dir < 0 ? p <= a : p + 1 >= b)
				break;
			p = dir < 0 ? p - 1 : p + 1;
		}
		if (dir < 0 ? !p : p + 1 == 0)
			break;
		p = dir < 0 ? p - 1 : p + 1;
	}
	return -RP_ERR_NOTFOUND;
}

size_t rp_recover_stored(struct rp_recover *rc, uint64_t pos, uint64_t addr,
			 void *buf, size_t len)
{
	struct rp_access acc[4];
	struct rcv_acc wr;
	struct win *w;
	uint8_t *out = buf;
	size_t i, done;
	unsigned int sh;
	int n, k, nw = 0, same = 0, err;

	w = rcv_insn_win(rc, pos, &err);
	if (!w)
		return 0;
	i = pos - w->first;
	n = rcv_win_accesses(rc, w, i, acc, 4);
	rcv_writes(&rc->ctx, &w->ins[i], &w->st[i], &w->st[i + 1], &wr);
	if (n <= 0 || !wr.valid || !wr.addr_known || wr.size > 8)
		return 0;
	/* Its one write, of a known address: the one rcv_writes() names
	 * (not a string instruction's, a system call's or a part).
	 */
	for (k = 0; k < n; k++) {
		if (acc[k].kind != RP_ACC_WRITE)
			continue;
		nw++;
		same += acc[k].addr_known && !acc[k].syscall &&
			acc[k].addr == wr.addr && acc[k].size == wr.size;
	}
	if (nw != 1 || same != 1)
		return 0;
	for (done = 0; done < len; done++) {
		if (addr + done - wr.addr >= wr.size)
			break;
		sh = (unsigned int)(addr + done - wr.addr) * 8;
		if ((wr.val.k >> sh & 0xff) != 0xff)
			break;
		out[done] = (uint8_t)(wr.val.v >> sh);
	}
	return done;
}
