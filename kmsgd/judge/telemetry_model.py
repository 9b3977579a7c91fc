"""The report's `telemetry` section as frozen values: what `telemetry.summarize` finds at the end
of a boot, carried as-is to the renderers (report/render_json.py `telemetry_json` gives the
`telemetry` object of `kmsgd.report/1`, docs/report.md, docs/telemetry.md).
Every value here was checked once where it was made (a malformed record was skipped and counted),
so readers need no defensive checks. The fields of SensorStats, Step, MemoryFall and Stall are
their JSON objects' keys, in order (`dataclasses.asdict`): renaming or reordering one changes
the public document.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

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


@dataclass(frozen=True, slots=True)
class MemoryFall:
    """The largest drop of MemAvailable: a peak, then the lowest read after it."""

    from_bytes: int
    to_bytes: int
    over_s: float
    bytes_per_s: float
    before_end_s: float  # when it bottomed out


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


@dataclass(frozen=True, slots=True)
class Stall:
    """A sensor read that blocked in the kernel (`ended`: it returned before the end)."""

    path: str
    device: str
    blocked_s: float
    ended: bool
    wall_us: int
    before_end_s: float


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


@dataclass(frozen=True, slots=True)
class CrashDump:
    """A device coredump saved (or lost) during the boot."""

    wall_us: int
    dump: DumpEvent
    before_end_s: float


@dataclass(frozen=True, slots=True)
class UdevSeen:
    """A udev event of the boot, with when it was written."""

    wall_us: int
    event: DeviceEvent
    before_end_s: float


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
