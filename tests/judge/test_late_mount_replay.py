"""A file system that replays its log when mounted minutes into a boot still says the
previous end was unclean, where the log holds nothing else; a journal renamed that late
(a user's journal at the first login) does not."""

from __future__ import annotations

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

MOUNT_S = 316  # past the first five minutes: a data volume mounted by hand


def _verdict(*messages: str, start_s: int = MOUNT_S):  # type: ignore[no-untyped-def]
    recs = [
        KernelRecord(m, 6, 0, n, (start_s + n) * 1_000_000, "-") for n, m in enumerate(messages)
    ]
    return classify(Timeline.from_records(recs))


def test_a_late_xfs_log_replay_is_the_culprit_when_alone() -> None:
    v = _verdict(
        "XFS (vdb1): Mounting V5 Filesystem",
        "XFS (vdb1): Starting recovery (logdev: internal)",
        "XFS (vdb1): Ending recovery (logdev: internal)",
    )
    assert v.primary is not None and v.primary.tag == "fs_recovery"
    assert v.subject.value == "previous_boot"


def test_a_late_ext4_replay_is_the_culprit_when_alone() -> None:
    v = _verdict("EXT4-fs (sdb1): recovery complete", "EXT4-fs (sdb1): mounted filesystem")
    assert v.primary is not None and v.primary.tag == "fs_recovery"


def test_a_clean_late_mount_names_no_culprit() -> None:
    v = _verdict("XFS (vdb1): Mounting V5 Filesystem", "XFS (vdb1): Ending clean mount")
    assert v.primary is None
