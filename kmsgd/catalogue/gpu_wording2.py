"""GPU driver wordings read from their sources after batch 26's first contact.

The DRM scheduler's refusal of a job for an entity it killed (amdgpu's contexts after a hang),
virtio-gpu's error replies from the host, nouveau's falcon firmware that did not boot and the
device init it fails, Adreno's hang recovery and V3D's reset report read on their own words,
and vendor-reset's Vega 10 driver-reset refusal. Each entry names the function and file that
print it.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.gpu_other import OTHER_GPU_SIGNATURES
from kmsgd.catalogue.virt import VIRT_SIGNATURES

# vendor_reset_failure's own entry (virt.py): the wordings below are more of its event
_VENDOR_RESET_FAILURE = next(s for s in VIRT_SIGNATURES if s.tag == "vendor_reset_failure")

# nouveau_error's own entry (gpu_other.py): the wordings below are more of its event
_NOUVEAU_ERROR = next(s for s in OTHER_GPU_SIGNATURES if s.tag == "nouveau_error")

AMDGPU = "gpu.amdgpu"
NOUVEAU = "gpu.nouveau"
SOC = "gpu.soc"
VIRTUAL = "gpu.virtual"
VIRT = "virt"
_PCI = DeviceKind.PCI

GPU_WORDING2_SIGNATURES: tuple[Signature, ...] = (
    # drivers/gpu/drm/scheduler/sched_entity.c drm_sched_entity_push_job (4.19-6.18;
    # gpu_scheduler.c in 4.18, the entity with no run queue): DRM_ERROR "Trying to push to a
    # killed entity" when a job is submitted to an entity that drm_sched_entity_kill/_fini
    # stopped, which amdgpu does to a context whose job hung (amdgpu_ctx.c, amdgpu_job.c) and
    # to the entities of a process being torn down. DRM_ERROR prints its caller's name, so
    # the function in the brackets is the scheduler's or, inlined, amdgpu_job_submit's (6.x).
    # Only amdgpu's and the shared scheduler module's lines are amdgpu's: other drivers
    # (v3d, etnaviv, panfrost) print the same words from their own push paths.
    sig(
        "amdgpu_killed_entity",
        r"\[drm:\w+ \[(?:amdgpu|gpu_sched)\]\] \*ERROR\* Trying to push to a killed entity\b",
        ("killed",),
        Severity.ERROR,
        AMDGPU,
        "amdgpu refused GPU work from a context whose scheduler entity it had killed (after a "
        "GPU hang or reset, or as the process was torn down): that application's GPU use is "
        "dead until it recreates its context, and often until a reboot.",
        "Look for the ring timeout or GPU reset before it (the cause); restart the "
        "application (ROCm, a compositor); repeated ones with a working GPU point at the "
        "application not handling a lost context (update Mesa, ROCm and the kernel).",
        38,
        formats=(
            Format(
                "Trying to push to a killed entity",
                "drivers/gpu/drm/scheduler/sched_entity.c",
                "4.19-6.18",
                "[drm:drm_sched_entity_push_job [gpu_sched]] *ERROR* ",
            ),
            Format(
                "Trying to push to a killed entity",
                "drivers/gpu/drm/scheduler/sched_entity.c",
                "6.x (drm_sched_entity_push_job inlined into its caller)",
                "[drm:amdgpu_job_submit [amdgpu]] *ERROR* ",
            ),
        ),
    ),
    # drivers/gpu/drm/virtio/virtgpu_vq.c virtio_gpu_dequeue_ctrl_func (5.4-6.18 read):
    # DRM_ERROR, then DRM_ERROR_RATELIMITED, "response 0x%x (command 0x%x)" when the
    # host answers a control command with an error (VIRTIO_GPU_RESP_ERR_*, 0x1200 UNSPEC to
    # 0x1206; the OK responses 0x11xx are DRM_DEBUG "response 0x%x"): the host's renderer
    # (virglrenderer, a cross-domain proxy) refused a 3D submission or resource command, and
    # what the guest draws with it fails.
    sig(
        "virtio_gpu_error",
        r"\*ERROR\* response 0x12[0-9a-f]{2} \(command 0x[0-9a-f]+\)",
        ("response",),
        Severity.ERROR,
        VIRTUAL,
        "The virtual machine's host refused a virtio-gpu command (its 3D renderer, virgl or a "
        "cross-domain proxy, answered with an error): the guest's accelerated drawing, or "
        "the client that sent it, fails.",
        "Check the host's renderer (QEMU/crosvm with virglrenderer, its log) and that guest "
        "and host agree on the capsets (virgl, venus, cross-domain); update both.",
        38,
        formats=(
            Format(
                "response 0x%x (command 0x%x)",
                "drivers/gpu/drm/virtio/virtgpu_vq.c",
                "5.4-6.18",
                "[drm:virtio_gpu_dequeue_ctrl_func [virtio_gpu]] *ERROR* ",
                args=(0x1200, 0x207),
            ),
        ),
    ),
    # nouveau's falcon firmware loader (drivers/gpu/drm/nouveau/nvkm/falcon/fw.c
    # nvkm_falcon_fw_boot, 6.2-6.18): FLCNFW_ERR "boot failed: %d", printed as
    # "<falcon>:<firmware>: " (sec2(acr):AHESASC, gsp:booter) when the HS firmware (ACR's
    # AHESASC/ASB, GSP's booter) does not hand back the expected mailbox; and the device's
    # init that the failed step takes down (nvkm/engine/device/base.c nvkm_device_init
    # nvdev_error "init failed with %d", 4.4-6.18): nouveau leaves the GPU without
    # acceleration or without a display.
    wording(
        _NOUVEAU_ERROR,
        r"\bnouveau [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]: "
        r"(?:[\w()-]+:[\w-]+: boot failed: -?\d+|init failed with -?\d+)$",
        ("nouveau",),
        device_kind=_PCI,
        formats=(
            Format(
                "%s:%s: boot failed: %d",
                "drivers/gpu/drm/nouveau/nvkm/falcon/fw.c",
                "6.2-6.18",
                "nouveau 0000:01:00.0: ",
                args=("sec2(acr)", "AHESASC", -5),
            ),
            Format(
                "init failed with %d",
                "drivers/gpu/drm/nouveau/nvkm/engine/device/base.c",
                "4.4-6.18",
                "nouveau 0000:01:00.0: ",
                args=(-5,),
            ),
        ),
    ),
    # Adreno's hang recovery: drivers/gpu/drm/msm/msm_gpu.c recover_worker DRM_DEV_ERROR
    # "%s: hangcheck recover!" (4.4-6.18) and "%s: offending task: %s (%s)" / "%s: offending
    # task: unknown" (the submit's process), gpu->name the chip id ("6.4.0.1"; "%08x",
    # "06040001", from 6.8's ADRENO_CHIPID_FMT). The SMMU fault report before a recovery
    # (adreno_gpu.c adreno_fault_handler's "*** gpu fault: ttbr0=… iova=… dir=… type=…
    # source=…") is not read: stall-on-fault resumes the GPU, it is no hang
    # (tests/catalogue/test_sweep_nvother.py)
    sig(
        "soc_gpu_hang",
        r"\b(?:\d+\.\d+\.\d+\.\d+|[0-9a-f]{8}): (?:hangcheck recover!"
        r"|offending task: (?:unknown$|\S+ \())",
        ("hangcheck", "offending"),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (V3D, Mali, Vivante or Adreno) stopped finishing its jobs: the driver "
        "timed the job out and reset the GPU.",
        "Note the process in the lines around it; update the kernel and Mesa (v3d, panfrost, "
        "etnaviv, freedreno); repeated hangs with one application point at it or its driver.",
        38,
        formats=(
            Format(
                "%s: hangcheck recover!",
                "drivers/gpu/drm/msm/msm_gpu.c",
                "4.4-6.18",
                "msm_dpu ae01000.display-controller: [drm:recover_worker] *ERROR* ",
                args=("6.4.0.1",),
            ),
            Format(
                "%s: offending task: %s (%s)",
                "drivers/gpu/drm/msm/msm_gpu.c",
                "4.14-6.18",
                "msm_dpu ae01000.display-controller: [drm:recover_worker] *ERROR* ",
                args=("06040001", "gnome-shell", "/usr/bin/gnome-shell"),
            ),
        ),
    ),
    # drivers/gpu/drm/v3d/v3d_gem.c v3d_reset (4.18-6.18): DRM_DEV_ERROR (drm_err from 6.14,
    # drm_warn later) "Resetting GPU for hang." then "V3D_ERR_STAT: 0x%08x": no other driver
    # prints these words, so they are read without the device prefix the paste may have
    # dropped ("v3d: Resetting GPU for hang.", dmesg -t cut by hand)
    sig(
        "soc_gpu_hang",
        r"(?:^v3d: |^|\] \*ERROR\* )(?:Resetting GPU for hang\.|V3D_ERR_STAT: 0x[0-9a-f]{8})$",
        ("Resetting", "V3D_ERR_STAT"),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (V3D, Mali, Vivante or Adreno) stopped finishing its jobs: the driver "
        "timed the job out and reset the GPU.",
        "Note the process in the lines around it; update the kernel and Mesa (v3d, panfrost, "
        "etnaviv, freedreno); repeated hangs with one application point at it or its driver.",
        38,
        formats=(
            Format(
                "Resetting GPU for hang.",
                "drivers/gpu/drm/v3d/v3d_gem.c",
                "4.18-6.18",
                "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* ",
            ),
            Format(
                "V3D_ERR_STAT: 0x%08x",
                "drivers/gpu/drm/v3d/v3d_gem.c",
                "4.18-6.18",
                "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* ",
                args=(0x1000,),
            ),
        ),
    ),
    # gnif/vendor-reset src/amd/vega10.c amd_vega10_reset: vr_warn "Could not reset w/
    # PPSMC_MSG_GfxDeviceDriverReset: %d" when the SMU refuses the driver-reset message (its
    # smum code's "SMU error 0x%x" and "Failed to send message 0x%x: return 0x%x" before it);
    # the reset goes on to BACO, which on a chip the method does not fit (an APU's iGPU)
    # leaves the device as it was
    wording(
        _VENDOR_RESET_FAILURE,
        r"\bAMD_VEGA10: Could not reset w/ PPSMC_MSG_GfxDeviceDriverReset: -?\d+",
        ("PPSMC_MSG_GfxDeviceDriverReset",),
        device_kind=_PCI,
        formats=(
            Format(
                "%s: Could not reset w/ PPSMC_MSG_GfxDeviceDriverReset: %d",
                "vendor-reset:src/amd/vega10.c",
                "vendor-reset master (the tree read)",
                "vfio-pci 0000:06:00.0: ",
                args=("AMD_VEGA10", 254),
            ),
        ),
    ),
)
