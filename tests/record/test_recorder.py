"""`kmsgd run` end to end on fake kernels: a FIFO as /dev/kmsg and fake proc roots."""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path

import pytest
from conftest import make_proc
from daemon import dump, kmsgd, start, stop, wait_for, wait_ready


def feed(fifo_fd: int, *records: bytes) -> None:
    os.write(fifo_fd, b"".join(records))


def rec(seq: int, text: str, level: int = 6) -> bytes:
    return b"%d,%d,%d,-;%s\n" % (level, seq, seq * 1000, text.encode())


def kernel_seqs(records: list[dict]) -> list[int]:
    return [r["data"]["seq"] for r in records if r["kind"] == "kernel"]


def test_records_gaps_and_a_clean_stop(tmp_path: Path) -> None:
    proc_root = make_proc(tmp_path / "proc")
    fifo = tmp_path / "kmsg"
    os.mkfifo(fifo)
    ring = tmp_path / "ring"
    daemon = start(ring, kmsg=str(fifo), proc=str(proc_root))
    wfd = os.open(fifo, os.O_WRONLY)
    feed(
        wfd,
        rec(0, "Linux version 6.8.0"),
        rec(1, "amdgpu: SMU: I'm not done with your previous command", 3),
    )
    feed(wfd, rec(5, "after an overrun"), rec(6, "last line"))
    wait_ready(ring, daemon)
    wait_for(lambda: 6 in kernel_seqs(dump(ring)))
    assert stop(daemon) == 0
    os.close(wfd)
    records = dump(ring)
    kinds = [r["kind"] for r in records]
    assert kinds[0] == "boot" and kinds[-1] == "stop"
    assert records[0]["data"]["kernel"] == "6.8.0-test"
    assert kernel_seqs(records) == [0, 1, 5, 6]
    lost = [r["data"] for r in records if r["kind"] == "lost"]
    assert lost == [{"count": 3, "first_seq": 2, "reason": "gap"}]
    assert records[-1]["data"]["signal"] == "SIGTERM"
    assert "heartbeat" in kinds


@pytest.mark.slow
def test_restart_within_a_boot_does_not_store_records_twice(tmp_path: Path) -> None:
    proc_root = make_proc(tmp_path / "proc")
    log = tmp_path / "kmsg.txt"
    log.write_bytes(b"".join(rec(i, f"line {i}") for i in range(10)))
    ring = tmp_path / "ring"
    for _ in range(2):
        daemon = start(ring, kmsg=str(log), proc=str(proc_root))
        wait_ready(ring, daemon)
        wait_for(lambda: 9 in kernel_seqs(dump(ring)))
        assert stop(daemon, signal.SIGINT) == 0
        with open(log, "ab") as f:
            f.write(rec(20, "written while kmsgd was down"))
    seqs = kernel_seqs(dump(ring))
    assert seqs == [*range(10), 20]  # nothing twice; the gap is explained by a lost record
    lost = [r["data"] for r in dump(ring) if r["kind"] == "lost"]
    assert lost == [{"count": 10, "first_seq": 10, "reason": "restart"}]


@pytest.mark.slow
def test_boots_lists_each_boot_and_whether_it_stopped(tmp_path: Path) -> None:
    ring = tmp_path / "ring"
    ids = []
    for n in range(3):
        boot_id = str(uuid.uuid4())
        ids.append(boot_id.replace("-", ""))
        proc_root = make_proc(tmp_path / f"proc{n}", boot_id)
        log = tmp_path / f"kmsg{n}"
        log.write_bytes(rec(0, f"boot {n}"))
        daemon = start(ring, kmsg=str(log), proc=str(proc_root))
        wait_ready(ring, daemon)
        if n < 2:
            assert stop(daemon) == 0
        else:
            daemon.kill()  # the last boot "dies"
            daemon.wait()
    out = kmsgd("boots", "--ring", str(ring), "--format", "json")
    rows = [__import__("json").loads(line) for line in out.stdout.splitlines()]
    assert [r["boot_id"] for r in rows] == ids
    assert [r["stopped"] for r in rows] == [True, True, False]
    assert [r["index"] for r in rows] == [-2, -1, 0]
    assert dump(ring, "-2")[0]["data"]["boot_id"] == ids[0]
    assert dump(ring, ids[1][:8])[0]["data"]["boot_id"] == ids[1]


def test_second_daemon_on_the_same_ring_is_refused(tmp_path: Path) -> None:
    proc_root = make_proc(tmp_path / "proc")
    log = tmp_path / "kmsg"
    log.write_bytes(rec(0, "x"))
    ring = tmp_path / "ring"
    first = start(ring, kmsg=str(log), proc=str(proc_root))
    wait_ready(ring, first)
    second = start(ring, kmsg=str(log), proc=str(proc_root))
    assert second.wait(timeout=20) == 2
    err = second.stderr.read().decode() if second.stderr else ""
    assert "another kmsgd run" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert stop(first) == 0
