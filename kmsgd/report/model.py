"""The report: what a post-mortem says, as frozen values; renderers only render it.

`build_report` turns a Timeline and its Verdict into a Report; report/render_json.py makes
its `kmsgd.report/1` JSON document (docs/report.md). `telemetry`, `changes` and `time_of_death` are
left for ring-based callers (`kmsgd last-boot`) to fill with `dataclasses.replace`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kmsgd.catalogue.base import Severity
from kmsgd.catalogue.table import describe
from kmsgd.catalogue.tags import Tag
from kmsgd.judge.changes import Changed
from kmsgd.judge.classify import Verdict
from kmsgd.judge.incidents import Incident
from kmsgd.judge.series import BootSeries, kernel_series
from kmsgd.judge.telemetry_model import Telemetry
from kmsgd.judge.timeline import Item, TagStats, Timeline
from kmsgd.logparse.parsed import EVIDENCE_ORIGINS, Line, LogFormat, Origin
from kmsgd.report.death import TimeOfDeath
from kmsgd.report.fingerprint import driver_of, fingerprint
from kmsgd.types import Confidence, Outcome, Subject

SCHEMA = "kmsgd.report/1"
FINAL_SHOW = 25
_QUIET = {Tag.CLEAN_SHUTDOWN_MARKER}  # tagged, but not what the reader must look at


def wall_text(wall_us: int | None, fmt: LogFormat) -> str | None:
    """ISO 8601 wall time as the source gave it: "Z" when its zone was known, no zone when
    it was local, "--MM-DD…" when the source had no year (journal short, dmesg -H)."""
    if wall_us is None:
        return None
    when = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=wall_us)
    text = when.strftime("%Y-%m-%dT%H:%M:%S")
    if when.microsecond:
        text += f".{when.microsecond:06d}"
    if not fmt.has_year:
        return "--" + text[5:]
    return text + ("Z" if fmt.has_timezone else "")


def short_stamp(wall_us: int | None, fmt: LogFormat) -> str | None:
    """Wall time for people: "Nov 14 14:01:12" without a year when the source had none."""
    if wall_us is None:
        return None
    when = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=wall_us)
    return when.strftime("%Y-%m-%d %H:%M:%S" if fmt.has_year else "%b %d %H:%M:%S")


@dataclass(frozen=True, slots=True)
class LineRef:
    text: str
    lineno: int
    ts_usec: int | None
    wall: str | None
    origin: Origin
    stamp: str | None = None  # short human wall time

    @classmethod
    def of(cls, item: Item | Line) -> LineRef:
        line = item.line if isinstance(item, Item) else item
        return cls(
            line.raw or line.message,
            line.lineno,
            line.ts_usec,
            wall_text(line.wall_us, line.fmt),
            line.origin,
            short_stamp(line.wall_us, line.fmt),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "lineno": self.lineno,
            "ts": _sec(self.ts_usec),
            "wall": self.wall,
            "origin": self.origin.value,
        }

    @property
    def when(self) -> str:
        """Short human stamp: printk seconds, else wall time, else the line number."""
        if self.ts_usec is not None:
            return f"{self.ts_usec / 1e6:.3f}s"
        return self.stamp or f"line {self.lineno}"


def _sec(us: int | None) -> float | None:
    return None if us is None else round(us / 1e6, 6)


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    why: str
    line: LineRef | None


@dataclass(frozen=True, slots=True)
class SignatureReport:
    tag: str
    severity: Severity
    subsystem: str
    device: str
    count: int
    first: LineRef
    last: LineRef
    meaning: str
    next_step: str
    in_final_window: bool = False
    noise: bool = False
    routine: bool = False
    rate_per_hour: float | None = None
    baseline_per_hour: float | None = None

    @property
    def note(self) -> str:
        """What the tables say beside it: "noise, routine, final window" as they apply."""
        marks = (
            ("noise", self.noise),
            ("routine", self.routine),
            ("final window", self.in_final_window),
        )
        return ", ".join(n for n, on in marks if on)

    def to_json(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "severity": self.severity,
            "subsystem": self.subsystem,
            "device": self.device or None,
            "count": self.count,
            "first": self.first.to_json(),
            "last": self.last.to_json(),
            "example": self.first.text,
            "meaning": self.meaning,
            "next_step": self.next_step,
            "in_final_window": self.in_final_window,
            "noise": self.noise,
            "routine": self.routine,
            "rate_per_hour": self.rate_per_hour,
            "baseline_per_hour": self.baseline_per_hour,
        }


@dataclass(frozen=True, slots=True)
class FinalLine:
    line: LineRef
    tags: tuple[str, ...] = ()
    important: bool = False


@dataclass(frozen=True, slots=True)
class InputBoot:
    index: int
    boot_id: str
    lines: int
    outcome: Outcome
    reason: str
    first: str | None
    last: str | None


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """What an analyzed input was. Its fields are the JSON `source` object's keys, in order
    (render_json.py): public names."""

    name: str
    formats: tuple[str, ...] = ()
    lines: int = 0
    evidence_lines: int = 0
    text_lines: int = 0
    commands: int = 0
    boots: int = 1
    boot_index: int = 0
    reversed: bool = False
    cut_lines: int = 0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ReportError:
    where: str
    error: str


@dataclass(frozen=True, slots=True)
class Report:
    outcome: Outcome
    reason: str
    confidence: Confidence
    headline: str
    evidence: tuple[EvidenceLine, ...] = ()
    time_of_death: TimeOfDeath | None = None
    primary: SignatureReport | None = None
    signatures: tuple[SignatureReport, ...] = ()
    final_kernel: tuple[FinalLine, ...] = ()
    telemetry: Telemetry | None = None  # ring reports only
    changes: tuple[Changed, ...] = ()
    fingerprint: str = ""
    errors: tuple[ReportError, ...] = ()
    subject: Subject = Subject.THIS_BOOT
    source: SourceInfo | None = None
    boots: tuple[InputBoot, ...] = ()
    omitted_lines: int = 0
    boot_id: str = ""  # the judged boot, when the source knows it (the ring does)
    hostname: str = ""
    incidents: tuple[Incident, ...] = ()  # kmsgd/judge/incidents.py, ring only
    series: BootSeries | None = None  # the picture's time series (HTML, --plot); not in JSON


def signature_report(
    t: TagStats, verdict: Verdict, hours: float | None, baseline: Mapping[str, float]
) -> SignatureReport:
    meaning, step, severity, entry = describe(t.tag)
    own = t.hit.signature
    if own.routine and own.tag == t.tag and entry is not None and not entry.routine:
        # every line of it was a tag's routine form (a corrected firmware error, ext4's count
        # of old errors): the report says what those lines mean, not what the tag's failure
        # form does
        meaning, step, severity, entry = own.meaning, own.next_step, own.severity, own
    return SignatureReport(
        tag=t.tag,
        severity=severity,
        subsystem=entry.subsystem if entry else "",
        device=t.device,
        count=t.count,
        first=LineRef.of(t.first),
        last=LineRef.of(t.last),
        meaning=meaning,
        next_step=step,
        in_final_window=(t.tag, t.device) in verdict.final_tags,
        noise=t.tag in verdict.noise,
        routine=bool(entry and entry.routine),
        rate_per_hour=round(t.count / hours, 3) if hours else None,
        baseline_per_hour=baseline.get(t.tag),
    )


def build_report(
    tl: Timeline,
    verdict: Verdict,
    *,
    source: SourceInfo | None = None,
    boots: Sequence[InputBoot] = (),
    baseline: Mapping[str, float] | None = None,
    next_boot: Timeline | None = None,
    extra_errors: Sequence[ReportError] = (),
) -> Report:
    """Assemble the report of one boot. Pure."""
    base = baseline or {}
    hours = (
        tl.span_hours if tl.span_hours and tl.span_hours > 1 / 60 else None
    )  # a rate needs a minute
    sigs = [signature_report(t, verdict, hours, base) for t in tl.tags]
    # culprit first, then the final window by severity, then the rest in order of appearance
    sigs.sort(key=lambda s: (not s.in_final_window, s.severity.order, s.first.lineno))
    primary = None
    if verdict.primary is not None:
        primary = signature_report(verdict.primary, verdict, hours, base)
    ev_items = [i for i in tl.tail if i.line.origin in EVIDENCE_ORIGINS]
    final = tuple(
        FinalLine(LineRef.of(i), i.tags, bool(set(i.tags) - verdict.noise - _QUIET))
        for i in ev_items[-FINAL_SHOW:]
    )
    last = LineRef.of(ev_items[-1]) if ev_items else None
    tod = _time_of_death(last, ev_items[-1] if ev_items else None, next_boot)
    p = verdict.primary
    fp = fingerprint(
        verdict.outcome.value,
        p.tag if p else verdict.reason,
        p.first.line.record.message if p else "",
        driver_of(p.first.line.record.message, p.hit.signature.subsystem) if p else "",
    )
    errors = tuple(ReportError(e.where, e.error) for e in verdict.errors) + tuple(extra_errors)
    series = kernel_series(
        tl,
        first_trigger_s=_first_s(tl, verdict),
        severity={s.tag: s.severity for s in sigs},
    )
    return Report(
        outcome=verdict.outcome,
        reason=verdict.reason,
        confidence=verdict.confidence,
        headline=verdict.headline,
        evidence=tuple(
            EvidenceLine(e.why, LineRef.of(e.item) if e.item else None) for e in verdict.evidence
        ),
        time_of_death=tod,
        primary=primary,
        signatures=tuple(sigs),
        final_kernel=final,
        fingerprint=fp,
        errors=errors,
        subject=verdict.subject,
        source=source,
        boots=tuple(boots),
        omitted_lines=tl.omitted,
        series=series,
    )


def _first_s(tl: Timeline, verdict: Verdict) -> float | None:
    """When the culprit first showed, in seconds before the log's last line (a pasted log's
    picture starts there when that is more than the default window ago)."""
    p = verdict.primary
    if p is None:
        return None
    first, end = p.first.line, tl.last_wall_us
    if first.wall_us is not None and end is not None:
        return (first.wall_us - end) / 1e6
    last_ts = tl.last_ts_usec
    if first.ts_usec is not None and last_ts is not None and end is None:
        return (first.ts_usec - last_ts) / 1e6
    return None


def _time_of_death(last: LineRef | None, item: Item | None, nxt: Timeline | None) -> TimeOfDeath:
    if nxt is None or not nxt.head:
        return TimeOfDeath(last, note="last line of the log; no later boot in it")
    first = nxt.head[0].line
    nwall = first.record.wall_us
    silence = None
    if item is not None and nwall is not None and item.line.record.wall_us is not None:
        silence = round((nwall - item.line.record.wall_us) / 1e6, 3)
    return TimeOfDeath(
        last, wall_text(nwall, first.fmt), silence, "dead between the last line and the next boot"
    )
