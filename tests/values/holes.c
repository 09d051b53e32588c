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
 * pmesc    the same with a push of memory (a global holding 0x1234, as
 *          the PLT pushes the GOT's link_map word), read back by loads
 *          and the pop.
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
 * registers and snapshot are those of the case.  The cases whose memory
 * changes by no store of the program's own (procmem to vmwrite, rseq,
 * rseqstack and the f* cases) are in holes_mem.c; holes.h is what the
 * two files share.
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

#include "holes.h"

long holes_g = 0x1111, holes_go, holes_done;
const char *holes_arg;

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

/*
 * pairesc with push holes_pmv (0x1234 stored just before), the slot read back by the poll's
 * loads and the pop: 1 (a push of memory and its reload or pop are not
 * linked past the escape either).
 */
long holes_pmv;

static int pmesc_case(void)
{
	holes_spawn(holes_child_pub, NULL);
	__asm__ volatile("movq $0x1234, holes_pmv(%%rip)\n"
			 "\tpush holes_pmv(%%rip)\n"
			 "\tmov %%rsp, holes_pub(%%rip)\n"
			 "1:\tmov $24, %%eax\n\tsyscall\n"
			 "\tmov (%%rsp), %%rax\n"
			 "\tcmp $1, %%rax\n\tjne 1b\n"
			 "\tpop %%r13\n"
			 "\tnop\n\tnop\n\tnop\n"
			 "\txor %%r13d, %%r13d\n"
			 EXIT_NOW
			 : : : "rax", "rcx", "rdi", "r11", "r13", "memory");
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
		{ "pmesc", pmesc_case },
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
