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
    # OpenZFS (its Solaris Porting Layer, module/os/linux/spl/spl-err.c spl_panic): a failed
    # VERIFY()/ASSERT() prints its message, then "PANIC at <file>:<line>:<func>()", and the
    # thread halts in D state for good (spl_panic_halt=0, the default; =1 panics the kernel
    # with the message); the messages are include/os/linux/spl/sys/debug.h's "VERIFY(<cond>)
    # failed" and "VERIFY3(<left> <op> <right>) failed (<l> <op> <r>)" (VERIFY3B/S/U/P and
    # VERIFY0 print "VERIFY3("); zfs 0.6-2.x. What waits on that thread hangs behind it.
    sig(
        "zfs_panic",
        r"^PANIC at [\w.-]+:\d+:\w+\(\)|^VERIFY3?\(.+\) failed(?: \(|$)",
        ("PANIC", "VERIFY", "VERIFY3"),
        Severity.CRITICAL,
        "fs",
        "OpenZFS hit an internal assertion (VERIFY/PANIC): the thread that hit it is halted "
        "for good, and whatever waits on it (the pool's txg sync, its writers) hangs.",
        "Read the assertion and the stack after it; on-disk corruption or a ZFS bug: update "
        "OpenZFS, search its issue tracker for the assertion, then scrub or import read-only.",
        56,
        formats=(
            Format(
                "PANIC at %s:%d:%s()",
                "openzfs:module/os/linux/spl/spl-err.c",
                "zfs 0.8-2.2",
                args=("zfs_vfsops.c", 585, "zfs_space_delta_cb"),
            ),
            Format(
                "VERIFY3(0 == zap_add(os, obj, name, 8, 1, &value, tx)) failed (0 == %lld)",
                "openzfs:include/os/linux/spl/sys/debug.h",
                "zfs 2.0-2.2 (VERIFY0)",
                args=(17,),
            ),
            Format(
                "VERIFY3(sa.sa_magic == SA_MAGIC) failed (%llu == %llu)",
                "openzfs:include/os/linux/spl/sys/debug.h",
                "zfs 2.0-2.2 (VERIFY3U)",
                args=(1446318350, 3100762),
            ),
            Format(
                "VERIFY(zio->io_error == 0) failed",
                "openzfs:include/os/linux/spl/sys/debug.h",
                "zfs 2.0-2.2 (VERIFY)",
            ),
        ),
    ),
    # OpenZFS module/zfs/zio.c zio_suspend: cmn_err(CE_WARN, "Pool '%s' has encountered an
    # uncorrectable I/O failure and has been suspended.") (spl-err.c vcmn_err prints CE_WARN
    # as "WARNING: %s"); with failmode=panic fm_panic("Pool '%s' has encountered an
    # uncorrectable I/O failure and the failure mode property for this pool is set to
    # panic."): every I/O to the pool blocks (failmode=wait) or fails until `zpool clear`
    sig(
        "zfs_pool_suspended",
        r"Pool '[^']*' has encountered an uncorrectable I/O failure and (?:has been suspended"
        r"|the failure mode property)",
        ("uncorrectable",),
        Severity.CRITICAL,
        STORAGE,
        "A ZFS pool lost the devices it needs (an uncorrectable I/O failure) and was "
        "suspended: every read and write to it waits or fails until `zpool clear`.",
        "Find the vdev whose I/O failed (the zio and disk errors before it, `zpool status -v`); "
        "fix its cable, controller or USB bridge, then `zpool clear` the pool.",
        55,
        formats=(
            Format(
                "Pool '%s' has encountered an uncorrectable I/O failure and has been suspended.",
                "openzfs:module/zfs/zio.c",
                "zfs 0.6-2.2",
                "WARNING: ",
                args=("tank",),
            ),
            Format(
                "Pool '%s' has encountered an uncorrectable I/O failure and the failure mode "
                "property for this pool is set to panic.",
                "openzfs:module/zfs/zio.c",
                "zfs 0.6-2.2",
                "Kernel panic - not syncing: ",
                args=("tank",),
            ),
        ),
    ),
    # OpenZFS module/os/linux/zfs/vdev_disk.c vdev_disk_error: printk(KERN_WARNING "zio
    # pool=%s vdev=%s error=%d type=%d offset=%llu size=%llu flags=%x") for every failed
    # disk I/O of a vdev (flags=%llu from 2.2): ZFS's own disk I/O error, one meaning with
    # the block layer's
    sig(
        "disk_io_error",
        r"^zio pool=\S+ vdev=\S+ error=\d+ type=\d+",
        ("zio",),
        Severity.ERROR,
        STORAGE,
        "A block device failed a read or write (ZFS's report of a failed vdev I/O).",
        "Check SMART, cables and the filesystem on that device.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "zio pool=%s vdev=%s error=%d type=%d offset=%llu size=%llu flags=%x",
                "openzfs:module/os/linux/zfs/vdev_disk.c",
                "zfs 0.8-2.1",
                args=("tank", "/dev/disk/by-id/ata-ST4000-part1", 5, 1, 270336, 8192, 0x180880),
            ),
            Format(
                "zio pool=%s vdev=%s error=%d type=%d offset=%llu size=%llu flags=%llu",
                "openzfs:module/os/linux/zfs/vdev_disk.c",
                "zfs 2.2",
                args=("tank", "/dev/sdb1", 5, 2, 7748175663104, 12288, 3145856),
            ),
        ),
    ),
    # md's older wordings and its superblock writes. 2.6.x raid1.c/raid10.c/raid5.c error():
    # printk(KERN_ALERT "raid1: Disk failure on %s, disabling device. \n\tOperation
    # continuing on %d devices") ("raid10: …", "raid5: …"; the md/raid1:%s: prefix came in
    # 2.6.3x) and "raid1: %s: unrecoverable I/O read error for block %llu" (the "Operation
    # continuing" line alone is the array's state, as in 4.x-6.x: no match); md.c super_written
    # "md: super_written gets error=%d" (2.6.x-4.x; "md: %s gets error=%d" with __func__
    # 5.x-6.18): a member's superblock write failed and md_error fails the member; raid5.c
    # "md/raid:%s: not enough operational devices (%d/%d failed)" (3.x-6.18; 2.6 "raid5: not
    # enough operational devices for %s (%d/%d failed)"): too many members are gone for the
    # array to start
    sig(
        "md_disk_failure",
        r"\braid\d+: (?:Disk failure on \S+, disabling device|\S+: unrecoverable I/O read error "
        r"for block)|\bmd: super_written gets error=-?\d+"
        r"|\braid\d*:(?:\S+:)? not enough operational devices\b",
        ("Disk", "unrecoverable", "super_written", "operational"),
        Severity.ERROR,
        STORAGE,
        "A software RAID (md) member failed and was disabled: the array runs degraded.",
        "Replace the failed member and re-add it (mdadm --manage --add); check the disk's "
        "SMART and cable first.",
        55,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "raid1: Disk failure on %s, disabling device. ",
                "drivers/md/raid1.c",
                "2.6.18-2.6.32",
                args=("sdb1",),
            ),
            Format(
                "raid1: %s: unrecoverable I/O read error for block %llu",
                "drivers/md/raid1.c",
                "2.6.18-2.6.32",
                args=("sdb1", 123456),
            ),
            Format("md: super_written gets error=%d", "drivers/md/md.c", "4.4-4.19", args=(-5,)),
            Format(
                "md: %s gets error=%d", "drivers/md/md.c", "5.4-6.18", args=("super_written", -5)
            ),
            Format(
                "md/raid:%s: not enough operational devices (%d/%d failed)",
                "drivers/md/raid5.c",
                "4.4-6.18",
                args=("md0", 2, 4),
            ),
        ),
    ),
    # drivers/md/dm-snap.c __invalidate_snapshot: DMERR("Invalidating snapshot: Unable to
    # allocate exception.") when the copy-on-write store ran full, "Invalidating snapshot:
    # Error reading/writing." when its I/O failed (2.6.x-6.18, "device-mapper: snapshots: "):
    # the snapshot (an LVM snapshot, a backup's consistent view) is dropped and every read of
    # it fails from then on
    sig(
        "dm_snapshot_invalidated",
        r"device-mapper: snapshots: Invalidating snapshot: ",
        ("Invalidating",),
        Severity.ERROR,
        STORAGE,
        "A device-mapper (LVM) snapshot was invalidated: its copy-on-write space ran full, or "
        "its I/O failed, and the snapshot's data is gone.",
        "Remove the snapshot (lvremove) and take a larger one (lvcreate -L, or "
        "snapshot_autoextend_threshold in lvm.conf); what read from it (a backup) must run "
        "again.",
        55,
        formats=(
            Format(
                "Invalidating snapshot: Unable to allocate exception.",
                "drivers/md/dm-snap.c",
                "4.4-6.18",
                "device-mapper: snapshots: ",
            ),
            Format(
                "Invalidating snapshot: Error reading/writing.",
                "drivers/md/dm-snap.c",
                "4.4-6.18",
                "device-mapper: snapshots: ",
            ),
        ),
    ),
)
