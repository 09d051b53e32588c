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
#include "rcv_esc.h"

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

Test(rcv_escape, ioctl_and_mmap)
{
	/* ioctl keeps its argument but for requests known to copy only
	 * (TCGETS); UFFDIO_REGISTER keeps the range (uffdstack).
	 */
	struct rcv_ins tcgets[] = {
		INS("\x48\x8d\x54\x24\x08"),		/* lea rdx, [rsp+8] */
		INS("\xbe\x01\x54\x00\x00"),		/* mov esi, 0x5401 */
		INS("\xb8\x10\x00\x00\x00"),		/* mov eax, 16 */
		INS("\x0f\x05"),
	};
	struct rcv_ins uffd[] = {
		INS("\x48\x8d\x54\x24\x08"),
		INS("\xbe\x00\xaa\x20\xc0"),		/* mov esi, 0xc020aa00 */
		INS("\xb8\x10\x00\x00\x00"),
		INS("\x0f\x05"),
	};
	/* The request not shown (rsi from elsewhere): kept. */
	struct rcv_ins unknown_req[] = {
		INS("\x48\x8d\x54\x24\x08"),
		INS("\xbe\x01\x54\x00\x00"),
		INS("\x48\x19\xf6"),			/* sbb rsi, rsi */
		INS("\xb8\x10\x00\x00\x00"),
		INS("\x0f\x05"),
	};
	/* mmap over a stack page (MAP_FIXED); mmap(NULL, ...) is fine. */
	struct rcv_ins fixed[] = {
		INS("\x48\x8d\x3c\x24"),		/* lea rdi, [rsp] */
		INS("\xb8\x09\x00\x00\x00"),		/* mov eax, 9 */
		INS("\x0f\x05"),
	};
	struct rcv_ins anon[] = {
		INS("\x31\xff"),			/* xor edi, edi */
		INS("\xb8\x09\x00\x00\x00"),
		INS("\x0f\x05"),
	};

	cr_expect_eq(first_escape(tcgets, N(tcgets)), -1);
	cr_expect_eq(first_escape(uffd, N(uffd)), 3);
	cr_expect_eq(first_escape(unknown_req, N(unknown_req)), 4);
	cr_expect_eq(first_escape(fixed, N(fixed)), 2);
	cr_expect_eq(first_escape(anon, N(anon)), -1);
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

Test(rcv_escape, through_an_xmm_register)
{
	/* movq xmm0, rax: the pointer in a vector register (an operand
	 * of type RCV_OP_XMM since rcv_sse.c), then stored to a global.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x66\x48\x0f\x6e\xc0"),		/* movq xmm0, rax */
		INS("\x66\x0f\xd6\x05\x00\x01\x00\x00"), /* movq [rip+256], xmm0 */
	};
	/* A stack word holding it, through xmm1 to the heap. */
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x89\x44\x24\x08"),		/* mov [rsp+8], rax */
		INS("\xf3\x0f\x6f\x4c\x24\x08"),	/* movdqu xmm1, [rsp+8] */
		INS("\xf3\x0f\x7f\x0b"),		/* movdqu [rbx], xmm1 */
	};
	/* Near miss: a clean vector. */
	struct rcv_ins c[] = {
		LEA_RAX,
		INS("\xf3\x0f\x6f\x4c\x24\x08"),
		INS("\xf3\x0f\x7f\x0b"),
	};

	cr_expect_eq(first_escape(a, N(a)), 2);
	cr_expect_eq(first_escape(b, N(b)), 3);
	cr_expect_eq(first_escape(c, N(c)), -1);
}

/* First escape of @in[0..@n) from a call's entry (local mode), or -1. */
static int first_escape_local(const struct rcv_ins *in, int n)
{
	struct rcv_esc e;
	int i, r = -1;

	memset(&e, 0, sizeof(e));
	rcv_esc_init_local(&e);
	for (i = 0; i < n && r < 0; i++)
		if (rcv_esc_step(&e, &in[i], 0))
			r = i;
	rcv_esc_fini(&e);
	return r;
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

Test(rcv_escape, through_the_x87_state)
{
	/* tests/values/review6.c lx87: fild/fistp through two slots, the
	 * first cleared before the second is read.
	 */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x89\x04\x24"),		/* mov [rsp], rax */
		INS("\xdf\x2c\x24"),			/* fild qword [rsp] */
		INS("\x48\xc7\x04\x24\x00\x00\x00\x00"), /* mov [rsp], 0 */
		INS("\xdf\x7c\x24\x08"),		/* fistp m64 [rsp+8] */
		INS("\x48\x8b\x4c\x24\x08"),		/* mov rcx, [rsp+8] */
		INS("\x48\x89\x0b"),			/* mov [rbx], rcx */
	};
	/* lfld: its bits as a double, out as ten bytes (fstp tbyte). */
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x89\x04\x24"),
		INS("\xdd\x04\x24"),			/* fld qword [rsp] */
		INS("\x48\xc7\x04\x24\x00\x00\x00\x00"),
		INS("\xdb\x7c\x24\x10"),		/* fstp m80 [rsp+16] */
		INS("\x48\x8b\x4c\x24\x10"),		/* mov rcx, [rsp+16] */
		INS("\x48\x89\x0b"),
	};
	/* The status word out of a tainted state (fnstsw ax). */
	struct rcv_ins c[] = {
		INS("\x48\x8d\x4c\x24\x08"),		/* lea rcx, [rsp+8] */
		INS("\x48\x89\x0c\x24"),		/* mov [rsp], rcx */
		INS("\xdd\x04\x24"),
		INS("\x31\xc0"),			/* xor eax, eax */
		INS("\xdf\xe0"),			/* fnstsw ax */
		INS("\x48\x89\x03"),			/* mov [rbx], rax */
	};
	/* Near miss: a clean round trip (the slot never held it). */
	struct rcv_ins d[] = {
		INS("\x48\x8d\x4c\x24\x08"),
		INS("\xdf\x2c\x24"),
		INS("\xdf\x7c\x24\x08"),
		INS("\x48\x8b\x4c\x24\x08"),
		INS("\x48\x89\x0b"),
		INS("\x31\xc0"),
		INS("\xdf\xe0"),
		INS("\x48\x89\x03"),
	};

	cr_expect_eq(first_escape(a, N(a)), 6);
	cr_expect_eq(first_escape(b, N(b)), 6);
	cr_expect_eq(first_escape(c, N(c)), 5);
	cr_expect_eq(first_escape(d, N(d)), -1);
}

Test(rcv_escape, mmx_aliases_the_x87_state)
{
	/* movq mm0, rax, then st0's bits out (fstp): one state. */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\x48\x0f\x6e\xc0"),		/* movq mm0, rax */
		INS("\xdd\x5c\x24\x08"),		/* fstp qword [rsp+8] */
		INS("\x48\x8b\x4c\x24\x08"),
		INS("\x48\x89\x0b"),
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\x48\x0f\x6e\xc0"),
		INS("\x48\x0f\x7e\xc1"),		/* movq rcx, mm0 */
		INS("\x48\x89\x0b"),
	};
	/* Near miss: a clean MMX value through the x87 store. */
	struct rcv_ins c[] = {
		LEA_RAX,
		INS("\x48\x0f\x6e\xc3"),		/* movq mm0, rbx */
		INS("\xdd\x5c\x24\x08"),
		INS("\x48\x8b\x4c\x24\x08"),
		INS("\x48\x89\x0b"),
	};

	cr_expect_eq(first_escape(a, N(a)), 4);
	cr_expect_eq(first_escape(b, N(b)), 3);
	cr_expect_eq(first_escape(c, N(c)), -1);
}

Test(rcv_escape, fs_gs_base)
{
	/* review6.c lgsbase, lfsbase: the base read back whole. */
	struct rcv_ins a[] = {
		LEA_RAX,
		INS("\xf3\x48\x0f\xae\xd8"),		/* wrgsbase rax */
	};
	struct rcv_ins b[] = {
		LEA_RAX,
		INS("\xf3\x48\x0f\xae\xd0"),		/* wrfsbase rax */
	};
	/* Near miss: a clean base, read back. */
	struct rcv_ins c[] = {
		LEA_RAX,
		INS("\xf3\x48\x0f\xae\xd1"),		/* wrfsbase rcx */
		INS("\xf3\x48\x0f\xae\xd9"),		/* wrgsbase rcx */
		INS("\xf3\x48\x0f\xae\xca"),		/* rdgsbase rdx */
		INS("\x48\x89\x13"),			/* mov [rbx], rdx */
	};

	cr_expect_eq(first_escape(a, N(a)), 1);
	cr_expect_eq(first_escape(b, N(b)), 1);
	cr_expect_eq(first_escape(c, N(c)), -1);
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
 * Review 7 (tests/values/review7.c llseek, lpwoff, lrlimit, lofdlk,
 * lwinsz): the kernel keeps the values some calls take, not only their
 * pointers, and gives them back to any thread.  Argument by argument
 * (rcv_escsys.c): each call with a stack-derived value where the kernel
 * keeps it escapes; the near miss, the same value where the call only
 * reads or writes at the call, does not.
 */
#define SYS(nr)		INS("\xb8" nr "\x00\x00\x00"), INS("\x0f\x05")
#define PTR_AT_16	LEA_RAX, INS("\x48\x89\x44\x24\x10") /* [rsp+16] */

Test(rcv_escape, kept_offsets)
{
	/* lseek(0, &x, SEEK_SET): the file's offset, SEEK_CUR's answer */
	struct rcv_ins lseek[] = {
		INS("\x31\xff"),			/* xor edi, edi */
		INS("\x48\x8d\x74\x24\x08"),		/* lea rsi, [rsp+8] */
		INS("\x31\xd2"),			/* xor edx, edx */
		SYS("\x08"),
	};
	/* pwrite64(0, global, 1, &x): the file's size */
	struct rcv_ins pwrite[] = {
		INS("\x31\xff"),
		INS("\xbe\x00\x10\x00\x00"),		/* mov esi, 0x1000 */
		INS("\xba\x01\x00\x00\x00"),		/* mov edx, 1 */
		INS("\x4c\x8d\x54\x24\x08"),		/* lea r10, [rsp+8] */
		SYS("\x12"),
	};
	/* Near miss: pread64's offset is not the file's. */
	struct rcv_ins pread[] = {
		INS("\x31\xff"),
		INS("\xbe\x00\x10\x00\x00"),
		INS("\xba\x01\x00\x00\x00"),
		INS("\x4c\x8d\x54\x24\x08"),
		SYS("\x11"),
	};
	/* write's count: the bytes a pipe holds, the offset it moves */
	struct rcv_ins count[] = {
		INS("\x31\xff"),
		INS("\xbe\x00\x10\x00\x00"),
		INS("\x48\x8d\x54\x24\x08"),		/* lea rdx, [rsp+8] */
		SYS("\x01"),
	};
	/* exit(&x): the status */
	struct rcv_ins status[] = {
		INS("\x48\x8d\x7c\x24\x08"),		/* lea rdi, [rsp+8] */
		SYS("\x3c"),
	};
	/* mprotect of a stack page: the range in /proc/self/maps */
	struct rcv_ins prot[] = {
		INS("\x48\x8d\x3c\x24"),		/* lea rdi, [rsp] */
		SYS("\x0a"),
	};

	cr_expect_eq(first_escape(lseek, N(lseek)), 4);
	cr_expect_eq(first_escape(pwrite, N(pwrite)), 5);
	cr_expect_eq(first_escape(pread, N(pread)), -1);
	cr_expect_eq(first_escape(count, N(count)), 4);
	cr_expect_eq(first_escape(status, N(status)), 2);
	cr_expect_eq(first_escape(prot, N(prot)), 2);
}

Test(rcv_escape, kept_structs)
{
	/* prlimit64(0, RLIMIT_CORE, {&x, ...}, NULL) */
	struct rcv_ins rlimit[] = {
		PTR_AT_16,
		INS("\x31\xff"),
		INS("\xbe\x04\x00\x00\x00"),		/* mov esi, 4 */
		INS("\x48\x8d\x54\x24\x10"),		/* lea rdx, [rsp+16] */
		INS("\x45\x31\xd2"),			/* xor r10d, r10d */
		INS("\xb8\x2e\x01\x00\x00"), INS("\x0f\x05"),
	};
	/* Near miss: a struct of clean words beside it. */
	struct rcv_ins rlimit_clean[] = {
		PTR_AT_16,
		INS("\x31\xff"),
		INS("\xbe\x04\x00\x00\x00"),
		INS("\x48\x8d\x54\x24\x20"),		/* lea rdx, [rsp+32] */
		INS("\x45\x31\xd2"),
		INS("\xb8\x2e\x01\x00\x00"), INS("\x0f\x05"),
	};
	/* fcntl(0, F_OFD_SETLK, {.l_start = &x}): the lock is kept ... */
	struct rcv_ins ofd_set[] = {
		PTR_AT_16,
		INS("\x31\xff"),
		INS("\xbe\x25\x00\x00\x00"),		/* mov esi, 37 */
		INS("\x48\x8d\x54\x24\x08"),		/* lea rdx, [rsp+8] */
		SYS("\x48"),
	};
	/* ... F_OFD_GETLK only asks */
	struct rcv_ins ofd_get[] = {
		PTR_AT_16,
		INS("\x31\xff"),
		INS("\xbe\x24\x00\x00\x00"),		/* mov esi, 36 */
		INS("\x48\x8d\x54\x24\x08"),
		SYS("\x48"),
	};
	/* ioctl(0, TIOCSWINSZ, &ws holding &x) keeps it; TIOCGWINSZ not */
	struct rcv_ins winsz_set[] = {
		PTR_AT_16,
		INS("\x31\xff"),
		INS("\xbe\x14\x54\x00\x00"),		/* mov esi, 0x5414 */
		INS("\x48\x8d\x54\x24\x10"),
		SYS("\x10"),
	};
	struct rcv_ins winsz_get[] = {
		PTR_AT_16,
		INS("\x31\xff"),
		INS("\xbe\x13\x54\x00\x00"),		/* mov esi, 0x5413 */
		INS("\x48\x8d\x54\x24\x10"),
		SYS("\x10"),
	};
	/* open's path may become a file's name; stat's is only looked up */
	struct rcv_ins open_path[] = {
		PTR_AT_16,
		INS("\x48\x8d\x7c\x24\x10"),		/* lea rdi, [rsp+16] */
		INS("\x31\xf6"),			/* xor esi, esi */
		INS("\x31\xd2"),
		SYS("\x02"),
	};
	struct rcv_ins stat_path[] = {
		PTR_AT_16,
		INS("\x48\x8d\x7c\x24\x10"),
		INS("\x48\x8d\x74\x24\x40"),		/* lea rsi, [rsp+64] */
		SYS("\x04"),
	};

	cr_expect_eq(first_escape(rlimit, N(rlimit)), 7);
	cr_expect_eq(first_escape(rlimit_clean, N(rlimit_clean)), -1);
	cr_expect_eq(first_escape(ofd_set, N(ofd_set)), 6);
	cr_expect_eq(first_escape(ofd_get, N(ofd_get)), -1);
	cr_expect_eq(first_escape(winsz_set, N(winsz_set)), 6);
	cr_expect_eq(first_escape(winsz_get, N(winsz_get)), -1);
	cr_expect_eq(first_escape(open_path, N(open_path)), 6);
	cr_expect_eq(first_escape(stat_path, N(stat_path)), -1);
}

Test(rcv_escape, kernel_write_through_a_maybe_pointer)
{
	/* read(0, table + low bits of &x, 1): where it writes shows them */
	struct rcv_ins maybe[] = {
		INS("\x31\xff"),
		INS("\x48\x8d\x74\x24\x08"),		/* lea rsi, [rsp+8] */
		INS("\x81\xe6\xff\x00\x00\x00"),	/* and esi, 0xff */
		INS("\xba\x01\x00\x00\x00"),
		SYS("\x00"),
	};
	/* Near miss: into the own stack. */
	struct rcv_ins own[] = {
		INS("\x31\xff"),
		INS("\x48\x8d\x74\x24\x08"),
		INS("\xba\x01\x00\x00\x00"),
		SYS("\x00"),
	};

	cr_expect_eq(first_escape(maybe, N(maybe)), 5);
	cr_expect_eq(first_escape(own, N(own)), -1);
}

/*
 * Review 7 (lfxsave, lxsave, lfxsavexmm, lmaskmovq, lmaskmovdqu, lmxcsr):
 * vector state written by an instruction that names no vector register.
 */
Test(rcv_escape, vector_state_images_and_mask_moves)
{
	/* fxsave64 of a tainted state to a global */
	struct rcv_ins fx[] = {
		LEA_RAX,
		INS("\x66\x48\x0f\x6e\xc0"),		/* movq xmm0, rax */
		/* fxsave64 [rip+256] */
		INS("\x48\x0f\xae\x05\x00\x01\x00\x00"),
	};
	/* Near misses: onto the own stack; a clean state. */
	struct rcv_ins fx_stack[] = {
		LEA_RAX,
		INS("\x66\x48\x0f\x6e\xc0"),
		INS("\x48\x0f\xae\x44\x24\x40"),	/* fxsave64 [rsp+64] */
	};
	struct rcv_ins fx_clean[] = {
		LEA_RAX,
		INS("\x48\x0f\xae\x05\x00\x01\x00\x00"),
	};
	/* maskmovdqu xmm0, xmm1: a store of xmm0 at [rdi], a global */
	struct rcv_ins mask[] = {
		LEA_RAX,
		INS("\x66\x48\x0f\x6e\xc0"),
		INS("\xbf\x00\x10\x00\x00"),		/* mov edi, 0x1000 */
		INS("\x66\x0f\xf7\xc1"),		/* maskmovdqu */
	};
	struct rcv_ins mask_clean[] = {
		LEA_RAX,
		INS("\xbf\x00\x10\x00\x00"),
		INS("\x66\x0f\xf7\xc1"),
	};
	/* ldmxcsr from a slot holding the pointer, stmxcsr to a global */
	struct rcv_ins mxcsr[] = {
		PTR_AT_16,
		INS("\x0f\xae\x54\x24\x10"),		/* ldmxcsr [rsp+16] */
		INS("\x0f\xae\x1d\x00\x01\x00\x00"),	/* stmxcsr [rip+256] */
	};
	struct rcv_ins mxcsr_clean[] = {
		PTR_AT_16,
		INS("\x0f\xae\x54\x24\x20"),		/* ldmxcsr [rsp+32] */
		INS("\x0f\xae\x1d\x00\x01\x00\x00"),
	};

	cr_expect_eq(first_escape(fx, N(fx)), 2);
	cr_expect_eq(first_escape(fx_stack, N(fx_stack)), -1);
	cr_expect_eq(first_escape(fx_clean, N(fx_clean)), -1);
	cr_expect_eq(first_escape(mask, N(mask)), 3);
	cr_expect_eq(first_escape(mask_clean, N(mask_clean)), -1);
	cr_expect_eq(first_escape(mxcsr, N(mxcsr)), 3);
	cr_expect_eq(first_escape(mxcsr_clean, N(mxcsr_clean)), -1);
}

/*
 * Review 7 (lkmask, lkmaskst): kmovq k1, rax (capstone 4 does not decode
 * it; a barrier) takes a general-purpose register's value into a mask
 * register: rcv_esc_vex_gpr(), with the instruction's bytes, after
 * rcv_esc_step(), taints the vector state, which kmovq rdx, k1 and a mask
 * store then carry.
 */
static int first_escape_raw(const char *const *raw, const size_t *len,
			    int n)
{
	struct rcv_esc e;
	int i, r = -1;

	memset(&e, 0, sizeof(e));
	rcv_esc_init(&e);
	for (i = 0; i < n && r < 0; i++) {
		struct rcv_ins in = ins(raw[i], len[i]);

		if (rcv_esc_step(&e, &in, (uint8_t)raw[i][0]))
			r = i;
		rcv_esc_vex_gpr(&e, &in, (const uint8_t *)raw[i], len[i]);
	}
	rcv_esc_fini(&e);
	return r;
}

#define RLEN(b)	(sizeof(b) - 1)

Test(rcv_escape, through_a_mask_register)
{
	static const char lea[] = "\x48\x8d\x44\x24\x08";
	/* kmovq k1, rax; kmovq k1, rcx; kmovq rdx, k1 */
	static const char k1_rax[] = "\xc4\xe1\xfb\x92\xc8";
	static const char k1_rcx[] = "\xc4\xe1\xfb\x92\xc9";
	static const char rdx_k1[] = "\xc4\xe1\xfb\x93\xd1";
	static const char st[] = "\x48\x89\x14\x25\x00\x10\x00\x00";
	/* kmovq [0x1000], k1 */
	static const char kst[] = "\xc4\xe1\xf8\x91\x0c\x25\x00\x10\x00\x00";
	const char *a[] = { lea, k1_rax, rdx_k1, st };
	const size_t al[] = { RLEN(lea), RLEN(k1_rax), RLEN(rdx_k1), RLEN(st) };
	const char *b[] = { lea, k1_rax, kst };
	const size_t bl[] = { RLEN(lea), RLEN(k1_rax), RLEN(kst) };
	/* Near miss: a clean register into the mask. */
	const char *c[] = { lea, k1_rcx, rdx_k1, st, kst };
	const size_t cl[] = { RLEN(lea), RLEN(k1_rcx), RLEN(rdx_k1), RLEN(st),
			      RLEN(kst) };

	cr_expect_eq(first_escape_raw(a, al, 4), 3);
	cr_expect_eq(first_escape_raw(b, bl, 3), 2);
	cr_expect_eq(first_escape_raw(c, cl, 5), -1);
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
