/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ptkit/, shared by record/ and tools/ptgen: one thread's Intel PT packet
 * stream, produced as a Skylake-class CPU would with user-only tracing
 * (CPL > 0), BranchEn, TSCEn and return compression, and written with
 * libipt's encoder.
 */
#ifndef PTREC_RECORD_PTENC_H
#define PTREC_RECORD_PTENC_H

#include <stdbool.h>
#include <stdint.h>

#include "insn.h"

/* Depth of the return-compression stack the decoder keeps (libipt: 64). */
#define PTENC_RETSTACK 64

struct pt_encoder;

struct ptenc {
	int fd;
	char *path;
	struct pt_encoder *enc;
	uint8_t *buf;
	size_t bufsz;
	uint64_t tnt;			/* pending TNT bits, oldest highest */
	unsigned int ntnt;
	unsigned int tnt_max;		/* 6: short TNT; 47: long TNT */
	uint64_t rs[PTENC_RETSTACK];	/* return-compression stack (ring) */
	unsigned int rs_top, rs_n;
	uint64_t last_ip;		/* IP compression reference */
	bool have_ip;
	/* MODE.Exec says 32-bit code (CS.L 0, CS.D 1) instead of 64-bit */
	bool mode32;
	bool enabled;			/* PacketEn */
	bool no_retcomp;		/* DisRETC: every RET gets a TIP */
	uint64_t psb_period;		/* bytes between PSBs */
	uint64_t psb_mark;		/* stream offset of the last PSB */
	uint64_t written;		/* bytes written to the file */
	uint64_t tsc_period;		/* instructions between TSC packets */
	uint64_t since_tsc;
	int error;			/* sticky negative errno */
};

/* Creates @path.  Returns 0 or a negative errno. */
int ptenc_open(struct ptenc *e, const char *path, uint64_t psb_period,
	       bool long_tnt);

/* Stream start: PSB+ with tracing enabled but PacketEn clear. */
int ptenc_start(struct ptenc *e, uint64_t tsc);

/* PacketEn set at @ip: TSC, MODE.Exec, TIP.PGE. */
int ptenc_enable(struct ptenc *e, uint64_t ip, uint64_t tsc);

/* Synchronous exit to the kernel (SYSCALL and other far transfers):
 * TIP.PGD with the IP suppressed, as the CPU does for CPL filtering.
 */
int ptenc_disable_sync(struct ptenc *e);

/* Asynchronous exit (signal, fault, preemption) before @ip executed:
 * FUP(@ip), TIP.PGD.
 */
int ptenc_disable_async(struct ptenc *e, uint64_t ip);

/* OVF (33.4.2.16), written while PacketEn is clear: what ran since the
 * trace was disabled is not known to the decoder (a gap); a TIP.PGE
 * (ptenc_enable()) follows.
 */
int ptenc_overflow(struct ptenc *e);

/*
 * The PTWRITE at @ip wrote @payload of @size bytes (4 or 8), before it
 * retires: PTW with its IP bit set, then FUP(@ip), as a CPU does with
 * RTIT_CTL.FUPonPTW (SDM Vol. 3C 33.4.2.21).  The caller then retires it
 * as any instruction without a flow change.
 */
int ptenc_ptwrite(struct ptenc *e, uint64_t ip, uint64_t payload,
		  unsigned int size);

/* A transaction begins (@intx), commits (neither) or aborts (@abrt) at
 * the instruction at @ip, before it runs: MODE.TSX, FUP(@ip) (33.4.2.8).
 * An abort's transfer to its handler is the caller's (an async TIP).
 */
int ptenc_tsx(struct ptenc *e, uint64_t ip, bool intx, bool abrt);

/* The transaction aborts at the instruction at @ip, before it runs, and
 * goes on at its fallback @to: MODE.TSX (TXAbort), FUP(@ip), TIP(@to).
 */
int ptenc_tsx_abort(struct ptenc *e, uint64_t ip, uint64_t to);

/*
 * An MWAIT at @ip with @hints sleeps in C-state @state (sub-state @sub)
 * down to @deepest and wakes on an interrupt: MWAIT, PWRE, EXSTOP with
 * FUP(@ip), PWRX (33.4.2.24-27).
 */
int ptenc_power(struct ptenc *e, uint64_t ip, uint32_t hints,
		uint8_t state, uint8_t sub, uint8_t deepest);

/* The core:bus ratio changed to @ratio: CBR (33.4.2.13). */
int ptenc_cbr(struct ptenc *e, uint8_t ratio);

/*
 * The instruction @in at @ip retired and execution continues at @next in
 * user space.  Emits what its class requires.  Returns 0, a negative errno,
 * or 1 when @next is impossible for the class (the caller must treat the
 * transfer as asynchronous).
 */
int ptenc_retire(struct ptenc *e, const struct insn *in, uint64_t ip,
		 uint64_t next);

/* At an instruction boundary while enabled: PSB+ when the period is due,
 * TSC when the instruction period is due.
 */
int ptenc_boundary(struct ptenc *e, uint64_t ip, uint64_t tsc);

/* Bytes produced so far, buffered ones included. */
uint64_t ptenc_bytes(const struct ptenc *e);

/* Flush, fsync, close.  Returns 0 or the first error. */
int ptenc_close(struct ptenc *e);

/* Writes the complete packets buffered so far (a pending TNT stays), so a
 * full disk shows at once.  Returns 0 or the write's negative errno.
 */
int ptenc_flush(struct ptenc *e);

#endif
