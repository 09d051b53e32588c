// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kernel-write table's session 14 rows (replay/rcv_sys.c, issue #18
 * "writes the kernel made count as accesses at the system call"):
 * tests/values/kwsys.sh, `make values-kwsys`.  Each row k of
 * kwsys_sys.tbl (number|setup|byte) is a system call at kw_s<k> that
 * writes byte `byte` of its 256-byte slot of kw_sb (0xff before), the
 * buffer's address in a register: ppoll's revents and time left, poll
 * with five pollfds (more than the four ranges a call has: the last
 * one's revents, byte 38) and ppoll with nfds not known (1 or 2),
 * pselect6's fd set and time left, select with n not known (the set from
 * its base as far as n may reach: byte 12, past the first long),
 * epoll_wait, epoll_pwait, epoll_pwait2, clock_nanosleep's rem (a
 * SIGALRM interrupts it), ioctl TIOCGWINSZ, getsockname, getpeername,
 * getsockopt, recvfrom, accept, accept4, timer_gettime, timerfd_gettime,
 * timer_settime's and timerfd_settime's old value, adjtimex,
 * clock_adjtime, recvmsg (its iovec's buffer, byte 0, and its msghdr's
 * msg_flags, byte 176).
 *   sysw  (GDB) the calls: a watch on each byte, reverse-continue from
 *         right after the call and continue from right before it, with
 *         watch-unknown skip too, must stop at it
 *   sysv  (values) the same calls, each with a store of 0x77 to its
 *         byte before and a load of it after: no wrong value
 *   check BYTE...  the calls untraced, then each row's byte (the k-th
 *         argument) printed: the kernel changed it (not 0xff)
 * Exit 7 where the descriptors cannot be made here.  Fixed descriptors
 * (the table's constants): 20, 21 a pipe (100 its read end again: the
 * table grows past 64), 22, 23 a socketpair, 24 an epoll instance
 * watching 21 for EPOLLOUT, 25 a timerfd, 26 a pseudo-terminal master,
 * 27 a listening socket with two connections pending.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define EXIT_NOW "\txor %%edi, %%edi\n\tmov $231, %%eax\n\tsyscall\n"

unsigned char kw_sb[256 * 32] __attribute__((aligned(64)));
int kw_tid;
const char kw_x[] = "x";

__asm__(".text\n"
	".globl kw_sysw\n"
	"kw_sysw:\n"
	"\tpush %rbx\n"
#include "kwsys_sys.inc"
	"\tpop %rbx\n"
	"\tret\n");

__asm__(".text\n"
	".globl kw_sysv\n"
	"kw_sysv:\n"
	"\tpush %rbx\n\tpush %r12\n\tpush %r13\n"
#include "kwsys_sysv.inc"
	"\tpop %r13\n\tpop %r12\n\tpop %rbx\n"
	"\tret\n");
void kw_sysw(void);
void kw_sysv(void);

static void on_alrm(int sig)
{
	(void)sig;
}

static void fd_at(int fd, int want)
{
	if (fd < 0 || dup2(fd, want) != want)
		exit(7);
	if (fd != want)
		close(fd);
}

static void fds(void)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.u64 = 0 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t sl;
	timer_t t;
	int p[2], sv[2], k, c;

	if (pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		exit(7);
	fd_at(p[0], 20);
	fd_at(p[1], 21);
	if (dup2(20, 100) != 100)
		exit(7);
	fd_at(sv[0], 22);
	fd_at(sv[1], 23);
	fd_at(epoll_create1(0), 24);
	if (epoll_ctl(24, EPOLL_CTL_ADD, 21, &ev))
		exit(7);
	fd_at(timerfd_create(CLOCK_MONOTONIC, 0), 25);
	fd_at(open("/dev/ptmx", O_RDWR | O_NOCTTY), 26);
	/* an abstract address of its own, two clients connected */
	sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			 (size_t)snprintf(sa.sun_path + 1,
					  sizeof(sa.sun_path) - 1,
					  "ptrec-kwsys-%d", getpid()));
	fd_at(socket(AF_UNIX, SOCK_STREAM, 0), 27);
	if (bind(27, (struct sockaddr *)&sa, sl) || listen(27, 4))
		exit(7);
	for (k = 0; k < 2; k++) {
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&sa, sl))
			exit(7);
	}
	if (timer_create(CLOCK_MONOTONIC, NULL, &t))
		exit(7);
	kw_tid = (int)(long)t;
	signal(SIGALRM, on_alrm);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	int k;

	if (strcmp(m, "sysw") && strcmp(m, "sysv") && strcmp(m, "check")) {
		fprintf(stderr, "usage: kwsys sysw|sysv|check BYTE...\n");
		return 2;
	}
	fds();
	memset(kw_sb, 0xff, sizeof(kw_sb));
	if (!strcmp(m, "check")) {
		kw_sysw();
		for (k = 2; k < argc && k - 2 < 32; k++)
			printf("%d %#x\n", k - 2,
			       kw_sb[256 * (k - 2) + atoi(argv[k])]);
		return 0;
	}
	if (!strcmp(m, "sysv"))
		kw_sysv();
	else
		kw_sysw();
	__asm__ volatile(EXIT_NOW ::: "memory");
	return 0;
}
