"""GPU signatures: amdgpu (drivers/gpu/drm/amd) and the NVIDIA driver (NVRM).

The amdgpu chain of docs/incidents.md reads SMU → MES → KFD → ring timeout → GPU reset; ranks
put the power-management firmware (SMU) first because every later step waits on it.
NVIDIA prints Xids as `NVRM: Xid (PCI:0000:3d:00): 79, pid=…, GPU has fallen off the bus.`
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import (
    DeviceKind,
    Format,
    MatchInput,
    Severity,
    Signature,
    Trigger,
    sig,
)
from kmsgd.catalogue.xid import XID_TRIGGERS, xid_meaning

_PCI = DeviceKind.PCI


def _amdgpu_line(m: object, i: MatchInput) -> bool:
    # the driver names itself ("amdgpu 0000:03:00.0:", "[drm:amdgpu_…]"); FreeBSD's port
    # (drm-kmod) names the device "drmn0:" and prints "[drm ERROR :fn]"
    return "amdgpu" in i.text or "[drm" in i.text or "drmn" in i.text


AMDGPU = "gpu.amdgpu"
NVIDIA = "gpu.nvidia"

# What the printing macros put before an amdgpu message (representative device and function):
# dev_err/dev_info with amdgpu.h's dev_fmt "amdgpu: " (5.x+; 4.x has no "amdgpu: "), pr_err
# with pr_fmt "amdgpu: ", powerplay's pp_debug.h pr_fmt "amdgpu: [powerplay] ", and
# DRM_ERROR's "[drm:<function> [amdgpu]] *ERROR* " (include/drm/drm_print.h)
_DEV = "amdgpu 0000:03:00.0: amdgpu: "
_DEV4 = "amdgpu 0000:03:00.0: "
_PR = "amdgpu: "
_PP = "amdgpu: [powerplay] "
_KFD = "kfd kfd: amdgpu: "


def _drm(func: str) -> str:
    return f"[drm:{func} [amdgpu]] *ERROR* "


# NVIDIA: nv_printf's "NVRM: ", NV_DEV_PRINTF's "NVRM: GPU <domain:bus:dev.fn>: "
# (os-interface.h), NV_PRINTF's "NVRM: GPU<n> <function>: " (nvprintf.h, the function
# added by the debug printer)
_NV = "NVRM: "
_NV_DEV = "NVRM: GPU 0000:41:00.0: "


def _nv(func: str) -> str:
    return f"NVRM: GPU0 {func}: "


_NVK = "nvidia:kernel-open/nvidia/"
_NVRM = "nvidia:src/nvidia/"
_PM = "drivers/gpu/drm/amd/pm/"
_AMD = "drivers/gpu/drm/amd/amdgpu/"

GPU_SIGNATURES: tuple[Signature, ...] = (
    # amdgpu/pm/swsmu/smu_cmn.c: "SMU: No response msg_reg: %x resp_reg: %x",
    # "SMU: I'm not done with your previous command"; smu_v13: "Failed to export SMU metrics table!"
    # by era: 4.x–5.x powerplay (hwmgr/smu7_smumgr.c, vega10_smumgr.c): "[powerplay] … failed
    # to send message %x ret is %d", "SMC failed to respond"; 5.x swsmu (smu_v11_0.c):
    # "failed send message: %10s (%d) \tparam: 0x%08x response %#x", "SMU is in hanged
    # state, failed to send smu message!" (smu_cmn.c 5.15+); smu_cmn.c 5.10-5.14 "message: %15s
    # (%d) \tparam: 0x%08x is timeout (no response)"; smu9_smumgr.c (vega10_smumgr.c 4.15-4.18)
    # "Failed message: 0x%x, input parameter: 0x%x, error code: 0x%x" (error code 0xffffffff:
    # the GPU no longer answers register reads); smu7_hwmgr.c's PP_ASSERT_WITH_CODE after the
    # SMC refused the display-configuration message (4.x powerplay: "Failed to notify smc
    # display settings!", pr_warn with "amdgpu: [powerplay] ")
    sig(
        "amdgpu_smu_timeout",
        r"SMU: (?:No response|I'm not done with your (?:previous|current) command|response:0x)"
        r"|Failed to export SMU metrics table|SMU (?:is )?(?:not responding|hang)"
        r"|SMU is in hanged state|smu_cmn_send_smc_msg\S* failed"
        r"|\[powerplay\].*(?:failed to send message|last message was failed|No response)"
        r"|SMC failed to respond|failed to send message [0-9a-fA-F]+ ret is -?\d+"
        r"|last message was failed ret is -?\d+|failed send message: "
        r"|Failed to send message:? 0x[0-9a-fA-F]+, (?:ret value: |response )0x"
        r"|message: +\w+ \(\d+\)\s+param: 0x[0-9a-fA-F]+ is timeout \(no response\)"
        r"|Failed message: 0x[0-9a-fA-F]+, input parameter: 0x[0-9a-fA-F]+, error code: 0x"
        r"|\[powerplay\] Failed to notify smc display settings!",
        (
            "response",
            "your",
            "export",
            "responding",
            "hang",
            "hangs",
            "hanged",
            "hanging",
            "failed",
            "SMC",
            "powerplay",
            "Failed",
            "message",
            "timeout",
        ),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's power-management firmware (SMU) stopped answering the driver.",
        "Treat as a GPU/firmware hang: check PCIe power and ASPM (pcie_aspm=off), IOMMU mode "
        "(iommu=pt), a second GPU driver on the box, then amdgpu firmware/kernel versions.",
        30,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
        formats=(
            Format(
                "Failed to notify smc display settings!",
                _PM + "powerplay/hwmgr/smu7_hwmgr.c",
                "4.19",
                "amdgpu: [powerplay] ",
            ),
            Format(
                "SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x%08X "
                "SMN_C2PMSG_82:0x%08X",
                _PM + "swsmu/smu_cmn.c",
                "6.1-6.18",
                _DEV,
            ),
            Format(
                "SMU: I'm not done with your previous command!",
                _PM + "swsmu/smu_cmn.c",
                "5.15",
                _DEV,
            ),
            Format(
                "SMU: response:0x%08X for index:%d param:0x%08X message:%s?",
                _PM + "swsmu/smu_cmn.c",
                "5.15-6.18",
                _DEV,
                args=(0xFFFFFFFF, 27, 0, "GetMetricsTable"),
            ),
            Format(
                "SMU is in hanged state, failed to send smu message!",
                _PM + "swsmu/smu_cmn.c",
                "6.12-6.18",
                _DEV,
            ),
            Format(
                "Failed to export SMU metrics table!", _PM + "swsmu/smu_cmn.c", "5.15-6.18", _DEV
            ),
            # the leading "\n" ends the pr_fmt-prefixed record: the message is a line of its own
            Format(
                "\n failed to send message %x ret is %d \n",
                _PM + "powerplay/smumgr/smu7_smumgr.c",
                "4.19-6.18",
                _PP,
            ),
            Format(
                "\n last message was failed ret is %d\n",
                _PM + "powerplay/smumgr/smu7_smumgr.c",
                "4.19-6.18",
                _PP,
            ),
            Format(
                "failed to send message %x ret is %d \n",
                _PM + "powerplay/smumgr/smu7_smumgr.c",
                "4.19-6.18",
                _DEV,
            ),
            Format(
                "Failed to send message: 0x%x, ret value: 0x%x",
                _PM + "powerplay/smumgr/smu9_smumgr.c",
                "4.19-6.18",
                _DEV,
            ),
            Format(
                "Failed to send message 0x%x, response 0x%x",
                _PM + "powerplay/smumgr/vega20_smumgr.c",
                "5.4-6.18",
                _DEV,
            ),
            Format(
                "failed send message: %10s (%d) \tparam: 0x%08x response %#x",
                "drivers/gpu/drm/amd/powerplay/smu_v11_0.c",
                "5.4",
                _PR,
                args=("SetSoftMinByFreq", 31, 0x20000, 0),
            ),
            Format(
                "message: %15s (%d) \tparam: 0x%08x is timeout (no response)",
                _PM + "swsmu/smu_cmn.c",
                "5.10-5.14",
                _DEV,
                args=("EnableAllSmuFeatures", 6, 0),
            ),
            Format(
                "Failed message: 0x%x, input parameter: 0x%x, error code: 0x%x",
                _PM + "powerplay/smumgr/smu9_smumgr.c",
                "4.19-5.x",
                _PP,
                args=(5, 0x2000, 0xFFFFFFFF),
            ),
            Format(
                "Failed message: 0x%x, input parameter: 0x%x, error code: 0x%x",
                "drivers/gpu/drm/amd/powerplay/smumgr/vega10_smumgr.c",
                "4.15-4.18",
                _PP,
                args=(5, 0x2000, 0xFFFFFFFF),
            ),
        ),
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
        formats=(
            Format(
                "MES failed to respond to msg=%s",
                _AMD + "mes_v11_0.c",
                "6.12-6.18",
                _DEV,
                args=("REMOVE_QUEUE",),
            ),
            Format(
                "MES failed to response msg=%d", _AMD + "mes_v11_0.c", "6.1-6.8", _DEV, args=(3,)
            ),
            Format(
                "MES might be in unrecoverable state, issue a GPU reset",
                "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c",
                "6.1-6.18",
                _DEV,
            ),
            Format(
                "failed to unmap legacy queue",
                _AMD + "amdgpu_mes.c",
                "6.1-6.18",
                _drm("amdgpu_mes_unmap_legacy_queue"),
            ),
            Format(
                "failed to remove hardware queue, queue id = %d",
                _AMD + "amdgpu_mes.c",
                "6.1-6.12",
                _drm("amdgpu_mes_remove_hw_queue"),
            ),
        ),
    ),
    # gmc_v9_0.c: "[%s] %s page fault (src_id:%u ring:%u vmid:%u pasid:%u…)" with "retry"/
    # "no-retry" (5.x+), "[%s] VMC page fault" / "UTCL2 page fault" (4.14–4.19); gmc_v7/v8
    # (4.2+, also radeon cik/si): "GPU fault detected: %d 0x%08x", "VM_CONTEXT1_PROTECTION_
    # FAULT_ADDR"; the status register's decoded fields, one dev_err each, which a cut paste
    # may hold alone (gfxhub_v*/mmhub_v* *_print_l2_protection_fault_status, gmc_v9_0.c before
    # them: "\t MORE_FAULTS: 0x%lx", "\t WALKER_ERROR: 0x%lx", "\t PERMISSION_FAULTS: 0x%lx",
    # "\t MAPPING_ERROR: 0x%lx")
    sig(
        "amdgpu_vm_fault",
        r"\[(?:gfx|mm)hub\d*\] (?:VMC |UTCL2 )?(?:retry |no-retry )?page fault"
        r"|VM_L2_PROTECTION_FAULT_STATUS|GPU fault detected: \d+ 0x"
        r"|VM_CONTEXT1_PROTECTION_FAULT_(?:ADDR|STATUS)"
        r"|(?:^|: )\s*(?:WALKER_ERROR|PERMISSION_FAULTS|MAPPING_ERROR): 0x[0-9a-fA-F]+$",
        (
            "fault",
            "WALKER_ERROR",
            "PERMISSION_FAULTS",
            "MAPPING_ERROR",
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
        formats=(
            Format(
                "[%s] %s page fault (src_id:%u ring:%u vmid:%u pasid:%u)",
                _AMD + "gmc_v9_0.c",
                "4.19-6.18",
                _DEV,
                args=("gfxhub0", "retry"),
            ),
            Format(
                "GCVM_L2_PROTECTION_FAULT_STATUS:0x%08X", _AMD + "gfxhub_v2_1.c", "5.15-6.18", _DEV
            ),
            Format("VM_L2_PROTECTION_FAULT_STATUS:0x%08X", _AMD + "gmc_v9_0.c", "4.19-6.18", _DEV),
            Format(
                "GPU fault detected: %d 0x%08x",
                _AMD + "gmc_v8_0.c",
                "4.4-6.18",
                _DEV,
                args=(146, 0x00E80C0C),
            ),
            Format(
                "  VM_CONTEXT1_PROTECTION_FAULT_ADDR   0x%08X",
                _AMD + "gmc_v8_0.c",
                "4.4-6.18",
                _DEV,
            ),
            Format("\t WALKER_ERROR: 0x%lx", _AMD + "gfxhub_v1_0.c", "5.4-6.18", _DEV, args=(7,)),
            Format(
                "\t PERMISSION_FAULTS: 0x%lx", _AMD + "gfxhub_v2_1.c", "5.10-6.18", _DEV, args=(15,)
            ),
            Format("\t MAPPING_ERROR: 0x%lx", _AMD + "mmhub_v3_0.c", "6.1-6.18", _DEV, args=(1,)),
        ),
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
        formats=(
            Format("Failed to quiesce KFD", _AMD + "amdgpu_amdkfd_gpuvm.c", "4.19-6.18", _PR),
            Format(
                "Failed to evict queue %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c",
                "6.1-6.18",
                _KFD,
            ),
            Format(
                "Failed to evict process queues",
                "drivers/gpu/drm/amd/amdkfd/kfd_process.c",
                "4.19-6.18",
                _PR,
            ),
        ),
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
        formats=(
            Format(
                "ring %s timeout, signaled seq=%u, emitted seq=%u",
                _AMD + "amdgpu_job.c",
                "4.19-6.8",
                _drm("amdgpu_job_timedout"),
                args=("gfx_0.0.0", 18842, 18845),
            ),
            Format(
                "ring %s timeout, signaled seq=%u, emitted seq=%u",
                _AMD + "amdgpu_job.c",
                "6.12-6.18",
                _DEV,
                args=("sdma0", 18842, 18845),
            ),
        ),
    ),
    # amdgpu_device.c's reset and recovery lines; soc15.c soc15_asic_reset's bare "GPU reset"
    # (4.13-4.19, before its later "GPU mode1 reset"), and psp_v3_1.c/psp_v11_0.c's
    # "psp is not working correctly before mode1 reset!" (DRM_INFO) during one
    sig(
        "amdgpu_gpu_reset",
        r"GPU reset begin|GPU reset\(\d+\) (?:succeeded|failed)|GPU reset (?:succeeded|failed)"
        r"|GPU recovery disabled|(?:MODE1|MODE2|BACO) reset|ASIC reset failed"
        r"|GPU Recovery Failed|(?:^|: )GPU reset\s*$"
        r"|psp is not working correctly before mode1 reset",
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
        formats=(
            Format("GPU reset begin!", _AMD + "amdgpu_device.c", "4.19-5.4", _DEV),
            Format("GPU reset(%d) failed", _AMD + "amdgpu_device.c", "4.19-6.12", _DEV),
            Format("GPU reset(%d) failed with error %d ", _AMD + "amdgpu_device.c", "6.18", _DEV),
            Format("GPU reset(%d) succeeded!", _AMD + "amdgpu_device.c", "4.19-6.18", _DEV),
            Format("GPU recovery disabled.", _AMD + "amdgpu_device.c", "4.19-6.18", _DEV),
            Format(
                "ASIC reset failed with error, %d for drm dev, %s",
                _AMD + "amdgpu_device.c",
                "5.4-6.18",
                _DEV,
                args=(-110, "card0"),
            ),
            Format(
                "GPU Recovery Failed: %d", _AMD + "amdgpu_job.c", "6.1-6.18", _DEV, args=(-110,)
            ),
            Format("GPU reset", _AMD + "soc15.c", "4.13-4.19", _DEV4),
            Format(
                "psp is not working correctly before mode1 reset!",
                _AMD + "psp_v3_1.c",
                "4.19-5.x",
                "[drm] ",
            ),
            Format(
                "psp is not working correctly before mode1 reset!",
                _AMD + "psp_v11_0.c",
                "5.4-6.18",
                "[drm] ",
            ),
        ),
    ),
    sig(
        "amdgpu_init_failure",
        r"amdgpu_device_ip_init failed|Fatal error during GPU init"
        r"|(?:sw_init|hw_init|late_init) of IP block <\S+> failed"
        r"|amdgpu: probe of \S+ failed with error|amdgpu_device_init failed"
        r"|Failed to setup smc hw|smu_hw_init failed|hw_init of IP block <\S+> failed"
        # the firmware processors the driver must start first: PSP (amdgpu_psp.c) loads
        # every other firmware, DMCUB (amdgpu_dm.c) runs the display engine
        r"|PSP firmware loading failed|PSP load [\w ]+? failed!|PSP (?:create ring|tmr init|ring "
        r"init|resume) failed|Failed to load psp firmware|Error initializing DMUB HW: "
        r"|DMUB interface failed to initialize|No firmware provided for DMUB"
        r"|Error creating DMUB service|Display Core (?:v\S+ )?failed to initiali[sz]e"
        # amdgpu_device.c amdgpu_device_resume: the GPU that does not come back from suspend
        r"|amdgpu_device_ip_resume failed \(-?\d+\)",
        ("failed", "Fatal", "Failed", "Error", "provided"),
        Severity.ERROR,
        AMDGPU,
        "The GPU failed to initialise: it will be missing for this boot.",
        "Check firmware (linux-firmware) matches the kernel, PCIe seating and power; compare "
        "with the previous boot's inventory.",
        42,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format("amdgpu_device_ip_init failed", _AMD + "amdgpu_device.c", "4.19-6.18", _DEV),
            Format("Fatal error during GPU init", _AMD + "amdgpu_kms.c", "4.4-6.18", _DEV),
            Format(
                "amdgpu_device_ip_resume failed (%d).",
                _AMD + "amdgpu_device.c",
                "4.19",
                _drm("amdgpu_device_resume"),
                args=(-110,),
            ),
            Format(
                "amdgpu_device_ip_resume failed (%d).",
                _AMD + "amdgpu_device.c",
                "6.1-6.18",
                _DEV,
                args=(-62,),
            ),
            Format(
                "hw_init of IP block <%s> failed %d",
                _AMD + "amdgpu_device.c",
                "4.19-6.18",
                _drm("amdgpu_device_ip_init"),
                args=("psp", -22),
            ),
            Format(
                "sw_init of IP block <%s> failed %d",
                _AMD + "amdgpu_device.c",
                "4.19-6.18",
                _drm("amdgpu_device_ip_init"),
                args=("gfx_v9_0", -2),
            ),
            Format("Failed to setup smc hw!", _PM + "swsmu/amdgpu_smu.c", "5.15-6.18", _DEV),
            Format(
                "PSP firmware loading failed",
                _AMD + "amdgpu_psp.c",
                "4.19-6.18",
                _drm("psp_hw_init"),
            ),
            Format("PSP firmware loading failed", _AMD + "amdgpu_psp.c", "6.12-6.18", _DEV),
            Format("PSP load kdb failed!", _AMD + "amdgpu_psp.c", "5.4-6.18", _DEV),
            Format("PSP load sos failed!", _AMD + "amdgpu_psp.c", "5.4-6.18", _DEV),
            Format("PSP load sys drv failed!", _AMD + "amdgpu_psp.c", "5.15-6.18", _DEV),
            Format("PSP load tmr failed!", _AMD + "amdgpu_psp.c", "5.4-6.18", _DEV),
            Format("PSP create ring failed!", _AMD + "amdgpu_psp.c", "5.4-6.18", _DEV),
            Format("PSP resume failed", _AMD + "amdgpu_psp.c", "4.19-6.18", _DEV),
            Format(
                "Failed to load psp firmware!",
                _AMD + "amdgpu_psp.c",
                "4.19-6.1",
                _drm("psp_sw_init"),
            ),
            Format(
                "Error initializing DMUB HW: %d",
                "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
                "5.15-6.18",
                _drm("dm_dmub_hw_init"),
                args=(5,),
            ),
            Format(
                "DMUB interface failed to initialize: status=%d",
                "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
                "5.15-6.18",
                _drm("amdgpu_dm_init"),
                args=(-22,),
            ),
            Format(
                "No firmware provided for DMUB.",
                "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
                "5.15-6.18",
                _drm("dm_dmub_hw_init"),
            ),
            Format(
                "Error creating DMUB service: %d",
                "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
                "5.15-6.18",
                _drm("dm_dmub_sw_init"),
                args=(2,),
            ),
            # amdgpu_dm_init: the display core (DC) not created, then "hw_init of IP block <dm>
            # failed" (DRM_INFO 4.15-6.x, drm_info with the device later)
            Format(
                "Display Core failed to initialize with v%s!",
                "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
                "4.19-6.18",
                "[drm] ",
                args=("3.2.207",),
            ),
        ),
    ),
    # kernel/workqueue.c wq_cpu_intensive_report: "%s hogged CPU for >%luus %llu times, ..."
    # keyed on the function and "hogged CPU", not on the words after it, which pastes
    # retell ("hogged CPU >10000us (11 times)") or translate
    sig(
        "amdgpu_workqueue_hog",
        r"workqueue: \S+ \[amdgpu\] hogged CPU\b",
        ("hogged",),
        Severity.WARNING,
        AMDGPU,
        "An amdgpu work item ran long on a CPU (a performance hint, not a failure).",
        "Usually noise under heavy GPU memory traffic (a healthy 7-hour boot can show more of it "
        "than a frozen one); compare with healthy boots before suspecting it.",
        85,
        device_kind=DeviceKind.NONE,
        routine=True,
        formats=(
            Format(
                "workqueue: %ps hogged CPU for >%luus %llu times, consider switching to WQ_UNBOUND",
                "kernel/workqueue.c",
                "6.8-6.18",
                args=("amdgpu_dm_irq_handler [amdgpu]", 10000, 4),
            ),
        ),
    ),
    # open-gpu-kernel-modules kernel_gsp.c: the RPC poll's timeout report ("GSP Timeout"
    # banner, then "Timeout after %llus of waiting for RPC response from GPU%d GSP!" (r515-r535:
    # "Timeout waiting for RPC from GSP! Expected function …") printed
    # as Xid 119), its sanity check ("GPU%d sanity check failed 0x%x waiting for RPC response
    # from GSP"), and (r595) the heartbeat checks: _kgspIsHeartbeatTimedOut's "Heartbeat timed
    # out, currentTimeMs …", the poll's "GSP RM heartbeat timed out" / "LibOS heartbeat timed
    # out" and the timeout's classification ("GSP core unresponsive", "GSP-RM unresponsive",
    # "GSP-RM is slow"); the GSP-RM's own task watchdog (libos): "GSP task watchdog timeout
    # @ pc:0x…" printed without the NVRM: prefix
    sig(
        "nvidia_gsp_timeout",
        r"GSP (?:RPC )?[Tt]imeout|waiting for RPC (?:response )?from (?:GPU\d* )?GSP"
        r"|_kgspLogXid119"
        r"|GSP task watchdog timeout|(?:GSP RM|LibOS) heartbeat timed out"
        r"|Heartbeat timed out, currentTimeMs \d+|GSP core unresponsive|GSP-RM unresponsive"
        r"|GSP-RM is slow",
        ("GSP", "_kgspLogXid119", "heartbeat", "Heartbeat"),
        Severity.CRITICAL,
        NVIDIA,
        "The GPU's System Processor (GSP firmware) stopped answering the driver (Xid 119/120).",
        "Update the driver; if it repeats, try NVreg_EnableGpuFirmware=0 on affected "
        "releases, then check PCIe and power.",
        30,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
        formats=(
            Format(
                "********************************* GSP Timeout **********************************",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r535.288.01-r595",
                _nv("_kgspLogRpcDebugInfo"),
            ),
            Format(
                "Timeout after %llus of waiting for RPC response from GPU%d GSP! Expected function "
                "%d (%s) (0x%llx 0x%llx).",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r535.288.01-r595",
                _nv("_kgspLogXid119"),
                args=(6, 0, 76, "GSP_RM_CONTROL", 0x20800A4C, 4),
            ),
            Format(
                "Timeout waiting for RPC from GSP! Expected function %s (0x%x 0x%x).",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r515-r525",
                "NVRM: Xid (PCI:0000:61:00): 119, pid=977823, name=nvidia-smi, ",
                args=("GSP_RM_CONTROL", 0x2080014B, 5),
            ),
            Format(
                "Timeout waiting for RPC from GSP! Expected function %d (%s) (0x%x 0x%x).",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r525-r535",
                "NVRM: Xid (PCI:0000:61:00): 119, pid=977823, name=nvidia-smi, ",
                args=(76, "GSP_RM_CONTROL", 0x2080014B, 5),
            ),
            Format(
                "GPU%d sanity check failed 0x%x waiting for RPC response from GSP. Expected "
                "function %d (%s) (0x%llx 0x%llx).",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r535.216.01-r595",
                _nv("_kgspRpcRecvPoll"),
                args=(0, 0x62, 76, "GSP_RM_CONTROL"),
            ),
            Format(
                "Heartbeat timed out, currentTimeMs %u heartbeat %u heartbeatWithOffsetMs %u "
                "diff %u timeout %u",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r595-r595",
                _nv("_kgspIsHeartbeatTimedOut"),
                args=(91234, 80000, 80010, 11224, 10400),
            ),
            Format(
                "GSP RM heartbeat timed out",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r595-r595",
                _nv("_kgspRpcRecvPoll"),
            ),
            Format(
                "LibOS heartbeat timed out",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r595-r595",
                _nv("_kgspRpcRecvPoll"),
            ),
            Format(
                "================ GSP core unresponsive ===============",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r595-r595",
                _nv("_kgspClassifyGspTimeout"),
            ),
            Format(
                "=============== GSP-RM unresponsive ==================",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r595-r595",
                _nv("_kgspClassifyGspTimeout"),
            ),
        ),
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
        formats=(
            Format(
                "GPU has fallen off the bus.",
                _NVRM + "arch/nvalloc/unix/src/osinit.c",
                "r515-r595",
                _NV_DEV,
            ),
            # one message of three lines: the record that names the state is the third
            Format(
                "NVRM: The NVIDIA GPU %04x:%02x:%02x.%x\nNVRM: (PCI ID: %04x:%04x) installed in "
                "this system has\nNVRM: fallen off the bus and is not responding to commands.",
                _NVRM + "arch/nvalloc/unix/src/osapi.c",
                "r515-r595",
            ),
            Format("device lost from bus!", _AMD + "amdgpu_device.c", "6.12-6.18", _DEV),
            Format(
                "Check failed: %s (0x%08X) returned from %s @ %s:%d",
                _NVRM + "src/libraries/utils/nvassert.c",
                "r515-r595",
                "NVRM: nvCheckOkFailedNoLog: ",
                args=(
                    "GPU lost from the bus [NV_ERR_GPU_IS_LOST]",
                    0xF,
                    "kbusFlush",
                    "kern_bus.c",
                    1,
                ),
            ),
        ),
    ),
    # nvidia.ko nv.c / os-interface: "NVRM: RmInitAdapter failed! (0x%x:0x%x:%d)" (all eras),
    # "NVRM: rm_init_adapter failed, device minor number %d", and from the probe (nv-pci.c):
    # "NVRM: The NVIDIA probe routine failed for %d device(s)." / "None of the NVIDIA devices
    # were initialized."; the VBIOS's boot (GFW) that GSP waits for: kernel_gsp_tu102.c
    # "failed to wait for GFW_BOOT: 0x%x (progress 0x%x)" (early r535; r545 adds ", VBIOS
    # version %s" in the parentheses), then kern_gpu_tu102.c gpuWaitForGfwBootComplete_TU102
    # "failed to wait for GFW_BOOT: (progress 0x%x)" and kgspWaitForGfwBootOk_TU102 "failed
    # to wait for GFW boot complete: 0x%x VBIOS version %s" (r550-r595, and late r535
    # releases such as 535.288.01), "GSP failed to halt with GFW_BOOT: (progress
    # 0x%x)" (r560-r595)
    # r515-r525 kernel_gsp_ga102.c/kernel_gsp_tu102.c: GSP-RM's init-done RPC failing, as
    # NV_ASSERT_OK_OR_GOTO prints it ("Assertion failed: %s [%s] (0x%08X) returned from
    # kgspWaitForRmInitDone(pGpu, pKernelGsp) @ %s:%d"; r550+ nvCheckOkFailedNoLog the same
    # for kgspWaitForGfwBootOk_HAL): the GPU never comes up; osinit.c RmInitAdapter's
    # "Cannot initialize GSP firmware RM" (r515-r595) when kgspInitRm fails, and kernel_gsp.c
    # _kgspBootGspRm's "unexpected WPR2 already up, cannot proceed with booting GSP" (a GSP
    # left locked by the previous driver instance: the GPU needs a reset); the probe's refusal
    # of a BAR the PCI core left unassigned (nv-pci.c nv_pci_probe, one printk over two lines:
    # "NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\nNVRM: BAR%d is
    # %lluM @ 0x%llx (PCI:%04x:%02x:%02x.%x)", r515-r595 and the closed driver before it, which
    # printed "(PCI:%04x:%02x.%x)"); r550+ go on past an invalid VF BAR1/2 of a GH180 C2C
    # ("NVRM: ignore invalid BAR failure for BAR%d"), every other case fails the probe; the
    # same probe's other refusals of the device's registers (nv-pci.c, r515-r595): "NVRM:
    # request_mem_region failed for %lluM @ 0x%llx. This can" (another driver holds them)
    # and "NVRM: Fatal Error while attempting to resize PCIe BARs."
    sig(
        "nvidia_init_failure",
        r"RmInitAdapter failed|rm_init_adapter failed|The NVIDIA probe routine failed"
        r"|This PCI I/O region assigned to your NVIDIA device is invalid"
        r"|NVRM: BAR\d is \d+M @ 0x[0-9a-fA-F]+ \(PCI:"
        r"|NVRM: request_mem_region failed for \d+M @ 0x"
        r"|NVRM: Fatal Error while attempting to resize PCIe BARs"
        r"|None of the NVIDIA devices were initialized"
        r"|failed to (?:wait for GFW_BOOT|halt with GFW_BOOT)|failed to wait for GFW boot complete"
        r"|\) returned from kgsp(?:WaitForRmInitDone|WaitForGfwBootOk\w*)\("
        r"|Cannot initialize GSP firmware RM|unexpected WPR2 already up, cannot proceed",
        (
            "RmInitAdapter",
            "rm_init_adapter",
            "probe",
            "None",
            "GFW_BOOT",
            "GFW",
            "returned",
            "GSP",
            "WPR2",
            "invalid",
            *(f"BAR{n}" for n in range(6)),
            "request_mem_region",
            "BARs",
        ),
        Severity.ERROR,
        NVIDIA,
        "The NVIDIA driver could not initialise a GPU: it is unusable for this boot.",
        "Check that the GPU is powered and seated, the driver matches the kernel, and no "
        "other driver (nouveau, vfio) holds it; the lines before name the failing step.",
        43,
        device_kind=_PCI,
        check=lambda m, i: "NVRM" in i.text,
        formats=(
            Format(
                "RmInitAdapter failed! (0x%x:0x%x:%d)",
                _NVRM + "arch/nvalloc/unix/src/osinit.c",
                "r515-r595",
                _NV_DEV,
                args=(0x22, 0x56, 0x2B6),
            ),
            Format(
                "rm_init_adapter failed, device minor number %d",
                _NVK + "nv.c",
                "r515-r595",
                _NV_DEV,
            ),
            Format(
                "Assertion failed: %s [%s] (0x%08X) returned from kgspWaitForRmInitDone(pGpu, "
                "pKernelGsp) @ %s:%d",
                _NVRM + "src/kernel/gpu/gsp/arch/ampere/kernel_gsp_ga102.c",
                "r515-r525",
                "NVRM nvAssertOkFailedNoLog: ",
                args=(
                    "Generic operating system error",
                    "NV_ERR_OPERATING_SYSTEM",
                    0x59,
                    "kernel_gsp_ga102.c",
                    237,
                ),
            ),
            Format(
                "Cannot initialize GSP firmware RM",
                _NVRM + "arch/nvalloc/unix/src/osinit.c",
                "r515-r595",
                _nv("RmInitAdapter"),
            ),
            Format(
                "Cannot initialize GSP firmware RM",
                _NVRM + "arch/nvalloc/unix/src/osinit.c",
                "r515-r595",
                "NVRM: RmInitAdapter: ",
            ),
            Format(
                "unexpected WPR2 already up, cannot proceed with booting GSP",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r535-r595",
                _nv("_kgspBootGspRm"),
            ),
            Format(
                "Call timed out [NV_ERR_TIMEOUT] (0x00000065) returned from "
                "kgspWaitForGfwBootOk_HAL(pGpu, pKernelGsp) @ kernel_gsp.c:%d",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r550-r595",
                _nv("nvCheckOkFailedNoLog"),
                args=(4945,),
            ),
            Format(
                "NVRM: The NVIDIA probe routine failed for %d device(s).",
                _NVK + "nv.c",
                "r515-r595",
            ),
            Format(
                "NVRM: None of the NVIDIA devices were initialized.", _NVK + "nv.c", "r515-r595"
            ),
            Format(
                "NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:",
                _NVK + "nv-pci.c",
                "r515-r595",
            ),
            Format(
                "NVRM: BAR%d is %lluM @ 0x%llx (PCI:%04x:%02x:%02x.%x)",
                _NVK + "nv-pci.c",
                "r515-r595",
                args=(0, 0, 0, 0, 2, 0, 0),
            ),
            Format(
                "NVRM: request_mem_region failed for %lluM @ 0x%llx. This can",
                _NVK + "nv-pci.c",
                "r515-r595",
                args=(16, 0xDE000000),
            ),
            Format(
                "NVRM: Fatal Error while attempting to resize PCIe BARs.",
                _NVK + "nv-pci.c",
                "r515-r595",
            ),
            Format(
                "failed to wait for GFW_BOOT: 0x%x (progress 0x%x)",
                _NVRM + "src/kernel/gpu/gsp/arch/turing/kernel_gsp_tu102.c",
                "r535.43.02-r535.43.02",
                _nv("kgspWaitForGfwBootOk_TU102"),
                args=(0x65, 0x3),
            ),
            Format(
                "failed to wait for GFW_BOOT: 0x%x (progress 0x%x, VBIOS version %s)",
                _NVRM + "src/kernel/gpu/gsp/arch/turing/kernel_gsp_tu102.c",
                "r545-r545",
                _nv("kgspWaitForGfwBootOk_TU102"),
                args=(0x65, 0x3, "94.02.59.00.05"),
            ),
            Format(
                "failed to wait for GFW_BOOT: (progress 0x%x)",
                _NVRM + "src/kernel/gpu/arch/turing/kern_gpu_tu102.c",
                "r550-r595",
                _nv("gpuWaitForGfwBootComplete_TU102"),
                args=(0x3,),
            ),
            Format(
                "failed to wait for GFW boot complete: 0x%x VBIOS version %s",
                _NVRM + "src/kernel/gpu/gsp/arch/turing/kernel_gsp_tu102.c",
                "r550-r595",
                _nv("kgspWaitForGfwBootOk_TU102"),
                args=(0x65, "94.02.59.00.05"),
            ),
            Format(
                "GSP failed to halt with GFW_BOOT: (progress 0x%x)",
                _NVRM + "src/kernel/gpu/arch/turing/kern_gpu_tu102.c",
                "r560-r595",
                _nv("gpuWaitForGfwBootComplete_TU102"),
                args=(0x0,),
            ),
        ),
    ),
    # kernel_rc.c krcReportXid: "NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s", with
    # " GPU-I:%02u" and " GPU-CI:%02u" after the address when a MIG instance is to blame, and
    # (r570.123+) " caused by previous Xid %d" at the end of an Xid 45 (see xid_cause)
    sig(
        "nvidia_xid",
        r"NVRM: Xid \((?:PCI:)?[0-9a-fA-F:.]+(?: GPU-I:\d+)?(?: GPU-CI:\d+)?\): (?P<xid>\d+)\b",
        ("Xid",),
        Severity.ERROR,
        NVIDIA,
        "NVIDIA driver error (Xid); meaning per code.",
        "See the Xid's own next step.",
        33,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang", codes=XID_TRIGGERS),
        # the code is the argument after the address (79 here); the render test tries each
        # known code in its place
        formats=(
            Format(
                "NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s%s",
                _NVRM + "src/kernel/gpu/rc/kernel_rc.c",
                "r570.123-r595",
                args=(0, 0x41, 0, 79, "1234", "python3", "GPU has fallen off the bus.", ""),
            ),
            Format(
                "NVRM: Xid (PCI:%04x:%02x:%02x): %d, %s%s",
                _NVRM + "src/kernel/gpu/rc/kernel_rc.c",
                "r570.123-r595",
                args=(0, 0x41, 0, 79, "GPU has fallen off the bus.", ""),
            ),
            Format(
                "NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u): %d, pid=%s, name=%s, %s%s",
                _NVRM + "src/kernel/gpu/rc/kernel_rc.c",
                "r515-r595",
                args=(
                    0,
                    0x41,
                    0,
                    5,
                    79,
                    "1234",
                    "python3",
                    "Contained: CE User Channel (0x9).",
                    "",
                ),
            ),
            Format(
                "NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u): %d, pid=%s, name=%s, %s%s",
                _NVRM + "src/kernel/gpu/rc/kernel_rc.c",
                "r515-r595",
                args=(0, 0x41, 0, 5, 1, 79, "1234", "python3", "Ch 00000008", ""),
            ),
            Format(
                "NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s",
                _NVRM + "src/kernel/gpu/rc/kernel_rc.c",
                "r515-r570.86",
                args=(0, 0x41, 0, 79, "1234", "python3", "GPU has fallen off the bus."),
            ),
        ),
    ),
    # amdgpu_job.c amdgpu_job_timedout's timeout line and the "Process %s pid %d thread %s
    # pid %d" line it prints next are amdgpu's alone ("signaled seq"/"emitted seq" are its
    # fence words), so a paste whose filter cut the "amdgpu <bus id>: " prefix and the
    # "kernel:" identifier still shows the timeout: no device check
    sig(
        "amdgpu_ring_timeout",
        r"^ring \S+ timeout, signaled seq=\d+, emitted seq=\d+",
        ("timeout",),
        Severity.CRITICAL,
        AMDGPU,
        "A GPU command ring (gfx, compute, sdma) stopped completing jobs: the GPU hung.",
        "Find what hung it: earlier SMU/MES/page-fault lines; otherwise the workload "
        "(process named in the following lines).",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "ring %s timeout, signaled seq=%u, emitted seq=%u",
                _AMD + "amdgpu_job.c",
                "6.12-6.18",
                "",
                args=("gfx_0.0.0", 9113028, 9113031),
            ),
        ),
    ),
)

# A GPU lost from the bus (kmsgd/judge/chains.py relates it to the GPU errors around it):
# A GPU gone from the bus answers no register read (each returns all-ones: the SMU's
# "response:0xFFFFFFFF", "Failed to export SMU metrics table!"), so what the driver logs
# around the loss is its consequence; and the GPU stays gone until the next boot (NVIDIA's
# Xid catalog, Xid 79: "GPU has fallen off the bus", action: reboot the node), so its loss
# is part of the boot's final state however long before the end it was printed.
DEVICE_LOSS_TAGS = frozenset({"gpu_fell_off_bus", "nvidia_xid_79"})


# kernel_rc.c (r570.123+): an Xid 45 that tears down channels after an earlier error names
# it, "NVRM: Xid (PCI:0000:41:00): 45, pid=…, Ch 00000010 caused by previous Xid 31"
_CAUSED_BY = re.compile(r"\bcaused by previous Xid (\d+)\b")


def xid_cause(text: str) -> str | None:
    """The tag of the earlier Xid an Xid line names as its cause (nvidia_xid_<n>), or None."""
    m = _CAUSED_BY.search(text) if "caused by previous Xid" in text else None
    return f"nvidia_xid_{int(m.group(1))}" if m is not None else None


def xid_details(tag: str) -> tuple[str, str, Severity] | None:
    """Meaning, next step and severity of an `nvidia_xid_<code>` tag."""
    if not tag.startswith("nvidia_xid_"):
        return None
    try:
        code = int(tag.rsplit("_", 1)[1])
    except ValueError:
        return None
    return xid_meaning(code)
