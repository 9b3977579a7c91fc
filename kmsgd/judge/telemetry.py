"""Telemetry at the end of a boot: what the sensors said in its final minute, for the report.

`summarize` streams one boot's ring entries and keeps only what the end needs (samples of the
final ~70 s, memory samples of the final 10 min, events), then returns the report's
`telemetry` section as a `Telemetry` (kmsgd/judge/telemetry_model.py; docs/telemetry.md has
the record shapes). Samples are placed in time by their own CLOCK_MONOTONIC read, mapped to the wall
clock with the smallest (wall - mono) seen near the end: the envelope's wall time is when
kmsgd wrote the record, up to a second after the read. Garbage payloads are skipped and
counted, never raised. `judge.memory_facts.memory_evidence` condenses the memory part for the
classifier.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import TypeGuard

from kmsgd.judge.changes import config_facts
from kmsgd.judge.telemetry_model import (
    PSI_KEYS,
    SHORT_S,
    WINDOW_S,
    CrashDump,
    DeviceSummary,
    Direction,
    MemoryFall,
    MemorySummary,
    Pressure,
    SensorError,
    SensorStats,
    Stall,
    Step,
    Telemetry,
    UdevSeen,
)
from kmsgd.ring.events import DeviceEvent, DumpEvent, EventName, SensorEvent
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.payloads import Payload
from kmsgd.ring.records import Damaged, Entry, Heartbeat, Kind
from kmsgd.ring.samples import DeviceSample, MemoryHolder, MemorySample, ProcsSample, SampleShape

FINAL_WINDOW_US = 70_000_000  # device and procs samples kept: the final minute plus margin
MEMORY_WINDOW_US = 600_000_000  # memory samples: 10 min, so a slow fall before a hang is seen
OFFSET_US = 10_000_000  # samples near the end whose clocks map mono to wall
STALE_S = 5.0  # a device silent this long before the end had stopped reporting
MAX_SAMPLES = 20_000  # a hard bound whatever the clocks do (16 devices x 70 s is ~1,200)
MAX_EVENTS = 64
GPU_DRIVERS = frozenset({"amdgpu", "radeon", "nvidia", "nouveau", "i915", "xe"})
# A step: power rising (or falling) ≥ 3x and ≥ 50 W within ≤ 1 s, seen in the final 5 s. Seed
# 004: two GPUs going from 12 W idle to 300 W in 0.3 s tripped a 1300 W PSU; a power cap
# limits the average, not such edges, so the 10 Hz reads are what shows them.
STEP_WINDOW_US = 5_000_000
STEP_SPAN_US = 1_000_000
STEP_RATIO = 3.0
STEP_MIN_W = 50.0


def _r(x: float, digits: int = 3) -> float:
    return round(x, digits)


def _num(x: object) -> TypeGuard[float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


class _Collector:
    """The bounded state of one pass over a boot's entries."""

    def __init__(self, end_wall_us: int | None) -> None:
        self.limit = end_wall_us
        self.newest: int | None = None
        self.samples: deque[Entry] = deque()
        self.memory: deque[Entry] = deque()
        self.beats: deque[tuple[int, int]] = deque(maxlen=64)
        self.stalls: dict[str, Stall] = {}  # by path; before_end_s is filled in at the end
        self.errors: dict[str, SensorError] = {}
        self.dumps: deque[tuple[int, DumpEvent]] = deque(maxlen=MAX_EVENTS)
        self.udev: deque[tuple[int, DeviceEvent]] = deque(maxlen=MAX_EVENTS)
        self.udev_total = 0
        self.inventory: Inventory | None = None
        self.skipped = 0

    def add(self, e: Entry) -> None:
        if self.limit is not None and e.wall_us > self.limit:
            return  # written after the end the caller asked about
        self.newest = e.wall_us if self.newest is None else max(self.newest, e.wall_us)
        data = e.data
        if e.kind is Kind.HEARTBEAT and isinstance(data, Heartbeat):
            self.beats.append((data.wall_us, data.mono_us))
        elif e.kind is Kind.SAMPLE:
            memory = isinstance(data, MemorySample) or (
                isinstance(data, Damaged) and data.shape == SampleShape.MEMORY
            )
            (self.memory if memory else self.samples).append(e)
            self._trim()
        elif e.kind is Kind.EVENT:
            self._event(e.wall_us, data)
        elif e.kind is Kind.DEVICE:
            if isinstance(data, DeviceEvent):
                self.udev.append((e.wall_us, data))
                self.udev_total += 1
            else:
                self.skipped += 1
        elif e.kind is Kind.INVENTORY:
            if isinstance(data, Inventory):
                self.inventory = data
            else:
                self.skipped += 1

    def _trim(self) -> None:
        newest = self.newest or 0
        for keep, span in ((self.samples, FINAL_WINDOW_US), (self.memory, MEMORY_WINDOW_US)):
            while keep and (keep[0].wall_us < newest - span or len(keep) > MAX_SAMPLES):
                keep.popleft()

    def _event(self, wall_us: int, ev: Payload) -> None:
        if not isinstance(ev, SensorEvent | DumpEvent):
            # other producers may write events of their own; only broken sensor ones count
            shape = ev.shape if isinstance(ev, Damaged) else ""
            self.skipped += shape.startswith(("sensor_", "devcoredump_"))
            return
        if isinstance(ev, DumpEvent):
            self.dumps.append((wall_us, ev))
        elif ev.event in (EventName.SENSOR_STALL, EventName.SENSOR_STALL_END):
            if ev.path not in self.stalls and len(self.stalls) >= MAX_EVENTS:
                return
            s = self.stalls.get(ev.path) or Stall(ev.path, ev.device, 0.0, False, 0, 0.0)
            ended = ev.event is EventName.SENSOR_STALL_END
            blocked = max(s.blocked_s, ev.duration_s)
            self.stalls[ev.path] = replace(s, blocked_s=blocked, ended=ended, wall_us=wall_us)
        elif ev.path in self.errors or len(self.errors) < MAX_EVENTS:
            err = self.errors.get(ev.path) or SensorError(ev.path, ev.device, 0, False, 0.0)
            if ev.event is EventName.SENSOR_ERROR:
                err = replace(err, count=err.count + 1, reason=ev.reason, detail=ev.detail)
                err = replace(err, recovered=False, wall_us=wall_us)
            else:
                err = replace(err, recovered=True, failing_s=ev.duration_s)
            self.errors[ev.path] = err


def summarize(entries: Iterable[Entry], *, end_wall_us: int | None = None) -> Telemetry:
    """The report's `telemetry` for one boot's entries (in ring order); never raises on data.

    `end_wall_us` is the end of the boot (default: the newest entry); windows and "before the
    end" figures count back from it.
    """
    col = _Collector(end_wall_us)
    for e in entries:
        col.add(e)
    end = end_wall_us if end_wall_us is not None else col.newest
    if end is None:
        return Telemetry(None, skipped_records=col.skipped, note="no records in this boot")
    decoded = _decode(col, end)
    offset = _offset(decoded, col.beats, end)
    devices, series = _devices(decoded, offset, end)
    last_sample = max((w for w, _, s in decoded if s is not None), default=None)
    steps = [s for (dev, key), pts in series.items() for s in find_steps(dev, key, pts, end)]
    steps.sort(key=lambda s: -s.before_end_s)
    holders, holders_ago = _holders(decoded, offset, end)
    return Telemetry(
        end,
        devices=devices,
        steps=tuple(steps),
        memory=_memory(decoded, offset, end),
        top_holders=holders,
        top_holders_before_end_s=holders_ago,
        stalls=tuple(
            replace(s, blocked_s=_r(s.blocked_s), before_end_s=_ago(s.wall_us, end))
            for s in col.stalls.values()
        ),
        sensor_errors=tuple(_error(e, end) for e in col.errors.values()),
        devcoredumps=tuple(CrashDump(w, d, _ago(w, end)) for w, d in col.dumps),
        device_events=tuple(UdevSeen(w, d, _ago(w, end)) for w, d in col.udev),
        device_events_total=col.udev_total,
        config=config_facts(col.inventory) if col.inventory is not None else None,
        last_sample_wall_us=last_sample,
        skipped_records=col.skipped + sum(1 for _, _, s in decoded if s is None),
        note="no sensor samples in this boot" if last_sample is None else "",
    )


Decoded = list[tuple[int, int, DeviceSample | MemorySample | ProcsSample | None]]


def _decode(col: _Collector, end: int) -> Decoded:
    """(envelope wall, mono, sample) of the kept samples, oldest first; None for garbage."""
    kept = [e for e in col.samples if e.wall_us >= end - FINAL_WINDOW_US]
    kept += [e for e in col.memory if e.wall_us >= end - MEMORY_WINDOW_US]
    rows: Decoded = []
    for e in sorted(kept, key=lambda e: (e.wall_us, e.serial)):
        sample = e.data if isinstance(e.data, DeviceSample | MemorySample | ProcsSample) else None
        rows.append((e.wall_us, sample.mono_us if sample else 0, sample))
    return rows


def _offset(rows: Decoded, beats: Iterable[tuple[int, int]], end: int) -> int | None:
    near = [w - m for w, m, s in rows if s is not None and m > 0 and w >= end - OFFSET_US]
    near += [w - m for w, m in beats if m > 0 and w >= end - OFFSET_US]
    return min(near) if near else None


def _at(wall: int, mono: int, offset: int | None) -> int:
    return mono + offset if offset is not None and mono > 0 else wall


def _ago(wall_us: int, end: int) -> float:
    return _r((end - wall_us) / 1e6)


def _error(e: SensorError, end: int) -> SensorError:
    failing = None if e.failing_s is None else _r(e.failing_s)
    return replace(
        e, failing_s=failing, before_end_s=_ago(end if e.wall_us is None else e.wall_us, end)
    )


Points = list[tuple[int, float]]


def _stats(points: Points, end: int, peaks: Points) -> SensorStats:
    out: dict[str, float] = {}
    for name, span in (("60s", WINDOW_S), ("10s", SHORT_S)):
        vals = [v for t, v in points if t >= end - span * 1_000_000]
        if vals:
            out.update({f"min_{name}": min(vals), f"max_{name}": max(vals)})
            out[f"mean_{name}"] = _r(sum(vals) / len(vals))
        top = [v for t, v in peaks if t >= end - span * 1_000_000]
        if top:
            out[f"peak_{name}"] = max(top)  # highest single 10 Hz read (power only)
    return SensorStats(points[-1][1], **out)


Series = dict[tuple[str, str], Points]


def _devices(
    rows: Decoded, offset: int | None, end: int
) -> tuple[tuple[DeviceSummary, ...], Series]:
    """Per-device sensor statistics, and the power series (10 Hz reads where present)."""
    by_dev: dict[str, DeviceSample] = {}  # the last sample of each device
    values: Series = {}
    peaks: Series = {}
    power: Series = {}
    last: dict[str, int] = {}
    for wall, mono, s in rows:
        if not isinstance(s, DeviceSample) or not s.device:
            continue
        t = _at(wall, mono, offset)
        by_dev[s.device], last[s.device] = s, t
        for name, v in s.values.items():
            if _num(v):
                values.setdefault((s.device, name), []).append((t, v))
        for name, mean in s.values.items():
            if not name.endswith(".power_w"):
                continue
            key, p = (s.device, name), s.power.get(name.removesuffix(".power_w"))
            if p is not None and _num(p.max_w):
                peaks.setdefault(key, []).append((t, p.max_w))
            raw = p.raw_w if p is not None and len(p.raw_w) == len(s.raw_ms) else ()
            # zipped only when they pair up: raw_ms with no raw_w of this sensor is no read
            pairs = zip(raw, s.raw_ms, strict=True) if raw else ()
            pts = [(t + ms * 1000, w) for w, ms in pairs if _num(w)]
            if not pts and _num(mean):
                pts = [(t, mean)]  # a flat second, or a record without raw reads: its mean
            power.setdefault(key, []).extend(pts)
    sensors: dict[str, dict[str, SensorStats]] = {}
    for (device, name), pts in sorted(values.items()):
        sensors.setdefault(device, {})[name] = _stats(pts, end, peaks.get((device, name), []))
    out = []
    for device, d in sorted(by_dev.items()):
        t, ago = last[device], _r((end - last[device]) / 1e6)
        gpu, stats = d.driver in GPU_DRIVERS, sensors.get(device, {})
        out.append(DeviceSummary(device, d.driver, d.source, t, ago, ago > STALE_S, gpu, stats))
    return tuple(out), {k: sorted(v) for k, v in power.items()}


def find_steps(device: str, key: str, points: Points, end: int) -> list[Step]:
    """The largest rise and the largest fall of one power series (time-sorted) that reach their
    new level in the final 5 s; `within_s` is from the last read before the edge to the first
    read 90 % of the way."""
    pts = [(t, v) for t, v in points if end - STEP_WINDOW_US - STEP_SPAN_US <= t <= end]
    best: dict[Direction, tuple[float, int, int]] = {}  # direction -> (size, j, -k)
    for j, (tj, vj) in enumerate(pts):
        for k in range(j + 1, len(pts)):
            tk, vk = pts[k]
            if tk - tj > STEP_SPAN_US:
                break
            lo, hi = min(vj, vk), max(vj, vk)
            if tk < end - STEP_WINDOW_US or hi - lo < STEP_MIN_W or hi < STEP_RATIO * lo:
                continue
            direction = Direction.RISE if vk > vj else Direction.FALL
            # ties: the latest read before the edge, the first read at the new level
            best[direction] = max(best.get(direction, (0.0, -1, 0)), (hi - lo, j, -k))
    out = []
    for direction, (size, j, neg_k) in best.items():
        (tj, vj), (_, vk) = pts[j], pts[-neg_k]
        tm = next(t for t, v in pts[j + 1 :] if abs(v - vj) >= 0.9 * size)
        out.append(
            Step(
                device=device,
                sensor=key.removesuffix(".power_w"),
                key=key,
                direction=direction,
                from_w=_r(vj, 1),
                to_w=_r(vk, 1),
                within_s=_r((tm - tj) / 1e6),
                started_before_end_s=_r((end - tj) / 1e6),
                before_end_s=_r((end - tm) / 1e6),
            )
        )
    return out


def _memory(rows: Decoded, offset: int | None, end: int) -> MemorySummary | None:
    mem = [(_at(w, m, offset), s) for w, m, s in rows if isinstance(s, MemorySample)]
    if not mem:
        return None
    last = mem[-1][1]
    avail = [(t, s.mem_available_bytes) for t, s in mem if s.mem_available_bytes is not None]
    recent = [v for t, v in avail if t >= end - WINDOW_S * 1_000_000]
    psi = {}
    for key in PSI_KEYS:
        seen = [s.psi[f"{key}_avg10_pct"] for _, s in mem if _num(s.psi.get(f"{key}_avg10_pct"))]
        psi[key] = Pressure(max(seen) if seen else None, last.psi.get(f"{key}_avg10_pct"))
    return MemorySummary(
        window_s=MEMORY_WINDOW_US // 1_000_000,
        samples=len(mem),
        mem_total_bytes=last.mem_total_bytes,
        mem_available_bytes_last=avail[-1][1] if avail else None,
        mem_available_bytes_first_60s=recent[0] if recent else None,
        mem_available_bytes_min_60s=min(recent) if recent else None,
        mem_available_bytes_max_60s=max(recent) if recent else None,
        swap_total_bytes=last.swap_total_bytes,
        swap_free_bytes_last=last.swap_free_bytes,
        fall=_fall(avail, end),
        psi=psi,
    )


def _fall(avail: list[tuple[int, int]], end: int) -> MemoryFall | None:
    """The largest drop of MemAvailable (a peak, then the lowest point after it)."""
    best: tuple[int, int, int, int] | None = None  # (peak t, peak, trough t, trough)
    peak_t, peak = 0, -1
    for t, v in avail:
        if v >= peak:
            peak_t, peak = t, v  # the latest read at the peak: the fall starts after it
        elif best is None or peak - v > best[1] - best[3]:
            best = (peak_t, peak, t, v)
    if best is None:
        return None
    over = max((best[2] - best[0]) / 1e6, 1e-3)
    return MemoryFall(
        from_bytes=best[1],
        to_bytes=best[3],
        over_s=_r(over),
        bytes_per_s=_r((best[1] - best[3]) / over, 1),
        before_end_s=_r((end - best[2]) / 1e6),
    )


def _holders(
    rows: Decoded, offset: int | None, end: int
) -> tuple[tuple[MemoryHolder, ...], float | None]:
    """The last procs sample's top holders and how long before the end it was taken."""
    for wall, mono, s in reversed(rows):
        if isinstance(s, ProcsSample):
            return s.top, _r((end - _at(wall, mono, offset)) / 1e6)
    return (), None
