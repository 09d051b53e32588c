// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Instruction length and branch class, from Capstone's x86-64 decoder.
 * Only what decides PT packets matters here: whether control flow may
 * change, and whether the target is in the instruction (direct) or not.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>

#include "insn.h"

struct insn_decoder {
	csh cs;
	cs_insn *ci;
};

int insn_decoder_new(struct insn_decoder **dp)
{
	struct insn_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		return -EIO;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->ci = cs_malloc(d->cs);
	if (!d->ci) {
		cs_close(&d->cs);
		free(d);
		return -ENOMEM;
	}
	*dp = d;
	return 0;
}

void insn_decoder_free(struct insn_decoder *d)
{
	if (!d)
		return;
	cs_free(d->ci, 1);
	cs_close(&d->cs);
	free(d);
}

static bool has_group(const cs_detail *det, uint8_t grp)
{
	uint8_t i;

	for (i = 0; i < det->groups_count; i++)
		if (det->groups[i] == grp)
			return true;
	return false;
}

/* Direct branches carry their target as an immediate operand. */
static bool is_direct(const cs_x86 *x)
{
	return x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
}

static enum insn_class classify(const cs_insn *ci)
{
	const cs_detail *det = ci->detail;
	const cs_x86 *x = &det->x86;

	switch (ci->id) {
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:
	case X86_INS_INT1:
	case X86_INS_INT3:
	case X86_INS_INTO:
	case X86_INS_LCALL:
	case X86_INS_LJMP:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
		return IC_FAR;
	case X86_INS_RET:
		return IC_RET;
	/*
	 * In Capstone's jump group, but no branch for PT: it falls through
	 * (an abort's transfer to its fallback is an asynchronous TIP), as
	 * libipt decodes it.
	 */
	case X86_INS_XBEGIN:
		return IC_OTHER;
	/* Capstone 4 leaves LOOP* out of its jump group: name them all. */
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JRCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JCXZ:
		return IC_COND;
	case X86_INS_CALL:
		return is_direct(x) ? IC_CALL : IC_CALL_IND;
	case X86_INS_JMP:
		return is_direct(x) ? IC_JMP : IC_JMP_IND;
	default:
		break;
	}
	/* Jcc, JRCXZ/JECXZ, LOOP/LOOPE/LOOPNE. */
	if (has_group(det, X86_GRP_JUMP))
		return IC_COND;
	return IC_OTHER;
}

int insn_decode(struct insn_decoder *d, const uint8_t *buf, unsigned int n,
		uint64_t ip, struct insn *out)
{
	const uint8_t *code = buf;
	size_t size = n;
	uint64_t addr = ip;
	const cs_x86 *x;

	if (!cs_disasm_iter(d->cs, &code, &size, &addr, d->ci))
		return -EILSEQ;
	x = &d->ci->detail->x86;
	out->len = (uint8_t)d->ci->size;
	out->cls = (uint8_t)classify(d->ci);
	/* F2/F3 also prefix branches (BND); only string ops iterate. */
	out->rep = out->cls == IC_OTHER &&
		   (x->prefix[0] == X86_PREFIX_REP ||
		    x->prefix[0] == X86_PREFIX_REPNE);
	out->pushf = d->ci->id == X86_INS_PUSHF || d->ci->id == X86_INS_PUSHFQ;
	out->popf = d->ci->id == X86_INS_POPF || d->ci->id == X86_INS_POPFQ;
	out->trap = d->ci->id == X86_INS_INT3 || d->ci->id == X86_INS_INT1 ||
		    d->ci->id == X86_INS_INT || d->ci->id == X86_INS_INTO;
	return 0;
}
