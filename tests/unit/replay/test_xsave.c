// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/xsave.c: the XSAVE area's layout told from its XCR0
 * and length, for the layouts CPUID leaf 0DH gives on processors with
 * AVX-512 (Intel's, the opmask at 1088; AMD's Zen 4 and 5, at 832) and
 * none for any other length.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "replay.h"

static uint8_t xs[4096];

static void with_xcr0(uint64_t xcr0)
{
	memset(xs, 0, sizeof(xs));
	memcpy(xs + 464, &xcr0, 8);
}

Test(xsave, amd_zen4_layout)
{
	struct rp_xsave_layout l;

	with_xcr0(0xe7);
	cr_assert(rp_xsave_layout(xs, 2432, &l));
	cr_assert_eq(l.avx, 576);
	cr_assert_eq(l.opmask, 832);
	cr_assert_eq(l.zmm_hi256, 896);
	cr_assert_eq(l.hi16_zmm, 1408);
	cr_assert_eq(l.pkru, 0);
	with_xcr0(0x2e7);		/* with PKRU */
	cr_assert(rp_xsave_layout(xs, 2440, &l));
	cr_assert_eq(l.opmask, 832);
	cr_assert_eq(l.pkru, 2432);
}

Test(xsave, intel_layout)
{
	struct rp_xsave_layout l;

	with_xcr0(0xe7);
	cr_assert(rp_xsave_layout(xs, 2688, &l));
	cr_assert_eq(l.opmask, 1088);
	cr_assert_eq(l.zmm_hi256, 1152);
	cr_assert_eq(l.hi16_zmm, 1664);
	with_xcr0(0x2ff);		/* MPX and PKRU too */
	cr_assert(rp_xsave_layout(xs, 2696, &l));
	cr_assert_eq(l.opmask, 1088);
	cr_assert_eq(l.pkru, 2688);
	/* AMX after it: the Linux user size with AMX on */
	with_xcr0(0x602e7);
	cr_assert(rp_xsave_layout(xs, 11008, &l));
	cr_assert_eq(l.opmask, 1088);
}

/* Any other length with AVX-512 enabled: not a layout known, no guess. */
Test(xsave, unknown_layouts_refused)
{
	struct rp_xsave_layout l;

	with_xcr0(0xe7);
	cr_assert_not(rp_xsave_layout(xs, 2500, &l));
	cr_assert_eq(l.opmask, 0);
	cr_assert_not(rp_xsave_layout(xs, 2440, &l));	/* no PKRU bit */
	with_xcr0(0xff);		/* MPX: never AMD's packed layout */
	cr_assert_not(rp_xsave_layout(xs, 2432, &l));
	cr_assert_not(rp_xsave_layout(NULL, 2688, &l));
}

/* No AVX-512: AVX alone, at 576, whatever the vendor. */
Test(xsave, avx_only)
{
	struct rp_xsave_layout l;

	with_xcr0(0x7);
	cr_assert(rp_xsave_layout(xs, 832, &l));
	cr_assert_eq(l.avx, 576);
	cr_assert_eq(l.opmask, 0);
	with_xcr0(0x3);
	cr_assert(rp_xsave_layout(xs, 512 + 64, &l));
	cr_assert_eq(l.avx, 0);
}
