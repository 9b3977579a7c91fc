"""A recorder restarted within a boot whose records have lapped the ring: nothing stored twice,
nothing hidden, no loss claimed that did not happen (the real `kmsgd run`, a regular file as
/dev/kmsg holding what the kernel buffer would still hold)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from conftest import make_proc
from daemon import dump, start, stop, wait_for, wait_ready

pytestmark = pytest.mark.slow


# each poll is a `kmsgd dump` of the whole 1 MiB ring, seconds apiece on a loaded 2-core host
LOADED_S = 60.0


def rec(seq: int) -> bytes:
    return b"6,%d,%d,-;line %d of a long boot, padded to look like a real one ..........\n" % (
        seq,
        seq * 1000,
        seq,
    )


def kernel_seqs(records: list[dict]) -> list[int]:
    return [r["data"]["seq"] for r in records if r["kind"] == "kernel"]


def kernel_buffer(path: Path, first: int, end: int) -> None:
    """The kernel buffer now holds records [first, end)."""
    path.write_bytes(b"".join(rec(i) for i in range(first, end)))


def test_restarts_after_the_ring_lapped_within_the_boot(tmp_path: Path) -> None:
    # 20,000 lines on a 1 MiB ring, SIGKILL, restart with the kernel buffer holding the last
    # 1,000: dump showed only what came after the restart, and a `lost` record claimed 19,000
    # records gone before kmsgd started.
    proc = make_proc(tmp_path / "proc")
    kmsg, ring = tmp_path / "kmsg", tmp_path / "ring"
    kernel_buffer(kmsg, 0, 2000)
    daemon = start(ring, kmsg=str(kmsg), proc=str(proc))
    wait_ready(ring, daemon)
    for first in range(2000, 20_000, 2000):  # at a pace the recorder keeps (no `dropped`)
        wait_for(lambda first=first: first - 1 in kernel_seqs(dump(ring)), timeout=LOADED_S)
        with open(kmsg, "ab") as f:
            f.write(b"".join(rec(i) for i in range(first, first + 2000)))
    wait_for(lambda: daemon.poll() is None and 19_999 in kernel_seqs(dump(ring)), timeout=LOADED_S)
    before = kernel_seqs(dump(ring))
    assert before == list(range(before[0], 20_000))
    assert before[0] > 0 and len(before) > 5000  # lapped: the boot's start is gone
    daemon.send_signal(signal.SIGKILL)
    daemon.wait()

    kernel_buffer(kmsg, 19_000, 20_500)  # 500 more logged while kmsgd was down
    daemon = start(ring, kmsg=str(kmsg), proc=str(proc))
    wait_ready(ring, daemon)
    wait_for(lambda: 20_499 in kernel_seqs(dump(ring)), timeout=LOADED_S)
    seqs = kernel_seqs(dump(ring))
    assert seqs == list(range(seqs[0], 20_500))  # once each, in order, nothing hidden
    # only what the 500 new lines overwrote went (and the padding ending each of their commits
    # and the restart's, docs/ring-format.md "Commits")
    assert seqs[0] <= before[0] + 700
    records = dump(ring)
    assert [r for r in records if r["kind"] == "lost"] == []
    daemon.send_signal(signal.SIGKILL)
    daemon.wait()

    for n in range(3):  # any number of restarts; one lost 50 records for real
        end = 21_000 + 500 * n
        kernel_buffer(kmsg, end - 450 if n == 1 else end - 1000, end)
        daemon = start(ring, kmsg=str(kmsg), proc=str(proc))
        wait_ready(ring, daemon)
        wait_for(lambda end=end: end - 1 in kernel_seqs(dump(ring)), timeout=LOADED_S)
        if n < 2:
            daemon.send_signal(signal.SIGKILL)
            daemon.wait()
    assert stop(daemon) == 0
    records = dump(ring)
    seqs = kernel_seqs(records)
    lost = [r["data"] for r in records if r["kind"] == "lost"]
    assert lost == [{"count": 50, "first_seq": 21_000, "reason": "restart"}]
    missing = set(range(seqs[0], 22_000)) - set(seqs)
    assert seqs == sorted(set(seqs)) and missing == set(range(21_000, 21_050))
    assert len(seqs) > 5000
    boots = [r for r in records if r["kind"] == "boot"]
    assert len(boots) >= 3  # restarts are part of the same boot, all dumped
    assert os.path.getsize(ring) == 1 << 20
