"""Wordings corpus batch 16 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), and the lines with the same
words that must not match."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import tags_of

# tag → (positives, negatives)
BATCH16_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "kernel_warning": (
        [
            # a WARN's own trace, its header cut away: 3.x guesses every frame
            " [<ffffffff8106b017>] ? warn_slowpath_common+0x77/0x90",
            " [<ffffffff8106b07a>] warn_slowpath_fmt+0x4a/0x50",
            "  warn_slowpath_null+0x1d/0x20",
            "  __warn+0xcb/0xf0",
        ],
        [
            "  ? __warn+0x81/0x130",  # a guessed frame: any trace may hold the stale address
            "  warn_alloc+0x10f/0x190",  # the page allocator's warning, not a WARN_ON
            "  __warn_printk+0x3c/0x70",
        ],
    ),
    "soc_gpu_hang": (
        [
            "mali ffe40000.gpu_mali_vulkan: t6xx: GPU fault 0x4002 from job slot 0",
            "mali ff9a0000.gpu: GPU fault 0x58 from job slot 1",
        ],
        [
            "mali ffe40000.gpu_mali_vulkan: Reset complete",
            "mali ff9a0000.gpu: GPU identified as 0x2 arch 7.2.0 r1p0 status 0",
        ],
    ),
    "dma_fence_timeout": (
        [
            "Asynchronous wait on fence NVIDIA:nvidia.prime:0 timed out (hint:submit_notify [i915])",
            "Asynchronous wait on fence i915:[i915]:1a2b timed out (hint:fence_notify+0x0/0x30)",
        ],
        [
            "i915 0000:00:02.0: [drm] Resetting chip for stopped heartbeat on rcs0",
            "wait on fence timed out",
        ],
    ),
}


@pytest.mark.parametrize(
    ("tag", "line"),
    [(t, p) for t, (pos, _) in BATCH16_EXAMPLES.items() for p in pos],
)
def test_batch16_wording_tags(tag: str, line: str) -> None:
    assert tag in tags_of(line)


@pytest.mark.parametrize(
    ("tag", "line"),
    [(t, n) for t, (_, neg) in BATCH16_EXAMPLES.items() for n in neg],
)
def test_batch16_neighbour_not_tagged(tag: str, line: str) -> None:
    assert tag not in tags_of(line)
