// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index pass (replay/index.c) on a stream where a return's TIP has its
 * IP suppressed (IP compression 000), the damage fuzz_replay-reindex
 * found: libipt 2.0's block decoder, once its block cache knows the
 * return, goes on past such a TIP without an error, while the instruction
 * decoder (which materializes segments) stops there with -pte_noip.  The
 * index must count what a plain libipt pt_insn_next loop, resyncing at the
 * next PSB after each error, decodes, put the gap where that loop meets
 * the error, and every position it counts must materialize.
 *
 * The stream is a recording of tests/programs/loops (IDX_BUNDLE: its
 * recursion 100 deep returns past the 64 entries of return compression,
 * so with a TIP each), copied, with one of those TIPs, for a return
 * decoded ten times before, made suppressed in place (0x0d, then PADs).
 * Also two TNTs made TIP.PGDs with their IP suppressed, a disable the
 * block decoder binds to a conditional branch the instruction decoder
 * stops at (PGD_NOIP).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "ptkit.h"
#include "sideband.h"

static struct rp_session *s;

/*
 * Whether the thread may end up indexed with the instruction decoder (a
 * redo that refuses, as the flow walker's does on PGD_NOIP in the middle:
 * slower, not wrong).
 */
static bool exact_ok;

/* The tenth of a run of identical TIPs: its offset and size. */
struct find {
	uint64_t min_off;	/* else: the first TIP from here */
	bool tnt;		/* ... or the first two TNT.8 in a row from
				 * there (at off, len 2) */
	uint64_t tnt_prev;	/* the last TNT.8's offset + 1 */
	uint64_t last_ip, off;
	int last_ipc, run;
	size_t len;
};

static int tip(void *ctx, uint64_t off, const struct pt_packet *pkt)
{
	struct find *f = ctx;

	if (!pkt || f->len)
		return PTKIT_SCAN_NEXT;
	if (f->tnt) {
		if (pkt->type != ppt_tnt_8 || pkt->size != 1)
			f->tnt_prev = 0;
		else if (off >= f->min_off + 1 && f->tnt_prev == off)
			f->len = 2;
		else
			f->tnt_prev = off + 1;
		f->off = off - 1;
		return PTKIT_SCAN_NEXT;
	}
	if (pkt->type != ppt_tip)
		return PTKIT_SCAN_NEXT;
	if (f->min_off) {
		if (off >= f->min_off && pkt->size > 2) {
			f->off = off;
			f->len = pkt->size;
		}
		return PTKIT_SCAN_NEXT;
	}
	if ((int)pkt->payload.ip.ipc == f->last_ipc &&
	    pkt->payload.ip.ip == f->last_ip) {
		if (++f->run == 10) {
			f->off = off;
			f->len = pkt->size;
		}
	} else {
		f->run = 1;
		f->last_ipc = (int)pkt->payload.ip.ipc;
		f->last_ip = pkt->payload.ip.ip;
	}
	return PTKIT_SCAN_NEXT;
}

/*
 * The reference: libipt's instruction decoder from the first PSB to the
 * end, events taken as they come, a resync at the next PSB after each
 * error (as tests/bench/iptraw and rp_walk_run() do), against the address
 * space of the stream's start.  Its instructions' addresses in @ips (up
 * to @max), and each error's position (instructions before it) and
 * decoder offset in @err_pos and @err_off (up to ERRS_MAX, *@nerr).
 */
#define ERRS_MAX	64

static uint64_t plain_count(struct rp_thread *t, uint64_t *ips, size_t max,
			    uint64_t *err_pos, uint64_t *err_off, size_t *nerr)
{
	struct pt_insn insn;
	struct pt_event ev;
	struct walk w;
	uint64_t n = 0;
	int status;

	*nerr = 0;
	cr_assert_eq(rp_walk_begin(&w, s, t, t->ckpts[0].sb_next), 0);
	status = pt_insn_sync_forward(w.d);
	while (status != -pte_eos) {
		while (status >= 0 && (status & pts_event_pending))
			status = pt_insn_event(w.d, &ev, sizeof(ev));
		if (status >= 0 && (status & pts_eos))
			break;
		if (status >= 0)
			status = pt_insn_next(w.d, &insn, sizeof(insn));
		if (status >= 0) {
			if (n < max)
				ips[n] = insn.ip;
			n++;
			continue;
		}
		if (status == -pte_eos)
			break;
		if (*nerr < ERRS_MAX) {
			err_pos[*nerr] = n;
			pt_insn_get_offset(w.d, &err_off[(*nerr)++]);
		}
		status = pt_insn_sync_forward(w.d);
	}
	rp_walk_end(&w);
	return n;
}

/* @len bytes of @path into a new buffer. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 20);

	cr_assert(f && buf, "%s", path);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

enum damage {
	SUPPRESSED,	/* the TIP's IP suppressed (0x0d, then PADs) */
	BAD_OPCODE,	/* the TIP made an undefined extended opcode */
	PGD_NOIP,	/* two TNT.8 made TIP.PGDs with their IP suppressed */
};

#define IPS_MAX	(1u << 20)

/*
 * The recording with @how done to its tenth identical TIP, opened with
 * @workers index workers: the index's count, every address it reads and
 * its decode gaps against plain_count()'s.  The block pass decodes the
 * damaged PSB range again with the instruction decoder (index.c,
 * insn_redo()), the rest with the block decoder.
 */
static void check(enum damage how, const char *workers, bool middle)
{
	struct find f = { .last_ipc = -1 };
	char dir[] = "/tmp/ptrec-test-noip-XXXXXX", cmd[8192], path[4200];
	uint64_t err_pos[ERRS_MAX], err_off[ERRS_MAX];
	struct sb_manifest *m;
	struct sb_err err;
	struct rp_thread *t;
	struct rp_cursor *c;
	struct rp_insn insn;
	uint64_t counted, pos, plain, *ips;
	size_t size, i, j, nerr, ndecode = 0;
	uint8_t *pt;
	FILE *out;

	/* The recording copied, one TIP of its stream damaged. */
	cr_assert(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s/b'", IDX_BUNDLE, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/b", dir);
	cr_assert_eq(sb_manifest_load(&m, path, &err), 0, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/b/%s", dir, m->threads[0].pt);
	sb_manifest_free(m);
	pt = slurp(path, &size);
	if (middle)
		f.min_off = size / 2;
	f.tnt = how == PGD_NOIP;
	cr_assert_eq(ptkit_stream_scan(pt, size, tip, &f, NULL), 0);
	cr_assert(f.len > 2 || (f.tnt && f.len == 2),
		  "no TIP or TNT to damage in the recording");
	if (how == PGD_NOIP) {
		pt[f.off] = 0x01;	/* TIP.PGD, IP suppressed */
		pt[f.off + 1] = 0x01;	/* again, tracing off */
	} else if (how == SUPPRESSED) {
		pt[f.off] = 0x0d;	/* TIP, IP suppressed */
		memset(pt + f.off + 1, 0, f.len - 1);	/* PAD */
	} else {
		pt[f.off] = 0x02;	/* extended opcode ... */
		pt[f.off + 1] = 0x55;	/* ... not defined */
		memset(pt + f.off + 2, 0, f.len - 2);
	}
	out = fopen(path, "wb");
	cr_assert(out && fwrite(pt, 1, size, out) == size && !fclose(out));
	free(pt);

	setenv("PTREC_INDEX_CACHE", "0", 1);
	setenv("PTREC_INDEX_THREADS", workers, 1);
	snprintf(path, sizeof(path), "%s/b", dir);
	cr_assert_eq(rp_session_open(&s, path), 0, "%s", rp_session_errmsg(s));
	t = &s->threads[0];
	counted = t->insns;

	ips = malloc(IPS_MAX * sizeof(*ips));
	cr_assert(ips);
	plain = plain_count(t, ips, IPS_MAX, err_pos, err_off, &nerr);
	cr_assert(plain <= IPS_MAX);
	cr_assert(nerr, "the damage is no error to libipt");
	cr_assert_eq(counted, plain,
		     "%s workers: indexed %llu instructions, the instruction decoder %llu",
		     workers, (unsigned long long)counted,
		     (unsigned long long)plain);
	/* Each of its errors a decode gap there, and no other. */
	for (i = 0; i < t->ngaps; i++)
		ndecode += t->gaps[i].reason == RP_GAP_DECODE ||
			   t->gaps[i].reason == RP_GAP_NOMAP;
	cr_assert_eq(ndecode, nerr, "%zu decode gaps, libipt %zu errors",
		     ndecode, nerr);
	for (j = 0; j < nerr; j++) {
		bool found = false;

		for (i = 0; i < t->ngaps; i++)
			if (t->gaps[i].reason == RP_GAP_DECODE &&
			    t->gaps[i].offset == err_off[j] &&
			    t->gaps[i].before == err_pos[j])
				found = true;
		cr_assert(found, "no decode gap at offset %llu, position %llu (TIP at %llu)",
			  (unsigned long long)err_off[j],
			  (unsigned long long)err_pos[j],
			  (unsigned long long)f.off);
	}

	/* Every position counted reads, at the loop's address, with no
	 * re-index on the way.
	 */
	cr_assert_eq(rp_cursor_new(s, t->tid, &c), 0);
	for (pos = 0; pos < counted; pos++) {
		cr_assert_eq(rp_cursor_peek(c, pos, &insn), 0,
			     "position %llu: %s", (unsigned long long)pos,
			     rp_session_errmsg(s));
		cr_assert_eq(insn.ip, ips[pos],
			     "position %llu: %#llx, libipt %#llx",
			     (unsigned long long)pos,
			     (unsigned long long)insn.ip,
			     (unsigned long long)ips[pos]);
	}
	cr_assert_eq(t->insns, counted, "the history was re-indexed");
	cr_assert(exact_ok || !t->exact,
		  "the thread was indexed with the instruction decoder");
	rp_cursor_free(c);
	rp_session_close(s);
	free(ips);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(index_noip, counts_what_the_instruction_decoder_decodes)
{
	check(SUPPRESSED, "1", false);
}

Test(index_noip, two_workers)
{
	check(SUPPRESSED, "2", false);
}

Test(index_noip, bad_opcode)
{
	check(BAD_OPCODE, "1", false);
}

Test(index_noip, bad_opcode_two_workers)
{
	check(BAD_OPCODE, "2", false);
}

/* The same in the middle of the stream, past its first PSB range. */
Test(index_noip, bad_opcode_middle)
{
	check(BAD_OPCODE, "1", true);
}

Test(index_noip, bad_opcode_middle_two_workers)
{
	check(BAD_OPCODE, "2", true);
}

Test(index_noip, suppressed_middle_two_workers)
{
	check(SUPPRESSED, "2", true);
}

/*
 * A TIP.PGD with its IP suppressed where a conditional branch's TNT was:
 * libipt's block decoder binds the disable to that branch (its block ends
 * with it), the instruction decoder binds it to far branches only and
 * stops at the branch with -pte_bad_query, one instruction earlier.  A
 * second one after it, while tracing is off, makes the block decoder's
 * next error missing code at address 0, no corrupt trace to decode again:
 * before the fix the index counted the branch (11,244 instructions, the
 * instruction decoder 11,243; 13,403 and 13,402 in the middle), and a
 * segment could materialize with the next one's first instruction at its
 * end.  fuzz_replay found it in 16-bit
 * code (disable-noip-at-cond-jump: 979 and 978), which the flow walker
 * leaves to libipt's block decoder; the walker takes the disable for an
 * error itself, so the block decoder is forced here.
 */
static void check_pgd(const char *workers, bool middle)
{
	setenv("PTREC_INDEX_FWALK", "0", 1);
	check(PGD_NOIP, workers, middle);
	unsetenv("PTREC_INDEX_FWALK");
	check(PGD_NOIP, workers, middle);
}

Test(index_noip, pgd_noip_at_cond_branch)
{
	check_pgd("1", false);
}

Test(index_noip, pgd_noip_at_cond_branch_two_workers)
{
	check_pgd("2", false);
}

/* There the redo refuses (with the walker too): indexed in one piece. */
Test(index_noip, pgd_noip_at_cond_branch_middle_two_workers)
{
	exact_ok = true;
	check_pgd("2", true);
}
