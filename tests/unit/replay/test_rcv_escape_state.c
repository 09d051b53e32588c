// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the stack escape analysis (replay/rcv_escape.c) for the
 * state outside the general-purpose registers and the stack: a pointer
 * in a vector, x87/MMX or mask register, in a segment base, in an
 * fxsave/xsave image, or kept by the kernel (a file offset, a limit, a
 * structure a system call stores), each with the near miss that must
 * not count.  The rules themselves and the laundering through the
 * general-purpose registers and flags are test_rcv_escape.c's (both files
 * keep the suite name rcv_escape).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "replay/rcv_fixture.h"
#include "replay/rcv_esc_fixture.h"

TestSuite(rcv_escape, .init = setup, .fini = teardown);

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
