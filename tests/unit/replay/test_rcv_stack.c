// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the recovery engine's stack frames (replay/rcv_stack.c):
 * rcv_stack_build() pairs pops with pushes and follows rsp's classes; with
 * values (rcv_stack_build_v()) a push/pop pair survives a
 * store through a pointer only when the values known show the store's
 * address and the push's slot, and they are apart.  The whole engine
 * against a recorded store into a saved slot through a pointer it knows
 * is tests/values/run.sh ("unsound.c known").
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_stack, .init = setup, .fini = teardown);

/*
 * push rbx; mov [rax], rcx; pop rbx with rsp = 0x7000 before the push
 * (slot 0x6ff8) when @rsp_known, and rax = @rax when @rax_known: the pop's
 * pair (0: the push, -1: none).
 */
static int64_t pair_with(bool rsp_known, bool rax_known, uint64_t rax)
{
	const struct rcv_ins in[3] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x08"),		/* mov [rax], rcx */
		INS("\x5b"),			/* pop rbx */
	};

	return last_pair(in, 3, 1u << 1 | 1u << 2, rsp_known, rax_known,
			 rax);
}

Test(rcv_stack, store_of_known_address_apart_keeps_the_pair)
{
	cr_assert_eq(pair_with(true, true, 0x601000), 0);
	cr_assert_eq(pair_with(true, true, 0x7000), 0, "just above the slot");
	cr_assert_eq(pair_with(true, true, 0x6ff0), 0, "just below it");
}

Test(rcv_stack, store_into_the_slot_breaks_the_pair)
{
	cr_assert_eq(pair_with(true, true, 0x6ff8), -1);
	cr_assert_eq(pair_with(true, true, 0x6ffc), -1, "half of it");
	cr_assert_eq(pair_with(true, true, 0x6ff1), -1, "its first byte");
}

Test(rcv_stack, unknown_store_or_slot_breaks_the_pair)
{
	cr_assert_eq(pair_with(true, false, 0), -1, "address unknown");
	cr_assert_eq(pair_with(false, true, 0x601000), -1, "slot unknown");
	cr_assert_eq(pair_with(false, false, 0), -1);
}

/* Without values (rcv_stack_build()), any store through a pointer
 * breaks it, as before.
 */
Test(rcv_stack, without_values_every_pointer_store_breaks)
{
	struct rcv_ins in[3] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x08"),		/* mov [rax], rcx */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_frame f[4];
	int64_t pair[3];

	cr_assert_gt(rcv_stack_build(in, 3, f, pair), 0);
	cr_assert_eq(pair[2], -1);
}

/* A store through rbp, whose frame class is not rsp's, is compared by
 * address when rbp is known, and breaks the pair when it is not.
 */
Test(rcv_stack, a_store_through_another_frame_by_address)
{
	struct rcv_ins in[4] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x08"),		/* mov [rax], rcx */
		INS("\x48\x89\x45\x00"),	/* mov [rbp], rax */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_state st[5];
	struct rcv_stack_vals sv = { .a = st, .na = 5 };
	struct rcv_frame f[5];
	int64_t pair[4];
	int k;

	/* rbp (another class than rsp) known at 0x9000: its store is apart
	 * from the slot 0x6ff8; unknown, it may be the slot.
	 */
	memset(st, 0, sizeof(st));
	for (k = 0; k < 5; k++) {
		st[k].r[RP_REG_RSP] = val(k == 0 || k == 4 ? 0x7000 : 0x6ff8);
		st[k].r[RP_REG_RAX] = val(0x601000);
		st[k].r[RP_REG_RBP] = val(0x9000);
	}
	cr_assert_gt(rcv_stack_build_v(in, 4, &sv, f, pair), 0);
	cr_assert_eq(pair[3], 0);
	for (k = 0; k < 5; k++)
		st[k].r[RP_REG_RBP] = unknown;
	cr_assert_gt(rcv_stack_build_v(in, 4, &sv, f, pair), 0);
	cr_assert_eq(pair[3], -1);
	for (k = 0; k < 5; k++)
		st[k].r[RP_REG_RBP] = val(0x6ff8);
	cr_assert_gt(rcv_stack_build_v(in, 4, &sv, f, pair), 0);
	cr_assert_eq(pair[3], -1, "rbp at the slot");
}

/*
 * The tables kept from one build to the next (struct rcv_stack_tmp, p99):
 * 3,000 pushes of one register and their pops (more slots than the
 * tables first hold, so they grow mid-build), split between two windows
 * (ins_b) or not, with stores of known address between, pair each pop
 * with its push as a build with tables of its own does, and again on a
 * second build with the same tables (emptied by generation).
 */
Test(rcv_stack, kept_tables_grow_and_empty_between_builds)
{
	enum { N = 3000, M = 2 * N + 2 };
	struct rcv_ins *in = calloc(M, sizeof(*in));
	struct rcv_state *st = calloc(M + 1, sizeof(*st));
	struct rcv_frame *f = calloc(M + 1, sizeof(*f));
	struct rcv_frame *g = calloc(M + 1, sizeof(*g));
	int64_t *pair = calloc(M, sizeof(*pair));
	int64_t *own = calloc(M, sizeof(*own));
	struct rcv_stack_tmp *t;
	struct rcv_stack_vals sv = { .a = st, .na = M + 1 };
	size_t i, half = N + 1;
	int k, nc;

	cr_assert(in && st && f && g && pair && own);
	cr_assert_eq(rcv_stack_tmp_new(&t), 0);
	for (i = 0; i < N; i++)
		in[i] = INS("\x53");			/* push rbx */
	in[N] = INS("\x48\x89\x08");			/* mov [rax], rcx */
	in[N + 1] = INS("\x48\x89\x08");
	for (i = N + 2; i < M; i++)
		in[i] = INS("\x5b");			/* pop rbx */
	for (i = 0; i <= M; i++) {
		uint64_t sp = 0x800000 - 8 * (i <= N ? i : i >= N + 2 ?
					       2 * N + 2 - i : N);

		st[i].r[RP_REG_RSP] = val(sp);
		st[i].r[RP_REG_RAX] = val(0x601000);
	}
	nc = rcv_stack_build_v(in, M, &sv, g, own);
	cr_assert_gt(nc, 0);
	for (i = N + 2; i < M; i++)
		cr_assert_eq(own[i], (int64_t)(2 * N + 1 - i), "pop %zu", i);
	for (k = 0; k < 2; k++) {
		sv.tmp = t;
		cr_assert_eq(rcv_stack_build_v(in, M, &sv, f, pair), nc);
		cr_assert_eq(memcmp(pair, own, M * sizeof(*pair)), 0);
		cr_assert_eq(memcmp(f, g, (M + 1) * sizeof(*f)), 0);
		/* The same instructions as a window and the one after. */
		sv = (struct rcv_stack_vals){ .a = st, .b = st + half,
					      .na = half, .ins_b = in + half,
					      .tmp = t };
		cr_assert_eq(rcv_stack_build_v(in, M, &sv, f, pair), nc);
		cr_assert_eq(memcmp(pair, own, M * sizeof(*pair)), 0);
		sv = (struct rcv_stack_vals){ .a = st, .na = M + 1 };
	}
	rcv_stack_tmp_free(t);
	free(in);
	free(st);
	free(f);
	free(g);
	free(pair);
	free(own);
}

/* ---- stack frames (rcv_stack.c) ------------------------------------------ */

/* push rbx; push 5; add rsp, 8; pop rbx: the pop reads the first push's
 * slot, not the discarded second one; rsp offsets follow each move.
 */
Test(rcv_stack, pop_pairs_with_the_push_of_its_slot)
{
	struct rcv_ins in[4] = {
		INS("\x53"),			/* push rbx */
		INS("\x6a\x05"),		/* push 5 */
		INS("\x48\x83\xc4\x08"),	/* add rsp, 8 */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_frame f[5];
	int64_t pair[4];

	cr_assert_gt(rcv_stack_build(in, 4, f, pair), 0);
	cr_assert_eq(pair[3], 0);
	cr_assert_eq(f[1].rsp_o, -8);
	cr_assert_eq(f[2].rsp_o, -16);
	cr_assert_eq(f[3].rsp_o, -8);
	cr_assert_eq(f[4].rsp_o, 0);
	cr_assert_eq(f[4].rsp_c, f[0].rsp_c);
}

/* A store through rsp into the slot between push and pop breaks the pair;
 * an unknown change of rsp (alloca) starts another class, and
 * lea rsp, [rbp - d] returns to rbp's.
 */
Test(rcv_stack, stores_and_alloca_break_or_restore)
{
	struct rcv_ins a[3] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x04\x24"),	/* mov [rsp], rax */
		INS("\x5b"),			/* pop rbx */
	};
	struct rcv_ins b[6] = {
		INS("\x55"),			/* push rbp */
		INS("\x48\x89\xe5"),		/* mov rbp, rsp */
		INS("\x48\x29\xc4"),		/* sub rsp, rax */
		INS("\x48\x8d\x65\x00"),	/* lea rsp, [rbp+0] */
		INS("\x5d"),			/* pop rbp */
		INS("\xc3"),			/* ret */
	};
	struct rcv_frame f[7];
	int64_t pair[6];

	cr_assert_gt(rcv_stack_build(a, 3, f, pair), 0);
	cr_assert_eq(pair[2], -1);
	cr_assert_gt(rcv_stack_build(b, 6, f, pair), 0);
	cr_assert_neq(f[3].rsp_c, f[2].rsp_c, "alloca: a new class");
	cr_assert_eq(f[4].rsp_c, f[0].rsp_c);
	cr_assert_eq(f[4].rsp_o, -8);
	cr_assert_eq(pair[4], 0);
	cr_assert_eq(f[6].rsp_o, 8);
}

/* rt_sigreturn loads rsp from the signal frame: a new class after it; a
 * write(2) keeps the frame.
 */
Test(rcv_stack, sigreturn_breaks_the_frame)
{
	struct rcv_ins sr[3] = {
		INS("\x53"),			/* push rbx */
		INS("\xb8\x0f\x00\x00\x00"),	/* mov eax, 15 */
		INS("\x0f\x05"),		/* syscall */
	};
	struct rcv_ins wr[3] = {
		INS("\x53"),
		INS("\xb8\x01\x00\x00\x00"),	/* mov eax, 1 */
		INS("\x0f\x05"),
	};
	struct rcv_frame f[4];
	int64_t pair[3];

	cr_assert_gt(rcv_stack_build(sr, 3, f, pair), 0);
	cr_assert_neq(f[3].rsp_c, f[2].rsp_c);
	cr_assert_gt(rcv_stack_build(wr, 3, f, pair), 0);
	cr_assert_eq(f[3].rsp_c, f[2].rsp_c);
	cr_assert_eq(f[3].rsp_o, -8);
}

/* A store the frames cannot place (through another pointer, an indexed
 * one, fs:, or in another class of rsp), or a syscall that may write
 * memory, between push and pop may have written the slot: no pair.  A
 * store to another slot of the same class, or getpid, keeps it; write(2)
 * does not (to /proc/self/mem it writes memory, and the frames are built
 * before any descriptor is known: replay/rcv_fd.c).
 */
Test(rcv_stack, unplaced_stores_break_the_pair)
{
	static const char *const kill[] = {
		"\x48\x89\x06",			/* mov [rsi], rax */
		"\x48\x89\x04\xcc",		/* mov [rsp+rcx*8], rax */
		"\x64\x48\x89\x04\x25\x00\x00\x00\x00",	/* mov fs:[0], rax */
		"\x48\xab",			/* stosq */
	};
	static const size_t klen[] = { 3, 4, 9, 2 };
	struct rcv_ins keep[4] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\x44\x24\xf8"),	/* mov [rsp-8], rax */
		INS("\xb8\x27\x00\x00\x00"),	/* mov eax, 39 */
		INS("\x0f\x05"),		/* syscall (getpid) */
	};
	struct rcv_ins in[5], rd[4] = {
		INS("\x53"),
		INS("\x31\xc0"),		/* xor eax, eax */
		INS("\x0f\x05"),		/* syscall (read) */
		INS("\x5b"),
	};
	struct rcv_ins cls[5] = {
		INS("\x53"),			/* push rbx */
		INS("\x48\x89\xe5"),		/* mov rbp, rsp */
		INS("\x48\x83\xe4\xf0"),	/* and rsp, -16: a new class */
		INS("\x48\x89\x04\x24"),	/* mov [rsp], rax */
		INS("\x48\x8d\x65\x00"),	/* lea rsp, [rbp+0] */
	};
	struct rcv_ins c6[6];
	struct rcv_frame f[7];
	int64_t pair[6];
	size_t k;

	for (k = 0; k < 4; k++) {
		in[0] = INS("\x53");
		in[1] = ins(kill[k], klen[k]);
		in[2] = INS("\x5b");
		cr_assert_gt(rcv_stack_build(in, 3, f, pair), 0);
		cr_assert_eq(pair[2], -1, "store %zu", k);
	}
	memcpy(in, keep, sizeof(keep));
	in[4] = INS("\x5b");
	cr_assert_gt(rcv_stack_build(in, 5, f, pair), 0);
	cr_assert_eq(pair[4], 0);
	in[2] = INS("\xb8\x01\x00\x00\x00");	/* mov eax, 1 */
	cr_assert_gt(rcv_stack_build(in, 5, f, pair), 0);
	cr_assert_eq(pair[4], -1, "write(2) may write the slot");
	cr_assert_gt(rcv_stack_build(rd, 4, f, pair), 0);
	cr_assert_eq(pair[3], -1, "read(2) may write the slot");
	memcpy(c6, cls, sizeof(cls));
	c6[5] = INS("\x5b");
	cr_assert_gt(rcv_stack_build(c6, 6, f, pair), 0);
	cr_assert_eq(pair[5], -1, "a store in another class");
}

/*
 * Every register's frame class (docs/values.md, "Every register's
 * frame"): rbx after mov rbx, rsp is rsp's class at rsp's offset, so a
 * load through it pairs with the push of its slot, and mov rsp, rbx gives
 * rsp its class back.  @st (or NULL: no values) holds the states before
 * each instruction; the last instruction's pair.
 */
static int64_t frame_pair(const struct rcv_ins *in, size_t n,
			  struct rcv_state *st, struct rcv_frame *f)
{
	struct rcv_stack_vals sv = { .a = st, .na = n + 1 };
	int64_t pair[16];

	cr_assert_leq(n, 15);
	cr_assert_gt(rcv_stack_build_v(in, n, st ? &sv : NULL, f, pair), 0);
	return pair[n - 1];
}

#define PUSHRBX	INS("\x53")				/* push rbx */
#define RBXRSP	INS("\x48\x89\xe3")			/* mov rbx, rsp */
#define RSPRBX	INS("\x48\x89\xdc")			/* mov rsp, rbx */
#define SUB32	INS("\x48\x83\xec\x20")			/* sub rsp, 32 */
#define AND64	INS("\x48\x83\xe4\xc0")			/* and rsp, -64 */
#define LDRBX	INS("\x48\x8b\x03")			/* mov rax, [rbx] */

Test(rcv_stack, a_copy_of_rsp_in_rbx_is_rsp_frame)
{
	struct rcv_ins in[] = { PUSHRBX, RBXRSP, SUB32, LDRBX };
	struct rcv_ins st[] = {
		PUSHRBX, RBXRSP, SUB32,
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
		LDRBX,
	};
	struct rcv_ins half[] = {
		PUSHRBX, RBXRSP, SUB32,
		INS("\x89\x0b"),			/* mov [rbx], ecx */
		LDRBX,
	};
	struct rcv_ins back[] = {
		PUSHRBX, RBXRSP, AND64, SUB32, RSPRBX, INS("\x5b"),
	};
	struct rcv_frame f[16];

	cr_assert_eq(frame_pair(in, 4, NULL, f), 0, "the push of its slot");
	cr_assert_eq(frame_pair(st, 5, NULL, f), 3,
		     "a store through rbx at the slot: the store's value");
	cr_assert_eq(frame_pair(half, 5, NULL, f), -1, "half the slot");
	cr_assert_eq(frame_pair(back, 6, NULL, f), 0,
		     "pop rbx after mov rsp, rbx: the push");
	cr_assert_eq(f[5].rsp_c, f[1].rsp_c, "rsp's class back");
	cr_assert_eq(f[5].rsp_o, f[1].rsp_o);
	cr_assert_neq(f[3].rsp_c, f[1].rsp_c, "and without values: lost");
}

/* A copy moved by an unknown amount (an index, an add of a register
 * whose value is not known) is no frame; with the register's value known
 * it is.
 */
Test(rcv_stack, a_copy_moved_by_an_unknown_amount_is_not)
{
	struct rcv_ins idx[] = {
		PUSHRBX, RBXRSP,
		INS("\x48\x8d\x34\x13"),		/* lea rsi, [rbx+rdx] */
		INS("\x48\x89\x0e"),			/* mov [rsi], rcx */
		LDRBX,
	};
	struct rcv_ins add[] = {
		PUSHRBX, RBXRSP,
		INS("\x48\x01\xd3"),			/* add rbx, rdx */
		LDRBX,
	};
	struct rcv_state s[8];
	struct rcv_frame f[16];
	int k;

	cr_assert_eq(frame_pair(idx, 5, NULL, f), -1,
		     "a store through rbx + rdx may be the slot");
	cr_assert_eq(frame_pair(add, 4, NULL, f), -1, "rbx moved: unknown");
	memset(s, 0, sizeof(s));
	for (k = 0; k < 8; k++)
		s[k].r[RP_REG_RDX] = val(0);
	cr_assert_eq(frame_pair(add, 4, s, f), 0, "by 0, known");
	for (k = 0; k < 8; k++)
		s[k].r[RP_REG_RDX] = val(8);
	cr_assert_eq(frame_pair(add, 4, s, f), -1, "by 8: not the slot");
}

/* and rsp, -64 keeps rsp's class where the bits it clears are known. */
Test(rcv_stack, and_keeps_the_class_where_the_low_bits_are_known)
{
	struct rcv_ins in[] = { PUSHRBX, AND64, INS("\x5b") };
	struct rcv_state s[8];
	struct rcv_frame f[16];
	int k;

	memset(s, 0, sizeof(s));
	for (k = 0; k < 8; k++)
		s[k].r[RP_REG_RSP] = (struct rcv_val){ 0x6ff8, 0x3f };
	frame_pair(in, 3, s, f);
	cr_assert_eq(f[2].rsp_c, f[1].rsp_c, "the low 6 bits known");
	cr_assert_eq(f[2].rsp_o, f[1].rsp_o - 0x38);
	for (k = 0; k < 8; k++)
		s[k].r[RP_REG_RSP] = (struct rcv_val){ 0x6ff8, 0x1f };
	frame_pair(in, 3, s, f);
	cr_assert_neq(f[2].rsp_c, f[1].rsp_c, "bit 5 not known");
}

/* A frame pointer saved in a slot and loaded back keeps its class. */
Test(rcv_stack, a_saved_copy_of_rsp_keeps_its_class)
{
	struct rcv_ins in[] = {
		INS("\x57"),				/* push rdi */
		RBXRSP,
		PUSHRBX,
		INS("\x59"),				/* pop rcx */
		INS("\x48\x8b\x01"),			/* mov rax, [rcx] */
	};
	struct rcv_ins clob[] = {
		INS("\x57"),				/* push rdi */
		RBXRSP,
		PUSHRBX,
		INS("\x59"),				/* pop rcx */
		INS("\x48\x31\xc9"),			/* xor rcx, rcx */
		INS("\x48\x8b\x01"),			/* mov rax, [rcx] */
	};
	struct rcv_frame f[16];

	cr_assert_eq(frame_pair(in, 5, NULL, f), 0, "rdi's push");
	cr_assert_eq(frame_pair(clob, 6, NULL, f), -1, "rcx written");
}

/*
 * A system call between a push and its pop (docs/values.md, "Every
 * register's frame"): what the values say it writes (rcv_stack_vals'
 * sys_write, the engine's rcv_sys_write()) is a store there, so a read(2)
 * into a buffer away from the slot keeps the pair, one into any byte of
 * it or of unknown extent breaks it, and so does any placed write where
 * the slot's own address is not known.
 */
static int64_t sys_eff[3];	/* effect, address, length */

static int sys_fixed(void *ctx, size_t i, uint64_t *a, uint64_t *len)
{
	(void)ctx;
	(void)i;
	*a = (uint64_t)sys_eff[1];
	*len = (uint64_t)sys_eff[2];
	return (int)sys_eff[0];
}

static int64_t sys_pair(int e, uint64_t a, uint64_t len, bool rsp_known)
{
	static const uint64_t rsp[6] = {
		0x7008, 0x7000, 0x6ff8, 0x6ff8, 0x6ff8, 0x7000
	};
	const struct rcv_ins in[5] = {
		INS("\xe8\x00\x00\x00\x00"),		/* call next */
		PUSHRBX,
		INS("\xb8\x00\x00\x00\x00"),		/* mov eax, 0 */
		INS("\x0f\x05"),			/* syscall */
		INS("\x5b"),				/* pop rbx */
	};
	struct rcv_state st[6];
	struct rcv_stack_vals sv = { .a = st, .na = 6,
				     .sys_write = sys_fixed };
	struct rcv_frame f[6];
	int64_t pair[5];
	int k;

	sys_eff[0] = e;
	sys_eff[1] = (int64_t)a;
	sys_eff[2] = (int64_t)len;
	memset(st, 0, sizeof(st));
	for (k = 0; k < 6; k++)
		st[k].r[RP_REG_RSP] = rsp_known ? val(rsp[k]) : unknown;
	cr_assert_gt(rcv_stack_build_v(in, 5, &sv, f, pair), 0);
	return pair[4];
}

Test(rcv_stack, a_system_calls_write_placed_by_the_values)
{
	cr_assert_eq(sys_pair(1, 0x601000, 8, true), 1, "a buffer apart");
	cr_assert_eq(sys_pair(0, 0, 0, true), 1, "writes nothing");
	cr_assert_eq(sys_pair(1, 0x6ff8, 8, true), -1, "into the slot");
	cr_assert_eq(sys_pair(1, 0x6ffc, 2, true), -1, "half of it");
	cr_assert_eq(sys_pair(1, 0x6ff0, 9, true), -1, "its first byte");
	cr_assert_eq(sys_pair(-1, 0, 0, true), -1, "not known");
	cr_assert_eq(sys_pair(1, 0x601000, 8, false), -1,
		     "the slot's address not known");
}

/*
 * A push of memory (the PLT's push of the GOT's link_map word) pairs with
 * the reload of its slot through rsp's copy in rbx (the lazy-binding
 * resolver's mov rdi, [rbx + 8]) and with its pop, as a push of a
 * register does: rcv_pass.c links them to what the push read.
 */
Test(rcv_stack, a_push_of_memory_pairs_with_its_reload_and_pop)
{
	struct rcv_ins rl[] = {
		INS("\xff\x35\x10\x00\x00\x00"),	/* push [rip + 0x10] */
		PUSHRBX, RBXRSP,
		INS("\x48\x8b\x7b\x08"),		/* mov rdi, [rbx + 8] */
	};
	struct rcv_ins pp[] = {
		INS("\xff\x35\x10\x00\x00\x00"),	/* push [rip + 0x10] */
		INS("\x58"),				/* pop rax */
	};
	struct rcv_frame f[16];

	cr_assert_eq(frame_pair(rl, 4, NULL, f), 0, "the reload");
	cr_assert_eq(frame_pair(pp, 2, NULL, f), 0, "the pop");
}
