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
from kmsgd.logparse.parsed import Line
from kmsgd.logparse.stream import LogStream

MAX_LINE = 64 * 1024
PEEK_BYTES = 1 << 20
PEEK_LINES = 400
BLOCK = 1 << 16
BLOCK_READ = 1 << 20
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


def _decode_block(block: bytes, stats: InputStats) -> tuple[list[str], str | None]:
    """A block of whole lines (ending in a newline) → its lines, decoded in one call, and
    the block's text those lines are (None when a line had to be cut to MAX_LINE)."""
    text = block.decode("utf-8", errors="replace")
    if "\x00" in text:
        text = text.replace("\x00", "")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    lines.pop()  # the block ends with a newline
    if len(text) > MAX_LINE and max(map(len, lines), default=0) > MAX_LINE:
        for k, line in enumerate(lines):
            if len(line) > MAX_LINE:
                lines[k] = line[:MAX_LINE]
                stats.cut_lines += 1
        return lines, None
    return lines, text


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


def _blocks(src: BinaryIO, stats: InputStats) -> Iterator[bytes]:
    """The input in blocks of whole lines (each ends with a newline). A line longer than
    MAX_LINE across blocks is cut there and the rest skipped, so memory stays bounded."""
    carry = b""
    skipping = False
    while True:
        block = src.read(BLOCK_READ)
        if not block:
            break
        stats.bytes_read += len(block)
        if skipping:  # inside an overlong line: drop bytes up to its end
            nl = block.find(b"\n")
            if nl < 0:
                continue
            block, skipping = block[nl + 1 :], False
        buf = carry + block if carry else block
        nl = buf.rfind(b"\n")
        carry = buf[nl + 1 :]
        if nl >= 0:
            yield buf[: nl + 1]
        if len(carry) > MAX_LINE:
            stats.cut_lines += 1
            yield carry[:MAX_LINE] + b"\n"
            carry, skipping = b"", True
    if carry:
        yield carry + b"\n"


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
    events: list[object] = []
    for n, raw in enumerate(lines, 1):
        try:
            events += stream.feed(n, _decode(raw))
        except Exception:  # a line the parser chokes on says nothing about the order
            continue
    events += stream.close()
    stamps = [
        t
        for ev in events
        if isinstance(ev, Line) and (t := ev.ts_usec if ev.ts_usec is not None else ev.wall_us)
    ]
    down = sum(1 for a, b in itertools.pairwise(stamps) if b < a)
    up = sum(1 for a, b in itertools.pairwise(stamps) if b > a)
    return down >= 3 and down > 2 * up


# (line number of the first line, +1 or -1, lines, the text of the lines joined by and ending
# in newlines, or None: reversed input, or a line cut to MAX_LINE)
Chunk = tuple[int, int, list[str], str | None]


def read_chunks(src: BinaryIO, name: str, stats: InputStats) -> Iterator[Chunk]:
    """Decoded lines in time order, in chunks; raises BadInput before yielding for unusable
    input. A reversed (newest-first) input comes out oldest first with its line numbers."""
    blocks = _blocks(src, stats)
    first = next(blocks, b"")
    check_text(first[:PEEK_BYTES], name)
    head, text = _decode_block(first, stats)
    if not _looks_reversed([ln.encode() for ln in head[:PEEK_LINES]]):
        n = 1
        yield n, 1, head, text
        n += len(head)
        for block in blocks:
            lines, text = _decode_block(block, stats)
            yield n, 1, lines, text
            n += len(lines)
        stats.lines = n - 1
        return
    stats.reversed = True
    stats.notes.append("newest-first input (journalctl -r): read in reverse")
    with tempfile.TemporaryFile() as spool:
        spool.write(first)
        total = first.count(b"\n")
        for block in blocks:
            spool.write(block)
            total += block.count(b"\n")
        spool.flush()
        stats.lines = total
        n = total
        batch: list[str] = []
        pieces = _backward(spool)
        next(pieces, None)  # the empty piece after the final newline
        for raw in pieces:
            batch.append(_decode(raw))
            if len(batch) >= 4096:
                yield n, -1, batch, None
                n -= len(batch)
                batch = []
        if batch:
            yield n, -1, batch, None


def read_lines(src: BinaryIO, name: str, stats: InputStats) -> Iterator[tuple[int, str]]:
    """(line number, text) in time order; see read_chunks."""
    for start, step, lines, _ in read_chunks(src, name, stats):
        for k, text in enumerate(lines):
            yield start + k * step, text
