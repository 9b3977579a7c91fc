"""What the ring's neighbours say about a boot, as plain values for ring_rules: the panic dump
imported at the next boot (pstore), the systemd journal's end of the boot, the memory at the
end, and the ring's own notes (a corrupt ring replaced, a ring from another machine).

Also where the kernel lines' verdict and the ring's decision become one verdict (`merge`).
Pure: each function takes what the command read and returns a value; nothing here reads a
file or the journal itself except `journal_witness`, which asks
kmsgd/logparse/systemd_journal.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kmsgd.catalogue.tags import Tag
from kmsgd.errors import KmsgdError
from kmsgd.judge import pstore_owner as judge_pstore
from kmsgd.judge import shutdown
from kmsgd.judge.bootview import BootView
from kmsgd.judge.classify import Verdict
from kmsgd.judge.memory_facts import memory_evidence
from kmsgd.judge.ring_rules import MemoryFacts, RingDecision, RingFacts, Witness
from kmsgd.judge.rules import Evidence
from kmsgd.judge.telemetry_model import Telemetry
from kmsgd.judge.timeline import Timeline
from kmsgd.logparse import systemd_journal
from kmsgd.ring import pstore
from kmsgd.ring.records import Boot, Entry, Kind
from kmsgd.types import CLEAN, Confidence, Outcome, iso_utc

MEMORY_KILL_TAGS = (Tag.OOM_KILL, Tag.OOMD_KILL)


def pstore_witness(view: BootView, next_boot: Sequence[Entry]) -> Witness | None:
    """A panic or oops dump imported at the next boot and attributed to this one, with the
    kernel lines only the dump has (those after the ring's last line)."""
    for e in next_boot:
        dump = e.data
        if e.kind is not Kind.PSTORE or not isinstance(dump, pstore.PstoreDump):
            continue  # a malformed record is skipped, the rest of the report stands
        att = judge_pstore.attribute_detail(
            dump, {view.boot_id: view.kernel_tail}, importing_boot=e.boot_id
        )
        if att.boot_id != view.boot_id or dump.reason not in (
            pstore.DumpReason.PANIC,
            pstore.DumpReason.OOPS,
        ):
            continue
        line = next(
            (r.message for r in dump.records if "Kernel panic" in r.message),
            next(
                (r.message for r in dump.records if r.message.startswith("Oops")), dump.reason.value
            ),
        )
        conf = Confidence.HIGH if att.confidence is Confidence.HIGH else Confidence.MEDIUM
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


def journal_witness(boot_id: str, directory: str | None) -> Witness | None:
    """The journal's word when it shows a clean shutdown or reboot of that boot; None when it
    cannot be read, lacks the boot, or shows no clean end."""
    try:
        ev = shutdown.shutdown_evidence(systemd_journal.final_entries(boot_id, directory=directory))
    except KmsgdError:
        return None
    if not ev.clean or ev.kind is None:
        return None
    rebooted = ev.kind in (shutdown.ShutdownKind.REBOOT, shutdown.ShutdownKind.KEXEC)
    outcome = Outcome.CLEAN_REBOOT if rebooted else Outcome.CLEAN_SHUTDOWN
    return Witness(outcome, "journal", ev.confidence, f"journal: {ev.detail}")


def memory_facts(summary: Telemetry, verdict: Verdict, timeline: Timeline) -> MemoryFacts:
    """The memory at the end and the memory kills among the final lines."""
    ev = memory_evidence(summary.memory)
    kills = sum(
        t.count
        for t in timeline.tags
        if t.tag in MEMORY_KILL_TAGS and (t.tag, t.device) in verdict.final_tags
    )
    return MemoryFacts(ev.available_fraction_end, ev.psi_full_avg10_max_pct, kills, ev.text)


def hung_lines(view: BootView) -> list[str]:
    """The boot's hung-task lines: they say how long a task had been blocked."""
    return [
        i.line.record.message
        for t in view.timeline.tags
        if t.tag == Tag.HUNG_TASK
        for i in (t.first, t.last)
    ]


def merge(v: Verdict, d: RingDecision, f: RingFacts) -> Verdict:
    """The kernel lines' verdict with the ring's outcome, confidence and evidence laid over it."""
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


def foreign(boot: Boot | None, machine_id: str) -> list[str]:
    """A note when the ring was recorded on another machine than the one judging it."""
    if boot is None or not machine_id or not boot.machine_id:
        return []
    if boot.machine_id == machine_id:
        return []
    return [f"this ring was recorded on another machine ({boot.hostname or boot.machine_id})"]


def replaced(entries: Sequence[Entry]) -> list[str]:
    """What the recorder said when it found its ring corrupt and started a new one."""
    return [
        f"the ring was found unusable and replaced: {e.data.ring_replaced}"
        for e in entries
        if isinstance(e.data, Boot) and e.data.ring_replaced
    ]


def boot_wall(entries: Sequence[Entry]) -> int | None:
    """When the boot whose first records these are began, by its own clock."""
    return next((e.data.boot_wall_us for e in entries if isinstance(e.data, Boot)), None)
