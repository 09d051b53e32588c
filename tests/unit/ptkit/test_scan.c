// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ptkit_stream_scan() against streams written with libipt's own encoder:
 * every packet at its encoder offset, damage resynced at the next PSB,
 * PTKIT_SCAN_SKIP jumping to the next PSB, a truncated last packet found.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <intel-pt.h>
#include <string.h>

#include "ptkit.h"

static uint8_t buf[4096];
static struct pt_encoder *enc;
static uint64_t psb_off[8];
static int npsb;

static void begin(void)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof(buf);
	memset(buf, 0, sizeof(buf));
	enc = pt_alloc_encoder(&cfg);
	npsb = 0;
	cr_assert_not_null(enc);
}

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
		p.payload.ip.ip = payload;
	}
	if (type == ppt_tnt_8) {
		p.payload.tnt.bit_size = 1;
		p.payload.tnt.payload = payload;
	}
	cr_assert_eq(pt_enc_get_offset(enc, &off), 0);
	if (type == ppt_psb)
		psb_off[npsb++] = off;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
}

static size_t end(void)
{
	uint64_t off;

	pt_enc_get_offset(enc, &off);
	pt_free_encoder(enc);
	return (size_t)off;
}

/* A PSB+ (TSC, FUP) and a few packets after it. */
static void segment(uint64_t tsc, uint64_t ip)
{
	put(ppt_psb, 0);
	put(ppt_tsc, tsc);
	put(ppt_fup, ip);
	put(ppt_psbend, 0);
	put(ppt_tnt_8, 1);
	put(ppt_tip, ip + 0x10);
}

struct seen {
	uint64_t off[64];
	int type[64];		/* -1: damage */
	int n;
	bool skip;		/* return SKIP at each PSBEND */
	int stop_at;		/* stop with -42 at this packet (0: never) */
};

static int record(void *ctx, uint64_t off, const struct pt_packet *pkt)
{
	struct seen *s = ctx;

	if (s->n < 64) {
		s->off[s->n] = off;
		s->type[s->n] = pkt ? (int)pkt->type : -1;
	}
	s->n++;
	if (s->stop_at && s->n == s->stop_at)
		return -42;
	if (s->skip && pkt && pkt->type == ppt_psbend)
		return PTKIT_SCAN_SKIP;
	return PTKIT_SCAN_NEXT;
}

Test(scan, every_packet_at_its_offset)
{
	struct seen s = { 0 };
	uint64_t cut;
	size_t len;

	begin();
	segment(100, 0x401000);
	segment(200, 0x402000);
	len = end();
	cr_assert_eq(ptkit_stream_scan(buf, len, record, &s, &cut), 0);
	cr_assert_eq(s.n, 12);
	cr_assert_eq(s.type[0], ppt_psb);
	cr_assert_eq(s.off[0], psb_off[0]);
	cr_assert_eq(s.type[6], ppt_psb);
	cr_assert_eq(s.off[6], psb_off[1]);
	cr_assert_eq(s.type[5], ppt_tip);
	cr_assert_eq(cut, UINT64_MAX);
}

Test(scan, skip_goes_to_the_next_psb)
{
	struct seen s = { .skip = true };
	size_t len;

	begin();
	segment(100, 0x401000);
	segment(200, 0x402000);
	len = end();
	cr_assert_eq(ptkit_stream_scan(buf, len, record, &s, NULL), 0);
	/* PSB, TSC, FUP, PSBEND twice: the TNT and TIP are never decoded. */
	cr_assert_eq(s.n, 8);
	cr_assert_eq(s.type[4], ppt_psb);
	cr_assert_eq(s.off[4], psb_off[1]);
}

Test(scan, damage_resyncs_at_the_next_psb)
{
	struct seen s = { 0 };
	uint64_t bad;
	size_t len;
	int i;

	begin();
	segment(100, 0x401000);
	pt_enc_get_offset(enc, &bad);
	cr_assert_eq(pt_enc_sync_set(enc, bad + 16), 0);
	segment(200, 0x402000);
	len = end();
	/* Bytes no packet starts with (0xd9: reserved), then a good PSB. */
	memset(buf + bad, 0xd9, 16);
	cr_assert_eq(ptkit_stream_scan(buf, len, record, &s, NULL), 0);
	cr_assert_eq(s.n, 13);
	cr_assert_eq(s.type[6], -1);
	cr_assert_eq(s.off[6], bad);
	cr_assert_eq(s.type[7], ppt_psb);
	cr_assert_eq(s.off[7], bad + 16);
	for (i = 8; i < 13; i++)
		cr_assert_neq(s.type[i], -1);
}

Test(scan, a_truncated_last_packet_is_cut)
{
	struct seen s = { 0 };
	uint64_t tip;
	size_t len;

	begin();
	segment(100, 0x401000);
	pt_enc_get_offset(enc, &tip);
	put(ppt_tip, 0x7fff00001234ull);
	len = end();
	cr_assert_eq(ptkit_stream_scan(buf, len - 2, record, &s, &tip), 0);
	cr_assert_eq(s.n, 6);
	cr_assert_eq(tip, len - 7);	/* TIP with a 6-byte IP: 7 bytes */
}

Test(scan, the_callback_can_stop_it)
{
	struct seen s = { .stop_at = 3 };
	size_t len;

	begin();
	segment(100, 0x401000);
	len = end();
	cr_assert_eq(ptkit_stream_scan(buf, len, record, &s, NULL), -42);
	cr_assert_eq(s.n, 3);
}

Test(scan, no_psb_no_packets)
{
	struct seen s = { 0 };

	memset(buf, 0, 64);	/* PAD only */
	cr_assert_eq(ptkit_stream_scan(buf, 64, record, &s, NULL), 0);
	cr_assert_eq(s.n, 0);
	cr_assert_eq(ptkit_stream_scan(buf, 0, record, &s, NULL), 0);
}

/* Every kind of packet libipt encodes, IPs in every compression and CYCs
 * of several lengths: ptkit_pkt_len() gives each the size libipt's packet
 * decoder gives it, and more than what is left for a cut one.
 */
Test(scan, pkt_len_is_libipts_size)
{
	static const enum pt_ip_compression ipcs[] = {
		pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
		pt_ipc_sext_48, pt_ipc_update_48, pt_ipc_full
	};
	static const enum pt_packet_type ips[] = {
		ppt_tip, ppt_tip_pge, ppt_tip_pgd, ppt_fup
	};
	static const uint64_t cycs[] = { 1, 0x1f, 0x20, 0xfff, 0x12345678 };
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet p;
	uint64_t len, off;
	size_t i, j, n = 0;

	begin();
	put(ppt_psb, 0);
	put(ppt_tsc, 0x123456789abcdull);
	put(ppt_psbend, 0);
	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		for (j = 0; j < sizeof(ipcs) / sizeof(ipcs[0]); j++) {
			memset(&p, 0, sizeof(p));
			p.type = ips[i];
			p.payload.ip.ipc = ipcs[j];
			p.payload.ip.ip = 0x1234;
			cr_assert_geq(pt_enc_next(enc, &p), 0);
		}
	for (i = 0; i < sizeof(cycs) / sizeof(cycs[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.type = ppt_cyc;
		p.payload.cyc.value = cycs[i];
		cr_assert_geq(pt_enc_next(enc, &p), 0);
	}
	memset(&p, 0, sizeof(p));
	p.type = ppt_tnt_8;
	p.payload.tnt.bit_size = 3;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
	p.type = ppt_tnt_64;
	p.payload.tnt.bit_size = 40;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_tsx;
	cr_assert_geq(pt_enc_next(enc, &p), 0);
	put(ppt_mtc, 0);
	put(ppt_tma, 0);
	put(ppt_cbr, 0);
	put(ppt_pip, 0);
	put(ppt_vmcs, 0);
	put(ppt_ovf, 0);
	put(ppt_stop, 0);
	put(ppt_mnt, 0);
	put(ppt_exstop, 0);
	put(ppt_mwait, 0);
	put(ppt_pwre, 0);
	put(ppt_pwrx, 0);
	put(ppt_pad, 0);
	for (i = 0; i < 2; i++) {
		memset(&p, 0, sizeof(p));
		p.type = ppt_ptw;
		p.payload.ptw.plc = (uint8_t)i;	/* 4 and 8 bytes */
		cr_assert_geq(pt_enc_next(enc, &p), 0);
	}
	pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	cr_assert_geq(pt_pkt_sync_forward(d), 0);
	for (;;) {
		pt_pkt_get_offset(d, &off);
		if (pt_pkt_next(d, &p, sizeof(p)) < 0)
			break;
		cr_assert_eq(ptkit_pkt_len(buf + off, len - off), p.size,
			     "packet type %d at %llu", p.type,
			     (unsigned long long)off);
		/* Cut one byte short: more than is left. */
		if (p.size > 1)
			cr_assert_gt(ptkit_pkt_len(buf + off, p.size - 1u),
				     p.size - 1u, "cut type %d", p.type);
		n++;
	}
	pt_pkt_free_decoder(d);
	cr_assert_eq(off, len);
	cr_assert_geq(n, 50);
	cr_assert_eq(ptkit_pkt_len((const uint8_t *)"\x09", 1), 0);
}
