"""Wordings corpus batch 17 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), and the lines with the same
words that must not match."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording, tags_of

# tag → (positives, negatives)
BATCH17_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "edac": (
        # igen6_edac.c: in-band ECC of client SoCs, before the decoded error
        ["EDAC igen6 MC1: HANDLING IBECC MEMORY ERROR"],
        [
            "EDAC igen6 MC0: ADDR 0x7fffffffe0",
            "EDAC igen6: v2.5.1",
            "EDAC MC0: Giving out device to module igen6_edac controller Intel_client_SoC MC#0",
        ],
    ),
    "mpt3sas_probe_failure": (
        [
            "mpt2sas_cm0: failure at drivers/scsi/mpt3sas/mpt3sas_scsih.c:8651/_scsih_probe()!",
            "mpt3sas_cm1: failure at drivers/scsi/mpt3sas/mpt3sas_scsih.c:12345/_scsih_probe()!",
        ],
        [
            # the same message of a disk's step is not the controller's probe
            "mpt3sas_cm0: failure at drivers/scsi/mpt3sas/mpt3sas_scsih.c:6340/"
            "_scsih_add_device()!",
            "mpt2sas_cm0: reply_post_free pool: pci_pool_alloc failed",
        ],
    ),
    "spinlock_lockup": (
        [
            "BUG: spinlock lockup suspected on CPU#0, scsi_eh_1/143",
            "BUG: spinlock lockup suspected on CPU#3, swapper/3/0",
            "BUG: spinlock lockup on CPU#6, kworker/u:0/23281, ffff880154f7d650",  # 2.6-3.x
        ],
        [
            " lock: 0xffffff800926fdf0, .magic: dead4ead, .owner: scsi_eh_1/143, .owner_cpu: 0",
            "BUG: spinlock bad magic on CPU#1, swapper/1/0",
        ],
    ),
    "oops": (
        [
            # powerpc xmon excprint: the fault vectors of a kernel oops
            "cpu 0x0: Vector: 300 (Data Access) at [c000001fd73436a0]",
            "cpu 0x1f: Vector: 380 (Data SLB Access) at [c00000000fe8f7d0]",
            "Vector: 400 (Instruction Access) at [c0000000012a3b40]",
        ],
        [
            "cpu 0x0: Vector: 100 (System Reset) at [c000000001233d70]",  # sysrq, NMI
            "cpu 0x2: Vector: 700 (Program Check) at [c0000000fe6ab8a0]",  # BUG, breakpoint
            "cpu 0x0: Vector: 200 (Machine Check) at [c000000001233d70]",
        ],
    ),
    "fc_link_down": (
        ["qla2xxx [0000:02:00.0]-705d:12: Remote port 51 40 2e c0 01 c2 c2 7c is not coming back"],
        [
            "qla2xxx [0000:02:00.0]-2134:12: FCPort 51:40:2e:c0:01:c2:c2:7c disc_state "
            "transition: GNL to DELETED - portid=000001.",
            "qla2xxx [0000:02:00.0]-705d:12: Chip reset to bring laser down",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH17_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH17_EXAMPLES, tag)


def _user_tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=3))}


def test_mcelogs_daemon_record_is_a_machine_check_and_only_from_mcelog() -> None:
    # mcelog.c disclaimer(), as its daemon logs it to syslog
    assert "mce" in _user_tags("mcelog[665]: Hardware event. This is not a software error.")
    assert "mce" in _user_tags("mcelog: Hardware event. This is not a software error.")
    # its other lines alone, and the same words from another program, are not
    assert "mce" not in _user_tags("mcelog: MCE 15")
    assert "mce" not in _user_tags("logger[12]: Hardware event. This is not a software error.")


def test_a_spinlock_lockup_is_not_read_as_a_generic_bug() -> None:
    # kernel_bug keeps spinlock_debug.c's other reports (bad magic, recursion), not the lockup
    assert "kernel_bug" not in tags_of("BUG: spinlock lockup suspected on CPU#0, scsi_eh_1/143")
    assert "kernel_bug" in tags_of("BUG: spinlock bad magic on CPU#1, swapper/1/0")
