"""The time window of `kmsgd fleet --since/--until`, in the spellings journalctl accepts.

`2025-11-01`, `2025-11-01 12:00[:00]`, ISO 8601 with `T` and an offset or `Z`, `@EPOCH`,
`now`, `today`, `yesterday`, and relative `-30d` / `30d ago` (s, m, h, d, w). A time without
an offset is local time, as in journalctl. The default window is the 30 days before now.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from kmsgd.errors import BadInput
from kmsgd.types import WALL_US_MAX

DEFAULT_DAYS = 30
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_RELATIVE = re.compile(r"^(?:-\s*(\d+)\s*([smhdw])|(\d+)\s*([smhdw])\s+ago)$")


@dataclass(frozen=True, slots=True)
class Window:
    since_us: int
    until_us: int  # exclusive

    def contains(self, t_us: int) -> bool:
        return self.since_us <= t_us < self.until_us


def parse_time(spec: str, now_s: float) -> int:
    """µs since the epoch for one --since/--until value; BadInput for anything else, a time
    before 1970 or after year 9999 included (no clock, nor datetime, can hold it)."""
    try:
        t_us = _parse_time(spec, now_s)
    except (OverflowError, OSError, ValueError):  # fromtimestamp, float() of 400 digits
        t_us = -1
    if not 0 <= t_us <= WALL_US_MAX:
        raise BadInput(
            f"time out of range: {spec[:64]!r}",
            hint="give a time between 1970 and 9999, e.g. 2025-11-01 or -7d",
        )
    return t_us


def _parse_time(spec: str, now_s: float) -> int:
    s = spec.strip().lower()
    day = datetime.fromtimestamp(now_s).replace(hour=0, minute=0, second=0, microsecond=0)
    if s == "now":
        return int(now_s * 1e6)
    if s in ("today", "yesterday"):
        start = day - timedelta(days=1) if s == "yesterday" else day
        return int(start.timestamp() * 1e6)
    if s.startswith("@") and re.fullmatch(r"@\d+(?:\.\d+)?", s):
        return int(float(s[1:]) * 1e6)
    m = _RELATIVE.match(s)
    if m:
        n, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return int((now_s - int(n) * _UNITS[unit]) * 1e6)
    try:
        when = datetime.fromisoformat(spec.strip().replace("z", "Z"))
    except ValueError:
        raise BadInput(
            f"not a time: {spec[:64]!r}",
            hint="use e.g. 2025-11-01, '2025-11-01 12:00', -7d, '12h ago', yesterday",
        ) from None
    return int(when.timestamp() * 1e6)  # naive: local time, as journalctl reads it


def window(since: str | None, until: str | None, now_s: float | None = None) -> Window:
    """The window from the two options; `since` defaults to 30 days before `until`."""
    now_s = time.time() if now_s is None else now_s
    until_us = parse_time(until, now_s) if until else int(now_s * 1e6) + 1
    since_us = parse_time(since, now_s) if since else until_us - DEFAULT_DAYS * 86400 * 1_000_000
    if since_us >= until_us:
        raise BadInput(
            f"--since ({iso(since_us)}) is not before --until ({iso(until_us)})",
            hint="swap them, or leave --until out (it defaults to now)",
        )
    return Window(since_us, until_us)


def iso(t_us: int) -> str:
    """`2025-11-29T07:06:40Z`: second precision, UTC."""
    return datetime.fromtimestamp(t_us / 1e6, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
