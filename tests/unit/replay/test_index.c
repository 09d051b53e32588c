// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index planner (replay/index.c): ranges for parallel workers start at
 * PSBs that carry a FUP, or carry none but where tracing resumes after
 * them is known (the PSB scan's resume), at or after equal shares of the
 * stream, each ending where the next starts; no usable PSB, one range.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "index.h"

static struct rp_psb psbs[16];
static struct rp_psb_resume resume[16];
static struct rp_thread t;

/* A PSB every 1000 bytes; those in @nofup (a bit mask) carry no FUP. */
static void stream(size_t n, unsigned int nofup)
{
	size_t i;

	memset(&t, 0, sizeof(t));
	memset(psbs, 0, sizeof(psbs));
	memset(resume, 0, sizeof(resume));
	for (i = 0; i < n; i++) {
		psbs[i].offset = i * 1000;
		psbs[i].fup = nofup & (1u << i) ? 0 : 0x401000 + i;
	}
	t.psbs = psbs;
	t.resume = resume;
	t.npsbs = n;
	t.pt_size = n * 1000;
}

Test(index, two_halves)
{
	struct range r[RANGE_MAX];

	stream(10, 0);
	cr_assert_eq(rp_index_plan(NULL, &t, r, 2), 2);
	cr_assert_eq(r[0].first_psb, SIZE_MAX);
	cr_assert_eq(r[0].stop_psb, 5);
	cr_assert_eq(r[1].first_psb, 5);
	cr_assert_eq(r[1].stop_psb, SIZE_MAX);
	cr_assert(r[0].progress && !r[1].progress);
	cr_assert_eq(r[1].t, &t);
}

Test(index, only_psbs_with_a_fup_or_a_known_resume)
{
	struct range r[RANGE_MAX];

	/* PSBs 3 to 6 have no FUP (tracing off, as in kAFL traces), and
	 * where tracing resumes after them is not known.
	 */
	stream(10, 0x78);
	cr_assert_eq(rp_index_plan(NULL, &t, r, 3), 3);
	cr_assert_eq(r[1].first_psb, 7);
	cr_assert_eq(r[2].first_psb, 8);	/* after range 1's */
	cr_assert_eq(r[1].stop_psb, 8);
}

Test(index, nothing_to_cut)
{
	struct range r[RANGE_MAX];

	stream(1, 0);
	cr_assert_eq(rp_index_plan(NULL, &t, r, 4), 1);
	cr_assert_eq(r[0].stop_psb, SIZE_MAX);
	stream(10, 0x3fe);	/* only the first PSB has a FUP */
	cr_assert_eq(rp_index_plan(NULL, &t, r, 2), 1);
}

Test(index, psbs_without_fup_where_tracing_resumes)
{
	struct range r[RANGE_MAX];

	/* Every PSB but the first without a FUP, as in DynamoRIO's
	 * simple-glibc copies; the TIP.PGE after PSB 5 is known, the one
	 * after PSB 3 is not.
	 */
	stream(10, 0x3fe);
	resume[5].offset = 5100;
	resume[5].ip = 0x4016a0;
	cr_assert_eq(rp_index_plan(NULL, &t, r, 4), 2);
	cr_assert_eq(r[1].first_psb, 5);
	cr_assert_eq(r[0].stop_psb, 5);
	resume[3].offset = 3100;
	cr_assert_eq(rp_index_plan(NULL, &t, r, 4), 3);
	cr_assert_eq(r[1].first_psb, 3);
	cr_assert_eq(r[2].first_psb, 5);
}
