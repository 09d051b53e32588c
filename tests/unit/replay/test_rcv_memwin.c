// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of the memory questions over a window made by hand
 * (replay/rcv_mem.c mem_bytes(), acc_vals()): the bytes an access answers
 * are each the byte its value has at that offset, where that byte is
 * known, for a store and a load straddling two words; what the load does
 * not know, the store before it answers.  Against the values set here.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_fixture.h"
#include "rcv_winfix.h"

TestSuite(rcv_memwin, .init = setup, .fini = teardown);

#define V	0x8877665544332211ull

/* The byte @a of V stored at @at if byte (a - at) of @k is known. */
static bool want_byte(uint64_t a, uint64_t at, uint64_t k, uint8_t *v)
{
	if (a - at >= 8 || (k >> 8 * (a - at) & 0xff) != 0xff)
		return false;
	*v = (uint8_t)(V >> 8 * (a - at));
	return true;
}

/*
 * mov %rax,(%rcx); nop; mov (%rdx),%rsi at an address 3 bytes into a
 * word, rax and rsi the same value, some bytes known in each: before the
 * nop or the load, the load's bytes or else the store's (the forward walk
 * first, then the backward one); before the store, none (it writes them
 * all, no snapshot).  Each byte alone and every range of 1 to 17 bytes.
 */
Test(rcv_memwin, straddling_accesses)
{
	struct rcv_ins in[3] = { INS("\x48\x89\x01"), INS("\x90"),
				 INS("\x48\x8b\x32") };
	const uint64_t at = 0x7003, ks = 0x00ff00ffff00ff00ull,
		       kl = 0xff0000ff0000ffffull;
	uint8_t v, w1 = 0, w2 = 0, buf[24];
	uint64_t a, e;
	size_t n, got;
	int i;

	win_fix(in, 3, 0);
	set(0, RP_REG_RCX, at);
	set(2, RP_REG_RDX, at);
	st[0].r[RP_REG_RAX] = (struct rcv_val){ V & ks, ks };
	st[3].r[RP_REG_RSI] = (struct rcv_val){ V & kl, kl };
	cr_assert_eq(rcv_build_index(&w), 0);
	for (i = 0; i <= 2; i++)
		for (a = at - 9; a < at + 17; a++) {
			bool k1 = i && want_byte(a, at, ks, &w1),
			     k2 = i && want_byte(a, at, kl, &w2);

			cr_assert_eq(rcv_mem_byte(&w, (uint64_t)i, a, &v),
				     k1 || k2, "%d %#" PRIx64, i, a);
			cr_assert(!(k1 || k2) || v == (k2 ? w2 : w1),
				  "%d %#" PRIx64 ": %#x", i, a, v);
			for (n = 1; n <= 17; n++) {
				got = rcv_mem_range(&w, (uint64_t)i, a, buf, n);
				for (e = a; e < a + n; e++)
					if (!i || (!want_byte(e, at, ks, &w1) &&
						   !want_byte(e, at, kl, &w2)))
						break;
				cr_assert_eq(got, e - a,
					     "%d %#" PRIx64 " + %zu", i, a, n);
				for (e = 0; e < got; e++)
					cr_assert_eq(buf[e],
						     (uint8_t)(V >> 8 *
							       (a + e - at)));
			}
		}
}
