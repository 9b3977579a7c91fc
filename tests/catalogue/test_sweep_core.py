"""The kernel core swept from its source over the versions servers run (2.6.32-mainline):
each line as its format prints it (the format strings are in each catalogue entry's
`formats`), the routine lines beside it, and the place of each in the culprit order."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording, paste_primary

MCE = "mce: [Hardware Error]: "

# tag → (positives, negatives); a positive may name a userspace ident as "ident[pid]: "
SWEEP_CORE_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "thermal_throttle": (
        [
            # mcelog intel.c decode_thermal, mcelog.c "CPU %d %s" with bankname()
            "mcelog[672]: Processor 1 heated above trip temperature. Throttling enabled.",
            "mcelog[672]: CPU 1 THERMAL EVENT TSC 5aafdf91021",
            "Processor 3 heated above trip temperature. Throttling enabled.",
        ],
        ["mcelog[672]: Processor 1 below trip temperature. Throttling disabled"],
    ),
    "mce": (
        ["mcelog[672]: CPU 3 BANK 5 TSC 5aafdf91021"],
        ["mcelog[672]: CPU 1 THERMAL EVENT TSC 5aafdf91021"],
    ),
    "mce_logged_at_boot": (
        [
            # print_mce of a polled record: no MCIP in the MCG status, UC and PCC set
            MCE + "CPU 10: Machine Check: 0 Bank 5: bea0000000000108",
            "[Hardware Error]: CPU 2: Machine Check Exception: 0 Bank 4: b200000000070f0f",
        ],
        [
            # a live #MC (MCIP set in the MCG status 5), a corrected record (no UC)
            MCE + "CPU 3: Machine Check Exception: 5 Bank 4: b200000000070f0f",
            MCE + "CPU 0: Machine Check: 0 Bank 6: 9c2040000000011b",
            MCE + "CPU 0: Machine Check: 0 Bank 6: dc2040000000011b",  # UC without PCC
        ],
    ),
    "kernel_bug": (
        [
            # arch/x86/kernel/traps.c handle_stack_overflow, 4.19-6.1 and 6.2+
            "BUG: stack guard page was hit at 00000000b2f481cf (stack is "
            "000000009cbf9546..0000000099742d14)",
            "BUG: #DF stack guard page was hit at 0000000040b441e1 (stack is "
            "00000000a1788787..000000008e7f4216)",
            "BUG: NMI stack guard page was hit at 0000000003983d50 (stack is "
            "000000007feb1fa4..00000000574369c2)",
            # fs/dcache.c umount_check
            "BUG: Dentry 00000000a1b2c3d4{i=12,n=foo} still in use (1) [unmount of ext4 sda1]",
            "BUG: KCSAN: data-race in tick_sched_do_timer / tick_sched_do_timer",
        ],
        ["BUG: MAX_LOCKDEP_KEYS too low!"],
    ),
    "oops": (
        [
            "Bad pagetable: 000d [#1] SMP PTI",
            "stack guard page: 0000 [#1] PREEMPT SMP NOPTI",
            "Oops: stack guard page: 0000 [#1] PREEMPT SMP KASAN NOPTI",
        ],
        ["x86/mm: Checked W+X mappings: passed, no W+X pages found."],
    ),
    "oom_kill": (
        ["oom_reaper: unable to reap pid:4242 (python3)"],
        [
            "oom_reaper: reaped process 4242 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB"
        ],
    ),
    "suspend_failure": (
        [
            # kernel/power/process.c try_to_freeze_tasks over versions
            "Freezing of tasks failed after 20.004 seconds (1 tasks refusing to freeze, "
            "wq_busy=0):",
            "Freezing of tasks timed out after 20 seconds (1 tasks refusing to freeze):",
            "Freezing user space processes failed after 20.003 seconds (1 tasks refusing to "
            "freeze, wq_busy=0):",
            "Freezing remaining freezable tasks failed after 20.001 seconds (2 tasks refusing to "
            "freeze, wq_busy=1):",
            # drivers/base/power/main.c pm_dev_err, 2.6.32-5.4 and 5.10+ (dev_err)
            "PM: Device 0000:00:14.0 failed to suspend async: error -16",
            "xhci_hcd 0000:00:14.0: PM: failed to suspend async: error -16",
            "amdgpu 0000:03:00.0: PM: failed to suspend: error -22",
            "PM: Some devices failed to suspend, or early wake event detected",
            "PM: Some devices failed to power down, aborting hibernation",
        ],
        [
            # a wakeup aborted the freeze; resume's and sleep's routine lines
            "Freezing user space processes aborted after 0.000 seconds (70 tasks refusing to "
            "freeze, wq_busy=0):",
            "PM: resume of devices complete after 1234.567 msecs",
            "ACPI: Waking up from system sleep state S3",
            "ACPI: PM: Waking up from system sleep state S3",
            "PM: suspend entry (deep)",
            "PM: suspend exit",
            "Freezing user space processes completed (elapsed 0.002 seconds)",
        ],
    ),
    "boot_failure": (
        [
            'VFS: Cannot open root device "sda1" or unknown-block(0,0): error -6',
            'VFS: Cannot open root device "mapper/rhel-root" or unknown-block(0,0): error -6',
            "dracut-initqueue[312]: Warning: Could not boot.",
            "dracut-initqueue[312]: Warning: /dev/mapper/rhel-root does not exist",
            "systemd[1]: Failed to mount /sysroot.",
            "systemd[1]: Failed to mount sysroot.mount - /sysroot.",
        ],
        [
            "dracut-initqueue[312]: Warning: dracut-initqueue timeout - starting timeout scripts",
            "systemd[1]: Mounted sysroot.mount - /sysroot.",
            "VFS: Mounted root (ext4 filesystem) readonly on device 259:2.",
            # a program's words in the kernel's place are not dracut's
            "Warning: Could not boot.",
        ],
    ),
    "clean_shutdown_marker": (
        [
            # kernel/sys.c 2.6.32-3.x, kexec 2.6.32-4.2 and kexec_core 4.3+
            "Restarting system.",
            "Restarting system with command 'bootloader'.",
            "System halted.",
            "Power down.",
            "Starting new kernel",
            "kexec_core: Starting new kernel",
        ],
        ["Power down the device before removing it.", "Starting new kernel thread"],
    ),
    "nmi_hardware_error": (
        [
            "NMI: PCI system error (SERR) for reason a0 on CPU 0.",
            "NMI: IOCK error (debug interrupt?) for reason 71 on CPU 0.",
        ],
        [
            "Uhhuh. NMI received for unknown reason 2d on CPU 3.",
            "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
        ],
    ),
    # 2.6.18-2.6.32 wordings of the stall detectors (RHEL 5/6)
    "hard_lockup": (
        ["BUG: NMI Watchdog detected LOCKUP on CPU3, ip ffffffff8100b2a4, registers:"],
        ["NMI watchdog enabled, takes one hw-pmu counter."],
    ),
    "soft_lockup": (["BUG: soft lockup detected on CPU#3!"], ["softlockup: enabled"]),
    "rcu_stall": (
        ["INFO: RCU detected CPU stalls: 3 (detected by 5, t=60002 jiffies)"],
        ["Hierarchical RCU implementation."],
    ),
    "workqueue_hog": (
        [
            # kernel/workqueue.c wq_cpu_intensive_report: %ps of a module's function
            "workqueue: ib_cache_event_task [ib_core] hogged CPU for >10000us 4 times, "
            "consider switching to WQ_UNBOUND",
            "workqueue: vmstat_update hogged CPU for >10000us 8 times, consider switching to "
            "WQ_UNBOUND",
        ],
        [
            "workqueue: amdgpu_dm_irq_work_func [amdgpu] hogged CPU for >10000us 4 times, "
            "consider switching to WQ_UNBOUND",
        ],
    ),
}


# the second sweep (kmsgd/catalogue/core_sweep.py): memory the hardware poisoned, arm64's
# SError, hibernation resume, swap I/O, the hardware-protection shutdown, SysRq resets, and
# wordings of mce, thermal_throttle and kernel_bug; merged into the table above
SOURCE_SWEEP_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "memory_failure": (
        [
            "Memory failure: 0x8a398a: recovery action for reserved kernel page: Ignored",
            "Memory failure: 0x8a398a: recovery action for dirty LRU page: Failed",
            "Memory failure: 0x8a398a: recovery action for huge page: Delayed",
            "MCE 0x12345: recovery action for dirty swapcache page: Failed",
            "Memory failure: 0x8a398a: Sending SIGBUS to python3:4123 due to hardware memory "
            "corruption",
            "Memory failure: 0x8a398a: Killing python3:4123 due to hardware memory corruption",
            "MCE: Killing python3:4123 due to hardware memory corruption fault at 7f12345000",
            "mce: Uncorrected hardware memory error in user-access at 8a398a400",
            "mce: Memory error not recovered",
            # recovered: a warning of the same tag, led by the machine check before it
            "Memory failure: 0x8a398a: recovery action for clean LRU page: Recovered",
        ],
        [
            # soft offlining a page with corrected errors, and a page already handled
            "Memory failure: 0x8a398a: already hardware poisoned",
            "soft offline: 0x8a398a: page migration failed 1, type 0x2fffff",
            "pcieport 0000:00:1c.0: AER: can't recover (no error_detected callback)",
        ],
    ),
    "arm64_serror": (
        [
            "SError Interrupt on CPU3, code 0x00000000be000011 -- SError",
            "SError Interrupt on CPU0, code 0xbf000002 -- SError",
            "Bad mode in Error handler detected on CPU1, code 0xbf000002 -- SError",
            "Kernel panic - not syncing: Asynchronous SError Interrupt",
        ],
        [
            "Bad mode in Synchronous Abort handler detected on CPU1, code 0x02000000 -- Unknown",
            "CPU features: detected: RAS Extension Support",
        ],
    ),
    "hibernate_resume_failure": (
        [
            "PM: Failed to load hibernation image, recovering.",
            "PM: hibernation: Failed to load image, recovering.",
            "PM: hibernation: resume failed (-5)",
            "PM: resume from hibernation failed (-14)",
        ],
        [
            # no image to resume: a plain boot
            "PM: Image not found (code -22)",
            "PM: hibernation: Image not found (code -22)",
            "PM: Hibernation image not present or could not be loaded.",
            "PM: hibernation: Registered nosave memory: [mem 0x00000000-0x00000fff]",
        ],
    ),
    "swap_io_error": (
        [
            "Write-error on swap-device (254:1:39256632)",
            "Read-error on swap-device (8:2:123456)",
            "Write error -5 on dio swapfile (2048)",
        ],
        [
            "Adding 8388604k swap on /dev/sda2.  Priority:-2 extents:1 across:8388604k SS",
            "zram0: detected capacity change from 0 to 16777216",
        ],
    ),
    "hw_protection_shutdown": (
        [
            "reboot: HARDWARE PROTECTION shutdown (Temperature too high)",
            "reboot: HARDWARE PROTECTION reboot (Regulator failure)",
            "reboot: Hardware protection timed-out. Trying forced poweroff",
            "reboot: Hardware protection shutdown failed. Trying emergency restart",
            "reboot: Failed to start orderly shutdown: forcing the issue",
        ],
        [
            "reboot: Power down",
            "reboot: Restarting system",
            "thermal_sys: Registered thermal governor 'step_wise'",
        ],
    ),
    "sysrq_reset": (
        [
            "sysrq: Resetting",
            "sysrq: SysRq : Resetting",
            "sysrq: Power Off",
        ],
        [
            "sysrq: Emergency Sync",
            "sysrq: Emergency Remount R/O",
            "sysrq: Show Blocked State",
            "sysrq: Trigger a crash",
        ],
    ),
    "mce": (
        [
            "Kernel panic - not syncing: Timeout: Not all CPUs entered broadcast exception handler",
            "Kernel panic - not syncing: Timeout: Monarch CPU unable to finish machine check "
            "processing",
            "Kernel panic - not syncing: Machine check from unknown source",
            "Kernel panic - not syncing: Fatal local machine check",
            "[Hardware Error]: Deferred error, no action required.",
            "Severe Machine check interrupt [Not recovered]",
            "MCE: CPU5: machine check (Severe) Host UE Load/Store DAR: 0000000012345678 "
            "[Not recovered]",
        ],
        [
            "Warning Machine check interrupt [Recovered]",
            "MCE: CPU5: machine check (Warning) Host SLB Multihit [Recovered]",
            "mce: CPU0: Thermal monitoring enabled (TM1)",
            "Kernel panic - not syncing: Fatal exception",
        ],
    ),
    "thermal_throttle": (
        [
            "mce: CPU3: Package temperature is above threshold, cpu clock is throttled (total "
            "events = 12)",
            "CPU3: Core temperature is above threshold, cpu clock is throttled (total events = 1)",
        ],
        [
            "mce: CPU3: Core temperature/speed normal (total events = 12)",
            "mce: CPU3: Package temperature/speed normal (total events = 12)",
        ],
    ),
    "kernel_bug": (
        [
            "BUG: rwlock wrong owner on CPU#1, bash/100, 00000000deadbeef",
            "BUG: rwlock recursion on CPU#3, kworker/3:1/123, 00000000deadbeef",
            "BUG: using __this_cpu_read() in preemptible [00000000] code: bash/123",
            "BUG: non-zero pgtables_bytes on freeing mm: -4096",
            "Slab corruption (Not tainted): kmalloc-64 start=ffff888012345678, len=64",
        ],
        [
            "Slab corruption detected on the box of a userspace checker",
            "SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=8, Nodes=1",
        ],
    ),
    "watchdog_expired": (
        [
            "watchdog: watchdog0: pretimeout event",
            "watchdog1: pretimeout event",
            "Kernel panic - not syncing: watchdog pretimeout event",
        ],
        [
            # the daemon closed the device without the magic close: routine at shutdown
            "watchdog: watchdog0: watchdog did not stop!",
            "watchdog: watchdog0: pretimeout governor: noop",
        ],
    ),
    # a double fault panics (exc_double_fault: die(), then panic("Machine halted.")):
    # kernel_panic since batch 27 (tests/catalogue/test_fix27b.py)
    "kernel_panic": (
        ["traps: PANIC: double fault, error_code: 0x0", "PANIC: double fault, error_code: 0x0"],
        ["traps: python3[4123] general protection fault ip:7f12 sp:7ffd error:0 in libc.so.6"],
    ),
    "page_allocation_failure": (
        [
            "python3: page allocation stalls for 10020ms, order:0, mode:0x14200ca"
            "(GFP_HIGHUSER_MOVABLE), nodemask=(null)",
        ],
        ["kswapd0: page allocation stats reset"],
    ),
    "kernel_warning": (
        [
            "ODEBUG: free active (active state 0) object type: timer_list hint: "
            "foo_timer_fn+0x0/0x40 [foo]",
            "ODEBUG: activate active (active state 1) object: 00000000deadbeef object type: "
            "work_struct hint: bar_work+0x0/0x20",
        ],
        ["ODEBUG: selftest passed", "ODEBUG: 1023 of 1023 active objects replaced"],
    ),
}
for _tag, (_pos, _neg) in SOURCE_SWEEP_EXAMPLES.items():
    _have = SWEEP_CORE_EXAMPLES.setdefault(_tag, ([], []))
    _have[0].extend(_pos)
    _have[1].extend(_neg)


def _record(line: str, n: int = 0, ts: int | None = None) -> KernelRecord:
    head, sep, _ = line.partition(": ")
    user = sep and "[" in head and head.endswith("]") and " " not in head
    return KernelRecord(line, 3, 3 if user else 0, n, ts, "-")


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(_record(line))}


@pytest.mark.parametrize("tag", sorted(SWEEP_CORE_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(SWEEP_CORE_EXAMPLES, tag, _tags)


def _primary(*lines: str, stamped: bool = True) -> str | None:
    recs = [_record(m, n, (9000 + n) * 10**6 if stamped else None) for n, m in enumerate(lines)]
    p = classify(Timeline.from_records(recs)).primary
    return p.tag if p is not None else None


THROTTLE = "CPU0: Core temperature above threshold, cpu clock throttled (total events = 1)"
MCELOG_THERMAL = (
    MCE + "Machine check events logged",
    "mcelog[672]: Hardware event. This is not a software error.",
    "mcelog[672]: MCE 0",
    "mcelog[672]: CPU 1 THERMAL EVENT TSC 5aafdf91021",
    "mcelog[672]: Processor 1 heated above trip temperature. Throttling enabled.",
)


@pytest.mark.parametrize("stamped", [True, False])
def test_a_machine_check_record_of_a_thermal_event_is_the_throttling(stamped: bool) -> None:
    """Kernels before 5.5 log the thermal interrupt through the MCE log: the record whose
    only content is the thermal event is the (routine) throttling, not an mce failure."""
    assert _primary(THROTTLE, *MCELOG_THERMAL, stamped=stamped) == "thermal_throttle"
    assert _primary(*MCELOG_THERMAL, stamped=stamped) == "thermal_throttle"
    assert _tags(MCELOG_THERMAL[-1]) == {"thermal_throttle"}
    assert all(h.signature.routine for h in match_record(_record(MCELOG_THERMAL[-1])))


def test_a_real_mcelog_record_beside_a_throttle_still_leads() -> None:
    real = (
        MCE + "Machine check events logged",
        "mcelog[672]: Hardware event. This is not a software error.",
        "mcelog[672]: CPU 3 BANK 5 TSC 5aafdf91021",
    )
    assert _primary(THROTTLE, *real) == "mce"
    assert _primary(*real, stamped=False) == "mce"


RECORD_AT_BOOT = (
    MCE + "Machine check events logged",
    MCE + "CPU 10: Machine Check: 0 Bank 5: bea0000000000108",
    MCE + "TSC 0 ADDR 1ffff8fd156d6 MISC d012000100000000 SYND 4d000000 IPID 500b000000000",
    MCE + "PROCESSOR 2:800f11 TIME 1664118033 SOCKET 0 APIC 5 microcode 8001138",
)


def test_a_polled_context_corrupt_record_is_the_boot_before_without_stamps() -> None:
    """A journal's short format has no stamps: the polled uncorrected, context-corrupt
    record (no MCIP) tells that the banks kept it across a reset."""
    assert _primary(*RECORD_AT_BOOT, stamped=False) == "mce_logged_at_boot"


def test_a_live_or_corrected_machine_check_without_stamps_stays_mce() -> None:
    live = (MCE + "CPU 3: Machine Check Exception: 5 Bank 4: b200000000070f0f",)
    corrected = (MCE + "CPU 0: Machine Check: 0 Bank 6: 9c2040000000011b", RECORD_AT_BOOT[2])
    assert _primary(*live, stamped=False) == "mce"
    assert _primary(*corrected, stamped=False) == "mce"


def test_the_workqueue_hog_hint_is_routine_and_never_leads_a_failure() -> None:
    hog = _tags(SWEEP_CORE_EXAMPLES["workqueue_hog"][0][0])
    assert hog == {"workqueue_hog"}
    (hit,) = match_record(_record(SWEEP_CORE_EXAMPLES["workqueue_hog"][0][0]))
    assert hit.signature.routine
    lockup = "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:2:77]"
    assert _primary(SWEEP_CORE_EXAMPLES["workqueue_hog"][0][0], lockup) == "soft_lockup"


def test_a_log_of_nothing_but_hog_hints_has_no_culprit() -> None:
    hog = SWEEP_CORE_EXAMPLES["workqueue_hog"][0]
    assert _primary(*hog) is None


OOM = "Out of memory: Killed process 4242 (python3) total-vm:8000kB, anon-rss:4000kB"
FREEZE = "Freezing of tasks failed after 20.004 seconds (1 tasks refusing to freeze, wq_busy=0):"


def test_an_unreaped_oom_victim_is_the_oom_and_the_reaper_line_never_counts_twice() -> None:
    assert _primary("oom_reaper: unable to reap pid:4242 (python3)") == "oom_kill"
    assert _primary(OOM, "oom_reaper: unable to reap pid:4242 (python3)") == "oom_kill"
    assert _primary(OOM, "oom_reaper: reaped process 4242 (python3), now anon-rss:0kB") == (
        "oom_kill"
    )


def test_a_failed_suspend_is_led_by_the_driver_or_task_that_failed_it() -> None:
    assert _primary(FREEZE) == "suspend_failure"
    assert _primary("PM: Some devices failed to suspend, or early wake event detected") == (
        "suspend_failure"
    )
    gpu = "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: "
    gpu += "SMN_C2PMSG_66:0x00000011 SMN_C2PMSG_82:0x00000000"
    assert _primary(gpu, "amdgpu 0000:03:00.0: PM: failed to suspend: error -62") != (
        "suspend_failure"
    )
    hung = "INFO: task nfsd:1234 blocked for more than 122 seconds."
    assert _primary(FREEZE, hung) == "hung_task"
    # resume's routine lines after a failed suspend do not lead
    assert _primary(FREEZE, "PM: resume of devices complete after 12.3 msecs") == (
        "suspend_failure"
    )


def test_the_root_mount_panic_leads_the_boot_failure_it_names() -> None:
    cannot = 'VFS: Cannot open root device "sda1" or unknown-block(0,0): error -6'
    panic = "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)"
    assert _primary(cannot, panic) == "kernel_panic"
    assert _primary(cannot) == "boot_failure"
    assert _primary("dracut-initqueue[312]: Warning: Could not boot.") == "boot_failure"


def test_an_old_kernels_orderly_end_is_a_clean_end() -> None:
    for end, outcome in (
        ("Restarting system.", "clean_reboot"),
        ("Starting new kernel", "clean_reboot"),
        ("Power down.", "clean_shutdown"),
        ("System halted.", "clean_shutdown"),
    ):
        recs = [_record("EXT4-fs (sda1): re-mounted. Opts: (null)", 0, 9000 * 10**6)]
        recs.append(_record(end, 1, 9001 * 10**6))
        assert classify(Timeline.from_records(recs)).outcome == outcome, end


def test_a_pci_serr_nmi_leads_the_panic_it_ends_in() -> None:
    serr = "NMI: PCI system error (SERR) for reason a0 on CPU 0."
    assert _primary(serr, "Kernel panic - not syncing: NMI: Not continuing") == (
        "nmi_hardware_error"
    )
    assert _primary(serr, "Dazed and confused, but trying to continue") == "nmi_hardware_error"


def test_a_recovered_poisoned_page_is_routine_and_its_machine_check_leads() -> None:
    text = (
        "[183.64] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 1\n"
        "[183.64] {1}[Hardware Error]: event severity: recoverable\n"
        "[183.64] {1}[Hardware Error]:  Error 0, type: recoverable\n"
        "[183.65] mce: Uncorrected hardware memory error in user-access at 8a398a400\n"
        "[183.76] Memory failure: 0x8a398a: recovery action for dirty LRU page: Recovered\n"
    )
    assert paste_primary(text) == "ghes_hardware_error"


def test_a_killed_process_after_a_machine_check_is_the_machine_check_s() -> None:
    text = (
        "[ 9001.10] mce: [Hardware Error]: Machine check events logged\n"
        "[ 9001.10] mce: [Hardware Error]: CPU 12: Machine Check: 0 Bank 7: "
        "bd80000000100134\n"
        "[ 9001.11] Memory failure: 0x8a398a: Sending SIGBUS to python3:4123 due to hardware "
        "memory corruption\n"
        "[ 9001.11] Memory failure: 0x8a398a: recovery action for dirty LRU page: Recovered\n"
    )
    assert paste_primary(text) == "mce"


def test_an_unrecovered_poisoned_page_alone_is_named() -> None:
    text = (
        "[ 52.10] Memory failure: 0x8a398a: recovery action for reserved kernel page: Ignored\n"
        "[ 52.11] Kernel panic - not syncing: Memory failure on page 8a398a\n"
    )
    assert paste_primary(text) == "memory_failure"


def test_an_serror_leads_the_panic_it_ends_in() -> None:
    text = (
        "[ 801.20] SError Interrupt on CPU3, code 0x00000000be000011 -- SError\n"
        "[ 801.20] CPU: 3 PID: 0 Comm: swapper/3 Tainted: G   M   6.1.0 #1\n"
        "[ 801.21] Kernel panic - not syncing: Asynchronous SError Interrupt\n"
    )
    assert paste_primary(text) == "arm64_serror"


def test_a_critical_trip_leads_the_protection_shutdown_and_the_clean_poweroff_after_it() -> None:
    text = (
        "[ 4021.10] thermal thermal_zone0: acpitz: critical temperature reached\n"
        "[ 4021.10] reboot: HARDWARE PROTECTION shutdown (Temperature too high)\n"
        "[ 4023.40] systemd-shutdown[1]: Syncing filesystems and block devices.\n"
        "[ 4024.00] reboot: Power down\n"
    )
    assert paste_primary(text) == "thermal_critical"


def test_a_protection_shutdown_alone_is_named() -> None:
    text = (
        "[ 4021.10] reboot: HARDWARE PROTECTION shutdown (Regulator failure)\n"
        "[ 4024.00] reboot: Power down\n"
    )
    assert paste_primary(text) == "hw_protection_shutdown"


def test_a_failed_swap_disk_leads_the_swap_errors() -> None:
    text = (
        "[ 9692.84] blk_update_request: I/O error, dev sda, sector 39256632 op 0x1:(WRITE) "
        "flags 0x0 phys_seg 4 prio class 0\n"
        "[ 9692.85] Write-error on swap-device (8:2:39256632)\n"
        "[ 9692.86] Write-error on swap-device (8:2:39256640)\n"
    )
    assert paste_primary(text) == "disk_io_error"


def test_swap_errors_alone_are_named() -> None:
    text = (
        "[ 9692.85] Write-error on swap-device (254:1:39256632)\n"
        "[ 9692.86] Write-error on swap-device (254:1:39256640)\n"
    )
    assert paste_primary(text) == "swap_io_error"


def test_a_hang_leads_the_sysrq_reset_that_ended_it() -> None:
    text = (
        "[ 846.30] INFO: task python3:4123 blocked for more than 122 seconds.\n"
        '[ 846.31] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.\n'
        "[ 991.00] sysrq: Resetting\n"
    )
    assert paste_primary(text) == "hung_task"


def test_a_sysrq_reset_alone_is_how_the_boot_ended() -> None:
    assert paste_primary("[ 991.00] sysrq: Emergency Sync\n[ 991.50] sysrq: Resetting\n") == (
        "sysrq_reset"
    )


def test_a_failed_hibernation_resume_is_named_and_a_missing_image_is_not() -> None:
    text = (
        "[ 2.35] PM: Image mismatch: memory size\n"
        "[ 2.36] PM: Error -1 resuming\n"
        "[ 2.36] PM: hibernation: Failed to load image, recovering.\n"
        "[ 2.37] PM: hibernation: resume failed (-1)\n"
    )
    assert paste_primary(text) == "hibernate_resume_failure"
    assert paste_primary("[ 2.35] PM: hibernation: Image not found (code -22)\n") is None


def test_a_hung_box_leads_the_watchdog_pretimeout_that_ends_it() -> None:
    text = (
        "[ 846.30] INFO: task python3:4123 blocked for more than 122 seconds.\n"
        "[ 901.00] watchdog: watchdog0: pretimeout event\n"
    )
    assert paste_primary(text) == "hung_task"
