"""Platform traps and reports that no driver prints: x86's split-lock trap, s390's PCI events.

A split lock (an atomic operation across two cache lines) locks the bus; CPUs with split-lock
detection (Intel Ice Lake/Tremont and later, split_lock_detect=warn, the default) trap it with
#AC, warn once per task, and with sysctl split_lock_mitigate (6.2+) make the task sleep 10 ms
and serialise it on one core, so a VM's vCPU thread or a game that splits locks in a loop
crawls. The boot's state line ("#AC: crashing the kernel on kernel split_locks and warning on
user-space split_locks") is configuration, not an event: it tags nothing.

On IBM Z the platform firmware, not a PCIe AER port, reports a PCI function's error to the
kernel (a CCDF error event, arch/s390/pci/pci_event.c); the kernel then runs the driver's PCI
error handlers (frozen channel, slot reset), as AER does on other machines.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

PLATFORM_SIGNATURES: tuple[Signature, ...] = (
    # arch/x86/kernel/cpu/intel.c split_lock_warn (5.7-6.13; bus_lock.c 6.14+), pr_fmt
    # "x86/split lock detection: ": pr_warn_ratelimited "#AC: %s/%d took a split_lock trap at
    # address: 0x%lx"; handle_guest_split_lock (5.10+) pr_warn_once "#AC: %s/%d %s split_lock
    # trap at address: 0x%lx" ("fatal" or "bogus": KVM's guest gets SIGBUS); handle_bus_lock
    # (5.13+) "#DB: %s/%d took a bus_lock trap at address: 0x%lx" (bus-lock detection, AMD
    # and later Intel). Warning: the task runs on, slowed
    sig(
        "split_lock_trap",
        r"^(?:x86/split lock detection: )?#(?:AC|DB): .{1,40}/\d+ (?:took a|fatal|bogus) "
        r"(?:split|bus)_lock trap at address: 0x[0-9a-f]+",
        ("split_lock", "bus_lock"),
        Severity.WARNING,
        "cpu",
        "A task took a split-lock (or bus-lock) trap: an atomic operation across two cache "
        "lines locked the bus; the kernel slows the task down (10 ms sleeps, one core at a "
        "time) and a VM's vCPU thread doing it can stall its guest.",
        "Name the task (a KVM vCPU thread means the guest does it); update that program or "
        "guest, or boot the host with split_lock_detect=off (or sysctl "
        "kernel.split_lock_mitigate=0) if the slowdown hurts.",
        70,
        device_kind=DeviceKind.NONE,
        formats=(
            Format(
                "#AC: %s/%d took a split_lock trap at address: 0x%lx",
                "arch/x86/kernel/cpu/intel.c",
                "5.7-6.12",
                "x86/split lock detection: ",
                args=("CPU 1/KVM", 3302738, 0xBFF4B050),
            ),
            Format(
                "#AC: %s/%d took a split_lock trap at address: 0x%lx",
                "arch/x86/kernel/cpu/bus_lock.c",
                "6.18",
                "x86/split lock detection: ",
                args=("game.exe", 4242, 0x140001000),
            ),
            Format(
                "#AC: %s/%d %s split_lock trap at address: 0x%lx",
                "arch/x86/kernel/cpu/intel.c",
                "5.10-6.12",
                "x86/split lock detection: ",
                args=("CPU 0/KVM", 4242, "fatal", 0xFFFFF80012345678),
            ),
            Format(
                "#DB: %s/%d took a bus_lock trap at address: 0x%lx",
                "arch/x86/kernel/cpu/intel.c",
                "5.13-6.12",
                "x86/split lock detection: ",
                args=("bench", 4242, 0x401136),
            ),
        ),
    ),
    # arch/s390/pci/pci_event.c __zpci_event_error (3.8-6.18; __zpci_event_print_error 6.x)
    # pr_err "%s: Event 0x%x reports an error for PCI function 0x%x" (pr_fmt "zPCI: " in
    # 3.x, "zpci: " from 4.4); zpci_event_attempt_error_recovery's failures (5.16+): "%s:
    # Automatic recovery failed after initial reporting", "… after MMIO re-enable", "… after
    # slot reset", "%s: Automatic recovery failed; operator intervention is required", "%s:
    # The reset request failed", "%s: Unblocking device access failed", "%s: Unblocking DMA
    # failed". Its recovery steps ("Initiating reset", "The device is ready to resume
    # operations") are not events. Ranked as AER's non-fatal error: upstream of the driver
    # (the NVMe controller reset its error handler makes follows from it)
    sig(
        "zpci_error_event",
        r"^z(?:pci|PCI): \S+: (?:Event 0x[0-9a-f]+ reports an error for PCI function 0x"
        r"|Automatic recovery failed\b|The reset request failed|Unblocking (?:device access"
        r"|DMA) failed)",
        ("zpci", "zPCI"),
        Severity.ERROR,
        "pcie",
        "The IBM Z platform reported an error on a PCI function (a CCDF error event): the "
        "device's channel is frozen and the kernel runs its driver's PCI error recovery.",
        "Check the function's state (lspci, /sys/bus/pci/devices/*/), the firmware's event "
        "log (the SE/HMC), and whether the recovery that follows completed; a recurring "
        "event means the adapter is failing.",
        18,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "%s: Event 0x%x reports an error for PCI function 0x%x",
                "arch/s390/pci/pci_event.c",
                "4.4-6.18",
                "zpci: ",
                args=("000e:00:00.0", 0x3A, 0x1004),
            ),
            Format(
                "%s: Automatic recovery failed; operator intervention is required",
                "arch/s390/pci/pci_event.c",
                "5.16-6.18",
                "zpci: ",
                args=("0001:00:00.0",),
            ),
            Format(
                "%s: Automatic recovery failed after slot reset",
                "arch/s390/pci/pci_event.c",
                "5.16-6.18",
                "zpci: ",
                args=("0001:00:00.0",),
            ),
            Format(
                "%s: The reset request failed",
                "arch/s390/pci/pci_event.c",
                "5.16-6.18",
                "zpci: ",
                args=("0001:00:00.0",),
            ),
        ),
    ),
)
