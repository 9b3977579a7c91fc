"""Files both programs write for others to read: the atomic, durable, symlink-safe write every
such file goes through, and the node_exporter textfile. Inputs are small plain values, not the
report model, so the daemon can use this without importing the classifier.

The textfile format is Prometheus' text exposition format 0.0.4; node_exporter's textfile collector
reads `*.prom` files in its directory on every scrape, so a file must never be seen half-written:
write a temp file in the same directory, fsync, rename.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from kmsgd.types import Outcome

_LAST_BOOT_PREFIX = "kmsgd_last_boot_"


@dataclass(frozen=True, slots=True)
class Metrics:
    """One snapshot for the textfile. `outcome` None: no post-mortem in this snapshot (the daemon
    writing); the last-boot series already in the file are then kept as they are."""

    up: bool
    ring_bytes: int
    lost_total: int  # kernel records lost over the ring's life (overruns, restarts)
    outcome: str | None = None
    primary_tag: str | None = None  # None: the post-mortem named no primary signature


def _label(value: str) -> str:
    """Escape a label value as the exposition format requires."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _last_boot_lines(m: Metrics) -> list[str]:
    assert m.outcome is not None
    outcomes = [o.value for o in Outcome]
    if m.outcome not in outcomes:  # a newer classifier's outcome: still exported
        outcomes.append(m.outcome)
    lines = [
        "# HELP kmsgd_last_boot_outcome How the previous boot ended (1 for the outcome found).",
        "# TYPE kmsgd_last_boot_outcome gauge",
    ]
    lines += [
        f'kmsgd_last_boot_outcome{{outcome="{_label(o)}"}} {int(o == m.outcome)}' for o in outcomes
    ]
    lines += [
        "# HELP kmsgd_last_boot_primary The primary signature of the previous boot (tag, or none).",
        "# TYPE kmsgd_last_boot_primary gauge",
        f'kmsgd_last_boot_primary{{tag="{_label(m.primary_tag or "none")}"}} 1',
    ]
    return lines


def render_textfile(m: Metrics, keep_last_boot: list[str] | None = None) -> str:
    """The whole .prom text. `keep_last_boot`: last-boot lines to carry over when `m` has none."""
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
    if m.outcome is not None:
        lines += _last_boot_lines(m)
    elif keep_last_boot:
        lines += keep_last_boot
    return "\n".join(lines) + "\n"


_METRIC_NAME = re.compile(r"^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][a-zA-Z0-9_:]*)")


def last_boot_lines(text: str) -> list[str]:
    """The last-boot series (and their HELP/TYPE lines) of an existing textfile."""
    out = []
    for line in text.splitlines():
        m = _METRIC_NAME.match(line)
        if m and m.group(1).startswith(_LAST_BOOT_PREFIX):
            out.append(line)
    return out


@contextmanager
def _dir_lock(directory: Path) -> Iterator[None]:
    """Serialise the daemon and the report oneshot: flock on the directory, no lock file left."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


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


def write_textfile(path: str | Path, m: Metrics) -> None:
    """Write the node_exporter textfile atomically, mode 0644 (node_exporter runs unprivileged).

    A snapshot without an outcome keeps the last-boot series the file already holds, so the
    recorder refreshing `kmsgd_up` does not erase what the report oneshot wrote. Raises OSError
    (a missing collector directory is the caller's to ignore: node_exporter is not installed).
    """
    path = Path(path)
    with _dir_lock(path.parent):
        keep: list[str] = []
        if m.outcome is None:
            with suppress(FileNotFoundError):
                keep = last_boot_lines(path.read_text(encoding="utf-8", errors="replace"))
        atomic_write(path, render_textfile(m, keep))
