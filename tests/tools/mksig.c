// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mksig DIR: an Intel PT stream of a small 64-bit program whose system
 * call returns into a signal handler, for test_watch_kern.c (issue #18:
 * the kernel writes the handler's frame at the delivery).  No machine
 * here has Intel PT, so the stream is built packet by packet with
 * libipt's encoder, as a CPU tracing user space only writes it: TIP.PGD
 * at each system call, MODE.Exec and TIP.PGE where the thread comes back
 * (the handler, then rt_sigreturn's return to the interrupted code).  No
 * sideband says a signal came: the replay sees a return from the kernel
 * elsewhere than after the system call.
 *
 *   DIR/code.bin  the code, to load at 0x400000 (import raw --images)
 *   DIR/list      the images list for import raw
 *   DIR/pt.bin    the stream
 *
 *  0 400000 mov $0x400100, %edi	the word g
 *  1 400005 movl $7, (%rdi)		g = 7
 *  2 40000b mov $62, %eax		kill
 *  3 400010 syscall			TIP.PGD; TIP.PGE 400080: a delivery
 *  4 400080 mov $15, %eax		the handler: rt_sigreturn
 *  5 400085 syscall			TIP.PGD; TIP.PGE 400012: its return
 *  6 400012 movl $8, (%rdi)		g = 8
 *  7 400018 syscall			TIP.PGD: the end
 */
#include "pkbuild.h"

#define BASE 0x400000ull

static unsigned char code[0x200];

static const unsigned char main_code[] = {
	0xbf, 0x00, 0x01, 0x40, 0x00,
	0xc7, 0x07, 0x07, 0x00, 0x00, 0x00,
	0xb8, 0x3e, 0x00, 0x00, 0x00,
	0x0f, 0x05,
	0xc7, 0x07, 0x08, 0x00, 0x00, 0x00,
	0x0f, 0x05,
};

static const unsigned char handler[] = {
	0xb8, 0x0f, 0x00, 0x00, 0x00,
	0x0f, 0x05,
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mksig DIR\n");
		return 2;
	}
	memset(code, 0xcc, sizeof(code));
	memcpy(code, main_code, sizeof(main_code));
	memcpy(code + 0x80, handler, sizeof(handler));
	memset(code + 0x100, 0, 4);
	npk = 0;
	add(ppt_psb);
	mode64();
	ip(ppt_fup, BASE);
	add(ppt_psbend);
	ip(ppt_tip_pgd, 0);		/* kill's syscall */
	mode64();
	ip(ppt_tip_pge, BASE + 0x80);	/* into the handler */
	ip(ppt_tip_pgd, 0);		/* rt_sigreturn */
	mode64();
	ip(ppt_tip_pge, BASE + 0x12);	/* after kill's syscall */
	ip(ppt_tip_pgd, 0);		/* the last syscall */
	if (write_packets("mksig", argv[1], "pt.bin") ||
	    write_file(argv[1], "code.bin", code, sizeof(code)) ||
	    write_list(argv[1], BASE))
		return 1;
	return 0;
}
