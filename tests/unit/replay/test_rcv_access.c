// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of rcv_accesses() (replay/rcv_access.c): the memory one
 * instruction touches, on hand-made states, as watchpoints (#18) need
 * it: explicit loads and stores, compares that only read, string
 * instructions over their whole range either way or unknown (always with
 * 32-bit addresses), push and call on the stack, unknown addresses
 * bounded to the stack mapping or at fs, the kernel's write at a system
 * call, and an undecodable instruction that may touch anything.  The
 * scan over recorded programs is test_watch.c; GDB against the ground
 * truth tests/gdb/watch.sh.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"

#define F_DF_BIT 0x400ull

static struct rcv_dec *dec;
static struct rcv_ctx ctx;	/* no memory: loads stay unknown */
static struct rcv_ins in;
static struct rcv_state pre, post;
static struct rcv_frame fr;
static struct rcv_where at;
static struct rp_access acc[4];

static void setup(void)
{
	cr_assert_eq(rcv_dec_new(&dec), 0);
	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	memset(&fr, 0, sizeof(fr));
	memset(&at, 0, sizeof(at));
	at.in = &in;
	at.pre = &pre;
	at.post = &post;
	at.fr = &fr;
	at.stack_lo = 0x7ffd0000;
	at.stack_hi = 0x7fff0000;
}

static void teardown(void)
{
	rcv_dec_free(dec);
}

TestSuite(rcv_access, .init = setup, .fini = teardown);

static void set(int reg, uint64_t v)
{
	pre.r[reg] = (struct rcv_val){ v, ~0ull };
}

/* The accesses of @bytes at 0x401000 with the state set up so far. */
static int run(const char *bytes, size_t len)
{
	rcv_decode(dec, 0x401000, (const uint8_t *)bytes, len, RP_IC_OTHER,
		   &in);
	in.next = in.ip + in.len;
	return rcv_accesses(&ctx, &at, acc, 4);
}

#define RUN(b) run(b, sizeof(b) - 1)

Test(rcv_access, load_and_store)
{
	set(RP_REG_RAX, 0x5000);
	/* mov (%rax),%rbx: an 8-byte read at 0x5000 */
	cr_assert_eq(RUN("\x48\x8b\x18"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x5000);
	cr_assert_eq(acc[0].size, 8);
	/* mov %ebx,0x10(%rax): a 4-byte write at 0x5010 */
	cr_assert_eq(RUN("\x89\x58\x10"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert_eq(acc[0].addr, 0x5010);
	cr_assert_eq(acc[0].size, 4);
	/* addl $1,(%rax): read and write of the same bytes */
	cr_assert_eq(RUN("\x83\x00\x01"), 2);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[1].kind, RP_ACC_WRITE);
	cr_assert_eq(acc[1].addr, 0x5000);
	/* cmpl $1,(%rax) and testb $2,(%rax): reads only */
	cr_assert_eq(RUN("\x83\x38\x01"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(RUN("\xf6\x00\x02"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	/* lea 8(%rax),%rbx: no access */
	cr_assert_eq(RUN("\x48\x8d\x58\x08"), 0);
	/* mov %eax,0x1000(%rip): the address from the PC alone */
	memset(&pre, 0, sizeof(pre));
	cr_assert_eq(RUN("\x89\x05\x00\x10\x00\x00"), 1);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x401006 + 0x1000);
}

Test(rcv_access, unknown_addresses_and_bounds)
{
	/* mov %ebx,(%rcx), rcx unknown: anywhere */
	cr_assert_eq(RUN("\x89\x19"), 1);
	cr_assert(!acc[0].addr_known);
	cr_assert_eq(acc[0].hi, 0);
	/* mov %ebx,-8(%rsp), rsp unknown: in the stack mapping */
	cr_assert_eq(RUN("\x89\x5c\x24\xf8"), 1);
	cr_assert(!acc[0].addr_known);
	cr_assert_eq(acc[0].lo, 0x7ffd0000);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	/* push %rbx, rsp unknown: the stack too */
	cr_assert_eq(RUN("\x53"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	/* pushfq: the stack */
	cr_assert_eq(RUN("\x9c"), 1);
	cr_assert(!acc[0].addr_known);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	/* mov %ebx,-8(%rbp): the stack only when rbp derives from rsp */
	cr_assert_eq(RUN("\x89\x5d\xf8"), 1);
	cr_assert_eq(acc[0].hi, 0);
	fr.rbp_c = 1;
	cr_assert_eq(RUN("\x89\x5d\xf8"), 1);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	/* mov %rax,%fs:0x10: at fs_base (the end's) + 0x10 */
	cr_assert_eq(RUN("\x64\x48\x89\x04\x25\x10\x00\x00\x00"), 1);
	cr_assert(!acc[0].addr_known);
	cr_assert_eq(acc[0].hi, 0);
	at.fs_end = (struct rcv_val){ 0x7f0000001000, ~0ull };
	cr_assert_eq(RUN("\x64\x48\x89\x04\x25\x10\x00\x00\x00"), 1);
	cr_assert_eq(acc[0].lo, 0x7f0000001010);
	cr_assert_eq(acc[0].hi, 0x7f0000001018);
	fr.rbp_c = 0;
	/* Loads the same (watch-unknown stack for rwatch): mov (%rcx),%ebx
	 * anywhere; mov -8(%rsp),%ebx, pop %rbx and ret in the stack;
	 * leave's [rbp] only when rbp derives from rsp.
	 */
	cr_assert_eq(RUN("\x8b\x19"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert(!acc[0].addr_known);
	cr_assert_eq(acc[0].hi, 0);
	cr_assert_eq(RUN("\x8b\x5c\x24\xf8"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].lo, 0x7ffd0000);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	cr_assert_eq(RUN("\x5b"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	cr_assert_eq(RUN("\xc3"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	cr_assert_eq(RUN("\xc9"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].hi, 0);
	fr.rbp_c = 1;
	cr_assert_eq(RUN("\xc9"), 1);
	cr_assert_eq(acc[0].hi, 0x7fff0000);
	/* ... and an fs-relative load at its place. */
	cr_assert_eq(RUN("\x64\x48\x8b\x04\x25\x10\x00\x00\x00"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].lo, 0x7f0000001010);
	cr_assert_eq(acc[0].hi, 0x7f0000001018);
}

/* bt/bts with a register bit offset reach past the operand. */
Test(rcv_access, bit_offsets)
{
	set(RP_REG_RAX, 0x5000);
	/* bts %rcx,(%rax), rcx = 200: the quadword at 0x5000 + 8 * 3 */
	set(RP_REG_RCX, 200);
	cr_assert_eq(RUN("\x48\x0f\xab\x08"), 2);
	cr_assert_eq(acc[1].kind, RP_ACC_WRITE);
	cr_assert(acc[1].addr_known);
	cr_assert_eq(acc[1].addr, 0x5018);
	cr_assert_eq(acc[1].size, 8);
	/* rcx = -1: the quadword below */
	set(RP_REG_RCX, ~0ull);
	cr_assert_eq(RUN("\x48\x0f\xab\x08"), 2);
	cr_assert_eq(acc[1].addr, 0x5000 - 8);
	/* bt %ecx,(%rax), ecx = 33: a read of the dword at 0x5004 */
	set(RP_REG_RCX, 33);
	cr_assert_eq(RUN("\x0f\xa3\x08"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].addr, 0x5004);
	cr_assert_eq(acc[0].size, 4);
	/* an unknown offset: anywhere */
	pre.r[RP_REG_RCX] = (struct rcv_val){ 0, 0 };
	cr_assert_eq(RUN("\x48\x0f\xab\x08"), 2);
	cr_assert(!acc[1].addr_known);
	/* bts $3,(%rax): the immediate stays in the operand */
	cr_assert_eq(RUN("\x48\x0f\xba\x28\x03"), 2);
	cr_assert_eq(acc[1].kind, RP_ACC_WRITE);
	cr_assert_eq(acc[1].addr, 0x5000);
	cr_assert_eq(acc[1].size, 8);
}

Test(rcv_access, strings)
{
	/* rep stosb, rdi rcx DF known: [rdi, rdi + rcx) */
	set(RP_REG_RDI, 0x6000);
	set(RP_REG_RCX, 100);
	pre.r[RCV_FLAGS] = (struct rcv_val){ 0, F_DF_BIT };
	cr_assert_eq(RUN("\xf3\xaa"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x6000);
	cr_assert_eq(acc[0].size, 100);
	/* rep movsq: 100 quadwords read at rsi, written at rdi */
	set(RP_REG_RSI, 0x9000);
	cr_assert_eq(RUN("\xf3\x48\xa5"), 2);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].addr, 0x9000);
	cr_assert_eq(acc[0].size, 800);
	cr_assert_eq(acc[1].kind, RP_ACC_WRITE);
	cr_assert_eq(acc[1].size, 800);
	/* rep movsd (the string one): 4-byte elements */
	cr_assert_eq(RUN("\xf3\xa5"), 2);
	cr_assert_eq(acc[1].size, 400);
	/* downward (DF set): the range ends at rdi's element */
	pre.r[RCV_FLAGS] = (struct rcv_val){ F_DF_BIT, F_DF_BIT };
	cr_assert_eq(RUN("\xf3\xaa"), 1);
	cr_assert_eq(acc[0].addr, 0x6000 - 99);
	cr_assert_eq(acc[0].size, 100);
	/* rcx unknown: anywhere */
	pre.r[RP_REG_RCX] = (struct rcv_val){ 0, 0 };
	cr_assert_eq(RUN("\xf3\xaa"), 1);
	cr_assert(!acc[0].addr_known);
	/* rcx 0: nothing */
	set(RP_REG_RCX, 0);
	cr_assert_eq(RUN("\xf3\xaa"), 0);
	/* movsd %xmm0,(%rdi) is SSE's: one 8-byte store */
	cr_assert_eq(RUN("\xf2\x0f\x11\x07"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert_eq(acc[0].addr, 0x6000);
	cr_assert_eq(acc[0].size, 8);
}

/* With 32-bit addresses (0x67) a string instruction goes through esi and
 * edi, wrapping at 4 GiB: rsi and rdi known say nothing of its range.
 */
Test(rcv_access, strings_a32)
{
	set(RP_REG_RDI, 0x100006000ull);
	set(RP_REG_RSI, 0x100009000ull);
	set(RP_REG_RCX, 100);
	pre.r[RCV_FLAGS] = (struct rcv_val){ 0, F_DF_BIT };
	/* addr32 rep stosb: a write of unknown address */
	cr_assert_eq(RUN("\x67\xf3\xaa"), 1);
	cr_assert(in.a32);
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert(!acc[0].addr_known);
	/* addr32 movsb: a read and a write, neither known */
	cr_assert_eq(RUN("\x67\xa4"), 2);
	cr_assert(!acc[0].addr_known && !acc[1].addr_known);
	/* the same without 0x67: known, at rdi */
	cr_assert_eq(RUN("\xf3\xaa"), 1);
	cr_assert(!in.a32);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x100006000ull);
}

Test(rcv_access, syscalls_and_undecodable)
{
	/* syscall: what the table said (read(2) into 0x404080, 11 bytes) */
	at.sys = 1;
	at.sys_addr[0] = 0x404080;
	at.sys_len[0] = 11;
	cr_assert_eq(RUN("\x0f\x05"), 1);
	cr_assert(acc[0].syscall);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x404080);
	cr_assert_eq(acc[0].size, 11);
	at.sys = -1;	/* not in the table: may write anything */
	cr_assert_eq(RUN("\x0f\x05"), 1);
	cr_assert(acc[0].syscall);
	cr_assert(!acc[0].addr_known);
	/* getresuid(2): three 4-byte outputs, each its own access */
	at.sys = 3;
	at.sys_addr[1] = 0x404088;
	at.sys_addr[2] = 0x404090;
	at.sys_len[0] = at.sys_len[1] = at.sys_len[2] = 4;
	cr_assert_eq(RUN("\x0f\x05"), 3);
	for (int k = 0; k < 3; k++) {
		cr_assert(acc[k].syscall && acc[k].addr_known);
		cr_assert_eq(acc[k].kind, RP_ACC_WRITE);
		cr_assert_eq(acc[k].addr, 0x404080 + 8 * k);
		cr_assert_eq(acc[k].size, 4);
	}
	/* select(2) with n not known (review 9): its set's first long
	 * may be written (cond), the rest anywhere
	 */
	at.sys = 2;
	at.sys_len[0] = 8 | RCV_SYS_MAYBE;
	at.sys_len[1] = RCV_SYS_ANY;
	cr_assert_eq(RUN("\x0f\x05"), 2);
	cr_assert(acc[0].addr_known && acc[0].cond && acc[0].size == 8);
	cr_assert(!acc[1].addr_known && !acc[1].cond);
	cr_assert(acc[0].syscall && acc[1].syscall);
	at.sys = 0;	/* writes no memory */
	cr_assert_eq(RUN("\x0f\x05"), 0);
	/* bytes that are no instruction: may read and write anything */
	cr_assert_eq(RUN("\x06"), 2);
	cr_assert(!acc[0].addr_known && !acc[1].addr_known);
	cr_assert_eq(acc[1].kind, RP_ACC_WRITE);
	/* vptestnmb %ymm19,%ymm19,%k0 (EVEX, unknown to capstone 4):
	 * registers only, by libopcodes
	 */
	cr_assert_eq(RUN("\x62\xb2\x66\x28\x26\xc3"), 0);
	/* xsave (%rdi): a write the engine cannot size */
	set(RP_REG_RDI, 0x6000);
	cr_assert_eq(RUN("\x0f\xae\x27"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert(!acc[0].addr_known);
}

/*
 * Review 7's missed reads (rw): an EVEX masked load whose memory operand
 * capstone 4 gives no access, the x87/SSE state loads over their whole
 * area (fxrstor 512 bytes, frstor 108: capstone said 8 bytes read and 4
 * written), x87 loads and stores by their kind, xlat's [rbx + al],
 * enter's display copy below rbp.
 */
Test(rcv_access, review7_reads)
{
	set(RP_REG_RBP, 0x6000);
	set(RP_REG_RBX, 0x7000);
	set(RP_REG_RAX, 0x1234);
	cr_assert_eq(RUN("\x62\xf1\x7f\x49\x6f\x45\x00"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].addr, 0x6000);
	cr_assert_eq(RUN("\x0f\xae\x4d\x00"), 1);	/* fxrstor */
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].size, 512);
	cr_assert_eq(RUN("\xdd\x65\x00"), 1);		/* frstor */
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].size, 108);
	cr_assert_eq(RUN("\xdd\x45\x00"), 1);		/* fldl */
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert_eq(acc[0].size, 8);
	cr_assert_eq(RUN("\xdd\x5d\x00"), 1);		/* fstpl */
	cr_assert_eq(acc[0].kind, RP_ACC_WRITE);
	cr_assert_eq(RUN("\xd7"), 1);			/* xlat */
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x7034);
	cr_assert_eq(acc[0].size, 1);
	/* enter $16,$3: reads [rbp - 16, rbp), writes the stack */
	cr_assert_geq(RUN("\xc8\x10\x00\x03"), 1);
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x6000 - 16);
	cr_assert_eq(acc[0].size, 16);
}

/*
 * Far transfers (review8 rw 135-137, lcallv): lcall reads its far
 * pointer (capstone 4: access not said, which made it a store) and
 * pushes cs and the return address; lretq pops 16 bytes (lret $8 with
 * a 32-bit operand size 8 + 8), iretq its 40-byte frame.
 */
Test(rcv_access, far_transfers)
{
	int n, k;
	bool rd = false, wr = false;

	set(RP_REG_RAX, 0x5000);
	set(RP_REG_RSP, 0x7ffe0000);
	n = RUN("\x48\xff\x58\x10");		/* rex64 lcall *0x10(%rax) */
	for (k = 0; k < n; k++) {
		if (acc[k].kind == RP_ACC_READ && acc[k].addr_known &&
		    acc[k].addr == 0x5010)
			rd = true;
		if (acc[k].kind == RP_ACC_WRITE)
			wr = true;
		cr_assert(!(acc[k].kind == RP_ACC_WRITE &&
			    acc[k].addr_known && acc[k].addr == 0x5010),
			  "the far pointer is not written");
	}
	cr_assert(rd && wr);
	cr_assert_eq(RUN("\x48\xcb"), 1);		/* lretq */
	cr_assert_eq(acc[0].kind, RP_ACC_READ);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x7ffe0000);
	cr_assert_eq(acc[0].size, 16);
	/* iretq: a barrier that may write (rcv_decode.c), and its read */
	n = RUN("\x48\xcf");
	for (k = 0, rd = false; k < n; k++)
		rd |= acc[k].kind == RP_ACC_READ && acc[k].addr_known &&
		      acc[k].addr == 0x7ffe0000 && acc[k].size == 40;
	cr_assert(rd, "iretq reads its 40-byte frame");
	cr_assert_eq(RUN("\xca\x08\x00"), 1);		/* lret $8 */
	cr_assert_eq(acc[0].size, 16);
}

/* Code that ran in compatibility mode (a trace's MODE.Exec 32-bit):
 * rcv_decode_insn() makes it a barrier that may touch anything, where
 * the 64-bit decode of push %ecx (51) would be an 8-byte write below a
 * known rsp (review9.c c32hw).
 */
Test(rcv_access, compat_mode_is_barrier)
{
	struct rp_insn ri = { .ip = 0x401000, .size = 1,
			      .iclass = RP_IC_OTHER, .raw = { 0x51 },
			      .bits = 32 };

	set(RP_REG_RSP, 0x7ffe0000);
	rcv_decode_insn(dec, &ri, &in);
	cr_assert(in.flags & RCV_I_BARRIER);
	cr_assert(in.flags & RCV_I_MEMBAR);
	cr_assert_eq(in.len, 1);
	cr_assert_eq(in.next, 0x401001);
	cr_assert_eq(rcv_accesses(&ctx, &at, acc, 4), 2);
	cr_assert(!acc[0].addr_known && !acc[1].addr_known);
	cr_assert_eq(acc[1].kind, RP_ACC_WRITE);
	/* the same bytes in 64-bit code: push %rcx, 8 bytes at rsp - 8 */
	ri.bits = 64;
	rcv_decode_insn(dec, &ri, &in);
	cr_assert(!(in.flags & RCV_I_BARRIER));
	cr_assert_eq(rcv_accesses(&ctx, &at, acc, 4), 1);
	cr_assert(acc[0].addr_known);
	cr_assert_eq(acc[0].addr, 0x7ffe0000 - 8);
	cr_assert_eq(acc[0].size, 8);
}
