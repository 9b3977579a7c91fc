"""`kmsgd last-boot` and `kmsgd boots`: the post-mortem of one boot from the ring, its next
boot and witnesses, and how each boot of the ring ended.

ring ─► BootView (timeline, liveness, final samples) ─► classify (kernel words)
                                                     ─► ring_rules (stop, beats, memory,
judge/witnesses (pstore, journal, memory) ──────────────   pstore, journal) ─► Report

This module reads and sends: what to read, in which order, which judge/ function gets it, and
where the report goes (`last_boot`: stdout, the report directory, the journal, the textfile).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kmsgd.commands.said import Said
from kmsgd.errors import NothingToJudge
from kmsgd.judge import telemetry, witnesses
from kmsgd.judge.bootview import (
    BootView,
    early_clock_steps,
    early_records,
    last_inventory,
    read_boot,
)
from kmsgd.judge.changes import diff_inventory, sysctl_changes
from kmsgd.judge.classify import classify
from kmsgd.judge.clocks import downtime, rtc_in_local_time
from kmsgd.judge.history import healthy_baseline, loop_notes
from kmsgd.judge.incidents import blocked_calls, incidents
from kmsgd.judge.ring_rules import RingFacts, decide
from kmsgd.judge.series import WINDOW_US, BootSeries, ring_series
from kmsgd.judge.telemetry_model import Telemetry
from kmsgd.judge.timeline import Timeline
from kmsgd.report import bootcache, death
from kmsgd.report.bootcache import BootCache
from kmsgd.report.boots import BootEnd, render_json, render_text
from kmsgd.report.model import Report, ReportError, build_report
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.reader import BootSummary, RingReader, pick_boot
from kmsgd.ring.records import Entry, KernelRecord, Kind
from kmsgd.text.escape import escape
from kmsgd.types import Confidence, Format


@dataclass(frozen=True, slots=True)
class Options:
    current_boot_id: str | None = None  # the running boot (from /proc), if known
    machine_id: str = ""  # this machine's id, to notice a ring copied from elsewhere
    journal: bool = False  # ask the systemd journal as a second witness
    journal_dir: str | None = None
    baseline: bool = True  # compare tag rates with earlier healthy boots (noise)
    rtc_local: bool = False  # /etc/adjtime keeps the RTC in local time (clocks.py)
    series: bool = False  # read the time series of the last minutes (--format html, --plot)


def report(reader: RingReader, spec: str | None, opts: Options) -> Report:
    """The post-mortem of the chosen boot."""
    ids = reader.boot_ids()
    try:
        i = pick_boot(ids, spec, opts.current_boot_id)
    except NothingToJudge as err:
        moved = witnesses.replaced(early_records(reader, ids[-1])) if ids else []
        if moved:  # the boots before lie in the file the corrupt ring was moved to
            raise NothingToJudge(f"{err}; {moved[0]}", hint="judge that file with --ring") from None
        raise
    return judge(reader, ids, i, opts)


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


def rtc_local(etc_root: Path) -> bool:
    """Whether /etc/adjtime keeps the RTC in local time (then a next boot's clock may be off)."""
    try:
        with open(os.path.join(etc_root, "adjtime"), encoding="utf-8", errors="replace") as f:
            return rtc_in_local_time(f.read(4096))
    except OSError:
        return False


def judge(reader: RingReader, ids: Sequence[str], i: int, opts: Options) -> Report:
    """The post-mortem of boot `ids[i]` (`ids`: the ring's boots, oldest first)."""
    boot_id = ids[i]
    view = read_boot(reader, boot_id, index=i, recent_us=WINDOW_US if opts.series else 0)
    nxt = early_records(reader, ids[i + 1]) if i + 1 < len(ids) else []
    prev_inv = last_inventory(reader, ids[i - 1]) if i else None
    baseline = healthy_baseline(reader, ids[:i]) if opts.baseline else {}
    nxt_kernel = [e.data for e in nxt if isinstance(e.data, KernelRecord)]
    current = boot_id == opts.current_boot_id
    pstore_witness = witnesses.pstore_witness(view, nxt)
    if pstore_witness is not None:
        view = view.with_records(pstore_witness.records)
    verdict = classify(
        view.timeline,
        next_boot=nxt_kernel or None,
        baseline=baseline,
        ended=not current,
        previous_known=True,
    )
    summary = telemetry.summarize(
        (*view.final_samples, *view.kept), end_wall_us=view.live.last_wall_us
    )
    next_wall = witnesses.boot_wall(nxt)
    steps = early_clock_steps(reader, ids[i + 1]) if next_wall is not None else ()
    facts = RingFacts(
        live=view.live,
        current=current,
        next_boot_wall_us=next_wall,
        memory=witnesses.memory_facts(summary, verdict, view.timeline),
        pstore=pstore_witness,
        journal=(
            witnesses.journal_witness(boot_id, opts.journal_dir)
            if opts.journal and not current
            else None
        ),
        stuck=next(
            iter(blocked_calls(view.of(Kind.INCIDENT), witnesses.hung_lines(view), view.stacks)),
            None,
        ),
        checked_downtime=downtime(
            view.live.last_wall_us, next_wall, steps, rtc_local=opts.rtc_local
        ),
    )
    decision, rule_errors = decide(verdict, facts)
    verdict = witnesses.merge(verdict, decision, facts)
    nxt_tl = Timeline.from_records(nxt_kernel) if nxt_kernel else None
    rep = build_report(view.timeline, verdict, baseline=baseline, next_boot=nxt_tl)
    changes = [
        *diff_inventory(prev_inv, _first_inventory(view.kept), when="before this boot"),
        *diff_inventory(
            _last_inventory(view.kept),
            _first_inventory(nxt),
            when="after the reboot",
        ),
        *sysctl_changes(view.kept),
    ]
    notes = [
        *witnesses.foreign(view.live.boot, opts.machine_id),
        *loop_notes(reader, ids, i, view),
        *(f"at the next boot {m}" for m in witnesses.replaced(nxt)),
    ]
    if opts.series:
        rep = dataclasses.replace(rep, series=_series(reader, view, summary, rep, current))
    return dataclasses.replace(
        rep,
        time_of_death=death.with_ring(rep.time_of_death, facts),
        telemetry=dataclasses.replace(summary, notes=tuple(notes)),
        changes=tuple(changes),
        boot_id=boot_id,
        hostname=view.live.boot.hostname if view.live.boot else "",
        incidents=tuple(incidents(view.of(Kind.INCIDENT), witnesses.hung_lines(view), view.stacks)),
        errors=(
            *rep.errors,
            *(ReportError(f"ring_verdict.{e.where}", e.error) for e in rule_errors),
        ),
    )


def _series(
    reader: RingReader, view: BootView, summary: Telemetry, rep: Report, current: bool
) -> BootSeries:
    """The picture's time series: a second, bounded pass over the boot (only when asked)."""
    caps = {
        g.device: float(g.power_cap_w)
        for g in (summary.config.gpus if summary.config else ())
        if isinstance(g.power_cap_w, int | float)
    }
    return ring_series(
        reader,
        view,
        caps_w=caps,
        severity={s.tag: s.severity for s in rep.signatures},
        ended=not current,
    )


def _first_inventory(entries: Sequence[Entry]) -> Inventory | None:
    return next((e.data for e in entries if isinstance(e.data, Inventory)), None)


def _last_inventory(entries: Sequence[Entry]) -> Inventory | None:
    return _first_inventory(list(reversed(entries)))


def last_boot(
    *,
    ring: str,
    boot: str | None,
    fmt: Format,
    options: Options,
    redact: bool = False,
    color: bool = False,
    plot: str = "",
    save_dir: str | None = None,
    keep: int,
    textfile: str | None = None,
) -> Said:
    """`kmsgd last-boot`: the report of boot `boot` (None: the one before the running boot) in
    `fmt` (text, md, json, html, or export: the journal entry). With `save_dir` (the boot-time
    service) it is saved there instead, and the journal entry sent when `options.journal`;
    with `textfile` the node_exporter file is written too. Nothing to judge raises
    NothingToJudge, except with `save_dir`, where it is only said."""
    with RingReader(ring) as reader:
        try:
            rep = report(reader, boot, options)
        except NothingToJudge as err:
            if save_dir is not None:  # the boot-time service: nothing to judge is no failure
                return Said(f"kmsgd: {err}\n")
            raise
        boot_id = rep.boot_id
        if save_dir is not None or textfile is not None:
            from kmsgd.report.publish import publish

            lines = publish(
                rep,
                boot_id,
                save_dir=save_dir,
                keep=keep,
                journal=options.journal,
                textfile=textfile,
                # with a save the command ends here; else the picture comes with the output
                plot=plot if save_dir is not None else "",
            )
            warnings = tuple(escape(f"kmsgd: warning: {note}") for note in lines[1:])
            if save_dir is not None:
                return Said(f"{lines[0]}\n", warnings)
        else:
            warnings = ()
    if fmt == Format.EXPORT:
        from kmsgd.report.entry import export_entry

        raw = export_entry(
            rep,
            now_us=int(dt.datetime.now(dt.UTC).timestamp() * 1e6),
            machine_id=options.machine_id,
            boot_id=options.current_boot_id or "",
        )
        return Said(raw, warnings)
    redactor = None
    if redact:
        from kmsgd.report.redact import Redactor

        redactor = Redactor((rep.hostname,), keep={boot_id})
    from kmsgd.report.render import render_clean

    out = render_clean(rep, fmt, redactor=redactor, color=color, plot=plot)
    return Said(out if out.endswith("\n") else out + "\n", warnings)


def boots(
    *, ring: str, fmt: Format, state_dir: str, current_boot_id: str | None, rtc_local: bool
) -> Said:
    """`kmsgd boots`: every boot the ring holds, oldest first, with how it ended (`fmt`: text
    or json); verdicts of ended boots are kept in `state_dir` (kmsgd/report/bootcache.py)."""
    cache = BootCache(state_dir)
    with RingReader(ring) as reader:
        rows = reader.boots(known=cache.segments)
        torn = reader.torn_bytes
        ends = outcomes(reader, rows, current_boot_id, rtc_local, cache=cache)
    out = render_json(rows, ends) if fmt == Format.JSON else render_text(rows, ends)
    note = f"note: skipped {torn} bytes of a torn write at the ring's tail"
    return Said(out, (note,) if torn else ())
