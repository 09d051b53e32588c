// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_decode.c's decoder shared by a session's
 * recovery contexts (rcv_dec_shared()): one per session, made on first
 * use; what it decodes, through its cache and after other contexts' use
 * of it, is what a decoder of its own decodes (the cache is keyed by the
 * address and the bytes, so the same address with other bytes is decoded
 * again); freed with the session.
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rcv_internal.h"
#include "replay.h"
#include "rp_internal.h"

static const struct {
	uint8_t raw[15];
	size_t len;
} code[] = {
	{ { 0x55 }, 1 },				/* push %rbp */
	{ { 0x48, 0x89, 0xe5 }, 3 },			/* mov %rsp,%rbp */
	{ { 0x8b, 0x45, 0xfc }, 3 },			/* mov -0x4(%rbp),%eax */
	{ { 0x83, 0x45, 0xfc, 0x01 }, 4 },		/* addl $0x1,-0x4(%rbp) */
	{ { 0x48, 0xf7, 0xe1 }, 3 },			/* mul %rcx */
	{ { 0x0f, 0x05 }, 2 },				/* syscall */
	{ { 0xf3, 0x48, 0xab }, 3 },			/* rep stos */
	{ { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 }, 9 },
							/* mov %fs:0x28,%rax */
	{ { 0xc3 }, 1 },				/* ret */
};

#define NCODE (sizeof(code) / sizeof(code[0]))

/* Code @k at @ip through @a: as a new decoder (an empty cache) has it. */
static void same(struct rcv_dec *a, uint64_t ip, size_t k)
{
	struct rcv_dec *fresh = NULL;
	struct rcv_ins x, y;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	cr_assert_eq(rcv_dec_new(&fresh), 0);
	rcv_decode(a, ip, code[k].raw, code[k].len, RP_IC_OTHER, &x);
	rcv_decode(fresh, ip, code[k].raw, code[k].len, RP_IC_OTHER, &y);
	rcv_dec_free(fresh);
	cr_assert_eq(memcmp(&x, &y, sizeof(x)), 0, "%#lx: code %zu",
		     (unsigned long)ip, k);
}

Test(rcv_decode, shared_by_the_session)
{
	struct rp_session *s = calloc(1, sizeof(*s));
	struct rcv_dec *a = NULL, *b = NULL;
	size_t k, r;

	cr_assert_not_null(s);
	cr_assert_eq(rcv_dec_shared(s, &a), 0);
	cr_assert_eq(rcv_dec_shared(s, &b), 0);
	cr_assert_not_null(a);
	cr_assert_eq(a, b, "one decoder per session");
	/* Each code at each address, twice (the second from the cache),
	 * then every address with another code.
	 */
	for (r = 0; r < 3; r++)
		for (k = 0; k < NCODE; k++)
			same(r == 1 ? b : a, 0x401000 + 16 * k,
			     (k + (r == 2 ? 2 : 0)) % NCODE);
	rcv_dec_session_free(s);
	cr_assert_null(s->rcv_dec);
	free(s);
}
