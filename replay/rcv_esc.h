/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the escape analysis (rcv_escape.c, its per-instruction
 * rules, and rcv_escmem.c, its stack model): the taints a register or
 * slot carries and the model's functions the rules call.  It exists
 * because the analysis was split in two files; nothing else includes it
 * (the rest of libptrec sees rcv_esc_* through rcv_internal.h).
 */
#ifndef PTREC_RCV_ESC_H
#define PTREC_RCV_ESC_H

#include "rcv_win.h"

/*
 * WHOLE: a whole own-stack pointer or a clean value, which of the two not
 * depending on where the stack lies (cmov with clean flags between them:
 * ld.so's dfs_traversal gets a stack flag's address or NULL, and tests
 * it): tested for zero, it gives clean flags; anything else takes it as
 * MAYBE.
 */
enum { CLEAN, STK, MAYBE, WHOLE };

/* A new epoch at [@lo, @hi] from root @root's origin (UINT32_MAX: new). */
uint32_t rcv_esc_ep_new(struct rcv_esc *e, uint32_t root, int64_t lo,
			int64_t hi);
/* Register @g gets taint @t (STK: offset @d of epoch @ep). */
void rcv_esc_set_val(struct rcv_esc *e, int g, uint8_t t, uint32_t ep,
		     int64_t d);
/* As rcv_esc_set_val() with the epoch of register @src (-1: a new root). */
void rcv_esc_set_reg(struct rcv_esc *e, int g, uint8_t t, int src, int64_t d);
/* What lies under rsp, but for @margin bytes (the red zone), is dead. */
void rcv_esc_slots_dead(struct rcv_esc *e, int64_t margin);
/* May any stack slot hold a stack-derived value? */
bool rcv_esc_any_slot(const struct rcv_esc *e);
/*
 * Where memory operand @o points: 2 the own stack at offset *@d of epoch
 * *@ep, 1 the own stack, 0 maybe elsewhere; *@tainted: an address
 * register may be stack-derived.
 */
int rcv_esc_at(const struct rcv_esc *e, const struct rcv_op *o,
	       uint32_t *ep, int64_t *d, bool *tainted);
/* May a slot in the save area at offset @d of epoch @ep hold one? */
bool rcv_esc_area_tainted(const struct rcv_esc *e, uint32_t ep, int64_t d);
/* The taint of @size bytes loaded through @o (STK: at *@vep, *@vd). */
uint8_t rcv_esc_load_v(const struct rcv_esc *e, const struct rcv_op *o,
		       unsigned int size, uint32_t *vep, int64_t *vd);
uint8_t rcv_esc_load(const struct rcv_esc *e, const struct rcv_op *o,
		     unsigned int size);
/* A store of @size bytes of taint @vt (STK: at @vep/@vd) through @o:
 * true when it is an escape.
 */
bool rcv_esc_store_v(struct rcv_esc *e, const struct rcv_op *o,
		     unsigned int size, uint8_t vt, uint32_t vep, int64_t vd);
bool rcv_esc_store(struct rcv_esc *e, const struct rcv_op *o,
		   unsigned int size, uint8_t vt);
/* A store of register @g's whole value. */
bool rcv_esc_store_reg(struct rcv_esc *e, const struct rcv_op *o, int g);

/*
 * The prologue's pushes alone (e->obj, rcv_escmem.c): is a pointer made
 * into @g at @ep/@d one into a C object; @g gets one (clean, its place
 * kept); the prologue's step over @in (true: a push of it).
 */
bool rcv_esc_obj_ptr(const struct rcv_esc *e, int g, uint32_t ep, int64_t d);
void rcv_esc_obj_set(struct rcv_esc *e, int g, uint32_t ep, int64_t d);
bool rcv_esc_prologue(struct rcv_esc *e, const struct rcv_ins *in);

/*
 * An undecoded VEX/EVEX instruction's general-purpose source (kmov k, r):
 * a stack-derived one taints the vector state (rcv_escwalk.c, after
 * rcv_esc_step()).
 */
void rcv_esc_vex_gpr(struct rcv_esc *e, const struct rcv_ins *in,
		     const uint8_t *raw, size_t len);

#endif
