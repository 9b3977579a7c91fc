"""Storage wordings from the source across 2.6.32-6.x (the SCSI midlayer's sense and failure
lines, libata's failed resets, the MMC block driver, md's 2.6 wording, JBD/JBD2, 2.6-era XFS,
3.x-4.x btrfs, GFS2, OCFS2, SquashFS, FAT) and the controller families not tagged before
(hpsa, smartpqi, aacraid, qla2xxx's error handler, lpfc, device-mapper snapshots): each
rendered as its printk prints it with a realistic prefix (the format strings are in the
catalogue entries), the routine lines beside them that must not match, and what the judge
makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.commands.analyze import analyze_report
from kmsgd.ring.records import KernelRecord

# tag → (positives, negatives)
SWEEP_STORAGE_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "disk_io_error": (
        [
            # block layer and fs/buffer.c, 2.6.32-4.x
            "end_request: I/O error, dev sdb, sector 54366448",
            "lost page write due to I/O error on sdb1",
            "Buffer I/O error on device sdc1, logical block 805039",
            # SCSI midlayer: scsi_io_completion, the sense data, sd's offlining
            "sd 11:0:0:0: [sdc] Unhandled sense code",
            "sd 11:0:0:0: [sdc] Unhandled error code",
            "sd 11:0:0:0: [sdc]  Sense Key : Medium Error [current] [descriptor]",
            "sd 11:0:0:0: [sdc]  Add. Sense: Unrecovered read error - auto reallocate failed",
            "sd 2:0:0:0: [sdb] tag#3 Sense Key : Hardware Error [current]",
            "sd 2:0:0:0: [sdb] tag#3 Add. Sense: Unrecovered read error",
            "sd 4:0:0:0: [sdb] FAILED Result: hostbyte=DID_NO_CONNECT driverbyte=DRIVER_OK",
            "sd 3:0:0:0: [sdc] tag#79 Medium access timeout failure. Offlining disk!",
            "sd 2:0:0:0: timing out command, waited 360s",
            # libata
            "ata3: COMRESET failed (errno=-16)",
            "ata3: SRST failed (errno=-16)",
            "ata3: reset failed (errno=-5), retrying in 8 secs",
            "ata1.00: qc timeout (cmd 0xec)",
            "ata1.00: qc timeout after 5000 msecs (cmd 0xef)",
            "ata1.00: failed to IDENTIFY (I/O error, err_mask=0x4)",
            "ata1.00: revalidation failed (errno=-5)",
            "ata1.00: error: { UNC }",
            "ata2.00: error: { ABRT IDNF }",
            "ata1.00: failed command: FLUSH CACHE EXT",
            # SD cards and eMMC
            "mmcblk0: error -110 transferring data, sector 3817472, nr 8, cmd response 0x900, "
            "card status 0xb00",
            "mmc0: Timeout waiting for hardware interrupt.",
            "mmc1: Timeout waiting for hardware cmd interrupt.",
        ],
        [
            # a reset's notices, a probe's, a sense key that is not a failure
            "ata3: hard resetting link",
            "ata3: link is slow to respond, please be patient (ready=0)",
            "ata3: SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
            "ata3: EH complete",
            "ata1.00: error: { ICRC ABRT }",
            "ata1.00: status: { DRDY ERR }",
            "sd 2:0:0:0: [sdb] Write cache: enabled, read cache: enabled, doesn't support DPO or "
            "FUA",
            "sd 2:0:0:0: [sdb] Attached SCSI disk",
            "sr 0:0:0:0: [sr0] tag#0 Sense Key : Not Ready [current]",
            "sd 6:0:0:0: [sdb] tag#0 Add. Sense: Medium not present",
            "usb 2-1: reset high-speed USB device number 2 using ehci-pci",
            "mmc0: new high speed SDHC card at address aaaa",
        ],
    ),
    "fs_error": (
        [
            "Aborting journal on device sdb1-8.",
            "JBD2: Detected IO errors while flushing file data on sdb1-8",
            "JBD: Detected IO errors while flushing file data on md1",
            "JBD2: Error -5 detected when updating journal superblock for sdb1-8.",
            "JBD2: I/O error when updating journal superblock for sdb1-8.",
            "EXT3-fs (sdb1): error: remounting filesystem read-only",
            "EXT4-fs (sdc1): previous I/O error to superblock detected",
            "EXT4-fs (dm-0): I/O error while writing superblock",
            "EXT4-fs (dm-0): Delayed block allocation failed for inode 1835012 at logical offset "
            "0 with max blocks 1 with error 5",
            'Filesystem "sdb1": XFS internal error xfs_trans_cancel at line 1164 of file '
            "fs/xfs/xfs_trans.c.  Caller 0xffffffff8823f7c1",
            'Filesystem "sdb1": Corruption of in-memory data detected.  Shutting down '
            "filesystem: sdb1",
            'Filesystem "dm-3": Log I/O Error Detected.  Shutting down filesystem: dm-3',
            'Filesystem "dm-3": All device paths lost.  Shutting down filesystem: dm-3',
            "BTRFS: error (device sda1) in __btrfs_free_extent:6954: errno=-5 IO failure",
            "btrfs: sda1 checksum verify failed on 2095104 wanted 3A2B found 1C4D level 0",
            "BTRFS: bdev /dev/sdb errs: wr 12, rd 0, flush 0, corrupt 0, gen 0",
            "BTRFS: Transaction aborted (error -28)",
            "BTRFS: open_ctree failed",
            "GFS2: fsid=cluster:gfs0.0: about to withdraw this file system",
            "gfs2: fsid=cluster:gfs0.0: withdrawn",
            "OCFS2: ERROR (device sdb1): ocfs2_validate_inode_block: Invalid dinode #1234: "
            "signature = ",
            "SQUASHFS error: zlib decompression failed, data probably corrupt",
            "SQUASHFS error: Unable to read page, block 1a2b3c, size 1f000",
            "FAT-fs (sdb1): error, fat_get_cluster: invalid cluster chain (i_pos 0)",
        ],
        [
            # mount-time history and routine notes
            "BTRFS info (device sdb): bdev /dev/sdb errs: wr 12, rd 0, flush 0, corrupt 0, gen 0",
            "EXT4-fs (sda1): mounted filesystem with ordered data mode. Opts: (null)",
            "kjournald starting.  Commit interval 5 seconds",
            "XFS mounting filesystem sdb1",
            'Filesystem "sdb1": reserve blocks depleted! Consider increasing reserve pool size.',
            "gfs2: fsid=cluster:gfs0.0: first mount done, others may mount",
            "squashfs: version 4.0 (2009/01/31) Phillip Lougher",
        ],
    ),
    "md_disk_failure": (
        [
            "raid1: Disk failure on sdb1, disabling device. ",
            "raid5: Disk failure on sdc1, disabling device.",
            "raid1: sdb1: unrecoverable I/O read error for block 123456",
            "md: super_written gets error=-5",
            "md/raid:md0: not enough operational devices (2/4 failed)",
        ],
        [
            "md: md0: raid array is not clean -- starting background reconstruction",
            "md: md0: resync done.",
            "raid1: raid set md0 active with 2 out of 2 mirrors",
        ],
    ),
    "dm_snapshot_invalidated": (
        [
            "device-mapper: snapshots: Invalidating snapshot: Unable to allocate exception.",
            "device-mapper: snapshots: Invalidating snapshot: Error reading/writing.",
        ],
        ["device-mapper: ioctl: 4.41.0-ioctl (2019-09-16) initialised: dm-devel@redhat.com"],
    ),
    "hpsa_controller_lockup": (
        ["hpsa 0000:05:00.0: Controller lockup detected: 0x00130000 after 30"],
        ["hpsa 0000:05:00.0: Logical aborts not supported"],
    ),
    "smartpqi_controller_offline": (
        ["smartpqi 0000:5e:00.0: controller is offline: status code 0x6100c"],
        ["smartpqi 0000:5e:00.0: added 3:0:0:0 0000000000000000 Direct-Access"],
    ),
    "aacraid_adapter_panic": (
        ["aacraid0: adapter kernel panic'd 6.", "aacraid 0000:04:00.0: adapter kernel panic'd ef."],
        ["aacraid: Host adapter abort request.", "aacraid 0000:04:00.0: scsi0: Adaptec"],
    ),
    "scsi_host_reset": (
        [
            "mptscsih: ioc0: attempting task abort! (sc=ffff880123456789)",
            "qla2xxx [0000:05:00.0]-801c:1: Abort command issued nexus=1:0:3 -- 2002.",
            "qla2xxx [0000:05:00.0]-8018:1: ADAPTER RESET ISSUED nexus=1:0:3.",
            "qla2xxx [0000:05:00.0]-8009:1: DEVICE RESET ISSUED nexus=1:0:3 cmd=ffff9a2b4c6d8e00.",
            "sd 6:0:0:0: [sdb] tag#0 uas_eh_abort_handler 0 uas-tag 1 inflight: CMD IN",
            "aacraid: Host adapter abort request (0,0,0,0)",
            "aacraid: Host adapter reset request. SCSI hang ?",
            "aacraid: Host device reset request. SCSI hang ?",
        ],
        [
            "mptscsih: ioc0: task abort: SUCCESS (rv=2002) (sc=ffff880123456789)",
            "scsi host6: uas_eh_device_reset_handler success",
        ],
    ),
    "megaraid_fw_fault": (
        [
            "megaraid_sas: FW detected to be in fault state, restarting it...",
            "megaraid_sas 0000:02:00.0: FW detected to be in fault state, restarting it...",
        ],
        ["megaraid_sas 0000:02:00.0: FW now in Ready state"],
    ),
    "nvme_reset": (
        [
            "nvme 0000:01:00.0: Failed status: ffffffff, reset controller",
            "nvme 0000:01:00.0: Device not ready; aborting reset",
        ],
        [
            "nvme 0000:01:00.0: Cancelling I/O 123 QID 4",
            "nvme nvme0: Shutdown timeout set to 8 seconds",
        ],
    ),
    "mpt3sas_ioc_fault": (
        ["mptbase: ioc0: IOC is in FAULT state (2651h)!!!"],
        [
            "mptbase: ioc0: LogInfo(0x31112000): Originator={PL}, Code={Reset}, SubCode(0x0000)",
            "mptbase: ioc0: Initiating recovery",
        ],
    ),
    "fc_link_down": (
        [
            "lpfc 0000:05:00.0: 0:1305 Link Down Event x2 received Data: x2 x20 x800110 x0 x0",
            " rport-1:0-0: blocked FC remote port time out: removing target and saving binding",
            " rport-1:0-0: blocked FC remote port time out: removing rport and starget",
        ],
        ["lpfc 0000:05:00.0: 0:1303 Link Up Event x1 received Data: x1 x0 x10 x0 x0 x0 0"],
    ),
}


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=0))}


@pytest.mark.parametrize("tag", sorted(SWEEP_STORAGE_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    positives, negatives = SWEEP_STORAGE_EXAMPLES[tag]
    for line in positives:
        assert tag in _tags(line), line
    for line in negatives:
        assert tag not in _tags(line), line


def test_an_emulex_link_down_is_not_a_pcie_link_down() -> None:
    line = "lpfc 0000:05:00.0: 0:1305 Link Down Event x2 received Data: x2 x20 x800110 x0 x0"
    assert _tags(line) == {"fc_link_down"}


def _primary(text: str) -> str:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report.primary.tag if report.primary else ""


def test_a_smart_array_lockup_leads_the_resets_and_errors_after_it() -> None:
    paste = (
        "[ 9001.100000] hpsa 0000:05:00.0: scsi 0:1:0:0: resetting logical  Direct-Access     "
        "HP       LOGICAL VOLUME   RAID-1(+0) SSDSmartPathCap- En- Exp=1\n"
        "[ 9031.200000] hpsa 0000:05:00.0: Controller lockup detected: 0x00130000 after 30\n"
        "[ 9031.300000] blk_update_request: I/O error, dev sda, sector 2048\n"
        "[ 9031.400000] Aborting journal on device sda1-8.\n"
    )
    assert _primary(paste) == "hpsa_controller_lockup"


def test_a_2_6_disk_failure_is_the_disk_before_the_journal_and_md() -> None:
    paste = (
        "Nov 29 12:00:43 lanfear kernel: sd 0:0:1:0: [sdb] Unhandled sense code\n"
        "Nov 29 12:00:43 lanfear kernel: sd 0:0:1:0: [sdb]  Sense Key : Medium Error [current]\n"
        "Nov 29 12:00:43 lanfear kernel: end_request: I/O error, dev sdb, sector 4483503\n"
        "Nov 29 12:00:43 lanfear kernel: raid1: Disk failure on sdb1, disabling device. \n"
        "Nov 29 12:00:43 lanfear kernel: lost page write due to I/O error on md1\n"
        "Nov 29 12:00:43 lanfear kernel: JBD: Detected IO errors while flushing file data on md1\n"
    )
    assert _primary(paste) == "disk_io_error"


def test_an_sd_card_timing_out_on_a_board_is_its_io_error() -> None:
    paste = (
        "[  532.477831] mmc0: Timeout waiting for hardware interrupt.\n"
        "[  532.477833] mmcblk0: error -110 transferring data, sector 3817472, nr 8, cmd "
        "response 0x900, card status 0xb00\n"
        "[  532.490457] SQUASHFS error: squashfs_read_data failed to read block 0x1234\n"
    )
    assert _primary(paste) == "disk_io_error"


def test_a_recovered_link_reset_alone_names_no_culprit() -> None:
    paste = (
        "[  812.100000] ata3: hard resetting link\n"
        "[  812.600000] ata3: link is slow to respond, please be patient (ready=0)\n"
        "[  817.080010] ata3: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
        "[  817.100000] ata3.00: configured for UDMA/133\n"
        "[  817.300000] ata3: EH complete\n"
    )
    assert _primary(paste) == ""


def test_a_snapshot_full_leads_the_file_system_errors_read_from_it() -> None:
    paste = (
        "[ 3600.000000] device-mapper: snapshots: Invalidating snapshot: Unable to allocate "
        "exception.\n"
        "[ 3600.100000] Buffer I/O error on dev dm-4, logical block 0, async page read\n"
        "[ 3600.200000] EXT4-fs error (device dm-4): ext4_find_entry:1455: inode #2: comm "
        "tar: reading directory lblock 0\n"
    )
    assert _primary(paste) == "dm_snapshot_invalidated"


def test_iscsids_report_of_a_kernel_conn_error_in_syslog_is_the_culprit() -> None:
    paste = (
        "Mar  3 08:01:12 db7 iscsid: Kernel reported iSCSI connection 1:0 error (1020 - "
        "ISCSI_ERR_TCP_CONN_CLOSE: TCP connection closed) state (3)\n"
        "Mar  3 08:01:15 db7 iscsid: connection1:0 is operational after recovery (1 attempts)\n"
    )
    assert _primary(paste) == "iscsi_connection_error"


def test_a_program_writing_iscsids_words_is_not_iscsid() -> None:
    paste = (
        "Mar  3 08:01:12 db7 logger: Kernel reported iSCSI connection 1:0 error (1020 - "
        "ISCSI_ERR_TCP_CONN_CLOSE: TCP connection closed) state (3)\n"
    )
    assert _primary(paste) == ""
