"""GPU failures of amdgpu and NVIDIA's driver that the other GPU modules do not catalogue:
the command processor's privileged-register fault, the SR-IOV mailbox to the host,
nvidia-modeset's display-channel errors and the resource manager's "reset required" status;
and the display's own hangs: amdgpu's display microcontroller (DMCUB) that stops answering,
and DRM's atomic commit that never completes (any driver's: the screen freezes while the
rest of the box may run on).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, Trigger, nvrm_line, sig

_PCI = DeviceKind.PCI
AMDGPU = "gpu.amdgpu"
NVIDIA = "gpu.nvidia"
_AMD = "drivers/gpu/drm/amd/amdgpu/"
_NVKMS = "nvidia:src/nvidia-modeset/src/"
_NVASSERT = "nvidia:src/nvidia/src/libraries/utils/nvassert.c"
_DC = "drivers/gpu/drm/amd/display/dc/"
_AMD_DRM = "amdgpu 0000:03:00.0: [drm] *ERROR* "  # drm_err (DC_LOG_ERROR, 6.x)
_AMD_DRM_NEW = "amdgpu 0000:64:00.0: [drm] ERROR "  # drm_err as 6.17-6.18 print it
_DRM = "drivers/gpu/drm/"


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
    # drivers/gpu/drm/amd/display/dc/dc_dmub_srv.c: every command to the display
    # microcontroller (DMCUB, which runs the display engine's power states, PSR and pipe
    # locks) that it does not accept or answer: DC_ERROR "Error queueing DMUB command:
    # status=%d", "Error starting DMUB execution: status=%d", "Error waiting for DMUB idle:
    # status=%d", "Error clearing INBOX0 ack: status=%d", "Error waiting for INBOX0 HW Lock
    # Ack", "Error sending INBOX0 cmd" (5.15-6.18), then dc_dmub_srv_log_diagnostic_data's
    # "%s: DMCUB error - collecting diagnostic data" (6.10-6.18; DRM_ERROR's "[drm:<fn>
    # [amdgpu]] *ERROR* " in 5.x, drm_err's "amdgpu <bus id>: [drm] *ERROR* " in 6.x,
    # "[drm] ERROR " in 6.17-6.18). The load failures of that firmware are
    # amdgpu_init_failure's (gpu.py).
    sig(
        "amdgpu_dmcub_error",
        r"DMCUB error - collecting diagnostic data"
        r"|Error (?:queueing DMUB command|starting DMUB execution|waiting for DMUB idle"
        r"|clearing INBOX0 ack|waiting for INBOX0 HW Lock Ack|sending INBOX0 cmd)",
        ("DMCUB", "Error"),
        Severity.ERROR,
        AMDGPU,
        "amdgpu's display microcontroller (DMCUB) stopped answering the driver: display "
        "updates stall, and the screen freezes or goes black while the system may run on.",
        "Update linux-firmware (the DMCUB firmware named at boot) and the kernel; as a "
        "workaround, amdgpu.dcdebugmask=0x10 (no panel self refresh) or =0x410 avoids the "
        "commands that usually hang it.",
        37,
        device_kind=_PCI,
        formats=(
            Format(
                "%s: DMCUB error - collecting diagnostic data",
                _DC + "dc_dmub_srv.c",
                "6.10-6.16",
                _AMD_DRM,
                args=("dc_dmub_srv_log_diagnostic_data",),
            ),
            Format(
                "%s: DMCUB error - collecting diagnostic data",
                _DC + "dc_dmub_srv.c",
                "6.17-6.18",
                _AMD_DRM_NEW,
                args=("dc_dmub_srv_log_diagnostic_data",),
            ),
            Format(
                "Error queueing DMUB command: status=%d",
                _DC + "dc_dmub_srv.c",
                "6.10-6.16",
                _AMD_DRM,
            ),
            Format(
                "Error starting DMUB execution: status=%d",
                _DC + "dc_dmub_srv.c",
                "6.10-6.16",
                _AMD_DRM,
            ),
            Format(
                "Error waiting for DMUB idle: status=%d",
                _DC + "dc_dmub_srv.c",
                "5.15",
                "[drm:dc_dmub_srv_wait_idle [amdgpu]] *ERROR* ",
                args=(3,),
            ),
            Format(
                "Error waiting for INBOX0 HW Lock Ack", _DC + "dc_dmub_srv.c", "6.10-6.16", _AMD_DRM
            ),
        ),
    ),
    # DRM's atomic commit helpers (any KMS driver: amdgpu, i915, nouveau, nvidia-drm): a
    # commit whose hardware programming (hw_done) or page flip (flip_done) does not complete
    # within 10 s. drivers/gpu/drm/drm_atomic_helper.c drm_atomic_helper_wait_for_flip_done
    # "[CRTC:%d:%s] flip_done timed out" (DRM_ERROR 4.19-6.x, drm_err with the device later),
    # drm_atomic_helper_wait_for_dependencies "[CRTC:%d:%s] hw_done timed out" / "flip_done
    # timed out" (CONNECTOR and PLANE alike, 4.14-5.11), then "[CRTC:%d:%s] commit wait timed
    # out" (5.12-6.18) after drm_atomic.c drm_crtc_commit_wait's "hw_done timed out" /
    # "flip_done timed out"; stall_checks "[CRTC:%d:%s] cleanup_done timed out";
    # drm_atomic_helper_wait_for_vblanks' WARN "[CRTC:%d:%s] vblank wait timed out" and
    # drm_vblank.c drm_wait_one_vblank's drm_WARN "vblank wait timed out on crtc %i" (the
    # display engine stopped delivering vblanks). amdgpu_dm.c's "Waiting for fences timed
    # out!" is not one: that wait is on the GPU's rendering, whose own timeout (the ring
    # timeout) reports the hang. What the commit waited on (a GPU hang, a
    # display firmware that stopped) is its cause: kmsgd/judge/chains.py.
    sig(
        "drm_flip_timeout",
        r"\[(?:CRTC|CONNECTOR|PLANE):\d+:[^\]]*\] (?:flip_done|hw_done|cleanup_done|commit wait"
        r"|vblank wait) timed out|\b(?:flip_done|hw_done) timed out|vblank wait timed out on crtc",
        ("timed",),
        Severity.ERROR,
        "gpu",
        "A display update (a DRM atomic commit) never completed: the display engine, or the "
        "GPU work the commit waited on, stopped; the screen freezes while the box may run on.",
        "Look at the GPU lines before it (a ring timeout, a display firmware error): they "
        "are the cause; alone, it points at the display driver (update the kernel, try "
        "disabling panel self refresh or variable refresh rate).",
        39,
        device_kind=_PCI,
        formats=(
            Format(
                "[CRTC:%d:%s] flip_done timed out",
                _DRM + "drm_atomic_helper.c",
                "4.19-5.15",
                "[drm:drm_atomic_helper_wait_for_flip_done [drm_kms_helper]] *ERROR* ",
                args=(57, "crtc-0"),
            ),
            Format(
                "[CRTC:%d:%s] flip_done timed out",
                _DRM + "drm_atomic_helper.c",
                "6.12-6.16",
                _AMD_DRM,
                args=(79, "crtc-0"),
            ),
            Format(
                "[CRTC:%d:%s] flip_done timed out",
                _DRM + "drm_atomic_helper.c",
                "6.17-6.18",
                _AMD_DRM_NEW,
                args=(80, "crtc-0"),
            ),
            Format(
                "[CRTC:%d:%s] hw_done timed out",
                _DRM + "drm_atomic_helper.c",
                "4.19-5.10",
                "[drm:drm_atomic_helper_wait_for_dependencies [drm_kms_helper]] *ERROR* ",
                args=(57, "crtc-0"),
            ),
            Format(
                "flip_done timed out",
                _DRM + "drm_atomic.c",
                "5.15-6.18",
                "[drm:drm_crtc_commit_wait [drm]] *ERROR* ",
            ),
            Format(
                "[PLANE:%d:%s] commit wait timed out",
                _DRM + "drm_atomic_helper.c",
                "5.15-6.18",
                "[drm:drm_atomic_helper_wait_for_dependencies [drm_kms_helper]] *ERROR* ",
                args=(31, "plane-0"),
            ),
            Format(
                "[CRTC:%d:%s] cleanup_done timed out",
                _DRM + "drm_atomic_helper.c",
                "4.19-6.18",
                "[drm:stall_checks [drm_kms_helper]] *ERROR* ",
                args=(82, "pipe A"),
            ),
            Format(
                "[CRTC:%d:%s] vblank wait timed out",
                _DRM + "drm_atomic_helper.c",
                "4.19-6.18",
                args=(82, "pipe A"),
            ),
            Format(
                "%s %s: [drm] vblank wait timed out on crtc %i",
                _DRM + "drm_vblank.c",
                "5.15-6.18",
                args=("i915", "0000:00:02.0", 0),
            ),
        ),
        trigger=Trigger("gpu_hang"),
    ),
    # i915 waits at most 60 s on a fence another driver or engine must signal before it uses a
    # buffer (i915_sw_fence.c timer_i915_sw_fence_wake, pr_notice "Asynchronous wait on fence
    # %s:%s:%llx timed out (hint:%ps)", the driver and timeline of the fence first; "%pS" in
    # the hint until 5.x): on a PRIME laptop the NVIDIA or amdgpu GPU that renders for the
    # Intel display stopped; the compositor freezes. Cause: the stalled GPU (chains.py).
    sig(
        "dma_fence_timeout",
        r"^Asynchronous wait on fence [^:\s]+:[^:\s]*:[0-9a-f]+ timed out\b",
        ("Asynchronous",),
        Severity.ERROR,
        "gpu",
        "A GPU driver waited a minute for another device's (or engine's) GPU work to finish, "
        "and gave up: the GPU that owns that work (named before the colon) stopped.",
        "Look at the lines of the GPU the fence names (a PRIME dGPU's Xid or ring timeout): "
        "they are the cause; alone, update both drivers and try the dGPU as the only renderer.",
        40,
        formats=(
            Format(
                "Asynchronous wait on fence %s:%s:%llx timed out (hint:%ps)",
                _DRM + "i915/i915_sw_fence.c",
                "5.10-6.18",
                args=("NVIDIA", "nvidia.prime", 0, "submit_notify [i915]"),
            ),
            Format(
                "Asynchronous wait on fence %s:%s:%llx timed out (hint:%pS)",
                _DRM + "i915/i915_sw_fence.c",
                "5.4",
                args=("amdgpu", "sdma0", 0x1A2B, "fence_notify+0x0/0x30 [i915]"),
            ),
        ),
    ),
)
