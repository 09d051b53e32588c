// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 11's cases (tests/values/review11.sh, `make values-review11`):
 * programs that attack the rules of sessions 13-14: the callee argument
 * and exitsave's end rule on a stack that is a C object (xa to xp), the
 * exit's writes (exc32), rseq over a slot (rsq), the watch proofs and
 * the knowledge fixpoint for rwatch (fixp, pwr, pwu), the recorder's
 * SIGTRAP mask hiding (trap*).  Each mode is one case; review11.sh says
 * what each checks and what main gives (/work/notes/review11.md).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rawclone.h"

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

/* A zero the engine does not know: whether two random words are equal
 * (sete after the compare; review10.c's ozero()).
 */
static uint64_t ozero(void)
{
	uint64_t a = urand(), b = urand(), z;

	__asm__ volatile("xor %%eax, %%eax\n\tcmp %2, %1\n\tsete %%al"
			 : "=&a"(z) : "r"(a), "r"(b) : "cc");
	return z;
}

/* a value the engine does not know: K xor -(unknown zero) */
static uint64_t uval(uint64_t k)
{
	return k ^ (0 - ozero());
}

/*
 * xa: a raw clone child runs on xa_cstack, a global array (the main
 * thread reaches it by the array, no escape needed); in xa_f, a call
 * still running at the end, it pushes rbx (a value the engine does not
 * know: xg, stored by the main thread) and ends in exit_group with no
 * system call between.  Meanwhile the main thread finds the value in
 * the array and stores 0x4242 over it (through an unknown zero added to
 * the address).  rbx at the push is xg's value; the slot at the end
 * holds 0x4242.  xaok: the same without the store (rbx known at the
 * push by the rule, right).
 * xb: the child publishes its rsp (xp) before the call; the main thread
 * stores 0x4343 at xp - 16 (the slot of the callee's push).
 */
volatile uint64_t xg, xf1, xf2;
RAWCLONE_STACK(xa);
void xa_spawn(void (*code)(void));
void xa_child(void);
__asm__(RAWCLONE_SPAWN(xa)
	".text\nxa_child:\n"
	"\tcall xa_f\n"
	"xa_f:\n"
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"
	"\txor %ebx, %ebx\n"
	"\tmovq $1, xf1(%rip)\n"
	"1:\tcmpq $0, xf2(%rip)\n\tje 1b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

volatile uint64_t xp;
RAWCLONE_STACK(xb);
void xb_spawn(void (*code)(void));
void xb_child(void);
__asm__(RAWCLONE_SPAWN(xb)
	".text\nxb_child:\n"
	"\tmov %rsp, xp(%rip)\n"
	"\tcall xb_f\n"
	"xb_f:\n"
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"
	"\txor %ebx, %ebx\n"
	"\tmovq $1, xf1(%rip)\n"
	"1:\tcmpq $0, xf2(%rip)\n\tje 1b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

static int xb_case(void)
{
	uint64_t v = uval(0x1122334455667788ull), z = ozero();

	xg = v;
	xb_spawn(xb_child);
	while (!xf1)
		__asm__ volatile("pause");
	xg = 0;
	v = 0;
	__asm__ volatile("" : "+r"(v));
	*(volatile uint64_t *)(xp - 16 + z) = 0x4343;
	xp = 0;
	xf2 = 1;
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

static int xa_case(int change)
{
	uint64_t v = uval(0x1122334455667788ull), z = ozero();
	size_t k;

	xg = v;
	xa_spawn(xa_child);
	while (!xf1)
		__asm__ volatile("pause");
	xg = 0;
	for (k = sizeof(xa_cstack) - 8; k >= sizeof(xa_cstack) - 256; k -= 8)
		if (change && *(volatile uint64_t *)(xa_cstack + k) == v)
			*(volatile uint64_t *)(xa_cstack + k + z) = 0x4242;
	v = 0;
	__asm__ volatile("" : "+r"(v));
	xf2 = 1;
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

/*
 * xc: as xa, but the child pops rbx after the main thread's store and
 * keeps it to its exit_group (a pair, not a push kept to the end): rbx
 * is 0x4444 after the pop, xg's value before the push.
 */
RAWCLONE_STACK(xc);
void xc_spawn(void (*code)(void));
void xc_child(void);
__asm__(RAWCLONE_SPAWN(xc)
	".text\nxc_child:\n"
	"\tcall xc_f\n"
	"xc_f:\n"
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"
	"\txor %ebx, %ebx\n"
	"\tmovq $1, xf1(%rip)\n"
	"1:\tcmpq $0, xf2(%rip)\n\tje 1b\n"
	"\tpop %rbx\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

static int xc_case(void)
{
	uint64_t v = uval(0x1122334455667788ull), z = ozero();
	size_t k;

	xg = v;
	xc_spawn(xc_child);
	while (!xf1)
		__asm__ volatile("pause");
	xg = 0;
	for (k = sizeof(xc_cstack) - 8; k >= sizeof(xc_cstack) - 256; k -= 8)
		if (*(volatile uint64_t *)(xc_cstack + k) == v)
			*(volatile uint64_t *)(xc_cstack + k + z) = 0x4444;
	v = 0;
	__asm__ volatile("" : "+r"(v));
	xf2 = 1;
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

/*
 * xd (one thread): main moves rsp onto xd_stack, a global array (as
 * coroutine libraries run code on a buffer they allocated), and calls
 * xd_f, which pushes rbx (xg, not known to the engine), stores 0x4545
 * into the pushed slot through the array's address plus xz (an unknown
 * zero: a store of unknown address, not derived from rsp), pops rbx and
 * ends in exit_group: rbx is 0x4545 after the pop, xg's value before the
 * push.
 */
char xd_stack[65536] __attribute__((aligned(16)));
volatile uint64_t xz;
void xd_run(void);
__asm__(".text\nxd_run:\n"
	"\tlea xd_stack+65536(%rip), %rsp\n"
	"\tcall xd_f\n"
	"xd_f:\n"
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"
	"\tlea xd_stack+65536-16(%rip), %rax\n"
	"\tadd xz(%rip), %rax\n"
	"\tmovq $0x4545, (%rax)\n"
	"\tpop %rbx\n"
	"\txor %eax, %eax\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * xdw (GDB, watch): xd's wrong value turned into a missed write.  rbx =
 * &xw_t + xz (xz an unknown zero), `movb $0x11, (%rbx)` writes xw_t,
 * then xd's push, the slot rewritten through the array with &xw_o, the
 * pop, exit_group: the engine takes rbx before the push as &xw_o, so the
 * store at xdw_st seems to write xw_o, and `watch xw_t` passes it.
 */
unsigned char xw_t[64], xw_o[64];
void xdw_run(void);
__asm__(".text\nxdw_run:\n"
	"\tlea xd_stack+65536(%rip), %rsp\n"
	"\tcall xdw_f\n"
	"xdw_f:\n"
	"\tlea xw_t(%rip), %rbx\n"
	"\tadd xz(%rip), %rbx\n"
	".globl xdw_st\nxdw_st:\n"
	"\tmovb $0x11, (%rbx)\n"
	"\tpush %rbx\n"
	"\tlea xd_stack+65536-16(%rip), %rax\n"
	"\tadd xz(%rip), %rax\n"
	"\tlea xw_o(%rip), %rcx\n"
	"\tmov %rcx, (%rax)\n"
	"\txor %ecx, %ecx\n"
	"\tpop %rbx\n"
	"\txor %eax, %eax\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * xe (one thread): xd's stack, a push kept to the end (exitsave's rule),
 * the slot written by the kernel: read(2) from a pipe holding
 * 0x4646464646464646 into xe_ptr (the slot's address, a global set
 * before the call), then exit_group.  rbx at the push is xg's value.
 */
uint64_t xe_ptr;
int xe_fd;
void xe_run(void);
__asm__(".text\nxe_run:\n"
	"\tlea xd_stack+65536(%rip), %rsp\n"
	"\tcall xe_f\n"
	"xe_f:\n"
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"
	"\txor %ebx, %ebx\n"
	"\tmov xe_fd(%rip), %edi\n"
	"\tmov xe_ptr(%rip), %rsi\n"
	"\tmov $8, %edx\n"
	"\txor %eax, %eax\n\tsyscall\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * xp: xc with an ordinary pthread_create thread on the stack glibc
 * mapped for it: the main thread learns the stack's range from
 * pthread_getattr_np() and pthread_attr_getstack() (no escape in the
 * thread's history) before the thread calls xp_f, finds the pushed
 * value there and stores 0x4747 over it; the thread pops rbx and ends
 * in exit_group.
 */
void xp_f(void);
__asm__(".text\nxp_f:\n"
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"
	"\txor %ebx, %ebx\n"
	"\tmovq $1, xf1(%rip)\n"
	"1:\tcmpq $0, xf2(%rip)\n\tje 1b\n"
	"\tpop %rbx\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

static volatile int xp_go;
static void *xp_thread(void *arg)
{
	(void)arg;
	while (!xp_go)
		__asm__ volatile("pause");
	xp_f();
	return NULL;
}

static int xp_case(void)
{
	uint64_t v = uval(0x1122334455667788ull), z = ozero();
	pthread_attr_t a;
	pthread_t t;
	void *lo;
	size_t sz, k;
	char *top;

	xg = v;
	if (pthread_create(&t, NULL, xp_thread, NULL))
		return 3;
	if (pthread_getattr_np(t, &a) || pthread_attr_getstack(&a, &lo, &sz))
		return 4;
	top = (char *)lo + sz;
	xp_go = 1;
	while (!xf1)
		__asm__ volatile("pause");
	xg = 0;
	for (k = 8; k < 65536; k += 8)
		if (*(volatile uint64_t *)(top - k) == v) {
			*(volatile uint64_t *)(top - k + z) = 0x4747;
			break;
		}
	v = 0;
	__asm__ volatile("" : "+r"(v));
	xf2 = 1;
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

/*
 * rsq: a raw clone child (no glibc rseq) registers an rseq area (32
 * bytes, rseq_cs 0) at xr_cstack's top - 64; then calls xr_f, which
 * makes an 8-byte local (the area's rseq_cs, 0) and pushes rbx (xg, a
 * value the engine does not know) at the area's cpu_id_start and
 * cpu_id: the kernel rewrites them with the CPU number whenever the
 * child is scheduled (each recorder step), so the slot at the end holds
 * the CPU twice, not rbx.  The child spins a while and ends in
 * exit_group, no system call after the push.
 */
RAWCLONE_STACK(xr);
void xr_spawn(void (*code)(void));
void xr_child(void);
__asm__(RAWCLONE_SPAWN(xr)
	".text\nxr_child:\n"
	"\tlea -64(%rsp), %rdi\n"
	"\tmov $32, %esi\n\txor %edx, %edx\n"
	"\tmov $0x53053053, %ecx\n\tmov $334, %eax\n\tsyscall\n"
	"\ttest %rax, %rax\n\tjnz 9f\n"
	"\tlea -40(%rsp), %rsp\n"	/* the call's return at top - 48 */
	"\tcall xr_f\n"
	"xr_f:\n"
	"\tsub $8, %rsp\n"		/* rseq_cs: top - 56, zero */
	"\tmov xg(%rip), %rbx\n"
	"\tpush %rbx\n"		/* top - 64: cpu_id_start, cpu_id */
	"\txor %ebx, %ebx\n"
	"\tmov $1000, %ecx\n"
	"1:\tdec %ecx\n\tjnz 1b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n"
	"9:\tmov $231, %eax\n\tmov $7, %edi\n\tsyscall\n");

static int xr_case(void)
{
	uint64_t v = uval(0x1122334455667788ull);

	xg = v;
	v = 0;
	__asm__ volatile("" : "+r"(v));
	xr_spawn(xr_child);
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

/*
 * exc32: exitrob.c's thread exit with its robust list registered by the
 * 32-bit set_robust_list (int $0x80, eax 311: compat_robust_list, a
 * list get_robust_list(2) of a 64-bit caller does not return) on a page
 * under 4 GiB (head at EC_PAGE: next, futex_offset 8, list_op_pending;
 * the entry at +16, its word at +24 holding the child's tid).  At the
 * child's exit(2) the kernel's compat_exit_robust_list() sets
 * FUTEX_OWNER_DIED in the word.  The main thread loads the word before
 * (ecx: the tid) and after the exit (r12: 0x40000000), and exr_ctid
 * (r13: 0).  Taking the exit to write only its clear_child_tid word
 * makes rcx the end's 0x40000000.
 */
#define EC_PAGE 0x10000000ul
__asm__(
	".data\n"
	".balign 64\n"
	"ec_ctid:\t.long 0\n\t.long 0\n"
	"ec_ready:\t.long 0\n\t.long 0\n"
	"ec_go:\t.long 0\n\t.long 0\n"
	".bss\n"
	".balign 16\n"
	"ec_cstack:\t.skip 65536\n"
	".text\n"
	"ec_child:\n"
	"\tmov $186, %eax\n\tsyscall\n"
	"\tmov %eax, 0x10000018\n"
	"\tmov $0x10000000, %ebx\n\tmov $12, %ecx\n"
	"\tmov $311, %eax\n\tint $0x80\n"
	"\ttest %eax, %eax\n\tjnz 5f\n"
	"\tmovl $1, ec_ready(%rip)\n"
	"1:\tcmpl $0, ec_go(%rip)\n\tjne 2f\n"
	"\tmov $24, %eax\n\tsyscall\n\tjmp 1b\n"
	"2:\txor %edi, %edi\n\tmov $60, %eax\n\tsyscall\n"
	"5:\tmov $9, %edi\n\tmov $231, %eax\n\tsyscall\n"
	".globl ec_run\n"
	"ec_run:\n"
	"\tmovl $5, ec_ctid(%rip)\n"
	"\tmov $0x210f00, %edi\n"
	"\tlea ec_cstack+65536(%rip), %rsi\n"
	"\txor %edx, %edx\n"
	"\tlea ec_ctid(%rip), %r10\n"
	"\txor %r8d, %r8d\n"
	"\tmov $56, %eax\n\tsyscall\n"
	"\ttest %rax, %rax\n\tjz ec_child\n"
	"1:\tcmpl $0, ec_ready(%rip)\n\tjne 2f\n"
	"\tmov $24, %eax\n\tsyscall\n\tjmp 1b\n"
	"2:\tmov 0x10000018, %ecx\n"
	"\tmovl $1, ec_go(%rip)\n"
	"3:\tmov ec_ctid(%rip), %edx\n\ttest %edx, %edx\n\tjz 4f\n"
	"\tlea ec_ctid(%rip), %rdi\n\txor %esi, %esi\n"
	"\txor %r10d, %r10d\n\tmov $202, %eax\n\tsyscall\n\tjmp 3b\n"
	"4:\tmov 0x10000018, %r12d\n"
	"\tmov ec_ctid(%rip), %r13d\n"
	"\txor %edi, %edi\n\tmov $231, %eax\n\tsyscall\n"
	"\thlt\n");
void ec_run(void);

static int exc32_case(void)
{
	uint32_t *p = mmap((void *)EC_PAGE, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			   -1, 0);

	if (p != (void *)EC_PAGE)
		return 3;
	p[0] = (uint32_t)EC_PAGE + 16;	/* head.next: the entry */
	p[1] = 8;			/* futex_offset */
	p[2] = 0;			/* list_op_pending */
	p[4] = (uint32_t)EC_PAGE;	/* entry.next: the head */
	ec_run();
	return 1;
}

/*
 * fixp (GDB, rwatch): a load of FX_PAGE's first byte whose address the
 * engine knows only bit by bit: rax = FX_PAGE | rcx, rcx a value set
 * 20,000 instructions before (a register at the window's start the
 * window never shows), then `and $FX_PAGE, %rax`: every bit either
 * known set by the constant or cleared by the mask, so rax is FX_PAGE
 * (rcv_sem's known bits), while watch_know.c's fixpoint takes or and and
 * as computed from all parents (rcx secret: the address too).  Then
 * 400,000 instructions (the load in a far window of a scan from the
 * end) and exit_group.  fixpd: the same with the load 300 instructions
 * before the end (a near window, the engine's own).
 */
#define FX_PAGE 0x21000000ul
void fx_run(uint64_t v, uint64_t n);
__asm__(".text\nfx_run:\n"
	"\tmov %rdi, %rcx\n"
	"\tmov $10000, %r8d\n"
	"1:\tdec %r8d\n\tjnz 1b\n"
	"\tmov $0x21000000, %eax\n"
	"\tor %rcx, %rax\n"
	"\tand $0x21000000, %rax\n"
	".globl fx_load\nfx_load:\n"
	"\tmovzbl (%rax), %edx\n"
	"\txor %ecx, %ecx\n\txor %eax, %eax\n\txor %edx, %edx\n"
	"\txor %edi, %edi\n"
	"2:\tdec %rsi\n\tjnz 2b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

static int fixp_case(uint64_t n)
{
	unsigned char *p = mmap((void *)FX_PAGE, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS |
				MAP_FIXED_NOREPLACE, -1, 0);

	if (p != (void *)FX_PAGE)
		return 3;
	p[0] = 0x5a;
	fx_run(uval(0x0123456789abcdefull), n);
	return 1;
}

/*
 * pwr, pwrd (GDB, rwatch): watch_proof.c's step() moves rsp by 8 for
 * any push of an immediate and any pop, but `pushw $imm` and `popw %ax`
 * (operand-size prefix) move it by 2.  On pw_stack (a global, so the
 * bytes have a name): pushw $0x1234, `movzwl (%rsp), %eax` (pw_load:
 * reads pw_stack + 4094), popw %ax, then 400,000 instructions (pwr: a
 * far window of a scan from the end) or 300 (pwrd), exit_group.
 * `rwatch` on pw_stack[4094] must stop at pw_load.
 */
char pw_stack[4096] __attribute__((aligned(16)));
void pw_run(uint64_t n);
__asm__(".text\npw_run:\n"
	"\tmov %rsp, %r9\n"
	"\tlea pw_stack+4096(%rip), %rsp\n"
	"\tpushw $0x1234\n"
	".globl pw_load\npw_load:\n"
	"\tmovzwl (%rsp), %eax\n"
	"\tpopw %ax\n"
	"\tmov %r9, %rsp\n"
	"\txor %eax, %eax\n"
	"2:\tdec %rdi\n\tjnz 2b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * pwu, pwud (GDB, rwatch): four `pushw $imm` and one 8-byte pop leave
 * rsp where it was (watch_proof.c's step(): 24 bytes lower); then
 * `movzbl -16(%rsp), %eax` (pwu_load) reads pw_stack + 4080, rsp kept
 * in rbx to the end (the engine learns rsp there backward); 400,000
 * (pwu) or 300 (pwud) instructions before exit_group.  `rwatch` on
 * pw_stack[4080] must stop at pwu_load in every mode (its address is
 * known).
 */
void pwu_run(uint64_t n);
__asm__(".text\npwu_run:\n"
	"\tmov %rsp, %r9\n"
	"\tlea pw_stack+4096(%rip), %rsp\n"
	"\tpushw $1\n\tpushw $2\n\tpushw $3\n\tpushw $4\n"
	"\tpop %rax\n"
	".globl pwu_load\npwu_load:\n"
	"\tmovzbl -16(%rsp), %eax\n"
	"\tmov %rsp, %rbx\n"
	"\tmov %r9, %rsp\n"
	"\txor %eax, %eax\n"
	"2:\tdec %rdi\n\tjnz 2b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * c3 (GDB, watch): clone3(2)'s kernel writes (rcv_sys.c
 * sys_mem_args(): struct clone_args, flags at 0, pidfd 8, child_tid 16,
 * parent_tid 24).  c3_sa: CLONE_VM | FS | FILES | SIGHAND | THREAD |
 * SYSVSEM | PARENT_SETTID | CHILD_SETTID: the tid at c3_ptid (in the
 * call) and c3_ctid (the child's, before its first instruction); c3_sb:
 * CLONE_VM | PIDFD | CHILD_SETTID, SIGCHLD (a process sharing the
 * memory): the pidfd at c3_pidfd, the tid at c3_ctid2.  The first four
 * words of each struct are loaded before its call into registers kept
 * to the end (the engine knows shared memory only at loads whose values
 * it knows).  Each child exits at once; `watch` on each word must stop
 * at its clone3 both ways.  c3t: the first call alone (one process).
 */
__asm__(".data\n.balign 8\n"
	"c3_a:\t.quad 0x1150f00, 0, c3_ctid, c3_ptid, 0\n"
	"\t.quad c3_stk, 4096, 0, 0, 0, 0\n"
	"c3_b:\t.quad 0x1001100, c3_pidfd, c3_ctid2, 0, 17\n"
	"\t.quad c3_stk2, 4096, 0, 0, 0, 0\n"
	".globl c3_ptid, c3_ctid, c3_pidfd, c3_ctid2\n"
	"c3_ptid:\t.long 0\nc3_ctid:\t.long 0\n"
	"c3_pidfd:\t.long 0\nc3_ctid2:\t.long 0\n"
	".bss\n.balign 16\nc3_stk:\t.skip 4096\nc3_stk2:\t.skip 4096\n"
	".text\nc3_run:\n"
	"\tlea c3_a(%rip), %rdi\n\tmov $88, %esi\n\tmov $435, %eax\n"
	"\tmov (%rdi), %r12\n\tmov 8(%rdi), %r13\n"
	"\tmov 16(%rdi), %r14\n\tmov 24(%rdi), %r15\n"
	".globl c3_sa\nc3_sa:\n"
	"\tsyscall\n"
	"\ttest %rax, %rax\n\tjz 9f\n"
	"\tcmpl $0, c3_onlya(%rip)\n\tjne 8f\n"
	"\tlea c3_b(%rip), %rdi\n\tmov $88, %esi\n\tmov $435, %eax\n"
	"\tmov (%rdi), %rbx\n\tmov 8(%rdi), %rbp\n"
	"\tmov 16(%rdi), %r9\n\tmov 24(%rdi), %r10\n"
	".globl c3_sb\nc3_sb:\n"
	"\tsyscall\n"
	"\ttest %rax, %rax\n\tjz 9f\n"
	"8:\tmov $2000, %ecx\n"
	"1:\tdec %ecx\n\tjnz 1b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n"
	"9:\tmov $60, %eax\n\txor %edi, %edi\n\tsyscall\n");
void c3_run(void);
int c3_onlya;

/*
 * trapblk: SIGTRAP (and SIGUSR2) blocked by sigprocmask, then read back
 * through rt_sigprocmask and /proc/self/status's SigBlk, and by a thread
 * that inherited the mask through its own rt_sigprocmask and
 * /proc/self/task/TID/status.  rt_sigprocmask must give the mask exactly
 * (the recorder shows the bit it hides).  SigBlk must too, but under the
 * software recorder it cannot: the kernel's mask may not hold SIGTRAP
 * while the thread is single-stepped (record/emu_trap.c, a step's forced
 * SIGTRAP would unblock it and reset the handler; docs/recorder.md), so
 * with "hidden" SigBlk must be the mask without SIGTRAP's bit, every
 * other bit exact.  Prints "ok" or what differs.
 */
static unsigned long long proc_sigblk(const char *path)
{
	char line[256];
	unsigned long long v = ~0ull;
	FILE *f = fopen(path, "r");

	if (!f)
		return ~0ull;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

static unsigned long long cur_mask(void)
{
	unsigned long long o = 0;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &o, 8);
	return o;
}

static unsigned long long tb_m, tb_p;

static void *tb_thread(void *a)
{
	char path[64];

	(void)a;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status",
		 (long)syscall(SYS_gettid));
	tb_m = cur_mask();
	tb_p = proc_sigblk(path);
	return NULL;
}

static int tb_cmp(const char *what, unsigned long long got,
		  unsigned long long want)
{
	if (got == want)
		return 0;
	printf("%s %llx, want %llx\n", what, got, want);
	return 1;
}

static int trapblk_case(int hidden)
{
	unsigned long long want = 1ull << (SIGTRAP - 1) |
				  1ull << (SIGUSR2 - 1), blk = want, m, p;
	pthread_t th;
	sigset_t s;
	int bad = 0;

	if (hidden)
		blk &= ~(1ull << (SIGTRAP - 1));
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	sigaddset(&s, SIGUSR2);
	sigprocmask(SIG_BLOCK, &s, NULL);
	m = cur_mask();
	p = proc_sigblk("/proc/self/status");
	if (pthread_create(&th, NULL, tb_thread, NULL) ||
	    pthread_join(th, NULL))
		return 3;
	bad |= tb_cmp("rt_sigprocmask", m, want);
	bad |= tb_cmp("/proc/self/status SigBlk", p, blk);
	bad |= tb_cmp("thread rt_sigprocmask", tb_m, want);
	bad |= tb_cmp("thread /proc/self/task/TID/status SigBlk", tb_p, blk);
	if (!bad)
		printf("ok\n");
	return 0;
}

/*
 * trappend: SIGTRAP blocked, a handler installed, tgkill(SIGTRAP) to
 * itself (raw: glibc's raise() changes the mask around it): the signal
 * must stay pending (sigpending) and not run the handler; unblocked, the
 * handler runs once.
 */
static volatile int tp_got;
static void tp_handler(int sig)
{
	(void)sig;
	tp_got++;
}

static int trappend_case(void)
{
	struct sigaction sa;
	sigset_t s, p;
	int pend, before;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tp_handler;
	sigaction(SIGTRAP, &sa, NULL);
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	sigprocmask(SIG_BLOCK, &s, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGTRAP);
	sigpending(&p);
	pend = sigismember(&p, SIGTRAP);
	before = tp_got;
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	if (pend == 1 && before == 0 && tp_got == 1)
		printf("ok\n");
	else
		printf("blocked: handler ran %d, pending %d; unblocked: "
		       "handler ran %d (want 0, 1, 1)\n", before, pend,
		       tp_got);
	return 0;
}

/*
 * trap32: a SIGTRAP handler installed, SIGTRAP blocked by the 32-bit
 * rt_sigprocmask (int $0x80, eax 175, the set on a page under 4 GiB),
 * the mask read back (64-bit), unblocked, int3: the handler must run
 * once.  record/emu_trap.c's emu_trap_strip() strips only behind
 * SYSCALL: the step's forced SIGTRAP at the call's exit finds SIGTRAP
 * blocked and resets the handler (force_sig_info_to_task()).
 */
static volatile int t32_got;
static void t32_handler(int sig)
{
	(void)sig;
	t32_got++;
}

static int trap32_case(void)
{
	uint64_t *pg = mmap((void *)0x12000000, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
	struct sigaction sa;
	sigset_t none;
	unsigned long long m;
	long r;

	if (pg != (void *)0x12000000)
		return 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = t32_handler;
	sigaction(SIGTRAP, &sa, NULL);
	pg[0] = 1ull << (SIGTRAP - 1);
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(175), "b"(SIG_BLOCK),
			 "c"(pg), "d"(0), "S"(8) : "memory");
	m = cur_mask();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	printf("blocked: %ld %llx\n", r, m);
	fflush(stdout);
	__asm__ volatile("int3");
	if (r == 0 && m == pg[0] && t32_got == 1)
		printf("ok\n");
	else
		printf("handler ran %d\n", t32_got);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "xa"))
		return xa_case(1);
	if (!strcmp(m, "xaok"))
		return xa_case(0);
	if (!strcmp(m, "xb"))
		return xb_case();
	if (!strcmp(m, "xc"))
		return xc_case();
	if (!strcmp(m, "xd")) {
		xg = uval(0x1122334455667788ull);
		xz = ozero();
		xd_run();
	}
	if (!strcmp(m, "xdw")) {
		xz = ozero();
		xdw_run();
	}
	if (!strcmp(m, "xe")) {
		int pfd[2];
		uint64_t w = 0x4646464646464646ull;

		if (pipe(pfd) || write(pfd[1], &w, 8) != 8)
			return 3;
		xe_fd = pfd[0];
		xg = uval(0x1122334455667788ull);
		xe_ptr = (uint64_t)(xd_stack + sizeof(xd_stack) - 16) +
			 ozero();
		xe_run();
	}
	if (!strcmp(m, "xp"))
		return xp_case();
	if (!strcmp(m, "rsq"))
		return xr_case();
	if (!strcmp(m, "exc32"))
		return exc32_case();
	if (!strcmp(m, "fixp"))
		return fixp_case(200000);
	if (!strcmp(m, "fixpd"))
		return fixp_case(150);
	if (!strcmp(m, "trap32"))
		return trap32_case();
	if (!strcmp(m, "pwr"))
		pw_run(200000);
	if (!strcmp(m, "pwrd"))
		pw_run(150);
	if (!strcmp(m, "pwu"))
		pwu_run(200000);
	if (!strcmp(m, "pwud"))
		pwu_run(150);
	if (!strcmp(m, "c3t"))
		c3_onlya = 1;
	if (!strcmp(m, "c3") || !strcmp(m, "c3t"))
		c3_run();
	if (!strcmp(m, "trapblk"))
		return trapblk_case(argc > 2 && !strcmp(argv[2], "hidden"));
	if (!strcmp(m, "trappend"))
		return trappend_case();
	return 2;
}
