// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PTWRITE in the software recorder: programs built with -mptwrite
 * (__builtin_ia32_ptwrite64()) write values into the trace, which only a
 * CPU with PT's PTWRITE support executes (elsewhere it raises #UD, or, as
 * on this AMD host, runs as a no-op).  The recorder never runs it: it
 * reads the operand from the stopped thread, emits the PTW packet with its
 * FUP as a CPU with FUPonPTW does (ptkit's ptenc_ptwrite()), records the
 * instruction in the ground truth and moves the thread past it, so the
 * values are recorded on any machine.
 *
 * The encoding (SDM Vol. 2B, PTWRITE): F3 [REX.W] 0F AE /4, r/m32 or
 * r/m64; the operand is a register or memory (ModRM/SIB, Vol. 2A 2.1.5).
 */
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "emu.h"

/* A decoded PTWRITE. */
struct ptw {
	unsigned int len;	/* instruction bytes */
	unsigned int size;	/* operand bytes: 4 or 8 */
	int reg;		/* register operand (0-15), -1: memory */
	uint64_t addr;		/* memory operand's address */
};

/* General-purpose register @n (ModRM numbering) of @r. */
static uint64_t gpr(const struct user_regs_struct *r, unsigned int n)
{
	const uint64_t v[16] = {
		r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi,
		r->rdi, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
		r->r14, r->r15,
	};

	return v[n & 15];
}

/*
 * Decodes @b (@n bytes at @r->rip) as a PTWRITE.  Returns 0, or -1 when
 * it is none (or a form this does not know: it then runs as it would).
 */
static int decode(const uint8_t *b, size_t n,
		       const struct user_regs_struct *r, struct ptw *p)
{
	bool f3 = false, a32 = false;
	uint64_t seg = 0, base = 0;
	unsigned int rex = 0, mod, rm, i = 0;

	for (; i < n; i++) {
		if (b[i] == 0xf3)
			f3 = true;
		else if (b[i] == 0x67)
			a32 = true;
		else if (b[i] == 0x64)
			seg = r->fs_base;
		else if (b[i] == 0x65)
			seg = r->gs_base;
		else if (b[i] != 0x2e && b[i] != 0x3e && b[i] != 0x26 &&
			 b[i] != 0x36)
			break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (!f3 || i + 3 > n || b[i] != 0x0f || b[i + 1] != 0xae ||
	    ((b[i + 2] >> 3) & 7) != 4)
		return -1;
	mod = b[i + 2] >> 6;
	rm = b[i + 2] & 7;
	i += 3;
	p->size = rex & 8 ? 8 : 4;
	p->reg = -1;
	p->addr = 0;
	if (mod == 3) {
		p->reg = (int)(rm | (rex & 1) << 3);
		p->len = i;
		return 0;
	}
	if (rm == 4) {
		/* SIB: scale, index (4 without REX.X: none), base. */
		unsigned int sib, idx, bs;

		if (i >= n)
			return -1;
		sib = b[i++];
		idx = ((sib >> 3) & 7) | (rex & 2) << 2;
		bs = (sib & 7) | (rex & 1) << 3;
		if (idx != 4)
			base += gpr(r, idx) << (sib >> 6);
		if ((sib & 7) == 5 && mod == 0) {
			mod = 2;	/* disp32, no base */
		} else {
			base += gpr(r, bs);
		}
	} else if (rm == 5 && mod == 0) {
		int32_t d;

		if (i + 4 > n)
			return -1;
		memcpy(&d, b + i, 4);
		i += 4;
		p->len = i;
		p->addr = r->rip + i + (uint64_t)(int64_t)d;
		return 0;
	} else {
		base = gpr(r, rm | (rex & 1) << 3);
	}
	if (mod == 1) {
		if (i + 1 > n)
			return -1;
		base += (uint64_t)(int64_t)(int8_t)b[i++];
	} else if (mod == 2) {
		int32_t d;

		if (i + 4 > n)
			return -1;
		memcpy(&d, b + i, 4);
		i += 4;
		base += (uint64_t)(int64_t)d;
	}
	if (a32)
		base = (uint32_t)base;
	p->addr = seg + base;
	p->len = i;
	return 0;
}

bool emu_ptwrite(struct emu *e, struct thr *t)
{
	uint8_t buf[15];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { (void *)(uintptr_t)t->ip, sizeof(buf) };
	struct insn in = { .cls = IC_OTHER };
	uint64_t val = 0;
	struct ptw p;
	ssize_t n;

	/* Cheap first: PTWRITE is at least F3 0F AE /4 (4 bytes). */
	if (t->in.cls != IC_OTHER || t->in.rep)
		return false;
	n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
	if (n < 4 || !memchr(buf, 0xae, (size_t)n) ||
	    decode(buf, (size_t)n, &t->regs, &p))
		return false;
	if (p.reg >= 0) {
		val = gpr(&t->regs, (unsigned int)p.reg);
	} else {
		struct iovec l = { &val, p.size };
		struct iovec rm = { (void *)(uintptr_t)p.addr, p.size };

		/* Unreadable: let it run, and fault as it would. */
		if (process_vm_readv(t->tid, &l, 1, &rm, 1, 0) !=
		    (ssize_t)p.size)
			return false;
	}
	if (p.size == 4)
		val = (uint32_t)val;
	t->regs.rip = t->ip + p.len;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs) < 0) {
		t->regs.rip = t->ip;
		return false;
	}
	emu_enc_check(e, t, ptenc_ptwrite(&t->enc, t->ip, val, p.size));
	in.len = (uint8_t)p.len;
	emu_enc_check(e, t, ptenc_retire(&t->enc, &in, t->ip,
					 t->ip + p.len));
	/* The registers after it are those before: it changes none. */
	emu_truth_add_regs(e, t, t->ip, true);
	e->st->ptwrites++;
	t->st = T_READY;
	return true;
}
