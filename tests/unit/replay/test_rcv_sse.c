// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the recovery engine's SSE semantics (replay/rcv_sse.c):
 * xmm values computed forward against this CPU running the same
 * instructions; inversions (a store teaches the register, movq the
 * general-purpose source, punpcklqdq and pshufd their sources); loads
 * and stores naming the 16 bytes they move; and an instruction not
 * modelled making its xmm operands unknown, no other.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "rcv_win.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_sse, .init = setup, .fini = teardown);

/* 16 bytes of fake memory at 0x7000. */
static uint64_t mem_q[2];
static bool mem_known, mem_own;

static struct rcv_val mem_cb(void *ctx, uint64_t i, uint64_t addr,
			     unsigned int size)
{
	(void)ctx;
	(void)i;
	if (!mem_known || (addr != 0x7000 && addr != 0x7008) || size != 8)
		return unknown;
	return val(mem_q[addr == 0x7008]);
}

static bool own_cb(void *ctx, uint64_t addr, unsigned int size)
{
	(void)ctx;
	return mem_own && addr >= 0x7000 && addr + size <= 0x7010;
}

static struct rcv_ctx ctx = { .mem = mem_cb, .own = own_cb };

static void xval(struct rcv_state *s, int n, uint64_t lo, uint64_t hi)
{
	s->x[n][0] = val(lo);
	s->x[n][1] = val(hi);
	s->xk |= (uint16_t)(1u << n);
}

static void assert_x(const struct rcv_state *s, int n, uint64_t lo,
		     uint64_t hi)
{
	cr_assert_eq(s->x[n][0].k, ~0ull, "xmm%d low unknown", n);
	cr_assert_eq(s->x[n][1].k, ~0ull, "xmm%d high unknown", n);
	cr_assert_eq(s->x[n][0].v, lo, "xmm%d low %#lx, CPU %#lx", n,
		     (unsigned long)s->x[n][0].v, (unsigned long)lo);
	cr_assert_eq(s->x[n][1].v, hi, "xmm%d high %#lx, CPU %#lx", n,
		     (unsigned long)s->x[n][1].v, (unsigned long)hi);
}

/* Runs @in forward from @pre into a fresh state. */
static struct rcv_state fwd(const struct rcv_ins *in,
			    const struct rcv_state *pre)
{
	struct rcv_state post;
	uint64_t conf = 0;

	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, in, pre, &post, &conf);
	cr_assert_eq(conf, 0);
	return post;
}

static struct rcv_state back(const struct rcv_ins *in,
			     const struct rcv_state *post)
{
	struct rcv_state pre;
	uint64_t conf = 0;

	memset(&pre, 0, sizeof(pre));
	rcv_backward(&ctx, 0, in, &pre, post, &conf);
	cr_assert_eq(conf, 0);
	return pre;
}

Test(rcv_sse, forward_matches_cpu)
{
	static const uint64_t a = 0x1122334455667788ull,
			      b = 0x99aabbccddeeff00ull,
			      c = 0x0123456789abcdefull,
			      e = 0xfedcba9876543210ull;
	struct rcv_ins movq_in = INS("\x66\x48\x0f\x6e\xc0"),
		       movq_out = INS("\x66\x48\x0f\x7e\xc1"),
		       movd_in = INS("\x66\x0f\x6e\xc0"),
		       unpl = INS("\x66\x0f\x6c\xc1"),
		       unph = INS("\x66\x0f\x6d\xc1"),
		       shuf = INS("\x66\x0f\x70\xd0\x1b"),
		       pxor = INS("\x66\x0f\xef\xc0"),
		       movqx = INS("\xf3\x0f\x7e\xc8"),
		       vpxor = INS("\xc5\xf9\xef\xc0");
	struct rcv_state s, o;
	uint64_t cpu[2], r;

	/* movq %rax,%xmm0; movq %xmm0,%rcx */
	memset(&s, 0, sizeof(s));
	s.r[RP_REG_RAX] = val(a);
	o = fwd(&movq_in, &s);
	__asm__("movq %2, %%xmm0\n\tmovdqu %%xmm0, %0\n\tmovq %%xmm0, %1"
		: "=m"(cpu), "=r"(r) : "r"(a) : "xmm0");
	assert_x(&o, 0, cpu[0], cpu[1]);
	o = fwd(&movq_out, &o);
	cr_assert_eq(o.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(o.r[RP_REG_RCX].v, r);
	/* movd %eax,%xmm0 */
	o = fwd(&movd_in, &s);
	__asm__("movd %k1, %%xmm0\n\tmovdqu %%xmm0, %0"
		: "=m"(cpu) : "r"(a) : "xmm0");
	assert_x(&o, 0, cpu[0], cpu[1]);
	/* punpcklqdq, punpckhqdq %xmm1,%xmm0 */
	memset(&s, 0, sizeof(s));
	xval(&s, 0, a, b);
	xval(&s, 1, c, e);
	o = fwd(&unpl, &s);
	__asm__("movq %1, %%xmm0\n\tpinsrq $1, %2, %%xmm0\n\t"
		"movq %3, %%xmm1\n\tpinsrq $1, %4, %%xmm1\n\t"
		"punpcklqdq %%xmm1, %%xmm0\n\tmovdqu %%xmm0, %0"
		: "=m"(cpu) : "r"(a), "r"(b), "r"(c), "r"(e)
		: "xmm0", "xmm1");
	assert_x(&o, 0, cpu[0], cpu[1]);
	assert_x(&o, 1, c, e);
	o = fwd(&unph, &s);
	__asm__("movq %1, %%xmm0\n\tpinsrq $1, %2, %%xmm0\n\t"
		"movq %3, %%xmm1\n\tpinsrq $1, %4, %%xmm1\n\t"
		"punpckhqdq %%xmm1, %%xmm0\n\tmovdqu %%xmm0, %0"
		: "=m"(cpu) : "r"(a), "r"(b), "r"(c), "r"(e)
		: "xmm0", "xmm1");
	assert_x(&o, 0, cpu[0], cpu[1]);
	/* pshufd $0x1b,%xmm0,%xmm2 */
	o = fwd(&shuf, &s);
	__asm__("movq %1, %%xmm0\n\tpinsrq $1, %2, %%xmm0\n\t"
		"pshufd $0x1b, %%xmm0, %%xmm2\n\tmovdqu %%xmm2, %0"
		: "=m"(cpu) : "r"(a), "r"(b) : "xmm0", "xmm2");
	assert_x(&o, 2, cpu[0], cpu[1]);
	/* movq %xmm0,%xmm1: the low half, the high one zero */
	o = fwd(&movqx, &s);
	assert_x(&o, 1, a, 0);
	/* pxor and vpxor of a register with itself: zero from unknown */
	memset(&s, 0, sizeof(s));
	o = fwd(&pxor, &s);
	assert_x(&o, 0, 0, 0);
	o = fwd(&vpxor, &s);
	assert_x(&o, 0, 0, 0);
}

Test(rcv_sse, loads_and_stores)
{
	struct rcv_ins store = INS("\x0f\x29\x00"),
		       load = INS("\xf3\x0f\x6f\x08"),
		       movhps = INS("\x0f\x16\x00"),
		       movlps = INS("\x0f\x13\x00"),
		       vstore = INS("\xc5\xfe\x7f\x00");
	struct rcv_state s, o;
	struct rcv_acc acc;
	uint8_t b;

	memset(&s, 0, sizeof(s));
	s.r[RP_REG_RAX] = val(0x7000);
	xval(&s, 0, 0x1111, 0x2222);
	/* movaps %xmm0,(%rax): 16 bytes, both halves */
	rcv_writes(&ctx, &store, &s, &s, &acc);
	cr_assert(acc.valid && acc.addr_known);
	cr_assert_eq(acc.addr, 0x7000);
	cr_assert_eq(acc.size, 16);
	cr_assert_eq(acc.val.v, 0x1111);
	cr_assert_eq(acc.hi.v, 0x2222);
	cr_assert_eq(rcv_acc_byte(&acc, 0x7008, &b), 1);
	cr_assert_eq(b, 0x22);
	/* vmovdqu %ymm0,(%rax): 32 bytes, the upper 16 never known */
	rcv_writes(&ctx, &vstore, &s, &s, &acc);
	cr_assert_eq(acc.size, 32);
	cr_assert_eq(rcv_acc_byte(&acc, 0x7008, &b), 1);
	cr_assert_eq(rcv_acc_byte(&acc, 0x7010, &b), 0);
	/* movdqu (%rax),%xmm1 forward from memory, and the load names
	 * what xmm1 holds after it
	 */
	mem_known = true;
	mem_q[0] = 0xaaaa;
	mem_q[1] = 0xbbbb;
	o = fwd(&load, &s);
	assert_x(&o, 1, 0xaaaa, 0xbbbb);
	rcv_reads(&ctx, &load, &s, &o, &acc);
	cr_assert_eq(acc.size, 16);
	cr_assert_eq(acc.val.v, 0xaaaa);
	cr_assert_eq(acc.hi.v, 0xbbbb);
	/* movhps (%rax),%xmm0: the high half from memory, the low kept */
	o = fwd(&movhps, &s);
	assert_x(&o, 0, 0x1111, 0xaaaa);
	rcv_reads(&ctx, &movhps, &s, &o, &acc);
	cr_assert_eq(acc.size, 8);
	cr_assert_eq(acc.val.v, 0xaaaa);
	/* movlps %xmm0,(%rax): 8 bytes, the low half */
	rcv_writes(&ctx, &movlps, &s, &s, &acc);
	cr_assert_eq(acc.size, 8);
	cr_assert_eq(acc.val.v, 0x1111);
	mem_known = false;
}

Test(rcv_sse, backward)
{
	struct rcv_ins movq_in = INS("\x66\x48\x0f\x6e\xc0"),
		       unpl = INS("\x66\x0f\x6c\xc1"),
		       shuf = INS("\x66\x0f\x70\xd0\x1b"),
		       store = INS("\x0f\x29\x00"),
		       movq_out = INS("\x66\x48\x0f\x7e\xc1");
	struct rcv_state post, pre;

	/* movq %rax,%xmm0: rax before is xmm0's low half after */
	memset(&post, 0, sizeof(post));
	xval(&post, 0, 0x1234, 0);
	pre = back(&movq_in, &post);
	cr_assert_eq(pre.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RAX].v, 0x1234);
	cr_assert_eq(pre.x[0][0].k, 0, "xmm0 before: not implied");
	/* movq %xmm0,%rcx: xmm0's low half before is rcx after */
	memset(&post, 0, sizeof(post));
	post.r[RP_REG_RCX] = val(0x77);
	pre = back(&movq_out, &post);
	cr_assert_eq(pre.x[0][0].k, ~0ull);
	cr_assert_eq(pre.x[0][0].v, 0x77);
	cr_assert_eq(pre.x[0][1].k, 0);
	/* punpcklqdq %xmm1,%xmm0: xmm0.lo and xmm1.lo before */
	memset(&post, 0, sizeof(post));
	xval(&post, 0, 5, 6);
	pre = back(&unpl, &post);
	cr_assert_eq(pre.x[0][0].v, 5);
	cr_assert_eq(pre.x[0][1].k, 0);
	cr_assert_eq(pre.x[1][0].v, 6);
	cr_assert_eq(pre.x[1][0].k, ~0ull);
	/* pshufd $0x1b (lanes reversed): xmm0 before from xmm2 after */
	memset(&post, 0, sizeof(post));
	xval(&post, 2, 0x0000000100000002ull, 0x0000000300000004ull);
	pre = back(&shuf, &post);
	cr_assert_eq(pre.x[0][0].k, ~0ull);
	cr_assert_eq(pre.x[0][0].v, 0x0000000300000004ull >> 32 |
		     (0x0000000300000004ull & 0xffffffff) << 32);
	cr_assert_eq(pre.x[0][1].v, 0x0000000100000002ull >> 32 |
		     (0x0000000100000002ull & 0xffffffff) << 32);
	/* movaps %xmm0,(%rax): xmm0 before is memory after, in memory
	 * this thread alone writes only
	 */
	memset(&post, 0, sizeof(post));
	post.r[RP_REG_RAX] = val(0x7000);
	mem_known = true;
	mem_q[0] = 0x55;
	mem_q[1] = 0x66;
	memset(&pre, 0, sizeof(pre));
	pre.r[RP_REG_RAX] = val(0x7000);
	mem_own = true;
	{
		uint64_t conf = 0;

		rcv_backward(&ctx, 0, &store, &pre, &post, &conf);
		cr_assert_eq(conf, 0);
	}
	cr_assert_eq(pre.x[0][0].v, 0x55);
	cr_assert_eq(pre.x[0][1].v, 0x66);
	cr_assert_eq(pre.x[0][1].k, ~0ull);
	mem_own = false;
	memset(&pre, 0, sizeof(pre));
	pre.r[RP_REG_RAX] = val(0x7000);
	{
		uint64_t conf = 0;

		rcv_backward(&ctx, 0, &store, &pre, &post, &conf);
	}
	cr_assert_eq(pre.x[0][0].k, 0, "shared memory: nothing");
	mem_known = false;
}

/* Not modelled: every explicit xmm operand counts as written (capstone's
 * lists are not trusted, as for general-purpose registers), no other.
 */
Test(rcv_sse, unmodelled_writes_its_operands_only)
{
	struct rcv_ins paddq = INS("\x66\x0f\xd4\xc1"),
		       movss = INS("\xf3\x0f\x10\x00"),
		       syscall = INS("\x0f\x05");
	struct rcv_state s, o;
	int n;

	memset(&s, 0, sizeof(s));
	for (n = 0; n < RCV_NXMM; n++)
		xval(&s, n, (uint64_t)n, (uint64_t)n << 8);
	o = fwd(&paddq, &s);
	cr_assert_eq(o.x[0][0].k | o.x[0][1].k, 0, "paddq: xmm0 unknown");
	assert_x(&o, 2, 2, 2 << 8);
	o = fwd(&movss, &s);
	cr_assert_eq(o.x[0][0].k | o.x[0][1].k, 0, "movss: xmm0 unknown");
	/* backward too: nothing of xmm0 before from after */
	o = back(&paddq, &s);
	cr_assert_eq(o.x[0][0].k | o.x[0][1].k, 0);
	assert_x(&o, 2, 2, 2 << 8);
	/* A system call keeps them, as it keeps rbx (getpid) */
	s.r[RP_REG_RAX] = val(39);
	o = fwd(&syscall, &s);
	for (n = 0; n < RCV_NXMM; n++)
		assert_x(&o, n, (uint64_t)n, (uint64_t)n << 8);
}
