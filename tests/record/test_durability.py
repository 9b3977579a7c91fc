"""Durable means on the disk, not in the page cache (which survives a SIGKILL, so a test that
kills the daemon and reads the ring back cannot fail). The ring lives on ext4 in a loop-mounted
image file: ext4 hands a page to the loop device only when it syncs it (or writes it back, after
dirty_expire_centisecs, 30 s by default), so a record found in the image file itself is on the
"disk". O_DIRECT reads do not do: the kernel writes dirty pages back before a direct read
(filemap_write_and_wait_range in mm/filemap.c), so they see unsynced data too."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_proc
from daemon import start, stop, wait_ready

PATIENCE_S = 0.5  # half the 1 s flush window: only the urgent path gets there in time


@contextlib.contextmanager
def ext4_image(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    if os.geteuid() != 0:
        pytest.skip("mounting needs root")
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 missing")
    image, mnt = tmp_path / "disk.img", tmp_path / "mnt"
    with open(image, "wb") as f:
        f.truncate(16 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    mnt.mkdir()
    out = subprocess.run(["mount", "-o", "loop", str(image), str(mnt)], capture_output=True)
    if out.returncode != 0:
        pytest.skip(f"cannot mount here: {out.stderr.decode().strip()}")
    try:
        yield image, mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def extents(path: Path) -> list[tuple[int, int]]:
    """(offset, length) in the image of each extent of a file on it (filefrag, 4 KiB units):
    reading only those keeps a look at the disk to a few ms."""
    out = subprocess.run(
        ["filefrag", "-v", "-b4096", str(path)], capture_output=True, text=True, check=True
    ).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*\d+:\s*\d+\.\.\s*\d+:\s*(\d+)\.\.\s*\d+:\s*(\d+):", line)
        if m:
            found.append((int(m[1]) * 4096, int(m[2]) * 4096))
    return found


def on_disk(image: Path, needle: bytes, where: list[tuple[int, int]] | None = None) -> bool:
    if where is None:
        return needle in image.read_bytes()
    with open(image, "rb") as f:
        return any(needle in os.pread(f.fileno(), n, off) for off, n in where)


def seconds_until_on_disk(
    image: Path, needle: bytes, where: list[tuple[int, int]] | None = None
) -> float | None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < PATIENCE_S:
        if on_disk(image, needle, where):
            return time.monotonic() - t0
        time.sleep(0.001)
    return None


def test_an_unsynced_write_is_not_on_the_disk(tmp_path: Path) -> None:
    # The check below can fail: bytes written without fdatasync are not in the image.
    with ext4_image(tmp_path) as (image, mnt):
        tag = uuid.uuid4().hex.encode()
        fd = os.open(mnt / "probe", os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, bytes(1 << 20))
        os.fsync(fd)
        where = extents(mnt / "probe")
        os.pwrite(fd, b"unsynced " + tag, 4096)
        assert seconds_until_on_disk(image, b"unsynced " + tag, where) is None
        os.fdatasync(fd)
        assert on_disk(image, b"unsynced " + tag)
        os.close(fd)


def flush_seconds(mnt: Path) -> float:
    """The slowest of five bare write + fdatasync calls on this mount: what the disk itself
    costs (through a loop device, the host's own flush, ~100 ms on the VM measured)."""
    fd = os.open(mnt / "flush-probe", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        took = []
        for i in range(5):
            os.pwrite(fd, b"x" * 200, i * 4096)
            t0 = time.monotonic()
            os.fdatasync(fd)
            took.append(time.monotonic() - t0)
        return max(took[1:])  # the first allocates blocks
    finally:
        os.close(fd)


def test_a_warning_is_on_the_disk_not_only_in_the_page_cache(tmp_path: Path) -> None:
    with ext4_image(tmp_path) as (image, mnt):
        flush = flush_seconds(mnt)
        fifo = tmp_path / "kmsg"
        os.mkfifo(fifo)
        wfd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        ring = mnt / "ring"
        daemon = start(ring, kmsg=str(fifo), proc=str(make_proc(tmp_path / "proc")))
        try:
            wait_ready(ring, daemon)
            where = extents(ring)
            took = []
            for seq in range(5):
                tag = uuid.uuid4().hex.encode()
                os.write(wfd, b"4,%d,%d,-;durability probe %s\n" % (seq, seq * 1000, tag))
                took.append(seconds_until_on_disk(image, tag, where))
                time.sleep(0.05)
        finally:
            assert stop(daemon) == 0
            os.close(wfd)
        shown = ["%.1f ms" % (t * 1e3) for t in took if t is not None]
        print(f"\nwarning record on the disk after {shown}; a bare fdatasync {flush * 1e3:.1f} ms")
        assert None not in took  # each one reached the disk, not only the page cache
        # Within PATIENCE_S: the urgent path (a record that waited for the 1 s flush window
        # would miss it). The 20 ms figure itself is not asserted here: through the loop
        # device each commit costs the host's flush too (docs/reliability.md has figures).
