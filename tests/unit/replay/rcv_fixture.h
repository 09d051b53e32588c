/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the recovery engine's unit tests share (test_recover.c,
 * test_recover_cpu.c, test_rcv_stack.c, ...): a decoder made per test,
 * instructions decoded from their bytes at 0x401000, known/unknown values
 * and random operands.  Each test file
 * declares its own TestSuite(NAME, .init = setup, .fini = teardown).
 */
#ifndef RCV_FIXTURE_H
#define RCV_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"

static struct rcv_dec *dec;

static inline void setup(void)
{
	cr_assert_eq(rcv_dec_new(&dec), 0);
}

static inline void teardown(void)
{
	rcv_dec_free(dec);
}

static inline struct rcv_ins ins(const char *bytes, size_t len)
{
	struct rcv_ins in;

	rcv_decode(dec, 0x401000, (const uint8_t *)bytes, len, RP_IC_OTHER,
		   &in);
	in.next = in.ip + in.len;
	return in;
}

#define INS(b) ins(b, sizeof(b) - 1)

static const struct rcv_val unknown = { 0, 0 };

/* A context's memory where nothing is known (instructions that read none). */
static inline struct rcv_val no_mem(void *c, uint64_t i, uint64_t addr,
				    unsigned int size)
{
	(void)c;
	(void)i;
	(void)addr;
	(void)size;
	return unknown;
}

static inline struct rcv_val val(uint64_t v)
{
	return (struct rcv_val){ v, ~0ull };
}

/*
 * The last of @n (at most 7) instructions @in's pair (rcv_stack_build_v():
 * its index, -1 none) with rsp 0x6ff8 in the states of @low (bit k: the
 * state before instruction k) and 0x7000 in the others, unknown unless
 * @rsp_known, and rax @rax, unknown unless @rax_known.
 */
static inline int64_t last_pair(const struct rcv_ins *in, size_t n,
				unsigned int low, bool rsp_known,
				bool rax_known, uint64_t rax)
{
	struct rcv_state st[8];
	struct rcv_stack_vals sv = { .a = st, .na = n + 1 };
	struct rcv_frame f[8];
	int64_t pair[7];
	size_t k;

	cr_assert(n && n < 8);
	memset(st, 0, sizeof(st));
	for (k = 0; k <= n; k++) {
		st[k].r[RP_REG_RSP] = !rsp_known ? unknown :
				      val(low >> k & 1 ? 0x6ff8 : 0x7000);
		st[k].r[RP_REG_RAX] = rax_known ? val(rax) : unknown;
	}
	cr_assert_gt(rcv_stack_build_v(in, n, &sv, f, pair), 0);
	return pair[n - 1];
}

/* A random operand, or one of the edge values a third of the time. */
static inline uint64_t rnd(void)
{
	static const uint64_t edge[] = {
		0, 1, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
		0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, 0x0f,
		0x10,
	};
	uint64_t r = ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^
		     (uint64_t)random();

	return r % 3 ? r : edge[r % (sizeof(edge) / sizeof(edge[0]))];
}

#endif
