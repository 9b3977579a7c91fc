"""A commit larger than the ring takes at once keeps every record: the real `kmsgd run` on a
1 MiB ring (tests/daemon.py) with a FIFO as /dev/kmsg, fed faster than one commit holds.

The ring overwrites its oldest records; the newest, the ones a post-mortem needs, are kept."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import make_proc
from daemon import dump, start, stop, wait_for, wait_ready

from kmsgd.ring import frame as fr

F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ, named in Python 3.10+ on Linux only


def rec(seq: int, text: str, level: int = 6) -> bytes:
    return b"%d,%d,%d,-;%s\n" % (level, seq, seq * 1000, text.encode())


def kernel(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["data"] for r in records if r["kind"] == "kernel"]


def write_all(fd: int, data: bytes, within_s: float = 30.0) -> None:
    """All of `data` into a non-blocking FIFO: the daemon must keep reading it."""
    view, deadline = memoryview(data), time.monotonic() + within_s
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            assert time.monotonic() < deadline, "the daemon stopped reading kmsg"
            time.sleep(0.001)


def started(tmp_path: Path) -> tuple[Any, Path, int]:
    fifo = tmp_path / "kmsg"
    os.mkfifo(fifo)
    wfd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    ring = tmp_path / "ring"
    daemon = start(ring, kmsg=str(fifo), proc=str(make_proc(tmp_path / "proc")))
    wait_ready(ring, daemon)
    return daemon, ring, wfd


def stopped(daemon: Any, wfd: int) -> str:
    assert stop(daemon) == 0
    os.close(wfd)
    return daemon.stderr.read().decode(errors="replace") if daemon.stderr else ""


def test_every_record_after_a_giant_one_is_kept(tmp_path: Path) -> None:
    daemon, ring, wfd = started(tmp_path)
    try:
        giant = rec(0, "x" * (2 << 20))  # 2 MiB: more than the whole ring
        write_all(wfd, giant + b"".join(rec(i, f"after the giant {i}") for i in range(1, 41)))
        wait_for(lambda: any(k["seq"] == 40 for k in kernel(dump(ring))), timeout=30)
    finally:
        err = stopped(daemon, wfd)
    records = dump(ring)
    got = kernel(records)
    assert [k["seq"] for k in got] == list(range(41))
    assert "record cut to fit the ring" in got[0]["message"]
    assert [k["message"] for k in got[1:]] == [f"after the giant {i}" for i in range(1, 41)]
    assert [r for r in records if r["kind"] == "lost"] == []
    assert "dropping_kernel_records" not in err


@pytest.mark.slow
def test_a_burst_larger_than_the_ring_keeps_its_newest_records(tmp_path: Path) -> None:
    """20,000 records (~4 MiB) in one second; the daemon frozen (SIGSTOP: a slow disk or a long
    storm) for its first half while a FIFO enlarged to 1 MiB fills: batches as large as the
    1 MiB ring, and larger than what one commit may place."""
    n = 20_000
    daemon, ring, wfd = started(tmp_path)
    try:
        fcntl.fcntl(wfd, F_SETPIPE_SZ, 1 << 20)  # fs.pipe-max-size's default
        pad = "x" * 120
        lines = [rec(i, f"kmsgd-burst {i:05d} eth0: rx statistics {pad}") for i in range(n)]
        t0, at = time.monotonic(), 0
        daemon.send_signal(signal.SIGSTOP)
        try:
            with contextlib.suppress(BlockingIOError):
                while at < n and time.monotonic() < t0 + 0.5:
                    os.write(wfd, lines[at])  # whole lines only: a FIFO write of < 4 KiB
                    at += 1
            time.sleep(max(0.0, t0 + 0.5 - time.monotonic()))
        finally:
            daemon.send_signal(signal.SIGCONT)
        while at < n:
            write_all(wfd, b"".join(lines[at : at + 500]))
            at += 500
            time.sleep(max(0.0, t0 + at / n - time.monotonic()))
        wait_for(lambda: any(k["seq"] == n - 1 for k in kernel(dump(ring))), timeout=30)
    finally:
        err = stopped(daemon, wfd)
    records = dump(ring)
    seqs = [k["seq"] for k in kernel(records)]
    frame = fr.padded(fr.HEADER_SIZE + len(lines[-1]))
    print(f"\nburst: {n} records in 1 s on a 1 MiB ring: seqs {seqs[0]}..{seqs[-1]} kept")
    assert "dropping_kernel_records" not in err
    assert [r["data"] for r in records if r["kind"] == "lost"] == []
    assert seqs == list(range(seqs[0], n))  # the newest, up to the last, none missing
    assert len(seqs) * frame > (1 << 20) // 2  # at least half the ring is the burst's
