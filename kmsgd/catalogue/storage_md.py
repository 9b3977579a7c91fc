"""The block layer's stacked devices: software RAID (drivers/md/raid*.c) and device-mapper
(dm-mpath.c, dm-thin.c).

These fail because the devices below them did: a RAID member is failed after its I/O errors,
a multipath path after the path's I/O failed, so the disk's own errors (disk_io_error) and
a transport's failure rank before them. What they say is what a user lost: the array runs
degraded, the LUN lost a path (or all of them), a thin pool ran out of space and queues the
writes of every volume in it, so the tasks writing there hang (kmsgd/judge/chains.py).
DMERR/DMWARN/DMINFO print "device-mapper: <DM_MSG_PREFIX>: " (include/linux/device-mapper.h).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

STORAGE = "storage"

STORAGE_MD_SIGNATURES: tuple[Signature, ...] = (
    # drivers/md/raid1.c raid1_error, raid10.c raid10_error, raid5.c raid5_error: "md/raid1:%s:
    # Disk failure on %pg, disabling device." (then "… Operation continuing on %d devices.";
    # %s for the member before 4.19, printk KERN_ALERT to 4.x, pr_crit 4.x-6.18; raid5's
    # "md/raid:%s: …"); a read that no mirror could serve: raid1.c/raid10.c "md/raid1:%s: %pg:
    # unrecoverable I/O read error for block %llu" (4.4-6.18), raid5.c "md/raid:%s: read error
    # not correctable (sector %llu on %pg)." (4.4-6.18)
    sig(
        "md_disk_failure",
        r"md/raid\d*:\S+: (?:Disk failure on \S+, disabling device|\S+: unrecoverable I/O read"
        r" error for block|read error not correctable \(sector)",
        ("raid", "raid1", "raid10"),  # "md/raid1:", "md/raid10:", raid4/5/6's "md/raid:"
        Severity.ERROR,
        STORAGE,
        "A software RAID (md) array failed a member disk, or could read a block from none of "
        "its copies: the array runs degraded, or that data is lost.",
        "Check the failed member (SMART, cables, the I/O errors before this line) and replace "
        "it (mdadm --manage --remove/--add); a second failure loses the array.",
        55,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "md/raid1:%s: Disk failure on %pg, disabling device.\nmd/raid1:%s: Operation "
                "continuing on %d devices.",
                "drivers/md/raid1.c",
                "6.1-6.18",
                args=("md0", "sdb1", "md0", 1),
            ),
            Format(
                "md/raid:%s: Disk failure on %pg, disabling device.",
                "drivers/md/raid5.c",
                "6.1-6.18",
                args=("md127", "sdc"),
            ),
            Format(
                "md/raid1:%s: %pg: unrecoverable I/O read error for block %llu",
                "drivers/md/raid1.c",
                "6.1-6.18",
                args=("md0", "sdb1", 123456),
            ),
            Format(
                "md/raid:%s: read error not correctable (sector %llu on %pg).",
                "drivers/md/raid5.c",
                "6.1-6.18",
                args=("md127", 2048, "sdc"),
            ),
        ),
    ),
    # drivers/md/dm-mpath.c fail_path: DMWARN("Failing path %s.") (4.4-4.x), "%s: Failing
    # path %s." with the table's device (6.1-6.18): multipath gave a path up after its I/O
    # failed
    sig(
        "multipath_path_failure",
        r"device-mapper: multipath: (?:\S+: )?Failing path \S+",
        ("Failing",),
        Severity.ERROR,
        STORAGE,
        "Device-mapper multipath gave up a path to a LUN after I/O on it failed: the LUN runs "
        "on its other paths, or queues and fails its I/O when none is left.",
        "Check the path's transport (the HBA's link, the iSCSI session, the switch) and "
        "multipath -ll; with every path failed the LUN's I/O queues (queue_if_no_path) or "
        "fails.",
        55,
        formats=(
            Format(
                "%s: Failing path %s.",
                "drivers/md/dm-mpath.c",
                "6.1-6.18",
                "device-mapper: multipath: ",
                args=("253:0", "8:32"),
            ),
            Format(
                "Failing path %s.",
                "drivers/md/dm-mpath.c",
                "4.4-4.19",
                "device-mapper: multipath: ",
                args=("8:32",),
            ),
        ),
    ),
    # drivers/md/dm-thin.c set_pool_mode/notify_of_pool_mode_change: DMINFO("%s: switching
    # pool to %s%s mode") with "out-of-data-space" (+ " (queue IO)" / " (error IO)"),
    # "read-only" or "fail" (4.4-6.18; "write" is the pool back to normal);
    # metadata_operation_failed: DMERR_LIMIT("%s: metadata operation '%s' failed: error = %d")
    sig(
        "dm_thin_pool_failure",
        r"device-mapper: thin: \S+: (?:switching pool to (?:out-of-data-space|read-only|fail)"
        r"\b|metadata operation '[^']*' failed)",
        ("thin",),
        Severity.ERROR,
        STORAGE,
        "A device-mapper thin pool (LVM thin, Docker's devicemapper) ran out of data space, "
        "or its metadata failed: the writes of every thin volume in it queue or fail.",
        "Extend the pool or free space in it (lvextend, fstrim of its volumes); a read-only or "
        "failed pool needs thin_check/lvconvert --repair.",
        55,
        formats=(
            Format(
                "%s: switching pool to %s%s mode",
                "drivers/md/dm-thin.c",
                "5.4-6.18",
                "device-mapper: thin: ",
                args=("253:2", "out-of-data-space", " (queue IO)"),
            ),
            Format(
                "%s: metadata operation '%s' failed: error = %d",
                "drivers/md/dm-thin.c",
                "4.4-6.18",
                "device-mapper: thin: ",
                args=("253:2", "dm_pool_commit_metadata", -5),
            ),
        ),
    ),
)
