// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 13's cases (tests/values/review13.sh, `make values-review13`):
 * programs that attack the REGS records of session 15 (a thread's
 * registers where its history starts, a system call's rax, rcx and r11
 * at its completion: record/emu.c, record/emu_step.c, replay/rcv_first.c)
 * and escstk's push of memory paired with its reload (replay/rcv_pass.c).
 * Each mode is one case; review13.sh says what each checks and what main
 * gives.  Built without PIE (compat: 32-bit code jumps to its own
 * addresses).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../programs/tidre.h"

/* A random word with bit 8 set (getrandom's buffer cleared after). */
static uint64_t urand(void)
{
	volatile uint64_t r = 0;
	uint64_t z;

	if (getrandom((void *)&r, sizeof(r), 0) != sizeof(r))
		exit(1);
	z = r | 0x100;
	r = 0;
	return z;
}

/* A zero the engine does not know (review11.c's ozero()). */
static uint64_t ozero(void)
{
	uint64_t a = urand(), b = urand(), z;

	__asm__ volatile("xor %%eax, %%eax\n\tcmp %2, %1\n\tsete %%al"
			 : "=&a"(z) : "r"(a), "r"(b) : "cc");
	return z;
}

/* The kernel's struct sigaction for rt_sigaction (a handler at an
 * address inside code, the restorer ours).
 */
struct ksa {
	uint64_t handler, flags, restorer, mask;
};
void r13_restorer(void);
__asm__(".text\nr13_restorer:\n\tmov $15, %eax\n\tsyscall\n\tud2\n");

static void handler_at(int sig, uint64_t at)
{
	struct ksa a = { at, 0x04000000 /* SA_RESTORER */ | SA_NODEFER,
			 (uint64_t)(uintptr_t)r13_restorer, 0 };

	if (syscall(SYS_rt_sigaction, sig, &a, NULL, 8))
		exit(3);
}

/*
 * forksig (values): a fork (SYS_fork) whose child's first instruction is
 * a SIGUSR1 handler: the parent sends the signal right after the call
 * returns, before the recorder first steps the child (one thread steps
 * at a time, its quantum 10,000 instructions), and the handler's address
 * is the fork's return address, fs_after.  The recorder writes the
 * child's REGS start record at the child's first resume, with the
 * registers of the child's fork return (rdi 0x1234000, rsi 0x5678000),
 * and the kernel then delivers the signal: the history's first
 * instruction is the handler's, with rdi 10, rsi the siginfo, rdx the
 * ucontext, rsp the frame, at the record's rip.  Both the child's path
 * and the handler's store rdi, rsi, rsp and exit.
 */
uint64_t fs_seen[4];
int64_t fs_fork(void);
void fs_after(void);
__asm__(".text\nfs_fork:\n"
	"\tpush %rbx\n"
	"\tmov $0x1234000, %rdi\n\tmov $0x5678000, %rsi\n"
	"\tmov $0x9abc000, %rdx\n"
	"\tmov $57, %eax\n"
	"\tsyscall\n"
	".globl fs_after\nfs_after:\n"
	"\ttest %rax, %rax\n"
	"\tjnz 1f\n"
	"\tmov %rdi, fs_seen(%rip)\n\tmov %rsi, fs_seen+8(%rip)\n"
	"\tmov %rdx, fs_seen+16(%rip)\n\tmov %rsp, fs_seen+24(%rip)\n"
	"\tmov fs_seen(%rip), %rdi\n"
	"\tand $0xff, %edi\n"
	"\tmov $231, %eax\n\tsyscall\n"
	"1:\tmov %rax, %rbx\n"
	"\tmov %eax, %edi\n\tmov $10, %esi\n\tmov $62, %eax\n\tsyscall\n"
	"\tmov %rbx, %rax\n"
	"\tpop %rbx\n\tret\n");

static int forksig(void)
{
	int64_t pid;
	int st = 0;

	handler_at(SIGUSR1, (uint64_t)(uintptr_t)fs_after);
	pid = fs_fork();
	if (pid < 0)
		return 4;
	waitpid((pid_t)pid, &st, 0);
	printf("child exit %d (10: the handler came first)\n",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

/*
 * clonesig (values): forksig with a thread (raw clone, CLONE_THREAD):
 * the creator sends SIGUSR1 to the new tid (tgkill) right after the
 * call, its first system call after it (the recorder steps the child
 * when the creator enters one: a race, the child's first resume or the
 * signal first); the handler is the clone's return address, cs_after.  The
 * child's rdi is the clone flags (0x50f00), the handler's 10.
 */
uint64_t cs_seen[4];
volatile int cs_done, cs_nosig;
static char cs_stack[1 << 16] __attribute__((aligned(16)));
int64_t cs_clone(void *top, uint64_t flags, uint64_t pid);
void cs_after(void);
__asm__(".text\ncs_clone:\n"
	"\tpush %rbx\n"
	"\tmov %rdx, %r9\n"
	"\tmov %rdi, %rax\n\tmov %rsi, %rdi\n\tmov %rax, %rsi\n"
	"\txor %edx, %edx\n\txor %r10d, %r10d\n\txor %r8d, %r8d\n"
	"\tmov $56, %eax\n"
	"\tsyscall\n"
	".globl cs_after\ncs_after:\n"
	"\ttest %rax, %rax\n"
	"\tjnz 1f\n"
	"\tmov %rdi, cs_seen(%rip)\n\tmov %rsi, cs_seen+8(%rip)\n"
	"\tmov %r11, cs_seen+16(%rip)\n\tmov %rsp, cs_seen+24(%rip)\n"
	"\tmovl $1, cs_done(%rip)\n"
	"\tmov $60, %eax\n\txor %edi, %edi\n\tsyscall\n"
	"1:\tmov %rax, %rbx\n"
	"\tcmpl $0, cs_nosig(%rip)\n\tjne 2f\n"
	"\tmov %r9d, %edi\n\tmov %ebx, %esi\n\tmov $10, %edx\n"
	"\tmov $234, %eax\n\tsyscall\n"
	"2:\tmov %rbx, %rax\n"
	"\tpop %rbx\n\tret\n");

static int clonesig(uint64_t flags)
{
	handler_at(SIGUSR1, (uint64_t)(uintptr_t)cs_after);
	if (cs_clone(cs_stack + sizeof(cs_stack), flags, getpid()) < 0)
		return 4;
	while (!cs_done)
		sched_yield();
	usleep(20000);
	printf("thread saw rdi %#lx r11 %#lx\n", (unsigned long)cs_seen[0],
	       (unsigned long)cs_seen[2]);
	return 0;
}

/*
 * pipesig (values): write(2) to a pipe without a reader returns -EPIPE
 * and raises SIGPIPE, delivered at the call's return; the handler is the
 * call's return address (ps_after), entered with rax 0, rdi 13.  The
 * system call REGS record says rax -32 at rip ps_after; a SIGNAL record
 * lies between (rcv_first.c must skip the record).  The handler returns
 * (rdi 13, the fd is not), and the write's return runs ps_after again.
 */
uint64_t ps_seen[4];
int64_t ps_run(int fd);
void ps_after(void);
__asm__(".text\nps_run:\n"
	"\tpush %rbx\n"
	"\tmov %edi, %ebx\n"
	"\tlea ps_seen(%rip), %rsi\n\tmov $1, %edx\n"
	"\tmov $1, %eax\n"
	"\tsyscall\n"
	".globl ps_after\nps_after:\n"
	"\tmov %rax, ps_seen(%rip)\n\tmov %rcx, ps_seen+8(%rip)\n"
	"\tmov %r11, ps_seen+16(%rip)\n"
	"\tcmp $13, %rdi\n"
	"\tje 1f\n"
	"\tpop %rbx\n\tret\n"
	"1:\tincq ps_seen+24(%rip)\n\tret\n");

static int pipesig(void)
{
	int p[2];
	int64_t r;

	handler_at(SIGPIPE, (uint64_t)(uintptr_t)ps_after);
	if (pipe(p))
		return 4;
	close(p[0]);
	r = ps_run(p[1]);
	printf("write %ld, handler ran %lu\n", (long)r,
	       (unsigned long)ps_seen[3]);
	return 0;
}

/*
 * sret (values): rt_sigreturn from a frame the program built, rip its
 * own return address (sr_after), rcx that address too and r11 with bit
 * 8 set (0x1234767), rax 0x4444: the system call REGS record holds
 * what the frame restored; the program prints r11 (untraced 0x1234767).
 */
uint64_t st_seen[4];
void st_run(void);
__asm__(".text\nst_run:\n"
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
	"\tpush %r14\n\tpush %r15\n"
	"\tsub $1024, %rsp\n"
	"\tmov %rsp, %rdi\n\tmov $128, %ecx\n\txor %eax, %eax\n"
	"\trep stosq\n"
	"\tmovl $2, 24(%rsp)\n"
	"\tmov %r12, 72(%rsp)\n\tmov %r13, 80(%rsp)\n"
	"\tmov %r14, 88(%rsp)\n\tmov %r15, 96(%rsp)\n"
	"\tmov %rbp, 120(%rsp)\n"
	"\tmovq $0x1234767, 64(%rsp)\n"
	"\tmovq $0x4444, 144(%rsp)\n"
	"\tlea st_after(%rip), %rax\n\tmov %rax, 152(%rsp)\n"
	"\tmov %rsp, 160(%rsp)\n"
	"\tmov %rax, 168(%rsp)\n"
	"\tmovq $0x202, 176(%rsp)\n"
	"\tmovabs $0x002b000000000033, %rax\n\tmov %rax, 184(%rsp)\n"
	"\tmov $15, %eax\n"
	"\tsyscall\n"
	"st_after:\n"
	"\tmov %rax, st_seen(%rip)\n\tmov %rcx, st_seen+8(%rip)\n"
	"\tmov %r11, st_seen+16(%rip)\n"
	"\tadd $1024, %rsp\n"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"
	"\tpop %rbp\n\tpop %rbx\n\tret\n");

/*
 * compat (values): rt_sigreturn to cs 0x23 (compatibility mode) at its
 * own return address cm_after, rax 0x1111, rcx 0x2222, r11 0x3333.  The
 * recorder checks compatibility mode only at the call's entry: it writes
 * the system call REGS record.  In 32-bit code cm_after's bytes are dec
 * ecx; mov $0x5555, eax; jmp cm32, and cm32 jumps far back to cm_after
 * in 64-bit code (cs 0x33), where the same bytes are mov imm64, r8.  The
 * trace has a gap there (OVF), and its next instruction is at the
 * record's rip: rax is 0x5555 there, rcx 0x2221, not the record's.
 */
uint64_t cm_seen[4], cm_rsp;
void cm_run(void);
__asm__(".text\ncm_run:\n"
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
	"\tpush %r14\n\tpush %r15\n"
	"\tsub $1024, %rsp\n"
	"\tmov %rsp, cm_rsp(%rip)\n"
	"\tmov %rsp, %rdi\n\tmov $128, %ecx\n\txor %eax, %eax\n"
	"\trep stosq\n"
	"\tmovl $2, 24(%rsp)\n"
	"\tmovq $0x3333, 64(%rsp)\n"
	"\tmovq $0x1111, 144(%rsp)\n"
	"\tmovq $0x2222, 152(%rsp)\n"
	"\tmov %rsp, 160(%rsp)\n"
	"\tlea cm_after(%rip), %rax\n\tmov %rax, 168(%rsp)\n"
	"\tmovq $0x202, 176(%rsp)\n"
	"\tmovabs $0x002b000000000023, %rax\n\tmov %rax, 184(%rsp)\n"
	"\tmov $15, %eax\n"
	"\tsyscall\n"
	".globl cm_after\ncm_after:\n"
	"\t.byte 0x49, 0xb8\n\t.long 0x5555\n"
	"\t.byte 0xeb, cm32 - cm_after - 8, 0x90, 0x90\n"
	"\tmov cm_rsp(%rip), %rsp\n"
	"\tmov %rax, cm_seen(%rip)\n\tmov %rcx, cm_seen+8(%rip)\n"
	"\tmov %r11, cm_seen+16(%rip)\n"
	"\tadd $1024, %rsp\n"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"
	"\tpop %rbp\n\tpop %rbx\n\tret\n"
	"cm32:\n"
	"\t.byte 0xea\n\t.long cm_after\n\t.word 0x33\n");

/*
 * pmalias, pmpre, pmslot (values): a push of memory paired with its pop
 * (escstk, rcv_pass.c pair_link()): the source word written through an
 * alias the engine cannot place (its address plus an unknown zero)
 * between the push and the pop (pmalias: the pop reads the old value) or
 * before the push (pmpre: the push reads the new one); the slot itself
 * written through such an alias before the pop (pmslot); pmend as
 * pmalias with the source's old value (0x1111) written by no
 * instruction (a static initializer): only the end's 0x7777 is known.
 */
uint64_t pm_src, pm_src2 = 0x1111, pm_out[4];
void pm_run(uint64_t *p, uint64_t *alias, uint64_t z, int mode);
__asm__(".text\npm_run:\n"
	"\tcmp $3, %ecx\n"
	"\tje 3f\n"
	"\tmovq $0x1111, (%rdi)\n"
	"\tcmp $1, %ecx\n"
	"\tje 1f\n"
	"\tcmp $2, %ecx\n"
	"\tje 2f\n"
	"\tpush (%rdi)\n"
	"\tmovq $0x7777, (%rsi)\n"
	"\tpop %rax\n"
	"\tmov %rax, pm_out(%rip)\n\tret\n"
	"1:\tmovq $0x7777, (%rsi)\n"
	"\tpush (%rdi)\n"
	"\tpop %rax\n"
	"\tmov %rax, pm_out(%rip)\n\tret\n"
	"2:\tpush (%rdi)\n"
	"\tmov %rsp, %rcx\n\tadd %rdx, %rcx\n"
	"\tmovq $0x8888, (%rcx)\n"
	"\tpop %rax\n"
	"\tmov %rax, pm_out(%rip)\n\tret\n"
	"3:\tpush (%rdi)\n"
	"\tmovq $0x7777, (%rsi)\n"
	"\tpop %rax\n"
	"\tmov %rax, pm_out(%rip)\n\tret\n");

/*
 * untr (values): a thread made by clone with CLONE_UNTRACED, which the
 * recorder takes out of rdi for the call and gives the child back at its
 * first stop: the child's start record must hold it (rdi 0x850f00).
 */

/*
 * vfork (values): vfork's child (rax 0) and parent (the child's pid)
 * return at the same address; the child exits at once.
 */
uint64_t vf_seen[2];
int64_t vf_run(void);
__asm__(".text\nvf_run:\n"
	"\tmov $58, %eax\n"
	"\tsyscall\n"
	"\ttest %rax, %rax\n"
	"\tjnz 1f\n"
	"\tmov %rdi, vf_seen(%rip)\n"
	"\tmov $60, %eax\n\tmov $7, %edi\n\tsyscall\n"
	"1:\tmov %rax, vf_seen+8(%rip)\n\tret\n");

/*
 * attach (values, ptrec record -p): sleeps 0.7 s (the recording attaches
 * meanwhile: no start record for the thread found), loops, then makes a
 * thread (its start record is written).
 *
 * int80 (values): getpid through int $0x80 (i386's 20) from 64-bit code:
 * the recorder writes a system call REGS record (2 bytes, rip after it),
 * the engine takes only SYSCALL's (0f 05).
 */
static long int80(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L)
			 : "rcx", "r11", "memory");
	return r;
}

/*
 * far (recorder): far transfers of 2 bytes that go on at the next
 * instruction in 64-bit code: lcall *(%rax) (ff 18) and ljmp *(%rax)
 * (ff 28) through the pointer {the next instruction, cs 0x33}, and
 * lretq (48 cb) to the next instruction with cs 0x33.  They leave user
 * mode as a SYSCALL does to the trace (TIP.PGD), and before session 17
 * the recorder wrote a system call REGS record after each (a 2-byte
 * instruction, rip 2 after it): a call that never happened.  rcx and r11
 * hold 0x5151 and 0x1111 across them, not a SYSCALL's.  Prints the
 * three addresses after the instructions.
 */
uint64_t far_seen[3];
void far_run(void);
__asm__(".data\n.balign 8\nfar_pc: .long 1f\n.word 0x33\n"
	".balign 8\nfar_pj: .long 2f\n.word 0x33\n"
	".text\nfar_run:\n"
	"\tpush %rbx\n"
	"\tmov $0x5151, %ecx\n\tmov $0x1111, %r11d\n"
	"\tmov %rsp, %rbx\n"
	"\tlea far_pc(%rip), %rax\n"
	"\tlcall *(%rax)\n"
	"1:\tmov %rbx, %rsp\n"
	"\tlea far_pj(%rip), %rax\n"
	"\tljmp *(%rax)\n"
	"2:\tpushq $0x33\n"
	"\tlea 3f(%rip), %rax\n"
	"\tpush %rax\n"
	"\tlretq\n"
	"3:\tlea 1b(%rip), %rax\n\tmov %rax, far_seen(%rip)\n"
	"\tlea 2b(%rip), %rax\n\tmov %rax, far_seen+8(%rip)\n"
	"\tlea 3b(%rip), %rax\n\tmov %rax, far_seen+16(%rip)\n"
	"\tpop %rbx\n\tret\n");

/*
 * tidre (values): two threads with the same tid one after the other
 * (tests/programs/tidre.h, shared with e2e's tidre: clone3's set_tid,
 * root): the recorder lets the second run untraced.  The tid is one below
 * pid_max that is not this process's (20000 + pid % 10000 was the pid
 * itself for pids 20000 to 29999: EEXIST, the case never ran).
 */
static int tidre(void)
{
	return tidre_run();
}

/*
 * restart (recorder): a read(2) on a pipe interrupted by a SIGUSR1 whose
 * handler has SA_RESTART: the kernel restarts the call after the handler
 * (rip back at the SYSCALL), so the -ERESTARTSYS seen at the signal's
 * delivery stop is no result, and no system call record may say it is.
 */
static volatile int rs_hits;

static void rs_handler(int sig)
{
	(void)sig;
	rs_hits++;
}

static int restart(void)
{
	struct sigaction sa = { .sa_handler = rs_handler,
				.sa_flags = SA_RESTART };
	char c = 0;
	ssize_t n;
	int p[2];
	pid_t k;

	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(p))
		return 3;
	k = fork();
	if (k == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		usleep(100000);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	n = read(p[0], &c, 1);
	waitpid(k, NULL, 0);
	printf("read %zd %c, handler ran %d\n", n, c, rs_hits);
	return 0;
}

/*
 * Tasks a constructor makes before main (where the recording starts),
 * by R13_CTOR:
 * 1 (ctor): a raw clone thread that runs cs_after's child path (no
 *   signal) while main waits up to 2 s for it;
 * 2 (ctorlive): a pthread that waits for main's word, then computes a sum
 *   main prints after joining it (recorded from the start, as -p would);
 * 3 (ctorjoin): a pthread the constructor joins (before main);
 * 4 (ctorfork): a fork child, which also runs main (the start's
 *   breakpoint must not be in its copy) and exits 7 there.
 */
static pthread_t ct_thr;
static volatile int ct_go;
static volatile uint64_t ct_sum;
static pid_t ct_child = -1;

static void *ct_live(void *arg)
{
	uint64_t x = 0;

	while (!ct_go)
		sched_yield();
	for (uint64_t i = 1; i <= 3000; i++)
		x += i * i ^ (x >> 3);
	ct_sum = x;
	return arg;
}

static void *ct_quick(void *arg)
{
	ct_sum = 42;
	return arg;
}

static void __attribute__((constructor)) r13_ctor(void)
{
	const char *e = getenv("R13_CTOR");

	if (e && *e == '1') {
		cs_nosig = 1;
		cs_clone(cs_stack + sizeof(cs_stack), 0x50f00, getpid());
	} else if (e && *e == '2') {
		pthread_create(&ct_thr, NULL, ct_live, NULL);
	} else if (e && *e == '3') {
		pthread_create(&ct_thr, NULL, ct_quick, NULL);
		pthread_join(ct_thr, NULL);
	} else if (e && *e == '4') {
		ct_child = fork();
	}
}

static int ctor_modes(const char *m)
{
	int st = 0;

	if (!strcmp(m, "ctorlive")) {
		ct_go = 1;
		pthread_join(ct_thr, NULL);
		printf("ctor thread sum %#lx\n", (unsigned long)ct_sum);
	} else if (!strcmp(m, "ctorjoin")) {
		printf("ctor thread sum %lu\n", (unsigned long)ct_sum);
	} else if (!strcmp(m, "ctorfork")) {
		if (ct_child == 0)
			return 7;
		waitpid(ct_child, &st, 0);
		printf("ctor child %s %d\n",
		       WIFEXITED(st) ? "exit" : "signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	} else {
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int ret;

	if (!strcmp(m, "forksig"))
		return forksig();
	if (!strcmp(m, "clonesig"))
		return clonesig(0x50f00);
	if (!strcmp(m, "untr")) {
		cs_nosig = 1;
		return clonesig(0x850f00);
	}
	if (!strcmp(m, "pipesig"))
		return pipesig();
	if (!strcmp(m, "sret")) {
		st_run();
		printf("rax %#lx rcx %#lx r11 %#lx\n",
		       (unsigned long)st_seen[0], (unsigned long)st_seen[1],
		       (unsigned long)st_seen[2]);
		return 0;
	}
	if (!strcmp(m, "compat")) {
		cm_run();
		printf("rax %#lx rcx %#lx r11 %#lx\n",
		       (unsigned long)cm_seen[0], (unsigned long)cm_seen[1],
		       (unsigned long)cm_seen[2]);
		return 0;
	}
	if (!strcmp(m, "pmalias") || !strcmp(m, "pmpre") ||
	    !strcmp(m, "pmslot") || !strcmp(m, "pmend")) {
		uint64_t z = ozero();
		uint64_t *src = m[2] == 'e' ? &pm_src2 : &pm_src;

		pm_run(src, (uint64_t *)((uintptr_t)src + z), z,
		       m[2] == 'a' ? 0 : m[2] == 'p' ? 1 : m[2] == 's' ? 2 : 3);
		printf("%#lx\n", (unsigned long)pm_out[0]);
		return 0;
	}
	if (!strcmp(m, "vfork")) {
		int st;
		int64_t pid = vf_run();

		waitpid((pid_t)pid, &st, 0);
		printf("%ld\n", (long)(pid > 0));
		return 0;
	}
	if (!strcmp(m, "restart"))
		return restart();
	if (!strcmp(m, "far")) {
		far_run();
		printf("%#lx %#lx %#lx\n", (unsigned long)far_seen[0],
		       (unsigned long)far_seen[1], (unsigned long)far_seen[2]);
		return 0;
	}
	if (!strcmp(m, "int80"))
		return int80() > 0 ? 0 : 5;
	if (!strcmp(m, "exec")) {
		char *av[] = { argv[0], "none", NULL };

		execve("/nonexistent/r13", av, NULL);
		execve("/proc/self/exe", av, NULL);
		return 6;
	}
	if (!strcmp(m, "attach")) {
		/* Attached to (-p) while it sleeps; then a thread. */
		volatile uint64_t x = 0;

		usleep(700000);
		for (int i = 0; i < 3000; i++)
			x += (uint64_t)i * i;
		cs_nosig = 1;
		return clonesig(0x50f00) + (int)(x & 0);
	}
	if (!strcmp(m, "tidre"))
		return tidre();
	if (!strcmp(m, "ctor")) {
		for (int i = 0; i < 200 && !cs_done; i++)
			usleep(10000);
		printf("ctor thread %s\n", cs_done ? "ran" : "did not run");
		return 0;
	}
	if (!strcmp(m, "none"))
		return 0;
	ret = ctor_modes(m);
	return ret >= 0 ? ret : 2;
}
