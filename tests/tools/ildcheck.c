// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * ildcheck: the flow walker's length and branch-class decoder
 * (replay/fw_ild.c) against capstone, differentially, on every
 * instruction of the given files' code (tests/fwalk/run.sh):
 *
 *   ildcheck ELF...          every executable section, swept linearly
 *   ildcheck --raw FILE...   the whole file as code (libxdc's page dumps,
 *                            code and data: only where capstone decodes)
 *   ildcheck --random N      N random byte strings (a fixed seed), each
 *                            against libipt alone: prefixes, escapes,
 *                            VEX/EVEX and opcodes drawn more often than
 *                            chance would
 *
 * At every offset, fw_ild must say what libipt's own decoder says (its
 * length decoder is not exported: a pt_insn decoder reads the bytes through
 * an image callback, at the IP a TIP.PGE gives it, and a taken TNT bit
 * shows a direct branch's target): no instruction, or the same length,
 * class and direct target; that decides the walk, whatever the bytes (data
 * jumped into on damaged trace included).  Then, at each offset capstone
 * decodes, fw_ild must also give the same length, the same class as libipt
 * names it (capstone's instruction ids mapped as in
 * libipt's decoder: Jcc/LOOP/JrCXZ conditional, near and far CALL, JMP
 * and RET, INT/SYSCALL/SYSENTER/VMCALL far calls, IRET/SYSRET/SYSEXIT/
 * VMLAUNCH/VMRESUME far returns), the same direct target and the same
 * event bindings (MOV to CR3, VMPTRLD, CPL changes).  Where capstone 4
 * has no decoder (AVX-512 mask instructions, PTWRITE), libopcodes' length
 * and mnemonic.  Bytes neither decodes are skipped, one at a time.
 * Prints the count and exits 1 at the first mismatch, naming the file,
 * the address and the instruction.
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "fwalk.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"	/* its write_file */
#include "pkbuild.h"
#pragma GCC diagnostic pop
#include "../bench/rawpt.h"

static csh cs;
static cs_insn *ci;
static struct dis *dis;
static uint64_t compared, by_opcodes, by_libipt;
static bool raw;

/* ---- libipt's own decoder, as the oracle */

#define ORACLE_IP 0x10000000ull

static struct pt_insn_decoder *oracle;
static const uint8_t *oracle_code;
static size_t oracle_len;
static uint8_t oracle_pt[256];

static int oracle_read(uint8_t *buf, size_t size,
		       const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	(void)asid;
	(void)ctx;
	if (ip < ORACLE_IP || ip - ORACLE_IP >= oracle_len)
		return -pte_nomap;
	if (size > oracle_len - (ip - ORACLE_IP))
		size = oracle_len - (ip - ORACLE_IP);
	memcpy(buf, oracle_code + (ip - ORACLE_IP), size);
	return (int)size;
}

/* PSB, MODE.Exec (64-bit), PSBEND, TIP.PGE at ORACLE_IP, a taken TNT. */
static int oracle_new(void)
{
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_encoder *enc;
	struct pt_config cfg;
	struct pt_packet *p;
	uint64_t len = 0;
	size_t i;
	int ret = 0;

	pt_config_init(&cfg);
	cfg.begin = oracle_pt;
	cfg.end = oracle_pt + sizeof(oracle_pt);
	add(ppt_psb);
	p = add(ppt_mode);
	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec.csl = 1;
	add(ppt_psbend);
	ip(ppt_tip_pge, ORACLE_IP);
	p = add(ppt_tnt_8);
	p->payload.tnt.bit_size = 1;
	p->payload.tnt.payload = 1;
	enc = pt_alloc_encoder(&cfg);
	for (i = 0; enc && i < npk && ret >= 0; i++)
		ret = pt_enc_next(enc, &pk[i]);
	if (!enc || ret < 0 || !image)
		return -1;
	pt_enc_get_offset(enc, &len);
	pt_free_encoder(enc);
	cfg.end = oracle_pt + len;
	pt_image_set_callback(image, oracle_read, NULL);
	oracle = pt_insn_alloc_decoder(&cfg);
	return oracle ? pt_insn_set_image(oracle, image) : -1;
}

/*
 * What libipt decodes at @p (@n bytes): 0 and @in, or its error.  A
 * direct branch's target is where the next pt_insn_next() is.
 */
static int oracle_decode(const uint8_t *p, size_t n, struct rp_fwalk_insn *in)
{
	struct pt_insn insn;
	struct pt_event ev;
	int status;

	oracle_code = p;
	oracle_len = n;
	status = pt_insn_sync_set(oracle, 0);
	while (status >= 0 && (status & pts_event_pending))
		status = pt_insn_event(oracle, &ev, sizeof(ev));
	if (status < 0)
		return -1000 + status;	/* not the instruction's fault */
	memset(&insn, 0, sizeof(insn));
	status = pt_insn_next(oracle, &insn, sizeof(insn));
	/* A decode error leaves the class ptic_error (the size is what was
	 * read); an error after the decode (a query) does not.
	 */
	if (insn.iclass == ptic_error)
		return status < 0 ? status : -pte_internal;
	memset(in, 0, sizeof(*in));
	in->ip = ORACLE_IP;
	in->size = insn.size;
	in->iclass = (uint8_t)insn.iclass;
	if (status < 0 || (insn.iclass != ptic_call &&
			   insn.iclass != ptic_jump &&
			   insn.iclass != ptic_cond_jump))
		return 0;
	/* Direct when the flow went on without a TIP. */
	while (status >= 0 && (status & pts_event_pending))
		status = pt_insn_event(oracle, &ev, sizeof(ev));
	if (status < 0)
		return 0;
	memset(&insn, 0, sizeof(insn));
	pt_insn_next(oracle, &insn, sizeof(insn));
	if (insn.ip) {
		in->flags = RP_FWF_DIRECT;
		in->disp = (int32_t)(insn.ip - (ORACLE_IP + in->size));
	}
	return 0;
}

/* fw_ild against libipt at @p: 0, or 1 after saying where they part. */
static int against_libipt(const char *path, const uint8_t *p, size_t n,
			  uint64_t addr, size_t *len)
{
	struct rp_fwalk_insn want, got;
	int wret, gret;

	memset(&want, 0, sizeof(want));
	memset(&got, 0, sizeof(got));
	got.ip = ORACLE_IP;
	wret = oracle_decode(p, n, &want);
	gret = rp_fwalk_ild(p, n, &got);
	*len = wret ? 1 : want.size;
	if (wret <= -1000) {
		printf("ildcheck: %s: 0x%" PRIx64 ": libipt's decoder did not start: %s\n",
		       path, addr, pt_errstr(pt_errcode(wret + 1000)));
		return 1;
	}
	if (wret && gret)
		return 0;
	/* The event bindings are capstone's to check. */
	got.flags &= RP_FWF_DIRECT;
	if (!wret && !gret && got.size == want.size &&
	    got.iclass == want.iclass && got.flags == want.flags &&
	    got.disp == want.disp) {
		by_libipt++;
		return 0;
	}
	printf("ildcheck: %s: 0x%" PRIx64 ": %02x %02x %02x %02x %02x %02x: libipt says %s%u bytes, class %u, direct %u, disp %d; fw_ild %s%u bytes, class %u, direct %u, disp %d\n",
	       path, addr, p[0], n > 1 ? p[1] : 0, n > 2 ? p[2] : 0,
	       n > 3 ? p[3] : 0, n > 4 ? p[4] : 0, n > 5 ? p[5] : 0,
	       wret ? "no instruction; " : "", want.size, want.iclass,
	       want.flags, want.disp, gret ? "no instruction; " : "",
	       got.size, got.iclass, got.flags, got.disp);
	return 1;
}

static bool is_imm(const cs_x86 *x)
{
	return x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
}

/* What libipt's decoder says of the instruction capstone decoded. */
static void classify(struct rp_fwalk_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	uint8_t i, rep = 0;
	bool osz = false;

	in->iclass = ptic_other;
	in->flags = 0;
	in->disp = 0;
	in->size = (uint8_t)ci->size;
	switch (ci->id) {
	case X86_INS_JMP:
	case X86_INS_CALL:
		in->iclass = ci->id == X86_INS_JMP ? ptic_jump : ptic_call;
		if (is_imm(x)) {
			in->flags = RP_FWF_DIRECT;
			in->disp = (int32_t)(x->operands[0].imm -
					     (int64_t)(in->ip + in->size));
		}
		return;
	case X86_INS_LJMP:
		in->iclass = ptic_far_jump;
		return;
	case X86_INS_LCALL:
		in->iclass = ptic_far_call;
		return;
	case X86_INS_RET:
		in->iclass = ptic_return;
		return;
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		in->iclass = ptic_far_return;
		return;
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
		in->iclass = ptic_far_return;
		in->flags = RP_FWF_CPL;
		return;
	case X86_INS_INT:
	case X86_INS_INT1:
	case X86_INS_INT3:
	case X86_INS_INTO:
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
		in->iclass = ptic_far_call;
		in->flags = RP_FWF_CPL;
		return;
	case X86_INS_SYSEXIT:
	case X86_INS_SYSRET:
		in->iclass = ptic_far_return;
		in->flags = RP_FWF_CPL;
		return;
	case X86_INS_VMCALL:
		in->iclass = ptic_far_call;
		return;
	case X86_INS_VMLAUNCH:
	case X86_INS_VMRESUME:
		in->iclass = ptic_far_return;
		in->flags = RP_FWF_VMLR;
		return;
	case X86_INS_VMPTRLD:
		in->flags = RP_FWF_VMPTRLD;
		return;
	case X86_INS_XSAVE:
	case X86_INS_XSAVE64:
		/* capstone 4 reads PTWRITE (F3 0F AE /4) as XSAVE, and
		 * drops the F3 from its prefixes: the bytes say.
		 */
		for (i = 0; i < ci->size; i++) {
			uint8_t b = ci->bytes[i];

			if (b == 0xf3 || b == 0xf2)
				rep = b;
			else if (b == 0x66)
				osz = true;
			else if (b != 0xf0 && b != 0x2e && b != 0x36 &&
				 b != 0x3e && b != 0x26 && b != 0x64 &&
				 b != 0x65 && b != 0x67)
				break;
		}
		if (rep == 0xf3 && !osz)
			in->iclass = ptic_ptwrite;
		return;
	case X86_INS_XBEGIN:
		/* capstone's jump group; no branch to libipt (a TSX abort
		 * is an event).
		 */
		return;
	case X86_INS_MOV:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_CR3)
			in->flags = RP_FWF_CR3;
		return;
	default:
		break;
	}
	/* Jcc, J*CXZ, LOOP*: capstone 4 leaves LOOP* out of its group. */
	for (i = 0; i < ci->detail->groups_count; i++)
		if (ci->detail->groups[i] == X86_GRP_JUMP)
			break;
	if (i < ci->detail->groups_count || ci->id == X86_INS_LOOP ||
	    ci->id == X86_INS_LOOPE || ci->id == X86_INS_LOOPNE) {
		in->iclass = ptic_cond_jump;
		if (is_imm(x)) {
			in->flags = RP_FWF_DIRECT;
			in->disp = (int32_t)(x->operands[0].imm -
					     (int64_t)(in->ip + in->size));
		}
	}
}

static int differ(const char *path, const struct rp_fwalk_insn *want,
		  const struct rp_fwalk_insn *got, int ret, const char *text,
		  const char *by)
{
	if (!ret && got->size == want->size &&
	    got->iclass == want->iclass && got->flags == want->flags &&
	    got->disp == want->disp)
		return 0;
	printf("ildcheck: %s: 0x%" PRIx64 ": %s: %s says %u bytes, class %u, flags %u, disp %d; fw_ild %s%u bytes, class %u, flags %u, disp %d\n",
	       path, want->ip, text, by, want->size, want->iclass,
	       want->flags, want->disp, ret ? "no instruction; " : "",
	       got->size, got->iclass, got->flags, got->disp);
	return 1;
}

/*
 * The class of an instruction only libopcodes decodes (capstone 4 refuses
 * some encodings the CPU would #UD on, as "lock jo", and knows no PTWRITE
 * or UIRET), from its mnemonic after any prefixes; a direct target from
 * its text.
 */
static void classify_text(const char *text, struct rp_fwalk_insn *in)
{
	static const char *const prefixes[] = {
		"lock ", "rep ", "repz ", "repnz ", "bnd ", "notrack ",
		"data16 ", "addr32 ", "rex.W ", "cs ", "ds ", "es ", "ss ",
		"fs ", "gs ",
	};
	const char *m = text, *hex;
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!strncmp(m, prefixes[i], strlen(prefixes[i]))) {
			m += strlen(prefixes[i]);
			i = (size_t)-1;
		}
	}
	in->iclass = ptic_other;
	if (!strncmp(m, "ptwrite", 7))
		in->iclass = ptic_ptwrite;
	else if (!strncmp(m, "uiret", 5))
		in->iclass = ptic_far_return;
	else if (!strncmp(m, "jmp", 3))
		in->iclass = ptic_jump;
	else if (!strncmp(m, "call", 4))
		in->iclass = ptic_call;
	else if (!strncmp(m, "ret", 3))
		in->iclass = ptic_return;
	else if (m[0] == 'j' || !strncmp(m, "loop", 4))
		in->iclass = ptic_cond_jump;
	hex = strstr(m, " 0x");
	if (in->iclass != ptic_other && in->iclass != ptic_ptwrite &&
	    in->iclass != ptic_return && hex && !strchr(m, '*')) {
		in->flags = RP_FWF_DIRECT;
		in->disp = (int32_t)(strtoull(hex + 1, NULL, 16) -
				     (in->ip + in->size));
	}
}

static int sweep_capstone(const char *path, const uint8_t *p, size_t n,
			  uint64_t addr);

/*
 * @n bytes of code at @addr: libipt's view at every offset it steps to
 * (its length, or 1 where it has no instruction), then capstone's where
 * capstone decodes, stepping by capstone's length.
 */
static int sweep(const char *path, const uint8_t *p, size_t n, uint64_t addr)
{
	size_t off, len;

	for (off = 0; off < n; off += len)
		if (against_libipt(path, p + off, n - off < 15 ? n - off : 15,
				   addr + off, &len))
			return 1;
	return sweep_capstone(path, p, n, addr);
}

static int sweep_capstone(const char *path, const uint8_t *p, size_t n,
			  uint64_t addr)
{
	struct rp_fwalk_insn want, got;
	char text[256];
	size_t off, avail, size;
	const uint8_t *q;
	uint64_t a;
	int ret, len;

	for (off = 0; off < n;) {
		avail = n - off < 15 ? n - off : 15;
		want.ip = got.ip = addr + off;
		memset(&got, 0, sizeof(got));
		got.ip = want.ip;
		ret = rp_fwalk_ild(p + off, avail, &got);
		q = p + off;
		size = avail;
		a = want.ip;
		if (cs_disasm_iter(cs, &q, &size, &a, ci)) {
			classify(&want);
			snprintf(text, sizeof(text), "%s %s", ci->mnemonic,
				 ci->op_str);
			if (differ(path, &want, &got, ret, text, "capstone"))
				return 1;
			off += want.size;
			compared++;
			continue;
		}
		len = raw ? 0 : dis_insn(dis, p + off, avail, want.ip, text,
					 sizeof(text));
		if (len > 0 && !strstr(text, "(bad)")) {
			memset(&want, 0, sizeof(want));
			want.ip = got.ip;
			want.size = (uint8_t)len;
			classify_text(text, &want);
			if (differ(path, &want, &got, ret, text, "libopcodes"))
				return 1;
			off += (size_t)len;
			compared++;
			by_opcodes++;
			continue;
		}
		off++;
	}
	return 0;
}

static int check_elf(const char *path, const uint8_t *elf, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Shdr *sh;
	size_t i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize > len) {
		printf("ildcheck: %s: not a 64-bit ELF file\n", path);
		return 1;
	}
	for (i = 0; i < eh->e_shnum; i++) {
		sh = (const Elf64_Shdr *)(elf + eh->e_shoff +
					  i * eh->e_shentsize);
		if (sh->sh_type != SHT_PROGBITS ||
		    !(sh->sh_flags & SHF_EXECINSTR) ||
		    sh->sh_offset + sh->sh_size > len)
			continue;
		if (sweep(path, elf + sh->sh_offset, sh->sh_size,
			  sh->sh_addr))
			return 1;
	}
	return 0;
}

/* @n random instructions' worth of bytes against libipt. */
static int random_bytes(unsigned long n)
{
	static const uint8_t often[] = {
		0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x64, 0x40, 0x48, 0x4c,
		0x0f, 0x0f, 0x38, 0x3a, 0xc4, 0xc5, 0x62, 0xc7, 0xf6, 0xf7,
		0xff, 0xe8, 0xe9, 0xeb, 0x70, 0x80, 0x8f, 0xa0, 0xb8, 0xcc,
	};
	uint64_t seed = 19;
	uint8_t b[15];
	size_t len;
	unsigned long i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 15; k++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			b[k] = (seed >> 62) && k < 6 ?
			       often[(seed >> 33) % sizeof(often)] :
			       (uint8_t)(seed >> 40);
		}
		if (against_libipt("random", b, sizeof(b), i, &len))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *buf;
	size_t len;
	int i, ret = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
	    dis_new(&dis) || oracle_new()) {
		fprintf(stderr, "ildcheck: no capstone, libopcodes or libipt\n");
		return 2;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(cs);
	for (i = 1; i < argc && !ret; i++) {
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
			continue;
		}
		if (!strcmp(argv[i], "--random") && i + 1 < argc) {
			ret = random_bytes(strtoul(argv[++i], NULL, 0));
			continue;
		}
		buf = rawpt_slurp(argv[i], &len);
		if (!buf || !len) {
			printf("ildcheck: cannot read %s\n", argv[i]);
			return 1;
		}
		ret = raw ? sweep(argv[i], buf, len, 0) :
			    check_elf(argv[i], buf, len);
		free(buf);
	}
	if (!ret)
		printf("%" PRIu64 " instructions as libipt decodes them, %" PRIu64 " as capstone does (%" PRIu64 " by libopcodes)\n",
		       by_libipt, compared, by_opcodes);
	dis_free(dis);
	cs_free(ci, 1);
	cs_close(&cs);
	return ret;
}
