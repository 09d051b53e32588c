// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 5 (adversarial) of the values engine's promise "never a wrong
 * value", one case per mode, for valcheck and GDB (tests/values/
 * review5.sh, `make values-review5`).  Correct programs only.
 *
 * Laundering (rcv_escape.c): main stores x = 0x11 on its stack (r13 =
 * x right after), makes &x into an integer in rdx in a way that is not
 * a data-flow copy of it, stores rdx into the global r5_pub (the
 * escape), waits for r5_done, then loads x into r12.  A thread made by
 * a raw clone (every register clean at the syscall, so the clone is no
 * escape) waits for r5_pub, stores 0x77 through it and sets r5_done.
 * Valid C: a pointer converted to uintptr_t, rebuilt from its bits and
 * converted back is the same pointer, and x's frame is live throughout.
 *
 *   plain    rdx = rax (a copy): the control, the escape is seen.
 *   lbranch  bit by bit through `test; jz` (control dependence).
 *   lsetc    bit by bit through `bt; setc` (the pointer in CF).
 *   lsbb     bit by bit through `bt; sbb r, r`.
 *   lcmov    bit by bit through `bt; cmovc`.
 *   ltable   byte by byte through a 256-byte identity table (a load
 *            whose address holds the byte: the value is clean).
 *
 *   alive    plain, but the thread spins on after its store, alive at
 *            the snapshot: its stack (r5_cstack, a global array) is the
 *            mapping's upper part, r5_pub lies below it, and its loads
 *            of r5_pub (0 first, surely) must not be taken as of its own
 *            stack (holes5v: the private part ends where rsp went).
 *
 * uffdstack (exit 7 without userfaultfd): no laundering; the address
 * reaches the other thread through the kernel (see uffdstack()).
 * rseqwatch (exit 7 with one CPU): a watchpoint on the rseq area's
 * cpu_id, which the kernel rewrites (see rseqwatch()).
 * sigframe: a watchpoint on a signal's siginfo (see sigframe()).
 * lprintf: a control, &x given away as text by snprintf (see lprintf()).
 *
 * Each mode ends with exit_group right after its case.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/wait.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include "rawclone.h"

__asm__(RAWCLONE_SPAWN(r5));
__asm__(RAWCLONE_CHILD_PUB(r5));
__asm__(".text\n"
	/* r5_child_pub's store, but its first load surely sees 0 (r5_go
	 * = 1 after it, main publishes once it is set) and it never ends
	 */
	"r5_child_live:\n"
	"\tmov r5_pub(%rip), %rax\n\tmovq $1, r5_go(%rip)\n"
	"1:\ttest %rax, %rax\n\tjnz 2f\n"
	"\tpause\n\tmov r5_pub(%rip), %rax\n\tjmp 1b\n"
	"2:\tmovq $0x77, (%rax)\n\tmovq $1, r5_done(%rip)\n"
	"3:\tpause\n\tjmp 3b\n");
extern char r5_child_pub[], r5_child_live[];
void r5_spawn(void *code);
RAWCLONE_STACK(r5);
volatile long r5_pub, r5_done;
extern volatile long r5_go;
unsigned char r5_tbl[256];

/* main: x = 0x11 on its stack; &x laundered into rdx by LAUNDER; rdx
 * into r5_pub; wait for r5_done; r12 = x (0x77, the child's store).
 */
#define LCASE(LAUNDER)							\
	__asm__ volatile("movq $0x11, %0\n"				\
			 "\tmov %0, %%r13\n"				\
			 "\tlea %0, %%rax\n"				\
			 LAUNDER					\
			 "\txor %%eax, %%eax\n"				\
			 "\tmov %%rdx, r5_pub(%%rip)\n"			\
			 "1:\tcmpq $0, r5_done(%%rip)\n\tjnz 2f\n"	\
			 "\tpause\n\tjmp 1b\n"				\
			 "2:\tmov %0, %%r12\n"				\
			 "\tnop\n\tnop\n\tnop\n"				\
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"	\
			 EXIT_NOW					\
			 : "+m"(x) : : "rax", "rcx", "rdx", "rsi", "rdi", \
			 "r8", "r11", "r12", "r13", "memory")

/* ---- uffdstack ------------------------------------------------------- */

/* A system call whose number the code shows (`mov $N, %eax` right
 * before it): rcv_order.c reads other threads' numbers that way.
 */
#define sc3(n, a, b, c) ({						\
	long r_;							\
	__asm__ volatile("mov %1, %%eax\n\tsyscall"			\
			 : "=a"(r_) : "i"(n), "D"((long)(a)),		\
			 "S"((long)(b)), "d"((long)(c))			\
			 : "rcx", "r11", "memory");			\
	r_;								\
})

static long r5_uffd;
volatile long r5_go;
static unsigned char r5_src[2][4096] __attribute__((aligned(4096)));

/* The fault handler thread (a raw clone, no libc): the first fault gets
 * a page of zeros; once main sets r5_go it zaps the page (madvise
 * MADV_DONTNEED at the address the first fault named) and sets r5_done;
 * the next fault gets a page of 0x77.
 */
__attribute__((noreturn, used)) static void r5_handler(void)
{
	struct uffd_msg msg;
	struct uffdio_copy cp;
	unsigned long page = 0;
	int k;

	for (k = 0; k < 2; k++) {
		if (sc3(0, r5_uffd, (long)&msg, sizeof(msg)) != sizeof(msg))
			break;
		page = msg.arg.pagefault.address & ~4095ul;
		cp = (struct uffdio_copy){ .dst = page,
			.src = (unsigned long)r5_src[k], .len = 4096 };
		sc3(16, r5_uffd, UFFDIO_COPY, (long)&cp);
		if (k)
			break;
		while (!r5_go)
			__asm__ volatile("pause");
		sc3(28, (long)page, 4096, MADV_DONTNEED);
		r5_done = 1;
	}
	sc3(60, 0, 0, 0);
	for (;;)
		;
}
__asm__(".text\nr5_child_h:\n\tsub $8, %rsp\n\tjmp r5_handler\n");
extern char r5_child_h[];

/*
 * uffdstack: main registers a page of its own stack (a local array) with
 * userfaultfd (ioctl: a system call rcv_escape.c takes as keeping no
 * pointer), stores 0x11 and 0x22 into it (the first store faults, the
 * handler fills the page), lets the handler zap it, and loads the 0x22
 * word back into r12: the load faults again and the handler fills the
 * page with 0x77.  The handler learnt the address from the kernel's
 * fault message, not from any store of main's.
 */
static void uffdstack(void)
{
	volatile unsigned char area[3 * 4096];
	unsigned long p = ((unsigned long)area + 4095) & ~4095ul;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	memset(r5_src[1], 0x77, 4096);
	r5_uffd = sc3(323, O_CLOEXEC | UFFD_USER_MODE_ONLY, 0, 0);
	if (r5_uffd < 0 || sc3(16, r5_uffd, UFFDIO_API, (long)&api))
		sc3(231, 7, 0, 0);
	r5_spawn(r5_child_h);
	sc3(28, (long)p, 4096, MADV_DONTNEED);
	reg = (struct uffdio_register){ .range = { .start = p, .len = 4096 },
					.mode = UFFDIO_REGISTER_MODE_MISSING };
	if (sc3(16, r5_uffd, UFFDIO_REGISTER, (long)&reg))
		sc3(231, 7, 0, 0);
	__asm__ volatile("movq $0x11, 8(%0)\n"
			 "\tmovq $0x22, 16(%0)\n"
			 "\tmovq $1, r5_go(%%rip)\n"
			 "1:\tcmpq $0, r5_done(%%rip)\n\tjnz 2f\n"
			 "\tpause\n\tjmp 1b\n"
			 "2:\tmov 16(%0), %%r12\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 /* unregister: the stack's mappings merge again */
			 "\tmov r5_uffd(%%rip), %%rdi\n"
			 "\tmov %1, %%esi\n"
			 "\tmov %2, %%rdx\n"
			 "\tmov $16, %%eax\n\tsyscall\n"
			 EXIT_NOW
			 : : "r"(p), "i"(UFFDIO_UNREGISTER), "r"(&reg.range)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			 "memory");
}

/* ---- rseqwatch ------------------------------------------------------- */

unsigned long r5_rseq_cpu;	/* the address of main's rseq cpu_id word */
long r5_changes;

/*
 * rseqwatch: main reads its rseq area's cpu_id (glibc registers the area;
 * sched_getcpu() reads it the same way) in a loop with no system call and
 * no store, while a forked child (its own memory) moves main from CPU to
 * CPU with sched_setaffinity(2).  The kernel rewrites cpu_id on main's way
 * back to user space after each migration: main sees the word change
 * between two loads (and runs the `inc %r14` after r5_seen).  A
 * watchpoint on the word must stop between those two loads.  Exit 7 with
 * fewer than two CPUs.
 */
static void rseqwatch(void)
{
	unsigned long a;
	pid_t parent = getpid(), child;
	cpu_set_t set, all;
	int cpu[2], n = 0;

	/* the first two CPUs main may run on */
	if (sched_getaffinity(0, sizeof(all), &all) || __rseq_size < 8)
		exit(7);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &all))
			cpu[n++] = c;
	if (n < 2)
		exit(7);
	child = fork();
	if (child == 0) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		for (int k = 0; k < 60 && getppid() == parent; k++) {
			CPU_ZERO(&set);
			CPU_SET(cpu[k & 1], &set);
			sched_setaffinity(parent, sizeof(set), &set);
			nanosleep(&ts, NULL);
		}
		_exit(0);
	}
	__asm__ volatile("mov %%fs:0, %0" : "=r"(a));
	a += __rseq_offset + 4;
	r5_rseq_cpu = a;
	/* Until two changes are seen (at most 400,000 loads). */
	__asm__ volatile("mov (%1), %%r13d\n\tmov $400000, %%ecx\n"
			 "\txor %%r14d, %%r14d\n"
			 "1:\tmov (%1), %%r12d\n\tcmp %%r12d, %%r13d\n"
			 "\tje 2f\n"
			 ".globl r5_seen\nr5_seen:\n\tmov %%r12d, %%r13d\n"
			 "\tinc %%r14\n\tcmp $2, %%r14\n\tje 3f\n"
			 "2:\tdec %%ecx\n\tjnz 1b\n"
			 "3:\tmov %%r14, %0\n"
			 : "=m"(r5_changes) : "r"(a)
			 : "rcx", "r12", "r13", "r14", "memory");
	printf("rseq changes %ld\n", r5_changes);
	fflush(stdout);
	/* Main runs last (GDB starts in the thread that ran last). */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	sc3(231, 0, 0, 0);
}

/* ---- sigframe -------------------------------------------------------- */

static char r5_alt[65536] __attribute__((aligned(64)));
siginfo_t *volatile r5_si;
volatile long r5_sigs;

static void r5_sig_h(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	r5_si = si;
	r5_sigs++;
}

/*
 * sigframe: a SA_SIGINFO handler on an alternate stack (a global array,
 * filled with 0x5a first) called by kill(2) to the process itself.  The
 * kernel writes the siginfo (si_signo = SIGUSR1) into the array at the
 * delivery, between the `syscall` and the handler's first instruction.
 * In the handler, a watchpoint on si->si_signo and reverse-continue must
 * stop there.
 */
static void sigframe(void)
{
	stack_t ss = { .ss_sp = r5_alt, .ss_size = sizeof(r5_alt) };
	struct sigaction sa;

	memset(r5_alt, 0x5a, sizeof(r5_alt));
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = r5_sig_h;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	printf("signo %d\n", r5_si->si_signo);
	fflush(stdout);
	sc3(231, 0, 0, 0);
}

/* ---- lprintf ---------------------------------------------------------- */

char r5_hex[32];
volatile long r5_hexgo;

/* The thread: parses r5_hex (set by snprintf) once r5_hexgo is set,
 * stores 0x77 through it, sets r5_done (no libc: a raw clone).
 */
__attribute__((noreturn, used)) static void r5_hexchild(void)
{
	unsigned long v = 0;

	while (!r5_hexgo)
		__asm__ volatile("pause");
	for (const char *c = r5_hex; *c; c++)
		v = v * 16 + (unsigned long)(*c <= '9' ? *c - '0' :
					     *c - 'a' + 10);
	*(volatile long *)v = 0x77;
	r5_done = 1;
	sc3(60, 0, 0, 0);
	for (;;)
		;
}
__asm__(".text\nr5_child_hex:\n\tsub $8, %rsp\n\tjmp r5_hexchild\n");
extern char r5_child_hex[];

/*
 * lprintf: the plain C way to give an address away as text:
 * snprintf(r5_hex, "%lx", &x) into a global; the thread parses it and
 * stores 0x77 into x.  glibc's _itoa_word turns the address into digits
 * through a table ("0123456789abcdef"[v % 16]): a load whose address
 * holds the value, as in ltable.
 */
static void lprintf(void)
{
	volatile long x = 0;

	r5_spawn(r5_child_hex);
	snprintf(r5_hex, sizeof(r5_hex), "%lx", (unsigned long)&x);
	__asm__ volatile("movq $0x11, %0\n"
			 "\tmov %0, %%r13\n"
			 "\tmovq $1, r5_hexgo(%%rip)\n"
			 "1:\tcmpq $0, r5_done(%%rip)\n\tjnz 2f\n"
			 "\tpause\n\tjmp 1b\n"
			 "2:\tmov %0, %%r12\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : "+m"(x) : : "rax", "rcx", "rdi", "r11", "r12", "r13",
			 "memory");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	volatile long x = 0;
	int i;

	for (i = 0; i < 256; i++)
		r5_tbl[i] = (unsigned char)i;
	if (!strcmp(m, "uffdstack"))
		uffdstack();
	if (!strcmp(m, "rseqwatch"))
		rseqwatch();
	if (!strcmp(m, "sigframe"))
		sigframe();
	if (!strcmp(m, "lprintf"))
		lprintf();
	if (!strcmp(m, "alive")) {	/* plain, the thread alive at the end */
		r5_spawn(r5_child_live);
		while (!r5_go)
			__asm__ volatile("pause");
		LCASE("\tmov %%rax, %%rdx\n");
	}
	r5_spawn(r5_child_pub);
	if (!strcmp(m, "plain"))	/* the control: an escape seen */
		LCASE("\tmov %%rax, %%rdx\n");
	else if (!strcmp(m, "lbranch"))	/* bit by bit, through jz */
		LCASE("\txor %%edx, %%edx\n\tmov $1, %%esi\n"
		      "3:\ttest %%rsi, %%rax\n\tjz 4f\n\tor %%rsi, %%rdx\n"
		      "4:\tshl $1, %%rsi\n\tjnz 3b\n");
	else if (!strcmp(m, "lsetc"))	/* bit by bit, through setc */
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tbt %%rcx, %%rax\n\tsetc %%sil\n"
		      "\tmovzbl %%sil, %%esi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n");
	else if (!strcmp(m, "ltable"))	/* byte by byte, an identity table */
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "\tlea r5_tbl(%%rip), %%r8\n"
		      "3:\tmov %%rax, %%rsi\n\tshr %%cl, %%rsi\n"
		      "\tmovzbl %%sil, %%esi\n\tmovzbl (%%r8,%%rsi), %%esi\n"
		      "\tshl %%cl, %%rsi\n\tor %%rsi, %%rdx\n"
		      "\tadd $8, %%ecx\n\tcmp $64, %%ecx\n\tjne 3b\n");
	else if (!strcmp(m, "lcmov"))	/* bit by bit, through cmovc */
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tmov $1, %%esi\n\tshl %%cl, %%rsi\n\txor %%edi, %%edi\n"
		      "\tbt %%rcx, %%rax\n\tcmovc %%rsi, %%rdi\n"
		      "\tor %%rdi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n");
	else if (!strcmp(m, "lsbb"))	/* bit by bit, through sbb's CF */
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tbt %%rcx, %%rax\n\tsbb %%rsi, %%rsi\n"
		      "\tmov $1, %%edi\n\tshl %%cl, %%rdi\n\tand %%rdi, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n");
	return 1;
}
