// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Review 12's cases (tests/values/review12.sh, `make values-review12`):
 * programs that attack the rules merged in session 14: the watch proofs
 * of branch rwfast (replay/watch_proof.c's bsf/bsr range after a test
 * and je/jne) and gotroot's indirect-branch rule (replay/rcv_back.c,
 * rcv_rw.c: a jump or call teaches its target).  Each mode is one case;
 * review12.sh says what each checks and what main gives
 * (/work/notes/review12.md).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/rseq.h>
#include <unistd.h>

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

/*
 * bsr, bsrd (GDB, rwatch): `test %rbx, %rbx; jne` then bsf %rbx, %rax
 * three instructions later: watch_proof.c's nonzero() looks back for the
 * test and takes rax in [0, 63], checking only that the instructions
 * between do not write rbx by their decoding (wcode).  One of them is a
 * `syscall` with rax 15: rt_sigreturn from a frame the program built on
 * its stack, every register as it was but rbx 0 and rax 4000, rip the
 * syscall's fall-through (so no transfer, no cut).  bsf of 0 leaves its
 * destination as it was (AMD APM; Intel: undefined, unchanged in
 * practice), so `movzbl (%rcx,%rax)` reads sr_tab[4000], outside [sr_tab,
 * sr_tab + 63]; sr_store writes the byte (bsrw: `watch`).  rax is then
 * stored to sr_keep, which the end snapshot holds, so the engine knows
 * the load's address.  Then 400,000 instructions (bsr: the load in a far
 * window) or 300 (bsrd, bsrw: near) and exit_group.
 */
unsigned char sr_tab[8192];
uint64_t sr_keep;
void sr_run(uint64_t n);
__asm__(".text\nsr_run:\n"
	"\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
	"\tpush %r14\n\tpush %r15\n"
	"\tmov %rdi, %r12\n"
	"\tsub $1024, %rsp\n"
	/* the frame (struct ucontext at rsp) cleared */
	"\tmov %rsp, %rdi\n\tmov $128, %ecx\n\txor %eax, %eax\n"
	"\trep stosq\n"
	"\tmovl $2, 24(%rsp)\n"		/* uc_stack.ss_flags: SS_DISABLE */
	/* gregs at 40: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp,
	 * rip, eflags, csgsfs */
	"\tmov %r8, 40(%rsp)\n\tmov %r9, 48(%rsp)\n"
	"\tmov %r10, 56(%rsp)\n\tmov %r11, 64(%rsp)\n"
	"\tmov %r12, 72(%rsp)\n\tmov %r13, 80(%rsp)\n"
	"\tmov %r14, 88(%rsp)\n\tmov %r15, 96(%rsp)\n"
	"\tmov %rdi, 104(%rsp)\n\tmov %rsi, 112(%rsp)\n"
	"\tmov %rbp, 120(%rsp)\n\tmovq $0, 128(%rsp)\n"
	"\tmov %rdx, 136(%rsp)\n\tmovq $4000, 144(%rsp)\n"
	"\tmov %rcx, 152(%rsp)\n\tmov %rsp, 160(%rsp)\n"
	"\tlea 1f(%rip), %rax\n\tmov %rax, 168(%rsp)\n"
	"\tmovq $0x202, 176(%rsp)\n"
	"\tmovabs $0x002b000000000033, %rax\n\tmov %rax, 184(%rsp)\n"
	"\tmov $0x20, %ebx\n"
	"\ttest %rbx, %rbx\n"
	"\tjne 2f\n"
	"\tud2\n"
	"2:\tmov $15, %eax\n"
	"\tsyscall\n"
	"1:\tbsf %rbx, %rax\n"
	"\tlea sr_tab(%rip), %rcx\n"
	".globl sr_load\nsr_load:\n"
	"\tmovzbl (%rcx,%rax), %edx\n"
	".globl sr_store\nsr_store:\n"
	"\tmovb $0x77, (%rcx,%rax)\n"
	"\tmov %rax, sr_keep(%rip)\n"
	"\tadd $1024, %rsp\n"
	"\txor %ecx, %ecx\n\txor %eax, %eax\n\txor %edx, %edx\n"
	"3:\tdec %r12\n\tjnz 3b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * ck8, ck4 (values): `call *-8(%rsp)` and `call *-4(%rsp)`: the operand
 * is read with rsp before the call's push (SDM CALL), and the push then
 * overwrites the bytes it read (all 8, or the low 4).  rcv_rw.c's
 * rcv_reads() gives the read the target's value (the trace went there);
 * the slot after the call holds the return address.  The target is
 * ck_f plus an unknown zero, so nothing else tells it.  ck_f reads the
 * slot back (8 bytes at rsp for ck8; 8 at rsp + 4 for ck4: the return
 * address's high half and the target's), returns, and the caller reads
 * them again below rsp.
 */
void ck_f(void);
uint64_t ck_run(uint64_t z, int four);
__asm__(".text\nck_f:\n"
	"\tmov (%rsp), %rdx\n"
	"\tmov 4(%rsp), %rsi\n"
	"\tret\n"
	"ck_run:\n"
	"\tpush %rbx\n"
	"\tlea ck_f(%rip), %rax\n"
	"\tadd %rdi, %rax\n"
	"\ttest %esi, %esi\n"
	"\tjnz 1f\n"
	"\tmov %rax, -8(%rsp)\n"
	".globl ck_c8\nck_c8:\n"
	"\tcall *-8(%rsp)\n"
	"\tmov -8(%rsp), %rbx\n"
	"\tjmp 2f\n"
	"1:\tmov %rax, -4(%rsp)\n"
	".globl ck_c4\nck_c4:\n"
	"\tcall *-4(%rsp)\n"
	"\tmov -4(%rsp), %rbx\n"
	"2:\tmov %rbx, %rax\n"
	"\txor %rbx, %rax\n"
	"\tpop %rbx\n"
	"\tret\n");

/*
 * rem, remd (GDB, rwatch): x % 10 as a compiler writes it (mul by
 * 0xcccccccccccccccd, shr $3, lea (q,q,4), add q,q, sub) where the x
 * subtracted is reloaded from a red-zone slot after a 1-byte store into
 * it (x = 1000 plus an unknown zero: the reload is 1023): watch_proof.c
 * takes the reload as x's root when no store may have reached the slot,
 * and the difference as in [0, 9]; the load reads rm_tab[23].  rem: far
 * (400,000 instructions after), remd: near (300).
 */
unsigned char rm_tab[4096];
void rm_run(uint64_t x, uint64_t n);
__asm__(".text\nrm_run:\n"
	"\tmov %rsi, %r8\n"
	"\tmov %rdi, -8(%rsp)\n"
	"\tmov %rdi, %rax\n"
	"\tmovabs $0xcccccccccccccccd, %rcx\n"
	"\tmul %rcx\n"
	"\tshr $3, %rdx\n"
	"\tlea (%rdx,%rdx,4), %rdx\n"
	"\tadd %rdx, %rdx\n"
	"\tmovb $0xff, -8(%rsp)\n"
	"\tmov -8(%rsp), %rdi\n"
	"\tsub %rdx, %rdi\n"
	"\tlea rm_tab(%rip), %rcx\n"
	".globl rm_load\nrm_load:\n"
	"\tmovzbl (%rcx,%rdi), %edx\n"
	"\txor %ecx, %ecx\n\txor %eax, %eax\n\txor %edx, %edx\n"
	"\txor %edi, %edi\n"
	"3:\tdec %r8\n\tjnz 3b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * remx (GDB, rwatch, near): rem's 1-byte store made through the slot's
 * address published to a global and read back plus an unknown zero (a
 * store of unknown address, the slot's address escaped before it): is
 * the reload still x?  rx_run(x, z, n).
 */
uint64_t rx_ptr;
void rx_run(uint64_t x, uint64_t z, uint64_t n);
__asm__(".text\nrx_run:\n"
	"\tmov %rdx, %r8\n"
	"\tmov %rdi, -8(%rsp)\n"
	"\tlea -8(%rsp), %r9\n"
	"\tmov %r9, rx_ptr(%rip)\n"
	"\tmov %rdi, %rax\n"
	"\tmovabs $0xcccccccccccccccd, %rcx\n"
	"\tmul %rcx\n"
	"\tshr $3, %rdx\n"
	"\tlea (%rdx,%rdx,4), %rdx\n"
	"\tadd %rdx, %rdx\n"
	"\tmov rx_ptr(%rip), %r10\n"
	"\tadd %rsi, %r10\n"
	"\tmovb $0xff, (%r10)\n"
	"\tmov -8(%rsp), %rdi\n"
	"\tsub %rdx, %rdi\n"
	"\tlea rm_tab(%rip), %rcx\n"
	".globl rx_load\nrx_load:\n"
	"\tmovzbl (%rcx,%rdi), %edx\n"
	"\txor %ecx, %ecx\n\txor %eax, %eax\n\txor %edx, %edx\n"
	"\txor %edi, %edi\n\txor %esi, %esi\n"
	"3:\tdec %r8\n\tjnz 3b\n"
	"\tmov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");

/*
 * rsq (values): `jmp *%rax` as the first instruction of an rseq critical
 * section (glibc's registered area, rseq_cs pointing at rq_cs).  Under
 * the software recorder every step stops the thread, and the return to
 * user mode after the stop runs the kernel's rseq fixup
 * (kernel/rseq.c rseq_ip_fixup(): preempted inside the section, ip :=
 * abort_ip): the instruction the recorder decoded at rq_start never
 * runs, rq_abort's does, and the step ends after it.  For an indirect
 * jump any next address fits its class, so the history shows `jmp *%rax`
 * going to rq_abort + 5, and gotroot's rule (rcv_back.c) takes rax as
 * that address; rax is rq_target.  Natively the jump goes to rq_target
 * (ecx 0); recorded, the abort runs (ecx 1).
 */
struct rq_cs_t {
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));
struct rq_cs_t rq_cs;
extern char rq_start[], rq_end[], rq_abort[];
uint64_t rq_run(void);
__asm__(".text\nrq_run:\n"
	"\tlea rq_target(%rip), %rax\n"
	"\tjmp rq_start\n"
	".globl rq_start\nrq_start:\n"
	"\tjmp *%rax\n"
	".globl rq_end\nrq_end:\n"
	"\tud2\n"
	"\t.byte 0x0f, 0xb9, 0x3d\n"
	"\t.long 0x53053053\n"
	".globl rq_abort\nrq_abort:\n"
	"\tmov $1, %ecx\n"
	"\tjmp 1f\n"
	"rq_target:\n"
	"\txor %ecx, %ecx\n"
	"1:\tmov %rcx, %rax\n"
	"\tret\n");

static int rq_case(void)
{
	struct rseq *r;
	uint64_t got;

	if (__rseq_size == 0)
		return 3;
	rq_cs.start_ip = (uint64_t)rq_start;
	rq_cs.post_commit_offset = (uint64_t)(rq_end - rq_start);
	rq_cs.abort_ip = (uint64_t)rq_abort;
	r = (struct rseq *)((char *)__builtin_thread_pointer() +
			    __rseq_offset);
	__atomic_store_n(&r->rseq_cs, (uint64_t)&rq_cs, __ATOMIC_RELAXED);
	got = rq_run();
	__atomic_store_n(&r->rseq_cs, 0, __ATOMIC_RELAXED);
	printf("%s\n", got ? "aborted" : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "bsr"))
		sr_run(200000);
	if (!strcmp(m, "bsrd") || !strcmp(m, "bsrw"))
		sr_run(150);
	if (!strcmp(m, "rsq"))
		return rq_case();
	if (!strcmp(m, "remx"))
		rx_run(1000 + ozero(), ozero(), 150);
	if (!strcmp(m, "rem"))
		rm_run(1000 + ozero(), 200000);
	if (!strcmp(m, "remd"))
		rm_run(1000 + ozero(), 150);
	if (!strcmp(m, "ck8") || !strcmp(m, "ck4")) {
		uint64_t r = ck_run(ozero(), m[2] == '4');

		printf("%lu\n", (unsigned long)r);
		return 0;
	}
	return 2;
}
