// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of replay/rcv_sys.c's kernel-write table (review 7, sysw):
 * the exact ranges of calls that write one buffer or several (sizes from
 * the x86-64 UAPI structs), what the values engine takes (one range, or a
 * barrier for several), and unknown arguments.
 */
#include <capstone/capstone.h>
#include <criterion/criterion.h>
#include <string.h>

#include "rcv_win.h"

static struct rcv_state st[2];
static struct rcv_ins ins[1];
static struct rp_recover rc;
static struct win w;
static uint64_t a[RCV_SYS_OUTS], l[RCV_SYS_OUTS];

static void set(int g, uint64_t v)
{
	st[0].r[g] = (struct rcv_val){ v, ~0ull };
}

static void setup(void)
{
	memset(st, 0, sizeof(st));
	memset(ins, 0, sizeof(ins));
	memset(&rc, 0, sizeof(rc));
	memset(a, 0, sizeof(a));
	memset(l, 0, sizeof(l));
	w = (struct win){ .st = st, .ins = ins, .n = 1, .rc = &rc,
			  .top_end = true };
	ins[0].flags |= RCV_I_SYSCALL;
}

TestSuite(rcv_sys, .init = setup);

/* System call @nr: the watch side's ranges. */
static int outs(uint64_t nr)
{
	set(RP_REG_RAX, nr);
	return rcv_sys_writes(&w, 0, a, l, RCV_SYS_OUTS);
}

static void one(uint64_t nr, uint64_t addr, uint64_t len, const char *what)
{
	uint64_t va = 0, vl = 0;

	cr_assert_eq(outs(nr), 1, "%s: one range", what);
	cr_assert(a[0] == addr && l[0] == len, "%s: %#lx +%lu", what,
		  (unsigned long)a[0], (unsigned long)l[0]);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), 1, "%s: values", what);
	cr_assert(va == addr && vl == len, "%s: values' range", what);
}

Test(rcv_sys, single_buffers)
{
	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 0x7000);
	set(RP_REG_R10, 0x8000);
	one(201, 0x5000, 8, "time");
	one(36, 0x6000, 32, "getitimer");
	one(53, 0x8000, 8, "socketpair");
	one(98, 0x6000, 144, "getrusage");
	one(100, 0x5000, 32, "times");
	one(143, 0x6000, 4, "sched_getparam");
	one(137, 0x6000, 120, "statfs");
	one(138, 0x6000, 120, "fstatfs");
	one(131, 0x6000, 24, "sigaltstack's old stack");
	one(148, 0x6000, 16, "sched_rr_get_interval");
	set(RP_REG_RSI, 8);
	one(127, 0x5000, 8, "rt_sigpending(set, 8)");
	set(RP_REG_RSI, 0x541b);
	one(16, 0x7000, 4, "ioctl FIONREAD");
	set(RP_REG_RDI, 16);
	set(RP_REG_RSI, 0x6000);
	one(157, 0x6000, 16, "prctl PR_GET_NAME");
	set(RP_REG_RDI, 15);
	cr_assert_eq(outs(157), -1, "prctl PR_SET_NAME: not in the table");
	set(RP_REG_RSI, 3 * 4096 + 1);
	one(27, 0x7000, 4, "mincore: a byte per page");
	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 0);
	one(239, 0x5000, 4, "get_mempolicy without a node mask");
	set(RP_REG_RSI, 0x6000);
	cr_assert_eq(outs(239), -1, "get_mempolicy's node mask: unknown");
	set(RP_REG_RDI, 0);
	cr_assert_eq(outs(201), 0, "time(NULL) writes nothing");
}

Test(rcv_sys, several_buffers)
{
	uint64_t va, vl;

	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 0x5008);
	set(RP_REG_RDX, 0x5010);
	cr_assert_eq(outs(118), 3, "getresuid");
	for (int k = 0; k < 3; k++)
		cr_assert(a[k] == 0x5000 + 8u * k && l[k] == 4);
	/* the values engine holds one range per call: a barrier */
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1);
	cr_assert_eq(outs(120), 3, "getresgid");
	cr_assert_eq(outs(309), 2, "getcpu");
	cr_assert(a[1] == 0x5008 && l[1] == 4);
	cr_assert_eq(outs(274), 2, "get_robust_list");
	cr_assert(a[0] == 0x5008 && l[0] == 8 && a[1] == 0x5010 && l[1] == 8);
	cr_assert_eq(outs(96), 2, "gettimeofday");
	cr_assert(a[0] == 0x5000 && l[0] == 16 && a[1] == 0x5008 && l[1] == 8);
	set(RP_REG_RSI, 0);
	cr_assert_eq(outs(96), 1, "gettimeofday without a timezone");
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), 1);
	cr_assert(va == 0x5000 && vl == 16);
	st[0].r[RP_REG_RDX].k = 0xff;
	cr_assert_eq(outs(118), -1, "getresuid: a pointer not known");
	cr_assert_eq(outs(999), -1, "not in the table");
}

Test(rcv_sys, iovecs_unknown)
{
	uint64_t va, vl;

	/* readv(fd, iov, 1): a barrier to the values engine (its index
	 * is what reads the array); the watch side reads it (review7.sh
	 * sysw)
	 */
	set(RP_REG_RSI, 0x5000);
	set(RP_REG_RDX, 1);
	set(RP_REG_RAX, 19);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "readv");
	set(RP_REG_RAX, 295);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "preadv");
	set(RP_REG_RDX, RCV_SYS_OUTS + 1);
	cr_assert_eq(outs(310), -1, "process_vm_readv, too many iovecs");
	st[0].r[RP_REG_RSI].k = 0;
	set(RP_REG_RDX, 1);
	cr_assert_eq(outs(19), -1, "readv: the array's address unknown");
}

/* Review 9 (sysw): calls outside the table then, one buffer each. */
Test(rcv_sys, review9_single)
{
	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 0x7000);
	set(RP_REG_R10, 64);
	set(RP_REG_R8, 0x9000);
	one(222, 0x7000, 4, "timer_create: the kernel's timer_t, an int");
	one(267, 0x7000, 64, "readlinkat: bufsiz bytes at most");
	one(128, 0x6000, 128, "rt_sigtimedwait: siginfo_t");
	set(RP_REG_RDX, 56);
	one(315, 0x6000, 56, "sched_getattr: size bytes at most");
	set(RP_REG_RDX, 0x7000);
	set(RP_REG_RDI, 2);
	one(157, 0x6000, 4, "prctl PR_GET_PDEATHSIG");
	set(RP_REG_RDI, 40);
	one(157, 0x6000, 8, "prctl PR_GET_TID_ADDRESS");
	set(RP_REG_RDI, 1);
	cr_assert_eq(outs(157), -1, "prctl PR_SET_PDEATHSIG: not in it");
	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 5 | 128);
	one(202, 0x9000, 4, "futex FUTEX_WAKE_OP_PRIVATE: *uaddr2");
	set(RP_REG_RSI, 6);
	cr_assert_eq(outs(202), -1, "futex FUTEX_LOCK_PI: not in it");
	set(RP_REG_RSI, 5);
	one(72, 0x7000, 32, "fcntl F_GETLK: struct flock");
	set(RP_REG_RSI, 36);
	one(72, 0x7000, 32, "fcntl F_OFD_GETLK");
	set(RP_REG_RSI, 16);
	one(72, 0x7000, 8, "fcntl F_GETOWN_EX: struct f_owner_ex");
	set(RP_REG_RSI, 6);
	cr_assert_eq(outs(72), -1, "fcntl F_SETLK: not in it");
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_R10, 0);
	one(61, 0x6000, 4, "wait4: the status alone");
	set(RP_REG_RSI, 0);
	cr_assert_eq(outs(61), 0, "wait4(pid, NULL, 0, NULL)");
}

Test(rcv_sys, review9_several)
{
	uint64_t va, vl;

	set(RP_REG_RDI, 1);
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 0x7000);
	set(RP_REG_R10, 0x8000);
	set(RP_REG_R8, 0);
	cr_assert_eq(outs(61), 2, "wait4 with a rusage");
	cr_assert(a[1] == 0x8000 && l[1] == 144);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "values: barrier");
	/* waitid: the six ints it puts, not the padding at 12 */
	cr_assert_eq(outs(247), 2, "waitid");
	cr_assert(a[0] == 0x7000 && l[0] == 12 && a[1] == 0x7010 &&
		  l[1] == 12);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "values: barrier");
	set(RP_REG_R8, 0x9000);
	cr_assert_eq(outs(247), 3, "waitid with a rusage");
	cr_assert(a[2] == 0x9000 && l[2] == 144);
	/* poll: each revents, 2 bytes at offset 6 of its pollfd */
	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 1);
	one(7, 0x5006, 2, "poll, one pollfd");
	set(RP_REG_RSI, 3);
	cr_assert_eq(outs(7), 3, "poll, three");
	cr_assert(a[2] == 0x5016 && l[2] == 2);
	/* more than the ranges a call has: from the first revents to the
	 * last pollfd's end, may (the values engine: a barrier)
	 */
	set(RP_REG_RSI, RCV_SYS_OUTS + 1);
	cr_assert_eq(outs(7), 1, "poll, too many");
	cr_assert(a[0] == 0x5006 &&
		  l[0] == ((8 * (RCV_SYS_OUTS + 1) - 6) | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "values: barrier");
	/* nfds not known: as far as an unsigned int reaches */
	st[0].r[RP_REG_RSI] = (struct rcv_val){ 0, 0 };
	cr_assert_eq(outs(7), 1, "poll, nfds not known");
	cr_assert(a[0] == 0x5006 &&
		  l[0] == ((8 * 0xffffffffull - 6) | RCV_SYS_MAYBE));
	set(RP_REG_RSI, 0);
	cr_assert_eq(outs(7), 0, "poll, none");
}

/* select: FDS_BYTES(n) of each set; the timeout may be left. */
Test(rcv_sys, review9_select)
{
	uint64_t va, vl;

	set(RP_REG_RDI, 5);
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 0);
	set(RP_REG_R10, 0x8000);
	set(RP_REG_R8, 0);
	cr_assert_eq(outs(23), 2, "select, two sets");
	cr_assert(a[0] == 0x6000 && l[0] == 8 && a[1] == 0x8000 &&
		  l[1] == 8);
	set(RP_REG_RDI, 65);
	set(RP_REG_R10, 0);
	one(23, 0x6000, 16, "select, 65 descriptors: two longs");
	set(RP_REG_RSI, 0);
	set(RP_REG_R8, 0x9000);
	cr_assert_eq(outs(23), 1, "select as a sleep");
	cr_assert(a[0] == 0x9000 && l[0] == (16 | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), 1);
	cr_assert(va == 0x9000 && vl == 16, "values: written, unknown");
	/* n not known: each set may be written from its base as far as
	 * n may reach (an int: INT_MAX at most), never anywhere (the
	 * values engine: a barrier, as before)
	 */
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_R8, 0);
	st[0].r[RP_REG_RDI] = (struct rcv_val){ 0, 0xffffffff00000000ull };
	cr_assert_eq(outs(23), 1, "select, n not known");
	cr_assert(a[0] == 0x6000 &&
		  l[0] == ((0x7fffffffull + 63) / 64 * 8 | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1);
	/* bit 7 not known (n is 101 or 229): 32 bytes */
	st[0].r[RP_REG_RDI] = (struct rcv_val){ 101, ~0x80ull };
	cr_assert_eq(outs(23), 1, "select, n 101 or 229");
	cr_assert(a[0] == 0x6000 && l[0] == (32 | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1);
	/* the int's sign known set: EINVAL, nothing */
	st[0].r[RP_REG_RDI] = (struct rcv_val){ 0x80000000, 0x80000000 };
	cr_assert_eq(outs(23), 0, "select, n negative");
	st[0].r[RP_REG_RDI] = (struct rcv_val){ 0, ~63ull };
	cr_assert_eq(outs(23), 1, "select, n below 64");
	cr_assert(a[0] == 0x6000 && l[0] == (8 | RCV_SYS_MAYBE));
	set(RP_REG_RDI, (1u << 19) + 1);
	cr_assert_eq(outs(23), 1, "select, a set past 64 KiB");
	cr_assert(l[0] == ((65536 + 8) | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "values: barrier");
	set(RP_REG_RDI, 1u << 19);
	one(23, 0x6000, 65536, "select, a set of 64 KiB");
	st[0].r[RP_REG_RSI].k = 0;
	cr_assert_eq(outs(23), -1, "select, a set not known");
}

/*
 * Session 14: ppoll's revents and time left, pselect6 as select with a
 * timespec, the socket calls that return an address, recvfrom,
 * epoll_wait's events, clock_nanosleep's rem, TIOCGWINSZ, the timers'
 * itimerspecs, adjtimex.
 */
Test(rcv_sys, kw2_calls)
{
	uint64_t va, vl;

	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RSI, 1);
	set(RP_REG_RDX, 0);
	one(271, 0x5006, 2, "ppoll without a timeout");
	set(RP_REG_RDX, 0x9000);
	cr_assert_eq(outs(271), 2, "ppoll with a timeout");
	cr_assert(a[0] == 0x5006 && l[0] == 2 && a[1] == 0x9000 &&
		  l[1] == (16 | RCV_SYS_MAYBE));
	st[0].r[RP_REG_RDX].k = 0;
	cr_assert_eq(outs(271), -1, "ppoll, tsp not known");
	/* pselect6(n, in, out, ex, tsp, sig): sig only read */
	set(RP_REG_RDI, 5);
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 0);
	set(RP_REG_R10, 0);
	set(RP_REG_R8, 0x9000);
	set(RP_REG_R9, 0xa000);
	cr_assert_eq(outs(270), 2, "pselect6");
	cr_assert(a[0] == 0x6000 && l[0] == 8 && a[1] == 0x9000 &&
		  l[1] == (16 | RCV_SYS_MAYBE));
	/* getsockname(fd, addr, alen): at most 128 bytes, and the int */
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 0x7000);
	cr_assert_eq(outs(51), 2, "getsockname");
	cr_assert(a[0] == 0x6000 && l[0] == (128 | RCV_SYS_MAYBE) &&
		  a[1] == 0x7000 && l[1] == (4 | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "values: barrier");
	set(RP_REG_RSI, 0);
	cr_assert_eq(outs(43), 0, "accept without an address");
	/* recvfrom(fd, buf, len, flags, addr, alen) */
	set(RP_REG_RSI, 0x6000);
	set(RP_REG_RDX, 10);
	set(RP_REG_R8, 0);
	one(45, 0x6000, 10, "recvfrom without an address");
	set(RP_REG_R8, 0x8000);
	set(RP_REG_R9, 0x8100);
	cr_assert_eq(outs(45), 3, "recvfrom with one");
	cr_assert(a[1] == 0x8000 && a[2] == 0x8100);
	/* epoll_wait(fd, events, max, timeout): max 12-byte events */
	set(RP_REG_RDX, 3);
	cr_assert_eq(outs(232), 1, "epoll_wait");
	cr_assert(a[0] == 0x6000 && l[0] == (36 | RCV_SYS_MAYBE));
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), 1);
	cr_assert(va == 0x6000 && vl == 36, "values: unknown after");
	cr_assert_eq(outs(281), 1, "epoll_pwait");
	cr_assert_eq(outs(441), 1, "epoll_pwait2");
	set(RP_REG_RDX, 0);
	cr_assert_eq(outs(232), 0, "epoll_wait, max 0: EINVAL");
	set(RP_REG_RDX, 100000);
	cr_assert_eq(outs(232), -1, "epoll_wait, too many");
	/* clock_nanosleep(clock, flags, req, rem) */
	set(RP_REG_R10, 0x7000);
	cr_assert_eq(outs(230), 1, "clock_nanosleep");
	cr_assert(a[0] == 0x7000 && l[0] == (16 | RCV_SYS_MAYBE));
	set(RP_REG_R10, 0);
	cr_assert_eq(outs(230), 0, "clock_nanosleep without rem");
	/* ioctl TIOCGWINSZ: struct winsize */
	set(RP_REG_RSI, 0x5413);
	set(RP_REG_RDX, 0x7000);
	one(16, 0x7000, 8, "TIOCGWINSZ");
	set(RP_REG_RSI, 0x5414);
	cr_assert_eq(outs(16), -1, "TIOCSWINSZ: not in the table");
	set(RP_REG_RSI, 0x6000);
	one(224, 0x6000, 32, "timer_gettime");
	one(287, 0x6000, 32, "timerfd_gettime");
	set(RP_REG_R10, 0);
	cr_assert_eq(outs(223), 0, "timer_settime without old");
	set(RP_REG_RDI, 0x5000);
	one(159, 0x5000, 208, "adjtimex");
}

/* clone: the tid words by flags, for watchpoints only. */
Test(rcv_sys, review9_clone)
{
	uint64_t va, vl;

	set(RP_REG_RDI, 0x100 | 0x00100000 | 0x01000000 | 17);
	set(RP_REG_RDX, 0x7000);
	set(RP_REG_R10, 0x8000);
	cr_assert_eq(outs(56), 2, "CLONE_VM, PARENT_SETTID, CHILD_SETTID");
	cr_assert(a[0] == 0x7000 && l[0] == 4 && a[1] == 0x8000 &&
		  l[1] == 4);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "values: as before");
	set(RP_REG_RDI, 0x00100000 | 0x01000000 | 17);
	cr_assert_eq(outs(56), 1, "no CLONE_VM: ctid is the child's");
	cr_assert(a[0] == 0x7000 && l[0] == 4);
	set(RP_REG_RDI, 0x1000 | 0x100);
	cr_assert_eq(outs(56), 1, "CLONE_PIDFD: at ptid");
	cr_assert(a[0] == 0x7000 && l[0] == 4);
	set(RP_REG_RDI, 17);
	cr_assert_eq(outs(56), 0, "fork-like: nothing in the parent");
	st[0].r[RP_REG_RDI].k = ~0x00100000ull;
	cr_assert_eq(outs(56), -1, "PARENT_SETTID not known");
	set(RP_REG_RDI, 0x00100000);
	st[0].r[RP_REG_RDX].k = 0;
	cr_assert_eq(outs(56), -1, "ptid not known");
	set(RP_REG_RDI, 0x5000);
	set(RP_REG_RAX, 435);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "clone3: values");
	set(RP_REG_RAX, 125);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "capget: values");
	set(RP_REG_RAX, 327);
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "preadv2: values");
}

/*
 * mmap without MAP_FIXED writes nothing the process could access before
 * it; with MAP_FIXED, or flags not known, a barrier (-1).
 */
Test(rcv_sys, mmap_not_fixed)
{
	uint64_t va = 0, vl = 0;

	set(RP_REG_RAX, 9);
	set(RP_REG_R10, 0x22);		/* MAP_PRIVATE | MAP_ANONYMOUS */
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), 0);
	set(RP_REG_R10, 0x100022);	/* MAP_FIXED_NOREPLACE too */
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), 0);
	set(RP_REG_R10, 0x32);		/* MAP_FIXED */
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1);
	st[0].r[RP_REG_R10] = (struct rcv_val){ 0x22, ~0x10ull };
	cr_assert_eq(rcv_sys_write(&w, 0, &va, &vl), -1, "MAP_FIXED unknown");
}

/*
 * mprotect asking for PROT_WRITE (rdx bit 1 known set) keeps every page
 * the read-only rule answers for, whatever its range; bit 1 known clear
 * or not known, or another call: not by that rule.
 */
Test(rcv_sys, prot_write)
{
	struct rcv_val dx = { 0x3, 0xff };

	cr_assert(rcv_sys_prot_write(10, &dx));
	dx = (struct rcv_val){ 0x2, 0x2 };
	cr_assert(rcv_sys_prot_write(10, &dx), "only bit 1 known");
	dx = (struct rcv_val){ 0x1, 0xff };
	cr_assert(!rcv_sys_prot_write(10, &dx), "PROT_READ");
	dx = (struct rcv_val){ 0x1, 0xfd };
	cr_assert(!rcv_sys_prot_write(10, &dx), "bit 1 not known");
	dx = (struct rcv_val){ 0x3, 0xff };
	cr_assert(!rcv_sys_prot_write(329, &dx), "pkey_mprotect");
	cr_assert(!rcv_sys_prot_write(9, &dx), "mmap");
	/* In the window: the call keeps the mappings, its range unknown. */
	set(RP_REG_RAX, 10);
	st[0].r[RP_REG_RDX] = (struct rcv_val){ 0x3, 0xff };
	cr_assert(rcv_sys_keeps_maps(&w, 0));
	st[0].r[RP_REG_RDX] = (struct rcv_val){ 0x1, 0xff };
	cr_assert(!rcv_sys_keeps_maps(&w, 0));
}

/* Which calls may map a file: mmap but anonymous ones, mremap, shmat,
 * remap_file_pages, exec; not brk, munmap, mprotect.
 */
Test(rcv_sys, maps_file)
{
	struct rcv_val anon = { 0x22, ~0ull }, file = { 0x2, ~0ull };
	struct rcv_val none = { 0, 0 };

	cr_assert(!rcv_sys_maps_file(9, &anon));
	cr_assert(rcv_sys_maps_file(9, &file));
	cr_assert(rcv_sys_maps_file(9, &none), "flags not known");
	cr_assert(rcv_sys_maps_file(25, &none));
	cr_assert(rcv_sys_maps_file(30, &none));
	cr_assert(rcv_sys_maps_file(216, &none));
	cr_assert(rcv_sys_maps_file(59, &none));
	cr_assert(!rcv_sys_maps_file(12, &none));
	cr_assert(!rcv_sys_maps_file(11, &none));
	cr_assert(!rcv_sys_maps_file(10, &none));
}

/*
 * A window of three system calls at the thread's end: brk (break not
 * known) at 0, then @nr1 (flags @fl1) at 1, then exit_group at 2.  A
 * file's page read before the brk is kept when nothing after it maps a
 * file (no other task here), not when an mmap of a file follows; and
 * never past a call that is not a brk and may change a mapping.
 */
static bool keeps_file_with(uint64_t nr1, uint64_t fl1, bool listed)
{
	static struct rcv_ins in3[3];
	static struct rcv_state st3[4];
	static size_t at[3] = { 0, 1, 2 };
	static struct rcv_part part[3];
	struct rp_recover r3;
	struct win w3;
	size_t k;

	memset(in3, 0, sizeof(in3));
	memset(st3, 0, sizeof(st3));
	memset(part, 0, sizeof(part));
	memset(&r3, 0, sizeof(r3));
	for (k = 0; k < 3; k++)
		in3[k].flags = RCV_I_SYSCALL;
	st3[0].r[RP_REG_RAX] = (struct rcv_val){ 12, ~0ull };
	st3[1].r[RP_REG_RAX] = (struct rcv_val){ nr1, ~0ull };
	st3[1].r[RP_REG_R10] = (struct rcv_val){ fl1, ~0ull };
	st3[2].r[RP_REG_RAX] = (struct rcv_val){ 231, ~0ull };
	part[0].prot = true;
	w3 = (struct win){ .st = st3, .ins = in3, .n = 3, .rc = &r3,
			   .top_end = true, .protc = 0, .protf = -1,
			   .sys_listed = listed, .nsys = 3, .sys_at = at,
			   .sys_part = part };
	if (nr1 == 10) {	/* a call that is not a brk, after it */
		part[1].prot = true;
		w3.protc = w3.protf = 1;
	}
	return rcv_sys_keeps_file(&w3, 0);
}

Test(rcv_sys, keeps_file)
{
	cr_assert(keeps_file_with(9, 0x22, true), "an anonymous mmap after");
	cr_assert(!keeps_file_with(9, 0x2, true), "a file mapped after");
	cr_assert(!keeps_file_with(25, 0, true), "mremap after");
	cr_assert(!keeps_file_with(10, 0, true), "not a brk");
	cr_assert(!keeps_file_with(9, 0x22, false), "the calls not listed");
}
