"""The ring's word on how a boot ended, on top of what its kernel lines say.

The text classifier (classify.py) judges the kernel lines; the ring adds what text cannot
know: whether the recorder stopped cleanly, whether the box kept beating to the end or
slowed first, how long it stayed dead, what memory looked like, and the two witnesses
(pstore, the journal). RULES is an ordered list; the first that decides wins, and a rule
that raises is recorded and skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kmsgd.catalogue.tags import Tag
from kmsgd.judge.classify import Verdict
from kmsgd.judge.clocks import Downtime, downtime
from kmsgd.judge.incidents import Blocked
from kmsgd.judge.liveness import Liveness
from kmsgd.judge.rules import SHUTDOWN_HANG, RuleError, first_decision
from kmsgd.ring.records import KernelRecord
from kmsgd.types import CLEAN, WORDS, Confidence, Outcome

QUICK_RETURN_S = 120.0  # next boot this soon after the last sign of life: it came back by itself
TEXT_DECIDES = (Outcome.KERNEL_PANIC, Outcome.THERMAL_SHUTDOWN, Outcome.WATCHDOG_RESET)
LOW_MEMORY_FRACTION = 0.05
PSI_FULL_STALLED_PCT = 20.0


@dataclass(frozen=True, slots=True)
class MemoryFacts:
    available_fraction: float | None  # MemAvailable / MemTotal at the end
    psi_full_max_pct: float | None  # memory "full" avg10, highest in the final minute
    oom_kills: int  # oom_kill / oomd_kill lines in the final window
    text: str = ""  # "MemAvailable 90.1 GiB → 0.3 GiB in the final 40 s"


@dataclass(frozen=True, slots=True)
class Witness:
    """A second opinion from outside the ring (pstore, journal)."""

    outcome: Outcome
    reason: str
    confidence: Confidence
    text: str
    records: tuple[KernelRecord, ...] = ()  # kernel lines only the witness saw (pstore)


@dataclass(frozen=True, slots=True)
class RingFacts:
    live: Liveness
    current: bool  # this is the running boot
    next_boot_wall_us: int | None
    memory: MemoryFacts
    pstore: Witness | None = None
    journal: Witness | None = None
    checked_downtime: Downtime | None = None  # from clocks.downtime, both boots' clocks checked
    stuck: Blocked | None = None  # an incident saw tasks pile up in D state in one call

    @property
    def downtime(self) -> Downtime:
        if self.checked_downtime is not None:
            return self.checked_downtime
        return downtime(self.live.last_wall_us, self.next_boot_wall_us)

    @property
    def downtime_s(self) -> float | None:
        return self.downtime.seconds


@dataclass(frozen=True, slots=True)
class RingDecision:
    outcome: Outcome
    reason: str
    confidence: Confidence
    summary: str  # the outcome in words; "" keeps the kernel lines' verdict's words
    evidence: tuple[str, ...] = ()
    detail: str = ""  # why, after a colon: "the machine slowed down, then stopped"


def _still_running(v: Verdict, f: RingFacts) -> RingDecision | None:
    if not f.current:
        return None
    return RingDecision(Outcome.STILL_RUNNING, "", Confidence.HIGH, "This boot is still running")


def _stop_marker(v: Verdict, f: RingFacts) -> RingDecision | None:
    """The recorder wrote `stop` as its last record: a clean end if the system was going down."""
    stop = f.live.stop
    if stop is None:
        return None
    said = f"recorder stopped by {stop.signal or 'request'}, system state '{stop.system_state}'"
    if not stop.shutting_down:
        if f.journal is not None and f.journal.outcome in CLEAN:
            return RingDecision(
                f.journal.outcome,
                "journal",
                Confidence.MEDIUM,
                f"{WORDS[f.journal.outcome]} (the recorder had been stopped earlier)",
                (said, f.journal.text),
            )
        return RingDecision(
            Outcome.RECORDER_STOPPED,
            "",
            Confidence.HIGH,
            WORDS[Outcome.RECORDER_STOPPED],
            (said,),
            "kmsgd was stopped while the system kept running, so how the boot ended is unknown",
        )
    if "reboot" in stop.detail or "kexec" in stop.detail:
        outcome = Outcome.CLEAN_REBOOT
    elif "poweroff" in stop.detail or "halt" in stop.detail:
        outcome = Outcome.CLEAN_SHUTDOWN
    elif v.outcome in CLEAN:
        outcome = v.outcome
    else:
        outcome = (
            Outcome.CLEAN_REBOOT
            if f.journal and f.journal.outcome is Outcome.CLEAN_REBOOT
            else Outcome.CLEAN_SHUTDOWN
        )
    detail = f" ({stop.detail})" if stop.detail else ""
    return RingDecision(outcome, "", Confidence.HIGH, WORDS[outcome], (said + detail,))


def _kernel_said(v: Verdict, f: RingFacts) -> RingDecision | None:
    """A panic, thermal trip or watchdog reset in the kernel's own words stands, and so does
    a lockup after the shutdown began (rules.rule_shutdown_hang): the shutdown never ended."""
    if v.outcome not in TEXT_DECIDES and v.reason != SHUTDOWN_HANG:
        return None
    witness = (f.pstore.text,) if f.pstore is not None else ()
    return RingDecision(v.outcome, v.reason, v.confidence, "", (*witness, *_liveness_lines(f)))


def _pstore(v: Verdict, f: RingFacts) -> RingDecision | None:
    if f.pstore is None:
        return None
    w = f.pstore
    return RingDecision(
        w.outcome, w.reason, w.confidence, f"{WORDS[Outcome.KERNEL_PANIC]} (from pstore)", (w.text,)
    )


def _journal_clean(v: Verdict, f: RingFacts) -> RingDecision | None:
    """No stop record, but the journal's final entries show systemd finishing a shutdown."""
    w = f.journal
    if w is None or w.outcome not in CLEAN:
        return None
    return RingDecision(
        w.outcome,
        "journal",
        Confidence.MEDIUM,
        f"{WORDS[w.outcome]} (from the journal; the recorder wrote no stop record)",
        (w.text,),
    )


def _memory(v: Verdict, f: RingFacts) -> RingDecision | None:
    m = f.memory
    low = m.available_fraction is not None and m.available_fraction < LOW_MEMORY_FRACTION
    stalled = m.psi_full_max_pct is not None and m.psi_full_max_pct >= PSI_FULL_STALLED_PCT
    if not (m.oom_kills or low or stalled):
        return None
    if not m.oom_kills and not (low and (stalled or f.live.late_final_beats)):
        return None  # a full page cache is not a hang: want OOM kills, or starvation plus stalls
    signs = sum((bool(m.oom_kills), low, stalled, f.live.late_final_beats > 0))
    confidence = Confidence.HIGH if signs >= 3 else Confidence.MEDIUM
    lines = [m.text] if m.text else []
    if m.oom_kills:
        lines.append(f"OOM killer fired {m.oom_kills}× in the final window")
    return RingDecision(
        Outcome.HANG_MEMORY_EXHAUSTION,
        Tag.OOM_KILL if m.oom_kills else "memory_starved",
        confidence,
        WORDS[Outcome.HANG_MEMORY_EXHAUSTION],
        (*lines, *_liveness_lines(f)),
    )


def _silence(v: Verdict, f: RingFacts) -> RingDecision | None:
    """No word from the kernel about the end: the heartbeats and the downtime tell."""
    live = f.live
    if live.beats < 2:
        return RingDecision(
            Outcome.UNKNOWN,
            "no_heartbeats",
            Confidence.LOW,
            WORDS[Outcome.UNKNOWN],
            _liveness_lines(f),
            "the ring holds no heartbeats for this boot",
        )
    down = f.downtime_s
    lines = _liveness_lines(f)
    if f.stuck is not None:  # an incident watched tasks pile up in one call before the end
        lines = (*lines, f"incident: {f.stuck}")
    if live.late_final_beats >= 2:  # one hiccup under load is no slowing machine
        return RingDecision(
            Outcome.HARD_FREEZE,
            "slowed_then_stopped",
            Confidence.HIGH if f.stuck is not None else Confidence.MEDIUM,
            WORDS[Outcome.HARD_FREEZE],
            lines,
            "the machine slowed down, then stopped",
        )
    if down is None and f.next_boot_wall_us is not None:
        # A later boot exists, but the two boots' clocks disagree: the downtime that would
        # tell a freeze (stayed down) from a reset (came back at once) is unknown.
        freeze = _own_failure(v) or f.stuck is not None
        return RingDecision(
            Outcome.HARD_FREEZE if freeze else Outcome.ABRUPT_RESET_OR_POWER_LOSS,
            "clocks_disagree",
            Confidence.LOW,
            "Hard freeze or power loss" if freeze else "Abrupt reset, power loss or freeze",
            (*lines, f.downtime.note),
            "heartbeats stopped abruptly; the clocks disagree, so the downtime cannot tell",
        )
    if down is None:
        return RingDecision(
            Outcome.UNKNOWN,
            "no_later_boot",
            Confidence.LOW,
            WORDS[Outcome.UNKNOWN],
            lines,
            "heartbeats stopped abruptly and the ring holds no later boot to tell a freeze from "
            "a power loss",
        )
    if down <= QUICK_RETURN_S:
        return RingDecision(
            Outcome.ABRUPT_RESET_OR_POWER_LOSS,
            "",
            Confidence.MEDIUM,
            WORDS[Outcome.ABRUPT_RESET_OR_POWER_LOSS],
            lines,
            "heartbeats regular to the end, next boot soon after",
        )
    return RingDecision(
        Outcome.HARD_FREEZE,
        "stayed_down",
        Confidence.MEDIUM if _own_failure(v) or f.stuck else Confidence.LOW,
        WORDS[Outcome.HARD_FREEZE],
        lines,
        "heartbeats stopped and the box stayed down until reset (a power loss with power "
        "restored later would look the same)",
    )


def _own_failure(v: Verdict) -> bool:
    """A culprit in the boot's own lines (the next boot's evidence, rank 100, is none)."""
    return v.primary is not None and v.primary.hit.signature.rank < 100


def _liveness_lines(f: RingFacts) -> tuple[str, ...]:
    live = f.live
    out = []
    if live.interval_s:
        pace = (
            "regular to the end"
            if live.late_final_beats == 0
            else (f"{live.late_final_beats} of the last {len(live.final_gaps_s)} late")
        )
        out.append(f"{live.beats} heartbeats every {live.interval_s:g} s, {pace}")
    if live.silence_s is not None and live.silence_s >= 1:
        out.append(f"last kernel line {live.silence_s:.0f} s before the last sign of life")
    if f.downtime_s is not None:
        out.append(f"next boot {f.downtime_s:.0f} s after the last sign of life")
    return tuple(out)


Rule = Callable[[Verdict, RingFacts], RingDecision | None]
RULES: tuple[Rule, ...] = (
    _still_running,
    _stop_marker,
    _kernel_said,
    _pstore,
    _journal_clean,
    _memory,
    _silence,
)


def decide(verdict: Verdict, facts: RingFacts) -> tuple[RingDecision, list[RuleError]]:
    """The ring's decision and the errors of rules that raised."""
    errors: list[RuleError] = []
    d = first_decision(RULES, verdict, facts, errors=errors)
    return d or RingDecision(Outcome.UNKNOWN, "", Confidence.LOW, WORDS[Outcome.UNKNOWN]), errors
