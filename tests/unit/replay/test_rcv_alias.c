// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_alias.c: when a store whose address is not known
 * is proven not to have written a byte (by its value against the end's
 * memory and the writers after it; by the low bits of a base loaded from
 * a known address), and, above all, when it is not.  A window of a few
 * decoded instructions over a fake snapshot page at 0x10000 (the
 * context's cached page: the end's bytes).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_winfix.h"

TestSuite(rcv_alias, .init = setup, .fini = teardown);

/* A window of @n instructions ending at the snapshot; states unknown. */
static void win_of(const struct rcv_ins *in, size_t n)
{
	win_fix(in, n, WINFIX_SNAP);
}

/* The end's 8 bytes at @a. */
static void end64(uint64_t a, uint64_t v)
{
	memcpy(rc.page_buf + (a - PAGE), &v, 8);
}

/* One question: what was remembered of the accesses no longer holds. */
static bool refuted(size_t b, uint64_t a)
{
	rc.mb_gen++;
	cr_assert_eq(rcv_build_index(&w), 0);
	return rcv_alias_refuted(&w, b, a);
}

/*
 * The proofs' memo (rc.alm): the bytes @as[k] asked of the stores
 * @bs[k] in one question, in that order (what does not depend on the
 * byte kept from one to the next, as a question asking a word's bytes
 * does), are answered as each asked alone (a window without a serial
 * keeps nothing).
 */
static void memo_same(const size_t *bs, const uint64_t *as, size_t n)
{
	bool one[48];
	size_t k;

	cr_assert_leq(n, 48);
	for (k = 0; k < n; k++)
		one[k] = refuted(bs[k], as[k]);
	w.serial = 1;
	rc.mb_gen++;
	cr_assert_eq(rcv_build_index(&w), 0);
	for (k = 0; k < n; k++)
		cr_assert_eq(rcv_alias_refuted(&w, bs[k], as[k]), one[k],
			     "store %zu byte %zu (%#" PRIx64 ")", bs[k], k,
			     as[k]);
	w.serial = 0;
}

/* @n bytes from @lo of store @b, then @m from @lo2 of @b2. */
static size_t two_runs(size_t *bs, uint64_t *as, size_t b, uint64_t lo,
		       size_t n, size_t b2, uint64_t lo2, size_t m)
{
	size_t k;

	for (k = 0; k < n; k++) {
		bs[k] = b;
		as[k] = lo + k;
	}
	for (k = 0; k < m; k++) {
		bs[n + k] = b2;
		as[n + k] = lo2 + k;
	}
	return n + m;
}

/* mov %rax,(%rcx); then one more instruction. */
Test(rcv_alias, by_value)
{
	struct rcv_ins in[2] = { INS("\x48\x89\x01"), INS("\x90") };
	uint64_t a = PAGE + 0x108;

	win_of(in, 2);
	set(0, RP_REG_RAX, 0xffffffffffffffffull);
	end64(a, 0x0807060504030201ull);
	cr_assert(refuted(0, a), "no 0xff byte around a at the end");
	cr_assert(refuted(0, a + 7));
	/* Not a store of unknown address: nothing to prove. */
	set(0, RP_REG_RCX, a);
	cr_assert_not(refuted(0, a));
	st[0].r[RP_REG_RCX] = unknown;
	/* The end shows the value: it may have written it. */
	end64(a, 0xffffffffffffffffull);
	cr_assert_not(refuted(0, a));
	/* One byte of it next to a and the rest in a: still possible. */
	end64(a, 0xffffffffffffff00ull);
	end64(a + 8, 0xffull);
	cr_assert_not(refuted(0, a + 1));
	cr_assert(refuted(0, a), "byte 0 of a: 00, no placement ends there");
	/* The value not known: nothing refuted. */
	end64(a, 0x0807060504030201ull);
	st[0].r[RP_REG_RAX] = unknown;
	cr_assert_not(refuted(0, a));
}

/* mov %rax,(%rcx) then a later store that may have rewritten a. */
Test(rcv_alias, later_writers)
{
	struct rcv_ins in[3] = { INS("\x48\x89\x01"), INS("\x48\x89\x37"),
				 INS("\x90") };
	uint64_t a = PAGE + 0x208;

	win_of(in, 3);
	set(0, RP_REG_RAX, 0xffffffffffffffffull);
	set(1, RP_REG_RAX, 0xffffffffffffffffull);
	end64(a, 0x0807060504030201ull);
	/* mov %rsi,(%rdi): value and address unknown, may be a's last
	 * writer: the first store may have written a.
	 */
	cr_assert_not(refuted(0, a));
	/* Its value known, without any byte a ends with: it is not a's
	 * last writer, so neither store is.
	 */
	set(1, RP_REG_RSI, 0x1111111111111111ull);
	cr_assert(refuted(0, a));
	cr_assert(refuted(1, a));
	/* With a's end bytes among its bytes: it may be their last
	 * writer, so the first store may have written a.
	 */
	set(1, RP_REG_RSI, 0x0807060504030201ull);
	cr_assert_not(refuted(0, a));
	cr_assert_not(refuted(1, a));
	/* With one of them (04): the first store's other bytes would
	 * still show at the end.
	 */
	set(1, RP_REG_RSI, 0x1111111111041111ull);
	cr_assert(refuted(0, a), "04 alone cannot end a's other bytes");
	/* The second itself: its 0x11 bytes would show around a + 3. */
	cr_assert(refuted(1, a + 3));
	/* At a known address that covers a: the end is its value. */
	set(1, RP_REG_RSI, 0x1111111111111111ull);
	set(1, RP_REG_RDI, a);
	cr_assert_not(refuted(0, a));
	/* ... and one that does not. */
	set(1, RP_REG_RDI, a + 64);
	cr_assert(refuted(0, a));
}

/* mov (%rdx),%rcx; mov %rax,(%rcx): the base loaded from a known word. */
Test(rcv_alias, by_address)
{
	struct rcv_ins in[3] = { INS("\x48\x8b\x0a"), INS("\x48\x89\x01"),
				 INS("\x90") };
	uint64_t b = PAGE + 0x300, a = PAGE + 0x408;

	win_of(in, 3);
	set(0, RP_REG_RDX, b);
	set(1, RP_REG_RDX, b);
	/* The store's value is a's end value: only the address can tell. */
	set(1, RP_REG_RAX, 0x0807060504030201ull);
	end64(a, 0x0807060504030201ull);
	end64(b, 0x00007f0000123450ull);	/* the base at the end */
	cr_assert(refuted(1, a), "the base points elsewhere");
	cr_assert(refuted(1, a + 7));
	/* Pointing at a (the base's end value): it may have written it. */
	end64(b, a);
	cr_assert_not(refuted(1, a));
	cr_assert_not(refuted(1, a + 7));
	cr_assert(refuted(1, a - 1), "a store at a does not reach a - 1");
	/* B overlapping a: under the hypothesis the store may have written
	 * B itself, so those of B's end bytes tell nothing about the base
	 * (and with the value unknown, nothing else does); the others
	 * (here 0, as a's upper bytes) agree with a base at a.
	 */
	st[1].r[RP_REG_RAX] = unknown;
	set(0, RP_REG_RDX, a + 4);
	end64(a + 4, 0x0000000000123450ull);
	cr_assert_not(refuted(1, a));
	/* B's bytes past its reach not a base at a - 7..a: refuted by
	 * them (word_refutes()).
	 */
	end64(a + 4, 0x00007f0000123450ull);
	cr_assert(refuted(1, a));
	/* B right after the bytes it could write: the base is B's. */
	set(0, RP_REG_RDX, a + 8);
	end64(a + 8, 0x00007f0000123450ull);
	cr_assert(refuted(1, a));
}

/* The base's word rewritten later by a store of unknown address. */
Test(rcv_alias, base_rewritten)
{
	struct rcv_ins in[4] = { INS("\x48\x8b\x0a"), INS("\x48\x89\x01"),
				 INS("\x48\x89\x37"), INS("\x90") };
	uint64_t b = PAGE + 0x300, a = PAGE + 0x408;

	win_of(in, 4);
	set(0, RP_REG_RDX, b);
	set(1, RP_REG_RDX, b);
	set(1, RP_REG_RAX, 0x0807060504030201ull);
	end64(a, 0x0807060504030201ull);
	end64(b, 0x1111111111111111ull);
	/* mov %rsi,(%rdi) after it, value 0x1111...: B's end value may be
	 * its, not the base's.
	 */
	set(2, RP_REG_RSI, 0x1111111111111111ull);
	cr_assert_not(refuted(1, a));
	/* A value that cannot end B's bytes: the base is B's end value. */
	set(2, RP_REG_RSI, 0x2222222222222222ull);
	cr_assert(refuted(1, a));
}

/*
 * mov (%rbx),%rcx; mov %rax,(%rcx) (value 0xff.., the store b);
 * @mid; mov (%rbx),%rdx; mov %rsi,0x80(%rdx) (value unknown, q); nop.
 * q's base is read again from the word W b's was (rcv_root_word()), so,
 * had b written a, q wrote 0x80 bytes past it, when nothing between the
 * two reads may have written W (rcv_alias.c word_kept()).
 */
#define SW_W	(PAGE + 0x300)
#define SW_A	(PAGE + 0x108)

static void same_word(struct rcv_ins mid)
{
	struct rcv_ins in[6] = { INS("\x48\x8b\x0b"), INS("\x48\x89\x01"),
				 mid, INS("\x48\x8b\x13"),
				 INS("\x48\x89\xb2\x80\x00\x00\x00"),
				 INS("\x90") };
	size_t k;

	win_of(in, 6);
	for (k = 0; k < 6; k++)
		set(k, RP_REG_RBX, SW_W);
	set(1, RP_REG_RAX, 0xffffffffffffffffull);
	end64(SW_A, 0x0807060504030201ull);
	end64(SW_W, 0x00007f0000123450ull);
}

Test(rcv_alias, same_word_root)
{
	/* Nothing between: q placed, the end's a (no 0xff) refutes b. */
	same_word(INS("\x90"));
	cr_assert(refuted(1, SW_A));
	cr_assert(refuted(1, SW_A + 7));
	/* q's base read from another word: not placed, it may have left
	 * a's bytes.
	 */
	same_word(INS("\x90"));
	set(3, RP_REG_RBX, SW_W + 8);
	cr_assert_not(refuted(1, SW_A));
	/* A store of known address over W between (mov %rdi,(%r8)). */
	same_word(INS("\x49\x89\x38"));
	set(2, RP_REG_R8, SW_W + 4);
	cr_assert_not(refuted(1, SW_A));
	/* ... beside W: kept. */
	set(2, RP_REG_R8, SW_W + 8);
	cr_assert(refuted(1, SW_A));
	/* ... through a pointer not known, not b's root: not kept (its
	 * value, 0x11.., is not a's last writer: only W's tells).
	 */
	st[2].r[RP_REG_R8] = unknown;
	set(2, RP_REG_RDI, 0x1111111111111111ull);
	cr_assert_not(refuted(1, SW_A));
	/* b itself over part of W and the word after it: the second read
	 * is not what the first was, so q is not placed by b's root and
	 * may have left the 0s after W (placed, they would refute b).
	 */
	same_word(INS("\x90"));
	cr_assert_not(refuted(1, SW_W + 8));
	cr_assert_not(refuted(1, SW_W));
	/* q's base loaded with 4 bytes (mov (%rbx),%edx): not the word. */
	same_word(INS("\x90"));
	code[3] = INS("\x8b\x13");
	cr_assert_not(refuted(1, SW_A));
}

/*
 * mov (%rdx),%rax; mov %rax,%rcx; mov %rsi,(%rcx) (the store b, value
 * unknown); @next; nop.  b's base is a copy of a register read from the
 * known word W (rcv_alias.c word_refutes()): had b written a, W held a
 * less 0..7 at the read, and the end shows W's bytes that nothing after
 * may have last written.
 */
#define RW_W	(PAGE + 0x300)
#define RW_A	(PAGE + 0x408)

static void root_word(struct rcv_ins next)
{
	struct rcv_ins in[5] = { INS("\x48\x8b\x02"), INS("\x48\x89\xc1"),
				 INS("\x48\x89\x31"), next, INS("\x90") };

	win_of(in, 5);
	set(0, RP_REG_RDX, RW_W);
	end64(RW_A, 0x0807060504030201ull);
	end64(RW_W, 0x00007f0000123450ull);
}

Test(rcv_alias, by_root_word)
{
	/* W points elsewhere at the end, nothing after rewrites it. */
	root_word(INS("\x90"));
	cr_assert(refuted(2, RW_A), "W's end value is not a");
	cr_assert(refuted(2, RW_A + 7));
	/* Pointing at a: it may have written a, not a - 1. */
	end64(RW_W, RW_A);
	cr_assert_not(refuted(2, RW_A));
	cr_assert_not(refuted(2, RW_A + 7));
	cr_assert(refuted(2, RW_A - 1));
	/* The base loaded with 4 bytes (mov (%rdx),%eax): not the word. */
	end64(RW_W, 0x00007f0000123450ull);
	code[0] = INS("\x8b\x02");
	cr_assert_not(refuted(2, RW_A));
	/* b over W itself: W's end bytes are b's, not the pointer's. */
	root_word(INS("\x90"));
	end64(RW_W, 0x1111111111111111ull);
	cr_assert_not(refuted(2, RW_W));
	cr_assert_not(refuted(2, RW_W + 7));
	/* A later store of unknown address and value (mov %rdi,(%r8)):
	 * W's end value may be its.
	 */
	root_word(INS("\x49\x89\x38"));
	cr_assert_not(refuted(2, RW_A));
	/* ... at a known address over W, over its upper half (its lower
	 * half still shows the pointer), and beside it.
	 */
	set(3, RP_REG_R8, RW_W);
	cr_assert_not(refuted(2, RW_A));
	set(3, RP_REG_R8, RW_W + 4);
	cr_assert(refuted(2, RW_A));
	set(3, RP_REG_R8, RW_W + 8);
	cr_assert(refuted(2, RW_A));
	/* Through the same root (mov %rdi,0x80(%rcx)): placed by b, 0x80
	 * bytes past it, away from W.
	 */
	root_word(INS("\x48\x89\xb9\x80\x00\x00\x00"));
	cr_assert(refuted(2, RW_A));
	/* ... but over W when b wrote 0x80 bytes before it. */
	cr_assert_not(refuted(2, RW_W - 0x80));
}


/*
 * movq $0, 0x10(%rax) with rax's low 5 bits known from the states (an
 * index times 32 added to a known pointer): it reaches one residue of
 * each 32 bytes, so not a byte 8 below its offset, nor anywhere in a
 * window away from the snapshot; a byte of the residue it can reach, a
 * base with fewer bits known than its size spans, and a store whose
 * value would be refuted are not taken for it.
 */
Test(rcv_alias, by_alignment)
{
	struct rcv_ins in[2] = { INS("\x48\xc7\x40\x10\x00\x00\x00\x00"),
				 INS("\x90") };
	uint64_t r15 = PAGE + 0x220, a = r15 + 8;
	uint64_t j;

	win_of(in, 2);
	/* The end's bytes all 0: the value argument cannot help. */
	st[0].r[RP_REG_RAX] = (struct rcv_val){ r15 & 31, 31 };
	cr_assert(refuted(0, a));
	for (j = 0; j < 8; j++) {
		cr_assert_not(refuted(0, r15 + 0x10 + j), "byte %lu", j);
		cr_assert_not(refuted(0, r15 + 0x30 + j), "byte %lu", j);
	}
	cr_assert(refuted(0, r15 + 0x18));
	cr_assert(refuted(0, r15 + 0x2f));
	w.top_end = false;
	cr_assert(refuted(0, a), "a window away from the snapshot");
	cr_assert_not(refuted(0, r15 + 0x14));
	/* Three bits: 8 bytes cover every residue. */
	st[0].r[RP_REG_RAX] = (struct rcv_val){ r15 & 7, 7 };
	cr_assert_not(refuted(0, a));
	/* Known bits above an unknown one do not count. */
	st[0].r[RP_REG_RAX] = (struct rcv_val){ r15 & 0xfe0, 0xfe0 };
	cr_assert_not(refuted(0, a));
}

/*
 * mov %rax,(%rcx) (value 0xff.., address unknown), then what a later
 * load of known value shows of a: the end is all 0xff (it cannot tell),
 * the load shows 01..08, which no placement leaves, in any window; not
 * when a writer may come between (a store of unknown value, or of a
 * known address covering a), nor when the load's value is not known or
 * it is a barrier.  Instructions: the store, [1] (a writer or nop), the
 * load mov (%rdx),%rsi, nop.
 */
Test(rcv_alias, by_later_load)
{
	struct rcv_ins in[4] = { INS("\x48\x89\x01"), INS("\x90"),
				 INS("\x48\x8b\x32"), INS("\x90") };
	struct rcv_ins wr = INS("\x48\x89\x37");	/* mov %rsi,(%rdi) */
	uint64_t a = PAGE + 0x508;

	win_of(in, 4);
	set(0, RP_REG_RAX, 0xffffffffffffffffull);
	end64(a - 8, 0xffffffffffffffffull);
	end64(a, 0xffffffffffffffffull);
	end64(a + 8, 0xffffffffffffffffull);
	cr_assert_not(refuted(0, a), "the end shows 0xff everywhere");
	set(2, RP_REG_RDX, a);
	cr_assert_not(refuted(0, a), "the load's value not known");
	set(3, RP_REG_RSI, 0x0807060504030201ull);
	cr_assert(refuted(0, a), "the load shows no 0xff in a");
	cr_assert(refuted(0, a + 7));
	cr_assert_not(refuted(0, a + 8), "a + 8: the end's 0xff");
	w.top_end = false;
	cr_assert(refuted(0, a), "a window away from the snapshot");
	cr_assert_not(refuted(0, a + 8), "nothing shows a + 8 there");
	w.top_end = true;
	/* The load is an unproven branch's (a barrier): not known. */
	code[2].flags |= RCV_I_BARRIER;
	cr_assert_not(refuted(0, a));
	code[2].flags &= ~RCV_I_BARRIER;
	/* A store of unknown address and value between: the load may
	 * show its bytes.
	 */
	code[1] = wr;
	cr_assert_not(refuted(0, a), "a writer of unknown value between");
	/* Its value known, with no byte the load shows: not a's last
	 * writer, so the first store did not write a.
	 */
	set(1, RP_REG_RSI, 0x1111111111111111ull);
	cr_assert(refuted(0, a));
	/* ... with one of them (03): it may be byte 2's last writer, but
	 * the first store's other bytes would still show.
	 */
	set(1, RP_REG_RSI, 0x1111111111031111ull);
	cr_assert(refuted(0, a));
	/* ... with all of them: it may have written every byte shown. */
	set(1, RP_REG_RSI, 0x0807060504030201ull);
	cr_assert_not(refuted(0, a));
	/* At a known address covering a: the load shows its bytes. */
	set(1, RP_REG_RSI, 0x1111111111111111ull);
	set(1, RP_REG_RDI, a);
	cr_assert_not(refuted(0, a), "a store of known address between");
	/* ... and one away from a. */
	set(1, RP_REG_RDI, a + 64);
	cr_assert(refuted(0, a));
}

/*
 * movb $0x5a,(%rcx): a one-byte store; a load of a's word shows 0x5a at
 * a + 3 only.  a + 3 may be its byte, no other byte of the word may.
 */
Test(rcv_alias, by_later_load_byte)
{
	struct rcv_ins in[3] = { INS("\xc6\x01\x5a"), INS("\x48\x8b\x32"),
				 INS("\x90") };
	uint64_t a = PAGE + 0x608;

	win_of(in, 3);
	set(1, RP_REG_RDX, a);
	set(2, RP_REG_RSI, 0x080706055a030201ull);
	cr_assert_not(refuted(0, a + 3));
	cr_assert(refuted(0, a));
	cr_assert(refuted(0, a + 4));
	cr_assert(refuted(0, a + 7));
}

/*
 * mov %rax,(%rcx) with rax's low byte alone known (0x03): the placements
 * whose byte 0 lands on a byte shown otherwise are refuted, not the one
 * on a + 2, which the load shows as 03.
 */
Test(rcv_alias, by_later_load_partial)
{
	struct rcv_ins in[3] = { INS("\x48\x89\x01"), INS("\x48\x8b\x32"),
				 INS("\x90") };
	uint64_t a = PAGE + 0x708;

	win_of(in, 3);
	st[0].r[RP_REG_RAX] = (struct rcv_val){ 0x03, 0xff };
	set(1, RP_REG_RDX, a);
	set(2, RP_REG_RSI, 0x0807060504030201ull);
	cr_assert(refuted(0, a), "byte 0 lands on 01 or the end's 00");
	cr_assert(refuted(0, a + 1));
	cr_assert_not(refuted(0, a + 2), "byte 0 on a + 2: 03");
	cr_assert_not(refuted(0, a + 5), "placed at a + 2, it covers a + 5");
	st[0].r[RP_REG_RAX] = unknown;
	cr_assert_not(refuted(0, a));
}

/*
 * An exchange of unknown address (rcv_xchg.c): `mov %ecx,0x10100` (3),
 * `xchg %eax,(%rdx)`, `cmp $1,%eax`, `jg` over a nop.  Jump not taken:
 * the old word was at most 1, and every placement over 0x10100 would have
 * read 3 there (the word's other bytes: 0, or above it): refuted.  Taken:
 * 3 fits, not refuted; nor is 0x10101 (0 there fits a word of at most
 * 1).  No compare after it, or the byte not known before it: not refuted.
 */
static void xchg_win(bool taken, bool with_cmp)
{
	struct rcv_ins in[6] = {
		INS("\x89\x0c\x25\x00\x01\x01\x00"),	/* mov %ecx,0x10100 */
		INS("\x87\x02"),			/* xchg %eax,(%rdx) */
		INS("\x83\xf8\x01"),			/* cmp $1,%eax */
		INS("\x7f\x01"),			/* jg +1 */
		INS("\x90"), INS("\x90"),
	};
	size_t k;

	if (!with_cmp)
		in[2] = INS("\x90");
	/* Addresses in order; the jump's target (decoded at 0x401000) is
	 * 0x401003, the instruction after it 0x401002.
	 */
	in[3].ip = 0x401000;
	in[2].ip = in[3].ip - in[2].len;
	in[1].ip = in[2].ip - in[1].len;
	in[0].ip = in[1].ip - in[0].len;
	in[4].ip = taken ? 0x401003 : 0x401002;
	in[5].ip = in[4].ip + 1;
	for (k = 0; k < 6; k++)
		in[k].next = k < 5 ? in[k + 1].ip : in[k].ip + in[k].len;
	win_of(in, 6);
	set(0, RP_REG_RCX, 3);
	set(1, RP_REG_RCX, 3);
	set(1, RP_REG_RAX, 0);
}

Test(rcv_alias, xchg_old_value)
{
	xchg_win(false, true);
	cr_assert(refuted(1, PAGE + 0x100), "old word at most 1, 3 there");
	cr_assert(!refuted(1, PAGE + 0x101), "0 there fits");
	xchg_win(true, true);
	cr_assert(!refuted(1, PAGE + 0x100), "taken: the old word may be 3");
	xchg_win(false, false);
	cr_assert(!refuted(1, PAGE + 0x100), "nothing shows the old word");
	xchg_win(false, true);
	st[0].r[RP_REG_RCX] = unknown;
	cr_assert(!refuted(1, PAGE + 0x100), "the byte before it not known");
}

/* The bytes of a question kept for the next (rc.alm): as each alone. */
Test(rcv_alias, memo_across_bytes)
{
	uint64_t as[48], b = PAGE + 0x300, a = PAGE + 0x408;
	size_t bs[48], n, k;

	/* by the root's word, the same root placed by each placement */
	root_word(INS("\x48\x89\xb9\x80\x00\x00\x00"));
	n = two_runs(bs, as, 2, RW_A - 4, 12, 2, RW_W - 0x84, 12);
	memo_same(bs, as, n);
	n = two_runs(bs, as, 2, RW_W - 0x84, 12, 2, RW_A - 4, 12);
	memo_same(bs, as, n);
	root_word(INS("\x90"));
	end64(RW_W, RW_A);
	n = two_runs(bs, as, 2, RW_A - 8, 16, 2, RW_W - 4, 12);
	memo_same(bs, as, n);
	/* by what shows the bytes later, through the same root: 4 bytes
	 * past b's placement, so what it leaves depends on the placement
	 */
	same_word(INS("\x90"));
	n = two_runs(bs, as, 1, SW_A - 8, 16, 1, SW_W - 4, 16);
	memo_same(bs, as, n);
	same_word(INS("\x90"));
	code[4] = INS("\x48\x89\x72\x04");	/* mov %rsi,0x4(%rdx) */
	for (k = 0; k < 6; k++)
		set(k, RP_REG_RSI, 0x0102030405060708ull);
	n = two_runs(bs, as, 1, SW_A - 12, 24, 1, SW_A + 4, 8);
	memo_same(bs, as, n);
	/* two stores in one question, each its own */
	same_word(INS("\x49\x89\x38"));
	for (k = 0; k < 8; k++) {
		bs[2 * k] = 1;
		bs[2 * k + 1] = 2;
		as[2 * k] = as[2 * k + 1] = SW_A - 4 + k;
	}
	memo_same(bs, as, 16);
	set(2, RP_REG_R8, SW_W + 8);
	n = two_runs(bs, as, 1, SW_W - 4, 16, 1, SW_A - 8, 16);
	memo_same(bs, as, n);
	/* by the base's load: its bytes at the end */
	{
		struct rcv_ins in[3] = { INS("\x48\x8b\x0a"),
					 INS("\x48\x89\x01"), INS("\x90") };

		win_of(in, 3);
		set(0, RP_REG_RDX, b);
		set(1, RP_REG_RDX, b);
		set(1, RP_REG_RAX, 0x0807060504030201ull);
		end64(a, 0x0807060504030201ull);
		end64(b, a);
		n = two_runs(bs, as, 1, a - 12, 24, 1, b - 8, 16);
		memo_same(bs, as, n);
		n = two_runs(bs, as, 1, b - 8, 16, 1, a - 12, 24);
		memo_same(bs, as, n);
	}
	/* an exchange's old value */
	xchg_win(false, true);
	n = two_runs(bs, as, 1, PAGE + 0xf8, 16, 1, PAGE + 0x108, 8);
	memo_same(bs, as, n);
	/* What shows a byte depends on the placement: b (mov %ax,(%rcx),
	 * 0xffff) and q (mov %sil,1(%rdx), value unknown) through the same
	 * root.  Placed at a, q may have left a + 1, and the end's a (2)
	 * refutes it; placed at a - 1, q may have left a, and a - 1 (0xff)
	 * fits.
	 */
	{
		struct rcv_ins in[6] = {
			INS("\x48\x8b\x0b"), INS("\x66\x89\x01"),
			INS("\x90"), INS("\x48\x8b\x13"),
			INS("\x40\x88\x72\x01"), INS("\x90") };

		unsigned int e, j;
		uint64_t v;

		win_of(in, 6);
		for (k = 0; k < 6; k++)
			set(k, RP_REG_RBX, SW_W);
		set(1, RP_REG_RAX, 0xffff);
		end64(SW_A - 1, 0x0000000000000203ull << 8 | 0xff);
		end64(SW_W, SW_A - 1);
		cr_assert_not(refuted(1, SW_A), "placed at a - 1, it fits");
		/* The end's bytes around a, each 0xff (fits) or 3. */
		for (e = 0; e < 256; e++) {
			for (j = 0, v = 0; j < 8; j++)
				v |= (e >> j & 1 ? 0xffull : 3ull) << (8 * j);
			end64(SW_A - 4, v);
			end64(SW_W, SW_A - 4 + e % 8);
			n = two_runs(bs, as, 1, SW_A - 5, 10, 1, SW_A - 5,
				     10);
			memo_same(bs, as, n);
		}
	}
	/* Two stores, two roots (W, W2): b1 (mov %rsi,(%rax)) through W,
	 * which points elsewhere at the end, b2 (mov %rdi,(%r8), a's end
	 * value) through W2, which points at a: b1 did not write a, b2 may
	 * have.
	 */
	{
		struct rcv_ins in[5] = {
			INS("\x48\x8b\x02"), INS("\x4c\x8b\x03"),
			INS("\x48\x89\x30"), INS("\x49\x89\x38"),
			INS("\x90") };

		win_of(in, 5);
		set(0, RP_REG_RDX, RW_W);
		set(1, RP_REG_RBX, RW_W + 8);
		for (k = 2; k < 5; k++) {
			set(k, RP_REG_RSI, 0x2222222222222222ull);
			set(k, RP_REG_RDI, 0x0807060504030201ull);
		}
		end64(RW_A, 0x0807060504030201ull);
		end64(RW_W, 0x00007f0000123450ull);
		end64(RW_W + 8, RW_A);
		cr_assert(refuted(2, RW_A), "b1's root points elsewhere");
		cr_assert_not(refuted(3, RW_A), "b2's root points at a");
		for (k = 0; k < 16; k++) {
			bs[k] = 2 + k % 2;
			as[k] = RW_A - 4 + k / 2;
		}
		memo_same(bs, as, 16);
	}
}
