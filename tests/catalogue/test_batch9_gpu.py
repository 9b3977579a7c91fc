"""GPU wording that corpus batch 9 (docs/accuracy.md) showed missing, swept from the drivers'
error paths: Intel's GPU that does not come up or whose GuC stops answering, amdgpu's display
microcontroller, DRM's commit that never completes, the driver core's probe failure for the
GPU drivers, and the culprit order these events take (kmsgd/judge/chains.py MAY_CAUSE). Each
line is written as its format string prints it (file named in the catalogue entry), beside
lines of the same driver or the same words from elsewhere that must not match."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.base import DeviceKind
from kmsgd.catalogue.probe import GPU_DRIVERS
from kmsgd.catalogue.table import extract_device
from kmsgd.record import triggers
from tests.catalogue.lines import check_wording, primary_of, tags_of

# tag → (positives, negatives)
BATCH9_GPU_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "i915_init_failure": (
        [
            "i915 0000:0d:00.0: [drm] GT0: GUC: load failed: status = 0x40000056, time = 0ms, "
            "freq = 2050MHz, ret = -8",
            # a pager cut inside the line, as the Arc A770 report has it
            "i915 0000:0d:00.0: [drm] GT0: GUC: load failed: status = 0x40000056, time = 0ms, freq",
            "i915 0000:00:02.0: [drm] GuC load failed: status = 0x0000F0F0",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: GuC initialization failed -ENOEXEC",
            "i915 0000:00:02.0: [drm] *ERROR* GuC initialization failed -110",
            "i915 0000:00:02.0: [drm] *ERROR* Failed to initialize GPU, declaring it wedged!",
            "i915 0000:00:02.0: Device initialization failed (-5)",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: Unsupported GuC v70.20.0! v70.29.2 or newer is "
            "required",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: Unsupported GuC v70.5! v70.19 or newer is "
            "required",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: GuC init failed with -EINVAL",
            "xe 0000:00:02.0: [drm] *ERROR* Tile0: GT0: Unsupported GuC v70.20.0! v70.29.2 or "
            "newer is required",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: Failed to initialize uC (-EINVAL)",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: load failed: status = 0x8002F034, time = 200ms, "
            "freq = 1300MHz (req 1300MHz), done = -1",
            "xe 0000:00:02.0: probe with driver xe failed with error -22",
            "i915: probe of 0000:00:02.0 failed with error -5",
        ],
        [
            # firmware found and loaded, and the notices of a missing optional firmware
            "i915 0000:0d:00.0: [drm] GT0: GuC firmware i915/dg2_guc_70.25.0.bin version 70.25.0",
            "i915 0000:00:02.0: [drm] GuC is uninitialized",
            # HuC only authenticates media: its load failing leaves the GPU up
            "i915 0000:00:02.0: [drm] *ERROR* Failed to load HuC firmware i915/tgl_huc.bin (-110)",
            # another driver's probe, and the deferral the driver core only logs at debug
            "snd_hda_intel 0000:00:1f.3: probe with driver snd_hda_intel failed with error -22",
            "xe 0000:00:02.0: Driver xe requests probe deferral",
        ],
    ),
    "i915_gpu_hang": (
        [
            "[drm:__intel_uc_reset_hw [i915]] *ERROR* Failed to reset GuC, ret = -110",
            "[i915] *ERROR* Failed to reset GuC, ret = -110",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: Failed to reset GuC, ret = -110",
            "[drm:wait_for_ct_request_update [i915]] *ERROR* CT: fence 168 err -62",
            "i915 0000:30:00.0: [drm] *ERROR* GT0 [GUC COMMUNICATION] CT: No response for request "
            "0x5503 (fence 168)",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: GUC: CT: Sending action 0x5503 failed (-ETIME) "
            "status=0X0",
            "i915 0000:30:00.0: [drm] *ERROR* GT0 [GUC COMMUNICATION] CT: Sending action 0x5503 "
            "failed (-ETIME)",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: GUC: CT: Communication stalled for 1501 ms, "
            "desc status=0,0",
            "i915 0000:30:00.0: [drm] tlb invalidation response timed out for seqno 3",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: GUC: TLB invalidation response timed out for "
            "seqno 23",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: Failed to reset chip",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: intel_gt_reset_global timed out, cancelling all "
            "in-flight rendering.",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: reset failed (-ETIMEDOUT)",
            "xe 0000:00:02.0: [drm] *ERROR* CRITICAL: Xe has declared device 0000:00:02.0 as "
            "wedged.",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: Timed out wait for G2H, fence 1024, action 3003, "
            "done no",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: TLB invalidation fence timeout, seqno=12 recv=10",
            "xe 0000:03:00.0: [drm] Tile0: GT0: Kernel-submitted job timed out",
            "[drm] stuck on render ring",
            "[drm] no progress on bsd ring",
            "[drm] GPU crash dump saved to /sys/class/drm/card0/error",
            "[drm:i915_reset] *ERROR* Failed to reset chip.",
            "xe 0000:03:00.0: [drm] Tile0: GT0: Schedule disable failed to respond, guc_id=3",
            "xe 0000:03:00.0: [drm] *ERROR* Tile0: GT0: reset failed (-ETIMEDOUT)",
        ],
        [
            "xe 0000:00:02.0: [drm] GT0: reset done",
            "xe 0000:03:00.0: [drm] Tile0: GT0: reset queued",
            "i915 0000:30:00.0: [drm] IOV0: Failed to push configurations (-ESTALE)",
            # a NIC's firmware command that got no answer
            "mlx5_core 0000:3b:00.0: wait_func:1160: NOP(0x101) timeout. Will cause a leak",
            # the same words without Intel's driver
            "Failed to reset chip",
            "[drm] GPU hangs can indicate a bug anywhere in the entire gfx stack, including "
            "userspace.",
        ],
    ),
    "amdgpu_dmcub_error": (
        [
            "amdgpu 0000:64:00.0: [drm] ERROR dc_dmub_srv_log_diagnostic_data: DMCUB error - "
            "collecting diagnostic data",
            "amdgpu 0000:0b:00.0: [drm] *ERROR* dc_dmub_srv_log_diagnostic_data: DMCUB error - "
            "collecting diagnostic data",
            "[drm] *ERROR* dc_dmub_srv_log_diagnostic_data: DMCUB error - collecting diagnostic "
            "data",
            "amdgpu 0000:c1:00.0: [drm] *ERROR* Error queueing DMUB command: status=2",
            "[drm:dc_dmub_srv_wait_idle [amdgpu]] *ERROR* Error waiting for DMUB idle: status=3",
        ],
        [
            # the firmware starting, and its load failing (amdgpu_init_failure)
            "[drm] DMUB hardware initialized: version=0x08004D00",
            "[drm:dm_dmub_sw_init [amdgpu]] *ERROR* Error creating DMUB service: 2",
            # a register wait of the display core: routine noise on many boxes
            "amdgpu 0000:c1:00.0: [drm] REG_WAIT timeout 1us * 100000 tries - "
            "mpc2_assert_idle_mpcc line:479",
        ],
    ),
    "drm_flip_timeout": (
        [
            "amdgpu 0000:64:00.0: [drm] ERROR [CRTC:80:crtc-0] flip_done timed out",
            "amdgpu 0000:04:00.0: [drm] *ERROR* [CRTC:79:crtc-0] flip_done timed out",
            "i915 0000:00:02.0: [drm] *ERROR* [CRTC:82:pipe A] flip_done timed out",
            "[drm:drm_atomic_helper_wait_for_flip_done [drm_kms_helper]] *ERROR* [CRTC:57:crtc-0] "
            "flip_done timed out",
            "[drm:drm_atomic_helper_wait_for_dependencies [drm_kms_helper]] *ERROR* "
            "[CRTC:57:crtc-0] hw_done timed out",
            "[drm:drm_crtc_commit_wait [drm]] *ERROR* flip_done timed out",
            "[drm:drm_atomic_helper_wait_for_dependencies [drm_kms_helper]] *ERROR* "
            "[PLANE:31:plane-0] commit wait timed out",
            "[CRTC:82:pipe A] vblank wait timed out",
        ],
        [
            # nvidia-drm's own flip event timeout is nvidia_flip_timeout's
            "[drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] "
            "Flip event timeout on head 0",
            # amdgpu's wait for the frame's rendering: the ring timeout reports that hang
            "[drm:amdgpu_dm_atomic_commit_tail [amdgpu]] *ERROR* Waiting for fences timed out!",
            "usb 1-1: device descriptor read/64, error -110 timed out",
        ],
    ),
    "soc_gpu_hang": (
        [
            "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* Resetting GPU for hang.",
            "v3d 1002000000.v3d: [drm] *ERROR* Resetting GPU for hang.",
            "panfrost ff9a0000.gpu: gpu sched timeout, js=1, config=0x7300, status=0x8, "
            "head=0x1000, tail=0x1000, sched_job=00000000a1b2c3d4",
            "etnaviv-gpu 38000000.gpu: recover hung GPU!",
            "msm_dpu ae01000.display-controller: [drm:hangcheck_handler [msm]] *ERROR* 5.0.6.0: "
            "hangcheck detected gpu lockup rb 0!",
        ],
        [
            "v3d fec00000.v3d: [drm] Using Broadcom V3D 4.2 (rev 14)",
            "panfrost ff9a0000.gpu: unexpectedly high interrupt latency",
            "v3d fec00000.v3d: [drm] V3D_ERR_STAT: 0x00001000",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH9_GPU_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH9_GPU_EXAMPLES, tag)


@pytest.mark.parametrize("tag", ["i915_gpu_hang", "drm_flip_timeout", "soc_gpu_hang"])
def test_the_recorder_starts_an_incident_on_the_same_lines(tag: str) -> None:
    # kmsgd/record/triggers.py carries its own copy of these entries' patterns
    positives, negatives = BATCH9_GPU_EXAMPLES[tag]
    for line in positives:
        hit = triggers.match(b"3,1,2,-;" + line.encode() + b"\n")
        assert hit is not None and hit.tag == tag, line
    for line in negatives:
        hit = triggers.match(b"3,1,2,-;" + line.encode() + b"\n")
        assert hit is None or hit.tag != tag, line


@pytest.mark.parametrize(("driver", "tag"), sorted(GPU_DRIVERS.items()))
def test_a_gpu_drivers_probe_failure_is_its_init_failure(driver: str, tag: str) -> None:
    # drivers/base/dd.c: dev_err (6.12+) and the older pr_warn
    assert tag in tags_of(
        f"{driver} 0000:03:00.0: probe with driver {driver} failed with error -22"
    )
    assert tag in tags_of(f"{driver}: probe of 0000:03:00.0 failed with error -5")


@pytest.mark.parametrize(
    "line",
    [
        "ahci 0000:00:17.0: probe with driver ahci failed with error -12",
        "nvidia-drm: probe of 0000:01:00.0 failed with error -1",
        # NVIDIA's probe declines the GPUs it is told to leave to vfio-pci (probe.py)
        "nvidia 0000:01:00.0: probe with driver nvidia failed with error -1",
        "snd_hda_intel: probe of 0000:01:00.1 failed with error -16",
        # the probes the driver core reports at debug level only are not failures
        "amdgpu 0000:03:00.0: probe with driver amdgpu rejects match -19",
    ],
)
def test_another_drivers_probe_failure_is_no_gpu_failure(line: str) -> None:
    assert not {t for t in tags_of(line) if t.endswith("init_failure")}, line


DMCUB = (
    "amdgpu 0000:64:00.0: [drm] ERROR dc_dmub_srv_log_diagnostic_data: DMCUB error - collecting "
    "diagnostic data"
)
FLIP = "amdgpu 0000:64:00.0: [drm] ERROR [CRTC:80:crtc-0] flip_done timed out"
RING = (
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=159760, "
    "emitted seq=159762"
)
RESET = "amdgpu 0000:2f:00.0: amdgpu: GPU reset begin!"
FAULT = (
    "amdgpu 0000:2f:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001a "
    "address=0xec68053da00 flags=0x0010]"
)
OTHER_FAULT = (
    "nvme 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000c address=0xfffc0000 "
    "flags=0x0020]"
)
HARD_LOCKUP = "NMI watchdog: Watchdog detected hard LOCKUP on cpu 8"


def test_the_display_firmware_leads_the_flip_it_stalls() -> None:
    assert primary_of(DMCUB, FLIP) == "amdgpu_dmcub_error"


def test_a_flip_timeout_follows_the_gpu_hang_it_waited_on_in_either_order() -> None:
    # the commit's 10 s wait and the ring's 10 s timeout race: either may be printed first
    assert primary_of(FLIP, RING) == "amdgpu_ring_timeout"
    assert primary_of(RING, FLIP) == "amdgpu_ring_timeout"


def test_a_flip_timeout_alone_is_the_culprit() -> None:
    assert primary_of(FLIP) == "drm_flip_timeout"
    assert primary_of("i915 0000:00:02.0: [drm] *ERROR* [CRTC:82:pipe A] flip_done timed out") == (
        "drm_flip_timeout"
    )


def test_an_iommu_fault_of_the_gpu_being_reset_is_the_resets_consequence() -> None:
    assert primary_of(RING, RESET, FAULT) == "amdgpu_ring_timeout"
    # the older AMD-Vi wording names the device without its PCI domain
    old = (
        "AMD-Vi: Event logged [IO_PAGE_FAULT device=2f:00.0 domain=0x001a address=0x1000 "
        "flags=0x0010]"
    )
    assert primary_of(RESET, old) == "amdgpu_gpu_reset"


@pytest.mark.parametrize(
    ("line", "device"),
    [
        (FAULT, "0000:2f:00.0"),
        # AMD-Vi's and VT-d's own wording name the device without its PCI domain
        (
            "AMD-Vi: Event logged [IO_PAGE_FAULT device=2f:00.0 domain=0x001a address=0x1000 "
            "flags=0x0010]",
            "0000:2f:00.0",
        ),
        (
            "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault "
            "reason 0x06] PTE Read access is not set",
            "0000:00:02.0",
        ),
    ],
)
def test_the_iommus_fault_names_the_device(line: str, device: str) -> None:
    assert extract_device(DeviceKind.PCI, line) == device


def test_a_vt_d_fault_of_the_intel_gpu_after_its_hang_is_the_hangs_consequence() -> None:
    hang = "i915 0000:00:02.0: [drm] GPU HANG: ecode 12:1:0020fffe, in Xorg [1676]"
    dmar = (
        "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault "
        "reason 0x06] PTE Read access is not set"
    )
    assert primary_of(hang, dmar) == "i915_gpu_hang"
    assert primary_of(dmar, hang) == "iommu_fault"


def test_an_iommu_fault_still_leads_without_a_gpu_failure_before_it() -> None:
    assert primary_of(FAULT) == "iommu_fault"
    # printed before the GPU failed: the fault may be the cause (a GPU reading unmapped memory)
    assert primary_of(FAULT, RING, RESET) == "iommu_fault"
    # another device's fault is no consequence of this GPU's reset
    assert primary_of(RING, RESET, OTHER_FAULT) == "iommu_fault"


def test_a_guc_that_cannot_be_reset_leads_the_hard_lockups_after_it() -> None:
    assert primary_of("[i915] *ERROR* Failed to reset GuC, ret = -110", HARD_LOCKUP) == (
        "i915_gpu_hang"
    )


def test_intels_gpu_that_does_not_come_up_is_an_init_failure() -> None:
    assert (
        primary_of(
            "xe 0000:00:02.0: [drm] *ERROR* GT0: Unsupported GuC v70.20.0! v70.29.2 or newer is "
            "required",
            "xe 0000:00:02.0: [drm] *ERROR* GT0: GuC init failed with -EINVAL",
            "xe 0000:00:02.0: [drm] *ERROR* Tile0: GT0: Unsupported GuC v70.20.0! v70.29.2 or "
            "newer is required",
            "xe 0000:00:02.0: probe with driver xe failed with error -22",
        )
        == "i915_init_failure"
    )
