// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: /dev/ptrec, sessions, the ioctls, read() and poll() over the
 * session's queue (ptrec_queue.c), module parameters and load/unload.
 * The interface is kmod/uapi/ptrec.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/tsc.h>

#include "ptrec_internal.h"

bool ptrec_sim_mode;
module_param_named(sim, ptrec_sim_mode, bool, 0444);
MODULE_PARM_DESC(sim, "use the simulated PT unit (no hardware needed)");

unsigned int ptrec_sim_rate = 200;
module_param_named(sim_rate, ptrec_sim_rate, uint, 0644);
MODULE_PARM_DESC(sim_rate, "simulated unit: PTW packets per ms of run time when the session sets none");

static unsigned long ptrec_max_buf = 16UL << 20;
module_param_named(max_buf_size, ptrec_max_buf, ulong, 0644);
MODULE_PARM_DESC(max_buf_size, "largest per-thread PT buffer in bytes");

static unsigned long ptrec_queue_size = 8UL << 20;
module_param_named(queue_size, ptrec_queue_size, ulong, 0644);
MODULE_PARM_DESC(queue_size, "bytes of read() queue per session (power of two)");

struct ptrec_counters ptrec_cnt;

/* Read-only "allocs": what is allocated now; all zero when idle. */
static int ptrec_allocs_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "sessions %ld threads %ld pages %ld objects %ld pending %ld foreign_skips %ld\n",
			  atomic_long_read(&ptrec_cnt.sessions),
			  atomic_long_read(&ptrec_cnt.threads),
			  atomic_long_read(&ptrec_cnt.pages),
			  atomic_long_read(&ptrec_cnt.objects),
			  atomic_long_read(&ptrec_cnt.pending_works),
			  atomic_long_read(&ptrec_cnt.foreign_skips));
}

static const struct kernel_param_ops ptrec_allocs_ops = {
	.get = ptrec_allocs_get,
};
module_param_cb(allocs, &ptrec_allocs_ops, NULL, 0444);
MODULE_PARM_DESC(allocs, "allocation counters (read-only), zero when idle");

/* Read-only "hwstats": what went wrong with the unit, since load. */
static int ptrec_hwstats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "msr_faults %ld unit_errors %ld untraced %ld irqsoff_copied %ld foreign_skips %ld qlock_max_copy %ld pend_merged %ld qbusy_reads %ld qcopying_max %ld\n",
			  atomic_long_read(&ptrec_cnt.msr_faults),
			  atomic_long_read(&ptrec_cnt.unit_errors),
			  atomic_long_read(&ptrec_cnt.untraced),
			  atomic_long_read(&ptrec_cnt.irqsoff_copied),
			  atomic_long_read(&ptrec_cnt.foreign_skips),
			  atomic_long_read(&ptrec_cnt.qlock_max_copy),
			  atomic_long_read(&ptrec_cnt.pend_merged),
			  atomic_long_read(&ptrec_cnt.qbusy_reads),
			  atomic_long_read(&ptrec_cnt.qcopying_max));
}

static const struct kernel_param_ops ptrec_hwstats_ops = {
	.get = ptrec_hwstats_get,
};
module_param_cb(hwstats, &ptrec_hwstats_ops, NULL, 0444);
MODULE_PARM_DESC(hwstats, "faulting RDMSR/WRMSR/XSAVES/XRSTORS, unit errors (IA32_RTIT_STATUS.Error), timeslices a thread ran untraced, trace bytes copied with interrupts off, loads skipped for another PT user, the largest copy into a read() queue under its lock, waiting losses that had to merge (0), reads that stopped at a chunk still being copied in, the most chunks copied in at once");

static LIST_HEAD(ptrec_sessions);
static DEFINE_SPINLOCK(ptrec_sessions_lock);

/**
 * ptrec_kzalloc() - kzalloc, counted in ptrec_cnt.objects
 * @size:	bytes.
 * @gfp:	allocation flags.
 *
 * Return: memory or NULL.
 */
void *ptrec_kzalloc(size_t size, gfp_t gfp)
{
	void *p = kzalloc(size, gfp);

	if (p)
		atomic_long_inc(&ptrec_cnt.objects);
	return p;
}

/**
 * ptrec_kfree() - free what ptrec_kzalloc() returned
 * @p:	memory or NULL.
 */
void ptrec_kfree(const void *p)
{
	if (p)
		atomic_long_dec(&ptrec_cnt.objects);
	kfree(p);
}

/* ---- sessions ------------------------------------------------------- */

static void ptrec_session_free(struct kref *ref)
{
	struct ptrec_session *s = container_of(ref, struct ptrec_session, ref);

	if (s->claimed)
		ptrec_hw_release();
	put_pid(s->owner);
	ptrec_q_free(s);
	ptrec_kfree(s);
	atomic_long_dec(&ptrec_cnt.sessions);
}

/**
 * ptrec_session_put() - drop a reference
 * @s:	session.  Context: process context (the last put frees).
 */
void ptrec_session_put(struct ptrec_session *s)
{
	kref_put(&s->ref, ptrec_session_free);
}

/**
 * ptrec_session_thread_gone() - a thread or pending task went away
 * @s:	session.
 *
 * Once nothing is traced or about to be, the session is done: read()
 * returns 0 after the last message and poll() reports POLLHUP.
 */
void ptrec_session_thread_gone(struct ptrec_session *s)
{
	/* a thread is added before its pending count drops */
	if (list_empty_careful(&s->threads) && !atomic_read(&s->nr_pending) &&
	    s->attached) {
		WRITE_ONCE(s->done, true);
		irq_work_queue(&s->wake_iw);
	}
}

/**
 * ptrec_session_of_tgid() - the attached session tracing process @tgid
 * @tgid:	thread group id.
 *
 * Context: RCU read side.
 * Return: the session or NULL.
 */
struct ptrec_session *ptrec_session_of_tgid(pid_t tgid)
{
	struct ptrec_session *s;

	list_for_each_entry_rcu(s, &ptrec_sessions, gnode)
		if (s->pid == tgid && !READ_ONCE(s->detached))
			return s;
	return NULL;
}

static int ptrec_open(struct inode *inode, struct file *file)
{
	struct ptrec_session *s;
	size_t qs = roundup_pow_of_two(max_t(unsigned long, ptrec_queue_size,
					     4 * PTREC_READ_MIN));

	s = ptrec_kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	if (ptrec_q_init(s, qs)) {
		ptrec_kfree(s);
		return -ENOMEM;
	}
	atomic_long_inc(&ptrec_cnt.sessions);
	kref_init(&s->ref);
	mutex_init(&s->lock);
	spin_lock_init(&s->exit_lock);
	INIT_LIST_HEAD(&s->threads);
	INIT_LIST_HEAD(&s->gnode);
	file->private_data = s;
	return 0;
}

/* Stop tracing; the last records say so. */
static void ptrec_session_detach(struct ptrec_session *s)
{
	struct ptrec_sb_process_exit pe = {
		.hdr.type = PTREC_SB_PROCESS_EXIT,
		.kind = PTREC_SB_DETACHED,
	};
	unsigned long flags;
	bool live;

	if (!s->attached || s->detached)
		return;
	spin_lock_irqsave(&ptrec_sessions_lock, flags);
	WRITE_ONCE(s->detached, true);
	list_del_rcu(&s->gnode);
	live = !list_empty(&s->threads);
	spin_unlock_irqrestore(&ptrec_sessions_lock, flags);
	synchronize_rcu();
	ptrec_session_stop_threads(s);
	if (live) {
		pe.pid = s->pid;
		ptrec_q_record(s, &pe, sizeof(pe), NULL, 0);
	}
	WRITE_ONCE(s->done, true);
	irq_work_queue(&s->wake_iw);
}

static int ptrec_release(struct inode *inode, struct file *file)
{
	struct ptrec_session *s = file->private_data;

	mutex_lock(&s->lock);
	ptrec_session_detach(s);
	ptrec_sysregs_put(s);
	mutex_unlock(&s->lock);
	/* pending new tasks hold references; wait is not needed */
	ptrec_session_put(s);
	return 0;
}

/* ---- permission: ptrace-like, from exported helpers ------------------ */

/*
 * ptrace_may_access() is not exported.  This is its PTRACE_MODE_REALCREDS
 * core (kernel/ptrace.c): the same real/effective/saved uids and gids, or
 * CAP_SYS_PTRACE in the target's user namespace; and a dumpable mm, or
 * CAP_SYS_PTRACE in the mm's namespace.  The LSM hook (Yama ptrace_scope,
 * SELinux) is not consulted: documented in docs/kmod.md.
 */
static bool ptrec_may_trace(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->uid, tcred->euid) &&
	      uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) &&
	      gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) &&
	      gid_eq(cred->gid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return false;
	mm = get_task_mm(task);
	if (mm) {
		ok = get_dumpable(mm) == SUID_DUMP_USER ||
		     ns_capable(mm->user_ns, CAP_SYS_PTRACE);
		mmput(mm);
	}
	return ok;
}

/* ---- ioctls --------------------------------------------------------- */

static int ptrec_check_head(void __user *arg, u32 size)
{
	u32 head[2];

	if (copy_from_user(head, arg, sizeof(head)))
		return -EFAULT;
	if (head[0] != size)
		return -EINVAL;
	if (head[1] != PTREC_UAPI_VERSION)
		return -EPROTO;
	return 0;
}

static long ptrec_ioc_info(void __user *arg)
{
	struct ptrec_info i = {
		.size = sizeof(i),
		.version = PTREC_UAPI_VERSION,
	};
	int ret = ptrec_check_head(arg, sizeof(i));

	if (ret)
		return ret;
	i.flags = ptrec_caps.flags;
	i.nr_addr_ranges = ptrec_caps.nr_ranges;
	i.mtc_periods = ptrec_caps.mtc_periods;
	i.cyc_thresholds = ptrec_caps.cyc_thresholds;
	i.psb_periods = ptrec_caps.psb_periods;
	i.xsave_size = ptrec_caps.xsave_size;
	i.cpuid_15_eax = ptrec_caps.cpuid_15_eax;
	i.cpuid_15_ebx = ptrec_caps.cpuid_15_ebx;
	i.family = boot_cpu_data.x86;
	i.model = boot_cpu_data.x86_model;
	i.stepping = boot_cpu_data.x86_stepping;
	i.nom_freq = ptrec_caps.nom_freq;
	i.tsc_khz = tsc_khz;
	return copy_to_user(arg, &i, sizeof(i)) ? -EFAULT : 0;
}

static bool ptrec_is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

static bool ptrec_canonical(u64 a)
{
	return (u64)((s64)(a << 16) >> 16) == a;
}

#define PTREC_CFG_ALL	(PTREC_CFG_USER | PTREC_CFG_KERNEL | \
			 PTREC_CFG_RING | PTREC_CFG_FOLLOW_FORK | \
			 PTREC_CFG_TSC | PTREC_CFG_MTC | PTREC_CFG_CYC | \
			 PTREC_CFG_PTWRITE | PTREC_CFG_NO_RETCOMP | \
			 PTREC_CFG_CR3_FILTER | PTREC_CFG_NO_SYSREGS)

/*
 * Validate @c against the unit (SDM Vol. 3C 33.2.7.2: MTCFreq, CycThresh
 * and PSBFreq must be set in the CPUID.14H.1 bitmaps; RANGECNT ranges) and
 * build IA32_RTIT_CTL.
 */
static int ptrec_config_check(struct ptrec_session *s,
			      const struct ptrec_config *c)
{
	const struct ptrec_caps *k = &ptrec_caps;
	u64 ctl = RTIT_CTL_TOPA | RTIT_CTL_BRANCH_EN;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	if (c->flags & ~PTREC_CFG_ALL)
		return -EINVAL;
	if (!(c->flags & (PTREC_CFG_USER | PTREC_CFG_KERNEL)))
		return -EINVAL;
	if ((int)c->pid <= 0)
		return -EINVAL;
	if (!ptrec_is_pow2(c->buf_size) || c->buf_size < 2 * PAGE_SIZE ||
	    c->buf_size > ptrec_max_buf)
		return -EINVAL;
	if (!ptrec_is_pow2(c->nr_regions) ||
	    c->buf_size / c->nr_regions < PAGE_SIZE ||
	    c->nr_regions + 1 > PAGE_SIZE / 8 ||
	    get_order(c->buf_size / c->nr_regions) >= MAX_ORDER)
		return -EINVAL;
	if (c->nr_regions > 1 && !(k->flags & PTREC_INFO_TOPA_MULTI))
		return -EOPNOTSUPP;
	if (c->psb_period > 15 ||
	    (c->psb_period && !(k->psb_periods & BIT(c->psb_period))))
		return -EINVAL;
	if (c->flags & PTREC_CFG_MTC) {
		if (!(k->flags & PTREC_INFO_MTC))
			return -EOPNOTSUPP;
		if (c->mtc_period > 15 ||
		    !(k->mtc_periods & BIT(c->mtc_period)))
			return -EINVAL;
	} else if (c->mtc_period) {
		return -EINVAL;
	}
	if (c->flags & PTREC_CFG_CYC) {
		if (!(k->flags & PTREC_INFO_PSB_CYC))
			return -EOPNOTSUPP;
		if (c->cyc_threshold > 15 ||
		    (c->cyc_threshold &&
		     !(k->cyc_thresholds & BIT(c->cyc_threshold))))
			return -EINVAL;
	} else if (c->cyc_threshold) {
		return -EINVAL;
	}
	if (c->flags & PTREC_CFG_PTWRITE && !(k->flags & PTREC_INFO_PTWRITE))
		return -EOPNOTSUPP;
	if (c->flags & PTREC_CFG_CR3_FILTER &&
	    !(k->flags & PTREC_INFO_CR3_FILTER))
		return -EOPNOTSUPP;
	/*
	 * #20.5: IA32_RTIT_CR3_MATCH is compared with CR3[63:5], PCID bits
	 * 11:5 included (SDM Vol. 3C 33.2.7.6), and the PCID of an address
	 * space differs from CPU to CPU and changes; with PCID on, no value
	 * matches the process everywhere.
	 */
	if (c->flags & PTREC_CFG_CR3_FILTER && (__read_cr4() & X86_CR4_PCIDE)) {
		pr_info_ratelimited("CR3 filtering refused: with PCID the CR3 of a process differs between CPUs\n");
		return -EOPNOTSUPP;
	}
	if (c->nr_addr_ranges > k->nr_ranges ||
	    c->nr_addr_ranges > PTREC_MAX_ADDR_RANGES)
		return -EINVAL;
	for (i = 0; i < PTREC_MAX_ADDR_RANGES; i++) {
		const struct ptrec_addr_range *r = &c->addr_ranges[i];

		if (r->reserved)
			return -EINVAL;
		if (i >= c->nr_addr_ranges) {
			if (r->start || r->end || r->mode)
				return -EINVAL;
			continue;
		}
		if ((r->mode != 1 && r->mode != 2) || r->start > r->end ||
		    !ptrec_canonical(r->start) || !ptrec_canonical(r->end))
			return -EINVAL;
		ctl |= (u64)r->mode << RTIT_CTL_ADDR_SHIFT(i);
	}
	if (c->sim_rate > 1000000)
		return -EINVAL;

	if (c->flags & PTREC_CFG_USER)
		ctl |= RTIT_CTL_USR;
	if (c->flags & PTREC_CFG_KERNEL)
		ctl |= RTIT_CTL_OS;
	if (c->flags & PTREC_CFG_TSC)
		ctl |= RTIT_CTL_TSC_EN;
	if (c->flags & PTREC_CFG_MTC)
		ctl |= RTIT_CTL_MTC_EN |
		       (u64)c->mtc_period << RTIT_CTL_MTC_SHIFT;
	if (c->flags & PTREC_CFG_CYC)
		ctl |= RTIT_CTL_CYCLEACC |
		       (u64)c->cyc_threshold << RTIT_CTL_CYC_SHIFT;
	if (c->flags & PTREC_CFG_PTWRITE)
		ctl |= RTIT_CTL_PTW_EN;
	if (c->flags & PTREC_CFG_NO_RETCOMP)
		ctl |= RTIT_CTL_DISRETC;
	if (c->flags & PTREC_CFG_CR3_FILTER)
		ctl |= RTIT_CTL_CR3EN;
	ctl |= (u64)c->psb_period << RTIT_CTL_PSB_SHIFT;
	s->rtit_ctl = ctl;
	return 0;
}

static long ptrec_ioc_attach(struct ptrec_session *s, void __user *arg)
{
	struct task_struct *task, *th, **tasks = NULL;
	struct ptrec_config c;
	unsigned int n = 0, max, i;
	unsigned long flags;
	int ret;

	ret = ptrec_check_head(arg, sizeof(c));
	if (ret)
		return ret;
	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (!perfmon_capable())
		return -EPERM;
	if (s->attached)
		return -EBUSY;
	ret = ptrec_config_check(s, &c);
	if (ret)
		return ret;

	task = get_pid_task(find_get_pid(c.pid), PIDTYPE_PID);
	if (!task)
		return -ESRCH;
	if (task->tgid != c.pid || (task->flags & PF_KTHREAD) ||
	    (task->flags & PF_EXITING)) {
		ret = -ESRCH;
		goto out_put_task;
	}
	if (!ptrec_may_trace(task)) {
		ret = -EPERM;
		goto out_put_task;
	}
	if (!s->claimed) {
		ret = ptrec_hw_claim();
		if (ret)
			goto out_put_task;
		s->claimed = true;
	}
	ret = ptrec_hw_check_foreign();
	if (ret)
		goto out_put_task;
	rcu_read_lock();
	if (ptrec_session_of_tgid(c.pid))
		ret = -EBUSY;
	rcu_read_unlock();
	if (ret)
		goto out_put_task;

	s->cfg = c;
	s->pid = c.pid;
	s->attached = true;
	/* the one tracer trusted not to set registers (ptrec_regs.c) */
	s->owner = get_pid(task_tgid(current));
	/* best effort: without it no system call REGS records */
	if (!(c.flags & (PTREC_CFG_NO_SYSREGS | PTREC_CFG_KERNEL)))
		ptrec_sysregs_get(s);
	/* published first: threads created from now on are followed */
	spin_lock_irqsave(&ptrec_sessions_lock, flags);
	list_add_rcu(&s->gnode, &ptrec_sessions);
	spin_unlock_irqrestore(&ptrec_sessions_lock, flags);

	ptrec_sb_time(s);
	ptrec_sb_snapshot_maps(s, task, PTREC_SB_F_SNAPSHOT);

	max = get_nr_threads(task) + 16;
	tasks = kvcalloc(max, sizeof(*tasks), GFP_KERNEL);
	if (!tasks) {
		ret = -ENOMEM;
		goto out_detach;
	}
	rcu_read_lock();
	for_each_thread(task, th) {
		if (n == max)
			break;
		get_task_struct(th);
		tasks[n++] = th;
	}
	rcu_read_unlock();
	ret = 0;
	for (i = 0; i < n; i++) {
		int r = ptrec_thread_attach(s, tasks[i]);

		if (r && r != -EBUSY && r != -ESRCH && !ret)
			ret = r;
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	if (ret)
		goto out_detach;
	ptrec_session_thread_gone(s);	/* all exited already? */
	put_task_struct(task);
	return 0;

out_detach:
	ptrec_session_detach(s);
out_put_task:
	put_task_struct(task);
	return ret;
}

static long ptrec_ioc_stats(struct ptrec_session *s, void __user *arg)
{
	struct ptrec_stats st = {
		.size = sizeof(st),
		.version = PTREC_UAPI_VERSION,
	};
	int ret = ptrec_check_head(arg, sizeof(st));

	if (ret)
		return ret;
	st.threads = atomic64_read(&s->st_threads);
	st.switches = atomic64_read(&s->st_switches);
	st.pmis = atomic64_read(&s->st_pmis);
	st.trace_bytes = atomic64_read(&s->st_trace);
	st.lost_bytes = atomic64_read(&s->st_lost);
	st.sideband_records = atomic64_read(&s->st_records);
	st.lost_records = atomic64_read(&s->st_lost_records);
	st.stopped = atomic_read(&s->st_stopped);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static long ptrec_ioctl(struct file *file, unsigned int cmd,
			unsigned long uarg)
{
	struct ptrec_session *s = file->private_data;
	void __user *arg = (void __user *)uarg;
	long ret;

	/* the size field, not the ioctl number's size, is checked */
	if (_IOC_TYPE(cmd) != PTREC_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(PTREC_IOC_INFO):
		return ptrec_ioc_info(arg);
	case _IOC_NR(PTREC_IOC_STATS):
		return ptrec_ioc_stats(s, arg);
	case _IOC_NR(PTREC_IOC_ATTACH):
		mutex_lock(&s->lock);
		ret = ptrec_ioc_attach(s, arg);
		mutex_unlock(&s->lock);
		return ret;
	case _IOC_NR(PTREC_IOC_DETACH):
		mutex_lock(&s->lock);
		ret = s->attached ? 0 : -EINVAL;
		ptrec_session_detach(s);
		mutex_unlock(&s->lock);
		return ret;
	}
	return -ENOTTY;
}

/* ---- read and poll -------------------------------------------------- */

static ssize_t ptrec_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct ptrec_session *s = file->private_data;
	ssize_t ret;
	u64 n;

	if (count < PTREC_READ_MIN)
		return -EINVAL;
	if (mutex_lock_interruptible(&s->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		n = ptrec_q_ready(s, count);
		if (n)
			break;
		/* the end only once no chunk is still being copied in */
		if (READ_ONCE(s->done) && ptrec_q_empty(s)) {
			ret = 0;
			goto out_unlock;
		}
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out_unlock;
		}
		ret = wait_event_interruptible(s->wq, ptrec_q_readable(s) ||
					       (READ_ONCE(s->done) &&
						ptrec_q_empty(s)));
		if (ret)
			goto out_unlock;
	}
	ret = ptrec_q_copy_to_user(s, buf, n);
out_unlock:
	mutex_unlock(&s->read_lock);
	return ret;
}

static __poll_t ptrec_poll(struct file *file, poll_table *wait)
{
	struct ptrec_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, wait);
	ptrec_q_report_pending(s);
	if (ptrec_q_readable(s))
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (READ_ONCE(s->done) && ptrec_q_empty(s))
		mask |= EPOLLHUP;
	return mask;
}

static const struct file_operations ptrec_fops = {
	.owner		= THIS_MODULE,	/* open files pin the module */
	.open		= ptrec_open,
	.release	= ptrec_release,
	.read		= ptrec_read,
	.poll		= ptrec_poll,
	.unlocked_ioctl	= ptrec_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice ptrec_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= PTREC_NAME,
	.fops	= &ptrec_fops,
	.mode	= 0666,	/* ATTACH checks capabilities and ptrace rights */
};

static int __init ptrec_init(void)
{
	int ret;

	ret = ptrec_hw_probe();
	if (ret)
		return ret;
	ret = ptrec_hw_init();
	if (ret)
		return ret;
	ret = ptrec_thread_init();
	if (ret)
		goto err_hw_exit;
	ret = ptrec_sb_init();
	if (ret)
		goto err_thread_exit;
	ret = ptrec_regs_init();
	if (ret)
		goto err_sb_exit;
	ptrec_sysregs_init();
	ret = misc_register(&ptrec_misc);
	if (ret)
		goto err_regs_exit;
	pr_info("ready: %s unit, %s save path, %u address ranges\n",
		ptrec_hw->name, ptrec_caps.xsaves ? "XSAVES" : "MSR",
		ptrec_caps.nr_ranges);
	return 0;

err_regs_exit:
	ptrec_regs_exit();
err_sb_exit:
	ptrec_sb_exit();
err_thread_exit:
	ptrec_thread_exit();
err_hw_exit:
	ptrec_hw_exit();
	return ret;
}

static void __exit ptrec_exit(void)
{
	misc_deregister(&ptrec_misc);
	ptrec_regs_exit();
	ptrec_sb_exit();
	ptrec_thread_exit();
	ptrec_hw_exit();
	if (atomic_long_read(&ptrec_cnt.objects) ||
	    atomic_long_read(&ptrec_cnt.pages))
		pr_err("leak at unload: %ld objects, %ld pages\n",
		       atomic_long_read(&ptrec_cnt.objects),
		       atomic_long_read(&ptrec_cnt.pages));
}

module_init(ptrec_init);
module_exit(ptrec_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ptrec: per-thread Intel PT with in-kernel sideband");
MODULE_VERSION("0.1");
