// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * An x86-64 instruction length and branch-class decoder for the flow
 * walker (fwalk.c): what libipt's own length decoder (not exported by
 * libipt 2.0) tells its instruction decoder, from the opcode tables of the
 * Intel SDM (Vol. 2, Appendix A).  capstone 4 costs about 4,000 Ir an
 * instruction with its operand details and prints every instruction's
 * text; this costs about 60, which is what makes decoding a cold block
 * cheaper than libipt's block decoder.  test_fwalk checks its lengths and
 * classes against capstone (libopcodes where capstone 4 has no decoder)
 * on every instruction of two real programs' code.
 */
#include <stdbool.h>
#include <string.h>

#include "fwalk.h"

/* Immediate kinds. */
enum {
	I0,	/* none */
	I1,	/* 1 byte */
	I2,	/* 2 bytes */
	IZ,	/* 2 with an operand-size prefix and no REX.W, else 4 */
	IV,	/* 8 with REX.W, else as IZ */
	I3,	/* 2 + 1 (ENTER) */
	IM,	/* moffs: 8, or 4 with an address-size prefix */
	IP,	/* far pointer (invalid in 64-bit code): 6 */
	IB,	/* rel32 branch displacement: 4 in 64-bit code */
	IG,	/* F6/F7: as I1/IZ when ModRM.reg is 0 or 1 */
	IX,	/* 0F 78: 2 with 66 or F2 (SSE4a), else none (VMREAD) */
	IC,	/* C7: as IZ when ModRM.reg is 0 (MOV), or 7 (XBEGIN's
		 * displacement) without a ModRM displacement; else none */
};

/* Opcode maps past 0F 3A: 3DNow! (0F 0F) and none (0F 39, 0F 3B-3F). */
enum { M3DNOW = 4, MNONE = 5 };

/* One-byte map: has ModRM, and its immediate. */
static const uint8_t modrm0[256] = {
#define R4 1, 1, 1, 1, 0, 0, 0, 0
	R4, R4, R4, R4, R4, R4, R4, R4,				/* 00-3f */
	[0x62] = 1, [0x63] = 1, [0x69] = 1, [0x6b] = 1,
	[0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0xc0] = 1, 1, [0xc4] = 1, 1, 1, 1,
	[0xd0] = 1, 1, 1, 1, [0xd8] = 1, 1, 1, 1, 1, 1, 1, 1,
	[0xf6] = 1, 1, [0xfe] = 1, 1,
#undef R4
};

static const uint8_t imm0[256] = {
	[0x04] = I1, [0x05] = IZ, [0x0c] = I1, [0x0d] = IZ,
	[0x14] = I1, [0x15] = IZ, [0x1c] = I1, [0x1d] = IZ,
	[0x24] = I1, [0x25] = IZ, [0x2c] = I1, [0x2d] = IZ,
	[0x34] = I1, [0x35] = IZ, [0x3c] = I1, [0x3d] = IZ,
	[0x68] = IZ, [0x69] = IZ, [0x6a] = I1, [0x6b] = I1,
	[0x70] = I1, I1, I1, I1, I1, I1, I1, I1,
	I1, I1, I1, I1, I1, I1, I1, I1,
	[0x80] = I1, IZ, I1, I1,
	[0x9a] = IP,
	[0xa0] = IM, IM, IM, IM, [0xa8] = I1, IZ,
	[0xb0] = I1, I1, I1, I1, I1, I1, I1, I1,
	IV, IV, IV, IV, IV, IV, IV, IV,
	[0xc0] = I1, I1, I2, [0xc6] = I1, IC, I3, [0xca] = I2,
	[0xcd] = I1,
	[0xd4] = I1, I1,
	[0xe0] = I1, I1, I1, I1, I1, I1, I1, I1, IB, IB, IP, I1,
	[0xf6] = IG, IG,
};

/*
 * 0F map: without ModRM (undefined opcodes too, as libipt decodes them:
 * it is libipt's walk that must be followed, even into data), and
 * immediates.
 */
static const uint8_t nomodrm1[256] = {
	[0x04] = 1, 1, 1, 1, 1, 1, 1, [0x0b] = 1, 1, [0x0e] = 1, 1,
	[0x24] = 1, 1, 1, 1,
	[0x30] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0x77] = 1,
	[0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0xa0] = 1, 1, 1, [0xa6] = 1, 1, [0xa8] = 1, 1, 1,
	[0xb9] = 1,
	[0xc8] = 1, 1, 1, 1, 1, 1, 1, 1,
	[0xff] = 1,
};

static const uint8_t imm1[256] = {
	[0x70] = I1, I1, I1, I1, [0x78] = IX,
	[0x80] = IB, IB, IB, IB, IB, IB, IB, IB,
	IB, IB, IB, IB, IB, IB, IB, IB,
	[0xa4] = I1, [0xac] = I1, [0xba] = I1,
	[0xc2] = I1, [0xc4] = I1, I1, I1,
};

static int imm_size(int kind, bool osz, bool asz, bool rexw, bool f2,
		    unsigned int reg)
{
	switch (kind) {
	case I1:
		return 1;
	case I2:
		return 2;
	case IZ:
		return osz && !rexw ? 2 : 4;
	case IV:
		return rexw ? 8 : osz ? 2 : 4;
	case I3:
		return 3;
	case IM:
		return asz ? 4 : 8;
	case IP:
		return osz && !rexw ? 4 : 6;
	case IB:
		return 4;
	case IG:
		return reg > 1 ? 0 : -1;	/* the caller's own kind */
	case IX:
		return osz || f2 ? 2 : 0;
	default:
		return 0;
	}
}

static int32_t sext(const uint8_t *p, int n)
{
	if (n == 1)
		return (int8_t)p[0];
	if (n == 2)
		return (int16_t)(p[0] | p[1] << 8);
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

int rp_fwalk_ild(const uint8_t *b, size_t n, struct rp_fwalk_insn *in)
{
	bool osz = false, asz = false, f2 = false, f3 = false;
	uint8_t rex = 0, op, modrm = 0;
	unsigned int map = 0, mod = 0, reg = 0, rm;
	size_t i = 0, len, imm_at;
	int imm = 0, kind;
	size_t disp = 0;
	bool has_modrm, vex = false;

	in->iclass = ptic_other;
	in->flags = 0;
	in->disp = 0;
	if (n > pt_max_insn_size)
		n = pt_max_insn_size;
	/* Legacy prefixes, then REX (forgotten when a prefix follows it). */
	for (;; i++) {
		if (i >= n)
			return -pte_bad_insn;
		switch (b[i]) {
		case 0x66:
			osz = true;
			rex = 0;
			continue;
		case 0x67:
			asz = true;
			rex = 0;
			continue;
		case 0xf2:
			f2 = true;
			f3 = false;
			rex = 0;
			continue;
		case 0xf3:
			f3 = true;
			f2 = false;
			rex = 0;
			continue;
		case 0xf0: case 0x2e: case 0x36: case 0x3e: case 0x26:
		case 0x64: case 0x65:
			rex = 0;
			continue;
		default:
			break;
		}
		if ((b[i] & 0xf0) == 0x40) {
			rex = b[i];
			continue;
		}
		break;
	}
	op = b[i];
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		/* VEX (3 or 2 bytes) and EVEX (4): always in 64-bit code.
		 * Their maps 0 and 1 take the legacy maps' tables.
		 */
		size_t plen = op == 0xc4 ? 3 : op == 0xc5 ? 2 : 4;

		if (i + plen >= n)
			return -pte_bad_insn;
		if (op == 0xc5) {
			map = 1;
		} else if (op == 0xc4) {
			map = b[i + 1] & 0x1f;
			if (map > M3DNOW)
				return -pte_bad_insn;
		} else {
			map = b[i + 1] & 0x03;
		}
		rex = op != 0xc5 && (b[i + 2] & 0x80) ? 0x48 : 0;
		i += plen;
		op = b[i++];
		vex = true;
	} else if (op == 0x0f) {
		if (++i >= n)
			return -pte_bad_insn;
		op = b[i++];
		map = 1;
		if (op == 0x38)
			map = 2;
		else if (op == 0x3a)
			map = 3;
		else if ((op & 0xf8) == 0x38)
			map = MNONE;	/* 0F 39, 0F 3B-3F: no map */
		else if (op == 0x0f)
			map = M3DNOW;	/* its opcode follows the operands */
		if (map > 1 && map != M3DNOW) {
			if (i >= n)
				return -pte_bad_insn;
			op = b[i++];
		}
	} else {
		i++;
	}
	has_modrm = map == 0 ? modrm0[op] : map == 1 ? !nomodrm1[op] : true;
	kind = map == 0 ? imm0[op] : map == 1 ? imm1[op] :
	       map == 3 || map == M3DNOW ? I1 : I0;
	if (has_modrm) {
		if (i >= n)
			return -pte_bad_insn;
		modrm = b[i++];
		mod = modrm >> 6;
		reg = (modrm >> 3) & 7;
		rm = modrm & 7;
		/* MOV to and from CR and DR: register operands whatever
		 * the mod bits say.
		 */
		if (map == 1 && op >= 0x20 && op <= 0x23)
			mod = 3;
		if (mod != 3) {
			if (rm == 4) {
				if (i >= n)
					return -pte_bad_insn;
				if (mod == 0 && (b[i] & 7) == 5)
					disp = 4;
				i++;
			} else if (mod == 0 && rm == 5) {
				disp = 4;
			}
			if (mod == 1)
				disp = 1;
			else if (mod == 2)
				disp = 4;
			i += disp;
		}
	}
	imm_at = i;
	if (kind == IG)
		imm = reg > 1 ? 0 : op == 0xf6 ? 1 : osz && !(rex & 8) ? 2 : 4;
	else if (kind == IC)	/* XBEGIN's only when ModRM has none */
		imm = !reg || (reg == 7 && !disp) ?
		      (osz && !(rex & 8) ? 2 : 4) : 0;
	else if (kind != I0)
		imm = imm_size(kind, osz, asz, rex & 8, f2, reg);
	len = i + (size_t)imm;
	if (len > pt_max_insn_size || len > n)
		return -pte_bad_insn;
	in->size = (uint8_t)len;
	if (vex)
		return 0;

	/* Branch classes (as libipt's decoder names them). */
	if (map == 0) {
		switch (op) {
		case 0x70: case 0x71: case 0x72: case 0x73:
		case 0x74: case 0x75: case 0x76: case 0x77:
		case 0x78: case 0x79: case 0x7a: case 0x7b:
		case 0x7c: case 0x7d: case 0x7e: case 0x7f:
		case 0xe0: case 0xe1: case 0xe2: case 0xe3:
			in->iclass = ptic_cond_jump;
			break;
		case 0xe8:
			in->iclass = ptic_call;
			break;
		case 0xe9:
		case 0xeb:
			in->iclass = ptic_jump;
			break;
		case 0xc2:
		case 0xc3:
			in->iclass = ptic_return;
			return 0;
		case 0xca:
		case 0xcb:
			in->iclass = ptic_far_return;
			return 0;
		case 0xcf:
			in->iclass = ptic_far_return;
			in->flags = RP_FWF_CPL;
			return 0;
		case 0xcc: case 0xcd: case 0xce: case 0xf1:
			in->iclass = ptic_far_call;
			in->flags = RP_FWF_CPL;
			return 0;
		case 0x9a:
			in->iclass = ptic_far_call;
			return 0;
		case 0xea:
			in->iclass = ptic_far_jump;
			return 0;
		case 0xff:
			if (reg == 2)
				in->iclass = ptic_call;
			else if (reg == 3)
				in->iclass = ptic_far_call;
			else if (reg == 4)
				in->iclass = ptic_jump;
			else if (reg == 5)
				in->iclass = ptic_far_jump;
			return 0;
		default:
			return 0;
		}
		in->flags = RP_FWF_DIRECT;
		in->disp = sext(b + imm_at, imm);
		return 0;
	}
	if (map != 1)
		return 0;
	switch (op) {
	case 0x80: case 0x81: case 0x82: case 0x83:
	case 0x84: case 0x85: case 0x86: case 0x87:
	case 0x88: case 0x89: case 0x8a: case 0x8b:
	case 0x8c: case 0x8d: case 0x8e: case 0x8f:
		in->iclass = ptic_cond_jump;
		in->flags = RP_FWF_DIRECT;
		in->disp = sext(b + imm_at, imm);
		break;
	case 0x05:
	case 0x34:
		in->iclass = ptic_far_call;
		in->flags = RP_FWF_CPL;
		break;
	case 0x07:
	case 0x35:
		in->iclass = ptic_far_return;
		in->flags = RP_FWF_CPL;
		break;
	case 0x01:
		if (modrm == 0xc1) {
			in->iclass = ptic_far_call;
		} else if (modrm == 0xc2 || modrm == 0xc3) {
			in->iclass = ptic_far_return;
			in->flags = RP_FWF_VMLR;
		} else if (modrm == 0xec) {
			in->iclass = ptic_far_return;	/* UIRET */
		}
		break;
	case 0x22:
		if (reg == 3 && !(rex & 4))
			in->flags = RP_FWF_CR3;
		break;
	case 0xc7:
		if (mod != 3 && reg == 6)
			in->flags = RP_FWF_VMPTRLD;
		break;
	case 0xae:
		if (f3 && !osz && reg == 4)
			in->iclass = ptic_ptwrite;
		break;
	default:
		break;
	}
	return 0;
}
