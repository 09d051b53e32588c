// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: sideband recorded in the kernel, in the record format of
 * sideband/uapi/ptrec_sideband.h.
 *
 * Hooks (docs/kmod.md says why):
 * - tracepoints sched_process_fork/exec/exit and task_rename, found with
 *   for_each_kernel_tracepoint() (their __tracepoint_* symbols are not
 *   exported);
 * - a kprobe on perf_event_mmap(): every new VMA of a process, with its
 *   final start, length, flags and file, which is exactly what perf's
 *   PERF_RECORD_MMAP reports (mmap, brk, special mappings);
 * - kretprobes on __x64_sys_munmap and __x64_sys_mprotect: recorded only
 *   when the call succeeded;
 * - a kprobe on exit_mm_release(): EXIT_FUTEX, the exiting thread's
 *   clear_child_tid and robust list as the kernel is about to use them
 *   (sched_process_exit comes after exit_mm() in Linux 6.1, when both
 *   are gone); optional, the replay infers them without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/tsc.h>

#include "ptrec_internal.h"

/* Path scratch for atomic-context hooks (preemption is disabled there). */
static DEFINE_PER_CPU(char [PATH_MAX], ptrec_pathbuf);

/**
 * ptrec_sb_switch() - SWITCH_IN or SWITCH_OUT of @t on @cpu
 * @t:		thread.
 * @type:	PTREC_SB_SWITCH_IN or PTREC_SB_SWITCH_OUT.
 * @flags:	PTREC_SB_F_PREEMPT for a preempted thread.
 * @cpu:	the CPU.
 */
void ptrec_sb_switch(struct ptrec_thread *t, u16 type, u16 flags, int cpu)
{
	struct ptrec_sb_switch r = {
		.hdr.type = type,
		.hdr.flags = flags,
		.pid = t->pid,
		.tid = t->tid,
		.cpu = cpu,
	};

	ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
}

/**
 * ptrec_sb_user_cr3() - the CR3 threads of @mm run with in user mode
 * @mm:	the address space.
 *
 * #20.5: with page-table isolation (Linux's PTI, on Meltdown-affected
 * CPUs) user mode runs on the user half of the PGD, the page after the
 * kernel's, so its CR3 has bit 12 set (PTI_USER_PGTABLE_BIT in Linux);
 * that is what PIP packets of user code show.  The PCID in bits 11:0 is
 * per CPU and not known here: compare PIP payloads with bits 11:5 masked.
 *
 * Return: the physical address of the page tables user mode runs on.
 */
u64 ptrec_sb_user_cr3(struct mm_struct *mm)
{
	u64 cr3 = __pa(mm->pgd);

	if (boot_cpu_has(X86_FEATURE_PTI))
		cr3 |= BIT_ULL(12);
	return cr3;
}

/**
 * ptrec_sb_cr3() - CR3s of @t's address space, when they changed
 * @t:	thread, current on this CPU.
 *
 * Both (#20.5): the user CR3, which PIP packets of user code show, and
 * the kernel's (the PGD itself), which PIP packets of kernel code show
 * (--kernel); they differ under PTI.
 */
void ptrec_sb_cr3(struct ptrec_thread *t)
{
	struct mm_struct *mm = t->task->mm;
	struct ptrec_sb_cr3 r = {
		.hdr.type = PTREC_SB_CR3,
		.pid = t->pid,
		.tid = t->tid,
	};

	if (!mm)
		return;
	/* the user CR3 of the mm and the kernel's, without PCID bits */
	r.cr3 = ptrec_sb_user_cr3(mm);
	r.kernel_cr3 = __pa(mm->pgd);
	if (r.cr3 == t->last_cr3)
		return;
	t->last_cr3 = r.cr3;
	ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
}

/**
 * ptrec_sb_comm() - the thread's name
 * @t:		thread.
 * @flags:	header flags.
 */
void ptrec_sb_comm(struct ptrec_thread *t, u16 flags)
{
	struct ptrec_sb_comm r = {
		.hdr.type = PTREC_SB_COMM,
		.hdr.flags = flags,
		.pid = t->pid,
		.tid = t->tid,
	};

	__get_task_comm(r.comm, sizeof(r.comm), t->task);
	ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
}

/**
 * ptrec_sb_time() - TSC to ns conversion, as perf_event_mmap_page's
 * @s:	session.
 *
 * ns = time_zero + tsc * time_mult >> time_shift (split as the format
 * says), with time_mult/time_shift from tsc_khz and time_zero chosen so
 * that ns is CLOCK_MONOTONIC.
 */
void ptrec_sb_time(struct ptrec_session *s)
{
	struct ptrec_sb_time r = { .hdr.type = PTREC_SB_TIME };
	u64 tsc, mono, conv, mult = 0;
	unsigned int shift = 32;

	if (!tsc_khz)
		return;
	/* largest shift with mult = (1e6 << shift) / tsc_khz < 2^32 */
	while (shift > 0) {
		mult = div64_u64((u64)NSEC_PER_MSEC << shift, tsc_khz);
		if (mult < (1ULL << 32))
			break;
		shift--;
	}
	local_irq_disable();
	tsc = rdtsc_ordered();
	mono = ktime_get_mono_fast_ns();
	r.realtime_ns = ktime_get_real_fast_ns();
	local_irq_enable();
	conv = (tsc >> shift) * mult +
	       (((tsc & ((1ULL << shift) - 1)) * mult) >> shift);
	r.time_shift = shift;
	r.time_mult = mult;
	r.time_zero = mono - conv;
	r.tsc_hz = (u64)tsc_khz * 1000;
	ptrec_q_record(s, &r, sizeof(r), NULL, 0);
}

static u32 ptrec_vma_prot(const struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_READ ? PROT_READ : 0) |
	       (vma->vm_flags & VM_WRITE ? PROT_WRITE : 0) |
	       (vma->vm_flags & VM_EXEC ? PROT_EXEC : 0);
}

/* One MMAP record; @buf is PATH_MAX bytes of scratch. */
static void ptrec_sb_mmap(struct ptrec_session *s, pid_t pid, pid_t tid,
			  struct vm_area_struct *vma, u16 flags, char *buf)
{
	struct ptrec_sb_mmap r = {
		.hdr.type = PTREC_SB_MMAP,
		.hdr.flags = flags,
		.pid = pid,
		.tid = tid,
		.start = vma->vm_start,
		.len = vma->vm_end - vma->vm_start,
		.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT,
		.prot = ptrec_vma_prot(vma),
	};
	const char *path = NULL;

	r.mflags = vma->vm_flags & VM_SHARED ? MAP_SHARED : MAP_PRIVATE;
	if (vma->vm_file) {
		path = d_path(&vma->vm_file->f_path, buf, PATH_MAX);
		if (IS_ERR(path))
			path = NULL;
	} else {
		r.mflags |= MAP_ANONYMOUS;
		r.pgoff = 0;
		if (vma->vm_mm &&
		    vma->vm_start == (unsigned long)vma->vm_mm->context.vdso)
			path = "[vdso]";
	}
	/* key_len 0: user space fills its image store from the path */
	r.path_len = path ? min_t(size_t, strlen(path), PATH_MAX) : 0;
	ptrec_q_record(s, &r, sizeof(r), path, r.path_len);
}

/**
 * ptrec_sb_snapshot_maps() - MMAP records of @task's executable mappings
 * @s:		session.
 * @task:	a thread of the process.
 * @flags:	PTREC_SB_F_SNAPSHOT at attach, 0 after exec.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int ptrec_sb_snapshot_maps(struct ptrec_session *s, struct task_struct *task,
			   u16 flags)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	char *buf;

	mm = get_task_mm(task);
	if (!mm)
		return 0;
	buf = ptrec_kzalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		mmput(mm);
		return -ENOMEM;
	}
	mmap_read_lock(mm);
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma)
			if (vma->vm_flags & VM_EXEC)
				ptrec_sb_mmap(s, task_tgid_nr(task),
					      task_pid_nr(task), vma, flags,
					      buf);
	}
	mmap_read_unlock(mm);
	mmput(mm);
	ptrec_kfree(buf);
	return 0;
}

/* ---- tracepoints ---------------------------------------------------- */

static void ptrec_probe_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	struct ptrec_sb_thread_start r = { .hdr.type = PTREC_SB_THREAD_START };
	struct ptrec_thread *pt;
	bool thread = child->tgid == parent->tgid;

	if (child->flags & (PF_KTHREAD | PF_IO_WORKER))
		return;
	rcu_read_lock();
	pt = ptrec_thread_find(parent);
	if (!pt || pt->dead ||
	    (!thread && !(pt->s->cfg.flags & PTREC_CFG_FOLLOW_FORK)))
		goto out_unlock;
	r.pid = task_tgid_nr(child);
	r.tid = task_pid_nr(child);
	r.parent_pid = pt->pid;
	r.parent_tid = pt->tid;
	/* the tracepoint has no clone flags: the ones that show */
	if (thread)
		r.clone_flags |= CLONE_THREAD | CLONE_SIGHAND;
	if (child->mm == parent->mm)
		r.clone_flags |= CLONE_VM;
	ptrec_q_record(pt->s, &r, sizeof(r), NULL, 0);
	ptrec_follow_fork(pt, child);
out_unlock:
	rcu_read_unlock();
}

struct ptrec_exec_work {
	struct callback_head cb;
	struct ptrec_session *s;
};

/* After exec, before the new image's first instruction: its mappings. */
static void ptrec_exec_maps_fn(struct callback_head *cb)
{
	struct ptrec_exec_work *w = container_of(cb, struct ptrec_exec_work,
						 cb);

	if (!(current->flags & PF_EXITING))
		ptrec_sb_snapshot_maps(w->s, current, 0);
	ptrec_session_put(w->s);
	ptrec_kfree(w);
	atomic_long_dec(&ptrec_cnt.pending_works);
	module_put(THIS_MODULE);
}

static void ptrec_probe_exec(void *data, struct task_struct *p,
			     pid_t old_pid, struct linux_binprm *bprm)
{
	struct ptrec_sb_exec r = { .hdr.type = PTREC_SB_EXEC };
	struct ptrec_exec_work *w;
	struct ptrec_thread *t;
	const char *path = NULL;

	rcu_read_lock();
	t = ptrec_thread_find(p);
	if (!t || t->dead)
		goto out_unlock;
	t->tid = task_pid_nr(p);	/* a non-leader exec takes the tgid */
	r.pid = t->pid;
	r.tid = t->tid;
	if (bprm->file) {
		path = d_path(&bprm->file->f_path, this_cpu_ptr(ptrec_pathbuf),
			      PATH_MAX);
		if (IS_ERR(path))
			path = NULL;
	}
	r.path_len = path ? strlen(path) : 0;
	ptrec_q_record(t->s, &r, sizeof(r), path, r.path_len);
	ptrec_sb_comm(t, 0);

	/* new address space: new CR3 for the filter and the record */
	if (t->s->cfg.flags & PTREC_CFG_CR3_FILTER && p->mm)
		ptrec_thread_set_cr3_match(t, ptrec_sb_user_cr3(p->mm) &
					   ~0x1fULL);
	ptrec_sb_cr3(t);

	if (!try_module_get(THIS_MODULE))
		goto out_unlock;
	w = ptrec_kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w) {
		module_put(THIS_MODULE);
		goto out_unlock;
	}
	w->s = t->s;
	kref_get(&t->s->ref);
	atomic_long_inc(&ptrec_cnt.pending_works);
	init_task_work(&w->cb, ptrec_exec_maps_fn);
	if (task_work_add(p, &w->cb, TWA_RESUME)) {
		atomic_long_dec(&ptrec_cnt.pending_works);
		refcount_dec(&t->s->ref.refcount);
		ptrec_kfree(w);
		module_put(THIS_MODULE);
	}
out_unlock:
	rcu_read_unlock();
}

/*
 * The exit status wait(2) reports for the process of @p: the group exit
 * code after exit_group() or a fatal signal, else the leader's own.
 */
static void ptrec_exit_status(struct task_struct *p,
			      struct ptrec_sb_process_exit *pe)
{
	int code = p->signal->flags & SIGNAL_GROUP_EXIT ?
		   p->signal->group_exit_code : p->group_leader->exit_code;

	if (code & 0x7f) {
		pe->kind = code & 0x80 ? PTREC_SB_DUMPED : PTREC_SB_KILLED;
		pe->status = code & 0x7f;
	} else {
		pe->kind = PTREC_SB_EXITED;
		pe->status = (code >> 8) & 0xff;
	}
}

/*
 * THREAD_EXIT of @p, and PROCESS_EXIT after the last one.  do_exit()
 * drops signal->live before this tracepoint, so two threads exiting at
 * once may both read 0 here: the process ends with whichever traced
 * thread writes its THREAD_EXIT last, decided under s->exit_lock so the
 * PROCESS_EXIT record follows every THREAD_EXIT of the process.
 */
static void ptrec_probe_exit(void *data, struct task_struct *p)
{
	struct ptrec_sb_thread_exit r = { .hdr.type = PTREC_SB_THREAD_EXIT };
	struct ptrec_sb_process_exit pe = { .hdr.type = PTREC_SB_PROCESS_EXIT };
	struct ptrec_session *s;
	struct ptrec_thread *t;
	unsigned long flags;

	rcu_read_lock();
	t = ptrec_thread_find(p);
	if (!t || t->dead)
		goto out_unlock;
	ptrec_thread_on_exit(t);
	s = t->s;
	r.pid = t->pid;
	r.tid = t->tid;
	r.exit_code = p->exit_code;
	spin_lock_irqsave(&s->exit_lock, flags);
	t->exited = true;
	ptrec_q_record(s, &r, sizeof(r), NULL, 0);
	if (!atomic_read(&p->signal->live) &&
	    ptrec_thread_last_of_process(t)) {
		pe.pid = t->pid;
		ptrec_exit_status(p, &pe);
		ptrec_q_record(s, &pe, sizeof(pe), NULL, 0);
	}
	spin_unlock_irqrestore(&s->exit_lock, flags);
out_unlock:
	rcu_read_unlock();
}

static void ptrec_probe_rename(void *data, struct task_struct *task,
			       const char *comm)
{
	struct ptrec_sb_comm r = { .hdr.type = PTREC_SB_COMM };
	struct ptrec_thread *t;

	rcu_read_lock();
	t = ptrec_thread_find(task);
	if (t && !t->dead) {
		r.pid = t->pid;
		r.tid = t->tid;
		strscpy_pad(r.comm, comm, sizeof(r.comm));
		ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
	}
	rcu_read_unlock();
}

/* ---- kprobes -------------------------------------------------------- */

static int ptrec_kp_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs->di;
	struct ptrec_thread *t;

	/* exec's own mappings are recorded after EXEC, by the walk */
	if (current->in_execve || !vma || vma->vm_mm != current->mm)
		return 0;
	rcu_read_lock();
	t = ptrec_thread_find(current);
	if (t && !t->dead)
		ptrec_sb_mmap(t->s, t->pid, t->tid, vma, 0,
			      this_cpu_ptr(ptrec_pathbuf));
	rcu_read_unlock();
	return 0;
}

static struct kprobe ptrec_kp = {
	.symbol_name	= "perf_event_mmap",
	.pre_handler	= ptrec_kp_mmap,
};

/*
 * exit_mm_release(tsk, mm), tsk == current: before futex_exit_release()
 * walks the robust list and mm_release() writes 0 to clear_child_tid, the
 * two as the kernel holds them, and the words they point at
 * (docs/bundle-format.md 6.15).  A compat (i386) list leaves the robust
 * list unknown.  User memory is read without faulting (preemption is off
 * here): a word not present is left unknown.
 */
static int ptrec_kp_exit_mm(struct kprobe *kp, struct pt_regs *regs)
{
	struct ptrec_sb_exit_futex r = { .hdr.type = PTREC_SB_EXIT_FUTEX };
	struct task_struct *p = current;
	struct ptrec_thread *t;
	u64 head[3];
	u32 v;

	if ((void *)regs->di != p)
		return 0;
	rcu_read_lock();
	t = ptrec_thread_find(p);
	if (!t || t->dead)
		goto out_unlock;
	r.pid = t->pid;
	r.tid = t->tid;
	r.known = PTREC_SB_FUTEX_CTID;
	r.clear_child_tid = (unsigned long)p->clear_child_tid;
	if (r.clear_child_tid &&
	    !copy_from_user_nofault(&v, p->clear_child_tid, sizeof(v))) {
		r.known |= PTREC_SB_FUTEX_CTID_VAL;
		r.ctid_val = v;
	}
#ifdef CONFIG_COMPAT
	if (p->compat_robust_list)
		goto out_record;
#endif
	r.known |= PTREC_SB_FUTEX_ROBUST;
	r.robust_list = (unsigned long)p->robust_list;
	if (r.robust_list) {
		r.robust_len = PTREC_SB_ROBUST_HEAD_LEN;
		if (!copy_from_user_nofault(head, p->robust_list,
					    sizeof(head))) {
			r.known |= PTREC_SB_FUTEX_HEAD;
			r.robust_next = head[0];
			r.futex_offset = (s64)head[1];
			r.list_op_pending = head[2];
		}
	}
#ifdef CONFIG_COMPAT
out_record:
#endif
	ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
out_unlock:
	rcu_read_unlock();
	return 0;
}

static struct kprobe ptrec_kp_exit = {
	.symbol_name	= "exit_mm_release",
	.pre_handler	= ptrec_kp_exit_mm,
};

static bool ptrec_kp_exit_on;

struct ptrec_sys_args {
	u64 start, len, prot;
};

/* __x64_sys_*(const struct pt_regs *regs): the user's arguments */
static int ptrec_krp_entry(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct ptrec_sys_args *a = (void *)ri->data;
	const struct pt_regs *u = (const void *)regs->di;
	bool traced;

	rcu_read_lock();
	traced = ptrec_thread_find(current);
	rcu_read_unlock();
	if (!traced)
		return 1;	/* no return handler */
	a->start = u->di;
	a->len = u->si;
	a->prot = u->dx;
	return 0;
}

static int ptrec_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs,
			 bool mprotect)
{
	struct ptrec_sys_args *a = (void *)ri->data;
	struct ptrec_thread *t;

	if (regs_return_value(regs))
		return 0;
	rcu_read_lock();
	t = ptrec_thread_find(current);
	if (t && !t->dead) {
		if (mprotect) {
			struct ptrec_sb_mprotect r = {
				.hdr.type = PTREC_SB_MPROTECT,
				.pid = t->pid, .tid = t->tid,
				.start = a->start, .len = PAGE_ALIGN(a->len),
				.prot = a->prot,
			};

			ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
		} else {
			struct ptrec_sb_munmap r = {
				.hdr.type = PTREC_SB_MUNMAP,
				.pid = t->pid, .tid = t->tid,
				.start = a->start, .len = PAGE_ALIGN(a->len),
			};

			ptrec_q_record(t->s, &r, sizeof(r), NULL, 0);
		}
	}
	rcu_read_unlock();
	return 0;
}

static int ptrec_krp_munmap_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	return ptrec_krp_ret(ri, regs, false);
}

static int ptrec_krp_mprotect_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	return ptrec_krp_ret(ri, regs, true);
}

static struct kretprobe ptrec_krp_munmap = {
	.kp.symbol_name	= "__x64_sys_munmap",
	.entry_handler	= ptrec_krp_entry,
	.handler	= ptrec_krp_munmap_ret,
	.data_size	= sizeof(struct ptrec_sys_args),
	.maxactive	= 64,
};

static struct kretprobe ptrec_krp_mprotect = {
	.kp.symbol_name	= "__x64_sys_mprotect",
	.entry_handler	= ptrec_krp_entry,
	.handler	= ptrec_krp_mprotect_ret,
	.data_size	= sizeof(struct ptrec_sys_args),
	.maxactive	= 64,
};

/* ---- registration --------------------------------------------------- */

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} ptrec_tps[] = {
	{ "sched_process_fork", ptrec_probe_fork },
	{ "sched_process_exec", ptrec_probe_exec },
	{ "sched_process_exit", ptrec_probe_exit },
	{ "task_rename", ptrec_probe_rename },
};

static void ptrec_find_tps(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ptrec_tps); i++)
		if (!strcmp(tp->name, ptrec_tps[i].name))
			ptrec_tps[i].tp = tp;
}

static void ptrec_sb_unregister_tps(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(ptrec_tps[n].tp,
					    ptrec_tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/**
 * ptrec_sb_init() - register the sideband hooks
 *
 * Return: 0 or a negative errno.
 */
int ptrec_sb_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(ptrec_find_tps, NULL);
	for (i = 0; i < ARRAY_SIZE(ptrec_tps); i++) {
		if (!ptrec_tps[i].tp) {
			pr_err("tracepoint %s not found\n", ptrec_tps[i].name);
			ret = -ENOENT;
			goto err_unregister_tps;
		}
		ret = tracepoint_probe_register(ptrec_tps[i].tp,
						ptrec_tps[i].probe, NULL);
		if (ret)
			goto err_unregister_tps;
	}
	ret = register_kprobe(&ptrec_kp);
	if (ret) {
		pr_err("kprobe on %s: %d\n", ptrec_kp.symbol_name, ret);
		goto err_unregister_tps;
	}
	ret = register_kretprobe(&ptrec_krp_munmap);
	if (ret) {
		pr_err("kretprobe on %s: %d\n",
		       ptrec_krp_munmap.kp.symbol_name, ret);
		goto err_unregister_kprobe;
	}
	ret = register_kretprobe(&ptrec_krp_mprotect);
	if (ret) {
		pr_err("kretprobe on %s: %d\n",
		       ptrec_krp_mprotect.kp.symbol_name, ret);
		goto err_unregister_munmap;
	}
	ptrec_kp_exit_on = !register_kprobe(&ptrec_kp_exit);
	if (!ptrec_kp_exit_on)
		pr_info("no kprobe on %s: no EXIT_FUTEX records\n",
			ptrec_kp_exit.symbol_name);
	return 0;

err_unregister_munmap:
	unregister_kretprobe(&ptrec_krp_munmap);
err_unregister_kprobe:
	unregister_kprobe(&ptrec_kp);
err_unregister_tps:
	ptrec_sb_unregister_tps(i);
	return ret;
}

/**
 * ptrec_sb_exit() - unregister the sideband hooks
 */
void ptrec_sb_exit(void)
{
	if (ptrec_kp_exit_on)
		unregister_kprobe(&ptrec_kp_exit);
	unregister_kretprobe(&ptrec_krp_mprotect);
	unregister_kretprobe(&ptrec_krp_munmap);
	unregister_kprobe(&ptrec_kp);
	ptrec_sb_unregister_tps(ARRAY_SIZE(ptrec_tps));
}
