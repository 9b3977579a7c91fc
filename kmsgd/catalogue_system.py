"""CPU, kernel, memory, hardware, storage and lifecycle signatures.

Each regex quotes the kernel's own format string (file named in the comment) so the entry
documents the evidence it keys on. Lifecycle entries speak about how a boot ended, or (when
seen early in a boot) how the previous one did.
"""

from __future__ import annotations

import re

from kmsgd.catalogue_base import DeviceKind, MatchInput, Severity, Signature, sig

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS
EARLY_US = 300_000_000  # "at boot": within the first five minutes of printk time


def _early(m: re.Match[str], i: MatchInput) -> bool:
    # without a printk stamp (journal short) "at boot" cannot be told: count it as runtime
    return i.ts_usec is not None and i.ts_usec < EARLY_US


CPU_SIGNATURES: tuple[Signature, ...] = (
    # drivers/tty/sysrq.c sysrq_handle_crash → panic("sysrq triggered crash")
    sig(
        "sysrq_crash",
        r"sysrq: Trigger a crash|sysrq triggered crash",
        ("sysrq",),
        S.CRITICAL,
        "kernel",
        "Someone asked the kernel to crash (SysRq-c or /proc/sysrq-trigger).",
        "Deliberate: find who triggered it (a test, a watchdog script, an operator).",
        8,
    ),
    # kernel/watchdog_perf.c / watchdog_buddy.c: "Watchdog detected hard LOCKUP on cpu %d"
    sig(
        "hard_lockup",
        r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)|Hard LOCKUP",
        ("LOCKUP",),
        S.CRITICAL,
        "cpu",
        "A CPU stopped taking interrupts for ~10 s (hard lockup).",
        "Look at the backtrace that follows (driver in the top frames); firmware/BIOS and "
        "hardware are suspects when no driver shows.",
        70,
        device_kind=_CPU,
    ),
    # kernel/watchdog.c: "BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]"
    sig(
        "soft_lockup",
        r"BUG: soft lockup - CPU#(?P<cpu>\d+) stuck for",
        ("lockup",),
        S.CRITICAL,
        "cpu",
        "A CPU ran kernel code without scheduling for > 20 s (soft lockup).",
        "The task and backtrace that follow name the code that spun; usually a driver bug.",
        72,
        device_kind=_CPU,
    ),
    # kernel/rcu/tree_stall.h: "INFO: %s detected stalls on CPUs/tasks:", "self-detected stall"
    sig(
        "rcu_stall",
        r"rcu: INFO: \S+ (?:detected stalls? on CPUs|self-detected stall on CPU)"
        r"|rcu_\w+ detected stalls on CPUs",
        ("stall", "stalls"),
        S.ERROR,
        "cpu",
        "RCU grace periods stopped advancing: some CPU or task is stuck in the kernel.",
        "Read the stack dumps that follow; a stall next to GPU or storage errors is their effect.",
        74,
        device_kind=_CPU,
    ),
    # kernel/hung_task.c: "INFO: task %s:%d blocked for more than %ld seconds."
    sig(
        "hung_task",
        r"INFO: task \S+ blocked for more than \d+ seconds",
        ("blocked",),
        S.ERROR,
        "kernel",
        "A task waited > 120 s in uninterruptible sleep (D state), usually on I/O or a lock.",
        "The blocked task's stack names the wait: storage, NFS, a GPU ioctl; fix that.",
        76,
    ),
    sig(
        "general_protection_fault",
        r"^general protection fault|\bgeneral protection fault, (?:probably for|maybe for)"
        r"|^Oops: general protection fault",
        ("protection",),
        S.CRITICAL,
        "kernel",
        "The kernel used an invalid address (general protection fault).",
        "A kernel/driver bug or bad memory: read the RIP/module in the lines that follow; "
        "run memtest if it moves around.",
        78,
        check=lambda m, i: not i.text.startswith("traps:"),
    ),
    # lib/bug.c "kernel BUG at %s:%u!"; mm/, kernel/sched "BUG: scheduling while atomic"...
    sig(
        "kernel_bug",
        r"kernel BUG at \S+|BUG: (?!soft lockup|kernel NULL pointer)"
        r"(?:unable to handle|scheduling while atomic|Bad page|KASAN|sleeping function|"
        r"Bad rss|workqueue lockup|using smp_processor_id|spinlock|\w+ leak)",
        ("BUG",),
        S.CRITICAL,
        "kernel",
        "The kernel hit an internal consistency check (BUG).",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        79,
    ),
    # arch/x86/kernel/dumpstack.c __die_header: "Oops: %04lx [#%d]..."; mm/fault: NULL deref
    sig(
        "oops",
        r"^Oops: (?:[0-9a-f]{4} )?\[#\d+\]|^Oops: |BUG: kernel NULL pointer dereference",
        ("Oops", "NULL"),
        S.CRITICAL,
        "kernel",
        "The kernel faulted (Oops); the task was killed and the kernel may be unstable.",
        "Report the Oops with its 'Modules linked in' and RIP lines; with panic_on_oops it "
        "also explains the panic.",
        80,
    ),
    # kernel/panic.c __warn: "WARNING: CPU: %d PID: %d at %pS"
    sig(
        "kernel_warning",
        r"^WARNING: CPU: (?P<cpu>\d+) PID: \d+ at (?P<where>\S+)",
        ("WARNING",),
        S.WARNING,
        "kernel",
        "A kernel WARN_ON fired: unexpected state, execution continued.",
        "Often harmless once; repeated warnings from one driver before a failure matter.",
        82,
        device_kind=_CPU,
    ),
    sig(
        "kernel_panic",
        r"Kernel panic - not syncing",
        ("panic",),
        S.CRITICAL,
        "kernel",
        "The kernel panicked: it stopped and the machine hung or rebooted.",
        "The panic reason and the lines before it name the cause; keep the pstore/kdump.",
        95,
    ),
    # kernel/workqueue.c: any other work item that hogs a CPU
    sig(
        "workqueue_hog",
        r"workqueue: \S+(?! \[amdgpu\]) hogged CPU for",
        ("hogged",),
        S.WARNING,
        "kernel",
        "A work item ran long on a CPU (a performance hint).",
        "Usually noise; compare with healthy boots.",
        86,
        routine=True,
        check=lambda m, i: "[amdgpu]" not in i.text,
    ),
)

MEMORY_SIGNATURES: tuple[Signature, ...] = (
    # mm/page_alloc.c warn_alloc: "%s: page allocation failure: order:%u, mode:%#x(%pGg)"
    sig(
        "page_allocation_failure",
        r"page allocation failure: order:\d+",
        ("allocation",),
        S.WARNING,
        "memory",
        "A kernel memory allocation failed (fragmented or exhausted memory).",
        "High orders under load are often harmless; many of them before a hang mean memory "
        "exhaustion.",
        61,
        routine=True,
    ),
    # mm/oom_kill.c: "Out of memory: Killed process %d (%s)", memcg: "Memory cgroup out of memory"
    sig(
        "oom_kill",
        r"(?:Memory cgroup )?[Oo]ut of memory: Killed process \d+ \((?P<comm>[^)]*)\)",
        ("Killed",),
        S.ERROR,
        "memory",
        "The kernel OOM killer killed a process to free memory.",
        "Find who held memory (GPU-pinned memory is invisible in RSS on unified-memory "
        "machines); limit services (MemoryMax=) or model sizes.",
        60,
    ),
    sig(
        "oomd_kill",
        r"Killed (?P<cg>\S+) due to memory (?:pressure|used)",
        ("Killed",),
        S.ERROR,
        "memory",
        "systemd-oomd killed a cgroup under memory pressure.",
        "The named unit used too much memory for too long; limit it or raise the oomd thresholds.",
        64,
        idents=("systemd-oomd",),
    ),
)

HARDWARE_SIGNATURES: tuple[Signature, ...] = (
    # arch/x86/kernel/cpu/mce/core.c: "mce: [Hardware Error]: CPU %d: Machine Check..."
    sig(
        "mce",
        r"\[Hardware Error\]: (?:CPU \d+: Machine Check|Machine check: |PROCESSOR|"
        r"RIP|TSC|Run the above)|Machine check events logged|Fatal [Mm]achine check",
        ("Hardware", "Machine", "machine"),
        S.CRITICAL,
        "hardware",
        "The CPU reported a machine-check (hardware) error.",
        "Decode with rasdaemon/mcelog: bank and address name the CPU, cache or DIMM.",
        10,
        check=lambda m, i: not ("events logged" in i.text and _early(m, i)),
    ),
    sig(
        "mce_logged_at_boot",
        r"Machine check events logged",
        ("Machine",),
        S.INFO,
        "hardware",
        "At boot the CPU reported machine-check errors, usually from the previous boot's end.",
        "Decode with rasdaemon/mcelog (ras-mc-ctl --errors).",
        100,
        check=_early,
    ),
    # drivers/edac/edac_mc.c: "EDAC MC%d: %d CE|UE ..."
    sig(
        "edac",
        r"EDAC (?:MC\d+|\w+ MC\d+): \d+ (?:CE|UE)\b|EDAC .*(?:Uncorrected|Corrected) "
        r"error",
        ("EDAC",),
        S.ERROR,
        "hardware",
        "The memory controller reported ECC errors.",
        "Find the DIMM in the message (or ras-mc-ctl --errors); replace it if errors are "
        "uncorrected or growing.",
        12,
    ),
    # drivers/pci/pcie/aer.c: "AER: %s error message received from %s" and
    # "PCIe Bus Error: severity=%s, type=%s, (%s)"
    sig(
        "aer_fatal",
        r"(?:PCIe Bus Error: severity=)?Uncorrect(?:ed|able) \(Fatal\)",
        ("Fatal",),
        S.CRITICAL,
        "pcie",
        "A PCIe device or link reported an uncorrectable fatal error.",
        "Check the slot, riser, cabling and power of the device named; disable ASPM "
        "(pcie_aspm=off) if it coincides with link power changes.",
        16,
        device_kind=_PCI,
    ),
    sig(
        "aer_nonfatal",
        r"Uncorrect(?:ed|able) \(Non-Fatal\)",
        ("Fatal",),
        S.ERROR,
        "pcie",
        "A PCIe transaction failed (uncorrectable, non-fatal).",
        "Check the device and slot; repeated errors precede link failures.",
        18,
        device_kind=_PCI,
    ),
    sig(
        "aer_corrected",
        r"PCIe Bus Error: severity=Correct(?:ed|able)|AER: (?:Multiple )?"
        r"Correct(?:ed|able) error (?:message )?received",
        ("Corrected", "Correctable"),
        S.WARNING,
        "pcie",
        "PCIe link errors were corrected by retransmission.",
        "Noise at low rates; a burst means a marginal link (riser, slot, signal): reseat or "
        "lower the link speed.",
        17,
        device_kind=_PCI,
        routine=True,
    ),
    # drivers/pci/hotplug/pciehp_ctrl.c "Slot(%s): Link Down"; pcie/dpc.c "DPC: containment event"
    sig(
        "pcie_link_down",
        r"Slot\([^)]*\): Link Down|pciehp.*Link Down|DPC: containment event"
        r"|Link Down\b|link down\b.*(?:pcie|PCIe)",
        ("Down", "down", "DPC"),
        S.CRITICAL,
        "pcie",
        "A PCIe link went down: the device behind it is gone.",
        "Check power, riser and seating of the device behind that port.",
        20,
        device_kind=_PCI,
        check=lambda m, i: not re.search(r"\beth\d|\ben\w+: |\bwl", i.text),
    ),
    sig(
        "iommu_fault",
        r"IO_PAGE_FAULT|DMAR: \[DMA (?:Read|Write)|DMAR: DRHD: handling fault"
        r"|arm-smmu\S* \S+: (?:event 0x|Unhandled context fault)|iommu fault",
        ("IO_PAGE_FAULT", "DMAR", "smmu", "fault"),
        S.ERROR,
        "iommu",
        "A device did DMA to an address the IOMMU did not map.",
        "Driver/firmware bug or IOMMU mode trouble; try iommu=pt to confirm, update firmware.",
        22,
        device_kind=_PCI,
    ),
    # arch/x86/kernel/cpu/mce/therm_throt.c:
    # "CPU%d: %s temperature above threshold, cpu clock throttled"
    sig(
        "thermal_throttle",
        r"temperature above threshold, cpu clock throttled"
        r"|clock throttled|[Tt]hermal throttl",
        ("throttled", "throttling", "throttle"),
        S.WARNING,
        "thermal",
        "A CPU got hot enough to be slowed down.",
        "Routine under load in warm rooms; check fans and airflow if frequent.",
        13,
        device_kind=_CPU,
        routine=True,
    ),
    sig(
        "thermal_critical",
        r"critical temperature reached|[Cc]ritical temperature"
        r"|over temperature range\((?:SW|HW) CTF\)|THERMTRIP|thermal shutdown",
        ("critical", "Critical", "CTF", "THERMTRIP", "shutdown"),
        S.CRITICAL,
        "thermal",
        "A device reached its critical temperature: the system shuts down to protect it.",
        "Check fans, heatsinks, airflow and room temperature before powering on again.",
        14,
        device_kind=_PCI,
    ),
)

STORAGE_SIGNATURES: tuple[Signature, ...] = (
    # drivers/nvme/host/pci.c nvme_timeout: "I/O %d QID %d timeout, aborting|reset controller"
    sig(
        "nvme_timeout",
        r"nvme\d*: I/O (?:tag )?\d+ \(?\S*\)? ?QID \d+ timeout|I/O \d+ QID \d+ "
        r"timeout|controller is down; will reset",
        ("timeout", "down"),
        S.ERROR,
        "storage",
        "An NVMe command timed out.",
        "Check the drive's SMART log (nvme smart-log), firmware and APST "
        "(nvme_core.default_ps_max_latency_us=0).",
        50,
        device_kind=_DISK,
    ),
    sig(
        "nvme_reset",
        r"nvme\d*: (?:resetting controller|Removing after probe failure|Device "
        r"not ready; aborting reset)",
        ("resetting", "Removing", "ready"),
        S.ERROR,
        "storage",
        "An NVMe controller was reset or removed.",
        "As for NVMe timeouts; removal means the drive is gone for this boot.",
        52,
        device_kind=_DISK,
    ),
    # block/blk-core.c: "I/O error, dev %s, sector %llu op 0x%x:(%s)"
    sig(
        "disk_io_error",
        r"I/O error, dev (?P<disk>\S+?),|Buffer I/O error on dev|"
        r"failed command: (?:READ|WRITE)|\] tag#\d+ FAILED Result",
        ("error", "failed", "FAILED"),
        S.ERROR,
        "storage",
        "A block device failed a read or write.",
        "Check SMART, cables and the filesystem on that device.",
        54,
        device_kind=_DISK,
    ),
    sig(
        "fs_error",
        r"(?:EXT4-fs|BTRFS|F2FS-fs) (?:error|critical)|XFS \(\S+\): (?:Corruption"
        r"|Metadata corruption|log I/O error|Filesystem has been shut down)|Remounting "
        r"filesystem read-only",
        ("error", "critical", "Corruption", "corruption", "Remounting", "shut"),
        S.ERROR,
        "fs",
        "A filesystem found corruption or an I/O failure.",
        "Run fsck/scrub from a rescue system; check the disk below it.",
        56,
        device_kind=_FS,
    ),
)

LIFECYCLE_SIGNATURES: tuple[Signature, ...] = (
    # kernel/reboot.c: "reboot: Restarting system", "reboot: Power down", "reboot: System halted"
    sig(
        "clean_shutdown_marker",
        r"^reboot: (?:Restarting system|Power down|System halted)",
        ("reboot",),
        S.INFO,
        "lifecycle",
        "The kernel began an orderly reboot or power-off.",
        "None: the boot ended on purpose.",
        100,
    ),
    sig(
        "clean_shutdown_marker",
        # anchored: systemd also logs command lines that merely mention these words
        r"^(?:Reached target (?:\S+\.target - )?(?:System )?(?:Power-?Off|Power Off|Poweroff|"
        r"Reboot|Halt|Shutdown|Final Step|Kexec|Late Shutdown Services)|Journal stopped$|"
        r"Syncing filesystems and block devices|Sending SIGTERM to remaining processes|"
        r"All filesystems unmounted|(?:Powering off|Rebooting|Halting)\.$|"
        r"System is (?:rebooting|powering down|halting))",
        (
            "Reached",
            "stopped",
            "Syncing",
            "SIGTERM",
            "unmounted",
            "Powering",
            "Rebooting",
            "Halting",
            "System",
        ),
        S.INFO,
        "lifecycle",
        "systemd ran the shutdown sequence.",
        "None: the boot ended on purpose.",
        100,
        idents=("systemd", "systemd-shutdown", "systemd-journald", "systemd-logind"),
    ),
    # arch/x86/kernel/cpu/amd.c (6.16+): "x86/amd: Previous system reset reason [0x%08x]: %s"
    sig(
        "reset_reason",
        r"Previous system reset reason \[0x(?P<bits>[0-9a-fA-F]{8})\]",
        ("reason",),
        S.INFO,
        "lifecycle",
        "The CPU's reset status register says how the previous boot ended.",
        "Read the decoded reason in the verdict.",
        100,
    ),
    # systemd journal-file.c: "File %s corrupted or uncleanly shut down, renaming and replacing."
    sig(
        "journal_unclean",
        r"corrupted or uncleanly shut down|uncleanly shut down, renaming",
        ("uncleanly",),
        S.INFO,
        "lifecycle",
        "journald found a journal file left open: the previous boot did not shut down cleanly.",
        "Look at the previous boot's last lines for the cause.",
        100,
        idents=("systemd-journald",),
    ),
    sig(
        "fs_recovery",
        r"EXT4-fs \(\S+\): (?:recovery complete|orphan cleanup|INFO: recovery "
        r"required)|XFS \(\S+\): (?:Starting|Ending) recovery|recovering journal"
        r"|BTRFS info \(device \S+\): .*log replay|clean-up .*orphan",
        ("recovery", "orphan", "recovering", "replay"),
        S.INFO,
        "lifecycle",
        "A filesystem replayed its journal at mount: the previous boot ended without unmounting.",
        "None by itself; the previous boot ended abruptly.",
        100,
        device_kind=_FS,
        idents=("kernel", "systemd-fsck"),
    ),
)

SYSTEM_SIGNATURES = (
    CPU_SIGNATURES
    + MEMORY_SIGNATURES
    + HARDWARE_SIGNATURES
    + STORAGE_SIGNATURES
    + LIFECYCLE_SIGNATURES
)
