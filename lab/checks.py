"""What the second boot must show, as pure functions over kmsgd's JSON output.

`kmsgd boots/dump --format json` (the recorder, available now) print one JSON object per line;
`kmsgd last-boot --format json` (the verdict) prints one report object with the fields of
DESIGN.md (`outcome`, `reason`, `primary.tag`, `time_of_death`, `telemetry`, ...). Checks that need
a piece kmsgd does not have yet are skipped with the reason, never passed.
"""

from __future__ import annotations

import itertools
import json
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    detail: str


def ok(name: str, cond: bool, detail: str) -> Check:
    return Check(name, Status.PASS if cond else Status.FAIL, detail)


def skip(name: str, why: str) -> Check:
    return Check(name, Status.SKIP, why)


def json_lines(text: str) -> list[dict[str, Any]]:
    """Objects of a JSON-lines output (a whole JSON array is accepted too); junk lines skipped."""
    text = text.strip()
    if text.startswith("["):
        try:
            arr = json.loads(text)
            return [x for x in arr if isinstance(x, dict)]
        except ValueError:
            pass
    out = []
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def heartbeats_us(entries: list[dict[str, Any]]) -> list[int]:
    """Wall-clock µs of every heartbeat of one boot's dump, in order."""
    beats = []
    for e in entries:
        if e.get("kind") == "heartbeat":
            data = e.get("data") or {}
            beats.append(int(data.get("wall_us") or e.get("wall_us") or 0))
    return sorted(b for b in beats if b)


def heartbeat_interval_s(beats_us: list[int]) -> float | None:
    """The median gap between heartbeats, the unit of "within N heartbeats"."""
    gaps = [(b - a) / 1e6 for a, b in itertools.pairwise(beats_us) if b > a]
    return statistics.median(gaps) if gaps else None


def kernel_messages(entries: list[dict[str, Any]]) -> list[str]:
    return [
        str((e.get("data") or {}).get("message", "")) for e in entries if e.get("kind") == "kernel"
    ]


def walk(obj: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (dotted path, leaf value) of a JSON value."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, obj


def power_readings(entries: list[dict[str, Any]]) -> dict[str, list[tuple[int, float]]]:
    """(wall µs, watts) per device from sample records: any numeric leaf whose key ends in
    `power_w`, attributed to the nearest enclosing `device` value (or the key's path)."""
    series: dict[str, list[tuple[int, float]]] = {}
    for e in entries:
        if e.get("kind") != "sample":
            continue
        wall = int(e.get("wall_us") or 0)
        for dev, value in _power_leaves(e.get("data"), "?"):
            series.setdefault(dev, []).append((wall, value))
    return series


def _power_leaves(obj: Any, device: str) -> Iterator[tuple[str, float]]:
    if isinstance(obj, dict):
        device = str(obj.get("device", device))
        for k, v in obj.items():
            # means (`*.power_w`) and, for a second cut short by a step, its peak (`max_w`)
            if str(k).endswith(("power_w", "max_w")) and isinstance(v, int | float):
                yield f"{device}:{k}", float(v)
            else:
                yield from _power_leaves(v, device)
    elif isinstance(obj, list):
        for v in obj:
            yield from _power_leaves(v, device)


def time_of_death_s(report: dict[str, Any]) -> float | None:
    """The last-sign-of-life wall time (s) of a report's `time_of_death`, whatever its exact key:
    the first `*_us` leaf whose name says last/alive/death, else the first `*wall_us` leaf."""
    tod = report.get("time_of_death")
    if isinstance(tod, int | float):
        return tod / 1e6 if tod > 1e12 else float(tod)
    leaves = [(p, v) for p, v in walk(tod) if isinstance(v, int | float) and p.endswith("_us")]
    for path, value in leaves:  # kmsgd's own name for it (kmsgd/commands/lastboot.py)
        if path == "last_sign_of_life_wall_us":
            return float(value) / 1e6
    for words in (("last", "alive", "death", "died"), ("wall",)):
        for path, value in leaves:
            if any(w in path for w in words) and "next" not in path:
                return float(value) / 1e6
    return None


def downtime_s(report: dict[str, Any]) -> float | None:
    """The downtime the report states (a `*downtime*` or `*silence*` leaf is not it: only
    downtime / until-next-boot keys count), in seconds."""
    for path, value in walk(report.get("time_of_death")):
        if not isinstance(value, int | float):
            continue
        if "downtime" in path or ("next_boot" in path and "delay" in path):
            return float(value) / (1e6 if path.endswith("_us") else 1.0)
    return None


def primary_tag(report: dict[str, Any]) -> str | None:
    prim = report.get("primary")
    return str(prim.get("tag")) if isinstance(prim, dict) and prim.get("tag") else None


def signature_tags(report: dict[str, Any]) -> set[str]:
    return {str(s.get("tag")) for s in report.get("signatures") or [] if isinstance(s, dict)}


def power_step_in(report: dict[str, Any], *, low_w: float, high_w: float) -> list[str]:
    """Telemetry paths whose power shows a step from ≤ low_w to ≥ high_w (min/max, from/to,
    before/after pairs), so the check does not depend on one exact layout."""
    found = []
    stack: list[tuple[str, Any]] = [("telemetry", report.get("telemetry"))]
    pairs = (("min", "max"), ("from_w", "to_w"), ("from", "to"), ("before_w", "after_w"))
    while stack:
        path, obj = stack.pop()
        if isinstance(obj, dict):
            for lo_key, hi_key in pairs:
                lo, hi = obj.get(lo_key), obj.get(hi_key)
                if not (isinstance(lo, int | float) and isinstance(hi, int | float)):
                    continue
                about_power = "power" in path or "power" in str(obj.get("key", ""))
                if about_power and lo <= low_w and hi >= high_w:
                    found.append(path)
            stack.extend((f"{path}.{k}", v) for k, v in obj.items())
        elif isinstance(obj, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(obj))
    return sorted(set(found))
