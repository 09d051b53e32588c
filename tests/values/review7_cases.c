// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 7's single cases that are not laundering (tests/values/review7.c
 * lists them and what each found; review7.sh runs them): an instruction,
 * a system call or a signal each, ending with exit_group where it stands.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <signal.h>
#include <ucontext.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>

#include "review7.h"

/* @v through a pipe: memory the engine cannot know (read(2)'s buffer). */
volatile long r7_u;

static void via_pipe(long v)
{
	int fd[2];
	long t = v;

	if (pipe(fd) || write(fd[1], &t, 8) != 8 ||
	    read(fd[0], (void *)&r7_u, 8) != 8)
		exit(3);
	close(fd[0]);
	close(fd[1]);
}

/* repfault: the SIGSEGV handler makes the faulting page writable. */
static unsigned char *r7_dpage;
unsigned char r7_src8k[8192];

static void r7_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (mprotect(r7_dpage + 4096, 4096, PROT_READ | PROT_WRITE))
		_exit(4);
}

/* repjmp: the handler jumps out of the faulting rep movsb. */
static sigjmp_buf r7_jb;

static void r7_segv_jmp(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	siglongjmp(r7_jb, 1);
}

/* @h for @sig with SA_SIGINFO | @flags; sigaction's result. */
static int r7_handle(int sig, void (*h)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | flags;
	return sigaction(sig, &sa, NULL);
}

/*
 * repfault, repjmp: @h on SIGSEGV; r7_dpage two pages, byte 10 (and 5000
 * with @both) 0x11, the second PROT_NONE; r7_src8k filled.  -1 if not.
 */
static int rep_setup(void (*h)(int, siginfo_t *, void *), bool both)
{
	r7_handle(SIGSEGV, h, 0);
	r7_dpage = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r7_dpage == MAP_FAILED)
		return -1;
	r7_dpage[10] = 0x11;
	if (both)
		r7_dpage[5000] = 0x11;
	if (mprotect(r7_dpage + 4096, 4096, PROT_NONE))
		return -1;
	for (int k = 0; k < 8192; k++)
		r7_src8k[k] = (unsigned char)(k * 7 + 1);
	return 0;
}

/* pstack: a thread on a stack carved from main's own stack. */
static void *r7_pstack_fn(void *a)
{
	volatile char loc[512];

	for (int k = 0; k < 512; k++)
		loc[k] = 0x77;
	return (void *)(long)loc[7] + (long)a;
}

static __attribute__((noinline)) int pstack(void)
{
	char buf[65536] __attribute__((aligned(64)));
	pthread_attr_t at;
	pthread_t t;
	long k;

	memset(buf, 0x11, sizeof(buf));
	if (pthread_attr_init(&at) ||
	    pthread_attr_setstack(&at, buf, sizeof(buf)) ||
	    pthread_create(&t, &at, r7_pstack_fn, NULL) ||
	    pthread_join(t, NULL))
		return 7;
	/* the first byte from the top that the thread wrote */
	for (k = sizeof(buf) - 1; k > 0 && buf[k] != 0x77; k--)
		;
	__asm__ volatile("movzbl (%0), %%r12d\n"
			 "\tmovb $0, (%0)\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW :: "r"(buf + k) : "r12", "memory");
	return 0;
}

/*
 * shmalias: one SysV segment attached twice (A, B), both detached before
 * the end.  r13 = *B after *A = 0x11 (kept to the end), then *A = 0x22,
 * r12 = *B (0x22).  MAPALIAS: the same with a memfd mapped MAP_SHARED
 * twice, and with mremap(A, 0, 4096, MREMAP_MAYMOVE) (a second mapping
 * of the same shared pages).
 */
int r7_keep;	/* alias_run: keep both mappings to the end */
char *volatile r7_pa, *volatile r7_pb;
static int alias_run(char *a, char *b)
{
	r7_pa = a;
	r7_pb = b;
	__asm__ volatile("movq $0x11, (%0)\n"
			 "\tmov (%1), %%r13\n"
			 "\tmovq $0x22, (%0)\n"
			 "\tmov (%1), %%r12\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 /* munmap both (shmdt's pages too), then exit */
			 "\tcmpl $0, r7_keep(%%rip)\n\tjne 5f\n"
			 "\tmov %0, %%rdi\n\tmov $4096, %%esi\n"
			 "\tmov $11, %%eax\n\tsyscall\n"
			 "\tmov %1, %%rdi\n\tmov $4096, %%esi\n"
			 "\tmov $11, %%eax\n\tsyscall\n"
			 "5:\n"
			 EXIT_NOW :: "r"(a), "r"(b)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			 "r13", "memory");
	return 0;
}

/*
 * calleek: a callee saves rbx (push), launders its slot's address through
 * k1 (kmovq) and stores 0x77 through it, then pops rbx (0x77).
 * calleefx: the same through fxsave64 of xmm0 into a global and a load.
 */
__asm__(".text\n"
	"r7_cfk:\n"
	"\tpush %rbx\n"
	"\tmov %rsp, %rax\n"
	"\tkmovq %rax, %k1\n"
	"\txor %eax, %eax\n"
	"\tkmovq %k1, %rdx\n"
	"\tkxorq %k1, %k1, %k1\n"
	"\tmovq $0x77, (%rdx)\n"
	"\txor %edx, %edx\n"
	"\tpop %rbx\n"
	"\tret\n"
	"r7_cffx:\n"
	"\tpush %rbx\n"
	"\tmovq %rsp, %xmm0\n"
	"\tfxsave64 r7_area(%rip)\n"
	"\tpxor %xmm0, %xmm0\n"
	"\tmov r7_area+160(%rip), %rdx\n"
	"\tmovq $0, r7_area+160(%rip)\n"
	"\tmovq $0x77, (%rdx)\n"
	"\txor %edx, %edx\n"
	"\tpop %rbx\n"
	"\tret\n");

/* trapself: the program's own SIGTRAPs (int3, int1). */
static volatile int r7_n3, r7_n1;

static volatile uintptr_t r7_icebp;	/* trapself's int1 */

static void r7_trap(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;

	(void)sig;
	if (si->si_code == 0x80)	/* SI_KERNEL: int3 */
		r7_n3++;
	else
		r7_n1++;
	/* int1 is a trap (rip after it), but KVM on AMD SVM may give its
	 * #DB back with rip still at it (tests/programs/faithful.c): a
	 * return there traps forever, natively too.  Stepped over.
	 */
	if ((uintptr_t)u->uc_mcontext.gregs[REG_RIP] == r7_icebp)
		u->uc_mcontext.gregs[REG_RIP]++;
}

/* sigcont: a child stops itself; the parent's SIGCONT runs its handler. */
static volatile int r7_cont;

static void r7_oncont(int sig)
{
	(void)sig;
	r7_cont++;
}

static int sigcont(void)
{
	pid_t p;
	int st;

	signal(SIGCONT, r7_oncont);
	fflush(stdout);
	p = fork();
	if (p < 0)
		return 7;
	if (!p) {
		raise(SIGSTOP);
		printf("child: SIGCONT handled %d\n", r7_cont);
		fflush(stdout);
		_exit(3);
	}
	if (waitpid(p, &st, WUNTRACED) != p || !WIFSTOPPED(st))
		return 4;
	kill(p, SIGCONT);
	if (waitpid(p, &st, 0) != p)
		return 4;
	printf("parent: child exit %d\n", WEXITSTATUS(st));
	return 0;
}

/* altsig: a handler on an alternate stack notes its siginfo's place. */
static char r7_alt[65536] __attribute__((aligned(64)));
int *volatile r7_si;

int r7_on_altstack(void (*h)(int, siginfo_t *, void *))
{
	stack_t ss = { .ss_sp = r7_alt, .ss_size = sizeof(r7_alt) };

	if (sigaltstack(&ss, NULL))
		return -1;
	return r7_handle(SIGUSR1, h, SA_ONSTACK);
}

static void r7_alth(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	r7_si = &si->si_signo;
}

/* xlatfs: xlat through fs (a TLS table). */
static __thread unsigned char r7_tls[256];
unsigned char *volatile r7_tlsp;

/* Runs mode @m if it is one of this file's; -1 if not. */
int r7_cases(const char *m)
{
	if (!strcmp(m, "a32abs")) {
		if (mmap((void *)0xf0000000ul, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) != (void *)0xf0000000ul)
			return 7;
		__asm__ volatile("mov $0xf0000000, %%ebx\n"
				 "\tmovl $0x11, (%%rbx)\n"
				 "\tmov $0x22, %%eax\n"
				 /* addr32 mov %eax, 0xf0000000 */
				 "\t.byte 0x67, 0x89, 0x04, 0x25, 0, 0, 0, 0xf0\n"
				 "\tmov (%%rbx), %%r12d\n"
				 "\tmovl $0, (%%rbx)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "rbx", "r12", "memory");
	}
	if (!strcmp(m, "scatter")) {
		if (!r7_cpu_has_sweep())
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		__asm__ volatile("lea r7_sc(%%rip), %%rbp\n"
				 "\tmovq $0x5a, (%%rbp)\n"
				 "\tmovq $0x5b, 8(%%rbp)\n"
				 "\tvmovdqu64 r7_y(%%rip), %%zmm2\n"
				 "\tvmovdqu64 r7_idx(%%rip), %%zmm4\n"
				 "\tkxnorw %%k1, %%k1, %%k1\n"
				 "\tvpscatterdd %%zmm2, (%%rbp,%%zmm4,4)%{%%k1%}\n"
				 "\tmov 8(%%rbp), %%r12\n"
				 "\tmovq $0, 8(%%rbp)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rbp", "r12", "memory");
	}
	if (!strcmp(m, "xrel")) {
		__asm__ volatile("lea r7_g(%%rip), %%rbx\n"
				 "\tmovq $0x11, (%%rbx)\n"
				 "\tmov $0x22, %%eax\n"
				 "\t.byte 0xf3, 0x89, 0x03\n" /* xrelease mov */
				 "\tmov (%%rbx), %%r12d\n"
				 "\tmov $0x33, %%eax\n"
				 "\t.byte 0xf2, 0x89, 0x43, 0x08\n" /* f2 mov */
				 "\tmov 8(%%rbx), %%r13d\n"
				 "\tmovl $0, (%%rbx)\n"
				 "\tmovl $0, 8(%%rbx)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "rbx", "r12", "r13", "memory");
	}
	if (!strcmp(m, "a32lea")) {
		__asm__ volatile("xor %%eax, %%eax\n"
				 /* addr32 lea 0xf0000000, %%rax */
				 "\t.byte 0x67, 0x48, 0x8d, 0x04, 0x25, 0, 0, 0, 0xf0\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%eax, %%eax\n"
				 EXIT_NOW ::: "rax", "memory");
	}
	if (!strcmp(m, "repfault")) {
		if (rep_setup(r7_segv, true))
			return 3;
		__asm__ volatile("lea r7_src8k(%%rip), %%rsi\n"
				 "\tmov %0, %%rdi\n"
				 "\tmov $8192, %%ecx\n"
				 "\tcld\n"
				 "\trep movsb\n"
				 "\tmov %0, %%rdi\n"
				 "\tmovzbl 10(%%rdi), %%r12d\n"
				 "\tmovzbl 5000(%%rdi), %%r13d\n"
				 "\tmovb $0, 10(%%rdi)\n"
				 "\tmovb $0, 5000(%%rdi)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW :: "r"(r7_dpage)
				 : "rsi", "rdi", "rcx", "r12", "r13", "memory");
	}
	if (!strcmp(m, "repjmp")) {
		if (rep_setup(r7_segv_jmp, false))
			return 3;
		if (!sigsetjmp(r7_jb, 1))
			__asm__ volatile("lea r7_src8k(%%rip), %%rsi\n"
					 "\tmov %0, %%rdi\n"
					 "\tmov $8192, %%ecx\n"
					 "\tcld\n"
					 "\trep movsb\n"
					 :: "r"(r7_dpage)
					 : "rsi", "rdi", "rcx", "memory");
		__asm__ volatile("mov %0, %%rdi\n"
				 "\tmovzbl 10(%%rdi), %%r12d\n"
				 "\tmovb $0, 10(%%rdi)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW :: "r"(r7_dpage)
				 : "rdi", "r12", "memory");
	}
	if (!strcmp(m, "movsxd32")) {
		__asm__ volatile("movabs $0x1122334455667788, %%rax\n"
				 "\tmov $0x80000001, %%ecx\n"
				 "\t.byte 0x63, 0xc1\n"	/* movsxd %%ecx, %%eax */
				 "\tmov %%rax, %%r12\n"
				 "\t.byte 0x66, 0x63, 0xc1\n"	/* movsxd %%cx, %%ax */
				 "\tmov %%rax, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "rcx", "r12", "r13",
				 "memory");
	}
	if (!strcmp(m, "pushfs")) {	/* push %fs; pop %rax */
		__asm__ volatile("push %%fs\n"
				 "\tpop %%rax\n"
				 "\tmov %%rsp, %%r12\n"
				 "\tpush %%gs\n"
				 "\tpop %%rax\n"
				 "\tmov %%rsp, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "r12", "r13", "memory");
	}
	if (!strcmp(m, "lretq")) {	/* a far return to the same cs */
		__asm__ volatile("mov %%cs, %%eax\n"
				 "\tpush %%rax\n"
				 "\tlea 1f(%%rip), %%rax\n"
				 "\tpush %%rax\n"
				 "\tlretq\n"
				 "1:\tmov %%rsp, %%r12\n"
				 "\tsub $16, %%rsp\n"
				 "\tmov %%cs, %%eax\n"
				 "\tpush %%rax\n"
				 "\tlea 2f(%%rip), %%rax\n"
				 "\tpush %%rax\n"
				 "\tlretq $16\n"
				 "2:\tmov %%rsp, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "rax", "r12", "r13", "memory");
	}
	if (!strcmp(m, "lcall")) {	/* far call through memory, lretq */
		static unsigned long fp[2];

		__asm__ volatile("lea 3f(%%rip), %%rax\n"
				 "\tmov %%rax, %0\n"
				 "\tmov %%cs, %%eax\n"
				 "\tmov %%rax, 8+%0\n"
				 "\trex64 lcall *%0\n"
				 "\tmov %%rsp, %%r12\n"
				 "\tjmp 4f\n"
				 "3:\tmov %%rsp, %%r13\n"
				 "\tlretq\n"
				 "4:\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW : "+m"(fp) :: "rax", "r12", "r13",
				 "memory");
	}
	if (!strcmp(m, "pushf64")) {	/* pushfq; pop %rax; push; popfq */
		__asm__ volatile("pushfq\n"
				 "\tpop %%rax\n"
				 "\tmov %%rax, %%r12\n"
				 "\tpush %%rax\n"
				 "\tpopfq\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "r12", "memory");
	}
	if (!strcmp(m, "pushf16")) {	/* 66 9c / 66 9d: 2 bytes */
		__asm__ volatile(".byte 0x66, 0x9c\n"
				 "\tmov %%rsp, %%r12\n"
				 "\t.byte 0x66, 0x9d\n"
				 "\tmov %%rsp, %%r13\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 EXIT_NOW ::: "r12", "r13", "memory");
	}
	if (!strcmp(m, "vforkw")) {	/* the vfork child stores r7_g[2] */
		r7_g[2] = 1;
		__asm__ volatile("mov $58, %%eax\n\tsyscall\n"
				 "\ttest %%eax, %%eax\n\tjnz 1f\n"
				 "\tmovq $2, r7_g+16(%%rip)\n"
				 "\tmov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall\n"
				 "1:\tmov r7_g+16(%%rip), %%r12\n"
				 "\tmovq $3, r7_g+16(%%rip)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "rcx", "rdi", "r11", "r12",
				 "memory");
	}
	if (!strcmp(m, "pstack"))
		return pstack();
	if (!strcmp(m, "mfdaliaskeep") || !strcmp(m, "shmaliaskeep")) {
		r7_keep = 1;
		m = m[0] == 'm' ? "mfdalias" : "shmalias";
	}
	if (!strcmp(m, "shmalias")) {
		int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		char *a, *b;

		if (id < 0)
			return 7;
		a = shmat(id, NULL, 0);
		b = shmat(id, NULL, 0);
		shmctl(id, IPC_RMID, NULL);
		if (a == (void *)-1 || b == (void *)-1)
			return 7;
		return alias_run(a, b);
	}
	if (!strcmp(m, "mfdalias")) {
		int fd = memfd_create("r7a", 0);
		char *a, *b;

		if (fd < 0 || ftruncate(fd, 4096))
			return 7;
		a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (a == MAP_FAILED || b == MAP_FAILED)
			return 7;
		return alias_run(a, b);
	}
	if (!strcmp(m, "remapalias")) {
		char *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0), *b;

		if (a == MAP_FAILED)
			return 7;
		b = mremap(a, 0, 4096, MREMAP_MAYMOVE);
		if (b == MAP_FAILED)
			return 7;
		return alias_run(a, b);
	}
	if (!strcmp(m, "scatterend")) {	/* a scatter that faults half way */
		char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (!r7_cpu_has_sweep() || pg == MAP_FAILED ||
		    mprotect(pg + 4096, 4096, PROT_NONE))
			return 7;
		for (int k = 0; k < 64; k++)
			r7_y[k] = (unsigned char)(0x80 + k);
		memset(pg, 0x5b, 4096);
		/* elements 0..7 in the first page, 8.. in the second */
		__asm__ volatile("mov %0, %%rbp\n"
				 "\tmovzbl (%%rbp), %%r12d\n"
				 "\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 "\tvmovdqu64 r7_y(%%rip), %%zmm2\n"
				 "\tvmovdqu64 r7_idx(%%rip), %%zmm4\n"
				 "\tkxnorw %%k1, %%k1, %%k1\n"
				 "\tvpscatterdd %%zmm2, (%%rbp,%%zmm4,4)%{%%k1%}\n"
				 EXIT_NOW :: "r"(pg + 4096 - 32)
				 : "rbp", "r12", "memory");
	}
	if (!strcmp(m, "calleek") || !strcmp(m, "calleefx")) {
		if (!r7_cpu_has_sweep())
			return 7;
		if (m[6] == 'k')
			__asm__ volatile("mov $0x11, %%ebx\n\tcall r7_cfk\n"
					 "\tmov %%rbx, %%r12\n"
					 "\tnop\n\tnop\n\tnop\n"
					 "\txor %%r12d, %%r12d\n\txor %%ebx, %%ebx\n"
					 EXIT_NOW ::: "rax", "rbx", "rdx", "r12",
					 "memory");
		__asm__ volatile("mov $0x11, %%ebx\n\tcall r7_cffx\n"
				 "\tmov %%rbx, %%r12\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%ebx, %%ebx\n"
				 EXIT_NOW ::: "rax", "rbx", "rdx", "r12", "memory");
	}
	if (!strcmp(m, "vsys")) {	/* time(&r7_g[3]) through [vsyscall] */
		r7_g[3] = 0x11;
		__asm__ volatile("mov r7_g+24(%%rip), %%r13\n"
				 "\tlea r7_g+24(%%rip), %%rdi\n"
				 "\tmov $0xffffffffff600400, %%rax\n"
				 "\tcall *%%rax\n"
				 "\tmov r7_g+24(%%rip), %%r12\n"
				 "\tmovq $0, r7_g+24(%%rip)\n"
				 "\tnop\n\tnop\n\tnop\n"
				 "\txor %%r12d, %%r12d\n"
				 EXIT_NOW ::: "rax", "rcx", "rdx", "rsi", "rdi",
				 "r8", "r9", "r10", "r11", "r12", "r13", "memory");
	}
	if (!strcmp(m, "sigcont"))
		return sigcont();
	if (!strcmp(m, "trapself")) {
		r7_handle(SIGTRAP, r7_trap, 0);
		__asm__ volatile("int3");
		__asm__ volatile("lea 1f(%%rip), %%rax\n\t"
				 "mov %%rax, %0\n"
				 "1:\t.byte 0xf1"	/* int1 (icebp) */
				 : "=m"(r7_icebp) : : "rax", "memory");
		printf("int3 %d int1 %d\n", r7_n3, r7_n1);
		return 0;
	}
	if (!strcmp(m, "altsig")) {
		if (r7_on_altstack(r7_alth))
			return 7;
		raise(SIGUSR1);
		*r7_si = 0;	/* rewrite si_signo after the handler */
		__asm__ volatile(EXIT_NOW ::: "memory");
	}
	if (!strcmp(m, "xlatfs")) {	/* xlat %fs:(%rbx): TLS + rbx + al */
		long off = (char *)r7_tls - (char *)__builtin_thread_pointer();

		r7_tls[40] = 0x5a;
		r7_tlsp = &r7_tls[40];
		__asm__ volatile("mov %0, %%rbx\n"
				 "\tmov $40, %%eax\n"
				 "\t.byte 0x64, 0xd7\n"	/* xlat %%fs:(%%rbx) */
				 "\tnop\n\tnop\n\tnop\n"
				 EXIT_NOW :: "r"(off) : "rax", "rbx", "memory");
	}
	if (!strcmp(m, "rolcl")) {
		via_pipe(0x101);
		__asm__ volatile("mov r7_u(%%rip), %%rcx\n"
				 "\trol %%cl, %%rcx\n"
				 "\tcmp $0x202, %%rcx\n\tjne 1f\n"
				 "\tnop\n\tnop\n"
				 "1:\txor %%ecx, %%ecx\n"
				 EXIT_NOW ::: "rcx", "memory");
	}
	if (!strcmp(m, "bswap16")) {
		via_pipe(0x1234);
		__asm__ volatile("mov r7_u(%%rip), %%rbx\n"
				 "\t.byte 0x66, 0x0f, 0xcb\n"	/* bswap %%bx */
				 "\ttest %%bx, %%bx\n\tjnz 1f\n"
				 "\tnop\n\tnop\n"
				 "1:\txor %%ebx, %%ebx\n"
				 EXIT_NOW ::: "rbx", "memory");
	}
	return -1;
}
