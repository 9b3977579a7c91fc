"""The sampler's threads: device workers, the memory worker, and the stall watchdog.

Every thread is a daemon thread: one stuck in a kernel read (D state) cannot be joined or
interrupted, and must not keep the recorder from exiting. Each announces its reads in a
`ReadContext`; the watchdog turns a read older than the stall limit into `sensor_stall`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from kmsgd.ring.events import EventName, SensorEvent
from kmsgd.ring.payloads import Emit
from kmsgd.ring.records import Kind
from kmsgd.sensors.device import ProbeDevice, ReadContext, now_ns
from kmsgd.sensors.discover import GPU_DRIVERS
from kmsgd.sensors.memory import MemoryReader, memory_sample, read_kept, scan_holders

# (kind, JSON-able payload, urgent): the recorder's callback, serialised by the sampler
BUG_REPORT_EVERY_NS = 60_000_000_000
FAST_PERIOD_NS = 250_000_000  # loops this fast sleep and check the stop flag after each tick


class Worker(threading.Thread):
    """A paced loop; `tick` runs every `period_s` until `stop` is set. Missed ticks are skipped."""

    def __init__(self, name: str, period_s: float, stop: threading.Event, emit: Emit) -> None:
        super().__init__(name=name, daemon=True)
        self.period_ns = max(1, int(period_s * 1e9))
        self.stop_event = stop
        self.emit = emit
        self.ctx = ReadContext(self.report)
        self._last_bug = -BUG_REPORT_EVERY_NS

    def report(self, event: SensorEvent) -> None:
        self.emit(Kind.EVENT, event, False)

    def run(self) -> None:
        next_ns = now_ns()
        while not self.stop_event.is_set():
            try:
                self.tick()
            except Exception as err:  # a bug must not end sampling of the other devices
                self.ctx.busy = None
                self._bug(err)
            t = now_ns()
            next_ns += self.period_ns
            if next_ns < t:  # blocked or slow: resume the cadence from now
                next_ns = t + self.period_ns
            if self.period_ns <= FAST_PERIOD_NS:
                time.sleep((next_ns - t) / 1e9)  # cheaper than Event.wait at 10 Hz
            else:
                self.stop_event.wait((next_ns - t) / 1e9)
        self.finish()

    def _bug(self, err: Exception) -> None:
        """Report a bug in a tick, at most once a minute: one that repeats must not flood."""
        t = now_ns()
        if t - self._last_bug < BUG_REPORT_EVERY_NS:
            return
        self._last_bug = t
        detail = repr(err)[:200]
        self.report(
            SensorEvent(EventName.SENSOR_ERROR, self.name, "", t // 1000, "internal", detail)
        )

    def tick(self) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Called in the thread after the loop ends (close files)."""


class DeviceWorker(Worker):
    """Samples its devices: power every tick, a record every `ratio` ticks, and an urgent
    partial record at once when a device's power steps (see `ProbeDevice`)."""

    def __init__(
        self, name: str, power_hz: float, sensor_hz: float, stop: threading.Event, emit: Emit
    ) -> None:
        fast = max(power_hz, sensor_hz)
        super().__init__(name, 1.0 / fast, stop, emit)
        self.fast_ns, self.slow_ns = self.period_ns, max(1, int(1e9 / sensor_hz))
        self.fast_ratio = max(1, round(fast / sensor_hz))
        self.ratio = self.fast_ratio
        self.devices: tuple[ProbeDevice, ...] = ()  # replaced whole by the sampler on rescans
        self._current: tuple[ProbeDevice, ...] = ()
        self._count = 0
        # incident mode (kmsgd/record/incident_mode.py): every sensor at `boost_period_ns` and a
        # record every read until `boost_until_ns` (monotonic), on workers holding a GPU
        self.boost_until_ns = 0
        self.boost_period_ns = self.fast_ns
        self._boosted = False

    @property
    def has_gpu(self) -> bool:
        """A GPU among the devices: an amdgpu card, an NVML GPU, or the hwmon chip of a GPU
        driver (nouveau, i915, xe; an amdgpu chip not merged with its card's files)."""
        return any(d.source in ("amdgpu", "nvml") or d.driver in GPU_DRIVERS for d in self.devices)

    def tick(self) -> None:
        devices = self.devices
        # has_gpu per tick: a rescan during an incident may bring a GPU to this worker
        boosted = now_ns() < self.boost_until_ns and self.has_gpu
        if boosted != self._boosted:
            self._boosted = boosted
            self._current = ()  # recompute the cadence below
        if devices is not self._current:
            for gone in set(self._current) - set(devices):
                gone.close()
            self._current = devices
            # only devices with power sensors need the fast rate; the rest wake once a record
            fast = any(d.power for d in devices)
            self.period_ns = self.fast_ns if fast else self.slow_ns
            self.ratio = self.fast_ratio if fast else 1
            if self._boosted:
                self.period_ns, self.ratio = self.boost_period_ns, 1
            self._count = 0
        self._count += 1
        record_now = self._count % self.ratio == 0
        for device in devices:
            # a power step cuts the second short: its reads so far are written urgently
            cut = device.sample_power(self.ctx, cut=not record_now)
            if cut is not None:
                self.emit(Kind.SAMPLE, cut, True)
            if record_now:
                sample = device.sample(self.ctx)
                if sample is not None:
                    self.emit(Kind.SAMPLE, sample, sample.step is not None)

    def finish(self) -> None:
        for device in self._current:
            device.close()


class MemoryWorker(Worker):
    """meminfo and PSI every tick; the top memory holders every `procs_every` ticks."""

    def __init__(
        self,
        proc_root: Path,
        sensor_hz: float,
        procs_interval_s: float,
        full_scan_s: float,
        top: int,
        gpu_by_pid: Callable[[], Mapping[int, int]],
        stop: threading.Event,
        emit: Emit,
    ) -> None:
        super().__init__("kmsgd-memory", 1.0 / sensor_hz, stop, emit)
        self.base_period_ns = self.period_ns
        self.boost_until_ns = 0  # incident mode: meminfo and PSI at boost_period_ns until then
        self.boost_period_ns = self.period_ns
        self.proc_root = proc_root
        self.reader = MemoryReader(proc_root)
        self.procs_every = max(1, round(procs_interval_s * sensor_hz))
        self.procs_interval_ns = int(procs_interval_s * 1e9)
        self._last_procs = -(10**18)
        self.full_every = max(1, round(full_scan_s / max(procs_interval_s, 1e-3)))
        self.top = top
        self.gpu_by_pid = gpu_by_pid
        self._count = 0
        self._scans = 0
        self._drm_pids: set[str] = set()

    def tick(self) -> None:
        t = now_ns()
        self.period_ns = self.boost_period_ns if t < self.boost_until_ns else self.base_period_ns
        ctx = self.ctx
        ctx.busy = (self.reader.meminfo.path, "memory", t)
        meminfo = read_kept(self.reader.meminfo)
        psi = {}
        for resource, f in self.reader.psi:
            ctx.busy = (f.path, "memory", now_ns())
            raw = read_kept(f)
            if raw is not None:
                psi[resource] = raw
        ctx.busy = None
        self.emit(Kind.SAMPLE, memory_sample(t // 1000, meminfo, psi), False)
        # by time, not by tick: a boosted memory rate must not scan processes faster
        if t - self._last_procs >= self.procs_interval_ns - self.period_ns // 2:
            self._last_procs = t
            self._scan()
        self._count += 1

    def _scan(self) -> None:
        # Walking every process's fds for DRM clients is the costly part: do it every
        # `full_scan_s`, and in between look only at pids known to hold DRM fds.
        full = self._scans % self.full_every == 0
        self._scans += 1
        t = now_ns()
        ctx, root = self.ctx, self.proc_root

        def mark(pid: str) -> None:  # per process, so a long scan of a big box is no "stall"
            ctx.busy = (f"{root}/{pid}", "procs", now_ns())

        sample, found = scan_holders(
            root, self.top, self.gpu_by_pid(), None if full else self._drm_pids, mark
        )
        self.ctx.busy = None
        self._drm_pids = found if full else self._drm_pids | found
        self.emit(Kind.SAMPLE, replace(sample, mono_us=t // 1000), False)

    def finish(self) -> None:
        self.reader.close()


class Watchdog(threading.Thread):
    """Notices reads blocked longer than `stall_s`: `sensor_stall` (urgent) when first seen,
    again every `repeat_s` while still blocked, and `sensor_stall_end` when the read returns."""

    def __init__(
        self,
        contexts: Callable[[], list[ReadContext]],
        stall_s: float,
        repeat_s: float,
        stop: threading.Event,
        emit: Emit,
    ) -> None:
        super().__init__(name="kmsgd-watchdog", daemon=True)
        self.contexts = contexts
        self.stall_ns = int(stall_s * 1e9)
        self.repeat_ns = int(repeat_s * 1e9)
        self.stop_event = stop
        self.emit = emit
        self.check_s = min(0.25, stall_s / 4)
        # ctx -> (the busy tuple reported, when last reported)
        self._reported: dict[int, tuple[tuple[str, str, int], int]] = {}

    def run(self) -> None:
        while not self.stop_event.wait(self.check_s):
            self.check(now_ns())

    def check(self, t: int) -> None:
        for ctx in self.contexts():
            busy = ctx.busy
            seen = self._reported.get(id(ctx))
            if seen is not None and seen[0] is not busy:
                path, device, start = seen[0]
                end = SensorEvent(
                    EventName.SENSOR_STALL_END,
                    path,
                    device,
                    t // 1000,
                    duration_s=(t - start) / 1e9,
                )
                self.emit(Kind.EVENT, end, True)
                del self._reported[id(ctx)]
                seen = None
            if busy is None or t - busy[2] < self.stall_ns:
                continue
            if seen is None or t - seen[1] >= self.repeat_ns:
                path, device, start = busy
                stall = SensorEvent(
                    EventName.SENSOR_STALL, path, device, t // 1000, duration_s=(t - start) / 1e9
                )
                self.emit(Kind.EVENT, stall, True)
                self._reported[id(ctx)] = (busy, t)
