"""IOMMU wordings from the source sweep of drivers/iommu: the IOMMU's own hardware failing
(its command queue or invalidations timing out, its tables unreadable), and AMD-Vi's invalid
device table entry added to iommu_fault, and VFIO refusing a device for want of interrupt
remapping.

The IOMMU's failures differ from its page faults (iommu_fault): a fault is one device's bad
DMA; a command or invalidation timeout is the IOMMU itself no longer answering, and every CPU
that maps or unmaps DMA then spins waiting for it (drivers/iommu/amd/iommu.c wait_on_sem,
intel/dmar.c qi_submit_sync, arm-smmu-v3.c arm_smmu_cmdq_poll_until_sync), so lockups,
stalls and hung tasks follow (kmsgd/judge/chains.py).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

IOMMU = "iommu"

IOMMU_SWEEP_SIGNATURES: tuple[Signature, ...] = (
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
    # dev_warn "unexpected global error reported (0x%08x), this could be serious"; arm-smmu.c
    # (drivers/iommu/arm-smmu.c before 5.9) arm_smmu_global_fault "Unexpected global fault,
    # this could be serious" and __arm_smmu_tlb_sync "TLB sync timed out -- SMMU may be
    # deadlocked" (dev_err_ratelimited, 4.4-6.18)
    sig(
        "iommu_hardware_error",
        r"\bAMD-Vi: Completion-Wait loop timed out\b"
        r"|\b(?:DEV_TAB_HARDWARE_ERROR|PAGE_TAB_HARDWARE_ERROR|ILLEGAL_COMMAND_ERROR"
        r"|COMMAND_HARDWARE_ERROR|IOTLB_INV_TIMEOUT) (?:device|address)="
        r"|\bDMAR: (?:VT-d detected Invalidation (?:Time-out|Queue|Completion) Error\b"
        r"|Invalidation Time-out Error \(ITE\) cleared)"
        r"|\barm-smmu-v3 \S+: (?:CMD_SYNC timeout\b|CMDQ error \(cons 0x)"
        r"|\barm-smmu(?:-v3)? \S+: [Uu]nexpected global (?:error reported \(0x[0-9a-f]+\)|"
        r"fault), this could be serious"
        r"|\barm-smmu \S+: TLB sync timed out -- SMMU may be deadlocked",
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
            "deadlocked",
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
            Format(
                "TLB sync timed out -- SMMU may be deadlocked",
                "drivers/iommu/arm/arm-smmu/arm-smmu.c",
                "4.4-6.18",
                "arm-smmu 15000000.iommu: ",
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
    # drivers/vfio/vfio_iommu_type1.c vfio_iommu_type1_attach_group: pr_warn "%s: No interrupt
    # remapping support.  Use the module param \"allow_unsafe_interrupts\" to enable VFIO IOMMU
    # support on this platform" (4.4-6.18, with the function's name): the IOMMU offers no
    # interrupt remapping, so VFIO refuses the device (EPERM) and the VM using it does not start
    sig(
        "vfio_no_interrupt_remapping",
        r"\bNo interrupt remapping support\. +Use the module param \"allow_unsafe_interrupts\"",
        ("allow_unsafe_interrupts",),
        Severity.ERROR,
        "virt",
        "VFIO refused a device for a VM because the IOMMU offers no interrupt remapping: the "
        "virtual machine it was passed to does not start.",
        "Enable interrupt remapping (VT-d/AMD-Vi and x2APIC in the firmware, intremap=on), or, "
        "knowing the risk, load vfio_iommu_type1 with allow_unsafe_interrupts=1.",
        50,
        formats=(
            Format(
                "%s: No interrupt remapping support.  Use the module param "
                '"allow_unsafe_interrupts" to enable VFIO IOMMU support on this platform',
                "drivers/vfio/vfio_iommu_type1.c",
                "4.4-6.18",
                args=("vfio_iommu_type1_attach_group",),
            ),
        ),
    ),
)
