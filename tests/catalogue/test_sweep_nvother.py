"""Wordings added from the drivers' source in the NVIDIA/virtual/SoC sweep: the NVIDIA
module's refusals of a GPU at probe and open time, GSP-RM's failed boot steps, the Xid codes
of NVIDIA's published catalog, VMware's SVGA lockup and Adreno's hang detection. Each wording
as its format prints it behind its printing macro's prefix, read through kmsgd's reader; the
routine lines beside it that must not become culprits; and each family's place in the culprit
order."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import describe
from kmsgd.catalogue.xid import XID
from tests.catalogue.lines import check_wording, paste_primary, tags_of

NV_DEV = "NVRM: GPU 0000:41:00.0: "

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_NVOTHER_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nvidia_init_failure": (
        [
            "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
            NV_DEV + "No interrupts of any type are available. Cannot use this GPU.",
            NV_DEV + "Tried to get IRQ 16, but another driver",
            NV_DEV + "request_irq() failed (-16)",
            "NVRM: pci_enable_device failed, aborting",
            "NVRM: Can't find an IRQ for your NVIDIA card!",
            "NVRM: FATAL: Failed to re-allocate BAR1.",
            "NVRM: Failing GPU memory onlining as the onlining zone is not movable. pa: "
            "0x400000000000 size: 0x17c0000000",
            "NVRM: GPU memory zone movable auto onlining failed!",
            "NVRM: GPU0 kgspBootstrap_TU102: failed to execute Booter Load (ucode for initial "
            "boot): 0x62",
            "NVRM: GPU0 kgspExecuteBooterHs_TU102: failed to execute Booter: status 0x62, "
            "mailbox 0x4",
            "NVRM: GPU0 kgspExecuteFwsecFrts_TU102: failed to execute FWSEC for FRTS: FRTS "
            "error code 0x1",
            "NVRM: GPU0 kgspBootstrap_TU102: Failed to boot GSP.",
            "NVRM: GPU0 kgspCheckGspRmCcCleanup_GH100: Fatal GSP-FMC Error: version=0x1, "
            "partition=0x2, error code=0x3, additional info=0x0",
        ],
        [
            # the resize falls back to a smaller BAR1; MSI falls back to line interrupts;
            # Booter Unload runs on the way down
            "NVRM: No address space to allocate resized BAR1.",
            "NVRM: BAR resize resource not supported.",
            NV_DEV + "Failed to enable MSI; falling back to PCIe virtual-wire interrupts.",
            "NVRM: GPU0 kgspExecuteBooterUnloadIfNeeded_TU102: failed to execute Booter "
            "Unload: WPR2 is still up",
            "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.86.15",
            "snd_hda_intel 0000:01:00.1: request_irq failed for IRQ 17",
            "systemd[1]: The NVIDIA probe routine was not called for 1 device(s).",
        ],
    ),
    "gpu_fell_off_bus": (
        [
            NV_DEV + "The kernel has enabled MMIO for the device,",
        ],
        [
            NV_DEV + "A fatal error was detected.",
            "pcieport 0000:40:01.1: AER: device recovery successful",
        ],
    ),
    "nvidia_rc_watchdog_timeout": (
        [
            "NVRM: GPU0 krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify Timeout "
            "Seconds: 7",
            "NVRM: krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify Timeout "
            "Seconds: 7",
        ],
        [
            "NVRM: GPU0 krcWatchdog_IMPL: RC watchdog: GPU is possibly locked. Attempting to "
            "restart watchdog.",
            "NVRM: GPU0 krcWatchdog_IMPL: RC watchdog: Trying to recover.",
            "watchdog: watchdog0: watchdog did not stop!",
        ],
    ),
    "tegra_engine_boot_failure": (
        [
            "tegra-vic 15340000.vic: falcon boot timed out",
            "tegra-nvdec 15480000.nvdec: falcon boot timed out",
            "tegra-nvdec 15480000.nvdec: failed to boot RISC-V, debuginfo=0x1",
        ],
        [
            "tegra-vic 15340000.vic: Adding to iommu group 1",
            "nouveau 0000:01:00.0: fb: VPR locked, but no scrubber binary!",
        ],
    ),
    "vmwgfx_device_lockup": (
        [
            "[drm:vmw_fallback_wait [vmwgfx]] *ERROR* SVGA device lockup.",
            "[drm:vmw_fifo_wait_noirq [vmwgfx]] *ERROR* SVGA device lockup.",
        ],
        [
            "vmwgfx 0000:00:0f.0: [drm] Running on SVGA version 2.",
            "[drm] Fifo wait noirq.",
            'vmwgfx 0000:00:0f.0: [drm] *ERROR* Command "SVGA_3D_CMD_DRAW" causing device error.',
        ],
    ),
    "i915_init_failure": (
        [
            "i915 0000:03:00.0: [drm] *ERROR* Device is non-operational; MMIO access returns "
            "0xFFFFFFFF!",
            "i915 0000:03:00.0: [drm] *ERROR* LMEM not initialized by firmware",
            "i915 0000:03:00.0: [drm] *ERROR* GT0: LMEM not initialized by firmware",
        ],
        [
            "i915 0000:03:00.0: [drm] Local memory IO size: 0x00000001fa000000",
            "i915 0000:03:00.0: [drm] Using a reduced BAR size of 256MiB. Consider enabling "
            "'Resizable BAR' or similar, if available in the BIOS.",
        ],
    ),
    "i915_gpu_hang": (
        [
            "xe 0000:03:00.0: [drm] *ERROR* GT0: GuC mmio request 0x5507: no reply 0x5507",
            "xe 0000:03:00.0: [drm] *ERROR* Tile0: GT1: GuC mmio request 0x4100: no reply 0x0",
        ],
        [
            "xe 0000:03:00.0: [drm] GT0: Using GuC firmware from xe/lnl_guc_70.bin version 70.29.2",
            "i915 0000:00:02.0: [drm] GT0: GUC: submission enabled",
        ],
    ),
    "nouveau_error": (
        [
            "nouveau 0000:01:00.0: gsp: Xid:13 Graphics Exception: ESR 0x404490=0x80000002",
            "nouveau 0000:01:00.0: gsp: rc engn:00000001 chid:24 type:31 scope:1 part:65535",
        ],
        [
            "nouveau 0000:01:00.0: gsp: RM version: 535.113.01",
            "nouveau 0000:01:00.0: DRM: VRAM: 8192 MiB",
        ],
    ),
    "soc_gpu_hang": (
        [
            "msm_dpu ae01000.display-controller: [drm:a6xx_fault_detect_irq] *ERROR* gpu "
            "fault ring 0 fence 1a2b status 00800005 rb 01f0/0200 ib1 0000000010001000/0010 "
            "ib2 0000000000000000/0000",
            "msm 5000000.gpu: [drm:a5xx_fault_detect_irq] *ERROR* gpu fault ring 1 fence 4f "
            "status 00800105 rb 0047/0050 ib1 0000000000000000/0000 ib2 "
            "0000000000000000/0000",
            "[drm:adreno_idle] *ERROR* a630: timeout waiting to drain ringbuffer 0 rptr/wptr "
            "= 1A0/1C0",
            "lima 1c40000.gpu: gp task error int_state=1 status=0",
            "lima 1c40000.gpu: pp task error 0 int_state=4 status=0",
        ],
        [
            # the SMMU fault report is a warning the GPU survives (stall-on-fault resumes)
            "msm_dpu ae01000.display-controller: [drm:a6xx_gmu_fw_load] GMU firmware loaded",
            "*** gpu fault: ttbr0=0000000102ab3000 iova=0000000000001000 dir=READ "
            "type=TRANSLATION source=CP (0,0,0,1)",
            "lima 1c40000.gpu: gp - mali400 version major 1 minor 1",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_NVOTHER_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_NVOTHER_EXAMPLES, tag, tags_of)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (54, "Auxiliary power"),
        (46, "stopped processing"),
        (26, "Frame buffer timeout"),
        (113, "DisplayPort link training"),
        (165, "lifetime exhausted"),
        (176, "PCIe correctable"),
    ],
)
def test_the_published_xid_codes_have_their_meaning(code: int, words: str) -> None:
    line = f"NVRM: Xid (PCI:0000:41:00): {code}, pid=4123, name=python, message"
    assert tags_of(line) == {f"nvidia_xid_{code}"}
    assert words in describe(f"nvidia_xid_{code}")[0]
    assert code in XID


def test_a_test_xid_is_no_failure() -> None:
    # SMBPBI's test messages (106/107) and an injected error (14) are warnings, not failures
    for code in (14, 106, 107):
        assert describe(f"nvidia_xid_{code}")[2].name == "WARNING"


def test_a_gpu_another_driver_owns_leads_the_failed_module_load() -> None:
    text = (
        "[ 5.10] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
        "[ 5.10] NVRM: This can occur when another driver was loaded and \n"
        "[ 5.10] NVRM: obtained ownership of the NVIDIA device(s).\n"
        "[ 5.11] NVRM: No NVIDIA devices probed.\n"
    )
    assert paste_primary(text) == "nvidia_init_failure"


def test_a_failed_gsp_boot_leads_the_failed_adapter_init_after_it() -> None:
    text = (
        "[ 6.20] NVRM: GPU0 kgspBootstrap_TU102: failed to execute Booter Load (ucode for "
        "initial boot): 0x62\n"
        "[ 6.21] NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM\n"
        "[ 6.22] NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x62:0x65:1697)\n"
        "[ 6.23] NVRM: GPU 0000:41:00.0: rm_init_adapter failed, device minor number 0\n"
    )
    assert paste_primary(text) == "nvidia_init_failure"


def test_the_rc_watchdog_leads_the_xid_of_its_recovery() -> None:
    text = (
        "[ 812.40] NVRM: GPU0 krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify "
        "Timeout Seconds: 7\n"
        "[ 812.41] NVRM: Xid (PCI:0000:41:00): 8, pid=1523, name=Xorg, Channel 00000010\n"
        "[ 812.45] NVRM: GPU0 krcWatchdog_IMPL: RC watchdog: Trying to recover.\n"
    )
    assert paste_primary(text) == "nvidia_rc_watchdog_timeout"


def test_a_fatal_pcie_error_leads_the_gpu_that_stays_unreachable_after_it() -> None:
    text = (
        "[ 91.10] pcieport 0000:40:01.1: AER: Uncorrected (Fatal) error received: "
        "0000:41:00.0\n"
        "[ 91.10] nvidia 0000:41:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
        "type=Transaction Layer, (Receiver ID)\n"
        f"[ 91.30] {NV_DEV}A fatal error was detected.\n"
        f"[ 91.30] {NV_DEV}The kernel has enabled MMIO for the device,\n"
        "[ 91.30] NVRM: but it still appears unreachable. The device\n"
        "[ 91.30] NVRM: will not function properly until it is reset.\n"
    )
    assert paste_primary(text) == "aer_fatal"


def test_a_vmware_svga_lockup_leads_the_tasks_blocked_behind_it() -> None:
    text = (
        "[ 904.10] [drm:vmw_fallback_wait [vmwgfx]] *ERROR* SVGA device lockup.\n"
        "[1087.30] INFO: task Xorg:1234 blocked for more than 120 seconds.\n"
        '[1087.30] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.\n'
    )
    assert paste_primary(text) == "vmwgfx_device_lockup"


def test_an_intel_gpu_that_does_not_answer_leads_the_failed_probe_after_it() -> None:
    text = (
        "[ 375.25] i915 0000:03:00.0: [drm] *ERROR* Device is non-operational; MMIO access "
        "returns 0xFFFFFFFF!\n"
        "[ 375.25] i915 0000:03:00.0: Device initialization failed (-5)\n"
        "[ 375.26] i915 0000:03:00.0: probe with driver i915 failed with error -5\n"
    )
    assert paste_primary(text) == "i915_init_failure"


def test_an_adreno_hang_detect_leads_the_recovery_after_it() -> None:
    text = (
        "[ 52.10] msm_dpu ae01000.display-controller: [drm:a6xx_fault_detect_irq] *ERROR* "
        "gpu fault ring 0 fence 1a2b status 00800005 rb 01f0/0200 ib1 0000000010001000/0010 "
        "ib2 0000000000000000/0000\n"
        "[ 52.11] msm_dpu ae01000.display-controller: [drm:recover_worker] *ERROR* 6.3.0.2: "
        "hangcheck recover!\n"
    )
    assert paste_primary(text) == "soc_gpu_hang"
