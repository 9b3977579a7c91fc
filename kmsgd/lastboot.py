"""`kmsgd last-boot`: the post-mortem of one boot from the ring, its next boot and witnesses.

ring ─► BootView (timeline, liveness, final samples) ─► classify (kernel words)
                                                     ─► ring_verdict (stop, beats, memory,
pstore / journal witnesses ─────────────────────────────   pstore, journal) ─► Report
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass

from kmsgd.errors import NothingToJudge
from kmsgd.judge import changes as chg
from kmsgd.judge import telemetry as tv
from kmsgd.judge.bootview import (
    BootView,
    early_clock_steps,
    early_records,
    last_payload,
    read_boot,
)
from kmsgd.judge.classify import Verdict, classify
from kmsgd.judge.clocks import downtime, rtc_in_local_time
from kmsgd.judge.history import healthy_baseline, loop_notes
from kmsgd.judge.incidents import blocked_calls, incidents
from kmsgd.judge.memory import memory_evidence
from kmsgd.judge.ring_rules import MemoryFacts, RingDecision, RingFacts, Witness, decide
from kmsgd.judge.rules import Evidence
from kmsgd.judge.telemetry_model import Telemetry
from kmsgd.judge.timeline import Timeline
from kmsgd.report import bootcache
from kmsgd.report.bootcache import BootCache
from kmsgd.report.death import Ended, RingDeath, TimeOfDeath, iso_utc
from kmsgd.report.model import Report, ReportError, build_report
from kmsgd.ring.reader import BootSummary, RingReader, pick_boot
from kmsgd.ring.records import Boot, Entry, KernelRecord, Kind
from kmsgd.types import CLEAN, Confidence, Outcome


@dataclass(frozen=True, slots=True)
class Options:
    current_boot_id: str | None = None  # the running boot (from /proc), if known
    machine_id: str = ""  # this machine's id, to notice a ring copied from elsewhere
    journal: bool = False  # ask the systemd journal as a second witness
    journal_dir: str | None = None
    baseline: bool = True  # compare tag rates with earlier healthy boots (noise)
    rtc_local: bool = False  # /etc/adjtime keeps the RTC in local time (clocks.py)


def report(reader: RingReader, spec: str | None, opts: Options) -> Report:
    """The post-mortem of the chosen boot."""
    ids = reader.boot_ids()
    try:
        i = pick_boot(ids, spec, opts.current_boot_id)
    except NothingToJudge as err:
        moved = _replaced(early_records(reader, ids[-1])) if ids else []
        if moved:  # the boots before lie in the file the corrupt ring was moved to
            raise NothingToJudge(f"{err}; {moved[0]}", hint="judge that file with --ring") from None
        raise
    return judge(reader, ids, i, opts)


@dataclass(frozen=True, slots=True)
class BootEnd:
    """How one boot ended, for `kmsgd boots`: a verdict, or why none could be made."""

    outcome: Outcome | None
    confidence: Confidence | None
    error: str = ""

    def __str__(self) -> str:
        if self.outcome is None or self.confidence is None:
            return f"error: {self.error}"
        return f"{self.outcome.value} ({self.confidence.value})"


def outcomes(
    reader: RingReader,
    rows: Sequence[BootSummary],
    current: str | None,
    rtc_local: bool = False,
    cache: BootCache | None = None,
) -> list[BootEnd]:
    """A short verdict per boot for `kmsgd boots` (no journal, no noise baseline); with a
    `cache`, an ended boot judged before is not judged again (kmsgd/report/bootcache.py)."""
    opts = Options(current_boot_id=current, baseline=False, rtc_local=rtc_local)
    out = []
    ids = [r.boot_id for r in rows]
    for i in range(len(ids)):
        k = bootcache.key(rows, i, reader.header.ring_id, rtc_local, current)
        known = cache.get(k) if cache is not None else None
        if known is not None:
            out.append(BootEnd(*known))
            continue
        try:
            rep = judge(reader, ids, i, opts)
            out.append(BootEnd(rep.outcome, Confidence(rep.confidence)))
        except Exception as err:  # one unreadable boot must not hide the others
            out.append(BootEnd(None, None, type(err).__name__))
            continue
        if cache is not None:
            cache.put(k, rep.outcome, Confidence(rep.confidence))
    if cache is not None:
        cache.save()
    return out


def rtc_local(etc_root: str) -> bool:
    """Whether /etc/adjtime keeps the RTC in local time (then a next boot's clock may be off)."""
    try:
        with open(os.path.join(etc_root, "adjtime"), encoding="utf-8", errors="replace") as f:
            return rtc_in_local_time(f.read(4096))
    except OSError:
        return False


def judge(reader: RingReader, ids: Sequence[str], i: int, opts: Options) -> Report:
    """The post-mortem of boot `ids[i]` (`ids`: the ring's boots, oldest first)."""
    boot_id = ids[i]
    view = read_boot(reader, boot_id, index=i)
    nxt = early_records(reader, ids[i + 1]) if i + 1 < len(ids) else []
    prev_inv = last_payload(reader, ids[i - 1], Kind.INVENTORY) if i else None
    baseline = healthy_baseline(reader, ids[:i]) if opts.baseline else {}
    nxt_kernel = [e.data for e in nxt if isinstance(e.data, KernelRecord)]
    current = boot_id == opts.current_boot_id
    pstore_witness = _pstore_witness(view, nxt)
    if pstore_witness is not None:
        view = view.with_records(pstore_witness.records)
    verdict = classify(
        view.timeline,
        next_boot=nxt_kernel or None,
        baseline=baseline,
        ended=not current,
        previous_known=True,
    )
    summary = tv.summarize((*view.final_samples, *view.kept), end_wall_us=view.live.last_wall_us)
    next_wall = _boot_wall(nxt)
    steps = early_clock_steps(reader, ids[i + 1]) if next_wall is not None else ()
    facts = RingFacts(
        live=view.live,
        current=current,
        next_boot_wall_us=next_wall,
        memory=_memory(summary, verdict, view.timeline),
        pstore=pstore_witness,
        journal=_journal_witness(boot_id, opts) if opts.journal and not current else None,
        stuck=next(
            iter(blocked_calls(view.of(Kind.INCIDENT), _hung_lines(view), view.stacks)), None
        ),
        checked_downtime=downtime(
            view.live.last_wall_us, next_wall, steps, rtc_local=opts.rtc_local
        ),
    )
    decision, rule_errors = decide(verdict, facts)
    verdict = _merge(verdict, decision, facts)
    nxt_tl = Timeline.from_records(nxt_kernel) if nxt_kernel else None
    rep = build_report(view.timeline, verdict, baseline=baseline, next_boot=nxt_tl)
    changes = [
        *chg.diff_inventory(
            prev_inv, _first_of(view.kept, Kind.INVENTORY), when="before this boot"
        ),
        *chg.diff_inventory(
            _last_of(view.kept, Kind.INVENTORY),
            _first_of(nxt, Kind.INVENTORY),
            when="after the reboot",
        ),
        *chg.sysctl_changes(view.kept),
    ]
    notes = [
        *_foreign(view.live.boot, opts),
        *loop_notes(reader, ids, i, view),
        *(f"at the next boot {m}" for m in _replaced(nxt)),
    ]
    return dataclasses.replace(
        rep,
        time_of_death=_time_of_death(rep.time_of_death, facts),
        telemetry=dataclasses.replace(summary, notes=tuple(notes)),
        changes=tuple(changes),
        boot_id=boot_id,
        hostname=view.live.boot.hostname if view.live.boot else "",
        incidents=_incidents(view),
        errors=(
            *rep.errors,
            *(ReportError(f"ring_verdict.{e.where}", e.error) for e in rule_errors),
        ),
    )


def _hung_lines(view: BootView) -> list[str]:
    """The boot's hung-task lines: they say how long a task had been blocked."""
    return [
        i.line.record.message
        for t in view.timeline.tags
        if t.tag == "hung_task"
        for i in (t.first, t.last)
    ]


def _incidents(view: BootView) -> tuple[dict[str, object], ...]:
    """The boot's incidents (kmsgd/judge/incidents.py)."""
    return tuple(incidents(view.of(Kind.INCIDENT), _hung_lines(view), view.stacks))


def _merge(v: Verdict, d: RingDecision, f: RingFacts) -> Verdict:
    """The text verdict with the ring's outcome, confidence and evidence laid over it."""
    clean = d.outcome in CLEAN or d.outcome is Outcome.STILL_RUNNING
    primary = None if clean else v.primary
    summary = v.summary
    if d.summary:
        summary = d.summary + ("" if clean else _when(f)) + (f": {d.detail}" if d.detail else "")
    evidence = (*(Evidence(t) for t in d.evidence if t), *v.evidence)
    return dataclasses.replace(
        v,
        outcome=d.outcome,
        reason=d.reason or (v.reason if d.outcome is v.outcome else ""),
        confidence=d.confidence,
        summary=summary,
        culprit=v.culprit if primary else "",
        evidence=evidence[:10],
        primary=primary,
    )


def _when(f: RingFacts) -> str:
    last = f.live.last_wall_us
    if last is None:
        return ""
    pm = f" ± {f.live.interval_s:.1f} s" if f.live.interval_s else ""
    return f" at {iso_utc(last)}{pm}"


def _time_of_death(tod: TimeOfDeath | None, f: RingFacts) -> TimeOfDeath:
    live = f.live
    ended = Ended.RUNNING if f.current else (Ended.STOP if live.stop is not None else Ended.SILENCE)
    ring = RingDeath(
        last_sign_of_life_wall_us=live.last_wall_us,
        last_heartbeat_wall_us=live.last_beat_wall_us,
        heartbeat_interval_s=live.interval_s,
        late_final_beats=live.late_final_beats,
        last_kernel_line_wall_us=live.last_kernel_wall_us,
        silence_before_death_s=live.silence_s,
        next_boot_wall_us=f.next_boot_wall_us,
        downtime_s=f.downtime_s,
        clock_note=f.downtime.note,
        clock_steps=tuple(str(s) for s in live.clock_steps),
        kernel_records_lost=live.lost,
        ended=ended,
    )
    base = tod or TimeOfDeath(None)
    note = "alive at the last sign of life, dead before the next heartbeat was due"
    if live.stop is not None:
        note = "the recorder stopped cleanly"
    return dataclasses.replace(base, note=note, ring=ring)


def _memory(summary: Telemetry, v: Verdict, tl: Timeline) -> MemoryFacts:
    ev = memory_evidence(summary.memory)
    kills = sum(
        t.count
        for t in tl.tags
        if t.tag in ("oom_kill", "oomd_kill") and (t.tag, t.device) in v.final_tags
    )
    return MemoryFacts(ev.available_fraction_end, ev.psi_full_avg10_max_pct, kills, ev.text)


def _pstore_witness(view: BootView, nxt: Sequence[Entry]) -> Witness | None:
    """A panic dump imported at the next boot and attributed to this one."""
    from kmsgd.judge import pstore as judge_pstore
    from kmsgd.ring import pstore

    for e in nxt:
        if e.kind is not Kind.PSTORE or not isinstance(e.data, dict):
            continue
        try:
            dump = pstore.from_payload(e.data)
        except Exception:  # a malformed record is skipped, the rest of the report stands
            continue
        att = judge_pstore.attribute_detail(
            dump, {view.boot_id: view.kernel_tail}, importing_boot=e.boot_id
        )
        if att.boot_id != view.boot_id or dump.reason.value not in ("panic", "oops"):
            continue
        line = next(
            (r.message for r in dump.records if "Kernel panic" in r.message),
            next(
                (r.message for r in dump.records if r.message.startswith("Oops")), dump.reason.value
            ),
        )
        conf = Confidence.HIGH if att.confidence == "high" else Confidence.MEDIUM
        last_ts = view.timeline.last_ts_usec
        beyond = tuple(r for r in dump.records if last_ts is None or (r.ts_usec or 0) > last_ts)
        return Witness(
            Outcome.KERNEL_PANIC,
            f"pstore:{dump.reason.value}",
            conf,
            f"pstore {dump.backend} dump ({att.method}, {att.confidence}): {line}",
            beyond,
        )
    return None


def _journal_witness(boot_id: str, opts: Options) -> Witness | None:
    from kmsgd.errors import KmsgdError
    from kmsgd.judge import journal, shutdown

    try:
        ev = shutdown.shutdown_evidence(journal.final_entries(boot_id, directory=opts.journal_dir))
    except KmsgdError:
        return None
    if not ev.clean or ev.kind is None:
        return None
    rebooted = ev.kind in (shutdown.ShutdownKind.REBOOT, shutdown.ShutdownKind.KEXEC)
    outcome = Outcome.CLEAN_REBOOT if rebooted else Outcome.CLEAN_SHUTDOWN
    return Witness(outcome, "journal", ev.confidence, f"journal: {ev.detail}")


def _foreign(boot: Boot | None, opts: Options) -> list[str]:
    if boot is None or not opts.machine_id or not boot.machine_id:
        return []
    if boot.machine_id == opts.machine_id:
        return []
    return [f"this ring was recorded on another machine ({boot.hostname or boot.machine_id})"]


def _replaced(entries: Sequence[Entry]) -> list[str]:
    """What the recorder said when it found its ring corrupt and started a new one."""
    return [
        f"the ring was found unusable and replaced: {e.data.ring_replaced}"
        for e in entries
        if isinstance(e.data, Boot) and e.data.ring_replaced
    ]


def _boot_wall(entries: Sequence[Entry]) -> int | None:
    return next((e.data.boot_wall_us for e in entries if isinstance(e.data, Boot)), None)


def _first_of(entries: Sequence[Entry], kind: Kind) -> dict[str, object] | None:
    return next((e.data for e in entries if e.kind is kind and isinstance(e.data, dict)), None)


def _last_of(entries: Sequence[Entry], kind: Kind) -> dict[str, object] | None:
    return _first_of(list(reversed(entries)), kind)
