"""Telemetry at the end of a boot: what the sensors said in its final minute, for the report.

`summarize` streams one boot's ring entries and keeps only what the end needs (samples of the
final ~70 s, memory samples of the final 10 min, events), then returns the report's
`telemetry` field: JSON-able, units in every key name (docs/telemetry.md has the record
shapes). Samples are placed in time by their own CLOCK_MONOTONIC read, mapped to the wall
clock with the smallest (wall - mono) seen near the end: the envelope's wall time is when
kmsgd wrote the record, up to a second after the read. Garbage payloads are skipped and
counted, never raised. `memory_evidence` condenses the memory part for the classifier.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

from kmsgd.judge.changes import config_facts
from kmsgd.ring.events import DeviceEvent, DumpEvent, EventName, event_from_payload
from kmsgd.ring.records import Entry, Heartbeat, Kind
from kmsgd.ring.samples import DeviceSample, MemorySample, ProcsSample, sample_from_payload

WINDOW_S = 60
SHORT_S = 10
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
        self.stalls: dict[str, dict[str, Any]] = {}
        self.errors: dict[str, dict[str, Any]] = {}
        self.dumps: deque[dict[str, Any]] = deque(maxlen=MAX_EVENTS)
        self.udev: deque[tuple[int, DeviceEvent]] = deque(maxlen=MAX_EVENTS)
        self.udev_total = 0
        self.inventory: Mapping[str, Any] | None = None
        self.skipped = 0

    def add(self, e: Entry) -> None:
        if self.limit is not None and e.wall_us > self.limit:
            return  # written after the end the caller asked about
        self.newest = e.wall_us if self.newest is None else max(self.newest, e.wall_us)
        data = e.data
        if e.kind is Kind.HEARTBEAT and isinstance(data, Heartbeat):
            self.beats.append((data.wall_us, data.mono_us))
        elif not isinstance(data, dict):
            if e.kind in (Kind.SAMPLE, Kind.EVENT, Kind.DEVICE, Kind.INVENTORY):
                self.skipped += 1
        elif e.kind is Kind.SAMPLE:
            keep = self.memory if data.get("sample") == "memory" else self.samples
            keep.append(e)
            self._trim()
        elif e.kind is Kind.EVENT:
            self._event(e.wall_us, data)
        elif e.kind is Kind.DEVICE:
            self._udev(e.wall_us, data)
        elif e.kind is Kind.INVENTORY:
            self.inventory = data

    def _trim(self) -> None:
        newest = self.newest or 0
        for keep, span in ((self.samples, FINAL_WINDOW_US), (self.memory, MEMORY_WINDOW_US)):
            while keep and (keep[0].wall_us < newest - span or len(keep) > MAX_SAMPLES):
                keep.popleft()

    def _event(self, wall_us: int, data: dict[str, Any]) -> None:
        try:
            ev = event_from_payload(data)
        except Exception:  # a post-mortem never dies on one bad record
            ev = None
        if ev is None:
            # other producers may write events of their own; only broken sensor ones count
            self.skipped += str(data.get("event", "")).startswith(("sensor_", "devcoredump_"))
            return
        if isinstance(ev, DumpEvent):
            self.dumps.append({"wall_us": wall_us, **ev.to_payload()})
        elif ev.event in (EventName.SENSOR_STALL, EventName.SENSOR_STALL_END):
            if ev.path not in self.stalls and len(self.stalls) >= MAX_EVENTS:
                return
            s = self.stalls.setdefault(ev.path, {"path": ev.path, "device": ev.device})
            s["blocked_s"] = max(s.get("blocked_s", 0.0), ev.duration_s)
            s.update(ended=ev.event is EventName.SENSOR_STALL_END, wall_us=wall_us)
        elif ev.path in self.errors or len(self.errors) < MAX_EVENTS:
            err = self.errors.setdefault(
                ev.path, {"path": ev.path, "device": ev.device, "count": 0}
            )
            if ev.event is EventName.SENSOR_ERROR:
                err.update(count=err["count"] + 1, reason=ev.reason, detail=ev.detail)
                err.update(recovered=False, wall_us=wall_us)
            else:
                err.update(recovered=True, failing_s=ev.duration_s)

    def _udev(self, wall_us: int, data: dict[str, Any]) -> None:
        try:
            self.udev.append((wall_us, DeviceEvent.from_payload(data)))
            self.udev_total += 1
        except Exception:
            self.skipped += 1


def summarize(entries: Iterable[Entry], *, end_wall_us: int | None = None) -> dict[str, Any]:
    """The report's `telemetry` for one boot's entries (in ring order); never raises on data.

    `end_wall_us` is the end of the boot (default: the newest entry); windows and "before the
    end" figures count back from it.
    """
    col = _Collector(end_wall_us)
    for e in entries:
        col.add(e)
    end = end_wall_us if end_wall_us is not None else col.newest
    out: dict[str, Any] = {"window_s": WINDOW_S, "short_window_s": SHORT_S, "end_wall_us": end}
    if end is None:
        out.update(devices=[], steps=[], memory=None, top_holders=[], skipped_records=col.skipped)
        return {**out, "note": "no records in this boot"}
    decoded = _decode(col, end)
    offset = _offset(decoded, col.beats, end)
    devices, series = _devices(decoded, offset, end)
    last_sample = max((w for w, _, s in decoded if s is not None), default=None)
    out.update(
        devices=devices,
        steps=[s for (dev, key), pts in series.items() for s in find_steps(dev, key, pts, end)],
        memory=_memory(decoded, offset, end),
        **_holders(decoded, offset, end),
        stalls=[_ago(s, end) for s in col.stalls.values()],
        sensor_errors=[_ago(s, end) for s in col.errors.values()],
        devcoredumps=[_ago(d, end) for d in col.dumps],
        device_events=[_udev_row(w, d, end) for w, d in col.udev],
        device_events_total=col.udev_total,
        config=config_facts(col.inventory) if col.inventory is not None else None,
        last_sample_wall_us=last_sample,
        skipped_records=col.skipped + sum(1 for _, _, s in decoded if s is None),
    )
    if last_sample is None:
        out["note"] = "no sensor samples in this boot"
    out["steps"].sort(key=lambda s: -s["before_end_s"])
    return out


Decoded = list[tuple[int, int, DeviceSample | MemorySample | ProcsSample | None]]


def _decode(col: _Collector, end: int) -> Decoded:
    """(envelope wall, mono, sample) of the kept samples, oldest first; None for garbage."""
    kept = [e for e in col.samples if e.wall_us >= end - FINAL_WINDOW_US]
    kept += [e for e in col.memory if e.wall_us >= end - MEMORY_WINDOW_US]
    rows: Decoded = []
    for e in sorted(kept, key=lambda e: (e.wall_us, e.serial)):
        try:
            sample = sample_from_payload(e.data) if isinstance(e.data, dict) else None
        except Exception:  # e.g. "values" that is not a mapping
            sample = None
        rows.append((e.wall_us, sample.mono_us if sample else 0, sample))
    return rows


def _offset(rows: Decoded, beats: Iterable[tuple[int, int]], end: int) -> int | None:
    near = [w - m for w, m, s in rows if s is not None and m > 0 and w >= end - OFFSET_US]
    near += [w - m for w, m in beats if m > 0 and w >= end - OFFSET_US]
    return min(near) if near else None


def _at(wall: int, mono: int, offset: int | None) -> int:
    return mono + offset if offset is not None and mono > 0 else wall


def _ago(row: Mapping[str, Any], end: int) -> dict[str, Any]:
    out = dict(row)
    for key, value in out.items():
        if isinstance(value, float):
            out[key] = _r(value)
    out["before_end_s"] = _r((end - int(out.get("wall_us", end))) / 1e6)
    return out


def _udev_row(wall: int, d: DeviceEvent, end: int) -> dict[str, Any]:
    return {
        "action": d.action,
        "subsystem": d.subsystem,
        "sys_name": d.sys_name,
        "pci": d.pci,
        "driver": d.driver,
        "wall_us": wall,
        "before_end_s": _r((end - wall) / 1e6),
    }


Points = list[tuple[int, float]]


def _stats(points: Points, end: int, peaks: Points) -> dict[str, Any]:
    out: dict[str, Any] = {"last": points[-1][1]}
    for name, span in (("60s", WINDOW_S), ("10s", SHORT_S)):
        vals = [v for t, v in points if t >= end - span * 1_000_000]
        if vals:
            out.update({f"min_{name}": min(vals), f"max_{name}": max(vals)})
            out[f"mean_{name}"] = _r(sum(vals) / len(vals))
        top = [v for t, v in peaks if t >= end - span * 1_000_000]
        if top:
            out[f"peak_{name}"] = max(top)  # highest single 10 Hz read (power only)
    return out


Series = dict[tuple[str, str], Points]


def _devices(rows: Decoded, offset: int | None, end: int) -> tuple[list[dict[str, Any]], Series]:
    """Per-device sensor statistics, and the power series (10 Hz reads where present)."""
    by_dev: dict[str, dict[str, Any]] = {}
    values: Series = {}
    peaks: Series = {}
    power: Series = {}
    for wall, mono, s in rows:
        if not isinstance(s, DeviceSample) or not s.device:
            continue
        t = _at(wall, mono, offset)
        dev = by_dev.setdefault(s.device, {"device": s.device})
        dev.update(driver=s.driver, source=s.source, last_wall_us=t)
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
            pts = [(t + ms * 1000, w) for w, ms in zip(raw, s.raw_ms, strict=True) if _num(w)]
            if not pts and _num(mean):
                pts = [(t, mean)]  # a flat second, or a record without raw reads: its mean
            power.setdefault(key, []).extend(pts)
    for (device, name), pts in sorted(values.items()):
        sensors = by_dev[device].setdefault("sensors", {})
        sensors[name] = _stats(pts, end, peaks.get((device, name), []))
    out = []
    for dev in sorted(by_dev.values(), key=lambda d: str(d["device"])):
        dev["last_before_end_s"] = _r((end - dev["last_wall_us"]) / 1e6)
        dev["stale"] = dev["last_before_end_s"] > STALE_S
        dev["gpu"] = dev.get("driver") in GPU_DRIVERS
        dev.setdefault("sensors", {})
        out.append(dev)
    return out, {k: sorted(v) for k, v in power.items()}


def find_steps(device: str, key: str, points: Points, end: int) -> list[dict[str, Any]]:
    """The largest rise and the largest fall of one power series (time-sorted) that reach their
    new level in the final 5 s; `within_s` is from the last read before the edge to the first
    read 90 % of the way."""
    pts = [(t, v) for t, v in points if end - STEP_WINDOW_US - STEP_SPAN_US <= t <= end]
    best: dict[str, tuple[float, int, int]] = {}  # direction -> (size, j, -k)
    for j, (tj, vj) in enumerate(pts):
        for k in range(j + 1, len(pts)):
            tk, vk = pts[k]
            if tk - tj > STEP_SPAN_US:
                break
            lo, hi = min(vj, vk), max(vj, vk)
            if tk < end - STEP_WINDOW_US or hi - lo < STEP_MIN_W or hi < STEP_RATIO * lo:
                continue
            direction = "rise" if vk > vj else "fall"
            # ties: the latest read before the edge, the first read at the new level
            best[direction] = max(best.get(direction, (0.0, -1, 0)), (hi - lo, j, -k))
    out = []
    for direction, (size, j, neg_k) in best.items():
        (tj, vj), (_, vk) = pts[j], pts[-neg_k]
        tm = next(t for t, v in pts[j + 1 :] if abs(v - vj) >= 0.9 * size)
        out.append(
            {
                "device": device,
                "sensor": key.removesuffix(".power_w"),
                "key": key,
                "direction": direction,
                "from_w": _r(vj, 1),
                "to_w": _r(vk, 1),
                "within_s": _r((tm - tj) / 1e6),
                "started_before_end_s": _r((end - tj) / 1e6),
                "before_end_s": _r((end - tm) / 1e6),
            }
        )
    return out


def _memory(rows: Decoded, offset: int | None, end: int) -> dict[str, Any] | None:
    mem = [(_at(w, m, offset), s) for w, m, s in rows if isinstance(s, MemorySample)]
    if not mem:
        return None
    last = mem[-1][1]
    avail = [(t, s.mem_available_bytes) for t, s in mem if s.mem_available_bytes is not None]
    recent = [v for t, v in avail if t >= end - WINDOW_S * 1_000_000]
    out: dict[str, Any] = {
        "window_s": MEMORY_WINDOW_US // 1_000_000,
        "samples": len(mem),
        "mem_total_bytes": last.mem_total_bytes,
        "mem_available_bytes_last": avail[-1][1] if avail else None,
        "mem_available_bytes_first_60s": recent[0] if recent else None,
        "mem_available_bytes_min_60s": min(recent) if recent else None,
        "mem_available_bytes_max_60s": max(recent) if recent else None,
        "swap_total_bytes": last.swap_total_bytes,
        "swap_free_bytes_last": last.swap_free_bytes,
        "fall": _fall(avail, end),
    }
    out["fell_bytes_per_s"] = out["fall"]["bytes_per_s"] if out["fall"] else 0.0
    for key in ("memory.full", "memory.some", "io.full", "cpu.some"):
        seen = [s.psi[f"{key}_avg10_pct"] for _, s in mem if _num(s.psi.get(f"{key}_avg10_pct"))]
        name = "psi_" + key.replace(".", "_") + "_avg10"
        out[f"{name}_max_pct"] = max(seen) if seen else None
        out[f"{name}_last_pct"] = last.psi.get(f"{key}_avg10_pct")
    return out


def _fall(avail: list[tuple[int, int]], end: int) -> dict[str, Any] | None:
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
    return {
        "from_bytes": best[1],
        "to_bytes": best[3],
        "over_s": _r(over),
        "bytes_per_s": _r((best[1] - best[3]) / over, 1),
        "before_end_s": _r((end - best[2]) / 1e6),
    }


def _holders(rows: Decoded, offset: int | None, end: int) -> dict[str, Any]:
    for wall, mono, s in reversed(rows):
        if isinstance(s, ProcsSample):
            top = [
                {
                    "comm": h.comm,
                    "pid": h.pid,
                    "rss_bytes": h.rss_bytes,
                    "gpu_vram_bytes": h.gpu_vram_bytes,
                    "gpu_gtt_bytes": h.gpu_gtt_bytes,
                    "total_bytes": h.total_bytes,
                }
                for h in s.top
            ]
            ago = _r((end - _at(wall, mono, offset)) / 1e6)
            return {"top_holders": top, "top_holders_before_end_s": ago}
    return {"top_holders": [], "top_holders_before_end_s": None}
