"""amdgpu wordings added from the AMD source sweep (kmsgd/catalogue/gpu_amd.py): the thermal
shutdown, the RAS bad-page threshold, the video engines that never start, the SR-IOV
mailbox and RLCG path, the VBIOS not found, 6.14's MES pipe, 6.10's per-ring reset, the TLB
flush never acknowledged, the KIQ queue map, RAS poison consumed, and radeon's failed reset.
Each wording as its format prints it behind its printing macro's prefix, read through
kmsgd's own reader; the routine lines beside it that must not become culprits."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, tags_of

AMD = "amdgpu 0000:03:00.0: amdgpu: "
AMD_NOFMT = "amdgpu 0000:03:00.0: "


def _drm(func: str, module: str = "amdgpu") -> str:
    return f"[drm:{func} [{module}]] *ERROR* "


# tag → (lines that carry it, lines with the same words that must not)
SWEEP_AMD_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "thermal_critical": (
        [
            AMD + "ERROR: GPU HW Critical Temperature Fault(aka CTF) detected!",
            AMD + "ERROR: System is going to shutdown due to GPU HW CTF!",
            AMD + "ERROR: System is going to shutdown due to GPU SW CTF!",
            AMD_NOFMT + "System is going to shutdown due to SW CTF!",
        ],
        [
            # the thermal interrupt's other edges: a warning, no shutdown
            AMD + "ERROR: GPU under temperature range detected!",
            AMD_NOFMT + "amdgpu: CTF threshold set to 110 C",
        ],
    ),
    "amdgpu_ras_bad_page_threshold": (
        [
            AMD + "RAS records:312 exceed threshold:256, GPU will not be initialized. "
            "Replace this GPU or increase the threshold",
            AMD + "GPU will not be initialized. Replace this GPU or increase the threshold.",
            AMD + "RAS records:312 exceed threshold:256",
        ],
        [
            # the override that keeps the GPU up, and the advice line: no second event
            AMD + "GPU will be initialized due to bad_page_threshold = -1.",
            AMD + "Please consult AMD Service Action Guide (SAG) for appropriate service "
            "procedures.",
            AMD + "RAS: optional ras ta ucode is not available",
            "mlx5_core 0000:41:00.0: records 3 exceed threshold:2",
        ],
    ),
    "amdgpu_video_engine_failure": (
        [
            _drm("uvd_v6_0_start") + "UVD not responding, giving up!!!",
            _drm("vce_v3_0_start") + "VCE not responding, giving up!!!",
            _drm("vcn_v1_0_start_spg_mode") + "VCN decode not responding, giving up!!!",
            _drm("vcn_v2_5_start") + "VCN[1] decode not responding, giving up!!!",
            AMD + "VCN decode not responding, giving up!!!",
        ],
        [
            # a retry that may still succeed
            _drm("uvd_v6_0_start") + "UVD not responding, trying to reset the VCPU!!!",
            _drm("vcn_v1_0_start_spg_mode")
            + "VCN decode not responding, trying to reset the VCPU!!!",
            # radeon's own UVD: not amdgpu's
            _drm("uvd_v1_0_start", "radeon") + "UVD not responding, giving up!!!",
        ],
    ),
    "amdgpu_vf_mailbox_error": (
        [
            "amdgpu: Doesn't get TRN_MSG_ACK from pf in 500 msec",
            AMD + "Doesn't get TRN_MSG_ACK from pf in 500 msec ",
            "amdgpu: Doesn't get msg:5 from pf, error=-62",
            AMD + "timeout: rlcg faled to program reg: 0x0a2c0",
            AMD + "timeout: rlcg failed to program reg: 0x0a2c0",
            AMD + "register is not in range, rlcg failed to program reg: 0x0a2c0",
            AMD + "waiting IDH_FLR_NOTIFICATION_CMPL timeout",
        ],
        [
            AMD + "SRIOV is enabled in VM",
            AMD + "Got AI IDH_FLR_NOTIFICATION_CMPL after 120 ms",
            AMD + "use vbios provided pptable",
        ],
    ),
    "amdgpu_init_failure": (
        [
            _drm("amdgpu_get_bios") + "Unable to locate a BIOS ROM",
            AMD + "Unable to locate a BIOS ROM",
            AMD + "rlc autoload: gc ucode autoload timeout",
            _drm("psp_v11_0_ring_create") + "Failed to wait for sOS ready for ring creation",
            _drm("psp_v13_0_ring_create") + "Failed to wait for trust OS ready for ring creation",
        ],
        [
            # radeon's and vendor-reset's copies of the words
            _drm("radeon_get_bios", "radeon") + "Unable to locate a BIOS ROM",
            "vendor-reset-drm: Unable to locate a BIOS ROM",
            AMD + "Fetched VBIOS from ROM BAR",
            AMD + "ATOM BIOS: 113-D4120100-100",
        ],
    ),
    "amdgpu_mes_timeout": (
        [
            AMD + "MES(0) failed to respond to msg=REMOVE_QUEUE",
            AMD + "MES(1) failed to respond to msg=MISC (WRITE_REG)",
            AMD + "MES(0, 1) failed to respond to msg=SET_HW_RSRC",
            AMD + "MES(0) failed to respond to msg=14",
        ],
        [AMD + "MES(0) msg=14 was emitted", AMD + "MES FW version must be >= 0x7f"],
    ),
    "amdgpu_gpu_reset": (
        [
            AMD + "Ring gfx_0.0.0 reset failure",
            AMD + "Ring comp_1.3.0 reset failed",
            AMD + "GPU mode1 reset failed",
            AMD + "GPU psp mode1 reset failed",
            AMD + "GPU smu mode1 reset failed",
            AMD_NOFMT + "[drm] device wedged, needs recovery",
        ],
        [
            # the per-ring reset that starts, or worked: the GPU runs on
            AMD + "Starting gfx_0.0.0 ring reset",
            AMD + "Ring gfx_0.0.0 reset succeeded",
            # vendor-reset's own mode1 reset of a passed-through card
            "vfio-pci 0000:0b:00.0: vega20: psp mode1 reset failed",
            AMD_NOFMT + "[drm] device wedged, but recovered through reset",
            "xe 0000:03:00.0: [drm] device wedged, needs recovery",
        ],
    ),
    "amdgpu_ring_timeout": (
        [
            _drm("gmc_v9_0_flush_gpu_tlb") + "Timeout waiting for VM flush ACK!",
            _drm("gmc_v10_0_flush_gpu_tlb") + "Timeout waiting for VM flush hub: 0!",
            _drm("gmc_v11_0_flush_gpu_tlb") + "Timeout waiting for sem acquire in VM flush!",
            AMD + "Timeout waiting for VM flush ACK!",
        ],
        [
            AMD + "PCIE GART of 512M enabled (table at 0x0000008000300000).",
            "nvme nvme0: Timeout waiting for flush",
        ],
    ),
    "amdgpu_ring_test_failure": (
        [
            _drm("amdgpu_gfx_enable_kcq") + "KCQ enable failed",
            _drm("gfx_v9_0_hw_init") + "KCQ enable failed",
            AMD + "KGQ enable failed",
            _drm("gfx_v9_0_kiq_kcq_enable") + "KCQ enable failed (scratch(0xC040)=0xCAFEDEAD)",
        ],
        [AMD_NOFMT + "[drm] kiq ring mec 2 pipe 1 q 0", AMD + "KCQ enabled"],
    ),
    "amdgpu_ras_uncorrectable": (
        [
            AMD + "poison is consumed by client 1, kick off gpu reset flow",
            AMD_NOFMT + "{3}poison is consumed by client 12, kick off gpu reset flow",
            AMD + "poison is consumed by source 4, kick off gpu reset flow",
            AMD + "RAS poison consumption, fall back to gpu reset flow: client id 1",
        ],
        [
            AMD + "RAS poison consumption, unmap queue flow succeeded: client id 1",
            AMD + "poison mode is enabled",
        ],
    ),
    "amdgpu_kfd_error": (
        [
            "kfd kfd: device 1002:15d8 NOT added due to errors",
            "kfd kfd: Failed to resume IOMMU for device 1002:15d8",
        ],
        [
            "kfd kfd: Allocated 3969056 bytes on gart",
            "kfd kfd: added device 1002:15d8",
        ],
    ),
    "amdgpu_sdma_illegal_command": (
        [
            _drm("sdma_v4_0_process_illegal_inst_irq")
            + "Illegal instruction in SDMA command stream",
            _drm("sdma_v5_2_process_illegal_inst_irq")
            + "Illegal instruction in SDMA command stream",
        ],
        [_drm("cik_irq_process", "radeon") + "Illegal instruction in SDMA command stream"],
    ),
    "radeon_gpu_lockup": (
        ["radeon 0000:01:00.0: GPU reset failed"],
        [
            "radeon 0000:01:00.0: GPU reset succeeded, trying to resume",
            AMD + "GPU reset failed",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_AMD_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_AMD_EXAMPLES, tag, tags_of)


def test_the_retries_and_the_threshold_override_tag_nothing() -> None:
    for line in (
        _drm("uvd_v6_0_start") + "UVD not responding, trying to reset the VCPU!!!",
        AMD + "GPU will be initialized due to bad_page_threshold = -1.",
        AMD + "Starting gfx_0.0.0 ring reset",
    ):
        assert not tags_of(line), line
