// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which values of a window the trace can inform (issue #18): a
 * dependency analysis beside watch_proof.c's pass, so that a far window
 * with conditional branches can still call an access secret when
 * nothing the trace shows depends on the base of its address.
 *
 * The trace shows values through a conditional branch (the flags it
 * tests, rcx for jrcxz and loop), an indirect call or jump (its
 * target), a return (the word it pops) and a system call (here: every
 * register).  Each of the pass's bases (roots) gets the roots it was
 * made from as parents: a value an instruction computes depends on the
 * registers it reads as values (not those only used to address memory:
 * a value loaded tells nothing of where it lay, which is the engine's
 * rule too), on the flags when it may read them, on the vector state,
 * and on what it loads.  A loaded word depends on what stores relative
 * to the same base left (the engine pairs such slots with the base
 * unknown), and, once the engine may know both addresses (their bases
 * informed, or not bases of a secret kind at all), on what any earlier
 * store left: the fixpoint in wdep_informed().  A base is informed when
 * a shown value depends on it (wdep_informed_any(), for write
 * watchpoints; watch_know.c's wdep_informed() follows what the engine
 * can learn through each operation, for loads); an access relative to a
 * register at the window's start, or to a word read through such a
 * base, whose base is not informed cannot be known to the engine
 * computing the window on its own (watch_fix.c's secret_roots()).
 *
 * What is not followed (a cut: a signal or a gap, an instruction
 * capstone could not read, a barrier, rep string instructions, stores
 * of unnamed memory) keeps the window loud, as before.  A value of
 * unknown origin that the trace shows informs everything (pass->all).
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "watch_pass.h"

static bool grow(struct pass *p, void **v, size_t *cap, size_t n,
		 size_t size)
{
	if (wpf_grow(v, cap, n, size, 256))
		return true;
	p->nomem = true;
	return false;
}

/* Root @r's parent @par (a value of unknown origin: everything). */
void wdep_edge(struct pass *p, int32_t r, int32_t par)
{
	if (r <= 0 || par == 0 || r == par)
		return;
	if (par < 0)
		par = WDEP_ALL;
	if (p->nde >= p->de_cap &&
	    !grow(p, (void **)&p->de, &p->de_cap, p->nde, sizeof(*p->de)))
		return;
	p->de[p->nde] = (struct wdep_e){ par, p->root[r].dhead, r };
	p->root[r].dhead = (int32_t)++p->nde;
}

void wdep_yes(struct pass *p, int32_t r)
{
	if (r <= 0 || !p->deps)
		return;
	p->root[r].fwd = WDEP_FWD_YES;
	if (grow(p, (void **)&p->yes, &p->yes_cap, p->nyes, sizeof(*p->yes)))
		p->yes[p->nyes++] = r;
}

void wdep_reveal(struct pass *p, int32_t r)
{
	if (r == 0 || !p->deps)
		return;
	if (r < 0) {
		p->all = true;
		return;
	}
	if (grow(p, (void **)&p->rev, &p->rev_cap, p->nrev, sizeof(*p->rev)))
		p->rev[p->nrev++] = r;
}

static void vin_add(struct pass *p, int32_t r)
{
	int k;

	if (r == 0)
		return;
	if (r < 0)
		r = WDEP_ALL;
	for (k = 0; k < p->nvin; k++)
		if (p->vin[k] == r)
			return;
	if (p->nvin < WDEP_VIN)
		p->vin[p->nvin++] = r;
	else
		p->vin[0] = WDEP_ALL;	/* not expected: everything */
}

void wdep_use(struct pass *p, int32_t r)
{
	if (!p->deps)
		return;
	vin_add(p, r);
	p->onode = -1;	/* made again with it */
}

/* What the current instruction's results depend on: one root (a node
 * of its own where knowing it tells less than each input).
 */
int32_t wdep_inputs(struct pass *p)
{
	uint8_t cls;
	int32_t o;
	int k;

	if (!p->deps)
		return 0;
	if (p->onode >= 0)
		return p->onode;
	if (!p->nvin)
		return p->onode = 0;
	cls = p->ce ? p->ce->cls : WDEP_INV_ANY;
	if (p->nvin == 1 && cls != WDEP_INV_NONE)
		return p->onode = p->vin[0];
	o = wdep_node(p);
	if (o < 0)
		return -1;
	for (k = 0; k < p->nvin; k++)
		wdep_edge(p, o, p->vin[k]);
	p->root[o].inv = p->nvin == 1 && cls == WDEP_INV_OTHER ?
			 WDEP_INV_ANY : cls;
	if (p->root[o].inv == WDEP_INV_OTHER)
		p->root[o].fwd = WDEP_FWD_ALL;
	return p->onode = o;
}

int32_t wdep_node(struct pass *p)
{
	int32_t k;

	if (p->nroot >= MAX_ROOTS)
		return -1;
	if (!wpf_grow((void **)&p->root, &p->root_cap, p->nroot,
		      sizeof(*p->root), 256)) {
		p->nomem = true;
		return -1;
	}
	k = (int32_t)p->nroot++;
	p->root[k] = (struct root){ .at = p->cur };
	return k;
}

/* A base of the secret kind: a register at the start, a word read
 * through such a base where no store relative to it had been.
 */
static bool cand(const struct pass *p, int32_t r)
{
	return r > 0 && (p->root[r].start || p->root[r].lw ||
			 p->root[r].ldc);
}

/* Node @q (-1: none) is of the secret kind. */
static bool sk_of(const struct pass *p, int32_t q)
{
	if (q < 0)
		return true;
	return p->root[q].chain ? p->root[q].sk : cand(p, q);
}

/* Word entries of an access [lo, lo + n) at most: the rest is wide. */
#define WORDS	8

static size_t whash(int32_t root, int64_t word, size_t cap)
{
	return (size_t)(((uint64_t)word * 0x9e3779b97f4a7c15ull) ^
			(uint64_t)root) & (cap - 1);
}

/* The entry of word @word of base @root (a new one: head 0); NULL when
 * out of memory.
 */
static struct wdep_w *word_at(struct pass *p, int32_t root, int64_t word)
{
	struct wdep_w *w;
	size_t h, k, cap;

	if (2 * (p->wm_n + 1) > p->wm_cap) {
		cap = p->wm_cap ? 2 * p->wm_cap : 1024;
		w = calloc(cap, sizeof(*w));
		if (!w) {
			p->nomem = true;
			return NULL;
		}
		for (k = 0; k < p->wm_cap; k++) {
			if (!p->wm[k].head)
				continue;
			h = whash(p->wm[k].root, p->wm[k].word, cap);
			while (w[h].head)
				h = (h + 1) & (cap - 1);
			w[h] = p->wm[k];
		}
		free(p->wm);
		p->wm = w;
		p->wm_cap = cap;
	}
	h = whash(root, word, p->wm_cap);
	while (p->wm[h].head &&
	       (p->wm[h].root != root || p->wm[h].word != word))
		h = (h + 1) & (p->wm_cap - 1);
	if (!p->wm[h].head) {
		p->wm[h].root = root;
		p->wm[h].word = word;
	}
	return &p->wm[h];
}

/* The words of base-relative bytes [@a.lo, @a.hi + @size): false when
 * too many or not known (wide).
 */
static bool words(struct sv a, uint64_t size, int64_t *w0, int64_t *w1)
{
	int64_t end;

	if (!size || size > MAX_SPAN ||
	    __builtin_add_overflow(a.hi, (int64_t)size - 1, &end))
		return false;
	*w0 = a.lo >> 3;
	*w1 = end >> 3;
	return *w1 - *w0 < WORDS;
}

/*
 * What every store relative to base @b so far left (for a load whose
 * words are not known): a root made when first asked, from the stores
 * since the last time (p->ps) and the root made then.
 */
static int32_t all_stores(struct pass *p, int32_t b)
{
	int32_t n = wdep_node(p);
	size_t j;

	if (n <= 0)
		return -1;
	if (p->root[b].mchain)
		wdep_edge(p, n, p->root[b].mchain - 1);
	p->root[n].chain = true;
	p->root[n].sk = sk_of(p, p->root[b].mchain - 1);
	for (j = p->root[b].mc_upto; j < p->nps; j++)
		if (p->ps[j].base == b) {
			wdep_edge(p, n, p->ps[j].val);
			p->root[n].sk &= sk_of(p, p->ps[j].val);
		}
	p->root[b].mchain = n + 1;
	p->root[b].mc_upto = (uint32_t)p->nps;
	return n;
}

int32_t wdep_load(struct pass *p, struct sv a, uint64_t size, int32_t v)
{
	const struct wdep_w *e;
	struct root *b;
	int64_t w0, w1, w;

	if (!p->deps)
		return v;
	if (v < 0)
		v = wdep_node(p);
	if (v < 0)
		return -1;
	/* What stores relative to the same base left in its bytes (the
	 * engine pairs a push with its pop, its base unknown).
	 */
	if (cand(p, a.root) && p->root[a.root].st) {
		b = &p->root[a.root];
		if (!words(a, size, &w0, &w1)) {
			wdep_edge(p, v, all_stores(p, a.root));
		} else {
			if (b->wide)
				wdep_edge(p, v, b->wide - 1);
			for (w = w0; w <= w1; w++) {
				e = word_at(p, a.root, w);
				if (e && e->head)
					wdep_edge(p, v, e->head - 1);
			}
		}
	}
	if (grow(p, (void **)&p->xl, &p->xl_cap, p->nxl, sizeof(*p->xl)))
		p->xl[p->nxl++] = (struct wdep_load){
			v, cand(p, a.root) ? a.root : 0, p->mem, p->nst,
			a.root };
	p->last_load = v;
	vin_add(p, v);
	return v;
}

void wdep_ldc(struct pass *p, struct sv a, int32_t v)
{
	int32_t e;

	if (!p->deps || v <= 0 || !cand(p, a.root) || p->root[v].lw)
		return;
	for (e = p->root[v].dhead; e; e = p->de[e - 1].next)
		if (!sk_of(p, p->de[e - 1].par))
			return;
	if (!grow(p, (void **)&p->ldc, &p->ldc_cap, p->nldc,
		  sizeof(*p->ldc)))
		return;
	p->ldc[p->nldc++] = v;
	p->root[v].ldc = true;
}

/* A new node of what a store left, after @x and @y (-1: none). */
static int32_t node2(struct pass *p, int32_t x, int32_t y)
{
	int32_t n = wdep_node(p);

	if (n > 0) {
		p->root[n].chain = true;
		p->root[n].sk = sk_of(p, x) && sk_of(p, y);
	}
	if (n > 0 && x >= 0)
		wdep_edge(p, n, x);
	if (n > 0 && y >= 0)
		wdep_edge(p, n, y);
	return n;
}

/*
 * Constant @v stored in 8 bytes relative to a base of the secret kind: a
 * node of its own, computed forward from p->konst as p->konst is, that
 * keeps the value (watch_fix.c's bounded loads); p->konst where memory
 * runs out.  Not a call's return address (every call would pay for a
 * node): a load of it is then unbounded, as before.
 */
static int32_t konst_of(struct pass *p, uint64_t v)
{
	int32_t n;

	n = wdep_node(p);
	if (n <= 0)
		return p->konst;
	wdep_edge(p, n, p->konst);
	p->root[n].kc = p->root[n].anchored = true;
	p->root[n].lo = p->root[n].hi = (int64_t)v;
	return n;
}

void wdep_store(struct pass *p, struct sv a, uint64_t size, int32_t d,
		struct sv val)
{
	struct wdep_w *e;
	struct root *b;
	int64_t w0, w1, w;
	int32_t n;
	bool whole;

	if (!p->deps)
		return;
	if (d < 0)
		d = WDEP_ALL;
	/* A constant: known to the engine where it pairs the store with
	 * a load (watch_fix.c's secret loaded words count on it).
	 */
	if (d == 0)
		d = size == 8 && sv_exact(a) && val.root == 0 &&
		    val.lo == val.hi && cand(p, a.root) &&
		    !(p->ce && p->ce->in->id == X86_INS_CALL) ?
		    konst_of(p, (uint64_t)val.lo) : p->konst;
	whole = size == 8 && sv_exact(a) && !(a.lo & 7);
	if (cand(p, a.root)) {
		b = &p->root[a.root];
		if (!words(a, size, &w0, &w1)) {
			n = node2(p, d, b->wide - 1);
			if (n > 0)
				p->root[a.root].wide = n + 1;
		} else {
			for (w = w0; w <= w1; w++) {
				e = word_at(p, a.root, w);
				if (!e)
					return;
				/* 8 bytes on the word: what the stores before
				 * left there is gone (a load of it reads this
				 * value alone, and learning it tells nothing
				 * of theirs: xsputn's push of r15 over the last
				 * call's, the vtable pointer).
				 */
				n = node2(p, d, whole ? -1 : e->head - 1);
				if (n <= 0)
					return;
				/* node2() does not move the table.  A new
				 * entry counts toward its load (without it
				 * the table never grew: past 512 words of
				 * secret-kind bases word_at() probed for
				 * ever).
				 */
				if (!e->head)
					p->wm_n++;
				e->head = n + 1;
			}
		}
		if (grow(p, (void **)&p->ps, &p->ps_cap, p->nps,
			 sizeof(*p->ps)))
			p->ps[p->nps++] = (struct wdep_store){ a.root, d,
							      p->nst };
	} else {
		n = node2(p, d, p->mem);
		if (n > 0)
			p->mem = n;
	}
	p->nst++;
}

int32_t wdep_fresh(struct pass *p)
{
	int32_t r, o = p->deps ? wdep_inputs(p) : 0;

	r = wdep_node(p);
	if (r < 0 || !p->deps)
		return r;
	p->root[r].calc = true;
	/* What a cmovcc writes depends on both sources and the flags, and
	 * the engine knowing it learns nothing of them: a branch that shows
	 * it (a loop's count, _IO_default_xsputn's) informs it alone.
	 */
	if (p->ce && wdep_is_cmov(p->ce->in->id)) {
		p->root[r].inv = WDEP_INV_NONE;
		p->root[r].noback = true;
	}
	wdep_edge(p, r, o);
	/* Made from constants alone (o == 0), or given back by a system
	 * call (rcx is the next address, rax what the kernel returned):
	 * known to the engine as far as this analysis can say.
	 */
	if (o == 0 || (p->ce && ((p->ce->in->flags & RCV_I_SYSCALL) ||
				 wdep_absorbs(p->ce->in))))
		wdep_edge(p, r, p->konst);
	return r;
}

/*
 * What an instruction reads besides what its operands and capstone's
 * register list say: bits of plain().  Not listed: every register it
 * reads may be a value, and it reads the flags and the vector state.
 */
#define K_OPS	1	/* its register reads are its operands alone (a
			 * register only in a memory operand addresses it) */
#define K_FL	2	/* reads the flags */
#define K_GPR	4	/* no vector or x87 state but its xmm operands */

static unsigned int plain(unsigned int id)
{
	switch (id) {
	case X86_INS_MOV: case X86_INS_MOVABS: case X86_INS_MOVZX:
	case X86_INS_MOVSX: case X86_INS_MOVSXD: case X86_INS_ADD:
	case X86_INS_SUB: case X86_INS_AND: case X86_INS_OR:
	case X86_INS_XOR: case X86_INS_CMP: case X86_INS_TEST:
	case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG:
	case X86_INS_NOT: case X86_INS_SHL: case X86_INS_SAL:
	case X86_INS_SHR: case X86_INS_SAR: case X86_INS_ROL:
	case X86_INS_ROR: case X86_INS_BT: case X86_INS_BSF:
	case X86_INS_BSR: case X86_INS_TZCNT: case X86_INS_LZCNT:
	case X86_INS_POPCNT: case X86_INS_XCHG: case X86_INS_XADD:
	case X86_INS_NOP: case X86_INS_ENDBR64: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHW:
	case X86_INS_LEA: case X86_INS_IMUL: case X86_INS_BSWAP:
	case X86_INS_STC: case X86_INS_CLC: case X86_INS_STD:
	case X86_INS_CLD:
	/* SSE: the vector state through their xmm operands */
	case X86_INS_MOVD: case X86_INS_MOVQ: case X86_INS_MOVSS:
	case X86_INS_MOVSD: case X86_INS_MOVAPS: case X86_INS_MOVUPS:
	case X86_INS_MOVAPD: case X86_INS_MOVUPD: case X86_INS_MOVDQA:
	case X86_INS_MOVDQU: case X86_INS_MOVHPS: case X86_INS_MOVLPS:
	case X86_INS_MOVHPD: case X86_INS_MOVLPD: case X86_INS_PXOR:
	case X86_INS_POR: case X86_INS_PAND: case X86_INS_PANDN:
	case X86_INS_PCMPEQB: case X86_INS_PCMPEQD: case X86_INS_PMINUB:
	case X86_INS_PMOVMSKB: case X86_INS_PUNPCKLBW:
	case X86_INS_PUNPCKLQDQ: case X86_INS_PSHUFD: case X86_INS_XORPS:
	case X86_INS_UCOMISD: case X86_INS_UCOMISS: case X86_INS_COMISD:
	case X86_INS_COMISS: case X86_INS_ADDSD: case X86_INS_SUBSD:
	case X86_INS_MULSD: case X86_INS_DIVSD: case X86_INS_CVTSI2SD:
	case X86_INS_CVTTSD2SI: case X86_INS_PTEST:
		return K_OPS | K_GPR;
	case X86_INS_ADC: case X86_INS_SBB:
		return K_OPS | K_FL | K_GPR;
	/* Registers read beyond their operands (rsp, rdx:rax...), which
	 * capstone lists: each counts as a value.
	 */
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL:
	case X86_INS_RET: case X86_INS_LEAVE: case X86_INS_JMP:
	case X86_INS_CDQ: case X86_INS_CDQE: case X86_INS_CQO:
	case X86_INS_CWDE: case X86_INS_CWD: case X86_INS_CBW:
	case X86_INS_MUL: case X86_INS_DIV: case X86_INS_IDIV:
	case X86_INS_CMPXCHG: case X86_INS_ENTER: case X86_INS_XLATB:
		return K_GPR;
	case X86_INS_SYSCALL:	/* r11 gets rflags */
	case X86_INS_CMC:
		return K_FL | K_GPR;
	/* String instructions: rsi, rdi, rcx and rax as capstone lists
	 * them, and the direction flag alone (info()).
	 */
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_MOVSB: case X86_INS_MOVSW:
	case X86_INS_MOVSQ: case X86_INS_LODSB: case X86_INS_LODSW:
	case X86_INS_LODSD: case X86_INS_LODSQ: case X86_INS_SCASB:
	case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSQ:
		return K_GPR;
	default:
		return rcv_cond_of(id) >= 0 || rcv_cond_jump(id) ?
		       K_OPS | K_FL | K_GPR : K_FL;
	}
}

/* Has an xmm, ymm or zmm operand. */
static bool vec_xmm(const struct rcv_ins *in)
{
	unsigned int k;

	for (k = 0; k < in->nops && k < 3; k++)
		if (in->op[k].type == RCV_OP_XMM)
			return true;
	return false;
}

/* Touches vector (or x87) state: reads and writes it, as far as known. */
static bool vec_of(const struct rcv_ins *in, unsigned int kind)
{
	unsigned int k;

	if (in->xw || in->xsem)
		return true;
	for (k = 0; k < in->nops && k < 3; k++)
		if (in->op[k].type == RCV_OP_XMM ||
		    in->op[k].type == RCV_OP_OTHER)
			return true;
	return !(kind & K_GPR);
}

/* What wdep_begin() and wdep_end() need of an instruction, kept per
 * window by instruction (each address is decoded once: watch_ins.c).
 */
#define D_FL	0x01	/* reads the flags */
#define D_VEC	0x02	/* reads and writes the vector state */
#define D_CJ	0x04	/* a conditional jump: shows what it reads */
#define D_IREG	0x08	/* an indirect call or jump through a register */
#define D_IMEM	0x10	/* ... through memory */
#define D_SYS	0x20	/* a system call */
#define D_FW	0x40	/* writes flags */
#define D_FW6	0x80	/* writes all six arithmetic flags (not by a count) */
#define D_DF	0x100	/* reads the direction flag */
#define D_KILL	0x200	/* what it writes the engine never knows, nor
			 * learns what it read from it */

static const struct wdep_ic *info(struct pass *p, const struct rcv_ins *in)
{
	/* CF PF AF ZF SF OF: all written leaves nothing of the old flags
	 * (a shift or rotate by zero writes none).
	 */
	const uint64_t six = 0x8d5;
	struct wdep_ic *e = &p->ic[((uintptr_t)in >> 4 ^ (uintptr_t)in >> 12) &
				   (WDEP_IC - 1)];
	unsigned int am = 0, rm = 0, m, k, kind;
	bool s1, s2, s3;

	if (e->in == in)
		return e;
	/*
	 * VEX and EVEX that capstone 4 cannot read and libopcodes shows
	 * on vector and mask registers only, or with a general-purpose
	 * destination it writes whole (rcv_decode.c's vector_only()): the
	 * engine does not model them (rcv_sem.c, rcv_back.c: every xmm, the
	 * arithmetic flags and that register become unknown, and nothing
	 * flows back to what they read), so what they write depends on
	 * nothing it could learn (D_KILL).  If the engine ever models
	 * them, this must follow their operands instead.  With memory (an
	 * EVEX load or store) the engine starts again after it
	 * (watch_proof.c), whatever it read.
	 */
	if (in->flags & RCV_I_BAD) {
		*e = (struct wdep_ic){ .in = in, .f = D_KILL };
		if (in->flags & RCV_I_MEMBAR)
			*e = (struct wdep_ic){ .in = in, .vm = 0xffff,
					       .f = D_VEC };
		return e;
	}
	kind = plain(in->id);
	if (in->id == X86_INS_IMUL && in->nops < 2)
		kind = K_GPR;	/* rdx:rax */
	/* SSE, AVX and the EVEX capstone 4 reads (vmovdqu64, vpminub...)
	 * not listed: registers in their memory operands only address it,
	 * and none reads rflags; implicit registers (pcmpestri's rax and
	 * rdx) stay reads, and so do the vector state and every register
	 * operand.
	 */
	if (kind == K_FL && vec_xmm(in))
		kind = K_OPS;
	for (k = 0; k < in->nops && k < 3; k++) {
		const struct rcv_op *op = &in->op[k];

		if (op->type == RCV_OP_REG)
			rm |= 1u << op->reg;
		else if (op->type == RCV_OP_MEM && in->id != X86_INS_LEA) {
			if (op->base >= 0 && op->base < 16)
				am |= 1u << op->base;
			if (op->index >= 0 && op->index < 16)
				am |= 1u << op->index;
		}
	}
	m = in->gr;
	if ((kind & K_OPS) && in->nops <= 3)
		m &= ~(am & ~rm);
	/* A register written in part keeps the rest of its old value; one
	 * written by an instruction not listed may be read too (cmpxchg's
	 * accumulator, mul's rdx:rax), whatever capstone's list says.
	 */
	for (k = 0; k < 16; k++)
		if ((in->wcode[k] && in->wcode[k] < 4) ||
		    (in->wcode[k] && !(kind & K_OPS)))
			m |= 1u << k;
	*e = (struct wdep_ic){ .in = in, .vm = (uint16_t)m,
			       .cls = wdep_inv_class(in) };
	if (kind & K_FL)
		e->f |= D_FL;
	/* The direction flag: string instructions (movsd and cmpsd too,
	 * not their SSE namesakes), and any instruction reading the flags
	 * that is not known to read the arithmetic ones alone.
	 */
	if (rcv_str_op(in, &s1, &s2, &s3) ||
	    ((kind & K_FL) && (!(kind & K_GPR) ||
			       in->id == X86_INS_SYSCALL)))
		e->f |= D_DF;
	if (vec_of(in, kind))
		e->f |= D_VEC;
	if (rcv_cond_jump(in->id)) {
		e->f |= D_CJ;
	} else if ((in->id == X86_INS_JMP || in->id == X86_INS_CALL) &&
		   in->nops == 1 && in->op[0].type == RCV_OP_REG) {
		e->f |= D_IREG;
		e->treg = in->op[0].reg;
	} else if ((in->id == X86_INS_JMP || in->id == X86_INS_CALL) &&
		   in->nops == 1 && in->op[0].type == RCV_OP_MEM) {
		e->f |= D_IMEM;
	} else if (in->flags & RCV_I_SYSCALL) {
		e->f |= D_SYS;
	}
	if (in->fw)
		e->f |= D_FW;
	if ((in->fw & six) == six && in->id != X86_INS_SHL &&
	    in->id != X86_INS_SAL && in->id != X86_INS_SHR &&
	    in->id != X86_INS_SAR && in->id != X86_INS_ROL &&
	    in->id != X86_INS_ROR && in->id != X86_INS_RCL &&
	    in->id != X86_INS_RCR)
		e->f |= D_FW6;
	return e;
}

/*
 * Does conditional jump @in, followed by @next (0: not known), show the
 * values it tests?  The engine learns a value from a branch only where
 * its direction says ZF is set (rcv_back.c: a single-flag condition
 * gives that flag; rcv_back.c and rcv_sem.c then learn `test r, r`'s r
 * as 0, `cmp r, x`'s r as x, an arithmetic result as 0, and only with
 * ZF set): je taken, jne not taken.  Any other direction of je or jne,
 * or a condition on other flags, shows flags the engine computes nothing
 * back from.  jrcxz, jecxz and loop*: as always, their register.
 */
static bool cj_shows(const struct rcv_ins *in, uint64_t next)
{
	int cc = rcv_cond_of(in->id);
	uint64_t fall = in->ip + in->len;

	if (cc < 0 || !next || in->nops != 1 ||
	    in->op[0].type != RCV_OP_IMM || (uint64_t)in->op[0].imm == fall)
		return true;
	if (next != fall && next != (uint64_t)in->op[0].imm)
		return true;	/* not where it goes: as before */
	if (cc == 4)		/* je */
		return next != fall;
	if (cc == 5)		/* jne */
		return next == fall;
	return false;
}

void wdep_begin(struct pass *p, const struct rcv_ins *in, uint64_t next)
{
	const struct wdep_ic *e = p->ce = info(p, in);
	unsigned int m;
	int k;

	p->nvin = 0;
	p->onode = -1;
	p->last_load = -1;
	m = e->vm;
	/* sub or cmp of two registers at exact offsets of one base: the
	 * result and the flags are their distance, a constant.
	 */
	if ((in->id == X86_INS_SUB || in->id == X86_INS_CMP) &&
	    in->nops == 2 && in->op[0].type == RCV_OP_REG &&
	    in->op[1].type == RCV_OP_REG && in->op[0].size == 8 &&
	    in->op[1].size == 8 && sv_exact(p->r[in->op[0].reg]) &&
	    sv_exact(p->r[in->op[1].reg]) &&
	    p->r[in->op[0].reg].root == p->r[in->op[1].reg].root)
		m &= ~(1u << in->op[0].reg | 1u << in->op[1].reg);
	for (; m; m &= m - 1)
		vin_add(p, p->r[__builtin_ctz(m)].root);
	if (e->f & D_FL)
		vin_add(p, p->flags);
	if (e->f & D_VEC)
		vin_add(p, p->vec);
	if (e->f & D_DF)
		vin_add(p, p->df);
	if ((e->f & D_CJ) && cj_shows(in, next)) {
		for (k = 0; k < p->nvin; k++)
			wdep_reveal(p, p->vin[k]);
	} else if (e->f & D_IREG) {
		wdep_reveal(p, p->r[e->treg].root);
	} else if (e->f & D_SYS) {
		/* The trace shows that a system call ran, not what it was
		 * given or gave back; the engine follows rax, rcx, r11 and
		 * the flags through it (rcv_sem.c) and chooses by the
		 * number what the kernel wrote (rcv_mem.c): rax counts as
		 * shown.
		 */
		wdep_reveal(p, p->r[RP_REG_RAX].root);
	}
}

/* Flags and vector state written: after the instruction's accesses. */
void wdep_end(struct pass *p, const struct rcv_ins *in)
{
	const struct wdep_ic *e = p->ce->in == in ? p->ce : info(p, in);
	int32_t o, f;

	if (e->f & D_IMEM)
		wdep_reveal(p, p->last_load);
	if (e->f & D_KILL) {
		f = wdep_node(p);
		o = wdep_node(p);
		if (f > 0 && o > 0) {
			wdep_yes(p, f);
			p->vec = f;
			p->flags = o;
		}
		return;
	}
	if (e->f & D_FW) {
		o = wdep_inputs(p);
		if ((e->f & D_FW6) && wdep_self_op(in)) {
			p->flags = p->konst;	/* ZF set, whatever */
		} else if (e->f & D_FW6) {
			p->flags = o;
		} else {
			f = wdep_node(p);
			wdep_edge(p, f, o);
			wdep_edge(p, f, p->flags);
			p->flags = f;
		}
	}
	if (e->f & D_VEC) {
		f = wdep_node(p);
		wdep_yes(p, f);
		wdep_edge(p, f, wdep_inputs(p));
		wdep_edge(p, f, p->vec);
		p->vec = f;
	}
	/* cld and std: a constant; anything else that may write it (popf,
	 * a system call): from what it read and what it was.
	 */
	if (in->fw & F_DF) {
		if (in->id == X86_INS_CLD || in->id == X86_INS_STD) {
			p->df = 0;
		} else {
			f = wdep_node(p);
			wdep_edge(p, f, wdep_inputs(p));
			wdep_edge(p, f, p->df);
			p->df = f;
		}
	}
}

void wdep_init(struct pass *p)
{
	if (!p->deps)
		return;
	p->ic = calloc(WDEP_IC, sizeof(*p->ic));
	if (!p->ic) {
		p->nomem = true;
		return;
	}
	wdep_node(p);	/* WDEP_ALL */
	p->flags = wdep_node(p);
	p->vec = wdep_node(p);
	p->df = wdep_node(p);
	p->mem = wdep_node(p);
	p->konst = wdep_node(p);
	wdep_yes(p, p->vec);
	wdep_yes(p, p->konst);
	p->onode = -1;
}

void wdep_free(struct pass *p)
{
	free(p->wm);
	free(p->de);
	free(p->rev);
	free(p->xl);
	free(p->ps);
	free(p->ldc);
	free(p->yes);
	free(p->ic);
}

/* Marks @r and what it depends on in @inf; false when out of memory. */
static bool spread(const struct pass *p, bool *inf, int32_t **st,
		   size_t *cap, int32_t r)
{
	size_t n = 0;
	int32_t e;

	if (inf[r])
		return true;
	inf[r] = true;
	(*st)[n++] = r;
	while (n) {
		r = (*st)[--n];
		if (p->root[r].noback)
			continue;
		for (e = p->root[r].dhead; e; e = p->de[e - 1].next) {
			int32_t q = p->de[e - 1].par;

			if (inf[q])
				continue;
			inf[q] = true;
			if (!wpf_grow((void **)st, cap, n, sizeof(**st), 256))
				return false;
			(*st)[n++] = q;
		}
	}
	return true;
}

#define ROUNDS	64	/* (watch_know.c has its own) */

/* A value stored into what @ldc word @r read is informed: 1 (0: none;
 * -1: out of memory).
 */
static int stored_told(const struct pass *p, const bool *inf, int32_t r)
{
	int32_t *st = malloc(64 * sizeof(*st)), e, q;
	size_t n = 0, cap = 64;
	int ret = 0;

	if (!st)
		return -1;
	st[n++] = r;
	while (n && !ret) {
		q = st[--n];
		for (e = p->root[q].dhead; e && !ret; e = p->de[e - 1].next) {
			int32_t par = p->de[e - 1].par;

			if (inf[par]) {
				ret = 1;
			} else if (p->root[par].chain) {
				if (!wpf_grow((void **)&st, &cap, n,
					      sizeof(*st), 64)) {
					ret = -1;
					break;
				}
				st[n++] = par;
			}
		}
	}
	free(st);
	return ret;
}

bool *wdep_informed_any(const struct pass *p)
{
	int round;
	bool *inf = calloc(p->nroot + 1, sizeof(*inf));
	int32_t *st = malloc(256 * sizeof(*st));
	size_t cap = 256, j;
	bool more = true;

	if (!inf || !st)
		goto fail;
	if (p->all) {
		inf[WDEP_ALL] = true;
		free(st);
		return inf;
	}
	for (j = 0; j < p->nrev; j++)
		if (!spread(p, inf, &st, &cap, p->rev[j]))
			goto fail;
	/*
	 * A word loaded where the engine may know the address gives what
	 * earlier stores left there, when the engine may know theirs: the
	 * latest such load (the stores before it include those before
	 * any other) informs the stores of unknown kind's chain and each
	 * store relative to an informed base.
	 */
	for (round = 0; more && !inf[WDEP_ALL]; round++) {
		uint32_t t = 0;
		int32_t mem = -1;

		/* Each round scans every load and store: past a few dozen
		 * (not seen), everything counts as informed.
		 */
		if (round == ROUNDS) {
			inf[WDEP_ALL] = true;
			break;
		}
		more = false;
		for (j = 0; j < p->nxl; j++) {
			const struct wdep_load *x = &p->xl[j];

			if (inf[x->node] && (!x->base || inf[x->base]) &&
			    (mem < 0 || x->t >= t)) {
				t = x->t;
				mem = x->mem;
			}
		}
		/* A word of the secret kind read where stores had been: the
		 * engine pairing it with a store whose value it knows knows
		 * it (a pop of a push told): informed.
		 */
		for (j = 0; j < p->nldc; j++) {
			int ret;

			if (inf[p->ldc[j]])
				continue;
			ret = stored_told(p, inf, p->ldc[j]);
			if (ret < 0)
				goto fail;
			if (ret) {
				more = true;
				if (!spread(p, inf, &st, &cap, p->ldc[j]))
					goto fail;
			}
		}
		if (mem < 0)
			continue;
		if (!inf[mem]) {
			more = true;
			if (!spread(p, inf, &st, &cap, mem))
				goto fail;
		}
		for (j = 0; j < p->nps; j++) {
			const struct wdep_store *s = &p->ps[j];

			if (s->t < t && inf[s->base] && !inf[s->val]) {
				more = true;
				if (!spread(p, inf, &st, &cap, s->val))
					goto fail;
			}
		}
	}
	free(st);
	return inf;
fail:
	free(st);
	free(inf);
	return NULL;
}
