// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The import's stream probe: a stream that starts with its PSB is walked
 * by packet headers (import_stream_probe) instead of libipt's packet
 * decoder (import_stream_scan, the truth here), and must find what libipt
 * finds: PSBs, features, the last TSC and a cut last packet, also on
 * packets libipt rejects and on seeded random damage.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

/* A PSB+ (MODE.exec 64-bit, TSC, CBR, FUP), PSBEND, then TNTs, TIPs, a
 * long TNT, MTC, CYC, TMA, a PTWRITE, a PIP, MODE.tsx, an OVF and a
 * second PSB with a later TSC.
 */
static size_t good_stream(uint8_t *b)
{
	static const uint8_t body[] = {
		0x99, 0x01,				/* MODE.exec 64 */
		0x19, 1, 2, 3, 4, 5, 6, 7,		/* TSC */
		0x02, 0x03, 0x20, 0x00,			/* CBR */
		0x7d, 0x00, 0x10, 0x40, 0x00, 0x00, 0x00, /* FUP 48 */
		0x02, 0x23,				/* PSBEND */
		0x06, 0x0a, 0xfe,			/* TNT-8 */
		0x2d, 0x20, 0x10,			/* TIP 16 */
		0x02, 0xa3, 0x05, 0, 0, 0, 0, 0,	/* long TNT */
		0x59, 0x12,				/* MTC */
		0x07, 0x41, 0x02,			/* CYC, 2 more */
		0x02, 0x73, 0x10, 0x00, 0x00, 0x05, 0x01, /* TMA */
		0x02, 0x12, 1, 2, 3, 4,			/* PTWRITE 4 */
		0x02, 0x43, 0x00, 0x10, 0, 0, 0, 0,	/* PIP */
		0x99, 0x20,				/* MODE.tsx */
		0x02, 0xf3,				/* OVF */
		0x00, 0x00,				/* PAD */
	};
	static const uint8_t tail[] = {
		0x19, 9, 9, 9, 9, 9, 9, 0,		/* TSC */
		0x02, 0x23,				/* PSBEND */
		0x4d, 0x01, 0x20, 0x30, 0x40,		/* TIP 32 */
		0x31, 0x00, 0x10,			/* TIP.PGE 16 */
		0x01,					/* TIP.PGD */
	};
	size_t n = 0;

	memcpy(b + n, psb, sizeof(psb));
	n += sizeof(psb);
	memcpy(b + n, body, sizeof(body));
	n += sizeof(body);
	memcpy(b + n, psb, sizeof(psb));
	n += sizeof(psb);
	memcpy(b + n, tail, sizeof(tail));
	return n + sizeof(tail);
}

static void same(const uint8_t *b, size_t len, const char *what)
{
	struct import_scan want, got;

	cr_assert_eq(import_stream_scan(b, len, &want), 0, "%s", what);
	cr_assert_eq(import_stream_probe(b, len, &got), 0, "%s", what);
	cr_expect_eq(got.first_psb, want.first_psb, "%s: first PSB", what);
	cr_expect_eq(got.npsb, want.npsb, "%s: %llu PSBs, libipt %llu", what,
		     (unsigned long long)got.npsb,
		     (unsigned long long)want.npsb);
	cr_expect_eq(got.cut, want.cut, "%s: cut at %llx, libipt %llx", what,
		     (unsigned long long)got.cut,
		     (unsigned long long)want.cut);
	cr_expect_eq(got.last_tsc, want.last_tsc, "%s: last TSC", what);
	cr_expect_eq(got.features, want.features, "%s: features %x, libipt %x",
		     what, got.features, want.features);
}

Test(probe, clean_stream_and_every_cut)
{
	uint8_t b[512];
	size_t n = good_stream(b), k;
	struct import_scan s;

	same(b, n, "whole");
	cr_assert_eq(import_stream_probe(b, n, &s), 0);
	cr_assert_eq(s.npsb, 2);
	cr_assert_eq(s.cut, UINT64_MAX);
	cr_assert(s.features & SB_PT_PTWRITE);
	/* Every length: a last packet cut anywhere. */
	for (k = 1; k < n; k++) {
		char what[32];

		snprintf(what, sizeof(what), "cut to %zu bytes", k);
		same(b, k, what);
	}
}

/* Packets whose header gives a size but which libipt rejects. */
Test(probe, packets_libipt_rejects)
{
	static const struct {
		const char *what;
		size_t at;		/* offset into good_stream()'s body */
		uint8_t bytes[8];
		size_t n;
	} bad[] = {
		{ "PSB not the full pattern", 16 + 69, { 0x02, 0x82, 0x02,
		  0x82, 0x02, 0x83 }, 6 },
		{ "long TNT, no payload", 16 + 29, { 0x02, 0xa3, 0, 0, 0, 0,
		  0, 0 }, 8 },
		{ "long TNT, stop bit only", 16 + 29, { 0x02, 0xa3, 1, 0, 0, 0,
		  0, 0 }, 8 },
		{ "TMA reserved byte", 16 + 42, { 0x02, 0x73, 0x10, 0x00, 0x01,
		  0x05, 0x01 }, 7 },
		{ "TMA FC over 9 bits", 16 + 42, { 0x02, 0x73, 0x10, 0x00, 0x00,
		  0x05, 0x03 }, 7 },
		{ "MODE of leaf 2", 16, { 0x99, 0x41 }, 2 },
		{ "MNT without 0x88", 16 + 29, { 0x02, 0xc3, 0x87, 0, 0, 0, 0,
		  0 }, 8 },
	};
	uint8_t b[512];
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = good_stream(b);
		memcpy(b + bad[i].at, bad[i].bytes, bad[i].n);
		same(b, n, bad[i].what);
	}
}

Test(probe, long_cyc)
{
	uint8_t b[512];
	size_t n, k;

	/* A CYC with 8, 9 and 10 extension bytes over the PIP and on (PAD
	 * after it): libipt takes up to 64 bits.
	 */
	for (k = 8; k <= 10; k++) {
		char what[32];

		n = good_stream(b);
		memset(b + 16 + 55, 0x00, 14);
		b[16 + 55] = 0x07;
		memset(b + 16 + 56, 0x01, k - 1);
		snprintf(what, sizeof(what), "CYC, %zu more bytes", k);
		same(b, n, what);
	}
}

/* Seeded (repeatable) random damage: bytes flipped, dropped and
 * repeated.
 */
Test(probe, random_damage)
{
	uint8_t b[512], m[512];
	size_t n = good_stream(b), len, i, j;
	unsigned int seed = 19;

	for (i = 0; i < 20000; i++) {
		char what[48];

		memcpy(m, b, n);
		len = n;
		for (j = 0; j < 1 + (size_t)(rand_r(&seed) % 3); j++) {
			size_t at = 16 + rand_r(&seed) % (len - 16);

			switch (rand_r(&seed) % 3) {
			case 0:
				m[at] = (uint8_t)rand_r(&seed);
				break;
			case 1:
				memmove(m + at, m + at + 1, len - at - 1);
				len--;
				break;
			default:
				m[at] ^= (uint8_t)(1u << rand_r(&seed) % 8);
				break;
			}
		}
		snprintf(what, sizeof(what), "damage case %zu", i);
		same(m, len, what);
	}
}
