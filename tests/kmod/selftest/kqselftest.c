// SPDX-License-Identifier: GPL-2.0
/*
 * The kmod test harness's own module: it loads only with sim=1 and
 * otherwise fails with -ENODEV and one log line, as ptrec.ko does without
 * PT, so the harness's load, unload and kernel-log checks are exercised
 * even where the real module is not built.
 *
 * exit_stall=COMM makes a race certain that is otherwise a matter of
 * timing: do_exit() drops signal->live before the sched_process_exit
 * tracepoint, so two threads exiting at once may both read 0 there.  A
 * probe on that tracepoint, ahead of ptrec.ko's (higher priority), holds
 * every exiting thread named COMM until signal->live is 0 (at most
 * 200 ms), so all threads of such a process read 0.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static bool sim;
module_param(sim, bool, 0444);
MODULE_PARM_DESC(sim, "pretend a unit exists");

static char *exit_stall;
module_param(exit_stall, charp, 0444);
MODULE_PARM_DESC(exit_stall, "hold exiting threads of this name until their process's signal->live is 0");

static void *kqselftest_buf;
static struct tracepoint *kqselftest_tp_exit;

static void kqselftest_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		kqselftest_tp_exit = tp;
}

/* Preemption is disabled here, IRQs are on: the other CPU runs the rest. */
static void kqselftest_probe_exit(void *data, struct task_struct *p)
{
	u64 end = ktime_get_ns() + 200 * NSEC_PER_MSEC;

	if (strcmp(p->comm, exit_stall))
		return;
	while (atomic_read(&p->signal->live) && ktime_get_ns() < end)
		udelay(10);
}

static int __init kqselftest_init(void)
{
	int ret;

	if (!sim) {
		pr_err("kqselftest: no unit (load with sim=1)\n");
		return -ENODEV;
	}
	kqselftest_buf = kzalloc(4096, GFP_KERNEL);
	if (!kqselftest_buf)
		return -ENOMEM;
	if (exit_stall && *exit_stall) {
		for_each_kernel_tracepoint(kqselftest_find_tp, NULL);
		ret = kqselftest_tp_exit ? 0 : -ENOENT;
		if (!ret)
			ret = tracepoint_probe_register_prio(kqselftest_tp_exit,
					kqselftest_probe_exit, NULL,
					TRACEPOINT_DEFAULT_PRIO + 10);
		if (ret) {
			pr_err("kqselftest: sched_process_exit probe: %d\n",
			       ret);
			kfree(kqselftest_buf);
			return ret;
		}
		pr_info("kqselftest: holding exiting '%s' threads until their process's last thread exits\n",
			exit_stall);
		return 0;
	}
	exit_stall = NULL;
	pr_info("kqselftest: loaded\n");
	return 0;
}

static void __exit kqselftest_exit(void)
{
	if (exit_stall) {
		tracepoint_probe_unregister(kqselftest_tp_exit,
					    kqselftest_probe_exit, NULL);
		tracepoint_synchronize_unregister();
	}
	kfree(kqselftest_buf);
	pr_info("kqselftest: unloaded\n");
}

module_init(kqselftest_init);
module_exit(kqselftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ptrec kmod test harness self-test");
