// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mktsx DIR: an Intel PT stream of a small 64-bit program with one RTM
 * transaction that aborts and one that commits, for tests/gdb/watchtsx.sh
 * (issue #18: stores of an aborted transaction never happen).  No machine
 * here has TSX or Intel PT, so the stream is built packet by packet with
 * libipt's encoder, as the SDM (Vol. 3C 33.4.2.8, MODE.TSX; Vol. 1 ch. 16,
 * Intel TSX) says a CPU writes it: MODE.TSX (InTX) and FUP at the XBEGIN,
 * MODE.TSX (TXAbort) and FUP at the instruction that aborted (the XABORT,
 * which does not complete), then a TIP to the XBEGIN's fallback; MODE.TSX
 * and FUP at the XEND that commits.
 *
 *   DIR/code.bin  the code, to load at 0x400000 (import raw --images)
 *   DIR/list      the images list for import raw
 *   DIR/pt.bin    the stream
 *   DIR/truth     the state the SDM's rules give, written by hand (below):
 *                 "POS reg NAME VALUE" (a register before 0-based
 *                 position POS) and "POS mem ADDR VALUE" (the 4 bytes at
 *                 ADDR), and "store POS ADDR" for each store that
 *                 happened (a committed one, or outside a transaction)
 */
#include "pkbuild.h"

#define BASE 0x400000ull
#define G (BASE + 0x100)

/*
 *  0 400000 mov $0x400100, %edi	the word g
 *  1 400005 mov $1, %ebx
 *  2 40000a movl $7, (%rdi)		g = 7
 *  3 400010 xbegin 400024		MODE.TSX(InTX), FUP 400010
 *  4 400016 movl $9, (%rdi)		(transactional: discarded)
 *  5 40001c mov $2, %ebx		(transactional: discarded)
 *    400021 xabort $0x33		MODE.TSX(TXAbort), FUP 400021,
 *					TIP 400024: never completes
 *  6 400024 mov 0x400100, %ecx		7: the abort restored g
 *  7 40002b mov %ebx, %edx		1: and rbx (XBEGIN's state)
 *  8 40002d xbegin 400046		MODE.TSX(InTX), FUP 40002d
 *  9 400033 movl $11, 0x400100		(transactional: committed)
 * 10 40003e mov $3, %ebx
 * 11 400043 xend			MODE.TSX, FUP 400043: commits
 * 12 400046 mov 0x400100, %esi		11
 * 13 40004d mov $1, %ebx
 * 14 400052 xbegin 40005d		MODE.TSX(InTX), FUP 400052
 * 15 400058 mov $5, %ebx		(transactional: discarded)
 *					an abort (a conflict, say) before
 *					40005d: MODE.TSX(TXAbort), FUP
 *					40005d, TIP 40005d: the fallback is
 *					where the mov goes on, so no
 *					transfer shows in the control flow
 * 16 40005d mov %ebx, %edx		1
 * 17 40005f syscall			TIP.PGD
 */
static unsigned char code[0x200];

static const unsigned char prog[] = {
	0xbf, 0x00, 0x01, 0x40, 0x00,
	0xbb, 0x01, 0x00, 0x00, 0x00,
	0xc7, 0x07, 0x07, 0x00, 0x00, 0x00,
	0xc7, 0xf8, 0x0e, 0x00, 0x00, 0x00,
	0xc7, 0x07, 0x09, 0x00, 0x00, 0x00,
	0xbb, 0x02, 0x00, 0x00, 0x00,
	0xc6, 0xf8, 0x33,
	0x8b, 0x0c, 0x25, 0x00, 0x01, 0x40, 0x00,
	0x89, 0xda,
	0xc7, 0xf8, 0x13, 0x00, 0x00, 0x00,
	0xc7, 0x04, 0x25, 0x00, 0x01, 0x40, 0x00, 0x0b, 0x00, 0x00, 0x00,
	0xbb, 0x03, 0x00, 0x00, 0x00,
	0x0f, 0x01, 0xd5,
	0x8b, 0x34, 0x25, 0x00, 0x01, 0x40, 0x00,
	0xbb, 0x01, 0x00, 0x00, 0x00,
	0xc7, 0xf8, 0x05, 0x00, 0x00, 0x00,
	0xbb, 0x05, 0x00, 0x00, 0x00,
	0x89, 0xda,
	0x0f, 0x05,
};

/*
 * The truth: after the abort, execution resumes at the fallback with the
 * architectural state of the XBEGIN (rbx 1, rdi, g 7) but EAX, the abort
 * status; the committed transaction's writes stay.  Inside a
 * transaction, its own writes are what it sees (rdi before position 5).
 * EAX after an abort is its status (not listed).  "aborted POS ADDR":
 * a store that never happened.
 */
static const char truth[] =
	"3 reg rbx 0x1\n"
	"3 reg rdi 0x400100\n"
	"3 mem 0x400100 0x7\n"
	"5 reg rbx 0x1\n"
	"5 reg rdi 0x400100\n"
	"6 reg rbx 0x1\n"
	"6 reg rdi 0x400100\n"
	"6 mem 0x400100 0x7\n"
	"7 reg rcx 0x7\n"
	"7 reg rbx 0x1\n"
	"7 mem 0x400100 0x7\n"
	"8 reg rdx 0x1\n"
	"8 reg rbx 0x1\n"
	"8 reg rdi 0x400100\n"
	"8 mem 0x400100 0x7\n"
	"11 reg rbx 0x3\n"
	"12 reg rbx 0x3\n"
	"12 mem 0x400100 0xb\n"
	"13 reg rsi 0xb\n"
	"13 reg rdx 0x1\n"
	"13 reg rcx 0x7\n"
	"13 reg rdi 0x400100\n"
	"13 mem 0x400100 0xb\n"
	"14 reg rbx 0x1\n"
	"15 reg rbx 0x1\n"
	"16 reg rbx 0x1\n"
	"17 reg rbx 0x1\n"
	"17 reg rdx 0x1\n"
	"17 reg rsi 0xb\n"
	"store 2 0x400100\n"
	"store 9 0x400100\n"
	"aborted 4 0x400100\n";

/* With @ovf, packets are lost inside the first transaction (OVF, then
 * FUP where it goes on, the store at 400016): its begin no longer
 * bounds what follows.
 */
static void build_stream(int ovf)
{
	npk = 0;
	/* PSB+ with PacketEn: MODE.Exec (64-bit), FUP where it is. */
	add(ppt_psb);
	mode64();
	ip(ppt_fup, BASE);
	add(ppt_psbend);
	tsx(1, 0, BASE + 0x10);		/* XBEGIN */
	if (ovf) {
		add(ppt_ovf);
		ip(ppt_fup, BASE + 0x16);
	}
	tsx(0, 1, BASE + 0x21);		/* aborts at the XABORT */
	ip(ppt_tip, BASE + 0x24);	/* to the fallback */
	tsx(1, 0, BASE + 0x2d);		/* XBEGIN */
	tsx(0, 0, BASE + 0x43);		/* XEND commits */
	tsx(1, 0, BASE + 0x52);		/* XBEGIN */
	tsx(0, 1, BASE + 0x5d);		/* aborts before 40005d */
	ip(ppt_tip, BASE + 0x5d);	/* to the fallback: the same */
	ip(ppt_tip_pgd, 0);		/* the syscall */
}

/* DIR/NAME := the stream (build_stream(@ovf)). */
static int encode(const char *dir, const char *name, int ovf)
{
	build_stream(ovf);
	return write_packets("mktsx", dir, name);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mktsx DIR\n");
		return 2;
	}
	memset(code, 0xcc, sizeof(code));
	memcpy(code, prog, sizeof(prog));
	memset(code + (G - BASE), 0, 4);
	if (encode(argv[1], "pt.bin", 0) || encode(argv[1], "ovf.bin", 1) ||
	    write_file(argv[1], "code.bin", code, sizeof(code)) ||
	    write_file(argv[1], "truth", truth, sizeof(truth) - 1) ||
	    write_list(argv[1], BASE))
		return 1;
	return 0;
}
