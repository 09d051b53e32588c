// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * System call instructions whose registers after them the ground truth
 * must hold, or must not (tests/e2e/run.sh "sysregs", ground-truth
 * version 3): getpid by SYSCALL and by int 0x80 return to the next
 * instruction (rax the pid, and for SYSCALL rcx that address and r11
 * the flags); a tgkill of a SIGUSR1 it handles returns into the handler,
 * whose frame the kernel builds after the stop where the recorder reads
 * the registers, so they are no state the program ran from.  Prints each
 * instruction's address (a global label in the asm) and what it
 * returned (in hex, as tests/tools/truthdump prints registers).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char sr_getpid[], sr_int80[], sr_tgkill[];

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

__attribute__((noinline)) static long getpid_syscall(void)
{
	long r;

	__asm__ volatile(".globl sr_getpid\nsr_getpid: syscall"
			 : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");
	return r;
}

/* i386's getpid (20); int 0x80 needs the kernel's IA32 emulation. */
__attribute__((noinline)) static long getpid_int80(void)
{
	long r;

	__asm__ volatile(".globl sr_int80\nsr_int80: int $0x80"
			 : "=a"(r) : "a"(20L) : "memory");
	return r;
}

__attribute__((noinline)) static long tgkill_self(long pid, long tid)
{
	long r;

	__asm__ volatile(".globl sr_tgkill\nsr_tgkill: syscall"
			 : "=a"(r) : "a"(234L), "D"(pid), "S"(tid),
			   "d"((long)SIGUSR1)
			 : "rcx", "r11", "memory");
	return r;
}

int main(void)
{
	struct sigaction sa;
	long pid, p80, k;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pid = getpid_syscall();
	p80 = getpid_int80();
	k = tgkill_self(pid, pid);
	printf("getpid %p %#lx\n", (void *)sr_getpid, (unsigned long)pid);
	printf("int80 %p %#lx\n", (void *)sr_int80, (unsigned long)p80);
	printf("tgkill %p %ld %d\n", (void *)sr_tgkill, k, (int)got);
	return 0;
}
