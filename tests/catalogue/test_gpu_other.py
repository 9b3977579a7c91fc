"""radeon, nouveau, NVSwitch and APEI GHES entries (kmsgd/catalogue/gpu_other.py): each line as
the driver's format string prints it (file named in the entry), and the routine lines beside
them that must not match."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

OTHER_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "radeon_gpu_lockup": (
        [
            "radeon 0000:01:00.0: ring 0 stalled for more than 10119msec",
            "radeon 0000:01:00.0: GPU lockup (current fence id 0x00000000000002ce last fence id "
            "0x00000000000002d1 on ring 0)",
            "drmn0: ring 3 stalled for more than 10000msec",  # the FreeBSD port
        ],
        [
            "radeon 0000:01:00.0: fence driver on ring 0 use gpu addr 0x0000000040000c00",
            "[drm] ring test on 0 succeeded in 1 usecs",
        ],
    ),
    "nouveau_error": (
        [
            "nouveau 0000:01:00.0: fifo: DMA_PUSHER - ch 1 [Xorg[753]] get 00011134 put 0001f620 "
            "state 20020000 (err: CALL_SUBR_ACTIVE) push 00000000",
            "nouveau 0000:02:00.0: fifo: SCHED_ERROR 08 []",
            "nouveau 0000:02:00.0: fifo: SCHED_ERROR 0a [CTXSW_TIMEOUT]",
            "nouveau 0000:01:00.0: fifo: PBDMA0: 00800000 [CTXNOTVALID] ch 3 [007f8e3000 Xorg[1]] "
            "subc 0 mthd 0000 data 00000000",
            "nouveau 0000:27:00.0: gr: TRAP ch 4 [007fb4c000 firefox[2213]]",
            "nouveau 0000:01:00.0: gr: DATA_ERROR 00000005 [INVALID_VALUE]",
        ],
        [
            "nouveau 0000:01:00.0: NVIDIA GP107 (137000a1)",
            "nouveau 0000:01:00.0: fb: 4096 MiB GDDR5",
            "nouveau 0000:01:00.0: DRM: allocated 1920x1080 fb: 0x200000, bo 00000000a1b2c3d4",
        ],
    ),
    "nvswitch_sxid": (
        [
            "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress "
            "non-posted PRIV error (First)",
            "nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 24007, Fatal, Link 30 sourcetrack timeout "
            "error",
        ],
        [
            "nvidia-nvswitch0: open (major=509)",
            "NVRM: Xid (PCI:0000:3d:00): 79, pid=1892, name=python3, GPU has fallen off the bus.",
        ],
    ),
    "ghes_hardware_error": (
        [
            "{1}[Hardware Error]: event severity: recoverable",
            "{3}[Hardware Error]: event severity: fatal",
            "Kernel panic - not syncing: Fatal hardware error!",
        ],
        [
            "{359}[Hardware Error]: event severity: corrected",  # the firmware corrected it
            "{359}[Hardware Error]: It has been corrected by h/w and requires no further action",
            "GHES: APEI firmware first mode is enabled by APEI bit and WHEA _OSC.",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(OTHER_EXAMPLES))
def test_the_drivers_lines_match_and_routine_ones_do_not(tag: str) -> None:
    check_wording(OTHER_EXAMPLES, tag)


def test_a_userspace_line_with_the_words_is_not_the_drivers() -> None:
    hit = match_record(
        KernelRecord(
            "logger[12]: radeon 0000:01:00.0: ring 0 stalled for more than 9msec", facility=1
        )
    )
    assert "radeon_gpu_lockup" not in {h.tag for h in hit}
