// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The PSB scan (replay/psbscan.c) on streams written with libipt's own
 * encoder: each PSB's offset, the TSC and FUP of its PSB+ (sign-extended),
 * none for a PSB+ without FUP, damage skipped; rp_psb_at() at and between
 * PSBs; where tracing resumes after a PSB+ without FUP; the packet-level
 * pass that finds TIP.PGEs to cut a single-PSB stream at (last-IP
 * compression undone), and the made-up PSB+ a cut range starts with.
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

/* An IP packet with compression @ipc (payload already cut to its bytes). */
static void put_ip(enum pt_packet_type type, enum pt_ip_compression ipc,
		   uint64_t ip, uint64_t *at)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	if (at)
		pt_enc_get_offset(enc, at);
	cr_assert_geq(pt_enc_next(enc, &p), 0);
}

static void put_mode64(void)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
}

static void put_timing(void)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mtc;
	p.payload.mtc.ctc = 7;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
	memset(&p, 0, sizeof(p));
	p.type = ppt_cyc;
	p.payload.cyc.value = 0x1234;	/* several bytes */
	cr_assert_geq(pt_enc_next(enc, &p), 0);
	put(ppt_pad, 0);
}

static void put_tnt(void)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tnt_8;
	p.payload.tnt.bit_size = 2;
	p.payload.tnt.payload = 1;
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
	free(t.resume);
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

static uint64_t pge[8];

/* PSB+ without FUP, timing, then the TIP.PGE that resumes tracing; one
 * with a FUP; one without whose first packet after PSBEND is a branch.
 */
static void resumes(void)
{
	put(ppt_psb, 0);
	put(ppt_tsc, 1000);
	put(ppt_psbend, 0);
	put_timing();
	put_mode64();
	put_ip(ppt_tip_pge, pt_ipc_sext_48, 0x401234, &pge[0]);
	put_tnt();
	put_ip(ppt_tip_pgd, pt_ipc_suppressed, 0, NULL);
	put(ppt_psb, 0);
	put(ppt_fup, 0x402000);
	put(ppt_psbend, 0);
	put_tnt();
	put_ip(ppt_tip_pgd, pt_ipc_suppressed, 0, NULL);
	put(ppt_psb, 0);
	put(ppt_psbend, 0);
	put_tnt();
	put_ip(ppt_tip_pge, pt_ipc_sext_48, 0x403000, NULL);
}

Test(psbscan, where_tracing_resumes_after_a_psb_without_fup)
{
	scan(resumes);
	cr_assert_eq(t.npsbs, 3);
	cr_assert_eq(t.resume[0].offset, pge[0]);
	cr_assert_eq(t.resume[0].ip, 0x401234);
	cr_assert_eq(t.resume[1].offset, 0);	/* it has a FUP */
	cr_assert_eq(t.resume[2].offset, 0);	/* a branch first */
	free(t.psbs);
	free(t.resume);
}

/* One PSB, then tracing off and on again three times, the TIP.PGEs'
 * IPs compressed against the last IP; a TIP.PGE while tracing is on (no
 * TIP.PGD before it) is no place to start.
 */
static void single(void)
{
	put(ppt_psb, 0);
	put(ppt_tsc, 5000);
	put(ppt_psbend, 0);
	put_mode64();
	put_ip(ppt_tip_pge, pt_ipc_sext_48, 0x401000, &pge[0]);
	put_tnt();
	put_ip(ppt_tip, pt_ipc_update_32, 0x7fff1000, NULL);
	put_ip(ppt_tip_pgd, pt_ipc_suppressed, 0, NULL);
	put_timing();
	put(ppt_tsc, 6000);
	put_ip(ppt_tip_pge, pt_ipc_update_16, 0x2000, &pge[1]);
	put_tnt();
	put_ip(ppt_tip_pge, pt_ipc_update_16, 0x3000, &pge[2]);
	put_ip(ppt_tip_pgd, pt_ipc_update_32, 0x00405000, NULL);
	put_ip(ppt_tip_pge, pt_ipc_update_16, 0x6000, &pge[3]);
}

Test(psbscan, splits_at_tip_pge_with_full_ips)
{
	struct rp_split *v = NULL;
	size_t n = 0;

	scan(single);
	cr_assert_eq(t.npsbs, 1);
	cr_assert_eq(rp_scan_splits(&t, 1, &v, &n, NULL), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(v[0].offset, pge[0]);
	cr_assert_eq(v[0].ip, 0x401000);
	cr_assert_eq(v[0].tsc, 5000);
	cr_assert_eq(v[0].csl, 1);
	cr_assert_eq(v[0].len, 7);
	/* 0x7fff1000 with its low 16 bits replaced */
	cr_assert_eq(v[1].offset, pge[1]);
	cr_assert_eq(v[1].ip, 0x7fff2000);
	cr_assert_eq(v[1].tsc, 6000);
	cr_assert_eq(v[1].len, 3);
	/* pge[2] came while tracing was on; after the PGD to 0x405000: */
	cr_assert_eq(v[2].offset, pge[3]);
	cr_assert_eq(v[2].ip, 0x406000);
	free(v);
	/* Only the first at or after each multiple of pge[3] bytes: 0, 1x */
	cr_assert_eq(rp_scan_splits(&t, pge[3], &v, &n, NULL), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(v[0].offset, pge[0]);
	cr_assert_eq(v[1].offset, pge[3]);
	free(v);
	free(t.psbs);
	free(t.resume);
}

Test(psbscan, split_prefix_is_a_psb_plus_and_the_tip_pge_in_full)
{
	static const enum pt_packet_type want[] = {
		ppt_psb, ppt_tsc, ppt_tma, ppt_mode, ppt_psbend, ppt_tip_pge
	};
	struct rp_split sp = { .ip = 0xffff800012345678ull, .tsc = 77,
			       .ctc = 3, .fc = 4, .has_tma = true, .csl = 1 };
	uint8_t pre[RP_SPLIT_PREFIX];
	struct pt_packet_decoder *d;
	struct pt_packet pkt;
	struct pt_config cfg;
	int len = rp_split_prefix(&sp, pre);
	size_t i;

	cr_assert_gt(len, 0);
	pt_config_init(&cfg);
	cfg.begin = pre;
	cfg.end = pre + len;
	d = pt_pkt_alloc_decoder(&cfg);
	cr_assert_geq(pt_pkt_sync_forward(d), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_geq(pt_pkt_next(d, &pkt, sizeof(pkt)), 0);
		cr_assert_eq(pkt.type, want[i], "packet %zu", i);
	}
	cr_assert_eq(pkt.payload.ip.ipc, pt_ipc_full);
	cr_assert_eq(pkt.payload.ip.ip, sp.ip);
	cr_assert_eq(pt_pkt_next(d, &pkt, sizeof(pkt)), -pte_eos);
	pt_pkt_free_decoder(d);
}
