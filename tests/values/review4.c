// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 4 (adversarial) of the values engine's promise "never a wrong
 * value", one case per mode, for valcheck (tests/values/review4.sh).
 * The page at 0x20000000 is a memfd page mapped at a fixed address, so
 * the instructions that touch it have known addresses:
 *
 *   trunc:      MAP_PRIVATE, writable.  A store of 0x11 (known address),
 *               then ftruncate(fd, 0) and ftruncate(fd, 4096): truncation
 *               unmaps even the private copies of the pages past the new
 *               size (truncate_pagecache, even_cows), so the next load
 *               reads the file's new page: 0.  ftruncate is in the table
 *               of calls that write no user memory (rcv_sys_quiet).
 *   truncro:    MAP_PRIVATE, read-only, the file holds 0x66: the load
 *               reads 0x66, then the same two ftruncate calls; the end's
 *               page holds 0.  ftruncate keeps the read-only rule
 *               (rcv_sys_keeps_maps), though rcv_order.c's comment says
 *               "ftruncate (a file page never copied follows the file)".
 *   truncshared: MAP_SHARED, writable: store 0x11, the two ftruncate,
 *               load (0).
 *   otrunc:     as trunc, but open(/proc/self/fd/N, O_RDWR | O_TRUNC)
 *               and write(2) of a 4096-byte page of 0x22 to it: open and
 *               a write to a regular file are "quiet" too.  Load: 0x22.
 *   truncu, otruncu: trunc and otrunc with the page unmapped after the
 *               load (munmap), so the end's snapshot cannot show it: the
 *               store's 0x11 flows forward across the quiet calls.
 *   grow:       munmap, then a MAP_GROWSDOWN mapping grown over the page
 *               by a fault (see grow()).
 *   execro, execmtro: the end's snapshot is another image's (see below).
 *   vforkctid:  a store of 0x1234 to a global, then a raw clone(CLONE_VM |
 *               CLONE_VFORK | CLONE_CHILD_CLEARTID, ctid = the global):
 *               the child's exit writes 0 there (mm_release, the parent's
 *               memory is the child's) before the parent resumes.
 *   execmt:     a second thread execve()s this program ("exited"), which
 *               kills the main thread (the old leader: its tid is the
 *               pid the new image runs under) in a loop that keeps r12 =
 *               0x1234.
 *   execmt3, execmtjoin, execlead: an execve while other threads of the
 *               process spin with counters or block (see execmt3()).
 *
 * More, each described above its function: fallsig, clone80, madvfree,
 * tsxabort (skipped without RTM), repfault, repmt, groupctid, groupsegv,
 * execfail, exit80, uffd (skipped without userfaultfd); anon is the
 * control for the trunc family (r12 known 0x11 through memory).
 * tests/values/review4.sh says what each gave on main.
 *
 * Each mode ends with exit_group right after its case.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 0x20000000ul

static const char *self;

static void load(void)
{
	__asm__ volatile("movzbq 0x20000000, %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : : "r12", "memory");
}

static void store11(void)
{
	__asm__ volatile("movb $0x11, 0x20000000" : : : "memory");
}

/* The byte before the calls that change it, in r13 (cleared after). */
static void load13(void)
{
	__asm__ volatile("movzbq 0x20000000, %%r13\n\tnop\n\tnop\n\t"
			 "xor %%r13d, %%r13d" : : : "r13", "memory");
}

static int mapfd(int prot, int flags, int fill)
{
	char buf[4096];
	int fd = memfd_create("review4", 0);

	memset(buf, fill, sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    mmap((void *)PAGE, 4096, prot, flags | MAP_FIXED, fd, 0) !=
	    (void *)PAGE)
		exit(2);
	return fd;
}

/* ftruncate(fd, 0), ftruncate(fd, 4096) as raw system calls: nothing
 * between them and the accesses around (no lazy binding, no errno).
 */
static void retrunc(int fd)
{
	long r0, r1;

	__asm__ volatile("mov $77, %%eax\n\tsyscall" : "=a"(r0)
			 : "D"((long)fd), "S"(0L) : "rcx", "r11", "memory");
	__asm__ volatile("mov $77, %%eax\n\tsyscall" : "=a"(r1)
			 : "D"((long)fd), "S"(4096L) : "rcx", "r11", "memory");
	if ((r0 || r1) && fd >= 0)
		exit(3);
}

static void trunc_case(int flags)
{
	int fd = mapfd(PROT_READ | PROT_WRITE, flags, 0);

	store11();
	load13();
	retrunc(fd);
	load();
}

/* The same with a value the engine cannot know (rdtsc's low byte, made
 * odd) stored, then loaded into r13 before the two ftruncate calls.
 */
static void truncrnd(void)
{
	int fd = mapfd(PROT_READ | PROT_WRITE, MAP_PRIVATE, 0);

	__asm__ volatile("rdtsc\n\tor $1, %%al\n\tmov %%al, 0x20000000"
			 : : : "rax", "rdx", "memory");
	load13();
	retrunc(fd);
}

/* munmap(PAGE) as a raw call: the end's snapshot no longer shows the
 * page, so what the engine says of it before comes from the history.
 */
static void unmap_page(unsigned long a)
{
	long r;

	__asm__ volatile("mov $11, %%eax\n\tsyscall" : "=a"(r)
			 : "D"(a), "S"(4096L) : "rcx", "r11", "memory");
	if (r)
		exit(5);
}

/*
 * grow: a MAP_GROWSDOWN mapping of two pages at 0x20100000; a store of
 * 0x11 into its lower page, munmap of that page, then a load there: the
 * fault below the mapping's start grows it (expand_stack) with a new
 * zero page, no system call.  munmap is "quiet" (rcv_sys_quiet: bytes
 * gone, none changed).  The page is unmapped again before the end.
 */
static void grow(void)
{
	if (mmap((void *)0x20100000, 8192, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_FIXED, -1,
		 0) != (void *)0x20100000)
		exit(2);
	__asm__ volatile("movb $0x11, 0x20100000" : : : "memory");
	unmap_page(0x20100000);
	__asm__ volatile("movzbq 0x20100000, %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : : "r12", "memory");
	unmap_page(0x20100000);
}

static void truncro(void)
{
	int fd = mapfd(PROT_READ, MAP_PRIVATE, 0x66);

	load();
	retrunc(fd);
}

static void otrunc(void)
{
	int fd = mapfd(PROT_READ | PROT_WRITE, MAP_PRIVATE, 0), fd2;
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(buf, 0x22, sizeof(buf));
	store11();
	fd2 = open(path, O_RDWR | O_TRUNC);
	if (fd2 < 0 || write(fd2, buf, sizeof(buf)) != sizeof(buf))
		exit(3);
	load();
}

static volatile uint32_t word;

/*
 * A raw clone(@flags, stack, ptid 0, ctid &word, tls 0) after a store of
 * 0x1234 to word: the child waits until *@gate is set, then exits (its
 * exit writes 0 to word).  Then, in the parent, word read into r12 (the
 * value valcheck compares).  Returns the parent's clone result.
 */
static long clone_ctid(long flags, volatile int *gate)
{
	static char stack[65536] __attribute__((aligned(16)));
	long r;

	__asm__ volatile("movl $0x1234, %0" : "=m"(word) : : "memory");
	__asm__ volatile("mov %[fl], %%rdi\n\t"
			 "mov %[st], %%rsi\n\t"
			 "xor %%edx, %%edx\n\t"
			 "mov %[ct], %%r10\n\t"
			 "xor %%r8d, %%r8d\n\t"
			 "mov $56, %%eax\n\t"
			 "syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n"
			 "2:\t"
			 "cmpl $0, %[go]\n\t"
			 "je 2b\n\t"
			 "xor %%edi, %%edi\n\t"
			 "mov $60, %%eax\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(r)
			 : [fl] "r"(flags), [go] "m"(*gate),
			   [st] "r"(stack + sizeof(stack)),
			   [ct] "r"(&word)
			 : "rdi", "rsi", "rdx", "r10", "r8", "rcx", "r11",
			   "memory");
	if (r < 0)
		exit(3);
	return r;
}

/* The parent's read of word into r12, then three nops. */
static void read_word(void)
{
	__asm__ volatile("mov %0, %%r12d\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : "m"(word) : "r12");
}

/* vforkctid: the child exits at once (the parent waits for it). */
static void vforkctid(void)
{
	static volatile int open_gate = 1;

	clone_ctid(CLONE_VM | CLONE_VFORK | CLONE_CHILD_CLEARTID | SIGCHLD,
		   &open_gate);
	read_word();
}

/*
 * clonevmctid: the same child made with clone(CLONE_VM |
 * CLONE_CHILD_CLEARTID | SIGCHLD) (another process sharing the memory,
 * not a thread, no vfork): the child waits for the parent's store to
 * `go`, then exits; the parent spins until the child's exit has written
 * 0 to `word` (no instruction stores 0 there), then reads it.
 */
static volatile int go;

static void clonevmctid(void)
{
	clone_ctid(CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD, &go);
	go = 1;		/* the child exits after this store */
	while (word)
		;
	read_word();
}

static volatile int started;
volatile int r4_never;
static const char *then = "exited";

static void *execer(void *arg)
{
	char *argv[] = { (char *)self, (char *)then, NULL };

	(void)arg;
	while (!started)
		;
	execv(self, argv);
	exit(4);
}

static void execmt(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, execer, NULL))
		exit(3);
	started = 1;
	/* a conditional branch in the loop, so that the trace counts its
	 * iterations (no RP_GAP_LOOP: valcheck compares every position)
	 */
	for (;;)
		__asm__ volatile("1:\tmov $0x1234, %%r12\n\tmov %%r12, %%r13\n\t"
				 "add $1, %%r13\n\tcmpl $0, r4_never(%%rip)\n\t"
				 "je 1b" : : : "r12", "r13", "cc");
}

/*
 * The interleavings of an execve with the other threads of the process
 * (the recorder holds them while it runs: record/emu.c exec_held()),
 * each with counting loops, whose values at every position valcheck
 * checks against the truth (a history that went on past the old image's
 * end state gives them off by the iterations it went on):
 *   execmt3:    a third thread execs ("exited") while the main thread
 *               (the leader, r12) and a second thread (r14) count.
 *   execmtjoin: a second thread execs while the main thread blocks in
 *               pthread_join() on it (killed inside the system call).
 *   execlead:   the main thread execs while a second thread counts.
 */
static void *counter(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("1:\tadd $1, %%r14\n\tmov %%r14, %%r15\n\t"
				 "cmpl $0, r4_never(%%rip)\n\tje 1b"
				 : : : "r14", "r15", "cc");
	return NULL;
}

static void count_r12(void)
{
	for (;;)
		__asm__ volatile("1:\tadd $1, %%r12\n\tmov %%r12, %%r13\n\t"
				 "cmpl $0, r4_never(%%rip)\n\tje 1b"
				 : : : "r12", "r13", "cc");
}

static void execmt3(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, counter, NULL) ||
	    pthread_create(&b, NULL, execer, NULL))
		exit(3);
	started = 1;
	count_r12();
}

static void execmtjoin(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, execer, NULL))
		exit(3);
	started = 1;
	pthread_join(t, NULL);
	exit(5);
}

static void execlead(void)
{
	char *argv[] = { (char *)self, "exited", NULL };
	pthread_t t;
	int i;

	if (pthread_create(&t, NULL, counter, NULL))
		exit(3);
	for (i = 0; i < 20000; i++)
		__asm__ volatile("add $1, %%r12" : : : "r12", "cc");
	execv(self, argv);
	exit(4);
}

/* A read-only anonymous page at PAGE holding @v. */
static void ropage(int v)
{
	unsigned char *p = mmap((void *)PAGE, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
				0);

	if (p != (void *)PAGE)
		exit(2);
	p[0] = (unsigned char)v;
	if (mprotect(p, 4096, PROT_READ))
		exit(2);
}

/*
 * execro: the page holds 0x66, the load, then execve of this program
 * ("ro77"), which maps the same address read-only with 0x77 and exits:
 * the end's snapshot is the new image's.  execmtro: the same load in the
 * main thread's spin while a second thread execs ("ro77"): the main
 * thread's tid goes on as the new image's.
 */
static void execro(void)
{
	char *argv[] = { (char *)self, "ro77", NULL };

	ropage(0x66);
	load();
	execv(self, argv);
	exit(4);
}

static void execmtro(void)
{
	pthread_t t;

	ropage(0x66);
	then = "ro77";
	if (pthread_create(&t, NULL, execer, NULL))
		exit(3);
	started = 1;
	for (;;)
		__asm__ volatile("1:\tmovzbq 0x20000000, %%r12\n\tnop\n\t"
				 "xor %%r12d, %%r12d\n\tcmpl $0, r4_never(%%rip)\n\t"
				 "je 1b" : : : "r12", "memory", "cc");
}

/*
 * tsxabort: an RTM transaction that aborts (xabort; under the software
 * recorder's single steps it aborts at its first step anyway, status
 * 0x10, "debug"): r13 = 3 before, the transaction sets r13 = 1 and
 * stores 0x44 into tsxbuf (0x11 before), the fallback copies r13 into
 * r12.  The truth: r12 = 3, tsxbuf 0x11, printed.  Exit status 7 where
 * the processor has no RTM (CPUID.7.0:EBX[11]).
 */
static volatile unsigned char tsxbuf[64];

static void tsxabort(void)
{
	unsigned int a, b, c, d;
	unsigned long r12, r13;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 11)))
		exit(7);
	__asm__ volatile("mov $-1, %%eax\n\t"
			 "mov $3, %%r13\n\t"
			 "movb $0x11, %[b]\n\t"
			 "xbegin 1f\n\t"
			 "mov $1, %%r13\n\t"
			 "movb $0x44, %[b]\n\t"
			 "xabort $0x9\n\t"
			 "xend\n"
			 "1:\tmov %%r13, %%r12\n\t"
			 "movzbq %[b], %%r13\n\t"
			 "mov %%r12, %0\n\tmov %%r13, %1\n\t"
			 : "=r"(r12), "=r"(r13), [b] "+m"(tsxbuf[0])
			 : : "rax", "r12", "r13", "memory");
	printf("tsx r12 %#lx tsxbuf %#lx\n", r12, r13);
	fflush(stdout);
}

/*
 * fallsig: kill(getpid(), SIGUSR1) by a raw syscall whose next
 * instruction is the handler's entry: the signal is delivered on the
 * call's return, so the trace goes from the syscall to the address after
 * it, as if the call returned there.  The handler's rdi is 10 (the
 * signal), rsi &info and rdx &uc, rsp the frame's; before the call rdi
 * was the pid, rsi 10, rdx 0x5678.  The handler keeps rsi in r13 and rdx
 * in r14, then exit_group.
 */
void fallsig(long pid);
void fallsig_handler(int sig);
__asm__(".text\n"
	".globl fallsig\n"
	"fallsig:\n"
	"	mov $10, %esi\n"
	"	mov $0x5678, %edx\n"
	"	mov $62, %eax\n"
	"	syscall\n"
	".globl fallsig_handler\n"
	"fallsig_handler:\n"
	"	mov %rsi, %r13\n"
	"	mov %rdx, %r14\n"
	"	nop\n"
	"	nop\n"
	"	xor %r13d, %r13d\n"
	"	xor %r14d, %r14d\n"
	"	xor %edi, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n");

/*
 * clone80: the clonevm case of tests/values/holes.c, with the child made
 * by i386's clone through int 0x80 (ebx = CLONE_VM | SIGCHLD, ecx = a
 * stack below 4 GiB): the recorder takes a THREAD_START's clone flags
 * from rdi of a 64-bit clone or clone3 only, so the record says 0 and
 * the child (its own pid) is not in the parent's memory share set.  The
 * parent loads g (0x1111) into r12, sets go, and spins until the child,
 * which stored 0x2222 into g, sets done.  Truth r12 = 0x1111.
 */
volatile long r4_g = 0x1111, r4_go, r4_done;

static void clone80(void)
{
	if (mmap((void *)0x30000000, 65536, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
	    (void *)0x30000000)
		exit(2);
	__asm__ volatile("mov $0x111, %%ebx\n\t"
			 "mov $0x30010000, %%ecx\n\t"
			 "xor %%edx, %%edx\n\t"
			 "xor %%esi, %%esi\n\t"
			 "xor %%edi, %%edi\n\t"
			 "mov $120, %%eax\n\t"
			 "int $0x80\n\t"
			 "test %%eax, %%eax\n\t"
			 "jnz 3f\n"
			 "1:\tcmpq $0, r4_go(%%rip)\n\t"
			 "je 1b\n\t"
			 "movq $0x2222, r4_g(%%rip)\n\t"
			 "movq $1, r4_done(%%rip)\n\t"
			 "xor %%edi, %%edi\n\t"
			 "mov $60, %%eax\n\t"
			 "syscall\n"
			 "3:\tmov r4_g(%%rip), %%r12\n\t"
			 "movq $1, r4_go(%%rip)\n"
			 "2:\tcmpq $0, r4_done(%%rip)\n\t"
			 "je 2b\n\t"
			 "xor %%r12d, %%r12d\n\t"
			 "xor %%edi, %%edi\n\t"
			 "mov $231, %%eax\n\t"
			 "syscall"
			 : : : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r11",
			   "r12", "memory");
}

/*
 * groupctid: a thread made by raw clone with CLONE_CHILD_SETTID and
 * CLONE_CHILD_CLEARTID (ctid = &r4_ctid) spins; main waits for the
 * kernel's SETTID write, then exit_group: the thread's exit writes 0 to
 * r4_ctid after main's, when the recorder may already be reading the
 * memory (the end's r4_ctid must be the thread's tid, or unknown).
 */
volatile int r4_ctid;

static void groupctid(void)
{
	static char stack[65536] __attribute__((aligned(16)));

	__asm__ volatile("mov $0x1350f00, %%edi\n\t"
			 "lea %[st], %%rsi\n\t"
			 "xor %%edx, %%edx\n\t"
			 "lea r4_ctid(%%rip), %%r10\n\t"
			 "xor %%r8d, %%r8d\n\t"
			 "mov $56, %%eax\n\t"
			 "syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 2f\n"
			 "1:\tjmp 1b\n"
			 "2:\tcmpl $0, r4_ctid(%%rip)\n\t"
			 "je 2b\n\t"
			 "mov $500, %%ecx\n"
			 "3:\tdec %%ecx\n\t"
			 "jnz 3b\n\t"
			 "xor %%edi, %%edi\n\t"
			 "mov $231, %%eax\n\t"
			 "syscall"
			 : : [st] "m"(stack[sizeof(stack)])
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r10",
			   "r11", "memory");
}

/*
 * groupsegv: examples/demo's end: of two threads one spins, the other
 * dies of a SIGSEGV (a store to address 0) while main waits in
 * pthread_join: a group exit.  Every thread must stop at its exit event
 * before the kernel's writes (EXIT_FUTEX): the recorder stepped the
 * spinning one, ready at its last step, out of the exit stop the group
 * exit had brought it to, unseen (no EXIT_FUTEX record).
 */
static volatile int r4_gs_go;

static void *gs_spin(void *arg)
{
	r4_gs_go = 1;
	for (;;)
		__asm__ volatile("" : : : "memory");
	return arg;
}

static void *gs_die(void *arg)
{
	while (!r4_gs_go)
		__asm__ volatile("" : : : "memory");
	*(volatile int *)(uintptr_t)r4_gs_go = 0;	/* address 1 */
	return arg;
}

static void groupsegv(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, gs_spin, NULL);
	pthread_create(&b, NULL, gs_die, NULL);
	pthread_join(b, NULL);
}

/*
 * uffd: the main thread loads a page registered with userfaultfd
 * (missing mode, user faults only); a second thread reads the fault's
 * message and fills the page with UFFDIO_COPY.  Natively instant; the
 * software recorder waits for the main thread's single step, which waits
 * in the fault for the thread the recorder does not run: it hangs.
 * Exit status 7 where userfaultfd is not allowed.
 */
static int r4_uffd;

static void *uffd_filler(void *arg)
{
	static char src[4096];
	struct uffdio_copy cp;
	struct uffd_msg msg;

	(void)arg;
	memset(src, 0x77, sizeof(src));
	if (read(r4_uffd, &msg, sizeof(msg)) != sizeof(msg))
		exit(3);
	cp = (struct uffdio_copy){ .dst = msg.arg.pagefault.address & ~4095ul,
				   .src = (unsigned long)src, .len = 4096 };
	if (ioctl(r4_uffd, UFFDIO_COPY, &cp))
		exit(4);
	return NULL;
}

static void uffd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { PAGE, 4096 }, .mode = UFFDIO_REGISTER_MODE_MISSING };
	pthread_t t;

	r4_uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (r4_uffd < 0 || ioctl(r4_uffd, UFFDIO_API, &api))
		exit(7);
	if (mmap((void *)PAGE, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
	    (void *)PAGE || ioctl(r4_uffd, UFFDIO_REGISTER, &reg))
		exit(7);
	if (pthread_create(&t, NULL, uffd_filler, NULL))
		exit(3);
	load();
	pthread_join(t, NULL);
}

/*
 * execfail: a read-only page holding 0x66 loaded into r12, an execve
 * that fails (the recorder takes an exec-generation snapshot at its
 * entry), then the page made writable, 0x77 stored, read-only again, a
 * second load into r13: truth r12 0x66, r13 0x77.
 */
static void execfail(void)
{
	char *argv[] = { "/nonexistent/review4", NULL };

	ropage(0x66);
	load();
	execv(argv[0], argv);
	if (mprotect((void *)PAGE, 4096, PROT_READ | PROT_WRITE))
		exit(2);
	*(volatile unsigned char *)PAGE = 0x77;
	if (mprotect((void *)PAGE, 4096, PROT_READ))
		exit(2);
	load13();
}

/*
 * repmt: a second thread stores 0x5a into r4_rep[5], loads it into r12,
 * then runs rep stosb over r4_rep (20,000 bytes of 0x42) while main
 * waits a little and calls exit_group: the end (the process's snapshot)
 * may catch the thread inside the rep (rcv_end.c): r12 must stay 0x5a
 * or unknown.
 */
char r4_rep[20000];
static volatile int r4_repgo;

static void *repper(void *arg)
{
	(void)arg;
	__asm__ volatile("movb $0x5a, r4_rep+5(%%rip)\n\t"
			 "movzbq r4_rep+5(%%rip), %%r12\n\t"
			 "movl $1, r4_repgo(%%rip)\n\t"
			 "lea r4_rep(%%rip), %%rdi\n\t"
			 "mov $0x42, %%eax\n\t"
			 "mov $20000, %%ecx\n\t"
			 "rep stosb\n"
			 "1:\tjmp 1b"
			 : : : "rax", "rcx", "rdi", "r12", "memory");
	return NULL;
}

static void repmt(void)
{
	pthread_t t;
	int i;

	if (pthread_create(&t, NULL, repper, NULL))
		exit(3);
	while (!r4_repgo)
		;
	for (i = 0; i < 300; i++)
		__asm__ volatile("" ::: "memory");
}

/*
 * repfault: rep movsb of 256 bytes of 0x5a into the last 100 bytes of a
 * page followed by one with no access (tests/values/crash.c rep): the
 * copy faults after 100 iterations, the history ends with rip at the rep
 * (the trace has no instruction for it), and the 100 bytes hold 0x5a.
 * A watchpoint on them must stop at that end, not before.
 */
char r4_area[2 * 4096] __attribute__((aligned(4096)));

static void repfault(void)
{
	static char src[256];

	memset(src, 0x5a, sizeof(src));
	if (mprotect(r4_area + 4096, 4096, PROT_NONE))
		exit(2);
	__asm__ volatile("lea r4_area+3996(%%rip), %%rdi\n\t"
			 "mov %0, %%rsi\n\t"
			 "mov $256, %%ecx\n\t"
			 "rep movsb"
			 : : "r"(src) : "rcx", "rsi", "rdi", "memory");
}

/*
 * madvfree: a helper process forked first (so it shares none of the
 * page) waits; main maps the page, stores 0x66, madvise(MADV_FREE),
 * loads it into r12 (0x66: a lazily freed page keeps its bytes until
 * reclaimed), lets the helper run and spins (no system call) until it
 * is done: the helper's process_madvise(MADV_PAGEOUT) on main's page
 * reclaims it, and main's second load (r13) reads 0.  Nothing in main's
 * history between its two loads may write the page: the kernel's
 * reclaim of a MADV_FREE page is work done after the madvise returned.
 * Truth r12 = 0x66.  Exit status 7 where process_madvise fails.
 */
static void madvfree(void)
{
	volatile int *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pp = getpid();

	if (sh == MAP_FAILED)
		exit(2);
	if (fork() == 0) {
		struct iovec iov = { (void *)PAGE, 4096 };
		int pfd;

		while (!sh[1])
			;
		pfd = (int)syscall(SYS_pidfd_open, pp, 0);
		if (pfd < 0 || syscall(SYS_process_madvise, pfd, &iov, 1,
				       MADV_PAGEOUT, 0) != 4096)
			sh[2] = 1;
		sh[0] = 1;
		_exit(0);
	}
	if (mmap((void *)PAGE, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
	    (void *)PAGE)
		exit(2);
	*(volatile unsigned char *)PAGE = 0x66;
	if (madvise((void *)PAGE, 4096, MADV_FREE))
		exit(7);
	load();
	sh[1] = 1;
	while (!sh[0])
		;
	if (sh[2])
		exit(7);
	load13();
}

/*
 * exit80: watchctid.c's thread A (raw clone, CLONE_CHILD_CLEARTID, ctid
 * = &r4_w80) exiting through i386's exit (int 0x80, eax 1): the kernel
 * writes 0 there as for exit(2) through syscall; main waits for it.
 */
volatile int r4_w80 = 1;

static void exit80(void)
{
	static char stack[16384] __attribute__((aligned(16)));

	__asm__ volatile("mov $0x250f00, %%edi\n\t"
			 "lea %[st], %%rsi\n\t"
			 "xor %%edx, %%edx\n\t"
			 "lea r4_w80(%%rip), %%r10\n\t"
			 "xor %%r8d, %%r8d\n\t"
			 "mov $56, %%eax\n\t"
			 "syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 2f\n\t"
			 "xor %%ebx, %%ebx\n\t"
			 "mov $1, %%eax\n\t"
			 "int $0x80\n"
			 "2:\tcmpl $0, r4_w80(%%rip)\n\t"
			 "jne 2b"
			 : : [st] "m"(stack[sizeof(stack)])
			 : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8",
			   "r10", "r11", "memory");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	self = argv[0];
	if (!strcmp(m, "trunc"))
		trunc_case(MAP_PRIVATE);
	else if (!strcmp(m, "truncshared"))
		trunc_case(MAP_SHARED);
	else if (!strcmp(m, "truncrnd"))
		truncrnd();
	else if (!strcmp(m, "truncro"))
		truncro();
	else if (!strcmp(m, "otrunc"))
		otrunc();
	else if (!strcmp(m, "vforkctid"))
		vforkctid();
	else if (!strcmp(m, "clonevmctid"))
		clonevmctid();
	else if (!strcmp(m, "execmt"))
		execmt();
	else if (!strcmp(m, "anon")) {	/* the control: r12 known 0x11 */
		if (mmap((void *)PAGE, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    (void *)PAGE)
			exit(2);
		store11();
		retrunc(-1);
		load();
	} else if (!strcmp(m, "truncu")) {
		trunc_case(MAP_PRIVATE);
		unmap_page(PAGE);
	} else if (!strcmp(m, "otruncu")) {
		otrunc();
		unmap_page(PAGE);
	} else if (!strcmp(m, "grow")) {
		grow();
	} else if (!strcmp(m, "fallsig")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = fallsig_handler;
		sigaction(SIGUSR1, &sa, NULL);
		fallsig(getpid());
	} else if (!strcmp(m, "clone80")) {
		clone80();
	} else if (!strcmp(m, "groupctid")) {
		groupctid();
	} else if (!strcmp(m, "groupsegv")) {
		groupsegv();
	} else if (!strcmp(m, "execfail")) {
		execfail();
	} else if (!strcmp(m, "repmt")) {
		repmt();
	} else if (!strcmp(m, "repfault")) {
		repfault();
	} else if (!strcmp(m, "madvfree")) {
		madvfree();
	} else if (!strcmp(m, "exit80")) {
		exit80();
	} else if (!strcmp(m, "uffd")) {
		uffd();
	} else if (!strcmp(m, "tsxabort")) {
		tsxabort();
	} else if (!strcmp(m, "execro")) {
		execro();
	} else if (!strcmp(m, "execmtro")) {
		execmtro();
	} else if (!strcmp(m, "execmt3")) {
		execmt3();
	} else if (!strcmp(m, "execmtjoin")) {
		execmtjoin();
	} else if (!strcmp(m, "execlead")) {
		execlead();
	} else if (!strcmp(m, "ro77")) {
		ropage(0x77);
	} else if (strcmp(m, "exited")) {
		return 1;
	}
	/* exit_group by number in the code (glibc's syscall() hides it) */
	__asm__ volatile("xor %%edi, %%edi\n\tmov $231, %%eax\n\tsyscall"
			 : : : "memory");
	return 0;
}
