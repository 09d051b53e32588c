// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The hand-written functions of tests/values/unsound.c's cases (see its
 * opening comment for what each mode checks): the callees whose spills,
 * stores and frames tests/values/run.sh asks about, found there by their
 * labels.  They live apart from the modes that call them because the two
 * were one file past 1,000 lines; mk/values.mk links both into the same
 * program.
 */

/* fault_at: a load through rcx = 0; spin: rax iterations then return. */
__asm__(".text\n"
	".globl unsound_fault\n"
	"unsound_fault:\n"
	"	mov (%rcx), %rax\n"
	"	ret\n"
	".globl unsound_spin\n"
	"unsound_spin:\n"
	"1:	dec %rax\n"
	"	jnz 1b\n"
	"	ret\n"
	/* saved(rdi = slot offset): with rbx = 0x3333, saved2 pushes rbx,
	 * sets it to 0x1111, stores 0x2222 through rsp + rdi (unknown to
	 * the engine) into the slot and pops rbx: 0x2222, not 0x3333.
	 */
	".globl unsound_saved\n"
	"unsound_saved:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_saved2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_saved2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	lea (%rsp,%rdi), %rsi\n"
	"	call unsound_store\n"
	"	pop %rbx\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	"unsound_store:\n"
	"	movq $0x2222, (%rsi)\n"
	"	ret\n"
	/* known(rdi = 0): as saved, but the engine knows the pointer
	 * (rsp + 0), and a store it knows goes elsewhere (unsound_glob)
	 * comes first: the pop still gets 0x2222.
	 */
	".globl unsound_known\n"
	"unsound_known:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_known2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_known2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	lea (%rsp,%rdi), %rsi\n"
	"	movq $0x4444, unsound_glob(%rip)\n"
	"	call unsound_store\n"
	"	pop %rbx\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* fs(): as known, but the store goes through fs, whose base is
	 * set to the slot by arch_prctl(ARCH_SET_FS) and then restored
	 * (unsound_fs_orig): fs-relative addresses before a change of
	 * fs_base are not the end's base plus the offset.
	 */
	".globl unsound_fs\n"
	"unsound_fs:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_fs2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_fs2:\n"
	"	lea -8(%rsp), %rsi\n"
	"	mov $0x1002, %edi\n"
	"	mov $158, %eax\n"
	"	syscall\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	movq $0x2222, %fs:0\n"
	"	pop %rbx\n"
	"	mov unsound_fs_orig(%rip), %rsi\n"
	"	mov $0x1002, %edi\n"
	"	mov $158, %eax\n"
	"	syscall\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* callee (rcv_callee.c): each caller sets rbx = 0x3333 and calls
	 * a callee that pushes rbx, sets it to 0x1111, stores 0x2222
	 * through a pointer the engine cannot compute (rdi = 0 unknown to
	 * it, added) and pops rbx.  cesc: the callee put its rsp in a
	 * global first, and its own callee stores through what it loads
	 * from there (the pushed slot: the pop gets 0x2222).  cup: the
	 * callee put its rsp in its caller's frame, which the caller's
	 * pointer (rdx, made before the call) reads back (0x2222 again).
	 * cok: the pointer comes from a global that holds another global's
	 * address: the pop gets the pushed 0x3333, known only by the
	 * callee's-own-stack argument.
	 */
	".globl unsound_cesc\n"
	"unsound_cesc:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_cesc2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_cesc2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	mov %rsp, unsound_cg(%rip)\n"
	"	call unsound_cstore\n"
	"	pop %rbx\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	"unsound_cstore:\n"
	"	mov unsound_cg(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	ret\n"
	".globl unsound_cup\n"
	"unsound_cup:\n"
	"	push %rbx\n"
	"	sub $16, %rsp\n"
	"	mov %rsp, %rdx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_cup2\n"
	"	add $16, %rsp\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_cup2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	mov %rsp, %rax\n"
	"	mov %rax, 16(%rsp)\n"
	"	mov (%rdx), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	pop %rbx\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	".globl unsound_cok\n"
	"unsound_cok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_cok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_cok2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	mov unsound_cptr(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* cvla: the callee allocates 32 + rdi bytes (sub rsp, rax: a VLA
	 * of a size the engine does not know) under its saved rbx and rbp,
	 * stores into it through rsp + 8 * rdi (in it), and through rbp +
	 * 8 + rdi (rbp is not the allocation's) into the saved rbx's slot:
	 * the pop gets 0x4444.  cvlaok: the store into the VLA alone (rbx known
	 * after the pop: the allocation's bound, rcv_escape.c bounded()).
	 */
	".globl unsound_cvla\n"
	"unsound_cvla:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_cvla2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_cvla2:\n"
	"	push %rbx\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov $0x1111, %ebx\n"
	"	lea 32(%rdi), %rax\n"
	"	sub %rax, %rsp\n"
	"	lea (%rsp,%rdi,8), %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	lea 8(%rbp,%rdi,1), %rsi\n"
	"	movq $0x4444, (%rsi)\n"
	"	mov %rbp, %rsp\n"
	"	pop %rbp\n"
	"	pop %rbx\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	".globl unsound_cvlaok\n"
	"unsound_cvlaok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_cvlaok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_cvlaok2:\n"
	"	push %rbx\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov $0x1111, %ebx\n"
	"	lea 32(%rdi), %rax\n"
	"	sub %rax, %rsp\n"
	"	lea (%rsp,%rdi,8), %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	mov %rbp, %rsp\n"
	"	pop %rbp\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* frame (a callee's own frame: spills and reloads, rcv_stack.c):
	 * each caller sets rbx = 0x3333 and calls a callee that spills rbx
	 * to [rbp - 8], sets it to 0x1111, and reloads it after a store of
	 * 0x2222 through a pointer the engine cannot compute.  fr: rbp - 8
	 * + rdi (rdi = 0 unknown to it: the slot; the reload gets 0x2222).
	 * fresc: the slot's address in a global first, and its own callee
	 * stores through what it loads from there (0x2222 again).  frok:
	 * through a global's pointer: the reload gets 0x3333, known only by
	 * the argument.
	 */
	".globl unsound_fr\n"
	"unsound_fr:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_fr2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_fr2:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	sub $16, %rsp\n"
	"	mov %rbx, -8(%rbp)\n"
	"	mov $0x1111, %ebx\n"
	"	lea -8(%rbp), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	mov -8(%rbp), %rbx\n"
	"	mov %rbx, %rax\n"
	"	leave\n"
	"	ret\n"
	".globl unsound_fresc\n"
	"unsound_fresc:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_fresc2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_fresc2:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	sub $16, %rsp\n"
	"	mov %rbx, -8(%rbp)\n"
	"	mov $0x1111, %ebx\n"
	"	lea -8(%rbp), %rax\n"
	"	mov %rax, unsound_cg(%rip)\n"
	"	call unsound_cstore\n"
	"	mov -8(%rbp), %rbx\n"
	"	mov %rbx, %rax\n"
	"	leave\n"
	"	ret\n"
	".globl unsound_frok\n"
	"unsound_frok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frok2:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	sub $16, %rsp\n"
	"	mov %rbx, -8(%rbp)\n"
	"	mov $0x1111, %ebx\n"
	"	mov unsound_cptr(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	mov -8(%rbp), %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	leave\n"
	"	ret\n"
	/* fvla: a VLA of 32 + rdi bytes (rdi = 0 unknown) under the spill
	 * of rbx (0x3333) at rbp - 8, and 16 bytes under it a spill of
	 * 0x1111.  A store through rsp + 8 * rdi (rsp is not the VLA's
	 * bottom: the lower spill, whose reload gets 0x2222), one through
	 * rsp + 16 + 8 * rdi (the VLA's bottom: in it, rbx known after the
	 * reload of rbp - 8), then one through rbp - 8 + rdi (the upper
	 * spill: its second reload gets 0x6666).  Returns the sum of the
	 * two reloads that a store wrote (0x8888).
	 */
	/* frxmm: as fresc, the slot's address through xmm0 into the
	 * global (movq %rax,%xmm0; movq %xmm0,unsound_cg): 0x2222.
	 */
	".globl unsound_frxmm\n"
	"unsound_frxmm:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frxmm2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frxmm2:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	sub $16, %rsp\n"
	"	mov %rbx, -8(%rbp)\n"
	"	mov $0x1111, %ebx\n"
	"	lea -8(%rbp), %rax\n"
	"	movq %rax, %xmm0\n"
	"	movq %xmm0, unsound_cg(%rip)\n"
	"	call unsound_cstore\n"
	"	mov -8(%rbp), %rbx\n"
	"	mov %rbx, %rax\n"
	"	leave\n"
	"	ret\n"
	/* frxs: a spill at offset 520 of an xsavec area (XCOMP_BV, which
	 * xsavec always writes, bit 63 set): the reload gets it, not
	 * 0x3333.
	 */
	".globl unsound_frxs\n"
	"unsound_frxs:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frxs2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frxs2:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	sub $0x1000, %rsp\n"
	"	and $-64, %rsp\n"
	"	mov %rbx, 0x208(%rsp)\n"
	"	mov $0x1111, %ebx\n"
	"	mov $-1, %eax\n"
	"	mov $-1, %edx\n"
	"	xsavec (%rsp)\n"
	"	mov 0x208(%rsp), %rbx\n"
	"	mov %rbx, %rax\n"
	"	leave\n"
	"	ret\n"
	".globl unsound_fvla\n"
	"unsound_fvla:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_fvla2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_fvla2:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	sub $16, %rsp\n"
	"	mov %rbx, -8(%rbp)\n"
	"	mov $0x1111, %ebx\n"
	"	lea 32(%rdi), %rax\n"
	"	sub %rax, %rsp\n"
	"	sub $16, %rsp\n"
	"	mov %rbx, (%rsp)\n"
	"	movq $0x2222, (%rsp,%rdi,8)\n"
	"	movq $0x5555, 16(%rsp,%rdi,8)\n"
	"	mov (%rsp), %rcx\n"
	"	mov -8(%rbp), %rbx\n"
	"	nop\n"
	"	movq $0x6666, -8(%rbp,%rdi,1)\n"
	"	mov -8(%rbp), %rdx\n"
	"	lea (%rcx,%rdx), %rax\n"
	"	leave\n"
	"	ret\n"
	/* regfr (every register's frame class, rcv_stack.c): frb's callee
	 * pushes rbx (0x3333) and 0, keeps rsp in rbx (mov %rsp,%rbx, as
	 * the lazy-binding resolver does), stores 0x2222 through rbx + rdx
	 * (rdx = 8 + rdi, unknown to the engine: the pushed rbx's slot),
	 * reads it back through 8(%rbx) and pops it after mov %rbx,%rsp:
	 * 0x2222 twice (returns 0x4444).  frbok's callee does the same with
	 * an and $-16 and a sub of rsp between, and a store through a
	 * global's pointer instead: the read through rbx gets 0x3333, known
	 * only by following rbx's frame (and the callee argument).
	 */
	".globl unsound_frb\n"
	"unsound_frb:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frb2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frb2:\n"
	"	push %rbx\n"
	"	push $0\n"
	"	mov %rsp, %rbx\n"
	"	lea 8(%rdi), %rdx\n"
	"	lea (%rbx,%rdx,1), %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	mov 8(%rbx), %rax\n"
	"	mov %rbx, %rsp\n"
	"	add $8, %rsp\n"
	"	pop %rbx\n"
	"	add %rbx, %rax\n"
	"	ret\n"
	".globl unsound_frbok\n"
	"unsound_frbok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frbok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frbok2:\n"
	"	push %rbx\n"
	"	mov %rsp, %rbx\n"
	"	and $-16, %rsp\n"
	"	sub $32, %rsp\n"
	"	mov %rdi, (%rsp)\n"
	"	mov $0x1111, %ecx\n"
	"	mov unsound_cptr(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	mov (%rbx), %rax\n"
	"	nop\n"
	"	mov %rbx, %rsp\n"
	"	pop %rbx\n"
	"	ret\n"
	/* sysfr (system calls between a push and its pop, rcv_stack.c):
	 * frs's callee pushes rbx (0x3333) and read(2)s 8 bytes (0x2222)
	 * from the pipe rdi into that slot (rsi = rsp): the pop gets
	 * 0x2222.  frsok's callee reads them into unsound_cword instead and
	 * stores through a global's pointer plus rsi = 0 (unknown to the
	 * engine) before the pop: rbx 0x3333, known after the pop only
	 * by placing the read's write (and the callee argument).
	 */
	".globl unsound_frs\n"
	"unsound_frs:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frs2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frs2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	mov %rsp, %rsi\n"
	"	mov $8, %edx\n"
	"	mov $0, %eax\n"
	"	syscall\n"
	"	pop %rbx\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	".globl unsound_frsok\n"
	"unsound_frsok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_frsok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_frsok2:\n"
	"	push %rbx\n"
	"	push %rsi\n"
	"	mov $0x1111, %ebx\n"
	"	lea unsound_cword(%rip), %rsi\n"
	"	mov $8, %edx\n"
	"	mov $0, %eax\n"
	"	syscall\n"
	"	pop %rsi\n"
	"	mov unsound_cptr(%rip), %rcx\n"
	"	add %rsi, %rcx\n"
	"	movq $0x2222, (%rcx)\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* pushmem (a push of memory and its pop or reload, rcv_stack.c,
	 * rcv_pass.c: the PLT's push of the GOT's link_map word read back
	 * by the resolver): pmt's callee sets unsound_pmval to 0x3333,
	 * pushes it, stores through a global's pointer plus rdi (0,
	 * unknown to the engine), sets unsound_pmval to 0x2222, reloads
	 * the slot into rcx and pops it into rax: 0x3333 both, known only
	 * by the pair (the callee argument keeps it across the store) and
	 * from the memory the push read, not the reload's (0x2222).  pms's
	 * callee stores 0x2222 through rsp plus rdi into the pushed slot
	 * itself before the reload and the pop: no pair.  pmu's callee pushes
 * unsound_pmval after a store through a global's pointer plus rdi (so
 * the word pushed is not known), sets it to 0x5555 and pops it after
 * another such store: the pop is linked, and `--why` names the first
 * store (where the search for what the push read stops), not the second
 * (the pop's own).
	 */
	".globl unsound_pmt\n"
	"unsound_pmt:\n"
	"	push %rbx\n"
	"	call unsound_pmt2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_pmt2:\n"
	"	movq $0x3333, unsound_pmval(%rip)\n"
	"	push unsound_pmval(%rip)\n"
	"	mov unsound_cptr(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x1111, (%rsi)\n"
	"	movq $0x2222, unsound_pmval(%rip)\n"
	"	mov (%rsp), %rcx\n"
	"	pop %rax\n"
	"	nop\n"
	"	add %rcx, %rax\n"
	"	ret\n"
	".globl unsound_pms\n"
	"unsound_pms:\n"
	"	push %rbx\n"
	"	call unsound_pms2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_pmu2:\n"
	"	mov unsound_cptr(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x1111, (%rsi)\n"
	"	push unsound_pmval(%rip)\n"
	"	movq $0x5555, unsound_pmval(%rip)\n"
	"	movq $0x1111, (%rsi)\n"
	"	pop %rax\n"
	"	nop\n"
	"	ret\n"
	".globl unsound_pmu\n"
	"unsound_pmu:\n"
	"	push %rbx\n"
	"	call unsound_pmu2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_pms2:\n"
	"	movq $0x3333, unsound_pmval(%rip)\n"
	"	push unsound_pmval(%rip)\n"
	"	lea (%rsp,%rdi,1), %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	mov (%rsp), %rcx\n"
	"	pop %rax\n"
	"	nop\n"
	"	add %rcx, %rax\n"
	"	ret\n");

/*
 * csys (rcv_callee.c): the callee argument goes on across system calls
 * whose writes it knows and across rep stos.  Each caller sets rbx =
 * 0x3333 and calls a callee that pushes it and sets rbx = 0x1111.
 * csysbad: fstat(1, buf) with buf 16 bytes over the callee's rsp after
 * `sub $152`: its 144 bytes end at the pushed slot's end, and the kernel
 * writes st's last word (0) there: the pop gets 0.  csysrep: rep stosq
 * through rsp plus an index the engine does not know (rdi = 0) writes
 * 0x2222 into the slot.  csysok: fstat into a buffer under the slot,
 * brk(0), rep stosq and a store through a pointer loaded from a global:
 * the pop gets the pushed 0x3333, known only by the argument.
 */
__asm__(
	".text\n"
	".globl unsound_csysbad\n"
	"unsound_csysbad:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_csysbad2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_csysbad2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	sub $152, %rsp\n"
	"	lea 16(%rsp), %rsi\n"
	"	mov $1, %edi\n"
	"	mov $5, %eax\n"
	"	syscall\n"
	"	add $152, %rsp\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	".globl unsound_csysrep\n"
	"unsound_csysrep:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_csysrep2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_csysrep2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	lea (%rsp,%rdi,1), %rdi\n"
	"	mov $1, %ecx\n"
	"	mov $0x2222, %eax\n"
	"	rep stosq\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	".globl unsound_csysok\n"
	"unsound_csysok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_csysok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_csysok2:\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	mov %rdi, %r12\n"
	"	mov $0x1111, %ebx\n"
	"	sub $160, %rsp\n"
	"	mov %rsp, %rsi\n"
	"	mov $1, %edi\n"
	"	mov $5, %eax\n"
	"	syscall\n"
	"	xor %edi, %edi\n"
	"	mov $12, %eax\n"
	"	syscall\n"
	"	mov unsound_cptr(%rip), %rdi\n"
	"	add %r12, %rdi\n"
	"	mov $1, %ecx\n"
	"	mov $0x2222, %eax\n"
	"	rep stosq\n"
	"	mov unsound_cptr(%rip), %rsi\n"
	"	add %r12, %rsi\n"
	"	movq $0x5555, (%rsi)\n"
	"	add $160, %rsp\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* ckind (rcv_callee.c's prologue walk): the callee's frame
	 * address given away (rsp itself, kesc; the caller's rsp made in
	 * a nested call as setjmp does, kdep), and a store through it at
	 * the frame's size plus an unknown 0 into the pushed slot; a
	 * local's address given away and a store through it into the
	 * local (kok: rbx known after the pop).
	 */
	".globl unsound_kesc\n"
	"unsound_kesc:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_kesc2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_kesc2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	sub $16, %rsp\n"
	"	mov %rsp, %rax\n"
	"	mov %rax, unsound_cg(%rip)\n"
	"	call unsound_kstore\n"
	"	add $16, %rsp\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* 16(cg + rdi): the pushed slot when cg is the frame's rsp */
	"unsound_kstore:\n"
	"	mov unsound_cg(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, 16(%rsi)\n"
	"	ret\n"
	".globl unsound_kdep\n"
	"unsound_kdep:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_kdep2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_kdep2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	sub $16, %rsp\n"
	"	call unsound_kframe\n"
	"	call unsound_kstore\n"
	"	add $16, %rsp\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n"
	/* the caller's rsp, as setjmp keeps it */
	"unsound_kframe:\n"
	"	lea 8(%rsp), %rax\n"
	"	mov %rax, unsound_cg(%rip)\n"
	"	ret\n"
	".globl unsound_kok\n"
	"unsound_kok:\n"
	"	push %rbx\n"
	"	mov $0x3333, %ebx\n"
	"	call unsound_kok2\n"
	"	pop %rbx\n"
	"	ret\n"
	"unsound_kok2:\n"
	"	push %rbx\n"
	"	mov $0x1111, %ebx\n"
	"	sub $16, %rsp\n"
	"	lea 8(%rsp), %rax\n"
	"	mov %rax, unsound_cg(%rip)\n"
	"	mov unsound_cg(%rip), %rsi\n"
	"	add %rdi, %rsi\n"
	"	movq $0x2222, (%rsi)\n"
	"	add $16, %rsp\n"
	"	pop %rbx\n"
	"	nop\n"
	"	mov %rbx, %rax\n"
	"	ret\n");

/* rdi = (t | ~t) + 1 = 0 of the time stamp counter t, and rsi likewise
 * of a second reading: zeros the engine knows nothing of, even in part
 * (it knows getpid() >> 31, and what the kernel writes), and independent
 * (nothing shows one from the other).
 */
#define XZERO \
	"	rdtsc\n" \
	"	shl $32, %rdx\n" \
	"	or %rdx, %rax\n" \
	"	mov %rax, %rdi\n" \
	"	not %rdi\n" \
	"	or %rax, %rdi\n" \
	"	add $1, %rdi\n" \
	"	rdtsc\n" \
	"	shl $32, %rdx\n" \
	"	or %rdx, %rax\n" \
	"	mov %rax, %rsi\n" \
	"	not %rsi\n" \
	"	or %rax, %rsi\n" \
	"	add $1, %rsi\n"

/*
 * xsave*: the history ends inside the function (exit_group, as exit()
 * does: no pop), so its pushed rbx (and r12) reach the snapshot only
 * across the stores after the pushes (rcv_callee.c, rcv_callee_kept_to()).
 * Each is a constant plus rdi (0, XZERO), cleared after the push: only
 * the slots show them; the stores go through rsi (0, XZERO) and rdi and
 * rsi are cleared before the end.  xsavebad: rbx's slot rewritten
 * through rsp plus rsi (0x2222): the snapshot shows that, not rbx
 * (wrong values if the store were not counted).  xsaveesc: rsp, r12's
 * slot's own address, published in a global and read back, r12's slot
 * rewritten through it (0x4444): r12 (0x6666 plus a third zero, r8) not
 * known (wrong values if the published pointer were taken to lie under
 * r12's slot too), rbx's slot, above the published pointer, known.
 * xsaveok: rsp published 16 bytes under the slots (a local object's
 * address), stores through it read back and through a global's pointer,
 * of rsi: rbx and r12 known at the pushes by the argument alone.
 */
__asm__(
	".text\n"
	".globl unsound_xsavebad\n"
	"unsound_xsavebad:\n"
	XZERO
	"	lea 0x3333(%rdi), %rbx\n"
	"	push %rbx\n"
	"	nop\n"
	"	xor %ebx, %ebx\n"
	"	lea (%rsp,%rsi,1), %rax\n"
	"	movq $0x2222, (%rax)\n"
	"	xor %esi, %esi\n"
	"	xor %edi, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n"
	".globl unsound_xsaveesc\n"
	"unsound_xsaveesc:\n"
	XZERO
	"	mov %rsi, %r8\n"
	XZERO
	"	lea 0x3333(%rdi), %rbx\n"
	"	lea 0x6666(%r8), %r12\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	nop\n"
	"	xor %ebx, %ebx\n"
	"	xor %r12d, %r12d\n"
	"	mov %rsp, unsound_xp(%rip)\n"
	"	mov unsound_xp(%rip), %rax\n"
	"	add %rsi, %rax\n"
	"	movq $0x4444, (%rax)\n"
	"	xor %r8d, %r8d\n"
	"	xor %esi, %esi\n"
	"	xor %edi, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n"
	".globl unsound_xsaveok\n"
	"unsound_xsaveok:\n"
	XZERO
	"	lea 0x7777(%rdi), %rbx\n"
	"	lea 0x8888(%rdi), %r12\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	nop\n"
	"	xor %ebx, %ebx\n"
	"	xor %r12d, %r12d\n"
	"	sub $16, %rsp\n"
	"	mov %rsp, unsound_xp(%rip)\n"
	"	mov unsound_xp(%rip), %rax\n"
	"	add %rsi, %rax\n"
	"	mov %rsi, (%rax)\n"
	"	mov unsound_cptr(%rip), %rcx\n"
	"	add %rsi, %rcx\n"
	"	mov %rsi, (%rcx)\n"
	"	xor %ecx, %ecx\n"
	"	xor %esi, %esi\n"
	"	xor %edi, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n");

/*
 * xsavemt, xsavemtok: the same with another thread (unsound.c's
 * xsave_writer(), waiting for unsound_xp) writing 0x2222 through the
 * pointer published, while this one waits for unsound_xdone with loads
 * and sched_yield alone.  The stack is shared (its address went to the other thread), so
 * the slot is the thread's own only by the argument to the end
 * (rcv_mem.c end_own()).  xsavemt publishes rsp, the slot's own address:
 * rbx unknown at the push (wrong values with the pointer taken to lie
 * under the slot); xsavemtok publishes rsp 16 bytes under it: rbx known.
 */
#define XWAIT \
	"1:	mov $24, %eax\n" \
	"	syscall\n" \
	"	mov unsound_xdone(%rip), %eax\n" \
	"	test %eax, %eax\n" \
	"	je 1b\n" \
	"	xor %esi, %esi\n" \
	"	xor %edi, %edi\n" \
	"	mov $231, %eax\n" \
	"	syscall\n"

__asm__(
	".text\n"
	".globl unsound_xsavemt\n"
	"unsound_xsavemt:\n"
	XZERO
	"	lea 0x3333(%rdi), %rbx\n"
	"	push %rbx\n"
	"	nop\n"
	"	xor %ebx, %ebx\n"
	"	mov %rsp, unsound_xp(%rip)\n"
	XWAIT
	".globl unsound_xsavemtok\n"
	"unsound_xsavemtok:\n"
	XZERO
	"	lea 0x7777(%rdi), %rbx\n"
	"	push %rbx\n"
	"	nop\n"
	"	xor %ebx, %ebx\n"
	"	sub $16, %rsp\n"
	"	mov %rsp, unsound_xp(%rip)\n"
	XWAIT);
