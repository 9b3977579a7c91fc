"""GPU wording the family modules lacked (corpus batch 24): older and vendor wordings of tags
that gpu.py, gpu_intel.py, gpu_other.py and gpu_more.py define.

i915 before 3.10 reported a hang as the hangcheck timer's own "GPU hung"; Arm's kbase driver
with a CSF GPU (Mali-G710 and later, Pixel's Tensor) resets the GPU when the MCU or the L2
does not power up in time; KWin reports a page flip that the kernel driver never completed
(nvidia_flip_timeout for nvidia-drm, drm_flip_timeout for the others);
KFD's hardware-exception worker is the GPU reset of a scheduler (HWS) that stopped
answering, and a trace taken in it shows that reset where a cut lost the lines before it.

One tag is new here, tegra_dce_error: the display controller engine (DCE) of NVIDIA's Orin,
whose firmware boot NVIDIA's L4T kernel drives. Every other entry carries a tag of another
module, whose first entry gives its meaning and next step: table.py registers this module
after those.
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, sig

_PCI = DeviceKind.PCI
I915 = "gpu.i915"
SOC = "gpu.soc"
NVIDIA = "gpu.nvidia"
AMDGPU = "gpu.amdgpu"


def _nvidia_drm(m: re.Match[str], i: MatchInput) -> bool:
    # KWin names the DRM driver of the GPU whose flip timed out (drmVersion's name): only
    # NVIDIA's is nvidia_flip_timeout
    return m.group("driver") == "nvidia-drm"


GPU_WORDING_SIGNATURES: tuple[Signature, ...] = (
    # i915 before 3.10: drivers/gpu/drm/i915/i915_irq.c i915_hangcheck_elapsed (2.6.32-3.9,
    # from 3.2 through i915_hangcheck_hung) DRM_ERROR("Hangcheck timer elapsed... GPU hung")
    # when the ring's head has not moved for three timer periods, then i915_handle_error
    # captures the error state and resets the chip. The same timer's missed-interrupt
    # reports name an idle ring instead, and are not a hang: "Hangcheck timer elapsed...
    # GPU idle, missed IRQ." (2.6.3x), "... %s idle [waiting on %d, at %d], missed IRQ?"
    # (i915_hangcheck_ring_idle, 3.0-3.9), "... %s idle" (3.10-4.x, a wake-up of the
    # waiters). A retold or cut line ("Hangcheck timer elapsed." as a mail subject) is the
    # hang's unless it says the ring was idle.
    sig(
        "i915_gpu_hang",
        r"\[drm:i915_hangcheck_(?:elapsed|hung)\] \*ERROR\* Hangcheck timer elapsed\b"
        r"(?!\.\.\. [\w ]+ idle\b)",
        ("Hangcheck",),
        Severity.ERROR,
        I915,
        "Intel's GPU hung: i915's hangcheck timer found the ring stuck and reset the chip.",
        "See i915_gpu_hang.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "Hangcheck timer elapsed... GPU hung",
                "drivers/gpu/drm/i915/i915_irq.c",
                "2.6.32-3.9 (i915_hangcheck_elapsed, then i915_hangcheck_hung from 3.2)",
                "[drm:i915_hangcheck_elapsed] *ERROR* ",
            ),
            Format(
                "Hangcheck timer elapsed... GPU hung",
                "drivers/gpu/drm/i915/i915_irq.c",
                "3.2-3.9",
                "[drm:i915_hangcheck_hung] *ERROR* ",
            ),
        ),
    ),
    # Arm's kbase with a CSF GPU (vendor trees: drivers/gpu/arm/bifrost, Pixel's
    # mali_kbase): backend/gpu/mali_kbase_pm_driver.c, after the power transition it waited
    # for timed out (kbase_pm_timed_out, kbase_gpu_timeout_debug_message dumps the stack):
    # dev_err "Sending reset to GPU - all running jobs will be lost" (r-releases of midgard
    # and bifrost, as read); the CSF scheduler's "Wait for MCU power on failed on scheduling
    # tick/tock" (csf/mali_kbase_csf_scheduler.c scheduler_wait_mcu_active's caller) and
    # "Cache clean timed out. Might be caused by unstable GPU clk/pwr or faulty system"
    # (the L2 flush after it) are read on their wording as Pixel's driver prints them: the
    # stored copies of the source do not reach those lines.
    sig(
        "soc_gpu_hang",
        r"\bmali \S+: (?:Sending reset to GPU - all running jobs will be lost"
        r"|Wait for MCU power on failed on scheduling tick/tock"
        r"|Cache clean timed out\. Might be caused by unstable GPU clk/pwr)",
        ("Sending", "MCU", "Cache"),
        Severity.ERROR,
        SOC,
        "Arm's Mali kbase driver timed out waiting for the GPU (its MCU or caches) to power "
        "up or flush, and reset the GPU: the running jobs are lost.",
        "See soc_gpu_hang; on phones and boards, check the GPU's regulator and clock (the "
        "driver's own words: unstable GPU clock or power).",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "Sending reset to GPU - all running jobs will be lost",
                "arm-kbase:drivers/gpu/arm/bifrost/backend/gpu/mali_kbase_pm_driver.c",
                "kbase r-releases in vendor BSP trees (midgard and bifrost, as read)",
                "mali 28000000.mali: ",
            ),
        ),
    ),
    # KWin (Plasma 6, src/backends/drm/drm_commit_thread.cpp DrmCommitThread): a commit
    # whose page-flip event has not come back after the timeout is qCCritical(KWIN_DRM,
    # "Pageflip timed out! This is a bug in the %s kernel driver", driverName), then "Please
    # report this at …" for amdgpu and NVIDIA; Qt's default pattern puts the category first
    # ("kwin_wayland_drm: "), and the journal's identifier is kwin_wayland. The screen the
    # flip was for stays frozen; with nvidia-drm it is nvidia-drm's flip timeout told by the
    # compositor (the kernel's "Flip event timeout on head %u" is gpu_more.py's); with any
    # other driver, and in Plasma 6.0's wording, it is drm_flip_timeout (the next entry).
    sig(
        "nvidia_flip_timeout",
        r"^(?:kwin_wayland_drm: )?Pageflip timed out! This is a bug in the (?P<driver>\S+) "
        r"kernel driver",
        ("Pageflip",),
        Severity.ERROR,
        NVIDIA,
        "The compositor (KWin) waited in vain for an NVIDIA page flip to complete: the "
        "display engine stopped presenting frames on that output.",
        "See nvidia_flip_timeout; read the kernel's lines of the same second (Xid, 'Flip "
        "event timeout') and update the NVIDIA driver.",
        33,
        idents=("kwin_wayland",),
        check=_nvidia_drm,
        formats=(
            Format(
                "Pageflip timed out! This is a bug in the %s kernel driver",
                "kwin:src/backends/drm/drm_commit_thread.cpp",
                "Plasma 6.1-6.5 (the copies read)",
                "kwin_wayland_drm: ",
                program="kwin_wayland",
                args=("nvidia-drm",),
            ),
        ),
    ),
    # the same KWin report for any other DRM driver (amdgpu, i915, virtio_gpu, evdi, …), and
    # Plasma 6.0's "Pageflip timed out! This is a kernel bug" (the same place, no driver
    # named): a page flip the driver never completed, as drm_atomic_helper's "flip_done timed
    # out" reports it from the kernel's side
    sig(
        "drm_flip_timeout",
        r"^(?:kwin_wayland_drm: )?Pageflip timed out! This is a (?:kernel bug"
        r"|bug in the (?!nvidia-drm )\S+ kernel driver)",
        ("Pageflip",),
        Severity.ERROR,
        "gpu",
        "The compositor (KWin) waited in vain for a page flip to complete: the display "
        "engine or the GPU work the flip waited on stopped, and that output froze.",
        "See drm_flip_timeout; read the kernel's lines of the same second for the driver's "
        "own report (a ring timeout, a DMCUB error, flip_done timed out).",
        39,
        idents=("kwin_wayland",),
        formats=(
            Format(
                "Pageflip timed out! This is a bug in the %s kernel driver",
                "kwin:src/backends/drm/drm_commit_thread.cpp",
                "Plasma 6.1-6.5 (the copies read)",
                "kwin_wayland_drm: ",
                program="kwin_wayland",
                args=("amdgpu",),
            ),
            Format(
                "Pageflip timed out! This is a kernel bug",
                "kwin:src/backends/drm/drm_commit_thread.cpp",
                "Plasma 6.0 (the copy read)",
                "kwin_wayland_drm: ",
                program="kwin_wayland",
            ),
        ),
    ),
    # drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c (4.17-6.18): kfd_hws_hang
    # schedules hw_exception_work when the HWS fails to preempt queues, and its function
    # kfd_process_hw_exception calls amdgpu_amdkfd_gpu_reset. A trace taken in that worker
    # names it in kernel/workqueue.c print_worker_info's "%sWorkqueue: %s %ps" ("Workqueue:
    # events kfd_process_hw_exception [amdkfd]") and in its frames: it shows KFD's reset of
    # a hung scheduler where a cut (a `grep kfd`) lost the lines that report the hang, and
    # never counts it twice.
    sig(
        "amdgpu_kfd_error",
        r"^Workqueue: \S+ kfd_process_hw_exception\b|^\s*kfd_process_hw_exception\+0x",
        ("kfd_process_hw_exception",),
        Severity.ERROR,
        AMDGPU,
        "KFD's hardware scheduler stopped answering (queues could not be preempted) and KFD "
        "asked amdgpu to reset the GPU.",
        "See amdgpu_kfd_error.",
        36,
        context=True,
        formats=(
            Format(
                "%sWorkqueue: %s %ps",
                "kernel/workqueue.c",
                "4.4-6.18",
                args=("", "events", "kfd_process_hw_exception [amdkfd]"),
            ),
        ),
    ),
    # NVIDIA L4T (r35-r36, nvidia-oot drivers/platform/tegra/dce): dce_err/dce_info print
    # "dce: %s:%d  " with the function and line (dce_log_msg). dce-admin.c dce_start_admin_seq
    # boots the DCE firmware's admin sequence and gives up on "RPC failed for
    # DCE_ADMIN_CMD_%s" (VERSION, IPC_CREATE, RM_BOOTSTRAP: DCE_FW_ADMIN_SEQ_FAILED), after
    # dce_admin_setup_clients_ipc's "IPC create for type [%u] failed" / "Error sending IPC
    # create msg for type [%u]" or dce_admin_send_rm_bootstrap's "Error in handling rm
    # bootstrap cmd on dce: [0x%x]"; dce_admin_init's "Channel Initialization Failed" and
    # "IPC region allocation failed" stop it earlier. The display then has no firmware
    # behind it. dce_ipc_channel_init's "Invalid Channel State [0x%x] for ch_type [%d]" and
    # dce_admin_setup_clients_ipc's "Get queue info failed for [%u]" are dce_info: a channel
    # the platform did not set up (the display client on a headless board) is skipped and
    # the boot goes on, so they tag nothing.
    sig(
        "tegra_dce_error",
        r"^dce: \w+:\d+\s+(?:RPC failed for DCE_ADMIN_CMD_\w+|Channel Initialization Failed"
        r"|IPC region allocation failed|IPC create for type \[\d+\] failed"
        r"|Error sending IPC create msg for type \[\d+\]"
        r"|Error in handling rm bootstrap cmd on dce: \[0x[0-9a-fA-F]+\])",
        ("dce",),
        Severity.ERROR,
        SOC,
        "The Orin display controller engine's (DCE) firmware failed its boot handshake with "
        "the kernel: the display pipeline has no firmware behind it for this boot.",
        "Check that the L4T kernel modules and the DCE firmware (display-t234-dce.bin) come "
        "from the same JetPack release; reflash the board's firmware if they do.",
        40,
        formats=(
            Format(
                "RPC failed for DCE_ADMIN_CMD_%s",
                "nvidia-oot:drivers/platform/tegra/dce/dce-admin.c",
                "L4T r35-r36 (the copies read)",
                "dce: dce_start_admin_seq:1120  ",
                args=("IPC_CREATE",),
            ),
            Format(
                "IPC create for type [%u] failed",
                "nvidia-oot:drivers/platform/tegra/dce/dce-admin.c",
                "L4T r35-r36 (the copies read)",
                "dce: dce_admin_setup_clients_ipc:575  ",
                args=(2,),
            ),
            Format(
                "Error in handling rm bootstrap cmd on dce: [0x%x]",
                "nvidia-oot:drivers/platform/tegra/dce/dce-admin.c",
                "L4T r35-r36 (the copies read)",
                "dce: dce_admin_send_rm_bootstrap:612  ",
                args=(0x5,),
            ),
            Format(
                "Channel Initialization Failed",
                "nvidia-oot:drivers/platform/tegra/dce/dce-admin.c",
                "L4T r35-r36 (the copies read)",
                "dce: dce_admin_init:188  ",
            ),
        ),
    ),
)
