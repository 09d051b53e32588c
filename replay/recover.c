// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Values in the past (issue #17): registers and memory of a thread at any
 * position, recovered from its executed instructions and the end snapshot
 * as REPT does.  Work is lazy and bounded: a thread's history is cut into
 * windows of a fixed number of instructions aligned on its end, computed
 * from the end backward only as far as a question reaches.  In a window,
 * knowledge flows backward (inversion, from the snapshot or the later
 * window's first state) and forward (emulation, loads of known memory)
 * until nothing changes.  Memory at a position is what the nearest access
 * of that byte shows (a load's value, a store's value) with no possible
 * write between, else the snapshot when nothing may have written it up to
 * the end.  Anything not implied stays unknown: docs/values.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_internal.h"
#include "rp_internal.h"

#define RCV_BLOCK	16384	/* instructions per window */
#define RCV_CHAIN	16	/* windows chained back from the end */
#define RCV_PASSES	12	/* backward+forward passes at most */

/* Syscalls that write no user memory and leave all but rax/rcx/r11. */
static bool sys_quiet(uint64_t nr)
{
	switch (nr) {
	case 1: case 3: case 8: case 10: case 20: case 24: case 39:
	case 60: case 62: case 186: case 200: case 231: case 234:
	case 18:	/* pwrite64 */
	case 110:	/* getppid */
	case 102: case 104: case 107: case 108:	/* get[e]uid/gid */
	case 2: case 257: case 21: case 269:	/* open, openat, access */
	case 218: case 273:	/* set_tid_address, set_robust_list */
	case 11:		/* munmap: bytes gone, none changed */
		return true;
	default:
		return false;
	}
}

/* Syscalls after which no register is known (the kernel sets them all). */
static bool sys_resets(uint64_t nr)
{
	return nr == 15 || nr == 59 || nr == 322;
}

struct ent {
	uint64_t word;		/* address >> 3 */
	uint32_t pos;		/* instruction in the window */
};

struct win {
	uint64_t first, last;	/* states first..last */
	size_t n;		/* instructions: last - first */
	struct rcv_ins *ins;
	struct rcv_state *st;
	bool top_end;		/* last is the thread's end (snapshot) */
	struct win *later;	/* the window after it, or NULL */
	uint8_t *mbar;		/* i may write memory we cannot name */
	uint32_t *nb;		/* first barrier >= i (n: none) */
	int64_t *pb;		/* last barrier < i (-1: none) */
	struct ent *idx;
	size_t nidx, idx_cap;
	struct rcv_frame *fr;	/* rsp/rbp as class + offset */
	int64_t *pair;		/* pop -> its push */
	struct rcv_val *base;	/* per class: its base, when known */
	struct rcv_val *base0;	/* bases the later window shows */
	struct rcv_val *xpair;	/* push i: the value its later pop read */
	size_t nclass;
	struct rp_recover *rc;
};

struct rp_recover {
	struct rp_session *s;
	struct rp_snapshot *sn;
	uint32_t tid, pid;
	uint64_t end, count;
	struct rp_regs end_regs;
	bool snap_ok;		/* the snapshot shows this thread's end */
	bool mt;		/* other threads share its memory */
	uint64_t stack_lo, stack_hi;	/* its stack mapping (mt) */
	uint64_t tls_lo, tls_hi;	/* around fs_base: never private */
	struct rcv_dec *dec;
	struct rcv_ctx ctx;
	struct win *chain[RCV_CHAIN];	/* [0] ends at the end */
	struct win *far;		/* one window beyond the chain */
	uint64_t block;
	/* a page of snapshot memory */
	uint64_t page;
	size_t page_len;
	bool page_valid;
	uint8_t page_buf[4096];
	struct rp_recover_stats stats;
};

/* ---- memory knowledge ---------------------------------------------------- */

/* Is @a memory this thread alone writes, as far as the snapshot tells? */
static bool private_mem(struct rp_recover *rc, uint64_t a)
{
	struct rp_snap_map_info mi;
	size_t i;

	if (rc->mt && !(rc->stack_lo <= a && a < rc->stack_hi))
		return false;
	/* The thread's control block: the kernel writes its rseq area (the
	 * CPU it runs on) whenever it likes.
	 */
	if (rc->tls_lo <= a && a < rc->tls_hi)
		return false;
	if (!rc->sn)
		return !rc->mt;
	for (i = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, i, &mi); i++)
		if (mi.start <= a && a < mi.end)
			return !(mi.prot & 8) && strncmp(mi.path, "[vvar", 5);
	return !rc->mt;
}

static bool snap_byte(struct rp_recover *rc, uint64_t a, uint8_t *b)
{
	uint64_t page = a & ~4095ull;

	if (!rc->snap_ok)
		return false;
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

static int ent_cmp(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;

	if (a->word != b->word)
		return a->word < b->word ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static bool mem_byte(struct win *w, uint64_t i, uint64_t a, uint8_t *out);

/* Byte @a of access @x, if it covers it and its value is known. */
static int acc_byte(const struct rcv_acc *x, uint64_t a, uint8_t *out)
{
	unsigned int sh;

	if (!x->valid || !x->addr_known || a - x->addr >= x->size)
		return -1;	/* does not cover */
	if (x->size > 8)
		return 0;
	sh = (unsigned int)(a - x->addr) * 8;
	if ((x->val.k >> sh & 0xff) != 0xff)
		return 0;	/* covers, value unknown */
	*out = (uint8_t)(x->val.v >> sh);
	return 1;
}

/*
 * The user memory system call @i writes, by its number and arguments
 * (Linux x86-64): 1 when it writes [*addr, *addr + *len) alone, 0 when it
 * writes none, -1 when not known (a barrier).
 */
static const struct {
	uint16_t nr;
	int8_t ptr, lenreg;	/* argument registers (enum rp_reg), -1 */
	uint16_t len;		/* fixed size when lenreg < 0 */
	bool optional;		/* a NULL pointer writes nothing */
} sys_out[] = {
	{ 0, RP_REG_RSI, RP_REG_RDX, 0, false },	/* read */
	{ 17, RP_REG_RSI, RP_REG_RDX, 0, false },	/* pread64 */
	{ 4, RP_REG_RSI, -1, 144, false },		/* stat */
	{ 5, RP_REG_RSI, -1, 144, false },		/* fstat */
	{ 6, RP_REG_RSI, -1, 144, false },		/* lstat */
	{ 262, RP_REG_RDX, -1, 144, false },		/* newfstatat */
	{ 228, RP_REG_RSI, -1, 16, false },		/* clock_gettime */
	{ 318, RP_REG_RDI, RP_REG_RSI, 0, false },	/* getrandom */
	{ 14, RP_REG_RDX, -1, 128, true },		/* rt_sigprocmask */
	{ 13, RP_REG_RDX, -1, 160, true },		/* rt_sigaction */
	{ 35, RP_REG_RSI, -1, 16, true },		/* nanosleep */
	{ 97, RP_REG_RSI, -1, 16, false },		/* getrlimit */
	{ 89, RP_REG_RSI, RP_REG_RDX, 0, false },	/* readlink */
	{ 79, RP_REG_RDI, RP_REG_RSI, 0, false },	/* getcwd */
};

static int sys_write(struct win *w, size_t i, uint64_t *addr, uint64_t *len)
{
	const struct rcv_state *s = &w->st[i];
	uint64_t nr = s->r[RP_REG_RAX].v;
	size_t k;

	if (s->r[RP_REG_RAX].k != ~0ull)
		return -1;
	if (sys_quiet(nr))
		return 0;
	/* ioctl(fd, TCGETS, termios *) */
	if (nr == 16 && s->r[RP_REG_RSI].k == ~0ull &&
	    s->r[RP_REG_RSI].v == 0x5401 && s->r[RP_REG_RDX].k == ~0ull) {
		*addr = s->r[RP_REG_RDX].v;
		*len = 64;
		return 1;
	}
	for (k = 0; k < sizeof(sys_out) / sizeof(sys_out[0]); k++) {
		if (sys_out[k].nr != nr)
			continue;
		if (s->r[sys_out[k].ptr].k != ~0ull)
			return -1;
		*addr = s->r[sys_out[k].ptr].v;
		if (!*addr && sys_out[k].optional)
			return 0;
		if (sys_out[k].lenreg < 0) {
			*len = sys_out[k].len;
		} else {
			if (s->r[sys_out[k].lenreg].k != ~0ull ||
			    s->r[sys_out[k].lenreg].v > 65536)
				return -1;
			*len = s->r[sys_out[k].lenreg].v;
		}
		return 1;
	}
	return -1;
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

/* Rebuilds the access index and barriers from what the states know now. */
static int build_index(struct win *w)
{
	struct rcv_ctx *c = &w->rc->ctx;
	struct rcv_acc rd, wr;
	uint64_t sa, sl;
	size_t i;
	int ret;

	w->nidx = 0;
	for (i = 0; i < w->n; i++) {
		struct rcv_ins *in = &w->ins[i];
		bool bar = in->flags & (RCV_I_BARRIER | RCV_I_MEMBAR);

		if (in->flags & RCV_I_SYSCALL) {
			uint64_t nr = w->st[i].r[RP_REG_RAX].v;
			bool known = w->st[i].r[RP_REG_RAX].k == ~0ull;

			/* Registers: only a known, ordinary syscall lets
			 * knowledge pass.  Once known, always known.
			 */
			if (known && !sys_resets(nr))
				in->flags &= ~RCV_I_BARRIER;
			else
				in->flags |= RCV_I_BARRIER;
			if (in->flags & RCV_I_BARRIER) {
				bar = true;
			} else {
				int e = sys_write(w, i, &sa, &sl);

				if (e < 0)
					bar = true;
				else if (e > 0 && (ret = add_ent(w, sa, sl, i)))
					return ret;
			}
		}
		if (!bar) {
			rcv_reads(c, in, &w->st[i], &w->st[i + 1], &rd);
			rcv_writes(c, in, &w->st[i], &w->st[i + 1], &wr);
			if (wr.valid && !wr.addr_known)
				bar = true;
			if (rd.valid && rd.addr_known) {
				ret = add_ent(w, rd.addr, rd.size, i);
				if (ret)
					return ret;
			}
			if (wr.valid && wr.addr_known) {
				ret = add_ent(w, wr.addr, wr.size, i);
				if (ret)
					return ret;
			}
		}
		w->mbar[i] = bar;
	}
	if (w->nidx)	/* qsort's array may not be NULL, even empty */
		qsort(w->idx, w->nidx, sizeof(*w->idx), ent_cmp);
	w->pb[0] = -1;
	for (i = 0; i < w->n; i++)
		w->pb[i + 1] = w->mbar[i] ? (int64_t)i : w->pb[i];
	w->nb[w->n] = (uint32_t)w->n;
	for (i = w->n; i-- > 0;)
		w->nb[i] = w->mbar[i] ? (uint32_t)i : w->nb[i + 1];
	return 0;
}

/* First index entry at or after (word, pos). */
static size_t lower(const struct win *w, uint64_t word, uint64_t pos)
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

/*
 * Byte @a of memory before instruction @i of @w (state i).  Forward: the
 * first access at or after i, if a load with a known value; reaching the
 * end of the window with no possible write, the snapshot or the later
 * window.  Backward: the last access before i, a store or load with a
 * known value.  Any barrier between stops it.
 */
static bool mem_byte(struct win *w, uint64_t i, uint64_t a, uint8_t *out)
{
	struct rcv_ctx *c = &w->rc->ctx;
	struct rcv_acc x;
	uint64_t word = a >> 3, sa, sl;
	size_t k, j;
	int r;

	if (!private_mem(w->rc, a)) {
		/* Shared: only what instruction i itself loads. */
		if (i >= w->n)
			return false;
		rcv_reads(c, &w->ins[i], &w->st[i], &w->st[i + 1], &x);
		return acc_byte(&x, a, out) == 1;
	}
	k = lower(w, word, i);
	for (j = k; j < w->nidx && w->idx[j].word == word &&
	     w->idx[j].pos < w->nb[i]; j++) {
		size_t q = w->idx[j].pos;

		rcv_reads(c, &w->ins[q], &w->st[q], &w->st[q + 1], &x);
		r = acc_byte(&x, a, out);
		if (r == 1)
			return true;
		rcv_writes(c, &w->ins[q], &w->st[q], &w->st[q + 1], &x);
		if (acc_byte(&x, a, out) >= 0)
			goto backward;
		if ((w->ins[q].flags & RCV_I_SYSCALL) &&
		    sys_write(w, q, &sa, &sl) > 0 && a - sa < sl)
			goto backward;
	}
	if (w->nb[i] == w->n) {
		if (w->top_end) {
			if (snap_byte(w->rc, a, out))
				return true;
		} else if (w->later && mem_byte(w->later, 0, a, out)) {
			return true;
		}
	}
backward:
	for (j = k; j-- > 0 && w->idx[j].word == word &&
	     (int64_t)w->idx[j].pos > w->pb[i];) {
		size_t q = w->idx[j].pos;

		if ((w->ins[q].flags & RCV_I_SYSCALL) &&
		    sys_write(w, q, &sa, &sl) > 0 && a - sa < sl)
			return false;
		rcv_writes(c, &w->ins[q], &w->st[q], &w->st[q + 1], &x);
		r = acc_byte(&x, a, out);
		if (r == 1)
			return true;
		if (r == 0)
			return false;
		rcv_reads(c, &w->ins[q], &w->st[q], &w->st[q + 1], &x);
		if (acc_byte(&x, a, out) == 1)
			return true;
	}
	return false;
}

struct mctx {
	struct win *w;
};

static struct rcv_val mem_cb(void *ctx, uint64_t i, uint64_t addr,
			     unsigned int size)
{
	struct win *w = ctx;
	struct rcv_val r = { 0, 0 };
	unsigned int b;
	uint8_t v;

	for (b = 0; b < size && b < 8; b++)
		if (mem_byte(w, i, addr + b, &v)) {
			r.v |= (uint64_t)v << (8 * b);
			r.k |= 0xffull << (8 * b);
		}
	return r;
}

/* ---- windows ----------------------------------------------------------- */

static void win_free(struct win *w)
{
	if (!w)
		return;
	free(w->ins);
	free(w->st);
	free(w->mbar);
	free(w->nb);
	free(w->pb);
	free(w->idx);
	free(w->fr);
	free(w->pair);
	free(w->base);
	free(w->base0);
	free(w->xpair);
	free(w);
}

/* Did the trace go where instruction @in allows?  @ret is the address the
 * matching call in the window returns to, or 0.
 */
static bool expected(const struct rcv_ins *in, uint64_t next, uint64_t ret)
{
	uint64_t fall = in->ip + in->len;

	if (in->flags & RCV_I_BARRIER)
		return false;	/* undecodable */
	switch (in->iclass) {
	case RP_IC_OTHER:
		return next == fall;
	case RP_IC_FAR:
		return (in->flags & RCV_I_SYSCALL) && next == fall;
	case RP_IC_COND:
		return in->op[0].type == RCV_OP_IMM &&
		       (next == fall || next == (uint64_t)in->op[0].imm);
	case RP_IC_JUMP:
	case RP_IC_CALL:
		if (in->nops == 1 && in->op[0].type == RCV_OP_IMM)
			return next == (uint64_t)in->op[0].imm;
		return true;	/* indirect: docs/values.md, limits */
	case RP_IC_RETURN:
		return !ret || next == ret;
	default:
		return false;
	}
}

/*
 * Stack frames of @w built over its instructions and the later window's,
 * so that a push here and its pop there, and rsp and rbp known there,
 * count here: the later window's values are final.  Fills w->fr, w->pair
 * (pairs within @w), w->xpair (pushes here whose pop is there, with the
 * popped value) and w->base0 (class bases the later window shows).
 * Returns the number of classes or -RP_ERR_NOMEM.
 */
static int frames_across(struct win *w)
{
	const struct win *l = w->later;
	size_t m = w->n + l->n, i;
	struct rcv_frame *f = malloc((m + 1) * sizeof(*f));
	struct rcv_ins *ins = malloc((m + 1) * sizeof(*ins));
	int64_t *pair = malloc((m + 1) * sizeof(*pair));
	int nc = -RP_ERR_NOMEM;

	if (!f || !ins || !pair)
		goto out;
	if (w->n)
		memcpy(ins, w->ins, w->n * sizeof(*ins));
	if (l->n)
		memcpy(ins + w->n, l->ins, l->n * sizeof(*ins));
	nc = rcv_stack_build(ins, m, f, pair);
	if (nc <= 0)
		goto out;
	memcpy(w->fr, f, (w->n + 1) * sizeof(*f));
	if (w->n)
		memcpy(w->pair, pair, w->n * sizeof(*pair));
	w->base0 = calloc((size_t)nc, sizeof(*w->base0));
	w->xpair = calloc(w->n + 1, sizeof(*w->xpair));
	if (!w->base0 || !w->xpair) {
		nc = -RP_ERR_NOMEM;
		goto out;
	}
	for (i = w->n; i <= m; i++) {
		const struct rcv_state *s = &l->st[i - w->n];

		if (s->r[RP_REG_RSP].k == ~0ull && !w->base0[f[i].rsp_c].k)
			w->base0[f[i].rsp_c] = (struct rcv_val){
				s->r[RP_REG_RSP].v - (uint64_t)f[i].rsp_o,
				~0ull };
		if (f[i].rbp_c && s->r[RP_REG_RBP].k == ~0ull &&
		    !w->base0[f[i].rbp_c].k)
			w->base0[f[i].rbp_c] = (struct rcv_val){
				s->r[RP_REG_RBP].v - (uint64_t)f[i].rbp_o,
				~0ull };
		/* A pop there of a push here: the pushed register's value. */
		if (i < m && pair[i] >= 0 && (size_t)pair[i] < w->n) {
			const struct rcv_ins *q = &ins[i];
			int dst = q->id == X86_INS_LEAVE ? RP_REG_RBP :
							   q->op[0].reg;

			w->xpair[pair[i]] = l->st[i - w->n + 1].r[dst];
		}
	}
out:
	free(f);
	free(ins);
	free(pair);
	return nc;
}

static int win_load(struct rp_recover *rc, struct win *w)
{
	struct rp_cursor *c = NULL;
	struct rp_insn insn;
	uint64_t *calls = NULL, ncalls = 0, p;
	struct rp_gap gap;
	size_t i;
	int ret;

	ret = rp_cursor_new(rc->s, rc->tid, &c);
	if (ret)
		return ret;
	calls = malloc((w->n + 1) * sizeof(*calls));
	if (!calls) {
		rp_cursor_free(c);
		return -RP_ERR_NOMEM;
	}
	for (i = 0; i < w->n; i++) {
		struct rcv_ins *in = &w->ins[i];

		ret = rp_cursor_peek(c, w->first + i, &insn);
		if (ret)
			goto out;
		rcv_decode(rc->dec, insn.ip, insn.raw, insn.size, insn.iclass,
			   in);
	}
	for (i = 0; i < w->n; i++) {
		struct rcv_ins *in = &w->ins[i];
		uint64_t ret_to = 0;

		p = w->first + i + 1;
		if (i + 1 < w->n)
			in->next = w->ins[i + 1].ip;
		else if (p < rc->count && !rp_cursor_peek(c, p, &insn))
			in->next = insn.ip;
		else if (rc->end_regs.valid & (1ull << RP_REG_RIP))
			in->next = rc->end_regs.val[RP_REG_RIP];
		else
			in->next = 0;
		if (in->iclass == RP_IC_CALL)
			calls[ncalls++] = in->ip + in->len;
		else if (in->iclass == RP_IC_RETURN && ncalls)
			ret_to = calls[--ncalls];
		if (!in->next || !expected(in, in->next, ret_to)) {
			in->flags |= RCV_I_BARRIER | RCV_I_MEMBAR;
			ncalls = 0;
			rc->stats.async++;
			if (getenv("PTREC_RCV_DEBUG"))
				fprintf(stderr, "recover: transfer at %"
					PRIu64 " %#" PRIx64 " class %u -> %#"
					PRIx64 "\n", w->first + i, in->ip,
					in->iclass, in->next);
		}
	}
	for (i = 0; !rp_thread_gap(rc->s, rc->tid, i, &gap); i++)
		if (gap.before > w->first && gap.before <= w->last)
			w->ins[gap.before - 1 - w->first].flags |=
				RCV_I_BARRIER | RCV_I_MEMBAR;
	ret = w->later ? frames_across(w) :
			 rcv_stack_build(w->ins, w->n, w->fr, w->pair);
	if (ret > 0) {
		w->nclass = (size_t)ret;
		w->base = calloc(w->nclass, sizeof(*w->base));
		if (!w->base0)
			w->base0 = calloc(w->nclass, sizeof(*w->base0));
		ret = w->base && w->base0 ? 0 : -RP_ERR_NOMEM;
	}
out:
	free(calls);
	rp_cursor_free(c);
	return ret;
}

static void top_state(struct rp_recover *rc, struct win *w)
{
	struct rcv_state *t = &w->st[w->n];
	int g;

	if (w->later) {
		*t = w->later->st[0];
		return;
	}
	if (!w->top_end)
		return;
	for (g = 0; g < 16; g++)
		if (rc->end_regs.valid & (1ull << g))
			t->r[g] = (struct rcv_val){ rc->end_regs.val[g],
						    ~0ull };
	if (rc->end_regs.valid & (1ull << RP_REG_EFLAGS))
		t->r[RCV_FLAGS] = (struct rcv_val){
			rc->end_regs.val[RP_REG_EFLAGS], ~0ull };
}

/*
 * Knowledge across positions (rcv_stack.c): rsp and rbp of one class
 * differ by their offsets; a pop reads back what its push wrote.
 */
static bool link_frames(struct rp_recover *rc, struct win *w)
{
	uint64_t *conf = &rc->stats.conflicts;
	bool ch = false;
	size_t i;

	if (w->nclass)
		memcpy(w->base, w->base0, w->nclass * sizeof(*w->base));
	for (i = 0; i <= w->n; i++) {
		const struct rcv_frame *f = &w->fr[i];
		const struct rcv_state *s = &w->st[i];

		if (s->r[RP_REG_RSP].k == ~0ull && !w->base[f->rsp_c].k)
			w->base[f->rsp_c] = (struct rcv_val){
				s->r[RP_REG_RSP].v - (uint64_t)f->rsp_o,
				~0ull };
		if (f->rbp_c && s->r[RP_REG_RBP].k == ~0ull &&
		    !w->base[f->rbp_c].k)
			w->base[f->rbp_c] = (struct rcv_val){
				s->r[RP_REG_RBP].v - (uint64_t)f->rbp_o,
				~0ull };
	}
	for (i = 0; i <= w->n; i++) {
		const struct rcv_frame *f = &w->fr[i];
		struct rcv_state *s = &w->st[i];
		struct rcv_val b = w->base[f->rsp_c], x;

		x = (struct rcv_val){ b.v + (uint64_t)f->rsp_o, ~0ull };
		if (b.k)
			ch |= rcv_merge(&s->r[RP_REG_RSP], x, conf);
		b = f->rbp_c ? w->base[f->rbp_c] : (struct rcv_val){ 0, 0 };
		x = (struct rcv_val){ b.v + (uint64_t)f->rbp_o, ~0ull };
		if (b.k)
			ch |= rcv_merge(&s->r[RP_REG_RBP], x, conf);
	}
	for (i = 0; w->xpair && i < w->n; i++) {
		const struct rcv_ins *p = &w->ins[i];

		/* A push here whose pop is in the later window. */
		if (w->xpair[i].k && p->op[0].type == RCV_OP_REG &&
		    p->op[0].reg != RP_REG_RSP)
			ch |= rcv_merge(&w->st[i].r[p->op[0].reg], w->xpair[i],
					conf);
	}
	for (i = 0; i < w->n; i++) {
		const struct rcv_ins *q = &w->ins[i], *p;
		struct rcv_val pushed;
		int dst;

		if (w->pair[i] < 0)
			continue;
		p = &w->ins[w->pair[i]];
		dst = q->id == X86_INS_LEAVE ? RP_REG_RBP : q->op[0].reg;
		if (p->op[0].type == RCV_OP_IMM) {
			pushed = (struct rcv_val){ (uint64_t)p->op[0].imm,
						   ~0ull };
		} else if (p->op[0].type == RCV_OP_REG) {
			pushed = w->st[w->pair[i]].r[p->op[0].reg];
			if (p->op[0].reg != RP_REG_RSP)
				ch |= rcv_merge(
					&w->st[w->pair[i]].r[p->op[0].reg],
					w->st[i + 1].r[dst], conf);
		} else {
			continue;
		}
		ch |= rcv_merge(&w->st[i + 1].r[dst], pushed, conf);
	}
	return ch;
}

static int win_compute(struct rp_recover *rc, struct win *w)
{
	struct rcv_ctx *c = &rc->ctx;
	int pass, ret;
	size_t i;

	top_state(rc, w);
	c->mctx = w;
	for (pass = 0; pass < RCV_PASSES; pass++) {
		bool ch = false;

		ret = build_index(w);
		if (ret)
			return ret;
		for (i = w->n; i-- > 0;)
			ch |= rcv_backward(c, i, &w->ins[i], &w->st[i],
					   &w->st[i + 1],
					   &rc->stats.conflicts);
		for (i = 0; i < w->n; i++)
			ch |= rcv_forward(c, i, &w->ins[i], &w->st[i],
					  &w->st[i + 1],
					  &rc->stats.conflicts);
		ch |= link_frames(rc, w);
		rc->stats.passes++;
		if (!ch)
			break;
	}
	/* The index the queries use must match the final states. */
	return build_index(w);
}

static int win_new(struct rp_recover *rc, uint64_t first, uint64_t last,
		   struct win *later, struct win **wp)
{
	struct win *w = calloc(1, sizeof(*w));
	size_t n = last - first;
	int ret;

	*wp = NULL;
	if (!w)
		return -RP_ERR_NOMEM;
	w->first = first;
	w->last = last;
	w->n = n;
	w->rc = rc;
	w->later = later;
	w->top_end = !later && last == rc->end;
	w->ins = calloc(n + 1, sizeof(*w->ins));
	w->st = calloc(n + 1, sizeof(*w->st));
	w->mbar = calloc(n + 1, 1);
	w->nb = calloc(n + 1, sizeof(*w->nb));
	w->pb = calloc(n + 1, sizeof(*w->pb));
	w->fr = calloc(n + 1, sizeof(*w->fr));
	w->pair = calloc(n + 1, sizeof(*w->pair));
	if (!w->ins || !w->st || !w->mbar || !w->nb || !w->pb || !w->fr ||
	    !w->pair) {
		win_free(w);
		return -RP_ERR_NOMEM;
	}
	ret = win_load(rc, w);
	if (!ret)
		ret = win_compute(rc, w);
	if (ret) {
		win_free(w);
		return ret;
	}
	rc->stats.windows++;
	rc->stats.insns += n;
	*wp = w;
	return 0;
}

/* The window that holds position @pos (computing it and those after it
 * up to the end), or NULL with *@err set.
 */
static struct win *win_at(struct rp_recover *rc, uint64_t pos, int *err)
{
	uint64_t k = (rc->end - pos) / rc->block, first, last;
	size_t j;

	*err = 0;
	if (k < RCV_CHAIN) {
		for (j = 0; j <= k; j++) {
			if (rc->chain[j])
				continue;
			last = rc->end - j * rc->block;
			first = last > rc->block ? last - rc->block : 0;
			*err = win_new(rc, first, last,
				       j ? rc->chain[j - 1] : NULL,
				       &rc->chain[j]);
			if (*err)
				return NULL;
		}
		return rc->chain[k];
	}
	/* Too far from the end to chain: a window on its own. */
	if (rc->far && rc->far->first <= pos && pos <= rc->far->last)
		return rc->far;
	win_free(rc->far);
	rc->far = NULL;
	first = pos > rc->block / 2 ? pos - rc->block / 2 : 0;
	last = first + rc->block < rc->end ? first + rc->block : rc->end;
	*err = win_new(rc, first, last, NULL, &rc->far);
	return rc->far;
}

/* ---- the public interface ---------------------------------------------- */

int rp_recover_new(struct rp_session *s, uint32_t tid,
		   struct rp_recover **rcp)
{
	struct rp_recover *rc = calloc(1, sizeof(*rc));
	struct rp_snap_thread_info ti;
	struct rp_snap_map_info mi;
	struct rp_thread_info info, o;
	size_t i;
	int ret;

	*rcp = NULL;
	if (!rc)
		return -RP_ERR_NOMEM;
	rc->s = s;
	rc->tid = tid;
	rc->block = RCV_BLOCK;
	ret = rp_thread_info(s, tid, &info);
	if (!ret)
		ret = rp_thread_end(s, tid, &rc->end, &rc->end_regs);
	if (!ret)
		ret = rcv_dec_new(&rc->dec);
	if (ret) {
		rp_recover_free(rc);
		return ret;
	}
	rc->pid = info.pid;
	rc->count = info.insns;
	/* Around the thread pointer (struct pthread, its rseq area): when
	 * fs_base is not known, a guess far from any data.
	 */
	if (rc->end_regs.valid & (1ull << RP_REG_FS_BASE)) {
		uint64_t fs = rc->end_regs.val[RP_REG_FS_BASE];

		rc->tls_lo = fs > 16384 ? fs - 16384 : 0;
		rc->tls_hi = fs + 16384;
	}
	for (i = 0; i < rp_thread_count(s); i++)
		if (rp_thread_tid(s, i) != tid &&
		    !rp_thread_info(s, rp_thread_tid(s, i), &o) &&
		    o.pid == info.pid)
			rc->mt = true;
	if (rp_snapshot_open(&rc->sn, s->dir)) {
		rp_snapshot_close(rc->sn);
		rc->sn = NULL;
	} else if (!rp_snapshot_thread(rc->sn, tid, &ti) &&
		   ti.pid == info.pid) {
		/* The snapshot was taken at this thread's end (it is in
		 * it); its stack is the mapping its stack pointer is in.
		 */
		rc->snap_ok = true;
		for (i = 0; !rp_snapshot_proc_map(rc->sn, rc->pid, i, &mi);
		     i++)
			if (mi.start <= ti.regs[RP_REG_RSP] &&
			    ti.regs[RP_REG_RSP] < mi.end) {
				rc->stack_lo = mi.start;
				rc->stack_hi = mi.end;
			}
	}
	rc->ctx.mem = mem_cb;
	*rcp = rc;
	return 0;
}

void rp_recover_free(struct rp_recover *rc)
{
	size_t i;

	if (!rc)
		return;
	for (i = 0; i < RCV_CHAIN; i++)
		win_free(rc->chain[i]);
	win_free(rc->far);
	rp_snapshot_close(rc->sn);
	rcv_dec_free(rc->dec);
	free(rc);
}

void rp_recover_set_block(struct rp_recover *rc, uint64_t block)
{
	size_t i;

	if (!block)
		block = RCV_BLOCK;
	if (block == rc->block)
		return;
	for (i = 0; i < RCV_CHAIN; i++) {
		win_free(rc->chain[i]);
		rc->chain[i] = NULL;
	}
	win_free(rc->far);
	rc->far = NULL;
	rc->block = block;
}

int rp_recover_regs(struct rp_recover *rc, uint64_t pos, struct rp_regs *regs)
{
	struct rcv_state *s;
	struct rp_insn insn;
	struct rp_cursor *c;
	struct win *w;
	int g, ret;

	memset(regs, 0, sizeof(*regs));
	if (pos > rc->end)
		return -RP_ERR_RANGE;
	if (pos == rc->end) {
		*regs = rc->end_regs;
		return 0;
	}
	w = win_at(rc, pos, &ret);
	if (!w)
		return ret;
	s = &w->st[pos - w->first];
	for (g = 0; g < 16; g++)
		if (s->r[g].k == ~0ull) {
			regs->valid |= 1ull << g;
			regs->val[g] = s->r[g].v;
		}
	if (s->r[RCV_FLAGS].k == ~0ull) {
		regs->valid |= 1ull << RP_REG_EFLAGS;
		regs->val[RP_REG_EFLAGS] = s->r[RCV_FLAGS].v;
	}
	ret = rp_cursor_new(rc->s, rc->tid, &c);
	if (ret)
		return ret;
	if (!rp_cursor_peek(c, pos, &insn)) {
		regs->valid |= 1ull << RP_REG_RIP;
		regs->val[RP_REG_RIP] = insn.ip;
	}
	rp_cursor_free(c);
	return 0;
}

int rp_recover_reg_bits(struct rp_recover *rc, uint64_t pos, unsigned int reg,
			uint64_t *val, uint64_t *known)
{
	struct win *w;
	int ret;

	*val = *known = 0;
	if (reg > RP_REG_EFLAGS || reg == RP_REG_RIP)
		return -RP_ERR_INVAL;
	if (pos > rc->end)
		return -RP_ERR_RANGE;
	w = win_at(rc, pos == rc->end && pos ? pos - 1 : pos, &ret);
	if (!w)
		return ret;
	if (pos > w->last)
		return -RP_ERR_RANGE;
	ret = reg == RP_REG_EFLAGS ? RCV_FLAGS : (int)reg;
	*val = w->st[pos - w->first].r[ret].v;
	*known = w->st[pos - w->first].r[ret].k;
	return 0;
}

size_t rp_recover_mem(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		      void *buf, size_t len)
{
	struct win *w;
	size_t i;
	int err;

	if (pos > rc->end)
		return 0;
	if (pos == rc->end) {
		/* At the end, the snapshot itself (where this thread's end
		 * is the snapshot's).
		 */
		for (i = 0; i < len; i++)
			if (!snap_byte(rc, addr + i, (uint8_t *)buf + i))
				break;
		return i;
	}
	w = win_at(rc, pos, &err);
	if (!w)
		return 0;
	rc->ctx.mctx = w;
	for (i = 0; i < len; i++)
		if (!mem_byte(w, pos - w->first, addr + i, (uint8_t *)buf + i))
			break;
	return i;
}

void rp_recover_stats(const struct rp_recover *rc,
		      struct rp_recover_stats *st)
{
	*st = rc->stats;
}

/* ---- the memory an instruction touches (watchpoints, #18) -------------- */

int rp_recover_accesses(struct rp_recover *rc, uint64_t pos,
			struct rp_access *acc, size_t max)
{
	struct rcv_where at = { 0 };
	struct win *w;
	size_t i;
	int err;

	if (pos >= rc->end)
		return -RP_ERR_RANGE;
	w = win_at(rc, pos, &err);
	if (!w)
		return err;
	if (pos < w->first || pos >= w->last)
		return -RP_ERR_RANGE;
	i = pos - w->first;
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
		at.sys = sys_write(w, i, &at.sys_addr, &at.sys_len);
	return rcv_accesses(&rc->ctx, &at, acc, max);
}
