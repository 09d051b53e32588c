// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 10's cases (tests/values/review10.sh, `make values-review10`):
 * programs that attack the premises of the values rules merged in
 * session 13 (thrwhy's PROT_WRITE mprotect, brk and rseq rules, mmap
 * without MAP_FIXED, exitsave's kept pushes on a shared stack, vfpair's
 * vector-only instructions, the pop fs fix).  Each mode is one case; all
 * gave 0 wrong values on main ee292eb (review10.sh says what each
 * checks; /work/notes/review10.md).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rawclone.h"

#define PAGE 0x20000000ul
#define PROT_RW (PROT_READ | PROT_WRITE)

/* A zero the engine does not know: (r | ~r) + 1 of getrandom's r, the
 * buffer cleared after (the engine knows rdtsc's results).
 */
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

/* A zero the engine does not know: whether two random words are equal
 * (sete after the compare; 2^-64 of a one).
 */
static uint64_t ozero(void)
{
	uint64_t a = urand(), b = urand(), z;

	__asm__ volatile("xor %%eax, %%eax\n\tcmp %2, %1\n\tsete %%al"
			 : "=&a"(z) : "r"(a), "r"(b) : "cc");
	return z;
}

static uint64_t uzero(void)
{
	volatile uint64_t r = 0;
	uint64_t z;

	if (getrandom((void *)&r, sizeof(r), 0) != sizeof(r))
		exit(1);
	z = r;
	r = 0;
	__asm__ volatile("mov %0, %%rdx\n\tnot %%rdx\n\t"
			 "or %%rdx, %0\n\tadd $1, %0"
			 : "+r"(z) : : "rdx");
	return z;
}

/* The load asked about: r12 holds the byte for three nops. */
static void load(void)
{
	__asm__ volatile("movzbq 0x20000000, %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : : "r12", "memory");
}

/* A read-only page at PAGE holding 0x66; the address of it through a
 * pipe (the engine knows no range of the calls made on it).
 */
static uintptr_t ro_setup(void)
{
	unsigned char *p;
	uintptr_t a = PAGE;
	int pfd[2];

	p = mmap((void *)PAGE, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)PAGE)
		exit(1);
	p[0] = 0x66 + uzero();
	mprotect(p, 4096, PROT_READ);
	if (pipe(pfd) || write(pfd[1], &a, sizeof(a)) != sizeof(a))
		exit(1);
	load();
	if (read(pfd[0], &a, sizeof(a)) != sizeof(a))
		exit(1);
	return a;
}

/* pkey: writable by mprotect, 0x77 stored, read-only again by
 * pkey_mprotect (pkey 0: as mprotect).
 */
static int pkey_case(void)
{
	uintptr_t a = ro_setup();

	mprotect((void *)a, 4096, PROT_RW);
	((volatile unsigned char *)a)[0] = 0x77;
	syscall(SYS_pkey_mprotect, a, 4096, PROT_READ, 0);
	return 0;
}

/* fixro: writable by mprotect, 0x77 stored, then an anonymous read-only
 * mapping MAP_FIXED over it (zeros).
 */
static int fixro_case(void)
{
	uintptr_t a = ro_setup();

	mprotect((void *)a, 4096, PROT_RW);
	((volatile unsigned char *)a)[0] = 0x77;
	return mmap((void *)a, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_FIXED, -1, 0) != (void *)a;
}

/* remapro: writable by mprotect, 0x77 stored, then mremap of another
 * read-only page over it (MREMAP_FIXED).
 */
static int remapro_case(void)
{
	uintptr_t a = ro_setup();
	void *q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	mprotect((void *)a, 4096, PROT_RW);
	((volatile unsigned char *)a)[0] = 0x77;
	return mremap(q, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED,
		      (void *)a) != (void *)a;
}

/* twice: writable twice by PROT_WRITE mprotects, 0x77 between, then
 * read-only by mprotect of a range the engine knows that only half
 * covers the page... (the page itself: PROT_READ with address known).
 */
static int twice_case(void)
{
	uintptr_t a = ro_setup();

	mprotect((void *)a, 4096, PROT_RW);
	((volatile unsigned char *)a)[0] = 0x77;
	mprotect((void *)a, 4096, PROT_RW | PROT_EXEC);
	return mprotect((void *)PAGE, 4096, PROT_READ);
}

/*
 * Anonymous memory whose contents a call changes while the engine sees
 * no write: a store of 0x55 at a known address, the call, then a mmap
 * without MAP_FIXED at that address (zeros), and the load (r12).
 */
static volatile unsigned char *hp;
static void loadhp(void)
{
	register volatile unsigned char *r15 __asm__("r15") = hp;

	__asm__ volatile("movzbq (%%r15), %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d" : : "r"(r15) : "r12", "memory");
}

/* brkmap: the heap's top page stored to, brk shrinks it away (raw brk,
 * its argument known), mmap without MAP_FIXED at its address.
 */
static int brkmap_case(void)
{
	char *base = sbrk(0), *top;

	if (sbrk(4 * 4096) == (void *)-1)
		return 1;
	top = (char *)(((uintptr_t)base + 4095) & ~4095ul) + 4096;
	hp = (unsigned char *)top;
	hp[0] = 0x55;
	syscall(SYS_brk, top);
	if (mmap(top, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
	    top)
		return 1;
	loadhp();
	return 0;
}

/* remapmap: a two-page mapping, 0x55 in its second page, mremap shrinks
 * it to one, mmap without MAP_FIXED at the second page's address.
 */
static int remapmap_case(void)
{
	char *m = mmap(NULL, 3 * 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	munmap(m + 2 * 4096, 4096);
	hp = (unsigned char *)m + 4096;
	hp[0] = 0x55;
	if (mremap(m, 2 * 4096, 4096, 0) != m)
		return 1;
	if (mmap(m + 4096, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0) != m + 4096)
		return 1;
	loadhp();
	return 0;
}

/* dontneed: 0x55 stored, madvise(MADV_DONTNEED) (zeros), load. */
static int dontneed_case(void)
{
	char *m = mmap(NULL, 2 * 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	hp = (unsigned char *)m + 4096;
	hp[0] = 0x55;
	madvise(m + 4096, 4096, MADV_DONTNEED);
	if (mmap(m + 2 * 4096, 4096, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0) == MAP_FAILED)
		return 1;
	loadhp();
	return 0;
}

/*
 * xstk: a thread whose stack is a global array (pthread_attr_setstack):
 * the main thread knows its address without any escape.  The thread
 * pushes rbx (a value read from a pipe) in xs_f and spins; the main
 * thread finds the value in the array and changes it; the thread ends
 * in exit_group.  rbx at the push is the pipe's value, the slot at the
 * end another.
 */
static char xstk[1 << 16] __attribute__((aligned(4096)));
static volatile uint64_t xv;
static volatile int xflag1, xflag2;
static int xexit;
int xpause, xspin;
void xs_f(uint64_t v);
__asm__(".text\n.globl xs_f\n.type xs_f,@function\nxs_f:\n"
	"\tpush %rbx\n\tmov %rdi, %rbx\n\tpush %rbx\n"
	"\tmovl $1, xflag1(%rip)\n"
	"\tcmpl $0, xpause(%rip)\n\tje 1f\n"
	"\txor %ebx, %ebx\n\txor %edi, %edi\n"
	"\tcmpl $0, xspin(%rip)\n\tje 2f\n"
	"3:\tpause\n\tjmp 3b\n"
	"2:\tmov $34, %eax\n\tsyscall\n\tjmp 2b\n"
	"1:\tcmpl $0, xflag2(%rip)\n\tje 1b\n"
	"\txor %ebx, %ebx\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n"
	".size xs_f, .-xs_f\n"
	".globl xs_g\n.type xs_g,@function\nxs_g:\n"
	"\tpush %rbx\n\tmov %rdi, %rbx\n\txor %edi, %edi\n\tcall exit\n"
	".size xs_g, .-xs_g\n");
void xs_g(uint64_t v);
void xs_h(uint64_t v);
__asm__(".globl xs_h\n.type xs_h,@function\nxs_h:\n"
	"\tpush %rbx\n\tmov %rdi, %rbx\n\tpush %rbx\n"
	"\tmovl $1, xflag1(%rip)\n"
	"\txor %ebx, %ebx\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n"
	".size xs_h, .-xs_h\n");

/* xstkx: the exit handler waits for the main thread. */
static void xs_handler(void)
{
	xflag1 = 1;
	while (!xflag2)
		__asm__ volatile("pause");
}

static void *xs_thread(void *arg)
{
	uint64_t v;

	(void)arg;
	while (!xv)
		sched_yield();
	v = xv;
	xv = 0;
	if (xexit) {
		atexit(xs_handler);
		xs_g(v);
	}
	xs_f(v);
	return NULL;
}

static int xstk_case(int change)
{
	pthread_attr_t at;
	pthread_t t;
	static volatile uint64_t xw;
	uint64_t z = ozero();
	size_t k;

	pthread_attr_init(&at);
	pthread_attr_setstack(&at, xstk, sizeof(xstk));
	pthread_create(&t, &at, xs_thread, NULL);
	xw = urand();
	xv = xw;
	while (xv)
		sched_yield();
	while (!xflag1)
		sched_yield();
	for (k = sizeof(xstk) - 8; k >= sizeof(xstk) - 8192; k -= 8)
		if (change && *(uint64_t *)(xstk + k) == xw)
			*(uint64_t *)(xstk + k + z) = 0x4242;
	xw = 0;
	xflag2 = 1;
	if (xpause) {
		usleep(100000);
		/* no copy of the value left in a register */
		__asm__ volatile("xor %%ebx, %%ebx\n\txor %%r12d, %%r12d\n\t"
				 "xor %%r13d, %%r13d\n\txor %%r14d, %%r14d\n\t"
				 "xor %%r15d, %%r15d\n\txor %%ebp, %%ebp\n"
				 EXIT_NOW : : : "rax", "rdi", "rbx", "r12",
				 "r13", "r14", "r15", "memory");
	}
	for (;;)
		pause();
	return 0;
}

/*
 * xjmp: exit() runs an atexit handler that longjmps back into main
 * (C11 7.22.4.4 leaves that undefined, but glibc does it); main then
 * calls xj_deep, whose local array lies where __run_exit_handlers
 * pushed main's caller's registers: it fills the array through an index
 * the engine does not know, and ends in exit_group.  The pushed slots
 * hold the array's bytes at the end, not the registers.
 */
static jmp_buf xjb;
static void xj_handler(void)
{
	longjmp(xjb, 1);
}

static void __attribute__((noinline, noreturn)) xj_deep(void)
{
	volatile unsigned char buf[1024];
	uint64_t z = uzero();
	size_t k;

	for (k = 0; k < sizeof(buf); k++)
		buf[k + z] = (unsigned char)(k * 7 + 1);
	__asm__ volatile("mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall"
			 : : "r"(buf) : "rax", "rdi", "memory");
	__builtin_unreachable();
}

static int xjmp_case(void)
{
	if (setjmp(xjb))
		xj_deep();
	atexit(xj_handler);
	exit(0);
}

/*
 * rseqg: a raw clone child (no glibc rseq) registers rseq(2) on a
 * global struct whose address the engine does not know (&rs plus an
 * unknown zero); the kernel writes the cpu number into its cpu_id, over
 * the 0x55555555 the main thread stored there before; the main thread
 * loads it (r12) after the child says it registered.
 */
struct rs_area {
	uint32_t cpu_id_start, cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
} __attribute__((aligned(32)));
struct rs_area rs;
uint64_t rs_ptr;
volatile uint64_t rs_done;
RAWCLONE_STACK(rs);
void rs_spawn(void (*code)(void));
void rs_child(void);
__asm__(RAWCLONE_SPAWN(rs)
	".text\nrs_child:\n"
	"\tmov rs_ptr(%rip), %rdi\n\tmov $32, %esi\n\txor %edx, %edx\n"
	"\tmov $0x53053053, %ecx\n\tmov $334, %eax\n\tsyscall\n"
	"\tmov %rax, rs_done(%rip)\n\torq $1, rs_done(%rip)\n"
	"1:\tpause\n\tjmp 1b\n");

static int rseqg_case(void)
{
	rs.cpu_id = 0x55555555;
	rs_ptr = (uint64_t)&rs + uzero();
	rs_spawn(rs_child);
	while (!rs_done)
		__asm__ volatile("pause");
	__asm__ volatile("mov rs+4(%%rip), %%r12d\n\tnop\n\tnop\n\tnop\n\t"
			 EXIT_NOW : : : "r12", "rax", "rdi", "memory");
	return 0;
}

/*
 * vtaint: rsp laundered through an EVEX register (xmm16: capstone 4
 * decodes no EVEX instruction; rcv_decode.c's vector_only() takes it)
 * and published in a global; a callee stores 0x77 through it into the
 * caller's pushed rbx slot, and the pop loads it.
 */
uint64_t vt_ptr, vt_out;
void vt_f(uint64_t v);
__asm__(".text\n.globl vt_f\n.type vt_f,@function\nvt_f:\n"
	"\tpush %rbx\n\tmov %rdi, %rbx\n\tpush %rbx\n"
	"\tvmovq %rsp, %xmm0\n"
	"\tvmovdqa64 %xmm0, %xmm16\n"
	"\tvmovdqa64 %xmm16, %xmm1\n"
	"\tvmovq %xmm1, %rax\n"
	"\tmov %rax, vt_ptr(%rip)\n"
	"\tcall vt_g\n"
	"\tpop %rbx\n"
	"\tmov %rbx, vt_out(%rip)\n"
	"\tpop %rbx\n\tret\n"
	"vt_g:\n\tmov vt_ptr(%rip), %rax\n\tmovq $0x77, (%rax)\n"
	"\tmovq $0, vt_ptr(%rip)\n\txor %eax, %eax\n\tret\n"
	".size vt_f, .-vt_f\n");

/*
 * pushw: 16-bit pushes and pops (operand-size prefix 66: rsp moves by 2,
 * SDM PUSH/POP "Operand Size 16"): popw %fs, pushw %fs (66 0f a1/a0, the
 * lead's pop fs fix takes 8), pushw/popw of a general register and
 * pushw of an immediate; rsp after each known at the end.
 */
uint64_t pw_out[4];
static void pushw_case(void)
{
	__asm__ volatile(
		"mov %%rsp, %%r8\n\t"
		"pushw %%fs\n\tpopw %%fs\n\t"
		"mov %%rsp, %%r9\n\t"
		"pushw %%fs\n\t"
		"mov %%rsp, %%r10\n\t"
		"popw %%fs\n\t"
		"pushw %%gs\n\tpopw %%gs\n\t"
		"mov %%rsp, %%r11\n\t"
		"pushw $0x1234\n\tpopw %%bx\n\t"
		"pushw %%ax\n\tpopw %%ax\n\t"
		"mov %%rsp, %%rcx\n\t"
		"mov %%r8, pw_out(%%rip)\n\t"
		"xor %%r8d, %%r8d\n\txor %%r9d, %%r9d\n\t"
		"xor %%r10d, %%r10d\n\txor %%r11d, %%r11d\n\t"
		"xor %%ecx, %%ecx\n\txor %%ebx, %%ebx\n\t"
		EXIT_NOW : : : "rax", "rbx", "rcx", "rdi", "r8", "r9", "r10",
		"r11", "memory");
}

/*
 * brkshz: a page of the program's own file mapped read-only inside the
 * heap and loaded (r12), then brk(the old break) unmaps it and mmap
 * without MAP_FIXED, MAP_SHARED | MAP_ANONYMOUS (no file, but the maps
 * name it "/dev/zero (deleted)") maps zeros there.
 */
static unsigned char *bz_page;
static void __attribute__((noreturn)) bz_load(char *base)
{
	register unsigned char *r15 __asm__("r15") = bz_page;

	__asm__ volatile("movzbq (%%r15), %%r12\n\tnop\n\tnop\n\tnop\n\t"
			 "xor %%r12d, %%r12d\n\t"
			 "mov $12, %%eax\n\tmov %[b], %%rdi\n\tsyscall\n\t"
			 "mov $9, %%eax\n\tmov %%r15, %%rdi\n\t"
			 "mov $4096, %%esi\n\tmov $1, %%edx\n\t"
			 "mov $0x21, %%r10d\n\tmov $-1, %%r8\n\t"
			 "xor %%r9d, %%r9d\n\tsyscall\n\t"
			 "mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall"
			 : : "r"(r15), [b] "r"(base)
			 : "rax", "rdi", "rsi", "rdx", "r8", "r9", "r10",
			   "r11", "rcx", "r12", "memory");
	__builtin_unreachable();
}

static int brkshz_case(void)
{
	int exe = open("/proc/self/exe", O_RDONLY);
	char *base = sbrk(0), *top;
	off_t off;

	if (exe < 0 || base == (void *)-1 || sbrk(4 * 4096) == (void *)-1)
		return 1;
	top = (char *)(((uintptr_t)base + 4095) & ~4095ul) + 4096;
	/* a page of the file whose first byte is not 0 */
	for (off = 4096; off < 64 * 4096; off += 4096) {
		bz_page = mmap(top, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
			       exe, off);
		if (bz_page != (unsigned char *)top)
			return 1;
		if (bz_page[0])
			break;
	}
	if (!bz_page[0])
		return 7;
	bz_load(base);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "pkey"))
		return pkey_case();
	if (!strcmp(m, "fixro"))
		return fixro_case();
	if (!strcmp(m, "remapro"))
		return remapro_case();
	if (!strcmp(m, "twice"))
		return twice_case();
	if (!strcmp(m, "brkmap"))
		return brkmap_case();
	if (!strcmp(m, "remapmap"))
		return remapmap_case();
	if (!strcmp(m, "dontneed"))
		return dontneed_case();
	if (!strcmp(m, "brkshz"))
		return brkshz_case();
	if (!strcmp(m, "pushw"))
		pushw_case();
	if (!strcmp(m, "vtaint")) {
		vt_f(urand());
		__asm__ volatile(EXIT_NOW : : : "rax", "rdi", "memory");
	}
	if (!strcmp(m, "xsolo"))
		xs_h(uzero() + 0x1234567);
	if (!strcmp(m, "rseqg"))
		return rseqg_case();
	if (!strcmp(m, "xjmp"))
		return xjmp_case();
	xexit = !strncmp(m, "xstkx", 5);
	xpause = !strncmp(m, "xstkp", 5) || !strncmp(m, "xstks", 5);
	xspin = !strncmp(m, "xstks", 5);
	if (!strncmp(m, "xstk", 4))
		return xstk_case(!strstr(m, "ok"));
	return 2;
}
