// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the stack escape analysis (replay/rcv_escape.c): the first
 * instruction of a sequence that may show another thread an address in
 * the thread's own stack, one rule per test, each with the near miss that
 * must not count.  The whole engine against recorded threads that write
 * a flag on main's stack is tests/values/run.sh (holes.c stackflag,
 * escglobal, escheap, escreg).  Escapes through the vector, x87 and mask
 * registers, the segment bases and what the kernel keeps are
 * test_rcv_escape_state.c's.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"
#include "replay/rcv_esc_fixture.h"

TestSuite(rcv_escape, .init = setup, .fini = teardown);

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

/* ---- laundering (tests/values/review5.c): pointers rebuilt not by a copy */

#define BT_RAX		INS("\x48\x0f\xa3\xc8")	/* bt rax, rcx */
#define STORE_RSI	INS("\x48\x89\x33")		/* mov [rbx], rsi */

Test(rcv_escape, bit_through_the_flags)
{
	/* bt moves a bit of &x into CF; setc, sbb, cmovc, pushf take it
	 * out into a register (lsetc, lsbb, lcmov).
	 */
	struct rcv_ins setc[] = {
		LEA_RAX, BT_RAX,
		INS("\x40\x0f\x92\xc6"),		/* setc sil */
		INS("\x40\x88\x35\x00\x01\x00\x00"),	/* mov [rip+256], sil */
	};
	struct rcv_ins sbb[] = {
		LEA_RAX, BT_RAX,
		INS("\x48\x19\xf6"),			/* sbb rsi, rsi */
		STORE_RSI,
	};
	struct rcv_ins cmovc[] = {
		LEA_RAX, BT_RAX,
		INS("\x48\x0f\x42\xf7"),		/* cmovc rsi, rdi */
		STORE_RSI,
	};
	struct rcv_ins pushf[] = {
		LEA_RAX, BT_RAX,
		INS("\x9c"),				/* pushfq */
		INS("\x5e"),				/* pop rsi */
		STORE_RSI,
	};
	/* syscall puts rflags into r11 */
	struct rcv_ins r11[] = {
		LEA_RAX, BT_RAX,
		INS("\xb8\x27\x00\x00\x00"),		/* mov eax, 39 */
		INS("\x0f\x05"),
		INS("\x4c\x89\x1b"),			/* mov [rbx], r11 */
	};
	/* Near misses: a clean bit; flags written again from clean values. */
	struct rcv_ins clean[] = {
		LEA_RAX,
		INS("\x48\x0f\xa3\xcb"),		/* bt rbx, rcx */
		INS("\x40\x0f\x92\xc6"),
		INS("\x40\x88\x35\x00\x01\x00\x00"),
	};
	struct rcv_ins again[] = {
		LEA_RAX, BT_RAX,
		INS("\x48\x39\xcb"),			/* cmp rbx, rcx */
		INS("\x48\x19\xf6"),
		STORE_RSI,
	};

	/* sahf: the flags from ah, a register it does not name */
	struct rcv_ins sahf[] = {
		LEA_RAX,
		INS("\x9e"),				/* sahf */
		INS("\x48\x19\xf6"),			/* sbb rsi, rsi */
		STORE_RSI,
	};

	cr_expect_eq(first_escape(sahf, N(sahf)), 3);
	cr_expect_eq(first_escape(setc, N(setc)), 3);
	cr_expect_eq(first_escape(sbb, N(sbb)), 3);
	cr_expect_eq(first_escape(cmovc, N(cmovc)), 3);
	cr_expect_eq(first_escape(pushf, N(pushf)), 4);
	cr_expect_eq(first_escape(r11, N(r11)), 4);
	cr_expect_eq(first_escape(clean, N(clean)), -1);
	cr_expect_eq(first_escape(again, N(again)), -1);
}

Test(rcv_escape, branch_on_a_pointer)
{
	/* test a bit of &x; jz (lbranch): the way taken is the escape. */
	struct rcv_ins bit[] = {
		LEA_RAX,
		INS("\x48\x85\xf0"),			/* test rax, rsi */
		INS("\x74\x06"),			/* jz */
	};
	/* &x against a clean value (a bound, another pointer): too. */
	struct rcv_ins bound[] = {
		LEA_RAX,
		INS("\x48\x39\xd8"),			/* cmp rax, rbx */
		INS("\x72\x06"),			/* jb */
	};
	/* Near misses: &x tested for NULL, compared with another pointer
	 * into the own stack (neither depends on where the stack lies).
	 */
	struct rcv_ins null[] = {
		LEA_RAX,
		INS("\x48\x85\xc0"),			/* test rax, rax */
		INS("\x74\x06"),
	};
	struct rcv_ins two[] = {
		LEA_RAX,
		INS("\x48\x8d\x54\x24\x10"),		/* lea rdx, [rsp+16] */
		INS("\x48\x39\xd0"),			/* cmp rax, rdx */
		INS("\x72\x06"),
	};

	cr_expect_eq(first_escape(bit, N(bit)), 2);
	cr_expect_eq(first_escape(bound, N(bound)), 2);
	cr_expect_eq(first_escape(null, N(null)), -1);
	cr_expect_eq(first_escape(two, N(two)), -1);
}

Test(rcv_escape, indirect_branch_on_a_pointer)
{
	struct rcv_ins jmp[] = {
		LEA_RAX,
		INS("\xff\xe0"),			/* jmp rax */
	};
	struct rcv_ins table[] = {
		LEA_RAX,
		INS("\x0f\xb6\xf0"),			/* movzx esi, al */
		INS("\x41\xff\x14\xf0"),		/* call [r8+rsi*8] */
	};
	struct rcv_ins ret[] = {
		LEA_RAX,
		INS("\x50"),				/* push rax */
		INS("\xc3"),				/* ret */
	};
	struct rcv_ins clean[] = {
		LEA_RAX,
		INS("\xff\xe3"),			/* jmp rbx */
		INS("\x51"),				/* push rcx */
		INS("\xc3"),
	};

	cr_expect_eq(first_escape(jmp, N(jmp)), 1);
	cr_expect_eq(first_escape(table, N(table)), 2);
	cr_expect_eq(first_escape(ret, N(ret)), 2);
	cr_expect_eq(first_escape(clean, N(clean)), -1);
}

Test(rcv_escape, whole_pointer_or_null)
{
	/* cmove with clean flags: &x or NULL (ld.so's dfs_traversal);
	 * a NULL test of it is no escape, a store of it is.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x31\xd2"),			/* xor edx, edx */
		INS("\x85\xc9"),			/* test ecx, ecx */
		INS("\x48\x0f\x44\xd0"),		/* cmove rdx, rax */
		INS("\x48\x85\xd2"),			/* test rdx, rdx */
		INS("\x74\x06"),			/* jz */
		INS("\x48\x89\x13"),			/* mov [rbx], rdx */
	};
	/* With flags from &x's bits it is a bit of it: the branch. */
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x31\xd2"),
		BT_RAX,
		INS("\x48\x0f\x44\xd0"),
		INS("\x48\x85\xd2"),
		INS("\x74\x06"),
	};

	cr_expect_eq(first_escape(a, N(a)), 6);
	cr_expect_eq(first_escape(b, N(b)), 5);
}

Test(rcv_escape, load_through_a_pointer_bit)
{
	/* A byte of &x as a table index (ltable): the byte loaded is a
	 * function of it.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x0f\xb6\xf0"),			/* movzx esi, al */
		INS("\x41\x0f\xb6\x34\x30"),		/* movzx esi, [r8+rsi] */
		STORE_RSI,
	};
	/* Near miss: a load through &x itself, no stack word holding a
	 * pointer: clean.
	 */
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x8b\x08"),			/* mov rcx, [rax] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};

	cr_expect_eq(first_escape(a, N(a)), 3);
	cr_expect_eq(first_escape(b, N(b)), -1);
}

Test(rcv_escape, local_mode_laundering)
{
	/* rcv_callee.c's local mode: a store through an address rebuilt
	 * from the bits of one under the entry's rsp may write the
	 * callee's stack (rcv_esc_where: 1), and a branch on them ends
	 * the argument.
	 */
	struct rcv_ins a[] = {
		INS("\x48\x8d\x44\x24\xf0"),		/* lea rax, [rsp-16] */
		BT_RAX,
		INS("\x0f\x92\xc2"),			/* setc dl */
	};
	struct rcv_ins st = INS("\x48\x89\x0a");	/* mov [rdx], rcx */
	struct rcv_ins jz = INS("\x74\x06");
	struct rcv_esc e;
	uint32_t ep = 0;
	int64_t d = 0;
	int i;

	memset(&e, 0, sizeof(e));
	rcv_esc_init_local(&e);
	for (i = 0; i < N(a); i++)
		cr_expect_not(rcv_esc_step(&e, &a[i], 0));
	cr_expect_eq(rcv_esc_where(&e, &st.op[0], &ep, &d), 1);
	cr_expect(rcv_esc_step(&e, &jz, 0));
	rcv_esc_fini(&e);
}

/* First escape of @in[0..@n) from a call's entry (local mode), or -1. */
static int first_escape_local(const struct rcv_ins *in, int n)
{
	return first_escape_after(rcv_esc_init_local, in, n);
}

Test(rcv_escape, copy_out_of_an_allocation)
{
	/* Local mode: a pointer kept in the frame above a VLA (sub rsp,
	 * rdx), the VLA copied to the heap through xmm1 (memmove from
	 * _dl_sort_maps' VLA): a read through the VLA's pointer ends at
	 * its top, under the slot, so the copy is clean.
	 */
	struct rcv_ins a[] = {
		INS("\x48\x8d\x44\x24\xf8"),		/* lea rax, [rsp-8] */
		INS("\x48\x83\xec\x10"),		/* sub rsp, 16 */
		INS("\x48\x89\x04\x24"),		/* mov [rsp], rax */
		INS("\x48\x29\xd4"),			/* sub rsp, rdx */
		INS("\x48\x8d\x0c\x34"),		/* lea rcx, [rsp+rsi] */
		INS("\xf3\x0f\x6f\x0c\x39"),		/* movdqu xmm1, [rcx+rdi] */
		INS("\xf3\x0f\x7f\x0b"),		/* movdqu [rbx], xmm1 */
	};
	/* Near miss: the pointer stored inside the allocation. */
	struct rcv_ins b[] = {
		INS("\x48\x8d\x44\x24\xf8"),
		INS("\x48\x83\xec\x10"),
		INS("\x48\x29\xd4"),			/* sub rsp, rdx */
		INS("\x48\x89\x04\x24"),		/* mov [rsp], rax */
		INS("\x48\x8d\x0c\x34"),
		INS("\xf3\x0f\x6f\x0c\x39"),
		INS("\xf3\x0f\x7f\x0b"),
	};

	cr_expect_eq(first_escape_local(a, N(a)), -1);
	cr_expect_eq(first_escape_local(b, N(b)), 6);
}

Test(rcv_escape, partial_register_write)
{
	/* mov al, 5 keeps rax's other 56 bits: still an address in the
	 * stack's page.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\xb0\x05"),			/* mov al, 5 */
		INS("\x48\x89\x03"),			/* mov [rbx], rax */
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x66\xb8\x05\x00"),		/* mov ax, 5 */
		INS("\x48\x89\x03"),
	};
	/* Near miss: a 32-bit write clears the upper half. */
	struct rcv_ins c[] = {
		LEA_RAX,
		INS("\xb8\x05\x00\x00\x00"),		/* mov eax, 5 */
		INS("\x48\x89\x03"),
	};

	cr_expect_eq(first_escape(a, N(a)), 2);
	cr_expect_eq(first_escape(b, N(b)), 2);
	cr_expect_eq(first_escape(c, N(c)), -1);
}

/*
 * A clean value stored through an address that may be derived from a
 * stack pointer (its low byte as an index into a global table): the
 * place written shows the pointer's bits to whoever reads the table.
 */
Test(rcv_escape, store_through_a_pointer_bit)
{
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x25\xff\x00\x00\x00"),		/* and eax, 0xff */
		/* mov byte [rax+0x1000], 1 */
		INS("\xc6\x80\x00\x10\x00\x00\x01"),
	};
	/* Near miss: through the own stack pointer itself. */
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\xc6\x40\x10\x01"),		/* mov byte [rax+16] */
	};

	cr_expect_eq(first_escape(a, N(a)), 2);
	cr_expect_eq(first_escape(b, N(b)), -1);
}
