/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the unit tests of the stack escape analysis (replay/rcv_escape.c)
 * share: test_rcv_escape.c (the rules, and pointers laundered through
 * the general-purpose registers and flags) and test_rcv_escape_state.c
 * (through the vector, x87 and mask registers, the segment bases and
 * what the kernel keeps).  After rcv_fixture.h, whose decoder INS uses.
 */
#ifndef RCV_ESC_FIXTURE_H
#define RCV_ESC_FIXTURE_H

#include <string.h>

#include "rcv_esc.h"
#include "replay/rcv_fixture.h"

/* Index of the first instruction of @in[0..@n) that escapes after
 * @init (rcv_esc_init(), rcv_esc_init_local()), or -1.
 */
static inline int first_escape_after(void (*init)(struct rcv_esc *),
				     const struct rcv_ins *in, int n)
{
	struct rcv_esc e;
	int i, r = -1;

	memset(&e, 0, sizeof(e));
	init(&e);
	for (i = 0; i < n && r < 0; i++)
		if (rcv_esc_step(&e, &in[i], 0))
			r = i;
	rcv_esc_fini(&e);
	return r;
}

/* Index of the instruction that escapes in @in[0..@n), or -1. */
static inline int first_escape(const struct rcv_ins *in, int n)
{
	return first_escape_after(rcv_esc_init, in, n);
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define LEA_RAX		INS("\x48\x8d\x44\x24\x08")	/* lea rax, [rsp+8] */

#endif
