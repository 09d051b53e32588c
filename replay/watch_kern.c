// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Writes the kernel makes to a thread's memory between two of its
 * instructions, with no store or system call of the thread's own, for the
 * watch scan (issue #18; docs/gdb.md, "Watchpoints"):
 *
 * Signal frames.  At a delivery to a handler the kernel writes the frame
 * below the handler's stack pointer (on the alternate stack with
 * SA_ONSTACK, else below the interrupted one's red zone): the return
 * address, struct ucontext and siginfo (440 bytes from the handler's
 * entry rsp: written), then the FPU state (its xsave area, of the size the
 * snapshot gives, else an upper bound: may be written).  The deliveries:
 * the software recorder's records (rcv_sig_entries(), the place the
 * values engine takes a handler's entry), else every return from the
 * kernel the trace shows that resumes somewhere else than where the
 * thread left (an asynchronous transfer) but an rt_sigreturn.  Where the
 * engine does not know the handler's rsp the frame is a write of unknown
 * address.  A delivery may also interrupt an instruction that completes
 * element by element (a rep string store, a scatter) after it stored
 * some: those stores have no instruction in the history (the handler may
 * never return to it), so the delivery also "may have written" their
 * range (partial()).
 *
 * rseq.  The kernel rewrites a registered rseq area (cpu_id_start,
 * cpu_id, rseq_cs, node_id, mm_cid; not flags) on the thread's way back to
 * user space after it was preempted or migrated (or got a signal).  The
 * areas: the snapshot's RSEQ record, per thread (from the whole history
 * when it is complete).  Where: the software recorder stops the thread
 * after every instruction (ptrace's single step: it is switched out and
 * back in each time, so the kernel rewrites the area after every
 * instruction, with the same values unless it moved); a hardware trace
 * shows every entry into the kernel (user-only tracing: a disable or an
 * interrupt), and the sideband's switch-in records, where the thread has
 * any and none were lost, which of those it was switched out at: there.
 * These are writes that may happen (their values are not known), which
 * `watch-unknown skip` passes as it passes stores of unknown address.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rcv_win.h"
#include "replay.h"
#include "rp_internal.h"
#include "watch_kern.h"

#define RSEQ_MAX	8	/* areas per thread (re-registrations) */

struct wpk_sig {
	uint64_t g;		/* the handler's entry is g + 1 */
	bool done;
	bool part;		/* acc[n - 1] is partial()'s */
	int8_t vsys;		/* a vsyscall's emulation: vsys_tab[vsys] */
	int n;
	struct rp_access acc[3];
};

struct wpk_thr {
	const struct rp_session *s;
	uint32_t tid;
	struct rp_access rseq[2 * RSEQ_MAX];
	int nrseq;
	bool every;		/* may change after any instruction */
	uint64_t *kpos;		/* else after these (ascending) */
	size_t nkpos;
	struct wpk_sig *sig;	/* deliveries, ascending */
	size_t nsig;
};

struct wpk_cache {
	struct wpk_thr *v;
	size_t n, cap;
};

void wpk_cache_free(struct wpk_cache *kc)
{
	size_t i;

	if (!kc)
		return;
	for (i = 0; i < kc->n; i++) {
		free(kc->v[i].kpos);
		free(kc->v[i].sig);
	}
	free(kc->v);
	free(kc);
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static bool push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		uint64_t *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return true;
}

/*
 * Is rseq area @i of the snapshot's list the thread's?  Registered by it,
 * or by a thread not of its process (a fork child inherits its parent's
 * registration: its first thread's then; taken for each of them).
 */
static bool rseq_mine(struct rp_recover *rc, size_t i)
{
	uint32_t by = rp_snapshot_proc_rseq_tid(rc->sn, rc->pid, i);
	struct rp_thread_info o;

	return by == rc->tid || rp_thread_info(rc->s, by, &o) ||
	       o.pid != rc->pid;
}

/* The bytes of the thread's rseq areas the kernel writes. */
static void rseq_areas(struct rp_recover *rc, struct wpk_thr *t)
{
	uint64_t addr, end;
	uint32_t len;
	bool complete;
	size_t i;

	if (!rc->sn)
		return;
	for (i = 0; t->nrseq + 2 <= 2 * RSEQ_MAX &&
		    !rp_snapshot_proc_rseq(rc->sn, rc->pid, i, &addr, &len,
					   &complete); i++) {
		if (!rseq_mine(rc, i))
			continue;
		/* cpu_id_start, cpu_id, rseq_cs; node_id, mm_cid and what
		 * a longer registration may have the kernel write.
		 */
		end = addr + (len > 32 && len <= 4096 ? len : 32);
		if (end < addr)
			continue;
		t->rseq[t->nrseq++] = (struct rp_access){
			.kind = RP_ACC_WRITE, .addr_known = true,
			.cond = true, .addr = addr, .size = 16 };
		t->rseq[t->nrseq++] = (struct rp_access){
			.kind = RP_ACC_WRITE, .addr_known = true,
			.cond = true, .addr = addr + 20,
			.size = end - addr - 20 };
	}
}

static bool is_entry(const struct rp_event *ev)
{
	return ev->kind == RP_EV_DISABLED ||
	       ev->kind == RP_EV_ASYNC_DISABLED ||
	       ev->kind == RP_EV_INTERRUPT;
}

/*
 * A hardware trace: the positions after which the thread came back from
 * the kernel (every entry), or, with switch-in records of its own, no
 * sideband lost and events with times, those it was switched out at (the
 * last entry before each switch-in's time).
 */
static bool kernel_returns(struct rp_recover *rc, struct wpk_thr *t)
{
	const struct rp_session *s = rc->s;
	uint64_t *sw = NULL, i;
	size_t nsw = 0, csw = 0, cap = 0, k, j;
	struct rp_event ev;
	bool lost = false, ok = true;

	for (k = 0; k < s->nrecs && ok; k++) {
		const struct ptrec_sb_switch *w = (const void *)s->recs[k];

		if (s->recs[k]->type == PTREC_SB_LOST)
			lost = true;
		else if (s->recs[k]->type == PTREC_SB_SWITCH_IN &&
			 w->tid == rc->tid)
			ok = push(&sw, &nsw, &csw, s->recs[k]->time);
	}
	if (!ok) {
		free(sw);
		return false;
	}
	/* Events without time cannot be placed against the records. */
	if (nsw && (rp_thread_event(s, rc->tid, 0, &ev) || !ev.tsc))
		lost = true;
	if (!nsw || lost) {
		for (i = 0; !rp_thread_event(s, rc->tid, i, &ev); i++)
			if (is_entry(&ev) && ev.before &&
			    ev.before < rc->count &&
			    !push(&t->kpos, &t->nkpos, &cap, ev.before - 1)) {
				free(sw);
				return false;
			}
		free(sw);
		return true;
	}
	qsort(sw, nsw, sizeof(*sw), u64_cmp);
	rcv_sig_place(rc, sw, nsw, sw);	/* in place: each read first */
	for (j = 0; j < nsw; j++)
		if (sw[j] != UINT64_MAX &&
		    (!t->nkpos || t->kpos[t->nkpos - 1] != sw[j]) &&
		    !push(&t->kpos, &t->nkpos, &cap, sw[j])) {
			free(sw);
			return false;
		}
	free(sw);
	return true;
}

/*
 * The legacy vsyscall page's entries, which the kernel emulates (the
 * fetch faults: arch/x86/entry/vsyscall/vsyscall_64.c emulate_vsyscall()
 * runs the system call and a ret), and the bytes each writes at rdi and
 * rsi where they are not NULL: gettimeofday's struct
 * __kernel_old_timeval and struct timezone, time's __kernel_old_time_t,
 * getcpu's two unsigned ints (its third argument is taken as NULL).
 */
static const struct {
	uint64_t ip;
	uint8_t di, si;
} vsys_tab[] = {
	{ 0xffffffffff600000ull, 16, 8 },
	{ 0xffffffffff600400ull, 8, 0 },
	{ 0xffffffffff600800ull, 4, 4 },
};

/*
 * Is event @ev, with instruction @prev before it and @next after it, a
 * call into the vsyscall page that the kernel emulated?  The trace leaves
 * at the entry (the software recorder as Intel PT: FUP and TIP.PGD there)
 * and comes back at the call's return address (the emulated ret; a
 * SIGSEGV for a bad pointer or with vsyscall=none goes elsewhere).  Its
 * vsys_tab index, -1 when not.
 */
static int vsys_trip(const struct rp_event *ev, const struct rp_insn *prev,
		     const struct rp_insn *next)
{
	size_t k;

	/* An asynchronous disable's @ip is where it left (FUP: always
	 * there; its flag is about the target), a disable's the target.
	 */
	if ((ev->kind != RP_EV_ASYNC_DISABLED &&
	     (ev->kind != RP_EV_DISABLED ||
	      (ev->flags & RP_EVF_IP_SUPPRESSED))) ||
	    prev->iclass != RP_IC_CALL || next->ip != prev->ip + prev->size)
		return -1;
	for (k = 0; k < sizeof(vsys_tab) / sizeof(vsys_tab[0]); k++)
		if (ev->ip == vsys_tab[k].ip)
			return (int)k;
	return -1;
}

static bool sig_push(struct wpk_thr *t, size_t *cap, uint64_t g)
{
	if (t->nsig == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct wpk_sig *v = realloc(t->sig, c * sizeof(*v));

		if (!v)
			return false;
		t->sig = v;
		*cap = c;
	}
	memset(&t->sig[t->nsig], 0, sizeof(t->sig[0]));
	t->sig[t->nsig].vsys = -1;
	t->sig[t->nsig++].g = g;
	return true;
}

static int sig_cmp(const void *a, const void *b)
{
	const struct wpk_sig *x = a, *y = b;

	return x->g < y->g ? -1 : x->g > y->g;
}

/* The thread's emulated vsyscalls (vsys_trip()), among its deliveries. */
static bool vsys_calls(struct rp_recover *rc, struct wpk_thr *t, size_t *cap)
{
	struct rp_cursor *c = NULL;
	struct rp_insn prev, next;
	struct rp_event ev;
	size_t n0 = t->nsig;
	uint64_t i;
	int v;

	for (i = 0; !rp_thread_event(rc->s, rc->tid, i, &ev); i++) {
		/* The instructions only around an exit at the page */
		if (!is_entry(&ev) || !ev.before || ev.before >= rc->count ||
		    (ev.ip & ~0xfffull) != 0xffffffffff600000ull)
			continue;
		if (!c && rp_cursor_new(rc->s, rc->tid, &c))
			return true;	/* no decode: none seen */
		if (rp_cursor_peek(c, ev.before - 1, &prev) ||
		    rp_cursor_peek(c, ev.before, &next))
			continue;
		v = vsys_trip(&ev, &prev, &next);
		if (v < 0)
			continue;
		if (!sig_push(t, cap, ev.before - 1)) {
			rp_cursor_free(c);
			return false;
		}
		t->sig[t->nsig - 1].vsys = (int8_t)v;
	}
	if (c)
		rp_cursor_free(c);
	if (t->nsig > n0)
		qsort(t->sig, t->nsig, sizeof(*t->sig), sig_cmp);
	return true;
}

/*
 * Deliveries where no recorder wrote records: each return from the kernel
 * to somewhere else than where the thread entered it (the instruction
 * after a system call, or the one an interrupt stopped before), but an
 * rt_sigreturn (rax 15, where known, at a system call).
 */
static bool transfers(struct rp_recover *rc, struct wpk_thr *t, size_t *cap)
{
	struct rp_cursor *c = NULL;
	struct rp_insn prev, next;
	struct rp_event ev;
	uint64_t i, rax, known, want;

	if (rp_cursor_new(rc->s, rc->tid, &c))
		return true;	/* no decode: no deliveries seen */
	for (i = 0; !rp_thread_event(rc->s, rc->tid, i, &ev); i++) {
		if (!is_entry(&ev) || !ev.before || ev.before >= rc->count ||
		    rp_cursor_peek(c, ev.before - 1, &prev) ||
		    rp_cursor_peek(c, ev.before, &next))
			continue;
		want = ev.kind == RP_EV_DISABLED ? prev.ip + prev.size : ev.ip;
		if (next.ip == want || vsys_trip(&ev, &prev, &next) >= 0)
			continue;
		if (ev.kind == RP_EV_DISABLED &&
		    !rp_recover_reg_bits(rc, ev.before - 1, RP_REG_RAX, &rax,
					 &known) &&
		    known == ~0ull && rax == 15)
			continue;	/* rt_sigreturn */
		if (t->nsig && t->sig[t->nsig - 1].g == ev.before - 1)
			continue;
		if (!sig_push(t, cap, ev.before - 1)) {
			rp_cursor_free(c);
			return false;
		}
	}
	rp_cursor_free(c);
	return true;
}

static int thr_init(struct rp_recover *rc, struct wpk_thr *t)
{
	struct rp_session_info si;
	const uint64_t *pos;
	size_t n, i, cap = 0;

	rp_session_info(rc->s, &si);
	rseq_areas(rc, t);
	if (si.emulated)
		t->every = true;
	else if (t->nrseq && !kernel_returns(rc, t))
		return -RP_ERR_NOMEM;
	if (rcv_backend_emu(rc->s)) {
		n = rcv_sig_entries(rc, &pos);
		if (n == SIZE_MAX)
			return -RP_ERR_NOMEM;
		for (i = 0; i < n; i++)
			if (!sig_push(t, &cap, pos[i]))
				return -RP_ERR_NOMEM;
	} else if (!transfers(rc, t, &cap)) {
		return -RP_ERR_NOMEM;
	}
	if (!vsys_calls(rc, t, &cap))
		return -RP_ERR_NOMEM;
	return 0;
}

static int thr_get(struct wpk_cache **kcp, struct rp_recover *rc,
		   struct wpk_thr **out)
{
	struct wpk_cache *kc = *kcp;
	struct wpk_thr *t;
	size_t i;
	int ret;

	if (!kc) {
		kc = calloc(1, sizeof(*kc));
		if (!kc)
			return -RP_ERR_NOMEM;
		*kcp = kc;
	}
	for (i = 0; i < kc->n; i++)
		if (kc->v[i].s == rc->s && kc->v[i].tid == rc->tid) {
			*out = &kc->v[i];
			return 0;
		}
	if (kc->n == kc->cap) {
		size_t cap = kc->cap ? 2 * kc->cap : 4;

		t = realloc(kc->v, cap * sizeof(*t));
		if (!t)
			return -RP_ERR_NOMEM;
		kc->v = t;
		kc->cap = cap;
	}
	t = &kc->v[kc->n];
	memset(t, 0, sizeof(*t));
	t->s = rc->s;
	t->tid = rc->tid;
	ret = thr_init(rc, t);
	if (ret) {
		free(t->kpos);
		free(t->sig);
		return ret;
	}
	kc->n++;
	*out = t;
	return 0;
}

/* The FPU state's size in the frame: the snapshot's xsave area of the
 * thread (or of another of its process: the same CPU), else the bound.
 */
static uint64_t xstate_size(struct rp_recover *rc)
{
	struct rp_snap_thread_info ti;
	size_t i;

	if (!rc->sn)
		return WPK_XSTATE_MAX;
	if (!rp_snapshot_thread(rc->sn, rc->tid, &ti) && ti.xstate &&
	    ti.xstate_len >= 576)
		return ti.xstate_len;
	for (i = 0; !rp_snapshot_proc_thread(rc->sn, rc->pid, i, &ti); i++)
		if (ti.xstate && ti.xstate_len >= 576)
			return ti.xstate_len;
	return WPK_XSTATE_MAX;
}

/* Is @raw an EVEX scatter (map 0F38, opcodes A0-A3)?  A gather writes
 * registers only, and VEX has no scatter.
 */
static bool vsib_scatter(const uint8_t *raw, size_t len)
{
	size_t k = 0;

	while (k < len && (raw[k] == 0x66 || raw[k] == 0x67 ||
			   raw[k] == 0xf2 || raw[k] == 0xf3 ||
			   (raw[k] & 0xe7) == 0x26 || raw[k] == 0x64 ||
			   raw[k] == 0x65))
		k++;
	return k + 4 < len && raw[k] == 0x62 && (raw[k + 1] & 3) == 2 &&
	       (raw[k + 4] & 0xfc) == 0xa0;
}

/*
 * The faulting address of the delivery after @g, when the recorder's
 * SIGNAL record there is a fault the kernel raised (SIGSEGV or SIGBUS,
 * si_code > 0: si_addr is the access's address).
 */
static bool fault_addr(struct rp_recover *rc, uint64_t g, uint64_t *addr)
{
	const struct rp_session *s = rc->s;
	uint64_t *tm, *at, *ad;
	size_t k, n = 0;
	bool found = false;

	tm = malloc(3 * s->nrecs * sizeof(*tm) + 1);
	if (!tm)
		return false;
	at = tm + s->nrecs;
	ad = at + s->nrecs;
	for (k = 0; k < s->nrecs; k++) {
		const struct ptrec_sb_signal *f = (const void *)s->recs[k];

		if (s->recs[k]->type != PTREC_SB_SIGNAL ||
		    s->recs[k]->size < sizeof(*f) || f->tid != rc->tid ||
		    !(f->sflags & PTREC_SB_SIG_HANDLED) || f->code <= 0 ||
		    (f->signo != 11 && f->signo != 7))
			continue;
		tm[n] = s->recs[k]->time;
		ad[n++] = f->addr;
	}
	if (n)
		rcv_sig_place(rc, tm, n, at);
	for (k = 0; k < n; k++)
		if (at[k] == g) {
			*addr = ad[k];
			found = true;
		}
	free(tm);
	return found;
}

/*
 * The instruction delivery @d interrupted (at the trace's disable or
 * interrupt after @d->g: its address), when it is one that completes
 * element by element: a repeated string instruction, a scatter.  Its
 * iterations before a fault changed memory with no instruction in the
 * history (the handler may never return to it: review7 repjmp, a rep
 * movsb faulting on its second page whose handler siglongjmps).  A write
 * that may have happened into *@a: the range of the iterations before the
 * last (the last one did not complete, or the instruction would have)
 * where edi/rdi, rcx and DF before it are known, else of unknown address
 * (a scatter's elements: always).  False when none.
 */
static bool partial(struct rp_recover *rc, uint64_t g, struct rp_access *a)
{
	const struct rcv_state *st;
	struct rcv_state post;
	uint64_t conf = 0;
	bool src, dread, dst;
	struct rp_event ev;
	uint8_t raw[16];
	struct rcv_ins in;
	uint64_t e, ip = 0, cnt, fa, lo;
	bool down;
	unsigned int es;
	struct win *w;
	size_t len = 0, i;
	int n, err, k;

	for (e = rp_thread_event_find(rc->s, rc->tid, g + 1);
	     !rp_thread_event(rc->s, rc->tid, e, &ev) && ev.before <= g + 1;
	     e++)
		if (ev.before == g + 1 && (ev.kind == RP_EV_ASYNC_DISABLED ||
					   ev.kind == RP_EV_INTERRUPT))
			ip = ev.ip;
	if (!ip)
		return false;
	n = rp_read_code(rc->s, rc->tid, g + 1, ip, raw, 15);
	if (n > 0)
		len = rcv_dec_len(rc->dec, ip, raw, (size_t)n);
	if (!len)
		return false;
	*a = (struct rp_access){ .kind = RP_ACC_WRITE, .cond = true };
	if (rcv_vsib(raw, len))
		return vsib_scatter(raw, len);
	rcv_decode(rc->dec, ip, raw, len, RP_IC_OTHER, &in);
	es = rcv_str_op(&in, &src, &dread, &dst);
	if (!es || !dst || !(in.flags & RCV_I_REP))
		return false;
	/* The registers it ran with: instruction g's effect on the state
	 * before it (the window's state after g is the handler's entry).
	 */
	w = rcv_insn_win(rc, g, &err);
	if (!w || in.a32)
		return true;
	i = g - w->first;
	memset(&post, 0, sizeof(post));
	rc->ctx.mctx = w;
	rcv_forward(&rc->ctx, i, &w->ins[i], &w->st[i], &post, &conf);
	for (k = 0; k < 16; k++)
		if (!w->ins[i].wcode[k])
			post.r[k] = w->st[i].r[k];
	if (w->ins[i].id == X86_INS_CLD || w->ins[i].id == X86_INS_STD) {
		post.r[RCV_FLAGS].k |= F_DF;
		post.r[RCV_FLAGS].v &= ~F_DF;
		if (w->ins[i].id == X86_INS_STD)
			post.r[RCV_FLAGS].v |= F_DF;
	} else if (!(w->ins[i].fw & F_DF)) {
		post.r[RCV_FLAGS].k |= w->st[i].r[RCV_FLAGS].k & F_DF;
		post.r[RCV_FLAGS].v |= w->st[i].r[RCV_FLAGS].v & F_DF &
				       w->st[i].r[RCV_FLAGS].k;
	}
	st = &post;
	if (st->r[RP_REG_RCX].k != ~0ull || !(st->r[RCV_FLAGS].k & F_DF) ||
	    st->r[RP_REG_RCX].v > 1ull << 32)
		return true;
	cnt = st->r[RP_REG_RCX].v;
	if (cnt < 2)
		return false;	/* the one iteration did not complete */
	down = st->r[RCV_FLAGS].v & F_DF;
	if (st->r[RP_REG_RDI].k == ~0ull) {
		a->addr_known = true;
		a->size = (cnt - 1) * es;
		a->addr = st->r[RP_REG_RDI].v;
		if (down)
			a->addr -= a->size - es;
		return true;
	}
	/* rdi not known: a fault on the destination (a stos, or a movs
	 * whose source range, known, does not hold si_addr) bounds the
	 * elements done before it to the rcx elements' bytes next to
	 * si_addr (below it upwards, above it downwards).
	 */
	if (!fault_addr(rc, g, &fa))
		return true;
	if (src) {
		if (st->r[RP_REG_RSI].k != ~0ull)
			return true;
		lo = st->r[RP_REG_RSI].v - (down ? (cnt - 1) * es : 0);
		if (fa - lo < cnt * es)
			return true;
	}
	a->addr_known = true;
	a->size = cnt * es;
	a->addr = down ? fa + 1 : fa - a->size;
	return true;
}

/*
 * What the emulated vsyscall @d wrote: at rdi and rsi as the engine knows
 * them at the call (it leaves them), none where NULL, a write of unknown
 * address where not known.
 */
static void vsys_frame(struct rp_recover *rc, struct wpk_sig *d)
{
	static const int g[2] = { RP_REG_RDI, RP_REG_RSI };
	uint64_t v, known;
	int k, size;

	d->done = true;
	d->n = 0;
	d->part = false;
	memset(d->acc, 0, sizeof(d->acc));
	for (k = 0; k < 2; k++) {
		size = k ? vsys_tab[d->vsys].si : vsys_tab[d->vsys].di;
		if (!size)
			continue;
		d->acc[d->n].kind = RP_ACC_WRITE;
		if (rp_recover_reg_bits(rc, d->g, g[k], &v, &known) ||
		    known != ~0ull) {
			d->n++;	/* not known */
			continue;
		}
		if (!v)
			continue;
		d->acc[d->n].addr_known = true;
		d->acc[d->n].addr = v;
		d->acc[d->n++].size = (uint64_t)size;
	}
}

/*
 * The frame of delivery @d: at the handler's entry rsp, where known (the
 * recorder's SIGFRAME record, else the values engine); and what the
 * instruction it interrupted may have written (partial()).
 */
static void frame(struct rp_recover *rc, struct wpk_sig *d)
{
	struct rp_access part;
	uint64_t sp = 0;
	struct rp_regs r;

	d->done = true;
	d->n = 1;
	memset(d->acc, 0, sizeof(d->acc));
	d->acc[0].kind = RP_ACC_WRITE;
	if (!rcv_sig_entry_sp(rc, d->g, &sp))
		sp = 0;
	if (!sp && !rp_recover_regs(rc, d->g + 1, &r) &&
	    (r.valid & (1ull << RP_REG_RSP)))
		sp = r.val[RP_REG_RSP];
	if (sp) {
		d->acc[0].addr_known = true;
		d->acc[0].addr = sp;
		d->acc[0].size = WPK_SIGFRAME;
		d->acc[d->n++] = (struct rp_access){
			.kind = RP_ACC_WRITE, .addr_known = true,
			.cond = true, .addr = sp + WPK_SIGFRAME,
			.size = WPK_SIGFRAME_PAD + xstate_size(rc) + 4 };
	}
	d->part = partial(rc, d->g, &part);
	if (d->part)
		d->acc[d->n++] = part;
}

/* The nearest delivery in [@lo, @hi) whose frame hits, or UINT64_MAX. */
static uint64_t sig_near(struct rp_recover *rc, struct wpk_thr *t, int dir,
			 uint64_t lo, uint64_t hi, wpk_hits_fn hits,
			 void *arg, uint8_t *why)
{
	size_t a = 0, b = t->nsig, k;

	while (a < b) {		/* the first at or after lo */
		size_t m = a + (b - a) / 2;

		if (t->sig[m].g < lo)
			a = m + 1;
		else
			b = m;
	}
	for (b = a; b < t->nsig && t->sig[b].g < hi; b++)
		;
	for (k = 0; k < b - a; k++) {
		struct wpk_sig *d = &t->sig[dir < 0 ? b - 1 - k : a + k];

		if (!d->done && d->vsys >= 0)
			vsys_frame(rc, d);
		else if (!d->done)
			frame(rc, d);
		*why = d->vsys >= 0 ? RP_WATCH_KERNEL_VSYSCALL :
				      RP_WATCH_KERNEL_SIGFRAME;
		if (d->n - d->part > 0 && hits(arg, d->acc, d->n - d->part))
			return d->g;
		*why = RP_WATCH_KERNEL_PARTIAL;
		if (d->part && hits(arg, &d->acc[d->n - 1], 1))
			return d->g;
	}
	return UINT64_MAX;
}

/* The nearest place in [@lo, @hi) the rseq area may change, or
 * UINT64_MAX.
 */
static uint64_t rseq_near(const struct wpk_thr *t, int dir, uint64_t lo,
			  uint64_t hi)
{
	size_t a = 0, b = t->nkpos;

	if (t->every)
		return dir < 0 ? hi - 1 : lo;
	if (dir < 0) {		/* the last below hi */
		while (a < b) {
			size_t m = a + (b - a) / 2;

			if (t->kpos[m] < hi)
				a = m + 1;
			else
				b = m;
		}
		return a && t->kpos[a - 1] >= lo ? t->kpos[a - 1] : UINT64_MAX;
	}
	while (a < b) {		/* the first at or after lo */
		size_t m = a + (b - a) / 2;

		if (t->kpos[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < t->nkpos && t->kpos[a] < hi ? t->kpos[a] : UINT64_MAX;
}

int wpk_near(struct wpk_cache **kcp, struct rp_recover *rc, int dir,
	     uint64_t lo, uint64_t hi, bool rseq, wpk_hits_fn hits, void *arg,
	     uint64_t *g, uint8_t *why)
{
	uint64_t s = UINT64_MAX, r = UINT64_MAX;
	struct wpk_thr *t;
	int ret;

	if (lo >= hi)
		return -RP_ERR_NOTFOUND;
	ret = thr_get(kcp, rc, &t);
	if (ret)
		return ret;
	/* The rseq area first: its place, then the frames up to it. */
	if (rseq && t->nrseq) {
		r = rseq_near(t, dir, lo, hi);
		if (r != UINT64_MAX && !hits(arg, t->rseq, t->nrseq))
			r = UINT64_MAX;
	}
	if (r != UINT64_MAX) {
		if (dir < 0)
			lo = r + 1;
		else
			hi = r;
	}
	if (t->nsig)
		s = sig_near(rc, t, dir, lo, hi, hits, arg, why);
	if (s != UINT64_MAX) {
		*g = s;
		return 0;
	}
	if (r != UINT64_MAX) {
		if (!hits(arg, t->rseq, t->nrseq))	/* its hit again */
			return -RP_ERR_NOTFOUND;
		*g = r;
		*why = RP_WATCH_KERNEL_RSEQ;
		return 0;
	}
	return -RP_ERR_NOTFOUND;
}
