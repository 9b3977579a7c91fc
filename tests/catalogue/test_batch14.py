"""Wordings corpus batch 14 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), and the lines with the same
words that must not match."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH14_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nouveau_error": (
        [
            # 3.3-3.6 NV_ERROR: "[drm] nouveau <bus id>: " before the nvc0_fifo.c and
            # nouveau_channel.c wordings
            "[drm] nouveau 0000:01:00.0: PFIFO - playlist update failed",
            "[drm] nouveau 0000:02:00.0: Failed to idle channel 2.",
        ],
        [
            "[drm] nouveau 0000:01:00.0: PFIFO - playlist update",
            "[drm] nouveau 0000:01:00.0: Failed to idle channel",
        ],
    ),
    "nvidia_flip_timeout": (
        [
            # retyped from a terminal: a colon after the GPU ID's bracket
            "[drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] "
            "[GPU ID 0x00000b00]: Flip event timeout on head 0",
        ],
        ["[drm] [nvidia-drm] [GPU ID 0x00000b00] Loading driver"],
    ),
    "nvidia_rm_assertion": (
        [
            # nvassert.c nvAssertFailedNoLog: the expression, file and line, no status
            "NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: GPPut < WATCHDOG_GPFIFO_ENTRIES "
            "@ kernel_rc_watchdog.c:1549",
            "NVRM: nvAssertFailedNoLog: Assertion failed: pRpc != NULL @ objvgpu.c:150",
        ],
        [
            # nvAssertOkFailedNoLog names a status: its own tag says what failed
            "NVRM: nvAssertOkFailedNoLog: Assertion failed: Out of memory [NV_ERR_NO_MEMORY] "
            "(0x00000051) returned from status @ kernel_gsp.c:4615",
            "NVRM: GPU0 nvAssertFailedNoLog: Assertion failed",
        ],
    ),
    "tegra_host1x_syncpt_timeout": (
        [
            "host1x 13e10000.host1x: vpi_sample_05_b: syncpoint id 31 (pva_syncpt) stuck "
            "waiting 1, timeout=519311586",
            "host1x 50000000.host1x: Xorg: syncpoint 18 stuck waiting 3, timeout=10000",
        ],
        [
            # the table host1x dumps after the warning
            "id 17 (gv11b_511_user) min 657437 max 657417 refs 1 (previous client : jpeg)",
            "host1x 13e10000.host1x: syncpoint id 31 (pva_syncpt) stuck waiting",
        ],
    ),
    "pci_d3cold_resume_failure": (
        [
            "nvidia 0000:01:00.0: not ready 65535ms after resume; giving up",
            "nvidia 0000:01:00.0: Unable to change power state from D3cold to D0, device "
            "inaccessible",
        ],
        [
            # still polling, and the reset path's own wording
            "nvidia 0000:01:00.0: not ready 8191ms after resume; waiting",
            "nvidia 0000:01:00.0: not ready 65535ms after FLR; giving up",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH14_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH14_EXAMPLES, tag)
