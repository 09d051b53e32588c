// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review of the read-only rule's ordering (rcv_order.c) and its single-
 * thread form (rcv_mem.c ro_mem()), for tests/values/run.sh: worlds the
 * trace and snapshot allow in which a read-only page changes after the
 * main thread's load of it with no system call or recorded task to show
 * it.  A page made read-only holds 0x66; the main thread loads it into
 * r12 (`movzbq 0x20000000, %r12`, three nops, cleared), then something
 * the engine does not see makes the page hold something else at the end:
 *
 *   untraced: a task made with clone(CLONE_VM | CLONE_UNTRACED): ptrace's
 *             TRACECLONE does not follow it, so the recording has one
 *             thread and no clone record, yet it shares the memory.  It
 *             mprotects the page writable, stores 0x77 and makes it
 *             read-only again after the load; the main thread only
 *             spins (no system call) until it is done.
 *   vforkvm:  the task that changes the page is a grandchild: vfork()'s
 *             child makes it with clone(CLONE_VM) (recorded: TRACECLONE
 *             follows it) and exits.  rcv_vm_shared() skips CLONE_VFORK
 *             children, and the grandchild's parent is that child, so
 *             the main thread's process counts as single-threaded while
 *             a recorded task shares its memory after the vfork returns.
 *   sigbits:  not about the read-only rule: raise(SIGUSR1) with an
 *             SA_SIGINFO handler.  glibc's tgkill sets esi (the tid) and
 *             edx (the signal) with 32-bit moves, so their upper halves
 *             are known 0 before the system call; the signal is delivered
 *             on its return, and the handler's rsi and rdx are the
 *             kernel's (&info, &uc: stack addresses).  The handler keeps
 *             rsi's upper half in r13 (`movabs $0xffffffff00000000,%r13;
 *             and %rsi,%r13`): 0x7fff........00000000 in truth.
 *   sigkill:  the same with whole values: kill(getpid(), SIGUSR1) by a
 *             raw `syscall` with rsi = 10 and rdx = 0x5678 known; the
 *             signal is delivered on its return and the handler's rsi
 *             and rdx are &info and &uc.  The handler copies
 *             rsi into r13.  (rcv_build_index() clears RCV_I_BARRIER on
 *             every system call whose number is known, also the one
 *             win_load() set for the transfer after it.)
 *   sigjcc:   a SIGALRM (setitimer, every 2 ms) handler reached by a
 *             signal delivered right after `jne sigjcc_handler`, a direct
 *             branch to the handler's own entry that is never taken (ZF
 *             is 1): the trace (jne, then the handler) looks like the
 *             branch taken, so no transfer is seen and rdi = 0x1234, rsi
 *             = 0x5678 from before flow into the handler (truth: 14 and
 *             the kernel's).  The loop is `jne; jmp`: about half of the
 *             signals come after the jne; the handler exits at the 40th.
 *   uring:    before the load, one io_uring_enter submits a timeout
 *             hard-linked to IORING_OP_MADVISE(MADV_DONTNEED) of the
 *             page: the kernel zeroes it 10 ms later, after the call
 *             returned and after the load, while the main thread spins
 *             on the page (no system call).  The end's page holds 0.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define PAGE 0x20000000ul

static volatile int go, done;
static unsigned char *page;

static void load(void)
{
	__asm__ volatile("movzbq 0x20000000, %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : : "r12", "memory");
}

static int hidden(void *arg)
{
	(void)arg;
	while (!go)
		;
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
	page[0] = 0x77;
	mprotect(page, 4096, PROT_READ);
	done = 1;
	syscall(SYS_exit, 0);
	return 0;
}

static void untraced(void)
{
	static char stack[65536] __attribute__((aligned(16)));

	if (clone(hidden, stack + sizeof(stack),
		  CLONE_VM | CLONE_UNTRACED | SIGCHLD, NULL) < 0)
		abort();
	load();
	go = 1;
	while (!done)
		;
}

/* clone3 with CLONE_VM | CLONE_VFORK | CLONE_UNTRACED: the recorder takes
 * the flag out of the clone_args in memory while the call runs (so that
 * it follows the child) and puts it back: the parent finds it there
 * after (exit status 3 if not).  The child changes the read-only page
 * while the parent waits, after the parent's load.
 */
static void untraced3(void)
{
	static struct clone_args ca;
	long r;

	ca.flags = CLONE_VM | CLONE_VFORK | CLONE_UNTRACED;
	ca.exit_signal = SIGCHLD;
	load();
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0) {
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
		page[0] = 0x77;
		mprotect(page, 4096, PROT_READ);
		syscall(SYS_exit, 0);
	}
	if (r < 0 || !(ca.flags & CLONE_UNTRACED))
		exit(3);
}

static void vforkvm(void)
{
	static char stack[65536] __attribute__((aligned(16)));

	if (vfork() == 0) {
		clone(hidden, stack + sizeof(stack), CLONE_VM | SIGCHLD,
		      NULL);
		_exit(0);
	}
	load();
	go = 1;
	while (!done)
		;
}

static void sigbits_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	__asm__ volatile("movabs $0xffffffff00000000, %%r13\n\t"
			 "and %%rsi, %%r13\n\tnop\n\tnop\n\t"
			 "xor %%r13d, %%r13d" : : : "r13");
}

static void sigbits(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigbits_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
}

static void sigkill_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	__asm__ volatile("mov %%rsi, %%r13\n\tnop\n\tnop\n\t"
			 "xor %%r13d, %%r13d" : : : "r13");
}

static void sigkill(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigkill_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	__asm__ volatile("mov $10, %%esi\n\t"
			 "mov $0x5678, %%edx\n\tmov $62, %%eax\n\tsyscall"
			 : : "D"((long)getpid())
			 : "rax", "rsi", "rdx", "rcx", "r11", "memory");
}

volatile int sigjcc_hits;

void sigjcc_handler(int sig);
__attribute__((noinline, used)) void sigjcc_handler(int sig)
{
	(void)sig;
	if (++sigjcc_hits == 40)
		_exit(0);
}

/* sigjcc deterministic (sigill, in values-test): `jne sigill_handler`
 * never taken (ZF 1), then ud2, whose SIGILL runs sigill_handler, the
 * jne's own target: the trace (jne, then the handler's entry) looks like
 * the branch taken.  Truth: rdi 4 (SIGILL), rsi the kernel's &info.
 */
void sigill_handler(int sig);
__attribute__((noinline, used)) void sigill_handler(int sig)
{
	(void)sig;
	__asm__ volatile("mov %%rsi, %%r13\n\tnop\n\tnop\n\t"
			 "xor %%r13d, %%r13d" : : : "r13");
	_exit(0);
}

static void sigill(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigill_handler;
	sigaction(SIGILL, &sa, NULL);
	__asm__ volatile("mov $0x1234, %%edi\n\tmov $0x5678, %%esi\n\t"
			 "cmp %%eax, %%eax\n\t"
			 "jne sigill_handler\n\tud2"
			 : : : "rdi", "rsi", "cc", "memory");
}

static void sigjcc(void)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigjcc_handler;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	__asm__ volatile("mov $0x1234, %%edi\n\tmov $0x5678, %%esi\n\t"
			 "cmp %%eax, %%eax\n"
			 "1:\tjne sigjcc_handler\n\tjmp 1b"
			 : : : "rdi", "rsi", "cc", "memory");
}

/* The zeroing of the page, queued before the load: a 10 ms timeout
 * hard-linked to madvise(page, 4096, MADV_DONTNEED).
 */
static void uring(void)
{
	static struct __kernel_timespec ts = { 0, 10 * 1000 * 1000 };
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	unsigned int *tail, *array;
	char *sq;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		exit(77);	/* no io_uring here (seccomp, sysctl) */
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4,
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_SQ_RING);
	sqe = mmap(NULL, p.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqe == MAP_FAILED)
		abort();
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe[0].opcode = IORING_OP_TIMEOUT;
	sqe[0].flags = IOSQE_IO_HARDLINK;
	sqe[0].addr = (uintptr_t)&ts;
	sqe[0].len = 1;
	sqe[1].opcode = IORING_OP_MADVISE;
	sqe[1].addr = (uintptr_t)page;
	sqe[1].len = 4096;
	sqe[1].fadvise_advice = MADV_DONTNEED;
	array = (unsigned int *)(sq + p.sq_off.array);
	array[0] = 0;
	array[1] = 1;
	tail = (unsigned int *)(sq + p.sq_off.tail);
	__atomic_store_n(tail, 2, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 2, 0, 0, NULL, 0) != 2)
		abort();
	load();
	while (*(volatile unsigned char *)page)
		;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "untraced";

	page = mmap((void *)PAGE, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page != (void *)PAGE)
		return 1;
	page[0] = 0x66;
	mprotect(page, 4096, PROT_READ);
	if (!strcmp(mode, "untraced"))
		untraced();
	else if (!strcmp(mode, "untraced3"))
		untraced3();
	else if (!strcmp(mode, "vforkvm"))
		vforkvm();
	else if (!strcmp(mode, "sigbits"))
		sigbits();
	else if (!strcmp(mode, "sigkill"))
		sigkill();
	else if (!strcmp(mode, "sigill"))
		sigill();
	else if (!strcmp(mode, "sigjcc"))
		sigjcc();
	else if (!strcmp(mode, "uring"))
		uring();
	else if (!strcmp(mode, "uring-probe"))
		return syscall(__NR_io_uring_setup, 4,
			       &(struct io_uring_params){ 0 }) < 0 ? 77 : 0;
	else
		return 2;
	return 0;
}
