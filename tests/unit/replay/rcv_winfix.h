/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A window of the recovery engine made by hand, for the tests of what
 * runs over one (test_rcv_alias.c, test_rcv_index.c, test_rcv_why.c): up
 * to MAXI decoded instructions and their states, unknown until set(), the
 * barrier arrays the index fills, a context with nothing known; with
 * WINFIX_SNAP, ending at a fake snapshot page at PAGE (the context's
 * cached page: the end's bytes), with WINFIX_IXS, the index's state kept
 * during a pass too.  Include after rcv_fixture.h.
 */
#ifndef RCV_WINFIX_H
#define RCV_WINFIX_H

#include <stdint.h>
#include <string.h>

#include "rcv_win.h"

#define PAGE	0x10000ull
#define MAXI	8

#define WINFIX_SNAP	1u
#define WINFIX_IXS	2u

static struct rp_recover rc;
static struct win w;
static struct rcv_ins code[MAXI + 1];
static struct rcv_state st[MAXI + 1];
static uint8_t mbar[MAXI + 1], ixs[MAXI + 1];
static uint32_t nb[MAXI + 1];
static int64_t pb[MAXI + 1];

/* A window of @n instructions @in, states unknown; @opts WINFIX_*. */
static inline void win_fix(const struct rcv_ins *in, size_t n,
			   unsigned int opts)
{
	cr_assert_leq(n, MAXI);
	memset(&rc, 0, sizeof(rc));
	memset(&w, 0, sizeof(w));
	memset(st, 0, sizeof(st));
	memcpy(code, in, n * sizeof(*in));
	rc.mb_gen = 1;
	w.rc = &rc;
	w.n = n;
	w.ins = code;
	w.st = st;
	w.mbar = mbar;
	w.nb = nb;
	w.pb = pb;
	if (opts & WINFIX_IXS)
		w.ixs = ixs;
	if (opts & WINFIX_SNAP) {
		rc.snap_ok = true;
		rc.page = PAGE;
		rc.page_valid = true;
		rc.page_len = 4096;
		w.top_end = true;
	}
}

/* Register @g known, @v, in state @i. */
static inline void set(size_t i, int g, uint64_t v)
{
	st[i].r[g] = (struct rcv_val){ v, ~0ull };
}

#endif
