"""Damage for the fuzz tests: chunks written over a real file's bytes."""

from __future__ import annotations

from collections.abc import Iterable


def overwritten(data: bytes, edits: Iterable[tuple[int | float, bytes]]) -> bytes:
    """`data` with each chunk written over it in turn, cut at the end (the length stays). An
    offset is a byte position, or a float in [0, 1): that fraction of the way in."""
    out = bytearray(data)
    for where, chunk in edits:
        offset = int(where * len(out)) if isinstance(where, float) else where
        out[offset : offset + len(chunk)] = chunk[: len(out) - offset]
    return bytes(out)
