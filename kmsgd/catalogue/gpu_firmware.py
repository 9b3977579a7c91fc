"""amdgpu's firmware that fails to load, and an SMU that fails to stop: more wording of the
amdgpu_init_failure and amdgpu_smu_timeout tags of gpu.py, kept apart so that each entry
there stays one family of format strings.

The PSP (the GPU's security processor) loads every other firmware (drivers/gpu/drm/amd/amdgpu/
amdgpu_psp.c psp_cmd_submit_buf); a load it refuses leaves that IP block without firmware
(the display controller's DMCUB, the SDMA or VCN engines) even when the rest of the GPU comes
up. On suspend, reset and shutdown the driver asks the SMU to switch its power features
off (drivers/gpu/drm/amd/pm/swsmu/amdgpu_smu.c smu_smc_hw_cleanup); when that fails the
SMU has stopped answering, as it does in the timeouts gpu.py names.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, sig
from kmsgd.catalogue.gpu import AMDGPU


def _amdgpu_line(m: object, i: MatchInput) -> bool:
    # the driver names itself (as gpu.py's check): "amdgpu 0000:03:00.0:", "[drm:…]"
    return "amdgpu" in i.text or "[drm" in i.text


FIRMWARE_SIGNATURES: tuple[Signature, ...] = (
    # amdgpu_psp.c psp_cmd_submit_buf: "failed to load ucode %s(0x%X) " then "psp gfx command
    # %s(0x%X) failed and response status is (0x%X)" (5.10+, DRM_WARN, then dev_warn in
    # 6.x), "failed to load ucode (%s) " / "psp gfx command (%s) failed and response status
    # is (0x%X)" (5.4-5.9); only LOAD_IP_FW is a firmware load (other commands fail in
    # teardown: DESTROY_TMR after an SMU hang). display/amdgpu_dm/amdgpu_dm.c dm_dmub_hw_init:
    # "Wait for DMUB auto-load failed: %d" (5.9+)
    sig(
        "amdgpu_init_failure",
        r"failed to load ucode (?:\S+\(0x[0-9A-Fa-f]+\)|\(\S+\))"
        r"|psp gfx command (?:LOAD_IP_FW\(0x[0-9A-Fa-f]+\)|\(LOAD_IP_FW\)) failed"
        r"|Wait for DMUB auto-load failed",
        ("failed",),
        Severity.ERROR,
        AMDGPU,
        "A GPU firmware failed to load: the IP block it runs (display, video, SDMA) is missing "
        "or broken for this boot.",
        "Check that linux-firmware matches the kernel (the named ucode, e.g. DMCUB); a "
        "linux-firmware update that breaks loading is fixed by its next release or a rollback.",
        42,
        device_kind=DeviceKind.PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "failed to load ucode %s(0x%X) ",
                "drivers/gpu/drm/amd/amdgpu/amdgpu_psp.c",
                "5.15-6.18",
                "amdgpu 0000:03:00.0: amdgpu: ",
                args=("DMCUB_DCN31", 0x24),
            ),
            Format(
                "Wait for DMUB auto-load failed: %d",
                "drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm.c",
                "5.15-6.18",
                "[drm] ",
                args=(6,),
            ),
        ),
    ),
    # amdgpu_smu.c smu_smc_hw_cleanup: dev_err "Fail to disable dpm features!" (5.10+),
    # smu_cmn.c / smu_v11_0.c smu_cmn_disable_all_features_with_exception's caller: "Failed to
    # disable smu features." (5.4+); amdgpu_device.c amdgpu_device_ip_suspend_phase2:
    # DRM_ERROR "suspend of IP block <%s> failed %d" (4.x-6.x), for the smu block
    sig(
        "amdgpu_smu_timeout",
        r"Fail to disable dpm features!|Failed to disable smu features\."
        r"|suspend of IP block <smu> failed -?\d+",
        ("Fail", "Failed", "failed"),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's power-management firmware (SMU) stopped answering the driver.",
        "Treat as a GPU/firmware hang: check PCIe power and ASPM (pcie_aspm=off), IOMMU mode "
        "(iommu=pt), a second GPU driver on the box, then amdgpu firmware/kernel versions.",
        30,
        device_kind=DeviceKind.PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "Fail to disable dpm features!",
                "drivers/gpu/drm/amd/pm/swsmu/amdgpu_smu.c",
                "5.15-6.18",
                "amdgpu 0000:03:00.0: amdgpu: ",
            ),
            Format(
                "Failed to disable smu features.",
                "drivers/gpu/drm/amd/pm/swsmu/amdgpu_smu.c",
                "5.15-6.18",
                "amdgpu 0000:03:00.0: amdgpu: ",
            ),
            Format(
                "suspend of IP block <%s> failed %d",
                "drivers/gpu/drm/amd/amdgpu/amdgpu_device.c",
                "4.19-6.18",
                "[drm:amdgpu_device_ip_suspend_phase2 [amdgpu]] *ERROR* ",
                args=("smu", -62),
            ),
        ),
    ),
)
