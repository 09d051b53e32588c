// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Cases an adversarial review of the values engine (issue #17, "never a
 * wrong value") tried against the ground truth, one per mode, for
 * tests/values/run.sh (docs/values.md lists what each found):
 *
 * push16   pushw $imm, push %ax and pushw (mem): the stack pointer moves
 *          by 2, not 8 (capstone 4 gives the immediate of `66 68` size 8).
 * leave16  leavew (66 c9): rsp = rbp + 2 and bp, not rbp, from the stack.
 * clonevm  a child made by clone(CLONE_VM) without CLONE_THREAD (another
 *          process, same memory) stores into a global between the
 *          parent's load of it and the end.
 * memfd    the same memfd page mapped MAP_SHARED at one address and
 *          MAP_PRIVATE (never written) at another: a store through the
 *          first changes what the second reads.
 * procmem  pwrite64 to /proc/self/mem writes a global: the kernel's
 *          write through a system call the table says writes no memory.
 * procdup, procreopen, procwritev, vmwrite, procint80  the same through
 *          write(2) on stdout while dup2 has made it the memory file
 *          (put back before the end), on a descriptor closed and
 *          reopened on /dev/null before the end, through writev,
 *          through process_vm_writev to its own pid, and on a
 *          descriptor int 0x80 closes before /dev/null reopens it
 *          (rcv_fd.c).
 * stdout   and the common case that must stay cheap: write(2) to stdout,
 *          a file at the end never closed, writes no memory (r12, the
 *          global loaded before it, is known after it).
 * alias2   stores of unknown address that did write the word asked
 *          about (rcv_alias.c must not prove them away): a 16-byte
 *          movups through a base loaded from a pointer the snapshot
 *          shows; an 8-byte store through a base loaded from a word
 *          that read(2) rewrites before the end.
 * sigret   rt_sigreturn as system call 0x10000000f (Linux takes the
 *          number from eax alone), its frame's rip set to the address
 *          after the syscall instruction: no transfer in the trace, yet
 *          every register is the frame's.
 * stackflag  a thread sets a flag on the main thread's stack (its address
 *          passed to pthread_create) that main polls: the engine took
 *          a thread's own stack as written by it alone.
 * escglobal, escheap, escreg  the same with a thread made by a raw clone
 *          (every register clean at the syscall), the flag's address
 *          given through a global, a heap struct, or rbx at the clone
 *          (rcv_escape.c's rules, one each); main reads the flag once
 *          before it gives the address away, then polls it.
 * pairesc  a pushed slot's address given to such a thread, which stores
 *          there before main pops it: no push/pop pair past the escape.
 * rseq     an rseq area of the program's own (glibc's unregistered): the
 *          kernel clears its rseq_cs on the way back to user space after
 *          a preemption, with no instruction storing there.
 * rseqstack  the same area on the stack, where a push and its pop span
 *          a preemption: the kernel rewrites the pushed slot.
 * fpwrite, fwrite, flink, fprocfd  a regular file mapped MAP_PRIVATE
 *          whose page the process never writes follows the file: r12
 *          loads it, then the process writes the file, r13 loads it
 *          again.  pwrite64 on the descriptor it mapped (read-only and
 *          executable: the image store has its bytes, the snapshot
 *          none), write(2) on it (read-write, page never written),
 *          writev through a hard link's path (read-only, executable),
 *          pwrite64 through /proc/self/fd/N (the descriptor's number
 *          loaded from a global rewritten after: unknown to the
 *          engine).  The descriptors stay open to the end
 *          (docs/values.md "Files").
 * fshlink  the memfd case with a regular file mapped shared under a
 *          hard link's name: the path differs, the inode does not.
 * fshgone  the same file mapped shared, stored through, and unmapped
 *          before the end: the snapshot no longer shows the shared
 *          mapping (8 wrong before; the software recorder's MMAP
 *          records do).
 * fchild, fchildsh  another process (a forked child) writes the file
 *          while main spins between its two loads: pwrite64, or a store
 *          through the child's own shared mapping (review6.c forkwrite,
 *          forkshm, without their long spins).
 * fbefore  the file written by a child before the process maps it, in
 *          the middle of the history, without MAP_FIXED.
 * fshmext PATH  a file on tmpfs stored to, between main's loads, by a
 *          process that is not recorded (holes shmwriter PATH, started
 *          before the recording) through a shared mapping whose page
 *          it had written before: no fault, no new time.
 *
 * Each mode ends with exit_group right after its case, so the end's
 * registers and snapshot are those of the case.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rawclone.h"

long holes_g = 0x1111, holes_go, holes_done;

static int push16_case(void)
{
	__asm__ volatile("mov %%rsp, %%rbx\n"
			 "\tpushw $0x1234\n"
			 "\tpush %%ax\n"
			 "\tpushw (%%rbx)\n"
			 "\tmov (%%rsp), %%rcx\n"
			 "\tadd $6, %%rsp\n"
			 EXIT_NOW
			 : : : "rax", "rbx", "rcx", "rdi", "r11", "memory");
	return 1;
}

static int leave16_case(void)
{
	__asm__ volatile("push %%rbp\n"
			 "\tmov %%rsp, %%rbp\n"
			 "\t.byte 0x66, 0xc9\n"	/* leavew */
			 "\tadd $6, %%rsp\n"
			 "\tmov -8(%%rsp), %%rbp\n"
			 EXIT_NOW
			 : : : "rax", "rdi", "r11", "memory");
	return 1;
}

/* enter and xlat: capstone 4 lists neither enter's writes of rsp and rbp
 * nor xlat's of al (found by the watch helper: 6 wrong rbp).
 */
__attribute__((noinline)) static long enter_f(long x)
{
	long r;

	__asm__ volatile("enter $32, $0\n"
			 "\tmov %1, -8(%%rbp)\n"
			 "\tmov -8(%%rbp), %0\n"
			 "\tlea holes_tab(%%rip), %%rbx\n"
			 "\tmov %0, %%rax\n"
			 "\txlat\n"
			 "\tadd %%rax, %0\n"
			 "\tleave\n"
			 : "=&r"(r) : "r"(x) : "rax", "rbx", "memory");
	return r;
}

unsigned char holes_tab[256] = { 7, 9, 11, 13 };

static int enter_case(void)
{
	holes_g = enter_f(getpid() & 1);
	holes_g += enter_f(3);
	__asm__ volatile(EXIT_NOW : : : "rax", "rdi", "rcx", "r11", "memory");
	return 1;
}

static int child(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&holes_go, __ATOMIC_ACQUIRE))
		sched_yield();
	holes_g = 0x2222;
	__atomic_store_n(&holes_done, 1, __ATOMIC_RELEASE);
	return 0;
}

static char child_stack[65536] __attribute__((aligned(16)));

static int clonevm_case(void)
{
	if (clone(child, child_stack + sizeof(child_stack),
		  CLONE_VM | SIGCHLD, NULL) < 0)
		return 2;
	/* r12 = g (0x1111), go, then wait (sched_yield: no memory
	 * written) until done; g is 0x2222 at the end.
	 */
	__asm__ volatile("mov holes_g(%%rip), %%r12\n"
			 "\tmovq $1, holes_go(%%rip)\n"
			 "1:\tmov $24, %%eax\n\tsyscall\n"
			 "\tcmpq $0, holes_done(%%rip)\n\tje 1b\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "r11", "r12", "memory");
	return 1;
}

static int memfd_case(void)
{
	int fd = memfd_create("holes", 0);
	volatile long *sh, *pr;

	if (fd < 0 || ftruncate(fd, 4096))
		return 2;
	sh = mmap((void *)0x20000000, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	pr = mmap((void *)0x20001000, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	if (sh != (void *)0x20000000 || pr != (void *)0x20001000)
		return 2;
	*sh = 0x1111 + ((long)getpid() >> 31);	/* unknown to the engine */
	__asm__ volatile("mov 0x20001000, %%r12\n"
			 "\tmovq $0x2222, 0x20000000\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "r11", "r12", "memory");
	return 1;
}

long holes_w[3] = { 0, 0x5555555555555555, 0 };
long holes_q[3] = { 0, 0x5555555555555555, 0 };
long holes_p, holes_p2;

static int alias2_case(void)
{
	long z = (long)getpid() >> 31, v = (long)&holes_q[2];
	int pfd[2];

	if (pipe(pfd) || write(pfd[1], &v, 8) != 8)
		return 2;
	__asm__ volatile(/* movups through p = &w[0] + z: writes w[1] */
			 "lea holes_w(%%rip), %%rax\n"
			 "\tadd %0, %%rax\n"
			 "\tmov %%rax, holes_p(%%rip)\n"
			 "\tmov holes_w+8(%%rip), %%r12\n"
			 "\tmov holes_p(%%rip), %%rcx\n"
			 "\tpcmpeqd %%xmm0, %%xmm0\n"
			 "\tmovups %%xmm0, (%%rcx)\n"
			 /* through p2 = &q[1] + z, then read(2) into p2 */
			 "\tlea holes_q+8(%%rip), %%rax\n"
			 "\tadd %0, %%rax\n"
			 "\tmov %%rax, holes_p2(%%rip)\n"
			 "\tmov holes_q+8(%%rip), %%r13\n"
			 "\tmov holes_p2(%%rip), %%rcx\n"
			 "\tmovabs $0x7777777777777777, %%rax\n"
			 "\tmov %%rax, (%%rcx)\n"
			 "\txor %%eax, %%eax\n"
			 "\tlea holes_p2(%%rip), %%rsi\n"
			 "\tmov $8, %%edx\n"
			 "\tsyscall\n"
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
			 "\txor %%ecx, %%ecx\n\txor %0, %0\n"
			 EXIT_NOW
			 : "+r"(z) : "D"(pfd[0])
			 : "rax", "rcx", "rdx", "rsi", "r11", "r12", "r13",
			 "xmm0", "memory");
	return 1;
}

/* The restorer: rt_sigreturn with bit 32 of rax set; the frame's rip is
 * set to holes_sr_after, the instruction after its syscall.
 */
__asm__(".text\n"
	"holes_restorer:\n"
	"\tmovabs $0x10000000f, %rax\n"
	"\tsyscall\n"
	"holes_sr_after:\n"
	"\tmov %r12, %r13\n"
	"\tmov %rcx, %r14\n"
	"\txor %r12d, %r12d\n"
	"\txor %ecx, %ecx\n"
	"\txor %edi, %edi\n"
	"\tmov $231, %eax\n"
	"\tsyscall\n");
extern char holes_restorer[], holes_sr_after[];

static void sr_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)holes_sr_after;
	uc->uc_mcontext.gregs[REG_R12] = 0x1234;
	uc->uc_mcontext.gregs[REG_RCX] = 0x5678;
}

static int sigret_case(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ksa = { (void *)sr_handler, 4 | 0x04000000, holes_restorer, 0 };

	/* SA_SIGINFO | SA_RESTORER, with our restorer */
	if (syscall(SYS_rt_sigaction, SIGILL, &ksa, NULL, 8))
		return 2;
	__asm__ volatile("mov $0xaaaa, %%r12d\n\tud2\n" : : : "r12");
	return 1;
}

static void *flag_thread(void *arg)
{
	__atomic_store_n((long *)arg, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int stackflag_case(void)
{
	volatile long flag = 0;
	pthread_t t;

	if (pthread_create(&t, NULL, flag_thread, (void *)&flag))
		return 2;
	/* r12 = flag (0 until the thread ran), sched_yield until it is
	 * set; then exit_group.
	 */
	__asm__ volatile("1:\tmov %0, %%r12\n"
			 "\tcmp $1, %%r12\n\tje 2f\n"
			 "\tmov $24, %%eax\n\tsyscall\n\tjmp 1b\n"
			 "2:\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "m"(flag) : "rax", "rcx", "rdi", "r11", "r12",
			 "memory");
	return 1;
}

/*
 * A thread by clone(2) with every register but rdi (the child's code) and
 * rsi (rbx for it) cleared; it runs the child's code on holes_cstack with
 * the parent's fs (so it touches no libc) and ends with exit.
 */
__asm__(RAWCLONE_SPAWN_ASM(holes, "\tmov %rsi, %rbx\n"));
__asm__(".text\n"
	/* store 1 where holes_pub points, once it does */
	"holes_child_pub:\n"
	"1:\tmov holes_pub(%rip), %rax\n\ttest %rax, %rax\n\tjnz 2f\n"
	"\tpause\n\tjmp 1b\n"
	"2:\tmovq $1, (%rax)\n\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n"
	/* store 1 where holes_box->p points, once it does */
	"holes_child_box:\n"
	"1:\tmov holes_box(%rip), %rax\n\tmov (%rax), %rax\n"
	"\ttest %rax, %rax\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tmovq $1, (%rax)\n\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n"
	/* store 1 where rbx (the parent's at the clone) points, once
	 * holes_go is set
	 */
	"holes_child_reg:\n"
	"1:\tcmpq $0, holes_go(%rip)\n\tjnz 2f\n\tpause\n\tjmp 1b\n"
	"2:\tmovq $1, (%rbx)\n\txor %edi, %edi\n\tmov $60, %eax\n"
	"\tsyscall\n");
extern char holes_child_pub[], holes_child_box[], holes_child_reg[];
void holes_spawn(void *code, volatile long *rbx);
RAWCLONE_STACK(holes);
volatile long *volatile holes_pub;
volatile long **volatile holes_box;

/* r13 = flag (0) before the address escapes (@how: 0 global, 1 heap,
 * 2 already in rbx at the clone: set holes_go), then r12 = flag until
 * it is 1; exit_group.
 */
#define ESC_POLL "1:\tmov %0, %%r12\n"					\
		 "\tcmp $1, %%r12\n\tje 2f\n"				\
		 "\tmov $24, %%eax\n\tsyscall\n\tjmp 1b\n"		\
		 "2:\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"	\
		 EXIT_NOW

static int escglobal_case(void)
{
	volatile long flag = 0;

	holes_spawn(holes_child_pub, NULL);
	__asm__ volatile("mov %0, %%r13\n"
			 "\tlea %0, %%rax\n"
			 "\tmov %%rax, holes_pub(%%rip)\n"
			 ESC_POLL
			 : "+m"(flag) : : "rax", "rcx", "rdi", "r11", "r12",
			 "r13", "memory");
	return 1;
}

/*
 * push r12 (0x1234), the pushed slot's address given to a thread (through
 * a global), which stores 1 there; main polls it, then pops it into r13:
 * 1, not what it pushed (push/pop pairs whose pop is after the escape
 * must not be linked, in any of the engine's sweeps).
 */
static int pairesc_case(void)
{
	holes_spawn(holes_child_pub, NULL);
	__asm__ volatile("mov $0x1234, %%r12d\n"
			 "\tpush %%r12\n"
			 "\tmov %%rsp, holes_pub(%%rip)\n"
			 "1:\tmov $24, %%eax\n\tsyscall\n"
			 "\tmov (%%rsp), %%rax\n"
			 "\tcmp $1, %%rax\n\tjne 1b\n"
			 "\tpop %%r13\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r13d, %%r13d\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "r11", "r12", "r13",
			 "memory");
	return 1;
}

static int escheap_case(void)
{
	volatile long flag = 0;

	holes_box = calloc(1, sizeof(*holes_box));
	if (!holes_box)
		return 2;
	holes_spawn(holes_child_box, NULL);
	__asm__ volatile("mov %0, %%r13\n"
			 "\tmov holes_box(%%rip), %%rcx\n"
			 "\tlea %0, %%rax\n"
			 "\tmov %%rax, (%%rcx)\n"
			 ESC_POLL
			 : "+m"(flag) : : "rax", "rcx", "rdi", "r11", "r12",
			 "r13", "memory");
	return 1;
}

static int escreg_case(void)
{
	volatile long flag = 0;

	holes_spawn(holes_child_reg, &flag);
	__asm__ volatile("mov %0, %%r13\n"
			 "\tmovq $1, holes_go(%%rip)\n"
			 ESC_POLL
			 : "+m"(flag) : : "rax", "rcx", "rdi", "r11", "r12",
			 "r13", "memory");
	return 1;
}

static int procmem_case(void)
{
	static long val = 0x2222;
	int fd = open("/proc/self/mem", O_RDWR);

	if (fd < 0)
		return 2;
	/* r12 = g (0x1111), then pwrite64(fd, &val, 8, &g). */
	__asm__ volatile("mov holes_g(%%rip), %%r12\n"
			 "\tmov $18, %%eax\n"
			 "\tlea %1, %%rsi\n"
			 "\tmov $8, %%edx\n"
			 "\tlea holes_g(%%rip), %%r10\n"
			 "\tsyscall\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "D"(fd), "m"(val)
			 : "rax", "rcx", "rdx", "rsi", "r10", "r11", "r12",
			 "memory");
	return 1;
}

/* r12 = g (0x1111); then the asm in @write writes 0x2222 there (val). */
#define PROC_CASE(write, ...)						\
	__asm__ volatile("mov holes_g(%%rip), %%r12\n"			\
			 write						\
			 "\txor %%r12d, %%r12d\n"			\
			 EXIT_NOW					\
			 : : __VA_ARGS__				\
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",	\
			 "r10", "r11", "r12", "memory")

static long holes_val = 0x2222;

/* lseek(fd, &g) on /proc/self/mem, for write(2) and writev. */
static int mem_at_g(void)
{
	int fd = open("/proc/self/mem", O_RDWR);

	if (fd < 0 || lseek(fd, (off_t)(long)&holes_g, SEEK_SET) < 0)
		return -1;
	return fd;
}

static int procdup_case(void)
{
	int fd = mem_at_g(), out = dup(1);

	if (fd < 0 || out < 0 || dup2(fd, 1) != 1 || close(fd))
		return 2;
	/* write(1, &val, 8), then dup2(out, 1), close(out) */
	PROC_CASE("\tmov $1, %%eax\n\tmov $1, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n"
		  "\tmov $33, %%eax\n\tmov %%ebx, %%edi\n\tmov $1, %%esi\n"
		  "\tsyscall\n"
		  "\tmov $3, %%eax\n\tmov %%ebx, %%edi\n\tsyscall\n",
		  "b"(out));
	return 1;
}

static int procreopen_case(void)
{
	int fd = mem_at_g();

	if (fd < 0)
		return 2;
	/* write(fd, &val, 8), close(fd), open("/dev/null"): fd again */
	PROC_CASE("\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n"
		  "\tmov $3, %%eax\n\tmov %%ebx, %%edi\n\tsyscall\n"
		  "\tmov $2, %%eax\n\tlea holes_null(%%rip), %%rdi\n"
		  "\txor %%esi, %%esi\n\tsyscall\n",
		  "b"(fd));
	return 1;
}

const char holes_null[] = "/dev/null";
struct iovec_ { void *base; unsigned long len; };
struct iovec_ holes_iov = { &holes_val, 8 }, holes_riov = { &holes_g, 8 };

static int procwritev_case(void)
{
	int fd = mem_at_g();

	if (fd < 0)
		return 2;
	/* writev(fd, &iov, 1) */
	PROC_CASE("\tmov $20, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_iov(%%rip), %%rsi\n\tmov $1, %%edx\n"
		  "\tsyscall\n",
		  "b"(fd));
	return 1;
}

static int stdout_case(void)
{
	/* write(1, &val, 8) */
	PROC_CASE("\tmov $1, %%eax\n\tmov $1, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n", "b"(0));
	return 1;
}

/* The memory file closed by int 0x80 (close is 6 there), /dev/null
 * opened on its number.  g is stored (0x1111) before the write and
 * loaded into r13 after it, before the int: the write must not be taken
 * as harmless, or r13 is 0x1111 forward from the store (int is a
 * barrier: nothing after it flows back).
 */
static int procint80_case(void)
{
	int fd = mem_at_g();

	if (fd < 0)
		return 2;
	__asm__ volatile("movq $0x1111, holes_g(%%rip)\n"
			 "\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
			 "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
			 "\tsyscall\n"
			 "\tmov holes_g(%%rip), %%r13\n"
			 "\tnop\n\tnop\n"
			 "\tmov $6, %%eax\n\tint $0x80\n"
			 "\tmov $2, %%eax\n\tlea holes_null(%%rip), %%rdi\n"
			 "\txor %%esi, %%esi\n\tsyscall\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "b"(fd)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",
			 "r10", "r11", "r12", "r13", "memory");
	return 1;
}

static int vmwrite_case(void)
{
	/* process_vm_writev(getpid(), &iov, 1, &riov, 1, 0) */
	PROC_CASE("\tmov $311, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_iov(%%rip), %%rsi\n\tmov $1, %%edx\n"
		  "\tlea holes_riov(%%rip), %%r10\n\tmov $1, %%r8d\n"
		  "\txor %%r9d, %%r9d\n\tsyscall\n",
		  "b"(getpid()));
	return 1;
}

struct holes_rseq {
	unsigned int cpu_id_start, cpu_id;
	unsigned long rseq_cs;
	unsigned int flags, pad[3];
} __attribute__((aligned(32)));
struct holes_rseq_cs {
	unsigned int version, flags;
	unsigned long start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));
struct holes_rseq holes_rs;
struct holes_rseq_cs holes_cs;
extern char holes_cs_start[], holes_cs_abort[];
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

__asm__(".text\n"
	"holes_cs_start:\n\tnop\n"
	"\t.long 0x53053053\n"
	"holes_cs_abort:\n\tud2\n");

static int rseq_case(void)
{
	long z = (long)getpid() >> 31;

	if (__rseq_size &&
	    syscall(334, (char *)__builtin_thread_pointer() + __rseq_offset,
		    32, 1, 0x53053053))	/* glibc registers 32 bytes */
		return 2;
	if (syscall(334, &holes_rs, sizeof(holes_rs), 0, 0x53053053))
		return 2;
	holes_cs.start_ip = (unsigned long)holes_cs_start;
	holes_cs.post_commit_offset = 1;
	holes_cs.abort_ip = (unsigned long)holes_cs_abort;
	/* rseq_cs = &cs (outside it: the kernel clears it), r12 = rseq_cs
	 * (0), then an unknown store of 0 there (z).
	 */
	__asm__ volatile("lea holes_cs(%%rip), %%rax\n"
			 "\tmov %%rax, holes_rs+8(%%rip)\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\tmov holes_rs+8(%%rip), %%r12\n"
			 "\tmov %0, holes_rs+8(%%rip)\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "r"(z) : "rax", "rcx", "rdi", "r11", "r12",
			 "memory");
	return 1;
}

/*
 * An rseq area on the stack (glibc's unregistered), a push into its
 * cpu_id_start/cpu_id words, nops (each step a preemption for the
 * recorder: the kernel rewrites them), then the pop: r13 holds the CPU
 * numbers, not the pushed r12 (push/pop pairs must not be kept).
 */
static int rseqstack_case(void)
{
	if (__rseq_size &&
	    syscall(334, (char *)__builtin_thread_pointer() + __rseq_offset,
		    32, 1, 0x53053053))
		return 2;
	__asm__ volatile("mov %%rsp, %%r15\n"
			 "\tlea -256(%%rsp), %%rdi\n"
			 "\tand $-32, %%rdi\n"
			 "\tmov $334, %%eax\n\tmov $32, %%esi\n"
			 "\txor %%edx, %%edx\n\tmov $0x53053053, %%r10d\n"
			 "\tsyscall\n"
			 "\ttest %%rax, %%rax\n\tjnz 1f\n"
			 "\tlea 8(%%rdi), %%rsp\n"
			 "\tmov $0x7fffffff7fffffff, %%r12\n"
			 "\tpush %%r12\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\tpop %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r13d, %%r13d\n"
			 "1:\tmov %%r15, %%rsp\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r10", "r11",
			 "r12", "r13", "r15", "memory");
	return 1;
}

/*
 * A file of one page under $TMPDIR (run.sh's), holes_g's first value
 * (0x1111) at offset 0, open read-write at offset 0; its path in @path.
 */
static int file_page(char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	static char page[4096];
	int fd;

	snprintf(path, cap, "%s/holesXXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	memcpy(page, &holes_g, sizeof(holes_g));
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page) ||
	    lseek(fd, 0, SEEK_SET))
		return -1;
	return fd;
}

/* @fd's page mapped private at 0x20000000, @prot. */
static int map_page(int fd, int prot)
{
	return mmap((void *)0x20000000, 4096, prot,
		    MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0) ==
	       (void *)0x20000000 ? 0 : -1;
}

/* r12 = the private page's first word (0x1111); then the asm in @write
 * (rbx holds a descriptor) writes 0x2222 into the file at offset 0;
 * r13 = the word again (0x2222).
 */
#define FILE_CASE(write, ...)						\
	__asm__ volatile("mov 0x20000000, %%r12\n"			\
			 write						\
			 "\tmov 0x20000000, %%r13\n"			\
			 "\tnop\n\tnop\n"				\
			 "\txor %%r12d, %%r12d\n"			\
			 "\txor %%r13d, %%r13d\n"			\
			 EXIT_NOW					\
			 : : __VA_ARGS__				\
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",	\
			 "r10", "r11", "r12", "r13", "memory")

int holes_fd;

static int fpwrite_case(void)
{
	char path[4096];
	int fd = file_page(path, sizeof(path));

	if (fd < 0 || map_page(fd, PROT_READ | PROT_EXEC))
		return 2;
	/* pwrite64(fd, &val, 8, 0) */
	FILE_CASE("\tmov $18, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\txor %%r10d, %%r10d\n\tsyscall\n", "b"(fd));
	return 1;
}

static int fwrite_case(void)
{
	char path[4096];
	int fd = file_page(path, sizeof(path));

	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE))
		return 2;
	/* write(fd, &val, 8) at offset 0 */
	FILE_CASE("\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\tsyscall\n", "b"(fd));
	return 1;
}

static int flink_case(void)
{
	char path[4096], link2[4200];
	int fd = file_page(path, sizeof(path)), fd2;

	snprintf(link2, sizeof(link2), "%s.link", path);
	if (fd < 0 || map_page(fd, PROT_READ | PROT_EXEC) || close(fd) ||
	    link(path, link2))
		return 2;
	fd2 = open(link2, O_WRONLY);
	if (fd2 < 0)
		return 2;
	/* writev(fd2, &iov, 1): its offset is 0 */
	FILE_CASE("\tmov $20, %%eax\n\tmov %%ebx, %%edi\n"
		  "\tlea holes_iov(%%rip), %%rsi\n\tmov $1, %%edx\n"
		  "\tsyscall\n", "b"(fd2));
	return 1;
}

static int fprocfd_case(void)
{
	char path[4096], self[64];
	int fd = file_page(path, sizeof(path));

	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE))
		return 2;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	holes_fd = open(self, O_WRONLY);
	if (holes_fd < 0)
		return 2;
	/* pwrite64(holes_fd, &val, 8, 0), then holes_fd = -1 */
	FILE_CASE("\tmov $18, %%eax\n\tmov holes_fd(%%rip), %%edi\n"
		  "\tlea holes_val(%%rip), %%rsi\n\tmov $8, %%edx\n"
		  "\txor %%r10d, %%r10d\n\tsyscall\n"
		  "\tmovl $-1, holes_fd(%%rip)\n", "b"(0));
	return 1;
}

static int fshlink_case(void)
{
	char path[4096], link2[4200];
	int fd = file_page(path, sizeof(path)), fd2;
	volatile long *sh;

	snprintf(link2, sizeof(link2), "%s.link", path);
	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE) ||
	    link(path, link2))
		return 2;
	fd2 = open(link2, O_RDWR);
	sh = mmap((void *)0x20001000, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, fd2, 0);
	if (fd2 < 0 || sh != (void *)0x20001000 || close(fd) || close(fd2))
		return 2;
	*sh = 0x1111 + ((long)getpid() >> 31);	/* unknown to the engine */
	__asm__ volatile("mov 0x20000000, %%r12\n"
			 "\tmovq $0x2222, 0x20001000\n"
			 "\tmov 0x20000000, %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "r11", "r12", "r13",
			 "memory");
	return 1;
}

/*
 * fshlink with the shared mapping gone by the end (munmap after the
 * store): the snapshot shows no shared mapping of the file.
 */
static int fshgone_case(void)
{
	char path[4096];
	int fd = file_page(path, sizeof(path));
	volatile long *sh;

	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE))
		return 2;
	sh = mmap((void *)0x20001000, 4096, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (sh != (void *)0x20001000 || close(fd))
		return 2;
	*sh = 0x1111 + ((long)getpid() >> 31);	/* unknown to the engine */
	/* munmap(0x20001000, 4096) */
	__asm__ volatile("mov 0x20000000, %%r12\n"
			 "\tmovq $0x2222, 0x20001000\n"
			 "\tmov $11, %%eax\n\tmov $0x20001000, %%edi\n"
			 "\tmov $4096, %%esi\n\tsyscall\n"
			 "\tmov 0x20000000, %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "rsi", "r11", "r12", "r13",
			 "memory");
	return 1;
}

/*
 * fchild, fchildsh: the file written by another process, a forked child,
 * between main's two loads (the page mapped private and writable, never
 * written: the snapshot holds it): pwrite64 on its copy of the
 * descriptor, or a store through a shared mapping of its own.  Main's
 * history shows only a write(2) and a read(2) on pipes (neither writes
 * the mapping): main sends a byte after its first load, the child
 * writes the file and answers with a byte, which main reads into
 * holes_go.  The snapshot's file times show the write (snapshot 5,
 * docs/values.md "Files").
 */
static int fchild(bool shm)
{
	char path[4096], c;
	int fd = file_page(path, sizeof(path)), p[2], q[2];
	register int r8 __asm__("r8");

	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE) || pipe(p) ||
	    pipe(q))
		return 2;
	switch (fork()) {
	case -1:
		return 2;
	case 0:
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		if (shm) {
			volatile long *m = mmap(NULL, 4096,
						PROT_READ | PROT_WRITE,
						MAP_SHARED, fd, 0);

			if (m == MAP_FAILED)
				_exit(1);
			*m = holes_val;
		} else if (pwrite(fd, &holes_val, 8, 0) != 8) {
			_exit(1);
		}
		if (write(q[1], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	r8 = q[0];
	/* write(p[1], &holes_val, 1); read(q[0], &holes_go, 1) */
	__asm__ volatile("mov 0x20000000, %%r12\n"
			 "\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
			 "\tlea holes_val(%%rip), %%rsi\n\tmov $1, %%edx\n"
			 "\tsyscall\n"
			 "\txor %%eax, %%eax\n\tmov %%r8d, %%edi\n"
			 "\tlea holes_go(%%rip), %%rsi\n\tmov $1, %%edx\n"
			 "\tsyscall\n"
			 "\tmov 0x20000000, %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : "b"(p[1]), "r"(r8)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			 "r13", "memory");
	return 1;
}

/*
 * fbefore: the file changed (by a forked child, waited for) before the
 * process maps it, read-only and executable (the image store copies it
 * then), with no MAP_FIXED, in the middle of the history; r12 loads it.
 * The read-only rule takes such an mmap as changing nothing
 * (docs/values.md "Files", the rtldro edge): before it the page reads as
 * the snapshot's where nothing was mapped, which no load can see.
 */
static int fbefore_case(void)
{
	char path[4096];
	int fd = file_page(path, sizeof(path)), st;
	register int r8 __asm__("r8");
	pid_t c;

	if (fd < 0)
		return 2;
	c = fork();
	if (c < 0)
		return 2;
	if (!c)
		_exit(pwrite(fd, &holes_val, 8, 0) != 8);
	if (waitpid(c, &st, 0) != c || st)
		return 2;
	r8 = fd;
	/* mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) */
	__asm__ volatile("mov $9, %%eax\n\txor %%edi, %%edi\n"
			 "\tmov $4096, %%esi\n\tmov $5, %%edx\n"
			 "\tmov $2, %%r10d\n\txor %%r9d, %%r9d\n"
			 "\tsyscall\n"
			 "\tmov (%%rax), %%r12\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 EXIT_NOW
			 : : "r"(r8)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r9", "r10",
			 "r11", "r12", "memory");
	return 1;
}

/*
 * fshmext PATH (with a shmwriter PATH started before the recording):
 * PATH, on tmpfs, its first word 0x1111, is mapped private and writable
 * at 0x20000000 and never written; another process, not recorded,
 * stored into it through a shared mapping before the recording (so its
 * page table maps the page writable and dirty), and between main's two
 * loads stores 0x2222 there again: no fault, so no new time (tmpfs
 * never write-protects the page again; a disk file system does at its
 * next writeback).  The FIFOs PATH.p and PATH.q carry one byte each
 * way; the writer is still alive, mapping the file, at main's snapshot.
 */
static const char *holes_arg;

static int shmwriter(void)
{
	char path[4200], c;
	int fd = open(holes_arg, O_RDWR), p, q;
	volatile long *m;

	m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, 0);
	snprintf(path, sizeof(path), "%s.p", holes_arg);
	p = open(path, O_RDWR);		/* a FIFO: neither end waits */
	snprintf(path, sizeof(path), "%s.q", holes_arg);
	q = open(path, O_RDWR);
	if (m == MAP_FAILED || p < 0 || q < 0)
		return 2;
	*m = holes_g;			/* the page writable from now on */
	snprintf(path, sizeof(path), "%s.ready", holes_arg);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	if (read(p, &c, 1) != 1)
		return 2;
	*m = holes_val;
	if (write(q, &c, 1) != 1)
		return 2;
	for (;;)
		pause();		/* until the test kills it */
}

static int fshmext_case(void)
{
	char path[4200];
	int fd = holes_arg ? open(holes_arg, O_RDONLY) : -1, p, q;
	register int r8 __asm__("r8");

	if (fd < 0 || map_page(fd, PROT_READ | PROT_WRITE))
		return 2;
	snprintf(path, sizeof(path), "%s.p", holes_arg);
	p = open(path, O_WRONLY);
	snprintf(path, sizeof(path), "%s.q", holes_arg);
	q = open(path, O_RDONLY);
	if (p < 0 || q < 0)
		return 2;
	r8 = q;
	/* write(p, &holes_val, 1); read(q, &holes_go, 1) */
	__asm__ volatile("mov 0x20000000, %%r12\n"
			 "\tmov $1, %%eax\n\tmov %%ebx, %%edi\n"
			 "\tlea holes_val(%%rip), %%rsi\n\tmov $1, %%edx\n"
			 "\tsyscall\n"
			 "\txor %%eax, %%eax\n\tmov %%r8d, %%edi\n"
			 "\tlea holes_go(%%rip), %%rsi\n\tmov $1, %%edx\n"
			 "\tsyscall\n"
			 "\tmov 0x20000000, %%r13\n"
			 "\tnop\n\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : "b"(p), "r"(r8)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			 "r13", "memory");
	return 1;
}

static int shmwriter_case(void)
{
	return holes_arg ? shmwriter() : 2;
}

static int fchild_case(void)
{
	return fchild(false);
}

static int fchildsh_case(void)
{
	return fchild(true);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} modes[] = {
		{ "push16", push16_case }, { "leave16", leave16_case },
		{ "clonevm", clonevm_case }, { "memfd", memfd_case },
		{ "procmem", procmem_case }, { "rseq", rseq_case },
		{ "procdup", procdup_case },
		{ "procreopen", procreopen_case },
		{ "procwritev", procwritev_case }, { "vmwrite", vmwrite_case },
		{ "stdout", stdout_case }, { "procint80", procint80_case },
		{ "rseqstack", rseqstack_case }, { "pairesc", pairesc_case },
		{ "alias2", alias2_case }, { "sigret", sigret_case },
		{ "stackflag", stackflag_case }, { "enter", enter_case },
		{ "escglobal", escglobal_case }, { "escheap", escheap_case },
		{ "escreg", escreg_case }, { "fpwrite", fpwrite_case },
		{ "fwrite", fwrite_case }, { "flink", flink_case },
		{ "fprocfd", fprocfd_case }, { "fshlink", fshlink_case },
		{ "fshgone", fshgone_case }, { "fchild", fchild_case },
		{ "fchildsh", fchildsh_case },
		{ "fbefore", fbefore_case },
		{ "fshmext", fshmext_case },
		{ "shmwriter", shmwriter_case },
	};
	size_t i;

	holes_arg = argc > 2 ? argv[2] : NULL;
	for (i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].fn();
	fprintf(stderr, "usage: holes MODE\n");
	return 2;
}
