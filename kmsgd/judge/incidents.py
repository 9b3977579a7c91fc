"""Incidents of one boot, read back from the ring's `incident` records, with their findings.

The recorder (kmsgd/record/incident_mode.py) writes per incident a `start` record, `trigger`
records for further triggers, snapshot records (`procs`, `gpus`, `sysrq`), `capture_blocked`
when a snapshot hung, and an `end` record unless the machine died first. This module turns
them into the report's `incidents` list: trigger, when it started and ended, what was
captured, and the few findings that matter (a task blocked in a driver call, a link trained
below its capability, AER counters climbing, a ring whose fences stopped, a GPU throttling).
Pure: entries in, `Incident` values out (report/render_incident.py says their findings).
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from kmsgd.judge.stacks import HUNG, KernelStack
from kmsgd.ring.incident import (
    BlockedTask,
    CaptureBlocked,
    End,
    Gpus,
    IncidentRecord,
    Procs,
    RecordName,
    Source,
    Sysrq,
    Trigger,
)
from kmsgd.ring.inventory import JsonValue
from kmsgd.ring.records import Entry, Kind

MAX_FINDINGS = 10
Stacks = Mapping[int, KernelStack]


def _iso(wall_us: int | None) -> str | None:
    if wall_us is None:
        return None
    return dt.datetime.fromtimestamp(wall_us / 1e6, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _gts(text: Any) -> float | None:
    """'16.0 GT/s PCIe' -> 16.0; '2.5 GT/s' -> 2.5; anything else None."""
    m = re.match(r"\s*([\d.]+)\s*GT/s", str(text or ""))
    return float(m.group(1)) if m else None


def incidents(
    entries: Sequence[Entry], hung_lines: Sequence[str] = (), stacks: Stacks | None = None
) -> list[Incident]:
    """The report's `incidents`: one per incident of the boot, oldest first.

    `entries`: the boot's `incident` records (others are ignored); `hung_lines`: the boot's
    hung-task kernel lines, which say how long a task had been blocked; `stacks`: the stacks
    the kernel printed (judge/stacks.py), for tasks whose snapshot could not read its own."""
    return [_one(group, hung_lines, stacks or {}) for group in _groups(entries)]


Group = list[tuple[Entry, IncidentRecord]]


def _groups(entries: Sequence[Entry]) -> list[Group]:
    """The incident records grouped per incident, in the order the incidents started. Each
    recorder process numbers its incidents from 1, and systemd may restart it within a boot:
    a second `start` of a number begins a new incident, which its later records join."""
    groups: list[Group] = []
    current: dict[int, Group] = {}  # number -> the latest incident of that number
    for e in sorted(entries, key=lambda e: e.serial):
        rec = e.data
        if e.kind is not Kind.INCIDENT or not isinstance(rec, IncidentRecord):
            continue
        if rec.incident not in current or rec.record == RecordName.START:
            current[rec.incident] = []
            groups.append(current[rec.incident])
        current[rec.incident].append((e, rec))
    return groups


def _one(group: Group, hung_lines: Sequence[str], stacks: Stacks) -> Incident:
    by = _by_record(group)
    start = by.get(RecordName.START, [None])[0]
    end = by.get(RecordName.END, [None])[-1]
    s = start[1].detail if start is not None else None
    e = end[1].detail if end is not None else None
    s = s if isinstance(s, Trigger) else None
    e = e if isinstance(e, End) else _NO_END
    procs = _details(by, RecordName.PROCS, Procs)
    gpus = _details(by, RecordName.GPUS, Gpus)
    captured: dict[str, JsonValue] = dict(e.captured)
    captured.setdefault("procs", len(procs))
    captured.setdefault("gpus", len(gpus))
    sysrq = _details(by, RecordName.SYSRQ, Sysrq)
    if sysrq:
        captured["sysrq"] = dict(sysrq[0][1].results)
    blocked = [b for _, b in _details(by, RecordName.CAPTURE_BLOCKED, CaptureBlocked)]
    first_wall = group[0][0].wall_us
    stuck = _blocked(procs, hung_lines, stacks)
    findings: list[Finding] = [
        *stuck,
        *_links(gpus),
        *_gpu_state(gpus),
        *_top_gpu_holder(procs),
        *(SnapshotBlocked(b.capture, b.blocked_s, b.path) for b in blocked),
    ]
    if e.reason == "budget":
        findings.append(BudgetSpent())
    triggers = [t for _, t in _details(by, RecordName.TRIGGER, Trigger)]
    lead = _lead(s, triggers)
    lead_trigger = lead.trigger if lead is not None else None
    return Incident(
        trigger=(lead.trigger if lead else "") or e.trigger or "",
        cls=(lead.cls if lead else "") or e.cls or "",
        line=(lead.line if lead else "") or e.line or "",
        started_by=s.trigger if s is not None else "",
        started=_iso(start[0].wall_us if start is not None else first_wall),
        ended=_iso(end[0].wall_us) if end is not None else None,
        end_reason=e.reason if end is not None else "boot ended during the incident",
        duration_s=e.duration_s
        if end is not None
        else round((group[-1][0].wall_us - first_wall) / 1e6, 1),
        triggers=e.triggers or 1 + len(by.get(RecordName.TRIGGER, [])),
        other_triggers=tuple(
            sorted(
                {
                    x.trigger
                    for x in (*((s,) if s is not None else ()), *triggers)
                    if x.trigger and x.trigger != lead_trigger
                }
            )[:8]
        ),
        captured=captured,
        findings=tuple(findings[:MAX_FINDINGS]),
        blocked=tuple(stuck),
    )


# An incident whose `end` record is missing (the machine died first) or damaged.
_NO_END = End("", "", "", None, None, None)

_D = TypeVar("_D", Procs, Gpus, Sysrq, CaptureBlocked, Trigger)


def _details(by: dict[str, Group], name: RecordName, cls: type[_D]) -> list[tuple[Entry, _D]]:
    return [(e, r.detail) for e, r in by.get(name, []) if isinstance(r.detail, cls)]


def _lead(start: Trigger | None, triggers: list[Trigger]) -> Trigger | None:
    """The trigger an incident is named after: the one that started it, unless that was the
    recorder's own symptom (a late heartbeat, a slow sensor read: a loaded host shows them
    too) and the kernel then said what was wrong (a soft lockup, a hung task)."""
    if start is None or start.source != Source.RECORDER:
        return start
    return next((t for t in triggers if t.source == Source.KERNEL), start)


def _by_record(group: Group) -> dict[str, Group]:
    out: dict[str, Group] = {}
    for e, rec in group:
        out.setdefault(rec.record, []).append((e, rec))
    return out


@dataclass(frozen=True, slots=True)
class Blocked:
    """Tasks an incident saw stuck in D state in one kernel function, until its last snapshot."""

    function: str
    tasks: int
    comm: str  # the task blocked longest
    pid: int | None
    seconds: float
    stack: tuple[str, ...] = ()  # its frames, innermost first
    stack_from: str = ""  # "proc" (/proc/PID/stack), "hung_task" or "sysrq" (the kernel log)

    def __str__(self) -> str:
        how_long = f" for {self.seconds:.0f} s" if self.seconds >= 1 else ""
        who = f"{self.comm} ({self.pid})"
        if self.tasks == 1:
            return f"{who} blocked in {self.function}{how_long}"
        return f"{self.tasks} tasks blocked in {self.function}, longest {who}{how_long}"


@dataclass(frozen=True, slots=True)
class SlowLink:
    """A PCIe hop trained below its capability (GT/s and lanes, as sysfs says them)."""

    device: str
    speed_gts: float
    width: JsonValue
    max_speed_gts: float
    max_width: JsonValue


class AerSeverity(enum.StrEnum):
    """The uncorrectable AER classes a hop counts (drivers/pci/pcie/aer.c), as its sysfs files
    `aer_dev_<severity>` and their `TOTAL_ERR_<SEVERITY>` lines name them."""

    NONFATAL = "nonfatal"
    FATAL = "fatal"


@dataclass(frozen=True, slots=True)
class AerErrors:
    """A hop's AER `nonfatal` or `fatal` error total (drivers/pci/pcie/aer.c)."""

    device: str
    severity: AerSeverity
    total: JsonValue


@dataclass(frozen=True, slots=True)
class AerClimbing:
    """Correctable AER errors that grew between the first and the last GPU snapshot."""

    device: str
    added: int
    span_s: float


@dataclass(frozen=True, slots=True)
class Throttling:
    """amdgpu gpu_metrics' throttle status in the last GPU snapshot."""

    device: str
    reasons: tuple[str, ...]
    hotspot_c: JsonValue
    power_w: JsonValue


@dataclass(frozen=True, slots=True)
class RingBehind:
    """A ring whose last emitted fence was never signaled (amdgpu_fence_info)."""

    device: str
    ring: JsonValue
    signaled: int
    emitted: int


@dataclass(frozen=True, slots=True)
class RuntimePm:
    """A GPU runtime-suspended, or in runtime PM error, during the incident."""

    device: str
    status: str


@dataclass(frozen=True, slots=True)
class NvmlCounter:
    """An NVML reading that is trouble when not zero."""

    THROTTLE: ClassVar[str] = "throttle_reasons"  # a bit mask
    REPLAY: ClassVar[str] = "pcie_replay_counter"

    device: str
    counter: str
    value: JsonValue


@dataclass(frozen=True, slots=True)
class GpuMemoryHolder:
    """The process holding the most GPU memory at the first process snapshot."""

    comm: JsonValue
    pid: JsonValue
    gib: float


@dataclass(frozen=True, slots=True)
class SnapshotBlocked:
    """A snapshot that passed its timeout, and the file it was reading."""

    capture: JsonValue
    blocked_s: JsonValue
    path: JsonValue


@dataclass(frozen=True, slots=True)
class BudgetSpent:
    """The incident's records reached their byte budget: the captures stopped."""


Finding = (
    Blocked
    | SlowLink
    | AerErrors
    | AerClimbing
    | Throttling
    | RingBehind
    | RuntimePm
    | NvmlCounter
    | GpuMemoryHolder
    | SnapshotBlocked
    | BudgetSpent
)


@dataclass(frozen=True, slots=True)
class Incident:
    """One incident of a boot: what started it (and what it is named after), when it ran,
    what was captured and what the captures show. Figures the recorder wrote are kept as it
    wrote them (`end_reason`, `duration_s`, `triggers`, `captured`)."""

    trigger: str  # the trigger it is named after (judge/incidents.py `_lead`)
    cls: str
    line: str
    started_by: str
    started: str | None  # ISO 8601 UTC
    ended: str | None  # None: the boot ended during the incident
    end_reason: JsonValue
    duration_s: JsonValue
    triggers: JsonValue
    other_triggers: tuple[str, ...] = ()
    captured: Mapping[str, JsonValue] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    blocked: tuple[Blocked, ...] = ()


def blocked_calls(
    entries: Sequence[Entry], hung_lines: Sequence[str] = (), stacks: Stacks | None = None
) -> list[Blocked]:
    """The D-state pile-ups of a boot's last incident with process snapshots, most tasks
    first: a hang's strongest culprit when the kernel named none (the verdict uses it)."""
    for group in reversed(_groups(entries)):
        procs = _details(_by_record(group), RecordName.PROCS, Procs)
        if procs:
            return _blocked(procs, hung_lines, stacks or {})
    return []


def _with_stack(task: BlockedTask, stacks: Stacks) -> tuple[str, tuple[str, ...], str]:
    """(function, stack, where the stack came from) of a snapshot's D-state task: its own
    /proc reads, else the stack the kernel printed for that thread (hung-task report, SysRq w)."""
    printed = stacks.get(task.tid) or stacks.get(task.pid if task.pid else -1)
    if task.stack:
        return task.function, task.stack, "proc"
    if printed is not None:
        return task.function or printed.function, printed.frames, printed.source
    return task.function, (), ""


def _blocked(
    procs: list[tuple[Entry, Procs]], hung_lines: Sequence[str], stacks: Stacks
) -> list[Blocked]:
    """The tasks in D state until the last snapshot, grouped by the function they wait in:
    "llama-server (4321) blocked in amdgpu_fence_wait_timeout for 118 s"."""
    if not procs:
        return []
    seen: dict[int, tuple[int, BlockedTask]] = {}  # tid -> (first wall, task)
    last_wall = procs[-1][0].wall_us
    for e, p in procs:
        for t in p.blocked:
            first = seen.get(t.tid, (e.wall_us, t))[0]
            seen[t.tid] = (first, t)
    last_tids = {t.tid for t in procs[-1][1].blocked}
    hung: dict[int, int] = {}
    for line in hung_lines:
        m = HUNG.search(line)
        if m:
            hung[int(m.group("pid"))] = max(hung.get(int(m.group("pid")), 0), int(m.group("s")))
    by_fn: dict[str, list[tuple[BlockedTask, float, tuple[str, ...], str]]] = {}
    for tid, (first, task) in seen.items():
        if tid not in last_tids and len(procs) > 1:
            continue  # it moved on: not stuck
        span = (last_wall - first) / 1e6
        span = max(span, float(hung.get(tid, 0)), float(hung.get(task.pid or 0, 0)))
        fn, stack, source = _with_stack(task, stacks)
        by_fn.setdefault(fn or "?", []).append((task, span, stack, source))
    out = []
    for fn, tasks in sorted(by_fn.items(), key=lambda kv: -len(kv[1])):
        tasks.sort(key=lambda ts: -ts[1])
        task, span, stack, source = tasks[0]
        out.append(Blocked(fn, len(tasks), str(task.comm), task.pid, span, stack, source))
    return out[:4]


def _links(gpus: list[tuple[Entry, Gpus]]) -> list[Finding]:
    """Links below capability, and AER counters that climbed between two snapshots."""
    if not gpus:
        return []
    out: list[Finding] = []
    first = _hops(gpus[0])
    for dev, hop in first.items():
        cur, cap = _gts(hop.get("current_link_speed")), _gts(hop.get("max_link_speed"))
        w, wmax = hop.get("current_link_width"), hop.get("max_link_width")
        slow = cur is not None and cap is not None and cur < cap
        narrow = isinstance(w, int) and isinstance(wmax, int) and w < wmax
        if slow or narrow:
            out.append(SlowLink(dev, cur or 0, w, cap or 0, wmax))
        for kind in AerSeverity:
            total = (hop.get(f"aer_{kind}") or {}).get(f"TOTAL_ERR_{kind.upper()}")
            if total:
                out.append(AerErrors(dev, kind, total))
    if len(gpus) > 1:
        last = _hops(gpus[-1])
        span = (gpus[-1][0].wall_us - gpus[0][0].wall_us) / 1e6
        for dev, hop in last.items():
            before = (first.get(dev, {}).get("aer_correctable") or {}).get("TOTAL_ERR_COR")
            after = (hop.get("aer_correctable") or {}).get("TOTAL_ERR_COR")
            if isinstance(before, int) and isinstance(after, int) and after > before:
                out.append(AerClimbing(dev, after - before, span))
    return out


def _hops(snap: tuple[Entry, Gpus]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    cards: tuple[Mapping[str, Any], ...] = snap[1].cards  # sysfs attribute maps, read by key
    for gpu in cards:
        for hop in gpu.get("link") or []:
            if isinstance(hop, dict) and hop.get("device"):
                out.setdefault(str(hop["device"]), hop)
    return out


def _gpu_state(gpus: list[tuple[Entry, Gpus]]) -> list[Finding]:
    """Throttling, stuck rings, suspended devices: from the last GPU snapshot."""
    if not gpus:
        return []
    out: list[Finding] = []
    cards: tuple[Mapping[str, Any], ...] = gpus[-1][1].cards  # attribute maps, read by key
    for gpu in cards:
        dev = str(gpu.get("device", "?"))
        m = gpu.get("gpu_metrics") or {}
        if m.get("throttling"):
            reasons = tuple(m["throttling"])
            temp, power = m.get("temperature_hotspot_c"), m.get("socket_power_w")
            out.append(Throttling(dev, reasons, temp, power))
        for ring in gpu.get("fences") or []:
            sig, emit = ring.get("signaled"), ring.get("emitted")
            if isinstance(sig, int) and isinstance(emit, int) and emit > sig:
                out.append(RingBehind(dev, ring.get("ring"), sig, emit))
        status = (gpu.get("link") or [{}])[0].get("runtime_status")
        if status in ("suspended", "error"):
            out.append(RuntimePm(dev, status))
        nv = gpu.get("nvml") or {}
        if nv.get("throttle_reasons"):
            out.append(NvmlCounter(dev, NvmlCounter.THROTTLE, nv["throttle_reasons"]))
        if nv.get("pcie_replay_counter"):
            out.append(NvmlCounter(dev, NvmlCounter.REPLAY, nv["pcie_replay_counter"]))
    return out


def _top_gpu_holder(procs: list[tuple[Entry, Procs]]) -> list[Finding]:
    t = procs[0][1].top_gpu if procs else None
    if t is None:
        return []
    gib = t.gpu_bytes / (1 << 30)
    return [GpuMemoryHolder(t.comm, t.pid, gib)] if gib else []
