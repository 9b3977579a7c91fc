"""The verdict on one boot from its timeline: outcome, reason, confidence, culprit, noise.

`classify(timeline, next_boot=…, baseline=…)` is pure: it reads a Timeline (and optionally
the next boot's early records and per-tag healthy rates) and never touches the disk. The
outcome comes from RULES, an ordered list of small functions; the first that decides wins.
A rule that raises is recorded in `errors` and skipped. The culprit (`primary`) is the
earliest event of the last failure chain of the final window (chains.py), not the loudest
or the last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kmsgd.catalogue.gpu import DEVICE_LOSS_TAGS
from kmsgd.catalogue.table import describe
from kmsgd.catalogue.tags import Tag
from kmsgd.judge import chains
from kmsgd.judge.rules import (
    RULES,
    Context,
    Decision,
    Evidence,
    RuleError,
    evidence_of,
    first_decision,
    previous_boot_decision,
    previous_end,
)
from kmsgd.judge.timeline import Item, TagStats, Timeline
from kmsgd.logparse.parsed import EVIDENCE_ORIGINS
from kmsgd.ring.records import KernelRecord
from kmsgd.types import CLEAN, Confidence, Outcome, Subject

FINAL_LINES = 200  # the final window: this many last kernel/userspace lines ...
FINAL_SECONDS = 300  # ... or this much printk/wall time before the last line
NOISE_FACTOR = 1.5  # at most this times the healthy-boot rate: noise


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    reason: str
    confidence: Confidence
    summary: str  # the outcome in words ("Hard freeze (stayed_down)")
    culprit: str  # the culprit in words ("Culprit: amdgpu_smu_timeout on …"), or ""
    primary: TagStats | None
    final_tags: frozenset[tuple[str, str]]  # (tag, device) seen in the final window
    noise: frozenset[str]  # tags at or below their healthy-boot rate
    routine_only: bool  # nothing but routine warnings in the final window
    subject: Subject
    errors: tuple[RuleError, ...]
    evidence: tuple[Evidence, ...] = ()

    @property
    def headline(self) -> str:
        return f"{self.summary}. {self.culprit}" if self.culprit else f"{self.summary}."


# -- window, noise, culprit --------------------------------------------------------------
def _final_window(tl: Timeline, at: Item | None = None) -> list[TagStats]:
    """Tags whose last occurrence is near the end: within FINAL_SECONDS of the last stamp
    when the log has clocks, else within the last FINAL_LINES kernel/userspace lines.
    `at`: the window of the boot's last failure instead, ending at that line."""
    ev = [i for i in tl.tail if i.line.origin in EVIDENCE_ORIGINS]
    start = ev[-FINAL_LINES].pos if len(ev) >= FINAL_LINES else (ev[0].pos if ev else 0)
    if len(ev) < FINAL_LINES and tl.total <= len(tl.head) + len(tl.tail):
        start = 0
    end_ts, end_wall = tl.last_ts_usec, tl.last_wall_us
    if at is not None:
        end_ts, end_wall = at.line.ts_usec, at.line.wall_us
        start = max(0, at.pos - FINAL_LINES)
    window = FINAL_SECONDS * 1_000_000

    def final(t: TagStats) -> bool:
        if t.tag in DEVICE_LOSS_TAGS:  # a lost GPU stays lost to the end of the boot
            return True
        rec = t.last.line.record
        if end_ts is not None and rec.ts_usec is not None:
            return rec.ts_usec >= end_ts - window
        if end_wall is not None and rec.wall_us is not None:
            return rec.wall_us >= end_wall - window
        return t.last.pos >= start

    return [t for t in tl.tags if final(t) and (at is None or t.last.pos <= at.pos)]


def _failure(t: TagStats, noise: set[str]) -> bool:
    sig = t.hit.signature
    return sig.rank < 100 and not sig.routine and t.tag not in noise


def _window(ctx: Context) -> list[TagStats]:
    """The final window; where the log does not show the boot's end and that window holds
    no failure, the window of the last failure before it (a paste cut minutes after the
    incident, a second report's untagged header at the end): it is the last chain the log
    shows."""
    final = _final_window(ctx.tl)
    if ctx.ended or any(_failure(t, ctx.noise) for t in final):
        return final
    failures = [t for t in ctx.tl.tags if _failure(t, ctx.noise)]
    if not failures:
        return final
    last = max(failures, key=lambda t: t.last.pos).last
    return [*_final_window(ctx.tl, at=last), *(t for t in final if t.last.pos > last.pos)]


def _noise(ctx: Context) -> None:
    """A tag no more frequent than on healthy boots is noise (docs/incidents.md, the amdgpu
    freeze: the svm_range hog came 6 times in a healthy 7-hour boot). Its count is compared with
    what the healthy rate predicts for this boot's length (an hour at least), with slack for
    small numbers."""
    hours = max(ctx.tl.span_hours or 1.0, 1.0)
    for tag, rate in ctx.baseline.items():
        count = ctx.tl.count(tag)
        if not count or rate <= 0 or tag == Tag.KERNEL_PANIC:
            continue
        if count <= rate * hours * NOISE_FACTOR + 1:
            ctx.noise.add(tag)


def _culprit(ctx: Context) -> TagStats | None:
    """The primary: the earliest event of the last failure chain (chains.py), among the
    final window's signatures that are neither next-boot evidence (rank 100) nor noise."""
    blamable = [t for t in ctx.final if t.hit.signature.rank < 100 and t.tag not in ctx.noise]
    return chains.primary(_chain_start(ctx, blamable), ctx.tl.tail)


def _chain_start(ctx: Context, events: list[TagStats]) -> list[TagStats]:
    """`events` with the start of their chain that the final window cut off: an earlier
    event that may cause one of the chain (chains.MAY_CAUSE), or is the same failure on
    another device, and whose last line is within FINAL_SECONDS of that one's first joins
    it, and so on back. Stall reports of one stuck machine run on for many minutes (soft
    lockups on CPU after CPU, then the hard lockups), so a window counted back from the last
    report may start in the middle of the chain."""
    window = FINAL_SECONDS * 1_000_000
    chain = list(events)
    others = [
        t
        for t in ctx.tl.tags
        if t not in chain and _failure(t, ctx.noise) and t.last.line.ts_usec is not None
    ]
    grown = True
    while grown and others:
        grown = False
        for t in list(others):
            end = t.last.line.ts_usec
            assert end is not None
            for e in chain:
                start = e.first.line.ts_usec
                if start is None or not 0 <= start - end <= window or e.first.pos < t.last.pos:
                    continue
                if t.tag == e.tag or chains.caused_by(e, [t]) is t:
                    chain.append(t)
                    others.remove(t)
                    grown = True
                    break
    return chain


def _own(ctx: Context) -> bool:
    """Whether the boot shows a failure of its own: a culprit that is no routine warning
    and not what its start says of the boot before (machine checks kept across the reset)."""
    p = ctx.primary
    if p is None or p.hit.signature.routine:
        return False
    return chains.caused_by(p, previous_end(ctx.tl)[0]) is None


# -- rules -------------------------------------------------------------------------------
def classify(
    timeline: Timeline,
    *,
    next_boot: Timeline | Sequence[KernelRecord] | None = None,
    baseline: Mapping[str, float] | None = None,
    ended: bool | None = None,
    previous_known: bool = False,
) -> Verdict:
    """The verdict on `timeline`. `next_boot`: the following boot's early records (evidence
    about this boot's end); `baseline`: tag → occurrences per hour on healthy boots;
    `ended`: whether the boot is known to have ended (default: a next boot was given);
    `previous_known`: the boot before is judged elsewhere, so this boot's early lines are
    not turned into a verdict about it."""
    nxt = next_boot
    if nxt is not None and not isinstance(nxt, Timeline):
        nxt = Timeline.from_records(nxt)
    ctx = Context(timeline, nxt, baseline or {}, ended if ended is not None else nxt is not None)
    try:
        _noise(ctx)
        ctx.final = _window(ctx)
        ctx.primary = _culprit(ctx)
    except Exception as err:
        ctx.errors.append(RuleError("culprit", f"{type(err).__name__}: {err}"))
    decision = first_decision(RULES, ctx, errors=ctx.errors)
    undecided = decision is None or decision.outcome is Outcome.UNKNOWN
    if undecided and nxt is None and not ctx.ended and not previous_known and not _own(ctx):
        try:
            decision = previous_boot_decision(ctx) or decision
        except Exception as err:
            ctx.errors.append(RuleError("previous_boot", f"{type(err).__name__}: {err}"))
    if decision is None:
        decision = Decision(
            Outcome.UNKNOWN,
            "no_end_in_log",
            Confidence.LOW,
            "The log does not show how the boot ended",
        )
    return _verdict(ctx, decision)


def _verdict(ctx: Context, d: Decision) -> Verdict:
    clean = d.outcome in CLEAN
    primary = None if clean or d.subject is Subject.PREVIOUS_BOOT else d.culprit or ctx.primary
    if not clean and (primary is None or primary.hit.signature.routine):
        primary = _next_boot_culprit(ctx, d) or primary
    routine_only = primary is not None and primary.hit.signature.routine
    evidence = list(d.evidence)
    if primary is not None and not any(e.item == primary.first for e in evidence):
        evidence.insert(0, Evidence(f"first {primary.tag}", primary.first))
    for t in previous_end(ctx.nxt)[0]:
        if d.subject is Subject.THIS_BOOT and not any(e.item == t.last for e in evidence):
            evidence.append(evidence_of(t, f"next boot: {t.tag}"))
    return Verdict(
        outcome=d.outcome,
        reason=d.reason,
        confidence=d.confidence,
        summary=_summary(d, primary),
        culprit=_culprit_words(primary, routine_only),
        evidence=tuple(evidence[:8]),
        primary=primary,
        final_tags=frozenset((t.tag, t.device) for t in ctx.final),
        noise=frozenset(ctx.noise),
        routine_only=routine_only,
        subject=d.subject,
        errors=tuple(ctx.errors),
    )


# the next boot's evidence, most telling first: a decoded reset cause, machine checks the
# CPU kept across the reset, then what only says the shutdown was not clean
NEXT_BOOT_ORDER = (Tag.RESET_REASON, Tag.MCE_LOGGED_AT_BOOT, Tag.FS_RECOVERY, Tag.JOURNAL_UNCLEAN)


def _next_boot_culprit(ctx: Context, d: Decision) -> TagStats | None:
    """Where the boot a verdict is about shows no failure of its own, the next boot's
    evidence is the only answer the log gives: the start of this log when the verdict is
    about the boot before it, else the next boot's, where the verdict cites it."""
    src = ctx.tl.tags if d.subject is Subject.PREVIOUS_BOOT else previous_end(ctx.nxt)[0]
    cited = [e.item for e in d.evidence]
    evidence = [t for t in src if t.tag in NEXT_BOOT_ORDER and t.last in cited]
    return min(evidence, key=lambda t: NEXT_BOOT_ORDER.index(t.tag), default=None)


def _summary(d: Decision, primary: TagStats | None) -> str:
    # the culprit line names the tag, and some summaries say the reason in words already
    redundant = (primary is not None and d.reason == primary.tag) or d.says_reason
    if (
        d.reason
        and d.outcome is not Outcome.UNKNOWN
        and d.reason not in d.summary
        and not redundant
    ):
        return f"{d.summary} ({d.reason})"
    return d.summary


def _culprit_words(primary: TagStats | None, routine_only: bool) -> str:
    if primary is None:
        return ""
    meaning = describe(primary.tag)[0] or primary.tag
    where = f" on {primary.device}" if primary.device else ""
    times = f", {primary.count}×" if primary.count > 1 else ""
    if routine_only:
        return f"Only routine warnings at the end: {primary.tag}{where}{times}."
    return f"Culprit: {primary.tag}{where}{times}: {meaning}"


__all__ = ["RULES", "Confidence", "Decision", "Evidence", "RuleError", "Verdict", "classify"]
