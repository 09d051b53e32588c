// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The XSAVE area's layout (rp_xsave_layout(), replay.h): the standard
 * format places each state component at the offset CPUID leaf 0DH gives
 * on the processor that saved it (Intel SDM Vol. 1, 13.4.3 "Extended
 * Region of an XSAVE Area"), which differs between vendors: Intel's
 * processors keep the MPX components' 128 bytes at 960 and 1024 whether
 * or not they have MPX, so the opmask is at 1088; AMD's (Zen 4 and 5, no
 * MPX) pack AVX-512 right after AVX, the opmask at 832.  The snapshot
 * keeps the area as ptrace gave it, not those offsets, so the layout is
 * told here from XCR0 and the length, and only for the layouts known to
 * exist (read off CPUID on those processors): an area of any other
 * length gives no AVX-512 register rather than a guess.  GDB 14 tells
 * them apart the same way (i387_guess_xsave_layout()); GDB 13 reads the
 * Intel layout alone.
 */
#include <string.h>

#include "replay.h"

#define XCR0_AVX	(1ull << 2)
#define XCR0_MPX	(3ull << 3)
#define XCR0_AVX512	(7ull << 5)
#define XCR0_PKRU	(1ull << 9)

bool rp_xsave_layout(const uint8_t *xs, size_t len,
		     struct rp_xsave_layout *lay)
{
	uint64_t xcr0;

	memset(lay, 0, sizeof(*lay));
	if (!xs || len < 576)
		return false;
	memcpy(&xcr0, xs + 464, 8);
	lay->xcr0 = xcr0;
	lay->len = (uint32_t)len;
	if ((xcr0 & XCR0_AVX) && len >= 576 + 256)
		lay->avx = 576;
	if ((xcr0 & XCR0_AVX512) != XCR0_AVX512)
		return true;
	/* AMD: AVX, then opmask (64), ZMM_Hi256 (512), Hi16_ZMM (1024),
	 * PKRU (8) when enabled: CPUID on Zen 4 and 5.
	 */
	if (!(xcr0 & XCR0_MPX) &&
	    len == ((xcr0 & XCR0_PKRU) ? 2440u : 2432u)) {
		lay->opmask = 832;
		lay->zmm_hi256 = 896;
		lay->hi16_zmm = 1408;
		lay->pkru = (xcr0 & XCR0_PKRU) ? 2432 : 0;
		return true;
	}
	/* Intel: MPX's slots kept (960, 1024), then 1088, 1152, 1664 and
	 * PKRU at 2688; later components (AMX...) after it.
	 */
	if (len >= 2688) {
		lay->opmask = 1088;
		lay->zmm_hi256 = 1152;
		lay->hi16_zmm = 1664;
		lay->pkru = (xcr0 & XCR0_PKRU) && len >= 2696 ? 2688 : 0;
		return true;
	}
	return false;
}
