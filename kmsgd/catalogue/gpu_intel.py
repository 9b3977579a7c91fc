"""Intel's GPU drivers (i915, and xe from 6.8): a hang of the GPU and the engine or chip reset
that follows.

i915 notices a hang through its hangcheck (4.x) or the GuC's engine reset (5.x+), captures
an error state ("GPU HANG: ecode …") and resets the engine, or the whole chip when that
fails. A hang that the reset recovers from costs a frame or a job; one the resets cannot
recover wedges the GPU and freezes the desktop. Under GuC submission (Gen12+ and xe) the
host talks to the GuC firmware over a command transport (CT): a GuC that stops answering it,
or that the driver cannot reset, is the GPU's hang as these drivers report it.

A GPU the driver cannot bring up (`i915_init_failure`): the GuC firmware fails to load or is
too old, the uC or the GT fails to initialise, and the probe gives up; the display may stay
on the firmware's framebuffer, but the GPU renders nothing for this boot.
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import (
    DeviceKind,
    Format,
    MatchInput,
    Severity,
    Signature,
    Trigger,
    sig,
)

I915 = "gpu.i915"
_I915 = "drivers/gpu/drm/i915/"
_DEV = "i915 0000:00:02.0: "  # dev_printk; drm_err/drm_notice add "[drm] " (and *ERROR*)
_GT_ERR = _DEV + "[drm] *ERROR* GT0: "  # gt/intel_gt_print.h gt_err (6.4+)
_GUC_ERR = _GT_ERR + "GUC: "  # gt/uc/intel_guc_print.h guc_err
_XE = "drivers/gpu/drm/xe/"
_XE_DEV = "xe 0000:00:02.0: "
_XE_GT_ERR = _XE_DEV + "[drm] *ERROR* GT0: "  # xe_gt_printk.h xe_gt_err


# what only i915 prints, so that DRM_INFO's bare "[drm] " (4.x) needs no driver name
_I915_OWN = (
    "GPU HANG",
    "stuck on",
    "no progress on",
    "GPU crash dump",
    "Timed out waiting for forcewake",
)


def _i915_line(m: re.Match[str], i: MatchInput) -> bool:
    # a reset line must name the driver
    return m.group(0).startswith(_I915_OWN) or "i915" in i.text or i.text.startswith("xe ")


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
    # engine_class=%s, logical_mask: 0x%x, guc_id=%d" (6.8-6.18).
    # The resets that fail: gt/uc/intel_uc.c __intel_uc_reset_hw "Failed to reset GuC, ret =
    # %d" (DRM_ERROR 5.4-6.3, gt_err 6.4-6.18), gt/intel_reset.c "Failed to reset chip",
    # "Failed to initialise HW following reset (%d)" and intel_wedge_me's "%s timed out,
    # cancelling all in-flight rendering." (dev_err 4.19, drm_err 5.x, gt_err 6.4-6.18);
    # xe_gt.c gt_reset "reset failed (%pe)" then xe_device.c xe_device_declare_wedged
    # "CRITICAL: Xe has declared device %s as wedged." (6.11-6.18). The GuC that stops
    # answering the host: gt/uc/intel_guc_ct.c CT_ERROR ("CT: " after drm_err 5.14-6.3,
    # guc_err's "GT%u: GUC: " 6.4-6.18; Intel's backports print "CT%u: " or "[GUC
    # COMMUNICATION] CT: ") "No response for request %#x (fence %u)", "Sending action %#x
    # failed (%pe) status=%#X", "Communication stalled for %lld ms, desc status=%#x,%#x",
    # wait_for_ct_request_update's DRM_ERROR "CT: fence %u err %d" (the backports; gone from
    # mainline 6.x); the TLB invalidation it never confirms (gt/uc/intel_guc_submission.c
    # guc_send_invalidate_tlb "TLB invalidation response timed out for seqno %u", guc_err
    # 6.7-6.18, drm_info "tlb invalidation …" in the backports; xe_gt_tlb_invalidation.c "TLB
    # invalidation fence timeout, seqno=%d recv=%d", 6.8-6.12); xe_guc_ct.c
    # guc_ct_send_recv "Timed out wait for G2H, fence %u, action %04x" (6.8-6.11; ", done
    # %s" 6.12-6.18); xe_guc_submit.c guc_exec_queue_timedout_job: the GuC that does not
    # answer the timeout's schedule disable (xe_gt_warn "Schedule disable failed to respond,
    # guc_id=%d", 6.8-6.18), and the driver's own jobs timing out (xe_gt_WARN "Kernel-submitted
    # job timed out", "VM job timed out on non-killed execqueue", 6.9-6.18). xe's GT prefix
    # is "GT%u: ", "Tile%u: GT%u: " in later kernels. 4.x's hangcheck before its error state:
    # i915_irq.c i915_hangcheck_elapsed DRM_INFO "%s on %s" ("stuck" or "no progress", the
    # ring's name: "[drm] stuck on render ring"), then i915_gpu_error.c DRM_INFO "GPU crash
    # dump saved to /sys/class/drm/card%d/error" (4.4-5.x)
    sig(
        "i915_gpu_hang",
        r"GPU HANG: ecode \d+:|Resetting (?:chip after|\w+ for) "
        r"|\w+:? reset request time(?:d out|out)"
        r"|(?:GuC engine reset request|Engine reset) failed on \d+:\d+ \("
        r"|Timedout job: seqno=\d+, (?:lrc_seqno=\d+, )?guc_id=\d+"
        r"|Engine reset: engine_class=\w+, logical_mask: 0x"
        # the resets that fail, and the GuC that stops answering (see the comment below)
        r"|Failed to reset GuC, ret = -?\d+|Failed to reset chip\b"
        r"|Failed to initialise HW following reset|timed out, cancelling all in-flight rendering"
        r"|CT\d*: (?:No response for request 0x[0-9a-fA-F]+|Sending action 0x[0-9a-fA-F]+ failed"
        r"|fence \d+ err -?\d+|Communication stalled for -?\d+ ms)"
        r"|(?i:tlb invalidation response timed out for seqno) \d+"
        r"|TLB invalidation fence timeout, seqno=|GT\d+: reset failed \("
        r"|Xe has declared device \S+ as wedged|Timed out wait for G2H, fence \d+, action"
        r"|Schedule disable failed to respond, guc_id=|Kernel-submitted job timed out"
        r"|VM job timed out on non-killed execqueue"
        r"|\b(?:stuck|no progress) on (?:render|bsd2?|blitter|video enhancement) ring\b"
        r"|GPU crash dump saved to /sys/class/drm/card\d+/error",
        (
            "HANG",
            "Resetting",
            "reset",
            "Timedout",
            "rendering",
            "response",
            "action",
            "fence",
            "stalled",
            "wedged",
            "Schedule",
            "submitted",
            "execqueue",
            "stuck",
            "progress",
            "dump",
        ),
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
            Format(
                "Failed to reset GuC, ret = %d",
                _I915 + "gt/uc/intel_uc.c",
                "5.4-6.3",
                "[drm:__intel_uc_reset_hw [i915]] *ERROR* ",
                args=(-110,),
            ),
            Format(
                "Failed to reset GuC, ret = %d",
                _I915 + "gt/uc/intel_uc.c",
                "6.4-6.18",
                _DEV + "[drm] *ERROR* GT0: ",
                args=(-110,),
            ),
            Format("Failed to reset chip", _I915 + "gt/intel_reset.c", "6.4-6.18", _GT_ERR),
            Format(
                "Failed to initialise HW following reset (%d)",
                _I915 + "gt/intel_reset.c",
                "6.4-6.18",
                _GT_ERR,
                args=(-5,),
            ),
            Format(
                "%s timed out, cancelling all in-flight rendering.",
                _I915 + "gt/intel_reset.c",
                "6.4-6.18",
                _GT_ERR,
                args=("intel_gt_reset_global",),
            ),
            Format(
                "No response for request %#x (fence %u)",
                _I915 + "gt/uc/intel_guc_ct.c",
                "6.4-6.18",
                _GUC_ERR + "CT: ",
                args=(0x5503, 168),
            ),
            Format(
                "No response for request %#x (fence %u)",
                _I915 + "gt/uc/intel_guc_ct.c",
                "5.15-6.3",
                _DEV + "[drm] *ERROR* CT: ",
                args=(0x5503, 168),
            ),
            Format(
                "Sending action %#x failed (%pe) status=%#X",
                _I915 + "gt/uc/intel_guc_ct.c",
                "6.4-6.18",
                _GUC_ERR + "CT: ",
                args=(0x5503, "-ETIME", 0),
            ),
            Format(
                "Communication stalled for %lld ms, desc status=%#x,%#x",
                _I915 + "gt/uc/intel_guc_ct.c",
                "6.4-6.18",
                _GUC_ERR + "CT: ",
                args=(1501, 0, 0),
            ),
            Format(
                "CT: fence %u err %d",
                "i915-backports:" + _I915 + "gt/uc/intel_guc_ct.c",
                "UBUNTU_2204_OEM_6043",
                "[drm:wait_for_ct_request_update [i915]] *ERROR* ",
                args=(168, -62),
            ),
            Format(
                "TLB invalidation response timed out for seqno %u",
                _I915 + "gt/uc/intel_guc_submission.c",
                "6.7-6.18",
                _GUC_ERR,
                args=(3,),
            ),
            Format(
                "TLB invalidation fence timeout, seqno=%d recv=%d",
                _XE + "xe_gt_tlb_invalidation.c",
                "6.8-6.12",
                _XE_GT_ERR,
                args=(12, 10),
            ),
            Format(
                "reset failed (%pe)", _XE + "xe_gt.c", "6.8-6.18", _XE_GT_ERR, args=("-ETIMEDOUT",)
            ),
            Format(
                "CRITICAL: Xe has declared device %s as wedged.",
                _XE + "xe_device.c",
                "6.11-6.18",
                _XE_DEV + "[drm] *ERROR* ",
                args=("0000:00:02.0",),
            ),
            Format(
                "%s on %s", _I915 + "i915_irq.c", "4.4", "[drm] ", args=("stuck", "render ring")
            ),
            Format(
                "GPU crash dump saved to /sys/class/drm/card%d/error",
                _I915 + "i915_gpu_error.c",
                "4.4-4.19",
                "[drm] ",
                args=(0,),
            ),
            Format(
                "Schedule disable failed to respond, guc_id=%d",
                _XE + "xe_guc_submit.c",
                "6.8-6.18",
                _XE_DEV + "[drm] GT0: ",
                args=(3,),
            ),
            Format(
                "Kernel-submitted job timed out",
                _XE + "xe_guc_submit.c",
                "6.9-6.18",
                _XE_DEV + "[drm] GT0: ",
            ),
            Format(
                "VM job timed out on non-killed execqueue",
                _XE + "xe_guc_submit.c",
                "6.9-6.18",
                _XE_DEV + "[drm] GT0: ",
            ),
            Format(
                "Timed out wait for G2H, fence %u, action %04x, done %s",
                _XE + "xe_guc_ct.c",
                "6.12-6.18",
                _XE_GT_ERR,
                args=(1024, 0x3003, "no"),
            ),
        ),
        trigger=Trigger("gpu_hang"),
    ),
    # The GPU that does not come up. gt/uc/intel_guc_fw.c guc_wait_ucode: "GuC load failed:
    # status = 0x%08X" (drm_info 5.4-6.3, later with ", time = …"), guc_info "load failed:
    # status = 0x%08X, time = %lldms, freq = %dMHz, ret = %d" (6.4-6.18, "GT%u: GUC: ");
    # gt/uc/intel_uc.c __uc_init_hw "GuC initialization failed %d" (i915_probe_error 5.4-6.3;
    # gt_probe_error "%pe" 6.4-6.18), gt/uc/intel_uc_fw.c "Failed to load %s firmware %s (%d)"
    # (a HuC load failing only costs media authentication: GuC alone counts); i915_gem.c
    # i915_gem_init "Failed to initialize GPU, declaring it wedged!" (5.4-6.18) and
    # i915_driver.c i915_driver_probe "Device initialization failed (%d)" (6.1-6.18). xe
    # (6.8-6.18): xe_uc_fw.c guc_read_css_info "Unsupported GuC v%u.%u! v70.19 or newer is required"
    # (three-part versions by 6.12), "Failed to load %s firmware %s (%d)", uc_fw_request "No
    # GuC firmware defined for platform", xe_guc.c xe_guc_init "GuC init failed with %pe",
    # xe_uc.c xe_uc_init "Failed to initialize uC (%pe)", xe_guc.c guc_wait_ucode "load
    # failed: status = 0x%08X, time = %lldms, freq = %dMHz (req %dMHz), done = %d". The GuC
    # firmware file that could not be read ("%s firmware %s: fetch failed …") is not this: on
    # Gen9-Gen11 i915 runs on without the GuC, and where the GuC is required the lines above
    # follow it; it is gpu_wording26.py's firmware_load_failure (corpus batch 26). The
    # driver core's "probe with driver … failed" for i915 and xe is kmsgd/catalogue/probe.py's.
    # A GT that never answers the driver's wake request cannot be driven at all: intel_uncore.c
    # fw_domain_wait_ack_clear / fw_domain_wait_ack_set "%s: timed out waiting for forcewake
    # ack to clear." / "… ack request." (DRM_ERROR 4.4-5.4, drm_err 5.15-6.18, the domain
    # named "render", "gt", "media"…) and its all-ones variant "%s: MMIO unreliable
    # (forcewake register returns 0xFFFFFFFF)!" (6.1-6.18); i915 taints the kernel for CI
    # after each ("CI tainted: …", its bookkeeping, not a second event). Before the
    # per-domain wording, __gen6_gt_force_wake_get / _mt_get and vlv_force_wake_get printed
    # DRM_ERROR "Timed out waiting for forcewake old ack to clear." and "Timed out waiting
    # for forcewake to ack request." (intel_uncore.c 3.10-4.1; "[drm:func] *ERROR* ", no
    # driver name: the wording is i915's alone).
    sig(
        "i915_init_failure",
        r"(?:GuC |GUC: |GT\d+: )load failed: status = 0x|GuC initialization failed"
        r"|Failed to load GuC firmware |Failed to initialize GPU, declaring it wedged"
        r"|Device initialization failed \(-?\d+\)"
        r"|Unsupported GuC v\d+\.\d+(?:\.\d+)*! v\d+\.\d+(?:\.\d+)* or newer is required"
        r"|GuC init failed with |Failed to initialize uC \(|No GuC firmware defined for platform"
        r"|\w+: (?:timed out waiting for forcewake ack (?:to clear|request)\."
        r"|MMIO unreliable \(forcewake register returns 0xFFFFFFFF\)!)"
        r"|Timed out waiting for forcewake (?:old ack to clear|to ack request)\.",
        ("failed", "Failed", "Unsupported", "GuC", "forcewake"),
        Severity.ERROR,
        I915,
        "Intel's GPU did not come up: its GuC firmware failed to load or is too old, or the "
        "driver failed to initialise the GPU, so it renders nothing for this boot.",
        "Install the GuC/HuC firmware the kernel asks for (linux-firmware's i915/ and xe/ "
        "directories, named in the lines before) and rebuild the initramfs; on a backported "
        "driver, match the firmware to the backport's release notes.",
        42,
        device_kind=DeviceKind.PCI,
        check=_i915_line,
        formats=(
            Format(
                "load failed: status = 0x%08X, time = %lldms, freq = %dMHz, ret = %d",
                _I915 + "gt/uc/intel_guc_fw.c",
                "6.4-6.18",
                _DEV + "[drm] GT0: GUC: ",
                args=(0x40000056, 0, 2050, -8),
            ),
            Format(
                "GuC load failed: status = 0x%08X",
                _I915 + "gt/uc/intel_guc_fw.c",
                "5.4-6.1",
                _DEV + "[drm] ",
                args=(0x40000056,),
            ),
            Format(
                "GuC initialization failed %pe",
                _I915 + "gt/uc/intel_uc.c",
                "6.4-6.18",
                _DEV + "[drm] *ERROR* GT0: ",
                args=("-ENOEXEC",),
            ),
            Format(
                "Failed to load %s firmware %s (%d)",
                _I915 + "gt/uc/intel_uc_fw.c",
                "5.4-6.3",
                _DEV + "[drm] *ERROR* ",
                args=("GuC", "i915/dg2_guc_70.bin", -110),
            ),
            Format(
                "Failed to initialize GPU, declaring it wedged!",
                _I915 + "i915_gem.c",
                "5.4-6.18",
                _DEV + "[drm] *ERROR* ",
            ),
            Format(
                "Device initialization failed (%d)",
                _I915 + "i915_driver.c",
                "6.1-6.18",
                _DEV + "[drm] *ERROR* ",
                args=(-5,),
            ),
            Format(
                "Unsupported GuC v%u.%u! v70.19 or newer is required",
                _XE + "xe_uc_fw.c",
                "6.10",
                _XE_GT_ERR,
                args=(70, 5),
            ),
            Format(
                "Unsupported GuC v%u.%u.%u! v%u.%u.%u or newer is required",
                _XE + "xe_uc_fw.c",
                "6.12",
                _XE_GT_ERR,
                args=(70, 20, 0, 70, 29, 2),
            ),
            Format(
                "GuC init failed with %pe",
                _XE + "xe_guc.c",
                "6.8-6.18",
                _XE_GT_ERR,
                args=("-EINVAL",),
            ),
            Format(
                "Failed to initialize uC (%pe)",
                _XE + "xe_uc.c",
                "6.8-6.18",
                _XE_GT_ERR,
                args=("-EINVAL",),
            ),
            Format(
                "No GuC firmware defined for platform",
                _XE + "xe_uc_fw.c",
                "6.8-6.18",
                _XE_DEV + "[drm] *ERROR* ",
            ),
            Format(
                "load failed: status = 0x%08X, time = %lldms, freq = %dMHz (req %dMHz), done = %d",
                _XE + "xe_guc.c",
                "6.10-6.12",
                _XE_GT_ERR,
                args=(0x8002F034, 200, 1300, 1300, -1),
            ),
            Format(
                "%s: timed out waiting for forcewake ack to clear.",
                _I915 + "intel_uncore.c",
                "4.4-5.4",
                "[drm:fw_domains_get_with_fallback [i915]] *ERROR* ",
                args=("render",),
            ),
            Format(
                "%s: timed out waiting for forcewake ack to clear.",
                _I915 + "intel_uncore.c",
                "5.15-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("gt",),
            ),
            Format(
                "%s: timed out waiting for forcewake ack request.",
                _I915 + "intel_uncore.c",
                "4.4-6.18",
                "[drm:fw_domain_wait_ack_set [i915]] *ERROR* ",
                args=("media",),
            ),
            Format(
                "Timed out waiting for forcewake old ack to clear.",
                _I915 + "intel_uncore.c",
                "3.10-4.1",
                "[drm:__gen6_gt_force_wake_mt_get] *ERROR* ",
            ),
            Format(
                "Timed out waiting for forcewake to ack request.",
                _I915 + "intel_uncore.c",
                "3.10-4.1",
                "[drm:__gen6_gt_force_wake_get] *ERROR* ",
            ),
            Format(
                "%s: MMIO unreliable (forcewake register returns 0xFFFFFFFF)!",
                _I915 + "intel_uncore.c",
                "6.1-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("render",),
            ),
        ),
    ),
    # 4.0-4.10 i915_gem.c i915_context_is_banned: DRM_ERROR "gpu hanging too fast, banning!"
    # when the default context hangs again within the ban period (hangcheck found the GPU
    # hung, and the driver stops resetting it). The wording is i915's alone, so it needs no
    # "i915" in the line: FreeBSD's port prints "[drm:0x…] _ERROR_ " before it.
    sig(
        "i915_gpu_hang",
        r"\bgpu hanging too fast, banning!",
        ("banning",),
        Severity.ERROR,
        I915,
        "Intel's GPU hung: a command buffer stopped making progress, and i915 captured an "
        "error state and reset the engine or the whole chip.",
        "Read /sys/class/drm/card0/error for the hung context and its process; update Mesa "
        "and the kernel, and check the GuC/HuC firmware; hangs that each reset fails to "
        "clear wedge the GPU.",
        38,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "gpu hanging too fast, banning!",
                _I915 + "i915_gem.c",
                "4.0-4.10",
                "[drm:i915_set_reset_status [i915]] *ERROR* ",
            ),
            Format(
                "gpu hanging too fast, banning!",
                _I915 + "i915_gem.c",
                "4.0-4.10",
                "[drm:0xffffffff82a2b4bds] _ERROR_ ",
            ),
        ),
    ),
    # the GuC refusing an engine reset the driver asked for (its own hang recovery failed):
    # i915 gt/uc/intel_guc_submission.c intel_guc_engine_failure_process_msg drm_err "GuC
    # engine reset request failed on %d:%d (%s) because 0x%08X" (5.16-6.1; GT_ERR's "GT%u: "
    # before it from 6.2), xe_guc_submit.c xe_guc_exec_queue_reset_failure_handler drm_err
    # "GuC engine reset request failed on %d:%d because 0x%08X" (6.8+): the GT is reset next
    sig(
        "i915_gpu_hang",
        r"GuC engine reset request failed on \d+:\d+ (?:\(\w+\) )?because 0x[0-9a-fA-F]+",
        ("GuC",),
        Severity.ERROR,
        I915,
        "Intel's GPU hung: a command buffer stopped making progress, and i915 captured an "
        "error state and reset the engine or the whole chip.",
        "See i915_gpu_hang.",
        38,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "GuC engine reset request failed on %d:%d (%s) because 0x%08X",
                _I915 + "gt/uc/intel_guc_submission.c",
                "5.16-6.1",
                "i915 0000:00:02.0: [drm] *ERROR* ",
                args=(0, 0, "rcs0", 0),
            ),
            Format(
                "GuC engine reset request failed on %d:%d (%s) because 0x%08X",
                _I915 + "gt/uc/intel_guc_submission.c",
                "6.2-6.18",
                "i915 0000:00:02.0: [drm] *ERROR* GT0: ",
                args=(0, 0, "rcs0", 0),
            ),
            Format(
                "GuC engine reset request failed on %d:%d because 0x%08X",
                _XE + "xe_guc_submit.c",
                "6.8-6.18",
                "xe 0000:03:00.0: [drm] *ERROR* ",
                args=(0, 0, 0),
            ),
        ),
    ),
    # the display engine's FIFO ran dry while scanning out (bandwidth or watermarks too low for
    # the mode): display/intel_fifo_underrun.c (intel_display.c and i915_irq.c before 4.1)
    # intel_cpu_fifo_underrun_irq_handler / intel_pch_fifo_underrun_irq_handler DRM_ERROR
    # "CPU pipe %c FIFO underrun" / "PCH transcoder %c FIFO underrun" (4.0-5.x), drm_err with
    # the device from 5.8 (xe's display is the same code from 6.8), and the checks on a pipe
    # re-enabled with the error still set, "uncleared fifo underrun on pipe %c" / "uncleared
    # pch fifo underrun on pch transcoder %c" (DRM_DEBUG_KMS before 5.8), and g4x/vlv's
    # "pipe %c underrun". A glitch or blank on the screen; the box runs. Many boxes log one at
    # every boot or mode set: routine, so a failure beside it leads.
    sig(
        "i915_fifo_underrun",
        r"\b(?:CPU pipe|PCH transcoder) [A-Z] FIFO underrun\b"
        r"|\buncleared (?:pch )?fifo underrun on (?:pch transcoder|pipe) [A-Z]\b"
        r"|\[drm\] \*ERROR\* pipe [A-Z] underrun\b",
        ("underrun",),
        Severity.WARNING,
        I915,
        "Intel's display engine ran out of pixel data while scanning out a frame (a FIFO "
        "underrun): the screen flickers or blanks for a moment; the GPU and the box run on.",
        "Usually the mode's bandwidth: try a lower refresh rate or resolution on the external "
        "monitor, disable panel self refresh (i915.enable_psr=0) or FBC, and update the kernel; "
        "an underrun with a freeze points at the lines around it.",
        40,
        device_kind=DeviceKind.PCI,
        routine=True,
        formats=(
            Format(
                "CPU pipe %c FIFO underrun",
                _I915 + "intel_fifo_underrun.c",
                "4.4-5.4",
                "[drm:intel_cpu_fifo_underrun_irq_handler [i915]] *ERROR* ",
                args=("B",),
            ),
            Format(
                "CPU pipe %c FIFO underrun",
                _I915 + "display/intel_fifo_underrun.c",
                "5.15-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("A",),
            ),
            Format(
                "PCH transcoder %c FIFO underrun",
                _I915 + "display/intel_fifo_underrun.c",
                "5.15-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("B",),
            ),
            Format(
                "uncleared pch fifo underrun on pch transcoder %c",
                _I915 + "display/intel_fifo_underrun.c",
                "5.15-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("B",),
            ),
            Format(
                "uncleared fifo underrun on pipe %c",
                _I915 + "intel_fifo_underrun.c",
                "4.4-5.4",
                "[drm:ivb_check_fifo_underruns [i915]] *ERROR* ",
                args=("A",),
            ),
            Format(
                "CPU pipe %c FIFO underrun",
                _I915 + "display/intel_fifo_underrun.c",
                "6.8-6.18",
                _XE_DEV + "[drm] *ERROR* ",
                args=("A",),
            ),
        ),
    ),
    # a DisplayPort AUX transfer the source never saw finish (a sink, a Type-C port or its PHY
    # that does not answer): display/intel_dp_aux.c (intel_dp.c before 5.13)
    # intel_dp_aux_wait_done drm_err "%s: did not complete or timeout within %ums (status
    # 0x%08x)" (DRM_ERROR "%s did not complete …" without the colon in 5.1-5.7), and
    # intel_dp_aux_xfer "%s: not done (status 0x%08x)" / drm_WARN "%s: not started (status
    # 0x%08x)"; 4.x-5.7 printed DRM_ERROR "dp_aux_ch not done status 0x%08x". The AUX
    # channel's name is "AUX <ch>/DDI <port>/PHY <phy>". An empty or sleeping Type-C port
    # times out on every probe: routine, so a failure beside it leads.
    sig(
        "drm_dp_aux_timeout",
        r"\bAUX [^:\n]*?:? did not complete or timeout within \d+ ?ms"
        r"|\bAUX [A-Z0-9]+/[^:\n]*: not (?:done|started) \(status 0x[0-9a-fA-F]+\)"
        r"|\bdp_aux_ch not done status 0x",
        ("timeout", "AUX", "dp_aux_ch"),
        Severity.WARNING,
        I915,
        "A DisplayPort AUX transfer timed out: the driver could not talk to the monitor, dock "
        "or Type-C port on that connector (to read its EDID or DPCD or to train the link); "
        "that display stays dark or flickers, the box runs on.",
        "Reseat or change the cable, dock or adapter on the named port, update the dock's and "
        "the system's firmware and the kernel; a port with nothing plugged in that times out "
        "is the driver probing a Type-C PHY it cannot power.",
        40,
        device_kind=DeviceKind.PCI,
        routine=True,
        formats=(
            Format(
                "%s: did not complete or timeout within %ums (status 0x%08x)",
                _I915 + "display/intel_dp_aux.c",
                "5.15-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("AUX A/DDI A/PHY A", 10, 0xAD40023F),
            ),
            Format(
                "%s: did not complete or timeout within %ums (status 0x%08x)",
                _I915 + "display/intel_dp_aux.c",
                "6.8-6.18",
                _XE_DEV + "[drm] *ERROR* ",
                args=("AUX USBC1/DDI TC1/PHY B", 10, 0xAD40023F),
            ),
            Format(
                "%s: not done (status 0x%08x)",
                _I915 + "display/intel_dp_aux.c",
                "5.15-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("AUX B/DDI B/PHY B", 0xAD40023F),
            ),
            Format(
                "%s did not complete or timeout within %ums (status 0x%08x)",
                _I915 + "intel_dp.c",
                "5.4",
                "[drm:intel_dp_aux_wait_done [i915]] *ERROR* ",
                args=("AUX B/port B", 10, 0xAD40023F),
            ),
            Format(
                "dp_aux_ch not done status 0x%08x",
                _I915 + "intel_dp.c",
                "4.4-4.19",
                "[drm:intel_dp_aux_xfer [i915]] *ERROR* ",
                args=(0xAD40023F,),
            ),
        ),
    ),
    # xe's GPU page faults (xe 6.8+, Xe2/Lunar Lake/Battlemage with the GuC's fault replies):
    # the fault the driver could not service is replied "unsuccessful" to the GuC, which then
    # kills the context and the engine is reset behind it (xe_gt_pagefault.c pf_queue_work_func
    # xe_gt_dbg "Fault response: Unsuccessful %pe", 6.18; drm_dbg "… Unsuccessful %d" before
    # the GT printer; print_pagefault's multi-line record before it opens with a bare
    # "\n\tASID: %d", nothing to key on), and the GuC's catastrophic memory error for the
    # context (xe_guc_submit.c xe_guc_exec_queue_memory_cat_error_handler xe_gt_dbg "Engine
    # memory CAT error [%u]: class=%s, logical_mask: 0x%x, guc_id=%d" or without the type,
    # xe_gt_err_ratelimited "Memory CAT error reported by GuC!", 6.18). The wording is xe's
    # alone. The "Engine reset" and "Timedout job" lines that follow are i915_gpu_hang, after
    # it in time.
    sig(
        "xe_gpu_pagefault",
        r"\bFault response: Unsuccessful -?\w+|\bEngine memory CAT error(?: \[\d+\])?: class="
        r"|\bMemory CAT error reported by GuC!",
        ("Unsuccessful", "CAT"),
        Severity.ERROR,
        I915,
        "Intel's GPU (xe driver) faulted on a context's memory: a GPU page fault the driver "
        "could not resolve (an address the process never mapped, or memory it could not "
        "allocate), so the GuC kills that context and the engine is reset.",
        "The faulting process is named in the Timedout job line after it: usually a bug in "
        "the application or its compute/media runtime (Level Zero, Mesa, VA-API); update "
        "them and the kernel, and note the errno (-ENOMEM is memory pressure).",
        38,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Fault response: Unsuccessful %pe",
                _XE + "xe_gt_pagefault.c",
                "6.18",
                _XE_DEV + "[drm] GT0: ",
                args=("-ENOENT",),
            ),
            Format(
                "Engine memory CAT error [%u]: class=%s, logical_mask: 0x%x, guc_id=%d",
                _XE + "xe_guc_submit.c",
                "6.18",
                _XE_DEV + "[drm] GT0: ",
                args=(18, "bcs", 0x1, 6),
            ),
            Format(
                "Engine memory CAT error: class=%s, logical_mask: 0x%x, guc_id=%d",
                _XE + "xe_guc_submit.c",
                "6.18",
                _XE_DEV + "[drm] GT0: ",
                args=("vcs", 0x1, 3),
            ),
            Format(
                "Memory CAT error reported by GuC!",
                _XE + "xe_guc_submit.c",
                "6.18",
                _XE_GT_ERR,
            ),
        ),
    ),
    # a plane update that missed the vblank it was timed for (the vblank evasion):
    # intel_pipe_update_end "Atomic update failure on pipe %c (start=%u end=%u) time %lld us,
    # min %d, max %d, scanline start %d, end %d" (intel_sprite.c DRM_ERROR 4.4-5.4, drm_err
    # 5.15, display/intel_crtc.c 6.1-6.18) and intel_pipe_update_start's "Potential atomic
    # update failure on pipe %c" (DRM_ERROR/drm_err 4.4-6.8; drm_dbg_kms later). The update
    # lands a frame late: a stutter, from which the driver recovers by itself; stress tests and
    # busy boxes log it daily. A timing miss, never a failure: information (rank 100, as
    # workqueue_hog), listed but never blamed, so a log that holds nothing else has no culprit.
    sig(
        "i915_atomic_update_failure",
        r"\b(?:Potential a|A)tomic update failure on pipe [A-Z]\b",
        ("Atomic", "atomic"),
        Severity.INFO,
        I915,
        "Intel's display missed the vblank it timed a plane update for (an atomic update "
        "failure): that frame came late, a stutter; the driver carries on.",
        "Nothing to do when it is alone; many of them with a frozen screen point at the lines "
        "around them (a GPU hang, a flip timeout).",
        100,
        device_kind=DeviceKind.PCI,
        routine=True,
        formats=(
            Format(
                "Atomic update failure on pipe %c (start=%u end=%u) time %lld us, min %d, "
                "max %d, scanline start %d, end %d",
                _I915 + "intel_sprite.c",
                "4.4-5.4",
                "[drm:intel_pipe_update_end [i915]] *ERROR* ",
                args=("A", 18, 19, 120, 1073, 1079, 1072, 1079),
            ),
            Format(
                "Atomic update failure on pipe %c (start=%u end=%u) time %lld us, min %d, "
                "max %d, scanline start %d, end %d",
                _I915 + "display/intel_crtc.c",
                "6.1-6.18",
                _DEV + "[drm] *ERROR* ",
                args=("B", 7, 8, 240, 2154, 2159, 2150, 2162),
            ),
            Format(
                "Potential atomic update failure on pipe %c",
                _I915 + "display/intel_crtc.c",
                "6.1-6.8",
                _DEV + "[drm] *ERROR* ",
                args=("A",),
            ),
        ),
    ),
)
