"""Intel's GPU drivers (i915, and xe from 6.8): a hang of the GPU and the engine or chip reset
that follows.

i915 notices a hang through its hangcheck (4.x) or the GuC's engine reset (5.x+), captures
an error state ("GPU HANG: ecode …") and resets the engine, or the whole chip when that
fails. A hang that the reset recovers from costs a frame or a job; one the resets cannot
recover wedges the GPU and freezes the desktop.
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, sig

I915 = "gpu.i915"
_I915 = "drivers/gpu/drm/i915/"
_DEV = "i915 0000:00:02.0: "  # dev_printk; drm_err/drm_notice add "[drm] " (and *ERROR*)


def _i915_line(m: re.Match[str], i: MatchInput) -> bool:
    # "GPU HANG: ecode" is i915's alone; a reset line must name the driver
    return m.group(0).startswith("GPU HANG") or "i915" in i.text or i.text.startswith("xe ")


I915_SIGNATURES: tuple[Signature, ...] = (
    # i915_gpu_error.c error_msg: "GPU HANG: ecode %d:%d:0x%08x" (4.4-4.19, then ", in %s
    # [%d]" and ", reason: %s, action: %s"), "GPU HANG: ecode %d:%x:0x%08x" (5.x),
    # "GPU HANG: ecode %d:%x:%08x" (5.10-6.18), printed by i915_capture_error_state
    # (DRM_INFO "%s" 4.x, dev_notice 5.x+); gt/intel_reset.c: "Resetting %s for %s" (engine,
    # 5.x-6.18), "Resetting chip for %s" (6.x; "Resetting chip after gpu hang" 4.x, pr_notice
    # "drm/i915: …"), gen8_engine_reset_prepare "%s reset request timed out: {request: %08x,
    # RESET_CTL: %08x}" (DRM_ERROR 5.x, drm_err 5.10+, gt_err 6.x); gt/uc/
    # intel_guc_submission.c guc_handle_engine_reset: "GuC engine reset request failed on
    # %d:%d (%s) because 0x%08X" (5.15-6.1), guc_err "Engine reset failed on %d:%d (%s)
    # because 0x%08X" (6.2-6.18, "GT%u: GUC: " prefix); drivers/gpu/drm/xe/xe_guc_submit.c
    # guc_exec_queue_timedout_job: "Timedout job: seqno=%u, guc_id=%d, flags=0x%lx" (6.8,
    # drm_notice), "… seqno=%u, lrc_seqno=%u, guc_id=%d, flags=0x%lx" (xe_gt_notice, 6.12;
    # " in %s [%d]" later), xe_guc_exec_queue_reset_handler: xe_gt_info "Engine reset:
    # engine_class=%s, logical_mask: 0x%x, guc_id=%d" (6.8-6.18)
    sig(
        "i915_gpu_hang",
        r"GPU HANG: ecode \d+:|Resetting (?:chip after|\w+ for) "
        r"|\w+:? reset request time(?:d out|out)"
        r"|(?:GuC engine reset request|Engine reset) failed on \d+:\d+ \("
        r"|Timedout job: seqno=\d+, (?:lrc_seqno=\d+, )?guc_id=\d+"
        r"|Engine reset: engine_class=\w+, logical_mask: 0x",
        ("HANG", "Resetting", "reset", "Timedout"),
        Severity.ERROR,
        I915,
        "Intel's GPU hung: a command buffer stopped making progress, and i915 captured an "
        "error state and reset the engine or the whole chip.",
        "Read /sys/class/drm/card0/error for the hung context and its process; update Mesa "
        "and the kernel, and check the GuC/HuC firmware; hangs that each reset fails to "
        "clear wedge the GPU.",
        38,
        device_kind=DeviceKind.PCI,
        check=_i915_line,
        formats=(
            Format(
                "GPU HANG: ecode %d:%d:0x%08x, in %s [%d], reason: %s, action: %s",
                _I915 + "i915_gpu_error.c",
                "4.4-4.19",
                "[drm] ",
                args=(9, 0, 0x85DFFFFB, "chameleon", 1296, "Hang on render ring", "reset"),
            ),
            Format(
                "GPU HANG: ecode %d:%x:%08x, in %s [%d]",
                _I915 + "i915_gpu_error.c",
                "5.10-6.18",
                _DEV,
                args=(12, 1, 0x0020FFFE, "xdg-desktop-por", 1676),
            ),
            Format(
                "drm/i915: Resetting chip after gpu hang",
                _I915 + "i915_drv.c",
                "4.4-4.19",
            ),
            Format(
                "Resetting %s for %s",
                _I915 + "gt/intel_reset.c",
                "5.4-6.18",
                _DEV,
                args=("rcs0", "hang on rcs0"),
            ),
            Format(
                "Resetting chip for %s",
                _I915 + "gt/intel_reset.c",
                "5.4-6.18",
                _DEV + "[drm] ",
                args=("GuC failed to reset engine mask=0x1",),
            ),
            Format(
                "%s reset request timed out: {request: %08x, RESET_CTL: %08x}",
                _I915 + "gt/intel_reset.c",
                "5.10-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("rcs0", 1, 1),
            ),
            Format(
                "Engine reset failed on %d:%d (%s) because 0x%08X",
                _I915 + "gt/uc/intel_guc_submission.c",
                "6.2-6.18",
                _DEV + "[drm] *ERROR* GT0: GUC: ",
                args=(0, 0, "rcs0", 0x1),
            ),
            Format(
                "Timedout job: seqno=%u, lrc_seqno=%u, guc_id=%d, flags=0x%lx",
                "drivers/gpu/drm/xe/xe_guc_submit.c",
                "6.12",
                "xe 0000:00:02.0: [drm] GT0: ",
                args=(4242, 4242, 3, 0),
            ),
            Format(
                "Engine reset: engine_class=%s, logical_mask: 0x%x, guc_id=%d",
                "drivers/gpu/drm/xe/xe_guc_submit.c",
                "6.8-6.18",
                "xe 0000:00:02.0: [drm] GT0: ",
                args=("rcs", 1, 3),
            ),
            Format(
                "GuC engine reset request failed on %d:%d (%s) because 0x%08X",
                _I915 + "gt/uc/intel_guc_submission.c",
                "5.15-6.1",
                _DEV + "[drm] *ERROR* ",
                args=(0, 0, "rcs0", 0x1),
            ),
        ),
    ),
)
