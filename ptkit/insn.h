/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ptkit/, shared by record/, tests and tools/ptgen: what the PT encoder
 * needs to know of an instruction.
 */
#ifndef PTREC_RECORD_INSN_H
#define PTREC_RECORD_INSN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Instruction classes by the packets they cause in a user-only trace
 * (Intel SDM Vol. 3C, 33.4.2.2 "Indirect Transfer COFI", Table 33-1 COFI
 * types).
 */
enum insn_class {
	IC_OTHER,	/* no change of flow */
	IC_COND,	/* Jcc, J*CXZ, LOOP*: one TNT bit */
	IC_JMP,		/* direct near jump: no packet */
	IC_JMP_IND,	/* indirect near jump: TIP */
	IC_CALL,	/* direct near call: no packet, pushes NLIP */
	IC_CALL_IND,	/* indirect near call: TIP, pushes NLIP */
	IC_RET,		/* near return: TNT (compressed) or TIP */
	IC_FAR,		/* SYSCALL, SYSENTER, INT n, far CALL/JMP/RET, IRET:
			 * leaves user space (or CS changes); TIP.PGD */
};

struct insn {
	uint8_t len;
	uint8_t cls;		/* enum insn_class */
	bool rep;		/* REP/REPNE string instruction: iterates */
	bool pushf;		/* PUSHF/PUSHFQ: stores RFLAGS (its TF too) */
	bool popf;		/* POPF/POPFQ: loads RFLAGS (may set TF) */
	bool trap;		/* INT3, INT1, INT n, INTO: may raise SIGTRAP */
};

struct insn_decoder;

/* Returns 0 or -ENOMEM / -EIO (capstone could not start). */
int insn_decoder_new(struct insn_decoder **d);
void insn_decoder_free(struct insn_decoder *d);

/*
 * Decodes the instruction in @buf (@n bytes, up to 15) at @ip.  Returns 0,
 * or -EILSEQ when the bytes are no valid instruction.
 */
int insn_decode(struct insn_decoder *d, const uint8_t *buf, unsigned int n,
		uint64_t ip, struct insn *out);

#endif
