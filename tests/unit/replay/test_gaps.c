// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Gap accounting (replay/gaps.c): which instructions need no trace packet
 * (SDM Vol. 3C Table 33-1), the test behind loop gaps, and loop gaps
 * themselves at events in code of known bytes; LOST records placed at the
 * first checkpoint at or after their offset, or at the end.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gaps.h"

#define IP 0x401000ull

static uint64_t next(const char *hex)
{
	uint8_t b[15];
	size_t n = 0;
	unsigned int v;

	while (*hex && sscanf(hex, "%2x", &v) == 1) {
		b[n++] = (uint8_t)v;
		hex += 2;
		while (*hex == ' ')
			hex++;
	}
	return rp_gap_next_ip(b, n, IP);
}

Test(gaps, packet_free_instructions)
{
	cr_assert_eq(next("eb fe"), IP);			/* jmp . */
	cr_assert_eq(next("eb 10"), IP + 2 + 0x10);
	cr_assert_eq(next("e9 fb ff ff ff"), IP);		/* jmp rel32 . */
	cr_assert_eq(next("e8 00 01 00 00"), IP + 5 + 0x100);	/* call */
	cr_assert_eq(next("90"), IP + 1);
	cr_assert_eq(next("48 89 e5"), IP + 3);			/* mov */
	cr_assert_eq(next("66 90"), IP + 2);
	cr_assert_eq(next("ff c0"), IP + 2);			/* inc %eax */
	cr_assert_eq(next("0f 1f 44 00 00"), IP + 5);		/* nopl */
}

Test(gaps, instructions_that_need_a_packet)
{
	cr_assert_eq(next("74 fe"), 0);			/* je */
	cr_assert_eq(next("0f 84 00 00 00 00"), 0);	/* je rel32 */
	cr_assert_eq(next("e2 fe"), 0);			/* loop */
	cr_assert_eq(next("c3"), 0);			/* ret */
	cr_assert_eq(next("f3 c3"), 0);			/* repz ret */
	cr_assert_eq(next("ff d0"), 0);			/* call *%rax */
	cr_assert_eq(next("ff e0"), 0);			/* jmp *%rax */
	cr_assert_eq(next("41 ff e3"), 0);		/* jmp *%r11 */
	cr_assert_eq(next("0f 05"), 0);			/* syscall */
	cr_assert_eq(next("cd 80"), 0);			/* int $0x80 */
	cr_assert_eq(next("0f 0b"), 0);			/* ud2 */
}

/*
 * A loop gap at an asynchronous event in @hex's code (at IP), read by
 * libipt from a file: whether the code from @at, followed through direct
 * jumps and calls only, comes back to @at.
 */
static bool loop_gap(const char *hex, uint64_t at)
{
	char path[] = "/tmp/ptrec-gaps-XXXXXX";
	struct pt_event ev = { .type = ptev_async_disabled };
	struct rp_gap *gaps = NULL;
	size_t ngaps = 0, n = 0;
	struct walk w;
	uint8_t b[256];
	unsigned int v;
	int fd;

	while (*hex && sscanf(hex, "%2x", &v) == 1) {
		b[n++] = (uint8_t)v;
		hex += 2;
		while (*hex == ' ')
			hex++;
	}
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, b, n), (ssize_t)n);
	close(fd);
	memset(&w, 0, sizeof(w));
	w.image = pt_image_alloc(NULL);
	cr_assert_eq(pt_image_add_file(w.image, path, 0, n, NULL, IP), 0);
	w.indexing = true;
	w.gaps = &gaps;
	w.ngaps = &ngaps;
	ev.variant.async_disabled.at = at;
	cr_assert_eq(rp_gap_loop(&w, &ev), 0);
	/* Asked again: the same walk's decoder, synced anew. */
	cr_assert_eq(rp_gap_loop(&w, &ev), 0);
	cr_assert(ngaps == 0 || ngaps == 2);
	cr_assert(!ngaps || (gaps[0].reason == RP_GAP_LOOP &&
			     gaps[0].ip == at));
	pt_insn_free_decoder(w.ild);
	pt_image_free(w.image);
	free(gaps);
	unlink(path);
	return ngaps != 0;
}

Test(gaps, loop_gaps_at_events)
{
	/* jmp . */
	cr_assert(loop_gap("eb fe", IP));
	/* nop; mov; jmp back to the nop */
	cr_assert(loop_gap("90 48 89 e5 eb fa", IP));
	cr_assert(loop_gap("90 48 89 e5 eb fa", IP + 1));
	/* call a function that jumps back: the return never comes */
	cr_assert(loop_gap("e8 00 00 00 00 e9 f6 ff ff ff", IP));
	/* inc %eax (FF /0) in the loop */
	cr_assert(loop_gap("ff c0 eb fc", IP));
	/* je . needs a packet */
	cr_assert(!loop_gap("74 fe", IP));
	/* a ret, a jmp *%rax, a syscall on the way */
	cr_assert(!loop_gap("90 c3 eb fc", IP));
	cr_assert(!loop_gap("ff e0 eb fc", IP));
	cr_assert(!loop_gap("0f 05 eb fc", IP));
	/* FE /7 and FF /7 do not exist: #UD, not a loop */
	cr_assert(!loop_gap("fe ff eb fc", IP));
	cr_assert(!loop_gap("ff ff eb fc", IP));
	/* a cycle that does not pass the event's address */
	cr_assert(!loop_gap("90 eb fe", IP));
	/* on into bytes the image does not have */
	cr_assert(!loop_gap("90 90", IP));
	/* back only after more than 64 instructions */
	cr_assert(!loop_gap("90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			    "90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			    "90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			    "90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			    "eb be", IP));
	cr_assert(loop_gap("90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			   "90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			   "90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			   "90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 "
			   "eb bf", IP));
}

static struct ptrec_sb_lost lost[3];
static struct ptrec_sb_header *recs[3];

static void lose(int i, uint32_t tid, uint64_t offset, uint32_t reason)
{
	memset(&lost[i], 0, sizeof(lost[i]));
	lost[i].hdr.type = PTREC_SB_LOST;
	lost[i].hdr.size = sizeof(lost[i]);
	lost[i].tid = tid;
	lost[i].offset = offset;
	lost[i].reason = reason;
	recs[i] = &lost[i].hdr;
}

Test(gaps, lost_trace_at_the_next_checkpoint)
{
	struct rp_ckpt ck[3] = {
		{ .offset = 0, .insn = 0 },
		{ .offset = 4096, .insn = 1000 },
		{ .offset = 8192, .insn = 2500 },
	};
	struct rp_session s;
	struct rp_thread t;

	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	t.tid = 7;
	t.ckpts = ck;
	t.nckpts = 3;
	t.insns = 3000;
	lose(0, 7, 9000, PTREC_SB_LOST_TRUNCATED);	/* in the tail */
	lose(1, 7, 100, PTREC_SB_LOST_TRUNCATED);	/* before ckpt 1 */
	lose(2, 8, 100, PTREC_SB_LOST_TRUNCATED);	/* another thread */
	s.recs = recs;
	s.nrecs = 3;
	cr_assert_eq(rp_gaps_add_lost(&s, &t), 0);
	cr_assert_eq(t.ngaps, 2);
	cr_assert_eq(t.gaps[0].reason, RP_GAP_LOST);
	cr_assert_eq(t.gaps[0].before, 1000);
	cr_assert_eq(t.gaps[0].offset, 100);
	cr_assert_eq(t.gaps[1].before, 3000);
	/* Gaps before each checkpoint, for the cursor's bookkeeping. */
	cr_assert_eq(ck[0].gap, 0);
	cr_assert_eq(ck[1].gap, 1);
	cr_assert_eq(ck[2].gap, 1);
	free(t.gaps);
}
