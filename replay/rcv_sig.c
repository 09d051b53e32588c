// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What a signal's delivery tells the values engine about the handler's
 * first state (issue #18; docs/values.md, "Signal handlers' entries").
 * The software recorder writes a SIGFRAME record (sideband format 4) at
 * each delivery to a handler, once the thread stands at the handler's
 * first instruction: the stack pointer there, which is the frame's
 * address.  The kernel (arch/x86/kernel/signal_64.c, x64_setup_rt_frame())
 * then sets, for every handler, SA_SIGINFO or not:
 *
 *   rsp = the frame (struct rt_sigframe: pretcode, then struct ucontext,
 *         304 bytes, then siginfo, 128),
 *   rdi = the signal's number, rax = 0,
 *   rsi = &frame->info = rsp + 312, rdx = &frame->uc = rsp + 8,
 *
 * and clears DF, RF and TF in rflags (handle_signal(); a tracer's step
 * sets TF again, which ptrace hides, as the untraced program has it).
 * Every other register keeps the interrupted value: rbx, rbp and r8 to
 * r15 are equal after the delivery and before the instruction before it
 * where that instruction does not write them (keep_across()).  The
 * handler's entry state gets these values, merged at every pass as the
 * front end's facts are (rcv_pass.c).  The delivery is the place the
 * recorder's SIGNAL record gives (recover.c sig_compute()): a record
 * placed elsewhere, two that disagree at one place or a stack pointer
 * the kernel cannot have made (it aligns the frame so that rsp + 8 is a
 * multiple of 16) give nothing; a signal number out of range, no rdi.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"

#define SIG_UC		8u	/* &frame->uc - frame */
#define SIG_INFO	312u	/* &frame->info - frame */
#define SIG_FLAGS_CLEAR	(F_DF | F_RF | 0x100ull)	/* DF, RF, TF */

static bool is_entry(const struct rp_event *ev)
{
	return ev->kind == RP_EV_DISABLED ||
	       ev->kind == RP_EV_ASYNC_DISABLED ||
	       ev->kind == RP_EV_INTERRUPT;
}

void rcv_sig_place(struct rp_recover *rc, const uint64_t *tm, size_t n,
		   uint64_t *g)
{
	uint64_t i = 0, at = UINT64_MAX;
	struct rp_event ev;
	bool more;
	size_t j;

	more = !rp_thread_event(rc->s, rc->tid, i, &ev);
	for (j = 0; j < n; j++) {
		for (; more && ev.tsc && ev.tsc <= tm[j];
		     more = !rp_thread_event(rc->s, rc->tid, ++i, &ev))
			if (is_entry(&ev))
				at = ev.before;
		g[j] = at != UINT64_MAX && at && at < rc->count ? at - 1 :
								 UINT64_MAX;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Is @g among the places the SIGNAL records give (a transfer there)? */
static bool delivered(struct rp_recover *rc, uint64_t g)
{
	const uint64_t *pos;
	size_t n = rcv_sig_entries(rc, &pos);

	return n && n != SIZE_MAX &&
	       bsearch(&g, pos, n, sizeof(g), u64_cmp);
}

static int frame_cmp(const void *a, const void *b)
{
	const struct rcv_sigframe *x = a, *y = b;

	return x->g < y->g ? -1 : x->g > y->g;
}

/* The first of the @n frames @f (by place) placed at or after @g. */
static size_t first_at(const struct rcv_sigframe *f, size_t n, uint64_t g)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (f[m].g < g)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* rc->sigf: the thread's SIGFRAME records placed, sorted by place. */
static bool frames_compute(struct rp_recover *rc)
{
	const struct rp_session *s = rc->s;
	uint64_t *tm, *g;
	size_t k, n = 0;

	if (!s)
		return true;	/* no sideband (unit tests' windows) */
	for (k = 0; k < s->nrecs; k++)
		n += s->recs[k]->type == PTREC_SB_SIGFRAME &&
		     s->recs[k]->size >= sizeof(struct ptrec_sb_sigframe) &&
		     ((const struct ptrec_sb_sigframe *)s->recs[k])->tid ==
		     rc->tid;
	if (!n)
		return true;
	tm = malloc(n * sizeof(*tm));
	g = malloc(n * sizeof(*g));
	rc->sigf = malloc(n * sizeof(*rc->sigf));
	if (!tm || !g || !rc->sigf) {
		free(tm);
		free(g);
		free(rc->sigf);
		rc->sigf = NULL;
		return false;
	}
	/* In stream order: times do not decrease. */
	for (n = 0, k = 0; k < s->nrecs; k++) {
		const struct ptrec_sb_sigframe *f = (const void *)s->recs[k];

		if (s->recs[k]->type != PTREC_SB_SIGFRAME ||
		    s->recs[k]->size < sizeof(*f) || f->tid != rc->tid)
			continue;
		tm[n] = s->recs[k]->time;
		rc->sigf[n].sp = f->sp;
		rc->sigf[n].signo = f->signo;
		n++;
	}
	rcv_sig_place(rc, tm, n, g);
	for (k = 0; k < n; k++)
		rc->sigf[k].g = g[k];
	rc->nsigf = n;
	free(tm);
	free(g);
	/* By place (unplaced last): looked up by place, never scanned
	 * (a timer's handler may run after every few instructions).
	 */
	qsort(rc->sigf, n, sizeof(*rc->sigf), frame_cmp);
	return true;
}

size_t rcv_sig_frames(struct rp_recover *rc, const struct rcv_sigframe **out)
{
	*out = NULL;
	if (!rc->sigf_done) {
		if (!frames_compute(rc))
			return SIZE_MAX;
		rc->sigf_done = true;
	}
	*out = rc->sigf;
	return rc->nsigf;
}

/*
 * Does frame @k give the handler's entry after its place: placed where a
 * SIGNAL record places a delivery, a stack pointer the kernel can have
 * made, and every other record at that place the same?
 */
static bool frame_ok(struct rp_recover *rc, size_t k)
{
	const struct rcv_sigframe *f = &rc->sigf[k];
	size_t j;

	if (f->g == UINT64_MAX || (f->sp & 15) != 8 || f->sp < 4096 ||
	    f->sp > UINT64_MAX - 4096 || !delivered(rc, f->g))
		return false;
	for (j = first_at(rc->sigf, rc->nsigf, f->g);
	     j < rc->nsigf && rc->sigf[j].g == f->g; j++)
		if (rc->sigf[j].sp != f->sp || rc->sigf[j].signo != f->signo)
			return false;
	return true;
}

bool rcv_sig_entry_sp(struct rp_recover *rc, uint64_t g, uint64_t *sp)
{
	const struct rcv_sigframe *f;
	size_t n = rcv_sig_frames(rc, &f), k;

	if (!n || n == SIZE_MAX)
		return false;
	k = first_at(f, n, g);
	if (k == n || f[k].g != g || !frame_ok(rc, k))
		return false;
	*sp = f[k].sp;
	return true;
}

/* The handler's entry state after delivery @k into *@r; false: none. */
static bool entry_regs(struct rp_recover *rc, size_t k,
		       struct rcv_val r[RCV_NREG])
{
	const struct rcv_sigframe *f = &rc->sigf[k];
	size_t j;

	if (!frame_ok(rc, k))
		return false;
	for (j = 0; j < RCV_NREG; j++)
		r[j] = (struct rcv_val){ 0, 0 };
	r[RP_REG_RSP] = (struct rcv_val){ f->sp, ~0ull };
	r[RP_REG_RDX] = (struct rcv_val){ f->sp + SIG_UC, ~0ull };
	r[RP_REG_RSI] = (struct rcv_val){ f->sp + SIG_INFO, ~0ull };
	r[RP_REG_RAX] = (struct rcv_val){ 0, ~0ull };
	if (f->signo > 0 && f->signo <= 64)
		r[RP_REG_RDI] = (struct rcv_val){ (uint64_t)f->signo, ~0ull };
	r[RCV_FLAGS] = (struct rcv_val){ 0, SIG_FLAGS_CLEAR };
	return true;
}

/*
 * Registers the kernel keeps across the delivery after instruction @i of
 * @w (its handler's entry is state @i + 1): rbx, rbp and r8 to r15,
 * unless @i writes them (rcv_pass()'s rule: what an instruction does not
 * write is equal before and after it), both ways.  Not rcx, rsi, rdi nor
 * the flags: a rep string instruction interrupted between iterations has
 * changed them (cmps and scas the flags), and the trace shows it only
 * once it completes, after the handler.  Not after an instruction whose
 * writes are not known (one the decoder could not read, int, sysenter,
 * iret, enter...) nor after a system call whose number is not known or
 * that sets every register (rt_sigreturn, execve: rcv_sys_resets()).
 */
static bool keep_across(struct rp_recover *rc, struct win *w, size_t i)
{
	static const uint8_t keep[] = {
		RP_REG_RBX, RP_REG_RBP, RP_REG_R8, RP_REG_R9, RP_REG_R10,
		RP_REG_R11, RP_REG_R12, RP_REG_R13, RP_REG_R14, RP_REG_R15 };
	const struct rcv_ins *in = &w->ins[i];
	struct rcv_state *a = &w->st[i], *b = &w->st[i + 1];
	const struct rcv_val *rax = &a->r[RP_REG_RAX];
	uint64_t m;
	bool ch = false;
	size_t j;

	if (in->flags & RCV_I_BAD)
		return false;
	switch (in->id) {
	case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO:
	case X86_INS_UD2: case X86_INS_SYSENTER: case X86_INS_IRET:
	case X86_INS_IRETQ: case X86_INS_HLT: case X86_INS_ENTER:
	case X86_INS_XLATB:
		return false;
	default:
		break;
	}
	if ((in->flags & RCV_I_SYSCALL) &&
	    (rax->k != ~0ull || rcv_sys_resets(rax->v)))
		return false;
	for (j = 0; j < sizeof(keep); j++) {
		struct rcv_val *x = &a->r[keep[j]], *y = &b->r[keep[j]];

		m = ~rcv_wmask(in->wcode[keep[j]]);	/* syscall: r11 */
		ch |= rcv_merge(y, (struct rcv_val){ x->v & m, x->k & m },
				&rc->stats.conflicts);
		ch |= rcv_merge(x, (struct rcv_val){ y->v & m, y->k & m },
				&rc->stats.conflicts);
	}
	return ch;
}

bool rcv_sig_seed(struct rp_recover *rc, struct win *w)
{
	const struct rcv_sigframe *f;
	struct rcv_val r[RCV_NREG];
	bool ch = false;
	size_t n, k, j;

	n = rcv_sig_frames(rc, &f);
	if (!n || n == SIZE_MAX)
		return false;	/* out of memory: nothing known */
	/* The handlers' entries (state g + 1) in this window. */
	for (k = first_at(f, n, w->first ? w->first - 1 : 0);
	     k < n && f[k].g < w->last; k++) {
		struct rcv_state *e = &w->st[f[k].g + 1 - w->first];

		if (k && f[k - 1].g == f[k].g)
			continue;	/* the same place: done */
		if (!entry_regs(rc, k, r))
			continue;
		for (j = 0; j < RCV_NREG; j++)
			if (r[j].k)
				ch |= rcv_merge(&e->r[j], r[j],
						&rc->stats.conflicts);
		if (f[k].g >= w->first)
			ch |= keep_across(rc, w, f[k].g - w->first);
	}
	return ch;
}

/*
 * rt_sigreturn (Linux takes the number from eax: 0x10000000f is one too)
 * reads the frame (restore_sigcontext(), the FPU state, the mask, the
 * alternate stack) and writes no user memory.  What may follow it, a
 * signal delivered at its return (the mask it restores may unblock one),
 * writes a frame, which the watch scan takes from the delivery's records
 * (watch_kern.c) where the recorder writes them.
 */
bool rcv_sig_return_quiet(struct rp_recover *rc, uint64_t nr)
{
	if ((uint32_t)nr != 15 || !rc->s)
		return false;
	if (!rc->sig_rec)
		rc->sig_rec = rcv_backend_emu(rc->s) ? 2 : 1;
	return rc->sig_rec == 2;
}
