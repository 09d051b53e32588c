/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptrec.ko internals: the PT unit behind an ops table (real MSRs/XSAVES or
 * the simulated model), per-thread trace state, sessions, the read() queue
 * and sideband.  What the hardware defines (register bits, ToPA, the XSAVE
 * layout) is in ptrec_pt.h; this header holds only the module's own state.
 */
#ifndef PTREC_INTERNAL_H
#define PTREC_INTERNAL_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/types.h>
#include <asm/ptrace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/msr-index.h>

#include "ptrec.h"
#include "ptrec_pt.h"
#include "ptrec_sideband.h"

#define PTREC_NAME "ptrec"

struct ptrec_save_area;

/* The registers of struct ptrec_hw_ops.cpuid's result. */
enum ptrec_cpuid_reg { PTREC_EAX, PTREC_EBX, PTREC_ECX, PTREC_EDX };

/* Room for component 8: 128 bytes on the parts that have it. */
#define PTREC_XSTATE_PT_MAX	256

/**
 * struct ptrec_save_area - a traced thread's PT save area
 * @legacy:	XSAVE legacy region (unused by component 8, zero).
 * @xstate_bv:	XSAVE header: XSTATE_BV.
 * @xcomp_bv:	XCOMP_BV (bit 63: compacted format, bit 8: PT).
 * @hdr_rsvd:	rest of the XSAVE header.
 * @pt:		component 8, first (and only) compacted component, so at
 *		offset 576 (SDM Vol. 1 13.4.3); the MSR path uses the same
 *		layout.
 * @comp:	the whole component: XSAVES writes CPUID.(0DH,8):EAX bytes
 *		here, zeros past @pt (13.5.6), so nothing else may live in it.
 * @addr23:	IA32_RTIT_ADDR2_A/B, ADDR3_A/B, which component 8 does not
 *		hold: outside it.
 *
 * 64-byte aligned as XSAVES requires (SDM Vol. 1 13.11).
 */
struct ptrec_save_area {
	u8 legacy[XSAVE_LEGACY_BYTES];
	u64 xstate_bv;
	u64 xcomp_bv;
	u64 hdr_rsvd[6];
	union {
		struct ptrec_pt_xstate pt;
		u8 comp[PTREC_XSTATE_PT_MAX];
	};
	u64 addr23[4];
} __aligned(64);

/**
 * struct ptrec_hw_ops - the instructions that reach the PT unit of the
 * current CPU: the real ones, or the simulated unit's model of them
 * @name:	"intel_pt" or "simulated".
 * @cpuid:	CPUID leaf @leaf, sub-leaf @sub into EAX..EDX.
 * @read_msr:	RDMSR; -EIO where the SDM says #GP.
 * @write_msr:	WRMSR; -EIO where the SDM says #GP.
 * @xsaves:	XSAVES of XSAVE state component 8 only (RFBM = 0x100) in the
 *		compacted format; -EIO on a fault.
 * @xrstors:	XRSTORS of component 8 only; -EIO on a fault.
 * @pmi_pending: IA32_PERF_GLOBAL_STATUS[55] is set.
 * @pmi_ack:	clear it (IA32_PERF_GLOBAL_OVF_CTRL[55]).
 * @pmi_unmask:	clear the LVT performance counter entry's mask bit, which
 *		the APIC set when it delivered the PMI.
 * @in_vmx:	this CPU is in VMX operation (CR4.VMXE: KVM did VMXON).
 */
struct ptrec_hw_ops {
	const char *name;
	void (*cpuid)(u32 leaf, u32 sub, u32 regs[4]);
	int (*read_msr)(u32 msr, u64 *val);
	int (*write_msr)(u32 msr, u64 val);
	int (*xsaves)(struct ptrec_save_area *a);
	int (*xrstors)(struct ptrec_save_area *a);
	bool (*pmi_pending)(void);
	void (*pmi_ack)(void);
	void (*pmi_unmask)(void);
	bool (*in_vmx)(void);
};

/**
 * struct ptrec_caps - what the probe found (SDM Vol. 3C 33.3.1)
 * @flags:	enum ptrec_info_flag.
 * @nr_ranges:	IP filter ranges.
 * @mtc_periods: bitmap of MTC periods.
 * @cyc_thresholds: bitmap of CYC thresholds.
 * @psb_periods: bitmap of PSB periods.
 * @xsave_size:	size of the PT state (XSAVE component 8 or the MSR area).
 * @cpuid_15_eax: CPUID.15H:EAX.
 * @cpuid_15_ebx: CPUID.15H:EBX.
 * @nom_freq:	maximum non-turbo ratio, or 0.
 * @xsaves:	XSAVES manages component 8.
 */
struct ptrec_caps {
	u32 flags;
	u32 nr_ranges;
	u32 mtc_periods;
	u32 cyc_thresholds;
	u32 psb_periods;
	u32 xsave_size;
	u32 cpuid_15_eax;
	u32 cpuid_15_ebx;
	u32 nom_freq;
	bool xsaves;
};

extern const struct ptrec_hw_ops *ptrec_hw;
extern struct ptrec_caps ptrec_caps;
extern bool ptrec_sim_mode;
extern unsigned int ptrec_sim_rate;

int ptrec_hw_probe(void);
int ptrec_hw_init(void);
void ptrec_hw_exit(void);
int ptrec_hw_check_foreign(void);
bool ptrec_hw_pmi(void);
bool ptrec_hw_unit_claimed(int cpu);
int ptrec_hw_claim(void);
void ptrec_hw_release(void);
bool ptrec_hw_shut(void);
int ptrec_hw_save(struct ptrec_save_area *a);
int ptrec_hw_restore(struct ptrec_save_area *a);
u64 ptrec_hw_rdmsr(u32 msr);

extern const struct ptrec_hw_ops ptrec_sim_ops;
int ptrec_sim_init(void);
void ptrec_sim_exit(void);
void ptrec_sim_cpu_online(void);

/*
 * Allocation counters, exported read-only so tests see them return to 0
 * (parameter allocs); and what the unit did that it should not have
 * (parameter hwstats).
 */
struct ptrec_counters {
	atomic_long_t sessions;
	atomic_long_t threads;
	atomic_long_t pages;
	atomic_long_t objects;
	atomic_long_t pending_works;
	atomic_long_t foreign_skips;
	atomic_long_t msr_faults;
	atomic_long_t unit_errors;
	atomic_long_t untraced;
	atomic_long_t irqsoff_copied;
	atomic_long_t qlock_max_copy;
	atomic_long_t pend_merged;
	atomic_long_t qbusy_reads;
	atomic_long_t qcopying;
	atomic_long_t qcopying_max;
};
extern struct ptrec_counters ptrec_cnt;

#define PTREC_PEND_MAX	8

/**
 * struct ptrec_pend_loss - a loss waiting for room in the queue
 * @bytes:	lost bytes (0: unknown, PTREC_SB_LOST_UNTRACED).
 * @offset:	stream offset.
 * @reason:	enum ptrec_sb_lost_reason.
 */
struct ptrec_pend_loss {
	u64 bytes;
	u64 offset;
	u32 reason;
};

/**
 * struct ptrec_lost_orphan - the losses of a thread gone before their
 * records found room
 * @node:	on ptrec_session.lost_orphans.
 * @tid:	the thread.
 * @npend:	how many of @pend are left, from @first.
 * @first:	the next one to report.
 * @pend:	the losses, in order, each as it was.
 *
 * Allocated with the thread, so handing its pending losses to the
 * session at release cannot fail.
 */
struct ptrec_lost_orphan {
	struct list_head node;
	u32 tid;
	unsigned int npend, first;
	struct ptrec_pend_loss pend[PTREC_PEND_MAX];
};

/**
 * struct ptrec_session - one open /dev/ptrec
 * @ref:	references: the file, each thread, each pending task.
 * @lock:	serialises attach, detach and release.
 * @exit_lock:	orders THREAD_EXIT and PROCESS_EXIT records.
 * @cfg:	the configuration ATTACH was given.
 * @rtit_ctl:	IA32_RTIT_CTL of every thread, without TraceEn.
 * @pid:	the traced process.
 * @attached:	ATTACH succeeded.
 * @claimed:	it holds the PT unit (ptrec_hw_claim()).
 * @detached:	no new threads are traced.
 * @done:	the process is gone or detached: read() ends after the queue.
 * @threads:	traced threads, under ptrec_threads_lock.
 * @nr_live:	threads not yet released.
 * @nr_pending:	new tasks not yet attached.
 * @gnode:	on ptrec_sessions.
 * @q_lock:	protects the message queue (a byte ring of whole messages).
 * @q_buf:	the queue.
 * @q_size:	its size, a power of two.
 * @q_head:	bytes ever written.
 * @q_tail:	bytes ever read.
 * @lost_records: bytes of sideband records dropped, not yet reported.
 * @lost_orphans: LOST records of freed threads waiting for room.
 * @pend_threads: threads whose LOST records wait for room.
 * @read_lock:	one reader at a time.
 * @wq:		readers and pollers.
 * @wake_iw:	wakes them from any context.
 * @st_threads:	struct ptrec_stats.threads (PTREC_IOC_STATS).
 * @st_switches: .switches.
 * @st_pmis:	.pmis.
 * @st_trace:	.trace_bytes.
 * @st_lost:	.lost_bytes.
 * @st_records:	.sideband_records.
 * @st_lost_records: .lost_records.
 * @st_stopped:	.stopped.
 * @owner:	the thread group that attached it: the one tracer whose
 *		threads get system call REGS records (ptrec_sysregs.c).
 * @sysregs:	it holds the sys_exit probe: system call REGS records.
 */
struct ptrec_session {
	struct kref ref;
	struct mutex lock;
	spinlock_t exit_lock;
	struct ptrec_config cfg;
	u64 rtit_ctl;
	pid_t pid;
	bool attached;
	bool claimed;
	bool detached;
	bool done;
	struct list_head threads;
	unsigned int nr_live;
	atomic_t nr_pending;
	struct list_head gnode;

	spinlock_t q_lock;
	u8 *q_buf;
	size_t q_size;
	u64 q_head, q_tail;
	u64 lost_records;
	struct list_head lost_orphans;
	struct list_head pend_threads;
	struct mutex read_lock;
	wait_queue_head_t wq;
	struct irq_work wake_iw;

	atomic64_t st_threads, st_switches, st_pmis, st_trace, st_lost,
		st_records, st_lost_records;
	atomic_t st_stopped;
	struct pid *owner;
	bool sysregs;
};

/**
 * struct ptrec_thread - a traced thread's PT buffers and state
 * @hnode:	on ptrec_threads_hash, by task.
 * @snode:	on session->threads.
 * @task:	the thread (a reference is held).
 * @s:		its session (a reference is held).
 * @pid:	its process.
 * @tid:	its thread id (changes when a non-leader execs).
 * @lock:	protects the hardware state and positions below.
 * @loaded_cpu:	CPU whose PT unit holds its state, or -1.
 * @dead:	never load it again.
 * @stopped:	stop-on-full reached.
 * @releasing:	release started (ptrec_threads_lock).
 * @exited:	THREAD_EXIT written (session->exit_lock).
 * @drain_pending: bit 0: on a CPU's drain list.
 * @drain_node:	on that list.
 * @last_cr3:	the last CR3 record written.
 * @area:	PT save area.
 * @topa:	the ToPA table, one page.
 * @regions:	the output buffer's allocations.
 * @nr_regions:	their number.
 * @region_size: their size.
 * @nr_entries:	ToPA output entries: the regions, at least two.
 * @entry_size:	their size.
 * @buf_size:	the output buffer's size.
 * @stop_idx:	the entry carrying STOP: the guard before the oldest
 *		undrained byte.
 * @guard_end:	stream offset where the unit stops at that guard.
 * @untraced:	a PTREC_SB_LOST_UNTRACED record marks the hole it is in.
 * @drain_work:	copies its trace to the queue, in process context.
 * @drain_mutex: one drain at a time (the work item, release).
 * @last_pos:	ring position at the last reading of the unit.
 * @produced:	stream bytes the unit wrote.
 * @drained:	stream bytes delivered or reported lost.
 * @pend:	losses whose LOST record found no room yet, in order.
 * @npend:	their number; while not 0 the thread is not traced.
 * @pend_node:	on session->pend_threads while @npend is not 0.
 * @orphan:	carries a pending loss to the session at release.
 * @sim_seq:	the simulated program's PTW counter.
 * @sim_carry_ns: simulated run time not yet turned into packets.
 * @free_work:	releases the thread after it exited.
 * @nr_losses:	LOST records of its stream (session->q_lock).
 * @start:	enum ptrec_start: its REGS start record (ptrec_regs.c).
 * @start_forced_tf: TIF_FORCED_TF when they were taken.
 * @start_regs:	its user registers at its first traced instruction.
 * @start_fsbase: its FS base there.
 * @start_tid:	its tid there.
 * @sys_rip:	rip of its last system call REGS record, or 0.
 */
struct ptrec_thread {
	struct hlist_node hnode;
	struct list_head snode;
	struct task_struct *task;
	struct ptrec_session *s;
	pid_t pid, tid;

	raw_spinlock_t lock;
	int loaded_cpu;
	bool dead;
	bool stopped;
	bool releasing;
	bool exited;
	unsigned long drain_pending;
	struct llist_node drain_node;
	u64 last_cr3;
	struct ptrec_save_area *area;
	u64 *topa;
	struct page **regions;
	unsigned int nr_regions;
	u32 region_size;
	unsigned int nr_entries;
	u32 entry_size;
	u64 buf_size;
	unsigned int stop_idx;
	u64 guard_end;
	bool untraced;
	struct work_struct drain_work;
	struct mutex drain_mutex;
	u64 last_pos;
	u64 produced;
	u64 drained;
	struct ptrec_pend_loss pend[PTREC_PEND_MAX];
	unsigned int npend;
	struct list_head pend_node;
	struct ptrec_lost_orphan *orphan;
	u32 sim_seq;
	u64 sim_carry_ns;
	struct work_struct free_work;
	unsigned int nr_losses;
	u8 start;
	bool start_forced_tf;
	struct pt_regs start_regs;
	u64 start_fsbase;
	pid_t start_tid;
	unsigned long sys_rip;
};

/* Where a thread's REGS start record stands (under its lock). */
enum ptrec_start {
	PTREC_START_NONE,	/* never loaded */
	PTREC_START_TIED,	/* first loaded in kernel mode, own context */
	PTREC_START_TAKEN,	/* registers taken on the return after it */
	PTREC_START_PROVEN,	/* and seen to reach user mode unchanged */
	PTREC_START_DROPPED,	/* none: the point is not known */
};

/* ptrec_thread.c */
DECLARE_PER_CPU(struct ptrec_thread *, ptrec_cur);
DECLARE_PER_CPU(bool, ptrec_armed);
int ptrec_thread_init(void);
void ptrec_thread_exit(void);
struct ptrec_thread *ptrec_thread_find(struct task_struct *task);
int ptrec_thread_attach(struct ptrec_session *s, struct task_struct *task);
void ptrec_thread_stop(struct ptrec_thread *t);
void ptrec_session_stop_threads(struct ptrec_session *s);
void ptrec_pmi_raise(void);
void ptrec_thread_on_exit(struct ptrec_thread *t);
void ptrec_thread_set_cr3_match(struct ptrec_thread *t, u64 cr3);
bool ptrec_thread_last_of_process(struct ptrec_thread *t);
int ptrec_follow_fork(struct ptrec_thread *pt, struct task_struct *child);
void ptrec_thread_kick(struct ptrec_thread *t);
/* ptrec_topa.c: a thread's regions, ToPA table, save area (NULL: ENOMEM) */
struct ptrec_thread *ptrec_thread_alloc(struct ptrec_session *s,
				       struct task_struct *task);
void ptrec_thread_free(struct ptrec_thread *t);
/* ptrec_thread.c: the work item that drains a thread's output */
void ptrec_drain_work(struct work_struct *w);

/* ptrec_queue.c */
int ptrec_q_init(struct ptrec_session *s, size_t size);
void ptrec_q_free(struct ptrec_session *s);
bool ptrec_q_empty(struct ptrec_session *s);
bool ptrec_q_readable(struct ptrec_session *s);
void ptrec_q_report_pending(struct ptrec_session *s);
u64 ptrec_q_ready(struct ptrec_session *s, size_t count);
ssize_t ptrec_q_copy_to_user(struct ptrec_session *s, char __user *buf,
			     u64 n);
void ptrec_q_wake_fn(struct irq_work *iw);
int ptrec_q_record(struct ptrec_session *s, void *rec, u32 rec_len,
		   const void *tail, u32 tail_len);
int ptrec_q_record_spare(struct ptrec_session *s, void *rec, u32 rec_len);
int ptrec_q_trace(struct ptrec_session *s, struct ptrec_thread *t,
		  const void *data, u32 len, u64 offset);
void ptrec_q_lost(struct ptrec_session *s, struct ptrec_thread *t,
		  u32 reason, u64 bytes, u64 offset);
void ptrec_q_release_lost(struct ptrec_session *s, struct ptrec_thread *t);
bool ptrec_q_flush_thread(struct ptrec_session *s, struct ptrec_thread *t);
u64 ptrec_now(void);

/* ptrec_main.c */
struct ptrec_session *ptrec_session_of_tgid(pid_t tgid);
void ptrec_session_put(struct ptrec_session *s);
void ptrec_session_thread_gone(struct ptrec_session *s);

/* ptrec_regs.c */
int ptrec_regs_init(void);
void ptrec_regs_exit(void);
void ptrec_regs_arm(struct ptrec_session *s, struct task_struct *task,
		    enum task_work_notify_mode notify);
void ptrec_regs_loaded(struct ptrec_thread *t, bool tied);
void ptrec_regs_stop(struct ptrec_thread *t, unsigned int state);
void ptrec_regs_emit(struct ptrec_thread *t);

/* ptrec_sysregs.c */
void ptrec_sysregs_init(void);
bool ptrec_traced_by_owner(struct ptrec_thread *t);
int ptrec_sysregs_get(struct ptrec_session *s);
void ptrec_sysregs_put(struct ptrec_session *s);
void ptrec_sysregs_deliver(struct ptrec_thread *t, int sig,
			   struct kernel_siginfo *info, struct k_sigaction *ka);

/* ptrec_sb.c */
int ptrec_sb_init(void);
void ptrec_sb_exit(void);
void ptrec_sb_switch(struct ptrec_thread *t, u16 type, u16 flags, int cpu);
void ptrec_sb_cr3(struct ptrec_thread *t);
void ptrec_sb_comm(struct ptrec_thread *t, u16 flags);
void ptrec_sb_time(struct ptrec_session *s);
u64 ptrec_sb_user_cr3(struct mm_struct *mm);
int ptrec_sb_snapshot_maps(struct ptrec_session *s, struct task_struct *task,
			   u16 flags);

void *ptrec_kzalloc(size_t size, gfp_t gfp);
void ptrec_kfree(const void *p);

#endif /* PTREC_INTERNAL_H */
