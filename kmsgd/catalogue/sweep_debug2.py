"""The debug sweep's wording for kernel.py's clocksource_unstable, bad_page_state and
page_allocation_failure (the rest of its wording is in sweep_debug.py), and its new tags:
csd_lock_timeout (kernel/smp.c: an IPI another CPU never answered), and what is information,
never a culprit: rt_throttling (kernel/sched/rt.c), kmemleak_leak (mm/kmemleak.c),
hrtimer_interrupt_slow (kernel/time/hrtimer.c), printk_messages_dropped (kernel/printk).

Routine neighbours stay untagged: a CSD lock that came unstuck, kmemleak's boot lines.
"""

from __future__ import annotations

from kmsgd.catalogue.base import Format, Severity, Signature, sig, wording
from kmsgd.catalogue.sweep_debug import kernel_entry

S = Severity
_CLOCK = kernel_entry("clocksource_unstable")
_ALLOC = kernel_entry("page_allocation_failure")
_BAD_PAGE = kernel_entry("bad_page_state")

SWEEP_DEBUG2_SIGNATURES: tuple[Signature, ...] = (
    # kernel/time/clocksource.c cs_watchdog_read: the watchdog could not read the clock and
    # its watchdog close enough together and gives the clock up (__clocksource_unstable,
    # which prints nothing more): "timekeeping watchdog on CPU%d: %s read-back delay of
    # %lldns, attempt %d, marking unstable" (5.14-5.18), "timekeeping watchdog on CPU%d:
    # wd-%s-wd excessive read-back delay of %lldns vs. limit of %ldns, wd-wd read-back delay
    # only %lldns, attempt %d, marking %s unstable" (5.19-6.18), pr_fmt "clocksource: ". The
    # retry that succeeded ("%s retried %d times before success") is routine
    wording(
        _CLOCK,
        r"timekeeping watchdog on CPU\d+: (?:wd-\S+-wd excessive |\S+ )read-back delay of "
        r"\d+ns,? (?:vs\. limit of \d+ns, wd-wd read-back delay only \d+ns, )?attempt \d+, "
        r"marking (?:\S+ )?unstable",
        ("unstable",),
        formats=(
            Format(
                "timekeeping watchdog on CPU%d: wd-%s-wd excessive read-back delay of %lldns "
                "vs. limit of %ldns, wd-wd read-back delay only %lldns, attempt %d, marking %s "
                "unstable",
                "kernel/time/clocksource.c",
                "5.19-6.18",
                "clocksource: ",
                args=(3, "tsc", 153762, 125000, 3452, 3, "tsc"),
            ),
            Format(
                "timekeeping watchdog on CPU%d: %s read-back delay of %lldns, attempt %d, "
                "marking unstable",
                "kernel/time/clocksource.c",
                "5.14-5.18",
                "clocksource: ",
                args=(3, "hpet", 153762, 3),
            ),
        ),
    ),
    # mm/filemap.c unaccount_page_cache_page (4.14-5.x) and filemap_unaccount_folio (5.16-6.18)
    # pr_alert "BUG: Bad page cache in process %s  pfn:%05lx", then dump_page's "still mapped
    # when deleted": a page-cache page freed while a process still maps it, the same memory
    # bookkeeping failure as bad_page_state's "Bad page state" and "Bad page map"
    wording(
        _BAD_PAGE,
        r"^BUG: Bad page cache in process \S+\s+pfn:[0-9a-f]+",
        ("BUG",),
        formats=(
            Format(
                "BUG: Bad page cache in process %s  pfn:%05lx",
                "mm/filemap.c",
                "4.14-6.18",
                args=("qemu-system-x86", 0x37AA00),
            ),
        ),
    ),
    # mm/vmalloc.c alloc_vmap_area pr_warn "vmap allocation for size %lu failed: use
    # vmalloc=<size> to increase size" (4.4-6.18): the kernel's vmalloc address space ran out
    # or is fragmented (32-bit boxes, huge module or BPF loads): page_allocation_failure's
    wording(
        _ALLOC,
        r"^vmap allocation for size \d+ failed: use vmalloc=<size> to increase size",
        ("vmap",),
        formats=(
            Format(
                "vmap allocation for size %lu failed: use vmalloc=<size> to increase size",
                "mm/vmalloc.c",
                "4.4-6.18",
                args=(4198400,),
            ),
        ),
    ),
    # kernel/smp.c csd_lock_wait_toolong (CONFIG_CSD_LOCK_WAIT_DEBUG, on in distribution
    # kernels from 5.17; timeout csd_lock_timeout=5 s): pr_alert "csd: %s non-responsive CSD
    # lock (#%d) on CPU#%d, waiting %lld ns for CPU#%02d %pS(%ps)." ("Detected" the first
    # time, "Continued" after; 5.11-5.16 "Detected" only; with "smp: " before it where
    # kernel/smp.c has its pr_fmt, 6.x): a CPU sent another an IPI (a TLB flush, a
    # smp_call_function) and the other never ran it: that CPU is stuck with interrupts off
    # (a hard lockup there, a firmware SMI, a vCPU the hypervisor does not run). The waiter
    # then spins, and its soft lockup or RCU stall follows. "CSD lock (#%d) got unstuck on
    # CPU#%02d, CPU#%02d released the lock." is its recovery: no tag
    sig(
        "csd_lock_timeout",
        r"\bcsd: (?:Detected|Continued) non-responsive CSD lock \(#\d+\) on CPU#\d+, waiting "
        r"\d+(?: ns|\.\d+ secs) for CPU#\d+",
        ("responsive",),
        S.ERROR,
        "cpu",
        "A CPU waited seconds for another CPU to answer an inter-processor interrupt (a TLB "
        "flush, a cross-CPU call) and it never did: the CPU named after 'for' is stuck with "
        "interrupts off, in a driver, firmware (SMI) or a vCPU the hypervisor stopped running.",
        "Read the NMI backtrace of the CPU named after 'for' (what it is stuck in); on a VM "
        "check the host's CPU overcommit and steal time; on bare metal check the BIOS/BMC for "
        "SMIs and update the firmware.",
        69,
        formats=(
            Format(
                "csd: %s non-responsive CSD lock (#%d) on CPU#%d, waiting %lld ns for CPU#%02d "
                "%pS(%ps).",
                "kernel/smp.c",
                "5.17-6.18",
                args=("Detected", 1, 3, 5000000042, 55, "flush_tlb_func+0x0/0xb0", "0xff"),
            ),
            Format(
                "csd: %s non-responsive CSD lock (#%d) on CPU#%d, waiting %lld ns for CPU#%02d "
                "%pS(%ps).",
                "kernel/smp.c",
                "6.16",
                "smp: ",
                args=("Continued", 1, 0, 10002000000, 1, "do_nothing+0x0/0x10", "0x0"),
            ),
            Format(
                "csd: Detected non-responsive CSD lock (#%d) on CPU#%d, waiting %llu ns for "
                "CPU#%02d %pS(%ps).",
                "kernel/smp.c",
                "5.11-5.16",
                args=(1, 3, 5000000042, 55, "flush_tlb_func+0x0/0xb0", "0xff"),
            ),
        ),
    ),
    # kernel/sched/rt.c sched_rt_runtime_exceeded printk_deferred_once "sched: RT throttling
    # activated" (4.4-6.18): real-time tasks used their whole budget (sched_rt_runtime_us,
    # 95 % of each second) and the scheduler held them off for the rest. Once a boot, often
    # from an audio or a busy-polling thread that recovers: information, listed, never
    # blamed (a busy server's routine line, tests/catalogue/test_sweep_sys.py)
    sig(
        "rt_throttling",
        r"^sched: RT throttling activated",
        ("throttling",),
        S.INFO,
        "kernel",
        "Real-time (SCHED_FIFO/SCHED_RR) tasks used their whole CPU budget and the scheduler "
        "throttled them: a runaway real-time thread, or one that busy-polls.",
        "Find the real-time thread that spins (ps -eLo rtprio,pcpu,comm | sort -n); stalls or "
        "hung tasks around it may be its doing.",
        100,
        routine=True,
        formats=(Format("sched: RT throttling activated", "kernel/sched/rt.c", "4.4-6.18"),),
    ),
    # mm/kmemleak.c kmemleak_scan pr_info "%d new suspected memory leaks (see
    # /sys/kernel/debug/kmemleak)" (pr_fmt "kmemleak: ", 4.4-6.18): a debug kernel's leak
    # detector found unreferenced objects. Memory lost, nothing stopped: routine
    sig(
        "kmemleak_leak",
        r"^kmemleak: \d+ new suspected memory leaks",
        ("kmemleak",),
        S.WARNING,
        "memory",
        "The kernel's leak detector (kmemleak, a debug option) found kernel memory nobody "
        "references any more: a driver or subsystem leaks.",
        "Read /sys/kernel/debug/kmemleak for the leaking allocations' backtraces and report "
        "them to the driver named there; a leak that grows ends in memory exhaustion.",
        90,
        routine=True,
        formats=(
            Format(
                "%d new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
                "mm/kmemleak.c",
                "4.4-6.18",
                "kmemleak: ",
                args=(3,),
            ),
        ),
    ),
    # kernel/time/hrtimer.c hrtimer_interrupt pr_warn_once "hrtimer: interrupt took %llu ns"
    # (4.4-6.18): one timer interrupt ran so long (a stalled or descheduled CPU, an SMI, a
    # slow console) that the kernel spread the next timers out. Information once a boot
    sig(
        "hrtimer_interrupt_slow",
        r"^hrtimer: interrupt took \d+ ns",
        ("hrtimer",),
        S.INFO,
        "cpu",
        "One timer interrupt took long to run (a CPU held off by an SMI, a hypervisor or a "
        "slow console): printed once a boot.",
        "Usually noise; many stalls around it point at the CPU or the hypervisor.",
        100,
        routine=True,
        formats=(
            Format(
                "hrtimer: interrupt took %llu ns",
                "kernel/time/hrtimer.c",
                "4.4-6.18",
                args=(11082175,),
            ),
        ),
    ),
    # kernel/printk/printk.c: the console fell behind the ring buffer and skipped records,
    # "** %u printk messages dropped **" (console_unlock 4.4-5.9), "** %llu printk messages
    # dropped **" (5.10-6.0), "** %lu printk messages dropped **" (console_prepend_dropped
    # 6.1-6.18): a console log (serial, netconsole) with a hole; the ring buffer (dmesg)
    # has what the console lost
    sig(
        "printk_messages_dropped",
        r"^\*\* \d+ printk messages dropped \*\*",
        ("dropped",),
        S.INFO,
        "kernel",
        "The console could not keep up and skipped kernel messages: this log has a hole.",
        "Read dmesg or the journal for what the console lost; slow serial consoles drop most.",
        100,
        routine=True,
        formats=(
            Format(
                "** %lu printk messages dropped **",
                "kernel/printk/printk.c",
                "6.1-6.18",
                args=(127,),
            ),
            Format(
                "** %u printk messages dropped **",
                "kernel/printk/printk.c",
                "4.4-5.9",
                args=(17,),
            ),
        ),
    ),
)
