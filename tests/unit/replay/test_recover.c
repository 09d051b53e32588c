// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the recovery engine's semantics (replay/rcv_sem.c
 * forward, replay/rcv_back.c backward): inversions and pass-through on
 * hand-made states; an instruction it does not model makes exactly its
 * outputs unknown; memory operands.  The values and flags it computes
 * forward against this CPU running the same instruction are
 * test_recover_cpu.c, its stack frames test_rcv_stack.c.  The whole
 * engine against recorded programs' ground truth is tests/values/run.sh
 * (make values-test).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

#define ARITH 0x8d5ull

TestSuite(recover, .init = setup, .fini = teardown);

/* 8 bytes of fake memory at 0x7000 for push/pop/store tests. */
static uint64_t mem_word;
static bool mem_known;

static struct rcv_val mem_cb(void *ctx, uint64_t i, uint64_t addr,
			     unsigned int size)
{
	(void)ctx;
	(void)i;
	if (!mem_known || addr != 0x7000 || (size != 8 && size != 4))
		return unknown;
	return size == 8 ? val(mem_word) :
			   (struct rcv_val){ mem_word & 0xffffffffull,
					     0xffffffffull };
}

static struct rcv_ctx ctx = { .mem = mem_cb };

static bool mem_op_written(const struct rcv_ins *in)
{
	int i;

	for (i = 0; i < in->nops; i++)
		if (in->op[i].type == RCV_OP_MEM && (in->op[i].access & 2))
			return true;
	return false;
}

/* ---- backward ----------------------------------------------------------- */

Test(recover, inverts_add_sub_xor_inc_neg_not)
{
	static const struct { const char *b; size_t n; uint64_t after,
			      before; } t[] = {
		{ "\x48\x83\xc0\x05", 4, 10, 5 },		/* add rax, 5 */
		{ "\x48\x83\xe8\x05", 4, 10, 15 },		/* sub rax, 5 */
		{ "\x48\x35\xff\x00\x00\x00", 6, 0xf0, 0x0f },	/* xor rax, 0xff */
		{ "\x48\xff\xc0", 3, 0, ~0ull },		/* inc rax */
		{ "\x48\xf7\xd8", 3, 5, -5ull },		/* neg rax */
		{ "\x48\xf7\xd0", 3, 0, ~0ull },		/* not rax */
		{ "\x48\x0f\xc8", 3, 0x0102030405060708ull,
		  0x0807060504030201ull },			/* bswap rax */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rcv_ins in = ins(t[i].b, t[i].n);
		struct rcv_state pre = { 0 }, post = { 0 };
		uint64_t conf = 0;

		post.r[RP_REG_RAX] = val(t[i].after);
		post.r[RP_REG_R12] = val(77);
		cr_assert(rcv_backward(&ctx, 0, &in, &pre, &post, &conf));
		cr_assert_eq(pre.r[RP_REG_RAX].k, ~0ull, "case %zu", i);
		cr_assert_eq(pre.r[RP_REG_RAX].v, t[i].before, "case %zu", i);
		/* Not written: passes through. */
		cr_assert_eq(pre.r[RP_REG_R12].v, 77);
		cr_assert_eq(conf, 0);
	}
}

/* A 32-bit add inverts only the low half: the upper half before it was
 * zeroed by the write.
 */
Test(recover, add32_inverts_low_half_only)
{
	struct rcv_ins in = INS("\x83\xc0\x01");	/* add eax, 1 */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	post.r[RP_REG_RAX] = val(0x10);
	rcv_backward(&ctx, 0, &in, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RAX].k, 0xffffffffull);
	cr_assert_eq(pre.r[RP_REG_RAX].v, 0xf);
}

/*
 * The destination known before and after gives a register source:
 * glibc's alloc_new_heap computes munmap's length by `sub %rdi, %r15`
 * from the aligned start, and the address is the source (the read-only
 * rule of rcv_order.c needs it).  Each case against what the CPU does
 * forward (dst' = dst op src): with 32-bit operands, only the low half.
 */
Test(recover, source_from_destination_before_and_after)
{
	static const struct { const char *b; size_t n; int dst, src;
			      uint64_t before, after, want, k; } t[] = {
		{ "\x49\x29\xff", 3, RP_REG_R15, RP_REG_RDI,	/* sub rdi, r15 */
		  0x7f8440000000ull, 0x2e00000, 0x7f843d200000ull, ~0ull },
		{ "\x48\x01\xd8", 3, RP_REG_RAX, RP_REG_RBX,	/* add rbx, rax */
		  5, 3, -2ull, ~0ull },
		{ "\x48\x31\xc8", 3, RP_REG_RAX, RP_REG_RCX,	/* xor rcx, rax */
		  0xf0f0, 0xff00, 0x0ff0, ~0ull },
		{ "\x29\xd8", 2, RP_REG_RAX, RP_REG_RBX,	/* sub ebx, eax */
		  0x100000005ull, 2, 3, 0xffffffffull },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rcv_ins in = ins(t[i].b, t[i].n);
		struct rcv_state pre = { 0 }, post = { 0 };
		uint64_t conf = 0;

		pre.r[t[i].dst] = val(t[i].before);
		post.r[t[i].dst] = val(t[i].after);
		rcv_backward(&ctx, 0, &in, &pre, &post, &conf);
		cr_assert_eq(pre.r[t[i].src].k, t[i].k, "case %zu", i);
		cr_assert_eq(pre.r[t[i].src].v, t[i].want & t[i].k,
			     "case %zu", i);
		cr_assert_eq(conf, 0, "case %zu", i);
	}
	/* Only the destination after: the source stays unknown. */
	{
		struct rcv_ins in = INS("\x49\x29\xff");
		struct rcv_state pre = { 0 }, post = { 0 };
		uint64_t conf = 0;

		post.r[RP_REG_R15] = val(7);
		rcv_backward(&ctx, 0, &in, &pre, &post, &conf);
		cr_assert_eq(pre.r[RP_REG_RDI].k, 0);
	}
}

Test(recover, mov_teaches_source_not_destination)
{
	struct rcv_ins in = INS("\x48\x89\xc3");	/* mov rbx, rax */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	post.r[RP_REG_RBX] = val(42);
	rcv_backward(&ctx, 0, &in, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RAX].v, 42);
	cr_assert_eq(pre.r[RP_REG_RBX].k, 0, "rbx before the mov is unknown");
}

Test(recover, push_pop_leave_move_the_stack)
{
	struct rcv_ins push = INS("\x53"), pop = INS("\x5b"),
		       leave = INS("\xc9");
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	/* push rbx: rsp was 8 higher; rbx is what memory holds after. */
	post.r[RP_REG_RSP] = val(0x7000);
	mem_known = true;
	mem_word = 0x1234;
	rcv_backward(&ctx, 0, &push, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RSP].v, 0x7008);
	cr_assert_eq(pre.r[RP_REG_RBX].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RBX].v, 0x1234);
	/* pop rbx forward: loads known memory. */
	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	pre.r[RP_REG_RSP] = val(0x7000);
	rcv_forward(&ctx, 0, &pop, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RSP].v, 0x7008);
	cr_assert_eq(post.r[RP_REG_RBX].v, 0x1234);
	mem_known = false;
	/* leave backward: rbp before = rsp after - 8 */
	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	post.r[RP_REG_RSP] = val(0x7010);
	rcv_backward(&ctx, 0, &leave, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RBP].v, 0x7008);
	cr_assert_eq(pre.r[RP_REG_RBP].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RSP].k, 0);
	cr_assert_eq(conf, 0);
}

/* ---- what is not modelled ---------------------------------------------- */

Test(recover, unmodelled_makes_exactly_its_outputs_unknown)
{
	struct rcv_ins cpuid = INS("\x0f\xa2"),
		       crc = INS("\xf2\x48\x0f\x38\xf1\xc3");
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;
	int g;

	for (g = 0; g < 16; g++)
		pre.r[g] = val((uint64_t)g);
	rcv_forward(&ctx, 0, &cpuid, &pre, &post, &conf);
	for (g = 0; g < 16; g++)
		cr_assert_eq(post.r[g].k, g <= RP_REG_RDX ? 0 : ~0ull,
			     "reg %d", g);
	/* Not modelled (crc32 %rbx,%rax): every explicit register counts
	 * as written (capstone 4's lists miss some), the flags too; others
	 * pass.
	 */
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &crc, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, 0);
	cr_assert_eq(post.r[RP_REG_RBX].k, 0);
	cr_assert_eq(post.r[RP_REG_RCX].v, RP_REG_RCX);
	cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, 0);
}

/* lock cmpxchg [rdi], rsi writes rax when it fails, which capstone 4 does
 * not list; xadd writes the flags.
 */
Test(recover, capstone_gaps_are_covered)
{
	struct rcv_ins cx = INS("\xf0\x48\x0f\xb1\x37"),
		       xa = INS("\x48\x0f\xc1\x37");
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;
	int g;

	for (g = 0; g < 16; g++)
		pre.r[g] = val((uint64_t)g);
	pre.r[RCV_FLAGS] = val(0x202);
	rcv_forward(&ctx, 0, &cx, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, 0);
	cr_assert_eq(post.r[RP_REG_RDI].v, RP_REG_RDI);
	cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, 0);
	cr_assert(cx.flags & RCV_I_MEMBAR || mem_op_written(&cx));
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &xa, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RSI].k, 0);
	cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, 0);
}

/* test, cmp and bt write no register, whatever capstone 4 lists (it
 * gives al as written by `test al, imm8` and `cmp al, imm8`): rax stays
 * known across them, both ways.
 */
Test(recover, test_cmp_bt_write_flags_only)
{
	static const struct {
		const char *b;
		size_t n;
	} code8[] = {
		{ "\xa8\x7c", 2 }, { "\x3c\x05", 2 }, { "\x84\xc0", 2 },
		{ "\x48\x85\xc0", 3 }, { "\x48\x39\xd8", 3 },
		{ "\x48\x0f\xa3\xd8", 4 }, { "\xf6\xc4\x01", 3 },
		{ "\x66\xa9\x01\x00", 4 },
	};
	size_t c;
	int g;

	for (c = 0; c < sizeof(code8) / sizeof(code8[0]); c++) {
		struct rcv_ins in = ins(code8[c].b, code8[c].n);
		struct rcv_state pre = { 0 }, post = { 0 };
		uint64_t conf = 0;

		cr_assert_eq(in.flags & RCV_I_BAD, 0, "case %zu", c);
		for (g = 0; g < 16; g++) {
			cr_assert_eq(in.wcode[g], 0, "case %zu reg %d", c, g);
			pre.r[g] = val(0x100 + (uint64_t)g);
		}
		pre.r[RCV_FLAGS] = val(0x202);
		rcv_forward(&ctx, 0, &in, &pre, &post, &conf);
		cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull, "case %zu", c);
		cr_assert_eq(post.r[RP_REG_RAX].v, 0x100, "case %zu", c);
		memset(&pre, 0, sizeof(pre));
		rcv_backward(&ctx, 0, &in, &pre, &post, &conf);
		cr_assert_eq(pre.r[RP_REG_RAX].k, ~0ull, "case %zu", c);
		cr_assert_eq(conf, 0);
	}
}

/*
 * xchg [rdi], rax / eax (locked): the register gets the memory's old
 * value, the memory the register's, the flags pass; and cmpxchg [rdi],
 * rdx / edx: the flags of cmp accumulator, memory, the accumulator after
 * a failure, its low bytes kept after a success; both against the CPU,
 * with what rcv_rw.c says they read and wrote.  ZF after known set alone
 * (a jne not taken) keeps the accumulator's low bytes both ways.
 */
Test(recover, xchg_cmpxchg_memory)
{
	struct rcv_ins x64 = INS("\x48\x87\x07"), x32 = INS("\x87\x07"),
		       c64 = INS("\xf0\x48\x0f\xb1\x17"),
		       c32 = INS("\xf0\x0f\xb1\x17");
	int k;

	srandom(31);
	for (k = 0; k < 2000; k++) {
		const struct rcv_ins *in = k & 1 ? &x32 : &x64;
		struct rcv_state pre = { 0 }, post = { 0 };
		uint64_t a = rnd(), m = rnd(), mem = m, ra = a, conf = 0;
		uint64_t f = 0x202, rf;
		struct rcv_acc rd, wr;

		if (k & 1)
			__asm__ volatile("xchg %%eax, (%1)" : "+a"(ra)
					 : "r"(&mem) : "memory");
		else
			__asm__ volatile("xchg %%rax, (%1)" : "+a"(ra)
					 : "r"(&mem) : "memory");
		pre.r[RP_REG_RAX] = val(a);
		pre.r[RP_REG_RDI] = val(0x7000);
		pre.r[RCV_FLAGS] = val(f);
		mem_word = m;
		mem_known = true;
		rcv_forward(&ctx, 0, in, &pre, &post, &conf);
		cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull, "xchg %d", k & 1);
		cr_assert_eq(post.r[RP_REG_RAX].v, ra, "xchg %d", k & 1);
		cr_assert_eq(post.r[RCV_FLAGS].v & ARITH, f & ARITH);
		cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, ARITH);
		rcv_reads(&ctx, in, &pre, &post, &rd);
		rcv_writes(&ctx, in, &pre, &post, &wr);
		cr_assert(rd.valid && rd.addr_known && rd.addr == 0x7000);
		cr_assert_eq(rd.val.v, m & (k & 1 ? 0xffffffffull : ~0ull));
		cr_assert(wr.valid && wr.addr_known && wr.addr == 0x7000);
		cr_assert_eq(wr.val.v, a & (k & 1 ? 0xffffffffull : ~0ull));
		cr_assert_eq(wr.val.k, k & 1 ? 0xffffffffull : ~0ull);

		/* cmpxchg: equal half the time */
		in = k & 1 ? &c32 : &c64;
		m = k & 2 ? a : rnd();
		if (k & 1)
			m = (m & 0xffffffffull) | (rnd() << 32);
		mem = m;
		ra = a;
		if (k & 1)
			__asm__ volatile("lock cmpxchg %%edx, (%2)\n\t"
					 "pushfq\n\tpop %1"
					 : "+a"(ra), "=r"(rf)
					 : "r"(&mem), "d"(0x5555ull)
					 : "memory", "cc");
		else
			__asm__ volatile("lock cmpxchg %%rdx, (%2)\n\t"
					 "pushfq\n\tpop %1"
					 : "+a"(ra), "=r"(rf)
					 : "r"(&mem), "d"(0x5555ull)
					 : "memory", "cc");
		memset(&post, 0, sizeof(post));
		pre.r[RP_REG_RDX] = val(0x5555);
		mem_word = m;
		rcv_forward(&ctx, 0, in, &pre, &post, &conf);
		cr_assert_eq(post.r[RCV_FLAGS].k & ARITH, ARITH);
		cr_assert_eq(post.r[RCV_FLAGS].v & ARITH, rf & ARITH,
			     "cmpxchg %d a %#lx m %#lx", k & 1, a, m);
		cr_assert_eq(post.r[RP_REG_RAX].v & post.r[RP_REG_RAX].k,
			     ra & post.r[RP_REG_RAX].k);
		cr_assert((post.r[RP_REG_RAX].k & 0xffffffffull) ==
			  0xffffffffull);
		rcv_reads(&ctx, in, &pre, &post, &rd);
		rcv_writes(&ctx, in, &pre, &post, &wr);
		cr_assert_eq(rd.val.v & rd.val.k,
			     m & rd.val.k);
		cr_assert_eq(wr.val.v & wr.val.k, mem & wr.val.k);
		cr_assert_eq(wr.val.k, k & 1 ? 0xffffffffull : ~0ull);
		cr_assert_eq(conf, 0);
	}
	/* ZF after alone: the accumulator both ways, memory not known. */
	{
		struct rcv_state pre = { 0 }, post = { 0 };
		uint64_t conf = 0;

		mem_known = false;
		pre.r[RP_REG_RAX] = val(0);
		pre.r[RP_REG_RDI] = val(0x7000);
		post.r[RCV_FLAGS] = (struct rcv_val){ F_ZF, F_ZF };
		rcv_forward(&ctx, 0, &c32, &pre, &post, &conf);
		cr_assert_eq(post.r[RP_REG_RAX].k & 0xffffffffull,
			     0xffffffffull);
		cr_assert_eq(post.r[RP_REG_RAX].v & 0xffffffffull, 0);
		memset(&pre, 0, sizeof(pre));
		post.r[RP_REG_RAX] = val(0x1234);
		rcv_backward(&ctx, 0, &c64, &pre, &post, &conf);
		cr_assert_eq(pre.r[RP_REG_RAX].k, ~0ull);
		cr_assert_eq(pre.r[RP_REG_RAX].v, 0x1234);
		post.r[RCV_FLAGS] = (struct rcv_val){ 0, F_ZF };
		memset(&pre, 0, sizeof(pre));
		rcv_backward(&ctx, 0, &c64, &pre, &post, &conf);
		cr_assert_eq(pre.r[RP_REG_RAX].k, 0, "a failure: not kept");
		cr_assert_eq(conf, 0);
	}
}

/*
 * rp_recover_why()'s operand to follow where the result is known in part
 * by the values: and rbx, rax with rax the 64 MiB mask (alloc_new_heap's
 * mmap result aligned) leaves rbx's low 26 bits known, its others
 * unknown because rbx was: rbx, not "a rule the engine lacks" (the
 * made-up values of the probe, rax 0x1000, knew all but bit 12).
 */
Test(recover, why_operand_by_values)
{
	struct rcv_ins an = INS("\x48\x21\xc3"),	/* and rbx, rax */
		       mv = INS("\x48\x89\xc3");	/* mov rbx, rax */
	struct rcv_state pre;
	int r;

	memset(&pre, 0, sizeof(pre));
	for (r = 0; r < RCV_NREG; r++)
		pre.r[r] = val(0x100 * (uint64_t)r);
	pre.r[RP_REG_RAX] = val(0xfffffffffc000000ull);
	pre.r[RP_REG_RBX] = unknown;
	cr_assert_eq(rcv_why_operand(&an, &pre, RP_REG_RBX,
				     0xfffffffffc000000ull), RP_REG_RBX);
	pre.r[RP_REG_RAX] = unknown;
	pre.r[RP_REG_RBX] = val(0x1234);
	cr_assert_eq(rcv_why_operand(&mv, &pre, RP_REG_RBX, ~0ull),
		     RP_REG_RAX);
	/* known inputs: nothing to follow */
	pre.r[RP_REG_RAX] = val(5);
	cr_assert_eq(rcv_why_operand(&an, &pre, RP_REG_RBX, ~0ull), -1);
}

/*
 * The registers an instruction may read (rcv_ins.gr, rp_recover_why()'s
 * "never read" argument): operands, address registers, implicit ones
 * (push's rsp, cqo's rax), a system call's arguments; not the register
 * a zeroing xor or sub clears, not a register only written.
 */
Test(recover, registers_read)
{
	struct rcv_ins x = INS("\x45\x31\xc0"),		/* xor r8d, r8d */
		       ld = INS("\x4c\x8b\x40\x20"),	/* mov r8, [rax+32] */
		       ps = INS("\x41\x54"),			/* push r12 */
		       cq = INS("\x48\x99"),			/* cqo */
		       sc = INS("\x0f\x05"),			/* syscall */
		       ad = INS("\x4d\x01\xc1"),		/* add r9, r8 */
		       bad = INS("\x62\xf1\x7e\x48\x6f\x07");	/* EVEX */

	cr_assert_eq(x.gr, 0);
	cr_assert_eq(ld.gr, 1u << RP_REG_RAX);
	cr_assert_eq(ps.gr, 1u << RP_REG_R12 | 1u << RP_REG_RSP);
	cr_assert(cq.gr & 1u << RP_REG_RAX);
	cr_assert_eq(cq.gr & 1u << RP_REG_R8, 0);
	cr_assert_eq(sc.gr, 1u << RP_REG_RAX | 1u << RP_REG_RDI |
		     1u << RP_REG_RSI | 1u << RP_REG_RDX | 1u << RP_REG_R10 |
		     1u << RP_REG_R8 | 1u << RP_REG_R9);
	cr_assert_eq(ad.gr, 1u << RP_REG_R8 | 1u << RP_REG_R9);
	cr_assert(bad.flags & RCV_I_BAD ? bad.gr == 0xffff : true);
}

/* cmpxchg writes the accumulator, its destination and the flags, never
 * its source (capstone 4 lists the source as written): lock cmpxchg
 * [rdi], rsi and cmpxchg edx, ecx keep rsi and rcx, both ways.
 */
Test(recover, cmpxchg_keeps_its_source)
{
	struct rcv_ins cx = INS("\xf0\x48\x0f\xb1\x37"),
		       rr = INS("\x0f\xb1\xca");
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;
	int g;

	for (g = 0; g < 16; g++)
		pre.r[g] = val((uint64_t)g);
	rcv_forward(&ctx, 0, &cx, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RSI].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RSI].v, RP_REG_RSI);
	cr_assert_eq(post.r[RP_REG_RAX].k, 0);
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &rr, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RCX].v, RP_REG_RCX);
	cr_assert_eq(post.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RDX].k, 0, "the destination");
	cr_assert_eq(post.r[RP_REG_RAX].k, 0);
	memset(&pre, 0, sizeof(pre));
	post.r[RP_REG_RCX] = val(7);
	post.r[RP_REG_RDX] = val(9);
	rcv_backward(&ctx, 0, &rr, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RCX].v, 7);
	cr_assert_eq(pre.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RDX].k, 0);
	cr_assert_eq(conf, 0);
}

/* What add/sub/xor [mem], imm read and wrote, as the hooks keep it. */
static struct rcv_val rmw_kept[2];
static bool rmw_own;

static void rmw_wrote(void *c, uint64_t i, int rw, struct rcv_val v)
{
	(void)c;
	(void)i;
	rmw_kept[rw] = v;
}

static bool rmw_own_cb(void *c, uint64_t addr, unsigned int size)
{
	(void)c;
	(void)addr;
	(void)size;
	return rmw_own;
}

/*
 * add qword [rax], 3 with rax = 0x7000: forward, memory 10 before it
 * gives 10 read and 13 written; backward, memory 13 after it gives 10
 * read, but only in memory this thread alone writes (another thread
 * could write between the store and the next load).
 */
Test(recover, read_modify_write_forward_and_back)
{
	struct rcv_ins add = INS("\x48\x83\x00\x03"),
		       sub = INS("\x48\x83\x28\x03"),
		       xr = INS("\x48\x83\x30\x03");
	struct rcv_ctx c = { .mem = mem_cb, .wrote = rmw_wrote,
			     .own = rmw_own_cb };
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	pre.r[RP_REG_RAX] = val(0x7000);
	post.r[RP_REG_RAX] = val(0x7000);
	mem_known = true;
	mem_word = 10;
	memset(rmw_kept, 0, sizeof(rmw_kept));
	rcv_forward(&c, 0, &add, &pre, &post, &conf);
	cr_assert_eq(rmw_kept[0].k, ~0ull);
	cr_assert_eq(rmw_kept[0].v, 10);
	cr_assert_eq(rmw_kept[1].v, 13);
	/* backward: mem_cb answers 13 for memory after it */
	mem_word = 13;
	rmw_own = true;
	memset(rmw_kept, 0, sizeof(rmw_kept));
	rcv_backward(&c, 0, &add, &pre, &post, &conf);
	cr_assert_eq(rmw_kept[0].k, ~0ull);
	cr_assert_eq(rmw_kept[0].v, 10);
	cr_assert_eq(rmw_kept[1].v, 13);
	memset(rmw_kept, 0, sizeof(rmw_kept));
	rcv_backward(&c, 0, &sub, &pre, &post, &conf);
	cr_assert_eq(rmw_kept[0].v, 16);
	memset(rmw_kept, 0, sizeof(rmw_kept));
	rcv_backward(&c, 0, &xr, &pre, &post, &conf);
	cr_assert_eq(rmw_kept[0].v, 13 ^ 3);
	rmw_own = false;
	memset(rmw_kept, 0, sizeof(rmw_kept));
	rcv_backward(&c, 0, &add, &pre, &post, &conf);
	cr_assert_eq(rmw_kept[0].k, 0, "shared memory: nothing");
	cr_assert_eq(rmw_kept[1].k, 0);
	mem_known = false;
	cr_assert_eq(conf, 0);
}

/* wrfsbase and a load of fs may change fs_base (rcv_fs_absolute()
 * makes fs-relative operands absolute only after the last of them); a
 * load through fs does not.
 */
Test(recover, fs_writers_are_marked)
{
	struct rcv_ins wr = INS("\xf3\x48\x0f\xae\xd0"),	/* wrfsbase rax */
		       mv = INS("\x8e\xe0"),		/* mov fs, eax */
		       pf = INS("\x0f\xa1"),		/* pop fs */
		       lf = INS("\x48\x0f\xb4\x07"),	/* lfs rax, [rdi] */
		       ld = INS("\x64\x48\x8b\x04\x25\x28\x00\x00\x00");

	cr_assert(wr.flags & RCV_I_FSW);
	cr_assert(mv.flags & RCV_I_FSW);
	cr_assert(pf.flags & RCV_I_FSW, "capstone 4 does not list it");
	cr_assert(lf.flags & RCV_I_FSW);
	cr_assert_not(ld.flags & RCV_I_FSW, "mov rax, fs:0x28");
	cr_assert_eq(ld.op[1].seg, 1);
}

/* ZF set after test r, r says r is 0; after cmp r, x that r is x (in
 * the operand's size only); ZF clear or unknown says nothing.
 */
Test(recover, zero_flag_inverts_test_and_cmp)
{
	struct rcv_ins te = INS("\x48\x85\xc9"),		/* test rcx, rcx */
		       ci = INS("\x83\xf8\x05"),		/* cmp eax, 5 */
		       cr = INS("\x48\x39\xd3");		/* cmp rbx, rdx */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	post.r[RCV_FLAGS] = (struct rcv_val){ F_ZF, F_ZF };
	rcv_backward(&ctx, 0, &te, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(pre.r[RP_REG_RCX].v, 0);
	memset(&pre, 0, sizeof(pre));
	rcv_backward(&ctx, 0, &ci, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RAX].k, 0xffffffffull, "low half only");
	cr_assert_eq(pre.r[RP_REG_RAX].v, 5);
	memset(&pre, 0, sizeof(pre));
	post.r[RP_REG_RDX] = val(0x1234);
	rcv_backward(&ctx, 0, &cr, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RBX].v, 0x1234);
	cr_assert_eq(pre.r[RP_REG_RBX].k, ~0ull);
	/* ZF clear: nothing */
	memset(&pre, 0, sizeof(pre));
	post.r[RCV_FLAGS] = (struct rcv_val){ 0, F_ZF };
	rcv_backward(&ctx, 0, &te, &pre, &post, &conf);
	rcv_backward(&ctx, 0, &cr, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RCX].k, 0);
	cr_assert_eq(pre.r[RP_REG_RBX].k, 0);
	cr_assert_eq(conf, 0);
}

/* dec ecx, sub bl, 1 and add rax, rdx with ZF set after them: the result
 * is 0 (ecx whole: a 32-bit write; only bl of rbx); shl, which leaves ZF
 * alone for a count of 0, teaches nothing.
 */
Test(recover, zero_flag_gives_a_zero_result)
{
	struct rcv_ins dc = INS("\xff\xc9"),		/* dec ecx */
		       sb = INS("\x80\xeb\x01"),	/* sub bl, 1 */
		       sh = INS("\x48\xd3\xe0");	/* shl rax, cl */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	post.r[RCV_FLAGS] = (struct rcv_val){ F_ZF, F_ZF };
	rcv_forward(&ctx, 0, &dc, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RCX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RCX].v, 0);
	rcv_forward(&ctx, 0, &sb, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RBX].k, 0xff);
	cr_assert_eq(post.r[RP_REG_RBX].v, 0);
	rcv_forward(&ctx, 0, &sh, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, 0);
	memset(&post, 0, sizeof(post));
	post.r[RCV_FLAGS] = (struct rcv_val){ 0, F_ZF };
	rcv_forward(&ctx, 0, &dc, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RCX].k, 0, "ZF clear");
	cr_assert_eq(conf, 0);
}

Test(recover, xor_self_is_zero_and_32bit_writes_zero_extend)
{
	struct rcv_ins x = INS("\x31\xc0"), m = INS("\x89\xd8");
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	rcv_forward(&ctx, 0, &x, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RAX].v, 0);
	memset(&post, 0, sizeof(post));
	pre.r[RP_REG_RBX] = (struct rcv_val){ 0x5, 0xffffffffull };
	rcv_forward(&ctx, 0, &m, &pre, &post, &conf);	/* mov eax, ebx */
	cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RAX].v, 5);
}

/* Undecodable bytes are a barrier: nothing flows across. */
Test(recover, undecodable_is_a_barrier)
{
	struct rcv_ins in = ins("\x0f\x0b\x0b", 3);	/* ud2 + junk: bad size */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;

	cr_assert(in.flags & RCV_I_BARRIER);
	post.r[RP_REG_R12] = val(1);
	cr_assert_not(rcv_backward(&ctx, 0, &in, &pre, &post, &conf));
	cr_assert_eq(pre.r[RP_REG_R12].k, 0);
}

/* Memory accesses: a store names its address and value; a load the value
 * the register holds after it.
 */
Test(recover, accesses)
{
	struct rcv_ins st = INS("\x48\x89\x43\x08"),	/* mov [rbx+8], rax */
		       ld = INS("\x48\x8b\x43\x08");	/* mov rax, [rbx+8] */
	struct rcv_state pre = { 0 }, post = { 0 };
	struct rcv_acc a;

	pre.r[RP_REG_RBX] = val(0x1000);
	pre.r[RP_REG_RAX] = val(9);
	rcv_writes(&ctx, &st, &pre, &post, &a);
	cr_assert(a.valid && a.addr_known);
	cr_assert_eq(a.addr, 0x1008);
	cr_assert_eq(a.size, 8);
	cr_assert_eq(a.val.v, 9);
	post.r[RP_REG_RAX] = val(11);
	rcv_reads(&ctx, &ld, &pre, &post, &a);
	cr_assert(a.valid && a.addr_known);
	cr_assert_eq(a.val.v, 11);
	/* Unknown base: the address is unknown (a barrier for memory). */
	pre.r[RP_REG_RBX] = unknown;
	rcv_writes(&ctx, &st, &pre, &post, &a);
	cr_assert(a.valid && !a.addr_known);
}

/* test/cmp/bt with a memory operand only read it, whatever capstone 4's
 * access flags say (it marks `test [rbx], imm` written): no store, so no
 * barrier where rbx is unknown.
 */
/* maskmovdqu and its VEX form store to [rdi], which capstone does not list
 * as an operand: a store we cannot name, not no store; likewise stores
 * whose extent or address the operand does not give (pop [rsp+8],
 * fnstenv).
 */
Test(recover, implicit_masked_stores)
{
	struct rcv_ins m = INS("\x66\x0f\xf7\xc1"),	/* maskmovdqu */
		       v = INS("\xc5\xf9\xf7\xc1");	/* vmaskmovdqu */

	struct rcv_ins pm = INS("\x8f\x44\x24\x08"),	/* pop [rsp+8] */
		       fe = INS("\xd9\x30");		/* fnstenv [rax] */

	cr_assert(m.flags & RCV_I_MEMBAR);
	cr_assert(v.flags & RCV_I_MEMBAR);
	/* pop [rsp+8] writes at rsp + 8 after the pop, not before */
	cr_assert(pm.flags & RCV_I_MEMBAR);
	cr_assert(fe.flags & RCV_I_MEMBAR, "fnstenv writes 28 bytes");
}

Test(recover, compares_do_not_store)
{
	struct rcv_ins t[] = {
		INS("\xf7\x03\x00\x80\x00\x00"),	/* test dword [rbx], 0x8000 */
		INS("\xf6\x43\x74\x02"),		/* test byte [rbx+0x74], 2 */
		INS("\x48\x39\x03"),			/* cmp [rbx], rax */
		INS("\x0f\xa3\x03"),			/* bt [rbx], eax */
	};
	struct rcv_state pre = { 0 }, post = { 0 };
	struct rcv_acc a;
	size_t k;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		cr_assert(!mem_op_written(&t[k]), "insn %zu", k);
		cr_assert(!(t[k].flags & RCV_I_MEMBAR), "insn %zu", k);
		rcv_writes(&ctx, &t[k], &pre, &post, &a);
		cr_assert(!a.valid, "insn %zu stores", k);
	}
}

/* AVX-512 that capstone 4 cannot decode: libopcodes' text says what it
 * writes.  Vector-only operands write no GPR; kmovd %k0,%eax writes rax;
 * an EVEX store to memory stays a barrier.
 */
Test(recover, evex_by_libopcodes)
{
	struct rcv_ins vx = INS("\x62\xb2\x66\x20\x26\xc3"),	/* vptestnmb */
		       km = INS("\xc5\xfb\x93\xc0"),	/* kmovd %k0,%eax */
		       st = INS("\x62\xe1\xfe\x28\x7f\x07");	/* vmovdqu64 %ymm16,(%rdi) */
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;
	int g;

	for (g = 0; g < 16; g++)
		pre.r[g] = val((uint64_t)g);
	cr_assert_eq(vx.flags & RCV_I_BARRIER, 0);
	rcv_forward(&ctx, 0, &vx, &pre, &post, &conf);
	for (g = 0; g < 16; g++)
		cr_assert_eq(post.r[g].k, ~0ull, "reg %d", g);
	cr_assert_eq(km.flags & RCV_I_BARRIER, 0);
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &km, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, 0);
	cr_assert_eq(post.r[RP_REG_RBX].k, ~0ull);
	/* The store: a barrier when only libopcodes knows it, else a
	 * memory write at (%rdi).
	 */
	if (!(st.flags & RCV_I_BARRIER)) {
		struct rcv_acc a;

		pre.r[RP_REG_RDI] = val(0x5000);
		rcv_writes(&ctx, &st, &pre, &post, &a);
		cr_assert(a.valid && a.addr_known && a.addr == 0x5000 &&
			  a.size == 32);
	}
}

/*
 * Review 7's wrong values in the semantics, each against what the CPU
 * does (the reviewer's programs, tests/values/review7.c, ran them):
 * `rol %cl, %rcx` rotates rcx by the cl before it, which the rotate
 * itself overwrites (rolcl); a 16-bit bswap is undefined (bswap16);
 * movsxd without REX.W is a 32-bit move that zero-extends, with 0x66 a
 * 16-bit one (movsxd32); 0x67 truncates an absolute address to 32 bits
 * (a32abs, a32lea).
 */
Test(recover, review7_semantics)
{
	struct rcv_state pre = { 0 }, post = { 0 };
	uint64_t conf = 0;
	struct rcv_ins rol = INS("\x48\xd3\xc1");	/* rol rcx, cl */
	struct rcv_ins bsw = INS("\x66\x0f\xcb");	/* bswap bx */
	struct rcv_ins sx32 = INS("\x63\xc1");		/* movsxd eax, ecx */
	struct rcv_ins sx16 = INS("\x66\x63\xc1");	/* movsxd ax, cx */
	struct rcv_ins sx64 = INS("\x48\x63\xc1");	/* movsxd rax, ecx */
	struct rcv_ins lea = INS("\x67\x48\x8d\x04\x25\x00\x00\x00\xf0");
	struct rcv_val a;

	/* rol: rcx after 0x8000000000000080 (0x101 rotated by 1 is 0x202;
	 * any value): the count after is not the count before.
	 */
	post.r[RP_REG_RCX] = val(0x8000000000000080ull);
	rcv_backward(&ctx, 0, &rol, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RCX].k, 0, "rol %%cl,%%rcx: no inverse");

	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	post.r[RP_REG_RBX] = val(0x1234);
	rcv_backward(&ctx, 0, &bsw, &pre, &post, &conf);
	cr_assert_eq(pre.r[RP_REG_RBX].k & 0xffff, 0, "bswap bx: no inverse");
	pre.r[RP_REG_RBX] = val(0x1234);
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &bsw, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RBX].k & 0xffff, 0, "bswap bx: undefined");

	memset(&pre, 0, sizeof(pre));
	pre.r[RP_REG_RCX] = val(0x80000001ull);
	pre.r[RP_REG_RAX] = val(0x1111222233334444ull);
	rcv_forward(&ctx, 0, &sx32, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k, ~0ull);
	cr_assert_eq(post.r[RP_REG_RAX].v, 0x80000001ull);
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &sx64, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].v, 0xffffffff80000001ull);
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &sx16, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].k & 0xffff, 0xffff);
	cr_assert_eq(post.r[RP_REG_RAX].v & 0xffff, 0x0001);
	/* bits 16..63 are the old ones; unknown is fine, 0xffff is not */
	cr_assert_eq(post.r[RP_REG_RAX].v & post.r[RP_REG_RAX].k &
		     0xffffffffffff0000ull,
		     0x1111222233330000ull & post.r[RP_REG_RAX].k &
		     0xffffffffffff0000ull);

	a = rcv_addr(&ctx, &lea, &lea.op[1], &pre);
	cr_assert_eq(a.k, ~0ull);
	cr_assert_eq(a.v, 0xf0000000ull, "addr32: zero-extended");
	memset(&post, 0, sizeof(post));
	rcv_forward(&ctx, 0, &lea, &pre, &post, &conf);
	cr_assert_eq(post.r[RP_REG_RAX].v, 0xf0000000ull);
	cr_assert_eq(conf, 0);
}

/*
 * Gathers and scatters (review7 scatter, scatterend): capstone 4 drops
 * or misreads the vector index (a scatter became one dword store at a
 * known address: a later load got the value from before it), so they
 * are undecoded, a barrier that may write memory anywhere; an FMA in
 * the same opcode map and a VEX2 instruction are not.
 */
Test(recover, gathers_and_scatters_are_barriers)
{
	static const struct { const char *b; size_t n; bool vsib; } t[] = {
		{ "\x62\xf2\x7d\x49\xa0\x54\xa5\x00", 8, true },
		{ "\x62\xf2\x7d\x49\x90\x44\xa5\x00", 8, true },
		{ "\xc4\xe2\x71\x90\x04\x90", 6, true },
		{ "\x62\xf2\x6d\x48\xb8\xd9", 6, false },
		{ "\xc5\xe9\xfe\xd9", 4, false },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rcv_ins in = ins(t[i].b, t[i].n);

		cr_assert_eq(rcv_vsib((const uint8_t *)t[i].b, t[i].n),
			     t[i].vsib, "case %zu", i);
		if (t[i].vsib)
			cr_assert_eq(in.flags & (RCV_I_BARRIER | RCV_I_MEMBAR),
				     RCV_I_BARRIER | RCV_I_MEMBAR, "case %zu",
				     i);
	}
}
