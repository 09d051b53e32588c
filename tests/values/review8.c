// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 8 (adversarial) of the values engine's promise "never a wrong
 * value" (issue #17) and of watchpoints (issue #18), aimed at this
 * session's rules: a signal handler's entry seeded from the SIGFRAME
 * record and rbx, rbp, r8-r15 carried across a delivery (rcv_sig.c), and
 * the watch proofs' ranges and far-window secrets (watch_proof.c,
 * watch_acc.c).  One case per mode, for valcheck and GDB
 * (tests/values/review8.sh, `make values-review8`).  Correct programs
 * only; exit 7 where a case cannot be made here.
 *
 *   nestsig  SIGUSR1 and SIGUSR2 both pending, unblocked by one
 *            rt_sigprocmask with known rbx, r12-r15: the kernel delivers
 *            USR1, then USR2 at the first instruction of USR1's handler
 *            (two frames at one place); each handler (asm) stores its
 *            entry rdi, rsi, rdx, rsp, rax, r12, rbx.
 *   rtq      three SIGRTMIN queued (sigqueue, SA_NODEFER): three nested
 *            deliveries at one place.
 *   ucnest   SIGUSR1's handler (sa_mask USR2) changes uc_mcontext's r12,
 *            rbx and r13 and returns; its rt_sigreturn restores the mask
 *            and USR2, pending, is delivered at once with the changed
 *            registers (the instruction before the delivery is the
 *            rt_sigreturn).
 *   restart  a blocking read(2) of a pipe interrupted by SIGALRM
 *            (SA_RESTART, rip moved back by 2, rax restored); the
 *            third handler run writes the pipe.
 *   eintr    the same without SA_RESTART: read returns -EINTR.
 *   altnest  nestsig on a sigaltstack (SA_ONSTACK): the second frame
 *            below the first on the alternate stack.
 *   ucrsp    SIGUSR1's handler moves uc_mcontext's rsp and rip to a
 *            second stack and function; USR2 delivered at once there.
 *   a32rip   `addr32 mov r8_var(%rip), %r12d` (67 44 8b 25 disp32): the
 *            CPU truncates rip + disp to 32 bits; a page mapped there
 *            (MAP_FIXED_NOREPLACE) holds 0x22, r8_var 0x11.
 *   lcallv   a far call (rex64 lcall *m) pushes cs and rip over two
 *            words the program stored just below rsp (0x1111, 0x2222),
 *            lretq returns, and r12, r13 load the two words (the
 *            pushed cs 0x33 and the return address).
 *   lcallrsp a far call whose target drops the pushed frame by `add $16,
 *            %rsp` and jumps back: rsp before the lcall is the rsp after
 *            the add (capstone 4 lists no register written by lcall).
 *   int80    read(2) through the 32-bit entry (int $0x80, eax 3) into a
 *            MAP_32BIT page whose bytes the program stored (0x11) just
 *            before: r12 loads byte 2 after it ('c' from the pipe).
 *   rw       (GDB) each row of review8_rw.tbl (review7's rw, other
 *            instructions: x87 and SSE stores, BMI, masked EVEX forms
 *            with an immediate, string instructions, implicit stores):
 *            an instruction reading or writing a byte of its own slot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "rawclone.h"

/* A handler's entry registers, one row per run (up to 8). */
uint64_t r8_g[8][8];
uint64_t r8_n;
uint64_t r8_after[8];

/* Stores rdi, rsi, rdx, rsp, rax, r12, rbx, r13 of its entry in the next
 * row of r8_g.
 */
__asm__(".text\n"
	".globl r8_h\n"
	"r8_h:\n"
	"\tmov r8_n(%rip), %r11\n"
	"\tshl $6, %r11\n"
	"\tlea r8_g(%rip), %r10\n"
	"\tadd %r11, %r10\n"
	"\tmov %rdi, 0(%r10)\n"
	"\tmov %rsi, 8(%r10)\n"
	"\tmov %rdx, 16(%r10)\n"
	"\tmov %rsp, 24(%r10)\n"
	"\tmov %rax, 32(%r10)\n"
	"\tmov %r12, 40(%r10)\n"
	"\tmov %rbx, 48(%r10)\n"
	"\tmov %r13, 56(%r10)\n"
	"\tincq r8_n(%rip)\n"
	"\tmov (%rsi), %eax\n"		/* si_signo */
	"\tmov 16(%rdx), %rcx\n"	/* uc_stack.ss_sp */
	"\tret\n");
void r8_h(int sig, siginfo_t *si, void *uc);

static void install(int sig, void (*fn)(int, siginfo_t *, void *),
		    int flags, int maskme)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	if (maskme)
		sigaddset(&sa.sa_mask, maskme);
	if (sigaction(sig, &sa, NULL))
		exit(7);
}

static void block(int a, int b)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, a);
	if (b)
		sigaddset(&s, b);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

uint64_t unblock_set;

/* rt_sigprocmask(SIG_UNBLOCK, &unblock_set) with known rbx, r12-r15,
 * then the registers after it stored.
 */
static void unblock_known(void)
{
	__asm__ volatile("mov $0x1111, %%r12\n"
			 "\tmov $0x2222, %%rbx\n"
			 "\tmov $0x3333, %%r13\n"
			 "\tmov $0x4444, %%r14\n"
			 "\tmov $0x5555, %%r15\n"
			 "\tmov $14, %%eax\n"
			 "\tmov $1, %%edi\n"
			 "\tlea unblock_set(%%rip), %%rsi\n"
			 "\txor %%edx, %%edx\n"
			 "\tmov $8, %%r10d\n"
			 "\tsyscall\n"
			 "\tmov %%r12, r8_after(%%rip)\n"
			 "\tmov %%rbx, r8_after+8(%%rip)\n"
			 "\tmov %%r13, r8_after+16(%%rip)\n"
			 "\tmov %%r14, r8_after+24(%%rip)\n"
			 "\tmov %%r15, r8_after+32(%%rip)\n"
			 "\tmov %%rsp, r8_after+40(%%rip)\n"
			 ::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r10",
			 "r11", "r12", "r13", "r14", "r15", "memory");
}

static void set_unblock(int a, int b)
{
	unblock_set = 1ull << (a - 1);
	if (b)
		unblock_set |= 1ull << (b - 1);
}

/* ucnest: change what rt_sigreturn restores. */
static void h_mod(int sig, siginfo_t *si, void *p)
{
	ucontext_t *uc = p;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_R12] = 0x6666;
	uc->uc_mcontext.gregs[REG_RBX] = 0x7777;
	uc->uc_mcontext.gregs[REG_R13] = 0x8888;
}

/* ucrsp: resume on another stack in r8_alt_fn. */
static unsigned char r8_stack2[65536] __attribute__((aligned(64)));
void r8_alt_fn(void);
__asm__(".text\n"
	".globl r8_alt_fn\n"
	"r8_alt_fn:\n"
	"\tmov %r12, r8_after(%rip)\n"
	"\tmov %rbx, r8_after+8(%rip)\n"
	"\tmov %rsp, r8_after+40(%rip)\n"
	"\txor %edi, %edi\n"
	"\tmov $231, %eax\n"
	"\tsyscall\n");

static void h_rsp(int sig, siginfo_t *si, void *p)
{
	ucontext_t *uc = p;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RSP] =
		(greg_t)(r8_stack2 + sizeof(r8_stack2) - 64);
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)r8_alt_fn;
	uc->uc_mcontext.gregs[REG_R12] = 0x9999;
	uc->uc_mcontext.gregs[REG_RBX] = 0xaaaa;
}

/* restart, eintr */
static int r8_pipe[2];
static volatile int r8_alarms;

static void h_alrm(int sig, siginfo_t *si, void *p)
{
	(void)sig;
	(void)si;
	(void)p;
	if (++r8_alarms == 3) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		char c = 'x';

		setitimer(ITIMER_REAL, &off, NULL);
		if (write(r8_pipe[1], &c, 1) != 1)
			_exit(3);
	}
}

static long read_known(void)
{
	char c;
	long r;

	__asm__ volatile("mov $0x1111, %%r12\n"
			 "\tmov $0x2222, %%rbx\n"
			 "\tmov $0x3333, %%r13\n"
			 "\tmov $0x4444, %%r14\n"
			 "\tmov $0x5555, %%r15\n"
			 "\tmov $0x6666, %%r8\n"
			 "\tmov $0x7777, %%r9\n"
			 "\txor %%eax, %%eax\n"
			 "\tsyscall\n"
			 "\tmov %%r12, r8_after(%%rip)\n"
			 "\tmov %%rbx, r8_after+8(%%rip)\n"
			 "\tmov %%r13, r8_after+16(%%rip)\n"
			 "\tmov %%r8, r8_after+24(%%rip)\n"
			 "\tmov %%r9, r8_after+32(%%rip)\n"
			 "\tmov %%r10, r8_after+40(%%rip)\n"
			 : "=a"(r)
			 : "D"((long)r8_pipe[0]), "S"(&c), "d"(1L)
			 : "rbx", "rcx", "r8", "r9", "r11", "r12", "r13",
			   "r14", "r15", "memory");
	return r;
}

static void nested(int a, int b, int flags)
{
	install(a, r8_h, flags, 0);
	install(b, r8_h, flags, 0);
	block(a, b);
	raise(a);
	raise(b);
	set_unblock(a, b);
	unblock_known();
}

unsigned char r8_rb[4096 * 160] __attribute__((aligned(4096)));
unsigned char r8_src[64] = { 0x5a, 0x5b, 0x5c, 0x5d };
unsigned char r8_fp[16] __attribute__((aligned(16)));
uint64_t r8_out[4];

/* Top-level asm: the rows' labels (r8_wK) name their instructions. */
__asm__(".text\n"
	".globl r8_rw\n"
	"r8_rw:\n"
#include "review8_rw.inc"
	"\txor %edi, %edi\n\tmov $231, %eax\n\tsyscall\n");
void r8_rw(void);

static int has_rw(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl") &&
	       __builtin_cpu_supports("avx512vbmi2") &&
	       __builtin_cpu_supports("avx512bitalg") &&
	       __builtin_cpu_supports("avx512vnni") &&
	       __builtin_cpu_supports("gfni") &&
	       __builtin_cpu_supports("vpclmulqdq") &&
	       __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
}

uint32_t r8_var = 0x11;

static int a32rip(void)
{
	extern const unsigned char r8_a32_end[];
	uint64_t a = ((uint64_t)(uintptr_t)&r8_var) & 0xffffffffull;
	unsigned char *pg;

	/* the instruction's end + disp is &r8_var (rip-relative) */
	(void)r8_a32_end;
	pg = mmap((void *)(uintptr_t)(a & ~0xfffull), 4096,
		  PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (pg == MAP_FAILED || (uintptr_t)pg != (a & ~0xfffull))
		return 7;
	*(uint32_t *)(uintptr_t)a = 0x22;
	__asm__ volatile("mov $0x33, %%r12d\n"
			 "\t.byte 0x67\n"
			 "\tmov r8_var(%%rip), %%r12d\n"
			 "r8_a32_end:\n"
			 "\tmov %%r12, r8_out(%%rip)\n"
			 "\tmov %%r12, %%r13\n"
			 "\tmov %%r12, r8_out+8(%%rip)\n"
			 EXIT_NOW ::: "r12", "r13", "memory");
	return 3;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "nestsig")) {
		nested(SIGUSR1, SIGUSR2, 0);
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "altnest")) {
		static unsigned char alt[65536] __attribute__((aligned(64)));
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };

		if (sigaltstack(&ss, NULL))
			return 7;
		nested(SIGUSR1, SIGUSR2, SA_ONSTACK);
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "rtq")) {
		union sigval v;

		install(SIGRTMIN, r8_h, SA_NODEFER, 0);
		block(SIGRTMIN, 0);
		for (int k = 0; k < 3; k++) {
			v.sival_ptr = (void *)(uintptr_t)(0x100 + k);
			if (sigqueue(getpid(), SIGRTMIN, v))
				return 7;
		}
		set_unblock(SIGRTMIN, 0);
		unblock_known();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "ucnest")) {
		install(SIGUSR1, h_mod, 0, SIGUSR2);
		install(SIGUSR2, r8_h, 0, 0);
		block(SIGUSR1, SIGUSR2);
		raise(SIGUSR1);
		raise(SIGUSR2);
		set_unblock(SIGUSR1, SIGUSR2);
		unblock_known();
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "ucrsp")) {
		install(SIGUSR1, h_rsp, 0, SIGUSR2);
		install(SIGUSR2, r8_h, 0, 0);
		block(SIGUSR1, SIGUSR2);
		raise(SIGUSR1);
		raise(SIGUSR2);
		set_unblock(SIGUSR1, SIGUSR2);
		unblock_known();	/* never returns: r8_alt_fn exits */
		return 3;
	}
	if (!strcmp(m, "restart") || !strcmp(m, "eintr")) {
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
		long r;

		if (pipe(r8_pipe))
			return 7;
		install(SIGALRM, h_alrm, m[0] == 'r' ? SA_RESTART : 0, 0);
		setitimer(ITIMER_REAL, &it, NULL);
		do
			r = read_known();
		while (r == -EINTR);
		if (r != 1)
			return 3;
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "rw")) {
		if (!has_rw())
			return 7;
		for (int k = 0; k < 160; k++)
			memset(r8_rb + 4096 * k, 0x10 + k, 64);
		r8_rw();
	}
	if (!strcmp(m, "lcallv")) {
		__asm__ volatile("movq $0x1111, -16(%%rsp)\n"
				 "\tmovq $0x2222, -8(%%rsp)\n"
				 "\tlea 2f(%%rip), %%rax\n"
				 "\tmov %%rax, r8_fp(%%rip)\n"
				 "\tmov %%cs, %%eax\n"
				 "\tmov %%ax, r8_fp+8(%%rip)\n"
				 "\trex64 lcall *r8_fp(%%rip)\n"
				 "\tjmp 3f\n"
				 "2:\tlretq\n"
				 "3:\tmov -8(%%rsp), %%r12\n"
				 "\tmov -16(%%rsp), %%r13\n"
				 "\tmov %%r12, r8_out(%%rip)\n"
				 "\tmov %%r13, r8_out+8(%%rip)\n"
				 EXIT_NOW ::: "rax", "r12", "r13", "memory");
	}
	if (!strcmp(m, "lcallrsp")) {
		__asm__ volatile("lea 2f(%%rip), %%rax\n"
				 "\tmov %%rax, r8_fp(%%rip)\n"
				 "\tmov %%cs, %%eax\n"
				 "\tmov %%ax, r8_fp+8(%%rip)\n"
				 "\tmov %%rsp, %%r14\n"
				 "\trex64 lcall *r8_fp(%%rip)\n"
				 "2:\tmov %%rsp, %%r13\n"
				 "\tadd $16, %%rsp\n"
				 "\tmov %%rsp, %%r12\n"
				 "\tmov %%r12, r8_out(%%rip)\n"
				 EXIT_NOW ::: "rax", "r12", "r13", "r14", "memory");
	}
	if (!strcmp(m, "int80")) {
		int fd[2];
		unsigned char *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS |
					MAP_32BIT, -1, 0);

		if (b == MAP_FAILED || pipe(fd) || write(fd[1], "abcde", 5) != 5)
			return 7;
		r8_out[2] = (uint64_t)(uintptr_t)b;
		__asm__ volatile("movl $0x11111111, (%%rcx)\n"
				 "\tmov $3, %%eax\n"
				 "\tmov $5, %%edx\n"
				 "\tint $0x80\n"
				 "\tmovzbl 2(%%rcx), %%r12d\n"
				 "\tmov %%r12, r8_out(%%rip)\n"
				 "\tmov %%rax, r8_out+8(%%rip)\n"
				 EXIT_NOW
				 :: "b"((long)fd[0]), "c"(b)
				 : "rax", "rdx", "r12", "memory");
	}
	if (!strcmp(m, "a32rip"))
		return a32rip();
	fprintf(stderr, "usage: review8 MODE\n");
	return 2;
}
