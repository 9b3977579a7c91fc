"""`kmsgd boots`: how each boot of the ring ended (`BootEnd`), as a table or JSON lines."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass

from kmsgd.ring.reader import BootSummary
from kmsgd.text.escape import escape
from kmsgd.types import Confidence, Outcome


@dataclass(frozen=True, slots=True)
class BootEnd:
    """How one boot ended, for `kmsgd boots`: a verdict, or why none could be made."""

    outcome: Outcome | None
    confidence: Confidence | None
    error: str = ""

    def __str__(self) -> str:
        if self.outcome is None or self.confidence is None:
            return f"error: {self.error}"
        return f"{self.outcome.value} ({self.confidence.value})"


def render_json(rows: Sequence[BootSummary], ends: Sequence[BootEnd]) -> str:
    """One JSON object per boot, oldest first; `index` 0 is the newest boot."""
    out = []
    for i, (row, end) in enumerate(zip(rows, ends, strict=True)):
        obj = dataclasses.asdict(row) | {
            "index": i - len(rows) + 1,
            "outcome": end.outcome.value if end.outcome else f"error: {end.error}",
            "confidence": end.confidence.value if end.confidence else None,
        }
        out.append(json.dumps(obj, sort_keys=True) + "\n")
    return "".join(out)


def render_text(rows: Sequence[BootSummary], ends: Sequence[BootEnd]) -> str:
    """The table: a line per boot, oldest first, times in UTC."""
    out = [
        f"{'IDX':>4} {'BOOT ID':32} {'FIRST (UTC)':19} {'LAST (UTC)':19} "
        f"{'RECORDS':>8} {'KERNEL':>7} {'LOST':>5}  OUTCOME\n"
    ]
    for i, (row, end) in enumerate(zip(rows, ends, strict=True)):
        out.append(
            f"{i - len(rows) + 1:>4} {row.boot_id:32} {_when(row.first_wall_us):19} "
            f"{_when(row.last_wall_us):19} {row.records:>8} {row.kernel_records:>7} "
            f"{row.lost:>5}  {escape(str(end))}\n"
        )
    return "".join(out)


def _when(wall_us: int) -> str:
    return dt.datetime.fromtimestamp(wall_us / 1e6, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
