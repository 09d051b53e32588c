// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * gdb/server/frames_walk.c's reading of what an instruction does to rsp,
 * from GDB's AT&T text of it (fw_sp_text()).  A CFA on rbp is trusted
 * only where the frame's own arithmetic on rsp gives the same one
 * (tests/gdb/smashes.c "ret"), so an instruction that writes rsp must
 * never read as a known change it is not: every write this cannot
 * follow (esp, a mask, a register from memory, leave, xchg) must be
 * FW_SP_UNKNOWN.
 */
#include <criterion/criterion.h>

#include "frames_walk.h"

static enum fw_sp sp(const char *text, int64_t *d, unsigned int *reg)
{
	*d = 12345;
	*reg = 99;
	return fw_sp_text(text, d, reg);
}

Test(frames_walk, constant_changes)
{
	static const struct {
		const char *text;
		int64_t d;
	} c[] = {
		{ "push   %rbp", -8 },
		{ "push   $0x1", -8 },
		{ "pushq  0x2fca(%rip)        # 0x5557a53e4ff0", -8 },
		{ "push   %rsp", -8 },
		{ "pushf", -8 },
		{ "pop    %rbx", 8 },
		{ "pop    0x8(%rsp)", 8 },
		{ "sub    $0x30,%rsp", -48 },
		{ "add    $0x28,%rsp", 40 },
		{ "add    $0xffffffffffffff80,%rsp", -128 },
		{ "lea    -0x8(%rsp),%rsp", -8 },
		{ "lea    (%rsp),%rsp", 0 },
		/* no write of rsp */
		{ "mov    %rsp,%rbp", 0 },
		{ "mov    %rax,0x8(%rsp)", 0 },
		{ "lea    0x10(%rsp),%rdi", 0 },
		{ "cmp    %rax,%rsp", 0 },
		{ "test   %rsp,%rsp", 0 },
		{ "lock cmpxchg %r12d,(%rbx)", 0 },
		{ "rep stos %rax,%es:(%rdi)", 0 },
		{ "notrack jmp *%rax", 0 },
		{ "nop", 0 },
	};
	unsigned int i, reg;
	int64_t d;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cr_expect_eq(sp(c[i].text, &d, &reg), FW_SP_ADD, "%s",
			     c[i].text);
		cr_expect_eq(d, c[i].d, "%s: %lld", c[i].text, (long long)d);
	}
}

Test(frames_walk, register_changes)
{
	unsigned int reg;
	int64_t d;

	cr_assert_eq(sp("sub    %r12,%rsp", &d, &reg), FW_SP_ADD_REG);
	cr_expect_eq(d, -1);
	cr_expect_eq(reg, RP_REG_R12);
	cr_assert_eq(sp("add    %rax,%rsp", &d, &reg), FW_SP_ADD_REG);
	cr_expect_eq(d, 1);
	cr_expect_eq(reg, RP_REG_RAX);
}

Test(frames_walk, unknown_writes)
{
	static const char *const c[] = {
		"leave",
		"enter  $0x10,$0x0",
		"mov    %rbp,%rsp",
		"mov    %rbx,%rsp",
		"and    $0xffffffffffffffc0,%rsp",
		"sub    0x209d1(%rip),%rsp        # 0x7f296a12ac70",
		"sub    %rsp,%rsp",
		"sub    $0x8,%esp",
		"lea    -0x10(%rbp),%rsp",
		"lea    0x8(%rsp,%rax,1),%rsp",
		"xchg   %rax,%rsp",
		"pop    %rsp",
		"popw   %ax",
		"pushw  $0x1",
		"mov    %eax,%esp",
		"(bad)",
		"",
	};
	unsigned int i, reg;
	int64_t d;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		cr_expect_eq(sp(c[i], &d, &reg), FW_SP_UNKNOWN, "'%s'", c[i]);
}
