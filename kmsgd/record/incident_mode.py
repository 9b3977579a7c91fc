"""Incident mode: at the first sign of a hang, capture what the post-mortem will need.

A trigger (a kernel-facility line of a trigger signature, kmsgd/record/triggers.py, or a
symptom the recorder sees itself, kmsgd/record/symptoms.py: PSI memory full, MemAvailable
nearly gone, a sensor read blocked, its own heartbeat late) starts an incident. The kmsg loop
only matches and queues (`see_kernel`, ~1-2 µs a record); everything else runs in the
`kmsgd-incident` thread and in one short-lived capture thread per snapshot, each with its own
timeout:

1. every record durable at once for `durable_s` (the committer's flush window is skipped);
2. GPU sensors at `gpu_hz`, memory/PSI at `memory_hz` for `boost_s` (Sampler.boost);
3. `procs` snapshots (D-state tasks with stack and wchan, top RAM and GPU memory holders,
   load) and `gpus` snapshots (links, AER, runtime PM, gpu_metrics, fences, NVML state),
   kmsgd/sensors/snapshot.py and gpu_snapshot.py;
4. SysRq `w` once per incident (`l` when configured), written to /proc/sysrq-trigger
   (Documentation/admin-guide/sysrq.rst: the trigger file ignores the kernel.sysrq mask);
5. a device coredump scan at once; dumps saved during the incident are listed in it.

This module is the state machine (when an incident starts, extends, ends; what is due);
kmsgd/record/captures.py runs the captures. A capture still running at its timeout is
recorded (`capture_blocked`, with the path it was reading) and left behind. Bounds: one
incident per class per `rate_limit_s`; an incident ends `durable_s` after its last trigger
and lasts at most `max_s`; its records and the boosted samples stop at `max_bytes`. No fork,
no exec. Record shapes: docs/ring-format.md (*Incident records*).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kmsgd.config import Config, IncidentConfig
from kmsgd.record import symptoms, triggers
from kmsgd.record.captures import CaptureKind, Captures
from kmsgd.ring.events import DumpEvent, EventName, SensorEvent
from kmsgd.ring.incident import IncidentRecord
from kmsgd.ring.inventory import Attributes
from kmsgd.ring.payloads import Emit, Payload
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import MemorySample

TICK_S = 0.25
MAX_TRIGGER_RECORDS = 32  # then only a trigger tag new to the incident is recorded
MAX_BLOCKED_REPORTS = 8
STALE_TRIGGER_S = 60.0  # a backlog line older than this (read at start) starts nothing


def _mono() -> float:
    return time.monotonic()


@dataclass
class _Incident:
    number: int
    tag: str
    cls: str
    line: str
    start: float
    end_at: float
    boost_until: float
    triggers: int = 1
    classes: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    bytes: int = 0
    captured: dict[str, Any] = field(default_factory=dict)
    schedule: list[tuple[float, CaptureKind]] = field(default_factory=list)
    over_budget: bool = False


class IncidentMode:
    """The recorder's incident manager. `see_kernel`, `symptom` and `observe` may be called
    from any thread and never block; `start`/`stop` run the manager thread."""

    def __init__(
        self,
        cfg: IncidentConfig,
        emit: Emit,
        *,
        proc_root: Path,
        sys_root: Path,
        set_urgent_until: Callable[[float], None],
        log: Any = None,
        clock: Callable[[], float] = _mono,
    ) -> None:
        self.cfg = cfg
        self.emit = emit
        self.proc_root, self.sys_root = proc_root, sys_root
        self.set_urgent_until = set_urgent_until
        self.log = log
        self.clock = clock
        self.sampler: Any = None  # kmsgd.sensors.sampler.Sampler once attached
        self._queue: deque[tuple[str, str, str, str, float]] = deque(maxlen=1024)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bursts: dict[str, deque[float]] = {}
        self._last_start: dict[str, float] = {}  # class -> when an incident of it started
        self.current: _Incident | None = None
        self._count = 0
        self.suppressed = 0
        self.captures = Captures(
            cfg,
            self._emit_record,
            proc_root=proc_root,
            sys_root=sys_root,
            clock=clock,
            sampler=lambda: self.sampler,
        )
        self._captures = self.captures.running  # the same dict (tests join its threads)

    # -- any thread ---------------------------------------------------------------------------
    def see_kernel(self, raw: bytes, backlog: bool = False) -> None:
        """The kmsg loop's hook: match one raw record; queue a trigger when it is one.
        `backlog`: read from the kernel's buffer at start, so maybe long over."""
        hit = triggers.match(raw)
        if hit is None:
            return
        now = self.clock()
        if hit.burst > 1:
            times = self._bursts.setdefault(hit.tag, deque(maxlen=hit.burst))
            times.append(now)
            if len(times) < hit.burst or now - times[0] > hit.window_s:
                return
        age = triggers.age_s(raw) if backlog else None
        if age is not None and age > STALE_TRIGGER_S:
            return  # logged long before this recorder started
        self._queue.append(("kernel", hit.tag, hit.cls, hit.text, now))
        self._wake.set()

    def symptom(self, tag: str, cls: str, text: str) -> None:
        """A symptom the recorder saw itself (memory, stalls, a late heartbeat)."""
        self._queue.append(("recorder", tag, cls, text, self.clock()))
        self._wake.set()

    def observe(self, kind: Kind, data: Payload, nbytes: int) -> None:
        """Every non-kernel record on its way to the ring: symptoms in samples and events,
        and the bytes an incident costs."""
        inc = self.current
        if inc is not None and (kind is Kind.INCIDENT or kind is Kind.SAMPLE):
            inc.bytes += nbytes
        cfg = self.cfg
        if isinstance(data, MemorySample):
            for found in symptoms.memory(data, cfg):
                self.symptom(*found)
        elif isinstance(data, SensorEvent) and data.event is EventName.SENSOR_STALL:
            if data.duration_s >= cfg.stall_s:
                self._stall(data.path, data.device, data.duration_s)
        elif (
            isinstance(data, DumpEvent)
            and data.event is EventName.DEVCOREDUMP_SAVED
            and inc is not None
        ):
            dumps = inc.captured.setdefault("devcoredumps", [])
            if len(dumps) < 8:
                dumps.append(data.saved_path)

    def heartbeat_late(self, late_s: float) -> None:
        """The kmsg loop woke `late_s` after a heartbeat was due."""
        if late_s >= self.cfg.heartbeat_late_s:
            self.symptom(*symptoms.heartbeat_late(late_s))

    def attach_sampler(self, sampler: Any) -> None:
        self.sampler = sampler

    def _stall(self, path: str, device: str, duration: float) -> None:
        self.symptom(*symptoms.stall(path, device, duration))

    # -- the manager thread ----------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kmsgd-incident", daemon=True)
        self._thread.start()

    def stop(self, end: bool = True) -> None:
        """End the thread; an open incident gets its `end` record (reason `stopped`) when
        `end`. Safe to call twice."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        if end and self.current is not None:
            self._end(self.current, "stopped")

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(TICK_S)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.tick()
            except Exception as err:  # incident mode must never take the recorder down
                if self.log is not None:
                    self.log.error("incident_failed", error=repr(err))

    def tick(self) -> None:
        """Take queued triggers, run due captures, check running ones, end a quiet incident."""
        now = self.clock()
        while self._queue:
            self._trigger(*self._queue.popleft())
        self._watch_sampler(now)
        inc = self.current
        self._check_captures(now)
        if inc is None:
            return
        if inc.bytes > self.cfg.max_bytes and not inc.over_budget:
            inc.over_budget = True
            inc.boost_until = now
            if self.sampler is not None:
                self.sampler.boost(0, self.cfg.gpu_hz, self.cfg.memory_hz)
            inc.captured["budget_hit_at_s"] = round(now - inc.start, 1)
        due = [s for s in inc.schedule if s[0] <= now]
        inc.schedule = [s for s in inc.schedule if s[0] > now]
        for _, what in due:
            if not inc.over_budget:
                self._capture(inc, what, now)
        if now >= inc.end_at:
            self._end(inc, "budget" if inc.over_budget else "quiet")

    def _watch_sampler(self, now: float) -> None:
        """A sensor read blocked ≥ stall_s is a symptom (the watchdog reports at 1 s and then
        every 10 s; this looks at the read in progress)."""
        s = self.sampler
        if s is None:
            return
        t_ns = time.monotonic_ns()
        with contextlib.suppress(Exception):
            for ctx in s.contexts():
                busy = ctx.busy
                if busy is not None and (t_ns - busy[2]) / 1e9 >= self.cfg.stall_s:
                    self._stall(busy[0], busy[1], (t_ns - busy[2]) / 1e9)

    def _trigger(self, source: str, tag: str, cls: str, text: str, when: float) -> None:
        cfg = self.cfg
        inc = self.current
        if inc is not None:
            inc.triggers += 1
            if cls not in inc.classes and not inc.over_budget:
                # a new kind of trouble (a soft lockup in an incident a late heartbeat
                # started): snapshot it now, not only at the first trigger's offsets
                snaps = (
                    (CaptureKind.PROCS, cfg.procs_snapshot),
                    (CaptureKind.GPUS, cfg.gpu_snapshot),
                )
                inc.schedule += [(when, what) for what, on in snaps if on]
                inc.schedule.sort()
            if cls not in inc.classes or tag != inc.tag:
                inc.classes.add(cls)
                self._last_start.setdefault(cls, when)
            inc.end_at = min(inc.start + cfg.max_s, max(inc.end_at, when + cfg.durable_s))
            if cfg.boost and not inc.over_budget:
                inc.boost_until = min(
                    inc.start + cfg.max_s, max(inc.boost_until, when + cfg.boost_s)
                )
                if self.sampler is not None:
                    self.sampler.boost(inc.boost_until - when, cfg.gpu_hz, cfg.memory_hz)
            if cfg.durable:
                self.set_urgent_until(inc.end_at)
            # past the cap, a flood of one tag must not hide a new one (docs/crash-lab.md)
            if inc.triggers <= MAX_TRIGGER_RECORDS or tag not in inc.tags:
                self._record(inc, "trigger", trigger=tag, cls=cls, source=source, line=text)
            inc.tags.add(tag)
            return
        last = self._last_start.get(cls)
        if last is not None and when - last < cfg.rate_limit_s:
            self.suppressed += 1
            return
        self._count += 1
        inc = _Incident(
            self._count,
            tag,
            cls,
            text,
            when,
            end_at=when + cfg.durable_s,
            boost_until=when + (cfg.boost_s if cfg.boost else 0),
            classes={cls},
            tags={tag},
        )
        self.current = inc
        self._last_start[cls] = when
        if cfg.durable:
            self.set_urgent_until(inc.end_at)
        actions = {
            "durable_s": cfg.durable_s if cfg.durable else 0,
            "boost_s": cfg.boost_s if cfg.boost else 0,
            "gpu_hz": cfg.gpu_hz,
            "memory_hz": cfg.memory_hz,
            "procs": cfg.procs_snapshot,
            "gpus": cfg.gpu_snapshot,
            "sysrq": ("w" if cfg.sysrq_w else "") + ("l" if cfg.sysrq_l else ""),
            "devcoredump": cfg.devcoredump,
        }
        self._record(inc, "start", trigger=tag, cls=cls, source=source, line=text, actions=actions)
        if self.log is not None:
            self.log.warning("incident_started", trigger=tag, cls=cls, line=text[:200])
        if cfg.boost and self.sampler is not None:
            self.sampler.boost(cfg.boost_s, cfg.gpu_hz, cfg.memory_hz)
        if cfg.devcoredump and self.sampler is not None:
            self.sampler.collect_dumps_now()
        for offset in cfg.procs_at_s if cfg.procs_snapshot else ():
            inc.schedule.append((when + offset, CaptureKind.PROCS))
        for offset in cfg.gpus_at_s if cfg.gpu_snapshot else ():
            inc.schedule.append((when + offset, CaptureKind.GPUS))
        if cfg.sysrq_w or cfg.sysrq_l:
            inc.schedule.append((when, CaptureKind.SYSRQ))
        inc.schedule.sort()
        self.tick_captures_now(inc, when)

    def tick_captures_now(self, inc: _Incident, now: float) -> None:
        """Start the captures due at the incident's start without waiting for the next tick."""
        due = [s for s in inc.schedule if s[0] <= now]
        inc.schedule = [s for s in inc.schedule if s[0] > now]
        for _, what in due:
            self._capture(inc, what, now)

    # -- captures ----------------------------------------------------------------------------
    def _capture(self, inc: _Incident, what: CaptureKind, now: float) -> None:
        if not self.captures.start(what, inc.number, inc.start, now, self._captured):
            skipped = inc.captured.setdefault("skipped", [])
            if len(skipped) < MAX_BLOCKED_REPORTS:
                skipped.append({"capture": what, "why": "the previous one is still blocked"})

    def _captured(self, number: int, name: CaptureKind) -> None:
        """A capture thread emitted its record: count it in the incident it belongs to."""
        inc = self.current
        if inc is not None and inc.number == number:
            inc.captured[name] = inc.captured.get(name, 0) + 1

    def _check_captures(self, now: float) -> None:
        inc = self.current
        for cap in self.captures.newly_blocked(now):
            if inc is not None:
                blocked_list = inc.captured.setdefault("blocked", [])
                if len(blocked_list) < MAX_BLOCKED_REPORTS:
                    blocked_list.append({"capture": cap.capture, "path": cap.path})
                self._record(
                    inc,
                    "capture_blocked",
                    capture=cap.capture,
                    path=cap.path,
                    blocked_s=cap.blocked_s,
                )
            if self.log is not None:
                self.log.warning("incident_capture_blocked", capture=cap.capture, path=cap.path)

    # -- records ----------------------------------------------------------------------------
    def _record(self, inc: _Incident, name: str, **data: Any) -> None:
        self._emit_record(inc.number, name, {"at_s": round(self.clock() - inc.start, 1), **data})

    def _emit_record(self, number: int, name: str, fields: Attributes) -> None:
        data = dict(fields)
        if "cls" in data:
            data["class"] = data.pop("cls")  # last: the record's key order is its format
        record = IncidentRecord.of(name, number, time.monotonic_ns() // 1000, data)
        with contextlib.suppress(Exception):  # the recorder counts its own failures
            self.emit(Kind.INCIDENT, record, True)

    def _end(self, inc: _Incident, reason: str) -> None:
        now = self.clock()
        self.current = None
        if self.sampler is not None and inc.boost_until > now:
            self.sampler.boost(0, self.cfg.gpu_hz, self.cfg.memory_hz)
        captured = dict(inc.captured)
        captured["boosted_s"] = round(max(0.0, min(inc.boost_until, now) - inc.start), 1)
        captured["durable_s"] = round(now - inc.start, 1) if self.cfg.durable else 0
        self._record(
            inc,
            "end",
            trigger=inc.tag,
            cls=inc.cls,
            line=inc.line,
            reason=reason,
            duration_s=round(now - inc.start, 1),
            triggers=inc.triggers,
            classes=sorted(inc.classes),
            suppressed=self.suppressed,
            bytes=inc.bytes,
            captured=captured,
        )
        self.suppressed = 0
        if self.log is not None:
            self.log.warning("incident_ended", trigger=inc.tag, reason=reason, bytes=inc.bytes)


def build(cfg: Config, emit: Emit, committer: Any, log: Any) -> IncidentMode | None:
    """The recorder's incident manager, or None when [incident] enabled is false."""
    if not cfg.incident.enabled:
        return None

    def urgent_until(deadline: float) -> None:
        committer.urgent_until = deadline

    return IncidentMode(
        cfg.incident,
        emit,
        proc_root=cfg.proc_root,
        sys_root=cfg.sys_root,
        set_urgent_until=urgent_until,
        log=log,
    )
