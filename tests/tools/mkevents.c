// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mkevents DIR: an Intel PT stream holding every event packet kind ptrec
 * shows (issue #21), over a small piece of 64-bit code, with where each
 * event belongs, for tests/import/events.sh.  No hardware here makes these
 * packets (TSX, power events, CBR, MWAIT need a real Intel CPU), so the
 * stream is built packet by packet with libipt's encoder (a PEBS block,
 * which it cannot encode, byte by byte), as the SDM
 * (Vol. 3C, 33.4.2, and Table 33-23's FUP rules) says a CPU writes them:
 *
 *   DIR/code.bin  the code, to load at 0x400000 (import raw --images)
 *   DIR/pt.bin    the stream
 *   DIR/expect    "N [TEXT]" per event: as `ptrec insns` prints it, N
 *                 the number of the instruction it comes before (the
 *                 history's length + 1 for events after the last one)
 *   DIR/list      the images list for import raw
 */
#include "pkbuild.h"

#define BASE 0x400000ull

/*
 * 400000 nop; 400001 ptwrite %rax; 400006..400008 nop; 400009 jmp *%rax;
 * 400010..400015 nop; 400016 syscall; 400020..400027 nop; 400028 syscall;
 * 400030 nop; 400031 syscall.  Events bound to an address (a FUP, TIP or
 * TIP.PGE) come before the instruction there, a PTWRITE's after it; the
 * others (PWRE, PWRX, CBR, MNT, a PSB+'s PIP and VMCS) where the decoder
 * reads them: before the next instruction.
 */
static unsigned char code[0x40];

static void build_code(void)
{
	static const unsigned char ptw[] = { 0xf3, 0x48, 0x0f, 0xae, 0xe0 };

	memset(code, 0x90, sizeof(code));
	memcpy(code + 1, ptw, sizeof(ptw));
	code[0x09] = 0xff;	/* jmp *%rax */
	code[0x0a] = 0xe0;
	memset(code + 0x0b, 0xcc, 5);
	code[0x16] = 0x0f;	/* syscall */
	code[0x17] = 0x05;
	memset(code + 0x18, 0xcc, 8);
	code[0x28] = 0x0f;
	code[0x29] = 0x05;
	memset(code + 0x2a, 0xcc, 6);
	code[0x31] = 0x0f;
	code[0x32] = 0x05;
}

/*
 * A PEBS block (SDM Vol. 3C, "PEBS via Intel PT"): BBP (02 63, 4-byte
 * items: bit 7, type 0), two BIPs (ID << 3 | 100b, then the item), BEP
 * (02 33).  libipt 2.0 has no such packets.
 */
static const unsigned char pebs[] = {
	0x02, 0x63, 0x80,
	0x04, 0x44, 0x33, 0x22, 0x11,
	0x0c, 0x88, 0x77, 0x66, 0x55,
	0x02, 0x33,
};

/* PSB+ (33.4.2.7): PIP, VMCS, CBR, [MODE.Exec, FUP], PSBEND. */
static void psb(uint64_t cr3, uint64_t vmcs, uint8_t cbr, uint64_t at)
{
	struct pt_packet *p;

	add(ppt_psb);
	add(ppt_pip)->payload.pip.cr3 = cr3;
	add(ppt_vmcs)->payload.vmcs.base = vmcs;
	add(ppt_cbr)->payload.cbr.ratio = cbr;
	if (at) {	/* with PacketEn: where it is */
		p = add(ppt_mode);
		p->payload.mode.leaf = pt_mol_exec;
		p->payload.mode.bits.exec.csl = 1;
		ip(ppt_fup, at);
	}
	add(ppt_psbend);
}

static void build_stream(void)
{
	struct pt_packet *p;

	psb(0x1000, 0x2000, 0x10, BASE);
	/* PTWRITE with FUPonPTW: PTW (IP bit), FUP of the instruction. */
	p = add(ppt_ptw);
	p->payload.ptw.plc = 1;
	p->payload.ptw.ip = 1;
	p->payload.ptw.payload = 0x2a;
	ip(ppt_fup, BASE + 1);
	/* A PEBS record, read on after the PTWRITE. */
	pkb_raw = pebs;
	pkb_raw_len = sizeof(pebs);
	pkb_raw_at = npk;
	/* XBEGIN at 400007, XEND at 400008: MODE.TSX + FUP each. */
	tsx(1, 0, BASE + 7);
	tsx(0, 0, BASE + 8);
	ip(ppt_tip, BASE + 0x10);	/* jmp *%rax */
	/* MWAIT at 400011: MWAIT, PWRE, EXSTOP (IP) + FUP; on the wake,
	 * PWRX (33.4.2.24-27).
	 */
	p = add(ppt_mwait);
	p->payload.mwait.hints = 0x20;
	p->payload.mwait.ext = 1;
	p = add(ppt_pwre);
	p->payload.pwre.state = 2;
	p->payload.pwre.sub_state = 1;
	add(ppt_exstop)->payload.exstop.ip = 1;
	ip(ppt_fup, BASE + 0x11);
	p = add(ppt_pwrx);
	p->payload.pwrx.last = 2;
	p->payload.pwrx.deepest = 3;
	p->payload.pwrx.interrupt = 1;
	/* The frequency changes. */
	add(ppt_cbr)->payload.cbr.ratio = 0x18;
	/* An interrupt before 400013: FUP (source), TIP (handler). */
	ip(ppt_fup, BASE + 0x13);
	ip(ppt_tip, BASE + 0x20);
	/* Packets lost in the handler: OVF, tracing resumes at 400024. */
	add(ppt_ovf);
	ip(ppt_fup, BASE + 0x24);
	/* A transaction from 400025 that aborts before 400026 ran: MODE.TSX
	 * (abort) and FUP, then TIP to the abort handler, 400027.
	 */
	tsx(1, 0, BASE + 0x25);
	tsx(0, 1, BASE + 0x26);
	ip(ppt_tip, BASE + 0x27);
	/* The syscall at 400028 leaves user space: TIP.PGD, no IP. */
	ip(ppt_tip_pgd, 0);
	/* While tracing is off, a PSB+ (no FUP) with another CR3, VMCS
	 * and ratio; then back on at 400030: MODE.Exec, TIP.PGE.
	 */
	psb(0x5000, 0x6000, 0x20, 0);
	add(ppt_mnt)->payload.mnt.payload = 0x1234;
	/* ... in 32-bit code (CS.D = 1, CS.L = 0), whose nop and syscall
	 * bytes are the same.
	 */
	p = add(ppt_mode);
	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec.csd = 1;
	ip(ppt_tip_pge, BASE + 0x30);
	/* Tracing off before the syscall at 400031 ran (an interrupt into
	 * a TraceStop region): FUP, TIP.PGD, TraceStop (33.4.2.16).
	 */
	ip(ppt_fup, BASE + 0x31);
	ip(ppt_tip_pgd, 0);
	add(ppt_stop);
}

/* Where each event belongs: before instruction N (1-based; 15 is after
 * the last).  Overflows show as gaps.  No enable at the start: tracing was
 * on at the first PSB+ (a status update).  The PEBS block binds to no
 * address: libipt reads it while it looks for the PTWRITE's FUP, before
 * the first instruction.
 */
static const char expect[] =
	"1 [pebs: block 0x0, item 0x0: 0x11223344]\n"
	"1 [pebs: block 0x0, item 0x1: 0x55667788]\n"
	"3 [ptwrite: 0x2a]\n"
	"4 [tsx: begin]\n"
	"5 [tsx: commit]\n"
	"7 [pwre: state 0x2, sub-state 0x1]\n"
	"8 [mwait: hints 0x20, ext 0x1]\n"
	"8 [exstop: at 0x400011]\n"
	"8 [pwrx: last 0x2, deepest 0x3, woken by an interrupt]\n"
	"8 [cbr: 24]\n"
	"10 [interrupt: 0x400013 -> 0x400020]\n"
	"10 [trace overflow at 0x400024, trace offset 169]\n"
	"11 [tsx: begin]\n"
	"12 [tsx: abort]\n"
	"12 [interrupt: 0x400026 -> 0x400027]\n"
	"14 [disabled]\n"
	"14 [paging: cr3 0x5000]\n"
	"14 [vmcs: 0x6000]\n"
	"14 [cbr: 32]\n"
	"14 [mnt: 0x1234]\n"
	"14 [enabled]\n"
	"14 [exec-mode: 32-bit]\n"
	"15 [disabled: at 0x400031]\n"
	"15 [trace-stop]\n";

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkevents DIR\n");
		return 2;
	}
	build_code();
	build_stream();
	if (write_file(argv[1], "code.bin", code, sizeof(code)) ||
	    write_packets("mkevents", argv[1], "pt.bin") ||
	    write_file(argv[1], "expect", expect, sizeof(expect) - 1) ||
	    write_list(argv[1], BASE))
		return 1;
	return 0;
}
