"""A ring file that is no longer usable at start: the daemon moves it aside, records into a new
ring and says so (log, boot record), instead of exiting 2 and restarting every 3 s forever."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import make_proc
from daemon import dump, start, stop, wait_ready

from kmsgd.ring import layout as ring


def test_a_corrupt_ring_is_moved_aside_and_recording_goes_on(tmp_path: Path) -> None:
    proc = make_proc(tmp_path / "proc")
    kmsg, path = tmp_path / "kmsg", tmp_path / "ring"
    kmsg.write_bytes(b"6,0,0,-;first boot line\n")
    daemon = start(path, kmsg=str(kmsg), proc=str(proc))
    wait_ready(path, daemon)
    assert stop(daemon) == 0
    with open(path, "r+b") as f:  # both header slots destroyed
        f.write(os.urandom(ring.DATA_START))
    damaged = path.read_bytes()

    daemon = start(path, kmsg=str(kmsg), proc=str(proc))
    wait_ready(path, daemon)  # it records (before: exit 2 with "not a usable kmsgd ring")
    assert stop(daemon) == 0
    err = daemon.stderr.read().decode() if daemon.stderr else ""
    assert "ring_replaced" in err and "no valid header" in err
    (aside,) = tmp_path.glob("ring.corrupt-*")
    assert aside.read_bytes() == damaged  # kept, byte for byte, for forensics
    records = dump(path)
    boot = records[0]["data"]
    assert records[0]["kind"] == "boot"
    assert str(aside) in boot["ring_replaced"] and "no valid header" in boot["ring_replaced"]
    assert [r["data"]["seq"] for r in records if r["kind"] == "kernel"] == [0]
    assert path.stat().st_size == 1 << 20
