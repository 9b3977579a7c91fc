"""`[ring] align = 4096`: the real `kmsgd run` starts every commit on a 4 KiB boundary and says
so in the ring's header, where readers take their unit from (docs/ring-format.md)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from conftest import make_proc
from daemon import dump, start, stop, wait_for, wait_ready

from kmsgd.ring.reader import RingReader


def rec(seq: int, text: str) -> bytes:
    return b"4,%d,%d,-;%s\n" % (seq, seq * 1000, text.encode())


def test_the_daemon_writes_at_the_configured_unit(tmp_path: Path) -> None:
    fifo = tmp_path / "kmsg"
    os.mkfifo(fifo)
    wfd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    ring = tmp_path / "ring"
    proc = make_proc(tmp_path / "proc")
    daemon = start(ring, kmsg=str(fifo), proc=str(proc), tables="[ring]\nalign = 4096\n")
    try:
        wait_ready(ring, daemon)
        for seq in range(5):  # warnings: a commit each
            os.write(wfd, rec(seq, f"warning {seq}"))
        wait_for(lambda: "warning 4" in str(dump(ring)))
    finally:
        assert stop(daemon) == 0
        os.close(wfd)
    with RingReader(str(ring)) as r:
        assert r.header.align == 4096
        frames = list(r.frames())
    starts = [b for a, b in itertools.pairwise(frames) if a.offset + a.size != b.offset]
    assert len(starts) >= 5 and all(f.offset % 4096 == 0 for f in starts)
    kernel = [e["data"]["message"] for e in dump(ring) if e["kind"] == "kernel"]
    assert kernel == [f"warning {i}" for i in range(5)]
