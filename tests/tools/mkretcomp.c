// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkretcomp DIR: two Intel PT streams over the same small piece of 64-bit
 * code, for tests/import/retcomp.sh (pc-fail: a RET compressed across a
 * PSB).  A CPU clears its return-compression stack at a PSB, so it never
 * compresses a RET (one taken TNT bit) against a CALL made before a PSB;
 * an importer that puts a PSB+ of its own between the two (or damage)
 * makes such a stream.  A plain libipt loop, which keeps its return stack
 * across the PSBs it passes, decodes it as the run traced as a CPU writes
 * it (the RET as a TIP), and so must ptrec (issue #19), with nothing
 * misplaced.  Built with libipt's encoder:
 *
 *   DIR/code.bin   the code, to load at 0x400000 (import raw --images)
 *   DIR/list       the images list for import raw
 *   DIR/good.pt    the run, as a CPU traces it
 *   DIR/bad.pt     the same, both RETs compressed across a PSB: one
 *                  after an in-stream PSB+ with a FUP, one after a PSB
 *                  without FUP (tracing off over a syscall), as in pc-fail
 *   DIR/good.want  `ptrec insns` of both: each instruction's address
 *
 * and two streams with a single PSB whose index checkpoints are at
 * TIP.PGEs (cut points, replay/index.c), 8 KiB of PAD apart:
 *
 *   DIR/cut.pt     g's RET compressed across the first cut (tracing off
 *                  over its syscall; libipt keeps its return stack there,
 *                  so the plain loop decodes it): the checkpoint restores
 *                  the return stack (call g's), and its segment decodes
 *                  from its own TIP.PGE
 *   DIR/cut32.pt   the same in 32-bit code, whose return stacks ptrec
 *                  does not model: that segment cannot decode from the
 *                  checkpoint's made-up PSB+ (the stack is empty there)
 *                  and must be decoded from the start, with no gap
 *   DIR/cuttip.pt  the first with that RET as a TIP
 *   DIR/cut.want   `ptrec insns` of all three
 */
#include "pkbuild.h"

#define BASE 0x400000ull

/*
 * 400000 call f; 400005 jmp *%rax (400007); 400007 call g; 40000c nop;
 * 40000d jmp *%rax (400020)
 * f: 400010 jmp *%rax (400012); 400012 ret
 * g: 400018 syscall; 40001a ret
 * 400020 nop; 400021 nop; 400022 jmp *%rax (out: tracing stops)
 */
static unsigned char code[0x30];

static void build_code(void)
{
	static const unsigned char main_[] = {
		0xe8, 0x0b, 0x00, 0x00, 0x00,	/* call 400010 */
		0xff, 0xe0,			/* jmp *%rax */
		0xe8, 0x0c, 0x00, 0x00, 0x00,	/* call 400018 */
		0x90, 0xff, 0xe0,		/* nop; jmp *%rax */
	};
	static const unsigned char rest[] = {
		0xff, 0xe0, 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90,	/* f */
		0x0f, 0x05, 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90,	/* g */
		0x90, 0x90, 0xff, 0xe0,
	};

	memset(code, 0x90, sizeof(code));
	memcpy(code, main_, sizeof(main_));
	memcpy(code + 0x10, rest, sizeof(rest));
}


/* MODE.Exec: 64-bit code. */
/* PSB+: [MODE.Exec, FUP] when tracing is on at @at, PSBEND. */
static void psb(uint64_t at)
{
	add(ppt_psb);
	if (at) {
		mode64();
		ip(ppt_fup, at);
	}
	add(ppt_psbend);
}

/* A RET: compressed (a taken TNT bit) or not (a TIP to @to). */
static void ret(int compressed, uint64_t to)
{
	struct pt_packet *p;

	if (!compressed) {
		ip(ppt_tip, to);
		return;
	}
	p = add(ppt_tnt_8);
	p->payload.tnt.bit_size = 1;
	p->payload.tnt.payload = 1;
}

static void build_stream(int bad)
{
	npk = 0;
	psb(0x400000);		/* call f; jmp *%rax */
	ip(ppt_tip, 0x400012);
	psb(0x400012);		/* the importer's: f's RET comes next */
	ret(bad, 0x400005);
	ip(ppt_tip, 0x400007);	/* jmp *%rax */
	psb(0x400007);		/* call g; syscall: to the kernel */
	ip(ppt_tip_pgd, 0);
	psb(0);			/* tracing off here */
	mode64();		/* before a TIP.PGE, as a CPU writes it */
	ip(ppt_tip_pge, 0x40001a);	/* back: g's RET */
	ret(bad, 0x40000c);
	ip(ppt_tip, 0x400020);	/* nop; jmp *%rax */
	psb(0x400020);		/* nop; nop; jmp *%rax: out */
	ip(ppt_tip_pgd, 0x400030);	/* where tracing is filtered off */
}

/* What ptrec shows for both (the plain loop's history: no gap). */
static const char good_want[] =
	"0x400000\n0x400010\n0x400012\n0x400005\n0x400007\n0x400018\n"
	"0x40001a\n0x40000c\n0x40000d\n0x400020\n0x400021\n0x400022\n";

static int write_stream(const char *dir, const char *name, int bad)
{
	build_stream(bad);
	return write_packets("mkretcomp", dir, name);
}

/*
 * One PSB, tracing off over g's syscall and on again at 40001a (g's RET,
 * compressed when @compressed), 8 KiB of PAD in each stretch with tracing
 * off, then tracing on once more at 400020: two cut points.
 */
/* MODE.Exec: 32-bit code (CS.D). */
static void mode32(void)
{
	struct pt_packet *p = add(ppt_mode);

	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec.csd = 1;
}

static int write_cut(const char *dir, const char *name, int compressed,
		     int bits32)
{
	static uint8_t buf[32 << 10];
	uint64_t len = 0;
	size_t k, part;
	uint64_t off = 0;

	for (part = 0; part < 3; part++) {
		npk = 0;
		if (part == 0) {
			/* call g; syscall: to the kernel */
			if (bits32) {
				add(ppt_psb);
				mode32();
				ip(ppt_fup, 0x400007);
				add(ppt_psbend);
			} else {
				psb(0x400007);
			}
			ip(ppt_tip_pgd, 0);
		} else if (part == 1) {
			if (bits32)
				mode32();
			else
				mode64();
			ip(ppt_tip_pge, 0x40001a);	/* g's RET */
			ret(compressed, 0x40000c);
			ip(ppt_tip, 0x400020);	/* nop; jmp *%rax */
			/* nop; nop; jmp *%rax: out (filtered off) */
			ip(ppt_tip_pgd, 0x400030);
		} else {
			if (bits32)
				mode32();
			else
				mode64();
			ip(ppt_tip_pge, 0x400020);	/* nop; nop; jmp */
			ip(ppt_tip_pgd, 0x400030);
		}
		if (encode_packets(buf + len, sizeof(buf) - len, &off,
				   "mkretcomp", name))
			return -1;
		len += off;
		/* PAD (0x00) with tracing off, past the next 8 KiB mark. */
		if (part < 2) {
			k = (len / 8192 + 1) * 8192 + 16 - len;
			memset(buf + len, 0, k);
			len += k;
		}
	}
	return write_file(dir, name, buf, len);
}

static const char cut_want[] =
	"0x400007\n0x400018\n0x40001a\n0x40000c\n0x40000d\n0x400020\n"
	"0x400021\n0x400022\n0x400020\n0x400021\n0x400022\n";

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkretcomp DIR\n");
		return 2;
	}
	build_code();
	if (write_file(argv[1], "code.bin", code, sizeof(code)) ||
	    write_list(argv[1], BASE) ||
	    write_stream(argv[1], "good.pt", 0) ||
	    write_stream(argv[1], "bad.pt", 1) ||
	    write_file(argv[1], "good.want", good_want,
		       sizeof(good_want) - 1) ||
	    write_cut(argv[1], "cut.pt", 1, 0) ||
	    write_cut(argv[1], "cut32.pt", 1, 1) ||
	    write_cut(argv[1], "cuttip.pt", 0, 0) ||
	    write_file(argv[1], "cut.want", cut_want, sizeof(cut_want) - 1))
		return 1;
	return 0;
}
