// SPDX-License-Identifier: GPL-2.0
/*
 * The kmod test harness's own module: it loads only with sim=1 and
 * otherwise fails with -ENODEV and one log line, as ptrec.ko does without
 * PT, so the harness's load, unload and kernel-log checks are exercised
 * even where the real module is not built.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

static bool sim;
module_param(sim, bool, 0444);
MODULE_PARM_DESC(sim, "pretend a unit exists");

static void *kqselftest_buf;

static int __init kqselftest_init(void)
{
	if (!sim) {
		pr_err("kqselftest: no unit (load with sim=1)\n");
		return -ENODEV;
	}
	kqselftest_buf = kzalloc(4096, GFP_KERNEL);
	if (!kqselftest_buf)
		return -ENOMEM;
	pr_info("kqselftest: loaded\n");
	return 0;
}

static void __exit kqselftest_exit(void)
{
	kfree(kqselftest_buf);
	pr_info("kqselftest: unloaded\n");
}

module_init(kqselftest_init);
module_exit(kqselftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ptrec kmod test harness self-test");
