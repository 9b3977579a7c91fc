"""Bytes in, decoded lines out: limits, binary detection, `journalctl -r` order.

Memory stays bounded whatever the input: a line longer than MAX_LINE is cut (the rest is
skipped and counted), and a reversed log is read backwards from the file (stdin is first
spooled to an anonymous temporary file) instead of being held in memory.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from kmsgd.errors import BadInput
from kmsgd.logparse.model import Line
from kmsgd.logparse.stream import LogStream

MAX_LINE = 64 * 1024
PEEK_BYTES = 1 << 20
PEEK_LINES = 400
BLOCK = 1 << 16
_CONTROL = frozenset(range(0x20)) - {0x09, 0x0A, 0x0D, 0x1B, 0x0C}


@dataclass(slots=True)
class InputStats:
    """What the reader saw; the report's `source` section says it."""

    bytes_read: int = 0
    lines: int = 0
    cut_lines: int = 0  # lines longer than MAX_LINE, cut to it
    reversed: bool = False
    notes: list[str] = field(default_factory=list)


def _decode(raw: bytes) -> str:
    return raw.rstrip(b"\r\n").replace(b"\x00", b"").decode("utf-8", errors="replace")


def check_text(head: bytes, name: str) -> None:
    """Raise BadInput for an empty, compressed or binary input (judged on its first bytes)."""
    if not head.strip():
        raise BadInput(f"{name}: empty input, no log lines", hint="pass a dmesg or journalctl log")
    if head[:2] == b"\x1f\x8b" or head[:4] == b"\x28\xb5\x2f\xfd" or head[:3] == b"BZh":
        raise BadInput(f"{name}: compressed data", hint="decompress it first (zcat, zstdcat)")
    sample = head[:BLOCK]
    control = sum(1 for b in sample if b in _CONTROL)
    bad = sample.decode("utf-8", errors="replace").count("\ufffd")
    if control * 10 > len(sample) or bad * 4 > len(sample):
        raise BadInput(
            f"{name}: binary data, not a text log ({control} control bytes in the first "
            f"{len(sample)})",
            hint="pass the text output of dmesg or journalctl",
        )


def _forward(src: BinaryIO, stats: InputStats) -> Iterator[bytes]:
    while True:
        raw = src.readline(MAX_LINE)
        if not raw:
            return
        stats.bytes_read += len(raw)
        if len(raw) == MAX_LINE and not raw.endswith(b"\n"):
            stats.cut_lines += 1
            while True:  # skip the rest of an overlong line without holding it
                rest = src.readline(MAX_LINE)
                stats.bytes_read += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        yield raw


def _backward(src: BinaryIO) -> Iterator[bytes]:
    """Lines of a seekable binary file, last first."""
    end = src.seek(0, os.SEEK_END)
    tail = b""
    while end > 0:
        start = max(0, end - BLOCK)
        src.seek(start)
        chunk = src.read(end - start) + tail
        end = start
        parts = chunk.split(b"\n")
        tail = parts[0]
        for part in reversed(parts[1:]):
            yield part[:MAX_LINE]
    yield tail[:MAX_LINE]


def _looks_reversed(lines: list[bytes]) -> bool:
    """journalctl -r: stamps mostly go backwards (journal separators don't count)."""
    stream = LogStream()
    stamps: list[int] = []
    for n, raw in enumerate(lines, 1):
        for ev in stream.feed(n, _decode(raw)):
            if isinstance(ev, Line):
                t = ev.ts_usec if ev.ts_usec is not None else ev.wall_us
                if t is not None:
                    stamps.append(t)
    for ev in stream.close():
        if isinstance(ev, Line):
            t = ev.ts_usec if ev.ts_usec is not None else ev.wall_us
            if t is not None:
                stamps.append(t)
    down = sum(1 for a, b in itertools.pairwise(stamps) if b < a)
    up = sum(1 for a, b in itertools.pairwise(stamps) if b > a)
    return down >= 3 and down > 2 * up


def read_lines(src: BinaryIO, name: str, stats: InputStats) -> Iterator[tuple[int, str]]:
    """(line number, text) in time order; raises BadInput before yielding for unusable input."""
    fwd = _forward(src, stats)
    peek: list[bytes] = []
    size = 0
    for raw in fwd:
        peek.append(raw)
        size += len(raw)
        if len(peek) >= PEEK_LINES or size >= PEEK_BYTES:
            break
    check_text(b"".join(peek)[:PEEK_BYTES], name)
    if not _looks_reversed(peek):
        n = 0
        for raw in itertools.chain(peek, fwd):
            n += 1
            yield n, _decode(raw)
        stats.lines = n
        return
    stats.reversed = True
    stats.notes.append("newest-first input (journalctl -r): read in reverse")
    with tempfile.TemporaryFile() as spool:
        total = 0
        for raw in peek:
            spool.write(raw if raw.endswith(b"\n") else raw + b"\n")
            total += 1
        for raw in fwd:
            spool.write(raw if raw.endswith(b"\n") else raw + b"\n")
            total += 1
        spool.flush()
        stats.lines = total
        n = total + 1
        for raw in _backward(spool):
            if n == total + 1 and raw == b"":
                continue  # the empty piece after the final newline
            n -= 1
            yield n, _decode(raw)
