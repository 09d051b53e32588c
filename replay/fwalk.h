/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fwalk: a flow walker that reproduces libipt's instruction decoder
 * (pt_insn_next/pt_insn_event, libipt 2.0) over a raw PT stream, decoding
 * each basic block once into a cache instead of every instruction each
 * time it runs (the idea libxdc uses; issue #19).  libipt's query decoder
 * underneath reads the packets (TNT bits, TIP targets, events), so its
 * packet semantics are libipt's by construction; what fwalk replaces is
 * the instruction layer: a block's instructions, end address and end
 * class come from a length decoder (fw_ild.c) once and are then walked
 * against the TNT bits and TIP targets the query decoder hands out.
 *
 * The index pass uses it through blksrc.h (docs/performance.md, "A
 * block-cache flow walker").  Only 64-bit code; 16- and 32-bit code is
 * -pte_not_supported for the walker's caller to hand to libipt.
 */
#ifndef PTREC_REPLAY_FWALK_H
#define PTREC_REPLAY_FWALK_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads up to @size code bytes at @ip into @buf: the number read (at
 * least 1), or a negative pt_error_code (-pte_nomap where nothing is
 * mapped at @ip).
 */
typedef int (*rp_fwalk_read_fn)(void *ctx, uint8_t *buf, size_t size,
				uint64_t ip);

/* Called with each instruction's address, in order, when set. */
typedef void (*rp_fwalk_insn_fn)(void *ctx, uint64_t ip);

/* Called with each event the walker processed, when set. */
typedef void (*rp_fwalk_event_fn)(void *ctx, const struct pt_event *ev);

struct rp_fwalk;

/* What the walker knows of an instruction (rp_fwalk_ild()). */
enum {
	RP_FWF_DIRECT = 1,	/* branch target in the instruction (@disp) */
	RP_FWF_CPL = 2,		/* changes CPL: INT*, SYSCALL/SYSRET,
				 * SYSENTER/SYSEXIT, IRET */
	RP_FWF_CR3 = 4,		/* MOV to CR3 */
	RP_FWF_VMLR = 8,	/* VMLAUNCH, VMRESUME */
	RP_FWF_VMPTRLD = 16,
};

struct rp_fwalk_insn {
	uint64_t ip;
	int32_t disp;		/* from the next instruction */
	uint8_t size;
	uint8_t iclass;		/* enum pt_insn_class */
	uint8_t flags;		/* RP_FWF_* */
};

/*
 * The length and branch class of the 64-bit instruction in @buf (@n
 * bytes): 0, or -pte_bad_insn when @buf holds no whole instruction.
 * @in->ip is left as it is.
 */
int rp_fwalk_ild(const uint8_t *buf, size_t n, struct rp_fwalk_insn *in);

/*
 * Another length decoder in rp_fwalk_ild()'s place, before the first
 * decode (tests/bench/fwraw measures capstone's cost with it).
 */
typedef int (*rp_fwalk_ild_fn)(const uint8_t *buf, size_t n,
			       struct rp_fwalk_insn *in);
void rp_fwalk_set_ild(struct rp_fwalk *fw, rp_fwalk_ild_fn ild);

/* NULL when out of memory or capstone cannot start. */
struct rp_fwalk *rp_fwalk_new(const struct pt_config *cfg,
			      rp_fwalk_read_fn read, void *read_ctx);
void rp_fwalk_free(struct rp_fwalk *fw);

/* Forget every cached block (the code changed). */
void rp_fwalk_flush(struct rp_fwalk *fw);

/*
 * As libipt's pt_insn_sync_forward(), pt_insn_next() and pt_insn_event():
 * rp_fwalk_next() decodes one or more instructions (a block's worth when
 * no event is pending) and adds the number decoded to *@ninsn (each
 * reported to @insn_fn when set), returning what pt_insn_next() returns
 * after the last of them.  rp_fwalk_event() processes the pending event
 * (when @ev, a copy of it).
 */
int rp_fwalk_sync_forward(struct rp_fwalk *fw);
/* As pt_insn_sync_set(): from the PSB at @off (where an index range
 * starts).
 */
int rp_fwalk_sync_set(struct rp_fwalk *fw, uint64_t off);
int rp_fwalk_next(struct rp_fwalk *fw, uint64_t *ninsn,
		  rp_fwalk_insn_fn insn_fn, void *ctx);
int rp_fwalk_event(struct rp_fwalk *fw, struct pt_event *ev);
int rp_fwalk_get_offset(const struct rp_fwalk *fw, uint64_t *off);
int rp_fwalk_get_sync_offset(const struct rp_fwalk *fw, uint64_t *off);

/*
 * The index pass's units (blksrc.h): rp_fwalk_next() returns after the
 * first instruction that is neither a conditional jump nor a plain one
 * (a call, return, jump, far transfer, PTWRITE, or one that binds an
 * event), as libipt's block decoder ends its blocks at calls and jumps.
 */
void rp_fwalk_set_units(struct rp_fwalk *fw, bool on);
/* The last instruction rp_fwalk_next() delivered: its address and class
 * (where a unit ends with one; an error may end it before).
 */
void rp_fwalk_last(const struct rp_fwalk *fw, uint64_t *ip,
		   enum pt_insn_class *iclass);
/* Where decoding goes on (the next instruction's address), and in what
 * mode.
 */
uint64_t rp_fwalk_ip(const struct rp_fwalk *fw);
enum pt_exec_mode rp_fwalk_mode(const struct rp_fwalk *fw);

/*
 * The plain loop over the whole stream (tests/bench/iptraw's): decode
 * until the end, resyncing forward after each error.  Counts instructions
 * and errors; each instruction and event to the callbacks when set.
 */
int rp_fwalk_run(struct rp_fwalk *fw, uint64_t *insns, uint64_t *errors,
		 rp_fwalk_insn_fn insn_fn, rp_fwalk_event_fn ev_fn,
		 void *ctx);

/* Blocks decoded into the cache since rp_fwalk_new() (for benches). */
uint64_t rp_fwalk_blocks_decoded(const struct rp_fwalk *fw);

#endif
