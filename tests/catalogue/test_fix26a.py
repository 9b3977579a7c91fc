"""Batch 26's first-contact misses (first half, helper fix26a): the wording each fix reads,
rendered from the source's format strings or written for the test, never copied from a case."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, primary_of, tags_of

I915 = "i915 0000:00:02.0: "
NVGPU = "nvgpu: 17000000.gpu"

FIX26A_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "gvt_vgpu_error": (
        [
            "gvt: vgpu 2: lri access to non-render register (2248)",
            "gvt: vgpu 3: cmd parser error",
            "gvt: vgpu 1: scan workload error",
            "gvt: vgpu 1: scan wa ctx error",
            "Now vgpu 4 will enter failsafe mode.",
            "gvt: vgpu 1: failed to submit desc 1",
            "gvt: vgpu 1: fail submit workload on ring 2",
        ],
        [
            "gvt: vgpu 1: fail to emulate MMIO write 00002230 len 4",  # the guest's own write
            "i915 0000:00:02.0: MDEV: Registered",
            "gvt: creating vgpu 1",
        ],
    ),
    "kernel_warning": (
        [
            # the bare macro's flood: conditions run together, the record cut anywhere
            "WARN_ON(crtc->state->event)WARN_ON(crtc->state->event)WARN_O",
            "WARN_ON(!list_empty(&obj->vma_list))WARN_ON(!list_empty(&obj->vma_list))      ",
        ],
        [
            "WARN_ON(x) is what the macro prints, said a mail",
            "drm_WARN_ON(dev, !x)drm_WARN_ON(dev, !x)",
        ],
    ),
    "firmware_load_failure": (
        [
            I915 + "GuC firmware i915/kbl_guc_49.0.1.bin: fetch failed with error -2",
            I915 + "[drm] *ERROR* GT0: GuC firmware i915/dg2_guc_70.bin: fetch failed -ENOENT",
            "xe 0000:03:00.0: [drm] GT0: GuC firmware xe/lnl_guc_70.bin: fetch failed with "
            "error -ENOENT",
            "radeon/TAHITI_mc.bin: could not load firmware image, error 2",
            "radeon/BONAIRE_sdma.bin: could not load firmware image, error 2",
        ],
        [
            # optional files: HuC, radeon's UVD/SMC, the lower-case CIK name tried first
            I915 + "HuC firmware i915/kbl_huc_4.0.0.bin: fetch failed with error -2",
            "radeon/CAICOS_smc.bin: could not load firmware image, error 2",
            "radeon/BARTS_uvd.bin: could not load firmware image, error 2",
            "radeon/bonaire_pfp.bin: could not load firmware image, error 2",
            "iwm8000Cfw: could not load firmware image, error 8",
        ],
    ),
    "soc_gpu_hang": (
        [
            "lima 1c40000.gpu: mmu command 0 timeout",
            "lima 1c40000.gpu: gpmmu command 4 timeout",
            "[drm] lima worker wait task error",
            "[drm] lima worker wait dep fence error -110",
        ],
        ["lima 1c40000.gpu: mmu resume", "lima 1c40000.gpu: lima start task gp status 0"],
    ),
    "nvgpu_error": (
        [
            f"{NVGPU}  gm20b_gr_intr_handle_exceptions:120  [ERR]  fe exception: esr 0x00000100,"
            " info 0x00000000",
            f"{NVGPU} gv11b_gr_intr_handle_ssync_hww:1550 [ERR]  ssync exception: esr 0x00000002",
            f"{NVGPU}     nvgpu_set_err_notifier_locked:143  [ERR]  error notifier set to 8 for"
            " ch 502 owned by deepstream-app",
            # a record whose message the paste moved to the next line
            f"{NVGPU} gv11b_gr_intr_check_gr_fe_exception:200 [ERR]",
            f"{NVGPU} nvgpu_set_err_notifier_locked:143  [ERR]",
        ],
        [
            f"{NVGPU}   gk20a_channel_timeout_handler:1550 [INFO] timeout on ch 3",
            f"{NVGPU} nvgpu_gr_intr_handle_notify_pending:42 [ERR]  notify pending",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX26A_EXAMPLES))
def test_fix26a_wording(tag: str) -> None:
    check_wording(FIX26A_EXAMPLES, tag)


def test_a_guc_file_missing_alone_is_a_firmware_failure_not_a_dead_gpu() -> None:
    # Gen9: i915 runs on without the GuC
    line = I915 + "GuC firmware i915/bxt_guc_33.0.0.bin: fetch failed with error -2"
    assert tags_of(line) == {"firmware_load_failure"}
    assert primary_of(line) == "firmware_load_failure"


def test_a_vgpu_in_failsafe_mode_leads() -> None:
    assert (
        primary_of(
            "gvt: vgpu 1: lrm access to non-render register (2358)",
            "gvt: vgpu 1: cmd parser error",
            "GVT Internal error  for the guest",
            "Now vgpu 1 will enter failsafe mode.",
        )
        == "gvt_vgpu_error"
    )
