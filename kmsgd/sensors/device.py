"""Sampling one device: probes with failure tracking, and power aggregation per second.

A device worker calls `sample_power` at the power rate and `sample` at the slow rate. Each read
is announced in `ReadContext.busy` first, so the sampler's watchdog can see a read that blocks
(a wedged SMU can hold a sysfs read in the kernel for seconds or forever) and record it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kmsgd.ring.events import EventName, SensorEvent
from kmsgd.ring.samples import DeviceSample, PowerStats, PowerStep
from kmsgd.sensors.attrfiles import KeptFile, ReadFailed

BACKOFF_START_S = 1.0
BACKOFF_MAX_S = 60.0
REPORT_AGAIN_S = 300.0  # a flapping sensor (EPERM while runtime-suspended) is told once per 5 min


def now_ns() -> int:
    return time.monotonic_ns()


def _compact(value: float) -> float:
    """71.0 -> 71: integral readings cost two bytes less in every record."""
    as_int = int(value)
    return as_int if as_int == value else value


class ReadContext:
    """What a worker thread shares with the watchdog: the read in progress, and the event sink."""

    __slots__ = ("busy", "report")

    def __init__(self, report: Callable[[SensorEvent], None]) -> None:
        # (path, device, start ns) of the read in progress; one tuple store is atomic
        self.busy: tuple[str, str, int] | None = None
        self.report = report


class Health:
    """A probe's failure state: one event when it starts failing, retries with backoff."""

    __slots__ = ("backoff_s", "failing_since", "last_report", "next_try", "reported")

    def __init__(self) -> None:
        self.failing_since = 0
        self.next_try = 0
        self.backoff_s = 0.0
        self.reported = False
        self.last_report = -(10**18)

    def due(self, t: int) -> bool:
        return t >= self.next_try

    def failed(self, t: int, path: str, device: str, err: ReadFailed) -> SensorEvent | None:
        self.backoff_s = min(BACKOFF_MAX_S, self.backoff_s * 2 or BACKOFF_START_S)
        self.next_try = t + int(self.backoff_s * 1e9)
        if self.failing_since:
            return None
        self.failing_since = t
        if t - self.last_report < REPORT_AGAIN_S * 1e9:
            self.reported = False
            return None
        self.reported = True
        self.last_report = t
        return SensorEvent(EventName.SENSOR_ERROR, path, device, t // 1000, err.reason, err.detail)

    def ok(self, t: int, path: str, device: str) -> SensorEvent | None:
        if not self.failing_since:
            return None
        event = None
        if self.reported:
            duration = (t - self.failing_since) / 1e9
            event = SensorEvent(
                EventName.SENSOR_RECOVERED, path, device, t // 1000, duration_s=duration
            )
        self.failing_since = 0
        self.backoff_s = 0.0
        self.next_try = 0
        self.reported = False
        return event


class ScaledFile:
    """A kept-open integer attribute converted to its unit."""

    __slots__ = ("file", "scale")

    def __init__(self, path: str, scale: float) -> None:
        self.file = KeptFile(path)
        self.scale = scale

    def read(self) -> float:
        return self.file.read_int() * self.scale

    def close(self) -> None:
        self.file.close()


@dataclass(slots=True)
class Probe:
    """One value: where it comes from (`path`, a file or `nvml:<call>`) and its record key."""

    path: str
    key: str
    read: Callable[[], float]
    close: Callable[[], None] = lambda: None
    health: Health = field(default_factory=Health)
    digits: int = 3


class ProbeDevice:
    """A device sampled through probes; power probes are aggregated into one record a second.

    A sudden power step (a read at least `step_ratio` times and `step_min_w` W above or below
    the previous read or the running second's lowest/highest read) cuts the second short:
    `sample_power` returns the reads so far as a `partial` record, to be written urgently, and
    the rest of the second goes into the next record. At most one record per `step_gap_ns` is
    made urgent by a step; a step within the gap is held back and cut at the first read after
    it (or rides on the second's record), so an oscillating load cannot flood the disk with
    syncs. `step_ratio` 0 (the default until the sampler configures the device) turns this off.
    """

    def __init__(
        self,
        *,
        source: str,
        device: str,
        driver: str,
        power: list[Probe],
        slow: list[Probe],
        max_raw: int = 64,
    ) -> None:
        self.source, self.device, self.driver = source, device, driver
        self.power, self.slow = power, slow
        self.max_raw = max_raw
        self._names = [p.key.removesuffix(".power_w") for p in power]
        self._raws: list[list[float | None]] = [[] for _ in power]
        self._times: list[int] = []
        # per power probe: lowest/highest of the previous good read and this window's reads
        self._lo = [math.inf for _ in power]
        self._hi = [-math.inf for _ in power]
        self._last: list[float | None] = [None for _ in power]  # the previous good read
        self._pending: PowerStep | None = None  # a step not yet written urgently
        self._last_urgent = -(10**18)
        self._force_raw = False  # this window follows a cut: keep its raw reads
        # set by the sampler from its config
        self.raw_min_spread_w = 1.0
        self.step_ratio = 0.0
        self.step_min_w = 50.0
        self.step_gap_ns = 500_000_000

    def read(self, probe: Probe, ctx: ReadContext) -> float | None:
        """One probe read under the watchdog's eye; failures become events, never exceptions."""
        t = now_ns()
        if not probe.health.due(t):
            return None
        ctx.busy = (probe.path, self.device, t)
        try:
            value = probe.read()
        except ReadFailed as err:
            ctx.busy = None
            event = probe.health.failed(now_ns(), probe.path, self.device, err)
        except Exception as err:  # a binding (NVML) raising its own error types
            ctx.busy = None
            failed = ReadFailed(probe.path, type(err).__name__, str(err)[:120])
            event = probe.health.failed(now_ns(), probe.path, self.device, failed)
        else:
            ctx.busy = None
            event = probe.health.ok(t, probe.path, self.device)
            if event is not None:
                ctx.report(event)
            return round(value) if probe.digits == 0 else _compact(round(value, probe.digits))
        if event is not None:
            ctx.report(event)
        return None

    def sample_power(self, ctx: ReadContext, cut: bool = True) -> DeviceSample | None:
        """One fast-rate read of every power probe, kept until the next record.

        Returns a `partial` record to write urgently when a power step is due to be written
        (never when `cut` is False: the caller is about to take the second's record, which then
        carries the step), else None.
        """
        if not self.power or len(self._times) >= self.max_raw:
            return None
        detect = self.step_ratio > 0
        lows, highs, lasts, raws = self._lo, self._hi, self._last, self._raws
        for i in range(len(self.power)):
            value = self.read(self.power[i], ctx)
            raws[i].append(value)
            if value is None or not detect:
                continue
            lo, hi = lows[i], highs[i]
            if self._pending is None:
                if value - lo >= self.step_min_w and value >= self.step_ratio * lo:
                    self._pending = PowerStep(self._names[i], lo, value)
                elif hi - value >= self.step_min_w and hi >= self.step_ratio * value:
                    self._pending = PowerStep(self._names[i], hi, value)
            if value < lo:
                lows[i] = value
            if value > hi:
                highs[i] = value
            lasts[i] = value
        t = now_ns()
        self._times.append(t)
        if self._pending is None or not cut or t - self._last_urgent < self.step_gap_ns:
            return None
        step, self._pending, self._last_urgent = self._pending, None, t
        values: dict[str, float] = {}
        power, raw_ms = self._fold(t, values, True)
        self._force_raw = True  # the record closing this second says which reads it holds
        return DeviceSample(
            self.source,
            self.device,
            self.driver,
            t // 1000,
            values,
            power,
            raw_ms,
            step=step,
            partial=True,
        )

    def sample(self, ctx: ReadContext) -> DeviceSample | None:
        """The slow-rate record: slow probes now, power as mean/min/max of the raw reads.

        The raw reads are kept in the record only when they spread by `raw_min_spread_w` or
        more: a flatter second is fully told by min/mean/max, and that halves the bytes. They
        are always kept when the record follows a cut, or carries a held-back step, which
        makes it urgent when the gap since the last urgent record allows.
        """
        values: dict[str, float] = {}
        for probe in self.slow:
            value = self.read(probe, ctx)
            if value is not None:
                values[probe.key] = value
        t = now_ns()
        step, self._pending = self._pending, None  # its reads are in this record either way
        if step is not None and t - self._last_urgent < self.step_gap_ns:
            step = None
        power, raw_ms = self._fold(t, values, self._force_raw or step is not None)
        self._force_raw = False
        if not values:
            return None
        if step is not None:
            self._last_urgent = t
        return DeviceSample(
            self.source, self.device, self.driver, t // 1000, values, power, raw_ms, step=step
        )

    def _fold(
        self, t: int, values: dict[str, float], keep_raw: bool
    ) -> tuple[dict[str, PowerStats], tuple[int, ...]]:
        """The window's power reads as means in `values`, stats and raw_ms; starts a new window."""
        power: dict[str, PowerStats] = {}
        keep_ms = keep_raw
        for i, probe in enumerate(self.power):
            raw = self._raws[i]
            good = [v for v in raw if v is not None]
            if good:
                values[probe.key] = _compact(round(sum(good) / len(good), 2))
                low, high = min(good), max(good)
                spread = high - low >= self.raw_min_spread_w or len(good) < len(raw)
                keep_ms = keep_ms or spread
                power[self._names[i]] = PowerStats(
                    low, high, tuple(raw) if spread or keep_raw else ()
                )
            raw.clear()
            last = self._last[i]
            self._lo[i] = math.inf if last is None else last
            self._hi[i] = -math.inf if last is None else last
        raw_ms = tuple((x - t) // 1_000_000 for x in self._times) if keep_ms and power else ()
        self._times.clear()
        return power, raw_ms

    def close(self) -> None:
        for probe in (*self.power, *self.slow):
            probe.close()
