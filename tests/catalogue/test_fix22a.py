"""GPU wordings corpus batch 22 (docs/accuracy.md) showed missing: i915's forcewake that the
GT never acknowledges, i915's atomic update that missed its vblank (information, never a
culprit), nouveau's sync subsystem that failed to initialise before the oops of its error
path; each as its source's format string prints it (file named in the catalogue entry), the
routine lines beside them that must not match, and what the judge makes of them."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, primary_of

# tag → (positives, negatives)
FIX22A_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "i915_init_failure": (
        [
            # intel_uncore.c fw_domain_wait_ack_clear: DRM_ERROR (4.x-5.4), drm_err (5.15+)
            "[drm:fw_domains_get_with_fallback [i915]] *ERROR* render: timed out waiting for "
            "forcewake ack to clear.",
            "i915 0000:00:02.0: [drm] *ERROR* gt: timed out waiting for forcewake ack to clear.",
            # fw_domain_wait_ack_set
            "[drm:fw_domain_wait_ack_set [i915]] *ERROR* media: timed out waiting for "
            "forcewake ack request.",
            "i915 0000:00:02.0: [drm] *ERROR* render: MMIO unreliable (forcewake register "
            "returns 0xFFFFFFFF)!",
            # intel_uncore.c 3.10-4.1, no driver name in DRM_ERROR's prefix
            "[drm:__gen6_gt_force_wake_mt_get] *ERROR* Timed out waiting for forcewake old ack "
            "to clear.",
            "[drm:__gen6_gt_force_wake_get] *ERROR* Timed out waiting for forcewake to ack "
            "request.",
        ],
        [
            # add_taint_for_CI's bookkeeping after each, and the debug line of a healthy wake
            "i915 0000:06:10.0: [drm:add_taint_for_CI [i915]] CI tainted:0x9 by "
            "fw_domains_get_with_fallback+0x20c/0x230 [i915]",
            "[drm:intel_uncore_forcewake_reset [i915]] render: forcewake ack is set",
        ],
    ),
    "i915_atomic_update_failure": (
        [
            "i915 0000:00:02.0: [drm] *ERROR* Atomic update failure on pipe A (start=18 end=19) "
            "time 120 us, min 1073, max 1079, scanline start 1072, end 1079",
            "[drm:intel_pipe_update_end [i915]] *ERROR* Atomic update failure on pipe B "
            "(start=7 end=8) time 240 us, min 2154, max 2159, scanline start 2150, end 2162",
            "i915 0000:00:02.0: [drm] *ERROR* Potential atomic update failure on pipe C",
        ],
        [
            "i915 0000:00:02.0: [drm] *ERROR* PSR idle timed out 0x40000000, atomic update may "
            "fail",
            "[drm] *ERROR* atomic commit failed",
        ],
    ),
    "firmware_load_failure": (
        # radeon's microcode loader gives up (cik.c cik_init_microcode)
        [
            'cik_cp: Failed to load firmware "radeon/KABINI_pfp.bin"',
            # btintel.c: the controller stays in its bootloader
            "Bluetooth: hci0: Failed to load Intel firmware file intel/ibt-20-1-3.sfi (-2)",
        ],
        [
            # the loader's line for the lower-case name radeon asks for first, and btbcm's
            # note that it runs without its patch: no give-up
            "radeon 0000:00:01.0: Direct firmware load for radeon/kabini_pfp.bin failed with "
            "error -2",
            "Bluetooth: hci0: BCM: Patch brcm/BCM43430A1.hcd not found",
            "bluetooth hci0: Direct firmware load for brcm/BCM43430A1.hcd failed with error -2",
        ],
    ),
    "nouveau_error": (
        # nouveau_drm.c nouveau_accel_init
        [
            "nouveau 0000:01:00.0: DRM: failed to initialise sync subsystem, -22",
            "nouveau 0000:29:00.0: drm: failed to initialise sync subsystem, -28",
        ],
        [
            "nouveau 0000:01:00.0: DRM: DCB conn 00: 00001031",
            "nouveau 0000:01:00.0: DRM: MM: using COPY for buffer copies",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX22A_EXAMPLES))
def test_wording(tag: str) -> None:
    check_wording(FIX22A_EXAMPLES, tag)


def test_an_atomic_update_failure_alone_has_no_culprit() -> None:
    # a frame late is information: a paste holding only that names no culprit
    line = FIX22A_EXAMPLES["i915_atomic_update_failure"][0][0]
    assert primary_of(line, line) is None


def test_a_failure_beside_an_atomic_update_failure_leads() -> None:
    late = FIX22A_EXAMPLES["i915_atomic_update_failure"][0][0]
    wake = FIX22A_EXAMPLES["i915_init_failure"][0][1]
    assert primary_of(late, wake, late) == "i915_init_failure"


def test_nouveau_sync_init_failure_leads_the_oops_of_its_error_path() -> None:
    # nouveau_accel_fini after the failed fence setup, then a NULL dereference (arm64 wording)
    assert (
        primary_of(
            "nouveau 0000:01:00.0: DRM: failed to initialise sync subsystem, -22",
            "Unable to handle kernel NULL pointer dereference at virtual address 0000000000003fc0",
            "Internal error: Oops: 0000000096000145 [#1] PREEMPT SMP",
        )
        == "nouveau_error"
    )
