// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The PSB scan (replay/psbscan.c) on streams written with libipt's own
 * encoder: each PSB's offset, the TSC and FUP of its PSB+ (sign-extended),
 * none for a PSB+ without FUP, damage skipped; rp_psb_at() at and between
 * PSBs.
 */
#include <criterion/criterion.h>
#include <intel-pt.h>
#include <string.h>

#include "psbscan.h"

static uint8_t buf[4096];
static struct pt_encoder *enc;
static uint64_t psb_off[8];
static int npsb;

static void put(enum pt_packet_type type, uint64_t payload)
{
	struct pt_packet p;
	uint64_t off;

	memset(&p, 0, sizeof(p));
	p.type = type;
	if (type == ppt_tsc)
		p.payload.tsc.tsc = payload;
	if (type == ppt_fup || type == ppt_tip) {
		p.payload.ip.ipc = pt_ipc_sext_48;
		p.payload.ip.ip = payload & 0xffffffffffffull;
	}
	pt_enc_get_offset(enc, &off);
	if (type == ppt_psb)
		psb_off[npsb++] = off;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
}

static struct rp_thread t;

static void scan(void (*build)(void))
{
	struct pt_config cfg;
	uint64_t len;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof(buf);
	memset(buf, 0, sizeof(buf));
	enc = pt_alloc_encoder(&cfg);
	npsb = 0;
	build();
	pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);
	memset(&t, 0, sizeof(t));
	t.pt = buf;
	t.pt_size = (size_t)len;
	cr_assert_eq(rp_scan_psbs(&t), 0);
}

static void three(void)
{
	put(ppt_psb, 0);
	put(ppt_tsc, 1000);
	put(ppt_fup, 0x401000);
	put(ppt_psbend, 0);
	put(ppt_tip, 0x401100);
	/* Tracing off at this PSB: no FUP in its PSB+. */
	put(ppt_psb, 0);
	put(ppt_tsc, 2000);
	put(ppt_psbend, 0);
	put(ppt_tsc, 2500);	/* after PSBEND: not the PSB's */
	put(ppt_psb, 0);
	put(ppt_tsc, 3000);
	put(ppt_fup, 0xffff800000001000ull);	/* kernel half */
	put(ppt_psbend, 0);
}

Test(psbscan, offsets_tsc_and_fup)
{
	scan(three);
	cr_assert_eq(t.npsbs, 3);
	cr_assert_eq(t.psbs[0].offset, psb_off[0]);
	cr_assert_eq(t.psbs[0].tsc, 1000);
	cr_assert_eq(t.psbs[0].fup, 0x401000);
	cr_assert_eq(t.psbs[1].offset, psb_off[1]);
	cr_assert_eq(t.psbs[1].tsc, 2000);
	cr_assert_eq(t.psbs[1].fup, 0);
	cr_assert_eq(t.psbs[2].offset, psb_off[2]);
	cr_assert_eq(t.psbs[2].tsc, 3000);
	cr_assert_eq(t.psbs[2].fup, 0xffff800000001000ull);
	free(t.psbs);
}

Test(psbscan, psb_at_finds_the_last_psb_at_or_before)
{
	scan(three);
	cr_assert_eq(rp_psb_at(&t, 0), 0);
	cr_assert_eq(rp_psb_at(&t, psb_off[1] - 1), 0);
	cr_assert_eq(rp_psb_at(&t, psb_off[1]), 1);
	cr_assert_eq(rp_psb_at(&t, psb_off[2] + 5), 2);
	cr_assert_eq(rp_psb_at(&t, UINT64_MAX), 2);
	t.psbs[0].offset = 10;
	cr_assert_eq(rp_psb_at(&t, 9), SIZE_MAX);
	free(t.psbs);
}

static void damaged(void)
{
	uint64_t off;

	put(ppt_psb, 0);
	put(ppt_tsc, 1000);
	put(ppt_fup, 0x401000);
	put(ppt_psbend, 0);
	pt_enc_get_offset(enc, &off);
	/* A PSB+ cut by damage: its TSC and FUP are lost with it. */
	put(ppt_psb, 0);
	pt_enc_get_offset(enc, &off);
	memset(buf + off, 0xd9, 8);
	pt_enc_sync_set(enc, off + 8);
	put(ppt_tsc, 2000);
	put(ppt_fup, 0x402000);
	put(ppt_psbend, 0);
	put(ppt_psb, 0);
	put(ppt_tsc, 3000);
	put(ppt_fup, 0x403000);
	put(ppt_psbend, 0);
}

Test(psbscan, damage_inside_psb_plus)
{
	scan(damaged);
	cr_assert_eq(t.npsbs, 3);
	cr_assert_eq(t.psbs[1].offset, psb_off[1]);
	cr_assert_eq(t.psbs[1].tsc, 0);
	cr_assert_eq(t.psbs[1].fup, 0);
	cr_assert_eq(t.psbs[2].fup, 0x403000);
	cr_assert_eq(t.psbs[2].tsc, 3000);
	free(t.psbs);
}

Test(psbscan, empty_stream)
{
	memset(&t, 0, sizeof(t));
	t.pt = buf;
	cr_assert_eq(rp_scan_psbs(&t), 0);
	cr_assert_eq(t.npsbs, 0);
}
