// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Frame ids and caller registers for the plugin's unwinder (#17), served
 * as memory at FREGS_ADDR next to the published call stack (target.c).
 *
 * GDB takes a frame's base (DW_OP_call_frame_cfa, where -O0 code keeps
 * its locals) from the stack address of the frame id the unwinder gives.
 * A recorded frame whose canonical frame address (CFA) is known gets it
 * as its id, so `print` and `info locals` read the frame's variables from
 * recovered memory.  The CFA is found as GDB's DWARF unwinder finds it:
 * frame 0's from the recovered registers at the position and the
 * .eh_frame rule at its pc (rp_frame_rule()), each caller's from the
 * registers its callee saved (recovered memory at the position), as long
 * as they are known and the return address saved there, when known, is
 * the recorded one; else from the stack pointer the recovery engine
 * finds at the frame's first instruction, plus 8.  Ids must stay the same while
 * a frame lives (GDB compares them across stops to step and finish), and
 * what the engine knows at a position can grow as it computes more, so a
 * frame's CFA and registers are decided the first time it is asked for
 * and kept for the session.
 *
 * GDB also stops unwinding when a frame's id is inner to (below) the
 * id of the frame it calls.  Frames whose CFA is not known keep
 * synthetic ids outside the real stack: above it (FRAME_BASE - 16 *
 * position) while no frame outer to them is known, below it (LOW_BASE -
 * 16 * position) once one is.  Walking from the outermost frame inward:
 * frames are "high" until the first known one, "real" while known,
 * "low" from the first unknown one on.  A frame's class depends only on
 * itself and the frames it was called from, so it is fixed for its life,
 * and ids never decrease outward.  Memory at synthetic ids is not
 * readable (no mapping there), so their locals are unavailable, never
 * wrong.
 *
 * The caller's callee-saved registers (rbx, rbp, r12-r15) are those at
 * the callee's first instruction (the callee preserves them: the ABI,
 * which GDB's own DWARF unwinding assumes too), its rsp the callee's CFA,
 * when known; the others are not given (GDB: <not saved>).
 *
 * What a decided CFA implies about the stack pointer (and the register
 * a frame's rule computes its CFA from) at the frame's call, first
 * instruction and return goes back to the values engine as facts
 * (rp_recover_assume()), which then knows more of the frames inside it
 * and their memory: docs/gdb.md, "Values in outer frames".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames_walk.h"
#include "target.h"

/* The slots after a frame's id word, in order (FREGS_* in target.h). */
static const unsigned int saved[FREGS_REGS] = {
	RP_REG_RBX, RP_REG_RBP, RP_REG_R12, RP_REG_R13, RP_REG_R14,
	RP_REG_R15,
};

struct frame_memo {
	uint32_t tid;
	bool used;
	uint64_t entry;
	uint64_t mask;		/* FREGS_RSP and saved[] slots known */
	uint64_t val[1 + FREGS_REGS];
};

static uint64_t memo_hash(uint32_t tid, uint64_t entry)
{
	uint64_t h = entry * 0x9e3779b97f4a7c15ull ^ tid;

	return h ^ (h >> 29);
}

static struct frame_memo *memo_find(struct target *tg, uint32_t tid,
				    uint64_t entry, bool *fresh)
{
	size_t i, mask;

	if (tg->memo_len * 2 >= tg->memo_cap) {
		size_t cap = tg->memo_cap ? 2 * tg->memo_cap : 256, j;
		struct frame_memo *m = calloc(cap, sizeof(*m)), *old;

		if (!m)
			return NULL;
		old = tg->memo;
		for (j = 0; j < tg->memo_cap; j++) {
			if (!old[j].used)
				continue;
			i = memo_hash(old[j].tid, old[j].entry) & (cap - 1);
			while (m[i].used)
				i = (i + 1) & (cap - 1);
			m[i] = old[j];
		}
		free(old);
		tg->memo = m;
		tg->memo_cap = cap;
	}
	mask = tg->memo_cap - 1;
	for (i = memo_hash(tid, entry) & mask; tg->memo[i].used;
	     i = (i + 1) & mask)
		if (tg->memo[i].tid == tid && tg->memo[i].entry == entry) {
			*fresh = false;
			return &tg->memo[i];
		}
	tg->memo[i].used = true;
	tg->memo[i].tid = tid;
	tg->memo[i].entry = entry;
	tg->memo_len++;
	*fresh = true;
	return &tg->memo[i];
}

/*
 * Whether frame @k of the published stack was entered by a call (or is
 * the history's first frame, entered at a function's first instruction):
 * only then is its CFA the stack pointer at its first instruction plus 8,
 * and the registers there its caller's.  A signal handler's frame, the
 * signal frame and the frames called before the history are not.
 */
static bool entered_by_call(struct target *tg, size_t cur, uint64_t entry)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	struct rp_insn insn;
	struct rp_sym sym;

	if (entry & (SIGTRAMP_BIT | PREHIST_BIT))
		return false;
	if (entry == 0)
		return !rp_cursor_peek(c, 0, &insn) &&
		       !rp_symbolize(tg->s, &insn, &sym) && sym.function &&
		       !sym.offset;
	return !rp_cursor_peek(c, entry - 1, &insn) &&
	       insn.iclass == RP_IC_CALL;
}

/*
 * Was the call that opened frame @k of the published stack @w made in
 * frame @k + 1?  Not where the stack was cut short (STACK_MAX_FRAMES:
 * the history's first frame follows the innermost ones) or a signal
 * frame comes between: then the frame outside in @w is not its caller.
 */
static bool calls_from(struct target *tg, size_t cur, const uint64_t *w,
		       size_t k)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t entry = w[3 + 3 * k], outer, call;
	int n;

	if (k + 1 >= w[1] || !entry || (entry & (SIGTRAMP_BIT | PREHIST_BIT)))
		return false;
	outer = w[6 + 3 * k];
	if (outer & (SIGTRAMP_BIT | PREHIST_BIT))
		return false;
	n = rp_cursor_frames(c, entry - 1, &call, 1);
	return outer ? n == 1 && call + 1 == outer : n == 0;
}

static struct frame_memo *memo_get(struct target *tg, size_t cur,
				   uint64_t entry)
{
	size_t i, mask;
	uint32_t tid = rp_timeline_tid(tg->tl, cur);

	if (!tg->memo_cap)
		return NULL;
	mask = tg->memo_cap - 1;
	for (i = memo_hash(tid, entry) & mask; tg->memo[i].used;
	     i = (i + 1) & mask)
		if (tg->memo[i].tid == tid && tg->memo[i].entry == entry)
			return &tg->memo[i];
	return NULL;
}

/*
 * The instruction frame 0 is at, position @pos with registers @r: at the
 * end of a history that stopped after its last instruction there is none
 * in the trace; then the final rip, in the last one's image when both are
 * in one function.
 */
static int insn_at(struct target *tg, struct rp_cursor *c, uint64_t pos,
		   const struct rp_regs *r, struct rp_insn *insn)
{
	struct rp_sym a, b;
	struct rp_insn at;
	char fn[256];

	if (!rp_cursor_peek(c, pos, insn))
		return 0;
	if (!pos || !(r->valid >> RP_REG_RIP & 1) ||
	    rp_cursor_peek(c, pos - 1, &at) ||
	    r->val[RP_REG_RIP] - at.ip + 4096 > 8192 ||
	    rp_symbolize(tg->s, &at, &a) || !a.function)
		return -1;
	snprintf(fn, sizeof(fn), "%s", a.function);
	*insn = at;
	insn->ip = r->val[RP_REG_RIP];
	insn->image_off += insn->ip - at.ip;
	if (rp_symbolize(tg->s, insn, &b) || !b.function ||
	    strcmp(fn, b.function))
		return -1;
	return 0;
}

/*
 * The CFA of the frame the call at @call opened, in the frame outside
 * whose CFA is @outer: the stack pointer before the call, from the rule
 * at the call when it is on rsp, else from what the outer frame's own
 * instructions added to rsp since the nearest position before whose
 * rule is on rsp (fw_anchor(), fw_depth_walk(): a rule on rbp says what
 * rbp should be, not rsp).  So the frames inside a known one are known
 * from it (printf's, called from a known main), as the chain knows the
 * frames outside a known one.
 */
static bool inward_cfa(struct target *tg, struct rp_cursor *c,
		       struct rp_recover *rc, uint64_t call, uint64_t outer,
		       uint64_t *cfa)
{
	struct rp_insn insn;
	struct rp_cfi rule;
	int64_t sum, off;
	uint64_t from;

	if (rp_cursor_peek(c, call, &insn) || insn.iclass != RP_IC_CALL ||
	    rp_frame_rule(tg->s, &insn, &rule))
		return false;
	if (rule.cfa_reg == RP_REG_RSP) {
		*cfa = outer - (uint64_t)rule.cfa_off;
		return true;
	}
	if (!fw_anchor(tg->s, c, call, &insn, true, &from) ||
	    !fw_depth_walk(tg->s, c, rc, from, call, &insn, &sum, &off))
		return false;
	*cfa = outer - (uint64_t)off + (uint64_t)sum;
	return true;
}

/*
 * Does the return address saved at @addr, as the values engine knows it
 * before @pos, differ from the recorded @ra?  False when not known.
 */
static bool ra_differs(struct rp_recover *rc, uint64_t pos, uint64_t addr,
		       uint64_t ra)
{
	uint64_t v;

	return rp_recover_mem(rc, pos, addr, &v, 8) == 8 && v != ra;
}

/*
 * Does the history end (@pos, registers @r) at the first instruction of
 * the function its last instruction, a direct call (*@call), called?
 */
static bool ends_in_callee(struct rp_cursor *c, uint64_t pos,
			   const struct rp_regs *r, struct rp_insn *call)
{
	struct rp_insn insn;
	int32_t rel;

	if (!pos || !rp_cursor_peek(c, pos, &insn) ||
	    rp_cursor_peek(c, pos - 1, call) || call->iclass != RP_IC_CALL ||
	    call->size != 5 || call->raw[0] != 0xe8 ||
	    (r->valid & (1ull << RP_REG_RIP | 1ull << RP_REG_RSP)) !=
	    (1ull << RP_REG_RIP | 1ull << RP_REG_RSP))
		return false;
	rel = (int32_t)((uint32_t)call->raw[1] | (uint32_t)call->raw[2] << 8 |
			(uint32_t)call->raw[3] << 16 |
			(uint32_t)call->raw[4] << 24);
	return r->val[RP_REG_RIP] == call->ip + 5 + (uint64_t)(int64_t)rel;
}

/*
 * The frame chain of the published stack @w at its position, from frame 0
 * outward, for
 * frames 0..@want: @cfa[k] (0: not known) and @caller[k], the registers
 * of frame k + 1 (rsp and saved[] in val, bit (1 << reg) in valid).
 * Stops at the first frame whose CFA is not known.
 */
static void chain(struct target *tg, size_t cur, struct rp_recover *rc,
		  const uint64_t *w, size_t want, uint64_t *cfa,
		  struct rp_regs *caller)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t pos = w[2], at = pos, q[FREGS_REGS], from, rav;
	int64_t sum, off;
	struct rp_regs r;
	struct rp_insn insn;
	struct rp_cfi rule;
	size_t k, i;

	if (rp_recover_regs(rc, pos, &r))
		return;
	r.valid &= 1ull << RP_REG_RSP | 1ull << RP_REG_RBX |
		   1ull << RP_REG_RBP | 1ull << RP_REG_R12 |
		   1ull << RP_REG_R13 | 1ull << RP_REG_R14 |
		   1ull << RP_REG_R15 | 1ull << RP_REG_RIP;
	/* A history that ends at the first instruction of a function its
	 * last instruction called (a fault there: no frame for it is
	 * published) has frame 0 at that call, with rsp before it.
	 */
	if (ends_in_callee(c, pos, &r, &insn)) {
		at = pos - 1;
		r.val[RP_REG_RSP] += 8;
	}
	for (k = 0; k < want && k < w[1]; k++) {
		uint64_t entry = w[3 + 3 * k];

		if (entry & (SIGTRAMP_BIT | PREHIST_BIT) ||
		    (k || at != pos ? rp_cursor_peek(c, at, &insn) :
		     insn_at(tg, c, at, &r, &insn)) ||
		    rp_frame_rule(tg->s, &insn, &rule) ||
		    !(r.valid >> rule.cfa_reg & 1))
			return;
		cfa[k] = r.val[rule.cfa_reg] + (uint64_t)rule.cfa_off;
		/* A rule on another register than rsp (rbp at -O0) holds
		 * only while that register is the one the frame set: a
		 * callee that gave it back from a rewritten slot changed
		 * it.  The frame's own stack arithmetic must agree.
		 */
		if (rule.cfa_reg != RP_REG_RSP &&
		    (!(r.valid >> RP_REG_RSP & 1) ||
		     !fw_anchor(tg->s, c, at, &insn, true, &from) ||
		     !fw_depth_walk(tg->s, c, rc, from, at, &insn, &sum,
				    &off) ||
		     r.val[RP_REG_RSP] - (uint64_t)sum + (uint64_t)off !=
		     cfa[k])) {
			cfa[k] = 0;
			return;
		}
		/* The return address it saved must be the recorded one
		 * where known, at the position and at the frame's first
		 * instruction (where the call has just written it): else
		 * the CFA is not this frame's.  An outer frame's rule must
		 * have it saved.
		 */
		rav = cfa[k] + (uint64_t)rule.off[RP_REG_RIP];
		if ((k && rule.how[RP_REG_RIP] != RP_CFI_AT) ||
		    (rule.how[RP_REG_RIP] == RP_CFI_AT && k + 1 < w[1] &&
		     (ra_differs(rc, pos, rav, w[5 + 3 * k]) ||
		      (entered_by_call(tg, cur, entry) &&
		       ra_differs(rc, entry, rav, w[5 + 3 * k]))))) {
			cfa[k] = 0;
			return;
		}
		/* The registers it saved: read where each save had just
		 * been made (fw_save_points()), not at the position, where a
		 * store may have overwritten the slot since.
		 */
		if (entered_by_call(tg, cur, entry))
			fw_save_points(tg->s, c, entry, at, &insn, &rule, saved,
				       FREGS_REGS, q);
		else
			for (i = 0; i < FREGS_REGS; i++)
				q[i] = UINT64_MAX;
		caller[k].valid = 1ull << RP_REG_RSP;
		caller[k].val[RP_REG_RSP] = cfa[k];
		for (i = 0; i < FREGS_REGS; i++) {
			unsigned int g = saved[i];
			uint64_t v;

			if (rule.how[g] == RP_CFI_SAME && (r.valid >> g & 1)) {
				v = r.val[g];
			} else if (rule.how[g] == RP_CFI_AT &&
				   q[i] != UINT64_MAX &&
				   rp_recover_mem(rc, q[i], cfa[k] +
						  (uint64_t)rule.off[g], &v,
						  8) == 8) {
			} else {
				continue;
			}
			caller[k].valid |= 1ull << g;
			caller[k].val[g] = v;
		}
		/* The caller's pc is its call's: only a frame a call opened
		 * has a caller whose registers these are.
		 */
		if (!entered_by_call(tg, cur, entry) ||
		    !calls_from(tg, cur, w, k))
			return;
		r = caller[k];
		at = entry - 1;
	}
}

/*
 * The caller's registers of the frame a call opened at @entry, in
 * @r->val with (1 << reg) in @r->valid: rsp (the CFA) at the frame's
 * first instruction (rsp + 8 there) and after its return to @resume
 * (rsp there), and saved[] at the first instruction: the caller's at
 * its call.  Not saved[] after the return: the callee gives them back
 * from its stack slots, which a store through a pointer may have
 * changed in between (tests/gdb/smash.c), and where the values engine
 * proves the slot kept, it knows them at the first instruction too.
 * False when the two rsp disagree.
 */
static bool caller_regs(struct target *tg, size_t cur, struct rp_recover *rc,
			uint64_t entry, uint64_t resume, struct rp_regs *r)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t exit = fw_returned_at(c, entry, resume), mask;
	struct rp_regs a, b;
	unsigned int g;

	memset(r, 0, sizeof(*r));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	mask = 1ull << RP_REG_RSP;
	for (g = 0; g < FREGS_REGS; g++)
		mask |= 1ull << saved[g];
	if (!rp_recover_regs(rc, entry, &a)) {
		a.valid &= mask;
		a.val[RP_REG_RSP] += 8;
	} else {
		a.valid = 0;
	}
	/* Left by a return to where the call resumes (not a longjmp). */
	if (exit != UINT64_MAX && !rp_recover_regs(rc, exit, &b))
		b.valid &= 1ull << RP_REG_RSP;
	else
		b.valid = 0;
	for (g = 0; g < RP_REG_COUNT; g++) {
		bool ka = a.valid >> g & 1, kb = b.valid >> g & 1;

		if (ka && kb && a.val[g] != b.val[g])
			return false;
		if (ka || kb) {
			r->valid |= 1ull << g;
			r->val[g] = ka ? a.val[g] : b.val[g];
		}
	}
	return true;
}

/*
 * Facts for the values engine, given in batches (rp_recover_assume()
 * computes the windows they touch once per batch): before a frame is
 * decided (it asks the engine about its first instruction and its
 * return) and at the end of each stop's frames.
 */
static struct rp_fact *facts;
static size_t nfacts, facts_cap;
/* Batches given before frames at one stop: each computes windows again
 * (milliseconds), and a stop deep in a recursion decides hundreds of
 * frames at once (GDB gives up on a reply after 2 s).  The frames
 * decided after these get the facts of the frames outside them only
 * at later stops.
 */
#define FLUSH_MAX 8
static unsigned int flushes;

static void facts_flush(struct rp_recover *rc)
{
	/* PTREC_NO_FACTS=1: what the history alone gives (docs/gdb.md). */
	const char *off = getenv("PTREC_NO_FACTS");

	if (nfacts && !(off && *off && strcmp(off, "0")))
		rp_recover_assume(rc, facts, nfacts);
	nfacts = 0;
}

/* Before a frame is decided, within the stop's budget. */
static void facts_flush_some(struct rp_recover *rc)
{
	if (nfacts && flushes < FLUSH_MAX) {
		flushes++;
		facts_flush(rc);
	}
}

static void fact_add(struct rp_recover *rc, uint64_t pos, unsigned int reg,
		     uint64_t val)
{
	if (nfacts == facts_cap) {
		size_t cap = facts_cap ? 2 * facts_cap : 64;
		struct rp_fact *f = realloc(facts, cap * sizeof(*f));

		if (!f) {
			facts_flush(rc);	/* no room: give these now */
			return;
		}
		facts = f;
		facts_cap = cap;
	}
	facts[nfacts++] = (struct rp_fact){ .pos = pos, .reg = reg,
					    .val = val };
}

/*
 * The register a frame's .eh_frame rule at instruction @pos computes its
 * CFA from, given to the values engine (rp_recover_assume()) as the CFA
 * minus the rule's offset: rsp; or rbp where nothing but the frame's own
 * code ran since its last position whose rule is on rsp (fw_anchor() with
 * no call: a callee that gave rbp back from a slot a store rewrote
 * would have changed it, and the rule then says what rbp should be, not
 * what it is).
 */
static void assume_rule(struct target *tg, struct rp_cursor *c,
			struct rp_recover *rc, uint64_t pos, uint64_t cfa)
{
	struct rp_insn insn;
	struct rp_cfi rule;
	uint64_t from;

	if (rp_cursor_peek(c, pos, &insn) ||
	    rp_frame_rule(tg->s, &insn, &rule) ||
	    (rule.cfa_reg != RP_REG_RSP &&
	     (rule.cfa_reg != RP_REG_RBP ||
	      !fw_anchor(tg->s, c, pos, &insn, false, &from))))
		return;
	fact_add(rc, pos, rule.cfa_reg, cfa - (uint64_t)rule.cfa_off);
}

/*
 * What a frame's CFA says about the history, given to the values engine
 * (rp_recover_assume()): the stack pointer was the CFA before the call
 * at @entry - 1, the CFA - 8 at the frame's first instruction and the
 * CFA again after its return (where a return left it for the
 * instruction after the call: not a longjmp).  These are the definition
 * of the CFA and the .eh_frame rules at the call's target and at the
 * return (CFA = rsp + 8).  The engine carries them through the
 * push/pop/sub arithmetic it tracks, so the stack pointer (and the frame
 * pointers derived from it) of the frames the call led to and of the
 * caller around it become known where the history alone lost them (a
 * push/pop pair of rbp across printf's stores through pointers): their
 * frames' CFAs follow, and the stores their code makes through rsp and
 * rbp get addresses.  Refused (and then not used) where it contradicts
 * what the engine knows.
 */
static void assume_entry(struct target *tg, size_t cur, struct rp_recover *rc,
			 uint64_t entry, uint64_t resume, uint64_t cfa)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t exit = fw_returned_at(c, entry, resume);

	/* The history's first frame (entry 0) has no call before it. */
	if (entry)
		fact_add(rc, entry - 1, RP_REG_RSP, cfa);
	fact_add(rc, entry, RP_REG_RSP, cfa - 8);
	if (exit != UINT64_MAX)
		fact_add(rc, exit, RP_REG_RSP, cfa);
}

/*
 * The caller of the frame a call opened at @entry, whose CFA is
 * @outer: at the call, and after the frame's return to @resume (the
 * registers its callee's pops gave back, which the history alone may
 * not link), the register its .eh_frame rule there computes its CFA
 * from (assume_rule()).
 */
static void assume_caller(struct target *tg, size_t cur, struct rp_recover *rc,
			  uint64_t entry, uint64_t resume, uint64_t outer)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t exit = fw_returned_at(c, entry, resume);

	assume_rule(tg, c, rc, entry - 1, outer);
	if (exit != UINT64_MAX)
		assume_rule(tg, c, rc, exit, outer);
}

/*
 * The recorded frame starting at @entry, frame @k of the published stack:
 * its CFA and its caller's registers, from the chain (@cfa, @caller) or
 * the registers at its first instruction, decided once.
 */
static const struct frame_memo *frame_regs(struct target *tg, size_t cur,
					   uint64_t entry, uint64_t resume,
					   uint64_t cfa,
					   const struct rp_regs *caller)
{
	uint32_t tid = rp_timeline_tid(tg->tl, cur);
	struct rp_recover *rc;
	struct frame_memo *m;
	struct rp_regs r;
	bool fresh;
	size_t i;

	m = memo_find(tg, tid, entry, &fresh);
	if (!m || !fresh)
		return m;
	m->mask = 0;
	rc = target_recovery(tg, cur);
	if (rc)
		facts_flush_some(rc);
	memset(&r, 0, sizeof(r));
	if (rc && entered_by_call(tg, cur, entry) &&
	    (!caller_regs(tg, cur, rc, entry, resume, &r) ||
	     (cfa && (r.valid >> RP_REG_RSP & 1) &&
	      r.val[RP_REG_RSP] != cfa)))
		return m;	/* ways to one CFA that disagree: none */
	if (cfa) {
		r.valid |= 1ull << RP_REG_RSP;
		r.val[RP_REG_RSP] = cfa;
		for (i = 0; i < FREGS_REGS; i++) {
			unsigned int g = saved[i];

			if (!(caller->valid >> g & 1))
				continue;
			if ((r.valid >> g & 1) && r.val[g] != caller->val[g]) {
				r.valid &= ~(1ull << g);
				continue;
			}
			r.valid |= 1ull << g;
			r.val[g] = caller->val[g];
		}
	}
	if (r.valid >> RP_REG_RSP & 1) {
		m->mask |= 1;
		m->val[0] = r.val[RP_REG_RSP];
		if (rc && entered_by_call(tg, cur, entry))
			assume_entry(tg, cur, rc, entry, resume, m->val[0]);
	}
	for (i = 0; i < FREGS_REGS; i++)
		if (r.valid >> saved[i] & 1) {
			m->mask |= 2ull << i;
			m->val[1 + i] = r.val[saved[i]];
		}
	return m;
}

/*
 * The frames live at the end of thread @cur's history whose CFA its final
 * registers and memory (the snapshot's) show, decided before any other
 * position is asked: main's, in a program that crashed in it.
 */
static void decide_end_frames(struct target *tg, size_t cur,
			      struct rp_recover *rc)
{
	static uint64_t w[3 + 3 * STACK_MAX_FRAMES];
	static uint64_t cfa[STACK_MAX_FRAMES];
	static struct rp_regs caller[STACK_MAX_FRAMES];
	size_t k;

	if (!tg->end_done)
		tg->end_done = calloc(rp_timeline_count(tg->tl),
				      sizeof(*tg->end_done));
	if (!tg->end_done || tg->end_done[cur])
		return;
	tg->end_done[cur] = true;
	target_call_stack(tg, cur, rp_timeline_end(tg->tl, cur), w,
			  sizeof(w) / sizeof(w[0]));
	memset(cfa, 0, sizeof(cfa));
	memset(caller, 0, sizeof(caller));
	chain(tg, cur, rc, w, w[1], cfa, caller);
	for (k = 0; k < w[1]; k++)
		if (cfa[k])
			frame_regs(tg, cur, w[3 + 3 * k], w[5 + 3 * k], cfa[k],
				   &caller[k]);
	facts_flush(rc);
}

/*
 * Does GDB's own DWARF unwinder end the stack at frame @k of the published
 * stack @w, as on the live process?  Its .eh_frame rule at its pc (at the
 * call it made, for a caller: GDB looks the rule up at pc - 1) marks the
 * return address undefined, as glibc's thread starts (clone3's and
 * clone's) and _start do, and the register the rule computes the CFA from
 * is one GDB gets for a caller from the plugin's unwinding of frame
 * k - 1 (@fregs): without it GDB's unwinder fails ("value has been
 * optimized out"), so such a frame stays the plugin's, with its caller
 * at PC 0.
 */
static bool cfi_outermost(struct target *tg, size_t cur, const uint64_t *w,
			  const uint64_t *fregs, size_t k)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	uint64_t entry = w[3 + 3 * k], in, mask;
	struct rp_insn insn;
	struct rp_cfi rule;
	size_t i;

	if (entry & (SIGTRAMP_BIT | PREHIST_BIT))
		return false;
	if (!k) {
		/* (At the end GDB unwinds by itself, with the snapshot's
		 * registers: no instruction of the history is frame 0's.)
		 */
		if (rp_cursor_peek(c, w[2], &insn))
			return false;
	} else {
		in = w[3 + 3 * (k - 1)];
		if (!entered_by_call(tg, cur, in) ||
		    !calls_from(tg, cur, w, k - 1) ||
		    rp_cursor_peek(c, in - 1, &insn))
			return false;
	}
	if (rp_frame_rule(tg->s, &insn, &rule) ||
	    rule.how[RP_REG_RIP] != RP_CFI_UNDEFINED)
		return false;
	/* Frame 0's registers are the target's, which GDB reads as
	 * unavailable where not known: its unwinder then stops there too
	 * ("Backtrace stopped: Not enough registers or memory available"),
	 * with no frame made up.
	 */
	if (!k)
		return true;
	mask = fregs[FREGS_WORDS * (k - 1) + 1];
	if (rule.cfa_reg == RP_REG_RSP)
		return mask & 1;
	for (i = 0; i < FREGS_REGS; i++)
		if (saved[i] == rule.cfa_reg)
			return mask >> (1 + i) & 1;
	return false;
}

/* Fills tg->fregs for the published stack tg->stack of thread @cur. */
static void frames_compute(struct target *tg, size_t cur)
{
	static uint64_t cfa[STACK_MAX_FRAMES];
	static struct rp_regs caller[STACK_MAX_FRAMES];
	struct rp_recover *rc = target_recovery(tg, cur);
	const uint64_t *w = tg->stack;
	size_t n = w[1], k, fresh = 0, cut;
	enum { HIGH, REAL, LOW } state = HIGH;
	uint64_t outer = 0;	/* the CFA of the frame outside, when real */

	memset(tg->fregs, 0, sizeof(tg->fregs));
	flushes = 0;
	/* Every frame outer to one decided before was published with it,
	 * and decided then: only the innermost new ones need the chain.
	 */
	if (rc)
		decide_end_frames(tg, cur, rc);
	for (k = 0; k < n; k++)
		if (!memo_get(tg, cur, w[3 + 3 * k]))
			fresh = k + 1;
	memset(cfa, 0, sizeof(cfa[0]) * n);
	memset(caller, 0, sizeof(caller[0]) * n);
	if (rc && fresh)
		chain(tg, cur, rc, w, fresh, cfa, caller);
	/* Where the stack was cut short, the frame after the cut is not
	 * the caller of the one before it (GDB shows it with that one's
	 * return address, and would read that one's variables at its CFA):
	 * it and the frames outside keep synthetic ids.
	 */
	cut = n;
	for (k = 0; k + 1 < n && n >= STACK_MAX_FRAMES - 1; k++)
		if (!(w[6 + 3 * k] & SIGTRAMP_BIT) &&
		    entered_by_call(tg, cur, w[3 + 3 * k]) && w[3 + 3 * k] &&
		    !calls_from(tg, cur, w, k)) {
			cut = k + 1;
			break;
		}
	for (k = n; k-- > 0;) {
		uint64_t entry = w[3 + 3 * k], *f = &tg->fregs[FREGS_WORDS * k];
		const struct frame_memo *m = NULL;
		size_t i;

		uint64_t in = cfa[k];

		/* Not known from inside: from the frame outside. */
		if (!in && outer && rc && !memo_get(tg, cur, entry) &&
		    calls_from(tg, cur, w, k) &&
		    entered_by_call(tg, cur, entry))
			inward_cfa(tg, rp_timeline_cursor(tg->tl, cur), rc,
				   entry - 1, outer, &in);
		/* A low frame's id stays synthetic, but the registers
		 * its caller had are known as well as any frame's.
		 */
		if (!tg->no_values)
			m = frame_regs(tg, cur, entry, w[5 + 3 * k], in,
				       &caller[k]);
		if (k >= cut) {
			/* Beyond a cut: its own facts were given, but its
			 * id is not shown (nor its CFA used inward).
			 */
		} else if (m && (m->mask & 1)) {
			if (state == HIGH)
				state = REAL;
		} else if (state == REAL) {
			state = LOW;
		}
		if (state != REAL)
			outer = 0;
		if (m && (m->mask & 1) && state == REAL) {
			f[0] = m->val[0];
			if (rc && outer && entry &&
			    entered_by_call(tg, cur, entry))
				assume_caller(tg, cur, rc, entry, w[5 + 3 * k],
					      outer);
			/* Frame 0 at the position, by its rule there. */
			if (rc && !k && !(entry & (SIGTRAMP_BIT | PREHIST_BIT)))
				assume_rule(tg, rp_timeline_cursor(tg->tl, cur),
					    rc, w[2], m->val[0]);
			outer = m->val[0];
		}
		else if (entry & PREHIST_BIT)
			f[0] = FRAME_BASE + 16 * (entry & ~PREHIST_BIT);
		else if (state == LOW)
			f[0] = LOW_BASE - 16 * (entry & ~SIGTRAMP_BIT);
		else
			f[0] = FRAME_BASE - 16 * (entry & ~SIGTRAMP_BIT);
		if (!m)
			continue;
		f[1] = m->mask;
		for (i = 0; i < 1 + FREGS_REGS; i++)
			f[2 + i] = m->val[i];
	}
	if (n && cfi_outermost(tg, cur, w, tg->fregs, n - 1))
		tg->fregs[FREGS_WORDS * (n - 1) + 1] |= FREGS_CFI_OUTER;
	if (rc)
		facts_flush(rc);
}

size_t frames_read(struct target *tg, size_t cur, uint64_t off,
		   uint8_t *buf, size_t len)
{
	uint64_t bytes = 8ull * FREGS_WORDS * tg->stack[1];

	if (!tg->fregs_done) {
		frames_compute(tg, cur);
		tg->fregs_done = true;
	}
	if (off >= bytes)
		return 0;
	if (len > bytes - off)
		len = (size_t)(bytes - off);
	memcpy(buf, (const uint8_t *)tg->fregs + off, len);
	return len;
}

void frames_free(struct target *tg)
{
	free(facts);
	facts = NULL;
	nfacts = facts_cap = 0;
	free(tg->end_done);
	tg->end_done = NULL;
	free(tg->memo);
	tg->memo = NULL;
	tg->memo_len = 0;
	tg->memo_cap = 0;
}

int frames_return(struct target *tg, size_t cur, size_t k, uint64_t *at,
		  uint64_t *rax)
{
	struct rp_cursor *c = rp_timeline_cursor(tg->tl, cur);
	struct rp_recover *rc = target_recovery(tg, cur);
	struct rp_insn insn;
	struct rp_regs r;
	uint64_t entry, head;

	/* The published stack of the thread's position. */
	if (target_read(tg, STACK_ADDR, (uint8_t *)&head, 8) != 8 ||
	    k >= tg->stack[1])
		return -1;
	entry = tg->stack[3 + 3 * k];
	if (entry & (SIGTRAMP_BIT | PREHIST_BIT) ||
	    !entered_by_call(tg, cur, entry))
		return -1;
	*at = rp_cursor_frame_exit(c, entry);
	if (*at == UINT64_MAX || !*at ||
	    rp_cursor_peek(c, *at - 1, &insn) ||
	    insn.iclass != RP_IC_RETURN)
		return -1;
	if (!rc || rp_recover_regs(rc, *at, &r) ||
	    !(r.valid >> RP_REG_RAX & 1))
		return 0;
	*rax = r.val[RP_REG_RAX];
	return 1;
}

