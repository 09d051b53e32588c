// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Why a register is unknown (issue #17: which causes keep the share known
 * within 10^4 instructions of the end under 90%, and which of them no
 * sound engine could remove).  rp_recover_why() follows an unknown
 * register back through the instructions that do not write it (pass-
 * through is exact both ways, so it is unknown there too) to the one that
 * wrote it or the barrier that cut it, and asks what the engine lacked
 * there: it runs the engine's own forward semantics on that instruction
 * with every input known (then it is not modelled), with memory unknown
 * (then it is a load, and the memory search is retraced to the access or
 * barrier that stopped it) and with one register unknown at a time (the
 * operand to follow next).  The memory search's retrace takes the
 * engine's own rules, the exit-save rule's kept slots (w->ek) among them.
 * Nothing here changes what the engine knows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"

#define WHY_DEPTH	32	/* other registers followed, at most */
#define WHY_SCAN	64	/* as rcv_mem.c's MB_SCAN */
#define WHY_ALIAS	16	/* as rcv_mem.c's MB_ALIAS */

static const char *const cause_names[RP_WHY_NCAUSE] = {
	"known", "before-history", "operands", "load-address", "load-memory",
	"syscall", "unmodelled", "undefined", "transfer", "unproven",
	"window-boundary", "beyond-ramp", "engine", "xmm-operand", "input",
};

static const char *const mem_names[RP_WHYM_NCAUSE] = {
	"-", "store-unknown-address", "syscall", "barrier", "shared",
	"escaped-stack", "tls", "store-unknown-value", "before-history",
	"not-in-snapshot", "beyond-chain", "scan-limit",
};

const char *rp_why_name(unsigned int cause)
{
	return cause < RP_WHY_NCAUSE ? cause_names[cause] : "?";
}

const char *rp_whym_name(unsigned int mem)
{
	return mem < RP_WHYM_NCAUSE ? mem_names[mem] : "?";
}

/* ---- probing one instruction's semantics ------------------------------ */

static struct rcv_val probe_mem(void *ctx, uint64_t i, uint64_t addr,
				unsigned int size)
{
	(void)i;
	(void)addr;
	if (!ctx)
		return (struct rcv_val){ 0, 0 };
	return (struct rcv_val){ 0x1111111111111111ull &
				 (size >= 8 ? ~0ull : (1ull << 8 * size) - 1),
				 size >= 8 ? ~0ull : (1ull << 8 * size) - 1 };
}

/*
 * The bits of register @g the engine's forward semantics know after @in
 * when everything before it is known but register @hide (-1 none, -2 the
 * xmm registers) and, when !@mem, memory.  Values that make no division
 * fault: rdx 0, every other register nonzero.
 */
static uint64_t probe_at(const struct rcv_ins *in, unsigned int g, int hide,
			 bool mem, const struct rcv_state *real)
{
	static int dummy;
	struct rcv_ctx c = { 0 };
	struct rcv_state pre, post;
	uint64_t conf = 0;
	int r, x;

	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	for (r = 0; r < 16; r++)
		pre.r[r] = (struct rcv_val){ 0x1000ull * (uint64_t)(r + 1),
					     ~0ull };
	pre.r[RP_REG_RDX].v = 0;
	pre.r[RCV_FLAGS] = (struct rcv_val){ 0x202, ~0ull };
	for (x = 0; x < RCV_NXMM; x++)
		pre.x[x][0] = pre.x[x][1] = (struct rcv_val){ 0x2222, ~0ull };
	pre.xk = hide == -2 ? 0 : 0xffff;
	if (hide == -2)
		memset(pre.x, 0, sizeof(pre.x));
	for (r = 0; real && r < RCV_NREG; r++)
		if (real->r[r].k == ~0ull)
			pre.r[r] = real->r[r];
	if (hide >= 0)
		pre.r[hide] = (struct rcv_val){ 0, 0 };
	c.mem = probe_mem;
	c.mctx = mem ? &dummy : NULL;
	c.fs_base = c.gs_base = (struct rcv_val){ 0x7000000, ~0ull };
	rcv_forward(&c, 0, in, &pre, &post, &conf);
	return post.r[g].k;
}

static uint64_t probe(const struct rcv_ins *in, unsigned int g, int hide,
		      bool mem)
{
	return probe_at(in, g, hide, mem, NULL);
}

int rcv_why_operand(const struct rcv_ins *in, const struct rcv_state *pre,
		    unsigned int g, uint64_t u)
{
	int r;

	for (r = 0; r < RCV_NREG; r++)
		if (pre->r[r].k != ~0ull && (u & ~probe(in, g, r, true)))
			return r;
	if (u & ~probe(in, g, -2, true))
		return -2;
	/*
	 * A result known in part may be so by the values (and with a mask
	 * of 0 bits): the made-up values above can know bits the real ones
	 * leave to the unknown operand.
	 */
	for (r = 0; r < RCV_NREG; r++)
		if (pre->r[r].k != ~0ull &&
		    (u & ~probe_at(in, g, r, true, pre)))
			return r;
	return -1;
}

/*
 * The flags instruction @in leaves undefined (SDM, each instruction's
 * "Flags Affected"), where they depend on nothing in the history: a
 * register holding them is known to no engine until they are written
 * again.  Counts not known are taken as not 0 (not 1 for OF).
 */
static uint64_t undef_flags(const struct rcv_ins *in)
{
	const uint64_t szap = F_SF | F_ZF | F_AF | F_PF;

	switch (in->id) {
	case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR:
	case X86_INS_TEST: case X86_INS_ANDN:
		return F_AF;
	case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHR:
	case X86_INS_SAR: case X86_INS_SHLD: case X86_INS_SHRD:
		return in->nops >= 2 && in->op[in->nops - 1].type ==
		       RCV_OP_IMM && in->op[in->nops - 1].imm == 1 ?
		       F_AF : F_AF | F_OF;
	case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL:
	case X86_INS_RCR:
		return in->nops >= 2 && in->op[1].type == RCV_OP_IMM &&
		       in->op[1].imm == 1 ? 0 : F_OF;
	case X86_INS_MUL: case X86_INS_IMUL:
		return szap;
	case X86_INS_DIV: case X86_INS_IDIV:
		return ARITH_FLAGS;
	case X86_INS_BSF: case X86_INS_BSR:
		return F_CF | F_OF | F_SF | F_AF | F_PF;
	case X86_INS_TZCNT: case X86_INS_LZCNT:
	case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR:
	case X86_INS_BTC:
		return F_OF | F_SF | F_AF | F_PF;
	case X86_INS_BEXTR: case X86_INS_BLSI: case X86_INS_BLSMSK:
	case X86_INS_BLSR: case X86_INS_BZHI:
		return F_AF | F_PF;
	default:
		return 0;
	}
}

/* ---- naming instructions ----------------------------------------------- */

struct why_ctx {
	struct rp_recover *rc;
	struct rp_cursor *cur;
};

static void name_at(struct why_ctx *x, uint64_t at, uint64_t *ip, char *buf)
{
	struct rp_insn insn;

	buf[0] = '\0';
	if (!x->cur && rp_cursor_new(x->rc->s, x->rc->tid, &x->cur))
		x->cur = NULL;
	if (!x->cur || rp_cursor_peek(x->cur, at, &insn)) {
		snprintf(buf, 16, "?");
		return;
	}
	*ip = insn.ip;
	rcv_dec_mnemonic(x->rc->dec, insn.ip, insn.raw, insn.size, buf, 16);
}

/* ---- the windows ------------------------------------------------------- */

/*
 * The window before @w as the engine has it (what flowed into @w's first
 * state came from its last), or NULL: @w is the history's first, or
 * nothing flows into it (*@far set).
 */
static struct win *earlier_win(struct rp_recover *rc, struct win *w,
			       bool *far, int *err)
{
	uint64_t k = (rc->end - w->last) / rc->block;

	*far = false;
	*err = 0;
	if (!w->first)
		return NULL;
	if (k + 1 < RCV_CHAIN && rc->chain[k] == w)
		return rc->chain[k + 1] ? rc->chain[k + 1] :
		       rcv_win_at(rc, w->first - 1, err);
	if (!rcv_ramp_seed(rc, k + 1)) {
		*far = true;
		return NULL;
	}
	return rcv_win_at(rc, w->first - 1, err);
}

/*
 * The instruction before state @i of @w, going back, that writes bits @u
 * of register @g or is a barrier; -1 when the window's start is reached
 * first.  Remembered per register: successive questions going back share
 * the walk.
 */
static int64_t walk(struct rp_recover *rc, const struct win *w, size_t i,
		    unsigned int g, uint64_t u)
{
	struct rcv_why_memo *m = &rc->why[g];
	int64_t q;

	if (m->w == w && m->first == w->first && m->last == w->last &&
	    m->u == u && m->lo < (int64_t)i && i <= m->hi)
		return m->lo;
	for (q = (int64_t)i - 1; q >= 0; q--) {
		const struct rcv_ins *in = &w->ins[q];
		uint64_t wm = g < 16 ? rcv_wmask(in->wcode[g]) : in->fw;

		if ((in->flags & RCV_I_BARRIER) || (wm & u))
			break;
	}
	*m = (struct rcv_why_memo){ w, w->first, w->last, u, q, i };
	return q;
}

static int trace(struct why_ctx *x, struct win *w, size_t i, unsigned int g,
		 uint64_t u, struct rp_why *y, unsigned int depth);
static void root_of(struct why_ctx *x, struct win *w, size_t q,
		    unsigned int g, struct rp_why *y, unsigned int depth);

/* ---- memory ------------------------------------------------------------ */

/* What barrier @q of @w is, for memory. */
static unsigned int mem_barrier(struct rp_recover *rc, struct win *w,
				size_t q)
{
	const struct rcv_ins *in = &w->ins[q];
	struct rcv_acc wr;

	if (in->flags & RCV_I_SYSCALL)
		return RP_WHYM_SYSCALL;
	if (in->flags & (RCV_I_BARRIER | RCV_I_REP))
		return RP_WHYM_BARRIER;
	rcv_writes(&rc->ctx, in, &w->st[q], &w->st[q + 1], &wr);
	return wr.valid && !wr.addr_known ? RP_WHYM_STORE_ADDR :
					    RP_WHYM_BARRIER;
}

/* Where the search for a byte stopped: @kind (as rcv_why_stop's). */
static void stop_at(struct rcv_why_stop *s, unsigned int kind, struct win *w,
		    size_t q, bool at)
{
	s->kind = kind;
	s->w = w;
	s->q = q;
	s->at = at;
}

/*
 * The exit-save rule (rcv_callee.c's kept_to(): a push never popped,
 * nothing wrote its slot from the push to ek[k].to; w->ek, in the window
 * that ends at the snapshot, default mode only): the push of a slot
 * holding byte @a before position @before of @w, kept past position
 * @past, rsp known at the push; -1 none.  As rcv_mem.c's end_kept()
 * (@before and @past barrier b: it did not write the byte, proven in
 * bulk, so not counted against the alias tries) and end_own() (@before
 * state i, @past the window's last position: the thread's own from the
 * push to the end).
 */
static int64_t ek_push(const struct win *w, size_t before, size_t past,
		       uint64_t a)
{
	const struct rcv_val *sp;
	size_t k;

	for (k = 0; k < w->nek && w->ek[k].p < before; k++) {
		sp = &w->st[w->ek[k].p].r[RP_REG_RSP];
		if (w->ek[k].to > past && sp->k == ~0ull &&
		    a - (sp->v - 8) < 8)
			return (int64_t)k;
	}
	return -1;
}

/* Notes in @s that the search went on past @w's position by push @k. */
static void ek_used(struct rcv_why_stop *s, const struct win *w, int64_t k)
{
	s->ek = true;
	s->ek_at = w->first + w->ek[k].p;
	s->ek_to = w->first + w->ek[k].to;
}

/* Forward from state @i of @w, as rcv_mem.c's mem_byte() goes: what
 * stopped the search for byte @a.
 */
static void mem_fwd(struct rp_recover *rc, struct win *w, size_t i,
		    uint64_t a, uint64_t until, struct rcv_why_stop *s)
{
	uint64_t word = a >> 3, sa, sl;
	size_t k = rcv_lower(w, word, i), j = k, lim, stop = w->n;
	unsigned int tries = 0;
	bool cut = false;
	int64_t ek;
	uint8_t b;

	if (until < w->first + w->n) {
		stop = (size_t)(until - w->first) + 1;
		cut = true;
	}
	lim = w->nb[i] < stop ? w->nb[i] : stop;
	for (;;) {
		for (; j < w->nidx && w->idx[j].word == word &&
		     w->idx[j].pos < lim; j++) {
			size_t q = w->idx[j].pos;

			stop_at(s, RP_WHYM_SCAN, w, q, true);
			if (j - k >= WHY_SCAN)
				return;
			if (rcv_acc_byte(rcv_acc_of(w, q, true), a, &b) >= 0) {
				s->kind = RP_WHYM_NONE;	/* overwritten */
				return;
			}
			if ((w->ins[q].flags & RCV_I_SYSCALL) &&
			    rcv_sys_write(w, q, &sa, &sl) > 0 && a - sa < sl) {
				s->kind = RP_WHYM_SYSCALL;
				return;
			}
		}
		if (lim < stop && (ek = ek_push(w, lim, lim, a)) >= 0) {
			ek_used(s, w, ek);
			lim = w->nb[lim + 1] < stop ? w->nb[lim + 1] : stop;
			continue;
		}
		if (lim < stop && rcv_extent_refuted(w, lim, a)) {
			lim = w->nb[lim + 1] < stop ? w->nb[lim + 1] : stop;
			continue;
		}
		if (lim < stop && tries < WHY_ALIAS &&
		    rcv_alias_refuted(w, lim, a)) {
			tries++;
			lim = w->nb[lim + 1] < stop ? w->nb[lim + 1] : stop;
			continue;
		}
		break;
	}
	if (lim < stop) {
		stop_at(s, mem_barrier(rc, w, lim), w, lim, true);
		return;
	}
	stop_at(s, RP_WHYM_ESCAPED, w, 0, false);
	if (cut)
		return;
	if (w->top_end)
		s->kind = RP_WHYM_NOSNAP;
	else if (w->later)
		mem_fwd(rc, w->later, 0, a, until, s);
	else
		s->kind = RP_WHYM_FAR;
}

/* Backward from state @i of @w likewise. */
static void mem_back(struct rp_recover *rc, struct win *w, size_t i,
		     uint64_t a, struct rcv_why_stop *s)
{
	uint64_t word = a >> 3, sa, sl;
	size_t k = rcv_lower(w, word, i), j = k;
	unsigned int tries = 0;
	int64_t plim = w->pb[i], ek;
	uint8_t b;

	for (;;) {
		for (; j > 0 && w->idx[j - 1].word == word &&
		     (int64_t)w->idx[j - 1].pos > plim; j--) {
			size_t q = w->idx[j - 1].pos;

			stop_at(s, RP_WHYM_SCAN, w, q, true);
			if (k - j >= WHY_SCAN)
				return;
			if ((w->ins[q].flags & RCV_I_SYSCALL) &&
			    rcv_sys_write(w, q, &sa, &sl) > 0 && a - sa < sl) {
				s->kind = RP_WHYM_SYSCALL;
				return;
			}
			if (rcv_acc_byte(rcv_acc_of(w, q, true), a, &b) == 0) {
				s->kind = RP_WHYM_STORE_VAL;
				return;
			}
		}
		if (plim >= 0 &&
		    (ek = ek_push(w, (size_t)plim, (size_t)plim, a)) >= 0) {
			ek_used(s, w, ek);
			plim = w->pb[plim];
			continue;
		}
		if (plim >= 0 && rcv_extent_refuted(w, (size_t)plim, a)) {
			plim = w->pb[plim];
			continue;
		}
		if (plim >= 0 && tries < WHY_ALIAS &&
		    rcv_alias_refuted(w, (size_t)plim, a)) {
			tries++;
			plim = w->pb[plim];
			continue;
		}
		break;
	}
	if (plim >= 0) {
		stop_at(s, mem_barrier(rc, w, (size_t)plim), w, (size_t)plim,
			true);
		return;
	}
	stop_at(s, w->first ? RP_WHYM_FAR : RP_WHYM_BEFORE, w, 0, false);
	if (w->earlier)
		mem_back(rc, w->earlier, w->earlier->n, a, s);
}

/*
 * Where the search for byte @a before instruction @q of @w stops, as
 * rcv_mem.c's mem_bytes() goes: memory no search can take (another
 * thread's, the rseq area's: the load itself, @q, is named), else forward
 * to the snapshot and, where a later store overwrote it (the snapshot
 * cannot tell), backward.  A pushed slot the exit-save rule keeps to the
 * end is the thread's own from its push, shared or not.
 */
void rcv_why_mem_stop(struct rp_recover *rc, struct win *w, size_t q,
		      uint64_t a, struct rcv_why_stop *s)
{
	uint64_t until;
	bool priv = rcv_private_until(rc, a, &until);
	int64_t ek;

	memset(s, 0, sizeof(*s));
	if ((!priv || w->first + q > until) && w->nek &&
	    (ek = ek_push(w, q, w->n - 1, a)) >= 0) {
		ek_used(s, w, ek);
		priv = true;
		until = UINT64_MAX;
	}
	if (!priv) {
		unsigned int kind = (rc->tls_lo <= a && a < rc->tls_hi) ||
				    ((rc->rseq_any || rc->nrseq) &&
				     rcv_fd_rseq(rc, a)) ? RP_WHYM_TLS :
				    rc->mt && rc->stack_lo <= a &&
				    a < rc->stack_hi ? RP_WHYM_ESCAPED :
				    RP_WHYM_SHARED;
		uint64_t fr, un;

		/* Between the other tasks' writes (rcv_xthr.c), the walk
		 * forward as mem_bytes() goes: a store of unknown address,
		 * a system call or a barrier of the thread's own before
		 * the span ends is what stops it, not the load.
		 */
		if (kind != RP_WHYM_TLS &&
		    rcv_xthr_quiet(rc, a, w->first + q, &fr, &un)) {
			mem_fwd(rc, w, q, a, un, s);
			if (s->at && (s->kind == RP_WHYM_STORE_ADDR ||
				      s->kind == RP_WHYM_SYSCALL ||
				      s->kind == RP_WHYM_BARRIER))
				return;
			memset(s, 0, sizeof(*s));
		}
		stop_at(s, kind, w, q, true);
		return;
	}
	if (w->first + q > until) {
		stop_at(s, RP_WHYM_ESCAPED, w, q, true);
		return;
	}
	mem_fwd(rc, w, q, a, until, s);
	if (s->kind == RP_WHYM_NONE)
		mem_back(rc, w, q, a, s);
}

/*
 * Why byte @a before instruction @q of @w is unknown: what stopped the
 * search (rcv_why_mem_stop()), followed on through a store of a value
 * not known.
 */
static void mem_why(struct why_ctx *x, struct win *w, size_t q, uint64_t a,
		    struct rp_why *y, unsigned int depth)
{
	struct rcv_why_stop s;

	y->mem_addr = a;
	rcv_why_mem_stop(x->rc, w, q, a, &s);
	y->mem = s.kind;
	if (s.at) {
		y->mem_at = s.w->first + s.q;
		name_at(x, y->mem_at, &y->mem_ip, y->mem_insn);
	}
	y->ek = s.ek;
	y->ek_at = s.ek_at;
	y->ek_to = s.ek_to;
	y->root = RP_WHY_LOAD_MEM;
	y->root_mem = s.kind;
	y->root_at = y->mem_at;
	y->root_ip = y->mem_ip;
	memcpy(y->root_insn, y->mem_insn, sizeof(y->root_insn));
	/* A store of a value not known: why that value is not. */
	if (s.kind == RP_WHYM_STORE_VAL && s.at && depth < WHY_DEPTH) {
		const struct rcv_ins *in = &s.w->ins[s.q];
		const struct rcv_op *src = &in->op[in->nops > 1 ? 1 : 0];
		if (in->id == X86_INS_PUSH || in->nops < 2)
			src = &in->op[0];
		if (src->type != RCV_OP_REG ||
		    s.w->st[s.q].r[src->reg].k == ~0ull)
			return;
		root_of(x, s.w, s.q, (unsigned int)src->reg, y, depth + 1);
	}
}

/*
 * A pop or reload at @q that rcv_pass.c links to its push or spill (the
 * pair kept, rcv_stack.c): the value is the pushed one, so its root is
 * why that is not known (the register pushed, or the memory a push of
 * memory read), not the load's own memory.
 */
static void pair_why(struct why_ctx *x, struct win *w, size_t q,
		     struct rp_why *y, unsigned int depth)
{
	const struct rcv_ins *in;
	const struct rcv_op *src;
	int64_t p;

	if (!w->pair || q >= w->n || (p = w->pair[q]) < 0 ||
	    depth >= WHY_DEPTH ||
	    !(w->first + q <= rcv_stack_until(x->rc) || w->plocal[q]))
		return;
	in = &w->ins[p];
	src = rcv_pair_src(in);
	if (src->type == RCV_OP_REG && src->reg >= 0 && src->reg < 16 &&
	    w->st[p].r[src->reg].k != ~0ull) {
		root_of(x, w, (size_t)p, (unsigned int)src->reg, y, depth + 1);
	} else if (src->type == RCV_OP_MEM) {
		struct rcv_val a = rcv_addr(&x->rc->ctx, in, src, &w->st[p]);
		struct rp_why t = *y;
		unsigned int b;
		uint8_t v;

		if (a.k != ~0ull)
			return;
		for (b = 0; b < 8; b++)
			if (!rcv_mem_byte(w, (uint64_t)p, a.v + b, &v))
				break;
		if (b == 8)
			return;
		mem_why(x, w, (size_t)p, a.v + b, &t, depth + 1);
		y->root = t.root;
		y->root_mem = t.root_mem;
		y->root_at = t.root_at;
		y->root_ip = t.root_ip;
		y->root_reg = t.root_reg;
		memcpy(y->root_insn, t.root_insn, sizeof(y->root_insn));
	}
}

/* ---- one writer -------------------------------------------------------- */

/*
 * The root cause of @y: why register @g is unknown at state @q of @w,
 * followed on.  A chain through the same register (rsp through pushes and
 * pops, a counter through add) does not count against the depth.  Last
 * use of @w by the caller: it may be freed (a window beyond the chain).
 */
static void root_of(struct why_ctx *x, struct win *w, size_t q,
		    unsigned int g, struct rp_why *y, unsigned int depth)
{
	struct rp_why o;

	memset(&o, 0, sizeof(o));
	o.root_reg = -1;
	if (trace(x, w, q, g, ~w->st[q].r[g].k, &o, depth))
		return;
	y->root = o.root;
	y->root_mem = o.root_mem;
	y->root_at = o.root_at;
	y->root_ip = o.root_ip;
	y->root_reg = o.root_reg;
	y->depth = o.depth;
	memcpy(y->root_insn, o.root_insn, sizeof(y->root_insn));
}

static void set_root(struct rp_why *y)
{
	y->root = y->cause;
	y->root_at = y->at;
	y->root_ip = y->ip;
	memcpy(y->root_insn, y->insn, sizeof(y->root_insn));
}

/* The memory operand @in reads, with @pre: *@acc, and the register its
 * address needs that @pre does not know (-1 none).
 */
static int load_of(struct rp_recover *rc, const struct rcv_ins *in,
		   const struct rcv_state *pre, const struct rcv_state *post,
		   struct rcv_acc *acc)
{
	const struct rcv_op *m = NULL;
	int o;

	rcv_reads(&rc->ctx, in, pre, post, acc);
	if (in->id == X86_INS_POP || in->id == X86_INS_RET)
		return acc->addr_known ? -1 : RP_REG_RSP;
	if (in->id == X86_INS_LEAVE)
		return acc->addr_known ? -1 : RP_REG_RBP;
	for (o = 0; o < in->nops && o < 3; o++)
		if (in->op[o].type == RCV_OP_MEM) {
			m = &in->op[o];
			break;
		}
	if (!m)
		return -1;
	if (!acc->valid) {
		struct rcv_val ad = rcv_addr(&rc->ctx, in, m, pre);

		acc->valid = true;
		acc->addr_known = ad.k == ~0ull;
		acc->addr = ad.v;
		acc->size = m->size ? m->size : 8;
	}
	if (acc->addr_known)
		return -1;
	if (m->base >= 0 && m->base < 16 && pre->r[m->base].k != ~0ull)
		return m->base;
	if (m->index >= 0 && m->index < 16 && pre->r[m->index].k != ~0ull)
		return m->index;
	return -1;
}

/* Instruction @q of @w wrote bits @u of @g, and they are unknown after it:
 * 0 (or a negated enum rp_err) with @y filled, 1 when @g itself is the
 * operand unknown (rsp through a push).
 */
static int classify(struct why_ctx *x, struct win *w, size_t q,
		    unsigned int g, uint64_t u, struct rp_why *y,
		    unsigned int depth)
{
	struct rp_recover *rc = x->rc;
	const struct rcv_ins *in = &w->ins[q];
	const struct rcv_state *pre = &w->st[q];
	struct rcv_acc acc;
	uint64_t miss;
	int opreg = -1;

	y->at = w->first + q;
	name_at(x, y->at, &y->ip, y->insn);
	y->opreg = -1;
	if (in->flags & RCV_I_BARRIER) {
		y->cause = in->flags & RCV_I_UNPROVEN ? RP_WHY_UNPROVEN :
			   in->flags & RCV_I_SYSCALL ? RP_WHY_SYSCALL :
			   RP_WHY_TRANSFER;
		set_root(y);
		return 0;
	}
	if (in->flags & RCV_I_SYSCALL) {
		y->cause = RP_WHY_SYSCALL;
		set_root(y);
		return 0;
	}
	switch (in->id) {
	case X86_INS_RDTSC: case X86_INS_RDTSCP: case X86_INS_RDRAND:
	case X86_INS_RDSEED: case X86_INS_CPUID:
	case X86_INS_XGETBV: case X86_INS_RDPMC:
		y->cause = RP_WHY_INPUT;
		set_root(y);
		return 0;
	default:
		break;
	}
	if (g == RCV_FLAGS && (u & in->fw & undef_flags(in))) {
		y->cause = RP_WHY_UNDEFINED;
		set_root(y);
		return 0;
	}
	miss = u & ~probe(in, g, -1, true);
	if (miss) {
		y->cause = RP_WHY_UNMODELLED;
		set_root(y);
		return 0;
	}
	if (u & ~probe(in, g, -1, false)) {
		int ar = load_of(rc, in, pre, &w->st[q + 1], &acc);
		unsigned int b;
		uint8_t v;

		if (acc.valid && !acc.addr_known) {
			y->cause = RP_WHY_LOAD_ADDR;
			y->opreg = ar;
			opreg = ar;
		} else if (acc.valid) {
			y->cause = RP_WHY_LOAD_MEM;
			for (b = 0; b < acc.size && b < 16; b++)
				if (!rcv_mem_byte(w, q, acc.addr + b, &v))
					break;
			if (b < acc.size && b < 16) {
				mem_why(x, w, q, acc.addr + b, y, depth);
				pair_why(x, w, q, y, depth);
				return 0;
			}
			y->cause = 0;	/* memory known: a register then */
		}
	}
	if (!y->cause) {
		opreg = rcv_why_operand(in, pre, g, u);
		y->cause = opreg == -1 ? RP_WHY_ENGINE : RP_WHY_OPERANDS;
		y->opreg = opreg == RCV_FLAGS ? RP_REG_EFLAGS : opreg;
	}
	set_root(y);
	if (opreg == -2)
		y->root = RP_WHY_XMM;
	if (opreg == (int)g)
		return 1;	/* the same register: trace() goes on */
	if (opreg >= 0 && depth < WHY_DEPTH)
		root_of(x, w, q, (unsigned int)opreg, y, depth + 1);
	return 0;
}

/*
 * Bits @u of register @g (0-15, RCV_FLAGS) are unknown at state @i of
 * @w: why.
 */
static int trace(struct why_ctx *x, struct win *w, size_t i, unsigned int g,
		 uint64_t u, struct rp_why *y, unsigned int depth)
{
	struct rp_recover *rc = x->rc;
	struct rp_why t, *z = y;	/* after the first step: the root's */
	int err;

	y->depth = depth;
	for (;;) {
		int64_t q = walk(rc, w, i, g, u);
		struct win *e;
		bool far;

		if (q >= 0) {
			err = classify(x, w, (size_t)q, g, u, z, depth);
			if (err < 0)
				return err;
			if (z != y) {
				y->root = t.root;
				y->root_mem = t.root_mem;
				y->root_at = t.root_at;
				y->root_ip = t.root_ip;
				y->root_reg = t.root_reg;
				y->depth = t.depth;
				memcpy(y->root_insn, t.root_insn,
				       sizeof(y->root_insn));
			}
			if (!err)
				return 0;
			/* On with the same register from before it. */
			i = (size_t)q;
			u = ~w->st[q].r[g].k;
			memset(&t, 0, sizeof(t));
			t.root_reg = -1;
			z = &t;
			continue;
		}
		e = earlier_win(rc, w, &far, &err);
		if (!e) {
			if (err)
				return err;
			z->cause = far ? RP_WHY_FAR : RP_WHY_BEFORE;
			z->at = w->first;
			z->insn[0] = '\0';
			set_root(z);
			y->root_reg = (int)g;
			if (z != y) {
				y->root = z->root;
				y->root_at = z->at;
				y->root_ip = 0;
				y->root_insn[0] = '\0';
			}
			return 0;
		}
		if (e->st[e->n].r[g].k & u) {
			z->cause = RP_WHY_BOUNDARY;
			z->at = w->first;
			z->insn[0] = '\0';
			set_root(z);
			if (z != y) {
				y->root = z->root;
				y->root_at = z->at;
				y->root_ip = 0;
				y->root_insn[0] = '\0';
			}
			return 0;
		}
		w = e;
		i = e->n;
	}
}

/* eax after @in: its immediate when @in is mov $imm, %eax (glibc's system
 * call stubs), -1 when @in writes rax otherwise, else @nr.
 */
static int64_t rax_imm(const struct rcv_ins *in, int64_t nr)
{
	if (in->id == X86_INS_MOV && in->nops == 2 &&
	    in->op[0].type == RCV_OP_REG && in->op[0].reg == RP_REG_RAX &&
	    in->op[0].size >= 4 && in->op[1].type == RCV_OP_IMM &&
	    in->op[1].imm >= 0 && in->op[1].imm < 512)
		return in->op[1].imm;
	return in->wcode[RP_REG_RAX] || (in->flags & RCV_I_BARRIER) ? -1 : nr;
}

/*
 * The registers system call @nr reads: rax and its arguments (Linux
 * x86-64: rdi, rsi, rdx, r10, r8, r9), by its number of arguments; all six
 * for numbers not in the table.
 */
static uint16_t sys_reads(int64_t nr)
{
	static const struct {
		uint16_t nr;
		uint8_t args;
	} t[] = {
		{ 0, 3 }, { 1, 3 }, { 2, 3 }, { 3, 1 }, { 4, 2 }, { 5, 2 },
		{ 6, 2 }, { 8, 3 }, { 9, 6 }, { 10, 3 }, { 11, 2 }, { 12, 1 },
		{ 13, 4 }, { 14, 4 }, { 16, 3 }, { 17, 4 }, { 20, 3 },
		{ 24, 0 }, { 35, 2 }, { 39, 0 }, { 60, 1 }, { 62, 2 },
		{ 186, 0 }, { 200, 2 }, { 202, 6 }, { 218, 1 }, { 228, 2 },
		{ 231, 1 }, { 234, 3 }, { 257, 4 }, { 262, 4 }, { 273, 2 },
		{ 302, 4 }, { 318, 3 }, { 334, 4 },
	};
	static const uint16_t arg[6] = {
		1u << RP_REG_RDI, 1u << RP_REG_RSI, 1u << RP_REG_RDX,
		1u << RP_REG_R10, 1u << RP_REG_R8, 1u << RP_REG_R9,
	};
	uint16_t m = 1u << RP_REG_RAX;
	size_t k;
	unsigned int a, n = 6;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (t[k].nr == nr)
			n = t[k].args;
	for (a = 0; a < n; a++)
		m |= arg[a];
	return (uint16_t)(m | ~(1u << RP_REG_RAX | 1u << RP_REG_RDI |
				1u << RP_REG_RSI | 1u << RP_REG_RDX |
				1u << RP_REG_R10 | 1u << RP_REG_R8 |
				1u << RP_REG_R9));
}

/*
 * The first position of the history whose instruction may read register
 * @g (rcv_ins.gr), or UINT64_MAX: one walk of the history, the first time
 * it is asked.
 */
static uint64_t first_read(struct why_ctx *x, unsigned int g)
{
	struct rp_recover *rc = x->rc;
	struct rp_insn insn;
	struct rcv_ins in;
	uint16_t left = 0xffff;
	int64_t nr = -1;	/* eax's immediate, if set by mov */
	uint64_t p;
	int r;

	if (rc->why_read_done)
		return rc->why_read[g];
	rc->why_read_done = true;
	for (r = 0; r < 16; r++)
		rc->why_read[r] = UINT64_MAX;
	if (!x->cur && rp_cursor_new(rc->s, rc->tid, &x->cur))
		x->cur = NULL;
	for (p = 0; x->cur && left && p < rc->end; p++) {
		uint16_t m = left;	/* not decoded: it may read any */

		if (!rp_cursor_peek(x->cur, p, &insn)) {
			rcv_decode_insn(rc->dec, &insn, &in);
			m &= in.gr;
			if (in.id == X86_INS_SYSCALL && nr >= 0)
				m &= sys_reads(nr);
			nr = rax_imm(&in, nr);
		}
		left &= (uint16_t)~m;
		for (r = 0; r < 16; r++)
			if (m >> r & 1)
				rc->why_read[r] = p;
	}
	return rc->why_read[g];
}

/*
 * The first instruction from state @pos on that writes bits @u of @g or
 * is a barrier: what keeps the snapshot's value from reaching back.
 */
static void killer(struct why_ctx *x, uint64_t pos, unsigned int g,
		   uint64_t u, struct rp_why *y)
{
	struct rp_recover *rc = x->rc;
	uint64_t p = pos;
	int err;

	while (p < rc->end) {
		struct win *w = rcv_win_at(rc, p, &err);
		size_t q;

		if (!w)
			return;
		if (p == w->last && w->later)
			w = w->later;
		for (q = (size_t)(p - w->first); q < w->n; q++) {
			const struct rcv_ins *in = &w->ins[q];
			uint64_t wm = g < 16 ? rcv_wmask(in->wcode[g]) :
					       in->fw;

			if ((in->flags & RCV_I_BARRIER) || (wm & u)) {
				y->kill_at = w->first + q;
				name_at(x, y->kill_at, &y->kill_ip,
					y->kill_insn);
				return;
			}
		}
		if (w->last <= p)
			return;
		p = w->last;
	}
}

int rp_recover_why(struct rp_recover *rc, uint64_t pos, unsigned int reg,
		   struct rp_why *why)
{
	struct why_ctx x = { rc, NULL };
	unsigned int g;
	struct win *w;
	uint64_t u;
	int ret;

	memset(why, 0, sizeof(*why));
	why->opreg = -1;
	why->root_reg = -1;
	if (reg > RP_REG_EFLAGS || reg == RP_REG_RIP)
		return -RP_ERR_INVAL;
	if (pos >= rc->end)
		return pos == rc->end ? 0 : -RP_ERR_RANGE;
	g = reg == RP_REG_EFLAGS ? RCV_FLAGS : reg;
	w = rcv_win_at(rc, pos, &ret);
	if (!w)
		return ret;
	u = ~w->st[pos - w->first].r[g].k;
	if (!u)
		return 0;
	ret = trace(&x, w, (size_t)(pos - w->first), g, u, why, 0);
	if (!ret && why->cause == RP_WHY_BEFORE) {
		killer(&x, pos, g, u, why);
		if (g < 16 && why->kill_insn[0])
			why->unread = first_read(&x, g) >= why->kill_at;
	}
	rp_cursor_free(x.cur);
	return ret;
}

int rp_recover_why_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		       struct rp_why *why)
{
	struct why_ctx x = { rc, NULL };
	struct win *w;
	uint8_t b;
	int ret;

	memset(why, 0, sizeof(*why));
	why->opreg = -1;
	why->root_reg = -1;
	if (pos >= rc->end)
		return pos == rc->end ? 0 : -RP_ERR_RANGE;
	w = rcv_win_at(rc, pos, &ret);
	if (!w)
		return ret;
	if (rcv_mem_byte(w, pos - w->first, addr, &b))
		return 0;
	why->cause = RP_WHY_LOAD_MEM;
	mem_why(&x, w, (size_t)(pos - w->first), addr, why, 0);
	rp_cursor_free(x.cur);
	return 0;
}
