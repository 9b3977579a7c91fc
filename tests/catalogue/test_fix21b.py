"""Wordings corpus batch 21 (docs/accuracy.md) showed missing in the storage and file-system
families: each line as its source's format string prints it (file named in the catalogue
entry), the lines with the same words that must not match, and what the judge makes of a
paste that holds only that line's report."""

from __future__ import annotations

import io

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.commands.analyze import analyze_report
from kmsgd.ring.records import KernelRecord

# tag → (positives, negatives)
FIX21B_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "disk_io_error": (
        [
            # libata-sff.c ata_sff_prereset: the device still busy when EH resets it
            "ata1: device not ready (errno=-16), forcing hardreset",
            "ata8: device not ready (errno=-19), forcing hardreset",
        ],
        [
            # the wait before it: slow disks print it at every boot
            "ata1: link is slow to respond, please be patient (ready=0)",
            "ata1: soft resetting link",
            "ata1: EH complete",
        ],
    ),
    "fs_error": (
        [
            # fs/ext2/super.c ext2_error
            "EXT2-fs (sda1): error: ext2_lookup: deleted inode referenced: 32905",
            "EXT2-fs (loop0): error: ext2_check_page: bad entry in directory #2: : "
            "unaligned directory entry - offset=0, inode=0, rec_len=0, name_len=0",
            # 2.6 fs/xfs: xfs_do_force_shutdown and xfs_ioerror_alert
            "xfs_force_shutdown(sda2,0x2) called from line 956 of file fs/xfs/xfs_log.c.  "
            "Return address = 0x801288d8",
            "xfs_force_shutdown(dm-3,0x8) called from line 4341 of file fs/xfs/xfs_bmap.c.  "
            "Return address = 0xffffffff88236b21",
            'I/O error in filesystem ("sda2") meta-data dev sda2 block 0xf054f4       '
            '("xlog_iodone") error 5 buf count 32768',
        ],
        [
            # ext2's mount notes
            "EXT2-fs (sda1): warning: mounting unchecked fs, running e2fsck is recommended",
            # ext2_msg's mount refusals: mount(8) probing another file system's device
            "EXT2-fs (sda1): error: couldn't mount because of unsupported optional features (240)",
            "EXT2-fs (sdb1): error: can't find an ext2 filesystem on dev sdb1.",
            "EXT2-fs (sdb1): error: unable to read superblock",
        ],
    ),
    "megaraid_fw_fault": (
        [
            # megaraid_sas_base.c megasas_transition_to_ready at probe
            "megasas: FW in FAULT state!!",
            "megaraid_sas 0000:03:00.0: FW in FAULT state!!",
        ],
        [
            "megasas: Waiting for FW to come to ready state",
            "megaraid_sas 0000:03:00.0: FW now in Ready state",
        ],
    ),
    "mpt3sas_ioc_fault": (
        [
            # drivers/scsi/mpt2sas before 4.4: the IOC named "mpt2sas%d"
            "mpt2sas0: fault_state(0x5841)!",
            "mpt2sas1: sending diag reset !!",
            "mpt3sas0: diag reset: FAILED",
            "mpt3sas_cm0: fault_state(0x2651)!",
        ],
        [
            "mpt2sas0: diag reset: SUCCESS",
            "mpt2sas0: sending port enable !!",
            "mpt2sas0: port enable: SUCCESS",
        ],
    ),
}


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=0))}


@pytest.mark.parametrize("tag", sorted(FIX21B_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    positives, negatives = FIX21B_EXAMPLES[tag]
    for line in positives:
        assert tag in _tags(line), line
    for line in negatives:
        assert tag not in _tags(line), line


def _primary(text: str) -> str:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report.primary.tag if report.primary else ""


def test_an_ata_reset_forced_on_a_busy_device_leads_a_paste_of_its_recovery() -> None:
    paste = (
        "[  245.908016] ata1: link is slow to respond, please be patient (ready=0)\n"
        "[  250.828023] ata1: device not ready (errno=-16), forcing hardreset\n"
        "[  250.828034] ata1: soft resetting link\n"
        "[  251.016568] ata1.01: configured for UDMA/66\n"
        "[  251.017812] ata1: EH complete\n"
    )
    assert _primary(paste) == "disk_io_error"


def test_an_old_mpt2sas_fault_leads_its_diag_reset() -> None:
    paste = (
        "Feb 14 10:53:28 host1 kernel: mpt2sas0: fault_state(0x5841)!\n"
        "Feb 14 10:53:28 host1 kernel: mpt2sas0: sending diag reset !!\n"
        "Feb 14 10:53:29 host1 kernel: mpt2sas0: diag reset: SUCCESS\n"
    )
    assert _primary(paste) == "mpt3sas_ioc_fault"


def test_a_2_6_xfs_log_io_error_and_shutdown_is_a_file_system_error() -> None:
    paste = (
        '<1>I/O error in filesystem ("sda2") meta-data dev sda2 block 0xf054f4       '
        '("xlog_iodone") error 5 buf count 32768\n'
        "<5>xfs_force_shutdown(sda2,0x2) called from line 956 of file fs/xfs/xfs_log.c.  "
        "Return address = 0x801288d8\n"
    )
    assert _primary(paste) == "fs_error"
