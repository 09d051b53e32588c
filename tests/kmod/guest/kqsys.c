// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * kqsys LOG: system calls whose results the program knows, made from
 * its own SYSCALL instructions (each returns to a label it logs), so
 * that the host can check ptrec.ko's system call REGS records
 * (kmod/ptrec_sysregs.c) in the bundle `ptrec record` wrote against the
 * program's own view (tests/kmod/sysregs-check.sh, over `ptrec dump`):
 *
 *   getpid N ADDR PID     N calls of getpid, each returning PID
 *   write ADDR A B C      writes of A, B and C bytes to /dev/null
 *   int80 ADDR PID        getpid through int $0x80, with rcx = ADDR and
 *                         r11 = RFLAGS as a SYSCALL would leave them (the
 *                         kernel keeps both): no record (compat)
 *   read ADDR N DURING    a read of a pipe interrupted by a SA_RESTART
 *                         handler (DURING 1: it ran during the read) and
 *                         restarted by the kernel, returning N: one
 *                         record, with N (not -ERESTARTSYS's at the
 *                         interruption)
 *   tgkill ADDR           tgkill of itself with SIGUSR1, whose handler's
 *                         entry is the address after the SYSCALL: one
 *                         record (rax 0; none for the rt_sigreturn
 *                         back to ADDR) and a SIGNAL record after it
 *   entry ADDR            AT_ENTRY: no record of the execve
 *   marked ADDR RSP       a getpid with rbx, rbp, rdx, rsi, rdi, r8-r10 and
 *                         r12-r15 set to 0x11..11 times their number in
 *                         enum sb_reg and rsp RSP: one record with every
 *                         general-purpose register as the call left them
 *                         (since session 18)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

long kq_getpid(void);
long kq_write(long fd, const void *buf, long n);
long kq_read(long fd, void *buf, long n);
long kq_int80_getpid(void);
long kq_tgkill(long tgid, long tid, long sig);
long kq_marked(void);
extern char kq_getpid_ret[], kq_write_ret[], kq_read_ret[],
	kq_int80_ret[], kq_tgkill_ret[], kq_marked_ret[];
unsigned long kq_marked_rsp;

/*
 * Each label is the address after the call's instruction.  kq_tgkill's
 * is also SIGUSR1's handler: entered first as the handler (phase 0:
 * return to the restorer), then again after rt_sigreturn (phase 1:
 * return to kq_tgkill's caller with tgkill's result).
 */
__asm__(".text\n"
	".globl kq_getpid\n.type kq_getpid, @function\nkq_getpid:\n"
	"	mov $39, %eax\n"
	"	syscall\n"
	".globl kq_getpid_ret\nkq_getpid_ret:\n"
	"	ret\n"
	".globl kq_write\n.type kq_write, @function\nkq_write:\n"
	"	mov $1, %eax\n"
	"	syscall\n"
	".globl kq_write_ret\nkq_write_ret:\n"
	"	ret\n"
	".globl kq_read\n.type kq_read, @function\nkq_read:\n"
	"	xor %eax, %eax\n"
	"	syscall\n"
	".globl kq_read_ret\nkq_read_ret:\n"
	"	ret\n"
	".globl kq_int80_getpid\n.type kq_int80_getpid, @function\n"
	"kq_int80_getpid:\n"
	"	push %rbx\n"
	"	lea kq_int80_ret(%rip), %rcx\n"
	"	pushf\n"
	"	pop %r11\n"
	"	mov $20, %eax\n"
	"	int $0x80\n"
	".globl kq_int80_ret\nkq_int80_ret:\n"
	"	pop %rbx\n"
	"	ret\n"
	".globl kq_tgkill\n.type kq_tgkill, @function\nkq_tgkill:\n"
	"	mov $234, %eax\n"
	"	syscall\n"
	".globl kq_tgkill_ret\nkq_tgkill_ret:\n"
	"	cmpl $0, kq_tg_phase(%rip)\n"
	"	jne 1f\n"
	"	movl $1, kq_tg_phase(%rip)\n"
	"1:	ret\n"
	/* rbx (1), rdx (3), rsi (4), rdi (5), rbp (6), r8-r10, r12-r15
	 * set to 0x1111111111111111 times their enum sb_reg number.
	 */
	".globl kq_marked\n.type kq_marked, @function\nkq_marked:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n	push %r13\n"
	"	push %r14\n	push %r15\n"
	"	movabs $0x1111111111111111, %rbx\n"
	"	movabs $0x3333333333333333, %rdx\n"
	"	movabs $0x4444444444444444, %rsi\n"
	"	movabs $0x5555555555555555, %rdi\n"
	"	movabs $0x6666666666666666, %rbp\n"
	"	movabs $0x8888888888888888, %r8\n"
	"	movabs $0x9999999999999999, %r9\n"
	"	movabs $0xaaaaaaaaaaaaaaaa, %r10\n"
	"	movabs $0xcccccccccccccccc, %r12\n"
	"	movabs $0xdddddddddddddddd, %r13\n"
	"	movabs $0xeeeeeeeeeeeeeeee, %r14\n"
	"	movabs $0xffffffffffffffff, %r15\n"
	"	mov %rsp, kq_marked_rsp(%rip)\n"
	"	mov $39, %eax\n"
	"	syscall\n"
	".globl kq_marked_ret\nkq_marked_ret:\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n	pop %r12\n"
	"	pop %rbp\n	pop %rbx\n"
	"	ret\n");

int kq_tg_phase;
static volatile sig_atomic_t kq_in_read, kq_during;

static void kq_usr2(int sig)
{
	(void)sig;
	kq_during = kq_in_read;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	char buf[64] = "0123456789abcdef";
	long pid = getpid(), r[3], n;
	int fd, p[2], i, bad = 0;
	FILE *log;
	pid_t c;

	if (argc < 2 || !(log = fopen(argv[1], "w")))
		return 2;
	fprintf(log, "entry %#lx\n", getauxval(AT_ENTRY));
	for (i = 0; i < 5; i++)
		bad |= kq_getpid() != pid;
	fprintf(log, "getpid 5 %#lx %ld\n", (unsigned long)kq_getpid_ret,
		pid);
	fd = open("/dev/null", O_WRONLY);
	r[0] = kq_write(fd, buf, 7);
	r[1] = kq_write(fd, buf, 3);
	r[2] = kq_write(fd, buf, 11);
	fprintf(log, "write %#lx %ld %ld %ld\n", (unsigned long)kq_write_ret,
		r[0], r[1], r[2]);
	fprintf(log, "int80 %#lx %ld\n", (unsigned long)kq_int80_ret,
		kq_int80_getpid());

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kq_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	if (pipe(p))
		return 2;
	c = fork();
	if (!c) {
		usleep(300000);
		kill(getppid(), SIGUSR2);
		usleep(300000);
		_exit(write(p[1], "hello", 5) != 5);
	}
	kq_in_read = 1;
	n = kq_read(p[0], buf, sizeof(buf));
	kq_in_read = 0;
	waitpid(c, NULL, 0);
	fprintf(log, "read %#lx %ld %d\n", (unsigned long)kq_read_ret, n,
		(int)kq_during);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = (void (*)(int))kq_tgkill_ret;
	sigaction(SIGUSR1, &sa, NULL);
	n = kq_tgkill(pid, pid, SIGUSR1);
	fprintf(log, "tgkill %#lx %ld %d\n", (unsigned long)kq_tgkill_ret, n,
		kq_tg_phase);
	bad |= kq_marked() != pid;
	fprintf(log, "marked %#lx %#lx\n", (unsigned long)kq_marked_ret,
		kq_marked_rsp);
	fclose(log);
	return bad;
}
