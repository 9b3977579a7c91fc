"""A new ring is made whole before its name appears, with or without /proc (kmsgd/ring/writer.py
_create_new): a chroot without /proc (a package's test, a rescue shell) gets a ring too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kmsgd.ring import frame as fr
from kmsgd.ring import writer as ring_writer
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Heartbeat, Kind
from kmsgd.ring.writer import RingWriter

BOOT = bytes(16)
SIZE = 1 << 20


def _write_and_read(path: Path) -> list[Kind]:
    w = RingWriter(str(path), size=SIZE)
    w.add(Kind.HEARTBEAT, BOOT, 1, fr.encode_payload(Kind.HEARTBEAT, Heartbeat(1, 2, 3)))
    w.commit()
    w.close()
    with RingReader(str(path)) as r:
        return [f.kind for f in r.frames()]


def test_a_ring_is_made_where_there_is_no_proc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as in a chroot: no /proc/self/fd to look at, and none to link an unnamed file through
    real_isdir, real_link = os.path.isdir, os.link

    def link(src: str, dst: str, **kw: object) -> None:
        if str(src).startswith("/proc/"):
            raise FileNotFoundError(2, "No such file or directory", src)
        real_link(src, dst, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(
        ring_writer.os.path, "isdir", lambda p: p != "/proc/self/fd" and real_isdir(p)
    )
    monkeypatch.setattr(ring_writer.os, "link", link)
    path = tmp_path / "ring"
    assert _write_and_read(path) == [Kind.HEARTBEAT]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ring"]  # the named file is gone
    assert os.stat(path).st_mode & 0o777 == ring_writer.FILE_MODE


def test_a_ring_is_made_through_an_unnamed_file(tmp_path: Path) -> None:
    path = tmp_path / "ring"
    assert _write_and_read(path) == [Kind.HEARTBEAT]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ring"]
