"""GPU failures of amdgpu and NVIDIA's driver that the other GPU modules do not catalogue:
the command processor's privileged-register fault, the SR-IOV mailbox to the host,
nvidia-modeset's display-channel errors and the resource manager's "reset required" status.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, nvrm_line, sig

_PCI = DeviceKind.PCI
AMDGPU = "gpu.amdgpu"
NVIDIA = "gpu.nvidia"
_AMD = "drivers/gpu/drm/amd/amdgpu/"
_NVKMS = "nvidia:src/nvidia-modeset/src/"
_NVASSERT = "nvidia:src/nvidia/src/libraries/utils/nvassert.c"


GPU_FAULT_SIGNATURES: tuple[Signature, ...] = (
    # drivers/gpu/drm/amd/amdgpu/gfx_v{6,7,8,9,10,11,12}_0.c gfx_vN_0_priv_reg_irq and
    # _priv_inst_irq: DRM_ERROR("Illegal register access in command stream") / "Illegal
    # instruction in command stream" (4.4-6.18), the command processor's interrupt for a
    # command buffer that wrote a privileged register: the job is killed and the ring times
    # out behind it (4.x-5.x schedule the reset at once). radeon (cik.c, evergreen.c) prints
    # the same words from "[drm:cik_irq_process [radeon]]": the function or driver name must
    # be amdgpu's
    sig(
        "amdgpu_illegal_register_access",
        r"(?:gfx_v\d+_\d+_priv_(?:reg|inst)_irq|amdgpu).*\bIllegal (?:register access"
        r"|instruction) in command stream",
        ("Illegal",),
        Severity.ERROR,
        AMDGPU,
        "A GPU command buffer touched a privileged register or ran a privileged instruction: "
        "amdgpu kills the job, and the ring it ran on times out and resets.",
        "A bug in the user-space driver (Mesa radv/radeonsi, ROCm) or the application that "
        "submitted it: note the process in the following lines and update Mesa/ROCm.",
        34,
        device_kind=_PCI,
        formats=(
            Format(
                "Illegal register access in command stream",
                _AMD + "gfx_v10_0.c",
                "4.4-6.18",
                "[drm:gfx_v10_0_priv_reg_irq [amdgpu]] *ERROR* ",
            ),
            Format(
                "Illegal instruction in command stream",
                _AMD + "gfx_v9_0.c",
                "4.4-6.18",
                "[drm:gfx_v9_0_priv_inst_irq [amdgpu]] *ERROR* ",
            ),
        ),
    ),
    # drivers/gpu/drm/amd/amdgpu/mxgpu_ai.c, mxgpu_nv.c xgpu_*_mailbox_trans_msg: a virtual
    # function (SR-IOV guest, or a board whose firmware makes amdgpu take it for one) waits
    # for the host to clear the mailbox's ACK before each message, printing pr_err("trn=%x ACK
    # should not assert! wait again !") every millisecond (dev_err_ratelimited in later
    # kernels): the host side never answers, and the GPU never initialises
    sig(
        "amdgpu_vf_mailbox_error",
        r"trn=[0-9a-fA-F]+ ACK should not assert",
        ("ACK",),
        Severity.ERROR,
        AMDGPU,
        "amdgpu drives this GPU as an SR-IOV virtual function and the host (the physical "
        "function's driver or GIM) does not answer its mailbox: the GPU never comes up.",
        "In a VM, check the host's GPU virtualisation driver and its logs; on bare metal the "
        "card's firmware presents it as a virtual function (a MxGPU/cloud vBIOS): flash the "
        "board's standard firmware.",
        34,
        device_kind=_PCI,
        formats=(
            Format(
                "trn=%x ACK should not assert! wait again !",
                _AMD + "mxgpu_ai.c",
                "4.19-6.1",
                args=(2,),
            ),
            Format(
                "trn=%x ACK should not assert! wait again !",
                _AMD + "mxgpu_nv.c",
                "6.8-6.18",
                "amdgpu 0000:03:00.0: amdgpu: ",
                args=(2,),
            ),
        ),
    ),
    # src/nvidia-modeset/src/nvkms-evo1.c (channel state) and nvkms-dma.c (push buffer),
    # nvEvoLogDev(…, EVO_LOG_ERROR, …) printed as "nvidia-modeset: ERROR: GPU:%d: …"
    # (r515-r595): the display engine's channels stopped answering the driver — the RM
    # call for their state fails, or the push buffer makes no progress. The warning "Lost
    # display notification (%d:0x%08x); continuing." recovers by itself and is not one
    sig(
        "nvidia_modeset_error",
        r"nvidia-modeset: ERROR: GPU:\d+: (?:Failed to query display engine channel state"
        r"|Error while waiting for GPU progress)",
        ("ERROR",),
        Severity.ERROR,
        NVIDIA,
        "NVIDIA's display driver (nvidia-modeset) lost its display engine: its channels do "
        "not answer, and the screen freezes while the rest of the box may run.",
        "Look above it for the GPU's own failure (an Xid, a GSP timeout, a driver unload); "
        "otherwise note the displays in use and update the driver.",
        32,
        device_kind=_PCI,
        formats=(
            Format(
                "Failed to query display engine channel state: 0x%08x:%d:%d:0x%08x",
                _NVKMS + "nvkms-evo1.c",
                "r515-r595",
                "nvidia-modeset: ERROR: GPU:0: ",
                args=(0xCA7E, 0, 0, 0x62),
            ),
            Format(
                "Error while waiting for GPU progress: 0x%08x:%d %d:%d:%d:%d",
                _NVKMS + "nvkms-dma.c",
                "r515-r595",
                "nvidia-modeset: ERROR: GPU:0: ",
                args=(0xCA7D, 0, 2, 0, 200, 192),
            ),
        ),
    ),
    # src/nvidia/src/libraries/utils/nvassert.c nvAssertOkFailedNoLog / nvCheckOkFailedNoLog:
    # "Assertion failed: %s (0x%08X) returned from %s @ %s:%d", the %s nvstatusToString's
    # "<text> [<name>]", here NV_ERR_RESET_REQUIRED (nvstatuscodes.h: 0x00000062, "Reset
    # required"): the GPU is in a state only a reset clears (r515-r595)
    sig(
        "nvidia_reset_required",
        r"\[NV_ERR_RESET_REQUIRED\]",
        ("NV_ERR_RESET_REQUIRED",),
        Severity.CRITICAL,
        NVIDIA,
        "NVIDIA's resource manager reports that the GPU needs a reset "
        "(NV_ERR_RESET_REQUIRED): it will not run work until it is reset.",
        "Drain the GPU and reset it (nvidia-smi -r, or the node's GPU reset procedure); if "
        "it recurs, collect nvidia-bug-report.sh for the vendor.",
        30,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "Assertion failed: %s (0x%08X) returned from %s @ %s:%d",
                _NVASSERT,
                "r515-r595",
                "NVRM: nvAssertOkFailedNoLog: ",
                args=(
                    "Reset required [NV_ERR_RESET_REQUIRED]",
                    0x62,
                    "status",
                    "kernel_channel.c",
                    2827,
                ),
            ),
            Format(
                "Check failed: %s (0x%08X) returned from %s @ %s:%d",
                _NVASSERT,
                "r515-r595",
                "NVRM: nvCheckOkFailedNoLog: ",
                args=(
                    "Reset required [NV_ERR_RESET_REQUIRED]",
                    0x62,
                    "status",
                    "kernel_channel.c",
                    2827,
                ),
            ),
        ),
    ),
)
