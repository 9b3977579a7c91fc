"""Wordings corpus batch 12 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), the lines with the same
words that must not match, and FreeBSD's fatal trap deciding the outcome."""

from __future__ import annotations

import pytest

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH12_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nouveau_error": (
        [
            "nouveau 0000:02:00.0: bus: MMIO read of 00000000 FAULT at 6013d4 [ PRIVRING ]",
            "nouveau 0000:01:00.0: bus: MMIO write of 00000000 FAULT at 022554 "
            "[ !ENGINE PRIVRING TIMEOUT ]",
            "nouveau 0000:01:00.0: bus: MMIO read of bad0da00 FAULT at 610004",  # nv50.c
        ],
        [
            "nouveau 0000:02:00.0: Enabling HDA controller",
            "nouveau 0000:01:00.0: bus: MMIO read of 00000000 at 6013d4",
            "amdgpu 0000:03:00.0: bus: MMIO read of 00000000 FAULT at 6013d4",
        ],
    ),
    "kernel_panic": (
        [
            "Fatal trap 12: page fault while in kernel mode",  # FreeBSD trap_fatal
            "Fatal trap 9: general protection fault while in kernel mode",
        ],
        [
            "Fatal trap 12: page fault while in user mode",
            "fault virtual address = 0xa8",
            "Stopped at reset_common_ring+0xc9",
        ],
    ),
    "nvidia_init_failure": (
        [
            "NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:",
            "NVRM: BAR0 is 0M @ 0x0 (PCI:0000:02:00.0)",
            "NVRM: BAR1 is 0M @ 0x00000000 (PCI:0001:00.0)",  # the closed driver's bus id
            "NVRM: request_mem_region failed for 16M @ 0xde000000. This can",
            "NVRM: Fatal Error while attempting to resize PCIe BARs.",
        ],
        [
            "NVRM: PCI:0000:02:00.0 (10de:1c8d): BAR0 @ 0xde000000 (16MB)",
            "NVRM: ignore invalid BAR failure for BAR1",
            "NVRM: occur when a driver such as rivatv is loaded and claims",
            "pci 0000:02:00.0: BAR 0: assigned [mem 0xde000000-0xdeffffff]",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH12_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH12_EXAMPLES, tag)


def test_a_freebsd_fatal_trap_after_a_gpu_hang_is_a_panic_the_hang_leads() -> None:
    recs = [
        KernelRecord(m, 3, 0, n, None, "-")
        for n, m in enumerate(
            [
                "[drm] GPU HANG: ecode 9:0:0xfffffffe, reason: Hang on render ring, action: reset",
                "Fatal trap 12: page fault while in kernel mode",
                "fault virtual address = 0xa8",
                "Stopped at reset_common_ring+0xc9",
            ],
            1,
        )
    ]
    verdict = classify(Timeline.from_records(recs))
    assert verdict.outcome == "kernel_panic"
    assert verdict.primary is not None and verdict.primary.tag == "i915_gpu_hang"
