/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the recovery engine's decoder (rcv_decode.c) and its tables
 * of capstone 4's ids and registers (rcv_dclass.c): it exists because
 * the decoder was split in two files; nothing else includes it (the rest
 * of libptrec sees rcv_cond_jump(), rcv_cond_of() and the others through
 * rcv_internal.h).
 */
#ifndef PTREC_RCV_DCLASS_H
#define PTREC_RCV_DCLASS_H

#include <stdbool.h>
#include <stdint.h>

struct rcv_ins;

/* Capstone register -> GPR, size in bytes, shift; false for others. */
bool rcv_cs_gpr(unsigned int r, int *g, int *size, int *shift);
/* Capstone register -> xmm number (0..15) and size; false for others. */
bool rcv_cs_xmm(unsigned int r, int *n, int *size);
/* Writes memory without an explicit operand (stos, push, xsave...). */
bool rcv_cs_implicit_store(unsigned int id);
/* rflags bits capstone's eflags field @e says are written, read. */
uint64_t rcv_cs_flags_written(uint64_t e);
uint64_t rcv_cs_flags_read(uint64_t e);
/* The first (destination) operand is only read (cmp, push, jcc...). */
bool rcv_cs_op0_read_only(unsigned int id, unsigned int nops);
/* An x87/SSE state load: its area's size and access corrected. */
bool rcv_cs_state_load(struct rcv_ins *in);
/* An x87 memory operand's access corrected; true for a load. */
bool rcv_cs_x87_mem(struct rcv_ins *in);
/* Register effects rcv_sem.c models itself. */
bool rcv_cs_modelled(unsigned int id);

#endif /* PTREC_RCV_DCLASS_H */
