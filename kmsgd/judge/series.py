"""The boot's last minutes as typed time series, for the picture of a post-mortem.

Everything is placed on one axis: seconds relative to the end (0 = the last sign of life for a
ring, the last line for a pasted log; earlier is negative). The window is the last
`WINDOW_S` seconds, or from the first incident trigger (ring) or the culprit's first line
(pasted log) when that is earlier. The final `WINDOW_S` are kept at the ring's own resolution
(per-second records, the 10 Hz power reads of the final `RAW_S`); what lies before is thinned to
at most `OLD_BUCKETS` buckets of a few samples each, so a report of a long incident stays small.

`kernel_series` needs only a Timeline (any log); `ring_series` adds the sensors, heartbeats
and incidents of one boot of the ring in one bounded pass over its frame headers.
Pure but for reading the ring.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kmsgd.catalogue.base import Severity
from kmsgd.judge.bootview import BootView
from kmsgd.judge.telemetry import GPU_DRIVERS
from kmsgd.judge.thinning import THIN_BUCKETS, THIN_PER_BUCKET, Thinner
from kmsgd.judge.timeline import Item, Timeline
from kmsgd.logparse.parsed import EVIDENCE_ORIGINS
from kmsgd.ring import frame
from kmsgd.ring.incident import IncidentRecord, RecordName, Source, Trigger
from kmsgd.ring.layout import Skimmed
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import KIND_CODES, Damaged, Entry, Kind
from kmsgd.ring.samples import DeviceSample, MemorySample

WINDOW_S = 600.0  # the default window, kept whole
WINDOW_US = int(WINDOW_S * 1e6)
RAW_S = 60.0  # the 10 Hz power reads are kept for the final minute
ZOOM_S = 2.0  # the zoom of the final seconds (a PSU trip's power step lives there)
# before the final WINDOW_S: at most this many buckets of the boot's thinned headers …
OLD_BUCKETS = THIN_BUCKETS // 2
OLD_PER_BUCKET = THIN_PER_BUCKET  # … of at most this many samples each (judge/thinning.py)
DENSITY_BINS = 120
MAX_MARKS = 400
OFFSET_S = 10.0  # samples this near the end map their CLOCK_MONOTONIC to the wall clock
_SAMPLE, _KERNEL = KIND_CODES[Kind.SAMPLE], KIND_CODES[Kind.KERNEL]
_PROCS = b'"sample":"procs"'
GIB = float(1 << 30)


@dataclass(frozen=True, slots=True)
class Trace:
    """One quantity over time: `t_s[i]` seconds from the end, value `v[i]`; `lo`/`hi` (same
    length, or empty) are the min/max of the reads behind each point."""

    label: str
    unit: str
    t_s: tuple[float, ...]
    v: tuple[float, ...]
    lo: tuple[float, ...] = ()
    hi: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class GpuTraces:
    """One GPU's power (per second, with min/max), raw 10 Hz reads, cap, temperatures."""

    device: str
    driver: str
    power: tuple[Trace, ...] = ()
    raw_power: tuple[Trace, ...] = ()
    cap_w: float | None = None
    temps: tuple[Trace, ...] = ()
    vram_used: Trace | None = None


class AxisClock(enum.StrEnum):
    """What the picture's 0 is measured on: the wall clock, or printk time when no line has a
    wall time (a pasted dmesg without -T)."""

    WALL = "wall"
    PRINTK = "printk"


@dataclass(frozen=True, slots=True)
class Mark:
    """A signature's line on the axis."""

    t_s: float
    tag: str
    severity: Severity | None  # the catalogue's, None for a tag it does not hold
    text: str
    when: str  # the line's own stamp, for the hover text


@dataclass(frozen=True, slots=True)
class Span:
    """An interval on the axis; `end_s` None when it lasted to the end."""

    label: str
    start_s: float
    end_s: float | None
    trigger_s: float | None = None  # an incident's: when the trigger it is named after came


@dataclass(frozen=True, slots=True)
class BootSeries:
    """What the timeline picture draws; every time is seconds relative to `end_wall_us`."""

    start_s: float  # the window's start (negative)
    end_wall_us: int | None  # what 0 is, on the wall clock; None when only printk time
    clock: AxisClock  # the clock the axis was placed by
    marks: tuple[Mark, ...] = ()
    density: Trace | None = None  # kernel lines per second
    gpus: tuple[GpuTraces, ...] = ()
    mem_available: Trace | None = None
    mem_total_gib: float | None = None
    psi: tuple[Trace, ...] = ()
    incidents: tuple[Span, ...] = ()
    last_heartbeat_s: float | None = None
    last_kernel_s: float | None = None
    silence: Span | None = None
    death: Span | None = None  # dead in this interval (the heartbeat bound)
    thinned_before_s: float | None = None  # samples before this were thinned
    skipped_samples: int = 0  # sample records that could not be decoded

    @property
    def subsecond(self) -> bool:
        """Whether the ring holds reads less than a second apart in the final ZOOM_S."""
        for g in self.gpus:
            for t in (*g.raw_power, *g.power):
                near = [x for x in t.t_s if x >= -ZOOM_S]
                if any(b - a < 0.9 for a, b in itertools.pairwise(near)):
                    return True
        return False


def _line_s(item: Item, end_wall: int | None, end_ts: int | None) -> float | None:
    line = item.line
    if end_wall is not None and line.wall_us is not None:
        return (line.wall_us - end_wall) / 1e6
    if end_wall is None and end_ts is not None and line.ts_usec is not None:
        return (line.ts_usec - end_ts) / 1e6
    return None


def _stamp(item: Item) -> str:
    line = item.line
    return f"[{line.ts_usec / 1e6:.6f}]" if line.ts_usec is not None else f"line {line.lineno}"


def kernel_series(
    tl: Timeline,
    *,
    end_wall_us: int | None = None,
    first_trigger_s: float | None = None,
    severity: Mapping[str, Severity] | None = None,
) -> BootSeries:
    """The kernel part of the picture from a Timeline alone: the signatures' lines as marks and
    the density of the kept lines. `end_wall_us` (default: the last line's) is what 0 is."""
    items = [i for i in tl.items if i.line.origin in EVIDENCE_ORIGINS]
    end_wall = end_wall_us if end_wall_us is not None else tl.last_wall_us
    end_ts = None
    if end_wall is None:
        end_ts = tl.last_ts_usec
    clock = AxisClock.WALL if end_wall is not None else AxisClock.PRINTK
    sev = severity or {}
    seen: set[tuple[int, str]] = set()
    marks: list[Mark] = []
    firsts = [(t.first, t.tag) for t in tl.tags] + [(t.last, t.tag) for t in tl.tags]
    tagged = [(i, tag) for i in items for tag in i.tags]
    for item, tag in [*firsts, *tagged]:
        t = _line_s(item, end_wall, end_ts)
        if t is None or (item.pos, tag) in seen:
            continue
        seen.add((item.pos, tag))
        marks.append(
            Mark(round(t, 6), tag, sev.get(tag), item.line.raw or item.line.message, _stamp(item))
        )
    marks.sort(key=lambda m: m.t_s)
    times = [t for t in (_line_s(i, end_wall, end_ts) for i in items) if t is not None]
    start = window_start(first_trigger_s, min(times) if times else None)
    marks = [m for m in marks if m.t_s >= start][-MAX_MARKS:]
    last = max(times) if times else None
    return BootSeries(
        start_s=round(start, 3),
        end_wall_us=end_wall,
        clock=clock,
        marks=tuple(marks),
        density=_density(((t, 1) for t in times), start, 0.0),
        last_kernel_s=None if last is None else round(last, 6),
    )


def window_start(first_trigger_s: float | None, earliest_s: float | None) -> float:
    """The window: the last WINDOW_S, or from the first trigger when that is earlier, but
    never before the first thing recorded."""
    start = -WINDOW_S if first_trigger_s is None else min(-WINDOW_S, first_trigger_s)
    return start if earliest_s is None else max(start, min(earliest_s, 0.0))


def _density(times: Iterable[tuple[float, int]], start: float, end: float) -> Trace | None:
    """Lines per second in DENSITY_BINS bins; `times`: (seconds from the end, how many)."""
    width = max((end - start) / DENSITY_BINS, 1e-3)
    counts = [0] * DENSITY_BINS
    n = 0
    for t, k in times:
        if t < start:
            continue
        counts[min(DENSITY_BINS - 1, max(0, int((t - start) / width)))] += k
        n += k
    if not n:
        return None
    mids = tuple(round(start + (k + 0.5) * width, 3) for k in range(DENSITY_BINS))
    return Trace("kernel lines", "lines/s", mids, tuple(round(c / width, 3) for c in counts))


@dataclass
class _Acc:
    """Points of one device while the pass runs."""

    driver: str
    power: dict[str, list[tuple[float, float, float, float]]] = field(default_factory=dict)
    raw: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    temps: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    vram: list[tuple[float, float]] = field(default_factory=list)


def incident_spans(entries: Sequence[Entry], end_wall_us: int) -> list[Span]:
    """Each incident of the boot, from its `start` record to its `end` record (or the end),
    named after its kernel trigger when the recorder's own symptom (a late heartbeat) opened
    it: `trigger_s` is when that kernel trigger came (kmsgd/judge/incidents.py names them so)."""
    open_: dict[int, Group] = {}
    groups: list[Group] = []
    for e in sorted(entries, key=lambda e: e.serial):
        d = e.data
        if e.kind is not Kind.INCIDENT or not isinstance(d, IncidentRecord):
            continue
        if d.record == RecordName.START or d.incident not in open_:
            open_[d.incident] = []
            groups.append(open_[d.incident])
        open_[d.incident].append((e, d))
    return sorted((_span(g, end_wall_us) for g in groups), key=lambda s: s.start_s)


Group = list[tuple[Entry, IncidentRecord]]
_NO_TRIGGER = Trigger("", "", "", "")


def _span(group: Group, end: int) -> Span:
    def trigger(rec: IncidentRecord) -> Trigger:
        return rec.detail if isinstance(rec.detail, Trigger) else _NO_TRIGGER

    start = group[0]
    ends = [e for e, r in group if r.record == RecordName.END]
    kernel = [
        (e, r)
        for e, r in group
        if r.record in (RecordName.START, RecordName.TRIGGER) and trigger(r).source == Source.KERNEL
    ]
    lead = kernel[0] if kernel and trigger(start[1]).source == Source.RECORDER else start
    label = trigger(lead[1]).trigger or "incident"
    opened = trigger(start[1]).trigger
    if opened and opened != label:
        label = f"{label} (opened by {opened})"
    return Span(
        label,
        (start[0].wall_us - end) / 1e6,
        (ends[-1].wall_us - end) / 1e6 if ends else None,
        (lead[0].wall_us - end) / 1e6,
    )


def ring_series(
    reader: RingReader,
    view: BootView,
    *,
    caps_w: dict[str, float] | None = None,
    severity: Mapping[str, Severity] | None = None,
    ended: bool = True,
) -> BootSeries:
    """The whole picture of one boot of the ring: `kernel_series` plus the sensors (only the
    window's samples are checked and decoded), the kernel line density from every record's
    header, the incidents and the heartbeats. The headers come from the boot's read
    (`read_boot(recent_us=WINDOW_US)`) when the window is no longer than that; a window
    widened by an earlier incident takes a second, bounded pass over the boot."""
    tl, live = view.timeline, view.live
    end = live.last_wall_us
    if end is None:
        return kernel_series(tl, severity=severity)
    spans = incident_spans(view.of(Kind.INCIDENT), end)
    first_trigger = min((s.trigger_s for s in spans if s.trigger_s is not None), default=None)
    base = kernel_series(tl, end_wall_us=end, first_trigger_s=first_trigger, severity=severity)
    first = None if live.first_wall_us is None else (live.first_wall_us - end) / 1e6
    start_s = window_start(first_trigger, first)
    start_us = end + int(start_s * 1e6)
    detail_us = end - WINDOW_US
    # the last WINDOW_S whole, what lies before from the boot's thinned headers (one pass)
    older = _thin_again([h for h in view.thinned if start_us <= h.wall_us < detail_us])
    kernel = [((w - end) / 1e6, 1) for w in view.kernel_walls if w >= max(start_us, detail_us)]
    kernel += [((w - end) / 1e6, n) for w, n in view.kernel_counts if start_us <= w < detail_us]
    rows: list[tuple[int, DeviceSample | MemorySample]] = []
    skipped = 0
    # the judge decoded the final ~70 s of devices and 10 min of memory already: a fifth of
    # the picture's samples, not checked and decoded again
    decoded = {e.serial: e.data for e in view.final_samples}
    for h in (*older, *view.recent):
        if h.wall_us < start_us or h.wall_us > end:
            continue
        if h.code != _SAMPLE:
            continue
        s = decoded.get(h.serial)
        if s is None:
            if _PROCS in reader.payload_head(h, 24):
                continue
            f = reader.check(h)
            s = frame.decode_payload(f.kind, f.payload, wall_us=f.wall_us) if f else None
        if isinstance(s, DeviceSample | MemorySample):
            rows.append((h.wall_us, s))
        elif s is None or isinstance(s, Damaged):
            skipped += 1
    near = [w - s.mono_us for w, s in rows if s.mono_us > 0 and w >= end - OFFSET_S * 1e6]
    offset = min(near) if near else None
    gpus, mem = _sensors(rows, offset, end, caps_w or {})
    beat = live.last_beat_wall_us
    # the liveness' last kernel line, as the report's time of death counts the silence from it
    last_kernel = base.last_kernel_s
    if live.last_kernel_wall_us is not None:
        last_kernel = round((live.last_kernel_wall_us - end) / 1e6, 6)
    silence = None
    if last_kernel is not None and -last_kernel >= 1.0:
        silence = Span("silence", last_kernel, 0.0)
    death = None
    if ended and live.stop is None:
        death = Span("time of death", 0.0, live.interval_s or 0.0)
    return replace(
        base,
        start_s=round(start_s, 3),
        density=_density(kernel, start_s, 0.0) or base.density,
        gpus=gpus,
        psi=mem[2],
        mem_available=mem[0],
        mem_total_gib=mem[1],
        incidents=tuple(spans),
        last_heartbeat_s=None if beat is None else round((beat - end) / 1e6, 6),
        silence=silence,
        death=death,
        last_kernel_s=last_kernel,
        thinned_before_s=-WINDOW_S if start_us < detail_us else None,
        skipped_samples=skipped,
    )


def _thin_again(headers: Sequence[Skimmed]) -> Sequence[Skimmed]:
    """The boot's thinned headers merged into at most OLD_BUCKETS buckets: a sample each
    a few pixels apart over a boot of hours, half the records to decode."""
    thin = Thinner(OLD_BUCKETS, OLD_PER_BUCKET)
    for h in headers:
        thin.add(h)
    return thin.samples()


def _sensors(
    rows: Sequence[tuple[int, DeviceSample | MemorySample]],
    offset: int | None,
    end: int,
    caps: dict[str, float],
) -> tuple[tuple[GpuTraces, ...], tuple[Trace | None, float | None, tuple[Trace, ...]]]:
    devs: dict[str, _Acc] = {}
    keys: dict[str, tuple[str, str]] = {}  # "junction.temp_c" -> ("junction", "temp_c")
    avail: list[tuple[float, float]] = []
    psi: dict[str, list[tuple[float, float]]] = {}
    total = None
    for wall, s in rows:
        at = s.mono_us + offset if offset is not None and s.mono_us > 0 else wall
        t = (at - end) / 1e6
        if isinstance(s, MemorySample):
            if s.mem_available_bytes is not None:
                avail.append((t, s.mem_available_bytes / GIB))
            if s.mem_total_bytes:
                total = s.mem_total_bytes / GIB
            for kind in ("some", "full"):
                v = s.psi.get(f"memory.{kind}_avg10_pct")
                if v is not None:
                    psi.setdefault(kind, []).append((t, v))
            continue
        if s.driver not in GPU_DRIVERS or not s.device:
            continue
        acc = devs.get(s.device)
        if acc is None:
            acc = devs[s.device] = _Acc(s.driver)
        for key, v in s.values.items():
            split = keys.get(key)
            if split is None:
                split = keys[key] = key.rpartition(".")[::2]
            name, quantity = split
            if quantity == "temp_c":
                acc.temps.setdefault(name, []).append((t, v))
            elif quantity == "power_w":
                p = s.power.get(name)
                lo, hi = (p.min_w, p.max_w) if p is not None else (v, v)
                acc.power.setdefault(name, []).append((t, v, lo, hi))
                raw = p.raw_w if p is not None and len(p.raw_w) == len(s.raw_ms) else ()
                if raw and t >= -RAW_S - 1:
                    acc.raw.setdefault(name, []).extend(
                        (t + ms / 1000, w)
                        for w, ms in zip(raw, s.raw_ms, strict=True)
                        if w is not None
                    )
            elif key == "vram_used_bytes":
                acc.vram.append((t, v / GIB))
    gpus = tuple(
        GpuTraces(
            device,
            a.driver,
            power=tuple(_band(n, "W", pts) for n, pts in sorted(a.power.items())),
            raw_power=tuple(_trace(n, "W", pts) for n, pts in sorted(a.raw.items())),
            cap_w=caps.get(device),
            temps=tuple(_trace(n, "°C", pts) for n, pts in sorted(a.temps.items())),
            vram_used=_trace("VRAM used", "GiB", a.vram) if a.vram else None,
        )
        for device, a in sorted(devs.items())
    )
    mem = _trace("MemAvailable", "GiB", avail) if avail else None
    pressure = tuple(_trace(f"PSI memory {k}", "%", psi[k]) for k in ("some", "full") if k in psi)
    return gpus, (mem, total, pressure)


def _trace(label: str, unit: str, pts: Sequence[tuple[float, float]]) -> Trace:
    t, v = zip(*sorted(pts), strict=True) if pts else ((), ())
    return Trace(label, unit, tuple(t), tuple(v))


def _band(label: str, unit: str, pts: Sequence[tuple[float, float, float, float]]) -> Trace:
    if not pts:
        return Trace(label, unit, (), ())
    t, v, lo, hi = zip(*sorted(pts), strict=True)
    return Trace(label, unit, tuple(t), tuple(v), tuple(lo), tuple(hi))
