"""Wordings corpus batch 18 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), and the lines with the same
words that must not match."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH18_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_workqueue_hog": (
        [
            "workqueue: dm_handle_vmin_vmax_update [amdgpu] hogged CPU for >10000us 11 times, "
            "consider switching to WQ_UNBOUND",
            # the same report retold with its count words changed
            "workqueue: amdgpu_dm_irq_handler [amdgpu] hogged CPU >10000us (11 times)",
        ],
        ["workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times"],
    ),
    "amdgpu_vm_fault": (
        [
            # the status register's decoded fields, printed one dev_err each
            "amdgpu 0000:67:00.0: \t WALKER_ERROR: 0x7",
            "amdgpu 0000:03:00.0: \t PERMISSION_FAULTS: 0xf",
            "amdgpu 0000:03:00.0: \t MAPPING_ERROR: 0x1",
        ],
        ["amdgpu 0000:03:00.0: \t RW: 0x1", "amdgpu 0000:03:00.0: VM_ERROR_COUNT: 0"],
    ),
    "nouveau_error": (
        [
            "nouveau 0000:29:00.0: drm: failed to create ce channel, -22",
            "nouveau 0000:01:00.0: DRM: failed to create ce channel, -19",
            "nouveau 0001:01:00.0: drm: core caps notifier timeout",
        ],
        [
            "nouveau 0000:01:00.0: DRM: MM: using COPY for buffer copies",
            "nouveau 0000:01:00.0: DRM: MM: using M2MF for buffer copies",
        ],
    ),
    "amdgpu_smu_timeout": (
        ["amdgpu: [powerplay] Failed to notify smc display settings!"],
        ["amdgpu: [powerplay] smu7: notify display settings"],
    ),
    "irq_nobody_cared": (
        [
            'irq 16: nobody cared (try booting with the "irqpoll" option)',
            "irq event 19: bogus return value 3",
            "Disabling IRQ #16",
        ],
        [
            "genirq: Flags mismatch irq 16. 00000080 (nvidia) vs. 00000000 (i801_smbus)",
            "irq 16: Affinity broken due to vector space exhaustion.",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH18_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH18_EXAMPLES, tag)
