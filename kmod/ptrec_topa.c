// SPDX-License-Identifier: GPL-2.0
/*
 * ptrec.ko: what a traced thread owns, made and freed here, apart from
 * its tracing (ptrec_thread.c): the output regions, the ToPA table that
 * points the unit at them (an INT entry each, STOP on the guard's, END
 * back to the table) and the PT save area primed with the session's
 * IA32_RTIT_CTL, CR3 filter and address ranges.
 */
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <asm/io.h>

#include "ptrec_internal.h"

void ptrec_thread_free(struct ptrec_thread *t)
{
	unsigned int i, order = get_order(t->region_size);

	if (t->regions) {
		for (i = 0; i < t->nr_regions; i++) {
			if (!t->regions[i])
				continue;
			__free_pages(t->regions[i], order);
			atomic_long_sub(1 << order, &ptrec_cnt.pages);
		}
		ptrec_kfree(t->regions);
	}
	if (t->topa) {
		free_page((unsigned long)t->topa);
		atomic_long_dec(&ptrec_cnt.pages);
	}
	ptrec_kfree(t->area);
	ptrec_kfree(t->orphan);
	if (t->task)
		put_task_struct(t->task);
	ptrec_kfree(t);
}

struct ptrec_thread *ptrec_thread_alloc(struct ptrec_session *s,
				       struct task_struct *task)
{
	const struct ptrec_config *cfg = &s->cfg;
	struct ptrec_pt_xstate *pt;
	struct ptrec_thread *t;
	unsigned int i, order;

	t = ptrec_kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	raw_spin_lock_init(&t->lock);
	mutex_init(&t->drain_mutex);
	INIT_WORK(&t->drain_work, ptrec_drain_work);
	INIT_LIST_HEAD(&t->snode);
	INIT_LIST_HEAD(&t->pend_node);
	t->loaded_cpu = -1;
	t->s = s;
	t->nr_regions = cfg->nr_regions;
	t->buf_size = cfg->buf_size;
	t->region_size = cfg->buf_size / cfg->nr_regions;
	/*
	 * Two entries at least where the CPU allows more than one, so the
	 * guard leaves the unit half the buffer; single-entry ToPA (#20.6):
	 * one output entry, then END back to the table, as perf's
	 * topa_alloc() does and SDM 33.2.6.2 requires.
	 */
	if (ptrec_caps.flags & PTREC_INFO_TOPA_MULTI)
		t->nr_entries = max(cfg->nr_regions, 2U);
	else
		t->nr_entries = 1;
	t->entry_size = cfg->buf_size / t->nr_entries;
	order = get_order(t->region_size);

	/* power-of-two size: kmalloc aligns it naturally (64 for XSAVES) */
	t->area = ptrec_kzalloc(roundup_pow_of_two(sizeof(*t->area)),
				GFP_KERNEL);
	t->regions = ptrec_kzalloc(t->nr_regions * sizeof(*t->regions),
				   GFP_KERNEL);
	t->orphan = ptrec_kzalloc(sizeof(*t->orphan), GFP_KERNEL);
	t->topa = (u64 *)get_zeroed_page(GFP_KERNEL);
	if (t->topa)
		atomic_long_inc(&ptrec_cnt.pages);
	if (!t->area || !t->regions || !t->orphan || !t->topa)
		goto err_free_thread;
	for (i = 0; i < t->nr_regions; i++) {
		t->regions[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO |
					    __GFP_NOWARN, order);
		if (!t->regions[i])
			goto err_free_thread;
		atomic_long_add(1 << order, &ptrec_cnt.pages);
	}
	/*
	 * SDM Vol. 3C 33.2.6.2: Size = log2(entry / 4K), INT on each entry;
	 * an entry is a region or, with one region and multiple-entry ToPA,
	 * half of it (naturally aligned as the region is).  The guard's STOP
	 * starts on the last entry.
	 */
	order = get_order(t->entry_size);
	for (i = 0; i < t->nr_entries; i++) {
		u64 at = (u64)i * t->entry_size;

		t->topa[i] = (page_to_phys(t->regions[at / t->region_size]) +
			      at % t->region_size) |
			     ((u64)order << TOPA_SIZE_SHIFT) | TOPA_INT;
	}
	t->topa[t->nr_entries] = virt_to_phys(t->topa) | TOPA_END;
	t->stop_idx = t->nr_entries - 1;
	t->topa[t->stop_idx] |= TOPA_STOP;
	t->guard_end = t->buf_size;

	pt = &t->area->pt;
	pt->ctl = s->rtit_ctl | RTIT_CTL_TRACEEN;
	pt->output_base = virt_to_phys(t->topa);
	pt->output_mask = MASK_PTRS(0, 0);
	if (cfg->flags & PTREC_CFG_CR3_FILTER && task->mm)
		pt->cr3_match = ptrec_sb_user_cr3(task->mm) & ~0x1fULL;
	for (i = 0; i < cfg->nr_addr_ranges; i++) {
		u64 *a = i < 2 ? &pt->addr01[2 * i] :
				 &t->area->addr23[2 * (i - 2)];

		a[0] = cfg->addr_ranges[i].start;
		a[1] = cfg->addr_ranges[i].end;
	}

	get_task_struct(task);
	t->task = task;
	t->pid = task_tgid_nr(task);
	t->tid = task_pid_nr(task);
	return t;

err_free_thread:
	ptrec_thread_free(t);
	return NULL;
}
