"""The wordings the second half of corpus batch 26 (docs/accuracy.md) showed no entry read: the
DRM scheduler's killed-entity refusal, virtio-gpu's error replies, nouveau's falcon firmware
boot and device init failures, Adreno's hang recovery, V3D's reset report without its device,
vendor-reset's Vega 10 driver-reset refusal; each line written from its source's format string
(file named in the catalogue entry, kmsgd/catalogue/gpu_wording2.py), the lines printed beside
them that must not match, and what the judge makes of them."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, paste_primary, primary_of

# tag → (positives, negatives)
FIX26B_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_killed_entity": (
        [
            "[drm:drm_sched_entity_push_job [gpu_sched]] *ERROR* Trying to push to a killed entity",
            "[drm:amdgpu_job_submit [amdgpu]] *ERROR* Trying to push to a killed entity",
        ],
        [
            # the same words from another driver's push path, the KFD line beside it
            "[drm:v3d_push_job [v3d]] *ERROR* Trying to push to a killed entity",
            "amdgpu: Freeing queue vital buffer 0x7f0000200000, queue evicted",
        ],
    ),
    "virtio_gpu_error": (
        [
            "[drm:virtio_gpu_dequeue_ctrl_func [virtio_gpu]] *ERROR* response 0x1200 "
            "(command 0x207)",
            "[drm:virtio_gpu_dequeue_ctrl_func [virtio_gpu]] *ERROR* response 0x1203 "
            "(command 0x104)",
        ],
        [
            # the probe's feature lines and the OK responses' debug line
            "[drm] features: +virgl -edid +resource_blob +host_visible",
            "[drm:virtio_gpu_dequeue_ctrl_func [virtio_gpu]] response 0x1101",
        ],
    ),
    "nouveau_error": (
        [
            "nouveau 0000:01:00.0: sec2(acr):AHESASC: boot failed: -5",
            "nouveau 0000:2b:00.0: gsp:booter-load: boot failed: -110",
            "nouveau 0000:01:00.0: init failed with -5",
        ],
        [
            # the mailbox dump before it, the DRM client's echo (no device), a debug line
            "nouveau 0000:01:00.0: sec2(acr): mbox 00000007 00000000",
            "nouveau: DRM-master:00000000:00000080: init failed with -5",
            "nouveau 0000:01:00.0: sec2(acr):AHESASC: booted",
        ],
    ),
    "soc_gpu_hang": (
        [
            "msm_dpu ae01000.display-controller: [drm:recover_worker] *ERROR* 6.4.0.1: "
            "hangcheck recover!",
            "adreno 3d00000.gpu: [drm:recover_worker] *ERROR* 06040001: offending task: "
            "kwin_wayland (/usr/bin/kwin_wayland --wayland-fd 7)",
            "msm 5000000.gpu: [drm:recover_worker] *ERROR* 5.3.0.2: offending task: unknown",
            "v3d: Resetting GPU for hang.",
            "Resetting GPU for hang.",
            "V3D_ERR_STAT: 0x00001000",
            "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* V3D_ERR_STAT: 0x00001000",
        ],
        [
            # vc4's reset (its own words), a prose mention, a register dump of another chip,
            # Adreno's SMMU fault (stall-on-fault resumes: no hang)
            "vc4-drm gpu: [drm:vc4_reset [vc4]] *ERROR* Resetting GPU.",
            "*** gpu fault: ttbr0=0000000101fd5000 iova=0000000001074000 dir=WRITE "
            "type=PERMISSION source=1f030000 (0,0,0,0)",
            "the log says gpu fault: ttbr0 is zero",
            "V3D_ERR_STAT is 0x00001000",
        ],
    ),
    "vendor_reset_failure": (
        [
            "vfio-pci 0000:06:00.0: AMD_VEGA10: Could not reset w/ "
            "PPSMC_MSG_GfxDeviceDriverReset: 254",
        ],
        [
            # its steps before and after: the driver-reset attempt, the BACO fallback
            "vfio-pci 0000:06:00.0: AMD_VEGA10: Driver reset",
            "vfio-pci 0000:06:00.0: AMD_VEGA10: entering BACO",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX26B_EXAMPLES))
def test_fix26b_wording(tag: str) -> None:
    check_wording(FIX26B_EXAMPLES, tag)


def test_killed_entity_after_ring_timeout_is_its_effect_by_time() -> None:
    """The ring timeout is printed first and leads the refusals that follow it."""
    timeout = (
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled "
        "seq=100, emitted seq=101"
    )
    killed = FIX26B_EXAMPLES["amdgpu_killed_entity"][0][1]
    assert primary_of(timeout, killed) == "amdgpu_ring_timeout"
    assert primary_of(killed) == "amdgpu_killed_entity"


def test_bare_v3d_paste_is_read() -> None:
    """A paste of v3d_reset's two lines cut to "v3d: …" and the bare register line is read
    (kmsgd/logparse/salvage.py) and names the SoC GPU hang."""
    assert paste_primary("v3d: Resetting GPU for hang.\nV3D_ERR_STAT: 0x00001000\n") == (
        "soc_gpu_hang"
    )
