// SPDX-License-Identifier: GPL-2.0
/*
 * lab_spin: a real soft lockup for the kmsgd crash lab (docs/crash-lab.md).
 *
 * Debian's kernel has neither lkdtm nor test_lockup. Loading this module spins in its init
 * function for `seconds` with preemption disabled, on the CPU that runs insmod (the lab pins
 * it with `taskset -c 1`). That CPU's watchdog hrtimer still fires (interrupts stay on) but
 * its stopper thread cannot run, so after 2 * kernel.watchdog_thresh seconds the detector
 * reports "BUG: soft lockup - CPU#1 stuck for 11s! [insmod:PID]" and, with
 * kernel.softlockup_panic=1, panics (kernel/watchdog.c, watchdog_timer_fn).
 *
 * Init then returns 0; `rmmod lab_spin` unloads it so that it can spin again.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/processor.h>
#include <linux/smp.h>

static unsigned int seconds = 30;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long to spin with preemption disabled");

static int __init lab_spin_init(void)
{
	unsigned long end = jiffies + seconds * HZ;

	preempt_disable();
	pr_info("lab_spin: spinning on CPU%d for %u s with preemption disabled\n",
		smp_processor_id(), seconds);
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
	pr_info("lab_spin: done\n");
	return 0;
}

static void __exit lab_spin_exit(void)
{
}

module_init(lab_spin_init);
module_exit(lab_spin_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmsgd crash lab: spin with preemption disabled (a real soft lockup)");
