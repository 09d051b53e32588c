// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/watch_proof.c, the proof that lets a watchpoint
 * scan pass a window without the recovery engine: the registers followed
 * through decoded instructions (frames, alignment, a stack switch, system
 * calls, signals, a store that may reach a pushed slot, operand-size
 * prefixes, contradictions), each access's interval against the
 * addresses the instructions really use.  The chain over recordings and
 * the scans: test_watch_chain.c; quiet stretches: test_watch_dep.c.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "wpffix.h"

TestSuite(watch_proof, .init = setup, .fini = teardown);

#define TOP_RSP	0x7ffe0000ull

static struct wpf_edge top_rsp(uint64_t rsp)
{
	struct wpf_edge e = { 0 };

	e.r[RP_REG_RSP] = (struct wpf_reg){ true, rsp, rsp };
	return e;
}

static void is_acc(const struct wpf_out *o, size_t j, uint32_t i,
		   uint8_t kind, uint64_t lo, uint64_t hi)
{
	cr_assert_lt(j, o->nacc);
	cr_assert_eq(o->acc[j].i, i, "access %zu", j);
	cr_assert_eq(o->acc[j].kind, kind, "access %zu", j);
	cr_assert(o->acc[j].known, "access %zu not known", j);
	cr_assert_eq(o->acc[j].lo, lo, "access %zu: %#lx", j,
		     (unsigned long)o->acc[j].lo);
	cr_assert_eq(o->acc[j].hi, hi, "access %zu: %#lx", j,
		     (unsigned long)o->acc[j].hi);
}

Test(watch_proof, frame)
{
	/* push rbp; mov rbp,rsp; mov [rbp-4],edi; pop rbp */
	struct rcv_ins in[] = {
		INS("\x55"), INS("\x48\x89\xe5"), INS("\x89\x7d\xfc"),
		INS("\x5d"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 4, &top, NULL, &o);

	cr_assert(!o.contradiction);
	cr_assert_eq(o.nacc, 3);
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP - 8, TOP_RSP);
	is_acc(&o, 1, 2, RP_ACC_WRITE, TOP_RSP - 12, TOP_RSP - 8);
	is_acc(&o, 2, 3, RP_ACC_READ, TOP_RSP - 8, TOP_RSP);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, align)
{
	/* mov [rsp],edi; and rsp,-16; push rax */
	struct rcv_ins in[] = {
		INS("\x89\x3c\x24"), INS("\x48\x83\xe4\xf0"), INS("\x50"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP - 8);
	struct wpf_out o;
	struct wpf_win *w = run(in, 3, &top, NULL, &o);

	/* rsp was in [TOP_RSP, TOP_RSP + 15] before the and; the push's
	 * slot, exact after it, is known through that interval: wider,
	 * never missing the true bytes.
	 */
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 15 + 4);
	is_acc(&o, 1, 2, RP_ACC_WRITE, TOP_RSP - 8 - 15, TOP_RSP + 15);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, stack_switch)
{
	/* mov rsp,rax; mov qword [rsp-16],42; mov rsp,rbx; push rcx */
	struct rcv_ins in[] = {
		INS("\x48\x89\xc4"),
		INS("\x48\xc7\x44\x24\xf0\x2a\x00\x00\x00"),
		INS("\x48\x89\xdc"), INS("\x51"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 4, &top, NULL, &o);

	/* The store went where rax was: nothing after the window says. */
	cr_assert_eq(o.nacc, 2);
	cr_assert(!o.acc[0].known);
	is_acc(&o, 1, 3, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* With rax known after it, the store is known: rax - 16. */
	top.r[RP_REG_RAX] = (struct wpf_reg){ true, 0x5000, 0x5000 };
	w = run(in, 4, &top, NULL, &o);
	is_acc(&o, 0, 1, RP_ACC_WRITE, 0x5000 - 16, 0x5000 - 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, syscalls)
{
	/* push rbp; mov eax,N; syscall; pop rcx; push rcx */
	struct rcv_ins getpid[] = {
		INS("\x55"), INS("\xb8\x27\x00\x00\x00"), INS("\x0f\x05"),
		INS("\x59"), INS("\x51"),
	};
	struct rcv_ins sigreturn[] = {
		INS("\x55"), INS("\xb8\x0f\x00\x00\x00"), INS("\x0f\x05"),
		INS("\x59"), INS("\x51"),
	};
	struct rcv_ins unknown_nr[] = {
		INS("\x55"), INS("\x89\xf8"), INS("\x0f\x05"), INS("\x59"),
		INS("\x51"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	/* getpid writes no memory and keeps rsp. */
	w = run(getpid, 5, &top, NULL, &o);
	cr_assert_eq(o.nacc, 3);
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* rt_sigreturn sets rsp from the frame: before it, unknown. */
	w = run(sigreturn, 5, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	cr_assert(!o.acc[1].known);	/* the kernel's writes */
	is_acc(&o, o.nacc - 1, 4, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* A number not known may be rt_sigreturn. */
	w = run(unknown_nr, 5, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	wpf_out_free(&o);
	wpf_win_free(w);
}

Test(watch_proof, cut)
{
	/* push rbp; (a signal) pop rcx; push rcx */
	struct rcv_ins in[] = { INS("\x55"), INS("\x59"), INS("\x51") };
	const uint8_t cut[3] = { 1, 0, 0 };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 3, &top, cut, &o);

	cr_assert(!o.acc[0].known);
	is_acc(&o, 1, 1, RP_ACC_READ, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/*
 * A pop gives back its push's word only when no store may have reached
 * the slot: rbp after the window then fixes rbp before it, and so the
 * store through rbp before the push.
 */
Test(watch_proof, slot)
{
	/* mov [rbp-8],eax; push rbp; STORE; pop rbp */
	struct rcv_ins safe[] = {
		INS("\x89\x45\xf8"), INS("\x55"),
		INS("\x48\x89\x44\x24\x08"),	/* mov [rsp+8],rax */
		INS("\x5d"),
	};
	struct rcv_ins unsafe[] = {
		INS("\x89\x45\xf8"), INS("\x55"),
		INS("\x89\x07"),		/* mov [rdi],eax */
		INS("\x5d"),
	};
	struct rcv_ins hit[] = {
		INS("\x89\x45\xf8"), INS("\x55"),
		INS("\x48\x89\x04\x24"),	/* mov [rsp],rax */
		INS("\x5d"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	top.r[RP_REG_RBP] = (struct wpf_reg){ true, 0x6000, 0x6000 };
	w = run(safe, 4, &top, NULL, &o);
	is_acc(&o, 0, 0, RP_ACC_WRITE, 0x6000 - 8, 0x6000 - 4);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(unsafe, 4, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	cr_assert(!o.acc[2].known);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(hit, 4, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* A 16-bit push or pop moves rsp by 2, whatever capstone says. */
Test(watch_proof, operand_size)
{
	/* push imm16; push rbp */
	struct rcv_ins in[] = { INS("\x66\x6a\x10"), INS("\x55") };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	wpf_fix(&in[0], (const uint8_t *)"\x66\x6a\x10", 3);
	w = run(in, 2, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	is_acc(&o, o.nacc - 1, 1, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/*
 * An EVEX instruction capstone 4 does not decode, which libopcodes shows
 * to be on registers only: no memory, rax written (kmovq rax,k1 style);
 * the stack pointer is still followed across it.  One it cannot read at
 * all makes everything unknown.
 */
Test(watch_proof, undecoded)
{
	struct rcv_ins in[3] = { INS("\x55"), INS("\x55"), INS("\x50") };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	/* The middle one as rcv_decode.c leaves a vector-only one. */
	memset(&in[1], 0, sizeof(in[1]));
	in[1].ip = 0x401001;
	in[1].len = 6;
	in[1].flags = RCV_I_BAD;
	in[1].wcode[RP_REG_RAX] = 4;
	w = run(in, 3, &top, NULL, &o);
	cr_assert_eq(o.nacc, 2);
	is_acc(&o, 0, 0, RP_ACC_WRITE, TOP_RSP + 8, TOP_RSP + 16);
	is_acc(&o, 1, 2, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* Not read at all. */
	in[1].flags = RCV_I_BAD | RCV_I_BARRIER | RCV_I_MEMBAR;
	w = run(in, 3, &top, NULL, &o);
	cr_assert(!o.acc[0].known);
	cr_assert(!o.acc[1].known);
	is_acc(&o, o.nacc - 1, 2, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* enter moves rsp and rbp, which capstone 4 does not list as written. */
Test(watch_proof, enter)
{
	/* mov rbp,rsp; enter 16,0; mov [rbp-8],eax; push rcx */
	struct rcv_ins in[] = {
		INS("\x48\x89\xe5"), INS("\xc8\x10\x00\x00"),
		INS("\x89\x45\xf8"), INS("\x51"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 4, &top, NULL, &o);

	/* enter's own push: unknown (MEMBAR); the store through the new
	 * rbp: rbp after the window is not known, so neither is it.
	 */
	cr_assert(!o.acc[0].known);
	cr_assert(!o.acc[o.nacc - 2].known);
	is_acc(&o, o.nacc - 1, 3, RP_ACC_WRITE, TOP_RSP, TOP_RSP + 8);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* xlat writes al, which capstone 4 does not list: rax is not kept. */
Test(watch_proof, xlat)
{
	/* mov rax,rsp; xlat; mov [rax],ecx */
	struct rcv_ins in[] = {
		INS("\x48\x89\xe0"), INS("\xd7"), INS("\x89\x08"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 3, &top, NULL, &o);

	cr_assert_eq(o.nacc, 2);
	cr_assert(!o.acc[0].known);	/* xlat's read */
	cr_assert(!o.acc[1].known);	/* through rax after it */
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* What the registers after a window say against the instructions. */
Test(watch_proof, contradiction)
{
	/* xor eax,eax; (rax is 5 after it) */
	struct rcv_ins in[] = { INS("\x31\xc0"), INS("\x55") };
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w;

	top.r[RP_REG_RAX] = (struct wpf_reg){ true, 5, 5 };
	w = run(in, 2, &top, NULL, &o);
	cr_assert(o.contradiction);
	cr_assert(!o.acc[0].known);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* Access @j of @o: not known (the engine decides). */
static void not_known(const struct wpf_out *o, size_t j)
{
	cr_assert_lt(j, o->nacc);
	cr_assert(!o->acc[j].known, "access %zu known: [%#lx, %#lx)", j,
		  (unsigned long)o->acc[j].lo, (unsigned long)o->acc[j].hi);
}

/*
 * Ranges: what an instruction allows its result to be whatever it read
 * (a byte zero-extended, a bit count, a 32-bit add of a range that
 * cltq or movsxd extends), so that a table indexed by it lies in an
 * interval (vfprintf's jump tables, strchrnul's end), while the value
 * itself stays unknown.
 */
Test(watch_proof, ranges)
{
	/* mov ecx,0x600000; mov esi,0x700000; movzx eax,byte [rdx];
	 * movzx r8d,byte [rcx+rax]; sub eax,0x20; cltq;
	 * movzx r8d,byte [rcx+rax]; movzx eax,byte [rdx];
	 * movsxd r9,[rsi+rax*4]
	 */
	struct rcv_ins in[] = {
		INS("\xb9\x00\x00\x60\x00"), INS("\xbe\x00\x00\x70\x00"),
		INS("\x0f\xb6\x02"), INS("\x44\x0f\xb6\x04\x01"),
		INS("\x83\xe8\x20"), INS("\x48\x98"),
		INS("\x44\x0f\xb6\x04\x01"), INS("\x0f\xb6\x02"),
		INS("\x4c\x63\x0c\x86"),
	};
	/* ... movzx eax,byte [rdx]; sub eax,0x20;
	 * movzx r8d,byte [rcx+rax]: eax below 0x20 wraps to 2^32 - 32 and
	 * up, zero-extended: no interval without the sign extension
	 */
	struct rcv_ins wrap[] = {
		INS("\xb9\x00\x00\x60\x00"), INS("\x0f\xb6\x02"),
		INS("\x83\xe8\x20"), INS("\x44\x0f\xb6\x04\x01"),
	};
	/* ... movzx ax,byte [rdx]: a 16-bit destination keeps rax's
	 * upper bits; movzx r8d,byte [rcx+rax]
	 */
	struct rcv_ins w16[] = {
		INS("\xb9\x00\x00\x60\x00"), INS("\x66\x0f\xb6\x02"),
		INS("\x44\x0f\xb6\x04\x01"),
	};
	/* mov edi,0x800000; tzcnt eax,eax; add rax,rdi;
	 * movzx r8d,byte [rax]; and the same with bsf, which leaves its
	 * destination undefined for 0
	 */
	struct rcv_ins tz[] = {
		INS("\xbf\x00\x00\x80\x00"), INS("\xf3\x0f\xbc\xc0"),
		INS("\x48\x01\xf8"), INS("\x44\x0f\xb6\x00"),
	};
	struct rcv_ins bsf[] = {
		INS("\xbf\x00\x00\x80\x00"), INS("\x0f\xbc\xc0"),
		INS("\x48\x01\xf8"), INS("\x44\x0f\xb6\x00"),
	};
	struct wpf_edge top = top_rsp(TOP_RSP);
	struct wpf_out o;
	struct wpf_win *w = run(in, 9, &top, NULL, &o);

	cr_assert(!o.contradiction);
	cr_assert_eq(o.nacc, 5);
	not_known(&o, 0);	/* [rdx]: rdx not known */
	is_acc(&o, 1, 3, RP_ACC_READ, 0x600000, 0x600100);
	is_acc(&o, 2, 6, RP_ACC_READ, 0x600000 - 0x20, 0x600000 + 0xe0);
	is_acc(&o, 4, 8, RP_ACC_READ, 0x700000, 0x700000 + 4 * 0xff + 4);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(wrap, 4, &top, NULL, &o);
	cr_assert_eq(o.nacc, 2);
	not_known(&o, 1);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(w16, 3, &top, NULL, &o);
	cr_assert_eq(o.nacc, 2);
	not_known(&o, 1);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(tz, 4, &top, NULL, &o);
	cr_assert_eq(o.nacc, 1);
	is_acc(&o, 0, 3, RP_ACC_READ, 0x800000, 0x800000 + 33);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = run(bsf, 4, &top, NULL, &o);
	cr_assert_eq(o.nacc, 1);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* The remainder's program: r8 one of two tables by the flags, then
 * x % 10 as a compiler writes it (_itoa_word), @rsi the x subtracted
 * from (mov rsi,rdi: the same x; mov rsi,rbx: another value), @shr the
 * shift (3: the quotient by 10; 4: by 20, of which 10 * q is not a
 * multiple of the divisor), @m the multiplier's low byte (0xcd: exact;
 * 0xcc: M * 10 below 2^67, not the quotient for every x).
 */
static struct wpf_win *rem_run(const char *rsi, uint8_t shr, uint8_t m,
			       struct wpf_out *o)
{
	static char mov9[11] = "\x49\xb9\x00\xcc\xcc\xcc\xcc\xcc\xcc\xcc";
	static char shift[5] = "\x48\xc1\xea\x03";
	/* mov r8d,0x600000; mov ecx,0x600040; test edx,edx;
	 * cmovne r8,rcx; movabs r9,M; mov rax,rdi; (rsi); mul r9;
	 * shr rdx,N; lea rax,[rdx+rdx*4]; add rax,rax; sub rsi,rax;
	 * movzx eax,byte [r8+rsi]
	 */
	static struct rcv_ins in[13];
	struct wpf_edge top = top_rsp(TOP_RSP);

	mov9[2] = (char)m;
	shift[3] = (char)shr;
	in[0] = INS("\x41\xb8\x00\x00\x60\x00");
	in[1] = INS("\xb9\x40\x00\x60\x00");
	in[2] = INS("\x85\xd2");
	in[3] = INS("\x4c\x0f\x45\xc1");
	in[4] = ins(mov9, 10);
	in[5] = INS("\x48\x89\xf8");
	in[6] = ins(rsi, 3);
	in[7] = INS("\x49\xf7\xe1");
	in[8] = ins(shift, 4);
	in[9] = INS("\x48\x8d\x04\x92");
	in[10] = INS("\x48\x01\xc0");
	in[11] = INS("\x48\x29\xc6");
	in[12] = INS("\x41\x0f\xb6\x04\x30");
	return run(in, 13, &top, NULL, o);
}

Test(watch_proof, remainder)
{
	struct wpf_out o;
	struct wpf_win *w = rem_run("\x48\x89\xfe", 3, 0xcd, &o);

	/* either table, digits 0 to 9 */
	cr_assert_eq(o.nacc, 1);
	is_acc(&o, 0, 12, RP_ACC_READ, 0x600000, 0x600040 + 10);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = rem_run("\x48\x89\xde", 3, 0xcd, &o);	/* mov rsi,rbx */
	cr_assert_eq(o.nacc, 1);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = rem_run("\x48\x89\xfe", 4, 0xcd, &o);	/* x - 10 * (x / 20) */
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = rem_run("\x48\x89\xfe", 3, 0xcc, &o);	/* not exact */
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
}

/* mov edi,0x800000; @t (a test); @j (jne or je to itself: taken, or not
 * where the next instruction is placed after it); @m (2 bytes between,
 * or none); @b (a bsf); add rax,rdi; movzx r8d,byte [rax].
 */
static struct wpf_win *bsf_run(const char *t, const char *j, bool taken,
			       const char *m, const char *b, size_t nb,
			       struct wpf_out *o)
{
	static struct rcv_ins in[7];
	struct wpf_edge top = top_rsp(TOP_RSP);
	size_t n = 0, k;

	in[n++] = INS("\xbf\x00\x00\x80\x00");
	in[n++] = ins(t, t[0] == 0x48 ? 3 : 2);
	in[n++] = ins(j, 2);
	if (m)
		in[n++] = ins(m, 2);
	in[n++] = ins(b, nb);
	in[n++] = INS("\x48\x01\xf8");
	in[n++] = INS("\x44\x0f\xb6\x00");
	/* not taken: the trace goes on after the branch */
	for (k = 3; !taken && k < n; k++)
		in[k].ip = in[2].ip + in[2].len;
	return run(in, n, &top, NULL, o);
}

Test(watch_proof, bsf_nonzero)
{
	struct wpf_out o;
	struct wpf_win *w;

	/* test eax,eax; jne taken: eax is not 0, its lowest set bit 0-31 */
	w = bsf_run("\x85\xc0", "\x75\xfe", true, NULL, "\x0f\xbc\xc0", 3,
		    &o);
	cr_assert_eq(o.nacc, 1);
	is_acc(&o, 0, 5, RP_ACC_READ, 0x800000, 0x800000 + 32);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* je not taken: the same */
	w = bsf_run("\x85\xc0", "\x74\xfe", false, NULL, "\x0f\xbc\xc0", 3,
		    &o);
	is_acc(&o, 0, 5, RP_ACC_READ, 0x800000, 0x800000 + 32);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* bsf rax,rax after the 4-byte test: 0-63 */
	w = bsf_run("\x85\xc0", "\x75\xfe", true, NULL, "\x48\x0f\xbc\xc0", 4,
		    &o);
	is_acc(&o, 0, 5, RP_ACC_READ, 0x800000, 0x800000 + 64);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* je taken (eax is 0), jne not taken: undefined */
	w = bsf_run("\x85\xc0", "\x74\xfe", true, NULL, "\x0f\xbc\xc0", 3,
		    &o);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = bsf_run("\x85\xc0", "\x75\xfe", false, NULL, "\x0f\xbc\xc0", 3,
		    &o);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* eax written between (mov eax,ecx), another register tested
	 * (test ecx,ecx), rax tested (its low half may be 0)
	 */
	w = bsf_run("\x85\xc0", "\x75\xfe", true, "\x89\xc8", "\x0f\xbc\xc0",
		    3, &o);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = bsf_run("\x85\xc9", "\x75\xfe", true, NULL, "\x0f\xbc\xc0", 3,
		    &o);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	w = bsf_run("\x48\x85\xc0", "\x75\xfe", true, NULL, "\x0f\xbc\xc0", 3,
		    &o);
	not_known(&o, 0);
	wpf_out_free(&o);
	wpf_win_free(w);
	/* test ebx,ebx; jne; mov eax,15; syscall; bsf eax,ebx; mov
	 * edi,0x800000; add rax,rdi; movzx r8d,byte [rax]: the call's
	 * decoded writes are rax, rcx and r11, but rt_sigreturn sets rbx
	 * too (review 12's bsrd): no range for the load
	 */
	{
		struct rcv_ins sr[] = {
			INS("\x85\xdb"), INS("\x75\xfe"),
			INS("\xb8\x0f\x00\x00\x00"), INS("\x0f\x05"),
			INS("\x0f\xbc\xc3"), INS("\xbf\x00\x00\x80\x00"),
			INS("\x48\x01\xf8"), INS("\x44\x0f\xb6\x00"),
		};
		struct wpf_edge top = top_rsp(TOP_RSP);

		w = run(sr, 8, &top, NULL, &o);
		cr_assert_gt(o.nacc, 0);
		cr_assert_eq(o.acc[o.nacc - 1].i, 7);
		not_known(&o, o.nacc - 1);
		wpf_out_free(&o);
		wpf_win_free(w);
	}
	/* the control: a nop pair between (xchg ax,ax) keeps the range */
	w = bsf_run("\x85\xdb", "\x75\xfe", true, "\x66\x90", "\x0f\xbc\xc3",
		    3, &o);
	cr_assert_eq(o.nacc, 1);
	is_acc(&o, 0, 6, RP_ACC_READ, 0x800000, 0x800000 + 32);
	wpf_out_free(&o);
	wpf_win_free(w);
}
