"""Storage, USB and IOMMU wordings from the source sweep of the I/O drivers: the IOMMU's own
hardware failing (its command queue or invalidations timing out, its tables unreadable), and
wording added to the tags of other modules' families (a multipath LUN that lost its last
path, an md array that cannot start, a SATA disk libata gave up on, a USB host controller
halted by a host system error, the NVMe fabrics' command timeouts).

The IOMMU's failures differ from its page faults (iommu_fault): a fault is one device's bad
DMA; a command or invalidation timeout is the IOMMU itself no longer answering, and every CPU
that maps or unmaps DMA then spins waiting for it (drivers/iommu/amd/iommu.c wait_on_sem,
intel/dmar.c qi_submit_sync, arm-smmu-v3.c arm_smmu_cmdq_poll_until_sync), so lockups,
stalls and hung tasks follow (kmsgd/judge/chains.py).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

IOMMU = "iommu"
STORAGE = "storage"

IO_SWEEP_SIGNATURES: tuple[Signature, ...] = (
    # drivers/iommu/amd/iommu.c (amd_iommu.c before 5.9) wait_on_sem: pr_alert
    # "Completion-Wait loop timed out" (pr_fmt "AMD-Vi: " 4.20-6.18; the literal prefix
    # before); iommu_print_event: the IOMMU's own hardware errors, "Event logged [" then
    # DEV_TAB_HARDWARE_ERROR, PAGE_TAB_HARDWARE_ERROR, ILLEGAL_COMMAND_ERROR,
    # COMMAND_HARDWARE_ERROR, IOTLB_INV_TIMEOUT (one line from 5.19, the event name on its
    # own dev_err line 5.0-5.18, printk continuations 4.x); drivers/iommu/intel/dmar.c
    # qi_check_fault: pr_err "VT-d detected Invalidation Time-out Error: SID %llx" (and the
    # Queue and Completion errors, 5.16-6.18, pr_fmt "DMAR: "), pr_info "Invalidation
    # Time-out Error (ITE) cleared" (4.4-6.18); drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c
    # dev_err_ratelimited "CMD_SYNC timeout at 0x%08x [hwprod 0x%08x, hwcons 0x%08x]" (5.3-
    # 6.18; "CMD_SYNC timeout" 4.x-5.2), "CMDQ error (cons 0x%08x): %s", arm_smmu_gerror_handler
    # dev_warn "unexpected global error reported (0x%08x), this could be serious" and
    # arm-smmu.c arm_smmu_global_fault "Unexpected global fault, this could be serious"
    sig(
        "iommu_hardware_error",
        r"\bAMD-Vi: Completion-Wait loop timed out\b"
        r"|\b(?:DEV_TAB_HARDWARE_ERROR|PAGE_TAB_HARDWARE_ERROR|ILLEGAL_COMMAND_ERROR"
        r"|COMMAND_HARDWARE_ERROR|IOTLB_INV_TIMEOUT) (?:device|address)="
        r"|\bDMAR: (?:VT-d detected Invalidation (?:Time-out|Queue|Completion) Error\b"
        r"|Invalidation Time-out Error \(ITE\) cleared)"
        r"|\barm-smmu-v3 \S+: (?:CMD_SYNC timeout\b|CMDQ error \(cons 0x)"
        r"|\barm-smmu(?:-v3)? \S+: [Uu]nexpected global (?:error reported \(0x[0-9a-f]+\)|"
        r"fault), this could be serious",
        (
            "Completion",
            "DEV_TAB_HARDWARE_ERROR",
            "PAGE_TAB_HARDWARE_ERROR",
            "ILLEGAL_COMMAND_ERROR",
            "COMMAND_HARDWARE_ERROR",
            "IOTLB_INV_TIMEOUT",
            "Invalidation",
            "CMD_SYNC",
            "CMDQ",
            "serious",
        ),
        Severity.ERROR,
        IOMMU,
        "The IOMMU itself failed: its command queue or a TLB invalidation timed out, or it "
        "reported a hardware error in its tables or commands; every CPU that maps or unmaps "
        "DMA then waits on it, so devices stall and the box can lock up.",
        "Update the system firmware (BIOS/UEFI, SMMU/IOMMU microcode) and the kernel; check "
        "the device named by the invalidation that timed out (a device gone from the bus "
        "never answers ATS invalidations); as a workaround iommu=pt or disabling ATS.",
        21,
        formats=(
            Format(
                "Completion-Wait loop timed out",
                "drivers/iommu/amd/iommu.c",
                "4.20-6.18",
                "AMD-Vi: ",
            ),
            Format(
                "Event logged [IOTLB_INV_TIMEOUT device=%04x:%02x:%02x.%x address=0x%llx]",
                "drivers/iommu/amd/iommu.c",
                "5.19-6.18",
                "pci 0000:00:00.2: ",
                args=(0, 3, 0, 0, 0x42B5FF000),
            ),
            Format(
                "COMMAND_HARDWARE_ERROR address=0x%llx flags=0x%04x]",
                "drivers/iommu/amd/iommu.c",
                "5.0-5.18",
                "iommu ivhd0: ",
                args=(0, 0),
            ),
            Format(
                "VT-d detected Invalidation Time-out Error: SID %llx",
                "drivers/iommu/intel/dmar.c",
                "5.16-6.18",
                "DMAR: ",
                args=(0xFFFF,),
            ),
            Format(
                "Invalidation Time-out Error (ITE) cleared",
                "drivers/iommu/intel/dmar.c",
                "4.4-6.18",
                "DMAR: ",
            ),
            Format(
                "CMD_SYNC timeout at 0x%08x [hwprod 0x%08x, hwcons 0x%08x]",
                "drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c",
                "5.3-6.18",
                "arm-smmu-v3 arm-smmu-v3.0.auto: ",
                args=(0x105, 0x106, 0),
            ),
            Format(
                "CMDQ error (cons 0x%08x): %s",
                "drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c",
                "4.4-6.18",
                "arm-smmu-v3 arm-smmu-v3.0.auto: ",
                args=(0x01000104, "Illegal command"),
            ),
            Format(
                "unexpected global error reported (0x%08x), this could be serious",
                "drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c",
                "4.4-6.18",
                "arm-smmu-v3 arm-smmu-v3.0.auto: ",
                args=(1,),
            ),
            Format(
                "Unexpected global fault, this could be serious",
                "drivers/iommu/arm/arm-smmu/arm-smmu.c",
                "4.4-6.18",
                "arm-smmu 2b500000.iommu: ",
            ),
        ),
    ),
    # drivers/iommu/amd/iommu.c iommu_print_event: a device's DMA through a device table
    # entry the IOMMU finds invalid ("ILLEGAL_DEV_TABLE_ENTRY device=%02x:%02x.%x
    # address=0x%016llx flags=0x%04x]" 4.4-5.18, with the domain and pasid, on one "Event
    # logged [" line, 5.19-6.18): that device's DMA is refused, as a page fault's
    sig(
        "iommu_fault",
        r"\bILLEGAL_DEV_TABLE_ENTRY device=",
        ("ILLEGAL_DEV_TABLE_ENTRY",),
        Severity.ERROR,
        IOMMU,
        "A device did DMA through a device table entry the IOMMU found invalid: its DMA is "
        "refused.",
        "Driver/firmware bug or IOMMU mode trouble; try iommu=pt to confirm, update firmware.",
        22,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Event logged [ILLEGAL_DEV_TABLE_ENTRY device=%04x:%02x:%02x.%x pasid=0x%05x "
                "address=0x%016llx flags=0x%04x]",
                "drivers/iommu/amd/iommu.c",
                "5.19-6.18",
                "pci 0000:00:00.2: ",
                args=(0, 3, 0, 0, 0, 0xFFFFFFFDF8000000, 0x0A00),
            ),
            Format(
                "ILLEGAL_DEV_TABLE_ENTRY device=%02x:%02x.%x address=0x%016llx flags=0x%04x]",
                "drivers/iommu/amd_iommu.c",
                "4.4-4.19",
                "AMD-Vi: Event logged [",
                args=(3, 0, 0, 0xFFFFFFFDF8000000, 0x0A00),
            ),
        ),
    ),
    # drivers/md/dm-mpath.c queue_if_no_path_timeout_work: DMWARN "queue_if_no_path timeout
    # on %s, failing queued IO" (5.9-6.18): every path of the LUN stayed failed past
    # queue_if_no_path_timeout_secs, and the I/O queued for it is failed
    sig(
        "multipath_path_failure",
        r"device-mapper: multipath: queue_if_no_path timeout on \S+",
        ("queue_if_no_path",),
        Severity.ERROR,
        STORAGE,
        "Device-mapper multipath had no path left to a LUN past its queue_if_no_path "
        "timeout: the I/O queued for it fails.",
        "Check every path's transport (HBA links, iSCSI sessions, the array) and multipath "
        "-ll; the file systems on the LUN saw their writes fail.",
        55,
        formats=(
            Format(
                "queue_if_no_path timeout on %s, failing queued IO",
                "drivers/md/dm-mpath.c",
                "5.9-6.18",
                "device-mapper: multipath: ",
                args=("253:3",),
            ),
        ),
    ),
    # drivers/md/raid5.c raid5_run: "md/raid:%s: cannot start dirty degraded array." (printk
    # KERN_ERR 4.4-4.9, pr_crit 4.10-6.18): an array that was not shut down cleanly and lost
    # a member does not start (the box's root or data never mounts); drivers/md/md.c
    # analyze_sbs: pr_warn "md: kicking non-fresh %s from array!" (%s 4.4-5.19, %pg 6.0-6.18):
    # a member whose superblock is older than the others' is dropped at assembly, the array
    # runs degraded
    sig(
        "md_disk_failure",
        r"md/raid\d*:\S+: cannot start dirty degraded array\b|^md: kicking non-fresh \S+ from "
        r"array!",
        ("dirty", "fresh"),
        Severity.ERROR,
        STORAGE,
        "A software RAID (md) array would not start (it was not stopped cleanly and lost a "
        "member), or started without a member whose data was stale: it is down, or degraded.",
        "Check the missing or stale member (SMART, cables, the I/O errors before); start the "
        "array with mdadm --assemble --force / --run only after checking, then re-add the "
        "member.",
        55,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "md/raid:%s: cannot start dirty degraded array.",
                "drivers/md/raid5.c",
                "4.4-6.18",
                args=("md1",),
            ),
            Format(
                "md: kicking non-fresh %s from array!",
                "drivers/md/md.c",
                "4.4-5.19",
                args=("sdb1",),
            ),
        ),
    ),
    # drivers/ata/libata-eh.c ata_dev_disable: ata_dev_warn "disable device" (5.19-6.18;
    # "disabled" before, behind ata_msg_drv): libata gave up on a device after its errors
    # (failed revalidation, a reset that found nothing): the disk is gone until a rescan
    sig(
        "disk_io_error",
        r"^ata\d+\.\d+: disable device$",
        ("disable",),
        Severity.ERROR,
        STORAGE,
        "libata gave up on a SATA/PATA disk after its errors and disabled it: the disk is "
        "gone and its I/O fails.",
        "Check the disk (SMART), its cable and port; the errors before this line say why.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(Format("disable device", "drivers/ata/libata-eh.c", "5.19-6.18", "ata3.00: "),),
    ),
    # drivers/usb/host/xhci-ring.c xhci_irq: xhci_warn "WARNING: Host System Error" (4.4-6.18,
    # then xhci_halt: the controller stops), xhci_abort_cmd_ring: xhci_err "Abort failed to
    # stop command ring: %d" (4.10-6.18, then xhci_halt and xhci_hc_died)
    sig(
        "xhci_host_dead",
        r"\bxhci[-_]hcd \S+: (?:WARNING: Host System Error$|Abort failed to stop command ring:)",
        ("Host", "Abort"),
        Severity.ERROR,
        "usb",
        "The USB host controller (xHCI) reported a host system error or stopped answering its "
        "command ring and was halted: every USB device behind it is gone.",
        "Check the controller (firmware, IOMMU faults, PCIe errors near this line); rebind or "
        "reboot to recover it, and look for a BIOS/kernel update.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "WARNING: Host System Error",
                "drivers/usb/host/xhci-ring.c",
                "4.4-6.18",
                "xhci_hcd 0000:00:14.0: ",
            ),
            Format(
                "Abort failed to stop command ring: %d",
                "drivers/usb/host/xhci-ring.c",
                "4.10-6.18",
                "xhci_hcd 0000:00:14.0: ",
                args=(-110,),
            ),
        ),
    ),
    # drivers/nvme/host/tcp.c nvme_tcp_timeout: dev_warn "I/O tag %d (%04x) type %d opcode %#x
    # (%s) QID %d timeout" (6.5-6.18; "queue %d: timeout request %#x type %d" before, which
    # hardware.py's entry reads);
    # drivers/nvme/host/fc.c nvme_fc_timeout: dev_info "NVME-FC{%d.%d}: io timeout: opcode %d
    # fctype %d (%s) w10/11: x%08x/x%08x" (5.13-6.18)
    sig(
        "nvme_timeout",
        r"\bnvme\d+: I/O tag \d+ \([0-9a-f]+\) type \d+ opcode 0x[0-9a-f]+ \([^)]*\) QID \d+ "
        r"timeout\b"
        r"|\bNVME-FC\{\d+\.\d+\}: io timeout: opcode \d+",
        ("timeout",),
        Severity.ERROR,
        STORAGE,
        "An NVMe over Fabrics (TCP, FC) command timed out: the controller is reset or "
        "reconnected, and the I/O waits.",
        "Check the fabric (network, FC link) and the target; the reconnect lines after this "
        "say whether the controller came back.",
        50,
        formats=(
            Format(
                "I/O tag %d (%04x) type %d opcode %#x (%s) QID %d timeout",
                "drivers/nvme/host/tcp.c",
                "6.5-6.18",
                "nvme nvme0: ",
                args=(12, 0x100C, 4, 2, "Read", 3),
            ),
            Format(
                "NVME-FC{%d.%d}: io timeout: opcode %d fctype %d (%s) w10/11: x%08x/x%08x",
                "drivers/nvme/host/fc.c",
                "5.13-6.18",
                "nvme nvme1: ",
                args=(0, 3, 2, 0, "Read", 0, 0),
            ),
        ),
    ),
)
