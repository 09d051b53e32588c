// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkcycles DIR: an Intel PT stream with CYC packets at known places, over
 * a small piece of 64-bit code, and each instruction's core cycles as the
 * SDM gives them, for tests/import/cycles.sh (issue #21).  No hardware
 * here writes CYC, so the stream is built with libipt's encoder.  SDM
 * Vol. 3C 33.3.6 and 33.4.2.14: a CYC packet counts the core cycles since
 * the last one and goes out right before the packet it comes with, so its
 * count belongs to the instruction that packet is about (the conditional
 * branch a TNT bit is for, the indirect branch of a TIP):
 *
 *   DIR/code.bin  the code, to load at 0x400000 (import raw --images)
 *   DIR/pt.bin    the stream
 *   DIR/expect    "N CYCLES" per instruction, N from 1
 *   DIR/list      the images list for import raw
 */
#include "pkbuild.h"

#define BASE 0x400000ull

/*
 * 400000 nop; 400001 jz 400003; 400003 nop; 400004 jz 400006; 400006 nop;
 * 400007 jmp *%rax; 400010 nop; 400011 jz 400013; 400013 nop;
 * 400014 syscall.
 */
static unsigned char code[0x20];

static void build_code(void)
{
	memset(code, 0xcc, sizeof(code));
	code[0x00] = 0x90;
	code[0x01] = 0x74;	/* jz +0 */
	code[0x02] = 0x00;
	code[0x03] = 0x90;
	code[0x04] = 0x74;
	code[0x05] = 0x00;
	code[0x06] = 0x90;
	code[0x07] = 0xff;	/* jmp *%rax */
	code[0x08] = 0xe0;
	code[0x10] = 0x90;
	code[0x11] = 0x74;
	code[0x12] = 0x00;
	code[0x13] = 0x90;
	code[0x14] = 0x0f;	/* syscall */
	code[0x15] = 0x05;
}


static void cyc(uint64_t v)
{
	add(ppt_cyc)->payload.cyc.value = v;
}

static void tnt(uint8_t bits, uint8_t n)
{
	struct pt_packet *p = add(ppt_tnt_8);

	p->payload.tnt.bit_size = n;
	p->payload.tnt.payload = bits;
}

static void build_stream(void)
{
	struct pt_packet *p;

	add(ppt_psb);
	p = add(ppt_mode);
	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec.csl = 1;
	ip(ppt_fup, BASE);
	add(ppt_psbend);
	cyc(5);			/* with the TNT of both jz: the first's */
	tnt(2, 2);		/* taken, not taken (both reach the next) */
	cyc(7);			/* three CYC (one byte, two, three) */
	cyc(300);		/* before the TIP of jmp *%rax */
	cyc(70000);
	ip(ppt_tip, BASE + 0x10);
	cyc(11);		/* a PAD between does not end the run */
	add(ppt_pad);
	tnt(1, 1);		/* the jz at 400011 */
	/*
	 * No CYC before the TIP.PGD of the syscall: libipt reads an event
	 * packet ahead, while still at the jz, so its cycles would go there
	 * (docs/events.md says so).
	 */
	ip(ppt_tip_pgd, 0);
}

static const char expect[] =
	"1 0\n2 5\n3 0\n4 0\n5 0\n6 70307\n7 0\n8 11\n9 0\n10 0\n";

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkcycles DIR\n");
		return 2;
	}
	build_code();
	build_stream();
	if (write_file(argv[1], "code.bin", code, sizeof(code)) ||
	    write_packets("mkcycles", argv[1], "pt.bin") ||
	    write_file(argv[1], "expect", expect, sizeof(expect) - 1) ||
	    write_list(argv[1], BASE))
		return 1;
	return 0;
}
