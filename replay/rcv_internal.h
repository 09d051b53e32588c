/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine (recover.c, rcv_sem.c): values in the past
 * recovered from a thread's instructions and the end snapshot.
 *
 * A value is a 64-bit word with a mask of the bits known.  A window holds
 * the state (16 general-purpose registers and rflags) before each of its
 * instructions and after the last; rcv_sem.c moves knowledge across one
 * instruction, forward (emulation) and backward (inversion), and names the
 * memory each instruction reads and writes, which recover.c turns into
 * memory knowledge.
 */
#ifndef PTREC_RCV_INTERNAL_H
#define PTREC_RCV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARITH_FLAGS	0x8d5ull	/* CF PF AF ZF SF OF */
#define F_CF	0x001ull
#define F_PF	0x004ull
#define F_AF	0x010ull
#define F_ZF	0x040ull
#define F_SF	0x080ull
#define F_DF	0x400ull
#define F_OF	0x800ull
#define F_RF	0x10000ull

#define RCV_NREG	17	/* rax..r15 in enum rp_reg order, rflags */
#define RCV_FLAGS	16
#define RCV_RIP		16	/* as a memory base: rip */

struct rcv_val {
	uint64_t v;		/* value; bits outside k are 0 */
	uint64_t k;		/* bits known */
};

#define RCV_NXMM	16	/* xmm0..xmm15: their low 128 bits */

/*
 * x[n][0] is bits 0-63 of xmm n, x[n][1] bits 64-127 (rcv_sse.c): printf
 * keeps pointers in them (movq/punpcklqdq/movaps).  The upper halves of
 * ymm are not kept (always unknown).
 */
struct rcv_state {
	struct rcv_val r[RCV_NREG];
	struct rcv_val x[RCV_NXMM][2];
	uint16_t xk;		/* bit n clear: xmm n all unknown (zero) */
};

enum rcv_optype { RCV_OP_NONE, RCV_OP_REG, RCV_OP_IMM, RCV_OP_MEM,
		  RCV_OP_OTHER, RCV_OP_XMM };

struct rcv_op {
	uint8_t type;		/* enum rcv_optype */
	uint8_t size;		/* bytes */
	uint8_t access;		/* 1 read, 2 write */
	int8_t reg;		/* OP_REG: GPR 0..15; OP_XMM: 0..15 */
	uint8_t shift;		/* OP_REG: 8 for ah, ch, dh, bh */
	int8_t base, index;	/* OP_MEM: GPR, RCV_RIP, -1 none */
	uint8_t scale;
	uint8_t seg;		/* 0 none, 1 fs, 2 gs, 3 other */
	int64_t imm;		/* OP_IMM: value; OP_MEM: displacement */
};

/* struct rcv_ins.flags */
#define RCV_I_BARRIER	0x01	/* nothing known flows across it */
#define RCV_I_MEMBAR	0x02	/* may write memory we cannot name */
#define RCV_I_REP	0x04	/* rep/repne prefix */
#define RCV_I_BAD	0x08	/* capstone did not decode it */
#define RCV_I_SYSCALL	0x10
#define RCV_I_UNPROVEN	0x20	/* a branch not yet shown to go where
				 * it went (a barrier until then) */
#define RCV_I_FSW	0x40	/* writes fs or its base (wrfsbase) */
#define RCV_I_XFER	0x80	/* the trace after it is not where it goes
				 * (a signal, a trace gap): a barrier that
				 * nothing lifts, also on a known syscall */

struct rcv_ins {
	uint64_t ip;
	uint64_t next;		/* address of the instruction after it */
	uint16_t id;		/* capstone's instruction id */
	uint8_t len, iclass, nops, flags;
	uint8_t wcode[16];	/* per GPR: 0 not written, 1 low byte, 2 bits
				 * 8-15, 3 low 16 bits, 4 all 64 */
	uint64_t fw;		/* rflags bits written */
	uint64_t fr;		/* rflags bits read (capstone's table) */
	uint16_t xw;		/* xmm registers written (bit n: xmm n);
				 * rcv_sse.c says what of them it knows */
	bool xsem;		/* rcv_sse.c models it (rcv_sse_modelled) */
	bool a32;		/* 0x67: 32-bit addresses (esi, edi, ecx
				 * for a string instruction) */
	uint16_t gr;		/* GPRs it may read (bit g): capstone's list,
				 * its operands, a system call's arguments;
				 * all when not decoded (rcv_why.c) */
	struct rcv_op op[3];
};

/*
 * bt/bts/btr/btc with a memory operand and a register bit offset: the
 * offset is signed and unbounded, so the byte accessed is base +
 * (offset >> 3), anywhere, not the operand's address (rcv_decode.c).
 */
bool rcv_bitop_far(const struct rcv_ins *in);

/*
 * Is @raw a gather or scatter (VSIB addressing: VEX or EVEX map 0F38,
 * opcodes 90-93, A0-A3, C6, C7)?  Capstone 4 drops or misreads their
 * vector index, so rcv_decode() takes them as undecoded; they complete
 * element by element, so one that faults has done part of its work
 * (rcv_end.c).
 */
bool rcv_vsib(const uint8_t *raw, size_t len);

/* The bytes a far return or iret pops at rsp, 0 for another (rcv_access.c). */
unsigned int rcv_far_pop(const struct rcv_ins *in);

/* Condition code of jcc/setcc/cmovcc @id: 0..15 as in the opcode, or -1. */
int rcv_cond_of(unsigned int id);

/* Is @id a conditional jump (jcc, jrcxz and the like, loop*)? */
bool rcv_cond_jump(unsigned int id);

/*
 * The element size of string instruction @in (stos, movs, lods, scas,
 * cmps, with or without a rep prefix; not SSE's movsd and cmpsd), 0 for
 * any other; *@src: it reads [rsi], *@dread: it reads [rdi], *@dst: it
 * writes [rdi] (rcv_access.c).  With @in->a32 the addresses are esi and
 * edi, the count ecx: its extent is unknown to every user.
 */
unsigned int rcv_str_op(const struct rcv_ins *in, bool *src, bool *dread,
			bool *dst);

/* Bits of a GPR that write code @c changes (inline: every pass asks it
 * for 16 registers of every instruction).
 */
static inline uint64_t rcv_wmask(uint8_t c)
{
	static const uint64_t m[5] = { 0, 0xffull, 0xff00ull, 0xffffull,
				       ~0ull };

	return c < 5 ? m[c] : 0;
}

/*
 * The wcode (struct rcv_ins) of a write to a register operand of @size
 * bytes (@shift: bits 8-15, ah to bh): a write of 4 bytes or more is all
 * 64 bits (a 32-bit write clears the upper half).  rcv_decode.c's writes
 * and rcv_bits.c's destinations alike.
 */
uint8_t rcv_wcode_of(int size, int shift);

/*
 * Bit g: @in writes general-purpose register g (wcode[g] != 0), without
 * a test per register (the stack build asks it of every instruction).
 */
static inline uint16_t rcv_wregs(const struct rcv_ins *in)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t a, b;

	memcpy(&a, &in->wcode[0], 8);
	memcpy(&b, &in->wcode[8], 8);
	/* The top bit of each byte: the byte is not 0. */
	a = (((a & lo7) + lo7) | a) & ~lo7;
	b = (((b & lo7) + lo7) | b) & ~lo7;
	return (uint16_t)((a >> 7) * 0x0102040810204080ull >> 56 |
			  ((b >> 7) * 0x0102040810204080ull >> 56) << 8);
}

struct rcv_dec;
int rcv_dec_new(struct rcv_dec **d);
/* The decoder of session @s's recovery contexts (made on first use, freed
 * with the session: rcv_dec_session_free()).
 */
struct rp_session;
int rcv_dec_shared(struct rp_session *s, struct rcv_dec **d);
/* The mnemonic of the instruction @raw at @ip into @buf (@n bytes). */
void rcv_dec_mnemonic(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		      size_t len, char *buf, size_t n);
void rcv_dec_free(struct rcv_dec *d);
/* The length of the instruction at the start of @raw (@len bytes), or 0. */
size_t rcv_dec_len(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		   size_t len);
/* Decodes @len bytes at @ip into @in.  Always fills @in (an instruction it
 * cannot decode is a barrier).
 */
void rcv_decode(struct rcv_dec *d, uint64_t ip, const uint8_t *raw,
		size_t len, uint8_t iclass, struct rcv_ins *in);
/* rcv_decode() of a history's instruction: one that did not run in
 * 64-bit mode (libipt's exec mode, from a trace's MODE.Exec) is a
 * barrier, which rcv_decode_barrier() fills in.
 */
struct rp_insn;
void rcv_decode_insn(struct rcv_dec *d, const struct rp_insn *insn,
		     struct rcv_ins *in);
void rcv_decode_barrier(uint64_t ip, size_t len, uint8_t iclass,
			struct rcv_ins *in);

/*
 * What semantics need from a window: memory before instruction @i (bytes
 * of @addr.. into *@out), and the fs/gs bases.
 */
struct rcv_ctx {
	struct rcv_val (*mem)(void *ctx, uint64_t i, uint64_t addr,
			      unsigned int size);
	void *mctx;
	struct rcv_val fs_base, gs_base;
	/*
	 * Optional: what a read-modify-write instruction (add [mem], imm)
	 * read (@rw 0) and wrote (@rw 1), which no register shows: @wrote
	 * remembers a value the forward emulation or the backward
	 * inversion found for instruction @i, @written gives it back for
	 * @in (unknown when @in is not of the window @ctx).
	 */
	void (*wrote)(void *ctx, uint64_t i, int rw, struct rcv_val v);
	/* Optional: are @size bytes at @addr written by this thread alone
	 * (what it stored is what it reads next)?  Without it, no.
	 */
	bool (*own)(void *ctx, uint64_t addr, unsigned int size);
	struct rcv_val (*written)(void *ctx, const struct rcv_ins *in,
				  int rw);
};

/* A memory access of instruction @in with @s the state before it. */
struct rcv_acc {
	bool valid;		/* there is one */
	bool addr_known;
	uint64_t addr;
	unsigned int size;
	struct rcv_val val;	/* the value read or written, when known */
	struct rcv_val hi;	/* bytes 8..15 of a 16- or 32-byte one */
};

/* add/sub/adc/sbb/and/or/xor: two operands, the first written (rcv_rw.c). */
bool rcv_rmw_arith(unsigned int id);

/*
 * Bit scans and counts, bit tests, BMI1 and BMI2, movbe's load, xadd and
 * the double shifts (rcv_bits.c): forward semantics, false when @in is
 * none of them; and what they write, for rcv_decode.c (false: none of
 * them).
 */
bool rcv_bits_forward(const struct rcv_ctx *c, uint64_t i,
		      const struct rcv_ins *in, const struct rcv_state *s,
		      struct rcv_state *o);
bool rcv_bits_writes(struct rcv_ins *in);

/* Address of memory operand @op in state @s (before instruction @in):
 * known whole (k == ~0), or its low bits below the first unknown bit of
 * any term.
 */
struct rcv_val rcv_addr(const struct rcv_ctx *c, const struct rcv_ins *in,
			const struct rcv_op *op, const struct rcv_state *s);

/*
 * The memory instruction @in reads and writes, with @pre and @post the
 * states before and after it (the value read is what @post shows it
 * loaded, the value written what @pre held).
 */
void rcv_reads(const struct rcv_ctx *c, const struct rcv_ins *in,
	       const struct rcv_state *pre, const struct rcv_state *post,
	       struct rcv_acc *rd);
void rcv_writes(const struct rcv_ctx *c, const struct rcv_ins *in,
		const struct rcv_state *pre, const struct rcv_state *post,
		struct rcv_acc *wr);

/*
 * Knowledge across instruction @i (@in): forward, what @pre implies about
 * the state after it, merged into @post; backward, what @post implies
 * about @pre.  Return true when they added something.  *@conflicts counts
 * known bits that disagreed (never overwritten; a test failure).
 */
bool rcv_forward(const struct rcv_ctx *c, uint64_t i,
		 const struct rcv_ins *in, const struct rcv_state *pre,
		 struct rcv_state *post, uint64_t *conflicts);
bool rcv_backward(const struct rcv_ctx *c, uint64_t i,
		  const struct rcv_ins *in, struct rcv_state *pre,
		  const struct rcv_state *post, uint64_t *conflicts);
/*
 * The same, merging only the registers of @m (RCV_IO_ALL: all) into the
 * state they write: the others must be ones @in only carries across and
 * that did not change since it was last evaluated (struct redo,
 * rcv_pass.c).  Return the mask of the registers they changed (the xmm:
 * RCV_IO_X).
 */
uint32_t rcv_forward_m(const struct rcv_ctx *c, uint64_t i,
		       const struct rcv_ins *in, const struct rcv_state *pre,
		       struct rcv_state *post, uint32_t m, uint64_t *conflicts);
uint32_t rcv_backward_m(const struct rcv_ctx *c, uint64_t i,
			const struct rcv_ins *in, struct rcv_state *pre,
			const struct rcv_state *post, uint32_t m,
			uint64_t *conflicts);

/*
 * What an instruction's semantics touch, as a mask (rcv_io_touch(),
 * rcv_decode.c): bits 0-15 the general-purpose registers, RCV_IO_FLAGS
 * rflags, RCV_IO_X the xmm registers.  A register outside the mask is
 * one rcv_forward() and rcv_backward() only carry across, from the state
 * before to the state after and back (struct redo, rcv_pass.c: a change
 * there is merged, not evaluated again).  RCV_IO_ALL: not modelled so.
 */
#define RCV_IO_FLAGS	(1u << 16)
#define RCV_IO_X	(1u << 17)
#define RCV_IO_ALL	0x3ffffu
uint32_t rcv_io_touch(const struct rcv_ins *in);
/*
 * Of those, what an evaluation reads in the state it does not write:
 * forward the state before (not a register it only writes whole: a
 * 32- or 64-bit destination), backward the state after (all it touches).
 * And what it reads in the state it writes (besides merging into it):
 * forward the flags and xmm it touches, backward the registers it reads
 * (addresses, an add's destination).
 */
struct rcv_io {
	uint32_t touch;		/* rcv_io_touch() */
	uint32_t fwd_pre, fwd_post, back_pre, back_post;
};
void rcv_io_map(const struct rcv_ins *in, struct rcv_io *io);
/*
 * rcv_io_map() by address (rcv_io.c): a loop's instructions mapped once
 * a window, not once an iteration.  An entry serves only an instruction
 * equal to the one it was made for.  rcv_io_memo_new() may give NULL
 * (out of memory): rcv_io_map_memo() then maps each time.
 */
struct rcv_io_memo;
struct rcv_io_memo *rcv_io_memo_new(void);
void rcv_io_memo_free(struct rcv_io_memo *m);
void rcv_io_map_memo(struct rcv_io_memo *m, const struct rcv_ins *in,
		     struct rcv_io *io);
/*
 * An evaluation of an instruction (maps @io) due again, forward (@fwd)
 * or backward, where @mp and @mq are the registers changed in the states
 * before and after it since its last evaluation that way and @asked
 * whether that one asked a callback: the registers to merge into the
 * state it writes, and *@sem whether its semantics must run
 * (rcv_forward_m(), rcv_backward_m()), else the registers returned are
 * only carried across (rcv_io_carry(); none: nothing to do).
 */
static inline uint32_t rcv_io_due(const struct rcv_io *io, bool fwd,
				  bool asked, uint32_t mp, uint32_t mq,
				  bool *sem)
{
	*sem = true;
	if (io->touch == RCV_IO_ALL)
		return RCV_IO_ALL;
	/* What it reads (struct rcv_io): the rest of the state it writes
	 * is what it merges into, which only grew.  The registers changed
	 * in the state it reads are carried, and merged when it runs.
	 */
	if (fwd) {
		*sem = asked || (mp & io->fwd_pre) || (mq & io->fwd_post);
		return (*sem ? io->touch : 0) | mp;
	}
	*sem = asked || (mq & io->back_post) || (mp & io->back_pre);
	return (*sem ? io->touch : 0) | mq;
}
uint32_t rcv_io_carry(const struct rcv_ins *in, struct rcv_state *to,
		      const struct rcv_state *from, uint32_t m, bool fwd,
		      uint64_t *conflicts);

/* Merges known bits of @from into @to; true when it added any (a known
 * bit of both that differs is a conflict, counted).  Inline: every
 * evaluation of every instruction merges 17 registers (p99: the call was
 * 5% of a window once rcv_back.c called it from another file).
 */
static inline bool rcv_merge(struct rcv_val *to, struct rcv_val from,
			     uint64_t *conflicts)
{
	uint64_t both = to->k & from.k, add = from.k & ~to->k;

	if ((to->v ^ from.v) & both)
		(*conflicts)++;
	if (!add)
		return false;
	to->v = (to->v & ~add) | (from.v & add);
	to->k |= add;
	return true;
}

/*
 * The escape analysis of a thread's stack (rcv_escape.c, its stack model
 * rcv_escmem.c): what may hold a value derived from the stack pointer,
 * instruction after instruction.
 * Zero it, then rcv_esc_init(); rcv_esc_fini() frees it.
 */
struct rcv_esc_slot {
	int64_t d, vd;		/* offset of the bytes; of what they point to */
	uint32_t ep, vep;	/* epoch of the bytes; of what they point to */
	uint8_t n, kind;	/* size; what they may hold (as t[]) */
};
struct rcv_esc_ep {
	uint32_t root;		/* epochs of one root are related */
	int64_t lo, hi;		/* where its origin may be in the root's */
	bool alloc;		/* made by sub rsp, n: [origin, hi) allocated */
	int64_t lim;		/* accesses through it end there at most (in
				 * the root's; INT64_MAX: no bound) */
	uint32_t up;		/* its origin lies at most @upd above epoch
				 * @up's (UINT32_MAX: not known) */
	int64_t upd;
	uint32_t tup;		/* with @lim: the same top, offset @tupd of
				 * epoch @tup (UINT32_MAX: not known) */
	int64_t tupd;
	uint32_t bot;		/* with @lim: accesses start at offset 0 of
				 * epoch @bot or above (UINT32_MAX: not
				 * known) */
};
struct rcv_esc {
	uint8_t t[16];		/* per GPR: clean, own-stack pointer, maybe */
	uint32_t ep[16];	/* own-stack pointer: its epoch */
	int64_t d[16];		/* and offset in it */
	struct rcv_esc_ep *eps;
	size_t nep, epcap;
	uint32_t ep0;		/* the first rsp's */
	bool vec;		/* a vector register may hold one */
	bool dirty;		/* a stack slot of unknown offset may */
	struct rcv_esc_slot *slots;	/* stack bytes that may */
	size_t nslots, cap;
	bool rax_k;		/* rax set to a constant (syscall number) */
	uint64_t rax;
	bool rsi_k;		/* rsi set to a constant (ioctl's request) */
	uint64_t rsi;
	uint8_t ft;		/* the arithmetic flags may hold a bit of one */
	uint8_t dft;		/* and DF */
	bool escaped;
	bool local;		/* from a call's entry (rcv_callee.c) */
	/* Local mode, the prologue's pushes alone (rcv_callee.c): a pointer
	 * made at an offset from an own-stack pointer, surely under the
	 * entry's prologue pushes, points into a C object, and stays in it:
	 * it is taken as clean (it reaches no pushed slot).
	 */
	bool obj;
	bool pdone;		/* the prologue (from the entry) has ended */
	int64_t ptop;		/* its lowest pushed slot, in ep0 */
	int32_t depth;		/* calls made from the entry not returned */
	uint16_t kk;		/* per GPR: such a pointer, at kd of kep */
	uint32_t kep[16];
	int64_t kd[16];
};
void rcv_esc_init(struct rcv_esc *e);
void rcv_esc_fini(struct rcv_esc *e);
/* One instruction (@raw0 its first byte); true when it (or one before)
 * may have made a stack address visible to another thread.
 */
bool rcv_esc_step(struct rcv_esc *e, const struct rcv_ins *in, uint8_t raw0);
/* Does a syscall instruction in state @e escape (rcv_escsys.c)? */
bool rcv_esc_syscall(const struct rcv_esc *e);
/* Entered asynchronously (a signal handler): anything may be one. */
void rcv_esc_async(struct rcv_esc *e);
/* rsp's offset from the first rsp, when known. */
bool rcv_esc_rsp_offset(const struct rcv_esc *e, int64_t *d);
/*
 * From a call's entry (rcv_callee.c): every register clean but rsp, and a
 * stack-derived value stored anywhere but surely under the first rsp
 * escapes (above it lie the callers' frames, where pointers made before
 * the call may point).
 */
void rcv_esc_init_local(struct rcv_esc *e);
/* Does [@d, @d + @n) of epoch @ep lie surely under the first rsp? */
bool rcv_esc_below_origin(const struct rcv_esc *e, uint32_t ep, int64_t d,
			  int64_t n);
/* May [@d, +@n) of epoch @a and [@x, +@m) of epoch @b overlap? */
bool rcv_esc_overlap(const struct rcv_esc *e, uint32_t a, int64_t d,
		     int64_t n, uint32_t b, int64_t x, int64_t m);
/*
 * Local mode: is @o an own-stack pointer from an allocation's bottom plus
 * a clean index (C's rule for pointers keeps it in the allocation)?  Then
 * it ends at offset *@tupd of epoch *@tup, and with *@bottom (not
 * UINT32_MAX) starts at offset 0 of that epoch or above.
 */
bool rcv_esc_in_alloc(const struct rcv_esc *e, const struct rcv_op *o,
		      uint32_t *tup, int64_t *tupd, uint32_t *bottom);
/*
 * xsave and the like: a store of the vector state from the operand up, of
 * a length not known (its bound: the allocation it lies in); and the top
 * of the allocation [@d of epoch @ep lies in (local mode), when known.
 */
bool rcv_xsave_like(unsigned int id);
bool rcv_esc_top(const struct rcv_esc *e, uint32_t ep, int64_t d,
		 uint32_t *tup, int64_t *tupd);
/* Does [@d, @d + @n) of epoch @a end at or under offset @x of epoch @b? */
bool rcv_esc_under(const struct rcv_esc *e, uint32_t a, int64_t d,
		   int64_t n, uint32_t b, int64_t x);
/*
 * With e->obj: does @o (a base register and a displacement) go through a
 * pointer into a C object under the prologue's pushes, at offset *@d of
 * epoch *@ep?  (A store there writes what it overlaps, whatever C says.)
 */
bool rcv_esc_obj_at(const struct rcv_esc *e, const struct rcv_op *o,
		    uint32_t *ep, int64_t *d);
/* Where memory operand @o points: 2 the own stack at @ep/@d, 1 maybe the
 * own stack (an address register may be stack-derived), 0 not it.
 */
int rcv_esc_where(const struct rcv_esc *e, const struct rcv_op *o,
		  uint32_t *ep, int64_t *d);

/*
 * SSE moves and shuffles (rcv_sse.c).  rcv_sse_modelled(): is @in one in
 * a form modelled (rcv_decode.c sets in->xsem); rcv_sse_memsize(): the
 * bytes its memory operand covers.  The others as rcv_forward() and
 * rcv_backward(): xmm merged into @post (@pre) directly, general-purpose
 * registers set in the partial state @o (@p) rcv_sem.c merges; as
 * rcv_reads() (false: not one of ours) and rcv_writes() (@wr's address
 * already set: adds the value).
 */
bool rcv_sse_modelled(const struct rcv_ins *in);
unsigned int rcv_sse_memsize(const struct rcv_ins *in);
bool rcv_sse_forward(const struct rcv_ctx *c, uint64_t i,
		     const struct rcv_ins *in, const struct rcv_state *pre,
		     struct rcv_state *o, struct rcv_state *post,
		     uint64_t *conflicts);
bool rcv_sse_backward(const struct rcv_ctx *c, uint64_t i,
		      const struct rcv_ins *in, struct rcv_state *pre,
		      const struct rcv_state *post, struct rcv_state *p,
		      uint64_t *conflicts);
bool rcv_sse_reads(const struct rcv_ctx *c, const struct rcv_ins *in,
		   const struct rcv_state *pre, const struct rcv_state *post,
		   struct rcv_acc *rd);
void rcv_sse_writes(const struct rcv_ins *in, const struct rcv_state *pre,
		    struct rcv_acc *wr);
/* xmm registers @xw does not name, from @from into @to. */
bool rcv_sse_flow(struct rcv_state *to, const struct rcv_state *from,
		  uint16_t xw, uint64_t *conflicts);

/* Syscalls that write no user memory and keep all but rax/rcx/r11; those
 * after which no register is known (rcv_mem.c).
 */
bool rcv_sys_quiet(uint64_t nr);
bool rcv_sys_resets(uint64_t nr);

/* rsp and rbp before an instruction as class + offset (rcv_stack.c): two
 * positions of one class differ by the difference of their offsets.
 * Class 0: unknown (rbp only).  (rcv_stack.c follows every register's
 * class while it builds them; only rsp's and rbp's are kept.)
 */
struct rcv_frame {
	uint32_t rsp_c, rbp_c;
	int64_t rsp_o, rbp_o;
};

/*
 * A function's own frame slots (rcv_stack.c, docs/values.md "A callee's
 * own frame"): an 8-byte mov of a register or an immediate into
 * [reg + d] (a spill, where reg's frame class is known: rsp, rbp, a copy
 * of rsp), and an 8-byte mov from one into a register (its reload).  A
 * reload's pair is the spill that wrote its slot last.
 */
bool rcv_frame_spill(const struct rcv_ins *in);
bool rcv_frame_reload(const struct rcv_ins *in);
/* What a pair's writer (a push or a spill) put in the slot. */
const struct rcv_op *rcv_pair_src(const struct rcv_ins *p);

/*
 * Fills @f[0..@n] for instructions @ins[0..@n) and @pair[i]: for a pop (or
 * leave's pop of rbp) the push whose value it reads back, for a reload
 * (rcv_frame_reload()) the spill whose value it reads back, else -1.
 * Returns the number of classes (ids below it), or -RP_ERR_NOMEM.
 */
int rcv_stack_build(const struct rcv_ins *ins, size_t n,
		    struct rcv_frame *f, int64_t *pair);

/*
 * The states before instructions 0..n of rcv_stack_build_v(): @a[0..@na)
 * then @b[0..] (a window and the one after it).  Optional: @ins_b, the
 * instructions from @na on (the @ins of rcv_stack_build_v() then holds
 * the first @na only), and @tmp, tables kept from one build to the next
 * (rcv_stack_tmp_free()).
 */
struct rcv_stack_tmp;
struct rcv_stack_vals {
	const struct rcv_state *a, *b;
	size_t na;
	const struct rcv_ins *ins_b;
	struct rcv_stack_tmp *tmp;
	/* With @gated, the stack is the thread's alone only up to the
	 * state before instruction @until + 1 (rcv_stack_until()): a pop
	 * after it keeps its push's value, or rbp's frame, only where a
	 * callee's own stack shows it (rcv_callee.c; *@local[i] then 1,
	 * when @local), and never with @noproof (an rseq area on the
	 * stack, asynchronous I/O).
	 */
	bool gated, noproof;
	int64_t until;
	uint8_t *local;
	/* Optional: what system call i writes (rcv_sys_write() of the
	 * window that holds it): 1 [*a, *a + *len), 0 nothing, -1 not
	 * known.  Without it, a call writes nothing only by its number
	 * (rcv_sys_quiet()).
	 */
	int (*sys_write)(void *ctx, size_t i, uint64_t *a, uint64_t *len);
	void *sys_ctx;
	/* Optional, for instructions that end at the thread's end (the
	 * snapshot): for a push p still on the stack there (the history
	 * ends inside its function: exit), @ekeep[p] the first position
	 * r > p + 1 such that a callee's own stack shows no instruction in
	 * (p, r) wrote its slot (rcv_callee_kept_to() to the end), else 0.
	 */
	uint32_t *ekeep;
	/* Optional: is @a in the thread's own stack, no C object's
	 * (rcv_own_stack())?  With it, the callee argument and @ekeep hold
	 * only for slots there, and with @mt no pair elsewhere; without
	 * it, everywhere (unit tests).
	 */
	bool (*own)(void *ctx, uint64_t a);
	void *own_ctx;
	bool mt;		/* other threads share the memory */
	/* rsp after the last instruction when the build ends at the
	 * thread's end (its registers there), for @own where the states
	 * do not know it yet (a window's first build).
	 */
	bool end_sp_ok;
	uint64_t end_sp;
	/* Optional: the windows whose instructions these are (struct win's
	 * serial, @idb the later one's with @ins_b; 0 none).  With @ida, the
	 * callee walks are kept across builds of the same instructions
	 * (rcv_callee.c); @verify (PTREC_RCV_VERIFY) walks again each one
	 * taken from there and aborts unless it is the same.
	 */
	uint64_t ida, idb;
	bool verify;
};
int rcv_stack_tmp_new(struct rcv_stack_tmp **t);
void rcv_stack_tmp_free(struct rcv_stack_tmp *t);

/*
 * A callee's own stack (rcv_callee.c): did nothing from the push (or
 * spill) at @p to its pop (or reload) at @q write the slot, where every
 * store between that rcv_stack.c cannot place goes through an address
 * not derived from the stack under the entry's rsp (@e: the instruction
 * after a call)?
 * @at(@ctx, i) gives instruction i.  A walker keeps its last entry's
 * analysis, so that the pops of one function walk it once.
 */
struct rcv_callee;
int rcv_callee_new(struct rcv_callee **c);
void rcv_callee_free(struct rcv_callee *c);
/* A new build: the walk it had kept for a later one (rcv_callee_cache()). */
void rcv_callee_reset(struct rcv_callee *c);
/*
 * Walks kept across stack builds of the same instructions (one per
 * rcv_stack_tmp): a walker that starts again from an entry it walked in
 * an earlier build (the same windows: rcv_callee_build()) takes that
 * walk's records and goes over them, checking each instruction's flags,
 * fs operands and system calls placed against the record, instead of
 * stepping the escape analysis again; where one differs it walks again
 * from the entry.  Every count and answer is the walk's own (the budget
 * counts the records gone over as instructions walked).
 */
struct rcv_cwc;
struct rcv_cwc *rcv_cwc_new(void);
void rcv_cwc_free(struct rcv_cwc *k);
/* The build about to run: windows @ida (0: keep nothing) and @idb, the
 * first @na instructions @ida's.
 */
void rcv_cwc_build(struct rcv_cwc *k, uint64_t ida, uint64_t idb, size_t na,
		   bool verify);
void rcv_callee_set_cache(struct rcv_callee *c, struct rcv_cwc *k);
/* System calls the caller placed (@placed(ctx, i) true) do not end the
 * walk: the caller decides the pairs across them.
 */
void rcv_callee_set_placed(struct rcv_callee *c,
			   bool (*placed)(const void *ctx, size_t i));
/* The entry its walk starts at, -1 none. */
int64_t rcv_callee_entry(const struct rcv_callee *c);
bool rcv_callee_keeps(struct rcv_callee *c, const struct rcv_ins *(*at)(
			      const void *, size_t), const void *ctx,
		      int64_t e, int64_t p, int64_t q);
/*
 * The same argument from the push (or spill) at @p towards @q, where no
 * pop may come (exit() does not return): the first position r in
 * (@p, @q] such that no instruction in (@p, r) wrote the slot (@q: none
 * up to it), @p when nothing is shown.
 */
int64_t rcv_callee_kept_to(struct rcv_callee *c, const struct rcv_ins *(*at)(
				   const void *, size_t), const void *ctx,
			   int64_t e, int64_t p, int64_t q);
/* rep stos with 64-bit addresses: rcx elements from rdi, up or down
 * (rcv_stack.c counts it as a store of unknown place, which the callee
 * argument places).
 */
bool rcv_rep_stos(const struct rcv_ins *in);

/*
 * rcv_stack_build() with what is known so far (@sv, or NULL): a store
 * whose address the values give breaks a push/pop pair only when the
 * push's rsp is unknown or the store reaches its slot; unknown stores
 * break every pair they span, as before.
 */
int rcv_stack_build_v(const struct rcv_ins *ins, size_t n,
		      const struct rcv_stack_vals *sv, struct rcv_frame *f,
		      int64_t *pair);

/* In a length rcv_sys_writes() gives: the call may leave the range's bytes
 * (RCV_SYS_MAYBE set), or writes somewhere not known (RCV_SYS_ANY, the
 * whole length; its address means nothing).
 */
#define RCV_SYS_MAYBE	(1ull << 63)
#define RCV_SYS_ANY	UINT64_MAX

/*
 * One instruction of a window, for rcv_accesses() (rcv_access.c): its
 * states before and after, its stack frame, the thread's stack mapping,
 * fs_base at the end, and what the system call table says it writes
 * (@sys as rcv_sys_writes(): that many ranges [@sys_addr[k], +
 * @sys_len[k]), 0 none, -1 unknown).
 */
struct rcv_where {
	const struct rcv_ins *in;
	const struct rcv_state *pre, *post;
	const struct rcv_frame *fr;
	uint64_t stack_lo, stack_hi;
	struct rcv_val fs_end;
	int sys;
	uint64_t sys_addr[4], sys_len[4];
};

struct rp_access;

/* The accesses of @at into @acc (at most @max); returns their number. */
int rcv_accesses(const struct rcv_ctx *c, const struct rcv_where *at,
		 struct rp_access *acc, size_t max);

/*
 * rcv_why.c: the register (rcv_state index) whose being unknown before
 * @in, in state @pre, leaves bits @u of register @g unknown after it
 * (the operand rp_recover_why() follows), -2 an xmm register, -1 none
 * (the engine lacks a rule).
 */
int rcv_why_operand(const struct rcv_ins *in, const struct rcv_state *pre,
		    unsigned int g, uint64_t u);

#endif /* PTREC_RCV_INTERNAL_H */
