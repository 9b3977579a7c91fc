"""Storage wordings corpus batch 21 (docs/accuracy.md) showed missing: the older drivers'
and file systems' words (megaraid_sas at probe, the mpt2sas driver before its merge into
mpt3sas, libata's forced hard reset, ext2's error format, 2.6-era XFS), each as its source's
format string prints it (file named in the catalogue entry), the routine lines beside them
that must not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
FIX21A_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "megaraid_fw_fault": (
        # megaraid_sas_base.c megasas_transition_to_ready (2.6.x-3.x printk, 4.x dev_printk)
        ["megasas: FW in FAULT state!!", "megaraid_sas 0000:02:00.0: FW in FAULT state!!"],
        ["megasas: Waiting for FW to come to ready state", "megasas: FW now in Ready state"],
    ),
    "mpt3sas_ioc_fault": (
        # drivers/scsi/mpt2sas/mpt2sas_base.c: the IOC named "mpt2sas%d"
        ["mpt2sas1: fault_state(0x2622)!", "mpt2sas0: sending diag reset !!"],
        [
            "mpt2sas1: diag reset: SUCCESS",
            "mpt2sas1: sending port enable !!",
            "mpt2sas1: port enable: SUCCESS",
        ],
    ),
    "disk_io_error": (
        # libata-sff.c ata_sff_prereset
        ["ata3: device not ready (errno=-16), forcing hardreset"],
        [
            "ata3: link is slow to respond, please be patient (ready=0)",
            "ata3: soft resetting link",
            "ata3.00: configured for UDMA/133",
        ],
    ),
    "fs_error": (
        [
            # fs/ext2/super.c ext2_error
            "EXT2-fs (sdb1): error: ext2_check_page: bad entry in directory #2: "
            "rec_len is smaller than minimal - offset=0, inode=0, rec_len=0, name_len=0",
            # 2.6-era XFS: xfs_ioerror_alert, xfs_do_force_shutdown
            'I/O error in filesystem ("md0") meta-data dev md0 block 0x1c0       '
            '("xfs_trans_read_buf") error 5 buf count 4096',
            "xfs_force_shutdown(md0,0x8) called from line 1091 of file fs/xfs/xfs_trans.c.  "
            "Return address = 0xffffffff8823f7c1",
        ],
        [
            # ext2_msg's routine mount notes, XFS's own mount line
            "EXT2-fs (sdb1): warning: mounting unchecked fs, running e2fsck is recommended",
            "XFS mounting filesystem md0",
            # ext2's mount refusals when mount(8) probes a disk holding another file system
            "EXT2-fs (sda1): error: couldn't mount because of unsupported optional features (240)",
            "EXT2-fs (sdb1): error: can't find an ext2 filesystem on dev sdb1.",
            "EXT2-fs (sdb1): error: unable to read superblock",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX21A_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(FIX21A_EXAMPLES, tag)


def _primary(text: str) -> str:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report.primary.tag if report.primary else ""


def test_an_old_mpt2sas_fault_in_syslog_with_an_empty_tag_is_the_culprit() -> None:
    # RHEL 6-era rsyslog templates leave the tag empty: "kernel: : " before the message
    paste = (
        "Mar  3 08:01:12 db7 kernel: : mpt2sas1: fault_state(0x2622)!\n"
        "Mar  3 08:01:12 db7 kernel: : mpt2sas1: sending diag reset !!\n"
        "Mar  3 08:01:14 db7 kernel: : mpt2sas1: diag reset: SUCCESS\n"
    )
    assert _primary(paste) == "mpt3sas_ioc_fault"


def test_a_forced_hard_reset_of_a_busy_ata_device_is_its_io_error() -> None:
    paste = (
        "[  812.100000] ata3: link is slow to respond, please be patient (ready=0)\n"
        "[  817.080000] ata3: device not ready (errno=-16), forcing hardreset\n"
        "[  817.080010] ata3: soft resetting link\n"
        "[  817.300000] ata3: EH complete\n"
    )
    assert _primary(paste) == "disk_io_error"


def test_a_mailed_2_6_xfs_log_error_with_syslog_levels_is_a_file_system_error() -> None:
    # a mail reply: "> " quoting, raw "<N>" levels, the long line wrapped by the mailer
    paste = (
        '>   <1>I/O error in filesystem ("md0") meta-data dev md0 block 0x1c0\n'
        '> ("xlog_iodone") error 5 buf count 4096\n'
        ">   <5>xfs_force_shutdown(md0,0x2) called from line 960 of file\n"
        "> fs/xfs/xfs_log.c.  Return address = 0xffffffff8823f7c1\n"
    )
    assert _primary(paste) == "fs_error"
