// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A frame's own instructions, followed for gdb/server/frames.c (#17,
 * docs/gdb.md "Values in outer frames"): the position right after each
 * register's save in its prologue, where the slot is read (a store may
 * rewrite it later), and what the frame's code added to rsp between two
 * positions, which checks a CFA computed from rbp (a callee may have
 * given rbp back from a rewritten slot).  Only code the frame's own
 * instructions lead to is followed: fall-through, direct jumps, calls
 * that came back to after themselves; a signal, a gap, a system call, a
 * return elsewhere end a walk.  What an instruction does to rsp is read
 * from GDB's text of it (fw_sp_text(), unit-tested on its own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames_walk.h"

/*
 * The target of the direct jump @insn (jmp or jcc, rel8 or rel32, after
 * branch-hint and bnd prefixes) in *@t; false for any other.
 */
static bool direct_target(const struct rp_insn *insn, uint64_t *t)
{
	const uint8_t *b = insn->raw;
	unsigned int i = 0;
	int64_t rel;

	while (i < insn->size && (b[i] == 0xf2 || b[i] == 0x2e ||
				  b[i] == 0x3e))
		i++;
	if (i + 2 == insn->size && (b[i] == 0xeb || (b[i] & 0xf0) == 0x70))
		rel = (int8_t)b[i + 1];
	else if (i + 5 == insn->size && b[i] == 0xe9)
		rel = (int32_t)((uint32_t)b[i + 1] | (uint32_t)b[i + 2] << 8 |
				(uint32_t)b[i + 3] << 16 |
				(uint32_t)b[i + 4] << 24);
	else if (i + 6 == insn->size && b[i] == 0x0f &&
		 (b[i + 1] & 0xf0) == 0x80)
		rel = (int32_t)((uint32_t)b[i + 2] | (uint32_t)b[i + 3] << 8 |
				(uint32_t)b[i + 4] << 16 |
				(uint32_t)b[i + 5] << 24);
	else
		return false;
	*t = insn->ip + insn->size + (uint64_t)rel;
	return true;
}

/*
 * Did the code of @a itself lead to @b, the next instruction of the
 * history: the fall-through of an ordinary instruction or a conditional
 * jump, a direct jump's target?  Not after a call, a return, a system
 * call or an indirect jump, nor where a signal or a gap came between.
 */
bool fw_led_to(const struct rp_insn *a, const struct rp_insn *b)
{
	uint64_t fall = a->ip + a->size, t;

	switch (a->iclass) {
	case RP_IC_OTHER:
		return b->ip == fall;
	case RP_IC_COND:
		return b->ip == fall ||
		       (direct_target(a, &t) && b->ip == t);
	case RP_IC_JUMP:
		return direct_target(a, &t) && b->ip == t;
	default:
		return false;
	}
}

/* Instructions from a frame's entry to its saves looked at, at most. */
#define SAVE_WALK 64

/*
 * Where the caller's registers that frame @k's rule @rule (at its
 * position @to, instruction @at) has saved in its frame got there:
 * @q[g] is the first position, walking from the frame's first
 * instruction @entry through code that only its own instructions lead
 * to (no call, return, system call, signal or gap), whose rule has @g
 * saved at the same CFA offset: the position right after the save, at
 * which the slot holds the value the register had at @entry (nothing
 * but the function's prologue ran in between, which the .eh_frame rules
 * describe).  Read there, the slot is the caller's register whatever
 * was stored into it after (a smash, a callee writing through a
 * pointer): the values engine knows the slot at @q[g] only where the
 * history implies it, from the save's value or, forward, through every
 * store after it proven not to reach it (docs/values.md, "Assumed
 * facts").  UINT64_MAX where no such position is found.
 */
void fw_save_points(struct rp_session *s, struct rp_cursor *c, uint64_t entry,
		    uint64_t to, const struct rp_insn *at,
		    const struct rp_cfi *rule, const unsigned int *regs,
		    size_t nregs, uint64_t *q)
{
	struct rp_insn prev, cur;
	struct rp_cfi r;
	uint64_t p, want = 0;
	size_t i;

	for (i = 0; i < nregs; i++) {
		q[i] = UINT64_MAX;
		if (rule->how[regs[i]] == RP_CFI_AT)
			want |= 1ull << i;
	}
	if (!want || entry >= to || to - entry > 1ull << 40 ||
	    rp_cursor_peek(c, entry, &prev))
		return;
	for (p = entry + 1; p <= to && p - entry <= SAVE_WALK && want; p++) {
		if (p == to)
			cur = *at;
		else if (rp_cursor_peek(c, p, &cur))
			return;
		if (!fw_led_to(&prev, &cur) || rp_frame_rule(s, &cur, &r))
			return;
		for (i = 0; i < nregs; i++) {
			unsigned int g = regs[i];

			if ((want >> i & 1) && r.how[g] == RP_CFI_AT &&
			    r.off[g] == rule->off[g]) {
				q[i] = p;
				want &= ~(1ull << i);
			}
		}
		prev = cur;
	}
}

/*
 * Where the frame a call opened at @entry was left by a return to
 * @resume, the instruction after the call (not a longjmp): the position
 * after the return, or UINT64_MAX.
 */
uint64_t fw_returned_at(struct rp_cursor *c, uint64_t entry, uint64_t resume)
{
	uint64_t exit = rp_cursor_frame_exit(c, entry);
	struct rp_insn insn;

	if (exit != UINT64_MAX && exit > 0 &&
	    !rp_cursor_peek(c, exit - 1, &insn) &&
	    insn.iclass == RP_IC_RETURN &&
	    !rp_cursor_peek(c, exit, &insn) && insn.ip == resume)
		return exit;
	return UINT64_MAX;
}

/* Is @op (an AT&T operand) the stack pointer? */
static bool is_sp(const char *op, size_t n)
{
	return (n == 4 && (!strncmp(op, "%rsp", 4) || !strncmp(op, "%esp", 4) ||
			   !strncmp(op, "%spl", 4))) ||
	       (n == 3 && !strncmp(op, "%sp", 3));
}


/* The register named by AT&T operand @op of @n bytes (64-bit only). */
static unsigned int reg_named(const char *op, size_t n)
{
	static const char *const names[] = {
		"%rax", "%rbx", "%rcx", "%rdx", "%rsi", "%rdi", "%rbp", "%rsp",
		"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
	};
	unsigned int g;

	for (g = 0; g < 16; g++)
		if (strlen(names[g]) == n && !strncmp(op, names[g], n))
			return g;
	return RP_REG_COUNT;
}

/*
 * What instruction @insn does to the stack pointer by itself (a call's
 * callee not counted): push and pop, add, sub and lea of a constant into
 * rsp (SP_ADD, 0 for an instruction that does not write it), add or sub
 * of a register (alloca: FW_SP_ADD_REG).  FW_SP_UNKNOWN for any other write
 * of rsp (leave, mov from a register, and with a mask), a
 * return, a far transfer and what cannot be disassembled.  Read from
 * GDB's text of the instruction (AT&T: the destination is the last
 * operand).
 */
enum fw_sp fw_sp_text(const char *text, int64_t *d, unsigned int *reg)
{
	char buf[512], *t, *ops, *last, *end;
	size_t n, depth = 0;
	bool names_sp = false;

	snprintf(buf, sizeof(buf), "%s", text);
	t = buf + strspn(buf, " \t");
	/* GDB's comment: the address a rip-relative operand names */
	end = strchr(t, '#');
	if (end)
		*end = 0;
	for (;;) {		/* prefixes: "lock", "rep", "notrack", ... */
		static const char *const pre[] = {
			"lock ", "rep ", "repz ", "repnz ", "repe ", "repne ",
			"notrack ", "bnd ", "data16 ", "addr32 ", "cs ", "ds ",
			"es ", "ss ", "fs ", "gs ", "rex", "xacquire ",
			"xrelease ",
		};
		size_t j;

		for (j = 0; j < sizeof(pre) / sizeof(pre[0]); j++)
			if (!strncmp(t, pre[j], strlen(pre[j])))
				break;
		if (j == sizeof(pre) / sizeof(pre[0]))
			break;
		t += strcspn(t, " ");
		t += strspn(t, " ");
	}
	if (*t == '(' || !*t)	/* "(bad)": not decoded */
		return FW_SP_UNKNOWN;
	n = strcspn(t, " ");
	ops = t + n + strspn(t + n, " ");
	/* The operands: rsp named outside an address, and the last one. */
	last = ops;
	for (end = ops; *end && *end != ' '; end++) {
		if (*end == '(')
			depth++;
		else if (*end == ')' && depth)
			depth--;
		else if (*end == ',' && !depth)
			last = end + 1;
		else if (*end == '%' && !depth)
			names_sp |= is_sp(end, strcspn(end, ",) "));
	}
	*d = 0;
	if (!strncmp(t, "push", 4) || !strncmp(t, "pop", 3)) {
		/* pushw/popw, pushq of rsp's own value is still -8 */
		if (t[n - 1] == 'w' || (t[1] == 'o' && names_sp))
			return FW_SP_UNKNOWN;
		*d = t[1] == 'u' ? -8 : 8;
		return FW_SP_ADD;
	}
	if (!names_sp)
		return strncmp(t, "leave", 5) && strncmp(t, "enter", 5) ?
		       FW_SP_ADD : FW_SP_UNKNOWN;
	if (!is_sp(last, (size_t)(end - last)) ||
	    !strncmp(t, "cmp", 3) || !strncmp(t, "test", 4))
		return strncmp(t, "xchg", 4) ? FW_SP_ADD : FW_SP_UNKNOWN;
	/* A constant or a register into rsp (not esp: zero-extended). */
	if (end - last != 4 || strncmp(last, "%rsp", 4))
		return FW_SP_UNKNOWN;
	if (!strncmp(t, "sub ", 4) || !strncmp(t, "add ", 4) ||
	    !strncmp(t, "subq ", 5) || !strncmp(t, "addq ", 5)) {
		if (ops[0] == '$') {
			*d = (int64_t)strtoull(ops + 1, NULL, 0);
		} else if (last > ops + 1) {
			*reg = reg_named(ops, (size_t)(last - 1 - ops));
			if (*reg == RP_REG_RSP || *reg >= RP_REG_COUNT)
				return FW_SP_UNKNOWN;
			*d = 1;
		} else {
			return FW_SP_UNKNOWN;
		}
		if (t[0] == 's')
			*d = -*d;
		return ops[0] == '$' ? FW_SP_ADD : FW_SP_ADD_REG;
	}
	if (!strncmp(t, "lea", 3)) {
		char *p;
		long long v = strtoll(ops, &p, 0);

		if (strncmp(p, "(%rsp),", 7))
			return FW_SP_UNKNOWN;
		*d = v;
		return FW_SP_ADD;
	}
	return FW_SP_UNKNOWN;
}

/* fw_sp_text() of instruction @insn, as GDB disassembles it. */
static enum fw_sp rsp_effect(struct rp_session *s, const struct rp_insn *insn,
			     int64_t *d, unsigned int *reg)
{
	char buf[512], *t;

	*d = 0;
	if (insn->iclass == RP_IC_RETURN || insn->iclass == RP_IC_FAR ||
	    rp_format_insn(s, insn, 0, false, false, buf, sizeof(buf)))
		return FW_SP_UNKNOWN;
	t = strstr(buf, ":\t");
	return t ? fw_sp_text(t + 2, d, reg) : FW_SP_UNKNOWN;
}


/*
 * Where, walking back from position @to (instruction @at) through code
 * the frame's own instructions lead to (fall-through, direct jumps;
 * over a call that returned to after itself when @calls), the nearest
 * position is whose .eh_frame rule is on rsp: its CFA is rsp there plus
 * the rule's offset.  In *@from; false where a signal, a gap, a return
 * not to after its call, a system call or more than FW_DEPTH_WALK
 * instructions come first.
 */
bool fw_anchor(struct rp_session *s, struct rp_cursor *c, uint64_t to,
	       const struct rp_insn *at, bool calls, uint64_t *from)
{
	struct rp_insn cur = *at, prev;
	uint64_t p = to, steps = 0, q;
	struct rp_cfi rule;

	for (;;) {
		if (rp_frame_rule(s, &cur, &rule))
			return false;
		if (rule.cfa_reg == RP_REG_RSP) {
			*from = p;
			return true;
		}
		if (!p || ++steps > FW_DEPTH_WALK ||
		    rp_cursor_peek(c, p - 1, &prev))
			return false;
		if (prev.iclass == RP_IC_RETURN) {
			/* Back over the call it returned from. */
			if (!calls || rp_cursor_callers(c, p - 1, &q, 1) != 1 ||
			    rp_cursor_peek(c, q, &prev) ||
			    prev.iclass != RP_IC_CALL ||
			    prev.ip + prev.size != cur.ip)
				return false;
			p = q;
		} else if (fw_led_to(&prev, &cur)) {
			p--;
		} else {
			return false;
		}
		cur = prev;
	}
}

/*
 * What the frame added to rsp from position @from, whose rule is on rsp
 * (fw_anchor()), to its position @to (instruction @at), in *@sum, and
 * that rule's offset of the CFA from rsp, in *@off: the CFA is rsp at
 * @to - *@sum + *@off.  Followed through the frame's own instructions
 * (fw_sp_text()); a register added to rsp (alloca) where the values
 * engine @rc knows it there.  Calls it made count for nothing where
 * their return came back to after the call: a callee leaves rsp as it
 * found it, the same rule as an .eh_frame rule on rsp.  Unlike a rule
 * on rbp, this never reads a register a callee gave back from its stack
 * slots, which a store may have rewritten (tests/gdb/smashes.c "ret").
 * False where the code is not followed to @to (a signal, a longjmp, a
 * system call, an rsp of unknown change, more than FW_DEPTH_WALK
 * instructions).
 */
bool fw_depth_walk(struct rp_session *s, struct rp_cursor *c,
		   struct rp_recover *rc, uint64_t from, uint64_t to,
		   const struct rp_insn *at, int64_t *sum, int64_t *off)
{
	struct rp_insn prev, cur;
	uint64_t p = from, steps = 0, next, v, known;
	unsigned int reg = RP_REG_COUNT;
	struct rp_cfi rule;
	int64_t d = 0;

	*sum = 0;
	if (from == to)
		prev = *at;
	else if (rp_cursor_peek(c, from, &prev))
		return false;
	if (rp_frame_rule(s, &prev, &rule) || rule.cfa_reg != RP_REG_RSP)
		return false;
	*off = rule.cfa_off;
	while (p < to) {
		if (++steps > FW_DEPTH_WALK)
			return false;
		if (prev.iclass == RP_IC_CALL) {
			next = fw_returned_at(c, p + 1, prev.ip + prev.size);
			if (next == UINT64_MAX || next > to)
				return false;
		} else {
			switch (rsp_effect(s, &prev, &d, &reg)) {
			case FW_SP_ADD:
				*sum += d;
				break;
			case FW_SP_ADD_REG:
				if (!rc || rp_recover_reg_bits(rc, p, reg, &v,
							       &known) ||
				    known != ~0ull)
					return false;
				*sum += d * (int64_t)v;
				break;
			default:
				return false;
			}
			next = p + 1;
		}
		if (next == to)
			cur = *at;
		else if (rp_cursor_peek(c, next, &cur))
			return false;
		if (prev.iclass != RP_IC_CALL && !fw_led_to(&prev, &cur))
			return false;
		prev = cur;
		p = next;
	}
	return true;
}

