"""Hardware, bus and storage signatures: MCE, EDAC, PCIe AER, IOMMU, thermal, NVMe, disks,
filesystems. Each regex quotes the kernel's own format string (file named in the comment).
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import DeviceKind, MatchInput, Severity, Signature, Trigger, sig

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS
EARLY_US = 300_000_000  # "at boot": within the first five minutes of printk time


def _early(m: re.Match[str], i: MatchInput) -> bool:
    # without a printk stamp (journal short) "at boot" cannot be told: count it as runtime
    return i.ts_usec is not None and i.ts_usec < EARLY_US


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
        trigger=Trigger(
            "mce", narrow=r"Machine Check Exception|Fatal [Mm]achine check|[Uu]ncorrected"
        ),
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
        trigger=Trigger("pcie"),
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
        trigger=Trigger("pcie"),
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
        trigger=Trigger("thermal"),
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
        trigger=Trigger("storage"),
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
