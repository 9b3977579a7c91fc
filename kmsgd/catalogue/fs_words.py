"""File-system messages read by their own words where a paste lost their prefix.

A quoted or wrapped paste can lose the first characters of a line ("> FS (dm-0): …" for
"XFS (dm-0): …"); a message whose body only one file system prints still names it. Each
entry here keys on such a body, with the same tag and meaning as the prefixed entry.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

FS_WORDS_SIGNATURES: tuple[Signature, ...] = (
    # fs/xfs/xfs_log_recover.c xlog_recover's xfs_notice "Starting recovery (logdev: %s)" and
    # xfs_log.c (xfs_log_recover.c to 5.4) "Ending recovery (logdev: %s)" (4.4-6.18): no other
    # kernel code prints "(logdev: ", so the body names XFS's log replay without "XFS (%s): "
    # (lifecycle.py's fs_recovery reads the prefixed line)
    sig(
        "fs_recovery",
        r"\(\S+\): (?:Starting|Ending) recovery \(logdev: \S+\)",
        ("logdev",),
        Severity.INFO,
        "lifecycle",
        "A filesystem replayed its journal at mount: the previous boot ended without unmounting.",
        "None by itself; the previous boot ended abruptly.",
        100,
        device_kind=DeviceKind.FS,
        formats=(
            Format(
                "Starting recovery (logdev: %s)",
                "fs/xfs/xfs_log_recover.c",
                "4.4-6.18",
                "FS (dm-0): ",
                args=("internal",),
            ),
            Format(
                "Ending recovery (logdev: %s)",
                "fs/xfs/xfs_log.c",
                "4.4-6.18 (xfs_log_recover.c to 5.4)",
                "S (sda1): ",
                args=("/dev/sdb1",),
            ),
        ),
    ),
)
