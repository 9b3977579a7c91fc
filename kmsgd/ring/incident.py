"""The `incident` records (docs/ring-format.md, *Incident records*) and what the judge reads
of them.

Every record carries `record` (its name), `incident` (its number within the recorder's run)
and `mono_us`; its other fields are kept in the writer's order (`fields`), so a record
decoded and encoded again is the same bytes. What the post-mortem reads of each kind is
decoded once into `detail`: the trigger of a `start` or `trigger` record, the outcome of an
`end`, the blocked tasks and top GPU holder of a `procs` snapshot, the cards of a `gpus`
snapshot, a SysRq result, a capture that blocked. A GPU snapshot's cards stay attribute maps:
their keys are the sysfs files and NVML calls that box answered (kmsgd/sensors/gpu_snapshot.py).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kmsgd.ring.inventory import Attributes, JsonValue


class RecordName(enum.StrEnum):
    START = "start"
    TRIGGER = "trigger"
    PROCS = "procs"
    GPUS = "gpus"
    SYSRQ = "sysrq"
    CAPTURE_BLOCKED = "capture_blocked"
    END = "end"


class Source(enum.StrEnum):
    """Who saw a trigger: a kernel line, or the recorder itself (a symptom)."""

    KERNEL = "kernel"
    RECORDER = "recorder"


@dataclass(frozen=True, slots=True)
class Trigger:
    """What started (`start`) or extended (`trigger`) an incident; "" for what is missing."""

    trigger: str  # a signature tag or a symptom
    cls: str  # the incident class
    source: str  # a `Source` word
    line: str


@dataclass(frozen=True, slots=True)
class End:
    """How an incident ended. The figures are as the recorder wrote them (None: absent)."""

    trigger: str
    cls: str
    line: str
    reason: JsonValue  # quiet, budget, stopped
    duration_s: JsonValue
    triggers: JsonValue
    captured: Attributes = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BlockedTask:
    """A task in D state in a `procs` snapshot."""

    tid: int
    pid: int | None
    comm: JsonValue
    function: str  # `in`: the kernel function it waits in ("" when unknown)
    stack: tuple[str, ...] = ()  # /proc/PID/stack, innermost first


@dataclass(frozen=True, slots=True)
class GpuHolder:
    """The process holding the most GPU memory in a `procs` snapshot."""

    pid: JsonValue
    comm: JsonValue
    gpu_bytes: float  # 0 when absent


@dataclass(frozen=True, slots=True)
class Procs:
    blocked: tuple[BlockedTask, ...] = ()
    top_gpu: GpuHolder | None = None  # the first of `top_gpu`, when it is an object


@dataclass(frozen=True, slots=True)
class Gpus:
    cards: tuple[Attributes, ...] = ()  # per card: device, link hops, gpu_metrics, fences, nvml


@dataclass(frozen=True, slots=True)
class Sysrq:
    results: Attributes = field(default_factory=dict)  # key -> "ok" or the error


@dataclass(frozen=True, slots=True)
class CaptureBlocked:
    capture: JsonValue
    path: JsonValue
    blocked_s: JsonValue


Detail = Trigger | End | Procs | Gpus | Sysrq | CaptureBlocked | None


@dataclass(frozen=True, slots=True)
class IncidentRecord:
    """One `incident` record: its envelope, its other fields as written, and `detail`."""

    record: str  # a `RecordName` word; another writer's name is kept, with no detail
    incident: int
    mono_us: int
    fields: Attributes = field(default_factory=dict)
    detail: Detail = field(default=None, compare=False)

    @classmethod
    def of(cls, record: str, incident: int, mono_us: int, fields: Attributes) -> IncidentRecord:
        """The record a writer emits (and a reader decodes): `detail` read from `fields`."""
        return cls(record, incident, mono_us, fields, _detail(record, fields))

    def to_payload(self) -> dict[str, Any]:
        return {"record": self.record, "incident": self.incident, "mono_us": self.mono_us} | dict(
            self.fields
        )

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> IncidentRecord:
        """ValueError for a record that names no incident (nothing to group it with)."""
        number, mono = data.get("incident"), data.get("mono_us", 0)
        if not isinstance(number, int) or isinstance(number, bool):
            raise ValueError("incident record without an incident number")
        fields = {k: v for k, v in data.items() if k not in ("record", "incident", "mono_us")}
        mono_us = mono if isinstance(mono, int) and not isinstance(mono, bool) else 0
        return cls.of(str(data.get("record")), number, mono_us, fields)


def _text(value: object) -> str:
    return str(value) if value else ""


def _number(value: object) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _object(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _detail(record: str, f: Attributes) -> Detail:
    if record in (RecordName.START, RecordName.TRIGGER):
        return Trigger(
            _text(f.get("trigger")),
            _text(f.get("class")),
            _text(f.get("source")),
            _text(f.get("line")),
        )
    if record == RecordName.END:
        return End(
            _text(f.get("trigger")),
            _text(f.get("class")),
            _text(f.get("line")),
            f.get("reason"),
            f.get("duration_s"),
            f.get("triggers"),
            _object(f.get("captured")),
        )
    if record == RecordName.PROCS:
        return _procs(f)
    if record == RecordName.GPUS:
        cards = f.get("gpus")
        return Gpus(
            tuple(_object(c) for c in cards if isinstance(c, Mapping))
            if isinstance(cards, list)
            else ()
        )
    if record == RecordName.SYSRQ:
        return Sysrq({k: v for k, v in f.items() if len(k) == 1})
    if record == RecordName.CAPTURE_BLOCKED:
        return CaptureBlocked(f.get("capture"), f.get("path"), f.get("blocked_s"))
    return None


def _procs(f: Attributes) -> Procs:
    rows = f.get("blocked")
    blocked = []
    for t in rows if isinstance(rows, list) else ():
        if not isinstance(t, Mapping):
            continue
        tid, pid = t.get("tid"), t.get("pid")
        if not isinstance(tid, int):
            continue
        stack = t.get("stack")
        blocked.append(
            BlockedTask(
                tid,
                pid if isinstance(pid, int) else None,
                t.get("comm"),
                _text(t.get("in")),
                tuple(str(s) for s in stack) if isinstance(stack, list) else (),
            )
        )
    top = f.get("top_gpu")
    first = top[0] if isinstance(top, list) and top else None
    holder = (
        GpuHolder(first.get("pid"), first.get("comm"), _number(first.get("gpu_bytes")))
        if isinstance(first, Mapping)
        else None
    )
    return Procs(tuple(blocked), holder)
