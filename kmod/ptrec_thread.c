// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: traced threads.  Each owns a ToPA table, its output regions and
 * a PT save area; the sched_switch tracepoint saves the outgoing traced
 * thread's PT state (XSAVES of component 8, or the RTIT MSRs) and restores
 * the incoming one's (XRSTORS, or the MSRs with IA32_RTIT_CTL last).
 *
 * Output is drained from irq_work, never from the PMI's NMI: after a ToPA
 * PMI (an INT region filled) and after a switch-out that crossed a region.
 * Positions are logical byte offsets in the thread's stream; the ring
 * position is the offset modulo the buffer size.  The unit's progress is
 * read at every save and at every ToPA PMI; every ToPA entry has INT and
 * there are at least two, so between two readings the unit writes less
 * than the buffer and the progress modulo its size is exact, however far
 * the drain lags: a ring buffer that wrapped before its drain is counted
 * (and reported lost) byte for byte.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/hashtable.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <asm/io.h>

#include "ptrec_internal.h"

DEFINE_PER_CPU(struct ptrec_thread *, ptrec_cur);
/* ptrec has set TraceEn on this CPU's unit since load (#20.3) */
DEFINE_PER_CPU(bool, ptrec_armed);

static DEFINE_HASHTABLE(ptrec_threads_hash, 8);
static DEFINE_SPINLOCK(ptrec_threads_lock);
static atomic_t ptrec_nr_threads = ATOMIC_INIT(0);
static struct workqueue_struct *ptrec_wq;

struct ptrec_drain_cpu {
	struct llist_head list;
	struct irq_work iw;
};
static DEFINE_PER_CPU(struct ptrec_drain_cpu, ptrec_drain);

/*
 * Non-zero while this CPU saves, drains or restores its loaded thread's
 * unit under t->lock: the ToPA PMI then leaves the unit alone (as perf's
 * pt->handle_nmi), and the section reads the position itself.
 */
static DEFINE_PER_CPU(int, ptrec_pmi_hold);

static void ptrec_hold_pmi(void)
{
	this_cpu_inc(ptrec_pmi_hold);
	barrier();
}

static void ptrec_allow_pmi(void)
{
	barrier();
	this_cpu_dec(ptrec_pmi_hold);
}

/**
 * ptrec_thread_find() - the traced thread of @task
 * @task: a task.
 *
 * Context: RCU read side (or preemption disabled).
 * Return: the thread, or NULL.
 */
struct ptrec_thread *ptrec_thread_find(struct task_struct *task)
{
	struct ptrec_thread *t;

	if (!atomic_read(&ptrec_nr_threads))
		return NULL;
	hash_for_each_possible_rcu(ptrec_threads_hash, t, hnode,
				   (unsigned long)task)
		if (t->task == task)
			return t;
	return NULL;
}

/* SDM Vol. 3C 33.2.7.8: table index and offset, as a ring position. */
static u64 ptrec_ring_pos(struct ptrec_thread *t)
{
	u64 m = t->area->pt.output_mask;
	u32 idx = MASK_PTRS_IDX(m), off = MASK_PTRS_OFF(m);

	if (idx >= t->nr_entries)	/* at the END entry: wrapped */
		return 0;
	return ((u64)idx * t->entry_size + off) & (t->buf_size - 1);
}

/*
 * Count what the unit wrote since the last reading into t->produced, from
 * the output position in t->area (read with TraceEn clear).  Reading the
 * same position twice adds nothing.  A unit stopped at the guard has
 * filled everything up to it (SDM 33.2.6.2 "ToPA STOP"), a whole lap if
 * the drain lagged, which the position alone cannot tell.  Context:
 * t->lock held, or the PMI on the CPU holding @t outside a
 * ptrec_hold_pmi() section.
 */
static void ptrec_account(struct ptrec_thread *t)
{
	u64 pos = ptrec_ring_pos(t);

	t->produced += (pos - t->last_pos) & (t->buf_size - 1);
	t->last_pos = pos;
	if (t->area->pt.status & RTIT_STATUS_STOPPED)
		t->produced = max(t->produced, t->guard_end);
}

/*
 * The guard (#20.7, as perf's pt_buffer_reset_markers()): STOP on the
 * ToPA entry before the one holding the oldest undrained byte, in both
 * modes, so the unit stops instead of overwriting data not yet copied
 * however late the PMI is taken and however many INT fills it coalesces.
 * With one entry (single-entry ToPA) STOP sits on it for good.  Only
 * while the unit is stopped: it may cache ToPA entries while TraceEn is
 * set (33.2.7.3); and not while it is parked at the guard (Stopped),
 * where t->guard_end says how far it wrote.  Context: t->lock held or
 * the PMI, unit stopped.
 */
static void ptrec_place_guard(struct ptrec_thread *t)
{
	u64 drained = READ_ONCE(t->drained);
	unsigned int d = (drained & (t->buf_size - 1)) / t->entry_size;
	unsigned int idx = (d + t->nr_entries - 1) % t->nr_entries;

	/* a unit parked at the guard stays there until it is resumed */
	if (t->area->pt.status & RTIT_STATUS_STOPPED)
		return;
	t->guard_end = round_down(drained, t->entry_size) + t->buf_size;
	if (idx == t->stop_idx)
		return;
	t->topa[t->stop_idx] &= ~TOPA_STOP;
	t->topa[idx] |= TOPA_STOP;
	t->stop_idx = idx;
}

/*
 * A stretch of time @t ran while the unit did not trace it: one
 * PTREC_SB_LOST_UNTRACED record (0 bytes, size unknown) at the current
 * end of its stream, until a restore starts the unit again (then a next
 * hole is a new one, with its own record).  Context: t->lock held.
 */
static void ptrec_untraced(struct ptrec_thread *t, const char *why)
{
	if (t->untraced)
		return;
	t->untraced = true;
	atomic_long_inc(&ptrec_cnt.untraced);
	pr_debug("tid %d ran untraced: %s\n", t->tid, why);
	ptrec_q_lost(t->s, t, PTREC_SB_LOST_UNTRACED, 0, t->produced);
}

/*
 * After a save: what IA32_RTIT_STATUS says (as perf's pt_handle_status()).
 * Error (#20.4): an operational error stopped packet generation (SDM
 * 33.2.7.4, "ToPA Errors" in 33.2.6.2); it is logged, counted, cleared,
 * the output set back to where the thread's stream is, and the time
 * since is a loss.  Stopped at the guard in ring mode, once everything
 * is copied: output goes on at the next entry (the STOP offset is the
 * region's size, an error if kept) and the time stopped is a loss.
 * Stop-on-full keeps Stopped for good (ptrec_drain() writes FULL).
 * The unit is not running.  Context: t->lock held.
 */
static void ptrec_check_status(struct ptrec_thread *t)
{
	struct ptrec_pt_xstate *pt = &t->area->pt;
	u64 at = t->produced & (t->buf_size - 1);
	u32 idx;

	if (pt->status & RTIT_STATUS_ERROR) {
		atomic_long_inc(&ptrec_cnt.unit_errors);
		pr_err_ratelimited("tid %d: IA32_RTIT_STATUS.Error (ToPA error: OUTPUT_BASE %llx OUTPUT_MASK_PTRS %llx): tracing of it resumes at its next switch-in\n",
				   t->tid, pt->output_base, pt->output_mask);
		pt->status &= ~(RTIT_STATUS_ERROR | RTIT_STATUS_STOPPED);
		pt->output_base = virt_to_phys(t->topa);
		pt->output_mask = MASK_PTRS(at / t->entry_size,
					    at % t->entry_size);
		t->last_pos = at;
		ptrec_untraced(t, "unit error");
	}
	if ((pt->status & RTIT_STATUS_STOPPED) &&
	    (t->s->cfg.flags & PTREC_CFG_RING) &&
	    READ_ONCE(t->drained) == t->produced) {
		idx = MASK_PTRS_IDX(pt->output_mask) + 1;
		if (idx >= t->nr_entries)
			idx = 0;
		pt->output_mask = MASK_PTRS(idx, 0);
		pt->status &= ~RTIT_STATUS_STOPPED;
		ptrec_untraced(t, "stopped at the guard");
	}
	ptrec_place_guard(t);
}

/*
 * Save @t's state from this CPU's unit (stopping it), read its position
 * and status.  A save that faults leaves the area as it was and the time
 * since the last reading is a loss (#20.4); a unit found stopped behind
 * our back (VMXON, another PT user) is one too (#20.11).  Context: t->lock
 * held, IRQs off, @t loaded here, inside ptrec_hold_pmi().
 */
static void ptrec_save(struct ptrec_thread *t)
{
	struct ptrec_pt_xstate before = t->area->pt;
	bool cleared;

	if (ptrec_hw_save(t->area)) {
		atomic_long_inc(&ptrec_cnt.msr_faults);
		pr_warn_ratelimited("tid %d: saving PT state faulted: the time since the last switch-in is lost\n",
				    t->tid);
		t->area->pt = before;
		ptrec_untraced(t, "save faulted");
		return;
	}
	cleared = !(t->area->pt.ctl & RTIT_CTL_TRACEEN);
	if (cleared)	/* RTIT_CTL as saved: TraceEn was clear before */
		t->area->pt.ctl = before.ctl;
	ptrec_account(t);
	/* the hole begins where the unit stopped writing: after account */
	if (cleared)
		ptrec_untraced(t, "TraceEn cleared under us");
	ptrec_check_status(t);
}

/**
 * ptrec_load() - switch @t in on this CPU: SWITCH_IN, then its PT state
 * @t:		the thread.
 * @cpu:	this CPU.
 *
 * SWITCH_IN is queued before the restore: once TraceEn is set the unit
 * starts with PSB+ and, with TSCEn, a TSC packet (SDM Vol. 3C 33.4.2.11,
 * 33.4.2.17), and every TSC packet of the thread must lie between its
 * SWITCH_IN and SWITCH_OUT.  PacketByteCnt is cleared first (#20.9):
 * setting TraceEn writes PSB+ only when it is 0 (33.2.7.3), and every
 * switch-in must be a sync point, or decoding a thread would depend on
 * what came before its switch-out.  A unit another user holds, VMX
 * operation without IA32_VMX_MISC[14], and a restore that faults leave
 * @t untraced, and say so in a LOST record (#20.8, #20.11, #20.4).
 *
 * Context: t->lock held, IRQs off, on the CPU that will own it.
 * Return: true if @t is now loaded here.
 */
static bool ptrec_load(struct ptrec_thread *t, int cpu)
{
	if (t->dead || t->loaded_cpu >= 0 || ptrec_hw_shut())
		return false;
	if (ptrec_hw_rdmsr(MSR_IA32_RTIT_CTL) & RTIT_CTL_TRACEEN) {
		/* someone else (perf) traces on this CPU: leave it */
		atomic_long_inc(&ptrec_cnt.foreign_skips);
		ptrec_untraced(t, "another PT user holds the unit");
		return false;
	}
	if (ptrec_hw->in_vmx() && !(ptrec_caps.flags & PTREC_INFO_IN_VMX)) {
		ptrec_untraced(t, "VMX operation");
		return false;
	}
	/* its LOST records wait for room: untraced, so they stay exact */
	if (!ptrec_q_flush_thread(t->s, t)) {
		ptrec_untraced(t, "its losses wait for room in the queue");
		return false;
	}
	this_cpu_write(ptrec_armed, true);
	ptrec_check_status(t);
	t->area->pt.status &= ~RTIT_STATUS_BYTECNT;
	atomic64_inc(&t->s->st_switches);
	ptrec_sb_switch(t, PTREC_SB_SWITCH_IN, 0, cpu);
	ptrec_hold_pmi();
	if (ptrec_hw_restore(t->area)) {
		atomic_long_inc(&ptrec_cnt.msr_faults);
		pr_warn_ratelimited("tid %d: restoring PT state faulted: not traced until its next switch-in\n",
				    t->tid);
		ptrec_hw->write_msr(MSR_IA32_RTIT_CTL, 0);
		ptrec_allow_pmi();
		ptrec_untraced(t, "restore faulted");
		ptrec_sb_switch(t, PTREC_SB_SWITCH_OUT, 0, cpu);
		return false;
	}
	t->untraced = false;
	t->loaded_cpu = cpu;
	this_cpu_write(ptrec_cur, t);
	ptrec_allow_pmi();
	return true;
}

static void ptrec_queue_drain(struct ptrec_thread *t);

/* Context: t->lock held, IRQs off, t loaded on this CPU. */
static void ptrec_unload(struct ptrec_thread *t)
{
	u64 before = t->produced;

	ptrec_hold_pmi();
	ptrec_save(t);
	t->loaded_cpu = -1;
	this_cpu_write(ptrec_cur, NULL);
	ptrec_allow_pmi();
	if (t->produced / t->entry_size != before / t->entry_size ||
	    (t->area->pt.status & RTIT_STATUS_STOPPED))
		ptrec_queue_drain(t);
}

/*
 * Drains run from a work item (#20.12): the copy into the queue happens
 * in process context with interrupts on, while the unit goes on writing
 * behind the guard.  NMI and the scheduler cannot queue work, so they
 * queue the thread on this CPU's list and an irq_work hands it on.
 */
static void ptrec_queue_drain(struct ptrec_thread *t)
{
	struct ptrec_drain_cpu *d = this_cpu_ptr(&ptrec_drain);

	if (test_and_set_bit(0, &t->drain_pending))
		return;
	llist_add(&t->drain_node, &d->list);
	irq_work_queue(&d->iw);
}

/*
 * The position at a ToPA PMI.  SDM Vol. 3C 33.2.7.8: the output pointers
 * are reliable only with TraceEn clear, so, as perf's PMI handler does,
 * stop the unit, read them, move the guard and start it again (writing
 * IA32_RTIT_CTL is allowed with TraceEn set, 33.2.7.2).  The saved area
 * is not restored: its next save overwrites what is read here.
 */
static void ptrec_pmi_account(struct ptrec_thread *t)
{
	struct ptrec_pt_xstate *pt = &t->area->pt;
	u64 ctl = ptrec_hw_rdmsr(MSR_IA32_RTIT_CTL);

	if (!(ctl & RTIT_CTL_TRACEEN))
		return;
	ptrec_hw->write_msr(MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN);
	pt->status = ptrec_hw_rdmsr(MSR_IA32_RTIT_STATUS);
	pt->output_base = ptrec_hw_rdmsr(MSR_IA32_RTIT_OUTPUT_BASE);
	pt->output_mask = ptrec_hw_rdmsr(MSR_IA32_RTIT_OUTPUT_MASK);
	ptrec_account(t);
	ptrec_place_guard(t);
	ptrec_hw->write_msr(MSR_IA32_RTIT_CTL, ctl);
}

/**
 * ptrec_pmi_raise() - a ToPA PMI for the thread loaded on this CPU
 *
 * Reads the unit's position, so a ring buffer the unit wraps before the
 * drain runs is still counted byte for byte, and queues the drain.
 * Inside a ptrec_hold_pmi() section that section reads the position.
 *
 * Context: NMI (or the model's hrtimer).
 */
void ptrec_pmi_raise(void)
{
	struct ptrec_thread *t = this_cpu_read(ptrec_cur);

	if (!t)
		return;
	atomic64_inc(&t->s->st_pmis);
	if (!this_cpu_read(ptrec_pmi_hold))
		ptrec_pmi_account(t);
	ptrec_queue_drain(t);
}

static void ptrec_drain_fn(struct irq_work *iw)
{
	struct ptrec_drain_cpu *d = container_of(iw, struct ptrec_drain_cpu,
						 iw);
	struct llist_node *list = llist_del_all(&d->list);
	struct ptrec_thread *t, *n;

	llist_for_each_entry_safe(t, n, list, drain_node) {
		clear_bit(0, &t->drain_pending);
		queue_work(ptrec_wq, &t->drain_work);
	}
}

/*
 * After a save on the CPU that holds @t: start its unit again, with PSB+
 * (#20.9), unless its LOST records wait for room (ptrec_q_lost()): then
 * the unit stays stopped, one UNTRACED record says so, and the reader,
 * once it made room, kicks it (ptrec_thread_kick()).  Context: t->lock
 * held, IRQs off, inside ptrec_hold_pmi().
 */
static void ptrec_restart(struct ptrec_thread *t)
{
	t->area->pt.status &= ~RTIT_STATUS_BYTECNT;
	if (!ptrec_q_flush_thread(t->s, t)) {
		ptrec_untraced(t, "its losses wait for room in the queue");
	} else if (ptrec_hw_restore(t->area)) {
		/* the next switch-out finds TraceEn clear */
		atomic_long_inc(&ptrec_cnt.msr_faults);
		ptrec_hw->write_msr(MSR_IA32_RTIT_CTL, 0);
	} else {
		t->untraced = false;	/* a next hole is a new one */
	}
}

/*
 * IPI: on the CPU that holds @t, stop the unit, read it, let the status
 * and guard follow what the drain copied, start it again.
 */
static void ptrec_rearm_fn(void *arg)
{
	struct ptrec_thread *t = arg;

	raw_spin_lock(&t->lock);
	if (t->loaded_cpu == smp_processor_id()) {
		ptrec_hold_pmi();
		ptrec_save(t);
		ptrec_restart(t);
		ptrec_allow_pmi();
	}
	raw_spin_unlock(&t->lock);
}

/*
 * Copy what @t's unit wrote since the last drain into the session queue,
 * with interrupts on: the guard keeps the unit off bytes not yet copied.
 * Ring mode drops what the queue cannot take (READER); stop-on-full
 * leaves it in the buffer, where the guard stops the unit.  Then the
 * guard moves, on the CPU holding @t if it is loaded.
 * Context: process, t->drain_mutex held.
 */
static void ptrec_drain_thread(struct ptrec_thread *t)
{
	struct ptrec_session *s = t->s;
	bool ring = s->cfg.flags & PTREC_CFG_RING;
	unsigned long flags;
	u64 from, to;
	int cpu;

	raw_spin_lock_irqsave(&t->lock, flags);
	if ((t->area->pt.status & RTIT_STATUS_STOPPED) && !ring &&
	    !t->stopped) {
		/* SDM 33.2.6.2: the STOP region is full */
		t->stopped = true;
		atomic_set(&s->st_stopped, 1);
		ptrec_q_lost(s, t, PTREC_SB_LOST_FULL, 0, t->produced);
	}
	if (t->produced - t->drained > t->buf_size) {
		/* cannot happen behind the guard; counted if it does */
		u64 lost = t->produced - t->buf_size - t->drained;

		ptrec_q_lost(s, t, PTREC_SB_LOST_WRAP, lost, t->drained);
		t->drained += lost;
	}
	from = t->drained;
	to = t->produced;
	raw_spin_unlock_irqrestore(&t->lock, flags);

	while (from < to) {
		u64 rp = from & (t->buf_size - 1);
		u32 r = rp / t->region_size, off = rp % t->region_size;
		u32 n = min_t(u64, to - from,
			      min_t(u32, t->region_size - off,
				    PTREC_MSG_TRACE_MAX));
		u8 *src = page_address(t->regions[r]) + off;

		if (ptrec_q_trace(s, t, src, n, from)) {
			if (!ring)
				break;	/* the guard holds the rest */
			ptrec_q_lost(s, t, PTREC_SB_LOST_READER, to - from,
				     from);
			from = to;
			break;
		}
		from += n;
		cond_resched();
	}

	raw_spin_lock_irqsave(&t->lock, flags);
	WRITE_ONCE(t->drained, from);
	cpu = t->loaded_cpu;
	if (cpu < 0 && !t->dead)
		ptrec_check_status(t);
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (cpu >= 0)
		smp_call_function_single(cpu, ptrec_rearm_fn, t, 1);
}

/**
 * ptrec_thread_kick() - drain @t and rearm its unit where it is loaded
 * @t:	thread whose waiting losses were just reported.
 *
 * Through the per-CPU list and irq_work, not queue_work(): the caller
 * holds q_lock, which the scheduler takes under its runqueue lock, and
 * waking a worker takes a runqueue lock.
 * Context: any but NMI, IRQs off.
 */
void ptrec_thread_kick(struct ptrec_thread *t)
{
	ptrec_queue_drain(t);
}

void ptrec_drain_work(struct work_struct *w)
{
	struct ptrec_thread *t = container_of(w, struct ptrec_thread,
					      drain_work);

	mutex_lock(&t->drain_mutex);
	ptrec_drain_thread(t);
	mutex_unlock(&t->drain_mutex);
}

static void ptrec_probe_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	struct ptrec_thread *t;
	int cpu = smp_processor_id();

	if (!atomic_read(&ptrec_nr_threads))
		return;
	t = this_cpu_read(ptrec_cur);
	if (t && t->task == prev) {
		ptrec_regs_stop(t, prev_state);
		raw_spin_lock(&t->lock);
		ptrec_unload(t);
		raw_spin_unlock(&t->lock);
		ptrec_sb_switch(t, PTREC_SB_SWITCH_OUT,
				preempt || prev_state == TASK_RUNNING ?
				PTREC_SB_F_PREEMPT : 0, cpu);
	}
	t = ptrec_thread_find(next);
	if (t) {
		bool ok;

		raw_spin_lock(&t->lock);
		ok = ptrec_load(t, cpu);
		if (ok)		/* in schedule(): kernel mode */
			ptrec_regs_loaded(t, true);
		raw_spin_unlock(&t->lock);
		if (ok)
			ptrec_sb_cr3(t);
	}
}

/*
 * Start tracing @t, current, now; @tied: in its own context (not an IPI,
 * which may have interrupted user mode).  Context: IRQs off.
 */
static void ptrec_kick(struct ptrec_thread *t, bool tied)
{
	bool ok = false;

	if (current != t->task)
		return;
	raw_spin_lock(&t->lock);
	ok = ptrec_load(t, smp_processor_id());
	if (ok)
		ptrec_regs_loaded(t, tied);
	raw_spin_unlock(&t->lock);
	if (ok)
		ptrec_sb_cr3(t);
}

/* IPI: start tracing @t now if it runs here (attach). */
static void ptrec_kick_fn(void *arg)
{
	ptrec_kick(arg, false);
}

/* IPI: stop tracing @t if it is loaded here (detach). */
static void ptrec_unload_fn(void *arg)
{
	struct ptrec_thread *t = arg;
	bool was = false;

	raw_spin_lock(&t->lock);
	if (t->loaded_cpu == smp_processor_id()) {
		ptrec_unload(t);
		was = true;
	}
	raw_spin_unlock(&t->lock);
	if (was)
		ptrec_sb_switch(t, PTREC_SB_SWITCH_OUT, PTREC_SB_F_PREEMPT,
				smp_processor_id());
}

/*
 * ptrec_thread_attach(), @notify: how the task work that takes its
 * registers is queued (ptrec_regs_arm()).
 */
static int ptrec_thread_attach_notify(struct ptrec_session *s,
				      struct task_struct *task,
				      enum task_work_notify_mode notify)
{
	struct ptrec_thread *t;
	unsigned long flags;
	int cpu;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING))
		return -ESRCH;
	t = ptrec_thread_alloc(s, task);
	if (!t)
		return -ENOMEM;
	/* before it is published: a load from then on sees it queued */
	ptrec_regs_arm(s, task, notify);
	spin_lock_irqsave(&ptrec_threads_lock, flags);
	if (s->detached || (task->flags & PF_EXITING)) {
		spin_unlock_irqrestore(&ptrec_threads_lock, flags);
		ptrec_thread_free(t);
		return -ESRCH;
	}
	rcu_read_lock();
	if (ptrec_thread_find(task)) {
		rcu_read_unlock();
		spin_unlock_irqrestore(&ptrec_threads_lock, flags);
		ptrec_thread_free(t);
		return -EBUSY;
	}
	rcu_read_unlock();
	kref_get(&s->ref);
	s->nr_live++;
	list_add_tail(&t->snode, &s->threads);
	atomic_long_inc(&ptrec_cnt.threads);
	atomic_inc(&ptrec_nr_threads);
	hash_add_rcu(ptrec_threads_hash, &t->hnode, (unsigned long)task);
	spin_unlock_irqrestore(&ptrec_threads_lock, flags);
	atomic64_inc(&s->st_threads);

	ptrec_sb_comm(t, 0);
	/* start now if it is running; otherwise its next switch-in does */
	if (task == current) {
		local_irq_save(flags);
		ptrec_kick(t, true);
		local_irq_restore(flags);
	} else {
		cpu = task_cpu(task);
		if (cpu_online(cpu))
			smp_call_function_single(cpu, ptrec_kick_fn, t, 1);
	}
	return 0;
}

/**
 * ptrec_thread_attach() - start tracing @task in session @s
 * @s:		the session.
 * @task:	a thread of the traced process (or of a followed child).
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, -EBUSY (already traced) or -ESRCH (session over).
 */
int ptrec_thread_attach(struct ptrec_session *s, struct task_struct *task)
{
	return ptrec_thread_attach_notify(s, task, TWA_RESUME);
}

/*
 * The end of a thread's tracing, in process context: make sure no CPU
 * holds its state, drain what is left, unpublish and free it.
 */
static void ptrec_thread_release(struct ptrec_thread *t)
{
	struct ptrec_session *s = t->s;
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&t->lock, flags);
	t->dead = true;
	cpu = t->loaded_cpu;
	raw_spin_unlock_irqrestore(&t->lock, flags);
	/* once dead it is never loaded again: one IPI suffices */
	if (cpu >= 0)
		smp_call_function_single(cpu, ptrec_unload_fn, t, 1);
	for_each_online_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&ptrec_drain, cpu)->iw);
	flush_work(&t->drain_work);

	mutex_lock(&t->drain_mutex);
	ptrec_drain_thread(t);
	mutex_unlock(&t->drain_mutex);
	raw_spin_lock_irqsave(&t->lock, flags);
	ptrec_q_release_lost(s, t);
	raw_spin_unlock_irqrestore(&t->lock, flags);
	ptrec_regs_emit(t);	/* its stream is complete */

	spin_lock_irqsave(&ptrec_threads_lock, flags);
	hash_del_rcu(&t->hnode);
	list_del_init(&t->snode);
	atomic_dec(&ptrec_nr_threads);
	spin_unlock_irqrestore(&ptrec_threads_lock, flags);
	synchronize_rcu();	/* sched_switch probes run RCU-sched */
	for_each_online_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&ptrec_drain, cpu)->iw);
	cancel_work_sync(&t->drain_work);

	ptrec_thread_free(t);
	atomic_long_dec(&ptrec_cnt.threads);
	ptrec_session_thread_gone(s);
	ptrec_session_put(s);
}

static void ptrec_free_work(struct work_struct *w)
{
	ptrec_thread_release(container_of(w, struct ptrec_thread, free_work));
}

/**
 * ptrec_thread_on_exit() - @t (current) is exiting
 * @t:	the thread.
 *
 * Context: sched_process_exit, preemption disabled.  Stops its tracing
 * here and now (the rest of do_exit is not traced) and frees it from a
 * work item.
 */
void ptrec_thread_on_exit(struct ptrec_thread *t)
{
	unsigned long flags;
	bool mine;

	raw_spin_lock_irqsave(&t->lock, flags);
	t->dead = true;
	if (t->loaded_cpu == smp_processor_id())
		ptrec_unload(t);
	raw_spin_unlock_irqrestore(&t->lock, flags);

	spin_lock_irqsave(&ptrec_threads_lock, flags);
	mine = !t->releasing;
	t->releasing = true;
	spin_unlock_irqrestore(&ptrec_threads_lock, flags);
	if (mine) {
		INIT_WORK(&t->free_work, ptrec_free_work);
		queue_work(ptrec_wq, &t->free_work);
	}
}

/**
 * ptrec_thread_set_cr3_match() - trace @t's new address space
 * @t:		the thread, current on this CPU (exec).
 * @cr3:	IA32_RTIT_CR3_MATCH value.
 *
 * SDM Vol. 3C 33.2.7: IA32_RTIT_CR3_MATCH, like every RTIT MSR but
 * IA32_RTIT_CTL, may be written only with TraceEn clear, so a loaded unit
 * is saved, changed and restored.
 * Context: preemption disabled.
 */
void ptrec_thread_set_cr3_match(struct ptrec_thread *t, u64 cr3)
{
	unsigned long flags;
	bool loaded;

	raw_spin_lock_irqsave(&t->lock, flags);
	loaded = t->loaded_cpu == smp_processor_id();
	if (loaded) {
		ptrec_hold_pmi();
		ptrec_save(t);
	}
	t->area->pt.cr3_match = cr3;
	if (loaded) {
		ptrec_restart(t);
		ptrec_allow_pmi();
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * ptrec_thread_last_of_process() - is @t the last traced thread of its
 * process to exit?
 * @t:	an exiting thread, marked exited.
 *
 * A thread released earlier has left the session's list; one still on it
 * that has not written THREAD_EXIT is yet to pass the exit tracepoint.
 * Context: t->s->exit_lock held, which orders the exit records.
 * Return: true if no other thread of t->pid in the session is left.
 */
bool ptrec_thread_last_of_process(struct ptrec_thread *t)
{
	struct ptrec_thread *o;
	unsigned long flags;
	bool last = true;

	spin_lock_irqsave(&ptrec_threads_lock, flags);
	list_for_each_entry(o, &t->s->threads, snode) {
		if (o != t && o->pid == t->pid && !o->exited) {
			last = false;
			break;
		}
	}
	spin_unlock_irqrestore(&ptrec_threads_lock, flags);
	return last;
}

/**
 * ptrec_session_stop_threads() - stop and free every thread of @s
 * @s:	the session; s->detached is already set.
 *
 * Context: process context.
 */
void ptrec_session_stop_threads(struct ptrec_session *s)
{
	struct ptrec_thread *t;
	unsigned long flags;

	for (;;) {
		t = NULL;
		spin_lock_irqsave(&ptrec_threads_lock, flags);
		list_for_each_entry(t, &s->threads, snode)
			if (!t->releasing)
				break;
		if (list_entry_is_head(t, &s->threads, snode))
			t = NULL;
		else
			t->releasing = true;
		spin_unlock_irqrestore(&ptrec_threads_lock, flags);
		if (!t)
			break;
		ptrec_thread_release(t);
	}
	/* threads already exiting are released by their work items */
	flush_workqueue(ptrec_wq);
}

/* ---- following new threads and children --------------------------- */

struct ptrec_pending {
	struct callback_head cb;
	struct ptrec_session *s;
};

static void ptrec_pending_fn(struct callback_head *cb)
{
	struct ptrec_pending *p = container_of(cb, struct ptrec_pending, cb);
	struct ptrec_session *s = p->s;

	/*
	 * Runs in the new task before its first user instruction, inside
	 * task_work_run(), which runs the REGS task work next
	 */
	ptrec_thread_attach_notify(s, current, TWA_NONE);
	ptrec_kfree(p);
	atomic_long_dec(&ptrec_cnt.pending_works);
	atomic_dec(&s->nr_pending);
	ptrec_session_thread_gone(s);
	ptrec_session_put(s);
	module_put(THIS_MODULE);
}

/**
 * ptrec_follow_fork() - arrange for @child to be traced like @pt
 * @pt:		the traced parent thread.
 * @child:	the new task (not yet running).
 *
 * The child's state is allocated in its own context, by task_work before
 * it first returns to user space, where GFP_KERNEL allocations may sleep.
 * Context: sched_process_fork, preemption disabled.
 * Return: 0 or a negative errno.
 */
int ptrec_follow_fork(struct ptrec_thread *pt, struct task_struct *child)
{
	struct ptrec_session *s = pt->s;
	struct ptrec_pending *p;

	if (READ_ONCE(s->detached) || !try_module_get(THIS_MODULE))
		return -ESRCH;
	p = ptrec_kzalloc(sizeof(*p), GFP_ATOMIC);
	if (!p) {
		module_put(THIS_MODULE);
		return -ENOMEM;
	}
	p->s = s;
	kref_get(&s->ref);	/* pt holds one: never the last here */
	atomic_inc(&s->nr_pending);
	atomic_long_inc(&ptrec_cnt.pending_works);
	init_task_work(&p->cb, ptrec_pending_fn);
	if (task_work_add(child, &p->cb, TWA_RESUME)) {
		atomic_long_dec(&ptrec_cnt.pending_works);
		atomic_dec(&s->nr_pending);
		refcount_dec(&s->ref.refcount);
		ptrec_kfree(p);
		module_put(THIS_MODULE);
		return -ESRCH;
	}
	return 0;
}

/* ---- registration --------------------------------------------------- */

static struct tracepoint *ptrec_tp_switch;

static void ptrec_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		ptrec_tp_switch = tp;
}

/**
 * ptrec_thread_init() - hook context switches
 *
 * Return: 0 or a negative errno.
 */
int ptrec_thread_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct ptrec_drain_cpu *d = per_cpu_ptr(&ptrec_drain, cpu);

		init_llist_head(&d->list);
		init_irq_work(&d->iw, ptrec_drain_fn);
	}
	ptrec_wq = alloc_workqueue("ptrec", 0, 0);
	if (!ptrec_wq)
		return -ENOMEM;
	for_each_kernel_tracepoint(ptrec_find_tp, NULL);
	if (!ptrec_tp_switch) {
		pr_err("tracepoint sched_switch not found\n");
		ret = -ENOENT;
		goto err_destroy_wq;
	}
	ret = tracepoint_probe_register(ptrec_tp_switch, ptrec_probe_switch,
					NULL);
	if (ret)
		goto err_destroy_wq;
	return 0;

err_destroy_wq:
	destroy_workqueue(ptrec_wq);
	return ret;
}

/**
 * ptrec_thread_exit() - unhook (no thread is traced any more)
 */
void ptrec_thread_exit(void)
{
	int cpu;

	tracepoint_probe_unregister(ptrec_tp_switch, ptrec_probe_switch, NULL);
	tracepoint_synchronize_unregister();
	destroy_workqueue(ptrec_wq);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&ptrec_drain, cpu)->iw);
}
