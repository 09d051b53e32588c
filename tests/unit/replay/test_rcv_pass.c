// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the passes over a window (replay/rcv_pass.c): what a
 * window knows once its passes settle must not depend on the order of the
 * work.  The engine takes shortcuts (issue #17's latency): an instruction
 * is evaluated again only when its states, flags or memory answers may
 * have changed (struct redo), its first pass asks no memory and builds no
 * index, proves no branch and refines no frame (rc->mem_off).  Each test
 * computes the same hand-made window twice, with the shortcuts and with
 * every instruction evaluated in every pass and the first pass like the
 * others (rc->all_passes), and compares every state: the two fixpoints
 * must be the same bit for bit, whatever order knowledge arrived in.
 */
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_win.h"

TestSuite(rcv_pass, .init = setup, .fini = teardown);

#define MAXN	48

static struct rp_recover rc;

/* A window of @n instructions @in ending at the thread's end, whose
 * registers there are @top (bit g of @topk: known), and whose first
 * state is @seed (NULL: nothing known), computed with or without the
 * shortcuts.  The caller frees it (rcv_win_free()).
 */
static struct win *computed(const struct rcv_ins *in, size_t n,
			    const uint64_t *top, uint32_t topk,
			    const struct rcv_state *seed, bool all)
{
	struct win *w = calloc(1, sizeof(*w));
	int g;

	cr_assert(w);
	if (rc.stk)
		rcv_stack_tmp_free(rc.stk);
	memset(&rc, 0, sizeof(rc));
	cr_assert_eq(rcv_stack_tmp_new(&rc.stk), 0);
	rc.mb_gen = 1;
	rc.aio = 1;		/* no history: no asynchronous I/O */
	rc.all_passes = all;
	rcv_ctx_windows(&rc);	/* the engine's own callbacks */
	rc.end = n;
	for (g = 0; g < 16; g++)
		if (topk >> g & 1) {
			rc.end_regs.valid |= 1ull << g;
			rc.end_regs.val[g] = top[g];
		}
	w->rc = &rc;
	w->n = n;
	w->last = n;
	w->top_end = true;
	w->ins = calloc(n + 1, sizeof(*w->ins));
	w->st = calloc(n + 1, sizeof(*w->st));
	w->mbar = calloc(n + 1, 1);
	w->ixs = calloc(n + 1, 1);
	w->nb = calloc(n + 1, sizeof(*w->nb));
	w->pb = calloc(n + 1, sizeof(*w->pb));
	w->fr = calloc(n + 1, sizeof(*w->fr));
	w->pair = calloc(n + 1, sizeof(*w->pair));
	w->plocal = calloc(n + 1, 1);
	w->rmw = calloc(2 * (n + 1), sizeof(*w->rmw));
	cr_assert(w->ins && w->st && w->mbar && w->ixs && w->nb && w->pb &&
		  w->fr && w->pair && w->plocal && w->rmw);
	memcpy(w->ins, in, n * sizeof(*in));
	if (seed)
		w->st[0] = *seed;
	cr_assert_eq(rcv_win_frames(w), 0);
	cr_assert_eq(rcv_win_compute(&rc, w), 0);
	return w;
}

/* The window @in computed both ways: every state the same. */
static void same_fixpoint(const struct rcv_ins *in, size_t n,
			  const uint64_t *top, uint32_t topk,
			  const struct rcv_state *seed)
{
	struct win *a = computed(in, n, top, topk, seed, false);
	uint64_t ca = rc.stats.conflicts, pa = rc.stats.passes;
	struct win *b = computed(in, n, top, topk, seed, true);
	size_t i;
	int g;

	cr_assert(a->settled && b->settled);
	cr_assert_eq(ca, 0);
	cr_assert_eq(rc.stats.conflicts, 0);
	cr_assert_leq(pa, rc.stats.passes + 1);
	for (i = 0; i <= n; i++)
		for (g = 0; g < RCV_NREG; g++) {
			cr_assert_eq(a->st[i].r[g].k, b->st[i].r[g].k,
				     "state %zu reg %d: known %#lx vs %#lx "
				     "(all passes)", i, g,
				     (unsigned long)a->st[i].r[g].k,
				     (unsigned long)b->st[i].r[g].k);
			cr_assert_eq(a->st[i].r[g].v, b->st[i].r[g].v,
				     "state %zu reg %d: value", i, g);
		}
	rcv_win_free(a);
	rcv_win_free(b);
	rcv_stack_tmp_free(rc.stk);
	rc.stk = NULL;
}

/*
 * Knowledge that needs memory, and both sweeps before it: eax known only
 * at the start (a seed), stored through rdi, which is known only at the
 * end, loaded back through rsi (a copy of rdi: no stack slot the frames
 * pair, memory alone links the two) into ebx, and ecx known only at the
 * end through an add of ebx.  The load's value needs the store's address
 * (from the backward sweep) and its value (from the forward one); ecx
 * before the add needs both, and the first pass, which asks no memory,
 * cannot give it.
 */
static const char *const mem_code[] = {
	"\x89\x07",		/* mov %eax,(%rdi) */
	"\x48\x89\xfe",	/* mov %rdi,%rsi */
	"\x8b\x1e",		/* mov (%rsi),%ebx */
	"\x01\xd9",		/* add %ebx,%ecx */
	"\x89\xc8",		/* mov %ecx,%eax */
};

Test(rcv_pass, memory_both_ways)
{
	struct rcv_ins in[5];
	struct rcv_state seed;
	uint64_t top[16] = { 0 };
	uint32_t topk = 1u << RP_REG_RDI | 1u << RP_REG_RCX;
	struct win *w;
	size_t i;

	for (i = 0; i < 5; i++)
		in[i] = ins(mem_code[i], strlen(mem_code[i]));
	memset(&seed, 0, sizeof(seed));
	seed.r[RP_REG_RAX] = val(0x1234);
	top[RP_REG_RDI] = 0x600000;
	top[RP_REG_RCX] = 0x5000;
	same_fixpoint(in, 5, top, topk, &seed);
	/* And what it must know, by hand: ebx and ecx before the add. */
	w = computed(in, 5, top, topk, &seed, false);
	cr_assert_eq(w->st[3].r[RP_REG_RBX].k, ~0ull);
	cr_assert_eq(w->st[3].r[RP_REG_RBX].v, 0x1234);
	cr_assert_eq(w->st[3].r[RP_REG_RCX].k & 0xffffffff, 0xffffffff);
	cr_assert_eq(w->st[3].r[RP_REG_RCX].v & 0xffffffff, 0x5000 - 0x1234);
	rcv_win_free(w);
	rcv_stack_tmp_free(rc.stk);
	rc.stk = NULL;
}

/*
 * A load whose address and stored value are known from the end back in
 * the first sweep (everything it passes through too): its value needs
 * the memory the first pass does not ask, so the second must ask it
 * (struct redo's asked, rc->mem_off), and ebx, then ecx before the add,
 * become known.
 */
Test(rcv_pass, asked_only)
{
	static const char *const code[] = {
		"\x89\x17",		/* mov %edx,(%rdi) */
		"\x48\x89\xfe",	/* mov %rdi,%rsi */
		"\x8b\x1e",		/* mov (%rsi),%ebx */
		"\x01\xd9",		/* add %ebx,%ecx */
		"\x90",		/* nop */
	};
	uint32_t topk = 1u << RP_REG_RDI | 1u << RP_REG_RSI |
			1u << RP_REG_RDX | 1u << RP_REG_RCX;
	uint64_t top[16] = { 0 };
	struct rcv_ins in[5];
	struct win *w;
	size_t i;

	for (i = 0; i < 5; i++)
		in[i] = ins(code[i], strlen(code[i]));
	top[RP_REG_RDI] = top[RP_REG_RSI] = 0x600000;
	top[RP_REG_RDX] = 0x1234;
	top[RP_REG_RCX] = 0x5000;
	same_fixpoint(in, 5, top, topk, NULL);
	w = computed(in, 5, top, topk, NULL, false);
	cr_assert_eq(w->st[3].r[RP_REG_RBX].v, 0x1234);
	cr_assert_eq(w->st[3].r[RP_REG_RBX].k, ~0ull);
	cr_assert_eq(w->st[3].r[RP_REG_RCX].v & 0xffffffff, 0x5000 - 0x1234);
	rcv_win_free(w);
	rcv_stack_tmp_free(rc.stk);
	rc.stk = NULL;
}

/*
 * A system call whose number is not known is a barrier: nothing known
 * after it flows before it.  The flag comes from the index build (a call's
 * part, rcv_index.c), which the first pass needs even though it asks no
 * memory (without it, rdx went back across the call in that pass, and
 * knowledge, once there, stays: holes.c sigret's 8 wrong registers).
 */
Test(rcv_pass, syscall_barrier_first_pass)
{
	struct rcv_ins in[3];
	uint64_t top[16] = { 0 };
	struct win *w;

	in[0] = INS("\x90");			/* nop */
	in[1] = INS("\x0f\x05");		/* syscall */
	in[2] = INS("\x90");			/* nop */
	top[RP_REG_RDX] = 5;
	same_fixpoint(in, 3, top, 1u << RP_REG_RDX, NULL);
	w = computed(in, 3, top, 1u << RP_REG_RDX, NULL, false);
	cr_assert_eq(w->st[2].r[RP_REG_RDX].k, ~0ull);
	cr_assert_eq(w->st[1].r[RP_REG_RDX].k, 0, "rdx crossed the call");
	cr_assert_eq(w->st[0].r[RP_REG_RDX].k, 0);
	rcv_win_free(w);
	rcv_stack_tmp_free(rc.stk);
	rc.stk = NULL;
}

/* A push and its pop (the frames, rcv_stack.c) with the pushed value
 * known only after the pop: it goes back to the push.
 */
Test(rcv_pass, pair_backward)
{
	struct rcv_ins in[5];
	uint64_t top[16] = { 0 };

	in[0] = INS("\x53");			/* push %rbx */
	in[1] = INS("\x31\xdb");		/* xor %ebx,%ebx */
	in[2] = INS("\x83\xc3\x07");		/* add $0x7,%ebx */
	in[3] = INS("\x5b");			/* pop %rbx */
	in[4] = INS("\x89\xd8");		/* mov %ebx,%eax */
	top[RP_REG_RSP] = 0x7ffff000;
	top[RP_REG_RAX] = 0xabcdef;
	same_fixpoint(in, 5, top, 1u << RP_REG_RSP | 1u << RP_REG_RAX, NULL);
}

/* Encodings the random windows draw from (imm8 at the last byte where
 * the name says so).
 */
static const struct {
	const char *b;
	size_t len;
	bool imm8;
} pool[] = {
	{ "\xb8\x01\x00\x00\x00", 5, false },	/* mov $1,%eax */
	{ "\xbb\x02\x00\x00\x00", 5, false },	/* mov $2,%ebx */
	{ "\x89\xc3", 2, false },		/* mov %eax,%ebx */
	{ "\x89\xd9", 2, false },		/* mov %ebx,%ecx */
	{ "\x89\xca", 2, false },		/* mov %ecx,%edx */
	{ "\x48\x89\xd0", 3, false },		/* mov %rdx,%rax */
	{ "\x01\xd8", 2, false },		/* add %ebx,%eax */
	{ "\x29\xc1", 2, false },		/* sub %eax,%ecx */
	{ "\x31\xd3", 2, false },		/* xor %edx,%ebx */
	{ "\x83\xc0\x05", 3, true },		/* add $imm,%eax */
	{ "\x83\xea\x03", 3, true },		/* sub $imm,%edx */
	{ "\xff\xc1", 2, false },		/* inc %ecx */
	{ "\xf7\xdb", 2, false },		/* neg %ebx */
	{ "\x39\xd8", 2, false },		/* cmp %ebx,%eax */
	{ "\x50", 1, false },			/* push %rax */
	{ "\x5b", 1, false },			/* pop %rbx */
	{ "\x52", 1, false },			/* push %rdx */
	{ "\x59", 1, false },			/* pop %rcx */
	{ "\x89\x44\x24\xf8", 4, false },	/* mov %eax,-0x8(%rsp) */
	{ "\x8b\x5c\x24\xf8", 4, false },	/* mov -0x8(%rsp),%ebx */
	{ "\x48\x89\x4c\x24\x10", 5, false },	/* mov %rcx,0x10(%rsp) */
	{ "\x48\x8b\x54\x24\x10", 5, false },	/* mov 0x10(%rsp),%rdx */
	{ "\x48\x83\xec\x10", 4, false },	/* sub $0x10,%rsp */
	{ "\x48\x83\xc4\x10", 4, false },	/* add $0x10,%rsp */
	{ "\x48\x8d\x6c\x24\x08", 5, false },	/* lea 0x8(%rsp),%rbp */
	{ "\x89\x45\xfc", 3, false },		/* mov %eax,-0x4(%rbp) */
	{ "\x8b\x4d\xfc", 3, false },		/* mov -0x4(%rbp),%ecx */
	{ "\x83\x45\xfc\x01", 4, false },	/* addl $1,-0x4(%rbp) */
	{ "\x89\x07", 2, false },		/* mov %eax,(%rdi) */
	{ "\x8b\x17", 2, false },		/* mov (%rdi),%edx */
	{ "\x48\x89\xfe", 3, false },		/* mov %rdi,%rsi */
	{ "\x8b\x0e", 2, false },		/* mov (%rsi),%ecx */
	{ "\x89\x5e\x04", 3, false },		/* mov %ebx,0x4(%rsi) */
	{ "\x48\x83\xc7\x08", 4, true },	/* add $imm,%rdi */
};

/*
 * Random windows of those (a fixed seed: the same every run).  What is
 * known at their ends is what they compute from every register known at
 * the start (the engine's forward emulation, never wrong), so that no
 * value contradicts another; then a random part of that end and of the
 * start is given, and the shortcuts and the reference must agree on every
 * state, with no conflict.
 */
Test(rcv_pass, random_windows)
{
	struct rcv_ins in[MAXN];
	struct rcv_state full, seed;
	uint64_t top[16];
	uint32_t topk, mask;
	unsigned int t, g;
	size_t n, i, k;
	struct win *w;
	char b[8];

	srandom(17);
	for (t = 0; t < 300; t++) {
		n = 4 + (size_t)random() % (MAXN - 4);
		for (i = 0; i < n; i++) {
			k = (size_t)random() % (sizeof(pool) / sizeof(pool[0]));
			memcpy(b, pool[k].b, pool[k].len);
			if (pool[k].imm8)
				b[pool[k].len - 1] = (char)(random() & 0x7f);
			in[i] = ins(b, pool[k].len);
		}
		memset(&full, 0, sizeof(full));
		for (g = 0; g < 16; g++)
			full.r[g] = val(rnd());
		full.r[RP_REG_RSP] = val(0x7ffff000 -
					 8 * (uint64_t)(random() % 16));
		w = computed(in, n, top, 0, &full, true);
		cr_assert_eq(rc.stats.conflicts, 0);
		mask = (uint32_t)random();
		topk = 0;
		for (g = 0; g < 16; g++) {
			top[g] = w->st[n].r[g].v;
			if (w->st[n].r[g].k == ~0ull && (mask >> g & 1))
				topk |= 1u << g;
		}
		rcv_win_free(w);
		seed = full;
		mask = (uint32_t)random();
		for (g = 0; g < 16; g++)
			if (!(mask >> g & 1))
				seed.r[g] = unknown;
		same_fixpoint(in, n, top, topk, random() % 2 ? &seed : NULL);
	}
	rcv_stack_tmp_free(rc.stk);
	rc.stk = NULL;
}
