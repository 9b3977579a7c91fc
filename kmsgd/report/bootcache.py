"""The verdicts `kmsgd boots` has made, kept in the state directory (`boots-cache.json`).

A verdict of `boots` depends only on what the ring holds of the boot, of the boot after it
(its first records: EARLY_RECORDS kernel lines, the clock steps of its first EARLY_STEP_S) and
of the boot before it (its last inventory). The key names each of those by boot id, first
serial and record count, with the ring's id, kmsgd's version and the RTC setting: a boot whose
start a lap overwrote, a next boot still young enough to grow into its early records, the
running boot, a new kmsgd all miss and are judged again. Only outcome and confidence are kept.
It also keeps the listing of the ring's segments between two `boot` frames
(`RingReader.boots(known=...)`), so an ended boot is not walked again either.
A cache that cannot be read or written costs the time, never the answer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator, MutableMapping, Sequence
from pathlib import Path

from kmsgd import __version__, outputs
from kmsgd.judge.bootview import EARLY_RECORDS
from kmsgd.judge.clocks import EARLY_STEP_S
from kmsgd.ring.reader import BootSummary
from kmsgd.types import Confidence, Outcome

CACHE_NAME = "boots-cache.json"
FILE_MODE = 0o600  # verdicts of the machine's boots: root's, as the ring's directory
FORMAT = 2
MAX_ENTRIES = 1024  # a few rings' worth of boots; the oldest entries go first


def _part(row: BootSummary) -> list[object]:
    return [row.boot_id, row.first_serial, row.records, row.last_wall_us]


def key(
    rows: Sequence[BootSummary], i: int, ring_id: bytes, rtc_local: bool, current: str | None
) -> str | None:
    """The cache key of `rows[i]`'s verdict, or None for the running boot (it changes)."""
    row = rows[i]
    if row.boot_id == current:
        return None
    prev = _part(rows[i - 1]) if i else None
    nxt: list[object] | None = None
    if i + 1 < len(rows):
        n = rows[i + 1]
        # Once the next boot holds all the early records the judge reads, it no longer
        # changes this verdict by growing (only by losing its start to a lap: its first serial).
        grown = n.kernel_records >= EARLY_RECORDS
        grown = grown and n.last_wall_us - n.first_wall_us >= EARLY_STEP_S * 1e6
        nxt = [n.boot_id, n.first_serial] if grown else _part(n)
    parts = [FORMAT, __version__, ring_id.hex(), rtc_local, _part(row), prev, nxt]
    return json.dumps(parts, separators=(",", ":"))


class Segments(MutableMapping[str, list[BootSummary]]):
    """The listings of ring segments, noting which ones this run used or added."""

    def __init__(self, old: dict[str, list[BootSummary]]) -> None:
        self.old = old
        self.used: dict[str, list[BootSummary]] = {}
        self.added = False

    def __getitem__(self, k: str) -> list[BootSummary]:
        got = self.used[k] if k in self.used else self.old[k]
        self.used[k] = got
        return got

    def __setitem__(self, k: str, v: list[BootSummary]) -> None:
        self.used[k] = v
        self.added = True

    def __delitem__(self, k: str) -> None:
        self.used.pop(k, None)
        self.old.pop(k, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**self.old, **self.used})

    def __len__(self) -> int:
        return len({**self.old, **self.used})


class BootCache:
    """Verdicts and segment listings by key, loaded from and saved to `state_dir`."""

    def __init__(self, state_dir: str) -> None:
        self.path = Path(state_dir) / CACHE_NAME
        self._old: dict[str, tuple[Outcome, Confidence]] = {}
        self._new: dict[str, tuple[Outcome, Confidence]] = {}
        segments: dict[str, list[BootSummary]] = {}
        try:
            with open(self.path, "rb") as f:
                data = json.loads(f.read(8 << 20))
            if isinstance(data, dict) and data.get("format") == FORMAT:
                for k, v in data.get("verdicts", {}).items():
                    self._old[k] = (Outcome(v[0]), Confidence(v[1]))
                for k, rows in data.get("segments", {}).items():
                    segments[k] = [BootSummary(**row) for row in rows]
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            self._old, segments = {}, {}  # missing, unreadable or not ours: start afresh
        self.segments = Segments(segments)

    def get(self, k: str | None) -> tuple[Outcome, Confidence] | None:
        if k is None:
            return None
        got = self._new.get(k) or self._old.get(k)
        if got is not None:
            self._new[k] = got
        return got

    def put(self, k: str | None, outcome: Outcome, confidence: Confidence) -> None:
        if k is not None:
            self._new[k] = (outcome, confidence)

    def save(self) -> None:
        """Write the cache when a verdict was added: this run's entries, then older ones."""
        if all(k in self._old for k in self._new) and not self.segments.added:
            return
        merged = dict(self._new)
        for k, v in self._old.items():  # most recent first, as saved
            if len(merged) >= MAX_ENTRIES:
                break
            merged.setdefault(k, v)
        segments = dict(self.segments.used)
        for k, rows in self.segments.old.items():
            if len(segments) >= MAX_ENTRIES:
                break
            segments.setdefault(k, rows)
        listed = {k: [dataclasses.asdict(r) for r in rows] for k, rows in segments.items()}
        data = {"format": FORMAT, "verdicts": merged, "segments": listed}
        text = json.dumps(data, separators=(",", ":"))
        # a read-only or missing state dir: the next run judges again
        with contextlib.suppress(OSError):
            outputs.atomic_write(self.path, text, mode=FILE_MODE)
