// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What the kernel writes when a thread exits alone (issue #18): exit(2)
 * with other threads alive runs mm_release after the thread's last
 * instruction and before the end snapshot, which writes 0 to the
 * thread's clear_child_tid word (the ctid of the clone that made it with
 * CLONE_CHILD_CLEARTID, or the address of its last set_tid_address(2))
 * and then futex-wakes it: glibc's struct pthread tid, which
 * pthread_join waits on.  Before that, futex_exit_release walks the
 * robust list the thread registered with set_robust_list(2) (a clone
 * starts with none) and marks the futexes it still holds.
 *
 * Without this file the exit counts as a store of unknown address (and a
 * load: the robust list walk), a "may have written" stop for any watched
 * byte.  Here the exit's accesses are named where the sideband or the
 * history shows them.  The sideband's EXIT_FUTEX record (format 3) says
 * what the kernel held as the exit began: the clear_child_tid word (a
 * known 4-byte write, its old value, new value 0) and the robust list's
 * head and words, from which the walk is followed as the kernel's
 * exit_robust_list() makes it, through memory as the recovery engine
 * knows it just before the exit.  Without the record, the history: the
 * clear_child_tid word as the recovery engine knows the argument at the
 * system call that set it, and no robust-list access for a thread that
 * started in the recording and never called set_robust_list.  What
 * neither can show (a ctid not known, a list word not known, a system
 * call of unknown number, a gap that may hide one, a thread older than
 * the recording) stays an unknown access, or a write that may happen at
 * a known address: never a silent skip.
 *
 * The system calls of a thread are found at its tracing-off events
 * (RP_EV_DISABLED: a syscall leaves ring 3, which ptrec traces alone).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/sched.h>

#include "rcv_win.h"
#include "replay.h"
#include "rp_internal.h"
#include "watch_exit.h"
#include "watch_proof.h"

#define SYS_CLONE		56
#define SYS_FORK		57
#define SYS_VFORK		58
#define SYS_EXECVE		59
#define SYS_SET_TID_ADDRESS	218
#define SYS_SET_ROBUST_LIST	273
#define SYS_EXECVEAT		322
#define SYS_CLONE3		435

/* What an access of the exit does to its bytes (known writes). */
struct wpx_val {
	bool old_known, new_known;
	uint32_t old_v, new_v;
};

/* One thread's exit: its accesses (rp_recover_accesses()' form). */
struct wpx_thr {
	const struct rp_session *s;
	uint32_t tid;
	int n, cap;
	struct rp_access *acc;
	struct wpx_val *val;
	bool oom;
	bool mem_asked, mem_ok;	/* exit_mem()'s question about the end */
};

struct wpx_cache {
	struct wpx_thr *v;
	size_t n, cap;
};

void wpx_cache_free(struct wpx_cache *xc)
{
	size_t i;

	if (!xc)
		return;
	for (i = 0; i < xc->n; i++) {
		free(xc->v[i].acc);
		free(xc->v[i].val);
	}
	free(xc->v);
	free(xc);
}

/*
 * The process whose memory process @pid shares, or 0: one made by clone
 * with CLONE_VM but not CLONE_THREAD (vfork's child, clone(CLONE_VM |
 * SIGCHLD)), its THREAD_START's flags say so, that never exec'd (the
 * exec gives it its own memory: from there, a watchpoint of its parent
 * would be a wrong stop, so none where it exec'd at all), through such
 * parents up to one that has its own.
 */
uint32_t wpx_mem_owner(const struct rp_session *s, uint32_t pid)
{
	const struct ptrec_sb_thread_start *t;
	uint32_t owner = 0;
	unsigned int depth;
	size_t i;

	for (depth = 0; depth < 8; depth++) {
		uint32_t parent = 0;

		for (i = 0; i < s->nrecs; i++) {
			t = (const void *)s->recs[i];
			if (s->recs[i]->type == PTREC_SB_EXEC &&
			    ((const struct ptrec_sb_exec *)t)->pid == pid)
				return owner;
			if (s->recs[i]->type == PTREC_SB_THREAD_START &&
			    t->pid == pid && t->tid == pid &&
			    t->parent_pid != pid &&
			    (t->clone_flags & 0x100) &&	/* CLONE_VM */
			    !(t->clone_flags & 0x10000))	/* CLONE_THREAD */
				parent = t->parent_pid;
		}
		if (!parent)
			return owner;
		owner = pid = parent;
	}
	return owner;
}

/* Is the instruction at @pos a system call (SYSCALL, int 0x80)? */
static bool is_sys(struct rp_cursor *c, uint64_t pos, struct rp_insn *in)
{
	return !rp_cursor_peek(c, pos, in) &&
	       (rp_insn_is_syscall(in) || rp_insn_is_int80(in));
}

/*
 * A thread that ended in a system call before the end snapshot was taken
 * (exit(2) with other threads alive: the snapshot shows its process
 * later, not this thread).  (exit_group's writes come after the
 * snapshot: the recorder takes it at the first PTRACE_EVENT_EXIT, before
 * any thread's mm_release.)  Or a process that shares another's memory
 * (a CLONE_VM child, vfork's) ending in one, whatever its snapshot: the
 * kernel writes after the snapshot of its own end into memory the other
 * process goes on with (tests/values/review4.c clonevmctid, vforkctid).
 * Through SYSCALL, or int 0x80 (i386's exit: review4.c exit80).
 */
bool wpx_exit_write(struct rp_recover *rc)
{
	struct rp_cursor *c;
	struct rp_insn in;
	bool ret;

	bool shared = rc->end && wpx_mem_owner(rc->s, rc->pid);

	if (!rc->end || ((rc->snap_ok || !rc->mt) && !shared) ||
	    rp_cursor_new(rc->s, rc->tid, &c))
		return false;
	ret = is_sys(c, rc->end, &in) ||
	      /* in the snapshot, after the call: its last instruction */
	      (shared && rc->snap_ok && is_sys(c, rc->end - 1, &in) &&
	       (rc->end_regs.valid & (1ull << RP_REG_RIP)) &&
	       rc->end_regs.val[RP_REG_RIP] == in.ip + in.size);
	rp_cursor_free(c);
	return ret;
}

bool wpx_exit_near(struct rp_recover *rc, uint64_t lo, uint64_t hi,
		   uint64_t *g)
{
	*g = rc->end - 1;
	return rc->end && *g >= lo && *g < hi && wpx_exit_write(rc);
}

/* A 64-bit register before @pos when the engine knows it whole. */
static bool reg_known(struct rp_recover *rc, uint64_t pos, unsigned int reg,
		      uint64_t *v)
{
	uint64_t k;

	return !rp_recover_reg_bits(rc, pos, reg, v, &k) && k == ~0ull;
}

/*
 * Questions to the engine for system call numbers per exit: each may
 * compute a window (about 0.1 s for 16,384 instructions far from the
 * end), so a thread with many calls not preceded by their number gives
 * up (the exit stays an unknown write) rather than take minutes.
 */
#define WPX_ASK_MAX 32

/* Any i386 call these rules need not tell apart (none of the numbers
 * above, nor -1).
 */
#define SYS_I386_OTHER		0x100000000ll

/*
 * An i386 call (int 0x80) as the x86-64 one these rules know: exit and
 * exit_group end the thread, fork and vfork give a child no
 * clear_child_tid.  Those whose arguments they would read from the
 * 64-bit registers (clone 120, clone3 435, set_tid_address 258,
 * set_robust_list 311, execve 11, execveat 358) are not known (-1).
 */
static int64_t sys_i386(uint32_t nr)
{
	switch (nr) {
	case 1:
		return 60;
	case 252:
		return 231;
	case 2:
		return SYS_FORK;
	case 190:
		return SYS_VFORK;
	case 11: case 120: case 258: case 311: case 358: case 435:
		return -1;
	default:
		return SYS_I386_OTHER;
	}
}

/*
 * The number of the system call at @pos (Linux reads eax alone), -1
 * when it is not known, an x32 one or sysenter's; an i386 one (int
 * 0x80) as sys_i386() gives it.  First the instruction just before it,
 * `mov $N, %eax` or `mov $N, %rax` as libc's wrappers set it; else,
 * while *@budget lasts, the engine.
 */
static int64_t sys_nr(struct rp_recover *rc, struct rp_cursor *c,
		      const struct rp_insn *in, uint64_t pos, int *budget)
{
	bool i386 = rp_insn_is_int80(in);
	struct rp_insn pv;
	uint64_t v, k;
	uint32_t imm;

	if (!i386 && !rp_insn_is_syscall(in))
		return -1;
	if (pos && !rp_cursor_peek(c, pos - 1, &pv) &&
	    ((pv.size == 5 && pv.raw[0] == 0xb8) ||
	     (pv.size == 7 && pv.raw[0] == 0x48 && pv.raw[1] == 0xc7 &&
	      pv.raw[2] == 0xc0))) {
		memcpy(&imm, pv.raw + pv.size - 4, 4);
		if (i386)
			return sys_i386(imm);
		return imm & 0x40000000 ? -1 : (int64_t)imm;
	}
	if (*budget <= 0)
		return -1;
	*budget -= 1;
	if (rp_recover_reg_bits(rc, pos, RP_REG_RAX, &v, &k) ||
	    (k & 0xffffffffull) != 0xffffffffull)
		return -1;
	if (i386)
		return sys_i386((uint32_t)v);
	if (v & 0x40000000)
		return -1;
	return (int64_t)(v & 0xffffffffull);
}

/* Does a gap of @tid's history hide instructions (a system call)? */
static bool hides(const struct rp_session *s, uint32_t tid)
{
	struct rp_gap gap;
	uint64_t i;

	for (i = 0; !rp_thread_gap(s, tid, i, &gap); i++)
		if (gap.reason != RP_GAP_LOOP)
			return true;
	return false;
}

/*
 * Calls @fn for each system call of @rc's thread, in history order, with
 * its position and number (-1 unknown).  Returns false when the history
 * may hide one (a gap) or a step fails.
 */
static bool each_sys(struct rp_recover *rc,
		     bool (*fn)(void *arg, uint64_t pos, int64_t nr),
		     void *arg)
{
	struct rp_cursor *c;
	struct rp_event ev;
	struct rp_insn in;
	uint64_t i;
	bool ok = true;
	int budget = WPX_ASK_MAX;

	if (hides(rc->s, rc->tid) || rp_cursor_new(rc->s, rc->tid, &c))
		return false;
	for (i = 0; ok && !rp_thread_event(rc->s, rc->tid, i, &ev); i++) {
		if (ev.kind != RP_EV_DISABLED || !ev.before)
			continue;
		if (rp_cursor_peek(c, ev.before - 1, &in)) {
			ok = false;
			break;
		}
		/* Tracing off after another instruction: a filter, not a
		 * system call (a 32-bit one is one of unknown number).
		 */
		if (!rp_insn_is_syscall(&in) && !rp_insn_is_int80(&in) &&
		    !(in.size == 2 && in.raw[0] == 0x0f &&
		      in.raw[1] == 0x34))	/* SYSENTER */
			continue;
		ok = fn(arg, ev.before - 1,
			sys_nr(rc, c, &in, ev.before - 1, &budget));
	}
	rp_cursor_free(c);
	return ok;
}

/* The exiting thread's own system calls. */
struct own {
	struct rp_recover *rc;
	bool robust;		/* may have registered a robust list */
	bool unknown;		/* a call of unknown number since tid_at */
	bool set;		/* a set_tid_address */
	uint64_t tid_at;	/* the last one */
};

static bool own_sys(void *arg, uint64_t pos, int64_t nr)
{
	struct own *o = arg;

	if (nr < 0 || nr == SYS_EXECVE || nr == SYS_EXECVEAT) {
		o->unknown = true;
		o->robust = true;
	} else if (nr == SYS_SET_ROBUST_LIST) {
		o->robust = true;
	} else if (nr == SYS_SET_TID_ADDRESS) {
		o->set = true;
		o->unknown = false;
		o->tid_at = pos;
	}
	return true;
}

/* The parent's clone-family calls, to find the k-th. */
struct par {
	uint64_t k, n;		/* the one wanted, how many so far */
	uint64_t at;
	int64_t nr;
	bool unknown;
};

static bool par_sys(void *arg, uint64_t pos, int64_t nr)
{
	struct par *p = arg;

	if (nr < 0) {
		p->unknown = true;
		return false;
	}
	if (nr != SYS_CLONE && nr != SYS_CLONE3 && nr != SYS_FORK &&
	    nr != SYS_VFORK)
		return true;
	if (p->n++ == p->k) {
		p->at = pos;
		p->nr = nr;
	}
	return true;
}

enum { CTID_UNKNOWN, CTID_NONE, CTID_KNOWN };

/*
 * The clear_child_tid the clone that made @tid gave it: the k-th
 * THREAD_START record of its parent is the parent's k-th clone-family
 * system call when the parent's history shows all of them (as many as
 * the records; a failed clone makes them differ, and then nothing is
 * known).  The flags and ctid as the engine knows them there: clone's
 * rdi and r10, clone3's struct clone_args (flags at 0, child_tid at 16).
 */
static int clone_ctid(struct rp_recover *rc, uint32_t parent, uint64_t k,
		      uint64_t nrec, uint64_t *ctid)
{
	struct par p = { k, 0, 0, -1, false };
	struct rp_recover *pr;
	uint64_t flags, a, args[3];
	int ret = CTID_UNKNOWN;

	if (rp_recover_new(rc->s, parent, &pr))
		return CTID_UNKNOWN;
	if (!each_sys(pr, par_sys, &p) || p.unknown || p.n != nrec ||
	    p.nr < 0)
		goto out;
	if (p.nr == SYS_FORK || p.nr == SYS_VFORK) {
		ret = CTID_NONE;
		goto out;
	}
	if (p.nr == SYS_CLONE) {
		uint64_t v, kb;

		if (rp_recover_reg_bits(pr, p.at, RP_REG_RDI, &v, &kb) ||
		    !(kb & CLONE_CHILD_CLEARTID))
			goto out;
		if (!(v & CLONE_CHILD_CLEARTID)) {
			ret = CTID_NONE;
			goto out;
		}
		if (!reg_known(pr, p.at, RP_REG_R10, ctid))
			goto out;
	} else {
		if (!reg_known(pr, p.at, RP_REG_RDI, &a) ||
		    rp_recover_mem(pr, p.at, a, args, sizeof(args)) !=
		    sizeof(args))
			goto out;
		flags = args[0];
		if (!(flags & CLONE_CHILD_CLEARTID)) {
			ret = CTID_NONE;
			goto out;
		}
		*ctid = args[2];
	}
	ret = *ctid ? CTID_KNOWN : CTID_NONE;
out:
	rp_recover_free(pr);
	return ret;
}

/* Is @tid made in the recording?  Its parent and its rank among the
 * parent's children in *@parent, *@k, the parent's children in *@n.
 */
static bool started(const struct rp_session *s, uint32_t tid,
		    uint32_t *parent, uint64_t *k, uint64_t *n)
{
	const struct ptrec_sb_thread_start *t;
	bool found = false;
	size_t i;

	for (i = 0; i < s->nrecs; i++) {
		t = (const void *)s->recs[i];
		if (s->recs[i]->type == PTREC_SB_THREAD_START && t->tid == tid) {
			*parent = t->parent_tid;
			found = true;
			break;
		}
	}
	if (!found)
		return false;
	*k = *n = 0;
	for (i = 0; i < s->nrecs; i++) {
		t = (const void *)s->recs[i];
		if (s->recs[i]->type != PTREC_SB_THREAD_START ||
		    t->parent_tid != *parent)
			continue;
		if (t->tid == tid)
			*k = *n;
		*n += 1;
	}
	return true;
}

/* One more access of the exit, with what it does where known. */
static void add(struct wpx_thr *x, struct rp_access a, struct wpx_val v)
{
	if (x->n == x->cap) {
		int cap = x->cap ? 2 * x->cap : 4;
		struct rp_access *na = realloc(x->acc, cap * sizeof(*na));
		struct wpx_val *nv;

		if (na)
			x->acc = na;
		nv = na ? realloc(x->val, cap * sizeof(*nv)) : NULL;
		if (!nv) {
			x->oom = true;
			return;
		}
		x->val = nv;
		x->cap = cap;
	}
	x->acc[x->n] = a;
	x->val[x->n++] = v;
}

static void add_write(struct wpx_thr *x, uint64_t addr, struct wpx_val v)
{
	add(x, (struct rp_access){ .kind = RP_ACC_WRITE, .addr_known = true,
				   .syscall = true, .addr = addr, .size = 4 },
	    v);
}

static void add_read(struct wpx_thr *x, uint64_t addr, uint64_t size)
{
	add(x, (struct rp_access){ .kind = RP_ACC_READ, .addr_known = true,
				   .syscall = true, .addr = addr,
				   .size = size }, (struct wpx_val){ 0 });
}

/* A write and a read of unknown address: what cannot be followed. */
static void add_unknown(struct wpx_thr *x)
{
	add(x, (struct rp_access){ .kind = RP_ACC_WRITE, .syscall = true },
	    (struct wpx_val){ 0 });
	add(x, (struct rp_access){ .kind = RP_ACC_READ, .syscall = true },
	    (struct wpx_val){ 0 });
}

/* The thread's EXIT_FUTEX record (sideband version 3), or NULL. */
static const struct ptrec_sb_exit_futex *futex_rec(const struct rp_session *s,
						   uint32_t pid, uint32_t tid)
{
	const struct ptrec_sb_exit_futex *f = NULL, *r;
	size_t i;

	for (i = 0; i < s->nrecs; i++) {
		r = (const void *)s->recs[i];
		if (s->recs[i]->type == PTREC_SB_EXIT_FUTEX &&
		    r->tid == tid && r->pid == pid)
			f = r;
	}
	return f;
}

/*
 * Memory as the exit began, where the recovery engine knows it: before
 * the thread's last instruction (rc->end - 1; the system call at rc->end
 * never completed), when that one stores nothing.  The engine counts
 * other threads' writes (in a process with several, memory they share is
 * known only where this thread itself loaded it after their last store).
 */
/* Does the thread's last instruction store nothing?  Asked once per exit. */
static bool end_quiet(struct rp_recover *rc, struct wpx_thr *x)
{
	struct rp_access a[4];
	int n, k;

	if (!x->mem_asked) {
		x->mem_asked = true;
		n = rc->end ? rp_recover_accesses(rc, rc->end - 1, a, 4) : -1;
		x->mem_ok = n >= 0;
		for (k = 0; k < n; k++)
			if (a[k].kind == RP_ACC_WRITE)
				x->mem_ok = false;
	}
	return x->mem_ok;
}

static bool exit_mem(struct rp_recover *rc, struct wpx_thr *x, uint64_t addr,
		     void *buf, size_t len)
{
	return end_quiet(rc, x) &&
	       rp_recover_mem(rc, rc->end - 1, addr, buf, len) == len;
}

#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu
#define ROBUST_LIST_LIMIT	2048

/*
 * The kernel's handle_futex_death() on the word at @uaddr (Linux
 * kernel/futex/core.c): a word owned by the exiting thread (its TID bits)
 * gets FUTEX_OWNER_DIED, keeping FUTEX_WAITERS; a pending non-PI one
 * that is 0 is only woken; any other is left alone.  A word of unknown
 * value is a write that may happen (cond).  Returns false where the
 * kernel stops the walk (an unaligned word).
 */
static bool futex_death(struct rp_recover *rc, struct wpx_thr *x,
			uint64_t uaddr, bool pi, bool pending)
{
	uint32_t u;

	if (uaddr % 4)
		return false;
	add_read(x, uaddr, 4);
	if (!exit_mem(rc, x, uaddr, &u, 4)) {
		add(x, (struct rp_access){ .kind = RP_ACC_WRITE,
					   .addr_known = true, .cond = true,
					   .syscall = true, .addr = uaddr,
					   .size = 4 }, (struct wpx_val){ 0 });
		return true;
	}
	if (pending && !pi && !u)
		return true;
	if ((u & FUTEX_TID_MASK) != rc->tid)
		return true;
	add_write(x, uaddr, (struct wpx_val){ true, true, u,
		  (u & FUTEX_WAITERS) | FUTEX_OWNER_DIED });
	return true;
}

/*
 * The kernel's exit_robust_list() over the list whose head @f names:
 * the head's words from the record (or the engine), each entry's next
 * pointer (bit 0: PI) and futex word from the engine, up to the kernel's
 * limit of entries, then the pending one.  Where a word it needs is not
 * known the rest of the walk is a write and a read of unknown address.
 */
static void robust_walk(struct rp_recover *rc, struct wpx_thr *x,
			const struct ptrec_sb_exit_futex *f)
{
	uint64_t head = f->robust_list, w[3], entry, next, pending;
	unsigned int limit = ROBUST_LIST_LIMIT;
	bool pi, npi, ppi, nk;
	int64_t off;

	add_read(x, head, PTREC_SB_ROBUST_HEAD_LEN);
	if (f->known & PTREC_SB_FUTEX_HEAD) {
		w[0] = f->robust_next;
		w[1] = (uint64_t)f->futex_offset;
		w[2] = f->list_op_pending;
	} else if (!exit_mem(rc, x, head, w, sizeof(w))) {
		add_unknown(x);
		return;
	}
	entry = w[0] & ~1ull;
	pi = w[0] & 1;
	off = (int64_t)w[1];
	pending = w[2] & ~1ull;
	ppi = w[2] & 1;
	while (entry != head) {
		/* The kernel reads the next pointer first, handles this
		 * entry whatever it read, then stops if the read failed.
		 */
		add_read(x, entry, 8);
		nk = exit_mem(rc, x, entry, &next, 8);
		if (entry != pending &&
		    !futex_death(rc, x, entry + (uint64_t)off, pi, false))
			return;
		if (!nk) {
			add_unknown(x);
			return;
		}
		npi = next & 1;
		entry = next & ~1ull;
		pi = npi;
		if (!--limit)
			break;
	}
	if (pending)
		futex_death(rc, x, pending + (uint64_t)off, ppi, true);
}

/* Works out the exit's accesses of @rc's thread into @x. */
static void exit_accesses(struct rp_recover *rc, struct wpx_thr *x)
{
	const struct ptrec_sb_exit_futex *f = futex_rec(rc->s, rc->pid,
							       rc->tid);
	struct own o = { rc, false, false, false, 0 };
	uint64_t ctid = 0, k = 0, n = 0;
	uint32_t parent = 0;
	bool made, whole, robust_rec;
	struct wpx_val v = { 0 };
	int st = CTID_UNKNOWN;

	robust_rec = f && (f->known & PTREC_SB_FUTEX_ROBUST);
	x->n = 0;
	/* The robust list first: the kernel walks it before the word. */
	if (robust_rec && f->robust_list)
		robust_walk(rc, x, f);
	if (f && (f->known & PTREC_SB_FUTEX_CTID)) {
		ctid = f->clear_child_tid;
		st = ctid ? CTID_KNOWN : CTID_NONE;
		if (f->known & PTREC_SB_FUTEX_CTID_VAL) {
			v.old_known = true;
			v.old_v = f->ctid_val;
		}
		if (robust_rec)
			goto ctid;
	}
	/* What the sideband does not say, from the history. */
	made = started(rc->s, rc->tid, &parent, &k, &n);
	whole = each_sys(rc, own_sys, &o);
	if (!whole || !made)
		o.robust = true;
	if (st == CTID_UNKNOWN && whole && o.set && !o.unknown)
		st = reg_known(rc, o.tid_at, RP_REG_RDI, &ctid) ?
		     (ctid ? CTID_KNOWN : CTID_NONE) : CTID_UNKNOWN;
	else if (st == CTID_UNKNOWN && whole && made && !o.set &&
		 !o.unknown && parent != rc->tid)
		st = clone_ctid(rc, parent, k, n, &ctid);
	if (!robust_rec && o.robust)	/* the walk: unknown */
		add_unknown(x);
ctid:
	if (st == CTID_KNOWN) {
		/* The value as the exit began is the one before the
		 * thread's last instruction (the reverse stop) when that
		 * stores nothing.
		 */
		if (v.old_known && !end_quiet(rc, x))
			v.old_known = false;
		if (!v.old_known)
			v.old_known = exit_mem(rc, x, ctid, &v.old_v, 4);
		v.new_known = true;
		v.new_v = 0;
		add_write(x, ctid, v);
	} else if (st == CTID_UNKNOWN) {
		add(x, (struct rp_access){ .kind = RP_ACC_WRITE,
					   .syscall = true },
		    (struct wpx_val){ 0 });
	}
}

int wpx_exit_accesses(struct wpx_cache **xcp, struct rp_recover *rc,
		      const struct rp_access **acc)
{
	struct wpx_cache *xc = *xcp;
	struct wpx_thr *x;
	size_t i;

	if (!xc) {
		xc = calloc(1, sizeof(*xc));
		if (!xc)
			return -RP_ERR_NOMEM;
		*xcp = xc;
	}
	for (i = 0; i < xc->n; i++)
		if (xc->v[i].s == rc->s && xc->v[i].tid == rc->tid) {
			*acc = xc->v[i].acc;
			return xc->v[i].n;
		}
	if (xc->n == xc->cap) {
		size_t cap = xc->cap ? 2 * xc->cap : 4;

		x = realloc(xc->v, cap * sizeof(*x));
		if (!x)
			return -RP_ERR_NOMEM;
		xc->v = x;
		xc->cap = cap;
	}
	x = &xc->v[xc->n];
	memset(x, 0, sizeof(*x));
	x->s = rc->s;
	x->tid = rc->tid;
	exit_accesses(rc, x);
	if (x->oom) {
		free(x->acc);
		free(x->val);
		return -RP_ERR_NOMEM;
	}
	xc->n++;
	*acc = x->acc;
	return x->n;
}

void wpx_exit_values(const struct wpx_cache *xc, const struct rp_recover *rc,
		     struct rp_watch_hit *hit)
{
	const struct wpx_thr *x;
	size_t i;
	int k;

	hit->exit = true;
	for (i = 0; xc && i < xc->n; i++) {
		x = &xc->v[i];
		if (x->s != rc->s || x->tid != rc->tid)
			continue;
		for (k = 0; k < x->n; k++) {
			if (!x->acc[k].addr_known || x->acc[k].cond ||
			    x->acc[k].kind != hit->kind ||
			    x->acc[k].addr != hit->acc_addr ||
			    x->acc[k].size != hit->acc_size)
				continue;
			hit->old_known = x->val[k].old_known;
			hit->old_val = x->val[k].old_v;
			hit->new_known = x->val[k].new_known;
			hit->new_val = x->val[k].new_v;
			return;
		}
	}
}
