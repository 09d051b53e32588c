// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the stack escape analysis (replay/rcv_escape.c): the first
 * instruction of a sequence that may show another thread an address in
 * the thread's own stack, one rule per test, each with the near miss that
 * must not count.  The whole engine against recorded threads that write
 * a flag on main's stack is tests/values/run.sh (holes.c stackflag,
 * escglobal, escheap, escreg).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"

TestSuite(rcv_escape, .init = setup, .fini = teardown);

/* Index of the instruction that escapes in @in[0..@n), or -1. */
static int first_escape(const struct rcv_ins *in, int n)
{
	struct rcv_esc e;
	int i, r = -1;

	memset(&e, 0, sizeof(e));
	rcv_esc_init(&e);
	for (i = 0; i < n && r < 0; i++)
		if (rcv_esc_step(&e, &in[i], 0))
			r = i;
	rcv_esc_fini(&e);
	return r;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define LEA_RAX		INS("\x48\x8d\x44\x24\x08")	/* lea rax, [rsp+8] */

Test(rcv_escape, store_to_global)
{
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x89\x05\x00\x01\x00\x00"),	/* mov [rip+256], rax */
	};
	struct rcv_ins b[] = {
		INS("\x48\x8d\x44\x24\x08"),
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x89\x1d\x00\x01\x00\x00"),	/* mov [rip+256], rbx */
	};

	cr_expect_eq(first_escape(a, N(a)), 1);
	/* Into the own stack, and a clean value out: no escape. */
	cr_expect_eq(first_escape(b, N(b)), -1);
}

Test(rcv_escape, store_through_clean_pointer)
{
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x89\x03"),			/* mov [rbx], rax */
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x89\x18"),			/* mov [rax], rbx */
	};

	cr_expect_eq(first_escape(a, N(a)), 1);
	/* A clean value through the stack pointer: none. */
	cr_expect_eq(first_escape(b, N(b)), -1);
}

Test(rcv_escape, through_a_slot)
{
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x8b\x4c\x24\x10"),		/* mov rcx, [rsp+16] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x89\x54\x24\x10"),		/* mov [rsp+16], rdx */
		INS("\x48\x8b\x4c\x24\x10"),		/* mov rcx, [rsp+16] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	struct rcv_ins c[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x8b\x4c\x24\x18"),		/* mov rcx, [rsp+24] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};

	cr_expect_eq(first_escape(a, N(a)), 3);
	/* Overwritten with a clean value first; another slot. */
	cr_expect_eq(first_escape(b, N(b)), -1);
	cr_expect_eq(first_escape(c, N(c)), -1);
}

Test(rcv_escape, push_pop)
{
	struct rcv_ins a[] = {
		INS("\x48\x8d\x2c\x24"),		/* lea rbp, [rsp] */
		INS("\x55"),				/* push rbp */
		INS("\x59"),				/* pop rcx */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	struct rcv_ins b[] = {
		INS("\x48\x8d\x2c\x24"),		/* lea rbp, [rsp] */
		INS("\x55"),				/* push rbp */
		INS("\x59"),				/* pop rcx */
		INS("\x48\x89\x01"),			/* mov [rcx], rax */
	};

	cr_expect_eq(first_escape(a, N(a)), 3);
	/* The popped pointer is still the own stack's: storing a clean
	 * value through it is no escape.
	 */
	cr_expect_eq(first_escape(b, N(b)), -1);
}

Test(rcv_escape, register_at_clone)
{
	struct rcv_ins a[] = {
		INS("\x48\x8d\x5c\x24\x08"),		/* lea rbx, [rsp+8] */
		INS("\xb8\x38\x00\x00\x00"),		/* mov eax, 56 */
		INS("\x0f\x05"),			/* syscall */
	};
	struct rcv_ins b[] = {
		INS("\x48\x8d\x5c\x24\x08"),		/* lea rbx, [rsp+8] */
		INS("\x31\xdb"),			/* xor ebx, ebx */
		INS("\xb8\x38\x00\x00\x00"),		/* mov eax, 56 */
		INS("\x0f\x05"),			/* syscall */
	};
	struct rcv_ins c[] = {
		INS("\x48\x8d\x5c\x24\x08"),		/* lea rbx, [rsp+8] */
		INS("\x0f\x05"),			/* rax unknown */
	};

	cr_expect_eq(first_escape(a, N(a)), 2);
	cr_expect_eq(first_escape(b, N(b)), -1);
	cr_expect_eq(first_escape(c, N(c)), 1);
}

Test(rcv_escape, syscall_arguments)
{
	struct rcv_ins futex[] = {
		INS("\x48\x8d\x7c\x24\x08"),		/* lea rdi, [rsp+8] */
		INS("\xb8\xca\x00\x00\x00"),		/* mov eax, 202 */
		INS("\x0f\x05"),
	};
	struct rcv_ins other[] = {
		INS("\x48\x8d\x7c\x24\x08"),		/* lea rdi, [rsp+8] */
		INS("\xb8\xe7\x03\x00\x00"),		/* mov eax, 999 */
		INS("\x0f\x05"),
	};
	struct rcv_ins wr_clean[] = {
		INS("\x48\x8d\x74\x24\x08"),		/* lea rsi, [rsp+8] */
		INS("\xb8\x01\x00\x00\x00"),		/* mov eax, 1 */
		INS("\x0f\x05"),
	};
	struct rcv_ins wr_ptr[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x08"),		/* mov [rsp+8], rax */
		INS("\x48\x8d\x74\x24\x08"),		/* lea rsi, [rsp+8] */
		INS("\xb8\x01\x00\x00\x00"),		/* mov eax, 1 */
		INS("\x0f\x05"),
	};

	cr_expect_eq(first_escape(futex, N(futex)), -1);
	cr_expect_eq(first_escape(other, N(other)), 2);
	/* write(2) of a stack buffer: only when it may hold a pointer. */
	cr_expect_eq(first_escape(wr_clean, N(wr_clean)), -1);
	cr_expect_eq(first_escape(wr_ptr, N(wr_ptr)), 4);
}

Test(rcv_escape, truncated_and_moved_rsp)
{
	struct rcv_ins trunc[] = {
		INS("\x89\xe0"),			/* mov eax, esp */
		INS("\x48\x89\x03"),			/* mov [rbx], rax */
	};
	struct rcv_ins away[] = {
		LEA_RAX,
		INS("\x48\x89\xdc"),			/* mov rsp, rbx */
		INS("\x50"),				/* push rax */
	};
	struct rcv_ins stay[] = {
		LEA_RAX,
		INS("\x48\x89\xc4"),			/* mov rsp, rax */
		INS("\x50"),				/* push rax */
	};

	cr_expect_eq(first_escape(trunc, N(trunc)), 1);
	/* rsp on memory not the own stack: a push publishes. */
	cr_expect_eq(first_escape(away, N(away)), 2);
	cr_expect_eq(first_escape(stay, N(stay)), -1);
}

Test(rcv_escape, aligned_frames)
{
	/* and rsp, -16: a new frame of reference under the old one. */
	struct rcv_ins a[] = {
		INS("\x48\x83\xe4\xf0"),		/* and rsp, -16 */
		LEA_RAX,
		INS("\x48\x89\x04\x24"),		/* mov [rsp], rax */
		INS("\x48\x8b\x0c\x24"),		/* mov rcx, [rsp] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	/* A pointer stored before the alignment, read back in the new
	 * frame at an offset that may be the same word.
	 */
	struct rcv_ins b[] = {
		INS("\x48\x89\x64\x24\xf8"),		/* mov [rsp-8], rsp */
		INS("\x48\x83\xe4\xf0"),		/* and rsp, -16 */
		INS("\x48\x8b\x4c\x24\x08"),		/* mov rcx, [rsp+8] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	/* Far above the old rsp: not that word. */
	struct rcv_ins c[] = {
		INS("\x48\x89\x64\x24\xf8"),		/* mov [rsp-8], rsp */
		INS("\x48\x83\xe4\xf0"),		/* and rsp, -16 */
		/* mov rcx, [rsp+256] */
		INS("\x48\x8b\x8c\x24\x00\x01\x00\x00"),
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};

	cr_expect_eq(first_escape(a, N(a)), 4);
	cr_expect_eq(first_escape(b, N(b)), 3);
	cr_expect_eq(first_escape(c, N(c)), -1);
}

Test(rcv_escape, dead_slots_after_ret)
{
	/* A pointer left under rsp by a callee, then the same word read
	 * after its return: dead, clean (nothing under the caller's rsp
	 * outlives a call); read before the return, it counts.
	 */
	struct rcv_ins a[] = {
		INS("\xe8\x00\x00\x00\x00"),		/* call */
		INS("\x48\x8d\x04\x24"),		/* lea rax, [rsp] */
		INS("\x48\x89\x44\x24\xf0"),		/* mov [rsp-16], rax */
		INS("\xc3"),				/* ret */
		INS("\x48\x8b\x4c\x24\xe8"),		/* mov rcx, [rsp-24] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	struct rcv_ins b[] = {
		INS("\xe8\x00\x00\x00\x00"),		/* call */
		INS("\x48\x8d\x04\x24"),		/* lea rax, [rsp] */
		INS("\x48\x89\x44\x24\xf0"),		/* mov [rsp-16], rax */
		INS("\x48\x8b\x4c\x24\xf0"),		/* mov rcx, [rsp-16] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};

	cr_expect_eq(first_escape(a, N(a)), -1);
	cr_expect_eq(first_escape(b, N(b)), 4);
}

Test(rcv_escape, undecoded)
{
	struct rcv_ins a[] = { INS("\xd6") };	/* salc: not in 64-bit */
	struct rcv_esc e;

	cr_assert(a[0].flags & RCV_I_BAD);
	cr_expect_eq(first_escape(a, 1), 0);
	/* An EVEX one with a memory operand: its data is vector data. */
	memset(&e, 0, sizeof(e));
	rcv_esc_init(&e);
	cr_expect_not(rcv_esc_step(&e, &a[0], 0x62));
	rcv_esc_fini(&e);
}

Test(rcv_escape, part_of_a_pointer)
{
	/* 8 bytes across two slots are not the pointer stored in one: a
	 * store through them is not known to stay on the stack.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x8b\x4c\x24\x0c"),		/* mov rcx, [rsp+12] */
		INS("\x48\x89\x01"),			/* mov [rcx], rax */
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x10"),		/* mov [rsp+16], rax */
		INS("\x48\x8b\x4c\x24\x10"),		/* mov rcx, [rsp+16] */
		INS("\x48\x89\x01"),			/* mov [rcx], rax */
	};

	cr_expect_eq(first_escape(a, N(a)), 3);
	cr_expect_eq(first_escape(b, N(b)), -1);
}

Test(rcv_escape, unrelated_frames)
{
	/* rax = rsp + 8 + rdx (rdx clean, any): a frame of reference of
	 * its own, so a pointer stored through it may be any stack word.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x01\xd0"),			/* add rax, rdx */
		INS("\x48\x89\x00"),			/* mov [rax], rax */
		INS("\x48\x8b\x4c\x24\x40"),		/* mov rcx, [rsp+64] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};

	cr_expect_eq(first_escape(a, N(a)), 4);
}

/*
 * Through an xmm register (movq xmm0, rax; movq [rip], xmm0): the stack
 * address leaves as vector data.  capstone's xmm operands are
 * RCV_OP_XMM (rcv_decode.c), which the analysis read as nothing before.
 */
Test(rcv_escape, store_through_xmm)
{
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x66\x48\x0f\x6e\xc0"),		/* movq xmm0, rax */
		INS("\x66\x0f\xd6\x05\x00\x01\x00\x00"), /* movq [rip+256], xmm0 */
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x66\x48\x0f\x6e\xc3"),		/* movq xmm0, rbx */
		INS("\x66\x0f\xd6\x05\x00\x01\x00\x00"), /* movq [rip+256], xmm0 */
	};

	cr_expect_eq(first_escape(a, N(a)), 2);
	/* rbx is clean: the analysis keeps one bit for all vectors, but
	 * none holds a stack address yet.
	 */
	cr_expect_eq(first_escape(b, N(b)), -1);
}
