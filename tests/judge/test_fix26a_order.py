"""Batch 26 (fix26a): the GuC file that could not be read leads the GPU init failure after it
(kmsgd/judge/chains.py: firmware_load_failure may cause i915_init_failure)."""

from __future__ import annotations

from tests.catalogue.lines import paste_primary

I915 = "i915 0000:00:02.0: [drm] *ERROR* "


def test_the_missing_guc_file_leads_the_gpu_that_did_not_come_up() -> None:
    text = (
        f"[ 3.10] {I915}GT0: GuC firmware i915/adlp_guc_70.bin: fetch failed -ENOENT\n"
        f"[ 3.20] {I915}GT0: GuC initialization failed -ENOENT\n"
        f"[ 3.21] {I915}Failed to initialize GPU, declaring it wedged!\n"
    )
    assert paste_primary(text) == "firmware_load_failure"


def test_without_the_missing_file_the_init_failure_leads() -> None:
    text = (
        f"[ 3.20] {I915}GT0: GuC initialization failed -ENOENT\n"
        f"[ 3.21] {I915}Failed to initialize GPU, declaring it wedged!\n"
    )
    assert paste_primary(text) == "i915_init_failure"
