"""After the recorder replaced a corrupt ring, `kmsgd last-boot` points at the file it kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import make_proc
from daemon import kmsgd, start, stop, wait_ready

from kmsgd.ring import layout as ring

pytestmark = pytest.mark.slow


def test_last_boot_names_the_ring_that_was_moved_aside(tmp_path: Path) -> None:
    kmsg, path = tmp_path / "kmsg", tmp_path / "ring"
    kmsg.write_bytes(b"6,0,0,-;first boot line\n")
    proc = make_proc(tmp_path / "proc1")
    daemon = start(path, kmsg=str(kmsg), proc=str(proc))
    wait_ready(path, daemon)
    assert stop(daemon) == 0
    with open(path, "r+b") as f:  # both header slots destroyed
        f.write(os.urandom(ring.DATA_START))
    proc = make_proc(tmp_path / "proc2")  # the next boot
    daemon = start(path, kmsg=str(kmsg), proc=str(proc))
    wait_ready(path, daemon)
    assert stop(daemon) == 0
    (aside,) = tmp_path.glob("ring.corrupt-*")

    out = kmsgd("last-boot", "--ring", str(path), "--proc", str(proc), "--no-journal")
    assert out.returncode == 3, out.stderr
    assert str(aside) in out.stderr and "--ring" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
