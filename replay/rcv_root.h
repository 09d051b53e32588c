/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine (rcv_root.c, rcv_sys.c, rcv_alias.c):
 * the pages brk(2) may change during a recording, from the heap mappings
 * the sideband and the snapshot show (docs/values.md "What brk writes");
 * a store's address as an unknown root plus a known offset (docs/values.md
 * "Stores through one root").
 */
#ifndef PTREC_RCV_ROOT_H
#define PTREC_RCV_ROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_recover;
struct win;

/* One mapping as the sideband or the snapshot shows it. */
struct rcv_root_map {
	uint64_t start, end;
	const char *path;	/* "[heap]" for the break's */
	size_t path_len;
	bool initial;		/* there when the recording began */
};

/*
 * The pages any brk may map or unmap during the recording, from every
 * mapping it showed (@m[0..@n)): [*@lo, *@hi).  False (no bound) without
 * a heap mapping, or with one there when the recording began.
 */
bool rcv_root_brk_range(const struct rcv_root_map *m, size_t n,
			uint64_t *lo, uint64_t *hi);

/* rc->root_*: rcv_root_brk_range() of the recording, once. */
bool rcv_root_range(struct rp_recover *rc, uint64_t *lo, uint64_t *hi);

/*
 * The address instruction @b's memory operand writes is the value
 * instruction @pos left in register @reg plus @off (modulo 2^64): the
 * register copied by mov, moved by lea, add and sub of known amounts
 * since, and never written otherwise.
 */
struct rcv_root_sym {
	size_t pos;
	int reg;
	uint64_t off;
};

/* Instruction @b of @w's store address as a root plus an offset: false
 * when not found (a barrier, a system call or a transfer between, no
 * writer of the register in the instructions looked at, a segment).
 */
bool rcv_root_sym(struct win *w, size_t b, struct rcv_root_sym *out);

/*
 * Is instruction @pos of @w `mov @reg, m64` with its address known (in
 * *@addr)?  Then the root value it leaves in @reg is the word there; two
 * such roots read the same value when nothing between writes that word
 * (rcv_alias.c, docs/values.md "a root read again from its word").
 */
bool rcv_root_word(struct win *w, size_t pos, int reg, uint64_t *addr);

#endif /* PTREC_RCV_ROOT_H */
