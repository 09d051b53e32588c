// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 6 (adversarial) of the values engine's promise "never a wrong
 * value": one case per mode, for valcheck (tests/values/review6.sh,
 * `make values-review6`).  Correct programs only.
 *
 * Laundering (rcv_escape.c, as review5.c): main stores x = 0x11 on its
 * stack (r13 = x), turns &x into rdx in a way given by the mode, stores
 * rdx into the global r6_pub (the escape), waits for r6_done, loads x
 * into r12 (0x77: a raw-clone thread stored it through r6_pub).
 *   plain    rdx = rax (the control)
 *   lbsf     bit by bit through bsf (the lowest set bit's index)
 *   lpopcnt  bit by bit through popcnt of the masked bit
 *   ldiv     rdx = (rax * 3) / 3 (mul, div)
 *   lx87     fild/fistp of the pointer through a stack slot
 *   lmmx     movq through %mm0
 *   lrepmovs copied by `rep movsb` between two stack slots
 *   lscas    byte by byte, repne scasb over an identity table
 *   lfxsave  through %xmm0 and fxsave64's image on the stack
 *   lbtmem   bit by bit through `bt` on the stack slot holding it
 *   ljrcxz   bit by bit through jrcxz
 *   lsahf    bit by bit into CF through sahf
 *   lred1    stored into the red zone and loaded back
 *   lred2    stored into a slot, rsp moved above it (the slot now in
 *            the red zone), loaded back
 *   lwhole   rdx = &x by cmovnz with clean flags (WHOLE)
 *   lwhole2  the same in rdi, then bit by bit (bt; setc) into rdx
 *   lfsbase  wrfsbase / rdfsbase (the old base put back)
 *   lmovbe   movbe from a stack slot, then bswap
 *   lpext    pext with an all-ones mask (BMI2)
 *   lcvt     cvtsi2sd / cvttsd2si through %xmm0 (exact below 2^53)
 *   lfld     fldl / fstpl (the pointer's bits as a double, a denormal)
 *   lpushf   bit by bit through `bt; pushf; pop`
 *   llahf    bit by bit through `bt; lahf`
 *   lrcl     bit by bit through `bt; rcl $1` (CF shifted in)
 *   ladc     bit by bit through `bt; adc $0`
 *   lgs      arch_prctl(ARCH_SET_GS, &x), then ARCH_GET_GS into a stack
 *            slot
 *   lgsbase  wrgsbase / rdgsbase (exit 7 without FSGSBASE)
 *   lpipe2   written to a pipe and read back by main itself
 *   lsigact  the handler of SIGUSR2 (rt_sigaction); the thread reads the
 *            old action (r6_pub stays 0)
 *   lrobust  main's robust list head (set_robust_list); the thread reads
 *            it with get_robust_list (r6_pub stays 0)
 *   lprname  12 letters (a nibble each, no table) as the thread's name
 *            (prctl PR_SET_NAME), read back with PR_GET_NAME
 *   lpipe    written to a pipe (write(2) of a stack slot); the thread
 *            reads it from the pipe (r6_pub stays 0)
 *
 * brkfix: brk shrinking over a MAP_FIXED read-only mapping in the heap
 * unmaps it; mmap without MAP_FIXED (a hint) maps another file there.
 * forkwrite: a forked child writes the file the parent maps private and
 * read-only (a page the parent never wrote follows the file).
 * thrwrite (a control): a thread of the process (a raw clone) writes
 * the file with pwrite64 instead.
 * forkshm: the same, the child storing through a shared mapping of its
 * own.
 *
 * fpframe (GDB): a watchpoint on the signal frame's FPU state.
 * ucmod (GDB): a watchpoint on the saved r12 a handler rewrites.
 * deep, deepg (watchpoints, by hand: test_watch_chain.c's
 * secret_unknown() and deep_as_engine() built with LIB_BUNDLE set to
 * their recordings, windows of 50, 128 and 300; and GDB's watch, rwatch
 * and awatch on r6_data with watch-unknown skip for deepg): a word
 * loaded through the stack then shown by `call *8(%rsp)`, and a start
 * register stored to a global that keeps it to the end.
 *
 * Findings (main at 733a97e): lx87, lfld, lgsbase, lfsbase (default: r13 =
 * 0x77, truth 0x11: rcv_escape.c follows no taint through x87 registers
 * or the fs and gs bases; fixed on branch x87taint, docs/values.md
 * "Pointers rebuilt without a copy"); brkfix (both modes: rcv_sys.c took
 * brk as keeping every mapping; fixed on branch brkfix: a shrink unmaps
 * [new, old break)); forkwrite, forkshm (both modes: another process's
 * writes to a file the process maps private were not modelled; fixed on
 * branch forkfile: snapshot 5 keeps each mapped file's times, and a file
 * changed during the recording is not the process's own); ucmod
 * with watch-unknown skip (the handler's store through rdx, its
 * ucontext, passed: the values engine knew no register of the handler
 * at its entry; fixed on branch ucmod, rcv_sig.c seeds rsp, rdi, rsi,
 * rdx and rax there from the SIGFRAME record).
 *
 * Exit 7: the case cannot be made here (skip).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/auxv.h>
#include <signal.h>
#include <ucontext.h>

#include "rawclone.h"

__asm__(RAWCLONE_SPAWN(r6));
__asm__(RAWCLONE_CHILD_PUB(r6));
__asm__(".text\n"
	/* read 8 bytes from the pipe into r6_buf, store 0x77 there */
	"r6_child_pipe:\n"
	"\tmov r6_pfd(%rip), %edi\n\tlea r6_buf(%rip), %rsi\n"
	"\tmov $8, %edx\n\txor %eax, %eax\n\tsyscall\n"
	"\tmov r6_buf(%rip), %rax\n"
	"\tmovq $0x77, (%rax)\n\tmovq $1, r6_done(%rip)\n"
	"\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n"
	/* once r6_go: the handler of SIGUSR2 (rt_sigaction's old action,
	 * on its stack) is where it stores 0x77
	 */
	"r6_child_sig:\n"
	"1:\tcmpq $0, r6_go(%rip)\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tsub $64, %rsp\n\tmov $12, %edi\n\txor %esi, %esi\n"
	"\tmov %rsp, %rdx\n\tmov $8, %r10d\n\tmov $13, %eax\n\tsyscall\n"
	"\tmov (%rsp), %rax\n"
	"\tmovq $0x77, (%rax)\n\tmovq $1, r6_done(%rip)\n"
	"\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n"
	/* once r6_go: main's robust list head (get_robust_list) */
	"r6_child_rob:\n"
	"1:\tcmpq $0, r6_go(%rip)\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tsub $64, %rsp\n\tmov r6_tid(%rip), %edi\n\tmov %rsp, %rsi\n"
	"\tlea 8(%rsp), %rdx\n\tmov $274, %eax\n\tsyscall\n"
	"\tmov (%rsp), %rax\n"
	"\tmovq $0x77, (%rax)\n\tmovq $1, r6_done(%rip)\n"
	"\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n"
	/* once r6_go: pwrite64(r6_pfd, r6_src, 4096, 0) */
	"r6_child_pw:\n"
	"1:\tcmpq $0, r6_go(%rip)\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tmov r6_pfd(%rip), %edi\n\tlea r6_src(%rip), %rsi\n"
	"\tmov $4096, %edx\n\txor %r10d, %r10d\n\tmov $18, %eax\n"
	"\tsyscall\n\tmovq $1, r6_done(%rip)\n"
	"\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n");
extern char r6_child_pub[], r6_child_pipe[], r6_child_sig[], r6_child_rob[],
	r6_child_pw[];
char r6_src[4096];
volatile long r6_go, r6_tid;
void r6_spawn(void *code);
RAWCLONE_STACK(r6);
volatile long r6_pub, r6_done, r6_buf;
int r6_pfd, r6_pfdw;
unsigned char r6_tbl[256];

#define LCASE(LAUNDER)							\
	__asm__ volatile("movq $0x11, %0\n"				\
			 "\tmov %0, %%r13\n"				\
			 "\tlea %0, %%rax\n"				\
			 LAUNDER					\
			 "\txor %%eax, %%eax\n"				\
			 "\tmov %%rdx, r6_pub(%%rip)\n"			\
			 "1:\tcmpq $0, r6_done(%%rip)\n\tjnz 2f\n"	\
			 "\tpause\n\tjmp 1b\n"				\
			 "2:\tmov %0, %%r12\n"				\
			 "\tnop\n\tnop\n\tnop\n"				\
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"	\
			 EXIT_NOW					\
			 : "+m"(x) : : "rax", "rcx", "rdx", "rsi", "rdi", \
			 "r8", "r11", "r12", "r13", "memory")

/* A scratch area under the stack (popped before the escape). */
#define SUB "\tsub $128, %%rsp\n"
#define ADD "\tadd $128, %%rsp\n"

/* A system call whose number the code shows (rcv_order.c reads it). */
static long sc1(long n, long a)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a)
			 : "rcx", "r11", "memory");
	return r;
}

static void fill_memfd(int fd, int byte)
{
	char b[4096];

	memset(b, byte, sizeof(b));
	if (write(fd, b, sizeof(b)) != sizeof(b))
		exit(7);
}

/*
 * brkfix: the heap grows by two pages at B (page aligned); a memfd of
 * 0x77 is mapped MAP_FIXED, read-only, at B; r12 = *B (0x77).  brk(B)
 * shrinks the heap: the kernel unmaps [B, old end), the fixed mapping
 * too.  mmap(B, PROT_READ, MAP_PRIVATE) of a memfd of 0x66 without
 * MAP_FIXED (B a hint, free now) maps it at B; r13 = *B (0x66).  At
 * the end B is read-only and private, 0x66: r12 must not be 0x66.
 */
static void brkfix(void)
{
	unsigned long b = ((unsigned long)sbrk(0) + 8191) & ~4095ul;
	int m1 = memfd_create("r6a", 0), m2 = memfd_create("r6b", 0);
	long r;
	register long r14 __asm__("r14") = m2;

	if (m1 < 0 || m2 < 0)
		exit(7);
	fill_memfd(m1, 0x77);
	fill_memfd(m2, 0x66);
	if ((unsigned long)sc1(12, b + 8192) != b + 8192)
		exit(7);
	if (mmap((void *)b, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, m1, 0)
	    != (void *)b)
		exit(7);
	__asm__ volatile("mov (%%rbx), %%r12\n"
			 "\tnop\n\tnop\n"
			 "\tmov %%rbx, %%rdi\n\tmov $12, %%eax\n\tsyscall\n"
			 "\tmov %%rbx, %%rdi\n\tmov $4096, %%esi\n"
			 "\tmov $1, %%edx\n\tmov $2, %%r10d\n"
			 "\tmov %%r14, %%r8\n\txor %%r9d, %%r9d\n"
			 "\tmov $9, %%eax\n\tsyscall\n"
			 "\tcmp %%rax, %%rbx\n\tjne 9f\n"
			 "\tmov (%%rbx), %%r13\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 "9:\tmov $7, %%edi\n\tmov $231, %%eax\n\tsyscall\n"
			 : "=a"(r) : "b"(b), "r"(r14)
			 : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
			 "r11", "r12", "r13", "memory");
}

/*
 * forkwrite: a file of 0x11 mapped private and read-only by main; a
 * forked child waits for r6 flag 1 (a shared anonymous page), writes
 * 0x22 over the file with pwrite64 and sets the flag to 2.  Main loads
 * the mapped word into r12 (0x11), sets 1, spins until 2 (no system
 * call), loads it into r13 (0x22: the page follows the file).
 */
static void forkwrite(bool shm, bool thr)
{
	char path[] = "/tmp/r6fwXXXXXX";
	int fd = mkstemp(path);
	volatile long *flag;
	unsigned long map;
	char b[4096];
	register volatile long *r14 __asm__("r14");

	if (thr) {	/* a thread of the process writes the file */
		char tp[] = "/tmp/r6twXXXXXX";
		unsigned long tm;

		fd = mkstemp(tp);
		if (fd < 0)
			exit(7);
		unlink(tp);
		memset(b, 0x11, sizeof(b));
		memset(r6_src, 0x22, sizeof(r6_src));
		if (write(fd, b, sizeof(b)) != sizeof(b))
			exit(7);
		tm = (unsigned long)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE,
					 fd, 0);
		if (tm == (unsigned long)MAP_FAILED)
			exit(7);
		r6_pfd = fd;
		r6_spawn(r6_child_pw);
		__asm__ volatile("mov (%%rbx), %%r12\n"
				 "\tnop\n\tnop\n"
				 "\tmovq $1, r6_go(%%rip)\n"
				 "1:\tcmpq $0, r6_done(%%rip)\n\tjnz 2f\n"
				 "\tpause\n\tjmp 1b\n"
				 "2:\tmov (%%rbx), %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW
				 : : "b"(tm)
				 : "rax", "rcx", "rdi", "r11", "r12", "r13",
				 "memory");
	}
	if (fd < 0)
		exit(7);
	memset(b, 0x11, sizeof(b));
	if (write(fd, b, sizeof(b)) != sizeof(b))
		exit(7);
	map = (unsigned long)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map == (unsigned long)MAP_FAILED || flag == MAP_FAILED)
		exit(7);
	if (fork() == 0) {
		while (*flag != 1)
			__asm__ volatile("pause");
		memset(b, 0x22, sizeof(b));
		if (shm) {	/* a store through its own shared mapping */
			char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, 0);

			if (m == MAP_FAILED)
				_exit(1);
			memcpy(m, b, sizeof(b));
		} else if (pwrite(fd, b, sizeof(b), 0) != sizeof(b)) {
			_exit(1);
		}
		unlink(path);
		*flag = 2;
		_exit(0);
	}
	r14 = flag;
	__asm__ volatile("mov (%%rbx), %%r12\n"
			 "\tnop\n\tnop\n"
			 "\tmovq $1, (%%r14)\n"
			 "1:\tcmpq $2, (%%r14)\n\tje 2f\n\tpause\n\tjmp 1b\n"
			 "2:\tmov (%%rbx), %%r13\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : "b"(map), "r"(r14)
			 : "rax", "rcx", "rdi", "r11", "r12", "r13", "memory");
}

/* ---- deep: a deep skip scan over a word read through the stack ------ */

/*
 * deep (for watchpoints; run by hand with test_watch_chain's checks):
 * r6_deep pushes &r6_target once and calls r6_deep_f 2,000 times; each
 * call loads that word (8(%rsp), stored long before any window near the
 * call) into rax, reads 8 bytes through it (r6_target's code), then
 * calls through the same word (`call *8(%rsp)`: the trace shows the
 * word).  The word is the same at both loads, no store between.
 */
__asm__(".text\n"
	"r6_deep_f:\n"
	"\tmov 8(%rsp), %rax\n"
	"\tmov (%rax), %rdx\n"
	"\tcall *8(%rsp)\n"
	"\tret\n"
	"r6_target:\n\tnop\n\tret\n"
	"r6_deep:\n"
	"\tpush %rbx\n"
	"\tlea r6_target(%rip), %rcx\n\tpush %rcx\n"
	"\tmov $2000, %ebx\n"
	"1:\tcall r6_deep_f\n\tdec %ebx\n\tjnz 1b\n"
	"\tpop %rcx\n\tpop %rbx\n\tret\n");
void r6_deep(void);

/*
 * deepg: rbx = &r6_data long before (a register at a window's start);
 * then rbx is stored into the global r6_g (never written again, so the
 * snapshot shows it) and r6_data is read and written through rbx; then
 * 4,000 instructions of a counting loop to the end.
 */
__asm__(".text\n"
	"r6_deepg:\n"
	"\tpush %rbx\n"
	"\tlea r6_data(%rip), %rbx\n"
	"\tmov $1000, %ecx\n1:\tdec %ecx\n\tjnz 1b\n"
	"\tmov %rbx, r6_g(%rip)\n"
	"\tmov (%rbx), %rdx\n"
	"\tmovq $5, (%rbx)\n"
	"\txor %ebx, %ebx\n"
	"\tmov $2000, %ecx\n1:\tdec %ecx\n\tjnz 1b\n"
	"\tpop %rbx\n\tret\n");
void r6_deepg(void);
long r6_g, r6_data;

/* ---- fpframe: a watchpoint on the signal frame's FPU state ---------- */

static char r6_alt[65536] __attribute__((aligned(64)));
struct _libc_fpstate *volatile r6_fp;
volatile long r6_sigs;

static void r6_sig_h(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	r6_fp = ((ucontext_t *)uc)->uc_mcontext.fpregs;
	r6_sigs++;
}

/*
 * fpframe: as review5.c sigframe (a SA_SIGINFO handler on an alternate
 * stack, a global array filled with 0x5a first, kill(2) to itself), but
 * the watched bytes are the frame's FPU state (its fxsave area's mxcsr),
 * which the kernel always writes at the delivery (XSAVE to the frame,
 * 456 bytes above the handler's entry rsp on x86-64).
 */
static void fpframe(void)
{
	stack_t ss = { .ss_sp = r6_alt, .ss_size = sizeof(r6_alt) };
	struct sigaction sa;

	memset(r6_alt, 0x5a, sizeof(r6_alt));
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = r6_sig_h;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	printf("mxcsr %#x\n", r6_fp->mxcsr);
	fflush(stdout);
	_exit(0);
}

/* ---- ucmod: the handler rewrites the saved r12 in its ucontext ------- */

greg_t *volatile r6_slot;
long r6_r12;

static void r6_uc_h(int sig, siginfo_t *si, void *uc)
{
	greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	g[REG_R12] = 0x1234;
	r6_slot = &g[REG_R12];
}

/*
 * ucmod: a SA_SIGINFO handler on the normal stack (its frame below the
 * red zone) rewrites the saved r12 in its ucontext; rt_sigreturn puts
 * it in r12.  A watchpoint on that word: reverse-continue from after
 * the return must stop at the handler's store, then at the delivery.
 */
static void ucmod(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = r6_uc_h;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	__asm__ volatile("mov $0x11, %%r12\n"
			 "\tmov $39, %%eax\n\tsyscall\n"
			 "\tmov %%rax, %%rdi\n\tmov $12, %%esi\n"
			 "\tmov $62, %%eax\n\tsyscall\n"
			 ".globl r6_ucback\nr6_ucback:\n"
			 "\tmov %%r12, r6_r12(%%rip)\n"
			 "\tnop\n\tnop\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			 "memory");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	volatile long x = 0;
	int p[2], i;

	for (i = 0; i < 256; i++)
		r6_tbl[i] = (unsigned char)i;

	if (!strcmp(m, "brkfix"))
		brkfix();
	if (!strcmp(m, "fpframe"))
		fpframe();
	if (!strcmp(m, "ucmod"))
		ucmod();
	if (!strcmp(m, "deepg")) {
		r6_deepg();
		sc1(231, 0);
	}
	if (!strcmp(m, "deep")) {
		r6_deep();
		sc1(231, 0);
	}
	if (!strcmp(m, "forkwrite"))
		forkwrite(false, false);
	if (!strcmp(m, "forkshm"))
		forkwrite(true, false);
	if (!strcmp(m, "thrwrite"))
		forkwrite(false, true);
	if ((!strcmp(m, "lgsbase") || !strcmp(m, "lfsbase")) &&
	    !(getauxval(AT_HWCAP2) & 2))
		return 7;
	if (!strcmp(m, "lpipe2")) {
		if (pipe(p))
			return 7;
		r6_pfdw = p[1];
		r6_pfd = p[0];
		r6_spawn(r6_child_pub);
		LCASE(SUB "\tmov %%rax, (%%rsp)\n"
		      "\tmov r6_pfdw(%%rip), %%edi\n\tmov %%rsp, %%rsi\n"
		      "\tmov $8, %%edx\n\tmov $1, %%eax\n\tsyscall\n"
		      "\tmovq $0, (%%rsp)\n"
		      "\tmov r6_pfd(%%rip), %%edi\n\tlea 8(%%rsp), %%rsi\n"
		      "\tmov $8, %%edx\n\txor %%eax, %%eax\n\tsyscall\n"
		      "\tmov 8(%%rsp), %%rdx\n\tmovq $0, 8(%%rsp)\n" ADD);
	}
	if (!strcmp(m, "lsigact")) {
		/* rt_sigaction(SIGUSR2, {&x, SA_RESTORER...}, NULL, 8) */
		r6_spawn(r6_child_sig);
		LCASE(SUB "\tmov %%rax, (%%rsp)\n\tmovq $0, 8(%%rsp)\n"
		      "\tmovq $0, 16(%%rsp)\n\tmovq $0, 24(%%rsp)\n"
		      "\tmov $12, %%edi\n\tmov %%rsp, %%rsi\n\txor %%edx, %%edx\n"
		      "\tmov $8, %%r10d\n\tmov $13, %%eax\n\tsyscall\n"
		      "\tmovq $0, (%%rsp)\n" ADD
		      "\tmovq $1, r6_go(%%rip)\n\txor %%edx, %%edx\n"
		      "\txor %%esi, %%esi\n\txor %%edi, %%edi\n");
	}
	if (!strcmp(m, "lrobust")) {
		/* set_robust_list(&x, 24) */
		r6_tid = gettid();
		r6_spawn(r6_child_rob);
		LCASE("\tmov %%rax, %%rdi\n\tmov $24, %%esi\n"
		      "\tmov $273, %%eax\n\tsyscall\n"
		      "\tmovq $1, r6_go(%%rip)\n\txor %%edx, %%edx\n"
		      "\txor %%esi, %%esi\n\txor %%edi, %%edi\n");
	}
	if (!strcmp(m, "lprname")) {
		/* 12 letters 'a' + nibble (no table), PR_SET_NAME, then
		 * PR_GET_NAME into another buffer and back to a number
		 */
		r6_spawn(r6_child_pub);
		LCASE(SUB "\tmovq $0, 8(%%rsp)\n\tmovq $0, 40(%%rsp)\n"
		      "\tmovq $0, 48(%%rsp)\n\txor %%ecx, %%ecx\n"
		      "3:\tmov %%rax, %%rsi\n\tshr %%cl, %%rsi\n"
		      "\tand $15, %%esi\n\tadd $97, %%esi\n"
		      "\tmov %%ecx, %%edi\n\tshr $2, %%edi\n"
		      "\tmov %%sil, (%%rsp,%%rdi)\n"
		      "\tadd $4, %%ecx\n\tcmp $48, %%ecx\n\tjne 3b\n"
		      "\tmovl $0, 12(%%rsp)\n"
		      "\tmov $15, %%edi\n\tmov %%rsp, %%rsi\n"
		      "\tmov $157, %%eax\n\tsyscall\n"
		      "\tmovq $0, (%%rsp)\n\tmovq $0, 8(%%rsp)\n"
		      "\tmov $16, %%edi\n\tlea 32(%%rsp), %%rsi\n"
		      "\tmov $157, %%eax\n\tsyscall\n"
		      "\txor %%edx, %%edx\n\tmov $44, %%ecx\n"
		      "4:\tmov %%ecx, %%edi\n\tshr $2, %%edi\n"
		      "\tmovzbl 32(%%rsp,%%rdi), %%esi\n\tsub $97, %%esi\n"
		      "\tshl $4, %%rdx\n\tor %%rsi, %%rdx\n"
		      "\tsub $4, %%ecx\n\tjns 4b\n"
		      "\tmovq $0, 32(%%rsp)\n\tmovq $0, 40(%%rsp)\n" ADD);
	}
	if (!strcmp(m, "lpipe")) {
		if (pipe(p))
			return 7;
		r6_pfd = p[0];
		r6_pfdw = p[1];
		r6_spawn(r6_child_pipe);
		LCASE(SUB "\tmov %%rax, (%%rsp)\n"
		      "\tmov r6_pfdw(%%rip), %%edi\n\tmov %%rsp, %%rsi\n"
		      "\tmov $8, %%edx\n\tmov $1, %%eax\n\tsyscall\n"
		      ADD "\txor %%edx, %%edx\n");
	}
	r6_spawn(r6_child_pub);
	if (!strcmp(m, "plain"))
		LCASE("\tmov %%rax, %%rdx\n");
	else if (!strcmp(m, "lbsf"))
		LCASE("\tmov %%rax, %%rsi\n\txor %%edx, %%edx\n"
		      "3:\tbsf %%rsi, %%rcx\n\tjz 4f\n"
		      "\tmov $1, %%edi\n\tshl %%cl, %%rdi\n\tor %%rdi, %%rdx\n"
		      "\tbtr %%rcx, %%rsi\n\tjmp 3b\n4:\n");
	else if (!strcmp(m, "lpopcnt"))
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tmov $1, %%edi\n\tshl %%cl, %%rdi\n"
		      "\tand %%rax, %%rdi\n\tpopcnt %%rdi, %%rsi\n"
		      "\tshl %%cl, %%rsi\n\tor %%rsi, %%rdx\n"
		      "\tinc %%ecx\n\tcmp $64, %%ecx\n\tjne 3b\n");
	else if (!strcmp(m, "ldiv"))
		LCASE("\timul $3, %%rax, %%rax\n\txor %%edx, %%edx\n"
		      "\tmov $3, %%ecx\n\tdiv %%rcx\n\tmov %%rax, %%rdx\n");
	else if (!strcmp(m, "lx87"))
		LCASE(SUB "\tmov %%rax, (%%rsp)\n\tfildq (%%rsp)\n"
		      "\tmovq $0, (%%rsp)\n"
		      "\tfistpq 8(%%rsp)\n\tmov 8(%%rsp), %%rdx\n"
		      "\tmovq $0, 8(%%rsp)\n" ADD);
	else if (!strcmp(m, "lmmx"))
		LCASE("\tmovq %%rax, %%mm0\n\tmovq %%mm0, %%rdx\n\temms\n");
	else if (!strcmp(m, "lrepmovs"))
		LCASE(SUB "\tmov %%rax, (%%rsp)\n\tmov %%rsp, %%rsi\n"
		      "\tlea 8(%%rsp), %%rdi\n\tmov $8, %%ecx\n\trep movsb\n"
		      "\tmovq $0, (%%rsp)\n"
		      "\tmov 8(%%rsp), %%rdx\n\tmovq $0, 8(%%rsp)\n" ADD);
	else if (!strcmp(m, "lcvt"))
		LCASE("\tcvtsi2sdq %%rax, %%xmm0\n\tcvttsd2si %%xmm0, %%rdx\n"
		      "\txorps %%xmm0, %%xmm0\n");
	else if (!strcmp(m, "lfld"))
		LCASE(SUB "\tmov %%rax, (%%rsp)\n\tfldl (%%rsp)\n"
		      "\tmovq $0, (%%rsp)\n"
		      "\tfstpl 8(%%rsp)\n\tmov 8(%%rsp), %%rdx\n"
		      "\tmovq $0, 8(%%rsp)\n" ADD);
	else if (!strcmp(m, "lpushf"))
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tbt %%rcx, %%rax\n\tpushf\n\tpop %%rsi\n"
		      "\tand $1, %%esi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n");
	else if (!strcmp(m, "llahf"))
		LCASE("\tmov %%rax, %%rdi\n"
		      "\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tbt %%rcx, %%rdi\n\tlahf\n\tmovzbl %%ah, %%esi\n"
		      "\tand $1, %%esi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n\txor %%edi, %%edi\n");
	else if (!strcmp(m, "lrcl"))
		LCASE("\txor %%edx, %%edx\n\tmov $63, %%ecx\n"
		      "3:\tbt %%rcx, %%rax\n\trcl $1, %%rdx\n"
		      "\tdec %%ecx\n\tjns 3b\n");
	else if (!strcmp(m, "ladc"))
		LCASE("\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\txor %%esi, %%esi\n\tbt %%rcx, %%rax\n"
		      "\tadc $0, %%rsi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n");
	else if (!strcmp(m, "lgs"))
		LCASE("\tmov %%rax, %%rsi\n\tmov $0x1001, %%edi\n"
		      "\tmov $158, %%eax\n\tsyscall\n"
		      SUB "\tmov %%rsp, %%rsi\n\tmov $0x1004, %%edi\n"
		      "\tmov $158, %%eax\n\tsyscall\n"
		      "\tmov (%%rsp), %%rdx\n\tmovq $0, (%%rsp)\n" ADD
		      "\txor %%esi, %%esi\n");
	else if (!strcmp(m, "lgsbase"))
		LCASE("\twrgsbase %%rax\n\txor %%eax, %%eax\n"
		      "\trdgsbase %%rdx\n");
	else if (!strcmp(m, "lscas"))	/* byte by byte, repne scasb */
		LCASE("\tmov %%rax, %%r8\n\txor %%edx, %%edx\n"
		      "\tmov $56, %%esi\n"
		      "3:\tmov %%r8, %%rax\n\tmov %%esi, %%ecx\n"
		      "\tshr %%cl, %%rax\n"
		      "\tlea r6_tbl(%%rip), %%rdi\n\tmov $256, %%ecx\n"
		      "\tcld\n\trepne scasb\n"
		      "\tlea r6_tbl+1(%%rip), %%rax\n\tsub %%rax, %%rdi\n"
		      "\tshl $8, %%rdx\n\tor %%rdi, %%rdx\n"
		      "\tsub $8, %%esi\n\tjns 3b\n\txor %%r8d, %%r8d\n");
	else if (!strcmp(m, "lfxsave"))	/* xmm0 through fxsave's image */
		LCASE("\tmovq %%rax, %%xmm0\n\tsub $1024, %%rsp\n"
		      "\tmov %%rsp, %%rsi\n\tand $-64, %%rsi\n"
		      "\txor %%eax, %%eax\n\tfxsave64 (%%rsi)\n"
		      "\tpxor %%xmm0, %%xmm0\n"
		      "\tmov 160(%%rsi), %%rdx\n\tmovq $0, 160(%%rsi)\n"
		      "\tadd $1024, %%rsp\n\txor %%esi, %%esi\n");
	else if (!strcmp(m, "lbtmem"))	/* bit by bit, bt on a stack slot */
		LCASE(SUB "\tmov %%rax, (%%rsp)\n\txor %%eax, %%eax\n"
		      "\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tbtq %%rcx, (%%rsp)\n\tsetc %%sil\n"
		      "\tmovzbl %%sil, %%esi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n\tmovq $0, (%%rsp)\n" ADD);
	else if (!strcmp(m, "ljrcxz"))	/* bit by bit, jrcxz */
		LCASE("\txor %%edx, %%edx\n\tmov $1, %%esi\n"
		      "3:\tmov %%rax, %%rcx\n\tand %%rsi, %%rcx\n"
		      "\tjrcxz 4f\n\tor %%rsi, %%rdx\n"
		      "4:\tshl $1, %%rsi\n\tjnz 3b\n");
	else if (!strcmp(m, "lsahf"))	/* bit by bit, into CF by sahf */
		LCASE("\tmov %%rax, %%rdi\n\txor %%edx, %%edx\n"
		      "\txor %%ecx, %%ecx\n"
		      "3:\tmov %%rdi, %%rsi\n\tshr %%cl, %%rsi\n"
		      "\tand $1, %%esi\n\tmov %%esi, %%eax\n"
		      "\tshl $8, %%eax\n\tsahf\n\tsetc %%sil\n"
		      "\tmovzbl %%sil, %%esi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n\txor %%edi, %%edi\n");
	else if (!strcmp(m, "lred1"))	/* through the red zone */
		LCASE("\tmov %%rax, -8(%%rsp)\n\txor %%eax, %%eax\n"
		      "\tmov -8(%%rsp), %%rdx\n\tmovq $0, -8(%%rsp)\n");
	else if (!strcmp(m, "lred2"))	/* a slot popped into the red zone */
		LCASE("\tsub $64, %%rsp\n\tmov %%rax, (%%rsp)\n"
		      "\tadd $64, %%rsp\n\txor %%eax, %%eax\n"
		      "\tmov -64(%%rsp), %%rdx\n\tmovq $0, -64(%%rsp)\n");
	else if (!strcmp(m, "lwhole"))	/* a WHOLE value (cmov, clean flags) */
		LCASE("\txor %%edx, %%edx\n\tmov $1, %%ecx\n"
		      "\ttest %%ecx, %%ecx\n\tcmovnz %%rax, %%rdx\n");
	else if (!strcmp(m, "lwhole2"))	/* WHOLE, bit by bit by bt; setc */
		LCASE("\txor %%edi, %%edi\n\tmov $1, %%ecx\n"
		      "\ttest %%ecx, %%ecx\n\tcmovnz %%rax, %%rdi\n"
		      "\txor %%edx, %%edx\n\txor %%ecx, %%ecx\n"
		      "3:\tbt %%rcx, %%rdi\n\tsetc %%sil\n"
		      "\tmovzbl %%sil, %%esi\n\tshl %%cl, %%rsi\n"
		      "\tor %%rsi, %%rdx\n\tinc %%ecx\n\tcmp $64, %%ecx\n"
		      "\tjne 3b\n\txor %%edi, %%edi\n");
	else if (!strcmp(m, "lfsbase"))	/* through the fs base and back */
		LCASE("\trdfsbase %%r8\n\twrfsbase %%rax\n\txor %%eax, %%eax\n"
		      "\trdfsbase %%rdx\n\twrfsbase %%r8\n");
	else if (!strcmp(m, "lmovbe"))	/* movbe from a stack slot, bswap */
		LCASE(SUB "\tmov %%rax, (%%rsp)\n\tmovbe (%%rsp), %%rdx\n"
		      "\tbswap %%rdx\n\tmovq $0, (%%rsp)\n" ADD);
	else if (!strcmp(m, "lpext"))
		LCASE("\tmov $-1, %%rsi\n\tpext %%rsi, %%rax, %%rdx\n");
	return 1;
}
