"""The verdict on one boot from its timeline: outcome, reason, confidence, culprit, noise.

`classify(timeline, next_boot=…, baseline=…)` is pure: it reads a Timeline (and optionally
the next boot's early records and per-tag healthy rates) and never touches the disk. The
outcome comes from RULES, an ordered list of small functions; the first that decides wins.
A rule that raises is recorded in `errors` and skipped. The culprit (`primary`) is the most
upstream signature of the final window (catalogue `rank`), not the loudest or the last.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kmsgd.catalogue import BY_TAG, describe
from kmsgd.catalogue_reset import decode_reset
from kmsgd.timeline import Item, TagStats, Timeline
from kmsgd.types import KernelRecord, Outcome

FINAL_LINES = 200  # the final window: this many last kernel/userspace lines ...
FINAL_SECONDS = 300  # ... or this much printk/wall time before the last line
END_LINES = 40  # a shutdown marker must be this close to the end to count
NOISE_FACTOR = 1.5  # at most this times the healthy-boot rate: noise
PREVIOUS_END_TAGS = ("reset_reason", "journal_unclean", "fs_recovery", "mce_logged_at_boot")
LOCKUP_TAGS = ("hard_lockup", "soft_lockup", "rcu_stall", "hung_task")
MEMORY_TAGS = ("oom_kill", "oomd_kill", "page_allocation_failure")


PHRASES = {
    Outcome.CLEAN_SHUTDOWN: "Clean shutdown",
    Outcome.CLEAN_REBOOT: "Clean reboot",
    Outcome.KERNEL_PANIC: "Kernel panic",
    Outcome.HARD_FREEZE: "Hard freeze",
    Outcome.HANG_MEMORY_EXHAUSTION: "Memory-exhaustion hang",
    Outcome.ABRUPT_RESET_OR_POWER_LOSS: "Abrupt reset or power loss",
    Outcome.WATCHDOG_RESET: "Watchdog reset",
    Outcome.THERMAL_SHUTDOWN: "Thermal shutdown",
    Outcome.RECORDER_STOPPED: "Recorder stopped",
    Outcome.UNKNOWN: "Unknown end",
    Outcome.STILL_RUNNING: "Still running",
}


class Confidence(enum.StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True, slots=True)
class Evidence:
    why: str
    item: Item | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """What one rule concluded."""

    outcome: Outcome
    reason: str
    confidence: Confidence
    summary: str  # the outcome in words, start of the headline
    evidence: tuple[Evidence, ...] = ()
    subject: str = "this_boot"  # or "previous_boot": the log's start speaks of the boot before


@dataclass(frozen=True, slots=True)
class RuleError:
    where: str
    error: str


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    reason: str
    confidence: Confidence
    headline: str
    evidence: tuple[Evidence, ...]
    primary: TagStats | None
    final_tags: frozenset[tuple[str, str]]  # (tag, device) seen in the final window
    noise: frozenset[str]  # tags at or below their healthy-boot rate
    routine_only: bool  # nothing but routine warnings in the final window
    subject: str
    errors: tuple[RuleError, ...]


@dataclass
class Context:
    """What rules read. `ended`: a later boot exists, so this boot certainly ended."""

    tl: Timeline
    nxt: Timeline | None
    baseline: Mapping[str, float]
    ended: bool
    final: list[TagStats] = field(default_factory=list)
    noise: set[str] = field(default_factory=set)
    primary: TagStats | None = None
    errors: list[RuleError] = field(default_factory=list)

    def final_of(self, *tags: str) -> list[TagStats]:
        return [t for t in self.final if t.tag in tags]


# -- window, noise, culprit --------------------------------------------------------------
def _final_window(tl: Timeline) -> list[TagStats]:
    """Tags whose last occurrence is near the end: within FINAL_SECONDS of the last stamp
    when the log has clocks, else within the last FINAL_LINES kernel/userspace lines."""
    ev = [i for i in tl.tail if i.line.origin in ("kernel", "userspace")]
    start = ev[-FINAL_LINES].pos if len(ev) >= FINAL_LINES else (ev[0].pos if ev else 0)
    if len(ev) < FINAL_LINES and tl.total <= len(tl.head) + len(tl.tail):
        start = 0
    end_ts, end_wall = tl.last_ts_usec, tl.last_wall_us
    window = FINAL_SECONDS * 1_000_000

    def final(t: TagStats) -> bool:
        rec = t.last.line.record
        if end_ts is not None and rec.ts_usec is not None:
            return rec.ts_usec >= end_ts - window
        if end_wall is not None and rec.wall_us is not None:
            return rec.wall_us >= end_wall - window
        return t.last.pos >= start

    return [t for t in tl.tags if final(t)]


def _hours(tl: Timeline) -> float | None:
    if tl.first_ts_usec is not None and tl.last_ts_usec is not None:
        span = tl.last_ts_usec - tl.first_ts_usec
    elif tl.first_wall_us is not None and tl.last_wall_us is not None:
        span = tl.last_wall_us - tl.first_wall_us
    else:
        return None
    return max(span / 3.6e9, 1 / 60)  # at least a minute: early-boot bursts are not rates


def _noise(ctx: Context) -> None:
    """A tag no more frequent than on healthy boots is noise (seed 000: the svm_range hog
    came 6 times in a healthy 7-hour boot). Its count is compared with what the healthy
    rate predicts for this boot's length (an hour at least), with slack for small numbers."""
    hours = max(_hours(ctx.tl) or 1.0, 1.0)
    for tag, rate in ctx.baseline.items():
        count = ctx.tl.count(tag)
        if not count or rate <= 0 or tag == "kernel_panic":
            continue
        if count <= rate * hours * NOISE_FACTOR + 1:
            ctx.noise.add(tag)


def _culprit(ctx: Context) -> TagStats | None:
    def rank(t: TagStats) -> tuple[int, int]:
        return (t.hit.signature.rank, t.first.pos)

    blamable = [t for t in ctx.final if t.hit.signature.rank < 100 and t.tag not in ctx.noise]
    serious = [t for t in blamable if not t.hit.signature.routine]
    if serious:
        return min(serious, key=rank)
    return min(blamable, key=rank) if blamable else None


# -- rules -------------------------------------------------------------------------------
def _ev(t: TagStats, why: str) -> Evidence:
    return Evidence(f"last {t.tag}" if why == "culprit" and t.count > 1 else why, t.last)


_PANIC_REASONS = (
    ("hard_lockup", r"Hard LOCKUP|hard lockup"),
    ("soft_lockup", r"softlockup|soft lockup"),
    ("hung_task", r"hung_task|hung tasks|blocked tasks"),
    ("rcu_stall", r"RCU Stall|rcu stall"),
    ("sysrq", r"sysrq"),
    ("out_of_memory", r"Out of memory|deadlocked on memory|out of memory"),
    ("mce", r"[Mm]achine check|MCE|Not all CPUs entered broadcast exception"),
    ("no_root_fs", r"Unable to mount root fs|VFS:"),
    ("init_died", r"Attempted to kill init"),
    ("warning", r"panic_on_warn"),
    ("oops", r"Fatal exception|Oops"),
)


def rule_panic(ctx: Context) -> Decision | None:
    """`Kernel panic - not syncing: <why>` is terminal; the text after it names the reason."""
    panics = ctx.tl.stats("kernel_panic") or ctx.tl.stats("sysrq_crash")
    if not panics:
        return None
    p = panics[-1]
    text = p.first.line.record.message
    why = text.split("not syncing:", 1)[-1]
    reason = next((r for r, rx in _PANIC_REASONS if re.search(rx, why)), "")
    if not reason and ctx.primary is not None and ctx.primary.tag in (*LOCKUP_TAGS, "oops"):
        reason = ctx.primary.tag
    return Decision(
        Outcome.KERNEL_PANIC,
        reason or "other",
        Confidence.HIGH,
        "Kernel panic",
        (_ev(p, "kernel panic"),),
    )


def rule_thermal(ctx: Context) -> Decision | None:
    hot = ctx.final_of("thermal_critical")
    if not hot:
        return None
    return Decision(
        Outcome.THERMAL_SHUTDOWN,
        "critical_temperature",
        Confidence.HIGH,
        "Thermal shutdown",
        tuple(_ev(t, "critical temperature") for t in hot),
    )


_REBOOT_WORDS = re.compile(
    r"Restarting system|Rebooting|is rebooting|reboot\.target|System Reboot|[Kk]exec"
)
_POWEROFF_WORDS = re.compile(
    r"Power-?[Oo]ff|Power down|Power Off|[Pp]owering (?:off|down)|[Hh]alt|poweroff"
)


def rule_clean_end(ctx: Context) -> Decision | None:
    """The shutdown sequence within the last END_LINES lines: only the end counts (a marker in
    the middle, or a grep for one, says nothing about how the boot ended)."""
    ev = [i for i in ctx.tl.tail if i.line.origin in ("kernel", "userspace")]
    last = ev[-END_LINES:]
    marks = [i for i in last if "clean_shutdown_marker" in i.tags]
    if not marks:
        return None
    text = " ".join(i.line.record.message for i in marks)
    evidence = tuple(Evidence("shutdown sequence", i) for i in marks[-3:])
    if _REBOOT_WORDS.search(text):
        return Decision(Outcome.CLEAN_REBOOT, "", Confidence.HIGH, "Clean reboot", evidence)
    strength = Confidence.HIGH if _POWEROFF_WORDS.search(text) else Confidence.MEDIUM
    return Decision(Outcome.CLEAN_SHUTDOWN, "", strength, "Clean shutdown", evidence)


def _previous_end(
    src: Timeline | None,
) -> tuple[list[TagStats], list[tuple[int, str, str, Outcome]]]:
    if src is None:
        return [], []
    found = [t for t in src.tags if t.tag in PREVIOUS_END_TAGS]
    bits: list[tuple[int, str, str, Outcome]] = []
    for t in found:
        if t.tag == "reset_reason" and not bits:
            m = t.hit.signature.pattern.search(t.first.line.record.message)
            if m is not None:
                bits = decode_reset(int(m.group("bits"), 16))
    return found, bits


def _next_boot_decision(
    found: list[TagStats], bits: list[tuple[int, str, str, Outcome]], ctx: Context
) -> Decision | None:
    evidence = tuple(_ev(t, f"next boot: {t.tag}") for t in found)
    if bits and bits[0][3] is not Outcome.UNKNOWN:
        bit, key, words, outcome = bits[0]
        return Decision(
            outcome,
            f"amd_reset:{key}",
            Confidence.HIGH
            if outcome in (Outcome.WATCHDOG_RESET, Outcome.THERMAL_SHUTDOWN)
            else Confidence.MEDIUM,
            f"Reset by the hardware ({words}, bit {bit})",
            evidence,
        )
    if any(t.tag == "mce_logged_at_boot" for t in found):
        return Decision(
            Outcome.ABRUPT_RESET_OR_POWER_LOSS,
            "mce_logged_at_boot",
            Confidence.LOW,
            "Abrupt reset with machine-check errors logged at the next boot",
            evidence,
        )
    return None


def rule_reset_reason(ctx: Context) -> Decision | None:
    found, bits = _previous_end(ctx.nxt)
    return _next_boot_decision(found, bits, ctx) if found else None


def _stuck(ctx: Context, tags: Sequence[str], outcome: Outcome, what: str) -> Decision | None:
    hits = ctx.final_of(*tags)
    if not hits:
        return None
    first = min(hits, key=lambda t: (t.hit.signature.rank, t.first.pos))
    if not ctx.ended:
        return Decision(
            Outcome.UNKNOWN,
            f"log_ends_after:{first.tag}",
            Confidence.LOW,
            f"The log ends after {what}; it does not show how the boot ended",
            (_ev(first, what),),
        )
    return Decision(
        outcome,
        first.tag,
        Confidence.MEDIUM,
        f"{PHRASES[outcome]} after {what}",
        (_ev(first, what),),
    )


def rule_memory(ctx: Context) -> Decision | None:
    return _stuck(ctx, MEMORY_TAGS, Outcome.HANG_MEMORY_EXHAUSTION, "the OOM killer fired")


def rule_lockup(ctx: Context) -> Decision | None:
    return _stuck(ctx, LOCKUP_TAGS, Outcome.HARD_FREEZE, "a CPU lockup or stall")


def rule_culprit_at_end(ctx: Context) -> Decision | None:
    """Any other serious signature in the final window, the log then stopping."""
    p = ctx.primary
    if p is None or p.hit.signature.routine:
        return None
    if not ctx.ended:
        return Decision(
            Outcome.UNKNOWN,
            f"log_ends_after:{p.tag}",
            Confidence.LOW,
            "The log ends without a shutdown or panic",
            (_ev(p, "culprit"),),
        )
    return Decision(
        Outcome.HARD_FREEZE,
        p.tag,
        Confidence.LOW,
        "Ended without shutdown or panic (likely a hang)",
        (_ev(p, "culprit"),),
    )


def rule_unclean(ctx: Context) -> Decision | None:
    found, _ = _previous_end(ctx.nxt)
    if not (ctx.ended or found):
        return None
    evidence = tuple(_ev(t, f"next boot: {t.tag}") for t in found)
    return Decision(
        Outcome.UNKNOWN,
        "ended_without_shutdown",
        Confidence.LOW,
        "Ended without a shutdown sequence; the log cannot tell a freeze from a power loss",
        evidence,
    )


Rule = Callable[[Context], Decision | None]
RULES: tuple[Rule, ...] = (
    rule_panic,
    rule_thermal,
    rule_clean_end,
    rule_reset_reason,
    rule_memory,
    rule_lockup,
    rule_culprit_at_end,
    rule_unclean,
)


def _previous_boot(ctx: Context) -> Decision | None:
    """A single boot with no visible end whose start speaks of the boot before it."""
    found, bits = _previous_end(ctx.tl)
    early = [t for t in found if t.first.pos < 2000]
    if not early:
        return None
    d = _next_boot_decision(early, bits, ctx) or Decision(
        Outcome.UNKNOWN,
        "unclean_end",
        Confidence.LOW,
        "did not shut down cleanly",
        tuple(_ev(t, t.tag) for t in early),
    )
    return Decision(
        d.outcome,
        d.reason,
        d.confidence,
        f"The boot before this log: {d.summary}",
        d.evidence,
        subject="previous_boot",
    )


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
        ctx.final = _final_window(timeline)
        _noise(ctx)
        ctx.primary = _culprit(ctx)
    except Exception as err:
        ctx.errors.append(RuleError("culprit", f"{type(err).__name__}: {err}"))
    decision = None
    for rule in RULES:
        try:
            decision = rule(ctx)
        except Exception as err:
            ctx.errors.append(RuleError(rule.__name__, f"{type(err).__name__}: {err}"))
            continue
        if decision is not None:
            break
    undecided = decision is None or decision.outcome is Outcome.UNKNOWN
    if undecided and nxt is None and not ctx.ended and not previous_known:
        try:
            decision = _previous_boot(ctx) or decision
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
    clean = d.outcome in (Outcome.CLEAN_SHUTDOWN, Outcome.CLEAN_REBOOT)
    primary = None if clean or d.subject == "previous_boot" else ctx.primary
    routine_only = primary is not None and primary.hit.signature.routine
    evidence = list(d.evidence)
    if primary is not None and not any(e.item == primary.first for e in evidence):
        evidence.insert(0, Evidence(f"first {primary.tag}", primary.first))
    for t in _previous_end(ctx.nxt)[0]:
        if d.subject == "this_boot" and not any(e.item == t.last for e in evidence):
            evidence.append(_ev(t, f"next boot: {t.tag}"))
    return Verdict(
        outcome=d.outcome,
        reason=d.reason,
        confidence=d.confidence,
        headline=_headline(d, primary, routine_only),
        evidence=tuple(evidence[:8]),
        primary=primary,
        final_tags=frozenset((t.tag, t.device) for t in ctx.final),
        noise=frozenset(ctx.noise),
        routine_only=routine_only,
        subject=d.subject,
        errors=tuple(ctx.errors),
    )


def _headline(d: Decision, primary: TagStats | None, routine_only: bool) -> str:
    head = d.summary
    if d.reason and d.outcome is not Outcome.UNKNOWN and d.reason not in head:
        head += f" ({d.reason})"
    if primary is None:
        return head + "."
    meaning = describe(primary.tag)[0] or primary.tag
    where = f" on {primary.device}" if primary.device else ""
    times = f", {primary.count}×" if primary.count > 1 else ""
    if routine_only:
        return f"{head}. Only routine warnings at the end: {primary.tag}{where}{times}."
    return f"{head}. Culprit: {primary.tag}{where}{times}: {meaning}"


__all__ = ["BY_TAG", "RULES", "Confidence", "Decision", "Evidence", "Verdict", "classify"]
