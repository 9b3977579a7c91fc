"""The report's `telemetry` section as frozen values: what `telemetry.summarize` finds at the end
of a boot, carried as-is to the renderers. `to_json()` gives the `telemetry` object of
`kmsgd.report/1` (docs/report.md, docs/telemetry.md); its key names are public, never rename one.
Every value here was checked once where it was made (a malformed record was skipped and counted),
so readers need no defensive checks.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kmsgd.judge.changes import ConfigFacts
from kmsgd.ring.events import DeviceEvent, DumpEvent
from kmsgd.ring.samples import MemoryHolder

WINDOW_S = 60
SHORT_S = 10


class Direction(enum.StrEnum):
    RISE = "rise"
    FALL = "fall"


@dataclass(frozen=True, slots=True)
class SensorStats:
    """One sensor of one device over the final minute; a window without reads has None.
    `peak_*` is the highest single 10 Hz read (power sensors only)."""

    last: float
    min_60s: float | None = None
    max_60s: float | None = None
    mean_60s: float | None = None
    peak_60s: float | None = None
    min_10s: float | None = None
    max_10s: float | None = None
    mean_10s: float | None = None
    peak_10s: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"last": self.last}
        for key in _STAT_KEYS:
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


_STAT_KEYS = tuple(f"{s}_{w}" for w in ("60s", "10s") for s in ("min", "max", "mean", "peak"))


@dataclass(frozen=True, slots=True)
class DeviceSummary:
    """One device's sensors at the end; `stale` when it had stopped reporting."""

    device: str
    driver: str
    source: str
    last_wall_us: int
    last_before_end_s: float
    stale: bool
    gpu: bool
    sensors: Mapping[str, SensorStats] = field(default_factory=dict)  # sorted by key

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "device": self.device,
            "driver": self.driver,
            "source": self.source,
            "last_wall_us": self.last_wall_us,
        }
        sensors = {k: s.to_json() for k, s in self.sensors.items()}
        if sensors:  # the documents have always put a device's readings here, or last if none
            out["sensors"] = sensors
        out.update(last_before_end_s=self.last_before_end_s, stale=self.stale, gpu=self.gpu)
        out.setdefault("sensors", sensors)
        return out


@dataclass(frozen=True, slots=True)
class Step:
    """A power step: `key` went `from_w` -> `to_w` W within `within_s`, reaching its new
    level `before_end_s` before the end (`started_before_end_s`: the last read before it)."""

    device: str
    sensor: str
    key: str
    direction: Direction
    from_w: float
    to_w: float
    within_s: float
    started_before_end_s: float
    before_end_s: float

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "sensor": self.sensor,
            "key": self.key,
            "direction": self.direction.value,
            "from_w": self.from_w,
            "to_w": self.to_w,
            "within_s": self.within_s,
            "started_before_end_s": self.started_before_end_s,
            "before_end_s": self.before_end_s,
        }


@dataclass(frozen=True, slots=True)
class MemoryFall:
    """The largest drop of MemAvailable: a peak, then the lowest read after it."""

    from_bytes: int
    to_bytes: int
    over_s: float
    bytes_per_s: float
    before_end_s: float  # when it bottomed out

    def to_json(self) -> dict[str, Any]:
        return {
            "from_bytes": self.from_bytes,
            "to_bytes": self.to_bytes,
            "over_s": self.over_s,
            "bytes_per_s": self.bytes_per_s,
            "before_end_s": self.before_end_s,
        }


PSI_KEYS = ("memory.full", "memory.some", "io.full", "cpu.some")


@dataclass(frozen=True, slots=True)
class Pressure:
    """One PSI line's avg10 over the memory window: the highest and the last seen."""

    max_pct: float | None = None
    last_pct: float | None = None


@dataclass(frozen=True, slots=True)
class MemorySummary:
    """Memory over the final `window_s` (10 min, so a slow fall before a hang is seen)."""

    window_s: int
    samples: int
    mem_total_bytes: int | None
    mem_available_bytes_last: int | None
    mem_available_bytes_first_60s: int | None
    mem_available_bytes_min_60s: int | None
    mem_available_bytes_max_60s: int | None
    swap_total_bytes: int | None
    swap_free_bytes_last: int | None
    fall: MemoryFall | None
    psi: Mapping[str, Pressure] = field(default_factory=dict)  # by PSI_KEYS, all present

    @property
    def fell_bytes_per_s(self) -> float:
        return self.fall.bytes_per_s if self.fall else 0.0

    def pressure(self, key: str) -> Pressure:
        return self.psi.get(key) or Pressure()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "window_s": self.window_s,
            "samples": self.samples,
            "mem_total_bytes": self.mem_total_bytes,
            "mem_available_bytes_last": self.mem_available_bytes_last,
            "mem_available_bytes_first_60s": self.mem_available_bytes_first_60s,
            "mem_available_bytes_min_60s": self.mem_available_bytes_min_60s,
            "mem_available_bytes_max_60s": self.mem_available_bytes_max_60s,
            "swap_total_bytes": self.swap_total_bytes,
            "swap_free_bytes_last": self.swap_free_bytes_last,
            "fall": self.fall.to_json() if self.fall else None,
            "fell_bytes_per_s": self.fell_bytes_per_s,
        }
        for key in PSI_KEYS:
            name, p = "psi_" + key.replace(".", "_") + "_avg10", self.pressure(key)
            out[f"{name}_max_pct"] = p.max_pct
            out[f"{name}_last_pct"] = p.last_pct
        return out


def holder_json(h: MemoryHolder) -> dict[str, Any]:
    return {
        "comm": h.comm,
        "pid": h.pid,
        "rss_bytes": h.rss_bytes,
        "gpu_vram_bytes": h.gpu_vram_bytes,
        "gpu_gtt_bytes": h.gpu_gtt_bytes,
        "total_bytes": h.total_bytes,
    }


@dataclass(frozen=True, slots=True)
class Stall:
    """A sensor read that blocked in the kernel (`ended`: it returned before the end)."""

    path: str
    device: str
    blocked_s: float
    ended: bool
    wall_us: int
    before_end_s: float

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "device": self.device,
            "blocked_s": self.blocked_s,
            "ended": self.ended,
            "wall_us": self.wall_us,
            "before_end_s": self.before_end_s,
        }


@dataclass(frozen=True, slots=True)
class SensorError:
    """A sensor file that failed (`count` times) and whether it read again by the end.
    `wall_us` is the last failure, None when only its recovery was seen."""

    path: str
    device: str
    count: int
    recovered: bool
    before_end_s: float
    reason: str = ""
    detail: str = ""
    wall_us: int | None = None
    failing_s: float | None = None  # how long it had failed, from its recovery

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "device": self.device, "count": self.count}
        if self.wall_us is not None:
            out.update(reason=self.reason, detail=self.detail)
        out["recovered"] = self.recovered
        if self.wall_us is not None:
            out["wall_us"] = self.wall_us
        if self.failing_s is not None:
            out["failing_s"] = self.failing_s
        out["before_end_s"] = self.before_end_s
        return out


@dataclass(frozen=True, slots=True)
class CrashDump:
    """A device coredump saved (or lost) during the boot."""

    wall_us: int
    dump: DumpEvent
    before_end_s: float

    def to_json(self) -> dict[str, Any]:
        return {
            "wall_us": self.wall_us,
            **self.dump.to_payload(),
            "before_end_s": self.before_end_s,
        }


@dataclass(frozen=True, slots=True)
class UdevSeen:
    """A udev event of the boot, with when it was written."""

    wall_us: int
    event: DeviceEvent
    before_end_s: float

    def to_json(self) -> dict[str, Any]:
        e = self.event
        return {
            "action": e.action,
            "subsystem": e.subsystem,
            "sys_name": e.sys_name,
            "pci": e.pci,
            "driver": e.driver,
            "wall_us": self.wall_us,
            "before_end_s": self.before_end_s,
        }


@dataclass(frozen=True, slots=True)
class Telemetry:
    """What the sensors said at the end of one boot. `end_wall_us` None: the boot had no
    records at all. `notes` are the caller's own remarks (`kmsgd last-boot` adds some)."""

    end_wall_us: int | None
    devices: tuple[DeviceSummary, ...] = ()
    steps: tuple[Step, ...] = ()  # the earliest first
    memory: MemorySummary | None = None
    top_holders: tuple[MemoryHolder, ...] = ()
    top_holders_before_end_s: float | None = None
    stalls: tuple[Stall, ...] = ()
    sensor_errors: tuple[SensorError, ...] = ()
    devcoredumps: tuple[CrashDump, ...] = ()
    device_events: tuple[UdevSeen, ...] = ()  # the latest MAX_EVENTS of them
    device_events_total: int = 0
    config: ConfigFacts | None = None
    last_sample_wall_us: int | None = None
    skipped_records: int = 0  # malformed telemetry records
    note: str = ""
    notes: tuple[str, ...] = ()
    window_s: int = WINDOW_S
    short_window_s: int = SHORT_S

    def to_json(self) -> dict[str, Any]:
        """The report's `telemetry` object (the same keys, in the same order, as ever)."""
        out: dict[str, Any] = {
            "window_s": self.window_s,
            "short_window_s": self.short_window_s,
            "end_wall_us": self.end_wall_us,
            "devices": [d.to_json() for d in self.devices],
            "steps": [s.to_json() for s in self.steps],
            "memory": self.memory.to_json() if self.memory else None,
            "top_holders": [holder_json(h) for h in self.top_holders],
        }
        if self.end_wall_us is not None:
            out.update(
                top_holders_before_end_s=self.top_holders_before_end_s,
                stalls=[s.to_json() for s in self.stalls],
                sensor_errors=[e.to_json() for e in self.sensor_errors],
                devcoredumps=[d.to_json() for d in self.devcoredumps],
                device_events=[e.to_json() for e in self.device_events],
                device_events_total=self.device_events_total,
                config=self.config.to_json() if self.config else None,
                last_sample_wall_us=self.last_sample_wall_us,
            )
        out["skipped_records"] = self.skipped_records
        if self.note:
            out["note"] = self.note
        if self.notes:
            out["notes"] = list(self.notes)
        return out
