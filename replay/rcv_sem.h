/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine's x86-64 semantics, which two files
 * share: rcv_sem.c (forward: emulation when the inputs are known) and
 * rcv_back.c (backward: inversion where it is exact).  What both ask for
 * every instruction is inline here (passing through, merging a state);
 * an operand's value before an instruction is rcv_sem.c's.
 */
#ifndef PTREC_RCV_SEM_H
#define PTREC_RCV_SEM_H

#include <string.h>

#include <capstone/capstone.h>

#include "rcv_val.h"
#include "replay.h"

/* PF, ZF and SF of result @r of @size bytes (SDM Vol. 1 3.4.3.1). */
static inline uint64_t pf_zf_sf(uint64_t r, unsigned int size)
{
	uint64_t f = 0;

	if (!__builtin_parity((unsigned int)(r & 0xff)))
		f |= F_PF;
	if (!(r & wmask(size)))
		f |= F_ZF;
	if (r >> (8 * size - 1) & 1)
		f |= F_SF;
	return f;
}

/* The flags of an addition of @a, @b and carry @cin, @size bytes. */
static inline uint64_t flags_add(uint64_t a, uint64_t b, uint64_t cin,
				 unsigned int size)
{
	uint64_t m = wmask(size), r = (a + b + cin) & m, f;
	unsigned int top = 8 * size - 1;

	f = pf_zf_sf(r, size);
	if (size == 8 ? (r < a || (cin && r == a)) :
	    ((a + b + cin) >> (8 * size)))
		f |= F_CF;
	if (((a ^ r) & (b ^ r)) >> top & 1)
		f |= F_OF;
	if ((a ^ b ^ r) & 0x10)
		f |= F_AF;
	return f;
}

/* The bits @mask of rflags in @s become known as in @f. */
static inline void set_flags(struct rcv_state *s, uint64_t mask, uint64_t f)
{
	s->r[RCV_FLAGS].k |= mask;
	s->r[RCV_FLAGS].v = (s->r[RCV_FLAGS].v & ~mask) | (f & mask);
}

/* Operand value before the instruction, low @size bytes (rcv_sem.c). */
struct rcv_val rcv_op_get(const struct rcv_ctx *c, uint64_t i,
			  const struct rcv_ins *in, const struct rcv_op *op,
			  const struct rcv_state *s, unsigned int size);

/* The state after @in as far as passing through tells: bits it does not
 * write stay.
 */
static inline void rcv_pass(const struct rcv_ins *in,
			    const struct rcv_state *from,
			    struct rcv_state *to)
{
	uint64_t w[2], x, keep;
	int g, h, b;

	/* Most instructions write one general-purpose register or none
	 * (p99): all copied, then the bits written cleared.
	 */
	memcpy(w, in->wcode, sizeof(w));
	memcpy(to->r, from->r, 16 * sizeof(to->r[0]));
	for (h = 0; h < 2; h++)
		for (x = w[h]; x;) {
			b = __builtin_ctzll(x) >> 3;
			x &= ~(0xffull << (8 * b));
			g = 8 * h + b;
			keep = ~rcv_wmask(in->wcode[g]);
			to->r[g].k &= keep;
			to->r[g].v &= keep;
		}
	/* RF: before an instruction it tells nothing about after it. */
	to->r[RCV_FLAGS].k = from->r[RCV_FLAGS].k & ~in->fw & ~F_RF;
	to->r[RCV_FLAGS].v = from->r[RCV_FLAGS].v & ~in->fw & ~F_RF;
	/* xmm: rcv_sse_flow(), straight between the window's states. */
}

/*
 * The registers of @m (bits as rcv_io_touch(): RCV_NREG of them) merged
 * from @from into @to; returns the mask of those that changed.
 */
static inline uint32_t rcv_merge_state(struct rcv_state *to,
				       const struct rcv_state *from,
				       uint32_t m, uint64_t *conflicts)
{
	uint64_t both, add, c = 0;
	uint32_t ch = 0;
	int g;

	/* Without branches (every pass 0 evaluation merges all): as
	 * rcv_merge() for each.
	 */
	if ((m & RCV_IO_ALL) == RCV_IO_ALL) {
		/* Unrolled: no loop counter among 17 short bodies. */
#pragma GCC unroll 17
		for (g = 0; g < RCV_NREG; g++) {
			both = to->r[g].k & from->r[g].k;
			add = from->r[g].k & ~to->r[g].k;
			c |= (to->r[g].v ^ from->r[g].v) & both;
			to->r[g].v = (to->r[g].v & ~add) |
				     (from->r[g].v & add);
			to->r[g].k |= add;
			ch |= (uint32_t)!!add << g;
		}
		/* Conflicts are rare: counted only when there is one.  The
		 * bits both knew before are unchanged and those added now
		 * agree, so each register counts as it did above.
		 */
		for (g = 0; c && g < RCV_NREG; g++)
			*conflicts += !!((to->r[g].v ^ from->r[g].v) &
					 to->r[g].k & from->r[g].k);
		return ch;
	}
	m &= (1u << RCV_NREG) - 1;
	while (m) {
		g = __builtin_ctz(m);
		m &= m - 1;
		if (rcv_merge(&to->r[g], from->r[g], conflicts))
			ch |= 1u << g;
	}
	return ch;
}

/*
 * A system call returns with the rflags it was made with and rcx the
 * address after it: SYSCALL saves rflags in r11 and that address in rcx,
 * Linux keeps them in the frame it saves at entry (pt_regs: flags from
 * r11, ip and cx from rcx) and returns with sysret (rflags from r11,
 * masked with 0x3c7fd7: RF and VM cleared) or iret (rflags and rcx from
 * that frame) alike.  Only a known number, and not iopl (172: kernels
 * before 5.5 set IOPL in the saved rflags), rt_sigreturn, execve or
 * execveat (which set every register; their barrier stays anyway); a
 * signal delivered at its return is a transfer, a barrier.  r11 holds
 * rflags as they were (R11 <- RFLAGS; pt_regs' r11 is given back on both
 * paths): the software recorder, whose single-step leaves TF there,
 * clears it as the untraced program would see it (record/emu_step.c).
 */
static inline bool rcv_sys_keeps_flags(const struct rcv_ins *in,
				       const struct rcv_state *pre)
{
	uint64_t nr = pre->r[RP_REG_RAX].v;

	return in->id == X86_INS_SYSCALL && (in->flags & RCV_I_SYSCALL) &&
	       pre->r[RP_REG_RAX].k == ~0ull && nr != 172 &&
	       !rcv_sys_resets(nr);
}

/* cmpxchg [mem], r of 4 or 8 bytes: the form rcv_sem.c models. */
static inline bool rcv_cmpxchg_mem(const struct rcv_ins *in)
{
	return in->id == X86_INS_CMPXCHG && in->nops == 2 &&
	       in->op[0].type == RCV_OP_MEM && in->op[1].type == RCV_OP_REG &&
	       (in->op[0].size == 4 || in->op[0].size == 8) &&
	       in->op[1].size == in->op[0].size;
}

/*
 * ZF after cmpxchg [mem], r known set (a jne after it not taken: the lock
 * taken): the accumulator's low bytes were not written, both ways.
 */
static inline void rcv_cmpxchg_zf(const struct rcv_ins *in,
				  const struct rcv_state *from,
				  const struct rcv_state *post,
				  struct rcv_state *to)
{
	struct rcv_val f = post->r[RCV_FLAGS];

	if (!rcv_cmpxchg_mem(in) || !(f.k & F_ZF) || !(f.v & F_ZF) ||
	    (in->flags & RCV_I_BARRIER))
		return;
	learn(to, RP_REG_RAX, in->op[0].size, 0,
	      reg_get(from, RP_REG_RAX, in->op[0].size, 0));
}

static inline uint64_t rcv_bswap(uint64_t v, unsigned int size)
{
	return size == 8 ? __builtin_bswap64(v) :
	       (uint64_t)__builtin_bswap32((uint32_t)v);
}

#endif /* PTREC_RCV_SEM_H */
