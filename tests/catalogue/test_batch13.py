"""Wordings corpus batch 13 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), and the lines with the same
words that must not match."""

from __future__ import annotations

import pytest

from kmsgd.record import triggers
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH13_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "oom_kill": (
        [
            # RHEL 6 2.6.32: the UID before the comm, no "Out of memory:" prefix
            "Killed process 11726, UID 498, (mysqld) total-vm:7823732kB, anon-rss:2539268kB, "
            "file-rss:768kB",
            # the OOM report's own stack on 32-bit ARM, callee first, both eras
            " oom_kill_process from out_of_memory+0x218/0x34c",
            "[<c02a1b3c>] (oom_kill_process) from [<c02a2210>] (out_of_memory+0x124/0x334)",
        ],
        [
            "oom_reaper: reaped process 11726 (mysqld), now anon-rss:0kB, file-rss:0kB",
            "Killed process 11726, UID 498",
            " out_of_memory from __alloc_pages+0xa98/0x1044",
            " oom_kill_process_ext from out_of_memory+0x218/0x34c",
        ],
    ),
    "mce": (
        [
            # drivers/edac/mce_amd.c bank lines of three eras, corrected and uncorrected
            "[Hardware Error]: MC4_STATUS[Over|CE|MiscV|-|AddrV|-|-|CECC]: 0xdc10410040080a13",
            "[Hardware Error]: CPU:0\tMC4_STATUS[-|CE|MiscV|-|AddrV]: 0x9c1c400011080a13",
            "[Hardware Error]: CPU:12 (17:31:0) MC27_STATUS[-|UE|MiscV|-|AddrV|-|-|SyndV|UECC|"
            "-|-|-]: 0xbc00000000000000",
            "[Hardware Error]: Northbridge Error (node 4): DRAM ECC error detected on the NB.",
            "[Hardware Error]: MC4 Error (node 0): DRAM ECC error detected on the NB.",
        ],
        [
            "EDAC MC0: Giving out device to module amd64_edac controller F10h: DEV "
            "0000:00:18.2 (INTERRUPT)",
            "[Hardware Error]: cache level: L3/GEN, mem/io: MEM, mem-tx: RD, part-proc: RES",
        ],
    ),
    "fs_error": (
        [
            "XFS (dm-6): log mount/recovery failed: error -30",
            "XFS (dm-6): log mount/recovery failed: error 30",  # 2.6.3x-3.x positive errno
            "XFS (dm-6): log mount failed",
            "XFS (dm-6): log mount finish failed",
            "XFS (loop0): Log inconsistent (didn't find previous header)",
            "XFS (loop0): log has mismatched uuid - can't recover",
            "XFS (loop0): dirty log entry has mismatched uuid - can't recover",
        ],
        ["XFS (dm-6): Mounting Filesystem", "XFS (dm-6): Ending clean mount"],
    ),
    "fs_recovery": (
        ["XFS (dm-6): recovery required on read-only device."],
        [
            "XFS (dm-6): write access unavailable, cannot proceed.",
            "XFS (dm-6): Mounting V5 Filesystem",
        ],
    ),
    "ghes_hardware_error": (
        [
            "{35}[Hardware Error]:   section_type: memory error",
            "{2}[Hardware Error]:   section_type: general processor error",
            "{1}[Hardware Error]:   section_type: ARM processor error",
            # apei_estatus_print before 3.13 (RHEL 7's 3.10)
            "[Hardware Error]: severity: 1, fatal",
            "[Hardware Error]: section: 0, severity: 1, fatal",
        ],
        [
            # a corrected PCIe section is aer_corrected's
            "{1}[Hardware Error]:   section_type: PCIe error",
            "{35}[Hardware Error]: event severity: corrected",
            "[Hardware Error]: severity: 2, corrected",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH13_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH13_EXAMPLES, tag)


def test_the_recorder_starts_an_oom_incident_on_the_rhel6_kill_line() -> None:
    hit = triggers.match_message(
        b"Killed process 11726, UID 498, (mysqld) total-vm:7823732kB, anon-rss:2539268kB, "
        b"file-rss:768kB"
    )
    assert hit is not None and hit.tag == "oom_kill"


def test_the_recorder_leaves_a_corrected_amd_bank_line_alone() -> None:
    # the recorder starts its mce incident on uncorrected errors only (its narrow regex)
    assert (
        triggers.match_message(b"[Hardware Error]: MC4_STATUS[Over|CE|MiscV|-|AddrV]: 0x1") is None
    )
