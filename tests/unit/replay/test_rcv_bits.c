// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_bits.c against this CPU: each bit scan, count,
 * bit test, BMI1/BMI2 form, xadd and double shift is run on the CPU (its
 * bytes copied into an executable page) with random and edge operands in
 * rax, rbx and rcx, and every bit of those registers and of the
 * arithmetic flags the engine says it knows after it must be the CPU's.
 * Each form also says what must be known (so that a semantics that
 * claims nothing fails) and which flags exactly (so that an undefined
 * flag taken from this CPU fails: the SDM's Flags Affected, not one
 * processor's behaviour).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rcv_fixture.h"

TestSuite(rcv_bits, .init = setup, .fini = teardown);

#define ARITH	0x8d5ull
#define CF	0x001ull
#define PF	0x004ull
#define ZF	0x040ull
#define SF	0x080ull
#define OF	0x800ull

static struct rcv_ctx ctx = { .mem = no_mem };

/* When rax must be known after the form: always, for a nonzero rbx,
 * never (lzcnt: BSR on a processor without it).
 */
enum want { ALWAYS, NONZERO_B, NEVER };

struct form {
	const char *name, *code;
	size_t len;
	enum want rax;
	uint64_t flags;		/* the arithmetic flags known after it */
	bool count_c;		/* a count in cl: 0 leaves flags unknown */
};

static const struct form forms[] = {
	{ "bsf %rbx,%rax", "\x48\x0f\xbc\xc3", 4, NONZERO_B, ZF, false },
	{ "bsr %ebx,%eax", "\x0f\xbd\xc3", 3, NONZERO_B, ZF, false },
	{ "bsf %bx,%ax", "\x66\x0f\xbc\xc3", 4, NONZERO_B, ZF, false },
	{ "tzcnt %rbx,%rax", "\xf3\x48\x0f\xbc\xc3", 5, NONZERO_B, 0, false },
	{ "tzcnt %ebx,%eax", "\xf3\x0f\xbc\xc3", 4, NONZERO_B, 0, false },
	{ "popcnt %rbx,%rax", "\xf3\x48\x0f\xb8\xc3", 5, ALWAYS, ARITH,
	  false },
	{ "popcnt %ebx,%eax", "\xf3\x0f\xb8\xc3", 4, ALWAYS, ARITH, false },
	{ "lzcnt %rbx,%rax", "\xf3\x48\x0f\xbd\xc3", 5, NEVER, 0, false },
	{ "bt %rcx,%rax", "\x48\x0f\xa3\xc8", 4, ALWAYS, CF, false },
	{ "bt $0x2d,%rax", "\x48\x0f\xba\xe0\x2d", 5, ALWAYS, CF, false },
	{ "bts %rcx,%rax", "\x48\x0f\xab\xc8", 4, ALWAYS, CF, false },
	{ "btr $0xd,%eax", "\x0f\xba\xf0\x0d", 4, ALWAYS, CF, false },
	{ "btc %rcx,%rax", "\x48\x0f\xbb\xc8", 4, ALWAYS, CF, false },
	{ "btc %cx,%ax", "\x66\x0f\xbb\xc8", 4, ALWAYS, CF, false },
	{ "xadd %rbx,%rax", "\x48\x0f\xc1\xd8", 4, ALWAYS, ARITH, false },
	{ "xadd %ebx,%eax", "\x0f\xc1\xd8", 3, ALWAYS, ARITH, false },
	{ "xadd %bl,%al", "\x0f\xc0\xd8", 3, ALWAYS, ARITH, false },
	{ "shld %cl,%rbx,%rax", "\x48\x0f\xa5\xd8", 4, ALWAYS,
	  CF | ZF | SF | PF, true },
	{ "shrd $0x7,%ebx,%eax", "\x0f\xac\xd8\x07", 4, ALWAYS,
	  CF | ZF | SF | PF, false },
	{ "shrd %cl,%rbx,%rax", "\x48\x0f\xad\xd8", 4, ALWAYS,
	  CF | ZF | SF | PF, true },
	{ "shld $0x1,%ebx,%eax", "\x0f\xa4\xd8\x01", 4, ALWAYS,
	  CF | ZF | SF | PF | OF, false },
	{ "andn %rcx,%rbx,%rax", "\xc4\xe2\xe0\xf2\xc1", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "andn %ecx,%ebx,%eax", "\xc4\xe2\x60\xf2\xc1", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "blsr %rbx,%rax", "\xc4\xe2\xf8\xf3\xcb", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "blsi %ebx,%eax", "\xc4\xe2\x78\xf3\xdb", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "blsi %rbx,%rax", "\xc4\xe2\xf8\xf3\xdb", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "blsmsk %rbx,%rax", "\xc4\xe2\xf8\xf3\xd3", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "bzhi %rcx,%rbx,%rax", "\xc4\xe2\xf0\xf5\xc3", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "bzhi %ecx,%ebx,%eax", "\xc4\xe2\x70\xf5\xc3", 5, ALWAYS,
	  SF | ZF | OF | CF, false },
	{ "bextr %rcx,%rbx,%rax", "\xc4\xe2\xf0\xf7\xc3", 5, ALWAYS,
	  ZF | OF | CF, false },
	{ "bextr %ecx,%ebx,%eax", "\xc4\xe2\x70\xf7\xc3", 5, ALWAYS,
	  ZF | OF | CF, false },
	/* No flag affected: those known before stay. */
	{ "shlx %rcx,%rbx,%rax", "\xc4\xe2\xf1\xf7\xc3", 5, ALWAYS, ARITH,
	  false },
	{ "shrx %ecx,%ebx,%eax", "\xc4\xe2\x73\xf7\xc3", 5, ALWAYS, ARITH,
	  false },
	{ "sarx %rcx,%rbx,%rax", "\xc4\xe2\xf2\xf7\xc3", 5, ALWAYS, ARITH,
	  false },
	{ "sarx %ecx,%ebx,%eax", "\xc4\xe2\x72\xf7\xc3", 5, ALWAYS, ARITH,
	  false },
	{ "rorx $0xd,%rbx,%rax", "\xc4\xe3\xfb\xf0\xc3\x0d", 6, ALWAYS, ARITH,
	  false },
	{ "rorx $0x5,%ebx,%eax", "\xc4\xe3\x7b\xf0\xc3\x05", 6, ALWAYS, ARITH,
	  false },
	{ "pdep %rcx,%rbx,%rax", "\xc4\xe2\xe3\xf5\xc1", 5, ALWAYS, ARITH,
	  false },
	{ "pext %rcx,%rbx,%rax", "\xc4\xe2\xe2\xf5\xc1", 5, ALWAYS, ARITH,
	  false },
	{ "pext %ecx,%ebx,%eax", "\xc4\xe2\x62\xf5\xc1", 5, ALWAYS, ARITH,
	  false },
};

static uint8_t *page;

/* @code on this CPU with rax, rbx, rcx and rflags (in, out). */
static void cpu(const struct form *f, uint64_t *a, uint64_t *b, uint64_t *c,
		uint64_t *fl)
{
	uint64_t d = *fl;

	memcpy(page, f->code, f->len);
	page[f->len] = 0xc3;	/* ret */
	/* Under the red zone: the call's push must not reach locals. */
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "push %%rdx\n\tpopfq\n\t"
			 "call *%%rdi\n\t"
			 "pushfq\n\tpop %%rdx\n\t"
			 "lea 128(%%rsp), %%rsp"
			 : "+a"(*a), "+b"(*b), "+c"(*c), "+d"(d)
			 : "D"(page)
			 : "cc", "memory");
	*fl = d;
}

static uint64_t rnd_op(void)
{
	uint64_t r = (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^
		     (uint64_t)random();

	switch (random() % 8) {
	case 0:
		return 0;
	case 1:
		return r & 0xff;	/* small: counts, bit offsets */
	case 2:
		return 1ull << (random() % 64);
	case 3:
		return ~0ull;
	default:
		return r;
	}
}

static void check_reg(const char *name, const char *reg, struct rcv_val e,
		      uint64_t cpu_v)
{
	cr_assert_eq(e.v & e.k, cpu_v & e.k,
		     "%s: %s %#lx (known %#lx), cpu %#lx", name, reg, e.v,
		     e.k, cpu_v);
}

Test(rcv_bits, forward_matches_cpu)
{
	size_t k;
	int n;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(page, MAP_FAILED);
	srandom(29);
	for (k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
		const struct form *f = &forms[k];
		struct rcv_ins in = ins(f->code, f->len);
		int known_rax = 0;

		cr_assert_eq(in.flags & RCV_I_BAD, 0, "%s", f->name);
		cr_assert_eq(in.len, f->len, "%s", f->name);
		for (n = 0; n < 3000; n++) {
			struct rcv_state pre = { 0 }, post = { 0 };
			uint64_t a = rnd_op(), b = rnd_op(), c = rnd_op();
			uint64_t fl = 0x202 | ((uint64_t)random() & ARITH);
			uint64_t ca = a, cb = b, cc = c, cf = fl, conf = 0;
			uint64_t want_f = f->flags;

			pre.r[RP_REG_RAX] = val(a);
			pre.r[RP_REG_RBX] = val(b);
			pre.r[RP_REG_RCX] = val(c);
			pre.r[RCV_FLAGS] = val(fl);
			cpu(f, &ca, &cb, &cc, &cf);
			rcv_forward(&ctx, 0, &in, &pre, &post, &conf);
			cr_assert_eq(conf, 0, "%s", f->name);
			check_reg(f->name, "rax", post.r[RP_REG_RAX], ca);
			check_reg(f->name, "rbx", post.r[RP_REG_RBX], cb);
			check_reg(f->name, "rcx", post.r[RP_REG_RCX], cc);
			check_reg(f->name, "rflags", post.r[RCV_FLAGS], cf);
			/* What must be known: the sources stay, rax as
			 * the form says, exactly the flags it defines.
			 */
			cr_assert_eq(post.r[RP_REG_RCX].k, ~0ull, "%s rcx",
				     f->name);
			if (f->rax == NEVER)
				cr_assert_eq(post.r[RP_REG_RAX].k, 0,
					     "%s: rax claimed", f->name);
			else if (f->rax == ALWAYS ||
				 (b & (in.op[0].size >= 8 ? ~0ull :
				       (1ull << 8 * in.op[0].size) - 1)))
				cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull,
					     "%s: rax not known, b %#lx",
					     f->name, b);
			known_rax += post.r[RP_REG_RAX].k == ~0ull;
			if (f->count_c && !(c & 63))
				want_f = 0;	/* count 0: left unknown */
			else if (f->count_c && (c & 63) == 1)
				want_f |= OF;	/* defined for 1 */
			cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, want_f,
				     "%s: flags known %#lx, want %#lx",
				     f->name, post.r[RCV_FLAGS].k & ARITH,
				     want_f);
		}
		if (f->rax != NEVER)
			cr_assert_gt(known_rax, 0, "%s", f->name);
	}
	munmap(page, 4096);
}

/* xadd [mem], r: r gets the memory's value (the load the engine reads). */
static struct rcv_val mem8(void *c, uint64_t i, uint64_t addr,
			   unsigned int size)
{
	(void)c;
	(void)i;
	if (addr != 0x5000)
		return unknown;
	return val(0x1122334455667788ull & (size >= 8 ? ~0ull :
					    (1ull << 8 * size) - 1));
}

static struct rcv_val wrote_v;
static int wrote_rw = -1;

static void wrote(void *c, uint64_t i, int rw, struct rcv_val v)
{
	(void)c;
	(void)i;
	wrote_rw = rw;
	wrote_v = v;
}

Test(rcv_bits, xadd_and_movbe_read_memory)
{
	struct rcv_ctx mc = { .mem = mem8, .wrote = wrote };
	/* lock xadd %rax,(%rbx); movbe (%rbx),%rcx; movbe %ecx,(%rbx) */
	struct rcv_ins x = INS("\xf0\x48\x0f\xc1\x03"),
		       mb = INS("\x48\x0f\x38\xf0\x0b"),
		       ms = INS("\x0f\x38\xf1\x0b");
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	pre.r[RP_REG_RBX] = val(0x5000);
	pre.r[RP_REG_RAX] = val(5);
	pre.r[RP_REG_RCX] = val(0xabcdef);
	rcv_forward(&mc, 0, &x, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RAX].v, 0x1122334455667788ull);
	cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, ARITH);
	cr_assert_eq(post.r[RP_REG_RBX].v, 0x5000);
	/* the memory's new value: the sum */
	cr_assert_eq(wrote_rw, 1);
	cr_assert_eq(wrote_v.k, ~0ull);
	cr_assert_eq(wrote_v.v, 0x1122334455667788ull + 5);
	memset(&post, 0, sizeof(post));
	rcv_forward(&mc, 0, &mb, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RCX].v, 0x8877665544332211ull);
	/* The store form writes no register, and no flag. */
	memset(&post, 0, sizeof(post));
	pre.r[RCV_FLAGS] = val(0x246);
	rcv_forward(&mc, 0, &ms, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RCX].v, 0xabcdef);
	cr_assert_eq(post.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, ARITH);
	cr_assert_eq(conf, 0);
}

/* Sources are not written: known before a bsf, known after it. */
Test(rcv_bits, sources_pass_both_ways)
{
	struct rcv_ins in = INS("\x48\x0f\xbc\xc3");	/* bsf %rbx,%rax */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	post.r[RP_REG_RBX] = val(0x40);
	rcv_backward(&ctx, 0, &in, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RBX].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RAX].k, 0);
	cr_assert_eq(conf, 0);
}
