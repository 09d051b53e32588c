// SPDX-License-Identifier: GPL-3.0-or-later
/* The instruction classifier: lengths and branch classes of known bytes. */
#include <criterion/criterion.h>
#include <errno.h>

#include "insn.h"

static struct insn_decoder *d;

static void setup(void)
{
	cr_assert_eq(insn_decoder_new(&d), 0);
}

static void teardown(void)
{
	insn_decoder_free(d);
}

TestSuite(insn, .init = setup, .fini = teardown);

struct sample {
	const char *what;
	uint8_t bytes[15];
	unsigned int n;
	unsigned int len;
	enum insn_class cls;
	bool rep;
};

static const struct sample samples[] = {
	{ "nop", { 0x90 }, 1, 1, IC_OTHER, false },
	{ "mov $1,%eax", { 0xb8, 1, 0, 0, 0 }, 5, 5, IC_OTHER, false },
	{ "je rel8", { 0x74, 0x05 }, 2, 2, IC_COND, false },
	{ "jne rel32", { 0x0f, 0x85, 1, 2, 3, 4 }, 6, 6, IC_COND, false },
	{ "jrcxz", { 0xe3, 0x10 }, 2, 2, IC_COND, false },
	{ "loop", { 0xe2, 0xfe }, 2, 2, IC_COND, false },
	{ "loope", { 0xe1, 0xfe }, 2, 2, IC_COND, false },
	{ "loopne", { 0xe0, 0xfe }, 2, 2, IC_COND, false },
	{ "jecxz", { 0x67, 0xe3, 0x10 }, 3, 3, IC_COND, false },
	{ "jmp rel8", { 0xeb, 0x10 }, 2, 2, IC_JMP, false },
	{ "jmp rel32", { 0xe9, 1, 2, 3, 4 }, 5, 5, IC_JMP, false },
	{ "jmp *%rax", { 0xff, 0xe0 }, 2, 2, IC_JMP_IND, false },
	{ "notrack jmp *%rax", { 0x3e, 0xff, 0xe0 }, 3, 3, IC_JMP_IND, false },
	{ "jmp *0x10(%rip)", { 0xff, 0x25, 0x10, 0, 0, 0 }, 6, 6, IC_JMP_IND,
	  false },
	{ "call rel32", { 0xe8, 1, 2, 3, 4 }, 5, 5, IC_CALL, false },
	{ "call *%rax", { 0xff, 0xd0 }, 2, 2, IC_CALL_IND, false },
	{ "call *(%rbx)", { 0xff, 0x13 }, 2, 2, IC_CALL_IND, false },
	{ "ret", { 0xc3 }, 1, 1, IC_RET, false },
	{ "ret $8", { 0xc2, 8, 0 }, 3, 3, IC_RET, false },
	{ "bnd ret", { 0xf2, 0xc3 }, 2, 2, IC_RET, false },
	{ "syscall", { 0x0f, 0x05 }, 2, 2, IC_FAR, false },
	{ "int $0x80", { 0xcd, 0x80 }, 2, 2, IC_FAR, false },
	{ "int3", { 0xcc }, 1, 1, IC_FAR, false },
	{ "lret", { 0xcb }, 1, 1, IC_FAR, false },
	{ "iretq", { 0x48, 0xcf }, 2, 2, IC_FAR, false },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, 2, IC_OTHER, true },
	{ "repne scasb", { 0xf2, 0xae }, 2, 2, IC_OTHER, true },
	{ "vpminub (EVEX)", { 0x62, 0xa1, 0x6d, 0x20, 0xda, 0xdb }, 6, 6,
	  IC_OTHER, false },
	{ "cpuid", { 0x0f, 0xa2 }, 2, 2, IC_OTHER, false },
	/* no branch for PT (libipt): an abort is an asynchronous TIP */
	{ "xbegin rel32", { 0xc7, 0xf8, 0x0e, 0, 0, 0 }, 6, 6, IC_OTHER,
	  false },
};

Test(insn, known_instructions)
{
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];
		struct insn in;

		cr_assert_eq(insn_decode(d, s->bytes, s->n, 0x401000, &in), 0,
			     "%s", s->what);
		cr_assert_eq(in.len, s->len, "%s: len %u", s->what, in.len);
		cr_assert_eq(in.cls, s->cls, "%s: class %u", s->what, in.cls);
		cr_assert_eq(in.rep, s->rep, "%s: rep", s->what);
	}
}

Test(insn, invalid_and_truncated_bytes)
{
	static const uint8_t bad[] = { 0x06 };		/* push %es: not in 64-bit */
	static const uint8_t cut[] = { 0xe8, 0x01 };	/* call without its imm */
	struct insn in;

	cr_assert_eq(insn_decode(d, bad, sizeof(bad), 0, &in), -EILSEQ);
	cr_assert_eq(insn_decode(d, cut, sizeof(cut), 0, &in), -EILSEQ);
}

/* The flags the software recorder acts on (record/emu_step.c): PUSHF's
 * stored TF, the POPFs that may set the program's own TF, and the
 * instructions that raise the program's own SIGTRAP.
 */
Test(insn, pushf_and_trap_flags)
{
	static const struct {
		const char *what;
		uint8_t bytes[4];
		unsigned int n;
		bool pushf, trap, popf;
	} f[] = {
		{ "pushfq", { 0x9c }, 1, true, false, false },
		{ "pushf (66)", { 0x66, 0x9c }, 2, true, false, false },
		{ "popfq", { 0x9d }, 1, false, false, true },
		{ "popf (66)", { 0x66, 0x9d }, 2, false, false, true },
		{ "int3", { 0xcc }, 1, false, true, false },
		{ "int1", { 0xf1 }, 1, false, true, false },
		{ "int $3", { 0xcd, 0x03 }, 2, false, true, false },
		{ "syscall", { 0x0f, 0x05 }, 2, false, false, false },
		{ "push %rax", { 0x50 }, 1, false, false, false },
		{ "pop %rax", { 0x58 }, 1, false, false, false },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct insn in;

		cr_assert_eq(insn_decode(d, f[i].bytes, f[i].n, 0x401000, &in),
			     0, "%s", f[i].what);
		cr_assert_eq(in.pushf, f[i].pushf, "%s: pushf", f[i].what);
		cr_assert_eq(in.trap, f[i].trap, "%s: trap", f[i].what);
		cr_assert_eq(in.popf, f[i].popf, "%s: popf", f[i].what);
	}
}
