// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Cut points as checkpoints (replay/cuts.c): the made-up start of a cut
 * point restores libipt's return-compression stack.  A stream is written
 * with libipt's encoder as a segment decode sees it: the made-up PSB+
 * with two return addresses, then two RETs compressed (taken TNT bits)
 * against them; libipt's own instruction decoder must return to both, the
 * innermost first, without an error, and take none of the made-up code as
 * an instruction.  Without the stack the first RET fails, as it did before
 * checkpoints kept it.  Also where the made-up code's 'jmp' goes.
 */
#include <criterion/criterion.h>
#include <intel-pt.h>
#include <string.h>

#include "cuts.h"
#include "psbscan.h"

#define OUTER	0x401005ull	/* return addresses: outermost first */
#define INNER	0x402007ull
#define CUT	0x500000ull	/* where tracing resumes: a RET */

/* The real code: RET at CUT and at INNER, 'jmp *%rax' at OUTER. */
static int code(uint8_t *buf, size_t size, const struct pt_asid *asid,
		uint64_t ip, void *ctx)
{
	(void)asid;
	(void)ctx;
	if (size < 2)
		return -pte_nomap;
	if (ip == CUT || ip == INNER) {
		buf[0] = 0xc3;
		return 1;
	}
	if (ip == OUTER) {
		buf[0] = 0xff;
		buf[1] = 0xe0;
		return 2;
	}
	return -pte_nomap;
}

/* Decodes the made-up start for @n of the return addresses, then two
 * compressed RETs and a TIP.PGD; the instructions' IPs into @ips.
 */
static int decode(size_t n, uint64_t *ips, size_t *nips)
{
	static const uint64_t rets[] = { OUTER, INNER };
	struct rp_split sp = { .ip = CUT, .csl = 1 };
	static uint8_t buf[RP_SPLIT_PREFIX_MAX + 64];
	struct pt_packet p[2];
	struct pt_encoder *enc;
	struct pt_config cfg;
	struct pt_insn insn;
	struct pt_event ev;
	struct walk w;
	uint64_t x = n ? rp_cut_shim_place(rets, n) : 0, off = 0;
	int len = rp_split_prefix_rets(&sp, rets, n, x, buf), status, i;

	cr_assert_gt(len, 0);
	memset(p, 0, sizeof(p));
	p[0].type = ppt_tnt_8;
	p[0].payload.tnt.bit_size = 2;
	p[0].payload.tnt.payload = 3;
	p[1].type = ppt_tip_pgd;
	p[1].payload.ip.ipc = pt_ipc_sext_48;
	p[1].payload.ip.ip = 0x600000;
	pt_config_init(&cfg);
	cfg.begin = buf + len;
	cfg.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&cfg);
	for (i = 0; i < 2; i++)
		cr_assert_geq(pt_enc_next(enc, &p[i]), 0);
	pt_enc_get_offset(enc, &off);
	pt_free_encoder(enc);

	memset(&w, 0, sizeof(w));
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len + off;
	w.d = pt_insn_alloc_decoder(&cfg);
	w.image = pt_image_alloc(NULL);
	pt_image_set_callback(w.image, code, NULL);
	pt_insn_set_image(w.d, w.image);
	status = pt_insn_sync_set(w.d, 0);
	cr_assert_geq(status, 0);
	if (n)
		status = rp_cut_shim_run(&w, status, rets, n, x);
	*nips = 0;
	while (status >= 0 && !(status & pts_eos) && *nips < 8) {
		while (status >= 0 && (status & pts_event_pending))
			status = pt_insn_event(w.d, &ev, sizeof(ev));
		if (status < 0 || (status & pts_eos))
			break;
		status = pt_insn_next(w.d, &insn, sizeof(insn));
		if (status >= 0)
			ips[(*nips)++] = insn.ip;
	}
	pt_insn_free_decoder(w.d);
	pt_image_free(w.image);
	return status;
}

Test(cuts, made_up_start_restores_the_return_stack)
{
	uint64_t ips[8];
	size_t n;
	int status = decode(2, ips, &n);

	cr_assert(status >= 0 || status == -pte_eos, "status %d", status);
	cr_assert_eq(n, 3, "%zu instructions", n);
	cr_assert_eq(ips[0], CUT);
	cr_assert_eq(ips[1], INNER);	/* the innermost return first */
	cr_assert_eq(ips[2], OUTER);
}

Test(cuts, without_the_stack_the_compressed_return_fails)
{
	uint64_t ips[8];
	size_t n;
	int status = decode(0, ips, &n);

	cr_assert_eq(status, -pte_retstack_empty, "status %d", status);
	cr_assert_eq(n, 0);
}

Test(cuts, made_up_code_is_laid_out_clear_of_itself)
{
	static const uint64_t clash[] = { 0x1000, 0x1001 };
	static const uint64_t near[] = { 0x1002, 0x2004 };
	static const uint64_t low[] = { 1 };
	uint64_t x = rp_cut_shim_place(near, 2);

	/* 'call *%rax' at 0x1000 and 0x2002: the jmp not over either. */
	cr_assert_neq(x, 0);
	cr_assert(x + 2 <= 0x1000 || x >= 0x1002);
	cr_assert(x + 2 <= 0x2002 || x >= 0x2004);
	/* Return addresses one byte apart: the calls would overlap. */
	cr_assert_eq(rp_cut_shim_place(clash, 2), 0);
	cr_assert_eq(rp_cut_shim_place(low, 1), 0);
}
