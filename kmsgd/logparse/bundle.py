"""What people attach to tickets, opened into the kernel-log texts inside it.

A compressed file (.gz, .xz, .bz2, .zst; judged by its magic bytes, not its name), a tar
archive such as `sosreport-*.tar.xz` (its `sos_commands/kernel/dmesg*`, `sos_commands/logs/
journalctl*`, `var/log/messages*`, `kern.log*`, `syslog*`, journal files), an
`nvidia-bug-report.log(.gz)` (its `dmesg:` and kernel-message sections), a systemd journal
file (`*.journal`), a pstore directory (`dmesg-*`, `console-*`) or any directory holding
these. Everything streams: a member is decompressed while it is read, never held whole.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import stat
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, BinaryIO

from kmsgd.errors import BadInput

_GZIP, _XZ, _BZ2, _ZSTD = b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh", b"\x28\xb5\x2f\xfd"
_JOURNAL = b"LPKSHHRH"  # systemd's journal file signature (src/libsystemd/sd-journal)
# files inside a bundle or directory that hold kernel log text
_WANTED = re.compile(
    r"(?:^|/)(?:sos_commands/kernel/dmesg[^/]*|sos_commands/logs/journalctl[^/]*"
    r"|var/log/(?:messages|kern\.log|syslog|dmesg)(?:[.-][^/]*)?|[^/]+\.journal(?:~)?"
    r"|nvidia-bug-report\.log(?:\.gz)?|(?:dmesg|console)-[\w.-]+-\d+(?:\.enc\.z)?"
    r"|[^/]*\.(?:log|txt|dmesg|kmsg)(?:\.(?:gz|xz|bz2|zst))?)$"
)
_NV_SEPARATOR = b"____________________________________________"


def _decode_errors() -> tuple[type[Exception], ...]:
    errors: list[type[Exception]] = [OSError, EOFError, lzma.LZMAError, zlib.error]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:
        pass
    return tuple(errors)


# what a truncated or corrupt compressed stream raises while it is read
DECODE_ERRORS = _decode_errors()


class LimitExceeded(BadInput):
    """An input past one of the bounds in Limits: refused whole (exit 2), never judged in
    part, because a post-mortem of a log cut at an arbitrary point could mislead."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How much one input may unpack (config: archive_max_members, archive_max_depth,
    input_max_bytes). Members cost memory and time even when skipped (a 336 KB .tar.gz of
    40,000 empty members took 780 MB); each layer of nesting is a recursion; expanded bytes
    are what a small bomb multiplies."""

    max_members: int = 10_000  # tar members, counted over every archive of one input
    max_depth: int = 4  # compressed layers and archives inside one another
    max_bytes: int = 256 << 20  # bytes decompressed or unpacked from one input


DEFAULT_LIMITS = Limits()


class _Budget:
    """What one input has used of its Limits so far."""

    def __init__(self, limits: Limits, name: str) -> None:
        self.limits, self.name = limits, name
        self.members = self.bytes = 0

    def member(self) -> None:
        self.members += 1
        if self.members > self.limits.max_members:
            raise LimitExceeded(
                f"{self.name}: more than {self.limits.max_members} members in its archives",
                hint="raise archive_max_members in the config file, or unpack what matters",
            )

    def read(self, n: int) -> None:
        self.bytes += n
        if self.bytes > self.limits.max_bytes:
            raise LimitExceeded(
                f"{self.name}: expands past {_size(self.limits.max_bytes)}",
                hint="raise input_max_bytes in the config file, or cut the log to the boot",
            )


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


class _Counted(io.RawIOBase):
    """A stream whose bytes count against the input's budget as they are read."""

    def __init__(self, raw: IO[bytes], budget: _Budget) -> None:
        self._raw, self._budget = raw, budget

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = self._raw.read(len(b))
        self._budget.read(len(chunk))
        b[: len(chunk)] = chunk
        return len(chunk)


@dataclass(frozen=True, slots=True)
class Piece:
    """One kernel-log text found in the input: `name` says where (file, member, section)."""

    name: str
    stream: BinaryIO


def _zstd_reader(raw: BinaryIO) -> BinaryIO:
    try:  # Python 3.14+
        from compression import zstd  # type: ignore[import-not-found]

        return zstd.ZstdFile(raw)  # type: ignore[no-any-return]
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        raise BadInput(
            "zstd-compressed input needs Python 3.14 or the zstandard package",
            hint="pip install zstandard (Debian: python3-zstandard), or zstdcat it first",
        ) from None
    return zstandard.ZstdDecompressor().stream_reader(raw)


def decompressed(raw: BinaryIO, head: bytes) -> BinaryIO | None:
    """A reader of the decompressed stream when `head` shows a compressed one, else None."""
    if head.startswith(_GZIP):
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    if head.startswith(_XZ):
        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    if head.startswith(_BZ2):
        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if head.startswith(_ZSTD):
        return _zstd_reader(raw)
    return None


class _Peek(io.RawIOBase):
    """A stream with its first bytes read ahead (to sniff magic) and put back."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        n = len(b)
        if self._head:
            chunk, self._head = self._head[:n], self._head[n:]
        else:
            chunk = self._rest.read(n)
        b[: len(chunk)] = chunk
        return len(chunk)


def _peeked(stream: IO[bytes], n: int = 512) -> tuple[bytes, BinaryIO]:
    head = stream.read(n)
    return head, io.BufferedReader(_Peek(head, stream), 1 << 20)


def open_stream(
    name: str,
    stream: IO[bytes],
    *,
    path: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    budget: _Budget | None = None,
    depth: int = 0,
) -> Iterator[Piece]:
    """The pieces of one stream: decompressed, unpacked, split, as its content says
    (`path`: the plain file it reads, which a journal reader can open directly). What is
    decompressed or unpacked counts against `limits` (LimitExceeded past one)."""
    budget = budget or _Budget(limits, name)
    head, buf = _peeked(stream)
    inner = decompressed(buf, head)
    if inner is not None:
        depth += 1
        _check_depth(budget, depth)
        head, buf, path = *_peeked(io.BufferedReader(_Counted(inner, budget), 1 << 20)), None
    if len(head) > 262 and head[257:262] == b"ustar":
        _check_depth(budget, depth + 1)
        yield from _tar(name, buf, budget, depth + 1)
    elif head.startswith(_JOURNAL):
        yield _journal_piece(name, buf, path=path)
    elif b"Start of NVIDIA bug report log file" in head:
        yield from _nvidia_bug_report(name, buf)
    else:
        yield Piece(name, buf)


def _check_depth(budget: _Budget, depth: int) -> None:
    if depth > budget.limits.max_depth:
        raise LimitExceeded(
            f"{budget.name}: archives or compressed layers nested deeper than "
            f"{budget.limits.max_depth}",
            hint="unpack the layers that hold the logs, or raise archive_max_depth",
        )


def open_path(path: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[Piece]:
    """The pieces of a file or a directory (walked in name order; only log-like files)."""
    if os.path.isdir(path):
        found = False
        for root, dirs, files in os.walk(path):
            dirs.sort()
            for fname in sorted(files):
                full = os.path.join(root, fname)
                rel = os.path.relpath(full, path)
                if _WANTED.search(rel.replace(os.sep, "/")) and os.path.isfile(full):
                    found = True
                    yield from _open_file(full, limits)
        if not found:
            raise BadInput(f"{path}: no kernel log files in this directory")
        return
    yield from _open_file(path, limits)


def open_regular(path: str) -> BinaryIO:
    """`path` opened for reading, refused (BadInput) unless it is a regular file: opened with
    O_NONBLOCK, so a FIFO (which would wait for a writer forever, fifo(7)) or a device is
    looked at and refused instead of read. `-` (stdin) is the way to read a pipe."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as err:
        raise BadInput(f"{path}: {err.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise BadInput(f"{path}: not a regular file", hint="pipe it in with `-` instead")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _open_file(path: str, limits: Limits) -> Iterator[Piece]:
    f = open_regular(path)
    with f:
        yield from open_stream(path, f, path=path, limits=limits)


def _tar(name: str, stream: BinaryIO, budget: _Budget, depth: int) -> Iterator[Piece]:
    """Members of a tar stream that hold kernel logs, read in archive order."""
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                budget.member()
                # A streaming TarFile still appends every member it reads to `members`:
                # forget them, or memory grows with the member count.
                tar.members = []  # type: ignore[attr-defined]
                if not member.isfile() or not _WANTED.search(member.name):
                    continue
                f = tar.extractfile(member)
                if f is None:
                    continue
                where = f"{name}:{member.name}"
                # bytes of a member are counted where they are expanded (the archive's
                # decompression, a compressed member): an uncompressed tar is only its size
                yield from open_stream(where, f, budget=budget, depth=depth)
    except tarfile.TarError as err:
        raise BadInput(f"{name}: broken tar archive ({err})") from None


def _journal_piece(name: str, stream: IO[bytes], *, path: str | None = None) -> Piece:
    """A binary journal file as `journalctl -o json` lines (what the log parser reads);
    read with the systemd journal reader kmsgd/logparse/systemd_journal.py uses for `last-boot`."""
    from kmsgd.logparse.systemd_journal import file_entries

    with tempfile.TemporaryDirectory() as tmp:
        if path is None:  # a member of an archive: the reader needs a file
            path = os.path.join(tmp, "member.journal")
            with open(path, "wb") as out:
                while chunk := stream.read(1 << 20):
                    out.write(chunk)
        spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 - returned
        try:
            for e in file_entries(path):
                entry = {
                    "MESSAGE": e.message,
                    "_TRANSPORT": e.transport,
                    "PRIORITY": e.priority,
                    "__REALTIME_TIMESTAMP": e.realtime_us,
                    "_SOURCE_MONOTONIC_TIMESTAMP": e.source_monotonic_us
                    if e.transport == "kernel"
                    else None,
                    "SYSLOG_IDENTIFIER": e.identifier,
                    "_PID": e.pid,
                    "_BOOT_ID": e.boot_id,
                }
                clean = {k: v for k, v in entry.items() if v is not None and v != ""}
                spool.write(json.dumps(clean).encode() + b"\n")
        except OSError as err:
            raise BadInput(f"{name}: not a readable journal file ({err})") from None
    spool.seek(0)
    return Piece(name, spool)  # type: ignore[arg-type]


def _nvidia_bug_report(name: str, stream: BinaryIO) -> Iterator[Piece]:
    """nvidia-bug-report.sh writes blocks after a line of underscores; the kernel's are
    "dmesg:" (the dmesg output), "Scanning kernel log files for NVIDIA kernel messages:"
    (grep of /var/log/messages, kern.log and `journalctl -b -0/-1/-2`) and appended
    /var/log files ("*** /var/log/kern.log"). Each becomes a piece of its own."""
    section: tempfile.SpooledTemporaryFile[bytes] | None = None
    title = ""
    header_next = False
    for raw in stream:
        line = raw.rstrip(b"\r\n")
        if line == _NV_SEPARATOR:
            if section is not None:
                section.seek(0)
                yield Piece(f"{name}:{title}", section)  # type: ignore[arg-type]
            section, header_next = None, True
            continue
        if header_next:
            if not line.strip():
                continue
            header_next = False
            text = line.decode("utf-8", "replace").strip()
            if text in ("dmesg:",) or text.startswith(
                (
                    "Scanning kernel log files",
                    "*** /var/log/messages",
                    "*** /var/log/kern",
                    "*** /var/log/syslog",
                    "journalctl",
                )
            ):
                title = text.rstrip(":").removeprefix("*** ")
                section = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115
            continue
        if section is not None:
            sub = line.strip()
            if sub.startswith(b"journalctl -b ") and sub.endswith(b":"):
                # one boot's kernel lines inside the scan: a piece per boot
                if section.tell():
                    section.seek(0)
                    yield Piece(f"{name}:{title}", section)  # type: ignore[arg-type]
                title = sub.decode().rstrip(":")
                section = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115
                continue
            section.write(raw)
    if section is not None:
        section.seek(0)
        yield Piece(f"{name}:{title}", section)  # type: ignore[arg-type]
