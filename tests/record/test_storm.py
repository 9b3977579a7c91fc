"""Storms on the real /dev/kmsg: the kmsg pump (kmsgd/record/kmsgpump.py) drains the device
while the daemon is busy, and sheds with an exact count when even its buffer is full.

The daemon alone is frozen (SIGSTOP) to play a daemon that cannot keep up; its pump runs on.
kernel.printk_devkmsg=on for the burst, restored after (`devkmsg_on`, tests/conftest.py).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from daemon import children, dump, start, stop, wait_for, wait_ready

from kmsgd.record.kmsgpump import KEEP_PER_KIND

pytestmark = pytest.mark.slow


def write(lines: list[bytes]) -> None:
    """Paced at ~100,000 lines/s: faster than a frozen daemon, slower than the pump."""
    fd = os.open("/dev/kmsg", os.O_WRONLY)
    try:
        for i, line in enumerate(lines):
            os.write(fd, line)
            if i % 500 == 499:
                time.sleep(0.005)
    finally:
        os.close(fd)


def texts(records: list[dict[str, Any]], tag: str) -> list[str]:
    return [
        r["data"]["message"]
        for r in records
        if r["kind"] == "kernel" and tag in r["data"]["message"]
    ]


def accounted(records: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """(kernel records stored twice, seq gaps that no `lost` record names exactly)."""
    prev, pending, problems, seen, dupes = -1, [], [], set(), 0
    for r in records:
        if r["kind"] == "lost":
            pending.append(r["data"])
        elif r["kind"] == "kernel":
            seq = r["data"]["seq"]
            dupes += seq in seen
            seen.add(seq)
            want = {"count": seq - prev - 1, "first_seq": prev + 1}
            explained = any({k: p[k] for k in want} == want for p in pending)
            if prev >= 0 and seq != prev + 1 and not explained:
                problems.append(f"seq {prev} -> {seq} with lost records {pending}")
            prev, pending = seq, []
    return dupes, problems


def frozen_daemon_burst(ring: Path, lines: list[bytes], **kw: Any) -> list[dict[str, Any]]:
    """Start the daemon, freeze it alone, write `lines`, thaw it; its ring after a stop."""
    daemon = start(ring, kmsg="/dev/kmsg", **kw)
    try:
        wait_ready(ring, daemon)
        assert children(daemon.pid), "no kmsg pump"
        daemon.send_signal(signal.SIGSTOP)
        try:
            write(lines)
            time.sleep(0.3)
        finally:
            daemon.send_signal(signal.SIGCONT)
        last = lines[-1].decode().split(">", 1)[1].strip()  # the text after <level>
        wait_for(lambda: any(last in t for t in texts(dump(ring), last)), timeout=30)
        assert stop(daemon) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    return dump(ring)


def test_a_frozen_daemon_loses_nothing_its_pump_holds(tmp_path: Path, devkmsg_on: None) -> None:
    tag, n = uuid.uuid4().hex[:10], 5_000  # more than the kernel keeps here (~3,300 lines);
    # fewer than the 1 MiB ring of tests/daemon.py holds beside the boot's backlog
    lines = [b"<6>kmsgd-storm %s %d\n" % (tag.encode(), i) for i in range(n)]
    records = frozen_daemon_burst(tmp_path / "ring", lines)
    got = [int(t.split()[-1]) for t in texts(records, f"kmsgd-storm {tag} ")]
    lost = [
        r["data"] for r in records if r["kind"] == "lost" and r["data"]["reason"] != "before_start"
    ]
    print(f"\nstorm: daemon frozen during {n} lines: {len(got)} stored, lost records {lost}")
    assert got == list(range(n)) and lost == []


def test_above_its_buffer_it_keeps_what_matters_and_counts_the_rest(
    tmp_path: Path, devkmsg_on: None
) -> None:
    """A 300 kB pump buffer (~2,300 records) and a frozen daemon: 12,000 info lines of one
    kind with a warning every 100th, then a new kind. Kept: every warning, the first
    KEEP_PER_KIND lines of each kind once shedding began; counted: every other line, exactly."""
    tag = uuid.uuid4().hex[:10]
    lines = []
    for i in range(12_000):
        level = 4 if i % 100 == 99 else 6
        lines.append(b"<%d>kmsgd-storm %s %d\n" % (level, tag.encode(), i))
    lines += [b"<6>kmsgd-newkind %s late %d\n" % (tag.encode(), i) for i in range(10)]
    lines.append(b"<4>kmsgd-storm %s end\n" % tag.encode())
    records = frozen_daemon_burst(tmp_path / "ring", lines, tables="kmsg_buffer_bytes = 300000\n")
    stored = texts(records, tag)
    shed = [r["data"] for r in records if r["kind"] == "lost" and r["data"]["reason"] == "shed"]
    other = [
        r["data"]
        for r in records
        if r["kind"] == "lost" and r["data"]["reason"] not in ("shed", "before_start")
    ]
    dupes, problems = accounted(records)
    warnings = [f"kmsgd-storm {tag} {i}" for i in range(99, 12_000, 100)]
    late = [t for t in stored if "kmsgd-newkind" in t]
    print(
        f"\nstorm: {len(lines)} lines into a 300 kB pump buffer: {len(stored)} stored, "
        f"shed {sum(s['count'] for s in shed)} in {len(shed)} lost records, other losses "
        f"{other}, late kind kept {len(late)}, unexplained gaps {len(problems)}"
    )
    assert other == [], "the pump kept up with the kernel: nothing overwritten"
    assert shed, "the buffer filled: some lines were shed"
    assert dupes == 0 and problems == []  # every seq stored once or counted in a `lost`
    assert set(warnings) <= set(stored)  # every warning kept
    assert f"kmsgd-storm {tag} end" in stored
    assert late == [f"kmsgd-newkind {tag} late {i}" for i in range(KEEP_PER_KIND)]
    # the storm's own kind: stored up to the point where shedding began, then its first lines
    ours = [t.split()[-1] for t in stored if t.startswith(f"kmsgd-storm {tag} ")]
    info = [int(i) for i in ours if i.isdigit()]
    info = [i for i in info if i % 100 != 99]
    assert info == sorted(info) and len(info) < 12_000 - 120
