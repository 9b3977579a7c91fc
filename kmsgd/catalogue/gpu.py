"""GPU signatures: amdgpu (drivers/gpu/drm/amd) and the NVIDIA driver (NVRM).

The amdgpu chain of docs/incidents.md reads SMU → MES → KFD → ring timeout → GPU reset; ranks
put the power-management firmware (SMU) first because every later step waits on it.
NVIDIA prints Xids as `NVRM: Xid (PCI:0000:3d:00): 79, pid=…, GPU has fallen off the bus.`
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, MatchInput, Severity, Signature, Trigger, sig
from kmsgd.catalogue.xid import XID_TRIGGERS, xid_meaning

_PCI = DeviceKind.PCI


def _amdgpu_line(m: object, i: MatchInput) -> bool:
    # the driver names itself ("amdgpu 0000:03:00.0:", "[drm:amdgpu_…]"); FreeBSD's port
    # (drm-kmod) names the device "drmn0:" and prints "[drm ERROR :fn]"
    return "amdgpu" in i.text or "[drm" in i.text or "drmn" in i.text


AMDGPU = "gpu.amdgpu"
NVIDIA = "gpu.nvidia"

GPU_SIGNATURES: tuple[Signature, ...] = (
    # amdgpu/pm/swsmu/smu_cmn.c: "SMU: No response msg_reg: %x resp_reg: %x",
    # "SMU: I'm not done with your previous command"; smu_v13: "Failed to export SMU metrics table!"
    # by era: 4.x–5.x powerplay (hwmgr/smu7_smumgr.c, vega10_smumgr.c): "[powerplay] … failed
    # to send message %x ret is %d", "SMC failed to respond"; 5.x swsmu (smu_v11_0.c):
    # "failed send message: %10s (%d) \tparam: 0x%08x response %#x", "SMU is in hanged
    # state, failed to send smu message!" (smu_cmn.c 5.15+)
    sig(
        "amdgpu_smu_timeout",
        r"SMU: (?:No response|I'm not done with your (?:previous|current) command|response:0x)"
        r"|Failed to export SMU metrics table|SMU (?:is )?(?:not responding|hang)"
        r"|SMU is in hanged state|smu_cmn_send_smc_msg\S* failed"
        r"|\[powerplay\].*(?:failed to send message|last message was failed|No response)"
        r"|SMC failed to respond",
        ("SMU", "failed", "SMC", "powerplay"),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's power-management firmware (SMU) stopped answering the driver.",
        "Treat as a GPU/firmware hang: check PCIe power and ASPM (pcie_aspm=off), IOMMU mode "
        "(iommu=pt), a second GPU driver on the box, then amdgpu firmware/kernel versions.",
        30,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
    ),
    # amdgpu_mes.c, mes_v11_0.c: "MES failed to respond to msg=%s" (6.6+), "MES failed to
    # response msg=%d" (6.1–6.5), "MES might be in unrecoverable state"
    sig(
        "amdgpu_mes_timeout",
        r"MES failed to respon(?:d to|se) msg|MES might be in unrecoverable state"
        r"|failed to (?:unmap legacy queue|remove hardware queue|add hardware queue)",
        ("MES", "failed"),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's micro-engine scheduler (MES) firmware stopped answering queue requests.",
        "Usually follows an SMU or PCIe problem; check those first, then MES firmware version.",
        32,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
    ),
    # gmc_v9_0.c: "[%s] %s page fault (src_id:%u ring:%u vmid:%u pasid:%u…)" with "retry"/
    # "no-retry" (5.x+), "[%s] VMC page fault" / "UTCL2 page fault" (4.14–4.19); gmc_v7/v8
    # (4.2+, also radeon cik/si): "GPU fault detected: %d 0x%08x", "VM_CONTEXT1_PROTECTION_
    # FAULT_ADDR"
    sig(
        "amdgpu_vm_fault",
        r"\[(?:gfx|mm)hub\d*\] (?:VMC |UTCL2 )?(?:retry |no-retry )?page fault"
        r"|VM_L2_PROTECTION_FAULT_STATUS|GPU fault detected: \d+ 0x"
        r"|VM_CONTEXT1_PROTECTION_FAULT_(?:ADDR|STATUS)",
        (
            "fault",
            "VM_L2_PROTECTION_FAULT_STATUS",
            "GCVM_L2_PROTECTION_FAULT_STATUS",
            "MMVM_L2_PROTECTION_FAULT_STATUS",
            "VM_CONTEXT1_PROTECTION_FAULT_ADDR",
            "VM_CONTEXT1_PROTECTION_FAULT_STATUS",
        ),
        Severity.ERROR,
        AMDGPU,
        "A GPU program touched GPU memory it had no mapping for (GPU page fault).",
        "Usually an application or ROCm bug: note the process in the following lines and "
        "update ROCm/the application; repeated faults before a hang point at that process.",
        34,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang", burst=10, window_s=10.0),
    ),
    # amdgpu_amdkfd.c / kfd_device.c: "Failed to quiesce KFD", "Failed to evict queue"
    sig(
        "amdgpu_kfd_error",
        r"Failed to (?:quiesce KFD|evict (?:queue|process)|suspend process|restore process)"
        r"|kfd kfd: amdgpu: .*(?:fail|error)|amdgpu: Failed to (?:resume|evict) KFD",
        ("KFD", "Failed", "failed", "error"),
        Severity.ERROR,
        AMDGPU,
        "The compute (KFD/ROCm) side could not stop or evict its queues.",
        "A consequence of a GPU firmware hang more often than a cause; look at earlier "
        "SMU/MES lines.",
        36,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
    ),
    # amdgpu_job.c amdgpu_job_timedout: "ring %s timeout, signaled seq=%u, emitted seq=%u"
    # (4.x–today; 6.x prints it through dev_err, older through DRM_ERROR with the
    # "[drm:amdgpu_job_timedout [amdgpu]] *ERROR*" prefix, which also heads its "Process
    # information" line, so a cut that lost the first line still shows the timeout)
    sig(
        "amdgpu_ring_timeout",
        r"ring \S+ timeout(?:, signaled seq|\b)|\[drm:amdgpu_job_timedout \[amdgpu\]\]"
        r"|\[drm ERROR :amdgpu_job_timedout\]",
        ("timeout", "amdgpu_job_timedout"),
        Severity.CRITICAL,
        AMDGPU,
        "A GPU command ring (gfx, compute, sdma) stopped completing jobs: the GPU hung.",
        "Find what hung it: earlier SMU/MES/page-fault lines; otherwise the workload "
        "(process named in the following lines).",
        38,
        device_kind=_PCI,
        check=_amdgpu_line,
        trigger=Trigger("gpu_hang"),
    ),
    sig(
        "amdgpu_gpu_reset",
        r"GPU reset begin|GPU reset\(\d+\) (?:succeeded|failed)|GPU reset (?:succeeded|failed)"
        r"|GPU recovery disabled|(?:MODE1|MODE2|BACO) reset|ASIC reset failed"
        r"|GPU Recovery Failed",
        ("reset", "recovery", "Recovery"),
        Severity.CRITICAL,
        AMDGPU,
        "The driver reset the GPU to recover from a hang.",
        "A reset is the end of a chain, not its cause: read the lines before it. A reset "
        "that takes the machine down points at PCIe/power, not the application.",
        40,
        device_kind=_PCI,
        check=_amdgpu_line,
        trigger=Trigger("gpu_hang"),
    ),
    sig(
        "amdgpu_init_failure",
        r"amdgpu_device_ip_init failed|Fatal error during GPU init"
        r"|(?:sw_init|hw_init|late_init) of IP block <\S+> failed"
        r"|amdgpu: probe of \S+ failed with error|amdgpu_device_init failed"
        r"|Failed to setup smc hw|smu_hw_init failed|hw_init of IP block <\S+> failed",
        ("failed", "Fatal", "Failed"),
        Severity.ERROR,
        AMDGPU,
        "The GPU failed to initialise: it will be missing for this boot.",
        "Check firmware (linux-firmware) matches the kernel, PCIe seating and power; compare "
        "with the previous boot's inventory.",
        42,
        device_kind=_PCI,
        check=_amdgpu_line,
    ),
    # kernel/workqueue.c wq_cpu_intensive_report: "%s hogged CPU for >%luus %llu times, ..."
    sig(
        "amdgpu_workqueue_hog",
        r"workqueue: \S+ \[amdgpu\] hogged CPU for",
        ("hogged",),
        Severity.WARNING,
        AMDGPU,
        "An amdgpu work item ran long on a CPU (a performance hint, not a failure).",
        "Usually noise under heavy GPU memory traffic (a healthy 7-hour boot can show more of it "
        "than a frozen one); compare with healthy boots before suspecting it.",
        85,
        device_kind=DeviceKind.NONE,
        routine=True,
    ),
    # open-gpu-kernel-modules kernel_gsp.c (525+): "_kgspLogXid119: ********* GSP Timeout
    # *********", "Timeout after %llus of waiting for RPC response from GPU%d GSP!"; the
    # GSP-RM's own task watchdog (libos, 550+): "GSP task watchdog timeout @ pc:0x…" printed
    # without the NVRM: prefix
    sig(
        "nvidia_gsp_timeout",
        r"GSP (?:RPC )?[Tt]imeout|waiting for RPC response from GPU\d* GSP|_kgspLogXid119"
        r"|GSP task watchdog timeout",
        ("GSP", "_kgspLogXid119"),
        Severity.CRITICAL,
        NVIDIA,
        "The GPU's System Processor (GSP firmware) stopped answering the driver (Xid 119/120).",
        "Update the driver; if it repeats, try NVreg_EnableGpuFirmware=0 on affected "
        "releases, then check PCIe and power.",
        30,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
    ),
    # NVIDIA: "NVRM: GPU %04x:%02x:%02x.%x: GPU has fallen off the bus." (all eras), and the
    # resource manager's status NV_ERR_GPU_IS_LOST (nvstatuscodes.h: "GPU lost from the bus",
    # printed by nvassert.c's "Check failed: %s (0x%08X) returned from …" as "GPU lost from
    # the bus [NV_ERR_GPU_IS_LOST]"); amdgpu (amdgpu_device.c amdgpu_device_rreg on a dead
    # link, 6.x): "device lost from bus!"
    sig(
        "gpu_fell_off_bus",
        r"GPU has fallen off the bus|fallen off the bus|amdgpu: device lost from bus"
        r"|GPU lost from the bus \[NV_ERR_GPU_IS_LOST\]",
        ("fallen", "lost", "NV_ERR_GPU_IS_LOST"),
        Severity.CRITICAL,
        "gpu",
        "The GPU stopped responding on PCIe: the system can no longer reach it.",
        "Check power cabling, PSU headroom and PCIe seating/risers; not a driver bug. "
        "A reboot is needed to get the GPU back.",
        31,
        device_kind=_PCI,
        check=lambda m, i: "Xid" not in i.text,
        trigger=Trigger("gpu_lost"),
    ),
    # nvidia.ko nv.c / os-interface: "NVRM: RmInitAdapter failed! (0x%x:0x%x:%d)" (all eras),
    # "NVRM: rm_init_adapter failed, device minor number %d", and from the probe (nv-pci.c):
    # "NVRM: The NVIDIA probe routine failed for %d device(s)." / "None of the NVIDIA devices
    # were initialized."; the VBIOS's boot (GFW) that GSP waits for: kernel_gsp_tu102.c
    # "failed to wait for GFW_BOOT: 0x%x (progress 0x%x)" (r535-r545), then
    # kern_gpu_tu102.c gpuWaitForGfwBootComplete_TU102 "failed to wait for GFW_BOOT:
    # (progress 0x%x)" and kgspWaitForGfwBootOk_TU102 "failed to wait for GFW boot complete:
    # 0x%x VBIOS version %s" (r550-r595), "GSP failed to halt with GFW_BOOT: (progress
    # 0x%x)" (r560-r595)
    sig(
        "nvidia_init_failure",
        r"RmInitAdapter failed|rm_init_adapter failed|The NVIDIA probe routine failed"
        r"|None of the NVIDIA devices were initialized"
        r"|failed to (?:wait for GFW_BOOT|halt with GFW_BOOT)|failed to wait for GFW boot complete",
        ("RmInitAdapter", "rm_init_adapter", "probe", "None", "GFW_BOOT", "GFW"),
        Severity.ERROR,
        NVIDIA,
        "The NVIDIA driver could not initialise a GPU: it is unusable for this boot.",
        "Check that the GPU is powered and seated, the driver matches the kernel, and no "
        "other driver (nouveau, vfio) holds it; the lines before name the failing step.",
        43,
        device_kind=_PCI,
        check=lambda m, i: "NVRM" in i.text,
    ),
    sig(
        "nvidia_xid",
        r"NVRM: Xid \((?:PCI:)?[0-9a-fA-F:.]+\): (?P<xid>\d+)\b",
        ("Xid",),
        Severity.ERROR,
        NVIDIA,
        "NVIDIA driver error (Xid); meaning per code.",
        "See the Xid's own next step.",
        33,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang", codes=XID_TRIGGERS),
    ),
)

# A GPU lost from the bus (kmsgd/judge/chains.py relates it to the GPU errors around it):
# A GPU gone from the bus answers no register read (each returns all-ones: the SMU's
# "response:0xFFFFFFFF", "Failed to export SMU metrics table!"), so what the driver logs
# around the loss is its consequence; and the GPU stays gone until the next boot (NVIDIA's
# Xid catalog, Xid 79: "GPU has fallen off the bus", action: reboot the node), so its loss
# is part of the boot's final state however long before the end it was printed.
DEVICE_LOSS_TAGS = frozenset({"gpu_fell_off_bus", "nvidia_xid_79"})


def xid_details(tag: str) -> tuple[str, str, Severity] | None:
    """Meaning, next step and severity of an `nvidia_xid_<code>` tag."""
    if not tag.startswith("nvidia_xid_"):
        return None
    try:
        code = int(tag.rsplit("_", 1)[1])
    except ValueError:
        return None
    return xid_meaning(code)
