// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The escape analysis's system calls (rcv_escape.c): may a system call
 * show another thread an address in the caller's stack?  Those that
 * keep no pointer past their return and make none of the caller's
 * memory visible take one in an argument as fine; clone gives the child
 * every register; ioctl keeps its argument but for requests known to
 * copy only (docs/values.md, "Threads and the stack").  A taint here is
 * rcv_esc.t[]: 0 clean, 1 surely an own-stack pointer, else maybe.
 */
#include "rcv_win.h"

/*
 * System calls that keep no pointer argument past their return and make
 * no memory of the caller's visible to anyone: a stack address in an
 * argument is fine.  @content: they copy a buffer of the caller's
 * (rsi) somewhere others may read it.
 */
static bool sys_keeps_none(uint64_t nr, bool *content)
{
	*content = false;
	switch (nr) {
	case 1: case 18:	/* write, pwrite64 */
	case 13:	/* rt_sigaction: the handler's words go to the kernel */
		*content = true;
		return true;
	case 0: case 17:	/* read, pread64 */
	case 4: case 5: case 6: case 262: case 332:	/* stat family */
	case 228: case 229: case 230: case 35:	/* clocks, sleeps */
	case 202:	/* futex: waits and wakes on the word, keeps nothing */
	case 318:	/* getrandom */
	case 24: case 39: case 186: case 110: case 60: case 231:
	case 14:	/* rt_sigprocmask: this thread's mask */
	case 97: case 302: case 63: case 99: case 204:
	case 3: case 8: case 10: case 12:
	case 2: case 257: case 21: case 269: case 79: case 89: case 217:
	case 22: case 293: case 72: case 62: case 200: case 234:
	case 28:	/* madvise */
		return true;
	default:
		return false;
	}
}

/*
 * ioctl requests that copy a struct in or out at the call and keep
 * nothing (terminals, FIONREAD, FIONBIO, FIOCLEX); any other may keep its
 * argument (userfaultfd's UFFDIO_REGISTER keeps a range whose faults
 * another thread then handles: tests/values/review5.c uffdstack).
 */
static bool ioctl_keeps_none(uint64_t req)
{
	switch (req) {
	case 0x5401: case 0x5402: case 0x5403: case 0x5404:	/* TC[GS]ETS* */
	case 0x540f: case 0x5410:	/* TIOC[GS]PGRP */
	case 0x5413: case 0x5414:	/* TIOC[GS]WINSZ */
	case 0x541b: case 0x5421:	/* FIONREAD, FIONBIO */
	case 0x5450: case 0x5451:	/* FIONCLEX, FIOCLEX */
		return true;
	default:
		return false;
	}
}

bool rcv_esc_syscall(const struct rcv_esc *e)
{
	static const int args[] = { RP_REG_RDI, RP_REG_RSI, RP_REG_RDX,
				    RP_REG_R10, RP_REG_R8, RP_REG_R9 };
	bool content, any_arg = false, any = false;
	uint64_t nr = e->rax;
	size_t k;
	int g;

	for (k = 0; k < 6; k++)
		any_arg |= e->t[args[k]] != 0;
	for (g = 0; g < 16; g++)
		if (g != RP_REG_RSP && g != RP_REG_RAX && g != RP_REG_RCX &&
		    g != RP_REG_R11)
			any |= e->t[g] != 0;
	/* clone, clone3, vfork, or a number not known: the child starts
	 * with every general-purpose register (and maybe this stack; its
	 * vector registers are taken as not used as pointers, docs).
	 */
	if (!e->rax_k || nr == 56 || nr == 435 || nr == 58)
		return any || e->t[RP_REG_RSP] != 1;	/* not STK */
	if (nr == 57)	/* fork: memory of its own */
		return false;
	/* ioctl: by its request, when the code shows it (rsi). */
	if (nr == 16)
		return e->rsi_k && ioctl_keeps_none(e->rsi) ? false : any_arg;
	/* mmap and munmap of a stack page (MAP_FIXED: a file's page, maybe
	 * shared, in its place; munmap: another thread's mmap may get it)
	 * are caught by any_arg: both are off sys_keeps_none's list.
	 */
	if (!sys_keeps_none(nr, &content))
		return any_arg;
	return content && e->t[RP_REG_RSI] && (e->dirty || e->nslots);
}
