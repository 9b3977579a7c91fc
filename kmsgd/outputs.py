"""Files both programs write for others to read: the atomic, durable, symlink-safe write every
such file goes through, and the node_exporter textfile. Inputs are small plain values, not the
report model, so the daemon can use this without importing the classifier.

The textfile format is Prometheus' text exposition format 0.0.4; node_exporter's textfile collector
reads `*.prom` files in its directory on every scrape, so a file must never be seen half-written:
write a temp file in the same directory, fsync, rename.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Metrics:
    """The recorder's snapshot for its own textfile (kmsgd.prom). The boot-time report writes
    the last boot's series to a file of its own (kmsgd.report.export), so neither file is ever
    merged with the other and only the recorder says `kmsgd_up`."""

    up: bool
    ring_bytes: int
    lost_total: int  # kernel records lost over the ring's life (overruns, restarts)


def label(value: str) -> str:
    """Escape a label value as the exposition format requires."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render_textfile(m: Metrics) -> str:
    """The recorder's whole .prom text."""
    lines = [
        "# HELP kmsgd_up 1 while the kmsgd recorder runs; 0 after it stopped cleanly.",
        "# TYPE kmsgd_up gauge",
        f"kmsgd_up {int(m.up)}",
        "# HELP kmsgd_ring_bytes Size of the ring file in bytes.",
        "# TYPE kmsgd_ring_bytes gauge",
        f"kmsgd_ring_bytes {m.ring_bytes}",
        "# HELP kmsgd_ring_records_lost_total Kernel records that never reached the ring.",
        "# TYPE kmsgd_ring_records_lost_total counter",
        f"kmsgd_ring_records_lost_total {m.lost_total}",
    ]
    return "\n".join(lines) + "\n"


class UnsafeDirectory(OSError):
    """A directory that others may write: a file kmsgd writes there could be swapped under it."""


def _check_directory(directory: Path) -> None:
    st = os.stat(directory)
    if st.st_mode & stat.S_IWOTH:
        raise UnsafeDirectory(
            errno.EPERM, f"{directory} is writable by every user: refusing to write there"
        )


def atomic_write(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    """Write `data` to `path` so readers see the old or the new file, never a mix, and durably
    (file and directory fsync'd) before returning.

    Root writes here, often into directories an operator chose (`--save-dir`, node_exporter's
    textfile directory). The temporary file gets an unpredictable name and is created with
    O_EXCL|O_NOFOLLOW, so a symlink planted in the directory is refused instead of followed
    (open(2): O_EXCL with O_CREAT fails on any existing name, a symlink included); rename(2)
    replaces a link at `path` itself, never its target. A world-writable directory is refused
    outright (UnsafeDirectory).
    """
    _check_directory(path.parent)
    raw = data.encode() if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, flags, mode)
    try:
        os.fchmod(fd, mode)  # the umask (0027 in the units) must not hide it from the reader
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def write_textfile(path: str | Path, text: str) -> None:
    """Write one node_exporter textfile atomically, mode 0644 (node_exporter runs unprivileged).
    Raises OSError: FileNotFoundError when the collector directory is missing (the caller says
    so: node_exporter is not installed, or reads another directory)."""
    atomic_write(Path(path), text)
