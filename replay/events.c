// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The trace's events (replay.h, "events"): what libipt's decoders report
 * besides the control flow (PTWRITE payloads, asynchronous branches,
 * tracing turned on and off, overflows, TSX, power and frequency changes),
 * kept at their places in a thread's history.  Events are rare next to
 * instructions, so the index pass keeps them in one sorted array per
 * thread beside the checkpoints (and the index cache saves it): finding
 * the events of a position is a binary search, and a stream without
 * events costs the index nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

static const char *const names[RP_EV_KINDS] = {
	[RP_EV_ENABLED] = "enabled",
	[RP_EV_DISABLED] = "disabled",
	[RP_EV_ASYNC_DISABLED] = "async-disabled",
	[RP_EV_INTERRUPT] = "interrupt",
	[RP_EV_PAGING] = "paging",
	[RP_EV_OVERFLOW] = "overflow",
	[RP_EV_EXEC_MODE] = "exec-mode",
	[RP_EV_TSX] = "tsx",
	[RP_EV_STOP] = "trace-stop",
	[RP_EV_VMCS] = "vmcs",
	[RP_EV_EXSTOP] = "exstop",
	[RP_EV_MWAIT] = "mwait",
	[RP_EV_PWRE] = "pwre",
	[RP_EV_PWRX] = "pwrx",
	[RP_EV_PTWRITE] = "ptwrite",
	[RP_EV_CBR] = "cbr",
	[RP_EV_MNT] = "mnt",
	[RP_EV_PEBS] = "pebs",
};

const char *rp_event_name(unsigned int kind)
{
	return kind < RP_EV_KINDS ? names[kind] : NULL;
}

static unsigned int mode_bits(enum pt_exec_mode mode)
{
	return mode == ptem_64bit ? 64 : mode == ptem_32bit ? 32 :
	       mode == ptem_16bit ? 16 : 0;
}

/* libipt's event as ours.  Returns false for one not kept. */
static bool convert(const struct pt_event *ev, struct rp_event *out)
{
	memset(out, 0, sizeof(*out));
	if (ev->ip_suppressed)
		out->flags |= RP_EVF_IP_SUPPRESSED;
	switch (ev->type) {
	case ptev_enabled:
		out->kind = RP_EV_ENABLED;
		out->ip = ev->variant.enabled.ip;
		if (ev->variant.enabled.resumed)
			out->flags |= RP_EVF_RESUMED;
		break;
	case ptev_disabled:
		out->kind = RP_EV_DISABLED;
		out->ip = ev->variant.disabled.ip;
		break;
	case ptev_async_disabled:
		out->kind = RP_EV_ASYNC_DISABLED;
		out->ip = ev->variant.async_disabled.at;
		out->to = ev->variant.async_disabled.ip;
		break;
	case ptev_async_branch:
		out->kind = RP_EV_INTERRUPT;
		out->ip = ev->variant.async_branch.from;
		out->to = ev->variant.async_branch.to;
		break;
	case ptev_paging:
		out->kind = RP_EV_PAGING;
		out->payload = ev->variant.paging.cr3;
		if (ev->variant.paging.non_root)
			out->flags |= RP_EVF_NONROOT;
		break;
	case ptev_async_paging:
		out->kind = RP_EV_PAGING;
		out->flags |= RP_EVF_ASYNC;
		out->payload = ev->variant.async_paging.cr3;
		out->ip = ev->variant.async_paging.ip;
		if (ev->variant.async_paging.non_root)
			out->flags |= RP_EVF_NONROOT;
		break;
	case ptev_overflow:
		out->kind = RP_EV_OVERFLOW;
		out->ip = ev->variant.overflow.ip;
		break;
	case ptev_exec_mode:
		out->kind = RP_EV_EXEC_MODE;
		out->ip = ev->variant.exec_mode.ip;
		out->payload = mode_bits(ev->variant.exec_mode.mode);
		break;
	case ptev_tsx:
		out->kind = RP_EV_TSX;
		out->ip = ev->variant.tsx.ip;
		if (ev->variant.tsx.speculative)
			out->flags |= RP_EVF_TSX_SPEC;
		if (ev->variant.tsx.aborted)
			out->flags |= RP_EVF_TSX_ABORT;
		break;
	case ptev_stop:
		out->kind = RP_EV_STOP;
		break;
	case ptev_vmcs:
		out->kind = RP_EV_VMCS;
		out->payload = ev->variant.vmcs.base;
		break;
	case ptev_async_vmcs:
		out->kind = RP_EV_VMCS;
		out->flags |= RP_EVF_ASYNC;
		out->payload = ev->variant.async_vmcs.base;
		out->ip = ev->variant.async_vmcs.ip;
		break;
	case ptev_exstop:
		out->kind = RP_EV_EXSTOP;
		out->ip = ev->variant.exstop.ip;
		break;
	case ptev_mwait:
		out->kind = RP_EV_MWAIT;
		out->ip = ev->variant.mwait.ip;
		out->payload = ev->variant.mwait.hints |
			       (uint64_t)ev->variant.mwait.ext << 32;
		break;
	case ptev_pwre:
		out->kind = RP_EV_PWRE;
		out->payload = ev->variant.pwre.state |
			       (uint64_t)ev->variant.pwre.sub_state << 8;
		if (ev->variant.pwre.hw)
			out->flags |= RP_EVF_HW;
		break;
	case ptev_pwrx:
		out->kind = RP_EV_PWRX;
		out->payload = ev->variant.pwrx.last |
			       (uint64_t)ev->variant.pwrx.deepest << 8;
		if (ev->variant.pwrx.interrupt)
			out->flags |= RP_EVF_WAKE_INTERRUPT;
		if (ev->variant.pwrx.store)
			out->flags |= RP_EVF_WAKE_STORE;
		if (ev->variant.pwrx.autonomous)
			out->flags |= RP_EVF_WAKE_AUTONOMOUS;
		break;
	case ptev_ptwrite:
		out->kind = RP_EV_PTWRITE;
		out->ip = ev->variant.ptwrite.ip;
		out->payload = ev->variant.ptwrite.payload;
		out->size = ev->variant.ptwrite.size;
		break;
	case ptev_cbr:
		out->kind = RP_EV_CBR;
		out->payload = ev->variant.cbr.ratio;
		break;
	case ptev_mnt:
		out->kind = RP_EV_MNT;
		out->payload = ev->variant.mnt.payload;
		break;
	default:
		return false;	/* ticks: not asked for */
	}
	if (ev->has_tsc) {
		out->flags |= RP_EVF_TSC;
		out->tsc = ev->tsc;
	}
	return true;
}

/* A state the trace repeats: true where it changes from a known one. */
static bool changed(uint64_t *last, uint64_t now)
{
	bool ret = *last && *last != now;

	*last = now;
	return ret;
}

int rp_event_keep(struct walk *w, const struct pt_event *ev)
{
	struct rp_event e, *v;
	size_t n = *w->nevs;
	int first = -1;		/* the state's first value: its slot */
	bool keep;

	if (!w->indexing)
		return 0;
	/*
	 * Every enable and PSB+ repeats the mode, and a PSB+ the CR3, VMCS
	 * and core:bus ratio: those are kept where they change (a CBR
	 * outside a PSB+ always).  Other status updates
	 * repeat the state (a PSB+) and are no events; a worker that passed
	 * its end leaves what follows to the next one.
	 */
	if (ev->type == ptev_exec_mode) {
		first = w->mode_bits ? -1 : RP_FIRST_MODE;
		keep = changed(&w->mode_bits,
			       mode_bits(ev->variant.exec_mode.mode));
	} else if (ev->type == ptev_paging ||
		   ev->type == ptev_async_paging) {
		first = w->cr3 ? -1 : RP_FIRST_CR3;
		keep = changed(&w->cr3, ev->type == ptev_paging ?
			       ev->variant.paging.cr3 :
			       ev->variant.async_paging.cr3);
	} else if (ev->type == ptev_vmcs || ev->type == ptev_async_vmcs) {
		first = w->vmcs ? -1 : RP_FIRST_VMCS;
		keep = changed(&w->vmcs, ev->type == ptev_vmcs ?
			       ev->variant.vmcs.base :
			       ev->variant.async_vmcs.base);
	} else if (ev->type == ptev_cbr) {
		first = w->cbr ? -1 : ev->status_update ? RP_FIRST_CBR :
			RP_FIRST_CBR_OUT;
		keep = changed(&w->cbr, ev->variant.cbr.ratio + 1u) ||
		       (!ev->status_update && w->cbr);
	} else {
		keep = !ev->status_update;
	}
	/* An index range after the first: whether a single pass keeps
	 * the first value depends on the range before's last (index.c).
	 */
	if (first >= 0 && w->first_obs)
		keep = true;
	if (!keep || w->stopped || !convert(ev, &e))
		return 0;
	if (first >= 0 && w->first_obs)
		w->first_ev[first] = n + 1;
	/* Not its stream offset: libipt's offset query costs more than
	 * the rest of keeping an event (bench-replay, mruby).
	 */
	e.before = w->pos;
	/* Grown by doubling: a PTWRITE in a loop makes many. */
	if (n == 0 || (n >= 16 && !(n & (n - 1)))) {
		v = realloc(*w->evs, (n ? 2 * n : 16) * sizeof(*v));
		if (!v)
			return -RP_ERR_NOMEM;
		*w->evs = v;
	}
	(*w->evs)[(*w->nevs)++] = e;
	return 0;
}

int rp_event_pebs(struct walk *w, uint64_t off,
		  const struct ptkit_pebs_item *it, size_t n)
{
	struct rp_event *v;
	size_t i, k;

	/* libipt may read the same bytes again (looking ahead). */
	if (!w->indexing || w->stopped || (w->pebs_off && off < w->pebs_off))
		return 0;
	w->pebs_off = off + 1;
	for (i = 0; i < n; i++) {
		k = *w->nevs;
		if (k == 0 || (k >= 16 && !(k & (k - 1)))) {
			v = realloc(*w->evs, (k ? 2 * k : 16) * sizeof(*v));
			if (!v)
				return -RP_ERR_NOMEM;
			*w->evs = v;
		}
		v = &(*w->evs)[(*w->nevs)++];
		memset(v, 0, sizeof(*v));
		v->before = w->pos;
		v->kind = RP_EV_PEBS;
		v->ip = it[i].id;
		v->to = it[i].type;
		v->payload = it[i].value;
		v->size = it[i].size;
	}
	return 0;
}

/* ---- the public side ----------------------------------------------------- */

int rp_thread_event(const struct rp_session *s, uint32_t tid, uint64_t i,
		    struct rp_event *ev)
{
	const struct rp_thread *t = rp_find_thread(s, tid);

	if (!t)
		return -RP_ERR_NOTHREAD;
	if (i >= t->nevs)
		return -RP_ERR_RANGE;
	*ev = t->evs[i];
	return 0;
}

uint64_t rp_thread_event_find(const struct rp_session *s, uint32_t tid,
			      uint64_t pos)
{
	const struct rp_thread *t = rp_find_thread(s, tid);
	size_t lo = 0, hi;

	if (!t)
		return 0;
	for (hi = t->nevs; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->evs[mid].before < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rp_thread_event_counts(const struct rp_session *s, uint32_t tid,
			   uint64_t counts[RP_EV_KINDS])
{
	const struct rp_thread *t = rp_find_thread(s, tid);
	size_t i;

	if (!t)
		return -RP_ERR_NOTHREAD;
	memset(counts, 0, RP_EV_KINDS * sizeof(*counts));
	for (i = 0; i < t->nevs; i++)
		if (t->evs[i].kind < RP_EV_KINDS)
			counts[t->evs[i].kind]++;
	return 0;
}

int rp_tsc_to_ns(const struct rp_session *s, uint64_t tsc, uint64_t *ns)
{
	struct ptrec_sb_time conv = { .time_shift = s->m->time.time_shift,
				      .time_mult = s->m->time.time_mult };

	if (conv.time_mult) {
		*ns = sb_time_to_ns(&conv, tsc);
	} else if (s->m->time.tsc_hz) {
		*ns = (uint64_t)((unsigned __int128)tsc * 1000000000u /
				 s->m->time.tsc_hz);
	} else if (s->m->pt.nom_freq) {
		/* The TSC runs at the nominal (max non-turbo) ratio times
		 * the 100 MHz bus clock: PT's nominal frequency.
		 */
		*ns = (uint64_t)((unsigned __int128)tsc * 10 /
				 s->m->pt.nom_freq);
	} else {
		return -RP_ERR_NOTFOUND;
	}
	return 0;
}

/* ModRM register numbers to DWARF's (x86-64 psABI 3.6.2). */
static const int dwarf_reg[16] = {
	0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15,
};

/*
 * What a PTWRITE reads: F3 [REX.W] 0F AE /4 (SDM Vol. 2B), ModRM and SIB
 * as in Vol. 2A 2.1.5.  A RIP-relative global, a register, a base
 * register plus displacement (a local), or an indexed operand.
 */
int rp_ptwrite_operand(const uint8_t *b, size_t n, uint64_t ip,
		       struct ptw_operand *op)
{
	unsigned int rex = 0, mod, rm, i = 0;
	int32_t d32;

	while (i < n && (b[i] == 0xf3 || b[i] == 0x66 || b[i] == 0x67 ||
			 b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 ||
			 b[i] == 0x36))
		i++;
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (i + 3 > n || b[i] != 0x0f || b[i + 1] != 0xae ||
	    ((b[i + 2] >> 3) & 7) != 4)
		return -1;
	mod = b[i + 2] >> 6;
	rm = b[i + 2] & 7;
	i += 3;
	memset(op, 0, sizeof(*op));
	op->reg = -1;
	op->index = -1;
	if (mod == 3) {
		op->kind = PTW_REG;
		op->reg = dwarf_reg[rm | (rex & 1) << 3];
		return 0;
	}
	if (mod == 0 && rm == 5) {
		if (i + 4 > n)
			return -1;
		memcpy(&d32, b + i, 4);
		op->kind = PTW_RIP;
		op->addr = ip + i + 4 + (uint64_t)(int64_t)d32;
		return 0;
	}
	op->kind = PTW_BASE;
	if (rm == 4) {
		unsigned int sib, idx;

		if (i >= n)
			return -1;
		sib = b[i++];
		idx = ((sib >> 3) & 7) | ((rex & 2) << 2);
		rm = sib & 7;
		if (idx != 4) {		/* 4 without REX.X: no index */
			op->kind = PTW_INDEX;
			op->index = dwarf_reg[idx];
			op->scale = 1u << (sib >> 6);
		}
		if (mod == 0 && rm == 5) {	/* no base: disp32 */
			if (i + 4 > n)
				return -1;
			memcpy(&d32, b + i, 4);
			op->disp = d32;
			if (op->kind != PTW_INDEX) {	/* absolute */
				op->kind = PTW_INDEX;
				op->index = -1;
				op->scale = 0;
			}
			return 0;
		}
	}
	op->reg = dwarf_reg[rm | (rex & 1) << 3];
	if (mod == 1) {
		if (i + 1 > n)
			return -1;
		op->disp = (int8_t)b[i];
	} else if (mod == 2) {
		if (i + 4 > n)
			return -1;
		memcpy(&d32, b + i, 4);
		op->disp = d32;
	}
	return 0;
}

int rp_ptwrite_length(const uint8_t *b, size_t n)
{
	unsigned int rex = 0, mod, rm, i = 0;

	while (i < n && (b[i] == 0xf3 || b[i] == 0x66 || b[i] == 0x67 ||
			 b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 ||
			 b[i] == 0x36 || b[i] == 0x64 || b[i] == 0x65))
		i++;
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	(void)rex;
	if (i + 3 > n || b[i] != 0x0f || b[i + 1] != 0xae ||
	    ((b[i + 2] >> 3) & 7) != 4)
		return 0;
	mod = b[i + 2] >> 6;
	rm = b[i + 2] & 7;
	i += 3;
	if (mod != 3 && rm == 4) {
		if (i >= n)
			return 0;
		if (mod == 0 && (b[i] & 7) == 5)
			i += 4;		/* SIB without base: disp32 */
		i++;
	}
	if (mod == 1)
		i += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		i += 4;
	return i <= n ? (int)i : 0;
}

/* DWARF register numbers to the values engine's. */
static const unsigned int rp_reg_of_dwarf[16] = {
	RP_REG_RAX, RP_REG_RDX, RP_REG_RCX, RP_REG_RBX,
	RP_REG_RSI, RP_REG_RDI, RP_REG_RBP, RP_REG_RSP,
	RP_REG_R8, RP_REG_R9, RP_REG_R10, RP_REG_R11,
	RP_REG_R12, RP_REG_R13, RP_REG_R14, RP_REG_R15,
};

/* DWARF register @reg of @tid before instruction @pos, when the values
 * engine knows all its bits (-1: none, the value 0).
 */
static int reg_known(struct rp_session *s, uint32_t tid, uint64_t pos,
		     int reg, uint64_t *val)
{
	uint64_t known;

	*val = 0;
	if (reg < 0)
		return 0;
	if (reg > 15)
		return -1;
	if (!s->ev_rc || s->ev_rc_tid != tid) {
		rp_recover_free(s->ev_rc);
		s->ev_rc = NULL;
		if (rp_recover_new(s, tid, &s->ev_rc))
			return -1;
		s->ev_rc_tid = tid;
	}
	if (rp_recover_reg_bits(s->ev_rc, pos, rp_reg_of_dwarf[reg], val,
				&known) || known != ~0ull)
		return -1;
	return 0;
}

/*
 * The object a memory operand [base + index * scale + disp] of the PTWRITE
 * @at (instruction @pos of @tid) reads, by the addresses the values
 * engine knows there: "arr[3]", "s.x" where DWARF types the object, else
 * "sym+24"; nothing when a register is unknown or the address is in no
 * object.
 */
static bool name_memory(struct rp_session *s, uint32_t tid, uint64_t pos,
			const struct rp_insn *at,
			const struct ptw_operand *op, char *out, size_t len)
{
	uint64_t base, index, addr;

	if (reg_known(s, tid, pos, op->reg, &base) ||
	    reg_known(s, tid, pos, op->kind == PTW_INDEX ? op->index : -1,
		      &index))
		return false;
	addr = base + index * op->scale + (uint64_t)op->disp;
	if (rp_name_object(s, at, addr, out, len))
		return false;
	return true;
}

/* The name of what the PTWRITE @at (instruction @pos of @tid) reads, into
 * @out: a global by the symbols, a register or a local by DWARF, an
 * indexed or based operand by the values engine's registers.
 */
static bool ptwrite_name(struct rp_session *s, uint32_t tid, uint64_t pos,
			 const struct rp_insn *at, char *out, size_t len)
{
	struct ptw_operand op;
	const char *name = NULL;
	uint64_t off = 0;

	if (!s || rp_ptwrite_operand(at->raw, at->size, at->ip, &op))
		return false;
	if (op.kind == PTW_RIP) {
		if (!rp_name_object(s, at, op.addr, out, len))
			return true;
		if (rp_name_address(s, at, op.addr, &name, &off))
			return false;
	} else if (op.kind == PTW_INDEX ||
		   rp_name_variable(s, at, op.kind == PTW_REG ? op.reg : -1,
				    op.kind == PTW_BASE ? op.reg : -1,
				    op.disp, &name)) {
		return op.kind != PTW_REG &&
		       name_memory(s, tid, pos, at, &op, out, len);
	}
	if (off)
		snprintf(out, len, "%s+%" PRIu64, name, off);
	else
		snprintf(out, len, "%s", name);
	return true;
}

static const char *wake(uint16_t flags)
{
	if (flags & RP_EVF_WAKE_INTERRUPT)
		return ", woken by an interrupt";
	if (flags & RP_EVF_WAKE_STORE)
		return ", woken by a store to the monitored address";
	if (flags & RP_EVF_WAKE_AUTONOMOUS)
		return ", woken autonomously";
	return "";
}

int rp_format_event(struct rp_session *s, uint32_t tid,
		    const struct rp_event *ev, const struct rp_insn *at,
		    char *buf, size_t len)
{
	const char *kind = rp_event_name(ev->kind);
	bool noip = ev->flags & RP_EVF_IP_SUPPRESSED;
	char name[128];
	int n;

	if (!kind)
		kind = "unknown";
	switch (ev->kind) {
	case RP_EV_PTWRITE:
		if (at && at->ip == ev->ip && ev->before &&
		    ptwrite_name(s, tid, ev->before - 1, at, name,
				 sizeof(name)))
			n = snprintf(buf, len, "ptwrite: 0x%" PRIx64 " (%s)",
				     ev->payload, name);
		else
			n = snprintf(buf, len, "ptwrite: 0x%" PRIx64,
				     ev->payload);
		break;
	case RP_EV_INTERRUPT:
		n = noip ? snprintf(buf, len, "interrupt: 0x%" PRIx64, ev->ip) :
			   snprintf(buf, len, "interrupt: 0x%" PRIx64
				    " -> 0x%" PRIx64, ev->ip, ev->to);
		break;
	case RP_EV_ENABLED:
		n = snprintf(buf, len, "%s", ev->flags & RP_EVF_RESUMED ?
			     "resumed" : "enabled");
		break;
	case RP_EV_DISABLED:
		n = snprintf(buf, len, "disabled");
		break;
	case RP_EV_ASYNC_DISABLED:
		n = snprintf(buf, len, "disabled: at 0x%" PRIx64, ev->ip);
		break;
	case RP_EV_OVERFLOW:
		n = noip ? snprintf(buf, len, "overflow") :
			   snprintf(buf, len, "overflow: resumed at 0x%" PRIx64,
				    ev->ip);
		break;
	case RP_EV_EXEC_MODE:
		n = snprintf(buf, len, "exec-mode: %" PRIu64 "-bit",
			     ev->payload);
		break;
	case RP_EV_TSX:
		n = snprintf(buf, len, "%s", ev->flags & RP_EVF_TSX_ABORT ?
			     "tsx: abort" : ev->flags & RP_EVF_TSX_SPEC ?
			     "tsx: begin" : "tsx: commit");
		break;
	case RP_EV_PAGING:
		n = snprintf(buf, len, "paging: cr3 0x%" PRIx64 "%s",
			     ev->payload, ev->flags & RP_EVF_NONROOT ?
			     ", guest" : "");
		break;
	case RP_EV_VMCS:
		n = snprintf(buf, len, "vmcs: 0x%" PRIx64, ev->payload);
		break;
	case RP_EV_EXSTOP:
		n = noip ? snprintf(buf, len, "exstop") :
			   snprintf(buf, len, "exstop: at 0x%" PRIx64, ev->ip);
		break;
	case RP_EV_MWAIT:
		n = snprintf(buf, len, "mwait: hints 0x%" PRIx64 ", ext 0x%"
			     PRIx64, ev->payload & 0xffffffff,
			     ev->payload >> 32);
		break;
	case RP_EV_PWRE:
		n = snprintf(buf, len, "pwre: state 0x%" PRIx64
			     ", sub-state 0x%" PRIx64 "%s",
			     ev->payload & 0xff, ev->payload >> 8,
			     ev->flags & RP_EVF_HW ? ", hw" : "");
		break;
	case RP_EV_PWRX:
		n = snprintf(buf, len, "pwrx: last 0x%" PRIx64 ", deepest 0x%"
			     PRIx64 "%s", ev->payload & 0xff,
			     ev->payload >> 8, wake(ev->flags));
		break;
	case RP_EV_CBR:
		n = snprintf(buf, len, "cbr: %" PRIu64, ev->payload);
		break;
	case RP_EV_STOP:
		n = snprintf(buf, len, "trace-stop");
		break;
	case RP_EV_PEBS:
		n = snprintf(buf, len, "pebs: block 0x%" PRIx64 ", item 0x%"
			     PRIx64 ": 0x%" PRIx64, ev->to, ev->ip,
			     ev->payload);
		break;
	default:
		n = snprintf(buf, len, "%s: 0x%" PRIx64, kind, ev->payload);
		break;
	}
	return n < 0 || (size_t)n >= len ? -RP_ERR_RANGE : 0;
}
