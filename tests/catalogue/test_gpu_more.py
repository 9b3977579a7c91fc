"""The GPU wording of kmsgd/catalogue/gpu_more.py, and what it adds to gpu.py's and
gpu_other.py's entries: each line as the format string named in the entry prints it (with the
prefix its printing macro adds), and the routine lines beside it that must not match."""

from __future__ import annotations

import io

import pytest

from kmsgd.catalogue.table import BY_TAG, CATALOGUE
from kmsgd.commands.analyze import analyze_report
from kmsgd.report.model import Report
from tests.catalogue.lines import tags_of

_AMD = "amdgpu 0000:03:00.0: amdgpu: "
_DRM_NV = "[drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] "
_NVGPU = "nvgpu: 17000000.gpu "

# tag → (positives, negatives); the tags are gpu_more.py's own
MORE_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nvidia_api_mismatch": (
        [
            # r515-r570, one record with its embedded newlines as rsyslog escapes them
            "NVRM: API mismatch: the client has the version 535.54.03, but#012NVRM: this kernel "
            "module has the version 530.30.02.  Please#012NVRM: make sure that this kernel "
            "module and all NVIDIA driver#012NVRM: components have the same version.",
            "NVRM: API mismatch: the client has the version 570.86.15, but",
            # r575+, with the client's name and pid
            "NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)",
            "nvidia-modeset: Version mismatch: nvidia.ko(570.153.02) nvidia-modeset.ko(575.64.05)",
        ],
        [
            "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 10 2025",
            "nvidia-nvswitch: Version mismatch, kernel version 1 user version 2",
            "NVRM: this kernel module has the version 530.30.02.  Please",  # a continuation
        ],
    ),
    "nvidia_display_engine_timeout": (
        [
            "nvidia-modeset: ERROR: GPU:0: Idling display engine timed out: 0x0000c67d:0:0:1051",
            "nvidia-modeset: ERROR: GPU:1: Idling display engine timed out: 0x0000927c:1:0:830",
        ],
        [
            "nvidia-modeset: Allocated GPU:0 (GPU-1a2b3c4d) @ PCI:0000:01:00.0",
            "nvidia-modeset: WARNING: GPU:0: Unable to read EDID for display device DP-1",
        ],
    ),
    "nvidia_flip_timeout": (
        [
            _DRM_NV + "Flip event timeout on head 0",
            _DRM_NV + "Flip event timeou>",  # cut by a pager
        ],
        [
            "[drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
            "[drm:drm_atomic_helper_wait_for_flip_done [drm_kms_helper]] *ERROR* [CRTC:82:crtc-0] "
            "flip_done timed out",  # another driver's wording
        ],
    ),
    "nvidia_no_memory": (
        [
            "NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] "
            "(0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359",
            "NVRM: GPU0 nvAssertOkFailedNoLog: Assertion failed: Out of memory "
            "[NV_ERR_NO_MEMORY] (0x00000051) returned from pRmApi->Alloc @ rs_server.c:259",
        ],
        [
            "NVRM: nvCheckOkFailedNoLog: Check failed: Invalid argument [NV_ERR_INVALID_ARGUMENT] "
            "(0x0000001F) returned from rmapiControl @ rmapi.c:1072",
            "Out of memory: Killed process 1234 (python3) total-vm:1kB",
            "python3[77]: RuntimeError: [NV_ERR_NO_MEMORY] while allocating",  # not NVRM's
        ],
    ),
    "nvgpu_error": (
        [
            _NVGPU + "nvgpu_pmu_lsfm_bootstrap_ls_falcon:128  [ERR]  LSF Load failed",
            _NVGPU + "nvgpu_gr_falcon_load_secure_ctxsw_ucode:718  [ERR]  Unable to recover GR "
            "falcon",
            _NVGPU + "       nvgpu_engine_fb_queue_push:401  [ERR]  falcon id-0, queue id-1, "
            "failed",
        ],
        [
            # a routine registration error at boot on the same boards
            _NVGPU + "               nvgpu_cic_mon_init:75   [ERR]  Err inj callback "
            "registration failed: -22",
            _NVGPU + "            gk20a_probe:123  [INFO]  GPU probed",
        ],
    ),
    "amdgpu_ras_uncorrectable": (
        [
            _AMD + "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
            "amdgpu 0000:15:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) "
            "detected!",
            "[drm] RAS event of type ERREVENT_ATHUB_INTERRUPT detected! [amdgpu]",
            _AMD + "2 uncorrectable hardware errors detected in umc block",
            _AMD + "socket: 0, die: 1, 4 new uncorrectable hardware errors detected in umc block",
            _AMD + "socket: 0, die: 1, 8 uncorrectable hardware errors detected in total in umc "
            "block",
        ],
        [
            _AMD + "no uncorrectable hardware errors detected in umc block",  # the all-clear
            _AMD + "0 uncorrectable hardware errors detected in umc block",
            # amdgpu_ras.c poison creation: a deferred error the driver handles itself
            _AMD + "{3} RAS poison is created, no user action is needed.",
            _AMD + "Poison is created, no user action is needed.",
            _AMD + "3 correctable hardware errors detected in gfx block",
            _AMD + "RAS INFO: ras initialized successfully, hardware ability[7fff] ras_mask[7fff]",
        ],
    ),
    "amdgpu_sdma_illegal_command": (
        [
            _AMD + "SDMA gets an Register Write SRBM_WRITE command in non-privilege command buffer",
        ],
        [
            _AMD + "[sdma0] address:0x0000000000048000 src_id:247 ring:2 vmid:8 pasid:32786",
            "[drm] sdma0: ring test succeeded",
        ],
    ),
    "amdgpu_ring_test_failure": (
        [
            "[drm:gfx_v8_0_ring_test_ring [amdgpu]] *ERROR* amdgpu: ring 2 test failed "
            "(scratch(0xC040)=0xCAFEDEAD)",
            "[drm:gfx_v8_0_ring_test_ib [amdgpu]] *ERROR* amdgpu: ib test failed "
            "(scratch(0xC040)=0xCAFEDEAD)",
            "[drm:amdgpu_ib_ring_tests [amdgpu]] *ERROR* amdgpu: failed testing IB on GFX ring "
            "(-110).",
            "amdgpu 0000:04:00.0: [drm:amdgpu_ring_test_helper [amdgpu]] *ERROR* ring kiq_2.1.0 "
            "test failed (-110)",
            "amdgpu 0000:04:00.0: [drm:amdgpu_ib_ring_tests [amdgpu]] *ERROR* IB test failed on "
            "gfx_0.0.0 (-110).",
        ],
        [
            "[drm] ring test on 0 succeeded in 1 usecs",
            "amdgpu 0000:04:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0",
            "[drm:r600_ib_test [radeon]] *ERROR* radeon: ib test failed (scratch(0x8500)="
            "0xCAFEDEAD)",  # radeon's
        ],
    ),
}

# what gpu_more.py, gpu.py and gpu_other.py add to tags that other modules own
ADDED_WORDING: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_smu_timeout": (
        [
            _AMD + "SMC is not ready",
            _AMD + "SMC engine is not correctly up!",
            "[drm:amdgpu_device_ip_resume_phase2 [amdgpu]] *ERROR* resume of IP block <smu> "
            "failed -5",
            _AMD + "SMU is not ready yet!",
        ],
        [
            _AMD + "SMU is resuming...",
            "[drm:amdgpu_device_ip_resume_phase2 [amdgpu]] *ERROR* resume of IP block "
            "<sdma_v4_0> failed -110",
            _AMD + "SMU is resumed successfully!",
        ],
    ),
    "iommu_fault": (
        [
            "iommu ivhd1: AMD-Vi: Event logged [INVALID_DEVICE_REQUEST device=0000:00:00.0 "
            "pasid=0x00000 address=0xfffffffdf8000000 flags=0x0a00]",
            "iommu ivhd0: AMD-Vi: Event logged [INVALID_DEVICE_REQUEST device=30:00.6 "
            "pasid=0x00000 address=0xfffffffdf8000000 flags=0x0a00]",  # before 6.0
        ],
        ["AMD-Vi: Interrupt remapping enabled", "pci 0000:00:00.2: AMD-Vi: Found IOMMU cap 0x40"],
    ),
    "gpu_fell_off_bus": (
        [
            "NVRM: nvCheckOkFailedNoLog: Check failed: GPU lost from the bus "
            "[NV_ERR_GPU_IS_LOST] (0x0000000F) returned from nvdEngineDumpCallbackHelper(pGpu, "
            "pPrbEnc, pNvDumpState, pEngineCallback) @ nv_debug_dump.c:274",
        ],
        [
            "NVRM: nvCheckOkFailedNoLog: Check failed: GPU currently in full-chip reset "
            "[NV_ERR_GPU_IN_FULLCHIP_RESET] (0x00000010) returned from kbusFlush @ kern_bus.c:1",
        ],
    ),
    "nvidia_init_failure": (
        [
            "NVRM: gpuWaitForGfwBootComplete_TU102: failed to wait for GFW_BOOT: (progress 0x3)",
            "NVRM: kgspWaitForGfwBootOk_TU102: failed to wait for GFW boot complete: 0x65 VBIOS "
            "version 94.02.59.00.05",
            "NVRM: GPU0 gpuWaitForGfwBootComplete_TU102: GSP failed to halt with GFW_BOOT: "
            "(progress 0x0)",
        ],
        ["NVRM: GPU0 kgspBootstrap_TU102: GSP-RM is booting, GFW boot complete"],
    ),
    "radeon_gpu_lockup": (
        [
            "[drm:radeon_ib_ring_tests [radeon]] *ERROR* radeon: failed testing IB on GFX ring "
            "(-110).",
            "[drm:radeon_ib_ring_tests [radeon]] *ERROR* radeon: failed testing IB on ring 5 "
            "(-110).",
            "[drm:r600_ib_test [radeon]] *ERROR* radeon: fence wait timed out.",
            "[drm:r600_ring_test [radeon]] *ERROR* radeon: ring 0 test failed (scratch(0x8504)="
            "0xCAFEDEAD)",
        ],
        [
            "[drm] ib test on ring 0 succeeded in 0 usecs",
            "radeon 0000:01:00.0: GPU softreset: 0x00000049",
        ],
    ),
    "nouveau_error": (
        ["nouveau 0000:01:00.0: unknown chipset (ffffffff)"],
        ["nouveau 0000:01:00.0: NVIDIA GP107 (137000a1)"],
    ),
}


def analyze_text(text: str) -> Report:
    return analyze_report(io.BytesIO(text.encode()), name="paste")[0]


def _primary(text: str) -> str | None:
    p = analyze_text(text).primary
    return p.tag if p is not None else None


@pytest.mark.parametrize("tag", sorted(MORE_EXAMPLES) + sorted(ADDED_WORDING))
def test_the_drivers_lines_match_and_routine_ones_do_not(tag: str) -> None:
    positives, negatives = MORE_EXAMPLES.get(tag) or ADDED_WORDING[tag]
    for line in positives:
        assert tag in tags_of(line), line
    for line in negatives:
        assert tag not in tags_of(line), line


def test_a_userspace_line_with_the_words_is_not_the_drivers() -> None:
    line = "logger[12]: NVRM: API mismatch: the client 'x' (pid 1)"
    assert "nvidia_api_mismatch" not in tags_of(line, facility=1)


def test_a_tag_keeps_the_meaning_of_its_own_module() -> None:
    # the wording gpu_more.py adds to a tag never replaces the meaning and next step of that
    # tag's own entry (gpu.py, hardware.py): a report describes the tag by its first entry
    for tag in ("amdgpu_smu_timeout", "iommu_fault"):
        entries = [s for s in CATALOGUE if s.tag == tag]
        assert len(entries) >= 2  # the tag's own entry, other modules' wording, gpu_more's last
        assert BY_TAG[tag] is entries[0]
        assert not entries[0].next_step.startswith("See ")
        assert entries[-1].next_step.startswith("See ")


def test_the_api_mismatch_leads_the_init_failure_it_causes() -> None:
    text = (
        "[   12.014918] NVRM: API mismatch: the client has the version 570.153.02, but\n"
        "[   12.014920] NVRM: this kernel module has the version 570.144.  Please\n"
        "[   12.105293] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x0:2355)\n"
        "[   12.105300] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n"
    )
    assert _primary(text) == "nvidia_api_mismatch"


def test_a_ras_error_leads_the_reset_it_triggers() -> None:
    text = (
        "[ 918.654913] amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error"
        "(ERREVENT_ATHUB_INTERRUPT) detected!\n"
        "[ 918.700000] amdgpu 0000:e3:00.0: amdgpu: GPU reset begin!\n"
        "[ 921.700000] amdgpu 0000:e3:00.0: amdgpu: MODE1 reset\n"
    )
    assert _primary(text) == "amdgpu_ras_uncorrectable"


def test_the_routine_iommu_event_of_a_reset_does_not_lead_the_ring_timeout() -> None:
    text = (
        "[ 89.100000] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, "
        "emitted seq=3\n"
        "[ 89.100100] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
        "[ 90.125450] iommu ivhd1: AMD-Vi: Event logged [INVALID_DEVICE_REQUEST device="
        "0000:00:00.0 pasid=0x00000 address=0xfffffffdf8000000 flags=0x0a00]\n"
    )
    report = analyze_text(text)
    assert _primary(text) == "amdgpu_ring_timeout"
    assert "iommu_fault" in {s.tag for s in report.signatures}


@pytest.mark.parametrize("tag", ["gpu_fell_off_bus", "radeon_gpu_lockup", "amdgpu_smu_timeout"])
def test_the_recorder_starts_an_incident_on_the_same_lines(tag: str) -> None:
    # kmsgd/record/triggers.py repeats the patterns of the entries with a trigger
    from tests.record.test_triggers import _catalogue_says, _recorder_says

    positives, negatives = ADDED_WORDING[tag]
    for line in positives + negatives:
        want, got = _catalogue_says(line), _recorder_says(line)
        assert got <= want and bool(got) == bool(want), (line, want, got)
