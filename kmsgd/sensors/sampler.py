"""The sampler the recorder runs: `Sampler(...).start(emit)` ... `stop()`.

It never blocks its caller: discovery, NVML initialisation, the inventory and devcoredump copies
run in a housekeeping thread; each device is sampled by a worker thread (at most `max_workers`,
extra devices share them); a watchdog reports reads that block. Thread count is bounded:
max_workers + memory + housekeeping + watchdog + udev. `emit` is called from these threads,
one call at a time (the sampler serialises them), and must not raise; if it does, the record
is dropped and counted in `emit_failures`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kmsgd.ring.inventory import Inventory
from kmsgd.ring.payloads import Emit, Payload
from kmsgd.ring.records import Kind
from kmsgd.sensors import discover, nvml, udev
from kmsgd.sensors.devcoredump import DumpCollector
from kmsgd.sensors.device import ProbeDevice, ReadContext, now_ns
from kmsgd.sensors.inventory_scan import read_inventory
from kmsgd.sensors.workers import DeviceWorker, MemoryWorker, Watchdog, Worker

RESCAN_SUBSYSTEMS = frozenset({"drm", "hwmon", "pci"})


@dataclass(frozen=True, slots=True)
class SamplerConfig:
    """Rates and bounds: power at 10 Hz (a PSU trip's step is in the last 0.3 s), else 1 Hz."""

    power_hz: float = 10.0
    sensor_hz: float = 1.0  # slow sensors, memory, and the record rate of every device
    procs_interval_s: float = 5.0
    procs_full_scan_s: float = 60.0  # walk every process's fds for DRM clients this often
    top_procs: int = 5
    stall_after_s: float = 1.0
    stall_repeat_s: float = 10.0
    rescan_s: float = 60.0  # rediscover devices this often even without udev events
    devcoredump_scan_s: float = 5.0
    devcoredump_max_bytes: int = 32 << 20
    devcoredump_max_files: int = 8
    raw_min_spread_w: float = 1.0  # keep a second's raw power reads when they spread this much
    # a power read this many times and this many W above or below the previous read or the
    # running second's lowest/highest read is a step: the second so far is written urgently
    step_ratio: float = 3.0  # 0 turns step detection off
    step_min_w: float = 50.0
    step_gap_s: float = 0.5  # at most one urgent step record per device this often
    max_workers: int = 16
    use_udev: bool = True  # pyudev enumeration + hotplug events
    use_nvml: bool = True


class Sampler:
    """All telemetry sources behind one `start(emit)` / `stop()`."""

    def __init__(
        self,
        *,
        sys_root: Path = Path("/sys"),
        proc_root: Path = Path("/proc"),
        state_dir: str,
        config: SamplerConfig | None = None,
        nvml_loader: Callable[[], nvml.NvmlBinding | None] = nvml.load_nvml,
        monitor_factory: Callable[[], udev.Monitor | None] | None = None,
    ) -> None:
        self.sys_root, self.proc_root, self.state_dir = sys_root, proc_root, state_dir
        self.config = config or SamplerConfig()
        self.nvml_loader = nvml_loader
        cfg = self.config
        self.monitor_factory = monitor_factory or (
            (lambda: udev.open_monitor(use_pyudev=cfg.use_udev)) if cfg.use_udev else (lambda: None)
        )
        self.emit_failures = 0
        self._emit_lock = threading.Lock()
        self._emit: Emit | None = None
        self._stop = threading.Event()
        self._rescan = threading.Event()
        self._dumps_due = threading.Event()
        self._workers: list[DeviceWorker] = []
        self._threads: list[threading.Thread] = []
        self._assigned: dict[str, tuple[discover.DeviceSpec | None, DeviceWorker, ProbeDevice]] = {}
        self._gpu_procs = nvml.GpuProcesses()
        self._boost = (100_000_000, 0)  # incident mode: (period ns, until ns) for GPU workers
        self._inventory: Inventory | None = None
        self._dumps = DumpCollector(
            sys_root, state_dir, cfg.devcoredump_max_bytes, cfg.devcoredump_max_files
        )

    # -- the recorder's side -------------------------------------------------------------
    def start(self, emit: Emit) -> None:
        """Start every thread and return at once; records flow to `emit` from then on."""
        self._emit = emit
        cfg = self.config
        self._house = _House(self, self._stop, self.emit)
        memory = MemoryWorker(
            self.proc_root,
            cfg.sensor_hz,
            cfg.procs_interval_s,
            cfg.procs_full_scan_s,
            cfg.top_procs,
            self._gpu_procs.by_pid,
            self._stop,
            self.emit,
        )
        self._memory = memory
        watchdog = Watchdog(
            self.contexts, cfg.stall_after_s, cfg.stall_repeat_s, self._stop, self.emit
        )
        udev_thread = threading.Thread(target=self._watch_udev, name="kmsgd-udev", daemon=True)
        self._threads = [self._house, memory, watchdog, udev_thread]
        for thread in self._threads:
            thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop and join the threads; one stuck in a kernel read is left behind (daemon)."""
        self._stop.set()
        deadline = now_ns() + int(timeout_s * 1e9)
        for thread in [*self._threads, *self._workers]:
            thread.join(max(0.0, (deadline - now_ns()) / 1e9))
        with self._emit_lock:
            self._emit = None  # a thread that unblocks later must not write to a closed recorder

    def emit(self, kind: Kind, payload: Payload, urgent: bool) -> None:
        """Serialised call of the recorder's callback; its failures are counted, not raised."""
        with self._emit_lock:
            target = self._emit
            if target is None:  # not started, or stopped
                return
            try:
                target(kind, payload, urgent)
            except Exception:
                self.emit_failures += 1

    def contexts(self) -> list[ReadContext]:
        """Every thread's read context, for the watchdog."""
        found = [w.ctx for w in self._workers]
        found.append(self._memory.ctx)
        found.append(self._house.ctx)
        return found

    def boost(self, duration_s: float, gpu_hz: float, memory_hz: float) -> None:
        """Incident mode: every sensor of every GPU at `gpu_hz` (a record per read) and memory
        and PSI at `memory_hz`, for `duration_s` from now (0 ends it); the other hwmon chips
        (CPU, board, drives) unchanged. Each worker applies it while it holds a GPU, and a
        worker started later (a rescan) takes it too."""
        until = now_ns() + int(duration_s * 1e9) if duration_s > 0 else 0
        self._boost = (max(1, int(1e9 / gpu_hz)), until)
        for worker in list(self._workers):
            worker.boost_period_ns, worker.boost_until_ns = self._boost
        memory = getattr(self, "_memory", None)
        if memory is not None:
            memory.boost_period_ns = max(1, int(1e9 / memory_hz))
            memory.boost_until_ns = until

    def collect_dumps_now(self) -> None:
        """Ask the housekeeping thread to look for device coredumps at its next tick."""
        self._dumps_due.set()

    def nvml_gpus(self) -> list[tuple[str, Any, Any]]:
        """(PCI address, NVML binding, handle) of every NVIDIA GPU sampled (incident snapshots)."""
        house = getattr(self, "_house", None)
        if house is None or house.nvml is None:
            return []
        return [(g.device, house.nvml, g.handle) for g in house.nvml_gpus]

    def gpu_processes(self) -> Mapping[int, int]:
        """NVML's GPU memory per pid, as last read."""
        return self._gpu_procs.by_pid()

    @property
    def inventory(self) -> Inventory | None:
        """The last inventory emitted."""
        return self._inventory

    # -- housekeeping (runs in _House) ---------------------------------------------------
    def assign(
        self, wanted: Mapping[str, tuple[discover.DeviceSpec | None, ProbeDevice | None]]
    ) -> None:
        """Bring workers' device lists to `wanted` (key -> spec, prebuilt device or None)."""
        cfg = self.config
        raw = max(16, int(cfg.power_hz / cfg.sensor_hz) * 2 + 4)
        changed: set[DeviceWorker] = set()
        for key in list(self._assigned):
            spec, worker, _ = self._assigned[key]
            if key not in wanted or (spec is not None and wanted[key][0] != spec):
                del self._assigned[key]
                changed.add(worker)
        for key, (spec, prebuilt) in wanted.items():
            if key in self._assigned:
                continue
            if prebuilt is not None:
                device = prebuilt
            elif spec is not None:
                device = discover.build(spec, raw)
            else:
                continue
            device.raw_min_spread_w = cfg.raw_min_spread_w
            device.step_ratio, device.step_min_w = cfg.step_ratio, cfg.step_min_w
            device.step_gap_ns = int(cfg.step_gap_s * 1e9)
            worker = self._pick_worker()
            self._assigned[key] = (spec, worker, device)
            changed.add(worker)
        for worker in changed:
            worker.devices = tuple(d for _, w, d in self._assigned.values() if w is worker)

    def _pick_worker(self) -> DeviceWorker:
        if len(self._workers) < self.config.max_workers:
            cfg = self.config
            worker = DeviceWorker(
                f"kmsgd-dev{len(self._workers)}", cfg.power_hz, cfg.sensor_hz, self._stop, self.emit
            )
            worker.boost_period_ns, worker.boost_until_ns = self._boost
            self._workers.append(worker)
            worker.start()
            return worker
        load = {w: 0 for w in self._workers}
        for _, w, _ in self._assigned.values():
            load[w] += 1
        return min(self._workers, key=lambda w: load[w])

    def _watch_udev(self) -> None:
        monitor = self.monitor_factory()
        if monitor is None:
            return
        try:
            while not self._stop.is_set():
                event = monitor.receive(0.5)
                if event is None:
                    continue
                self.emit(Kind.DEVICE, event, True)
                if event.subsystem in RESCAN_SUBSYSTEMS:
                    self._rescan.set()
                elif event.subsystem == "devcoredump":
                    self._dumps_due.set()
        finally:
            monitor.close()


class _House(Worker):
    """Discovery, NVML, inventory and devcoredumps: everything that may block at start."""

    def __init__(self, sampler: Sampler, stop: threading.Event, emit: Emit) -> None:
        super().__init__("kmsgd-house", 1.0, stop, emit)
        self.s = sampler
        self.nvml: nvml.NvmlBinding | None = None
        self.nvml_gpus: list[nvml.NvmlGpu] = []
        self.last_scan = 0
        self.last_dumps = 0
        self.started = False

    def tick(self) -> None:
        s, cfg, t = self.s, self.s.config, now_ns()
        if not self.started:
            self.started = True
            self.collect_dumps()  # first: a dump from before our start expires soonest
            if cfg.use_nvml:
                self.ctx.busy = ("nvml:init", "nvidia", now_ns())
                self.nvml = s.nvml_loader()
                if self.nvml is not None:
                    raw = max(16, int(cfg.power_hz / cfg.sensor_hz) * 2 + 4)
                    self.nvml_gpus = nvml.open_gpus(self.nvml, s._gpu_procs, raw)
                self.ctx.busy = None
            self.rescan()
            return
        if s._rescan.is_set() or t - self.last_scan >= cfg.rescan_s * 1e9:
            s._rescan.clear()
            self.collect_dumps()
            self.rescan()
        elif s._dumps_due.is_set() or t - self.last_dumps >= cfg.devcoredump_scan_s * 1e9:
            s._dumps_due.clear()
            self.collect_dumps()

    def collect_dumps(self) -> None:
        self.last_dumps = now_ns()
        self.ctx.busy = ("devcoredump", "", self.last_dumps)
        events = self.s._dumps.collect()
        self.ctx.busy = None
        for event in events:
            self.emit(Kind.EVENT, event, True)

    def rescan(self) -> None:
        s = self.s
        self.last_scan = now_ns()
        self.ctx.busy = (f"{s.sys_root}/class/hwmon", "discovery", self.last_scan)
        paths = udev.list_devices(s.sys_root, "hwmon", s.config.use_udev)
        specs = discover.discover(s.sys_root, paths)
        wanted: dict[str, tuple[discover.DeviceSpec | None, ProbeDevice | None]] = {
            spec.device: (spec, None) for spec in specs
        }
        for gpu in self.nvml_gpus:
            wanted[f"nvml:{gpu.device}"] = (None, gpu)
        s.assign(wanted)
        self.ctx.busy = ("inventory", "", now_ns())
        extra = [nvml.gpu_entry(self.nvml, g) for g in self.nvml_gpus]
        inventory = read_inventory(s.sys_root, s.proc_root, extra)
        self.ctx.busy = None
        if s._inventory is None or not inventory.same_as(s._inventory):
            s._inventory = inventory
            self.emit(Kind.INVENTORY, inventory, True)
