// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A thread's exit writes memory (issue #17, docs/values.md "Other
 * threads' stores in time"): the kernel's mm_release() sets
 * FUTEX_OWNER_DIED in each futex word of the dying thread's robust list
 * that holds its tid (exit_robust_list(), handle_futex_death()) and
 * writes 0 to its clear_child_tid word.  Here a raw clone(2) thread with
 * CLONE_CHILD_CLEARTID on exr_ctid (5, stored by the main thread before)
 * registers a robust list of one entry whose word, exr_word, holds its
 * tid; the main thread loads that word (ecx: the tid), lets the thread
 * exit(2), waits for exr_ctid to be 0, and loads both words: r12
 * 0x40000000 (FUTEX_OWNER_DIED, the tid bits cleared), r13 0.  Were the
 * exit taken to write nothing (rcv_xthr.c exit_writes()), the wait
 * loop's first load of exr_ctid (5, before the exit) and its last (0,
 * after it) would be one span: rdx 0 where it was 5;
 * were it taken to write only the clear_child_tid word (its robust list
 * ignored), the snapshot's exr_word would reach back to the first load:
 * rcx 0x40000000 where it was the tid (both tried).  The robust list is
 * not empty: this exit may write any byte.
 */

__asm__(
	".data\n"
	".balign 64\n"
	"exr_head:\t.quad exr_ent\n\t.quad 8\n\t.quad 0\n"
	"exr_ent:\t.quad exr_head\n"
	"exr_word:\t.long 0\n\t.long 0\n"
	"exr_ctid:\t.long 0\n\t.long 0\n"
	"exr_ready:\t.long 0\n\t.long 0\n"
	"exr_go:\t.long 0\n\t.long 0\n"
	".bss\n"
	".balign 16\n"
	"exr_cstack:\t.skip 65536\n"
	".text\n"
	/* The thread: its tid in the word, the list registered, ready;
	 * once told to go, exit(0) with the mutex word still its own.
	 */
	"exr_child:\n"
	"\tmov $186, %eax\n\tsyscall\n"
	"\tmov %eax, exr_word(%rip)\n"
	"\tlea exr_head(%rip), %rdi\n\tmov $24, %esi\n"
	"\tmov $273, %eax\n\tsyscall\n"
	"\tmovl $1, exr_ready(%rip)\n"
	"1:\tcmpl $0, exr_go(%rip)\n\tjne 2f\n"
	"\tmov $24, %eax\n\tsyscall\n\tjmp 1b\n"
	"2:\txor %edi, %edi\n\tmov $60, %eax\n\tsyscall\n"
	"\thlt\n"
	".globl exr_run\n"
	"exr_run:\n"
	"\tmovl $5, exr_ctid(%rip)\n"
	/* clone(VM FS FILES SIGHAND THREAD CHILD_CLEARTID, stack, 0,
	 * &exr_ctid)
	 */
	"\tmov $0x210f00, %edi\n"
	"\tlea exr_cstack+65536(%rip), %rsi\n"
	"\txor %edx, %edx\n"
	"\tlea exr_ctid(%rip), %r10\n"
	"\txor %r8d, %r8d\n"
	"\tmov $56, %eax\n\tsyscall\n"
	"\ttest %rax, %rax\n\tjz exr_child\n"
	"1:\tcmpl $0, exr_ready(%rip)\n\tjne 2f\n"
	"\tmov $24, %eax\n\tsyscall\n\tjmp 1b\n"
	"2:\tmov exr_word(%rip), %ecx\n"
	"\tmovl $1, exr_go(%rip)\n"
	/* Until the kernel cleared exr_ctid: futex(FUTEX_WAIT, its value). */
	"3:\tmov exr_ctid(%rip), %edx\n\ttest %edx, %edx\n\tjz 4f\n"
	"\tlea exr_ctid(%rip), %rdi\n\txor %esi, %esi\n"
	"\txor %r10d, %r10d\n\tmov $202, %eax\n\tsyscall\n\tjmp 3b\n"
	"4:\tmov exr_word(%rip), %r12d\n"
	"\tmov exr_ctid(%rip), %r13d\n"
	/* exit_group(0): the history ends here, the snapshot right after. */
	"\txor %edi, %edi\n\tmov $231, %eax\n\tsyscall\n"
	"\thlt\n");

void exr_run(void);

int main(void)
{
	exr_run();
	return 1;
}
