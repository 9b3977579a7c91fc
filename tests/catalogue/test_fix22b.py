"""GPU wordings corpus batch 22 (docs/accuracy.md) showed missing: amdgpu's RAS EEPROM read
failure, nouveau 3.x's PFIFO fault, radeon's soft-reset dump, the Mali kbase driver's assert,
V3D's MMU error (harmless alone) and vfio-pci's BAR reservation failure, each as its source's
format string prints it (file named in the catalogue entry), the lines beside them that must
not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from tests.catalogue.lines import check_wording, paste_primary, primary_of

# tag → (positives, negatives)
FIX22B_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_ras_eeprom_error": (
        [
            "[drm:amdgpu_ras_eeprom_init [amdgpu]] *ERROR* Failed to read EEPROM table header, "
            "res:-5",
            "amdgpu 0000:03:00.0: amdgpu: Failed to read EEPROM table header, res:-121",
            "[drm:smu_v11_0_i2c_xfer [amdgpu]] *ERROR* Received I2C_NAK_7B_ADDR_NOACK !!!",
            "[drm:smu_v11_0_i2c_xfer [amdgpu]] *ERROR* WriteI2CData() - I2C error occurred :1",
            "[drm:amdgpu_ras_eeprom_init [amdgpu]] *ERROR* RAS table incorrect checksum or "
            "error:-22",
            "amdgpu 0000:03:00.0: amdgpu: RAS table incorrect checksum or error:-22, try to "
            "recover",
            "amdgpu 0000:03:00.0: amdgpu: RAS table recovery failed",
        ],
        [
            "[drm] TX was terminated, IC_TX_ABRT_SOURCE val is:1000001",
            "amdgpu 0000:03:00.0: amdgpu: RAS: optional ras ta ucode is not available",
            "amdgpu 0000:03:00.0: amdgpu: RAS table recovery succeed",
        ],
    ),
    "nouveau_error": (
        [
            # 3.3-3.6 NV_INFO, the reason/unit/channel by continuation on the same line
            "[drm] nouveau 0000:01:00.0: PFIFO: read fault at 0x0000000000 [PT_NOT_PRESENT] "
            "from PGRAPH/CTXCTL on channel 0x000011a000",
            "nouveau E[   PFIFO][0000:01:00.0] PFIFO: write fault at 0x0000001000 "
            "[PAGE_NOT_PRESENT] from PGRAPH/GPC0/PROP on channel 0x00003fe000 [DRM]",
        ],
        ["[drm] nouveau 0000:01:00.0: PFIFO: unknown status 0x40000000"],
    ),
    "radeon_gpu_lockup": (
        [
            "radeon 0000:01:00.0: GPU softreset: 0x0000004C",
            "radeon 0000:01:00.0: GRBM_SOFT_RESET=0x00010001",
            "radeon 0000:01:00.0: SRBM_SOFT_RESET=0x00000100",
        ],
        [
            # amdgpu's gfx soft reset prints the same register words on its own device
            "amdgpu 0000:03:00.0: GRBM_SOFT_RESET=0x00010001",
            "radeon 0000:01:00.0:   GRBM_STATUS=0x80003028",
        ],
    ),
    "mali_kbase_assert": (
        [
            "Mali<ASSERT>: In file: drivers/gpu/arm/bifrost/device/backend/"
            "mali_kbase_device_hw_csf.c line: 225 function:kbase_reg_read ",
            "Mali<ASSERT>: In file: drivers/gpu/arm/midgard/mali_kbase_mem.c line: 1402 "
            "function:kbase_free_phy_pages_helper ",
        ],
        [
            "W : [File] : drivers/gpu/arm/bifrost/platform/rk/mali_kbase_config_rk.c; [Line] : "
            "136; [Func] : kbase_platform_rk_init(); power-off-delay-ms not available.",
            "mali fb000000.gpu: avs=0",
        ],
    ),
    "v3d_mmu_error": (
        [
            "v3d fec00000.v3d: MMU error from client CLE (4) at 0xb0e1000, pte invalid",
            "v3d fec00000.v3d: MMU error from client 5 at 0x00001000, write violation",
            "v3d 1002000000.v3d: MMU error from client L2T (0x2) at 0x1000, cap exceeded",
        ],
        ["v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* Resetting GPU for hang."],
    ),
    "soc_gpu_hang": (
        [
            # Arm's kbase driver (vendor BSP trees) on its "mali <device>: "
            "mali fb000000.gpu: Resetting GPU (allowing up to 500 ms)",
            "mali ff9a0000.gpu: Unhandled Page fault in AS1 at VA 0x000000007F3C0000",
        ],
        [
            "mali fb000000.gpu: GPU identified as 0x2 arch 10.8.6 r0p0 status 0",
            "mali fb000000.gpu: Reset complete",
        ],
    ),
    "vfio_bar_reserve_failure": (
        ["vfio-pci 0000:05:00.0: BAR 0: can't reserve [mem 0xd0000000-0xdfffffff 64bit pref]"],
        [
            # the same warning under another driver is that driver's probe, not passthrough
            "amdgpu 0000:05:00.0: BAR 0: can't reserve [mem 0xd0000000-0xdfffffff 64bit pref]",
            "vfio-pci 0000:05:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem,"
            "decodes=io+mem:owns=none",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX22B_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(FIX22B_EXAMPLES, tag)


def test_a_lone_v3d_mmu_error_names_no_culprit_and_a_reset_still_does() -> None:
    mmu = "v3d fec00000.v3d: MMU error from client CLE (4) at 0xb0e1000, pte invalid"
    assert primary_of(mmu) is None
    reset = "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* Resetting GPU for hang."
    assert primary_of(mmu, reset) == "soc_gpu_hang"


def test_an_unreadable_ras_eeprom_on_a_pc_board_names_no_culprit() -> None:
    # a markdown indented block: four spaces before every line
    paste = (
        "    [    5.692221] [drm:amdgpu_umc_logs_ecc_err [amdgpu]] *ERROR* Received "
        "I2C_NAK_7B_ADDR_NOACK !!!\n"
        "    [    5.692467] [drm:amdgpu_ras_eeprom_init [amdgpu]] *ERROR* Failed to read "
        "EEPROM table header, res:-5\n"
    )
    assert paste_primary(paste) is None


def test_radeons_soft_reset_dump_names_the_lockup_the_cut_lost() -> None:
    paste = (
        "[ 3373.887411] radeon 0000:01:00.0: Wait for MC idle timedout !\n"
        "[ 3373.887413] radeon 0000:01:00.0: GRBM_SOFT_RESET=0x00010001\n"
        "[ 3373.887465] radeon 0000:01:00.0: SRBM_SOFT_RESET=0x00000100\n"
        "[ 3373.888619] radeon 0000:01:00.0:   GRBM_STATUS=0x80003028\n"
    )
    assert paste_primary(paste) == "radeon_gpu_lockup"


def test_a_bare_mali_assert_line_is_the_kernels_and_the_culprit() -> None:
    # a host-less syslog line: the opening says it is the kernel's
    paste = (
        "Apr 10 00:57:42 kernel: Mali<ASSERT>: In file: drivers/gpu/arm/bifrost/device/"
        "backend/mali_kbase_device_hw_csf.c line: 225 function:kbase_reg_read \n"
    )
    assert paste_primary(paste) == "mali_kbase_assert"


def test_a_vfio_bar_in_inline_backticks_is_the_passthrough_failure() -> None:
    paste = (
        "`[   44.702115] vfio-pci 0000:05:00.0: BAR 0: can't reserve "
        "[mem 0xd0000000-0xdfffffff 64bit pref]`\n"
    )
    assert paste_primary(paste) == "vfio_bar_reserve_failure"


def test_radeons_soft_reset_after_the_stall_counts_the_lockup_once() -> None:
    paste = (
        "[  100.000000] radeon 0000:01:00.0: ring 0 stalled for more than 10000msec\n"
        "[  100.000100] radeon 0000:01:00.0: GPU softreset: 0x0000004C\n"
        "[  100.000200] radeon 0000:01:00.0: GRBM_SOFT_RESET=0x00010001\n"
    )
    report, _ = analyze_report(io.BytesIO(paste.encode()), name="paste")
    assert report.primary is not None and report.primary.tag == "radeon_gpu_lockup"
    assert report.primary.count == 1
