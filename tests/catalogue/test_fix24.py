"""Wording corpus batch 24 (docs/accuracy.md) showed the catalogue lacked, each as its
source's format string prints it (file named in the catalogue entry): i915's pre-3.10
hangcheck, kbase CSF's power-up timeouts, KWin's page-flip timeout report, KFD's hardware
exception worker, powerpc EEH's frozen PE, vendor-reset's failed reset, the Orin display
engine's failed firmware boot (tegra_dce_error) and a WARN header cut after "at"; the lines beside them that must not match, and what the judge makes of them."""

from __future__ import annotations

from tests.catalogue.lines import check_wording, paste_primary, primary_of, tags_of

KWIN = "kwin_wayland[2405]: kwin_wayland_drm: "

# tag → (positives, negatives); a line starting with "kwin_wayland[" is a program's line
FIX24_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "i915_gpu_hang": (
        [
            "[drm:i915_hangcheck_elapsed] *ERROR* Hangcheck timer elapsed... GPU hung",
            "[drm:i915_hangcheck_hung] *ERROR* Hangcheck timer elapsed... GPU hung",
            # a retold or cut copy (a mail subject)
            "[drm:i915_hangcheck_elapsed] *ERROR* Hangcheck timer elapsed.",
        ],
        [
            # the timer's missed-interrupt reports: an idle ring, not a hang
            "[drm:i915_hangcheck_elapsed] *ERROR* Hangcheck timer elapsed... GPU idle, missed IRQ.",
            "[drm:i915_hangcheck_ring_idle] *ERROR* Hangcheck timer elapsed... blt ring idle "
            "[waiting on 11495, at 11495], missed IRQ?",
            "[drm:i915_hangcheck_elapsed] *ERROR* Hangcheck timer elapsed... render ring idle",
        ],
    ),
    "soc_gpu_hang": (
        [
            "mali 28000000.mali: Sending reset to GPU - all running jobs will be lost",
            "mali 28000000.mali: Wait for MCU power on failed on scheduling tick/tock",
            "mali 28000000.mali: Cache clean timed out. Might be caused by unstable GPU clk/pwr "
            "or faulty system",
        ],
        [
            "mali 28000000.mali: Preparing to soft-reset GPU",
            "Sending reset to GPU - all running jobs will be lost",  # whose? no device
        ],
    ),
    "nvidia_flip_timeout": (
        [
            KWIN + "Pageflip timed out! This is a bug in the nvidia-drm kernel driver",
        ],
        [
            KWIN + "Pageflip timed out! This is a bug in the amdgpu kernel driver",
            KWIN + "Please report this at https://forums.developer.nvidia.com/c/gpu-graphics/linux",
            # the same words from another program are not the compositor's report
            "bash[77]: Pageflip timed out! This is a bug in the nvidia-drm kernel driver",
        ],
    ),
    "drm_flip_timeout": (
        [
            KWIN + "Pageflip timed out! This is a bug in the amdgpu kernel driver",
            KWIN + "Pageflip timed out! This is a bug in the virtio_gpu kernel driver",
            KWIN + "Pageflip timed out! This is a kernel bug",  # Plasma 6.0
        ],
        [
            KWIN + "Pageflip timed out! This is a bug in the nvidia-drm kernel driver",
            KWIN + "Pageflip arrived after all, 16730ms after the commit",
            "bash[77]: Pageflip timed out! This is a kernel bug",
        ],
    ),
    "amdgpu_kfd_error": (
        [
            "Workqueue: events kfd_process_hw_exception [amdkfd]",
            " kfd_process_hw_exception+0x26/0x30 [amdkfd]",
        ],
        [
            "Workqueue: events amdgpu_device_delayed_init_work_handler [amdgpu]",
            " amdgpu_amdkfd_gpu_reset+0x12/0x20 [amdgpu]",
        ],
    ),
    "eeh_frozen_pe": (
        [
            "EEH: Frozen PHB#0-PE#1 detected",
            "EEH(3): Frozen PHB#1-PE#fd detected",
            "EEH: PHB#2 failure detected, location: N/A",
            "EEH: Recovering PHB#0-PE#1",
            "EEH(12): Recovering PHB#0-PE#1",
            "EEH: PHB#0-PE#1 has failed 6 times in the last hour and has been permanently "
            "disabled.",
        ],
        [
            "EEH: PE location: N/A, PHB location: N/A",
            "EEH: PCI Enhanced I/O Error Handling Enabled",
            "EEH: Finished:'resume' with aggregate recovery state:'none'",
        ],
    ),
    "vendor_reset_failure": (
        [
            "vfio-pci 0000:c7:00.0: AMD_NAVI10: failed to reset device",
            "vfio-pci 0000:c7:00.0: AMD_NAVI10: PSP did not acknowledger reset",
            "vfio-pci 0000:0b:00.0: AMD_VEGA10: PSP did not acknowledger reset",
            "vfio-pci 0000:03:00.0: navi10: timed out waiting for PSP bootloader to respond "
            "after reset",
        ],
        [
            "vfio-pci 0000:c7:00.0: AMD_NAVI10: performing reset",
            "vfio-pci 0000:c7:00.0: AMD_NAVI10: timed out waiting for PSP to reach valid state, "
            "but continuing anyway",
            "vfio-pci 0000:c7:00.0: AMD_NAVI10: reset result = 0",
            "vfio-pci 0000:03:00.0: AMD_NAVI10: mode1 reset succeeded",
            "sps30 1-0069: failed to reset device",  # another driver's
        ],
    ),
    "tegra_dce_error": (
        [
            "dce: dce_start_admin_seq:1120  RPC failed for DCE_ADMIN_CMD_IPC_CREATE",
            "dce: dce_start_admin_seq:1127  RPC failed for DCE_ADMIN_CMD_RM_BOOTSTRAP",
            "dce: dce_admin_setup_clients_ipc:575  IPC create for type [2] failed",
            "dce: dce_admin_send_rm_bootstrap:612  Error in handling rm bootstrap cmd on dce: "
            "[0x5]",
            "dce: dce_admin_init:188  Channel Initialization Failed",
        ],
        [
            # dce_info: a channel the platform did not set up is skipped, the boot goes on
            "dce: dce_ipc_channel_init:311  Invalid Channel State [0x0] for ch_type [2]",
            "dce: dce_admin_setup_clients_ipc:561  Get queue info failed for [2]",
            "dce: dce_mailbox_set_full_interrupt:157  Intr bit set multiple times for MB : [0x5]",
            "dce: dce_admin_send_cmd_ver:456  version : [0x3] err : [0x0]",
        ],
    ),
    "kernel_warning": (
        ["WARNING: CPU: 2 PID: 4406 at", "WARNING: CPU: 0 PID: 1 at "],
        ["WARNING: CPU: 2 PID: 4406 attempted", "Not tainted WARNING: CPU: 2 PID: 4406 at"],
    ),
}


def _tagger(line: str) -> set[str]:
    return tags_of(line, 3) if line.startswith(("kwin_wayland[", "bash[")) else tags_of(line)


def test_fix24_wording() -> None:
    for tag in FIX24_EXAMPLES:
        check_wording(FIX24_EXAMPLES, tag, _tagger)


def test_an_eeh_freeze_leads_the_driver_failures_its_all_ones_reads_cause() -> None:
    assert (
        primary_of(
            "EEH: Frozen PHB#0-PE#1 detected",
            "EEH: PE location: N/A, PHB location: N/A",
            "amdgpu 0000:01:00.0: amdgpu: ring gfx timeout, signaled seq=1, emitted seq=3",
        )
        == "eeh_frozen_pe"
    )


def test_a_failed_vendor_reset_is_the_culprit_of_its_attempt() -> None:
    text = (
        "[Sun Apr 13 00:43:11 2025] vfio-pci 0000:c7:00.0: AMD_NAVI10: performing reset\n"
        "[Sun Apr 13 00:43:12 2025] vfio-pci 0000:c7:00.0: AMD_NAVI10: timed out waiting for "
        "PSP to reach valid state, but continuing anyway\n"
        "[Sun Apr 13 00:43:13 2025] vfio-pci 0000:c7:00.0: AMD_NAVI10: PSP did not "
        "acknowledger reset\n"
        "[Sun Apr 13 00:43:13 2025] vfio-pci 0000:c7:00.0: AMD_NAVI10: reset result = 0\n"
    )
    assert paste_primary(text) == "vendor_reset_failure"


def test_a_kfd_trace_cut_by_grep_names_the_kfd_reset() -> None:
    text = (
        "$ dmesg | grep kfd\n"
        "[ 7083.758091] Workqueue: events kfd_process_hw_exception [amdkfd]\n"
        "[ 7083.758337]  amdgpu_amdkfd_gpu_reset+0x12/0x20 [amdgpu]\n"
        "[ 7083.758343]  kfd_process_hw_exception+0x26/0x30 [amdkfd]\n"
    )
    assert paste_primary(text) == "amdgpu_kfd_error"


def test_kwin_s_report_alone_names_the_nvidia_flip_timeout() -> None:
    text = (
        "Mar 07 12:15:44 box kernel: usb 3-2.2.4: reset high-speed USB device number 6 using "
        "xhci_hcd\n"
        "Mar 07 12:15:45 box " + KWIN + "Pageflip timed out! This is a bug in the nvidia-drm "
        "kernel driver\n"
    )
    assert paste_primary(text) == "nvidia_flip_timeout"
