// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The two cases docs/values.md once listed as able to give a wrong value
 * (issue #17), for tests/values/run.sh to check against the ground truth:
 *
 * 1. A signal delivered right after an indirect jump, an indirect call, or
 *    a return the engine cannot match to its call: the instruction at the
 *    branch's target faults (SIGSEGV), so the history goes from the branch
 *    straight to the handler, whose rdi/rsi/rdx/rsp are the kernel's, not
 *    the values set just before the branch.
 * 2. A store through a pointer the engine cannot compute into the slot
 *    where a function saved a callee-saved register: the pop gets the
 *    stored value, not the pushed one.
 *
 * The branch targets and the pointer are offset by (getpid() >> 31), 0 at
 * run time but unknown to the engine.  `unsound saved` runs case 2 alone,
 * in a process where no signal handler runs; `unsound known` the same
 * with a pointer the engine can compute (rsp + 0, after a store through
 * a known pointer elsewhere): stores of known address are checked
 * against the slot, not ignored; `unsound fs` the same through fs with
 * its base set to the slot by arch_prctl and restored (fs-relative
 * addresses use the end's fs_base only after the last change); `unsound
 * rmw` a counter in memory changed only by add/xor/sub [mem], imm (each
 * value inverted back from the snapshot's); `unsound zf` cmp eax, 5 and
 * test rcx, rcx before a taken je (eax is 5, rax is not), a dec loop
 * ending at ZF set; `unsound sys` getpid with CF, SF and DF set: rflags,
 * rcx and r11 after a system call, DF across lock xadd; `unsound ramp`
 * a register set once and changed in a loop 6,000 instructions long,
 * overwritten before the end (known only forward); `unsound xramp` the
 * same through xmm6; `unsound align` stores through an index scaled into
 * an aligned array, one that did write the word asked about and one that
 * cannot reach it (rcv_alias.c's alignment argument); `unsound reveal`
 * stores of unknown address against a later load of known value, one
 * that did not write the word asked about and two that did, each
 * followed by a writer the load shows instead; `unsound tlsself`
 * the thread's own pointer and glibc's rseq cpu_id through fs.  Two more,
 * found in review:
 * `unsound ro`: a read-only anonymous page changed by madvise(DONTNEED)
 * (no store; the snapshot's byte is not the one read before); `unsound
 * bts`: bts with a register bit offset writes 8 bytes past its operand.
 * `unsound frame`: a callee's spill of rbx and its reload across a store
 * of unknown address that does (fr, fresc) or does not (frok) write the
 * slot (rcv_stack.c, rcv_callee.c), and stores through a VLA's bottom
 * plus an index, and through other stack pointers plus one (fvla); the
 * slot's address given away through xmm0 (frxmm); a spill in an
 * xsavec area (frxs).
 * `unsound regfr`: stores and loads through rbx holding a copy of rsp
 * (rcv_stack.c's frame classes of every register): through an alias of
 * the pushed slot at an index unknown to the engine (frb), and a load
 * through rbx across a store through a global's pointer (frbok).
 * `unsound sysfr`: a read(2) between a push and its pop into the
 * pushed slot (frs), and into a global (frsok, with a store through a
 * global's pointer between too).
 * `unsound pushmem`: a push of memory read back by a reload and a pop
 * across a store through a global's pointer and a rewrite of the word
 * pushed (pmt: the pushed value is the memory at the push), and across
 * a store through rsp plus an index into the slot (pms: no pair).
 * `unsound csys`: fstat(2) over a callee's pushed slot, rep stosq into it
 * through rsp plus an unknown index, and fstat, brk and rep stosq that
 * miss it (rcv_callee.c: the argument across system calls).
 * `unsound ckind`: a callee's frame address (rsp itself; the caller's
 * rsp made in a nested call, as setjmp does) given away and written
 * through into its pushed slot, and a local's address given away and
 * written through into the local (rcv_callee.c's prologue walk: only
 * pointers into C objects under the pushes leave them alone).
 * `unsound xsavebad`, `unsound xsaveesc`, `unsound xsaveok`: the history
 * ends (exit_group) inside a function after its pushes, their slots
 * rewritten by stores of unknown address (through rsp plus an index, or
 * a published rsp read back), or not (rcv_callee.c: the argument to the
 * end); `unsound xsavemt`, `xsavemtok`: the same written by another
 * thread through the published pointer.
 * `unsound sse`: values through xmm (rcv_sse.c) forward into a register
 * where memory cannot tell them, and backward from the snapshot to the
 * register movq read.  `unsound rofile`: a private read-only file
 * mapping whose file is also mapped shared changes under a store
 * through the shared one (not read-only memory: rcv_mem.c).  `unsound
 * robuf`: a read-only page's byte read into r12, then read(2) into a
 * buffer whose address the engine cannot know and into the read-only
 * page itself (EFAULT): such calls do not cut the read-only rule.
 * `unsound jmptgt`: indirect jumps through a register and through
 * memory whose targets are unknown but for where the trace went, with
 * no handler (the register, and the word read, known from the target);
 * `unsound jmpsig`: the same where the target faults and a handler
 * follows the jump (neither is the handler's address).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile long zero_ptr;	/* 0: the faulting load's address */

static void handler(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

/* The functions in assembly: tests/values/unsound_asm.c. */
long unsound_fvla(long off), unsound_frxmm(long off);
long unsound_frxs(void);
long unsound_frb(long off), unsound_frbok(long off);
long unsound_frs(int fd), unsound_frsok(int fd, long off);
long unsound_pmt(long off), unsound_pms(long off), unsound_pmu(long off);
long unsound_pmval;

long unsound_fr(long off), unsound_fresc(long off), unsound_frok(long off);
long unsound_glob, unsound_fs_orig;
long unsound_cvla(long off), unsound_cvlaok(long off);
long unsound_cg, unsound_cword, *unsound_cptr = &unsound_cword;
long unsound_cesc(long off), unsound_cup(long off), unsound_cok(long off);
long unsound_csysbad(void), unsound_csysrep(long off),
	unsound_csysok(long off);
long unsound_kesc(long off), unsound_kdep(long off), unsound_kok(long off);
/* xsave: where a stack pointer is published; set when xsave_writer()
 * wrote through it.
 */
long unsound_xp;
int unsound_xdone;
void unsound_xsavebad(void) __attribute__((noreturn));
void unsound_xsaveok(void) __attribute__((noreturn));
void unsound_xsaveesc(void) __attribute__((noreturn));
void unsound_xsavemt(void) __attribute__((noreturn));
void unsound_xsavemtok(void) __attribute__((noreturn));

/* xsavemt*: 0x2222 through the pointer the main thread publishes. */
static void *xsave_writer(void *arg)
{
	long *p;

	(void)arg;
	while (!(p = (long *)__atomic_load_n(&unsound_xp, __ATOMIC_ACQUIRE)))
		;
	*p = 0x2222;
	__atomic_store_n(&unsound_xdone, 1, __ATOMIC_RELEASE);
	return NULL;
}
/* alias: [1] of each is the word asked about, [0] and [2] guards. */
long unsound_al_a[3] = { 0, 0x5555555555555555, 0 };
long unsound_al_b[3] = { 0, 0x5555555555555555, 0 };
long unsound_al_d[3] = { 0, 0x5555555555555555, 0 };
long unsound_al_c[3], unsound_al_ptr, unsound_al_other[3], unsound_al_e;
/* reveal: [1] of each is the word asked about, [0] and [2] guards. */
long unsound_rv_c[3], unsound_rv_d[3], unsound_rv_e[3], unsound_rv_other[3];
long unsound_known(long off);

void unsound_fault(void);
long unsound_saved(long off);

static long unknown_zero(void)
{
	return (long)getpid() >> 31;
}

/* jmptgt, jmpsig: the word jumped through (rcv_back.c, rcv_rw.c). */
long unsound_jw;

/*
 * No signal handler runs: an indirect jump goes where its operand says.
 * r9 = 1f + z and the word unsound_jw = 2f + z (z = getpid() >> 31, 0 at
 * run time, unknown to the engine), all cleared after: r9 is known before
 * `jmp *%r9` only from where the trace went, and r10, loaded from the
 * word, before `jmp *unsound_jw` only from the word the jump read.
 */
static int jmptgt_case(void)
{
	long z = unknown_zero();

	__asm__ volatile("lea 1f(%%rip), %%r9\n"
			 "\tadd %0, %%r9\n"
			 "\tjmp *%%r9\n"
			 "1:\tlea 2f(%%rip), %%rax\n"
			 "\tadd %0, %%rax\n"
			 "\tmov %%rax, unsound_jw(%%rip)\n"
			 "\txor %%eax, %%eax\n"
			 "\tmov unsound_jw(%%rip), %%r10\n"
			 "\tjmp *unsound_jw(%%rip)\n"
			 "2:\txor %%r9d, %%r9d\n"
			 "\txor %%r10d, %%r10d\n"
			 "\tmovq $0, unsound_jw(%%rip)\n"
			 : : "r"(z) : "rax", "r9", "r10", "memory");
	return 0;
}

/*
 * The same through memory where a handler runs: the target faults
 * (unsound_fault loads through rcx = 0), so the handler's entry follows
 * the jump in the trace.  r11, loaded from the word before the jump, is
 * the target, not the handler's address: taking the word from where the
 * trace went after a jump a signal followed gives the handler's.  And
 * `jmp *%r8` likewise (r8 = the word, z unknown): r8 is not the handler's
 * address either.
 */
static int jmpsig_case(void)
{
	struct sigaction sa;
	long z = unknown_zero();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	unsound_jw = (long)unsound_fault + z;
	if (sigsetjmp(env, 1) == 0)
		__asm__ volatile("mov %0, %%rcx\n"
				 "\tmov unsound_jw(%%rip), %%r11\n"
				 "\tjmp *unsound_jw(%%rip)\n"
				 : : "r"(zero_ptr) : "rcx", "r11", "memory");
	if (sigsetjmp(env, 1) == 0)
		__asm__ volatile("mov %0, %%rcx\n"
				 "\tmov unsound_jw(%%rip), %%r8\n"
				 "\tjmp *%%r8\n"
				 : : "r"(zero_ptr) : "rcx", "r8", "memory");
	unsound_jw = 0;
	return 0;
}

/* A page read at a constant address, read-only, then zeroed by madvise. */
static int ro_case(void)
{
	volatile unsigned char *p = mmap((void *)0x10000000, 4096,
					 PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS |
					 MAP_FIXED_NOREPLACE, -1, 0);
	unsigned long a, b;

	if (p != (void *)0x10000000)
		return 2;
	p[0] = 0x55;
	mprotect((void *)p, 4096, PROT_READ);
	__asm__ volatile("movzbq 0x10000000, %0\n\tmov %0, %%r12\n\tnop\n"
			 "\txor %%r12d, %%r12d" : "=r"(a) : : "r12");
	madvise((void *)p, 4096, MADV_DONTNEED);
	__asm__ volatile("movzbq 0x10000000, %0" : "=r"(b));
	printf("ro %#lx %#lx\n", a, b);
	return a == 0x55 && b == 0 ? 0 : 1;
}

/*
 * r12 holds a read-only page's byte (cleared after the nops); then
 * read(2) from /dev/zero into a stack buffer at an address the engine
 * cannot know, and into the read-only page, which the kernel refuses
 * (EFAULT): the page keeps the snapshot's byte all through, so r12 at the
 * nops is known from it (rcv_mem.c's sys_user_buffer()).
 */
static int robuf_case(void)
{
	volatile unsigned char *p = mmap((void *)0x10002000, 4096,
					 PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS |
					 MAP_FIXED_NOREPLACE, -1, 0);
	int fd = open("/dev/zero", O_RDONLY);
	long z = unknown_zero();
	unsigned long a;
	char buf[16];
	ssize_t r1, r2;

	if (p != (void *)0x10002000 || fd < 0)
		return 2;
	p[0] = 0x66;
	mprotect((void *)p, 4096, PROT_READ);
	__asm__ volatile("movzbq 0x10002000, %0\n\tmov %0, %%r12\n\tnop\n"
			 "\tnop\n\txor %%r12d, %%r12d" : "=r"(a) : : "r12");
	r1 = read(fd, buf + z, 8);
	r2 = read(fd, (char *)p + z, 1);
	printf("robuf %#lx %zd %zd %d\n", a, r1, r2, buf[z]);
	return a == 0x66 && r1 == 8 && r2 < 0 && p[0] == 0x66 ? 0 : 1;
}

long unsound_align_arr[8] __attribute__((aligned(64))) = {
	0, 0x0102030405060708, 0x1111, 0x2222, 0, 0x0a0b0c0d0e0f1011, 0, 0
};
long unsound_xbuf[4] __attribute__((aligned(16)));
long unsound_xend[2] __attribute__((aligned(16)));

/*
 * Forward: 0x1122334455667788 moves rdx -> xmm1 -> (punpcklqdq) high half
 * of xmm0 -> memory (movaps) -> r12 (cleared after); a store through an
 * unknown pointer and a store of 0 then hide it from the snapshot, so
 * only the xmm path gives r12.  Backward: getpid()'s value (unknown to
 * the engine) moves rax -> xmm4 -> (pshufd) xmm5 -> memory kept to the
 * end; rax is cleared: the snapshot's bytes give xmm5, xmm4 and rax back.
 * Last, a second getpid()'s value | 0x2000 into xmm6, kept to the end:
 * only the snapshot's xmm6 (its FXSAVE area) gives that rax back.
 */
static int sse_case(void)
{
	long z = unknown_zero();

	__asm__ volatile("movabs $0x1122334455667788, %%rdx\n"
			 "\tmovq %%rdx, %%xmm1\n"
			 "\tpxor %%xmm0, %%xmm0\n"
			 "\tpunpcklqdq %%xmm1, %%xmm0\n"
			 "\tmovaps %%xmm0, unsound_xbuf(%%rip)\n"
			 "\txor %%edx, %%edx\n"
			 "\tmov unsound_xbuf+8(%%rip), %%r12\n"
			 "\tnop\n"
			 "\txor %%r12d, %%r12d\n"
			 "\tlea unsound_xbuf(%%rip), %%rcx\n"
			 "\tadd %0, %%rcx\n"
			 "\tmovq $5, 16(%%rcx)\n"
			 "\tmovq $0, unsound_xbuf+8(%%rip)\n"
			 "\tmov $39, %%eax\n\tsyscall\n"
			 "\tor $0x1000, %%rax\n"
			 "\tnop\n"
			 "\tmovq %%rax, %%xmm4\n"
			 "\tpshufd $0x44, %%xmm4, %%xmm5\n"
			 "\tmovaps %%xmm5, unsound_xend(%%rip)\n"
			 "\tmov $39, %%eax\n\tsyscall\n"
			 "\tor $0x2000, %%rax\n"
			 "\tnop\n"
			 "\tmovq %%rax, %%xmm6\n"
			 "\txor %%eax, %%eax\n"
			 "\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n"
			 "\txor %%ecx, %%ecx\n"
			 "\txor %%edi, %%edi\n"
			 "\tmov $231, %%eax\n\tsyscall\n"
			 : : "r"(z) : "rax", "rcx", "rdx", "rdi", "r11", "r12",
			 "xmm0", "xmm1", "xmm4", "xmm5", "xmm6", "memory");
	return 1;
}

/*
 * A memfd of two pages mapped private (page 0 written, so the snapshot
 * copies the mapping; page 1 never written: it follows the file) and
 * shared; the private mapping made read-only; page 1 read into r12
 * (0x55), then 0x66 stored through the shared mapping and read into r13:
 * the snapshot's byte is not the one r12 read.
 */
static int rofile_case(void)
{
	int fd = memfd_create("unsound-rofile", 0);
	volatile unsigned char *p, *q;

	if (fd < 0 || ftruncate(fd, 8192))
		return 2;
	/* At constant addresses: the engine knows the load's address. */
	p = mmap((void *)0x13000000, 8192, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	q = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != (void *)0x13000000 || q == MAP_FAILED)
		return 2;
	q[4096] = 0x55;
	p[0] = 1;
	mprotect((void *)p, 8192, PROT_READ);
	/* exit_group right after: no system call between that the
	 * engine cannot name (ro_mem() stops at those).
	 */
	__asm__ volatile("movzbq 0x13001000, %%r12\n\tnop\n"
			 "\tmovb $0x66, 4096(%0)\n"
			 "\tmovzbq 0x13001000, %%r13\n\tnop\n"
			 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
			 "\txor %%edi, %%edi\n"
			 "\tmov $231, %%eax\n\tsyscall\n"
			 : : "r"(q) : "rax", "rcx", "rdi", "r11", "r12", "r13",
			 "memory");
	return 1;
}

/* btsq %rcx, (%rax) with rcx = 64 sets bit 0 of the next word. */
static int bts_case(void)
{
	static unsigned long buf[4];
	long off = 64 + unknown_zero();
	unsigned long r;

	__asm__ volatile("lea %[b], %%rax\n"
			 "movq $0, 8(%%rax)\n"
			 "mov %[o], %%rcx\n"
			 "btsq %%rcx, (%%rax)\n"
			 "mov 8(%%rax), %%rdx\n"
			 "mov %%rdx, %[r]\n"
			 "xor %%edx, %%edx\n"
			 "movq $0, 8(%%rax)\n"
			 : [r] "=m"(r) : [b] "m"(buf), [o] "r"(off)
			 : "rax", "rcx", "rdx", "memory");
	printf("bts %lu\n", r);
	return r == 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	volatile int round = 0;
	long r, z;

	/* "@startreg" (first, before any call: a lazy binding's callee
	 * saves and restores r15, which the engine may not follow): r15
	 * as main got it, never written until the rdtsc that overwrites
	 * it before exit_group, is known only from the recorder's
	 * registers where the history starts (the REGS start record,
	 * rcv_first.c).  6,000 instructions of loop: in windows of 300
	 * that start lies in the ramp, beyond the chain, where the record
	 * was once not taken.
	 */
	/* "@startsys" (first too): getpid()'s result, which no engine
	 * derives, kept in r14 through 6,000 instructions of loop: known
	 * only from the recorder's record of the call's completion (the
	 * REGS syscall record, rcv_first.c).  In windows of 100 the call
	 * lies in the start ramp, beyond the chain and the ramp (rcv_sum.c).
	 * Told from "@startreg" by its bytes: a call to strcmp() here would
	 * come before startreg's first instruction.
	 */
	/* "@anchor" (first too): 3,000 getpid() calls in a loop that
	 * keeps its counter on the stack, 18,000 instructions.  In windows
	 * of 100 most of them are on their own (beyond the chain, the
	 * ramp and the start ramp), where rsp is known only from the
	 * system calls' REGS records carrying every register (session 18:
	 * before, rax, rcx and r11 alone).
	 */
	if (argc == 2 && argv[1][0] == '@' && argv[1][1] == 'a')
		__asm__ volatile("mov $3000, %%r12d\n"
				 "1:\tpush %%r12\n"
				 "\tmov $39, %%eax\n\tsyscall\n"
				 "\tpop %%r12\n"
				 "\tdec %%r12d\n\tjnz 1b\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdi", "r11", "r12",
				 "memory");
	if (argc == 2 && argv[1][0] == '@' && argv[1][1] == 's' &&
	    argv[1][6] == 's')
		__asm__ volatile("mov $39, %%eax\n\tsyscall\n"
				 "\tmov %%rax, %%r14\n"
				 "\tmov $2000, %%ecx\n"
				 "1:\tadd $3, %%rdx\n"
				 "\tdec %%ecx\n\tjnz 1b\n"
				 "\trdtsc\n\tmov %%rax, %%r14\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rdi", "r11", "r14",
				 "memory");
	if (argc == 2 && argv[1][0] == '@')
		__asm__ volatile("mov $2000, %%ecx\n"
				 "1:\tadd $3, %%rdx\n"
				 "\tdec %%ecx\n\tjnz 1b\n"
				 "\trdtsc\n\tmov %%rax, %%r15\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rdi", "r11", "r15",
				 "memory");
	if (argc > 1 && !strcmp(argv[1], "ro"))
		return ro_case();
	if (argc > 1 && !strcmp(argv[1], "bts"))
		return bts_case();
	if (argc > 1 && !strcmp(argv[1], "sse"))
		return sse_case();
	if (argc > 1 && !strcmp(argv[1], "rofile"))
		return rofile_case();
	if (argc > 1 && !strcmp(argv[1], "robuf"))
		return robuf_case();
	if (argc > 1 && !strcmp(argv[1], "known")) {
		/* exit_group(0) right after: no exit path, so rsp at the end
		 * is the one of the case (the slot's address is known to
		 * the engine); the result is dead (stored, overwritten), so
		 * nothing known at the end contradicts a wrong pair.
		 */
		__asm__ volatile("xor %%edi, %%edi\n\tcall unsound_known\n"
				 "\tmov %%rax, unsound_glob(%%rip)\n"
				 "\tmovq $0, unsound_glob(%%rip)\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8",
				 "r9", "r10", "r11", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "fs")) {
		/* as known (its result dead, exit_group right after) */
		__asm__ volatile("mov %%fs:0, %%rax\n"
				 "\tmov %%rax, unsound_fs_orig(%%rip)\n"
				 "\tcall unsound_fs\n"
				 "\tmov %%rax, unsound_glob(%%rip)\n"
				 "\tmovq $0, unsound_glob(%%rip)\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8",
				 "r9", "r10", "r11", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "rmw")) {
		/* A counter in memory changed only by add/xor/sub [mem], imm,
		 * read into rax/rdx/rcx after each, exit_group right after:
		 * the engine inverts each back from the snapshot's value.
		 */
		__asm__ volatile("mov $50, %%r8d\n"
				 "1:\taddq $3, unsound_glob(%%rip)\n"
				 "\tmov unsound_glob(%%rip), %%rax\n"
				 "\txorq $0x55, unsound_glob(%%rip)\n"
				 "\tmov unsound_glob(%%rip), %%rdx\n"
				 "\tsubq $1, unsound_glob(%%rip)\n"
				 "\tmov unsound_glob(%%rip), %%rcx\n"
				 "\tdec %%r8d\n\tjnz 1b\n"
				 "\txor %%eax, %%eax\n\txor %%edx, %%edx\n"
				 "\txor %%ecx, %%ecx\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rdi", "r8", "r11",
				 "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "zf")) {
		/* rax = 0x100000005 and rcx = 0, both unknown to the engine
		 * (getpid() >> 31), then cmp eax, 5 and test rcx, rcx, each
		 * followed by a taken je: ZF tells eax (not rax) and rcx;
		 * then dec eax from 0x100000003 until jnz falls through: 0
		 * after the last, so eax 1, 2, 3 before (rax's upper half
		 * only after the first dec).
		 */
		z = unknown_zero();
		__asm__ volatile("mov %0, %%rcx\n"
				 "\tmovabs $0x100000005, %%rax\n"
				 "\tadd %%rcx, %%rax\n"
				 "\tcmp $5, %%eax\n\tje 1f\n\tud2\n"
				 "1:\ttest %%rcx, %%rcx\n\tje 2f\n\tud2\n"
				 "2:\tmovabs $0x100000003, %%rax\n"
				 "\tadd %0, %%rax\n"
				 "3:\tdec %%eax\n\tjnz 3b\n"
				 "\txor %%eax, %%eax\n\txor %%ecx, %%ecx\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : "r"(z) : "rax", "rcx", "rdi", "r11",
				 "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "ramp")) {
		/* r12 set once, then 3 added in each of 2,000 iterations
		 * (6,000 instructions), then overwritten by rdtsc (nothing
		 * from the end tells it back), exit_group right after: in
		 * windows of 300 instructions r12 in the chain is known
		 * only forward from its mov, 20 windows before the end,
		 * through the ramp's summaries (rcv_sum.c); a summary given
		 * to the wrong window gives wrong values.
		 */
		__asm__ volatile("mov $2000, %%ecx\n"
				 "\tmov $0x1000, %%r12d\n"
				 "1:\tadd $3, %%r12\n"
				 "\tdec %%ecx\n\tjnz 1b\n"
				 "\trdtsc\n\tmov %%rax, %%r12\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rdi", "r11", "r12",
				 "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "align")) {
		/* rax = arr + 32 * z (z unknown to the engine, 0): its
		 * low 5 bits known.  First a store through it that did
		 * write the word r12 was loaded from (0x28: arr[5], the
		 * residue 8 of 32), which must not be proven away; then
		 * one that cannot reach arr[1] (0x10: residue 16), of a
		 * value not known (rdtsc's, cleared and overwritten after:
		 * the value argument cannot help): rbx, loaded from arr[1]
		 * before it, is
		 * known only by that proof (rcv_alias.c), from the
		 * snapshot.  exit_group right after.
		 */
		z = unknown_zero();
		__asm__ volatile("rdtsc\n\tshl $32, %%rdx\n"
				 "\tor %%rax, %%rdx\n"
				 "\tlea unsound_align_arr(%%rip), %%r15\n"
				 "\tmov %0, %%rax\n\tshl $5, %%rax\n"
				 "\tadd %%r15, %%rax\n\txor %k0, %k0\n"
				 "\tmov 0x28(%%r15), %%r12\n"
				 "\tmov %%rdx, 0x28(%%rax)\n"
				 "\tnop\n\txor %%r12d, %%r12d\n"
				 "\tmov 8(%%r15), %%rbx\n"
				 "\tmov %%rdx, 0x10(%%rax)\n"
				 "\tnop\n\txor %%ebx, %%ebx\n"
				 "\txor %%edx, %%edx\n\tmovq $0, 0x10(%%r15)\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : "+r"(z) : : "rax", "rbx", "rdx", "rdi",
				 "r11", "r12", "r15", "rcx", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "tlsself")) {
		/* r12 = %fs:0x10 (the thread's own pointer, in its control
		 * block, which the kernel does not write) and r13 = the
		 * cpu_id of glibc's rseq area (%fs:__rseq_offset + 4, which
		 * the kernel rewrites whenever the thread moves): both
		 * overwritten before exit_group.  With the snapshot's
		 * complete list of rseq areas, r12 is known from the
		 * snapshot at the nop, r13 never.
		 */
		extern const ptrdiff_t __rseq_offset;

		z = __rseq_offset + 4;
		__asm__ volatile("mov %%fs:0x10, %%r12\n"
				 "\tmov %%fs:(%0), %%r13d\n\tnop\n"
				 "\txor %%r12d, %%r12d\n\txor %%r13d, %%r13d\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : "r"(z) : "rax", "rdi", "rcx", "r11", "r12",
				 "r13", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "xramp")) {
		/* xmm6 set once from a constant, 2,000 iterations of a loop
		 * that does not touch it (4,000 instructions), then r13
		 * from it and 500 iterations more (1,000), xmm6 cleared
		 * and r13 overwritten by rdtsc, exit_group: in windows of
		 * 300 instructions xmm6's movq lies beyond the chain, so
		 * r13 in the last 1,000 is known only through the ramp's
		 * summaries of xmm6 (rcv_sum.c).
		 */
		__asm__ volatile("mov $0x5151, %%eax\n\tmovq %%rax, %%xmm6\n"
				 "\txor %%eax, %%eax\n\tmov $2000, %%ecx\n"
				 "1:\tdec %%ecx\n\tjnz 1b\n"
				 "\tmovq %%xmm6, %%r13\n\tmov $500, %%ecx\n"
				 "2:\tdec %%ecx\n\tjnz 2b\n"
				 "\tpxor %%xmm6, %%xmm6\n"
				 "\trdtsc\n\tmov %%rax, %%r13\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rdi", "r11", "r13",
				 "xmm6", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "sys")) {
		/* getpid with CF, SF and DF set (cmp 5, 7; std): rflags
		 * after it are those before, rcx the address after it;
		 * eflags' upper bits come back from the end across it, the
		 * arithmetic ones forward from cmp.  lock xadd (not
		 * modelled: its flags unknown) keeps DF, cld clears it.
		 * exit_group right after.
		 */
		__asm__ volatile("mov $5, %%edx\n\tcmp $7, %%edx\n\tstd\n"
				 "\tmov $39, %%eax\n\tsyscall\n"
				 "\tmov %%rcx, %%rsi\n"
				 "\tlock xadd %%edx, unsound_glob(%%rip)\n"
				 "\tcmp $3, %%esi\n\tnop\n\tcld\n"
				 "\tnop\n\tmov %%r11, %%r8\n"
				 "\txor %%edi, %%edi\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8",
				 "r11", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "alias")) {
		/* Stores of unknown address (z = getpid() >> 31, 0 at run
		 * time, cleared before the end with everything made from
		 * it) the engine must not prove away (rcv_alias.c):
		 * 1. a[1] loaded into rdx (0x55...), 0x77... stored through
		 *    &a[1] + z, loaded back into rsi (kept to the end), then
		 *    a store of unknown value through &a[1] + z: the end
		 *    shows it, not 0x77..., yet the first store did write
		 *    a[1];
		 * 2. b[1] loaded into r12, a base loaded from ptr (&b[1] +
		 *    z, stored as an unknown value), 0x77... stored through
		 *    it, loaded back into r13 (kept), then 0x1111... stored
		 *    into ptr through &ptr + z: ptr's end value is not the
		 *    base that was loaded.
		 * And one it must: 3. rbx = 0x0102030405060708 + z stored
		 * into c[1], then movl $-1 through &other[1] + z (no four
		 * bytes 0xff around c[1] at the end): rbx is c[1]'s.
		 * Must not again: 4. as 1, but a store of known address
		 * (0x22) rewrites d[1] after the load back (r15); 5. e =
		 * &e + z, a base loaded from e (rcx) and 0x77... stored
		 * through it: into e itself, whose end value (loaded into
		 * r11) is then not the base.  exit_group right after.
		 */
		z = unknown_zero();
		__asm__ volatile("mov %0, %%r8\n"
				 /* 1 */
				 "\tmov unsound_al_a+8(%%rip), %%rdx\n"
				 "\tlea unsound_al_a+8(%%rip), %%rcx\n"
				 "\tadd %%r8, %%rcx\n"
				 "\tmovabs $0x7777777777777777, %%rax\n"
				 "\tmov %%rax, (%%rcx)\n"
				 "\tmov unsound_al_a+8(%%rip), %%rsi\n"
				 "\tmov %%r8, %%r9\n\tadd $0x33, %%r9\n"
				 "\timul %%r8, %%r9\n"
				 "\tmov %%r9, (%%rcx)\n"
				 /* 2 */
				 "\tlea unsound_al_b+8(%%rip), %%rax\n"
				 "\tadd %%r8, %%rax\n"
				 "\tmov %%rax, unsound_al_ptr(%%rip)\n"
				 "\tmov unsound_al_b+8(%%rip), %%r12\n"
				 "\tmov unsound_al_ptr(%%rip), %%rcx\n"
				 "\tmovabs $0x7777777777777777, %%rax\n"
				 "\tmov %%rax, (%%rcx)\n"
				 "\tmov unsound_al_b+8(%%rip), %%r13\n"
				 "\tlea unsound_al_ptr(%%rip), %%rdi\n"
				 "\tadd %%r8, %%rdi\n"
				 "\tmovabs $0x1111111111111111, %%r10\n"
				 "\tmov %%r10, (%%rdi)\n"
				 /* 3 */
				 "\tmovabs $0x0102030405060708, %%rbx\n"
				 "\tadd %%r8, %%rbx\n"
				 "\tmov %%rbx, unsound_al_c+8(%%rip)\n"
				 "\tlea unsound_al_other+8(%%rip), %%rcx\n"
				 "\tadd %%r8, %%rcx\n"
				 "\tmovl $-1, (%%rcx)\n"
				 /* 4 */
				 "\tmov unsound_al_d+8(%%rip), %%r14\n"
				 "\tlea unsound_al_d+8(%%rip), %%rcx\n"
				 "\tadd %%r8, %%rcx\n"
				 "\tmovabs $0x7777777777777777, %%rax\n"
				 "\tmov %%rax, (%%rcx)\n"
				 "\tmov unsound_al_d+8(%%rip), %%r15\n"
				 "\tmovq $0x22, unsound_al_d+8(%%rip)\n"
				 /* 5 */
				 "\tlea unsound_al_e(%%rip), %%rax\n"
				 "\tadd %%r8, %%rax\n"
				 "\tmov %%rax, unsound_al_e(%%rip)\n"
				 "\tmov unsound_al_e(%%rip), %%rcx\n"
				 "\tmovabs $0x7777777777777777, %%rax\n"
				 "\tmov %%rax, (%%rcx)\n"
				 "\tmov unsound_al_e(%%rip), %%r11\n"
				 "\txor %%eax, %%eax\n\txor %%ebx, %%ebx\n"
				 "\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n"
				 "\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n"
				 "\txor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n"
				 "\txor %%r12d, %%r12d\n\txor %%r14d, %%r14d\n"
				 "\txor %0, %0\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : "+r"(z) : : "rax", "rbx", "rcx", "rdx",
				 "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
				 "r13", "r14", "r15", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "reveal")) {
		/* Stores of unknown address against a later load of known
		 * value (rcv_alias.c's revealed(); z = getpid() >> 31, 0 at
		 * run time, unknown to the engine), where the snapshot
		 * cannot tell (the words are rewritten before the end):
		 * 1. rbx = 0x0102030405060708 + z stored into c[1], movl
		 *    $-1 through &other[1] + z, c[1] loaded into rdx (kept
		 *    to the end: known), c[1] zeroed: no four bytes 0xff
		 *    in what the load shows, so the movl did not write
		 *    c[1], and rbx is c[1]'s (known only that way);
		 * 2. 0x55... stored into d[1], 0x77... through &d[1] + z
		 *    (it did write d[1]), the guards loaded into r10 and
		 *    r15 (kept: they show what it wrote around d[1]),
		 *    d[1]'s upper half loaded into r12 (0x77777777: must
		 *    not be 0x55555555), then a store of unknown value
		 *    (0) through &d[1] + z, d[1] loaded into rsi (kept):
		 *    the load shows the second store's bytes, which may
		 *    be d[1]'s last writer;
		 * 3. as 2 with e[1], but the later writer is movl $0 of
		 *    known address into e[1]'s low half (r13 the upper
		 *    half before it, r14d the low half after it, kept):
		 *    the load shows that store's bytes, not the first's.
		 * exit_group right after.
		 */
		z = unknown_zero();
		__asm__ volatile("mov %0, %%r8\n"
				 /* 1 */
				 "\tmovabs $0x0102030405060708, %%rbx\n"
				 "\tadd %%r8, %%rbx\n"
				 "\tmov %%rbx, unsound_rv_c+8(%%rip)\n"
				 "\tlea unsound_rv_other+8(%%rip), %%rcx\n"
				 "\tadd %%r8, %%rcx\n"
				 "\tmovl $-1, (%%rcx)\n"
				 "\tmov unsound_rv_c+8(%%rip), %%rdx\n"
				 "\tmovq $0, unsound_rv_c+8(%%rip)\n"
				 "\txor %%ebx, %%ebx\n"
				 /* 2 */
				 "\tmovabs $0x5555555555555555, %%rax\n"
				 "\tmov %%rax, unsound_rv_d+8(%%rip)\n"
				 "\tlea unsound_rv_d+8(%%rip), %%rcx\n"
				 "\tadd %%r8, %%rcx\n"
				 "\tmovabs $0x7777777777777777, %%rax\n"
				 "\tmov %%rax, (%%rcx)\n"
				 "\tmov unsound_rv_d(%%rip), %%r10\n"
				 "\tmov unsound_rv_d+16(%%rip), %%r15\n"
				 "\tmov unsound_rv_d+12(%%rip), %%r12d\n"
				 "\tmov %%r8, %%r9\n\tadd $0x33, %%r9\n"
				 "\timul %%r8, %%r9\n"
				 "\tmov %%r9, (%%rcx)\n"
				 "\tmov unsound_rv_d+8(%%rip), %%rsi\n"
				 "\txor %%r12d, %%r12d\n"
				 /* 3 */
				 "\tmovabs $0x5555555555555555, %%rax\n"
				 "\tmov %%rax, unsound_rv_e+8(%%rip)\n"
				 "\tlea unsound_rv_e+8(%%rip), %%rcx\n"
				 "\tadd %%r8, %%rcx\n"
				 "\tmovabs $0x7777777777777777, %%rax\n"
				 "\tmov %%rax, (%%rcx)\n"
				 "\tmov unsound_rv_e+12(%%rip), %%r13d\n"
				 "\tmovl $0, unsound_rv_e+8(%%rip)\n"
				 "\tmov unsound_rv_e+8(%%rip), %%r14d\n"
				 "\txor %%r13d, %%r13d\n"
				 "\tmovq $0, unsound_rv_d+8(%%rip)\n"
				 "\tmovq $0, unsound_rv_e+8(%%rip)\n"
				 "\txor %%eax, %%eax\n"
				 "\txor %%ecx, %%ecx\n"
				 "\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n"
				 "\txor %%r9d, %%r9d\n"
				 "\txor %0, %0\n"
				 "\tmov $231, %%eax\n\tsyscall\n"
				 : "+r"(z) : : "rax", "rbx", "rcx", "rdx",
				 "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
				 "r13", "r14", "r15", "memory");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "callee")) {
		long a = unsound_cesc(unknown_zero());
		long b = unsound_cup(unknown_zero());
		long c = unsound_cok(unknown_zero());
		long d = unsound_cvla(unknown_zero());
		long e = unsound_cvlaok(unknown_zero());

		printf("callee %#lx %#lx %#lx %#lx %#lx %#lx\n", a, b, c, d, e,
		       unsound_cword);
		return a == 0x2222 && b == 0x2222 && c == 0x3333 &&
		       d == 0x4444 && e == 0x3333 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "csys")) {
		long a = unsound_csysbad();
		long b = unsound_csysrep(unknown_zero());
		long c = unsound_csysok(unknown_zero());

		printf("csys %#lx %#lx %#lx %#lx\n", a, b, c, unsound_cword);
		return a == 0 && b == 0x2222 && c == 0x3333 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "ckind")) {
		long a = unsound_kesc(unknown_zero());
		long b = unsound_kdep(unknown_zero());
		long c = unsound_kok(unknown_zero());

		printf("ckind %#lx %#lx %#lx\n", a, b, c);
		return a == 0x2222 && b == 0x2222 && c == 0x3333 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "xsavebad"))
		unsound_xsavebad();	/* exits */
	if (argc > 1 && !strcmp(argv[1], "xsaveesc"))
		unsound_xsaveesc();
	if (argc > 1 && !strcmp(argv[1], "xsaveok"))
		unsound_xsaveok();
	if (argc > 1 && !strncmp(argv[1], "xsavemt", 7)) {
		pthread_t t;

		if (pthread_create(&t, NULL, xsave_writer, NULL))
			return 1;
		if (!strcmp(argv[1], "xsavemt"))
			unsound_xsavemt();
		unsound_xsavemtok();
	}
	if (argc > 1 && !strcmp(argv[1], "frame")) {
		long a = unsound_fr(unknown_zero());
		long b = unsound_fresc(unknown_zero());
		long c = unsound_frok(unknown_zero());
		long d = unsound_fvla(unknown_zero());
		long x = unsound_frxmm(unknown_zero());
		long y = unsound_frxs();

		printf("frame %#lx %#lx %#lx %#lx %#lx %d\n", a, b, c, d, x,
		       y < 0);
		return a == 0x2222 && b == 0x2222 && c == 0x3333 &&
		       d == 0x8888 && x == 0x2222 && y < 0 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "regfr")) {
		long a = unsound_frb(unknown_zero());
		long b = unsound_frbok(unknown_zero());

		printf("regfr %#lx %#lx\n", a, b);
		return a == 0x4444 && b == 0x3333 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "sysfr")) {
		long v = 0x2222, a, b;
		int p[2];

		if (pipe(p) || write(p[1], &v, 8) != 8 ||
		    write(p[1], &v, 8) != 8)
			return 1;
		a = unsound_frs(p[0]);
		b = unsound_frsok(p[0], unknown_zero());
		printf("sysfr %#lx %#lx\n", a, b);
		return a == 0x2222 && b == 0x3333 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "pushmem")) {
		long a = unsound_pmt(unknown_zero());
		long b = unsound_pms(unknown_zero());
		long c = unsound_pmu(unknown_zero());

		printf("pushmem %#lx %#lx %#lx\n", a, b, c);
		return a == 0x6666 && b == 0x4444 && c == 0x3333 ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "jmptgt"))
		return jmptgt_case();
	if (argc > 1 && !strcmp(argv[1], "jmpsig"))
		return jmpsig_case();
	if (argc > 1 && !strcmp(argv[1], "saved")) {
		r = unsound_saved(unknown_zero());
		printf("saved %#lx\n", r);
		return r == 0x2222 ? 0 : 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	z = unknown_zero();
	if (sigsetjmp(env, 1) == 0) {
		/* jmp *%rax, rax unknown to the engine */
		__asm__ volatile("lea unsound_fault(%%rip), %%rax\n"
				 "add %0, %%rax\n"
				 "mov %1, %%rcx\n"
				 "mov $0x1234, %%edi\n"
				 "mov $0x5678, %%esi\n"
				 "mov $0x9abc, %%edx\n"
				 "jmp *%%rax\n"
				 : : "r"(z), "r"(zero_ptr)
				 : "rax", "rcx", "rdi", "rsi", "rdx", "memory");
	}
	round++;
	if (sigsetjmp(env, 1) == 0) {
		/* jmp *%rax, rax known */
		__asm__ volatile("lea unsound_fault(%%rip), %%rax\n"
				 "mov %0, %%rcx\n"
				 "mov $0x1235, %%edi\n"
				 "mov $0x5679, %%esi\n"
				 "jmp *%%rax\n"
				 : : "r"(zero_ptr)
				 : "rax", "rcx", "rdi", "rsi", "memory");
	}
	round++;
	if (sigsetjmp(env, 1) == 0) {
		/* call *%rax, rax unknown */
		__asm__ volatile("lea unsound_fault(%%rip), %%rax\n"
				 "add %0, %%rax\n"
				 "mov %1, %%rcx\n"
				 "mov $0x1236, %%edi\n"
				 "mov $0x567a, %%esi\n"
				 "call *%%rax\n"
				 : : "r"(z), "r"(zero_ptr)
				 : "rax", "rcx", "rdi", "rsi", "memory");
	}
	round++;
	if (sigsetjmp(env, 1) == 0) {
		/* push target; ret: a return with no call */
		__asm__ volatile("lea unsound_fault(%%rip), %%rax\n"
				 "add %0, %%rax\n"
				 "mov %1, %%rcx\n"
				 "mov $0x1237, %%edi\n"
				 "mov $0x567b, %%esi\n"
				 "push %%rax\n"
				 "ret\n"
				 : : "r"(z), "r"(zero_ptr)
				 : "rax", "rcx", "rdi", "rsi", "memory");
	}
	round++;
	if (sigsetjmp(env, 1) == 0) {
		/* A return to its call's site, where the next instruction
		 * faults; the call is thousands of instructions before it
		 * (small windows put it in an earlier window).
		 */
		__asm__ volatile("mov $3000, %%eax\n"
				 "mov %0, %%rcx\n"
				 "mov $0x1238, %%edi\n"
				 "mov $0x567c, %%esi\n"
				 "call unsound_spin\n"
				 "mov (%%rcx), %%rax\n"
				 : : "r"(zero_ptr)
				 : "rax", "rcx", "rdi", "rsi", "memory");
	}
	round++;
	printf("rounds %d\n", round);
	return round == 5 ? 0 : 1;
}
